#!/usr/bin/python3
"""Plot a vicms cea results file (vicms cea -cea_file X.h5) to a PNG: the frequencies and the real parts of the coupled
modes against the contact position (seed 003 Fig. 4), unstable ones (real part > 0) in red; and, if the file holds one,
the FRF map |H| in dB over position and frequency (Fig. 9), first input to first output unless -i/-j say otherwise.

usage: /usr/bin/python3 scripts/plot_cea.py cea.h5 [-o cea.png] [-i INPUT] [-j OUTPUT]
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
    ap.add_argument("cea_file")
    ap.add_argument("-o", "--output", default=None, help="PNG to write (default: results file name with .png)")
    ap.add_argument("-i", "--input", type=int, default=0, help="FRF input index")
    ap.add_argument("-j", "--out", type=int, default=0, help="FRF output index")
    args = ap.parse_args()
    out = args.output or args.cea_file.rsplit(".", 1)[0] + ".png"

    with h5py.File(args.cea_file, "r") as f:
        if f.attrs.get("format", b"") not in (b"vicms-cea", "vicms-cea"):
            sys.exit(f"{args.cea_file}: not a vicms cea results file")
        mu = float(f.attrs["mu"])
        s = f["positions"][:, 0]
        freq, real = f["frequency_hz"][:], f["real"][:]
        frf = None
        if "frf" in f:
            ni, no = len(f["frf/inputs"]), len(f["frf/outputs"])
            ff = f["frf/frequencies_hz"][:, 0]
            H = f["frf/H_re"][:] + 1j * f["frf/H_im"][:]
            H = H.reshape(len(s), len(ff), no, ni)[:, :, args.out, args.input]
            names = (f["frf/inputs"][args.input], f["frf/outputs"][args.out])
            quantity = f["frf"].attrs.get("quantity", "displacement")  # files before -cea_frf_quantity: displacement
            quantity = quantity.decode() if isinstance(quantity, bytes) else str(quantity)
            frf = (ff, H, [x.decode() if isinstance(x, bytes) else x for x in names], quantity)

    unstable = real > 0
    npanel = 3 if frf else 2
    fig, ax = plt.subplots(1, npanel, figsize=(5.2 * npanel, 4.6))
    S = np.repeat(s[:, None], freq.shape[1], axis=1)
    ax[0].plot(S[~unstable], freq[~unstable] / 1e3, ".", ms=1.5, color="0.4", label="stable")
    ax[0].plot(S[unstable], freq[unstable] / 1e3, "o", ms=4, color="red", label="unstable")
    ax[0].set(xlabel="contact position s [mm]", ylabel="frequency [kHz]", title=f"coupled modes, mu = {mu:g}")
    ax[0].legend(loc="upper right", fontsize=8)
    ax[1].plot(S[~unstable], real[~unstable], ".", ms=1.5, color="0.4")
    ax[1].plot(S[unstable], real[unstable], "o", ms=4, color="red")
    ax[1].axhline(0, color="k", lw=0.5)
    ax[1].set(xlabel="contact position s [mm]", ylabel="real part [1/s]", title=f"{int(unstable.any(axis=1).sum())} unstable positions")
    ax[1].set_yscale("symlog", linthresh=10)
    ax[1].set_ylim(bottom=max(np.nanmin(real), -1e4))  # the overdamped (real) eigenvalues reach -1e7 1/s
    if frf:
        ff, H, (iname, oname), quantity = frf
        db = 20 * np.log10(np.maximum(np.abs(H), 1e-300))
        im = ax[2].imshow(db.T, origin="lower", aspect="auto", extent=(s[0], s[-1], ff[0] / 1e3, ff[-1] / 1e3), cmap="viridis",
                          vmin=np.percentile(db[np.abs(H) > 0] if np.abs(H).any() else db, 5), vmax=db.max())  # zeros (at a clamped end) aside
        unit = "(mm/s²)/N" if quantity == "acceleration" else "mm/N"
        fig.colorbar(im, ax=ax[2], label=f"|H| {quantity} [dB re 1 {unit}]")
        ax[2].set(xlabel="contact position s [mm]", ylabel="frequency [kHz]", title=f"FRF {iname} -> {oname}")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
