#!/usr/bin/env bash
# `vicms cea -cea_state static` (issue 27): the CEA linearised about the static sliding state (the preload and the steady
# friction) instead of the undeformed configuration. The static state and the eigenvalues about it against an independent
# solution (cea_static_reference.py: Newton with a finite-difference Jacobian from the bodies file, the geometric stiffness
# by central differences of the contact force; u0 and lambda0 to 1e-8, the eigenvalues to 1e-6 of |lambda|, the FRF map
# against the primal form L_C (K~ - w^2 M~ + j w C~)^-1 L_E^T of the same linearisation to 1e-6 of max |H|), 1, 2 and 3
# ranks equal bit for bit, the job at s = 99 mm stable about the undeformed state and unstable about the static one, the
# first band's edges by bisection within the tolerance, a slide held where the two linearisations disagree growing at the
# static CEA's rate (2 %), positions whose static state fails marked on 1-3 ranks, and bad input refused.
source "$(dirname "$0")/lib.sh"
vicms_need_h5py
vicms_workdir
job=$VICMS_SOURCE/jobs/beam_on_beam.yaml
ref=$VICMS_SOURCE/tests/app/cea_static_reference.py

# 1. the coarse beams of cea.sh (2 x 20 CPS4, 10 modes each), 10 N preload on end A, mu = 0.3, 7 positions
small="-bodies beam1,beam2 -rom_file small.h5
  -body_beam1_mesh_rect_cells 20,2 -body_beam1_mesh_rect_lengths 75,5 -body_beam1_mesh_rect_thickness 10 -body_beam1_mesh_rect_origin 50,10
  -body_beam1_mesh_rect_angle 30 -body_beam1_model_young 70000 -body_beam1_model_poisson 0.33 -body_beam1_model_density 2.7e-9
  -body_beam1_cms_contact_set xmin_ymin,xmax -body_beam1_cms_num_modes 10 -body_beam1_cms_rayleigh 12.6,3.2e-7
  -body_beam2_mesh_rect_cells 20,2 -body_beam2_mesh_rect_lengths 300,10 -body_beam2_mesh_rect_thickness 10 -body_beam2_model_young 2400
  -body_beam2_model_poisson 0.37 -body_beam2_model_density 1.2e-9 -body_beam2_model_clamp xmin -body_beam2_cms_contact_set ymax
  -body_beam2_cms_num_modes 10 -body_beam2_cms_rayleigh 12.6,3.2e-7"
# shellcheck disable=SC2086
must "reduce the coarse beams" mpi 120 2 reduce $small || exit 1
cea="cea -rom_file small.h5 -cea_slave beam1:1 -cea_master beam2 -cea_hold beam1 -coupling_mu 0.3 -cea_positions 7 -cea_range 40,250
  -cea_modes 10 -cea_preload 0,-10 -cea_frf_frequencies 100:5000:5 -cea_frf_inputs beam1:1:y,beam2:63:y -cea_frf_outputs beam2:63:y,beam1:1:x"
for np in 1 2 3; do
  # shellcheck disable=SC2086
  must "cea static np=$np" mpi 120 $np $cea -cea_state static -cea_file st$np.h5 && echo "$LAST" | grep -E "^Static|^CEA"
done
# shellcheck disable=SC2086
must "cea undeformed" mpi 120 1 $cea -cea_state undeformed -cea_file und.h5
must "reference" $py "$ref" small.h5 st1.h5 beam1 1 beam2 beam1 0.3 forward 0 -10 && echo "$LAST"
must "1, 2 and 3 ranks; the undeformed linearisation differs" $py -c '
import h5py, numpy as np, sys
a = h5py.File("st1.h5", "r")
names = []
a.visititems(lambda k, o: names.append(k) if isinstance(o, h5py.Dataset) else None)
for other in ("st2.h5", "st3.h5"):
    b = h5py.File(other, "r")
    for k in names:
        x, y = a[k][()], b[k][()]
        if (x.tolist() != y.tolist()) if x.dtype.kind == "O" else (x.tobytes() != y.tobytes()):
            sys.exit("FAIL %s differs between st1.h5 and %s" % (k, other))
if a.attrs["state"] != b"static" and a.attrs["state"] != "static":
    sys.exit("FAIL attribute state is %r" % a.attrs["state"])
