#!/usr/bin/env bash
# Spatial rigid bodies of `vicms simulate -system_type multibody` (model key dim: 3, unit quaternions with their norm as
# a bilateral row; docs/multibody.md "Spatial bodies"), nsgalpha rho_inf = 1, against references computed here:
# (a) a torque-free asymmetric body (J = 0.1, 0.2, 0.3 kg m^2, omega0 = (0.5, 3, 0.2) rad/s in the fixed frame), h = 1e-3
#     and 2e-3 over 2 s: its quaternion and angular velocity against SciPy's integration of Euler's equations with the
#     quaternion's kinematics (DOP853, rtol 1e-12), second order in h; the energy and the angular momentum vector
#     R J w_b (computed here from the orientation and angular velocity outputs) conserved to the scheme's O(h^2); the
#     quaternion's norm and the norm row at round-off (GGL: no drift); 2 and 3 ranks bitwise equal to 1 rank;
#     Moreau-Jean theta = 1/2 (the norm rows' impulse at the step's midpoint, src/step/moreau.c) within 1e-5 rad/s of the
#     reference, its energy and angular momentum within 3e-6; its norm row at velocity level lets |p| drift (below 1e-6).
# (b) the heavy symmetric top of jobs/models/spinning_top.yaml (a body on a spherical joint under gravity) and a spherical
#     pendulum (a rod on a spherical joint, released with an angular velocity across it) against SciPy's integration of
#     Euler's equations about the fixed point (inertia moved to the pivot, gravity's torque), h = 5e-4 and 1e-3 (0.5 s and 1 s): the centre
#     and the angular velocity, second order; the energy; the joint's rows and the norm row at round-off.
#     A rod on a revolute joint about x (its five rows: the spherical three and the axis kept normal to two of the rod's
#     directions) against the pendulum's ODE theta'' = -m g l sin(theta) / (J + m l^2), and out of its plane at round-off.
#     Both with Moreau-Jean theta = 1/2 too (h = 1e-3: the spherical rows' impulse at the step's midpoint).
#     A tumbling box's corner against the ground's plane (e = 0.5), h = 2e-4: its flight exact before the impact, the first
#     contact within 2 h of the SciPy event, the velocities after it against Newton's law for one contact (the impulse with
#     the inverse inertia in the fixed frame) from the exact pre-impact state within 1 %, nsgalpha's discrete law to 1e-9.
# (c) the job file jobs/spinning_top.yaml as documented; the box's run stopped by SIGTERM and resumed, bitwise.
# (d) bad input on 1 and 2 ranks: a quaternion off the unit sphere, a singular inertia tensor, a spherical joint in a
#     planar model, a driver without its axis in a spatial one, a prismatic joint without its axis, a negative friction on a spatial contact, dim: 4 - one message naming
#     the file and line; a contact of a body against its own plane.
# (e) Coulomb friction on spatial contacts (a tripod sliding on the ground in an oblique direction, on a slope, stuck on
#     a slope), nsgalpha and Moreau-Jean, against the exact motions (below); (e') the oblique slide with mixed genalpha and
#     bathe, and bathe on 2 and 3 ranks.
# (f) prismatic and fixed joints in 3-D against exact motions (below).
# (g) a frictional contact against a plane of a moving body (a tripod on a sliding tray), exact (below).
# (h) a free spinning body keeps its spin and energy with Moreau-Jean (below); 2 ranks and a stop and resume bitwise;
#     so does the heavy top of (b) on its spherical joint (the joint's rows' impulse at the step's midpoint too).
# (i) the spinning top with its tip on a frictional plane against the top on a spherical joint (below).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
jobs="$VICMS_SOURCE/jobs"
cat >free.yaml <<'YAML'
dim: 3
bodies:
  - {name: b, mass: 2, inertia: [0.1, 0.2, 0.3], position: [0, 0, 0], axis: [1, 1, 0], angle: 0.4,
     velocity: [0.1, 0, 0], angular_velocity: [0.5, 3, 0.2]}
outputs:
  - {name: q, type: orientation, body: b}
  - {name: w, type: angular_velocity, body: b}
  - {name: c, type: point, body: b}
  - {name: E, type: energy}
YAML
# a rod (its centre 0.4 m below the pivot along its axis) tilted by 0.5 rad about y, swinging across its plane and
# spinning slowly: the centre's velocity w x r (the pivot at rest), written with every digit
$py - <<'PY'
import numpy as np


def rod(path, axis, angle, w, joint):
    """The rod (its centre 0.4 m below the pivot at the origin along its axis) turned by angle about axis, moving at w
    (fixed frame) about the pivot: its centre's velocity w x r, every number written with all its digits."""
    a = np.array(axis, float)
    c, s = np.cos(angle), np.sin(angle)
    r = -0.4 * (c * np.array([0, 0, 1.0]) + s * np.cross(a, [0, 0, 1.0]) + (1 - c) * a[2] * a)  # R (0, 0, -0.4) (Rodrigues)
    f = lambda x: "[" + ", ".join(repr(float(v)) for v in x) + "]"
    open(path, "w").write("""dim: 3
gravity: [0, 0, -9.81]
bodies:
  - {name: rod, mass: 1.2, inertia: [0.064, 0.07, 0.004], axis: %s, angle: %r, position: %s, velocity: %s, angular_velocity: %s}
joints:
  - %s
outputs:
  - {name: q, type: orientation, body: rod}
  - {name: w, type: angular_velocity, body: rod}
  - {name: centre, type: point, body: rod}
  - {name: E, type: energy}
""" % (f(a), angle, f(r), f(np.cross(w, r)), f(w), joint))


# swinging across its plane and spinning slowly about a spherical joint
rod("pend.yaml", [0, 1, 0], 0.5, np.array([1.2, 2.5, -0.3]), "{name: pivot, type: spherical, body1: ground, body2: rod, point2: [0, 0, 0.4]}")
# on a revolute joint about the fixed x axis, tilted by 0.7 rad about it and swinging at 2 rad/s
rod("hinge.yaml", [1, 0, 0], 0.7, np.array([2.0, 0, 0]),
    "{name: hinge, type: revolute, body1: ground, body2: rod, point2: [0, 0, 0.4], axis: [1, 0, 0]}")
PY
# a tumbling box whose corner falls on the ground (z = 0, e = 0.5)
cat >box.yaml <<'YAML'
dim: 3
gravity: [0, 0, -9.81]
bodies:
  - {name: box, mass: 1.5, inertia: [0.02, 0.03, 0.04], position: [0, 0, 0.5], axis: [1, 2, 3], angle: 0.6, velocity: [0.2, 0, 0.5],
     angular_velocity: [1, -2, 0.5]}
contacts:
  - {name: floor, body: box, point: [0.1, 0.15, -0.2], against: ground, plane_point: [0, 0, 0], plane_normal: [0, 0, 1], restitution: 0.5}
outputs:
  - {name: q, type: orientation, body: box}
  - {name: w, type: angular_velocity, body: box}
  - {name: c, type: point, body: box}
  - {name: corner, type: point, body: box, point: [0.1, 0.15, -0.2]}
  - {name: f, type: contact_force, contact: floor}
YAML
sim="-system_type multibody -step_type nsgalpha -step_rho_inf 1"
for np in 1 2 3; do
  must "free body h = 1e-3 np=$np" mpi 60 $np simulate $sim -mb_model free.yaml -step_dt 1e-3 -step_end_time 2 -results_file free$np.h5
done
must "free body h = 2e-3" mpi 60 1 simulate $sim -mb_model free.yaml -step_dt 2e-3 -step_end_time 2 -results_file free2h.h5
must "free body moreau" mpi 60 1 simulate -system_type multibody -step_type moreau -step_moreau_variant theta -step_theta 0.5 -mb_model free.yaml \
  -step_dt 1e-3 -step_end_time 2 -results_file freem.h5
for h in 5e-4 1e-3; do
  must "spinning top h = $h" mpi 60 1 simulate $sim -mb_model $jobs/models/spinning_top.yaml -step_dt $h -step_end_time 0.5 -results_file top$h.h5
  must "spherical pendulum h = $h" mpi 60 1 simulate $sim -mb_model pend.yaml -step_dt $h -step_end_time 1 -results_file pend$h.h5
