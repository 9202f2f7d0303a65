# The multibody system's constraints against central differences (G, curvature), its mass, energy and outputs against formulas.
vicms_unit_test(test_multibody RANKS 1 2)
