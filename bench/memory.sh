#!/usr/bin/env bash
# Memory per rank of `vicms modes -modes_solver iterative` (LOBPCG + GAMG) on a clamped hex8 box, on 1, 2 and 4 ranks
# (--oversubscribe): each rank's resident memory after the mesh's set-up and after the assembly (the -info lines of
# VIMeshSetUp and VIModelSetUp), and its peak resident memory over the run (/usr/bin/time on each rank), largest and
# smallest over the ranks; wall time. Issue 26: what the global arrays of the mesh and model cost per rank.
# usage: bash bench/memory.sh [BUILD_DIR] [nx,ny,nz] ["ranks ..."] [modes]   (copy the table into bench/RESULTS.md)
set -uo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
cells=${2:-40,40,100}
ranks=${3:-"1 2 4"}
nmodes=${4:-4}
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
IFS=, read -r nx ny nz <<<"$cells"
ndof=$(((nx + 1) * (ny + 1) * nz * 3))
box="-mesh_box_cells $cells -mesh_box_lengths $(echo "0.005*$nx" | bc),$(echo "0.005*$ny" | bc),$(echo "0.005*$nz" | bc)"
box="$box -model_young 210e9 -model_poisson 0.3 -model_density 7800 -model_clamp zmin"
echo "| ranks | DOFs | after mesh set-up [MiB/rank] | after assembly [MiB/rank] | peak RSS, largest rank [MiB] | smallest rank [MiB] | wall [s] | f1 [Hz] | arrays of global size kept [B/DOF] | node-to-DOF map of the held nodes [B/DOF] |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for np in $ranks; do
  t0=$(date +%s.%N)
  nice mpirun --oversubscribe -n "$np" sh -c "exec /usr/bin/time -f 'vicms-peak-rss-kib %M' $bin modes $box -modes_num $nmodes -modes_solver iterative \
    -modes_eps_type lobpcg -modes_file modes_$np.h5 -info" >log.txt 2>&1
  rc=$?
  t1=$(date +%s.%N)
  if [ $rc -ne 0 ]; then echo "| $np | $ndof | failed (exit $rc) |"; tail -3 log.txt; continue; fi
  $py - "$np" "$ndof" "$(echo "$t1 - $t0" | bc)" "modes_$np.h5" <<'PY'
import re, sys, h5py
np_, ndof, t, out = sys.argv[1:]
log = open('log.txt').read()
mesh = [float(x) for x in re.findall(r'Mesh held on this rank:.*resident memory ([0-9.]+) MiB', log)]
asm = [float(x) for x in re.findall(r'Model on this rank:.*resident memory after assembly ([0-9.]+) MiB', log)]
peak = [int(x) / 1024 for x in re.findall(r'vicms-peak-rss-kib (\d+)', log)]
f1 = h5py.File(out, 'r')['frequencies_hz'][0]
# the -info line of VIModelSetUp, largest over the ranks: the arrays of global size kept per global DOF (the mesh's, and before
# issue 26's DOF map the global node owners and DOF map) and the node-to-DOF map of the nodes a rank holds (falls with ranks)
old = [(float(a), float(b)) for a, b in re.findall(r'mesh arrays ([0-9.]+) B and node owners and DOF map ([0-9.]+) B per global DOF', log)]
new = [(float(a), float(b)) for a, b in re.findall(r'mesh arrays ([0-9.]+) B and node-to-DOF map ([0-9.]+) B per global DOF', log)]
kept = [a + b for a, b in old] + [a for a, b in new]
local = [b for a, b in new]
rng = lambda v: '%.0f' % v[0] if len(v) == 1 else '%.0f–%.0f' % (min(v), max(v))
print('| %s | %s | %s | %s | %.0f | %.0f | %.1f | %.6f | %s | %s |' % (np_, ndof, rng(mesh), rng(asm), max(peak), min(peak), float(t), f1,
      '%.1f' % max(kept) if kept else '–', '%.1f' % max(local) if local else '–'))
PY
done
