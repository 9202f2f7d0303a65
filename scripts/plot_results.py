#!/usr/bin/python3
"""Plot a vicms results file (vicms simulate -results_file X.h5) to PNGs.

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

<stem> is the results file name without .h5; OUTDIR defaults to the results file's directory. --output NAME draws only
that ROM output in time and phase plots, and for frf recomputes the constant-frequency points from the quantity
amplitude_NAME when summary/frf is for another output. Failed and pending cases are skipped with a note on stderr.
Each written file is printed as `wrote PATH`; the exit status is 0 when at least one plot was written.
"""
import argparse
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

KINDS = ("time", "frf", "energy", "uq", "phase", "hb")
DEFAULT_KINDS = ("time", "energy", "frf", "uq", "hb")
STATUS = {0: "pending", 1: "done", 2: "failed"}
ENERGY_COLUMNS = "kinetic,potential,damping_dissipation,friction_dissipation,external_work,obstacle_work,balance_error"
MAX_LINES = 8  # more contacts than this are drawn as min/max bands instead of one line each
MAX_POINTS = 4000  # per line, after min/max decimation of long series


def text(v):
    """An HDF5 string attribute or element as str: h5py may give bytes, str, numpy scalars or 1-element arrays."""
    if isinstance(v, np.ndarray):
        return ",".join(text(x) for x in v.ravel())
    if isinstance(v, (bytes, np.bytes_)):
        return v.decode("utf-8", "replace")
    return str(v)


def columns(obj, default=None):
    """The comma-separated `columns` attribute of a dataset as a list of names."""
    c = obj.attrs.get("columns")
    if c is None:
        return list(default.split(",")) if default else None
    return [x.strip() for x in text(c).split(",")]


def note(msg):
    print(f"note: {msg}", file=sys.stderr)


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


