/* The two kernels of every reduction: one MUMPS factorization (static/attachment modes) and a SLEPc solve that reuses it. */
#include "cmsimpl.h"
#include <vicms/sys.h>

/*
  The stiffness matrices solved with here are symmetric positive definite (or semi-definite: a free-floating parent, which the null
  pivots then reveal), so they are factored as such (MUMPS SYM = 1), with the retries on an underestimated workspace of
  VIFactorCholesky (src/fem/factor.c), under the prefix -cms_st_; or (-cms_solver iterative) solved by CG + GAMG whose near null
  space is the parent's rigid-body modes (restricted to the inner DOFs for K_ii), no factorization at all (docs/scale.md).
*/
PetscErrorCode VICMSFactor(VICMS cms, Mat A, PetscBool inner, const char what[], VISolver *solver)
{
  PetscInt  nnull = 0;
  PetscBool ok    = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(VISolverCreate(cms->comm, cms->solver_type, "cms_st_", solver));
  if (cms->solver_type == VI_SOLVER_ITERATIVE) {
    PetscInt nrb;
    Vec     *rb;
    PetscCall(VISolverSetTolerance(*solver, cms->tol > 0 ? 1e-2 * cms->tol : 1e-12));
    PetscCall(VIModelGetRigidBodyModes(cms->model, &nrb, &rb));
    if (inner) {
      /* the rows of K_ii: each rigid-body mode without its boundary rows */
      Vec  v;
      Vec *ri;
      PetscCall(MatCreateVecs(A, &v, NULL));
      PetscCall(VecDuplicateVecs(v, nrb, &ri));
      PetscCall(VecDestroy(&v));
      for (PetscInt k = 0; k < nrb; k++) PetscCall(VICMSFullToInner(cms, rb[k], ri[k]));
      PetscCall(VecDestroyVecs(nrb, &rb));
      rb = ri;
    }
    PetscCall(VISolverSetNearNullSpace(*solver, nrb, (const Vec *)rb));
    PetscCall(VecDestroyVecs(nrb, &rb));
    {
      Mat P; /* quadratic elements: the corner nodes' space, coarse level of a p-multigrid (NULL otherwise) */
      PetscCall(VIModelCreateCornerInterpolation(cms->model, inner ? cms->is_i : NULL, &P));
      PetscCall(VISolverSetInterpolation(*solver, P));
      PetscCall(MatDestroy(&P));
    }
  }
  PetscCall(VISolverSetUp(*solver, A, PETSC_TRUE, what, &ok, &nnull));
  if (!ok) PetscCall(VISolverDestroy(solver));
  PetscCheck(ok, cms->comm, PETSC_ERR_USER_INPUT,
             "%s is singular (%s): the parent is free-floating or not restrained by the boundary. For MacNeal and Rubin give -cms_rigid_stiffness k "
             "(seed 000 §3.1); for Craig-Bampton add contact directions or clamps",
             what, nnull > 0 ? "null pivots in the factorization" : "the factorization failed");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSEigenModes(VICMS cms, Mat A, Mat B, VISolver solver, PetscInt n, const char what[], Vec w, Mat *X, PetscReal omega2[])
{
  EPS       eps;
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
  PetscCall(EPSSetTolerances(eps, cms->tol > 0 ? cms->tol : (cms->solver_type == VI_SOLVER_DIRECT ? 1e-12 : 1e-10), 1000));
  /* shift-and-invert at 0 with exactly the factorization already made (direct), or LOBPCG / CG + GAMG (iterative) */
  PetscCall(VISolverSetUpEPS(solver, eps, 0.0, EPSKRYLOVSCHUR));
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
  {
    char option[96];
    PetscCall(PetscSNPrintf(option, sizeof(option), "-%scms_num_modes", cms->prefix));
    PetscCall(VISolverWarnSplitPair(eps, n, 0, what, option));
  }
  PetscCall(VISolverView(solver, eps, what)); /* after the eigenvectors, whose purification solves once more each */
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
