#!/usr/bin/env bash
# The incremental merge of an ensemble's finished cases into its results file (a byte copy of the file, only the new
# cases through HDF5, the tables and summaries written over in place), on the bouncing-bar ROM: 36 cases (6 load
# frequencies x 3 time steps, the largest unstable, x 2 sampled friction coefficients), so the file holds done and
# failed cases, statistics, histograms and a frequency response.
# (1) merged after each case (-cases_merge_interval 0: 36 merges) on 1, 2 and 3 ranks, the results file equals that of
#     one merge at the end (compare_results.py, wall times aside), and is at most 1.5 times its size (measured 1.02);
# (1b) without the series (-cases_keep_series false: the tables and summaries are most of the file) the 36 merges add
#     at most 3 kB per merge to the one-merge file (measured 2.2 kB: what HDF5 leaves unused at the close of each
#     session). Tables or summaries deleted and written anew at each merge, whose space HDF5 does not reclaim in later
#     sessions, would add their size at every merge (here 25 kB for the statistics and histograms);
# (2) a kill between a merge's rename and the removal of its journal files leaves a case in both: the same job again
#     merges without copying it twice, removes the journal and ends equal to the one-merge file.
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

[ $fail -eq 0 ] && echo "merge: all checks passed"
exit $fail
