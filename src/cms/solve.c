/* The two kernels of every reduction: one MUMPS factorization (static/attachment modes) and a SLEPc solve that reuses it. */
#include "cmsimpl.h"
#include <vicms/sys.h>

/* Pivots below this fraction of the matrix norm are null pivots (MUMPS CNTL(3) with ICNTL(24) = 1). */
#define VI_NULL_PIVOT_TOL 1e-11

/* MUMPS's workspace: at most this ICNTL(14) (percent added to the analysis' estimate) when retrying after INFOG(1) = -8 or -9. */
#define VI_MUMPS_MAX_ICNTL14 1000

/* One attempt: a Cholesky KSP on A with the options of -cms_st_ and, when icntl14 is not PETSC_DETERMINE, that ICNTL(14). */
static PetscErrorCode VICMSFactorAttempt(VICMS cms, Mat A, PetscInt icntl14, KSP *ksp, PetscBool *mumps, PetscErrorCode *ierr, PCFailedReason *reason)
{
  PC            pc;
  Mat           F;
  MatSolverType type;
  char          user14[32] = "";
  PetscBool     had14      = PETSC_FALSE;

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
  if (icntl14 != PETSC_DETERMINE) {
    /* PETSc reads -cms_st_mat_mumps_icntl_14 at the symbolic factorization, after MatMumpsSetIcntl: a retry overrides the user's value */
    char value[32];
    PetscCall(PetscOptionsGetString(NULL, NULL, "-cms_st_mat_mumps_icntl_14", user14, sizeof(user14), &had14));
    PetscCall(PetscSNPrintf(value, sizeof(value), "%" PetscInt_FMT, icntl14));
    PetscCall(PetscOptionsSetValue(NULL, "-cms_st_mat_mumps_icntl_14", value));
  }
  PetscCall(PCFactorGetMatSolverType(pc, &type));
  PetscCall(PetscStrcmp(type, MATSOLVERMUMPS, mumps));
  if (*mumps) {
    PetscCall(PCFactorGetMatrix(pc, &F));
    PetscCall(MatMumpsSetIcntl(F, 24, 1));
    PetscCall(MatMumpsSetCntl(F, 3, VI_NULL_PIVOT_TOL));
    if (icntl14 != PETSC_DETERMINE) PetscCall(MatMumpsSetIcntl(F, 14, icntl14));
  }
  PetscCall(PetscLogEventBegin(VI_Factor, 0, 0, 0, 0));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *ierr = KSPSetUp(*ksp);
  PetscCall(PetscPopErrorHandler());
  if (icntl14 != PETSC_DETERMINE) {
    if (had14) PetscCall(PetscOptionsSetValue(NULL, "-cms_st_mat_mumps_icntl_14", user14));
    else PetscCall(PetscOptionsClearValue(NULL, "-cms_st_mat_mumps_icntl_14"));
  }
  PetscCall(PetscLogEventEnd(VI_Factor, 0, 0, 0, 0));
  *reason = PC_NOERROR;
  if (!*ierr) PetscCall(PCGetFailedReason(pc, reason));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The stiffness matrices factored here are symmetric positive definite (or semi-definite: a free-floating parent, which the null
  pivots then reveal), so A is flagged MAT_SPD and PETSc gives MUMPS SYM = 1 (LL^T, no pivoting) instead of SYM = 2 (LDL^T with
  pivoting): less memory, and no delayed pivots that outgrow the workspace estimated by the analysis. When MUMPS still stops
  with INFOG(1) = -8 or -9 (its estimate of the workspace was too small; not a full memory), the factorization is retried with
  ICNTL(14) doubled (at least 40, at most 1000) and the log says so. INFOG(1) = -13 is a failed allocation: the machine's memory
  is full; that, like -19 (the limit ICNTL(23)), is not retried.
*/
PetscErrorCode VICMSFactor(VICMS cms, Mat A, const char what[], KSP *ksp)
{
  PC             pc;
  Mat            F;
  PetscBool      mumps;
  PCFailedReason reason;
  PetscInt       nnull = 0, icntl14 = PETSC_DETERMINE, infog1 = 0, infog2 = 0;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
  for (;;) {
    PetscCall(VICMSFactorAttempt(cms, A, icntl14, ksp, &mumps, &ierr, &reason));
    PetscCall(KSPGetPC(*ksp, &pc));
    infog1 = infog2 = 0;
    if (mumps) {
      PetscCall(PCFactorGetMatrix(pc, &F));
      PetscCall(MatMumpsGetInfog(F, 1, &infog1));
      PetscCall(MatMumpsGetInfog(F, 2, &infog2));
      if ((ierr || reason != PC_NOERROR) && (infog1 == -8 || infog1 == -9)) {
        PetscInt used, next;
        PetscCall(MatMumpsGetIcntl(F, 14, &used));
        next = PetscMax(2 * used, 40);
        if (next <= VI_MUMPS_MAX_ICNTL14) {
          PetscCall(PetscPrintf(cms->comm,
                                "MUMPS underestimated its workspace factorizing %s (INFOG(1) = %" PetscInt_FMT ", INFOG(2) = %" PetscInt_FMT
                                ", ICNTL(14) = %" PetscInt_FMT "): retrying with ICNTL(14) = %" PetscInt_FMT "\n",
                                what, infog1, infog2, used, next));
          PetscCall(KSPDestroy(ksp));
          icntl14 = next;
          continue;
        }
      }
    }
    break;
  }
  if (!ierr && reason == PC_NOERROR && mumps) PetscCall(MatMumpsGetInfog(F, 28, &nnull));
  if ((ierr || reason != PC_NOERROR) && mumps && infog1 < 0 && infog1 != -10) {
    /* tell an underestimated workspace, a full memory and another MUMPS failure from a singular matrix (INFOG(1) = -10) */
    PetscInt used = 0;
    PetscCall(MatMumpsGetIcntl(F, 14, &used));
    PetscCall(KSPDestroy(ksp));
    PetscCheck(infog1 != -8 && infog1 != -9, cms->comm, PETSC_ERR_MEM,
               "MUMPS's workspace was too small factorizing %s even with ICNTL(14) = %" PetscInt_FMT " (INFOG(1) = %" PetscInt_FMT
               ", INFOG(2) = %" PetscInt_FMT "): an underestimate of the analysis, not a full memory; give more with -cms_st_mat_mumps_icntl_14 %d",
               what, used, infog1, infog2, 2 * VI_MUMPS_MAX_ICNTL14);
    PetscCheck(infog1 != -13, cms->comm, PETSC_ERR_MEM,
               "Out of memory: MUMPS could not allocate its workspace factorizing %s (INFOG(1) = -13, INFOG(2) = %" PetscInt_FMT
               "): use more ranks or nodes, out-of-core factors (-cms_st_mat_mumps_icntl_22 1) or block low-rank compression "
               "(-cms_st_mat_mumps_icntl_35 2 -cms_st_mat_mumps_cntl_7 1e-8)",
               what, infog2);
    PetscCheck(infog1 != -19, cms->comm, PETSC_ERR_MEM,
               "MUMPS needs more memory factorizing %s than the limit -cms_st_mat_mumps_icntl_23 allows (INFOG(1) = -19, INFOG(2) = %" PetscInt_FMT
               "): raise or remove the limit",
               what, infog2);
    SETERRQ(cms->comm, PETSC_ERR_LIB, "MUMPS failed factorizing %s: INFOG(1) = %" PetscInt_FMT ", INFOG(2) = %" PetscInt_FMT " (see the MUMPS manual)",
            what, infog1, infog2);
  }
  if (ierr || reason != PC_NOERROR || nnull > 0) {
    /* nothing of a failed factorization survives: the caller only reports */
    PetscCall(KSPDestroy(ksp));
    SETERRQ(cms->comm, PETSC_ERR_USER_INPUT,
            "%s is singular (%s): the parent is free-floating or not restrained by the boundary. For MacNeal and Rubin give -cms_rigid_stiffness k "
            "(seed 000 §3.1); for Craig-Bampton add contact directions or clamps",
            what, nnull > 0 ? "null pivots in the factorization" : "the factorization failed");
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
  if (!(omega2[0] > 1e-10 * scale)) PetscCall(MatDestroy(X)); /* nothing of a failed solve survives */
  PetscCheck(omega2[0] > 1e-10 * scale, cms->comm, PETSC_ERR_USER_INPUT,
             "%s has a (near) zero eigenvalue %g (rigid-body motion): the parent is free-floating or not restrained by the boundary. For MacNeal and "
             "Rubin give -cms_rigid_stiffness k (seed 000 §3.1)",
             what, (double)omega2[0]);
  PetscFunctionReturn(PETSC_SUCCESS);
}
