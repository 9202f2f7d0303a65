#!/usr/bin/env bash
# -step_type nsgalpha (seed 002) on user ROMs written by scripts/write_user_rom.py, through `vicms simulate`:
# (a) the bouncing ball of seed 002 §10.1 (m = 1, g = 10, e = 0.8, centre at 1.001 m, R = 0.2: gap 0.801, h = 2e-3): the run equals the
#     scheme's own discrete map (seed 002 Eq. 35, computed here) to 1e-12, never penetrates (gap >= -1e-12), its first impacts are within
#     2 steps of the exact times, the energy is constant (1e-9) on steps without impact, it comes to rest before the exact accumulation
#     point 3.6022 s, within 5 % at h = 2e-3 and within 1 % at h = 2e-4; Moreau-Jean theta on the same run penetrates (gap < -1e-3).
# (b) the elastic bar hitting a wall (seed 002 §10.3: E = 900, rho = 1, L = 10, 200 elements, v0 = 10, d0 = 5.005, e = 0, h = 2e-3): the
#     contact closes at the first level after 0.5005 s, the gap is exactly 0 (1e-12) while it is closed and never negative, it lasts 2L/c
#     = 2/3 s within 3 steps, the centre of mass leaves at 10 m/s within 2 %, the energy lost is at most Moreau-Jean's on the same run;
#     the run on 2 and 3 ranks is bitwise identical to 1 rank.
# (c) bad input, each on some of 1, 2 and 3 ranks (all three for rho_inf): non-zero exit, no hang, a message naming the problem.
#     (Preloaded contacts are taken: test_step -case preload_schemes.)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
script="$VICMS_SOURCE/scripts/write_user_rom.py"
$py "$script" ball ball.h5 || exit 1
$py "$script" bar bar.h5 || exit 1

ball="-rom_file ball.h5 -case_loads gravity -contact_gap 0.801 -step_restitution 0.8 -step_end_time 4"
must "ball nsgalpha" mpi 60 1 simulate $ball -step_type nsgalpha -step_dt 2e-3 -results_file ball.r.h5
must "ball nsgalpha h/10" mpi 60 1 simulate $ball -step_type nsgalpha -step_dt 2e-4 -results_file ball10.r.h5
must "ball moreau" mpi 60 1 simulate $ball -step_type moreau -step_moreau_variant theta -step_theta 0.5555555555555556 -step_dt 2e-3 \
  -results_file ballm.r.h5
bar="-rom_file bar.h5 -init velocity -init_velocity -10 -init_direction x -contact_gap 5.005 -step_restitution 0 -step_dt 2e-3 -step_end_time 1.5"
for np in 1 2 3; do
  must "bar nsgalpha np=$np" mpi 60 $np simulate $bar -step_type nsgalpha -results_file bar$np.r.h5
done
must "bar moreau" mpi 60 1 simulate $bar -step_type moreau -step_moreau_variant theta -step_theta 0.5555555555555556 -results_file barm.r.h5

$py - <<'EOF' || fail=1
import os
import h5py
import numpy as np

bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        bad = 1

def case(name):
    if not os.path.exists(name):
        check(False, name + " written")
        return None
    c = h5py.File(name, "r")["cases/0"]
    cols = c["outputs"].attrs["columns"]
    cols = (cols.decode() if isinstance(cols, bytes) else cols).split(",")
    return {"t": c["t"][:], "out": c["outputs"][:], "cols": cols, "gap": c["gaps"][:, 0], "F": c["forces"][:, 0], "E": c["energy"][:],
            "vel": c["velocities"][:] if "velocities" in c else None,
            "Ecols": (lambda a: a.decode() if isinstance(a, bytes) else a)(c["energy"].attrs["columns"]).split(",")}

# ---- (a) ball
g, e, y0, gap0 = 10.0, 0.8, 1.001, 0.801
t1 = np.sqrt(2 * gap0 / g); v1 = g * t1
tinf = t1 + 2 * e * v1 / (g * (1 - e))
exact = [t1]
for k in range(1, 6):
    exact.append(exact[-1] + 2 * e**k * v1 / g)
