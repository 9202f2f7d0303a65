#!/usr/bin/env bash
# A spatial flexible body's nodes (dim: 3, type: flexible; src/system/mbpoint.c, mbflexspatial.c; docs/multibody.md
# "Spatial flexible bodies"), issue 23: a node on a spring, on a prismatic joint, against a moving body's plane, and
# 'tributary' weights on a 3-D ROM's edge and face. The body: a steel beam 1 x 0.05 x 0.03 m of 8 x 2 x 2 C3D8 clamped at
# x = 0 (the frame: the mesh's axes and origin), Craig-Bampton with its tip's centre n45 in x, y, z; E = 2e11 (4 modes,
# the flexible beam) and E = 1e15 (2 modes, the almost rigid one).
# (a) the almost rigid beam on a spherical joint at its frame's origin, its tip node n45 on a damped spring to the ground
#     (out of the plane: a 3-D swing), gravity, nsgalpha rho_inf = 1 over 0.2 s, against the rigid spatial body of its
#     invariants (m, c = I_1 / m, J_c = tr(J) I - J - m (|c|^2 I - c c^T)) with the spring at the same point: the tip and
#     the tension within TOL_A_TIP, TOL_A_N at h = 1e-3 (measured 4.6e-5 m of a 0.78 m motion, 0.13 N of 539 N: the two
#     runs' O(h^2) errors in different coordinates, the rigid body's own is as large) and four times smaller at 5e-4
#     (ratios >= 3; measured 3.95, 4.8);
# (b) the flexible beam clamped (a fixed joint to the ground), no gravity, its tip node on an oblique pushing spring: at
#     rest after 1 s at h = 0.02 (nsgalpha rho_inf = 0, Moreau-Jean theta = 1), the tip and the tension against the ROM's
#     static equilibrium K q = Phi_P^T (-N e), N = k (l - L0) at the deformed tip, solved here by SciPy: within 1e-10 m and
#     1e-6 N (measured 0 and 0: equal to the last bit; deflection 0.31 mm, tension -214.7 N);
# (c) the almost rigid beam's tip node on a prismatic joint to the ground along x (the frame's rotation held), pulled
#     along the axis by a spring (k = 1000 N/m, 0.05 m from its free length), gravity across the axis: the node's x
#     against the harmonic oscillator of the body's mass, x_eq - 0.05 cos(sqrt(k / m) t), nsgalpha rho_inf = 0.9 over
#     0.5 s at h = 1e-3 and 5e-4: within 1e-5 m (measured 1.66e-6), second order (ratio >= 3; measured 4.00), and its
#     y, z on the joint's line within 1e-10 m (measured 3.5e-18);
# (d) the flexible beam clamped, its tip node resting (restitution 0) on the top plane of a 1.5 kg block on a vertical
#     prismatic guide pushed up by a spring, gravity on both: at rest after 2 s at h = 0.02 (nsgalpha rho_inf = 0), the
#     tip, the block's height and the contact force against the linear static equations solved here
#     (K q = S^T g + lambda Phi_P^T n, k (l - L0) + m g + lambda = 0 on the block, the gap 0): within 1e-10 m, 1e-10 m
#     and 1e-6 N (measured 0, 1.4e-17 m, 3.6e-14 N of 35.3 N);
# (e) a ROM of the beam with its 9 tip-face nodes as boundary nodes: a spring at the face's nodes with 'tributary' against
#     the same with the tributary areas given ([1, 2, 1, 2, 4, 2, 1, 2, 1]), and at an edge's 3 nodes against [1, 2, 1]
#     (the tip's motion equal to 1e-12 m; measured 3.6e-17, 0); bad input: tributary nodes of no edge or full face grid,
#     a node that is not a boundary node.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_scipy
beam() {
  local E=$1 modes=$2 out=$3 nodes=$4 outs=$5
  mpi 60 1 reduce -mesh_box_cells 8,2,2 -mesh_box_lengths 1,0.05,0.03 -model_young "$E" -model_poisson 0.3 -model_density 7800 \
    -model_clamp xmin -cms_type cb -cms_contact_nodes "$nodes" -cms_contact_dirs 3 -cms_contact_normal 1,0,0 -cms_contact_t1 0,1,0 \
    -cms_num_modes "$modes" -cms_outputs "$outs" -cms_frame_invariants -cms_units SI -rom_file "$out"
}
face="9 18 27 36 45 54 63 72 81"
faceouts=$(for n in $face; do printf '%s:x,%s:y,%s:z,' $n $n $n; done)
must "reduce the beam" beam 2e11 4 beam.h5 45 45:x,45:y,45:z || exit 1
must "reduce the almost rigid beam" beam 1e15 2 stiff.h5 45 45:x,45:y,45:z || exit 1
must "reduce the beam with its tip face" beam 2e11 2 face.h5 "$(echo $face | tr ' ' ,)" "${faceouts%,}" || exit 1
# (a) the rigid twin of the almost rigid beam, with the spring at the tip node's point
$py - <<'PY' || exit 1
import os
import sys
import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
from mbcheck import frame_body

