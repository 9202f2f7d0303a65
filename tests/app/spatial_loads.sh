#!/usr/bin/env bash
# Loads on spatial rigid bodies (`loads:` in a model with dim: 3; docs/multibody.md "Spatial bodies"): a constant force
# (fixed frame, at the centre) and a constant torque in the body's frame (it turns with the body), issue 23 §2.
# (a) a free asymmetric body (J = 0.1, 0.2, 0.3 kg m^2, omega0 = (0.5, 3, 0.2) rad/s) under the force (1, -2, 0.5) N and
#     the body-frame torque (0.02, -0.05, 0.03) N m, no gravity, nsgalpha rho_inf = 1 at h = 1e-3 and 5e-4 over 1 s,
#     against SciPy's integration of Euler's equations J w' + w x J w = tau with the quaternion's kinematics (DOP853, rtol
#     1e-12): quaternion and angular velocity second order in h; the centre r0 + v0 t + F t^2 / (2 m) to round-off
#     (nsgalpha is exact on a constant force); the energy output against the reference's kinetic energy; vicms's energy
#     balance (the loads' work) within 1e-4 %; Moreau-Jean theta = 1/2 within 2e-6 (quaternion) and 1e-5 rad/s of the
#     reference; 2 ranks bitwise. Measured: 4.6e-7, 1.2e-7 (quaternion), 1.4e-6, 3.6e-7 rad/s; centre 3e-14 m; energy
#     1.4e-7, 3.5e-8 relative; balance 1.9e-5 %; Moreau-Jean 7.1e-7, 3.0e-6 rad/s (2.0e-3, 1.05e-2 rad/s with the norm
#     rows' impulse at the step's end: its loss of spin).
# (b) a body-frame torque about a principal axis from rest: omega = tau / J3 t about the body's axis, the angle
#     tau t^2 / (2 J3) (the quaternion p0 (x) (cos(phi/2), 0, 0, sin(phi/2))), h = 1e-3: 5.8e-11, 3.1e-10 rad/s.
# (e) a spatial driver (a revolute joint held at the angle speed t): a rod (1.2 kg, its centre 0.4 m below the pivot)
#     turned about the fixed x axis at 2 rad/s under gravity over 4 s (8 rad: through the quaternion angle's wrap at
#     2 pi), nsgalpha rho_inf = 1, h = 1e-3 and 5e-4: the joint's angle 2t (modulo 4 pi), the driving torque m g l sin(2t),
#     the pivot's reaction m (a - g) with a = -omega^2 r. Measured: the angle 2.7e-15 rad (GGL); the torque 2.6e-7,
#     6.6e-8 N m (of 4.71; second order), the reaction 1.3e-6, 3.2e-7 N; Moreau-Jean theta = 1/2 (velocity level) 6.7e-7
#     rad, and its forces (the step's impulses / h: the mean force over the step) against the exact mean torque
#     m g l (cos(2 (t - h)) - cos(2 t)) / (2 h) and the reaction at the step's mean centre (r_n + r_{n+1})/2: 2.5e-6 N m,
#     1.4e-6 N (against the force at t_{n+1}: 4.7e-3 N m = h/2 times the torque's rate, 1.9e-3 N; 2.7e-3 N m before the
#     joint's spherical rows took their impulse at the step's midpoint, docs/multibody.md "Moreau-Jean's spin").
# (c) bad input: a spatial load's force with two components; a torque given as a number in a spatial model; a
#     joint_angle output of a spherical joint; a flexible body's node (node2) on a spatial joint (its bodies are rigid; the
#     key was ignored before).
# (d) a spatial revolute joint's angle (output joint_angle): a body (full orientation) hinged at its centre to the ground
#     along its principal axis e3 (the hinge's axis R0 e3 in the ground's frame, written with every digit), spinning at
#     3 rad/s about it and driven by the body-frame torque (0, 0, 0.06) N m: theta = 3 t + 0.1 t^2 through pi (to 4.75 rad
#     at 1.5 s), nsgalpha h = 1e-3 and 5e-4: 1.25e-6, 3.1e-7 rad, second order; the joint's force 0 (the body at the pivot).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
cat >loaded.yaml <<'YAML'
dim: 3
gravity: [0, 0, 0]
bodies:
  - {name: b, mass: 2, inertia: [0.1, 0.2, 0.3], position: [0, 0, 0], axis: [1, 1, 0], angle: 0.4,
     velocity: [0.1, 0, 0], angular_velocity: [0.5, 3, 0.2]}
