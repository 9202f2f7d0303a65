#!/usr/bin/env bash
# `vicms simulate -system_type multibody -mb_model FILE` (issue 23 §2-§4) on the two rigid cases of seed 002:
# (a) the bouncing pendulum of §10.2 (jobs/models/pendulum.yaml: m = 1, J = 0.1, l = 1, g = 10, theta0 = pi/12, wall at
#     x = sqrt(2)/2, e = 0.8), nsgalpha with h = 1e-3 on 1, 2 and 3 ranks and Moreau-Jean (theta = 5/9) on 1 rank:
#     - the swing from rest to the wall takes t* = (F(pi/2, k) - F(psi, k)) / w0 (the exact pendulum of inertia m l^2 + J,
#       k = sin(phi0 / 2), computed here with scipy's ellipkinc); both schemes' first contact is within 2 steps of t*;
#     - the velocity just after the impact is e times the exact one just before (energy conservation) within 1 %, and
#       nsgalpha's discrete Newton law vx_{n+1} = -e vx_n holds to 1e-9;
#     - the energy before the impact stays within 1e-4 of its initial value with nsgalpha (relative; rho_inf = 0.8 damps a
#       little), within 2e-2 with Moreau-Jean (theta = 5/9 damps more);
#     - the joint's position residual: nsgalpha none (<= 1e-10 over the whole run, impacts included); Moreau-Jean, which
#       holds the joint at velocity level only, drifts (> 1e-7), as seed 002 Fig. 12 shows;
#     - the runs on 2 and 3 ranks are bitwise equal to 1 rank's (every dataset).
# (b) the rocking block of §10.4 (jobs/models/rocking_block.yaml, Eqs. 53-54), nsgalpha h = 1e-3: before the first impact
#     the centre follows y = 1 - g t^2 / 2 with theta = 0.2 and x = 0 to 1e-12 (generalized-alpha integrates a constant
#     acceleration exactly); the first contact comes within one step of t1 = sqrt(2 g2(q0) / g); the velocities right
#     after it agree within 2 % with Newton's law for the two-contact impact (an LCP over the corners, solved here by
#     enumeration) from the exact pre-impact state; the block ends at rest on its base (|theta| < 1e-6 at t = 3 s) with
#     the energy non-increasing across the run to 1e-7 of E0 (the position corrections of closed contacts move it by ~5e-9);
#     released flat (theta0 = 0), it lands on both corners at once: the two-contact law's v+ = (0, e g t1, 0) within 1 %
#     (omega and vx 0 to 1e-12), nsgalpha's discrete law vy_{n+1} = -e vy_n to 1e-9.
# (f) Coulomb friction: the block standing on its base pushed at v0 = 2 m/s along the ground, mu = 0.3 at both corners:
#     x = v0 t - mu g t^2 / 2 until it stops at v0 / (mu g) (nsgalpha exactly while it slides, the slipping corners' position
#     multipliers giving the impulse the position of a constant force, and its discrete stop, the step that sticks holding them;
#     Moreau-Jean theta = 1/2 within 1e-6), the corners' normal forces m g (1/2 +- mu l / (2 L)) and friction forces mu N
#     while it slides (1e-9), at rest after the stop and never tipped (1e-12).
# (g) a slider on an inclined rail (prismatic joint) carrying a double pendulum (revolute joints between moving bodies),
#     nsgalpha rho_inf = 1, h = 1e-3, 2 s: the six joint rows' residual <= 1e-10, the energy within 1e-5 of E0 (no impact, no
#     friction), the joint angle output starting at its initial value.
# (h) an ensemble of pendulum cases over rho_inf (0, 0.5, 1) on 2 ranks: all done, the energy left at t = 1 s increasing
#     with rho_inf (less numerical damping).
# (c) bad input: a joint naming a missing body, a singular mass, initial poses that violate the joint (the residual in the
#     message; on 1 and 2 ranks), an unknown key, a missing -mb_model (2 ranks): a message naming the file and line, no hang;
#     the schemes without a nonlinear path (leapfrog; moreau's symmetric variant) refused on a multibody system, and
#     -step_dt auto without -step_accuracy (no natural frequency to take the step from).
# (i) -step_accuracy 1e-4 on the pendulum's angle output (nsgalpha, 0.3 s, before the impact): the chosen step's
#     epsilon_RMS of theta against the exact pendulum (Jacobi's sn, scipy's ellipj) at most 1.05 x the request, and
#     Richardson's estimate within 30 % of that true error.
# (e) the job files jobs/pendulum.yaml and jobs/rocking_block.yaml run as documented (from the repository's root).
# (d) a stop (SIGTERM) and resume of a pendulum case: the rerun resumes from its checkpoint and ends bitwise equal to
#     the uninterrupted run.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
jobs="$VICMS_SOURCE/jobs"
pend="-system_type multibody -mb_model $jobs/models/pendulum.yaml -step_dt 1e-3 -step_end_time 1.2"
for np in 1 2 3; do
  must "pendulum nsgalpha np=$np" mpi 60 $np simulate $pend -step_type nsgalpha -step_rho_inf 0.8 -results_file pend$np.h5
