#!/usr/bin/env bash
# Benchmark of the time stepping (issue 11): the time per step in units of one BLAS dgemv of the ROM's size, timed by
# vicms in the same run (the fastest of ten batches), on
#   - the Rotor 37 blade rubbing its oval casing (jobs/blade_rubbing.yaml: MacNeal, 50 modes + 48 boundary coordinates,
#     16 contacts with 3D Coulomb friction, 1000 levels per revolution, 5 revolutions) with each contact solver, and
#     with the casing out of reach (no contact closes);        targets: <= 3 dgemv, <= 1.2 without contact
#   - the same blade reduced by Rubin's method with the symmetric Moreau scheme (20,000 levels per revolution, its
#     largest stable step, one revolution), every level recorded and every 20th (the leapfrog rows' 1,000 per
#     revolution);                                              target: <= 4 dgemv
#   - one sweep of the seed 000 plate (jobs/plate_frf.yaml, MacNeal n = 23, 829,025 steps); target: <= 4 dgemv of 23
#   - the Rubin blade with nsgalpha (e = 0) and mixed (genalpha, e = 0.99) at 50,000 levels per revolution (their 1 % step): a
#     tenth of a revolution with the casing out of reach (gap 10 mm: free flight), half a revolution rubbing (issue 24 item 25);
#                                                               target: <= 3 dgemv in free flight
# Each row is the best of three runs (other processes only slow a run down).
# usage: [STEP_ROWS=REGEX] [STEP_RUBIN=FILE] [STEP_REPS=N] bash bench/step.sh [BUILD_DIR [BUILD_DIR_B]]   (STEP_ROWS: only the
# rows whose label matches, e.g. 'nsgalpha|mixed'; STEP_RUBIN: the blade's Rubin ROM from an earlier `vicms reduce`, instead
# of reducing it again; STEP_REPS: runs per row and executable, default 3).
# With a second build BUILD_DIR_B (e.g. before and after a change): the ROMs are reduced once (by the first), each row's runs
# alternate between the two executables (A, B, A, B, ...: both see the same load), and each row is printed for A and for B
# and the ratios of B's to A's wall time per step and time per step in dgemv (the best of three each; the second is measured
# against a dgemv timed in each run, and so less sensitive to what other processes do to one run).
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
bin_b=""
if [ -n "${2:-}" ]; then bin_b=$(cd "$2" && pwd)/vicms; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# best LABEL ARGS...: three runs of one case, the row of the fastest
best() {
  local label=$1
  shift
  [[ -z "${STEP_ROWS:-}" || "$label" =~ ${STEP_ROWS} ]] || return 0
  : >runs.txt
  : >runs_b.txt
  for rep in $(seq 1 "${STEP_REPS:-3}"); do
    "$bin" simulate "$@" -results_file r.h5 -results_overwrite >sim.log 2>&1 || { tail -20 sim.log; exit 1; }
    cat sim.log >>runs.txt
    echo "@@" >>runs.txt
    if [ -n "$bin_b" ]; then
      "$bin_b" simulate "$@" -results_file r.h5 -results_overwrite >sim.log 2>&1 || { tail -20 sim.log; exit 1; }
      cat sim.log >>runs_b.txt
      echo "@@" >>runs_b.txt
    fi
  done
  /usr/bin/python3 - "$label" <<'PY'
import os, re, sys
def best(path, label):
    rows = []
    for t in open(path).read().split("@@")[:-1]:
        m = re.search(r"(\d+) steps in ([0-9.]+) s \(([0-9]+) steps/s\), (\d+) contact solves, ([0-9.]+) iterations", t)
        r = re.search(r"= ([0-9.]+) BLAS dgemv of (\d+) x", t)
        rows.append((1 / float(m.group(3)), float(r.group(1)),
                     f"| {label} | {r.group(2)} | {m.group(1)} | {m.group(3)} | {m.group(4)} | {m.group(5)} | {r.group(1)} |"))
    return min(rows)
a = best("runs.txt", sys.argv[1] + (" (A)" if os.path.getsize("runs_b.txt") else ""))
if not os.path.getsize("runs_b.txt"):
    print(a[2])
else:
    b = best("runs_b.txt", sys.argv[1] + " (B)")
    print(a[2])
    print(b[2])
    print("| B/A | | | | | | time per step %.3f, per dgemv %.3f |" % (b[0] / a[0], b[1] / a[1]))
PY
}