for name, h in (("ball.r.h5", 2e-3), ("ball10.r.h5", 2e-4)):
    r = case(name)
    if r is None:
        continue
    gap, t, E = r["gap"], r["t"], r["E"]
    # the scheme's map, seed 002 Eq. (35): q~ = q + h v - h^2 g/2, v~ = v - h g; q = max(q~, 0); if q~ <= 0, v = max(v~, -e v_n), with
    # e = 0 when the previous step held the gap (q~ <= 0 there: closed at t_n, no impact in this step)
    q, v, held, qs, vs = gap0, 0.0, False, [gap0], [0.0]
    for k in range(len(t) - 1):
        qt, vt = q + h * v - h * h * g / 2, v - h * g
        q, v, held = max(qt, 0.0), (max(vt, -(0.0 if held else e) * v) if qt <= 0 else vt), qt <= 0
        qs.append(q); vs.append(v)
    qs, vs = np.array(qs), np.array(vs)
    check(np.abs(gap - qs).max() < 1e-12 and np.abs(np.sqrt(2 * E[:, 0]) - np.abs(vs)).max() < 1e-12,
          "%s: gap and speed equal seed 002 Eq. (35) (max differences %.2e, %.2e)" % (name, np.abs(gap - qs).max(),
                                                                                       np.abs(np.sqrt(2 * E[:, 0]) - np.abs(vs)).max()))
    check(gap.min() >= -1e-12, "%s: no penetration (min gap %.3e >= -1e-12)" % (name, gap.min()))
    # the outputs' velocities (issue 24 item 21): the ball's output is its height q, its velocity the map's v
    check(r["vel"] is not None and r["vel"].shape == r["out"].shape and np.abs(r["vel"][:, 0] - vs).max() < 1e-12,
          "%s: cases/0/velocities of y equal the map's velocity (max difference %.2e)" % (name, np.abs(r["vel"][:, 0] - vs).max()
                                                                                        if r["vel"] is not None else np.inf))
    # the energy balance closes at the impacts (issue 24 item 16): the restitution's loss is obstacle work, the rest numerical dissipation
    check(r["Ecols"][6:] == ["balance_error", "numerical_dissipation"] and np.abs(E[:, 6]).max() < 1e-10 * np.abs(E[:, :6]).max(),
          "%s: energy columns %s, |balance error| %.2e of the energy scale (< 1e-10)" % (name, r["Ecols"][6:],
                                                                                      np.abs(E[:, 6]).max() / np.abs(E[:, :6]).max()))
    imp = [t[i] for i in range(1, len(t)) if gap[i] == 0 and gap[i - 1] > 0]
    # each impact costs O(h) of flight (the rebound starts from -e v_n at the level before the impact): the error grows impact by impact
    n, tol = (4, 3 * h) if h == 2e-3 else (6, 5 * h)
    errs = [abs(a - b) for a, b in zip(imp[:n], exact[:n])]
    check(len(imp) >= n and max(errs) <= tol + 1e-12,
          "%s: first %d impacts at %s, exact %s (within %d steps)" % (name, n, np.round(imp[:n], 4), np.round(exact[:n], 4), round(tol / h)))
    Em = E[:, 0] + g * (y0 + r["out"][:, 0])
    free = [k for k in range(1, len(t)) if gap[k] > 0 and gap[k - 1] > 0]
    dE = np.abs(np.diff(Em))[np.array(free) - 1].max()
    check(dE < 1e-9, "%s: energy constant between impacts (max step change %.2e < 1e-9)" % (name, dE))
    ground = next(i for i in range(len(t)) if np.all(np.abs(gap[i:]) < 1e-12))
    rest = next(i for i in range(len(t)) if np.all(np.abs(gap[i:]) < 1e-12) and np.all(E[i:, 0] < 1e-20))
    print("%s: on the ground from t = %.4f, at rest from t = %.4f" % (name, t[ground], t[rest]))
    tol = 0.05 if h == 2e-3 else 0.01
    check(abs(t[rest] - tinf) < tol * tinf, "%s: at rest from t = %.4f, exact accumulation point %.4f (within %g %%)" % (name, t[rest], tinf, 100 * tol))
r = case("ballm.r.h5")
if r is not None:
    check(r["gap"].min() < -1e-3, "moreau theta: penetrates (min gap %.3e < -1e-3), as seed 002 §10.1 shows" % r["gap"].min())
    # one force-row convention (issue 24 item 15, docs/results.md): row i holds the percussion of the step ending at t_i, so the first
    # impact's force is on the first row whose velocity it reversed, and zero on every row before it, where the ball still falls (before:
    # the row before it, gap +5.6e-4, v = -4, and a balance error jump of 2.9 J for that row)
    v, F, E = r["vel"][:, 0], r["F"], r["E"]
    i = int(np.nonzero(F)[0][0])
    check(v[i] > 0 and np.all(v[1:i] < 0) and F[:i].max() == 0 and r["gap"][i - 1] > 0,
          "moreau theta: first impact force %.1f on row %d (v %.3f after, %.3f before), zero on the %d rows before (gap %.2e open)"
          % (F[i], i, v[i], v[i - 1], i, r["gap"][i - 1]))
    jump = np.abs(np.diff(E[:, 6])).max()
    check(jump < 1e-2, "moreau theta: balance error changes by at most %.2e J from one row to the next (< 1e-2; 8 J stored)" % jump)

