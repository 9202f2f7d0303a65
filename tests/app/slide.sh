#!/usr/bin/env bash
# `vicms slide` (seed 003 §2.2, §3.1): the transient of two sliding bodies on the coarse beams of cea.sh (2 x 20 CPS4, 10 modes
# each), end A driven at 30 mm/s, a 2 N preload, a band-limited random force at C.
# (a) 1, 2 and 3 ranks give equal history files (every dataset and attribute, bit for bit);
# (b) the history against independent computations: the energy identity recomputed from the recorded terms (1e-10 of the
#     energy scale, friction and random force on); the load work recomputed from the recorded outputs and forces of a run
#     recorded every step (1e-10); the random force's RMS (1e-10) and band (FFT: energy outside [f0, f1] below 1e-10 of the
#     total); the same seed gives the same force in another run, another seed another force of the same RMS; -slide_start
#     places C at the asked position (1e-4 mm after one record), undeformed (initial energy 0), the identity exact;
# (c) frictionless sliding: drive and random-force work against kinetic + potential + damping, without the contact work,
#     over the persistent sliding after the landing: below 1e-6 of the energy scale, second order in h (ratio 4 +- 0.8);
# (d) two slave nodes: 1 and 2 ranks equal, the identity, each slave's random force (its own seed) and contact positions,
#     vicms info per slave;
# (e) a run stopped by SIGTERM keeps what it computed (exit 75, complete = 0) and its checkpoint; resumed, the history equals
#     the uninterrupted run's bit for bit (1 and 2 ranks; also after SIGKILL following a periodic checkpoint); a resume with
#     another option or without a checkpoint refused; vicms info describes a history;
# (f) bad input refused with a message naming the option, on 1 and 2 ranks.
source "$(dirname "$0")/lib.sh"
vicms_need_h5py
vicms_workdir

small="-bodies beam1,beam2 -rom_file small.h5
  -body_beam1_mesh_rect_cells 20,2 -body_beam1_mesh_rect_lengths 75,5 -body_beam1_mesh_rect_thickness 10 -body_beam1_mesh_rect_origin 50,10
  -body_beam1_mesh_rect_angle 30 -body_beam1_model_young 70000 -body_beam1_model_poisson 0.33 -body_beam1_model_density 2.7e-9
  -body_beam1_cms_contact_set xmin_ymin,xmax -body_beam1_cms_num_modes 10 -body_beam1_cms_rayleigh 12.6,3.2e-7
  -body_beam1_cms_outputs 1:x,1:y,21:y,42:y,63:y
  -body_beam2_mesh_rect_cells 20,2 -body_beam2_mesh_rect_lengths 300,10 -body_beam2_mesh_rect_thickness 10 -body_beam2_model_young 2400
  -body_beam2_model_poisson 0.37 -body_beam2_model_density 1.2e-9 -body_beam2_model_clamp xmin -body_beam2_cms_contact_set ymax
  -body_beam2_cms_num_modes 10 -body_beam2_cms_rayleigh 12.6,3.2e-7 -body_beam2_cms_outputs 63:y"
# shellcheck disable=SC2086
must "reduce the coarse beams" mpi 120 2 reduce $small || exit 1

# 2 ms at 1e-7 s, recorded every 10 steps: 2000 force samples over T = 2 ms, FFT bins of 500 Hz; the 13 harmonics of the
# random force, 2000 to 8000 Hz, fall on bins
slide="slide -rom_file small.h5 -slide_slave beam1:1 -slide_master beam2 -slide_drive beam1 -slide_drive_velocity 30 -slide_preload 0,-2
  -slide_end_time 2e-3 -dual_dt 1e-7 -slide_record_interval 1e-6"
noise="-slide_noise_rms 0.01 -slide_noise_band 2000,8000 -slide_noise_harmonics 13 -slide_seed 7"
compare=$VICMS_SOURCE/tests/app/compare_results.py

# (a) 1, 2 and 3 ranks
for np in 1 2 3; do
  # shellcheck disable=SC2086
  must "slide np=$np" mpi 120 $np $slide $noise -dual_mu 0.3 -slide_file r$np.h5 && echo "$LAST" | grep -E "^Slide|^Energy|^Wrote" | head -3
done
must "1, 2 and 3 ranks" $py -c '
import h5py, numpy as np, sys
def items(f):
    out = {}
    f.visititems(lambda k, o: out.__setitem__(k, o[()]) if isinstance(o, h5py.Dataset) else None)
    for k, o in [("/", f)] + [(k, f[k]) for k in out]:
        for a, v in o.attrs.items(): out["%s@%s" % (k, a)] = v
    return out
