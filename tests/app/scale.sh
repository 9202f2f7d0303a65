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

# the iterative solver's printed counts (VISolverView) against PETSc's and SLEPc's own reports of the same solves: the sum of the
# CG iterations of every "Linear cms_st_ solve converged" line and their number, and the eigensolver's iterations
counts() { # WHAT LOG PRINTED-LINE-PATTERN: the printed solves and iterations equal to the sums over PETSc's converged-reason lines
  local what=$1 log=$2 pat=$3 line solves its rsolves rits
  line=$(grep -m1 "$pat" "$log") || { echo "FAIL $what: no line '$pat' in the output"; fail=1; return; }
  solves=$(echo "$line" | sed -n 's/.*CG \([0-9]*\) solves, \([0-9]*\) iterations.*/\1/p')
  its=$(echo "$line" | sed -n 's/.*CG \([0-9]*\) solves, \([0-9]*\) iterations.*/\2/p')
  rsolves=$(grep -c "Linear ${4}st_ solve converged" "$log")
  rits=$(grep "Linear ${4}st_ solve converged" "$log" | sed 's/.*iterations //' | paste -sd+ | bc)
  if [ "$solves" = "$rsolves" ] && [ "$its" = "$rits" ]; then echo "ok   $what: printed $solves CG solves, $its iterations = PETSc's reports"
  else echo "FAIL $what: printed '$line', PETSc reported $rsolves solves, $rits iterations"; fail=1; fi
}
mpi 180 2 reduce $plate $red -cms_type cb -cms_solver iterative -cms_st_ksp_converged_reason -rom_file c.h5 >cb.log 2>&1 || { echo "FAIL reduce cb with counts"; fail=1; }
# the static modes are solved first, then the fixed-interface modes: split the log at the static modes' line
sed -n '1,/the static modes: CG/p' cb.log >cb_static.log
sed -n '/the static modes: CG/,$p' cb.log | tail -n +2 >cb_eps.log
counts "Craig-Bampton static modes" cb_static.log "the static modes: CG" cms_
counts "Craig-Bampton fixed-interface modes (Krylov-Schur's inner CG)" cb_eps.log "the model with the boundary fixed: Krylov-Schur" cms_
mpi 180 2 modes $box -model_clamp zmin -modes_solver iterative -modes_eps_type lobpcg -modes_eps_converged_reason -modes_file l.h5 >l.log 2>&1 ||
  { echo "FAIL modes lobpcg with counts"; fail=1; }
p=$(sed -n 's/.*the modes: LOBPCG, \([0-9]*\) iterations.*/\1/p' l.log)
r=$(sed -n 's/.*Linear eigensolve converged.*iterations \([0-9]*\).*/\1/p' l.log)
[ -n "$p" ] && [ "$p" = "$r" ] && echo "ok   LOBPCG: printed $p iterations = SLEPc's report" || { echo "FAIL LOBPCG: printed '$p', SLEPc '$r'"; fail=1; }
exit $fail
