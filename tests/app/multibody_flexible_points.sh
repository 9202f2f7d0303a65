#!/usr/bin/env bash
# A flexible body's node on a spring and a contact against the line through two points of a flexible body
# (docs/multibody.md "Spring–dampers" and "Contacts against a line of a flexible body"; src/system/mbpoint.c), issue 23.
# The body: a cantilever 1 x 0.05 x 0.05 m (10 x 2 CPS4, rho = 1000, nu = 0.3, clamped at x = 0, the frame's origin on its
# axis), Craig-Bampton with its tip's middle node n22 and 4 modes, the output rows of n22 and of the top nodes n23 (x = 0),
# n28 (x = 0.5) and n33 (x = 1); E = 2e9 (the flexible beam) and E = 1e15 (the almost rigid one).
# (a) the almost rigid beam pinned at its frame's origin, its tip node n22 on a damped spring to the ground, gravity,
#     nsgalpha rho_inf = 1 at h = 1e-3 over 1 s, against a rigid body with the same invariants (m, centre I_1 / m,
#     J_c = I_2 - m |c|^2 read from the ROM here) and the spring at the same point: the tip within 2e-6 m (measured
#     6.1e-7 of a 0.32 m swing: the two runs' own O(h^2) errors in different coordinates), the tension within 1e-3 N (of 43);
#     vicms's energy balance with the damper's work at the node within 1e-9 (measured 6.8e-14);
# (b) the flexible beam clamped (a fixed joint to the ground), no gravity, its tip node n22 on an oblique damped spring
#     (k = 4000 N/m, free length 0.495 m, 0.5 m long at the start: pushing): at rest after 1 s of h = 0.02 (nsgalpha
#     rho_inf = 0 and Moreau-Jean theta = 1 dissipate the motion), the tip and the tension against the static equilibrium
#     K q = Phi_P^T (-N e) of the ROM solved by SciPy (N = k (l - L0) at the deformed tip, exact): tip within 1e-10 m
#     (deflection 1.5 mm; measured 2.4e-15 and 2.0e-12), tension within 1e-6 N (of 15.2);
# (c) a ball (a rigid point mass, 0.2 kg) resting with friction (mu = 0.3, restitution 0) on the top line of the almost
#     rigid beam through n23 and n33, the beam pinned and pushed up by a spring at its tip, rocking (the ball stays in
#     contact, sticking: |F_t / F| <= 0.15), over 0.6 s at h = 1e-3, against the rigid body of (a) with the classic line
#     (line_point, line_normal) in its frame: nsgalpha rho_inf = 0.8 and Moreau-Jean theta = 1, the ball within 1e-7 m
#     and 2e-6 m (measured 2.2e-9, 2.5e-7); the normal and friction forces after 0.1 s (the almost rigid body starts
#     undeformed, not at its static preload, and rings at its MHz frequency until the schemes' dissipation damps it)
#     within 1e-5 N (nsgalpha; measured 1.7e-7) and 1e-4 N (Moreau-Jean; measured 9.5e-6) of 3 N, the friction within 1e-4 N;
#     and the rigid body's same line given by two points (line_point2) against its line_point and line_normal, nsgalpha:
#     the ball and the forces within 1e-10 (measured 5.6e-14: the two rows' round-off);
# (c') the same with the mixed scheme (seed 001), bathe and ED-alpha at rho_inf = 0, the flexible against the rigid beam:
#     the ball within 1e-8 m, the forces within 1e-6 N after 0.1 s (measured 6.8e-10 m, 3.8e-8 N; 1.3e-9 m, 7.7e-8 N), the
#     contact's gap never above 0 (velocity level: no release and new impact). genalpha at rho_inf = 0.8 is not asserted: its
#     stiff elastic coordinates' algorithmic accelerations ring (docs/multibody.md, "mixed on flexible bodies");
# (d) a 1.5 kg mass on a vertical prismatic guide at x = 0.8 resting on the flexible beam's top line through n28 and n33
#     (xi = 0.6 along it), gravity on both: at rest after 3 s at h = 0.1, against the static equations solved by SciPy
#     (K q = S^T g - lambda ((1 - xi) Phi_A + xi Phi_B)^T n, lambda n_y = m g, n . (P - A) = 0, n the deformed line's
#     normal): nsgalpha rho_inf = 0: the mass's height, the tip within 1e-10 m (sag 2.5 mm), the contact force within 1e-8 N
#     (of 14.7); Moreau-Jean theta = 1 at h = 0.01 over 2 s: its gap drifts at position level (velocity-level contact, as
#     Moreau-Jean's does; -1.2 mm here), so the same equations at the height the mass holds, without the gap's: the tip
#     within 1e-10 m and the force within 1e-8 N;
# (e) bad input: a one-point line (line_normal) on a flexible body, a two-point line whose points coincide, a line_normal
#     along the line, a line_node on the ground, weights2 without node2 on a spring, a node on a spatial model's rigid body's
#     spring end (1 and 2 ranks).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_scipy
beam() {
  local E=$1 out=$2
  mpi 60 1 reduce -mesh_rect_cells 10,2 -mesh_rect_lengths 1,0.05 -mesh_rect_thickness 0.05 -mesh_rect_origin 0,-0.025 -model_young "$E" \
    -model_poisson 0.3 -model_density 1000 -model_clamp xmin -cms_type cb -cms_contact_nodes 22 -cms_contact_dirs 2 -cms_contact_normal 1,0,0 \
    -cms_contact_t1 0,1,0 -cms_num_modes 4 -cms_outputs 22:x,22:y,23:x,23:y,28:x,28:y,33:x,33:y -cms_units SI -cms_frame_invariants -rom_file "$out"
}
must "reduce the beam" beam 2e9 beam.h5 || exit 1
must "reduce the almost rigid beam" beam 1e15 stiff.h5 || exit 1
cat >a_flex.yaml <<'YAML'
gravity: [0, -9.81]
bodies:
  - {name: f, type: flexible, rom: stiff.h5, position: [0, 0]}
