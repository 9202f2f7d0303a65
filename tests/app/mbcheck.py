"""Shared by the application tests' Python checks (multibody, modes_parallel): a pass/fail line per check, and a case of a
results file by output name."""
import h5py

bad = 0


def check(ok, what):
    """Print ok/FAIL for one check; a failure makes the script's exit status 1 (sys.exit(mbcheck.bad))."""
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        bad = 1


def case(name, k=0):
    """Case k of a results file: times, {output name: series}, gaps, forces."""
    c = h5py.File(name, "r")["cases/%d" % k]
    cols = c["outputs"].attrs["columns"]
    cols = (cols.decode() if isinstance(cols, bytes) else cols).split(",")
    o = c["outputs"][:]
    return c["t"][:], {n: o[:, i] for i, n in enumerate(cols)}, c["gaps"][:], c["forces"][:]
