#!/usr/bin/env bash
# `vicms hb` through the executable (issue 12, tests 2 and 5): (a) a massless-boundary ROM written by hand (a unit mass on a spring k1,
# joined by a spring k2 = 3 k1 to its massless contact coordinate, which a rigid stop at gap 1 holds): on 1, 2 and 3 ranks the branch
# bends to the right with two turning points, unstable between them, and the three results files hold the same branch bitwise; the
# amplitudes on the stable branches equal the steady states of `vicms simulate` (leapfrog, 1000 steps per second over 100 s) within 0.5 %;
# `vicms info` describes the branch; (b) bad input on 1, 2 and 3 ranks: non-zero exit, no hang, a message naming the problem; (c) the
# stability by the time stepping's transient: against the exact Floquet analysis on the stop oscillator, on a mass-carrying variant
# whose contact never closes against the linear system's eigenvalues, and on the mass-carrying impact oscillator (overhang unstable,
# outer branches stable, amplitudes against `vicms simulate` with moreau, restitution 0; verdicts and multipliers against the
# exact motion with plastic impacts, tests/app/impact_exact.py).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

$py - "$VICMS_SOURCE/scripts/write_user_rom.py" <<'EOF2' || exit 1
import importlib.util
import sys
import h5py
import numpy as np

def rom(path, loads=True):
    k1 = 4 * np.pi ** 2
    k2 = 3 * k1
    with h5py.File(path, "w") as f:
        for key, value in [("format", "vicms-rom"), ("version", "0.1.0"), ("method", "cb_massless"), ("units", "SI")]:
            f.attrs[key] = np.bytes_(value)
        f.attrs["massless"] = 1
        f.attrs["n_boundary"] = 1
        f.attrs["n_modes"] = 1
        f["K"] = np.array([[k2, -k2], [-k2, k1 + k2]])
        f["M"] = np.array([[0.0, 0.0], [0.0, 1.0]])
        f["D"] = np.array([[0.0, 0.0], [0.0, 2 * 0.02 * 2 * np.pi]])
        f["frequencies_hz"] = np.array([2.0])
        f["contact/areas"] = np.array([1.0])
        f["contact/coords"] = np.zeros((1, 3))
        f["contact/dims"] = np.array([1])
        f["contact/frames"] = np.eye(3).reshape(1, 9)
        f["contact/node_ids"] = np.array([1])
        f["contact/offsets"] = np.array([0])
        if loads:
            f["loads/drive"] = np.array([0.0, 1.0])
        f["outputs/mass"] = np.array([0.0, 1.0])

rom("stop.h5")
rom("noloads.h5", loads=False)

# the mass-carrying variant: the contact coordinate carries m0 = 0.03 (a light impactor, 10 Hz against k2 when the mass
# stands still), a relative damper c_r = 2 0.3 sqrt(k2 m0) across k2 (its ringing after a release is damped; the mass's
# own damping as in stop.h5)
spec = importlib.util.spec_from_file_location("w", sys.argv[1])
w = importlib.util.module_from_spec(spec)
spec.loader.exec_module(w)
k1, m0 = 4 * np.pi ** 2, 0.03
k2 = 3 * k1
w.write_user_rom("impact.h5", K=[[k2, -k2], [-k2, k1 + k2]], M=np.diag([m0, 1.0]),
                 D=2 * 0.3 * np.sqrt(k2 * m0) * np.array([[1.0, -1.0], [-1.0, 1.0]]) + np.diag([0.0, 2 * 0.02 * 2 * np.pi]),
                 contact_dims=[1], loads={"drive": [0.0, 1.0]}, outputs={"mass": [0.0, 1.0], "q00": [1.0, 0.0], "q01": [0.0, 1.0]},
                 units="SI")
EOF2

# the linear peak would be F / (2 zeta k1) = 5 gaps
case="-rom_file stop.h5 -case_loads drive -load_drive_type harmonic -load_drive_amplitude 7.895683520871486 -load_drive_frequency 1 -contact_gap 1"
hb="-hb_freq_range 0.6,1.6 -hb_harmonics 20 -hb_samples 256 -hb_max_freq_step 0.005"
for np in 1 2 3; do
  must "np=$np vicms hb" mpi 60 "$np" hb $case $hb -results_file hb$np.h5 && echo "ok   np=$np: $(grep Wrote <<<"$LAST")"
