#!/usr/bin/env bash
# The rigid slider-crank of seed 001 §4.1, Table 1 (jobs/models/slider_crank.yaml; issue 23 §4) through
# `vicms simulate -system_type multibody`:
# (a) the clearance too large to touch (-mb_param_c 1: the guide's walls at y = +-1.026 m): nsgalpha (rho_inf = 1)
#     against the independent SciPy solution of the mechanism in minimal coordinates (tests/ref/slider_crank.py free,
#     DOP853 at rtol 1e-12) over T = 0.05 s (7.5 crank turns' worth of angle at 150 rad/s): at h = 1e-5 s the crank and
#     rod angles within 3e-5 rad and the slider's centre within 3e-6 m; at h = 1e-4 s the errors about 100 times larger
#     (second order: the ratio of the largest crank-angle errors >= 50); the energy (no impact, no friction, no driving
#     torque) within 1e-5 of E0 at h = 1e-5 (relative; it converges as h^2, not conserved exactly); the joints' rows at
#     round-off (GGL: <= 1e-10); no contact force (<= 1e-12 N);
# (b) the same mechanism driven by a constant torque T = 1 N m on the crank (seed 001 Table 2's torque; `loads`): the energy
#     balance E(t) - E0 = T (theta1(t) - theta1(0)) within 1e-5 of the largest energy (the driving work is 5.7 J over
#     0.05 s, E0 = 7.5 J);
# (e) c = 0 (seed 001 Fig. 22's bilateral case): the slider held on the guide by a prismatic joint to the ground (its
#     centre on y = 0, theta3 = 0), the crank free from Table 1's speeds, no contact; nsgalpha rho_inf = 1 at h = 1e-4, 5e-5,
#     2.5e-5 s against tests/ref/slider_crank.py ideal (one coordinate, DOP853): crank angle, its rate, slider's x and the
#     guide's normal force second order (observed order of each, from the last two steps, >= 1.8), at h = 2.5e-5 within
#     1e-4 rad, 1e-2 rad/s, 1e-5 m and 1e-2 N (the force peaks at 37.8 N); the slider's y at round-off (1e-15 m);
# (c) Table 1 itself (c = 0.001 m, e = 0.4, mu = 0.01), nsgalpha rho_inf = 0.8, h = 1e-5 s to 0.01 s on 1, 2 and 3 ranks:
#     bitwise equal (every dataset); the corners' gaps never below -1e-12 m (held at position level), the joints' rows
#     <= 1e-10, contacts do happen, the normal forces >= 0 (to 1e-12 of the largest: round-off of the active-set Newton) and the friction forces inside Coulomb's cone |f_t| <= mu f_n
#     (to 1e-9 of the largest force);
# (h) a prescribed crank speed (a `driver` joint, theta_crank = omega t, rheonomic) on the c = 0 mechanism of (e), 0.05 s:
#     nsgalpha rho_inf = 1 at h = 1e-4 and 5e-5: the crank angle omega t and the slider's x = l1 cos(omega t) +
#     sqrt(l2^2 - l1^2 sin^2(omega t)) exact to 1e-12 (the mechanism is kinematically driven and GGL holds every row at
#     position level); the driver's torque against the torque of the minimal model (tests/ref/slider_crank.py's M, Q, h
#     along the driven motion: tau = Jc . (M gamma + h - Q)) second order (observed >= 1.8), within 5e-3 N m at 5e-5 (it
#     peaks at 43 N m); the energy balance E - E0 = omega int tau dt (trapezoid) within 2e-3 J at 5e-5 (the driving work
#     reaches 32 J); Moreau-Jean theta = 1/2: the crank angle exact to 1e-12 (a linear row held at velocity level), the
#     torque first order (observed >= 0.9); a driver whose speed contradicts the initial velocities is refused; the
#     energy balance the stepper records (cases/balance_error, with the driver's work and the impulses') at most 1e-12
#     with Moreau-Jean (exact: its momentum balance), 1e-4 with nsgalpha, 1e-3 on Table 1's run of (c);
# (f) the model's parameters as case parameters: -cases_grid mb_param_c:0.0005:0.002:2,mb_param_omega:100:150:2 on 2
#     ranks (T = 5 ms): every case's initial crank rate equal to its omega and its upper corners' initial gap to its c
#     (1e-15: the numbers written as expressions of them changed), the case (c, omega) = (0.002, 100) bitwise equal to a
#     single run with -mb_param_c 0.002 -mb_param_omega 100;
# (g) bad input: an -mb_param_ option naming no parameter of the model, an expression naming an unknown parameter, a
#     malformed expression (the file, the line and the fix in the message; 1 and 2 ranks);
# (i) a stop (SIGTERM) and resume of the driven case: the rerun resumes from its checkpoint and ends bitwise equal to the
#     uninterrupted run (energy records included: the driver's power is checkpointed state);
# (d) the job file jobs/slider_crank.yaml runs as documented (from the repository's root).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
jobs="$VICMS_SOURCE/jobs"
sed -e 's/^outputs:/loads:\n  - {body: crank, torque: 1}\noutputs:/' "$jobs/models/slider_crank.yaml" >torque.yaml
cp "$jobs/models/slider_crank.yaml" free.yaml
free="-system_type multibody -mb_param_c 1 -step_type nsgalpha -step_rho_inf 1 -step_end_time 0.05"
must "free slider-crank h = 1e-5" mpi 120 1 simulate $free -mb_model free.yaml -step_dt 1e-5 -results_file free5.h5
must "free slider-crank h = 1e-4" mpi 60 1 simulate $free -mb_model free.yaml -step_dt 1e-4 -results_file free4.h5
must "driven slider-crank h = 1e-5" mpi 120 1 simulate $free -mb_model torque.yaml -step_dt 1e-5 -results_file torque.h5
sed -e '/^contacts:/,/^outputs:/{/^contacts:/d;/^  /d}' -e '/name: f_[ul][lr]/d' -e \
  's/^outputs:/  - {name: guide, type: prismatic, body1: ground, point1: [0, 0], body2: slider, axis: [1, 0]}\noutputs:\n  - {name: guide_force, type: joint_force, joint: guide}/' \
  "$jobs/models/slider_crank.yaml" >ideal.yaml
