# Spatial rigid bodies of the multibody system (src/system/mbspatial.c): G, curvature, d(M w)/dq, df/dq, df/du against
# central differences, f against Lagrange's equations, the energy, the initial state and the point output against formulas.
vicms_unit_test(test_mbspatial RANKS 1)
