#!/usr/bin/env bash
# `vicms slide` as a job like `vicms simulate` and `vicms hb` (issue 24, items 1, 2, 3, 7, 12, 13, 14), on the coarse beams
# of slide.sh, C sliding at mu = 0.3 with the random force:
# (1) one job per history file: a second slide on a file a running slide holds stops at once naming the process, and the
#     first's history equals a lone run's bit for bit; a lock held by another live process (any command: hb, simulate)
#     refuses the run; the lock goes on every exit path;
# (2) what the file holds decides, before any step: the same run on its complete history has nothing to do (the file
#     unchanged); another run (-dual_mu) on it, or on a results file of another command (format vicms-results), is
#     refused naming the difference; -results_overwrite replaces it;
# (3) a run stopped by SIGTERM is resumed by a plain rerun of the same command (no -slide_resume), on 1 and 2 ranks, and
#     ends with the history of the uninterrupted run bit for bit; a different run on the stopped file is refused and
#     leaves its checkpoint; so is a checkpoint of the format an older vicms wrote (vicms-slide-checkpoint);
# (4) refused at the start with one line: a missing output folder (before the bodies are read), -slide_end_time 1000
#     (1e10 steps: more than a PetscInt counts), a noise band above the step's Nyquist frequency, -slide_noise_harmonics
#     2000000000 (48 GB of tables, estimated before allocating);
# (5) a contact solve that fails mid-run (-contact_max_it 1) ends the run with one line, no traceback, and the history of
#     the steps computed before it (complete = 0), their records equal to the same steps of a run without the limit;
# (6) a full disk at the end (a tmpfs filled while the run is held; needs root): exit 75, the last checkpoint kept, and
#     the rerun with room resumes and ends equal to the lone run; skipped without root;
# (7) -malloc_dump clean (the leak of VIDualSetMaster, 672 bytes);
# (8) slides as an ensemble (-cases_grid dual_mu:0.1:0.3:3) on 1, 2 and 3 ranks and one group of 3: each case's history
#     (cases/<k>/history) equal bit for bit to the single run of its mu; a grid stopped by SIGTERM and rerun (exit 75, then
#     resumed from the cases' checkpoints) equals the uninterrupted grid.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_need_h5py
vicms_workdir

small="-bodies beam1,beam2 -rom_file small.h5
  -body_beam1_mesh_rect_cells 20,2 -body_beam1_mesh_rect_lengths 75,5 -body_beam1_mesh_rect_thickness 10 -body_beam1_mesh_rect_origin 50,10
  -body_beam1_mesh_rect_angle 30 -body_beam1_model_young 70000 -body_beam1_model_poisson 0.33 -body_beam1_model_density 2.7e-9
  -body_beam1_cms_contact_set xmin_ymin,xmax -body_beam1_cms_num_modes 10 -body_beam1_cms_rayleigh 12.6,3.2e-7
  -body_beam1_cms_outputs 1:x,1:y,21:y,42:y,63:y
  -body_beam2_mesh_rect_cells 20,2 -body_beam2_mesh_rect_lengths 300,10 -body_beam2_mesh_rect_thickness 10 -body_beam2_model_young 2400
  -body_beam2_model_poisson 0.37 -body_beam2_model_density 1.2e-9 -body_beam2_model_clamp xmin -body_beam2_cms_contact_set ymax
  -body_beam2_cms_num_modes 10 -body_beam2_cms_rayleigh 12.6,3.2e-7 -body_beam2_cms_outputs 63:y"
# shellcheck disable=SC2086
must "reduce the coarse beams" mpi 120 2 reduce $small || exit 1
compare=$VICMS_SOURCE/tests/app/compare_results.py
host=$(hostname)
long="slide -rom_file small.h5 -slide_slave beam1:1 -slide_master beam2 -slide_drive beam1 -slide_drive_velocity 30 -slide_preload 0,-2
  -dual_dt 1e-7 -slide_noise_rms 0.01 -slide_noise_band 2000,8000 -slide_noise_harmonics 13 -slide_seed 7 -dual_mu 0.3
  -slide_end_time 0.01 -slide_record_interval 1e-5"
# shellcheck disable=SC2086
must "lone run" mpi 120 1 $long -slide_file lone.h5 || exit 1

# ---- (1) one job per history file
mpirun --oversubscribe -n 1 "$VICMS_BIN" $long -slide_file shared.h5 >first.log 2>&1 &
first=$!
for _ in $(seq 1 400); do
  sleep 0.05
  [ -s shared.h5.lock ] && break
