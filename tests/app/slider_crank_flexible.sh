#!/usr/bin/env bash
# The slider-crank of seed 001 §3-§4 with its connecting rod flexible in a floating frame of reference
# (jobs/models/slider_crank_flexible.yaml with a coarser rod: 10 x 2 CPS4, Craig-Bampton with the tip, node 22, and 4
# modes; docs/multibody.md "Flexible bodies"), through `vicms simulate -system_type multibody`:
# (a) the clearance too large to touch (-mb_param_c 1), no damping, over 0.25 ms (the rod's axial mode, the stiffest,
#     has a period of about 60 us: four periods): nsgalpha rho_inf = 1 against tests/ref/slider_crank_flexible.py (SciPy
#     Radau at rtol 1e-8, its own mass matrix from the ROM's invariants, Lagrange's equations with dM/dz by differences:
#     it shares only the invariants, K and the tip's output rows with vicms; at rtol 1e-9 it moves by 1e-15). The
#     scheme's error is second order, C h^2: at h = 2e-6 s the measured errors are 6.2e-9 rad (theta1), 4.4e-9 rad
#     (theta2), 2.8e-9 m and 1.1e-10 m (the slider's x and y); the tolerances are three times those (2e-8 rad, 2e-8 rad,
#     1e-8 m, 5e-10 m), and the ratio of the crank-angle errors at h = 4e-6 and 2e-6 must be >= 3 (second order: 4;
#     measured 6.9). The initial energies equal to 1e-12 (vicms's M(q) and gravity against the reference's). Moreau-Jean
#     theta = 1/2 (mass M(q_n) per step): first order, the crank-angle error ratio >= 1.8 and within 1e-6 rad at 2e-6;
# (b) energy without damping and impacts: the recorded T + V drifts by at most 2e-6 of E0 at h = 2e-6 (measured 5.5e-7,
#     second order in h: the ratio at 4e-6 >= 3, measured 4.0), and the stepper's energy balance (its work terms; the
#     quadratic velocity vector does no work) within 2e-6 of the largest energy;
# (c) the almost rigid rod (E = 1e15, seed 001 Fig. 21) against the rigid mechanism (jobs/models/slider_crank.yaml) over
#     0.02 s at h = 1e-5: theta1 within 1e-4 rad, the slider's x within 1e-5 m (measured 9.3e-6 rad and 1.4e-6 m; 3.5e-5
#     rad and 4.5e-6 m over 0.05 s: the mesh's rounding of m2 (3e-7 kg) and J2 (1.4e-5 of it), and the two runs' own
#     errors at this h, 3e-5 rad in slider_crank.sh); the Newton iteration stops at its round-off floor (the joints' force
#     is K times their position round-off) and converges at every step;
# (d) Table 1 (c = 0.001 m, e = 0.4, mu = 0.01) with the flexible rod, nsgalpha rho_inf = 0.8, h = 1e-5 to 0.01 s on 1, 2
#     and 3 ranks: bitwise equal, contacts happen (a corner force above 100 N), the joints' rows at round-off (1e-12 m);
# (g) c = 0 (seed 001 Fig. 22's bilateral case: the slider on a prismatic joint to the ground), nsgalpha rho_inf = 1 at
#     h = 8e-6, 4e-6, 2e-6 s over 4 ms: second order in the crank angle, its rate, the slider's x and the guide's normal
#     force, observed from the differences between successive h, >= 1.7 (measured 1.93, 1.84, 1.97, 2.00; 2.01, 2.02,
#     1.98, 2.01 one halving further); and against the SciPy model with the guide as a constraint (--guide; Radau rtol
#     1e-5, which differs from rtol 1e-9 by 5.1e-11 rad, 1.3e-12 m, 5.4e-5 N): errors at h = 2e-6 theta1 7.3e-7 rad,
#     slider x 6.0e-8 m, the guide's force 1.0 N (of 219), falling as h^2 (ratios 3.7-4.0 per halving);
# (f) a stop (SIGTERM) and resume of a Table 1 flexible case (h = 1e-6 to 0.01 s): the rerun resumes from its checkpoint
#     and ends bitwise equal to the uninterrupted run;
# (h) the job file jobs/slider_crank_flexible.yaml as documented: its reduction, then its run (to 2 ms here), from a folder
#     that has the repository's jobs/;
# (e) bad input: a flexible body whose ROM has no frame invariants (the model file, its line and the fix named), a node
#     the ROM does not report, a node on a rigid body (1 and 2 ranks).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
jobs="$VICMS_SOURCE/jobs"
rod() {
  local E=$1 out=$2
  shift 2
  mpi 60 1 reduce -mesh_rect_cells 10,2 -mesh_rect_lengths 0.306,0.30443 -mesh_rect_thickness 5.2297e-5 -mesh_rect_origin 0,-0.152215 \
    -model_young "$E" -model_poisson 0.3 -model_density 7800 -model_clamp xmin -cms_type cb -cms_contact_nodes 22 -cms_contact_dirs 2 \
    -cms_contact_normal 1,0,0 -cms_contact_t1 0,1,0 -cms_num_modes 4 -cms_outputs 22:x,22:y -cms_units SI -rom_file "$out" "$@"
}
must "reduce the rod" rod 2e11 rod.h5 -cms_frame_invariants || exit 1
must "reduce the almost rigid rod" rod 1e15 stiffrod.h5 -cms_frame_invariants || exit 1
sed -e 's/rom: slider_crank_rod.h5/rom: rod.h5/' -e 's/\[n21, n42, n63, n84, n105\], weights1\?: tributary/n22/' "$jobs/models/slider_crank_flexible.yaml" >flex.yaml
sed -e 's/rom: rod.h5/rom: stiffrod.h5/' flex.yaml >stiff.yaml
free="-system_type multibody -mb_param_c 1 -step_end_time 2.5e-4"
for h in 2e-6 4e-6; do
  must "nsgalpha h = $h" mpi 60 1 simulate $free -mb_model flex.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt $h -results_file n_$h.h5
  must "moreau h = $h" mpi 60 1 simulate $free -mb_model flex.yaml -step_type moreau -step_moreau_variant theta -step_theta 0.5 -step_dt $h \
    -results_file m_$h.h5