done
must "pendulum moreau" mpi 60 1 simulate $pend -step_type moreau -step_moreau_variant theta -step_theta 0.5555555555555556 -results_file pendm.h5
block="-system_type multibody -mb_model $jobs/models/rocking_block.yaml -step_type nsgalpha -step_rho_inf 0.8 -step_dt 1e-3 -step_end_time 3"
must "rocking block nsgalpha" mpi 60 1 simulate $block -results_file block.h5
must "pendulum ensemble over rho_inf, 2 ranks" mpi 60 2 simulate -system_type multibody -mb_model $jobs/models/pendulum.yaml -step_type nsgalpha \
  -step_dt 1e-3 -step_end_time 1 -cases_grid step_rho_inf:0:1:3 -results_file ens.h5
# a slider on an inclined rail (prismatic joint to the ground) carrying a double pendulum (revolute joints between moving
# bodies): no impact, no friction
cat >slider.yaml <<'YAML'
gravity: [0, -10]
bodies:
  - {name: slider, mass: 2, inertia: 0.1, position: [1, 0.5], angle: 0.3}
  - {name: arm, mass: 1, inertia: 0.05, position: [1.5, 0.5], angle: 0}
  - {name: link, mass: 0.5, inertia: 0.02, position: [2.5, 0.5], angle: 0}
joints:
  - {name: rail, type: prismatic, body1: ground, point1: [1, 0.5], body2: slider, axis: [0.8, 0.6]}
  - {name: elbow, type: revolute, body1: slider, point1: [0, 0], body2: arm, point2: [-0.5, 0]}
  - {name: hinge, type: revolute, body1: arm, point1: [0.5, 0], body2: link, point2: [-0.5, 0]}
outputs:
  - {name: s, type: point, body: slider}
  - {name: elbow, type: joint_angle, joint: elbow}
  - {name: energy, type: energy}
YAML
must "slider and double pendulum nsgalpha" mpi 60 1 simulate -system_type multibody -mb_model slider.yaml -step_type nsgalpha -step_rho_inf 1 \
  -step_dt 1e-3 -step_end_time 2 -results_file slider.h5
# the block resting on its base, pushed along the ground at 2 m/s with friction 0.3 on both corners
sed -e 's/position: \[0, 1\], angle: 0.2}/position: [0, 0.75], angle: 0, velocity: [2, 0]}/' -e 's/restitution: 0.5}/restitution: 0, friction: 0.3}/' \
  "$jobs/models/rocking_block.yaml" >slide.yaml
for scheme in "nsgalpha" "moreau -step_moreau_variant theta -step_theta 0.5"; do
  must "sliding block $scheme" mpi 60 1 simulate -system_type multibody -mb_model slide.yaml -step_type $scheme -step_dt 1e-3 -step_end_time 1 \
    -results_file slide_${scheme%% *}.h5
done
sed 's/angle: 0.2}/angle: 0}/' "$jobs/models/rocking_block.yaml" >flat.yaml
must "flat block nsgalpha" mpi 60 1 simulate -system_type multibody -mb_model flat.yaml -step_type nsgalpha -step_dt 1e-3 -step_end_time 0.4 \
  -results_file flat.h5

$py - <<'PYEOF' || fail=1
import os
import sys

import h5py
import numpy as np
from scipy.special import ellipkinc

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
import mbcheck
from mbcheck import check, case

