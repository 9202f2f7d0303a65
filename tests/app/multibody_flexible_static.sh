#!/usr/bin/env bash
# A flexible body's initial elastic coordinates (docs/multibody.md "Initial elastic coordinates"; src/system/mbstatic.c),
# issue 23: 'initial: static' (the state at which its elastic coordinates do not accelerate: the static deflection under
# the loads, the frames' d'Alembert loads, the joints' and closed contacts' forces), 'elastic: [...]' (given).
# The planar body: the cantilever of multibody_flexible_points (1 x 0.05 x 0.05 m, 10 x 2 CPS4, E = 2e9 and the almost
# rigid E = 1e15, rho = 1000, clamped at x = 0, Craig-Bampton with its tip's middle node n22 and 4 modes); the spatial one:
# the beam of spatial_flexible_points (1 x 0.05 x 0.03 m, 8 x 2 x 2 hex, steel, its tip node n45, 4 modes).
# (a) the planar beam clamped (a fixed joint), gravity, 'initial: static': the tip at t = 0 against the ROM's static
#     solution K q = S^T g (SciPy) within 1e-12 relative to the sag (1.15 mm; measured 0), and at rest over 0.1 s of
#     nsgalpha rho_inf = 1 (no dissipation): the tip moves by at most 1e-15 m, its velocity at most 1e-12 m/s (measured 0 and
#     3e-17); the same beam 'undeformed' (today's start) rings: the tip's velocity reaches > 1e-3 m/s (0.14);
# (b) 'elastic: [...]' given SciPy's q of (a): the tip at t = 0 within 1e-12 relative, at rest as (a);
# (c) the planar beam clamped, no gravity, its tip node on the oblique pushing spring of multibody_flexible_points (b)
#     (nonlinear), 'initial: static': the tip and the tension at t = 0 against SciPy's fsolve of K q = Phi^T (-N e) within
#     1e-12 relative (deflection 1.5 mm) and 1e-9 N, at rest over 0.1 s (1e-12 m);
# (d) the clamped beam's tip node n22 also pinned to the ground (a propped cantilever: the pin's rows at acceleration level
#     redundant with the clamp's), gravity, 'initial: static': the top node n28 (x = 0.5) against SciPy's bordered solve
#     [K, -Phi_22^T; Phi_22, 0] (q, lambda) = (S^T g, 0) within 1e-12 relative beyond its position's round-off (2 ulp of
#     0.5 m), the tip node at (1, 0) within 1e-15 m, at rest over 0.1 s (1e-12 m);
# (e) a spinning body: the planar beam pinned at its frame's origin (a revolute joint), no gravity, 20 rad/s,
#     'initial: static': its centrifugal deflection against the invariants' (K - w^2 m_ff) q = w^2 I_3 (SciPy; from
#     T = w^2 m_thetatheta(q) / 2, seed 001 Eq. 137) within 1e-12 relative (the tip's radial 66 um); over 0.3 s (nsgalpha
#     rho_inf = 1) the tip's distance from the pin constant within 1e-12 m and the rate within 1e-12 rad/s (undeformed: they
#     vary by 1.3e-4 m and 1.2e-2 rad/s);
# (f) spatial: the beam clamped under gravity [0, -9.81, 0], 'initial: static': the tip against K q = S^T g within 1e-12
#     relative, at rest over 0.05 s (1e-12 m); the beam spinning about z at 30 rad/s on a revolute joint, no gravity: the
#     tip against (K - w^2 (m_ff,xx + m_ff,yy)) q = w^2 (I_3,xx + I_3,yy) within 1e-12 relative, the tip's distance from the
#     axis constant over 0.1 s within 1e-12 m;
# (g) the ball (0.2 kg, mu = 0.3) resting on the almost rigid beam, pinned and rocking on its tip spring
#     (multibody_flexible_points (c)), 'initial: static', against the rigid body with the ROM's invariants from t = 0 (no
#     skip), 0.1 s: nsgalpha rho_inf = 0.8 the normal and friction forces within 1e-6 N (measured 1.2e-7, 3.9e-7 of 2.83 N;
#     undeformed 0.38 N, asserted > 0.1), Moreau-Jean theta = 1 within 1e-4 N (2.7e-6), the ball within 1e-6 m;
# (h) a 1.5 kg mass on a vertical guide resting on the flexible beam (multibody_flexible_points (d)), 'initial: static':
#     from t = 0 over 0.05 s (nsgalpha rho_inf = 1, Moreau-Jean theta = 1) the tip's sag, the mass's height within 1e-10 m
#     and the contact force within 1e-8 N of the static equations (SciPy; measured 1.3e-17 m, 1.0e-17 m, 4.9e-12 N);
# (i) bad input (1 and 2 ranks): an unknown 'initial' value, 'initial' on a rigid body (planar and spatial), 'elastic' of
#     another length, 'initial' with 'elastic': one line each naming the model file and line.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_scipy
beam() { # beam E FILE: the planar cantilever
  mpi 60 1 reduce -mesh_rect_cells 10,2 -mesh_rect_lengths 1,0.05 -mesh_rect_thickness 0.05 -mesh_rect_origin 0,-0.025 -model_young "$1" \
    -model_poisson 0.3 -model_density 1000 -model_clamp xmin -cms_type cb -cms_contact_nodes 22 -cms_contact_dirs 2 -cms_contact_normal 1,0,0 \
    -cms_contact_t1 0,1,0 -cms_num_modes 4 -cms_outputs 22:x,22:y,23:x,23:y,28:x,28:y,33:x,33:y -cms_units SI -cms_frame_invariants -rom_file "$2"
}
must "reduce the planar beam" beam 2e9 beam.h5 || exit 1
must "reduce the almost rigid beam" beam 1e15 stiff.h5 || exit 1
must "reduce the spatial beam" mpi 60 1 reduce -mesh_box_cells 8,2,2 -mesh_box_lengths 1,0.05,0.03 -model_young 2e11 -model_poisson 0.3 \
  -model_density 7800 -model_clamp xmin -cms_type cb -cms_contact_nodes 45 -cms_contact_dirs 3 -cms_contact_normal 1,0,0 -cms_contact_t1 0,1,0 \
  -cms_num_modes 4 -cms_outputs 45:x,45:y,45:z -cms_frame_invariants -cms_units SI -rom_file sbeam.h5 || exit 1