done
pid=$(sed -n 's/^pid //p' shared.h5.lock)
ranks=$(pgrep -P $first)
[ -n "$ranks" ] && kill -STOP $ranks
# shellcheck disable=SC2086
out=$(mpi 120 2 $long -slide_file shared.h5 2>&1)
rc=$?
if [ $rc -ne 0 ] && kill -0 $first 2>/dev/null &&
  grep -q "vicms: error: shared.h5 is in use by another job: process $pid on this host ($host), since [0-9-]* [0-9:]* (.*slide.*)\. Wait for it to end, stop it, or choose another -slide_file" <<<"$out"; then
  echo "ok   a second slide on the file stops at once (exit $rc) while the first runs: $(grep -m1 -o 'shared.h5 is in use.*since [0-9-]* [0-9:]*' <<<"$out")"
else
  echo "FAIL the second slide (exit $rc):"; echo "$out" | tail -4; fail=1
fi
[ -n "$ranks" ] && kill -CONT $ranks
wait $first || { echo "FAIL the first slide failed:"; tail -5 first.log; fail=1; }
[ -e shared.h5.lock ] && { echo "FAIL shared.h5.lock is left after the first slide ended"; fail=1; }
must "the first slide = the lone run" $py "$compare" lone.h5 shared.h5 --min-objects 40 --label "the first of two slides on one file, against the lone run" &&
  echo "$LAST"
# a lock of another live process of this host, whatever its command (an hb job on the same file)
bash -c 'exec -a vicms-hb sleep 60' & # a live process that names itself vicms, as the lock's check wants
holder=$!
printf 'pid %s\nhost %s\nsince 1700000000\ncommand vicms hb -results_file held.h5\n' "$holder" "$host" >held.h5.lock
# shellcheck disable=SC2086
refuse "a file held by an hb job" "1 2" "held.h5 is in use by another job: process $holder on this host ($host), since .* (vicms hb -results_file held.h5)" \
  $long -slide_file held.h5
kill $holder 2>/dev/null
[ -f held.h5 ] && { echo "FAIL the refused slide wrote held.h5"; fail=1; }

# ---- (2) what the file holds decides
cp lone.h5 again.h5
sum=$(md5sum <again.h5)
# shellcheck disable=SC2086
must "the same run on its complete history" mpi 120 2 $long -slide_file again.h5
if grep -q "again.h5 holds this run, complete: nothing to do" <<<"$LAST" && ! grep -q "^Slide done" <<<"$LAST" && [ "$(md5sum <again.h5)" = "$sum" ]; then
  echo "ok   the same run on its complete history: nothing to do, the file unchanged"
else
  echo "FAIL the same run again:"; echo "$LAST" | tail -3; fail=1
fi
# shellcheck disable=SC2086
refuse "another run on a complete history" "1 2" "-slide_file: again.h5 holds the history of another run: -dual_mu is '0.3' in the history's run and '0.1' here; choose another -slide_file, or add -results_overwrite to replace it" \
  $long -dual_mu 0.1 -slide_file again.h5
$py -c 'import h5py; f = h5py.File("other.h5", "w"); f.attrs["format"] = "vicms-results"; f.create_dataset("cases/parameters", data=[[0.0]])'
# shellcheck disable=SC2086
refuse "a results file of another command" "1 2" "-slide_file: other.h5 is not the history of a slide (format 'vicms-results')" $long -slide_file other.h5
# shellcheck disable=SC2086
must "-results_overwrite" mpi 120 1 $long -dual_mu 0.1 -slide_end_time 2e-4 -slide_file again.h5 -results_overwrite &&
  $py -c 'import h5py, sys; f = h5py.File("again.h5", "r"); sys.exit(0 if f.attrs["mu"] == 0.1 and f.attrs["n_records"] == 20 else 1)' &&
  echo "ok   -results_overwrite replaces the history of another run"
[ "$(md5sum <again.h5)" = "$sum" ] && { echo "FAIL -results_overwrite did not replace again.h5"; fail=1; }