joints:
  - {name: pin, type: revolute, body1: ground, point1: [0, 0], body2: f, point2: [0, 0]}
springs:
  - {name: s, body1: ground, point1: [1, -0.6], body2: f, point2: [1, 0], node2: n22, stiffness: 200, damping: 0.5, length: 0.5}
outputs:
  - {name: tip, type: point, body: f, point: [1, 0], node: n22}
  - {name: N, type: spring_force, spring: s}
YAML
cat >b.yaml <<'YAML'
gravity: [0, 0]
bodies:
  - {name: f, type: flexible, rom: beam.h5, position: [0, 0]}
joints:
  - {name: clamp, type: fixed, body1: ground, point1: [0, 0], body2: f, point2: [0, 0]}
springs:
  - {name: s, body1: ground, point1: [1.3, -0.4], body2: f, point2: [1, 0], node2: n22, stiffness: 4000, damping: 20, length: 0.495}
outputs:
  - {name: tip, type: point, body: f, point: [1, 0], node: n22}
  - {name: N, type: spring_force, spring: s}
YAML
cat >c_flex.yaml <<'YAML'
gravity: [0, -9.81]
bodies:
  - {name: f, type: flexible, rom: stiff.h5, position: [0, 0]}
  - {name: ball, mass: 0.2, inertia: 1e-4, position: [0.6, 0.025]}
joints:
  - {name: pin, type: revolute, body1: ground, point1: [0, 0], body2: f, point2: [0, 0]}
springs:
  - {name: s, body1: ground, point1: [1, -0.6], body2: f, point2: [1, 0], node2: n22, stiffness: 200, length: 0.7}
contacts:
  - {name: rest, body: ball, point: [0, 0], against: f, line_point: [0, 0.025], line_node: n23, line_point2: [1, 0.025], line_node2: n33,
     restitution: 0, friction: 0.3}
outputs:
  - {name: c, type: point, body: ball}
  - {name: F, type: contact_force, contact: rest}
  - {name: tip, type: point, body: f, point: [1, 0], node: n22}
YAML
cat >d.yaml <<'YAML'
gravity: [0, -9.81]
bodies:
  - {name: f, type: flexible, rom: beam.h5, position: [0, 0]}
  - {name: m, mass: 1.5, inertia: 0.01, position: [0.8, 0.025]}
joints:
  - {name: clamp, type: fixed, body1: ground, point1: [0, 0], body2: f, point2: [0, 0]}
  - {name: guide, type: prismatic, body1: ground, point1: [0.8, 0], body2: m, point2: [0, 0], axis: [0, 1]}
contacts:
  - {name: rest, body: m, point: [0, 0], against: f, line_point: [0.5, 0.025], line_node: n28, line_point2: [1, 0.025], line_node2: n33,
     restitution: 0}
outputs:
  - {name: tip, type: point, body: f, point: [1, 0], node: n22}
  - {name: c, type: point, body: m}
  - {name: F, type: contact_force, contact: rest}
YAML
# the rigid bodies with the almost rigid beam's invariants: (a) and (c) with the body's centre, its points in its frame
VICMS_SOURCE="$VICMS_SOURCE" $py - <<'PY' || exit 1
import os
import sys

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
from mbcheck import rigid_twin

