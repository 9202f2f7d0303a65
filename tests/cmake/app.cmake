# Application tests through the vicms executable.
vicms_app_test(bad_input)
