#!/usr/bin/env bash
# `vicms run` resumes (issue 10, items 1 and 11): on a plate whose 2-rank reductions differ from run to run in the last
# bits (and, before issue 10's sign convention, in the signs of mode columns),
# (1) a 2-rank `vicms run` killed with SIGKILL mid-ensemble, rerun unchanged, reuses the ROM (same reduction: the file is
#     left byte for byte as it was), takes over the dead job's lock, and ends with results equal to an uninterrupted
#     `vicms simulate` on that ROM (every dataset and attribute but wall times and the options string);
# (2) the same job on 1 and 3 ranks, and with diagnostics (-no_signal_handler -log_view -malloc_debug -options_left ...)
#     is the same job: nothing is re-reduced, nothing re-run;
# (3) a job whose reduction differs (-cms_num_modes) is refused before any work, the ROM and results untouched; so is
#     a job whose case options differ;
# (4) a corrupt file in the journal is moved aside (<k>.h5.corrupt) and its case re-run; other files there (*.ckpt.h5,
#     *.tmp) are ignored;
# (5) `vicms info FILE | head -1` ends quietly (exit 0 or 141, nothing on stderr);
# (6) a mesh deck moved elsewhere is the same reduction and the same job; a change in a file it *INCLUDEs is another
#     reduction.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

plate="-mesh_box_cells 4,10,50 -mesh_box_lengths 0.008,0.04,0.15 -model_young 184e9 -model_poisson 0.33 -model_density 8220
  -model_clamp zmin -cms_type macneal -cms_num_modes 20 -cms_contact_set xmax_ymax_zmax -cms_contact_dirs 1 -cms_contact_normal 1,0,0
  -cms_damping_ratio 0.01 -cms_forces xmax_ymax_zmax:x:1 -cms_outputs 2805:x -rom_file rom.h5"
# cases of about half a second each (600,000 steps of a 23-coordinate ROM), so that the kill below comes mid-ensemble
cases="-case_loads xmax_ymax_zmax -load_xmax_ymax_zmax_type harmonic -load_xmax_ymax_zmax_amplitude 1 -contact_gap 1e-4 -step_dt 5e-6
  -step_end_time 3 -step_output_every 100 -cases_grid load_xmax_ymax_zmax_frequency:240:330:16 -cases_merge_interval 0.3"

# ---- (1) SIGKILL mid-ensemble, then the same `vicms run` again
mpirun --oversubscribe -n 2 "$VICMS_BIN" run $plate $cases -results_file res.h5 >killed.log 2>&1 &
launcher=$!
for _ in $(seq 1 4800); do # up to 4 minutes: the reduction before the cases took over 60 s on a machine at load 7
  sleep 0.05
  n=$(ls res.h5.cases 2>/dev/null | grep -c -E '^[0-9]+\.h5$')
  [ -f res.h5 ] && [ "$n" -ge 1 ] && break
done
kill -KILL $(pgrep -P $launcher) 2>/dev/null
kill -KILL $launcher 2>/dev/null
wait $launcher 2>/dev/null
if ! grep -q "Wrote rom.h5" killed.log || [ ! -f res.h5.lock ]; then
  echo "FAIL the first run did not reach its cases, or left no lock behind:"; tail -5 killed.log; fail=1
fi
sum_before=$(md5sum <rom.h5)
mtime_before=$(stat -c %Y rom.h5)
$py -c '
import h5py
with h5py.File("res.h5", "r") as f:
    st = f["cases/status"][()]
done = int((st == 1).sum())
ok = 0 < done < len(st)
print(("ok   " if ok else "FAIL ") + "the killed run holds %d of %d cases in res.h5 (expected some, not all)" % (done, len(st)))
raise SystemExit(0 if ok else 1)' || fail=1
sleep 1.1 # an overwritten ROM would show in its mtime
must "rerun after SIGKILL" mpi 300 2 run $plate $cases -results_file res.h5
for want in "Taking over the lock res.h5.lock of process" "Using the existing ROM rom.h5 (same reduction)"; do
  grep -qF "$want" <<<"$LAST" && echo "ok   the rerun says: $want" || { echo "FAIL the rerun does not say '$want':"; echo "$LAST" | head -5; fail=1; }
done
grep -q "Wrote rom.h5" <<<"$LAST" && { echo "FAIL the rerun reduced again"; fail=1; }
echo "     $(grep -oE "Running [0-9]+ of 16 cases.*" <<<"$LAST")"
if [ "$(md5sum <rom.h5)" = "$sum_before" ] && [ "$(stat -c %Y rom.h5)" = "$mtime_before" ]; then
  echo "ok   rom.h5 unchanged (checksum and mtime)"
else
  echo "FAIL rom.h5 was rewritten"; fail=1
fi
[ -e res.h5.lock ] && { echo "FAIL res.h5.lock is left after the job ended"; fail=1; }
must "uninterrupted simulate on the same ROM" mpi 300 2 simulate $plate $cases -results_file ref.h5 -cases_quiet
$py "$VICMS_SOURCE/tests/app/compare_results.py" ref.h5 res.h5 --min-objects 101 --label "rerun after SIGKILL" || fail=1