# ---- (a) pendulum
m, J, l, g, e, h = 1.0, 0.1, 1.0, 10.0, 0.8, 1e-3
I = m * l * l + J
w0 = np.sqrt(m * g * l / I)
th0, th1 = np.pi / 12, -np.pi / 4
phi0, phi1 = th0 + np.pi / 2, th1 + np.pi / 2          # angles from the hanging position
k = np.sin(phi0 / 2)
psi = np.arcsin(np.sin(phi1 / 2) / k)
tstar = (ellipkinc(np.pi / 2, k * k) - ellipkinc(psi, k * k)) / w0
vpre = -np.sqrt(2 * m * g * l * (np.sin(th0) - np.sin(th1)) / I) * l * np.sin(-th1)   # x' = -l sin(theta) theta' < 0
print("pendulum: exact swing time to the wall t* = %.6f s, exact x' before the impact %.6f m/s" % (tstar, vpre))
for name, scheme in (("pend1.h5", "nsgalpha"), ("pendm.h5", "moreau")):
    t, o, gap, F = case(name)
    kc = int(np.argmax(F[:, 2] > 0))                     # the first level with a wall force
    check(kc > 0 and abs(t[kc] - tstar) <= 2 * h + 1e-12,
          "%s: first contact at t = %.4f, exact %.6f (tolerance 2 h = %g)" % (scheme, t[kc], tstar, 2 * h))
    vpost = o["bob_vx"][kc]
    check(abs(vpost - e * abs(vpre)) <= 0.01 * e * abs(vpre),
          "%s: x' after the impact %.6f, e |x'_exact before| = %.6f (rel. %.2e, tolerance 1e-2)" % (scheme, vpost, e * abs(vpre),
                                                                                                    abs(vpost / (e * abs(vpre)) - 1)))
    E = o["energy"]
    dE = np.max(np.abs(E[:kc] - E[0])) / abs(E[0])
    tol = 1e-4 if scheme == "nsgalpha" else 2e-2
    check(dE <= tol, "%s: energy before the impact within %.2e of E0 = %.6f (relative, tolerance %g)" % (scheme, dE, E[0], tol))
    drift = np.max(np.abs(gap[:, :2]))
    if scheme == "nsgalpha":
        law = abs(o["bob_vx"][kc] + e * o["bob_vx"][kc - 1])
        check(law <= 1e-9, "nsgalpha: discrete Newton law |x'_{n+1} + e x'_n| = %.2e at the impact (tolerance 1e-9)" % law)
        check(drift <= 1e-10, "nsgalpha: joint residual at most %.2e over %d levels, impacts included (GGL: none; tolerance 1e-10)" % (drift, len(t)))
    else:
        check(drift > 1e-7, "moreau: joint residual reaches %.2e (drift at position level, > 1e-7 expected)" % drift)
ref = h5py.File("pend1.h5", "r")["cases/0"]
for np_ in (2, 3):
    other = h5py.File("pend%d.h5" % np_, "r")["cases/0"]
    same = all(np.array_equal(ref[d][()], other[d][()]) for d in ("t", "outputs", "gaps", "forces", "energy"))
    check(same, "pendulum nsgalpha: %d ranks bitwise equal to 1 rank (t, outputs, gaps, forces, energy)" % np_)

# ---- (b) rocking block
m, L, lh, g, e, h = 1.0, 1.0, 1.5, 9.81, 0.5, 1e-3
J = m * (L * L + lh * lh) / 12
t, o, gap, F = case("block.h5")
y0, th0 = 1.0, 0.2
g2 = y0 - lh / 2 * np.cos(th0) - L / 2 * np.sin(th0)
t1 = np.sqrt(2 * g2 / g)
kc = int(np.argmax((F > 0).any(axis=1)))
free = slice(0, kc)
err = max(np.max(np.abs(o["centre_y"][free] - (y0 - g * t[free] ** 2 / 2))), np.max(np.abs(o["theta"][free] - th0)),
          np.max(np.abs(o["centre_x"][free])))
check(err <= 1e-12, "block: free flight over %d levels on the parabola y = 1 - g t^2/2, theta = 0.2, x = 0 (largest error %.2e, tolerance 1e-12)" % (kc, err))
check(abs(t[kc] - t1) <= h + 1e-12, "block: first impact at t = %.4f, exact %.6f (tolerance h)" % (t[kc], t1))
# Newton's law at the first impact from the exact pre-impact state: v+ = v- + M^-1 G^T P, 0 <= G v+ + e G v- _|_ P >= 0 over
# the corners whose gap is closed (both corners are in the LCP; the right one, open, gets no impulse)
th = th0
Gm = np.array([[0, 1, lh / 2 * np.sin(th) + L / 2 * np.cos(th)], [0, 1, lh / 2 * np.sin(th) - L / 2 * np.cos(th)]])
gaps = np.array([y0 - g * t1 ** 2 / 2 - lh / 2 * np.cos(th) + L / 2 * np.sin(th), 0.0])
Minv = np.diag([1 / m, 1 / m, 1 / J])
vm = np.array([0, -g * t1, 0])
closed = [j for j in range(2) if gaps[j] <= 1e-12]
best = None
for mask in range(1 << len(closed)):
    act = [closed[i] for i in range(len(closed)) if mask >> i & 1]
    P = np.zeros(2)
    if act:
        W = Gm[act] @ Minv @ Gm[act].T
        P[act] = np.linalg.solve(W, -(1 + e) * Gm[act] @ vm)
    vp = vm + Minv @ Gm.T @ P
    if np.all(P >= -1e-12) and all(Gm[j] @ vp + e * Gm[j] @ vm >= -1e-12 for j in closed):
        best = vp
