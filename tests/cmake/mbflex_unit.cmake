# The flexible body of the multibody system (src/system/mbflex.c) against central differences and Lagrange's equations.
vicms_unit_test(test_mbflex RANKS 1 2)
