# Time stepping (seed 000 §2 and App. B, seed 002 §10.3): the bouncing bar against its exact solution (leapfrog on the massless
# Craig-Bampton ROM, Moreau on the standard one), the impacting bar, hand-made 1-5 DOF systems with known answers (harmonic response,
# stick-slip onset, bitwise reproducibility), energy balance with friction; and `vicms simulate` through the executable.
vicms_unit_test(test_step CASE bar_leapfrog RANKS 1 2 ARGS -case bar_leapfrog)
vicms_unit_test(test_step CASE bar_moreau RANKS 1 ARGS -case bar_moreau)
vicms_unit_test(test_step CASE impact RANKS 1 ARGS -case impact)
vicms_unit_test(test_step CASE units RANKS 1 ARGS -case units)
vicms_unit_test(test_step CASE friction_energy RANKS 1 ARGS -case friction_energy)
vicms_unit_test(test_step CASE rotation RANKS 1 ARGS -case rotation)
vicms_app_test(simulate PROCESSORS 2)
