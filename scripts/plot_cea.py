#!/usr/bin/python3
"""Plot a vicms cea results file (vicms cea -cea_file X.h5) to a PNG: the frequencies and the real parts of the coupled
modes against the contact position (seed 003 Fig. 4), unstable ones (real part > 0) in red; and, if the file holds one,
the FRF map |H| in dB over position and frequency (Fig. 9), first input to first output unless -i/-j say otherwise.

--shape S[:FREQ] plots instead the mode shape (eigenvector, vicms cea -cea_vectors unstable|all) of the mode nearest
contact position S and frequency FREQ [Hz] (without FREQ: the largest real part at that position), an unstable one when
the file has any: (1) the boundary nodes of the bodies, undeformed and displaced by Re(u e^(j phi)) at 4 phases of the
motion, exaggerated; (2) the real and imaginary parts of their x and y displacements against x; (3) if the bodies file
(attribute bodies_file, or --bodies) can be read, the modulus of each body's modal coordinates against the frequency of
its fixed-interface mode.

usage: /usr/bin/python3 scripts/plot_cea.py cea.h5 [-o cea.png] [-i INPUT] [-j OUTPUT] [--shape S[:FREQ]] [--bodies B.h5]
"""
import os
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def pick_mode(f, spec):
    """The row of /vectors nearest spec = "S" or "S:FREQ": (row, p, j); unstable modes first."""
    if "vectors" not in f:
        sys.exit("no eigenvectors in this file: run vicms cea with -cea_vectors unstable or all")
    try:
        parts = [float(v) for v in spec.split(":")]
        if len(parts) not in (1, 2):
            raise ValueError
    except ValueError:
        sys.exit(f"--shape '{spec}': expected S or S:FREQ (a contact position, a frequency in Hz)")
    index, s = f["vectors/index"][()], f["positions"][:, 0]
    freq, real = f["frequency_hz"][()], f["real"][()]
    pj = np.argwhere(index >= 0)  # rows in the order of (p, j)
    if not len(pj):
        sys.exit(f"no mode has an eigenvector in this file (-cea_vectors {text(f['vectors'].attrs['which'])})")
    unstable = real[pj[:, 0], pj[:, 1]] > 0
    if unstable.any():
        pj = pj[unstable]
    p = pj[np.argmin(np.abs(s[pj[:, 0]] - parts[0])), 0]
    at = pj[pj[:, 0] == p]
    if len(parts) == 2:
        j = at[np.argmin(np.abs(freq[p, at[:, 1]] - parts[1])), 1]
    else:
        j = at[np.argmax(real[p, at[:, 1]]), 1]
    return index[p, j], p, j


