#!/usr/bin/env bash
# `vicms reduce` through the executable: (a) the small plate on 1, 2 and 3 ranks and its `vicms info`, MUMPS retries with more workspace (also
# in `vicms modes`), the bar, the full-size plate of
# jobs/plate_rom.yaml on 2 ranks; (b) the Rotor 37 blade of
# seed 000 §5.3 (Rubin, 48 boundary coordinates, first component mode 312.1x Hz; MacNeal in blade.sh) on 2 ranks, skipped when the deck is
# absent; (c) bad input on 1, 2 and 3 ranks: non-zero exit, no hang, a message naming the problem, no ROM file left behind.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ran=0
vicms_workdir

plate="-mesh_box_cells 2,4,20 -mesh_box_lengths 0.008,0.04,0.15 -model_young 184e9 -model_poisson 0.33 -model_density 8220 -model_clamp zmin"
rod="-mesh_line_cells 1000 -mesh_line_length 10 -model_young 900 -model_density 1"

# ---- (a) the plate: 3 contact nodes (the free-end row), normal only, 20 MacNeal modes
for np in 1 2 3; do
  rm -f plate.h5
  out=$(mpi 120 "$np" reduce $plate -cms_type macneal -cms_contact_nodes 313,314,315 -cms_contact_dirs 1 -cms_num_modes 20 \
    -rom_file plate.h5 2>&1)
  rc=$?
  ran=1
  if [ $rc -ne 0 ] || [ ! -f plate.h5 ]; then
    echo "FAIL np=$np plate reduce: exit status $rc (124 = hung), plate.h5 $([ -f plate.h5 ] && echo written || echo missing):"
    echo "$out" | tail -15
    fail=1
    continue
  fi
  info=$(mpi 120 "$np" info plate.h5 2>&1)
  rc=$?
  echo "--- np=$np: vicms info plate.h5 (exit $rc)"
  echo "$info" | head -4
  if [ $rc -ne 0 ]; then
    echo "FAIL np=$np vicms info plate.h5: exit status $rc"; fail=1
  fi
  if ! grep -q 'MacNeal (massless boundary), 3 boundary coordinates + 20 modes = 23' <<<"$info"; then
    echo "FAIL np=$np vicms info plate.h5: not 'MacNeal (massless boundary), 3 boundary coordinates + 20 modes = 23'"; fail=1
  fi
  # the free-interface modes are the clamped plate's: 328.18 Hz first (test_cms convergence: 328.18169880 Hz)
  if ! grep -Eq 'component modes \(free-interface\): 328\.18[0-9]*,' <<<"$info"; then
    echo "FAIL np=$np vicms info plate.h5: first component mode is not 328.18 Hz"; fail=1
  fi
  if [ "$(grep -c '^ROM ' <<<"$info")" -ne 1 ]; then
    echo "FAIL np=$np vicms info plate.h5: the description is not printed exactly once"; fail=1
  fi
done

