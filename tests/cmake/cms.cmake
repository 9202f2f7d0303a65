# Component mode synthesis (seed 000 §3): verification of the four methods on a small plate and the bouncing bar, 1 vs N ranks,
# and `vicms reduce` through the executable (plate, Rotor 37 blade, bad input). Parallel cases run on 1, 2 and 3 ranks; `ranks` compares
# 2 and 3 ranks with 1 rank inside the test.
vicms_unit_test(test_cms CASE cb_fixed RANKS 1 2 3 ARGS -case cb_fixed)
vicms_unit_test(test_cms CASE flexibility RANKS 1 2 3 ARGS -case flexibility)
vicms_unit_test(test_cms CASE massless RANKS 1 2 3 ARGS -case massless)
vicms_unit_test(test_cms CASE convergence RANKS 1 2 3 ARGS -case convergence)
vicms_unit_test(test_cms CASE ranks RANKS 2 3 ARGS -case ranks)
vicms_unit_test(test_cms CASE loads RANKS 1 2 3 ARGS -case loads)
vicms_unit_test(test_cms CASE bar RANKS 1 2 3 ARGS -case bar)
vicms_unit_test(test_cms CASE lookup RANKS 1 2 3 ARGS -case lookup)
vicms_app_test(reduce)
# Several substructures (seed 003, issue 14): two Craig-Bampton beams with physical boundary DOFs coupled at a fixed contact
# point (frictionless normal tie, primal assembly): the lowest 10 coupled frequencies converge to the unreduced coupled FE
# model's (dense LAPACK) with 5, 10, 20 modes per body; the bodies file read back bit for bit.
vicms_unit_test(test_bodies RANKS 1 2 3)
# `vicms reduce -bodies`: the same bodies file whatever -bodies_parallel (sequential, rank groups) and 1, 2, 3 ranks (1e-10);
# bodies as element sets of one deck equal to separate decks (1e-10); bad input, an error on one rank group.
vicms_app_test(bodies)
vicms_app_test(scale)
# the iterative path on quadratic elements: the p-multigrid onto the corner nodes on the C3D20 beam against the direct path on 1, 2
# and 3 ranks (1e-8), its CG iterations per solve at most half GAMG's (docs/scale.md)
vicms_app_test(pmg)
# `vicms reduce -cms_fields` and `vicms fields`: the kept rows, a simulate case as an XDMF series read by ParaView's reader
# (skipped without one), its displacements equal to the ROM outputs (1e-10), 1, 2 and 3 ranks, bad input (docs/fields.md)
vicms_app_test(fields)
# `vicms fields` on cea and slide results (the bodies' fields kept by `vicms reduce -bodies`): a mode shape animated by phase and
# a slide history read by ParaView's reader and python/vicms, against the bodies' basis rows times the coordinates (1e-10)
vicms_app_test(fields_bodies)
