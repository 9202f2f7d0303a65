#!/usr/bin/env bash
# Spatial flexible bodies of `vicms simulate -system_type multibody` (dim: 3, type: flexible; src/system/mbflexspatial.c,
# docs/multibody.md "Spatial flexible bodies"): a steel beam 1 x 0.05 x 0.03 m of 8 x 2 x 2 C3D8 clamped at x = 0 (the
# frame: the mesh's axes and origin, a corner of the clamped end), Craig-Bampton with its tip's centre (node 45) in x, y, z
# and its outputs n45_x, n45_y, n45_z, reduced here with -cms_frame_invariants:
# (a) the almost rigid beam (E = 1e15, 2 modes) as a heavy spherical pendulum (its frame's origin on a spherical joint,
#     tilted 0.5 rad and spinning at 3 rad/s about the vertical) against the rigid spatial body with the mass, centre and
#     inertia tensor of its invariants (m = int rho, c = int rho x / m, J_c = tr(J) I - J - m (|c|^2 I - c c^T), computed
#     here from /frame), nsgalpha rho_inf 0.9 over 0.3 s: the tip's position agrees to the schemes' O(h^2) (the two are
#     integrated in different coordinates, the frame's origin and the centre): within 4e-5 m at h = 1e-3 (measured 2.0e-5)
#     with a ratio >= 3 from h = 1e-3 to 5e-4 (measured 4.0); the initial energies equal to 1e-12 (relative; measured 0);
# (b) the steel beam (4 modes) on a revolute joint about z under gravity along -y: a motion in the plane z = const.
#     Against the planar flexible body (src/system/mbflex.c) of a planar ROM written here from the same ROM with its
#     invariants projected on x, y (the in-plane components; the out-of-plane ones couple only through mass integrals
#     of products odd about the mid-plane z = 0.015 m, which vanish: the same dynamics in the plane), nsgalpha rho_inf 1
#     over 0.3 s: the tip (node 45: the deformed position) and the joint angle agree to O(h^2) (the planar body turns by
#     an angle, the spatial one by a quaternion): within 1e-6 m and 1e-6 rad at h = 1e-3 (measured 3.1e-7, 3.8e-7),
#     ratios >= 3 from 1e-3 to 5e-4 (measured 4.0); its initial energy equal (1e-12; measured 0); the tip's z constant to
#     1e-13 m (measured 7e-17); Moreau-Jean theta = 1/2 and mixed run it, their tips within 6e-6 m of nsgalpha's (measured
#     1.6e-6, 2.3e-6: their first-order errors); 2 ranks bitwise equal to 1;
# (d) the beam dropped tilted (0.3 rad about y, its frame's origin 0.4 m up, at rest) onto the ground, its tip's node n45
#     against the ground's plane (e = 0.5, mu = 0.3), h = 1e-3 to 0.3 s, nsgalpha rho_inf 0.9 and Moreau-Jean theta = 1/2:
#     the free fall exact before the impact (uniform gravity does not deform a free body: the frame's origin at
#     0.4 - g t^2 / 2 to 1e-12 m; measured 8.4e-15, 5.0e-16), the first contact force at the first level after the exact
#     impact time sqrt(2 z_tip / g) (within h; Moreau-Jean, which closes a contact from g(q_n + h v_n / 2), within 2 h), the node not below the plane (nsgalpha, GGL: 1e-12 m, measured 5.6e-17;
#     Moreau-Jean holds the velocity only: 2e-3 m, measured 9.4e-4), the friction force within mu times the normal one
#     (1e-9 N), the energy never above its initial value (1e-9 relative);
# (c) bad input on 1 and 2 ranks, one line naming the model file and line: a planar ROM in a spatial model, a spatial ROM in
#     a planar one, a node the ROM does not report (no n99_z), a node on a prismatic joint's line (body1), a node on a rigid
#     body (a spring's end), 'weights: tributary' on nodes of no edge or face, 'mass' on a flexible body.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
beam() {
  local E=$1 modes=$2 out=$3
  mpi 60 1 reduce -mesh_box_cells 8,2,2 -mesh_box_lengths 1,0.05,0.03 -model_young "$E" -model_poisson 0.3 -model_density 7800 \
    -model_clamp xmin -cms_type cb -cms_contact_nodes 45 -cms_contact_dirs 3 -cms_contact_normal 1,0,0 -cms_contact_t1 0,1,0 \
    -cms_num_modes "$modes" -cms_outputs 45:x,45:y,45:z -cms_frame_invariants -cms_units SI -rom_file "$out"
}
must "reduce the beam" beam 2e11 4 beam.h5 || exit 1
must "reduce the almost rigid beam" beam 1e15 2 stiff.h5 || exit 1
# the rigid twin of the almost rigid beam, and the planar ROM of the beam's in-plane invariants
$py - <<'PY' || exit 1
import os
import sys
import shutil
import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "tests", "app"))
from mbcheck import frame_body