# ---- (a-mumps) MUMPS's workspace: an analysis estimate too small (INFOG(1) = -9, provoked with -cms_st_mat_mumps_icntl_14 -50, i.e. half
# the estimate) is retried with ICNTL(14) = 40, said in the log, and gives the ROM of a normal run (1e-10 of each dataset's largest entry;
# another element partition changes the last bits). Both factorizations: K (MacNeal) and K_ii (Craig-Bampton), on 2 ranks.
# retry_equal WHAT WHERE NORMAL RETRY DATASET...: the retry is said in the log ($LAST) while factorizing WHERE, and the
# datasets of RETRY equal those of NORMAL to 1e-10 of each one's largest entry
retry_equal() {
  local what=$1 where=$2 normal=$3 retry=$4
  shift 4
  if ! grep -q "MUMPS underestimated its workspace factorizing ${where}.*INFOG(1) = -9.*retrying with ICNTL(14) = 40" <<<"$LAST"; then
    echo "FAIL $what: no retry said in the log with ICNTL(14) = -50:"; echo "$LAST" | head -5; fail=1
  else
    echo "ok   $what: $(grep -m1 'MUMPS underestimated' <<<"$LAST" | cut -c1-150)"
  fi
  $py - "$what" "$normal" "$retry" "$@" <<'PYEOF' || fail=1
import sys
import h5py
import numpy as np

what, a, b, names = sys.argv[1], h5py.File(sys.argv[2], "r"), h5py.File(sys.argv[3], "r"), sys.argv[4:]
worst = max(np.abs(a[n][()] - b[n][()]).max() / max(np.abs(a[n][()]).max(), 1e-300) for n in names)
ok = worst < 1e-10
print(("ok   " if ok else "FAIL ") + "%s MUMPS retry: %s equal to a normal run's, largest difference %.1e of the largest entry (tolerance 1e-10)"
      % (what, ", ".join(names[:4]) + (", ..." if len(names) > 4 else ""), worst))
raise SystemExit(0 if ok else 1)
PYEOF
}
if $py -c 'import h5py, numpy' 2>/dev/null; then
  for method in macneal cb; do
    must "$method normal" mpi 120 2 reduce $plate -cms_type $method -cms_contact_nodes 313,314,315 -cms_num_modes 8 -rom_file normal.h5
    must "$method retry" mpi 120 2 reduce $plate -cms_type $method -cms_contact_nodes 313,314,315 -cms_num_modes 8 -rom_file retry.h5 \
      -cms_st_mat_mumps_icntl_14 -50
    ran=1
    retry_equal "$method" "" normal.h5 retry.h5 K M D frequencies_hz
  done
  # the same for `vicms modes` (K - sigma M factored under -modes_st_): the retry said, the frequencies and mode shapes of a normal run
  must "modes normal" mpi 120 2 modes $plate -modes_num 10 -modes_file modes_normal.h5
  must "modes retry" mpi 120 2 modes $plate -modes_num 10 -modes_file modes_retry.h5 -modes_st_mat_mumps_icntl_14 -50
  retry_equal modes "K - sigma M " modes_normal.h5 modes_retry.h5 frequencies_hz $(for k in $(seq 10); do echo "modes/$k"; done)
  # a limit is told apart from an underestimate: -19 (the limit -cms_st_mat_mumps_icntl_23 of 1 MB is too small) is not retried
  out=$(mpi 120 2 reduce -mesh_box_cells 4,8,40 -mesh_box_lengths 0.008,0.04,0.15 -model_young 184e9 -model_density 8220 -model_clamp zmin \
    -cms_type macneal -cms_contact_nodes 1845 -cms_num_modes 3 -rom_file limit.h5 -cms_st_mat_mumps_icntl_23 1 2>&1)
  if [ $? -eq 0 ] || ! grep -q "more memory .* than the limit -cms_st_mat_mumps_icntl_23 allows" <<<"$out" || grep -q retrying <<<"$out"; then
    echo "FAIL MUMPS memory limit: expected a refusal naming -cms_st_mat_mumps_icntl_23 without retry:"; echo "$out" | grep -v '^M' | head -5; fail=1
  else
    echo "ok   $(grep -m1 'error' <<<"$out" | cut -c1-160)"
  fi
else
  echo "skipped the MUMPS retry check: $py has no h5py"
fi

# ---- (a') the bouncing bar of seed 000 §5.1 (free rod, boundary node 1 along x, massless Craig-Bampton): a 1D model must give a ROM
# that vicms writes and describes
rm -f bar.h5
out=$(mpi 120 2 reduce $rod -cms_type cb_massless -cms_contact_nodes 1 -cms_num_modes 20 -rom_file bar.h5 2>&1)
rc=$?
info=$([ -f bar.h5 ] && mpi 120 2 info bar.h5 2>&1)
if [ $rc -ne 0 ] || [ ! -f bar.h5 ]; then
  echo "FAIL bar reduce: exit status $rc (124 = hung):"; echo "$out" | grep -E 'error' | head -3; fail=1