done
must "vicms simulate" mpi 60 1 simulate $case -cases_values load_drive_frequency:0.8/1.0/1.06/1.5 -step_type leapfrog -step_dt 1e-3 \
  -step_end_time 100 -summary_steady_fraction 0.1 -cases_keep_series false -results_file ts.h5
must "vicms info" mpi 30 1 info hb1.h5
if ! grep -q "2 turning points" <<<"$LAST" || ! grep -q "becomes unstable" <<<"$LAST"; then
  echo "FAIL vicms info does not describe the branch:"; echo "$LAST"; fail=1
else
  echo "ok   vicms info: $(grep 'harmonic balance branch' <<<"$LAST")"
fi
if [ -f hb1.h5 ] && [ -f hb2.h5 ] && [ -f hb3.h5 ] && [ -f ts.h5 ]; then
  $py - <<'EOF2' || fail=1
import sys
import h5py
import numpy as np

ok = True
b = [h5py.File(f"hb{np_}.h5", "r") for np_ in (1, 2, 3)]
g = b[0]["summary/hb"]
assert b[0].attrs["format"] == b"vicms-results" or b[0].attrs["format"] == "vicms-results"
for name in g:
    for other in b[1:]:
        if not np.array_equal(g[name][()], other["summary/hb"][name][()]):
            print(f"FAIL summary/hb/{name} differs between 1 and more ranks"); ok = False
f, a, st, kind = g["frequency_hz"][()], g["amplitude"][:, 0], g["stable"][()], g["kind"][()]
turn = np.nonzero(kind & 1)[0]
if len(turn) != 2 or not (f[turn[0]] > f[turn[1]] > 1.0):
    print(f"FAIL turning points {turn} at {f[turn]} Hz: expected two, bending to the right"); ok = False
else:
    # decided everywhere (the points next to the upper turning point, where the orbit's multiplier nears 1 and the
    # shooting is singular, by the exact motion from the solution: stability_method 1), changing at the turning points
    # (within one point: the exact motion's fold need not be the truncated series')
    bad = np.nonzero(st != 1)[0]
    inside = st[turn[0] + 1:turn[1]]
    if not (np.all(st >= 0) and np.all(inside == 0) and np.all(np.diff(bad) == 1) and bad[0] >= turn[0] - 1 and bad[-1] <= turn[1]):
        print(f"FAIL stability: the overhang between the turning points must be unstable and the rest stable, decided everywhere "
              f"(unstable {bad}, turning points {turn}, {(st < 0).sum()} not computed)"); ok = False
    else:
        mo = np.nonzero(g["stability_method"][()] == 1)[0]
        print(f"ok   turning points at {f[turn[0]]:.5f} Hz (amplitude {a[turn[0]]:.4f}) and {f[turn[1]]:.5f} Hz "
              f"(amplitude {a[turn[1]]:.4f}); unstable from point {bad[0]} to {bad[-1]} (turning points {turn[0]}, {turn[1]}), "
              f"stable elsewhere, decided at every point ({len(mo)} by the exact motion from the solution: "
              + ", ".join(f"{f[k]:.5f} Hz {'stays, contracting' if st[k] else 'leaves, growing'} {g['multiplier'][k]:.5f} per period" for k in mo) + ")")
for fr, at in h5py.File("ts.h5", "r")["summary/frf"][()]:
    vals = [a[k] + (fr - f[k]) / (f[k + 1] - f[k]) * (a[k + 1] - a[k]) for k in range(len(f) - 1)
            if (f[k] - fr) * (f[k + 1] - fr) <= 0 and f[k] != f[k + 1] and st[k] == 1 and st[k + 1] == 1]
    if len(vals) != 1:
        print(f"FAIL {fr} Hz: {len(vals)} stable branch points, expected 1"); ok = False
        continue
    err = abs(vals[0] - at) / at
    print(f"{'ok  ' if err <= 5e-3 else 'FAIL'} {fr:5.2f} Hz: harmonic balance {vals[0]:.6f}, time stepping {at:.6f}, "
          f"difference {100 * err:.4f} % (<= 0.5 %)")
    ok = ok and err <= 5e-3
sys.exit(0 if ok else 1)
EOF2
else
  fail=1
fi

