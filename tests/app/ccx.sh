#!/usr/bin/env bash
# vicms against CalculiX ccx on the same decks: the first 10 frequencies of a cantilever box meshed into each 3D element
# type (C3D4, C3D10, C3D6, C3D15, C3D8, C3D20; decks written here), of its section meshed into plane-strain elements
# (CPE3, CPE4, CPE8) and of the Rotor 37 blade (C3D15) agree within 1e-6
# relative under the default integration (-model_integration calculix); ccx's eigenvalues are read in full precision
# from its .eig file (*FREQUENCY, STORAGE=YES) and checked against its .dat print. -model_integration full keeps vicms's
# exact rules: the same bricks, stiffer wedges (the linear wedge locks) and different tetrahedra.
# Skipped (77) when ccx is absent; the blade part is skipped when ../shared/data/rotor37/blade.inp is absent.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if ! command -v ccx >/dev/null 2>&1; then
  echo "skipped: CalculiX ccx is not installed (Debian package calculix-ccx)"
  exit 77
fi
vicms_workdir
export OMP_NUM_THREADS=1

# gen.py TYPE NX NY NZ: a 100 x 10 x 10 mm steel cantilever (N, mm, tonne, s) of NX x NY x NZ cells, each cell a brick,
# 2 wedges or 6 tetrahedra (Kuhn split), clamped at x = 0, with a *FREQUENCY step of 10 modes stored in the .eig file.
# A plane-strain TYPE (CPE3, CPE4, CPE8) gives the 100 x 10 mm section, 10 mm thick, of NX x NY cells (NZ unused), each
# a quadrilateral or 2 triangles.
cat >gen.py <<'EOF'
import itertools, sys
etype, nx, ny, nz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
L = (100.0, 10.0, 10.0)
# cell corners on the grid of half cells (offsets 0 or 2), Abaqus order
C = [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0), (0, 0, 2), (2, 0, 2), (2, 2, 2), (0, 2, 2)]
def det(t):
    a = [[t[i][k] - t[0][k] for k in range(3)] for i in (1, 2, 3)]
    return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
            + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
tets = []
for p in itertools.permutations(range(3)):
    v, t = [0, 0, 0], [(0, 0, 0)]
    for a in p:
        v[a] += 2
        t.append(tuple(v))
    tets.append(t if det(t) > 0 else [t[0], t[2], t[1], t[3]])
corners = {"hex": [C], "wedge": [[C[0], C[1], C[2], C[4], C[5], C[6]], [C[0], C[2], C[3], C[4], C[6], C[7]]], "tet": tets}
edges = {"tet": [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)],
         "wedge": [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (0, 3), (1, 4), (2, 5)],
         "hex": [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)]}
Q = [(0, 0), (2, 0), (2, 2), (0, 2)]
corners["tri"], corners["quad"] = [[Q[0], Q[1], Q[2]], [Q[0], Q[2], Q[3]]], [Q]
edges["quad"] = [(0, 1), (1, 2), (2, 3), (3, 0)]
shape, quadratic = {"C3D4": ("tet", 0), "C3D10": ("tet", 1), "C3D6": ("wedge", 0), "C3D15": ("wedge", 1),
                    "C3D8": ("hex", 0), "C3D20": ("hex", 1), "CPE3": ("tri", 0), "CPE4": ("quad", 0),
                    "CPE8": ("quad", 1)}[etype]
