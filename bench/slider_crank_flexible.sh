#!/usr/bin/env bash
# The slider-crank of seed 001 with its connecting rod flexible in a floating frame (jobs/models/slider_crank_flexible.yaml,
# docs/multibody.md Example 4): convergence in the number of rod elements (seed 001 Fig. 20, §4.1) and of modes, and the
# time per step as a multiple of one dgemv of the system's size (issue 23 §5), in one run of this script:
#   - the rod (seed 001 Table 1, the cross-section of docs/frame.md) meshed NX x NY CPS4, its end x = 0 clamped (every node
#     of the edge: the tangential frame of seed 001 Eq. 184), Craig-Bampton with NM fixed-interface modes;
#   - the wrist pin three ways: "node", the middle node of the far end (the reduction's boundary: that node); "equal", spread
#     over every node of the far end at their mean displacement (`node1: [n.., ...]`, the boundary: all those nodes);
#     "consistent", the same nodes with the weights of a uniform traction on the edge (`weights1: [0.5, 1, ..., 1, 0.5]`,
#     the tributary lengths of linear elements: a distributing coupling, RBE3);
#   - elements: NX x NY = 10 x 2, 20 x 4, 40 x 8, 80 x 16 with NM = 8, each pin, and 160 x 32 with the consistent pin;
#     modes: NM = 2, 4, 8, 16 on 20 x 4 with the consistent pin;
#   - each run: Table 1 (c = 0.001 m, e = 0.4, mu = 0.01) and the clearance too large to touch (c = 1), nsgalpha
#     rho_inf = 0.8, h = 1e-5 s, T = SC_T (default 0.02 s), 1 rank;
#   - printed, over the first 5 ms (the first impacts) and over the run: the largest difference of the slider's centre (max over x and y) and of the crank angle between
#     successive meshes and their ratio (the observed rate: a factor 2 of refinement, so log2 of the ratio is the order), the
#     modes' differences from 16 modes, and vicms's own "time per step ... = N BLAS dgemv of n x n (timed in this run)" line
#     (a dgemv of the system's size n timed in the same run, so the ratio is load-independent to first order).
# usage: bash bench/slider_crank_flexible.sh [BUILD_DIR]   (SC_WORK=DIR keeps the ROMs and results there)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
export OPENBLAS_NUM_THREADS=1
work=${SC_WORK:-$(mktemp -d)}
mkdir -p "$work"
[ -n "${SC_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
cd "$work"
T=${SC_T:-0.02}
model=$root/jobs/models/slider_crank_flexible.yaml
reduce() { # ROM NX NY NM BOUNDARY_NODES
  local outs
  outs=$(for i in ${5//,/ }; do printf "%s:x,%s:y," $i $i; done)
  mpirun -n 1 "$bin" reduce -mesh_rect_cells $2,$3 -mesh_rect_lengths 0.306,0.30443 -mesh_rect_thickness 5.2297e-5 -mesh_rect_origin 0,-0.152215 \
    -model_young 2e11 -model_poisson 0.3 -model_density 7800 -model_clamp xmin -cms_type cb -cms_contact_nodes $5 -cms_contact_dirs 2 \
    -cms_contact_normal 1,0,0 -cms_contact_t1 0,1,0 -cms_num_modes $4 -cms_outputs ${outs%,} -cms_frame_invariants -cms_units SI \
    -rom_file $1.rom.h5 >$1.reduce.log 2>&1 || { tail $1.reduce.log; exit 1; }
}
run() { # NAME NX NY NM PIN (node, equal or consistent)
  local name=$1 nx=$2 ny=$3 nm=$4 pin=$5 rom=$1 nodes stems pin_keys out_keys w
  if [ $pin = node ]; then
    nodes=$(((ny / 2) * (nx + 1) + nx + 1))
    reduce $rom $nx $ny $nm $nodes
    pin_keys="node1: n$nodes" out_keys="node: n$nodes"
  else # every node of the far end, all of them the reduction's boundary; one ROM for both spreads
    nodes=$(seq -s, $((nx + 1)) $((nx + 1)) $(((ny + 1) * (nx + 1))))
    rom=spread$nx.$nm
    [ -f $rom.rom.h5 ] || reduce $rom $nx $ny $nm $nodes
    stems="[$(for i in ${nodes//,/ }; do printf "n%s, " $i; done | sed 's/, $//')]"
    pin_keys="node1: $stems" out_keys="node: $stems"
    if [ $pin = consistent ]; then # the tributary lengths of the edge's nodes (relative: vicms divides by their sum)
      w="[0.5$(for _ in $(seq 2 $ny); do printf ", 1"; done), 0.5]"
      pin_keys="$pin_keys, weights1: $w" out_keys="$out_keys, weights: $w"
    fi
  fi
  sed -e "s/rom: slider_crank_rod.h5/rom: $rom.rom.h5/" -e "s/node1: \[n21, n42, n63, n84, n105\], weights1: tributary/$pin_keys/" -e "s/node: \[n21, n42, n63, n84, n105\], weights: tributary/$out_keys/" "$model" >$name.yaml
  for c in 0.001 1; do
    mpirun -n 1 "$bin" simulate -system_type multibody -mb_model $name.yaml -mb_param_c $c -step_type nsgalpha -step_rho_inf 0.8 -step_dt 1e-5 \
      -step_end_time "$T" -results_file $name.c$c.h5 >$name.c$c.log 2>&1 || { tail $name.c$c.log; exit 1; }
    echo "$name c = $c: $(grep -m1 'time per step' $name.c$c.log | sed 's/^ *//')"
  done
}
for e in "10 2" "20 4" "40 8" "80 16"; do
  set -- $e
  for pin in node equal consistent; do run $pin$1 $1 $2 8 $pin; done
done
run consistent160 160 32 8 consistent
for nm in 2 4 16; do run m$nm 20 4 $nm consistent; done
cp consistent20.c0.001.h5 m8.c0.001.h5
cp consistent20.c1.h5 m8.c1.h5
$py - <<'PY'
import h5py, numpy as np


def series(name):
    c = h5py.File(name, "r")["cases/0"]
    cols = c["outputs"].attrs["columns"]
    cols = (cols.decode() if isinstance(cols, bytes) else cols).split(",")
    o = c["outputs"][:]
    s = {n: o[:, i] for i, n in enumerate(cols)}
    s["t"] = c["t"][:]
    return s


def diff(a, b):
    dx = max(np.abs(a["slider_x"] - b["slider_x"]).max(), np.abs(a["slider_y"] - b["slider_y"]).max())
    return dx, np.abs(a["theta1"] - b["theta1"]).max()


for c in ("1", "0.001"):
    for T in (0.005, None):
        window = "the first 5 ms" if T else "the run"
        print(f"c = {c}, over {window}: elements (8 modes), largest difference between successive meshes (in brackets: the ratio to the previous)")
        for pin, meshes in (("node", (10, 20, 40, 80)), ("equal", (10, 20, 40, 80)), ("consistent", (10, 20, 40, 80, 160))):
            runs = [series(f"{pin}{nx}.c{c}.h5") for nx in meshes]
            if T:
                runs = [{k: v[r["t"] <= T + 1e-12] for k, v in r.items()} for r in runs]
            d = [diff(runs[i + 1], runs[i]) for i in range(len(runs) - 1)]
            text = "  ".join(f"{a}->{b}: {x[0]:.2e} m ({(p[0] / x[0] if p else float('nan')):.1f}), {x[1]:.2e} rad ({(p[1] / x[1] if p else float('nan')):.1f})"
                             for a, b, x, p in zip(meshes, meshes[1:], d, [None] + d[:-1]))
            print(f"  {pin:10s} {text}")
    r = series(f"m16.c{c}.h5")
    print(f"c = {c}: modes (20 x 4, consistent pin) against 16: " +
          ", ".join(f"{nm}: {diff(series(f'm{nm}.c{c}.h5'), r)[0]:.2e} m, {diff(series(f'm{nm}.c{c}.h5'), r)[1]:.2e} rad" for nm in (2, 4, 8)))
PY
