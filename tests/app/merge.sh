#!/usr/bin/env bash
# The incremental merge of an ensemble's finished cases into its results file (through its twin, one merge behind: the new
# cases and those of the merge before through HDF5, the rows of the tables and the summaries written over in place, then
# a rename), on the bouncing-bar ROM: 36 cases (6 load
# frequencies x 3 time steps, the largest unstable, x 2 sampled friction coefficients), so the file holds done and
# failed cases, statistics, histograms and a frequency response.
# (1) merged after each case (-cases_merge_interval 0: 36 merges) on 1, 2 and 3 ranks, the results file equals that of
#     one merge at the end (compare_results.py, wall times aside), and is at most 1.5 times its size (measured 1.02);
# (1b) without the series (-cases_keep_series false: the tables and summaries are most of the file) the 36 merges add
#     at most 3 kB per merge to the one-merge file (measured 2.2 kB: what HDF5 leaves unused at the close of each
#     session). Tables or summaries deleted and written anew at each merge, whose space HDF5 does not reclaim in later
#     sessions, would add their size at every merge (here 25 kB for the statistics and histograms);
# (2) a kill between a merge's rename and the removal of its journal files leaves a case in both: the same job again
#     merges without copying it twice, removes the journal and ends equal to the one-merge file;
# (3) what a merge writes does not grow with the cases merged before (issue 24 item 10; times in bench/merge.sh).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

must "bar reduce" mpi 120 1 reduce -mesh_line_cells 200 -mesh_line_length 10 -model_young 900 -model_density 1 -cms_type cb_massless \
  -cms_contact_nodes 1 -cms_num_modes 20 -cms_gravity -10,0,0 -cms_outputs 1:x,201:x -rom_file bar.h5 || exit 1
# the massless bar is stable up to dt ~ 2/omega_max = 0.011: dt 0.05 fails
job="-rom_file bar.h5 -case_loads gravity -load_gravity_type harmonic -load_gravity_amplitude 1 -contact_gap 0.5 -step_end_time 3
  -step_output_every 20 -cases_values load_gravity_frequency:0.5/1/1.5/2/2.5/3,step_dt:1e-3/2e-3/5e-2
  -cases_random contact_mu:uniform:0:0.1 -cases_samples 2 -cases_seed 3 -cases_quiet"

# merges NAME: the count of merges that `vicms simulate` reported in $LAST
merges() {
  grep -oE "last merge [0-9.]+ s \([0-9]+ merges?" <<<"$LAST" | grep -oE "[0-9]+ merges?$" | grep -oE "[0-9]+"
}

must "one merge at the end" mpi 120 2 simulate $job -cases_merge_interval 1e6 -results_file one.h5 || exit 1
n=$(merges)
[ "$n" = 1 ] && echo "ok   one.h5: 1 merge" || { echo "FAIL one.h5: $n merges, expected 1"; fail=1; }

# ---- (1) a merge after each case
for np in 1 2 3; do
  must "np=$np, a merge after each case" mpi 120 $np simulate $job -cases_merge_interval 0 -results_file each$np.h5 || continue
  n=$(merges)
  [ "$n" = 36 ] && echo "ok   each$np.h5: $n merges" || { echo "FAIL each$np.h5: $n merges, expected 36 (one per case)"; fail=1; }
  $py "$VICMS_SOURCE/tests/app/compare_results.py" one.h5 each$np.h5 --min-objects 900 --label "np=$np, 36 merges" || fail=1
  $py - one.h5 each$np.h5 <<'EOF' || fail=1
import os, sys
import h5py
a, b = os.path.getsize(sys.argv[1]), os.path.getsize(sys.argv[2])
with h5py.File(sys.argv[2], "r") as f:
    st = list(f["cases/status"][()])
    have = sorted(f["summary"])
ok = b <= 1.5 * a and st.count(1) == 24 and st.count(2) == 12 and have == ["frf", "histograms", "statistics"]
print(("ok   " if ok else "FAIL ") + "%s: %d bytes, %.3f times the one-merge file's %d (expected at most 1.5); %d done, %d failed (expected 24, 12); summaries %s"
      % (sys.argv[2], b, b / a, a, st.count(1), st.count(2), ", ".join(have)))
raise SystemExit(0 if ok else 1)
EOF
done

# ---- (1b) the tables and summaries written over in place: the file grows by a few kB per merge, not by their size
must "no series, one merge" mpi 120 2 simulate $job -cases_keep_series false -cases_merge_interval 1e6 -results_file one_q.h5 &&
  must "no series, a merge after each case" mpi 120 2 simulate $job -cases_keep_series false -cases_merge_interval 0 -results_file each_q.h5 &&
  $py "$VICMS_SOURCE/tests/app/compare_results.py" one_q.h5 each_q.h5 --min-objects 500 --label "no series, 36 merges" &&
  $py - one_q.h5 each_q.h5 <<'EOF' || fail=1
import os, sys
a, b = os.path.getsize(sys.argv[1]), os.path.getsize(sys.argv[2])
ok = b - a <= 36 * 3000
print(("ok   " if ok else "FAIL ") + "%s: %d bytes, %d more than the one-merge file's %d: %.0f bytes per merge (expected at most 3000)" % (sys.argv[2], b, b - a, a, (b - a) / 36))
raise SystemExit(0 if ok else 1)
EOF

# ---- (2) a case both in the results file and in the journal (a kill after the rename, before the journal's removal)
cp each2.h5 both.h5
mkdir both.h5.cases
$py - <<'EOF' || fail=1
import h5py
with h5py.File("both.h5", "r") as f, h5py.File("both.h5.cases/7.h5", "w") as j:
    f.copy("cases/7", j, name="case")  # a journal file: the case's group as its runner wrote it
