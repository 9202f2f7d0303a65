# The rigid slider-crank of seed 001 Table 1 (issue 23 §4): a clearance too large to touch against the SciPy solution in
# minimal coordinates (tests/ref/slider_crank.py), second order in h, energy with and without a driving torque, the joints'
# drift, Table 1 itself on 1 = 2 = 3 ranks bitwise with its gaps and Coulomb's cone, the job file.
vicms_app_test(slider_crank)
