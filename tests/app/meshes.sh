#!/usr/bin/env bash
# The bundled deck meshes/beam_c3d20.inp (C3D20, *INCLUDE, *NSET, *BOUNDARY, *MATERIAL, *SOLID SECTION) through
# `vicms modes` on 1, 2 and 3 ranks: mass = rho V exactly (to print precision), the two first bending frequencies equal
# (square section) and within 1 % of Euler-Bernoulli (1.8751^2 / 2 pi) sqrt(E I / (rho A L^4)), the same on every rank count.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
for np in 1 2 3; do
  out=$(timeout 120 mpirun --oversubscribe -n $np "$VICMS_BIN" modes -mesh_file "$VICMS_SOURCE/meshes/beam_c3d20.inp" -modes_num 4 \
    -modes_file beam$np.h5 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL np=$np: exit status $rc"; echo "$out" | tail -5; fail=1; continue
  fi
  grep -q "621 nodes, 80 elements (80 C3D20)" <<<"$out" && grep -q "total mass 0.000157," <<<"$out" ||
    { echo "FAIL np=$np: expected 621 nodes, 80 C3D20 and total mass 0.000157:"; echo "$out" | head -3; fail=1; }
done
$py - <<'EOF' || fail=1
import math
import h5py
import numpy as np

E, rho, a, L = 210000.0, 7.85e-9, 10.0, 200.0
I, A = a**4 / 12, a * a
eb = 1.8751040687**2 / (2 * math.pi) * math.sqrt(E * I / (rho * A * L**4))
f = [h5py.File("beam%d.h5" % n, "r")["frequencies_hz"][()] for n in (1, 2, 3)]
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad |= not ok
check(abs(f[0][0] / eb - 1) < 0.01, "f1 = %.4f Hz, Euler-Bernoulli %.4f Hz: %+.2f %% (tolerance 1 %%)" % (f[0][0], eb, 100 * (f[0][0] / eb - 1)))
check(abs(f[0][1] / f[0][0] - 1) < 1e-8, "f2 / f1 - 1 = %.1e (square section: equal within 1e-8)" % (f[0][1] / f[0][0] - 1))
for n in (1, 2):
    d = np.abs(f[n] / f[0] - 1).max()
    check(d < 1e-8, "%d ranks vs 1: largest relative difference %.1e (1e-8)" % (n + 1, d))
raise SystemExit(bad)
EOF
[ $fail -eq 0 ] && echo "bundled meshes: all checks passed"
exit $fail