# ---- (c) stability by the time stepping's transient (src/hb/transient.c)
# (c1) -hb_stability_method transient on the stop oscillator against the exact Floquet analysis of hb1.h5: the same branch;
# at every point where Floquet's multiplier is computed and |mu - 1| > 0.02 the same verdict (400 periods: at 200 four
# points next to the upper turning point, multipliers 1.02-1.05, drift too slowly to be decided); the multiplier within
# 7 % at the unstable points (measured 5.7 %), within 0.07 at the stable points with |mu - 1| > 0.05 (measured 0.046,
# median 0.08 %)
must "vicms hb -hb_stability_method transient" mpi 60 1 hb $case $hb -hb_stability_method transient -hb_stability_periods 400 \
  -results_file tr1.h5 && echo "ok   $(grep 'time stepping' <<<"$LAST" | sed 's/^ *//')"
# (c2) the mass-carrying variant: with a gap of 100 the contact never closes: every point stable, the transient's multiplier
# against exp(max Re lambda T) of the linear first-order system (numpy), within 0.5 % (measured 0.12 %)
must "vicms hb, mass-carrying, open" mpi 60 1 hb ${case/stop.h5/impact.h5} -contact_gap 100 -hb_freq_range 0.6,1.6 -hb_harmonics 20 \
  -hb_samples 256 -hb_max_freq_step 0.1 -results_file open.h5
# (c3) the mass-carrying impact oscillator (gap 1): on 1, 2, 3 ranks the same branch bitwise, two turning points; the
# overhang unstable and the outer branches stable at the points 0.03 Hz or more from the turning points; the amplitudes
# at 0.95, 1.0, 1.05 Hz (the contact closed 15-20 % of the period, one solution) against `vicms simulate` (moreau,
# restitution 0, dt = 0.25 ms, 100 s, last 10 s) within 0.5 % (measured 0.07, 0.26, 0.04 %)
impact="${case/stop.h5/impact.h5}"
for np in 1 2 3; do
  must "np=$np vicms hb, mass-carrying" mpi 60 "$np" hb $impact $hb -results_file impact$np.h5
done
grep -q "time stepping's transient from the solution at" <<<"$LAST" || { echo "FAIL the table does not say the transient decided the stability:"; echo "$LAST" | tail -4; fail=1; }
must "vicms simulate, mass-carrying" mpi 60 1 simulate $impact -cases_values load_drive_frequency:0.95/1.0/1.05 -step_type moreau \
  -step_restitution 0 -step_dt 2.5e-4 -step_end_time 100 -summary_steady_fraction 0.1 -cases_keep_series false -results_file impact_ts.h5
must "vicms info, mass-carrying" mpi 30 1 info impact1.h5
if grep -Eq "by the time stepping's transient at [1-9]" <<<"$LAST"; then
  echo "ok   vicms info: $(grep 'stability decided' <<<"$LAST" | sed 's/^ *//')"
else
  echo "FAIL vicms info does not count the transient's points:"; echo "$LAST"; fail=1
fi
if [ -f tr1.h5 ] && [ -f open.h5 ] && [ -f impact1.h5 ] && [ -f impact2.h5 ] && [ -f impact3.h5 ] && [ -f impact_ts.h5 ]; then
  VICMS_SOURCE=$VICMS_SOURCE $py - <<'EOF2' || fail=1
import os
import sys
import h5py
import numpy as np

ok = True
def check(cond, text):
    global ok
    print(("ok   " if cond else "FAIL ") + text)
    ok = ok and bool(cond)

fl, tr = h5py.File("hb1.h5", "r")["summary/hb"], h5py.File("tr1.h5", "r")["summary/hb"]
check(np.array_equal(fl["frequency_hz"][()], tr["frequency_hz"][()]) and np.array_equal(fl["harmonics"][()], tr["harmonics"][()]),
      "the transient leaves the branch unchanged")
check(np.all(tr["stability_method"][()] == 2), "-hb_stability_method transient: every point by the transient")
sf, st, mf, mt = fl["stable"][()], tr["stable"][()], fl["multiplier"][()], tr["multiplier"][()]
sel = (fl["stability_method"][()] == 0) & (np.abs(mf - 1) > 0.02)  # the exact orbit's multipliers (not the motion's growth, method 1)
check(sel.sum() > 200 and np.array_equal(sf[sel], st[sel]),
      f"same verdict as Floquet at {np.sum(sf[sel] == st[sel])} of {sel.sum()} points with |mu - 1| > 0.02 ({np.sum(sel & (sf == 0))} unstable)")
