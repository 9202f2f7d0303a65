#!/usr/bin/env bash
# A contact against a chain of segments through several nodes of a flexible body (docs/multibody.md "Contacts against a
# chain of segments"; src/system/mbchain.c), issue 23. The body: the cantilever of multibody_flexible_points (1 x 0.05 x
# 0.05 m, 10 x 2 CPS4, rho = 1000, nu = 0.3, clamped at x = 0, Craig-Bampton with its tip's middle node n22 and 4 modes),
# with the output rows of its eleven top nodes n23 (x = 0) .. n33 (x = 1); E = 2e9 and the almost rigid E = 1e15. The
# chain is the top edge through the eleven nodes.
# (a) a 1.5 kg mass on a vertical prismatic guide at x = 0.73 resting on the flexible beam's chain, gravity on both: at rest
#     after 3 s at h = 0.1 (nsgalpha rho_inf = 0), against the static equations of the segment under it (n30 to n31,
#     xi = 0.3) solved by SciPy (K q = S^T g - lambda ((1 - xi) Phi_A + xi Phi_B)^T n, lambda n_y = m g, n . (P - A) = 0):
#     the tip's sag and the mass's height within 1e-10 m, the force within 1e-8 N; and the same mass at x = 0.8 (a node
#     where two segments meet) against the same equations with n30..n31's end, B = n31 (xi = 1);
# (b) a ball (0.2 kg) sliding with friction (mu = 0.2) along the almost rigid beam's chain (the beam clamped), from
#     x = 0.05 at 1.5 m/s, under gravity, over 1 s at h = 1e-3 (nsgalpha rho_inf = 0.8): it crosses six segments (the active
#     one changes at x = 0.1 .. 0.6) and stops at v0^2/(2 mu g) = 0.5734 m; against the straight line's exact motion
#     x0 + v0 t - mu g t^2/2 (nsgalpha is exact for a constant friction force, to the discrete stop) within 3e-8 m (measured
#     8.2e-9: the almost rigid beam sags 1.3e-9 m under the ball and rings at its MHz modes after the start and the stop), its
#     height 0.025 m within 1e-8 m, its normal force m g within 1e-4 N while it slides (measured 3.1e-5 N: each change of
#     the active segment changes the rate at which the load moves between the nodes, which rings the beam; 1.2e-8 N on one
#     segment); the chain of two points (one segment, n23 and n33) on the same path: the same motion within 1e-8 m;
#     Moreau-Jean theta = 1/2 (x within 2 g h^2, measured 2.0e-6 m; its gap drifts 9.8e-6 m at velocity level) and mixed
#     genalpha rho_inf = 0.8 (x 7.1e-8 m, height 3.4e-7 m, normal force 2.9e-7 N) on the chain of eleven points;
# (d) a prismatic joint whose axis is on a flexible body: a slider (0.5 kg) on a rail, the almost rigid beam's top edge
#     chain, the beam clamped tilted 0.3 rad down, from s = 0.1 m along it at 0.5 m/s, gravity, nsgalpha rho_inf = 0.8,
#     h = 1e-3, 0.5 s: s against 0.1 + 0.5 t + g sin(0.3) t^2/2 across seven segments within 3e-8 m, off the rail within
#     1e-8 m, the rail's normal reaction m g cos 0.3 within 1e-4 N after 0.1 s;
# (e) the same slider released at rest at x = 0.3 on the flexible beam's (E = 2e9, clamped level) rail: it slides towards
#     the tip as the beam sags, its rail row at round-off (GGL, < 1e-12), its energy output constant within 1e-3 (rho_inf = 1);
# (c) bad input: a chain of one point, chain_nodes of a rigid body, a node the ROM does not have, chain_nodes of another
#     count, a chain with line_point2, two points of the chain at one place (the first on 1 and 2 ranks); a chain on a revolute joint,
#     a rail joint with an axis, a driven rail, a joint_slide of a rail, a prismatic axis on a flexible body without a chain.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_scipy
outs=22:x,22:y
for i in $(seq 23 33); do outs=$outs,$i:x,$i:y; done
beam() {
  mpi 60 1 reduce -mesh_rect_cells 10,2 -mesh_rect_lengths 1,0.05 -mesh_rect_thickness 0.05 -mesh_rect_origin 0,-0.025 -model_young "$1" \
    -model_poisson 0.3 -model_density 1000 -model_clamp xmin -cms_type cb -cms_contact_nodes 22 -cms_contact_dirs 2 -cms_contact_normal 1,0,0 \
    -cms_contact_t1 0,1,0 -cms_num_modes 4 -cms_outputs $outs -cms_units SI -cms_frame_invariants -rom_file "$2"
}
must "reduce the beam" beam 2e9 beam.h5 || exit 1
must "reduce the almost rigid beam" beam 1e15 stiff.h5 || exit 1
chain="[[0, 0.025], [0.1, 0.025], [0.2, 0.025], [0.3, 0.025], [0.4, 0.025], [0.5, 0.025], [0.6, 0.025], [0.7, 0.025], [0.8, 0.025], [0.9, 0.025], [1, 0.025]]"
nodes="[n23, n24, n25, n26, n27, n28, n29, n30, n31, n32, n33]"
cat >a.yaml <<YAML
parameters: {x: 0.73}
gravity: [0, -9.81]
bodies:
  - {name: f, type: flexible, rom: beam.h5, position: [0, 0]}
  - {name: m, mass: 1.5, inertia: 0.01, position: [x, 0.025]}
