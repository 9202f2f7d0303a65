# Shared set-up of the application tests, sourced by tests/app/*.sh: unset variables are errors, a failure flag, Debian's
# python (the first python3 on PATH may lack h5py), a scratch working folder and helpers to run the executable.
set -u
fail=0
py=/usr/bin/python3

# vicms_need_h5py: skip the test (exit 77) when Debian's python has no h5py or numpy
vicms_need_h5py() {
  if ! $py -c 'import h5py, numpy' 2>/dev/null; then
    echo "skipped: $py has no h5py"
    exit 77
  fi
}

# vicms_need_scipy: skip the test (exit 77) when Debian's python has no h5py, numpy or scipy (compare_roms)
vicms_need_scipy() {
  vicms_need_h5py
  $py -c 'import scipy' 2>/dev/null || { echo "skipped: $py has no scipy"; exit 77; }
}

# vicms_workdir: a scratch folder, removed at exit, as the working directory (its path in $dir)
vicms_workdir() {
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  cd "$dir" || exit 1
}

# compare_roms WHAT A.h5 B.h5 ROM: tests/app/compare_roms.py (frequencies_hz within 1e-8 relative; with ROM=1 the ROMs' spectra)
compare_roms() {
  local out
  out=$($py "$VICMS_SOURCE/tests/app/compare_roms.py" "$2" "$3" "$4")
  if [ "${out%% *}" = ok ]; then echo "ok   $1: ${out#ok }"; else echo "FAIL $1: $out"; fail=1; fi
}

# mpi SECONDS NP ARGS... : the executable on NP ranks, killed after SECONDS
mpi() {
  local t=$1 np=$2
  shift 2
  timeout "$t" mpirun --oversubscribe -n "$np" "$VICMS_BIN" "$@"
}

