# Redundant active rows: a box on its four bottom corners with friction, every nonlinear scheme (src/step/ssnewton.c, VISSNewton.regularize).
vicms_app_test(spatial_redundant)