joints:
  - {name: clamp, type: fixed, body1: ground, point1: [0, 0], body2: f, point2: [0, 0]}
  - {name: guide, type: prismatic, body1: ground, point1: [x, 0], body2: m, point2: [0, 0], axis: [0, 1]}
contacts:
  - {name: rest, body: m, point: [0, 0], against: f, restitution: 0,
     chain: $chain,
     chain_nodes: $nodes}
outputs:
  - {name: tip, type: point, body: f, point: [1, 0], node: n22}
  - {name: c, type: point, body: m}
  - {name: F, type: contact_force, contact: rest}
YAML
cat >b.yaml <<YAML
gravity: [0, -9.81]
bodies:
  - {name: f, type: flexible, rom: stiff.h5, position: [0, 0]}
  - {name: ball, mass: 0.2, inertia: 1e-4, position: [0.05, 0.025], velocity: [1.5, 0]}
joints:
  - {name: clamp, type: fixed, body1: ground, point1: [0, 0], body2: f, point2: [0, 0]}
contacts:
  - {name: edge, body: ball, point: [0, 0], against: f, restitution: 0, friction: 0.2,
     chain: $chain,
     chain_nodes: $nodes}
outputs:
  - {name: c, type: point, body: ball}
  - {name: F, type: contact_force, contact: edge}
YAML
sed -e 's/chain: \[\[0, 0.025\].*/chain: [[0, 0.025], [1, 0.025]],/' -e 's/chain_nodes: \[.*\]}/chain_nodes: [n23, n33]}/' b.yaml >b2.yaml
# (d), (e) a slider on a prismatic joint whose rail is the beam's top edge chain (body1 flexible)
$py - <<PY || exit 1
import numpy as np
c, s = np.cos(-0.3), np.sin(-0.3)
X = np.array([c * 0.1 - s * 0.025, s * 0.1 + c * 0.025])
V = 0.5 * np.array([c, s])
for name, rom, ang, x, v in (("d.yaml", "stiff.h5", -0.3, X, V), ("e.yaml", "beam.h5", 0.0, np.array([0.3, 0.025]), np.zeros(2))):
    open(name, "w").write("""gravity: [0, -9.81]
bodies:
  - {name: f, type: flexible, rom: %s, position: [0, 0], angle: %r}
  - {name: s, mass: 0.5, inertia: 1e-3, position: [%r, %r], angle: %r, velocity: [%r, %r]}
joints:
  - {name: clamp, type: fixed, body1: ground, point1: [0, 0], body2: f, point2: [0, 0]}
  - {name: rail, type: prismatic, body1: f, body2: s, point2: [0, 0],
     chain: $chain,
     chain_nodes: $nodes}
outputs:
  - {name: c, type: point, body: s}
  - {name: R, type: joint_force, joint: rail}
  - {name: tip, type: point, body: f, point: [1, 0], node: n22}
  - {name: E, type: energy}
""" % (rom, ang, x[0], x[1], ang, v[0], v[1]))
PY
mb="-system_type multibody -step_type nsgalpha"
must "(a) x = 0.73" mpi 60 1 simulate $mb -mb_model a.yaml -step_rho_inf 0 -step_dt 0.1 -step_end_time 3 -results_file a73.h5
must "(a) x = 0.8" mpi 60 1 simulate $mb -mb_model a.yaml -mb_param_x 0.8 -step_rho_inf 0 -step_dt 0.1 -step_end_time 3 -results_file a80.h5
must "(b) the chain of eleven points" mpi 60 1 simulate $mb -mb_model b.yaml -step_rho_inf 0.8 -step_dt 1e-3 -step_end_time 1 -results_file b.h5
must "(b) the chain of two points" mpi 60 1 simulate $mb -mb_model b2.yaml -step_rho_inf 0.8 -step_dt 1e-3 -step_end_time 1 -results_file b2.h5
must "(b) Moreau-Jean" mpi 60 1 simulate -system_type multibody -mb_model b.yaml -step_type moreau -step_moreau_variant theta -step_theta 0.5 \
  -step_dt 1e-3 -step_end_time 1 -results_file bm.h5