done
must "box on the ground h = 2e-4" mpi 60 1 simulate $sim -mb_model box.yaml -step_dt 2e-4 -step_end_time 0.6 -results_file box.h5
must "hinge h = 1e-3" mpi 60 1 simulate $sim -mb_model hinge.yaml -step_dt 1e-3 -step_end_time 1 -results_file hinge.h5
for m in pend hinge; do
  must "$m moreau h = 1e-3" mpi 60 1 simulate -system_type multibody -step_type moreau -step_moreau_variant theta -step_theta 0.5 -mb_model $m.yaml \
    -step_dt 1e-3 -step_end_time 1 -results_file ${m}m.h5
done
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import sys
import h5py, numpy as np
from scipy.integrate import solve_ivp
from mbcheck import check, case, qmul, rot
import mbcheck


def reference(t, p0, w0_fixed, JO, torque):
    """Euler's equations about the fixed point (or the centre) in the body's frame, and p' = p (x) (0, w_b) / 2."""
    JOi = np.linalg.inv(JO)

    def rhs(_, y):
        p, w = y[:4], y[4:]
        return np.concatenate([0.5 * qmul(p, np.concatenate([[0], w])), JOi @ (torque(p) - np.cross(w, JO @ w))])

    y0 = np.concatenate([p0, rot(p0).T @ w0_fixed])
    s = solve_ivp(rhs, (t[0], t[-1]), y0, method="DOP853", rtol=1e-12, atol=1e-14, t_eval=t)
    return s.y[:4].T, np.array([rot(p) @ w for p, w in zip(s.y[:4].T, s.y[4:].T)])


def series(o, name, sfx):
    return np.array([o[name + "_" + s] for s in sfx]).T


def run(name, qname="q", wname="w"):
    t, o, gaps, _ = case(name)
    return t, series(o, qname, ["e0", "e1", "e2", "e3"]), series(o, wname, "xyz"), o, gaps


# ---- (a) the torque-free body
J = np.diag([0.1, 0.2, 0.3])
errs = {}
for name in ("free1.h5", "free2h.h5", "freem.h5"):
    t, q, w, o, gaps = run(name)
    pr, wr = reference(t, q[0], w[0], J, lambda p: np.zeros(3))
    errs[name] = (np.abs(q - pr).max(), np.abs(w - wr).max())
    H = np.array([rot(p) @ J @ rot(p).T @ x for p, x in zip(q, w)])
    dH = np.abs(H - H[0]).max() / np.linalg.norm(H[0])
    E = o["E"] - 0.5 * 2 * 0.1 ** 2  # the translation's part, constant
    dE = np.abs(E - E[0]).max() / E[0]
    nrm = np.abs((q ** 2).sum(1) - 1).max()
    if name == "freem.h5":
        check(nrm < 1e-6 and errs[name][0] < 5e-6 and errs[name][1] < 1e-5 and dE < 3e-6 and dH < 3e-6,
              "moreau theta = 1/2: quaternion %.2e (5e-6), angular velocity %.2e rad/s (1e-5; 2.5e-2 with the norm row's impulse at the step's end) "
              "from the reference; energy within %.2e of E0, angular momentum vector within %.2e of H0 (relative; 3e-6); |p|^2 - 1 at most %.1e "
              "(velocity level: 1e-6)" % (*errs[name], dE, dH, nrm))
        continue
    tolE, tolH = (1e-6, 2e-6) if name == "free1.h5" else (4e-6, 8e-6)
    print("     %s: quaternion %.2e, angular velocity %.2e rad/s from the reference" % (name, *errs[name]))
    check(dE < tolE and dH < tolH, "%s: energy within %.2e of E0, angular momentum vector within %.2e of H0 (relative; tolerances %g, %g)"
          % (name, dE, dH, tolE, tolH))
    check(nrm < 1e-14 and np.abs(gaps).max() < 1e-14, "%s: |p|^2 - 1 at most %.1e, the norm row %.1e (GGL: round-off; 1e-14)"
          % (name, nrm, np.abs(gaps).max()))
check(errs["free1.h5"][0] < 2e-5 and errs["free1.h5"][1] < 2e-4,
      "free body h = 1e-3 against SciPy's Euler equations: quaternion %.2e (2e-5), angular velocity %.2e rad/s (2e-4)" % errs["free1.h5"])
ratio = errs["free2h.h5"][1] / errs["free1.h5"][1]
check(3 < ratio < 5, "free body: angular velocity error ratio h = 2e-3 / 1e-3: %.2f (second order: 3 to 5)" % ratio)
ref = h5py.File("free1.h5", "r")["cases/0"]
for np_ in (2, 3):
    other = h5py.File("free%d.h5" % np_, "r")["cases/0"]
    same = all(np.array_equal(ref[d][()], other[d][()]) for d in ("t", "outputs", "gaps", "forces", "energy"))
    check(same, "free body: %d ranks bitwise equal to 1 rank (t, outputs, gaps, forces, energy)" % np_)

# ---- (b) bodies on a spherical joint under gravity: Euler's equations about the pivot
g = np.array([0, 0, -9.81])
for label, stem, m, Jc, s, names in (("spinning top", "top", 0.5, np.diag([3e-4, 3e-4, 5e-4]), np.array([0, 0, 0.05]), ("q", "omega", "energy")),
                                     ("spherical pendulum", "pend", 1.2, np.diag([0.064, 0.07, 0.004]), np.array([0, 0, -0.4]), ("q", "w", "E"))):
    JO = Jc + m * (s @ s * np.eye(3) - np.outer(s, s))  # s: the centre from the pivot, in the body's frame
    err = {}
    for h in ("5e-4", "1e-3"):
        t, q, w, o, gaps = run("%s%s.h5" % (stem, h), names[0], names[1])
        pr, wr = reference(t, q[0], w[0], JO, lambda p: np.cross(s, rot(p).T @ (m * g)))
        c = series(o, "centre", "xyz")
        cr = np.array([rot(p) @ s for p in pr])
        err[h] = (np.abs(c - cr).max(), np.abs(w - wr).max())
        E = o[names[2]]
        dE = np.abs(E - E[0]).max() / np.abs(E).max()
        print("     %s h = %s: centre %.2e m, angular velocity %.2e rad/s from the reference; energy %.2e" % (label, h, *err[h], dE))
        if h == "5e-4":
            check(np.abs(gaps).max() < 1e-14, "%s: the joint's rows and the norm row at most %.1e (GGL: round-off; 1e-14)" % (label, np.abs(gaps).max()))
            tolE = 5e-7 if stem == "top" else 1e-6
            check(dE < tolE, "%s: energy within %.2e of the largest (relative; %g)" % (label, dE, tolE))
    tol = (1e-5, 5e-2) if stem == "top" else (1e-6, 1.5e-5)  # the top spins at 200 rad/s
    check(err["5e-4"][0] < tol[0] and err["5e-4"][1] < tol[1], "%s h = 5e-4 against SciPy: centre %.2e m (%g), angular velocity %.2e rad/s (%g)"
          % (label, err["5e-4"][0], tol[0], err["5e-4"][1], tol[1]))
    ratio = err["1e-3"][0] / err["5e-4"][0]
    check(3 < ratio < 5, "%s: centre error ratio h = 1e-3 / 5e-4: %.2f (second order: 3 to 5)" % (label, ratio))
# ---- the revolute joint: a planar pendulum about x, theta'' = -m g l sin(theta) / (J_xx + m l^2)
t, o, gaps, _ = case("hinge.h5")
m, l, Jx = 1.2, 0.4, 0.064
s = solve_ivp(lambda _, y: [y[1], -m * 9.81 * l * np.sin(y[0]) / (Jx + m * l * l)], (0, t[-1]), [0.7, 2.0], method="DOP853", rtol=1e-12, atol=1e-14,
              t_eval=t)
th = np.arctan2(o["centre_y"], -o["centre_z"])
eth, ew = np.abs(th - s.y[0]).max(), np.abs(o["w_x"] - s.y[1]).max()
off = max(np.abs(o["centre_x"]).max(), np.abs(o["w_y"]).max(), np.abs(o["w_z"]).max())
check(eth < 1e-5 and ew < 6e-5, "revolute joint, h = 1e-3, 1 s, against the pendulum's ODE (SciPy): angle %.2e rad (1e-5), rate %.2e rad/s (6e-5)" % (eth, ew))
check(off < 1e-13 and np.abs(gaps).max() < 1e-14, "revolute joint: the centre's x and w_y, w_z at most %.1e (1e-13), its five rows and the norm row %.1e (1e-14)"
      % (off, np.abs(gaps).max()))