a = items(h5py.File("r1.h5", "r"))
for other in ("r2.h5", "r3.h5"):
    b = items(h5py.File(other, "r"))
    if set(a) != set(b): sys.exit("FAIL %s: objects differ: %s" % (other, set(a) ^ set(b)))
    for k in a:
        x, y = np.asarray(a[k]), np.asarray(b[k])
        if k == "/@options": x, y = np.asarray(str(x).replace("r1.h5", "r.h5")), np.asarray(str(y).replace(other, "r.h5"))
        same = np.array_equal(x, y, equal_nan=True) if x.dtype.kind == "f" else np.array_equal(x, y)
        if not same: sys.exit("FAIL %s differs in %s" % (other, k))
print("1, 2 and 3 ranks: %d datasets and attributes equal bit for bit (the options attribute but for -slide_file)" % len(a))' && echo "$LAST"

# (b) the history against independent computations
# shellcheck disable=SC2086
must "slide every step" mpi 120 1 $slide $noise -dual_mu 0.3 -slide_end_time 2e-4 -slide_record_interval 0 -slide_file every.h5
# shellcheck disable=SC2086
must "slide mu = 0, same seed" mpi 120 1 $slide $noise -dual_mu 0 -slide_noise_dir y -slide_file same.h5
# shellcheck disable=SC2086
must "slide seed 8" mpi 120 1 $slide $noise -dual_mu 0.3 -slide_seed 8 -slide_file seed8.h5
# shellcheck disable=SC2086
must "slide from s = 100 mm" mpi 120 1 $slide $noise -dual_mu 0.3 -slide_start 100 -slide_end_time 2e-4 -slide_file start.h5
must "history checks" $py -c '
import h5py, numpy as np, sys
f = h5py.File("r1.h5", "r")
bad = []
def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok: bad.append(msg)
e = f["energy"][()]
scale = np.abs(e).max()
closure = e[:, 0] + e[:, 1] - e[:, 6] + e[:, 2] - e[:, 3] - e[:, 4] - e[:, 5]
check(np.abs(closure).max() < 1e-10 * scale, "energy identity, mu = 0.3 with the random force: max closure %.2e of the scale %.4g N mm (1e-10)" % (np.abs(closure).max() / scale, scale))
st = f["contact/status"][:, 0]
check((st == 3).sum() > 0 and (st == 2).sum() > 0, "recorded states: %d slip, %d stick, %d open" % ((st == 3).sum(), (st == 2).sum(), (st == 1).sum()))
# the random force: s(t_n) in column 0, its vector along the master normal in columns 1-2
s, fx, fy = f["force"][:, 0], f["force"][:, 1], f["force"][:, 2]
n = len(s)
rms = np.sqrt(np.mean(s**2))
check(abs(rms - 0.01) < 1e-10 * 0.01, "random force RMS %.15g over %d samples, %.2e off 0.01 relative (1e-10)" % (rms, n, abs(rms / 0.01 - 1)))
dt = f.attrs["dt"] * f.attrs["record_every"]
spec = np.abs(np.fft.rfft(s))**2
freq = np.fft.rfftfreq(n, dt)
inside = (freq >= 2000 - 1e-6) & (freq <= 8000 + 1e-6)
out = spec[~inside].sum() / spec.sum()
check(out < 1e-10, "random force spectrum: %.2e of its energy outside [2000, 8000] Hz (1e-10); %d bins of %g Hz inside" % (out, inside.sum(), freq[1]))
check(np.abs(np.hypot(fx, fy) - np.abs(s)).max() < 1e-12 * np.abs(s).max(), "the force vector has the magnitude |s| (along the master normal)")
check(np.all(np.abs(fx) < 1e-3 * np.abs(s) + 1e-300), "the normal of the deformed track is within 1e-3 rad of y: max |fx/s| %.2e" % np.max(np.abs(fx) / (np.abs(s) + 1e-300)))
g = h5py.File("same.h5", "r")["force"][()]
check(np.array_equal(g[:, 0], s) and np.array_equal(g[:, 2], s) and not g[:, 1].any(), "same seed, another run (mu = 0, direction y): the same force, bit for bit")
h = h5py.File("seed8.h5", "r")["force"][:, 0]
check(not np.allclose(h, s) and abs(np.sqrt(np.mean(h**2)) - 0.01) < 1e-12, "seed 8: another force (max difference %.3g), RMS %.15g" % (np.abs(h - s).max(), np.sqrt(np.mean(h**2))))
# the load work from the recorded outputs (C x, y; the y of the 3 nodes of A) and forces, recorded every step:
# sum over the steps of f_n . (u_{n+1} - u_{n-1}) / 2, u_0 = u_-1 = 0, preload (0, -2) split over A
w = h5py.File("every.h5", "r")
names = [x.decode() if isinstance(x, bytes) else x for x in w["output_names"][()]]
out = w["outputs"][()]
u = np.vstack([np.zeros((2, out.shape[1])), out])  # u_-1, u_0, u_1, ...
C = [names.index("beam1/n1_x"), names.index("beam1/n1_y")]
A = [names.index("beam1/n%d_y" % i) for i in (21, 42, 63)]
F = w["force"][()]
du = (u[2:] - u[:-2]) / 2  # row n: (u_{n+1} - u_{n-1}) / 2
inc = F[:, 1] * du[:, C[0]] + F[:, 2] * du[:, C[1]] + (-2.0 / 3) * du[:, A].sum(axis=1)
lw = np.cumsum(inc)
ew = w["energy"][()]
err = np.abs(lw - ew[:, 3]).max() / np.abs(ew).max()
check(len(lw) == 2000 and err < 1e-10 and abs(lw[-1]) > 1e-3 * np.abs(ew).max(), "load work recomputed from %d steps of outputs and forces: %.4g against %.4g recorded, difference %.2e of the energy scale (1e-10)" % (len(lw), lw[-1], ew[-1, 3], err))
# -slide_start: the slave body placed rigidly, C at s = 100 mm, undeformed, the identity exact
z = h5py.File("start.h5", "r")
p0, ez = z["contact/position"][0, 0], z["energy"][()]
cz = ez[:, 0] + ez[:, 1] - ez[:, 6] + ez[:, 2] - ez[:, 3] - ez[:, 4] - ez[:, 5]
check(abs(p0 - 100) < 1e-4 and ez[0, 6] == 0 and np.abs(cz).max() < 1e-10 * np.abs(ez).max(), "-slide_start 100: first contact position %.8f mm, initial energy %g, identity %.2e" % (p0, ez[0, 6], np.abs(cz).max() / np.abs(ez).max()))
sys.exit(1 if bad else 0)' && echo "$LAST"

