#!/usr/bin/env bash
# Spring-dampers of multibody models (`springs:`, docs/multibody.md "Springs"; src/system/mbspring.c), issue 23 §2.
# (a) a mass on a damped spring along an oblique line from a ground point (planar: e = (0.6, 0.8); spatial: e = (2, -1, 2)/3),
#     no gravity, m = 2 kg, k = 50 N/m, c = 2 N s/m (zeta = 0.1), L0 = 0.8 m, stretched 0.2 m from rest, over 2 s: the
#     centre against the damped oscillator's l(t) along e, and the spring_force output against k (l - L0) + c dl/dt;
#     nsgalpha rho_inf = 1 and Moreau-Jean theta = 1/2 at h = 1e-3, 5e-4, second order; vicms's energy balance (the
#     damper's work as external work) small.
# (b) the elastic pendulum (planar, gravity, no damping: a point mass on a spring of free length 1 m from a ground pivot,
#     k = 60 N/m, m = 1 kg, started off the vertical): against SciPy's integration of its Lagrange equations in polar
#     coordinates (r, theta), nsgalpha rho_inf = 1 at h = 1e-3, 5e-4 (second order); the energy output (spring + gravity
#     + kinetic) kept to the scheme's O(h^2).
# (c) a spatial rigid body (full orientation, spinning) on a damped spring attached off its centre, under gravity: against
#     SciPy's Newton-Euler equations with the quaternion's kinematics (the spring's force at the point, its moment about the
#     centre), nsgalpha rho_inf = 1 at h = 1e-3, 5e-4 (second order); 2 ranks bitwise equal to 1.
# (d) bad input: a negative stiffness, a negative damping, a spring naming a missing body, a zero-length spring at the
#     start, a node of a rigid body on a spring (flexible bodies' nodes: multibody_flexible_points.sh), a spring_force output naming a missing spring, a spring whose points meet
#     during the run (refused mid-run, no hang on 2 ranks).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
cat >osc2.yaml <<'YAML'
gravity: [0, 0]
bodies:
  - {name: m, mass: 2, inertia: 0.1, position: [0.7, 1.0]}
springs:
  - {name: s, body1: ground, point1: [0.1, 0.2], body2: m, point2: [0, 0], stiffness: 50, damping: 2, length: 0.8}
outputs:
  - {name: c, type: point, body: m}
  - {name: N, type: spring_force, spring: s}
YAML
cat >osc3.yaml <<'YAML'
dim: 3
gravity: [0, 0, 0]
bodies:
  - {name: m, mass: 2, inertia: [0.1, 0.2, 0.3], position: [0.76666666666666667, -0.13333333333333333, 0.96666666666666667], axis: [1, 1, 0], angle: 0.3}
springs:
  - {name: s, body1: ground, point1: [0.1, 0.2, 0.3], body2: m, point2: [0, 0, 0], stiffness: 50, damping: 2, length: 0.8}
outputs:
  - {name: c, type: point, body: m}
  - {name: N, type: spring_force, spring: s}
YAML
cat >pend.yaml <<'YAML'
gravity: [0, -9.81]
bodies:
  - {name: bob, mass: 1, inertia: 0.01, position: [0.5, -1.0]}
springs:
  - {name: s, body1: ground, point1: [0, 0], body2: bob, point2: [0, 0], stiffness: 60, length: 1}
outputs:
  - {name: c, type: point, body: bob}
  - {name: E, type: energy}
YAML
cat >body.yaml <<'YAML'
dim: 3
gravity: [0, 0, -9.81]
bodies:
  - {name: b, mass: 1.5, inertia: [0.02, 0.05, 0.04], position: [0.2, 0.1, 0], axis: [1, 2, 3], angle: 0.4, velocity: [0.1, 0, 0.2],
     angular_velocity: [0.5, -1, 2]}
springs:
  - {name: s, body1: ground, point1: [0, 0, 0.5], body2: b, point2: [0.1, -0.05, 0.08], stiffness: 80, damping: 0.5, length: 0.3}
outputs:
  - {name: q, type: orientation, body: b}
  - {name: c, type: point, body: b}
  - {name: N, type: spring_force, spring: s}
