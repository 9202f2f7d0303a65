#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, and runs every test with ctest (2 at a time).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$VICMS_BUILD"
ctest --output-on-failure --timeout 900 -j 2 "$@"
