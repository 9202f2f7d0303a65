#!/usr/bin/env bash
# `vicms cea` (seed 003 §1.4, Eq. 45): the stability sweep and the FRF map of two sliding bodies against an independent numpy
# reference (cea_reference.py: the rows, null spaces and eigenvalues recomputed from the bodies file; frequencies and real
# parts to 1e-8 of |lambda|, the FRF to 1e-8 of max |H|, the count of unstable positions equal; the eigenvectors of
# -cea_vectors against numpy's to 1e-8, the residual of Eq. 12 to 1e-12, their normalisation to 1e-13, the per-body
# displacements exact), 1 and 2 ranks bit for bit (every dataset), vicms info on the results files (its numbers against the
# datasets read with h5py), the FRF map as acceleration (-omega^2 times the displacement map to rounding; the eigenvalues
# the same with and without -cea_vectors), plot_cea.py --shape, and bad input refused with a message naming the option.
source "$(dirname "$0")/lib.sh"
vicms_need_h5py
vicms_workdir
job=$VICMS_SOURCE/jobs/beam_on_beam.yaml
ref=$VICMS_SOURCE/tests/app/cea_reference.py

# 1. the coarse beams of test_coupling (2 x 20 CPS4, 10 modes each): stable with mu = 0.3, largest real part -6.3 1/s
small="-bodies beam1,beam2 -rom_file small.h5
  -body_beam1_mesh_rect_cells 20,2 -body_beam1_mesh_rect_lengths 75,5 -body_beam1_mesh_rect_thickness 10 -body_beam1_mesh_rect_origin 50,10
  -body_beam1_mesh_rect_angle 30 -body_beam1_model_young 70000 -body_beam1_model_poisson 0.33 -body_beam1_model_density 2.7e-9
  -body_beam1_cms_contact_set xmin_ymin,xmax -body_beam1_cms_num_modes 10 -body_beam1_cms_rayleigh 12.6,3.2e-7
  -body_beam2_mesh_rect_cells 20,2 -body_beam2_mesh_rect_lengths 300,10 -body_beam2_mesh_rect_thickness 10 -body_beam2_model_young 2400
  -body_beam2_model_poisson 0.37 -body_beam2_model_density 1.2e-9 -body_beam2_model_clamp xmin -body_beam2_cms_contact_set ymax
  -body_beam2_cms_num_modes 10 -body_beam2_cms_rayleigh 12.6,3.2e-7"
# shellcheck disable=SC2086
must "reduce the coarse beams" mpi 120 2 reduce $small || exit 1
cea="cea -cea_state undeformed -rom_file small.h5 -cea_slave beam1:1 -cea_master beam2 -cea_hold beam1 -coupling_mu 0.3 -cea_positions 7 -cea_modes 10
  -cea_frf_frequencies 100:5000:5 -cea_frf_inputs beam1:1:y,beam2:63:y -cea_frf_outputs beam2:63:y,beam1:1:x"
for np in 1 2; do
  # shellcheck disable=SC2086
  must "cea np=$np" mpi 120 $np $cea -cea_vectors all -cea_file small$np.h5 && echo "$LAST" | grep -E "^CEA|^FRF|^Eigenvectors"
done
if ! grep -q "CEA mu = 0.3: stable at all 7 positions (10 modes each); largest real part -6.30" <<<"$LAST"; then
  echo "FAIL the summary line is not 'stable at all 7 positions ... largest real part -6.30' (test_coupling: -6.3 1/s)"; fail=1
fi
must "reference, coarse beams" $py "$ref" small.h5 small2.h5 beam1 1 beam2 beam1 0.3 forward && echo "$LAST"
must "1 and 2 ranks" $py -c '
import h5py, numpy as np, sys
a, b = h5py.File("small1.h5", "r"), h5py.File("small2.h5", "r")
names = []
a.visititems(lambda k, o: names.append(k) if isinstance(o, h5py.Dataset) else None)
for k in names:  # the bytes: NaN patterns and the sign of zeros too
    x, y = a[k][()], b[k][()] if k in b else None
    same = y is not None and (x.tobytes() == y.tobytes() if x.dtype.kind in "fiu" else list(x) == list(y))
    if not same: sys.exit("FAIL %s differs between 1 and 2 ranks" % k)
need = {"vectors/re", "vectors/im", "vectors/index", "vectors/bodies/beam2/u_re", "frf/H_re", "real"}
if not need <= set(names): sys.exit("FAIL missing datasets: %s" % (need - set(names)))
print("1 and 2 ranks: all %d datasets equal bit for bit (vectors/re: %d x %d)" % (len(names), *a["vectors/re"].shape))' && echo "$LAST"

