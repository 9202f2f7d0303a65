#!/usr/bin/env python3
"""Compare two vicms bodies files (format vicms-bodies): the same bodies, boundary tables, contact tables and attributes,
and K, M, D, frequencies, loads, outputs and shapes equal to a relative tolerance (each real dataset against its own
largest entry; frequencies entry by entry). Prints the largest relative difference; exits 1 when it exceeds the tolerance.
With --options-differ the root attribute `reduction` (the options that made the file) is not compared.
  compare_bodies.py A.h5 B.h5 [TOL] [--options-differ]"""
import sys

import h5py
import numpy as np


def items(f):
    out = {}
    f.visititems(lambda name, obj: out.__setitem__(name, obj) if isinstance(obj, h5py.Dataset) else None)
    return out


def attrs(f):
    out = {}
    f.visititems(lambda name, obj: out.update({(name, k): v for k, v in obj.attrs.items()}))
    out.update({("/", k): v for k, v in f.attrs.items()})
    return out


def main():
    args = [x for x in sys.argv[1:] if x != "--options-differ"]
    a, b = h5py.File(args[0], "r"), h5py.File(args[1], "r")
    tol = float(args[2]) if len(args) > 2 else 1e-10
    bad, worst, where = [], 0.0, ""
    if a.attrs.get("format") != b"vicms-bodies" and a.attrs.get("format") != "vicms-bodies":
        sys.exit("FAIL %s is not a bodies file" % sys.argv[1])
    aa, ab = attrs(a), attrs(b)
    if "--options-differ" in sys.argv:
        aa.pop(("/", "reduction"), None)
        ab.pop(("/", "reduction"), None)
    if aa.keys() != ab.keys():
        bad.append("attributes differ: %s" % sorted(set(aa) ^ set(ab)))
    for k in aa.keys() & ab.keys():
        if not np.array_equal(np.asarray(aa[k]), np.asarray(ab[k])):
            bad.append("attribute %s: %r != %r" % (k, aa[k], ab[k]))
    da, db = items(a), items(b)
    if da.keys() != db.keys():
        bad.append("datasets differ: %s" % sorted(set(da) ^ set(db)))
    for k in sorted(da.keys() & db.keys()):
        x, y = da[k][()], db[k][()]
        if x.shape != y.shape:
            bad.append("%s: shape %s != %s" % (k, x.shape, y.shape))
        elif x.dtype.kind != "f":
            if not np.array_equal(x, y):
                bad.append("%s differs" % k)
        else:
            scale = np.abs(x) if k.endswith("frequencies_hz") else np.max(np.abs(x), initial=0.0)
            d = np.max(np.abs(x - y) / np.where(scale > 0, scale, 1.0), initial=0.0)
            if d > worst:
                worst, where = d, k
    print("largest relative difference %.2e (%s) over %d datasets" % (worst, where or "-", len(da)))
    if worst > tol:
        bad.append("largest relative difference %.2e in %s, above %.0e" % (worst, where, tol))
    for m in bad:
        print("FAIL " + m)
    sys.exit(1 if bad else 0)


main()
