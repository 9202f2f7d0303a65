# The slider-crank of seed 001 §3-§4 with its rod flexible in a floating frame (issue 23 §2-§4): against the SciPy
# reference tests/ref/slider_crank_flexible.py, second order in h, energy, the almost rigid rod against the rigid
# mechanism, Table 1 on 1 = 2 = 3 ranks bitwise, bad input.
vicms_app_test(slider_crank_flexible)
