/* vicms_amls_bench: a one-level substructuring (automated multilevel substructuring, AMLS, at one level: Bennighof and
   Lehoucq, SIAM J. Sci. Comput. 25 (2004) 2084) prototype on vicms's own partition, to measure it against the direct and
   iterative paths of `vicms modes` (issue 26). A benchmark program, not a user feature.

   The parent's assembled K, M (MPIAIJ, contiguous rows per rank). The interface Gamma: the rows of a rank coupled to a column
   of a higher rank. With vicms's node ownership (a node belongs to the lowest rank of its elements) these are the nodes shared
   by elements of different ranks, a separator: a row of rank s not in Gamma couples only to rows of rank s and to Gamma rows of
   lower ranks (checked below). The interior I_r: the other rows of rank r. Each rank, on PETSC_COMM_SELF:
     - factors K_{I_r I_r} (MUMPS Cholesky, sequential);
     - its fixed-interface modes Phi_r, K_II Phi = M_II Phi Lambda, Phi^T M_II Phi = I (SLEPc Krylov-Schur, shift-and-invert
       at 0 on that factorization), all those with omega below the largest cutoff omega_c = c 2 pi f_max;
     - the static constraint modes Psi_r = -K_II^{-1} K_{I C_r} of its coupling columns C_r (the Gamma columns in its interior
       rows, its own and lower ranks'), by blocks of columns, never all stored: per block b
         Psi_b = -K_II^{-1} K_{I b},  Y_b = M_II Psi_b + M_{I b},  Z_b = K_II^{-1} Y_b,
       and the block's contributions to the reduced matrices (T = [Phi Psi; 0 I], K^ = T^T K T, M^ = T^T M T):
         K^_{C b} += K_{C I} Psi_b            (K_{GG} + these: the Schur complement; K^_{Phi C} = 0, K^_{Phi Phi} = Lambda)
         M^_{C b} += M_{C I} Psi_b - K_{C I} Z_b     (= M_{CI} Psi + Psi^T M_{IC} + Psi^T M_II Psi, as K_{CI} K_II^{-1} = -Psi^T)
         M^_{Phi b} = Phi^T Y_b,  M^_{Phi Phi} = I.
   The reduced problem on [Gamma DOFs of rank r, modes of rank r] per rank (an MPIAIJ matrix with dense local blocks, small):
   its lowest eigenpairs by SLEPc Krylov-Schur, shift-and-invert at 0 with MUMPS. The reduced matrices are built once for the
   largest cutoff; each smaller cutoff keeps the Gamma rows and the modes below it (a submatrix).

   Options: the mesh's and model's (as `vicms modes`), and
     -amls_nev n            eigenpairs wanted (20)
     -amls_fmax f           the highest wanted frequency [Hz] (required unless -amls_all): the cutoffs are multiples of it
     -amls_cutoffs c1,c2..  the cutoffs' multiples of f_max (5,10)
     -amls_all              keep every local mode (the basis spans the whole space: exact up to rounding)
     -amls_block w          constraint-mode columns per block (64)
     -amls_max_local n      at most n local modes per rank (3000)
     -amls_reference f1,..  reference frequencies [Hz] (e.g. the direct path's) to print the relative errors against
     -amls_check            also solve the parent by VIModalSolve (direct, -modes_* options) after the measurement and
                            compare; exits non-zero when the largest relative error exceeds -amls_check_tol (1e-8)
   Every phase prints its wall time (the largest over the ranks, barriers between phases) and the peak resident memory so far
   (VmHWM of /proc/self/status, the largest over the ranks). Lines "AMLS_RESULT key=value ..." are for bench/amls.sh. */
#include <vicms.h>
#include <petscblaslapack.h>
#include <slepceps.h>

typedef struct {
  PetscInt     n, nnz;
  PetscInt    *ia, *ja; /* rows of the interior with entries in the coupling columns, CSR over the interior rows */
  PetscScalar *a;
} CSR;

