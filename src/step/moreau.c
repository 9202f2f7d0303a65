/* Moreau-type stepping of a mass-carrying ROM: the symmetric Moreau-like scheme with restitution (seed 000 App. B,
   Eqs. B.1–B.5) and the Moreau–Jean theta-scheme. Impacts are percussions; W_b = I.

   The scheme steps in the modal coordinates eta of the undamped ROM, q = Phi eta with Phi^T M Phi = I and
   Phi^T K Phi = Lambda = diag(omega^2) (LAPACK sygv once per case): the same scheme, written in other coordinates, so the
   answers are today's to round-off. M and K are then diagonal, and the kinetic and potential energies, the damping work
   (from the scheme's own equation) and the external work cost O(n) per level instead of three products of the ROM's
   size; the damping D~ = Phi^T D Phi stays dense (component-mode damping is not diagonal in the ROM's modes). The
   contacts see the boundary rows B = Phi[0:nb, :]: the gaps are B's normal rows times eta, the Delassus matrix is
   B A B^T, fixed per step size. */
#include "stepimpl.h"
#include <petscblaslapack.h>

typedef enum { VI_MOREAU_SYMMETRIC, VI_MOREAU_THETA } VIMoreauVariant;
static const char *const VIMoreauVariants[] = {"symmetric", "theta", "VIMoreauVariant", "VI_MOREAU_", NULL};

/* The scheme's options: kept from VIStepperSetType to VIStepperDestroy, across set-ups. */
typedef struct {
  VIMoreauVariant variant;
  PetscReal       theta;
} VIMoreauOptions;

/* The nonlinear path's state (at the end of this file). */
typedef struct _VIMoreauNL VIMoreauNL;

typedef struct {
  VIMoreauOptions opt;
  VIMoreauNL     *nonlin; /* set up on a nonlinear system: the step is the nonlinear path's */
  PetscReal      *lam;    /* n: omega^2 */
  PetscReal *A;      /* n x n: (I + dt/2 D~)^-1 (symmetric) or (I + theta dt D~ + theta^2 dt^2 Lambda)^-1 (theta) */
  PetscReal *P;      /* n x 2n: the free velocity is P [u; eta] + dt sum_l c_l A v~_l */
  PetscReal *L;      /* num_loads x n: the modal loads v~_l = Phi^T v_l */
  PetscReal *AL;     /* num_loads x n: A v~_l */
  PetscReal *B;      /* nb x n: the boundary rows of Phi (the physical boundary coordinates of eta) */
  PetscReal *Bn;     /* nc x n: the normal rows of B, one per contact */
  PetscReal *AB;     /* n x nb: A B^T; percussions P on the boundary rows change u~ by A B^T P */
  PetscReal *G;      /* nb x nb: B A B^T, the Delassus matrix of the boundary rows */
  PetscReal *xb;     /* nb: the percussions of a step on every boundary row (0 on the rows not active) */
  PetscReal *c, *c1; /* num_loads: the scales c_l of a step; s_l(t_k+1) (theta) */
  PetscInt   nl;
  PetscReal *uh;                        /* symmetric: u~^{k-1/2}; theta: u~^k; followed by a copy of eta (2n: one product with P) */
  PetscReal *unew;                      /* symmetric: u~^{k+1/2}; theta: u~^{k+1} */
  PetscReal *f, *fs, *qprev, *fprev;    /* modal forces: at t_k, of the free velocity (f_theta for theta); the previous level's */
  PetscReal *qbn, *ubn;                 /* nc: boundary normal displacement and (theta) velocity of each contact */
  PetscReal *ub_old, *ub_free, *ub_new; /* nb: physical boundary velocities of the active rows, before, free, after */
  PetscReal *pu, *pq;                   /* n: the diagonals of P's two halves (used when D~ is diagonal) */
  PetscBool *active;
  PetscBool *opened; /* nc: a preloaded contact whose total normal percussion p dt + P_n was 0 at the last step: out of the set until its
                        gap closes, its preload's change -p a load of the step */
  /* The force rows (docs/results.md): row k holds the mean contact force of the step ending at t_k. The theta-scheme's step at level k
     computes the percussions of the step [t_k, t_k+1] (its gaps predicted at the midpoint), so it hands them, and the work they and the
     damping do over that step, to level k+1: fstep (nb) the force of this step, fend (nb, state) that of the step ending at t_k, pend
     (3, state) the obstacle work, friction and damping dissipation of the step ending at t_k. The symmetric scheme's percussion acts at
     the level t_k itself (between the half steps, chosen by the gap at t_k, as leapfrog's force): it stays on row k. */
  PetscReal *fstep, *fend, *pend;
  PetscBool   friction, first, damped, diagonal;
  VIRowSplit  rows; /* rows of the n x 2n product over the case's group */
  VIActiveSet as;
} VIMoreau;

static PetscErrorCode VIMoreauNLSetUp(VIStepper, VIMoreau *, VIMoreauNL **);
static PetscErrorCode VIMoreauNLStep(VIStepper, VIMoreauNL *, PetscReal);
static PetscErrorCode VIMoreauNLDestroy(VIMoreauNL **);

