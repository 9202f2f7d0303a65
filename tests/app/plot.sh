#!/usr/bin/env bash
# scripts/plot_results.py on synthetic results files written with h5py in the documented layout (DESIGN.md "Files"):
# (a) a sweep job (a sweep up and a sweep down with frequency series and summary/sweep_up, sweep_down; a constant-frequency
#     grid with summary/frf; one failed case): the default run writes the time, energy and frf plots of the first done case,
#     --kind phase,time --case draws the cases asked and skips the failed one with its reason, --output redraws the frf;
#     the same job with per-case envelopes cases/<k>/envelope gives an frf plot from them;
# (b) a UQ job (200 cases, quantities, statistics, histograms, no per-case series): the uq plot, and a note that no case
#     has series;
# (c) a missing file, a file of another format, a file that is not HDF5, a file with no done case, an unknown kind:
#     non-zero exit and a message naming the file (or the kind).
# Every PNG must exist, start with the PNG signature and be larger than 5 kB.
# Set PLOT_KEEP=DIR to keep the synthetic files and the PNGs in DIR.
set -u
fail=0
if [ -n "${PLOT_KEEP:-}" ]; then
  dir=$PLOT_KEEP
  mkdir -p "$dir"
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
cd "$dir" || exit 1
py=/usr/bin/python3
src=${VICMS_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
plot="$py $src/scripts/plot_results.py"
if ! $py -c 'import h5py, numpy, matplotlib' 2>/dev/null; then
  echo "skipped: $py has no h5py, numpy or matplotlib"
  exit 77
fi

# ---- synthetic results files
$py - <<'EOF' || { echo "FAIL: could not write the synthetic results files"; exit 1; }
import h5py
import numpy as np

rng = np.random.default_rng(7)
vstr = h5py.string_dtype()
OUTS = ["n19278_x", "n512_y"]
QCOLS = [f"{q}_{o}" for o in OUTS for q in ("max_abs", "rms", "amplitude", "mean")] + ["max_contact_force"]
ECOLS = "kinetic,potential,damping_dissipation,friction_dissipation,external_work,obstacle_work,balance_error"


def lin(f, fn):  # linear FRF, damping ratio 2 %
    return 1e-4 / np.sqrt((1 - (f / fn) ** 2) ** 2 + (0.04 * f / fn) ** 2)


def up(f):  # hardening: the upper branch holds on past the linear peak and jumps down at 330 Hz
    f = np.asarray(f, dtype=float)
    a = lin(f, 300.0)
    hold = (f >= 300) & (f < 330)
    return np.where(hold, lin(300.0, 300.0) * (1 - 0.3 * (f - 300) / 30), a)


def down(f):
    return lin(np.asarray(f, dtype=float), 305.0)


def root(f, n_cases, pcols, params, status, message):
    f.attrs["format"] = "vicms-results"  # str attributes here; bytes below, both must be read
    f.attrs["version"] = np.bytes_(b"0.1")
    f.attrs["options"] = "-rom_file plate.h5 -ensemble_grid load_tip_frequency:220:380:12"
    f.attrs["n_cases"] = n_cases
    c = f.create_group("cases")
    d = c.create_dataset("parameters", data=params)
    d.attrs["columns"] = np.bytes_(pcols.encode())
    d = c.create_dataset("status", data=np.asarray(status, dtype=np.int32))
    d.attrs["values"] = "pending,done,failed"
    c.create_dataset("message", data=np.array(message, dtype=object), dtype=vstr)
    c.create_dataset("wall_time", data=rng.uniform(1, 2, n_cases))
    c.create_dataset("steps", data=np.full(n_cases, 20000, dtype=np.int64))
    return c


def series(c, k, t, y, freq=None):
    g = c.create_group(str(k))
    g.create_dataset("t", data=t)
    outs = np.column_stack([y, 0.3 * np.roll(y, 7) + 1e-5])
    d = g.create_dataset("outputs", data=outs)
    d.attrs["columns"] = ",".join(OUTS)
    g0 = 1.2e-3 + 2e-4 * np.arange(3)
    gaps = np.maximum(g0[None, :] - y[:, None], 0.0)
    forces = 2e6 * np.maximum(y[:, None] - g0[None, :], 0.0)
    g.create_dataset("gaps", data=gaps)
    g.create_dataset("forces", data=forces)
    v = np.gradient(y, t)
    kin, pot = 0.5 * 0.1 * v ** 2, 0.5 * 0.1 * (2 * np.pi * 300) ** 2 * y ** 2
    damp = np.cumsum(0.04 * kin) * (t[1] - t[0]) * 50
    fric = np.zeros_like(t)
    ext = kin + pot + damp
    obst = -np.cumsum(forces.sum(axis=1) * np.abs(v)) * (t[1] - t[0]) * 1e-3
    ext = ext - obst
    bal = kin + pot - ext - obst + damp + fric + 1e-9 * rng.standard_normal(len(t))
    d = g.create_dataset("energy", data=np.column_stack([kin, pot, damp, fric, ext, obst, bal]))
    d.attrs["columns"] = ECOLS
    if freq is not None:
        g.create_dataset("frequency", data=freq)
    g.attrs["status"] = "done"
    g.attrs["message"] = ""
    g.attrs["steps"] = len(t)
    g.attrs["wall_time"] = 1.5


def quantities(y, forces_max):
    row = []
    for yy in (y, 0.3 * y + 1e-5):
        s = yy[len(yy) // 2:]
        row += [np.abs(yy).max(), np.sqrt(np.mean(s ** 2)), 0.5 * np.ptp(s), s.mean()]
    return row + [forces_max]


# (a) sweep job: case 0 sweep up, case 1 sweep down, cases 2..13 constant frequency 220..380 Hz, case 14 failed
freqs = np.linspace(220, 380, 12)
n = 15
params = np.full((n, 2), np.nan)
params[:, 1] = 0.2
params[2:14, 0] = freqs
params[14] = (300.0, 0.2)
status = [1] * 14 + [2]
message = [""] * 14 + ["time step too large: the contact solver did not converge at t = 0.0123"]
with h5py.File("sweep.h5", "w") as f:
    c = root(f, n, "load_tip_frequency,contact_mu", params, status, message)
    q = np.full((n, len(QCOLS)), np.nan)
    t = np.linspace(0.0, 2.0, 40001)
    for k, (fa, fb, env) in enumerate(((200.0, 400.0, up), (400.0, 200.0, down))):
        fr = fa + (fb - fa) * t / t[-1]
        phase = 2 * np.pi * np.cumsum(fr) * (t[1] - t[0])
        y = env(fr) * np.sin(phase)
        series(c, k, t, y, fr)
        q[k] = quantities(y, 2e6 * max(0.0, y.max() - 1.2e-3))
    for k, fk in zip(range(2, 14), freqs):
        a = 0.5 * (up(fk) + down(fk))
        tc = np.linspace(0.0, 0.1, 5001)
        y = a * np.sin(2 * np.pi * fk * tc) * (1 - np.exp(-tc / 0.01))
        if k == 2:
            series(c, k, tc, y, np.full_like(tc, fk))
        q[k] = quantities(y, 2e6 * max(0.0, y.max() - 1.2e-3))
    d = c.create_dataset("quantities", data=q)
    d.attrs["columns"] = ",".join(QCOLS)
    s = f.create_group("summary")
    fe = np.linspace(200, 400, 201)
    for name, env, order in (("sweep_up", up, fe), ("sweep_down", down, fe[::-1])):
        d = s.create_dataset(name, data=np.column_stack([order, env(order)]))
        d.attrs["columns"] = "frequency,amplitude"
        d.attrs["output"] = OUTS[0]
    d = s.create_dataset("frf", data=np.column_stack([freqs, q[2:14, QCOLS.index("amplitude_n19278_x")]]))
    d.attrs["columns"] = "frequency,amplitude"
    d.attrs["output"] = np.bytes_(b"n19278_x")

# the same job with per-case envelopes (cases/<k>/envelope), which the frf plot prefers to the summary pair
import shutil
shutil.copy("sweep.h5", "envelopes.h5")
with h5py.File("envelopes.h5", "r+") as f:
    fe = np.linspace(200, 400, 201)
    f["cases/0/envelope"] = np.column_stack([fe, up(fe)])
    f["cases/1/envelope"] = np.column_stack([fe[::-1], down(fe[::-1])])

# (b) UQ job: 200 cases, 197 done, 2 failed, 1 pending, no series
n = 200
params = np.column_stack([rng.normal(10.0, 1.0, n), rng.uniform(0.1, 0.3, n)])
status = np.ones(n, dtype=int)
status[[17, 93]] = 2
status[199] = 0
message = ["" if s != 2 else "the contact solver did not converge" for s in status]
with h5py.File("uq.h5", "w") as f:
    c = root(f, n, "load_amplitude,contact_mu", params, status, message)
    q = np.full((n, len(QCOLS)), np.nan)
    for k in range(n):
        if status[k] == 1:
            a = 1e-4 * params[k, 0] * (1 + 0.05 * rng.standard_normal())
            q[k] = [a * 1.02, a / np.sqrt(2), a, 1e-6 * rng.standard_normal(),
                    0.3 * a * 1.02, 0.3 * a / np.sqrt(2), 0.3 * a, 1e-5, 2e6 * max(0.0, a - 9e-4)]
    d = c.create_dataset("quantities", data=q)
    d.attrs["columns"] = ",".join(QCOLS)
    ok = q[status == 1]
    st = np.column_stack([ok.mean(0), ok.std(0, ddof=1), ok.min(0), *np.percentile(ok, [5, 25, 50, 75, 95], axis=0), ok.max(0)])
    s = f.create_group("summary")
    d = s.create_dataset("statistics", data=st)
    d.attrs["rows"] = ",".join(QCOLS)
    d.attrs["columns"] = "mean,std,min,q05,q25,q50,q75,q95,max"
    d.attrs["n"] = len(ok)
    for j, name in enumerate(QCOLS):
        counts, edges = np.histogram(ok[:, j], bins=20)
        g = s.create_group(f"histograms/{name}")
        g.create_dataset("edges", data=edges)
        g.create_dataset("counts", data=counts.astype(np.int64))

# (c) not results: another vicms file, a text file, a results file with no done case
with h5py.File("rom.h5", "w") as f:
    f.attrs["format"] = "vicms-rom"
with open("notes.h5", "w") as f:
    f.write("not an HDF5 file\n")
with h5py.File("pending.h5", "w") as f:
    root(f, 3, "case", np.arange(3.0).reshape(3, 1), [0, 2, 0], ["", "diverged", ""])
EOF

# run NAME EXPECT_RC ARGS... : the script, its exit status checked (0, or "nz" for non-zero); output in $out
run() {
  local what=$1 expect=$2
  shift 2
  out=$($plot "$@" 2>&1)
  rc=$?
  if { [ "$expect" = 0 ] && [ $rc -ne 0 ]; } || { [ "$expect" = nz ] && [ $rc -eq 0 ]; }; then
    echo "FAIL $what: exit status $rc (expected $expect):"
    echo "$out" | tail -5
    fail=1
    return 1
  fi
  echo "ok   $what: exit status $rc"
  return 0
}
# png PATH... : each a PNG (signature) of more than 5 kB, and announced as `wrote PATH` in $out
png() {
  local p sig size
  for p in "$@"; do
    if [ ! -f "$p" ]; then
      echo "FAIL $p: not written"; fail=1; continue
    fi
    sig=$(head -c 8 "$p" | od -An -tx1 | tr -d ' \n')
    size=$(stat -c %s "$p")
    if [ "$sig" != 89504e470d0a1a0a ]; then
      echo "FAIL $p: not a PNG (first bytes $sig)"; fail=1
    elif [ "$size" -le 5000 ]; then
      echo "FAIL $p: only $size bytes"; fail=1
    elif ! grep -Fxq "wrote $p" <<<"$out"; then
      echo "FAIL $p: written but no 'wrote $p' line"; fail=1
    else
      echo "ok   $p: PNG, $size bytes"
    fi
  done
}
# absent PATH... : none of these written
absent() {
  local p
  for p in "$@"; do
    if [ -e "$p" ]; then echo "FAIL $p: written but not expected"; fail=1; fi
  done
}
# says WHAT REGEX : $out matches
says() {
  if grep -Eq -- "$2" <<<"$out"; then
    echo "ok   $1: $(grep -E -m1 -- "$2" <<<"$out")"
  else
    echo "FAIL $1: output does not match /$2/:"; echo "$out" | head -5; fail=1
  fi
}

# ---- (a) the sweep job
run "sweep default" 0 sweep.h5 && {
  png "$dir/sweep_time_case0.png" "$dir/sweep_energy_case0.png" "$dir/sweep_frf.png"
  absent sweep_uq.png sweep_phase_case0.png sweep_time_case1.png
  [ "$(grep -c '^wrote ' <<<"$out")" -eq 3 ] || { echo "FAIL sweep default: $(grep -c '^wrote ' <<<"$out") files announced (expected 3)"; fail=1; }
}
run "sweep --kind phase,time --case 1 2 14" 0 sweep.h5 -o sub --kind phase,time --case 1 2 14 && {
  png sub/sweep_phase_case1.png sub/sweep_phase_case2.png sub/sweep_time_case1.png sub/sweep_time_case2.png
  absent sub/sweep_energy_case1.png sub/sweep_frf.png sub/sweep_time_case14.png sub/sweep_phase_case14.png
  says "failed case skipped with its reason" "case 14 is failed \(time step too large.*\); skipped"
}
run "sweep --kind frf --output n512_y" 0 sweep.h5 -o out2 --kind frf --output n512_y && {
  png out2/sweep_frf.png
  says "envelopes of another output left out" "sweep envelopes are for output n19278_x, not n512_y: not drawn"
}
run "per-case envelopes --kind frf" 0 envelopes.h5 --kind frf && png "$dir/envelopes_frf.png"
run "sweep --kind time --case 14 (only a failed case)" nz sweep.h5 -o out3 --kind time --case 14 &&
  says "nothing plotted names the file" "sweep\.h5: nothing plotted"

# ---- (b) the UQ job
run "uq default" 0 uq.h5 && {
  png "$dir/uq_uq.png"
  absent uq_time_case0.png uq_energy_case0.png uq_frf.png
  says "no series noted" "case 0: no time series"
}
run "uq --kind time (no series)" nz uq.h5 --kind time && says "nothing plotted names the file" "uq\.h5: nothing plotted"

# ---- (c) files that are not results, and bad arguments
run "missing file" nz nosuch.h5 && says "missing file named" "nosuch\.h5: no such file"
run "another format" nz rom.h5 && says "another format named" "rom\.h5: not a vicms results file \(format = 'vicms-rom'"
run "not HDF5" nz notes.h5 && says "not HDF5 named" "notes\.h5: not an HDF5 file"
run "no done case" nz pending.h5 && says "no done case named" "pending\.h5: no done case to plot \(3 cases: 2 pending, 0 done, 1 failed\)"
run "unknown kind" nz sweep.h5 --kind time,bode && says "unknown kind named" "unknown kind bode"
absent pending_time_case0.png rom_time_case0.png

[ $fail -eq 0 ] && echo "plot_results.py: all checks passed"
exit $fail
