/* Moreau-type stepping of a mass-carrying ROM: the symmetric Moreau-like scheme with restitution (seed 000 App. B,
   Eqs. B.1–B.5) and the Moreau–Jean theta-scheme. Impacts are percussions; W_b = I. */
#include "stepimpl.h"

typedef struct {
  PetscReal  *A;      /* n x n: (M + dt/2 D)^-1 (symmetric) or (M + theta dt D + theta^2 dt^2 K)^-1 (theta) */
  PetscReal  *P;      /* n x 2n: the free velocity is P [u; q] + dt sum_l c_l A v_l (set-up) */
  PetscReal  *AL;     /* num_loads x n: A v_l for the load vectors v_l */
  PetscReal  *w;      /* 2n: [uh; q] */
  PetscReal  *c, *c1; /* num_loads: the scales c_l of a step; s_l(t_k+1) (theta) */
  PetscReal  *Kq;     /* n: D u (damping work) */
  PetscInt    nl;
  PetscReal  *uh;   /* symmetric: u^{k-1/2}; theta: u^k */
  PetscReal  *unew; /* symmetric: u^{k+1/2}; theta: u^{k+1} */
  PetscReal  *rhs, *qprev, *fprev;
  PetscBool  *active;
  PetscBool   friction, first, damped;
  VIRowSplit  rows; /* rows of the n x n products over the case's group */
  VIActiveSet as;
} VIMoreau;

static PetscErrorCode VIStepperSetUp_Moreau(VIStepper st)
{
  VIMoreau        *mo = (VIMoreau *)st->data;
  PetscInt         n  = st->n;
  PetscReal        dt = st->dt, th = st->theta;
  const PetscReal *q0, *u0, *const *loads;
  PetscReal *B;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc3(n * n, &mo->A, n, &mo->uh, n, &mo->unew));
  PetscCall(PetscMalloc1(n * n, &B));
  PetscCall(PetscCalloc4(n, &mo->rhs, n, &mo->qprev, n, &mo->fprev, PetscMax(st->nc, 1), &mo->active));
  for (PetscInt i = 0; i < n * n; i++) {
    if (st->variant == VI_MOREAU_SYMMETRIC) {
      mo->A[i] = st->M[i] + 0.5 * dt * st->D[i];
      B[i]     = st->M[i] - 0.5 * dt * st->D[i];
    } else {
      mo->A[i] = st->M[i] + th * dt * st->D[i] + th * th * dt * dt * st->K[i];
      B[i]     = st->D[i] + th * dt * st->K[i];
    }
    if (st->D[i] != 0) mo->damped = PETSC_TRUE;
  }
  PetscCall(PetscCalloc1(n, &mo->Kq));
  PetscCall(VIInvertSPD(st->comm, n, mo->A, "The iteration matrix of the Moreau scheme (M + dt/2 D, or M + theta dt D + theta^2 dt^2 K)"));
  /* symmetric (Eq. B.1 without percussions): u^{k+1/2} = A (M - dt/2 D) u^{k-1/2} - dt A K q^k + dt A f(t_k);
     theta: u^{k+1} = (I - dt A (D + theta dt K)) u^k - dt A K q^k + dt A ((1 - theta) f(t_k) + theta f(t_k+1)).
     Both are P [u; q] + dt sum_l c_l A v_l: one product per step instead of three */
  PetscCall(VISystemGetLoads(st->sys, &mo->nl, &loads));
  PetscCall(
      PetscCalloc5(2 * n * n, &mo->P, PetscMax(mo->nl, 1) * n, &mo->AL, 2 * n, &mo->w, PetscMax(mo->nl, 1), &mo->c, PetscMax(mo->nl, 1), &mo->c1));
  PetscCall(VIMatMat(n, n, mo->A, B, 1.0, mo->P, 2 * n));
  PetscCall(VIMatMat(n, n, mo->A, st->K, -dt, mo->P + n, 2 * n));
  if (st->variant == VI_MOREAU_THETA)
    for (PetscInt i = 0; i < n; i++) {
      for (PetscInt j = 0; j < n; j++) mo->P[i * 2 * n + j] *= -dt;
      mo->P[i * 2 * n + i] += 1;
    }
  for (PetscInt l = 0; l < mo->nl; l++) VIMatVec(n, n, mo->A, n, loads[l], 0.0, mo->AL + l * n);
  PetscCall(PetscFree(B));
  mo->friction = PETSC_FALSE;
  for (PetscInt j = 0; j < st->nc; j++)
    if (st->sys->dims[j] > 1 && st->sys->mu[j] > 0) mo->friction = PETSC_TRUE;
  PetscCall(VIActiveSetCreate(st->nb, st->nc, &mo->as));
  PetscCall(VIRowSplitCreate(st->comm, n, 1, &mo->rows));
  PetscCall(VISystemGetInitialState(st->sys, &q0, &u0));
  PetscCall(PetscArraycpy(st->q, q0, n));
  PetscCall(PetscArraycpy(mo->uh, u0, n));
  mo->first = PETSC_TRUE;
  /* what the next step and advance read before writing it (checkpoints): unew is read by the advance of the level */
  PetscCall(VIStepperRegisterState(st, "moreau_uh", n, mo->uh, NULL));
  PetscCall(VIStepperRegisterState(st, "moreau_unew", n, mo->unew, NULL));
  PetscCall(VIStepperRegisterState(st, "moreau_qprev", n, mo->qprev, NULL));
  PetscCall(VIStepperRegisterState(st, "moreau_fprev", n, mo->fprev, NULL));
  PetscCall(VIStepperRegisterState(st, "moreau_first", 1, NULL, &mo->first));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* unew = P [uh; q] + dt sum_l c_l A v_l, this rank's rows, then gathered */