class Results:
    """What the plots need from a results file, read once."""

    def __init__(self, path):
        self.path = path
        if not os.path.exists(path):
            sys.exit(f"{path}: no such file")
        try:
            self.f = h5py.File(path, "r")
        except OSError as e:
            sys.exit(f"{path}: not an HDF5 file ({e})")
        fmt = text(self.f.attrs.get("format", ""))
        if fmt != "vicms-results":
            got = f"format = {fmt!r}" if fmt else "no format attribute"
            sys.exit(f"{path}: not a vicms results file ({got}, expected format = 'vicms-results')")
        f = self.f
        for d in ("cases/status", "cases/parameters"):
            if d not in f:
                sys.exit(f"{path}: no dataset {d} (a vicms results file needs it)")
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
        # units of the ROM ("N-m-kg-s", "N-mm-t-s"): force and length for the axis labels, "" when unknown
        parts = text(f.attrs.get("units", "")).split("-")
        self.force, self.length = (parts[0], parts[1]) if len(parts) >= 2 else ("", "")

    def unit(self, kind):
        """' [mm]'-style suffix of an axis label for a length, force or energy, '' when the file has no units."""
        u = {"length": self.length, "force": self.force,
             "energy": f"{self.force}\u00b7{self.length}" if self.force and self.length else ""}[kind]
        return f" [{u}]" if u else ""

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
        else:
            tt, ff = decimate(t, table(g, "frequency", len(t))[:, 0])
            ax.plot(tt, ff, lw=1.0, color="C3")
            ax.set_ylabel("excitation\nfrequency (Hz)")
        ax.grid(alpha=0.3)
        if p != "frequency" and ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper right", ncol=2)
    axes[-1, 0].set_xlabel("time (s)")
    axes[0, 0].set_title(f"{r.stem} {r.title(k)}: time histories")
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
    ax.set_title(f"{r.stem} {r.title(k)}: energy terms")
    if bal:
        ax = axes[1, 0]
        tt, yy = decimate(t, e[:, bal[0]])
        scale = np.nanmax(np.abs(e[:, terms])) if terms else 0.0
        ax.plot(tt, yy, lw=0.8, color="C3")
        ax.set_ylabel("balance error")
        if scale > 0:
            ax.set_title(f"largest |balance error| = {np.nanmax(np.abs(e[:, bal[0]])):.3g} "
                         f"({np.nanmax(np.abs(e[:, bal[0]])) / scale:.2g} of the largest energy term)", fontsize=9)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("time (s)")
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
        ax.set_ylabel(f"d({names[j]})/dt" + (f" [{r.length}/s]" if r.length else " (per s)"))
        ax.set_title(names[j], fontsize=9)
        ax.grid(alpha=0.3)
    for a in range(n, rows * cols):
        axes[a // cols, a % cols].set_visible(False)
    fig.suptitle(f"{r.stem} {r.title(k)}: phase portrait, t = {ts[0]:.4g} to {ts[-1]:.4g} s")
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
    ax.set_xlabel("excitation frequency (Hz)")
    what = outname or "output"
    ax.set_ylabel(f"amplitude of {what} (half peak-to-peak){r.unit('length')}")
    ax.set_title(f"{r.stem}: frequency response of {what}")
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
        other = Results(args.overlay)
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
    ax.set_xlabel("excitation frequency (Hz)")
    ax.set_ylabel(f"amplitude of {target} (half peak-to-peak){r.unit('length')}")
    ax.set_title(f"{r.stem}: harmonic balance branch{'es' if len(branches) > 1 else ''} of {target}")
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
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(q)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(5))
        ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4), useOffset=False)
        ax.set_ylabel("cases")
        ax.grid(alpha=0.3)
    for a in range(n, nrows * cols):
        axes[a // cols, a % cols].set_visible(False)
    if n_used is None:
        n_used = len(r.done)
    fig.suptitle(f"{r.stem}: distributions over n = {n_used} done cases (of {r.n_cases})")
    fig.tight_layout()
    return save(fig, out)


def save(fig, out):
    fig.savefig(out, dpi=110)
    plt.close(fig)
    print(f"wrote {out}")
    return out


def parse_kinds(s):
    kinds = [x.strip() for x in s.split(",") if x.strip()]
    bad = [x for x in kinds if x not in KINDS]
    if bad or not kinds:
        raise argparse.ArgumentTypeError(f"unknown kind {', '.join(bad) or repr(s)} (kinds: {','.join(KINDS)})")
    return kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results_file")
    ap.add_argument("-o", "--outdir", default=None, help="directory for the PNGs (default: the results file's)")
    ap.add_argument("--case", type=int, nargs="+", default=None, metavar="K",
                    help="cases (0-based) for the per-case plots (default: the first done case)")
    ap.add_argument("--output", default=None, metavar="NAME", help="draw only this ROM output (e.g. n19278_x)")
    ap.add_argument("--kind", type=parse_kinds, default=None,
                    help=f"comma-separated kinds to draw among {','.join(KINDS)} (default: all the file supports but phase)")
    ap.add_argument("--overlay", default=None, metavar="SWEEPS.h5",
                    help="hb: also draw the sweep envelopes and constant-frequency points of this time-stepping results file")
    args = ap.parse_args()

    r = Results(args.results_file)
    outdir = args.outdir or os.path.dirname(os.path.abspath(args.results_file))
    os.makedirs(outdir, exist_ok=True)
    asked = args.kind is not None
    kinds = args.kind or list(DEFAULT_KINDS)
    if not r.done:
        sys.exit(f"{args.results_file}: no done case to plot ({r.n_cases} cases: {r.counts()})")

    written = []
    per_case = [k for k in ("time", "energy", "phase") if k in kinds]
    if per_case:
        cases = args.case if args.case is not None else r.done[:1]
        for k in cases:
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
                    p = fn(r, k, g, args, os.path.join(outdir, f"{r.stem}_{kind}_case{k}.png"))
                    if p:
                        written.append(p)
    if "frf" in kinds:
        has = "summary/frf" in r.f or "summary/sweep_up" in r.f or "summary/sweep_down" in r.f or any(
            f"cases/{k}/envelope" in r.f for k in r.done)
        if has or asked:
            p = plot_frf(r, args, os.path.join(outdir, f"{r.stem}_frf.png"))
            if p:
                written.append(p)
    if "hb" in kinds and hb_branches(r):
        p = plot_hb(r, args, os.path.join(outdir, f"{r.stem}_hb.png"))
        if p:
            written.append(p)
    if "uq" in kinds:
        if "summary/histograms" in r.f or asked:
            p = plot_uq(r, args, os.path.join(outdir, f"{r.stem}_uq.png"))
            if p:
                written.append(p)
    r.f.close()
    if not written:
        sys.exit(f"{args.results_file}: nothing plotted (kinds {','.join(kinds)}; {r.n_cases} cases: {r.counts()})")


if __name__ == "__main__":
    main()
