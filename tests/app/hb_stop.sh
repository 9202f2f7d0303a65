#!/usr/bin/env bash
# A harmonic balance branch that is stopped keeps what it computed (issue 12), on the stop oscillator
# (scripts/write_user_rom.py stop) with a small -hb_max_freq_step (about 10,000 points, a second or more per branch), from
# just below the frequency where the contact closes:
# (1) SIGTERM to the ranks mid-branch stops a job of one branch at its next point with exit status 75, a checkpoint
#     (format vicms-hb-checkpoint, taken mid-branch) and the stop message; a rerun with other options is refused, the
#     checkpoint kept; the same command resumes it ("resuming case 0 from f = ... Hz") to a results file equal bit for
#     bit to the uninterrupted run's (every dataset and attribute, summary/hb included, wall times aside): on 1 rank and
#     on a group of 2 ranks;
# (2) SIGUSR1 to mpirun while two branches run on 2 groups (each with a periodic checkpoint already written): both stop,
#     every rank exits 75, the rerun resumes both, equal to the uninterrupted job;
# (3) a periodic checkpoint (-cases_checkpoint_interval, not part of the job), SIGKILL, and the rerun resumes from it;
# (4) the checkpoint of another job put in a job's journal is not used: that branch starts from its beginning.
# Nothing waits a fixed time: each signal is sent once a progress line or a checkpoint file shows the job is mid-branch.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
$py "$VICMS_SOURCE/scripts/write_user_rom.py" stop stop.h5 >/dev/null || exit 1
compare="$VICMS_SOURCE/tests/app/compare_results.py"

case="-rom_file stop.h5 -case_loads drive -load_drive_type harmonic -load_drive_amplitude 7.895683520871486 -load_drive_frequency 1"
hb="-hb_freq_range 0.88,1.6 -hb_harmonics 10 -hb_samples 128 -hb_max_freq_step 1e-4 -hb_max_points 100000"

# mid CKPT FULL K: the checkpoint of case K was taken mid-branch (fewer points than the finished branch FULL's) where the
# contact is closed for part of the period (the stability's shooting then starts from the previous point's orbit: a
# resume without it differs in the multipliers)
mid() {
  $py - "$1" "$2" "$3" <<'EOF2'
import sys
import h5py
ckpt, full, k = sys.argv[1], sys.argv[2], sys.argv[3]
with h5py.File(ckpt, "r") as f:
    fmt = f.attrs["format"]
    fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
    points, freq = int(f.attrs["points"]), float(f.attrs["frequency_hz"])
    closed = float(f["branch/closed_fraction"][()].max())  # the branch so far has met the contact (the last point may be past it)
with h5py.File(full, "r") as f:
    total = len(f[f"cases/{k}/frequency_hz"])
ok = fmt == "vicms-hb-checkpoint" and 1 <= points < total and closed > 0
print(("ok   " if ok else "FAIL ") + f"{ckpt}: format {fmt}, {points} of the branch's {total} points (at {freq:.6g} Hz, "
      f"contact closed up to {closed:.3f} of the period on the branch so far)")
raise SystemExit(0 if ok else 1)
EOF2
}

