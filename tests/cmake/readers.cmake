vicms_unit_test(test_readers RANKS 1)
