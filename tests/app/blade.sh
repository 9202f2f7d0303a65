#!/usr/bin/env bash
# The Rotor 37 blade rubbing an oval casing (seed 000 §5.3, issue 6; jobs/blade_rubbing.yaml): the MacNeal ROM (50
# free-interface modes + 48 attachment modes; its `vicms info`: 98 coordinates, first component mode 312.1x Hz) with
# leapfrog over 2 revolutions, in one ensemble on 2 ranks, at 500,
# 1000, 2000 and 4000 time levels per revolution.
#   - 1000 levels per revolution (the coarse step, near the stability limit) matches the 4000-level run: epsilon_RMS of
#     seed 000 Eq. (30) of n1353_y, at the coarse run's levels (common levels of both runs), below 3 % (measured
#     1.5 %: bench/blade.sh, docs/benchmarks.md);
#   - 2000 levels per revolution is closer to it than 1000 (the error falls with the step; measured 0.7 %);
#   - the blade rubs: contact forces and a response of the size of the fine run's (|n1353_y| up to 1.33 mm);
#   - 500 levels per revolution is beyond the stability limit (about 850): the case is recorded as failed, "unstable".
# Skipped (77) when the deck ../shared/data/rotor37/blade.inp is absent.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
deck="${VICMS_SHARED:-}/data/rotor37/blade.inp"
if [ ! -f "$deck" ]; then
  echo "skipped: the Rotor 37 deck is absent ($deck)"
  exit 77
fi
vicms_need_h5py
vicms_workdir


job="-options_file $VICMS_SOURCE/jobs/blade_rubbing.yaml -mesh_file $deck"
start=$(date +%s)
must "reduce (MacNeal, 50 + 48)" mpi 600 2 reduce $job -rom_file rom.h5 || exit 1
echo "reduce: $(grep -m1 '^ROM' <<<"$LAST") ($(($(date +%s) - start)) s)"
# what vicms info says of it (reduce.sh checks Rubin's the same way)
must "info" mpi 120 2 info rom.h5 &&
  for want in 'MacNeal \(.*\), 48 boundary coordinates \+ 50 modes = 98' 'component modes \(free-interface\): 312\.1[0-9]*,' \
    'outputs: n1353_y'; do
    grep -Eq "$want" <<<"$LAST" && echo "ok   vicms info: $want" || { echo "FAIL vicms info: no '$want'"; fail=1; }
  done
# one revolution is 2 pi / Omega = 4/312 s; the finest step first so that it starts at once on one group
steps=$($py -c 'print("/".join(repr(4 / 312 / n) for n in (4000, 2000, 1000, 500)))')
start=$(date +%s)
must "simulate 2 revolutions" mpi 300 2 simulate $job -rom_file rom.h5 -step_end_time $($py -c 'print(repr(2 * 4 / 312))') \
  -cases_values step_dt:$steps -results_file blade.h5 -cases_quiet || exit 1
echo "simulate: $(grep -m1 'cases:.*done' <<<"$LAST") ($(($(date +%s) - start)) s)"

$py - <<'EOF' || fail=1
import h5py
import numpy as np

T = 4 / 312
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad |= not ok

f = h5py.File("blade.h5", "r")
st = list(f["cases/status"][()])
msg = [m.decode() if isinstance(m, bytes) else m for m in f["cases/message"][()]]
check(st == [1, 1, 1, 2], "statuses %s at 4000, 2000, 1000, 500 levels per revolution (expected [1, 1, 1, 2])" % st)
check(msg[3].startswith("unstable"), "500 levels per revolution: %r (expected unstable)" % msg[3][:60])
if st[:3] != [1, 1, 1]:
    raise SystemExit(1)
def series(k):
    c = f["cases/%d" % k]
    j = c["outputs"].attrs["columns"]
    j = (j.decode() if isinstance(j, bytes) else j).split(",").index("n1353_y")
    return c["t"][()], c["outputs"][:, j], c["forces"][()]
tr, yr, fr = series(0)
check(tr.shape[0] == 8001 and abs(tr[-1] - 2 * T) < 1e-12, "fine run: %d levels to t = %.6g (expected 8001 to %.6g)" % (tr.shape[0], tr[-1], 2 * T))
eps = {}
for k, n in ((1, 2000), (2, 1000)):
    t, y, _ = series(k)
    # the levels of the coarse run are levels of the fine run: compare there (the interpolation is exact)
    common = np.abs(t * 4000 / T - np.round(t * 4000 / T)).max() < 1e-6
    yi = np.interp(t, tr, yr)
    eps[n] = np.sqrt(np.sum((y - yi) ** 2) / np.sum(yi ** 2))
    check(common and t.shape[0] == 2 * n + 1, "%d levels per revolution: %d levels, all of them levels of the fine run" % (n, t.shape[0]))
check(eps[1000] < 0.03, "eps_RMS(1000 vs 4000 levels per revolution) = %.4f (tolerance 0.03; measured 0.015)" % eps[1000])
check(eps[2000] < eps[1000], "eps_RMS(2000) = %.4f < eps_RMS(1000) = %.4f: the error falls with the step" % (eps[2000], eps[1000]))
check(fr.max() > 100 and 1.0 < np.abs(yr).max() < 1.7,
      "the blade rubs: largest normal contact force %.4g N (> 100), max |n1353_y| %.4f mm (1.0 to 1.7)" % (fr.max(), np.abs(yr).max()))
raise SystemExit(bad)
EOF

[ $fail -eq 0 ] && echo "blade: all checks passed"
exit $fail