# must WHAT COMMAND...: run; on a non-zero exit fail the test and show the output's tail; the output is kept in $LAST
must() {
  local what=$1 out rc
  shift
  out=$("$@" 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $what: exit status $rc (124 = hung):"
    echo "$out" | tail -15
    fail=1
  fi
  LAST="$out"
  return $rc
}

# refuse WHAT "RANKS" PATTERN ARGS...: vicms ARGS on each rank count of RANKS must exit non-zero (not hang) with a message
# matching PATTERN; the results files bad.r.h5* it may leave are removed
refuse() {
  local what=$1 ranks=$2 pat=$3 np out rc
  shift 3
  for np in $ranks; do
    out=$(mpi 60 "$np" "$@" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! echo "$out" | grep -q -- "$pat"; then
      echo "FAIL $what np=$np: exit $rc (124 = hung), expected a message with '$pat':"
      echo "$out" | tail -5
      fail=1
    else
      echo "ok   $what np=$np: $(echo "$out" | grep -m1 -- "$pat" | cut -c1-220)"
    fi
    rm -f bad.r.h5*
  done
}

# refuse_simulate WHAT "RANKS" PATTERN ARGS...: refuse with vicms simulate ARGS -results_file bad.r.h5
refuse_simulate() {
  local what=$1 ranks=$2 pat=$3
  shift 3
  refuse "$what" "$ranks" "$pat" simulate "$@" -results_file bad.r.h5
}

# wait_for SECONDS COMMAND...: poll until the command succeeds; fail after SECONDS
wait_for() {
  local t=$1
  shift
  for _ in $(seq 1 $((t * 20))); do
    "$@" && return 0
    sleep 0.05
  done
  return 1
}

# mpirun_of PID: the mpirun started by `timeout` PID; ranks_of PID: its vicms ranks (mpirun forks them on this host)
mpirun_of() { pgrep -P "$1" | head -1; }
ranks_of() { pgrep -P "$(mpirun_of "$1")" -x vicms; }

# stop_resume WHAT SIMULATE_ARGS...: vicms simulate ARGS on 1 rank to full.h5, then to stop.h5 stopped by SIGTERM at its
# first progress line (exit 75: resumable), rerun to the end: it must say it resumes case 0 from its checkpoint and end
# bitwise equal to full.h5 (tests/app/compare_results.py; wall times and the options string aside). The progress interval
# is a twentieth of the uninterrupted case's own stepping time (its cases/wall_time; 0.002 to 0.2 s), so that the signal
# comes well before the case's end however fast or loaded the machine (a tenth of the command's wall time, mpirun's start-up
# included, once let a 1.5 s pendulum end before the signal reached it).
stop_resume() {
  local what=$1 pid interval
  shift
  must "$what: uninterrupted" mpi 120 1 simulate "$@" -results_file full.h5
  interval=$($py -c "import h5py; d = float(h5py.File('full.h5', 'r')['cases/wall_time'][0]) / 20; print(min(max(d, 0.002), 0.2))")
  timeout 120 mpirun --oversubscribe -n 1 "$VICMS_BIN" simulate "$@" -results_file stop.h5 -cases_progress_interval "$interval" >stop.log 2>&1 &
  pid=$!
  if wait_for 60 grep -q "^  t = " stop.log; then
    kill -TERM $(ranks_of $pid)
    wait $pid
    expect "$what: exit status after SIGTERM mid-case (75: stopped, resumable)" $? 75
    must "$what: rerun" mpi 120 1 simulate "$@" -results_file stop.h5
    grep "resuming case 0 from t = " <<<"$LAST" || { echo "FAIL $what: the rerun did not resume from the checkpoint"; fail=1; }
    $py "$VICMS_SOURCE/tests/app/compare_results.py" full.h5 stop.h5 --all-done --label "$what resumed" || fail=1
  else
    echo "FAIL $what: no progress line"; cat stop.log; fail=1; kill $pid
  fi
}

# expect WHAT GOT WANTED
expect() {
  if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else echo "FAIL $1: got $2, expected $3"; fail=1; fi
}

# vicms_rank_wrapper: rank.sh, to run as `mpirun bash rank.sh ARGS`: vicms ARGS as one rank, its exit status kept in
# rc.<rank> (mpirun signals the wrapper's process group: the wrapper traps the signal and waits for vicms). vicms runs in
# the foreground of a subshell that traps the signals too: bash defers a trap until its foreground command ends, so the
# subshell always records vicms's own status. (The wrapper used to take it from `wait`, which a trapped signal
# interrupts: in one run of 4 the status read was -1.) The wrapper waits, in a loop, for the subshell to end.
vicms_rank_wrapper() {
  export OMPI_MCA_odls_base_sigkill_timeout=1 # mpirun's SIGTERM before its SIGKILL, as a user's mpirun has it
  cat >rank.sh <<'EOF2'
trap ':' USR1 TERM
rcfile=rc.$OMPI_COMM_WORLD_RANK
(
  trap ':' USR1 TERM
  "$VICMS_BIN" "$@"
  echo $? >"$rcfile"
) &
child=$!
while kill -0 $child 2>/dev/null; do
  wait $child
done
[ -s "$rcfile" ] && exit "$(cat "$rcfile")"
echo "rank.sh: vicms's exit status was not recorded" >&2
exit 1
EOF2
}

# refused NP EXPECT ARGS...: vicms ARGS on NP ranks exits non-zero within 120 s with exactly one line of output (mpirun -q
# adds none) containing EXPECT
refused() {
  local np=$1 expect=$2 out rc lines
  shift 2
  out=$(timeout 120 mpirun -q --oversubscribe -n "$np" "$VICMS_BIN" "$@" 2>&1)
  rc=$?
  lines=$(printf '%s\n' "$out" | grep -c .)
  if [ $rc -eq 0 ]; then
    echo "FAIL np=$np $*: exit status 0"; fail=1
  elif [ $rc -eq 124 ]; then
    echo "FAIL np=$np $*: hung (killed after 120 s)"; fail=1
  elif ! grep -Fq -- "$expect" <<<"$out"; then
    echo "FAIL np=$np $*: message does not contain '$expect':"; echo "$out" | head -5; fail=1
  elif [ "$lines" -ne 1 ]; then
    echo "FAIL np=$np $*: $lines lines of output, expected 1:"; echo "$out" | head -8; fail=1
  else
    echo "ok   np=$np $out"
  fi
}