print("ok   both.h5.cases/7.h5 holds case 7 of both.h5 again")
EOF
must "the same job again" mpi 120 2 simulate $job -results_file both.h5 || exit 1
grep -qE "Running 0 of 36 cases" <<<"$LAST" || { echo "FAIL the job ran cases again:"; grep -m1 Running <<<"$LAST"; fail=1; }
[ ! -e both.h5.cases ] && echo "ok   the journal is removed" || { echo "FAIL both.h5.cases is left: $(ls both.h5.cases)"; fail=1; }
$py "$VICMS_SOURCE/tests/app/compare_results.py" one.h5 both.h5 --min-objects 900 --label "case 7 in the file and the journal" || fail=1

# ---- (3) merges at any size (issue 24 item 10): 1000 tiny cases on 2 ranks, a merge after each (-cases_merge_interval
# 0), stopped twice (SIGUSR1) and resumed. What each merge writes (its -info line) must not grow with the cases merged
# before: no byte copy of the results file, and from the results file only the cases of the merge before (the twin's
# lag), so a merge takes in its own new cases and the previous merge's, however many the file holds. A run resumed after
# a clean stop uses the twin the stop left. A reader holding the twin open (a results file of two merges ago, still open
# in h5py) keeps it unchanged: the resumed run makes the twin anew when it starts (the one byte copy). The results equal
# one merge at the end.
big="-rom_file bar.h5 -case_loads gravity -step_dt 1e-3 -step_end_time 0.01 -cases_grid contact_gap:1:5:1000 -cases_keep_series false
  -cases_quiet"
must "1000 cases, one merge" mpi 300 2 simulate $big -cases_merge_interval 1e6 -results_file big1.h5
# big_run NAME UNTIL ARGS...: the job with -info on 2 ranks into NAME.log; SIGUSR1 to mpirun once merge UNTIL is logged
# (UNTIL empty: run to the end); its exit status in $rc
big_run() {
  local name=$1 until=$2 pid
  shift 2
  timeout 300 mpirun --oversubscribe -n 2 "$VICMS_BIN" simulate $big -cases_merge_interval 0 -results_file bigm.h5 -info :sys "$@" >$name.log 2>&1 &
  pid=$!
  if [ -n "$until" ]; then
    wait_for 200 grep -q "merge $until: " $name.log || { echo "FAIL $name: no merge $until"; tail -3 $name.log; fail=1; }
    kill -USR1 "$(mpirun_of $pid)"
  fi
  wait $pid
  rc=$?
}
big_run stop1 150
expect "stopped after 150 merges: exit status" $rc 75
# a reader opens the twin (the published file of the merge before the last) and holds it while the job resumes
$py - <<'EOF' &
import os, time
import h5py
with h5py.File("bigm.h5.twin", "r") as f:
    before = f["cases/status"][()].copy()
    open("reader.ready", "w").close()
    while not os.path.exists("reader.go"):
        time.sleep(0.05)
    same = (f["cases/status"][()] == before).all()
print(("ok   " if same else "FAIL ") + "a reader holding the twin open reads it unchanged (%d cases done in it) while the job merged on" % (before == 1).sum())
raise SystemExit(0 if same else 1)
EOF
reader=$!
wait_for 30 test -f reader.ready || { echo "FAIL the reader did not open the twin"; fail=1; }
big_run stop2 350
touch reader.go
wait $reader || fail=1
expect "stopped again: exit status" $rc 75
big_run rest ""
expect "resumed to the end: exit status" $rc 0
$py - stop1.log stop2.log rest.log <<'EOF' || fail=1
import re, sys
pat = re.compile(r"merge (\d+): (\d+) cases merged before, (\d+) new \((\d+) bytes of journal\), (\d+) from the merge before, (\d+) bytes byte-copied")
bad = 0
for name in sys.argv[1:]:
    m = [tuple(int(x) for x in g.groups()) for g in map(pat.search, open(name)) if g]
    copied = [x[5] for x in m]
    # a run resumed after a clean stop uses the twin the stop left; the twin open in the reader is made anew, once, when
    # the run starts (before any case is handed out)
    anew = [int(g.group(1)) for g in map(re.compile(r"the twin bigm.h5.twin made anew: (\d+) bytes byte-copied").search, open(name)) if g]
    lag_ok = all(m[i][4] == m[i - 1][2] for i in range(1, len(m)))
    per = [x[2] + x[4] for x in m]
    ok = len(m) > 10 and lag_ok and max(x[2] for x in m) <= 4 and max(per) <= 8 and sum(copied) == 0
    ok = ok and (len(anew) == 1 and anew[0] > 0 if name == "stop2.log" else not anew)
    print(("ok   " if ok else "FAIL ") + "%s: %d merges with %d to %d cases merged before: each takes in %d to %d cases (its new ones and those of the merge before: %s), bytes byte-copied by merges %d, at the start %s"
          % (name, len(m), m[0][1] if m else 0, m[-1][1] if m else 0, min(per) if m else 0, max(per) if m else 0, "always" if lag_ok else "NOT always",
             sum(copied), "%s (the twin the reader holds made anew)" % anew if anew else "none"))
    bad |= not ok
raise SystemExit(bad)
EOF
[ ! -e bigm.h5.twin ] && [ ! -e bigm.h5.cases ] && echo "ok   the complete job leaves no twin and no journal" || { echo "FAIL twin or journal left"; ls bigm.h5*; fail=1; }
$py "$VICMS_SOURCE/tests/app/compare_results.py" big1.h5 bigm.h5 --min-objects 2000 --all-done --label "1000 cases, merged after each, stopped twice" || fail=1

[ $fail -eq 0 ] && echo "merge: all checks passed"
exit $fail