# 2. the beam-on-beam job (jobs/beam_on_beam.yaml, both stages; 40 modes per body) near s = 140 mm, where mu = 0.3 is
# unstable at 3.5 kHz about the undeformed configuration (139.63-140.90 mm)
must "reduce the job" mpi 120 2 reduce -options_file "$job" || exit 1
must "cea on the job" mpi 120 2 cea -options_file "$job" -cea_state undeformed -cea_range 139.5,141 -cea_positions 4 -cea_modes 20 -cea_frf_frequencies 3000:4000:3 \
  -cea_vectors unstable -cea_file job.h5 && echo "$LAST" | grep -vE "^Sliding"
if ! grep -q "CEA mu = 0.3: 2 of 4 positions unstable" <<<"$LAST" || ! grep -q "Eigenvectors (unstable): 2 modes at 2 positions, 288 coordinates" <<<"$LAST"; then
  echo "FAIL expected 2 of the 4 positions unstable (140 and 140.5 mm), their 2 eigenvectors of 288 coordinates"; fail=1
fi
must "reference, beam-on-beam" $py "$ref" beam_on_beam.h5 job.h5 beam1 1 beam2 beam1 0.3 forward && echo "$LAST"

# 3. vicms info on results files: the beam-on-beam job at 1 mm from 139 to 158 mm (two bands of unstable positions, at 140
# and 157-158 mm), and the coarse beams (stable, with the FRF map); every number it prints against the file's datasets
must "cea, two bands" mpi 120 2 cea -options_file "$job" -cea_state undeformed -cea_range 139,158 -cea_positions 20 -cea_modes 20 -cea_frf_frequencies 3000:4000:2 \
  -cea_vectors unstable -cea_file bands.h5
# the acceleration run of section 4 has no eigenvectors: its own line
must "cea, acceleration" mpi 120 2 $cea -cea_frf_quantity acceleration -cea_file acc.h5 && echo "$LAST" | grep -E "^FRF"
for f in bands.h5 small1.h5 acc.h5; do
  must "info $f" mpi 60 2 info $f && echo "$LAST"
  must "info $f against the file" $py - "$f" "$LAST" <<'PY'
import h5py, numpy as np, re, sys
path, text = sys.argv[1], sys.argv[2]
f = h5py.File(path, "r")
bad = []
def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok: bad.append(msg)
def close(a, b):  # the %g of the C side: 6 significant digits
    return abs(float(a) - b) <= 1e-5 * max(abs(b), 1e-300)
s, fr, re_, un = f["positions"][:, 0], f["frequency_hz"][()], f["real"][()], f["unstable_modes"][:, 0]
def txt(x):
    return x.decode() if isinstance(x, bytes) else str(x)
mu, slave, master, hold = f.attrs["mu"], txt(f.attrs["slave"]), txt(f.attrs["master"]), txt(f.attrs["hold"])
m = re.search(r"^CEA results %s: bodies (\S+), slave (\S+) on master (\S+), mu = (\S+) \(sliding (\w+)\), held (\S+) \((\w)\)" % re.escape(path), text, re.M)
check(m is not None and m.group(2) == slave and m.group(3) == master and close(m.group(4), mu) and m.group(6) == hold, "what was run: %s" % (m.group(0) if m else "no line"))
m = re.search(r"^  (\d+) positions from s = (\S+) to (\S+), (\d+) eigenvalues kept per position", text, re.M)
check(m is not None and int(m.group(1)) == len(s) and close(m.group(2), s[0]) and close(m.group(3), s[-1]) and int(m.group(4)) == fr.shape[1], "positions and modes: %s" % (m.group(0).strip() if m else "no line"))
# the bands: runs of consecutive positions with an unstable mode, recomputed here
bands, p = [], 0
while p < len(s):
    if un[p] <= 0:
        p += 1
        continue
    q = p
    while q < len(s) and un[q] > 0:
        q += 1
    r, w = re_[p:q], fr[p:q]
    k = np.unravel_index(np.nanargmax(r), r.shape)
    bands.append((s[p], s[q - 1], q - p, int((r > 0).sum()), w[r > 0].min(), w[r > 0].max(), r[k], s[p + k[0]], w[k]))
    p = q
