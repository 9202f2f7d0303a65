#!/usr/bin/env bash
# Harmonic balance of the plate of seed 000 §5.2 (issue 12, test 3) on the coarse mesh of tests/app/plate_frf.sh (4 x 8 x 40
# hex8, MacNeal ROM, 20 modes, three contact nodes at gap 0.1 mm, 1 N tip force): H = 20, N = 512 samples, 284 to 306 Hz.
# Checks: the branch bends to the right with two turning points and an overhang between them; the amplitudes where the
# contact is closed and the response unique (288, 290, 292 Hz, below the lower turning point) equal the steady states of
# `vicms simulate` (0.5 s from rest, 500 levels per period) within 1 %; the up sweep of the time stepping (+1.5 % per 100
# pseudo-periods) drops off the upper branch within 0.5 % of the upper turning point; the plot with the sweep overlaid is drawn.
# Stability (docs/hb.md): the largest Floquet multiplier at three points (upper branch stable, the unstable window of the
# upper branch, the overhang) against scripts/floquet_exact.py, an independent computation (the exact piecewise-linear
# period map, shooting, monodromy by finite differences) within 1e-5; the window is where the time stepping's sweep is
# not periodic (its envelope changes from period to period 3x more than on the stable part below); the overhang is
# unstable wherever computed; points not computed lie within 2 Hz below the upper turning point only.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

must "reduce the coarse plate" mpi 120 2 reduce -mesh_box_cells 4,8,40 -mesh_box_lengths 0.008,0.04,0.15 \
  -model_young 184e9 -model_poisson 0.33 -model_density 8220 -model_clamp zmin -cms_type macneal -cms_num_modes 20 \
  -cms_contact_nodes 1841,1843,1845 -cms_contact_dirs 1 -cms_contact_normal 1,0,0 -cms_damping_ratio 0.01 \
  -cms_forces xmax_ymax_zmax:x:1 -cms_outputs 1845:x -rom_file coarse.h5 || exit 1
# the harmonic balance's ROM: the same with one more output per coordinate (q00, q01, ...: the full state of every
# branch point for the independent stability check; n1845_x stays output 0)
$py - <<'EOF1' || exit 1
import h5py
import numpy as np

with h5py.File("coarse.h5", "r") as f, h5py.File("coarse_q.h5", "w") as g:
    for key in f:
        f.copy(key, g)
    g.attrs.update(f.attrs)
    for i in range(f["K"].shape[0]):
        g["outputs/q%02d" % i] = np.eye(f["K"].shape[0])[i]
EOF1
case="-rom_file coarse.h5 -case_loads xmax_ymax_zmax -load_xmax_ymax_zmax_amplitude 1 -contact_gap 1e-4"
start=$(date +%s%N)
must "vicms hb" mpi 120 1 hb ${case/coarse.h5/coarse_q.h5} -load_xmax_ymax_zmax_type harmonic -load_xmax_ymax_zmax_frequency 290 -hb_freq_range 284,306 \
  -hb_harmonics 20 -hb_samples 512 -hb_max_freq_step 0.3 -hb_step_max 0.05 -results_file hb.h5 || exit 1
echo "ok   vicms hb: $(grep Wrote <<<"$LAST") ($((($(date +%s%N) - start) / 1000000)) ms with the start-up)"
dt=$($py -c "print(1 / (500 * 290))")
must "constant-frequency runs" mpi 120 2 simulate $case -load_xmax_ymax_zmax_type harmonic -step_type leapfrog -step_dt $dt \
  -step_end_time 0.5 -step_output_every 5 -cases_values load_xmax_ymax_zmax_frequency:288/290/292 -cases_keep_series false \
  -results_file grid.h5 -cases_quiet
must "sweep up" mpi 120 1 simulate $case -load_xmax_ymax_zmax_type sweep_log -load_xmax_ymax_zmax_sweep_percent 1.5 \
  -load_xmax_ymax_zmax_sweep_periods 100 -load_xmax_ymax_zmax_sweep_reference_frequency 290 -step_type leapfrog -step_dt $dt \
  -step_output_every 5 -cases_sweep xmax_ymax_zmax:284:306:up -cases_keep_series false -results_file sweep.h5 -cases_quiet
