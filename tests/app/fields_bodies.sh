#!/usr/bin/env bash
# `vicms fields` on the results of the commands on a bodies file (docs/fields.md), on the coarse beams of cea.sh (2 x 20 CPS4,
# 10 modes each: 63 nodes and 40 cells per body): (a) `vicms reduce -bodies` keeps each body's fields (bodies/NAME/fields),
# reduced on rank groups and one body after the other alike (1e-9 of the largest entry: the eigensolver's rounding); (b) a
# cea mode shape, by default the largest real part among the modes with an eigenvector (checked against the file), animated
# over 16 phases on 1 and 2 ranks (the same files to the bit), and a chosen position and mode; (c) a slide history with
# -slide_record_q and -slide_start on 1 and 3 ranks (the same files), every record and every 4th, and as case 1 of an
# ensemble over mu (the same file as the single run's); (d) each series read by
# ParaView's vtkXdmf3Reader and by python/vicms's reader (fields_bodies_check.py): counts, times, the field at nodes of both
# bodies equal to the basis rows of the bodies file times the coordinates of the results file at two levels (1e-10), cea's
# own boundary displacements, the slide's outputs, contact force and start shift (skipped without a reader); (e) bad input
# refused in one line: a position or mode out of range, a results file of the wrong kind, a cea without eigenvectors (or
# with those of the unstable modes, none here), a mode without an eigenvector, a
# slide without -slide_record_q, bodies without fields, a file that is not a bodies file.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_need_h5py
vicms_workdir
checker="$(dirname "${BASH_SOURCE[0]}")/fields_bodies_check.py"
reader=""
if $py -c 'from vtkmodules.vtkIOXdmf3 import vtkXdmf3Reader' 2>/dev/null; then
  reader=$py
elif command -v pvpython >/dev/null && pvpython -c 'from vtkmodules.vtkIOXdmf3 import vtkXdmf3Reader' >/dev/null 2>&1; then
  reader=pvpython
fi

small="-bodies beam1,beam2 -rom_file small.h5
  -body_beam1_mesh_rect_cells 20,2 -body_beam1_mesh_rect_lengths 75,5 -body_beam1_mesh_rect_thickness 10 -body_beam1_mesh_rect_origin 50,10
  -body_beam1_mesh_rect_angle 30 -body_beam1_model_young 70000 -body_beam1_model_poisson 0.33 -body_beam1_model_density 2.7e-9
  -body_beam1_cms_contact_set xmin_ymin,xmax -body_beam1_cms_num_modes 10 -body_beam1_cms_rayleigh 12.6,3.2e-7
  -body_beam1_cms_outputs 1:x,1:y,21:y,42:y -body_beam1_cms_units N-mm-t-s
  -body_beam2_mesh_rect_cells 20,2 -body_beam2_mesh_rect_lengths 300,10 -body_beam2_mesh_rect_thickness 10 -body_beam2_model_young 2400
  -body_beam2_model_poisson 0.37 -body_beam2_model_density 1.2e-9 -body_beam2_model_clamp xmin -body_beam2_cms_contact_set ymax
  -body_beam2_cms_num_modes 10 -body_beam2_cms_rayleigh 12.6,3.2e-7 -body_beam2_cms_outputs 63:y -body_beam2_cms_units N-mm-t-s"

# ---- (a) the bodies' fields
# shellcheck disable=SC2086
must "reduce on rank groups" mpi 120 2 reduce $small -bodies_parallel groups || exit 1
for b in beam1:18 beam2:50; do
  grep -q "Fields of body ${b%:*}: the basis on 63 nodes (surface) and 40 cells, $((8 * ${b#*:})) bytes per kept DOF" <<<"$LAST" ||
    { echo "FAIL no line 'Fields of body ${b%:*}: the basis on 63 nodes (surface) and 40 cells, ...'"; fail=1; }
done
# shellcheck disable=SC2086
must "reduce one body after the other" mpi 120 2 reduce $small -bodies_parallel sequential -rom_file seq.h5
# shellcheck disable=SC2086
must "reduce without beam1's fields" mpi 120 1 reduce $small -body_beam1_cms_fields none -rom_file nof.h5
$py - <<'PY' || fail=1
import h5py, numpy as np
a, b = h5py.File("small.h5", "r"), h5py.File("seq.h5", "r")
bad = 0
for name in ("beam1", "beam2"):
    g, h = a["bodies/%s/fields" % name], b["bodies/%s/fields" % name]
    same = all(np.array_equal(g[k][()], h[k][()]) for k in ("coordinates", "node_ids", "topology"))
    err = np.abs(g["basis"][()] - h["basis"][()]).max() / np.abs(h["basis"][()]).max()
    ok = same and err <= 1e-9 and g["basis"].shape == (189, 18 if name == "beam1" else 50)
    print("%s %s: basis %s, groups against sequential %.1e, mesh equal %s" % ("ok  " if ok else "FAIL", name, g["basis"].shape, err, same))
    bad |= not ok