static PetscErrorCode VIStepperSetUp_Moreau(VIStepper st)
{
  VIMoreau               *mo = (VIMoreau *)st->data;
  PetscInt                n = st->n, nb = st->nb, nc = st->nc;
  PetscReal               dt = st->dt, th = mo->opt.theta;
  PetscBool               sym = mo->opt.variant == VI_MOREAU_SYMMETRIC ? PETSC_TRUE : PETSC_FALSE;
  const PetscReal *const *loads;
  PetscReal              *PhiT, *Phi, *Dt, *W, *Bt, *PhiTM, off, dmax;

  PetscFunctionBeginUser;
  if (st->nonlinear) {
    PetscCall(VIMoreauNLSetUp(st, mo, &mo->nonlin));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(n * n, &Phi)); /* handed to the stepper */
  PetscCall(PetscMalloc5(n * n, &PhiT, n * n, &Dt, n * n, &W, PetscMax(n * nb, 1), &Bt, n * n, &PhiTM));
  PetscCall(PetscCalloc5(n, &mo->lam, n * n, &mo->A, 2 * n, &mo->uh, n, &mo->unew, 2 * n * n, &mo->P));
  /* the modes and D~ = Phi^T D Phi (modal.c, shared with nsgalpha's and mixed's modal form) */
  PetscCall(VIModalBasis(st, "moreau", PhiT, Phi, mo->lam, W, Dt, &off, &dmax));
  mo->damped = PETSC_FALSE;
  for (PetscInt i = 0; i < n * n; i++)
    if (st->D[i] != 0) mo->damped = PETSC_TRUE;
  {
    /* D~ is diagonal for modal damping of the ROM's own modes (the Rubin blade: off-diagonal 1.2e-12 of the largest entry,
       the eigensolver's orthogonality); below 1e-9 the off-diagonal entries count as zero, as for the leapfrog's condensed
       stiffness, and a step costs a pass over the n modal coordinates instead of the n x 2n product */
    mo->diagonal = off <= 1e-9 * dmax ? PETSC_TRUE : PETSC_FALSE;
    if (mo->diagonal)
      for (PetscInt i = 0; i < n; i++)
        for (PetscInt j = 0; j < n; j++)
          if (i != j) Dt[i * n + j] = 0;
    PetscCall(PetscInfo(NULL, "Moreau: modal damping off-diagonal %g of its largest entry: %s\n", (double)(dmax > 0 ? off / dmax : 0),
                        mo->diagonal ? "diagonal (one pass per step)" : "dense (one n x 2n product per step)"));
  }
  /* A^-1 and the product's matrix, as in the ROM's coordinates with M = I and K = Lambda:
     symmetric (Eq. B.1 without percussions): u^{k+1/2} = A (I - dt/2 D~) u^{k-1/2} - dt A Lambda eta^k + dt A f~(t_k);
     theta: u^{k+1} = (I - dt A (D~ + theta dt Lambda)) u^k - dt A Lambda eta^k + dt A ((1 - theta) f~(t_k) + theta f~(t_k+1)). */
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      PetscReal d = Dt[i * n + j], kk = i == j ? mo->lam[i] : 0, id = i == j ? 1 : 0;
      mo->A[i * n + j] = sym ? id + 0.5 * dt * d : id + th * dt * d + th * th * dt * dt * kk;
      W[i * n + j]     = sym ? id - 0.5 * dt * d : d + th * dt * kk; /* symmetric: I - dt/2 D~; theta: D~ + theta dt Lambda */
    }
  PetscCall(
      VIInvertSPD(st->comm, n, mo->A,
                  "The iteration matrix of the Moreau scheme (M + dt/2 D, or M + theta dt D + theta^2 dt^2 K, in the ROM's modal coordinates)"));
  PetscCall(VIMatMat(n, n, n, mo->A, W, 1.0, mo->P, 2 * n));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) mo->P[i * 2 * n + n + j] = -dt * mo->A[i * n + j] * mo->lam[j];
  if (!sym)
    for (PetscInt i = 0; i < n; i++) {
      for (PetscInt j = 0; j < n; j++) mo->P[i * 2 * n + j] *= -dt;
      mo->P[i * 2 * n + i] += 1;
    }
  PetscCall(PetscMalloc2(n, &mo->pu, n, &mo->pq));
  for (PetscInt i = 0; i < n; i++) {
    mo->pu[i] = mo->P[i * 2 * n + i];
    mo->pq[i] = mo->P[i * 2 * n + n + i];
  }
  /* the modal loads */
  PetscCall(VISystemGetLoads(st->sys, &mo->nl, &loads));
  PetscCall(
      PetscCalloc4(PetscMax(mo->nl, 1) * n, &mo->L, PetscMax(mo->nl, 1) * n, &mo->AL, PetscMax(mo->nl, 1), &mo->c, PetscMax(mo->nl, 1), &mo->c1));
  for (PetscInt l = 0; l < mo->nl; l++) {
    VIMatVec(n, n, PhiT, n, loads[l], 0.0, mo->L + l * n);
    VIMatVec(n, n, mo->A, n, mo->L + l * n, 0.0, mo->AL + l * n);
  }
  /* the boundary rows (the ROM's first nb coordinates), their Delassus matrix, and the normal rows */
  PetscCall(PetscCalloc4(PetscMax(nb * n, 1), &mo->B, PetscMax(nb * n, 1), &mo->AB, PetscMax(nb * nb, 1), &mo->G, PetscMax(nc * n, 1), &mo->Bn));
  PetscCall(PetscArraycpy(mo->B, Phi, nb * n));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt b = 0; b < nb; b++) Bt[i * nb + b] = Phi[b * n + i];
  PetscCall(VIMatMat(n, n, nb, mo->A, Bt, 1.0, mo->AB, nb));
  PetscCall(VIMatMat(nb, n, nb, mo->B, mo->AB, 1.0, mo->G, nb));
  for (PetscInt j = 0; j < nc; j++) PetscCall(PetscArraycpy(mo->Bn + j * n, mo->B + st->offsets[j] * n, n));
  PetscCall(PetscCalloc5(PetscMax(nb, 1), &mo->xb, n, &mo->f, n, &mo->fs, n, &mo->qprev, n, &mo->fprev));
  PetscCall(PetscCalloc5(PetscMax(nc, 1), &mo->qbn, PetscMax(nc, 1), &mo->ubn, PetscMax(nb, 1), &mo->ub_old, PetscMax(nb, 1), &mo->ub_free,
                         PetscMax(nb, 1), &mo->ub_new));
  PetscCall(PetscCalloc2(PetscMax(nc, 1), &mo->active, PetscMax(nc, 1), &mo->opened));
  PetscCall(PetscCalloc3(PetscMax(nb, 1), &mo->fstep, PetscMax(nb, 1), &mo->fend, 3, &mo->pend));
  mo->friction = PETSC_FALSE;
  for (PetscInt j = 0; j < nc; j++)
    if (st->set.dims[j] > 1 && st->set.mu[j] > 0) mo->friction = PETSC_TRUE;
  PetscCall(VIActiveSetCreate(nb, nc, &mo->as));
  PetscCall(VIRowSplitCreate(st->comm, n, 1, &mo->rows));
  /* the initial state in eta = Phi^T M q, and the stepper's bound of the coordinates (modal.c) */
  PetscCall(VIModalInitialState(st, PhiT, PhiTM, st->q, mo->uh));
  st->basis         = Phi;
  st->scheme_energy = PETSC_TRUE;
  PetscCall(PetscFree5(PhiT, Dt, W, Bt, PhiTM));
  mo->first = PETSC_TRUE;
  /* what the next step and advance read before writing it (checkpoints): unew is read by the advance of the level */
  PetscCall(VIStepperRegisterState(st, "moreau_modal_uh", n, mo->uh, NULL));
  PetscCall(VIStepperRegisterState(st, "moreau_modal_unew", n, mo->unew, NULL));
  PetscCall(VIStepperRegisterState(st, "moreau_modal_qprev", n, mo->qprev, NULL));
  PetscCall(VIStepperRegisterState(st, "moreau_modal_fprev", n, mo->fprev, NULL));
  PetscCall(VIStepperRegisterState(st, "moreau_first", 1, NULL, &mo->first));
  if (!sym) {
    PetscCall(VIStepperRegisterState(st, "moreau_force_end", nb, mo->fend, NULL));
    PetscCall(VIStepperRegisterState(st, "moreau_work_end", 3, mo->pend, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* unew = P [uh; eta] + dt sum_l c_l A v~_l: P diagonal in each half (a pass over the modal coordinates, on every rank), or
   dense (this rank's rows, then gathered) */
static PetscErrorCode VIMoreauFreeVelocity(VIStepper st, VIMoreau *mo)
{
  const PetscInt lo = mo->rows.lo, hi = mo->rows.hi, n = st->n;

  PetscFunctionBeginUser;
  if (mo->diagonal) {
    for (PetscInt i = 0; i < n; i++) mo->unew[i] = mo->pu[i] * mo->uh[i] + mo->pq[i] * st->q[i];
    for (PetscInt l = 0; l < mo->nl; l++) {
      const PetscReal a = st->dt * mo->c[l], *v = mo->AL + l * n;
      for (PetscInt i = 0; i < n; i++) mo->unew[i] += a * v[i];
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscArraycpy(mo->uh + n, st->q, n)); /* uh is the first half of [uh; eta] */
  VIMatVec(hi - lo, 2 * n, mo->P + lo * 2 * n, 2 * n, mo->uh, 0.0, mo->unew + lo);
  for (PetscInt l = 0; l < mo->nl; l++) {
    const PetscReal a = st->dt * mo->c[l], *v = mo->AL + l * n;
    for (PetscInt i = lo; i < hi; i++) mo->unew[i] += a * v[i];
  }
  PetscCall(VIRowSplitGather(&mo->rows, mo->unew));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f = sum_l c_l v~_l */
static void VIMoreauForce(const VIMoreau *mo, PetscInt n, const PetscReal c[], PetscReal f[])
{
  for (PetscInt i = 0; i < n; i++) f[i] = 0;
  for (PetscInt l = 0; l < mo->nl; l++)
    for (PetscInt i = 0; i < n; i++) f[i] += c[l] * mo->L[l * n + i];
}

static PetscErrorCode VIStepperStep_Moreau(VIStepper st, PetscReal t)
{
  VIMoreau    *mo  = (VIMoreau *)st->data;
  VISystem     sys = st->sys;
  VIActiveSet *as  = &mo->as;
  PetscInt     n = st->n, nc = st->nc, nrows = 0;
  PetscReal    dt = st->dt, th = mo->opt.theta, e = st->restitution;
  PetscBool    any = PETSC_FALSE, pulled = PETSC_FALSE, sym = mo->opt.variant == VI_MOREAU_SYMMETRIC ? PETSC_TRUE : PETSC_FALSE;
  /* the velocity and displacement the damping force acts on: the midpoint (symmetric) or u^{k+theta} (theta) */
  const PetscReal thd = sym ? 0.5 : th;
  PetscReal       w_obstacle = 0, w_friction = 0, w_damping = 0; /* the work of this step's percussions and damping */

  PetscFunctionBeginUser;
  if (mo->nonlin) {
    PetscCall(VIMoreauNLStep(st, mo->nonlin, t));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the load scales s_l(t_k) once: for f (energy terms) and for the free velocity */
  PetscCall(VISystemEvaluateLoadScales(sys, t, mo->c));
  VIMoreauForce(mo, n, mo->c, mo->f);
  PetscCall(VISystemEvaluateGaps(sys, t, st->g0, st->g0_rate));
  /* active set from the gaps at t_k (symmetric) or at the predicted midpoint q^k + dt/2 u^k (theta) */
  VIMatVec(nc, n, mo->Bn, n, st->q, 0.0, mo->qbn);
  if (!sym) VIMatVec(nc, n, mo->Bn, n, mo->uh, 0.0, mo->ubn);
  for (PetscInt j = 0; j < nc; j++) {
    PetscReal gap = mo->qbn[j] + st->g0[j] + (sym ? 0 : 0.5 * dt * (mo->ubn[j] + st->g0_rate[j]));
    st->gap[j]    = mo->qbn[j] + st->g0[j];
    /* a bilateral row is always in the set: the solver keeps B u^{k+1} = 0 (velocity level, seed 002 Eq. 7c); a preloaded contact while
       it carries a total force (its gap is 0 up to round-off, which must not open it), and again once its gap closes */
    mo->active[j] = (gap <= 0 || (st->set.preload[j] > 0 && !mo->opened[j]) || st->set.kinds[j] == VI_CONTACT_BILATERAL) ? PETSC_TRUE : PETSC_FALSE;
    if (mo->active[j])
      any = PETSC_TRUE;
    else if (st->set.preload[j] > 0)
      pulled = PETSC_TRUE;
  }
  /* free velocity: Eq. (B.1) without percussions */
  if (sym) {
    /* (I + dt/2 D~) u^{k+1/2} = (I - dt/2 D~) u^{k-1/2} + dt (f~ - Lambda eta^k) + B^T dP */
    PetscCall(PetscArraycpy(mo->fs, mo->f, n));
  } else {
    /* W du = dt (f~_theta - Lambda eta^k - (D~ + theta dt Lambda) u^k) + B^T P,  W = I + theta dt D~ + theta^2 dt^2 Lambda */
    PetscCall(VISystemEvaluateLoadScales(sys, t + dt, mo->c1));
    for (PetscInt l = 0; l < mo->nl; l++) mo->c[l] = (1 - th) * mo->c[l] + th * mo->c1[l];
    VIMoreauForce(mo, n, mo->c, mo->fs);
  }
  PetscCall(VIMoreauFreeVelocity(st, mo));
  PetscCall(PetscArrayzero(mo->fstep, st->nb));
  if (any || pulled) {
    /* the physical boundary velocities, free and of the previous step */
    VIMatVec(st->nb, n, mo->B, n, mo->unew, 0.0, mo->ub_free);
    VIMatVec(st->nb, n, mo->B, n, mo->uh, 0.0, mo->ub_old);
  }
  if (any) {
    PetscInt a = 0, c = 0;
    PetscCall(VIActiveSetBuild(st, mo->active, mo->friction, as));
    nrows = as->nrows;
    /* Eqs. (B.3)-(B.5): -(G dP + c) ∈ N_C(dP), G = B A B^T, c = gamma_free + e gamma^{k-1/2} (normal only) */
    for (PetscInt j = 0; j < nc; j++) {
      if (!mo->active[j]) continue;
      for (PetscInt r = 0; r < as->dims[c]; r++, a++) {
        as->c[a] = VIStepperRelativeVelocity(st, j, r, mo->ub_free);
        if (r == 0) as->c[a] += e * VIStepperRelativeVelocity(st, j, r, mo->ub_old);
        as->x[a] = 0;
      }
      c++;
    }
    /* Preloaded contacts, as in leapfrog (Eqs. 7, 13-14): the ROM's state 0 is the preloaded equilibrium and P the change of the normal
       percussion; solve for the total X_n = P_n + p dt >= 0 (disk radius mu X_n): c <- c - G p dt, then P_n = X_n - p dt. */
    for (PetscInt cc = 0, an = 0; cc < as->nact; an += as->dims[cc], cc++) {
      const PetscReal pdt = as->preload[cc] * dt;
      if (pdt <= 0) continue;
      for (PetscInt b = 0; b < nrows; b++) as->c[b] -= mo->G[as->rows[b] * st->nb + as->rows[an]] * pdt;
      as->x[an] = pdt;
    }
    as->set.preload = NULL;
    PetscCall(VIStepperSolveContacts(st, as, mo->G, st->nb, 1.0));
    as->set.preload = as->preload;
    /* a preloaded contact whose total is 0 has opened: out of the set until its gap closes */
    for (PetscInt j = 0, cc = 0, an = 0; j < nc; j++) {
      if (!mo->active[j]) continue;
      mo->opened[j] = as->preload[cc] > 0 && as->x[an] <= 0 ? PETSC_TRUE : PETSC_FALSE;
      as->x[an] -= as->preload[cc] * dt;
      an += as->dims[cc++];
    }
  }
  /* the percussions: those solved for, and -p dt on the normal row of each preloaded contact out of the set (open: its total force is 0,
     as mixed does it); u~ += A B^T P, boundary velocities ub_new = ub_free + G P */
  if (any || pulled) {
    PetscCall(PetscArrayzero(mo->xb, st->nb));
    for (PetscInt b = 0; b < nrows; b++) mo->xb[as->rows[b]] = as->x[b];
    for (PetscInt j = 0; j < nc; j++)
      if (!mo->active[j] && st->set.preload[j] > 0) mo->xb[st->offsets[j]] = -st->set.preload[j] * dt;
    for (PetscInt b = 0; b < st->nb; b++) mo->fstep[b] = mo->xb[b] / dt; /* mean contact force over the step */
    VIMatVec(n, st->nb, mo->AB, st->nb, mo->xb, 1.0, mo->unew);
    PetscCall(PetscArraycpy(mo->ub_new, mo->ub_free, st->nb));
    VIMatVec(st->nb, st->nb, mo->G, st->nb, mo->xb, 1.0, mo->ub_new);
  }
  /* level k: velocity estimate, and the energy terms of the interval around it (discrete energy identity of the scheme) */
  {
    /* one pass over the modal coordinates: the level's velocity estimate, its kinetic and potential energy (M = I,
       K = Lambda), the external work of the interval before it, and the damping work of the interval around it,
       dt u_d^T D~ u_d with u_d = (1 - thd) uh + thd unew, D~ u_d from the scheme's own equation (no product):
       dt D~ u_d = dt f~_s - dt Lambda eta_s - (unew - uh) + B^T P, eta_s = eta^k (symmetric) or eta^k + theta dt u_d (theta) */
    const PetscReal cu = sym ? 0.5 : 1, ces = sym ? 0 : th * dt; /* u_k = cu uh + (1 - cu) unew; eta_s = eta + ces u_d */
    PetscReal       T = 0, V = 0, W = 0, wd = 0;
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal uh = mo->uh[i], un = mo->unew[i], q = st->q[i], ui = cu * uh + (1 - cu) * un, ud = (1 - thd) * uh + thd * un;
      st->u[i] = ui;
      T += ui * ui;
      V += mo->lam[i] * q * q;
      W += (mo->fprev[i] + mo->f[i]) * (q - mo->qprev[i]);
      wd += ud * (dt * mo->fs[i] - dt * mo->lam[i] * (q + ces * ud) - (un - uh));
      mo->qprev[i] = q;
      mo->fprev[i] = mo->f[i];
    }
    st->energy.kinetic   = 0.5 * T;
    st->energy.potential = 0.5 * V;
    if (!mo->first) st->energy.external_work += 0.5 * W;
    if (mo->damped) {
      if (any || pulled)
        for (PetscInt b = 0; b < st->nb; b++) wd += mo->xb[b] * ((1 - thd) * mo->ub_old[b] + thd * mo->ub_new[b]);
      w_damping = wd;
    }
  }
  /* the work of the percussions of the active rows, with the boundary velocity of the interval (rows per active contact, normal first) */
  for (PetscInt j = 0, cc = 0, b = 0; j < nc && nrows; j++) {
    if (!mo->active[j]) continue;
    for (PetscInt r = 0; r < as->dims[cc]; r++, b++) {
      const PetscInt  row = as->rows[b];
      const PetscReal P = as->x[b], v = 0.5 * (mo->ub_old[row] + mo->ub_new[row]);
      if (r == 0)
        w_obstacle += P * v;
      else {
        PetscReal drive = st->obstacle_v[2 * j + r - 1];
        w_friction -= P * (v - drive);
        w_obstacle += P * drive;
      }
    }
    cc++;
  }
  /* and of the preloads of the open contacts */
  for (PetscInt j = 0; j < nc && pulled; j++) {
    const PetscInt row = st->offsets[j];
    if (!mo->active[j] && st->set.preload[j] > 0) w_obstacle += mo->xb[row] * 0.5 * (mo->ub_old[row] + mo->ub_new[row]);
  }
  /* level k's force row and work: this step's (symmetric), or the step's ending at t_k (theta; this step's go to level k + 1) */
  if (sym) {
    PetscCall(PetscArraycpy(st->lambda, mo->fstep, st->nb));
  } else {
    PetscCall(PetscArraycpy(st->lambda, mo->fend, st->nb));
    PetscCall(PetscArraycpy(mo->fend, mo->fstep, st->nb));
    PetscReal prev[3] = {mo->pend[0], mo->pend[1], mo->pend[2]};
    mo->pend[0] = w_obstacle;
    mo->pend[1] = w_friction;
    mo->pend[2] = w_damping;
    w_obstacle  = prev[0];
    w_friction  = prev[1];
    w_damping   = prev[2];
  }
  st->energy.obstacle_work += w_obstacle;
  st->energy.friction_dissipation += w_friction;
  st->energy.damping_dissipation += w_damping;
  mo->first = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperAdvance_Moreau(VIStepper st)
{
  VIMoreau *mo = (VIMoreau *)st->data;
  PetscReal th = mo->opt.variant == VI_MOREAU_SYMMETRIC ? 1.0 : mo->opt.theta;

  PetscFunctionBeginUser;
  if (mo->nonlin) PetscFunctionReturn(PETSC_SUCCESS); /* the nonlinear path's step does the whole step */
  for (PetscInt i = 0; i < st->n; i++) st->q[i] += st->dt * ((1 - th) * mo->uh[i] + th * mo->unew[i]);
  PetscCall(PetscArraycpy(mo->uh, mo->unew, st->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees the set-up and keeps the options: the next set-up starts from a zeroed state as after VIStepperSetType. */
static PetscErrorCode VIStepperReset_Moreau(VIStepper st)
{
  VIMoreau       *mo = (VIMoreau *)st->data;
  VIMoreauOptions opt;

  PetscFunctionBeginUser;
  PetscCall(PetscFree5(mo->lam, mo->A, mo->uh, mo->unew, mo->P));
  PetscCall(PetscFree4(mo->L, mo->AL, mo->c, mo->c1));
  PetscCall(PetscFree4(mo->B, mo->AB, mo->G, mo->Bn));
  PetscCall(PetscFree5(mo->xb, mo->f, mo->fs, mo->qprev, mo->fprev));
  PetscCall(PetscFree5(mo->qbn, mo->ubn, mo->ub_old, mo->ub_free, mo->ub_new));
  PetscCall(PetscFree2(mo->active, mo->opened));
  PetscCall(PetscFree3(mo->fstep, mo->fend, mo->pend));
  PetscCall(PetscFree2(mo->pu, mo->pq));
  PetscCall(VIActiveSetDestroy(&mo->as));
  if (mo->nonlin) PetscCall(VIMoreauNLDestroy(&mo->nonlin));
  else PetscCall(VIRowSplitDestroy(&mo->rows));
  opt = mo->opt;
  PetscCall(PetscMemzero(mo, sizeof(*mo)));
  mo->opt = opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperDestroy_Moreau(VIStepper st)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(st->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperSetFromOptions_Moreau(VIStepper st, PetscOptionItems *PetscOptionsObject)
{
  VIMoreau *mo = (VIMoreau *)st->data;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsEnum("-step_moreau_variant", "symmetric (Moreau-like, seed 000 App. B) or theta (Moreau-Jean)", "", VIMoreauVariants,
                             (PetscEnum)mo->opt.variant, (PetscEnum *)&mo->opt.variant, NULL));
  PetscCall(PetscOptionsReal("-step_theta", "theta of the Moreau-Jean scheme, in [0.5, 1]", "", mo->opt.theta, &mo->opt.theta, NULL));
  PetscCheck(mo->opt.theta >= 0.5 && mo->opt.theta <= 1, st->comm, PETSC_ERR_USER_INPUT, "-step_theta: got %g, expected a value in [0.5, 1]",
             (double)mo->opt.theta);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCheckSystem_Moreau(VIStepper st)
{
  const char *kind;
  PetscBool   massless;

  PetscFunctionBeginUser;
  PetscCall(VISystemHasMasslessBoundary(st->sys, &massless, &kind));
  PetscCheck(!massless, st->comm, PETSC_ERR_USER_INPUT,
             "-step_type moreau needs a mass-carrying ROM (cb or rubin): its Delassus matrix is singular for a massless boundary (seed 000 App. B); "
             "this ROM is %s: use -step_type leapfrog",
             kind);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Seed 000 App. B: the symmetric variant is central differences on the whole system, worst case all contacts open (see
   timestep.c); the theta-scheme (theta >= 1/2) is unconditionally stable, first order unless theta = 1/2. */
static PetscErrorCode VIStepperStableStep_Moreau(VIStepper st, const VIStableOperators *ops, const PetscBool friction[], VIStableStep *s)
{
  VIMoreau *mo = (VIMoreau *)st->data;

  PetscFunctionBeginUser;
  (void)friction;
  PetscCall(VIStableStepFullOmega(ops, &s->omega_max, NULL, NULL));
  s->omega_open = s->omega_max;
  s->state      = VI_CONTACTS_OPEN;
  if (mo->opt.variant == VI_MOREAU_THETA) {
    s->unconditional = PETSC_TRUE;
    s->order         = mo->opt.theta == 0.5 ? 2 : 1;
    s->dt_stable     = 0;
  } else {
    s->unconditional = PETSC_FALSE;
    s->order         = 2;
    s->dt_stable     = s->omega_max > 0 ? 2 / s->omega_max : 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperDescribe_Moreau(VIStepper st, char name[], size_t len)
{
  VIMoreau *mo = (VIMoreau *)st->data;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(name, mo->opt.variant == VI_MOREAU_THETA ? "the moreau theta-scheme" : "the symmetric moreau scheme", len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCopyOptions_Moreau(VIStepper from, VIStepper to)
{
  PetscFunctionBeginUser;
  ((VIMoreau *)to->data)->opt = ((VIMoreau *)from->data)->opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCreate_Moreau(VIStepper st)
{
  VIMoreau *mo;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&mo));
  mo->opt.variant        = VI_MOREAU_SYMMETRIC;
  mo->opt.theta          = 0.5;
  st->data               = mo;
  st->ops.setfromoptions = VIStepperSetFromOptions_Moreau;
  st->ops.checksystem    = VIStepperCheckSystem_Moreau;
  st->ops.stablestep     = VIStepperStableStep_Moreau;
  st->ops.describe       = VIStepperDescribe_Moreau;
  st->ops.copyoptions    = VIStepperCopyOptions_Moreau;
  st->ops.setup          = VIStepperSetUp_Moreau;
  st->ops.step           = VIStepperStep_Moreau;
  st->ops.advance        = VIStepperAdvance_Moreau;
  st->ops.reset          = VIStepperReset_Moreau;
  st->ops.destroy        = VIStepperDestroy_Moreau;
  st->ops.nonlinear      = PETSC_TRUE; /* its nonlinear path below */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the nonlinear path

   Moreau-Jean theta on a system that is not linear (VISystemIsLinear false: a rigid multibody system, seed 002 §10.2,
   §10.4, the reference of the nonsmooth generalized-alpha scheme): from level n to t = t_n + h, with unknowns
   x = [v (n), P (m)] (the velocity of level n + 1 and the impulses of the step), q = q_n + h ((1 - theta) v_n + theta v),
     M (v - v_n) - h ((1 - theta) f(t_n, q_n, v_n) + theta f(t, q, v)) - G(q)^T P = 0,
     bilateral rows: G_j(q) v = 0 (velocity level only: the joints drift at position level, as seed 002 §10.2 shows),
     rows quadratic in q (VISystemGetLinearGradientRows: a spatial body's quaternion norm g_j = (p^T p - 1)/2, G_j = p^T,
     and a spherical joint's rows, G_j linear in q): the same row G_j(q) v = 0, but their impulse acts at the step's midpoint
     q_m = (q_n + q)/2, along G_j(q_m) = (G_j(q_n) + G_j(q))/2, and the step's mass is then M(q_m) instead of M(q_n): p_m is
     an eigenvector of M(q_m) (M(p) p = 2 c |p|^2 p, mbspatial.c), so the norm impulse changes the velocity along p_m alone,
     as the centripetal impulse of the trapezoid on a circle, and a free body keeps its spin and energy; a joint's impulse
     along G_j(q_m) does the work P_j G_j(q_m) (q - q_n) / h = P_j (g_j(q) - g_j(q_n)) / h (theta = 1/2), its row's drift
     alone, so a top on a spherical joint keeps them too (docs/multibody.md "Moreau-Jean's spin"). With the impulse along
     p_{n+1} the norm row projected p' on the sphere's tangent there each step, taking O((omega h / 2)^2) of the spin per
     step (the rate decayed as omega0 / sqrt(1 + k omega0^2 h t), k = 0.433); along p_m with M(q_n), M(q_n)^-1 p_m has a
     part along the motion and the spin grew instead (200 -> 346.5 rad/s in 0.5 s at h = 5e-4); the row at the midpoint,
     G_j(q_m) (v_n + v) = 0 (|p| kept exactly), lets p^T v flip its sign at each step, which the contact rows see (a tripod
     at rest: its Newton failed).
     unilateral rows: P_j - max(0, P_j - r_j (G_j(q) v + e_j G_j(q_n) v_n)) = 0 where g_j(q_n + h v_n / 2) <= 0, else P_j = 0,
     frictional contacts (dims - 1 tangential rows Gt, VISystemEvaluateTangents: one planar, two spatial): Coulomb's law on
     the impulses Pt (VINonlinearCoulomb: the disk of radius mu P),
   solved by the semi-smooth Newton method of ssnewton.c with the exact Jacobian (the constraints' Hessians from the system).
   A mass that depends on q (a flexible body in a floating frame) is taken at q_n for the step, M(q_n) (v - v_n), as
   Moreau-Jean's first order allows (the quadratic velocity vector is in f, theta-weighted like the other forces). */
struct _VIMoreauNL {
  VIStepper  st;
  PetscInt   n, m, N, mt, *trow; /* mt tangential rows, dims - 1 per frictional contact (trow: its contact) */
  PetscReal *Gt, *rt;            /* mt x n: the tangential rows at q; their scales 1 / (Gt M^-1 Gt^T), the contact's smallest */
  PetscBool *B;                  /* m: the normal row's impulse is free (active) in the current iterate */
  PetscReal  t, h, th;
  PetscReal *M, *f, *fn, *dfdq, *dfdu, *g, *G, *Hw, *qn, *vn, *q, *qs, *gs, *e, *pre, *rscale, *x, *Gn;
  PetscReal *HV;   /* m x n: d(G v)/dq at the iterate; Hw: d(G^T P)/dq (VISystemComputeConstraintDerivatives) */
  PetscReal *rate; /* 2 m: dg/dt at t_{n+1} and at t_n (rheonomic rows: a multibody driver) */
  PetscReal       *wk;   /* VI_NONLINEAR_WORK_SIZE(n): VINonlinearWork's scratch */
  PetscReal *Jc;   /* 2 N: the Coulomb rows' Jacobian rows of a residual alone (VIMoreauNLResidual) */
  PetscReal *qgn, tgn; /* n: the state and time at which Gn and rate + m were evaluated (the last step's end), when have_gn */
  PetscBool  have_gn;
  PetscReal *vprev; /* n: v_{n-1}, for the Newton's predictor (checkpointed, with have_vprev) */
  const PetscBool *mid;   /* m: the rows quadratic in q, their impulse at the midpoint (VISystemGetLinearGradientRows; NULL: none) */
  PetscReal       *Pw;    /* m: the impulses weighting the curvature d(G^T Pw)/dq, the mid rows' halved */
  PetscReal       *qm, *dMw; /* with mid rows: the midpoint q_m (n) and d(M(q_m) (v - v_n))/dq (n x n) */
  PetscBool  have_vprev;
  PetscBool  first;
  PetscBool        mconst, mhave, mdiag; /* a constant mass (VISystemHasConstantMass): M formed once (mhave); mdiag: it is diagonal */
  /* the coordinates each row touches (VISystemGetConstraintColumns; every one when the system gives none), the sums over a
     row or a column of G and Gt taken there alone (the other terms are exact zeros): normal row j's cols[cp[j] .. cp[j + 1]);
     by coordinate i, the normal rows touching it rows[rp[i] .. rp[i + 1]) and the tangential ones trows[tp[i] .. tp[i + 1]),
     ascending */
  PetscInt  *cp, *cols, *rp, *rows, *tp, *trows;
  VISSNewton nw;
};

static PetscErrorCode VIMoreauNLDestroy(VIMoreauNL **nlp)
{
  VIMoreauNL *nl = *nlp;

  PetscFunctionBeginUser;
  if (!nl) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree6(nl->M, nl->f, nl->fn, nl->dfdq, nl->dfdu, nl->g));
  PetscCall(PetscFree6(nl->G, nl->HV, nl->Hw, nl->qn, nl->vn, nl->q));
  PetscCall(PetscFree6(nl->qs, nl->gs, nl->e, nl->pre, nl->rscale, nl->x));
  PetscCall(PetscFree6(nl->Gn, nl->rate, nl->wk, nl->Jc, nl->qgn, nl->vprev));
  PetscCall(PetscFree4(nl->trow, nl->Gt, nl->rt, nl->B));
  PetscCall(PetscFree3(nl->Pw, nl->qm, nl->dMw));
  PetscCall(PetscFree2(nl->cp, nl->cols));
  PetscCall(PetscFree2(nl->rp, nl->rows));
  PetscCall(PetscFree2(nl->tp, nl->trows));
  PetscCall(VISSNewtonDestroy(&nl->nw));
  PetscCall(PetscFree(*nlp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* By coordinate, the rows r < nr touching it (row r's columns those of normal row nrm[r], or of row r when nrm is NULL),
   ascending: tp (n + 1), trows */
static PetscErrorCode VIMoreauNLColumnRows(VIMoreauNL *nl, PetscInt nr, const PetscInt nrm[], PetscInt **tp, PetscInt **trows)
{
  PetscInt *at;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc2(nl->n + 1, tp, PetscMax(nl->n * nr, 1), trows));
  PetscCall(PetscMalloc1(nl->n, &at));
  for (PetscInt r = 0; r < nr; r++) {
    const PetscInt j = nrm ? nrm[r] : r;
    for (PetscInt a = nl->cp[j]; a < nl->cp[j + 1]; a++) (*tp)[nl->cols[a] + 1]++;
  }
  for (PetscInt i = 0; i < nl->n; i++) {
    (*tp)[i + 1] += (*tp)[i];
    at[i] = (*tp)[i];
  }
  for (PetscInt r = 0; r < nr; r++) {
    const PetscInt j = nrm ? nrm[r] : r;
    for (PetscInt a = nl->cp[j]; a < nl->cp[j + 1]; a++) (*trows)[at[nl->cols[a]]++] = r;
  }
  PetscCall(PetscFree(at));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rows' columns (VIMoreauNL.cp ..) from the system's, or every coordinate */
static PetscErrorCode VIMoreauNLColumns(VIMoreauNL *nl)
{
  const PetscInt n = nl->n, m = nl->m, *ptr, *cols;
  PetscInt       nz;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetConstraintColumns(nl->st->sys, &ptr, &cols));
  nz = ptr ? ptr[m] : m * n;
  PetscCall(PetscMalloc2(m + 1, &nl->cp, PetscMax(nz, 1), &nl->cols));
  for (PetscInt j = 0; j <= m; j++) nl->cp[j] = ptr ? ptr[j] : j * n;
  for (PetscInt a = 0; a < nz; a++) nl->cols[a] = cols ? cols[a] : a % n;
  PetscCall(VIMoreauNLColumnRows(nl, m, NULL, &nl->rp, &nl->rows));
  PetscCall(VIMoreauNLColumnRows(nl, nl->mt, nl->trow, &nl->tp, &nl->trows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMoreauNLSetUp(VIStepper st, VIMoreau *mo, VIMoreauNL **nlp)
{
  VIMoreauNL *nl;
  PetscInt    n = st->n, m = st->nc, mm = PetscMax(m, 1);

  PetscFunctionBeginUser;
  PetscCheck(mo->opt.variant == VI_MOREAU_THETA, st->comm, PETSC_ERR_USER_INPUT,
             "-step_type moreau on a nonlinear system (-system_type %s): only the Moreau-Jean variant is implemented there; give "
             "-step_moreau_variant theta",
             "multibody");
  PetscCall(PetscNew(&nl));
  *nlp   = nl;
  nl->st = st;
  nl->n  = n;
  nl->m  = m;
  for (PetscInt j = 0; j < m; j++) {
    PetscCheck(st->set.dims[j] <= 3, st->comm, PETSC_ERR_SUP, "-step_type moreau: a nonlinear system's contact has two tangents at most");
    nl->mt += st->set.dims[j] - 1;
  }
  nl->N = n + m + nl->mt;
  PetscCall(PetscCalloc4(PetscMax(nl->mt, 1), &nl->trow, PetscMax(nl->mt, 1) * n, &nl->Gt, PetscMax(nl->mt, 1), &nl->rt, mm, &nl->B));
  for (PetscInt j = 0, i = 0; j < m; j++)
    for (PetscInt a = 1; a < st->set.dims[j]; a++) nl->trow[i++] = j;
  nl->h  = st->dt;
  nl->th = mo->opt.theta;
  PetscCall(PetscCalloc6(n * n, &nl->M, n, &nl->f, n, &nl->fn, n * n, &nl->dfdq, n * n, &nl->dfdu, mm, &nl->g));
  PetscCall(PetscCalloc6(mm * n, &nl->G, mm * n, &nl->HV, n * n, &nl->Hw, n, &nl->qn, n, &nl->vn, n, &nl->q));
  PetscCall(PetscCalloc6(n, &nl->qs, mm, &nl->gs, mm, &nl->e, mm, &nl->pre, mm, &nl->rscale, n + m + PetscMax(nl->mt, 1), &nl->x));
  PetscCall(PetscCalloc6(mm * n, &nl->Gn, 2 * mm, &nl->rate, VI_NONLINEAR_WORK_SIZE(n), &nl->wk, 2 * nl->N, &nl->Jc, n, &nl->qgn, n, &nl->vprev));
  PetscCall(VINonlinearRestitution(st, nl->e));
  PetscCall(VISystemGetLinearGradientRows(st->sys, &nl->mid));
  PetscCall(VISystemHasConstantMass(st->sys, &nl->mconst));
  if (nl->mid) PetscCall(PetscCalloc3(mm, &nl->Pw, n, &nl->qm, n * n, &nl->dMw));
  PetscCall(VISSNewtonCreate(nl->N, 50, VI_SSNEWTON_TOL, &nl->nw));
  nl->nw.hinted = PETSC_TRUE; /* VIMoreauNLForm flags its unit rows */
  /* the momentum rows' block M - h theta (h theta df/dq + df/du) - h theta d(G^T P)/dq is diagonal for planar rigid bodies
     under constant forces (a body's angle appears in its own rows only): the Newton step is then solved on the active rows'
     Schur complement (VISSNewtonSchur), checked at each solve */
  nl->nw.nd     = n;
  nl->nw.chord  = PETSC_TRUE; /* VIMoreauNLForm gives F alone for J = NULL */
  PetscCall(VIMoreauNLColumns(nl));
  nl->first     = PETSC_TRUE;
  PetscCall(VIStepperRegisterState(st, "moreau_first", 1, NULL, &nl->first));
  PetscCall(VIStepperRegisterState(st, "moreau_velocity_previous", n, nl->vprev, NULL));
  PetscCall(VIStepperRegisterState(st, "moreau_have_velocity_previous", 1, NULL, &nl->have_vprev));
  if (m + nl->mt > 0) PetscCall(VIStepperRegisterState(st, "moreau_impulses", m + nl->mt, nl->x + n, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The multipliers of the curvature d(G(q)^T w)/dq the Newton matrix takes: P, the mid rows' halved (their impulse is along
   G_j(q_m), and d(G_j(q_m)^T P_j)/dq = H_j P_j / 2, H_j constant) */
static const PetscReal *VIMoreauNLCurvatureWeights(VIMoreauNL *nl, const PetscReal P[])
{
  if (!nl->mid) return P;
  for (PetscInt j = 0; j < nl->m; j++) nl->Pw[j] = nl->mid[j] ? 0.5 * P[j] : P[j];
  return nl->Pw;
}

/* G's mid rows at the step's midpoint, (G_j(q_n) + G_j(q)) / 2 in place of G_j(q): G_j is linear in q */
static void VIMoreauNLMidpointRows(VIMoreauNL *nl)
{
  const PetscInt n = nl->n;

  if (!nl->mid) return;
  for (PetscInt j = 0; j < nl->m; j++)
    if (nl->mid[j])
      for (PetscInt k = 0; k < n; k++) nl->G[j * n + k] = 0.5 * (nl->Gn[j * n + k] + nl->G[j * n + k]);
}

/* A mid row's residual G_j(q) v, its G_j(q) = 2 G_j(q_m) - G_j(q_n) (G's row is at the midpoint: VIMoreauNLMidpointRows);
   a mid row has no impact law and no rate (its pre-impact term is 0) */
static PetscReal VIMoreauNLMidRow(const VIMoreauNL *nl, PetscInt j, const PetscReal v[])
{
  const PetscReal *Gj = nl->G + j * nl->n, *Gnj = nl->Gn + j * nl->n;
  PetscReal        w = 0;

  for (PetscInt a = nl->cp[j]; a < nl->cp[j + 1]; a++) {
    const PetscInt k = nl->cols[a];
    w += (2 * Gj[k] - Gnj[k]) * v[k];
  }
  return w;
}

/* Whether row j may hold in this step: bilateral, or its gap at q_n + h v_n / 2 closed. Another row is a unit row of the
   step (P_j = 0): its velocity, pre-impact term and scale are not read. */
static inline PetscBool VIMoreauNLNear(const VIMoreauNL *nl, PetscInt j)
{
  return nl->st->set.kinds[j] == VI_CONTACT_BILATERAL || nl->gs[j] <= 0 ? PETSC_TRUE : PETSC_FALSE;
}

/* Whether a form reads the tangential rows Gt at its q: a frictional contact may close, or an impulse Pt is not 0 (else
   every Gt entry is multiplied by a zero impulse, and the Gt of an earlier q serves) */
static PetscBool VIMoreauNLTangentsRead(const VIMoreauNL *nl, const PetscReal Pt[])
{
  for (PetscInt k = 0; k < nl->mt; k++)
    if (Pt[k] != 0 || VIMoreauNLNear(nl, nl->trow[k])) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* VIMoreauNLForm's F and unit flags alone, at the q, f, G, Gt it evaluated: the same sums in the same order as there */
static PetscErrorCode VIMoreauNLResidual(VIMoreauNL *nl, const PetscReal x[], PetscReal F[])
{
  VIStepper       st = nl->st;
  const PetscInt  n = nl->n, m = nl->m, N = nl->N;
  const PetscReal h = nl->h, th = nl->th, *v = x, *P = x + n, *Pt = x + n + m;
  PetscBool      *unit = nl->nw.unit;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < N; i++) unit[i] = PETSC_FALSE;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal r = -h * ((1 - th) * nl->fn[i] + th * nl->f[i]);
    if (nl->mdiag) /* the off-diagonal terms are zeros: the same sum */
      r += nl->M[i * n + i] * (v[i] - nl->vn[i]);
    else
      for (PetscInt k = 0; k < n; k++) r += nl->M[i * n + k] * (v[k] - nl->vn[k]);
    for (PetscInt a = nl->rp[i]; a < nl->rp[i + 1]; a++) r -= nl->G[nl->rows[a] * n + i] * P[nl->rows[a]];
    for (PetscInt a = nl->tp[i]; a < nl->tp[i + 1]; a++) r -= nl->Gt[nl->trows[a] * n + i] * Pt[nl->trows[a]];
    F[i] = r;
  }
  for (PetscInt j = 0; j < m; j++) {
    const PetscBool  bil = st->set.kinds[j] == VI_CONTACT_BILATERAL ? PETSC_TRUE : PETSC_FALSE;
    const PetscReal *Gj  = nl->G + j * n;
    PetscReal        w   = nl->pre[j];
    if (nl->mid && nl->mid[j]) {
      nl->B[j] = PETSC_TRUE;
      F[n + j] = VIMoreauNLMidRow(nl, j, v);
      continue;
    }
    if (VIMoreauNLNear(nl, j))
      for (PetscInt a = nl->cp[j]; a < nl->cp[j + 1]; a++) w += Gj[nl->cols[a]] * v[nl->cols[a]];
    nl->B[j] = bil || (nl->gs[j] <= 0 && P[j] - nl->rscale[j] * w >= 0) ? PETSC_TRUE : PETSC_FALSE;
    F[n + j] = nl->B[j] ? w : P[j];
    if (!nl->B[j]) unit[n + j] = PETSC_TRUE;
  }
  for (PetscInt k = 0, d; k < nl->mt; k += d) { /* Coulomb's rows: their Jacobian rows into the scratch Jc */
    const PetscInt j = nl->trow[k], cv = 0;
    d = st->set.dims[j] - 1;
    VINonlinearCoulomb(n, d, nl->Gt + k * n, v, NULL, st->set.mu[j], nl->rt[k], nl->B[j], P[j], Pt + k, N, 1, &cv, NULL, n + j, n + m + k,
                       F + n + m + k, nl->Jc, unit);
    /* stick or slip, as in the last Newton matrix? Their diagonal entries: -1e-10 / r (stick), 1 - K > 0 (slip) */
    for (PetscInt a = 0; a < d; a++) {
      const PetscInt c = n + m + k + a;
      if (!unit[c] && (nl->Jc[a * N + c] > 0) != (nl->nw.J[c * N + c] > 0)) nl->nw.same = PETSC_FALSE;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMoreauNLForm(void *ctx, const PetscReal x[], PetscReal F[], PetscReal J[])
{
  VIMoreauNL      *nl = (VIMoreauNL *)ctx;
  VIStepper        st = nl->st;
  const PetscInt   n = nl->n, m = nl->m, N = nl->N;
  const PetscReal  h = nl->h, th = nl->th, *v = x, *P = x + n, *Pt = x + n + m;
  PetscBool       *unit = nl->nw.unit;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) nl->q[i] = nl->qn[i] + h * ((1 - th) * nl->vn[i] + th * v[i]);
  PetscCall(VISystemComputeForce(st->sys, nl->t, nl->q, v, nl->f));
  if (nl->mid) { /* the step's mass at the midpoint (the mid rows' impulse acts there) */
    for (PetscInt i = 0; i < n; i++) nl->qm[i] = 0.5 * (nl->qn[i] + nl->q[i]);
    PetscCall(VISystemComputeMass(st->sys, nl->qm, nl->M));
  }
  if (!J) { /* the residual alone (a chord step of VISSNewtonSolve) */
    PetscCall(VISystemComputeConstraintDerivatives(st->sys, nl->t, nl->q, v, P, nl->G, NULL, NULL));
    VIMoreauNLMidpointRows(nl);
    if (VIMoreauNLTangentsRead(nl, Pt)) PetscCall(VISystemEvaluateTangents(st->sys, nl->t, nl->q, nl->Gt));
    PetscCall(VIMoreauNLResidual(nl, x, F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VISystemComputeForceJacobian(st->sys, nl->t, nl->q, v, nl->dfdq, nl->dfdu));
  if (nl->mid) {
    for (PetscInt i = 0; i < n; i++) nl->wk[i] = v[i] - nl->vn[i];
    PetscCall(VISystemComputeMassJacobian(st->sys, nl->qm, nl->wk, nl->dMw));
  }
  PetscCall(VISystemComputeConstraintDerivatives(st->sys, nl->t, nl->q, v, VIMoreauNLCurvatureWeights(nl, P), nl->G, nl->HV, nl->Hw));
  VIMoreauNLMidpointRows(nl);
  if (VIMoreauNLTangentsRead(nl, Pt)) PetscCall(VISystemEvaluateTangents(st->sys, nl->t, nl->q, nl->Gt));
  /* the momentum rows are written whole; a constraint row is either a unit row (flagged, not written) or zeroed and written */
  for (PetscInt i = 0; i < N; i++) unit[i] = PETSC_FALSE;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal r = -h * ((1 - th) * nl->fn[i] + th * nl->f[i]);
    if (nl->mdiag) r += nl->M[i * n + i] * (v[i] - nl->vn[i]);
    for (PetscInt k = 0; k < n; k++) {
      if (!nl->mdiag) r += nl->M[i * n + k] * (v[k] - nl->vn[k]);
      J[i * N + k] = nl->M[i * n + k] - h * th * (h * th * nl->dfdq[i * n + k] + nl->dfdu[i * n + k]) - h * th * nl->Hw[i * n + k];
      if (nl->mid) J[i * N + k] += 0.5 * h * th * nl->dMw[i * n + k]; /* d(M(q_m) (v - v_n))/dv, dq_m/dv = h theta / 2 */
    }
    /* the rows touching coordinate i; J's other constraint columns in row i are never written (zeros from VISSNewtonCreate) */
    for (PetscInt a = nl->rp[i]; a < nl->rp[i + 1]; a++) {
      const PetscInt j = nl->rows[a];
      r -= nl->G[j * n + i] * P[j];
      J[i * N + n + j] = -nl->G[j * n + i];
    }
    for (PetscInt a = nl->tp[i]; a < nl->tp[i + 1]; a++) {
      const PetscInt k = nl->trows[a];
      r -= nl->Gt[k * n + i] * Pt[k];
      J[i * N + n + m + k] = -nl->Gt[k * n + i];
    }
    F[i] = r;
  }
  for (PetscInt j = 0; j < m; j++) {
    const PetscBool  bil = st->set.kinds[j] == VI_CONTACT_BILATERAL ? PETSC_TRUE : PETSC_FALSE;
    const PetscReal *Gj = nl->G + j * n, *HVj = nl->HV + j * n;
    const PetscInt   row = (n + j) * N;
    PetscReal        w   = nl->pre[j];
    if (nl->mid && nl->mid[j]) {
      nl->B[j] = PETSC_TRUE;
      F[n + j] = VIMoreauNLMidRow(nl, j, v);
      PetscCall(PetscArrayzero(J + row + n, N - n));
      for (PetscInt a = nl->cp[j]; a < nl->cp[j + 1]; a++) {
        const PetscInt k = nl->cols[a];
        J[row + k]       = 2 * Gj[k] - nl->Gn[j * n + k] + h * th * HVj[k];
      }
      continue;
    }
    if (VIMoreauNLNear(nl, j))
      for (PetscInt a = nl->cp[j]; a < nl->cp[j + 1]; a++) w += Gj[nl->cols[a]] * v[nl->cols[a]];
    nl->B[j] = bil || (nl->gs[j] <= 0 && P[j] - nl->rscale[j] * w >= 0) ? PETSC_TRUE : PETSC_FALSE;
    if (nl->B[j]) {
      F[n + j] = w;
      PetscCall(PetscArrayzero(J + row + n, N - n));
      for (PetscInt a = nl->cp[j]; a < nl->cp[j + 1]; a++) J[row + nl->cols[a]] = Gj[nl->cols[a]] + h * th * HVj[nl->cols[a]];
      if (nl->nw.regularize) J[row + n + j] = -1e-10 / nl->rscale[j]; /* redundant rows (VISSNewton.regularize) */
    } else {
      F[n + j]    = P[j];
      unit[n + j] = PETSC_TRUE;
    }
  }
  /* Coulomb's law on the tangential impulses (Alart-Curnier, the disk of radius mu P_n of the iterate, VINonlinearCoulomb) */
  for (PetscInt k = 0, d; k < nl->mt; k += d) {
    const PetscInt j = nl->trow[k], cv = 0;
    d = st->set.dims[j] - 1;
    VINonlinearCoulomb(n, d, nl->Gt + k * n, v, NULL, st->set.mu[j], nl->rt[k], nl->B[j], P[j], Pt + k, N, 1, &cv, NULL, n + j, n + m + k, F + n + m + k,
                       J + (n + m + k) * N, nl->nw.unit);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMoreauNLStep(VIStepper st, VIMoreauNL *nl, PetscReal t)
{
  const PetscInt  n = nl->n, m = nl->m;
  const PetscReal h = nl->h;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(st->lambda, st->nlambda));
  if (nl->first) {
    const PetscReal *q0, *u0;
    PetscCall(VISystemGetInitialState(st->sys, &q0, &u0));
    nl->mhave = PETSC_FALSE; /* a new run: its system's mass formed again */
    PetscCall(PetscArraycpy(st->q, q0, n));
    PetscCall(PetscArraycpy(st->u, u0, n));
  } else {
    nl->t = t;
    PetscCall(PetscArraycpy(nl->qn, st->q, n));
    PetscCall(PetscArraycpy(nl->vn, st->u, n));
    if (!nl->mconst || !nl->mhave) {
      PetscCall(VISystemComputeMass(st->sys, nl->qn, nl->M));
      /* a constant mass once; diagonal (planar rigid bodies): the momentum rows' M (v - v_n) is its diagonal's */
      nl->mhave = nl->mconst;
      nl->mdiag = nl->mconst && !nl->mid ? PETSC_TRUE : PETSC_FALSE;
      for (PetscInt i = 0; i < n * n && nl->mdiag; i++)
        if (i % (n + 1) && nl->M[i] != 0) nl->mdiag = PETSC_FALSE;
    }
    PetscCall(VISystemComputeForce(st->sys, t - h, nl->qn, nl->vn, nl->fn));
    /* the index set from the gaps at q_n + h v_n / 2, Newton's pre-impact term e_j G_j(q_n) v_n, r_j = 1 / (G M^-1 G^T)_jj */
    for (PetscInt i = 0; i < n; i++) nl->qs[i] = nl->qn[i] + 0.5 * h * nl->vn[i];
    PetscCall(VISystemEvaluateConstraints(st->sys, t, nl->qs, nl->gs, NULL, nl->rate));
    PetscBool same = PETSC_FALSE;
    /* G at q_n from the last step's end when it is this step's start (G does not depend on t); the rates at t - h, which
       is not always the last step's t bit for bit, evaluated alone then (a rheonomic row's: a multibody driver's) */
    if (nl->have_gn) PetscCall(PetscMemcmp(nl->qgn, nl->qn, n * sizeof(PetscReal), &same));
    if (!same) PetscCall(VISystemEvaluateConstraints(st->sys, t - h, nl->qn, NULL, nl->Gn, nl->rate + m));
    else if (nl->tgn != t - h)
      PetscCall(VISystemEvaluateConstraints(st->sys, t - h, nl->qn, NULL, NULL, nl->rate + m));
    for (PetscInt j = 0; j < m; j++) {
      PetscReal gv = nl->rate[m + j], d = 0;
      if (!VIMoreauNLNear(nl, j)) continue;
      for (PetscInt a = nl->cp[j]; a < nl->cp[j + 1]; a++) {
        const PetscInt k = nl->cols[a];
        gv += nl->Gn[j * n + k] * nl->vn[k];
        d += nl->Gn[j * n + k] * nl->Gn[j * n + k] / nl->M[k * n + k];
      }
      /* the row's velocity is G v + dg/dt: a rheonomic row's rate at t_{n+1} joins it (the pre-impact term takes t_n's) */
      nl->pre[j]    = nl->e[j] * gv + nl->rate[j];
      nl->rscale[j] = d > 0 ? 1 / d : 1;
    }
    /* the tangential rows' scales, of the contacts that may close (their Gt at q_n: the forms evaluate theirs) */
    for (PetscInt k = 0; k < nl->mt; k++)
      if (VIMoreauNLNear(nl, nl->trow[k])) {
        PetscCall(VISystemEvaluateTangents(st->sys, t - h, nl->qn, nl->Gt));
        break;
      }
    for (PetscInt k = 0; k < nl->mt; k++) {
      PetscReal d = 0;
      if (!VIMoreauNLNear(nl, nl->trow[k])) continue;
      for (PetscInt a = nl->cp[nl->trow[k]]; a < nl->cp[nl->trow[k] + 1]; a++)
        d += nl->Gt[k * n + nl->cols[a]] * nl->Gt[k * n + nl->cols[a]] / nl->M[nl->cols[a] * (n + 1)];
      nl->rt[k] = d > 0 ? 1 / d : 1;
      if (k > 0 && nl->trow[k - 1] == nl->trow[k]) nl->rt[k] = nl->rt[k - 1] = PetscMin(nl->rt[k], nl->rt[k - 1]); /* one r per contact */
    }
    /* the velocity predicted by its last change, v_n + (v_n - v_{n-1}) */
    for (PetscInt i = 0; i < n; i++) nl->x[i] = nl->have_vprev ? 2 * nl->vn[i] - nl->vprev[i] : nl->vn[i];
    PetscCall(PetscArraycpy(nl->vprev, nl->vn, n));
    nl->have_vprev = PETSC_TRUE;
    /* the impulses from the last step's (a warm start; checkpointed state) */
    PetscCall(VISSNewtonSolve(st, &nl->nw, VIMoreauNLForm, nl, nl->x));
    for (PetscInt i = 0; i < n; i++) {
      st->u[i] = nl->x[i];
      st->q[i] = nl->qn[i] + h * ((1 - nl->th) * nl->vn[i] + nl->th * nl->x[i]);
    }
    for (PetscInt j = 0; j < m; j++) st->lambda[st->offsets[j]] = nl->x[n + j] / h;
    for (PetscInt k = 0, a = 0; k < nl->mt; k++) {
      a                                        = k > 0 && nl->trow[k - 1] == nl->trow[k] ? a + 1 : 1;
      st->lambda[st->offsets[nl->trow[k]] + a] = nl->x[n + m + k] / h;
    }
    /* the energy balance's terms (the constraints' work: impacts, friction, drivers; the loads' work) */
    PetscCall(VINonlinearWork(st, t, h, nl->qn, nl->vn, nl->G, nl->mt, nl->trow, nl->Gt, NULL, nl->wk));
  }
  if (m > 0) {
    /* the gaps, and G and dg/dt at (t, q_{n+1}): the next step's at its (t_n, q_n), when it starts from that time and state */
    PetscCall(VISystemEvaluateConstraints(st->sys, t, st->q, st->gap, nl->Gn, nl->rate + m));
    PetscCall(PetscArraycpy(nl->qgn, st->q, n));
    nl->tgn     = t;
    nl->have_gn = PETSC_TRUE;
  }
  nl->first = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Moreau-Jean scheme's own options, read in VIStepperSetFromOptions_Moreau (src/sys/options.c's registry) */
static const VIOptionEntry VIMoreauOptionTable[] = {
    {"-step_moreau_variant", VI_OPTION_ENUM, VIMoreauVariants},
    {"-step_theta", VI_OPTION_REAL, NULL},
};

PetscErrorCode VIStepperRegister_Moreau(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIStepperRegister(VISTEPPERMOREAU, VIStepperCreate_Moreau));
  PetscCall(VIOptionsRegisterTable("step_moreau", VIMoreauOptionTable, sizeof(VIMoreauOptionTable) / sizeof(VIMoreauOptionTable[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
