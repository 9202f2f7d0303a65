#!/usr/bin/env bash
# Prescribed motions and loads given as tables (docs/multibody.md, "Prescribed motions and time-varying loads"): a driver's
# angle and a load's factor as the C2 cubic spline through (time, value) points (src/system/mbtime.c), against SciPy's
# CubicSpline of the same points and against the exact motions (issue 23 §2):
# (a) planar: the crank of multibody_drivers (m = 0.038 kg, J = 7.4e-5 kg m^2, l = 0.153 m, pinned at its end, gravity)
#     driven by 0.5 sin(20 t) sampled every 5 ms over 1 s (201 points, clamped by the exact end rates), inline and as a
#     CSV file (bitwise the same run): its angle the spline's (1e-12), the torque against (J + m l^2/4) S'' + m g (l/2) cos S
#     with nsgalpha rho_inf = 1 at h = 1e-3, 5e-4 (second order), and against the analytic driver's run within the
#     interpolation error; Moreau-Jean theta = 1/2 against the step's mean torque;
# (b) spatial: the rod of multibody_drivers turned by 2 t + 0.3 (1 - cos 5 t) sampled every 20 ms over 2 s (a CSV file,
#     not-a-knot ends, the initial angular velocity the spline's rate S'(0)): the angle the spline's, the torque against
#     J_p S'' + m g l sin S from t = 0 (S''(0) = 7.5 rad/s^2 enters the consistent initial acceleration), second order;
# (c) a torque ramped by a factor table on a free rotor (planar J = 0.05 kg m^2, spatial about a principal axis), the
#     table sampled from the smooth step s = 3 (t/T)^2 - 2 (t/T)^3 at six uneven times (not-a-knot reproduces a cubic): the
#     angle against w0 t + (tau/J)(t^4/(4 T^2) - t^5/(10 T^3)), nsgalpha at two steps (second order) and Moreau-Jean;
# (e) a slider on a prismatic joint driven along its axis (planar: 0.2 t + 0.05 sin(10 t) on an inclined axis; spatial: a
#     51-point table of 0.1 (1 - cos 8 t) along (1, 1, 1)), 0.5 s: its position s(t) a, the driving force m s'' - m g . a
#     (planar: order 2; spatial: exact to round-off, the table's pieces being cubics);
# (d) bad input, refused with the file and line: times not increasing, one point, a CSV line of three columns, a
#     missing CSV file, a run beyond the table, speed with a table, a load's factor too short,
#     initial velocities that miss a not-a-knot table's rate (the message gives the spline's).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_scipy
$py - <<'PY' || exit 1
import numpy as np
from scipy.interpolate import CubicSpline

t = np.linspace(0, 1, 201)
y = 0.5 * np.sin(20 * t)
pts = ", ".join("[%r, %r]" % (float(a), float(b)) for a, b in zip(t, y))
with open("crank_motion.csv", "w") as f:
    f.write("time, angle\n" + "".join("%r, %r\n" % (float(a), float(b)) for a, b in zip(t, y)))
head = """gravity: [0, -9.81]
bodies:
  - {name: crank, mass: 0.038, inertia: 7.4e-5, position: [0.0765, 0], angle: 0, velocity: [0, 0.765], angular_velocity: 10}
joints:
  - {name: pivot, type: revolute, body1: ground, point1: [0, 0], body2: crank, point2: [-0.0765, 0]}
"""
tail = """outputs:
  - {name: theta, type: joint_angle, joint: motor}
  - {name: T, type: joint_force, joint: motor}
"""
rates = "motion_rates: [10, %r]" % (10 * np.cos(20.0))
with open("crank_table.yaml", "w") as f:
    f.write(head + "  - {name: motor, type: driver, body1: ground, body2: crank, %s,\n     motion: [%s]}\n" % (rates, pts) + tail)
with open("crank_file.yaml", "w") as f:
    f.write(head + "  - {name: motor, type: driver, body1: ground, body2: crank, %s, motion_file: crank_motion.csv}\n" % rates + tail)
with open("crank_sine.yaml", "w") as f:
    f.write(head + "  - {name: motor, type: driver, body1: ground, body2: crank, speed: 0, amplitude: 0.5, frequency: 20}\n" + tail)
