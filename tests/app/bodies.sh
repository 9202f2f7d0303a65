#!/usr/bin/env bash
# `vicms reduce -bodies` (seed 003, issue 14): the bodies file does not depend on how the bodies are spread over the ranks
# (-bodies_parallel sequential | groups on 1, 2 and 3 ranks: K, M, D, frequencies, loads, outputs, shapes within 1e-10 of
# 1 rank, boundary and contact tables equal); bodies taken as element sets of one Abaqus deck (-bodies_mesh_file,
# -body_NAME_mesh_elset) give the file of the same bodies from separate decks, within 1e-10, with the deck's node ids;
# bad input is refused with a message naming the option, and an error on one rank group does not hang the others.
source "$(dirname "$0")/lib.sh"
vicms_need_h5py
vicms_workdir
cmp="$py $VICMS_SOURCE/tests/app/compare_bodies.py"

# the coarse beams of test_coupling and cea.sh (2 x 20 CPS4, 10 modes each)
modes="-body_beam1_cms_contact_set xmin_ymin,xmax -body_beam1_cms_num_modes 10 -body_beam1_cms_rayleigh 12.6,3.2e-7
  -body_beam2_model_clamp xmin -body_beam2_cms_contact_set ymax -body_beam2_cms_num_modes 10 -body_beam2_cms_rayleigh 12.6,3.2e-7"
beams="-bodies beam1,beam2 $modes
  -body_beam1_mesh_rect_cells 20,2 -body_beam1_mesh_rect_lengths 75,5 -body_beam1_mesh_rect_thickness 10 -body_beam1_mesh_rect_origin 50,10
  -body_beam1_mesh_rect_angle 30 -body_beam1_model_young 70000 -body_beam1_model_poisson 0.33 -body_beam1_model_density 2.7e-9
  -body_beam2_mesh_rect_cells 20,2 -body_beam2_mesh_rect_lengths 300,10 -body_beam2_mesh_rect_thickness 10 -body_beam2_model_young 2400
  -body_beam2_model_poisson 0.37 -body_beam2_model_density 1.2e-9"

# 1. sequential and rank groups, 1 to 3 ranks, against one rank
# shellcheck disable=SC2086
must "reduce, 1 rank" mpi 60 1 reduce $beams -rom_file ref.h5 || exit 1
for run in "sequential 2" "sequential 3" "groups 2" "groups 3"; do
  set -- $run
  # shellcheck disable=SC2086
  must "reduce, $1 on $2 ranks" mpi 60 "$2" reduce $beams -bodies_parallel "$1" -rom_file "$1$2.h5" || continue
  want="one after the other on all ranks"
  [ "$1" = groups ] && want="rank groups"
  grep -q "^Reduced 2 bodies in .* ($want)" <<<"$LAST" || { echo "FAIL $1 on $2 ranks: not reduced $want"; fail=1; }
  must "$1 on $2 ranks against 1 rank" $cmp ref.h5 "$1$2.h5" 1e-10 && echo "$1 on $2 ranks: $LAST"
done

# 2. the same two beams as element sets BEAM1, BEAM2 of one deck (nodes 1.., 1001..), and as two decks
$py - <<'PY'
import math
def beam(off, nx, ny, L, H, x0, y0, deg, name, nsets):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    node = lambda i, j: off + 1 + i + (nx + 1) * j
    nodes = ["%d, %.17g, %.17g" % (node(i, j), x0 + c * L * i / nx - s * H * j / ny, y0 + s * L * i / nx + c * H * j / ny)
             for j in range(ny + 1) for i in range(nx + 1)]
    elems = ["%d, %d, %d, %d, %d" % (off + 1 + i + nx * j, node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1))
             for j in range(ny) for i in range(nx)]
    sets = {k: [node(i, j) for j in range(ny + 1) for i in range(nx + 1) if f(i, j)] for k, f in nsets.items()}
    return nodes, elems, sets