loads:
  - {body: b, force: [1, -2, 0.5], torque: [0.02, -0.05, 0.03]}
outputs:
  - {name: q, type: orientation, body: b}
  - {name: w, type: angular_velocity, body: b}
  - {name: c, type: point, body: b}
  - {name: E, type: energy}
YAML
cat >spin.yaml <<'YAML'
dim: 3
gravity: [0, 0, 0]
bodies:
  - {name: b, mass: 1, inertia: [0.1, 0.2, 0.3], position: [0, 0, 0], axis: [1, 2, 3], angle: 0.7}
loads:
  - {body: b, torque: [0, 0, 0.06]}
outputs:
  - {name: q, type: orientation, body: b}
  - {name: w, type: angular_velocity, body: b}
YAML
# (d)'s model: the body's orientation about (1, 2, 3) by 0.7 rad, the hinge along R0 e3
$py - <<'PY'
import numpy as np
a, ang = np.array([1.0, 2.0, 3.0]) / np.sqrt(14), 0.7
K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
R = np.eye(3) + np.sin(ang) * K + (1 - np.cos(ang)) * K @ K
f = lambda x: "[" + ", ".join(repr(float(v)) for v in x) + "]"
open("hinge.yaml", "w").write("""dim: 3
gravity: [0, 0, 0]
bodies:
  - {name: b, mass: 1, inertia: [0.1, 0.2, 0.3], position: [0, 0, 0], axis: [1, 2, 3], angle: 0.7, angular_velocity: %s}
joints:
  - {name: hinge, type: revolute, body1: ground, point1: [0, 0, 0], body2: b, point2: [0, 0, 0], axis: %s}
loads:
  - {body: b, torque: [0, 0, 0.06]}
outputs:
  - {name: theta, type: joint_angle, joint: hinge}
  - {name: F, type: joint_force, joint: hinge}
""" % (f(3 * R[:, 2]), f(R[:, 2])))
PY
cat >driven.yaml <<'YAML'
dim: 3
gravity: [0, 0, -9.81]
bodies:
  - {name: rod, mass: 1.2, inertia: [0.064, 0.07, 0.004], position: [0, 0, -0.4], velocity: [0, 0.8, 0], angular_velocity: [2, 0, 0]}
joints:
  - {name: motor, type: driver, body1: ground, point1: [0, 0, 0], body2: rod, point2: [0, 0, 0.4], axis: [1, 0, 0], speed: 2}
outputs:
  - {name: theta, type: joint_angle, joint: motor}
  - {name: F, type: joint_force, joint: motor}
  - {name: c, type: point, body: rod}
YAML
mb="-system_type multibody -step_end_time 1"
must "nsgalpha h = 1e-3" mpi 60 1 simulate $mb -mb_model loaded.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt 1e-3 -results_file n1.h5
balance=$(grep -o "Energy balance error[^%]*%" <<<"$LAST")
must "nsgalpha h = 5e-4" mpi 60 1 simulate $mb -mb_model loaded.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt 5e-4 -results_file n2.h5
must "nsgalpha h = 1e-3, 2 ranks" mpi 60 2 simulate $mb -mb_model loaded.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt 1e-3 \
  -results_file n1_2.h5
must "moreau h = 1e-3" mpi 60 1 simulate $mb -mb_model loaded.yaml -step_type moreau -step_moreau_variant theta -step_theta 0.5 -step_dt 1e-3 \
  -results_file m1.h5
must "spin from rest" mpi 60 1 simulate $mb -mb_model spin.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt 1e-3 -results_file spin.h5
for h in 1e-3 5e-4; do
  must "hinge h = $h" mpi 60 1 simulate -system_type multibody -mb_model hinge.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt $h \
    -step_end_time 1.5 -results_file hinge_$h.h5
done
for h in 1e-3 5e-4; do
  must "driver h = $h" mpi 60 1 simulate -system_type multibody -mb_model driven.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt $h \
    -step_end_time 4 -results_file driven_$h.h5
done
must "driver, moreau" mpi 60 1 simulate -system_type multibody -mb_model driven.yaml -step_type moreau -step_moreau_variant theta -step_theta 0.5 \
  -step_dt 1e-3 -step_end_time 4 -results_file driven_m.h5
$py "$VICMS_SOURCE/tests/app/compare_results.py" n1.h5 n1_2.h5 --label "loaded body, 2 ranks against 1" || fail=1
BALANCE="$balance" PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import os
import re

import numpy as np
from scipy.integrate import solve_ivp

