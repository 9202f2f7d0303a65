"""Plots of vicms files to PNGs (the functions behind scripts/plot_results.py, plot_modes.py, plot_slide.py and
plot_cea.py, which are thin wrappers over them).

    results(path, outdir=None, kinds=None, cases=None, output=None, overlay=None)   # results and hb files
    modes(path, outdir=None, num=6)                                                 # mode shapes
    slide(paths, outdir=None, ...)                                                  # slide history files
    cea(path, outdir=None, ...), cea_shape(path, spec, outdir=None, ...)            # cea files

One convention for every plot: `outdir` (-o on the command line) is the FOLDER the PNGs go to (default: the folder of the
input file), each PNG named after the input file's stem and the kind of plot: <stem>_<kind>.png (results:
<stem>_time_case<K>.png, <stem>_energy_case<K>.png, <stem>_phase_case<K>.png, <stem>_frf.png, <stem>_uq.png,
<stem>_hb.png; modes: <stem>_modes.png; slide: <stem>_slide.png; cea: <stem>_cea.png, <stem>_shape.png). Every
function returns the paths it wrote and prints `wrote PATH` for each. PNGs are written at DPI (150) dots per inch,
axis labels carry the units the files record (a ROM's, results file's or bodies file's `units`), titles are wrapped
to the figure's width, and a note says when a time series was recorded every N-th step or drawn decimated.
Errors (a missing or malformed file, nothing to plot) raise PlotError (or files.FileFormatError) with a message
naming the file; the command-line wrappers print it and exit non-zero.
"""
import argparse
import os
import sys
import textwrap

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.mlab as mlab  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

from .files import (FileFormatError, Units, bodies_units, quantity_kind, read_modes, _open,  # noqa: E402
                    text)

DPI = 150
RESULTS_USAGE = """Plot a vicms results file (vicms simulate -results_file X.h5) to PNGs.

usage: /usr/bin/python3 scripts/plot_results.py results.h5 [-o OUTDIR] [--case K ...] [--output NAME]
                                                [--kind time,frf,energy,uq,phase,hb] [--overlay SWEEPS.h5]

Kinds (default: every kind the file supports except phase):
  time    outputs, contact gaps and contact forces (and the excitation frequency when recorded) against time,
          for the first done case or each --case: <stem>_time_case<K>.png
  energy  the energy terms and the balance error against time, per case: <stem>_energy_case<K>.png
  frf     frequency response: slow-sweep envelopes up and down (summary/sweep_up, summary/sweep_down, or the per-case
          cases/<k>/envelope) and constant-frequency points (summary/frf): <stem>_frf.png
  uq      one histogram per quantity with its mean and +-1 std (summary/histograms, summary/statistics): <stem>_uq.png
  hb      harmonic balance branches (vicms hb: summary/hb for one case, cases/<k> for a case set): amplitude against frequency, stable parts solid, unstable
          parts dashed, turning points marked; --overlay X.h5 adds the sweep envelopes and constant-frequency points of
          a time-stepping results file X.h5 (vicms simulate): <stem>_hb.png
  phase   phase portrait (output against its time derivative, last half of the run), per case: <stem>_phase_case<K>.png
          (only when asked)

<stem> is the results file name without .h5; -o OUTDIR is the folder the PNGs go to (as for every vicms
plot), by default the results file's. --output NAME draws only
that ROM output in time and phase plots, and for frf recomputes the constant-frequency points from the quantity
amplitude_NAME when summary/frf is for another output. Failed and pending cases are skipped with a note on stderr.
Each written file is printed as `wrote PATH`; the exit status is 0 when at least one plot was written.
"""
KINDS = ("time", "frf", "energy", "uq", "phase", "hb")
DEFAULT_KINDS = ("time", "energy", "frf", "uq", "hb")
STATUS = {0: "pending", 1: "done", 2: "failed"}
# the columns of cases/<k>/energy; files written before 2026-11-28 have the first seven (no numerical_dissipation)
ENERGY_COLUMNS = "kinetic,potential,damping_dissipation,friction_dissipation,external_work,obstacle_work,balance_error,numerical_dissipation"
MAX_LINES = 8  # more contacts than this are drawn as min/max bands instead of one line each
MAX_POINTS = 4000  # per line, after min/max decimation of long series


def columns(obj, default=None):
    """The comma-separated `columns` attribute of a dataset as a list of names."""
    c = obj.attrs.get("columns")
    if c is None:
        return list(default.split(",")) if default else None
    return [x.strip() for x in text(c).split(",")]


class PlotError(ValueError):
    """Nothing could be plotted, with the reason (names the file)."""


def note(msg):
    print(f"note: {msg}", file=sys.stderr)


def wrap(title, fig, fontsize=12):
    """The title broken into lines that fit the figure's width (about 0.55 em per character)."""
    width = max(20, int(fig.get_figwidth() * 72 / (0.55 * fontsize)))
    return "\n".join(textwrap.fill(line, width) for line in title.split("\n"))


def output_folder(input_path, outdir):
    """The folder the PNGs of input_path go to: outdir, or the input file's folder. -o is a folder for every plot."""
    outdir = os.fspath(outdir) if outdir else None
    if outdir and outdir.lower().endswith(".png"):
        raise PlotError(f"-o {outdir}: -o is the folder the PNGs go to (every vicms plot names its files "
                        "<stem>_<kind>.png), not a file name")
    return outdir or os.path.dirname(os.path.abspath(input_path))


def decimate(t, y, n=MAX_POINTS):
    """At most about 2n points of (t, y) keeping each bucket's min and max, so peaks and impacts stay visible."""
    m = len(t)
    if m <= 2 * n:
        return t, y
    edges = np.linspace(0, m, n + 1).astype(int)
    ilo = np.empty(n, dtype=int)
    ihi = np.empty(n, dtype=int)
    for b in range(n):
        seg = y[edges[b]:edges[b + 1]]
        ilo[b] = edges[b] + int(np.argmin(seg))
        ihi[b] = edges[b] + int(np.argmax(seg))
    idx = np.unique(np.concatenate([ilo, ihi, [0, m - 1]]))
    return t[idx], y[idx]