printed = re.findall(r"band (\d+): s = (\S+) to (\S+) \((\d+) positions?, (\d+) unstable eigenvalues?\), (\S+) to (\S+) Hz, largest real part (\S+) 1/s at s = (\S+) \((\S+) Hz\)", text)
npos = int((un > 0).sum())
if npos:
    m = re.search(r"(\d+) of (\d+) positions unstable, in (\d+) bands?", text)
    check(m is not None and int(m.group(1)) == npos == f.attrs["n_unstable_positions"] and int(m.group(3)) == len(bands) == len(printed), "%s (recomputed: %d positions, %d bands)" % (m.group(0) if m else "no count line", npos, len(bands)))
    for b, pr in zip(bands, printed):
        ok = close(pr[1], b[0]) and close(pr[2], b[1]) and int(pr[3]) == b[2] and int(pr[4]) == b[3] and all(close(pr[5 + i], b[4 + i]) for i in range(5))
        check(ok, "band %s: s = %s to %s (%s positions, %s unstable eigenvalues), %s to %s Hz, largest real part %s 1/s at s = %s (%s Hz)" % pr)
else:
    k = np.unravel_index(np.nanargmax(re_), re_.shape)
    m = re.search(r"stable at all (\d+) positions; largest real part (\S+) 1/s at s = (\S+) \((\S+) Hz\)", text)
    check(m is not None and int(m.group(1)) == len(s) and close(m.group(2), re_[k]) and close(m.group(3), s[k[0]]) and close(m.group(4), fr[k]), "stable: %s" % (m.group(0) if m else "no line"))
if "vectors" in f:
    idx, V = f["vectors/index"][()], f["vectors/re"]
    m = re.search(r"^  eigenvectors \((\w+)\): (\d+) modes at (\d+) positions, u = L_C q over (\d+) coordinates \(vectors/re, im: (\d+) x (\d+)\); boundary-node displacements of (.*)$", text, re.M)
    bodies = ", ".join("%s (%d nodes)" % (b, len(f["vectors/bodies/%s/node_ids" % b])) for b in f["vectors/bodies"])
    ok = m is not None and m.group(1) == txt(f["vectors"].attrs["which"]) and [int(m.group(i)) for i in (2, 3, 4, 5, 6)] == [V.shape[0], int((idx >= 0).any(axis=1).sum()), V.shape[1], V.shape[0], V.shape[1]]
    check(ok and m.group(7) == bodies, "eigenvectors: %s" % (m.group(0).strip() if m else "no line"))
else:
    check(re.search(r"^  no eigenvectors \(-cea_vectors none\)$", text, re.M) is not None, "no eigenvectors line")
if "frf" in f:
    ff, H = f["frf/frequencies_hz"][:, 0], f["frf/H_re"]
    m = re.search(r"FRF map \((\w+) per unit force\): (\d+) positions x (\d+) lines \((\S+) to (\S+) Hz\), (\d+) inputs x (\d+) outputs \(H_re, H_im: (\d+) x (\d+)\)", text)
    ok = m is not None and m.group(1) == txt(f["frf"].attrs["quantity"]) and [int(m.group(i)) for i in (2, 3, 6, 7, 8, 9)] == [len(s), len(ff), len(f["frf/inputs"]), len(f["frf/outputs"]), H.shape[0], H.shape[1]]
    check(ok and close(m.group(4), ff[0]) and close(m.group(5), ff[-1]), "FRF map: %s" % (m.group(0) if m else "no line"))
sys.exit(1 if bad else 0)
PY
  echo "$LAST"
done

# 4. the FRF map as acceleration (acc.h5, run above): -omega^2 times the displacement map of small1.h5, to rounding; the
# attribute says which; the eigenvalues bit for bit those of small1.h5, which has the eigenvectors of all modes
must "acceleration = -omega^2 displacement" $py -c '
import h5py, numpy as np, sys
d, a = h5py.File("small1.h5", "r"), h5py.File("acc.h5", "r")
ff = d["frf/frequencies_hz"][:, 0]
ni, no, npos = len(d["frf/inputs"]), len(d["frf/outputs"]), len(d["positions"])
Hd = (d["frf/H_re"][()] + 1j * d["frf/H_im"][()]).reshape(npos, len(ff), no * ni)
Ha = (a["frf/H_re"][()] + 1j * a["frf/H_im"][()]).reshape(npos, len(ff), no * ni)
ref = -((2 * np.pi * ff) ** 2)[None, :, None] * Hd
err = np.abs(Ha - ref).max() / np.abs(ref).max()
q = tuple(x.decode() if isinstance(x, bytes) else str(x) for x in (d["frf"].attrs["quantity"], a["frf"].attrs["quantity"]))
same = all(np.array_equal(d[k][()], a[k][()], equal_nan=True) for k in ("positions", "frequency_hz", "real"))
ok = err < 1e-14 and q == ("displacement", "acceleration") and same and np.abs(Ha).max() > 0
print("%s acceleration map = -omega^2 x displacement map to %.1e of its largest entry %.4g (1e-14); quantity attributes %s; the CEA datasets equal (with and without -cea_vectors)" % ("ok  " if ok else "FAIL", err, np.abs(ref).max(), "/".join(q)))
sys.exit(0 if ok else 1)' && echo "$LAST"