# ---- Moreau-Jean theta = 1/2 on both, h = 1e-3, 1 s: the spherical rows' impulse at the step's midpoint (docs/multibody.md
# "Moreau-Jean's spin"; at the step's end: centre 6.3e-4, 6.4e-4 m, energy 2.3e-3, 2.4e-3 of E0)
mp, sp = 1.2, np.array([0, 0, -0.4])
t, q, w, o, gaps = run("pendm.h5", "q", "w")
pr, wr = reference(t, q[0], w[0], np.diag([0.064, 0.07, 0.004]) + mp * (sp @ sp * np.eye(3) - np.outer(sp, sp)),
                   lambda p: np.cross(sp, rot(p).T @ (mp * np.array([0, 0, -9.81]))))
ec, ew = np.abs(series(o, "centre", "xyz") - np.array([rot(p) @ sp for p in pr])).max(), np.abs(w - wr).max()
dE = np.abs(o["E"] / o["E"][0] - 1).max()
check(ec < 3e-6 and ew < 5e-5 and dE < 5e-6 and np.abs(gaps).max() < 1e-6,
      "spherical pendulum, Moreau-Jean theta = 1/2, h = 1e-3, against SciPy: centre %.2e m (3e-6), angular velocity %.2e rad/s (5e-5), "
      "energy %.2e of E0 (5e-6), rows %.1e (velocity level: 1e-6)" % (ec, ew, dE, np.abs(gaps).max()))
t, o, gaps, _ = case("hingem.h5")
eth, ew = np.abs(np.arctan2(o["centre_y"], -o["centre_z"]) - s.y[0]).max(), np.abs(o["w_x"] - s.y[1]).max()
dE = np.abs(o["E"] / o["E"][0] - 1).max()
check(eth < 1e-5 and ew < 5e-5 and dE < 5e-6 and np.abs(gaps).max() < 1e-6,
      "revolute joint, Moreau-Jean theta = 1/2, h = 1e-3, against the pendulum's ODE: angle %.2e rad (1e-5), rate %.2e rad/s (5e-5), energy "
      "%.2e of E0 (5e-6), rows %.1e (velocity level: 1e-6)" % (eth, ew, dE, np.abs(gaps).max()))
# ---- a point against the ground's plane: the box's corner, its flight and Newton's law at the first impact
t, q, w, o, gaps = run("box.h5")
m, J, sc, e, h = 1.5, np.diag([0.02, 0.03, 0.04]), np.array([0.1, 0.15, -0.2]), 0.5, 2e-4
v0 = np.array([o["c_vx"][0], o["c_vy"][0], o["c_vz"][0]])
c0 = np.array([o["c_x"][0], o["c_y"][0], o["c_z"][0]])
Ji = np.linalg.inv(J)


def rhs(_, y):
    return np.concatenate([0.5 * qmul(y[:4], np.concatenate([[0], y[4:]])), Ji @ (-np.cross(y[4:], J @ y[4:]))])


def corner_z(tt, y):
    return c0[2] + v0[2] * tt - 9.81 * tt * tt / 2 + (rot(y[:4]) @ sc)[2]


corner_z.terminal, corner_z.direction = True, -1
sol = solve_ivp(rhs, (0, 1), np.concatenate([q[0], rot(q[0]).T @ w[0]]), method="DOP853", rtol=1e-12, atol=1e-14, events=corner_z)
ts = sol.t_events[0][0]
pe, wb = sol.y_events[0][0][:4], sol.y_events[0][0][4:]
R = rot(pe)
rho, n, vc, wf = R @ sc, np.array([0, 0, 1.0]), v0 + np.array([0, 0, -9.81 * ts]), R @ wb
Jw_i = R @ Ji @ R.T
vn = n @ (vc + np.cross(wf, rho))
P = -(1 + e) * vn / (1 / m + np.cross(rho, n) @ Jw_i @ np.cross(rho, n))
vp, wp = vc + P * n / m, wf + Jw_i @ np.cross(rho, n) * P
kc = int(np.argmax(o["f"] > 0))
flight = np.abs(o["c_z"][:kc] - (c0[2] + v0[2] * t[:kc] - 9.81 * t[:kc] ** 2 / 2)).max()
check(flight < 1e-12, "box: its centre's height before the impact on z0 + vz0 t - g t^2 / 2 to %.1e (1e-12: a constant acceleration)" % flight)
check(abs(t[kc] - ts) <= 2 * h, "box: first contact at t = %.4f s, the exact %.6f s (SciPy event; within 2 h)" % (t[kc], ts))
after = np.concatenate([[o["c_vx"][kc], o["c_vy"][kc], o["c_vz"][kc]], w[kc]])
dv = np.abs(after - np.concatenate([vp, wp])).max() / np.linalg.norm(np.concatenate([vp, wp]))
check(dv < 1e-2, "box: velocities after the impact against Newton's law from the exact pre-impact state: %.2e of |(v+, w+)| (1e-2; v+ = %s, w+ = %s)"
      % (dv, np.round(vp, 4), np.round(wp, 4)))
law = abs(o["corner_vz"][kc] + e * o["corner_vz"][kc - 1])
check(law < 1e-9, "box: nsgalpha's discrete Newton law |v_n(k) + e v_n(k-1)| = %.1e at the impact (1e-9)" % law)
check(gaps[:, 1].min() > -1e-12 and np.abs(gaps[:, 0]).max() < 1e-14,  # rows: the norm, then the contact
      "box: the corner's gap never below %.1e m (-1e-12), the norm row at most %.1e (1e-14)" % (gaps[:, 1].min(), np.abs(gaps[:, 0]).max()))
sys.exit(mbcheck.bad)
PY

# ---- (c) the job file as documented
(cd "$VICMS_SOURCE" && must "jobs/spinning_top.yaml" mpi 60 1 simulate -options_file jobs/spinning_top.yaml -step_end_time 0.2 -results_file "$dir/job.h5")

# ---- stop and resume of the box's fall and corner impact (the quaternion's norm row and the contact in the checkpoint):
# SIGTERM mid-case, the rerun resumes from the checkpoint to the uninterrupted run's results bit for bit
stop_resume "tumbling box" $sim -mb_model box.yaml -step_dt 5e-6 -step_end_time 0.6 -step_output_every 100
# ---- (e) Coulomb friction on spatial contacts (two tangential rows, the disk of radius mu P_n): a tripod (feet at
# (0.2, 0, -0.05), (-0.1, +-0.1732, -0.05), mu = 0.3) on a plane with normal n: flat, pushed at 2 m/s along (cos 0.6,
# sin 0.6): it slides on the straight line of its initial velocity, decelerating at mu g, and stops at v0^2 / (2 mu g);
# on a slope of alpha = 0.4 (tan > mu) from rest: a = g (sin - mu cos) along the steepest line; alpha = 0.25 (tan < mu):
# stuck. nsgalpha's friction is an impulse at velocity level; its tangential position multiplier nu_t holds a sticking
# foot (g_t = 0: the stuck tripod does not move) and gives a slipping one the position of its impulse as a constant force
# over the step (nu_t = h Lambda_t / 2: no half-step lag), so that a constant deceleration is exact and the stop is the
# discrete one derived below.
$py - <<'PY'
import numpy as np


def tripod(path, alpha, phi, v0):
    """The tripod on the plane through 0 tilted by alpha about (sin phi, -cos phi, 0), its feet on it, every digit."""
    k = np.array([np.sin(phi), -np.cos(phi), 0.0])
    n = np.array([-np.sin(alpha) * np.cos(phi), -np.sin(alpha) * np.sin(phi), np.cos(alpha)])
    f = lambda x: "[" + ", ".join(repr(float(v)) for v in x) + "]"
    s = """dim: 3
gravity: [0, 0, -9.81]
bodies:
  - {name: b, mass: 2, inertia: [0.03, 0.03, 0.05], axis: %s, angle: %r, position: %s, velocity: %s}
contacts:
""" % (f(k), alpha, f(0.05 * n), f(v0))
    for i, p in enumerate([(0.2, 0, -0.05), (-0.1, 0.1 * np.sqrt(3), -0.05), (-0.1, -0.1 * np.sqrt(3), -0.05)]):
        s += "  - {name: f%d, body: b, point: %s, against: ground, plane_point: [0, 0, 0], plane_normal: %s, restitution: 0, friction: 0.3}\n" % (
            i, f(p), f(n))
    s += "outputs:\n  - {name: c, type: point, body: b}\n  - {name: w, type: angular_velocity, body: b}\n"
    s += "".join("  - {name: F%d, type: contact_force, contact: f%d}\n" % (i, i) for i in range(3))
    open(path, "w").write(s)


