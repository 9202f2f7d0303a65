#!/usr/bin/env bash
# The automatic time step (issue 11) on the bouncing bar of seed 000 §5.1 (rho = 1, E = 900, l = 10, g = 10, h0 = 5):
# (a) -step_dt auto: the stability limits of leapfrog on the massless Craig-Bampton ROM (2000 cells, 100 modes) with the
#     boundary held and open, and of the symmetric Moreau scheme on the standard Craig-Bampton ROM, equal an independent
#     numpy computation from the ROM file (Cholesky of M, eigvalsh; relative 1e-8), as printed by vicms info and stored
#     in the results (dt, dt_stable, dt_how); by trial over 3 periods, 0.98 x the limit stays bounded and 1.05 x the limit
#     is reported unstable, with the contact held (the bar standing on the ground), open (never reaching it) and bouncing
#     (leapfrog), and open (Moreau); the auto step (0.9 x) is the same on 1, 2 and 3 ranks;
# (b) -step_accuracy 0.01 over one period: epsilon_RMS (seed 000 Eq. 30) of the lower end against its exact solution
#     (Doyen, Ern, Piperno 2011; DESIGN.md) below 1 %, the step at least half the largest step that reaches 1 % (found
#     by runs at 1.25 to 2 times the chosen step), the estimate stored with the case and within a factor 2 of the error;
# (c) bad input (1 rank: option checks happen alike on every rank): -step_dt_safety outside (0, 1], -step_accuracy outside (0, 1), -step_accuracy with a numeric -step_dt,
#     -step_dt neither a number nor auto, auto where it cannot apply (leapfrog on a mass-carrying ROM, a theta-scheme
#     cut-off below every ROM frequency, a stable step longer than the run, -step_accuracy without ROM outputs):
#     a non-zero exit with a message naming the option.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

rod="-mesh_line_length 10 -model_young 900 -model_density 1 -cms_contact_nodes 1 -cms_gravity -10,0,0"
must "reduce massless" mpi 120 2 reduce $rod -mesh_line_cells 2000 -cms_type cb_massless -cms_num_modes 100 -cms_outputs 1:x -rom_file bar.h5 || exit 1
must "reduce cb" mpi 120 2 reduce $rod -mesh_line_cells 200 -cms_type cb -cms_num_modes 20 -cms_outputs 1:x -rom_file cb.h5 || exit 1
must "reduce no outputs" timeout 60 "$VICMS_BIN" reduce $rod -mesh_line_cells 200 -cms_type cb_massless -cms_num_modes 20 -rom_file noout.h5 || exit 1
must "info" "$VICMS_BIN" info bar.h5 || exit 1
echo "$LAST" >info.txt
must "info cb" "$VICMS_BIN" info cb.h5 || exit 1
echo "$LAST" >info_cb.txt

# ---- (a) the stability limits, against numpy and against trial
$py - <<'EOF' >limits.txt || fail=1
import h5py, numpy as np, re
def omega(K, M):
    L = np.linalg.cholesky(M)
    Li = np.linalg.inv(L)
    return np.sqrt(np.linalg.eigvalsh(Li @ K @ Li.T).max())
with h5py.File("bar.h5", "r") as f:
    K, M, B = f["K"][()], f["M"][()], int(f.attrs["n_boundary"])
Kii, Mii, Kib, Kbb = K[B:, B:], M[B:, B:], K[B:, :B], K[:B, :B]
held = 2 / omega(Kii, Mii)
opened = 2 / omega(Kii - Kib @ np.linalg.solve(Kbb, Kib.T), Mii)
with h5py.File("cb.h5", "r") as f:
    moreau = 2 / omega(f["K"][()], f["M"][()])
print(held, opened, moreau)
EOF
read -r held opened moreau <limits.txt
echo "numpy: leapfrog held $held s, open $opened s; symmetric moreau $moreau s"
$py - "$held" "$opened" "$moreau" <<'EOF' || fail=1
import re, sys
held, opened, moreau = map(float, sys.argv[1:])
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad |= not ok
t = open("info.txt").read()
h = float(re.search(r"boundary held \(contacts closed\): ([0-9.e+-]+) s", t).group(1))
o = float(re.search(r"contacts open \(boundary condensed\): ([0-9.e+-]+) s", t).group(1))
m = float(re.search(r"contacts open: dt <= 2 / omega_max = ([0-9.e+-]+) s", open("info_cb.txt").read()).group(1))
check(abs(h / held - 1) < 1e-5, "vicms info: leapfrog, boundary held %.6g s vs numpy %.10g (printed to 6 digits)" % (h, held))
check(abs(o / opened - 1) < 1e-5, "vicms info: leapfrog, contacts open %.6g s vs numpy %.10g" % (o, opened))
check(abs(m / moreau - 1) < 1e-5, "vicms info: symmetric moreau, contacts open %.6g s vs numpy %.10g" % (m, moreau))
check(opened >= held, "the open limit %.10g s is not below the held one %.10g s (interlacing)" % (opened, held))
sys.exit(bad)
EOF