m, c, Jc = frame_body("stiff.h5")  # the rigid twin's mass, centre and inertia about it
f = lambda x: "[" + ", ".join(repr(float(t)) for t in x) + "]"
tip = np.array([1, 0.025, 0.015])
head = "dim: 3\ngravity: [0, -9.81, 0]\nbodies:\n"
spring = "springs:\n  - {name: s, body1: ground, point1: [1.2, -0.5, 0.3], body2: beam, point2: %s%s, stiffness: 2000, damping: 5, length: 0.4}\n"
out = "outputs:\n  - {name: tip, type: point, body: beam, point: %s%s}\n  - {name: N, type: spring_force, spring: s}\n"
with open("a_rigid.yaml", "w") as o:
    o.write(head + f"  - {{name: beam, mass: {m!r}, inertia: {f([Jc[0, 0], Jc[1, 1], Jc[2, 2], Jc[0, 1], Jc[0, 2], Jc[1, 2]])}, position: {f(c)}}}\n"
            f"joints:\n  - {{name: pin, type: spherical, body1: ground, body2: beam, point2: {f(-c)}}}\n" + spring % (f(tip - c), "") + out % (f(tip - c), ""))
with open("a_flex.yaml", "w") as o:
    o.write(head + "  - {name: beam, type: flexible, rom: stiff.h5, position: [0, 0, 0]}\njoints:\n  - {name: pin, type: spherical, body1: ground, body2: beam}\n"
            + spring % (f(tip), ", node2: n45") + out % (f(tip), ", node: n45"))
PY
cat >b.yaml <<'YAML'
dim: 3
bodies:
  - {name: beam, type: flexible, rom: beam.h5, position: [0, 0, 0]}
joints:
  - {name: clamp, type: fixed, body1: ground, body2: beam}
springs:
  - {name: s, body1: ground, point1: [1.2, 0.3, 0.2], body2: beam, point2: [1, 0.025, 0.015], node2: n45, stiffness: 20000, length: 0.3981}
outputs:
  - {name: tip, type: point, body: beam, point: [1, 0.025, 0.015], node: n45}
  - {name: N, type: spring_force, spring: s}
YAML
cat >c.yaml <<'YAML'
dim: 3
gravity: [0, -9.81, 0]
bodies:
  - {name: beam, type: flexible, rom: stiff.h5, position: [0, 0, 0]}
joints:
  - {name: slide, type: prismatic, body1: ground, point1: [1, 0.025, 0.015], body2: beam, point2: [1, 0.025, 0.015], node2: n45, axis: [1, 0, 0]}
springs:
  - {name: s, body1: ground, point1: [2, 0.025, 0.015], body2: beam, point2: [1, 0.025, 0.015], node2: n45, stiffness: 1000, length: 0.95}
