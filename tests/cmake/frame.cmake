# Floating-frame inertia invariants at reduction (issue 23, docs/frame.md): closed forms, 1/2/3 ranks, tensors under a turn.
vicms_app_test(frame)
# The /frame group of a ROM file: round trip bit for bit, a ROM without it refused by a reader that needs it (file, body and
# option named, every rank), a damaged group refused on load.
vicms_unit_test(test_rom_frame RANKS 1 2 3)
# The rigid slider-crank's independent references (tests/ref/slider_crank.py, SciPy) against Siconos 4.4
# (bench/slider_crank_siconos.py) when the clearance is never touched and when it is 0: first-order convergence.
vicms_app_test(slider_crank_ref)
