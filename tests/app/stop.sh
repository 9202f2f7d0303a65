#!/usr/bin/env bash
# Clean stops and checkpoints (issue 10, item 3), on the bouncing bar of seed 000 §5.1:
# (1) SIGTERM to the ranks mid-case stops a job of one long case with exit status 75 and a checkpoint, and the rerun
#     resumes it to results equal to an uninterrupted run's (everything but wall times): leapfrog on 1 rank, moreau on a
#     group of 2 ranks;
# (2) SIGUSR1 to mpirun (which forwards it) mid-ensemble on 2 ranks in 2 groups, and on 3 ranks in groups of 2 and 1:
#     every rank exits 75, the finished cases are merged into the results file, the rerun finishes, equal to an
#     uninterrupted run; the stopped job's summaries say they are partial (issue 24 item 8): its summary lines, the results
#     file's summary/ group and `vicms info` say "partial: N of 8 cases", and no longer once the rerun has finished;
# (3) a periodic checkpoint (-cases_checkpoint_interval) is written while the case runs; after a SIGKILL the rerun resumes
#     from it ("resuming case 0 from t = ...") to results equal to an uninterrupted run.
# Nothing waits a fixed time: each signal is sent once a progress line or a checkpoint file shows the job is where it must be.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

rod="-mesh_line_cells 200 -mesh_line_length 10 -model_young 900 -model_density 1"
must "bar reduce (massless)" mpi 120 2 reduce $rod -cms_type cb_massless -cms_contact_nodes 1 -cms_num_modes 20 -cms_gravity -10,0,0 \
  -cms_outputs 1:x,201:x -rom_file bar.h5 || exit 1
must "bar reduce (cb)" mpi 120 2 reduce $rod -cms_type cb -cms_contact_nodes 1 -cms_num_modes 20 -cms_gravity -10,0,0 \
  -cms_outputs 1:x,201:x -rom_file barcb.h5 || exit 1

# same A.h5 B.h5: the two results files hold the same objects and values, wall times and the options string aside
same() {
  $py "$VICMS_SOURCE/tests/app/compare_results.py" "$1" "$2" --min-objects 31 --all-done --label "resumed"
}

# ---- (1) SIGTERM mid-case, then the same command again
# stop_case NAME NP ARGS...: the uninterrupted run NAME_full.h5, then the run to stop, SIGTERM to its ranks, the rerun
stop_case() {
  local name=$1 np=$2 pid rc
  shift 2
  must "$name: uninterrupted" mpi 300 "$np" simulate "$@" -results_file ${name}_full.h5 || return
  timeout 300 mpirun --oversubscribe -n "$np" "$VICMS_BIN" simulate "$@" -results_file $name.h5 -cases_progress_interval 0.2 >$name.log 2>&1 &
  pid=$!
  # the case is running once it reports how far it is
  if ! wait_for 120 grep -q "^  t = " $name.log; then
    echo "FAIL $name: no progress line"; cat $name.log; fail=1; kill $pid; return
  fi
  kill -TERM $(ranks_of $pid) # the ranks, as scancel and srun signal them
  wait $pid
  rc=$?
  expect "$name: exit status after SIGTERM mid-case (75: stopped, resumable)" $rc 75
  grep -E "^vicms: stopped by SIGTERM at t = [0-9.e+-]+ of case 0; 0 cases finished, 1 remaining; rerun the same command to resume" $name.log ||
    { echo "FAIL $name: no stop message:"; tail -5 $name.log; fail=1; }
  [ -f $name.h5.cases/0.ckpt.h5 ] && echo "ok   $name: checkpoint $name.h5.cases/0.ckpt.h5 written at the stop" ||
    { echo "FAIL $name: no checkpoint after the stop"; fail=1; }
  $py - $name.h5 <<'EOF' || fail=1
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    st = list(f["cases/status"][()])
print(("ok   " if st == [0] else "FAIL ") + "%s after the stop: statuses %s (expected [0], pending)" % (sys.argv[1], st))
raise SystemExit(0 if st == [0] else 1)
EOF
  must "$name: rerun" mpi 300 "$np" simulate "$@" -results_file $name.h5 || return
  grep "resuming case 0 from t = " <<<"$LAST" || { echo "FAIL $name: the rerun did not resume from the checkpoint"; fail=1; }
  [ -e $name.h5.cases ] && { echo "FAIL $name: the journal $name.h5.cases is left after the job completed"; fail=1; }
  same ${name}_full.h5 $name.h5 || fail=1
}
stop_case leapfrog1 1 -rom_file bar.h5 -case_loads gravity -contact_gap 5 -step_dt 2e-6 -step_end_time 6 -step_output_every 1000
# each case long enough (3 million steps, about 2 s) for the signal to come mid-case after its first progress line
stop_case moreau2 2 -rom_file barcb.h5 -step_type moreau -case_loads gravity -contact_gap 5 -step_dt 2e-5 -step_end_time 60 \
  -step_output_every 250 -cases_group_size 2