outputs:
  - {name: tip, type: point, body: beam, point: [1, 0.025, 0.015], node: n45}
YAML
cat >d.yaml <<'YAML'
dim: 3
gravity: [0, -9.81, 0]
bodies:
  - {name: beam, type: flexible, rom: beam.h5, position: [0, 0, 0]}
  - {name: block, mass: 1.5, inertia: [0.01, 0.01, 0.01], position: [1, -0.075, 0.015]}
joints:
  - {name: clamp, type: fixed, body1: ground, body2: beam}
  - {name: guide, type: prismatic, body1: ground, point1: [1, -0.075, 0.015], body2: block, axis: [0, 1, 0]}
springs:
  - {name: s, body1: ground, point1: [1, -0.5, 0.015], body2: block, stiffness: 5000, length: 0.435}
contacts:
  - {name: rest, body: beam, point: [1, 0.025, 0.015], node: n45, against: block, plane_point: [0, 0.1, 0], plane_normal: [0, 1, 0],
     restitution: 0}
outputs:
  - {name: tip, type: point, body: beam, point: [1, 0.025, 0.015], node: n45}
  - {name: b, type: point, body: block}
  - {name: F, type: contact_force, contact: rest}
YAML
nodes=$(echo $face | sed 's/\([0-9]*\)/n\1/g; s/ /, /g')
for w in tributary "[1, 2, 1, 2, 4, 2, 1, 2, 1]"; do
  for set in face edge; do
    if [ $set = face ]; then nl="[$nodes]"; ww=$w; else nl="[n9, n36, n63]"; ww=$([ "$w" = tributary ] && echo tributary || echo "[1, 2, 1]"); fi
    cat >e_${set}_$([ "$w" = tributary ] && echo t || echo w).yaml <<YAML
dim: 3
gravity: [0, -9.81, 0]
bodies:
  - {name: beam, type: flexible, rom: face.h5, position: [0, 0, 0]}
joints:
  - {name: pin, type: revolute, body1: ground, body2: beam, axis: [0, 0, 1]}
springs:
  - {name: s, body1: ground, point1: [1.1, -0.4, 0.1], body2: beam, point2: [1, 0.025, 0.015], node2: $nl, weights2: $ww, stiffness: 3000}
outputs:
  - {name: tip, type: point, body: beam, point: [1, 0.025, 0.015], node: $nl, weights: $ww}
YAML
  done
done
mb="-system_type multibody"
for h in 1e-3 5e-4; do
  every=$([ $h = 1e-3 ] && echo 1 || echo 2)
  must "(c) h = $h" mpi 60 1 simulate $mb -mb_model c.yaml -step_type nsgalpha -step_rho_inf 0.9 -step_dt $h -step_end_time 0.5 \
    -step_output_every $every -results_file c_$h.h5
done
for h in 1e-3 5e-4; do
  for m in rigid flex; do
    must "(a) $m, h = $h" mpi 60 1 simulate $mb -mb_model a_$m.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt $h -step_end_time 0.2 \
      -step_output_every $([ $h = 1e-3 ] && echo 1 || echo 2) -results_file a_${m}_$h.h5
  done
done
must "(b) nsgalpha" mpi 60 1 simulate $mb -mb_model b.yaml -step_type nsgalpha -step_rho_inf 0 -step_dt 0.02 -step_end_time 1 -results_file b_n.h5
must "(b) moreau" mpi 60 1 simulate $mb -mb_model b.yaml -step_type moreau -step_moreau_variant theta -step_theta 1 -step_dt 0.02 -step_end_time 1 \
  -results_file b_m.h5
must "(d) nsgalpha" mpi 60 1 simulate $mb -mb_model d.yaml -step_type nsgalpha -step_rho_inf 0 -step_dt 0.02 -step_end_time 2 -results_file d_n.h5
for f in e_face_t e_face_w e_edge_t e_edge_w; do
  must "(e) $f" mpi 60 1 simulate $mb -mb_model $f.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt 1e-3 -step_end_time 0.02 -results_file $f.h5
