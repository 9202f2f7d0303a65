#!/usr/bin/env bash
# Benchmark of `vicms slide` (the VIDual step, seed 003 §2.2) on the beam-on-beam job: a 0.01 s window at mu = 0.3 from
# s = 138 mm (130,000 steps, the random force of 2000 harmonics, a record every 261 steps), REPS runs on one rank; the cost of
# a step in BLAS dgemv of the coupled system's size (248 x 248), both timed in the same run ("time per step" line).
# usage: bash bench/slide.sh [BUILD_DIR] [REPS]     (copy the table into bench/RESULTS.md with machine and date)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
reps=${2:-5}
job=$root/jobs/beam_on_beam.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mpirun -n 1 "$bin" reduce -options_file "$job" >reduce.log 2>&1 || { tail -20 reduce.log; exit 1; }
echo "| run | time per step [s] | dgemv 248 x 248 per step |"
echo "|---|---|---|"
for r in $(seq "$reps"); do
  "$bin" slide -options_file "$job" -dual_mu 0.3 -slide_start 138 -slide_end_time 0.01 -dual_start static -slide_file s.h5 >log.txt 2>&1 ||
    { tail -20 log.txt; exit 1; }
  sed -n "s/^  time per step: \([^ ]*\) s = \([^ ]*\) BLAS.*/| $r | \1 | \2 |/p" log.txt
done
