# Spring-dampers of the multibody system (src/system/mbspring.c): df/dq, df/du against central differences, the force
# against the potential's gradient, the potential and the spring_force output against formulas, planar and spatial.
vicms_unit_test(test_mbspring RANKS 1)
# Spring-dampers (issue 23 §2): a mass on an oblique spring (planar and spatial) against the damped oscillator, the elastic
# pendulum against SciPy and its energy, an off-centre spring on a spatial body against Newton-Euler, 2 ranks, bad input.
vicms_app_test(multibody_springs)
