# The contact module: projections, projected Jacobi and Gauss-Seidel against enumeration, Coulomb's law and closed forms.
vicms_unit_test(test_contact RANKS 1)