# 5. plot_cea.py --shape on bands.h5: the unstable mode nearest s = 150 and 3540 Hz is the one at 157 mm (7 mm away; 140 is
# 10 mm away), the PNG written; a file without eigenvectors and a bad S:FREQ refused with a message
if $py -c 'import matplotlib' 2>/dev/null; then
  must "plot_cea.py --shape" $py "$VICMS_SOURCE/scripts/plot_cea.py" bands.h5 --shape 150:3540 -o . --dpi 60 && echo "$LAST"
  want=$($py -c '
import h5py, numpy as np
f = h5py.File("bands.h5", "r")
p = int(np.argmin(np.abs(f["positions"][:, 0] - 157))); j = int(np.argmax(f["real"][p]))
print("mode shape: s = %g, mode %d, %.6g Hz, real part %.6g 1/s (unstable); row %d of /vectors" % (f["positions"][p, 0], j, f["frequency_hz"][p, j], f["real"][p, j], f["vectors/index"][p, j]))')
  if [ "$(echo "$LAST" | head -1)" != "$want" ] || [ "$(head -c 8 bands_shape.png | od -An -tx1 | tr -d ' ')" != "89504e470d0a1a0a" ] || [ "$(stat -c %s bands_shape.png)" -lt 5000 ]; then
    echo "FAIL plot_cea.py --shape: expected '$want' and a PNG > 5 kB"; fail=1
  else
    echo "ok   plot_cea.py --shape 150:3540 picks the mode the file says ($want); bands_shape.png $(stat -c %s bands_shape.png) bytes"
  fi
  for bad in "acc.h5 --shape 150|no eigenvectors in this file" "bands.h5 --shape 150:1:2|--shape '150:1:2': expected S or S:FREQ"; do
    # shellcheck disable=SC2086
    out=$($py "$VICMS_SOURCE/scripts/plot_cea.py" ${bad%%|*} -o bad 2>&1)
    if [ $? -eq 0 ] || ! grep -qF -- "${bad#*|}" <<<"$out" || [ -e bad ]; then
      echo "FAIL plot_cea.py ${bad%%|*}: expected a non-zero exit with '${bad#*|}', got: $out"; fail=1
    else
      echo "ok   plot_cea.py ${bad%%|*}: $out"
    fi
  done
else
  echo "skipped plot_cea.py --shape: $py has no matplotlib"
fi

# 6. bad input, on 1 and 2 ranks
refuse "missing bodies file" "1 2" "-rom_file: cannot read 'missing.h5'" $cea -rom_file missing.h5 -cea_file bad.h5
refuse "unknown body" "1 2" "-cea_slave: no body 'beam3' in the bodies file" $cea -cea_slave beam3:1 -cea_file bad.h5
refuse "node not on the boundary" "1 2" "node 5 is not a boundary node of body beam1" $cea -cea_slave beam1:5 -cea_file bad.h5
refuse "mu < 0" "1 2" "-coupling_mu: the friction coefficient is -0.1, expected >= 0" $cea -coupling_mu -0.1 -cea_file bad.h5
refuse "one position" "1 2" "-cea_positions: 1 positions, expected at least 2" $cea -cea_positions 1 -cea_file bad.h5
refuse "bad frequencies" "1" "-cea_frf_frequencies: '5000:100:5', expected f0:f1:n" $cea -cea_frf_frequencies 5000:100:5 -cea_file bad.h5
refuse "bad output" "1" "-cea_frf_outputs: 'beam2:63:z': expected BODY:NODE:x or BODY:NODE:y" $cea -cea_frf_outputs beam2:63:z -cea_file bad.h5
refuse "bad FRF quantity" "1 2" "-cea_frf_quantity: 'velocity' is not one of displacement, acceleration" $cea -cea_frf_quantity velocity -cea_file bad.h5
refuse "bad -cea_vectors" "1 2" "-cea_vectors: 'some' is not one of none, unstable, all" $cea -cea_vectors some -cea_file bad.h5
refuse "too many positions" "1 2" "-cea_positions 2000000000, -cea_modes 10, -cea_frf_frequencies 100:5000:5: the results need .* GB per rank" \
  $cea -cea_positions 2000000000 -cea_file bad.h5
refuse "too many FRF lines" "1 2" "-cea_frf_frequencies 100:200:2e9: the results need .* FRF map 1.8.e+03 GB" $cea -cea_frf_frequencies 100:200:2e9 \
  -cea_file bad.h5
# a missing folder is refused before any work (no line of the coupling's set-up), on every rank
for np in 1 2; do
  # shellcheck disable=SC2086
  out=$(mpi 60 $np $cea -cea_file nodir/bad.h5 2>&1)
  rc=$?
  if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -q "^vicms: error: -cea_file: cannot write nodir/bad.h5: the folder nodir does not exist" <<<"$out" ||
    grep -q "^Sliding coupling" <<<"$out"; then
    echo "FAIL missing folder np=$np: exit $rc, expected the folder refused before the coupling is set up:"; echo "$out" | head -5; fail=1
  else
    echo "ok   missing folder np=$np: $(grep -m1 "^vicms: error" <<<"$out")"
  fi
done
if ls bad.h5* >/dev/null 2>&1; then
  echo "FAIL a refused run left a results file"; fail=1
fi

# 7. one job per results file, and clean stops: while a job runs, a second job on its file is refused before any work,
# naming the process that holds it. A run stopped by SIGTERM exits 75 with a checkpoint FILE.ckpt and no results file; the
# job stopped three times (on 2 ranks while it computes eigenvalues, on 1 rank once it computes eigenvectors, on 2 ranks
# once it computes the FRF map) and completed on 1 rank ends with the file of an uninterrupted run bit for bit (every
# dataset, every attribute but the options string) and no checkpoint or lock left (another job, -coupling_mu 0.2, is refused
# the checkpoint before the last run); the positions and lines computed over
# the four runs add up to exactly the job's (none skipped, none computed twice).
long="cea -cea_state undeformed -rom_file small.h5 -cea_slave beam1:1 -cea_master beam2 -cea_hold beam1 -coupling_mu 0.3 -cea_positions 60 -cea_modes 10
  -cea_frf_frequencies 100:5000:1200 -cea_frf_inputs beam1:1:y,beam2:63:y -cea_frf_outputs beam2:63:y,beam1:1:x -cea_vectors all"
# shellcheck disable=SC2086
must "uninterrupted run" mpi 120 2 $long -cea_file full.h5 && echo "$LAST" | grep "^Wrote"
# stop_cea NP WAIT_FOR FILE ARGS...: start the long run with ARGS into FILE on NP ranks, TERM its ranks once the log FILE.log
# has a line starting with WAIT_FOR (after the command in $WHILE, if any); the exit status in $rc
stop_cea() {
  local np=$1 wait_for=$2 file=$3 pid
  shift 3
  # shellcheck disable=SC2086
  timeout 120 mpirun --oversubscribe -n "$np" "$VICMS_BIN" $long "$@" -cea_file "$file" -cea_progress_interval 0 >"$file.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 2400); do grep -q "^$wait_for" "$file.log" && break; sleep 0.05; done
  [ -n "${WHILE:-}" ] && $WHILE
  kill -TERM $(pgrep -P "$(pgrep -P $pid | head -1)" -x vicms) 2>/dev/null
  wait $pid
  rc=$?
}
# a second job on a file while the first runs (5000 positions: it runs until stopped) is refused before any work
second_job() {
  # shellcheck disable=SC2086
  out=$(mpi 60 1 $long -cea_modes 9 -cea_file lock.h5 2>&1)
  if [ $? -eq 0 ] || ! grep -qE "^vicms: error: lock.h5 is in use by another job: process [0-9]+ on this host" <<<"$out" ||
    grep -q "^Sliding coupling" <<<"$out"; then
    echo "FAIL a second job on lock.h5 while the first runs: expected a refusal naming the process before any work:"; echo "$out" | head -5; fail=1
  else
    echo "ok   a second job on lock.h5 is refused: $(grep -m1 "^vicms: error" <<<"$out" | cut -c1-120)..."
  fi
}
WHILE=second_job stop_cea 2 "  eigenvalues" lock.h5 -cea_positions 5000
if [ $rc -ne 75 ] || [ ! -f lock.h5.ckpt ] || [ -e lock.h5.lock ]; then
  echo "FAIL the first job on lock.h5: exit $rc, expected 75 with its checkpoint, its lock removed"; tail -3 lock.h5.log; fail=1
fi
sum_eig=0 sum_vec=0 sum_lines=0
for stop in "2 |  eigenvalues" "1 |  eigenvectors" "2 |  FRF"; do
  np=${stop%% |*}
  stop_cea "$np" "${stop#*|}" stop.h5
  counts=$(grep -oE "\(([0-9]+), ([0-9]+), ([0-9]+) of them computed in this run\)" stop.h5.log | grep -oE "[0-9]+" | tr '\n' ' ')
  if [ $rc -ne 75 ] || ! grep -q "^vicms: stopped by SIGTERM; the checkpoint stop.h5.ckpt holds" stop.h5.log || [ ! -f stop.h5.ckpt ] || [ -e stop.h5 ] ||
    [ -z "$counts" ]; then
    echo "FAIL SIGTERM np=$np: exit $rc (expected 75), expected stop.h5.ckpt and no stop.h5:"; tail -5 stop.h5.log; fail=1
  else
    echo "ok   SIGTERM np=$np: exit 75; $(grep "^vicms: stopped" stop.h5.log | cut -c1-200)"
  fi
  read -r e v l <<<"$counts"
  sum_eig=$((sum_eig + ${e:-0})) sum_vec=$((sum_vec + ${v:-0})) sum_lines=$((sum_lines + ${l:-0}))
done
refuse "another job on the checkpoint" "1 2" "-cea_file: the checkpoint stop.h5.ckpt cannot be resumed by this run: it belongs to another job" \
  $long -coupling_mu 0.2 -cea_file stop.h5
if [ ! -f stop.h5.ckpt ] || [ -e stop.h5 ] || [ -e stop.h5.lock ]; then
  echo "FAIL another job on the checkpoint: expected it kept, no results file and no lock"; fail=1
fi
# shellcheck disable=SC2086
must "resumed run" mpi 120 1 $long -cea_file stop.h5 && echo "$LAST" | grep -E "^Resumed|^Wrote"
read -r e v l <<<"$(grep -oE "this run: eigenvalues at [0-9]+ positions, eigenvectors at [0-9]+, FRF on [0-9]+ lines" <<<"$LAST" | grep -oE "[0-9]+" | tr '\n' ' ')"
sum_eig=$((sum_eig + ${e:-0})) sum_vec=$((sum_vec + ${v:-0})) sum_lines=$((sum_lines + ${l:-0}))
expect "positions (eigenvalues, eigenvectors) and FRF lines computed over the four runs" "$sum_eig $sum_vec $sum_lines" "60 60 1200"
must "stopped three times and resumed = uninterrupted" $py -c '
import h5py, sys
a, b = h5py.File("full.h5", "r"), h5py.File("stop.h5", "r")
def items(f):
    out = {}
    def visit(k, o):
        out[k] = o
    f.visititems(visit)
    return out
ia, ib = items(a), items(b)
bad = sorted(set(ia) ^ set(ib))
for k, o in ia.items():
    if k not in ib: continue
    if isinstance(o, h5py.Dataset):
        x, y = o[()], ib[k][()]
        if not (x.tobytes() == y.tobytes() if x.dtype.kind in "fiu" else list(x) == list(y)): bad.append(k)
    for n, v in o.attrs.items():
        if str(v) != str(ib[k].attrs.get(n)): bad.append(k + "@" + n)
for n, v in a.attrs.items():
    if n != "options" and str(v) != str(b.attrs.get(n)): bad.append("/@" + n)
nd = sum(isinstance(o, h5py.Dataset) for o in ia.values())
print("%s stopped on 2 ranks, on 1, on 2, completed on 1: %d datasets and the attributes equal to the uninterrupted run bit for bit%s" % ("ok  " if not bad and nd >= 15 else "FAIL", nd, ", differ: %s" % bad if bad else ""))
sys.exit(1 if bad or nd < 15 else 0)' && echo "$LAST"
if [ -e stop.h5.ckpt ] || [ -e stop.h5.lock ] || [ -e full.h5.lock ]; then
  echo "FAIL the complete run left its checkpoint or a lock: $(ls stop.h5.* full.h5.* 2>/dev/null)"; fail=1
fi
exit $fail
