#!/usr/bin/env bash
# Benchmark of vicms's leapfrog stepping against a user's NumPy script of the same algorithm (bench/numpy_leapfrog.py,
# issue 11): on the same ROM and the same case, the time per step of both (best of five vicms and three NumPy runs, one after the
# other in this script), the ratio NumPy / vicms (target: >= 50), and the agreement of the two answers (recorded ROM
# outputs and normal contact forces, max |difference| / max |value|; the contact tolerance is 1e-10).
#   - plate: the README's plate ROM (jobs/plate_sweep.yaml, MacNeal, n = 23, 3 frictionless contacts), the case at
#     278 Hz, 0.2 s (28,001 steps, the contacts closing in the second half);
#   - blade: the Rotor 37 ROM (jobs/blade_rubbing.yaml, MacNeal, n = 98, 16 frictional contacts on velocity level),
#     5 revolutions (5,001 steps); skipped when the deck is absent.
# vicms's time per step is the case's stepping time (cases/wall_time / cases/steps of its results file, one rank). Each
# case twice: vicms with its default contact solver (semi-smooth Newton; NumPy's iterations then differ, the answers
# agree to the solver's tolerance), and both with projected Jacobi (the very same iterates).
# usage: bash bench/numpy.sh [BUILD_DIR]      (NUMPY_KEEP=DIR keeps the ROMs in DIR and reuses them: the blade's
# reduction takes about a minute)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
export OPENBLAS_NUM_THREADS=1 # NumPy on one core, as vicms (the matrices are small: no gain from threads)
$py -c 'import h5py, numpy' 2>/dev/null || { echo "$py lacks h5py or numpy (apt-get install python3-h5py)"; exit 1; }
if [ -n "${NUMPY_KEEP:-}" ]; then
  mkdir -p "$NUMPY_KEEP"
  work=$(cd "$NUMPY_KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
cd "$work"

# rom NAME JOB ARGS...: reduce into NAME.h5 on 2 ranks, unless a finished reduction left it there
rom() {
  local name=$1 job=$2
  shift 2
  [ -f "$name.h5" ] && grep -q "^Wrote $name.h5" "$name.log" 2>/dev/null && return
  mpirun -n 2 "$bin" reduce -options_file "$job" -rom_file "$name.h5" "$@" >"$name.log" 2>&1 || { tail -20 "$name.log"; exit 1; }
}

# row LABEL ROM JOB [NAME=VALUE ...]: vicms and NumPy on the same case, best of three each; one table row
row() {
  local label=$1 romf=$2 job=$3
  shift 3
  local vargs=() sets=()
  for kv in "$@"; do
    vargs+=("-${kv%%=*}" "${kv#*=}")
    sets+=(--set "$kv")
  done
  : >vicms.txt
  : >numpy.txt
  for rep in 1 2 3 4 5; do # vicms's runs are short (30 ms for the plate): best of five
    "$bin" simulate -options_file "$job" -rom_file "$romf" -cases_grid '' "${vargs[@]}" -results_file v.h5 -results_overwrite -cases_quiet \
      >sim.log 2>&1 || { tail -20 sim.log; exit 1; }
    $py -c "import h5py; f = h5py.File('v.h5', 'r'); print(f['cases/wall_time'][0], f['cases/steps'][0])" >>vicms.txt
  done
  for rep in 1 2 3; do
    $py "$root/bench/numpy_leapfrog.py" "$romf" "$job" "${sets[@]}" --compare v.h5 --json >>numpy.txt
  done
  $py - "$label" <<'PY'
import json, sys
v = [tuple(float(x) for x in line.split()) for line in open("vicms.txt")]
tv = min(w / s for w, s in v) * 1e6
runs = [json.loads(line) for line in open("numpy.txt")]
r = min(runs, key=lambda d: d["us_per_step"])
print(f"| {sys.argv[1]} | {r['n']} | {r['steps']} | {r['solves']} | {r['iterations_per_solve']:.1f} | {tv:.2f} | {r['us_per_step']:.1f} | "
      f"**{r['us_per_step'] / tv:.0f}** | {r['outputs_diff']:.1e} / {r['forces_diff']:.1e} |")
PY
}

echo "| case | n | steps | contact solves | iterations per solve | vicms [µs/step] | NumPy [µs/step] | NumPy / vicms | max difference, outputs / forces |"
echo "|---|---|---|---|---|---|---|---|---|"
rom plate "$root/jobs/plate_sweep.yaml"
row "plate at 278 Hz, 0.2 s (frictionless), vicms's default solver (newton)" plate.h5 "$root/jobs/plate_sweep.yaml" load_xmax_ymax_zmax_frequency=278 step_end_time=0.2
row "plate at 278 Hz, 0.2 s, both projected Jacobi" plate.h5 "$root/jobs/plate_sweep.yaml" load_xmax_ymax_zmax_frequency=278 step_end_time=0.2 \
  contact_solver=jacobi
if [ -f "$deck" ]; then
  rom blade "$root/jobs/blade_rubbing.yaml" -mesh_file "$deck"
  row "blade rubbing, 5 revolutions (friction), vicms's default solver (newton)" blade.h5 "$root/jobs/blade_rubbing.yaml" step_end_time=0.0641025641025641
  row "blade rubbing, 5 revolutions, both projected Jacobi" blade.h5 "$root/jobs/blade_rubbing.yaml" step_end_time=0.0641025641025641 \
    contact_solver=jacobi
else
  echo "(the Rotor 37 deck is absent ($deck): no blade row)"
fi
