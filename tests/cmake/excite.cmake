# Excitation functions: closed forms, derivatives, the seed 000 §5.2 sweep, bump placement, noise, options and their errors.
vicms_unit_test(test_excite RANKS 1)