# (b) the rod, not-a-knot: its initial rate is the spline's
t = np.linspace(0, 2, 101)
y = 2 * t + 0.3 * (1 - np.cos(5 * t))
np.savetxt("rod_motion.csv", np.c_[t, y], delimiter=",", fmt="%.17g")
w0 = float(CubicSpline(t, y)(0, 1))
with open("rod.yaml", "w") as f:
    f.write("""dim: 3
gravity: [0, 0, -9.81]
bodies:
  - {name: rod, mass: 1.2, inertia: [0.064, 0.07, 0.004], position: [0, 0, -0.4], velocity: [0, %r, 0], angular_velocity: [%r, 0, 0]}
joints:
  - {name: motor, type: driver, body1: ground, point1: [0, 0, 0], body2: rod, point2: [0, 0, 0.4], axis: [1, 0, 0], motion_file: rod_motion.csv}
outputs:
  - {name: theta, type: joint_angle, joint: motor}
  - {name: F, type: joint_force, joint: motor}
""" % (0.4 * w0, w0))
# (c) the rotors: the smooth step at six uneven times
ts = [0, 0.2, 0.45, 0.5, 0.8, 1.0]
fac = ", ".join("[%r, %r]" % (a, 3 * a * a - 2 * a ** 3) for a in ts)
with open("rotor.yaml", "w") as f:
    f.write("""bodies:
  - {name: rotor, mass: 1, inertia: 0.05, position: [0, 0], angular_velocity: 1}
loads:
  - {name: motor, body: rotor, torque: 0.2, factor: [%s]}
outputs:
  - {name: theta, type: angle, body: rotor}
""" % fac)
with open("rotor_factor.csv", "w") as f:
    f.write("".join("%r,%r\n" % (a, 3 * a * a - 2 * a ** 3) for a in ts))
# (e) sliders on prismatic joints driven along their axis
a2 = np.array([2.0, 1.0]) / np.sqrt(5)
v0 = 0.7 * a2
with open("slider.yaml", "w") as f:
    f.write("""gravity: [0, -9.81]
bodies:
  - {name: s, mass: 2, inertia: 0.01, position: [0, 0], velocity: [%r, %r]}
joints:
  - {name: guide, type: prismatic, body1: ground, body2: s, axis: [2, 1], speed: 0.2, amplitude: 0.05, frequency: 10}
outputs:
  - {name: P, type: point, body: s}
  - {name: F, type: joint_force, joint: guide}
""" % (v0[0], v0[1]))
t = np.linspace(0, 1, 51)
y = 0.1 * (1 - np.cos(8 * t))
np.savetxt("slide.csv", np.c_[t, y], delimiter=",", fmt="%.17g")
a3 = np.ones(3) / np.sqrt(3)
v0 = float(CubicSpline(t, y)(0, 1)) * a3
with open("slider3.yaml", "w") as f:
    f.write("""dim: 3
gravity: [0, 0, -9.81]
bodies:
  - {name: s, mass: 1.5, inertia: [0.01, 0.02, 0.03], position: [0, 0, 0], velocity: [%r, %r, %r]}
joints:
  - {name: guide, type: prismatic, body1: ground, body2: s, axis: [1, 1, 1], motion_file: slide.csv}
outputs:
  - {name: P, type: point, body: s}
  - {name: F, type: joint_force, joint: guide}
""" % tuple(v0))
with open("rotor3.yaml", "w") as f:
    f.write("""dim: 3
bodies:
  - {name: rotor, mass: 1, inertia: [0.08, 0.06, 0.05], position: [0, 0, 0], angular_velocity: [0, 0, 1]}
loads:
  - {name: motor, body: rotor, torque: [0, 0, 0.2], factor_file: rotor_factor.csv}
outputs:
  - {name: p, type: orientation, body: rotor}
""")
PY
mb="-system_type multibody -step_type nsgalpha -step_rho_inf 1"
moreau="-system_type multibody -step_type moreau -step_moreau_variant theta -step_theta 0.5"
for h in 1e-3 5e-4; do
  must "planar table h = $h" mpi 60 1 simulate $mb -mb_model crank_table.yaml -step_dt $h -step_end_time 1 -results_file crank_$h.h5
  must "spatial table h = $h" mpi 60 1 simulate $mb -mb_model rod.yaml -step_dt $h -step_end_time 2 -results_file rod_$h.h5
  must "planar rotor h = $h" mpi 60 1 simulate $mb -mb_model rotor.yaml -step_dt $h -step_end_time 1 -results_file rotor_$h.h5
  must "spatial rotor h = $h" mpi 60 1 simulate $mb -mb_model rotor3.yaml -step_dt $h -step_end_time 1 -results_file rotor3_$h.h5
  must "planar slider h = $h" mpi 60 1 simulate $mb -mb_model slider.yaml -step_dt $h -step_end_time 0.5 -results_file slider_$h.h5
  must "spatial slider h = $h" mpi 60 1 simulate $mb -mb_model slider3.yaml -step_dt $h -step_end_time 0.5 -results_file slider3_$h.h5