elif ! grep -q 'massless Craig-Bampton (massless boundary), 1 boundary coordinates + 20 modes = 21' <<<"$info" ||
  ! grep -Eq 'component modes \(fixed-interface\): 0\.75(0[0-9]*)?,' <<<"$info"; then
  echo "FAIL bar: vicms info does not show 1 boundary coordinate, 20 modes, first fixed-interface mode 0.750 Hz:"; echo "$info" | head -4; fail=1
else
  echo "--- bar: $(head -1 <<<"$info")"
fi

# ---- (a'') the plate of seed 000 §5.2 at full size (8 x 20 x 101 hex8, 57,267 DOFs) from its job file jobs/plate_rom.yaml on 2 ranks:
# 3 contact nodes, normal only, 20 MacNeal modes, 1 % damping, a tip load and an output (about 5 s on an idle machine, 20 s on a loaded one)
rm -f plate_full.h5
out=$(mpi 300 2 reduce -options_file "$VICMS_SOURCE/jobs/plate_rom.yaml" -rom_file plate_full.h5 2>&1)
rc=$?
info=$([ -f plate_full.h5 ] && mpi 120 2 info plate_full.h5 2>&1)
if [ $rc -ne 0 ] || [ ! -f plate_full.h5 ]; then
  echo "FAIL full plate reduce (jobs/plate_rom.yaml): exit status $rc (124 = hung):"; echo "$out" | tail -10; fail=1
elif ! grep -q 'MacNeal (massless boundary), 3 boundary coordinates + 20 modes = 23' <<<"$info" ||
  ! grep -Eq 'component modes \(free-interface\): 278\.09[0-9]*,' <<<"$info" || ! grep -q 'loads: xmax_ymax_zmax' <<<"$info" ||
  ! grep -q 'outputs: n19278_x' <<<"$info"; then
  echo "FAIL full plate: vicms info does not show MacNeal, 3 + 20 = 23, first free-interface mode 278.09 Hz, load xmax_ymax_zmax, output n19278_x:"
  echo "$info" | head -12; fail=1
else
  echo "--- full plate (jobs/plate_rom.yaml, 2 ranks): $(head -1 <<<"$info"); $(grep -m1 'component modes' <<<"$info" | cut -c1-80)"
fi

# ---- (a') radial frames pointing inward (a casing outside the structure): the plate's three free-end nodes with the axis z
# through (-0.1, 0.02, 0): normal = -(outward radial direction) computed from each node's coordinates, t1 = the axis,
# t2 = n x t1, to 1e-14
if $py -c 'import h5py, numpy' 2>/dev/null; then
  must "radial inward frames" mpi 120 2 reduce $plate -cms_type macneal -cms_contact_nodes 313,314,315 -cms_contact_dirs 3 -cms_num_modes 5 \
    -cms_contact_radial_axis 0,0,1 -cms_contact_radial_origin -0.1,0.02,0 -cms_contact_radial_inward -rom_file inward.h5
  $py - <<'PYEOF' || fail=1
import h5py
import numpy as np

f = h5py.File("inward.h5", "r")
frames = f["contact/frames"][()].reshape(-1, 3, 3)
x = f["contact/coords"][()].reshape(-1, 3)
a, o = np.array([0.0, 0.0, 1.0]), np.array([-0.1, 0.02, 0.0])
worst = 0.0
for fr, p in zip(frames, x):
    r = p - o
    r -= r.dot(a) * a
    n = -r / np.linalg.norm(r)
    worst = max(worst, np.abs(fr[0] - n).max(), np.abs(fr[1] - a).max(), np.abs(fr[2] - np.cross(fr[0], fr[1])).max())
ok = len(frames) == 3 and worst < 1e-14
print(("ok   " if ok else "FAIL ") + "-cms_contact_radial_inward: %d frames, largest deviation from (-e_r, axis, n x t1) %.1e (tolerance 1e-14)" % (len(frames), worst))
raise SystemExit(0 if ok else 1)
PYEOF
else
  echo "skipped the radial-inward check: $py has no h5py"
fi