def plot_shape(args, out):
    with h5py.File(args.cea_file, "r") as f:
        if text(f.attrs.get("format", "")) != "vicms-cea":
            sys.exit(f"{args.cea_file}: not a vicms cea results file")
        row, p, j = pick_mode(f, args.shape)
        s, fr, re_ = f["positions"][p, 0], f["frequency_hz"][p, j], f["real"][p, j]
        names = list(f["vectors/bodies"])
        bodies = {b: (f[f"vectors/bodies/{b}/coords"][()], f[f"vectors/bodies/{b}/u_re"][row] + 1j * f[f"vectors/bodies/{b}/u_im"][row]) for b in names}
        node_ids = {b: f[f"vectors/bodies/{b}/node_ids"][()] for b in names}
        slave, master = text(f.attrs["slave"]), text(f.attrs["master"])
        u = f["vectors/re"][row] + 1j * f["vectors/im"][row]
        bodies_file = args.bodies or os.path.join(os.path.dirname(os.path.abspath(args.cea_file)), text(f.attrs["bodies_file"]))
        mu = float(f.attrs["mu"])
    state = "unstable" if re_ > 0 else "stable"
    print(f"mode shape: s = {s:g}, mode {j}, {fr:.6g} Hz, real part {re_:.6g} 1/s ({state}); row {row} of /vectors")
    # the slave body drawn where it is when the contact is at s: translated so that its slave node sits on the master chain
    sb, sid = slave.rsplit(":", 1)
    mb, _, mids = master.partition(":")
    chain = bodies[mb][0]
    if mids:
        ids = list(node_ids[mb])
        chain = chain[[ids.index(int(i)) for i in mids.split(",")]]
    arc = np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(chain, axis=0), axis=1))])
    contact = np.array([np.interp(s, arc, chain[:, 0]), np.interp(s, arc, chain[:, 1])])
    shift = contact - bodies[sb][0][list(node_ids[sb]).index(int(sid))]
    bodies[sb] = (bodies[sb][0] + shift, bodies[sb][1])
    modal = None
    if os.path.exists(bodies_file):
        with h5py.File(bodies_file, "r") as bf:
            modal, off = [], 0
            for b in text(bf.attrs["bodies"]).split(","):
                g = bf[f"bodies/{b}"]
                nb, nk = int(g.attrs["n_boundary"]), g["K"].shape[0]
                modal.append((b, g["frequencies_hz"][()], np.abs(u[off + nb : off + nk])))
                off += nk
    else:
        print(f"no modal panel: cannot read the bodies file {bodies_file} (give --bodies)")
    layout = [["geo", "geo"], ["comp", "modal"]] if modal else [["geo"], ["comp"]]
    fig, ax = plt.subplot_mosaic(layout, figsize=(12 if modal else 7, 7.4), gridspec_kw=dict(height_ratios=[1, 1.3]))
    lo = np.min([c.min(axis=0) for c, _ in bodies.values()], axis=0)
    hi = np.max([c.max(axis=0) for c, _ in bodies.values()], axis=0)
    umax = max(np.abs(d).max() for _, d in bodies.values())
    scale = 0.08 * np.hypot(*(hi - lo)) / umax if umax > 0 else 0
    colors = plt.cm.viridis(np.linspace(0, 0.85, 4))
    for k, (b, (c, d)) in enumerate(bodies.items()):
        ax["geo"].plot(c[:, 0], c[:, 1], "-", color="0.75", lw=3, label="undeformed" if k == 0 else None)
        for phi, col in zip(np.arange(4) * np.pi / 4, colors):
            xy = c + scale * np.real(d.reshape(-1, 2) * np.exp(1j * phi))
            ax["geo"].plot(xy[:, 0], xy[:, 1], ".-", ms=3, lw=0.8, color=col, label=f"phase {np.degrees(phi):.0f}°" if k == 0 else None)
        dense = len(c) > 8
        for comp, name in ((0, "x"), (1, "y")):
            for part, fn, dash in (("Re", np.real, "-"), ("Im", np.imag, ":")):
                ax["comp"].plot(c[:, 0], fn(d[comp::2]), dash if dense else "o", ms=4, mfc="none" if part == "Im" else None,
                                color="tab:blue" if comp == 0 else "tab:red", label=f"{part} u{name} {b}")
    ax["geo"].plot(*contact, "*", color="red", ms=10, label=f"contact, s = {s:g}")
    ax["geo"].set_aspect("equal", adjustable="datalim")
    ax["geo"].set(xlabel="x", ylabel="y", title=f"mode {j} at s = {s:g}: {fr:.1f} Hz, real part {re_:.3g} 1/s ({state}), mu = {mu:g}\n"
                  f"boundary nodes ({sb} moved to the contact), displacements x {scale:.3g}")
    ax["geo"].legend(fontsize=7, loc="upper left", ncol=3)
    ax["comp"].axhline(0, color="k", lw=0.5)
    ax["comp"].set(xlabel="node x", ylabel="displacement (|u| = 1 over all coordinates)", title="boundary-node displacements")
    ax["comp"].legend(fontsize=6, ncol=2, loc="best")
    if modal:
        for (b, fk, q), mk in zip(modal, "os^v"):
            ax["modal"].semilogy(fk / 1e3, np.maximum(q, 1e-300), mk, ms=4, label=b)
        ax["modal"].axvline(fr / 1e3, color="red", lw=0.6, ls="--")
        ax["modal"].set(xlabel="fixed-interface mode frequency [kHz]", ylabel="|modal coordinate|", title="modal participation per body")
        ax["modal"].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=args.dpi)
    print(f"wrote {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cea_file")
    ap.add_argument("-o", "--output", default=None, help="PNG to write (default: results file name with .png)")
    ap.add_argument("-i", "--input", type=int, default=0, help="FRF input index")
    ap.add_argument("-j", "--out", type=int, default=0, help="FRF output index")
    ap.add_argument("--shape", default=None, help="S or S:FREQ: plot the mode shape of the (unstable) mode nearest position S, frequency FREQ Hz")
    ap.add_argument("--bodies", default=None, help="with --shape: the bodies file (default: the file's attribute bodies_file)")
    ap.add_argument("--dpi", type=int, default=120, help="resolution of the PNG")
    args = ap.parse_args()
    if args.shape is not None:
        plot_shape(args, args.output or args.cea_file.rsplit(".", 1)[0] + "_shape.png")
        return
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
    fig.savefig(out, dpi=args.dpi)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
