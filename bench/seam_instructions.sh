#!/usr/bin/env bash
# Issue 23 §1: the work per step of two builds, counted, not timed. On a machine shared with other jobs the wall time of a
# run moves by tens of per cent from one run to the next (bench/step.sh), which hides a change of a few per cent; the
# number of instructions executed does not depend on the load. Each case runs under valgrind's callgrind with the
# collection on only inside the time loop (VIStepperRun for `vicms simulate`, VIDualStep for `vicms slide`), once per
# build, and the script prints both counts, the count per step and the ratio B/A.
#   - the bouncing bar (jobs/bar_bounce.yaml, cb_massless, 20 modes): leapfrog, 2 s (20,000 steps, impacts from t = 1 s);
#   - the Rotor 37 blade of jobs/blade_rubbing.yaml reduced by Rubin's method (98 coordinates, 16 contacts with 3D
#     friction): symmetric Moreau at 20,000 levels per revolution, nsgalpha (e = 0) and mixed (genalpha, e = 0.99) at
#     50,000, a quarter of a revolution (rubbing);
#   - vicms slide on the coarse beams of tests/app/slide.sh, mu = 0.3 with the random force, 2,000 steps (inside VIDualStep),
#     and its whole loop per step (the whole program counted for 4,000 and 2,000 steps, the difference over 2,000).
# usage: [SEAM_RUBIN=FILE] [SEAM_ROWS=REGEX] bash bench/seam_instructions.sh BUILD_A BUILD_B   (SEAM_RUBIN: the blade's Rubin ROM
# reduced before; SEAM_ROWS: only the cases whose label matches)
set -uo pipefail
a=$(cd "${1:?BUILD_A}" && pwd)/vicms
b=$(cd "${2:?BUILD_B}" && pwd)/vicms
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared=${VICMS_SHARED:-$root/../shared}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PMIX_MCA_psec="${PMIX_MCA_psec:-^munge}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
echo "A = $a"
echo "B = $b"
echo "| case | steps | contact solves | instructions A | instructions B | per step A | per step B | B/A |"
echo "|---|---|---|---|---|---|---|---|"

# count LABEL FUNCTION ARGS...: the instructions inside FUNCTION with A and with B
count() {
  local label=$1 fn=$2
  shift 2
  local ir=() steps="" solves=""
  [[ -z "${SEAM_ROWS:-}" || "$label" =~ ${SEAM_ROWS} ]] || return 0
  for bin in "$a" "$b"; do
    valgrind --tool=callgrind --toggle-collect="$fn" --callgrind-out-file=cg.out "$bin" "$@" >run.log 2>&1 || {
      echo "FAIL $label: exit status $?"
      tail -5 run.log
      return
    }
    ir+=("$(grep -m1 "Collected :" run.log | awk '{print $NF}')")
    steps=$(grep -oE "[0-9]+ steps in" run.log | head -1 | cut -d' ' -f1)
    solves=$(grep -oE "[0-9]+ contact solves" run.log | head -1 | cut -d' ' -f1)
  done
  [ -z "$steps" ] && steps=$(grep -oE "^Slide done: [0-9]+ steps" run.log | grep -oE "[0-9]+" | head -1)
  /usr/bin/python3 -c '
import sys
label, steps, solves, x, y = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
n = int(steps) if steps else 0
per = lambda v: "%.0f" % (v / n) if n else "-"
print("| %s | %s | %s | %d | %d | %s | %s | %.4f |" % (label, steps or "-", solves or "-", x, y, per(x), per(y), y / x))' "$label" "$steps" "$solves" "${ir[0]}" "${ir[1]}"
}

"$a" reduce -options_file "$root/jobs/bar_bounce.yaml" -rom_file bar.h5 >reduce_bar.log 2>&1 || { tail -5 reduce_bar.log; exit 1; }
count "bar, leapfrog, 2 s" VIStepperRun simulate -options_file "$root/jobs/bar_bounce.yaml" -rom_file bar.h5 -step_end_time 2 \
  -results_file r.h5 -results_overwrite