# ---- (a-all) every method takes all the modes its eigenproblem has (issue 24, item 20): N - nb. The free bar of 200 T3D2 (201 DOFs, boundary
# node 1): cb and cb_massless with 200 fixed-interface modes; the bar clamped at its start (200 DOFs, boundary node 201): macneal and rubin with
# 199 free-interface modes. A ROM at the limit is the parent in another basis: the free spectrum of cb, macneal and rubin (for the
# massless ones, K's boundary condensed statically) equals the parent's 10 lowest frequencies of `vicms modes` to 1e-9. One more mode is
# refused with the exact maximum.
bar200="-mesh_line_cells 200 -mesh_line_length 10 -model_young 900 -model_density 1"
if $py -c 'import h5py, numpy, scipy' 2>/dev/null; then
  must "all modes: parent modes (free)" mpi 120 2 modes $bar200 -modes_num 10 -modes_file free.h5
  must "all modes: parent modes (clamped)" mpi 120 2 modes $bar200 -model_clamp start -modes_num 10 -modes_file clamped.h5
  for t in cb cb_massless; do
    must "all modes: $t with 200 modes" mpi 120 2 reduce $bar200 -cms_type $t -cms_contact_nodes 1 -cms_num_modes 200 -rom_file all_$t.h5
  done
  for t in macneal rubin; do
    must "all modes: $t with 199 modes" mpi 120 2 reduce $bar200 -model_clamp start -cms_type $t -cms_contact_nodes 201 -cms_num_modes 199 \
      -rom_file all_$t.h5
  done
  $py - <<'PYEOF' || fail=1
import h5py
import numpy as np
import scipy.linalg as sl

def rom_freqs(path):
    f = h5py.File(path, "r")
    K, M, nb = f["K"][()], f["M"][()], int(f.attrs["n_boundary"])
    n = K.shape[0]
    if int(f.attrs["massless"]):
        K = K[nb:, nb:] - K[:nb, nb:].T @ np.linalg.solve(K[:nb, :nb], K[:nb, nb:])
        M = M[nb:, nb:]
    return n, np.sqrt(np.maximum(sl.eigh(K, M, eigvals_only=True), 0)) / (2 * np.pi)

bad = 0
for ref, roms, n in (("free.h5", ["cb"], 201), ("clamped.h5", ["macneal", "rubin"], 200)):
    fr = h5py.File(ref, "r")["frequencies_hz"][()]
    for r in roms:
        m, fo = rom_freqs("all_%s.h5" % r)
        k = fr > 1e-3  # the free bar's rigid mode is 0 in both, to rounding
        d = np.abs(fo[:10][k] / fr[k] - 1).max()
        ok = m == n and d < 1e-9
        bad |= not ok
        print(("ok   " if ok else "FAIL ") + "all modes %s: n = %d (expected %d), %d lowest frequencies equal the parent's within %.1e (1e-9)" % (r, m, n, k.sum(), d))
m, _ = rom_freqs("all_cb_massless.h5")
ok = m == 201
bad |= not ok
print(("ok   " if ok else "FAIL ") + "all modes cb_massless: a ROM of 201 coordinates")
raise SystemExit(bad)
PYEOF
else
  echo "skipped the all-modes check: $py has no h5py or scipy"
fi
# ---- (b) the Rotor 37 blade (seed 000 §5.3) by Rubin, 2 ranks only (MacNeal's reduction of the same blade is checked the
# same way in blade.sh, on its ROM): about 20 s per reduction on an idle machine, 66 s measured on a loaded one, hence
# 300 s rather than 120 s before calling it hung
blade="${VICMS_SHARED:-}/data/rotor37/blade.inp"
if [ ! -r "$blade" ]; then
  echo "skipped (b): $blade is absent"
