#!/usr/bin/python3
"""The worked example of docs/python.md: a single-mass oscillator with a Jenkins element (a spring in series with a
Coulomb slider) built in Python as a user ROM, its frequency response by `vicms hb` and by time stepping (slow sweeps
up and down, and constant-frequency cases), plotted over each other, with the exact periodic response and the
single-harmonic describing function at a few frequencies.

    PYTHONPATH=python /usr/bin/python3 python/examples/jenkins.py [OUTDIR]     # writes OUTDIR/jenkins.png (default: .)
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import vicms  # noqa: E402
import vicms.plot  # noqa: E402
from vicms import reference  # noqa: E402

out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
os.makedirs(out, exist_ok=True)
m, k, kt, c = 1.0, 4 * np.pi ** 2, 12 * np.pi ** 2, 0.2 * np.pi  # kg, N/m, N/m, N s/m: 1 Hz slipping, 2 Hz stuck
F, mu, N = 1.0, 0.5, 2.0                                         # drive 1 N; slider limit mu N = 1 N

# the ROM: a 2D frictional contact (normal, slider) and the mass
rom = vicms.UserROM(units="N-m-kg-s")
_, slider = rom.contact(dims=2, normal_stiffness=10 * (k + kt), name="slider")
x = rom.coordinate(m, name="x")
rom.spring(x, None, k)
rom.spring(slider, x, kt)
rom.dashpot(x, None, c)
rom.load("drive", {x: 1.0})
rom.output("mass", {x: 1.0})
rom.write(os.path.join(out, "jenkins.h5"))

case = dict(rom_file="jenkins.h5", case_loads="drive", load_drive_amplitude=F, load_drive_frequency=1.0,
            results_overwrite=True, cases_quiet=True, **vicms.friction_options(mu, N))
# harmonic balance: the branch 0.5-3 Hz, 15 harmonics
hb = vicms.run("hb", dict(case, load_drive_type="harmonic", hb_freq_range="0.5,3", hb_harmonics=15, hb_samples=256,
                          hb_max_freq_step=0.02, results_file="jenkins_hb.h5"), cwd=out)
branch = hb.results.branch()
# time stepping: slow sweeps up and down (0.01 Hz/s) and 11 constant-frequency cases, each 60 s from rest
step = dict(step_type="leapfrog", step_dt=1e-3, summary_output="mass", cases_keep_series=False)
vicms.run("simulate", dict(case, **step, load_drive_type="sweep_linear", load_drive_sweep_rate=0.01,
                           results_file="jenkins_sweep.h5", **vicms.Cases().sweep("drive", 0.5, 3).options()), cwd=out)
grid = vicms.run("simulate", dict(case, **step, load_drive_type="harmonic", step_end_time=60, summary_steady_fraction=0.1,
                                  results_file="jenkins_grid.h5", **vicms.Cases().grid("load_drive_frequency", 0.6, 2.6, 11).options()),
                 cwd=out).results

print("frequency   hb (H = 15)   exact        describing f.   time stepping")
for f0, a_ts in grid.summary["frf"].data[::2]:
    w = 2 * np.pi * f0
    t, xs, _ = reference.periodic_response(w, m, k, kt, mu * N, c, F)
    a_df = reference.describing_amplitudes(w, m, k, kt, mu * N, c, F)[0]
    a_hb = np.interp(f0, branch.frequency_hz, branch.amplitude["mass"])
    print(f"{f0:6.2f} Hz  {a_hb:.6e}  {0.5 * np.ptp(xs):.6e}  {a_df:.6e}    {a_ts:.6e}")

# the package's plot of a branch with a time-stepping file over it: OUTDIR/jenkins_hb_hb.png
vicms.plot.results(os.path.join(out, "jenkins_hb.h5"), kinds=["hb"], overlay=os.path.join(out, "jenkins_sweep.h5"), outdir=out)
# and a figure of our own from the arrays the readers return, with the references: OUTDIR/jenkins.png
plt = vicms.plot.plt

fig, ax = plt.subplots(figsize=(9, 5.5))
ax.plot(branch.frequency_hz, branch.amplitude["mass"], color="C3", lw=1.8, label="vicms hb, H = 15 (stable)", zorder=4)
sweep = vicms.read_results(os.path.join(out, "jenkins_sweep.h5"))
for name, col, arrow in (("sweep_up", "C0", "\u2192"), ("sweep_down", "C1", "\u2190")):
    s = sweep.summary[name]
    ax.plot(s["frequency"], s["amplitude"], color=col, lw=1.0, label=f"vicms simulate, sweep {name[6:]} {arrow} (0.01 Hz/s)")
ax.plot(grid.summary["frf"]["frequency"], grid.summary["frf"]["amplitude"], "o", mfc="C2", mec="k", ms=6,
        label="vicms simulate, constant frequency (60 s)", zorder=5)
ff = np.linspace(0.5, 3, 200)
ax.plot(ff, [reference.describing_amplitudes(2 * np.pi * f0, m, k, kt, mu * N, c, F)[0] for f0 in ff], "k:", lw=1.2,
        label="describing function (one harmonic)")
ax.axhline(mu * N / kt, color="0.5", lw=0.8, ls="--", label="slip amplitude \u03bcN/kt")
ax.set(xlabel="excitation frequency [Hz]", ylim=(0, None),
       ylabel=f"amplitude of the mass (half peak-to-peak){hb.results.units.label('length')}",
       title="mass on a spring and a Jenkins element (kt in series with a Coulomb slider, \u03bcN = 1 N), 1 N drive")
ax.grid(alpha=0.3)
ax.legend(fontsize=8)
fig.tight_layout()
vicms.plot.save(fig, os.path.join(out, "jenkins.png"))
