/* Craig–Bampton basis (seed 000 Eq. 20) and its massless variant (Eqs. 22–23): static constraint modes and
   fixed-interface normal modes, one solver of K_ii for both (a MUMPS factorization or CG + GAMG: VISolver). */
#include "cmsimpl.h"
#include <vicms/sys.h>

PetscErrorCode VICMSBasisCraigBampton(VICMS cms)
{
  Mat      Kii, Mii, Kib, Psi, Theta;
  VISolver solver;
  Vec      e, Ke, col, full;
  PetscInt ni_local, nlocal, rstart, rend, nb = cms->nb, nm = cms->num_modes, n = nb + nm;

  PetscFunctionBeginUser;
  PetscCall(MatCreateSubMatrix(cms->K, cms->is_i, cms->is_i, MAT_INITIAL_MATRIX, &Kii));
  PetscCall(MatCreateSubMatrix(cms->M, cms->is_i, cms->is_i, MAT_INITIAL_MATRIX, &Mii));
  PetscCall(MatSetOption(Kii, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(Mii, MAT_SYMMETRIC, PETSC_TRUE));
  {
    PetscErrorCode ierr = VICMSFactor(cms, Kii, PETSC_TRUE, "the stiffness of the inner DOFs with the boundary fixed (K_ii)", &solver);
    if (ierr) {
      PetscCall(MatDestroy(&Kii));
      PetscCall(MatDestroy(&Mii));
      PetscFunctionReturn(ierr);
    }
  }

  /* K_ib column by column: K e_j restricted to the inner rows */
  PetscCall(MatGetLocalSize(Kii, &ni_local, NULL));
  PetscCall(MatCreateDense(cms->comm, ni_local, PETSC_DECIDE, PETSC_DETERMINE, nb, NULL, &Kib));
  PetscCall(MatCreateVecs(cms->K, &e, &Ke));
  PetscCall(VecGetOwnershipRange(e, &rstart, &rend));
  for (PetscInt j = 0; j < nb; j++) {
    PetscCall(VecSet(e, 0));
    if (cms->b_dofs[j] >= rstart && cms->b_dofs[j] < rend) PetscCall(VecSetValue(e, cms->b_dofs[j], 1.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(e));
    PetscCall(VecAssemblyEnd(e));
    PetscCall(MatMult(cms->K, e, Ke));
    PetscCall(MatDenseGetColumnVecWrite(Kib, j, &col));
    PetscCall(VICMSFullToInner(cms, Ke, col));
    PetscCall(MatDenseRestoreColumnVecWrite(Kib, j, &col));
  }
  /* static constraint modes Psi = -K_ii^-1 K_ib (Eq. 20), all right-hand sides at once */
  PetscCall(PetscLogEventBegin(VI_StaticModes, 0, 0, 0, 0));
  PetscCall(MatDuplicate(Kib, MAT_DO_NOT_COPY_VALUES, &Psi));
  PetscCall(VISolverMatSolve(solver, Kib, Psi));
  PetscCall(VISolverView(solver, NULL, "the static modes"));
  PetscCall(MatScale(Psi, -1.0));
  PetscCall(PetscLogEventEnd(VI_StaticModes, 0, 0, 0, 0));
  /* fixed-interface normal modes Theta */
  {
    Vec wfull, w;
    PetscCall(MatCreateVecs(cms->K, &wfull, NULL));
    PetscCall(MatCreateVecs(Kii, &w, NULL));
    PetscCall(VIModelGetSignWeights(cms->model, wfull));
    PetscCall(VICMSFullToInner(cms, wfull, w));
    PetscErrorCode ierr = VICMSEigenModes(cms, Kii, Mii, solver, nm, "the model with the boundary fixed", w, &Theta, cms->omega2);
    PetscCall(VecDestroy(&w));
    PetscCall(VecDestroy(&wfull));
    if (ierr) {
      /* K_ii singular is told here (factored as SPD, MUMPS reports no null pivots): leave nothing behind */
      PetscCall(VecDestroy(&e));
      PetscCall(VecDestroy(&Ke));
      PetscCall(MatDestroy(&Kib));
      PetscCall(MatDestroy(&Psi));
      PetscCall(VISolverDestroy(&solver));
      PetscCall(MatDestroy(&Kii));
      PetscCall(MatDestroy(&Mii));
      PetscFunctionReturn(ierr);
    }
  }

  /* R = [I 0; Psi Theta] in the full space (Eq. 20) */
  PetscCall(MatGetLocalSize(cms->K, &nlocal, NULL));
  PetscCall(MatCreateDense(cms->comm, nlocal, PETSC_DECIDE, PETSC_DETERMINE, n, NULL, &cms->R));
  for (PetscInt j = 0; j < n; j++) {
    Vec sub;
    PetscCall(MatDenseGetColumnVecWrite(cms->R, j, &full));
    PetscCall(VecSet(full, 0));
    if (j < nb)
      PetscCall(MatDenseGetColumnVecRead(Psi, j, &sub));
    else
      PetscCall(MatDenseGetColumnVecRead(Theta, j - nb, &sub));
    PetscCall(VICMSInnerToFull(cms, sub, full));
    if (j < nb)
      PetscCall(MatDenseRestoreColumnVecRead(Psi, j, &sub));
    else
      PetscCall(MatDenseRestoreColumnVecRead(Theta, j - nb, &sub));
    if (j < nb && cms->b_dofs[j] >= rstart && cms->b_dofs[j] < rend) PetscCall(VecSetValue(full, cms->b_dofs[j], 1.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(full));
    PetscCall(VecAssemblyEnd(full));
    PetscCall(MatDenseRestoreColumnVecWrite(cms->R, j, &full));
  }

  if (cms->type == VI_CMS_CB_MASSLESS) {
    /* alpha = Theta^T (M_ib + M_ii Psi) (Eq. 23) is the inner-boundary block of R^T M R; R_alpha = R [I 0; -alpha I] (Eq. 22) */
    PetscReal   *Mt, *alpha;
    PetscScalar *r;
    PetscInt     lda;
    PetscCall(PetscMalloc2(n * n, &Mt, nm * nb, &alpha));
    PetscCall(VICMSRtAR(cms, cms->M, Mt));
    for (PetscInt k = 0; k < nm; k++)
      for (PetscInt j = 0; j < nb; j++) alpha[k + nm * j] = Mt[(nb + k) * n + j]; /* column-major nm x nb */
    PetscCall(MatDenseGetArray(cms->R, &r));
    PetscCall(MatDenseGetLDA(cms->R, &lda));
    PetscCall(VIDenseGemm("N", nlocal, nb, nm, -1.0, r + lda * nb, lda, alpha, nm, 1.0, r, lda));
    PetscCall(MatDenseRestoreArray(cms->R, &r));
    PetscCall(PetscFree2(Mt, alpha));
  }
  PetscCall(VecDestroy(&e));
  PetscCall(VecDestroy(&Ke));
  PetscCall(MatDestroy(&Kib));
  PetscCall(MatDestroy(&Psi));
  PetscCall(MatDestroy(&Theta));
  PetscCall(VISolverDestroy(&solver));
  PetscCall(MatDestroy(&Kii));
  PetscCall(MatDestroy(&Mii));
  PetscFunctionReturn(PETSC_SUCCESS);
}
