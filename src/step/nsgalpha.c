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
   when G changes.

   Bilateral rows (B q = 0, seed 002 Eqs. 1c, 17b, 29b, 29d, 29g) are in both active sets always (Eq. 38: A and B contain
   U-bar) and carry, besides nu and Lambda, the smooth multiplier lambda~ of Eqs. (29a, 29b): S delta = ... + G^T lambda~,
   G v~ = 0, so that their smooth reaction is integrated by generalized-alpha (second order) and the constraint holds at
   position (29d) and velocity (29g) level at every step. Their restitution is 0 (Sec. 7).

   Coulomb friction (an extension: the paper is frictionless) at velocity level, as the Moreau schemes do: each frictional
   contact adds its tangential rows (the ROM's tangential coordinates, unit rows) to the velocity-level problem only, with
   impulses Lambda_t in the disk of radius mu Lambda_n (Lambda_n the normal impulse of the same step, Eq. 29h) and the
   relative tangential velocity of the end of step v_{n+1} (seed 000 Eqs. 5-7). The semi-smooth Newton method takes the
   Alart-Curnier active sets for them: off (normal not in B: Lambda_t = 0), stick (|Lambda_t - r w_t| <= mu (Lambda_n - r g_v):
   w_t = 0) or slip (Lambda_t = mu Lambda_n s, s the direction of Lambda_t - r w_t, frozen per iteration; a step has converged
   when the sets and the slip directions repeat), with one r for both tangential rows of a contact, so that a slipping impulse
   opposes w_t (s = -w_t / |w_t|). A sticking contact's tangential rows also enter the position correction, as
   the normal rows of a closed contact do (Eqs. 29c, 29e): U = M^-1 G^T nu with nu_t free and the tangential position held,
   g_t = q_t,{n+1} - q_t,n - h v_obstacle = 0, so that it does not creep at h F_t / (2m) (the smooth prediction q~ carries the
   unconstrained tangential force, as it carries the normal one into a closed contact); off or slipping, nu_t = 0.

   Preloaded contacts (-contact_preload p > 0, as leapfrog and moreau: the ROM's state 0 is the preloaded equilibrium, the
   contact force lambda is the change from it and the total p + lambda_n >= 0): the preload is a constant load -p on the
   contact's normal row in the smooth motion (Eq. 29a), so that Lambda and nu are the total impulse and position multiplier of
   the complementarity conditions (Eqs. 37e, 37h) and the Coulomb disk has the radius mu Lambda_n of the total normal impulse.
   While the contact is closed, Lambda_n = (p - F) h holds it; it opens (total 0) when the pull exceeds p, and then lambda = -p
   acts through the smooth motion. The recorded force is Lambda_n / h - p. */
#include "stepimpl.h"
#include <petscblaslapack.h>

/* The scheme's options: kept from VIStepperSetType to VIStepperDestroy, across set-ups. */
typedef struct {
  PetscReal rho_inf; /* spectral radius at infinity (seed 002 Eq. 31) */
  PetscInt  max_it;  /* semi-smooth Newton iterations per step */
} VINSGAlphaOptions;

/* The nonlinear path's state (below, after the linear path). */
typedef struct _VINSGAlphaNL VINSGAlphaNL;

typedef struct {
  VINSGAlphaOptions opt;
  VINSGAlphaNL     *nl;                               /* set up on a nonlinear system: the step is the nonlinear path's */
  PetscReal         alpha_m, alpha_f, gamma, beta, c; /* Eq. (31); c = (1 - alpha_m) / ((1 - alpha_f) gamma h) */
  PetscReal        *Sinv, *SD, *SK, *Minv;            /* n x n: S^-1, S^-1 D, S^-1 K, M^-1 */
  PetscReal        *P, *pin;                          /* n x 3n: [S^-1, -S^-1 D, -S^-1 K], one dgemv for s0; 3n: its input */
  PetscReal        *vmid, *dvmid;                     /* n: the mean velocity of a step and D times it (damping energy) */
  PetscReal        *Mv, *Kq, *Mv1, *Kq1;              /* n: M v and K q of level n (state) and of level n + 1: energies, numerical dissipation */
  PetscReal        *gs0, *gvt, *gqt, *gq, *gpv, *gv;  /* mr: G s0, G v~0, G q~0, G q_n; m: G_n v_n, G v_{n+1} */
  PetscReal        *vdt, *a;                          /* vdot~_n and the pseudo-acceleration a_n (state) */
  PetscReal        *qt0, *vt0, *s0, *delta, *work;    /* n: predictor, S^-1 r0, the smooth correction */
  PetscReal        *fs;                               /* n: the load of the smooth motion, f less the preloads */
  PetscReal        *fprev, *qprev, *uprev;            /* energy bookkeeping (state) */
  PetscBool         first;
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
  /* rows of the velocity-level problem: the m constraints, then mt tangential rows of the frictional contacts (G, X, Y, Z
     and the blocks above have mr = m + mt rows; nu stays m); trow[i]: contact of tangential row m + i; tfirst[j]: the first
     tangential row of contact j (-1: none). Bilateral rows: mb, bil[b] the row of the b-th, T = S^-1 G^T (n x mr) and G T
     (mr x mr) for their smooth multiplier lt (mb). tstate/newt: 0 off, 1 stick, 2 slip per contact; sdir/newdir (mr) the
     slip direction of the tangential rows. nu, bp have mr rows: the tangential ones hold a sticking contact's position. */
  PetscInt   mt, mr, mb, *trow, *tfirst, *bil, *tstate, *newt;
  PetscReal *T, *GT, *lt, *sdir, *newdir, *work0;
  PetscReal *held; /* m (state): 1 where the previous step held the gap at position level (contact in A), else 0 */
  /* the unknowns of the last Newton system (VINSGAlphaSolveSets): rows whose nu (pact, np) or Lambda (vact, nv) is free, vcol[i] the
     column of row i's Lambda among the nv (-1: none), slipping tangential rows (slip, nslip); nz (nnz, increasing): the rows whose nu
     or Lambda the solve may have made non-zero, the only terms of the sums over nu and Lambda (the others add an exact 0) */
  PetscInt *pact, *vact, *vcol, *slip, *nz, np, nv, nslip, nnz;
  /* The modal path of a linear system whose damping is diagonal in the modes of (K, M) and whose constraints are affine with a fixed
     gradient (a ROM): the scheme steps in eta, q = Phi eta (st->basis), where M = I, K = Lambda = diag(lam), D = diag(dd) and S is
     diagonal (sinv = S^-1): the smooth step is a pass over n numbers instead of an n x 3n product, the energies need no products, and
     the constraints are g(t, q) = g(t, 0) + G~ eta with G~ = G Phi fixed (ns->G holds G~; its blocks are built once). In free flight (no
     gap can close in the step: every predicted gap > 0, no bilateral row, no preload) a step costs the normal rows of G~ twice. */
  PetscBool   modal, any_preload, flight_step; /* flight_step: the last step was free flight */
  VIModalForm md;                              /* Phi, omega^2 (K in eta), the modal damping, the loads and initial state in eta */
  PetscReal  *sinv, *zero, *pm;                /* n: S^-1, zeros, Phi^T of the preloads */
} VINSGAlpha;

static PetscErrorCode VINSGAlphaModalSetUp(VIStepper st, VINSGAlpha *ns);

/* Eq. (31): the generalized-alpha parameters from the spectral radius at infinity. */
static void VINSGAlphaParameters(PetscReal rho, VINSGAlpha *ns)
{
  ns->alpha_m = (2 * rho - 1) / (rho + 1);
  ns->alpha_f = rho / (rho + 1);
  ns->gamma   = 0.5 + ns->alpha_f - ns->alpha_m;
  ns->beta    = 0.25 * (ns->gamma + 0.5) * (ns->gamma + 0.5);
}

static PetscErrorCode VINSGAlphaNLSetUp(VIStepper, VINSGAlpha *, VINSGAlphaNL **);
static PetscErrorCode VINSGAlphaNLStep(VIStepper, VINSGAlpha *, VINSGAlphaNL *, PetscReal);
static PetscErrorCode VINSGAlphaNLDestroy(VINSGAlphaNL **);

static PetscErrorCode VIStepperSetUp_NSGAlpha(VIStepper st)
{
  VINSGAlpha *ns = (VINSGAlpha *)st->data;
  PetscInt    n = st->n, m = st->nc, mm = PetscMax(m, 1);
  PetscReal   h = st->dt;

  PetscFunctionBeginUser;
  PetscCheck(ns->opt.rho_inf >= 0 && ns->opt.rho_inf <= 1, st->comm, PETSC_ERR_USER_INPUT,
             "-step_rho_inf: got %g, expected a spectral radius in [0, 1]", (double)ns->opt.rho_inf);
  if (st->nonlinear) {
    PetscCall(VINSGAlphaNLSetUp(st, ns, &ns->nl));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ns->mt = ns->mb = 0;
  for (PetscInt j = 0; j < m; j++) {
    if (st->set.dims[j] > 1 && st->set.mu[j] > 0) ns->mt += st->set.dims[j] - 1;
    if (st->set.kinds[j] == VI_CONTACT_BILATERAL) ns->mb++;
  }
  ns->mr = m + ns->mt;
  VINSGAlphaParameters(ns->opt.rho_inf, ns);
  ns->c = (1 - ns->alpha_m) / ((1 - ns->alpha_f) * ns->gamma * h);
  PetscCall(PetscCalloc4(n * n, &ns->Sinv, n * n, &ns->SD, n * n, &ns->SK, n * n, &ns->Minv));
  PetscCall(PetscCalloc5(n, &ns->vdt, n, &ns->a, n, &ns->qt0, n, &ns->vt0, n, &ns->s0));
  PetscCall(PetscCalloc6(n, &ns->delta, n, &ns->work, n, &ns->fprev, n, &ns->qprev, n, &ns->uprev, n, &ns->fs));
  {
    const PetscInt mr = PetscMax(ns->mr, 1), nu = 2 * ns->mr + ns->mb, mu = PetscMax(nu, 1);

    PetscCall(PetscCalloc5(mr * n, &ns->G, mr * n, &ns->Gc, mr * n, &ns->X, mr * n, &ns->Y, mr * n, &ns->Z));
    PetscCall(PetscCalloc4(mr * mr, &ns->GX, mr * mr, &ns->GY, mr * mr, &ns->GZ, mm * n, &ns->Gprev));
    PetscCall(PetscCalloc5(mm, &ns->g, mm, &ns->grate, mm, &ns->gprev_rate, mr, &ns->bp, mr, &ns->bv));
    PetscCall(PetscCalloc4(mm, &ns->gt, mr, &ns->nu, mr, &ns->lam, mr, &ns->rscale));
    PetscCall(PetscCalloc3(mu * mu, &ns->J, mu, &ns->rhs, mu, &ns->ipiv));
    PetscCall(PetscCalloc4(mm, &ns->setA, mm, &ns->setB, mm, &ns->newA, mm, &ns->newB));
    PetscCall(PetscCalloc5(mr, &ns->trow, mm, &ns->tfirst, mm, &ns->bil, mm, &ns->tstate, mm, &ns->newt));
    PetscCall(PetscCalloc6(mr * n, &ns->T, mr * mr, &ns->GT, mm, &ns->lt, mr, &ns->sdir, mr, &ns->newdir, n, &ns->work0));
    PetscCall(PetscCalloc1(mm, &ns->held));
    PetscCall(PetscCalloc6(mr, &ns->gs0, mr, &ns->gvt, mr, &ns->gqt, mr, &ns->gq, mr, &ns->gpv, mr, &ns->gv));
    PetscCall(PetscCalloc5(mr, &ns->pact, mr, &ns->vact, mr, &ns->vcol, mr, &ns->slip, mr, &ns->nz));
    /* the tangential rows: unit rows of the ROM's tangential coordinates (W_b = I), fixed */
    for (PetscInt j = 0, i = m, b = 0; j < m; j++) {
      ns->tfirst[j] = -1;
      if (st->set.kinds[j] == VI_CONTACT_BILATERAL) ns->bil[b++] = j;
      if (!(st->set.dims[j] > 1 && st->set.mu[j] > 0)) continue;
      ns->tfirst[j] = i;
      for (PetscInt k = 1; k < st->set.dims[j]; k++, i++) {
        ns->trow[i]                       = j;
        ns->G[i * n + st->offsets[j] + k] = 1;
      }
    }
  }
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
        (double)ns->c, (double)(h * ns->beta / ns->gamma), (double)h, (double)ns->opt.rho_inf));
    PetscCall(VIInvertSPD(st->comm, n, ns->Sinv, what));
  }
  PetscCall(VIMatMat(n, n, n, ns->Sinv, st->D, 1.0, ns->SD, n));
  PetscCall(VIMatMat(n, n, n, ns->Sinv, st->K, 1.0, ns->SK, n));
  PetscCall(PetscMalloc4(3 * n * n, &ns->P, 3 * n, &ns->pin, n, &ns->vmid, n, &ns->dvmid));
  PetscCall(PetscCalloc4(n, &ns->Mv, n, &ns->Kq, n, &ns->Mv1, n, &ns->Kq1));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = 0; k < n; k++) {
      ns->P[i * 3 * n + k]         = ns->Sinv[i * n + k];
      ns->P[i * 3 * n + n + k]     = -ns->SD[i * n + k];
      ns->P[i * 3 * n + 2 * n + k] = -ns->SK[i * n + k];
    }
  ns->max_it      = ns->opt.max_it;
  ns->have_blocks = PETSC_FALSE;
  ns->first       = PETSC_TRUE;
  PetscCall(VIRowSplitCreate(st->comm, n, 1, &ns->rows));
  {
    PetscBool linear;
    PetscCall(VISystemIsLinear(st->sys, &linear));
    if (linear) PetscCall(VINSGAlphaModalSetUp(st, ns));
  }
  /* what the next step reads before writing it (checkpoints); q and u are the stepper's */
  PetscCall(VIStepperRegisterState(st, "nsgalpha_vdot", n, ns->vdt, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_a", n, ns->a, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_fprev", n, ns->fprev, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_qprev", n, ns->qprev, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_first", 1, NULL, &ns->first));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_held", PetscMax(m, 1), ns->held, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_Mv", n, ns->Mv, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_Kq", n, ns->Kq, NULL));
  st->scheme_energy = PETSC_TRUE; /* the step computes M v and K q of its level: the records take T and V from it */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X = M^-1 G^T, Y = S^-1 K X, Z = S^-1 D X and their projections G X, G Y, G Z, for the gradient G of this step. */
