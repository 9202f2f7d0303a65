# Mixed timestepping (seed 001, -step_type mixed): the 3-DOF model problem of §2.8 (k0 = 1e7, h = 1e-3) against its exact modal solution
# (mode 3 damped by bathe, edalpha and genalpha with rho_inf = 0, kept by genalpha with 0.8; modes 1, 2 within 1 %), the measured orders
# of every base scheme (2 smooth, 3 for ED-alpha with alpha_AR = 1/6, 1 with an impact), a 24-coordinate chain with a frictional contact
# on all ranks bitwise equal to one rank; every case on 1, 2 and 3 ranks. Bad input through `vicms simulate` in app/mixed.sh; stop/resume
# of the three base schemes in test_checkpoint (stop.cmake).
vicms_unit_test(test_step CASE mixed_modes RANKS 1 2 3 ARGS -case mixed_modes)
vicms_unit_test(test_step CASE mixed_order RANKS 1 2 3 ARGS -case mixed_order)
vicms_unit_test(test_step CASE mixed_ranks RANKS 1 2 3 ARGS -case mixed_ranks)
vicms_app_test(mixed)
# Seed 001 §2.8 model (b): the chain held by a bilateral row instead of k0: mixed on velocity level (v3 = 0, generalized-alpha's constant
# position drift h^2 a_3,0 (gamma/2 - beta) to 1e-10; Bathe and ED-alpha x3 = 0), nsgalpha on position level (x3 = 0 to 1e-12).
vicms_unit_test(test_step CASE mixed_bilateral RANKS 1 2 3 ARGS -case mixed_bilateral)
# The bouncing bar by every scheme over 10 periods (docs/integrators.md).
vicms_unit_test(test_step CASE bar_schemes RANKS 1 ARGS -case bar_schemes)
# mixed's modal path (issue 24 item 25) and nsgalpha's (the shared src/step/modal.c) against -step_modal false: each base, with impacts, friction
# and preloads, within 1e-9 (measured 1e-15..3e-11) and not bitwise equal; a dashpot (damping not modal): bitwise equal (the path refused).
vicms_unit_test(test_step CASE mixed_modal RANKS 1 2 ARGS -case mixed_modal)