YAML
mb="-system_type multibody"
nsg="-step_type nsgalpha -step_rho_inf 1"
mj="-step_type moreau -step_moreau_variant theta -step_theta 0.5"
declare -A BAL
for d in 2 3; do
  for h in 1e-3 5e-4; do
    must "mass on a spring, dim $d, nsgalpha h = $h" mpi 60 1 simulate $mb -mb_model osc$d.yaml $nsg -step_dt $h -step_end_time 2 -results_file osc${d}_n_$h.h5
    BAL[osc${d}_n_$h]=$(grep -o "Energy balance error[^%]*%" <<<"$LAST")
    must "mass on a spring, dim $d, moreau h = $h" mpi 60 1 simulate $mb -mb_model osc$d.yaml $mj -step_dt $h -step_end_time 2 -results_file osc${d}_m_$h.h5
    BAL[osc${d}_m_$h]=$(grep -o "Energy balance error[^%]*%" <<<"$LAST")
  done
done
for h in 1e-3 5e-4; do
  must "elastic pendulum h = $h" mpi 60 1 simulate $mb -mb_model pend.yaml $nsg -step_dt $h -step_end_time 3 -results_file pend_$h.h5
  BAL[pend_$h]=$(grep -o "Energy balance error[^%]*%" <<<"$LAST")
  must "spatial body on a spring h = $h" mpi 60 1 simulate $mb -mb_model body.yaml $nsg -step_dt $h -step_end_time 1 -results_file body_$h.h5
  BAL[body_$h]=$(grep -o "Energy balance error[^%]*%" <<<"$LAST")
done
must "spatial body on a spring, 2 ranks" mpi 60 2 simulate $mb -mb_model body.yaml $nsg -step_dt 1e-3 -step_end_time 1 -results_file body_2r.h5
$py "$VICMS_SOURCE/tests/app/compare_results.py" body_1e-3.h5 body_2r.h5 --label "spatial body on a spring, 2 ranks against 1" || fail=1
BALANCES="$(for k in "${!BAL[@]}"; do echo "$k ${BAL[$k]}"; done)" PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import os
import re

import numpy as np
from scipy.integrate import solve_ivp

import mbcheck
from mbcheck import check, qmul, rot


def case(name):
    return mbcheck.case(name)[:2]


bal = {}
for line in os.environ["BALANCES"].splitlines():
    m = re.match(r"(\S+) .*?([0-9.e+-]+) %", line)
    if m:
        bal[m.group(1)] = float(m.group(2))
# (a) the damped oscillator along e: l = L0 + A exp(-zeta w t) (cos wd t + zeta w / wd sin wd t)
m, k, c, L0, A = 2.0, 50.0, 2.0, 0.8, 0.2
w0, zeta = np.sqrt(k / m), c / (2 * np.sqrt(k * m))
wd = w0 * np.sqrt(1 - zeta ** 2)
for d, P0, e in ((2, np.array([0.1, 0.2]), np.array([0.6, 0.8])), (3, np.array([0.1, 0.2, 0.3]), np.array([2, -1, 2]) / 3)):
    for s, label in (("n", "nsgalpha rho_inf = 1"), ("m", "Moreau-Jean theta = 1/2")):
        err = {}
        for h in ("1e-3", "5e-4"):
            t, o = case("osc%d_%s_%s.h5" % (d, s, h))
            x = np.exp(-zeta * w0 * t) * (np.cos(wd * t) + zeta * w0 / wd * np.sin(wd * t))
            xd = -np.exp(-zeta * w0 * t) * w0 ** 2 / wd * np.sin(wd * t)
            ref = P0 + np.outer(L0 + A * x, e)
            cx = np.array([o["c_" + a] for a in "xyz"[:d]]).T
            err[h] = (np.abs(cx - ref).max(), np.abs(o["N"] - (k * A * x + c * A * xd)).max())
            check(bal.get("osc%d_%s_%s" % (d, s, h), 1) < 1e-3, "dim %d, %s, h = %s: vicms's energy balance %.2e %% (< 1e-3 %%: the damper's work "
                  "as external work)" % (d, label, h, bal.get("osc%d_%s_%s" % (d, s, h), np.nan)))
        order = [np.log2(a / b) for a, b in zip(err["1e-3"], err["5e-4"])]
        check(err["5e-4"][0] < 2e-6 and err["5e-4"][1] < 1e-4 and min(order) > 1.9,
              "dim %d, %s: a mass on a damped oblique spring against the damped oscillator: position %.2e, %.2e m, tension %.2e, %.2e N at "
              "h = 1e-3, 5e-4 (< 2e-6 m, 1e-4 N at 5e-4; order %.2f, %.2f > 1.9)" % (d, label, err["1e-3"][0], err["5e-4"][0], err["1e-3"][1],
                                                                                  err["5e-4"][1], *order))