# trials: NAME ROM_ARGS LIMIT CASE_ARGS -> statuses of 0.98 and 1.05 x LIMIT over 3 periods (16 s) in one ensemble (1 rank:
# the MPI start costs more than the runs; ranks are covered by the auto step below)
trial() {
  local name=$1 rom=$2 limit=$3
  shift 3
  local steps
  steps=$($py -c "print('/'.join(repr(f * $limit) for f in (0.98, 1.05)))")
  must "trial $name" timeout 120 "$VICMS_BIN" simulate $rom "$@" -step_end_time 16 -cases_values step_dt:$steps -results_file $name.h5 -cases_quiet || return
  $py - "$name" <<'EOF' || fail=1
import h5py, sys
f = h5py.File(sys.argv[1] + ".h5", "r")
st = list(f["cases/status"][()])
msg = [m.decode() if isinstance(m, bytes) else m for m in f["cases/message"][()]]
ok = st == [1, 2] and msg[1].startswith("unstable")
print(("ok   " if ok else "FAIL ") + "%s: 0.98 x the limit %s, 1.05 x the limit %s (expected done, then failed unstable)" %
      (sys.argv[1], "done" if st[0] == 1 else "failed: " + msg[0][:60], "done" if st[1] == 1 else "failed: " + msg[1][:60]))
sys.exit(0 if ok else 1)
EOF
}
trial held "-rom_file bar.h5" "$held" -case_loads gravity -contact_gap 0
trial open "-rom_file bar.h5" "$opened" -case_loads gravity -contact_gap 1000
trial bouncing "-rom_file bar.h5" "$held" -case_loads gravity -contact_gap 5
trial moreau "-rom_file cb.h5 -step_type moreau" "$moreau" -case_loads gravity -contact_gap 1000

# the auto step, stored with the case, the same on 1, 2 and 3 ranks
for np in 1 2 3; do
  must "auto np=$np" mpi 120 $np simulate -rom_file bar.h5 -case_loads gravity -contact_gap 5 -step_dt auto -step_end_time 1 -results_file auto$np.h5 || continue
  grep -m1 -- "-step_dt auto" <<<"$LAST"
done
$py - "$held" <<'EOF' || fail=1
import h5py, sys
held = float(sys.argv[1])
bad = 0
dts = []
for np_ in (1, 2, 3):
    c = h5py.File("auto%d.h5" % np_, "r")["cases/0"]
    dts.append(c.attrs["dt"])
    how = c.attrs["dt_how"]
    how = how.decode() if isinstance(how, bytes) else how
    ok = abs(c.attrs["dt"] / (0.9 * held) - 1) < 1e-8 and abs(c.attrs["dt_stable"] / held - 1) < 1e-8 and "boundary held" in how
    print(("ok   " if ok else "FAIL ") + "np=%d: dt %.12g = 0.9 x dt_stable %.12g (numpy: %.12g); dt_how %r" % (np_, c.attrs["dt"], c.attrs["dt_stable"], held, how[:70]))
    bad |= not ok
ok = dts[0] == dts[1] == dts[2]
print(("ok   " if ok else "FAIL ") + "the auto step is bitwise the same on 1, 2 and 3 ranks: %r" % dts)
sys.exit(bad or not ok)
EOF

# ---- (b) -step_accuracy 0.01 against the exact solution, over one period T = 16 l / (3 c)
must "accuracy" timeout 120 "$VICMS_BIN" simulate -rom_file bar.h5 -case_loads gravity -contact_gap 5 -step_accuracy 0.01 -step_end_time 5.3333 -results_file acc.h5 || exit 1
grep -m1 -- "-step_dt auto" <<<"$LAST"
chosen=$($py -c 'import h5py; print(repr(h5py.File("acc.h5", "r")["cases/0"].attrs["dt"]))')
steps=$($py -c "print('/'.join(repr(f * $chosen) for f in (1.25, 1.5, 1.75, 2.0)))")
must "larger steps" timeout 120 "$VICMS_BIN" simulate -rom_file bar.h5 -case_loads gravity -contact_gap 5 -step_end_time 5.3333 -cases_values step_dt:$steps \
  -results_file larger.h5 -cases_quiet || exit 1