dim = 2 if shape in ("tri", "quad") else 3
n = (nx, ny, nz)[:dim]
ids, elems = {}, []
for cell in itertools.product(*[range(m) for m in n]):
    for c in corners[shape]:
        pts = list(c) + ([tuple((c[a][d] + c[b][d]) // 2 for d in range(dim)) for a, b in edges[shape]] if quadratic else [])
        elems.append([ids.setdefault(tuple(2 * cell[d] + p[d] for d in range(dim)), len(ids) + 1) for p in pts])
out = ["*HEADING", "cantilever, %s, %s cells" % (etype, " x ".join(str(m) for m in n)), "*NODE, NSET=NALL"]
out += [", ".join(["%d" % i] + ["%.17g" % (p[d] * L[d] / (2 * n[d])) for d in range(dim)]) for p, i in ids.items()]
out.append("*ELEMENT, TYPE=%s, ELSET=EALL" % etype)
for e, c in enumerate(elems):
    f = [str(e + 1)] + [str(x) for x in c]
    while len(f) > 16:  # ccx reads at most 16 entries per line
        out.append(", ".join(f[:16]) + ",")
        f = f[16:]
    out.append(", ".join(f))
root = [i for p, i in ids.items() if p[0] == 0]
out.append("*NSET, NSET=ROOT")
out += [", ".join(str(x) for x in root[a:a + 10]) for a in range(0, len(root), 10)]
out += ["*BOUNDARY", "ROOT, 1, %d" % dim, "*MATERIAL, NAME=STEEL", "*ELASTIC", "210000., 0.3", "*DENSITY", "7.85e-9",
        "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL"] + (["10."] if dim == 2 else [])
out += ["*STEP", "*FREQUENCY, STORAGE=YES", "10", "*END STEP"]
print("\n".join(out))
EOF

# compare.py JOB LOG [LOG_FULL]: ccx's 10 frequencies (JOB.eig, checked against JOB.dat) against the table vicms printed in
# LOG; with LOG_FULL, also report the -model_integration full run. Prints "TYPE max_rel_diff full_max_rel_diff full_f1_ratio".
cat >compare.py <<'EOF'
import math, re, struct, sys
job, log = sys.argv[1], sys.argv[2]
raw = open(job + ".eig", "rb").read()
# header: cyclic symmetry flag 0, Hermitian flag 1, then the count (ccx 2.20 writes one more integer before it): the
# eigenvalues (rad/s)^2 follow the integer that equals 10
ints = struct.unpack("<4i", raw[:16])
count = next((i for i in (2, 3) if ints[i] == 10), None)
if ints[0] != 0 or ints[1] != 1 or count is None:
    sys.exit("FAIL %s.eig: unexpected header %s" % (job, ints))
lam = struct.unpack("<10d", raw[4 * (count + 1):4 * (count + 1) + 80])
ccx = [math.sqrt(x) / (2 * math.pi) for x in lam]
dat = []
for line in open(job + ".dat"):
    m = re.match(r"\s+(\d+)\s+(\S+E[+-]\d+)\s+(\S+E[+-]\d+)\s+(\S+E[+-]\d+)\s+(\S+E[+-]\d+)\s*$", line)
    if m and len(dat) < 10:
        dat.append(float(m.group(4)))
if len(dat) != 10 or max(abs(dat[k] / ccx[k] - 1) for k in range(10)) > 1e-6:
    sys.exit("FAIL %s: .eig frequencies %s disagree with the .dat print %s (7 digits)" % (job, ccx[:3], dat[:3]))
def table(path):
    f = [float(m.group(2)) for m in re.finditer(r"^\s+(\d+)\s+(\S+)\s+\S+\s+\S+\s*$", open(path).read(), re.M)]
    if len(f) != 10:
        sys.exit("FAIL %s: expected a table of 10 frequencies, found %d" % (path, len(f)))
    return f
v = table(log)
d = max(abs(v[k] / ccx[k] - 1) for k in range(10))
res = [d]
if len(sys.argv) > 3:
    w = table(sys.argv[3])
    res += [max(abs(w[k] / ccx[k] - 1) for k in range(10)), w[0] / ccx[0]]
print(job, " ".join("%.3e" % x for x in res), "%.10g" % ccx[0], "%.10g" % v[0])
EOF

printf "%-6s %-10s %-16s %-16s %-12s %s\n" type cells "ccx f1 [Hz]" "vicms f1 [Hz]" "max rel diff" "full: max rel diff, f1 full/ccx"
for spec in C3D4:10,2,2 C3D10:6,1,1 C3D6:10,2,2 C3D15:6,1,1 C3D8:10,2,2 C3D20:6,1,1 CPE3:10,2,1 CPE4:10,2,1 CPE8:10,2,1; do
  t=${spec%%:*} cells=${spec#*:}
  $py gen.py "$t" ${cells//,/ } >"$t.inp" || { echo "FAIL $t: deck generator"; fail=1; continue; }
  if ! timeout 120 ccx -i "$t" >"$t.ccx.log" 2>&1 || [ ! -s "$t.eig" ]; then
    echo "FAIL $t: ccx did not finish:"; tail -5 "$t.ccx.log"; fail=1; continue
  fi
  must "$t vicms modes" mpi 120 1 modes -mesh_file "$t.inp" -modes_num 10 -modes_file "$t.h5" || continue
  echo "$LAST" >"$t.log"
  grep -q "calculix integration" "$t.log" || { echo "FAIL $t: the model summary does not name the calculix integration"; fail=1; }
  must "$t vicms modes -model_integration full" mpi 120 1 modes -mesh_file "$t.inp" -modes_num 10 -modes_file "$t.full.h5" \
    -model_integration full || continue
  echo "$LAST" >"$t.full.log"
  r=$($py compare.py "$t" "$t.log" "$t.full.log") || { echo "$r"; fail=1; continue; }
  read -r _ d dfull ratio f_ccx f_vicms <<<"$r"
  printf "%-6s %-10s %-16s %-16s %-12s %s, %s\n" "$t" "$cells" "$f_ccx" "$f_vicms" "$d" "$dfull" "$ratio"
  $py -c "import sys; sys.exit(not float('$d') <= 1e-6)" ||
    { echo "FAIL $t: vicms and ccx differ by $d relative in the first 10 frequencies (tolerance 1e-6)"; fail=1; }
  case $t in
  C3D8 | C3D20 | CPE4 | CPE8) # the same rule under both choices (Gauss 2x2x2, 3x3x3, 2x2, 3x3)
    $py -c "import sys; sys.exit(not float('$dfull') <= 1e-6)" ||
      { echo "FAIL $t: -model_integration full changed a brick ($dfull)"; fail=1; } ;;
  C3D6) # the fully integrated linear wedge locks in bending: 10.8 % stiffer than ccx on this mesh
    $py -c "import sys; sys.exit(not float('$ratio') > 1.05)" ||
      { echo "FAIL C3D6: -model_integration full should lock (f1 full/ccx = $ratio, expected > 1.05)"; fail=1; } ;;
  *) # another rule: a visible difference
    $py -c "import sys; sys.exit(not float('$dfull') > 1e-4)" ||
      { echo "FAIL $t: -model_integration full gives ccx's frequencies ($dfull): the option has no effect"; fail=1; } ;;
  esac
done

deck="${VICMS_SHARED:-}/data/rotor37/blade.inp"
if [ ! -f "$deck" ]; then
  echo "blade: skipped, the Rotor 37 deck is absent ($deck)"
else
  # ccx runs the deck's model (its *INCLUDE of blade.msh, *BOUNDARY, material and section) with one frequency step of its
  # own instead of the deck's two steps (Lanczos with 20 modes, then a matrix storage step)
  cp "$(dirname "$deck")/blade.msh" .
  awk 'toupper($0) ~ /^\*STEP/ {exit} {print}' "$deck" >blade.inp
  printf '*STEP\n*FREQUENCY, STORAGE=YES\n10\n*END STEP\n' >>blade.inp
  start=$(date +%s)
  if ! timeout 600 ccx -i blade >blade.ccx.log 2>&1 || [ ! -s blade.eig ]; then
    echo "FAIL blade: ccx did not finish:"; tail -5 blade.ccx.log; fail=1
  else
    tccx=$(($(date +%s) - start))
    start=$(date +%s)
    if must "blade vicms modes (2 ranks)" mpi 600 2 modes -mesh_file "$deck" -modes_num 10 -modes_file blade.h5; then
      echo "$LAST" >blade.log
      r=$($py compare.py blade blade.log) || { echo "$r"; fail=1; }
      read -r _ d f_ccx f_vicms <<<"$r"
      echo "blade (C3D15, 61098 DOFs): ccx f1 $f_ccx Hz ($tccx s on 1 thread), vicms f1 $f_vicms Hz ($(($(date +%s) - start)) s on 2 ranks)," \
        "first 10 frequencies: max rel diff $d"
      $py -c "import sys; sys.exit(not float('$d') <= 1e-6)" ||
        { echo "FAIL blade: vicms and ccx differ by $d relative in the first 10 frequencies (tolerance 1e-6)"; fail=1; }
    fi
  fi
fi
[ $fail -eq 0 ] && echo "vicms = CalculiX ccx: all checks passed"
exit $fail
