#!/usr/bin/env bash
# Bilateral rows (ROM contact/kinds) and Coulomb friction in -step_type nsgalpha, on user ROMs (scripts/write_user_rom.py):
# (a) two masses (m1 = 1, m2 = 2; springs 100 to the ground, 50 to the ground, 30 between; force 10 on mass 1, from rest) tied by the
#     bilateral row B q = x1 - x2 = 0 (coordinates q = [x1 - x2, x2]): nsgalpha keeps |B q| <= 1e-10 at every level and follows the
#     exact constrained motion x2 = F/k (1 - cos w t) (k = 150, w^2 = k / 3) within 5e-6, second order (error ratio 3.5-4.5 from h to
#     h/2); Moreau (symmetric) keeps B q <= 1e-12; Moreau-Jean theta 0.5 from an initial velocity that violates B v = 0 (x1' = 1) drifts
#     by (1 - theta) h B v0 = 5e-4 (O(h), 1e-12) and then stays, while nsgalpha projects it at the first step (|B q| <= 1e-10).
# (b) a mass m = 2 pressed on a rigid plane by its weight (g = 10), mu = 0.5, pushed along it by F = 5 (below mu N = 10) and F = 12
#     (above): nsgalpha sticks (second difference of x <= 1e-9) below, and slides with the exact acceleration (F - mu N) / m = 1 within
#     1e-8 relative above; Moreau-Jean theta 0.5 likewise; both never penetrate.
# (c) the runs of (a) and (b) on 2 and 3 ranks bitwise equal to 1 rank.
# (d) bad input in the ROM file: a bilateral contact with tangential (friction) coordinates, a malformed kind, a kinds dataset of the
#     wrong length: a message naming the file and the contact; harmonic balance refuses bilateral rows.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
$py - "$VICMS_SOURCE/scripts/write_user_rom.py" <<'EOF' || exit 1
import sys, importlib.util
import numpy as np
spec = importlib.util.spec_from_file_location("w", sys.argv[1]); w = importlib.util.module_from_spec(spec); spec.loader.exec_module(w)
import h5py
Kx = np.array([[130.0, -30.0], [-30.0, 80.0]]); Mx = np.diag([1.0, 2.0])
P = np.array([[1.0, 1.0], [0.0, 1.0]])  # x = P q, q = [x1 - x2, x2]
w.write_user_rom("twomass.h5", P.T @ Kx @ P, P.T @ Mx @ P, contact_dims=[1], contact_kinds=["bilateral"],
                 loads={"push": P.T @ np.array([10.0, 0.0])}, outputs={"r": [1.0, 0.0], "x2": [0.0, 1.0]},
                 shapes={"translation_x": [1.0, 0.0]})
w.write_user_rom("slider.h5", np.zeros((2, 2)), 2.0 * np.eye(2), contact_dims=[2],
                 loads={"weight": [-20.0, 0.0], "push": [0.0, 1.0]}, outputs={"x": [0.0, 1.0], "y": [1.0, 0.0]})
K3 = np.diag([2.0, 2.0, 2.0]); M3 = np.eye(3)
w.write_user_rom("nok_bil_friction.h5", K3, M3, contact_dims=[1, 2], contact_kinds=["unilateral", "bilateral"])
w.write_user_rom("nok_kind.h5", K3, M3, contact_dims=[1, 1, 1], contact_kinds=[0, 1, 5])
w.write_user_rom("nok_kind_len.h5", K3, M3, contact_dims=[1, 1, 1])
with h5py.File("nok_kind_len.h5", "a") as f:
    f["contact/kinds"] = np.array([1, 0], dtype=np.int64)
EOF
two="-rom_file twomass.h5 -case_loads push -step_end_time 1"
for np in 1 2 3; do
  must "twomass nsgalpha np=$np" mpi 60 $np simulate $two -step_type nsgalpha -step_dt 1e-3 -results_file tn$np.r.h5
done
must "twomass nsgalpha h/2" mpi 60 1 simulate $two -step_type nsgalpha -step_dt 5e-4 -results_file tn_half.r.h5
must "twomass moreau" mpi 60 1 simulate $two -step_type moreau -step_dt 1e-3 -results_file tm.r.h5
vel="-init velocity -init_velocity 1 -init_direction x -step_dt 1e-3"
must "twomass moreau theta v0" mpi 60 1 simulate $two $vel -step_type moreau -step_moreau_variant theta -step_theta 0.5 -results_file tmv.r.h5
must "twomass nsgalpha v0" mpi 60 1 simulate $two $vel -step_type nsgalpha -results_file tnv.r.h5
for F in 5 12; do
  sl="-rom_file slider.h5 -case_loads weight,push -load_push_amplitude $F -contact_mu 0.5 -step_dt 1e-3 -step_end_time 1"
  for np in 1 2 3; do
    must "slider F=$F nsgalpha np=$np" mpi 60 $np simulate $sl -step_type nsgalpha -results_file sn${F}_$np.r.h5
  done
  must "slider F=$F moreau" mpi 60 1 simulate $sl -step_type moreau -step_moreau_variant theta -step_theta 0.5 -results_file sm$F.r.h5
done

