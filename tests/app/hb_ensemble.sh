#!/usr/bin/env bash
# `vicms hb` on case sets (issue 12): a job's grid becomes one harmonic balance branch per case on rank groups, through
# the ensemble (its case runner). On the stop oscillator (scripts/write_user_rom.py stop): (1) a grid of 3 gaps on 1, 2
# and 3 ranks gives bitwise equal results files, and every branch equals bitwise the single-case run of its gap; (2) a
# job killed with SIGKILL after its first branch resumes, does not recompute the finished branches, and ends equal to
# the uninterrupted run; (3) a second job on the same results file is refused while the first runs; (4) cases with an
# impossible setting (N < 2H + 1) or a continuation that stops (-hb_max_points) are recorded failed with their reason,
# the others complete.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
$py "$VICMS_SOURCE/scripts/write_user_rom.py" stop stop.h5 || exit 1
compare="$VICMS_SOURCE/tests/app/compare_results.py"

case="-rom_file stop.h5 -case_loads drive -load_drive_type harmonic -load_drive_amplitude 7.895683520871486 -load_drive_frequency 1"
hb="-hb_freq_range 0.6,1.6 -hb_harmonics 10 -hb_samples 128 -hb_max_freq_step 0.01 -cases_quiet"
gaps="-cases_values contact_gap:0.8/1/1.2"

# ---- (1) 1, 2, 3 ranks; each branch against its single-case run
for np in 1 2 3; do
  must "np=$np grid of 3 gaps" mpi 60 "$np" hb $case $hb $gaps -results_file grid$np.h5 && echo "ok   np=$np: $(grep 'cases:' <<<"$LAST")"
done
$py "$compare" grid1.h5 grid2.h5 --min-objects 60 --all-done --label "3 branches, 2 ranks against 1" || fail=1
$py "$compare" grid1.h5 grid3.h5 --min-objects 60 --all-done --label "3 branches, 3 ranks against 1" || fail=1
for g in 0.8 1 1.2; do
  must "single case, gap $g" mpi 60 1 hb $case $hb -contact_gap $g -results_file single_$g.h5
done
$py - <<'EOF2' || fail=1
import sys
import h5py
import numpy as np

ok = True
grid = h5py.File("grid1.h5", "r")
if grid.attrs["kind"] not in (b"hb", "hb") or list(grid["cases/status"][()]) != [1, 1, 1]:
    print("FAIL grid1.h5: kind hb and 3 done cases expected"); sys.exit(1)
for k, g in enumerate(("0.8", "1", "1.2")):
    one = h5py.File(f"single_{g}.h5", "r")
    a, b = grid[f"cases/{k}"], one["cases/0"]
    names = sorted(set(a) | set(b))
    bad = [n for n in names if n not in a or n not in b or not np.array_equal(a[n][()], b[n][()])]
    bad += [f"@{n}" for n in a.attrs if n not in ("case", "job", "wall_time") and not np.array_equal(a.attrs[n], b.attrs.get(n))]
    same_summary = all(np.array_equal(b[n][()], one["summary/hb"][n][()]) for n in b if n != "quantities")
    peak = grid["cases/quantities"][k]
    cols = grid["cases/quantities"].attrs["columns"]
    cols = (cols.decode() if isinstance(cols, bytes) else cols).split(",")
    amp = a["amplitude"][:, 0]
    good = not bad and same_summary and peak[cols.index("peak_amplitude_mass")] == amp.max() and a["frequency_hz"][amp.argmax()] == \
        peak[cols.index("peak_frequency_mass")]
    print(f"{'ok  ' if good else 'FAIL'} gap {g}: case {k} ({len(amp)} points, peak {amp.max():.6f} at "
          f"{a['frequency_hz'][amp.argmax()]:.5f} Hz) bitwise equal to the single-case run{'' if not bad else ': differs in ' + ', '.join(bad[:5])}"
          f"{'' if same_summary else '; its summary/hb differs from its cases/0'}")
    ok = ok and good
sys.exit(0 if ok else 1)
EOF2

# ---- (2) SIGKILL after the first finished branch, then the same job again
many="-cases_values contact_gap:0.8/0.9/1/1.1/1.2/1.3 -cases_merge_interval 0 -hb_max_freq_step 0.002"
must "uninterrupted" mpi 120 1 hb $case $hb $many -results_file whole.h5
mpirun --oversubscribe -n 1 "$VICMS_BIN" hb $case $hb $many -results_file res.h5 >killed.log 2>&1 &
launcher=$!
for _ in $(seq 1 1200); do
  sleep 0.02
  [ -f res.h5 ] && break