must "(b) mixed" mpi 60 1 simulate $mb -mb_model b.yaml -step_type mixed -step_rho_inf 0.8 -step_dt 1e-3 -step_end_time 1 -results_file bx.h5
must "(d) a slider on the almost rigid rail" mpi 60 1 simulate $mb -mb_model d.yaml -step_rho_inf 0.8 -step_dt 1e-3 -step_end_time 0.5 -results_file d.h5
must "(e) a slider on the flexible rail" mpi 60 1 simulate $mb -mb_model e.yaml -step_rho_inf 1 -step_dt 1e-3 -step_end_time 0.5 -results_file e.h5
VICMS_SOURCE="$VICMS_SOURCE" $py - <<'PY' || fail=1
import os
import sys

import h5py
import numpy as np
from scipy.optimize import fsolve

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
import mbcheck
from mbcheck import check, case

rom = h5py.File("beam.h5", "r")
K = rom["K"][()]
out = rom["outputs"]
Phi = {i: np.array([out["n%d_x" % i][()], out["n%d_y" % i][()]]) for i in range(22, 34)}
nf = len(K)
S = rom["frame/mode_moment"][()]
m, g = 1.5, np.array([0.0, -9.81])


def line(z, x, a, b):
    """the static equations of the mass at x on the segment from node a to node b"""
    q, lam, y = z[:nf], z[nf], z[nf + 1]
    A = np.array([0.1 * (a - 23), 0.025]) + Phi[a] @ q
    B = np.array([0.1 * (b - 23), 0.025]) + Phi[b] @ q
    P = np.array([x, y])
    t = (B - A) / np.linalg.norm(B - A)
    n = np.array([-t[1], t[0]])
    xi = t @ (P - A) / np.linalg.norm(B - A)
    Q = -lam * ((1 - xi) * Phi[a].T @ n + xi * Phi[b].T @ n)
    return np.concatenate([K @ q - S.T @ g - Q, [lam * n[1] + m * g[1], n @ (P - A)]])


def xi(z, x, a, b):
    A = np.array([0.1 * (a - 23), 0.025]) + Phi[a] @ z[:nf]
    B = np.array([0.1 * (b - 23), 0.025]) + Phi[b] @ z[:nf]
    return (B - A) @ (np.array([x, z[nf + 1]]) - A) / ((B - A) @ (B - A))


# at x = 0.8 the mass is over the node n31 where two segments meet: the segment whose foot xi is in [0, 1] at the solution
for x, file, segs in ((0.73, "a73.h5", ((30, 31),)), (0.8, "a80.h5", ((30, 31), (31, 32)))):
    _, o, _, _ = case(file)
    best = None
    for a, b in segs:
        z = fsolve(lambda z: line(z, x, a, b), np.concatenate([np.zeros(nf), [-m * g[1], 0.025]]), xtol=1e-14)
        tip, lam, y = (Phi[22] @ z[:nf])[1], z[nf], z[nf + 1]
        e = (abs(o["tip_y"][-1] - tip), abs(o["F"][-1] - lam), abs(o["c_y"][-1] - y))
        if -1e-12 <= xi(z, x, a, b) <= 1 + 1e-12 and (best is None or max(e) < max(best[0])):
            best = (e, a, b, tip, lam, y, xi(z, x, a, b))
    (dtip, dF, dy), a, b, tip, lam, y, xs = best
    check(dtip <= 1e-10 and dF <= 1e-8 and dy <= 1e-10,
          "(a) a mass at x = %g resting on the flexible beam's edge chain (eleven nodes) at rest, nsgalpha rho_inf = 0: tip sag %.9e m, the static "
          "equations' of the segment n%d-n%d (xi = %.6f) %.9e: %.1e (<= 1e-10); contact force %.9f N, %.9f: %.1e (<= 1e-8); the mass's height "
          "%.9f m, %.9f: %.1e (<= 1e-10)" % (x, o["tip_y"][-1], a, b, xs, tip, dtip, o["F"][-1], lam, dF, o["c_y"][-1], y, dy))
