# The semi-smooth Newton's linear solve (src/step/ssnewton.c): its Schur path against LAPACK and the dense path.
vicms_unit_test(test_ssnewton RANKS 1)