done
must "planar table from a CSV file" mpi 60 1 simulate $mb -mb_model crank_file.yaml -step_dt 1e-3 -step_end_time 1 -results_file crank_file.h5
must "planar analytic driver" mpi 60 1 simulate $mb -mb_model crank_sine.yaml -step_dt 1e-3 -step_end_time 1 -results_file crank_sine.h5
must "planar table, moreau" mpi 60 1 simulate $moreau -mb_model crank_table.yaml -step_dt 1e-3 -step_end_time 1 -results_file crank_m.h5
must "planar rotor, moreau" mpi 60 1 simulate $moreau -mb_model rotor.yaml -step_dt 1e-3 -step_end_time 1 -results_file rotor_m.h5
must "spatial rotor, moreau" mpi 60 1 simulate $moreau -mb_model rotor3.yaml -step_dt 1e-3 -step_end_time 1 -results_file rotor3_m.h5
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import h5py
import numpy as np
from scipy.interpolate import CubicSpline

import mbcheck
from mbcheck import case, check

g = 9.81
# (a) the crank driven by the table
m, J, l = 0.038, 7.4e-5, 0.153
tk = np.linspace(0, 1, 201)
S = CubicSpline(tk, 0.5 * np.sin(20 * tk), bc_type=((1, 10.0), (1, 10 * np.cos(20.0))))
Jp = J + m * l * l / 4
err = {}
for name in ("crank_1e-3.h5", "crank_5e-4.h5", "crank_m.h5"):
    t, o, _, _ = case(name)
    th = S(t)
    tau = Jp * S(t, 2) + m * g * l / 2 * np.cos(th)
    if name == "crank_m.h5":  # Moreau-Jean's force is the step's mean
        tau = np.concatenate([[tau[0]], 0.5 * (tau[1:] + tau[:-1])])
    k = t > 0
    err[name] = (np.abs(o["theta"] - th).max(), np.abs(o["T"] - tau)[k].max(), np.abs(tau).max())
same = all(np.array_equal(h5py.File("crank_1e-3.h5")["cases/0"][d][:], h5py.File("crank_file.h5")["cases/0"][d][:]) for d in ("outputs", "forces"))
check(same, "the table inline and from a CSV file: the same run, bitwise")
check(err["crank_1e-3.h5"][0] < 1e-12 and err["crank_5e-4.h5"][0] < 1e-12,
      "planar driver by a table (201 points of 0.5 sin 20t, clamped): the angle %.2e, %.2e rad from SciPy's spline (< 1e-12)"
      % (err["crank_1e-3.h5"][0], err["crank_5e-4.h5"][0]))
o2 = np.log2(err["crank_1e-3.h5"][1] / err["crank_5e-4.h5"][1])
check(err["crank_5e-4.h5"][1] < 1e-4 * err["crank_5e-4.h5"][2] and o2 > 1.8,
      "planar driver by a table: the torque against (J + m l^2/4) S'' + m g (l/2) cos S (up to %.3e N m) %.2e, %.2e at h = 1e-3, 5e-4 "
      "(< 1e-4 of it; order %.2f > 1.8)" % (err["crank_5e-4.h5"][2], err["crank_1e-3.h5"][1], err["crank_5e-4.h5"][1], o2))
# against the analytic driver's run: within the interpolation error of the torque, (J + m l^2/4) |S'' - phi''| + m g (l/2) |S - phi|,
# and the two runs' scheme errors
ts, os_, _, _ = case("crank_sine.h5")
tf = np.linspace(0, 1, 20001)
interp = Jp * np.abs(S(tf, 2) + 200 * np.sin(20 * tf)).max() + m * g * l / 2 * np.abs(S(tf) - 0.5 * np.sin(20 * tf)).max()
dT = np.abs(os_["T"] - case("crank_1e-3.h5")[1]["T"])[ts > 0].max()
dth = np.abs(os_["theta"] - case("crank_1e-3.h5")[1]["theta"]).max()
dS = np.abs(S(tf) - 0.5 * np.sin(20 * tf)).max()
check(dT < interp + 4 * err["crank_1e-3.h5"][1] and dth < dS + 1e-12,
      "planar: the table's run against the analytic driver's (h = 1e-3): the torque %.2e N m (< the interpolation error %.2e + the schemes' "
      "%.1e), the angle %.2e rad (< the spline's %.2e)" % (dT, interp, 4 * err["crank_1e-3.h5"][1], dth, dS))