$py - <<'EOF' || fail=1
import h5py
import numpy as np

bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        bad = 1

def case(name):
    c = h5py.File(name, "r")["cases/0"]
    return c["t"][:], c["outputs"][:], c["gaps"][:, 0]

# ---- (a)
k, M, F = 150.0, 3.0, 10.0
w = np.sqrt(k / M)
errs = []
for name in ("tn1.r.h5", "tn_half.r.h5"):
    t, o, g = case(name)
    ex = F / k * (1 - np.cos(w * t))
    errs.append(np.abs(o[:, 1] - ex).max())
    check(np.abs(g).max() <= 1e-10, f"{name}: nsgalpha |B q| <= 1e-10 at every level (max {np.abs(g).max():.1e})")
check(errs[0] <= 5e-6, f"nsgalpha x2 vs the exact constrained motion: max error {errs[0]:.2e} (h = 1e-3, tol 5e-6)")
check(3.5 <= errs[0] / errs[1] <= 4.5, f"nsgalpha second order: error ratio h -> h/2 {errs[0] / errs[1]:.3f} (3.5-4.5)")
t, o, g = case("tm.r.h5")
check(np.abs(g).max() <= 1e-12, f"moreau symmetric: |B q| {np.abs(g).max():.1e} <= 1e-12 (B u = 0 each step, B constant)")
V1 = 1.0 / M  # the velocity projected on B v = 0: momentum m1 * 1 shared by both masses
t, o, g = case("tmv.r.h5")
drift = 0.5 * 1e-3 * 1.0
check(np.abs(g[1:] - drift).max() <= 1e-12 and abs(g[0]) == 0,
      f"moreau theta from B v0 = 1: position drift (1 - theta) h B v0 = {drift:.1e} (max deviation {np.abs(g[1:] - drift).max():.1e}, O(h))")
t, o, g = case("tnv.r.h5")
ex = F / k * (1 - np.cos(w * t)) + V1 / w * np.sin(w * t)
check(np.abs(g).max() <= 1e-10, f"nsgalpha from B v0 = 1: |B q| {np.abs(g).max():.1e} <= 1e-10 from the first step")
check(np.abs(o[:, 1] - ex).max() <= 2e-3,
      f"nsgalpha from B v0 = 1 vs the exact motion after the inelastic projection: max error {np.abs(o[:, 1] - ex).max():.2e} (tol 2e-3: O(h) after a jump)")

# ---- (b)
mu, m, gr = 0.5, 2.0, 10.0
for F in (5, 12):
    for name in (f"sn{F}_1.r.h5", f"sm{F}.r.h5"):
        t, o, g = case(name)
        x, y = o[:, 0], o[:, 1]
        h = t[1] - t[0]
        acc = (x[2:] - 2 * x[1:-1] + x[:-2]) / h**2
        exact = max(F - mu * m * gr, 0) / m
        check(y.min() >= -1e-12, f"{name}: no penetration (min normal coordinate {y.min():.1e})")
        if exact == 0:
            check(np.abs(acc[2:]).max() <= 1e-9, f"{name}: F = {F} < mu N = 10 sticks: max |second difference of x| {np.abs(acc[2:]).max():.1e} <= 1e-9"
                  f" (x at the end {x[-1]:.2e})")
        else:
            rel = np.abs(acc[2:] - exact).max() / exact
            check(rel <= 1e-8, f"{name}: F = {F} > mu N slides at (F - mu N)/m = {exact}: relative error {rel:.1e} <= 1e-8 (x at the end {x[-1]:.6f},"
                  f" exact {exact / 2:.6f})")

# ---- (c)
for base in ["tn", "sn5_", "sn12_"]:
    ref = h5py.File(base + "1.r.h5", "r")["cases/0"]
    for np_ in (2, 3):
        other = h5py.File(f"{base}{np_}.r.h5", "r")["cases/0"]
        same = all(np.array_equal(ref[k][:], other[k][:]) for k in ("t", "outputs", "gaps", "forces", "energy"))
        check(same, f"{base}{np_}.r.h5 bitwise equal to 1 rank")
raise SystemExit(bad)
EOF

refuse "bilateral with friction" "1 3" "nok_bil_friction.h5: contact 1 (node 1) is bilateral (contact/kinds = 1) with dimension 2" \
  simulate -rom_file nok_bil_friction.h5 -step_type nsgalpha -results_file bad.r.h5
refuse "malformed kind" "1 2" "nok_kind.h5: contact 2 (node 2) has kind 5 (contact/kinds), expected 0 (unilateral) or 1 (bilateral)" \
  simulate -rom_file nok_kind.h5 -step_type moreau -results_file bad.r.h5
refuse "kinds of the wrong length" "1" "nok_kind_len.h5: dataset contact/kinds is a vector of 2, expected a vector of 3" \
  simulate -rom_file nok_kind_len.h5 -step_type moreau -results_file bad.r.h5
refuse "hb refuses bilateral rows" "1 2 3" "hb: contact 0 is a bilateral row" hb -rom_file twomass.h5 -case_loads push -load_push_type harmonic \
  -load_push_frequency 1 -hb_freq_range 1,2 -results_file bad.r.h5
exit $fail
