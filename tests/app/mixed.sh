#!/usr/bin/env bash
# -step_type mixed (seed 001) through `vicms simulate` on user ROMs (scripts/write_user_rom.py): a ball dropped on a wall runs with each
# base scheme and bounces (restitution 0.5: the smallest gap is at most 0, the largest after the first impact between 0.2 and 0.3 of the
# drop height 0.8); bad input, each on some of 1, 2 and 3 ranks: non-zero exit, no hang, a message naming the problem (massless ROM,
# rho_inf outside [0, 1], unknown base scheme, alpha_m and alpha_f outside the stable region of Eq. 100).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
script="$VICMS_SOURCE/scripts/write_user_rom.py"
$py "$script" ball ball.h5 || exit 1
$py - "$script" <<'PY' || exit 1
import sys, importlib.util
import numpy as np
spec = importlib.util.spec_from_file_location("w", sys.argv[1]); w = importlib.util.module_from_spec(spec); spec.loader.exec_module(w)
K = np.array([[2.0, -1.0], [-1.0, 2.0]])
w.write_user_rom("nok_massless.h5", K, np.diag([0.0, 1.0]), contact_dims=[1], massless=True)
PY
ball="-rom_file ball.h5 -case_loads gravity -contact_gap 0.8 -step_restitution 0.5 -step_dt 1e-3 -step_end_time 1"
for base in genalpha bathe edalpha; do
  must "ball mixed $base" mpi 60 1 simulate $ball -step_type mixed -step_mixed_base $base -step_rho_inf 0 -results_file ball_$base.r.h5
done
$py - <<'PY' || fail=1
import h5py, numpy as np
ok = True
for base in ["genalpha", "bathe", "edalpha"]:
    with h5py.File("ball_%s.r.h5" % base, "r") as f:
        t = f["cases/0/t"][:]; g = f["cases/0/gaps"][:, 0]
    first = np.argmax(g <= 0)
    rebound = g[first:].max() / 0.8
    good = g.min() <= 0 and first > 0 and 0.2 <= rebound <= 0.3
    print("%s mixed %s: first impact at t = %.4f (exact %.4f), rebound to %.4f of the drop height (exact e^2 = 0.25)" %
          ("ok  " if good else "FAIL", base, t[first], np.sqrt(2 * 0.8 / 10), rebound))
    ok = ok and good
raise SystemExit(0 if ok else 1)
PY
refuse_simulate "massless ROM" "1 2 3" "step_type mixed (-step_mixed_base bathe) needs a mass-carrying ROM" -rom_file nok_massless.h5 -step_type mixed \
  -step_mixed_base bathe -step_end_time 0.01 -step_dt 1e-3
refuse_simulate "rho_inf -0.1" "1 3" "-step_rho_inf: got -0.1, expected a spectral radius in \[0, 1\]" $ball -step_type mixed -step_rho_inf -0.1
refuse_simulate "rho_inf 1.5" "2" "-step_rho_inf: got 1.5, expected a spectral radius in \[0, 1\]" $ball -step_type mixed -step_mixed_base edalpha \
  -step_rho_inf 1.5
refuse_simulate "unknown base" "1 2" "step_mixed_base" $ball -step_type mixed -step_mixed_base newmark
refuse_simulate "edalpha with a relaxation" "1 2" "edalpha with contacts needs -contact_solver newton" $ball -step_type mixed \
  -step_mixed_base edalpha -contact_solver jacobi
refuse_simulate "alpha outside Eq. 100" "1" "outside the unconditionally stable region" $ball -step_type mixed -step_mixed_alpha_m 0.4 -step_mixed_alpha_f 0.2
refuse_simulate "alpha_m alone" "1" "give both or neither" $ball -step_type mixed -step_mixed_alpha_m 0.4
exit $fail