class ResultsFile:
    """What the plots need from a results file, read once (an open h5py file: vicms.files.Results is the reader for users)."""

    def __init__(self, path):
        self.path = path
        self.f = _open(path, "vicms-results")
        f = self.f
        for d in ("cases/status", "cases/parameters"):
            if d not in f:
                raise FileFormatError(f"{path}: no dataset {d} (a vicms results file needs it)")
        self.status = np.asarray(f["cases/status"][()]).astype(int).ravel()
        self.n_cases = len(self.status)
        self.params = np.atleast_2d(np.asarray(f["cases/parameters"][()], dtype=float))
        if self.params.shape[0] != self.n_cases and self.params.shape[1] == self.n_cases:
            self.params = self.params.T
        self.param_names = columns(f["cases/parameters"], "case")
        if "cases/message" in f:
            self.messages = [text(m) for m in f["cases/message"][()]]
        else:
            self.messages = [""] * self.n_cases
        self.done = [k for k in range(self.n_cases) if self.status[k] == 1]
        self.stem = os.path.splitext(os.path.basename(path))[0]
        self.units = Units.parse(f.attrs.get("units", ""))  # the ROM's: "N-m-kg-s", "N-mm-t-s", "SI", or "" unknown
        self.length = self.units.length
        self.options = text(f.attrs.get("options", "")).split()

    def unit(self, kind):
        """' [mm]'-style suffix of an axis label for a quantity (length, force, energy, ...), '' when unknown."""
        return self.units.label(kind)

    def option(self, name, k=None):
        """The value of option -name for case k: its case parameter, else the job's options attribute, else None."""
        if k is not None and name in self.param_names and np.isfinite(self.params[k, self.param_names.index(name)]):
            return self.params[k, self.param_names.index(name)]
        opts = self.options
        for i in range(len(opts) - 1, -1, -1):
            if opts[i] == f"-{name}" and i + 1 < len(opts):
                try:
                    return float(opts[i + 1])
                except ValueError:
                    return opts[i + 1]
        return None

    def counts(self):
        return ", ".join(f"{int(np.sum(self.status == s))} {name}" for s, name in STATUS.items())

    def title(self, k):
        """`case 3: load_tip_frequency = 281.5, contact_mu = 0.2` (NaN parameters, e.g. not used by a sweep case, left out)."""
        if self.param_names == ["case"]:
            return f"case {k}"
        parts = []
        for name, v in zip(self.param_names, self.params[k]):
            if np.isfinite(v):
                parts.append(f"{name} = {v:.6g}")
        return f"case {k}: " + ", ".join(parts) if parts else f"case {k}"

    def series(self, k):
        """The group cases/<k> when it holds time series, else None."""
        g = self.f.get(f"cases/{k}")
        if g is None or not isinstance(g, h5py.Group) or "t" not in g:
            return None
        return g

    def why_not_done(self, k):
        s = STATUS.get(int(self.status[k]), f"status {self.status[k]}")
        msg = self.messages[k] if k < len(self.messages) else ""
        return f"case {k} is {s}" + (f" ({msg})" if msg else "")


def pick_outputs(names, want, where):
    """Indices of the outputs to draw: all, or the one named by --output."""
    if want is None:
        return list(range(len(names)))
    if want not in names:
        note(f"{where}: no output {want!r} (outputs: {', '.join(names)}); drawing all")
        return list(range(len(names)))
    return [names.index(want)]


def plot_lines(ax, t, y, names, band_label):
    """One line per column when few, else the min-max band over columns and its mean."""
    if y.shape[1] <= MAX_LINES:
        for j in range(y.shape[1]):
            tt, yy = decimate(t, y[:, j])
            ax.plot(tt, yy, lw=0.8, label=names[j])
        return
    tt, lo = decimate(t, y.min(axis=1))
    ax.plot(tt, lo, lw=0.8, label=f"min over {y.shape[1]} {band_label}")
    tt, hi = decimate(t, y.max(axis=1))
    ax.plot(tt, hi, lw=0.8, label=f"max over {y.shape[1]} {band_label}")


def table(g, name, nt):
    """A (time x columns) dataset of cases/<k>, as 2-D, cut to the nt time levels of t if longer."""
    y = np.asarray(g[name][()], dtype=float)
    y = y.reshape(len(y), -1)
    return y[:nt]


def contact_names(d, n):
    """Legend names of the contacts: their node ids (the dataset's columns, e.g. n188) or their index."""
    names = columns(d) or []
    return [f"contact {names[j]}" if len(names) == n else f"contact {j}" for j in range(n)]


def sampling_note(r, k, g, nt):
    """What the time series of case k leave out: the steps between records (-step_output_every, or steps per record)
    and the min/max decimation of the drawing; "" when every step is drawn."""
    parts = []
    every = r.option("step_output_every", k)
    steps = g.attrs.get("steps")
    if isinstance(every, float) and every > 1:
        parts.append(f"recorded every {int(every)}th step")
    elif steps is not None and nt > 1 and int(np.ravel(steps)[0]) > 1.5 * (nt - 1):
        parts.append(f"{nt} records of {int(np.ravel(steps)[0])} steps")
    if parts:
        parts[-1] += ": contact-force spikes between records are not shown"
    if nt > 2 * MAX_POINTS:
        parts.append(f"drawn as the min and max of {MAX_POINTS} bins of the {nt} records")
    return "; ".join(parts)