import mbcheck
from mbcheck import case, check, qmul, rot

J = np.diag([0.1, 0.2, 0.3])
tau = np.array([0.02, -0.05, 0.03])
m, F, v0 = 2.0, np.array([1, -2, 0.5]), np.array([0.1, 0, 0])


def reference(t, p0, w0_fixed, Jb, torque):
    """Euler's equations in the body's frame with a body-frame torque, p' = p (x) (0, w_b) / 2; w in the fixed frame."""
    Ji = np.linalg.inv(Jb)

    def rhs(_, y):
        p, w = y[:4], y[4:]
        return np.concatenate([0.5 * qmul(p, np.concatenate([[0], w])), Ji @ (torque - np.cross(w, Jb @ w))])

    s = solve_ivp(rhs, (t[0], t[-1]), np.concatenate([p0, rot(p0).T @ w0_fixed]), method="DOP853", rtol=1e-12, atol=1e-14, t_eval=t)
    return s.y[:4].T, np.array([rot(p) @ w for p, w in zip(s.y[:4].T, s.y[4:].T)]), s.y[4:].T


def run(name):
    t, o, _, _ = case(name)
    return t, np.array([o["q_" + s] for s in ("e0", "e1", "e2", "e3")]).T, np.array([o["w_" + s] for s in "xyz"]).T, o


# (a)
err = {}
for name in ("n1.h5", "n2.h5", "m1.h5"):
    t, q, w, o = run(name)
    pr, wr, wb = reference(t, q[0], w[0], J, tau)
    err[name] = (np.abs(q - pr).max(), np.abs(w - wr).max())
    if name == "m1.h5":
        check(err[name][0] < 2e-6 and err[name][1] < 1e-5, "moreau theta = 1/2, h = 1e-3: quaternion %.2e (2e-6), omega %.2e rad/s (1e-5) from the "
              "reference (1.05e-2 rad/s with the norm row's impulse at the step's end, docs/multibody.md)" % err[name])
        continue
    c = np.array([o["c_" + s] for s in "xyz"]).T
    cr = np.outer(t, v0) + np.outer(t ** 2, F / (2 * m))
    check(np.abs(c - cr).max() < 1e-12, "%s: the centre against r0 + v0 t + F t^2 / (2 m): %.2e m (< 1e-12)" % (name, np.abs(c - cr).max()))
    Er = 0.5 * m * ((v0 + np.outer(t, F / m)) ** 2).sum(1) + 0.5 * np.einsum("ij,jk,ik->i", wb, J, wb)
    dE = np.abs(o["E"] - Er).max() / Er.max()
    check(dE < (4e-5 if name == "n1.h5" else 1e-5), "%s: the energy against the reference's kinetic energy: %.2e relative (grows %.2f to %.2f J)"
          % (name, dE, Er[0], Er[-1]))
order = [np.log2(a / b) for a, b in zip(err["n1.h5"], err["n2.h5"])]
check(err["n2.h5"][0] < 1e-5 and err["n2.h5"][1] < 1e-4 and min(order) > 1.8,
      "nsgalpha against Euler's equations with the body-frame torque: quaternion %.2e, %.2e; omega %.2e, %.2e rad/s at h = 1e-3, 5e-4 "
      "(< 1e-5, 1e-4 at 5e-4); order %.2f, %.2f (> 1.8)" % (err["n1.h5"][0], err["n2.h5"][0], err["n1.h5"][1], err["n2.h5"][1], *order))
b = re.search(r"([0-9.e+-]+) %", os.environ["BALANCE"])
check(b is not None and float(b.group(1)) < 1e-4, "nsgalpha h = 1e-3: vicms's energy balance (the loads' work counted) %s (< 1e-4 %%)"
      % (os.environ["BALANCE"] or "not printed"))
# (b)
t, q, w, o = run("spin.h5")
phi = 0.06 / 0.3 * t ** 2 / 2
pr = np.array([qmul(q[0], np.array([np.cos(f / 2), 0, 0, np.sin(f / 2)])) for f in phi])
wr = np.array([rot(p) @ np.array([0, 0, 0.06 / 0.3 * s]) for p, s in zip(pr, t)])
e = (np.abs(q - pr).max(), np.abs(w - wr).max())
check(max(e) < 1e-9, "a torque about the body's axis from rest, h = 1e-3: quaternion %.2e, omega %.2e rad/s from the exact rotation (< 1e-9; "
      "the angle is quadratic in t, the quaternion is not: the scheme's O(h^2))" % e)