for h in 1e-4 5e-5 2.5e-5; do
  must "ideal slider-crank h = $h" mpi 60 1 simulate $free -mb_model ideal.yaml -step_dt $h -results_file ideal_$h.h5
done
sed 's/^outputs:/  - {name: motor, type: driver, body1: ground, body2: crank, speed: omega}\noutputs:\n  - {name: torque, type: joint_force, joint: motor}/' \
  ideal.yaml >driven.yaml
for h in 1e-4 5e-5; do
  must "driven slider-crank nsgalpha h = $h" mpi 60 1 simulate -system_type multibody -mb_model driven.yaml -step_type nsgalpha -step_rho_inf 1 \
    -step_dt $h -step_end_time 0.05 -results_file driven_n_$h.h5
  must "driven slider-crank moreau h = $h" mpi 60 1 simulate -system_type multibody -mb_model driven.yaml -step_type moreau -step_moreau_variant theta \
    -step_theta 0.5 -step_dt $h -step_end_time 0.05 -results_file driven_m_$h.h5
done
for np in 1 2 3; do
  must "Table 1 slider-crank np=$np" mpi 120 $np simulate -system_type multibody -mb_model "$jobs/models/slider_crank.yaml" -step_type nsgalpha \
    -step_rho_inf 0.8 -step_dt 1e-5 -step_end_time 0.01 -results_file table1_$np.h5
