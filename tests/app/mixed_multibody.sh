#!/usr/bin/env bash
# -step_type mixed (seed 001) on multibody systems (its nonlinear path, src/step/mixednl.c; issue 23 §3/§4):
# (a) the rigid slider-crank of seed 001 Table 1 with the clearance too large to touch (-mb_param_c 1), rho_inf = 1, 0.05 s,
#     against the independent SciPy solution in minimal coordinates (tests/ref/slider_crank.py free, DOP853 at rtol 1e-12):
#     genalpha and bathe at h = 1e-4, 5e-5, 2.5e-5: the crank angle's largest error second order (observed order from the
#     three steps, log2 of each ratio, >= 1.8) and at h = 2.5e-5 within 1e-4 rad (genalpha) and 5e-5 rad (bathe), the
#     slider's centre within 1e-5 m; ED-alpha (rho_inf = 0, the paper's) at h = 1e-4, 5e-5: order >= 1.8 and within
#     1e-4 rad at 5e-5; ED-alpha at rho_inf = 1 with -step_mixed_edalpha_joints previous (the stage j's joint force of level i: the
#     velocity-level form of Eq. 85 is first order there) at 1e-4, 5e-5: order >= 1.8, within 3e-4 rad and 3e-5 m at 5e-5, its joints' drift
#     at most 1e-7 m; the joints held on velocity level drift at position level, second order too: at most 1e-6 m at
#     h = 2.5e-5 (and more than 1e-9: not held at position level), ratio 1e-4 / 5e-5 >= 3.2; no contact force;
# (b) the bouncing pendulum of seed 002 §10.2 (jobs/models/pendulum.yaml), h = 1e-3, rho_inf = 0.8, the three bases: the
#     first contact within 2 steps of the exact swing time t* (elliptic integral, scipy's ellipkinc); the velocity right
#     after the impact e = 0.8 times the exact one before within 1 %; the energy before the impact within 2e-4 of E0
#     (relative); the joint's drift at most 1e-5 m over the run (velocity level, impacts included);
# (c) Table 1 (c = 0.001 m, eps_N = 0.4, eps_T = 0, mu = 0.01), genalpha rho_inf = 0.8, h = 1e-5 to 10 ms on 1, 2 and 3
#     ranks: bitwise equal (every dataset); contacts happen; the normal forces >= 0 (1e-9 of the largest), friction inside
#     Coulomb's cone |f_t| <= mu f_n (1e-9 of the largest force);
# (d) a stop (SIGTERM) and resume of the pendulum with bathe (h = 1e-5, 1.5 s, through its impacts): the rerun resumes from its checkpoint and ends bitwise equal to
#     the uninterrupted run;
# (e) Table 1 with ED-alpha at rho_inf = 1 (alpha = 0: the two stages' active sets tied, the stage j's deciding; a stage deciding for
#     itself made the Newton matrix singular between 0.01 and 0.015 s) to 0.05 s: runs, every Newton solve converges, the crank
#     angle within 1e-2 rad of ED-alpha at rho_inf = 0.9999 (which runs untied: measured 5.0e-3, the scheme's first-order error at
#     rho_inf -> 1 being of that size, docs/multibody.md), the corners' gaps above -1e-5 m (velocity level; 0.9999: -6.9e-6).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
jobs="$VICMS_SOURCE/jobs"
free="-system_type multibody -mb_model $jobs/models/slider_crank.yaml -mb_param_c 1 -step_type mixed -step_end_time 0.05"
for base in genalpha bathe; do
  for h in 1e-4 5e-5 2.5e-5; do
    must "free slider-crank $base h = $h" mpi 60 1 simulate $free -step_mixed_base $base -step_rho_inf 1 -step_dt $h -results_file free_${base}_$h.h5
  done
done
for h in 1e-4 5e-5; do
  must "free slider-crank edalpha h = $h" mpi 60 1 simulate $free -step_mixed_base edalpha -step_rho_inf 0 -step_dt $h -results_file free_edalpha_$h.h5
  must "free slider-crank edalpha rho_inf = 1, joints previous, h = $h" mpi 60 1 simulate $free -step_mixed_base edalpha -step_rho_inf 1 \
    -step_mixed_edalpha_joints previous -step_dt $h -results_file free_edalphaprev_$h.h5
done
pend="-system_type multibody -mb_model $jobs/models/pendulum.yaml -step_type mixed -step_rho_inf 0.8 -step_dt 1e-3 -step_end_time 1.2"
for base in genalpha bathe edalpha; do
  must "pendulum $base" mpi 60 1 simulate $pend -step_mixed_base $base -results_file pend_$base.h5
