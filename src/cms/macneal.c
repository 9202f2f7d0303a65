/* MacNeal/Rubin basis (seed 000 Eqs. 16–18): free-interface normal modes and residual-flexibility attachment modes,
   one solver of K for both (a MUMPS factorization or CG + GAMG: VISolver). */
#include "cmsimpl.h"
#include <vicms/sys.h>
#include <petscblaslapack.h>

/* Inverse of a small symmetric positive definite matrix (n x n), in place. */
static PetscErrorCode VIInverseSPD(PetscInt n, PetscReal A[], const char what[], MPI_Comm comm)
{
  PetscBLASInt bn, info;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bn, A, &bn, &info));
  PetscCheck(info == 0, comm, PETSC_ERR_USER_INPUT,
             "%s is not positive definite (LAPACK potrf info %d): are there more component modes than the model can carry?", what, (int)info);
  PetscCallBLAS("LAPACKpotri", LAPACKpotri_("L", &bn, A, &bn, &info));
  PetscCheck(info == 0, comm, PETSC_ERR_LIB, "LAPACK potri failed with info %d", (int)info);
  /* potri filled the lower triangle in column-major order (element (r, c), r >= c, at r + c n): mirror it */
  for (PetscInt c = 0; c < n; c++)
    for (PetscInt r = c + 1; r < n; r++) A[c + r * n] = A[r + c * n];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSBasisMacNeal(VICMS cms)
{
  Mat          Ks, E, Fb, Phi;
  VISolver     solver;
  PetscInt     nlocal, rstart, rend, nb = cms->nb, nm = cms->num_modes, n = nb + nm, lda_f, lda_p, lda_r;
  PetscReal   *Phib, *G, *Fbb;
  PetscScalar *f, *p, *r;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(cms->K, &nlocal, NULL));
  PetscCall(MatGetOwnershipRange(cms->K, &rstart, &rend));
  /* seed 000 §3.1: a free-floating parent gets artificial stiffness on the boundary; R^T K R with the original K removes it again */
  if (cms->rigid_stiffness > 0) {
    PetscCall(MatDuplicate(cms->K, MAT_COPY_VALUES, &Ks));
    for (PetscInt j = 0; j < nb; j++)
      if (cms->b_dofs[j] >= rstart && cms->b_dofs[j] < rend)
        PetscCall(MatSetValue(Ks, cms->b_dofs[j], cms->b_dofs[j], cms->rigid_stiffness, ADD_VALUES));
    PetscCall(MatAssemblyBegin(Ks, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Ks, MAT_FINAL_ASSEMBLY));
    PetscCall(MatSetOption(Ks, MAT_SYMMETRIC, PETSC_TRUE));
  } else {
    PetscCall(PetscObjectReference((PetscObject)cms->K));
    Ks = cms->K;
  }
  {
    PetscErrorCode ierr = VICMSFactor(cms, Ks, PETSC_FALSE, "the stiffness matrix of the parent model", &solver);
    if (ierr) {
      PetscCall(MatDestroy(&Ks));
      PetscFunctionReturn(ierr);
    }
  }

  /* boundary columns of the flexibility F = K^-1 (before the eigensolver, which releases the factorization when done) */
  PetscCall(MatCreateDense(cms->comm, nlocal, PETSC_DECIDE, PETSC_DETERMINE, nb, NULL, &E));
  for (PetscInt j = 0; j < nb; j++)
    if (cms->b_dofs[j] >= rstart && cms->b_dofs[j] < rend) PetscCall(MatSetValue(E, cms->b_dofs[j], j, 1.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(E, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(E, MAT_FINAL_ASSEMBLY));
  PetscCall(MatDuplicate(E, MAT_DO_NOT_COPY_VALUES, &Fb));
  PetscCall(PetscLogEventBegin(VI_StaticModes, 0, 0, 0, 0));
  PetscCall(VISolverMatSolve(solver, E, Fb));
  PetscCall(VISolverView(solver, NULL, "the attachment modes"));
  PetscCall(PetscLogEventEnd(VI_StaticModes, 0, 0, 0, 0));

  /* free-interface normal modes, mass-normalized (Eq. 16) */
  {
    Vec            w;
    PetscErrorCode ierr;
    PetscCall(MatCreateVecs(Ks, &w, NULL));
    PetscCall(VIModelGetSignWeights(cms->model, w));
    ierr = VICMSEigenModes(cms, Ks, cms->M, solver, nm, "the parent model", w, &Phi, cms->omega2);
    PetscCall(VecDestroy(&w));
    if (ierr) {
      /* a free-floating parent is told here (K is factored as SPD, so MUMPS reports no null pivots): leave nothing behind */
      PetscCall(MatDestroy(&E));
      PetscCall(MatDestroy(&Fb));
      PetscCall(VISolverDestroy(&solver));
      PetscCall(MatDestroy(&Ks));
      PetscFunctionReturn(ierr);
    }
  }

  /* boundary rows of the modes, on every rank: Phi_b (nb x nm, column-major) */
  PetscCall(PetscMalloc3(nb * nm, &Phib, nm * nb, &G, nb * nb, &Fbb));
  for (PetscInt k = 0; k < nm; k++) {
    Vec x;
    PetscCall(MatDenseGetColumnVecRead(Phi, k, &x));
    PetscCall(VICMSGatherBoundary(cms, x, Phib + k * nb));
    PetscCall(MatDenseRestoreColumnVecRead(Phi, k, &x));
  }
  /* residual flexibility F' = F_:b - Phi diag(1/omega^2) Phi_b^T (Eq. 17), in place in Fb */
  for (PetscInt k = 0; k < nm; k++)
    for (PetscInt j = 0; j < nb; j++) G[k + nm * j] = Phib[j + nb * k] / cms->omega2[k];
  PetscCall(MatDenseGetArray(Fb, &f));
  PetscCall(MatDenseGetLDA(Fb, &lda_f));
  PetscCall(MatDenseGetArray(Phi, &p));
  PetscCall(MatDenseGetLDA(Phi, &lda_p));
  PetscCall(VIDenseGemm("N", nlocal, nb, nm, -1.0, p, lda_p, G, nm, 1.0, f, lda_f));
  PetscCall(MatDenseRestoreArray(Fb, &f));
  for (PetscInt j = 0; j < nb; j++) {
    Vec x;
    PetscCall(MatDenseGetColumnVecRead(Fb, j, &x));
    PetscCall(VICMSGatherBoundary(cms, x, Fbb + j * nb));
    PetscCall(MatDenseRestoreColumnVecRead(Fb, j, &x));
  }
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt j = i + 1; j < nb; j++) Fbb[i * nb + j] = Fbb[j * nb + i] = 0.5 * (Fbb[i * nb + j] + Fbb[j * nb + i]);
  PetscCall(VIInverseSPD(nb, Fbb, "The residual flexibility at the boundary F'_bb", cms->comm));

  /* R = [F' F'_bb^-1, Phi - F' F'_bb^-1 Phi_b] (Eq. 18, written for all rows at once) */
  PetscCall(MatGetLocalSize(cms->K, &nlocal, NULL));
  PetscCall(MatCreateDense(cms->comm, nlocal, PETSC_DECIDE, PETSC_DETERMINE, n, NULL, &cms->R));
  PetscCall(MatDenseGetArray(cms->R, &r));
  PetscCall(MatDenseGetLDA(cms->R, &lda_r));
  PetscCall(MatDenseGetArray(Fb, &f));
  PetscCall(VIDenseGemm("N", nlocal, nb, nb, 1.0, f, lda_f, Fbb, nb, 0.0, r, lda_r));
  for (PetscInt k = 0; k < nm; k++)
    for (PetscInt i = 0; i < nlocal; i++) r[lda_r * (nb + k) + i] = p[lda_p * k + i];
  PetscCall(VIDenseGemm("N", nlocal, nm, nb, -1.0, r, lda_r, Phib, nb, 1.0, r + lda_r * nb, lda_r));
  /* boundary rows are exactly [I 0] */
  for (PetscInt j = 0; j < nb; j++)
    if (cms->b_dofs[j] >= rstart && cms->b_dofs[j] < rend)
      for (PetscInt c = 0; c < n; c++) r[lda_r * c + (cms->b_dofs[j] - rstart)] = (c == j) ? 1.0 : 0.0;
  PetscCall(MatDenseRestoreArray(Fb, &f));
  PetscCall(MatDenseRestoreArray(Phi, &p));
  PetscCall(MatDenseRestoreArray(cms->R, &r));

  PetscCall(PetscFree3(Phib, G, Fbb));
  PetscCall(MatDestroy(&E));
  PetscCall(MatDestroy(&Fb));
  PetscCall(MatDestroy(&Phi));
  PetscCall(VISolverDestroy(&solver));
  PetscCall(MatDestroy(&Ks));
  PetscFunctionReturn(PETSC_SUCCESS);
}