done
grid="-system_type multibody -mb_model $jobs/models/slider_crank.yaml -step_type nsgalpha -step_rho_inf 0.8 -step_dt 1e-5 -step_end_time 0.005"
must "grid over c x omega, 2 ranks" mpi 120 2 simulate $grid -cases_grid mb_param_c:0.0005:0.002:2,mb_param_omega:100:150:2 -results_file grid.h5
must "single run c = 0.002, omega = 100" mpi 60 1 simulate $grid -mb_param_c 0.002 -mb_param_omega 100 -results_file single.h5

VICMS_REF="$VICMS_SOURCE/tests/ref" $py - <<'PYEOF' || fail=1
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.environ["VICMS_REF"])
import slider_crank as ref

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
import mbcheck
from mbcheck import check, case

# ---- (a) against the SciPy solution in minimal coordinates
tr = np.linspace(0, 0.05, 501)
r = ref.solve("free", tr)
errs = {}
for name, h in (("free5.h5", 1e-5), ("free4.h5", 1e-4)):
    t, o, gap, F = case(name)
    e1 = np.max(np.abs(np.interp(tr, t, o["theta1"]) - r["theta1"]))
    e2 = np.max(np.abs(np.interp(tr, t, o["theta2"]) - r["theta2"]))
    ex = max(np.max(np.abs(np.interp(tr, t, o["slider_x"]) - r["x"])), np.max(np.abs(np.interp(tr, t, o["slider_y"]) - r["y"])))
    errs[h] = e1
    print("h = %g: largest errors theta1 %.3e rad, theta2 %.3e rad, slider centre %.3e m (theta1 at T: %.9f, reference %.9f)"
          % (h, e1, e2, ex, o["theta1"][-1], r["theta1"][-1]))
    if h == 1e-5:
        check(e1 <= 3e-5 and e2 <= 3e-5, "free slider-crank h = 1e-5: crank and rod angles within %.2e, %.2e rad of the SciPy solution (tolerance 3e-5)" % (e1, e2))
        check(ex <= 3e-6, "free slider-crank h = 1e-5: slider's centre within %.2e m of the SciPy solution (tolerance 3e-6)" % ex)
        E = o["energy"]
        dE = np.max(np.abs(E - E[0])) / abs(E[0])
        check(abs(E[0] - r["energy"][0]) <= 1e-12 * abs(E[0]), "free slider-crank: E0 = %.9f J, the reference's %.9f J" % (E[0], r["energy"][0]))
        check(dE <= 1e-5, "free slider-crank h = 1e-5: energy within %.2e of E0 (relative, tolerance 1e-5)" % dE)
        res = np.max(np.abs(gap[:, :6]))
        check(res <= 1e-10, "free slider-crank: the joints' 6 rows at most %.2e over %d levels (GGL; tolerance 1e-10)" % (res, len(t)))
        check(np.max(np.abs(F[:, 6:])) <= 1e-12 and np.min(gap[:, 6:]) > 0.5, "free slider-crank: no contact: forces at most %.1e N (tolerance 1e-12), smallest corner gap %.3f m (> 0.5)" % (np.max(np.abs(F[:, 6:])), np.min(gap[:, 6:])))
ratio = errs[1e-4] / errs[1e-5]
check(ratio >= 50, "free slider-crank: crank-angle error ratio h = 1e-4 / 1e-5 = %.1f (second order: 100; at least 50)" % ratio)
# ---- (b) energy balance with the driving torque
t, o, gap, F = case("torque.h5")
T = 1.0
bal = o["energy"] - o["energy"][0] - T * (o["theta1"] - o["theta1"][0])
rel = np.max(np.abs(bal)) / np.max(np.abs(o["energy"]))
check(rel <= 1e-5, "driven slider-crank (T = 1 N m): |E - E0 - T (theta1 - theta1_0)| at most %.2e of the largest energy (driving work %.4f J; tolerance 1e-5)"
      % (rel, T * (o["theta1"][-1] - o["theta1"][0])))
