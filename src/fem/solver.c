/* VISolver: the linear solver behind every solve with a stiffness matrix, MUMPS's Cholesky factorization (direct) or conjugate
   gradients with smoothed-aggregation multigrid and the rigid-body modes as near null space (iterative; on quadratic elements under a
   p-multigrid onto the corner nodes, src/fem/pmg.c). */
#include "femimpl.h"
#include <vicms/sys.h>

const char *const VISolverTypes[] = {"direct", "iterative", "VISolverType", "VI_SOLVER_", NULL};

struct _p_VISolver {
  MPI_Comm     comm;
  VISolverType type;
  char         prefix[64];
  char         what[160];
  PetscReal    rtol;     /* relative residual of every iterative solve */
  KSP          ksp;      /* the factored KSP (direct) or CG + GAMG (iterative) */
  MatNullSpace nearnull; /* iterative: rigid-body modes */
  Mat          interp;   /* iterative on quadratic elements: the corner nodes' space, the coarse level of a p-multigrid */
  PetscBool    pmg;      /* -<prefix>pmg: use interp */
  PetscInt     its, nsolves; /* iterative: the solves of its KSP and their iterations since the last VISolverView */
};

PetscErrorCode VISolverCreate(MPI_Comm comm, VISolverType type, const char prefix[], VISolver *solver)
{
  VISolver s;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&s));
  s->comm = comm;
  s->type = type;
  s->rtol = 1e-12;
  PetscCall(PetscStrncpy(s->prefix, prefix ? prefix : "", sizeof(s->prefix)));
  *solver = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISolverDestroy(VISolver *solver)
{
  PetscFunctionBeginUser;
  if (!solver || !*solver) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*solver)->ksp) PetscCall(KSPSetPostSolve((*solver)->ksp, NULL, NULL)); /* an EPS may hold the KSP beyond the solver */
  PetscCall(KSPDestroy(&(*solver)->ksp));
  PetscCall(MatNullSpaceDestroy(&(*solver)->nearnull));
  PetscCall(MatDestroy(&(*solver)->interp));
  PetscCall(PetscFree(*solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISolverGetType(VISolver solver, VISolverType *type)
{
  PetscFunctionBeginUser;
  *type = solver->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every solve of the iterative solver's KSP counted, whoever calls it: VISolverSolve, SLEPc's shift-and-invert */
static PetscErrorCode VISolverCount(KSP ksp, Vec b, Vec x, void *ctx)
{
  VISolver solver = (VISolver)ctx;
  PetscInt its;

  PetscFunctionBeginUser;
  (void)b;
  (void)x;
  PetscCall(KSPGetIterationNumber(ksp, &its));
  solver->its += its;
  solver->nsolves++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  One line of what the iterative solver did since the last view (nothing for the direct solver): the CG solves and their iterations, and with
  eps (whose spectral transformation VISolverSetUpEPS set) its type and iterations: LOBPCG's iterations and block, or Krylov-Schur's
  restarts and the CG iterations of its inner solves.
*/
PetscErrorCode VISolverView(VISolver solver, EPS eps, const char what[])
{
  PetscFunctionBeginUser;
  if (solver->type == VI_SOLVER_DIRECT) PetscFunctionReturn(PETSC_SUCCESS);
  if (eps) {
    PetscInt  its;
    PetscBool lobpcg;
    PetscCall(EPSGetIterationNumber(eps, &its));
    PetscCall(PetscObjectTypeCompare((PetscObject)eps, EPSLOBPCG, &lobpcg));
    if (lobpcg) {
      PetscInt bs;
      PetscCall(EPSLOBPCGGetBlockSize(eps, &bs));
      PetscCall(PetscPrintf(solver->comm, "  %s: LOBPCG, %" PetscInt_FMT " iterations of a block of %" PetscInt_FMT " vectors, preconditioned by the multigrid\n",
                            what, its, bs));
    } else
      PetscCall(PetscPrintf(solver->comm,
                            "  %s: Krylov-Schur, %" PetscInt_FMT " restarts; inner CG %" PetscInt_FMT " solves, %" PetscInt_FMT
                            " iterations (%.1f per solve) to %g\n",
                            what, its, solver->nsolves, solver->its, solver->nsolves ? (double)solver->its / solver->nsolves : 0.0, (double)solver->rtol));
  } else
    PetscCall(PetscPrintf(solver->comm, "  %s: CG %" PetscInt_FMT " solves, %" PetscInt_FMT " iterations (%.1f per solve) to %g\n", what, solver->nsolves,
                          solver->its, solver->nsolves ? (double)solver->its / solver->nsolves : 0.0, (double)solver->rtol));
  solver->its     = 0;
  solver->nsolves = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISolverSetTolerance(VISolver solver, PetscReal rtol)
{
  PetscFunctionBeginUser;
  solver->rtol = rtol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* q[0..n) orthonormalized in place (modified Gram-Schmidt, twice): a near null space must be orthonormal (MatNullSpaceCreate). */
PetscErrorCode VIOrthonormalizeVecs(MPI_Comm comm, PetscInt n, Vec q[])
{
  PetscFunctionBeginUser;
  for (PetscInt pass = 0; pass < 2; pass++)
    for (PetscInt k = 0; k < n; k++) {
      PetscReal norm;
      for (PetscInt j = 0; j < k; j++) {
        PetscScalar d;
        PetscCall(VecDot(q[k], q[j], &d));
        PetscCall(VecAXPY(q[k], -d, q[j]));
      }
      PetscCall(VecNorm(q[k], NORM_2, &norm));
      PetscCheck(norm > 0, comm, PETSC_ERR_PLIB, "Rigid-body mode %" PetscInt_FMT " is linearly dependent on the others", k);
      PetscCall(VecScale(q[k], 1.0 / norm));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The caller's vectors are copied and orthonormalized here. */
PetscErrorCode VISolverSetNearNullSpace(VISolver solver, PetscInt n, const Vec v[])
{
  Vec *q;

  PetscFunctionBeginUser;
  PetscCall(MatNullSpaceDestroy(&solver->nearnull));
  if (n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecDuplicateVecs(v[0], n, &q));
  for (PetscInt k = 0; k < n; k++) PetscCall(VecCopy(v[k], q[k]));
  PetscCall(VIOrthonormalizeVecs(solver->comm, n, q));
  PetscCall(MatNullSpaceCreate(solver->comm, PETSC_FALSE, n, q, &solver->nearnull));
  PetscCall(VecDestroyVecs(n, &q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The interpolation of a two-level p-multigrid under the iterative solver's GAMG (VIModelCreateCornerInterpolation); NULL: none. */
PetscErrorCode VISolverSetInterpolation(VISolver solver, Mat P)
{
  PetscFunctionBeginUser;
  if (P) PetscCall(PetscObjectReference((PetscObject)P));
  PetscCall(MatDestroy(&solver->interp));
  solver->interp = P;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Options of the MUMPS path given to the iterative one are refused: they would be ignored. */
static PetscErrorCode VISolverCheckOptions(VISolver solver)
{
  char              name[128];
  PetscBool         set;
  const char *const direct_only[] = {"mat_mumps_icntl_14", "mat_mumps_icntl_35", "mat_mumps_cntl_7",
                                     "mat_mumps_icntl_22", "mat_mumps_icntl_23", "pc_factor_mat_solver_type"};

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(direct_only) / sizeof(direct_only[0]); i++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s", solver->prefix, direct_only[i]));
    PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
    PetscCheck(!set, solver->comm, PETSC_ERR_USER_INPUT,
               "%s: an option of the direct (MUMPS) solver, given with the iterative solver (%s): drop it or choose direct", name,
               solver->prefix[0] == 'c' ? "-cms_solver iterative" : "-modes_solver iterative");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Direct: VIFactorCholesky (src/fem/factor.c); ok is false when A is singular (null pivots, nnull of them, or a failed
  factorization). Iterative: CG (A is symmetric positive definite: the caller shifts a free-floating model) preconditioned by GAMG
  with the near null space, or on quadratic elements (VISolverSetInterpolation, -<prefix>pmg) by the two-level p-multigrid of
  src/fem/pmg.c with GAMG on its coarse level; the multigrid hierarchy is built here, once, and reused by every solve.
*/
PetscErrorCode VISolverSetUp(VISolver solver, Mat A, PetscBool spd, const char what[], PetscBool *ok, PetscInt *nnull)
{
  PetscFunctionBeginUser;
  PetscCall(KSPDestroy(&solver->ksp));
  PetscCall(PetscStrncpy(solver->what, what, sizeof(solver->what)));
  *ok    = PETSC_FALSE;
  *nnull = 0;
  if (solver->type == VI_SOLVER_DIRECT) {
    PetscCall(VIFactorCholesky(solver->comm, A, spd, solver->prefix, what, &solver->ksp, nnull));
    *ok = solver->ksp ? PETSC_TRUE : PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PC   pc;
  char pmgname[80];

  PetscCall(VISolverCheckOptions(solver));
  PetscCheck(spd, solver->comm, PETSC_ERR_USER_INPUT,
             "%s is not positive definite (a positive shift): the iterative solver (conjugate gradients) needs a positive definite matrix; "
             "leave the default shift or choose the direct solver",
             what);
  PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
  if (solver->nearnull) PetscCall(MatSetNearNullSpace(A, solver->nearnull));
  PetscCall(KSPCreate(solver->comm, &solver->ksp));
  PetscCall(KSPSetOptionsPrefix(solver->ksp, solver->prefix));
  PetscCall(KSPSetOperators(solver->ksp, A, A));
  PetscCall(KSPSetType(solver->ksp, KSPCG));
  PetscCall(KSPSetNormType(solver->ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(solver->ksp, solver->rtol, 0.0, PETSC_DEFAULT, 10000));
  PetscCall(KSPGetPC(solver->ksp, &pc));
  solver->pmg = PETSC_TRUE;
  /* -modes_st_pmg, -cms_st_pmg: the name under the solver's prefix, registered whole in the modules' tables (fem, cms) */
  PetscCall(PetscSNPrintf(pmgname, sizeof(pmgname), "-%spmg", solver->prefix));
  PetscOptionsBegin(solver->comm, NULL, "Iterative solver", "VISolver");
  PetscCall(PetscOptionsBool(pmgname, "On quadratic elements: a p-multigrid onto the corner nodes, GAMG on its coarse level (else GAMG on K)",
                             "VISolverSetUp", solver->pmg, &solver->pmg, NULL));
  PetscOptionsEnd();
  if (solver->interp && solver->pmg)
    PetscCall(VIPMGSetUp(pc, A, solver->interp, solver->nearnull));
  else
    PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetFromOptions(solver->ksp));
  PetscCall(KSPSetPostSolve(solver->ksp, VISolverCount, solver));
  PetscCall(PetscLogEventBegin(VI_Factor, 0, 0, 0, 0));
  PetscCall(KSPSetUp(solver->ksp));
  PetscCall(PetscLogEventEnd(VI_Factor, 0, 0, 0, 0));
  *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISolverSolve(VISolver solver, Vec b, Vec x)
{
  KSPConvergedReason reason;
  PetscInt           its;

  PetscFunctionBeginUser;
  PetscCall(KSPSolve(solver->ksp, b, x));
  PetscCall(KSPGetConvergedReason(solver->ksp, &reason));
  PetscCall(KSPGetIterationNumber(solver->ksp, &its));
  PetscCheck(reason > 0, solver->comm, PETSC_ERR_NOT_CONVERGED,
             "Conjugate gradients did not converge solving with %s: %s after %" PetscInt_FMT
             " iterations (raise -%sksp_max_it, or choose the direct solver)",
             solver->what, KSPConvergedReasons[reason], its, solver->prefix);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X = A^-1 B for every column of B: one MatMatSolve of the factors (direct) or one CG solve per column (iterative). */
PetscErrorCode VISolverMatSolve(VISolver solver, Mat B, Mat X)
{
  PetscInt ncols;

  PetscFunctionBeginUser;
  if (solver->type == VI_SOLVER_DIRECT) {
    PC  pc;
    Mat F;
    PetscCall(KSPGetPC(solver->ksp, &pc));
    PetscCall(PCFactorGetMatrix(pc, &F));
    PetscCall(MatMatSolve(F, B, X));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetSize(B, NULL, &ncols));
  for (PetscInt j = 0; j < ncols; j++) {
    Vec b, x;
    PetscCall(MatDenseGetColumnVecRead(B, j, &b));
    PetscCall(MatDenseGetColumnVecWrite(X, j, &x));
    PetscCall(VecSet(x, 0));
    PetscCall(VISolverSolve(solver, b, x));
    PetscCall(MatDenseRestoreColumnVecWrite(X, j, &x));
    PetscCall(MatDenseRestoreColumnVecRead(B, j, &b));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The spectral transformation of an EPS whose operators are (A, B), A the matrix set up here, for the eigenvalues nearest
  target (0: the lowest). Direct: shift-and-invert at target with the factors. Iterative: by the EPS type (-<eps prefix>eps_type):
  lobpcg (the default, or default_type) gets a preconditioned ST whose KSP applies GAMG once (preonly) and looks for the smallest eigenvalues;
  krylovschur gets shift-and-invert with the CG + GAMG KSP as its inner solve (at the tolerance of VISolverSetTolerance). Any
  other type is refused. Call before EPSSetFromOptions: the EPS type is read here.
*/
PetscErrorCode VISolverSetUpEPS(VISolver solver, EPS eps, PetscReal target, const char default_type[])
{
  ST          st;
  const char *eprefix;
  char        name[128], type[64];
  PetscBool   set, lobpcg, ks;
  PetscInt    nev, ncv, mpd;

  PetscFunctionBeginUser;
  PetscCall(EPSGetST(eps, &st));
  PetscCall(EPSGetDimensions(eps, &nev, &ncv, &mpd));
  {
    /* Krylov-Schur: a margin of eigenpairs beyond those asked (the caller keeps the lowest it asked): a Krylov method from one
       starting vector meets an exactly repeated eigenvalue (a square cross-section's two bending modes) one copy at a time, and
       with nev = 12 on a 4 x 4 x 24 box returned the 10th and 11th modes' pair once, every later mode shifted by one; with
       nev + max(4, nev / 2) both copies converge before the asked ones are done. LOBPCG, a block method, has its block's margin. */
    PetscInt nrows;
    Mat      A;
    PetscCall(EPSGetOperators(eps, &A, NULL));
    PetscCall(MatGetSize(A, &nrows, NULL));
    PetscCall(EPSSetDimensions(eps, PetscMin(nev + PetscMax(4, nev / 2), nrows), ncv, mpd));
  }
  if (solver->type == VI_SOLVER_DIRECT) {
    PetscCall(EPSSetTarget(eps, target));
    PetscCall(EPSSetWhichEigenpairs(eps, EPS_TARGET_MAGNITUDE));
    PetscCall(STSetType(st, STSINVERT));
    PetscCall(STSetKSP(st, solver->ksp));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrncpy(type, default_type ? default_type : EPSLOBPCG, sizeof(type)));
  PetscCall(EPSGetOptionsPrefix(eps, &eprefix));
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%seps_type", eprefix ? eprefix : ""));
  PetscCall(PetscOptionsGetString(NULL, NULL, name, type, sizeof(type), &set));
  PetscCall(PetscStrcmp(type, EPSLOBPCG, &lobpcg));
  PetscCall(PetscStrcmp(type, EPSKRYLOVSCHUR, &ks));
  PetscCheck(lobpcg || ks, solver->comm, PETSC_ERR_USER_INPUT, "%s %s: the iterative solver (%s) takes lobpcg or krylovschur", name, type,
             solver->prefix[0] == 'c' ? "-cms_solver iterative" : "-modes_solver iterative");
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%sst_type", eprefix ? eprefix : ""));
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
  PetscCheck(!set, solver->comm, PETSC_ERR_USER_INPUT, "%s: the iterative solver chooses the spectral transformation itself; drop the option", name);
  if (lobpcg) {
    KSP      inner;
    PC       pc;
    PetscCall(EPSSetType(eps, EPSLOBPCG));
    /* a block of nev vectors converges its last ones slowly (their gap is to the block's edge): 20 modes of a clamped 5,832-DOF
       box stalled at a residual of 6e-10 after 117 iterations with a block of 20, converged to 1e-10 in 5.5 s with 28 */
    PetscCall(EPSSetDimensions(eps, nev, ncv, mpd));
    PetscCall(EPSLOBPCGSetBlockSize(eps, nev + PetscMax(8, nev / 2)));
    PetscCheck(target == 0, solver->comm, PETSC_ERR_SUP, "LOBPCG finds the smallest eigenvalues only");
    PetscCall(EPSSetWhichEigenpairs(eps, EPS_SMALLEST_REAL));
    PetscCall(STSetType(st, STPRECOND));
    PetscCall(STGetKSP(st, &inner));
    PetscCall(KSPSetType(inner, KSPPREONLY));
    /* the preconditioner of the ST: the multigrid already set up on A (with its near null space), shared, not built twice */
    PetscCall(KSPGetPC(solver->ksp, &pc));
    PetscCall(KSPSetPC(inner, pc));
    {
      Mat A;
      PetscCall(KSPGetOperators(solver->ksp, &A, NULL));
      PetscCall(STSetPreconditionerMat(st, A));
    }
  } else {
    PetscCall(EPSSetType(eps, EPSKRYLOVSCHUR));
    PetscCall(EPSSetTarget(eps, target));
    PetscCall(EPSSetWhichEigenpairs(eps, EPS_TARGET_MAGNITUDE));
    PetscCall(STSetType(st, STSINVERT));
    PetscCall(STSetKSP(st, solver->ksp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  After EPSSolve with VISolverSetUpEPS's margin: a warning when the n-th eigenvalue kept and the first one left out are a
  repeated pair (a symmetric part's two bending modes, a bladed disk's pairs of travelling-wave modes): the n-th mode is then
  one arbitrary vector of their plane, which the solver's start vector picks, and whatever is built on it (a ROM's
  component modes, a truncated modal basis) depends on that pick. Asking for one mode more keeps the pair whole. The
  eigenvalues are the EPS's plus shift (the operator's K - shift M). Nothing when the margin did not converge.
*/
PetscErrorCode VISolverWarnSplitPair(EPS eps, PetscInt n, PetscReal shift, const char what[], const char option[])
{
  PetscInt    nconv;
  PetscScalar a, b;
  PetscReal   la, lb;
  MPI_Comm    comm;

  PetscFunctionBeginUser;
  PetscCall(EPSGetConverged(eps, &nconv));
  if (n < 1 || nconv <= n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(EPSGetEigenvalue(eps, n - 1, &a, NULL));
  PetscCall(EPSGetEigenvalue(eps, n, &b, NULL));
  la = PetscRealPart(a) + shift;
  lb = PetscRealPart(b) + shift;
  if (PetscAbsReal(lb - la) > 1e-8 * PetscMax(PetscAbsReal(la), PetscAbsReal(lb))) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectGetComm((PetscObject)eps, &comm));
  PetscCall(PetscPrintf(comm,
                        "vicms: warning: %s: mode %" PetscInt_FMT " (%.8g Hz) and the first mode left out (%.8g Hz) are a repeated pair: the mode kept is "
                        "an arbitrary vector of their plane and what is built on it depends on it; %s %" PetscInt_FMT " keeps the pair whole\n",
                        what, n, (double)(PetscSqrtReal(PetscMax(la, 0)) / (2 * PETSC_PI)), (double)(PetscSqrtReal(PetscMax(lb, 0)) / (2 * PETSC_PI)), option,
                        n + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}
