#!/usr/bin/env bash
# The iterative path (-modes_solver / -cms_solver iterative: CG + GAMG with the rigid-body modes, Krylov-Schur) against the
# direct one (MUMPS) on 1, 2 and 3 ranks: the frequencies of `vicms modes` on a clamped and a free box, the component modes and
# the ROM's condensed spectrum (generalized eigenvalues of its K, M by SciPy) of a Craig-Bampton and a MacNeal reduction of the
# plate, all within 1e-8 relative; bad input of the solver options with their messages (docs/scale.md).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_need_scipy
vicms_workdir

box="-mesh_box_cells 3,3,12 -mesh_box_lengths 0.04,0.04,0.16 -model_young 210e9 -model_poisson 0.3 -model_density 7800 -modes_num 12"
plate="-mesh_box_cells 2,4,20 -mesh_box_lengths 0.008,0.04,0.15 -model_young 184e9 -model_poisson 0.33 -model_density 8220 -model_clamp zmin"
red="-cms_contact_nodes 313,314,315 -cms_contact_dirs 1 -cms_num_modes 12"

# the direct path once on 1 rank (its results on 1, 2, 3 ranks agree: tests/app/modes.sh, reduce.sh), the iterative on 1, 2 and 3
must "modes clamped direct" mpi 180 1 modes $box -model_clamp zmin -modes_file d_clamped.h5
must "modes free direct" mpi 180 1 modes $box -modes_file d_free.h5
for t in cb macneal; do must "reduce $t direct" mpi 180 1 reduce $plate $red -cms_type $t -rom_file d_$t.h5; done
for np in 1 2 3; do
  for bc in clamped free; do
    clamp=""; [ $bc = clamped ] && clamp="-model_clamp zmin"
    must "np=$np modes $bc iterative" mpi 180 "$np" modes $box $clamp -modes_solver iterative -modes_file i.h5 &&
      compare_roms "np=$np modes $bc box, iterative vs direct" d_$bc.h5 i.h5 0
  done
  for t in cb macneal; do
    must "np=$np reduce $t iterative" mpi 180 "$np" reduce $plate $red -cms_type $t -cms_solver iterative -rom_file i.h5 &&
      compare_roms "np=$np reduce $t plate, iterative vs direct" d_$t.h5 i.h5 1
  done
done

# LOBPCG on request, on the clamped box: the same frequencies
must "modes lobpcg" mpi 180 2 modes $box -model_clamp zmin -modes_solver iterative -modes_eps_type lobpcg -modes_file i.h5 &&
  compare_roms "np=2 modes clamped box, LOBPCG vs direct" d_clamped.h5 i.h5 0

# bad input
refuse "unknown -modes_solver" "1 2" "-modes_solver.*mumps" modes $box -modes_solver mumps
refuse "unknown -cms_solver" "1" "-cms_solver.*cg" reduce $plate $red -cms_solver cg -rom_file bad.h5
refuse "iterative with a MUMPS option" "1 2" "-cms_st_mat_mumps_icntl_14: an option of the direct (MUMPS) solver, given with the iterative solver (-cms_solver iterative)" \
  reduce $plate $red -cms_solver iterative -cms_st_mat_mumps_icntl_14 50 -rom_file bad.h5
refuse "iterative with an eigensolver it cannot take" "1" "-modes_eps_type jd: the iterative solver (-modes_solver iterative) takes lobpcg or krylovschur" \
  modes $box -model_clamp zmin -modes_solver iterative -modes_eps_type jd
refuse "iterative with its own spectral transformation" "1" "-modes_st_type: the iterative solver chooses the spectral transformation itself" \
  modes $box -model_clamp zmin -modes_solver iterative -modes_st_type cayley
refuse "iterative with a positive shift" "1" "not positive definite (a positive shift): the iterative solver" \
  modes $box -model_clamp zmin -modes_solver iterative -modes_shift 1e9
refuse "LOBPCG on a free-floating model" "1 2" "-modes_eps_type lobpcg: the model is free-floating" \
  modes $box -modes_solver iterative -modes_eps_type lobpcg
refuse "bad -cms_tol" "1" "-cms_tol: got 2.*expected a value in (0, 1)" reduce $plate $red -cms_tol 2 -rom_file bad.h5
# the memory check before MUMPS factorizes: its analysis' estimate against -memory_limit (MB per rank; default the memory available)
# (a 6x6x18 box: MUMPS estimates 7 MB per rank on 1 rank)
mid="-mesh_box_cells 6,6,18 -mesh_box_lengths 0.04,0.04,0.12 -model_young 210e9 -model_poisson 0.3 -model_density 7800 -modes_num 5 -model_clamp zmin"
refuse "factorization over the memory limit (modes)" "1 2" "Not enough memory to factor K - sigma M.*MB per rank (INFOG(16).*use the iterative solver (-modes_solver iterative" \
  modes $mid -memory_limit 2
refuse "factorization over the memory limit (reduce)" "1 2" "Not enough memory to factor the stiffness matrix of the parent model.*(-cms_solver iterative" \
  reduce $mid -cms_contact_set zmax -cms_contact_dirs 1 -cms_num_modes 5 -cms_type macneal -memory_limit 2 -rom_file bad.h5
refuse "bad -memory_limit" "1" "-memory_limit: got -3.*expected a positive number of MB per rank" modes $box -model_clamp zmin -memory_limit -3
must "iterative under the same limit" mpi 180 1 modes $mid -memory_limit 2 -modes_solver iterative
[ -e bad.h5 ] && { echo "FAIL a refused reduction left bad.h5 behind"; fail=1; }
exit $fail
