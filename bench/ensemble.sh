#!/usr/bin/env bash
# Benchmark of ensembles (vicms simulate on rank groups, issues 5 and 11): cases per second on 1 and 2 ranks (groups of 1
# rank) and the parallel efficiency at 2 ranks, T(1 rank) / (2 T(2 ranks)), with the cases handed out in index order
# (-cases_order index, as before issue 11) and longest first (-cases_order longest_first, the default), for
#   - the plate sweep of the README's main job (jobs/plate_sweep.yaml), 64 frequencies, 2 s per case;
#   - the plate sweep with unequal cases: 16 frequencies x end times 0.5/1/2/4 s (the longest last in index order);
#   - the Rotor 37 blade rubbing case (jobs/blade_rubbing.yaml), 16 friction coefficients, 50 revolutions per case;
#   - the blade with unequal cases: end times of 10/20/40/80 revolutions x 4 friction coefficients
#     (the blade rows are skipped when the deck is absent);
#   - UQ-sized ensembles of both (plate_uq: 256 frequencies; blade_uq: 64 friction coefficients x 50 revolutions) keeping
#     the statistics and not the series (-cases_keep_series false), as a study of thousands of cases would.
# Two times, best of three runs: the whole `mpirun ... vicms simulate` (MPI start-up, ROM load, scheduling, writing and
# merging included), and the ensemble's own phase (what vicms prints as "run now in X s": scheduling, stepping,
# writing, merging); of the latter, the tail (vicms's "tail X s": from the first group told that no case is left to the
# end of the last case) and the last merge into the results file on rank 0 (serial; "last merge X s"); and, from the
# 2-rank run alone (so less sensitive to other processes than the ratio of two runs), the share of the ensemble phase the
# two groups spent stepping cases: sum of cases/wall_time / (2 x phase).
# usage: bash bench/ensemble.sh [BUILD_DIR]   (ENSEMBLE_KEEP=DIR keeps the ROMs in DIR and reuses them; ENSEMBLE_ROWS="plate
# plate_unequal blade blade_unequal" chooses the rows; ENSEMBLE_ARGS adds options to every run)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
if [ -n "${ENSEMBLE_KEEP:-}" ]; then
  mkdir -p "$ENSEMBLE_KEEP"
  work=$(cd "$ENSEMBLE_KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
cd "$work"
rows=${ENSEMBLE_ROWS:-plate plate_unequal plate_uq blade blade_unequal blade_uq}
want() { [[ " $rows " == *" $1 "* ]]; }

# best NP ARGS...: "WALL PHASE TAIL MERGE BUSY" (ms): the best command time of three runs of `vicms simulate ARGS` on NP
# ranks, and of the run with the best ensemble phase: the phase, its tail (groups idle while the last cases ran), its last
# merge, and the sum of the cases' own wall times (cases/wall_time: the time the groups spent stepping)
best() {
  local np=$1 t bt="" bp="" brest=""
  shift
  for rep in 1 2 3; do
    local s=$(date +%s%N)
    mpirun -n "$np" "$bin" simulate "$@" ${ENSEMBLE_ARGS:-} -results_file r.h5 -results_overwrite -cases_quiet >sim.log 2>&1 || { tail -20 sim.log; exit 1; }
    t=$(( ($(date +%s%N) - s) / 1000000 ))
    read -r p rest <<<"$(/usr/bin/python3 -c "
import re, h5py
l = [x for x in open('sim.log') if ' run now in ' in x][0]
g = lambda pat: float(re.search(pat, l).group(1)) if re.search(pat, l) else 0.0
busy = float(h5py.File('r.h5', 'r')['cases/wall_time'][()].sum())
print(int(1000 * g(r'run now in ([0-9.]+) s')), int(1000 * g(r'tail ([0-9.]+) s')), int(1000 * g(r'last merge ([0-9.]+) s')), int(1000 * busy))")"
    [ -z "$bt" ] || [ "$t" -lt "$bt" ] && bt=$t
    if [ -z "$bp" ] || [ "$p" -lt "$bp" ]; then bp=$p; brest=$rest; fi
  done
  echo "$bt $bp $brest"
}
row() { # row NAME NCASES ARGS...: one table line per order
  local name=$1 n=$2
  shift 2
  for order in index longest_first; do
    local r1 r2
    r1=$(best 1 "$@" -cases_order $order) || { echo "$r1"; exit 1; }
    r2=$(best 2 "$@" -cases_order $order) || { echo "$r2"; exit 1; }
    /usr/bin/python3 -c "
n = $n
w1, p1, _, m1, _ = [float(x) / 1000 for x in '$r1'.split()]
w2, p2, t2, m2, b2 = [float(x) / 1000 for x in '$r2'.split()]
print(f'| $name | {n} | $order | {w1:.2f} / {p1:.2f} | {w2:.2f} / {p2:.2f} | {t2:.2f} | {m1:.2f} / {m2:.2f} | {100 * b2 / (2 * p2):.0f} % | {100 * w1 / (2 * w2):.0f} % / {100 * p1 / (2 * p2):.0f} % / {100 * (p1 - m1) / (2 * (p2 - m2)):.0f} % |')"
  done
}
# rom NAME ARGS...: reduce on 2 ranks into NAME.h5, unless a finished reduction left it there (ENSEMBLE_KEEP)
rom() {
  local name=$1
  shift
  [ -f "$name.h5" ] && grep -q "^Wrote $name.h5" "$name.log" 2>/dev/null && return
  mpirun -n 2 "$bin" reduce "$@" -rom_file "$name.h5" >"$name.log" 2>&1 || { tail -20 "$name.log"; exit 1; }
}

echo "load before: $(uptime)"
echo "| job | cases | order | 1 rank: command / ensemble [s] | 2 ranks: command / ensemble [s] | 2 ranks: tail [s] | last merge, 1 / 2 ranks [s] | 2 ranks: stepping / (2 x ensemble) | efficiency at 2 ranks: command / ensemble / ensemble without the last merge |"
echo "|---|---|---|---|---|---|---|---|---|"
plate="-options_file $root/jobs/plate_sweep.yaml -rom_file plate.h5"
if want plate || want plate_unequal || want plate_uq; then rom plate -options_file "$root/jobs/plate_sweep.yaml"; fi
want plate && row "plate sweep (n = 23), 2 s per case" 64 $plate -cases_grid load_xmax_ymax_zmax_frequency:240:330:64 -step_end_time 2
want plate_uq && row "plate sweep, 256 frequencies x 2 s, no series" 256 $plate -cases_grid load_xmax_ymax_zmax_frequency:240:330:256 \
  -step_end_time 2 -cases_keep_series false
want plate_unequal && row "plate sweep, 0.5/1/2/4 s per case" 64 $plate -cases_grid '' \
  -cases_values step_end_time:0.5/1/2/4,load_xmax_ymax_zmax_frequency:240/246/252/258/264/270/276/282/288/294/300/306/312/318/324/330
if [ -f "$shared/data/rotor37/blade.inp" ]; then
  blade="-options_file $root/jobs/blade_rubbing.yaml -mesh_file $shared/data/rotor37/blade.inp -rom_file blade.h5"
  if want blade || want blade_unequal || want blade_uq; then rom blade $blade; fi
  want blade && row "blade rubbing (n = 98), 50 revolutions per case" 16 $blade -cases_grid contact_mu:0.05:0.2:16 -step_end_time 0.641025641025641
  # one revolution: 2 pi / (2 pi 312 / 4) s
  want blade_unequal && row "blade rubbing, 10/20/40/80 revolutions per case" 16 $blade \
    -cases_values step_end_time:0.1282051282051282/0.2564102564102564/0.5128205128205128/1.0256410256410255,contact_mu:0.05/0.1/0.15/0.2
  # the ensembles of a UQ study: more cases, statistics kept and series not (-cases_keep_series false), so that the parts
  # that do not parallelize (starting the groups, writing and merging cases) weigh what they weigh in a long job
  want blade_uq && row "blade rubbing, 64 friction coefficients x 50 revolutions, no series" 64 $blade \
    -cases_grid contact_mu:0.05:0.2:64 -step_end_time 0.641025641025641 -cases_keep_series false
else
  echo "(the Rotor 37 deck is absent: no blade rows)"
fi
echo "load after: $(uptime)"
