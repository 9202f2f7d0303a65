/* Unit test of the contact module: the projections of Eqs. (C.3)-(C.4), projected Jacobi and Gauss-Seidel on LCPs
   (against enumeration of the active sets) and on Coulomb friction problems (against the contact law itself and closed
   forms), the Studer step, warm start, non-convergence, and every input check. */
#include <vicms.h>
#include <vicms/contact.h>
#include "contact/contactimpl.h" /* the Newton solver's count of factorizations */
#include <petscblaslapack.h>
#include <string.h>

static const char help[] = "Unit test of the contact projections and solvers\n";

static char Captured[4096];

static PetscErrorCode CaptureError(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess,
                                   void *ctx)
{
  (void)comm;
  (void)line;
  (void)func;
  (void)file;
  (void)ctx;
  if (p == PETSC_ERROR_INITIAL && !Captured[0]) snprintf(Captured, sizeof(Captured), "%s", mess ? mess : "");
  return n;
}

/* Counts the allocations made through PETSc while it is installed, to show that a steady solve makes none. */
static PetscErrorCode (*SavedMalloc)(size_t, PetscBool, int, const char[], const char[], void **);
static PetscInt MallocCount;

static PetscErrorCode CountingMalloc(size_t size, PetscBool clear, int line, const char func[], const char file[], void **result)
{
  MallocCount++;
  return SavedMalloc(size, clear, line, func, file, result);
}

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)

static PetscReal NormInf(PetscInt n, const PetscReal v[])
{
  PetscReal r = 0;
  for (PetscInt i = 0; i < n; i++) r = PetscMax(r, PetscAbsReal(v[i]));
  return r;
}

static PetscReal DiffInf(PetscInt n, const PetscReal a[], const PetscReal b[])
{
  PetscReal r = 0;
  for (PetscInt i = 0; i < n; i++) r = PetscMax(r, PetscAbsReal(a[i] - b[i]));
  return r;
}

