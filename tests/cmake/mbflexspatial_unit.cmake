# The spatial flexible body of the multibody system (src/system/mbflexspatial.c) against central differences, Lagrange's
# equations and the kinetic and potential energy of the point masses its ROM's invariants are made of.
vicms_unit_test(test_mbflexspatial RANKS 1)
