# Sourced by the benchmarks: `source "$(dirname "$0")/lib.sh" "${1:-}"` with the build directory as the argument.
# Sets root (the repository), bin (the vicms executable, an absolute path), shared (../shared or $VICMS_SHARED), deck
# (the Rotor 37 blade deck there), py (Debian's python, with h5py, numpy and matplotlib), and MPI's environment: as
# root, more ranks than cores, and no 2.3 s PMIx munge retry per start where munge is installed but not running.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(cd "${1:-$root/build}" && pwd)/vicms
shared=${VICMS_SHARED:-$root/../shared}
deck=$shared/data/rotor37/blade.inp
py=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_psec="${PMIX_MCA_psec:-^munge}"
