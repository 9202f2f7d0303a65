# A flexible body's nodes on springs and lines through two of its points as contacts (issue 23; src/system/mbpoint.c):
# the almost rigid body against the rigid one, static deflections against the ROM's static equations, bad input.
vicms_app_test(multibody_flexible_points)