m, c, Jc = frame_body("stiff.h5")  # the rigid twin's mass, centre and inertia about it
ax, th, w = np.array([0, 1.0, 0]), -0.5, np.array([0, 0, 3.0])
K = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
A = np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K
r = A @ c
f = lambda x: "[" + ", ".join(repr(float(t)) for t in x) + "]"
head = "dim: 3\ngravity: [0, 0, -9.81]\nbodies:\n"
tail = "outputs:\n  - {name: tip, type: point, body: beam, point: %s}\n  - {name: E, type: energy}\n"
with open("rigid.yaml", "w") as o:
    o.write(head + f"  - {{name: beam, mass: {m!r}, inertia: {f([Jc[0, 0], Jc[1, 1], Jc[2, 2], Jc[0, 1], Jc[0, 2], Jc[1, 2]])},\n"
            f"     position: {f(r)}, axis: [0, 1, 0], angle: -0.5, velocity: {f(np.cross(w, r))}, angular_velocity: [0, 0, 3]}}\n"
            f"joints:\n  - {{name: pin, type: spherical, body1: ground, body2: beam, point2: {f(-c)}}}\n" + tail % f([1 - c[0], 0.025 - c[1], 0.015 - c[2]]))
with open("flex.yaml", "w") as o:
    o.write(head + "  - {name: beam, type: flexible, rom: stiff.h5, position: [0, 0, 0], axis: [0, 1, 0], angle: -0.5, angular_velocity: [0, 0, 3]}\n"
            "joints:\n  - {name: pin, type: spherical, body1: ground, body2: beam}\n" + tail % "[1, 0.025, 0.015]")
shutil.copy("beam.h5", "beam2d.h5")
with h5py.File("beam2d.h5", "r+") as h:
    g = h["frame"]
    n = int(g.attrs["n"])
    d = {k: g[k][()] for k in g}
    units = {k: g[k].attrs["units"] for k in g}
    xy = [(i, j) for i in range(2) for j in range(2)]
    new = {"mass": d["mass"], "first_moment": d["first_moment"][:2], "second_moment": d["second_moment"][:2, :2],
           "mode_moment": d["mode_moment"][:2], "position_mode": np.array([d["position_mode"][i * 3 + j] for i, j in xy]),
           "mode_mode": np.concatenate([d["mode_mode"][(i * 3 + j) * n:(i * 3 + j + 1) * n] for i, j in xy])}
    for k in list(g):
        del g[k]
    for k, v in new.items():
        g.create_dataset(k, data=v)
        g[k].attrs["units"] = units[k]
    g.attrs["dim"] = 2
PY
cat >hinge.yaml <<'YAML'
dim: 3
gravity: [0, -9.81, 0]
bodies:
  - {name: beam, type: flexible, rom: beam.h5, position: [0, 0, 0]}
joints:
  - {name: pin, type: revolute, body1: ground, body2: beam, axis: [0, 0, 1]}
outputs:
  - {name: tip, type: point, body: beam, point: [1, 0.025, 0.015], node: n45}
  - {name: angle, type: joint_angle, joint: pin}
  - {name: E, type: energy}
YAML
cat >hinge2d.yaml <<'YAML'
gravity: [0, -9.81]
bodies:
  - {name: beam, type: flexible, rom: beam2d.h5, position: [0, 0]}
joints:
  - {name: pin, type: revolute, body1: ground, body2: beam}
outputs:
  - {name: tip, type: point, body: beam, point: [1, 0.025], node: n45}
  - {name: angle, type: joint_angle, joint: pin}
  - {name: E, type: energy}
YAML
run="-system_type multibody -step_end_time 0.3"
for h in 1e-3 5e-4; do
  every=$([ $h = 1e-3 ] && echo 1 || echo 2)
  for m in rigid flex; do
    must "(a) $m, h = $h" mpi 60 1 simulate $run -mb_model $m.yaml -step_type nsgalpha -step_rho_inf 0.9 -step_dt $h -step_output_every $every \
      -results_file a_${m}_$h.h5
  done
  for m in hinge hinge2d; do
    must "(b) $m, h = $h" mpi 60 1 simulate $run -mb_model $m.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt $h -step_output_every $every \
      -results_file b_${m}_$h.h5
  done