static PetscErrorCode PeakMiB(MPI_Comm comm, double *mib)
{
  FILE  *f;
  char   line[256];
  double kb = 0, kbmax;

  PetscFunctionBeginUser;
  f = fopen("/proc/self/status", "r");
  if (f) {
    while (fgets(line, sizeof(line), f))
      if (!strncmp(line, "VmHWM:", 6)) kb = atof(line + 6);
    fclose(f);
  }
  PetscCallMPI(MPI_Allreduce(&kb, &kbmax, 1, MPI_DOUBLE, MPI_MAX, comm));
  *mib = kbmax / 1024;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the end of a phase: barrier, wall time since *t0, peak memory; prints and restarts the clock */
static PetscErrorCode PhaseEnd(MPI_Comm comm, const char name[], PetscLogDouble *t0)
{
  PetscLogDouble t1;
  double         mib;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t1));
  PetscCall(PeakMiB(comm, &mib));
  PetscCall(PetscPrintf(comm, "  phase %-34s %8.2f s   peak memory of the largest rank so far %7.1f MiB\n", name, (double)(t1 - *t0), mib));
  PetscCall(PetscPrintf(comm, "AMLS_RESULT phase=%s time=%.3f peak_mib=%.1f\n", name, (double)(t1 - *t0), mib));
  *t0 = t1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CSRFromMat(Mat A, CSR *c)
{
  PetscInt           m, ncols, k = 0;
  const PetscInt    *cols;
  const PetscScalar *vals;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, NULL));
  c->n = m;
  PetscCall(PetscMalloc1(m + 1, &c->ia));
  c->ia[0] = 0;
  for (PetscInt i = 0; i < m; i++) {
    PetscCall(MatGetRow(A, i, &ncols, NULL, NULL));
    c->ia[i + 1] = c->ia[i] + ncols;
    PetscCall(MatRestoreRow(A, i, &ncols, NULL, NULL));
  }
  c->nnz = c->ia[m];
  PetscCall(PetscMalloc2(c->nnz, &c->ja, c->nnz, &c->a));
  for (PetscInt i = 0; i < m; i++) {
    PetscCall(MatGetRow(A, i, &ncols, &cols, &vals));
    for (PetscInt j = 0; j < ncols; j++, k++) {
      c->ja[k] = cols[j];
      c->a[k]  = vals[j];
    }
    PetscCall(MatRestoreRow(A, i, &ncols, &cols, &vals));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CSRDestroy(CSR *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(c->ia));
  PetscCall(PetscFree2(c->ja, c->a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the sequential blocks K(rows, cols), M(rows, cols) of the parallel K, M (global row and column numbers) */
static PetscErrorCode LocalBlocks(Mat K, Mat M, PetscInt nr, const PetscInt rows[], PetscInt nc, const PetscInt cols[], Mat *Kb, Mat *Mb)
{
  IS   isr, isc;
  Mat *subs;

  PetscFunctionBeginUser;
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nr, rows, PETSC_USE_POINTER, &isr));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nc, cols, PETSC_USE_POINTER, &isc));
  PetscCall(MatCreateSubMatrices(K, 1, &isr, &isc, MAT_INITIAL_MATRIX, &subs));
  *Kb = subs[0];
  PetscCall(PetscFree(subs));
  PetscCall(MatCreateSubMatrices(M, 1, &isr, &isc, MAT_INITIAL_MATRIX, &subs));
  *Mb = subs[0];
  PetscCall(PetscFree(subs));
  PetscCall(ISDestroy(&isr));
  PetscCall(ISDestroy(&isc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the shift-and-invert operator's solve at 0 by the rank's factorization of K_II */
static PetscErrorCode PCApplyFactor(PC pc, Vec x, Vec y)
{
  Mat F;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &F));
  PetscCall(MatSolve(F, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the local fixed-interface modes below lambda_c (all of them with all = true), ascending, M-orthonormal, into phi (n x k) */
static PetscErrorCode LocalModes(Mat Kii, Mat Mii, Mat F, PetscBool all, PetscReal lambda_c, PetscInt max_local, PetscInt *k, PetscScalar **phi,
                                 PetscReal **lambda)
{
  EPS       eps;
  ST        st;
  KSP       ksp;
  PC        pc;
  PetscInt  n, nev, nconv = 0, pass;
  PetscReal lmax = 0;
  Vec       x;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(Kii, &n, NULL));
  *k      = 0;
  *phi    = NULL;
  *lambda = NULL;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  nev = all ? n : PetscMin(n, PetscMin(max_local, 60));
  for (pass = 0; pass < 6; pass++) {
    PetscCall(EPSCreate(PETSC_COMM_SELF, &eps));
    PetscCall(EPSSetOptionsPrefix(eps, "amls_local_"));
    PetscCall(EPSSetOperators(eps, Kii, Mii));
    PetscCall(EPSSetProblemType(eps, EPS_GHEP));
    PetscCall(EPSGetST(eps, &st));
    if (all) {
      PetscCall(EPSSetType(eps, EPSLAPACK));
      PetscCall(EPSSetWhichEigenpairs(eps, EPS_SMALLEST_REAL));
    } else {
      PetscCall(EPSSetType(eps, EPSKRYLOVSCHUR));
      PetscCall(EPSSetWhichEigenpairs(eps, EPS_TARGET_MAGNITUDE));
      PetscCall(EPSSetTarget(eps, 0.0));
      PetscCall(STSetType(st, STSINVERT));
      PetscCall(STSetMatMode(st, ST_MATMODE_SHELL));
      PetscCall(STGetKSP(st, &ksp));
      PetscCall(KSPSetType(ksp, KSPPREONLY));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, PCSHELL));
      PetscCall(PCShellSetContext(pc, F));
      PetscCall(PCShellSetApply(pc, PCApplyFactor));
    }
    PetscCall(EPSSetDimensions(eps, nev, PETSC_DEFAULT, nev > 256 ? 256 : PETSC_DEFAULT));
    PetscCall(EPSSetTolerances(eps, 1e-10, PETSC_DEFAULT));
    PetscCall(EPSSetFromOptions(eps));
    PetscCall(EPSSolve(eps));
    PetscCall(EPSGetConverged(eps, &nconv));
    PetscCheck(nconv >= PetscMin(nev, n), PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "local modes: %" PetscInt_FMT " of %" PetscInt_FMT " converged",
               nconv, nev);
    nconv = PetscMin(nconv, nev);
    {
      PetscScalar l;
      PetscCall(EPSGetEigenvalue(eps, nconv - 1, &l, NULL));
      lmax = PetscRealPart(l);
    }
    if (all || lmax >= lambda_c || nconv >= n || nev >= max_local || pass == 5) break;
    /* Weyl's law in 3D: the number of modes below lambda grows as lambda^(3/2) */
    PetscInt next = (PetscInt)(nconv * PetscPowReal(lambda_c / lmax, 1.5) * 1.2) + 10;
    nev           = PetscMin(PetscMin(n, max_local), PetscMax(next, 2 * nev));
    PetscCall(EPSDestroy(&eps));
  }
  /* keep those below the cutoff */
  PetscCall(PetscMalloc1(nconv, lambda));
  *k = 0;
  for (PetscInt i = 0; i < nconv; i++) {
    PetscScalar l;
    PetscCall(EPSGetEigenvalue(eps, i, &l, NULL));
    if (!all && PetscRealPart(l) > lambda_c) break;
    (*lambda)[i] = PetscRealPart(l);
    (*k)++;
  }
  if (!all && *k == nconv && lmax < lambda_c)
    PetscCall(PetscInfo(NULL, "local modes capped at %" PetscInt_FMT " below the cutoff (-amls_max_local)\n", *k));
  PetscCall(PetscMalloc1((size_t)n * (*k) + 1, phi));
  PetscCall(MatCreateVecs(Kii, &x, NULL));
  for (PetscInt i = 0; i < *k; i++) {
    const PetscScalar *xa;
    PetscCall(EPSGetEigenvector(eps, i, x, NULL));
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(PetscArraycpy(*phi + (size_t)n * i, xa, n));
    PetscCall(VecRestoreArrayRead(x, &xa));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(EPSDestroy(&eps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the lowest nev eigenvalues of the reduced problem (K^, M^) */
static PetscErrorCode ReducedSolve(Mat Kr, Mat Mr, PetscInt nev, PetscReal lambda[])
{
  EPS      eps;
  ST       st;
  KSP      ksp;
  PC       pc;
  PetscInt nconv;

  PetscFunctionBeginUser;
  PetscCall(EPSCreate(PetscObjectComm((PetscObject)Kr), &eps));
  PetscCall(EPSSetOptionsPrefix(eps, "amls_red_"));
  PetscCall(EPSSetOperators(eps, Kr, Mr));
  PetscCall(EPSSetProblemType(eps, EPS_GHEP));
  PetscCall(EPSSetType(eps, EPSKRYLOVSCHUR));
  PetscCall(EPSSetWhichEigenpairs(eps, EPS_TARGET_MAGNITUDE));
  PetscCall(EPSSetTarget(eps, 0.0));
  PetscCall(EPSGetST(eps, &st));
  PetscCall(STSetType(st, STSINVERT));
  PetscCall(STGetKSP(st, &ksp));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCCHOLESKY));
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
  /* 4 more than wanted: Krylov-Schur may return one of a double eigenvalue at the end of the wanted set only */
  PetscCall(EPSSetDimensions(eps, nev + 4, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(EPSSetTolerances(eps, 1e-12, PETSC_DEFAULT));
  PetscCall(EPSSetFromOptions(eps));
  PetscCall(EPSSolve(eps));
  PetscCall(EPSGetConverged(eps, &nconv));
  PetscCheck(nconv >= nev, PetscObjectComm((PetscObject)Kr), PETSC_ERR_NOT_CONVERGED,
             "reduced problem: %" PetscInt_FMT " of %" PetscInt_FMT " converged", nconv, nev);
  {
    PetscReal *all;
    PetscCall(PetscMalloc1(nconv, &all));
    for (PetscInt i = 0; i < nconv; i++) {
      PetscScalar l;
      PetscCall(EPSGetEigenvalue(eps, i, &l, NULL));
      all[i] = PetscRealPart(l);
    }
    PetscCall(PetscSortReal(nconv, all));
    PetscCall(PetscArraycpy(lambda, all, nev));
    PetscCall(PetscFree(all));
  }
  PetscCall(EPSDestroy(&eps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm        comm;
  VIMesh          mesh;
  VIModel         model;
  Mat             K, M, Ad, Ao, Kii, Mii, Kic, Mic, F, Kr, Mr;
  const PetscInt *garray;
  PetscInt        nev = 20, nc = 16, block = 64, max_local = 3000, nref = 128, rstart, rend, nloc, no, nG = 0, nI = 0, ncpl = 0, k = 0;
  PetscInt        red0        = 0, nred, Nred, NG, N, sumk, mink, maxk;
  PetscReal       cutoffs[16] = {5, 10}, fmax = 0, ref[128], check_tol = 1e-8, cmax = 0;
  PetscBool       all = PETSC_FALSE, check = PETSC_FALSE, fmax_set = PETSC_FALSE, ref_set = PETSC_FALSE;
  PetscInt       *isG, *Irows, *Grows, *Ccols, *redC;
  PetscScalar    *phi    = NULL;
  PetscReal      *lambda = NULL;
  PetscMPIInt     rank, size;
  PetscLogDouble  t0, tstart;
  double          mib;

  PetscCall(SlepcInitialize(&argc, &argv, NULL, "vicms_amls_bench: one-level substructuring (AMLS) of a vicms model\n"));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscOptionsBegin(comm, NULL, "vicms_amls_bench", "");
  PetscCall(PetscOptionsInt("-amls_nev", "Eigenpairs wanted", "", nev, &nev, NULL));
  PetscCall(PetscOptionsReal("-amls_fmax", "The highest wanted frequency [Hz]", "", fmax, &fmax, &fmax_set));
  PetscCall(PetscOptionsRealArray("-amls_cutoffs", "The cutoffs as multiples of -amls_fmax", "", cutoffs, &nc, NULL));
  PetscCall(PetscOptionsBool("-amls_all", "Keep every local mode (exact)", "", all, &all, NULL));
  PetscCall(PetscOptionsInt("-amls_block", "Constraint-mode columns per block", "", block, &block, NULL));
  PetscCall(PetscOptionsInt("-amls_max_local", "At most this many local modes per rank", "", max_local, &max_local, NULL));
  PetscCall(PetscOptionsRealArray("-amls_reference", "Reference frequencies [Hz]", "", ref, &nref, &ref_set));
  PetscCall(PetscOptionsBool("-amls_check", "Compare with VIModalSolve (direct) after the measurement", "", check, &check, NULL));
  PetscCall(PetscOptionsReal("-amls_check_tol", "Largest relative error of -amls_check", "", check_tol, &check_tol, NULL));
  PetscOptionsEnd();
  PetscCheck(all || fmax_set, comm, PETSC_ERR_USER_INPUT, "-amls_fmax: the highest wanted frequency [Hz] is required (or -amls_all)");
  PetscCheck(all || nc > 0, comm, PETSC_ERR_USER_INPUT, "-amls_cutoffs: expected at least one multiple of -amls_fmax");
  if (all) nc = 1;
  if (!ref_set) nref = 0;
  for (PetscInt c = 0; c < nc; c++) cmax = PetscMax(cmax, cutoffs[c]);

  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  tstart = t0;
  PetscCall(VIMeshCreate(comm, &mesh));
  PetscCall(VIModelCreate(comm, &model));
  PetscCall(VIModelSetMesh(model, mesh));
  PetscCall(VIMeshSetFromOptions(mesh));
  PetscCall(VIModelSetFromOptions(model));
  PetscCall(VIMeshSetUp(mesh));
  PetscCall(VIModelSetUp(model));
  PetscCall(VIModelGetMatrices(model, &K, &M));
  PetscCall(PhaseEnd(comm, "mesh and assembly", &t0));

  /* the interface: rows coupled to a column of a higher rank */
  PetscCall(MatGetOwnershipRange(K, &rstart, &rend));
  nloc = rend - rstart;
  if (size > 1) {
    PetscCall(MatMPIAIJGetSeqAIJ(K, &Ad, &Ao, &garray));
    PetscCall(MatGetSize(Ao, NULL, &no));
  } else { /* one rank: no interface, the local modes are the parent's */
    Ad     = K;
    Ao     = NULL;
    garray = NULL;
    no     = 0;
  }
  PetscCall(PetscMalloc3(nloc, &isG, nloc, &Irows, nloc, &Grows));
  for (PetscInt i = 0; i < nloc; i++) {
    PetscInt        ncols;
    const PetscInt *cols;
    isG[i] = 0;
    if (Ao) {
      PetscCall(MatGetRow(Ao, i, &ncols, &cols, NULL));
      for (PetscInt j = 0; j < ncols; j++)
        if (garray[cols[j]] >= rend) isG[i] = 1;
      PetscCall(MatRestoreRow(Ao, i, &ncols, &cols, NULL));
    }
    if (isG[i])
      Grows[nG++] = rstart + i;
    else
      Irows[nI++] = rstart + i;
  }

  /* the local fixed-interface problem */
  PetscCall(LocalBlocks(K, M, nI, Irows, nI, Irows, &Kii, &Mii));
  PetscCall(PhaseEnd(comm, "interface and local matrices", &t0));

  PetscCall(MatSetOption(Kii, MAT_SPD, PETSC_TRUE));
  {
    MatFactorInfo info;
    IS            rperm, cperm;
    PetscCall(MatGetFactor(Kii, MATSOLVERMUMPS, MAT_FACTOR_CHOLESKY, &F));
    PetscCall(MatGetOrdering(Kii, MATORDERINGNATURAL, &rperm, &cperm));
    PetscCall(MatFactorInfoInitialize(&info));
    PetscCall(MatCholeskyFactorSymbolic(F, Kii, rperm, &info));
    PetscCall(MatCholeskyFactorNumeric(F, Kii, &info));
    PetscCall(ISDestroy(&rperm));
    PetscCall(ISDestroy(&cperm));
  }
  PetscCall(PhaseEnd(comm, "local factorization (MUMPS)", &t0));

  {
    PetscReal lambda_c = all ? PETSC_MAX_REAL : PetscSqr(2 * PETSC_PI * cmax * fmax);
    PetscCall(LocalModes(Kii, Mii, F, all, lambda_c, max_local, &k, &phi, &lambda));
  }
  PetscCall(PhaseEnd(comm, "local modes (Krylov-Schur)", &t0));

  /* the reduced numbering: per rank its Gamma rows, then its modes */
  nred = nG + k;
  PetscCallMPI(MPI_Exscan(&nred, &red0, 1, MPIU_INT, MPI_SUM, comm));
  if (!rank) red0 = 0;
  PetscCallMPI(MPI_Allreduce(&nred, &Nred, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&nG, &NG, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&k, &sumk, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&k, &mink, 1, MPIU_INT, MPI_MIN, comm));
  PetscCallMPI(MPI_Allreduce(&k, &maxk, 1, MPIU_INT, MPI_MAX, comm));

  /* each local row's reduced index (-1: interior), and the off-rank columns' from their owners */
  PetscInt *redloc, *redoff;
  {
    Vec                gv, lv;
    IS                 from;
    VecScatter         sc;
    PetscScalar       *ga;
    const PetscScalar *la;
    PetscInt           g = 0;
    PetscCall(PetscMalloc2(nloc, &redloc, no, &redoff));
    for (PetscInt i = 0; i < nloc; i++) redloc[i] = -1;
    for (PetscInt j = 0; j < nG; j++) redloc[Grows[j] - rstart] = red0 + g++;
    PetscCall(MatCreateVecs(K, NULL, &gv));
    PetscCall(VecGetArray(gv, &ga));
    for (PetscInt i = 0; i < nloc; i++) ga[i] = redloc[i];
    PetscCall(VecRestoreArray(gv, &ga));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, no, &lv));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, no, garray, PETSC_COPY_VALUES, &from));
    PetscCall(VecScatterCreate(gv, from, lv, NULL, &sc));
    PetscCall(VecScatterBegin(sc, gv, lv, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sc, gv, lv, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(lv, &la));
    for (PetscInt j = 0; j < no; j++) redoff[j] = (PetscInt)PetscRealPart(la[j]);
    PetscCall(VecRestoreArrayRead(lv, &la));
    PetscCall(VecScatterDestroy(&sc));
    PetscCall(ISDestroy(&from));
    PetscCall(VecDestroy(&lv));
    PetscCall(VecDestroy(&gv));
  }

  /* the coupling columns C_r of the interior rows, and the check that an interior row couples to no off-rank interior row */
  {
    PetscInt *mark, nbad = 0, nbadall;
    PetscCall(PetscCalloc1(nloc + no, &mark));
    for (PetscInt i = 0; i < nI; i++) {
      PetscInt        ncols;
      const PetscInt *cols;
      PetscInt        li = Irows[i] - rstart;
      PetscCall(MatGetRow(Ad, li, &ncols, &cols, NULL));
      for (PetscInt j = 0; j < ncols; j++)
        if (redloc[cols[j]] >= 0) mark[cols[j]] = 1;
      PetscCall(MatRestoreRow(Ad, li, &ncols, &cols, NULL));
      if (!Ao) continue;
      PetscCall(MatGetRow(Ao, li, &ncols, &cols, NULL));
      for (PetscInt j = 0; j < ncols; j++) {
        if (redoff[cols[j]] >= 0)
          mark[nloc + cols[j]] = 1;
        else
          nbad++;
      }
      PetscCall(MatRestoreRow(Ao, li, &ncols, &cols, NULL));
    }
    PetscCallMPI(MPI_Allreduce(&nbad, &nbadall, 1, MPIU_INT, MPI_SUM, comm));
    PetscCheck(!nbadall, comm, PETSC_ERR_PLIB,
               "%" PetscInt_FMT " couplings of interior rows to other ranks' interior rows: the interface is not a separator", nbadall);
    /* global column numbers, ascending: the lower ranks' (garray is ascending and these are below rstart) then the own */
    PetscCall(PetscMalloc2(nloc + no, &Ccols, nloc + no, &redC));
    for (PetscInt j = 0; j < no; j++)
      if (mark[nloc + j]) {
        Ccols[ncpl]  = garray[j];
        redC[ncpl++] = redoff[j];
      }
    for (PetscInt i = 0; i < nloc; i++)
      if (mark[i]) {
        Ccols[ncpl]  = rstart + i;
        redC[ncpl++] = redloc[i];
      }
    PetscCall(PetscFree(mark));
  }
  PetscCall(LocalBlocks(K, M, nI, Irows, ncpl, Ccols, &Kic, &Mic));

  /* the reduced matrices: the Gamma-Gamma entries of K and M (from the owners' rows), the modes' diagonal */
  {
    PetscInt *dnz, *onz;
    PetscCall(PetscMalloc2(nred, &dnz, nred, &onz));
    for (PetscInt i = 0; i < nred; i++) {
      dnz[i] = nred;
      onz[i] = Nred - nred;
    }
    PetscCall(MatCreateAIJ(comm, nred, nred, Nred, Nred, 0, dnz, 0, onz, &Kr));
    PetscCall(MatCreateAIJ(comm, nred, nred, Nred, Nred, 0, dnz, 0, onz, &Mr));
    PetscCall(PetscFree2(dnz, onz));
    PetscCall(MatSetOption(Kr, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(Mr, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  }
  for (PetscInt j = 0; j < nG; j++) {
    Mat                A[2] = {K, M}, R[2] = {Kr, Mr};
    PetscInt           ncols, row          = red0 + j;
    const PetscInt    *cols;
    const PetscScalar *vals;
    for (PetscInt m = 0; m < 2; m++) {
      PetscCall(MatGetRow(A[m], Grows[j], &ncols, &cols, &vals));
      for (PetscInt c = 0; c < ncols; c++) {
        PetscInt r;
        if (cols[c] >= rstart && cols[c] < rend)
          r = redloc[cols[c] - rstart];
        else {
          PetscInt loc;
          PetscCall(PetscFindInt(cols[c], no, garray, &loc));
          PetscCheck(loc >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "column not in the off-diagonal block");
          r = redoff[loc];
        }
        if (r >= 0) PetscCall(MatSetValue(R[m], row, r, vals[c], ADD_VALUES));
      }
      PetscCall(MatRestoreRow(A[m], Grows[j], &ncols, &cols, &vals));
    }
  }
  for (PetscInt i = 0; i < k; i++) {
    PetscCall(MatSetValue(Kr, red0 + nG + i, red0 + nG + i, lambda[i], ADD_VALUES));
    PetscCall(MatSetValue(Mr, red0 + nG + i, red0 + nG + i, 1.0, ADD_VALUES));
  }

  /* the constraint modes by blocks of columns, and their contributions */
  {
    CSR          kic, mic;
    Mat          R, Psi, Y, Z, MPsi = NULL;
    PetscScalar *ra, *pa, *ya, *za, *kc, *mc, *pm;
    PetscInt    *colsb, *rowsm;
    PetscInt     w = PetscMax(1, PetscMin(block, ncpl));

    PetscCall(CSRFromMat(Kic, &kic));
    PetscCall(CSRFromMat(Mic, &mic));
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, nI, w, NULL, &R));
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, nI, w, NULL, &Psi));
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, nI, w, NULL, &Y));
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, nI, w, NULL, &Z));
    PetscCall(PetscMalloc5((size_t)ncpl * w + 1, &kc, (size_t)ncpl * w + 1, &mc, (size_t)k * w + 1, &pm, w, &colsb, k + 1, &rowsm));
    for (PetscInt i = 0; i < k; i++) rowsm[i] = red0 + nG + i;
    for (PetscInt b0 = 0; b0 < ncpl; b0 += w) {
      PetscInt wb = PetscMin(w, ncpl - b0);
      /* R = K_{I b} */
      PetscCall(MatDenseGetArray(R, &ra));
      PetscCall(PetscArrayzero(ra, (size_t)nI * w));
      for (PetscInt i = 0; i < nI; i++)
        for (PetscInt q = kic.ia[i]; q < kic.ia[i + 1]; q++)
          if (kic.ja[q] >= b0 && kic.ja[q] < b0 + wb) ra[i + (size_t)nI * (kic.ja[q] - b0)] = kic.a[q];
      PetscCall(MatDenseRestoreArray(R, &ra));
      PetscCall(MatMatSolve(F, R, Psi));
      PetscCall(MatScale(Psi, -1.0));
      /* Y = M_II Psi + M_{I b} */
      if (!MPsi)
        PetscCall(MatMatMult(Mii, Psi, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &MPsi));
      else
        PetscCall(MatMatMult(Mii, Psi, MAT_REUSE_MATRIX, PETSC_DEFAULT, &MPsi));
      PetscCall(MatCopy(MPsi, Y, SAME_NONZERO_PATTERN));
      PetscCall(MatDenseGetArray(Y, &ya));
      for (PetscInt i = 0; i < nI; i++)
        for (PetscInt q = mic.ia[i]; q < mic.ia[i + 1]; q++)
          if (mic.ja[q] >= b0 && mic.ja[q] < b0 + wb) ya[i + (size_t)nI * (mic.ja[q] - b0)] += mic.a[q];
      PetscCall(MatDenseRestoreArray(Y, &ya));
      PetscCall(MatMatSolve(F, Y, Z));
      /* K^_{C b} += K_{CI} Psi_b, M^_{C b} += M_{CI} Psi_b - K_{CI} Z_b */
      PetscCall(PetscArrayzero(kc, (size_t)ncpl * w));
      PetscCall(PetscArrayzero(mc, (size_t)ncpl * w));
      PetscCall(MatDenseGetArray(Psi, &pa));
      PetscCall(MatDenseGetArray(Z, &za));
      for (PetscInt i = 0; i < nI; i++) {
        for (PetscInt q = kic.ia[i]; q < kic.ia[i + 1]; q++)
          for (PetscInt t = 0; t < wb; t++) {
            kc[kic.ja[q] + (size_t)ncpl * t] += kic.a[q] * pa[i + (size_t)nI * t];
            mc[kic.ja[q] + (size_t)ncpl * t] -= kic.a[q] * za[i + (size_t)nI * t];
          }
        for (PetscInt q = mic.ia[i]; q < mic.ia[i + 1]; q++)
          for (PetscInt t = 0; t < wb; t++) mc[mic.ja[q] + (size_t)ncpl * t] += mic.a[q] * pa[i + (size_t)nI * t];
      }
      PetscCall(MatDenseRestoreArray(Psi, &pa));
      PetscCall(MatDenseRestoreArray(Z, &za));
      for (PetscInt t = 0; t < wb; t++) colsb[t] = redC[b0 + t];
      /* MatSetValues takes row-oriented values: set column-oriented for these blocks */
      PetscCall(MatSetOption(Kr, MAT_ROW_ORIENTED, PETSC_FALSE));
      PetscCall(MatSetOption(Mr, MAT_ROW_ORIENTED, PETSC_FALSE));
      PetscCall(MatSetValues(Kr, ncpl, redC, wb, colsb, kc, ADD_VALUES));
      PetscCall(MatSetValues(Mr, ncpl, redC, wb, colsb, mc, ADD_VALUES));
      /* M^_{Phi b} = Phi^T Y_b, and its transpose */
      if (k) {
        PetscBLASInt bm, bn, bk, ldp, ldy;
        PetscScalar  one = 1, zero = 0;
        PetscCall(PetscBLASIntCast(k, &bm));
        PetscCall(PetscBLASIntCast(wb, &bn));
        PetscCall(PetscBLASIntCast(nI, &bk));
        ldp = bk;
        ldy = bk;
        PetscCall(MatDenseGetArray(Y, &ya));
        if (nI)
          PetscCallBLAS("BLASgemm", BLASgemm_("T", "N", &bm, &bn, &bk, &one, phi, &ldp, ya, &ldy, &zero, pm, &bm));
        else
          PetscCall(PetscArrayzero(pm, (size_t)k * wb));
        PetscCall(MatDenseRestoreArray(Y, &ya));
        PetscCall(MatSetValues(Mr, k, rowsm, wb, colsb, pm, ADD_VALUES));
        PetscCall(MatSetOption(Mr, MAT_ROW_ORIENTED, PETSC_TRUE));
        PetscCall(MatSetValues(Mr, wb, colsb, k, rowsm, pm, ADD_VALUES));
      }
      PetscCall(MatSetOption(Kr, MAT_ROW_ORIENTED, PETSC_TRUE));
      PetscCall(MatSetOption(Mr, MAT_ROW_ORIENTED, PETSC_TRUE));
    }
    PetscCall(MatAssemblyBegin(Kr, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Kr, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(Mr, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Mr, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscFree5(kc, mc, pm, colsb, rowsm));
    PetscCall(MatDestroy(&R));
    PetscCall(MatDestroy(&Psi));
    PetscCall(MatDestroy(&MPsi));
    PetscCall(MatDestroy(&Y));
    PetscCall(MatDestroy(&Z));
    PetscCall(CSRDestroy(&kic));
    PetscCall(CSRDestroy(&mic));
  }
  {
    PetscInt ncmax, ncsum;
    PetscCallMPI(MPI_Allreduce(&ncpl, &ncmax, 1, MPIU_INT, MPI_MAX, comm));
    PetscCallMPI(MPI_Allreduce(&ncpl, &ncsum, 1, MPIU_INT, MPI_SUM, comm));
    PetscCall(PhaseEnd(comm, "constraint modes and projection", &t0));
    PetscCall(MatGetSize(K, &N, NULL));
    PetscCall(PetscPrintf(comm,
                          "AMLS_RESULT dofs=%" PetscInt_FMT " ranks=%d interface=%" PetscInt_FMT " coupling_cols_max=%" PetscInt_FMT
                          " coupling_cols_sum=%" PetscInt_FMT " local_modes_sum=%" PetscInt_FMT " local_modes_min=%" PetscInt_FMT
                          " local_modes_max=%" PetscInt_FMT " reduced=%" PetscInt_FMT "\n",
                          N, size, NG, ncmax, ncsum, sumk, mink, maxk, Nred));
  }
  PetscCall(MatDestroy(&F));

  /* the reduced problem at each cutoff */
  for (PetscInt c = 0; c < nc; c++) {
    PetscReal      lambda_c = all ? PETSC_MAX_REAL : PetscSqr(2 * PETSC_PI * cutoffs[c] * fmax);
    PetscInt       kc       = 0, kcsum, nrow;
    PetscInt      *rows;
    IS             is;
    Mat            Kc, Mc;
    PetscReal     *lam, e1 = 0, enev = 0, emax = 0;
    PetscLogDouble tc;

    while (kc < k && lambda[kc] <= lambda_c) kc++;
    PetscCallMPI(MPI_Allreduce(&kc, &kcsum, 1, MPIU_INT, MPI_SUM, comm));
    nrow = nG + kc;
    PetscCall(PetscMalloc1(nrow, &rows));
    for (PetscInt i = 0; i < nrow; i++) rows[i] = red0 + i;
    PetscCall(ISCreateGeneral(comm, nrow, rows, PETSC_OWN_POINTER, &is));
    PetscCall(PetscTime(&tc));
    PetscCall(MatCreateSubMatrix(Kr, is, is, MAT_INITIAL_MATRIX, &Kc));
    PetscCall(MatCreateSubMatrix(Mr, is, is, MAT_INITIAL_MATRIX, &Mc));
    PetscCall(ISDestroy(&is));
    PetscCall(PetscMalloc1(nev, &lam));
    PetscCall(ReducedSolve(Kc, Mc, nev, lam));
    PetscCallMPI(MPI_Barrier(comm));
    {
      PetscLogDouble t1;
      PetscCall(PetscTime(&t1));
      PetscCall(PeakMiB(comm, &mib));
      PetscCall(PetscPrintf(comm,
                            "cutoff %g x f_max (%g Hz): %" PetscInt_FMT " local modes kept, reduced problem %" PetscInt_FMT
                            ", solved in %.2f s (peak %.1f MiB)\n",
                            (double)(all ? 0 : cutoffs[c]), (double)(all ? 0 : cutoffs[c] * fmax), kcsum, NG + kcsum, (double)(t1 - tc), mib));
      PetscCall(PetscPrintf(comm, "AMLS_RESULT cutoff=%g local_modes=%" PetscInt_FMT " reduced=%" PetscInt_FMT " reduced_solve=%.3f peak_mib=%.1f\n",
                            (double)(all ? 0 : cutoffs[c]), kcsum, NG + kcsum, (double)(t1 - tc), mib));
    }
    for (PetscInt i = 0; i < nev; i++) {
      PetscReal f = PetscSqrtReal(PetscMax(lam[i], 0)) / (2 * PETSC_PI);
      PetscCall(PetscPrintf(comm, "AMLS_FREQ cutoff=%g i=%" PetscInt_FMT " f=%.15e\n", (double)(all ? 0 : cutoffs[c]), i + 1, (double)f));
      if (i < nref) { /* the reference's i-th frequency */
        PetscReal e = PetscAbsReal(f - ref[i]) / ref[i];
        if (i == 0) e1 = e;
        if (i == nev - 1) enev = e;
        emax = PetscMax(emax, e);
      }
      lam[i] = f;
    }
    if (nref >= nev)
      PetscCall(PetscPrintf(comm, "AMLS_RESULT cutoff=%g err_first=%.3e err_last=%.3e err_max=%.3e\n", (double)(all ? 0 : cutoffs[c]), (double)e1,
                            (double)enev, (double)emax));
    if (check && c == nc - 1) {
      VIModal          modal;
      PetscInt         nf;
      const PetscReal *fd;
      PetscCall(VIModalCreate(comm, &modal));
      PetscCall(VIModalSetModel(modal, model));
      PetscCall(VIModalSetNumModes(modal, nev + 4)); /* as the reduced solve: no double eigenvalue skipped */
      PetscCall(VIModalSetFromOptions(modal));
      PetscCall(VIModalSolve(modal));
      PetscCall(VIModalGetFrequencies(modal, &nf, &fd));
      emax = 0;
      for (PetscInt i = 0; i < PetscMin(nf, nev); i++) emax = PetscMax(emax, PetscAbsReal(lam[i] - fd[i]) / fd[i]);
      PetscCall(PetscPrintf(comm,
                            "check: the %" PetscInt_FMT " lowest frequencies against VIModalSolve: largest relative difference %.3e (tolerance %g)\n",
                            PetscMin(nf, nev), (double)emax, (double)check_tol));
      PetscCall(VIModalDestroy(&modal));
      PetscCheck(emax <= check_tol, comm, PETSC_ERR_NOT_CONVERGED, "-amls_check: largest relative difference %g above %g", (double)emax,
                 (double)check_tol);
    }
    PetscCall(PetscFree(lam));
    PetscCall(MatDestroy(&Kc));
    PetscCall(MatDestroy(&Mc));
  }
  {
    PetscLogDouble t1;
    PetscCall(PetscTime(&t1));
    PetscCall(PeakMiB(comm, &mib));
    PetscCall(PetscPrintf(comm, "AMLS_RESULT total=%.3f peak_mib=%.1f\n", (double)(t1 - tstart), mib));
  }
  PetscCall(PetscFree(phi));
  PetscCall(PetscFree(lambda));
  PetscCall(PetscFree2(redloc, redoff));
  PetscCall(PetscFree2(Ccols, redC));
  PetscCall(PetscFree3(isG, Irows, Grows));
  PetscCall(MatDestroy(&Kii));
  PetscCall(MatDestroy(&Mii));
  PetscCall(MatDestroy(&Kic));
  PetscCall(MatDestroy(&Mic));
  PetscCall(MatDestroy(&Kr));
  PetscCall(MatDestroy(&Mr));
  PetscCall(VIModelDestroy(&model));
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(SlepcFinalize());
  return 0;
}