tripod("flat.yaml", 0.0, 0.0, [2 * np.cos(0.6), 2 * np.sin(0.6), 0])
tripod("slope.yaml", 0.4, 0.7, [0, 0, 0])
tripod("stuck.yaml", 0.25, 0.7, [0, 0, 0])
PY
mjs="-system_type multibody -step_type moreau -step_moreau_variant theta -step_theta 0.5"
must "tripod sliding nsgalpha" mpi 60 1 simulate $sim -mb_model flat.yaml -step_dt 1e-3 -step_end_time 1 -results_file flat1.h5
for c in slope stuck; do
  must "tripod $c nsgalpha" mpi 60 1 simulate $sim -mb_model $c.yaml -step_dt 1e-3 -step_end_time 1 -results_file ${c}.h5
done
for c in flat slope stuck; do
  must "tripod $c moreau" mpi 60 1 simulate $mjs -mb_model $c.yaml -step_dt 1e-3 -step_end_time 1 -results_file ${c}m.h5
done
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import sys
import h5py, numpy as np
from mbcheck import check, case
import mbcheck

g, mu, m, h, v0 = 9.81, 0.3, 2.0, 1e-3, 2.0
ts, xs = v0 / (mu * g), v0 ** 2 / (2 * mu * g)
# nsgalpha's discrete stop: v_k = v0 - mu g k h and q_{k+1} = q_k + h (v_k + v_{k+1})/2 while it slides (exact at t_k), K steps
# with v_K = mu g h theta < mu g h (ts = (K + theta) h), then the step that sticks holds the feet (q_{K+1} = q_K):
# x_K = v0^2/(2 mu g) - mu g h^2 theta^2/2, second order (within mu g h^2/2)
K = np.floor(ts / h)
th = ts / h - K
xK = xs - mu * g * h ** 2 * th ** 2 / 2
for name in ("flat1.h5", "flatm.h5"):
    t, o, gaps, forces = case(name)
    d = np.array([np.cos(0.6), np.sin(0.6)])
    r, v = np.stack([o["c_x"], o["c_y"]], 1), np.stack([o["c_vx"], o["c_vy"]], 1)
    s, lat, vs = r @ d, np.abs(r @ [-d[1], d[0]]), v @ d
    exact = np.where(t < ts, v0 * t - mu * g * t ** 2 / 2, xs)
    ft = sum(np.stack([o["F%d_t1" % i], o["F%d_t2" % i]], 1) for i in range(3))  # t1 = x, t2 = y on the plane z = 0
    fn = sum(o["F%d" % i] for i in range(3))
    sl = (t > h) & (t < ts - h)
    fsum = np.abs(ft[sl] + mu * m * g * d).max()
    disk = max(np.abs(np.hypot(o["F%d_t1" % i], o["F%d_t2" % i]) - mu * o["F%d" % i])[sl].max() for i in range(3))
    if name == "flat1.h5":
        drift = np.abs(s - exact)[t < ts - h].max()
        check(drift < 1e-12 and np.abs(vs - np.maximum(v0 - mu * g * t, 0)).max() < 1e-12,
              "tripod sliding, nsgalpha: v = v0 - mu g t to %.1e m/s and x = v0 t - mu g t^2 / 2 to %.1e m while it slides (no half-step lag; "
              "1e-12)" % (np.abs(vs - np.maximum(v0 - mu * g * t, 0)).max(), drift))
        check(abs(s[-1] - xK) < 1e-12 and abs(s[-1] - xs) <= mu * g * h ** 2 / 2 and np.abs(s[t > ts + h] - s[-1]).max() < 1e-12
              and lat.max() < 1e-12 and np.abs(v[-1]).max() < 1e-12,
              "tripod sliding, nsgalpha: stops at %.9f m against the discrete x_K = v0^2/(2 mu g) - mu g h^2 theta^2/2 = %.9f m (%.1e, 1e-12; "
              "v0^2/(2 mu g) = %.9f m, within mu g h^2/2), held there after to %.1e m, on the line of its initial velocity to %.1e m (1e-12), at "
              "rest after (%.1e m/s)" % (s[-1], xK, abs(s[-1] - xK), xs, np.abs(s[t > ts + h] - s[-1]).max(), lat.max(), np.abs(v[-1]).max()))
        check(fsum < 1e-9 and disk < 1e-9 and np.abs(ft[t > ts + h]).max() < 1e-9,
              "tripod sliding, nsgalpha: the feet's friction sums to -mu m g along the velocity to %.1e N, each on its disk's edge |f_t| = mu f_n "
              "to %.1e N; after the stop their sum %.1e N (1e-9)" % (fsum, disk, np.abs(ft[t > ts + h]).max()))
    else:
        err = np.abs(s - exact).max()
        check(err < 2 * g * h ** 2 and lat.max() < 2 * g * h ** 2 and np.abs(v[-1]).max() < 1e-12,
              "tripod sliding, Moreau-Jean theta = 1/2: x against v0 t - mu g t^2 / 2 then v0^2/(2 mu g) to %.1e m, off its line by %.1e m "
              "(2 g h^2: its feet hold at velocity level only, their gaps reach %.1e m), at rest after" % (err, lat.max(), gaps[:, 1:].min()))
for alpha, stem in ((0.4, "slope"), (0.25, "stuck")):
    n = np.array([-np.sin(alpha) * np.cos(0.7), -np.sin(alpha) * np.sin(0.7), np.cos(alpha)])
    d = np.array([0, 0, -g]) - (-g * n[2]) * n
    d /= np.linalg.norm(d)  # the steepest line, downhill
    a = max(g * (np.sin(alpha) - mu * np.cos(alpha)), 0)
    errs = {}
    for name in (stem + ".h5", stem + "m.h5"):
        t, o, gaps, forces = case(name)
        r = np.stack([o["c_x"], o["c_y"], o["c_z"]], 1)
        r -= r[0]
        v = np.stack([o["c_vx"], o["c_vy"], o["c_vz"]], 1)
        s, lat = r @ d, np.linalg.norm(r - np.outer(r @ d, d), axis=1).max()
        errs[name] = np.abs(s - a * t ** 2 / 2).max()
        if name == stem + ".h5" and a > 0:
            dv = np.abs(v - np.outer(a * t, d)).max()
            check(dv < 1e-12 and errs[name] < 1e-12 and lat < 1e-12,
                  "tripod %s (alpha = %g, a = %.6f m/s^2), nsgalpha: v = a t along the steepest line to %.1e m/s, s = a t^2/2 to %.1e m (no "
                  "half-step lag), off the line %.1e m (1e-12)" % (stem, alpha, a, dv, errs[name], lat))
        elif name == stem + ".h5":
            moved = np.linalg.norm(r, axis=1).max()
            check(np.abs(v).max() < 1e-12 and moved < 1e-12,
                  "tripod %s (alpha = %g, tan alpha < mu), nsgalpha: at rest (velocity %.1e m/s) and held where it stands: moves %.1e m in 1 s "
                  "(1e-12; without the sticking feet's position rows it crept h g sin(alpha) t/2 = %.1e m)" % (
                      stem, alpha, np.abs(v).max(), moved, h * g * np.sin(alpha) / 2))
        if name == "slopem.h5":
            dv = v @ d - a * t
            late = t >= 0.1  # its three feet closed (each after a first step in free fall: gaps at round-off above 0)
            check(np.abs(dv[late] - dv[late][0]).max() < 1e-8 and np.abs(dv).max() < g * h,
                  "tripod slope, Moreau-Jean theta = 1/2: from t = 0.1 s the acceleration a exactly (v - a t constant to %.1e m/s, 1e-8), "
                  "its offset %.2e m/s below g h (the first steps' free fall); s against a t^2/2 to %.2e m" % (
                      np.abs(dv[late] - dv[late][0]).max(), np.abs(dv).max(), errs[name]))
    if stem == "stuck":
        check(errs["stuckm.h5"] < 2 * g * h ** 2, "tripod stuck, Moreau-Jean theta = 1/2: moves %.1e m (2 g h^2: a first step in free fall, "
              "its feet's gaps at round-off above 0)" % errs["stuckm.h5"])
