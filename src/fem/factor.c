/* VIFactorCholesky: the one MUMPS Cholesky factorization of vicms (the reduction's K or K_ii, vicms modes' K - sigma M), retried with more workspace.
 */
#include <vicms/fem.h>
#include <vicms/sys.h>

/* Pivots below this fraction of the matrix norm are null pivots (MUMPS CNTL(3) with ICNTL(24) = 1). */
#define VI_NULL_PIVOT_TOL 1e-11

/* MUMPS's workspace: at most this ICNTL(14) (percent added to the analysis' estimate) when retrying after INFOG(1) = -8, -9 or -20. */
#define VI_MUMPS_MAX_ICNTL14 1000

/* One attempt: a Cholesky KSP on A with the options of prefix and, when icntl14 is not PETSC_DETERMINE, that ICNTL(14). */
static PetscErrorCode VIFactorAttempt(MPI_Comm comm, Mat A, const char prefix[], PetscInt icntl14, KSP *ksp, PetscBool *mumps, PetscErrorCode *ierr,
                                      PCFailedReason *reason)
{
  PC            pc;
  Mat           F;
  MatSolverType type;
  char          name[256], user14[32] = "";
  PetscBool     had14 = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%smat_mumps_icntl_14", prefix));
  PetscCall(KSPCreate(comm, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPPREONLY));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCCHOLESKY));
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(PCFactorSetUpMatSolverType(pc));
  if (icntl14 != PETSC_DETERMINE) {
    /* PETSc reads -<prefix>mat_mumps_icntl_14 at the symbolic factorization, after MatMumpsSetIcntl: a retry overrides the user's value */
    char value[32];
    PetscCall(PetscOptionsGetString(NULL, NULL, name, user14, sizeof(user14), &had14));
    PetscCall(PetscSNPrintf(value, sizeof(value), "%" PetscInt_FMT, icntl14));
    PetscCall(PetscOptionsSetValue(NULL, name, value));
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
    if (had14)
      PetscCall(PetscOptionsSetValue(NULL, name, user14));
    else
      PetscCall(PetscOptionsClearValue(NULL, name));
  }
  PetscCall(PetscLogEventEnd(VI_Factor, 0, 0, 0, 0));
  *reason = PC_NOERROR;
  if (!*ierr) PetscCall(PCGetFailedReason(pc, reason));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The option of the path with no factorization, for the messages. */
static const char *VIFactorIterativeOption(const char prefix[])
{
  if (prefix && prefix[0] == 'c') return "-cms_solver iterative";
  if (prefix && prefix[0] == 'm') return "-modes_solver iterative";
  return "-cms_solver iterative or -modes_solver iterative";
}

/* Models from this many rows on get the memory check without -memory_limit: an analysis is cheap next to their factorization. */
#define VI_MEMORY_CHECK_ROWS 100000

/*
  The memory check before a factorization: MUMPS's analysis alone (a factor matrix of its own, with the options of prefix, so
  that a user's ordering or block low-rank settings count) gives its estimate of the memory per rank of the factorization in
  core (INFOG(16), the largest over the ranks, MB) and out of core (INFOG(26)); more than the memory a rank may take
  (-memory_limit MB, else VIMemoryAvailable) is refused before anything large is allocated, naming the iterative path. Done
  when -memory_limit is given or A has at least VI_MEMORY_CHECK_ROWS rows. A failed analysis is left to the factorization,
  which reports it.
*/
static PetscErrorCode VIFactorCheckMemory(MPI_Comm comm, Mat A, const char prefix[], const char what[])
{
  PetscBool      set, mumps;
  PetscReal      mb       = 0;
  PetscLogDouble per_rank = 0, node;
  PetscMPIInt    ranks;
  PetscInt       nrows, infog1 = 0, est_ic = 0, est_ooc = 0;
  Mat            G;
  MatFactorInfo  info;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-memory_limit", &mb, &set));
  PetscCheck(!set || mb > 0, comm, PETSC_ERR_USER_INPUT, "-memory_limit: got %g, expected a positive number of MB per rank", (double)mb);
  PetscCall(MatGetSize(A, &nrows, NULL));
  if (!set && nrows < VI_MEMORY_CHECK_ROWS) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSolverTypeGet(MATSOLVERMUMPS, MATAIJ, MAT_FACTOR_CHOLESKY, &mumps, NULL, NULL));
  if (!mumps) PetscFunctionReturn(PETSC_SUCCESS);
  if (!set) {
    PetscCall(VIMemoryAvailable(comm, &per_rank, &node, &ranks));
    mb = per_rank / 1e6;
  }
  PetscCall(MatGetFactor(A, MATSOLVERMUMPS, MAT_FACTOR_CHOLESKY, &G));
  PetscCall(MatSetOptionsPrefix(G, prefix));
  PetscCall(MatMumpsSetIcntl(G, 24, 1));
  PetscCall(MatFactorInfoInitialize(&info));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatCholeskyFactorSymbolic(G, A, NULL, &info);
  PetscCall(PetscPopErrorHandler());
  if (!ierr) {
    PetscCall(MatMumpsGetInfog(G, 1, &infog1));
    PetscCall(MatMumpsGetInfog(G, 16, &est_ic));
    PetscCall(MatMumpsGetInfog(G, 26, &est_ooc));
  }
  PetscCall(MatDestroy(&G));
  if (ierr || infog1 < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscInfo(NULL, "MUMPS's analysis of %s: %" PetscInt_FMT " MB per rank in core, %" PetscInt_FMT " MB out of core, %g MB available\n",
                      what, est_ic, est_ooc, (double)mb));
  PetscCheck(est_ic <= mb, comm, PETSC_ERR_MEM,
             "Not enough memory to factor %s: MUMPS's analysis estimates %" PetscInt_FMT " MB per rank (INFOG(16); %" PetscInt_FMT
             " MB out of core, INFOG(26)), %.0f MB are available per rank%s; use the iterative solver (%s, no factorization), more ranks or "
             "nodes, or block low-rank factors (-%smat_mumps_icntl_35 2 -%smat_mumps_cntl_7 1e-8)",
             what, est_ic, est_ooc, (double)mb, set ? " (-memory_limit)" : "", VIFactorIterativeOption(prefix), prefix, prefix);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  A symmetric positive definite matrix is flagged MAT_SPD, so PETSc gives MUMPS SYM = 1 (LL^T, no pivoting) instead of SYM = 2
  (LDL^T with pivoting): less memory, and no delayed pivots that outgrow the workspace estimated by the analysis. When MUMPS
  still stops with INFOG(1) = -8 or -9 (its estimate of the workspace was too small; not a full memory) or -20 (its internal
  reception buffer was too small, which block low-rank factors at 109k DOFs met; the buffer grows with ICNTL(14)), the factorization is
  retried with ICNTL(14) doubled (at least 40, at most 1000) and the log says so. INFOG(1) = -13 is a failed allocation: the
  machine's memory is full; that, like -19 (the limit ICNTL(23)), is not retried.
