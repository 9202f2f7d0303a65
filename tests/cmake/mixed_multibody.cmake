# The mixed scheme of seed 001 on multibody systems (src/step/mixednl.c): the free slider-crank against the SciPy solution (second
# order of the genalpha, bathe and ED-alpha bases), the pendulum's swing and rebound against the exact ones, Table 1 on 1, 2, 3
# ranks bitwise, stop and resume.
vicms_app_test(mixed_multibody)
