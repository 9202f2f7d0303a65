#!/usr/bin/python3
"""Plot the mode shapes of a vicms modes file (vicms modes -modes_file X.h5) to a PNG.

usage: /usr/bin/python3 scripts/plot_modes.py modes.h5 [-o modes.png] [-n 6]
"""
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("modes_file")
    ap.add_argument("-o", "--output", default=None, help="PNG to write (default: modes file name with .png)")
    ap.add_argument("-n", "--num", type=int, default=6, help="how many modes to draw")
    args = ap.parse_args()
    out = args.output or args.modes_file.rsplit(".", 1)[0] + ".png"

    with h5py.File(args.modes_file, "r") as f:
        if f.attrs.get("format", b"") not in (b"vicms-modes", "vicms-modes"):
            sys.exit(f"{args.modes_file}: not a vicms modes file")
        freq = f["frequencies_hz"][:]
        xyz = f["mesh/coordinates"][:]
        n = min(args.num, len(freq))
        shapes = [f[f"modes/{k + 1}"][:] for k in range(n)]

    span = np.ptp(xyz, axis=0)
    one_d = span[1] == 0 and span[2] == 0
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig = plt.figure(figsize=(4.2 * cols, 4.0 * rows))
    for k in range(n):
        u = shapes[k]
        umax = np.abs(u).max() or 1.0
        if one_d:
            ax = fig.add_subplot(rows, cols, k + 1)
            order = np.argsort(xyz[:, 0])
            ax.plot(xyz[order, 0], u[order, 0] / umax)
            ax.set_xlabel("x")
            ax.set_ylabel("axial displacement (normalized)")
        else:
            ax = fig.add_subplot(rows, cols, k + 1, projection="3d")
            scale = 0.15 * span.max() / umax
            d = xyz + scale * u
            mag = np.linalg.norm(u, axis=1)
            step = max(1, len(xyz) // 6000)
            ax.scatter(xyz[::step, 0], xyz[::step, 1], xyz[::step, 2], s=0.3, c="0.8")
            ax.scatter(d[::step, 0], d[::step, 1], d[::step, 2], s=0.6, c=mag[::step], cmap="viridis")
            ax.set_box_aspect(np.maximum(span, 0.05 * span.max()))
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_zticks([])
        ax.set_title(f"mode {k + 1}: {freq[k]:.6g} Hz")
    fig.suptitle(args.modes_file)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