vp = best
sim = np.array([o["centre_vx"][kc], o["centre_vy"][kc], o["theta_rate"][kc]])
rel = np.max(np.abs(sim - vp)) / np.max(np.abs(vp))
check(rel <= 0.02, "block: velocities after the first impact (%.4f, %.4f, %.4f), Newton's two-contact law (%.4f, %.4f, %.4f): "
      "largest difference %.2e of |v+| (tolerance 2e-2)" % (*sim, *vp, rel))
E = o["energy"]
rise = np.max(np.diff(E)) / E[0]
check(rise <= 1e-7, "block: energy non-increasing over the run (largest rise %.2e of E0, tolerance 1e-7)" % rise)
check(abs(o["theta"][-1]) < 1e-6 and abs(o["centre_y"][-1] - lh / 2) < 1e-6,
      "block: at rest on its base at t = %.2f (theta %.2e, y - l/2 = %.2e; tolerance 1e-6)" % (t[-1], o["theta"][-1], o["centre_y"][-1] - lh / 2))
# the block released flat lands on both corners at once: Newton's law for the two contacts gives v+ = (0, e g t1, 0)
t, o, gap, F = case("flat.h5")
kc = int(np.argmax((F > 0).any(axis=1)))
t1 = np.sqrt(2 * (y0 - lh / 2) / g)
both = bool(F[kc, 0] > 0 and F[kc, 1] > 0)
vy = o["centre_vy"][kc]
check(both and abs(t[kc] - t1) <= h + 1e-12, "flat block: both corners impact at t = %.4f (exact %.6f, tolerance h)" % (t[kc], t1))
check(abs(vy - e * g * t1) <= 0.01 * e * g * t1 and abs(o["theta_rate"][kc]) <= 1e-12 and abs(o["centre_vx"][kc]) <= 1e-12,
      "flat block: after the two-contact impact vy = %.6f, e g t1 = %.6f (rel. %.2e, tolerance 1e-2), omega = %.1e, vx = %.1e (tolerance 1e-12)"
      % (vy, e * g * t1, abs(vy / (e * g * t1) - 1), o["theta_rate"][kc], o["centre_vx"][kc]))
law = abs(vy + e * o["centre_vy"][kc - 1])
check(law <= 1e-9, "flat block: discrete Newton law |vy_{n+1} + e vy_n| = %.1e on both contacts (tolerance 1e-9)" % law)
# ---- (h) an ensemble of pendulum cases over rho_inf on 2 ranks: every case done, less numerical damping with a larger rho_inf
with h5py.File("ens.h5", "r") as f:
    status = list(f["cases/status"][()])
    E = [f["cases/%d/outputs" % k][-1, -1] for k in range(3)]
check(status == [1, 1, 1] and E[0] < E[1] < E[2], "pendulum ensemble over rho_inf = 0, 0.5, 1: statuses %s, energy at t = 1 s %s (increasing)"
      % (status, ", ".join("%.6f" % x for x in E)))
# ---- (g) the slider and double pendulum: joints held, energy conserved
t, o, gap, F = case("slider.h5")
res = np.max(np.abs(gap))
dE = np.max(np.abs(o["energy"] - o["energy"][0])) / abs(o["energy"][0])
check(res <= 1e-10, "slider and double pendulum: the 6 joint rows' residual at most %.2e over %d levels (tolerance 1e-10)" % (res, len(t)))
check(dE <= 1e-5, "slider and double pendulum: energy within %.2e of E0 = %.4f (relative; rho_inf = 1, h = 1e-3; tolerance 1e-5)" % (dE, o["energy"][0]))
check(abs(o["elbow"][0] + 0.3) <= 1e-15 and np.ptp(o["elbow"]) > 1, "slider and double pendulum: the elbow's joint angle starts at -0.3 and swings "
      "over %.2f rad" % np.ptp(o["elbow"]))