# (d)
e = {}
for h in ("1e-3", "5e-4"):
    t, o, _, _ = case("hinge_%s.h5" % h)
    e[h] = np.abs(o["theta"] - (3 * t + 0.1 * t ** 2)).max()
    F = max(np.abs(o["F_" + s]).max() for s in "xyz")
check(e["5e-4"] < 1e-6 and np.log2(e["1e-3"] / e["5e-4"]) > 1.8 and o["theta"][-1] > 4.7,
      "a spatial revolute joint's angle against 3 t + 0.1 t^2 (to %.2f rad at 1.5 s): %.2e, %.2e at h = 1e-3, 5e-4 (< 1e-6; order %.2f > 1.8)"
      % (o["theta"][-1], e["1e-3"], e["5e-4"], np.log2(e["1e-3"] / e["5e-4"])))
check(F < 1e-9, "the hinge's reaction (the torque along its axis, the body at the pivot): %.2e N (< 1e-9)" % F)
# (e)
m, l, om, g = 1.2, 0.4, 2.0, 9.81
for name, tol in (("driven_1e-3.h5", (1e-12, 1e-6, 5e-6)), ("driven_5e-4.h5", (1e-12, 2.5e-7, 1.25e-6)), ("driven_m.h5", (2e-6, 1e-5, 1e-5))):
    t, o, _, _ = case(name)
    th = np.mod(om * t + 2 * np.pi, 4 * np.pi) - 2 * np.pi  # the output's range (-2 pi, 2 pi]
    ea = np.abs(np.mod(o["theta"] - th + 2 * np.pi, 4 * np.pi) - 2 * np.pi).max()
    skip = t > 0.05  # the first steps: the multipliers' start
    r = np.array([o["c_x"], o["c_y"], o["c_z"]]).T
    if name == "driven_m.h5":  # Moreau-Jean's force is the step's impulse / h: the mean over [t - h, t]
        hm = t[1] - t[0]
        tau = m * g * l * (np.cos(om * (t - hm)) - np.cos(om * t)) / (om * hm)
        r = np.vstack([r[:1], (r[1:] + r[:-1]) / 2])
    else:
        tau = m * g * l * np.sin(om * t)
    et = np.abs(o["F_torque"] - tau)[skip].max()
    Fr = m * (-om ** 2 * r - np.array([0, 0, -g]))
    ef = np.abs(np.array([o["F_x"], o["F_y"], o["F_z"]]).T - Fr)[skip].max()
    check(ea < tol[0] and et < tol[1] and ef < tol[2] and t[-1] > 3.99,
          "%s: a spatial driver at 2 rad/s under gravity over 4 s: the angle %.2e rad (< %.0e), the torque %.2e N m (< %.0e; it reaches %.2f), "
          "the pivot's reaction %.2e N (< %.0e)" % (name, ea, tol[0], et, tol[1], m * g * l, ef, tol[2]))
raise SystemExit(mbcheck.bad)
PY
# (c)
sed -e 's/force: \[1, -2, 0.5\]/force: [1, -2]/' loaded.yaml >force2.yaml
refuse_simulate "a spatial load's force with two components" "1 2" "force2.yaml:7: 'force' must be a list of 3 numbers" $mb -mb_model force2.yaml \
  -step_type nsgalpha -step_dt 1e-3
sed -e 's/torque: \[0, 0, 0.06\]/torque: 0.06/' spin.yaml >torque1.yaml
refuse_simulate "a spatial torque given as a number" "1" "torque1.yaml:6: 'torque' must be a list of 3 numbers" $mb -mb_model torque1.yaml \
  -step_type nsgalpha -step_dt 1e-3
sed -e 's/type: revolute/type: spherical/' -e 's/, axis: \[[^]]*\]}/}/' hinge.yaml >sphangle.yaml
refuse_simulate "a joint_angle of a spherical joint" "1" "sphangle.yaml:10: output 'theta': a spatial joint_angle is a revolute or driver joint's" $mb \
  -mb_model sphangle.yaml -step_type nsgalpha -step_dt 1e-3
sed -e 's/point2: \[0, 0, 0.4\], axis/point2: [0, 0, 0.4], node2: n3, axis/' driven.yaml >node.yaml
refuse_simulate "a node on a spatial joint" "1" "node.yaml:6: 'node2' names a node of a flexible body's ROM, and 'rod' is not a flexible body" $mb \
  -mb_model node.yaml -step_type nsgalpha -step_dt 1e-3
exit $fail