check(err["crank_m.h5"][0] < 5e-5 and err["crank_m.h5"][1] < 1e-2 * err["crank_m.h5"][2],
      "planar driver by a table, Moreau-Jean h = 1e-3: the angle %.2e rad (< 5e-5, velocity level), the torque against the step's mean %.2e N m "
      "(< 1e-2 of it)" % err["crank_m.h5"][:2])
# (b) the rod
tk = np.linspace(0, 2, 101)
S = CubicSpline(tk, 2 * tk + 0.3 * (1 - np.cos(5 * tk)))
m, l, Jp = 1.2, 0.4, 0.064 + 1.2 * 0.4 ** 2
es = {}
for h in ("1e-3", "5e-4"):
    t, o, _, _ = case("rod_%s.h5" % h)
    th = S(t)
    thw = np.mod(th + 2 * np.pi, 4 * np.pi) - 2 * np.pi
    tau = Jp * S(t, 2) + m * g * l * np.sin(th)
    es[h] = (np.abs(np.mod(o["theta"] - thw + 2 * np.pi, 4 * np.pi) - 2 * np.pi).max(), np.abs(o["F_torque"] - tau)[t > 0].max(), t[-1])
o2 = np.log2(es["1e-3"][1] / es["5e-4"][1])
check(es["5e-4"][0] < 1e-12 and es["5e-4"][1] < 1e-5 and o2 > 1.8 and es["5e-4"][2] > 1.99,
      "spatial driver by a table (101 points of 2t + 0.3 (1 - cos 5t), not-a-knot, S''(0) = %.3f): the angle %.2e rad (< 1e-12), the torque against "
      "J_p S'' + m g l sin S %.2e, %.2e N m at h = 1e-3, 5e-4 from t = 0 (< 1e-5; order %.2f > 1.8)"
      % (S(0, 2), es["5e-4"][0], es["1e-3"][1], es["5e-4"][1], o2))
# (c) the rotors: theta = w0 t + (tau/J)(t^4/4 - t^5/10) (T = 1)
def exact(t, J):
    return t + 0.2 / J * (t ** 4 / 4 - t ** 5 / 10)


er = {}
for name in ("rotor_1e-3.h5", "rotor_5e-4.h5", "rotor_m.h5", "rotor3_1e-3.h5", "rotor3_5e-4.h5", "rotor3_m.h5"):
    t, o, _, _ = case(name)
    if name.startswith("rotor3"):
        th = np.unwrap(2 * np.arctan2(o["p_e3"], o["p_e0"]))
        J = 0.05
    else:
        th, J = o["theta"], 0.05
    er[name] = (np.abs(th - exact(t, J)).max(), t[-1], th[-1])
for s in ("rotor", "rotor3"):
    o2 = np.log2(er[s + "_1e-3.h5"][0] / er[s + "_5e-4.h5"][0])
    check(er[s + "_5e-4.h5"][0] < 2e-7 and o2 > 1.8 and er[s + "_m.h5"][0] < 2e-6 and er[s + "_5e-4.h5"][1] > 0.999,
          "%s rotor, torque 0.2 N m ramped by a 6-point factor table (the smooth step, a cubic: reproduced): the angle (%.4f rad at 1 s) against "
          "w0 t + (tau/J)(t^4/4 - t^5/10) %.2e, %.2e rad at h = 1e-3, 5e-4 (< 2e-7; order %.2f > 1.8), Moreau-Jean %.2e (< 2e-6)"
          % ("spatial" if s == "rotor3" else "planar", er[s + "_5e-4.h5"][2], er[s + "_1e-3.h5"][0], er[s + "_5e-4.h5"][0], o2, er[s + "_m.h5"][0]))
