#!/usr/bin/env bash
# Benchmark of the parent-model stage: mesh, assembly and modal solve (20 modes) for the plate and the Rotor 37 blade
# on 1 and 2 ranks, and a generated box of >= 1,000,000 DOFs on 2 ranks. Prints one markdown table row per run with
# the -log_view stage times and the peak resident memory summed over ranks (-memory_view).
# usage: bash bench/parent.sh [BUILD_DIR] [--no-box]   (results go to bench/RESULTS.md by hand, with machine and date)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

plate="-mesh_box_cells 8,20,101 -mesh_box_lengths 0.008,0.04,0.15 -model_young 184e9 -model_poisson 0.33 -model_density 8220 -model_clamp zmin"
box="-mesh_box_cells 24,60,224 -mesh_box_lengths 0.024,0.06,0.224 -model_young 184e9 -model_poisson 0.33 -model_density 8220 -model_clamp zmin"

row() { # row NAME NP ARGS...
  local name=$1 np=$2
  shift 2
  mpirun -n "$np" "$bin" modes -modes_num 20 -modes_write 0 -log_view -memory_view "$@" >log.txt 2>&1 || { cat log.txt; exit 1; }
  /usr/bin/python3 - "$name" "$np" <<'PY'
import re, sys
name, np = sys.argv[1], sys.argv[2]
text = open("log.txt").read()
dofs = re.search(r"Model: (\d+) DOFs", text).group(1)
stages = dict(re.findall(r"^\s*\d+:\s+([A-Za-z ]+?):\s+([0-9.e+-]+)", text, re.M))
mem = re.search(r"Maximum \(over computational time\) process memory:\s+total\s+([0-9.e+]+)", text)
f1 = re.search(r"^\s+1\s+([0-9.e+]+)", text, re.M).group(1)
fmt = lambda s: "%.2f" % float(stages.get(s, "nan"))
print(f"| {name} | {np} | {dofs} | {fmt('Mesh')} | {fmt('Assembly')} | {fmt('Modal solve')} | {float(mem.group(1))/2**30:.2f} | {float(f1):.6g} |")
PY
}

echo "| model | ranks | DOFs | mesh [s] | assembly [s] | modal solve, 20 modes [s] | peak memory, all ranks [GiB] | f1 [Hz] |"
echo "|---|---|---|---|---|---|---|---|"
for np in 1 2; do row plate "$np" $plate; done
if [ -f "$shared/data/rotor37/blade.inp" ]; then
  for np in 1 2; do row "Rotor 37 blade" "$np" -mesh_file "$shared/data/rotor37/blade.inp"; done
fi
if [ "${2:-}" != "--no-box" ]; then
  # block low-rank MUMPS (accuracy 1e-8): the full-rank in-core PORD factors of this box need ~14 GB of the 24
  row "box 24x60x224 hex8, BLR" 2 $box -modes_st_mat_mumps_icntl_35 2 -modes_st_mat_mumps_cntl_7 1e-8
fi
