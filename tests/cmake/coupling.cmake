# Bodies coupled at a position of the sliding path (seed 003 §1.4, §2.3, issue 14 milestone 3): the time-dependent FRF
# (Eq. 45) against the primal assembly; the frictionless CEA against the Rayleigh closed form and the symmetric eigenproblem;
# friction-induced flutter of a 2-DOF mode-coupling model against its closed form and the dual-assembly transient; the
# eigenvectors (mode shapes) against the flutter model's closed form and the residual of Eq. 12, over the ranks bit for bit; the band locator of vicms cea
# (issue 27) on sin s - 0.3 with failing points against its exact edges and peaks.
vicms_unit_test(test_coupling CASE frf RANKS 1 2 3 ARGS -case frf)
vicms_unit_test(test_coupling CASE modes RANKS 1 2 3 ARGS -case modes)
vicms_unit_test(test_coupling CASE flutter RANKS 1 2 3 ARGS -case flutter)
vicms_unit_test(test_coupling CASE vectors RANKS 1 2 3 ARGS -case vectors)
vicms_unit_test(test_coupling CASE bands RANKS 1 2 3 ARGS -case bands)
