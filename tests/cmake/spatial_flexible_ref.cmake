# A spatial flexible body's deforming motion against an independent SciPy model (tests/ref/spatial_flexible.py: the rotation
# matrix, Euler's and Lagrange's equations from the kinetic energy's definition): a soft beam swinging and spinning on a
# spherical joint, nsgalpha second order towards it, Moreau-Jean and mixed within their errors.
vicms_app_test(spatial_flexible_ref)
