#!/usr/bin/env bash
# Shared set-up for the README commands: install missing Debian packages, configure and build vicms in ./build.
# Sourced by scripts/example.sh and scripts/test.sh.
set -euo pipefail

VICMS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VICMS_BUILD=${VICMS_BUILD:-$VICMS_ROOT/build}
# python3-paraview: ParaView's VTK with its XDMF3 reader, for tests/app/fields.sh (Debian's python3-vtk9 lacks that reader and
# conflicts with python3-paraview: installing both in one list fails).
# gmsh: the README's first model of one's own meshes with it, and tests/app/readme.sh and meshes.sh run those commands
# (without it they were skipped, and the README's own section went untested).
# libopenblas0-serial: Debian then routes libblas/liblapack to OpenBLAS, which makes the MUMPS factorizations several
# times faster than the reference BLAS (one thread per MPI rank).
VICMS_PACKAGES=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev petsc-dev slepc-dev libmumps-dev
  libhdf5-openmpi-dev libfftw3-dev libyaml-dev libptscotch-dev libopenblas0-serial python3-matplotlib python3-h5py python3-numpy python3-scipy
  python3-pytest python3-setuptools calculix-ccx python3-paraview gmsh)

vicms_install_packages() {
  local missing=()
  for p in "${VICMS_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "vicms: installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

vicms_build() {
  cmake -S "$VICMS_ROOT" -B "$VICMS_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$VICMS_BUILD.cmake.log" 2>&1 ||
    { cat "$VICMS_BUILD.cmake.log"; return 1; }
  cmake --build "$VICMS_BUILD" -j "$(nproc)"
}

# MPI as root in containers, more ranks than cores in tests
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# On a machine with Debian's munge installed (a SLURM node) but no munged listening, PMIx's munge security component
# retries the socket for 2.3 s at every MPI start (mpirun and singletons); local runs need only its native one.
export PMIX_MCA_psec="${PMIX_MCA_psec:-^munge}"
# the plots need Debian's python with matplotlib and h5py, not whatever python3 comes first on PATH
VICMS_PYTHON=/usr/bin/python3

vicms_install_packages
mkdir -p "$VICMS_BUILD"
vicms_build
