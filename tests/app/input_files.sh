#!/usr/bin/env bash
# Input files that are wrong in their numbers (issue 24, items 5, 12, 13), through the executable on 1 and 2 ranks (3 for the memory
# estimate): refused before any work with one line naming the file, the dataset and the entry, no hang, no PETSc traceback.
#  - non-finite reals: a ROM's contact/coords, a user ROM's M, a modes file's frequencies, an .msh node coordinate, an .inp material;
#  - sizes: n_boundary + n_modes overflowing PetscInt, n^2 beyond 32-bit indices, and a user ROM of n = 20,000 that does not fit in the
#    node's memory (needed against available, estimated before anything is allocated);
#  - a user_massless ROM whose K_bb or M_ii is singular: the file, the matrix and the row at load (was "potrf info 2" from leapfrog
#    mid-job, without the file), also when the file's path is ~2 kB long (PETSc cuts messages at 2 kB: the path is shortened, the
#    reason kept).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_need_h5py
vicms_workdir
export PYTHONPATH="$VICMS_SOURCE/scripts${PYTHONPATH:+:$PYTHONPATH}"

$py - <<'PY' || exit 1
import h5py
import numpy as np
from write_user_rom import write_user_rom

# a sound user ROM of 2 contacts (1D) and 1 other coordinate, and its broken copies
K = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]])
write_user_rom("massless_ok.h5", K, np.diag([0.0, 0.0, 1.0]), contact_dims=[1, 1], massless=True)
write_user_rom("kbb_singular.h5", np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), np.diag([0.0, 0.0, 1.0]), contact_dims=[1, 1],
               massless=True)
write_user_rom("mii_singular.h5", K, np.zeros((3, 3)), contact_dims=[1, 1], massless=True)
write_user_rom("m_nan.h5", K, np.diag([1.0, np.nan, 1.0]), contact_dims=[1, 1])
write_user_rom("coords_nan.h5", K, np.diag([0.0, 0.0, 1.0]), contact_dims=[1, 1], massless=True)
with h5py.File("coords_nan.h5", "r+") as f:
    f["contact/coords"] = np.array([[0.0, 0.0, 0.0], [1.0, np.nan, 0.0]])

def header(path, nb, nm):
    with h5py.File(path, "w") as f:
        for k, v in (("format", "vicms-rom"), ("version", "0.1.0"), ("method", "user"), ("massless", 0), ("n_boundary", nb), ("n_modes", nm)):
            f.attrs[k] = v
header("overflow.h5", 2**31 - 1, 10)
header("n50000.h5", 50000, 0)
header("n20000.h5", 0, 20000)
with h5py.File("modes_nan.h5", "w") as f:
    f.attrs["format"] = "vicms-modes"
    f.attrs["n_modes"] = 3
    f["frequencies_hz"] = np.array([1.0, np.inf, 3.0])
PY
mpi 60 1 info massless_ok.h5 >/dev/null 2>&1 || { echo "FAIL the sound user_massless ROM is refused"; fail=1; }