else
  for method in rubin; do
    rm -f blade.h5
    out=$(mpi 300 2 reduce -mesh_file "$blade" -cms_type $method -cms_num_modes 50 -cms_contact_dirs 3 \
      -cms_contact_nodes 188,190,192,194,196,198,200,203,253,255,257,259,261,263,265,267 -cms_outputs 1353:y -rom_file blade.h5 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || [ ! -f blade.h5 ]; then
      echo "FAIL blade $method: exit status $rc (124 = hung):"; echo "$out" | tail -15; fail=1
      continue
    fi
    info=$(mpi 120 2 info blade.h5 2>&1)
    rc=$?
    name=$([ $method = macneal ] && echo "MacNeal" || echo "Rubin")
    echo "--- blade $method: vicms info blade.h5 (exit $rc)"
    echo "$info" | head -4
    grep -E 'Wrote' <<<"$out"
    if [ $rc -ne 0 ]; then
      echo "FAIL blade $method: vicms info exit status $rc"; fail=1
    fi
    if ! grep -Eq "$name \(.*\), 48 boundary coordinates \+ 50 modes = 98" <<<"$info"; then
      echo "FAIL blade $method: not '$name, 48 boundary coordinates + 50 modes'"; fail=1
    fi
    if ! grep -Eq 'component modes \(free-interface\): 312\.1[0-9]*,' <<<"$info"; then
      echo "FAIL blade $method: the first component mode is not 312.1x Hz"; fail=1
    fi
    if ! grep -q 'outputs: n1353_y' <<<"$info"; then
      echo "FAIL blade $method: no output n1353_y"; fail=1
    fi
  done
fi

# ---- (c) bad input
bad() { # bad NP EXPECT_REGEX ARGS...
  local np=$1 expect=$2
  shift 2
  local out rc
  rm -f bad.h5
  out=$(mpi 120 "$np" reduce "$@" -rom_file bad.h5 2>&1)
  rc=$?
  ran=1
  if [ $rc -eq 0 ]; then
    echo "FAIL np=$np $*: exit status 0"; fail=1
  elif [ $rc -eq 124 ]; then
    echo "FAIL np=$np $*: hung (killed after 120 s)"; fail=1
  elif ! grep -Eq -- "$expect" <<<"$out"; then
    echo "FAIL np=$np $*: message does not match /$expect/:"; echo "$out" | tail -5; fail=1
  elif [ -e bad.h5 ] || [ -e bad.h5.part ]; then
    echo "FAIL np=$np $*: a ROM file was left behind"; fail=1
  else
    echo "ok   np=$np $(grep -E -m1 'error' <<<"$out")"
  fi
}
for np in 1 2 3; do
  bad "$np" "node 999999 is not in the mesh" $plate -cms_contact_nodes 313,999999
  bad "$np" "-cms_outputs: node 316 is not in the mesh" $plate -cms_contact_nodes 313 -cms_outputs 1:x,316:y
  bad "$np" "Contact node [0-9]+ has a clamped DOF" $plate -cms_contact_set zmin
  bad "$np" "Contact node 313 is listed twice" $plate -cms_contact_nodes 313,314,313
  bad "$np" "5000 component modes asked" $plate -cms_contact_nodes 313,314,315 -cms_num_modes 5000
  bad "$np" "singular|free-floating" $rod -cms_type macneal -cms_contact_nodes 1
  bad "$np" "-cms_contact_dirs: got 4" $plate -cms_contact_nodes 313 -cms_contact_dirs 4
  bad "$np" "-cms_outputs: in '1:w' the direction 'w' is not x, y or z" $plate -cms_contact_nodes 313 -cms_outputs 1:w
done

# the limit of each method, exact (item 20 above)
for t in cb cb_massless; do
  bad 2 "-cms_num_modes: 201 component modes asked, but the model has 201 free DOFs of which 1 are boundary coordinates, so the fixed-interface problem \\(K_ii, M_ii\\) of $t has 200 modes: give at most 200" \
    $bar200 -cms_type $t -cms_contact_nodes 1 -cms_num_modes 201
done
for t in macneal rubin; do
  bad 2 "-cms_num_modes: 200 component modes asked, but the model has 200 free DOFs of which 1 are boundary coordinates: $t .* at most N - nb = 199 free-interface modes .* give at most 199" \
    $bar200 -model_clamp start -cms_type $t -cms_contact_nodes 201 -cms_num_modes 200
done

[ $ran -eq 0 ] && exit 77
[ $fail -eq 0 ] && echo "vicms reduce: all checks passed"
exit $fail
