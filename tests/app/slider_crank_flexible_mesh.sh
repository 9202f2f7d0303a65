#!/usr/bin/env bash
# The flexible slider-crank's convergence in the number of rod elements (seed 001 Fig. 20; docs/multibody.md "Elements:
# a distributing coupling at the wrist pin"): jobs/models/slider_crank_flexible.yaml with the rod meshed 10 x 2, 20 x 4 and
# 40 x 8 CPS4 (its end x = 0 clamped, every node of the edge), Craig-Bampton with every node of the far end as boundary and
# 4 modes, the wrist pin and the tip output spread over those nodes; the clearance out of reach (c = 1), nsgalpha
# rho_inf = 0.8, h = 1e-5 s over 5 ms:
# (a) with the weights of a uniform traction on the edge (`weights1: [0.5, 1, ..., 1, 0.5]`, the tributary lengths: a
#     distributing coupling) the largest differences of the slider's centre and of the crank angle between successive
#     meshes fall by >= 1.5 per refinement (measured 1.89 and 1.82: 3.3e-6 -> 1.75e-6 m, 5.0e-5 -> 2.7e-5 rad);
# (b) with equal weights (the same ROMs) they do not (ratio <= 1.3; measured 1.01 and 0.92), and the consistent pin's last
#     difference is below a quarter of theirs (measured 1.75e-6 against 1.99e-5 m): the test fails if the weights are
#     ignored;
# (c) `weights1: tributary` (vicms computes the tributary lengths from the boundary nodes' positions in the ROM) on 20 x 4:
#     the outputs equal to those with the weights given, to 1e-9 of their largest (the weights differ in the last bits);
# (d) bad input (the model file and its line named, non-zero exit; on 1 and 2 ranks for the first): a weight count that
#     differs from the nodes', a negative weight, weights without nodes, 'tributary' with a node that is not a boundary
#     node of the ROM, with a node listed twice.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
model="$VICMS_SOURCE/jobs/models/slider_crank_flexible.yaml"
for e in "10 2" "20 4" "40 8"; do
  set -- $e
  nodes=$(seq -s, $(($1 + 1)) $(($1 + 1)) $((($2 + 1) * ($1 + 1)))) # the far end's nodes x = 0.306, bottom to top
  outs=$(for i in ${nodes//,/ }; do printf "%s:x,%s:y," $i $i; done)
  must "reduce the rod $1 x $2" mpi 60 1 reduce -mesh_rect_cells $1,$2 -mesh_rect_lengths 0.306,0.30443 -mesh_rect_thickness 5.2297e-5 \
    -mesh_rect_origin 0,-0.152215 -model_young 2e11 -model_poisson 0.3 -model_density 7800 -model_clamp xmin -cms_type cb \
    -cms_contact_nodes $nodes -cms_contact_dirs 2 -cms_contact_normal 1,0,0 -cms_contact_t1 0,1,0 -cms_num_modes 4 -cms_outputs ${outs%,} \
    -cms_frame_invariants -cms_units SI -rom_file rod$1.h5 || exit 1
  stems="[$(for i in ${nodes//,/ }; do printf "n%s, " $i; done | sed 's/, $//')]"
  w="[0.5$(for _ in $(seq 2 $2); do printf ", 1"; done), 0.5]"
  sed -e "s/rom: slider_crank_rod.h5/rom: rod$1.h5/" -e "s/node1: \[n21, n42, n63, n84, n105\], weights1: tributary/node1: $stems, weights1: $w/" -e "s/node: \[n21, n42, n63, n84, n105\], weights: tributary/node: $stems, weights: $w/" \
    "$model" >consistent$1.yaml
  sed -e "s/rom: slider_crank_rod.h5/rom: rod$1.h5/" -e "s/node1: \[n21, n42, n63, n84, n105\], weights1: tributary/node1: $stems/" -e "s/node: \[n21, n42, n63, n84, n105\], weights: tributary/node: $stems/" "$model" >equal$1.yaml
  for pin in consistent equal; do
    must "$pin pin, $1 x $2" mpi 60 1 simulate -system_type multibody -mb_model $pin$1.yaml -mb_param_c 1 -step_type nsgalpha -step_rho_inf 0.8 \
      -step_dt 1e-5 -step_end_time 0.005 -results_file $pin$1.r.h5 || exit 1
  done
done
sed -e 's/weights1: \[[0-9., ]*\]/weights1: tributary/' -e 's/weights: \[[0-9., ]*\]/weights: tributary/' consistent20.yaml >tributary20.yaml
must "tributary weights, 20 x 4" mpi 60 1 simulate -system_type multibody -mb_model tributary20.yaml -mb_param_c 1 -step_type nsgalpha \
  -step_rho_inf 0.8 -step_dt 1e-5 -step_end_time 0.005 -results_file tributary20.r.h5 || exit 1
VICMS_SOURCE="$VICMS_SOURCE" $py - <<'PY' || fail=1
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
import mbcheck
from mbcheck import case, check


def differences(pin):
    o = [case(f"{pin}{nx}.r.h5")[1] for nx in (10, 20, 40)]
    return [(max(np.abs(b["slider_x"] - a["slider_x"]).max(), np.abs(b["slider_y"] - a["slider_y"]).max()), np.abs(b["theta1"] - a["theta1"]).max())
            for a, b in zip(o, o[1:])]


c, e = differences("consistent"), differences("equal")
for k, what in ((0, "slider centre"), (1, "crank angle")):
    rc, re = c[0][k] / c[1][k], e[0][k] / e[1][k]
    check(rc >= 1.5, f"consistent weights, {what}: differences {c[0][k]:.2e} (10 x 2 -> 20 x 4), {c[1][k]:.2e} (-> 40 x 8): they fall by {rc:.2f} (>= 1.5)")
    check(re <= 1.3 and c[1][k] <= 0.25 * e[1][k],
          f"equal weights, {what}: differences {e[0][k]:.2e}, {e[1][k]:.2e}: ratio {re:.2f} (<= 1.3: no convergence); the consistent pin's last "
          f"{c[1][k]:.2e} (<= a quarter of it)")
a, b = mbcheck.case("consistent20.r.h5")[1], mbcheck.case("tributary20.r.h5")[1]
d = max(np.abs(a[k] - b[k]).max() / np.abs(a[k]).max() for k in a)
check(d <= 1e-9, f"weights1: tributary against the weights given (20 x 4): outputs within {d:.1e} of their largest (<= 1e-9)")
sys.exit(mbcheck.bad)
PY
# (d)
bad() { # NAME MODEL SED_SCRIPT MESSAGE [RANKS]: the model edited by the sed script is refused with the message at line 21
  sed -e "$3" "$2" >$1.yaml
  refuse_simulate "$1" "${5:-1}" "$1.yaml:21: $4" -system_type multibody -mb_model $1.yaml -step_type nsgalpha -step_dt 1e-5 -step_end_time 1e-4
}
bad count consistent10.yaml 's/weights1: \[0.5, 1, 0.5\]/weights1: [0.5, 1]/' "'weights1' must list one weight per node of 'node1' (3 numbers)" "1 2"
bad negative consistent10.yaml 's/weights1: \[0.5, 1, 0.5\]/weights1: [0.5, -1, 0.5]/' "'weights1' has the weight -1: a node's weight must be positive"
bad nonodes consistent10.yaml 's/node1: \[n11, n22, n33\], //' "'weights1' weighs the nodes of 'node1', and there is no 'node1'"
bad notboundary tributary20.yaml 's/node1: \[n21, /node1: [n20, /' "'weights1: tributary' needs each node's position, and 'n20' is not a boundary node"
bad twice tributary20.yaml 's/node1: \[n21, n42, /node1: [n21, n21, /' "'weights1: tributary' needs distinct nodes"
exit $fail
