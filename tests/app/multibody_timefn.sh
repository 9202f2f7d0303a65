#!/usr/bin/env bash
# Time functions and joint outputs of a multibody model (docs/multibody.md, "Prescribed motions and time-varying loads";
# src/system/mbtime.c, mbjoint.c), issue 23:
# (a) a load's factor given by a formula, value + speed t + amplitude sin(frequency t + phase): a free rotor (planar
#     J = 0.05 kg m^2, spatial about its principal axis z) from w0 = 1 rad/s under the torque 0.2 (1 + 0.5 sin(10 t + 0.3))
#     N m, against theta = w0 t + (tau/J) (t^2/2 + 0.05 t cos 0.3 - 0.005 (sin(10 t + 0.3) - sin 0.3)), nsgalpha rho_inf = 1
#     at h = 1e-3, 5e-4 (second order);
# (b) a run that starts at t0 = 0.3 s (-step_start_time): a driver's motion is a function of absolute time. The crank of
#     multibody_drivers driven at 0.5 sin(20 t), with a pendulum hung from its tip, started at t0 from the state of the run
#     from 0 at t0 (its records at t0, 17 digits): the crank's angle 0.5 sin(20 t) (exact, GGL) and its `prescribed` output
#     (the coordinate 0.5 sin(20 t) and the rate 10 cos(20 t)) in both runs; the driving torque and the pendulum's angle
#     against the run from 0 within the scheme's error (measured 1.2e-5 N m of 0.43, 5.5e-9 rad), from the first step (the
#     consistent initial acceleration at t0 takes phi''(t0), not phi''(0));
# (c) a prismatic joint's `joint_slide`: a bead on a rod turned by a driver at w = 2 rad/s about its end (no gravity), the
#     bead free along it from r0 = 0.1 m at rest on the rod: its slide r0 cosh(w t) and rate r0 w sinh(w t), planar and
#     spatial, nsgalpha at h = 1e-3, 5e-4 (second order), and the spatial driver's `prescribed` output and joint_angle
#     against 2 t; a driven prismatic joint's slide and its `prescribed` output
#     against s0 + 0.2 t + 0.05 sin(10 t) (the slider of multibody_motion (e), started at t0 = 0.25);
# (d) bad input: initial velocities that give phi'(0), not phi'(t0); a `joint_slide` of a revolute joint; `prescribed` of an
#     undriven joint; an unknown output type; a formula key misspelt; an amplitude without frequency in a load's formula.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
cat >rotor.yaml <<'YAML'
bodies:
  - {name: rotor, mass: 1, inertia: 0.05, position: [0, 0], angular_velocity: 1}
loads:
  - {name: spin, body: rotor, torque: 0.2, factor: {value: 1, amplitude: 0.5, frequency: 10, phase: 0.3}}
outputs:
  - {name: theta, type: angle, body: rotor}
YAML
cat >rotor3.yaml <<'YAML'
dim: 3
bodies:
  - {name: rotor, mass: 1, inertia: [0.08, 0.07, 0.05], position: [0, 0, 0], angular_velocity: [0, 0, 1]}
joints:
  - {name: hinge, type: revolute, body1: ground, body2: rotor, axis: [0, 0, 1]}
loads:
  - {name: spin, body: rotor, torque: [0, 0, 0.2], factor: {value: 1, amplitude: 0.5, frequency: 10, phase: 0.3}}
outputs:
  - {name: theta, type: joint_angle, joint: hinge}
YAML
cat >bead.yaml <<'YAML'
bodies:
  - {name: rod, mass: 1, inertia: 0.1, position: [0, 0], angular_velocity: 2}
  - {name: bead, mass: 0.3, inertia: 1e-3, position: [0.1, 0], velocity: [0, 0.2], angular_velocity: 2}
joints:
  - {name: pivot, type: revolute, body1: ground, body2: rod}
  - {name: motor, type: driver, body1: ground, body2: rod, speed: 2}
  - {name: slot, type: prismatic, body1: rod, body2: bead, point2: [0, 0], axis: [1, 0]}
outputs:
  - {name: r, type: joint_slide, joint: slot}
YAML
cat >bead3.yaml <<'YAML'
dim: 3
bodies:
  - {name: rod, mass: 1, inertia: [0.1, 0.1, 0.1], position: [0, 0, 0], angular_velocity: [0, 0, 2]}
  - {name: bead, mass: 0.3, inertia: [1e-3, 1e-3, 1e-3], position: [0.1, 0, 0], velocity: [0, 0.2, 0], angular_velocity: [0, 0, 2]}
joints:
  - {name: motor, type: driver, body1: ground, body2: rod, axis: [0, 0, 1], speed: 2}
  - {name: slot, type: prismatic, body1: rod, body2: bead, axis: [1, 0, 0]}
