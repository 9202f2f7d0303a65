# Time functions of the multibody model (src/system/mbtime.c): the cubic spline of a table against a sampled sine (orders
# 4, 3, 2), a cubic, C2 at the knots, refused tables and CSV files with their line numbers.
vicms_unit_test(test_mbtime RANKS 1)