# (e) the sliders: position s(t) a, the driving force (output F_drive, the joint's last row) m s'' - m g . a
for dim, col, mass, ga in ((2, 2, 2.0, -9.81 / np.sqrt(5)), (3, 5, 1.5, -9.81 / np.sqrt(3))):
    ax = np.array([2.0, 1.0]) / np.sqrt(5) if dim == 2 else np.ones(3) / np.sqrt(3)
    if dim == 2:
        s = lambda t, d=0: [0.2 * t + 0.05 * np.sin(10 * t), 0.2 + 0.5 * np.cos(10 * t), -5 * np.sin(10 * t)][d]
    else:
        tk = np.linspace(0, 1, 51)
        s = CubicSpline(tk, 0.1 * (1 - np.cos(8 * tk)))
    ep, ef, same = [], [], True
    for h in ("1e-3", "5e-4"):
        t, o, _, forces = case("slider%s_%s.h5" % ("" if dim == 2 else "3", h))
        P = np.c_[[o["P_" + c] for c in "xyz"[:dim]]].T
        ep.append(np.abs(P - np.outer(s(t), ax)).max())
        ef.append(np.abs(o["F_drive"] - (mass * s(t, 2) - mass * ga))[t > 0].max())
        same = same and np.array_equal(o["F_drive"], forces[:, col])
    o2 = np.log2(ef[0] / ef[1])
    # the spline's pieces are cubics, on which the scheme's acceleration is exact to round-off (measured 1.6e-11, 1.9e-10 N)
    check(same and ep[1] < 1e-12 and ((dim == 2 and ef[1] < 1e-4 and o2 > 1.8) or (dim == 3 and max(ef) < 1e-8)),
          "%s prismatic joint driven along its axis (%s): the slider's position %.2e m from s(t) a (< 1e-12), the driving force (F_drive, "
          "its row's multiplier) against m s'' - m g . a %.2e, %.2e N at h = 1e-3, 5e-4 (%s)"
          % ("planar" if dim == 2 else "spatial", "0.2 t + 0.05 sin 10t" if dim == 2 else "a 51-point table of 0.1 (1 - cos 8t), not-a-knot",
             ep[1], ef[0], ef[1], "< 1e-4; order %.2f > 1.8" % o2 if dim == 2 else "< 1e-8: exact on the spline's cubics"))
raise SystemExit(mbcheck.bad)
PY
# (d)
sed -e 's/\[0.01, /[0.005, /' crank_table.yaml >order.yaml
refuse_simulate "times not increasing" "1" "order.yaml:7: joint 'motor': point 3 of 'motion' has the time 0.005" $mb -mb_model order.yaml \
  -step_dt 1e-3 -step_end_time 0.01
sed -e 's/motion_rates: \[10, [^]]*\], motion_file: crank_motion.csv/motion: [[0, 0]]/' crank_file.yaml >one.yaml
refuse_simulate "one point" "1" "one.yaml:6: joint 'motor': 'motion' has 1 point" $mb -mb_model one.yaml -step_dt 1e-3 -step_end_time 0.01
sed -e '4s/$/, 7/' crank_motion.csv >cols.csv
sed -e 's/crank_motion.csv/cols.csv/' crank_file.yaml >cols.yaml
refuse_simulate "a CSV line of three columns" "1 2" "cols.csv:4: expected two numbers 'time, value'" $mb -mb_model cols.yaml -step_dt 1e-3 \
  -step_end_time 0.01
sed -e 's/crank_motion.csv/nothere.csv/' crank_file.yaml >missing.yaml
refuse_simulate "a missing CSV file" "1" "missing.yaml:6: joint 'motor': cannot open 'motion_file: nothere.csv'" $mb -mb_model missing.yaml \
  -step_dt 1e-3 -step_end_time 0.01
refuse_simulate "a run beyond the table" "1" "joint 'motor': its motion is tabulated from t = 0. to 1. s" $mb -mb_model crank_file.yaml \
  -step_dt 1e-3 -step_end_time 1.5
sed -e 's/motion_file: crank_motion.csv/motion_file: crank_motion.csv, speed: 1/' crank_file.yaml >both.yaml
refuse_simulate "speed with a table" "1" "both.yaml:6: joint 'motor': give its motion as 'speed'" $mb -mb_model both.yaml -step_dt 1e-3 -step_end_time 0.01
refuse_simulate "a load's factor shorter than the run" "1" "rotor.yaml:4: a load's factor is tabulated from t = 0. to 1. s" $mb \
  -mb_model rotor.yaml -step_dt 1e-3 -step_end_time 2
sed -e 's/motion_rates: \[10, [^]]*\], //' crank_file.yaml >knot.yaml
refuse_simulate "velocities that miss the table's rate" "1" "knot.yaml:6: the initial velocities violate joint 'motor': its row 1 has the rate .*(the driver's prescribed rate at t = 0.* is 10.00" \
  $mb -mb_model knot.yaml -step_dt 1e-3 -step_end_time 0.01
exit $fail