outputs:
  - {name: r, type: joint_slide, joint: slot}
  - {name: plan, type: prescribed, joint: motor}
  - {name: th, type: joint_angle, joint: motor}
YAML
cat >slider.yaml <<'YAML'
gravity: [0, -9.81]
bodies:
  - {name: s, mass: 2, inertia: 0.01, position: [0.3, 0.1], velocity: [-0.1760183209088224, -0.09615924697061302]}
joints:
  - {name: guide, type: prismatic, body1: ground, point1: [0.3, 0.1], body2: s, axis: [0.8775825618903725, 0.47942553860420295],
     motion: {speed: 0.2, amplitude: 0.05, frequency: 10}}
outputs:
  - {name: slide, type: joint_slide, joint: guide}
  - {name: plan, type: prescribed, joint: guide}
YAML
# (b) the run from 0: the crank (l = 0.153 m) and a pendulum (0.05 kg, 0.2 m, pinned at its end to the crank's tip)
$py - <<'PY' || exit 1
import numpy as np

l, L = 0.153, 0.2


def model(name, t0, pend):
    th, w = 0.5 * np.sin(20 * t0), 10 * np.cos(20 * t0)
    c = 0.5 * l * np.array([np.cos(th), np.sin(th)])
    v = 0.5 * l * w * np.array([-np.sin(th), np.cos(th)])
    body = "  - {name: crank, mass: 0.038, inertia: 7.4e-5, position: [%r, %r], angle: %r, velocity: [%r, %r], angular_velocity: %r}\n" % (
        c[0], c[1], th, v[0], v[1], w)
    with open(name, "w") as f:
        f.write("gravity: [0, -9.81]\nbodies:\n" + body + "  - {name: pend, mass: 0.05, inertia: 1.6e-4, %s}\n" % pend)
        f.write("""joints:
  - {name: pivot, type: revolute, body1: ground, point1: [0, 0], body2: crank, point2: [-0.0765, 0]}
  - {name: motor, type: driver, body1: ground, body2: crank, motion: {amplitude: 0.5, frequency: 20}}
  - {name: hang, type: revolute, body1: crank, point1: [0.0765, 0], body2: pend, point2: [0.1, 0]}
outputs:
  - {name: theta, type: joint_angle, joint: motor}
  - {name: plan, type: prescribed, joint: motor}
  - {name: T, type: joint_force, joint: motor}
  - {name: p, type: point, body: pend}
  - {name: phi, type: angle, body: pend}
""")


# the pendulum hangs from the tip (l, 0) straight down at rest: its centre L/2 below, its x axis up (angle pi/2), the tip's
# velocity l w0 (0, 1) at t = 0 (w0 = 10)
model("crank0.yaml", 0.0, "position: [%r, %r], angle: %r, velocity: [0, %r], angular_velocity: 0" % (l, -L / 2, np.pi / 2, l * 10.0))
PY
mb="-system_type multibody -step_type nsgalpha -step_rho_inf 1"
for h in 1e-3 5e-4; do
  must "(a) planar rotor h = $h" mpi 60 1 simulate $mb -mb_model rotor.yaml -step_dt $h -step_end_time 1 -results_file rotor_$h.h5
  must "(a) spatial rotor h = $h" mpi 60 1 simulate $mb -mb_model rotor3.yaml -step_dt $h -step_end_time 1 -results_file rotor3_$h.h5
  must "(c) planar bead h = $h" mpi 60 1 simulate $mb -mb_model bead.yaml -step_dt $h -step_end_time 1 -results_file bead_$h.h5
  must "(c) spatial bead h = $h" mpi 60 1 simulate $mb -mb_model bead3.yaml -step_dt $h -step_end_time 1 -results_file bead3_$h.h5
done
must "(c) driven slider from t0 = 0.25" mpi 60 1 simulate $mb -mb_model slider.yaml -step_dt 1e-3 -step_start_time 0.25 -step_end_time 0.75 \
  -results_file slider.h5
must "(b) the crank from 0" mpi 60 1 simulate $mb -mb_model crank0.yaml -step_dt 1e-3 -step_end_time 0.6 -results_file crank0.h5
# (b) the run from t0 = 0.3: the state of the run from 0 at t0
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || exit 1
import numpy as np
from mbcheck import case

t, o, _, _ = case("crank0.h5")
k = int(np.argmin(np.abs(t - 0.3)))
assert abs(t[k] - 0.3) < 1e-12
s = open("crank0.yaml").read()
import re

l = 0.153
th, w = 0.5 * np.sin(6.0), 10 * np.cos(6.0)
c = 0.5 * l * np.array([np.cos(th), np.sin(th)])
v = 0.5 * l * w * np.array([-np.sin(th), np.cos(th)])
crank = "  - {name: crank, mass: 0.038, inertia: 7.4e-5, position: [%r, %r], angle: %r, velocity: [%r, %r], angular_velocity: %r}\n" % (
    c[0], c[1], th, v[0], v[1], w)