un = sel & (sf == 0) & (st == 0)
err_u = np.abs(mt[un] - mf[un]) / mf[un]
check(un.sum() > 20 and err_u.max() <= 0.07, f"unstable multipliers within {100 * err_u.max():.2f} % of Floquet's (<= 7 %)")
stb = (sf == 1) & (st == 1) & (np.abs(mf - 1) > 0.05)
err_s = np.abs(mt[stb] - mf[stb])
check(stb.sum() > 200 and err_s.max() <= 0.07 and np.median(err_s / mf[stb]) <= 5e-3,
      f"stable multipliers within {err_s.max():.4f} of Floquet's (<= 0.07), median {100 * np.median(err_s / mf[stb]):.3f} % (<= 0.5 %)")

g = h5py.File("open.h5", "r")["summary/hb"]
with h5py.File("impact.h5", "r") as r:
    K, M, D = r["K"][()], r["M"][()], r["D"][()]
A = np.block([[np.zeros((2, 2)), np.eye(2)], [-np.linalg.solve(M, K), -np.linalg.solve(M, D)]])
ref = np.exp(np.linalg.eigvals(A).real.max() / g["frequency_hz"][()])
err = np.abs(g["multiplier"][()] - ref) / ref
check(np.all(g["stable"][()] == 1) and np.all(g["stability_method"][()] == 2) and np.all(g["closed_fraction"][()] == 0) and err.max() <= 5e-3,
      f"open mass-carrying: {len(ref)} points stable, multipliers {g['multiplier'][()].min():.4f}-{g['multiplier'][()].max():.4f} "
      f"within {100 * err.max():.3f} % of exp(max Re lambda T) (<= 0.5 %)")

b = [h5py.File(f"impact{r}.h5", "r")["summary/hb"] for r in (1, 2, 3)]
check(all(np.array_equal(b[0][k][()], o[k][()]) for o in b[1:] for k in b[0]), "mass-carrying branch bitwise equal on 1, 2, 3 ranks")
g = b[0]
f, a, s, kind = g["frequency_hz"][()], g["amplitude"][:, 0], g["stable"][()], g["kind"][()]
turn = np.nonzero(kind & 1)[0]
check(np.all(g["stability_method"][()] == 2), "mass-carrying: every point by the transient")
if len(turn) != 2:
    check(False, f"mass-carrying: turning points {f[turn]}, expected two")
else:
    away = (np.abs(f - f[turn[0]]) >= 0.03) & (np.abs(f - f[turn[1]]) >= 0.03)
    idx = np.arange(len(f))
    inside = away & (idx > turn[0]) & (idx < turn[1])
    outside = away & ((idx < turn[0]) | (idx > turn[1]))
    check(inside.sum() >= 5 and np.all(s[inside] == 0) and np.all(s[outside] == 1),
          f"mass-carrying: turning points {f[turn[0]]:.5f} and {f[turn[1]]:.5f} Hz; {inside.sum()} overhang points unstable, "
          f"{outside.sum()} outer points stable (0.03 Hz or more from the turning points); "
          f"{np.sum(s < 0)} undecided, {np.sum(s[~away] != np.where((idx > turn[0]) & (idx < turn[1]), 0, 1)[~away])} of {np.sum(~away)} near the turning points differ")
# against the exact motion with plastic impacts (tests/app/impact_exact.py: event-driven, shooting, the monodromy by
# central differences, saltation included) at every 6th point: where its orbit is found (residual < 1e-8) the same
# verdict, and the multiplier within 0.5 % where the contact stays open (the transient's estimate on impacts is rough:
# Moreau's closings snap to the time grid); where no exact orbit is near (next to the upper turning point) the
# transient must not say stable
sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
from impact_exact import ImpactMap, hb_state
agree, found, nearless, open_err, closed_err = 0, 0, [], [], []
for k in range(0, len(f), 6):
    y = hb_state(g, k)
    y[0] = max(y[0], -1.0)
    try:
        _, r, ex = ImpactMap("impact.h5", "drive", 7.895683520871486, 1.0, f[k]).shoot(y)
    except (RuntimeError, np.linalg.LinAlgError):
        r, ex = np.inf, -1.0
    if r < 1e-8:
        found += 1
        agree += int(s[k] == (1 if ex <= 1 else 0))
        (open_err if g["closed_fraction"][k, 0] == 0 else closed_err).append(abs(g["multiplier"][k] - ex) / ex)
    else:
        nearless.append(k)