# ---- (2) the same job on 1 and 3 ranks, and with diagnostics
same_job() { # WHAT: the last output reused the ROM and ran no case
  if grep -q "Using the existing ROM rom.h5 (same reduction)" <<<"$LAST" && grep -q "Running 0 of 16 cases" <<<"$LAST"; then
    echo "ok   $1: the ROM reused, no case re-run"
  else
    echo "FAIL $1:"; echo "$LAST" | grep -v "^ " | head -4; fail=1
  fi
}
for np in 1 3; do
  must "np=$np, same job" mpi 300 $np run $plate $cases -results_file res.h5 && same_job "np=$np"
done
must "diagnostics" mpi 300 2 run $plate $cases -results_file res.h5 -no_signal_handler -log_view -malloc_debug -options_left 0 \
  -on_error_abort -cases_checkpoint_interval 5 -cms_eps_view && same_job "diagnostic options"
[ "$(md5sum <rom.h5)" = "$sum_before" ] || { echo "FAIL rom.h5 was rewritten by (2)"; fail=1; }

# ---- (3) another reduction, another job: refused before any work
sum_res=$(md5sum <res.h5)
out=$(mpi 120 2 run $plate -cms_num_modes 19 $cases -results_file res.h5 2>&1) && { echo "FAIL another reduction was accepted"; fail=1; }
if grep -qF "rom.h5 was made by another reduction ('-cms_num_modes 20' there, '-cms_num_modes 19' here) and res.h5 holds results computed on it" <<<"$out" &&
  ! grep -q "Mesh:" <<<"$out" && [ "$(md5sum <rom.h5)" = "$sum_before" ] && [ "$(md5sum <res.h5)" = "$sum_res" ] && [ ! -e res.h5.lock ]; then
  echo "ok   another reduction refused before any work, rom.h5 and res.h5 untouched"
else
  echo "FAIL another reduction:"; echo "$out" | head -5; fail=1
fi
out=$(mpi 120 2 run $plate $cases -step_dt 4e-6 -results_file res.h5 2>&1) && { echo "FAIL another job was accepted"; fail=1; }
if grep -qF "res.h5 holds the results of another job (its options differ: '-step_dt 5e-6" <<<"$out" && ! grep -q "Mesh:" <<<"$out"; then
  echo "ok   another job refused before any reduction"
else
  echo "FAIL another job:"; echo "$out" | head -5; fail=1
fi

# ---- (4) corrupt journal files
mkdir -p cor.h5.cases
head -c 3000 /dev/urandom >cor.h5.cases/2.h5
printf 'HDF' >cor.h5.cases/5.h5
echo junk >cor.h5.cases/7.ckpt.h5
echo junk >cor.h5.cases/1.h5.tmp
must "resume with corrupt journal files" mpi 300 2 simulate $plate $cases -results_file cor.h5 -cases_quiet
for k in 2 5; do
  if grep -q "Case $k: cor.h5.cases/$k.h5 is unreadable (.*); moved to cor.h5.cases/$k.h5.corrupt, the case runs again" <<<"$LAST"; then
    echo "ok   case $k: the corrupt journal file reported and moved aside"
  else
    echo "FAIL case $k:"; echo "$LAST" | head -5; fail=1
  fi
done
$py "$VICMS_SOURCE/tests/app/compare_results.py" ref.h5 cor.h5 --min-objects 101 --label "resumed with corrupt journal files" || fail=1

# ---- (5) a reader that stops early
for f in res.h5 rom.h5; do
  "$VICMS_BIN" info $f 2>info.err | head -1 >/dev/null
  rc=${PIPESTATUS[0]}
  if { [ $rc -eq 0 ] || [ $rc -eq 141 ]; } && [ ! -s info.err ]; then
    echo "ok   vicms info $f | head -1: exit $rc, nothing on stderr"
  else
    echo "FAIL vicms info $f | head -1: exit $rc, stderr:"; head -3 info.err; fail=1
  fi
done

# ---- (6) the mesh's content, not its path: meshes/beam_c3d20.inp *INCLUDEs beam_nodes.inp; node 621 is at the tip
mkdir a b
cp "$VICMS_SOURCE"/meshes/beam_c3d20.inp "$VICMS_SOURCE"/meshes/beam_nodes.inp a/
cp a/* b/
beam="-cms_type macneal -cms_num_modes 4 -cms_contact_nodes 621 -cms_outputs 621:x -rom_file beam.h5 -contact_gap 1 -step_dt 1e-6
  -step_end_time 1e-4 -results_file beam_res.h5 -cases_quiet"
must "beam from a/" mpi 120 2 run -mesh_file a/beam_c3d20.inp $beam
must "beam from b/" mpi 120 2 run -mesh_file b/beam_c3d20.inp $beam
grep -q "Using the existing ROM beam.h5 (same reduction)" <<<"$LAST" && grep -q "Running 0 of 1 cases" <<<"$LAST" &&
  echo "ok   the same deck elsewhere: the same reduction and the same job" || { echo "FAIL the deck moved:"; echo "$LAST" | head -3; fail=1; }
echo "** one more comment" >>b/beam_nodes.inp
out=$(mpi 120 2 run -mesh_file b/beam_c3d20.inp $beam 2>&1)
grep -q "beam.h5 was made by another reduction ('.*mesh_content=[0-9a-f]*' there, '.*mesh_content=[0-9a-f]*' here)" <<<"$out" &&
  echo "ok   a changed *INCLUDEd file: another reduction" || { echo "FAIL the included file changed:"; echo "$out" | head -3; fail=1; }

[ $fail -eq 0 ] && echo "resume: all checks passed"
exit $fail
