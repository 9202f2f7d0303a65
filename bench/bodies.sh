#!/usr/bin/env bash
# Benchmark of `vicms reduce -bodies`: the bodies one after the other on all ranks (-bodies_parallel sequential) against
# each body on a rank group of its own (groups), wall time of the reduction phase ("Reduced N bodies in T s": mesh sizes,
# meshes, models, Craig-Bampton reductions, gathering; not the file), REPS repetitions alternating the two modes, on NP
# ranks (and on 1 rank for reference). Cases: the beam-on-beam job (2 bodies); the same with finer meshes (2 bodies of 5k and 7k DOFs); 4 bodies (two
# copies of the fine pair); an unbalanced pair (14k DOFs and 0.5k DOFs, which the auto rule gives to sequential).
# usage: bash bench/bodies.sh [BUILD_DIR] [REPS] [NP]     (copy the table into bench/RESULTS.md with machine and date)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
reps=${2:-5}
np=${3:-2}
job=$root/jobs/beam_on_beam.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fine="-body_beam1_mesh_rect_cells 300,8 -body_beam2_mesh_rect_cells 400,8"
# beam3, beam4: copies of beam1, beam2 (the job's options under other names), 400 mm further along x
copies=$(sed -n 's/^body_beam\([12]\)_\([a-z_]*\): *\(.*\)$/-body_beam\1x_\2 \3/p' "$job" | sed 's/beam1x/beam3/g; s/beam2x/beam4/g' | tr '\n' ' ')
copies="$copies -body_beam3_mesh_rect_origin 450,10 -body_beam4_mesh_rect_origin 400,0 -body_beam3_mesh_rect_cells 300,8 -body_beam4_mesh_rect_cells 400,8"

case_row() { # case_row NAME ARGS...: REPS alternating runs of both modes; median, min-max, ratio
  local name=$1
  shift
  : >times.txt
  for r in $(seq "$reps"); do
    for mode in sequential groups one; do
      local n=$np
      [ $mode = one ] && n=1
      mpirun --oversubscribe -n "$n" "$bin" reduce -options_file "$job" -rom_file b.h5 -bodies_parallel ${mode/one/sequential} "$@" >log.txt 2>&1 || { tail -20 log.txt; exit 1; }
      echo "$r $mode $(sed -n 's/^Reduced [0-9]* bodies in \([0-9.]*\) s.*/\1/p' log.txt)" >>times.txt
      if [ $mode = groups ]; then grep -m1 "rank groups (load" log.txt | sed 's/.*(load \([0-9.]*\) times.*/\1/' >imbalance.txt; fi
    done
  done
  $py - "$name" "$np" "$(cat imbalance.txt)" <<'PY'
import sys, statistics as st
name, np, imb = sys.argv[1], sys.argv[2], sys.argv[3]
t = {"sequential": {}, "groups": {}, "one": {}}
for line in open("times.txt"):
    r, mode, s = line.split()
    t[mode][int(r)] = float(s)
seq, grp = [t["sequential"][r] for r in sorted(t["sequential"])], [t["groups"][r] for r in sorted(t["groups"])]
one = [t["one"][r] for r in sorted(t["one"])]
ratios = [a / b for a, b in zip(seq, grp)]
f = lambda v: "%.3f (%.3f–%.3f)" % (st.median(v), min(v), max(v))
print("| %s | %s | %s | %s | %s | %.2f (%.2f–%.2f) | %s |" % (name, np, imb, f(seq), f(grp), st.median(ratios), min(ratios), max(ratios), f(one)))
PY
}

echo "| case | ranks | group load / ideal | sequential [s], median (min–max) | groups [s], median (min–max) | sequential / groups, median of the runs' ratios (min–max) | 1 rank [s], median (min–max) |"
echo "|---|---|---|---|---|---|---|"
case_row "beam-on-beam job, 456 + 606 DOFs"
# shellcheck disable=SC2086
case_row "finer meshes, 5418 + 7218 DOFs" $fine
# shellcheck disable=SC2086
case_row "4 bodies, 2 x (5418 + 7218) DOFs" -bodies beam1,beam2,beam3,beam4 $fine $copies
case_row "unbalanced, 456 + 14418 DOFs" -body_beam2_mesh_rect_cells 800,8
