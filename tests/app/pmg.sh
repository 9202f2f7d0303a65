#!/usr/bin/env bash
# The p-multigrid of the iterative path on quadratic elements (src/fem/pmg.c, docs/scale.md) on the bundled C3D20 beam
# (meshes/beam_c3d20.inp, 1,800 DOFs): `vicms modes` and a Craig-Bampton and a MacNeal reduction by the iterative solver on
# 1, 2 and 3 ranks against the direct path (frequencies and the ROMs' spectra within 1e-8: compare_roms), and its CG iterations
# per solve: at most 40 (GAMG alone: 107).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_need_scipy
vicms_workdir

beam="-mesh_file $VICMS_SOURCE/meshes/beam_c3d20.inp"
red="-cms_contact_set TIP -cms_contact_dirs 1 -cms_num_modes 8"
# mean_its: the mean CG iterations per solve of the -*_ksp_converged_reason lines of $LAST
mean_its() { echo "$LAST" | sed -n 's/^Linear .* solve converged due to .* iterations \([0-9]*\)$/\1/p' | awk '{s += $1; n++} END {if (n) printf "%.1f", s / n; else print 0}'; }

must "modes direct" mpi 120 1 modes $beam -modes_num 4 -modes_file d_modes.h5
for t in cb macneal; do must "reduce $t direct" mpi 120 1 reduce $beam $red -cms_type $t -rom_file d_$t.h5; done
pmg=0
for np in 1 2 3; do
  must "np=$np modes iterative" mpi 120 "$np" modes $beam -modes_num 4 -modes_solver iterative -modes_file i.h5 &&
    compare_roms "np=$np modes beam, p-multigrid vs direct" d_modes.h5 i.h5 0
  for t in cb macneal; do
    must "np=$np reduce $t iterative" mpi 120 "$np" reduce $beam $red -cms_type $t -cms_solver iterative -rom_file i.h5 -cms_st_ksp_converged_reason &&
      compare_roms "np=$np reduce $t beam, p-multigrid vs direct" d_$t.h5 i.h5 1
    [ "$np" = 2 ] && [ $t = cb ] && pmg=$(mean_its)
  done
done
# GAMG alone (-cms_st_pmg false) took 107 per solve on this reduction (2026-11-29), the p-multigrid 22
if $py -c "import sys; sys.exit(not (0 < $pmg <= 40))"; then
  echo "ok   CG iterations per solve of the Craig-Bampton beam on 2 ranks: $pmg (GAMG alone: 107)"
else
  echo "FAIL CG iterations per solve of the Craig-Bampton beam on 2 ranks: $pmg, expected at most 40 (GAMG alone: 107)"
  fail=1
fi
exit $fail
