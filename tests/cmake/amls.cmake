# The one-level substructuring prototype of issue 26 (bench/amls.c, built with VICMS_BUILD_BENCH): with every local
# fixed-interface mode kept its basis spans the whole space, so its lowest 12 frequencies are the direct path's
# (VIModalSolve, MUMPS) up to rounding: an exact check of the interface, the constraint modes by blocks (32 columns per
# block, several blocks) and the reduced matrices, on 2 and 3 ranks (measured 1.8e-12, 1.9e-12; tolerance 1e-10).
if(TARGET vicms_amls_bench)
  foreach(np 2 3)
    add_test(NAME amls_bench_exact_np${np}
             COMMAND ${VICMS_MPIEXEC} -n ${np} $<TARGET_FILE:vicms_amls_bench> -mesh_box_cells 4,4,24 -mesh_box_lengths 0.02,0.02,0.12
                     -model_young 210e9 -model_poisson 0.3 -model_density 7800 -model_clamp zmin -amls_all -amls_nev 12 -amls_block 32
                     -amls_check -amls_check_tol 1e-10 -malloc_debug -malloc_dump)
    set_tests_properties(amls_bench_exact_np${np} PROPERTIES ENVIRONMENT "${VICMS_TEST_ENV}" PROCESSORS ${np} LABELS "unit;amls"
                         PASS_REGULAR_EXPRESSION "largest relative difference [0-9.e+-]+ \\(tolerance 1e-10\\)"
                         FAIL_REGULAR_EXPRESSION "above [0-9.e+-]+;[Ee]rror") # a pass expression alone ignores the exit status
  endforeach()
endif()
