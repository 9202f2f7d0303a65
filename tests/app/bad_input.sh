#!/usr/bin/env bash
# Bad input through the executable on 1, 2 and 3 ranks (the bad decks on 1 and 3): non-zero exit, no hang, a message naming the file and line
# (or the option). Each deck in tests/data/bad/ states the message it must produce on a line "** expect: REGEX".
set -u
fail=0
run() { # run NP EXPECT_REGEX ARGS...
  local np=$1 expect=$2
  shift 2
  local out rc
  out=$(timeout 120 mpirun --oversubscribe -n "$np" "$VICMS_BIN" modes -modes_write 0 "$@" 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "FAIL np=$np $*: exit status 0"; fail=1
  elif [ $rc -eq 124 ]; then
    echo "FAIL np=$np $*: hung (killed after 120 s)"; fail=1
  elif ! grep -Eq -- "$expect" <<<"$out"; then
    echo "FAIL np=$np $*: message does not match /$expect/:"; echo "$out" | head -5; fail=1
  else
    echo "ok   np=$np $(grep -E -m1 'vicms: error' <<<"$out")"
  fi
}
box="-model_young 1e5 -model_density 1 -mesh_box_cells 2,2,2"

# concurrently NAME NP...: the function NAME for each rank count at once (each vicms start waits mostly on MPI's start-up,
# not on the cores), each into its own log; then the logs in order, and any FAIL line fails the test
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
concurrently() {
  local fn=$1 np
  shift
  for np in "$@"; do "$fn" "$np" >"$logs/$fn.$np" 2>&1 & done
  wait
  for np in "$@"; do cat "$logs/$fn.$np"; done
  ! grep -q '^FAIL' "$logs/$fn".* || fail=1
}

# the decks on 1 rank and on 3 (more ranks than cores, uneven partitions); the options on 1, 2 and 3
decks() { # decks NP:HALF: every other deck, from the first (HALF 0) or the second (HALF 1)
  local np=${1%:*} half=${1#*:} i=0
  for f in "$VICMS_SOURCE"/tests/data/bad/*.inp; do
    i=$((i + 1))
    [ $((i % 2)) -eq "$half" ] || continue
    expect=$(sed -n 's/^\*\* expect: //p' "$f" | head -1)
    [ -n "$expect" ] || expect="$(basename "$f"):[0-9]+"
    run "$np" "$expect" -mesh_file "$f"
  done
}
options() {
  local np=$1
  run "$np" "no_such_file\.inp" -mesh_file "$VICMS_SOURCE/tests/data/no_such_file.inp"
  run "$np" "-mesh_file .*unknown format" -mesh_file "$VICMS_SOURCE/README.md"
  run "$np" "-model_young: got -1" $box -model_young -1
  run "$np" "-model_density: got 0" $box -model_density 0
  run "$np" "-model_poisson: got 0.5" $box -model_poisson 0.5
  run "$np" "-model_clamp: node set 'nowhere' is not in the mesh" $box -model_clamp nowhere
  run "$np" "-modes_num: 100 modes asked, but the model has only 54" $box -model_clamp zmin -modes_num 100
  # a shift on an eigenvalue (0 for this free box): K - sigma M is singular, said as such (MUMPS null pivots), not a MUMPS failure
  run "$np" "K - sigma M with sigma = 0\.? is singular \(null pivots in the factorization\).*another -modes_shift" $box -modes_shift 0
  run "$np" "No mesh given" -model_young 1
  run "$np" "no material from the mesh file" -mesh_box_cells 2,2,2
}
# ---- mesh readers (issue 10, items 7 and 11): Gmsh decks of tests/data/bad (no "** expect:" comment in a .msh, so
# the expected message is given here), and the notice of skipped step/output keywords printed once, not once per rank
readers() {
  local np=$1 out n
  run "$np" "repeated_node\.msh:14: element 2 lists node 3 twice" -mesh_file "$VICMS_SOURCE/tests/data/bad/repeated_node.msh"
  out=$(timeout 120 mpirun --oversubscribe -n "$np" "$VICMS_BIN" modes -modes_write 0 -modes_num 1 \
    -mesh_file "$VICMS_SOURCE/meshes/beam_c3d20.inp" 2>&1)
  n=$(grep -c 'skipped keywords that do not change the model' <<<"$out")
  if [ "$n" -ne 1 ] || ! grep -q 'beam_c3d20.inp: skipped keywords .*: \*STEP (line 184), \*FREQUENCY (line 185), \*END STEP (line 187)$' <<<"$out"; then
    echo "FAIL np=$np beam_c3d20.inp: expected one notice of *STEP, *FREQUENCY, *END STEP, got $n:"; echo "$out" | head -5
  else
    echo "ok   np=$np $(grep -m1 'skipped keywords' <<<"$out")"
  fi
}
concurrently decks 1:0 1:1 3:0 3:1
concurrently options 1 2 3
concurrently readers 1 2 3

[ $fail -eq 0 ] && echo "all bad inputs rejected cleanly"
exit $fail