done
for np in 1 2 3; do
  must "Table 1 slider-crank genalpha np=$np" mpi 60 $np simulate -system_type multibody -mb_model "$jobs/models/slider_crank.yaml" -step_type mixed \
    -step_mixed_base genalpha -step_rho_inf 0.8 -step_dt 1e-5 -step_end_time 0.01 -results_file table1_$np.h5
done

for rho in 1 0.9999; do
  must "Table 1 ED-alpha rho_inf = $rho" mpi 60 1 simulate -system_type multibody -mb_model $jobs/models/slider_crank.yaml -step_type mixed \
    -step_mixed_base edalpha -step_rho_inf $rho -step_dt 1e-5 -step_end_time 0.05 -results_file ed_$rho.h5
done
VICMS_REF="$VICMS_SOURCE/tests/ref" $py - <<'PYEOF' || fail=1
import os
import sys

import h5py
import numpy as np
from scipy.special import ellipkinc

sys.path.insert(0, os.environ["VICMS_REF"])
import slider_crank as ref

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
import mbcheck
from mbcheck import check, case

# ---- (a) the free slider-crank against the SciPy solution
tr = np.linspace(0, 0.05, 501)
r = ref.solve("free", tr)
for base, hs, tol, tolx in (("genalpha", ("1e-4", "5e-5", "2.5e-5"), 1e-4, 1e-5), ("bathe", ("1e-4", "5e-5", "2.5e-5"), 5e-5, 1e-5),
                            ("edalpha", ("1e-4", "5e-5"), 1e-4, 1e-5), ("edalphaprev", ("1e-4", "5e-5"), 3e-4, 3e-5)):
    e1, ex, dr = [], [], []
    for h in hs:
        t, o, gap, F = case("free_%s_%s.h5" % (base, h))
        e1.append(np.max(np.abs(np.interp(tr, t, o["theta1"]) - r["theta1"])))
        ex.append(max(np.max(np.abs(np.interp(tr, t, o["slider_x"]) - r["x"])), np.max(np.abs(np.interp(tr, t, o["slider_y"]) - r["y"]))))
        dr.append(np.max(np.abs(gap[:, :6])))
        check(np.max(np.abs(F[:, 6:])) == 0, "free slider-crank %s h = %s: no contact force" % (base, h))
    order = np.log2(np.array(e1[:-1]) / np.array(e1[1:]))
    print("free slider-crank %s: crank-angle errors %s rad, slider centre %s m, joints' drift %s m at h = %s"
          % (base, ", ".join("%.3e" % x for x in e1), ", ".join("%.2e" % x for x in ex), ", ".join("%.2e" % x for x in dr), ", ".join(hs)))
    check(np.all(order >= 1.8), "free slider-crank %s: observed orders of the crank angle %s (second order; >= 1.8)" % (base, ", ".join("%.2f" % x for x in order)))
    check(e1[-1] <= tol and ex[-1] <= tolx, "free slider-crank %s h = %s: crank angle within %.2e rad (tolerance %g), slider centre %.2e m (%g)"
          % (base, hs[-1], e1[-1], tol, ex[-1], tolx))
    if base == "edalphaprev":  # stage j holds no joint row: the drift is third order here (3.4e-8, 2.1e-9 m)
        check(dr[-1] <= 1e-7 and dr[0] / dr[1] >= 3.2, "free slider-crank %s: the joints' drift at position level %.2e m at h = %s (at most 1e-7), ratio "
              "%.1f from h = %s to %s (>= 3.2)" % (base, dr[-1], hs[-1], dr[0] / dr[1], hs[0], hs[1]))
        continue
    check(1e-9 < dr[-1] <= 1e-6 and dr[0] / dr[1] >= 3.2, "free slider-crank %s: the joints' drift at position level %.2e m at h = %s (velocity level: "
          "more than 1e-9, at most 1e-6), ratio %.2f from h = %s to %s (second order: 4; >= 3.2)" % (base, dr[-1], hs[-1], dr[0] / dr[1], hs[0], hs[1]))