u = h5py.File("und.h5", "r")
dl = np.abs((a["real"][()] + 2j * np.pi * a["frequency_hz"][()]) - (u["real"][()] + 2j * np.pi * u["frequency_hz"][()]))
rel = np.nanmax(dl / np.abs(u["real"][()] + 2j * np.pi * u["frequency_hz"][()]))
if rel < 1e-4:
    sys.exit("FAIL the static linearisation moves the eigenvalues by only %.1e of |lambda|" % rel)
print("1, 2, 3 ranks: all %d datasets equal bit for bit; the eigenvalues move by up to %.1e of |lambda| from the undeformed ones" % (len(names), rel))' \
  && echo "$LAST"

# 2. the beam-on-beam job at s = 99 mm (the first burst of its transient, 98-102 mm): stable about the undeformed
# configuration, unstable about the static sliding state (the mode at 3.53 kHz)
must "reduce the job" mpi 120 2 reduce -options_file "$job" || exit 1
for state in undeformed static; do
  must "cea $state at 99 mm" mpi 120 2 cea -options_file "$job" -cea_range 99,99.5 -cea_positions 2 -cea_modes 20 -cea_frf_frequencies 3000:4000:2 \
    -cea_state $state -cea_preload 0,-10 -cea_file job_$state.h5 && echo "$LAST" | grep -E "^CEA"
done
must "the first band" $py -c '
import h5py, numpy as np, sys
u, s = h5py.File("job_undeformed.h5", "r"), h5py.File("job_static.h5", "r")
ru, rs = np.nanmax(u["real"][0]), np.nanmax(s["real"][0])
j = int(np.nanargmax(s["real"][0]))
print("s = 99 mm: largest real part %.4f 1/s undeformed, %.4f 1/s static (%.2f Hz); normal force %.4f N, turn %.4f rad" %
      (ru, rs, s["frequency_hz"][0][j], s["static/normal_force"][0][0], s["static/slope"][0][0]))
if not (ru < 0 < rs):
    sys.exit("FAIL expected stable undeformed and unstable static at 99 mm")' && echo "$LAST"

# 3. the first band located by bisection (-cea_band_tol 0.01) from positions 2 mm apart (96, 98, 100, 102 mm): each edge
# within tol / 2 of a sign change of the largest real part, checked by a CEA just outside both ends of its bracket
tol=0.01
must "cea bands" mpi 120 2 cea -options_file "$job" -cea_range 96,102 -cea_positions 4 -cea_modes 20 -cea_frf_frequencies 3000:4000:2 \
  -cea_state static -cea_preload 0,-10 -cea_band_tol $tol -cea_compare_rom_file beam_on_beam.h5 -cea_file bands.h5 && echo "$LAST" | grep -E "band|^CEA"
must "the comparison with the same bodies" $py -c '
import h5py, sys
f = h5py.File("bands.h5", "r")
for k in ("bands", "real", "frequency_hz"):
    a, b = f[k][()], f["compare/" + k][()]
    if a.tobytes() != b.tobytes():
        sys.exit("FAIL compare/%s differs from %s with the same bodies file" % (k, k))
