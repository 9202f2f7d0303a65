#!/usr/bin/env bash
# Benchmark of the automatic time step (issue 11) on the Rotor 37 blade rubbing an oval casing (seed 000 §5.3,
# jobs/blade_rubbing.yaml: MacNeal ROM, 50 modes + 48 boundary coordinates, leapfrog, frictional sliding contacts):
#   1. the stability limit that -step_dt auto computes from the ROM (before the safety factor), and the step it takes;
#   2. the largest stable step found by trial: bisection on the number of time levels per revolution, each trial a run
#      of REVS revolutions (default 50) that either finishes or is stopped by the blow-up detection ("unstable");
#   3. the ratio of the two (target: within 10 %), and a run at the auto step.
# usage: bash bench/autostep.sh [BUILD_DIR]    (ROM=PATH reuses a MacNeal ROM of the job instead of reducing; REVS=N)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
revs=${REVS:-50}
[ -f "$deck" ] || { echo "the Rotor 37 deck is absent ($deck): nothing to measure"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
job="-options_file $root/jobs/blade_rubbing.yaml -mesh_file $deck"
if [ -n "${ROM:-}" ]; then
  rom=$(cd "$(dirname "$ROM")" && pwd)/$(basename "$ROM")
else
  rom=$work/mac.h5
  mpirun -n 2 "$bin" reduce $job -rom_file "$rom" >reduce.log 2>&1 || { tail -20 reduce.log; exit 1; }
fi
rev=$($py -c 'import math; print(repr(2 * math.pi / (2 * math.pi * 312 / 4)))') # one revolution, s
end=$($py -c "print(repr($revs * $rev))")

# 1. the automatic step (a one-level run: only its first line matters)
"$bin" info "$rom" | sed -n '/stable step/,$p'
"$bin" simulate $job -rom_file "$rom" -step_dt auto -step_end_time "$rev" -results_file auto.h5 -results_overwrite >auto.log 2>&1 ||
  { tail -20 auto.log; exit 1; }
line=$(grep -m1 '^-step_dt auto' auto.log)
echo "$line"
limit=$($py -c "import re, sys; print(re.search(r'stability limit ([0-9.e+-]+) s', sys.argv[1]).group(1))" "$line")
auto=$($py -c "import re, sys; print(re.search(r'auto: ([0-9.e+-]+) s', sys.argv[1]).group(1))" "$line")

# 2. bisection on the levels per revolution: lo unstable, hi stable
stable() { # levels per revolution -> 0 when a run of $revs revolutions finishes
  local dt
  dt=$($py -c "print(repr($rev / $1))")
  "$bin" simulate $job -rom_file "$rom" -step_dt "$dt" -step_end_time "$end" -results_file trial.h5 -results_overwrite -cases_quiet >trial.log 2>&1 ||
    { tail -20 trial.log; exit 1; }
  if grep -q "1 cases: 1 done" trial.log; then echo "  $1 levels/rev (dt $dt): stable" >&2; return 0; fi
  echo "  $1 levels/rev (dt $dt): $(grep -m1 -o 'unstable at t = [0-9.e+-]*' trial.log || echo failed)" >&2
  return 1
}
lo=600
hi=1200
stable $lo && { echo "$lo levels per revolution is stable: widen the bracket"; exit 1; }
stable $hi || { echo "$hi levels per revolution is unstable: widen the bracket"; exit 1; }
while [ $((hi - lo)) -gt 1 ]; do
  mid=$(((lo + hi) / 2))
  if stable $mid; then hi=$mid; else lo=$mid; fi
done

# 3. the comparison, and one run at the auto step over the same revolutions
"$bin" simulate $job -rom_file "$rom" -step_dt auto -step_end_time "$end" -results_file auto.h5 -results_overwrite -cases_quiet >auto_run.log 2>&1 ||
  { tail -20 auto_run.log; exit 1; }
$py - "$rev" "$hi" "$limit" "$auto" "$revs" "$(grep -c '1 cases: 1 done' auto_run.log)" <<'PY'
import sys
rev, n_trial, limit, auto, revs, ok = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1"
dt_trial = rev / n_trial
print("| quantity | levels per revolution | time step [s] |")
print("|---|---|---|")
print(f"| largest stable step by trial ({revs} revolutions, bisection to 1 level) | {n_trial} | {dt_trial:.5g} |")
print(f"| stability limit computed by -step_dt auto (2 / omega_max, normal rows held) | {rev / limit:.1f} | {limit:.5g} |")
print(f"| step taken by -step_dt auto (0.9 x the limit) | {rev / auto:.1f} | {auto:.5g} |")
print(f"limit / trial = {limit / dt_trial:.4f} (target within 10 %); auto / trial = {auto / dt_trial:.4f}; "
      f"the auto step over {revs} revolutions: {'stable' if ok else 'FAILED'}")
PY
