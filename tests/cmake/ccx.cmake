# vicms against CalculiX ccx (Debian calculix-ccx) on cantilever boxes of every 3D element type and on the Rotor 37 blade:
# the first 10 frequencies within 1e-6 (skipped without ccx; the blade part without ../shared/data/rotor37).
vicms_app_test(ccx)
