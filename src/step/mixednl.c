/* The mixed scheme (seed 001, Rezaei & Schindler; mixed.c) on a system that is not linear (VISystemIsLinear false: a multibody
   system, M(q) q'' = f(t, q, u) + G(q)^T lambda): the same scheme as mixed.c's, whose ROM path precomputes each stage as an affine
   map and cannot hold a mass, forces and constraints that depend on q. mixed.c's set-up hands the step here, with the base
   scheme's coefficients (VIMixedSetCoefficients: Eqs. 26, 90), so that both paths share them.

   One step from level i to i + 1 (seed 001 Fig. 4):
   (a) the base scheme's stages, each the nonlinear equilibrium M(q_s) a_s = f(t_s, q_s, v_s) + G(q_s)^T lambda_s + Gt(q_s)^T lambda_t,s
       (Eqs. 20, 56-57, 77-78) with q_s, v_s, a_s affine in the stage's unknowns y (one or two blocks of n):
         genalpha (Eqs. 20-23, 26): y = a_{i+1}, A_{i+1} = (alpha_f a_i - alpha_m A_i)/(1 - alpha_m) + s a_{i+1}, s = (1-alpha_f)/(1-alpha_m),
           q = q_i + h v_i + h^2 ((1/2 - beta) A_i + beta A_{i+1}), v = v_i + h ((1 - gamma) A_i + gamma A_{i+1}), at t_{i+1};
         bathe (Eqs. 58-62): the trapezoidal half step at t_i + h/2, y = a_{i+1/2}, v_{i+1/2} = v_i + h/4 (a_i + y),
           q_{i+1/2} = q_i + h/4 (v_i + v_{i+1/2}); then the three-point backward Euler at t_{i+1}, y = a_{i+1},
           v_{i+1} = (4 v_{i+1/2} - v_i + h y)/3, q_{i+1} = (4 q_{i+1/2} - q_i + h v_{i+1})/3;
         edalpha (Eqs. 77-82, 85, 90): y = (v_{i+1}, v_j) solved together, the stage j at t_i^+ = t_i and the stage i + 1 at t_{i+1},
           q_{i+1} = c1 q_i + c2 v_j + c3 v_{i+1}, a_{i+1} = c4 v_{i+1} + c5 v_i + c6 v_j + c7 a_i, q_j = c8 v_{i+1} + c9 q_i + c10 v_j + c11 v_i,
           a_j = c12 v_j + c13 v_i + c14 a_i + c15 v_{i+1};
       solved by Newton's method (the semi-smooth Newton of ssnewton.c, the exact Jacobian: df/dq, df/du from the system, d(M(q) a)/dq
       for a mass that depends on q, the constraints' curvature) on the stage's unknowns and its multipliers. Where the paper iterates a
       fixed point over the stage with a Gauss-Newton for the forces inside (Eqs. 55, 75, 76, 85), this solves the same equations at once.
       The constraint rows, all on velocity level at the stage's velocity (Eqs. 4, 6, 27-29):
         joints (bilateral rows): G_j(q_s) v_s + dg_j/dt = 0 at every stage. Seed 001 eliminates the slider-crank's joints by minimal
           coordinates (App. C) and holds its bilateral model (b) of §2.8 on velocity level (Figs. 17, 18); here the joints are rows
           of absolute coordinates held on velocity level like a closed contact whose multiplier has free sign (as mixed.c's ROM path):
           they drift at position level (no projection), O(h^2) with the order of the base scheme (tests/app/mixed_multibody.sh);
         ED-alpha's stage j: on velocity level too (Eq. 85 as printed), or with -step_mixed_edalpha_joints previous the joint force of
           level i (the stage i + 1's of the last step, or level 0's consistent one) and no joint row. On velocity level the exact
           motion leaves the stage j's row a residual O(h^2) (q_j, v_j are fictitious states off the motion by O(h^2)), which at
           alpha -> 0 (rho_inf -> 1: c4 = 0, a_{i+1} free of v_{i+1}) costs the scheme an order: measured first order at rho_inf = 1
           on the free slider-crank, second order with `previous` at every rho_inf (docs/multibody.md);
         contacts closed at t_i, I_1^i = {k : g_k(q_i) <= 0} (Eq. 41): lambda_N - max(0, lambda_N - r gdot_N) = 0, gdot_N = G_N(q_s) v_s
           (Eq. 4), Coulomb's law on lambda_T with the disk mu lambda_N (Eq. 6: one tangential row on a planar contact, two on a spatial one,
           one disk in its plane, VINonlinearCoulomb); the others carry none (Eq. 27).
   (b) a new impact (Eq. 18: g_k(q_i) > 0 and g_k(q_{i+1}) <= 0 for a contact k) triggers the impulse problem on I_1^{i+1} and the joints
       (Eqs. 11-17, 46-50): M(q_{i+1}) (v^+ - v^-) = G^T Lambda_N + Gt^T Lambda_T with Newton's law on the row velocities,
       Lambda_N - max(0, Lambda_N - r (gdot_N^+ + eps_N gdot_N^-)) = 0, Coulomb's law on Lambda_T against gdot_T^+ + eps_T gdot_T^-, the
       joints' G v^+ + dg/dt = 0; else Lambda = 0 (Eq. 19). It is linear in v^+ (q_{i+1} fixed): the same Newton form, no force.
   (c) v_{i+1}^+ = v_{i+1}^- + M^-1 W Lambda (Eq. 46) is that problem's v^+; positions are not corrected (the drift-off the paper
       accepts, Fig. 5); a_{i+1}, A_{i+1} stay the base scheme's (as mixed.c: the paper does not reset them).
   The regularizing r of Eqs. (4), (6), (14), (15) is the inverse of the slope of the row's velocity in its multiplier, about
   (G M^-1 G^T)_jj times the stage's velocity coefficient (VIMixedNLScales): a scale only, the solution of the semi-smooth equations
   does not depend on it, but Newton's active-set guesses do (ED-alpha's two stages cycled with the slope 1e5 times off).
   Level 0: a_0 = A_0 consistent with the joints (M a_0 = f + G_b^T lambda, G_b a_0 = -(d(G_b u)/dq) u: VINonlinearInitialAcceleration);
   Eqs. (24), (83) leave the joints out, which the paper can since its slider-crank has none.
   The recorded force: the stage's force (Bathe: the second stage's; ED-alpha: the mean of its two, Eq. 80) plus Lambda / h. */
