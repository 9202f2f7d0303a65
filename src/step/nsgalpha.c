/* Nonsmooth generalized-alpha scheme with constraints enforced at position and velocity level (seed 002, Brüls, Acary &
   Cardona 2014): the smooth motion (q~, v~, vdot~) by generalized-alpha (Eqs. 30, 31), the impulsive part W, Lambda by
   Moreau–Jean (Eqs. 29f, 29h), and the GGL-like position correction U, nu (Eqs. 17, 28, 29c, 29e), solved together each
   step by a semi-smooth Newton method on the complementarity conditions (Eqs. 37, 38).

   For a system with constant M, D, K (f = f_ext(t) - D v - K q) the unknowns of a step reduce exactly to the multipliers:
   with S = c M + D + (h beta / gamma) K, c = (1 - alpha_m) / ((1 - alpha_f) gamma h), the iteration matrix (seed 002
   Eq. 45, S_t* / h) factored once per step size, and the predictor q~0, v~0 of Eq. (40),
     delta = v~ - v~0 = S^-1 (f - D v~0 - K q~0) - S^-1 K M^-1 G^T nu - S^-1 D M^-1 G^T Lambda     (Eq. 29a)
     U = M^-1 G^T nu (Eq. 29c),  W = M^-1 G^T Lambda (Eq. 29f),  q~ = q~0 + (h beta / gamma) delta,  vdot~ = c delta,
   so the position gaps g(q~ + U) and the velocity constraints G (v~ + W) + e G_n v_n are affine in (nu, Lambda): a
   2 m x 2 m mixed complementarity problem (m contacts) that the semi-smooth Newton method solves by active sets (Eq. 38),
   each iteration an exact Newton step of the full matrix S_t of Eq. (44) (its Schur complement on the multipliers).

   The gaps and their gradient G = dg/dq come from the system (VISystemEvaluateConstraints) at the predicted position,
   not from fixed ROM rows, so a system with q-dependent constraints plugs in here; the cached Schur blocks are rebuilt
   when G changes. Frictionless and unilateral only (the paper's scope): friction is refused at set-up. */
#include "stepimpl.h"
#include <petscblaslapack.h>

typedef struct {
  PetscReal  alpha_m, alpha_f, gamma, beta, c; /* Eq. (31); c = (1 - alpha_m) / ((1 - alpha_f) gamma h) */
  PetscReal *Sinv, *SD, *SK, *Minv;            /* n x n: S^-1, S^-1 D, S^-1 K, M^-1 */
  PetscReal *vdt, *a;                          /* vdot~_n and the pseudo-acceleration a_n (state) */
  PetscReal *qt0, *vt0, *s0, *delta, *work;    /* n: predictor, S^-1 r0, the smooth correction */
  PetscReal *fprev, *qprev, *uprev;            /* energy bookkeeping (state) */
  PetscBool  first;
  /* constraints: gradient G (m x n) at the predictor, the one the cached blocks were built with, X = M^-1 G^T, Y = S^-1 K X,
     Z = S^-1 D X (n x m, column j contiguous: X + j n), and G X, G Y, G Z (m x m) */
  PetscReal    *G, *Gc, *X, *Y, *Z, *GX, *GY, *GZ;
  PetscBool     have_blocks;
  PetscReal    *g, *grate, *gprev_rate, *Gprev, *bp, *bv, *gt, *nu, *lam, *rscale;
  PetscReal    *J, *rhs;
  PetscBLASInt *ipiv;
  PetscBool    *setA, *setB, *newA, *newB;
  PetscInt      max_it;
  VIRowSplit    rows;
} VINSGAlpha;

/* Eq. (31): the generalized-alpha parameters from the spectral radius at infinity. */
static void VINSGAlphaParameters(PetscReal rho, VINSGAlpha *ns)
{
  ns->alpha_m = (2 * rho - 1) / (rho + 1);
  ns->alpha_f = rho / (rho + 1);
  ns->gamma   = 0.5 + ns->alpha_f - ns->alpha_m;
  ns->beta    = 0.25 * (ns->gamma + 0.5) * (ns->gamma + 0.5);
}