# ---- (1) SIGTERM to the ranks mid-branch, a rerun with other options, the same command again
# stop_branch NAME NP ARGS...
stop_branch() {
  local name=$1 np=$2 pid rc
  shift 2
  must "$name: uninterrupted" mpi 120 "$np" hb $case $hb "$@" -results_file ${name}_full.h5 || return
  timeout 120 mpirun --oversubscribe -n "$np" "$VICMS_BIN" hb $case $hb "$@" -results_file $name.h5 -cases_progress_interval 0.1 >$name.log 2>&1 &
  pid=$!
  # past 0.9 Hz, where the contact closes (the first ~100 points at 1e-4 Hz steps are open: on a loaded machine a group of
  # 2 ranks printed its first progress line before it got there, and the stop came at point ~100)
  if ! wait_for 60 grep -Eq "^  point [0-9]* at (0\.9|1\.)" $name.log; then
    echo "FAIL $name: no progress line"; tail -5 $name.log; fail=1; kill $pid; return
  fi
  kill -TERM $(ranks_of $pid)
  wait $pid
  rc=$?
  expect "$name: exit status after SIGTERM mid-branch (75: stopped, resumable)" $rc 75
  grep -E "^vicms: stopped by SIGTERM at f = [0-9.e+-]+ Hz of case 0; 0 cases finished, 1 remaining; rerun the same command to resume" $name.log ||
    { echo "FAIL $name: no stop message:"; grep -v "^ *[0-9]" $name.log | tail -5; fail=1; }
  [ -f $name.h5.cases/0.ckpt.h5 ] && mid $name.h5.cases/0.ckpt.h5 ${name}_full.h5 0 || { echo "FAIL $name: no checkpoint after the stop"; fail=1; }
  # another job on this results file: refused, the checkpoint left as it was
  cp $name.h5.cases/0.ckpt.h5 before.ckpt.h5 2>/dev/null
  out=$(mpi 60 "$np" hb $case ${hb/1e-4/2e-4} "$@" -results_file $name.h5 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "$name.h5 holds the results of another job (its options differ: '-hb_max_freq_step 1e-4" <<<"$out" &&
    cmp -s before.ckpt.h5 $name.h5.cases/0.ckpt.h5; then
    echo "ok   $name: a rerun with -hb_max_freq_step 2e-4 is refused: $(grep -m1 -o "$name.h5 holds the results of another job.*here)" <<<"$out")"
  else
    echo "FAIL $name: the rerun with other options (exit $rc) was not refused, or touched the checkpoint:"; echo "$out" | tail -3; fail=1
  fi
  local t0=$(date +%s.%N)
  must "$name: rerun" mpi 120 "$np" hb $case $hb "$@" -results_file $name.h5 || return
  local t1=$(date +%s.%N)
  grep "resuming case 0 from f = " <<<"$LAST" || { echo "FAIL $name: the rerun did not resume from the checkpoint"; fail=1; }
  [ -e $name.h5.cases ] && { echo "FAIL $name: the journal $name.h5.cases is left after the job completed"; fail=1; }
  $py "$compare" ${name}_full.h5 $name.h5 --min-objects 80 --all-done --label "stopped and resumed" || fail=1
  # the branch's wall time counts both runs: the checkpoint's (the time before the stop) plus at most the rerun's
  $py - before.ckpt.h5 $name.h5 $t0 $t1 <<'EOF3' || fail=1
import sys
import h5py
w1 = float(h5py.File(sys.argv[1], "r")["run/scalars"][6])
w = float(h5py.File(sys.argv[2], "r")["cases/wall_time"][0])
rerun = float(sys.argv[4]) - float(sys.argv[3])
ok = 0 < w1 <= w <= w1 + rerun
print(("ok   " if ok else "FAIL ") + f"the branch's wall time {w:.3f} s: {w1:.3f} s before the stop (its checkpoint) and {w - w1:.3f} s "
      f"of the rerun's {rerun:.3f} s")
raise SystemExit(0 if ok else 1)
EOF3
  $py -c "import h5py, sys; f = h5py.File('$name.h5', 'r'); sys.exit(0 if 'summary/hb/frequency_hz' in f else 1)" ||
    { echo "FAIL $name: no summary/hb"; fail=1; }
}
stop_branch np1 1 -contact_gap 1
stop_branch np2 2 -contact_gap 1 -cases_group_size 2
$py "$compare" np1_full.h5 np2_full.h5 --min-objects 80 --all-done --label "the branch on a group of 2 ranks against 1 rank" || fail=1

