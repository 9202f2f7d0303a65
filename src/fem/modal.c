/* VIModal: lowest natural frequencies and mode shapes of the parent model (SLEPc, shift-and-invert with MUMPS). */
#include "femimpl.h"
#include <vicms/sys.h>
#include <vicms/io.h>
#include <stdint.h>

/* splitmix64 of (node id, component): a stateless, platform-independent pseudo-random number in [-1, 1). */
static PetscReal VISignWeight(PetscInt id, PetscInt comp)
{
  uint64_t z = (uint64_t)id * 4 + (uint64_t)comp + 0x9E3779B97F4A7C15ULL;

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (PetscReal)(z >> 11) / (PetscReal)(1ULL << 52) - 1.0;
}

PetscErrorCode VIModelGetSignWeights(VIModel model, Vec w)
{
  VIMesh          mesh;
  const PetscInt *ids;
  PetscInt        dim, rstart, rend;
  PetscScalar    *a;

  PetscFunctionBeginUser;
  PetscCall(VIModelGetMesh(model, &mesh));
  PetscCall(VIMeshGetDimension(mesh, &dim));
  PetscCall(VIMeshGetNodeIds(mesh, &ids));
  PetscCall(VecGetOwnershipRange(w, &rstart, &rend));
  PetscCall(VecGetArray(w, &a));
  if (model->row_node) {
    /* a parent given as matrices: every row by its label, the other rows of a label by their rank among them */
    for (PetscInt r = 0; r < rend - rstart; r++) a[r] = VISignWeight(model->row_node[r] + 1000003 * model->row_copy[r], model->row_dir[r]);
    PetscCall(VecRestoreArray(w, &a));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt l = 0; l < model->num_lnodes; l++)
    for (PetscInt d = 0; d < dim; d++) {
      PetscInt dof = model->lnode_dof[l * dim + d], h;
      if (dof < rstart || dof >= rend) continue;
      /* a node of this rank's rows: one of this rank's elements has it, so the mesh holds it (in parts too) */
      PetscCall(VIMeshFindHeldNode(mesh, model->lnode[l], &h));
      a[dof - rstart] = VISignWeight(ids[h], d);
    }
  PetscCall(VecRestoreArray(w, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModeNormalizeSign(Vec x, Vec w)
{
  PetscScalar d;

  PetscFunctionBeginUser;
  PetscCall(VecDot(x, w, &d));
  if (PetscRealPart(d) < 0) PetscCall(VecScale(x, -1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModalCreate(MPI_Comm comm, VIModal *modal)
{
  VIModal m;

  PetscFunctionBeginUser;
  PetscCall(VIInitializePackage());
  PetscCall(PetscNew(&m));
  m->comm          = comm;
  m->num_requested = 10;
  m->tol           = 1e-10;
  *modal           = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModalDestroy(VIModal *modal)
{
  VIModal m;

  PetscFunctionBeginUser;
  if (!modal || !*modal) PetscFunctionReturn(PETSC_SUCCESS);
  m = *modal;
  PetscCall(EPSDestroy(&m->eps));
  PetscCall(PetscFree3(m->eigenvalues, m->freq_hz, m->residuals));
  if (m->modes) PetscCall(VecDestroyVecs(m->num_modes, &m->modes));
  PetscCall(PetscFree(m));
  *modal = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModalSetModel(VIModal modal, VIModel model)
{
  PetscFunctionBeginUser;
  modal->model = model;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModalSetNumModes(VIModal modal, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCheck(n > 0, modal->comm, PETSC_ERR_USER_INPUT, "-modes_num: got %" PetscInt_FMT ", expected a positive number of modes", n);
  modal->num_requested = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModalSetFromOptions(VIModal modal)
{
  PetscInt n = modal->num_requested;

  PetscFunctionBeginUser;
  PetscOptionsBegin(modal->comm, NULL, "Modal analysis", "VIModal");
  PetscCall(PetscOptionsInt("-modes_num", "Number of lowest modes", "VIModalSetNumModes", n, &n, NULL));
  PetscCall(PetscOptionsReal("-modes_shift",
                             "Shift sigma of shift-and-invert, in (rad/s)^2 (default: a small negative value, so that rigid-body modes are found)",
                             "VIModalSetFromOptions", modal->shift, &modal->shift, &modal->shift_set));
  PetscCall(PetscOptionsReal("-modes_tol", "Relative tolerance of the eigensolver", "VIModalSetFromOptions", modal->tol, &modal->tol, NULL));
  PetscCall(PetscOptionsEnum("-modes_solver", "Linear solver: direct (MUMPS Cholesky) or iterative (conjugate gradients + GAMG, LOBPCG)",
                             "VIModalSetFromOptions", VISolverTypes, (PetscEnum)modal->solver_type, (PetscEnum *)&modal->solver_type, NULL));
  PetscOptionsEnd();
  PetscCall(VIModalSetNumModes(modal, n));
  PetscCheck(modal->tol > 0 && modal->tol < 1, modal->comm, PETSC_ERR_USER_INPUT, "-modes_tol: got %g, expected a value in (0, 1)",
             (double)modal->tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Default shift: a small negative multiple of the mean diagonal ratio K_ii/M_ii (a typical high eigenvalue). K - sigma M is
  then positive definite even for a free-floating body, and the modes nearest sigma are the lowest ones, rigid-body modes
  first (seed 000 §3.1 names this negative-shift alternative to the artificial-stiffness trick).
*/
static PetscErrorCode VIModalDefaultShift(VIModal modal, Mat K, Mat M, PetscReal *shift)
{
  Vec       dk, dm;
  PetscReal sk, sm;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(K, &dk, NULL));
  PetscCall(VecDuplicate(dk, &dm));
  PetscCall(MatGetDiagonal(K, dk));
  PetscCall(MatGetDiagonal(M, dm));
  PetscCall(VecNorm(dk, NORM_1, &sk));
  PetscCall(VecNorm(dm, NORM_1, &sm));
  PetscCall(VecDestroy(&dk));
  PetscCall(VecDestroy(&dm));
  PetscCheck(sm > 0, modal->comm, PETSC_ERR_USER_INPUT, "The mass matrix is zero: check the density");
  *shift = -1e-6 * sk / sm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  K - sigma M is assembled here and factored once by VIFactorCholesky (MUMPS, prefix -modes_st_, SYM = 1 when sigma < 0, where it
  is positive definite even for a free-floating model, with the retries on an underestimated workspace); SLEPc gets that KSP for
  the shift-and-invert of the pencil (K - sigma M, M) at 0, as the reduction does, and never refactors. Its eigenvalues are
  lambda - sigma, the vectors the same.
*/
PetscErrorCode VIModalSolve(VIModal modal)
{
  Mat       K, M, A;
  VISolver  solver   = NULL;
  PetscBool floating = PETSC_FALSE;
  PetscInt  nconv, nglobal, nnull = 0;
  PetscReal shift = 0;
  Vec       w;
  char      what[128];

  PetscFunctionBeginUser;
  PetscCheck(modal->model, modal->comm, PETSC_ERR_ORDER, "Call VIModalSetModel() first");
  PetscCall(VIModelSetUp(modal->model));
  PetscCall(VIModelGetMatrices(modal->model, &K, &M));
  PetscCall(VIModelGetNumDofs(modal->model, NULL, &nglobal));
  PetscCheck(modal->num_requested <= nglobal, modal->comm, PETSC_ERR_USER_INPUT,
             "-modes_num: %" PetscInt_FMT " modes asked, but the model has only %" PetscInt_FMT " free DOFs", modal->num_requested, nglobal);
  if (modal->shift_set)
    shift = modal->shift;
  else
    PetscCall(VIModalDefaultShift(modal, K, M, &shift));
  modal->shift = shift;

  /* the matrix SLEPc's shift-and-invert would build (same pattern rule: UNKNOWN_NONZERO_PATTERN) */
  PetscCall(MatDuplicate(K, MAT_COPY_VALUES, &A));
  PetscCall(MatAXPY(A, -shift, M, UNKNOWN_NONZERO_PATTERN));
  PetscCall(PetscSNPrintf(what, sizeof(what), "K - sigma M with sigma = %g", (double)shift));
  PetscCall(VISolverCreate(modal->comm, modal->solver_type, "modes_st_", &solver));
  if (modal->solver_type == VI_SOLVER_ITERATIVE) {
    PetscInt nrb;
    Vec     *rb;
    /* the inner solves of shift-and-invert (krylovschur) a hundredth of the eigensolver's tolerance */
    PetscCall(VISolverSetTolerance(solver, PetscMax(1e-2 * modal->tol, 1e-14)));
    PetscCall(VIModelGetRigidBodyModes(modal->model, &nrb, &rb));
    PetscCall(VISolverSetNearNullSpace(solver, nrb, (const Vec *)rb));
    {
      Mat P; /* quadratic elements: the corner nodes' space, coarse level of a p-multigrid (NULL otherwise) */
      PetscCall(VIModelCreateCornerInterpolation(modal->model, NULL, &P));
      PetscCall(VISolverSetInterpolation(solver, P));
      PetscCall(MatDestroy(&P));
    }
    /* a free-floating model (K r = 0 for a rigid-body mode r): LOBPCG's Rayleigh-Ritz breaks down on the nearly null block (LAPACK
       sygvd fails on a free box), so it is refused there; Krylov-Schur with shift-and-invert by CG + GAMG (the default) finds its modes */
    {
      PetscReal knorm, rnorm, krnorm;
      Vec       Kr;
      PetscCall(MatNorm(K, NORM_INFINITY, &knorm));
      PetscCall(VecDuplicate(rb[0], &Kr));
      for (PetscInt k = 0; k < nrb; k++) {
        PetscCall(MatMult(K, rb[k], Kr));
        PetscCall(VecNorm(Kr, NORM_INFINITY, &krnorm));
        PetscCall(VecNorm(rb[k], NORM_INFINITY, &rnorm));
        if (krnorm <= 1e-8 * knorm * rnorm) floating = PETSC_TRUE;
      }
      PetscCall(VecDestroy(&Kr));
    }
    if (floating) {
      char      type[64] = "";
      PetscBool lobpcg   = PETSC_FALSE;
      PetscCall(PetscOptionsGetString(NULL, NULL, "-modes_eps_type", type, sizeof(type), NULL));
      PetscCall(PetscStrcmp(type, EPSLOBPCG, &lobpcg));
      if (lobpcg) {
        PetscCall(VecDestroyVecs(nrb, &rb));
        PetscCall(MatDestroy(&A));
        PetscCall(VISolverDestroy(&solver));
      }
      PetscCheck(!lobpcg, modal->comm, PETSC_ERR_USER_INPUT,
                 "-modes_eps_type lobpcg: the model is free-floating (K times a rigid-body mode is zero) and LOBPCG breaks down on its rigid-body "
                 "modes; leave the default (krylovschur) or clamp the model");
    }
    PetscCall(VecDestroyVecs(nrb, &rb));
  }
  {
    PetscBool      ok   = PETSC_FALSE;
    PetscErrorCode ierr = VISolverSetUp(solver, A, shift < 0 ? PETSC_TRUE : PETSC_FALSE, what, &ok, &nnull);
    if (ierr || !ok) {
      /* nothing of a failed solve survives */
      PetscCall(MatDestroy(&A));
      PetscCall(VISolverDestroy(&solver));
    }
    PetscCall(ierr);
    PetscCheck(ok, modal->comm, PETSC_ERR_USER_INPUT,
               "%s is singular (%s): the shift is (numerically) an eigenvalue, e.g. 0 for a free-floating model; give another -modes_shift or "
               "leave the default (a small negative shift)",
               what, nnull > 0 ? "null pivots in the factorization" : "the factorization failed");
  }

  PetscCall(EPSDestroy(&modal->eps));
  PetscCall(EPSCreate(modal->comm, &modal->eps));
  PetscCall(EPSSetOptionsPrefix(modal->eps, "modes_"));
  PetscCall(EPSSetOperators(modal->eps, A, M));
  PetscCall(EPSSetProblemType(modal->eps, EPS_GHEP));
  PetscCall(EPSSetDimensions(modal->eps, modal->num_requested, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(EPSSetTolerances(modal->eps, modal->tol, 1000));
  /* shift-and-invert at 0 of (K - sigma M, M) with exactly the factorization already made (direct), or LOBPCG preconditioned by
     GAMG / shift-and-invert by CG + GAMG (iterative) */
  {
    PetscErrorCode ierr = VISolverSetUpEPS(solver, modal->eps, 0.0, EPSKRYLOVSCHUR);
    if (ierr) {
      PetscCall(MatDestroy(&A));
      PetscCall(VISolverDestroy(&solver));
      PetscCall(EPSDestroy(&modal->eps));
    }
    PetscCall(ierr);
  }
  PetscCall(MatDestroy(&A)); /* the EPS and the KSP hold it */
  PetscCall(EPSSetFromOptions(modal->eps));

  PetscCall(PetscLogEventBegin(VI_EigenSolve, 0, 0, 0, 0));
  PetscCall(EPSSolve(modal->eps));
  PetscCall(PetscLogEventEnd(VI_EigenSolve, 0, 0, 0, 0));
  PetscCall(EPSGetConverged(modal->eps, &nconv));
  if (nconv < modal->num_requested) PetscCall(VISolverDestroy(&solver));
  PetscCheck(nconv >= modal->num_requested, modal->comm, PETSC_ERR_NOT_CONVERGED,
             "The eigensolver found %" PetscInt_FMT " of the %" PetscInt_FMT " modes asked; raise -modes_eps_max_it or -modes_eps_ncv", nconv,
             modal->num_requested);

  if (modal->modes) PetscCall(VecDestroyVecs(modal->num_modes, &modal->modes));
  PetscCall(PetscFree3(modal->eigenvalues, modal->freq_hz, modal->residuals));
  modal->num_modes = modal->num_requested;
  PetscCall(PetscMalloc3(modal->num_modes, &modal->eigenvalues, modal->num_modes, &modal->freq_hz, modal->num_modes, &modal->residuals));
  {
    Vec x;
    PetscCall(MatCreateVecs(K, &x, NULL));
    PetscCall(VecDuplicateVecs(x, modal->num_modes, &modal->modes));
    PetscCall(VecDestroy(&x));
  }
  PetscCall(VecDuplicate(modal->modes[0], &w));
  PetscCall(VIModelGetSignWeights(modal->model, w));
  for (PetscInt k = 0; k < modal->num_modes; k++) {
    PetscScalar lambda, mnorm;
    Vec         Mx;
    PetscReal   rnorm;
    PetscCall(EPSGetEigenpair(modal->eps, k, &lambda, NULL, modal->modes[k], NULL));
    /* the residual of (K - sigma M) x - mu M x is the residual of K x - lambda M x, relative to lambda = mu + sigma */
    PetscCall(EPSComputeError(modal->eps, k, EPS_ERROR_ABSOLUTE, &rnorm));
    lambda += shift;
    modal->residuals[k] = PetscAbsScalar(lambda) > 0 ? rnorm / PetscAbsScalar(lambda) : rnorm;
    /* mass-normalized, like NORMALIZATION=MASS in CalculiX */
    PetscCall(VecDuplicate(modal->modes[k], &Mx));
    PetscCall(MatMult(M, modal->modes[k], Mx));
    PetscCall(VecDot(Mx, modal->modes[k], &mnorm));
    PetscCall(VecScale(modal->modes[k], 1.0 / PetscSqrtReal(PetscRealPart(mnorm))));
    PetscCall(VIModeNormalizeSign(modal->modes[k], w));
    PetscCall(VecDestroy(&Mx));
    modal->eigenvalues[k] = PetscRealPart(lambda);
    modal->freq_hz[k]     = PetscSqrtReal(PetscMax(modal->eigenvalues[k], 0)) / (2 * PETSC_PI);
  }
  PetscCall(VecDestroy(&w));
  PetscCall(VISolverWarnSplitPair(modal->eps, modal->num_modes, shift, "vicms modes", "-modes_num"));
  PetscCall(VISolverView(solver, modal->eps, "the modes")); /* after the eigenvectors, whose purification solves once more each */
  PetscCall(VISolverDestroy(&solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModalGetFrequencies(VIModal modal, PetscInt *n, const PetscReal **freq_hz)
{
  PetscFunctionBeginUser;
  if (n) *n = modal->num_modes;
  if (freq_hz) *freq_hz = modal->freq_hz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModalGetMode(VIModal modal, PetscInt k, Vec *phi)
{
  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k < modal->num_modes, modal->comm, PETSC_ERR_ARG_OUTOFRANGE, "Mode %" PetscInt_FMT " not computed (0..%" PetscInt_FMT ")", k,
             modal->num_modes - 1);
  *phi = modal->modes[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModalView(VIModal modal, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(modal->comm, &viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%6s  %16s  %16s  %10s\n", "mode", "frequency [Hz]", "omega [rad/s]", "residual"));
  for (PetscInt k = 0; k < modal->num_modes; k++)
    PetscCall(PetscViewerASCIIPrintf(viewer, "%6" PetscInt_FMT "  %16.8g  %16.8g  %10.2e\n", k + 1, (double)modal->freq_hz[k],
                                     (double)(2 * PETSC_PI * modal->freq_hz[k]), (double)modal->residuals[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frequencies, eigenvalues and mode shapes to HDF5 (written by rank 0), with an XDMF file beside it for ParaView. */
PetscErrorCode VIModalWrite(VIModal modal, const char path[])
{
  PetscReal **shapes;
  VIMesh      mesh;
  Vec         nodal   = NULL;
  VecScatter  scatter = NULL;
  PetscInt    row0 = 0, nrows = 0;

  PetscFunctionBeginUser;
  PetscCall(VIModelGetMesh(modal->model, &mesh));
  PetscCall(PetscCalloc1(modal->num_modes + 1, &shapes));
  /* each rank its block of node rows of every mode (no gather on rank 0), written in parallel */
  if (modal->num_modes) PetscCall(VIModelCreateNodalScatter(modal->model, modal->modes[0], &row0, &nrows, &nodal, &scatter));
  for (PetscInt k = 0; k < modal->num_modes; k++) {
    const PetscScalar *a;
    PetscCall(VecScatterBegin(scatter, modal->modes[k], nodal, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(scatter, modal->modes[k], nodal, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(PetscMalloc1(3 * nrows + 1, &shapes[k]));
    PetscCall(VecGetArrayRead(nodal, &a));
    for (PetscInt i = 0; i < 3 * nrows; i++) shapes[k][i] = PetscRealPart(a[i]);
    PetscCall(VecRestoreArrayRead(nodal, &a));
  }
  if (modal->num_modes) {
    PetscCall(VecScatterDestroy(&scatter));
    PetscCall(VecDestroy(&nodal));
  }
  PetscCall(
      VIModesFileWrite(modal->comm, path, mesh, modal->num_modes, modal->freq_hz, modal->eigenvalues, row0, nrows, (const PetscReal *const *)shapes));
  for (PetscInt k = 0; k < modal->num_modes; k++) PetscCall(PetscFree(shapes[k]));
  PetscCall(PetscFree(shapes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fem module's options: the material and clamps of a model, its modal analysis (SLEPc under -modes_) (src/sys/options.c's registry: names, the
 * type each is read with, an enum's choices) */
static const VIOptionEntry VIFEMOptions[] = {
    {"-model_young", VI_OPTION_REAL, NULL},
    {"-model_poisson", VI_OPTION_REAL, NULL},
    {"-model_density", VI_OPTION_REAL, NULL},
    {"-model_clamp", VI_OPTION_STRINGS, NULL},
    {"-model_lumped_mass", VI_OPTION_BOOL, NULL},
    {"-model_integration", VI_OPTION_ENUM, VIIntegrations},
    {"-parent_matrices", VI_OPTION_STRING, NULL},
    {"-parent_format", VI_OPTION_ENUM, VIParentFormats},
    {"-parent_dofs", VI_OPTION_STRING, NULL},
    {"-modes_num", VI_OPTION_INT, NULL},
    {"-modes_shift", VI_OPTION_REAL, NULL},
    {"-modes_tol", VI_OPTION_REAL, NULL},
    {"-modes_solver", VI_OPTION_ENUM, VISolverTypes},
    {"-memory_limit", VI_OPTION_REAL, NULL},
    {"-modes_eps_*", VI_OPTION_PASS, NULL},
    {"-modes_st_pmg", VI_OPTION_BOOL, NULL}, /* VISolverSetUp (src/fem/solver.c) */
    {"-modes_st_*", VI_OPTION_PASS, NULL},
    {"-modes_bv_*", VI_OPTION_PASS, NULL},
    {"-modes_ds_*", VI_OPTION_PASS, NULL},
    {"-modes_rg_*", VI_OPTION_PASS, NULL},
};

PetscErrorCode VIFEMRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRegisterTable("fem", VIFEMOptions, sizeof(VIFEMOptions) / sizeof(VIFEMOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