echo "| case | n | steps | steps/s | contact solves | iterations per solve | time per step / dgemv |"
echo "|---|---|---|---|---|---|---|"
if [ -f "$shared/data/rotor37/blade.inp" ]; then
  job="-options_file $root/jobs/blade_rubbing.yaml -mesh_file $shared/data/rotor37/blade.inp"
  if [[ -z "${STEP_ROWS:-}" || "MacNeal" =~ ${STEP_ROWS} ]]; then
    mpirun -n 2 "$bin" reduce $job >reduce.log 2>&1 || { tail -20 reduce.log; exit 1; }
  fi
  if [ -n "${STEP_RUBIN:-}" ]; then # a Rubin ROM of the blade reduced before (STEP_RUBIN=FILE): no reduction
    cp "$STEP_RUBIN" rub.h5
  else
    mpirun -n 2 "$bin" reduce $job -cms_type rubin -rom_file rub.h5 >reduce_rubin.log 2>&1 || { tail -20 reduce_rubin.log; exit 1; }
  fi
  five=0.0641025641025641 # 5 revolutions at 2 pi 312/4 rad/s
  best "blade, MacNeal + leapfrog, newton (default)" $job -step_end_time $five
  best "blade, MacNeal + leapfrog, jacobi" $job -step_end_time $five -contact_solver jacobi
  best "blade, MacNeal + leapfrog, gauss_seidel" $job -step_end_time $five -contact_solver gauss_seidel
  best "blade, MacNeal + leapfrog, no contact (gap 10 mm)" $job -step_end_time $five -contact_gap 10
  best "blade, Rubin + symmetric Moreau, 20,000 levels/rev" $job -rom_file rub.h5 -step_type moreau -step_restitution 0.99 \
    -step_dt 6.41025641025641e-07 -step_end_time 0.01282051282051282
  best "blade, Rubin + symmetric Moreau, 20,000 levels/rev, every 20th recorded (1,000/rev)" $job -rom_file rub.h5 -step_type moreau \
    -step_restitution 0.99 -step_dt 6.41025641025641e-07 -step_end_time 0.01282051282051282 -step_output_every 20
  tenth=0.001282051282051282 half=0.00641025641025641 # a tenth and half a revolution: 5,000 and 25,000 steps at 50,000 levels/rev
  dt50=2.564102564102564e-07
  best "blade, Rubin + nsgalpha e = 0, 50,000 levels/rev, no contact (gap 10 mm)" $job -rom_file rub.h5 -step_type nsgalpha \
    -step_restitution 0 -step_dt $dt50 -step_end_time $tenth -contact_gap 10
  best "blade, Rubin + nsgalpha e = 0, 50,000 levels/rev, rubbing" $job -rom_file rub.h5 -step_type nsgalpha -step_restitution 0 \
    -step_dt $dt50 -step_end_time $half
  best "blade, Rubin + mixed genalpha e = 0.99, 50,000 levels/rev, no contact (gap 10 mm)" $job -rom_file rub.h5 -step_type mixed \
    -step_restitution 0.99 -step_dt $dt50 -step_end_time $tenth -contact_gap 10
  best "blade, Rubin + mixed genalpha e = 0.99, 50,000 levels/rev, rubbing" $job -rom_file rub.h5 -step_type mixed \
    -step_restitution 0.99 -step_dt $dt50 -step_end_time $half
else
  echo "(the Rotor 37 deck is absent: $shared/data/rotor37/blade.inp; no blade rows)"
fi
if [[ -z "${STEP_ROWS:-}" || "plate" =~ ${STEP_ROWS} ]]; then
  mpirun -n 2 "$bin" reduce -options_file "$root/jobs/plate_sweep.yaml" >reduce_plate.log 2>&1 || { tail -20 reduce_plate.log; exit 1; }
fi
best "plate sweep up 250-320 Hz, MacNeal + leapfrog" -options_file "$root/jobs/plate_frf.yaml" -cases_sweep '' \
  -load_xmax_ymax_zmax_frequency 250 -step_end_time 5.964195068