# ---- (3) stopped, then resumed by a plain rerun
for np in 1 2; do
  timeout 120 mpirun --oversubscribe -n $np "$VICMS_BIN" $long -slide_progress_interval 0.05 -slide_file stop$np.h5 >stop$np.log 2>&1 &
  job=$!
  for _ in $(seq 1 1200); do grep -q "^  t = " stop$np.log && break; sleep 0.05; done
  kill -TERM $(pgrep -P "$(pgrep -P $job | head -1)" -x vicms) 2>/dev/null
  wait $job
  rc=$?
  if [ $rc -ne 75 ] || [ ! -f stop$np.h5.ckpt ] || ! grep -q "rerun the same command to continue from the checkpoint stop$np.h5.ckpt" stop$np.log; then
    echo "FAIL SIGTERM np=$np: exit $rc (expected 75), checkpoint or message missing"; tail -3 stop$np.log; fail=1
  fi
  # shellcheck disable=SC2086
  refuse "another run on the stopped file" "$np" "-slide_file: the checkpoint stop$np.h5.ckpt is of another run: -slide_seed is '7' in the checkpoint's run and '8' here; rerun with its options to resume it" \
    $long -slide_seed 8 -slide_file stop$np.h5
  [ -f stop$np.h5.ckpt ] || { echo "FAIL the refused run removed the checkpoint"; fail=1; }
  # shellcheck disable=SC2086
  must "plain rerun np=$np" mpi 120 $np $long -slide_file stop$np.h5 && echo "$LAST" | grep -E "^Resumed"
  grep -q "^Resumed from stop$np.h5.ckpt at step" <<<"$LAST" || { echo "FAIL the rerun did not resume"; fail=1; }
  must "resumed = lone, np=$np" $py "$compare" lone.h5 stop$np.h5 --min-objects 40 --label "stopped by SIGTERM, resumed by a plain rerun on $np rank(s)" &&
    echo "$LAST"
  [ -f stop$np.h5.ckpt ] && { echo "FAIL the complete run left its checkpoint"; fail=1; }
done

# a checkpoint of the format an older vicms wrote (vicms-slide-checkpoint, before slide's loop became the common one) is
# refused in one line, on every rank, and left in place
$py -c 'import h5py; f = h5py.File("oldck.h5.ckpt", "w"); f.attrs["format"] = "vicms-slide-checkpoint"; f.close()'
# shellcheck disable=SC2086
refuse "a checkpoint of an older vicms" "1 2" "-slide_file: oldck.h5.ckpt is not a checkpoint of vicms slide (format 'vicms-slide-checkpoint', no group /slide; an older vicms wrote 'vicms-slide-checkpoint'): it cannot be resumed; add -results_overwrite to start afresh" \
  $long -slide_file oldck.h5
[ -f oldck.h5.ckpt ] || { echo "FAIL the refused run removed the older checkpoint"; fail=1; }

# ---- (4) refused at the start
short="${long/-slide_end_time 0.01/-slide_end_time 2e-3}"
# shellcheck disable=SC2086
refuse "a missing output folder" "1 2" "-slide_file: cannot write nodir/x.h5: its folder nodir does not exist; create it or choose another -slide_file" \
  $short -slide_file nodir/x.h5
# shellcheck disable=SC2086
out=$(mpi 60 1 $short -slide_file nodir/x.h5 2>&1)
grep -q "^Dual assembly\|^Transient" <<<"$out" && { echo "FAIL the missing folder was found after the set-up"; fail=1; }
# shellcheck disable=SC2086
refuse "-slide_end_time 1000" "1 2" "-slide_end_time: 1000. s is 1e+10 steps of 1e-07 s (1 slave node), more than 2147483647" $short -slide_end_time 1000 -slide_file big.h5
# shellcheck disable=SC2086
refuse "a band above Nyquist" "1 2" "-slide_noise_band: 2000.,6e+06 Hz reaches above the Nyquist frequency of the step, 1/(2 dt) = 5e+06 Hz (dt = 1e-07 s)" \
  $short -slide_noise_band 2000,6e6 -slide_file nyq.h5
# shellcheck disable=SC2086
refuse "2e9 harmonics" "1 2" "-slide_noise_harmonics: 2000000000 harmonics need 48 GB for their tables (3 x 8 bytes each), more than half of this machine's memory" \
  $short -slide_noise_harmonics 2000000000 -slide_file harm.h5
ls big.h5* nyq.h5* harm.h5* nodir >/dev/null 2>&1 && { echo "FAIL a refused run left a file"; fail=1; }