$py - <<'EOF' || fail=1
import h5py, numpy as np
c, l, g = 30.0, 10.0, 10.0
tw = l / c; tf = 3 * tw; T = 16 * tw; h0 = g * tf**2 / 2
def height(t):
    s = np.mod(t, T); t1 = tf; t2 = t1 + 2 * tw; t3 = t2 + 2 * tf; t4 = t3 + 2 * tw
    P = lambda x: h0 - g * (x - tf)**2 / 2
    n = np.arange(1, 4001)
    S = lambda x: -2 * g * l**2 / (3 * c**2) + (4 * g * l**2 / (c**2 * n**2 * np.pi**2) * np.cos(np.outer(x, n) * np.pi * c / l)).sum(axis=1)
    q = np.zeros_like(s)
    a = s < t1; q[a] = P(s[a] + tf)
    b = (s >= t2) & (s < t3); q[b] = P(s[b] - t2) + S(s[b] - t2)
    d = s >= t4; q[d] = P(s[d] - t4)
    return q
def eps(case):  # seed 000 Eq. (30) of the lower end's displacement n1_x = height - h0
    t, y = case["t"][()], case["outputs"][:, 0]
    ex = height(t) - h0
    return np.sqrt(np.sum((y - ex)**2) / np.sum(ex**2))
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad |= not ok
a = h5py.File("acc.h5", "r")["cases/0"]
dt, est, e = a.attrs["dt"], a.attrs["accuracy_estimate"], eps(a)
check(a.attrs["accuracy"] == 0.01 and 0 < est <= 0.01, "stored: accuracy %g, estimate %.4g (<= 0.01)" % (a.attrs["accuracy"], est))
check(e < 0.01, "-step_accuracy 0.01: dt %.6g, epsilon_RMS against the exact solution %.4f (< 0.01; model error of the ROM ~0.003)" % (dt, e))
check(0.5 * e <= est <= 2 * e, "the estimate %.4g is within a factor 2 of the error %.4g" % (est, e))
f = h5py.File("larger.h5", "r")
larger = [(f["cases/%d" % k].attrs["dt"], eps(f["cases/%d" % k])) for k in range(4) if f["cases/status"][k] == 1]
print("     larger steps: " + ", ".join("dt %.6g: %.4f" % p for p in larger))
ok = [d for d, x in [(dt, e)] + larger if x < 0.01]
check(len(larger) == 4 and larger[-1][1] >= 0.01, "2 x the chosen step misses 1 %% (epsilon_RMS %.4f): the largest step that reaches it is below 2 dt" % larger[-1][1])
check(dt >= 0.5 * max(ok), "the chosen step %.6g is at least half the largest step that reaches 1 %%, %.6g" % (dt, max(ok)))
raise SystemExit(bad)
EOF

# ---- (c) bad input
bad() { # bad EXPECT_REGEX ARGS...
  local expect=$1 out rc
  shift
  rm -f bad.h5
  out=$(timeout 60 "$VICMS_BIN" simulate -step_end_time 1 "$@" -results_file bad.h5 2>&1)
  rc=$?
  if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
    echo "FAIL $*: exit status $rc (expected an error)"; fail=1
  elif ! grep -Eq -- "$expect" <<<"$out"; then
    echo "FAIL $*: message does not match /$expect/:"; echo "$out" | head -5; fail=1
  else
    echo "ok   $(grep -E -m1 'error' <<<"$out")"
  fi
}
case="-rom_file bar.h5 -case_loads gravity -contact_gap 5"
bad "-step_dt_safety: got 0\.?, expected a factor in \(0, 1\]" $case -step_dt auto -step_dt_safety 0
bad "-step_dt_safety: got 1.5, expected a factor in \(0, 1\]" $case -step_dt auto -step_dt_safety 1.5
bad "-step_accuracy: got 0\.?, expected a relative error epsilon_RMS in \(0, 1\)" $case -step_accuracy 0
bad "-step_accuracy: got -0.1, expected" $case -step_accuracy -0.1
bad "-step_accuracy: got 1\.?, expected" $case -step_accuracy 1
bad "-step_accuracy 0.01 chooses the step: -step_dt must be auto or absent, got -step_dt 0.001" $case -step_accuracy 0.01 -step_dt 1e-3
bad "-step_dt: 'often' is not a number or auto" $case -step_dt often
bad "-step_type leapfrog needs a massless-boundary ROM" -rom_file cb.h5 -case_loads gravity -contact_gap 5 -step_dt auto
bad "-step_dt auto: the ROM has no natural frequency at or below -step_frequency_cutoff 0.1 Hz" -rom_file cb.h5 -step_type moreau \
  -step_moreau_variant theta -case_loads gravity -contact_gap 5 -step_dt auto -step_frequency_cutoff 0.1
bad "-step_dt auto: the step [0-9.e-]+ s is longer than the run" $case -step_dt auto -step_end_time 1e-3
bad "-step_accuracy: the error is estimated on the ROM's outputs, and this ROM has none" -rom_file noout.h5 -case_loads gravity -contact_gap 5 \
  -step_accuracy 0.01

[ $fail -eq 0 ] && echo "automatic time step: all checks passed"
exit $fail
