#!/usr/bin/python3
"""Plot multibody results (vicms simulate -system_type multibody) to a PNG, one column per results file: the named outputs
chosen with --outputs (default: every column but the forces and the energy), the constraint rows' gaps (joint residuals and
contact gaps), the contact and joint forces, and the energy (when the model records an output named energy), against time.
Several files (e.g. nsgalpha and Moreau-Jean on one model) are drawn into the same axes, one line style each.

usage: /usr/bin/python3 scripts/plot_multibody.py a.h5 [b.h5 ...] [-o multibody.png] [--outputs NAME,NAME]
       [--labels A,B] [--case K] [--tmax T]
"""
import argparse

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def load(path, case):
    with h5py.File(path, "r") as f:
        c = f["cases/%d" % case]
        cols = text(c["outputs"].attrs["columns"]).split(",")
        o = c["outputs"][()]
        return dict(t=c["t"][()].ravel(), out={k: o[:, i] for i, k in enumerate(cols)}, gaps=c["gaps"][()], forces=c["forces"][()])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("-o", default="multibody.png")
    ap.add_argument("--outputs", default="")
    ap.add_argument("--labels", default="")
    ap.add_argument("--case", type=int, default=0)
    ap.add_argument("--tmax", type=float, default=0)
    a = ap.parse_args()
    runs = [load(p, a.case) for p in a.files]
    labels = a.labels.split(",") if a.labels else a.files
    names = a.outputs.split(",") if a.outputs else [k for k in runs[0]["out"] if "force" not in k and k != "energy"]
    has_e = "energy" in runs[0]["out"]
    rows = len(names) + 2 + (1 if has_e else 0)
    fig, ax = plt.subplots(rows, 1, figsize=(8, 2.0 * rows), sharex=True, squeeze=False)
    ax = ax[:, 0]
    styles = ["-", "--", ":", "-."]
    for r, (d, lab) in enumerate(zip(runs, labels)):
        st = styles[r % len(styles)]
        t = d["t"]
        for i, k in enumerate(names):
            ax[i].plot(t, d["out"][k], st, label=lab)
            ax[i].set_ylabel(k)
        for j in range(d["gaps"].shape[1]):
            ax[len(names)].plot(t, d["gaps"][:, j], st, label="%s row %d" % (lab, j))
            ax[len(names) + 1].plot(t, d["forces"][:, j], st, label="%s row %d" % (lab, j))
        if has_e:
            ax[-1].plot(t, d["out"]["energy"], st, label=lab)
    ax[len(names)].set_ylabel("gaps (m)")
    ax[len(names) + 1].set_ylabel("forces (N)")
    if has_e:
        ax[-1].set_ylabel("energy (J)")
    ax[-1].set_xlabel("t (s)")
    if a.tmax > 0:
        ax[-1].set_xlim(0, a.tmax)
    for x in ax:
        x.grid(True, alpha=0.3)
    ax[0].legend(fontsize=7)
    ax[len(names) + 1].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(a.o, dpi=90)
    print("wrote", a.o)


if __name__ == "__main__":
    main()
