#!/usr/bin/env bash
# On demand, not in CI: bring up a one-node SLURM on localhost (Debian slurm-wlm + munge) and submit both batch templates
# of jobs/slurm/ on a small job, including a clean stop by SIGUSR1 (as --signal=B:USR1@120 sends it) and the resume
# that follows. Needs root. Usage: bash bench/slurm.sh [BUILD_DIR]   (default ./build; prints a summary at the end)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
VICMS="$BUILD/vicms"
[ -x "$VICMS" ] || { echo "slurm.sh: no vicms executable at $VICMS (build first: bash scripts/test.sh -N)"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "slurm.sh: needs root (it starts munged, slurmctld and slurmd)"; exit 1; }

for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge; break; }
done

W=$(mktemp -d /tmp/vicms-slurm.XXXXXX)
mkdir -p "$W/etc" "$W/state" "$W/spool" "$W/log" "$W/run"
HOST=$(hostname -s)
CPUS=$(nproc)
MEM=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024))
cat >"$W/etc/slurm.conf" <<EOF
ClusterName=vicmslocal
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/run/slurmctld.pid
SlurmdPidFile=$W/run/slurmd.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobRequeue=1
ReturnToService=2
MpiDefault=none
SchedulerType=sched/builtin
KillWait=30
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=local Nodes=$HOST Default=YES MaxTime=INFINITE OverSubscribe=NO State=UP
EOF
export SLURM_CONF="$W/etc/slurm.conf"