# (b) the elastic pendulum: r'' = r th'^2 + g cos th - k/m (r - L0), th'' = -(g sin th + 2 r' th') / r (th from the downward vertical)
g, k, m, L0 = 9.81, 60.0, 1.0, 1.0


def pend(_, y):
    r, th, rd, thd = y
    return [rd, thd, r * thd ** 2 + g * np.cos(th) - k / m * (r - L0), -(g * np.sin(th) + 2 * rd * thd) / r]


err, dE = {}, {}
for h in ("1e-3", "5e-4"):
    t, o = case("pend_%s.h5" % h)
    s = solve_ivp(pend, (0, t[-1]), [np.hypot(0.5, 1.0), np.arctan2(0.5, 1.0), 0, 0], method="DOP853", rtol=1e-12, atol=1e-14, t_eval=t)
    r, th = s.y[0], s.y[1]
    err[h] = max(np.abs(o["c_x"] - r * np.sin(th)).max(), np.abs(o["c_y"] + r * np.cos(th)).max())
    dE[h] = np.abs(o["E"] - o["E"][0]).max() / np.abs(o["E"][0])
    check(bal.get("pend_" + h, 1) < 1e-3, "elastic pendulum h = %s: vicms's energy balance %.2e %% (< 1e-3 %%)" % (h, bal.get("pend_" + h, np.nan)))
order = np.log2(err["1e-3"] / err["5e-4"])
check(err["5e-4"] < 2e-5 and order > 1.9, "elastic pendulum against SciPy's polar Lagrange equations over 3 s: %.2e, %.2e m at h = 1e-3, 5e-4 "
      "(< 2e-5 at 5e-4, order %.2f > 1.9)" % (err["1e-3"], err["5e-4"], order))
check(dE["5e-4"] < 1e-5 and np.log2(dE["1e-3"] / dE["5e-4"]) > 1.8, "elastic pendulum: the energy output's largest change %.2e, %.2e relative "
      "(< 1e-5 at 5e-4, order %.2f > 1.8)" % (dE["1e-3"], dE["5e-4"], np.log2(dE["1e-3"] / dE["5e-4"])))
# (c) Newton-Euler: m r'' = F + m g, J w_b' + w_b x J w_b = s x R^T F, p' = p (x) (0, w_b) / 2, F = -N e on the point R s


m, J, k, c, L0 = 1.5, np.diag([0.02, 0.05, 0.04]), 80.0, 0.5, 0.3
G, s_b, P0 = np.array([0, 0, -9.81]), np.array([0.1, -0.05, 0.08]), np.array([0, 0, 0.5])


def spring(y):
    r, v, p, wb = y[:3], y[3:6], y[6:10], y[10:]
    R = rot(p)
    d = r + R @ s_b - P0
    l = np.linalg.norm(d)
    e = d / l
    N = k * (l - L0) + c * e @ (v + R @ np.cross(wb, s_b))
    return R, N, e


def body(_, y):
    R, N, e = spring(y)
    F = -N * e
    wb = y[10:]
    return np.concatenate([y[3:6], F / m + G, 0.5 * qmul(y[6:10], np.concatenate([[0], wb])),
                           np.linalg.solve(J, np.cross(s_b, R.T @ F) - np.cross(wb, J @ wb))])