static PetscErrorCode VIStepperSetUp_NSGAlpha(VIStepper st)
{
  VINSGAlpha *ns = (VINSGAlpha *)st->data;
  PetscInt    n = st->n, m = st->nc, mm = PetscMax(m, 1);
  PetscReal   h = st->dt;

  PetscFunctionBeginUser;
  PetscCheck(st->rho_inf >= 0 && st->rho_inf <= 1, st->comm, PETSC_ERR_USER_INPUT, "-step_rho_inf: got %g, expected a spectral radius in [0, 1]",
             (double)st->rho_inf);
  for (PetscInt j = 0; j < m; j++) {
    PetscCheck(!(st->sys->dims[j] > 1 && st->sys->mu[j] > 0), st->comm, PETSC_ERR_SUP,
               "-step_type nsgalpha is frictionless (seed 002): contact %" PetscInt_FMT " has friction (-contact_mu %g); use -step_type moreau "
               "or leapfrog for Coulomb friction, or -contact_mu 0",
               j, (double)st->sys->mu[j]);
    PetscCheck(st->sys->preload[j] == 0, st->comm, PETSC_ERR_SUP,
               "-step_type nsgalpha does not take preloaded contacts (-contact_preload %g): use -step_type moreau or leapfrog",
               (double)st->sys->preload[j]);
  }
  VINSGAlphaParameters(st->rho_inf, ns);
  ns->c = (1 - ns->alpha_m) / ((1 - ns->alpha_f) * ns->gamma * h);
  PetscCall(PetscCalloc4(n * n, &ns->Sinv, n * n, &ns->SD, n * n, &ns->SK, n * n, &ns->Minv));
  PetscCall(PetscCalloc5(n, &ns->vdt, n, &ns->a, n, &ns->qt0, n, &ns->vt0, n, &ns->s0));
  PetscCall(PetscCalloc5(n, &ns->delta, n, &ns->work, n, &ns->fprev, n, &ns->qprev, n, &ns->uprev));
  PetscCall(PetscCalloc5(mm * n, &ns->G, mm * n, &ns->Gc, mm * n, &ns->X, mm * n, &ns->Y, mm * n, &ns->Z));
  PetscCall(PetscCalloc4(mm * mm, &ns->GX, mm * mm, &ns->GY, mm * mm, &ns->GZ, mm * n, &ns->Gprev));
  PetscCall(PetscCalloc5(mm, &ns->g, mm, &ns->grate, mm, &ns->gprev_rate, mm, &ns->bp, mm, &ns->bv));
  PetscCall(PetscCalloc4(mm, &ns->gt, mm, &ns->nu, mm, &ns->lam, mm, &ns->rscale));
  PetscCall(PetscCalloc3(4 * mm * mm, &ns->J, 2 * mm, &ns->rhs, 2 * mm, &ns->ipiv));
  PetscCall(PetscCalloc4(mm, &ns->setA, mm, &ns->setB, mm, &ns->newA, mm, &ns->newB));
  /* M^-1 (Eqs. 29c, 29f: U = M^-1 G^T nu, W = M^-1 G^T Lambda need a nonsingular M) */
  PetscCall(PetscArraycpy(ns->Minv, st->M, n * n));
  PetscCall(VIInvertSPD(st->comm, n, ns->Minv,
                        "-step_type nsgalpha: the mass matrix M (the position and velocity corrections U = M^-1 G^T nu, W = M^-1 G^T Lambda of seed "
                        "002 Eqs. (29c, 29f) need it nonsingular)"));
  /* S = c M + D + (h beta / gamma) K, factored once per step size (seed 002 Eq. 45: S_t* / h) */
  for (PetscInt i = 0; i < n * n; i++) ns->Sinv[i] = ns->c * st->M[i] + st->D[i] + h * ns->beta / ns->gamma * st->K[i];
  {
    char what[256];
    PetscCall(PetscSNPrintf(
        what, sizeof(what),
        "-step_type nsgalpha: the iteration matrix c M + D + (h beta/gamma) K (c = %g, h beta/gamma = %g, -step_dt %g, -step_rho_inf %g; "
        "seed 002 Eq. 45)",
        (double)ns->c, (double)(h * ns->beta / ns->gamma), (double)h, (double)st->rho_inf));
    PetscCall(VIInvertSPD(st->comm, n, ns->Sinv, what));
  }
  PetscCall(VIMatMat(n, n, ns->Sinv, st->D, 1.0, ns->SD, n));
  PetscCall(VIMatMat(n, n, ns->Sinv, st->K, 1.0, ns->SK, n));
  ns->max_it      = st->nsgalpha_max_it;
  ns->have_blocks = PETSC_FALSE;
  ns->first       = PETSC_TRUE;
  PetscCall(VIRowSplitCreate(st->comm, n, 1, &ns->rows));
  /* what the next step reads before writing it (checkpoints); q and u are the stepper's */
  PetscCall(VIStepperRegisterState(st, "nsgalpha_vdot", n, ns->vdt, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_a", n, ns->a, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_fprev", n, ns->fprev, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_qprev", n, ns->qprev, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_first", 1, NULL, &ns->first));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X = M^-1 G^T, Y = S^-1 K X, Z = S^-1 D X and their projections G X, G Y, G Z, for the gradient G of this step. */
static void VINSGAlphaBlocks(VIStepper st, VINSGAlpha *ns)
{
  PetscInt n = st->n, m = st->nc;

  for (PetscInt j = 0; j < m; j++) {
    VIMatVec(n, n, ns->Minv, n, ns->G + j * n, 0.0, ns->X + j * n);
    VIMatVec(n, n, ns->SK, n, ns->X + j * n, 0.0, ns->Y + j * n);
    VIMatVec(n, n, ns->SD, n, ns->X + j * n, 0.0, ns->Z + j * n);
  }
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) {
      PetscReal x = 0, y = 0, z = 0;
      for (PetscInt k = 0; k < n; k++) {
        x += ns->G[i * n + k] * ns->X[j * n + k];
        y += ns->G[i * n + k] * ns->Y[j * n + k];
        z += ns->G[i * n + k] * ns->Z[j * n + k];
      }
      ns->GX[i * m + j] = x;
      ns->GY[i * m + j] = y;
      ns->GZ[i * m + j] = z;
    }
  for (PetscInt j = 0; j < m; j++) ns->rscale[j] = ns->GX[j * m + j] > 0 ? 1 / ns->GX[j * m + j] : 1;
  PetscArraycpy(ns->Gc, ns->G, m * n);
  ns->have_blocks = PETSC_TRUE;
}