# ---- (b) the pendulum's swing to the wall and its e = 0.8 rebound
m, J, l, g, e, h = 1.0, 0.1, 1.0, 10.0, 0.8, 1e-3
I = m * l * l + J
w0 = np.sqrt(m * g * l / I)
th0, th1 = np.pi / 12, -np.pi / 4
phi0, phi1 = th0 + np.pi / 2, th1 + np.pi / 2
k = np.sin(phi0 / 2)
psi = np.arcsin(np.sin(phi1 / 2) / k)
tstar = (ellipkinc(np.pi / 2, k * k) - ellipkinc(psi, k * k)) / w0
vpre = -np.sqrt(2 * m * g * l * (np.sin(th0) - np.sin(th1)) / I) * l * np.sin(-th1)
print("pendulum: exact swing time to the wall t* = %.6f s, exact x' before the impact %.6f m/s" % (tstar, vpre))
for base in ("genalpha", "bathe", "edalpha"):
    t, o, gap, F = case("pend_%s.h5" % base)
    kc = int(np.argmax(F[:, 2] > 0))
    check(kc > 0 and abs(t[kc] - tstar) <= 2 * h + 1e-12, "pendulum mixed %s: first contact at t = %.4f, exact %.6f (tolerance 2 h = %g)" % (base, t[kc], tstar, 2 * h))
    vpost = o["bob_vx"][kc]
    check(abs(vpost - e * abs(vpre)) <= 0.01 * e * abs(vpre), "pendulum mixed %s: x' after the impact %.6f, e |x'_exact before| = %.6f (rel. %.2e, tolerance 1e-2)"
          % (base, vpost, e * abs(vpre), abs(vpost / (e * abs(vpre)) - 1)))
    E = o["energy"]
    dE = np.max(np.abs(E[:kc] - E[0])) / abs(E[0])
    check(dE <= 2e-4, "pendulum mixed %s: energy before the impact within %.2e of E0 = %.6f (relative, tolerance 2e-4)" % (base, dE, E[0]))
    drift = np.max(np.abs(gap[:, :2]))
    check(drift <= 1e-5, "pendulum mixed %s: the joint's drift at most %.2e m over %d levels, impacts included (velocity level; tolerance 1e-5)" % (base, drift, len(t)))

# ---- (c) Table 1: ranks, forces
ref1 = h5py.File("table1_1.h5", "r")["cases/0"]
for np_ in (2, 3):
    other = h5py.File("table1_%d.h5" % np_, "r")["cases/0"]
    same = all(np.array_equal(ref1[d][()], other[d][()]) for d in ("t", "outputs", "gaps", "forces", "energy"))
    check(same, "Table 1 slider-crank mixed genalpha: %d ranks bitwise equal to 1 rank (t, outputs, gaps, forces, energy)" % np_)
t, o, gap, F = case("table1_1.h5")
fn = np.array([o[k] for k in ("f_ul", "f_ur", "f_ll", "f_lr")])
ft = np.array([o[k + "_t"] for k in ("f_ul", "f_ur", "f_ll", "f_lr")])
big = np.max(fn)
levels = int(np.sum((fn > 0).any(axis=0)))
cone = np.max(np.abs(ft) - 0.01 * fn)
check(levels > 0 and np.min(fn) >= -1e-9 * big and cone <= 1e-9 * big,
      "Table 1 slider-crank mixed genalpha: %d of %d levels with a corner force, normal forces >= %.1e N (largest %.1f N; tolerance -1e-9 of it), "
      "|f_t| - mu f_n at most %.2e N (tolerance 1e-9 of it); smallest corner gap %.2e m (velocity level: drift-off accepted, seed 001 Fig. 5)"
      % (levels, len(t), np.min(fn), big, cone, np.min(gap[:, 6:])))
t, o, gap, F = case("ed_1.h5")
_, o2, _, _ = case("ed_0.9999.h5")
nc = h5py.File("ed_1.h5", "r")["cases/contact_nonconverged"][()].sum()
d = np.max(np.abs(o["theta1"] - o2["theta1"]))
check(len(t) == 5001 and nc == 0 and d <= 1e-2 and np.min(gap[:, 6:]) >= -1e-5,
      "Table 1 ED-alpha rho_inf = 1: %d levels, %d Newton solves not converged (tolerance 0), crank angle within %.2e rad of rho_inf = 0.9999 "
      "(tolerance 1e-2), smallest corner gap %.2e m (tolerance -1e-5)" % (len(t), nc, d, np.min(gap[:, 6:])))
raise SystemExit(mbcheck.bad)
PYEOF

# ---- (d) stop and resume
stop_resume "pendulum mixed bathe" -system_type multibody -mb_model $jobs/models/pendulum.yaml -step_type mixed -step_mixed_base bathe -step_dt 1e-5 \
  -step_end_time 1.5 -step_output_every 100
exit $fail
