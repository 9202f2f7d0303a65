# The plate of seed 000 §5.2 on a coarse mesh (issue 6): the contact closes only near resonance, the wall caps one side
# only, and sweeps up and down show the hardening, the hysteresis and the jump.
vicms_app_test(plate_frf)