if [ -n "${SEAM_RUBIN:-}" ]; then
  cp "$SEAM_RUBIN" rub.h5
elif [ -f "$shared/data/rotor37/blade.inp" ]; then
  mpirun -n 2 "$a" reduce -options_file "$root/jobs/blade_rubbing.yaml" -mesh_file "$shared/data/rotor37/blade.inp" -cms_type rubin \
    -rom_file rub.h5 >reduce_rubin.log 2>&1 || { tail -5 reduce_rubin.log; exit 1; }
fi
if [ -f rub.h5 ]; then
  job="-options_file $root/jobs/blade_rubbing.yaml -rom_file rub.h5 -results_file r.h5 -results_overwrite"
  quarter=0.0032051282051282 # a quarter of a revolution at 2 pi 312/4 rad/s
  # shellcheck disable=SC2086
  {
    count "blade Rubin, symmetric Moreau, 20,000 levels/rev" VIStepperRun simulate $job -step_type moreau -step_restitution 0.99 \
      -step_dt 6.41025641025641e-07 -step_end_time $quarter
    count "blade Rubin, nsgalpha e = 0, 50,000 levels/rev" VIStepperRun simulate $job -step_type nsgalpha -step_restitution 0 \
      -step_dt 2.564102564102564e-07 -step_end_time $quarter
    count "blade Rubin, mixed genalpha e = 0.99, 50,000 levels/rev" VIStepperRun simulate $job -step_type mixed -step_restitution 0.99 \
      -step_dt 2.564102564102564e-07 -step_end_time $quarter
  }
fi

source "$root/bench/slide_beams.sh"
small=$slide_beams
# shellcheck disable=SC2086
mpirun -n 2 "$a" reduce $small >reduce_small.log 2>&1 || { tail -5 reduce_small.log; exit 1; }
# shellcheck disable=SC2086
count "slide, mu = 0.3, random force, 2,000 steps" VIDualStep slide -rom_file small.h5 -slide_slave beam1:1 -slide_master beam2 \
  -slide_drive beam1 -slide_drive_velocity 30 -slide_preload 0,-2 -slide_end_time 2e-4 -dual_dt 1e-7 -slide_record_interval 1e-6 \
  -slide_noise_rms 0.01 -slide_noise_band 2000,8000 -slide_noise_harmonics 13 -slide_seed 7 -dual_mu 0.3 -slide_file s.h5 -results_overwrite

# the whole slide loop per step (the step, the level's bookkeeping, the records; not only VIDualStep): the whole program
# counted for 4,000 and for 2,000 steps, the difference over 2,000 (set-up and output cancel)
slide_loop() {
  local label="slide, the whole loop per step (4,000 - 2,000 steps)" ir=()
  [[ -z "${SEAM_ROWS:-}" || "$label" =~ ${SEAM_ROWS} ]] || return 0
  for bin in "$a" "$b"; do
    for end in 2e-4 4e-4; do
      # shellcheck disable=SC2086
      valgrind --tool=callgrind --callgrind-out-file=cg.out "$bin" slide -rom_file small.h5 -slide_slave beam1:1 -slide_master beam2 \
        -slide_drive beam1 -slide_drive_velocity 30 -slide_preload 0,-2 -slide_end_time $end -dual_dt 1e-7 -slide_record_interval 1e-6 \
        -slide_noise_rms 0.01 -slide_noise_band 2000,8000 -slide_noise_harmonics 13 -slide_seed 7 -dual_mu 0.3 -slide_file s.h5 \
        -results_overwrite >run.log 2>&1 || { echo "FAIL $label: exit status $?"; tail -5 run.log; return; }
      ir+=("$(grep -m1 "Collected :" run.log | awk '{print $NF}')")
    done
  done
  /usr/bin/python3 -c '
import sys
label, a2, a4, b2, b4 = sys.argv[1], *map(int, sys.argv[2:])
x, y = a4 - a2, b4 - b2
print("| %s | 2000 | - | %d | %d | %.0f | %.0f | %.4f |" % (label, x, y, x / 2000, y / 2000, y / x))' "$label" "${ir[@]}"
}
slide_loop