ok = "fields" not in h5py.File("nof.h5", "r")["bodies/beam1"] and "fields" in h5py.File("nof.h5", "r")["bodies/beam2"]
print("%s -body_beam1_cms_fields none: no bodies/beam1/fields, bodies/beam2/fields kept" % ("ok  " if ok else "FAIL"))
raise SystemExit(bad or not ok)
PY

# ---- (b) cea mode shapes
cea="cea -rom_file small.h5 -cea_slave beam1:1 -cea_master beam2 -cea_hold beam1 -coupling_mu 0.3 -cea_positions 7 -cea_modes 10"
# shellcheck disable=SC2086
must "cea" mpi 120 1 $cea -cea_vectors all -cea_file c.h5
# shellcheck disable=SC2086
must "cea without vectors" mpi 120 1 $cea -cea_file c0.h5
# shellcheck disable=SC2086
must "cea with the vectors of the unstable modes: none" mpi 120 1 $cea -cea_vectors unstable -cea_file cu.h5
for np in 1 2; do
  must "np=$np fields cea" mpi 60 $np fields -results_file c.h5 -fields_samples 16 -fields_file m$np.h5 && echo "$LAST"
done
must "fields cea, position 3, mode 4" mpi 60 1 fields -results_file c.h5 -rom_file small.h5 -fields_position 3 -fields_mode 4 -fields_samples 12 \
  -fields_file p.h5 && echo "$LAST"
$py - <<'PY' || fail=1
import h5py, numpy as np, re, sys
c = h5py.File("c.h5", "r")
real, freq, index = c["real"][()], c["frequency_hz"][()], c["vectors/index"][()]
p, m = np.unravel_index(np.argmax(np.where(index >= 0, real, -np.inf)), real.shape)
bad = 0
for name, want in (("m1", (p, m)), ("p", (3, 4))):
    f = h5py.File(name + ".h5", "r")
    got = tuple(int(x) for x in re.match(r"mode (\d+) at position (\d+)", f.attrs["title"].decode()).groups()[::-1])
    ok = got == tuple(int(x) for x in want) and len(f["time"]) == (16 if name == "m1" else 12)
    print("%s %s.h5: position %d, mode %d (expected %d, %d: %s); %g Hz, real part %g 1/s" % ("ok  " if ok else "FAIL", name, got[0], got[1], want[0], want[1],
          "the largest real part with an eigenvector" if name == "m1" else "as asked", freq[got], real[got]))
    bad |= not ok
a, b = h5py.File("m1.h5", "r"), h5py.File("m2.h5", "r")
same = all(np.array_equal(a["displacement/%d" % k][()], b["displacement/%d" % k][()]) for k in range(16))
print("%s the mode shape on 1 and 2 ranks: equal bit for bit" % ("ok  " if same else "FAIL"))
raise SystemExit(bad or not same)
PY

# ---- (c) a slide history: C started at s = 100 mm (beam1 moved by 50 mm), 2 ms, recorded every 1e-4 s
slide="slide -rom_file small.h5 -slide_slave beam1:1 -slide_master beam2 -slide_drive beam1 -slide_drive_velocity 30 -slide_preload 0,-2
  -slide_end_time 2e-3 -dual_dt 1e-7 -slide_record_interval 1e-4 -slide_start 100 -dual_mu 0.3"
# shellcheck disable=SC2086
must "slide with q" mpi 120 1 $slide -slide_record_q -slide_file sl.h5
# shellcheck disable=SC2086
must "slide without q" mpi 120 1 $slide -slide_file slnoq.h5
for np in 1 3; do
  must "np=$np fields slide" mpi 60 $np fields -results_file sl.h5 -fields_file s$np.h5 && echo "$LAST"