# ---- (e) c = 0: the prismatic guide against the one-coordinate solution, second order (seed 001 Fig. 22)
r = ref.solve("ideal", tr)
E = {}
for h, tag in ((1e-4, "1e-4"), (5e-5, "5e-5"), (2.5e-5, "2.5e-5")):
    t, o, gap, F = case("ideal_%s.h5" % tag)
    ins = slice(1, None)  # the force at t = 0 is the consistent acceleration's; compare from the first step on
    E[h] = np.array([np.max(np.abs(np.interp(tr, t, o["theta1"]) - r["theta1"])), np.max(np.abs(np.interp(tr, t, o["theta1_rate"]) - r["omega1"])),
                     np.max(np.abs(np.interp(tr, t, o["slider_x"]) - r["x"])),
                     np.max(np.abs(np.interp(tr[ins], t[ins], o["guide_force_x"][ins]) - r["normal_force"][ins]))])
    ymax = np.max(np.abs(o["slider_y"]))
    print("c = 0, h = %g: errors crank angle %.2e rad, rate %.2e rad/s, slider x %.2e m, guide force %.2e N; |y| <= %.1e m" % (h, *E[h], ymax))
order = np.log2(E[5e-5] / E[2.5e-5])
check(np.all(order >= 1.8), "c = 0 slider-crank: observed orders (crank angle, rate, slider x, guide force) %s (>= 1.8)" % ", ".join("%.2f" % x for x in order))
check(np.all(E[2.5e-5] <= [1e-4, 1e-2, 1e-5, 1e-2]) and ymax <= 1e-15,
      "c = 0 slider-crank h = 2.5e-5: errors %s within (1e-4 rad, 1e-2 rad/s, 1e-5 m, 1e-2 N), |y| %.1e (1e-15 m); largest force %.2f N"
      % (", ".join("%.2e" % x for x in E[2.5e-5]), ymax, np.max(np.abs(r["normal_force"]))))
# ---- (c) Table 1: ranks, gaps, forces
t, o, gap, F = case("table1_1.h5")
ref1 = h5py.File("table1_1.h5", "r")["cases/0"]
for np_ in (2, 3):
    other = h5py.File("table1_%d.h5" % np_, "r")["cases/0"]
    same = all(np.array_equal(ref1[d][()], other[d][()]) for d in ("t", "outputs", "gaps", "forces", "energy"))
    check(same, "Table 1 slider-crank: %d ranks bitwise equal to 1 rank (t, outputs, gaps, forces, energy)" % np_)
gmin = np.min(gap[:, 6:])
res = np.max(np.abs(gap[:, :6]))
fn = np.array([o[k] for k in ("f_ul", "f_ur", "f_ll", "f_lr")])
ft = np.array([o[k + "_t"] for k in ("f_ul", "f_ur", "f_ll", "f_lr")])
big = np.max(fn)
levels = int(np.sum((fn > 0).any(axis=0)))
check(levels > 0 and gmin >= -1e-12, "Table 1 slider-crank: %d of %d levels with a corner in contact, smallest corner gap %.2e m (tolerance -1e-12)" % (levels, len(t), gmin))
check(res <= 1e-10, "Table 1 slider-crank: the joints' rows at most %.2e (tolerance 1e-10)" % res)
cone = np.max(np.abs(ft) - 0.01 * fn)
check(np.min(fn) >= -1e-12 * big and cone <= 1e-9 * big, "Table 1 slider-crank: normal forces >= %.1e N (largest %.1f N; tolerance -1e-12 of it), |f_t| - mu f_n at most %.2e N (tolerance 1e-9 of it)" % (np.min(fn), big, cone))
# ---- (h) the prescribed crank speed
w, l1, l2 = 150.0, 0.153, 0.306
err = {}
for sch in ("n", "m"):
    for tag in ("1e-4", "5e-5"):
        t, o, gap, F = case("driven_%s_%s.h5" % (sch, tag))
        tau = np.array([(lambda k: k[1] @ (lambda d: d[0] @ k[2] + d[2] - d[1])(ref.dynamics(k[0], k[1] * w)))(ref.ideal_kinematics(w * ti, w)) for ti in t])
        xe = l1 * np.cos(w * t) + np.sqrt(l2**2 - (l1 * np.sin(w * t)) ** 2)
        work = w * np.concatenate([[0], np.cumsum(0.5 * (o["torque"][1:] + o["torque"][:-1]) * np.diff(t))])
        err[sch, tag] = (np.max(np.abs(o["theta1"] - w * t)), np.max(np.abs(o["slider_x"] - xe)), np.max(np.abs(o["torque"][1:] - tau[1:])),
                         np.max(np.abs(o["energy"] - o["energy"][0] - work)), work[-1], np.max(np.abs(tau)))
        print("driven (%s, h = %s): crank angle %.1e rad, slider x %.1e m, torque %.2e N m (peak %.1f), energy balance %.2e J (work %.2f J)"
              % ("nsgalpha" if sch == "n" else "moreau", tag, *err[sch, tag][:3], err[sch, tag][5], err[sch, tag][3], err[sch, tag][4]))
