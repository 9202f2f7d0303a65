#!/usr/bin/python3
"""Plot vicms slide history files (vicms slide -slide_file X.h5) to a PNG, one column per file (seed 003 Figs. 5-8):
  1. an output (default: the last one, beam2's tip in the beam-on-beam job) and its acceleration by second differences,
     against time;
  2. the normal force and the sliding velocity at the contact against the contact position s along the master chain;
  3. the spectrogram of the output's acceleration against time, with the times where the contact crosses the --bands
     positions marked (e.g. the unstable positions of vicms cea).
--report f0,f1 prints, per --bin mm of contact position, the RMS of the acceleration's spectrogram between f0 and f1 Hz.

usage: /usr/bin/python3 scripts/plot_slide.py slide.h5 [more.h5 ...] [-o slide.png] [--output NAME] [--fmax HZ]
       [--nfft N] [--bands s0:s1,s2:s3] [--report f0,f1] [--bin MM] [--slave J]
"""
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.mlab as mlab  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def load(path, output, slave):
    with h5py.File(path, "r") as f:
        if text(f.attrs.get("format", "")) != "vicms-slide":
            sys.exit(f"{path}: not a vicms slide history file")
        names = [text(x) for x in f["output_names"][()]] if "output_names" in f else []
        if not names:
            sys.exit(f"{path}: no body outputs recorded (give the bodies -body_NAME_cms_outputs)")
        k = names.index(output) if output else len(names) - 1
        j = slave
        if not 0 <= j < f["contact/status"].shape[1]:
            sys.exit(f"{path}: --slave {j}: the history has {f['contact/status'].shape[1]} slave node(s)")
        d = dict(t=f["t"][()].ravel(), y=f["outputs"][:, k], name=names[k], mu=float(f.attrs["mu"]), s=f["contact/position"][:, j],
                 normal=f["contact/normal"][:, j], slip=f["contact/slip_velocity"][:, j], status=f["contact/status"][:, j],
                 dt=float(f.attrs["dt"]) * int(f.attrs["record_every"]), rms=float(f.attrs["noise_rms"]))
    if len(d["t"]) > 2 and abs((d["t"][-1] - d["t"][-2]) / d["dt"] - 1) > 1e-6:
        for k in ("t", "y", "s", "normal", "slip", "status"):  # the last record closes a shorter interval: off the regular grid
            d[k] = d[k][:-1]
    d["acc"] = np.zeros_like(d["y"])
    d["acc"][1:-1] = (d["y"][2:] - 2 * d["y"][1:-1] + d["y"][:-2]) / d["dt"] ** 2
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("-o", "--png", default=None, help="PNG to write (default: the first file's name with .png)")
    ap.add_argument("--output", default=None, help="the output to plot, BODY/NAME (default: the last one)")
    ap.add_argument("--fmax", type=float, default=12000, help="upper frequency of the spectrogram (Hz)")
    ap.add_argument("--nfft", type=int, default=1024, help="samples per spectrogram window (75 %% overlap)")
    ap.add_argument("--bands", default="", help="contact positions to mark, s0:s1,s2:s3 (length unit of the bodies)")
    ap.add_argument("--report", default="", help="f0,f1: print the RMS acceleration between f0 and f1 Hz per --bin of position")
    ap.add_argument("--bin", type=float, default=0.5, help="position bin of --report")
    ap.add_argument("--slave", type=int, default=0, help="the slave node whose contact is plotted (its column, 0: the first)")
    ap.add_argument("--dpi", type=int, default=64, help="resolution of the PNG")
    args = ap.parse_args()
    png = args.png or args.files[0].rsplit(".", 1)[0] + ".png"
    bands = [tuple(float(v) for v in b.split(":")) for b in args.bands.split(",") if b]
    runs = [load(p, args.output, args.slave) for p in args.files]

    fig, axes = plt.subplots(3, len(runs), figsize=(6.2 * len(runs), 9.5), squeeze=False)
    for c, (path, d) in enumerate(zip(args.files, runs)):
        t, acc = d["t"], d["acc"]
        ax = axes[0, c]
        ax.plot(t, acc / 1e3, lw=0.4, color="tab:blue")
        ax.set_ylabel(f"{d['name']} acceleration [m/s²]", color="tab:blue")
        ax.set_title(f"{path}: mu = {d['mu']:g}" + (f", random force RMS {d['rms']:g}" if d["rms"] > 0 else ""), fontsize=9)
        ax2 = ax.twinx()
        ax2.plot(t, d["y"], lw=0.8, color="tab:orange")
        ax2.set_ylabel(f"{d['name']} [mm]", color="tab:orange")
        ax.set_xlabel("t [s]")

        ax = axes[1, c]
        ax.plot(d["s"], d["normal"], lw=0.4, color="tab:green")
        ax.set_ylabel("normal force [N]", color="tab:green")
        ax.set_xlabel("contact position s [mm]")
        ax2 = ax.twinx()
        ax2.plot(d["s"], d["slip"], lw=0.4, color="tab:red")
        ax2.set_ylabel("sliding velocity [mm/s]", color="tab:red")
        for b in bands:
            if b[1] >= np.nanmin(d["s"]) and b[0] <= np.nanmax(d["s"]):
                ax.axvspan(b[0], b[1], color="0.85", zorder=0)

        ax = axes[2, c]
        fs = 1 / d["dt"]
        P, f, tt = mlab.specgram(acc[1:-1], NFFT=args.nfft, Fs=fs, noverlap=3 * args.nfft // 4, detrend="mean")
        tt = tt + t[1]
        keep = f <= args.fmax
        ax.pcolormesh(tt, f[keep] / 1e3, 10 * np.log10(P[keep] + 1e-300), shading="auto", cmap="viridis")
        ax.set_ylabel("frequency [kHz]")
        ax.set_xlabel("t [s]")
        for b in bands:  # when the contact is inside the band of positions
            inside = (d["s"] >= b[0]) & (d["s"] <= b[1])
            if inside.any():
                for x in (t[inside][0], t[inside][-1]):
                    ax.axvline(x, color="w", lw=0.8, ls="--")
        if args.report:
            f0, f1 = (float(v) for v in args.report.split(","))
            sel = (f >= f0) & (f <= f1)
            # RMS of the acceleration in [f0, f1]: the PSD integrated over the band, per window
            amp = np.sqrt(P[sel].sum(axis=0) * (f[1] - f[0])) / 1e3
            peak = f[sel][np.argmax(P[sel], axis=0)]
            spos = np.interp(tt, t, d["s"])
            print(f"{path} (mu = {d['mu']:g}): RMS of {d['name']} acceleration in [{f0:g}, {f1:g}] Hz [m/s²] per {args.bin:g} mm of s")
            edges = np.arange(np.floor(spos.min() / args.bin) * args.bin, spos.max() + args.bin, args.bin)
            for lo in edges[:-1]:
                m = (spos >= lo) & (spos < lo + args.bin)
                if m.any():
                    mark = " *" if any(lo + args.bin > b[0] and lo < b[1] for b in bands) else ""
                    top = np.argmax(np.where(m, amp, -1))
                    print(f"  s = {lo:8.2f} .. {lo + args.bin:8.2f}: {amp[m].mean():10.4g} (max {amp[m].max():.4g} at {peak[top]:.0f} Hz){mark}")
    fig.tight_layout()
    fig.savefig(png, dpi=args.dpi)
    print(f"wrote {png}")


if __name__ == "__main__":
    main()
