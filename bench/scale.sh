#!/usr/bin/env bash
# Direct (MUMPS) against iterative (CG + GAMG with the rigid-body modes; Krylov-Schur shift-and-invert, and LOBPCG) paths of
# `vicms modes` and of a MacNeal `vicms reduce` on clamped hex8 boxes of increasing size, on 2 ranks, one run at a time: wall
# time, peak resident memory of the largest rank (/usr/bin/time on mpirun: the largest of the waited-for ranks), and the
# largest relative difference of the frequencies against the direct path of the same run. Each run is stopped after 300 s.
# usage: bash bench/scale.sh [BUILD_DIR] ["nx,ny,nz ..."] [NP]   (copy the table into bench/RESULTS.md with machine and date)
set -uo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
sizes=${2:-"8,8,24 12,12,36 16,16,48"}
np=${3:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mat="-model_young 210e9 -model_poisson 0.3 -model_density 7800 -model_clamp zmin"

run() { # run NAME OUTFILE ARGS...: one row
  local name=$1 out=$2 t0 t1 mem rc
  shift 2
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o mem.txt timeout 300 mpirun --oversubscribe -n "$np" "$bin" "$@" >log.txt 2>&1
  rc=$?
  t1=$(date +%s.%N)
  mem=$(tail -1 mem.txt)
  if [ $rc -ne 0 ]; then
    printf '| %s | %s | failed (exit %s: %s) | | | |\n' "$cells" "$name" "$rc" "$(grep -m1 -i error log.txt | cut -c1-120)"
    return
  fi
  $py - "$cells" "$ndof" "$name" "$(echo "$t1 - $t0" | bc)" "$mem" "$out" <<'PY'
import sys, h5py, numpy as np
cells, ndof, name, t, mem, out = sys.argv[1:]
f = np.array(h5py.File(out, 'r')['frequencies_hz'])
ref = np.array(h5py.File('direct_' + out.split('_', 1)[1], 'r')['frequencies_hz']) if not out.startswith('direct') else f
err = np.max(np.abs(f - ref) / ref)
print('| %s | %s | %s | %.1f | %.0f | %.4f | %.1e |' % (cells, ndof, name, float(t), int(mem) / 1024, f[0], err))
PY
}

echo "| box cells | DOFs | path | wall [s] | peak RSS, largest rank [MiB] | f1 [Hz] | max rel. diff to direct |"
echo "|---|---|---|---|---|---|---|"
for cells in $sizes; do
  IFS=, read -r nx ny nz <<<"$cells"
  ndof=$(((nx + 1) * (ny + 1) * nz * 3))
  box="-mesh_box_cells $cells -mesh_box_lengths $(echo "0.005*$nx" | bc),$(echo "0.005*$ny" | bc),$(echo "0.005*$nz" | bc) $mat"
  run "modes, direct" direct_modes.h5 modes $box -modes_num 20 -modes_file direct_modes.h5
  run "modes, iterative (Krylov-Schur)" ks_modes.h5 modes $box -modes_num 20 -modes_solver iterative -modes_file ks_modes.h5
  run "modes, iterative (LOBPCG)" lobpcg_modes.h5 modes $box -modes_num 20 -modes_solver iterative -modes_eps_type lobpcg -modes_file lobpcg_modes.h5
  red="-cms_type macneal -cms_contact_set xmin_ymin_zmax,xmax_ymax_zmax -cms_contact_dirs 3 -cms_num_modes 20"
  run "reduce macneal, direct" direct_rom.h5 reduce $box $red -rom_file direct_rom.h5
  run "reduce macneal, iterative" it_rom.h5 reduce $box $red -cms_solver iterative -rom_file it_rom.h5
done