done
kill -KILL $(pgrep -P $launcher) 2>/dev/null
kill -KILL $launcher 2>/dev/null
wait $launcher 2>/dev/null
done_before=$($py -c 'import h5py; print(int((h5py.File("res.h5", "r")["cases/status"][()] > 0).sum()))' 2>/dev/null || echo 0)
if [ "$done_before" -ge 1 ] && [ "$done_before" -lt 6 ] && [ -f res.h5.lock ]; then
  echo "ok   killed with $done_before of 6 branches in res.h5, the lock left behind"
else
  echo "FAIL the kill did not come mid-job ($done_before of 6 branches in res.h5)"; fail=1
fi
# finished before the kill: merged into res.h5, or written whole to the journal (res.h5.cases/<k>.h5) and not yet merged
finished=$($py -c '
import os, h5py
done = {k for k, s in enumerate(h5py.File("res.h5", "r")["cases/status"][()]) if s > 0}
done |= {int(f[:-3]) for f in os.listdir("res.h5.cases") if f.endswith(".h5") and f[:-3].isdigit()} if os.path.isdir("res.h5.cases") else set()
print(len(done))' 2>/dev/null || echo "$done_before")
if must "resume" mpi 120 1 hb $case $hb $many -results_file res.h5; then
  want="Running $((6 - finished)) of 6 cases on 1 group of 1 rank (the others finished in an earlier run)"
  if grep -q "Taking over the lock res.h5.lock" <<<"$LAST" && grep -qF "$want" <<<"$LAST"; then
    echo "ok   resumed: $want"
  else
    echo "FAIL the resumed job did not say '$want':"; echo "$LAST" | head -5; fail=1
  fi
fi
$py "$compare" whole.h5 res.h5 --min-objects 100 --all-done --label "killed and resumed against uninterrupted" || fail=1

# ---- (3) one job per results file
mpirun --oversubscribe -n 1 "$VICMS_BIN" hb $case $hb $many -results_file shared.h5 >first.log 2>&1 &
first=$!
for _ in $(seq 1 300); do
  sleep 0.02
  [ -s shared.h5.lock ] && break
done
ranks=$(pgrep -P $first)
[ -n "$ranks" ] && kill -STOP $ranks
out=$(mpi 60 1 hb $case $hb $gaps -results_file shared.h5 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "shared.h5 is in use by another job: process [0-9]* on this host" <<<"$out"; then
  echo "ok   a second job is refused (exit $rc): $(grep -m1 -o 'shared.h5 is in use by another job: process [0-9]*' <<<"$out")"
else
  echo "FAIL the second job on shared.h5 (exit $rc):"; echo "$out" | head -4; fail=1
fi
[ -n "$ranks" ] && kill -CONT $ranks
wait $first || { echo "FAIL the first job failed:"; tail -5 first.log; fail=1; }
$py "$compare" whole.h5 shared.h5 --min-objects 100 --all-done --label "the first job on shared.h5 against the uninterrupted run" || fail=1

# ---- (4) failure isolation: N = 12 < 2H + 1 (an impossible setting) and a continuation stopped after 20 points
if must "failing cases" mpi 60 2 hb $case $hb -contact_gap 1 -cases_values hb_samples:128/12,hb_max_points:2000/20 -results_file fail.h5; then
  $py - <<'EOF2' || fail=1
import sys
import h5py
import numpy as np

f = h5py.File("fail.h5", "r")
st = list(f["cases/status"][()])
msg = [m.decode() for m in f["cases/message"][()]]
single = h5py.File("single_1.h5", "r")["cases/0"]
same = all(np.array_equal(f["cases/0"][n][()], single[n][()]) for n in single if n != "quantities")
ok = (st == [1, 2, 2, 2] and "-hb_max_points 20 reached" in msg[1] and len(f["cases/1/frequency_hz"]) == 20
      and all("-hb_samples: got 12, expected at least 2H + 1 = 21" in m for m in msg[2:]) and same)
print(f"{'ok  ' if ok else 'FAIL'} status {st}; case 1: {msg[1]}; cases 2, 3: {msg[2]}; case 0 equal to the single run: {same}")
sys.exit(0 if ok else 1)
EOF2
fi
exit $fail
