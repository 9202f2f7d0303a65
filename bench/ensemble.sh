#!/usr/bin/env bash
# Benchmark of ensembles (vicms simulate on rank groups, issue 5): cases per second on 1 and 2 ranks (groups of 1 rank)
# and the parallel efficiency at 2 ranks, (cases/s on 2) / (2 x cases/s on 1), for
#   - the plate sweep of the README's main job (jobs/plate_sweep.yaml), 64 frequencies, 2 s per case;
#   - the Rotor 37 blade rubbing case (jobs/blade_rubbing.yaml), 16 friction coefficients, 50 revolutions per case
#     (skipped when the deck is absent).
# Two times, best of three runs: the whole `mpirun ... vicms simulate` (MPI start-up, ROM load, scheduling, writing and
# merging included), and the ensemble's own phase (what vicms prints as "run now in X s": scheduling, stepping,
# writing, merging).
# usage: bash bench/ensemble.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build}/vicms
shared=${VICMS_SHARED:-$root/../shared}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_psec="${PMIX_MCA_psec:-^munge}" # no 2.3 s munge retry per start
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# best NP ARGS...: "WALL PHASE", the best times (ms) of three runs of `vicms simulate ARGS` on NP ranks
best() {
  local np=$1 t p bt="" bp=""
  shift
  for rep in 1 2 3; do
    local s=$(date +%s%N)
    mpirun -n "$np" "$bin" simulate "$@" -results_file r.h5 -results_overwrite -cases_quiet >sim.log 2>&1 || { tail -20 sim.log; exit 1; }
    t=$(( ($(date +%s%N) - s) / 1000000 ))
    p=$(sed -n 's/.* run now in \([0-9.]*\) s.*/\1/p' sim.log | awk '{printf "%d", $1 * 1000}')
    [ -z "$bt" ] || [ "$t" -lt "$bt" ] && bt=$t
    [ -z "$bp" ] || [ "$p" -lt "$bp" ] && bp=$p
  done
  echo "$bt $bp"
}
row() { # row NAME NCASES ARGS...
  local name=$1 n=$2
  shift 2
  local r1 r2
  r1=$(best 1 "$@")
  r2=$(best 2 "$@")
  /usr/bin/python3 -c "
n = $n
w1, p1 = [float(x) / 1000 for x in '$r1'.split()]
w2, p2 = [float(x) / 1000 for x in '$r2'.split()]
print(f'| $name | {n} | {w1:.2f} / {p1:.2f} | {n / p1:.2f} | {w2:.2f} / {p2:.2f} | {n / p2:.2f} | {100 * w1 / (2 * w2):.0f} % / {100 * p1 / (2 * p2):.0f} % |')"
}

echo "| job | cases | 1 rank: command / ensemble [s] | cases/s | 2 ranks: command / ensemble [s] | cases/s | efficiency at 2 ranks: command / ensemble |"
echo "|---|---|---|---|---|---|---|"
mpirun -n 2 "$bin" reduce -options_file "$root/jobs/plate_sweep.yaml" >reduce.log 2>&1 || { tail -20 reduce.log; exit 1; }
row "plate sweep (n = 23), 2 s per case" 64 -options_file "$root/jobs/plate_sweep.yaml" -cases_grid load_xmax_ymax_zmax_frequency:240:330:64 \
  -step_end_time 2
if [ -f "$shared/data/rotor37/blade.inp" ]; then
  job="-options_file $root/jobs/blade_rubbing.yaml -mesh_file $shared/data/rotor37/blade.inp"
  mpirun -n 2 "$bin" reduce $job >reduce.log 2>&1 || { tail -20 reduce.log; exit 1; }
  row "blade rubbing (n = 98), 50 revolutions per case" 16 $job -cases_grid contact_mu:0.05:0.2:16 -step_end_time 0.641025641025641
else
  echo "(the Rotor 37 deck is absent: no blade row)"
fi