# ---- (2) SIGUSR1 to mpirun mid-ensemble, 2 ranks in 2 groups; each rank's exit status is kept by a wrapper (mpirun
# signals the wrapper's process group: the wrapper traps the signal and waits for vicms)
vicms_rank_wrapper
ejob="-rom_file bar.h5 -case_loads gravity -step_dt 5e-6 -step_end_time 3 -step_output_every 400 -cases_grid contact_gap:1:5:8
  -cases_progress_interval 0 -cases_merge_interval 600"
must "ensemble: uninterrupted" mpi 300 2 simulate $ejob -results_file ens_full.h5 -cases_quiet
# stop_ensemble NP GROUP_SIZE: 2 ranks in 2 groups; 3 ranks in a group of 2 and a group of 1
stop_ensemble() {
  local np=$1 gs=$2 name=ens$1 pid rc
  rm -f rc.*
  timeout 300 mpirun --oversubscribe -n $np bash rank.sh simulate $ejob -cases_group_size $gs -results_file $name.h5 >$name.log 2>&1 &
  pid=$!
  if ! wait_for 200 grep -q "cases 1/8 finished" $name.log; then
    echo "FAIL $name: no case finished"; tail -5 $name.log; fail=1; kill $pid; return
  fi
  kill -USR1 "$(mpirun_of $pid)"
  wait $pid
  rc=$?
  expect "$name: mpirun's exit status after SIGUSR1" $rc 75
  expect "$name: exit status of every rank" "$(cat rc.* 2>/dev/null | sort | uniq -c | xargs)" "$np 75"
  grep -E "^vicms: stopped by SIGUSR1 (at t = |between cases).*cases finished, [1-9][0-9]* remaining; rerun the same command to resume" $name.log ||
    { echo "FAIL $name: no stop message:"; tail -5 $name.log; fail=1; }
  # every finished case is in the results file, though the merge interval had not come
  $py - $name <<'EOF2' || fail=1
import re
import sys
import h5py
name = sys.argv[1]
log = open(name + ".log").read()
m = re.search(r"(\d+) cases finished, (\d+) remaining", log)
with h5py.File(name + ".h5", "r") as f:
    st = f["cases/status"][()]
done = int((st == 1).sum())
ok = m is not None and 0 < done < 8 and done == int(m.group(1)) and 8 - done == int(m.group(2))
print(("ok   " if ok else "FAIL ") + "%s: the stopped job merged its %d finished cases (the message says %s)" % (name, done, m.group(0) if m else "nothing"))
# the summaries are over the finished cases only, and say so
want = "partial: %d of 8 cases" % done
with h5py.File(name + ".h5", "r") as f:
    attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f["summary"].attrs.items()}
    stat = f["summary/statistics"].attrs["partial"]
    stat = stat.decode() if isinstance(stat, bytes) else stat
