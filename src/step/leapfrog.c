/* Leapfrog (Verlet) stepping of a massless-boundary ROM: static contact problem on the boundary, explicit inner
   dynamics (seed 000 §2, Eqs. 1–14, Fig. 2). Frictionless contacts on position level, frictional on velocity level. */
#include "stepimpl.h"

typedef struct {
  PetscReal  *Kbb_inv;                   /* nb x nb: flexibility of the boundary with the inner coordinates held, (K_bb)^-1 */
  PetscReal  *S;                         /* nb x n: [K_bb^-1, -H], H = K_bb^-1 K_bi, so that Eq. (11) is one product with [f_b; q_i] */
  PetscReal  *w;                         /* n: [f_b; q_i] */
  PetscReal  *Khat, *kdiag;              /* nm x nm: K_ii - K_ib H, the inner stiffness with the boundary condensed; its diagonal */
  PetscBool   kdiagonal;                 /* Khat is diagonal (MacNeal, massless Craig-Bampton: the inner modes' Omega^2) */
  PetscBool   modal;                     /* Khat, M_ii and D_ii diagonal: the inner rows in one pass on every rank */
  PetscBool   fb_zero;                   /* no load acts on the boundary rows: f_b = 0 at every level */
  PetscBool   forces_before;             /* a contact force may have been nonzero at the previous level */
  PetscReal  *kq, *Mu;                   /* nm: (K q)_i of this rank's rows; M_ii u_i or D_ii u_i (energy terms) */
  PetscReal  *mdiag, *ddiag;             /* nm: diagonals of M_ii and D_ii */
  PetscReal  *adiag, *bdiag;             /* nm: diagonals of A and B (the diagonal case) */
  PetscReal  *A, *B;                     /* nm x nm: (M_ii + dt/2 D_ii)^-1 and (M_ii - dt/2 D_ii) (Eq. 10 on the damping term) */
  PetscReal  *qb_pre;                    /* nb: boundary displacement predicted with no contact force (Eq. 11) */
  PetscReal  *qb_prev;                   /* nb: boundary displacement of the previous level (frictional case) */
  PetscReal  *ui_half;                   /* nm: inner velocity u^{k-1/2} */
  PetscReal  *fb_prev, *qprev, *fprev;   /* previous level: contact forces (also the solver's warm start), q, f */
  PetscReal  *r, *tmp;                   /* nm work */
  PetscReal  *kr;                        /* 2 nm: per inner row, (K q)_i and the right-hand side r_i */
  VIRowSplit  rows, rows2;               /* inner rows over the case's group: one entry per row, and the (K q, r) pairs */
  PetscBool  *active, *released;         /* per contact: in the contact solve; open with its preload released (velocity level) */
  PetscBool   friction, first, diagonal; /* diagonal: M_ii and D_ii are diagonal (MacNeal, modal damping), A and B too */
  PetscBool   damped;
  VIActiveSet as;
} VILeapfrog;

