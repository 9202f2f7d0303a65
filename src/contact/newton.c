/*
  Semi-smooth Newton solver of the contact inclusion -(G x + c) ∈ N_C(x), on its natural map (Alart & Curnier 1991):

      F(x) = x - z(x),   z = proj_C(x - E (G x + c))   (seed 000 Eqs. C.2-C.4; E = diag(eps) as for the relaxations),

  whose zeros are the solutions whatever E > 0. F is piecewise smooth; a generalized Jacobian is J = I - P (I - E G),
  P the derivative of the projection at xi = x - E y, block diagonal per contact:
    normal        dz_n = [xi_n > 0] dxi_n                     (bilateral: dz_n = dxi_n, the row is always closed)
    tangent, r = mu (z_n + preload):
      r = 0       dz_t = 0                                   (the contact carries no normal force)
      |xi_t| <= r dz_t = dxi_t                               (stick)
      |xi_t| >  r dz_t = r/|xi_t| (I - s s^T) dxi_t + mu s dz_n,  s = xi_t / |xi_t|   (slip)
  Rows with P = 0 (open contacts) have J = I: their step is d = -F, i.e. x = 0 at once; the others form a system of the
  closed contacts' rows only, solved by LU (LAPACK).

  Each solve factors the Jacobian at its starting point (a warm start: the last step's forces), and keeps the factors
  while the pattern of open/closed/stick/slip rows stays the same, as a chord method. A chord step that does not halve
  ||F|| is redone with a fresh Jacobian; one that reduces ||F|| less than fiftyfold is kept, and the next iteration
  takes a fresh Jacobian; a fresh Newton step that does not decrease ||F|| is damped (backtracking); if that fails too
  the caller finishes with projected Jacobi from the current iterate. Nothing is kept from one solve to the next but
  the operator (G and eps, VIContactSolverSetOperator): a solve's result depends on its inputs only, so that a run
  resumed from a checkpoint repeats the uninterrupted run bit for bit.

  Every trial point costs one product G x and counts as one iteration, as one sweep of the relaxations does.
*/
#include <string.h>
#include "contactimpl.h"

