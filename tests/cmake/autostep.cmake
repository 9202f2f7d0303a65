# The automatic time step (issue 11) on the bouncing bar: -step_dt auto against numpy and against trial (contact held, open,
# bouncing; leapfrog and the symmetric Moreau scheme), -step_accuracy 0.01 against the exact solution, bad input.
vicms_app_test(autostep)