[ $fail -eq 0 ] || exit 1
$py - <<'EOF2' || fail=1
import os
import sys
import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "scripts"))
from floquet_exact import PeriodMap, hb_state

ok = True
g = h5py.File("hb.h5", "r")["summary/hb"]
assert g.attrs["outputs"].decode().split(",")[0] == "n1845_x"
f, a, kind = g["frequency_hz"][()], g["amplitude"][:, 0], g["kind"][()]
turn = np.nonzero(kind & 1)[0]
if len(turn) != 2 or not f[turn[0]] > f[turn[1]] or turn[1] - turn[0] < 10:
    print(f"FAIL turning points {f[turn]} Hz: expected two bending to the right, an overhang between"); sys.exit(1)
fu, fl = f[turn[0]], f[turn[1]]
print(f"ok   turning points at {fu:.3f} Hz and {fl:.3f} Hz, {turn[1] - turn[0] - 1} points on the overhang")
for fr, at in h5py.File("grid.h5", "r")["summary/frf"][()]:
    k = next(k for k in range(len(f) - 1) if f[k] <= fr <= f[k + 1])  # the first crossing: the only one below fl
    ah = a[k] + (fr - f[k]) / (f[k + 1] - f[k]) * (a[k + 1] - a[k])
    err = abs(ah - at) / at
    print(f"{'ok  ' if err <= 0.01 else 'FAIL'} {fr:.0f} Hz: harmonic balance {1e6 * ah:.3f} um, time stepping {1e6 * at:.3f} um, "
          f"difference {100 * err:.3f} % (<= 1 %)")
    ok = ok and err <= 0.01 and fr < fl
env = h5py.File("sweep.h5", "r")["summary/sweep_up"][()]
env = env[np.isfinite(env[:, 1])]
top = np.argmax(env[:, 1])
drop = top + np.argmax(env[top:, 1] < 0.75e-4)  # the envelope leaves the upper branch (about the gap) for the lower one
fj = env[drop, 0]
err = abs(fj - fu) / fu
print(f"{'ok  ' if err <= 5e-3 else 'FAIL'} the up sweep jumps at {fj:.3f} Hz, {100 * err:.3f} % from the upper turning point (<= 0.5 %)")
ok = ok and err <= 5e-3

# stability: the upper branch (before the upper turning point) has one unstable window between stable parts
st, mu = g["stable"][()], g["multiplier"][()]
up = np.arange(turn[0] + 1)
contact = up[g["closed_fraction"][up].max(1) > 0]
bad = contact[st[contact] == 0]
win = bad[:np.argmax(np.diff(np.append(bad, 10**9)) > 1) + 1] if len(bad) else bad  # the first run of unstable points
good = len(win) > 0 and st[win[0] - 1] == 1 and st[win[-1] + 1] == 1
print(f"{'ok  ' if good else 'FAIL'} the upper branch is unstable from {f[win[0]]:.3f} to {f[win[-1]]:.3f} Hz (largest multiplier "
      f"{mu[win].max():.4f}), stable before and after" if len(win) else "FAIL no unstable window on the upper branch")
ok = ok and good
over = np.arange(turn[0] + 1, turn[1])
good = np.all(st[over][st[over] >= 0] == 0) and (st[over] >= 0).sum() >= len(over) // 2
print(f"{'ok  ' if good else 'FAIL'} the overhang is unstable at its {(st[over] >= 0).sum()} computed points of {len(over)}")
ok = ok and good
good = np.all(st >= 0)
print(f"{'ok  ' if good else 'FAIL'} stability decided at every point ({(st < 0).sum()} not computed)")
ok = ok and good
# where the shooting finds no exact orbit near the solution, the exact motion from it leaves it (stability_method 1): only
# between the exact motion's upper turning point and the series' (within 2 Hz below the series' one), all unstable
dep = np.nonzero(g["stability_method"][()] == 1)[0]
good = len(dep) > 0 and np.all((f[dep] <= fu) & (f[dep] >= fu - 2)) and np.all(st[dep] == 0)
print(f"{'ok  ' if good else 'FAIL'} {len(dep)} points where the exact motion leaves the solution (no orbit near), "
      f"{f[dep].min() if len(dep) else 0:.3f} to {fu:.3f} Hz: within 2 Hz below the upper turning point, unstable")
