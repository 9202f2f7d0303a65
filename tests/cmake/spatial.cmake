# Spatial rigid bodies (unit quaternions, spherical joints; issue 23 §2): a torque-free asymmetric body, the heavy top and a
# spherical pendulum against SciPy's Euler equations, conservation, the norm kept by GGL, 1 = 2 = 3 ranks bitwise, bad input.
vicms_app_test(spatial)
