# Ensembles through the executable (issue 5): rank counts and group sizes agree bitwise, kill and resume, failing cases,
# UQ statistics against exact values, sweeps, bad input on 1, 2 and 3 ranks.
vicms_app_test(ensemble)
