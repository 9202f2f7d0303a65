#!/usr/bin/env bash
# One-level substructuring (AMLS, bench/amls.c) against the direct (MUMPS) and iterative (CG + GAMG; Krylov-Schur or LOBPCG)
# paths of `vicms modes` on clamped hex8 boxes, the same machine and session, one run at a time (issue 26). Per model: the
# direct path first (its frequencies are the reference; 24 modes asked, the lowest 20 compared, so that a double eigenvalue at
# the 20th is not skipped), then the iterative path(s), then the prototype with the cutoffs as multiples of the direct f20.
# Wall time and peak resident memory of the largest rank (/usr/bin/time on mpirun: the largest of the waited-for ranks), the
# load average before each run, the relative errors of f1 and f20 and the largest over the 20 against the direct path.
# Each run is stopped after ${AMLS_TIMEOUT:-300} s. Runs under nice -n 19.
# usage: bash bench/amls.sh [BUILD_DIR] ["nx,ny,nz ..."] [NP] ["cutoffs"] ["iterative paths: ks lobpcg, or none"]
set -uo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
amls=$(dirname "$bin")/vicms_amls_bench
sizes=${2:-"12,12,60"}
np=${3:-2}
cutoffs=${4:-"2,5,10"}
iters=${5:-"ks lobpcg"}
tmo=${AMLS_TIMEOUT:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mat="-model_young 210e9 -model_poisson 0.3 -model_density 7800 -model_clamp zmin"

timed() { # timed LOG CMD...: wall time into wall.txt, peak RSS [kB] into mem.txt, exit status returned
  local log=$1 t0 t1 rc
  shift
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o mem.txt timeout "$tmo" nice -n 19 mpirun --oversubscribe -n "$np" "$@" >"$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc >wall.txt
  return $rc
}

freqs() { # freqs FILE.h5: the lowest 20 frequencies, comma-separated
  $py -c "import h5py,sys; f=h5py.File(sys.argv[1],'r')['frequencies_hz'][:20]; print(','.join('%.15e'%x for x in f))" "$1"
}

row() { # row PATH LOADAVG FREQS [NOTE]: a table row against the reference ref.txt
  $py - "$cells" "$ndof" "$1" "$2" "$(cat wall.txt)" "$(tail -1 mem.txt)" "$3" "$(cat ref.txt)" "${4:-}" <<'PY'
import sys
cells, ndof, path, load, wall, mem, f, ref, note = sys.argv[1:]
f = [float(x) for x in f.split(',')]
r = [float(x) for x in ref.split(',')]
e = [abs(a - b) / b for a, b in zip(f, r)]
print('| %s | %s | %s | %s | %.1f | %.0f | %.1e | %.1e | %.1e | %s |' % (cells, ndof, path, load, float(wall), int(mem) / 1024, e[0], e[-1], max(e), note))
PY
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "| box cells | DOFs | path | load avg before (1, 5, 15 min) | wall [s] | peak RSS, largest rank [MiB] | rel. err. f1 | rel. err. f20 | max rel. err. (20) | notes |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for cells in $sizes; do
  IFS=, read -r nx ny nz <<<"$cells"
  ndof=$(((nx + 1) * (ny + 1) * nz * 3))
  box="-mesh_box_cells $cells -mesh_box_lengths $(echo "0.005*$nx" | bc),$(echo "0.005*$ny" | bc),$(echo "0.005*$nz" | bc) $mat"
  l=$(load)
  if ! timed direct.log "$bin" modes $box -modes_num 24 -modes_file direct.h5; then
    echo "| $cells | $ndof | direct | $l | failed or stopped after $tmo s | | | | | $(grep -m1 -i error direct.log | cut -c1-100) |"
    continue
  fi
  freqs direct.h5 >ref.txt
  row "modes, direct (MUMPS)" "$l" "$(cat ref.txt)" "f1 = $(cut -d, -f1 ref.txt | xargs printf '%.2f') Hz, f20 = $(cut -d, -f20 ref.txt | xargs printf '%.2f') Hz"
  fmax=$(cut -d, -f20 ref.txt)
  for it in $iters; do
    [ "$it" = none ] && continue
    l=$(load)
    opt="-modes_solver iterative"
    [ "$it" = lobpcg ] && opt="$opt -modes_eps_type lobpcg"
    name="modes, iterative ($([ "$it" = lobpcg ] && echo LOBPCG || echo Krylov-Schur))"
    if timed it.log "$bin" modes $box -modes_num 24 $opt -modes_file it.h5; then
      row "$name" "$l" "$(freqs it.h5)"
    else
      echo "| $cells | $ndof | $name | $l | stopped after $tmo s or failed | | | | | |"
    fi
  done
  l=$(load)
  if timed amls.log "$amls" $box -amls_nev 20 -amls_fmax "$fmax" -amls_cutoffs "$cutoffs" -amls_reference "$(cat ref.txt)"; then
    info=$(grep -m1 "AMLS_RESULT dofs" amls.log)
    phases=$(grep "AMLS_RESULT phase=" amls.log | sed 's/AMLS_RESULT phase=//; s/ time=/: /; s/ peak_mib=/ s, /; s/$/ MiB/' | paste -sd';' | sed 's/;/; /g')
    for c in ${cutoffs//,/ }; do
      cl=$(grep "AMLS_RESULT cutoff=$c\(\.\| \)[^e]*local_modes" amls.log | head -1)
      fr=$(grep "AMLS_FREQ cutoff=$c\(\.\)\? " amls.log | sed 's/.* f=//' | paste -sd,)
      row "AMLS, cutoff $c f20" "$l" "$fr" "local modes $(echo "$cl" | sed 's/.*local_modes=\([0-9]*\).*/\1/'), reduced $(echo "$cl" | sed 's/.*reduced=\([0-9]*\).*/\1/'), reduced solve $(echo "$cl" | sed 's/.*reduced_solve=\([0-9.]*\).*/\1/') s"
    done
    echo "|  |  | AMLS: $(echo "$info" | sed 's/AMLS_RESULT //') |  |  |  |  |  |  | phases (largest rank, peak so far): $phases |"
  else
    echo "| $cells | $ndof | AMLS | $l | stopped after $tmo s or failed | | | | | $(grep -m1 "AMLS_RESULT phase=" amls.log | cut -c1-80) $(grep -m1 -i error amls.log | cut -c1-100) |"
    grep "phase " amls.log | sed 's/^/    /'
  fi
done
