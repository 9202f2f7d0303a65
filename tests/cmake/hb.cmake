# Harmonic balance (seed 000 App. A): a linear ROM against its directly solved frequency response, the hardening stop
# oscillator (turning points, unstable overhang, stability), condensed = full formulation and convergence in H; Coulomb friction (the
# DLFT law: Jacobian by finite differences, full stick against the linear FRF, micro- and gross slip, against the time stepping).
vicms_unit_test(test_hb CASE linear RANKS 1 2 3 ARGS -case linear)
vicms_unit_test(test_hb CASE stop RANKS 1 2 3 ARGS -case stop)
vicms_unit_test(test_hb CASE condense RANKS 1 ARGS -case condense)
vicms_unit_test(test_hb CASE friction RANKS 1 2 3 ARGS -case friction)
# the default dynamic Lagrangian parameters: 4 times the static stiffness at each contact coordinate, at most its diagonal
vicms_unit_test(test_hb CASE eps RANKS 1 2 3 ARGS -case eps)
vicms_app_test(hb)
vicms_app_test(hb_plate)
vicms_app_test(hb_friction)
# the round Coulomb disk: a circular gross slip against its closed form, its stability against the exact multipliers
vicms_app_test(hb_disk)
# a preloaded frictional contact that opens and closes again every period: the time stepping recloses it, HB against it
vicms_app_test(hb_open)
# a preloaded contact that opens, with the default parameter: against the time stepping and the exact motion's multipliers
vicms_app_test(hb_preload)
# case sets as branches on rank groups: ranks, single runs, SIGKILL and resume, lock, failure isolation (issue 12)
vicms_app_test(hb_ensemble)
# a branch stopped by SIGTERM/SIGUSR1 (or killed after a periodic checkpoint) resumes bit for bit, on 1 and 2 ranks
vicms_app_test(hb_stop)
# turning points located between the branch points (issue 24): against a fine-step branch, the marked point >= 1 % off
vicms_app_test(hb_fold)
