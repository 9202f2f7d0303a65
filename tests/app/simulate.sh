#!/usr/bin/env bash
# `vicms simulate` through the executable: (a) the bouncing bar of seed 000 §5.1 (massless Craig-Bampton ROM from `vicms reduce`) for one
# period on 1, 2 and 3 ranks: the results file has the documented layout (format, t, outputs with the output names as columns, energy with
# 7 columns, status done), the physics is sane (starts at h0 = 5, touches the ground, output n1_x + gap = gap), and the results of 2 and 3
# ranks are bitwise identical to those of 1 rank; (b) bad input on 1, 2 and 3 ranks: non-zero exit, no hang, a message naming the
# problem, no results file.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py


rod="-mesh_line_cells 1000 -mesh_line_length 10 -model_young 900 -model_density 1"
out=$(mpi 120 2 reduce $rod -cms_type cb_massless -cms_contact_nodes 1 -cms_num_modes 20 -cms_gravity -10,0,0 -cms_outputs 1:x,1001:x \
  -rom_file bar.h5 2>&1)
rc=$?
if [ $rc -ne 0 ] || [ ! -f bar.h5 ]; then
  echo "FAIL bar reduce: exit status $rc (124 = hung):"
  echo "$out" | tail -10
  exit 1
fi

# ---- (a) one period of the bouncing bar, T = 16 l / (3 c) = 5.3333
case="-case_loads gravity -contact_gap 5 -step_dt 1e-4 -step_end_time 5.3333"
for np in 1 2 3; do
  start=$(date +%s%N)
  out=$(mpi 120 "$np" simulate -rom_file bar.h5 $case -results_file r$np.h5 2>&1)
  rc=$?
  echo "--- np=$np: vicms simulate (exit $rc, $((($(date +%s%N) - start) / 1000000)) ms)"
  echo "$out" | tail -3
  if [ $rc -ne 0 ] || [ ! -f r$np.h5 ]; then
    echo "FAIL np=$np simulate: exit status $rc (124 = hung), r$np.h5 $([ -f r$np.h5 ] && echo written || echo missing)"
    fail=1
  fi
done
if [ -f r1.h5 ] && [ -f r2.h5 ] && [ -f r3.h5 ]; then
  $py - <<'EOF' || fail=1
import sys
import h5py
import numpy as np

def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)

bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        bad = 1