# (b) x0 + v0 t - mu g t^2/2 until the stop, then the discrete stop (the last level's x)
mu, gg, v0, x0 = 0.2, 9.81, 1.5, 0.05
for name, file in (("eleven points", "b.h5"), ("two points", "b2.h5")):
    t, o, _, _ = case(file)
    ts = v0 / (mu * gg)
    sl = t < ts - 2e-3
    ex = x0 + v0 * t - mu * gg * t * t / 2
    dx = np.abs(o["c_x"][sl] - ex[sl]).max()
    stop = o["c_x"][-1]
    dst = abs(stop - (x0 + v0 * v0 / (2 * mu * gg)))
    dy = np.abs(o["c_y"] - 0.025).max()
    late = (t > 0.05) & sl & (t < ts - 1e-2)  # the almost rigid beam rings at its MHz modes after the start and the stop (both schemes damp it)
    dF = np.abs(o["F"][late] - 0.2 * gg).max()
    check(dx < 3e-8 and dst < mu * gg * 1e-6 / 2 and dy < 1e-8 and dF < 1e-4 and o["c_x"][sl].max() > 0.55,
          "(b) a ball sliding (mu = 0.2) along the almost rigid beam's chain of %s from x = 0.05 at 1.5 m/s: x against x0 + v0 t - mu g t^2/2 "
          "while it slides (to %.3f m): %.1e m (< 3e-8); the stop %.6f m, v0^2/(2 mu g) from x0 %.6f: %.1e (< mu g h^2/2); height %.1e m "
          "(< 1e-8: the beam's sag under the ball, m g / (3 E I) = 1.3e-9 m at the tip); normal force while it slides against m g %.1e N (< 1e-4)"
          % (name, o["c_x"][sl].max(), dx, stop, x0 + v0 * v0 / (2 * mu * gg), dst, dy, dF))
# the other schemes on the chain: Moreau-Jean (velocity level: its gap drifts), mixed genalpha (friction a force at every stage)
for name, file, tx, ty, tF in (("Moreau-Jean theta = 1/2", "bm.h5", 2 * gg * 1e-6, 2 * gg * 1e-6, None), ("mixed genalpha", "bx.h5", 1e-6, 1e-6, 1e-5)):
    t, o, _, _ = case(file)
    sl = t < v0 / (mu * gg) - 2e-3
    dx = np.abs(o["c_x"][sl] - (x0 + v0 * t - mu * gg * t * t / 2)[sl]).max()
    dy = np.abs(o["c_y"] - 0.025).max()
    late = (t > 0.1) & (t < v0 / (mu * gg) - 1e-2)
    dF = np.abs(o["F"][late] - 0.2 * gg).max()
    check(dx < tx and dy < ty and (tF is None or dF < tF),
          "(b) %s on the chain of eleven points: x against x0 + v0 t - mu g t^2/2 while it slides %.1e m (< %.0e), height %.1e m (< %.0e), "
          "normal force against m g %.1e N%s" % (name, dx, tx, dy, ty, dF, " (< %.0e)" % tF if tF else " (not asserted: the velocity-level contact rings the beam)"))
_, o1, _, _ = case("b.h5")
_, o2, _, _ = case("b2.h5")
d = max(np.abs(o1[k] - o2[k]).max() for k in ("c_x", "c_y"))
check(d < 1e-8, "(b) the chain of eleven points against the chain of two (one straight segment; its force loads the end nodes n23 and n33, "
      "the chain's the nodes under the ball: the beam's sag differs by its order, 1e-9 m): the ball within %.1e m (< 1e-8)" % d)
# (d) the slider on the tilted almost rigid rail: s = 0.1 + 0.5 t + g sin(0.3) t^2/2 along it, 0.025 across, in the beam's frame
t, o, _, _ = case("d.h5")
ca, sa = np.cos(0.3), np.sin(0.3)
xs, ys = ca * o["c_x"] - sa * o["c_y"], sa * o["c_x"] + ca * o["c_y"]
ds = np.abs(xs - (0.1 + 0.5 * t + gg * sa * t * t / 2)).max()
dn = np.abs(ys - 0.025).max()
late = t > 0.1  # the almost rigid beam starts undeformed and rings at its MHz modes until the scheme damps it (as (b))
dR = np.abs(np.abs(o["R_x"][late]) - 0.5 * gg * ca).max()
check(ds < 3e-8 and dn < 1e-8 and dR < 1e-4 and xs[-1] > 0.6,
      "(d) a slider on a prismatic joint along the almost rigid beam's edge chain, tilted 0.3 rad, from s = 0.1 m at 0.5 m/s: s against "
      "0.1 + 0.5 t + g sin(0.3) t^2/2 (to %.3f m, across seven segments) %.1e m (< 3e-8), off the rail %.1e m (< 1e-8), the rail's normal "
      "reaction against m g cos 0.3 = %.6f N after 0.1 s %.1e N (< 1e-4)" % (xs[-1], ds, dn, 0.5 * gg * ca, dR))