# ---- (5) a contact solve that fails mid-run
# shellcheck disable=SC2086
must "reference, 2 ms" mpi 120 1 $short -slide_record_interval 1e-6 -slide_file ref.h5
for np in 1 2; do
  # shellcheck disable=SC2086
  out=$(mpi 120 $np $short -slide_record_interval 1e-6 -contact_max_it 1 -slide_file cfail$np.h5 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 124 ] && ! grep -q "PETSC ERROR" <<<"$out" &&
    grep -q "^vicms: error: step [0-9]* (t = .* s) failed: Step [0-9]*: the contact solver did not converge in 1 iterations .*; cfail$np.h5 holds the [0-9]* records computed before it (complete = 0)" <<<"$out"; then
    echo "ok   a failed contact solve np=$np: $(grep -m1 '^vicms: error' <<<"$out" | cut -c1-200)"
  else
    echo "FAIL a failed contact solve np=$np (exit $rc):"; echo "$out" | tail -4; fail=1
  fi
done
must "the steps before the failure" $py -c '
import h5py, numpy as np, sys, re
ref = h5py.File("ref.h5", "r")
for name in ("cfail1.h5", "cfail2.h5"):
    f = h5py.File(name, "r")
    n = f.attrs["n_records"]
    step = int(re.search(r"step (\d+)", f.attrs["stopped_by"].decode() if isinstance(f.attrs["stopped_by"], bytes) else f.attrs["stopped_by"]).group(1))
    same = all(np.array_equal(f[k][()], ref[k][:n], equal_nan=True) for k in ("t", "outputs", "energy", "force", "contact/status", "contact/normal", "contact/position"))
    ok = f.attrs["complete"] == 0 and 0 < n < 2000 and n == (step - 1) // 10 and same
    print("%s %s: complete 0, %d records (the steps before %d), equal bit for bit to the reference run up to there: %s" % ("ok  " if ok else "FAIL", name, n, step, same))
    if not ok: sys.exit(1)' && echo "$LAST"

# ---- (6) a full disk at the end of the run
mkdir disk
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4m tmpfs disk 2>/dev/null; then
  trap 'umount "$dir/disk" 2>/dev/null; rm -rf "$dir"' EXIT
  timeout 120 mpirun --oversubscribe -n 2 "$VICMS_BIN" $long -slide_checkpoint_interval 0.05 -slide_file disk/full.h5 >full.log 2>&1 &
  job=$!
  for _ in $(seq 1 1200); do grep -q "^  checkpoint at" full.log && break; sleep 0.05; done
  ranks=$(pgrep -P "$(pgrep -P $job | head -1)" -x vicms)
  kill -STOP $ranks
  dd if=/dev/zero of=disk/filler bs=64k >/dev/null 2>&1
  kill -CONT $ranks
  wait $job
  rc=$?
  if [ $rc -eq 75 ] && [ -f disk/full.h5.ckpt ] && [ ! -f disk/full.h5 ] && ! grep -q "PETSC ERROR" full.log &&
    grep -q "vicms: the history could not be written (.*); the run's last checkpoint is kept, disk/full.h5.ckpt: rerun the same command" full.log; then
    echo "ok   a full disk at the end: exit 75, the last checkpoint kept: $(grep -m1 'could not be written' full.log | cut -c1-160)"
  else
    echo "FAIL a full disk (exit $rc):"; tail -4 full.log; fail=1
  fi
  rm -f disk/filler
  # shellcheck disable=SC2086
  must "rerun with room" mpi 120 2 $long -slide_file disk/full.h5 && echo "$LAST" | grep -E "^Resumed"
  must "after the full disk = lone" $py "$compare" lone.h5 disk/full.h5 --min-objects 40 --label "a full disk, then resumed with room" && echo "$LAST"
else
  echo "skipped (6): cannot mount a small tmpfs here (needs root)"
fi

# ---- (8) slides as an ensemble: a grid over mu on rank groups, each case's history under cases/<k>/history of the results
# file, equal bit for bit to the single run of its mu (every dataset and attribute but the options strings), on 1, 2 and 3
# ranks and on one group of 3; stopped by SIGTERM and rerun, equal to the uninterrupted grid
brief="${long/-slide_end_time 0.01/-slide_end_time 5e-4}"
for mu in 0.1 0.2 0.3; do
  # shellcheck disable=SC2086
  must "single mu=$mu" mpi 120 1 $brief -dual_mu $mu -slide_file single$mu.h5
done
for np in 1 2 3; do
  # shellcheck disable=SC2086
  must "grid np=$np" mpi 120 $np $brief -cases_grid dual_mu:0.1:0.3:3 -results_file grid$np.h5 && echo "$LAST" | grep -E "^3 cases"
