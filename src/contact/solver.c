/* The contact solver: projected Jacobi and Gauss-Seidel relaxation of x = proj_C[x - eps (G x + c)] (seed 000 App. C);
   the semi-smooth Newton method is in newton.c. */
#include "contactimpl.h"

const char *const VIContactSolverTypes[] = {"jacobi", "gauss_seidel", "newton", "VIContactSolverType", "VI_CONTACT_SOLVER_", NULL};
const char *const VIContactKinds[]       = {"unilateral", "bilateral", "VIContactKind", "VI_CONTACT_", NULL};

/*
  VIContactSolverCreate - a contact solver with the defaults of contact.h (newton, tol 1e-10, max_it 1000, omega 1, s 1).
  Not collective: comm is the communicator errors are reported on.
*/
PetscErrorCode VIContactSolverCreate(MPI_Comm comm, VIContactSolver *solver)
{
  VIContactSolver s;

  PetscFunctionBeginUser;
  PetscCheck(solver, comm, PETSC_ERR_ARG_NULL, "VIContactSolverCreate: the output handle is NULL");
  PetscCall(VIInitializePackage());
  PetscCall(PetscNew(&s));
  s->comm     = comm;
  s->type     = VI_CONTACT_SOLVER_NEWTON;
  s->tol      = 1e-10;
  s->max_it   = 1000;
  s->omega    = 1.0;
  s->al_scale = 1.0;
  *solver     = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIContactSolverDestroy(VIContactSolver *solver)
{
  PetscFunctionBeginUser;
  if (!solver || !*solver) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree3((*solver)->eps, (*solver)->y, (*solver)->z));
  PetscCall(VIContactNewtonDestroy(*solver));
  PetscCall(PetscFree(*solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIContactSolverSetType(VIContactSolver solver, VIContactSolverType type)
{
  PetscFunctionBeginUser;
  PetscCheck(solver, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "VIContactSolverSetType: the solver is NULL");
  PetscCheck(type == VI_CONTACT_SOLVER_JACOBI || type == VI_CONTACT_SOLVER_GAUSS_SEIDEL || type == VI_CONTACT_SOLVER_NEWTON, solver->comm,
             PETSC_ERR_ARG_OUTOFRANGE, "VIContactSolverSetType: unknown type %d, expected VI_CONTACT_SOLVER_JACOBI, _GAUSS_SEIDEL or _NEWTON",
             (int)type);
  solver->type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIContactSolverGetType(VIContactSolver solver, VIContactSolverType *type)
{
  PetscFunctionBeginUser;
  *type = solver->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* tol > 0 and max_it > 0; PETSC_DEFAULT keeps the current value. */
PetscErrorCode VIContactSolverSetTolerances(VIContactSolver solver, PetscReal tol, PetscInt max_it)
{
  PetscFunctionBeginUser;
  PetscCheck(solver, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "VIContactSolverSetTolerances: the solver is NULL");
  if (tol != (PetscReal)PETSC_DEFAULT) {
    PetscCheck(tol > 0 && !PetscIsInfOrNanReal(tol), solver->comm, PETSC_ERR_ARG_OUTOFRANGE,
               "VIContactSolverSetTolerances: tol = %g, expected a finite value > 0", (double)tol);
    solver->tol = tol;
  }
  if (max_it != PETSC_DEFAULT) {
    PetscCheck(max_it > 0, solver->comm, PETSC_ERR_ARG_OUTOFRANGE, "VIContactSolverSetTolerances: max_it = %" PetscInt_FMT ", expected > 0", max_it);
    solver->max_it = max_it;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIContactSolverSetALScale(VIContactSolver solver, PetscReal s)
{
  PetscFunctionBeginUser;
  PetscCheck(solver, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "VIContactSolverSetALScale: the solver is NULL");
  PetscCheck(s > 0 && !PetscIsInfOrNanReal(s), solver->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "VIContactSolverSetALScale: s = %g, expected a finite value > 0", (double)s);
  solver->al_scale = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* omega only acts on projected Jacobi; Gauss-Seidel sweeps with omega = 1. */
PetscErrorCode VIContactSolverSetRelaxation(VIContactSolver solver, PetscReal omega)
{
  PetscFunctionBeginUser;
  PetscCheck(solver, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "VIContactSolverSetRelaxation: the solver is NULL");
  PetscCheck(omega > 0 && omega < 2, solver->comm, PETSC_ERR_ARG_OUTOFRANGE, "VIContactSolverSetRelaxation: omega = %g, expected a value in (0, 2)",
             (double)omega);
  solver->omega = omega;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIContactSolverSetFromOptions - reads -contact_solver, -contact_tol, -contact_max_it, -contact_relaxation and
  -contact_al_scale (see contact.h). Not collective beyond the options database.

  The values are checked after the options block, so that a bad value leaves the solver as it was and leaks nothing.
*/
PetscErrorCode VIContactSolverSetFromOptions(VIContactSolver solver)
{
  VIContactSolverType type;
  PetscReal           tol, omega, al_scale;
  PetscInt            max_it;

  PetscFunctionBeginUser;
  PetscCheck(solver, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "VIContactSolverSetFromOptions: the solver is NULL");
  PetscOptionsBegin(solver->comm, NULL, "Contact solver options", "VIContactSolver");
  type = solver->type;
  PetscCall(PetscOptionsEnum("-contact_solver", "Solver of the contact inclusion: semi-smooth Newton, projected Jacobi or Gauss-Seidel",
                             "VIContactSolverSetType", VIContactSolverTypes, (PetscEnum)type, (PetscEnum *)&type, NULL));
  tol = solver->tol;
  PetscCall(PetscOptionsReal("-contact_tol", "Tolerance on ||x - proj_C(x - eps (G x + c))||_inf / max(1, ||x||_inf)", "VIContactSolverSetTolerances",
                             tol, &tol, NULL));
  max_it = solver->max_it;
  PetscCall(PetscOptionsInt("-contact_max_it", "Maximum number of iterations (sweeps, Newton trial points)", "VIContactSolverSetTolerances", max_it,
                            &max_it, NULL));
  omega = solver->omega;
  PetscCall(PetscOptionsReal("-contact_relaxation", "Over-relaxation omega of projected Jacobi, in (0, 2)", "VIContactSolverSetRelaxation", omega,
                             &omega, NULL));
  al_scale = solver->al_scale;
  PetscCall(PetscOptionsReal("-contact_al_scale", "Scale s of the augmented-Lagrangian parameter eps_i = s / G_ii (Studer 2009)",
                             "VIContactSolverSetALScale", al_scale, &al_scale, NULL));
  PetscOptionsEnd();
  PetscCheck(tol > 0 && !PetscIsInfOrNanReal(tol), solver->comm, PETSC_ERR_USER_INPUT, "-contact_tol %g: expected a finite tolerance > 0",
             (double)tol);
  PetscCheck(max_it > 0, solver->comm, PETSC_ERR_USER_INPUT, "-contact_max_it %" PetscInt_FMT ": expected a number of iterations > 0", max_it);
  PetscCheck(omega > 0 && omega < 2, solver->comm, PETSC_ERR_USER_INPUT, "-contact_relaxation %g: expected an over-relaxation factor in (0, 2)",
             (double)omega);
  PetscCheck(al_scale > 0 && !PetscIsInfOrNanReal(al_scale), solver->comm, PETSC_ERR_USER_INPUT, "-contact_al_scale %g: expected a finite scale > 0",
             (double)al_scale);
  solver->type     = type;
  solver->tol      = tol;
  solver->max_it   = max_it;
  solver->omega    = omega;
  solver->al_scale = al_scale;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The contact set and the sizes, checked where they enter the library. */
static PetscErrorCode VIContactCheckSet(VIContactSolver solver, const VIContactSet *set, PetscInt m)
{
  PetscInt sum = 0;

  PetscFunctionBeginUser;
  PetscCheck(set, solver->comm, PETSC_ERR_ARG_NULL, "VIContactSolverSolve: the contact set is NULL");
  PetscCheck(set->num_contacts >= 0, solver->comm, PETSC_ERR_ARG_WRONG, "VIContactSolverSolve: num_contacts = %" PetscInt_FMT ", expected >= 0",
             set->num_contacts);
  PetscCheck(set->dims || set->num_contacts == 0, solver->comm, PETSC_ERR_ARG_NULL,
             "VIContactSolverSolve: dims is NULL with %" PetscInt_FMT " contacts", set->num_contacts);
  for (PetscInt j = 0; j < set->num_contacts; j++) {
    const PetscInt d = set->dims[j];

    PetscCheck(d >= 1 && d <= 3, solver->comm, PETSC_ERR_ARG_WRONG,
               "VIContactSolverSolve: dims[%" PetscInt_FMT "] = %" PetscInt_FMT ", expected 1 (normal), 2 or 3 (normal and tangents)", j, d);
    if (set->kinds) {
      PetscCheck(set->kinds[j] == VI_CONTACT_UNILATERAL || set->kinds[j] == VI_CONTACT_BILATERAL, solver->comm, PETSC_ERR_ARG_WRONG,
                 "VIContactSolverSolve: kinds[%" PetscInt_FMT "] = %d, expected VI_CONTACT_UNILATERAL or VI_CONTACT_BILATERAL", j,
                 (int)set->kinds[j]);
      PetscCheck(set->kinds[j] != VI_CONTACT_BILATERAL || d == 1, solver->comm, PETSC_ERR_ARG_WRONG,
                 "VIContactSolverSolve: contact %" PetscInt_FMT " is bilateral with dims = %" PetscInt_FMT
                 ", expected 1 (a bilateral row has no tangents, hence no friction)",
                 j, d);
      PetscCheck(set->kinds[j] != VI_CONTACT_BILATERAL || !set->preload || set->preload[j] == 0, solver->comm, PETSC_ERR_ARG_WRONG,
                 "VIContactSolverSolve: contact %" PetscInt_FMT " is bilateral with preload %g, expected 0 (its multiplier has free sign)", j,
                 (double)set->preload[j]);
    }
    if (d > 1) {
      PetscCheck(set->mu, solver->comm, PETSC_ERR_ARG_NULL,
                 "VIContactSolverSolve: mu is NULL but contact %" PetscInt_FMT " has dims = %" PetscInt_FMT, j, d);
      PetscCheck(set->mu[j] >= 0 && !PetscIsInfOrNanReal(set->mu[j]), solver->comm, PETSC_ERR_ARG_WRONG,
                 "VIContactSolverSolve: mu[%" PetscInt_FMT "] = %g, expected a finite friction coefficient >= 0", j, (double)set->mu[j]);
      PetscCheck(!set->preload || (set->preload[j] >= 0 && !PetscIsInfOrNanReal(set->preload[j])), solver->comm, PETSC_ERR_ARG_WRONG,
                 "VIContactSolverSolve: preload[%" PetscInt_FMT "] = %g, expected a finite normal preload >= 0", j, (double)set->preload[j]);
    }
    sum += d;
  }
  PetscCheck(m == sum, solver->comm, PETSC_ERR_ARG_WRONG,
             "VIContactSolverSolve: m = %" PetscInt_FMT " unknowns, but the %" PetscInt_FMT " contacts own sum(dims) = %" PetscInt_FMT, m,
             set->num_contacts, sum);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The augmented-Lagrangian parameter per row after Studer (2009): eps_i = s / G_ii when G is diagonally dominant, else
  s / sum_j |G_ij| (Gershgorin: eps G then has its spectrum in (0, 2], resp. (0, 1]).

  The tangential rows of one contact share one value, the smallest of theirs: the disk of Eq. (C.4) is round, and
  x_t = proj_D(x_t - E y_t) with unequal entries in E has fixed points where y_t is not opposite to x_t (no Coulomb
  friction). The normal row keeps its own value: R+ x D(r) is a product for a given r.
*/
static PetscErrorCode VIContactComputeEps(VIContactSolver solver, const VIContactSet *set, PetscInt m, const PetscReal G[])
{
  PetscBool dominant = PETSC_TRUE;
  PetscInt  row      = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < m; i++) {
    PetscReal off = 0;

    PetscCheck(G[i * m + i] > 0, solver->comm, PETSC_ERR_ARG_WRONG,
               "VIContactSolverSolve: G[%" PetscInt_FMT "][%" PetscInt_FMT "] = %g, the Delassus matrix needs a positive diagonal", i, i,
               (double)G[i * m + i]);
    for (PetscInt j = 0; j < m; j++)
      if (j != i) off += PetscAbsReal(G[i * m + j]);
    solver->eps[i] = off; /* kept for the second pass */
    if (G[i * m + i] < off) dominant = PETSC_FALSE;
  }
  for (PetscInt i = 0; i < m; i++) solver->eps[i] = solver->al_scale / (dominant ? G[i * m + i] : G[i * m + i] + solver->eps[i]);
  for (PetscInt j = 0; j < set->num_contacts; j++) {
    const PetscInt d = set->dims[j];

    if (d == 3) solver->eps[row + 1] = solver->eps[row + 2] = PetscMin(solver->eps[row + 1], solver->eps[row + 2]);
    row += d;
  }
  if (PetscDefined(USE_INFO) && m) {
    PetscReal lo = solver->eps[0], hi = solver->eps[0];

    for (PetscInt i = 1; i < m; i++) {
      lo = PetscMin(lo, solver->eps[i]);
      hi = PetscMax(hi, solver->eps[i]);
    }
    PetscCall(PetscInfo(NULL, "Contact solver: %s G, eps in [%g, %g] on %" PetscInt_FMT " rows\n", dominant ? "diagonally dominant" : "general",
                        (double)lo, (double)hi, m));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = G x + c (BLAS: G row-major is G^T column-major) */
void VIContactResidualForce(PetscInt m, const PetscReal G[], const PetscReal c[], const PetscReal x[], PetscReal y[])
{
  PetscBLASInt    bm, one = 1;
  const PetscReal a = 1.0, b = 1.0;

  if (!m) return;
  bm = (PetscBLASInt)m;
  for (PetscInt i = 0; i < m; i++) y[i] = c[i];
  BLASgemv_("T", &bm, &bm, &a, G, &bm, x, &one, &b, y, &one);
}

/*
  z = proj_C(x - eps y), seed 000 Eqs. (C.2)-(C.4), contact by contact: the normal onto R+ (a bilateral row onto R: the
  identity) first, then the tangents onto
  the disk of radius mu (z_n + preload) (Eq. 7), i.e. the radius uses the normal force just projected (z_n >= 0).
  Returns ||x - z||_inf / max(1, ||x||_inf).
*/
PetscReal VIContactProject(const VIContactSet *set, const PetscReal eps[], const PetscReal x[], const PetscReal y[], PetscReal z[])
{
  PetscReal diff = 0, size = 0;
  PetscInt  row = 0;

  for (PetscInt j = 0; j < set->num_contacts; j++) {
    const PetscInt d = set->dims[j];

    z[row] = VIContactSetIsBilateral(set, j) ? x[row] - eps[row] * y[row] : VIProjectHalfLine(x[row] - eps[row] * y[row]);
    if (d > 1) {
      const PetscReal r = set->mu[j] * (z[row] + (set->preload ? set->preload[j] : 0));

      for (PetscInt k = 1; k < d; k++) z[row + k] = x[row + k] - eps[row + k] * y[row + k];
      VIProjectDisk(d - 1, r, z + row + 1);
    }
    for (PetscInt k = 0; k < d; k++) {
      diff = PetscMax(diff, PetscAbsReal(x[row + k] - z[row + k]));
      size = PetscMax(size, PetscAbsReal(x[row + k]));
    }
    row += d;
  }
  /* PetscMax hides a NaN difference: report it */
  for (PetscInt i = 0; i < row; i++)
    if (PetscIsInfOrNanReal(z[i])) return PETSC_INFINITY;
  return diff / PetscMax(1.0, size);
}

/* x_k = value and y += (value - x_k) G(:, k); the column, not the row: G symmetric only up to round-off is fine. */
static inline void VIContactUpdate(PetscInt m, const PetscReal G[], PetscInt k, PetscReal value, PetscReal x[], PetscReal y[])
{
  const PetscReal delta = value - x[k];

  if (delta == 0) return;
  x[k] = value;
  for (PetscInt i = 0; i < m; i++) y[i] += delta * G[i * m + k];
}

/*
  One projected Gauss-Seidel sweep, contact by contact: the normal of contact j with the current values, then its
  tangents onto the disk of radius mu_j (x_n,j + preload_j) with the normal just updated (Eqs. C.2-C.4). y = G x + c on
  entry and is kept so.
*/
static void VIContactSweepGaussSeidel(const VIContactSet *set, const PetscReal eps[], PetscInt m, const PetscReal G[], PetscReal x[], PetscReal y[])
{
  PetscInt row = 0;

  for (PetscInt j = 0; j < set->num_contacts; j++) {
    const PetscInt  d  = set->dims[j];
    const PetscReal xi = x[row] - eps[row] * y[row];

    VIContactUpdate(m, G, row, VIContactSetIsBilateral(set, j) ? xi : VIProjectHalfLine(xi), x, y);
    if (d > 1) {
      const PetscReal r = set->mu[j] * (x[row] + (set->preload ? set->preload[j] : 0));
      PetscReal       t[2];

      for (PetscInt k = 1; k < d; k++) t[k - 1] = x[row + k] - eps[row + k] * y[row + k];
      VIProjectDisk(d - 1, r, t);
      for (PetscInt k = 1; k < d; k++) VIContactUpdate(m, G, row + k, t[k - 1], x, y);
    }
    row += d;
  }
}

PetscErrorCode VIContactSolverSetOperator(VIContactSolver solver, const VIContactSet *set, PetscInt m, const PetscReal G[])
{
  PetscFunctionBeginUser;
  PetscCheck(solver, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "VIContactSolverSetOperator: the solver is NULL");
  PetscCall(VIContactCheckSet(solver, set, m));
  PetscCheck(m == 0 || G, solver->comm, PETSC_ERR_ARG_NULL, "VIContactSolverSetOperator: G is NULL with m = %" PetscInt_FMT, m);
  if (m > solver->m_alloc) {
    PetscCall(PetscFree3(solver->eps, solver->y, solver->z));
    PetscCall(PetscMalloc3(m, &solver->eps, m, &solver->y, m, &solver->z));
    solver->m_alloc = m;
  }
  PetscCall(VIContactComputeEps(solver, set, m, G));
  solver->G        = G;
  solver->m        = m;
  solver->lu_valid = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIContactSolverSolve - see contact.h; seed 000 Eq. (C.2) by projected Jacobi, x <- (1 - omega) x +
  omega proj_C[x - eps (G x + c)], by projected Gauss-Seidel (omega not used), or by the semi-smooth Newton method of
  newton.c, which hands over to Jacobi where it stalls. Not collective.

  Each iteration first evaluates z = proj_C(x - eps (G x + c)) at the current x: its distance to x is the residual
  that decides convergence, and for Jacobi it is also the update. Iterations counts the updates made, so a warm start
  at the solution returns with 0 iterations and x untouched. With omega > 1 the iterate may leave C by up to the
  tolerance (the relaxed step overshoots the projection).
*/
PetscErrorCode VIContactSolverSolve(VIContactSolver solver, const VIContactSet *set, PetscInt m, const PetscReal G[], const PetscReal c[],
                                    PetscReal x[], VIContactSolveInfo *info)
{
  PetscInt  it = 0, newton_it = 0;
  PetscReal res = 0;

  PetscFunctionBeginUser;
  PetscCheck(solver, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "VIContactSolverSolve: the solver is NULL");
  if (G)
    PetscCall(VIContactSolverSetOperator(solver, set, m, G));
  else
    PetscCheck(m == solver->m && set && set->num_contacts >= 0, solver->comm, PETSC_ERR_ARG_WRONG,
               "VIContactSolverSolve: %" PetscInt_FMT " unknowns, but the operator set by VIContactSolverSetOperator has %" PetscInt_FMT, m,
               solver->m);
  PetscCheck(m == 0 || (c && x), solver->comm, PETSC_ERR_ARG_NULL, "VIContactSolverSolve: c or x is NULL with m = %" PetscInt_FMT, m);
  G = solver->G;
  PetscCall(PetscLogEventBegin(VI_ContactSolve, 0, 0, 0, 0));
  if (solver->type == VI_CONTACT_SOLVER_NEWTON && m) {
    PetscCall(VIContactSolveNewton(solver, set, c, x, &newton_it, &res));
    if (res <= solver->tol || PetscIsInfOrNanReal(res)) it = -1; /* done */
  }
  for (; it >= 0; it++) {
    VIContactResidualForce(m, G, c, x, solver->y);
    res = VIContactProject(set, solver->eps, x, solver->y, solver->z);
    if (res <= solver->tol || newton_it + it >= solver->max_it || PetscIsInfOrNanReal(res)) break;
    if (solver->type != VI_CONTACT_SOLVER_GAUSS_SEIDEL) {
      const PetscReal omega = solver->type == VI_CONTACT_SOLVER_JACOBI ? solver->omega : 1.0;

      if (omega == 1.0)
        PetscCall(PetscArraycpy(x, solver->z, m));
      else
        for (PetscInt i = 0; i < m; i++) x[i] = (1 - omega) * x[i] + omega * solver->z[i];
    } else
      VIContactSweepGaussSeidel(set, solver->eps, m, G, x, solver->y);
  }
  it = PetscMax(it, 0) + newton_it;
  /* one product G x per iteration, one more per Gauss-Seidel sweep (Newton: plus its LU solves, not counted) */
  PetscCall(PetscLogFlops(2.0 * m * m * ((PetscLogDouble)it + 1 + (solver->type == VI_CONTACT_SOLVER_GAUSS_SEIDEL ? it : 0))));
  PetscCall(PetscLogEventEnd(VI_ContactSolve, 0, 0, 0, 0));
  PetscCall(PetscInfo(NULL, "Contact solver %s: %" PetscInt_FMT " contacts, %" PetscInt_FMT " iterations (%" PetscInt_FMT " Newton), residual %g\n",
                      VIContactSolverTypes[solver->type], set->num_contacts, it, newton_it, (double)res));
  if (info) {
    info->iterations = it;
    info->residual   = res;
    info->converged  = res <= solver->tol ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The contact module's options: the solver (src/sys/options.c's registry: names, the type each is read with, an enum's choices) */
static const VIOptionEntry VIContactOptions[] = {
    {"-contact_solver", VI_OPTION_ENUM, VIContactSolverTypes},
    {"-contact_tol", VI_OPTION_REAL, NULL},
    {"-contact_max_it", VI_OPTION_INT, NULL},
    {"-contact_relaxation", VI_OPTION_REAL, NULL},
    {"-contact_al_scale", VI_OPTION_REAL, NULL},
};

PetscErrorCode VIContactRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRegisterTable("contact", VIContactOptions, sizeof(VIContactOptions) / sizeof(VIContactOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
