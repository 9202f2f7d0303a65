# The application tests' comparison of two vicms HDF5 results files, object by object (wall times and @options aside).
"""usage: compare_results.py A B [--min-objects N] [--all-done] [--label TEXT]

Every group attribute, dataset and dataset attribute of A and B is flattened to a key ("/cases/3/outputs",
"/cases@n_cases", ...); both files must hold the same keys, and every value must be equal (np.array_equal; NaNs equal
in float arrays), except keys containing "wall_time" and the root attributes "@options" (the command line) and "@merge" (how
many merges wrote the file).
--min-objects N: A must hold at least N objects and attributes (a guard against comparing two near-empty files);
--all-done: /cases/status of A and of B must be 1 (done) for every case.
Prints one line, "ok   ..." or "FAIL ..." (with the first 8 differing keys), and exits 0 or 1.
"""
import argparse
import sys

import h5py
import numpy as np


def walk(g, p=""):
    """{key: value} of the group g, its attributes and, recursively, its members"""
    out = {}
    for an, av in g.attrs.items():
        out[p + "@" + an] = av
    for k, v in g.items():
        q = p + "/" + k
        if isinstance(v, h5py.Group):
            out.update(walk(v, q))
        else:
            out[q] = v[()]
            for an, av in v.attrs.items():
                out[q + "@" + an] = av
    return out


def ignored(k):
    return "wall_time" in k or k in ("@options", "@merge")


def main():
    ap = argparse.ArgumentParser(description="Compare two vicms results files object by object.")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--min-objects", type=int, default=0, help="A must hold at least N objects and attributes")
    ap.add_argument("--all-done", action="store_true", help="every case of A and B must be done (/cases/status == 1)")
    ap.add_argument("--label", default="", help="what the comparison checks, printed first")
    o = ap.parse_args()
    head = (o.label + ": " if o.label else "") + "%s against %s" % (o.b, o.a)

    try:
        with h5py.File(o.a, "r") as fa, h5py.File(o.b, "r") as fb:
            a, b = walk(fa), walk(fb)
    except (OSError, KeyError) as e:
        print("FAIL %s: cannot read the files: %s" % (head, e))
        return 1

    diff = sorted(set(a) ^ set(b))
    for k in a:
        if k in b and not ignored(k):
            x, y = np.asarray(a[k]), np.asarray(b[k])
            if x.dtype.kind == "f":  # arrays and scalar attributes alike (a NaN attribute equals itself)
                same = np.array_equal(x, y, equal_nan=True)
            else:
                same = np.array_equal(x, y)
            if not same:
                diff.append(k)

    problems = []
    if diff:
        problems.append("%d keys differ: %s" % (len(diff), ", ".join(diff[:8])))
    if len(a) < o.min_objects:
        problems.append("%d objects and attributes, expected at least %d" % (len(a), o.min_objects))
    done = ""
    if o.all_done:
        for name, f in ((o.a, a), (o.b, b)):
            st = f.get("/cases/status")
            if st is None:
                problems.append("%s has no /cases/status" % name)
            elif not (np.asarray(st) == 1).all():
                problems.append("%s: cases not all done, statuses %s" % (name, np.asarray(st).tolist()))
            else:
                done = "; all %d cases done" % np.asarray(st).size
    ok = not problems
    print(("ok   " if ok else "FAIL ") + "%s: %s (%d objects and attributes, wall times and the options string aside%s)%s"
          % (head, "equal bitwise" if ok else "DIFFER", len(a), done, "" if ok else ": " + "; ".join(problems)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
