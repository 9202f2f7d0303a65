#!/usr/bin/env bash
# Frequency response of the plate of seed 000 §5.2 under frictionless contact (issue 6), end to end:
#   1. reduce the plate (jobs/plate_sweep.yaml: MacNeal, 20 free-interface + 3 attachment modes, 1 % damping);
#   2. slow log sweeps up and down 250 <-> 320 Hz (jobs/plate_frf.yaml: +1.5 % of 278 Hz per 100 pseudo-periods,
#      500 levels per pseudo-period), the same with the wall 1 m away (linear plate), and the same with a sweep linear
#      in time (the seed's wording) for comparison;
#   3. constant-frequency runs from rest on a 1 Hz grid 250..320 Hz, 1 s each (about 280 periods, 17 decay times
#      1/(zeta omega) of the first mode: the last-quarter amplitude agrees with a 2 s run to 1e-6 relative);
#   4. constant-frequency runs at 265 Hz (below resonance, contact open), 278 Hz (contact), 286 Hz (inside the
#      hysteresis window: from rest the lower branch, open) and 300 Hz (above, open), 1 s each, every time level kept;
#   5. draws docs/plate_frf.png (envelopes up and down, constant-frequency points, linear FRF of the ROM; maxima and
#      minima per period against the wall) and docs/plate_phase.png (phase portraits of the output at the four
#      frequencies, steady state, wall marked; at 286 Hz also the up sweep's cycle on the upper branch), and prints the
#      table of jumps, peaks, linear resonance and contact ranges (docs/benchmarks.md).
# About 1 minute on 2 cores (15 s idle, 75 s when shared; the reduction alone takes 5 to 35 s).
# usage: bash bench/plate_frf.sh [BUILD_DIR]        (BUILD_DIR defaults to build/; plots go to docs/)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
[ -x "$bin" ] || { echo "no executable $bin (build first, or pass the build directory)"; exit 1; }
$py -c 'import h5py, matplotlib, numpy' 2>/dev/null || { echo "$py lacks h5py or matplotlib (apt-get install python3-h5py python3-matplotlib)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
F=load_xmax_ymax_zmax_frequency

# step NAME NP COMMAND ARGS...: run vicms on NP ranks, log to a file named after NAME, print the wall time
step() {
  local name=$1 np=$2 s
  shift 2
  s=$(date +%s%N)
  local log=${name//[^A-Za-z0-9]/_}.log
  mpirun -n "$np" "$bin" "$@" >"$log" 2>&1 || { echo "vicms $1 ($name) failed:"; tail -20 "$log"; exit 1; }
  printf '  %-34s %6.1f s\n' "$name" "$((($(date +%s%N) - s) / 1000000))e-3"
}

start=$(date +%s%N)
echo "vicms plate frequency response, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p' | head -1))"
step reduce 2 reduce -options_file "$root/jobs/plate_sweep.yaml" -rom_file plate_rom.h5
step "sweeps up and down" 2 simulate -options_file "$root/jobs/plate_frf.yaml" -results_file frf.h5 -cases_quiet
step "sweeps, wall at 1 m (linear)" 2 simulate -options_file "$root/jobs/plate_frf.yaml" -contact_gap 1 \
  -results_file frf_linear.h5 -cases_quiet
step "sweeps linear in time" 2 simulate -options_file "$root/jobs/plate_frf.yaml" \
  -load_xmax_ymax_zmax_type sweep_linear -results_file frf_lintime.h5 -cases_quiet
step "grid 250..320 Hz, 71 x 1 s" 2 simulate -options_file "$root/jobs/plate_sweep.yaml" -cases_grid $F:250:320:71 \
  -step_end_time 1 -step_output_every 10 -results_file grid.h5 -cases_quiet
step "phase runs 265/278/286/300 Hz" 2 simulate -options_file "$root/jobs/plate_sweep.yaml" -cases_grid '' \
  -cases_values $F:265/278/286/300 -step_end_time 1 -step_output_every 1 -results_file phase.h5 -cases_quiet
grep -h "component modes" reduce.log | sed 's/^ */  ROM /'

$py - "$root/docs" <<'EOF'
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

docs = sys.argv[1]
OUT = "n19278_x"
GAP = 1e-4
SKIP = 150  # pseudo-periods at the start of a sweep left out (the start from rest: 6 Hz, ten decay times)


def rows(path):
    return h5py.File(path, "r")


def txt(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def case_of(f, direction):
    """The sweep case index of a direction, from summary/sweep_<dir>'s `case` attribute."""
    return int(f["summary/sweep_" + direction].attrs["case"])


def per_period(t, y, fr, f_ref=278.0):
    """Max and min of y and mean instantaneous frequency over consecutive windows of one pseudo-period 1/f_ref."""
    idx = np.floor((t - t[0]) * f_ref).astype(int)
    n = idx[-1]
    keep = idx < n  # drop the last, partial window
    idx, y, fr = idx[keep], y[keep], fr[keep]
    cnt = np.bincount(idx)
    ymax = np.full(n, -np.inf)
    ymin = np.full(n, np.inf)
    np.maximum.at(ymax, idx, y)
    np.minimum.at(ymin, idx, y)
    fm = np.bincount(idx, fr) / cnt
    return fm, ymax, ymin


def irregular(t, y, fr, tol=0.5e-6, merge=0.3):
    """Frequency windows where the stroboscopic samples (y once per excitation period, at phase 0) stop varying smoothly:
    |second difference| > tol. A slowly swept periodic response gives a smooth sequence (< 0.2 µm here); transients
    after a jump and non-periodic responses do not."""
    ph = np.concatenate([[0], np.cumsum(0.5 * (fr[1:] + fr[:-1]) * np.diff(t))])  # excitation cycles
    k = np.arange(SKIP, int(ph[-1]))
    ys, fs = np.interp(k, ph, y), np.interp(k, ph, fr)
    bad = fs[1:-1][np.abs(ys[2:] - 2 * ys[1:-1] + ys[:-2]) > tol]
    bad = np.sort(bad)
    win = []
    for x in bad:
        if win and x - win[-1][1] < merge:
            win[-1][1] = x
        else:
            win.append([x, x])
    return win


def sweep_facts(path):
    """Envelopes, per-period extremes, jumps, peaks and contact ranges of the two sweeps of a results file."""
    f = rows(path)
    out = {}
    for d in ("up", "down"):
        k = case_of(f, d)
        g = f["cases/%d" % k]
        env = f["summary/sweep_" + d][()]
        t, y, fr = g["t"][()], g["outputs"][:, 0], g["frequency"][()]
        gmin = g["gaps"][()].min(axis=1)
        closed = gmin <= 1e-12
        e = env[SKIP:]
        da = np.diff(e[:, 1])
        i = int(np.argmin(da)) if d == "up" else int(np.argmax(da))
        ip = int(np.argmax(env[:, 1]))
        # the contact range during the sweep (after the start from rest)
        late = t > SKIP / 278.0
        fc = fr[closed & late]
        out[d] = dict(env=env, per=per_period(t, y, fr), jump=0.5 * (e[i, 0] + e[i + 1, 0]), jump_da=da[i],
                      peak=(env[ip, 1], env[ip, 0]), ymax=(y.max(), fr[np.argmax(y)]), ymin=y.min(),
                      closed=(fc.min(), fc.max()) if len(fc) else None, t=t, y=y, fr=fr,
                      fmax=float(g["forces"][()].max()), irregular=irregular(t, y, fr),
                      wall=float(f["cases/wall_time"][k]), steps=int(f["cases/steps"][k]))
    return out


sw = sweep_facts("frf.h5")
lin = sweep_facts("frf_linear.h5")
lt = sweep_facts("frf_lintime.h5")

# the linear frequency response of the ROM itself: (K - w^2 M + i w D) q = f, output = o.q
r = rows("plate_rom.h5")
K, M, D = r["K"][()], r["M"][()], r["D"][()]
fv, ov = r["loads/xmax_ymax_zmax"][()], r["outputs/" + OUT][()]
fl = np.linspace(245, 325, 1601)
H = np.array([ov @ np.linalg.solve(K - (2 * np.pi * x) ** 2 * M + 2j * np.pi * x * D, fv) for x in fl])
ilr = int(np.argmax(np.abs(H)))
f_lin, a_lin = fl[ilr], abs(H[ilr])
# refine the linear peak on a fine local grid
fz = np.linspace(fl[max(ilr - 2, 0)], fl[min(ilr + 2, len(fl) - 1)], 2001)
Hz = np.array([abs(ov @ np.linalg.solve(K - (2 * np.pi * x) ** 2 * M + 2j * np.pi * x * D, fv)) for x in fz])
f_lin, a_lin = fz[np.argmax(Hz)], Hz.max()
f1 = r["frequencies_hz"][0]

# constant-frequency grid: steady state over the last quarter
g = rows("grid.h5")
P = g["cases/parameters"][:, 0]
st = g["cases/status"][()]
grid = []
for k in range(len(P)):
    if st[k] != 1:
        continue
    c = g["cases/%d" % k]
    t = c["t"][()]
    w = t >= 0.75 * t[-1]
    y = c["outputs"][:, 0][w]
    grid.append((P[k], 0.5 * (y.max() - y.min()), y.max(), y.min(), c["gaps"][()][w].min(), c["gaps"][()].min(),
                 c["forces"][()][w].max(), y.mean()))
grid = np.array(grid)
gclosed = grid[grid[:, 4] <= 1e-12, 0]
# max penetration of the wall (output below -gap) anywhere
pen = max(-(grid[:, 3].min() + GAP), -(sw["up"]["ymin"] + GAP), -(sw["down"]["ymin"] + GAP))

# ---- the table
u, d = sw["up"], sw["down"]
um = lambda a: "%.1f" % (a * 1e6)  # noqa: E731
print()
print("| quantity | sweep up | sweep down |")
print("|---|---|---|")
print("| jump: contact lost (up) / first closed (down) | down at %.2f Hz | up at %.2f Hz |" % (u["closed"][1], d["closed"][1]))
print("| largest change of the envelope in one pseudo-period | %s µm at %.2f Hz | +%s µm at %.2f Hz |"
      % (um(u["jump_da"]), u["jump"], um(d["jump_da"]), d["jump"]))
print("| contact closed during the sweep | %.2f to %.2f Hz | %.2f down to %.2f Hz |"
      % (u["closed"][0], u["closed"][1], d["closed"][1], d["closed"][0]))
print("| peak envelope (half peak-to-peak) | %s µm at %.2f Hz | %s µm at %.2f Hz |"
      % (um(u["peak"][0]), u["peak"][1], um(d["peak"][0]), d["peak"][1]))
print("| largest displacement away from the wall | %s µm at %.2f Hz | %s µm at %.2f Hz |"
      % (um(u["ymax"][0]), u["ymax"][1], um(d["ymax"][0]), d["ymax"][1]))
print("| lowest displacement (wall at -%s µm) | %s µm | %s µm |" % (um(GAP), um(u["ymin"]), um(d["ymin"])))
print("| largest contact force (recorded levels) | %.1f N | %.1f N |" % (u["fmax"], d["fmax"]))
win = lambda w: ", ".join("%.2f-%.2f Hz" % (a, b) for a, b in w) or "none"  # noqa: E731
print("| irregular stroboscopic samples (2nd difference > 0.5 µm) | %s | %s |" % (win(u["irregular"]), win(d["irregular"])))
print("| linear plate (wall at 1 m), peak envelope | %s µm at %.2f Hz | %s µm at %.2f Hz |"
      % (um(lin["up"]["peak"][0]), lin["up"]["peak"][1], um(lin["down"]["peak"][0]), lin["down"]["peak"][1]))
print("| sweep linear in time (seed's wording): jump | down at %.2f Hz | up at %.2f Hz |" % (lt["up"]["closed"][1], lt["down"]["closed"][1]))
print("| sweep linear in time: peak envelope | %s µm at %.2f Hz | %s µm at %.2f Hz |"
      % (um(lt["up"]["peak"][0]), lt["up"]["peak"][1], um(lt["down"]["peak"][0]), lt["down"]["peak"][1]))
print("| wall time of the sweep (one rank, recording every 2nd level) | %.2f s for %d steps | %.2f s for %d steps |"
      % (u["wall"], u["steps"], d["wall"], d["steps"]))
print()
print("| constant frequency, from rest, 1 s, last quarter | |")
print("|---|---|")
print("| linear resonance of the ROM (first free-interface mode) | %.2f Hz (%.2f Hz), amplitude %s µm |" % (f_lin, f1, um(a_lin)))
above = fl[np.abs(H) >= GAP]
print("| the linear plate's amplitude reaches the gap (grazing) | between %.2f and %.2f Hz |" % (above.min(), above.max()))
ip = int(np.argmax(grid[:, 1]))
print("| peak amplitude (half peak-to-peak) | %s µm at %.0f Hz (max %s µm, min %s µm, mean %.2f µm) |"
      % (um(grid[ip, 1]), grid[ip, 0], um(grid[ip, 2]), um(grid[ip, 3]), grid[ip, 7] * 1e6))
print("| mean displacement in steady state | contact closed: %.2f to %.2f µm; open: below %.2f µm in magnitude |"
      % (grid[grid[:, 4] <= 1e-12, 7].min() * 1e6, grid[grid[:, 4] <= 1e-12, 7].max() * 1e6, np.abs(grid[grid[:, 4] > 1e-12, 7]).max() * 1e6))
print("| contact closed in steady state | %.0f to %.0f Hz (%d of %d frequencies) |" % (gclosed.min(), gclosed.max(), len(gclosed), len(grid)))
op = grid[grid[:, 4] > 1e-12]
print("| contact open in steady state | %.0f to %.0f Hz and %.0f to %.0f Hz; smallest gap there %s µm |"
      % (op[op[:, 0] < gclosed.min(), 0].min(), op[op[:, 0] < gclosed.min(), 0].max(),
         op[op[:, 0] > gclosed.max(), 0].min(), op[op[:, 0] > gclosed.max(), 0].max(), um(op[:, 4].min())))
never = grid[grid[:, 5] > 1e-12, 0]
print("| contact never touched, transient included | %d frequencies: %.0f to %.0f Hz and %.0f to %.0f Hz |"
      % (len(never), never[never < f1].min(), never[never < f1].max(), never[never > f1].min(), never[never > f1].max()))
print("| deepest point below the wall (all runs) | %.2g m |" % pen)

# ---- the frequency response figure
fig, (ax, bx) = plt.subplots(2, 1, figsize=(9, 8.5), sharex=True, gridspec_kw=dict(height_ratios=[3, 2]))
ax.plot(fl, np.abs(H) * 1e6, color="0.6", ls="--", lw=1, label="linear plate (no wall), ROM FRF")
for dd, col in (("up", "tab:red"), ("down", "tab:blue")):
    e = sw[dd]["env"]
    ax.plot(e[:, 0], e[:, 1] * 1e6, color=col, lw=1.2, label="sweep %s (1.5 %% / 100 pseudo-periods)" % dd)
ax.plot(grid[:, 0], grid[:, 1] * 1e6, "ko", ms=3.5, mfc="none", label="constant frequency from rest (1 s, last quarter)")
ax.axhline(GAP * 1e6, color="k", lw=0.6, ls=":")
ax.text(246, GAP * 1e6 + 2, "gap 0.1 mm", fontsize=8)
ax.annotate("jump down %.1f Hz" % u["closed"][1], (u["closed"][1], 60), (u["closed"][1] + 4, 120), arrowprops=dict(arrowstyle="->", color="tab:red"), color="tab:red", fontsize=9)
ax.annotate("jump up %.1f Hz" % d["closed"][1], (d["closed"][1], 100), (d["closed"][1] - 28, 135), arrowprops=dict(arrowstyle="->", color="tab:blue"), color="tab:blue", fontsize=9)
ax.set_ylabel("amplitude of %s, half peak-to-peak [µm]" % OUT)
ax.set_ylim(0, 175)
ax.legend(fontsize=8, loc="upper right")
ax.set_title("Plate of seed 000 §5.2 under frictionless contact: frequency response (1 N tip force)")
for dd, col in (("up", "tab:red"), ("down", "tab:blue")):
    fm, ymax, ymin = sw[dd]["per"]
    bx.plot(fm, ymax * 1e6, color=col, lw=1, label="sweep %s: max / min per pseudo-period" % dd)
    bx.plot(fm, ymin * 1e6, color=col, lw=1)
bx.plot(grid[:, 0], grid[:, 2] * 1e6, "k^", ms=3, mfc="none", label="constant frequency: max / min")
bx.plot(grid[:, 0], grid[:, 3] * 1e6, "kv", ms=3, mfc="none")
bx.axhspan(-1.2 * GAP * 1e6, -GAP * 1e6, color="0.8")
bx.axhline(-GAP * 1e6, color="k", lw=1)
bx.text(246, -GAP * 1e6 - 14, "wall (x = -0.1 mm)", fontsize=8)
for x in (265, 278, 286, 300):
    bx.axvline(x, color="0.5", lw=0.5, ls=":")
bx.set_ylim(-1.2 * GAP * 1e6, 1.25 * GAP * 1e6)
bx.set_xlim(245, 325)
bx.set_xlabel("excitation frequency [Hz] (dotted: the phase portraits' frequencies)")
bx.set_ylabel("displacement of %s [µm]" % OUT)
bx.legend(fontsize=8, loc="upper right")
fig.tight_layout()
fig.savefig(docs + "/plate_frf.png", dpi=110)
print("wrote docs/plate_frf.png")

# ---- phase portraits
p = rows("phase.h5")
Pp = p["cases/parameters"][:, 0]
fig, axs = plt.subplots(2, 2, figsize=(10, 8.5))
print()
print("| phase portrait | state | min, max of %s [µm] | min gap [µm] |" % OUT)
print("|---|---|---|---|")
for k, a in enumerate(axs.ravel()):
    c = p["cases/%d" % k]
    t, y = c["t"][()], c["outputs"][:, 0]
    fq = Pp[k]
    w = t >= t[-1] - 5 / fq  # the last five periods
    v = np.gradient(y, t)
    Hf = ov @ np.linalg.solve(K - (2 * np.pi * fq) ** 2 * M + 2j * np.pi * fq * D, fv)
    ph = np.linspace(0, 2 * np.pi, 400)
    a.plot(y[w] * 1e6, v[w] * 1e3, color="k", lw=1.2, label="constant frequency, from rest, t > %.2f s" % (t[-1] - 5 / fq))
    a.plot(np.abs(Hf) * np.cos(ph) * 1e6, -2 * np.pi * fq * np.abs(Hf) * np.sin(ph) * 1e3, color="0.5", ls="--", lw=1,
           label="linear plate (no wall)")
    gm = c["gaps"][()][w].min()
    state = "contact" if gm <= 1e-12 else "open"
    print("| %.0f Hz, from rest | %s | %s, %s | %s |" % (fq, state, um(y[w].min()), um(y[w].max()), um(max(gm, 0))))
    if abs(fq - 286) < 1e-9:
        # the up sweep passes 286 Hz on the upper branch: its cycles there (frequency within 0.03 % of 286 Hz)
        s = sw["up"]
        m = np.abs(s["fr"] - fq) < 0.0003 * fq
        ts, ys = s["t"][m], s["y"][m]
        vs = np.gradient(s["y"], s["t"])[m]
        a.plot(ys * 1e6, vs * 1e3, color="tab:red", lw=1.2, label="up sweep passing 286 Hz (upper branch)")
        print("| %.0f Hz, up sweep passing | contact | %s, %s | 0 |" % (fq, um(ys.min()), um(ys.max())))
    a.axvline(-GAP * 1e6, color="k", lw=1.5)
    a.axvspan(-1.8 * GAP * 1e6, -GAP * 1e6, color="0.85")
    a.set_xlim(-1.8 * GAP * 1e6, 1.8 * GAP * 1e6)
    a.set_ylim(-330, 330)
    a.set_title("%.0f Hz: %s" % (fq, {265: "below resonance, contact open", 278: "contact (linear resonance 278 Hz)",
                                     286: "two coexisting branches", 300: "above resonance, contact open"}.get(int(round(fq)), state)), fontsize=10)
    a.set_xlabel("displacement %s [µm]" % OUT)
    a.set_ylabel("velocity [mm/s]")
    a.legend(fontsize=7, loc="lower right")
    a.text(-1.75 * GAP * 1e6, 0, "wall", rotation=90, va="center", fontsize=8)
fig.suptitle("Plate of seed 000 §5.2: steady-state phase portraits of the tip node (last five periods)")
fig.tight_layout()
fig.savefig(docs + "/plate_phase.png", dpi=110)
print("wrote docs/plate_phase.png")
EOF
echo "total $((($(date +%s%N) - start) / 1000000000)) s"