done
must "almost rigid rod" mpi 60 1 simulate -system_type multibody -mb_model stiff.yaml -mb_param_c 1 -step_type nsgalpha -step_rho_inf 1 \
  -step_dt 1e-5 -step_end_time 0.02 -results_file stiff.h5
must "rigid rod" mpi 60 1 simulate -system_type multibody -mb_model "$jobs/models/slider_crank.yaml" -mb_param_c 1 -step_type nsgalpha \
  -step_rho_inf 1 -step_dt 1e-5 -step_end_time 0.02 -results_file rigid.h5
for np in 1 2 3; do
  must "Table 1, flexible rod, $np ranks" mpi 60 $np simulate -system_type multibody -mb_model flex.yaml -step_type nsgalpha -step_rho_inf 0.8 \
    -step_dt 1e-5 -step_end_time 0.01 -results_file table1_$np.h5
done
sed -e '/^contacts:/,/^outputs:/{/^contacts:/d;/^  /d}' -e '/name: f_[ul][lr]/d' -e \
  's/^outputs:/  - {name: guide, type: prismatic, body1: ground, point1: [0, 0], body2: slider, axis: [1, 0]}\noutputs:\n  - {name: guide_force, type: joint_force, joint: guide}/' \
  flex.yaml >ideal.yaml