for src, dst in (("a_flex.yaml", "a_rigid.yaml"), ("c_flex.yaml", "c_rigid.yaml")):
    s, c = rigid_twin(open(src).read(), "stiff.h5")
    open(dst, "w").write(s)
    if dst == "c_rigid.yaml":  # the same line through two points of the rigid body (its left side is up)
        s = s.replace("line_normal: [0, 1],", "line_point2: [%r, %r]," % (1 - c[0], 0.025 - c[1]))
        open("c_rigid2.yaml", "w").write(s)
PY
mb="-system_type multibody"
nsg="-step_type nsgalpha"
mj="-step_type moreau -step_moreau_variant theta -step_theta 1"
for m in a_flex a_rigid; do
  must "(a) $m" mpi 60 1 simulate $mb -mb_model $m.yaml $nsg -step_rho_inf 1 -step_dt 1e-3 -step_end_time 1 -results_file $m.h5
done
must "(b) nsgalpha" mpi 60 1 simulate $mb -mb_model b.yaml $nsg -step_rho_inf 0 -step_dt 0.02 -step_end_time 1 -results_file b_n.h5
must "(b) moreau" mpi 60 1 simulate $mb -mb_model b.yaml $mj -step_dt 0.02 -step_end_time 1 -results_file b_m.h5
for m in c_flex c_rigid; do
  must "(c) $m nsgalpha" mpi 60 1 simulate $mb -mb_model $m.yaml $nsg -step_rho_inf 0.8 -step_dt 1e-3 -step_end_time 0.6 -results_file ${m}_n.h5
  must "(c) $m moreau" mpi 60 1 simulate $mb -mb_model $m.yaml $mj -step_dt 1e-3 -step_end_time 0.6 -results_file ${m}_m.h5
done
must "(c) c_rigid2 nsgalpha" mpi 60 1 simulate $mb -mb_model c_rigid2.yaml $nsg -step_rho_inf 0.8 -step_dt 1e-3 -step_end_time 0.6 \
  -results_file c_rigid2_n.h5
for m in c_flex c_rigid; do
  for base in bathe edalpha; do
    must "(c') $m mixed $base" mpi 60 1 simulate $mb -mb_model $m.yaml -step_type mixed -step_mixed_base $base -step_rho_inf 0 -step_dt 1e-3 \
      -step_end_time 0.6 -results_file ${m}_$base.h5
  done
done
must "(d) nsgalpha" mpi 60 1 simulate $mb -mb_model d.yaml $nsg -step_rho_inf 0 -step_dt 0.1 -step_end_time 3 -results_file d_n.h5
must "(d) moreau" mpi 60 1 simulate $mb -mb_model d.yaml $mj -step_dt 0.01 -step_end_time 2 -results_file d_m.h5
VICMS_SOURCE="$VICMS_SOURCE" $py - <<'PY' || fail=1
import os
import sys

import h5py
import numpy as np
from scipy.optimize import fsolve

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
import mbcheck
from mbcheck import check, case

# (a)
_, f, _, _ = case("a_flex.h5")
_, r, _, _ = case("a_rigid.h5")
dtip = max(np.abs(f[k] - r[k]).max() for k in ("tip_x", "tip_y"))
dN = np.abs(f["N"] - r["N"]).max()
bal = float(h5py.File("a_flex.h5", "r")["cases/balance_error"][0])
check(abs(bal) <= 1e-9, "(a) the energy balance with the damper at the node (its work as external work): %.1e (<= 1e-9)" % bal)
check(dtip <= 2e-6 and dN <= 1e-3,
      "(a) the almost rigid beam's tip node on a spring against the rigid body: tip within %.2e m (<= 2e-6; it swings %.2f m), tension within "
      "%.2e N (<= 1e-3; up to %.1f N)" % (dtip, np.ptp(r["tip_y"]), dN, np.abs(r["N"]).max()))
rom = h5py.File("beam.h5", "r")
K = rom["K"][()]
out = rom["outputs"]
Phi = {k: np.array([out["%s_x" % k][()], out["%s_y" % k][()]]) for k in ("n22", "n28", "n33")}
nf = len(K)
# (b) K q = Phi^T (-N e): the spring's force on its body2's point, N = k (l - L0), e = (P2 - P1) / l
P1, k, L0 = np.array([1.3, -0.4]), 4000.0, 0.495


def spring(q):
    P = np.array([1.0, 0.0]) + Phi["n22"] @ q
    d = P - P1
    l = np.linalg.norm(d)
    return P, k * (l - L0), d / l


