#!/usr/bin/env bash
# Harmonic balance of the plate of seed 000 §5.2 against the time stepping, in one run (issue 12):
#   1. reduce the plate (jobs/plate_sweep.yaml);
#   2. the HB branch 250..320 Hz, H = 20, N = 512 (jobs/plate_hb.yaml), timed;
#   3. one time-stepping log sweep up over the same range (jobs/plate_frf.yaml's rate: +1.5 % per 100 pseudo-periods,
#      500 levels per pseudo-period), timed;
#   4. H and N convergence: the branch's turning points and peak for (H, N) = (10, 512), (20, 256), (20, 512),
#      (20, 1024), (40, 1024);
#   5. docs/plate_hb.png (the branch, stable solid, unstable dashed, with the sweep overlaid) and the tables of
#      bench/RESULTS.md and docs/benchmarks.md.
# About 2 to 3 minutes on 2 cores.
# usage: bash bench/plate_hb.sh [BUILD_DIR]
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-}"
[ -x "$bin" ] || { echo "no executable $bin (build first, or pass the build directory)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
t() { local s e; s=$(date +%s.%N); "$@" >"log.$RANDOM" 2>&1 || { echo "failed: $*"; exit 1; }; e=$(date +%s.%N); $py -c "print('%.2f' % ($e - $s))"; }

echo "reduce: $(t mpirun -n 2 "$bin" reduce -options_file "$root/jobs/plate_sweep.yaml" -rom_file plate_rom.h5) s"
echo "harmonic balance branch 250-320 Hz, H = 20, N = 512: $(t "$bin" hb -options_file "$root/jobs/plate_hb.yaml" -rom_file plate_rom.h5 -results_file plate_hb.h5) s"
echo "the same without stability: $(t "$bin" hb -options_file "$root/jobs/plate_hb.yaml" -rom_file plate_rom.h5 -hb_stability false -results_file plate_hb_nostab.h5) s"
echo "time stepping, one sweep up 250-320 Hz: $(t "$bin" simulate -options_file "$root/jobs/plate_frf.yaml" -rom_file plate_rom.h5 \
  -cases_sweep xmax_ymax_zmax:250:320:up -cases_keep_series false -cases_quiet -results_file plate_up.h5) s"
for hn in 10:512 20:256 20:512 20:1024 40:1024; do
  H=${hn%:*} N=${hn#*:}
  s=$(t "$bin" hb -options_file "$root/jobs/plate_hb.yaml" -rom_file plate_rom.h5 -hb_harmonics "$H" -hb_samples "$N" -results_file "hn_${H}_${N}.h5" || true)
  echo "H=$H N=$N: $s s"
done
$py - <<'EOF2'
import glob
import h5py
import numpy as np

def branch(path):
    g = h5py.File(path, "r")["summary/hb"]
    f, a, kind, st = g["frequency_hz"][()], g["amplitude"][:, 0], g["kind"][()], g["stable"][()]
    turn = np.nonzero(kind & 1)[0]
    return f, a, turn, st, int(g.attrs["failed"]), g.attrs["message"]

g = h5py.File("plate_hb.h5", "r")["summary/hb"]
m, st, f = g["stability_method"][()], g["stable"][()], g["frequency_hz"][()]
for code, what in [(0, "Floquet multipliers of the exact orbit"), (1, "the exact motion from the solution"), (-1, "not computed")]:
    k = np.nonzero(m == code)[0]
    if len(k):
        print(f"stability by {what}: {len(k)} points ({int((st[k] == 1).sum())} stable, {int((st[k] == 0).sum())} unstable), "
              f"{f[k].min():.3f} to {f[k].max():.3f} Hz")

env = h5py.File("plate_up.h5", "r")["summary/sweep_up"][()]
env = env[np.isfinite(env[:, 1])]
top = np.argmax(env[:, 1])
fj = env[top + np.argmax(env[top:, 1] < 0.75e-4), 0]
f, a, turn, st, failed, msg = branch("plate_hb.h5")
print(f"branch: {len(f)} points, turning points {', '.join('%.3f Hz' % f[k] for k in turn)}; up sweep jumps at {fj:.3f} Hz "
      f"({100 * (fj - f[turn[0]]) / f[turn[0]]:+.3f} % from the upper turning point); HB peak {1e6 * a.max():.2f} um, sweep peak "
      f"{1e6 * env[top, 1]:.2f} um; {int((st == 0).sum())} unstable points")
print("| H | N | points | upper turning point (Hz) | lower turning point (Hz) | peak amplitude (um) |")
print("|---|---|---|---|---|---|")
for hn in ("10_512", "20_256", "20_512", "20_1024", "40_1024"):
    try:
        f, a, turn, st, failed, msg = branch(f"hn_{hn}.h5")
    except Exception as e:
        print(f"| {hn.replace('_', ' | ')} | not written ({e}) | | | |")
        continue
    H, N = hn.split("_")
    tp = [f[k] for k in turn]
    print(f"| {H} | {N} | {len(f)} | {tp[0] if tp else float('nan'):.3f} | {tp[1] if len(tp) > 1 else float('nan'):.3f} | "
          f"{1e6 * a.max():.2f} |" + (f" stopped: {msg.decode() if isinstance(msg, bytes) else msg}" if failed else ""))
EOF2
$py "$root/scripts/plot_results.py" plate_hb.h5 --kind hb --overlay plate_up.h5 -o "$work" >/dev/null
mv "$work/plate_hb_hb.png" "$root/docs/plate_hb.png"
echo "wrote $root/docs/plate_hb.png"