#include "stepimpl.h"

#define VI_MIXEDNL_MAXIT 50

struct _VIMixedNL {
  VIStepper           st;
  VIMixedCoefficients cf;
  PetscInt            n, m, mt, ns, *trow; /* ns: the stages solved together (blocks of y: 1, edalpha 2); trow: the contact of each of the mt
                                              tangential rows (dims - 1 per frictional contact, consecutive) */
  PetscBool           constant, impulse, first, tie; /* tie: ED-alpha at alpha = 0 (rho_inf = 1), one active set for both stages */
  /* the stages of the current solve: time ts[s], q_s = q0_s + sum_c Qc[s][c] y_c, v_s and a_s alike (n each, stage s at s n) */
  PetscReal  ts[2], Qc[2][2], Vc[2][2], Ac[2][2];
  PetscReal *q0, *v0, *a0, *qs, *vs, *as;
  PetscReal *M, *f, *dfdq, *dfdu, *Hw, *dMw;     /* M (2 n n: per stage), f (n), its Jacobians (n n), scratch (n n) */
  PetscReal *G, *H, *Gt, *rate;                  /* per stage: G (m n), H (m n n), Gt (mt n), dg/dt (m) */
  PetscReal *d, *dt_, *rscale, *rt, *pre, *pret; /* (G M^-1 G^T)_jj (m), (Gt M^-1 Gt^T)_kk (mt); per stage r (m), rt (mt); impulse targets */
  PetscBool *closed, *on;                        /* closed (m): the rows of the solve; on (2 m): a normal row active in the iterate */
  PetscReal *w;                                  /* per stage (m): the rows' velocities dg/dt + G v in the iterate */
  PetscReal *a, *A, *x, *xi, *qn, *vn, *qh, *vh, *g, *e, *lam, *wk;
  PetscReal *x0;      /* the warm start of the last solve, for its retry (VIMixedNLSolve) */
  PetscReal  power;   /* the joints' power at the last level (VINonlinearWork: their forces are smooth, held at every level) */
  VISSNewton nw, nwi; /* the base scheme's stages (N = ns (n + m + mt)) and the impulses (n + m + mt) */
};

