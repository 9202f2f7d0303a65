#!/usr/bin/env bash
# The plate of seed 000 §5.2 under frictionless contact (issue 6), on a coarse mesh: 4 x 8 x 40 hex8 with the job's
# dimensions, material, damping and gap (jobs/plate_sweep.yaml), contact at the three nodes 1841, 1843, 1845 of the free
# end's edge y = 40 mm, z = 150 mm (x = 0, 4, 8 mm, as the job's 19270, 19274, 19278 on the fine mesh), 1 N tip force.
# Around its first bending frequency f1 (about 290 Hz):
# (1) constant-frequency runs from rest (0.5 s, 8.7 decay times 1/(zeta omega1)): the contact closes (max_contact_force
#     > 0, gap 0 in steady state) at 0.99, 1.00 and 1.01 f1 and never at 0.85, 0.92, 1.08, 1.15 f1 (force 0 and every
#     recorded gap > 0.3 gap, transient included);
# (2) the wall caps one side only: the output never goes below -gap by more than 1e-6 gap (0.1 nm) in any run, while
#     near resonance the free side goes beyond +gap (by more than 2 %, and 5 % in the up sweep), and the same sweep
#     without the wall (gap 1 m) peaks above 1.3 gap;
# (3) slow log sweeps up and down 0.94 f1 <-> 1.07 f1 (+1.5 % per 100 pseudo-periods, 500 levels per pseudo-period):
#     the up sweep's peak lies at a higher frequency than the down sweep's and more than 1 % f1 above the linear up
#     sweep's (hardening beyond the sweep's own lag); the up sweep keeps the contact more than 1 % f1 beyond where the
#     down sweep first closes it (hysteresis), and its envelope then jumps down from above 0.9 gap to below 0.6 gap within
#     0.5 % f1.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

GAP=1e-4
must "reduce the coarse plate" mpi 120 2 reduce -mesh_box_cells 4,8,40 -mesh_box_lengths 0.008,0.04,0.15 \
  -model_young 184e9 -model_poisson 0.33 -model_density 8220 -model_clamp zmin -cms_type macneal -cms_num_modes 20 \
  -cms_contact_nodes 1841,1843,1845 -cms_contact_dirs 1 -cms_contact_normal 1,0,0 -cms_damping_ratio 0.01 \
  -cms_forces xmax_ymax_zmax:x:1 -cms_outputs 1845:x -rom_file coarse.h5 || exit 1
f1=$($py -c 'import h5py; print("%.6f" % h5py.File("coarse.h5", "r")["frequencies_hz"][0])')
$py - "$f1" <<'EOF' || exit 1
import sys

import h5py

f1 = float(sys.argv[1])
r = h5py.File("coarse.h5", "r")
ids = list(r["contact/node_ids"][()])
xyz = r["contact/coords"][()]
ok = ids == [1841, 1843, 1845] and abs(xyz[:, 1] - 0.04).max() < 1e-12 and abs(xyz[:, 2] - 0.15).max() < 1e-12 \
    and abs(xyz[:, 0] - [0, 0.004, 0.008]).max() < 1e-12
print(("ok   " if ok else "FAIL ") + "contact nodes %s at x = %s mm on the free end's edge y = 40, z = 150 mm" % (ids, [round(1e3 * x, 3) for x in xyz[:, 0]]))
# Euler-Bernoulli cantilever 1.8751^2/(2 pi L^2) sqrt(E h^2 / (12 rho)), times 1/sqrt(1 - nu^2) for a wide plate: 288 Hz
ok2 = 275 < f1 < 300
print(("ok   " if ok2 else "FAIL ") + "first bending frequency of the coarse plate %.2f Hz (expected 275 to 300 Hz)" % f1)
raise SystemExit(0 if ok and ok2 else 1)
EOF
dt=$($py -c "print(1 / (500 * $f1))")
F=load_xmax_ymax_zmax_frequency
vals=$($py -c "print('/'.join('%.6f' % ($f1 * r) for r in (0.85, 0.92, 0.99, 1.0, 1.01, 1.08, 1.15)))")
case="-rom_file coarse.h5 -case_loads xmax_ymax_zmax -load_xmax_ymax_zmax_amplitude 1 -step_type leapfrog -step_dt $dt"
must "constant-frequency grid" mpi 120 2 simulate $case -load_xmax_ymax_zmax_type harmonic -contact_gap $GAP \
  -step_end_time 0.5 -step_output_every 5 -cases_values $F:$vals -results_file grid.h5 -cases_quiet
sweep="$case -load_xmax_ymax_zmax_type sweep_log -load_xmax_ymax_zmax_sweep_percent 1.5 -load_xmax_ymax_zmax_sweep_periods 100
  -load_xmax_ymax_zmax_sweep_reference_frequency $f1 -step_output_every 5
  -cases_sweep xmax_ymax_zmax:$($py -c "print('%.6f:%.6f' % (0.94 * $f1, 1.07 * $f1))") -cases_quiet"
must "sweeps up and down" mpi 120 2 simulate $sweep -contact_gap $GAP -results_file sweep.h5
must "sweeps up and down, no wall" mpi 120 2 simulate $sweep -contact_gap 1 -results_file linear.h5
[ $fail -eq 0 ] || exit 1

