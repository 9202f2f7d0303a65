#!/usr/bin/env bash
# `vicms hb` with a preloaded contact that opens (issue 12, the style of test 2): the stop oscillator of tests/app/hb.sh (a unit
# mass on k1 = 4 pi^2, joined by k2 = 3 k1 to its massless contact coordinate) at gap 0 and preload 5 N, driven by 0.2 k1:
# the contact opens over part of every period from 0.6 Hz on (the mass sees k1 + min(k2 x, 5): a softening bilinear spring).
# With the default dynamic Lagrangian parameter (-hb_eps_dl not given) the branch 0.6-3 Hz starts (Newton from rest stagnates at
# 0.6 Hz; the start is reached from the solution with the parameter scaled by 1/4) and runs to the end, with the same results
# file on 1, 2 and 3 ranks. On its stable parts the amplitudes equal the steady states of `vicms simulate` (leapfrog, 1000
# steps per second over 100 s) within 0.5 %, and the contact opens at every compared point. Stability: the superharmonic
# resonance's fold (two turning points near 0.74 and 0.78 Hz) has an unstable overhang; two windows (near 0.64 and 1.03 Hz)
# are unstable by a flip (a multiplier below -1), and there the time stepping does not settle on the branch (> 5 % away); the
# largest multiplier at a point of each against scripts/floquet_exact.py (the exact bilinear motion, shooting, monodromy by
# finite differences) within 1e-5.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

# the stop's ROM as a user ROM, with one output per coordinate (q00, q01: the state of every branch point for the
# independent stability check) after the mass (the table's output)
VICMS_SOURCE=$VICMS_SOURCE $py -c 'import os, sys; sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "scripts"))
from write_user_rom import stop; stop("stop.h5", state_outputs=True)' || exit 1

case="-rom_file stop.h5 -case_loads drive -load_drive_type harmonic -load_drive_amplitude 7.895683520871486 -load_drive_frequency 1 -contact_gap 0 -contact_preload 5"
hb="-hb_freq_range 0.6,3 -hb_harmonics 20 -hb_samples 256 -hb_max_freq_step 0.005 -hb_max_points 4000"
for np in 1 2 3; do
  must "np=$np vicms hb" mpi 60 "$np" hb $case $hb -results_file hb$np.h5 && echo "ok   np=$np: $(grep Wrote <<<"$LAST")"
done
# the start: Newton from rest (and through the load ramp) stagnates, the scaled parameter reaches it
# (one point: the branch stops at -hb_max_points, failed, so the job exits non-zero: every branch failed)
LAST=$(mpi 60 1 hb $case $hb -hb_max_points 1 -results_file start.h5 -info 2>&1)
if [ $? -ne 1 ] || ! grep -q "every branch failed" <<<"$LAST"; then
  echo "FAIL the start with -info: expected exit status 1 with every branch failed (-hb_max_points 1):"; echo "$LAST" | grep -v "^\[0\]" | tail -5; fail=1
else
  if grep -q "the start at 0.6 Hz reached from the solution with eps_DL scaled by" <<<"$LAST"; then
    echo "ok   $(grep -o 'hb: the start at 0.6 Hz reached.*' <<<"$LAST")"
  else
    echo "FAIL the start at 0.6 Hz was expected through the scaled dynamic Lagrangian parameter:"
    grep "hb: the start" <<<"$LAST"
    fail=1
  fi
fi
must "vicms simulate" mpi 60 2 simulate $case -cases_values load_drive_frequency:0.64/0.7/0.9/1.03/1.2/1.4/1.5/2.0/2.5 -step_type leapfrog \
  -step_dt 1e-3 -step_end_time 100 -summary_steady_fraction 0.1 -cases_keep_series false -results_file ts.h5 -cases_quiet
[ $fail -eq 0 ] || exit 1

VICMS_SOURCE=$VICMS_SOURCE $py - <<'EOF2' || fail=1
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "scripts"))
from floquet_exact import PeriodMap, hb_state

ok = True


def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok = ok and bool(cond)


b = [h5py.File(f"hb{n}.h5", "r")["summary/hb"] for n in (1, 2, 3)]
g = b[0]
same = all(np.array_equal(g[k][()], o[k][()]) for o in b[1:] for k in g)
check(same, "results equal bitwise on 1, 2 and 3 ranks")
assert g.attrs["outputs"].decode().split(",")[0] == "mass"
f, a, st, kind, mu = g["frequency_hz"][()], g["amplitude"][:, 0], g["stable"][()], g["kind"][()], g["multiplier"][()]
closed = g["closed_fraction"][:, 0]
check(g.attrs["status"] == b"done" and abs(f[0] - 0.6) < 1e-12 and f[-1] >= 3,
      "the branch from 0.6 Hz to %.3f Hz, %d points, default eps_DL %.4g (4 times the static stiffness 29.61, at most K_00 = 118.4)"
      % (f[-1], len(f), g.attrs["eps_dl"]))
check(abs(g.attrs["eps_dl"] - 3 * 4 * np.pi ** 2) < 1e-9, "eps_DL = min(4 k1 k2 / (k1 + k2), k2) = 3 k1")

# the fold of the superharmonic resonance: two turning points, the overhang between them unstable (where computed)
turn = np.nonzero(kind & 1)[0]
if len(turn) != 2:
    check(False, "turning points at %s Hz: expected two" % f[turn])
