#!/usr/bin/env bash
# Issue 23 §1 (the seam, behaviour unchanged): the results of two builds compared bit for bit. Each case runs with both
# executables on the same ROM (reduced once, by the first build), and every dataset of the two results files is compared
# with numpy.array_equal (NaN equal to NaN, the dtype and shape equal too); attributes that differ by nature (the run's
# options string with its file names, wall times, dates, the host, steps per second) are listed and skipped, every other
# attribute compared as well.
#   - simulate, the bouncing bar of jobs/bar_bounce.yaml (1000 cells, 20 modes), 2 s (1/8 of the job): leapfrog on the
#     job's cb_massless ROM; moreau (symmetric e = 0.9, theta = 0.6), nsgalpha (e = 0) and mixed (e = 0.9) on the same bar
#     reduced with a mass-carrying boundary (-cms_type cb);
#   - simulate -step_dt auto: leapfrog, moreau, nsgalpha (the stability analysis through the system's interface), and
#     moreau theta with -step_accuracy 0.01 over 0.5 s (the trials' outputs, the window's frequency through the interface);
#   - simulate on the multibody system type: jobs/pendulum.yaml and jobs/rocking_block.yaml, 1 s, nsgalpha and moreau
#     theta (their nonlinear paths; -step_dt auto alone is refused there by both builds: no natural frequency);
#   - slide, the coarse beams of tests/app/slide.sh (2 x 20 CPS4, 10 modes each): mu = 0.3 with the random force,
#     -dual_geometry fixed, -dual_start static, two slaves, frictionless; 2e-4 s (2000 steps) each.
# usage: bash bench/seam_bitwise.sh BUILD_A BUILD_B   (e.g. /work/main/build build)
set -uo pipefail
a=$(cd "${1:?BUILD_A}" && pwd)/vicms
b=$(cd "${2:?BUILD_B}" && pwd)/vicms
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
py=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 PMIX_MCA_psec="${PMIX_MCA_psec:-^munge}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
echo "A = $a"
echo "B = $b"

cat >compare.py <<'PY'
import h5py, numpy as np, sys
# what differs between two runs by nature: the options string (it names the results file), the wall times
skip = {"options", "job_options", "wall_time", "wall_time_dgemv", "date", "host", "elapsed", "steps_per_second", "matvec_time", "created",
        "command", "seconds", "time_per_step"}
