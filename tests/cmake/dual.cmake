# Dual assembly of sliding substructures (seed 003 Eqs. 22-44, issue 14 milestone 2): the dual transient against the primal
# coupled ROM at a fixed contact point; the search across master nodes and off the master's end; the discrete energy
# identity of frictionless sliding; Coulomb stick and slip of a block on a rigid plane; a slave force; the state of a run restored
# into another VIDual bit for bit (the checkpoint of vicms slide).
vicms_unit_test(test_dual CASE primal RANKS 1 2 3 ARGS -case primal)
vicms_unit_test(test_dual CASE search RANKS 1 2 3 ARGS -case search)
vicms_unit_test(test_dual CASE energy RANKS 1 2 3 ARGS -case energy)
vicms_unit_test(test_dual CASE friction RANKS 1 2 3 ARGS -case friction)
vicms_unit_test(test_dual CASE force RANKS 1 2 3 ARGS -case force)
vicms_unit_test(test_dual CASE state RANKS 1 2 3 ARGS -case state)
vicms_unit_test(test_dual CASE system RANKS 1 2 ARGS -case system)
vicms_unit_test(test_dual CASE stepper RANKS 1 ARGS -case stepper)
vicms_unit_test(test_dual CASE failure RANKS 1 2 3 ARGS -case failure)
vicms_unit_test(test_dual CASE resume RANKS 1 2 ARGS -case resume)
