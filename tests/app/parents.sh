#!/usr/bin/env bash
# Parents given as matrices exported by another FE code (docs/parents.md), against CalculiX ccx itself:
# 1. a C3D20 cantilever deck exported by ccx (*FREQUENCY, SOLVER=MATRIXSTORAGE: JOB.sti, JOB.mas, JOB.dof) and reduced by
#    vicms (-parent_matrices JOB) gives the ROM of vicms's own assembly of the same deck: K, M, D, loads, outputs and component
#    frequencies within 1e-8 of their largest entry, for cb, cb_massless, macneal and rubin, with contact frames turned off the
#    axes; the matrix reading on 2 and 3 ranks gives the 1-rank ROM (1e-8). The same matrices written as Matrix Market (K in both
#    triangles, M as the lower triangle, a DOF map) and as Abaqus coordinate text give the ROM of the ccx files (1e-12);
#    -model_clamp on the matrices equals it on the assembly (frequencies, 1e-8).
# 2. models vicms cannot assemble, a B32 beam and an S8 shell that ccx expands into C3D20R solids: the first 6 frequencies of
#    vicms modes on their matrices equal the eigenvalues of ccx's own *FREQUENCY step (read from its .eig file) within 1e-8,
#    on 1, 2 and 3 ranks (a 2 x 2 mm beam, a 2 mm shell: ccx writes its matrices with 14 digits, and a thinner section's
#    expansion is ill-conditioned enough for that rounding to move the frequencies by 5e-8 (2 x 1 mm beam, 1 mm shell), where
#    a dense solve of the same files agrees with vicms to 6e-9); the beam is reduced (macneal, a contact at its tip node, which ccx expanded into 8 nodes: the
#    contact coordinate is their mean) and simulated falling on an obstacle under gravity: the contact closes, and the output
#    named by the node set (-cms_outputs TIP:z) is the contact's normal displacement (1e-12).
# 3. malformed and inconsistent files are refused with the file and line: sizes, DOF map lines, directions and nodes,
#    non-symmetric K, repeated entries, a truncated file, entries out of range, Abaqus lines; on 1 and 3 ranks.
# 4. `vicms info` on a deck and a Gmsh file lists the node sets and their nodes.
# Skipped (77) when ccx is absent.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if ! command -v ccx >/dev/null 2>&1; then
  echo "skipped: CalculiX ccx is not installed (Debian package calculix-ccx)"
  exit 77
fi
vicms_need_h5py
vicms_workdir
export OMP_NUM_THREADS=1
# one rank without mpirun's start-up
one() {
  local t=$1
  shift 2
  timeout "$t" "$VICMS_BIN" "$@"
}