def items(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(k, o):
            if isinstance(o, h5py.Dataset): out[k] = o[()]
            for an, av in o.attrs.items(): out["%s@%s" % (k, an)] = av
        f.visititems(visit)
        for an, av in f.attrs.items(): out["/@%s" % an] = av
    return out
x, y = items(sys.argv[1]), items(sys.argv[2])
if set(x) != set(y): sys.exit("DIFFER %s: objects differ: %s" % (sys.argv[3], sorted(set(x) ^ set(y))[:10]))
nd = na = 0; skipped = []
for k in sorted(x):
    u, v = np.asarray(x[k]), np.asarray(y[k])
    name = k.split("@")[1] if "@" in k else k.split("/")[-1]
    if name in skip:
        skipped.append(name); continue
    same = u.dtype == v.dtype and u.shape == v.shape and (np.array_equal(u, v, equal_nan=True) if u.dtype.kind in "fc" else np.array_equal(u, v))
    if not same: sys.exit("DIFFER %s: %s" % (sys.argv[3], k))
    if "@" in k: na += 1
    else: nd += 1
print("equal %s: %d datasets and %d attributes bit for bit (skipped: %s)" % (sys.argv[3], nd, na, ",".join(sorted(set(skipped))) or "none"))
PY

# pair LABEL RESULT_OPTION ARGS...: the case with A and with B, then the comparison
pair() {
  local label=$1 opt=$2
  shift 2
  for w in a b; do
    local bin=$a
    [ $w = b ] && bin=$b
    if ! "$bin" "$@" "$opt" "$work/$w.h5" >"$work/$w.log" 2>&1; then
      echo "FAIL $label: $w exited non-zero:"
      tail -5 "$work/$w.log"
      fail=1
      return
    fi
  done
  $py "$work/compare.py" "$work/a.h5" "$work/b.h5" "$label" || fail=1
  rm -f "$work/a.h5" "$work/b.h5"
}

# the bar (reduced by A)
"$a" reduce -options_file "$root/jobs/bar_bounce.yaml" -rom_file bar.h5 >reduce_bar.log 2>&1 || { tail -5 reduce_bar.log; exit 1; }
bar="simulate -options_file $root/jobs/bar_bounce.yaml -rom_file bar.h5 -step_end_time 2 -results_overwrite"
pair "simulate leapfrog" -results_file $bar -step_type leapfrog
"$a" reduce -options_file "$root/jobs/bar_bounce.yaml" -cms_type cb -rom_file barcb.h5 >reduce_barcb.log 2>&1 || { tail -5 reduce_barcb.log; exit 1; }
bar="$bar -rom_file barcb.h5"
pair "simulate moreau symmetric e = 0.9" -results_file $bar -step_type moreau -step_restitution 0.9
pair "simulate moreau theta = 0.6" -results_file $bar -step_type moreau -step_moreau_variant theta -step_theta 0.6
pair "simulate nsgalpha e = 0" -results_file $bar -step_type nsgalpha -step_restitution 0 -step_dt 1e-3
pair "simulate mixed e = 0.9" -results_file $bar -step_type mixed -step_restitution 0.9 -step_dt 1e-3
# the automatic step (the stability analysis reads the system's operators through its interface)
pair "simulate moreau -step_dt auto" -results_file $bar -step_type moreau -step_dt auto
pair "simulate nsgalpha -step_dt auto" -results_file $bar -step_type nsgalpha -step_dt auto
# the step from accuracy (the trials' outputs by name, the window from the lowest frequency: the system's interface)
pair "simulate moreau theta -step_accuracy" -results_file $bar -step_type moreau -step_moreau_variant theta -step_dt auto -step_accuracy 0.01 -step_end_time 0.5
bar="simulate -options_file $root/jobs/bar_bounce.yaml -rom_file bar.h5 -step_end_time 2 -results_overwrite"
pair "simulate leapfrog -step_dt auto" -results_file $bar -step_type leapfrog -step_dt auto
# the multibody system type (jobs/pendulum.yaml, jobs/rocking_block.yaml): nsgalpha and moreau's nonlinear paths, 1 s
cd "$root" || exit 1
for job in pendulum rocking_block; do
  pair "simulate $job nsgalpha" -results_file simulate -options_file jobs/$job.yaml -step_end_time 1 -results_overwrite
  pair "simulate $job moreau theta" -results_file simulate -options_file jobs/$job.yaml -step_end_time 1 -results_overwrite -step_type moreau \
    -step_moreau_variant theta
done
cd "$work" || exit 1

# the coarse beams of tests/app/slide.sh (reduced by A, on 2 ranks)
source "$root/bench/slide_beams.sh"
small=$slide_beams
# shellcheck disable=SC2086
mpirun -n 2 "$a" reduce $small >reduce_small.log 2>&1 || { tail -5 reduce_small.log; exit 1; }
# the same with node 2 of beam1 on its boundary too (the two-slave case of tests/app/slide.sh)
two=$(echo "$small" | sed -e 's/small.h5/two.h5/' -e 's/-body_beam1_cms_contact_set xmin_ymin,xmax/-body_beam1_cms_contact_nodes 1,2,21,42,63/' \
  -e 's/-body_beam1_cms_outputs 1:x,1:y,21:y,42:y,63:y/-body_beam1_cms_outputs 1:x,1:y,2:x,2:y,21:y,42:y,63:y/')
# shellcheck disable=SC2086
"$a" reduce $two >reduce_two.log 2>&1 || { tail -5 reduce_two.log; exit 1; }
slide="slide -rom_file small.h5 -slide_slave beam1:1 -slide_master beam2 -slide_drive beam1 -slide_drive_velocity 30 -slide_preload 0,-2
  -slide_end_time 2e-4 -dual_dt 1e-7 -slide_record_interval 1e-6"
noise="-slide_noise_rms 0.01 -slide_noise_band 2000,8000 -slide_noise_harmonics 13 -slide_seed 7"
# shellcheck disable=SC2086
{
  pair "slide mu = 0.3, random force" -slide_file $slide $noise -dual_mu 0.3
  pair "slide mu = 0 (frictionless)" -slide_file $slide $noise -dual_mu 0 -slide_noise_dir y
  pair "slide -dual_geometry fixed" -slide_file $slide -dual_mu 0.3 -dual_geometry fixed
  pair "slide -dual_start static" -slide_file $slide -dual_mu 0.3 -dual_start static
  pair "slide two slaves" -slide_file $slide $noise -rom_file two.h5 -slide_slave beam1:1,2 -dual_mu 0.3
  pair "slide from s = 100 mm, every step recorded" -slide_file $slide $noise -dual_mu 0.3 -slide_start 100 -slide_record_interval 0
}
[ $fail -eq 0 ] && echo "ALL EQUAL" || echo "SOME DIFFER"
exit $fail
