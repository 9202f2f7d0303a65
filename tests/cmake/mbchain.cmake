# A contact against a chain of segments through a flexible body's nodes (issue 23, src/system/mbchain.c): a mass resting on
# a beam's edge chain against the ROM's static equilibrium, a ball sliding with friction along an almost rigid beam's chain
# against the exact motion, bad input.
vicms_app_test(multibody_chain)
