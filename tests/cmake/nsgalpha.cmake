# Nonsmooth generalized-alpha (seed 002) on user ROMs (scripts/write_user_rom.py): the bouncing ball of §10.1 against the scheme's exact
# discrete map and the exact impact times, Moreau-Jean penetrating on the same run; the elastic bar of §10.3 (contact duration 2L/c, exit
# velocity, energy against Moreau-Jean, bitwise equal on 1, 2 and 3 ranks); bad input (rho_inf, massless ROM, singular
# iteration matrix, malformed user ROMs) on 1, 2 and 3 ranks. Its stop/resume is in test_checkpoint (stop.cmake).
vicms_app_test(nsgalpha)