planar() { # planar NAME INITIAL GRAVITY JOINTS [MORE]: a model file of the planar beam
  cat >"$1.yaml" <<YAML
gravity: [0, $3]
bodies:
  - {name: f, type: flexible, rom: beam.h5, position: [0, 0]$2}
joints:
$4
${5:-}
outputs:
  - {name: tip, type: point, body: f, point: [1, 0], node: n22}
  - {name: mid, type: point, body: f, point: [0.5, 0.025], node: n28}
  - {name: th, type: angle, body: f}
YAML
}
clamp="  - {name: clamp, type: fixed, body1: ground, point1: [0, 0], body2: f, point2: [0, 0]}"
pin="  - {name: pin, type: revolute, body1: ground, point1: [0, 0], body2: f, point2: [0, 0]}"
tippin="  - {name: tippin, type: revolute, body1: ground, point1: [1, 0], body2: f, point2: [1, 0], node2: n22}"
spring="springs:
  - {name: s, body1: ground, point1: [1.3, -0.4], body2: f, point2: [1, 0], node2: n22, stiffness: 4000, length: 0.495}"
planar a ", initial: static" -9.81 "$clamp"
planar a0 "" -9.81 "$clamp"
planar c ", initial: static" 0 "$clamp" "$spring"
echo "  - {name: N, type: spring_force, spring: s}" >>c.yaml
planar d ", initial: static" -9.81 "$clamp
$tippin"
planar e ", angular_velocity: 20, initial: static" 0 "$pin"
planar e0 ", angular_velocity: 20" 0 "$pin"
# (b): SciPy's q of (a) given
$py - <<'PY' || exit 1
import h5py
import numpy as np

