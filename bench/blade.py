#!/usr/bin/python3
"""Analysis of bench/blade.sh (Rotor 37 blade rubbing, seed 000 §5.3): epsilon_RMS of Eq. (30), stability limits,
wall times and speed-ups of the massless (MacNeal, leapfrog) and mass-carrying (Rubin, Moreau e = 0.99) models, and of
the seed 001/002 integrators on the Rubin ROM (nonsmooth generalized-alpha, mixed with the Bathe base; issue 13, test 6)
against the Rubin reference with the same restitution.

  blade.py select WORK        after the five-revolution runs: prints the 50-revolution cases to run
  blade.py report WORK DOCS   after the 50-revolution runs: prints the Markdown table, writes DOCS/blade_*.png

WORK holds the results files of blade.sh: {mac,rub,nsg,bathe}_5rev*.h5 (the steps over the first five revolutions,
the mac and rub references among them), rub0_5rev.h5 (nsgalpha's reference, Moreau e = 0) and {mac,rub,nsg,bathe}_50rev.h5 (fifty revolutions at the selected steps).
"""
import glob
import json
import os
import sys

import h5py
import numpy as np

OMEGA = 2 * np.pi * 312 / 4  # rad/s, issue 6
T_REV = 2 * np.pi / OMEGA  # one revolution, 1/78 s
OUTPUT = "n1353_y"
MODELS = {"mac": "MacNeal (massless, leapfrog)", "rub": "Rubin (mass-carrying, Moreau e = 0.99)",
          "nsg": "Rubin, nsgalpha (seed 002, ρ∞ = 0.8, e = 0)", "bathe": "Rubin, mixed Bathe (seed 001, e = 0.99)"}
# the model whose finest run is the reference: the seed 001/002 schemes are judged against the Rubin ROM's converged
# solution (the Moreau run at 400,000 levels per revolution) with their own impact law, not against a run of their own:
# mixed Bathe (e = 0.99) against the Moreau e = 0.99 run, nsgalpha (e = 0) against the Moreau e = 0 run (rub0_5rev.h5)
REFERENCE = {"mac": "mac", "rub": "rub", "nsg": "rub0", "bathe": "rub"}
REFERENCE_NAME = {"rub": "Rubin + Moreau e = 0.99", "rub0": "Rubin + Moreau e = 0"}
IMPLICIT = ("nsg", "bathe")  # unconditionally stable: no stability limit to search
# seed 000 §5.3 with its "time levels per revolution" multiplied by 50 (issue 6); wall times over 50 revolutions
SEED = {
    "mac": {"ref": 50000 * 50, "stable": 25 * 50, "one": 200 * 50, "wall_one": 110.0},
    "rub": {"ref": 50000 * 50, "stable": 475 * 50, "one": 1500 * 50, "wall_one": 2400.0},
}


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def load_cases(pattern):
    """Every case of the files matching pattern: list of dicts (N levels per revolution, status, message, t, y, wall)."""
    cases = []
    for name in sorted(glob.glob(pattern)):
        with h5py.File(name, "r") as f:
            cols = s(f["cases/parameters"].attrs["columns"]).split(",")
            dts = f["cases/parameters"][:, cols.index("step_dt")]
            for k, dt in enumerate(dts):
                c = {"N": int(round(T_REV / dt)), "dt": float(dt), "status": int(f["cases/status"][k]),
                     "message": s(f["cases/message"][k]), "wall": float(f["cases/wall_time"][k]),
                     "steps": int(f["cases/steps"][k]), "file": os.path.basename(name)}
                g = f.get("cases/%d" % k)
                if c["status"] == 1 and g is not None:
                    j = s(g["outputs"].attrs["columns"]).split(",").index(OUTPUT)
                    c["t"], c["y"] = g["t"][()], g["outputs"][:, j]
                cases.append(c)
    return sorted(cases, key=lambda c: c["N"])


