# Case sets (ensemble module): grid and value axes in product order, frequency sweeps and their end times, Monte Carlo and
# Latin hypercube samples against exact statistics and strata, the normal quantile, cases applied as options, bad input
# without leaks; the table bitwise the same on every rank (1, 2 and 3 ranks).
foreach(c grid values random lhs quantile sweep errors apply)
  vicms_unit_test(test_ensemble CASE ${c} RANKS 1 ARGS -case ${c})
endforeach()
vicms_unit_test(test_ensemble CASE repro RANKS 1 2 3 ARGS -case repro)
