# The Python package python/vicms (docs/python.md) with pytest (Debian python3-pytest): readers against files of known
# content (a user ROM written and read back, a free mass's exact motion), case tables against vicms's, the plots
# (issue 24), and the Jenkins oscillator's vicms hb branch against the exact periodic response and vicms simulate.
# Exit code 5 of pytest (no test collected) is a failure; without pytest the test is skipped (77).
add_test(NAME python COMMAND sh -c "/usr/bin/python3 -c 'import pytest' 2>/dev/null || { echo 'skipped: /usr/bin/python3 has no pytest (Debian python3-pytest)'; exit 77; }; exec /usr/bin/python3 -m pytest -q -p no:cacheprovider ${CMAKE_SOURCE_DIR}/python/tests"
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(python PROPERTIES ENVIRONMENT "${VICMS_TEST_ENV}" PROCESSORS 1 LABELS "app;python" SKIP_RETURN_CODE 77 TIMEOUT 300)
