#!/usr/bin/env bash
# `vicms reduce -cms_frame_invariants` (issue 23 §2, docs/frame.md): the floating-frame inertia invariants of the ROM
# file's group /frame checked by tests/app/frame_check.py against closed forms: (1) a planar cantilever (40 x 4 CPS4,
# Craig-Bampton, boundary the tip's neutral-axis node in x, so that the first fixed-interface mode is the cantilever's
# first bending mode): mass, first moment, inertia about the end exact (1e-12); the trace of the mode products equal to
# the ROM's M (1e-12); the first bending mode's int rho Phi and int rho x Phi against Euler-Bernoulli (1e-3), int rho y Phi^x
# against the turning cross-sections (2e-2); 1, 2 and 3 ranks the same (1e-10); (2) a spatial cantilever (40 x 2 x 2 C3D8): the
# rigid invariants (1e-12), its first bending modes in z and y against Euler-Bernoulli (2e-3); (3) with lumped mass, int rho Phi equal to the ROM's gravity load (1e-12); (4) the beam turned by 30 degrees: the
# invariants turn as tensors (1e-9); (5) a 1-D parent refused on 1, 2, 3 ranks. A ROM without /frame refused by a reader that
# needs it: test_rom_frame.
source "$(dirname "$0")/lib.sh"
vicms_need_h5py
vicms_workdir
chk="$py $VICMS_SOURCE/tests/app/frame_check.py"
run_check() {
  local what=$1 out
  shift
  out=$($chk "$@" 2>&1) || { echo "FAIL $what:"; echo "$out"; fail=1; return; }
  echo "$out" | sed "s/^/$what: /"
}

mat="-model_young 2e11 -model_poisson 0.3 -model_density 7800"
# 1 x 0.05 m, 1 cm thick, the frame's origin at the middle of the clamped end; node 123 is the tip's neutral-axis node
beam="-mesh_rect_cells 40,4 -mesh_rect_lengths 1,0.05 -mesh_rect_thickness 0.01 -mesh_rect_origin 0,-0.025 $mat -model_clamp xmin
  -cms_type cb -cms_contact_nodes 123 -cms_contact_dirs 1 -cms_contact_normal 1,0,0 -cms_num_modes 6 -cms_frame_invariants"
for np in 1 2 3; do
  # shellcheck disable=SC2086
  must "reduce beam np=$np" mpi 60 "$np" reduce $beam -rom_file beam$np.h5 || continue
  grep -q "floating-frame invariants (planar, mesh axes and origin): mass 3.9, first moment (1.95, " <<<"$LAST" ||
    { echo "FAIL np=$np: the ROM's view does not show the invariants"; fail=1; }
done
[ -f beam1.h5 ] && run_check beam beam beam1.h5 1 0.05
for np in 2 3; do
  [ -f beam1.h5 ] && [ -f beam$np.h5 ] && run_check "np=$np vs 1" same beam1.h5 beam$np.h5
done

# 2. spatial: a 1 x 0.05 x 0.03 cantilever of 40 x 2 x 2 C3D8, clamped at xmin, boundary its tip's centre (node 205) in x
box="-mesh_box_cells 40,2,2 -mesh_box_lengths 1,0.05,0.03 $mat -model_clamp xmin -cms_type cb -cms_contact_nodes 205
  -cms_contact_dirs 1 -cms_contact_normal 1,0,0 -cms_num_modes 4 -cms_frame_invariants"
# shellcheck disable=SC2086
must "reduce box" mpi 60 2 reduce $box -rom_file box.h5 && run_check box box box.h5 1 0.05 0.03 7800 bending

# 3. lumped mass: the assembled M holds every node's mass, so its gravity load is int rho Phi
# shellcheck disable=SC2086
must "reduce lumped" mpi 60 2 reduce $beam -model_lumped_mass -cms_gravity 0,1,0 -rom_file lumped.h5 &&
  run_check gravity gravity lumped.h5 y

# 4. the beam [0,1] x [0,0.05] turned by 30 degrees about the origin, its tip's frames with it
flat="-mesh_rect_cells 20,2 -mesh_rect_lengths 1,0.05 -mesh_rect_thickness 0.01 $mat -model_clamp xmin -cms_type cb
  -cms_contact_set xmax -cms_contact_dirs 2 -cms_num_modes 6 -cms_frame_invariants"
# shellcheck disable=SC2086
must "reduce flat" mpi 60 2 reduce $flat -cms_contact_normal 1,0,0 -cms_contact_t1 0,1,0 -rom_file flat.h5 &&
  must "reduce turned" mpi 60 2 reduce $flat -mesh_rect_angle 30 -cms_contact_normal 0.8660254037844387,0.5,0 \
    -cms_contact_t1 -0.5,0.8660254037844387,0 -rom_file turned.h5 && run_check rotated rotated flat.h5 turned.h5 30

# 5. bad input: a 1-D parent (a line of rods) has no floating frame; refused before the reduction, no ROM file left
refuse "1-D parent" "1 2 3" "cms_frame_invariants: the parent model is 1-D; a floating frame needs a planar (2-D) or spatial (3-D) model" \
  reduce -mesh_line_cells 10 -mesh_line_length 1 -model_young 1 -model_density 1 -model_clamp start -cms_type cb -cms_contact_set end \
  -cms_num_modes 3 -cms_frame_invariants -rom_file bad.h5
if ls bad.h5* >/dev/null 2>&1; then
  echo "FAIL a refused reduction left a ROM file"; fail=1
fi

exit $fail