# ---- (f) friction: the sliding block decelerates at mu g and stops at t_s = v0 / (mu g), x_s = v0^2 / (2 mu g); while it
# slides the corners carry N_front,back = m g (1/2 +- mu l / (2 L)) (moments about the centre) and mu N each
mu, v0 = 0.3, 2.0
ts = v0 / (mu * g)
Nf, Nb = m * g * (0.5 + mu * lh / (2 * L)), m * g * (0.5 - mu * lh / (2 * L))
# nsgalpha's friction is an impulse at velocity level, with the position of a constant force over the step (the slipping corners'
# nu_t = h Lambda_t / 2): v_k = v0 - mu g k h, x exact at t_k while it slides; K steps with v_K = mu g h theta < mu g h
# (ts = (K + theta) h), then the step that sticks holds the corners where they are: x_K = v0^2/(2 mu g) - mu g h^2 theta^2/2
K = np.floor(ts / h)
th = ts / h - K
xK = v0 * ts / 2 - mu * g * h ** 2 * th ** 2 / 2
for name, scheme, tol in (("slide_nsgalpha.h5", "nsgalpha", mu * g * h ** 2 / 2), ("slide_moreau.h5", "moreau", 1e-6)):
    t, o, gap, F = case(name)
    xe = np.where(t < ts, v0 * t - mu * g * t ** 2 / 2, v0 * ts / 2)
    err = np.max(np.abs(o["centre_x"] - xe))
    check(err <= tol, "%s sliding block: x against v0 t - mu g t^2 / 2 (stop at %.6f s, %.6f m): largest error %.2e (tolerance %.0e)" % (scheme, ts, v0 * ts / 2, err, tol))
    if scheme == "nsgalpha":
        lag = np.max(np.abs(o["centre_x"] - xe)[t < ts - h])
        held = np.max(np.abs(o["centre_x"][t > ts + h] - xK))
        check(lag <= 1e-12 and held <= 1e-12,
              "nsgalpha sliding block: x = v0 t - mu g t^2 / 2 while it slides to %.1e m (no half-step lag); after the stop x = v0^2/(2 mu g) - "
              "mu g h^2 theta^2/2 = %.9f m (the discrete stop, theta = %.4f) to %.1e m (tolerance 1e-12)" % (lag, xK, th, held))
    sl = (t > 2 * h) & (t < ts - 2 * h)
    ferr = max(np.max(np.abs(o["right_force"][sl] - Nf)), np.max(np.abs(o["left_force"][sl] - Nb)),
               np.max(np.abs(o["right_force_t"][sl] - mu * Nf)), np.max(np.abs(o["left_force_t"][sl] - mu * Nb)))
    check(ferr <= 1e-9, "%s sliding block: corner forces while sliding N = (%.5f, %.5f), friction mu N (%.5f, %.5f): largest error %.1e (tolerance 1e-9)"
          % (scheme, Nf, Nb, mu * Nf, mu * Nb, ferr))
    rest = t > ts + 2 * h
    check(np.max(np.abs(o["centre_vx"][rest])) <= 1e-12 and np.max(np.abs(o["theta"])) <= 1e-12,
          "%s sliding block: at rest after the stop (|vx| <= %.1e), never tipped (|theta| <= %.1e; tolerance 1e-12)"
          % (scheme, np.max(np.abs(o["centre_vx"][rest])), np.max(np.abs(o["theta"]))))
raise SystemExit(mbcheck.bad)
PYEOF