pend = "  - {name: pend, mass: 0.05, inertia: 1.6e-4, position: [%r, %r], angle: %r, velocity: [%r, %r], angular_velocity: %r}\n" % (
    o["p_x"][k], o["p_y"][k], o["phi"][k], o["p_vx"][k], o["p_vy"][k], o["phi_rate"][k])
lines = s.splitlines(True)
i = [n for n, x in enumerate(lines) if "name: crank," in x][0]
lines[i], lines[i + 1] = crank, pend
open("crank03.yaml", "w").write("".join(lines))
# initial velocities at phi'(0) = 10 rad/s rather than phi'(t0): refused at t0
bad = crank.replace("angular_velocity: %r}" % w, "angular_velocity: 10.0}").replace("velocity: [%r, %r]" % (v[0], v[1]),
                                                                                   "velocity: [%r, %r]" % tuple(0.5 * l * 10 * np.array([-np.sin(th), np.cos(th)])))
lines[i] = bad
lines = [x for x in lines if "pend" not in x and "name: p," not in x and "name: phi," not in x]  # the crank alone
open("crank03_rate.yaml", "w").write("".join(lines))
PY
must "(b) the crank from t0 = 0.3" mpi 60 1 simulate $mb -mb_model crank03.yaml -step_dt 1e-3 -step_start_time 0.3 -step_end_time 0.6 \
  -results_file crank03.h5
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import numpy as np

import mbcheck
from mbcheck import case, check

# (a) theta = w0 t + (tau/J) (t^2/2 + 0.05 t cos 0.3 - 0.005 (sin(10 t + 0.3) - sin 0.3))
err = {}
for dim in ("", "3"):
    for h in ("1e-3", "5e-4"):
        t, o, _, _ = case("rotor%s_%s.h5" % (dim, h))
        ex = t + 0.2 / 0.05 * (t * t / 2 + 0.05 * t * np.cos(0.3) - 0.005 * (np.sin(10 * t + 0.3) - np.sin(0.3)))
        err[dim, h] = (np.abs(o["theta"] - ex).max(), t[-1])
    o2 = np.log2(err[dim, "1e-3"][0] / err[dim, "5e-4"][0])
    tol = 3e-6 if dim else 1e-6  # the quaternion's scheme error is larger than the angle's
    check(err[dim, "5e-4"][0] < tol and 1.8 < o2 < 2.2 and err[dim, "5e-4"][1] > 0.999,
          "(a) %s rotor under the torque 0.2 (1 + 0.5 sin(10 t + 0.3)) N m (a load's factor by a formula): the angle %.2e, %.2e rad from the exact "
          "one at h = 1e-3, 5e-4 (< %.0e; order %.2f, 1.8 to 2.2)" % ("spatial" if dim else "planar", err[dim, "1e-3"][0], err[dim, "5e-4"][0], tol, o2))
# (b)
m, J, l, g = 0.038, 7.4e-5, 0.153, 9.81
tA, A, _, _ = case("crank0.h5")
tB, B, _, _ = case("crank03.h5")
for name, t, o in (("from 0", tA, A), ("from t0 = 0.3", tB, B)):
    th = 0.5 * np.sin(20 * t)
    e = max(np.abs(o["theta"] - th).max(), np.abs(o["plan"] - th).max(), np.abs(o["plan_rate"] - 10 * np.cos(20 * t)).max())
    check(e < 1e-12 and t[0] == (0 if name == "from 0" else 0.3),
          "(b) the driven crank %s: its angle, the prescribed output and its rate against 0.5 sin(20 t), 10 cos(20 t) (absolute time): %.2e (< 1e-12)"
          % (name, e))
k = tA >= 0.3 - 1e-9
assert np.abs(tA[k] - tB).max() < 1e-12
dT = np.abs(A["T"][k] - B["T"]).max()
dphi = np.abs(A["phi"][k] - B["phi"]).max()
check(dT < 1e-4 and dphi < 1e-5,
      "(b) the run from t0 = 0.3 (the state of the run from 0 there) against the run from 0 over [0.3, 0.6]: the driving torque %.2e N m "
      "(< 1e-4, of %.3f), the pendulum's angle %.2e rad (< 1e-5): the scheme's error (its acceleration restarts at t0)" % (dT, np.abs(A["T"]).max(), dphi))
