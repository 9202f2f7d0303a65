#!/usr/bin/env bash
# One job per results file (issue 10, item 2), on the bouncing-bar ROM of seed 000 §5.1:
# (1) a second job on a results file that a running job holds stops at once, naming the file, the process, the host
#     and since when; the first job's results equal a lone run's (every dataset and attribute but wall times);
# (2) a lock whose process no longer runs on this host is taken over with a notice; one of another host is not (the
#     message says how to remove it);
# (3) the lock goes on every exit path: after a job refused as another job's, after a finished job.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

must "bar reduce" mpi 120 1 reduce -mesh_line_cells 200 -mesh_line_length 10 -model_young 900 -model_density 1 -cms_type cb_massless \
  -cms_contact_nodes 1 -cms_num_modes 20 -cms_gravity -10,0,0 -cms_outputs 1:x,201:x -rom_file bar.h5 || exit 1
job="-rom_file bar.h5 -case_loads gravity -step_dt 5e-6 -step_end_time 3 -step_output_every 400 -cases_grid contact_gap:1:5:16
  -cases_merge_interval 0.5 -cases_quiet"
host=$(hostname)

# ---- (1) two jobs on one file
must "lone run" mpi 300 2 simulate $job -results_file lone.h5
mpirun --oversubscribe -n 2 "$VICMS_BIN" simulate $job -results_file shared.h5 >first.log 2>&1 &
first=$!
for _ in $(seq 1 300); do
  sleep 0.05
  [ -s shared.h5.lock ] && break
done
pid=$(sed -n 's/^pid //p' shared.h5.lock)
# hold the first job while the second ones try (a fast machine could finish it first): SIGSTOP its ranks, then SIGCONT
ranks=$(pgrep -P $first)
[ -n "$ranks" ] && kill -STOP $ranks
for second in "$job" "$job -contact_mu 0.1"; do
  out=$(mpi 120 2 simulate $second -results_file shared.h5 2>&1)
  rc=$?
  running=$(kill -0 $first 2>/dev/null && echo yes)
  if [ $rc -ne 0 ] && [ "$running" = yes ] &&
    grep -q "vicms: error: shared.h5 is in use by another job: process $pid on this host ($host), since [0-9-]* [0-9:]* (.*simulate.*-results_file shared.h5)" <<<"$out"; then
    echo "ok   the second job stops at once (exit $rc) while the first runs: $(grep -m1 -o 'shared.h5 is in use.*since [0-9-]* [0-9:]*' <<<"$out")"
  else
    echo "FAIL the second job (exit $rc, first running: ${running:-no}):"; echo "$out" | head -4; fail=1
  fi
done
[ -n "$ranks" ] && kill -CONT $ranks
wait $first || { echo "FAIL the first job failed:"; tail -5 first.log; fail=1; }
[ -e shared.h5.lock ] && { echo "FAIL shared.h5.lock is left after the first job ended"; fail=1; }
$py "$VICMS_SOURCE/tests/app/compare_results.py" lone.h5 shared.h5 --min-objects 101 --all-done --label "the first job, the lone run as reference" || fail=1

# ---- (2) stale locks
sh -c 'exit 0' &
dead=$!
wait $dead
printf 'pid %s\nhost %s\nsince 1700000000\ncommand vicms simulate (killed)\n' "$dead" "$host" >stale.h5.lock
must "a stale lock of this host" mpi 300 2 simulate $job -results_file stale.h5
if grep -q "Taking over the lock stale.h5.lock of process $dead (since 2023-11-1[45] [0-9:]*), which no longer runs on this host" <<<"$LAST" &&
  [ ! -e stale.h5.lock ] && [ -f stale.h5 ]; then
  echo "ok   a stale lock of this host taken over with a notice, the job done, the lock gone"
else
  echo "FAIL stale lock:"; echo "$LAST" | head -4; fail=1
fi
printf 'pid 1\nhost elsewhere.example\nsince 1700000000\ncommand vicms run\n' >far.h5.lock
out=$(mpi 120 2 simulate $job -results_file far.h5 2>&1) && { echo "FAIL a lock of another host was taken over"; fail=1; }
if grep -q "far.h5 is in use by another job: process 1 on host elsewhere.example, since .* if that job is dead, remove the lock far.h5.lock and run again" <<<"$out" &&
  [ -f far.h5.lock ] && [ ! -e far.h5 ]; then
  echo "ok   a lock of another host is kept, the message says how to remove it"
else
  echo "FAIL lock of another host:"; echo "$out" | head -4; fail=1
fi

# ---- (3) released on an error
out=$(mpi 120 2 simulate $job -contact_mu 0.2 -results_file lone.h5 2>&1) && { echo "FAIL another job on lone.h5 was accepted"; fail=1; }
if grep -q "lone.h5 holds the results of another job" <<<"$out" && [ ! -e lone.h5.lock ]; then
  echo "ok   a job refused after taking the lock leaves no lock behind"
else
  echo "FAIL error path:"; echo "$out" | head -3; ls lone.h5*; fail=1
fi

[ $fail -eq 0 ] && echo "lock: all checks passed"
exit $fail