# (c) frictionless sliding at h and h/4: the identity without the contact work, after the landing (the last record not in slip)
for dt in 9.4e-8 2.35e-8; do
  # shellcheck disable=SC2086
  must "frictionless dt=$dt" mpi 120 1 $slide $noise -dual_mu 0 -dual_dt $dt -slide_record_interval 1e-5 -slide_file free$dt.h5
done
must "frictionless closure" $py -c '
import h5py, numpy as np, sys
d = []
for name in ("free9.4e-8.h5", "free2.35e-8.h5"):
    f = h5py.File(name, "r")
    e, st, t = f["energy"][()], f["contact/status"][:, 0], f["t"][()]
    a = np.where(st != 3)[0].max() + 1
    nc = e[:, 0] + e[:, 1] - e[:, 6] + e[:, 2] - e[:, 3] - e[:, 4]
    scale = np.abs(e).max()
    d.append(np.abs(nc[a:] - nc[a]).max() / scale)
    print("  h = %g s: sliding from t = %.3g ms to %.3g ms; without the contact work the balance drifts by %.3g of the scale %.4g N mm" % (f.attrs["dt"], 1e3 * t[a], 1e3 * t[-1], d[-1], scale))
ok = max(d) < 1e-6 and 3.2 < d[0] / d[1] < 4.8
print(("ok   " if ok else "FAIL ") + "frictionless: %.3g, %.3g of the scale (1e-6), ratio %.3f (second order: 4 +- 0.8)" % (d[0], d[1], d[0] / d[1]))
sys.exit(0 if ok else 1)' && echo "$LAST"