print("-cea_compare_rom_file with the same bodies: compare/bands, real, frequency_hz equal bit for bit (%d band)" % len(f["bands"]))' && echo "$LAST"
edges=$($py -c '
import h5py
b = h5py.File("bands.h5", "r")["bands"][()]
print(" ".join("%.17g" % x for x in b[:, :2].ravel()))')
read -r e1 e2 <<<"$edges"
for e in $e1 $e2; do
  lo=$($py -c "print(repr($e - 0.5 * $tol * 1.0001))")
  hi=$($py -c "print(repr($e + 0.5 * $tol * 1.0001))")
  must "cea at the edge $e" mpi 120 1 cea -options_file "$job" -cea_range "$lo,$hi" -cea_positions 2 -cea_modes 20 -cea_frf_frequencies 3000:4000:2 \
    -cea_state static -cea_preload 0,-10 -cea_file edge.h5
  must "edge $e" $py -c '
import h5py, numpy as np, sys
f = h5py.File("edge.h5", "r")
r = np.nanmax(f["real"][()], axis=1)
print("edge s = %s: largest real part %.4f 1/s at %.5f mm, %.4f 1/s at %.5f mm" % (sys.argv[1], r[0], f["positions"][0, 0], r[1], f["positions"][1, 0]))
if (r[0] > 0) == (r[1] > 0):
    sys.exit("FAIL no sign change within tol / 2 of the edge")' "$e" && echo "$LAST"
done
must "info on the bands" "$VICMS_BIN" info bands.h5
if ! grep -q "1 band with edges by bisection to 0.01:" <<<"$LAST" || ! grep -q "linearised about the static sliding state" <<<"$LAST"; then
  echo "FAIL vicms info does not show the band and the state: $LAST"; fail=1
fi

# 4. the held slide (issue 27): where the undeformed CEA is stable and the static one unstable, a `vicms slide` held there
# (-dual_start sliding: the steady sliding state, the drive at 1 mm/s, so the contact moves 0.04 mm in the run; the rows
# in the deformed configuration, the default -dual_geometry) grows at the CEA's largest real part: the log of the
# envelope of the normal force (band-passed +-10 % about the CEA's frequency, analytic signal) fitted over the second half
# of the run (0.5 T to 0.9 T, after the seed's transients), against the CEA at the mean contact position of that window:
# within 2 %, the frequency within 0.1 %. The coarse beams with lighter damping (b = 3.2e-8 s) at s = 228.4 mm (the
# recorded position; the slave body is placed at 228.85 mm, and the preload moves the master's material point under it):
# undeformed -6.30 1/s, static +197 1/s at 10.89 kHz. A seed: a random force of 1e-6 N RMS at C (9-13 kHz). The same slide
# with the rows fixed in the undeformed configuration (-dual_geometry fixed) does not grow.
light=${small//3.2e-7/3.2e-8}
# shellcheck disable=SC2086
must "reduce the lightly damped coarse beams" mpi 120 1 reduce ${light//small.h5/light.h5} || exit 1
held="slide -rom_file light.h5 -slide_slave beam1:1 -slide_master beam2 -slide_drive beam1 -slide_drive_velocity 1 -slide_preload 0,-10
  -dual_mu 0.3 -dual_start sliding -slide_end_time 0.04 -slide_record_interval 1e-6 -slide_noise_rms 1e-6 -slide_noise_band 9000,13000
  -slide_noise_harmonics 64 -slide_noise_dir y"
# shellcheck disable=SC2086
must "held slide, deformed rows" mpi 120 1 $held -slide_start 228.85 -slide_file held.h5 && echo "$LAST" | grep -E "^Slide done|^Energy"
# the energy identity from the sliding start (E_{-1/2} with the starting velocity) closes as from rest
closure=$(grep -oE "closes to [0-9.e+-]+" <<<"$LAST" | awk '{print $3}')
if [ -z "$closure" ] || ! $py -c "import sys; sys.exit(0 if float('$closure') < 1e-9 else 1)"; then
  echo "FAIL the held slide's energy balance closes to '$closure' of the scale (tolerance 1e-9)"; fail=1
fi
# shellcheck disable=SC2086
must "held slide, fixed rows" mpi 120 1 $held -slide_start 228.44 -dual_geometry fixed -slide_file fixed.h5 && echo "$LAST" | grep -E "^Slide done"
fit='
import h5py, numpy as np, sys
def envelope(path, f0):
    f = h5py.File(path, "r")
    t, lam, pos = f["t"][()].ravel(), f["contact/normal"][()].ravel(), f["contact/position"][()].ravel()
    if (f["contact/status"][()] != 3).any():
        sys.exit("FAIL %s: the contact does not slip at every step" % path)
    X, fr = np.fft.fft(lam - lam.mean()), np.fft.fftfreq(len(t), t[1] - t[0])
    X[(fr < 0.9 * f0) | (fr > 1.1 * f0)] = 0
    z = 2 * np.fft.ifft(X)
    w = (t > 0.5 * t[-1]) & (t < 0.9 * t[-1])
    return t, z, w, pos
'
s=$($py -c "$fit"'
t, z, w, pos = envelope("held.h5", 10886.0)
print(repr(pos[w].mean()))')
for state in undeformed static; do
  must "cea $state at s = $s" mpi 60 1 cea -rom_file light.h5 -cea_slave beam1:1 -cea_master beam2 -cea_hold beam1 -coupling_mu 0.3 \
    -cea_modes 20 -cea_preload 0,-10 -cea_state $state -cea_positions 2 -cea_range "$s,$($py -c "print(repr($s + 1e-9))")" -cea_file held_$state.h5
done
must "the held slide against the CEA" $py -c "$fit"'
c, u = h5py.File("held_static.h5", "r"), h5py.File("held_undeformed.h5", "r")
j = int(np.nanargmax(c["real"][0])); re, fc, ru = c["real"][0][j], c["frequency_hz"][0][j], np.nanmax(u["real"][0])
t, z, w, pos = envelope("held.h5", fc)
rate = np.polyfit(t[w], np.log(np.abs(z[w])), 1)[0]
freq = np.polyfit(t[w], np.unwrap(np.angle(z[w])), 1)[0] / (2 * np.pi)
a = np.abs(z); grow = a[t > 0.85 * t[-1]].mean() / a[(t > 0.4 * t[-1]) & (t < 0.5 * t[-1])].mean()
tf, zf, wf, pf = envelope("fixed.h5", fc)
af = np.abs(zf); growf = af[tf > 0.85 * tf[-1]].mean() / af[(tf > 0.4 * tf[-1]) & (tf < 0.5 * tf[-1])].mean()
print("held slide at s = %.4f mm (%.4f to %.4f over the window): growth %.3f 1/s at %.2f Hz; CEA about the static state %.3f 1/s at %.2f Hz (%.2f %%, %.3f %%); undeformed %.3f 1/s" %
      (pos[w].mean(), pos[w].min(), pos[w].max(), rate, freq, re, fc, 100 * (rate / re - 1), 100 * (freq / fc - 1), ru))
print("envelope from 0.4-0.5 T to 0.85-1 T: x %.1f with the deformed rows, x %.2f with the rows fixed undeformed" % (grow, growf))
if not (ru < 0 < re):
    sys.exit("FAIL expected the undeformed CEA stable and the static one unstable here")
if abs(rate / re - 1) > 0.02 or abs(freq / fc - 1) > 1e-3:
    sys.exit("FAIL the held slide grows at %g 1/s, %g Hz; the CEA %g 1/s, %g Hz (tolerances 2 %%, 0.1 %%)" % (rate, freq, re, fc))
if grow < 20 or growf > 5:
    sys.exit("FAIL envelope ratios %g (deformed rows, expected > 20) and %g (fixed rows, expected < 5: a forced response that beats, not a growth)" % (grow, growf))' && echo "$LAST"

# 5. failed static states (issue 27): on the coarse beams sliding backward with mu = 3 under 80 N, the friction on the
# turned segment pulls the slave down harder than the normal force can push it up past s = 200 mm: the slave's vertical
# equilibrium, lambda0 (cos(turn) + mu sin(turn)) = 80 N (held x only), has no compressive solution once cos + mu sin of the
# turn reaches 0, and the Newton ends on a tensile normal force. Each such position gets one line, is marked in
# /static/failed (3, tensile) with NaN eigenvalues, FRF and state, and the run completes (exit 0), the same bits on 1, 2 and
# 3 ranks (the failure at positions dealt to one rank used to end that rank alone: MPI_ABORT without a message, the lock
# left). Every position failed (an upward preload, below): one line, non-zero exit.
failing="cea -rom_file small.h5 -cea_slave beam1:1 -cea_master beam2 -cea_hold beam1 -coupling_mu 3 -coupling_sliding backward
  -cea_preload 0,-80 -cea_positions 22 -cea_range 40,250 -cea_modes 10 -cea_frf_frequencies 100:5000:3 -cea_frf_inputs beam1:1:y
  -cea_frf_outputs beam2:63:y -cea_band_tol 0.5"
for np in 1 2 3; do
  # shellcheck disable=SC2086
  must "failed positions np=$np" mpi 120 $np $failing -cea_file fail$np.h5 || continue
  nl=$(grep -c "^Failed position: the static sliding state at position 2[0-9]*\. has a tensile normal force" <<<"$LAST")
  if [ "$nl" != 5 ] || ! grep -q "failed at 5 of 22 positions" <<<"$LAST"; then
    echo "FAIL np=$np expected 5 lines 'Failed position: ... tensile' (210-250 mm) and the count: $(grep -E "^Failed|^Static" <<<"$LAST")"; fail=1
  fi
done
grep -E "^Failed" <<<"$LAST" | head -1
must "failed positions: the files" $py -c '
import h5py, numpy as np, sys
a = h5py.File("fail1.h5", "r")
names = []
a.visititems(lambda k, o: names.append(k) if isinstance(o, h5py.Dataset) else None)
for other in ("fail2.h5", "fail3.h5"):
    b = h5py.File(other, "r")
    for k in names:
        x, y = a[k][()], b[k][()]
        same = x.tolist() == y.tolist() if x.dtype.kind == "O" else x.tobytes() == y.tobytes()
        if not same:
            sys.exit("FAIL %s differs between fail1.h5 and %s" % (k, other))
s, failed = a["positions"][()].ravel(), a["static/failed"][()].ravel()
lam, turn, re, H = a["static/normal_force"][()].ravel(), a["static/slope"][()].ravel(), a["real"][()], a["frf/H_re"][()]
bad = failed != 0
if list(s[bad]) != [210.0, 220.0, 230.0, 240.0, 250.0] or set(failed[bad]) != {3}:
    sys.exit("FAIL failed positions %s (codes %s), expected 210-250 mm, code 3" % (s[bad], failed[bad]))
if not (np.isnan(re[bad]).all() and np.isnan(H[bad]).all() and np.isnan(lam[bad]).all() and np.isnan(a["static/u"][()][bad]).all()):
    sys.exit("FAIL the failed positions are not NaN")
if np.isnan(re[~bad]).any() or np.isnan(H[~bad]).any() or np.isnan(lam[~bad]).any():
    sys.exit("FAIL NaN at a converged position")
fac = np.cos(turn[~bad]) + 3 * np.sin(turn[~bad])
err = np.max(np.abs(lam[~bad] * fac - 80) / 80)
print("failed positions 210-250 mm (code 3), NaN eigenvalues, FRF and state; 1, 2, 3 ranks: %d datasets equal bit for bit; at the 17 converged: "
      "lambda0 (cos + mu sin of the turn) = 80 N within %.1e, the factor down to %.3f at %g mm (lambda0 %.1f N)" % (len(names), err, fac[-1], s[~bad][-1], lam[~bad][-1]))
if err > 1e-8 or not fac[-1] < 0.5:
    sys.exit("FAIL the vertical equilibrium of the slave body (tolerance 1e-8) or its factor near 0 before the failures")
if a["bands"][()][-1][1] != 200.0:
    sys.exit("FAIL the last band ends at %r, expected the last converged position 200 (no bisection towards a failed one)" % a["bands"][()][-1][1])' && echo "$LAST"
must "info on failed positions" "$VICMS_BIN" info fail1.h5
if ! grep -q "the static state failed at 5 of 22 positions" <<<"$LAST" || grep -q "nan" <<<"$LAST"; then
  echo "FAIL vicms info on the failed positions: $LAST"; fail=1
fi

# 6. bad input, 1, 2 and 3 ranks (3 ranks for 2 positions: a check at the positions would leave the third rank waiting)
for np in 1 2 3; do
  # shellcheck disable=SC2086
  out=$(mpi 60 $np cea -rom_file small.h5 -cea_slave beam1:1 -cea_master beam2 -cea_positions 2 -cea_state static -cea_file bad.h5 2>&1)
  if [ $? -eq 0 ] || ! grep -q "needs held DOFs" <<<"$out" || grep -q "PETSC ERROR" <<<"$out"; then
    echo "FAIL np=$np -cea_state static without -cea_hold: $out" | tail -3; fail=1
  fi
  # shellcheck disable=SC2086
  out=$(mpi 60 $np $cea -cea_state deformed -cea_file bad.h5 2>&1)
  if [ $? -eq 0 ] || ! grep -q "cea_state" <<<"$out"; then
    echo "FAIL np=$np -cea_state deformed accepted: $out" | tail -3; fail=1
  fi
  # shellcheck disable=SC2086
  out=$(mpi 60 $np $cea -cea_state static -cea_preload 0,10 -cea_file bad.h5 2>&1)
  if [ $? -eq 0 ] || ! grep -q "failed at every position (7); the first: the static sliding state at position 40. has a tensile normal force" <<<"$out" ||
    grep -q "PETSC ERROR" <<<"$out"; then
    echo "FAIL np=$np an upward preload: $out" | tail -3; fail=1
  fi
done
[ $fail -eq 0 ] && echo "cea_static: all checks passed"
exit $fail
