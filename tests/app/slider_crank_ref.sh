#!/usr/bin/env bash
# The independent references of the rigid slider-crank (seed 001 Table 1; issue 23 §4, tests/ref/slider_crank.py) checked
# against each other: (1) SciPy's two models, the clearance too large to touch (free) and c = 0 (ideal, the crank-angle
# ODE), conserve the energy to 1e-8 (relative; measured 6e-12 and 1.3e-11), which checks M(q), the quadratic velocity
# forces and gravity against each other; (2) Siconos 4.4 (bench/slider_crank_siconos.py, Moreau-Jean theta = 0.5, four
# corners with friction) converges to each at first order: with the clearance 10 m (never touched) to the free model, with
# c = 0, mu = 0, e = 0 to the ideal one; at h = 1e-5 s the largest difference of theta1 over 0.05 s is below 2e-3 of its
# range (measured 1.36e-3 and 1.24e-3), and it falls by 8 to 12 from h = 1e-4 s (measured 10.1 and 10.1). Part 2 is
# skipped when Debian's python has no siconos. (3) The flexible rod in a floating frame (tests/ref/slider_crank_flexible.py,
# its mass matrix from the ROM's /frame) over 0.5 ms: the energy conserved (measured 1.9e-12), theta1 within 1e-3 rad of
# the rigid mechanism (measured 1.7e-4) and the tip stretched by the slider's centrifugal pull (measured 1.5e-4 m).
source "$(dirname "$0")/lib.sh"
vicms_need_h5py
vicms_workdir
ref=$VICMS_SOURCE/tests/ref/slider_crank.py
sic=$VICMS_SOURCE/bench/slider_crank_siconos.py

for model in free ideal; do
  must "scipy $model" $py "$ref" $model --t-end 0.05 --dt 1e-4 --out $model.csv && echo "ok   $LAST"
done
# (3) the flexible rod (tests/ref/slider_crank_flexible.py, Radau; slow: 0.5 ms of motion): seed 001's rod as 10 x 2 CPS4,
# Craig-Bampton with 4 modes and its tip (node 22) as boundary, its invariants from vicms reduce
# shellcheck disable=SC2086
if must "reduce the rod" mpi 60 1 reduce -mesh_rect_cells 10,2 -mesh_rect_lengths 0.306,0.30443 -mesh_rect_thickness 5.2297e-5 \
  -mesh_rect_origin 0,-0.152215 -model_young 2e11 -model_poisson 0.3 -model_density 7800 -model_clamp xmin -cms_type cb \
  -cms_contact_nodes 22 -cms_contact_dirs 2 -cms_contact_normal 1,0,0 -cms_contact_t1 0,1,0 -cms_num_modes 4 \
  -cms_outputs 22:x,22:y -cms_frame_invariants -rom_file rod.h5 &&
  must "scipy flexible" $py "$VICMS_SOURCE/tests/ref/slider_crank_flexible.py" rod.h5 --tip n22_x,n22_y --t-end 5e-4 --dt 1e-4 \
    --rtol 1e-7 --out flexible.csv && echo "ok   $LAST" &&
  must "scipy free, 0.5 ms" $py "$ref" free --t-end 5e-4 --dt 1e-4 --out free_short.csv; then
  $py - <<'PY' || fail=1
import numpy as np
a = np.genfromtxt("flexible.csv", delimiter=",", names=True)
b = np.genfromtxt("free_short.csv", delimiter=",", names=True)
drift = np.abs(a["energy"] - a["energy"][0]).max() / a["energy"][0]
dth, stretch = np.abs(a["theta1"] - b["theta1"]).max(), np.abs(a["q0"]).max()
# the slider's centrifugal pull, about m3 omega^2 (l1 + l2) = 790 N, stretches the rod (EA = 3.2e6 N) by F l2 / EA
# = 7.6e-5 m statically, twice that dynamically when applied at once
ok = drift < 1e-9 and 1e-6 < dth < 1e-3 and 7.6e-5 < stretch < 3e-4
print(f"{'ok  ' if ok else 'FAIL'} flexible rod: energy drift {drift:.1e} (< 1e-9), theta1 within {dth:.2e} rad of the rigid "
      f"mechanism (1e-6 .. 1e-3), the tip's largest axial displacement {stretch:.2e} m (7.6e-5 .. 3e-4 m: the centrifugal pull)")
raise SystemExit(0 if ok else 1)
PY
fi
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