else:
    i0, i1 = turn
    inner = st[i0 + 2:i1 - 1]
    check(0.77 < f[i0] < 0.78 and 0.73 < f[i1] < 0.74 and f[i0] > f[i1] and np.all(inner[inner >= 0] == 0) and np.sum(inner == 0) >= 20,
          "turning points %.5f Hz (amplitude %.4f) and %.5f Hz (%.4f), the overhang unstable: %d points, %d not computed next to the folds"
          % (f[i0], a[i0], f[i1], a[i1], np.sum(inner == 0), np.sum(st[i0 - 1:i1 + 2] < 0)))
    check(np.all(st[:i0 - 1] >= 0) and np.all(st[i1 + 2:] >= 0), "stability computed everywhere else")

# the flip windows: unstable intervals away from the fold, a multiplier below -1
low = (f < 0.7) & (st == 0)
mid = (f > 0.9) & (f < 1.2) & (st == 0)
check(low.any() and mid.any() and np.all(st[(f > 1.2)] == 1),
      "unstable windows %.4f-%.4f Hz and %.4f-%.4f Hz (largest multipliers %.4f, %.4f); stable above 1.2 Hz"
      % (f[low].min(), f[low].max(), f[mid].min(), f[mid].max(), mu[low].max(), mu[mid].max()))

# the multipliers against the exact bilinear motion: the overhang, the two windows, the resonance's flank
picks = [int(np.argmin(np.where(low, np.abs(f - 0.64), 9))), int(np.argmin(np.where(mid, np.abs(f - 1.03), 9)))]
if len(turn) == 2:
    picks.insert(0, turn[0] + (turn[1] - turn[0]) // 2)
picks.append(int(np.argmin(np.abs(f - 1.4))))
for k in picks:
    pm = PeriodMap("stop.h5", "drive", 7.895683520871486, 0.0, f[k], preload=5.0)
    x, J, res = pm.shoot(hb_state(g, k, pm.nb))
    ev = np.linalg.eigvals(J)
    exact = np.abs(ev).max()
    check(res < 1e-9 and abs(mu[k] - exact) <= 1e-5 and (exact > 1) == (st[k] == 0),
          "%.5f Hz (amplitude %.4f): multiplier %.7f against the exact motion's %.7f (eigenvalues %s)"
          % (f[k], a[k], mu[k], exact, np.round(ev, 4)))

# the period doublings located (issue 24): changes_frequency_hz where the dominant multiplier crosses the unit circle, with
# argument pi (at -1), against the exact motion's crossing: brentq on Re(the multiplier nearest -1) + 1 of the exact orbit
# (floquet_exact.PeriodMap, shot from the state of the point after the change), within 1e-6 relative (measured 9e-9 to 1e-7); the points marked
# before (the first on the new side) lie 0.2-0.8 % away
import scipy.optimize as so
cf, ca, cp = g["changes_frequency_hz"][()], g["changes_multiplier_arg"][()], g["changes_point"][()]
flips = [i for i in range(len(cf)) if cf[i] > 0 and abs(ca[i] - np.pi) < 1e-3]
check(len(flips) == 4 and np.all(np.abs(g["multiplier_arg"][()][st == 0][:3] - np.pi) < 1e-3),
      f"{len(flips)} stability changes at a multiplier -1 (period doubling), located at {np.round(cf[flips], 7)} Hz")
for i in flips:
    k = cp[i]

    def cross(fr, x0=hb_state(g, k, 1)):
        x, J, res = PeriodMap("stop.h5", "drive", 7.895683520871486, 0.0, fr, preload=5.0).shoot(x0.copy())
        ev = np.linalg.eigvals(J)
        return ev[np.argmin(np.abs(ev + 1))].real + 1

    fe = so.brentq(cross, cf[i] * (1 - 2e-3), cf[i] * (1 + 2e-3), xtol=1e-10)
    check(abs(cf[i] - fe) / fe <= 1e-6, f"period doubling located at {cf[i]:.8f} Hz, the exact motion's at {fe:.8f} Hz "
          f"({abs(cf[i] - fe) / fe:.1e} relative, <= 1e-6); the marked point {f[k]:.6f} Hz, {100 * abs(f[k] - fe) / fe:.2f} % away")

# against the time stepping: within 0.5 % on the stable branch (a single stable point there), > 5 % away in the windows
for fr, at in h5py.File("ts.h5", "r")["summary/frf"][()]:
    seg = [k for k in range(len(f) - 1) if (f[k] - fr) * (f[k + 1] - fr) <= 0 and f[k] != f[k + 1]]
    val = [a[k] + (fr - f[k]) / (f[k + 1] - f[k]) * (a[k + 1] - a[k]) for k in seg]
    stab = [st[k] == 1 and st[k + 1] == 1 for k in seg]
    if len(seg) != 1:
        check(False, "%.2f Hz: %d branch points, expected one" % (fr, len(seg)))
    elif stab[0]:
        err = abs(val[0] - at) / at
        check(err <= 5e-3 and closed[seg[0]] < 1,
              "%.2f Hz: harmonic balance %.6f, time stepping %.6f, difference %.4f %% (<= 0.5 %%); closed over %.3f of the period"
              % (fr, val[0], at, 100 * err, closed[seg[0]]))
    else:
        err = abs(val[0] - at) / at
        check(err > 0.05, "%.2f Hz (unstable): harmonic balance %.6f, time stepping %.6f, %.1f %% away (> 5 %%)" % (fr, val[0], at, 100 * err))
sys.exit(0 if ok else 1)
EOF2
exit $fail
