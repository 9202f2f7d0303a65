#!/usr/bin/env bash
# Benchmark of a merge of an ensemble's finished cases into its results file (issue 24 item 10): the time of one merge
# that takes in NEW cases against the number of cases the file holds already, for this build and, when given, an
# older vicms (before the twin file: each merge copied the whole file byte for byte and rewrote every table).
# For each size N (MERGE_SIZES, default "1000 4000 16000 64000") a job of N + NEW tiny cases of the bouncing bar
# (-cases_keep_series false: the per-case tables and groups are the file, as in a UQ study of many cases) is run once to
# completion; then, from that file, a results file holding N cases with the NEW others in the journal (and, for this
# build, its twin one merge behind: lacking NEW more cases, as after a merge of NEW cases) is set up, and the same job is
# run again: it runs no case and merges once. Printed per size and build: the merge's time ("last merge X s", best of 3)
# and, for this build, what it wrote (-info: cases taken in, bytes byte-copied); then the same merge without a twin (a
# first merge after a crash: the twin is made anew by a byte copy of the results file).
# usage: bash bench/merge.sh [BUILD_DIR] [OLD_VICMS]   (MERGE_SIZES, MERGE_NEW=200, MERGE_KEEP=DIR keeps the files)
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
old=${2:-}
sizes=${MERGE_SIZES:-1000 4000 16000 64000}
new=${MERGE_NEW:-200}
if [ -n "${MERGE_KEEP:-}" ]; then
  mkdir -p "$MERGE_KEEP"
  work=$(cd "$MERGE_KEEP" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
cd "$work"
[ -f bar.h5 ] || "$bin" reduce -mesh_line_cells 20 -mesh_line_length 10 -model_young 900 -model_density 1 -cms_type cb_massless \
  -cms_contact_nodes 1 -cms_num_modes 4 -cms_gravity -10,0,0 -cms_outputs 1:x,21:x -rom_file bar.h5 >/dev/null

# setup FULL TOTAL TWIN: r.h5 = FULL without its last NEW cases, which go to the journal r.h5.cases/; with TWIN=1 also
# r.h5.twin = FULL without its last 2 NEW cases, one merge behind r.h5 (its "merge" attribute one less)
setup() {
  rm -rf r.h5 r.h5.cases r.h5.twin r.h5.lock
  cp "$1" r.h5
  $py - "$2" "$new" "$3" <<'PY'
import os, shutil, sys
import h5py
import numpy as np
total, new, twin = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
def drop(path, first):  # the cases from first on: pending, their groups gone
    with h5py.File(path, "r+") as f:
        st = f["cases/status"][()]
        st[first:] = 0
        f["cases/status"][...] = st
        q = f["cases/quantities"][()]
        q[first:] = np.nan
        f["cases/quantities"][...] = q
        for k in range(first, total):
            del f["cases/%d" % k]
        f.attrs["n_done"] = int((st == 1).sum())
if twin:
    shutil.copy("r.h5", "r.h5.twin")
os.mkdir("r.h5.cases")
with h5py.File("r.h5", "r") as f:
    for k in range(total - new, total):
        with h5py.File("r.h5.cases/%d.h5" % k, "w") as j:
            f.copy("cases/%d" % k, j, name="case")
drop("r.h5", total - new)
if twin:
    drop("r.h5.twin", total - 2 * new)
    with h5py.File("r.h5", "r+") as f, h5py.File("r.h5.twin", "r+") as t:
        gen = int(f.attrs.get("merge", 1))
        f.attrs["merge"] = gen
        t.attrs["merge"] = gen - 1
PY
}

job() { echo "-rom_file bar.h5 -case_loads gravity -step_dt 1e-3 -step_end_time 0.01 -cases_grid contact_gap:1:5:$1 -cases_keep_series false -cases_quiet"; }

# merge BIN TOTAL TWIN: the best "last merge" of three, and this build's -info line of the last run
merge() {
  local b=$1 total=$2 twin=$3 best="" line=""
  for rep in 1 2 3; do
    setup full$total.h5 "$total" "$twin"
    out=$("$b" simulate $(job "$total") -results_file r.h5 -info :sys 2>&1) || { echo "$out" | tail -5; exit 1; }
    grep -q "Running 0 of $total cases" <<<"$out" || { echo "the merge run ran cases:"; grep Running <<<"$out"; exit 1; }
    t=$(grep -oE "last merge [0-9.]+ s" <<<"$out" | grep -oE "[0-9.]+")
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
    line=$(grep -oE "merge [0-9]+: [0-9]+ cases merged before, .*" <<<"$out" | tail -1 || true)
  done
  echo "$best|$line"
}

printf '%-9s %-10s %-8s %-12s %s\n' "merged" "build" "twin" "merge [s]" "what it wrote (-info)"
for n in $sizes; do
  total=$((n + new))
  [ -f full$total.h5 ] || "$bin" simulate $(job "$total") -cases_merge_interval 1e6 -results_file full$total.h5 >/dev/null
  for twin in 1 0; do
    IFS='|' read -r t line <<<"$(merge "$bin" "$total" $twin)"
    printf '%-9s %-10s %-8s %-12s %s\n' "$n" "this" "$([ $twin = 1 ] && echo yes || echo none)" "$t" "$line"
  done
  if [ -n "$old" ]; then
    IFS='|' read -r t line <<<"$(merge "$old" "$total" 0)"
    printf '%-9s %-10s %-8s %-12s %s\n' "$n" "old" "-" "$t" "(a byte copy of the file, every table rewritten)"
  fi
done