def plot_time(r, k, g, args, out):
    t = g["t"][()]
    for name in ("outputs", "gaps", "forces", "energy", "frequency"):
        if name in g and g[name].shape[0] != len(t):
            note(f"case {k}: cases/{k}/{name} has {g[name].shape[0]} rows but t has {len(t)}; using the common part")
            t = t[:min(len(t), g[name].shape[0])]
    panels = []
    if "outputs" in g:
        panels.append("outputs")
    if "gaps" in g and g["gaps"].size > 0:
        panels.append("gaps")
    if "forces" in g and g["forces"].size > 0:
        panels.append("forces")
    if "frequency" in g:
        panels.append("frequency")
    if not panels:
        note(f"case {k}: no outputs, gaps or forces in cases/{k}; no time plot")
        return None
    heights = [1.0 if p != "frequency" else 0.5 for p in panels]
    sampling = sampling_note(r, k, g, len(t))
    fig, axes = plt.subplots(len(panels), 1, sharex=True, figsize=(10, 2.2 + 2.3 * sum(heights)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, p in zip(axes[:, 0], panels):
        if p == "outputs":
            y = table(g, "outputs", len(t))
            names = columns(g["outputs"]) or [f"output {j}" for j in range(y.shape[1])]
            idx = pick_outputs(names, args.output, f"case {k}")
            plot_lines(ax, t, y[:, idx], [names[j] for j in idx], "outputs")
            ax.set_ylabel("output displacement" + r.unit("length"))
        elif p == "gaps":
            y = table(g, "gaps", len(t))
            plot_lines(ax, t, y, contact_names(g["gaps"], y.shape[1]), "contacts")
            ax.axhline(0.0, color="k", lw=0.6, ls=":")
            ax.set_ylabel("normal gap" + r.unit("length"))
        elif p == "forces":
            y = table(g, "forces", len(t))
            plot_lines(ax, t, y, contact_names(g["forces"], y.shape[1]), "contacts")
            if y.shape[1] > MAX_LINES:
                tt, s = decimate(t, y.sum(axis=1))
                ax.plot(tt, s, lw=0.8, label="sum over contacts")
            ax.set_ylabel("normal contact force" + r.unit("force"))
            if sampling:
                ax.set_title(sampling, fontsize=8, loc="left")
        else:
            tt, ff = decimate(t, table(g, "frequency", len(t))[:, 0])
            ax.plot(tt, ff, lw=1.0, color="C3")
            ax.set_ylabel("excitation\nfrequency [Hz]")
        ax.grid(alpha=0.3)
        if p != "frequency" and ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper right", ncol=2)
    axes[-1, 0].set_xlabel("time [s]")
    if sampling and "forces" not in panels:
        axes[-1, 0].set_title(sampling, fontsize=8, loc="left")
    fig.suptitle(wrap(f"{r.stem} {r.title(k)}: time histories", fig))
    fig.tight_layout()
    return save(fig, out)


def plot_energy(r, k, g, args, out):
    if "energy" not in g:
        note(f"case {k}: no energy in cases/{k}; no energy plot")
        return None
    t = g["t"][()]
    e = table(g, "energy", len(t))
    t = t[:len(e)]
    names = columns(g["energy"], ENERGY_COLUMNS)
    if len(names) > e.shape[1] and "columns" not in g["energy"].attrs:
        names = names[:e.shape[1]]
    if len(names) != e.shape[1]:
        names = [f"column {j}" for j in range(e.shape[1])]
    terms = [j for j, n in enumerate(names) if n != "balance_error"]
    bal = [j for j, n in enumerate(names) if n == "balance_error"]
    fig, axes = plt.subplots(2 if bal else 1, 1, sharex=True, figsize=(10, 7 if bal else 4.5),
                             gridspec_kw={"height_ratios": [2, 1] if bal else [1]}, squeeze=False)
    ax = axes[0, 0]
    for j in terms:
        tt, yy = decimate(t, e[:, j])
        ax.plot(tt, yy, lw=1.0, label=names[j].replace("_", " "))
    names_ = {n: j for j, n in enumerate(names)}
    if "kinetic" in names_ and "potential" in names_:
        tt, yy = decimate(t, e[:, names_["kinetic"]] + e[:, names_["potential"]])
        ax.plot(tt, yy, lw=1.0, color="k", label="kinetic + potential")
    ax.set_ylabel("energy" + r.unit("energy"))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.suptitle(wrap(f"{r.stem} {r.title(k)}: energy terms", fig))
    if bal:
        ax = axes[1, 0]
        tt, yy = decimate(t, e[:, bal[0]])
        scale = np.nanmax(np.abs(e[:, terms])) if terms else 0.0
        ax.plot(tt, yy, lw=0.8, color="C3")
        ax.set_ylabel("balance error" + r.unit("energy"))
        if scale > 0:
            ax.set_title(f"largest |balance error| = {np.nanmax(np.abs(e[:, bal[0]])):.3g}{r.unit('energy')} "
                         f"({np.nanmax(np.abs(e[:, bal[0]])) / scale:.2g} of the largest energy term)", fontsize=9)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("time [s]")
    fig.tight_layout()
    return save(fig, out)


def plot_phase(r, k, g, args, out):
    if "outputs" not in g:
        note(f"case {k}: no outputs in cases/{k}; no phase portrait")
        return None
    t = g["t"][()]
    y = table(g, "outputs", len(t))
    t = t[:len(y)]
    if len(t) < 4:
        note(f"case {k}: only {len(t)} time levels; no phase portrait")
        return None
    names = columns(g["outputs"]) or [f"output {j}" for j in range(y.shape[1])]
    idx = pick_outputs(names, args.output, f"case {k}")
    h = len(t) // 2
    ts, ys = t[h:], y[h:, :]
    keep = np.concatenate([[True], np.diff(ts) > 0])  # repeated time levels would give infinite derivatives
    ts, ys = ts[keep], ys[keep]
    n = len(idx)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 4.2 * rows + 0.6), squeeze=False)
    for a, j in enumerate(idx):
        ax = axes[a // cols, a % cols]
        v = np.gradient(ys[:, j], ts)
        step = max(1, len(ts) // 200000)
        ax.plot(ys[::step, j], v[::step], lw=0.5)
        ax.set_xlabel(f"{names[j]}{r.unit('length')}")
        ax.set_ylabel(f"d({names[j]})/dt" + r.unit("velocity"))
        ax.set_title(names[j], fontsize=9)
        ax.grid(alpha=0.3)
    for a in range(n, rows * cols):
        axes[a // cols, a % cols].set_visible(False)
    fig.suptitle(wrap(f"{r.stem} {r.title(k)}: phase portrait, t = {ts[0]:.4g} to {ts[-1]:.4g} s", fig))
    fig.tight_layout()
    return save(fig, out)


def frf_from_quantities(r, output):
    """Constant-frequency points (frequency, amplitude_OUTPUT) from the case parameters and quantities, or None."""
    f = r.f
    if "cases/quantities" not in f:
        return None
    qn = columns(f["cases/quantities"]) or []
    if any(n.endswith("_sweep_down") for n in r.param_names):
        return None  # a sweep job: its frequency column holds the start frequencies, not a response
    named = text(f["summary/frf"].attrs.get("parameter", "")) if "summary/frf" in f else ""
    fcol = [j for j, n in enumerate(r.param_names) if (n == named if named else n.endswith("_frequency"))]
    if f"amplitude_{output}" not in qn or not fcol:
        return None
    q = f["cases/quantities"][()]
    fr = r.params[:, fcol[0]]
    a = q[:, qn.index(f"amplitude_{output}")]
    ok = (r.status == 1) & np.isfinite(fr) & np.isfinite(a)
    order = np.argsort(fr[ok])
    return np.column_stack([fr[ok][order], a[ok][order]])


def draw_sweep(ax, env, up, color, label):
    """An envelope curve with arrowheads along it pointing the way the sweep went."""
    fr, amp = env[:, 0], env[:, 1]
    ok = np.isfinite(fr) & np.isfinite(amp)
    fr, amp = fr[ok], amp[ok]
    if len(fr) == 0:
        return False
    ax.plot(fr, amp, lw=1.2, color=color, label=label + (" (sweep up \u2192)" if up else " (sweep down \u2190)"))
    # arrowheads in sweep order, at about 6 places
    order = np.argsort(fr) if up else np.argsort(-fr)
    fs, as_ = fr[order], amp[order]
    n = len(fs)
    places = np.linspace(0, n - 2, 7).astype(int)[1:-1] if n > 3 else []
    for i in places:
        ax.annotate("", xy=(fs[i + 1], as_[i + 1]), xytext=(fs[i], as_[i]),
                    arrowprops=dict(arrowstyle="-|>", color=color, lw=1.2, mutation_scale=14))
    ax.plot(fs[0], as_[0], marker="o", ms=4, color=color, mfc="white")  # where the sweep starts
    return True


def plot_frf(r, args, out):
    f = r.f
    summ = f.get("summary")

    def output_of(d):
        return text(d.attrs.get("output", "")) or None

    # sweep envelopes: the per-case ones when present (done cases, or the --case list), else the job's pair
    curves = []  # (envelope, up, label, output)
    cases = args.case if args.case else r.done
    per_case = [k for k in cases if 0 <= k < r.n_cases and r.status[k] == 1 and f"cases/{k}/envelope" in f]
    pair_out = None
    if summ is not None:
        for name in ("sweep_up", "sweep_down"):
            if name in summ:
                pair_out = pair_out or output_of(summ[name])
    if per_case:
        for k in per_case:
            d = f[f"cases/{k}/envelope"]
            env = np.atleast_2d(d[()])
            good = env[np.isfinite(env[:, 0])]
            direction = text(d.attrs.get("direction", ""))
            up = direction == "up" if direction else (len(good) < 2 or good[-1, 0] >= good[0, 0])
            curves.append((env, up, f"case {k}", output_of(d) or pair_out))
    elif summ is not None:
        for name, up in (("sweep_up", True), ("sweep_down", False)):
            if name in summ:
                k = summ[name].attrs.get("case", None)
                curves.append((np.atleast_2d(summ[name][()]), up, f"case {int(k)}" if k is not None else name, output_of(summ[name])))
    frf_out = output_of(summ["frf"]) if summ is not None and "frf" in summ else None
    target = args.output or next((c[3] for c in curves if c[3]), None) or frf_out
    kept = [c for c in curves if c[3] is None or c[3] == target]
    if len(kept) < len(curves):
        note(f"the sweep envelopes are for output {curves[0][3]}, not {target}: not drawn "
             "(the file keeps envelopes of one output only)")
    # constant-frequency points: summary/frf, or recomputed from the quantities for another output
    pts, pts_label = None, "constant-frequency cases"
    if summ is not None and "frf" in summ and (frf_out is None or frf_out == target):
        pts = np.atleast_2d(summ["frf"][()])
    elif target and args.output:
        pts = frf_from_quantities(r, target)
        if pts is not None and frf_out:
            pts_label += f" (amplitude_{target} from cases/quantities)"
        elif pts is None and frf_out:
            note(f"summary/frf is for output {frf_out}, and there is no amplitude_{target} quantity with a "
                 "frequency parameter to recompute it: constant-frequency points not drawn")

    fig, ax = plt.subplots(figsize=(9, 5.5))
    drawn = False
    if len(kept) <= 10:
        colors = [f"C{i}" for i in range(len(kept))]
    else:
        colors = [plt.get_cmap("viridis")(i / (len(kept) - 1)) for i in range(len(kept))]
    for (env, up, label, _), color in zip(kept, colors):
        if draw_sweep(ax, env, up, color, label):
            drawn = True
    if pts is not None and len(pts):
        ax.plot(pts[:, 0], pts[:, 1], ls=":", lw=0.8, color="k", marker="o", ms=5, mfc="C2", mec="k",
                label=f"{pts_label} ({len(pts)})", zorder=3)
        drawn = True
    outname = target
    if not drawn:
        plt.close(fig)
        note("no sweep envelope or constant-frequency points to draw; no frf plot")
        return None
    ax.set_xlabel("excitation frequency [Hz]")
    what = outname or "output"
    ax.set_ylabel(f"amplitude of {what} (half peak-to-peak){r.unit('length')}")
    ax.set_title(wrap(f"{r.stem}: frequency response of {what}", fig))
    ax.grid(alpha=0.3)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return save(fig, out)


def hb_branches(r):
    """The harmonic balance branches of a results file: [(label, group)]: summary/hb for a job of one case, else
    cases/<k> of every case that holds a branch (done, or failed part-way), labelled with its parameters."""
    if "summary/hb" in r.f:
        return [("", r.f["summary/hb"])]
    out = []
    par = r.f["cases/parameters"][()] if "cases/parameters" in r.f else None
    cols = text(r.f["cases/parameters"].attrs.get("columns", "")).split(",") if par is not None else []
    for k in range(r.n_cases):
        g = r.f.get(f"cases/{k}")
        if g is not None and "frequency_hz" in g and len(g["frequency_hz"]):
            label = ", ".join(f"{c} = {par[k, i]:.4g}" for i, c in enumerate(cols) if c != "case") if par is not None else ""
            out.append((f"case {k}" + (f" ({label})" if label else ""), g))
    return out


def plot_hb(r, args, out):
    """The harmonic balance branches: stable solid, unstable dashed, turning points; time-stepping sweeps overlaid. A job
    of several cases draws one branch per case (the first 20), one colour each."""
    branches = hb_branches(r)
    names = text(branches[0][1].attrs.get("outputs", "")).split(",")
    target = args.output or names[0]
    if target not in names:
        note(f"the branches have no output {target} (outputs: {', '.join(names)}); no hb plot")
        return None
    o = names.index(target)
    fig, ax = plt.subplots(figsize=(9, 5.5))
    if len(branches) > 20:
        note(f"{len(branches)} branches: the first 20 drawn")
    for b, (name, g) in enumerate(branches[:20]):
        fr, amp = g["frequency_hz"][()], np.atleast_2d(g["amplitude"][()])[:, o]
        stable, kind = g["stable"][()], g["kind"][()]
        H = int(g.attrs.get("harmonics_H", 0))
        colour = "C3" if len(branches) == 1 else f"C{b % 10}"
        labelled = set()
        # consecutive points of one stability form a segment; a segment joins its neighbour to keep the curve whole
        start = 0
        for k in range(1, len(fr) + 1):
            if k == len(fr) or stable[k] != stable[start]:
                sl = slice(start, min(k + 1, len(fr)))
                st = int(stable[start])
                if len(branches) == 1:
                    label = {1: f"harmonic balance, H = {H}: stable", 0: "unstable", -1: "stability not computed"}[st]
                else:
                    label = name if not labelled else None
                ax.plot(fr[sl], amp[sl], color=colour, lw=1.6, ls="-" if st == 1 else "--" if st == 0 else ":",
                        label=None if label in labelled else label, zorder=4)
                labelled.add(label)
                start = k
        turn = np.nonzero(kind & 1)[0]
        if len(turn):
            ax.plot(fr[turn], amp[turn], ls="none", marker="s", ms=5, mfc="white", mec=colour,
                    label="turning points" if b == 0 else None, zorder=5)
        if int(g.attrs.get("failed", 0)):
            note(f"{name or 'the branch'} is incomplete: {text(g.attrs.get('message', ''))}")
    if args.overlay:
        other = ResultsFile(args.overlay)
        summ = other.f.get("summary")
        if summ is not None:
            for i, (name, up) in enumerate((("sweep_up", True), ("sweep_down", False))):
                if name in summ:
                    draw_sweep(ax, np.atleast_2d(summ[name][()]), up, f"C{i}", f"time stepping ({other.stem})")
            if "frf" in summ:
                pts = np.atleast_2d(summ["frf"][()])
                ax.plot(pts[:, 0], pts[:, 1], ls="none", marker="o", ms=5, mfc="C2", mec="k",
                        label=f"time stepping, constant frequency ({len(pts)})", zorder=6)
        else:
            note(f"{args.overlay}: no summary/ group: nothing overlaid")
        other.f.close()
    ax.set_xlabel("excitation frequency [Hz]")
    ax.set_ylabel(f"amplitude of {target} (half peak-to-peak){r.unit('length')}")
    ax.set_title(wrap(f"{r.stem}: harmonic balance branch{'es' if len(branches) > 1 else ''} of {target}", fig))
    ax.grid(alpha=0.3)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return save(fig, out)


def plot_uq(r, args, out):
    f = r.f
    hg = f.get("summary/histograms")
    if hg is None or len(hg) == 0:
        note("no summary/histograms; no uq plot")
        return None
    names = list(hg.keys())
    if "cases/quantities" in f:  # the quantities' own order reads better than HDF5's alphabetical one
        qn = columns(f["cases/quantities"]) or []
        names = [q for q in qn if q in hg] + [q for q in names if q not in qn]
    stats, stat_rows, n_used = None, [], None
    if "summary/statistics" in f:
        d = f["summary/statistics"]
        stats = np.atleast_2d(d[()])
        stat_rows = [x.strip() for x in text(d.attrs.get("rows", "")).split(",")]
        scol = columns(d, "mean,std,min,q05,q25,q50,q75,q95,max")
        n_used = d.attrs.get("n")
        n_used = int(np.asarray(n_used).ravel()[0]) if n_used is not None else None
    n = len(names)
    cols = min(n, 3)
    nrows = (n + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.8 * cols, 3.4 * nrows + 0.8), squeeze=False)
    for a, q in enumerate(names):
        ax = axes[a // cols, a % cols]
        if "edges" not in hg[q] or "counts" not in hg[q]:
            note(f"summary/histograms/{q}: no edges or counts; panel left empty")
            continue
        edges = np.asarray(hg[q]["edges"][()], dtype=float)
        counts = np.asarray(hg[q]["counts"][()], dtype=float)
        ax.stairs(counts, edges, fill=True, alpha=0.6, color="C0")
        ax.stairs(counts, edges, color="C0")
        mean = std = None
        if stats is not None and q in stat_rows:
            s = stats[stat_rows.index(q)]
            mean, std = s[scol.index("mean")], s[scol.index("std")]
        elif "cases/quantities" in f:
            qn = columns(f["cases/quantities"]) or []
            if q in qn:
                v = f["cases/quantities"][()][:, qn.index(q)]
                v = v[np.isfinite(v)]
                if len(v):
                    mean, std = float(np.mean(v)), float(np.std(v, ddof=1)) if len(v) > 1 else 0.0
        if mean is not None and np.isfinite(mean):
            ax.axvline(mean, color="C3", lw=1.5, label=f"mean {mean:.4g}")
            if std is not None and np.isfinite(std):
                for sgn in (-1, 1):
                    ax.axvline(mean + sgn * std, color="C3", lw=1.0, ls="--",
                               label=f"\u00b1 std {std:.3g}" if sgn > 0 else None)
            ax.legend(fontsize=7, loc="upper right")
        title = q
        if np.count_nonzero(counts) == 1 and std is not None and np.isfinite(std) and std <= 1e-12 * max(abs(mean), 1e-300):
            title += f" (constant: {mean:.6g})"
        ax.set_title(wrap(title, fig, 9 * cols), fontsize=9)
        ax.set_xlabel(q + r.unit(quantity_kind(q)))
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(5))
        ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4), useOffset=False)
        ax.set_ylabel("cases")
        ax.grid(alpha=0.3)
    for a in range(n, nrows * cols):
        axes[a // cols, a % cols].set_visible(False)
    if n_used is None:
        n_used = len(r.done)
    fig.suptitle(wrap(f"{r.stem}: distributions over n = {n_used} done cases (of {r.n_cases})", fig))
    fig.tight_layout()
    return save(fig, out)


def save(fig, out, dpi=DPI):
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=dpi)
    plt.close(fig)
    print(f"wrote {out}")
    return out