static PetscReal VIDot(PetscInt n, const PetscReal a[], const PetscReal b[])
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* The complementarity functions at (nu, Lambda): gaps g = bp + Gpp nu + Gpv Lambda, velocities gv = bv + Gvp nu + Gvv Lambda, the
   gate g(q~) (Eq. 38), and the active sets A (position) and B (velocity) they define (Eq. 38). Returns the residual of Eq. (37). */
static PetscReal VINSGAlphaSets(VIStepper st, VINSGAlpha *ns, PetscBool A[], PetscBool B[])
{
  PetscInt  m  = st->nc;
  PetscReal hb = st->dt * ns->beta / ns->gamma, res = 0;

  for (PetscInt j = 0; j < m; j++) {
    PetscReal yz = 0, gx_nu = 0, gx_lam = 0, gp, gv, gate;
    for (PetscInt k = 0; k < m; k++) {
      yz += ns->GY[j * m + k] * ns->nu[k] + ns->GZ[j * m + k] * ns->lam[k];
      gx_nu += ns->GX[j * m + k] * ns->nu[k];
      gx_lam += ns->GX[j * m + k] * ns->lam[k];
    }
    gate = ns->bp[j] - hb * yz;
    gp   = gate + gx_nu;
    gv   = ns->bv[j] - yz + gx_lam;
    A[j] = ns->nu[j] - ns->rscale[j] * gp >= 0 ? PETSC_TRUE : PETSC_FALSE;
    B[j] = (gate <= 0 && ns->lam[j] - ns->rscale[j] * gv >= 0) ? PETSC_TRUE : PETSC_FALSE;
    /* Eq. (37e, h): nu - max(0, nu - r g) and Lambda - max(0, Lambda - r gv) (Lambda itself when the gate is closed), scaled back to a gap */
    res = PetscMax(res, PetscAbsReal(ns->nu[j] - PetscMax(0, ns->nu[j] - ns->rscale[j] * gp)) / ns->rscale[j]);
    res = PetscMax(res, PetscAbsReal(gate <= 0 ? ns->lam[j] - PetscMax(0, ns->lam[j] - ns->rscale[j] * gv) : ns->lam[j]) / ns->rscale[j] / st->dt);
  }
  return res;
}