series = {}
for np_ in (1, 2, 3):
    name = "r%d.h5" % np_
    with h5py.File(name, "r") as f:
        check(s(f.attrs.get("format", "")) == "vicms-results", "%s: format = %r (expected vicms-results)" % (name, s(f.attrs.get("format", ""))))
        c = f.get("cases/0")
        check(c is not None, "%s: group cases/0 present" % name)
        if c is None:
            continue
        for d in ("t", "outputs", "gaps", "forces", "energy"):
            check(d in c, "%s: cases/0/%s present" % (name, d))
        if not all(d in c for d in ("t", "outputs", "gaps", "forces", "energy")):
            continue
        t, y, g, lam, e = (c[d][()] for d in ("t", "outputs", "gaps", "forces", "energy"))
        nt = t.shape[0]
        cols = s(c["outputs"].attrs.get("columns", ""))
        check(nt == 53334 and abs(t[-1] - 5.3333) < 1e-9, "%s: %d levels to t = %.6f (expected 53334 to 5.3333)" % (name, nt, t[-1]))
        check(cols == "n1_x,n1001_x" and y.shape == (nt, 2), "%s: outputs %s with columns %r (expected (%d, 2), 'n1_x,n1001_x')" % (name, y.shape, cols, nt))
        check(e.shape == (nt, 8), "%s: energy %s (expected (%d, 8))" % (name, e.shape, nt))
        check(s(c["energy"].attrs.get("columns", "")).count(",") == 7, "%s: energy columns %r" % (name, s(c["energy"].attrs.get("columns", ""))))
        check("velocities" in c and c["velocities"].shape == y.shape and s(c["velocities"].attrs.get("columns", "")) == cols,
              "%s: velocities of the outputs beside them, same columns" % name)
        check(s(c.attrs.get("status", "")) == "done", "%s: status %r (expected done)" % (name, s(c.attrs.get("status", ""))))
        # physics: released from h0 = 5 (the massless boundary takes its static deflection under gravity at once: 2.8e-4), reaches the
        # ground within the period; the gap is the output n1_x + 5
        d = np.abs(y[:, 0] + 5 - g[:, 0]).max()
        check(abs(g[0, 0] - 5) < 1e-3 and g[:, 0].min() <= 1e-12 and lam[:, 0].max() > 0,
              "%s: height at t = 0 %.12f (5 within 1e-3), lowest %.3e (<= 1e-12), largest contact force %.3f (> 0)" % (name, g[0, 0], g[:, 0].min(), lam[:, 0].max()))
        check(d < 1e-12, "%s: |n1_x + 5 - gap| <= %.2e (1e-12)" % (name, d))
        err = np.abs(e[:, 0] + e[:, 1] - e[0, 0] - e[0, 1] - e[:, 4] - e[:, 5] + e[:, 2] + e[:, 3]).max()
        check(err < 1e-4 * 500, "%s: energy balance error %.3e (tolerance 1e-4 m g h0 = 0.05)" % (name, err))
        check(np.abs(e[:, 6] - (e[:, 0] + e[:, 1] - e[0, 0] - e[0, 1] - e[:, 4] - e[:, 5] + e[:, 2] + e[:, 3])).max() < 1e-9,
              "%s: the balance_error column is not the balance of the other columns" % name)
        series[np_] = (t, y, g, lam, e)
if len(series) == 3:
    for np_ in (2, 3):
        same = all(a.shape == b.shape and a.tobytes() == b.tobytes() for a, b in zip(series[1], series[np_]))
        diff = max(float(np.abs(a - b).max()) if a.shape == b.shape else float("inf") for a, b in zip(series[1], series[np_]))
        check(same, "results on 1 and %d ranks bitwise identical (largest difference %.3e)" % (np_, diff))
else:
    check(False, "results of 1, 2 and 3 ranks all readable (got %s)" % sorted(series))
sys.exit(bad)
EOF
fi

# ---- (b) bad input: non-zero exit, a clear message, no results file left behind
bad() { # bad NP EXPECT_REGEX ARGS...
  local np=$1 expect=$2
  shift 2
  local out rc
  rm -f bad.h5 bad.h5.part
  out=$(mpi 120 "$np" simulate "$@" -results_file bad.h5 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "FAIL np=$np $*: exit status 0"; fail=1
  elif [ $rc -eq 124 ]; then
    echo "FAIL np=$np $*: hung (killed after 120 s)"; fail=1
  elif ! grep -Eq -- "$expect" <<<"$out"; then
    echo "FAIL np=$np $*: message does not match /$expect/:"; echo "$out" | head -5; fail=1
  elif [ -e bad.h5 ] || [ -e bad.h5.part ]; then
    echo "FAIL np=$np $*: a results file was left behind"; fail=1
  else
    echo "ok   np=$np $(grep -E -m1 'error' <<<"$out")"
  fi
}
for np in 1 2 3; do
  bad "$np" "nosuch\.h5" -rom_file nosuch.h5 $case
  bad "$np" "-step_type moreau needs a mass-carrying ROM" -rom_file bar.h5 $case -step_type moreau
  bad "$np" "-step_dt: got 0" -rom_file bar.h5 $case -step_dt 0
  bad "$np" "-case_loads: the ROM has no load 'nosuchload'" -rom_file bar.h5 -case_loads nosuchload -contact_gap 5 -step_end_time 0.1
done

[ $fail -eq 0 ] && echo "vicms simulate: all checks passed"
exit $fail
