#!/usr/bin/env bash
# One job per results file (issue 10, item 2), on the bouncing-bar ROM of seed 000 §5.1:
# (1) a second job on a results file that a running job holds stops at once, naming the file, the process, the host
#     and since when; the first job's results equal a lone run's (every dataset and attribute but wall times);
# (2) a lock whose process no longer runs on this host is taken over with a notice; one of another host is not (the
#     message says how to remove it);
# (3) the lock goes on every exit path: after a job refused as another job's, after a finished job;
# (4) SLURM (issue 24 item 9, the environment faked with mpirun -x): the lock records the job id, restart count, array job
#     and task ids; a lock left on another host by the same job's earlier incarnation is taken over with a notice naming
#     it: the job requeued (same SLURM_JOB_ID, a larger SLURM_RESTART_COUNT), the next task of the same array (same
#     SLURM_ARRAY_JOB_ID, another SLURM_ARRAY_TASK_ID); another job's, the same incarnation's (a concurrent step) and the
#     same array task's are refused.
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

# ---- (4) SLURM: the same job takes its lock over on another node
sjob="-rom_file bar.h5 -case_loads gravity -step_dt 1e-3 -step_end_time 0.05 -cases_grid contact_gap:1:5:4 -cases_quiet"
mpirun --oversubscribe -n 2 -x SLURM_JOB_ID=4242 -x SLURM_RESTART_COUNT=2 -x SLURM_ARRAY_JOB_ID=4240 -x SLURM_ARRAY_TASK_ID=7 \
  "$VICMS_BIN" simulate $job -results_file rec.h5 >rec.log 2>&1 &
rec=$!
wait_for 60 grep -q "^command " rec.h5.lock
got=$(grep "^slurm_" rec.h5.lock | tr '\n' ' ')
wait $rec || { echo "FAIL the job with a SLURM environment failed:"; tail -3 rec.log; fail=1; }
expect "the lock records the SLURM job" "$got" "slurm_job_id 4242 slurm_restart_count 2 slurm_array_job_id 4240 slurm_array_task_id 7 "
# slurm_lock NAME WHAT LOCK_LINES ENV...: a lock of host elsewhere.example holding LOCK_LINES, and the job with ENV
slurm_lock() {
  local name=$1
  shift
  printf 'pid 1\nhost elsewhere.example\nsince 1700000000\n%bcommand vicms run\n' "$1" >$name.h5.lock
  shift
  out=$(timeout 120 mpirun --oversubscribe -n 2 "$@" "$VICMS_BIN" simulate $sjob -results_file $name.h5 2>&1)
}
slurm_lock requeued 'slurm_job_id 4242\nslurm_restart_count 0\n' -x SLURM_JOB_ID=4242 -x SLURM_RESTART_COUNT=1
if grep -q "Taking over the lock requeued.h5.lock of process 1 on host elsewhere.example (since 2023-11-1[45] [0-9:]*): the same job, SLURM job 4242, requeued (restart 0, this is restart 1)" <<<"$out" &&
  [ -f requeued.h5 ] && [ ! -e requeued.h5.lock ]; then
  echo "ok   a requeued job takes over its own lock from another host: $(grep -o 'the same job.*' <<<"$out")"
else
  echo "FAIL requeued job:"; echo "$out" | head -4; fail=1
fi
slurm_lock array 'slurm_job_id 5000\nslurm_restart_count 0\nslurm_array_job_id 4990\nslurm_array_task_id 3\n' \
  -x SLURM_JOB_ID=5001 -x SLURM_ARRAY_JOB_ID=4990 -x SLURM_ARRAY_TASK_ID=4
if grep -q "Taking over the lock array.h5.lock of process 1 on host elsewhere.example (since .*): the same job, task 3 of SLURM array job 4990, this is task 4" <<<"$out" &&
  [ -f array.h5 ] && [ ! -e array.h5.lock ]; then
  echo "ok   the next array task takes over the lock of the one before from another host"
else
  echo "FAIL next array task:"; echo "$out" | head -4; fail=1
fi
for other in "another job|slurm_job_id 4242\nslurm_restart_count 0\n|-x SLURM_JOB_ID=4243 -x SLURM_RESTART_COUNT=1" \
  "the same incarnation (a concurrent step)|slurm_job_id 4242\nslurm_restart_count 1\n|-x SLURM_JOB_ID=4242 -x SLURM_RESTART_COUNT=1" \
  "the same array task|slurm_job_id 5000\nslurm_array_job_id 4990\nslurm_array_task_id 3\n|-x SLURM_JOB_ID=5002 -x SLURM_ARRAY_JOB_ID=4990 -x SLURM_ARRAY_TASK_ID=3" \
  "outside SLURM|slurm_job_id 4242\nslurm_restart_count 0\n|"; do
  IFS='|' read -r what lines env <<<"$other"
  slurm_lock other "$lines" $env
  if [ -f other.h5.lock ] && [ ! -e other.h5 ] && grep -q "other.h5 is in use by another job: process 1 on host elsewhere.example" <<<"$out"; then
    echo "ok   $what: refused, the lock kept"
  else
    echo "FAIL $what: taken over or no message:"; echo "$out" | head -3; fail=1
  fi
  rm -f other.h5*
done

[ $fail -eq 0 ] && echo "lock: all checks passed"
exit $fail