$py - "$f1" "$GAP" <<'EOF' || fail=1
import sys

import h5py
import numpy as np

f1, gap = float(sys.argv[1]), float(sys.argv[2])
tol = 1e-6 * gap
bad = 0


def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad |= not ok


def cols(d):
    c = d.attrs["columns"]
    return (c.decode() if isinstance(c, bytes) else c).split(",")


# ---- (1), (2) constant frequency
g = h5py.File("grid.h5", "r")
check((g["cases/status"][()] == 1).all(), "constant-frequency grid: %d cases, all done" % len(g["cases/status"]))
qc = cols(g["cases/quantities"])
nearmax = 0
for k, f in enumerate(g["cases/parameters"][:, 0]):
    c = g["cases/%d" % k]
    t, y, gaps = c["t"][()], c["outputs"][:, 0], c["gaps"][()]
    w = t >= 0.75 * t[-1]
    force = c["quantities"][qc.index("max_contact_force")]
    r = f / f1
    low = y.min()
    if abs(r - 1) < 0.02:
        nearmax = max(nearmax, y[w].max())
        check(force > 0 and gaps[w].min() <= tol,
              "%.2f Hz (%.2f f1): contact closes, max_contact_force %.3g N > 0, steady-state min gap %.2g m <= %.1g"
              % (f, r, force, gaps[w].min(), tol))
    else:
        check(force == 0 and gaps.min() > 0.3 * gap,
              "%.2f Hz (%.2f f1): contact open, max_contact_force %.3g N = 0, min gap at all times %.3g um > %.0f um"
              % (f, r, force, gaps.min() * 1e6, 0.3 * gap * 1e6))
    check(low >= -gap - tol, "%.2f Hz: lowest output %.4f um, %.2g m beyond the wall (tolerance %.1g m)" % (f, low * 1e6, max(-gap - low, 0), tol))
check(nearmax > 1.02 * gap, "near resonance the free side reaches %.2f um > 1.02 gap = %.1f um (the wall caps one side only)"
      % (nearmax * 1e6, 1.02 * gap * 1e6))

# ---- (3) sweeps
s, L = h5py.File("sweep.h5", "r"), h5py.File("linear.h5", "r")
check((s["cases/status"][()] == 1).all() and (L["cases/status"][()] == 1).all(), "sweep cases all done")
info = {}
for d in ("up", "down"):
    e = s["summary/sweep_" + d][()]
    el = L["summary/sweep_" + d][()]
    k = int(s["summary/sweep_" + d].attrs["case"])
    c = s["cases/%d" % k]
    fr, y, gaps = c["frequency"][()], c["outputs"][:, 0], c["gaps"][()].min(axis=1)
    closed = fr[gaps <= tol]
    info[d] = dict(peak=e[np.argmax(e[:, 1]), 0], lpeak=el[np.argmax(el[:, 1]), 0], lamp=el[:, 1].max(), e=e,
                   first=closed.min() if d == "up" else closed.max(), last=closed.max() if d == "up" else closed.min(),
                   ymax=y.max(), ymin=y.min())
    check(y.min() >= -gap - tol, "sweep %s: lowest output %.4f um, %.2g m beyond the wall (tolerance %.1g m)" % (d, y.min() * 1e6, max(-gap - y.min(), 0), tol))
    check(info[d]["lamp"] > 1.3 * gap, "sweep %s without the wall peaks at %.1f um > 1.3 gap (the wall does cap it)"
          % (d, info[d]["lamp"] * 1e6))
u, dn = info["up"], info["down"]
check(u["ymax"] > 1.05 * gap, "sweep up: the free side reaches %.2f um > 1.05 gap" % (u["ymax"] * 1e6))
check(u["peak"] > dn["peak"], "hardening: the up sweep peaks at %.2f Hz, above the down sweep's %.2f Hz" % (u["peak"], dn["peak"]))
check(u["peak"] - u["lpeak"] > 0.01 * f1,
      "hardening beyond the sweep lag: up peak %.2f Hz is %.2f Hz above the linear up sweep's %.2f Hz (> 1 %% f1 = %.2f Hz)"
      % (u["peak"], u["peak"] - u["lpeak"], u["lpeak"], 0.01 * f1))
check(u["last"] - dn["first"] > 0.01 * f1,
      "hysteresis: the up sweep loses the contact at %.2f Hz, %.2f Hz above where the down sweep closes it (%.2f Hz; > 1 %% f1)"
      % (u["last"], u["last"] - dn["first"], dn["first"]))
e = u["e"]
hi = e[(e[:, 0] <= u["last"]) & (e[:, 1] > 0.9 * gap), 0]
lo = e[(e[:, 0] > u["last"]) & (e[:, 1] < 0.6 * gap), 0]
ok = len(hi) > 0 and len(lo) > 0 and lo.min() - hi.max() < 0.005 * f1
check(ok, "jump down: the up envelope falls from > 0.9 gap (last at %.2f Hz) to < 0.6 gap (first at %.2f Hz) within %.2f Hz (< 0.5 %% f1)"
      % (hi.max() if len(hi) else np.nan, lo.min() if len(lo) else np.nan, (lo.min() - hi.max()) if ok else np.nan))
sys.exit(bad)
EOF

[ $fail -eq 0 ] && echo "plate frequency response: all checks passed"
exit $fail