e1, e2 = err["n", "1e-4"], err["n", "5e-5"]
check(max(e1[0], e2[0], e1[1], e2[1]) <= 1e-12, "driven slider-crank nsgalpha: crank angle omega t and slider x exact to %.1e (tolerance 1e-12)" % max(e1[0], e2[0], e1[1], e2[1]))
check(np.log2(e1[2] / e2[2]) >= 1.8 and e2[2] <= 5e-3 and e2[3] <= 2e-3,
      "driven slider-crank nsgalpha: driver torque order %.2f (>= 1.8), error %.2e N m at h = 5e-5 (tolerance 5e-3), energy balance %.2e J (tolerance 2e-3)"
      % (np.log2(e1[2] / e2[2]), e2[2], e2[3]))
m1, m2 = err["m", "1e-4"], err["m", "5e-5"]
check(max(m1[0], m2[0]) <= 1e-12 and np.log2(m1[2] / m2[2]) >= 0.9,
      "driven slider-crank moreau: crank angle exact to %.1e (tolerance 1e-12), torque order %.2f (>= 0.9)" % (max(m1[0], m2[0]), np.log2(m1[2] / m2[2])))
# the energy balance the stepper records (its work terms: the driver's, the impulses'), cases/balance_error: Moreau-Jean's
# momentum balance makes it exact, nsgalpha's within its O(h^2) energy error; on Table 1 (impacts, friction) too
bal = {k: float(h5py.File(k, "r")["cases/balance_error"][0]) for k in ("driven_n_5e-5.h5", "driven_m_5e-5.h5", "table1_1.h5")}
check(bal["driven_m_5e-5.h5"] <= 1e-12 and bal["driven_n_5e-5.h5"] <= 1e-4 and bal["table1_1.h5"] <= 1e-3,
      "recorded energy balance error: driven Moreau-Jean %.1e (tolerance 1e-12), driven nsgalpha %.1e (1e-4), Table 1 nsgalpha %.1e (1e-3)"
      % (bal["driven_m_5e-5.h5"], bal["driven_n_5e-5.h5"], bal["table1_1.h5"]))
# ---- (f) the grid over the model's parameters
with h5py.File("grid.h5", "r") as f:
    P = f["cases/parameters"][()]
    status = list(f["cases/status"][()])
    errs = []
    for k in range(len(P)):
        c = f["cases/%d" % k]
        cols = (lambda a: a.decode() if isinstance(a, bytes) else a)(c["outputs"].attrs["columns"]).split(",")
        errs.append(max(abs(c["outputs"][0, cols.index("theta1_rate")] - P[k, 1]), abs(c["gaps"][0, 6] - P[k, 0]), abs(c["gaps"][0, 7] - P[k, 0])))
    k = [i for i in range(len(P)) if P[i, 0] == 0.002 and P[i, 1] == 100][0]
    same = all(np.array_equal(f["cases/%d/%s" % (k, d)][()], h5py.File("single.h5", "r")["cases/0/" + d][()]) for d in ("t", "outputs", "gaps", "forces"))