# refuse_clean WHAT RANKS PATTERN ARGS: as refuse (lib.sh), and no PETSc traceback in the output
refuse_clean() {
  local what=$1 ranks=$2 pat=$3 np out rc
  shift 3
  for np in $ranks; do
    out=$(mpi 60 "$np" "$@" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -q -- "$pat" <<<"$out" || grep -q "PETSC ERROR" <<<"$out"; then
      echo "FAIL $what np=$np: exit $rc (124 = hung), expected a message with '$pat' and no traceback:"
      echo "$out" | head -5
      fail=1
    else
      echo "ok   $what np=$np: $(grep -m1 -- "$pat" <<<"$out" | cut -c1-240)"
    fi
    rm -f bad.r.h5*
  done
}

# ---- non-finite entries (item 5)
refuse_clean "NaN contact coordinate" "1 2" 'coords_nan.h5: contact 1 (node 1): dataset contact/coords, entry \[1\]\[1\] (0-based) = NaN is not a finite number' \
  info coords_nan.h5
refuse_clean "NaN mass entry" "1 2" 'm_nan.h5: dataset M, entry \[1\]\[1\] (0-based) = NaN is not a finite number' info m_nan.h5
refuse_clean "Inf in a modes file" "1" 'modes_nan.h5: dataset frequencies_hz, entry \[1\] (0-based) = Inf is not a finite number' info modes_nan.h5
cat >nan.msh <<'MSH'
$MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
2
1 0 0 0
2 1 nan 0
$EndNodes
$Elements
1
1 1 0 1 2
$EndElements
MSH
cat >young_nan.inp <<'INP'
*NODE
1, 0, 0, 0
2, 1, 0, 0
*ELEMENT, TYPE=T3D2, ELSET=ROD
1, 1, 2
*MATERIAL, NAME=STEEL
*ELASTIC
nan, 0.3
*DENSITY
1.
*SOLID SECTION, ELSET=ROD, MATERIAL=STEEL
1.
INP
refuse_clean "NaN node coordinate (.msh)" "1 2" "nan.msh:7: y 'nan' is not a finite number" modes -modes_write 0 -mesh_file nan.msh \
  -model_young 1 -model_density 1
refuse_clean "NaN Young's modulus (.inp)" "1 2" "young_nan.inp:8: Young's modulus 'nan' is not a finite number" modes -modes_write 0 \
  -mesh_file young_nan.inp

# ---- sizes (item 12)
refuse_clean "n_boundary overflow" "1 2" "overflow.h5: n_boundary = 2147483647 and n_modes = 10 make a ROM of n = 2147483657 coordinates, whose n x n matrices .* more than this vicms can index" \
  info overflow.h5
refuse_clean "n^2 beyond 32-bit indices" "1" "n50000.h5: n_boundary = 50000 and n_modes = 0 make a ROM of n = 50000 coordinates, .*at most 46340 coordinates here" \
  info n50000.h5
# n = 20,000: 4 n^2 x 8 bytes = 12.8 GB per rank; on the smallest rank count whose need exceeds 1.5 times MemAvailable (else skipped)
avail=$(awk '/^MemAvailable:/ {print $2 * 1024}' /proc/meminfo)
np20k=""
for np in 1 2 3; do
  if awk -v a="$avail" -v n="$np" 'BEGIN {exit !(12.8e9 * n > 1.5 * a)}'; then np20k=$np; break; fi
done
if [ -z "$np20k" ]; then
  echo "skipped the n = 20,000 memory estimate: $avail bytes available, more than 3 ranks' need"
else
  refuse_clean "n = 20,000 beyond the memory" "$np20k" "n20000.h5: n_boundary = 0 and n_modes = 20000 make a ROM of n = 20000 coordinates: every rank holds K, M, D and a copy for the checks, 4 n^2 x 8 bytes = 12.8 GB, [0-9.]* GB for the $np20k ranks on this node, but [0-9.]* GB are available on it" \
    info n20000.h5
  refuse_clean "n = 20,000 beyond the memory (simulate)" "$np20k" "n20000.h5: .* n = 20000 coordinates: .* GB are available" \
    simulate -rom_file n20000.h5 -step_type moreau -step_dt 1e-3 -step_end_time 1e-3 -results_file bad.r.h5
fi

# ---- singular K_bb, M_ii of a user_massless ROM (item 13), at load and not mid-job; the long path keeps the reason
refuse_clean "singular K_bb" "1 2" "kbb_singular.h5: K_bb, the stiffness of the 2 boundary coordinates (rows and columns 0..1 of K) of a user_massless ROM, is not positive definite: its Cholesky factorization stops at row 1 (0-based; contact 1, node 1; K\[1\]\[1\] = 1" \
  simulate -rom_file kbb_singular.h5 -step_type leapfrog -step_dt 1e-3 -step_end_time 1e-2 -results_file bad.r.h5
refuse_clean "singular M_ii" "1 2" "mii_singular.h5: M_ii, the mass of the 1 coordinates after the boundary (rows and columns 2..2 of M) of a user_massless ROM, is not positive definite: its Cholesky factorization stops at row 2" \
  info mii_singular.h5
long=.
for k in 1 2 3 4 5 6 7 8; do long=$long/$(printf 'directory%03d_%0200d' "$k" 0); done
mkdir -p "$long" && cp kbb_singular.h5 "$long/kbb_long.h5"
refuse_clean "singular K_bb under a ${#long}-character path" "1 2" '^vicms: error: \.\.\./directory00[0-9]_0*/kbb_long\.h5: K_bb, .* is not positive definite: its Cholesky factorization stops at row 1 .*lambda)$' \
  simulate -rom_file "$long/kbb_long.h5" -step_type leapfrog -step_dt 1e-3 -step_end_time 1e-2 -results_file bad.r.h5

[ $fail -eq 0 ] && echo "input files: all checks passed"
exit $fail