def eps_rms(c, ref):
    """Eq. (30) over the first five revolutions, at the recorded levels of the coarse run; the reference (recorded
    on a finer grid) is read at the same times, by linear interpolation where a level is not one of its own."""
    m = c["t"] <= 5 * T_REV * (1 + 1e-9)
    t, y = c["t"][m], c["y"][m]
    yr = np.interp(t, ref["t"], ref["y"])
    idx = np.clip(np.searchsorted(ref["t"], t), 0, len(ref["t"]) - 1)
    common = bool(np.all(np.minimum(np.abs(ref["t"][idx] - t), np.abs(ref["t"][idx - 1] - t)) < 1e-6 * c["dt"]))
    return float(np.sqrt(np.sum((y - yr) ** 2) / np.sum(yr**2))), common


def five_revolutions(work, model):
    cases = load_cases(os.path.join(work, model + "_5rev*.h5"))
    own = cases if REFERENCE[model] == model else load_cases(os.path.join(work, REFERENCE[model] + "_5rev*.h5"))
    ref = min((c for c in own if c["status"] == 1), key=lambda c: c["dt"])
    for c in cases:
        if c is not ref and c["status"] == 1:
            c["eps"], c["common"] = eps_rms(c, ref)
    grid = [c for c in cases if c is not ref]
    # largest stable step: the coarsest N that ran, with every finer N of the grid running too
    stable = None
    for c in reversed(grid):
        if c["status"] != 1:
            break
        stable = c
    # 1 % step, as the seed defines it (caption of its Fig. 12): the largest step whose eps is below 1 %
    one = next((c for c in grid if c["status"] == 1 and c["eps"] < 0.01), None)
    # and the coarsest N from which every finer N of the grid stays below 1 % (the errors do not fall monotonically)
    below = None
    for c in reversed(grid):
        if c["status"] != 1 or c["eps"] >= 0.01:
            break
        below = c
    # the reference's own interpolation error: its odd recorded levels from the even ones
    te, ye = ref["t"][::2], ref["y"][::2]
    yo = np.interp(ref["t"][1::2], te, ye)
    interp = float(np.sqrt(np.sum((ref["y"][1::2] - yo) ** 2) / np.sum(ref["y"][1::2] ** 2)))
    # a scheme judged against another's reference: epsilon_RMS of its second finest step against its finest (its own
    # convergence; near this value while far from the reference means it converges to a different limit)
    selfconv = None
    done = [c for c in grid if c["status"] == 1]
    if REFERENCE[model] != model and len(done) >= 2:
        selfconv = (done[-2]["N"], done[-1]["N"], eps_rms(done[-2], done[-1])[0])
    return {"cases": cases, "grid": grid, "ref": ref, "stable": stable, "one": one, "below": below, "interp": interp,
            "self": selfconv}


def select(work):
    out = {}
    for model in MODELS:
        r = five_revolutions(work, model)
        if model in IMPLICIT:  # fifty revolutions at the 1 % step only, if there is one
            out[model] = {"one": r["one"]["N"] if r["one"] else None}
            continue
        if r["stable"] is None or r["one"] is None:
            raise SystemExit("%s: no stable step or no step below 1 %% in the grid" % model)
        out[model] = {"stable": r["stable"]["N"], "one": r["one"]["N"],
                      "between": [c["N"] for c in r["grid"] if r["stable"]["N"] <= c["N"] <= r["one"]["N"]]}
    print(json.dumps(out))


def fmt_n(n):
    return "{:,}".format(int(n))


