#!/usr/bin/env bash
# Issue 24 item 25: the work per step of nsgalpha and mixed on the Rubin blade, counted, not timed, in units of one BLAS dgemv of the
# ROM's size, for two builds. bench/step.sh times a step against a dgemv timed in the same run, and on a shared machine both move by
# tens of per cent; valgrind's callgrind counts the instructions executed inside the time loop (VIStepperRun) and inside the stepper's
# own dgemv timing (VIMatVecTime: 2,000 dgemv of n x n), which do not depend on the load. The dgemv unit is the count of one dgemv under
# valgrind (OpenBLAS picks its kernel for the CPU valgrind reports), so the ratio is that of the instructions, not of the times.
#   - the Rotor 37 blade of jobs/blade_rubbing.yaml reduced by Rubin's method (98 coordinates, 16 contacts with 3D friction), at 50,000
#     levels per revolution (every level recorded): a tenth of a revolution with the casing out of reach (-contact_gap 10: free
#     flight), a quarter of a revolution rubbing; nsgalpha (e = 0), mixed genalpha (e = 0.99), and in free flight mixed bathe and edalpha.
# usage: STEP_RUBIN=FILE [STEP_ROWS=REGEX] bash bench/step_instructions.sh BUILD_A BUILD_B   (STEP_RUBIN: the blade's Rubin ROM from
# `vicms reduce -options_file jobs/blade_rubbing.yaml -cms_type rubin`; STEP_ROWS: only the cases whose label matches)
set -uo pipefail
a=$(cd "${1:?BUILD_A}" && pwd)/vicms
b=$(cd "${2:?BUILD_B}" && pwd)/vicms
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rubin=$(cd "$(dirname "${STEP_RUBIN:?STEP_RUBIN=FILE, the Rubin ROM of the blade}")" && pwd)/$(basename "$STEP_RUBIN")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
job="-options_file $root/jobs/blade_rubbing.yaml -rom_file $rubin -results_file r.h5 -results_overwrite -step_dt 2.564102564102564e-07"
tenth=0.001282051282051282 quarter=0.0032051282051282

# instructions FUNCTION BIN ARGS...: the instructions executed inside FUNCTION (and what it calls)
instructions() {
  local fn=$1 bin=$2
  shift 2
  valgrind --tool=callgrind --toggle-collect="$fn" --callgrind-out-file=cg.out "$bin" "$@" >run.log 2>&1 || {
    echo "FAIL: $bin $*" >&2
    tail -5 run.log >&2
    return 1
  }
  grep -m1 "Collected :" run.log | awk '{print $NF}'
}

# one dgemv of the ROM's size under valgrind, per build (the stepper's timing loop: 2,000 products)
# shellcheck disable=SC2086
ua=$(instructions VIMatVecTime "$a" simulate $job -step_type nsgalpha -step_end_time 2.6e-7) || exit 1
# shellcheck disable=SC2086
ub=$(instructions VIMatVecTime "$b" simulate $job -step_type nsgalpha -step_end_time 2.6e-7) || exit 1
echo "A = $a: one dgemv 98 x 98 = $((ua / 2000)) instructions"
echo "B = $b: one dgemv 98 x 98 = $((ub / 2000)) instructions"
echo "| case | steps | contact solves | instructions per step A | B | per step in dgemv A | B | B/A |"
echo "|---|---|---|---|---|---|---|---|"

# count LABEL ARGS...: the time loop's instructions with A and with B
count() {
  local label=$1 ir=() steps="" solves=""
  shift
  [[ -z "${STEP_ROWS:-}" || "$label" =~ ${STEP_ROWS} ]] || return 0
  for bin in "$a" "$b"; do
    ir+=("$(instructions VIStepperRun "$bin" simulate "$@")") || return
    steps=$(grep -oE "[0-9]+ steps in" run.log | head -1 | cut -d' ' -f1)
    solves=$(grep -oE "[0-9]+ contact solves" run.log | head -1 | cut -d' ' -f1)
  done
  /usr/bin/python3 -c '
import sys
label, n, solves, x, y, ua, ub = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
print("| %s | %d | %s | %.0f | %.0f | %.2f | %.2f | %.3f |" % (label, n, solves, x / n, y / n, x / n / (ua / 2000), y / n / (ub / 2000), y / x))' \
    "$label" "$steps" "$solves" "${ir[0]}" "${ir[1]}" "$ua" "$ub"
}

# shellcheck disable=SC2086
{
  count "nsgalpha e = 0, free flight (gap 10 mm), 1/10 rev" $job -step_type nsgalpha -step_restitution 0 -step_end_time $tenth -contact_gap 10
  count "nsgalpha e = 0, rubbing, 1/4 rev" $job -step_type nsgalpha -step_restitution 0 -step_end_time $quarter
  count "mixed genalpha e = 0.99, free flight (gap 10 mm), 1/10 rev" $job -step_type mixed -step_restitution 0.99 -step_end_time $tenth \
    -contact_gap 10
  count "mixed genalpha e = 0.99, rubbing, 1/4 rev" $job -step_type mixed -step_restitution 0.99 -step_end_time $quarter
  count "mixed bathe e = 0.99, free flight (gap 10 mm), 1/10 rev" $job -step_type mixed -step_mixed_base bathe -step_restitution 0.99 \
    -step_end_time $tenth -contact_gap 10
  count "mixed edalpha e = 0.99, free flight (gap 10 mm), 1/10 rev" $job -step_type mixed -step_mixed_base edalpha -step_restitution 0.99 \
    -step_end_time $tenth -contact_gap 10
}
