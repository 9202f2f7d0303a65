#!/usr/bin/env bash
# Benchmark of a parent given as matrices (docs/parents.md) against vicms's own assembly of the same deck: the Rotor 37 blade
# (C3D15, 61,098 DOFs) exported by CalculiX ccx (*FREQUENCY, SOLVER=MATRIXSTORAGE), then the parent stage of `vicms modes`
# (-modes_num 1) on 1 and 2 ranks: the VI_MeshRead and VI_Assemble events of -log_view (for the matrices, VI_Assemble is
# the reading of JOB.sti, JOB.mas and JOB.dof and the making of K and M), the first frequency of both, and the files' sizes.
# usage: bash bench/parents.sh [BUILD_DIR]   (results go to bench/RESULTS.md by hand, with machine and date)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
[ -f "$deck" ] || { echo "the Rotor 37 deck is absent ($deck)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMP_NUM_THREADS=1

cp "$(dirname "$deck")/blade.msh" .
awk 'toupper($0) ~ /^\*STEP/ {exit} {print}' "$deck" >blade.inp
printf '*STEP\n*FREQUENCY, SOLVER=MATRIXSTORAGE\n*END STEP\n' >>blade.inp
start=$(date +%s.%N)
ccx -i blade >ccx.log 2>&1 || { tail -5 ccx.log; exit 1; }
tccx=$(echo "$(date +%s.%N) - $start" | bc)
echo "ccx matrix storage: $tccx s; blade.sti $(du -m blade.sti | cut -f1) MB ($(wc -l <blade.sti) entries), blade.mas $(du -m blade.mas | cut -f1) MB, blade.dof $(wc -l <blade.dof) rows"

row() { # row HOW NP ARGS...
  local how=$1 np=$2
  shift 2
  mpirun -n "$np" "$bin" modes -modes_num 1 -modes_write 0 -log_view "$@" >log.txt 2>&1 || { tail -20 log.txt; exit 1; }
  $py - "$how" "$np" <<'PY'
import re, sys
how, np = sys.argv[1], sys.argv[2]
text = open("log.txt").read()
dofs = re.search(r"Model: (\d+) DOFs", text).group(1)
def event(name):
    m = re.search(r"^%s\s+\d+\s+\S+\s+([0-9.e+-]+)" % name, text, re.M)
    return float(m.group(1)) if m else float("nan")
f1 = re.search(r"^\s+1\s+([0-9.e+]+)", text, re.M).group(1)
print(f"| {how} | {np} | {dofs} | {event('VI_MeshRead'):.2f} | {event('VI_Assemble'):.2f} | {float(f1):.10g} |")
PY
}

echo "| parent | ranks | DOFs | mesh read [s] | assembly or matrix reading [s] | f1 [Hz] |"
echo "|---|---|---|---|---|---|"
for np in 1 2; do
  row "assembled from blade.inp" "$np" -mesh_file blade.inp
  row "ccx matrices (-parent_matrices blade)" "$np" -mesh_file blade.inp -parent_matrices blade
done
