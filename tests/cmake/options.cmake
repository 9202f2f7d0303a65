# Options (issue 10): the registry against every option name in src/ and every key of jobs/*.yaml, typo suggestions, the
# job-file checker; through the executable: typos, non-finite values, bad enums, YAML errors, -help, a non-finite state.
vicms_unit_test(test_options RANKS 1 ARGS -source_dir ${CMAKE_SOURCE_DIR})
# the commands' own option table is part of the executable, not the library
target_sources(test_options PRIVATE ${CMAKE_SOURCE_DIR}/src/app/options.c)
vicms_app_test(options)