ax, ang = np.array([1, 2, 3]) / np.sqrt(14), 0.4
p0 = np.concatenate([[np.cos(ang / 2)], np.sin(ang / 2) * ax])
y0 = np.concatenate([[0.2, 0.1, 0], [0.1, 0, 0.2], p0, rot(p0).T @ np.array([0.5, -1, 2])])
err = {}
for h in ("1e-3", "5e-4"):
    t, o = case("body_%s.h5" % h)
    s = solve_ivp(body, (0, t[-1]), y0, method="DOP853", rtol=1e-12, atol=1e-14, t_eval=t)
    Nr = np.array([spring(y)[1] for y in s.y.T])
    err[h] = (np.abs(np.array([o["c_" + a] for a in "xyz"]) - s.y[:3]).max(), np.abs(np.array([o["q_e%d" % i] for i in range(4)]) - s.y[6:10]).max(),
              np.abs(o["N"] - Nr).max())
order = [np.log2(a / b) for a, b in zip(err["1e-3"], err["5e-4"])]
b1, b2 = bal.get("body_1e-3", 1), bal.get("body_5e-4", 1)
check(b1 < 2e-3 and b1 / b2 > 3.5, "spatial body on a spring: vicms's energy balance %.2e, %.2e %% at h = 1e-3, 5e-4 (< 2e-3 %%, ratio %.2f > 3.5: "
      "the trapezoid of the quaternion mass's power, O(h^2); the spring's torque spins the body up)" % (b1, b2, b1 / b2))
check(err["5e-4"][0] < 1e-5 and err["5e-4"][1] < 1e-4 and err["5e-4"][2] < 1e-3 and min(order) > 1.8,
      "a spatial body on an off-centre damped spring against Newton-Euler over 1 s (N up to %.1f N): centre %.2e, %.2e m; quaternion %.2e, %.2e; "
      "tension %.2e, %.2e N at h = 1e-3, 5e-4 (< 1e-5, 1e-4, 1e-3 at 5e-4; order %.2f, %.2f, %.2f > 1.8)"
      % (np.abs(Nr).max(), err["1e-3"][0], err["5e-4"][0], err["1e-3"][1], err["5e-4"][1], err["1e-3"][2], err["5e-4"][2], *order))
raise SystemExit(mbcheck.bad)
PY
# (d)
sed -e 's/stiffness: 50/stiffness: -50/' osc2.yaml >negk.yaml
refuse_simulate "a negative stiffness" "1" "negk.yaml:5: spring 's' has stiffness -50. N/m" $mb -mb_model negk.yaml $nsg -step_dt 1e-3
sed -e 's/damping: 2/damping: -2/' osc3.yaml >negc.yaml
refuse_simulate "a negative damping" "1" "negc.yaml:6: spring 's' has stiffness 50. N/m and damping -2. N s/m" $mb -mb_model negc.yaml $nsg -step_dt 1e-3
sed -e 's/body2: m,/body2: mm,/' osc2.yaml >nobody.yaml
refuse_simulate "a spring naming a missing body" "1" "nobody.yaml:5: the spring's body2 names the body 'mm', which the model does not have" \
  $mb -mb_model nobody.yaml $nsg -step_dt 1e-3
sed -e 's/point1: \[0.1, 0.2\]/point1: [0.7, 1.0]/' osc2.yaml >zero.yaml
refuse_simulate "a zero-length spring" "1" "zero.yaml:5: spring 's' has its two points at one place" $mb -mb_model zero.yaml $nsg -step_dt 1e-3
sed -e 's/point2: \[0, 0\],/node2: n5,/' osc2.yaml >node.yaml
refuse_simulate "a node of a rigid body on a spring" "1" "node.yaml:5: 'node2' names a node of a flexible body's ROM, and 'm' is not a flexible body" \
  $mb -mb_model node.yaml \
  $nsg -step_dt 1e-3
sed -e 's/spring: s}/spring: t}/' osc2.yaml >noout.yaml
refuse_simulate "a spring_force of a missing spring" "1" "noout.yaml:8: output 'N' names the spring 't', which the model does not have" \
  $mb -mb_model noout.yaml $nsg -step_dt 1e-3
cat >meet.yaml <<'YAML'
bodies:
  - {name: m, mass: 1, inertia: 0.1, position: [1, 0], velocity: [-1, 0]}
springs:
  - {name: s, body1: ground, point1: [0, 0], body2: m, point2: [0, 0], stiffness: 0, length: 0}
YAML
refuse_simulate "a spring whose points meet" "1 2" "meet.yaml:4: spring 's' has its two points at one place" $mb -mb_model meet.yaml $nsg \
  -step_dt 0.125 -step_end_time 2
exit $fail