*/
PetscErrorCode VIFactorCholesky(MPI_Comm comm, Mat A, PetscBool spd, const char prefix[], const char what[], KSP *ksp, PetscInt *nnull)
{
  PC             pc;
  Mat            F = NULL;
  PetscBool      mumps;
  PCFailedReason reason;
  PetscInt       icntl14 = PETSC_DETERMINE, infog1 = 0, infog2 = 0;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  *nnull = 0;
  PetscCall(VIFactorCheckMemory(comm, A, prefix, what));
  if (spd)
    PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
  else
    PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  for (;;) {
    PetscCall(VIFactorAttempt(comm, A, prefix, icntl14, ksp, &mumps, &ierr, &reason));
    PetscCall(KSPGetPC(*ksp, &pc));
    infog1 = infog2 = 0;
    if (mumps) {
      PetscCall(PCFactorGetMatrix(pc, &F));
      PetscCall(MatMumpsGetInfog(F, 1, &infog1));
      PetscCall(MatMumpsGetInfog(F, 2, &infog2));
      if ((ierr || reason != PC_NOERROR) && (infog1 == -8 || infog1 == -9 || infog1 == -20)) {
        PetscInt used, next;
        PetscCall(MatMumpsGetIcntl(F, 14, &used));
        next = PetscMax(2 * used, 40);
        if (next <= VI_MUMPS_MAX_ICNTL14) {
          PetscCall(PetscPrintf(comm,
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
  if (!ierr && reason == PC_NOERROR && mumps) PetscCall(MatMumpsGetInfog(F, 28, nnull));
  if ((ierr || reason != PC_NOERROR) && mumps && infog1 < 0 && infog1 != -10) {
    /* tell an underestimated workspace, a full memory and another MUMPS failure from a singular matrix (INFOG(1) = -10) */
    PetscInt used = 0;
    PetscCall(MatMumpsGetIcntl(F, 14, &used));
    PetscCall(KSPDestroy(ksp));
    PetscCheck(infog1 != -8 && infog1 != -9 && infog1 != -20, comm, PETSC_ERR_MEM,
               "MUMPS's workspace was too small factorizing %s even with ICNTL(14) = %" PetscInt_FMT " (INFOG(1) = %" PetscInt_FMT
               ", INFOG(2) = %" PetscInt_FMT "): an underestimate of the analysis, not a full memory; give more with -%smat_mumps_icntl_14 %d",
               what, used, infog1, infog2, prefix, 2 * VI_MUMPS_MAX_ICNTL14);
    PetscCheck(infog1 != -13, comm, PETSC_ERR_MEM,
               "Out of memory: MUMPS could not allocate its workspace factorizing %s (INFOG(1) = -13, INFOG(2) = %" PetscInt_FMT
               "): use more ranks or nodes, out-of-core factors (-%smat_mumps_icntl_22 1) or block low-rank compression "
               "(-%smat_mumps_icntl_35 2 -%smat_mumps_cntl_7 1e-8)",
               what, infog2, prefix, prefix, prefix);
    PetscCheck(infog1 != -19, comm, PETSC_ERR_MEM,
               "MUMPS needs more memory factorizing %s than the limit -%smat_mumps_icntl_23 allows (INFOG(1) = -19, INFOG(2) = %" PetscInt_FMT
               "): raise or remove the limit",
               what, prefix, infog2);
    SETERRQ(comm, PETSC_ERR_LIB, "MUMPS failed factorizing %s: INFOG(1) = %" PetscInt_FMT ", INFOG(2) = %" PetscInt_FMT " (see the MUMPS manual)",
            what, infog1, infog2);
  }
  /* nothing of a singular matrix's factorization survives: the caller says what the singularity means */
  if (ierr || reason != PC_NOERROR || *nnull > 0) PetscCall(KSPDestroy(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