static void Force(PetscInt m, const PetscReal G[], const PetscReal c[], const PetscReal x[], PetscReal y[])
{
  for (PetscInt i = 0; i < m; i++) {
    y[i] = c[i];
    for (PetscInt j = 0; j < m; j++) y[i] += G[i * m + j] * x[j];
  }
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Projections, against values computed by hand. */

static PetscErrorCode CheckVector(const char what[], PetscInt n, const PetscReal got[], const PetscReal want[])
{
  const PetscReal tol = 1e-15;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < n; k++)
    CHECK(PetscAbsReal(got[k] - want[k]) <= tol * PetscMax(1.0, PetscAbsReal(want[k])), "%s: component %" PetscInt_FMT " is %.17g, expected %.17g",
          what, k, (double)got[k], (double)want[k]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-44s (", what));
  for (PetscInt k = 0; k < n; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s%g", k ? ", " : "", (double)got[k]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, ")  tol 1e-15\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestProjections(void)
{
  struct {
    const char *what;
    PetscInt    dim;
    PetscReal   r, in[2], want[2];
  } disk[] = {
      {"disk 1D r=2, inside 1.5", 1, 2.0, {1.5, 0}, {1.5, 0}},
      {"disk 1D r=2, boundary -2", 1, 2.0, {-2.0, 0}, {-2.0, 0}},
      {"disk 1D r=2, outside 3", 1, 2.0, {3.0, 0}, {2.0, 0}},
      {"disk 1D r=2, outside -7.5", 1, 2.0, {-7.5, 0}, {-2.0, 0}},
      {"disk 1D r=0, 0.7", 1, 0.0, {0.7, 0}, {0.0, 0}},
      {"disk 2D r=5, inside (1,2)", 2, 5.0, {1.0, 2.0}, {1.0, 2.0}},
      {"disk 2D r=5, boundary (3,4)", 2, 5.0, {3.0, 4.0}, {3.0, 4.0}},
      {"disk 2D r=5, outside (6,8)", 2, 5.0, {6.0, 8.0}, {3.0, 4.0}},
      {"disk 2D r=5, outside (-6,8)", 2, 5.0, {-6.0, 8.0}, {-3.0, 4.0}},
      {"disk 2D r=1, outside (0,-3)", 2, 1.0, {0.0, -3.0}, {0.0, -1.0}},
      {"disk 2D r=0.5, outside (1,1)", 2, 0.5, {1.0, 1.0}, {0.5 / PETSC_SQRT2, 0.5 / PETSC_SQRT2}},
      {"disk 2D r=0, (1,-1)", 2, 0.0, {1.0, -1.0}, {0.0, 0.0}},
      {"disk 2D r=0, (0,0)", 2, 0.0, {0.0, 0.0}, {0.0, 0.0}},
  };

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "projections (seed 000 Eqs. C.3, C.4):\n"));
  {
    const PetscReal in[3] = {2.5, -1.5, 0.0}, want[3] = {2.5, 0.0, 0.0};
    PetscReal       got[3];
    for (PetscInt k = 0; k < 3; k++) got[k] = VIProjectHalfLine(in[k]);
    PetscCall(CheckVector("half-line of (2.5, -1.5, 0)", 3, got, want));
  }
  for (size_t t = 0; t < sizeof(disk) / sizeof(disk[0]); t++) {
    PetscReal xi[2] = {disk[t].in[0], disk[t].in[1]};

    VIProjectDisk(disk[t].dim, disk[t].r, xi);
    PetscCall(CheckVector(disk[t].what, disk[t].dim, xi, disk[t].want));
    if (disk[t].dim == 2 && disk[t].r > 0) {
      /* same direction: no cross product, positive dot product, and on the circle when outside */
      const PetscReal cross = xi[0] * disk[t].in[1] - xi[1] * disk[t].in[0], dot = xi[0] * disk[t].in[0] + xi[1] * disk[t].in[1];
      const PetscReal nin  = PetscSqrtReal(disk[t].in[0] * disk[t].in[0] + disk[t].in[1] * disk[t].in[1]);
      const PetscReal nout = PetscSqrtReal(xi[0] * xi[0] + xi[1] * xi[1]);

      CHECK(PetscAbsReal(cross) <= 1e-14 && dot > 0, "%s: direction changed (cross %g, dot %g)", disk[t].what, (double)cross, (double)dot);
      if (nin > disk[t].r)
        CHECK(PetscAbsReal(nout - disk[t].r) <= 1e-15 * disk[t].r, "%s: |proj| = %.17g, expected the radius %g", disk[t].what, (double)nout,
              (double)disk[t].r);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Random problems */

/* G = A^T A + delta I with A uniform in [-1, 1]: symmetric positive definite, not diagonally dominant for m > 2. */
static PetscErrorCode RandomSPD(PetscRandom rnd, PetscInt m, PetscReal delta, PetscReal G[])
{
  PetscReal *A;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m * m, &A));
  for (PetscInt i = 0; i < m * m; i++) PetscCall(PetscRandomGetValueReal(rnd, &A[i]));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) {
      PetscReal s = i == j ? delta : 0;
      for (PetscInt k = 0; k < m; k++) s += A[k * m + i] * A[k * m + j];
      G[i * m + j] = s;
    }
  PetscCall(PetscFree(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(VIContactSolver solver, VIContactSolverType type, PetscReal omega, const VIContactSet *set, PetscInt m,
                            const PetscReal G[], const PetscReal c[], PetscReal x[], VIContactSolveInfo *info)
{
  PetscFunctionBeginUser;
  PetscCall(VIContactSolverSetType(solver, type));
  PetscCall(VIContactSolverSetRelaxation(solver, omega));
  PetscCall(PetscArrayzero(x, m));
  PetscCall(VIContactSolverSolve(solver, set, m, G, c, x, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The LCP x >= 0, y = G x + c >= 0, x_i y_i = 0 by enumeration of the 2^m active sets S: G_SS x_S = -c_S (LAPACK),
  x_S >= 0, y_N >= 0. For SPD G exactly one set holds up to degeneracy; returns the first and how many held.
*/
static PetscErrorCode EnumerateLCP(PetscInt m, const PetscReal G[], const PetscReal c[], PetscReal xe[], PetscInt *found)
{
  PetscReal      *Gs, *xs, *y;
  PetscBLASInt    n, one = 1, *piv, lapack_info;
  PetscInt        idx[16];
  const PetscReal ftol = 1e-12 * (1 + NormInf(m, c));

  PetscFunctionBeginUser;
  PetscCheck(m <= 16, PETSC_COMM_SELF, PETSC_ERR_SUP, "enumeration only for m <= 16");
  PetscCall(PetscMalloc4(m * m, &Gs, m, &xs, m, &y, m, &piv));
  *found = 0;
  for (PetscInt mask = 0; mask < (1 << m); mask++) {
    PetscInt  ns = 0;
    PetscBool ok = PETSC_TRUE;

    for (PetscInt i = 0; i < m; i++)
      if (mask & (1 << i)) idx[ns++] = i;
    for (PetscInt a = 0; a < ns; a++) {
      for (PetscInt b = 0; b < ns; b++) Gs[b * ns + a] = G[idx[a] * m + idx[b]]; /* column-major for LAPACK */
      xs[a] = -c[idx[a]];
    }
    if (ns) {
      PetscCall(PetscBLASIntCast(ns, &n));
      LAPACKgesv_(&n, &one, Gs, &n, piv, xs, &n, &lapack_info);
      CHECK(lapack_info == 0, "LAPACK gesv failed with info %d on active set %" PetscInt_FMT, (int)lapack_info, mask);
    }
    PetscCall(PetscArrayzero(y, m));
    for (PetscInt a = 0; a < ns; a++) {
      y[idx[a]] = xs[a];
      if (xs[a] < -ftol) ok = PETSC_FALSE;
    }
    {
      PetscReal *x = y; /* y holds x here */
      PetscReal  r[16];
      Force(m, G, c, x, r);
      for (PetscInt i = 0; i < m; i++)
        if (!(mask & (1 << i)) && r[i] < -ftol) ok = PETSC_FALSE;
    }
    if (ok) {
      if (!*found) PetscCall(PetscArraycpy(xe, y, m));
      (*found)++;
    }
  }
  PetscCall(PetscFree4(Gs, xs, y, piv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x >= 0, y >= 0, x_i y_i = 0, with the tolerances stated in the message. */
static PetscErrorCode CheckLCP(const char what[], PetscInt m, const PetscReal G[], const PetscReal c[], const PetscReal x[], PetscReal *worst)
{
  PetscReal      *y, xmin = PETSC_MAX_REAL, ymin = PETSC_MAX_REAL, comp = 0;
  const PetscReal scale = (1 + NormInf(m, x)) * (1 + NormInf(m, c)), tol = 1e-9 * scale, ctol = 1e-8 * scale;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m, &y));
  Force(m, G, c, x, y);
  for (PetscInt i = 0; i < m; i++) {
    xmin = PetscMin(xmin, x[i]);
    ymin = PetscMin(ymin, y[i]);
    comp = PetscMax(comp, PetscAbsReal(x[i] * y[i]));
  }
  PetscCall(PetscFree(y));
  CHECK(xmin >= -tol && ymin >= -tol && comp <= ctol, "%s: LCP violated: min x %g, min y %g (tol -%g), max |x_i y_i| %g (tol %g)", what, (double)xmin,
        (double)ymin, (double)tol, (double)comp, (double)ctol);
  *worst = comp;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestNormalOnly(PetscRandom rnd)
{
  const PetscInt sizes[] = {1, 5, 10, 30};
  const struct {
    VIContactSolverType type;
    PetscReal           omega;
    const char         *name;
  } methods[] = {
      {VI_CONTACT_SOLVER_JACOBI, 1.0, "jacobi w=1.0"},
      {VI_CONTACT_SOLVER_JACOBI, 1.5, "jacobi w=1.5"},
      {VI_CONTACT_SOLVER_GAUSS_SEIDEL, 1.0, "gauss_seidel"},
      {VI_CONTACT_SOLVER_NEWTON, 1.0, "newton"},
  };
  VIContactSolver solver;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "normal-only problems (LCP), G = A^T A + 0.5 I, tol 1e-13:\n"));
  PetscCall(VIContactSolverCreate(PETSC_COMM_SELF, &solver));
  PetscCall(VIContactSolverSetTolerances(solver, 1e-13, 200000));
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
    const PetscInt m = sizes[s];
    PetscInt      *dims, found = 0;
    PetscReal     *G, *c, *x, *xe, *xgs;
    VIContactSet   set;

    PetscCall(PetscMalloc6(m, &dims, m * m, &G, m, &c, m, &x, m, &xe, m, &xgs));
    for (PetscInt i = 0; i < m; i++) dims[i] = 1;
    set.num_contacts = m;
    set.dims         = dims;
    set.mu           = NULL;
    set.preload      = NULL;
    set.kinds        = NULL;
    PetscCall(RandomSPD(rnd, m, 0.5, G));
    for (PetscInt i = 0; i < m; i++) PetscCall(PetscRandomGetValueReal(rnd, &c[i]));
    if (m <= 10) {
      PetscCall(EnumerateLCP(m, G, c, xe, &found));
      CHECK(found >= 1, "m = %" PetscInt_FMT ": enumeration found no solution of the LCP", m);
    }
    PetscCall(Solve(solver, VI_CONTACT_SOLVER_GAUSS_SEIDEL, 1.0, &set, m, G, c, xgs, NULL));
    for (size_t k = 0; k < sizeof(methods) / sizeof(methods[0]); k++) {
      VIContactSolveInfo info;
      PetscReal          comp   = 0, err;
      PetscInt           active = 0;
      char               what[64];

      PetscCall(PetscSNPrintf(what, sizeof(what), "m = %" PetscInt_FMT " %s", m, methods[k].name));
      PetscCall(Solve(solver, methods[k].type, methods[k].omega, &set, m, G, c, x, &info));
      CHECK(info.converged, "%s: not converged in %" PetscInt_FMT " iterations, residual %g", what, info.iterations, (double)info.residual);
      PetscCall(CheckLCP(what, m, G, c, x, &comp));
      for (PetscInt i = 0; i < m; i++) active += x[i] > 1e-10;
      if (m <= 10) {
        err = DiffInf(m, x, xe) / PetscMax(1.0, NormInf(m, xe));
        CHECK(err <= 1e-8, "%s: differs from the enumerated LCP solution by %g (relative), tol 1e-8", what, (double)err);
      } else {
        err = DiffInf(m, x, xgs) / PetscMax(1.0, NormInf(m, xgs));
        CHECK(err <= 1e-8, "%s: differs from the Gauss-Seidel solution by %g (relative), tol 1e-8", what, (double)err);
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "  %-22s %2" PetscInt_FMT " active, %6" PetscInt_FMT " it, residual %.2e, max|x_i y_i| %.1e, vs %s %.1e%s\n", what,
                            active, info.iterations, (double)info.residual, (double)comp, m <= 10 ? "enumeration" : "gauss_seidel", (double)err,
                            m <= 10 && found > 1 ? " (degenerate: several active sets)" : ""));
    }
    PetscCall(PetscFree6(dims, G, c, x, xe, xgs));
  }
  PetscCall(VIContactSolverDestroy(&solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Coulomb's law (seed 000 Eqs. 5-7) contact by contact: x_n >= 0, y_n >= 0, x_n y_n = 0; |x_t| <= r = mu (x_n + p);
  stick (|x_t| < r) => y_t = 0; slip => y_t = -kappa x_t, kappa >= 0. Counts open, stick and slip contacts.
*/
static PetscErrorCode CheckCoulomb(const char what[], const VIContactSet *set, PetscInt m, const PetscReal G[], const PetscReal c[],
                                   const PetscReal x[], PetscInt count[3], PetscReal *worst)
{
  PetscReal      *y;
  PetscInt        row = 0;
  const PetscReal tol = 1e-8 * (1 + NormInf(m, x)) * (1 + NormInf(m, c));

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m, &y));
  Force(m, G, c, x, y);
  count[0] = count[1] = count[2] = 0;
  *worst                         = 0;
  for (PetscInt j = 0; j < set->num_contacts; j++) {
    const PetscInt  d  = set->dims[j];
    const PetscReal xn = x[row], yn = y[row], *xt = x + row + 1, *yt = y + row + 1;
    const PetscReal p = set->preload ? set->preload[j] : 0, r = set->mu[j] * (xn + p);
    PetscReal       nxt = 0, nyt = 0, dot = 0;

    for (PetscInt k = 0; k < d - 1; k++) {
      nxt += xt[k] * xt[k];
      nyt += yt[k] * yt[k];
      dot += xt[k] * yt[k];
    }
    nxt = PetscSqrtReal(nxt);
    nyt = PetscSqrtReal(nyt);
    if (VIContactSetIsBilateral(set, j)) { /* an equality row: y_n = 0 whatever the sign of x_n */
      CHECK(PetscAbsReal(yn) <= tol, "%s contact %" PetscInt_FMT ": bilateral but y_n = %g, tol %g", what, j, (double)yn, (double)tol);
      *worst = PetscMax(*worst, PetscAbsReal(yn));
      row += d;
      continue;
    }
    CHECK(xn >= -tol && yn >= -tol && PetscAbsReal(xn * yn) <= tol,
          "%s contact %" PetscInt_FMT ": Signorini violated: x_n %g, y_n %g, x_n y_n %g, tol %g", what, j, (double)xn, (double)yn, (double)(xn * yn),
          (double)tol);
    *worst = PetscMax(*worst, PetscAbsReal(xn * yn));
    CHECK(nxt <= r + tol, "%s contact %" PetscInt_FMT ": |x_t| = %.15g outside the disk of radius mu (x_n + p) = %.15g, tol %g", what, j, (double)nxt,
          (double)r, (double)tol);
    if (xn <= tol && p == 0) count[0]++;
    if (r <= tol) {
      /* no friction force available: any slip velocity is admissible */
    } else if (nxt < r - tol) {
      CHECK(nyt <= tol, "%s contact %" PetscInt_FMT ": sticks (|x_t| = %g < r = %g) but |y_t| = %g > tol %g", what, j, (double)nxt, (double)r,
            (double)nyt, (double)tol);
      *worst = PetscMax(*worst, nyt);
      if (!(xn <= tol && p == 0)) count[1]++;
    } else {
      /* y_t = -kappa x_t: kappa = -(x_t . y_t) / |x_t|^2 >= 0 and nothing of y_t across x_t */
      const PetscReal kappa  = -dot / (nxt * nxt);
      PetscReal       across = 0;

      for (PetscInt k = 0; k < d - 1; k++) across = PetscMax(across, PetscAbsReal(yt[k] + kappa * xt[k]));
      CHECK(kappa >= -tol && across <= tol,
            "%s contact %" PetscInt_FMT ": slips but y_t is not opposite to x_t: kappa %g, |y_t + kappa x_t| %g, tol %g", what, j, (double)kappa,
            (double)across, (double)tol);
      *worst = PetscMax(*worst, across);
      if (!(xn <= tol && p == 0)) count[2]++;
    }
    row += d;
  }
  PetscCall(PetscFree(y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* num_contacts contacts of dims 3, 2, 3, 3, 2, ... and one normal-only contact at the end; mu = 0.3 */
static PetscErrorCode FrictionProblem(PetscRandom rnd, PetscInt num_contacts, PetscBool preloaded, PetscInt dims[], PetscReal mu[],
                                      PetscReal preload[], PetscInt *m, PetscReal **G, PetscReal **c)
{
  PetscFunctionBeginUser;
  *m = 0;
  for (PetscInt j = 0; j < num_contacts; j++) {
    dims[j] = j == num_contacts - 1 ? 1 : (j % 3 == 1 ? 2 : 3);
    mu[j]   = 0.3;
    PetscCall(PetscRandomGetValueReal(rnd, &preload[j]));
    preload[j] = preloaded ? 0.5 * (preload[j] + 1) : 0; /* in [0, 1] */
    *m += dims[j];
  }
  PetscCall(PetscMalloc2(*m * *m, G, *m, c));
  PetscCall(RandomSPD(rnd, *m, 0.5, *G));
  for (PetscInt i = 0; i < *m; i++) PetscCall(PetscRandomGetValueReal(rnd, &(*c)[i]));
  /* smaller tangential loads on every other contact, so that some stick without preload too */
  for (PetscInt j = 0, row = 0; j < num_contacts; row += dims[j], j++)
    if (j % 2)
      for (PetscInt k = 1; k < dims[j]; k++) (*c)[row + k] *= 0.1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestFriction(PetscRandom rnd)
{
  const PetscInt  counts[] = {4, 12};
  VIContactSolver solver;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "frictional problems (dims 3, 2, ..., 1; mu = 0.3), G = A^T A + 0.5 I, tol 1e-13:\n"));
  PetscCall(VIContactSolverCreate(PETSC_COMM_SELF, &solver));
  PetscCall(VIContactSolverSetTolerances(solver, 1e-13, 200000));
  for (size_t s = 0; s < sizeof(counts) / sizeof(counts[0]); s++) {
    for (PetscInt pre = 0; pre < 2; pre++) {
      const PetscInt     nc = counts[s];
      PetscInt           dims[16], m, count[3];
      PetscReal          mu[16], preload[16], *G, *c, *xj, *xg, worst, err;
      VIContactSet       set = {nc, dims, mu, preload, NULL};
      VIContactSolveInfo ij, ig, iw;
      char               what[64];

      PetscCall(FrictionProblem(rnd, nc, pre ? PETSC_TRUE : PETSC_FALSE, dims, mu, preload, &m, &G, &c));
      PetscCall(PetscMalloc2(m, &xj, m, &xg));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT " contacts m = %" PetscInt_FMT "%s", nc, m, pre ? " preload" : ""));
      PetscCall(Solve(solver, VI_CONTACT_SOLVER_JACOBI, 1.0, &set, m, G, c, xj, &ij));
      CHECK(ij.converged, "%s jacobi: not converged in %" PetscInt_FMT " iterations, residual %g", what, ij.iterations, (double)ij.residual);
      PetscCall(CheckCoulomb(what, &set, m, G, c, xj, count, &worst));
      PetscCall(Solve(solver, VI_CONTACT_SOLVER_GAUSS_SEIDEL, 1.0, &set, m, G, c, xg, &ig));
      CHECK(ig.converged, "%s gauss_seidel: not converged in %" PetscInt_FMT " iterations, residual %g", what, ig.iterations, (double)ig.residual);
      PetscCall(CheckCoulomb(what, &set, m, G, c, xg, count, &worst));
      err = DiffInf(m, xj, xg) / PetscMax(1.0, NormInf(m, xg));
      CHECK(err <= 1e-7, "%s: jacobi and gauss_seidel differ by %g (relative), tol 1e-7", what, (double)err);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "  %-30s open %" PetscInt_FMT " stick %" PetscInt_FMT " slip %" PetscInt_FMT ": jacobi %5" PetscInt_FMT
                            " it, gauss_seidel %4" PetscInt_FMT " it, |J - GS| %.1e (tol 1e-7), worst Coulomb defect %.1e (tol 1e-8 scale)\n",
                            what, count[0], count[1], count[2], ij.iterations, ig.iterations, (double)err, (double)worst));

      /* semi-smooth Newton from zero: the same solution in far fewer iterations; then a perturbed right-hand side from
         the previous solution (a time step's warm start) reuses its factors (the pattern is the same) */
      {
        VIContactSolveInfo in, ip;
        PetscReal          errn, *xn, *c2, *xg2;
        PetscInt           f0;

        PetscCall(PetscMalloc3(m, &xn, m, &c2, m, &xg2));
        PetscCall(Solve(solver, VI_CONTACT_SOLVER_NEWTON, 1.0, &set, m, G, c, xn, &in));
        CHECK(in.converged, "%s newton: not converged in %" PetscInt_FMT " iterations, residual %g", what, in.iterations, (double)in.residual);
        PetscCall(CheckCoulomb(what, &set, m, G, c, xn, count, &worst));
        errn = DiffInf(m, xn, xg) / PetscMax(1.0, NormInf(m, xg));
        CHECK(errn <= 1e-7, "%s: newton and gauss_seidel differ by %g (relative), tol 1e-7", what, (double)errn);
        CHECK(in.iterations <= 30, "%s newton: %" PetscInt_FMT " iterations from zero, expected at most 30", what, in.iterations);
        for (PetscInt i = 0; i < m; i++) c2[i] = c[i] * (1 + 1e-6 * (i % 3));
        f0 = solver->factorizations;
        PetscCall(VIContactSolverSolve(solver, &set, m, NULL, c2, xn, &ip));
        CHECK(ip.converged && ip.iterations <= 4, "%s newton, warm start on a perturbed problem: %" PetscInt_FMT " iterations (at most 4)", what,
              ip.iterations);
        PetscCall(Solve(solver, VI_CONTACT_SOLVER_GAUSS_SEIDEL, 1.0, &set, m, G, c2, xg2, NULL));
        err = DiffInf(m, xn, xg2) / PetscMax(1.0, NormInf(m, xg2));
        CHECK(err <= 1e-7, "%s perturbed: newton and gauss_seidel differ by %g (relative), tol 1e-7", what, (double)err);
        PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                              "  %-30s newton %3" PetscInt_FMT " it from zero, |N - GS| %.1e; perturbed c, warm: %" PetscInt_FMT " it, %" PetscInt_FMT
                              " new factorizations, |N - GS| %.1e\n",
                              "", in.iterations, (double)errn, ip.iterations, solver->factorizations - f0, (double)err));
        PetscCall(PetscFree3(xn, c2, xg2));
      }

      /* warm start from the solution: at most 2 iterations */
      PetscCall(VIContactSolverSetType(solver, VI_CONTACT_SOLVER_JACOBI));
      PetscCall(VIContactSolverSolve(solver, &set, m, G, c, xj, &iw));
      CHECK(iw.converged && iw.iterations <= 2, "%s jacobi warm start: %" PetscInt_FMT " iterations (at most 2), converged %d", what, iw.iterations,
            (int)iw.converged);
      PetscCall(VIContactSolverSetType(solver, VI_CONTACT_SOLVER_GAUSS_SEIDEL));
      PetscCall(VIContactSolverSolve(solver, &set, m, G, c, xg, &ig));
      CHECK(ig.converged && ig.iterations <= 2, "%s gauss_seidel warm start: %" PetscInt_FMT " iterations (at most 2), converged %d", what,
            ig.iterations, (int)ig.converged);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "  %-30s warm start: jacobi %" PetscInt_FMT " it (residual %.1e), gauss_seidel %" PetscInt_FMT " it (residual %.1e)\n",
                            "", iw.iterations, (double)iw.residual, ig.iterations, (double)ig.residual));

      /* a steady solve allocates nothing: same m again, no call to PetscMalloc */
      MallocCount   = 0;
      SavedMalloc   = PetscTrMalloc;
      PetscTrMalloc = CountingMalloc;
      PetscCall(Solve(solver, VI_CONTACT_SOLVER_GAUSS_SEIDEL, 1.0, &set, m, G, c, xg, NULL));
      PetscCall(Solve(solver, VI_CONTACT_SOLVER_JACOBI, 1.5, &set, m, G, c, xj, NULL));
      PetscTrMalloc = SavedMalloc;
      CHECK(MallocCount == 0, "%s: two steady solves called PetscMalloc %" PetscInt_FMT " times", what, MallocCount);

      /* non-convergence: 3 iterations are not enough, and that is no error */
      if (s == sizeof(counts) / sizeof(counts[0]) - 1 && !pre) {
        PetscCall(VIContactSolverSetTolerances(solver, 1e-13, 3));
        PetscCall(Solve(solver, VI_CONTACT_SOLVER_JACOBI, 1.0, &set, m, G, c, xj, &iw));
        CHECK(!iw.converged && iw.iterations == 3 && iw.residual > 1e-13, "%s max_it 3: converged %d after %" PetscInt_FMT " iterations, residual %g",
              what, (int)iw.converged, iw.iterations, (double)iw.residual);
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-30s max_it 3: converged %d, %" PetscInt_FMT " it, residual %.2e > tol 1e-13 (no error)\n", "",
                              (int)iw.converged, iw.iterations, (double)iw.residual));
        PetscCall(VIContactSolverSetTolerances(solver, 1e-13, 200000));
      }
      PetscCall(PetscFree2(xj, xg));
      PetscCall(PetscFree2(G, c));
    }
  }
  PetscCall(VIContactSolverDestroy(&solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Bilateral rows (C = R): a set of bilateral rows only is the linear system G x = -c, checked against LAPACK's solve; a
  mixed set (bilateral, unilateral and frictional contacts, random kinds) against the contact law row by row (bilateral
  y = 0, Signorini, Coulomb) and, frictionless, against the enumeration of the unilateral rows' active sets with the
  bilateral rows always in the set.
*/
static PetscErrorCode TestBilateral(PetscRandom rnd)
{
  const struct {
    VIContactSolverType type;
    PetscReal           omega;
    const char         *name;
  } methods[] = {
      {VI_CONTACT_SOLVER_JACOBI, 1.0, "jacobi"},
      {VI_CONTACT_SOLVER_GAUSS_SEIDEL, 1.0, "gauss_seidel"},
      {VI_CONTACT_SOLVER_NEWTON, 1.0, "newton"},
  };
  VIContactSolver solver;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bilateral rows (C = R), G = A^T A + 0.5 I, tol 1e-13:\n"));
  PetscCall(VIContactSolverCreate(PETSC_COMM_SELF, &solver));
  PetscCall(VIContactSolverSetTolerances(solver, 1e-13, 200000));
  /* equality rows only: the linear solve */
  {
    const PetscInt m = 8;
    PetscInt       dims[8];
    VIContactKind  kinds[8];
    PetscReal      G[64], Gc[64], c[8], xe[8], x[8];
    PetscBLASInt   n = 8, one = 1, piv[8], info;
    VIContactSet   set = {m, dims, NULL, NULL, kinds};

    for (PetscInt i = 0; i < m; i++) {
      dims[i]  = 1;
      kinds[i] = VI_CONTACT_BILATERAL;
    }
    PetscCall(RandomSPD(rnd, m, 0.5, G));
    for (PetscInt i = 0; i < m; i++) {
      PetscCall(PetscRandomGetValueReal(rnd, &c[i]));
      c[i] *= 3; /* both signs: the multipliers are not confined to R+ */
      xe[i] = -c[i];
    }
    PetscCall(PetscArraycpy(Gc, G, 64)); /* symmetric: row-major is column-major */
    LAPACKgesv_(&n, &one, Gc, &n, piv, xe, &n, &info);
    CHECK(info == 0, "LAPACK gesv failed with info %d", (int)info);
    for (size_t k = 0; k < sizeof(methods) / sizeof(methods[0]); k++) {
      VIContactSolveInfo si;
      PetscReal          err, xmin = 0;

      PetscCall(Solve(solver, methods[k].type, methods[k].omega, &set, m, G, c, x, &si));
      err = DiffInf(m, x, xe) / PetscMax(1.0, NormInf(m, xe));
      for (PetscInt i = 0; i < m; i++) xmin = PetscMin(xmin, x[i]);
      CHECK(si.converged && err <= 1e-10, "8 bilateral rows %s: converged %d, differs from the linear solve by %g (relative), tol 1e-10",
            methods[k].name, (int)si.converged, (double)err);
      CHECK(xmin < -0.1, "8 bilateral rows %s: min x = %g, expected some negative multipliers (the test would not see a projection)", methods[k].name,
            (double)xmin);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  8 bilateral rows %-13s %5" PetscInt_FMT " it, min x %6.3f, vs LAPACK gesv %.1e (tol 1e-10)\n",
                            methods[k].name, si.iterations, (double)xmin, (double)err));
    }
  }
  /* mixed sets: kinds drawn at random */
  for (PetscInt trial = 0; trial < 6; trial++) {
    const PetscBool frictional = trial % 2 ? PETSC_TRUE : PETSC_FALSE;
    const PetscInt  nc         = 6 + trial;
    PetscInt        dims[16], m = 0, count[3], nbil = 0, found = 1;
    VIContactKind   kinds[16];
    PetscReal       mu[16], *G, *c, *x, *xe, *xg, worst, err;
    VIContactSet    set = {nc, dims, mu, NULL, kinds};
    char            what[64];

    for (PetscInt j = 0; j < nc; j++) {
      PetscReal r;
      PetscCall(PetscRandomGetValueReal(rnd, &r));
      kinds[j] = (r < -0.3 || j == 0) ? VI_CONTACT_BILATERAL : VI_CONTACT_UNILATERAL;
      dims[j]  = (kinds[j] == VI_CONTACT_BILATERAL || !frictional) ? 1 : 2 + (j % 2);
      mu[j]    = 0.3;
      nbil += kinds[j] == VI_CONTACT_BILATERAL;
      m += dims[j];
    }
    PetscCall(PetscMalloc5(m * m, &G, m, &c, m, &x, m, &xe, m, &xg));
    PetscCall(RandomSPD(rnd, m, 0.5, G));
    for (PetscInt i = 0; i < m; i++) PetscCall(PetscRandomGetValueReal(rnd, &c[i]));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT " contacts (%" PetscInt_FMT " bilateral) m = %" PetscInt_FMT "%s", nc, nbil, m,
                            frictional ? " mu 0.3" : ""));
    if (!frictional) {
      /* enumeration over the unilateral rows: substitute the bilateral ones' equations by a Schur complement is what the
         solvers avoid; here simply enumerate all 2^m sets and keep those with every bilateral row in the set */
      PetscReal      *Gs, *xs, y[16];
      PetscBLASInt    n, one = 1, *piv, info;
      PetscInt        idx[16];
      const PetscReal ftol = 1e-12 * (1 + NormInf(m, c));

      PetscCall(PetscMalloc3(m * m, &Gs, m, &xs, m, &piv));
      found = 0;
      for (PetscInt mask = 0; mask < (1 << m); mask++) {
        PetscInt  ns = 0;
        PetscBool ok = PETSC_TRUE;
        for (PetscInt i = 0; i < m; i++) {
          if (kinds[i] == VI_CONTACT_BILATERAL && !(mask & (1 << i))) ok = PETSC_FALSE;
          if (mask & (1 << i)) idx[ns++] = i;
        }
        if (!ok) continue;
        for (PetscInt a = 0; a < ns; a++) {
          for (PetscInt b = 0; b < ns; b++) Gs[b * ns + a] = G[idx[a] * m + idx[b]];
          xs[a] = -c[idx[a]];
        }
        PetscCall(PetscBLASIntCast(ns, &n));
        LAPACKgesv_(&n, &one, Gs, &n, piv, xs, &n, &info);
        CHECK(info == 0, "LAPACK gesv failed with info %d", (int)info);
        PetscCall(PetscArrayzero(xg, m));
        for (PetscInt a = 0; a < ns; a++) {
          xg[idx[a]] = xs[a];
          if (kinds[idx[a]] != VI_CONTACT_BILATERAL && xs[a] < -ftol) ok = PETSC_FALSE;
        }
        Force(m, G, c, xg, y);
        for (PetscInt i = 0; i < m; i++)
          if (!(mask & (1 << i)) && y[i] < -ftol) ok = PETSC_FALSE;
        if (ok) {
          if (!found) PetscCall(PetscArraycpy(xe, xg, m));
          found++;
        }
      }
      PetscCall(PetscFree3(Gs, xs, piv));
      CHECK(found >= 1, "%s: the enumeration found no solution", what);
    } else
      PetscCall(Solve(solver, VI_CONTACT_SOLVER_GAUSS_SEIDEL, 1.0, &set, m, G, c, xe, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s:\n", what));
    for (size_t k = 0; k < sizeof(methods) / sizeof(methods[0]); k++) {
      VIContactSolveInfo si;

      PetscCall(Solve(solver, methods[k].type, methods[k].omega, &set, m, G, c, x, &si));
      CHECK(si.converged, "%s %s: not converged in %" PetscInt_FMT " iterations, residual %g", what, methods[k].name, si.iterations,
            (double)si.residual);
      PetscCall(CheckCoulomb(what, &set, m, G, c, x, count, &worst));
      err = DiffInf(m, x, xe) / PetscMax(1.0, NormInf(m, xe));
      CHECK(err <= 1e-8, "%s %s: differs from the %s solution by %g (relative), tol 1e-8", what, methods[k].name,
            frictional ? "gauss_seidel" : "enumerated", (double)err);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "    %-13s %5" PetscInt_FMT " it, open %" PetscInt_FMT " stick %" PetscInt_FMT " slip %" PetscInt_FMT
                            ", worst law defect %.1e, vs %s %.1e (tol 1e-8)\n",
                            methods[k].name, si.iterations, count[0], count[1], count[2], (double)worst, frictional ? "gauss_seidel" : "enumeration",
                            (double)err));
    }
    PetscCall(PetscFree5(G, c, x, xe, xg));
  }
  PetscCall(VIContactSolverDestroy(&solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Known single-contact answers */

/* G = diag(gn, gt1, gt2): x_n = max(0, -c_n/g_n); x_t = -c_t/g_t inside the disk, else on the circle with
   y_t = -kappa x_t, i.e. x_t,k = -c_t,k / (g_t,k + kappa), kappa by bisection (closed form when g_t1 = g_t2). */
static void SingleContactAnswer(PetscInt d, const PetscReal g[], const PetscReal c[], PetscReal mu, PetscReal p, PetscReal x[])
{
  PetscReal r, n2 = 0;

  x[0] = PetscMax(0.0, -c[0] / g[0]);
  r    = mu * (x[0] + p);
  for (PetscInt k = 1; k < d; k++) {
    x[k] = -c[k] / g[k];
    n2 += x[k] * x[k];
  }
  if (PetscSqrtReal(n2) <= r) return;
  if (r == 0) {
    for (PetscInt k = 1; k < d; k++) x[k] = 0;
    return;
  }
  if (d == 2 || g[1] == g[2]) {
    for (PetscInt k = 1; k < d; k++) x[k] *= r / PetscSqrtReal(n2);
    return;
  }
  {
    PetscReal lo = 0, hi = 1;
    for (;;) { /* |x_t(kappa)| decreases in kappa */
      PetscReal s = 0;
      for (PetscInt k = 1; k < d; k++) s += PetscSqr(c[k] / (g[k] + hi));
      if (PetscSqrtReal(s) < r) break;
      hi *= 2;
    }
    for (int it = 0; it < 200; it++) {
      PetscReal mid = 0.5 * (lo + hi), s = 0;
      for (PetscInt k = 1; k < d; k++) s += PetscSqr(c[k] / (g[k] + mid));
      if (PetscSqrtReal(s) > r)
        lo = mid;
      else
        hi = mid;
    }
    for (PetscInt k = 1; k < d; k++) x[k] = -c[k] / (g[k] + 0.5 * (lo + hi));
  }
}

static PetscErrorCode TestSingleContact(void)
{
  const struct {
    const char *what;
    PetscInt    d;
    PetscReal   g[3], c[3], p, want[3]; /* want: computed by hand */
  } cases[] = {
      {"stick", 3, {2, 3, 3}, {-4, 0.3, -0.4}, 0, {2, -0.1, 0.4 / 3}},
      {"slip", 3, {2, 3, 3}, {-4, 3, -4}, 0, {2, -0.36, 0.48}},
      {"open", 3, {2, 3, 3}, {1, 3, -4}, 0, {0, 0, 0}},
      {"open, preload 2, stick", 3, {2, 3, 3}, {1, 0.3, -0.4}, 2, {0, -0.1, 0.4 / 3}},
      {"preload 1, slip", 3, {2, 3, 3}, {-4, 3, -4}, 1, {2, -0.54, 0.72}},
      {"2D slip", 2, {2, 3, 0}, {-4, 3, 0}, 0, {2, -0.6, 0}},
      {"2D stick", 2, {2, 3, 0}, {-4, -0.9, 0}, 0, {2, 0.3, 0}},
      {"unequal g_t, slip", 3, {2, 3, 5}, {-4, 3, -4}, 0, {2, PETSC_MAX_REAL, 0}},
      {"unequal g_t, preload, slip", 3, {2, 3, 5}, {-4, 3, -4}, 0.5, {2, PETSC_MAX_REAL, 0}},
  };
  const PetscReal scales[] = {1.0, 0.7};
  VIContactSolver solver;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "single contact, G = diag(g_n, g_t1, g_t2), mu = 0.3, against the closed form (tol 1e-12):\n"));
  PetscCall(VIContactSolverCreate(PETSC_COMM_SELF, &solver));
  PetscCall(VIContactSolverSetTolerances(solver, 1e-15, 100000));
  for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
    const PetscInt d       = cases[t].d;
    PetscInt       dims[1] = {d};
    PetscReal      mu[1] = {0.3}, pre[1] = {cases[t].p}, G[9] = {0}, x[3], want[3];
    VIContactSet   set = {1, dims, mu, pre, NULL};

    for (PetscInt k = 0; k < d; k++) G[k * d + k] = cases[t].g[k];
    SingleContactAnswer(d, cases[t].g, cases[t].c, 0.3, cases[t].p, want);
    if (cases[t].want[1] != PETSC_MAX_REAL) {
      const PetscReal e = DiffInf(d, want, cases[t].want);
      CHECK(e <= 1e-15, "%s: the closed form (%g, %g, %g) does not match the hand value (%g, %g, %g)", cases[t].what, (double)want[0],
            (double)want[1], (double)want[2], (double)cases[t].want[0], (double)cases[t].want[1], (double)cases[t].want[2]);
    }
    for (size_t s = 0; s < sizeof(scales) / sizeof(scales[0]); s++) {
      for (VIContactSolverType type = VI_CONTACT_SOLVER_JACOBI; type <= VI_CONTACT_SOLVER_GAUSS_SEIDEL; type++) {
        VIContactSolveInfo info;
        PetscReal          err;

        PetscCall(VIContactSolverSetALScale(solver, scales[s]));
        PetscCall(Solve(solver, type, 1.0, &set, d, G, cases[t].c, x, &info));
        err = DiffInf(d, x, want);
        CHECK(info.converged && err <= 1e-12, "%s %s s = %g: x = (%.15g, %.15g, %.15g), expected (%.15g, %.15g, %.15g), error %g > 1e-12",
              cases[t].what, VIContactSolverTypes[type], (double)scales[s], (double)x[0], (double)x[1], (double)(d > 2 ? x[2] : 0), (double)want[0],
              (double)want[1], (double)(d > 2 ? want[2] : 0), (double)err);
        if (s == 0 && type == VI_CONTACT_SOLVER_JACOBI)
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-28s x = (%g, %g, %g)", cases[t].what, (double)x[0], (double)x[1], (double)(d > 2 ? x[2] : 0)));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s s=%g: %" PetscInt_FMT " it err %.0e", type == VI_CONTACT_SOLVER_JACOBI ? "J" : "GS",
                              (double)scales[s], info.iterations, (double)err));
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  }
  PetscCall(VIContactSolverDestroy(&solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* eps after Studer: 1 / G_ii for diagonally dominant G (one Jacobi step from 0 is exact on a lone active contact), else
   1 / sum_j |G_ij|. */
static PetscErrorCode TestStuderStep(void)
{
  VIContactSolver    solver;
  VIContactSolveInfo info;
  PetscInt           dims[2] = {1, 1};
  VIContactSet       one = {1, dims, NULL, NULL, NULL}, two = {2, dims, NULL, NULL, NULL};
  PetscReal          x[2];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "augmented-Lagrangian parameter after Studer (one Jacobi step, omega = 1, from x = 0):\n"));
  PetscCall(VIContactSolverCreate(PETSC_COMM_SELF, &solver));
  PetscCall(VIContactSolverSetTolerances(solver, 1e-14, 1));
  {
    const PetscReal G[1] = {4}, c[1] = {-3};
    PetscCall(Solve(solver, VI_CONTACT_SOLVER_JACOBI, 1.0, &one, 1, G, c, x, &info));
    CHECK(x[0] == 0.75 && info.converged && info.iterations == 1,
          "m = 1, G = 4, c = -3: x = %.17g after %" PetscInt_FMT " step(s), expected exactly 0.75", (double)x[0], info.iterations);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  m = 1, G = 4, c = -3:                   x = %.17g (exact 0.75), %" PetscInt_FMT " step, residual %g\n",
                          (double)x[0], info.iterations, (double)info.residual));
    /* over-relaxation: x <- (1 - omega) x + omega proj(...) = 1.5 * 0.75 */
    PetscCall(Solve(solver, VI_CONTACT_SOLVER_JACOBI, 1.5, &one, 1, G, c, x, &info));
    CHECK(x[0] == 1.125 && !info.converged, "omega = 1.5: x = %.17g after one step, expected exactly 1.125", (double)x[0]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  same, -contact_relaxation 1.5:          x = %.17g (exact 1.125)\n", (double)x[0]));
  }
  {
    /* dominant: eps = (1/4, 1/3); contact 2 stays open (y_2 = 0.75 + 10 > 0) */
    const PetscReal G[4] = {4, 1, 1, 3}, c[2] = {-3, 10};
    PetscCall(Solve(solver, VI_CONTACT_SOLVER_JACOBI, 1.0, &two, 2, G, c, x, &info));
    CHECK(x[0] == 0.75 && x[1] == 0 && info.converged && info.iterations == 1,
          "dominant G = [4 1; 1 3]: x = (%.17g, %.17g) after one step, expected (0.75, 0)", (double)x[0], (double)x[1]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  G = [4 1; 1 3], c = (-3, 10):           x = (%.17g, %g) (exact (0.75, 0)), converged %d\n",
                          (double)x[0], (double)x[1], (int)info.converged));
    PetscCall(VIContactSolverSetALScale(solver, 0.5));
    PetscCall(Solve(solver, VI_CONTACT_SOLVER_JACOBI, 1.0, &two, 2, G, c, x, &info));
    CHECK(x[0] == 0.375 && x[1] == 0 && !info.converged, "s = 0.5: x = (%.17g, %.17g) after one step, expected (0.375, 0)", (double)x[0],
          (double)x[1]);
    PetscCall(
        PetscPrintf(PETSC_COMM_WORLD, "  same, -contact_al_scale 0.5:            x = (%.17g, %g) (exact (0.375, 0))\n", (double)x[0], (double)x[1]));
    PetscCall(VIContactSolverSetALScale(solver, 1.0));
  }
  {
    /* both contacts close: Jacobi steps to (3/4, 1/3), Gauss-Seidel uses x_1 = 3/4 at once: x_2 = (1 - 3/4) / 3 */
    const PetscReal G[4] = {4, 1, 1, 3}, c[2] = {-3, -1};
    PetscCall(Solve(solver, VI_CONTACT_SOLVER_JACOBI, 1.0, &two, 2, G, c, x, &info));
    CHECK(x[0] == 0.75 && PetscAbsReal(x[1] - 1.0 / 3) <= 1e-16, "jacobi, c = (-3, -1): x = (%.17g, %.17g) after one step, expected (0.75, 1/3)",
          (double)x[0], (double)x[1]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  G = [4 1; 1 3], c = (-3, -1), jacobi:   x = (%.17g, %.17g) (exact (3/4, 1/3))\n", (double)x[0],
                          (double)x[1]));
    PetscCall(Solve(solver, VI_CONTACT_SOLVER_GAUSS_SEIDEL, 1.0, &two, 2, G, c, x, &info));
    CHECK(x[0] == 0.75 && PetscAbsReal(x[1] - 1.0 / 12) <= 1e-16,
          "gauss_seidel, c = (-3, -1): x = (%.17g, %.17g) after one sweep, expected (0.75, 1/12)", (double)x[0], (double)x[1]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  same, gauss_seidel:                     x = (%.17g, %.17g) (exact (3/4, 1/12))\n", (double)x[0],
                          (double)x[1]));
  }
  {
    /* not dominant (row 1: 1 < 2): eps = (1/3, 1/7); the solution is x = (3, 0), the first step gives (1, 0) */
    const PetscReal G[4] = {1, 2, 2, 5}, c[2] = {-3, 10};
    PetscCall(Solve(solver, VI_CONTACT_SOLVER_JACOBI, 1.0, &two, 2, G, c, x, &info));
    CHECK(PetscAbsReal(x[0] - 1) <= 1e-15 && x[1] == 0 && !info.converged && info.iterations == 1,
          "non-dominant G = [1 2; 2 5]: x = (%.17g, %.17g) after one step, expected (1, 0) from eps_1 = 1/3", (double)x[0], (double)x[1]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  G = [1 2; 2 5], c = (-3, 10):           x = (%.17g, %g) (expected (1, 0): eps_1 = 1/(1+2))\n",
                          (double)x[0], (double)x[1]));
  }
  PetscCall(VIContactSolverDestroy(&solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Bad input: each call fails with its code and a message naming the culprit, leaks nothing, and leaves a usable solver. */

static PetscErrorCode ExpectError(const char what[], PetscErrorCode err, PetscErrorCode code, const char word[])
{
  PetscFunctionBeginUser;
  CHECK(err == code && strstr(Captured, word), "%s: expected error %d naming '%s', got %d: %s", what, (int)code, word, (int)err, Captured);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-26s error %d: %s\n", what, (int)err, Captured));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TryOption(VIContactSolver solver, const char name[], const char value[], const char word[])
{
  PetscErrorCode err;
  char           what[64];

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, name, value));
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  err = VIContactSolverSetFromOptions(solver);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscOptionsClearValue(NULL, name));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s %s", name, value));
  PetscCall(ExpectError(what, err, PETSC_ERR_USER_INPUT, word));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TrySolve(VIContactSolver solver, const char what[], const VIContactSet *set, PetscInt m, PetscErrorCode code, const char word[])
{
  PetscReal      G[25], c[5] = {-1, 0, 0, 0, 0}, x[5] = {0};
  PetscErrorCode err;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(G, 25));
  for (PetscInt i = 0; i < 5; i++) G[i * 5 + i] = 1;
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  err = VIContactSolverSolve(solver, set, m, G, c, x, NULL);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(what, err, code, word));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestBadInput(void)
{
  VIContactSolver solver;
  PetscLogDouble  before, after;
  PetscInt        bad_dims[2] = {1, 4}, dims[2] = {1, 3};
  PetscReal       mu[2] = {0.3, 0.3}, bad_mu[2] = {0.3, -0.1};
  VIContactSet    set4 = {2, bad_dims, mu, NULL, NULL}, set = {2, dims, mu, NULL, NULL}, set_mu = {2, dims, bad_mu, NULL, NULL},
               set_nomu = {2, dims, NULL, NULL, NULL};
  PetscErrorCode     err;
  VIContactSolveInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bad input:\n"));
  PetscCall(PetscMallocGetCurrentUsage(&before));
  PetscCall(VIContactSolverCreate(PETSC_COMM_SELF, &solver));
  PetscCall(TrySolve(solver, "dims[1] = 4", &set4, 5, PETSC_ERR_ARG_WRONG, "dims[1] = 4"));
  PetscCall(TrySolve(solver, "m = 5, sum(dims) = 4", &set, 5, PETSC_ERR_ARG_WRONG, "m = 5"));
  PetscCall(TrySolve(solver, "mu[1] = -0.1", &set_mu, 4, PETSC_ERR_ARG_WRONG, "mu[1]"));
  PetscCall(TrySolve(solver, "mu NULL with dims 3", &set_nomu, 4, PETSC_ERR_ARG_NULL, "mu is NULL"));
  {
    VIContactKind bil[2] = {VI_CONTACT_UNILATERAL, VI_CONTACT_BILATERAL}, junk[2] = {VI_CONTACT_UNILATERAL, (VIContactKind)7};
    VIContactSet  set_bil = {2, dims, mu, NULL, bil}, set_junk = {2, dims, mu, NULL, junk};
    PetscCall(TrySolve(solver, "bilateral contact with dims 3", &set_bil, 4, PETSC_ERR_ARG_WRONG, "bilateral with dims = 3"));
    PetscCall(TrySolve(solver, "kinds[1] = 7", &set_junk, 4, PETSC_ERR_ARG_WRONG, "kinds[1] = 7"));
  }
  PetscCall(TryOption(solver, "-contact_relaxation", "2.5", "-contact_relaxation 2.5"));
  PetscCall(TryOption(solver, "-contact_relaxation", "0", "-contact_relaxation 0"));
  PetscCall(TryOption(solver, "-contact_tol", "0", "-contact_tol 0"));
  PetscCall(TryOption(solver, "-contact_max_it", "0", "-contact_max_it 0"));
  PetscCall(TryOption(solver, "-contact_al_scale", "-1", "-contact_al_scale -1"));
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  err = VIContactSolverSetRelaxation(solver, 2.0);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError("SetRelaxation(2)", err, PETSC_ERR_ARG_OUTOFRANGE, "omega = 2"));
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  err = VIContactSolverSetTolerances(solver, 0, 10);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError("SetTolerances(0, 10)", err, PETSC_ERR_ARG_OUTOFRANGE, "tol = 0"));

  /* the solver is unharmed and good options are taken */
  PetscCall(PetscOptionsSetValue(NULL, "-contact_solver", "gauss_seidel"));
  PetscCall(PetscOptionsSetValue(NULL, "-contact_max_it", "1"));
  PetscCall(VIContactSolverSetFromOptions(solver));
  PetscCall(PetscOptionsClearValue(NULL, "-contact_solver"));
  PetscCall(PetscOptionsClearValue(NULL, "-contact_max_it"));
  {
    const PetscReal G[16] = {4, 1, 0, 0, 1, 3, 0, 0, 0, 0, 4, 1, 0, 0, 1, 3}, c[4] = {-3, 10, -3, 10};
    PetscInt        d4[4] = {1, 1, 1, 1};
    VIContactSet    s4    = {4, d4, NULL, NULL, NULL};
    PetscReal       x[4]  = {0};
    /* Gauss-Seidel: x_1 = 0.75, then x_2 = 0 with y_2 = 10.75; converged after one sweep */
    PetscCall(VIContactSolverSolve(solver, &s4, 4, G, c, x, &info));
    CHECK(info.converged && info.iterations == 1 && x[0] == 0.75 && x[2] == 0.75,
          "after the rejected options: %" PetscInt_FMT " iterations, x = (%g, %g)", info.iterations, (double)x[0], (double)x[2]);
  }
  PetscCall(VIContactSolverDestroy(&solver));
  PetscCall(VIContactSolverDestroy(&solver)); /* safe on NULL */
  PetscCall(PetscMallocGetCurrentUsage(&after));
  CHECK(after == before, "bad input leaked %g bytes", after - before);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  allocated before %g, after %g bytes: no leak; the solver took -contact_solver gauss_seidel afterwards\n",
                        before, after));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunTests(void)
{
  PetscRandom     rnd;
  VIContactSolver solver;
  PetscLogDouble  before, after;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 20240611));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VIContactSolverCreate(PETSC_COMM_SELF, &solver)); /* registers the log event, which stays */
  PetscCall(VIContactSolverDestroy(&solver));
  PetscCall(PetscMallocGetCurrentUsage(&before));
  PetscCall(TestProjections());
  PetscCall(TestNormalOnly(rnd));
  PetscCall(TestFriction(rnd));
  PetscCall(TestBilateral(rnd));
  PetscCall(TestSingleContact());
  PetscCall(TestStuderStep());
  PetscCall(TestBadInput());
  PetscCall(PetscMallocGetCurrentUsage(&after));
  CHECK(after == before, "the tests leaked %g bytes (solvers grown from m = 1 to 30 and destroyed)", after - before);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all solvers destroyed: allocated %g bytes before the tests, %g after\n", before, after));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  ierr = RunTests();
  if (ierr) {
    (void)PetscPrintf(PETSC_COMM_WORLD, "test_contact: FAILED (error %d)\n", (int)ierr);
    return 1;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_contact: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