# ---- (2) SIGUSR1 to mpirun while two branches run on 2 groups; each rank's exit status kept by a wrapper
vicms_rank_wrapper
grid="-cases_values contact_gap:0.9/1 -cases_quiet"
must "grid: uninterrupted" mpi 120 2 hb $case $hb $grid -results_file grid_full.h5
timeout 120 mpirun --oversubscribe -n 2 bash rank.sh hb $case $hb $grid -results_file grid.h5 -cases_checkpoint_interval 0.05 >grid.log 2>&1 &
pid=$!
# both branches' periodic checkpoints taken where the contact closes (on a loaded machine one group may lag the other: the
# stop once both files existed once came at point 23 of the second branch, before its contact closed)
closed_both() {
  $py - <<'EOF2'
import time
import h5py
end = time.time() + 60
while time.time() < end:
    try:
        closed = []
        for k in (0, 1):
            with h5py.File(f"grid.h5.cases/{k}.ckpt.h5", "r") as f:
                closed.append(float(f["branch/closed_fraction"][-1].max()))
        if min(closed) > 0:
            raise SystemExit(0)
    except (OSError, KeyError):
        pass
    time.sleep(0.05)
raise SystemExit(1)
EOF2
}
if closed_both; then
  kill -USR1 "$(mpirun_of $pid)"
  wait $pid
  rc=$?
  expect "grid: mpirun's exit status after SIGUSR1" $rc 75
  expect "grid: exit status of every rank" "$(cat rc.* 2>/dev/null | sort | uniq -c | xargs)" "2 75"
  grep -E "^vicms: stopped by SIGUSR1 at f = .* Hz of case [01], f = .* Hz of case [01]; 0 cases finished, 2 remaining" grid.log ||
    { echo "FAIL grid: no stop message naming both branches:"; tail -3 grid.log; fail=1; }
  mid grid.h5.cases/0.ckpt.h5 grid_full.h5 0 || fail=1
  mid grid.h5.cases/1.ckpt.h5 grid_full.h5 1 || fail=1
  if must "grid: rerun" mpi 120 2 hb $case $hb $grid -results_file grid.h5; then
    n=$(grep -c "resuming case [01] from f = " <<<"$LAST")
    expect "grid: branches resumed from their checkpoints" "$n" 2
  fi
  $py "$compare" grid_full.h5 grid.h5 --min-objects 80 --all-done --label "2 branches stopped and resumed on 2 groups" || fail=1
else
  echo "FAIL grid: no periodic checkpoints of both branches"; tail -3 grid.log; fail=1; kill $pid
fi

# ---- (3) periodic checkpoint, SIGKILL, rerun
cp np1_full.h5 kill_full.h5
timeout 120 mpirun --oversubscribe -n 1 "$VICMS_BIN" hb $case $hb -contact_gap 1 -results_file kill.h5 -cases_checkpoint_interval 0.05 \
  -cases_progress_interval 0.1 >kill.log 2>&1 &
pid=$!
# a checkpoint written once the contact closes (past 0.9 Hz): on a loaded machine the first periodic checkpoint came at
# 0.893 Hz, contact open; after the progress line there, a few checkpoint intervals pass before the kill
if wait_for 60 grep -Eq "^  point [0-9]* at (0\.9|1\.)" kill.log && sleep 0.5 && test -f kill.h5.cases/0.ckpt.h5; then
  kill -KILL $(ranks_of $pid)
  wait $pid
  mid kill.h5.cases/0.ckpt.h5 kill_full.h5 0 || fail=1
  must "SIGKILL: rerun" mpi 120 1 hb $case $hb -contact_gap 1 -results_file kill.h5
  grep "resuming case 0 from f = " <<<"$LAST" || { echo "FAIL SIGKILL: the rerun did not resume from the periodic checkpoint"; fail=1; }
  $py "$compare" kill_full.h5 kill.h5 --min-objects 80 --all-done --label "killed and resumed from a periodic checkpoint" || fail=1
else
  echo "FAIL SIGKILL: no periodic checkpoint"; tail -3 kill.log; fail=1; kill $pid
fi

# ---- (4) another job's checkpoint in the journal
other="-hb_freq_range 0.88,1.6 -hb_harmonics 10 -hb_samples 128 -hb_max_freq_step 1e-3 -contact_gap 1"
must "other job: uninterrupted" mpi 60 1 hb $case $other -results_file other_full.h5
mkdir -p other.h5.cases && cp before.ckpt.h5 other.h5.cases/0.ckpt.h5
if must "other job with a foreign checkpoint" mpi 60 1 hb $case $other -results_file other.h5; then
  grep -q "case 0: its checkpoint other.h5.cases/0.ckpt.h5 is not used (it belongs to another job or case): the case starts from its beginning" <<<"$LAST" &&
    echo "ok   a checkpoint of another job is not used" || { echo "FAIL the foreign checkpoint:"; grep -v "^ *[0-9]" <<<"$LAST" | head -5; fail=1; }
  $py "$compare" other_full.h5 other.h5 --min-objects 80 --all-done --label "the job that ignored a foreign checkpoint" || fail=1
fi
exit $fail
