# The ROM object and its file: round trip bit for bit, attributes, description, every validation failure on every rank.
vicms_unit_test(test_rom RANKS 1 2 3)