PetscErrorCode VIContactNewtonDestroy(VIContactSolver s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree7(s->J, s->F, s->d, s->xt, s->yt, s->zt, s->P));
  PetscCall(PetscFree4(s->pivots, s->pattern, s->lu_pattern, s->keep));
  s->n_alloc  = 0;
  s->lu_valid = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIContactNewtonAlloc(VIContactSolver s, PetscInt m)
{
  PetscFunctionBeginUser;
  if (m <= s->n_alloc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIContactNewtonDestroy(s));
  /* J holds the kept rows of the Jacobian (nkeep x m) and then the LU factors of its kept columns (nkeep x nkeep) */
  PetscCall(PetscMalloc7(2 * m * m, &s->J, 2 * m, &s->F, m, &s->d, m, &s->xt, m, &s->yt, m, &s->zt, 3 * m, &s->P));
  PetscCall(PetscMalloc4(m, &s->pivots, m, &s->pattern, m, &s->lu_pattern, m, &s->keep));
  s->n_alloc = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P (m x 3: row i, derivative of z_i with respect to xi of the rows of its contact, normal first) and the pattern of each
   row at xi = x - E y, z = proj_C(xi) as VIContactProject computed it. */
static void VIContactLinearize(const VIContactSet *set, const PetscReal eps[], const PetscReal x[], const PetscReal y[], const PetscReal z[],
                               PetscReal P[], PetscInt pattern[])
{
  PetscInt row = 0;

  for (PetscInt j = 0; j < set->num_contacts; j++) {
    const PetscInt  d      = set->dims[j];
    const PetscBool closed = VIContactSetIsBilateral(set, j) || x[row] - eps[row] * y[row] > 0 ? PETSC_TRUE : PETSC_FALSE;

    for (PetscInt k = 0; k < 3 * d; k++) P[3 * row + k] = 0;
    P[3 * row]   = closed ? 1 : 0;
    pattern[row] = closed ? 1 : 0;
    if (d > 1) {
      const PetscReal mu = set->mu[j], r = mu * (z[row] + (set->preload ? set->preload[j] : 0));
      PetscReal       xi[2] = {0, 0}, norm = 0;

      for (PetscInt k = 1; k < d; k++) {
        xi[k - 1] = x[row + k] - eps[row + k] * y[row + k];
        norm += xi[k - 1] * xi[k - 1];
      }
      norm = PetscSqrtReal(norm);
      for (PetscInt a = 1; a < d; a++) {
        PetscReal *Pa = P + 3 * (row + a);
        if (r <= 0) {
          pattern[row + a] = 0;
        } else if (norm <= r) {
          pattern[row + a] = 2;
          Pa[a]            = 1;
        } else {
          const PetscReal sa = xi[a - 1] / norm;
          pattern[row + a]   = 3;
          Pa[0]              = closed ? mu * sa : 0;
          for (PetscInt b = 1; b < d; b++) Pa[b] = r / norm * ((a == b ? 1 : 0) - sa * xi[b - 1] / norm);
        }
      }
    }
    row += d;
  }
}

/* The Jacobian's rows of the closed rows (pattern != 0) at the current linearization, and the LU factors of their
   closed columns. Returns PETSC_FALSE in *ok when the matrix is singular. */
static PetscErrorCode VIContactNewtonFactor(VIContactSolver s, const VIContactSet *set, PetscBool *ok)
{
  const PetscInt   m = s->m;
  const PetscReal *G = s->G;
  PetscReal       *Jr, *LU;
  PetscInt         row = 0, nk = 0;
  PetscBLASInt     bn, info;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < m; i++)
    if (s->pattern[i]) s->keep[nk++] = i;
  s->nkeep = nk;
  Jr       = s->J;
  LU       = s->J + nk * m;
  /* J_i = e_i - P_i + sum_k P_ik eps_k G_k, k over the rows of row i's contact */
  for (PetscInt j = 0, a = 0; j < set->num_contacts; row += set->dims[j], j++) {
    const PetscInt d = set->dims[j];
    for (PetscInt r = 0; r < d; r++) {
      const PetscInt   i  = row + r;
      const PetscReal *Pi = s->P + 3 * i;
      PetscReal       *Ji;

      if (!s->pattern[i]) continue;
      Ji = Jr + a * m;
      for (PetscInt col = 0; col < m; col++) Ji[col] = 0;
      for (PetscInt k = 0; k < d; k++) {
        const PetscReal w = Pi[k] * s->eps[row + k];
        if (w == 0) continue;
        for (PetscInt col = 0; col < m; col++) Ji[col] += w * G[(row + k) * m + col];
        Ji[row + k] -= Pi[k];
      }
      Ji[i] += 1;
      a++;
    }
  }
  /* column-major for LAPACK: LU(a, b) = J(keep[a], keep[b]) at a + b nk */
  for (PetscInt a = 0; a < nk; a++)
    for (PetscInt b = 0; b < nk; b++) LU[b * nk + a] = Jr[a * m + s->keep[b]];
  PetscCall(PetscBLASIntCast(nk, &bn));
  info = 0;
  if (nk) PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&bn, &bn, LU, &bn, s->pivots, &info));
  s->factorizations++;
  *ok         = info == 0 ? PETSC_TRUE : PETSC_FALSE;
  s->lu_valid = *ok;
  if (*ok) PetscCall(PetscArraycpy(s->lu_pattern, s->pattern, m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d = -J^-1 F with the stored factors: open rows d = -F, closed rows from J_KK d_K = -F_K - J_K,open d_open. */
static PetscErrorCode VIContactNewtonDirection(VIContactSolver s)
{
  const PetscInt m = s->m, nk = s->nkeep;
  PetscReal     *Jr = s->J, *LU = s->J + nk * m, *rhs = s->zt; /* zt is free between trial points */
  PetscBLASInt   bn, one = 1, info;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < m; i++) s->d[i] = s->lu_pattern[i] ? 0 : -s->F[i];
  for (PetscInt a = 0; a < nk; a++) {
    const PetscReal *Ja  = Jr + a * m;
    PetscReal        sum = -s->F[s->keep[a]];
    for (PetscInt col = 0; col < m; col++) sum -= Ja[col] * s->d[col];
    rhs[a] = sum;
  }
  PetscCall(PetscBLASIntCast(nk, &bn));
  if (nk) PetscCallBLAS("LAPACKgetrs", LAPACKgetrs_("N", &bn, &one, LU, &bn, s->pivots, rhs, &bn, &info));
  for (PetscInt a = 0; a < nk; a++) s->d[s->keep[a]] = rhs[a];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal VINorm2(PetscInt m, const PetscReal v[])
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < m; i++) s += v[i] * v[i];
  return PetscSqrtReal(s);
}