# deck.py NX: a 40 x 5 x 3 mm steel cantilever (N, mm, tonne, s) of NX C3D20 bricks along x, clamped at x = 0 (*BOUNDARY),
# node sets TIP (the node at (40, 0, 0)) and TIPS (the nodes at x = 40), one matrix storage step
cat >deck.py <<'EOF'
import itertools, sys
nx = int(sys.argv[1])
L = (40.0, 5.0, 3.0)
C = [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0), (0, 0, 2), (2, 0, 2), (2, 2, 2), (0, 2, 2)]
E = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)]
ids, elems = {}, []
for i in range(nx):
    pts = [tuple(c) for c in C] + [tuple((C[a][d] + C[b][d]) // 2 for d in range(3)) for a, b in E]
    elems.append([ids.setdefault((2 * i + p[0], p[1], p[2]), len(ids) + 1) for p in pts])
scale = (L[0] / (2 * nx), L[1] / 2, L[2] / 2)
out = ["*NODE, NSET=NALL"] + ["%d, %.17g, %.17g, %.17g" % (n, p[0] * scale[0], p[1] * scale[1], p[2] * scale[2]) for p, n in ids.items()]
out.append("*ELEMENT, TYPE=C3D20, ELSET=EALL")
for e, c in enumerate(elems):
    f = [str(e + 1)] + [str(x) for x in c]
    out += [", ".join(f[:16]) + ",", ", ".join(f[16:])]
out += ["*NSET, NSET=ROOT", ", ".join(str(n) for p, n in ids.items() if p[0] == 0)]
out += ["*NSET, NSET=TIP", str(ids[(2 * nx, 0, 0)])]
out += ["*NSET, NSET=TIPS", ", ".join(str(n) for p, n in ids.items() if p[0] == 2 * nx)]
out += ["*BOUNDARY", "ROOT, 1, 3", "*MATERIAL, NAME=STEEL", "*ELASTIC", "210000., 0.3", "*DENSITY", "7.85e-9",
        "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL", "*STEP", "*FREQUENCY, SOLVER=MATRIXSTORAGE", "*END STEP"]
print("\n".join(out))
EOF

# cmp_rom.py A B TOL: the same datasets in both ROMs, each within TOL of its largest entry; prints the largest relative difference
cat >cmp_rom.py <<'EOF'
import sys, h5py, numpy as np
a, b, tol = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"), float(sys.argv[3])
def names(f):
    out = []
    f.visititems(lambda n, o: out.append(n) if isinstance(o, h5py.Dataset) and n.split("/")[0] in ("K", "M", "D", "frequencies_hz", "loads", "outputs", "contact") else None)
    return sorted(out)
na, nb = names(a), names(b)
if na != nb:
    sys.exit("FAIL %s and %s hold other datasets: %s / %s" % (sys.argv[1], sys.argv[2], na, nb))
worst, where = 0.0, ""
for n in na:
    x, y = np.asarray(a[n], float), np.asarray(b[n], float)
    if x.shape != y.shape:
        sys.exit("FAIL %s: shapes %s and %s" % (n, x.shape, y.shape))
    scale = max(np.abs(x).max(), 1e-300)
    d = np.abs(x - y).max() / scale
    if d > worst:
        worst, where = d, n
print("%.2e %s" % (worst, where))
sys.exit(0 if worst <= tol else 1)
EOF

# convert.py JOB: the ccx matrices as Matrix Market (K.mtx in both triangles, M.mtx the lower triangle, map.txt) and as Abaqus
# coordinate text (K_STIF1.mtx the lower triangle, M_MASS1.mtx both), values as ccx wrote them
cat >convert.py <<'EOF'
import sys
job = sys.argv[1]
labels = [tuple(int(x) for x in l.split(".")) for l in open(job + ".dof")]
n = len(labels)
def entries(ext):
    return [(int(i), int(j), v) for i, j, v in (l.split() for l in open(job + ext))]
K, M = entries(".sti"), entries(".mas")
with open("map.txt", "w") as f:
    f.write("# node direction, one line per row\n" + "".join("%d %d\n" % l for l in labels))
full = [(i, j, v) for i, j, v in K] + [(j, i, v) for i, j, v in K if i != j]
with open("K.mtx", "w") as f:
    f.write("%%%%MatrixMarket matrix coordinate real general\n%% from %s.sti\n%d %d %d\n" % (job, n, n, len(full)))
    f.write("".join("%d %d %s\n" % e for e in full))
with open("M.mtx", "w") as f:
    f.write("%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n" % (n, n, len(M)))
    f.write("".join("%d %d %s\n" % (j, i, v) for i, j, v in M))
def abaqus(name, ents):
    with open(name, "w") as f:
        f.write("** written from %s\n" % job)
        f.write("".join("%d,%d, %d,%d, %s\n" % (labels[i - 1] + labels[j - 1] + (v,)) for i, j, v in ents))
abaqus("K_STIF1.mtx", [(j, i, v) for i, j, v in K])
abaqus("M_MASS1.mtx", [(i, j, v) for i, j, v in M] + [(j, i, v) for i, j, v in M if i != j])
EOF

# eig.py JOB N MODES.h5 TOL: ccx's first N eigenvalues (JOB.eig, full precision) against the frequencies of a vicms modes file
cat >eig.py <<'EOF'
import math, struct, sys, h5py
job, n, tol = sys.argv[1], int(sys.argv[2]), float(sys.argv[4])
raw = open(job + ".eig", "rb").read()
ints = struct.unpack("<4i", raw[:16])
count = next((i for i in (2, 3) if ints[i] == n), None)
if ints[0] != 0 or ints[1] != 1 or count is None:
    sys.exit("FAIL %s.eig: unexpected header %s" % (job, ints))
lam = struct.unpack("<%dd" % n, raw[4 * (count + 1):4 * (count + 1) + 8 * n])
ccx = [math.sqrt(x) / (2 * math.pi) for x in lam]
vic = list(h5py.File(sys.argv[3], "r")["frequencies_hz"][:n])
d = max(abs(v / c - 1) for v, c in zip(vic, ccx))
print("ccx f1 %.12g Hz, vicms f1 %.12g Hz, max rel diff of %d frequencies %.2e" % (ccx[0], vic[0], n, d))
sys.exit(0 if d <= tol else 1)
EOF

# ------------------------------------------------------------------ 1. the same deck: ccx's matrices and vicms's assembly
$py deck.py 4 >bar.inp
if ! timeout 120 ccx -i bar >bar.ccx.log 2>&1 || [ ! -s bar.sti ]; then
  echo "FAIL ccx did not write the matrices of bar.inp:"; tail -5 bar.ccx.log; exit 1
fi
tip=$(awk 'f { print; exit } /NSET=TIP$/ { f = 1 }' bar.inp)
red=(-cms_num_modes 6 -cms_contact_set TIPS -cms_contact_normal 0,0.6,0.8 -cms_contact_dirs 3 -cms_outputs TIP:z,TIPS:y,$tip:z -cms_gravity 0,0,-9810)
for t in cb cb_massless macneal rubin; do
  must "reduce bar.inp ($t, assembled)" one 60 1 reduce -mesh_file bar.inp "${red[@]}" -cms_type $t -rom_file asm_$t.h5 || continue
  must "reduce bar ($t, ccx matrices)" one 60 1 reduce -mesh_file bar.inp -parent_matrices bar "${red[@]}" -cms_type $t -rom_file ccx_$t.h5 || continue
  if r=$($py cmp_rom.py asm_$t.h5 ccx_$t.h5 1e-8); then
    echo "ok   $t: the ROM of ccx's matrices = the ROM of vicms's assembly of bar.inp (max rel diff $r)"
  else
    echo "FAIL $t: the ROM of ccx's matrices differs from vicms's assembly: $r (tolerance 1e-8)"; fail=1
  fi
done
# outputs named by node sets: TIP (one node) is the node's own output, TIPS one output per node
$py - ccx_cb.h5 asm_cb.h5 "$tip" <<'EOF' || fail=1
import sys, h5py, numpy as np
for name in sys.argv[1:3]:
    o = h5py.File(name, "r")["outputs"]
    per_node = sorted(k for k in o if k.startswith("TIPS_n") and k.endswith("_y"))
    ok = np.array_equal(o["TIP_z"][:], o["n%s_z" % sys.argv[3]][:]) and len(per_node) == 8
    print("%s %s: output TIP_z = n%s_z exactly, TIPS:y gave %d outputs (8 nodes)" % ("ok  " if ok else "FAIL", name, sys.argv[3], len(per_node)))
    if not ok:
        sys.exit(1)
EOF
for np in 2 3; do
  must "reduce bar (ccx matrices, $np ranks)" mpi 60 $np reduce -mesh_file bar.inp -parent_matrices bar "${red[@]}" -cms_type cb -rom_file ccx_cb_$np.h5 || continue
  r=$($py cmp_rom.py ccx_cb.h5 ccx_cb_$np.h5 1e-8) && echo "ok   ccx matrices on $np ranks = 1 rank (max rel diff $r)" ||
    { echo "FAIL ccx matrices on $np ranks differ from 1 rank: $r"; fail=1; }
done
# -model_clamp removes the rows of a set's nodes, as it clamps them in an assembly
if must "modes, TIPS clamped (assembled)" one 60 1 modes -mesh_file bar.inp -model_clamp TIPS -modes_num 6 -modes_file clamp_asm.h5 &&
  must "modes, TIPS clamped (ccx matrices)" one 60 1 modes -mesh_file bar.inp -parent_matrices bar -model_clamp TIPS -modes_num 6 -modes_file clamp_ccx.h5; then
  r=$($py cmp_rom.py clamp_asm.h5 clamp_ccx.h5 1e-8) && echo "ok   -model_clamp TIPS on ccx's matrices = on the assembly (frequencies, max rel diff $r)" ||
    { echo "FAIL -model_clamp TIPS on ccx's matrices differs from the assembly: $r"; fail=1; }
fi
$py convert.py bar || { echo "FAIL convert.py"; exit 1; }
for np in 1 3; do
  if must "reduce (Matrix Market, $np ranks)" mpi 60 $np reduce -mesh_file bar.inp -parent_matrices K.mtx,M.mtx -parent_dofs map.txt "${red[@]}" \
    -cms_type cb -rom_file mtx_$np.h5; then
    r=$($py cmp_rom.py ccx_cb.h5 mtx_$np.h5 1e-12) && echo "ok   Matrix Market on $np ranks = ccx files (max rel diff $r)" ||
      { echo "FAIL Matrix Market on $np ranks differs from the ccx files: $r"; fail=1; }
  fi
  if must "reduce (Abaqus, $np ranks)" mpi 60 $np reduce -mesh_file bar.inp -parent_matrices K_STIF1.mtx,M_MASS1.mtx "${red[@]}" -cms_type cb \
    -rom_file abq_$np.h5; then
    r=$($py cmp_rom.py ccx_cb.h5 abq_$np.h5 1e-12) && echo "ok   Abaqus coordinate text on $np ranks = ccx files (max rel diff $r)" ||
      { echo "FAIL Abaqus coordinate text on $np ranks differs from the ccx files: $r"; fail=1; }
  fi
done

# ------------------------------------------------------------------ 2. a beam and a shell that vicms cannot assemble
cat >beam.inp <<'EOF'
*NODE, NSET=NALL
1, 0, 0, 0
2, 5, 0, 0
3, 10, 0, 0
4, 15, 0, 0
5, 20, 0, 0
6, 25, 0, 0
7, 30, 0, 0
*ELEMENT, TYPE=B32, ELSET=EALL
1, 1, 2, 3
2, 3, 4, 5
3, 5, 6, 7
*NSET, NSET=ROOT
1
*NSET, NSET=TIP
7
*BOUNDARY
ROOT, 1, 6
*MATERIAL, NAME=STEEL
*ELASTIC
210000., 0.3
*DENSITY
7.85e-9
*BEAM SECTION, ELSET=EALL, MATERIAL=STEEL, SECTION=RECT
2., 2.
0., 1., 0.
EOF
cat >shell.inp <<'EOF'
*NODE, NSET=NALL
1, 0, 0, 0
2, 10, 0, 0
3, 20, 0, 0
4, 0, 5, 0
5, 20, 5, 0
6, 0, 10, 0
7, 10, 10, 0
8, 20, 10, 0
9, 30, 0, 0
10, 40, 0, 0
11, 40, 5, 0
12, 30, 10, 0
13, 40, 10, 0
*ELEMENT, TYPE=S8, ELSET=EALL
1, 1, 3, 8, 6, 2, 5, 7, 4
2, 3, 10, 13, 8, 9, 11, 12, 5
*NSET, NSET=ROOT
1, 4, 6
*NSET, NSET=TIP
11
*BOUNDARY
ROOT, 1, 6
*MATERIAL, NAME=STEEL
*ELASTIC
210000., 0.3
*DENSITY
7.85e-9
*SHELL SECTION, ELSET=EALL, MATERIAL=STEEL
2.
EOF
for m in beam shell; do
  cp $m.inp ${m}_f.inp
  printf '*STEP\n*FREQUENCY, SOLVER=MATRIXSTORAGE\n*END STEP\n' >>$m.inp
  printf '*STEP\n*FREQUENCY, STORAGE=YES\n6\n*END STEP\n' >>${m}_f.inp
  if ! timeout 120 ccx -i $m >$m.ccx.log 2>&1 || [ ! -s $m.sti ] || ! timeout 120 ccx -i ${m}_f >${m}_f.ccx.log 2>&1 || [ ! -s ${m}_f.eig ]; then
    echo "FAIL ccx on $m:"; tail -5 $m.ccx.log ${m}_f.ccx.log; fail=1; continue
  fi
  for np in 1 2 3; do
    how=mpi
    [ $np -eq 1 ] && how=one
    must "$m modes ($np ranks)" $how 60 $np modes -mesh_file $m.inp -parent_matrices $m -modes_num 6 -modes_file ${m}_$np.h5 || continue
    r=$($py eig.py ${m}_f 6 ${m}_$np.h5 1e-8) && echo "ok   $m ($(grep -c . $m.dof) rows, $np ranks): $r" ||
      { echo "FAIL $m ($np ranks): vicms's frequencies of ccx's matrices differ from ccx's: $r (tolerance 1e-8)"; fail=1; }
  done
done
if must "reduce the beam" mpi 60 2 reduce -mesh_file beam.inp -parent_matrices beam -cms_type macneal -cms_num_modes 8 -cms_contact_set TIP \
  -cms_contact_normal 0,0,1 -cms_outputs TIP:z -cms_gravity 0,0,-9810 -rom_file beam_rom.h5; then
  if must "simulate the beam" one 60 1 simulate -rom_file beam_rom.h5 -case_loads gravity -contact_gap 1e-5 -step_end_time 0.004 -step_dt auto \
    -results_file beam_r.h5; then
    $py - <<'EOF' || fail=1
import sys, h5py, numpy as np
c = h5py.File("beam_r.h5", "r")["cases/0"]
gap, force, z = c["gaps"][:, 0], c["forces"][:, 0], c["outputs"][:, 0]
# the gap is the initial gap plus the normal (z) displacement of the tip's mean; the tip falls onto the obstacle
d = np.abs(gap - (1e-5 + z)).max() / 1e-5
ok = force.max() > 0 and gap.min() > -1e-9 and d <= 1e-12
print("%s beam simulated: contact force up to %.3g N, smallest gap %.2e mm, |gap - (gap0 + TIP_z)| / gap0 = %.1e" %
      ("ok  " if ok else "FAIL", force.max(), gap.min(), d))
sys.exit(0 if ok else 1)
EOF
  fi
fi

# ------------------------------------------------------------------ 3. bad files, refused with the file and line
mat=(reduce -mesh_file bar.inp -cms_contact_set TIP -rom_file bad.h5)
sed '3s/.*/72 72 1000/' K.mtx >size.mtx
refuse "Matrix Market size against the DOF map" "1" "size.mtx:3: the matrix is 72 x 72 with 1000 entries, but the DOF map has" \
  "${mat[@]}" -parent_matrices size.mtx,M.mtx -parent_dofs map.txt
head -n -1 K.mtx >short.mtx
refuse "truncated Matrix Market file" "1" "short.mtx: .* entries, but its size line announces" "${mat[@]}" -parent_matrices short.mtx,M.mtx -parent_dofs map.txt
awk 'NR > 3 && $1 != $2 && $3 * $3 > 1e6 && !done { $3 = $3 * 1.001; done = 1 } { print }' K.mtx >nonsym.mtx
refuse "non-symmetric K" "1 3" "nonsym.mtx:[0-9]*: K(.*) = .* but K(.*) = .* at line [0-9]*: K is not symmetric" \
  "${mat[@]}" -parent_matrices nonsym.mtx,M.mtx -parent_dofs map.txt
awk 'NR == 3 { $3 = $3 + 1 } { print } END { print l } NR == 5 { l = $0 }' K.mtx >dup.mtx
refuse "an entry given twice" "1 3" "dup.mtx:[0-9]*: K(.*) is given again (first at line 5)" "${mat[@]}" -parent_matrices dup.mtx,M.mtx -parent_dofs map.txt
sed '4s/.*/12 x/' map.txt >badline.txt
refuse "DOF map line" "1" "badline.txt:4: expected NODE DIRECTION" "${mat[@]}" -parent_matrices K.mtx,M.mtx -parent_dofs badline.txt
sed '4s/ [0-9]*$/ 7/' map.txt >baddir.txt
refuse "DOF map direction" "1" "baddir.txt:4: node .* direction 7: expected" "${mat[@]}" -parent_matrices K.mtx,M.mtx -parent_dofs baddir.txt
sed '4s/^[0-9]* /999 /' map.txt >badnode.txt
refuse "DOF map node not in the mesh" "1 2" "badnode.txt:4: node 999 is not a node of the mesh file" "${mat[@]}" -parent_matrices K.mtx,M.mtx -parent_dofs badnode.txt
head -n -1 map.txt >shortmap.txt
refuse "DOF map one row short" "1" "K.mtx:3: the matrix is .* but the DOF map has" "${mat[@]}" -parent_matrices K.mtx,M.mtx -parent_dofs shortmap.txt
mkdir -p bad
cp bar.mas bar.dof bad/
awk 'NR == 7 { $1 = 100000 } { print }' bar.sti >bad/bar.sti
refuse "ccx entry out of range" "1" "bad/bar.sti:7: entry (100000, .*) is outside the" "${mat[@]}" -parent_matrices bad/bar
cp bar.sti bad/bar.sti
sed '2s/.*/5,1/' bar.dof >bad/bar.dof
refuse "ccx DOF map line" "1" "bad/bar.dof:2: expected NODE.DIRECTION" "${mat[@]}" -parent_matrices bad/bar
sed '6s/.*/1,1, 2,x, 1.0/' K_STIF1.mtx >bad_STIF.mtx
refuse "Abaqus line" "1" "bad_STIF.mtx:6: expected 'NODE, DOF, NODE, DOF, VALUE'" "${mat[@]}" -parent_matrices bad_STIF.mtx,M_MASS1.mtx
refuse "missing file" "1" "cannot read nothere.dof" "${mat[@]}" -parent_matrices nothere
refuse "mtx without its DOF map" "1" "give the DOF map with -parent_dofs" "${mat[@]}" -parent_matrices K.mtx,M.mtx -parent_format mtx
refuse "output set not in the deck" "1" "-cms_outputs.*NOSUCH" "${mat[@]}" -parent_matrices bar -cms_outputs NOSUCH:z

# ------------------------------------------------------------------ 4. vicms info on mesh files: the sets and their nodes
if must "vicms info beam.inp" mpi 60 2 info beam.inp; then
  if grep -q "set TIP: 1 node: 7$" <<<"$LAST" && grep -q "set NALL: 7 nodes: 1 2 3 4 5 6 7$" <<<"$LAST"; then
    echo "ok   vicms info beam.inp lists the node sets TIP and NALL with their nodes"
  else
    echo "FAIL vicms info beam.inp:"; echo "$LAST"; fail=1
  fi
fi
cat >square.msh <<'EOF'
$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
2
1 1 "left"
2 2 "plate"
$EndPhysicalNames
$Nodes
4
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
$EndNodes
$Elements
2
1 1 2 1 1 4 1
2 3 2 2 1 1 2 3 4
$EndElements
EOF
if must "vicms info square.msh" one 60 1 info square.msh -info_nodes 1; then
  if grep -q "set left: 2 nodes: 1 ... (1 more; -info_nodes 2 shows them)" <<<"$LAST"; then
    echo "ok   vicms info square.msh lists the physical group 'left' as a node set"
  else
    echo "FAIL vicms info square.msh:"; echo "$LAST"; fail=1
  fi
fi
[ $fail -eq 0 ] && echo "parents given as matrices: all checks passed"
exit $fail
