#!/usr/bin/env bash
# The bundled deck meshes/beam_c3d20.inp (C3D20, *INCLUDE, *NSET, *BOUNDARY, *MATERIAL, *SOLID SECTION) through
# `vicms modes` on 1, 2 and 3 ranks: mass = rho V exactly (to print precision), the two first bending frequencies equal
# (square section) and within 1 % of Euler-Bernoulli (1.8751^2 / 2 pi) sqrt(E I / (rho A L^4)), the same on every rank count; and a
# deck Gmsh exported to .inp against its .msh (below).
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

# ---- Gmsh's own Abaqus export (issue 24, item 23): `gmsh -save` to .inp writes the faces and edges of the geometry (CPS6, CPS3, T3D2)
# beside the solids (C3D10, C3D4), without sections. vicms skips them with one notice (how many, which types) and makes node sets of
# their element sets (a physical surface), so the deck gives the model of the .msh route: the same frequencies within 1e-10.
# (a) second order with physical groups, clamped on the physical surface "clamp"; (b) first order without physical groups (every
# entity exported, T3D2 and CPS3 skins), free: the elastic modes 7-10. On 1 and 2 ranks; skipped when gmsh is absent.
if ! command -v gmsh >/dev/null 2>&1; then
  echo "skipped the Gmsh export check: gmsh is not installed (apt-get install gmsh)"
else
  cat >box2.geo <<'GEO'
Point(1) = {0, 0, 0, 0.5}; Point(2) = {2, 0, 0, 0.5}; Point(3) = {2, 1, 0, 0.5}; Point(4) = {0, 1, 0, 0.5};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
out[] = Extrude {0, 0, 0.5} { Surface{1}; };
Physical Volume("solid") = {out[1]};
Physical Surface("clamp") = {1};
Mesh.ElementOrder = 2;
GEO
  grep -v Physical box2.geo | sed 's/Mesh.ElementOrder = 2;//' >box1.geo
  for g in box1 box2; do
    gmsh -3 $g.geo -format inp -o $g.inp >/dev/null 2>&1 && gmsh -3 $g.geo -format msh41 -o $g.msh >/dev/null 2>&1 ||
      { echo "FAIL gmsh could not mesh $g.geo"; fail=1; }
  done
  for np in 1 2; do
    for g in box1 box2; do
      clamp=""
      [ $g = box2 ] && clamp="-model_clamp clamp"
      for ext in inp msh; do
        out=$(timeout 120 mpirun --oversubscribe -n $np "$VICMS_BIN" modes -mesh_file $g.$ext -model_young 1e5 -model_density 1 -modes_num 10 \
          $clamp -modes_file $g.$ext.$np.h5 2>&1)
        [ $? -eq 0 ] || { echo "FAIL np=$np $g.$ext:"; echo "$out" | tail -3; fail=1; }
        [ $ext = inp ] || continue
        want="22 CPS6 \(line [0-9]+\); their element sets made node sets: Surface1, clamp$"
        [ $g = box1 ] && want="120 skin elements .*: 28 T3D2 \(line [0-9]+\), 92 CPS3 \(line [0-9]+\); their element sets made node sets: Line1, "
        if [ "$(grep -c 'skin elements' <<<"$out")" -ne 1 ] || ! grep -Eq "^mesh: $g.inp: skipped .*$want" <<<"$out"; then
          echo "FAIL np=$np $g.inp: expected one notice matching /$want/:"; echo "$out" | head -3; fail=1
        else
          echo "ok   np=$np $(grep -m1 'skin elements' <<<"$out" | cut -c1-200)"
        fi
      done
    done
  done
  $py - <<'PYEOF' || fail=1
import h5py
import numpy as np

bad = 0
for g, first in (("box1", 6), ("box2", 0)):
    for np_ in (1, 2):
        a = h5py.File("%s.inp.%d.h5" % (g, np_), "r")["frequencies_hz"][()][first:]
        b = h5py.File("%s.msh.%d.h5" % (g, np_), "r")["frequencies_hz"][()][first:]
        d = np.abs(a / b - 1).max()
        ok = d < 1e-10 and a[0] > 1
        bad |= not ok
        print(("ok   " if ok else "FAIL ") + "%s on %d ranks: Gmsh's .inp and .msh give modes %d-10 within %.1e (1e-10), first %.6f Hz" % (g, np_, first + 1, d, a[0]))
raise SystemExit(bad)
PYEOF
fi
[ $fail -eq 0 ] && echo "bundled meshes: all checks passed"
exit $fail