# against the first levels' torque of the run from 0 with its acceleration at phi''(0) = 0: the first torque of the run from t0
check(abs(B["T"][0] - A["T"][k][0]) < 1e-4,
      "(b) the first torque of the run from t0, %.6f N m, the run from 0 at t0 %.6f: %.2e (< 1e-4: the consistent initial acceleration at t0 "
      "takes phi''(t0) = -200 sin 6 = 55.9 rad/s^2)" % (B["T"][0], A["T"][k][0], abs(B["T"][0] - A["T"][k][0])))
# (c) the bead: r0 cosh(w t)
eb = {}
for dim in ("", "3"):
    for h in ("1e-3", "5e-4"):
        t, o, _, _ = case("bead%s_%s.h5" % (dim, h))
        eb[dim, h] = max(np.abs(o["r"] - 0.1 * np.cosh(2 * t)).max(), np.abs(o["r_rate"] - 0.2 * np.sinh(2 * t)).max() / 2)
    o2 = np.log2(eb[dim, "1e-3"] / eb[dim, "5e-4"])
    check(eb[dim, "5e-4"] < 1e-6 and 1.8 < o2 < 2.2,
          "(c) %s bead on a turning rod: the slide and half its rate against r0 cosh(w t), r0 w sinh(w t) (to %.3f m): %.2e, %.2e at h = 1e-3, 5e-4 "
          "(< 1e-6; order %.2f)" % ("spatial" if dim else "planar", 0.1 * np.cosh(2), eb[dim, "1e-3"], eb[dim, "5e-4"], o2))
t, o, _, _ = case("bead3_1e-3.h5")
e = max(np.abs(o["plan"] - 2 * t).max(), np.abs(o["plan_rate"] - 2).max(), np.abs(o["th"] - (np.mod(2 * t + 2 * np.pi, 4 * np.pi) - 2 * np.pi)).max())
check(e < 1e-12, "(c) the spatial driver's prescribed output against 2 t, its rate 2 rad/s, and its joint_angle (wrapped to (-2 pi, 2 pi]): %.2e (< 1e-12)" % e)
t, o, _, _ = case("slider.h5")
s = 0.2 * t + 0.05 * np.sin(10 * t) - (0.2 * 0.25 + 0.05 * np.sin(2.5))
sd = 0.2 + 0.5 * np.cos(10 * t)
e = max(np.abs(o["slide"] - s).max(), np.abs(o["plan"] - s).max(), np.abs(o["slide_rate"] - sd).max(), np.abs(o["plan_rate"] - sd).max())
check(e < 1e-12 and abs(t[0] - 0.25) < 1e-15,
      "(c) a driven prismatic joint started at t0 = 0.25: its slide and prescribed output against s0 + phi(t) - phi(t0), and their rates: %.2e (< 1e-12)" % e)
raise SystemExit(mbcheck.bad)
PY
# (d)
refuse_simulate "velocities at phi'(0), not phi'(t0)" "1 2" "crank03_rate.yaml:6: the initial velocities violate joint 'motor': .*prescribed rate at t = 0.3 is 9.6017" \
  $mb -mb_model crank03_rate.yaml -step_dt 1e-3 -step_start_time 0.3 -step_end_time 0.4
sed -e 's/type: joint_slide, joint: slot/type: joint_slide, joint: pivot/' bead.yaml >slide_rev.yaml
refuse_simulate "a joint_slide of a revolute joint" "1" "slide_rev.yaml:9: output 'r': a joint_slide is a prismatic joint's" $mb -mb_model slide_rev.yaml \
  -step_dt 1e-3 -step_end_time 0.01
sed -e 's/type: joint_slide, joint: slot/type: prescribed, joint: slot/' bead.yaml >plan_free.yaml
refuse_simulate "prescribed of an undriven joint" "1" "plan_free.yaml:9: output 'r': 'prescribed' is a driven joint's" $mb -mb_model plan_free.yaml \
  -step_dt 1e-3 -step_end_time 0.01
sed -e 's/type: joint_slide, joint: slot/type: slider, joint: slot/' bead.yaml >badtype.yaml
refuse_simulate "an unknown output type" "1 2" "badtype.yaml:9: output 'r' has the type 'slider' (expected point, angle" $mb -mb_model badtype.yaml \
  -step_dt 1e-3 -step_end_time 0.01
sed -e 's/frequency: 10, phase/frequency: 10, phse/' rotor.yaml >phse.yaml
refuse_simulate "a formula key misspelt" "1" "phse.yaml:4: unknown key 'phse' in a formula" $mb -mb_model phse.yaml -step_dt 1e-3 -step_end_time 0.01
sed -e 's/, frequency: 10//' rotor.yaml >nofreq.yaml
refuse_simulate "an amplitude without frequency in a load's formula" "1" "nofreq.yaml:4: load 'spin': 'amplitude' needs 'frequency'" $mb \
  -mb_model nofreq.yaml -step_dt 1e-3 -step_end_time 0.01
exit $fail
