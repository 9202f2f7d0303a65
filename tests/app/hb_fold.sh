#!/usr/bin/env bash
# Turning points located (issue 24, item 17): the stop oscillator of `hb` (tests/app/hb.sh) with the stop at gap 0.5, H = 10,
# 0.5-3 Hz at the default steps: the branch point marked at the lower turning point lies on the open branch, more than 1 %
# above the fold; the located fold (folds_frequency_hz) against a reference branch of 1e-5 Hz steps near it (its extreme
# point), within 2e-6 relative, and the same with a coarser step (-hb_max_freq_step 0.1, the marked point ~3 % off); on
# 1, 2, 3 ranks bitwise; printed with the table and by `vicms info`. The reference is vicms's own branch at a fine step: the
# truncated series' fold has no closed form (the exact piecewise-linear motion's differs from it by the truncation).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

$py - <<'EOF2' || exit 1
import h5py
import numpy as np
k1 = 4 * np.pi ** 2
k2 = 3 * k1
with h5py.File("stop.h5", "w") as f:
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
    f["loads/drive"] = np.array([0.0, 1.0])
    f["outputs/mass"] = np.array([0.0, 1.0])
EOF2

case="-rom_file stop.h5 -case_loads drive -load_drive_type harmonic -load_drive_amplitude 7.895683520871486 -load_drive_frequency 1 -contact_gap 0.5 -hb_stability false"
for np in 1 2 3; do
  must "np=$np vicms hb" mpi 60 "$np" hb $case -hb_freq_range 0.5,3 -results_file d$np.h5
done
grep -q "turning point located at 1.1806" <<<"$LAST" && echo "ok   $(grep -m2 'turning point located' <<<"$LAST" | tail -1 | sed 's/^ *//')" ||
  { echo "FAIL the table does not print the located turning point:"; echo "$LAST" | tail -4; fail=1; }
must "coarse steps" mpi 60 1 hb $case -hb_freq_range 0.5,3 -hb_max_freq_step 0.1 -hb_step_max 2 -results_file coarse.h5
must "reference: 1e-5 Hz steps near the lower fold" mpi 60 1 hb $case -hb_freq_range 1.17,1.2 -hb_direction down -hb_max_freq_step 1e-5 \
  -hb_step 1e-3 -hb_step_max 1e-3 -hb_max_points 20000 -results_file fine.h5
must "vicms info" mpi 30 1 info d1.h5
grep -q "turning point located at 1.1806" <<<"$LAST" && echo "ok   vicms info: $(grep -m1 'located at 1.1806' <<<"$LAST" | sed 's/^ *//')" ||
  { echo "FAIL vicms info does not show the located turning point:"; echo "$LAST"; fail=1; }
$py - <<'EOF2' || fail=1
import sys
import h5py
import numpy as np

ok = True
def check(cond, text):
    global ok
    print(("ok   " if cond else "FAIL ") + text)
    ok = ok and bool(cond)

b = [h5py.File(f"d{r}.h5", "r")["summary/hb"] for r in (1, 2, 3)]
check(all(np.array_equal(b[0][k][()], o[k][()]) for o in b[1:] for k in b[0]), "branch and folds bitwise equal on 1, 2, 3 ranks")
fine = h5py.File("fine.h5", "r")["summary/hb"]["frequency_hz"][()]
ref = fine.min()
for name in ("d1.h5", "coarse.h5"):
    g = h5py.File(name, "r")["summary/hb"]
    f, kind, pts, ff = g["frequency_hz"][()], g["kind"][()], g["folds_point"][()], g["folds_frequency_hz"][()]
    turn = np.nonzero(kind & 1)[0]
    if len(turn) != 2 or len(ff) != 2 or not np.array_equal(pts, turn):
        check(False, f"{name}: turning points {turn}, folds at points {pts}: expected two, the same")
        continue
    lower = ff[1]
    marked = f[turn[1]]
    check(abs(marked - ref) / ref >= 1e-2 and abs(lower - ref) / ref <= 2e-6 and (name != "d1.h5" or g["closed_fraction"][turn[1], 0] == 0),
          f"{name}: lower fold located at {lower:.9f} Hz, reference {ref:.9f} Hz (1e-5 Hz steps): {abs(lower - ref) / ref:.2e} relative "
          f"(<= 2e-6); the marked point {marked:.7f} Hz (closed {g['closed_fraction'][turn[1], 0]:.3f}), {100 * abs(marked - ref) / ref:.2f} % off (>= 1 %)")
    check(ff[0] >= f[turn[0]] and g["folds_amplitude"][0, 0] > 3, f"{name}: upper fold {ff[0]:.9f} Hz at or beyond its marked point {f[turn[0]]:.7f} Hz")
sys.exit(0 if ok else 1)
EOF2
exit $fail