check(found >= 30 and agree == found and all(s[k] != 1 for k in nearless) and max(open_err) <= 5e-3,
      f"mass-carrying against the exact motion with plastic impacts: the same verdict at {agree} of {found} points with an exact "
      f"orbit; no exact orbit near {len(nearless)} points ({', '.join('%.4f' % f[k] for k in nearless)} Hz: the transient "
      f"{', '.join({1: 'stable', 0: 'unstable', -1: 'undecided'}[int(s[k])] for k in nearless)}); multipliers within "
      f"{100 * max(open_err):.3f} % where the contact stays open ({len(open_err)} points, <= 0.5 %), {100 * np.median(closed_err):.0f} % "
      f"in the median and {100 * max(closed_err):.0f} % at worst where it closes ({len(closed_err)} points)")
for fr, at in h5py.File("impact_ts.h5", "r")["summary/frf"][()]:
    k = [k for k in range(len(f) - 1) if (f[k] - fr) * (f[k + 1] - fr) <= 0 and f[k] != f[k + 1]]
    if len(k) != 1 or s[k[0]] != 1 or s[k[0] + 1] != 1:
        check(False, f"mass-carrying {fr} Hz: {len(k)} branch points, expected one stable")
        continue
    k = k[0]
    v = a[k] + (fr - f[k]) / (f[k + 1] - f[k]) * (a[k + 1] - a[k])
    check(abs(v - at) / at <= 5e-3 and g["closed_fraction"][k, 0] > 0.1,
          f"mass-carrying {fr:4.2f} Hz: harmonic balance {v:.6f}, time stepping {at:.6f}, difference {100 * abs(v - at) / at:.3f} % (<= 0.5 %), "
          f"closed {g['closed_fraction'][k, 0]:.3f}")
sys.exit(0 if ok else 1)
EOF2
else
  fail=1
fi