PetscErrorCode VIMixedNLDestroy(VIMixedNL *nlp)
{
  VIMixedNL nl = *nlp;

  PetscFunctionBeginUser;
  if (!nl) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree6(nl->q0, nl->v0, nl->a0, nl->qs, nl->vs, nl->as));
  PetscCall(PetscFree6(nl->M, nl->f, nl->dfdq, nl->dfdu, nl->Hw, nl->dMw));
  PetscCall(PetscFree4(nl->G, nl->H, nl->Gt, nl->rate));
  PetscCall(PetscFree6(nl->d, nl->dt_, nl->rscale, nl->rt, nl->pre, nl->pret));
  PetscCall(PetscFree4(nl->closed, nl->on, nl->trow, nl->w));
  PetscCall(PetscFree6(nl->a, nl->A, nl->x, nl->xi, nl->qn, nl->vn));
  PetscCall(PetscFree(nl->x0));
  PetscCall(PetscFree6(nl->qh, nl->vh, nl->g, nl->e, nl->lam, nl->wk));
  PetscCall(VISSNewtonDestroy(&nl->nw));
  PetscCall(VISSNewtonDestroy(&nl->nwi));
  PetscCall(PetscFree(*nlp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMixedNLSetUp(VIStepper st, const VIMixedCoefficients *cf, VIMixedNL *nlp)
{
  VIMixedNL nl;
  PetscInt  n = st->n, m = st->nc, mm = PetscMax(m, 1), mt = 0, nn = n * n, N1;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < m; j++) {
    PetscCheck(st->set.dims[j] <= 3, st->comm, PETSC_ERR_SUP, "-step_type mixed: a nonlinear system's contact has two tangents at most");
    mt += st->set.dims[j] - 1;
  }
  PetscCall(PetscNew(&nl));
  *nlp   = nl;
  nl->st = st;
  nl->cf = *cf;
  nl->n  = n;
  nl->m  = m;
  nl->mt = mt;
  nl->ns = cf->base == VI_MIXED_EDALPHA ? 2 : 1;
  /* at alpha = 0 (c4 = 0) a_{i+1} does not depend on v_{i+1}: the stage i + 1's forces (rows a) are fixed by the stage j's velocity rows
     (rows b) through G_b M^-1 G_a^T, square only when a = b (docs/multibody.md, "mixed") */
  nl->tie = cf->base == VI_MIXED_EDALPHA && cf->c[4] == 0 ? PETSC_TRUE : PETSC_FALSE;
  N1     = n + m + mt;
  PetscCall(VISystemHasConstantMass(st->sys, &nl->constant));
  PetscCall(PetscCalloc6(2 * n, &nl->q0, 2 * n, &nl->v0, 2 * n, &nl->a0, 2 * n, &nl->qs, 2 * n, &nl->vs, 2 * n, &nl->as));
  PetscCall(PetscCalloc6(2 * nn, &nl->M, n, &nl->f, nn, &nl->dfdq, nn, &nl->dfdu, nn, &nl->Hw, nn, &nl->dMw));
  PetscCall(PetscCalloc4(2 * mm * n, &nl->G, 2 * mm * nn, &nl->H, 2 * PetscMax(mt, 1) * n, &nl->Gt, 2 * mm, &nl->rate));
  PetscCall(PetscCalloc6(mm, &nl->d, PetscMax(mt, 1), &nl->dt_, 2 * mm, &nl->rscale, 2 * PetscMax(mt, 1), &nl->rt, mm, &nl->pre, PetscMax(mt, 1),
                         &nl->pret));
  PetscCall(PetscCalloc4(mm, &nl->closed, 2 * mm, &nl->on, PetscMax(mt, 1), &nl->trow, 2 * mm, &nl->w));
  PetscCall(PetscCalloc6(n, &nl->a, n, &nl->A, nl->ns * N1, &nl->x, N1, &nl->xi, n, &nl->qn, n, &nl->vn));
  PetscCall(PetscCalloc1(nl->ns * N1, &nl->x0));
  PetscCall(PetscCalloc6(n, &nl->qh, n, &nl->vh, mm, &nl->g, mm, &nl->e, mm, &nl->lam, VI_NONLINEAR_WORK_SIZE(n), &nl->wk));
  for (PetscInt j = 0, k = 0; j < m; j++)
    for (PetscInt a = 1; a < st->set.dims[j]; a++) nl->trow[k++] = j;
  PetscCall(VINonlinearRestitution(st, nl->e));
  PetscCall(VISSNewtonCreate(nl->ns * N1, VI_MIXEDNL_MAXIT, VI_SSNEWTON_TOL, &nl->nw));
  PetscCall(VISSNewtonCreate(N1, VI_MIXEDNL_MAXIT, VI_SSNEWTON_TOL, &nl->nwi));
  nl->nw.np  = nl->ns * n; /* the stages' unknowns of the motion lead (VISSNewton.np) */
  nl->nwi.np = n;
  nl->first = PETSC_TRUE;
  /* what the next step reads before writing it (checkpoints): a_i, A_i, the warm start of the stages' unknowns */
  PetscCall(VIStepperRegisterState(st, "mixed_nl_a", n, nl->a, NULL));
  PetscCall(VIStepperRegisterState(st, "mixed_nl_A", n, nl->A, NULL));
  PetscCall(VIStepperRegisterState(st, "mixed_nl_x", nl->ns * N1, nl->x, NULL));
  PetscCall(VIStepperRegisterState(st, "mixed_nl_first", 1, NULL, &nl->first));
  PetscCall(VIStepperRegisterState(st, "mixed_nl_power", 1, &nl->power, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* q_s, v_s, a_s of the stages from the unknown blocks y (ns blocks of n) */
static void VIMixedNLStages(VIMixedNL nl, const PetscReal y[])
{
  const PetscInt n = nl->n, ns = nl->impulse ? 1 : nl->ns;

  for (PetscInt s = 0; s < ns; s++)
    for (PetscInt i = 0; i < n; i++) {
      PetscReal q = nl->q0[s * n + i], v = nl->v0[s * n + i], a = nl->a0[s * n + i];
      for (PetscInt c = 0; c < ns; c++) {
        q += nl->Qc[s][c] * y[c * n + i];
        v += nl->Vc[s][c] * y[c * n + i];
        a += nl->Ac[s][c] * y[c * n + i];
      }
      nl->qs[s * n + i] = q;
      nl->vs[s * n + i] = v;
      nl->as[s * n + i] = a;
    }
}

/* The Newton form of the stages (or of the impulses, nl->impulse): x = [y (ns n), lambda (ns m), lambda_t (ns mt)], stage s's momentum
   rows s n + i, its constraint rows ns n + s m + j, its tangential rows ns (n + m) + s mt + k. */
static PetscErrorCode VIMixedNLForm(void *ctx, const PetscReal x[], PetscReal F[], PetscReal J[])
{
  VIMixedNL      nl = (VIMixedNL)ctx;
  VIStepper      st = nl->st;
  const PetscInt n = nl->n, m = nl->m, mt = nl->mt, ns = nl->impulse ? 1 : nl->ns, N = ns * (n + m + mt), nn = n * n;

  PetscFunctionBeginUser;
  VIMixedNLStages(nl, x);
  PetscCall(PetscArrayzero(J, N * N));
  for (PetscInt s = 0; s < ns; s++) {
    const PetscReal *q = nl->qs + s * n, *v = nl->vs + s * n, *a = nl->as + s * n, *lam = x + ns * n + s * m, *lt = x + ns * (n + m) + s * mt;
    PetscReal       *M = nl->M + s * nn, *G = nl->G + s * m * n, *H = nl->H + s * m * nn, *Gt = nl->Gt + s * mt * n, *rate = nl->rate + s * m;
    PetscBool        curv = PETSC_FALSE;
    const PetscInt   cl = ns * n + s * m, ct = ns * (n + m) + s * mt;
    for (PetscInt c = 0; c < ns; c++) curv = curv || nl->Qc[s][c] != 0;
    if (!nl->constant) PetscCall(VISystemComputeMass(st->sys, q, M));
    if (m) PetscCall(VISystemEvaluateConstraints(st->sys, nl->ts[s], q, NULL, G, rate));
    if (m && curv) PetscCall(VINonlinearConstraints(st, nl->ts[s], q, NULL, NULL, H));
    if (mt) PetscCall(VISystemEvaluateTangents(st->sys, nl->ts[s], q, Gt));
    if (nl->impulse) {
      PetscCall(PetscArrayzero(nl->f, n));
      PetscCall(PetscArrayzero(nl->dfdq, nn));
      PetscCall(PetscArrayzero(nl->dfdu, nn));
    } else {
      PetscCall(VISystemComputeForce(st->sys, nl->ts[s], q, v, nl->f));
      PetscCall(VISystemComputeForceJacobian(st->sys, nl->ts[s], q, v, nl->dfdq, nl->dfdu));
    }
    /* d(G^T lambda)/dq and d(M(q) a)/dq, which act through q (curv) */
    PetscCall(PetscArrayzero(nl->Hw, nn));
    for (PetscInt j = 0; j < m && curv; j++)
      if (lam[j] != 0)
        for (PetscInt i = 0; i < nn; i++) nl->Hw[i] += lam[j] * H[j * nn + i];
    if (curv && !nl->constant) {
      PetscCall(VISystemComputeMassJacobian(st->sys, q, a, nl->dMw));
      for (PetscInt i = 0; i < nn; i++) nl->Hw[i] -= nl->dMw[i];
    }
    /* momentum: M(q_s) a_s - f - G^T lambda - Gt^T lambda_t = 0 */
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt row = (s * n + i) * N;
      PetscReal      r   = -nl->f[i];
      for (PetscInt k = 0; k < n; k++) {
        const PetscReal mk = M[i * n + k], kq = -nl->dfdq[i * n + k] - nl->Hw[i * n + k], ku = -nl->dfdu[i * n + k];
        r += mk * a[k];
        for (PetscInt c = 0; c < ns; c++) J[row + c * n + k] = nl->Ac[s][c] * mk + nl->Qc[s][c] * kq + nl->Vc[s][c] * ku;
      }
      for (PetscInt j = 0; j < m; j++) {
        r -= G[j * n + i] * lam[j];
        J[row + cl + j] = -G[j * n + i];
      }
      for (PetscInt k = 0; k < mt; k++) {
        r -= Gt[k * n + i] * lt[k];
        J[row + ct + k] = -Gt[k * n + i];
      }
      F[s * n + i] = r;
    }
    /* the rows' velocities w = dg/dt + G v of the stage (the impulses: plus their targets) */
    for (PetscInt j = 0; j < m; j++) {
      PetscReal w = rate[j] + (nl->impulse ? nl->pre[j] : 0);
      for (PetscInt k = 0; k < n; k++) w += G[j * n + k] * v[k];
      nl->w[s * m + j] = w;
    }
  }
  /* which normal rows hold: joints always, the closed contacts by their complementarity lambda - r w >= 0; with nl->tie (ED-alpha at
     alpha = 0) the stage j's decision for both stages: its velocity rows G_b then fix the stage i + 1's forces on the same rows
     (G_b M^-1 G_b^T, square; a stage i + 1 deciding for itself made it singular where the two differed, Table 1 at 0.01-0.015 s) */
  for (PetscInt j = 0; j < m; j++) {
    const PetscBool bil = st->set.kinds[j] == VI_CONTACT_BILATERAL ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt s = 0; s < ns; s++)
      nl->on[s * m + j] = bil || (nl->closed[j] && x[ns * n + s * m + j] - nl->rscale[s * m + j] * nl->w[s * m + j] >= 0) ? PETSC_TRUE : PETSC_FALSE;
    if (nl->tie && ns == 2 && !bil) nl->on[j] = nl->on[m + j];
  }
  for (PetscInt s = 0; s < ns; s++) {
    const PetscReal *v = nl->vs + s * n, *lam = x + ns * n + s * m, *lt = x + ns * (n + m) + s * mt;
    const PetscReal *G = nl->G + s * m * n, *H = nl->H + s * m * nn, *Gt = nl->Gt + s * mt * n;
    PetscBool        curv = PETSC_FALSE;
    const PetscInt   cl = ns * n + s * m, ct = ns * (n + m) + s * mt;
    for (PetscInt c = 0; c < ns; c++) curv = curv || nl->Qc[s][c] != 0;
    /* the constraint rows on velocity level: the rows that hold w = 0, the others lambda = 0 */
    for (PetscInt j = 0; j < m; j++) {
      const PetscBool  bil = st->set.kinds[j] == VI_CONTACT_BILATERAL ? PETSC_TRUE : PETSC_FALSE;
      const PetscReal *Gj = G + j * n, *Hj = H + j * nn;
      const PetscInt   row = (cl + j) * N;
      if (bil && s == 1 && nl->cf.joints_previous) { /* -step_mixed_edalpha_joints previous: the stage j's joint force is level i's */
        F[cl + j]       = lam[j] - nl->lam[j];
        J[row + cl + j] = 1;
      } else if (nl->on[s * m + j]) {
        F[cl + j] = nl->w[s * m + j];
        for (PetscInt k = 0; k < n; k++) {
          PetscReal hv = 0;
          if (curv)
            for (PetscInt i = 0; i < n; i++) hv += Hj[k * n + i] * v[i];
          for (PetscInt c = 0; c < ns; c++) J[row + c * n + k] = nl->Vc[s][c] * Gj[k] + nl->Qc[s][c] * hv;
        }
        if ((nl->impulse ? nl->nwi : nl->nw).regularize) J[row + cl + j] = -1e-10 / nl->rscale[s * m + j]; /* redundant rows (VISSNewton.regularize) */
      } else {
        F[cl + j]       = lam[j];
        J[row + cl + j] = 1;
      }
    }
    /* Coulomb's law on each frictional contact's d tangential rows (their curvature left out of the Jacobian: an inexact Newton step
       there, as moreau.c) */
    for (PetscInt k = 0, d; k < mt; k += d) {
      const PetscInt j = nl->trow[k], cv[2] = {0, n};
      d = st->set.dims[j] - 1;
      VINonlinearCoulomb(n, d, Gt + k * n, v, nl->impulse ? nl->pret + k : NULL, st->set.mu[j], nl->rt[s * mt + k],
                         nl->on[s * m + j] && st->set.kinds[j] != VI_CONTACT_BILATERAL, lam[j], lt + k, N, ns, cv, nl->Vc[s], cl + j, ct + k,
                         F + ct + k, J + (ct + k) * N, NULL);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rows' scales r from d, dt_ at the step's start: a force lambda moves the stage's a by about M^-1 G^T lambda, its unknowns y by that
   over the largest coefficient |Ac[s][c]|, its velocity by Vc[s][s] times that: r = max_c |Ac[s][c]| / (Vc[s][s] (G M^-1 G^T)_jj) */
static void VIMixedNLScales(VIMixedNL nl, PetscInt ns)
{
  for (PetscInt s = 0; s < ns; s++) {
    PetscReal k = 0;
    for (PetscInt c = 0; c < ns; c++) k = PetscMax(k, PetscAbsReal(nl->Ac[s][c]));
    k /= nl->Vc[s][s];
    for (PetscInt j = 0; j < nl->m; j++) nl->rscale[s * nl->m + j] = nl->d[j] > 0 ? k / nl->d[j] : 1;
    for (PetscInt q = 0; q < nl->mt; q++) {
      PetscReal *rt = nl->rt + s * nl->mt;
      rt[q]         = nl->dt_[q] > 0 ? k / nl->dt_[q] : 1;
      if (q > 0 && nl->trow[q - 1] == nl->trow[q]) rt[q] = rt[q - 1] = PetscMin(rt[q], rt[q - 1]); /* one r per contact: the slip opposes w_t */
    }
  }
}

/* (G M^-1 G^T)_jj and (Gt M^-1 Gt^T)_kk at (t, q), M's diagonal (a scale only), the rows into nl->G, nl->Gt (stage 0's) */
static PetscErrorCode VIMixedNLRowNorms(VIMixedNL nl, PetscReal t, const PetscReal q[])
{
  VIStepper      st = nl->st;
  const PetscInt n  = nl->n;

  PetscFunctionBeginUser;
  PetscCall(VISystemComputeMass(st->sys, q, nl->M));
  if (nl->constant && nl->ns == 2) PetscCall(PetscArraycpy(nl->M + n * n, nl->M, n * n));
  if (nl->m) PetscCall(VISystemEvaluateConstraints(st->sys, t, q, NULL, nl->G, NULL));
  if (nl->mt) PetscCall(VISystemEvaluateTangents(st->sys, t, q, nl->Gt));
  for (PetscInt j = 0; j < nl->m; j++) {
    nl->d[j] = 0;
    for (PetscInt k = 0; k < n; k++) nl->d[j] += nl->G[j * n + k] * nl->G[j * n + k] / nl->M[k * n + k];
  }
  for (PetscInt k = 0; k < nl->mt; k++) {
    nl->dt_[k] = 0;
    for (PetscInt i = 0; i < n; i++) nl->dt_[k] += nl->Gt[k * n + i] * nl->Gt[k * n + i] / nl->M[i * n + i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One solve of the stages set in nl (coefficients, offsets, times) from the warm start y0 (ns blocks of n) and the last
   multipliers in nl->x; on return nl->qs, vs, as hold the stages at the solution. */
static PetscErrorCode VIMixedNLSolve(VIMixedNL nl, const PetscReal y0[])
{
  VIStepper       st     = nl->st;
  const PetscInt  failed = st->stats.nonconverged;
  const PetscReal resmax = st->stats.contact_residual_max;

  PetscFunctionBeginUser;
  nl->impulse = PETSC_FALSE;
  if (y0 != nl->x) PetscCall(PetscArraycpy(nl->x, y0, nl->ns * nl->n));
  PetscCall(PetscArraycpy(nl->x0, nl->x, nl->nw.N));
  VIMixedNLScales(nl, nl->ns);
  PetscCall(VISSNewtonSolve(st, &nl->nw, VIMixedNLForm, nl, nl->x));
  if (st->stats.nonconverged > failed) {
    /* a failed solve is tried once more from the same start with every r ten times larger: the semi-smooth equations' solution
       does not depend on r, Newton's active-set guesses do, and at rho_inf = 1 (no damping of the stage forces) the iterate
       can cycle between two active sets for one r and not for another (the tripod sliding to rest, genalpha: 11 of 710 solves
       failed, now 0; its travel within 1.2e-6 m of the exact stop) */
    st->stats.nonconverged         = failed;
    st->stats.contact_residual_max = resmax;
    PetscCall(PetscArraycpy(nl->x, nl->x0, nl->nw.N));
    for (PetscInt j = 0; j < nl->ns * nl->m; j++) nl->rscale[j] *= 10;
    for (PetscInt k = 0; k < nl->ns * nl->mt; k++) nl->rt[k] *= 10;
    PetscCall(VISSNewtonSolve(st, &nl->nw, VIMixedNLForm, nl, nl->x));
  }
  VIMixedNLStages(nl, nl->x);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Steps (b), (c) of Fig. 4 at t = t_{i+1}: on a new impact (Eq. 18) the impulses on I_1^{i+1} and the joints with Newton's law
   (Eqs. 11-17, 47-50), v^+ into st->u, Lambda / h added to st->lambda. nl->g holds g(q_i) on entry. */
static PetscErrorCode VIMixedNLImpact(VIMixedNL nl, PetscReal t)
{
  VIStepper      st = nl->st;
  const PetscInt n = nl->n, m = nl->m, mt = nl->mt;
  PetscBool      impact = PETSC_FALSE;
  PetscReal     *vm     = nl->vn; /* v^- (v_i is kept in wk + n by the caller) */

  PetscFunctionBeginUser;
  if (!m) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VISystemEvaluateConstraints(st->sys, t, st->q, st->gap, NULL, NULL));
  for (PetscInt j = 0; j < m; j++)
    if (st->set.kinds[j] != VI_CONTACT_BILATERAL && nl->g[j] > 0 && st->gap[j] <= 0) impact = PETSC_TRUE;
  if (!impact) PetscFunctionReturn(PETSC_SUCCESS); /* Eq. (19) */
  for (PetscInt j = 0; j < m; j++) nl->closed[j] = st->set.kinds[j] != VI_CONTACT_BILATERAL && st->gap[j] <= 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscArraycpy(vm, st->u, n));
  PetscCall(VIMixedNLRowNorms(nl, t, st->q));
  /* the impulse "stage": y = v^+, q = q_{i+1}, a = v^+ - v^-, no force; targets eps (G v^- + dg/dt) (bilateral rows: eps 0) */
  PetscCall(PetscArraycpy(nl->q0, st->q, n));
  for (PetscInt i = 0; i < n; i++) {
    nl->v0[i] = 0;
    nl->a0[i] = -vm[i];
  }
  nl->Qc[0][0] = 0;
  nl->Vc[0][0] = nl->Ac[0][0] = 1;
  nl->ts[0]                   = t;
  PetscCall(VISystemEvaluateConstraints(st->sys, t, st->q, NULL, NULL, nl->rate));
  for (PetscInt j = 0; j < m; j++) {
    PetscReal gv = nl->rate[j];
    for (PetscInt k = 0; k < n; k++) gv += nl->G[j * n + k] * vm[k];
    nl->pre[j] = nl->e[j] * gv;
  }
  for (PetscInt k = 0; k < mt; k++) {
    PetscReal gv = 0;
    for (PetscInt i = 0; i < n; i++) gv += nl->Gt[k * n + i] * vm[i];
    nl->pret[k] = nl->cf.restitution_t * gv;
  }
  nl->impulse = PETSC_TRUE;
  VIMixedNLScales(nl, 1);
  PetscCall(PetscArrayzero(nl->xi, n + m + mt));
  PetscCall(PetscArraycpy(nl->xi, vm, n));
  PetscCall(VISSNewtonSolve(st, &nl->nwi, VIMixedNLForm, nl, nl->xi));
  nl->impulse = PETSC_FALSE;
  PetscCall(PetscArraycpy(st->u, nl->xi, n));
  for (PetscInt j = 0; j < m; j++) st->lambda[st->offsets[j]] += nl->xi[n + j] / st->dt;
  for (PetscInt k = 0, a = 0; k < mt; k++) {
    a = k > 0 && nl->trow[k - 1] == nl->trow[k] ? a + 1 : 1; /* the row's place after its contact's normal one */
    st->lambda[st->offsets[nl->trow[k]] + a] += nl->xi[n + m + k] / st->dt;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMixedNLStep(VIStepper st, VIMixedNL nl, PetscReal t)
{
  const PetscInt             n = nl->n, m = nl->m, mt = nl->mt;
  const PetscReal            h = st->dt, *c = nl->cf.c;
  const VIMixedCoefficients *cf = &nl->cf;
  PetscReal                 *q = st->q, *v = st->u, *a = nl->a, *A = nl->A;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(st->lambda, st->nlambda));
  if (nl->first) {
    const PetscReal *q0, *u0;
    PetscCall(VISystemGetInitialState(st->sys, &q0, &u0));
    PetscCall(PetscArraycpy(q, q0, n));
    PetscCall(PetscArraycpy(v, u0, n));
    PetscCall(VINonlinearInitialAcceleration(st, t, q, v, a, nl->lam));
    PetscCall(PetscArraycpy(A, a, n));
    for (PetscInt j = 0; j < m; j++) st->lambda[st->offsets[j]] = nl->lam[j];
    if (nl->cf.joints_previous)
      for (PetscInt j = 0; j < m; j++) nl->x[2 * n + j] = nl->x[2 * n + m + j] = nl->lam[j];
    if (m) PetscCall(VISystemEvaluateConstraints(st->sys, t, q, st->gap, nl->G, NULL));
    nl->power = 0;
    for (PetscInt j = 0; j < m; j++)
      for (PetscInt k = 0; k < n; k++) nl->power += nl->lam[j] * nl->G[j * n + k] * v[k];
    nl->first = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscArraycpy(nl->qn, q, n));
  PetscCall(PetscArraycpy(nl->vn, v, n));
  /* I_1^i (Eq. 41) from the gaps of level i; the rows' scales there */
  if (m) PetscCall(VISystemEvaluateConstraints(st->sys, t - h, q, nl->g, NULL, NULL));
  for (PetscInt j = 0; j < m; j++) nl->closed[j] = st->set.kinds[j] != VI_CONTACT_BILATERAL && nl->g[j] <= 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(VIMixedNLRowNorms(nl, t - h, q));
  PetscCall(PetscMemzero(nl->Qc, sizeof(nl->Qc)));
  PetscCall(PetscMemzero(nl->Vc, sizeof(nl->Vc)));
  PetscCall(PetscMemzero(nl->Ac, sizeof(nl->Ac)));
  if (cf->base == VI_MIXED_GENALPHA) {
    const PetscReal am = cf->am, af = cf->af, ga = cf->ga, be = cf->be, s = (1 - af) / (1 - am);
    PetscReal      *Ap = nl->wk;
    /* Eqs. (21)-(23): q, v, A_{i+1} affine in a_{i+1} */
    for (PetscInt i = 0; i < n; i++) {
      Ap[i]     = (af * a[i] - am * A[i]) / (1 - am);
      nl->q0[i] = q[i] + h * v[i] + h * h * ((0.5 - be) * A[i] + be * Ap[i]);
      nl->v0[i] = v[i] + h * ((1 - ga) * A[i] + ga * Ap[i]);
      nl->a0[i] = 0;
    }
    nl->Qc[0][0] = h * h * be * s;
    nl->Vc[0][0] = h * ga * s;
    nl->Ac[0][0] = 1;
    nl->ts[0]    = t;
    PetscCall(VIMixedNLSolve(nl, a));
    for (PetscInt i = 0; i < n; i++) {
      a[i] = nl->x[i];
      A[i] = Ap[i] + s * a[i];
    }
  } else if (cf->base == VI_MIXED_BATHE) {
    /* the trapezoidal half step (Eqs. 58, 59, 75) at t_i + h/2 */
    for (PetscInt i = 0; i < n; i++) {
      nl->v0[i] = v[i] + 0.25 * h * a[i];
      nl->q0[i] = q[i] + 0.25 * h * (v[i] + nl->v0[i]);
      nl->a0[i] = 0;
    }
    nl->Qc[0][0] = h * h / 16;
    nl->Vc[0][0] = 0.25 * h;
    nl->Ac[0][0] = 1;
    nl->ts[0]    = t - 0.5 * h;
    PetscCall(VIMixedNLSolve(nl, a));
    PetscCall(PetscArraycpy(nl->qh, nl->qs, n));
    PetscCall(PetscArraycpy(nl->vh, nl->vs, n));
    /* the three-point backward Euler (Eqs. 60, 61, 76) at t_{i+1} */
    for (PetscInt i = 0; i < n; i++) {
      nl->v0[i] = (4 * nl->vh[i] - v[i]) / 3;
      nl->q0[i] = (4 * nl->qh[i] - q[i]) / 3 + h * nl->v0[i] / 3;
    }
    nl->Qc[0][0] = h * h / 9;
    nl->Vc[0][0] = h / 3;
    nl->ts[0]    = t;
    PetscCall(VIMixedNLSolve(nl, nl->x));
    PetscCall(PetscArraycpy(a, nl->x, n));
  } else {
    /* Eqs. (85), (90): the stage i + 1 (s = 0, at t_{i+1}) and the stage j (s = 1, at t_i^+) in (v_{i+1}, v_j) */
    for (PetscInt i = 0; i < n; i++) {
      nl->q0[i]     = c[1] * q[i];
      nl->v0[i]     = 0;
      nl->a0[i]     = c[5] * v[i] + c[7] * a[i];
      nl->q0[n + i] = c[9] * q[i] + c[11] * v[i];
      nl->v0[n + i] = 0;
      nl->a0[n + i] = c[13] * v[i] + c[14] * a[i];
      nl->wk[i] = nl->wk[n + i] = v[i];
    }
    nl->Qc[0][0] = c[3];
    nl->Qc[0][1] = c[2];
    nl->Vc[0][0] = 1;
    nl->Ac[0][0] = c[4];
    nl->Ac[0][1] = c[6];
    nl->Qc[1][0] = c[8];
    nl->Qc[1][1] = c[10];
    nl->Vc[1][1] = 1;
    nl->Ac[1][0] = c[15];
    nl->Ac[1][1] = c[12];
    nl->ts[0]    = t;
    nl->ts[1]    = t - h;
    for (PetscInt j = 0; j < m; j++) nl->lam[j] = nl->x[2 * n + j]; /* level i's joint forces (-step_mixed_edalpha_joints previous) */
    PetscCall(VIMixedNLSolve(nl, nl->wk));
    PetscCall(PetscArraycpy(a, nl->as, n));
  }
  PetscCall(PetscArraycpy(q, nl->qs, n));
  PetscCall(PetscArraycpy(v, nl->vs, n));
  /* the recorded force: the last stage's (ED-alpha: the mean of its two, Eq. 80) */
  for (PetscInt j = 0; j < m; j++) st->lambda[st->offsets[j]] = nl->ns == 2 ? 0.5 * (nl->x[2 * n + j] + nl->x[2 * n + m + j]) : nl->x[n + j];
  for (PetscInt k = 0, a = 0; k < mt; k++) {
    a                                        = k > 0 && nl->trow[k - 1] == nl->trow[k] ? a + 1 : 1;
    st->lambda[st->offsets[nl->trow[k]] + a] = nl->ns == 2 ? 0.5 * (nl->x[2 * (n + m) + k] + nl->x[2 * (n + m) + mt + k]) : nl->x[n + m + k];
  }
  PetscCall(PetscArraycpy(nl->wk + n, nl->vn, n)); /* v_i for the work (the impact reuses vn as v^-) */
  PetscCall(VIMixedNLImpact(nl, t));
  /* the energy balance's terms: the joints' forces by the trapezoid of their power (held on velocity level at every level: 0 for a
     scleronomic joint), the contacts' forces and impulses at the end's rows on the mean velocity, the loads' work */
  if (m) PetscCall(VISystemEvaluateConstraints(st->sys, t, q, st->gap, nl->G, NULL));
  if (mt) PetscCall(VISystemEvaluateTangents(st->sys, t, q, nl->Gt));
  PetscCall(PetscArraycpy(nl->vn, nl->wk + n, n));
  PetscCall(VINonlinearWork(st, t, h, nl->qn, nl->vn, nl->G, mt, nl->trow, nl->Gt, &nl->power, nl->wk));
  PetscFunctionReturn(PETSC_SUCCESS);
}