line = "Statistics over the done cases (%s):" % want
ok2 = line in log and attrs.get("partial") == want and attrs.get("n_cases_finished") == done and attrs.get("n_cases") == 8 and stat == want
print(("ok   " if ok2 else "FAIL ") + "%s: the summary line says '%s' (%s), summary/ says %s, summary/statistics '%s'" % (name, line, "found" if line in log else "NOT found", attrs, stat))
raise SystemExit(0 if ok and ok2 else 1)
EOF2
  out=$("$VICMS_BIN" info $name.h5 2>&1)
  grep -q "summaries partial: [1-7] of 8 cases (the job is not finished" <<<"$out" && echo "ok   vicms info $name.h5: $(grep -o 'summaries partial.*' <<<"$out")" ||
    { echo "FAIL vicms info $name.h5 does not say the summaries are partial:"; echo "$out" | head -3; fail=1; }
  must "$name: rerun" mpi 300 $np simulate $ejob -cases_group_size $gs -results_file $name.h5 || return
  grep -E "Running [0-9]+ of 8 cases" <<<"$LAST"
  grep -q "resuming case [0-9]* from t = " <<<"$LAST" && echo "ok   $name: the rerun resumed the stopped cases from their checkpoints" ||
    { echo "FAIL $name: the rerun resumed no case"; fail=1; }
  if ! grep -q "partial" <<<"$LAST" && ! "$VICMS_BIN" info $name.h5 | grep -q partial &&
    [ "$($py -c 'import h5py, sys; print(repr(h5py.File(sys.argv[1], "r")["summary"].attrs["partial"]))' $name.h5)" = "b''" ]; then
    echo "ok   $name: complete after the rerun, nothing says partial"
  else
    echo "FAIL $name: the complete job still says partial"; fail=1
  fi
  same ens_full.h5 $name.h5 || fail=1
}
stop_ensemble 2 1
stop_ensemble 3 2

# ---- (3) periodic checkpoint, SIGKILL, rerun
kjob="-rom_file bar.h5 -case_loads gravity -contact_gap 5 -step_dt 2e-6 -step_end_time 6 -step_output_every 1000"
cp leapfrog1_full.h5 kill_full.h5
timeout 300 mpirun --oversubscribe -n 1 "$VICMS_BIN" simulate $kjob -results_file kill.h5 -cases_checkpoint_interval 0.1 >kill.log 2>&1 &
pid=$!
if wait_for 120 test -f kill.h5.cases/0.ckpt.h5; then
  kill -KILL $(ranks_of $pid)
  wait $pid
  $py - <<'EOF' || fail=1
import h5py
with h5py.File("kill.h5.cases/0.ckpt.h5", "r") as f:
    fmt, t = f.attrs["format"], float(f.attrs["t"])
    fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
    ok = fmt == "vicms-checkpoint" and 0 < t < 6 and f["records/t"][-1] <= t
print(("ok   " if ok else "FAIL ") + "periodic checkpoint: format %s, taken at t = %g (expected 0 < t < 6)" % (fmt, t))
raise SystemExit(0 if ok else 1)
EOF
  # the interval does not enter the job fingerprint: another value resumes the same job
  must "SIGKILL: rerun" mpi 300 1 simulate $kjob -results_file kill.h5 -cases_checkpoint_interval 600
  grep "resuming case 0 from t = " <<<"$LAST" || { echo "FAIL SIGKILL: the rerun did not resume from the periodic checkpoint"; fail=1; }
  same kill_full.h5 kill.h5 || fail=1
else
  echo "FAIL SIGKILL: no periodic checkpoint"; tail -5 kill.log; fail=1; kill $pid
fi

# ---- bad value
out=$(mpi 60 1 simulate -rom_file bar.h5 -cases_checkpoint_interval -1 -results_file bad.h5 2>&1)
grep -q "cases_checkpoint_interval: got -1" <<<"$out" && echo "ok   -cases_checkpoint_interval -1 refused" ||
  { echo "FAIL -cases_checkpoint_interval -1:"; echo "$out" | tail -3; fail=1; }
exit $fail
