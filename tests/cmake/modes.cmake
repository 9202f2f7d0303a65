# Modal analysis of parent models: rod (exact), plate (Euler–Bernoulli; 1 vs 2 and 3 ranks), Rotor 37 blade (seed 000).
vicms_unit_test(test_modes CASE rod_fixed RANKS 1 2 3 ARGS -case rod_fixed)
vicms_unit_test(test_modes CASE rod_free RANKS 1 2 3 ARGS -case rod_free)
vicms_unit_test(test_modes CASE plate RANKS 1 2 3 ARGS -case plate)
vicms_unit_test(test_modes CASE free_boxes RANKS 1 2 3 ARGS -case free_boxes)
vicms_unit_test(test_modes CASE blade RANKS 1 2 3 ARGS -case blade)
# The modes file written in parallel, each rank its rows (issue 26): 1, 2 and 3 ranks agree; the -info lines of what each rank holds.
vicms_app_test(modes_parallel)
# The p-multigrid's interpolation on the C3D20 beam (src/fem/pmg.c): the corner DOFs and the rigid-body modes reproduced (1e-12).
vicms_unit_test(test_pmg RANKS 1 2 3 ARGS -mesh_file ${CMAKE_SOURCE_DIR}/meshes/beam_c3d20.inp)
