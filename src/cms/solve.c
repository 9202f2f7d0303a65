/* The two kernels of every reduction: one MUMPS factorization (static/attachment modes) and a SLEPc solve that reuses it. */
#include "cmsimpl.h"
#include <vicms/sys.h>

/*
  The stiffness matrices factored here are symmetric positive definite (or semi-definite: a free-floating parent, which the null
  pivots then reveal), so they are factored as such (MUMPS SYM = 1), with the retries on an underestimated workspace of
  VIFactorCholesky (src/fem/factor.c), under the prefix -cms_st_.
*/
PetscErrorCode VICMSFactor(VICMS cms, Mat A, const char what[], KSP *ksp)
{
  PetscInt nnull = 0;

  PetscFunctionBeginUser;
  PetscCall(VIFactorCholesky(cms->comm, A, PETSC_TRUE, "cms_st_", what, ksp, &nnull));
  PetscCheck(*ksp, cms->comm, PETSC_ERR_USER_INPUT,
             "%s is singular (%s): the parent is free-floating or not restrained by the boundary. For MacNeal and Rubin give -cms_rigid_stiffness k "
             "(seed 000 §3.1); for Craig-Bampton add contact directions or clamps",
             what, nnull > 0 ? "null pivots in the factorization" : "the factorization failed");
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
  /* VICMSCheckNumModes told the user already; all the modes of the problem are allowed */
  PetscCheck(n <= nrows, cms->comm, PETSC_ERR_PLIB, "%" PetscInt_FMT " modes asked of %s, which has %" PetscInt_FMT " DOFs", n, what, nrows);
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
    PetscCall(VIModeNormalizeSign(x, w));                            /* the same ROM on any number of ranks */
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