done
must "(b) moreau" mpi 60 1 simulate $run -mb_model hinge.yaml -step_type moreau -step_moreau_variant theta -step_theta 0.5 -step_dt 1e-3 \
  -results_file b_moreau.h5
must "(b) mixed" mpi 60 1 simulate $run -mb_model hinge.yaml -step_type mixed -step_dt 1e-3 -results_file b_mixed.h5
cat >drop.yaml <<'YAML'
dim: 3
gravity: [0, 0, -9.81]
bodies:
  - {name: beam, type: flexible, rom: beam.h5, position: [0, 0, 0.4], axis: [0, 1, 0], angle: 0.3}
contacts:
  - {name: floor, body: beam, point: [1, 0.025, 0.015], node: n45, against: ground, plane_point: [0, 0, 0], plane_normal: [0, 0, 1],
     restitution: 0.5, friction: 0.3}
outputs:
  - {name: tip, type: point, body: beam, point: [1, 0.025, 0.015], node: n45}
  - {name: o, type: point, body: beam}
  - {name: f, type: contact_force, contact: floor}
  - {name: E, type: energy}
YAML
must "(d) drop, nsgalpha" mpi 60 1 simulate $run -mb_model drop.yaml -step_type nsgalpha -step_rho_inf 0.9 -step_dt 1e-3 -results_file d_nsgalpha.h5
must "(d) drop, moreau" mpi 60 1 simulate $run -mb_model drop.yaml -step_type moreau -step_moreau_variant theta -step_theta 0.5 -step_dt 1e-3 \
  -results_file d_moreau.h5
must "(b) 2 ranks" mpi 60 2 simulate $run -mb_model hinge.yaml -step_type nsgalpha -step_rho_inf 1 -step_dt 1e-3 -results_file b_np2.h5
$py - <<'PY' || fail=1
import sys

import h5py
import numpy as np

out = lambda p: h5py.File(p)["cases/0/outputs"][()]
bad = 0


def check(what, value, tol):
    global bad
    ok = value <= tol
    bad |= not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}: {value:.3g} (tolerance {tol:.3g})")


def ratio(what, coarse, fine, least):
    global bad
    ok = coarse >= least * fine
    bad |= not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}: {coarse:.3g} / {fine:.3g} = {coarse / fine:.2f} (>= {least})")


# (a) the tip (columns 0-2) of the almost rigid beam against the rigid body; the energy (column 6)
e = {h: np.abs(out(f"a_flex_{h}.h5")[:, :3] - out(f"a_rigid_{h}.h5")[:, :3]).max() for h in ("1e-3", "5e-4")}
check("(a) almost rigid beam against the rigid body: the tip, h = 1e-3 (m)", e["1e-3"], 4e-5)
ratio("(a) second order from h = 1e-3 to 5e-4", e["1e-3"], e["5e-4"], 3)
E0 = out("a_flex_1e-3.h5")[0, 6], out("a_rigid_1e-3.h5")[0, 6]
check("(a) initial energy of the flexible body against the rigid one's (relative)", abs(E0[0] - E0[1]) / abs(E0[1]), 1e-12)
# (b) spatial (tip x, y, z, vx, vy, vz, angle, E) against planar (tip x, y, vx, vy, angle, E)
for what, cs, cp in (("the tip (m)", [0, 1], [0, 1]), ("the joint angle (rad)", [6], [4])):
    d = {h: np.abs(out(f"b_hinge_{h}.h5")[:, cs] - out(f"b_hinge2d_{h}.h5")[:, cp]).max() for h in ("1e-3", "5e-4")}
    check(f"(b) spatial flexible pendulum against the planar one: {what}, h = 1e-3", d["1e-3"], 1e-6)
    ratio(f"(b) {what}: second order from h = 1e-3 to 5e-4", d["1e-3"], d["5e-4"], 3)
sp, pl = out("b_hinge_1e-3.h5"), out("b_hinge2d_1e-3.h5")
check("(b) initial energy, spatial against planar (relative)", abs(sp[0, 7] - pl[0, 5]) / abs(pl[0, 5]), 1e-12)
check("(b) the tip's z stays in its plane (m)", np.abs(sp[:, 2] - 0.015).max(), 1e-13)
for s in ("moreau", "mixed"):
    check(f"(b) {s} against nsgalpha: the tip (m)", np.abs(out(f"b_{s}.h5")[:, :2] - sp[:, :2]).max(), 6e-6)