/* The trial point xt = x + alpha d: yt, zt, F(xt) into Ft and its norm into merit; returns the residual of xt. */
static PetscReal VIContactNewtonTrial(VIContactSolver s, const VIContactSet *set, const PetscReal c[], const PetscReal x[], PetscReal alpha,
                                      PetscReal Ft[], PetscReal *merit)
{
  const PetscInt m = s->m;
  PetscReal      res;

  for (PetscInt i = 0; i < m; i++) s->xt[i] = x[i] + alpha * s->d[i];
  VIContactResidualForce(m, s->G, c, s->xt, s->yt);
  res = VIContactProject(set, s->eps, s->xt, s->yt, s->zt);
  for (PetscInt i = 0; i < m; i++) Ft[i] = s->xt[i] - s->zt[i];
  *merit = VINorm2(m, Ft);
  return res;
}

PetscErrorCode VIContactSolveNewton(VIContactSolver s, const VIContactSet *set, const PetscReal c[], PetscReal x[], PetscInt *iterations,
                                    PetscReal *residual)
{
  const PetscInt m  = s->m;
  PetscInt       it = 0;
  PetscReal      res, merit, *Ft;
  PetscBool      slow = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(VIContactNewtonAlloc(s, m));
  s->lu_valid = PETSC_FALSE;
  Ft          = s->F + m;
  VIContactResidualForce(m, s->G, c, x, s->y);
  res = VIContactProject(set, s->eps, x, s->y, s->z);
  for (PetscInt i = 0; i < m; i++) s->F[i] = x[i] - s->z[i];
  merit = VINorm2(m, s->F);
  while (res > s->tol && it < s->max_it && !PetscIsInfOrNanReal(res)) {
    PetscBool fresh = PETSC_FALSE, ok = PETSC_TRUE, accepted = PETSC_FALSE;
    PetscReal rt = 0, mt = 0;

    VIContactLinearize(set, s->eps, x, s->y, s->z, s->P, s->pattern);
    if (!s->lu_valid || slow || memcmp(s->pattern, s->lu_pattern, sizeof(PetscInt) * m)) {
      PetscCall(VIContactNewtonFactor(s, set, &ok));
      fresh = PETSC_TRUE;
    }
    if (!ok) break;
    PetscCall(VIContactNewtonDirection(s));
    rt = VIContactNewtonTrial(s, set, c, x, 1.0, Ft, &mt);
    it++;
    /* a chord step (stored factors) must halve ||F||, a fresh Newton step decrease it */
    if (mt <= (fresh ? 1 - 1e-4 : 0.5) * merit)
      accepted = PETSC_TRUE;
    else if (!fresh && it < s->max_it) {
      PetscCall(VIContactNewtonFactor(s, set, &ok));
      if (!ok) break;
      PetscCall(VIContactNewtonDirection(s));
      rt = VIContactNewtonTrial(s, set, c, x, 1.0, Ft, &mt);
      it++;
      fresh = PETSC_TRUE;
      if (mt <= (1 - 1e-4) * merit) accepted = PETSC_TRUE;
    }
    /* backtracking on the fresh Newton direction */
    for (PetscReal alpha = 0.5; !accepted && alpha > 1e-3 && it < s->max_it; alpha *= 0.5) {
      rt = VIContactNewtonTrial(s, set, c, x, alpha, Ft, &mt);
      it++;
      if (mt <= (1 - 1e-4 * alpha) * merit) accepted = PETSC_TRUE;
    }
    if (!accepted) break; /* the caller goes on with projected Jacobi from x */
    /* a chord step that reduced ||F|| less than fiftyfold: the factors are too old, refresh them at the next point */
    slow = !fresh && mt > 0.02 * merit ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscArraycpy(x, s->xt, m));
    PetscCall(PetscArraycpy(s->y, s->yt, m));
    PetscCall(PetscArraycpy(s->z, s->zt, m));
    PetscCall(PetscArraycpy(s->F, Ft, m));
    res   = rt;
    merit = mt;
  }
  *iterations = it;
  *residual   = res;
  PetscFunctionReturn(PETSC_SUCCESS);
}
