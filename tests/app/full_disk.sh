#!/usr/bin/env bash
# A full disk (issue 10, item 10), on small tmpfs file systems (needs root and mount; skipped otherwise), with the
# bouncing-bar ROM: each finished case takes ~1.4 MB.
# (1) 600 kB: no case fits -> "no space left on device while writing .../K.h5.part", exit non-zero, no crash, no
#     part-written file or lock left;
# (2) 2.5 MB: one case fits, not its merge; 4 MB: the first merge fits, not the second (on 2 ranks, 4 and 6 MB) -> the
#     message names the file and the space; the results file and the journal's cases are kept, readable, as they were;
# (3) the disk grown, the same job again resumes and ends equal to a run on a roomy disk (wall times aside).
# On 1 and 2 ranks.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py
mkdir disk
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=600k tmpfs disk 2>/dev/null; then
  echo "skipped: cannot mount a small tmpfs here (needs root)"
  exit 77
fi
trap 'umount "$dir/disk" 2>/dev/null; rm -rf "$dir"' EXIT

must "bar reduce" mpi 120 1 reduce -mesh_line_cells 200 -mesh_line_length 10 -model_young 900 -model_density 1 -cms_type cb_massless \
  -cms_contact_nodes 1 -cms_num_modes 20 -cms_gravity -10,0,0 -cms_outputs 1:x,201:x -rom_file bar.h5 || exit 1
job="-rom_file bar.h5 -case_loads gravity -step_dt 1e-4 -step_end_time 3 -step_output_every 2 -cases_grid contact_gap:1:5:6
  -cases_merge_interval 0 -cases_quiet"
must "roomy disk" mpi 300 2 simulate $job -results_file roomy.h5

crashed() { # and say how
  grep -m2 -E "PETSC ERROR|Caught signal|Segmentation|MPI_ABORT|exited on signal" <<<"$1"
}

for np in 1 2; do
  # ---- (1) nothing fits
  umount disk && mount -t tmpfs -o size=600k tmpfs disk
  out=$(mpi 120 $np simulate $job -results_file disk/r.h5 2>&1) && { echo "FAIL np=$np: exit 0 on a full disk"; fail=1; }
  left=$(ls disk disk/r.h5.cases 2>/dev/null | grep -E "part|lock")
  if grep -qE "vicms: error: no space left on device while writing disk/r.h5.cases/[0-9]+.h5.part \(dataset /case/" <<<"$out" &&
    ! crashed "$out" && [ -z "$left" ]; then
    echo "ok   np=$np, 600 kB: $(grep -m1 -o 'no space left on device while writing [^ ]*' <<<"$out"), no crash, nothing left behind"
  else
    echo "FAIL np=$np, 600 kB (left: $left):"; echo "$out" | head -8; fail=1
  fi

  # ---- (2) the cases fit, a merge does not
  sizes="2500k 4000k"
  [ $np -eq 2 ] && sizes="4000k 6000k" # two groups write two cases at once
  for size in $sizes; do
    umount disk && mount -t tmpfs -o size=$size tmpfs disk
    out=$(mpi 120 $np simulate $job -results_file disk/r.h5 2>&1) && { echo "FAIL np=$np, $size: exit 0 on a full disk"; fail=1; }
    if grep -q "vicms: error: no space left on device while writing disk/r.h5.twin: merging the finished cases needs about" <<<"$out" &&
      ! crashed "$out" && [ ! -e disk/r.h5.part ] && [ ! -e disk/r.h5.lock ]; then
      echo "ok   np=$np, $size: $(grep -m1 -o 'no space left on device while writing [^ ]*' <<<"$out") ..., no crash"
    else
      echo "FAIL np=$np, $size:"; echo "$out" | head -8; fail=1
    fi
    # what was written is kept: the results file (if any) and every journal file read whole, with their cases done
    $py - "$np" "$size" <<'PYEOF' || fail=1
import glob, os, sys
import h5py
done = []
if os.path.exists("disk/r.h5"):
    with h5py.File("disk/r.h5", "r") as f:
        st = f["cases/status"][()]
        for k in range(len(st)):
            if st[k] == 1:
                assert f["cases/%d/outputs" % k][()].shape[0] == 15001
                done.append(k)
for j in glob.glob("disk/r.h5.cases/*.h5"):
    with h5py.File(j, "r") as f:
        assert f["case"].attrs["status"] in (b"done", "done") and f["case/outputs"][()].shape[0] == 15001
        done.append(int(os.path.basename(j)[:-3]))
ok = len(done) >= 1 and len(set(done)) == len(done)
print(("ok   " if ok else "FAIL ") + "np=%s, %s: the finished cases %s kept and readable (results file and journal)" % (sys.argv[1], sys.argv[2], sorted(done)))
raise SystemExit(0 if ok else 1)
PYEOF
  done

  # ---- (3) room again: the same job resumes and completes
  mount -o remount,size=64m disk
  must "np=$np, resume on a grown disk" mpi 300 $np simulate $job -results_file disk/r.h5
  grep -oE "Running [0-9]+ of 6 cases.*" <<<"$LAST" | sed 's/^/     /'
  $py "$VICMS_SOURCE/tests/app/compare_results.py" roomy.h5 disk/r.h5 --min-objects 101 --label "np=$np, resumed after the full disk" || fail=1
  rm -rf disk/r.h5 disk/r.h5.cases
done

[ $fail -eq 0 ] && echo "full disk: all checks passed"
exit $fail