b1 = beam(0, 20, 2, 75, 5, 50, 10, 30, "BEAM1", {"C1": lambda i, j: i == 0 and j == 0, "A1": lambda i, j: i == 20})
b2 = beam(1000, 20, 2, 300, 10, 0, 0, 0, "BEAM2", {"TOP2": lambda i, j: j == 2, "LEFT2": lambda i, j: i == 0})
mats = {"BEAM1": ("AL", 70000, 0.33, 2.7e-9), "BEAM2": ("PC", 2400, 0.37, 1.2e-9)}
def deck(parts, extra=""):
    out = []
    for name, (nodes, elems, sets) in parts:
        out += ["*NODE"] + nodes + ["*ELEMENT, TYPE=CPS4, ELSET=%s" % name] + elems
        for k, ids in sets.items():
            out += ["*NSET, NSET=%s" % k] + [", ".join(map(str, ids[i:i + 8])) for i in range(0, len(ids), 8)]
    out.append(extra)
    for name, _ in parts:
        m, E, nu, rho = mats[name]
        out += ["*MATERIAL, NAME=%s" % m, "*ELASTIC", "%g, %g" % (E, nu), "*DENSITY", "%g" % rho,
                "*SOLID SECTION, ELSET=%s, MATERIAL=%s" % (name, m), "10."]
    return "\n".join(out) + "\n"
open("beam1.inp", "w").write(deck([("BEAM1", b1)]))
open("beam2.inp", "w").write(deck([("BEAM2", b2)]))
open("both.inp", "w").write(deck([("BEAM1", b1), ("BEAM2", b2)]))
# a link element joining beam1's corner C (node 1) to beam2: BEAM1 then shares node 1 with an element outside it
link = "*ELEMENT, TYPE=CPS4, ELSET=LINK\n9999, 1, 1012, 1033, 1032\n*SOLID SECTION, ELSET=LINK, MATERIAL=PC\n10."
open("shared.inp", "w").write(deck([("BEAM1", b1), ("BEAM2", b2)], link))
PY
decks="-bodies beam1,beam2 -body_beam1_cms_contact_set C1,A1 -body_beam1_cms_num_modes 10 -body_beam1_cms_rayleigh 12.6,3.2e-7
  -body_beam2_model_clamp LEFT2 -body_beam2_cms_contact_set TOP2 -body_beam2_cms_num_modes 10 -body_beam2_cms_rayleigh 12.6,3.2e-7"
# shellcheck disable=SC2086
must "reduce two decks" mpi 60 1 reduce $decks -body_beam1_mesh_file beam1.inp -body_beam2_mesh_file beam2.inp -rom_file decks.h5 || exit 1
for run in "1 sequential -bodies_mesh_file both.inp" "2 groups -bodies_mesh_file both.inp" \
  "3 sequential -body_beam1_mesh_file both.inp -body_beam2_mesh_file both.inp"; do
  set -- $run
  np=$1 mode=$2
  shift 2
  # shellcheck disable=SC2086
  must "reduce element sets, $mode on $np ranks, $1" mpi 60 "$np" reduce $decks "$@" -body_beam1_mesh_elset BEAM1 -body_beam2_mesh_elset beam2 \
    -bodies_parallel "$mode" -rom_file "elset$np.h5" || continue
  grep -q "Mesh: both.inp element set BEAM1, 2D, 63 nodes, 40 elements" <<<"$LAST" || { echo "FAIL the mesh of body beam1 is not 63 nodes, 40 elements of BEAM1"; fail=1; }
  must "element sets ($mode, $np ranks, $1) against two decks" $cmp decks.h5 "elset$np.h5" 1e-10 --options-differ && echo "element sets, $mode on $np ranks, $1: $LAST"
done
must "deck node ids in the boundary table" $py -c '
import h5py, numpy as np, sys
f = h5py.File("elset1.h5", "r")
a, b = f["bodies/beam1/boundary/node_ids"][()].ravel(), f["bodies/beam2/boundary/node_ids"][()].ravel()
if a[0] != 1 or list(b[:2]) != [1043, 1044] or len(b) != 21: sys.exit("FAIL boundary node ids %s ... and %s ..." % (a[:3], b[:3]))
print("boundary node ids: beam1 %s, beam2 %d..%d" % (list(a), b[0], b[-1]))' && echo "$LAST"