# (d) two slave nodes of beam1: C (node 1) and its neighbour on the lower edge (node 2, 3.75 mm up the 30-degree edge, 1.875 mm
# above the track), from the coarse beams reduced with node 2 on the boundary; the random force an independent realisation at
# each (seeds 7 and 8)
two="-bodies beam1,beam2 -rom_file two.h5
  -body_beam1_mesh_rect_cells 20,2 -body_beam1_mesh_rect_lengths 75,5 -body_beam1_mesh_rect_thickness 10 -body_beam1_mesh_rect_origin 50,10
  -body_beam1_mesh_rect_angle 30 -body_beam1_model_young 70000 -body_beam1_model_poisson 0.33 -body_beam1_model_density 2.7e-9
  -body_beam1_cms_contact_nodes 1,2,21,42,63 -body_beam1_cms_num_modes 10 -body_beam1_cms_rayleigh 12.6,3.2e-7
  -body_beam1_cms_outputs 1:x,1:y,2:x,2:y,21:y,42:y,63:y
  -body_beam2_mesh_rect_cells 20,2 -body_beam2_mesh_rect_lengths 300,10 -body_beam2_mesh_rect_thickness 10 -body_beam2_model_young 2400
  -body_beam2_model_poisson 0.37 -body_beam2_model_density 1.2e-9 -body_beam2_model_clamp xmin -body_beam2_cms_contact_set ymax
  -body_beam2_cms_num_modes 10 -body_beam2_cms_rayleigh 12.6,3.2e-7 -body_beam2_cms_outputs 63:y"
# shellcheck disable=SC2086
must "reduce with node 2 on beam1's boundary" mpi 120 1 reduce $two || exit 1
for np in 1 2; do
  # shellcheck disable=SC2086
  must "two slaves np=$np" mpi 120 $np $slide $noise -rom_file two.h5 -slide_slave beam1:1,2 -dual_mu 0.3 -slide_file two$np.h5 &&
    echo "$LAST" | grep -E "^Slide|independent"
done
must "two slaves, 1 and 2 ranks" $py "$compare" two1.h5 two2.h5 --min-objects 40 --label "two slaves, 1 and 2 ranks bit for bit" && echo "$LAST"
must "two slaves: info" mpi 60 1 info two1.h5 && echo "$LAST" | sed -n '3,6p'
info_two=$LAST
must "two slaves: checks" $py -c '
import h5py, numpy as np, sys, re
f = h5py.File("two1.h5", "r")
bad = []
def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok: bad.append(msg)
st, seg, xi, pos = f["contact/status"][()], f["contact/segment"][()], f["contact/xi"][()], f["contact/position"][()]
gap, nf, F = f["contact/gap"][()], f["contact/normal"][()], f["force"][()]
check(st.shape == (2000, 2) and F.shape == (2000, 6) and list(f["contact/slave_ids"][()]) == [1, 2], "per-slave datasets: status %s, force %s, slave ids %s" % (st.shape, F.shape, list(f["contact/slave_ids"][()])))
e = f["energy"][()]
closure = e[:, 0] + e[:, 1] - e[:, 6] + e[:, 2] - e[:, 3] - e[:, 4] - e[:, 5]
check(np.abs(closure).max() < 1e-10 * np.abs(e).max(), "energy identity, two slaves: max closure %.2e of the scale %.4g N mm (1e-10)" % (np.abs(closure).max() / np.abs(e).max(), np.abs(e).max()))
# each slave: its own force, RMS exact; slave 0 the realisation of seed 7 (r1.h5), slave 1 that of seed 8 (seed8.h5), bit for bit
for j, ref in ((0, "r1.h5"), (1, "seed8.h5")):
    s = F[:, 3 * j]
    rms = np.sqrt(np.mean(s**2))
    same = np.array_equal(s, h5py.File(ref, "r")["force"][:, 0])
    mag = np.abs(np.hypot(F[:, 3 * j + 1], F[:, 3 * j + 2]) - np.abs(s)).max()
    check(abs(rms / 0.01 - 1) < 1e-10 and same and mag < 1e-12 * 0.05, "slave %d: random force RMS %.15g (1e-10 relative), the samples of seed %d (%s) bit for bit, |f| = |s| to %.1e" % (j, rms, 7 + j, ref, mag))