same = np.array_equal(out("b_np2.h5"), sp)
bad |= not same
print(f"{'ok  ' if same else 'FAIL'} (b) 2 ranks bitwise equal to 1: {same}")
# (d) columns: tip x y z vx vy vz (0-5), o (6-11), f, f_t1, f_t2 (12-14), E (15)
for s, below, lag in (("nsgalpha", 1e-12, 1e-3), ("moreau", 2e-3, 2e-3)):
    h = h5py.File(f"d_{s}.h5")
    a, t = h["cases/0/outputs"][()], h["cases/0/t"][()]
    ts = np.sqrt(2 * a[0, 2] / 9.81)
    pre = t < ts
    check(f"(d) {s}: free fall before the impact at {ts:.6f} s, the frame's origin (m)", np.abs(a[pre, 8] - (0.4 - 9.81 * t[pre] ** 2 / 2)).max(), 1e-12)
    first = t[np.argmax(a[:, 12] > 0)]
    check(f"(d) {s}: the first contact force at {first:.4f} s after the exact impact (s)", first - ts if first >= ts else 1, lag)
    check(f"(d) {s}: the node below the plane (m)", max(-a[:, 2].min(), 0), below)
    check(f"(d) {s}: friction beyond mu times the normal force (N)", max((np.hypot(a[:, 13], a[:, 14]) - 0.3 * a[:, 12]).max(), 0), 1e-9)
    check(f"(d) {s}: the energy above its initial value (relative)", max((a[:, 15] - a[0, 15]).max(), 0) / a[0, 15], 1e-9)
sys.exit(1 if bad else 0)
PY
# (c) bad input: badmodel WHAT RANKS PATTERN MODEL
badmodel() { refuse_simulate "(c) $1" "$2" "$3" -system_type multibody -mb_model "$4"; }
sed 's/rom: beam.h5/rom: beam2d.h5/' hinge.yaml >bad.yaml
badmodel "a planar ROM in a spatial model" "1 2" "bad.yaml:4: flexible body 'beam': its ROM 'beam2d.h5' was reduced from a planar mesh" bad.yaml
sed 's/rom: beam2d.h5/rom: beam.h5/' hinge2d.yaml >bad2.yaml
badmodel "a spatial ROM in a planar model" "1" "bad2.yaml:3: flexible body 'beam': its ROM 'beam.h5' was reduced from a spatial mesh" bad2.yaml
sed 's/node: n45/node: n99/' hinge.yaml >bad3.yaml
badmodel "a node the ROM does not report" "1 2" "bad3.yaml:8: the node 'n99' of the flexible body 'beam' needs the ROM's outputs n99_x, n99_y and n99_z" bad3.yaml
sed 's/type: revolute, body1: ground, body2: beam, axis: \[0, 0, 1\]/type: prismatic, body1: beam, point1: [1, 0.025, 0.015], node1: n45, body2: ground, axis: [1, 0, 0]/' \
  hinge.yaml | sed '/joint_angle/d' >bad4.yaml
badmodel "a node on a prismatic joint's line (body1)" "1" "bad4.yaml:6: joint 'pin': a prismatic joint's line on the flexible body 'beam' through a node is not supported" bad4.yaml
cat >bad5.yaml <<'YAML'
dim: 3
bodies:
  - {name: plate, mass: 1, inertia: [1, 1, 1], position: [0, 0, -1]}
  - {name: beam, type: flexible, rom: beam.h5, position: [0, 0, 0]}
springs:
  - {name: s, body1: plate, node1: n45, body2: beam, node2: n45, stiffness: 10}
YAML
badmodel "a node on a rigid body's spring end" "1 2" "bad5.yaml:6: 'node1' names a node of a flexible body's ROM, and 'plate' is not a flexible body" bad5.yaml
sed 's/node: n45}/node: [n45, n45], weights: tributary}/' hinge.yaml >bad7.yaml
badmodel "tributary weights on nodes of no edge or face" "1" "bad7.yaml:8: 'weights: tributary' needs the nodes of one straight edge, or all the nodes of a rectangular grid" bad7.yaml
sed 's/type: flexible, rom: beam.h5,/type: flexible, rom: beam.h5, mass: 2,/' hinge.yaml >bad6.yaml
badmodel "mass on a flexible body" "1" "bad6.yaml:4: flexible body 'beam': its mass and inertia come from its ROM's invariants" bad6.yaml
exit $fail
