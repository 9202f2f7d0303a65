#!/usr/bin/env bash
# A frictional contact that opens and closes again every period (issue 12): a unit mass on a spring k = (2 pi)^2, joined
# by a spring kt = 2k to the tangential coordinate of a 2D contact (preload p = 2, mu = 0.5) whose normal coordinate, on
# a spring 10k, is pulled by a harmonic force 3 cos(w t): the total normal force p - 3 cos(w t) vanishes over 27 % of the
# period and the contact opens (the tangential coordinate then follows the mass, free), while the mass is driven by
# cos(w t). Checks:
# - the time stepping (leapfrog, velocity-level friction) closes the contact again after each opening: before
#   2026-11-27 a preloaded frictional contact that had opened stayed in the contact set and hovered at its open gap for
#   good (the normal coordinate frozen at 2.53e-3, a contact force acting across the gap). Over the last period of a 2 s
#   run the gap comes back below 1e-4 (velocity level: within one step's travel) with the total normal force up to
#   p + 3 = 5 plus the normal spring's force on that residual gap, and the energy identity closes to 2e-3 of its scale (8e-4 measured);
# - `vicms hb` (H = 20, N = 512) at 0.8 and 1.2 Hz against `vicms simulate` (leapfrog, 0.1 ms, 60 s, last 10 %): the
#   amplitude of the mass within 0.5 %, the contact open over part of the period on the branch.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

VICMS_SOURCE=$VICMS_SOURCE $py - <<'EOF2' || exit 1
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "scripts"))
from write_user_rom import springs, write_user_rom

k = 4 * np.pi ** 2
K = springs(3, [(0, None, 10 * k), (1, 2, 2 * k), (2, None, k)])  # n, t, x
M = np.diag([0, 0, 1.0])
D = np.diag([0, 0, 2 * 0.05 * 4 * np.pi])
write_user_rom("open.h5", K, M, D, contact_dims=[2], loads={"drive": [0, 0, 1.0], "press": [1.0, 0, 0]},
               outputs={"x": [0, 0, 1.0], "n": [1.0, 0, 0], "t": [0, 1.0, 0]}, massless=True, units="SI")
EOF2

case="-rom_file open.h5 -case_loads drive,press -load_drive_type harmonic -load_drive_amplitude 1 -load_press_type harmonic \
  -load_press_amplitude 3 -contact_gap 0 -contact_preload 2 -contact_mu 0.5"
must "vicms simulate, 2 s" mpi 60 1 simulate $case -load_drive_frequency 1 -load_press_frequency 1 -step_type leapfrog -step_dt 1e-3 \
  -step_end_time 2 -results_file run.h5
must "vicms hb" mpi 60 1 hb $case -load_drive_frequency 1 -load_press_frequency 1 -hb_freq_range 0.5,3 -hb_harmonics 20 -hb_samples 512 \
  -hb_max_freq_step 0.05 -hb_output x -results_file hb.h5
for fr in 0.8 1.2; do
  must "vicms simulate at $fr Hz" mpi 120 1 simulate $case -cases_values load_drive_frequency:$fr -load_press_frequency $fr -step_type leapfrog \
    -step_dt 1e-4 -step_end_time 60 -summary_steady_fraction 0.1 -summary_output x -cases_keep_series false -results_file ts$fr.h5
done
[ $fail -eq 0 ] || exit 1
$py - <<'EOF2' || fail=1
import sys

import h5py
import numpy as np

ok = True
def check(good, what):
    global ok
    print(("ok   " if good else "FAIL ") + what)
    ok = ok and good

c = h5py.File("run.h5", "r")["cases/0"]
t, gap, force, energy = c["t"][()], c["gaps"][:, 0], c["forces"][:, 0], c["energy"][()]
last = t >= 1.0
opened = gap[last].max()
closed = last & (force + 2 > 1e-9)
kn = 40 * np.pi ** 2  # the normal spring: a residual gap g adds kn g to the force that holds it
check(opened > 2e-3 and closed.any() and gap[closed].max() <= 1e-4 and abs((force[last] + 2).max() - 5 - kn * gap[closed].max()) <= 1e-3,
      f"the contact opens (gap up to {opened:.2e}) and closes again: gap at most {gap[closed].max():.1e} while it carries a force "
      f"(<= 1e-4), total normal force up to {(force[last] + 2).max():.4f} (p + 3 + kn g = {5 + kn * gap[closed].max():.4f}, within 1e-3)")
scale = np.abs(energy[:, :6]).max()
check(np.abs(energy[:, 6]).max() <= 2e-3 * scale, f"energy identity within {np.abs(energy[:, 6]).max() / scale:.1e} of its scale (<= 2e-3)")
g = h5py.File("hb.h5", "r")["summary/hb"]
f = g["frequency_hz"][()]
ix = g.attrs["outputs"].decode().split(",").index("x")
check(np.all(np.diff(f) > 0) and np.all(g["closed_fraction"][:, 0] < 1) and np.all(g["closed_fraction"][:, 0] > 0.5),
      f"the branch 0.5-3 Hz: the contact closed over {g['closed_fraction'][:, 0].min():.3f}-{g['closed_fraction'][:, 0].max():.3f} of the period")
for fr in ("0.8", "1.2"):
    fr_, at = h5py.File(f"ts{fr}.h5", "r")["summary/frf"][0]
    ah = np.interp(fr_, f, g["amplitude"][:, ix])
    err = abs(ah - at) / at
    check(err <= 5e-3, f"{fr_:.1f} Hz: harmonic balance {ah:.6f}, time stepping {at:.6f}, difference {100 * err:.3f} % (<= 0.5 %)")
sys.exit(0 if ok else 1)
EOF2
exit $fail
