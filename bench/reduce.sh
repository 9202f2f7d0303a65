#!/usr/bin/env bash
# Benchmark of the reduction stage (vicms reduce): time per phase from -log_view events (VI_Assemble, VI_Factor = MUMPS
# factorization, VI_EigenSolve = SLEPc, VI_StaticModes = attachment/constraint modes, VI_Project = reduced matrices)
# and peak memory summed over ranks (-memory_view), for the Rotor 37 blade (MacNeal, 50 modes, 16 contact nodes x 3)
# on 1 and 2 ranks and for a generated box of >= 1,000,000 DOFs on 2 ranks.
# usage: bash bench/reduce.sh [BUILD_DIR] [--no-box]     (copy the table into bench/RESULTS.md with machine and date)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

row() { # row NAME NP ARGS...
  local name=$1 np=$2
  shift 2
  mpirun -n "$np" "$bin" reduce -rom_file rom.h5 -log_view -memory_view "$@" >log.txt 2>&1 || { tail -40 log.txt; exit 1; }
  /usr/bin/python3 - "$name" "$np" <<'PY'
import re, sys
name, np = sys.argv[1], sys.argv[2]
text = open("log.txt").read()
dofs = re.search(r"Model: (\d+) DOFs", text).group(1)
def ev(e):
    m = re.search(r"^%s\s+\d+\s+\S+\s+([0-9.e+-]+)" % e, text, re.M)
    return float(m.group(1)) if m else float("nan")
total = re.search(r"Wrote rom.h5 in ([0-9.]+) s", text).group(1)
mem = float(re.search(r"Maximum \(over computational time\) process memory:\s+total\s+([0-9.e+]+)", text).group(1))
print(f"| {name} | {np} | {dofs} | {ev('VI_Assemble'):.2f} | {ev('VI_Factor'):.2f} | {ev('VI_EigenSolve'):.2f} | {ev('VI_StaticModes'):.2f} | {ev('VI_Project'):.2f} | {float(total):.1f} | {mem/2**30:.2f} |")
PY
}

echo "| model | ranks | DOFs | assembly [s] | factorization [s] | eigensolve [s] | attachment/constraint modes [s] | projection [s] | total [s] | peak memory, all ranks [GiB] |"
echo "|---|---|---|---|---|---|---|---|---|---|"
blade="-mesh_file $shared/data/rotor37/blade.inp -cms_type macneal -cms_num_modes 50 -cms_contact_dirs 3 -cms_contact_nodes 188,190,192,194,196,198,200,203,253,255,257,259,261,263,265,267 -cms_outputs 1353:y"
if [ -f "$shared/data/rotor37/blade.inp" ]; then
  for np in 1 2; do row "Rotor 37 blade, MacNeal 50 modes + 48" "$np" $blade; done
fi
if [ "${2:-}" != "--no-box" ]; then
  # block low-rank MUMPS (accuracy 1e-8): in-core full-rank PORD factors of this box need ~14 GB, beyond 2 ranks' share of 24 GB
  row "box 24x60x224 hex8, MacNeal 20 modes + 3, BLR" 2 -mesh_box_cells 24,60,224 -mesh_box_lengths 0.024,0.06,0.224 -model_young 184e9 -model_poisson 0.33 -model_density 8220 -model_clamp zmin \
    -cms_num_modes 20 -cms_contact_set xmax_ymax_zmax -cms_st_mat_mumps_icntl_35 2 -cms_st_mat_mumps_cntl_7 1e-8
fi
