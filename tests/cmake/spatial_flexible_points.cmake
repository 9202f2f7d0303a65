# A spatial flexible body's nodes (issue 23; src/system/mbpoint.c): a tip node on a spring against the rigid body of the
# almost rigid beam's invariants and against the ROM's static equilibrium, on a prismatic joint against the harmonic
# oscillator, resting on a moving block's plane against the static equations, tributary weights on a 3-D ROM's edge and
# face, bad input.
vicms_app_test(spatial_flexible_points)
