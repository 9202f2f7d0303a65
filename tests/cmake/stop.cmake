# Clean stops (issue 10, item 3): SIGTERM and SIGUSR1 stop a job with exit status 75 and checkpoints; the rerun resumes
# to results equal to an uninterrupted run; a periodic checkpoint survives a SIGKILL.
vicms_app_test(stop)
# Stepper checkpoints (leapfrog, moreau and mixed (three bases), frictional; nsgalpha, frictionless): stop, write, restore into a fresh stepper, continue = uninterrupted run bitwise.
vicms_unit_test(test_checkpoint RANKS 1 2 3)
