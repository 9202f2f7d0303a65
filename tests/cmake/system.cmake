# The system interface: the reduced type's general ops (force, tangents, mass, energy, constraints) against its linear operators.
vicms_unit_test(test_system RANKS 1 2)
