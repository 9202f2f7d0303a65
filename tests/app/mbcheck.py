"""Shared by the application tests' Python checks (multibody, modes_parallel, spatial, multibody_springs): a pass/fail line per
check, a case of a results file by output name, and the quaternion's product and rotation matrix."""
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