static PetscErrorCode VIMoreauFreeVelocity(VIStepper st, VIMoreau *mo)
{
  const PetscInt lo = mo->rows.lo, hi = mo->rows.hi, n = st->n;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(mo->w, mo->uh, n));
  PetscCall(PetscArraycpy(mo->w + n, st->q, n));
  VIMatVec(hi - lo, 2 * n, mo->P + lo * 2 * n, 2 * n, mo->w, 0.0, mo->unew + lo);
  for (PetscInt l = 0; l < mo->nl; l++) {
    const PetscReal a = st->dt * mo->c[l], *v = mo->AL + l * n;
    for (PetscInt i = lo; i < hi; i++) mo->unew[i] += a * v[i];
  }
  PetscCall(VIRowSplitGather(&mo->rows, mo->unew));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperStep_Moreau(VIStepper st, PetscReal t)
{
  VIMoreau *mo  = (VIMoreau *)st->data;
  VISystem  sys = st->sys;
  PetscInt  n = st->n, nc = st->nc;
  PetscReal dt = st->dt, th = st->theta, e = st->restitution, *f = st->f;
  PetscBool any = PETSC_FALSE, sym = st->variant == VI_MOREAU_SYMMETRIC ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBeginUser;
  /* the load scales s_l(t_k) once: for f (energy terms) and for the free velocity */
  PetscCall(VISystemEvaluateLoadScales(sys, t, mo->c));
  PetscCall(VISystemForceFromScales(sys, mo->c, f));
  PetscCall(VISystemEvaluateGaps(sys, t, st->g0, st->g0_rate));
  /* active set from the gaps at t_k (symmetric) or at the predicted midpoint q^k + dt/2 u^k (theta) */
  for (PetscInt j = 0; j < nc; j++) {
    PetscInt  o   = sys->offsets[j];
    PetscReal gap = st->q[o] + st->g0[j] + (sym ? 0 : 0.5 * dt * (mo->uh[o] + st->g0_rate[j]));
    st->gap[j]    = st->q[o] + st->g0[j];
    /* a bilateral row is always in the set: the solver keeps B u^{k+1} = 0 (velocity level, seed 002 Eq. 7c) */
    mo->active[j] = (gap <= 0 || sys->preload[j] > 0 || sys->kinds[j] == VI_CONTACT_BILATERAL) ? PETSC_TRUE : PETSC_FALSE;
    if (mo->active[j]) any = PETSC_TRUE;
  }
  /* free velocity: Eq. (B.1) without percussions */
  if (sym) {
    /* (M + dt/2 D) u^{k+1/2} = (M - dt/2 D) u^{k-1/2} + dt (f - K q^k) + W dP */
    PetscCall(VIMoreauFreeVelocity(st, mo));
  } else {
    /* W du = dt (f_theta - K q^k - (D + theta dt K) u^k) + W_b P,  W = M + theta dt D + theta^2 dt^2 K */
    PetscCall(VISystemEvaluateLoadScales(sys, t + dt, mo->c1));
    for (PetscInt l = 0; l < mo->nl; l++) mo->c[l] = (1 - th) * mo->c[l] + th * mo->c1[l];
    PetscCall(VIMoreauFreeVelocity(st, mo));
  }
  PetscCall(PetscArrayzero(st->lambda, st->nb));
  if (any) {
    VIActiveSet *as = &mo->as;
    PetscInt     a = 0, c = 0;
    PetscCall(VIActiveSetBuild(st, mo->active, mo->friction, as));
    /* Eqs. (B.3)-(B.5): -(G dP + c) ∈ N_C(dP), G = W^T A W, c = gamma_free + e gamma^{k-1/2} (normal only) */
    for (PetscInt j = 0; j < nc; j++) {
      if (!mo->active[j]) continue;
      for (PetscInt r = 0; r < as->dims[c]; r++, a++) {
        as->c[a] = VIStepperRelativeVelocity(st, j, r, mo->unew);
        if (r == 0) as->c[a] += e * VIStepperRelativeVelocity(st, j, r, mo->uh);
        as->x[a] = 0;
      }
      c++;
    }
    /* Preloaded contacts, as in leapfrog (Eqs. 7, 13-14): the ROM's state 0 is the preloaded equilibrium and P the change of the normal
       percussion; solve for the total X_n = P_n + p dt >= 0 (disk radius mu X_n): c <- c - G p dt, then P_n = X_n - p dt. */
    for (PetscInt cc = 0, an = 0; cc < as->nact; an += as->dims[cc], cc++) {
      const PetscReal pdt = as->preload[cc] * dt;
      if (pdt <= 0) continue;
      for (PetscInt b = 0; b < as->nrows; b++) as->c[b] -= mo->A[as->rows[b] * n + as->rows[an]] * pdt;
      as->x[an] = pdt;
    }
    as->set.preload = NULL;
    PetscCall(VIStepperSolveContacts(st, as, mo->A, n, 1.0));
    as->set.preload = as->preload;
    for (PetscInt cc = 0, an = 0; cc < as->nact; an += as->dims[cc], cc++) as->x[an] -= as->preload[cc] * dt;
    for (PetscInt b = 0; b < as->nrows; b++) {
      const PetscInt  row = as->rows[b];
      const PetscReal P = as->x[b], *col = mo->A + row * n; /* A is exactly symmetric: its rows are its columns */
      st->lambda[row] = P / dt;                             /* mean contact force over the step */
      for (PetscInt i = 0; i < n; i++) mo->unew[i] += col[i] * P;
    }
  }
  /* level k: velocity estimate, and the energy terms of the interval around it (discrete energy identity of the scheme) */
  for (PetscInt i = 0; i < n; i++) st->u[i] = sym ? 0.5 * (mo->uh[i] + mo->unew[i]) : mo->uh[i];
  {
    /* damping work with the velocity of the interval: the midpoint (symmetric) or u^{k+theta} (theta), in rhs */
    if (mo->damped) {
      for (PetscInt i = 0; i < n; i++) mo->rhs[i] = sym ? st->u[i] : (1 - th) * mo->uh[i] + th * mo->unew[i];
      VIMatVec(n, n, st->D, n, mo->rhs, 0.0, mo->Kq);
      for (PetscInt i = 0; i < n; i++) st->energy.damping_dissipation += dt * mo->rhs[i] * mo->Kq[i];
    }
    for (PetscInt j = 0; j < nc; j++) {
      PetscInt o = sys->offsets[j];
      for (PetscInt r = 0; r < sys->dims[j]; r++) {
        PetscReal P = st->lambda[o + r] * dt, v = 0.5 * (mo->uh[o + r] + mo->unew[o + r]);
        if (r == 0)
          st->energy.obstacle_work += P * v;
        else {
          PetscReal drive = st->obstacle_v[2 * j + r - 1];
          st->energy.friction_dissipation -= P * (v - drive);
          st->energy.obstacle_work += P * drive;
        }
      }
    }
  }
  if (!mo->first)
    for (PetscInt i = 0; i < n; i++) st->energy.external_work += 0.5 * (mo->fprev[i] + f[i]) * (st->q[i] - mo->qprev[i]);
  PetscCall(PetscArraycpy(mo->qprev, st->q, n));
  PetscCall(PetscArraycpy(mo->fprev, f, n));
  mo->first = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperAdvance_Moreau(VIStepper st)
{
  VIMoreau *mo = (VIMoreau *)st->data;
  PetscReal th = st->variant == VI_MOREAU_SYMMETRIC ? 1.0 : st->theta;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < st->n; i++) st->q[i] += st->dt * ((1 - th) * mo->uh[i] + th * mo->unew[i]);
  PetscCall(PetscArraycpy(mo->uh, mo->unew, st->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperDestroy_Moreau(VIStepper st)
{
  VIMoreau *mo = (VIMoreau *)st->data;

  PetscFunctionBeginUser;
  if (!mo) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree3(mo->A, mo->uh, mo->unew));
  PetscCall(PetscFree5(mo->P, mo->AL, mo->w, mo->c, mo->c1));
  PetscCall(PetscFree(mo->Kq));
  PetscCall(PetscFree4(mo->rhs, mo->qprev, mo->fprev, mo->active));
  PetscCall(VIActiveSetDestroy(&mo->as));
  PetscCall(VIRowSplitDestroy(&mo->rows));
  PetscCall(PetscFree(st->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperCreate_Moreau(VIStepper st)
{
  VIMoreau *mo;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&mo));
  st->data        = mo;
  st->ops.setup   = VIStepperSetUp_Moreau;
  st->ops.step    = VIStepperStep_Moreau;
  st->ops.advance = VIStepperAdvance_Moreau;
  st->ops.destroy = VIStepperDestroy_Moreau;
  PetscFunctionReturn(PETSC_SUCCESS);
}