sys.exit(mbcheck.bad)
PY
# ---- (e') the same tripod pushed obliquely on flat ground with the mixed scheme (seed 001; its nonlinear path, mixednl.c, two
# tangential rows per spatial contact, Coulomb's disk on the stages' forces and the impulses), genalpha rho_inf = 0.8 and bathe,
# h = 1e-3 and 5e-4: the friction is a force at every stage (not an impulse), so the constant deceleration is integrated exactly:
# v = v0 - mu g t, on the line of v0, the feet's forces on their disks' edges summing to -mu m g; the stop within mu g h^2 of
# v0^2/(2 mu g) (the step that stops ends at rest, off the exact stop by at most mu g h^2/8; the first step's feet, their gaps
# at round-off above 0 after it, leave the next step without friction until the impulse that closes them: O(mu g h^2)), second
# order (errors' ratio h / (h/2) >= 3); bathe on 2 and 3 ranks bitwise equal to 1 rank.
for base in genalpha bathe; do
  for h in 1e-3 5e-4; do
    must "tripod sliding mixed $base h = $h" mpi 60 1 simulate -system_type multibody -step_type mixed -step_mixed_base $base -step_rho_inf 0.8 \
      -mb_model flat.yaml -step_dt $h -step_end_time 1 -results_file flatx_${base}_$h.h5
  done
done
for np in 2 3; do
  must "tripod sliding mixed bathe np=$np" mpi 60 $np simulate -system_type multibody -step_type mixed -step_mixed_base bathe -step_rho_inf 0.8 \
    -mb_model flat.yaml -step_dt 1e-3 -step_end_time 1 -results_file flatx_bathe_np$np.h5
done
# genalpha at rho_inf = 1 (no damping of the stage forces): its Newton iterate cycled between two active sets at the stop (11 of
# 710 solves failed, the run with them); a failed solve is now tried again with r ten times larger (mixednl.c): every solve
# converges, v = v0 - mu g t within 1e-7 m/s (measured 1.8e-8), the stop within 1e-5 m of v0^2/(2 mu g) (1.2e-6)
must "tripod sliding mixed genalpha rho_inf = 1" mpi 60 1 simulate -system_type multibody -step_type mixed -step_mixed_base genalpha -step_rho_inf 1 \
  -mb_model flat.yaml -step_dt 1e-3 -step_end_time 1 -results_file flatx_rho1.h5
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import sys
import h5py, numpy as np
from mbcheck import check, case
import mbcheck

g, mu, m, v0 = 9.81, 0.3, 2.0, 2.0
ts, xs = v0 / (mu * g), v0 ** 2 / (2 * mu * g)
d = np.array([np.cos(0.6), np.sin(0.6)])
for base in ("genalpha", "bathe"):
    stop = {}
    for hs in ("1e-3", "5e-4"):
        h = float(hs)
        t, o, gaps, forces = case("flatx_%s_%s.h5" % (base, hs))
        r, v = np.stack([o["c_x"], o["c_y"]], 1), np.stack([o["c_vx"], o["c_vy"]], 1)
        s, lat, vs = r @ d, np.abs(r @ [-d[1], d[0]]).max(), v @ d
        dv = np.abs(vs - np.maximum(v0 - mu * g * t, 0)).max()
        ft = sum(np.stack([o["F%d_t1" % i], o["F%d_t2" % i]], 1) for i in range(3))
        # genalpha's stage forces ring at rho_inf^k after a jump (its a_0 without the contacts, Eq. 24; the stop): the window from 0.2 s
        # and the end of the run; bathe's from the third step (the feet, at round-off above the plane after the first, are open in the
        # second, and the recorded force of the step they close in holds the impulse / h)
        t0 = 0.2 if base == "genalpha" else 2.5 * h
        sl = (t > t0) & (t < ts - h)
        fsum = np.abs(ft[sl] + mu * m * g * d).max()
        disk = max(np.abs(np.hypot(o["F%d_t1" % i], o["F%d_t2" % i]) - mu * o["F%d" % i])[sl].max() for i in range(3))
        after = np.abs(ft[t > ts + 0.2]).max()
        stop[h] = abs(s[-1] - xs)
        check(dv < 1e-12 and lat < 1e-12 and np.abs(v[-1]).max() < 1e-12 and fsum < 1e-9 and disk < 1e-9 and after < 1e-9
              and stop[h] <= mu * g * h ** 2,
              "tripod sliding, mixed %s h = %g: v = v0 - mu g t to %.1e m/s, off the line of v0 %.1e m, at rest after (%.1e m/s) (1e-12); the feet's "
              "friction sums to -mu m g to %.1e N, each on its disk's edge to %.1e N, after the stop %.1e N (1e-9); stops at %.9f m, %.2e from "
              "v0^2/(2 mu g) (mu g h^2 = %.1e)" % (base, h, dv, lat, np.abs(v[-1]).max(), fsum, disk, after, s[-1], stop[h], mu * g * h ** 2))
    check(stop[1e-3] / stop[5e-4] >= 3, "tripod sliding, mixed %s: the stop's error %.2e, %.2e at h = 1e-3, 5e-4: ratio %.2f (second order, >= 3)" % (
        base, stop[1e-3], stop[5e-4], stop[1e-3] / stop[5e-4]))
t, o, _, _ = case("flatx_rho1.h5")
r, v = np.stack([o["c_x"], o["c_y"]], 1), np.stack([o["c_vx"], o["c_vy"]], 1)
nc = h5py.File("flatx_rho1.h5", "r")["cases/contact_nonconverged"][()].sum()
dv = np.abs(v @ d - np.maximum(v0 - mu * g * t, 0))[t < ts - 0.01].max()
check(nc == 0 and dv <= 1e-7 and abs((r @ d)[-1] - xs) <= 1e-5,
      "tripod sliding, mixed genalpha rho_inf = 1: %d solves not converged (0); v = v0 - mu g t to %.1e m/s (1e-7); stops at %.9f m, %.1e from "
      "v0^2/(2 mu g) (1e-5)" % (nc, dv, (r @ d)[-1], abs((r @ d)[-1] - xs)))
ref = h5py.File("flatx_bathe_1e-3.h5", "r")["cases/0"]
for np_ in (2, 3):
    other = h5py.File("flatx_bathe_np%d.h5" % np_, "r")["cases/0"]
    same = all(np.array_equal(ref[k][()], other[k][()]) for k in ("t", "outputs", "gaps", "forces", "energy"))
    check(same, "tripod sliding, mixed bathe: %d ranks bitwise equal to 1 rank (t, outputs, gaps, forces, energy)" % np_)
sys.exit(mbcheck.bad)
PY
# ---- (f) prismatic and fixed joints in 3-D: a body on a prismatic joint along a tilted axis under gravity (angle
# alpha = 0.5 above the horizontal), pushed at 0.7 m/s along it: s = v0 t - g sin(alpha) t^2 / 2 exactly (a constant
# acceleration), its normal reaction m g cos(alpha); two bodies welded by a fixed joint in free flight against one body
# of their combined mass and inertia (its tensor in the fixed frame, written out): the same motion
$py - <<'PY'
import numpy as np
f = lambda x: "[" + ", ".join(repr(float(v)) for v in x) + "]"
def rod(axis, angle):
    a = np.array(axis, float); a /= np.linalg.norm(a); K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K
# prismatic: along a tilted axis through P0 (ground), the body's point s2 on it
alpha, beta = 0.5, 0.8
ax = np.array([np.cos(alpha) * np.cos(beta), np.cos(alpha) * np.sin(beta), np.sin(alpha)])
P0, s2, v0 = np.array([0.1, 0.2, 0.3]), np.array([0.05, -0.02, 0.03]), 0.7
R = rod([1, 1, 0], 0.4)
r = P0 - R @ s2
open("prism.yaml", "w").write("""dim: 3
gravity: [0, 0, -9.81]
bodies:
  - {name: c, mass: 2, inertia: [0.1, 0.2, 0.3], axis: [1, 1, 0], angle: 0.4, position: %s, velocity: %s}
joints:
  - {name: slide, type: prismatic, body1: ground, point1: %s, body2: c, point2: %s, axis: %s}
outputs:
  - {name: p, type: point, body: c, point: %s}
  - {name: w, type: angular_velocity, body: c}
  - {name: F, type: joint_force, joint: slide}
  - {name: E, type: energy}
""" % (f(r), f(v0 * ax), f(P0), f(s2), f(ax), f(s2)))
# fixed: two bodies welded at their midpoint, moving as one rigid body (no gravity)
m1, m2 = 1.5, 1.0
J1, J2 = np.diag([0.02, 0.03, 0.04]), np.diag([0.05, 0.2, 0.22])
ra, rb = np.array([0, 0, 0.0]), np.array([0.3, 0.1, -0.2])
Ra, Rb = rod([1, 2, 3], 0.5), rod([0, 1, 1], -0.3)
mid = (ra + rb) / 2
w0, V = np.array([1.0, 2.5, -0.7]), np.array([0.1, 0, 0.2])
c = (m1 * ra + m2 * rb) / (m1 + m2)
va, vb = V + np.cross(w0, ra - c), V + np.cross(w0, rb - c)
open("weld.yaml", "w").write("""dim: 3
bodies:
  - {name: a, mass: %r, inertia: [0.02, 0.03, 0.04], axis: [1, 2, 3], angle: 0.5, position: %s, velocity: %s, angular_velocity: %s}
  - {name: b, mass: %r, inertia: [0.05, 0.2, 0.22], axis: [0, 1, 1], angle: -0.3, position: %s, velocity: %s, angular_velocity: %s}
joints:
  - {name: weld, type: fixed, body1: a, point1: %s, body2: b, point2: %s}
outputs:
  - {name: ca, type: point, body: a}
  - {name: cb, type: point, body: b}
  - {name: wa, type: angular_velocity, body: a}
  - {name: wb, type: angular_velocity, body: b}
  - {name: E, type: energy}
""" % (m1, f(ra), f(va), f(w0), m2, f(rb), f(vb), f(w0), f(Ra.T @ (mid - ra)), f(Rb.T @ (mid - rb))))
Jc = Ra @ J1 @ Ra.T + Rb @ J2 @ Rb.T
for m, r_ in ((m1, ra), (m2, rb)):
    d = r_ - c
    Jc += m * (d @ d * np.eye(3) - np.outer(d, d))