done
# shellcheck disable=SC2086
must "grid, one group of 3" mpi 120 3 $brief -cases_grid dual_mu:0.1:0.3:3 -cases_group_size 3 -results_file grid3g.h5 &&
  echo "$LAST" | grep -E "^3 cases"
printf '%s\n' 'import h5py, numpy as np' \
  'def items(g):' \
  '    out, objs = {}, [("", g)]' \
  '    g.visititems(lambda k, o: objs.append((k, o)))' \
  '    for k, o in objs:' \
  '        if isinstance(o, h5py.Dataset): out[k] = o[()]' \
  '        for a, v in o.attrs.items(): out["%s@%s" % (k, a)] = v' \
  '    return out' \
  'def differ(a, b, skip):' \
  '    bad = sorted(set(a) ^ set(b))' \
  '    for k in set(a) & set(b):' \
  '        if k.endswith(skip): continue' \
  '        x, y = np.asarray(a[k]), np.asarray(b[k])' \
  '        if not (np.array_equal(x, y, equal_nan=True) if x.dtype.kind == "f" else np.array_equal(x, y)): bad.append(k)' \
  '    return bad' >items.py
must "grid against single runs" $py -c '
import h5py, sys
from items import items, differ
bad = 0
for name in ("grid1.h5", "grid2.h5", "grid3.h5", "grid3g.h5"):
    f = h5py.File(name, "r")
    kind = f.attrs["kind"]
    ok = (kind.decode() if isinstance(kind, bytes) else kind) == "slide" and list(f["cases/parameters"][:, 0]) == [0.1, 0.2, 0.3]
    for k, mu in enumerate(("0.1", "0.2", "0.3")):
        d = differ(items(h5py.File("single%s.h5" % mu, "r")), items(f["cases/%d/history" % k]), ("@options", "@job_options"))
        ok = ok and not d
        if d: print("  %s case %d differs from single%s.h5 in %s" % (name, k, mu, d[:4]))
    print("%s %s: kind slide, 3 cases (mu 0.1, 0.2, 0.3), each history equal bit for bit to the single run of its mu" % ("ok  " if ok else "FAIL", name))
    bad += not ok
sys.exit(1 if bad else 0)' && echo "$LAST"
lgrid="$long -cases_grid dual_mu:0.1:0.3:3"
# shellcheck disable=SC2086
must "grid, uninterrupted" mpi 120 2 $lgrid -results_file gfull.h5
timeout 120 mpirun --oversubscribe -n 2 "$VICMS_BIN" $lgrid -results_file gstop.h5 >gstop.log 2>&1 &
job=$!
for _ in $(seq 1 1200); do grep -q "^Running" gstop.log && break; sleep 0.05; done
sleep 0.5
kill -TERM $(pgrep -P "$(pgrep -P $job | head -1)" -x vicms) 2>/dev/null
wait $job
rc=$?
if [ $rc -ne 75 ] || ! grep -q "rerun the same command to resume" gstop.log; then
  echo "FAIL the stopped grid: exit $rc (expected 75)"; tail -3 gstop.log; fail=1
fi
# shellcheck disable=SC2086
must "grid rerun" mpi 120 2 $lgrid -results_file gstop.h5 && echo "$LAST" | grep -E "^Resumed|^Running"
must "stopped grid = uninterrupted" $py -c '
import h5py, sys
from items import items, differ
a, b = h5py.File("gfull.h5", "r"), h5py.File("gstop.h5", "r")
d = [(k, differ(items(a["cases/%d/history" % k]), items(b["cases/%d/history" % k]), ("@options",))) for k in range(3)]
ok = not any(x for _, x in d)
print("%s a grid stopped by SIGTERM and rerun: the 3 histories equal bit for bit to the uninterrupted grid%s" % ("ok  " if ok else "FAIL", "" if ok else ": %s" % d))
sys.exit(0 if ok else 1)' && echo "$LAST"

# ---- (7) no leak
# shellcheck disable=SC2086
must "malloc_dump" mpi 60 1 $short -slide_end_time 2e-5 -slide_file leak.h5 -malloc_debug -malloc_dump
if grep -q "bytes .* at " <<<"$LAST"; then
  echo "FAIL -malloc_dump reports memory left:"; grep "bytes" <<<"$LAST" | head -3; fail=1
else
  echo "ok   -malloc_dump clean"
fi
exit $fail