done
$py - <<'PY' || fail=1
import os
import sys

import h5py
import numpy as np
from scipy.optimize import fsolve

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
import mbcheck
from mbcheck import check, case

TOL_A_TIP, TOL_A_N = 1e-4, 0.3
# (a)
dtip, dN = {}, {}
for h in ("1e-3", "5e-4"):
    _, f, _, _ = case("a_flex_%s.h5" % h)
    _, r, _, _ = case("a_rigid_%s.h5" % h)
    dtip[h] = max(np.abs(f[k] - r[k]).max() for k in ("tip_x", "tip_y", "tip_z"))
    dN[h] = np.abs(f["N"] - r["N"]).max()
check(dtip["1e-3"] <= TOL_A_TIP and dN["1e-3"] <= TOL_A_N and dtip["1e-3"] >= 3 * dtip["5e-4"] and dN["1e-3"] >= 3 * dN["5e-4"],
      "(a) the almost rigid beam's tip node on a spring against the rigid body: tip within %.2e m at h = 1e-3 (<= %.0e; it moves %.2f m), "
      "%.2e at 5e-4 (ratio %.2f >= 3), tension within %.2e N (<= %.0e; up to %.1f N), %.2e (ratio %.2f >= 3)"
      % (dtip["1e-3"], TOL_A_TIP, max(np.ptp(r[k]) for k in ("tip_x", "tip_y", "tip_z")), dtip["5e-4"], dtip["1e-3"] / dtip["5e-4"], dN["1e-3"],
         TOL_A_N, np.abs(r["N"]).max(), dN["5e-4"], dN["1e-3"] / dN["5e-4"]))
rom = h5py.File("beam.h5", "r")
K = rom["K"][()]
out = rom["outputs"]
Phi = np.array([out["n45_%s" % c][()] for c in "xyz"])
S = np.reshape(rom["frame/mode_moment"][()], (3, -1))
nf = len(K)
X0 = np.array([1, 0.025, 0.015])
# (b) K q = Phi^T (-N e), N = k (l - L0), e = (P2 - P1) / l
P1, k, L0 = np.array([1.2, 0.3, 0.2]), 20000.0, 0.3981


def spring(q):
    P = X0 + Phi @ q
    d = P - P1
    l = np.linalg.norm(d)
    return P, k * (l - L0), d / l


q = fsolve(lambda q: K @ q + Phi.T @ (spring(q)[1] * spring(q)[2]), np.zeros(nf), xtol=1e-14)
P, N, _ = spring(q)
for name, file, tolP, tolN in (("nsgalpha rho_inf = 0", "b_n.h5", 1e-10, 1e-6), ("Moreau-Jean theta = 1", "b_m.h5", 1e-10, 1e-6)):
    _, o, _, _ = case(file)
    dP = max(abs(o["tip_%s" % c][-1] - P[i]) for i, c in enumerate("xyz"))
    check(dP <= tolP and abs(o["N"][-1] - N) <= tolN,
          "(b) %s: the clamped beam's tip node on a spring at rest against the ROM's static equilibrium: tip %.1e m (<= %.0e; deflection "
          "%.2e m), tension %.9f N against %.9f: %.1e (<= %.0e)" % (name, dP, tolP, np.linalg.norm(Phi @ q), o["N"][-1], N, abs(o["N"][-1] - N), tolN))
# (c) the harmonic oscillator of the body's mass along the axis
m = float(np.ravel(h5py.File("stiff.h5", "r")["frame/mass"][()])[0])
w = np.sqrt(1000 / m)
e = {}
for h in ("1e-3", "5e-4"):
    t, o, _, _ = case("c_%s.h5" % h)
    e[h] = np.abs(o["tip_x"] - (1.05 - 0.05 * np.cos(w * t))).max()
    side = max(np.abs(o["tip_y"] - 0.025).max(), np.abs(o["tip_z"] - 0.015).max())
    check(side <= 1e-10, "(c) h = %s: the node on the prismatic joint's line: y, z within %.1e m (<= 1e-10)" % (h, side))