pids=()
cleanup() {
  scancel --user=root >/dev/null 2>&1 || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 1
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

if ! pgrep -x munged >/dev/null; then
  [ -s /etc/munge/munge.key ] || { mungekey --create 2>/dev/null || /usr/sbin/mungekey --create; }
  mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
  if id munge >/dev/null 2>&1; then su -s /bin/sh munge -c /usr/sbin/munged || /usr/sbin/munged --force; else /usr/sbin/munged --force; fi
fi
slurmctld -D -f "$SLURM_CONF" >"$W/log/slurmctld.out" 2>&1 &
pids+=($!)
sleep 2
slurmd -D -f "$SLURM_CONF" >"$W/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
  sinfo -h -o '%t' 2>/dev/null | grep -q -E '^(idle|mix)' && break
  sleep 1
done
sinfo -h -o '%t' | grep -q -E '^(idle|mix)' || { echo "slurm.sh: the node did not come up:"; tail -20 "$W/log/"*.log; exit 1; }
echo "== one-node SLURM up: $(sinfo -h -o '%P %D nodes %c CPUs %t') (slurm $(sinfo -V | awk '{print $2}'))"

# the README's main job with longer cases (20 s each, about 2 s of computing): 32 cases, about 40 s on 2 ranks
cd "$W"
cp "$ROOT/jobs/plate_sweep.yaml" job.yaml
ARGS=(-step_end_time 20 -step_output_every 200 -rom_file rom.h5 -results_file results.h5)
cp "$ROOT"/jobs/slurm/*.sbatch .
export VICMS PROGRESS_INTERVAL=2   # sbatch passes the environment on: progress lines every 2 s
wait_job() { # job id -> waits until no task of it is pending or running
  while [ -n "$(squeue -h -j "$1" 2>/dev/null)" ]; do sleep 2; done
}
fail=0

echo "== 1. sbatch ensemble.sbatch, stopped by SIGUSR1 mid-run, requeued, finished"
sbatch --test-only --ntasks=64 ensemble.sbatch job.yaml 2>&1 | sed 's/^/   --test-only with 64 tasks: /' || true
j=$(sbatch --parsable --ntasks=2 ensemble.sbatch job.yaml "${ARGS[@]}")
out="vicms-vicms-$j.out"
for _ in $(seq 300); do grep -q -E "cases [1-9][0-9]*/32 finished" "$out" 2>/dev/null && break; sleep 1; done
scancel --batch --signal=USR1 "$j"
wait_job "$j"
sleep 1
grep -c "attempt" "$out" | sed 's/^/   attempts: /'
grep -E "^== |stopped|resum|Wrote|cases: .* done" "$out" | sed 's/^/   /' | tail -15
if grep -q "attempt 2" "$out" && grep -q "all cases done" "$out" && grep -q "stopped cleanly; requeueing" "$out"; then
  echo "   OK: clean stop (status 75), requeue, resume to completion"
else
  echo "   FAILED (log: $W/$out)"; fail=1
fi
/usr/bin/python3 - <<'EOF' || fail=1
import h5py
with h5py.File("results.h5") as f:
    st = f["cases/status"][:]
    print("   results.h5: %d cases, %d done" % (len(st), int(f.attrs["n_done"])))
    assert int(f.attrs["n_done"]) == len(st) == 32
EOF
mv results.h5 results_1.h5
rm -rf results.h5.cases

echo "== 2. sbatch --array=1-20%1 ensemble_array.sbatch, a stop in the first task, the chain resumes and cancels the rest"
j=$(sbatch --parsable --ntasks=2 --array=1-20%1 ensemble_array.sbatch job.yaml "${ARGS[@]}")
out1="vicms-vicms-chain-${j}_1.out"
for _ in $(seq 300); do grep -q -E "cases [1-9][0-9]*/32 finished" "$out1" 2>/dev/null && break; sleep 1; done
scancel --batch --signal=USR1 "${j}_1" || echo "   (scancel returned $? on an array task; the signal is delivered all the same)"
wait_job "$j"
sleep 1
ls vicms-vicms-chain-"${j}"_*.out | sed 's/^/   log: /'
grep -h -E "^== " vicms-vicms-chain-"${j}"_*.out | sed 's/^/   /'
ntasks=$(ls vicms-vicms-chain-"${j}"_*.out | wc -l)
if grep -q "stopped cleanly; the next task resumes" "$out1" && grep -h -q "all cases done" vicms-vicms-chain-"${j}"_*.out &&
  [ "$ntasks" -lt 20 ]; then
  echo "   OK: $ntasks of 20 array tasks ran; the rest were cancelled"
else
  echo "   FAILED"; fail=1
fi
/usr/bin/python3 - <<'EOF' || fail=1
import h5py, numpy as np
with h5py.File("results.h5") as a, h5py.File("results_1.h5") as b:
    assert int(a.attrs["n_done"]) == 32
    worst = 0.0
    for k in range(32):
        x, y = a["cases/%d/outputs" % k][:], b["cases/%d/outputs" % k][:]
        worst = max(worst, float(np.max(np.abs(x - y))))
    print("   results of the two chains: 32 cases each, largest difference of the recorded outputs %.3g" % worst)
    assert worst == 0.0
EOF

echo "== 3. a failing job: the chain stops at the first task"
j=$(sbatch --parsable --ntasks=2 --array=1-5%1 ensemble_array.sbatch job.yaml "${ARGS[@]}" -step_dtt 1)
wait_job "$j"
n=$(ls vicms-vicms-chain-"${j}"_*.out | wc -l)
tail -3 vicms-vicms-chain-"${j}"_1.out | sed 's/^/   /'
if [ "$n" -eq 1 ] && grep -q "vicms failed with status 1" vicms-vicms-chain-"${j}"_1.out; then
  echo "   OK: the failure is shown with its status and the 4 pending tasks were cancelled"
else
  echo "   FAILED: $n tasks ran"; fail=1
fi

echo "== 4. srun without --mpi=pmix (the plugin default here, as on a stock Debian SLURM: none)"
srun --ntasks=2 "$VICMS" modes -mesh_box_cells 2,2,4 -model_young 1 -model_density 1 -model_clamp zmin -modes_num 2 \
  -modes_file bare.h5 >bare.out 2>&1 && status=0 || status=$?
grep -E "partitioned|error|Error" bare.out | head -4 | sed 's/^/   /'
echo "   bare srun: exit status $status; $(grep -c 'partitioned over 2 ranks' bare.out) of 2 processes saw 2 ranks"
srun --mpi=pmix --ntasks=2 "$VICMS" modes -mesh_box_cells 2,2,4 -model_young 1 -model_density 1 -model_clamp zmin -modes_num 2 \
  -modes_file pmix.h5 >pmix.out 2>&1 && status=0 || status=$?
echo "   srun --mpi=pmix: exit status $status; $(grep -c 'partitioned over 2 ranks' pmix.out) line saying 2 ranks"
grep -q 'partitioned over 2 ranks' pmix.out || fail=1

echo "== 5. scancel: vicms stops cleanly (status 75) and the job is not requeued"
rm -rf results.h5 results.h5.cases
j=$(sbatch --parsable --ntasks=2 ensemble.sbatch job.yaml "${ARGS[@]}")
out="vicms-vicms-$j.out"
for _ in $(seq 300); do grep -q -E "cases [1-9][0-9]*/32 finished" "$out" 2>/dev/null && break; sleep 1; done
scancel "$j"
wait_job "$j"
sleep 1
grep -E "^== |stopped by" "$out" | sed 's/^/   /'
if grep -q "stopped by SIGTERM\|stopped by SIGUSR1" "$out" && grep -q "submit the same command to resume" "$out" && ! grep -q "attempt 2" "$out"; then
  echo "   OK: a cancelled job keeps its finished cases and checkpoints, and stays cancelled"
else
  echo "   FAILED"; fail=1
fi

echo "== logs and files in $W"
[ $fail -eq 0 ] && echo "slurm.sh: all checks passed" || echo "slurm.sh: some checks FAILED"
exit $fail