q = fsolve(lambda q: K @ q + Phi["n22"].T @ (spring(q)[1] * spring(q)[2]), np.zeros(nf), xtol=1e-14)
P, N, _ = spring(q)
for name, file in (("nsgalpha rho_inf = 0", "b_n.h5"), ("Moreau-Jean theta = 1", "b_m.h5")):
    _, o, _, _ = case(file)
    dP = max(abs(o["tip_x"][-1] - P[0]), abs(o["tip_y"][-1] - P[1]))
    check(dP <= 1e-10 and abs(o["N"][-1] - N) <= 1e-6,
          "(b) %s: the clamped beam's tip node on a spring at rest: tip (%.9f, %.9f) m, the ROM's static equilibrium's (%.9f, %.9f): %.1e "
          "(<= 1e-10; deflection %.2e m); tension %.9f N, %.9f: %.1e (<= 1e-6)"
          % (name, o["tip_x"][-1], o["tip_y"][-1], P[0], P[1], dP, np.linalg.norm(Phi["n22"] @ q), o["N"][-1], N, abs(o["N"][-1] - N)))
# (c)
for sch, tolc, tolF, tolT in (("n", 1e-7, 1e-5, 1e-4), ("m", 2e-6, 1e-4, 1e-4)):
    t, f, _, _ = case("c_flex_%s.h5" % sch)
    _, r, _, _ = case("c_rigid_%s.h5" % sch)
    late = t >= 0.1
    dc = max(np.abs(f[k] - r[k]).max() for k in ("c_x", "c_y"))
    dF, dT = np.abs(f["F"] - r["F"])[late].max(), np.abs(f["F_t"] - r["F_t"])[late].max()
    stick = np.abs(r["F_t"][late] / r["F"][late]).max()
    check(dc <= tolc and dF <= tolF and dT <= tolT and r["F"][late].min() > 0.5 and stick < 0.3,
          "(c) %s: the ball resting on the almost rigid beam's line through two nodes against the rigid body's line: ball within %.1e m "
          "(<= %.0e), normal force %.1e N (<= %.0e; %.2f to %.2f N), friction %.1e N (<= %.0e; |F_t / F| <= %.3f, sticking)"
          % ("nsgalpha rho_inf = 0.8" if sch == "n" else "Moreau-Jean theta = 1", dc, tolc, dF, tolF, r["F"][late].min(), r["F"][late].max(), dT,
             tolT, stick))
for base in ("bathe", "edalpha"):
    t, f, gf, _ = case("c_flex_%s.h5" % base)
    _, r, _, _ = case("c_rigid_%s.h5" % base)
    late = t >= 0.1
    dc = max(np.abs(f[k] - r[k]).max() for k in ("c_x", "c_y"))
    dF, dT = np.abs(f["F"] - r["F"])[late].max(), np.abs(f["F_t"] - r["F_t"])[late].max()
    check(dc <= 1e-8 and dF <= 1e-6 and dT <= 1e-6 and gf[:, 2].max() <= 0,
          "(c') mixed %s (rho_inf = 0): the ball on the almost rigid beam's line against the rigid body's line: ball within %.1e m (<= 1e-8), "
          "normal force %.1e N, friction %.1e N (<= 1e-6); its gap never above 0 (%.1e m: no new impact)" % (base, dc, dF, dT, gf[:, 2].max()))
_, r, _, _ = case("c_rigid_n.h5")
_, r2, _, _ = case("c_rigid2_n.h5")
d2 = max(np.abs(r[k] - r2[k]).max() for k in ("c_x", "c_y", "F", "F_t", "tip_y"))
check(d2 <= 1e-10, "(c) the rigid body's line through two points against its line_point and line_normal (the same line): %.1e (<= 1e-10)" % d2)
# (d) the static equations with the deformed line through A (n28) and B (n33), the mass's point P = (0.8, y)
S = rom["frame/mode_moment"][()]
m, g = 1.5, np.array([0.0, -9.81])


def line(z):
    q, lam, y = z[:nf], z[nf], z[nf + 1]
    A = np.array([0.5, 0.025]) + Phi["n28"] @ q
    B = np.array([1.0, 0.025]) + Phi["n33"] @ q
    P = np.array([0.8, y])
    t = (B - A) / np.linalg.norm(B - A)
    n = np.array([-t[1], t[0]])
    xi = t @ (P - A) / np.linalg.norm(B - A)
    Q = -lam * ((1 - xi) * Phi["n28"].T @ n + xi * Phi["n33"].T @ n)
    return np.concatenate([K @ q - S.T @ g - Q, [lam * n[1] + m * g[1], n @ (P - A)]])