rom = h5py.File("beam.h5", "r")
q = np.linalg.solve(rom["K"][()], rom["frame/mode_moment"][()].T @ np.array([0, -9.81]))
s = open("a.yaml").read().replace("initial: static", "elastic: [%s]" % ", ".join(repr(float(x)) for x in q))
open("b.yaml", "w").write(s)
PY
spatial() { # spatial NAME BODY-EXTRA GRAVITY JOINT
  cat >"$1.yaml" <<YAML
dim: 3
gravity: [0, $3, 0]
bodies:
  - {name: f, type: flexible, rom: sbeam.h5, position: [0, 0, 0]$2}
joints:
$4
outputs:
  - {name: tip, type: point, body: f, point: [1, 0.025, 0.015], node: n45}
YAML
}
spatial sa ", initial: static" -9.81 "  - {name: clamp, type: fixed, body1: ground, body2: f}"
spatial sw ", angular_velocity: [0, 0, 30], initial: static" 0 "  - {name: pin, type: revolute, body1: ground, body2: f, axis: [0, 0, 1]}"
# (g) the ball on the rocking almost rigid beam (multibody_flexible_points (c)), and its rigid twin (the ROM's invariants)
cat >g.yaml <<'YAML'
gravity: [0, -9.81]
bodies:
  - {name: f, type: flexible, rom: stiff.h5, position: [0, 0], initial: static}
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
YAML
sed -e 's/, initial: static}/}/' g.yaml >g0.yaml
VICMS_SOURCE="$VICMS_SOURCE" $py - <<'PY' || exit 1
import os
import sys

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
from mbcheck import rigid_twin

open("g_rigid.yaml", "w").write(rigid_twin(open("g.yaml").read(), "stiff.h5")[0])
PY
# (h) a mass on a vertical guide resting on the flexible beam (multibody_flexible_points (d))
cat >h.yaml <<'YAML'
gravity: [0, -9.81]
bodies:
  - {name: f, type: flexible, rom: beam.h5, position: [0, 0], initial: static}
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
mb="-system_type multibody -step_type nsgalpha -step_rho_inf 1 -step_dt 1e-3"
mj="-system_type multibody -step_type moreau -step_moreau_variant theta -step_theta 1 -step_dt 1e-3"
for m in g g0 g_rigid; do
  must "(g) $m nsgalpha" mpi 60 1 simulate $mb -step_rho_inf 0.8 -mb_model $m.yaml -step_end_time 0.1 -results_file ${m}_n.h5
done
for m in g g_rigid; do
  must "(g) $m Moreau-Jean" mpi 60 1 simulate $mj -mb_model $m.yaml -step_end_time 0.1 -results_file ${m}_m.h5
done
must "(h) nsgalpha" mpi 60 1 simulate $mb -mb_model h.yaml -step_end_time 0.05 -results_file h_n.h5
must "(h) Moreau-Jean" mpi 60 1 simulate $mj -mb_model h.yaml -step_end_time 0.05 -results_file h_m.h5
for m in a a0 b c d; do
  must "($m)" mpi 60 1 simulate $mb -mb_model $m.yaml -step_end_time 0.1 -results_file $m.h5
done
for m in e e0; do
  must "($m)" mpi 60 1 simulate $mb -mb_model $m.yaml -step_end_time 0.3 -results_file $m.h5
done
must "(f) clamped" mpi 60 1 simulate $mb -mb_model sa.yaml -step_end_time 0.05 -results_file sa.h5
must "(f) spinning" mpi 60 1 simulate $mb -mb_model sw.yaml -step_end_time 0.1 -results_file sw.h5
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
K, S, fr = rom["K"][()], rom["frame/mode_moment"][()], rom["frame"]
nf = len(K)
Phi = {k: np.array([rom["outputs"]["%s_%s" % (k, d)][()] for d in "xy"]) for k in ("n22", "n28")}
x0 = {"n22": np.array([1.0, 0]), "n28": np.array([0.5, 0.025])}
g = np.array([0, -9.81])


def at_rest(o, keys, span):
    move = max(np.abs(o[k] - o[k][0]).max() for k in keys)
    return move


