#!/usr/bin/env bash
# The README's main job: installs what is missing, builds, computes the modes of the bundled plate example on 2 ranks,
# prints a summary and writes plots to out/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
out="$VICMS_ROOT/out"
mkdir -p "$out"
cd "$out"
mpirun -n 2 "$VICMS_BUILD/vicms" modes -options_file "$VICMS_ROOT/jobs/plate_modes.yaml" "$@"
"$VICMS_PYTHON" "$VICMS_ROOT/scripts/plot_modes.py" plate_modes.h5 -o plate_modes.png
echo "Plot: $out/plate_modes.png   ParaView: $out/plate_modes.xmf"
