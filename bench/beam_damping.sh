#!/usr/bin/env bash
# The damping study of docs/substructures.md ("How much damping hides the 10.5 kHz instability"): the beam-on-beam job
# reduced with stiffness-proportional damping b = each of B_VALUES (a = 12.6 1/s kept), the CEA at mu = 0.3 over 116
# positions (50-165 mm, 1 mm apart, 40 modes), and per b the unstable eigenvalues grouped by frequency (0.5 kHz bins):
# positions and largest real part. About 10 s per value of b on one rank.
# usage: bash bench/beam_damping.sh [BUILD_DIR] [MU]     (the table in docs/substructures.md is MU = 0.3)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
mu=${2:-0.3}
job=$root/jobs/beam_on_beam.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for b in 3.2e-7 2e-7 1.5e-7 1e-7 7e-8 5e-8 3e-8 0; do
  "$bin" reduce -options_file "$job" -body_beam1_cms_rayleigh "12.6,$b" -body_beam2_cms_rayleigh "12.6,$b" -rom_file "rom_$b.h5" \
    >reduce.log 2>&1 || { tail -20 reduce.log; exit 1; }
  "$bin" cea -options_file "$job" -cea_state undeformed -rom_file "rom_$b.h5" -coupling_mu "$mu" -cea_positions 116 -cea_range 50,165 -cea_modes 40 \
    -cea_frf_frequencies 0:20000:2 -cea_file "cea_$b.h5" >cea.log 2>&1 || { tail -20 cea.log; exit 1; }
done
$py - "$mu" cea_3.2e-7.h5 cea_2e-7.h5 cea_1.5e-7.h5 cea_1e-7.h5 cea_7e-8.h5 cea_5e-8.h5 cea_3e-8.h5 cea_0.h5 <<'EOF'
import sys

import h5py
import numpy as np

print(f"mu = {sys.argv[1]}")
print("| b [s] | unstable positions | per frequency (0.5 kHz bins): positions [mm], largest real part [1/s] |")
print("|---|---|---|")
for name in sys.argv[2:]:
    with h5py.File(name, "r") as f:
        s, freq, real = f["positions"][:, 0], f["frequency_hz"][()], f["real"][()]
    groups = {}
    for p, m in zip(*np.nonzero(real > 0)):
        g = groups.setdefault(round(freq[p, m] / 500) / 2, [set(), -np.inf])
        g[0].add(float(s[p]))
        g[1] = max(g[1], real[p, m])
    text = "; ".join(f"{k:.1f} kHz: {', '.join(f'{x:g}' for x in sorted(g[0]))} ({g[1]:.1f})" for k, g in sorted(groups.items()))
    print(f"| {name[4:-3]} | {int((real > 0).any(axis=1).sum())} of {len(s)} | {text or 'none'} |")
EOF