# ---- (c) bad input
cp "$jobs/models/pendulum.yaml" good.yaml
sed 's/body2: bob/body2: bobb/' good.yaml >missing.yaml
sed 's/inertia: 0.1/inertia: 0/' good.yaml >singular.yaml
sed 's/point2: \[-1, 0\]/point2: [-1.01, 0]/' good.yaml >violate.yaml
sed 's/restitution: 0.8/restitusion: 0.8/' good.yaml >key.yaml
mb="-system_type multibody -step_type nsgalpha -step_dt 1e-3 -step_end_time 0.01"
refuse_simulate "joint naming a missing body" "1" "missing.yaml:16: the joint's body2 names the body 'bobb', which the model does not have" $mb -mb_model missing.yaml
refuse_simulate "singular mass" "1" "singular.yaml:8: body 'bob' has mass 1. and inertia 0.: its mass matrix diag(m, m, J) is singular" $mb -mb_model singular.yaml
refuse_simulate "initial poses violating a joint" "1 2" "violate.yaml:12: the initial poses violate joint 'pivot': its row 1 is -9.659e-03" $mb -mb_model violate.yaml
refuse_simulate "unknown key" "1" "key.yaml:25: unknown key 'restitusion' in a contact" $mb -mb_model key.yaml
refuse_simulate "no model file" "2" "needs its model file: -mb_model FILE.yaml" $mb
refuse_simulate "leapfrog on a multibody system" "1" "-step_type leapfrog works on a ROM's constant K, M, D only; this system (-system_type multibody) is nonlinear" \
  -system_type multibody -mb_model good.yaml -step_type leapfrog -step_dt 1e-3 -step_end_time 0.01
refuse_simulate "symmetric moreau on a multibody system" "1" "only the Moreau-Jean variant is implemented there" \
  -system_type multibody -mb_model good.yaml -step_type moreau -step_dt 1e-3 -step_end_time 0.01
refuse_simulate "-step_dt auto on a multibody system" "1" "-step_dt auto: nsgalpha is unconditionally stable and takes its step from the system's \
natural frequencies, and this system (-system_type multibody) is nonlinear, without any: give -step_dt, or -step_accuracy EPS" \
  -system_type multibody -mb_model good.yaml -step_type nsgalpha -step_dt auto -step_end_time 0.01

# ---- (i) the step from accuracy on the pendulum's angle output, before the impact: the error of the chosen step against
# the exact pendulum (Jacobi's sn)
must "pendulum -step_accuracy 1e-4" mpi 60 1 simulate -system_type multibody -mb_model $jobs/models/pendulum.yaml -step_type nsgalpha \
  -step_rho_inf 0.8 -step_end_time 0.3 -step_dt auto -step_accuracy 1e-4 -step_accuracy_output theta -results_file acc.h5
$py - <<'PYEOF' || fail=1
import os
import sys

import h5py
import numpy as np
from scipy.special import ellipj, ellipk

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
import mbcheck
from mbcheck import check, case

m, J, l, g, eps = 1.0, 0.1, 1.0, 10.0, 1e-4
w0 = np.sqrt(m * g * l / (m * l * l + J))
k = np.sin((np.pi / 12 + np.pi / 2) / 2)            # released at rest from theta0 = pi/12 (phi0 = theta0 + pi/2 from hanging)
t, o, gap, F = case("acc.h5")
c = h5py.File("acc.h5", "r")["cases/0"]
est = float(str(c.attrs["dt_how"]).split("estimated epsilon_RMS ")[1].split()[0])
sn = ellipj(ellipk(k * k) - w0 * t, k * k)[0]
th = 2 * np.arcsin(k * sn) - np.pi / 2             # sin(phi / 2) = k sn(K - w0 t)
err = np.sqrt(np.sum((o["theta"] - th) ** 2) / np.sum(th ** 2))
check(np.max(np.abs(F[:, 2])) == 0, "pendulum -step_accuracy: no wall force (no impact) before 0.3 s")
check(err <= 1.05 * eps and abs(est - err) <= 0.3 * err,
      "pendulum -step_accuracy %g: dt %g s (%d levels), epsilon_RMS of theta against the exact pendulum %.3e (at most 1.05 x the "
      "request: Richardson's estimate, %.3e, is an estimate; within 30 %%)" % (eps, c.attrs["dt"], len(t), err, est))
raise SystemExit(mbcheck.bad)
PYEOF

# ---- (d) stop and resume: SIGTERM mid-case, the rerun resumes from the checkpoint to the uninterrupted run's results
stop_resume "pendulum" -system_type multibody -mb_model $jobs/models/pendulum.yaml -step_type nsgalpha -step_dt 2e-5 -step_end_time 1.5 \
  -step_output_every 100
# ---- (e) the job files as documented
for job in pendulum rocking_block; do
  (cd "$VICMS_SOURCE" && must "jobs/$job.yaml" mpi 60 1 simulate -options_file jobs/$job.yaml -step_end_time 0.3 -results_file "$dir/$job.h5") ||
    fail=1
  [ -f "$dir/$job.h5" ] && echo "ok   jobs/$job.yaml ran" || { echo "FAIL jobs/$job.yaml wrote no results"; fail=1; }
done
exit $fail