open("one.yaml", "w").write("""dim: 3
bodies:
  - {name: o, mass: %r, inertia: %s, position: %s, velocity: %s, angular_velocity: %s}
outputs:
  - {name: c, type: point, body: o}
  - {name: w, type: angular_velocity, body: o}
  - {name: E, type: energy}
""" % (m1 + m2, f([Jc[0, 0], Jc[1, 1], Jc[2, 2], Jc[0, 1], Jc[0, 2], Jc[1, 2]]), f(c), f(V), f(w0)))
PY
for h in 1e-3 5e-4; do
  must "welded pair h = $h" mpi 60 1 simulate $sim -mb_model weld.yaml -step_dt $h -step_end_time 1 -results_file weld$h.h5
  must "one combined body h = $h" mpi 60 1 simulate $sim -mb_model one.yaml -step_dt $h -step_end_time 1 -results_file one$h.h5
done
must "prismatic joint" mpi 60 1 simulate $sim -mb_model prism.yaml -step_dt 1e-3 -step_end_time 1 -results_file prism1.h5
must "prismatic joint moreau" mpi 60 1 simulate $mjs -mb_model prism.yaml -step_dt 1e-3 -step_end_time 1 -results_file prismm.h5
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import sys
import h5py, numpy as np
from mbcheck import check, case
import mbcheck

alpha, beta, g, v0 = 0.5, 0.8, 9.81, 0.7
ax = np.array([np.cos(alpha) * np.cos(beta), np.cos(alpha) * np.sin(beta), np.sin(alpha)])
for name, label in (("prism1.h5", "nsgalpha"), ("prismm.h5", "Moreau-Jean theta = 1/2")):
    t, o, gaps, forces = case(name)
    P = np.stack([o["p_x"], o["p_y"], o["p_z"]], 1) - np.array([0.1, 0.2, 0.3])
    s = P @ ax
    err = np.abs(s - (v0 * t - g * np.sin(alpha) * t ** 2 / 2)).max()
    perp = np.linalg.norm(P - np.outer(s, ax), axis=1).max()
    w = max(np.abs(o["w_" + k]).max() for k in "xyz")
    dF = np.abs(np.hypot(o["F_x"], o["F_y"])[1:] - 2 * g * np.cos(alpha)).max()
    check(err < 1e-12 and perp < 1e-12 and w < 1e-12 and np.abs(gaps).max() < 1e-14 and dF < 1e-9,
          "prismatic joint along a tilted axis, %s: s against v0 t - g sin(alpha) t^2/2 to %.1e m, off the axis %.1e m, |omega| %.1e rad/s "
          "(1e-12), its rows and the norm row %.1e (1e-14), its normal reaction against m g cos(alpha) = %.6f N to %.1e N (1e-9)"
          % (label, err, perp, w, np.abs(gaps).max(), 2 * g * np.cos(alpha), dF))
dw = {}
for h in ("1e-3", "5e-4"):
    t, a, gaps, _ = case("weld%s.h5" % h)
    _, b, _, _ = case("one%s.h5" % h)
    c = (1.5 * np.stack([a["ca_" + k] for k in "xyz"], 1) + np.stack([a["cb_" + k] for k in "xyz"], 1)) / 2.5
    dc = np.abs(c - np.stack([b["c_" + k] for k in "xyz"], 1)).max()
    wa, wb = np.stack([a["wa_" + k] for k in "xyz"], 1), np.stack([a["wb_" + k] for k in "xyz"], 1)
    dw[h] = np.abs(wa - np.stack([b["w_" + k] for k in "xyz"], 1)).max()
    rigid = np.abs(wa - wb).max()
    check(dc < 1e-12 and rigid < 1e-13 and np.abs(gaps).max() < 1e-14,
          "welded pair h = %s: its centre of mass against the combined body's %.1e m (1e-12), the two bodies' angular velocities equal to %.1e rad/s "
          "(1e-13), the fixed joint's six rows and the norm rows %.1e (1e-14); angular velocity against the combined body's %.2e rad/s"
          % (h, dc, rigid, np.abs(gaps).max(), dw[h]))
ratio = dw["1e-3"] / dw["5e-4"]
check(dw["1e-3"] < 1e-6 and 3 < ratio < 5, "welded pair against the combined body: angular velocity %.2e rad/s (1e-6) at h = 1e-3, ratio to "
      "h = 5e-4 %.2f (both second order to one motion: 3 to 5)" % (dw["1e-3"], ratio))
sys.exit(mbcheck.bad)
PY
# ---- (g) a plane on a moving body: the tripod of (e) (2 kg, mu = 0.3) pushed at 2 m/s along x on a tray (3 kg, turned
# by 0.7 rad about z: its plane's tangents turn with it) that slides freely on a prismatic joint along x: the friction
# decelerates the tripod at mu g and drives the tray at mu g mB / mA until their velocities meet at
# t* = v0 / (mu g (1 + mB / mA)), then both move at the common mB v0 / (mA + mB); the momentum is conserved throughout
$py - <<'PY'
import numpy as np
f = lambda x: "[" + ", ".join(repr(float(v)) for v in x) + "]"
s = """dim: 3
gravity: [0, 0, -9.81]
bodies:
  - {name: tray, mass: 3, inertia: [0.1, 0.2, 0.25], axis: [0, 0, 1], angle: 0.7, position: [0, 0, 0]}
  - {name: b, mass: 2, inertia: [0.03, 0.03, 0.05], axis: [0, 0, 1], angle: -0.4, position: [0, 0, 0.1], velocity: [2, 0, 0]}
joints:
  - {name: rail, type: prismatic, body1: ground, body2: tray, axis: [1, 0, 0]}
contacts:
"""
for i, p in enumerate([(0.2, 0, -0.05), (-0.1, 0.1 * np.sqrt(3), -0.05), (-0.1, -0.1 * np.sqrt(3), -0.05)]):
    s += "  - {name: f%d, body: b, point: %s, against: tray, plane_point: [0, 0, 0.05], plane_normal: [0, 0, 1], restitution: 0, friction: 0.3}\n" % (i, f(p))
s += """outputs:
  - {name: ct, type: point, body: tray}
  - {name: cb, type: point, body: b}
  - {name: wb, type: angular_velocity, body: b}
  - {name: E, type: energy}
"""
s += "".join("  - {name: F%d, type: contact_force, contact: f%d}\n" % (i, i) for i in range(3))
open("tray.yaml", "w").write(s)
PY
for np in 1 2 3; do
  must "tripod on a sliding tray nsgalpha np=$np" mpi 60 $np simulate $sim -mb_model tray.yaml -step_dt 1e-3 -step_end_time 1 -results_file tray$np.h5
done
must "tripod on a sliding tray moreau" mpi 60 1 simulate $mjs -mb_model tray.yaml -step_dt 1e-3 -step_end_time 1 -results_file traym.h5
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import sys
import h5py, numpy as np
from mbcheck import check, case
import mbcheck

