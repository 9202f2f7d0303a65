#!/usr/bin/env bash
# Redundant active rows (issue 23; src/step/ssnewton.c, VISSNewton.regularize): a box on its four bottom corners — four
# coplanar feet, four normal rows on three motions (and, sticking, eight tangential rows on three) — dropped from 0.01 m
# onto the ground with v0 = (1, 0.5, 0) m/s, mu = 0.3, e = 0, h = 1e-3, 1 s. Every scheme's Newton matrix is singular there;
# before, every scheme stopped ("the step's Newton matrix is singular") or, Moreau-Jean, passed a pivot of 1e-52 and blew up.
# Exact: free fall for t_l = sqrt(2 d / g) travelling v0 t_l; the landing impulse m g t_l takes mu g t_l off the horizontal
# speed (e = 0, the feet slip); then a slide to rest over (|v0| - mu g t_l)^2 / (2 mu g); total 0.215368 m along v0.
# Asserted for nsgalpha (rho_inf 0.8), Moreau-Jean theta = 1/2, mixed bathe, ED-alpha (rho_inf 0) and genalpha (rho_inf 0.8): every Newton solve
# converged; the travel within 1e-3 m of the exact one (the landing falls within a step: |v0| h); the path on the line of v0
# (1e-9 m); at rest the four normal forces sum to m g (1e-9 relative); nsgalpha's feet on the ground (position level, 1e-12 m).
# Redundant joints: the pendulum with its pivot twice, nsgalpha and mixed, against one pivot (below).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
cat >box.yaml <<'YAML'
dim: 3
gravity: [0, 0, -9.81]
bodies:
  - {name: b, mass: 2, inertia: [0.03, 0.03, 0.05], position: [0, 0, 0.06], velocity: [1, 0.5, 0]}
contacts:
  - {name: f0, body: b, point: [0.1, 0.1, -0.05], against: ground, plane_point: [0, 0, 0], plane_normal: [0, 0, 1], restitution: 0, friction: 0.3}
  - {name: f1, body: b, point: [-0.1, 0.1, -0.05], against: ground, plane_point: [0, 0, 0], plane_normal: [0, 0, 1], restitution: 0, friction: 0.3}
  - {name: f2, body: b, point: [-0.1, -0.1, -0.05], against: ground, plane_point: [0, 0, 0], plane_normal: [0, 0, 1], restitution: 0, friction: 0.3}
  - {name: f3, body: b, point: [0.1, -0.1, -0.05], against: ground, plane_point: [0, 0, 0], plane_normal: [0, 0, 1], restitution: 0, friction: 0.3}
outputs:
  - {name: c, type: point, body: b}
YAML
run="-system_type multibody -mb_model box.yaml -step_dt 1e-3 -step_end_time 1"
must "nsgalpha" mpi 60 1 simulate $run -step_type nsgalpha -step_rho_inf 0.8 -results_file nsgalpha.h5
must "moreau" mpi 60 1 simulate $run -step_type moreau -step_moreau_variant theta -step_theta 0.5 -results_file moreau.h5
must "mixed bathe" mpi 60 1 simulate $run -step_type mixed -step_mixed_base bathe -results_file bathe.h5
must "mixed edalpha" mpi 60 1 simulate $run -step_type mixed -step_mixed_base edalpha -step_rho_inf 0 -results_file edalpha.h5
# mixed genalpha rho_inf = 0.8: before VISSNewton.np, 11 of 421 solves ended unconverged at rest (0.42 s; the redundant
# multipliers' step, round-off over eps, about 1e-6, never fell below the tolerance) and the run failed
must "mixed genalpha" mpi 60 1 simulate $run -step_type mixed -step_mixed_base genalpha -step_rho_inf 0.8 -results_file genalpha.h5
# redundant joints: seed 002's pendulum (jobs/models/pendulum.yaml) with its pivot given twice (two revolute joints on one
# point): nsgalpha and mixed stopped at the consistent initial accelerations ("the joints' rows are linearly dependent"); now
# the bordered system is solved again with -eps (G M^-1 G^T)_bb on the joints' diagonal (VINonlinearInitialAcceleration) and the
# Newton solves regularize as for the box: the motion and the wall's force as with one pivot (1e-12 m, 1e-9 N)
awk '/^contacts:/ { print "  - {name: pivot2, type: revolute, body1: ground, point1: [0, 0], body2: bob, point2: [-1, 0]}" } { print }' \
  "$VICMS_SOURCE/jobs/models/pendulum.yaml" >pend2.yaml
grep -q "name: pivot2" pend2.yaml || { echo "FAIL pend2.yaml has no second pivot"; fail=1; }
for s in nsgalpha mixed; do
  must "pendulum, one pivot, $s" mpi 60 1 simulate -system_type multibody -mb_model "$VICMS_SOURCE/jobs/models/pendulum.yaml" -step_type $s \
    -step_dt 1e-3 -step_end_time 1 -results_file pend1_$s.h5
  must "pendulum, its pivot twice, $s" mpi 60 1 simulate -system_type multibody -mb_model pend2.yaml -step_type $s -step_dt 1e-3 -step_end_time 1 \
    -results_file pend2_$s.h5
done
PYTHONPATH="$VICMS_SOURCE/tests/app" $py - <<'PY' || fail=1
import h5py, numpy as np
import mbcheck
from mbcheck import check
g, mu, m, d, v0 = 9.81, 0.3, 2.0, 0.01, np.hypot(1, 0.5)
tl = np.sqrt(2 * d / g)
exact = v0 * tl + (v0 - mu * g * tl) ** 2 / (2 * mu * g)
for name in ("nsgalpha", "moreau", "bathe", "edalpha", "genalpha"):
    t, o, gap, F = mbcheck.case(name + ".h5")
    nc = h5py.File(name + ".h5", "r")["cases/contact_nonconverged"][()].sum()
    s = np.hypot(o["c_x"][-1], o["c_y"][-1])
    off = np.max(np.abs(o["c_y"] - 0.5 * o["c_x"])) / np.hypot(1, 0.5)
    fn = F[-1, -4:].sum()
    check(nc == 0 and abs(s - exact) <= 1e-3 and off <= 1e-9 and abs(fn - m * g) <= 1e-9 * m * g,
          "box on four feet, %s: %d solves not converged (0); travel %.6f m, exact %.6f (within %.1e, tolerance 1e-3); off the line of v0 "
          "%.1e m (1e-9); normal forces at rest %.9f N = m g %.2f (1e-9 relative)" % (name, nc, s, exact, abs(s - exact), off, fn, m * g))
    if name == "nsgalpha":
        check(gap.min() >= -1e-12, "box on four feet, nsgalpha: feet's gaps >= %.1e m (position level; tolerance -1e-12)" % gap.min())
for name in ("nsgalpha", "mixed"):
    _, a, _, _ = mbcheck.case("pend1_%s.h5" % name)
    _, b, _, _ = mbcheck.case("pend2_%s.h5" % name)
    dx = max(np.abs(a[k] - b[k]).max() for k in ("bob_x", "bob_y", "theta"))
    dF = np.abs(a["wall_force"] - b["wall_force"]).max()
    check(dx <= 1e-12 and dF <= 1e-9, "pendulum with its pivot twice, %s: the motion within %.1e m of one pivot's (1e-12), the wall's force %.1e N "
          "(1e-9; up to %.1f N)" % (name, dx, dF, np.abs(a["wall_force"]).max()))
raise SystemExit(mbcheck.bad)
PY
exit $fail