done
must "fields slide, every 4th" mpi 60 2 fields -results_file sl.h5 -fields_every 4 -fields_file s4.h5 && echo "$LAST"
# the same run as case 1 of an ensemble over mu (its history under /cases/1/history of a results file)
# shellcheck disable=SC2086
must "slide ensemble" mpi 120 1 ${slide/-dual_mu 0.3/} -cases_grid dual_mu:0.1:0.3:2 -slide_record_q -results_file ens.h5
must "fields slide ensemble case 1" mpi 60 2 fields -results_file ens.h5 -fields_case 1 -fields_file e1.h5 && echo "$LAST"
$py -c '
import h5py, numpy as np, sys
a, b, e = h5py.File("s1.h5", "r"), h5py.File("s3.h5", "r"), h5py.File("e1.h5", "r")
same = all(np.array_equal(a[g + "/%d" % k][()], b[g + "/%d" % k][()]) for k in range(20) for g in ("displacement", "contact_force"))
print("%s the slide series on 1 and 3 ranks: equal bit for bit (20 records)" % ("ok  " if same else "FAIL"))
ens = all(np.array_equal(a[g + "/%d" % k][()], e[g + "/%d" % k][()]) for k in range(20) for g in ("displacement", "contact_force"))
print("%s the series of case 1 of an ensemble (mu = 0.3) equals the single run'"'"'s, bit for bit" % ("ok  " if ens else "FAIL"))
sys.exit(not (same and ens))' || fail=1

# ---- (d) read by the XDMF reader
if [ -n "$reader" ]; then
  out=$($reader "$checker" cea "$PWD/m1.xmf" c.h5 small.h5 126 80 16 6 2 -- cea "$PWD/p.xmf" c.h5 small.h5 126 80 12 3 4 -- \
    slide "$PWD/s1.xmf" sl.h5 small.h5 126 80 1 -- slide "$PWD/s4.xmf" sl.h5 small.h5 126 80 4 2>&1)
  rc=$?
  echo "$out" | grep -E "^(ok|FAIL|---)"
  [ $rc -eq 0 ] || { echo "FAIL the reader's checks (exit $rc)"; echo "$out" | tail -5; fail=1; }
else
  echo "note: no XDMF reader (pvpython from Debian paraview + python3-paraview, or VTK with vtkIOXdmf3): the reader checks are skipped"
fi

# ---- (e) bad input, one line each: on 2 ranks through mpirun (no rank left waiting), the others as one process without mpirun
# (an mpirun whose job aborts takes 2 s to end)
refused_serial() {
  local expect=$1 out rc
  shift
  out=$(timeout 60 "$VICMS_BIN" "$@" 2>&1)
  rc=$?
  if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -Fq -- "$expect" <<<"$out" || [ "$(grep -c . <<<"$out")" -ne 1 ]; then
    echo "FAIL $*: exit $rc (124 = hung), expected one line with '$expect':"; echo "$out" | head -5; fail=1
  else
    echo "ok   np=1 $out"
  fi
}
refused 2 "-fields_position: got 7, expected a position of c.h5 from 0 to 6" fields -results_file c.h5 -fields_position 7 -fields_file bad.h5
refused_serial "-fields_mode: got 10, expected a mode of c.h5 from 0 to 9" fields -results_file c.h5 -fields_mode 10 -fields_file bad.h5
refused_serial "-results_file small.h5: not a results file of vicms simulate, hb, cea or slide (format vicms-bodies" fields -results_file small.h5 \
  -fields_file bad.h5
refused_serial "-results_file c0.h5: no eigenvectors (/vectors); run vicms cea with -cea_vectors unstable|all" fields -results_file c0.h5 -fields_file bad.h5
refused_serial "-results_file cu.h5 keeps no eigenvector (-cea_vectors unstable and no unstable mode?); run vicms cea with -cea_vectors all" \
  fields -results_file cu.h5 -fields_file bad.h5
refused_serial "-fields_mode: mode 4 at position 2 (real part" fields -results_file cu.h5 -fields_position 2 -fields_mode 4 -fields_file bad.h5
refused_serial "-results_file slnoq.h5: no ROM coordinates of the bodies (/q); run vicms slide with -slide_record_q" fields -results_file slnoq.h5 \
  -fields_file bad.h5
refused_serial "-rom_file nof.h5: body beam1 keeps no fields (bodies/beam1/fields); reduce the bodies again with -body_beam1_cms_fields" fields \
  -results_file c.h5 -rom_file nof.h5 -fields_file bad.h5
refused_serial "-rom_file c.h5: not a bodies file of vicms reduce -bodies (format vicms-cea)" fields -results_file sl.h5 -rom_file c.h5 -fields_file bad.h5
[ -e bad.h5 ] && { echo "FAIL a refused job left bad.h5"; fail=1; }

if [ -z "$reader" ]; then
  [ "${fail:-0}" -eq 0 ] && echo "skipped: no XDMF reader; the other checks passed" && exit 77
fi
[ "${fail:-0}" -eq 0 ] && echo "vicms fields on bodies: all checks passed"
exit "${fail:-0}"