check(status == [1] * 4 and sorted(map(tuple, P)) == [(0.0005, 100), (0.0005, 150), (0.002, 100), (0.002, 150)] and max(errs) <= 1e-15,
      "grid over (c, omega): 4 cases done, each starting at its crank rate omega and its corners' gap c (largest difference %.1e; tolerance 1e-15)" % max(errs))
check(same, "grid case (c, omega) = (0.002, 100) bitwise equal to the single run with -mb_param_c 0.002 -mb_param_omega 100")
raise SystemExit(mbcheck.bad)
PYEOF
sed 's/velocity: \[0, omega \* 0.0765\], angular_velocity: omega}/velocity: [0, omegaa * 0.0765], angular_velocity: omega}/' "$jobs/models/slider_crank.yaml" >unknown.yaml
sed 's/angular_velocity: -omega \/ 2}/angular_velocity: -omega \/ (2}/' "$jobs/models/slider_crank.yaml" >paren.yaml
sed 's/speed: omega}/speed: 100}/' driven.yaml >badspeed.yaml
refuse_simulate "a driver contradicting the initial velocities" "1 2" "badspeed.yaml:.*the initial velocities violate joint 'motor': its row 1 has the rate 5.000e+01" \
  -system_type multibody -mb_model badspeed.yaml -step_type nsgalpha -step_dt 1e-5 -step_end_time 1e-4
sed 's/type: revolute, body1: ground, point1: \[0, 0\], body2: crank/type: revolute, speed: 1, body1: ground, point1: [0, 0], body2: crank/' driven.yaml >revspeed.yaml
refuse_simulate "a speed on a revolute joint" "1" "revspeed.yaml:.*joint 'pivot': 'speed' is a driver's key (type: driver), not a revolute joint's" \
  -system_type multibody -mb_model revspeed.yaml -step_dt 1e-5 -step_end_time 1e-4
refuse_simulate "an -mb_param_ option naming no parameter" "1 2" "-mb_param_cc: the model file '.*slider_crank.yaml' has no parameter 'cc'" $grid -mb_param_cc 1
refuse_simulate "an expression naming an unknown parameter" "1" "unknown.yaml:15: 'velocity: omegaa \* 0.0765' is not a finite number or an expression of the model's parameters: 'omegaa' is not a parameter of the model" \
  -system_type multibody -mb_model unknown.yaml -step_dt 1e-5 -step_end_time 1e-4
refuse_simulate "a malformed expression" "1 2" "paren.yaml:16: 'angular_velocity: -omega / (2' is not a finite number or an expression of the model's parameters: expected ')' at character 12" \
  -system_type multibody -mb_model paren.yaml -step_dt 1e-5 -step_end_time 1e-4
# ---- (i) stop (SIGTERM) and resume of the driven slider-crank (the driver's power is part of nsgalpha's checkpointed state):
# the rerun resumes from its checkpoint and ends bitwise equal to the uninterrupted run (energy records included)
stop_resume "driven slider-crank" -system_type multibody -mb_model driven.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt 2e-6 \
  -step_end_time 0.05 -step_output_every 100
# ---- (d) the job file as documented
(cd "$VICMS_SOURCE" && must "jobs/slider_crank.yaml" mpi 60 1 simulate -options_file jobs/slider_crank.yaml -step_end_time 0.002 -results_file "$dir/job.h5") ||
  fail=1
[ -f "$dir/job.h5" ] && echo "ok   jobs/slider_crank.yaml ran" || { echo "FAIL jobs/slider_crank.yaml wrote no results"; fail=1; }
exit $fail