def parse_kinds(s):
    kinds = [x.strip() for x in s.split(",") if x.strip()]
    bad = [x for x in kinds if x not in KINDS]
    if bad or not kinds:
        raise argparse.ArgumentTypeError(f"unknown kind {', '.join(bad) or repr(s)} (kinds: {','.join(KINDS)})")
    return kinds


def results(path, outdir=None, kinds=None, cases=None, output=None, overlay=None):
    """PNGs of a results file (time stepping or hb): the kinds asked (default: every kind the file supports but
    phase), for the cases asked (default: the first done case) in outdir (default: the file's folder). Returns the
    paths written; raises PlotError when nothing could be plotted."""
    path = os.fspath(path)
    args = argparse.Namespace(case=list(cases) if cases is not None else None, output=output,
                              overlay=os.fspath(overlay) if overlay else None)
    r = ResultsFile(path)
    try:
        outdir = output_folder(path, outdir)
        asked = kinds is not None
        kinds = list(kinds or DEFAULT_KINDS)
        bad = [x for x in kinds if x not in KINDS]
        if bad:
            raise PlotError(f"unknown kind {', '.join(bad)} (kinds: {','.join(KINDS)})")
        if not r.done:
            raise PlotError(f"{path}: no done case to plot ({r.n_cases} cases: {r.counts()})")
        written = []
        per_case = [k for k in ("time", "energy", "phase") if k in kinds]
        for k in (args.case if args.case is not None else r.done[:1]) if per_case else []:
            if not 0 <= k < r.n_cases:
                note(f"case {k}: no such case (the file has cases 0 to {r.n_cases - 1}); skipped")
                continue
            if r.status[k] != 1:
                note(f"{r.why_not_done(k)}; skipped")
                continue
            g = r.series(k)
            if g is None:
                note(f"case {k}: no time series in the file (cases/{k}/t absent: series not kept); "
                     f"no {'/'.join(per_case)} plot")
                continue
            for kind, fn in (("time", plot_time), ("energy", plot_energy), ("phase", plot_phase)):
                if kind in per_case:
                    written.append(fn(r, k, g, args, os.path.join(outdir, f"{r.stem}_{kind}_case{k}.png")))
        if "frf" in kinds:
            has = "summary/frf" in r.f or "summary/sweep_up" in r.f or "summary/sweep_down" in r.f or any(
                f"cases/{k}/envelope" in r.f for k in r.done)
            if has or asked:
                written.append(plot_frf(r, args, os.path.join(outdir, f"{r.stem}_frf.png")))
        if "hb" in kinds and hb_branches(r):
            written.append(plot_hb(r, args, os.path.join(outdir, f"{r.stem}_hb.png")))
        if "uq" in kinds and ("summary/histograms" in r.f or asked):
            written.append(plot_uq(r, args, os.path.join(outdir, f"{r.stem}_uq.png")))
    finally:
        r.f.close()
    written = [p for p in written if p]
    if not written:
        raise PlotError(f"{path}: nothing plotted (kinds {','.join(kinds)}; {r.n_cases} cases: {r.counts()})")
    return written