# (e) on the flexible rail: on it (GGL), the energy kept (rho_inf = 1, no damping), towards the tip as the beam sags
t, o, gaps, _ = case("e.h5")
rail = np.abs(gaps[:, 3]).max()
dE = np.abs(o["E"] - o["E"][0]).max() / np.abs(o["E"]).max()
check(rail < 1e-12 and dE < 1e-3 and o["c_x"][-1] > 0.3 and o["tip_y"].min() < -1e-3,
      "(e) a slider released on the flexible beam's (E = 2e9) rail chain: it slides towards the tip (x = %.4f m at 0.5 s; the tip sags to %.2e m); "
      "its rail row %.1e (< 1e-12); its energy output within %.1e of its largest (< 1e-3)" % (o["c_x"][-1], o["tip_y"].min(), rail, dE))
sys.exit(mbcheck.bad)
PY
# (c) each: WHAT, RANKS, the model it edits, the sed expression, the file it writes, the message expected
bad() {
  sed -e "$4" "$3" >"$5"
  refuse_simulate "$1" "$2" "$6" $mb -mb_model "$5" -step_dt 0.1 -step_end_time 0.2
}
bad "a chain of one point" "1 2" a.yaml 's/chain: \[\[0, 0.025\].*/chain: [[0, 0.025]],/; s/chain_nodes: \[.*\]}/chain_nodes: [n23]}/' one.yaml \
  "one.yaml:11: contact 'rest': 'chain' has 1 point: a chain of segments needs two or more points"
bad "chain_nodes of a rigid body" 1 a.yaml 's/against: f, restitution: 0,/against: ground, restitution: 0,/' rigid.yaml \
  "rigid.yaml:12: contact 'rest': 'chain_nodes' names nodes of a flexible body's ROM, and 'ground'"
bad "a node the ROM does not have" 1 a.yaml 's/chain_nodes: \[n23, n24,/chain_nodes: [n23, n99,/' n99.yaml "n99.yaml:12: .*n99"
bad "chain_nodes of another count" 1 a.yaml 's/chain_nodes: \[n23, n24,/chain_nodes: [n24,/' count.yaml \
  "count.yaml:12: contact 'rest': 'chain_nodes' must list one ROM output stem per point of 'chain' (11 stems"
bad "a chain with line_point2" 1 a.yaml 's/against: f, restitution: 0,/against: f, restitution: 0, line_point2: [1, 0.025],/' both.yaml \
  "both.yaml:10: contact 'rest': 'line_point2' is a line's key"
bad "two points of the chain at one place" 1 a.yaml 's/\[0.1, 0.025\], \[0.2, 0.025\]/[0.1, 0.025], [0.1, 0.025]/' same.yaml \
  "same.yaml:11: contact 'rest': points 2 and 3 of 'chain' are one point"
bad "a chain on a revolute joint" 1 d.yaml 's/type: prismatic, body1: f,/type: revolute, body1: f,/' revchain.yaml \
  "revchain.yaml:8: joint 'rail': 'chain' is the rail of a prismatic joint whose body1 is a flexible"
bad "a rail joint with an axis" 1 d.yaml 's/body2: s, point2: \[0, 0\],/body2: s, point2: [0, 0], axis: [1, 0],/' railaxis.yaml \
  "railaxis.yaml:7: joint 'rail': its rail is the chain"
bad "a driven rail" 1 d.yaml 's/body2: s, point2: \[0, 0\],/body2: s, point2: [0, 0], speed: 0.5,/' raildriven.yaml \
  "raildriven.yaml:7: joint 'rail': a prescribed slide along a chain is not supported"
bad "a joint_slide of a rail" 1 d.yaml 's/type: joint_force, joint: rail/type: joint_slide, joint: rail/' railslide.yaml \
  "railslide.yaml:12: output 'R': the joint 'rail' slides along a chain"
bad "a prismatic axis on a flexible body" 1 d.yaml 's/chain: \[\[0, 0.025\].*/axis: [1, 0]}/; /chain_nodes:/d' railnochain.yaml \
  "railnochain.yaml:7: joint 'rail': a prismatic joint's axis on the flexible body 'f' deforms"
exit $fail
