"""Shared by the application tests' Python checks (multibody, modes_parallel, spatial, multibody_springs): a pass/fail line per
check, a case of a results file by output name, the quaternion's product and rotation matrix, and a planar flexible body's
rigid twin (multibody_flexible_points, multibody_flexible_static) and a ROM's rigid body (spatial_flexible, spatial_flexible_points)."""
import re

import h5py
import numpy as np

bad = 0


def check(ok, what):
    """Print ok/FAIL for one check; a failure makes the script's exit status 1 (sys.exit(mbcheck.bad))."""
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        bad = 1


def case(name, k=0):
    """Case k of a results file: times, {output name: series}, gaps, forces (None for a model without constraint rows)."""
    c = h5py.File(name, "r")["cases/%d" % k]
    cols = c["outputs"].attrs["columns"]
    cols = (cols.decode() if isinstance(cols, bytes) else cols).split(",")
    o = c["outputs"][:]
    rows = [c[d][:] if d in c else None for d in ("gaps", "forces")]
    return (c["t"][:], {n: o[:, i] for i, n in enumerate(cols)}, *rows)


def qmul(a, b):
    """The quaternion product a (x) b (scalar part first)."""
    return np.array([a[0] * b[0] - a[1:] @ b[1:], *(a[0] * b[1:] + b[0] * a[1:] + np.cross(a[1:], b[1:]))])


def rot(p):
    """The rotation matrix of the unit quaternion p = (e0, e1, e2, e3)."""
    e0, e1, e2, e3 = p
    return np.array([[e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
                     [2 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2 * (e2 * e3 - e0 * e1)],
                     [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3]])


def frame_body(rom):
    """The rigid body of a ROM's floating-frame invariants (/frame): its mass m, its centre c = I_1 / m in the frame and its
    inertia about c, J_c = I_2 - m |c|^2 in the plane, tr(J) I - J - m (|c|^2 I - c c^T) in space (J = int rho x x^T)."""
    fr = h5py.File(rom, "r")["frame"]
    m = float(np.ravel(fr["mass"][()])[0])
    c = np.ravel(fr["first_moment"][()]) / m
    J = np.reshape(fr["second_moment"][()], (len(c), len(c)))
    if len(c) == 2:
        return m, c, J[0, 0] + J[1, 1] - m * (c @ c)
    return m, c, np.trace(J) * np.eye(3) - J - m * (c @ c * np.eye(3) - np.outer(c, c))


def rigid_twin(s, rom):
    """The planar model text s with its flexible body 'f' (frame at the origin) replaced by the rigid body of its ROM's
    invariants (m, its centre c = I_1 / m, J_c = I_2 - m |c|^2): the points at the frame's origin, at [1, 0] (the tip node
    n22: a spring's point2, a point output) and the line through [0, 0.025] (n23) and [1, 0.025] (n33) moved into the body's
    centre frame. Returns the text and c."""
    m, c, Jc = frame_body(rom)
    body = "{name: f, mass: %r, inertia: %r, position: [%r, %r]}" % (m, Jc, c[0], c[1])
    s = re.sub(r"\{name: f, type: flexible, rom: [^,]+, position: \[0, 0\][^}]*\}", lambda _: body, s)
    s = s.replace("body2: f, point2: [0, 0]}", "body2: f, point2: [%r, %r]}" % (-c[0], -c[1]))
    s = s.replace("point2: [1, 0], node2: n22,", "point2: [%r, %r]," % (1 - c[0], -c[1]))
    s = s.replace("point: [1, 0], node: n22}", "point: [%r, %r]}" % (1 - c[0], -c[1]))
    s = s.replace("line_point: [0, 0.025], line_node: n23, line_point2: [1, 0.025], line_node2: n33,",
                  "line_point: [%r, %r], line_normal: [0, 1]," % (-c[0], 0.025 - c[1]))
    assert "n2" not in s and "n3" not in s, s
    return s, c