def report(work, docs):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = {}
    for model in MODELS:
        r = five_revolutions(work, model)
        long = load_cases(os.path.join(work, model + "_50rev*.h5"))
        done = [c for c in long if c["status"] == 1]
        # over 50 revolutions: the coarsest N that ran 50 revolutions with every finer selected N running too
        stable50 = None
        for c in reversed(long):
            if c["status"] != 1:
                break
            stable50 = c
        one50 = next((c for c in done if r["one"] and c["N"] == r["one"]["N"]), None)
        r.update(long=long, stable50=stable50, one50=one50)
        res[model] = r
        eps_at = {c["N"]: c.get("eps") for c in r["grid"]}
        r["eps_stable50"] = eps_at.get(stable50["N"]) if stable50 else None

    # ---- the epsilon table (all steps)
    print("### ε_RMS of n1353_y over the first five revolutions, against each model's own reference\n")
    for model, r in res.items():
        print("%s, reference %s%s levels per revolution (dt = %.4g s); its linear-interpolation error at its recorded "
              "spacing: %.1e\n" % (MODELS[model], "" if REFERENCE[model] == model else "the %s run at " % REFERENCE_NAME[REFERENCE[model]],
                                   fmt_n(r["ref"]["N"]), r["ref"]["dt"], r["interp"]))
        if r["self"]:
            print("Its own convergence: ε_RMS of %s against %s levels per revolution (same scheme): %.2e\n" % (
                  fmt_n(r["self"][0]), fmt_n(r["self"][1]), r["self"][2]))
        print("| levels per revolution | dt [s] | ε_RMS | compared at | wall time, 5 revolutions [s] | status |")
        print("|---|---|---|---|---|---|")
        for c in r["grid"]:
            if c["status"] == 1:
                print("| %s | %.4g | %.3e | %s | %.2f | done |" % (fmt_n(c["N"]), c["dt"], c["eps"],
                      "common levels" if c["common"] else "interpolated ref.", c["wall"]))
            else:
                print("| %s | %.4g | – | – | %.2f | %s |" % (fmt_n(c["N"]), c["dt"], c["wall"], c["message"].split(":")[0]))
        print()
    # ---- the summary table, seed next to ours
    m, b = res["mac"], res["rub"]

    def wall(c):
        return c["wall"] if c else float("nan")

    def eps(c):
        return "%.2g %%" % (100 * c["eps"]) if c and "eps" in c else "–"

    rows = [
        ("reference, levels per revolution", fmt_n(SEED["mac"]["ref"]), fmt_n(m["ref"]["N"]), fmt_n(SEED["rub"]["ref"]), fmt_n(b["ref"]["N"])),
        ("largest stable step (first 5 revolutions), levels per revolution", fmt_n(SEED["mac"]["stable"]), fmt_n(m["stable"]["N"]),
         fmt_n(SEED["rub"]["stable"]), fmt_n(b["stable"]["N"])),
        ("largest stable step (50 revolutions), levels per revolution", "–", fmt_n(m["stable50"]["N"]) if m["stable50"] else "none",
         "–", fmt_n(b["stable50"]["N"]) if b["stable50"] else "none"),
        ("ε_RMS at the largest stable step (50 revolutions)", "\"excellent\"", eps(m["stable50"] and next(c for c in m["grid"] if c["N"] == m["stable50"]["N"])),
         "–", eps(b["stable50"] and next(c for c in b["grid"] if c["N"] == b["stable50"]["N"]))),
        ("largest step with ε_RMS < 1 %, levels per revolution", fmt_n(SEED["mac"]["one"]), fmt_n(m["one"]["N"]), fmt_n(SEED["rub"]["one"]), fmt_n(b["one"]["N"])),
        ("ε_RMS there", "< 1 %", eps(m["one"]), "< 1 %", eps(b["one"])),
        ("ε_RMS < 1 % at every finer step of the grid from, levels per revolution", "–", fmt_n(m["below"]["N"]) if m["below"] else "none",
         "–", fmt_n(b["below"]["N"]) if b["below"] else "none"),
        ("smallest ε_RMS of the grid", "≪ 1e-3", "%.1e" % min(c["eps"] for c in m["grid"] if "eps" in c), "≈ 8e-3 (floor)",
         "%.1e" % min(c["eps"] for c in b["grid"] if "eps" in c)),
        ("wall time, 50 revolutions, at the 1 % step [s]", "110", "%.2f" % wall(m["one50"]), "2400", "%.1f" % wall(b["one50"])),
        ("wall time, 50 revolutions, at the largest stable step [s]", "–", "%.2f" % wall(m["stable50"]), "–", "%.1f" % wall(b["stable50"])),
        ("time per step at the 1 % step [µs]", "%.0f" % (1e6 * 110 / (50 * SEED["mac"]["one"])), "%.1f" % (1e6 * wall(m["one50"]) / m["one50"]["steps"]) if m["one50"] else "–",
         "%.0f" % (1e6 * 2400 / (50 * SEED["rub"]["one"])), "%.1f" % (1e6 * wall(b["one50"]) / b["one50"]["steps"]) if b["one50"] else "–"),
    ]
    print("### Seed 000 §5.3 (levels ×50, issue 6) next to ours\n")
    print("| | seed, MacNeal | ours, MacNeal | seed, Rubin | ours, Rubin |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    su_one = wall(b["one50"]) / wall(m["one50"])
    su_stab = wall(b["stable50"]) / wall(m["stable50"])
    su_mix = wall(b["one50"]) / wall(m["stable50"])
    print()
    print("| speed-up of the massless model (Rubin wall time / MacNeal wall time, 50 revolutions) | seed | ours |")
    print("|---|---|---|")
    print("| at equal accuracy, both at their ε_RMS < 1 %% step | > 20 (2400 s / 110 s) | %.1f |" % su_one)
    print("| both at their largest stable step | about 100 | %.1f |" % su_stab)
    print("| MacNeal at its largest stable step, Rubin at its 1 %% step | (about 100: one reading of the seed) | %.1f |" % su_mix)
    print()
    # ---- the seed 001/002 integrators next to the seed 000 ones (issue 13, test 6)
    print("### Seed 001/002 integrators on the blade, next to MacNeal + leapfrog and Rubin + Moreau\n")
    print("| model, scheme | reference | largest stable step (5 revolutions) | largest step with ε_RMS < 1 % | ε_RMS there "
          "| ε_RMS < 1 % at every finer step from | smallest ε_RMS of the grid (at) | time per step, 5 revolutions, median "
          "over the grid [µs] | wall time, 50 revolutions, at the 1 % step [s] | ÷ MacNeal's |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for model, r in res.items():
        done = [c for c in r["grid"] if c["status"] == 1]
        best = min(done, key=lambda c: c["eps"])
        per_step = np.median([1e6 * c["wall"] / c["steps"] for c in done])
        ref = "own, %s" % fmt_n(r["ref"]["N"]) if REFERENCE[model] == model else "%s, %s" % (REFERENCE_NAME[REFERENCE[model]], fmt_n(r["ref"]["N"]))
        stable = "—" if model in IMPLICIT else fmt_n(r["stable"]["N"])
        one = fmt_n(r["one"]["N"]) if r["one"] else "none"
        w = "%.2f" % r["one50"]["wall"] if r["one50"] else "–"
        ratio = "%.1f" % (r["one50"]["wall"] / m["one50"]["wall"]) if r["one50"] and m["one50"] else "–"
        print("| %s | %s | %s | %s | %s | %s | %.1e (%s) | %.1f | %s | %s |" % (
              MODELS[model], ref, stable, one, eps(r["one"]), fmt_n(r["below"]["N"]) if r["below"] else "none",
              best["eps"], fmt_n(best["N"]), per_step, w, ratio))
    print()

    os.makedirs(docs, exist_ok=True)
    colors = {"mac": "C0", "rub": "C3", "nsg": "C2", "bathe": "C4"}
    # ---- epsilon against levels per revolution (seed Fig. 11a)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for model, r in res.items():
        g = [c for c in r["grid"] if c["status"] == 1]
        ax.loglog([c["N"] for c in g], [c["eps"] for c in g], "o-", color=colors[model], label=MODELS[model])
        if model not in IMPLICIT and r["stable50"] and "eps" in next(c for c in r["grid"] if c["N"] == r["stable50"]["N"]):
            c = next(c for c in r["grid"] if c["N"] == r["stable50"]["N"])
            ax.loglog(c["N"], c["eps"], "s", color="red", ms=10, mfc="none", mew=2)
        if r["one"]:
            ax.loglog(r["one"]["N"], r["one"]["eps"], "D", color="orange", ms=10, mfc="none", mew=2)
        bad = [c["N"] for c in r["grid"] if c["status"] != 1]
        if bad:
            ax.plot(bad, [1.0] * len(bad), "x", color=colors[model], ms=8)
    ax.axhline(0.01, color="gray", ls=":", lw=1)
    ax.plot([], [], "s", color="red", mfc="none", mew=2, label="largest stable step (50 revolutions)")
    ax.plot([], [], "D", color="orange", mfc="none", mew=2, label="largest step with ε_RMS < 1 %")
    ax.plot([], [], "x", color="k", label="unstable (plotted at 1)")
    ax.set_xlabel("time levels per revolution")
    ax.set_ylabel("ε_RMS of n1353_y, first 5 revolutions")
    ax.set_title("Rotor 37 blade rubbing: convergence against each model's reference", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(os.path.join(docs, "blade_convergence.png"), dpi=120)
    plt.close(fig)
    # ---- the response over revolution 1 and revolution 5 (seed Fig. 12)
    fig, axs = plt.subplots(2, 2, figsize=(11, 6.5), sharey="row")
    for j, model in enumerate(("mac", "rub")):
        r = res[model]
        stab = next((c for c in r["grid"] if r["stable50"] and c["N"] == r["stable50"]["N"]), None)
        curves = [(r["ref"], "reference", "green", "--"), (r["one"], "1 % step", "orange", "-."), (stab, "largest stable step", "red", "-")]
        for i, rev in enumerate((0, 4)):
            ax = axs[i, j]
            for c, what, col, ls in curves:
                if c is None:
                    continue
                m = (c["t"] >= rev * T_REV * (1 - 1e-9)) & (c["t"] <= (rev + 1) * T_REV * (1 + 1e-9))
                ax.plot(c["t"][m] / T_REV, c["y"][m], ls, color=col, lw=1.2,
                        label="%s (%s levels/rev)" % (what, fmt_n(c["N"])))
            ax.set_title("%s, revolution %d" % (MODELS[model], rev + 1), fontsize=9)
            ax.set_xlabel("t / revolution")
            ax.grid(True, alpha=0.3)
            if j == 0:
                ax.set_ylabel("n1353_y [mm]")
            if i == 0:
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(docs, "blade_response.png"), dpi=120)
    plt.close(fig)
    # ---- fifty revolutions at the 1 % step (seed Fig. 10a)
    fig, ax = plt.subplots(figsize=(10, 3.8))
    for model in ("mac", "rub"):
        r = res[model]
        c = r["one50"]
        if c is not None and "t" in c:
            ax.plot(c["t"] / T_REV, c["y"], color=colors[model], lw=0.5, alpha=0.8,
                    label="%s, %s levels/rev" % (MODELS[model], fmt_n(c["N"])))
    ax.set_xlabel("t / revolution")
    ax.set_ylabel("n1353_y [mm]")
    ax.set_title("Fifty revolutions at each model's ε_RMS < 1 % step")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(docs, "blade_overview.png"), dpi=120)
    plt.close(fig)
    # ---- wall time against levels per revolution (seed Fig. 11b): 50-revolution runs, and 10 x the 5-revolution ones
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for model, r in res.items():
        g = [c for c in r["grid"] if c["status"] == 1]
        short = MODELS[model].split(" (")[0]
        ax.loglog([c["N"] for c in g], [10 * c["wall"] for c in g], ".:", color=colors[model], alpha=0.6,
                  label="%s: 10 × 5 revolutions" % short)
        d = [c for c in r["long"] if c["status"] == 1]
        if d:
            ax.loglog([c["N"] for c in d], [c["wall"] for c in d], "o", color=colors[model],
                      label="%s: 50 revolutions" % short)
    ax.set_xlabel("time levels per revolution")
    ax.set_ylabel("wall time of the stepping, 50 revolutions [s]")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(docs, "blade_walltime.png"), dpi=120)
    plt.close(fig)
    print("wrote %s" % ", ".join(os.path.join(docs, "blade_%s.png" % k) for k in ("convergence", "response", "overview", "walltime")))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "select":
        select(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)
