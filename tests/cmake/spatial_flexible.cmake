# Spatial flexible bodies (src/system/mbflexspatial.c): the almost rigid beam against its rigid twin, the beam pendulum in
# a plane against the planar flexible body of its in-plane invariants, moreau, mixed, 2 ranks bitwise, bad input.
vicms_app_test(spatial_flexible)
