#!/usr/bin/env python3
"""Map of the largest value of chosen multibody outputs over a two-parameter case grid (vicms simulate -system_type multibody
-cases_grid A:..,B:..; docs/multibody.md, "Parameters"): for each case the largest |value| over time and over the outputs
named, drawn as a coloured grid over the two case parameters, the numbers written in the cells; the table is printed too.

usage: /usr/bin/python3 scripts/plot_multibody_map.py results.h5 --outputs f_ul,f_ur,f_ll,f_lr [-o map.png] [--label TEXT]
       [--scale-x S] [--scale-y S] [--xlabel TEXT] [--ylabel TEXT]
"""
import argparse
import sys

import h5py
import numpy as np


def text(a):
    return a.decode() if isinstance(a, bytes) else str(a)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--outputs", required=True, help="output columns (comma-separated), e.g. the contact forces")
    ap.add_argument("-o", default="multibody_map.png")
    ap.add_argument("--label", default="largest value")
    ap.add_argument("--scale-x", type=float, default=1.0)
    ap.add_argument("--scale-y", type=float, default=1.0)
    ap.add_argument("--xlabel", default=None)
    ap.add_argument("--ylabel", default=None)
    a = ap.parse_args()
    names = a.outputs.split(",")
    with h5py.File(a.file, "r") as f:
        P = f["cases/parameters"][()]
        pcols = text(f["cases/parameters"].attrs["columns"]).split(",")
        status = f["cases/status"][()]
        if P.ndim != 2 or P.shape[1] != 2:
            sys.exit("%s: expected a grid over two case parameters, the file has %s" % (a.file, ", ".join(pcols)))
        vals = np.full(len(P), np.nan)
        for k in range(len(P)):
            if status[k] != 1:
                continue
            c = f["cases/%d" % k]
            cols = text(c["outputs"].attrs["columns"]).split(",")
            missing = [n for n in names if n not in cols]
            if missing:
                sys.exit("%s: case %d has no output %s (it has %s)" % (a.file, k, ", ".join(missing), ", ".join(cols)))
            o = c["outputs"][()]
            vals[k] = max(np.max(np.abs(o[:, cols.index(n)])) for n in names)
    xs, ys = np.unique(P[:, 0]), np.unique(P[:, 1])
    Z = np.full((len(ys), len(xs)), np.nan)
    for k in range(len(P)):
        Z[np.searchsorted(ys, P[k, 1]), np.searchsorted(xs, P[k, 0])] = vals[k]
    print("%s over %s (rows) x %s (columns):" % (a.label, pcols[1], pcols[0]))
    print("%12s " % "" + " ".join("%12.4g" % x for x in xs))
    for j, y in enumerate(ys):
        print("%12.4g " % y + " ".join("%12.4g" % z for z in Z[j]))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    im = ax.imshow(Z, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(xs)), ["%g" % (x * a.scale_x) for x in xs])
    ax.set_yticks(range(len(ys)), ["%g" % (y * a.scale_y) for y in ys])
    ax.set_xlabel(a.xlabel or pcols[0])
    ax.set_ylabel(a.ylabel or pcols[1])
    for j in range(len(ys)):
        for i in range(len(xs)):
            if np.isfinite(Z[j, i]):
                ax.text(i, j, "%.3g" % Z[j, i], ha="center", va="center", color="w" if Z[j, i] < np.nanmean(Z) else "k", fontsize=8)
    fig.colorbar(im, ax=ax, label=a.label)
    fig.tight_layout()
    fig.savefig(a.o, dpi=110)
    print("wrote %s" % a.o)


if __name__ == "__main__":
    main()