static void VINSGAlphaBlocks(VIStepper st, VINSGAlpha *ns)
{
  PetscInt n = st->n, m = ns->mr;

  for (PetscInt j = 0; j < m; j++) {
    VIMatVec(n, n, ns->Minv, n, ns->G + j * n, 0.0, ns->X + j * n);
    VIMatVec(n, n, ns->SK, n, ns->X + j * n, 0.0, ns->Y + j * n);
    VIMatVec(n, n, ns->SD, n, ns->X + j * n, 0.0, ns->Z + j * n);
    if (ns->mb) VIMatVec(n, n, ns->Sinv, n, ns->G + j * n, 0.0, ns->T + j * n); /* Eq. (29a): S delta = ... + G^T lambda~ */
  }
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) {
      PetscReal x = 0, y = 0, z = 0, w = 0;
      for (PetscInt k = 0; k < n; k++) {
        x += ns->G[i * n + k] * ns->X[j * n + k];
        y += ns->G[i * n + k] * ns->Y[j * n + k];
        z += ns->G[i * n + k] * ns->Z[j * n + k];
      }
      if (ns->mb)
        for (PetscInt k = 0; k < n; k++) w += ns->G[i * n + k] * ns->T[j * n + k];
      ns->GX[i * m + j] = x;
      ns->GY[i * m + j] = y;
      ns->GZ[i * m + j] = z;
      ns->GT[i * m + j] = w;
    }
  for (PetscInt j = 0; j < m; j++) ns->rscale[j] = ns->GX[j * m + j] > 0 ? 1 / ns->GX[j * m + j] : 1;
  /* one r for both tangential rows of a contact (the smaller, as the contact solver's eps): Alart-Curnier's slip direction is that of
     sigma = Lambda_t - r w_t, so at its fixed point r w_t is parallel to -Lambda_t. With an r per row (G M^-1 G^T's tangential diagonal
     is not isotropic on a ROM) the impulse was parallel to -R w_t instead and did not oppose the sliding velocity (on the Rubin blade
     its t2 part was twice Coulomb's, and nsgalpha converged 1.2 % away from Moreau and mixed: docs/benchmarks.md) */
  for (PetscInt j = 0; j < st->nc; j++) {
    const PetscInt i0 = ns->tfirst[j], d1 = st->set.dims[j] - 1;
    PetscReal      r;

    if (i0 < 0) continue;
    r = ns->rscale[i0];
    for (PetscInt k = 1; k < d1; k++) r = PetscMin(r, ns->rscale[i0 + k]);
    for (PetscInt k = 0; k < d1; k++) ns->rscale[i0 + k] = r;
  }
  PetscArraycpy(ns->Gc, ns->G, m * n);
  ns->have_blocks = PETSC_TRUE;
}

/* The modal path (see VINSGAlpha): taken when the modal form applies (VIModalFormCreate, modal.c: the damping diagonal in the modes of
   (K, M), the constraints affine with a fixed gradient, -step_modal not false). Otherwise the scheme keeps the ROM's coordinates. */