ok = ok and good
# independently (scipy's exact period map): at the first such point of the upper branch and the one at the series' fold,
# no orbit near (the shooting from the solution does not converge, or to an orbit farther than 0.5 in the energy norm),
# and the motion from it leaves it, its distance growing per period as vicms says (scipy: expm, brentq on the trajectory)
with h5py.File("coarse.h5", "r") as rf:
    nb = int(rf.attrs["n_boundary"])
    KI, MI = rf["K"][nb:, nb:], rf["M"][nb:, nb:]
def energy(x):
    m = len(x) // 2
    return np.sqrt(x[:m] @ KI @ x[:m] + x[m:] @ MI @ x[m:])
for k in [dep[0], turn[0]] if len(dep) else []:
    pm = PeriodMap("coarse.h5", "xmax_ymax_zmax", 1.0, 1e-4, f[k], nsub=1024)
    x0 = hb_state(g, k, pm.nb)
    xs, J, res = pm.shoot(x0.copy(), iterations=15)
    none = res > 1e-6 or energy(xs - x0) > 0.5 * energy(x0)
    x, first = x0.copy(), None
    for p in range(1, 60):
        x = pm.period(x)[0]
        e = energy(x - x0) / energy(x0)
        first = e if p == 1 else first
        if e > 0.5:
            break
    grow = (e / first) ** (1 / (p - 1))
    good = none and abs(grow - mu[k]) <= 1e-4 * mu[k]
    print(f"{'ok  ' if good else 'FAIL'} {f[k]:.3f} Hz: exact shooting from the solution {'finds no orbit near' if none else 'converges near'} "
          f"(residual {res:.1e}); the exact motion leaves it after {p} periods growing {grow:.6f} per period, vicms {mu[k]:.6f} "
          f"(relative difference {abs(grow - mu[k]) / mu[k]:.1e}, <= 1e-4)")
    ok = ok and good
# the multipliers against the exact period map: stable upper branch near 291.8 Hz, the window's largest, mid-overhang
cmp = [contact[np.argmin(np.abs(f[contact] - 291.8))], win[np.argmax(mu[win])], over[len(over) * 3 // 4]]
for k in cmp:
    pm = PeriodMap("coarse.h5", "xmax_ymax_zmax", 1.0, 1e-4, f[k], nsub=1024)
    x, J, res = pm.shoot(hb_state(g, k, pm.nb))
    ex = np.abs(np.linalg.eigvals(J)).max()
    err = abs(mu[k] - ex)
    good = res < 1e-9 and err <= 1e-5 and st[k] == (1 if ex <= 1 else 0)
    print(f"{'ok  ' if good else 'FAIL'} {f[k]:.3f} Hz ({'stable' if st[k] == 1 else 'unstable'}): largest multiplier {mu[k]:.7f}, "
          f"exact period map {ex:.7f} (finite differences), difference {err:.1e} (<= 1e-5)")
    ok = ok and good
# the time stepping's sweep is not periodic in the window: its envelope changes from period to period
ch = np.abs(np.diff(env[:, 1])) / env[1:, 1]
fe = env[1:, 0]
below = ch[(fe > 289) & (fe < f[win[0]] - 0.5)].max()
inside = ch[(fe >= f[win[0]]) & (fe <= f[win[-1]] + 1)].max()
good = inside > 3 * below
print(f"{'ok  ' if good else 'FAIL'} the sweep's envelope changes by up to {inside:.1e} per period in {f[win[0]]:.2f}-{f[win[-1]] + 1:.2f} Hz "
      f"against {below:.1e} on the stable upper branch below (> 3x: not periodic where the multipliers say unstable)")
ok = ok and good
sys.exit(0 if ok else 1)
EOF2
if must "plot" $py "$VICMS_SOURCE/scripts/plot_results.py" hb.h5 --kind hb --overlay sweep.h5 -o "$dir" && [ -s hb_hb.png ]; then
  echo "ok   hb_hb.png with the sweep overlaid, $(stat -c %s hb_hb.png) bytes"
else
  fail=1
fi
exit $fail
