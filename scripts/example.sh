#!/usr/bin/env bash
# The README's main job: installs what is missing, builds, reduces the bundled plate example and runs a 32-case
# frequency sweep on it on 2 ranks (jobs/plate_sweep.yaml), prints a summary and writes plots to out/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
out="$VICMS_ROOT/out"
mkdir -p "$out"
cd "$out"
mpirun -n 2 "$VICMS_BUILD/vicms" run -options_file "$VICMS_ROOT/jobs/plate_sweep.yaml" -results_overwrite "$@"
# the frequency response, and the time histories of the first case and of the case at the peak (280.6 Hz)
"$VICMS_PYTHON" "$VICMS_ROOT/scripts/plot_results.py" plate_sweep.h5 -o "$out" --case 0 14