static PetscErrorCode VINSGAlphaModalSetUp(VIStepper st, VINSGAlpha *ns)
{
  const PetscInt  n = st->n, m = st->nc;
  const PetscReal h = st->dt, hb = h * ns->beta / ns->gamma;
  PetscBool       ok;

  PetscFunctionBeginUser;
  PetscCall(VIModalFormCreate(st, "nsgalpha", PETSC_TRUE, &ns->md, &ok));
  if (!ok) PetscFunctionReturn(PETSC_SUCCESS);
  ns->modal = PETSC_TRUE;
  /* the operators in eta: M = I, K = diag(lam), D = diag(dd), S = c I + D + (h beta / gamma) K; dense copies of the diagonal ones for the
     constraint blocks (built once) */
  PetscCall(PetscMalloc3(n, &ns->sinv, n, &ns->zero, n, &ns->pm));
  PetscCall(PetscArrayzero(ns->Minv, n * n));
  PetscCall(PetscArrayzero(ns->Sinv, n * n));
  PetscCall(PetscArrayzero(ns->SD, n * n));
  PetscCall(PetscArrayzero(ns->SK, n * n));
  PetscCall(PetscArrayzero(ns->zero, n));
  PetscCall(PetscArrayzero(ns->pm, n));
  for (PetscInt i = 0; i < n; i++) {
    ns->sinv[i]         = 1 / (ns->c + ns->md.dd[i] + hb * ns->md.omega2[i]);
    ns->Minv[i * n + i] = 1;
    ns->Sinv[i * n + i] = ns->sinv[i];
    ns->SD[i * n + i]   = ns->sinv[i] * ns->md.dd[i];
    ns->SK[i * n + i]   = ns->sinv[i] * ns->md.omega2[i];
  }
  /* G~ = G Phi: the constraint rows (normal, then the tangential rows of the frictional contacts, rows of Phi) */
  if (m > 0) PetscCall(VIMatMat(m, n, n, ns->md.G, ns->md.Phi, 1.0, ns->G, n));
  for (PetscInt i = m; i < ns->mr; i++) {
    const PetscInt j = ns->trow[i], k = i - ns->tfirst[j] + 1;
    PetscCall(PetscArraycpy(ns->G + i * n, ns->md.Phi + (st->offsets[j] + k) * n, n));
  }
  if (m > 0) PetscCall(PetscArraycpy(ns->Gprev, ns->G, m * n));
  VINSGAlphaBlocks(st, ns);
  /* the preloads in eta */
  ns->any_preload = PETSC_FALSE;
  for (PetscInt j = 0; j < m; j++)
    if (st->set.preload[j] != 0) {
      ns->any_preload = PETSC_TRUE;
      for (PetscInt i = 0; i < n; i++) ns->pm[i] += st->set.preload[j] * ns->md.Phi[st->offsets[j] * n + i];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal VIDot(PetscInt n, const PetscReal a[], const PetscReal b[])
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* Row i of (Y nu + Z Lambda - T lambda~) projected on G: minus the change of G_i delta (Eq. 29a). */
static PetscReal VINSGAlphaYZ(VINSGAlpha *ns, PetscInt i)
{
  const PetscInt mr = ns->mr;
  PetscReal      yz = 0;

  for (PetscInt a = 0; a < ns->nnz; a++) {
    const PetscInt k = ns->nz[a];
    yz += ns->GY[i * mr + k] * ns->nu[k] + ns->GZ[i * mr + k] * ns->lam[k];
  }
  for (PetscInt b = 0; b < ns->mb; b++) yz -= ns->GT[i * mr + ns->bil[b]] * ns->lt[b];
  return yz;
}

/* The complementarity functions at (nu, Lambda, lambda~): gaps g = bp + Gpp nu + Gpv Lambda, velocities gv = bv + Gvp nu + Gvv Lambda, the
   gate g(q~) (Eq. 38), and the active sets A (position) and B (velocity) they define (Eq. 38; bilateral rows are in both), and the
   friction state of each frictional contact (0 off, 1 stick, 2 slip with direction dir; a sticking contact's tangential positions are
   held by their nu, the others' nu is 0). Returns the residual of Eq. (37). */
static PetscReal VINSGAlphaSets(VIStepper st, VINSGAlpha *ns, PetscBool A[], PetscBool B[], PetscInt tst[], PetscReal dir[])
{
  PetscInt  m = st->nc, mr = ns->mr;
  PetscReal h = st->dt, hb = h * ns->beta / ns->gamma, res = 0;

  for (PetscInt j = 0; j < m; j++) {
    PetscReal yz = VINSGAlphaYZ(ns, j), gx_nu = 0, gx_lam = 0, gp, gv, gate;
    for (PetscInt a = 0; a < ns->nnz; a++) {
      const PetscInt k = ns->nz[a];
      gx_nu += ns->GX[j * mr + k] * ns->nu[k];
      gx_lam += ns->GX[j * mr + k] * ns->lam[k];
    }
    gate      = ns->bp[j] - hb * yz;
    gp        = gate + gx_nu;
    gv        = ns->bv[j] - yz + gx_lam;
    ns->gt[j] = gv;
    if (st->set.kinds[j] == VI_CONTACT_BILATERAL) {
      /* Eqs. (29b, 29d, 29g): equations, scaled to a gap */
      A[j] = B[j] = PETSC_TRUE;
      res         = PetscMax(res, PetscMax(PetscAbsReal(gp), h * PetscMax(PetscAbsReal(gv), PetscAbsReal(ns->bv[j] - yz))));
      continue;
    }
    A[j] = ns->nu[j] - ns->rscale[j] * gp >= 0 ? PETSC_TRUE : PETSC_FALSE;
    B[j] = (gate <= 0 && ns->lam[j] - ns->rscale[j] * gv >= 0) ? PETSC_TRUE : PETSC_FALSE;
    /* Eq. (37e, h): nu - max(0, nu - r g) and Lambda - max(0, Lambda - r gv) (Lambda itself when the gate is closed), scaled back to a gap */
    res = PetscMax(res, PetscAbsReal(ns->nu[j] - PetscMax(0, ns->nu[j] - ns->rscale[j] * gp)) / ns->rscale[j]);
    res = PetscMax(res, PetscAbsReal(gate <= 0 ? ns->lam[j] - PetscMax(0, ns->lam[j] - ns->rscale[j] * gv) : ns->lam[j]) / ns->rscale[j] / st->dt);
  }
  /* Coulomb's law on the velocity-level impulses (seed 000 Eqs. 5-7, Alart-Curnier): sigma = Lambda_t - r w_t against the disk of
     radius mu (Lambda_n - r g_v) */
  for (PetscInt j = 0; j < m; j++) {
    const PetscInt i0 = ns->tfirst[j], d1 = st->set.dims[j] - 1;
    PetscReal      sig[2] = {0, 0}, norm = 0, radius, z[2];

    if (i0 < 0) continue;
    for (PetscInt k = 0; k < d1; k++) {
      const PetscInt i = i0 + k;
      PetscReal      w = ns->bv[i] - VINSGAlphaYZ(ns, i);
      for (PetscInt a = 0; a < ns->nnz; a++) w += ns->GX[i * mr + ns->nz[a]] * ns->lam[ns->nz[a]];
      sig[k] = ns->lam[i] - ns->rscale[i] * w;
      norm += sig[k] * sig[k];
    }
    norm   = PetscSqrtReal(norm);
    radius = B[j] ? st->set.mu[j] * PetscMax(0, ns->lam[j] - ns->rscale[j] * ns->gt[j]) : 0;
    tst[j] = !B[j] ? 0 : (norm <= radius ? 1 : 2);
    for (PetscInt k = 0; k < d1; k++) {
      dir[i0 + k] = tst[j] == 2 ? sig[k] / norm : 0;
      z[k]        = sig[k];
    }
    VIProjectDisk(d1, radius, z);
    for (PetscInt k = 0; k < d1; k++) res = PetscMax(res, h * PetscAbsReal(ns->lam[i0 + k] - z[k]) / ns->rscale[i0 + k]);
    /* the tangential position: held while sticking (g_t = 0, a gap), else nu_t = 0 */
    for (PetscInt k = 0; k < d1; k++) {
      const PetscInt i  = i0 + k;
      PetscReal      gp = ns->bp[i] - hb * VINSGAlphaYZ(ns, i);
      for (PetscInt a = 0; a < ns->nnz; a++) gp += ns->GX[i * mr + ns->nz[a]] * ns->nu[ns->nz[a]];
      res = PetscMax(res, tst[j] == 1 ? PetscAbsReal(gp) : PetscAbsReal(ns->nu[i]) / ns->rscale[i]);
    }
  }
  return res;
}

/* The coefficient of Lambda_k in an equation of row i (kind: 0 its position gap, Eqs. 29d, 29e; 1 its velocity, Eq. 29h, or w_t of a
   tangential row; 2 the smooth velocity G v~ of a bilateral row, Eq. 29b). */
static inline PetscReal VINSGAlphaLambdaCoefficient(const VINSGAlpha *ns, PetscReal hb, PetscInt i, PetscInt kind, PetscInt k)
{
  const PetscInt p = i * ns->mr + k;
  return kind == 0 ? -hb * ns->GZ[p] : (kind == 1 ? ns->GX[p] - ns->GZ[p] : -ns->GZ[p]);
}

/* One equation of the Newton system in the active unknowns [nu_i, i in pact; Lambda_i, i in vact; lambda~] (see
   VINSGAlphaSolveSets), kind as in VINSGAlphaLambdaCoefficient: a slipping tangential row's impulse Lambda_t = mu Lambda_n dir is
   substituted, so that its coefficient adds to the column of its contact's Lambda_n. */
static void VINSGAlphaActiveRow(VIStepper st, VINSGAlpha *ns, PetscInt i, PetscInt kind, const PetscReal dir[], PetscReal row[])
{
  const PetscInt   mr = ns->mr, np = ns->np, nv = ns->nv;
  const PetscReal  hb = st->dt * ns->beta / ns->gamma;
  const PetscReal *gx = ns->GX + i * mr, *gy = ns->GY + i * mr, *gt = ns->GT + i * mr;

  for (PetscInt a = 0; a < np; a++) {
    const PetscInt k = ns->pact[a];
    row[a]           = kind == 0 ? gx[k] - hb * gy[k] : -gy[k];
  }
  for (PetscInt a = 0; a < nv; a++) row[np + a] = VINSGAlphaLambdaCoefficient(ns, hb, i, kind, ns->vact[a]);
  for (PetscInt a = 0; a < ns->nslip; a++) {
    const PetscInt k = ns->slip[a], j = ns->trow[k];
    row[np + ns->vcol[j]] += st->set.mu[j] * dir[k] * VINSGAlphaLambdaCoefficient(ns, hb, i, kind, k);
  }
  for (PetscInt b = 0; b < ns->mb; b++) row[np + nv + b] = kind == 0 ? hb * gt[ns->bil[b]] : gt[ns->bil[b]];
}

/* One Newton step for given active sets: rows of A enforce g = 0, the others nu = 0; rows of B enforce gv = 0, the others Lambda = 0;
   bilateral rows also G v~ = 0 (Eq. 29b) for lambda~; tangential rows w_t = 0 and g_t = 0 (stick), Lambda_t = mu Lambda_n dir and
   nu_t = 0 (slip) or Lambda_t = nu_t = 0 (off). The trivial equations (nu_i = 0, Lambda_i = 0) are eliminated and the slip rows
   substituted, so that the system solved has the active unknowns only: [nu_i, i in pact (A, stick); Lambda_i, i in vact (B, stick);
   lambda~ (mb)], a few on a blade whose contacts are mostly open, instead of 2 mr + mb. J is assembled row-major, i.e. J^T
   column-major, and solved transposed. */
static PetscErrorCode VINSGAlphaSolveSets(VIStepper st, VINSGAlpha *ns, const PetscBool A[], const PetscBool B[], const PetscInt tst[],
                                          const PetscReal dir[])
{
  const PetscInt m = st->nc, mr = ns->mr, mb = ns->mb;
  PetscInt       N;
  PetscReal     *J = ns->J;
  PetscBLASInt   bm, one = 1, info;

  PetscFunctionBeginUser;
  ns->np = ns->nv = ns->nslip = ns->nnz = 0;
  for (PetscInt i = 0; i < mr; i++) {
    const PetscInt  j    = i < m ? i : ns->trow[i];
    const PetscBool p    = i < m ? A[j] : (PetscBool)(tst[j] == 1);
    const PetscBool v    = i < m ? B[j] : (PetscBool)(tst[j] == 1);
    const PetscBool slip = (PetscBool)(i >= m && tst[j] == 2); /* slip implies B[j]: the column of Lambda_n exists */

    if (p) ns->pact[ns->np++] = i;
    ns->vcol[i] = v ? ns->nv : -1;
    if (v) ns->vact[ns->nv++] = i;
    if (slip) ns->slip[ns->nslip++] = i;
    if (p || v || slip) ns->nz[ns->nnz++] = i;
  }
  PetscCall(PetscArrayzero(ns->nu, mr));
  PetscCall(PetscArrayzero(ns->lam, mr));
  N = ns->np + ns->nv + mb;
  if (N == 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < ns->np; a++) {
    const PetscInt i = ns->pact[a];
    VINSGAlphaActiveRow(st, ns, i, 0, dir, J + a * N);
    ns->rhs[a] = -ns->bp[i];
  }
  for (PetscInt a = 0; a < ns->nv; a++) {
    const PetscInt i = ns->vact[a];
    VINSGAlphaActiveRow(st, ns, i, 1, dir, J + (ns->np + a) * N);
    ns->rhs[ns->np + a] = -ns->bv[i];
  }
  for (PetscInt b = 0; b < mb; b++) {
    VINSGAlphaActiveRow(st, ns, ns->bil[b], 2, dir, J + (ns->np + ns->nv + b) * N);
    ns->rhs[ns->np + ns->nv + b] = -ns->bv[ns->bil[b]];
  }
  PetscCall(PetscBLASIntCast(N, &bm));
  PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&bm, &bm, J, &bm, ns->ipiv, &info));
  PetscCheck(info == 0, st->comm, PETSC_ERR_USER_INPUT,
             "-step_type nsgalpha: the contact Newton matrix is singular (getrf info %d): the active constraints' gradients are linearly dependent",
             (int)info);
  PetscCallBLAS("LAPACKgetrs", LAPACKgetrs_("T", &bm, &one, J, &bm, ns->ipiv, ns->rhs, &bm, &info));
  PetscCheck(info == 0, st->comm, PETSC_ERR_LIB, "getrs failed with info %d", (int)info);
  for (PetscInt a = 0; a < ns->np; a++) ns->nu[ns->pact[a]] = ns->rhs[a];
  for (PetscInt a = 0; a < ns->nv; a++) ns->lam[ns->vact[a]] = ns->rhs[ns->np + a];
  for (PetscInt a = 0; a < ns->nslip; a++) {
    const PetscInt k = ns->slip[a], j = ns->trow[k];
    ns->lam[k] = st->set.mu[j] * dir[k] * ns->lam[j];
  }
  for (PetscInt b = 0; b < mb; b++) ns->lt[b] = ns->rhs[ns->np + ns->nv + b];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Semi-smooth Newton on Eqs. (37e, 37h) with the active sets of Eq. (38), from the predictor nu = Lambda = lambda~ = 0 (Eq. 40). */
static PetscErrorCode VINSGAlphaContacts(VIStepper st, VINSGAlpha *ns)
{
  PetscInt  m         = st->nc, it;
  PetscBool converged = PETSC_FALSE;
  PetscReal res       = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(ns->nu, ns->mr));
  PetscCall(PetscArrayzero(ns->lam, ns->mr));
  PetscCall(PetscArrayzero(ns->lt, PetscMax(ns->mb, 1)));
  ns->np = ns->nv = ns->nslip = ns->nnz = 0;
  res                                   = VINSGAlphaSets(st, ns, ns->setA, ns->setB, ns->tstate, ns->sdir);
  for (it = 0; it < ns->max_it; it++) {
    PetscBool same = PETSC_TRUE, any = PETSC_FALSE;
    for (PetscInt j = 0; j < m; j++) any = any || ns->setA[j] || ns->setB[j];
    if (!any && it == 0) {
      converged = PETSC_TRUE; /* free flight: no constraint is active, nothing to solve */
      break;
    }
    PetscCall(VINSGAlphaSolveSets(st, ns, ns->setA, ns->setB, ns->tstate, ns->sdir));
    res = VINSGAlphaSets(st, ns, ns->newA, ns->newB, ns->newt, ns->newdir);
    for (PetscInt j = 0; j < m; j++) same = same && ns->newA[j] == ns->setA[j] && ns->newB[j] == ns->setB[j] && ns->newt[j] == ns->tstate[j];
    /* a slip direction is frozen within an iteration: it must repeat too (exactly in 2D, where it is a sign) */
    for (PetscInt i = m; i < ns->mr; i++) same = same && PetscAbsReal(ns->newdir[i] - ns->sdir[i]) <= 1e-12;
    if (same) {
      converged = PETSC_TRUE;
      it++;
      break;
    }
    PetscCall(PetscArraycpy(ns->setA, ns->newA, m));
    PetscCall(PetscArraycpy(ns->setB, ns->newB, m));
    PetscCall(PetscArraycpy(ns->tstate, ns->newt, m));
    PetscCall(PetscArraycpy(ns->sdir, ns->newdir, ns->mr));
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

/* A consistent initial smooth acceleration with bilateral rows (seed 002 Alg. 1 and Eq. 29a at t0): M vdot~_0 = r0 + G_b^T lambda~
   with G_b vdot~_0 = 0 (the bilateral rows' acceleration level, linear rows), i.e. (G_b M^-1 G_b^T) lambda~ = -G_b M^-1 r0; on entry
   vdt = M^-1 r0. */
static PetscErrorCode VINSGAlphaConsistentAcceleration(VIStepper st, VINSGAlpha *ns, PetscReal t)
{
  const PetscInt n = st->n, mr = ns->mr, mb = ns->mb;
  PetscBLASInt   bn, one = 1, info;

  PetscFunctionBeginUser;
  if (!ns->modal) { /* the modal path's G~ and its blocks are fixed */
    PetscCall(VISystemEvaluateConstraints(st->sys, t, st->q, NULL, ns->G, NULL));
    VINSGAlphaBlocks(st, ns);
  }
  for (PetscInt b = 0; b < mb; b++) {
    for (PetscInt c = 0; c < mb; c++) ns->J[c * mb + b] = ns->GX[ns->bil[b] * mr + ns->bil[c]]; /* column-major */
    ns->rhs[b] = -VIDot(n, ns->G + ns->bil[b] * n, ns->vdt);
  }
  PetscCall(PetscBLASIntCast(mb, &bn));
  PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bn, &one, ns->J, &bn, ns->ipiv, ns->rhs, &bn, &info));
  PetscCheck(info == 0, st->comm, PETSC_ERR_USER_INPUT,
             "-step_type nsgalpha: the bilateral rows' gradients are linearly dependent (G M^-1 G^T singular, gesv info %d)", (int)info);
  for (PetscInt b = 0; b < mb; b++)
    for (PetscInt i = 0; i < n; i++) ns->vdt[i] += ns->X[ns->bil[b] * n + i] * ns->rhs[b];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M v and K q: diagonal products in the modal path, BLAS dgemv otherwise. */
static PetscErrorCode VINSGAlphaApplyMK(VIStepper st, VINSGAlpha *ns, const PetscReal v[], const PetscReal q[], PetscReal Mv[], PetscReal Kq[])
{
  const PetscInt n = st->n;

  PetscFunctionBeginUser;
  if (ns->modal) {
    for (PetscInt i = 0; i < n; i++) {
      Mv[i] = v[i];
      Kq[i] = ns->md.omega2[i] * q[i];
    }
  } else {
    VIMatVec(n, n, st->M, n, v, 0.0, Mv);
    VIMatVec(n, n, st->K, n, q, 0.0, Kq);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the nonlinear path

   On a system that is not linear (VISystemIsLinear false: a rigid multibody system, seed 002 §10.2, §10.4) the step is
   Eqs. (29a-h, 30) as they stand, solved by the semi-smooth Newton method of ssnewton.c on all the unknowns of the step,
   x = [delta (n), U (n), W (n), lambda~ (mb), nu (m), Lambda (m)], with q = q~0 + (h beta/gamma) delta + U,
   v = v~0 + delta + W, v~ = v~0 + delta (the predictor of Eq. 40 and the same delta as the linear path):
     M c delta - f(t, q, v) - G_b(q)^T lambda~ = 0   (29a)      G_b(q) v~ = 0         (29b)
     M U - G(q)^T nu = 0                              (29c)      g_b(q) = 0            (29d)
     M W - G(q)^T Lambda = 0                          (29f)      G_b(q) v = 0          (29g)
     nu_j - max(0, nu_j - r_j g_j(q)) = 0             (29e)
     Lambda_j - max(0, Lambda_j - r_j (G_j(q) v + e_j G_j(q_n) v_n)) = 0 where g_j(q~) <= 0, else Lambda_j = 0   (29h)
   Its Jacobian is exact: df/dq, df/du from the system, and the constraints' curvature d(G^T w)/dq and d(G w)/dq from each
   row's Hessian (VISystemComputeConstraintCurvature with unit multipliers). A mass that depends on q (a flexible body in a
   floating frame, seed 001 §3) is M(q) at the iterate's q in (29a, c, f), with d(M(q) w)/dq (VISystemComputeMassJacobian)
   in their Jacobian; its quadratic velocity vector is part of f(q, u) with its tangents. A constant mass is computed once
   per step at q_n (the iterate's q then never asks for it: that path is as before).
   Frictional contacts add their tangential impulses Lambda_t (dims - 1 per contact: one planar, two spatial,
   VISystemEvaluateTangents) with Coulomb's law at velocity level on the disk of radius mu Lambda_n, as the ROM path does
   (below in VINSGAlphaNLForm, VINonlinearCoulomb), and their position multipliers nu_t, x = [..., Lambda_t (mt), nu_t (mt)]:
     M U - G(q)^T nu - Gt(q)^T nu_t = 0                                                             (29c)
     sticking: g_t(q) = (Gt(q_n) + Gt(q)) (q - q_n) / 2 = 0 (as the ROM's g_t); slipping: nu_t = h Lambda_t / 2; off: nu_t = 0
   g_t is the tangential displacement of the contact point over the step (relative to the other body's material point), the
   trapezoid of Gt along the step: exact where the point's position is at most quadratic in q (a translation; a spatial body's
   point r + R(p) s, R quadratic in the quaternion p), O(|q - q_n|^3) otherwise. Without it the predictor q~ carries the
   unconstrained tangential force into a stuck contact, which then creeps at h F_t / (2 m). A slipping contact's impulse
   Lambda_t moves v only, and its position lagged by h F_t t / (2 m) (first order); U = M^-1 Gt^T h Lambda_t / 2 is the
   position that Lambda_t makes as a constant force Lambda_t / h over the step (h^2 F / (2 m)), so that a constant friction
   force is integrated exactly (a slide on a plane, the stop within mu g h^2 / 2). The ROM path still has nu_t = 0 there. */
struct _VINSGAlphaNL {
  VIStepper  st;
  PetscInt   n, m, mb, N, *bil;
  PetscInt   mt, *trow; /* tangential rows, dims - 1 per frictional contact (trow: its contact) */
  PetscReal *Gt, *rt;   /* mt x n: the tangential rows at q (VISystemEvaluateTangents); 1 / (Gt M^-1 Gt^T), the contact's smallest */
  PetscReal *Gtn, *gtm; /* mt x n: the tangential rows at q_n; mt x n: their mean with the iterate's, g_t's gradient */
  PetscBool *stick;     /* mt: a contact's stick flag, at its first tangential row (VINSGAlphaNLResidual) */
  PetscInt  *tkind;     /* mt: each tangential row's kind in the last Newton matrix (VINSGAlphaNLTangentKind) */
  PetscReal *Jc;        /* 2 N: the Coulomb rows' Jacobian rows when the form gives F alone (chord steps) */
  /* G and Gt at the last step's end (t_G, q_G): the next step's rows at q_n (Gn, Gtn), the same bits as evaluated again there;
     not checkpointed (a resumed run evaluates them) */
  PetscBool  have_G;
  PetscReal  tG, *qG;
  PetscReal *dq0;       /* n: q~0 - q_n, so that g_t takes q - q_n = dq0 + (h beta/gamma) delta + U without q's round-off */
  PetscReal  t, h, hb, c;
  PetscReal *M, *f, *dfdq, *dfdu, *g, *G, *H, *gs, *Hw, *q, *v, *vt, *qt, *e, *pre, *rscale;
  PetscReal *qt0, *vt0, *vdt, *a, *x, *held, *Gn;
  PetscReal *grate; /* dg/dt at t_{n+1} (rheonomic rows: a multibody driver; their G is t-free) */
  PetscReal *wk;    /* 2 n + VI_NONLINEAR_WORK_SIZE(n): q_n, v_n and VINonlinearWork's scratch */
  PetscReal  power; /* the bilateral forces' power at the last level (VINonlinearWork; a driver's) */
  PetscBool *A, *B;
  PetscBool  first;
  PetscBool  constant; /* VISystemHasConstantMass */
  PetscReal *dMw, *mw; /* n x n: d(M w)/dq, and its w (n), for a mass that depends on q */
  PetscReal *HV, *HVt, *wb; /* m x n: d(G v)/dq and d(G v~)/dq at the iterate (VISystemComputeConstraintDerivatives); m: lambda~ on its rows */
  VISSNewton nw;
};

static PetscErrorCode VINSGAlphaNLDestroy(VINSGAlphaNL **nlp)
{
  VINSGAlphaNL *nl = *nlp;

  PetscFunctionBeginUser;
  if (!nl) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree6(nl->M, nl->f, nl->dfdq, nl->dfdu, nl->g, nl->G));
  PetscCall(PetscFree5(nl->H, nl->gs, nl->Hw, nl->q, nl->v));
  PetscCall(PetscFree6(nl->vt, nl->qt, nl->e, nl->pre, nl->rscale, nl->bil));
  PetscCall(PetscFree6(nl->qt0, nl->vt0, nl->vdt, nl->a, nl->x, nl->held));
  PetscCall(PetscFree5(nl->Gn, nl->A, nl->B, nl->grate, nl->wk));
  PetscCall(PetscFree6(nl->trow, nl->Gt, nl->rt, nl->Gtn, nl->gtm, nl->dq0));
  PetscCall(PetscFree4(nl->stick, nl->tkind, nl->Jc, nl->qG));
  PetscCall(PetscFree2(nl->dMw, nl->mw));
  PetscCall(PetscFree3(nl->HV, nl->HVt, nl->wb));
  PetscCall(VISSNewtonDestroy(&nl->nw));
  PetscCall(PetscFree(*nlp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VINSGAlphaNLSetUp(VIStepper st, VINSGAlpha *ns, VINSGAlphaNL **nlp)
{
  VINSGAlphaNL *nl;
  PetscInt      n = st->n, m = st->nc, mm = PetscMax(m, 1), N;
  PetscBool     constant;

  PetscFunctionBeginUser;
  PetscCall(VISystemHasConstantMass(st->sys, &constant));
  for (PetscInt j = 0; j < m; j++)
    PetscCheck(st->set.dims[j] <= 3, st->comm, PETSC_ERR_SUP, "-step_type nsgalpha: a nonlinear system's contact has two tangents at most");
  PetscCall(PetscNew(&nl));
  *nlp         = nl;
  nl->st       = st;
  nl->constant = constant;
  if (!constant) PetscCall(PetscCalloc2(n * n, &nl->dMw, n, &nl->mw));
  nl->n  = n;
  nl->m  = m;
  nl->mb = 0;
  for (PetscInt j = 0; j < m; j++)
    if (st->set.kinds[j] == VI_CONTACT_BILATERAL) nl->mb++;
  for (PetscInt j = 0; j < m; j++) nl->mt += st->set.dims[j] - 1;
  N = nl->N = 3 * n + nl->mb + 2 * m + 2 * nl->mt;
  PetscCall(PetscCalloc6(PetscMax(nl->mt, 1), &nl->trow, PetscMax(nl->mt, 1) * n, &nl->Gt, PetscMax(nl->mt, 1), &nl->rt, PetscMax(nl->mt, 1) * n,
                         &nl->Gtn, PetscMax(nl->mt, 1) * n, &nl->gtm, n, &nl->dq0));
  PetscCall(PetscCalloc4(PetscMax(nl->mt, 1), &nl->stick, PetscMax(nl->mt, 1), &nl->tkind, 2 * PetscMax(N, 1), &nl->Jc, n, &nl->qG));
  for (PetscInt j = 0, i = 0; j < m; j++)
    for (PetscInt a = 1; a < st->set.dims[j]; a++) nl->trow[i++] = j;
  VINSGAlphaParameters(ns->opt.rho_inf, ns);
  nl->h  = st->dt;
  nl->hb = st->dt * ns->beta / ns->gamma;
  nl->c  = (1 - ns->alpha_m) / ((1 - ns->alpha_f) * ns->gamma * st->dt);
  PetscCall(PetscCalloc6(n * n, &nl->M, n, &nl->f, n * n, &nl->dfdq, n * n, &nl->dfdu, mm, &nl->g, mm * n, &nl->G));
  PetscCall(PetscCalloc5(mm * n * n, &nl->H, mm, &nl->gs, n * n, &nl->Hw, n, &nl->q, n, &nl->v));
  PetscCall(PetscCalloc6(n, &nl->vt, n, &nl->qt, mm, &nl->e, mm, &nl->pre, mm, &nl->rscale, mm, &nl->bil));
  PetscCall(PetscCalloc6(n, &nl->qt0, n, &nl->vt0, n, &nl->vdt, n, &nl->a, PetscMax(N, 1), &nl->x, mm, &nl->held));
  PetscCall(PetscCalloc5(mm * n, &nl->Gn, mm, &nl->A, mm, &nl->B, mm, &nl->grate, 2 * n + VI_NONLINEAR_WORK_SIZE(n), &nl->wk));
  for (PetscInt j = 0, b = 0; j < m; j++)
    if (st->set.kinds[j] == VI_CONTACT_BILATERAL) nl->bil[b++] = j;
  PetscCall(VINonlinearRestitution(st, nl->e));
  PetscCall(PetscCalloc3(mm * n, &nl->HV, mm * n, &nl->HVt, mm, &nl->wb));
  PetscCall(VISSNewtonCreate(N, ns->opt.max_it, VI_SSNEWTON_TOL, &nl->nw));
  nl->nw.hinted = PETSC_TRUE; /* VINSGAlphaNLForm flags its unit rows */
  nl->nw.chord  = PETSC_TRUE; /* ... and gives F alone for J = NULL */
  /* the Schur path on (delta_i, U_i, W_i) of each coordinate i: a 3 x 3 block per coordinate when M, df/dq, df/du and the
     rows' curvature are diagonal (planar rigid bodies: a row's Hessian lives on its bodies' angles) */
  PetscCall(VISSNewtonSetBlocks(&nl->nw, 3 * n, 3));
  nl->first     = PETSC_TRUE;
  PetscCall(VIStepperRegisterState(st, "nsgalpha_vdot", n, nl->vdt, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_a", n, nl->a, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_first", 1, NULL, &nl->first));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_held", mm, nl->held, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_power", 1, &nl->power, NULL));
  PetscCall(VIStepperRegisterState(st, "nsgalpha_x", PetscMax(N, 1), nl->x, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* q, v of Eq. (30) and the predictors q~, v~ at the iterate x */
static void VINSGAlphaNLIterate(VINSGAlphaNL *nl, const PetscReal x[])
{
  const PetscInt   n     = nl->n;
  const PetscReal *delta = x, *U = x + n, *W = x + 2 * n;

  for (PetscInt i = 0; i < n; i++) {
    nl->qt[i] = nl->qt0[i] + nl->hb * delta[i];
    nl->q[i]  = nl->qt[i] + U[i];
    nl->vt[i] = nl->vt0[i] + delta[i];
    nl->v[i]  = nl->vt[i] + W[i];
  }
}

/* whether row j is held at position level (Eq. 29e selects g_j = 0): a bilateral row, or nu_j - r_j g_j >= 0 */
static PetscBool VINSGAlphaNLHeld(const VINSGAlphaNL *nl, PetscInt j, PetscReal nu)
{
  return nl->st->set.kinds[j] == VI_CONTACT_BILATERAL || nu - nl->rscale[j] * nl->g[j] >= 0 ? PETSC_TRUE : PETSC_FALSE;
}

/* A tangential row's kind in the Newton matrix (VISSNewton.same): 0 a unit row, 1 stick, 2 and 3 slip in either direction
   (the row's dF/dLambda_n = -mu s changes sign with s), read from the row VINonlinearCoulomb wrote */
static PetscInt VINSGAlphaNLTangentKind(const PetscReal Ja[], PetscInt ct, PetscInt cn, PetscBool isunit)
{
  if (isunit) return 0;
  if (Ja[ct] <= 0) return 1;
  return Ja[cn] > 0 ? 2 : 3;
}

/* The residual of VINSGAlphaNLForm and its unit flags (the sets A, B, the tangential rows' kinds) at the iterate q, v that
   VINSGAlphaNLIterate set, from f, g, g(q~), G and Gt evaluated there. The Coulomb rows' Jacobian rows go into J when it is
   given, else into the scratch Jc. */
static PetscErrorCode VINSGAlphaNLResidual(VINSGAlphaNL *nl, const PetscReal x[], PetscReal F[], PetscReal J[])
{
  VIStepper        st = nl->st;
  const PetscInt   n = nl->n, m = nl->m, mb = nl->mb, N = nl->N;
  const PetscInt   cU = n, cW = 2 * n, cl = 3 * n, cn = 3 * n + mb, cL = 3 * n + mb + m, cT = 3 * n + mb + 2 * m, cP = cT + nl->mt;
  const PetscReal  hb = nl->hb, c = nl->c;
  const PetscReal *delta = x, *U = x + cU, *W = x + cW, *lt = x + cl, *nu = x + cn, *Lam = x + cL, *Lt = x + cT, *nut = x + cP;
  PetscBool       *unit = nl->nw.unit;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < N; i++) unit[i] = PETSC_FALSE;
  for (PetscInt i = 0; i < n; i++) { /* (29a), (29c), (29f) */
    PetscReal r = -nl->f[i], rU = 0, rW = 0;
    for (PetscInt k = 0; k < n; k++) r += c * nl->M[i * n + k] * delta[k];
    for (PetscInt b = 0; b < mb; b++) r -= nl->G[nl->bil[b] * n + i] * lt[b];
    for (PetscInt k = 0; k < n; k++) rU += nl->M[i * n + k] * U[k];
    for (PetscInt j = 0; j < m; j++) rU -= nl->G[j * n + i] * nu[j];
    for (PetscInt k = 0; k < nl->mt; k++) rU -= nl->Gt[k * n + i] * nut[k];
    for (PetscInt k = 0; k < n; k++) rW += nl->M[i * n + k] * W[k];
    for (PetscInt j = 0; j < m; j++) rW -= nl->G[j * n + i] * Lam[j];
    for (PetscInt k = 0; k < nl->mt; k++) rW -= nl->Gt[k * n + i] * Lt[k];
    F[i]      = r;
    F[cU + i] = rU;
    F[cW + i] = rW;
  }
  for (PetscInt b = 0; b < mb; b++) { /* (29b): G_b v~ + dg_b/dt = 0 */
    const PetscInt   j  = nl->bil[b];
    const PetscReal *Gj = nl->G + j * n;
    PetscReal        r  = nl->grate[j];
    for (PetscInt k = 0; k < n; k++) r += Gj[k] * nl->vt[k];
    F[cl + b] = r;
  }
  for (PetscInt j = 0; j < m; j++) { /* (29d, e): position rows; (29g, h): velocity rows */
    const PetscBool  bil = st->set.kinds[j] == VI_CONTACT_BILATERAL ? PETSC_TRUE : PETSC_FALSE;
    const PetscReal *Gj  = nl->G + j * n;
    PetscReal        gv  = nl->pre[j] + nl->grate[j]; /* G v + dg/dt (+ e G(q_n) v_n) */
    for (PetscInt k = 0; k < n; k++) gv += Gj[k] * nl->v[k];
    nl->A[j]  = VINSGAlphaNLHeld(nl, j, nu[j]);
    nl->B[j]  = bil || (nl->gs[j] <= 0 && Lam[j] - nl->rscale[j] * gv >= 0) ? PETSC_TRUE : PETSC_FALSE;
    F[cn + j] = nl->A[j] ? nl->g[j] : nu[j];
    F[cL + j] = nl->B[j] ? gv : Lam[j];
    if (!nl->A[j]) unit[cn + j] = PETSC_TRUE;
    if (!nl->B[j]) unit[cL + j] = PETSC_TRUE;
  }
  /* Coulomb's law on the tangential impulses at velocity level (an extension: seed 002 is frictionless), as the Moreau-Jean
     path (VINonlinearCoulomb): off where Lambda_n = 0 is imposed, stick (w_t = Gt v = 0) inside the disk of radius
     mu Lambda_n, slip outside; the tangential rows' curvature is left out of the Jacobian. A sticking contact's tangential
     position is held, g_t = 0 (the ROM path's Eqs. 29c, 29e on its tangential rows), by nu_t; slipping, nu_t = h Lambda_t / 2
     (above VINSGAlphaNL); off, nu_t = 0. */
  for (PetscInt k = 0, d; k < nl->mt; k += d) {
    const PetscInt j = nl->trow[k], cv[2] = {0, cW};
    PetscReal     *Jk = J ? J + (cT + k) * N : nl->Jc;
    d                 = st->set.dims[j] - 1;
    nl->stick[k]      = VINonlinearCoulombSticks(n, d, nl->Gt + k * n, nl->v, NULL, st->set.mu[j], nl->rt[k], nl->B[j], Lam[j], Lt + k);
    VINonlinearCoulomb(n, d, nl->Gt + k * n, nl->v, NULL, st->set.mu[j], nl->rt[k], nl->B[j], Lam[j], Lt + k, N, 2, cv, NULL, cL + j, cT + k,
                       F + cT + k, Jk, unit);
    for (PetscInt a = k; a < k + d; a++) {
      const PetscInt kind = VINSGAlphaNLTangentKind(Jk + (a - k) * N, cT + a, cL + j, unit[cT + a]);
      PetscReal      gt   = 0;
      if (J)
        nl->tkind[a] = kind;
      else if (kind != nl->tkind[a])
        nl->nw.same = PETSC_FALSE; /* stick and slip, or slip's direction, changed: a Newton step */
      if (!nl->B[j]) {
        F[cP + a]    = nut[a];
        unit[cP + a] = PETSC_TRUE;
        continue;
      }
      if (!nl->stick[k]) {
        F[cP + a] = nut[a] - 0.5 * nl->h * Lt[a];
        continue;
      }
      for (PetscInt i = 0; i < n; i++) {
        nl->gtm[a * n + i] = 0.5 * (nl->Gtn[a * n + i] + nl->Gt[a * n + i]);
        gt += nl->gtm[a * n + i] * (nl->dq0[i] + hb * delta[i] + U[i]);
      }
      F[cP + a] = gt;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VINSGAlphaNLForm(void *ctx, const PetscReal x[], PetscReal F[], PetscReal J[])
{
  VINSGAlphaNL    *nl = (VINSGAlphaNL *)ctx;
  VIStepper        st = nl->st;
  const PetscInt   n = nl->n, m = nl->m, mb = nl->mb, N = nl->N;
  const PetscInt   cU = n, cW = 2 * n, cl = 3 * n, cn = 3 * n + mb, cL = 3 * n + mb + m, cT = 3 * n + mb + 2 * m, cP = cT + nl->mt;
  const PetscReal  hb = nl->hb, c = nl->c;
  const PetscReal *delta = x, *U = x + cU, *W = x + cW, *lt = x + cl, *nu = x + cn, *Lam = x + cL;

  PetscFunctionBeginUser;
  VINSGAlphaNLIterate(nl, x);
  if (!nl->constant) PetscCall(VISystemComputeMass(st->sys, nl->q, nl->M));
  PetscCall(VISystemComputeForce(st->sys, nl->t, nl->q, nl->v, nl->f));
  if (J) PetscCall(VISystemComputeForceJacobian(st->sys, nl->t, nl->q, nl->v, nl->dfdq, nl->dfdu));
  PetscCall(VISystemEvaluateConstraints(st->sys, nl->t, nl->q, nl->g, nl->G, NULL));
  PetscCall(VISystemEvaluateConstraints(st->sys, nl->t, nl->qt, nl->gs, NULL, NULL)); /* the gates g(q~), Eq. (29h) */
  if (nl->mt) PetscCall(VISystemEvaluateTangents(st->sys, nl->t, nl->q, nl->Gt));
  PetscCall(VINSGAlphaNLResidual(nl, x, F, J));
  if (!J) PetscFunctionReturn(PETSC_SUCCESS); /* the residual alone (a chord step of VISSNewtonSolve) */
  /* the Jacobian: the rows (29a-c, f) are zeroed and written; a multiplier's row is a unit row (flagged by the residual, not
     written) or zeroed and written */
  for (PetscInt i = 0; i < cn; i++) PetscCall(PetscArrayzero(J + i * N, N));
  /* (29a): the curvature d(G_b^T lambda~)/dq, and d(G_b v~)/dq for (29b) */
  for (PetscInt j = 0; j < m; j++) nl->wb[j] = 0;
  for (PetscInt b = 0; b < mb; b++) nl->wb[nl->bil[b]] = lt[b];
  PetscCall(VISystemComputeConstraintDerivatives(st->sys, nl->t, nl->q, nl->vt, nl->wb, NULL, nl->HVt, nl->Hw));
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt k = 0; k < n; k++) {
      J[i * N + k]      = c * nl->M[i * n + k] - hb * nl->dfdq[i * n + k] - nl->dfdu[i * n + k] - hb * nl->Hw[i * n + k];
      J[i * N + cU + k] = -nl->dfdq[i * n + k] - nl->Hw[i * n + k];
      J[i * N + cW + k] = -nl->dfdu[i * n + k];
    }
    for (PetscInt b = 0; b < mb; b++) J[i * N + cl + b] = -nl->G[nl->bil[b] * n + i];
  }
  /* (29c) and (29f), and d(G v)/dq for (29g, h) */
  PetscCall(VISystemComputeConstraintDerivatives(st->sys, nl->t, nl->q, nl->v, nu, NULL, nl->HV, nl->Hw));
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt k = 0; k < n; k++) {
      J[(cU + i) * N + k]      = -hb * nl->Hw[i * n + k];
      J[(cU + i) * N + cU + k] = nl->M[i * n + k] - nl->Hw[i * n + k];
    }
    for (PetscInt j = 0; j < m; j++) J[(cU + i) * N + cn + j] = -nl->G[j * n + i];
    for (PetscInt k = 0; k < nl->mt; k++) J[(cU + i) * N + cP + k] = -nl->Gt[k * n + i];
  }
  PetscCall(VISystemComputeConstraintDerivatives(st->sys, nl->t, nl->q, NULL, Lam, NULL, NULL, nl->Hw));
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt k = 0; k < n; k++) {
      J[(cW + i) * N + k]      = -hb * nl->Hw[i * n + k];
      J[(cW + i) * N + cU + k] = -nl->Hw[i * n + k];
      J[(cW + i) * N + cW + k] = nl->M[i * n + k];
    }
    for (PetscInt j = 0; j < m; j++) J[(cW + i) * N + cL + j] = -nl->G[j * n + i];
    for (PetscInt k = 0; k < nl->mt; k++) J[(cW + i) * N + cT + k] = -nl->Gt[k * n + i];
  }
  /* M(q): the rows (29a, c, f) are M(q) w - ..., w = c delta, U, W, with dq/d delta = h beta/gamma and dq/dU = 1 */
  if (!nl->constant) {
    const PetscReal *ws[3] = {delta, U, W};
    const PetscInt   ro[3] = {0, cU, cW};
    for (PetscInt b = 0; b < 3; b++) {
      for (PetscInt k = 0; k < n; k++) nl->mw[k] = b ? ws[b][k] : c * delta[k];
      PetscCall(VISystemComputeMassJacobian(st->sys, nl->q, nl->mw, nl->dMw));
      for (PetscInt i = 0; i < n; i++)
        for (PetscInt k = 0; k < n; k++) {
          J[(ro[b] + i) * N + k] += hb * nl->dMw[i * n + k];
          J[(ro[b] + i) * N + cU + k] += nl->dMw[i * n + k];
        }
    }
  }
  /* (29b): d/dq of G_j w is (H_j w)^T */
  for (PetscInt b = 0; b < mb; b++) {
    const PetscInt   j = nl->bil[b], row = (cl + b) * N;
    const PetscReal *Gj = nl->G + j * n, *HVj = nl->HVt + j * n;
    for (PetscInt k = 0; k < n; k++) {
      const PetscReal hv = HVj[k];
      J[row + k]      = Gj[k] + hb * hv;
      J[row + cU + k] = hv;
    }
    if (nl->nw.regularize) J[row + cl + b] = -1e-10 / nl->rscale[j]; /* redundant rows (VISSNewton.regularize) */
  }
  /* (29d, e): position rows; (29g, h): velocity rows */
  for (PetscInt j = 0; j < m; j++) {
    const PetscReal *Gj = nl->G + j * n, *HVj = nl->HV + j * n;
    const PetscInt   rp = (cn + j) * N, rv = (cL + j) * N;
    if (nl->A[j]) {
      PetscCall(PetscArrayzero(J + rp, N));
      for (PetscInt k = 0; k < n; k++) {
        J[rp + k]      = hb * Gj[k];
        J[rp + cU + k] = Gj[k];
      }
      if (nl->nw.regularize) J[rp + cn + j] = -1e-6 / nl->rscale[j]; /* redundant rows: the position rows' eps as the tangential ones' below */
    }
    if (nl->B[j]) {
      PetscCall(PetscArrayzero(J + rv, N));
      for (PetscInt k = 0; k < n; k++) {
        const PetscReal hv = HVj[k];
        J[rv + k]      = Gj[k] + hb * hv;
        J[rv + cU + k] = hv;
        J[rv + cW + k] = Gj[k];
      }
      if (nl->nw.regularize) J[rv + cL + j] = -1e-10 / nl->rscale[j];
    }
  }
  /* the tangential position rows (Coulomb's rows were written by the residual): a sticking contact's g_t = 0 with the mean
     of its rows at q_n and q, a slipping one's nu_t - h Lambda_t / 2 (the comment above VINSGAlphaNLForm's struct). A body
     stuck on three feet has nine position rows (normal and tangential) on six motions: three combinations of the rows are
     redundant, and the round-off of the normal gaps (1e-17 m) is not in the range of their gradients. A diagonal -eps / r in
     the Newton matrix only (g_t moves by about nu_t / r; the solution is unchanged) keeps it nonsingular and moves the
     multipliers along the redundant combinations by that round-off times r / eps per iteration: with the velocity rows'
     eps = 1e-10 that is 2.6e-7 per iteration on the tripod (2 kg), which never passes the convergence test; eps = 1e-6 makes
     it 3e-11 and slows the other directions' convergence by a factor 1e-6 per iteration only. */
  for (PetscInt a = 0; a < nl->mt; a++) {
    const PetscInt j  = nl->trow[a];
    PetscInt       k0 = a;
    PetscReal     *Ja = J + (cP + a) * N;
    if (!nl->B[j]) continue;
    while (k0 > 0 && nl->trow[k0 - 1] == j) k0--; /* the contact's first tangential row: its stick flag */
    PetscCall(PetscArrayzero(Ja, N));
    if (!nl->stick[k0]) {
      Ja[cP + a] = 1;
      Ja[cT + a] = -0.5 * nl->h;
      continue;
    }
    for (PetscInt i = 0; i < n; i++) {
      Ja[i]      = hb * nl->gtm[a * n + i];
      Ja[cU + i] = nl->gtm[a * n + i];
    }
    Ja[cP + a] = -1e-6 / nl->rt[a];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Level 0: the initial state and a consistent smooth acceleration (seed 002 Alg. 1): M a - G_b^T lambda~ = f,
   G_b a = -(d(G_b u)/dq) u, the bilateral rows' acceleration level. */
static PetscErrorCode VINSGAlphaNLInitial(VIStepper st, VINSGAlphaNL *nl, PetscReal t)
{
  const PetscInt   n = nl->n, mb = nl->mb;
  const PetscReal *q0, *u0;
  PetscReal       *lam;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetInitialState(st->sys, &q0, &u0));
  PetscCall(PetscArraycpy(st->q, q0, n));
  PetscCall(PetscArraycpy(st->u, u0, n));
  PetscCall(VISystemComputeMass(st->sys, q0, nl->M)); /* kept for every step when the mass is constant */
  PetscCall(VINonlinearConstraints(st, t, q0, nl->g, nl->G, nl->H));
  /* a_0 consistent with the joints, the bilateral rows' lambda_0 (shared with mixed's nonlinear path) */
  PetscCall(PetscMalloc1(PetscMax(st->nc, 1), &lam));
  PetscCall(VINonlinearInitialAcceleration(st, t, q0, u0, nl->a, lam));
  PetscCall(PetscArraycpy(nl->vdt, nl->a, n));
  nl->power = 0;
  for (PetscInt b = 0; b < mb; b++) {
    st->lambda[st->offsets[nl->bil[b]]] = lam[nl->bil[b]];
    for (PetscInt k = 0; k < n; k++) nl->power += lam[nl->bil[b]] * nl->G[nl->bil[b] * n + k] * u0[k];
  }
  PetscCall(PetscFree(lam));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VINSGAlphaNLStep(VIStepper st, VINSGAlpha *ns, VINSGAlphaNL *nl, PetscReal t)
{
  const PetscInt  n = nl->n, m = nl->m, mb = nl->mb;
  const PetscReal h = st->dt, am = ns->alpha_m, af = ns->alpha_f, ga = ns->gamma, be = ns->beta;
  PetscReal      *q = st->q, *v = st->u;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(st->lambda, st->nlambda));
  if (nl->first) {
    PetscCall(VINSGAlphaNLInitial(st, nl, t));
  } else {
    nl->t = t;
    PetscCall(PetscArraycpy(nl->wk, q, n));
    PetscCall(PetscArraycpy(nl->wk + n, v, n));
    PetscCall(VISystemComputeMass(st->sys, q, nl->M));
    /* the predictor, Eq. (40) */
    for (PetscInt i = 0; i < n; i++) {
      PetscReal a0 = (af * nl->vdt[i] - am * nl->a[i]) / (1 - am);
      nl->vt0[i]   = v[i] + h * (1 - ga) * nl->a[i] + h * ga * a0;
      nl->qt0[i]   = q[i] + h * v[i] + h * h * (0.5 - be) * nl->a[i] + h * h * be * a0;
      nl->a[i]     = a0;
      nl->dq0[i]   = nl->qt0[i] - q[i];
    }
    /* the pre-impact term of Newton's law at level n (Eq. 24): e_j G_j(q_n) v_n, none on a row held at position level */
    {
      PetscBool same = PETSC_FALSE;
      if (nl->have_G && nl->tG == t - h) PetscCall(PetscMemcmp(nl->qG, q, n * sizeof(PetscReal), &same));
      if (!same) {
        PetscCall(VISystemEvaluateConstraints(st->sys, t - h, q, NULL, nl->Gn, NULL));
        if (nl->mt) PetscCall(VISystemEvaluateTangents(st->sys, t - h, q, nl->Gtn)); /* g_t's rows at q_n */
      }
    }
    for (PetscInt j = 0; j < m; j++) {
      PetscReal gv = 0;
      for (PetscInt k = 0; k < n; k++) gv += nl->Gn[j * n + k] * v[k];
      nl->pre[j] = nl->held[j] != 0 ? 0 : nl->e[j] * gv;
    }
    /* r_j = 1 / (G M^-1 G^T)_jj at the predictor (M diagonal or not: its diagonal's inverse is enough for a scale) */
    PetscCall(VISystemEvaluateConstraints(st->sys, t, nl->qt0, NULL, nl->G, nl->grate));
    for (PetscInt j = 0; j < m; j++) {
      PetscReal d = 0;
      for (PetscInt k = 0; k < n; k++) d += nl->G[j * n + k] * nl->G[j * n + k] / nl->M[k * n + k];
      nl->rscale[j] = d > 0 ? 1 / d : 1;
    }
    if (nl->mt) PetscCall(VISystemEvaluateTangents(st->sys, t, nl->qt0, nl->Gt));
    for (PetscInt k = 0; k < nl->mt; k++) {
      PetscReal d = 0;
      for (PetscInt i = 0; i < n; i++) d += nl->Gt[k * n + i] * nl->Gt[k * n + i] / nl->M[i * n + i];
      nl->rt[k] = d > 0 ? 1 / d : 1;
      if (k > 0 && nl->trow[k - 1] == nl->trow[k]) nl->rt[k] = nl->rt[k - 1] = PetscMin(nl->rt[k], nl->rt[k - 1]); /* one r per contact */
    }
    /* from the last step's solution (a warm start: 2.0 iterations per step on the slider-crank of seed 001 Table 1, a Newton step and a chord step,
       3.0 from zero; the solution is the same to the convergence tolerance) */
    /* (The extrapolation x_n + (x_n - x_{n-1}), Moreau-Jean's predictor, was tried: 2.0206 iterations per step instead of
       2.0144 on Table 1 to 0.05 s, 179,100 instructions per step instead of 179,000: a Newton step and a chord step are the
       least a solve takes, and the chord steps converge from the warm start already.) */
    PetscCall(VISSNewtonSolve(st, &nl->nw, VINSGAlphaNLForm, nl, nl->x));
    /* the state of the converged iterate: q, v of Eq. (30), vdot~ = c delta, a of Eq. (30e); g, G, Gt and the set A at q (what
       VINSGAlphaNLForm computes there, without its Newton matrix) */
    VINSGAlphaNLIterate(nl, nl->x);
    PetscCall(VISystemEvaluateConstraints(st->sys, t, nl->q, nl->g, nl->G, NULL));
    if (nl->mt) PetscCall(VISystemEvaluateTangents(st->sys, t, nl->q, nl->Gt));
    for (PetscInt j = 0; j < m; j++) nl->A[j] = VINSGAlphaNLHeld(nl, j, nl->x[3 * n + mb + j]);
    for (PetscInt i = 0; i < n; i++) {
      q[i]       = nl->q[i];
      v[i]       = nl->v[i];
      nl->vdt[i] = nl->c * nl->x[i];
      nl->a[i] += (1 - af) / (1 - am) * nl->vdt[i];
    }
    /* the constraint forces (Eq. 33): Lambda / h, plus lambda~ on the bilateral rows */
    for (PetscInt j = 0; j < m; j++) {
      st->lambda[st->offsets[j]] = nl->x[3 * n + mb + m + j] / h;
      nl->held[j]                = st->set.kinds[j] != VI_CONTACT_BILATERAL && nl->A[j] ? 1 : 0;
    }
    for (PetscInt b = 0; b < mb; b++) st->lambda[st->offsets[nl->bil[b]]] += nl->x[3 * n + b];
    for (PetscInt k = 0, a = 0; k < nl->mt; k++) {
      a                                        = k > 0 && nl->trow[k - 1] == nl->trow[k] ? a + 1 : 1;
      st->lambda[st->offsets[nl->trow[k]] + a] = nl->x[3 * n + mb + 2 * m + k] / h;
    }
    /* the energy balance's terms (the constraints' work: impacts, friction, drivers; the loads' work) */
    PetscCall(VINonlinearWork(st, t, h, nl->wk, nl->wk + n, nl->G, nl->mt, nl->trow, nl->Gt, &nl->power, nl->wk + 2 * n));
  }
  if (m > 0 && nl->first)
    PetscCall(VISystemEvaluateConstraints(st->sys, t, q, st->gap, NULL, NULL));
  else if (m > 0) { /* g, G and Gt at (t, q) above: the gaps, and the next step's rows at q_n */
    PetscCall(PetscArraycpy(st->gap, nl->g, m));
    PetscCall(PetscArraycpy(nl->Gn, nl->G, m * n));
    if (nl->mt) PetscCall(PetscArraycpy(nl->Gtn, nl->Gt, nl->mt * n));
    PetscCall(PetscArraycpy(nl->qG, q, n));
    nl->tG     = t;
    nl->have_G = PETSC_TRUE;
  }
  nl->first = PETSC_FALSE;
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
  if (ns->nl) {
    PetscCall(VINSGAlphaNLStep(st, ns, ns->nl, t));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (ns->modal) {
    /* f~ = sum_l s_l Phi^T v_l; the preloads' -p on the normal rows is -Phi^T p */
    PetscCall(VIModalFormForce(st, &ns->md, t, f));
    for (PetscInt i = 0; i < n; i++) ns->fs[i] = f[i] - ns->pm[i];
  } else {
    PetscCall(VISystemEvaluateForce(sys, t, f));
    /* the smooth motion's load: the preload p of a contact acts as -p on its normal row, its total force being a multiplier */
    PetscCall(PetscArraycpy(ns->fs, f, n));
    for (PetscInt j = 0; j < m; j++) ns->fs[st->offsets[j]] -= st->set.preload[j];
  }
  if (ns->first) {
    const PetscReal *q0, *u0;
    /* level 0: the initial state and a consistent smooth acceleration, M vdot~_0 = f(q0, v0, t0) (seed 002 Alg. 1), a_0 = vdot~_0 */
    PetscCall(VISystemGetInitialState(sys, &q0, &u0));
    if (ns->modal) {
      PetscCall(PetscArraycpy(q, ns->md.eta0, n));
      PetscCall(PetscArraycpy(v, ns->md.veta0, n));
      for (PetscInt i = 0; i < n; i++) ns->vdt[i] = ns->fs[i] - ns->md.omega2[i] * q[i] - ns->md.dd[i] * v[i];
    } else {
      PetscCall(PetscArraycpy(q, q0, n));
      PetscCall(PetscArraycpy(v, u0, n));
      for (PetscInt i = 0; i < n; i++) ns->work[i] = ns->fs[i] - VIDot(n, st->K + i * n, q) - VIDot(n, st->D + i * n, v);
      VIMatVec(n, n, ns->Minv, n, ns->work, 0.0, ns->vdt);
    }
    if (ns->mb) PetscCall(VINSGAlphaConsistentAcceleration(st, ns, t));
    PetscCall(PetscArraycpy(ns->a, ns->vdt, n));
    PetscCall(PetscArrayzero(st->lambda, st->nb));
    PetscCall(VINSGAlphaApplyMK(st, ns, v, q, ns->Mv, ns->Kq));
    ns->flight_step      = PETSC_FALSE;
    st->energy.kinetic   = 0.5 * VIDot(n, v, ns->Mv);
    st->energy.potential = 0.5 * VIDot(n, q, ns->Kq);
  } else {
    PetscReal w_contact = st->energy.obstacle_work - st->energy.friction_dissipation; /* minus this step's below: their work */
    PetscBool flight;                                                                 /* modal path: no constraint can act */
    /* predictor, Eq. (40): vdot~ = 0, U = W = 0 */
    for (PetscInt i = 0; i < n; i++) {
      PetscReal a0 = (af * ns->vdt[i] - am * ns->a[i]) / (1 - am);
      ns->vt0[i]   = v[i] + h * (1 - ga) * ns->a[i] + h * ga * a0;
      ns->qt0[i]   = q[i] + h * v[i] + h * h * (0.5 - be) * ns->a[i] + h * h * be * a0;
      ns->a[i]     = a0;
    }
    /* s0 = S^-1 f - S^-1 D v~0 - S^-1 K q~0: the smooth correction without constraints (Eq. 29a), one dgemv, rows split over the group */
    if (ns->modal) {
      for (PetscInt i = 0; i < n; i++) ns->s0[i] = ns->sinv[i] * (ns->fs[i] - ns->md.dd[i] * ns->vt0[i] - ns->md.omega2[i] * ns->qt0[i]);
    } else {
      PetscCall(PetscArraycpy(ns->pin, ns->fs, n));
      PetscCall(PetscArraycpy(ns->pin + n, ns->vt0, n));
      PetscCall(PetscArraycpy(ns->pin + 2 * n, ns->qt0, n));
      VIMatVec(ns->rows.hi - ns->rows.lo, 3 * n, ns->P + ns->rows.lo * 3 * n, 3 * n, ns->pin, 0.0, ns->s0 + ns->rows.lo);
      PetscCall(VIRowSplitGather(&ns->rows, ns->s0));
    }
    PetscCall(PetscArraycpy(ns->delta, ns->s0, n));
    PetscCall(PetscArrayzero(st->lambda, st->nb));
    flight = PETSC_FALSE;
    if (m > 0) {
      if (ns->modal) {
        /* g(q~0) = g(t, 0) + G~ q~0 and the gate g + (h beta / gamma) G~ s0 of the normal rows: when every one is open and nothing else
           can act (no bilateral row, no preload), the step is free flight and needs no more */
        PetscCall(VISystemEvaluateConstraints(sys, t, ns->zero, ns->g, NULL, ns->grate));
        VIMatVec(m, n, ns->G, n, ns->qt0, 1.0, ns->g);
        VIMatVec(m, n, ns->G, n, ns->s0, 0.0, ns->gs0);
        flight = (PetscBool)(ns->mb == 0 && !ns->any_preload);
        for (PetscInt j = 0; j < m && flight; j++)
          if (ns->g[j] + hb * ns->gs0[j] <= 0) flight = PETSC_FALSE;
        if (!flight) {
          PetscCall(VISystemEvaluateConstraints(sys, t - h, ns->zero, NULL, NULL, ns->gprev_rate));
          VIMatVec(ns->mt, n, ns->G + m * n, n, ns->s0, 0.0, ns->gs0 + m);
        }
      } else {
        /* the constraints from the system: gaps and gradient at the predicted position q~0 (Sec. 7.2: q* = q~), gradient and rate at
           level n for the pre-impact velocity of the impact law (Eq. 24) */
        PetscCall(VISystemEvaluateConstraints(sys, t - h, q, NULL, ns->Gprev, ns->gprev_rate));
        PetscCall(VISystemEvaluateConstraints(sys, t, ns->qt0, ns->g, ns->G, ns->grate));
        {
          PetscBool same = PETSC_FALSE;
          if (ns->have_blocks) PetscCall(PetscMemcmp(ns->G, ns->Gc, sizeof(PetscReal) * m * n, &same));
          if (!same) VINSGAlphaBlocks(st, ns);
        }
        VIMatVec(ns->mr, n, ns->G, n, ns->s0, 0.0, ns->gs0);
      }
    }
    if (flight) {
      for (PetscInt j = 0; j < m; j++) {
        ns->bp[j]   = ns->g[j] + hb * ns->gs0[j];
        ns->held[j] = 0;
      }
      ns->nnz = 0;
      PetscCall(PetscArrayzero(ns->work, n));
    } else if (m > 0) {
      VIMatVec(ns->mr, n, ns->G, n, ns->vt0, 0.0, ns->gvt);
      VIMatVec(ns->mt, n, ns->G + m * n, n, ns->qt0, 0.0, ns->gqt + m);
      VIMatVec(ns->mt, n, ns->G + m * n, n, q, 0.0, ns->gq + m);
      VIMatVec(m, n, ns->Gprev, n, v, 0.0, ns->gpv);
      for (PetscInt j = 0; j < m; j++) {
        /* Newton's law acts on impacts only: e = 0 for bilateral rows (Sec. 7) and for a contact whose gap the previous step held at
           position level (closed at t_n: no impact in this step; its w_n is then the remainder of the position correction, not a
           pre-impact velocity, and restituting it feeds a chatter that gains energy) */
        const PetscReal ej = (st->set.kinds[j] == VI_CONTACT_BILATERAL || ns->held[j] != 0) ? 0 : e;
        ns->bp[j]          = ns->g[j] + hb * ns->gs0[j];
        ns->bv[j]          = ns->gvt[j] + ns->gs0[j] + ns->grate[j];
        if (ej != 0) ns->bv[j] += ej * (ns->gpv[j] + ns->gprev_rate[j]);
      }
      /* tangential rows: the relative velocity w.r.t. the obstacle of the unconstrained smooth motion, and its tangential position
         against the one of level n carried by the obstacle over the step (held while sticking) */
      for (PetscInt i = m; i < ns->mr; i++) {
        const PetscInt  j = ns->trow[i], k = i - ns->tfirst[j];
        const PetscReal drive = st->obstacle_v[2 * j + k];
        ns->bv[i]             = ns->gvt[i] + ns->gs0[i] - drive;
        ns->bp[i]             = ns->gqt[i] + hb * ns->gs0[i] - ns->gq[i] - h * drive;
      }
      PetscCall(VINSGAlphaContacts(st, ns));
      for (PetscInt j = 0; j < m; j++) ns->held[j] = ns->setA[j] ? 1 : 0;
      /* delta = s0 - Y nu - Z Lambda + T lambda~; U = X nu, W = X Lambda added below through work (U) and lambda (W) */
      PetscCall(PetscArrayzero(ns->work, n));
      for (PetscInt a = 0; a < ns->nnz; a++) {
        const PetscInt j = ns->nz[a];
        for (PetscInt i = 0; i < n; i++) {
          ns->delta[i] -= ns->Y[j * n + i] * ns->nu[j] + ns->Z[j * n + i] * ns->lam[j];
          ns->work[i] += ns->X[j * n + i] * ns->nu[j];
        }
      }
      for (PetscInt b = 0; b < ns->mb; b++)
        for (PetscInt i = 0; i < n; i++) ns->delta[i] += ns->T[ns->bil[b] * n + i] * ns->lt[b];
    } else
      PetscCall(PetscArrayzero(ns->work, n));
    ns->flight_step = flight;
    /* Eq. (30): q = q~ + U, v = v~ + W, (1 - alpha_m) a + alpha_m a_n = (1 - alpha_f) vdot~ + alpha_f vdot~_n */
    PetscCall(PetscArraycpy(ns->uprev, v, n));
    for (PetscInt i = 0; i < n; i++) {
      PetscReal Wi = 0;
      for (PetscInt a = 0; a < ns->nnz; a++) Wi += ns->X[ns->nz[a] * n + i] * ns->lam[ns->nz[a]];
      q[i]       = ns->qt0[i] + hb * ns->delta[i] + ns->work[i];
      v[i]       = ns->vt0[i] + ns->delta[i] + Wi;
      ns->vdt[i] = ns->c * ns->delta[i];
      ns->a[i] += (1 - af) / (1 - am) * ns->vdt[i];
    }
    /* the contact force on the boundary coordinates: Lambda / h (seed 002 Eq. 33), the mean force over the step, less the preload
       (the change from state 0); a bilateral row's reaction Lambda / h + lambda~ */
    if (!flight) { /* in free flight no force acts: lambda stays 0 */
      for (PetscInt b = 0; b < ns->mb; b++) ns->work0[ns->bil[b]] = ns->lt[b];
      VIMatVec(ns->modal ? ns->mr : m, n, ns->G, n, v, 0.0, ns->gv);
      if (ns->modal) VIMatVec(ns->mt, n, ns->G + m * n, n, ns->uprev, 0.0, ns->gpv + m); /* the tangential rows' velocities in eta */
      for (PetscInt j = 0; j < m; j++) {
        PetscReal vm = 0.5 * (ns->gpv[j] + ns->gv[j]); /* gpv: G_n v_n, v_n = uprev */
        if (st->set.kinds[j] == VI_CONTACT_BILATERAL) {
          st->lambda[st->offsets[j]] = ns->lam[j] / h + ns->work0[j];
          st->energy.obstacle_work += (ns->lam[j] + h * ns->work0[j]) * vm;
          continue;
        }
        st->lambda[st->offsets[j]] = ns->lam[j] / h - st->set.preload[j];
        st->energy.obstacle_work += (ns->lam[j] - h * st->set.preload[j]) * vm;
      }
      /* friction: work against the relative sliding, and the obstacle's drive (as moreau) */
      for (PetscInt i = m; i < ns->mr; i++) {
        const PetscInt  j = ns->trow[i], k = i - ns->tfirst[j], row = st->offsets[j] + 1 + k;
        const PetscReal drive = st->obstacle_v[2 * j + k], vm = ns->modal ? 0.5 * (ns->gpv[i] + ns->gv[i]) : 0.5 * (ns->uprev[row] + v[row]);
        st->lambda[row] = ns->lam[i] / h;
        st->energy.friction_dissipation -= ns->lam[i] * (vm - drive);
        st->energy.obstacle_work += ns->lam[i] * drive;
      }
    }
    w_contact = st->energy.obstacle_work - st->energy.friction_dissipation - w_contact;
    for (PetscInt i = 0; i < n; i++) ns->vmid[i] = 0.5 * (ns->uprev[i] + v[i]);
    if (ns->modal)
      for (PetscInt i = 0; i < n; i++) ns->dvmid[i] = ns->md.dd[i] * ns->vmid[i];
    else
      VIMatVec(n, n, st->D, n, ns->vmid, 0.0, ns->dvmid);
    PetscCall(VINSGAlphaApplyMK(st, ns, v, q, ns->Mv1, ns->Kq1));
    {
      /* The energies of level n + 1 and the numerical dissipation of the step: with v_m = (v_n + v_n+1) / 2, q_m likewise, f_m = (f_n + f_n+1) / 2,
         T + V changes by exactly v_m . M (v_n+1 - v_n) + (K q_m) . (q_n+1 - q_n); the physical terms recorded are the external work
         f_m . dq, the damping h v_m . D v_m and the contact impulses' work w (obstacle work less friction dissipation). What is left,
           numerical = -[v_m . M dv + (K q_m - f_m) . dq + h v_m . D v_m - w],
         is the scheme's departure from the trapezoidal rule (M dv = h (f_m - K q_m - D v_m) + impulses, dq = h v_m): zero for
         rho_inf = 1 in smooth motion, generalized-alpha's algorithmic damping for rho_inf < 1, and the energy of the position projection
         U = M^-1 G^T nu (Eq. 29c) where contacts close or stay held. Two products per step (M v, K q), which the records' energies
         would cost otherwise. */
      PetscReal T = 0, V = 0, dE = 0, wd = 0, wx = 0;
      for (PetscInt i = 0; i < n; i++) {
        const PetscReal dq = q[i] - ns->qprev[i], fm = 0.5 * (ns->fprev[i] + f[i]);
        T += v[i] * ns->Mv1[i];
        V += q[i] * ns->Kq1[i];
        dE += ns->vmid[i] * (ns->Mv1[i] - ns->Mv[i]) + 0.5 * (ns->Kq1[i] + ns->Kq[i]) * dq;
        wd += h * ns->vmid[i] * ns->dvmid[i];
        wx += fm * dq;
      }
      st->energy.kinetic   = 0.5 * T;
      st->energy.potential = 0.5 * V;
      st->energy.damping_dissipation += wd;
      st->energy.external_work += wx;
      st->energy.numerical_dissipation -= dE - wx + wd - w_contact;
    }
    PetscCall(PetscArraycpy(ns->Mv, ns->Mv1, n));
    PetscCall(PetscArraycpy(ns->Kq, ns->Kq1, n));
  }
  if (m > 0 && ns->modal) {
    /* g(t, q) = g(t, 0) + G~ eta; in free flight eta = q~0 + (h beta / gamma) s0, whose gaps are the gate's */
    if (ns->flight_step)
      PetscCall(PetscArraycpy(st->gap, ns->bp, m));
    else {
      PetscCall(VISystemEvaluateConstraints(sys, t, ns->zero, st->gap, NULL, NULL));
      VIMatVec(m, n, ns->G, n, q, 1.0, st->gap);
    }
  } else if (m > 0)
    PetscCall(VISystemEvaluateConstraints(sys, t, q, st->gap, NULL, NULL));
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

/* Frees the set-up and keeps the options: the next set-up starts from a zeroed state as after VIStepperSetType. */
static PetscErrorCode VIStepperReset_NSGAlpha(VIStepper st)
{
  VINSGAlpha       *ns = (VINSGAlpha *)st->data;
  VINSGAlphaOptions opt;

  PetscFunctionBeginUser;
  PetscCall(PetscFree4(ns->Sinv, ns->SD, ns->SK, ns->Minv));
  PetscCall(PetscFree4(ns->P, ns->pin, ns->vmid, ns->dvmid));
  PetscCall(PetscFree4(ns->Mv, ns->Kq, ns->Mv1, ns->Kq1));
  PetscCall(PetscFree3(ns->sinv, ns->zero, ns->pm));
  PetscCall(VIModalFormDestroy(&ns->md));
  PetscCall(PetscFree5(ns->vdt, ns->a, ns->qt0, ns->vt0, ns->s0));
  PetscCall(PetscFree6(ns->delta, ns->work, ns->fprev, ns->qprev, ns->uprev, ns->fs));
  PetscCall(PetscFree5(ns->G, ns->Gc, ns->X, ns->Y, ns->Z));
  PetscCall(PetscFree4(ns->GX, ns->GY, ns->GZ, ns->Gprev));
  PetscCall(PetscFree5(ns->g, ns->grate, ns->gprev_rate, ns->bp, ns->bv));
  PetscCall(PetscFree4(ns->gt, ns->nu, ns->lam, ns->rscale));
  PetscCall(PetscFree3(ns->J, ns->rhs, ns->ipiv));
  PetscCall(PetscFree4(ns->setA, ns->setB, ns->newA, ns->newB));
  PetscCall(PetscFree5(ns->trow, ns->tfirst, ns->bil, ns->tstate, ns->newt));
  PetscCall(PetscFree6(ns->T, ns->GT, ns->lt, ns->sdir, ns->newdir, ns->work0));
  PetscCall(PetscFree(ns->held));
  PetscCall(PetscFree6(ns->gs0, ns->gvt, ns->gqt, ns->gq, ns->gpv, ns->gv));
  PetscCall(PetscFree5(ns->pact, ns->vact, ns->vcol, ns->slip, ns->nz));
  if (ns->rows.counts) PetscCall(VIRowSplitDestroy(&ns->rows));
  PetscCall(VINSGAlphaNLDestroy(&ns->nl));
  opt = ns->opt;
  PetscCall(PetscMemzero(ns, sizeof(*ns)));
  ns->opt = opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperDestroy_NSGAlpha(VIStepper st)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(st->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperSetFromOptions_NSGAlpha(VIStepper st, PetscOptionItems *PetscOptionsObject)
{
  VINSGAlpha *ns = (VINSGAlpha *)st->data;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsReal("-step_rho_inf", "nsgalpha: spectral radius at infinity rho_inf in [0, 1] of generalized-alpha (seed 002 Eq. 31)", "",
                             ns->opt.rho_inf, &ns->opt.rho_inf, NULL));
  PetscCall(PetscOptionsInt("-step_nsgalpha_max_it", "nsgalpha: semi-smooth Newton iterations per step before the step counts as not converged", "",
                            ns->opt.max_it, &ns->opt.max_it, NULL));
  PetscCheck(ns->opt.rho_inf >= 0 && ns->opt.rho_inf <= 1, st->comm, PETSC_ERR_USER_INPUT,
             "-step_rho_inf: got %g, expected a spectral radius in [0, 1]", (double)ns->opt.rho_inf);
  PetscCheck(ns->opt.max_it >= 1, st->comm, PETSC_ERR_USER_INPUT, "-step_nsgalpha_max_it: got %" PetscInt_FMT ", expected >= 1", ns->opt.max_it);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCheckSystem_NSGAlpha(VIStepper st)
{
  const char *kind;
  PetscBool   massless;

  PetscFunctionBeginUser;
  PetscCall(VISystemHasMasslessBoundary(st->sys, &massless, &kind));
  PetscCheck(!massless, st->comm, PETSC_ERR_USER_INPUT,
             "-step_type nsgalpha needs a mass-carrying ROM (cb, rubin, or a user ROM with a nonsingular M): its corrections U = M^-1 G^T nu and "
             "W = M^-1 G^T Lambda (seed 002 Eqs. 29c, 29f) need M nonsingular, and this ROM is %s, with a massless boundary: use -step_type leapfrog",
             kind);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCopyOptions_NSGAlpha(VIStepper from, VIStepper to)
{
  PetscFunctionBeginUser;
  ((VINSGAlpha *)to->data)->opt = ((VINSGAlpha *)from->data)->opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCreate_NSGAlpha(VIStepper st)
{
  VINSGAlpha *ns;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&ns));
  ns->opt.rho_inf        = 0.8;
  ns->opt.max_it         = 50;
  st->data               = ns;
  st->ops.setfromoptions = VIStepperSetFromOptions_NSGAlpha;
  st->ops.checksystem    = VIStepperCheckSystem_NSGAlpha;
  st->ops.stablestep     = VIStableStepUnconditional; /* generalized-alpha with rho_inf in [0, 1] (Chung & Hulbert) */
  st->ops.copyoptions    = VIStepperCopyOptions_NSGAlpha;
  st->ops.setup          = VIStepperSetUp_NSGAlpha;
  st->ops.step           = VIStepperStep_NSGAlpha;
  st->ops.advance        = VIStepperAdvance_NSGAlpha;
  st->ops.reset          = VIStepperReset_NSGAlpha;
  st->ops.destroy        = VIStepperDestroy_NSGAlpha;
  st->ops.nonlinear      = PETSC_TRUE; /* its nonlinear path below */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The nonsmooth generalized-alpha scheme's own options, read in VIStepperSetFromOptions_NSGAlpha (-step_rho_inf also
   mixed's) (src/sys/options.c's registry) */
static const VIOptionEntry VINSGAlphaOptionTable[] = {
    {"-step_rho_inf", VI_OPTION_REAL, NULL},
    {"-step_nsgalpha_max_it", VI_OPTION_INT, NULL},
};

PetscErrorCode VIStepperRegister_NSGAlpha(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIStepperRegister(VISTEPPERNSGALPHA, VIStepperCreate_NSGAlpha));
  PetscCall(VIOptionsRegisterTable("step_nsgalpha", VINSGAlphaOptionTable, sizeof(VINSGAlphaOptionTable) / sizeof(VINSGAlphaOptionTable[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
