# Spatial rigid bodies (unit quaternions, spherical joints; issue 23 §2): a torque-free asymmetric body, the heavy top and a
# spherical pendulum against SciPy's Euler equations, conservation, the norm kept by GGL, 1 = 2 = 3 ranks bitwise, bad input.
vicms_app_test(spatial)
# Loads on spatial bodies: a force in the fixed frame and a torque in the body's frame against Euler's equations
vicms_app_test(spatial_loads)
