#!/usr/bin/env bash
# Harmonic balance of the plate of seed 000 §5.2 (issue 12, test 3) on the coarse mesh of tests/app/plate_frf.sh (4 x 8 x 40
# hex8, MacNeal ROM, 20 modes, three contact nodes at gap 0.1 mm, 1 N tip force): H = 20, N = 512 samples, 284 to 306 Hz.
# Checks: the branch bends to the right with two turning points and an overhang between them; the amplitudes where the
# contact is closed and the response unique (288, 290, 292 Hz, below the lower turning point) equal the steady states of
# `vicms simulate` (0.5 s from rest, 500 levels per period) within 1 %; the up sweep of the time stepping (+1.5 % per 100
# pseudo-periods) drops off the upper branch within 0.5 % of the upper turning point; the plot with the sweep overlaid is drawn.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

must "reduce the coarse plate" mpi 120 2 reduce -mesh_box_cells 4,8,40 -mesh_box_lengths 0.008,0.04,0.15 \
  -model_young 184e9 -model_poisson 0.33 -model_density 8220 -model_clamp zmin -cms_type macneal -cms_num_modes 20 \
  -cms_contact_nodes 1841,1843,1845 -cms_contact_dirs 1 -cms_contact_normal 1,0,0 -cms_damping_ratio 0.01 \
  -cms_forces xmax_ymax_zmax:x:1 -cms_outputs 1845:x -rom_file coarse.h5 || exit 1
case="-rom_file coarse.h5 -case_loads xmax_ymax_zmax -load_xmax_ymax_zmax_amplitude 1 -contact_gap 1e-4"
start=$(date +%s%N)
must "vicms hb" mpi 120 1 hb $case -load_xmax_ymax_zmax_type harmonic -load_xmax_ymax_zmax_frequency 290 -hb_freq_range 284,306 \
  -hb_harmonics 20 -hb_samples 512 -hb_eps_dl 1e6 -hb_max_freq_step 0.3 -hb_step_max 0.05 -results_file hb.h5 || exit 1
echo "ok   vicms hb: $(grep Wrote <<<"$LAST") ($((($(date +%s%N) - start) / 1000000)) ms with the start-up)"
dt=$($py -c "print(1 / (500 * 290))")
must "constant-frequency runs" mpi 120 2 simulate $case -load_xmax_ymax_zmax_type harmonic -step_type leapfrog -step_dt $dt \
  -step_end_time 0.5 -step_output_every 5 -cases_values load_xmax_ymax_zmax_frequency:288/290/292 -cases_keep_series false \
  -results_file grid.h5 -cases_quiet
must "sweep up" mpi 120 1 simulate $case -load_xmax_ymax_zmax_type sweep_log -load_xmax_ymax_zmax_sweep_percent 1.5 \
  -load_xmax_ymax_zmax_sweep_periods 100 -load_xmax_ymax_zmax_sweep_reference_frequency 290 -step_type leapfrog -step_dt $dt \
  -step_output_every 5 -cases_sweep xmax_ymax_zmax:284:306:up -cases_keep_series false -results_file sweep.h5 -cases_quiet
[ $fail -eq 0 ] || exit 1
$py - <<'EOF2' || fail=1
import sys
import h5py
import numpy as np

ok = True
g = h5py.File("hb.h5", "r")["summary/hb"]
f, a, kind = g["frequency_hz"][()], g["amplitude"][:, 0], g["kind"][()]
turn = np.nonzero(kind & 1)[0]
if len(turn) != 2 or not f[turn[0]] > f[turn[1]] or turn[1] - turn[0] < 10:
    print(f"FAIL turning points {f[turn]} Hz: expected two bending to the right, an overhang between"); sys.exit(1)
fu, fl = f[turn[0]], f[turn[1]]
print(f"ok   turning points at {fu:.3f} Hz and {fl:.3f} Hz, {turn[1] - turn[0] - 1} points on the overhang")
for fr, at in h5py.File("grid.h5", "r")["summary/frf"][()]:
    k = next(k for k in range(len(f) - 1) if f[k] <= fr <= f[k + 1])  # the first crossing: the only one below fl
    ah = a[k] + (fr - f[k]) / (f[k + 1] - f[k]) * (a[k + 1] - a[k])
    err = abs(ah - at) / at
    print(f"{'ok  ' if err <= 0.01 else 'FAIL'} {fr:.0f} Hz: harmonic balance {1e6 * ah:.3f} um, time stepping {1e6 * at:.3f} um, "
          f"difference {100 * err:.3f} % (<= 1 %)")
    ok = ok and err <= 0.01 and fr < fl
env = h5py.File("sweep.h5", "r")["summary/sweep_up"][()]
env = env[np.isfinite(env[:, 1])]
top = np.argmax(env[:, 1])
drop = top + np.argmax(env[top:, 1] < 0.75e-4)  # the envelope leaves the upper branch (about the gap) for the lower one
fj = env[drop, 0]
err = abs(fj - fu) / fu
print(f"{'ok  ' if err <= 5e-3 else 'FAIL'} the up sweep jumps at {fj:.3f} Hz, {100 * err:.3f} % from the upper turning point (<= 0.5 %)")
ok = ok and err <= 5e-3
sys.exit(0 if ok else 1)
EOF2
if must "plot" $py "$VICMS_SOURCE/scripts/plot_results.py" hb.h5 --kind hb --overlay sweep.h5 -o "$dir" && [ -s hb_hb.png ]; then
  echo "ok   hb_hb.png with the sweep overlaid, $(stat -c %s hb_hb.png) bytes"
else
  fail=1
fi
exit $fail