z = fsolve(line, np.concatenate([np.zeros(nf), [-m * g[1], 0.025]]), xtol=1e-14)
for name, file in (("nsgalpha rho_inf = 0", "d_n.h5"), ("Moreau-Jean theta = 1", "d_m.h5")):
    _, o, _, _ = case(file)
    if file == "d_m.h5":  # its gap drifts at position level: the static equations at the mass's height it holds
        yd = o["c_y"][-1]
        zq = fsolve(lambda x: line(np.concatenate([x, [yd]]))[:-1], z[:-1], xtol=1e-14)
        z = np.concatenate([zq, [yd]])
    tip, lam, y = (Phi["n22"] @ z[:nf])[1], z[nf], z[nf + 1]
    dtip, dF, dy = abs(o["tip_y"][-1] - tip), abs(o["F"][-1] - lam), abs(o["c_y"][-1] - y)
    check(dtip <= 1e-10 and dF <= 1e-8 and dy <= 1e-10,
          "(d) %s: a mass resting on the flexible beam's line through n28 and n33 at rest: tip sag %.9e m, the static equations' %.9e: "
          "%.1e (<= 1e-10); contact force %.9f N, %.9f: %.1e (<= 1e-8); the mass's height %.9f m, %.9f: %.1e (%s)"
          % (name, o["tip_y"][-1], tip, dtip, o["F"][-1], lam, dF, o["c_y"][-1], y, dy,
             "<= 1e-10" if file == "d_n.h5" else "Moreau-Jean's position drift: its gap %.2e m at rest" % line(z)[-1]))
sys.exit(mbcheck.bad)
PY
# (e)
sed -e 's/line_point: \[0.5, 0.025\], line_node: n28, line_point2: \[1, 0.025\], line_node2: n33,/line_point: [0.5, 0.025], line_normal: [0, 1],/' \
  d.yaml >oneline.yaml
refuse_simulate "a one-point line on a flexible body" "1 2" "oneline.yaml:9: contact 'rest': a line on the flexible body 'f' deforms" $mb \
  -mb_model oneline.yaml $nsg -step_dt 0.1 -step_end_time 0.2
sed -e 's/line_point2: \[1, 0.025\]/line_point2: [0.5, 0.025]/' d.yaml >samepoint.yaml
refuse_simulate "a two-point line whose points coincide" "1 2" "samepoint.yaml:9: contact 'rest': 'line_point' and 'line_point2' are one point" \
  $mb -mb_model samepoint.yaml $nsg -step_dt 0.1 -step_end_time 0.2
sed -e 's/restitution: 0}/restitution: 0, line_normal: [1, 0.05]}/' d.yaml >alongline.yaml
refuse_simulate "a line_normal along the line" "1 2" "alongline.yaml:10: contact 'rest': 'line_normal' \[1., 0.05\] lies along the line" $mb \
  -mb_model alongline.yaml $nsg -step_dt 0.1 -step_end_time 0.2
sed -e 's/against: f, line_point: \[0.5, 0.025\], line_node: n28,/against: ground, line_point: [0.5, 0.025], line_node: n28,/' d.yaml >rigidline.yaml
refuse_simulate "a line_node on the ground" "1 2" "rigidline.yaml:9: 'line_node' names a node of a flexible body's ROM, and 'ground'" $mb \
  -mb_model rigidline.yaml $nsg -step_dt 0.1 -step_end_time 0.2
sed -e 's/node2: n22, stiffness: 4000/weights2: [1], stiffness: 4000/' b.yaml >noweights.yaml
cat >spatial.yaml <<'YAML'
dim: 3
bodies:
  - {name: m, mass: 1, inertia: [0.1, 0.1, 0.1], position: [1, 0, 0]}
springs:
  - {name: s, body1: ground, point1: [0, 0, 0], body2: m, node2: n22, stiffness: 10}
YAML
refuse_simulate "a node on a spatial rigid body's spring end" "1 2" "spatial.yaml:5: 'node2' names a node of a flexible body's ROM, and 'm' is not a flexible body" $mb -mb_model spatial.yaml \
  $nsg -step_dt 0.1 -step_end_time 0.2
refuse_simulate "weights without nodes on a spring" "1 2" "noweights.yaml:7: 'weights2' weighs the nodes of 'node2', and there is no 'node2'" $mb \
  -mb_model noweights.yaml $nsg -step_dt 0.1 -step_end_time 0.2
exit $fail