def verdict(name, o, q, node, tol, rest_tol, extra=""):
    exact = x0[node] + Phi[node] @ q
    col = "tip" if node == "n22" else "mid"
    # relative to the deflection, beyond the position's own round-off (2 ulp of |x|: 2.2e-16 m at x = 0.5 m)
    err = max(max(abs(o[col + "_x"][0] - exact[0]), abs(o[col + "_y"][0] - exact[1])) - 4.5e-16 * np.abs(exact).max(), 0) / np.linalg.norm(Phi[node] @ q)
    move = max(np.abs(o[k] - o[k][0]).max() for k in ("tip_x", "tip_y", "mid_x", "mid_y"))
    vel = max(np.abs(o[k]).max() for k in ("tip_vx", "tip_vy", "mid_vx", "mid_vy"))
    check(err <= tol and move <= rest_tol and vel <= 1e-12,
          "%s: %s at t = 0 (%.12f, %.12f), the exact (%.12f, %.12f): %.1e relative to its deflection %.3e m (<= %.0e); at rest: moves %.1e m "
          "(<= %.0e), velocity %.1e m/s (<= 1e-12)%s"
          % (name, node, o[col + "_x"][0], o[col + "_y"][0], exact[0], exact[1], err, np.linalg.norm(Phi[node] @ q), tol, move, rest_tol, vel, extra))


# (a), (b)
q = np.linalg.solve(K, S.T @ g)
_, o, _, _ = case("a.h5")
_, o0, _, _ = case("a0.h5")
ring = np.abs(o0["tip_vy"]).max()
verdict("(a) clamped, gravity, initial: static", o, q, "n22", 1e-12, 1e-15,
        "; undeformed it rings: tip velocity up to %.2e m/s (> 1e-3)" % ring)
check(ring > 1e-3, "(a) the undeformed start rings (%.2e m/s)" % ring)
_, o, _, _ = case("b.h5")
verdict("(b) clamped, gravity, elastic: [SciPy's q]", o, q, "n22", 1e-12, 1e-15)
# (c) K q = Phi^T (-N e), the spring's force on its body2's point, N = k (l - L0), e = (P2 - P1) / l
P1, k, L0 = np.array([1.3, -0.4]), 4000.0, 0.495


def spring(q):
    P = x0["n22"] + Phi["n22"] @ q
    d = P - P1
    l = np.linalg.norm(d)
    return k * (l - L0), d / l


q = fsolve(lambda q: K @ q + Phi["n22"].T @ (spring(q)[0] * spring(q)[1]), np.zeros(nf), xtol=1e-14)
_, o, _, _ = case("c.h5")
dN = abs(o["N"][0] - spring(q)[0])
check(dN <= 1e-9, "(c) the spring's tension at t = 0 %.9f N, SciPy's %.9f: %.1e (<= 1e-9)" % (o["N"][0], spring(q)[0], dN))
verdict("(c) clamped, the tip node on an oblique spring (nonlinear), initial: static", o, q, "n22", 1e-12, 1e-12)
# (d) the propped cantilever: [K, -Phi^T; Phi, 0] (q, lambda) = (S^T g, 0)
A = np.block([[K, -Phi["n22"].T], [Phi["n22"], np.zeros((2, 2))]])
q = np.linalg.solve(A, np.concatenate([S.T @ g, [0, 0]]))[:nf]
_, o, _, _ = case("d.h5")
tipd = max(abs(o["tip_x"][0] - 1), abs(o["tip_y"][0]))
check(tipd <= 1e-15, "(d) the propped cantilever's pinned tip node at (1, 0) within %.1e m (<= 1e-15)" % tipd)
verdict("(d) clamped, the tip node pinned (its joint's rows held), gravity, initial: static", o, q, "n28", 1e-12, 1e-12)
# (e) spinning: T = w^2 m_thetatheta(q) / 2, m_thetatheta = I_2 + 2 I_3 q + q^T m_ff q: (K - w^2 m_ff) q = w^2 I_3
pm, mm = fr["position_mode"][()].reshape(4, nf), fr["mode_mode"][()].reshape(4, nf, nf)
w = 20.0
q = np.linalg.solve(K - w * w * (mm[0] + mm[3]), w * w * (pm[0] + pm[3]))
tip = x0["n22"] + Phi["n22"] @ q
for name in ("e", "e0"):
    t, o, _, _ = case(name + ".h5")
    r = np.hypot(o["tip_x"], o["tip_y"])
    if name == "e":
        err = max(abs(o["tip_x"][0] - tip[0]), abs(o["tip_y"][0] - tip[1])) / np.linalg.norm(Phi["n22"] @ q)
        dr, dw = np.ptp(r), np.ptp(o["th_rate"])
    else:
        dr0, dw0 = np.ptp(r), np.ptp(o["th_rate"])
