#!/usr/bin/env bash
# The slider-crank of seed 001 with its connecting rod flexible in a floating frame (jobs/models/slider_crank_flexible.yaml,
# docs/multibody.md Example 4): convergence in the number of modes and of rod elements (seed 001 Fig. 20, §4.5) and the
# time per step as a multiple of one dgemv of the system's size (issue 23 §5), in one run of this script:
#   - the rod (seed 001 Table 1, the cross-section of docs/frame.md) meshed NX x NY CPS4, clamped at the crank's pin,
#     Craig-Bampton with the wrist pin as boundary (2 coordinates) and NM fixed-interface modes: NM = 2, 4, 8, 16 on
#     20 x 4 and NX x NY = 10 x 2, 20 x 4, 40 x 8 with 8 modes;
#   - each run: Table 1 (c = 0.001 m, e = 0.4, mu = 0.01) and the clearance too large to touch (c = 1), nsgalpha
#     rho_inf = 0.8, h = 1e-5 s, T = SC_T (default 0.02 s), 1 rank;
#   - the same meshes with the wrist pin spread over every node of the rod's far end (all of them Craig-Bampton boundary
#     nodes, the pin at their mean displacement: `node1: [n.., n.., ...]`), where a point load's singular compliance is gone;
#   - printed: the largest difference of the slider's centre and the crank angle from the finest run (40 x 8 with 8
#     modes for the meshes, 16 modes for the modes), and vicms's own "time per step ... = N BLAS dgemv of n x n (timed
#     in this run)" line (a dgemv of the system's size n, timed in the same run, so the ratio is load-independent to
#     first order).
# usage: bash bench/slider_crank_flexible.sh [BUILD_DIR]
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
export OPENBLAS_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
T=${SC_T:-0.02}
model=$root/jobs/models/slider_crank_flexible.yaml
run() { # NAME NX NY NM [spread]: the wrist pin at the end's middle node, or spread over all the end's nodes
  local name=$1 nx=$2 ny=$3 nm=$4 spread=${5:-} tip nodes outs stems
  tip=$(((ny / 2) * (nx + 1) + nx + 1))
  nodes=$tip outs="$tip:x,$tip:y" stems=n$tip
  if [ -n "$spread" ]; then # every node of the far end: boundary coordinates, and the pin at their mean displacement
    nodes=$(seq -s, $((nx + 1)) $((nx + 1)) $(((ny + 1) * (nx + 1))))
    outs=$(for i in ${nodes//,/ }; do printf "%s:x,%s:y," $i $i; done)
    outs=${outs%,}
    stems="[$(for i in ${nodes//,/ }; do printf "n%s, " $i; done | sed 's/, $//')]"
  fi
  mpirun -n 1 "$bin" reduce -mesh_rect_cells $nx,$ny -mesh_rect_lengths 0.306,0.30443 -mesh_rect_thickness 5.2297e-5 -mesh_rect_origin 0,-0.152215 \
    -model_young 2e11 -model_poisson 0.3 -model_density 7800 -model_clamp xmin -cms_type cb -cms_contact_nodes $nodes -cms_contact_dirs 2 \
    -cms_contact_normal 1,0,0 -cms_contact_t1 0,1,0 -cms_num_modes $nm -cms_outputs $outs -cms_frame_invariants -cms_units SI \
    -rom_file $name.rom.h5 >$name.reduce.log 2>&1 || { tail $name.reduce.log; exit 1; }
  sed -e "s/rom: slider_crank_rod.h5/rom: $name.rom.h5/" -e "s/node1: n63/node1: $stems/" -e "s/node: n63/node: $stems/" "$model" >$name.yaml
  for c in 0.001 1; do
    mpirun -n 1 "$bin" simulate -system_type multibody -mb_model $name.yaml -mb_param_c $c -step_type nsgalpha -step_rho_inf 0.8 -step_dt 1e-5 \
      -step_end_time "$T" -results_file $name.c$c.h5 >$name.c$c.log 2>&1 || { tail $name.c$c.log; exit 1; }
    echo "$name c = $c: $(grep -m1 'time per step' $name.c$c.log | sed 's/^ *//')"
  done
}
for nm in 2 4 8 16; do run m$nm 20 4 $nm; done
run e10 10 2 8
run e40 40 8 8
cp m8.c0.001.h5 e20.c0.001.h5
cp m8.c1.h5 e20.c1.h5
for e in "10 2" "20 4" "40 8"; do
  set -- $e
  run s$1 $1 $2 8 spread
done
$py - <<'PY'
import h5py, numpy as np


def series(name):
    c = h5py.File(name, "r")["cases/0"]
    cols = c["outputs"].attrs["columns"]
    cols = (cols.decode() if isinstance(cols, bytes) else cols).split(",")
    o = c["outputs"][:]
    return {n: o[:, i] for i, n in enumerate(cols)}


for c in ("0.001", "1"):
    for label, names, ref in (("modes (20 x 4)", ["m2", "m4", "m8"], "m16"), ("elements (8 modes)", ["e10", "e20"], "e40"),
                              ("elements, the pin spread over the end's nodes (8 modes)", ["s10", "s20"], "s40")):
        r = series(f"{ref}.c{c}.h5")
        for n in names:
            s = series(f"{n}.c{c}.h5")
            dx = max(np.abs(s["slider_x"] - r["slider_x"]).max(), np.abs(s["slider_y"] - r["slider_y"]).max())
            dth = np.abs(s["theta1"] - r["theta1"]).max()
            tip = np.abs(s["tip_x"] - s["slider_x"]).max()
            print(f"c = {c}, {label}: {n} against {ref}: slider centre {dx:.3e} m, crank angle {dth:.3e} rad (joint at the tip {tip:.1e} m)")
PY