g, mu, mA, mB, v0, h = 9.81, 0.3, 3.0, 2.0, 2.0, 1e-3
ts, V = v0 / (mu * g * (1 + mB / mA)), mB * v0 / (mA + mB)
for name, label in (("tray1.h5", "nsgalpha"), ("traym.h5", "Moreau-Jean theta = 1/2")):
    t, o, gaps, forces = case(name)
    vA, vB = o["ct_vx"], o["cb_vx"]
    eA = np.where(t < ts, mu * g * mB / mA * t, V)
    eB = np.where(t < ts, v0 - mu * g * t, V)
    # from t = 2 h (Moreau-Jean: the feet's gaps at round-off above 0 leave them open in the first step, the second step's
    # impulse catches up), the stop's step left out
    sl = (t > 1.5 * h) & ((t < ts - h) | (t > ts + h))
    dv = max(np.abs(vA - eA)[sl].max(), np.abs(vB - eB)[sl].max())
    mom = np.abs(mA * vA + mB * vB - mB * v0).max()
    off = max(np.abs(o["cb_vy"]).max(), np.abs(o["ct_vy"]).max(), np.abs(np.stack([o["wb_" + k] for k in "xyz"])).max())
    check(dv < 1e-12 and mom < 1e-12 and off < 1e-12,
          "tripod on a sliding tray, %s: the velocities against mu g mB/mA t and v0 - mu g t until t* = %.6f s, then the common %.1f m/s, to %.1e m/s; "
          "momentum conserved to %.1e; no sideways motion or turn (%.1e) (1e-12)" % (label, ts, V, dv, mom, off))
    if name == "tray1.h5":
        # the relative motion decelerates at ar = mu g (1 + mB/mA): (e)'s discrete stop with ar for mu g (K steps, ts = (K + theta) h)
        slide, ar = (o["cb_x"] - o["ct_x"])[-1], mu * g * (1 + mB / mA)
        K = np.floor(ts / h)
        th = ts / h - K
        sK = v0 * ts / 2 - ar * h ** 2 * th ** 2 / 2
        check(abs(slide - sK) < 1e-12 and abs(slide - v0 * ts / 2) <= ar * h ** 2 / 2 and gaps[:, -3:].min() > -1e-12,
              "tripod on a sliding tray, nsgalpha: slides %.9f m on the tray against the discrete v0 t*/2 - ar h^2 theta^2/2 = %.9f m (%.1e, "
              "1e-12; v0 t*/2 = %.9f m, within ar h^2/2), its feet's gaps on the moving plane >= %.1e m (-1e-12)" % (
                  slide, sK, abs(slide - sK), v0 * ts / 2, gaps[:, -3:].min()))
ref = h5py.File("tray1.h5", "r")["cases/0"]
for np_ in (2, 3):  # friction on a moving plane, a prismatic joint: every new row
    other = h5py.File("tray%d.h5" % np_, "r")["cases/0"]
    same = all(np.array_equal(ref[k][()], other[k][()]) for k in ("t", "outputs", "gaps", "forces", "energy"))
    check(same, "tripod on a sliding tray: %d ranks bitwise equal to 1 rank (t, outputs, gaps, forces, energy)" % np_)
sys.exit(mbcheck.bad)
PY
# ---- (h) Moreau-Jean's spin (docs/multibody.md "Spatial bodies"): the top's body, free, spinning at 200 rad/s about its
# symmetry axis (its rate and energy are constant): nsgalpha keeps it; Moreau-Jean theta = 1/2 too, its norm row's impulse
# at the step's midpoint with the step's mass there (src/step/moreau.c). With the impulse at the step's end it lost the
# rate as omega0 / sqrt(1 + k omega0^2 h t), k = 0.433: 200 -> 86.7 rad/s in 0.5 s at h = 5e-4.
cat >spin.yaml <<'YAML'
dim: 3
bodies:
  - {name: top, mass: 0.5, inertia: [3e-4, 3e-4, 5e-4], axis: [1, 0, 0], angle: 0.3, position: [0, 0, 0],
     angular_velocity: [0, -59.10404133226791, 191.0672978251212]}
outputs:
  - {name: q, type: orientation, body: top}
  - {name: omega, type: angular_velocity, body: top}
  - {name: E, type: energy}
YAML
must "free spin nsgalpha" mpi 60 1 simulate $sim -mb_model spin.yaml -step_dt 5e-4 -step_end_time 0.5 -results_file spin.h5
must "free spin moreau h = 5e-4" mpi 60 1 simulate $mjs -mb_model spin.yaml -step_dt 5e-4 -step_end_time 0.5 -results_file spinm1.h5
must "free spin moreau h = 1.25e-4" mpi 60 1 simulate $mjs -mb_model spin.yaml -step_dt 1.25e-4 -step_end_time 0.125 -results_file spinm2.h5
# the norm rows' midpoint impulse (G(q_n) of the step's start, M(q_m)) on 2 ranks and through a stop and resume, bitwise
must "free spin moreau h = 5e-4 np=2" mpi 60 2 simulate $mjs -mb_model spin.yaml -step_dt 5e-4 -step_end_time 0.5 -results_file spinm1_2.h5
$py "$VICMS_SOURCE/tests/app/compare_results.py" spinm1.h5 spinm1_2.h5 --label "free spin, Moreau-Jean, 2 ranks against 1" || fail=1
rm -f full.h5 stop.h5 stop.h5.* # the box's
stop_resume "free spin, Moreau-Jean" $mjs -mb_model spin.yaml -step_dt 1e-6 -step_end_time 0.15 -step_output_every 100
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import sys
import numpy as np
from mbcheck import check, case
import mbcheck