for run in 8e-6:1 4e-6:2 2e-6:4; do # h and the output stride: every 8e-6 s
  h=${run%:*}
  must "c = 0, h = $h" mpi 60 1 simulate -system_type multibody -mb_model ideal.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt $h \
    -step_end_time 0.004 -step_output_every ${run#*:} -results_file ideal_$h.h5
done
must "scipy reference" $py "$VICMS_SOURCE/tests/ref/slider_crank_flexible.py" rod.h5 --tip n22_x,n22_y --t-end 2.5e-4 --dt 1e-5 --rtol 1e-8 \
  --out ref.csv
must "scipy reference with the guide" $py "$VICMS_SOURCE/tests/ref/slider_crank_flexible.py" rod.h5 --tip n22_x,n22_y --guide --t-end 0.004 \
  --dt 8e-6 --rtol 1e-5 --out refguide.csv
VICMS_SOURCE="$VICMS_SOURCE" $py - <<'PY' || fail=1
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
import mbcheck
from mbcheck import check, case

r = np.genfromtxt("ref.csv", delimiter=",", names=True)
tr = r["t"]


def errors(name):
    t, o, _, _ = case(name)
    return [np.abs(np.interp(tr, t, o[k]) - r[kr]).max() for k, kr in (("theta1", "theta1"), ("theta2", "theta2"), ("slider_x", "x"), ("slider_y", "y"))], o


# (a)
e2, o2 = errors("n_2e-6.h5")
e4, o4 = errors("n_4e-6.h5")
check(all(e <= tol for e, tol in zip(e2, (2e-8, 2e-8, 1e-8, 5e-10))),
      "nsgalpha h = 2e-6 against SciPy over 0.25 ms: theta1 %.2e, theta2 %.2e rad (<= 2e-8), slider x %.2e m (<= 1e-8), y %.2e m (<= 5e-10; "
      "it moves by %.2e)" % (*e2, np.abs(r["y"]).max()))
check(e4[0] / e2[0] >= 3, "nsgalpha second order: crank-angle errors %.2e (h = 4e-6), %.2e (h = 2e-6), ratio %.1f (>= 3)" % (e4[0], e2[0], e4[0] / e2[0]))
check(abs(o2["energy"][0] - r["energy"][0]) <= 1e-12 * r["energy"][0],
      "initial energy %.12g J, SciPy's %.12g J (M(q) and gravity from the invariants; 1e-12)" % (o2["energy"][0], r["energy"][0]))
m2, _ = errors("m_2e-6.h5")
m4, _ = errors("m_4e-6.h5")
check(m2[0] <= 1e-6 and m4[0] / m2[0] >= 1.8,
      "moreau theta = 1/2: crank-angle errors %.2e (h = 4e-6), %.2e rad (h = 2e-6, <= 1e-6): first order, ratio %.2f (>= 1.8)" % (m4[0], m2[0], m4[0] / m2[0]))
# (b)
d2 = np.abs(o2["energy"] - o2["energy"][0]).max() / o2["energy"][0]
d4 = np.abs(o4["energy"] - o4["energy"][0]).max() / o4["energy"][0]
bal = float(h5py.File("n_2e-6.h5", "r")["cases/balance_error"][0])
check(d2 <= 2e-6 and d4 / d2 >= 3 and abs(bal) <= 2e-6,
      "energy without damping or impacts: T + V drifts by %.2e of E0 at h = 2e-6 (<= 2e-6), %.2e at 4e-6 (ratio %.1f >= 3); energy balance %.2e (<= 2e-6)"
      % (d2, d4, d4 / d2, bal))
# (c)
ts, s, _, _ = case("stiff.h5")
tg, g, _, _ = case("rigid.h5")
dth, dx = np.abs(s["theta1"] - g["theta1"]).max(), np.abs(s["slider_x"] - g["slider_x"]).max()
st = h5py.File("stiff.h5", "r")["cases/0"]
check(dth <= 1e-4 and dx <= 1e-5 and ts[-1] >= 0.02 - 1e-12,
      "almost rigid rod (E = 1e15) against the rigid mechanism over 0.02 s: theta1 within %.2e rad (<= 1e-4), the slider's x within %.2e m (<= 1e-5)"
      % (dth, dx))
# (d)
a = h5py.File("table1_1.h5", "r")["cases/0"]
for np_ in (2, 3):
    b = h5py.File("table1_%d.h5" % np_, "r")["cases/0"]
    check(all(np.array_equal(a[d][()], b[d][()]) for d in ("t", "outputs", "gaps", "forces", "energy")),
          "Table 1 with the flexible rod: %d ranks bitwise equal to 1 rank (t, outputs, gaps, forces, energy)" % np_)
F, G = a["forces"][()], a["gaps"][()]
check(np.abs(F[:, 6:]).max() > 100 and np.abs(G[:, :6]).max() <= 1e-12,
      "Table 1 with the flexible rod: largest corner force %.0f N (> 100: contacts), the joints' rows <= %.1e m (<= 1e-12)" % (np.abs(F[:, 6:]).max(), np.abs(G[:, :6]).max()))
# (g)
c0 = {h: case("ideal_%s.h5" % h) for h in ("8e-6", "4e-6", "2e-6")}
for k in ("theta1", "theta1_rate", "slider_x", "guide_force_x"):
    d = [np.abs(c0[a][1][k] - c0[b][1][k]).max() for a, b in (("8e-6", "4e-6"), ("4e-6", "2e-6"))]
    same = all(np.array_equal(c0["8e-6"][0], c0[h][0]) for h in c0)
    check(same and np.log2(d[0] / d[1]) >= 1.7, "c = 0 (prismatic guide), %s: differences %.2e (8e-6 -> 4e-6), %.2e (4e-6 -> 2e-6): order %.2f (>= 1.7)"
          % (k, d[0], d[1], np.log2(d[0] / d[1])))
rg = np.genfromtxt("refguide.csv", delimiter=",", names=True)
for k, kr, tol in (("theta1", "theta1", 1.5e-6), ("slider_x", "x", 1.2e-7), ("guide_force_x", "guide_force", 2.0)):
    err = [np.abs(np.interp(rg["t"], c0[h][0], c0[h][1][k]) - rg[kr]).max() for h in ("8e-6", "4e-6", "2e-6")]
    check(err[2] <= tol and np.log2(err[1] / err[2]) >= 1.8,
          "c = 0 against SciPy with the guide, %s: errors %.2e, %.2e, %.2e at h = 8e-6, 4e-6, 2e-6 (the last <= %.1e; order %.2f >= 1.8)"
          % (k, *err, tol, np.log2(err[1] / err[2])))
sys.exit(mbcheck.bad)
PY
# (f)
stop_resume "Table 1 flexible" -system_type multibody -mb_model flex.yaml -step_type nsgalpha -step_rho_inf 0.8 -step_dt 1e-6 \
  -step_end_time 0.01 -step_output_every 100
# (h)
mkdir job && ln -s "$jobs" job/jobs
(cd job && must "vicms reduce -options_file jobs/slider_crank_flexible.yaml" mpi 60 1 reduce -options_file jobs/slider_crank_flexible.yaml &&
  must "vicms simulate -options_file jobs/slider_crank_flexible.yaml" mpi 60 1 simulate -options_file jobs/slider_crank_flexible.yaml \
    -step_end_time 0.002 -results_file job.h5) || fail=1
[ -f job/job.h5 ] && echo "ok   jobs/slider_crank_flexible.yaml: reduced and ran" || { echo "FAIL jobs/slider_crank_flexible.yaml wrote no results"; fail=1; }
# (e)
must "reduce a rod without the invariants" rod 2e11 noframe.h5 || exit 1
sed -e 's/rom: rod.h5/rom: noframe.h5/' flex.yaml >noframe.yaml
refuse_simulate "a ROM without /frame" "1 2" "noframe.yaml line 16.*-cms_frame_invariants" -system_type multibody -mb_model noframe.yaml \
  -step_type nsgalpha -step_dt 1e-5 -step_end_time 1e-4
sed -e 's/node1: n22/node1: n99/' flex.yaml >nonode.yaml
refuse_simulate "a node the ROM does not report" "1 2" "nonode.yaml:21: the node 'n99'" -system_type multibody -mb_model nonode.yaml \
  -step_type nsgalpha -step_dt 1e-5 -step_end_time 1e-4
sed -e 's/point2: \[0, 0\]}$/point2: [0, 0], node2: n22}/' flex.yaml >rigidnode.yaml
refuse_simulate "a node on a rigid body" "1 2" "'slider' is not a flexible body" -system_type multibody -mb_model rigidnode.yaml \
  -step_type nsgalpha -step_dt 1e-5 -step_end_time 1e-4
exit $fail