# ---- (b) bar
L, c, v0, d0, h = 10.0, 30.0, 10.0, 5.005, 2e-3
res = {}
for name in ("bar1.r.h5", "barm.r.h5"):
    r = case(name)
    if r is None:
        continue
    res[name] = r
    t, gap, F = r["t"], r["gap"], r["F"]
    closed = np.where(F > 0)[0]
    ton, toff = t[closed[0]], t[closed[-1]] + h
    com = r["out"][:, r["cols"].index("centre_of_mass")]
    vexit = (com[-1] - com[-2]) / h  # away from the wall: along the contact normal
    Eend = r["E"][-1, 0] + r["E"][-1, 1]
    r["Eend"] = Eend
    print("%s: contact %.4f..%.4f (%.4f s), exit velocity %.4f, energy %.3f of %.3f, min gap %.2e" % (name, ton, toff, toff - ton, vexit, Eend,
          r["E"][0, 0], gap.min()))
    if name == "bar1.r.h5":
        check(ton > d0 / v0 and ton - d0 / v0 <= h, "nsgalpha: contact closes at the first level after 0.5005 (%.4f)" % ton)
        check(np.abs(gap[closed]).max() <= 1e-12 and gap.min() >= -1e-12, "nsgalpha: gap exactly 0 while closed, never negative (max |gap| %.1e)"
              % np.abs(gap[closed]).max())
        check(abs((toff - ton) - 2 * L / c) <= 3 * h, "nsgalpha: contact lasts %.4f s, exact 2L/c = %.4f (within 3 steps)" % (toff - ton, 2 * L / c))
        check(abs(vexit - v0) < 0.02 * v0, "nsgalpha: exit velocity of the centre of mass %.4f, exact 10 (within 2 %%)" % vexit)
        # the balance closes at the impact (before: +0.68 J at the impact step): the projection's energy is numerical dissipation
        E = r["E"]
        check(np.abs(E[:, 6]).max() < 1e-10 * 500 and abs(E[-1, 7]) > 1e-3,
              "nsgalpha: |balance error| %.2e J over the run (< 5e-8), numerical dissipation %.4f J at the end" % (np.abs(E[:, 6]).max(), E[-1, 7]))
if len(res) == 2:
    check(res["bar1.r.h5"]["Eend"] >= res["barm.r.h5"]["Eend"], "nsgalpha loses at most Moreau-Jean's energy (%.3f vs %.3f left of 500)" %
          (res["bar1.r.h5"]["Eend"], res["barm.r.h5"]["Eend"]))
for np_ in (2, 3):
    a, b = h5py.File("bar1.r.h5", "r")["cases/0"], None
    if not os.path.exists("bar%d.r.h5" % np_):
        continue
    b = h5py.File("bar%d.r.h5" % np_, "r")["cases/0"]
    same = all(np.array_equal(a[d][:], b[d][:]) for d in ("t", "outputs", "gaps", "forces", "energy"))
    check(same, "bar nsgalpha on %d ranks bitwise equal to 1 rank" % np_)
raise SystemExit(bad)
EOF

# ---- (c) bad input
$py - "$script" <<'EOF' || fail=1
import sys, importlib.util
import numpy as np
spec = importlib.util.spec_from_file_location("w", sys.argv[1]); w = importlib.util.module_from_spec(spec); spec.loader.exec_module(w)
import h5py
K = np.array([[2.0, -1.0], [-1.0, 2.0]]); M = np.eye(2)
w.write_user_rom("nok_massless.h5", K, np.diag([0.0, 1.0]), contact_dims=[1], massless=True)
w.write_user_rom("nok_damping.h5", K, M, D=-1e6 * np.eye(2), contact_dims=[1])
w.write_user_rom("nok_sym.h5", np.array([[2.0, -1.0], [-0.5, 2.0]]), M, contact_dims=[1])
w.write_user_rom("nok_size.h5", K, np.eye(3), contact_dims=[1])
w.write_user_rom("nok_mass.h5", K, np.diag([1.0, 0.0]), contact_dims=[1])
w.write_user_rom("nok_missing.h5", K, M, contact_dims=[1])
with h5py.File("nok_missing.h5", "a") as f:
    del f["K"]
w.write_user_rom("nok_dims.h5", K, M, contact_dims=[])
with h5py.File("nok_dims.h5", "a") as f:
    f.attrs["n_boundary"] = 1
    f.attrs["n_modes"] = 1
EOF
refuse_simulate "rho_inf 1.5" "1 2 3" "-step_rho_inf: got 1.5, expected a spectral radius in \[0, 1\]" $ball -step_type nsgalpha -step_rho_inf 1.5
refuse_simulate "massless ROM" "2" "nsgalpha needs a mass-carrying ROM" -rom_file nok_massless.h5 -step_type nsgalpha -step_end_time 0.01 -step_dt 1e-3
refuse_simulate "singular iteration matrix" "1 3" "iteration matrix c M + D + (h beta/gamma) K.*not positive definite" -rom_file nok_damping.h5 \
  -step_type nsgalpha -step_end_time 0.01 -step_dt 1e-3
refuse_simulate "non-symmetric K" "3" "K is not symmetric" -rom_file nok_sym.h5 -step_type nsgalpha
refuse_simulate "wrong size" "1" "dataset M is 3 x 3, expected 2 x 2" -rom_file nok_size.h5 -step_type nsgalpha
refuse_simulate "M not positive definite" "2" "M is not positive definite" -rom_file nok_mass.h5 -step_type nsgalpha
refuse_simulate "missing K" "3" "dataset K is missing" -rom_file nok_missing.h5 -step_type nsgalpha
refuse_simulate "missing contact dims" "1" "dataset contact/dims is missing" -rom_file nok_dims.h5 -step_type nsgalpha
exit $fail