check(err <= 1e-12 and dr <= 1e-12 and dw <= 1e-12,
      "(e) pinned, spinning at 20 rad/s, initial: static: the tip against (K - w^2 m_ff) q = w^2 I_3: %.1e relative to its deflection %.3e m "
      "(<= 1e-12); over 0.3 s its distance from the pin varies by %.1e m, the rate by %.1e rad/s (<= 1e-12; undeformed: %.2e m, %.2e rad/s)"
      % (err, np.linalg.norm(Phi["n22"] @ q), dr, dw, dr0, dw0))
# (f) spatial
rom = h5py.File("sbeam.h5", "r")
K, S, fr = rom["K"][()], rom["frame/mode_moment"][()], rom["frame"]
nf = len(K)
P = np.array([rom["outputs"]["n45_%s" % d][()] for d in "xyz"])
x45 = np.array([1, 0.025, 0.015])
q = np.linalg.solve(K, S.T @ np.array([0, -9.81, 0]))
_, o, _, _ = case("sa.h5")
exact = x45 + P @ q
err = max(abs(o["tip_" + d][0] - exact[i]) for i, d in enumerate("xyz")) / np.linalg.norm(P @ q)
move = max(np.abs(o["tip_" + d] - o["tip_" + d][0]).max() for d in "xyz")
check(err <= 1e-12 and move <= 1e-12,
      "(f) spatial, clamped, gravity, initial: static: the tip against K q = S^T g: %.1e relative to its sag %.3e m (<= 1e-12); over 0.05 s it "
      "moves %.1e m (<= 1e-12)" % (err, np.linalg.norm(P @ q), move))
pm, mm = fr["position_mode"][()].reshape(9, nf), fr["mode_mode"][()].reshape(9, nf, nf)
w = 30.0
q = np.linalg.solve(K - w * w * (mm[0] + mm[4]), w * w * (pm[0] + pm[4]))
_, o, _, _ = case("sw.h5")
exact = x45 + P @ q
err = max(abs(o["tip_" + d][0] - exact[i]) for i, d in enumerate("xyz")) / np.linalg.norm(P @ q)
dr = np.ptp(np.hypot(o["tip_x"], o["tip_y"]))
check(err <= 1e-12 and dr <= 1e-12,
      "(f) spatial, spinning about z at 30 rad/s, initial: static: the tip against (K - w^2 (m_ff,xx + m_ff,yy)) q = w^2 (I_3,xx + I_3,yy): %.1e "
      "relative to its deflection %.3e m (<= 1e-12); its distance from the axis varies by %.1e m over 0.1 s (<= 1e-12)"
      % (err, np.linalg.norm(P @ q), dr))
# (g) the ball on the rocking almost rigid beam against the rigid twin, from t = 0
for sch, tol in (("n", 1e-6), ("m", 1e-4)):
    t, f, _, _ = case("g_%s.h5" % sch)
    _, r, _, _ = case("g_rigid_%s.h5" % sch)
    dF, dT = np.abs(f["F"] - r["F"]).max(), np.abs(f["F_t"] - r["F_t"]).max()
    dc = max(np.abs(f[k] - r[k]).max() for k in ("c_x", "c_y"))
    extra = ""
    if sch == "n":
        _, u, _, _ = case("g0_n.h5")
        d0 = np.abs(u["F"] - r["F"]).max()
        extra = "; undeformed: %.2e N" % d0
    check(dF <= tol and dT <= tol and dc <= 1e-6 and (sch != "n" or d0 > 0.1),
          "(g) %s: the ball on the rocking almost rigid beam, initial: static, against the rigid body from t = 0: normal force %.1e N, friction "
          "%.1e N (<= %.0e; of %.2f N), the ball %.1e m (<= 1e-6)%s"
          % ("nsgalpha rho_inf = 0.8" if sch == "n" else "Moreau-Jean theta = 1", dF, dT, tol, r["F"][1:].max(), dc, extra))
# (h) the static equations of the mass on the beam's line through A (n28) and B (n33), P = (0.8, y): at rest from t = 0
rom2 = h5py.File("beam.h5", "r")
K2, S2 = rom2["K"][()], rom2["frame/mode_moment"][()]
Ph = {k: np.array([rom2["outputs"]["%s_%s" % (k, d)][()] for d in "xy"]) for k in ("n22", "n28", "n33")}
nf2, mh = len(K2), 1.5


