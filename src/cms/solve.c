/* The two kernels of every reduction: one MUMPS factorization (static/attachment modes) and a SLEPc solve that reuses it. */
#include "cmsimpl.h"
#include <vicms/sys.h>

/* Pivots below this fraction of the matrix norm are null pivots (MUMPS CNTL(3) with ICNTL(24) = 1). */
#define VI_NULL_PIVOT_TOL 1e-11

PetscErrorCode VICMSFactor(VICMS cms, Mat A, const char what[], KSP *ksp)
{
  PC             pc;
  Mat            F;
  MatSolverType  type;
  PetscBool      mumps;
  PCFailedReason reason;
  PetscInt       nnull = 0;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(cms->comm, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, "cms_st_"));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPPREONLY));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCCHOLESKY));
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(PCFactorSetUpMatSolverType(pc));
  PetscCall(PCFactorGetMatSolverType(pc, &type));
  PetscCall(PetscStrcmp(type, MATSOLVERMUMPS, &mumps));
  if (mumps) {
    PetscCall(PCFactorGetMatrix(pc, &F));
    PetscCall(MatMumpsSetIcntl(F, 24, 1));
    PetscCall(MatMumpsSetCntl(F, 3, VI_NULL_PIVOT_TOL));
  }
  PetscCall(PetscLogEventBegin(VI_Factor, 0, 0, 0, 0));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  {
    PetscErrorCode ierr = KSPSetUp(*ksp);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscLogEventEnd(VI_Factor, 0, 0, 0, 0));
    if (!ierr) PetscCall(PCGetFailedReason(pc, &reason));
    if (!ierr && reason == PC_NOERROR && mumps) {
      PetscCall(PCFactorGetMatrix(pc, &F));
      PetscCall(MatMumpsGetInfog(F, 28, &nnull));
    }
    if ((ierr || reason != PC_NOERROR) && mumps) {
      /* tell a lack of memory or another MUMPS failure from a singular matrix (INFOG(1) = -10) */
      PetscInt infog1 = 0, infog2 = 0;
      PetscCall(PCFactorGetMatrix(pc, &F));
      PetscCall(MatMumpsGetInfog(F, 1, &infog1));
      PetscCall(MatMumpsGetInfog(F, 2, &infog2));
      if (infog1 < 0 && infog1 != -10) {
        PetscCall(KSPDestroy(ksp));
        PetscCheck(infog1 != -9 && infog1 != -13 && infog1 != -19, cms->comm, PETSC_ERR_MEM,
                   "MUMPS ran out of memory factorizing %s (INFOG(1) = %" PetscInt_FMT ", INFOG(2) = %" PetscInt_FMT
                   "): use more ranks, more workspace (-cms_st_mat_mumps_icntl_14 50), out-of-core factors (-cms_st_mat_mumps_icntl_22 1) or "
                   "block low-rank compression (-cms_st_mat_mumps_icntl_35 2 -cms_st_mat_mumps_cntl_7 1e-8)",
                   what, infog1, infog2);
        SETERRQ(cms->comm, PETSC_ERR_LIB,
                "MUMPS failed factorizing %s: INFOG(1) = %" PetscInt_FMT ", INFOG(2) = %" PetscInt_FMT " (see the MUMPS manual)", what, infog1,
                infog2);
      }
    }
    if (ierr || reason != PC_NOERROR || nnull > 0) {
      /* nothing of a failed factorization survives: the caller only reports */
      PetscCall(KSPDestroy(ksp));
      SETERRQ(cms->comm, PETSC_ERR_USER_INPUT,
              "%s is singular (%s): the parent is free-floating or not restrained by the boundary. For MacNeal and Rubin give -cms_rigid_stiffness k "
              "(seed 000 §3.1); for Craig-Bampton add contact directions or clamps",
              what, nnull > 0 ? "null pivots in the factorization" : "the factorization failed");
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSEigenModes(VICMS cms, Mat A, Mat B, KSP ksp, PetscInt n, const char what[], Vec w, Mat *X, PetscReal omega2[])
{
  EPS       eps;
  ST        st;
  PetscInt  nconv, nrows, nlocal;
  Vec       Bx;
  PetscReal scale, tr_a, tr_b;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &nrows, NULL));
  PetscCheck(n < nrows, cms->comm, PETSC_ERR_USER_INPUT,
             "-cms_num_modes: %" PetscInt_FMT " component modes asked, but %s has only %" PetscInt_FMT " DOFs", n, what, nrows);
  PetscCall(EPSCreate(cms->comm, &eps));
  PetscCall(EPSSetOptionsPrefix(eps, "cms_"));
  PetscCall(EPSSetOperators(eps, A, B));
  PetscCall(EPSSetProblemType(eps, EPS_GHEP));
  PetscCall(EPSSetDimensions(eps, n, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(EPSSetTarget(eps, 0.0));
  PetscCall(EPSSetWhichEigenpairs(eps, EPS_TARGET_MAGNITUDE));
  PetscCall(EPSSetTolerances(eps, 1e-12, 1000));
  PetscCall(EPSGetST(eps, &st));
  PetscCall(STSetType(st, STSINVERT));
  /* shift-and-invert at 0 needs exactly the factorization already made */
  PetscCall(STSetKSP(st, ksp));
  PetscCall(EPSSetFromOptions(eps));
  PetscCall(PetscLogEventBegin(VI_EigenSolve, 0, 0, 0, 0));
  PetscCall(EPSSolve(eps));
  PetscCall(PetscLogEventEnd(VI_EigenSolve, 0, 0, 0, 0));
  PetscCall(EPSGetConverged(eps, &nconv));
  PetscCheck(nconv >= n, cms->comm, PETSC_ERR_NOT_CONVERGED,
             "The eigensolver found %" PetscInt_FMT " of the %" PetscInt_FMT " modes of %s; raise -cms_eps_max_it or -cms_eps_ncv", nconv, n, what);

  PetscCall(MatGetLocalSize(A, &nlocal, NULL));
  PetscCall(MatCreateDense(cms->comm, nlocal, PETSC_DECIDE, PETSC_DETERMINE, n, NULL, X));
  PetscCall(MatCreateVecs(A, NULL, &Bx));
  for (PetscInt k = 0; k < n; k++) {
    Vec         x;
    PetscScalar lambda, xBx;
    PetscCall(MatDenseGetColumnVecWrite(*X, k, &x));
    PetscCall(EPSGetEigenpair(eps, k, &lambda, NULL, x, NULL));
    PetscCall(MatMult(B, x, Bx));
    PetscCall(VecDot(x, Bx, &xBx));
    PetscCall(VecScale(x, 1.0 / PetscSqrtReal(PetscRealPart(xBx)))); /* mass-normalized, seed 000 Eq. (16) */
    PetscCall(VIModeNormalizeSign(x, w));                               /* the same ROM on any number of ranks */
    PetscCall(MatDenseRestoreColumnVecWrite(*X, k, &x));
    omega2[k] = PetscRealPart(lambda);
  }
  PetscCall(VecDestroy(&Bx));
  PetscCall(EPSDestroy(&eps));

  /* a rigid-body mode that slipped through the factorization shows up as a (numerically) zero eigenvalue */
  PetscCall(MatGetTrace(A, &tr_a));
  PetscCall(MatGetTrace(B, &tr_b));
  scale = PetscAbsReal(tr_a / tr_b);
  PetscCheck(omega2[0] > 1e-10 * scale, cms->comm, PETSC_ERR_USER_INPUT,
             "%s has a (near) zero eigenvalue %g (rigid-body motion): the parent is free-floating or not restrained by the boundary. For MacNeal and "
             "Rubin give -cms_rigid_stiffness k (seed 000 §3.1)",
             what, (double)omega2[0]);
  PetscFunctionReturn(PETSC_SUCCESS);
}
