#!/usr/bin/env bash
# Benchmark of harmonic balance ensembles (vicms hb on rank groups, issue 12): a 64-branch uncertainty-quantification
# job on the stop oscillator (scripts/write_user_rom.py stop; docs/hb.md), Monte Carlo samples of a uniform gap
# (0.8-1.2), a normal load level (mean 7.9, sd 0.4) and a uniform damping scale (0.5-2 times the ROM's damping,
# -case_damping_scale), H = 20, N = 256, 0.6-1.6 Hz, on 1 and 2 ranks
# (groups of 1 rank). Prints, best of three runs each, the ensemble phase (what vicms prints as "run now in X s":
# scheduling, continuation, writing, merging), its tail and last merge, and the parallel efficiency of the ensemble
# phase at 2 ranks, T(1) / (2 T(2)); and checks that the two results files are equal bitwise. Needs an idle machine:
# run on demand, not in CI.
# usage: bash bench/hb_uq.sh [BUILD_DIR]   (HB_UQ_SAMPLES=N: another number of branches; HB_UQ_ARGS adds options)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
$py "$root/scripts/write_user_rom.py" stop stop.h5
samples=${HB_UQ_SAMPLES:-64}
job="-rom_file stop.h5 -case_loads drive -load_drive_type harmonic -load_drive_amplitude 7.895683520871486 -load_drive_frequency 1
  -hb_freq_range 0.6,1.6 -hb_harmonics 20 -hb_samples 256 -hb_max_freq_step 0.002
  -cases_random contact_gap:uniform:0.8:1.2,load_drive_amplitude:normal:7.9:0.4,case_damping_scale:uniform:0.5:2 -cases_samples $samples -cases_seed 12
  -cases_merge_interval 10 -cases_quiet ${HB_UQ_ARGS:-}"

# run NP: the best "run now in X s" of three runs, with the tail and merge of that run
run() {
  local np=$1 best="" line t
  for _ in 1 2 3; do
    mpirun --oversubscribe -n "$np" "$bin" hb $job -results_file "uq$np.h5" -results_overwrite >"log$np" 2>&1
    line=$(grep -m1 "cases: .* run now in" "log$np")
    t=$(sed -n 's/.*run now in \([0-9.]*\) s.*/\1/p' <<<"$line")
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then
      best=$t
      cp "log$np" "best$np"
    fi
  done
  echo "$best"
}
t1=$(run 1)
t2=$(run 2)
printf "%d branches (H = 20, N = 256), stop oscillator, Monte Carlo over gap, load level and damping\n" "$samples"
for np in 1 2; do
  printf "  %d rank%s: %s\n" $np "$([ $np = 1 ] || echo s)" "$(grep -m1 'cases: .* run now in' best$np)"
done
awk -v a="$t1" -v b="$t2" 'BEGIN{printf "  parallel efficiency of the ensemble phase at 2 ranks: T1 / (2 T2) = %.3f / (2 x %.3f) = %.2f\n", a, b, a / (2 * b)}'
grep -A7 "^Statistics over the done cases" best1 | sed 's/^/  /'
$py "$root/tests/app/compare_results.py" uq1.h5 uq2.h5 --label "1 and 2 ranks" | sed 's/^/  /'