def _cli(fn, argv):
    """Run fn(argv) as a command: a PlotError or FileFormatError becomes its message and exit status 1."""
    try:
        fn(argv)
    except (PlotError, FileFormatError) as e:
        sys.exit(str(e))
    return 0


def results_main(argv=None):
    """scripts/plot_results.py"""
    ap = argparse.ArgumentParser(description=RESULTS_USAGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results_file")
    ap.add_argument("-o", "--outdir", default=None, help="the folder for the PNGs (default: the results file's)")
    ap.add_argument("--case", type=int, nargs="+", default=None, metavar="K",
                    help="cases (0-based) for the per-case plots (default: the first done case)")
    ap.add_argument("--output", default=None, metavar="NAME", help="draw only this ROM output (e.g. n19278_x)")
    ap.add_argument("--kind", type=parse_kinds, default=None,
                    help=f"comma-separated kinds to draw among {','.join(KINDS)} (default: all the file supports but phase)")
    ap.add_argument("--overlay", default=None, metavar="SWEEPS.h5",
                    help="hb: also draw the sweep envelopes and constant-frequency points of this time-stepping results file")
    a = ap.parse_args(argv)
    return _cli(lambda _: results(a.results_file, a.outdir, a.kind, a.case, a.output, a.overlay), argv)


# ----------------------------------------------------------------------------------------------------------- modes
MODES_USAGE = """Plot the mode shapes of a vicms modes file (vicms modes -modes_file X.h5) to OUTDIR/<stem>_modes.png.

usage: /usr/bin/python3 scripts/plot_modes.py modes.h5 [-o OUTDIR] [-n 6] [--dpi 150]
"""


def modes(path, outdir=None, num=6, dpi=DPI):
    """The first num mode shapes of a modes file, one panel each (3D: the deformed nodes coloured by the size of their
    displacement, with a colour bar; a line model: the axial displacement along x). Returns [the PNG]."""
    path = os.fspath(path)
    out = os.path.join(output_folder(path, outdir), os.path.splitext(os.path.basename(path))[0] + "_modes.png")
    m = read_modes(path, num)
    freq, xyz, shapes = m.frequencies_hz, m.coordinates, m.shapes
    n = len(shapes)
    if n == 0:
        raise PlotError(f"{path}: no mode shapes")
    span = np.ptp(xyz, axis=0)
    one_d = span[1] == 0 and span[2] == 0
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig = plt.figure(figsize=(4.6 * cols, 4.2 * rows + 0.5))
    for k in range(n):
        u = shapes[k]
        umax = np.abs(u).max() or 1.0
        if one_d:
            ax = fig.add_subplot(rows, cols, k + 1)
            order = np.argsort(xyz[:, 0])
            ax.plot(xyz[order, 0], u[order, 0] / umax)
            ax.set_xlabel("x (mesh length unit)")
            ax.set_ylabel("axial displacement / its largest")
        else:
            ax = fig.add_subplot(rows, cols, k + 1, projection="3d")
            scale = 0.15 * span.max() / umax
            d = xyz + scale * u
            mag = np.linalg.norm(u, axis=1)
            step = max(1, len(xyz) // 6000)
            ax.scatter(xyz[::step, 0], xyz[::step, 1], xyz[::step, 2], s=0.3, c="0.8")
            sc = ax.scatter(d[::step, 0], d[::step, 1], d[::step, 2], s=0.6, c=mag[::step], cmap="viridis",
                            vmin=0, vmax=mag.max())
            fig.colorbar(sc, ax=ax, shrink=0.6, pad=0.02, label="|u| (mass-normalized mode)")
            ax.set_box_aspect(np.maximum(span, 0.05 * span.max()))
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_zticks([])
        ax.set_title(f"mode {k + 1}: {freq[k]:.6g} Hz")
    fig.suptitle(wrap(f"{os.path.basename(path)}: the first {n} modes (displacements exaggerated)", fig))
    fig.tight_layout()
    return [save(fig, out, dpi)]


def modes_main(argv=None):
    """scripts/plot_modes.py"""
    ap = argparse.ArgumentParser(description=MODES_USAGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("modes_file")
    ap.add_argument("-o", "--outdir", default=None, help="the folder for the PNG (default: the modes file's)")
    ap.add_argument("-n", "--num", type=int, default=6, help="how many modes to draw")
    ap.add_argument("--dpi", type=int, default=DPI, help="resolution of the PNG")
    a = ap.parse_args(argv)
    return _cli(lambda _: modes(a.modes_file, a.outdir, a.num, a.dpi), argv)


# ----------------------------------------------------------------------------------------------------------- slide
SLIDE_USAGE = """Plot vicms slide history files (vicms slide -slide_file X.h5) to OUTDIR/<stem>_slide.png (stem of the first
file), one column per file (seed 003 Figs. 5-8):
  1. an output (default: the last one, beam2's tip in the beam-on-beam job) and its acceleration by second differences,
     against time;
  2. the normal force and the sliding velocity at the contact against the contact position s along the master chain;
  3. the spectrogram (power spectral density) of the output's acceleration against time, with a colour bar, and the
     times where the contact crosses the --bands positions marked (e.g. the unstable positions of vicms cea).
Units are those of the bodies file the history names (its `units`, e.g. N-mm-t-s); the axes say none when it cannot
be read. --report f0,f1 prints, per --bin of contact position, the RMS of the acceleration's spectrogram between f0 and
f1 Hz.

usage: /usr/bin/python3 scripts/plot_slide.py slide.h5 [more.h5 ...] [-o OUTDIR] [--output NAME] [--fmax HZ]
       [--nfft N] [--bands s0:s1,s2:s3] [--report f0,f1] [--bin B] [--slave J] [--dpi 150]
"""


def _slide_run(path, output, slave):
    with _open(path, "vicms-slide") as f:
        names = [text(x) for x in f["output_names"][()]] if "output_names" in f else []
        if not names:
            raise PlotError(f"{path}: no body outputs recorded (give the bodies -body_NAME_cms_outputs)")
        if output and output not in names:
            raise PlotError(f"{path}: no output {output} (outputs: {', '.join(names)})")
        k = names.index(output) if output else len(names) - 1
        j = slave
        if not 0 <= j < f["contact/status"].shape[1]:
            raise PlotError(f"{path}: --slave {j}: the history has {f['contact/status'].shape[1]} slave node(s)")
        d = dict(t=f["t"][()].ravel(), y=f["outputs"][:, k], name=names[k], mu=float(f.attrs["mu"]),
                 s=f["contact/position"][:, j], normal=f["contact/normal"][:, j], slip=f["contact/slip_velocity"][:, j],
                 status=f["contact/status"][:, j], dt=float(f.attrs["dt"]) * int(f.attrs["record_every"]),
                 rms=float(f.attrs["noise_rms"]), units=bodies_units(text(f.attrs.get("bodies_file", "")), path))
    if len(d["t"]) > 2 and abs((d["t"][-1] - d["t"][-2]) / d["dt"] - 1) > 1e-6:
        for k in ("t", "y", "s", "normal", "slip", "status"):  # the last record closes a shorter interval: off the regular grid
            d[k] = d[k][:-1]
    d["acc"] = np.zeros_like(d["y"])
    d["acc"][1:-1] = (d["y"][2:] - 2 * d["y"][1:-1] + d["y"][:-2]) / d["dt"] ** 2
    return d


def slide(paths, outdir=None, output=None, fmax=12000.0, nfft=1024, bands="", report="", bin=0.5, slave=0, dpi=DPI):
    """One column per slide history file (SLIDE_USAGE). Returns [the PNG]."""
    paths = [os.fspath(p) for p in ([paths] if isinstance(paths, (str, os.PathLike)) else paths)]
    out = os.path.join(output_folder(paths[0], outdir), os.path.splitext(os.path.basename(paths[0]))[0] + "_slide.png")
    bands = [tuple(float(v) for v in b.split(":")) for b in bands.split(",") if b] if isinstance(bands, str) else list(bands)
    runs = [_slide_run(p, output, slave) for p in paths]
    fig, axes = plt.subplots(3, len(runs), figsize=(6.4 * len(runs), 10), squeeze=False)
    for c, (path, d) in enumerate(zip(paths, runs)):
        u = d["units"]
        t, acc = d["t"], d["acc"]
        ax = axes[0, c]
        ax.plot(t, acc, lw=0.4, color="tab:blue")
        ax.set_ylabel(f"{d['name']} acceleration{u.label('acceleration')}", color="tab:blue")
        ax.set_title(wrap(f"{path}: mu = {d['mu']:g}" + (f", random force RMS {d['rms']:g}{u.label('force')}"
                                                        if d["rms"] > 0 else ""), fig, 12 * len(runs)), fontsize=9)
        ax2 = ax.twinx()
        ax2.plot(t, d["y"], lw=0.8, color="tab:orange")
        ax2.set_ylabel(f"{d['name']}{u.label('length')}", color="tab:orange")
        ax.set_xlabel("t [s]")

        ax = axes[1, c]
        ax.plot(d["s"], d["normal"], lw=0.4, color="tab:green")
        ax.set_ylabel(f"normal force{u.label('force')}", color="tab:green")
        ax.set_xlabel(f"contact position s{u.label('length')}")
        ax2 = ax.twinx()
        ax2.plot(d["s"], d["slip"], lw=0.4, color="tab:red")
        ax2.set_ylabel(f"sliding velocity{u.label('velocity')}", color="tab:red")
        for b in bands:
            if b[1] >= np.nanmin(d["s"]) and b[0] <= np.nanmax(d["s"]):
                ax.axvspan(b[0], b[1], color="0.85", zorder=0)

        ax = axes[2, c]
        fs = 1 / d["dt"]
        P, f, tt = mlab.specgram(acc[1:-1], NFFT=nfft, Fs=fs, noverlap=3 * nfft // 4, detrend="mean")
        tt = tt + t[1]
        keep = f <= fmax
        im = ax.pcolormesh(tt, f[keep] / 1e3, 10 * np.log10(P[keep] + 1e-300), shading="auto", cmap="viridis")
        au = u.of("acceleration")
        fig.colorbar(im, ax=ax, pad=0.02, label=f"PSD of the acceleration [dB re 1 ({au})\u00b2/Hz]" if au
                     else "PSD of the acceleration [dB]")
        ax.set_ylabel("frequency [kHz]")
        ax.set_xlabel("t [s]")
        for b in bands:  # when the contact is inside the band of positions
            inside = (d["s"] >= b[0]) & (d["s"] <= b[1])
            if inside.any():
                for x in (t[inside][0], t[inside][-1]):
                    ax.axvline(x, color="w", lw=0.8, ls="--")
        if report:
            f0, f1 = (float(v) for v in report.split(",")) if isinstance(report, str) else report
            sel = (f >= f0) & (f <= f1)
            # RMS of the acceleration in [f0, f1]: the PSD integrated over the band, per window
            amp = np.sqrt(P[sel].sum(axis=0) * (f[1] - f[0]))
            peak = f[sel][np.argmax(P[sel], axis=0)]
            spos = np.interp(tt, t, d["s"])
            lu = u.length or "length unit"
            print(f"{path} (mu = {d['mu']:g}): RMS of {d['name']} acceleration in [{f0:g}, {f1:g}] Hz{u.label('acceleration')} "
                  f"per {bin:g} {lu} of s")
            edges = np.arange(np.floor(spos.min() / bin) * bin, spos.max() + bin, bin)
            for lo in edges[:-1]:
                m = (spos >= lo) & (spos < lo + bin)
                if m.any():
                    mark = " *" if any(lo + bin > b[0] and lo < b[1] for b in bands) else ""
                    top = np.argmax(np.where(m, amp, -1))
                    print(f"  s = {lo:8.2f} .. {lo + bin:8.2f}: {amp[m].mean():10.4g} (max {amp[m].max():.4g} at {peak[top]:.0f} Hz){mark}")
    fig.tight_layout()
    return [save(fig, out, dpi)]


def slide_main(argv=None):
    """scripts/plot_slide.py"""
    ap = argparse.ArgumentParser(description=SLIDE_USAGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("-o", "--outdir", default=None, help="the folder for the PNG (default: the first file's)")
    ap.add_argument("--output", default=None, help="the output to plot, BODY/NAME (default: the last one)")
    ap.add_argument("--fmax", type=float, default=12000, help="upper frequency of the spectrogram (Hz)")
    ap.add_argument("--nfft", type=int, default=1024, help="samples per spectrogram window (75 %% overlap)")
    ap.add_argument("--bands", default="", help="contact positions to mark, s0:s1,s2:s3 (length unit of the bodies)")
    ap.add_argument("--report", default="", help="f0,f1: print the RMS acceleration between f0 and f1 Hz per --bin of position")
    ap.add_argument("--bin", type=float, default=0.5, help="position bin of --report (length unit of the bodies)")
    ap.add_argument("--slave", type=int, default=0, help="the slave node whose contact is plotted (its column, 0: the first)")
    ap.add_argument("--dpi", type=int, default=DPI, help="resolution of the PNG")
    a = ap.parse_args(argv)
    return _cli(lambda _: slide(a.files, a.outdir, a.output, a.fmax, a.nfft, a.bands, a.report, a.bin, a.slave, a.dpi), argv)


# ------------------------------------------------------------------------------------------------------------- cea
CEA_USAGE = """Plot a vicms cea results file (vicms cea -cea_file X.h5) to a PNG: the frequencies and the real parts of the coupled
modes against the contact position (seed 003 Fig. 4), unstable ones (real part > 0) in red; and, if the file holds one,
the FRF map |H| in dB over position and frequency (Fig. 9), first input to first output unless -i/-j say otherwise.

--shape S[:FREQ] plots instead the mode shape (eigenvector, vicms cea -cea_vectors unstable|all) of the mode nearest
contact position S and frequency FREQ [Hz] (without FREQ: the largest real part at that position), an unstable one when
the file has any: (1) the boundary nodes of the bodies, undeformed and displaced by Re(u e^(j phi)) at 4 phases of the
motion, exaggerated; (2) the real and imaginary parts of their x and y displacements against x; (3) if the bodies file
(attribute bodies_file, or --bodies) can be read, the modulus of each body's modal coordinates against the frequency of
its fixed-interface mode.

Written to OUTDIR/<stem>_cea.png, or OUTDIR/<stem>_shape.png with --shape (-o OUTDIR: the folder, default the
cea file's). Lengths in the unit of the bodies file (its `units`).

usage: /usr/bin/python3 scripts/plot_cea.py cea.h5 [-o OUTDIR] [-i INPUT] [-j OUTPUT] [--shape S[:FREQ]] [--bodies B.h5] [--dpi 150]
"""


def pick_mode(f, spec):
    """The row of /vectors nearest spec = "S" or "S:FREQ": (row, p, j); unstable modes first."""
    if "vectors" not in f:
        raise PlotError("no eigenvectors in this file: run vicms cea with -cea_vectors unstable or all")
    try:
        parts = [float(v) for v in spec.split(":")]
        if len(parts) not in (1, 2):
            raise ValueError
    except ValueError:
        raise PlotError(f"--shape '{spec}': expected S or S:FREQ (a contact position, a frequency in Hz)")
    index, s = f["vectors/index"][()], f["positions"][:, 0]
    freq, real = f["frequency_hz"][()], f["real"][()]
    pj = np.argwhere(index >= 0)  # rows in the order of (p, j)
    if not len(pj):
        raise PlotError(f"no mode has an eigenvector in this file (-cea_vectors {text(f['vectors'].attrs['which'])})")
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


def cea_shape(path, spec, outdir=None, bodies=None, dpi=DPI):
    """The mode shape of the (unstable) mode nearest contact position S and frequency FREQ (spec "S" or "S:FREQ"; CEA_USAGE).
    Returns [OUTDIR/<stem>_shape.png]."""
    path = os.fspath(path)
    args = argparse.Namespace(cea_file=path, shape=spec, bodies=bodies, dpi=dpi)
    out = os.path.join(output_folder(path, outdir), os.path.splitext(os.path.basename(path))[0] + "_shape.png")
    with _open(path, "vicms-cea") as f:
        row, p, j = pick_mode(f, args.shape)
        s, fr, re_ = f["positions"][p, 0], f["frequency_hz"][p, j], f["real"][p, j]
        names = list(f["vectors/bodies"])
        bodies = {b: (f[f"vectors/bodies/{b}/coords"][()], f[f"vectors/bodies/{b}/u_re"][row] + 1j * f[f"vectors/bodies/{b}/u_im"][row]) for b in names}
        node_ids = {b: f[f"vectors/bodies/{b}/node_ids"][()] for b in names}
        slave, master = text(f.attrs["slave"]), text(f.attrs["master"])
        u = f["vectors/re"][row] + 1j * f["vectors/im"][row]
        bodies_file = args.bodies or os.path.join(os.path.dirname(os.path.abspath(args.cea_file)), text(f.attrs["bodies_file"]))
        mu = float(f.attrs["mu"])
    u_ = bodies_units(bodies_file)
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
    ax["geo"].set(xlabel=f"x{u_.label('length')}", ylabel=f"y{u_.label('length')}", title=f"mode {j} at s = {s:g}: {fr:.1f} Hz, real part {re_:.3g} 1/s ({state}), mu = {mu:g}\n"
                  f"boundary nodes ({sb} moved to the contact), displacements x {scale:.3g}")
    ax["geo"].legend(fontsize=7, loc="upper left", ncol=3)
    ax["comp"].axhline(0, color="k", lw=0.5)
    ax["comp"].set(xlabel=f"node x{u_.label('length')}", ylabel="displacement (|u| = 1 over all coordinates)", title="boundary-node displacements")
    ax["comp"].legend(fontsize=6, ncol=2, loc="best")
    if modal:
        for (b, fk, q), mk in zip(modal, "os^v"):
            ax["modal"].semilogy(fk / 1e3, np.maximum(q, 1e-300), mk, ms=4, label=b)
        ax["modal"].axvline(fr / 1e3, color="red", lw=0.6, ls="--")
        ax["modal"].set(xlabel="fixed-interface mode frequency [kHz]", ylabel="|modal coordinate|", title="modal participation per body")
        ax["modal"].legend(fontsize=8)
    fig.tight_layout()
    return [save(fig, out, args.dpi)]


def cea(path, outdir=None, input=0, out=0, dpi=DPI):
    """The coupled modes' frequencies and real parts against the contact position, and the FRF map when the file has
    one (CEA_USAGE). Returns [OUTDIR/<stem>_cea.png]."""
    path = os.fspath(path)
    args = argparse.Namespace(cea_file=path, input=input, out=out, dpi=dpi)
    png = os.path.join(output_folder(path, outdir), os.path.splitext(os.path.basename(path))[0] + "_cea.png")
    with _open(path, "vicms-cea") as f:
        bodies_file = text(f.attrs.get("bodies_file", ""))
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
    u = bodies_units(bodies_file, path)
    unstable = real > 0
    npanel = 3 if frf else 2
    fig, ax = plt.subplots(1, npanel, figsize=(5.2 * npanel, 4.6))
    S = np.repeat(s[:, None], freq.shape[1], axis=1)
    ax[0].plot(S[~unstable], freq[~unstable] / 1e3, ".", ms=1.5, color="0.4", label="stable")
    ax[0].plot(S[unstable], freq[unstable] / 1e3, "o", ms=4, color="red", label="unstable")
    ax[0].set(xlabel=f"contact position s{u.label('length')}", ylabel="frequency [kHz]", title=f"coupled modes, mu = {mu:g}")
    ax[0].legend(loc="upper right", fontsize=8)
    ax[1].plot(S[~unstable], real[~unstable], ".", ms=1.5, color="0.4")
    ax[1].plot(S[unstable], real[unstable], "o", ms=4, color="red")
    ax[1].axhline(0, color="k", lw=0.5)
    ax[1].set(xlabel=f"contact position s{u.label('length')}", ylabel="real part [1/s]", title=f"{int(unstable.any(axis=1).sum())} unstable positions")
    ax[1].set_yscale("symlog", linthresh=10)
    ax[1].set_ylim(bottom=max(np.nanmin(real), -1e4))  # the overdamped (real) eigenvalues reach -1e7 1/s
    if frf:
        ff, H, (iname, oname), quantity = frf
        db = 20 * np.log10(np.maximum(np.abs(H), 1e-300))
        im = ax[2].imshow(db.T, origin="lower", aspect="auto", extent=(s[0], s[-1], ff[0] / 1e3, ff[-1] / 1e3), cmap="viridis",
                          vmin=np.percentile(db[np.abs(H) > 0] if np.abs(H).any() else db, 5), vmax=db.max())  # zeros (at a clamped end) aside
        unit = u.of("force")
        unit = (f"({u.of('acceleration')})/{unit}" if quantity == "acceleration" else u.of("compliance")) if unit else ""
        fig.colorbar(im, ax=ax[2], label=f"|H| {quantity} [dB re 1 {unit}]" if unit else f"|H| {quantity} [dB]")
        ax[2].set(xlabel=f"contact position s{u.label('length')}", ylabel="frequency [kHz]", title=f"FRF {iname} -> {oname}")
    fig.tight_layout()
    return [save(fig, png, args.dpi)]


def cea_main(argv=None):
    """scripts/plot_cea.py"""
    ap = argparse.ArgumentParser(description=CEA_USAGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cea_file")
    ap.add_argument("-o", "--outdir", default=None, help="the folder for the PNG (default: the cea file's)")
    ap.add_argument("-i", "--input", type=int, default=0, help="FRF input index")
    ap.add_argument("-j", "--out", type=int, default=0, help="FRF output index")
    ap.add_argument("--shape", default=None, help="S or S:FREQ: plot the mode shape of the (unstable) mode nearest position S, frequency FREQ Hz")
    ap.add_argument("--bodies", default=None, help="with --shape: the bodies file (default: the file's attribute bodies_file)")
    ap.add_argument("--dpi", type=int, default=DPI, help="resolution of the PNG")
    a = ap.parse_args(argv)
    if a.shape is not None:
        return _cli(lambda _: cea_shape(a.cea_file, a.shape, a.outdir, a.bodies, a.dpi), argv)
    return _cli(lambda _: cea(a.cea_file, a.outdir, a.input, a.out, a.dpi), argv)
