# Time functions of the multibody model (src/system/mbtime.c): the cubic spline of a table against a sampled sine (orders
# 4, 3, 2), a cubic, C2 at the knots, refused tables and CSV files with their line numbers.
vicms_unit_test(test_mbtime RANKS 1)
# Drivers and loads by tables (issue 23 §2): a crank and a spatial rod driven by sampled motions against SciPy's spline and
# the analytic driver, a torque ramped by a factor table on planar and spatial rotors against the exact angle, bad input.
vicms_app_test(multibody_motion)
# Time functions and joint outputs (issue 23): a load's factor by a formula on planar and spatial rotors, a run started at
# t0 against the run from 0 (a driver's motion of absolute time), a prismatic joint's slide (a bead on a turning rod) and a
# driven joint's prescribed coordinate, bad input.
vicms_app_test(multibody_timefn)