# the branch drawn with the time-stepping points overlaid (stable solid, unstable dashed)
if must "plot_results.py --kind hb" $py "$VICMS_SOURCE/scripts/plot_results.py" hb1.h5 --kind hb --overlay ts.h5 -o "$dir"; then
  if [ -s hb1_hb.png ] && [ "$(head -c 8 hb1_hb.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    echo "ok   hb1_hb.png: PNG, $(stat -c %s hb1_hb.png) bytes"
  else
    echo "FAIL hb1_hb.png not written as a PNG"; fail=1
  fi
fi

# ---- (b) bad input: a clear message, a non-zero exit, no hang
bad() { # bad NP EXPECT ARGS...
  local np=$1 expect=$2 out rc
  shift 2
  out=$(mpi 60 "$np" hb "$@" 2>&1)
  rc=$?
  if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
    echo "FAIL np=$np $*: exit status $rc (124 = hung)"; fail=1
  elif ! grep -Eq -- "$expect" <<<"$out"; then
    echo "FAIL np=$np $*: no message /$expect/:"; echo "$out" | head -5; fail=1
  else
    echo "ok   np=$np: $(grep -E -m1 -- "$expect" <<<"$out" | sed 's/^.*ERROR: //')"
  fi
}
# each message on one rank count, the rank counts taken in turn (every one sees several)
n=0
nextnp() { n=$((n % 3 + 1)); }
nextnp; bad $n "the ROM has no loads" $case -rom_file noloads.h5 -case_loads "" $hb
nextnp; bad $n "no harmonic load" $case -load_drive_type constant $hb
nextnp; bad $n "-hb_harmonics: got 0, expected at least 1" $case $hb -hb_harmonics 0
nextnp; bad $n "-hb_samples: got 30, expected at least 2H \+ 1 = 41" $case $hb -hb_samples 30
nextnp; bad $n "-hb_start: got 3\.? Hz, outside -hb_freq_range 0.6,1.6: the range must bracket the start" $case $hb -hb_start 3
nextnp; bad $n "-hb_freq_range f0,f1 \(Hz\) is required" $case
nextnp; bad $n "-hb_freq_range: got 2\.?,1\.?, expected 0 < f0 < f1" $case -hb_freq_range 2,1
nextnp; bad $n "-hb_harmonics: got 0, expected at least 1" $case $hb -hb_harmonics 0
nextnp; bad $n "the ROM has no loads" $case -rom_file noloads.h5 -case_loads "" $hb
# issue 24: a third value of the range reported, not dropped; frequencies whose (2 pi H f)^2 overflows; sizes beyond the node's
# memory refused before any allocation (with the size and the limit); a load that overflows double precision: the branch
# fails with that reason (not 2000 NaN points stored as converged and stable), and a job whose every branch failed exits
# non-zero; a frequency grid over the cases (every case would run the same branch)
nextnp; bad $n "-hb_freq_range: got more than two numbers, expected 2 values" $case $hb -hb_freq_range 1,2,3 -results_file r3.h5
nextnp; bad $n "-hb_freq_range: got 1e-300,1e\+308: \(2 pi H f1\)\^2 = .* overflows" $case $hb -hb_freq_range 1e-300,1e308 -results_file big.h5
nextnp; bad $n "-hb_harmonics 100000 with -hb_samples 1600008 \(200001 unknowns\) needs about [0-9.e+]+ GB of memory per rank, more than the [0-9.]+ GB of this node" \
  $case $hb -hb_harmonics 100000 -hb_samples 0 -results_file mem.h5
for np in 1 2 3; do bad $np "the harmonic balance state is not finite at the start, 0.6 Hz" $case $hb -load_drive_amplitude 1e308 -results_file nan$np.h5; done
# the rerun of the finished job: nothing left to run, the same exit
for np in 1 2 3; do bad $np "every branch failed \(1 of 1" $case $hb -load_drive_amplitude 1e308 -results_file nan$np.h5; done
$py - <<'EOF2' || fail=1
import h5py
with h5py.File("nan1.h5", "r") as f:
    st, msg, n = f["cases/status"][()], f["cases/message"][0], len(f["cases/0/frequency_hz"][()])
ok = list(st) == [2] and b"not finite" in (msg if isinstance(msg, bytes) else msg.encode()) and n == 0
print(f"{'ok  ' if ok else 'FAIL'} load 1e308: status {list(st)}, {n} points stored, message {msg[:60]!r}")
exit(0 if ok else 1)
EOF2
nextnp; bad $n "load_drive_frequency takes several values .* hb continues in frequency itself|harmonic balance continues in frequency itself .* -hb_freq_range f0,f1" \
  $case $hb -cases_values load_drive_frequency:0.8/1/1.2 -results_file grid.h5
# a ROM with a bilateral row (docs/user_rom.md) on 1, 2, 3 ranks: one line, no PETSc traceback, no improper exit (on 2-3
# ranks it was both)
$py - "$VICMS_SOURCE/scripts/write_user_rom.py" <<'EOF2' || fail=1
import importlib.util, sys
import numpy as np
spec = importlib.util.spec_from_file_location("w", sys.argv[1]); w = importlib.util.module_from_spec(spec); spec.loader.exec_module(w)
P = np.array([[1.0, 1.0], [0.0, 1.0]])
w.write_user_rom("twomass.h5", P.T @ np.array([[130.0, -30.0], [-30.0, 80.0]]) @ P, P.T @ np.diag([1.0, 2.0]) @ P, contact_dims=[1],
                 contact_kinds=["bilateral"], loads={"push": P.T @ np.array([10.0, 0.0])}, outputs={"r": [1.0, 0.0], "x2": [0.0, 1.0]})
EOF2
for np in 1 2 3; do
  out=$(mpi 60 $np hb -rom_file twomass.h5 -case_loads push -load_push_type harmonic -load_push_frequency 1 -hb_freq_range 1,2 -results_file bil$np.h5 2>&1)
  rc=$?
  if [ $rc -ne 1 ] || ! grep -q "^vicms: error: hb: contact 0 is a bilateral row" <<<"$out" || grep -q "PETSC ERROR\|exiting improperly" <<<"$out"; then
    echo "FAIL np=$np bilateral ROM: exit $rc, expected 1 with one line:"; echo "$out" | head -5; fail=1
  else
    echo "ok   np=$np bilateral ROM: $(grep -m1 'vicms: error' <<<"$out" | cut -c1-120)"
  fi
done
# -step_type for a scheme the stability's transient does not use: said once, the scheme used named
if must "vicms hb -step_type nsgalpha" mpi 60 2 hb $case -hb_freq_range 0.6,0.7 -hb_stability_method transient -step_type nsgalpha -results_file nsg.h5 &&
  grep -q "warning: -step_type nsgalpha is not used: .* uses leapfrog" <<<"$LAST" && [ "$(grep -c 'warning: -step_type' <<<"$LAST")" = 1 ]; then
  echo "ok   $(grep -m1 'warning: -step_type' <<<"$LAST" | cut -c1-140)"
else
  echo "FAIL -step_type nsgalpha not reported once:"; echo "$LAST" | head -5; fail=1
fi
exit $fail
