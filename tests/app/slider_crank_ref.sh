#!/usr/bin/env bash
# The independent references of the rigid slider-crank (seed 001 Table 1; issue 23 §4, tests/ref/slider_crank.py) checked
# against each other: (1) SciPy's two models, the clearance too large to touch (free) and c = 0 (ideal, the crank-angle
# ODE), conserve the energy to 1e-8 (relative; measured 6e-12 and 1.3e-11), which checks M(q), the quadratic velocity
# forces and gravity against each other; (2) Siconos 4.4 (bench/slider_crank_siconos.py, Moreau-Jean theta = 0.5, four
# corners with friction) converges to each at first order: with the clearance 10 m (never touched) to the free model, with
# c = 0, mu = 0, e = 0 to the ideal one; at h = 1e-5 s the largest difference of theta1 over 0.05 s is below 2e-3 of its
# range (measured 1.36e-3 and 1.24e-3), and it falls by 8 to 12 from h = 1e-4 s (measured 10.1 and 10.1). Part 2 is
# skipped when Debian's python has no siconos.
source "$(dirname "$0")/lib.sh"
vicms_need_h5py
vicms_workdir
ref=$VICMS_SOURCE/tests/ref/slider_crank.py
sic=$VICMS_SOURCE/bench/slider_crank_siconos.py

for model in free ideal; do
  must "scipy $model" $py "$ref" $model --t-end 0.05 --dt 1e-4 --out $model.csv && echo "ok   $LAST"
done
if ! $py -c 'import siconos.kernel' 2>/dev/null; then
  echo "skipped: $py has no siconos (Debian python3-siconos): Siconos against SciPy not checked"
  exit $fail
fi
# siconos RUN REF ARGS...: the largest difference of theta1 against REF, printed by the script's --compare
siconos() {
  local ref_csv=$1 out
  shift
  out=$($py "$sic" --t-end 0.05 --compare "$ref_csv" --tol 2e-3 "$@" 2>&1 | grep -v '^\[kernel\]')
  echo "$out" | sed -n 's/.*largest difference theta1 \([0-9.e+-]*\) rad.*/\1/p'
}
for run in "free.csv --clearance 10" "ideal.csv --clearance 0 --mu 0 --restitution 0"; do
  set -- $run
  e4=$(siconos "$@" --h 1e-4)
  e5=$(siconos "$@" --h 1e-5)
  if [ -z "$e4" ] || [ -z "$e5" ]; then
    echo "FAIL siconos against $1: no comparison printed"; fail=1; continue
  fi
  $py - "$1" "$e4" "$e5" <<'PY' || fail=1
import sys
import numpy as np
ref, e4, e5 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
span = np.abs(np.genfromtxt(ref, delimiter=",", names=True)["theta1"]).max()
ok = e5 <= 2e-3 * span and 8 <= e4 / e5 <= 12
print(f"{'ok  ' if ok else 'FAIL'} siconos against {ref}: theta1 differs by {e4:.3e} rad (h = 1e-4 s), {e5:.3e} rad "
      f"= {e5 / span:.2e} of its range (h = 1e-5 s): first order, ratio {e4 / e5:.1f}")
sys.exit(0 if ok else 1)
PY
done
exit $fail