check(not np.allclose(F[:, 0], F[:, 3]), "the two slaves realisations differ (by up to %.3g N)" % np.abs(F[:, 0] - F[:, 3]).max())
# contact positions: s = 15 (segment + xi) on the straight track of 20 segments of 15 mm; slave 2 up the edge, never closed
on = seg >= 0
err = np.abs(np.where(on, 15.0 * (seg + xi), 0) - np.where(on, pos, 0)).max()
check(on.all() and err < 1e-12, "contact positions = 15 (segment + xi) mm for both slaves to %.1e mm (1e-12)" % err)
d = pos[:, 1] - pos[:, 0]
check(np.abs(d - 3.75 * np.cos(np.pi / 6)).max() < 0.05, "slave 1 is %.4f to %.4f mm ahead of slave 0 (3.75 cos 30 = %.4f, 0.05)" % (d.min(), d.max(), 3.75 * np.cos(np.pi / 6)))
check((st[:, 1] == 1).all() and not nf[:, 1].any() and np.abs(gap[:, 1] - 1.875).max() < 0.05, "slave 1 open at every record, normal force 0, gap %.4f to %.4f mm (1.875, 0.05)" % (gap[:, 1].min(), gap[:, 1].max()))
check((st[:, 0] == 3).sum() > 0 and (st[:, 0] == 2).sum() > 0, "slave 0: %d slip, %d stick, %d open" % ((st[:, 0] == 3).sum(), (st[:, 0] == 2).sum(), (st[:, 0] == 1).sum()))
# vicms info: a line per slave with its counts and positions
info = sys.argv[1]
for j in (0, 1):
    m = re.search(r"slave %d \(node %d\): (\d+) slip, (\d+) stick, (\d+) open, (\d+) off; max normal force (\S+); contact position (\S+) to (\S+)" % (j, j + 1), info)
    ok = m is not None and [int(m.group(k)) for k in (1, 2, 3, 4)] == [int((st[:, j] == c).sum()) for c in (3, 2, 1, 0)]
    ok = ok and abs(float(m.group(5)) - nf[:, j].max()) <= 1e-5 * max(nf[:, j].max(), 1) and abs(float(m.group(6)) - pos[:, j].min()) < 1e-4 and abs(float(m.group(7)) - pos[:, j].max()) < 1e-4
    check(ok, "vicms info, slave %d: %s" % (j, m.group(0) if m else "no line"))
sys.exit(1 if bad else 0)' "$info_two" && echo "$LAST"

# (e) stop and resume: a run stopped by SIGTERM keeps what it computed (exit 75, complete = 0) and its checkpoint; resumed
# with -slide_resume it ends with the history of the uninterrupted run, bit for bit (every dataset and attribute but the
# options string, which holds -slide_resume); on 1 and 2 ranks. The stop comes after the first progress line, at whichever
# check of the signals (every 256 steps) follows: the resumed history must not depend on where. A resume with another option
# is refused naming it; one without a checkpoint says so. A run killed (SIGKILL) after a periodic checkpoint resumes from it.
long="$slide $noise -dual_mu 0.3 -slide_end_time 0.02 -slide_record_interval 1e-5"
# shellcheck disable=SC2086
must "uninterrupted run" mpi 120 1 $long -slide_file full.h5
# stop_run NP SIGNAL WAIT_FOR FILE ARGS...: start vicms slide ARGS on NP ranks into FILE, send SIGNAL to its ranks once the log
# shows a line starting with WAIT_FOR; the exit status in $rc
stop_run() {
  local np=$1 signal=$2 wait_for=$3 file=$4 pid
  shift 4
  timeout 120 mpirun --oversubscribe -n "$np" "$VICMS_BIN" "$@" -slide_file "$file" >"$file.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 1200); do grep -q "^$wait_for" "$file.log" && break; sleep 0.05; done
  kill -"$signal" $(pgrep -P "$(pgrep -P $pid | head -1)" -x vicms) 2>/dev/null
  wait $pid
  rc=$?
}
for np in 1 2; do
  # shellcheck disable=SC2086
  stop_run $np TERM "  t = " stop$np.h5 $long -slide_progress_interval 0.05
  if [ $rc -ne 75 ] || ! grep -q "stopped by SIGTERM" stop$np.h5.log || [ ! -f stop$np.h5.ckpt ]; then
    echo "FAIL SIGTERM np=$np: exit $rc (expected 75), or no checkpoint stop$np.h5.ckpt"; tail -5 stop$np.h5.log; fail=1
  fi
  must "stopped history np=$np" $py -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
n, c, t = f.attrs["n_records"], f.attrs["complete"], f["t"][-1]
ok = 0 < n < 2000 and c == 0 and len(f["t"]) == n
print("%s SIGTERM np=%s: exit 75, %d records to t = %.4g s of 0.02 kept, complete = %d" % ("ok  " if ok else "FAIL", sys.argv[2], n, t, c))
sys.exit(0 if ok else 1)' stop$np.h5 $np && echo "$LAST"
  refuse "resume with another -dual_mu" "$np" "-slide_resume: the checkpoint stop$np.h5.ckpt is of another run: -dual_mu is '0.3' in the checkpoint's run and '0.1' here" \
    $long -slide_file stop$np.h5 -slide_resume -dual_mu 0.1
  # shellcheck disable=SC2086
  must "resume np=$np" mpi 120 $np $long -slide_file stop$np.h5 -slide_resume && echo "$LAST" | grep -E "^Resumed|^Wrote"
  must "resumed = uninterrupted, np=$np" $py "$compare" full.h5 stop$np.h5 --min-objects 40 --label "stopped by SIGTERM and resumed on $np rank(s)" &&
    echo "$LAST"
  if [ -f stop$np.h5.ckpt ]; then
    echo "FAIL the complete run left its checkpoint stop$np.h5.ckpt"; fail=1
  fi