static PetscErrorCode VIStepperSetUp_Leapfrog(VIStepper st)
{
  VILeapfrog      *lf = (VILeapfrog *)st->data;
  PetscInt         n = st->n, nb = st->nb, nm = st->nm;
  const PetscReal *q0, *u0;

  PetscFunctionBeginUser;
  st->scheme_energy = PETSC_TRUE; /* the step computes the kinetic and potential energy of its level */
  PetscCall(PetscMalloc4(nb * nb, &lf->Kbb_inv, nb * n, &lf->S, nm * nm, &lf->A, nm * nm, &lf->B));
  PetscCall(PetscCalloc5(n, &lf->w, nm, &lf->kq, nm, &lf->Mu, nm, &lf->mdiag, nm, &lf->ddiag));
  PetscCall(PetscCalloc2(nm, &lf->adiag, nm, &lf->bdiag));
  PetscCall(PetscCalloc5(nb, &lf->qb_pre, nb, &lf->qb_prev, nm, &lf->ui_half, nm, &lf->r, nm, &lf->tmp));
  PetscCall(PetscCalloc5(nb, &lf->fb_prev, n, &lf->qprev, n, &lf->fprev, PetscMax(st->nc, 1), &lf->active, PetscMax(st->nc, 1), &lf->released));
  PetscCall(PetscCalloc1(2 * nm, &lf->kr));
  PetscCall(PetscMalloc2(nm * nm, &lf->Khat, nm, &lf->kdiag));
  PetscCall(VIRowSplitCreate(st->comm, nm, 1, &lf->rows));
  PetscCall(VIRowSplitCreate(st->comm, nm, 2, &lf->rows2));
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt j = 0; j < nb; j++) lf->Kbb_inv[i * nb + j] = st->K[i * n + j];
  PetscCall(VIInvertSPD(st->comm, nb, lf->Kbb_inv, "The boundary stiffness K_bb of the ROM"));
  for (PetscInt i = 0; i < nb; i++) {
    for (PetscInt j = 0; j < nb; j++) lf->S[i * n + j] = lf->Kbb_inv[i * nb + j];
    for (PetscInt k = 0; k < nm; k++) {
      PetscReal s = 0;
      for (PetscInt j = 0; j < nb; j++) s += lf->Kbb_inv[i * nb + j] * st->K[j * n + nb + k];
      lf->S[i * n + nb + k] = -s;
    }
  }
  /* The boundary rows of Eq. (1) give K_bb q_b + K_bi q_i = f_b + lambda at every level, so the inner rows' stiffness
     force is (K q)_i = K_ii q_i + K_ib q_b = Khat q_i + H^T (f_b + lambda) with Khat = K_ii - K_ib H: a product with
     Khat (diagonal for the modal inner coordinates of MacNeal and massless Craig-Bampton ROMs) and one row of H per
     nonzero boundary force, instead of the nm x n product with K's inner rows. */
  {
    PetscReal off = 0; /* the largest off-diagonal entry of Khat relative to its diagonal entries */
    for (PetscInt i = 0; i < nm; i++)
      for (PetscInt j = 0; j < nm; j++) {
        PetscReal s = st->K[(nb + i) * n + nb + j];
        for (PetscInt b = 0; b < nb; b++) s += st->K[(nb + i) * n + b] * lf->S[b * n + nb + j];
        lf->Khat[i * nm + j] = s;
      }
    for (PetscInt i = 0; i < nm; i++) lf->kdiag[i] = lf->Khat[i * nm + i];
    for (PetscInt i = 0; i < nm; i++)
      for (PetscInt j = 0; j < nm; j++)
        if (j != i) off = PetscMax(off, PetscAbsReal(lf->Khat[i * nm + j]) / PetscSqrtReal(PetscAbsReal(lf->kdiag[i] * lf->kdiag[j])));
    /* modal inner coordinates are orthogonal to the eigensolver's accuracy (off-diagonal ratios 3e-12 on the plate,
       6e-11 on the blade): below 1e-9 they count as zero, a change of the stiffness far below the ROM's own error */
    lf->kdiagonal = off <= 1e-9 ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscInfo(NULL, "leapfrog: condensed inner stiffness %s (largest off-diagonal ratio %g)\n", lf->kdiagonal ? "diagonal" : "dense",
                        (double)off));
  }
  {
    PetscInt                num_loads;
    const PetscReal *const *vec;
    PetscCall(VISystemGetLoads(st->sys, &num_loads, &vec));
    lf->fb_zero = PETSC_TRUE;
    for (PetscInt l = 0; l < num_loads; l++)
      for (PetscInt b = 0; b < nb; b++)
        if (vec[l][b] != 0) lf->fb_zero = PETSC_FALSE;
  }
  lf->forces_before = PETSC_TRUE; /* the first level (or the first after a restore) sums every contact's work */
  for (PetscInt i = 0; i < nm; i++)
    for (PetscInt j = 0; j < nm; j++) {
      PetscReal m = st->M[(nb + i) * n + nb + j], d = st->D[(nb + i) * n + nb + j];
      lf->A[i * nm + j] = m + 0.5 * st->dt * d;
      lf->B[i * nm + j] = m - 0.5 * st->dt * d;
    }
  PetscCall(VIInvertSPD(st->comm, nm, lf->A, "The inner mass M_ii + dt/2 D_ii of the ROM"));
  for (PetscInt i = 0; i < nm; i++) {
    lf->mdiag[i] = st->M[(nb + i) * n + nb + i];
    lf->ddiag[i] = st->D[(nb + i) * n + nb + i];
  }
  for (PetscInt i = 0; i < nm; i++) {
    lf->adiag[i] = lf->A[i * nm + i];
    lf->bdiag[i] = lf->B[i * nm + i];
  }
  lf->diagonal = PETSC_TRUE;
  lf->damped   = PETSC_FALSE;
  for (PetscInt i = 0; i < nm; i++)
    for (PetscInt j = 0; j < nm; j++) {
      if (i != j && (lf->A[i * nm + j] != 0 || lf->B[i * nm + j] != 0)) lf->diagonal = PETSC_FALSE;
      if (st->D[(nb + i) * n + nb + j] != 0) lf->damped = PETSC_TRUE;
    }
  lf->modal    = lf->kdiagonal && lf->diagonal ? PETSC_TRUE : PETSC_FALSE;
  lf->friction = PETSC_FALSE;
  for (PetscInt j = 0; j < st->nc; j++)
    if (st->set.dims[j] > 1 && st->set.mu[j] > 0) lf->friction = PETSC_TRUE;
  PetscCall(VIActiveSetCreate(nb, st->nc, &lf->as));

  /* initial state (seed 000 §2.3: u^{1/2} = u(t_start), q_b^0 = q_b(t_start)) */
  PetscCall(VISystemGetInitialState(st->sys, &q0, &u0));
  PetscCall(PetscArraycpy(st->q, q0, n));
  PetscCall(PetscArraycpy(lf->ui_half, u0 + nb, nm));
  PetscCall(PetscArraycpy(lf->qb_prev, q0, nb));
  PetscCall(PetscArrayzero(st->lambda, nb));
  lf->first = PETSC_TRUE;
  /* what the next step and advance read before writing it (checkpoints) */
  PetscCall(VIStepperRegisterState(st, "leapfrog_ui_half", nm, lf->ui_half, NULL));
  PetscCall(VIStepperRegisterState(st, "leapfrog_qb_prev", nb, lf->qb_prev, NULL));
  PetscCall(VIStepperRegisterState(st, "leapfrog_fb_prev", nb, lf->fb_prev, NULL));
  PetscCall(VIStepperRegisterState(st, "leapfrog_qprev", n, lf->qprev, NULL));
  PetscCall(VIStepperRegisterState(st, "leapfrog_fprev", n, lf->fprev, NULL));
  PetscCall(VIStepperRegisterState(st, "leapfrog_first", 1, NULL, &lf->first));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Eq. (2) with Eqs. (9)-(10) on the inner rows: (M + dt/2 D) u^{k+1/2} = (M - dt/2 D) u^{k-1/2} + dt (f_i - (K q)_i), for
   diagonal M_ii, D_ii and Khat (modal inner coordinates), every row on every rank, in one pass that also completes
   level k: u^k = (u^{k-1/2} + u^{k+1/2}) / 2 for the records, its kinetic and potential energy, the damping work at the
   midpoint; on return ui_half holds u^{k+1/2}. */
