#!/usr/bin/env bash
# Robustness of the harmonic balance continuation over the dynamic Lagrangian parameter (issue 12; docs/hb.md, "The
# dynamic Lagrangian parameter"): one branch per eps_DL from 1e4 to 1e8 N/m on the coarse plate (hb_plate's case,
# 284-306 Hz) and the fine one (jobs/plate_hb.yaml, 250-320 Hz), each at H = 20 and 40 (N = 25.6 H), -hb_stability
# false, as a job of -cases_values over eps (one branch per case, on the ranks given). Prints per plate and H the
# frequencies where branches stopped ("Newton did not converge even with the smallest step": a corner of the sampled
# branch), and how many ran to the end. A minute or two on 2 cores.
# usage: bash bench/hb_eps.sh [BUILD_DIR] [RANKS]
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
np=${2:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
eps="1e4/2e4/5e4/1e5/2e5/5e5/1e6/2e6/5e6/1e7/2e7/5e7/1e8"
mpirun --oversubscribe -n "$np" "$bin" reduce -mesh_box_cells 4,8,40 -mesh_box_lengths 0.008,0.04,0.15 -model_young 184e9 \
  -model_poisson 0.33 -model_density 8220 -model_clamp zmin -cms_type macneal -cms_num_modes 20 -cms_contact_nodes 1841,1843,1845 \
  -cms_contact_dirs 1 -cms_contact_normal 1,0,0 -cms_damping_ratio 0.01 -cms_forces xmax_ymax_zmax:x:1 -cms_outputs 1845:x \
  -rom_file coarse.h5 >reduce_coarse.log 2>&1
mpirun --oversubscribe -n "$np" "$bin" reduce -options_file "$root/jobs/plate_sweep.yaml" -rom_file fine.h5 >reduce_fine.log 2>&1
coarse="-rom_file coarse.h5 -case_loads xmax_ymax_zmax -load_xmax_ymax_zmax_amplitude 1 -contact_gap 1e-4 -load_xmax_ymax_zmax_type harmonic
  -load_xmax_ymax_zmax_frequency 290 -hb_freq_range 284,306 -hb_max_freq_step 0.3 -hb_step_max 0.05"
fine="-options_file $root/jobs/plate_hb.yaml -rom_file fine.h5"
for plate in coarse fine; do
  for H in 20 40; do
    N=$((H * 256 / 10))
    s=$(date +%s.%N)
    mpirun --oversubscribe -n "$np" "$bin" hb ${!plate} -hb_harmonics $H -hb_samples $N -hb_stability false -cases_values hb_eps_dl:$eps \
      -cases_quiet -results_file ${plate}_$H.h5 >${plate}_$H.log 2>&1 || true
    e=$(date +%s.%N)
    $py - ${plate}_$H.h5 "$plate, H = $H, N = $N" "$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.1f", b - a}')" <<'EOF2'
import sys
import h5py
import numpy as np

f = h5py.File(sys.argv[1], "r")
eps = f["cases/parameters"][:, 0]
msg = [m.decode() if isinstance(m, bytes) else m for m in f["cases/message"][()]]
stops = [(e, m.split(" Hz")[0].split("at ")[-1]) for e, m in zip(eps, msg) if m]
print(f"{sys.argv[2]}: {len(eps) - len(stops)} of {len(eps)} branches to the end ({sys.argv[3]} s); stopped: "
      + (", ".join(f"eps {e:.0e} at {at} Hz" for e, at in stops) if stops else "none"))
EOF2
  done
done
