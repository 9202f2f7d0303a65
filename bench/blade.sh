#!/usr/bin/env bash
# Benchmark: the Rotor 37 blade rubbing an oval casing (seed 000 §5.3, issue 6), massless against mass-carrying boundary.
#   1. reduces the blade (jobs/blade_rubbing.yaml: 16 contact nodes x 3 coordinates, 0.5 % modal damping, output
#      n1353_y) by MacNeal and by Rubin, 50 free-interface modes + 48 attachment modes each, on 2 ranks;
#   2. for each model, one ensemble of steps over the first five revolutions, its reference (400,000 levels per
#      revolution) among them: MacNeal with leapfrog, Rubin with the symmetric Moreau-like scheme, e = 0.99;
#   3. epsilon_RMS of Eq. (30) of n1353_y against the model's own reference, the largest stable step and the largest
#      step with epsilon_RMS < 1 % (bench/blade.py select);
#   4. fifty revolutions at those steps (MacNeal: every grid step between them, to find its stability limit over 50
#      revolutions); wall time = cases/wall_time of the results file, the stepping of one case on one rank;
#   5. the Markdown table on stdout and docs/blade_{convergence,response,overview,walltime}.png (bench/blade.py report).
# Seed 001/002 integrators on the same Rubin ROM (issue 13, test 6): nonsmooth generalized-alpha (seed 002, rho_inf 0.8,
# e = 0, as seed 002 recommends for flexible bodies; docs/benchmarks.md) and the mixed scheme with the
# Bathe base (seed 001 §2.6, e = 0.99), five revolutions on their own grids against the Rubin reference with their
# restitution (the Moreau run at 400,000 levels per revolution: the one above for mixed Bathe, one with e = 0 for
# nsgalpha), fifty revolutions at their 1 % step when they have one. Both are implicit: no stability limit to search.
# Recording: the five-revolution runs record every level below 10,000 levels per revolution and every 10th level from
# 10,000 on (the reference too); epsilon_RMS sums over the recorded levels of the coarse run.
# usage: bash bench/blade.sh [BUILD_DIR]     (BLADE_KEEP=DIR keeps the results files in DIR, and reuses those that a
# finished run of the same command left there: an interrupted benchmark resumes)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
[ -f "$deck" ] || { echo "the Rotor 37 deck is absent ($deck): nothing to measure"; exit 0; }
$py -c 'import h5py, matplotlib, numpy' 2>/dev/null || { echo "$py lacks h5py or matplotlib (apt-get install python3-h5py python3-matplotlib)"; exit 1; }
if [ -n "${BLADE_KEEP:-}" ]; then
  mkdir -p "$BLADE_KEEP"
  work=$(cd "$BLADE_KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
cd "$work"
start=$(date +%s)
stamp() { echo "[$(($(date +%s) - start)) s] $*" >&2; }

job="-options_file $root/jobs/blade_rubbing.yaml -mesh_file $deck"
rev=$($py -c 'import math; print(repr(2 * math.pi / (2 * math.pi * 312 / 4)))') # one revolution, s
five=$($py -c "print(repr(5 * $rev))")
fifty=$($py -c "print(repr(50 * $rev))")
dts() { $py -c "import sys; print('/'.join(repr($rev / int(n)) for n in sys.argv[1:]))" "$@"; } # levels/rev -> dt list
declare -A model=([mac]="-rom_file mac.h5 -step_type leapfrog" [rub]="-rom_file rub.h5 -step_type moreau -step_restitution 0.99"
  [nsg]="-rom_file rub.h5 -step_type nsgalpha -step_rho_inf 0.8 -step_restitution 0"
  [bathe]="-rom_file rub.h5 -step_type mixed -step_mixed_base bathe -step_restitution 0.99")

# ---- 1. reduction
# finished NAME: with BLADE_KEEP, a step whose file a finished run wrote is not run again
finished() { [ -n "${BLADE_KEEP:-}" ] && [ -f "$1.h5" ] && grep -q "^Wrote $1.h5" "$1.log" 2>/dev/null; }
for m in mac rub; do
  type=$([ $m = mac ] && echo macneal || echo rubin)
  if finished $m; then stamp "reduce $m: kept"; continue; fi
  mpirun -n 2 "$bin" reduce $job -cms_type $type -rom_file $m.h5 >$m.log 2>&1 || { tail -20 $m.log; exit 1; }
  stamp "$(grep -m1 '^ROM' $m.log || true) $(grep -m1 'Wrote' $m.log)"
done

# sim NAME ARGS...: one ensemble on 2 ranks (groups of 1 rank) into NAME.h5
sim() {
  local name=$1
  shift
  if finished $name; then stamp "$name: kept"; return; fi
  mpirun -n 2 "$bin" simulate $job "$@" -results_file $name.h5 -results_overwrite -cases_quiet >$name.log 2>&1 || { tail -20 $name.log; exit 1; }
  stamp "$name: $(grep -m1 'cases:.*done' $name.log)"
}

# ---- 2. five revolutions; the finest first so that it starts at once on one group. The steps divide the reference's
# recorded levels (40,000 per revolution) where they can, so that most comparisons are at common levels.
sim mac_5rev_a ${model[mac]} -step_end_time $five -cases_values step_dt:$(dts 500 700 800 850 900 950 1000 1250 1600 2000 2500 3200 4000 5000 8000)
sim mac_5rev_b ${model[mac]} -step_end_time $five -step_output_every 10 -cases_values step_dt:$(dts 400000 200000 100000 50000 25000 10000)
sim rub_5rev ${model[rub]} -step_end_time $five -step_output_every 10 \
  -cases_values step_dt:$(dts 400000 200000 100000 80000 50000 45000 40000 32000 25000 20000 17500 16000 15000 12500 10000 5000)
# the seed 001/002 schemes (recorded as above: every level below 10,000 levels per revolution, every 10th from 10,000 on);
# nsgalpha's reference, Rubin + Moreau with its restitution 0
sim rub0_5rev -rom_file rub.h5 -step_type moreau -step_restitution 0 -step_end_time $five -step_output_every 10 -cases_values step_dt:$(dts 400000)
sim nsg_5rev_a ${model[nsg]} -step_end_time $five -cases_values step_dt:$(dts 1000 2000 5000)
sim nsg_5rev_b ${model[nsg]} -step_end_time $five -step_output_every 10 -cases_values step_dt:$(dts 100000 50000 20000 10000)
sim bathe_5rev_a ${model[bathe]} -step_end_time $five -cases_values step_dt:$(dts 500 1000 2000 5000)
sim bathe_5rev_b ${model[bathe]} -step_end_time $five -step_output_every 10 \
  -cases_values step_dt:$(dts 100000 80000 50000 40000 32000 25000 20000 10000)

# ---- 3. the steps to run for fifty revolutions
sel=$($py "$root/bench/blade.py" select "$work")
stamp "selected: $sel"
pick() { $py -c "import json, sys; d = json.loads(sys.argv[1])['$1']; print(' '.join(str(n) for n in sorted(set($2))))" "$sel"; }
mac_steps=$(pick mac "d['between']")
rub_steps=$(pick rub "[d['stable'], d['one']]")
nsg_steps=$(pick nsg "[d['one']] if d['one'] else []")
bathe_steps=$(pick bathe "[d['one']] if d['one'] else []")

# ---- 4. fifty revolutions (recording every 5th / 50th level: enough for the plots)
sim mac_50rev ${model[mac]} -step_end_time $fifty -step_output_every 5 -cases_values step_dt:$(dts $mac_steps)
sim rub_50rev ${model[rub]} -step_end_time $fifty -step_output_every 50 -cases_values step_dt:$(dts $rub_steps)
# the seed 001/002 schemes at their 1 % step, if they reach 1 % on the grid
[ -z "$nsg_steps" ] || sim nsg_50rev ${model[nsg]} -step_end_time $fifty -step_output_every 50 -cases_values step_dt:$(dts $nsg_steps)
[ -z "$bathe_steps" ] || sim bathe_50rev ${model[bathe]} -step_end_time $fifty -step_output_every 50 -cases_values step_dt:$(dts $bathe_steps)

# ---- 5. table and plots
$py "$root/bench/blade.py" report "$work" "$root/docs"
stamp "done"
