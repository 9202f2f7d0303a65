vicms_unit_test(test_element RANKS 1)