def line(z):
    q, lam, y = z[:nf2], z[nf2], z[nf2 + 1]
    A = np.array([0.5, 0.025]) + Ph["n28"] @ q
    B = np.array([1.0, 0.025]) + Ph["n33"] @ q
    P = np.array([0.8, y])
    L = np.linalg.norm(B - A)
    tt = (B - A) / L
    nn = np.array([-tt[1], tt[0]])
    xi = tt @ (P - A) / L
    Q = -lam * ((1 - xi) * Ph["n28"].T @ nn + xi * Ph["n33"].T @ nn)
    return np.concatenate([K2 @ q - S2.T @ g - Q, [lam * nn[1] + mh * g[1], nn @ (P - A)]])


z = fsolve(line, np.concatenate([np.zeros(nf2), [-mh * g[1], 0.025]]), xtol=1e-14)
tip, lam, y = (Ph["n22"] @ z[:nf2])[1], z[nf2], z[nf2 + 1]
for sch in ("n", "m"):
    _, o, _, _ = case("h_%s.h5" % sch)
    dtip, dy = np.abs(o["tip_y"] - tip).max(), np.abs(o["c_y"] - y).max()
    dF = np.abs(o["F"][1:] - lam).max()
    check(dtip <= 1e-10 and dy <= 1e-10 and dF <= 1e-8,
          "(h) %s: the mass resting on the flexible beam, initial: static, against the static equations (SciPy) from t = 0 over 0.05 s: tip sag "
          "%.6e m within %.1e (<= 1e-10), the mass's height %.9f m within %.1e (<= 1e-10), the contact force %.9f N within %.1e (<= 1e-8)"
          % ("nsgalpha rho_inf = 1" if sch == "n" else "Moreau-Jean theta = 1", tip, dtip, y, dy, lam, dF))
sys.exit(mbcheck.bad)
PY
# (i) bad input
sed -e 's/initial: static/initial: bent/' a.yaml >bad_value.yaml
refuse_simulate "an unknown initial value" "1 2" "bad_value.yaml:3: flexible body 'f' has 'initial: bent' (expected undeformed" \
  -system_type multibody -mb_model bad_value.yaml -step_type nsgalpha -step_dt 0.1 -step_end_time 0.2
cat >bad_rigid.yaml <<'YAML'
bodies:
  - {name: m, mass: 1, inertia: 0.1, position: [0, 0],
     initial: static}
YAML
refuse_simulate "initial on a rigid body" "1 2" "bad_rigid.yaml:3: body 'm': 'initial' sets a flexible body's initial elastic coordinates, and 'm' is rigid" \
  -system_type multibody -mb_model bad_rigid.yaml -step_type nsgalpha -step_dt 0.1 -step_end_time 0.2
cat >bad_rigid3.yaml <<'YAML'
dim: 3
bodies:
  - {name: m, mass: 1, inertia: [0.1, 0.1, 0.1], position: [0, 0, 0], elastic: [0]}
YAML
refuse_simulate "elastic on a spatial rigid body" "1 2" "bad_rigid3.yaml:3: body 'm': 'elastic' sets a flexible body's initial elastic coordinates, and 'm' is rigid" \
  -system_type multibody -mb_model bad_rigid3.yaml -step_type nsgalpha -step_dt 0.1 -step_end_time 0.2
sed -e 's/elastic: \[[^]]*\]/elastic: [0, 0]/' b.yaml >bad_len.yaml
refuse_simulate "elastic of another length" "1 2" "bad_len.yaml:3: 'elastic' must be a list of 6 numbers" \
  -system_type multibody -mb_model bad_len.yaml -step_type nsgalpha -step_dt 0.1 -step_end_time 0.2
sed -e 's/elastic: \[/initial: static, elastic: [/' b.yaml >bad_both.yaml
refuse_simulate "initial with elastic" "1 2" "bad_both.yaml:3: flexible body 'f': give 'initial' or 'elastic'" \
  -system_type multibody -mb_model bad_both.yaml -step_type nsgalpha -step_dt 0.1 -step_end_time 0.2
exit $fail
