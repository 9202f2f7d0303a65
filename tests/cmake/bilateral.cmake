# Bilateral rows (ROM contact/kinds) in nsgalpha and moreau against the exact constrained motion of two tied masses, Coulomb friction in
# nsgalpha (stick below mu N, the exact acceleration above), 1/2/3 ranks bitwise, bad ROM input (tests/app/bilateral.sh).
vicms_app_test(bilateral)