done
# shellcheck disable=SC2086
stop_run 1 KILL "  checkpoint at" killed.h5 $long -slide_checkpoint_interval 0.2
if [ ! -f killed.h5.ckpt ] || [ -f killed.h5 ]; then
  echo "FAIL SIGKILL after a periodic checkpoint: exit $rc; expected a checkpoint and no history"; tail -5 killed.h5.log; fail=1
fi
# shellcheck disable=SC2086
must "resume after SIGKILL" mpi 120 1 $long -slide_file killed.h5 -slide_resume && echo "$LAST" | grep -E "^Resumed"
must "resumed after SIGKILL = uninterrupted" $py "$compare" full.h5 killed.h5 --min-objects 40 --label "killed after a periodic checkpoint and resumed" &&
  echo "$LAST"
refuse "resume without a checkpoint" "1 2" "-slide_resume: there is no checkpoint bad.h5.ckpt to resume from" $long -slide_file bad.h5 -slide_resume
must "info" mpi 60 1 info r1.h5 && echo "$LAST" | head -4
if ! grep -q "^Slide history r1.h5: bodies small.h5, slave beam1:1 on master beam2, mu = 0.3" <<<"$LAST"; then
  echo "FAIL vicms info does not describe the history"; fail=1
fi

# (f) bad input, on 1 and 2 ranks at once (each start waits mostly on MPI's start-up, not on the cores), each into a log
bad="$slide -dual_mu 0.3 -slide_file bad.h5"
bad_input() {
  local np=$1
  refuse "missing bodies file" "$np" "-rom_file: cannot read 'missing.h5'" $bad -rom_file missing.h5
  refuse "unknown body" "$np" "-slide_slave: no body 'beam3' in the bodies file" $bad -slide_slave beam3:1
  refuse "a friction coefficient of 1e308" "$np" "-dual_mu: the friction coefficient is 1e+308, expected 0 <= mu <= 1e6" $bad -dual_mu 1e308
  refuse "another system type" "$np" "-system_type reduced: vicms slide integrates coupled bodies, -system_type bodies" $bad -system_type reduced
  refuse "node not on the boundary" "$np" "-slide_slave: node 5 is not a boundary node of body beam1" $bad -slide_slave beam1:5
  refuse "unknown master node" "$np" "-slide_master: node 7 is not a boundary node of body beam2" $bad -slide_master beam2:61,7
  refuse "slave given twice" "$np" "-slide_slave: node 1 is given twice" $bad -slide_slave beam1:1,1
  refuse "bad velocity" "$np" "-slide_drive_velocity: 'fast' is not a" $bad -slide_drive_velocity fast
  refuse "bad preload" "$np" "-slide_preload: 3 values, expected the two components fx,fy" $bad -slide_preload 0,-2,1
  refuse "bad drive nodes" "$np" "-slide_drive: 'beam1:21,x': expected node ids" $bad -slide_drive beam1:21,x
  refuse "f1 <= f0" "$np" "-slide_noise_band: got 8000.,2000. Hz, expected f_lo,f_hi with 0 < f_lo < f_hi" $bad $noise -slide_noise_band 8000,2000
  refuse "negative RMS" "$np" "-slide_noise_rms: -0.01, expected an RMS >= 0" $bad $noise -slide_noise_rms -0.01
  refuse "end time <= 0" "$np" "-slide_end_time: 0., expected a time > 0" $bad -slide_end_time 0
  refuse "start off the chain" "$np" "-slide_start: 400., expected an arc length in \[0, 300.\]" $bad -slide_start 400
}
for np in 1 2; do bad_input $np >bad_input.$np.log 2>&1 & done
wait
cat bad_input.1.log bad_input.2.log
if grep -q "^FAIL" bad_input.1.log bad_input.2.log; then fail=1; fi
if ls bad.h5* >/dev/null 2>&1; then
  echo "FAIL a refused run left a history file"; fail=1
fi
exit $fail
