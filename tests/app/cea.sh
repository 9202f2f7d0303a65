#!/usr/bin/env bash
# `vicms cea` (seed 003 §1.4, Eq. 45): the stability sweep and the FRF map of two sliding bodies against an independent numpy
# reference (cea_reference.py: the rows, null spaces and eigenvalues recomputed from the bodies file; frequencies and real
# parts to 1e-8 of |lambda|, the FRF to 1e-8 of max |H|, the count of unstable positions equal), 1 and 2 ranks bit for bit,
# and bad input refused with a message naming the option.
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
cea="cea -rom_file small.h5 -cea_slave beam1:1 -cea_master beam2 -cea_hold beam1 -coupling_mu 0.3 -cea_positions 7 -cea_modes 10
  -cea_frf_frequencies 100:5000:5 -cea_frf_inputs beam1:1:y,beam2:63:y -cea_frf_outputs beam2:63:y,beam1:1:x"
for np in 1 2; do
  # shellcheck disable=SC2086
  must "cea np=$np" mpi 120 $np $cea -cea_file small$np.h5 && echo "$LAST" | grep -E "^CEA|^FRF"
done
if ! grep -q "CEA mu = 0.3: stable at all 7 positions (10 modes each); largest real part -6.30" <<<"$LAST"; then
  echo "FAIL the summary line is not 'stable at all 7 positions ... largest real part -6.30' (test_coupling: -6.3 1/s)"; fail=1
fi
must "reference, coarse beams" $py "$ref" small.h5 small2.h5 beam1 1 beam2 beam1 0.3 forward && echo "$LAST"
must "1 and 2 ranks" $py -c '
import h5py, numpy as np, sys
a, b = h5py.File("small1.h5", "r"), h5py.File("small2.h5", "r")
for k in ("positions", "frequency_hz", "real", "unstable_modes", "frf/H_re", "frf/H_im"):
    if not np.array_equal(a[k][()], b[k][()], equal_nan=True): sys.exit("FAIL %s differs between 1 and 2 ranks" % k)
print("1 and 2 ranks: equal bit for bit")' && echo "$LAST"

# 2. the beam-on-beam job (jobs/beam_on_beam.yaml, both stages) near s = 140 mm, where mu = 0.3 is unstable at 3.5 kHz
must "reduce the job" mpi 120 2 reduce -options_file "$job" || exit 1
must "cea on the job" mpi 120 2 cea -options_file "$job" -cea_range 139,142 -cea_positions 4 -cea_modes 20 -cea_frf_frequencies 3000:4000:3 \
  -cea_file job.h5 && echo "$LAST" | grep -vE "^Sliding"
if ! grep -q "CEA mu = 0.3: 2 of 4 positions unstable" <<<"$LAST"; then
  echo "FAIL expected 2 of the 4 positions unstable (140 and 141 mm)"; fail=1
fi
must "reference, beam-on-beam" $py "$ref" beam_on_beam.h5 job.h5 beam1 1 beam2 beam1 0.3 forward && echo "$LAST"

# 3. bad input, on 1 and 2 ranks
refuse "missing bodies file" "1 2" "-rom_file: cannot read 'missing.h5'" $cea -rom_file missing.h5 -cea_file bad.h5
refuse "unknown body" "1 2" "-cea_slave: no body 'beam3' in the bodies file" $cea -cea_slave beam3:1 -cea_file bad.h5
refuse "node not on the boundary" "1 2" "node 5 is not a boundary node of body beam1" $cea -cea_slave beam1:5 -cea_file bad.h5
refuse "mu < 0" "1 2" "-coupling_mu: the friction coefficient is -0.1, expected >= 0" $cea -coupling_mu -0.1 -cea_file bad.h5
refuse "one position" "1 2" "-cea_positions: 1 positions, expected at least 2" $cea -cea_positions 1 -cea_file bad.h5
refuse "bad frequencies" "1" "-cea_frf_frequencies: '5000:100:5', expected f0:f1:n" $cea -cea_frf_frequencies 5000:100:5 -cea_file bad.h5
refuse "bad output" "1" "-cea_frf_outputs: 'beam2:63:z': expected BODY:NODE:x or BODY:NODE:y" $cea -cea_frf_outputs beam2:63:z -cea_file bad.h5
if ls bad.h5* >/dev/null 2>&1; then
  echo "FAIL a refused run left a results file"; fail=1
fi
exit $fail