def spin(name):
    """t, the rate about the body's symmetry axis (R^T omega)_z, |omega|, the energy and |p| - 1"""
    t, o, gaps, forces = case(name)
    w3 = []
    for k in range(len(t)):
        e0, e1, e2, e3 = [o["q_e%d" % i][k] for i in range(4)]
        z = np.array([2 * (e1 * e3 + e0 * e2), 2 * (e2 * e3 - e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3])  # R e3
        w3.append(z @ [o["omega_x"][k], o["omega_y"][k], o["omega_z"][k]] / np.sqrt(z @ z))
    nrm = np.sqrt(sum(o["q_e%d" % i] ** 2 for i in range(4))) - 1
    return t, np.array(w3), np.sqrt(o["omega_x"] ** 2 + o["omega_y"] ** 2 + o["omega_z"] ** 2), o["E"], nrm


t, w3, wn, E, nrm = spin("spin.h5")
check(np.abs(w3 - 200).max() < 1e-9 and np.abs(wn - 200).max() < 1e-9,
      "free spin, nsgalpha h = 5e-4: the rate about the symmetry axis within %.1e of 200 rad/s, |omega| %.1e (1e-9)" % (np.abs(w3 - 200).max(), np.abs(wn - 200).max()))
for name, h in (("spinm1.h5", 5e-4), ("spinm2.h5", 1.25e-4)):
    t, w3, wn, E, nrm = spin(name)
    dw, dE = np.abs(w3 - 200).max(), np.abs(E / E[0] - 1).max()
    check(dw < 1e-7 and np.abs(wn - w3).max() < 1e-10 and dE < 1e-9 and np.abs(nrm).max() < 1e-12,
          "free spin, Moreau-Jean theta = 1/2, h = %g, %d steps: keeps the rate 200 rad/s to %.1e (1e-7; it fell to 86.7 rad/s in 0.5 s at h = 5e-4 "
          "with the norm row's impulse at the step's end), about its symmetry axis (|omega| - rate %.1e, 1e-10), the energy to %.1e (relative, 1e-9), "
          "|p| - 1 at most %.1e (1e-12)" % (h, len(t) - 1, dw, np.abs(wn - w3).max(), dE, np.abs(nrm).max()))
sys.exit(mbcheck.bad)
PY
# the heavy top of (b) on its spherical joint, Moreau-Jean theta = 1/2, h = 2.5e-4 over 4 s (the job's): its rate about
# its axis and its energy are constant, its tilt between the release's 0.3 rad and the nutation's bound (the root of
# (C w3)^2 (cos t0 - cos t) = 2 A' m g l sin^2 t, A' = A + m l^2: Lagrange's top released without precession). With the
# joint's rows' impulse at the step's end it lost 2.9 % of its rate per second (178.20 rad/s at 4 s, energy 0.798 E0, tilt to 0.361).
must "top moreau h = 2.5e-4" mpi 60 1 simulate $mjs -mb_model $jobs/models/spinning_top.yaml -step_dt 2.5e-4 -step_end_time 4 -results_file topm.h5
must "top moreau h = 2.5e-4 np=2" mpi 60 2 simulate $mjs -mb_model $jobs/models/spinning_top.yaml -step_dt 2.5e-4 -step_end_time 4 -results_file topm_2.h5
$py "$VICMS_SOURCE/tests/app/compare_results.py" topm.h5 topm_2.h5 --label "heavy top, Moreau-Jean, 2 ranks against 1" || fail=1
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import sys
import numpy as np
from scipy.optimize import brentq
from mbcheck import check, case
import mbcheck

m, l, A, C, w0, g, t0 = 0.5, 0.05, 3e-4, 5e-4, 200.0, 9.81, 0.3
tmax = brentq(lambda a: (C * w0) ** 2 * (np.cos(t0) - np.cos(a)) - 2 * (A + m * l * l) * m * g * l * np.sin(a) ** 2, t0 + 1e-6, 1.0)
t, o, gaps, forces = case("topm.h5")
p = np.array([o["q_e%d" % i] for i in range(4)])
z = np.array([2 * (p[1] * p[3] + p[0] * p[2]), 2 * (p[2] * p[3] - p[0] * p[1]), p[0] ** 2 - p[1] ** 2 - p[2] ** 2 + p[3] ** 2])
w3 = np.einsum("ik,ik->k", z, np.array([o["omega_x"], o["omega_y"], o["omega_z"]])) / np.sqrt((z * z).sum(0))
tilt = np.arccos(z[2] / np.sqrt((z * z).sum(0)))
dw, dE = np.abs(w3 - w0).max(), np.abs(o["energy"] / o["energy"][0] - 1).max()
check(t[-1] > 3.99 and dw < 1e-6 and dE < 1e-7,
      "heavy top on its spherical joint, Moreau-Jean theta = 1/2, h = 2.5e-4, 4 s: the rate about its axis within %.1e of 200 rad/s (1e-6; "
      "178.20 rad/s at 4 s with the joint's impulse at the step's end), the energy to %.1e (relative, 1e-7; 0.798 E0 before)" % (dw, dE))
check(tilt.min() > t0 - 1e-9 and abs(tilt.max() - tmax) < 1e-5,
      "heavy top, Moreau-Jean: its tilt from %.7f rad (the release's 0.3, 1e-9) to %.7f rad against the nutation's bound %.7f (%.1e, 1e-5; "
      "0.361 before)" % (tilt.min(), tilt.max(), tmax, abs(tilt.max() - tmax)))
check(np.abs(gaps[:, :3]).max() < 1e-5 and np.abs(gaps[:, 3]).max() < 1e-8,
      "heavy top, Moreau-Jean: the joint's rows drift to %.1e m (velocity level, 1e-5), the norm row to %.1e (1e-8)"
      % (np.abs(gaps[:, :3]).max(), np.abs(gaps[:, 3]).max()))
sys.exit(mbcheck.bad)
PY
# ---- (i) the spinning top of (b) with its tip on the frictional ground (mu = 1, e = 0) instead of a spherical joint: it
# sticks (the tip's velocity 0, its position held by the tangential position rows: no creep), and converges to the joint's
# motion at first order (the contact's force is an impulse, the joint's a smooth force: docs/multibody.md "Friction on
# spatial contacts")
sed -e 's/^joints:/contacts:/' \
  -e 's/  - {name: tip, type: spherical, body1: ground, point1: \[0, 0, 0\], body2: top, point2: \[0, 0, -0.05\]}/  - {name: tip, body: top, point: [0, 0, -0.05], against: ground, plane_point: [0, 0, 0], plane_normal: [0, 0, 1], restitution: 0, friction: 1}/' \
  -e 's/type: joint_force, joint: tip/type: contact_force, contact: tip/' \
  -e 's/  - {name: energy, type: energy}/  - {name: tipp, type: point, body: top, point: [0, 0, -0.05]}/' $jobs/models/spinning_top.yaml >ftop.yaml
for h in 5e-4 1e-3; do
  must "top on a frictional plane h = $h" mpi 60 1 simulate $sim -mb_model ftop.yaml -step_dt $h -step_end_time 0.5 -results_file ftop$h.h5
done
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import sys
import numpy as np
from mbcheck import check, case
import mbcheck

d = {}
for h in ("1e-3", "5e-4"):
    t, a, gaps, _ = case("ftop%s.h5" % h)
    _, b, _, _ = case("top%s.h5" % h)  # (b): the same top on a spherical joint
    dc = max(np.abs(a["centre_" + k] - b["centre_" + k]).max() for k in "xyz")
    drift = np.hypot(a["tipp_x"], a["tipp_y"]).max()
    tv = np.hypot(a["tipp_vx"], a["tipp_vy"]).max()
    cone = (np.hypot(a["tip_force_t1"], a["tip_force_t2"])[1:] / a["tip_force"][1:]).max()
    d[h] = (dc, drift)
    # the tip's velocity and position are held to the Newton iteration's tolerance (VI_SSNEWTON_TOL 1e-10 of the unknowns; the
    # tangential rows' curvature is left out of its Jacobian, so it converges linearly while the top turns)
    check(tv < 1e-10 and drift < 1e-10 and cone < 1 and a["tip_force"][1:].min() > 4 and gaps[:, -1].min() > -1e-12,
          "top on a frictional plane h = %s: the tip sticks (its velocity %.1e m/s, held where it stands to %.1e m, 1e-10; |f_t|/f_n at most %.3f "
          "< mu = 1), the normal force >= %.3f N, the gap >= %.1e m; against the top on a spherical joint: centre %.2e m" % (
              h, tv, drift, cone, a["tip_force"][1:].min(), gaps[:, -1].min(), dc))
rc = d["1e-3"][0] / d["5e-4"][0]
check(1.5 < rc < 2.5 and d["5e-4"][0] < 1e-3,
      "top on a frictional plane: converges to the spherical joint's top at first order (centre difference ratio h = 1e-3 / 5e-4 %.2f: 1.5 to 2.5; "
      "%.1e m at 5e-4, 1e-3)" % (rc, d["5e-4"][0]))
sys.exit(mbcheck.bad)
PY
# ---- (d) bad input
sed 's/axis: \[1, 1, 0\], angle: 0.4/orientation: [1, 0.1, 0, 0]/' free.yaml >unit.yaml
sed 's/inertia: \[0.1, 0.2, 0.3\]/inertia: [0.1, 0.2, 0.3, 0.2, 0, 0]/' free.yaml >singular.yaml
sed 's/type: spherical/type: driver/' pend.yaml >planarjoint.yaml
sed 's/type: spherical/type: prismatic/' pend.yaml >noaxis.yaml
sed 's/dim: 3/dim: 4/' free.yaml >dim.yaml
cat >planar.yaml <<'YAML'
bodies:
  - {name: a, mass: 1, inertia: 0.1, position: [0, 0]}
joints:
  - {name: s, type: spherical, body1: ground, body2: a}
YAML
mb="-system_type multibody -step_type nsgalpha -step_dt 1e-3 -step_end_time 0.01"
refuse_simulate "a quaternion off the unit sphere" "1 2" "unit.yaml:3: body 'b' has the orientation .* of norm 1.00498756: a unit quaternion" $mb -mb_model unit.yaml
refuse_simulate "a singular inertia tensor" "1" "singular.yaml:3: body 'b' has a singular or indefinite inertia tensor" $mb -mb_model singular.yaml
refuse_simulate "a spatial driver without its axis" "1" "planarjoint.yaml:6: the key 'axis' is missing (a list of 3 numbers" $mb -mb_model planarjoint.yaml
refuse_simulate "a prismatic joint without its axis" "1 2" "noaxis.yaml:6: joint 'pivot': a prismatic joint needs 'axis: \[ax, ay, az\]' (body1's frame)" $mb -mb_model noaxis.yaml
refuse_simulate "a spherical joint in a planar model" "1" "planar.yaml:4: joint 's' has the type 'spherical' (expected revolute, prismatic, fixed or driver; spherical needs dim: 3)" $mb -mb_model planar.yaml
sed 's/restitution: 0.5}/restitution: 0.5, friction: -0.3}/' box.yaml >friction.yaml
refuse_simulate "negative friction on a spatial contact" "1" "friction.yaml:7: contact 'floor' has friction -0.3 (expected Coulomb's coefficient >= 0)" $mb -mb_model friction.yaml
sed 's/against: ground/against: box/' box.yaml >own.yaml
refuse_simulate "a contact against its own body's plane" "1 2" "own.yaml:7: contact 'floor' puts a point of 'box' against its own plane (name two bodies)" $mb -mb_model own.yaml
refuse_simulate "dim: 4" "1" "dim.yaml:1: 'dim: 4.' (expected 2, planar, the default, or 3, spatial)" $mb -mb_model dim.yaml
exit $fail