static PetscErrorCode VILeapfrogInnerModal(VILeapfrog *lf, PetscInt nm, PetscReal dt, const PetscReal *restrict qi, const PetscReal *restrict fi,
                                           PetscReal *restrict ui, PetscReal *potential, VIEnergy *energy)
{
  const PetscReal *restrict kq = lf->kq, *restrict a = lf->adiag, *restrict b = lf->bdiag, *restrict m = lf->mdiag, *restrict d = lf->ddiag;
  PetscReal *restrict uh = lf->ui_half;
  PetscReal v, pot = *potential, kinetic = 0, damping = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nm; i++) {
    v     = a[i] * (dt * (fi[i] - kq[i]) + b[i] * uh[i]);
    ui[i] = 0.5 * (uh[i] + v);
    uh[i] = v;
    pot += 0.5 * qi[i] * kq[i];
    kinetic += 0.5 * m[i] * ui[i] * ui[i];
    damping += v * (d[i] * v);
  }
  *potential      = pot;
  energy->kinetic = kinetic;
  if (lf->damped) energy->damping_dissipation += dt * damping;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same with dense M_ii, D_ii or Khat: the O(nm^2) products split over the case's group (this rank's inner rows, then
   gathered). */
static PetscErrorCode VILeapfrogInner(VIStepper st, VILeapfrog *lf, PetscReal *potential)
{
  PetscInt         n = st->n, nb = st->nb, nm = st->nm, lo = lf->rows2.lo, hi = lf->rows2.hi;
  PetscReal        dt = st->dt, pot = *potential, kinetic = 0;
  const PetscReal *qi = st->q + nb, *f = st->f;

  PetscFunctionBeginUser;
  if (lf->diagonal)
    for (PetscInt i = lo; i < hi; i++) lf->tmp[i] = lf->bdiag[i] * lf->ui_half[i];
  else
    VIMatVec(hi - lo, nm, lf->B + lo * nm, nm, lf->ui_half, 0.0, lf->tmp + lo);
  for (PetscInt i = lo; i < hi; i++) {
    lf->kr[2 * i]     = lf->kq[i];
    lf->kr[2 * i + 1] = dt * (f[nb + i] - lf->kq[i]) + lf->tmp[i];
  }
  PetscCall(VIRowSplitGather(&lf->rows2, lf->kr));
  for (PetscInt i = 0; i < nm; i++) {
    pot += 0.5 * qi[i] * lf->kr[2 * i];
    lf->r[i] = lf->kr[2 * i + 1];
  }
  *potential = pot;
  if (lf->diagonal)
    for (PetscInt i = 0; i < nm; i++) lf->tmp[i] = lf->adiag[i] * lf->r[i];
  else {
    VIMatVec(lf->rows.hi - lf->rows.lo, nm, lf->A + lf->rows.lo * nm, nm, lf->r, 0.0, lf->tmp + lf->rows.lo);
    PetscCall(VIRowSplitGather(&lf->rows, lf->tmp));
  }
  /* level k is complete: velocity u^k = (u^{k-1/2} + u^{k+1/2}) / 2 for the records, damping work at the midpoint */
  for (PetscInt i = 0; i < nm; i++) st->u[nb + i] = 0.5 * (lf->ui_half[i] + lf->tmp[i]);
  if (lf->diagonal)
    for (PetscInt i = 0; i < nm; i++) kinetic += 0.5 * lf->mdiag[i] * st->u[nb + i] * st->u[nb + i];
  else {
    VIMatVec(nm, nm, st->M + nb * n + nb, n, st->u + nb, 0.0, lf->Mu);
    for (PetscInt i = 0; i < nm; i++) kinetic += 0.5 * st->u[nb + i] * lf->Mu[i];
  }
  st->energy.kinetic = kinetic;
  if (lf->damped) {
    PetscReal damping = 0;
    if (lf->diagonal)
      for (PetscInt i = 0; i < nm; i++) lf->Mu[i] = lf->ddiag[i] * lf->tmp[i];
    else
      VIMatVec(nm, nm, st->D + nb * n + nb, n, lf->tmp, 0.0, lf->Mu);
    for (PetscInt i = 0; i < nm; i++) damping += lf->tmp[i] * lf->Mu[i];
    st->energy.damping_dissipation += dt * damping;
  }
  PetscCall(PetscArraycpy(lf->ui_half, lf->tmp, nm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One level: contact problem at t_k for q_b^k, then the inner velocity u^{k+1/2} and q_i^{k+1} (seed 000 Fig. 2). */
static PetscErrorCode VIStepperStep_Leapfrog(VIStepper st, PetscReal t)
{
  VILeapfrog *lf  = (VILeapfrog *)st->data;
  VISystem    sys = st->sys;
  PetscInt    n = st->n, nb = st->nb, nm = st->nm, nc = st->nc;
  PetscReal  *qi = st->q + nb, *qb = st->q, dt = st->dt, *f = st->f;
  PetscBool   any = PETSC_FALSE, released = PETSC_FALSE; /* some contact in the solve; some preload released */

  PetscFunctionBeginUser;
  PetscCall(VISystemEvaluateForce(sys, t, f));
  PetscCall(VISystemEvaluateGaps(sys, t, st->g0, st->g0_rate));
  /* Eq. (11): boundary displacement with no contact force, q_b = K_bb^-1 (f_b - K_bi q_i) = [K_bb^-1, -H] [f_b; q_i] */
  if (lf->fb_zero)
    VIMatVec(nb, nm, lf->S + nb, n, qi, 0.0, lf->qb_pre);
  else {
    PetscCall(PetscArraycpy(lf->w, f, nb));
    PetscCall(PetscArraycpy(lf->w + nb, qi, nm));
    VIMatVec(nb, n, lf->S, n, lf->w, 0.0, lf->qb_pre);
  }
  /* Velocity level (friction): a preloaded contact that is open carries no total force, lambda_n = -p, a release of its
     preload acting on the boundary like a load. It stays in the set while it carried a total force at the last level or
     while its released gap would close; an open one kept in the set would hover, since a velocity-level constraint
     cannot close a gap (as Moreau's preloaded contacts did, fixed alike). On position level the gaps decide exactly. */
  for (PetscInt j = 0; j < nc; j++) {
    const PetscInt  o = st->offsets[j];
    const PetscReal p = st->set.preload[j];
    lf->released[j]   = (PetscBool)(lf->friction && p > 0 && st->set.kinds[j] != VI_CONTACT_BILATERAL && lf->fb_prev[o] + p <= 0 &&
                                  lf->qb_pre[o] + st->g0[j] - p * lf->Kbb_inv[o * nb + o] > 0);
    if (lf->released[j]) {
      for (PetscInt i = 0; i < nb; i++) lf->qb_pre[i] -= p * lf->Kbb_inv[o * nb + i];
      released = PETSC_TRUE;
    }
  }
  /* Eq. (12) (open contacts); preloaded contacts are in the set (but the released ones), the preload acting in the solve
     below (Eq. 14) */
  for (PetscInt j = 0; j < nc; j++) {
    PetscReal gap_pre = lf->qb_pre[st->offsets[j]] + st->g0[j];
    /* a bilateral row is always in the set: a held boundary row, q_b = 0 on position level (on velocity level, q_b stays) */
    lf->active[j] = (gap_pre <= 0 || (st->set.preload[j] > 0 && !lf->released[j]) || st->set.kinds[j] == VI_CONTACT_BILATERAL) ? PETSC_TRUE : PETSC_FALSE;
    if (lf->active[j]) any = PETSC_TRUE;
  }
  PetscCall(PetscArraycpy(qb, lf->qb_pre, nb));
  PetscCall(PetscArrayzero(st->lambda, nb));
  for (PetscInt j = 0; j < nc; j++)
    if (lf->released[j]) st->lambda[st->offsets[j]] = -st->set.preload[j];
  if (any) {
    VIActiveSet *as = &lf->as;
    PetscCall(VIActiveSetBuild(st, lf->active, lf->friction, as));
    if (!lf->friction) {
      /* §2.1.1: position level, g = g_pre + (K_bb^-1)_aa lambda, -g ∈ N_C(lambda) */
      for (PetscInt a = 0; a < as->nrows; a++) {
        PetscInt j;
        for (j = 0; j < nc; j++)
          if (st->offsets[j] == as->rows[a]) break;
        as->c[a] = lf->qb_pre[as->rows[a]] + st->g0[j];
        as->x[a] = st->set.kinds[j] == VI_CONTACT_BILATERAL ? lf->fb_prev[as->rows[a]] : PetscMax(0, lf->fb_prev[as->rows[a]]);
      }
    } else {
      /* §2.1.2: velocity level, u_b = (q_b - q_b^{k-1}) / dt, gamma = u_b + dg0/dt (normal), u_t1 - v (sliding) */
      PetscInt a = 0, c = 0;
      for (PetscInt j = 0; j < nc; j++) {
        if (!lf->active[j]) continue;
        for (PetscInt r = 0; r < as->dims[c]; r++, a++) {
          PetscInt row = as->rows[a];
          as->c[a]     = (lf->qb_pre[row] - lf->qb_prev[row]) / dt;
          if (r == 0) as->c[a] += st->g0_rate[j];
          if (r > 0) as->c[a] -= st->obstacle_v[2 * j + r - 1];
          as->x[a] = lf->fb_prev[row]; /* warm start: last step's forces */
        }
        c++;
      }
    }
    /* Preloaded contacts (Eqs. 7, 13-14): the ROM's state 0 is the preloaded equilibrium and lambda the change of the normal force, so
       the contact stays closed while the total lambda_n + p > 0 and opens (total 0) when the pull exceeds p. Solve for the total normal
       force x_n = lambda_n + p >= 0, whose disk radius is mu x_n (Eq. 7): c <- c - G p, then lambda_n = x_n - p. */
    {
      const PetscReal scale = lf->friction ? 1.0 / dt : 1.0;
      for (PetscInt c = 0, an = 0; c < as->nact; an += as->dims[c], c++) {
        const PetscReal p = as->preload[c];
        if (p <= 0) continue;
        for (PetscInt a = 0; a < as->nrows; a++) as->c[a] -= scale * lf->Kbb_inv[as->rows[a] * nb + as->rows[an]] * p;
        as->x[an] = PetscMax(0, lf->fb_prev[as->rows[an]] + p);
      }
      as->set.preload = NULL; /* x_n is the total force */
      PetscCall(VIStepperSolveContacts(st, as, lf->Kbb_inv, nb, scale));
      as->set.preload = as->preload;
      for (PetscInt c = 0, an = 0; c < as->nact; an += as->dims[c], c++) as->x[an] -= as->preload[c];
    }
    /* q_b = q_b,pre + K_bb^-1 E_a lambda_a (K_bb^-1 is exactly symmetric: its rows are its columns) */
    for (PetscInt a = 0; a < as->nrows; a++) {
      const PetscInt  row = as->rows[a];
      const PetscReal l = as->x[a], *col = lf->Kbb_inv + row * nb;
      st->lambda[row] = l;
      for (PetscInt i = 0; i < nb; i++) qb[i] += col[i] * l;
    }
  }
  for (PetscInt j = 0; j < nc; j++) st->gap[j] = qb[st->offsets[j]] + st->g0[j];

  /* work of the contact forces over the last interval, trapezoidal in time (obstacle: normal motion and sliding drive;
     friction: relative sliding) */
  if (!lf->first) {
    PetscReal obstacle = 0, friction = 0, external = 0; /* sums of this step (locals: no store per term) */
    for (PetscInt j = 0; j < nc && (any || released || lf->forces_before); j++) {
      PetscInt o = st->offsets[j];
      for (PetscInt r = 0; r < st->set.dims[j]; r++) {
        PetscReal lam = 0.5 * (lf->fb_prev[o + r] + st->lambda[o + r]), dq = qb[o + r] - lf->qprev[o + r];
        if (r == 0)
          obstacle += lam * dq;
        else {
          PetscReal drive = st->obstacle_v[2 * j + r - 1] * dt;
          friction -= lam * (dq - drive);
          obstacle += lam * drive;
        }
      }
    }
    for (PetscInt i = 0; i < n && st->num_loads; i++) external += 0.5 * (lf->fprev[i] + f[i]) * (st->q[i] - lf->qprev[i]);
    st->energy.obstacle_work += obstacle;
    st->energy.friction_dissipation += friction;
    st->energy.external_work += external;
  }

  /* Eq. (2) with Eqs. (9)-(10): (M + dt/2 D) u^{k+1/2} = (M - dt/2 D) u^{k-1/2} + dt (f_i - K_ii q_i - K_ib q_b) */
  /* potential energy of level k from what the step computes anyway: q^T K q = q_i^T (K q)_i + q_b^T (f_b + lambda) (Eq. 1) */
  /* (K q)_i = Khat q_i + H^T (f_b + lambda) (see the set-up): Khat's product, then one row of H per nonzero boundary force */
  {
    const PetscInt lo = lf->modal ? 0 : lf->rows2.lo, hi = lf->modal ? nm : lf->rows2.hi;
    if (lf->kdiagonal)
      for (PetscInt i = lo; i < hi; i++) lf->kq[i] = lf->kdiag[i] * qi[i];
    else
      VIMatVec(hi - lo, nm, lf->Khat + lo * nm, nm, qi, 0.0, lf->kq + lo);
    for (PetscInt b = 0; b < nb && (any || released || !lf->fb_zero); b++) {
      const PetscReal y = f[b] + st->lambda[b], *mh = lf->S + b * n + nb; /* row b of -H */
      if (y != 0)
        for (PetscInt i = lo; i < hi; i++) lf->kq[i] -= mh[i] * y;
    }
  }
  /* potential energy of level k from what the step computes anyway: q^T K q = q_i^T (K q)_i + q_b^T (f_b + lambda) (Eq. 1) */
  {
    PetscReal potential = 0;
    for (PetscInt b = 0; b < nb && (any || !lf->fb_zero); b++) potential += 0.5 * qb[b] * (f[b] + st->lambda[b]);
    if (lf->modal)
      PetscCall(VILeapfrogInnerModal(lf, nm, dt, qi, f + nb, st->u + nb, &potential, &st->energy));
    else
      PetscCall(VILeapfrogInner(st, lf, &potential));
    st->energy.potential = potential;
  }
  if (lf->first)
    PetscCall(PetscArrayzero(st->u, nb));
  else {
    const PetscReal rdt = 1 / dt; /* a product, not a division, per row */
    for (PetscInt i = 0; i < nb; i++) st->u[i] = (qb[i] - lf->qprev[i]) * rdt;
  }
  PetscCall(PetscArraycpy(lf->qprev, st->q, n));
  PetscCall(PetscArraycpy(lf->fprev, f, n));
  PetscCall(PetscArraycpy(lf->fb_prev, st->lambda, nb));
  PetscCall(PetscArraycpy(lf->qb_prev, qb, nb));
  lf->first         = PETSC_FALSE;
  lf->forces_before = (PetscBool)(any || released);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a step, st->q holds level k; the inner coordinates move on to k + 1 at the start of the next step. */
static PetscErrorCode VIStepperAdvance_Leapfrog(VIStepper st)
{
  VILeapfrog *lf = (VILeapfrog *)st->data;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < st->nm; i++) st->q[st->nb + i] += st->dt * lf->ui_half[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperReset_Leapfrog(VIStepper st)
{
  VILeapfrog *lf = (VILeapfrog *)st->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree4(lf->Kbb_inv, lf->S, lf->A, lf->B));
  PetscCall(PetscFree5(lf->w, lf->kq, lf->Mu, lf->mdiag, lf->ddiag));
  PetscCall(PetscFree2(lf->adiag, lf->bdiag));
  PetscCall(PetscFree5(lf->qb_pre, lf->qb_prev, lf->ui_half, lf->r, lf->tmp));
  PetscCall(PetscFree5(lf->fb_prev, lf->qprev, lf->fprev, lf->active, lf->released));
  PetscCall(PetscFree(lf->kr));
  PetscCall(PetscFree2(lf->Khat, lf->kdiag));
  PetscCall(VIRowSplitDestroy(&lf->rows));
  PetscCall(VIRowSplitDestroy(&lf->rows2));
  PetscCall(VIActiveSetDestroy(&lf->as));
  PetscCall(PetscMemzero(lf, sizeof(*lf))); /* the leapfrog has no options of its own */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperDestroy_Leapfrog(VIStepper st)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(st->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCheckSystem_Leapfrog(VIStepper st)
{
  const char *kind;
  PetscBool   massless;

  PetscFunctionBeginUser;
  PetscCall(VISystemHasMasslessBoundary(st->sys, &massless, &kind));
  PetscCheck(massless, st->comm, PETSC_ERR_USER_INPUT,
             "-step_type leapfrog needs a massless-boundary ROM (cb_massless or macneal), but this ROM is %s: use -step_type moreau, or reduce with "
             "-cms_type cb_massless or macneal",
             kind);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Central differences on the inner coordinates (seed 000 §2); worst case every contact closed (see timestep.c): the
   normal rows held, and the tangential rows of the contacts that can stick. */
static PetscErrorCode VIStepperStableStep_Leapfrog(VIStepper st, const VIStableOperators *ops, const PetscBool friction[], VIStableStep *s)
{
  PetscBool all_held = PETSC_TRUE;

  PetscFunctionBeginUser;
  (void)st;
  for (PetscInt j = 0; j < ops->nc; j++)
    if (ops->dims[j] > 1 && !(friction && friction[j])) all_held = PETSC_FALSE;
  s->unconditional = PETSC_FALSE;
  s->order         = 2;
  s->state         = all_held ? VI_CONTACTS_ALL_HELD : VI_CONTACTS_NORMAL_HELD;
  PetscCall(VIStableStepMasslessOmega(ops, friction, VI_CONTACTS_NORMAL_HELD, &s->omega_max, NULL, NULL));
  PetscCall(VIStableStepMasslessOmega(ops, friction, VI_CONTACTS_OPEN, &s->omega_open, NULL, NULL));
  s->dt_stable = s->omega_max > 0 ? 2 / s->omega_max : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCreate_Leapfrog(VIStepper st)
{
  VILeapfrog *lf;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&lf));
  st->data            = lf;
  st->ops.checksystem = VIStepperCheckSystem_Leapfrog;
  st->ops.stablestep  = VIStepperStableStep_Leapfrog;
  st->ops.setup       = VIStepperSetUp_Leapfrog;
  st->ops.step        = VIStepperStep_Leapfrog;
  st->ops.advance     = VIStepperAdvance_Leapfrog;
  st->ops.reset       = VIStepperReset_Leapfrog;
  st->ops.destroy     = VIStepperDestroy_Leapfrog;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Leapfrog has no options of its own (the common stepper's and the time step's, stepregis.c). */
PetscErrorCode VIStepperRegister_Leapfrog(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIStepperRegister(VISTEPPERLEAPFROG, VIStepperCreate_Leapfrog));
  PetscFunctionReturn(PETSC_SUCCESS);
}