/* One Newton step for given active sets: rows of A enforce g = 0, the others nu = 0; rows of B enforce gv = 0, the others Lambda = 0.
   J is assembled row-major, i.e. J^T column-major, and solved transposed. */
static PetscErrorCode VINSGAlphaSolveSets(VIStepper st, VINSGAlpha *ns, const PetscBool A[], const PetscBool B[])
{
  PetscInt     m = st->nc, m2 = 2 * m;
  PetscReal    hb = st->dt * ns->beta / ns->gamma, *J = ns->J;
  PetscBLASInt bm, one                                = 1, info;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(J, m2 * m2));
  for (PetscInt j = 0; j < m; j++) {
    PetscReal *rp = J + j * m2, *rv = J + (m + j) * m2;
    if (A[j]) {
      for (PetscInt k = 0; k < m; k++) {
        rp[k]     = ns->GX[j * m + k] - hb * ns->GY[j * m + k];
        rp[m + k] = -hb * ns->GZ[j * m + k];
      }
      ns->rhs[j] = -ns->bp[j];
    } else {
      rp[j]      = 1;
      ns->rhs[j] = 0;
    }
    if (B[j]) {
      for (PetscInt k = 0; k < m; k++) {
        rv[k]     = -ns->GY[j * m + k];
        rv[m + k] = ns->GX[j * m + k] - ns->GZ[j * m + k];
      }
      ns->rhs[m + j] = -ns->bv[j];
    } else {
      rv[m + j]      = 1;
      ns->rhs[m + j] = 0;
    }
  }
  PetscCall(PetscBLASIntCast(m2, &bm));
  PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&bm, &bm, J, &bm, ns->ipiv, &info));
  PetscCheck(info == 0, st->comm, PETSC_ERR_USER_INPUT,
             "-step_type nsgalpha: the contact Newton matrix is singular (getrf info %d): the active constraints' gradients are linearly dependent",
             (int)info);
  PetscCallBLAS("LAPACKgetrs", LAPACKgetrs_("T", &bm, &one, J, &bm, ns->ipiv, ns->rhs, &bm, &info));
  PetscCheck(info == 0, st->comm, PETSC_ERR_LIB, "getrs failed with info %d", (int)info);
  for (PetscInt j = 0; j < m; j++) {
    ns->nu[j]  = ns->rhs[j];
    ns->lam[j] = ns->rhs[m + j];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Semi-smooth Newton on Eqs. (37e, 37h) with the active sets of Eq. (38), from the predictor nu = Lambda = 0 (Eq. 40). */
static PetscErrorCode VINSGAlphaContacts(VIStepper st, VINSGAlpha *ns)
{
  PetscInt  m         = st->nc, it;
  PetscBool converged = PETSC_FALSE;
  PetscReal res       = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(ns->nu, m));
  PetscCall(PetscArrayzero(ns->lam, m));
  res = VINSGAlphaSets(st, ns, ns->setA, ns->setB);
  for (it = 0; it < ns->max_it; it++) {
    PetscBool same = PETSC_TRUE, any = PETSC_FALSE;
    for (PetscInt j = 0; j < m; j++) any = any || ns->setA[j] || ns->setB[j];
    if (!any && it == 0) {
      converged = PETSC_TRUE; /* free flight: no constraint is active, nothing to solve */
      break;
    }
    PetscCall(VINSGAlphaSolveSets(st, ns, ns->setA, ns->setB));
    res = VINSGAlphaSets(st, ns, ns->newA, ns->newB);
    for (PetscInt j = 0; j < m; j++) same = same && ns->newA[j] == ns->setA[j] && ns->newB[j] == ns->setB[j];
    if (same) {
      converged = PETSC_TRUE;
      it++;
      break;
    }
    PetscCall(PetscArraycpy(ns->setA, ns->newA, m));
    PetscCall(PetscArraycpy(ns->setB, ns->newB, m));
  }
  st->stats.contact_solves++;
  st->stats.contact_iterations += it;
  st->stats.contact_iterations_max = PetscMax(st->stats.contact_iterations_max, it);
  if (!converged) {
    st->stats.nonconverged++;
    st->stats.contact_residual_max = PetscMax(st->stats.contact_residual_max, res);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperStep_NSGAlpha(VIStepper st, PetscReal t)
{
  VINSGAlpha *ns  = (VINSGAlpha *)st->data;
  VISystem    sys = st->sys;
  PetscInt    n = st->n, m = st->nc;
  PetscReal   h = st->dt, e = st->restitution, *f = st->f, *q = st->q, *v = st->u;
  PetscReal   am = ns->alpha_m, af = ns->alpha_f, ga = ns->gamma, be = ns->beta, hb = h * be / ga;

  PetscFunctionBeginUser;
  PetscCall(VISystemEvaluateForce(sys, t, f));
  if (ns->first) {
    const PetscReal *q0, *u0;
    /* level 0: the initial state and a consistent smooth acceleration, M vdot~_0 = f(q0, v0, t0) (seed 002 Alg. 1), a_0 = vdot~_0 */
    PetscCall(VISystemGetInitialState(sys, &q0, &u0));
    PetscCall(PetscArraycpy(q, q0, n));
    PetscCall(PetscArraycpy(v, u0, n));
    for (PetscInt i = 0; i < n; i++) ns->work[i] = f[i] - VIDot(n, st->K + i * n, q) - VIDot(n, st->D + i * n, v);
    VIMatVec(n, n, ns->Minv, n, ns->work, 0.0, ns->vdt);
    PetscCall(PetscArraycpy(ns->a, ns->vdt, n));
    PetscCall(PetscArrayzero(st->lambda, st->nb));
  } else {
    /* predictor, Eq. (40): vdot~ = 0, U = W = 0 */
    for (PetscInt i = 0; i < n; i++) {
      PetscReal a0 = (af * ns->vdt[i] - am * ns->a[i]) / (1 - am);
      ns->vt0[i]   = v[i] + h * (1 - ga) * ns->a[i] + h * ga * a0;
      ns->qt0[i]   = q[i] + h * v[i] + h * h * (0.5 - be) * ns->a[i] + h * h * be * a0;
      ns->a[i]     = a0;
    }
    /* s0 = S^-1 (f - D v~0 - K q~0): the smooth correction without constraints (Eq. 29a), rows split over the group */
    for (PetscInt i = ns->rows.lo; i < ns->rows.hi; i++)
      ns->s0[i] = VIDot(n, ns->Sinv + i * n, f) - VIDot(n, ns->SD + i * n, ns->vt0) - VIDot(n, ns->SK + i * n, ns->qt0);
    PetscCall(VIRowSplitGather(&ns->rows, ns->s0));
    PetscCall(PetscArraycpy(ns->delta, ns->s0, n));
    PetscCall(PetscArrayzero(st->lambda, st->nb));
    if (m > 0) {
      /* the constraints from the system: gaps and gradient at the predicted position q~0 (Sec. 7.2: q* = q~), gradient and rate at
         level n for the pre-impact velocity of the impact law (Eq. 24) */
      PetscCall(VISystemEvaluateConstraints(sys, t - h, q, NULL, ns->Gprev, ns->gprev_rate));
      PetscCall(VISystemEvaluateConstraints(sys, t, ns->qt0, ns->g, ns->G, ns->grate));
      {
        PetscBool same = PETSC_FALSE;
        if (ns->have_blocks) PetscCall(PetscMemcmp(ns->G, ns->Gc, sizeof(PetscReal) * m * n, &same));
        if (!same) VINSGAlphaBlocks(st, ns);
      }
      for (PetscInt j = 0; j < m; j++) {
        const PetscReal *Gj  = ns->G + j * n;
        PetscReal        Gs0 = VIDot(n, Gj, ns->s0);
        ns->bp[j]            = ns->g[j] + hb * Gs0;
        ns->bv[j]            = VIDot(n, Gj, ns->vt0) + Gs0 + ns->grate[j] + e * (VIDot(n, ns->Gprev + j * n, v) + ns->gprev_rate[j]);
      }
      PetscCall(VINSGAlphaContacts(st, ns));
      /* delta = s0 - Y nu - Z Lambda; U = X nu, W = X Lambda added below through work (U) and lambda (W) */
      PetscCall(PetscArrayzero(ns->work, n));
      for (PetscInt j = 0; j < m; j++) {
        if (ns->nu[j] == 0 && ns->lam[j] == 0) continue;
        for (PetscInt i = 0; i < n; i++) {
          ns->delta[i] -= ns->Y[j * n + i] * ns->nu[j] + ns->Z[j * n + i] * ns->lam[j];
          ns->work[i] += ns->X[j * n + i] * ns->nu[j];
        }
      }
    } else
      PetscCall(PetscArrayzero(ns->work, n));
    /* Eq. (30): q = q~ + U, v = v~ + W, (1 - alpha_m) a + alpha_m a_n = (1 - alpha_f) vdot~ + alpha_f vdot~_n */
    PetscCall(PetscArraycpy(ns->uprev, v, n));
    for (PetscInt i = 0; i < n; i++) {
      PetscReal Wi = 0;
      for (PetscInt j = 0; j < m; j++) Wi += ns->X[j * n + i] * ns->lam[j];
      q[i]       = ns->qt0[i] + hb * ns->delta[i] + ns->work[i];
      v[i]       = ns->vt0[i] + ns->delta[i] + Wi;
      ns->vdt[i] = ns->c * ns->delta[i];
      ns->a[i] += (1 - af) / (1 - am) * ns->vdt[i];
    }
    /* the contact force on the boundary coordinates: Lambda / h (seed 002 Eq. 33), the mean force over the step */
    for (PetscInt j = 0; j < m; j++) {
      PetscReal vm                = 0.5 * (VIDot(n, ns->Gprev + j * n, ns->uprev) + VIDot(n, ns->G + j * n, v));
      st->lambda[sys->offsets[j]] = ns->lam[j] / h;
      st->energy.obstacle_work += ns->lam[j] * vm;
    }
    for (PetscInt i = 0; i < n; i++) {
      PetscReal vm_i = 0.5 * (ns->uprev[i] + v[i]), Dv = 0;
      for (PetscInt k = 0; k < n; k++) Dv += st->D[i * n + k] * 0.5 * (ns->uprev[k] + v[k]);
      st->energy.damping_dissipation += h * vm_i * Dv;
      st->energy.external_work += 0.5 * (ns->fprev[i] + f[i]) * (q[i] - ns->qprev[i]);
    }
  }
  if (m > 0) PetscCall(VISystemEvaluateConstraints(sys, t, q, st->gap, NULL, NULL));
  PetscCall(PetscArraycpy(ns->qprev, q, n));
  PetscCall(PetscArraycpy(ns->fprev, f, n));
  ns->first = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The whole step is done by the next call of step (it needs t_{n+1}); the state of level n stays as the step left it. */
static PetscErrorCode VIStepperAdvance_NSGAlpha(VIStepper st)
{
  PetscFunctionBeginUser;
  (void)st;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperDestroy_NSGAlpha(VIStepper st)
{
  VINSGAlpha *ns = (VINSGAlpha *)st->data;

  PetscFunctionBeginUser;
  if (!ns) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree4(ns->Sinv, ns->SD, ns->SK, ns->Minv));
  PetscCall(PetscFree5(ns->vdt, ns->a, ns->qt0, ns->vt0, ns->s0));
  PetscCall(PetscFree5(ns->delta, ns->work, ns->fprev, ns->qprev, ns->uprev));
  PetscCall(PetscFree5(ns->G, ns->Gc, ns->X, ns->Y, ns->Z));
  PetscCall(PetscFree4(ns->GX, ns->GY, ns->GZ, ns->Gprev));
  PetscCall(PetscFree5(ns->g, ns->grate, ns->gprev_rate, ns->bp, ns->bv));
  PetscCall(PetscFree4(ns->gt, ns->nu, ns->lam, ns->rscale));
  PetscCall(PetscFree3(ns->J, ns->rhs, ns->ipiv));
  PetscCall(PetscFree4(ns->setA, ns->setB, ns->newA, ns->newB));
  if (ns->rows.counts) PetscCall(VIRowSplitDestroy(&ns->rows));
  PetscCall(PetscFree(st->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperCreate_NSGAlpha(VIStepper st)
{
  VINSGAlpha *ns;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&ns));
  st->data        = ns;
  st->ops.setup   = VIStepperSetUp_NSGAlpha;
  st->ops.step    = VIStepperStep_NSGAlpha;
  st->ops.advance = VIStepperAdvance_NSGAlpha;
  st->ops.destroy = VIStepperDestroy_NSGAlpha;
  PetscFunctionReturn(PETSC_SUCCESS);
}
