#!/usr/bin/env bash
# `vicms hb` through the executable (issue 12, tests 2 and 5): (a) a massless-boundary ROM written by hand (a unit mass on a spring k1,
# joined by a spring k2 = 3 k1 to its massless contact coordinate, which a rigid stop at gap 1 holds): on 1, 2 and 3 ranks the branch
# bends to the right with two turning points, unstable between them, and the three results files hold the same branch bitwise; the
# amplitudes on the stable branches equal the steady states of `vicms simulate` (leapfrog, 1000 steps per second over 100 s) within 0.5 %;
# `vicms info` describes the branch; (b) bad input on 1, 2 and 3 ranks: non-zero exit, no hang, a message naming the problem.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

$py - <<'EOF2' || exit 1
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
exit $fail
