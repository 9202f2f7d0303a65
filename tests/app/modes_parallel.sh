#!/usr/bin/env bash
# The modes file written in parallel (issue 26: each rank writes its block of node rows of every shape, nothing gathered
# on rank 0): a clamped 3 x 4 x 10 hex8 box (distinct frequencies) by `vicms modes` on 1, 2 and 3 ranks. The frequencies
# agree within 1e-10 and every shape, up to its sign, within 1e-7 of its largest entry (the eigensolver's tolerance is
# 1e-10 on the residual); the clamped face's rows are exactly zero; the file's layout is docs/results.md's (num_nodes x 3
# per mode, its attributes), and its mesh datasets, written in parallel too, equal the 1-rank file's. The -info lines of each
# rank: the elements and DOFs owned add up to the model's, each rank holds its own elements and their nodes only (the box
# held in parts) and the DOF map of part of the nodes only.
# Repeated eigenvalues: a square 4 x 4 x 24 box's bending pairs (its 10th and 11th modes, 28055.758 Hz twice) asked with
# -modes_num 12 on 1, 2 and 3 ranks equal the lowest 12 of a 24-mode run within 1e-9 (before the eigensolver's margin of
# pairs beyond those asked, the pair came back once and every later mode shifted by one: the 11th was 31860 Hz). Asked for
# 10 modes, a cut through that pair, vicms warns once naming -modes_num 11; with 11 and 12 it does not.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
box="-mesh_box_cells 3,4,10 -mesh_box_lengths 0.3,0.4,1 -model_young 210e9 -model_density 7800 -model_clamp zmin -modes_num 8"
for np in 1 2 3; do
  must "modes np=$np" mpi 60 $np modes $box -modes_file m$np.h5 -info || continue
  grep -E "Mesh held on this rank|Model on this rank" <<<"$LAST" >info$np.txt
done
square="-mesh_box_cells 4,4,24 -mesh_box_lengths 0.02,0.02,0.12 -model_young 210e9 -model_poisson 0.3 -model_density 7800 -model_clamp zmin"
must "square box, 24 modes" mpi 60 1 modes $square -modes_num 24 -modes_file s24.h5
for np in 1 2 3; do must "square box, 12 modes, np=$np" mpi 60 $np modes $square -modes_num 12 -modes_file s12_$np.h5; done
# a cut through the pair (10 modes: the 10th is one vector of the 10th and 11th's plane) is told, once, with the fix; 11 and 12 are not
for n in 10 11 12; do
  must "square box, $n modes" mpi 60 2 modes $square -modes_num $n -modes_file s$n.h5 || continue
  warned=$(grep -c "warning: vicms modes: mode 10 (28055.758 Hz) and the first mode left out (28055.758 Hz) are a repeated pair.*-modes_num 11 keeps" <<<"$LAST")
  expect "square box, $n modes: the split pair told ($([ $n = 10 ] && echo once || echo never))" "$warned" "$([ $n = 10 ] && echo 1 || echo 0)"