# 3. bad input
refuse "unknown element set" "1 2" "-body_beam2_mesh_elset: element set 'NOPE' is not in both.inp; its element sets are: BEAM1, BEAM2" \
  reduce $decks -bodies_mesh_file both.inp -body_beam1_mesh_elset BEAM1 -body_beam2_mesh_elset NOPE -rom_file bad.h5
refuse "element set sharing a node" "1 2" \
  "-body_beam1_mesh_elset: element set 'BEAM1' of shared.inp shares node 1 with element 9999 (element set LINK) outside it; bodies are coupled only through contact" \
  reduce $decks -bodies_mesh_file shared.inp -body_beam1_mesh_elset BEAM1 -body_beam2_mesh_elset BEAM2 -rom_file bad.h5
refuse "element set of a built-in mesh" "1" "-body_beam1_mesh_elset BEAM1: an element set is taken from a mesh file" \
  reduce $beams -body_beam1_mesh_elset BEAM1 -rom_file bad.h5
refuse "unused -bodies_mesh_file" "1" "-bodies_mesh_file: no body takes its mesh from it" reduce $beams -bodies_mesh_file both.inp -rom_file bad.h5
refuse "missing -bodies_mesh_file" "1 2" "-bodies_mesh_file: cannot read 'none.inp' (the mesh of body beam1)" \
  reduce $decks -bodies_mesh_file none.inp -body_beam1_mesh_elset BEAM1 -body_beam2_mesh_elset BEAM2 -rom_file bad.h5
refuse "-mesh_elset beside -bodies" "1" "-mesh_elset is an option of a single-body reduction" reduce $beams -mesh_elset BEAM1 -rom_file bad.h5
refuse "-bodies_parallel" "1" "bodies_parallel" reduce $beams -bodies_parallel both -rom_file bad.h5
# an error on the group of beam1 while the group of beam2 reduces: every rank stops, none waits
refuse "error on one rank group" "2 3" "-body_beam1_cms_contact_set: node set 'nosuch' is not in the mesh" \
  reduce $beams -bodies_parallel groups -body_beam1_cms_contact_set nosuch -rom_file bad.h5
# every real of a bodies file is checked where it is read, the message naming the file, the body, the dataset and the entry (issue 24,
# item 5): a NaN boundary coordinate made every gap of that slave node NaN, never a penetration, and `vicms slide` ran to the end
# through the master (complete = 1)
$py - <<'PY'
import shutil
import h5py
import numpy as np

for name, dset, idx, val in (("nan_coords.h5", "bodies/beam1/boundary/coords", (0, 1), np.nan),
                             ("inf_frame.h5", "bodies/beam2/contact/frames", (1, 4), -np.inf),
                             ("nan_k.h5", "bodies/beam2/K", (3, 5), np.nan)):
    shutil.copy("ref.h5", name)
    with h5py.File(name, "r+") as f:
        a = f[dset][()]
        a[idx] = val
        f[dset][...] = a
PY
refuse "NaN boundary coordinate" "1 2" \
  'nan_coords.h5 (body beam1): dataset boundary/coords, entry \[0\]\[1\] (0-based) = NaN is not a finite number' \
  slide -rom_file nan_coords.h5 -slide_slave beam1:1 -slide_master beam2 -slide_drive beam1 -slide_drive_velocity 30 -slide_preload 0,-2 \
  -slide_end_time 1e-5 -dual_dt 1e-7 -slide_file bad.s.h5
refuse "-Inf contact frame" "1 2" \
  'inf_frame.h5 (body beam2): contact 1 (node [0-9]*): dataset contact/frames, entry \[1\]\[4\] (0-based) = -Inf is not a finite number' info inf_frame.h5
refuse "NaN stiffness" "1" 'nan_k.h5 (body beam2): dataset K, entry \[3\]\[5\] (0-based) = NaN is not a finite number' info nan_k.h5
if ls bad.s.h5* >/dev/null 2>&1; then
  echo "FAIL a refused slide left a history file"; fail=1
fi
if ls bad.h5* >/dev/null 2>&1; then
  echo "FAIL a refused run left a bodies file"; fail=1
fi
exit $fail