check(e["1e-3"] <= 1e-5 and e["1e-3"] >= 3 * e["5e-4"],
      "(c) the node on a prismatic joint against the harmonic oscillator (omega %.4f rad/s): %.2e m at h = 1e-3 (<= 1e-5), %.2e at 5e-4 "
      "(ratio %.2f >= 3)" % (w, e["1e-3"], e["5e-4"], e["1e-3"] / e["5e-4"]))
# (d) K q = S^T g + lambda Phi^T n; block: k (y_b + 0.5 - L0) + m_b g + lambda = 0; gap: X0_y + (Phi q)_y - (y_b + 0.1) = 0
g, mb, kb, Lb = np.array([0, -9.81, 0]), 1.5, 5000.0, 0.435
A = np.zeros((nf + 2, nf + 2))
b = np.zeros(nf + 2)
A[:nf, :nf] = K
A[:nf, nf + 1] = -Phi[1]
b[:nf] = S.T @ g
A[nf, nf], A[nf, nf + 1], b[nf] = kb, 1, -kb * (0.5 - Lb) - mb * 9.81
A[nf + 1, :nf], A[nf + 1, nf], b[nf + 1] = Phi[1], -1, 0.1 - X0[1]
x = np.linalg.solve(A, b)
q, yb, lam = x[:nf], x[nf], x[nf + 1]
P = X0 + Phi @ q
t, o, _, _ = case("d_n.h5")
dP = max(abs(o["tip_%s" % c][-1] - P[i]) for i, c in enumerate("xyz"))
check(dP <= 1e-10 and abs(o["b_y"][-1] - yb) <= 1e-10 and abs(o["F"][-1] - lam) <= 1e-6,
      "(d) the clamped beam's tip node resting on the block's plane at rest against the static equations: tip %.1e m (<= 1e-10; its y %.6e m "
      "from the undeformed), the block's height %.1e m (<= 1e-10), the contact force %.6f N against %.6f: %.1e (<= 1e-6)"
      % (dP, P[1] - X0[1], abs(o["b_y"][-1] - yb), o["F"][-1], lam, abs(o["F"][-1] - lam)))
# (e)
for s in ("face", "edge"):
    _, a, _, _ = case("e_%s_t.h5" % s)
    _, b, _, _ = case("e_%s_w.h5" % s)
    d = max(np.abs(a[k] - b[k]).max() for k in ("tip_x", "tip_y", "tip_z"))
    check(d <= 1e-12, "(e) tributary weights on the tip's %s against the tributary %s given: the tip within %.1e m (<= 1e-12)"
          % (s, "areas" if s == "face" else "lengths", d))
sys.exit(mbcheck.bad)
PY
# (e) bad input
sed -e 's/node2: \[n9, n36, n63\], weights2: tributary/node2: [n9, n18, n45], weights2: tributary/' e_edge_t.yaml >nogrid.yaml
refuse_simulate "tributary nodes of no edge or full face grid" "1 2" "nogrid.yaml:8: 'weights2: tributary' needs the nodes of one straight edge, or all the nodes of a rectangular grid on one flat face" \
  $mb -mb_model nogrid.yaml -step_dt 1e-3 -step_end_time 0.002
sed -e 's/node2: \[n9, n36, n63\], weights2: tributary/node2: [n9, n36, n44], weights2: tributary/' e_edge_t.yaml >notbnd.yaml
refuse_simulate "a tributary node that is not a boundary node" "1" "notbnd.yaml:8: 'weights2: tributary' needs each node's position, and 'n44' is not a boundary node" \
  $mb -mb_model notbnd.yaml -step_dt 1e-3 -step_end_time 0.002
exit $fail