done
[ $fail -eq 0 ] || exit 1
$py - <<'PY' || fail=1
import os
import re
import sys
import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
import mbcheck
from mbcheck import check
files = {n: h5py.File("m%d.h5" % n, "r") for n in (1, 2, 3)}
nn, ne, ndof = 4 * 5 * 11, 3 * 4 * 10, 4 * 5 * 10 * 3
ref = files[1]
z = ref["mesh/coordinates"][:, 2]
for n, f in files.items():
    shapes = [f["modes/%d" % k][()] for k in range(1, 9)]
    dims = [f["modes/%d" % k].attrs["dims"] for k in range(1, 9)]
    dims = [d.decode() if isinstance(d, bytes) else d for d in dims]
    check(all(s.shape == (nn, 3) for s in shapes) and all(d == "node,xyz" for d in dims), "%d ranks: 8 shapes of %d nodes x 3, dims node,xyz" % (n, nn))
    check(all(np.all(s[z == 0] == 0) for s in shapes) and all(np.abs(s[z > 0]).max() > 0 for s in shapes),
          "%d ranks: the clamped face's rows are exactly zero, the others not all zero" % n)
    topo = f["mesh/topology"][()]
    check(np.array_equal(f["mesh/node_ids"][()], np.arange(1, nn + 1)) and topo.size == 9 * ne and np.all(topo[::9] == 9)
          and f["mesh/topology"].attrs["num_elements"] == ne, "%d ranks: /mesh node ids 1..%d, %d hexahedron cells" % (n, nn, ne))
    if n == 1:
        continue
    for d in ("coordinates", "node_ids", "topology"):
        check(np.array_equal(f["mesh/" + d][()], ref["mesh/" + d][()]), "%d ranks: /mesh/%s (written in parallel) equals 1 rank's" % (n, d))
    df = np.abs(f["frequencies_hz"][()] / ref["frequencies_hz"][()] - 1).max()
    check(df < 1e-10, "%d ranks vs 1: frequencies within %.1e (1e-10)" % (n, df))
    ds = 0.0
    for k in range(1, 9):
        a, b = ref["modes/%d" % k][()], f["modes/%d" % k][()]
        s = 1.0 if np.abs(a - b).max() < np.abs(a + b).max() else -1.0
        ds = max(ds, np.abs(a - s * b).max() / np.abs(a).max())
    check(ds < 1e-7, "%d ranks vs 1: shapes (up to sign) within %.1e of their largest entry (1e-7)" % (n, ds))
    check(all(f["modes/%d" % k].attrs["frequency_hz"] == f["frequencies_hz"][k - 1] for k in range(1, 9)), "%d ranks: frequency_hz attributes" % n)
    log = open("info%d.txt" % n).read()
    mesh = [tuple(map(int, m)) for m in re.findall(r"Mesh held on this rank: (\d+) nodes of (\d+), (\d+) elements of (\d+), (\d+) elements owned", log)]
    model = [tuple(map(int, m)) for m in re.findall(r"Model on this rank: (\d+) of (\d+) DOFs owned", log)]
    check(len(mesh) == n and sum(m[4] for m in mesh) == ne and all(m[1] == nn and m[3] == ne for m in mesh),
          "%d ranks: elements owned %s add up to %d" % (n, [m[4] for m in mesh], ne))
    check(all(m[2] == m[4] and m[0] < nn for m in mesh) and sum(m[0] for m in mesh) >= nn,
          "%d ranks: the box held in parts, each rank its own elements and their nodes %s of %d" % (n, [m[0] for m in mesh], nn))
    check(len(model) == n and sum(m[0] for m in model) == ndof and all(m[1] == ndof for m in model),
          "%d ranks: DOFs owned %s add up to %d" % (n, [m[0] for m in model], ndof))
    held = [tuple(map(int, m)) for m in re.findall(r"node-to-DOF map of (\d+) of (\d+) nodes", log)]
    check(len(held) == n and all(h[0] < h[1] == nn for h in held) and sum(h[0] for h in held) >= nn,
          "%d ranks: each holds the DOF map of part of the %d nodes %s" % (n, nn, [h[0] for h in held]))
f24 = h5py.File("s24.h5", "r")["frequencies_hz"][()]
for n in (1, 2, 3):
    f12 = h5py.File("s12_%d.h5" % n, "r")["frequencies_hz"][()]
    d = np.max(np.abs(f12 - f24[:12]) / f24[:12])
    check(len(f12) == 12 and d <= 1e-9 and abs(f12[9] / f12[10] - 1) <= 1e-9,
          "square box, %d ranks: 12 modes equal the lowest 12 of 24 within %.1e (1e-9), the pair %.3f, %.3f Hz both there" % (n, d, f12[9], f12[10]))
raise SystemExit(mbcheck.bad)
PY
exit $fail
