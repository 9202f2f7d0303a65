/* Mixed timestepping (seed 001, Rezaei & Schindler): a smooth base scheme inside the step (generalized-alpha, Bathe or ED-alpha) with
   the contact forces of the contacts closed at t_i on velocity level, and an impulsive correction of the velocity when a contact closes.

   One step from level i to i + 1 (seed 001 §2.3, Fig. 4):
   (a) the base scheme gives q_{i+1}, v_{i+1}^-; the contacts closed at t_i (I_1^i = {k : g_k(q_i) <= 0}, Eq. 41) carry forces lambda
       that keep their relative velocity on velocity level (Eqs. 4, 6, 27-29): -(G lambda + F) ∈ N_C(lambda), C = R+ x Coulomb disk;
   (b) a new impact (Eq. 18: g_k(q_i) > 0 and g_k(q_{i+1}) <= 0 for some k) triggers the impulse problem on I_1^{i+1} with Newton's
       law (Eqs. 11-15, 47-50): -(G Lambda + (1 + eps_N) gdot_N^-, (1 + eps_T) gdot_T^-) ∈ N_C(Lambda), G = W^T M^-1 W; else Lambda = 0
       (Eq. 19);
   (c) v_{i+1}^+ = v_{i+1}^- + M^-1 W Lambda (Eq. 46); positions are not corrected (the drift-off the paper accepts, Fig. 5).
   This file is the path of a system with constant operators (a ROM); on a system that is not linear (multibody: M(q), f(t, q, u), g(q))
   the set-up hands the step to mixednl.c, with the base scheme's coefficients of VIMixedSetCoefficients (below), shared by both.

   For a ROM (M, D, K constant, W the unit rows of the contact coordinates) the fixed-point loops of Eqs. (55), (75), (76), (85) converge
   in one pass, and each stage is an affine map of its inputs through the inverse of its iteration matrix, inverted once per step size
   with LAPACK (VIInvertSPD, VIInvert, shared with moreau and nsgalpha): the stage's free unknown is P [inputs] (rows split over the
   case's rank group, VIRowSplit, so the records are bitwise equal on any number of ranks), its Delassus matrix is a scaled block
   [rows, rows] of one n x n matrix, and the contact forces add that matrix's columns. The contact problems go to VIContactSolver through
   the active set of the contact table (VIActiveSetBuild): rows that the table adds (bilateral constraints) come in there.

   - genalpha (§2.4, Eqs. 20-38, Arnold & Brüls): rho_inf -> alpha_m, alpha_f, gamma, beta (Eq. 26) or alpha_m, alpha_f given (Eq. 100);
     M^ = M + h gamma (1-alpha_f)/(1-alpha_m) D + h^2 beta (1-alpha_f)/(1-alpha_m) K (Eq. 36), a_{i+1} = M^-1 (R^ + W lambda) (Eq. 37),
     gdot = F + h gamma (1-alpha_f)/(1-alpha_m) W^T M^-1 W lambda (Eqs. 30-35).
   - bathe (§2.6, Eqs. 58-76): trapezoidal half step with K1^ = 16/h^2 M + 4/h D + K, contact forces at t_{i+1/2} on the same set I_1^i
     (the paper leaves that set open), gdot = F + 4/h W^T K1^-1 W lambda (Eqs. 63-68); three-point backward Euler with
     K2^ = 9/h^2 M + 3/h D + K, gdot = F + 3/h W^T K2^-1 W lambda (Eqs. 69-74).
   - edalpha (§2.7, Eqs. 77-90, Bottasso): unknowns (v_{i+1}, v_j) of the stage j = t_i^+, coefficients c1..c15 of Eq. (90) with c7 and c14
     corrected to (1-alpha)/(1+alpha) and -(1-alpha)/(1+alpha) (the digest's check: the printed ones miss a factor h), alpha =
     (1-rho_inf)/(1+rho_inf), alpha_AR (Eq. 84); the damping D v of Eqs. (77), (78) is kept in the block matrix (Eq. 86 prints none), which is
     not symmetric and is inverted by LU. As the paper (Eq. 85), the forces of both stages are solved together: lambda_{i+1} in Eq. (78)
     holds v_{i+1}, lambda_j in Eq. (77) holds v_j, each on velocity level, through the Delassus matrix of M_c^-1 at the contact rows of
     both stages (not symmetric; positive diagonal for every h omega). The step's impulse is h (lambda_j + lambda_{i+1}) / 2 (Eq. 80), so
     the recorded force is their mean. (A single force in both stages holding the mean velocity (v_j + v_{i+1})/2 would be symmetric,
     but leaves v_{i+1} free: a persistent contact then chatters, a force every other step at twice the value.)

   On a ROM whose damping is diagonal in the modes of (K, M) (VIModalFormCreate, modal.c, shared with nsgalpha; -step_modal false to
   keep the ROM's coordinates) the same set-up runs in the modal coordinates eta, q = Phi eta, where M = I and D, K are diagonal: every
   block of P[s] and of the inverses is diagonal and a stage is a pass over n numbers per block; W^T becomes the boundary rows B of Phi
   and the Delassus matrices B X B^T are built once (see VIMixed). The same scheme in other coordinates: the results agree to round-off.

   After an impulse, a_{i+1} (and A_{i+1}) stay the base scheme's: the paper does not say how to reset them, and the impulse changes only
   velocities (Eq. 46). The velocity-level contact parameter r of Eqs. (42)-(54) is the contact solver's own (Studer's eps). M must be
   nonsingular (Eq. 46; a massless-boundary ROM is refused in VIStepperSetUp).

   Preloaded contacts (-contact_preload p > 0, as leapfrog and moreau: the ROM's state 0 is the preloaded equilibrium, the contact force
   lambda is the change from it, the total p + lambda_n >= 0): a closed contact's stage force is solved for the total X_n = lambda_n + p
   (c <- c - G p, then lambda_n = X_n - p; the Coulomb disk has the radius mu X_n), so it holds the contact while the pull is below p and
   lets it open when X_n reaches 0; a contact open at t_i carries the total 0, i.e. lambda_n = -p, a load of the step on its normal row
   (also in a_0). The impulses of an impact are instantaneous: the preload adds none to them (disk mu Lambda_n). */
#include "stepimpl.h"
#include <petscblaslapack.h>

#define VI_MIXED_STAGES 2

static const char *const VIMixedBases[] = {"genalpha", "bathe", "edalpha", "VIMixedBase", "VI_MIXED_", NULL};
/* ED-alpha's stage j on a nonlinear system: its joint rows on velocity level (seed 001 Eq. 85), or the joint force of level i (mixednl.c) */
typedef enum { VI_MIXED_JOINTS_VELOCITY, VI_MIXED_JOINTS_PREVIOUS } VIMixedJoints;
static const char *const VIMixedJointsTypes[] = {"velocity", "previous", "VIMixedJoints", "VI_MIXED_JOINTS_", NULL};

/* The scheme's options: kept from VIStepperSetType to VIStepperDestroy, across set-ups. */
typedef struct {
  PetscReal   rho_inf;          /* spectral radius at infinity (seed 001 Eqs. 26, 84) */
  VIMixedBase base;             /* the smooth base scheme */
  PetscReal   alpha_m, alpha_f; /* genalpha: given instead of rho_inf (seed 001 Eqs. 26, 100) */
  PetscBool   alpha_given;
  PetscReal   alpha_ar;      /* edalpha: alpha_AR (seed 001 Eq. 84) */
  PetscReal     restitution_t; /* tangential restitution eps_T (seed 001 Eq. 12) */
  VIMixedJoints joints;        /* edalpha on a nonlinear system: the stage j's joint rows */
} VIMixedOptions;

typedef struct {
  VIMixedOptions opt;
  VIMixedNL      nonlin; /* set up on a nonlinear system (mixednl.c): the step is its */
  VIMixedBase    base;
  PetscReal      am, af, ga, be; /* genalpha, Eq. (26) */
  PetscReal      c[16];          /* edalpha, Eq. (90): c[1]..c[15] */
  PetscInt       nstage;         /* stages with contact forces: 1 (genalpha, edalpha) or 2 (bathe) */
  /* stage s: the free unknown (n, or 2 n for edalpha) is P[s] (rows x width) times the stage's inputs; the Delassus matrix of its forces
     is gscale[s] Gm[s][rows, rows] (Gm n x n symmetric); the forces add Gm[s] columns (genalpha, bathe) or E (edalpha) */
  PetscReal *P[VI_MIXED_STAGES], *Gm[VI_MIXED_STAGES], gscale[VI_MIXED_STAGES], *E;
  PetscInt   width;
  VIRowSplit rows;
  PetscReal *Minv;                              /* n x n: M^-1, for the impulses (Eq. 46) and a_0 */
  PetscReal *in, *x, *vf, *a, *A, *fprev, *f2;  /* inputs (5 n), free unknowns (2 n), a stage velocity (n); a_i, A_i, f_i (state) */
  PetscReal *qh, *vh, *ah, *qold, *vold, *work; /* bathe's half step (genalpha: ah holds the prediction of A); q_i, v_i; work (n) */
  PetscBool *closed;
  PetscBool  friction, damped, first;
  /* the active sets of the stages' forces and of the impulses; holder: the one whose operator the contact solver holds */
  VIActiveSet as[VI_MIXED_STAGES + 1];
  PetscInt    holder;
  /* the operators of the force sets k (the stages', then the impulses' at VI_MIXED_STAGES): the Delassus matrix is a scaled block [rows,
     rows] of Gdel[k] (leading dimension ldel[k]), and a unit force on row r adds row r of Gcol[k] (length n) to the unknowns (genalpha,
     bathe, impulses; edalpha's forces act through E, or Cl[0] in eta) */
  const PetscReal *Gdel[VI_MIXED_STAGES + 1], *Gcol[VI_MIXED_STAGES + 1];
  PetscInt         ldel[VI_MIXED_STAGES + 1];
  /* The modal path (VIModalForm, modal.c): on a ROM whose damping is diagonal in the modes of (K, M) the scheme steps in eta, q = Phi eta,
     where M = I and D, K are diagonal, so that each n x n block of P[s] is diagonal: Pd[s] holds the diagonals, (o ni + c) n + i for
     output block o and input block c (ni = width / n), and a stage is a pass over n numbers per block instead of the n x width product.
     The contact rows W^T are the boundary rows B of Phi (nb x n, Bn: the normal ones, nc x n); each force set's Delassus matrix Dl[k]
     (nb, or 2 nb for edalpha's two stages, square) and the rows Cl[k] a unit force adds to the unknowns are built once. In free flight
     a step costs the gaps Bn eta and passes over n numbers. ub0, ub1 (nb): boundary values B v of the closed contacts' rows; gn (nc). */
  PetscBool   modal;
  VIModalForm md;
  PetscReal  *Pd[VI_MIXED_STAGES], *B, *Bn, *Dl[VI_MIXED_STAGES + 1], *Cl[VI_MIXED_STAGES + 1], *ub0, *ub1, *gn;
} VIMixed;

/* Closed contacts of a level from its gaps (Eqs. 5, 41): the force and impulse problems act on them. A bilateral row (B q = 0, seed 002
   Eq. 1c) is closed always: its force holds B v = 0 on velocity level at every step, like a closed contact whose multiplier has free
   sign (seed 001 §2.8, model (b)). A preloaded contact is closed also while it carries a total normal force p + lambda_n > 0 (st->lambda of
   the level; at level 0 the preload itself): held on velocity level, its gap wanders by round-off about 0, and a gap of +1e-23 must not
   open it. */
static void VIMixedClosed(VIStepper st, const PetscReal gap[], PetscBool closed[])
{
  for (PetscInt j = 0; j < st->nc; j++) {
    const PetscReal total = st->set.preload[j] + st->lambda[st->offsets[j]];
    closed[j] = (gap[j] <= 0 || st->set.kinds[j] == VI_CONTACT_BILATERAL || (st->set.preload[j] > 0 && total > 0)) ? PETSC_TRUE : PETSC_FALSE;
  }
}

/* The force set's operator X in eta seen from the boundary rows (nblk x nblk blocks of n x n, each diagonal: Xd[(o nblk + s) n + i]): the
   rows Cl (nblk nb x nblk n: row s nb + r is what a unit force on row r of block s adds to the unknowns, X B^T e_r) and the Delassus
   matrix Dl (nblk nb square: B X B^T by blocks; exactly symmetric where X's block is, the products B_r1 B_r2 being commutative). */
static PetscErrorCode VIMixedModalRows(VIStepper st, VIMixed *mx, PetscInt nblk, const PetscReal Xd[], PetscReal **Cl, PetscReal **Dl)
{
  const PetscInt n = st->n, nb = st->nb, w = nblk * n, mb = nblk * nb;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(PetscMax(mb * w, 1), Cl, PetscMax(mb * mb, 1), Dl));
  for (PetscInt s = 0; s < nblk; s++)
    for (PetscInt r = 0; r < nb; r++)
      for (PetscInt o = 0; o < nblk; o++)
        for (PetscInt i = 0; i < n; i++) (*Cl)[(s * nb + r) * w + o * n + i] = Xd[(o * nblk + s) * n + i] * mx->B[r * n + i];
  for (PetscInt s1 = 0; s1 < nblk; s1++)
    for (PetscInt r1 = 0; r1 < nb; r1++)
      for (PetscInt s2 = 0; s2 < nblk; s2++)
        for (PetscInt r2 = 0; r2 < nb; r2++) {
          const PetscReal *x = Xd + (s1 * nblk + s2) * n;
          PetscReal        d = 0;
          for (PetscInt i = 0; i < n; i++) d += mx->B[r1 * n + i] * mx->B[r2 * n + i] * x[i];
          (*Dl)[(s1 * nb + r1) * mb + s2 * nb + r2] = d;
        }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The modal path's operators (see VIMixed), from the set-up's P[s], Gm[s], E and M^-1 in eta. */
static PetscErrorCode VIMixedModalSetUp(VIStepper st, VIMixed *mx)
{
  const PetscInt n = st->n, nb = st->nb, nc = st->nc, no = mx->base == VI_MIXED_EDALPHA ? 2 : 1, ni = mx->width / n;
  PetscReal     *Xd;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(PetscMax(nb * n, 1), &mx->B, PetscMax(nc * n, 1), &mx->Bn));
  PetscCall(PetscMalloc1(4 * n, &Xd));
  PetscCall(PetscArraycpy(mx->B, mx->md.Phi, nb * n)); /* the boundary coordinates are the ROM's first nb */
  for (PetscInt j = 0; j < nc; j++) PetscCall(PetscArraycpy(mx->Bn + j * n, mx->B + st->offsets[j] * n, n));
  for (PetscInt s = 0; s < mx->nstage; s++) {
    PetscCall(PetscMalloc1(no * ni * n, &mx->Pd[s]));
    for (PetscInt o = 0; o < no; o++)
      for (PetscInt c = 0; c < ni; c++)
        for (PetscInt i = 0; i < n; i++) mx->Pd[s][(o * ni + c) * n + i] = mx->P[s][(o * n + i) * mx->width + c * n + i];
    if (mx->base == VI_MIXED_EDALPHA)
      for (PetscInt o = 0; o < 2; o++)
        for (PetscInt c = 0; c < 2; c++)
          for (PetscInt i = 0; i < n; i++) Xd[(o * 2 + c) * n + i] = mx->E[(o * n + i) * 2 * n + c * n + i];
    else
      for (PetscInt i = 0; i < n; i++) Xd[i] = mx->Gm[s][i * n + i];
    PetscCall(VIMixedModalRows(st, mx, no, Xd, &mx->Cl[s], &mx->Dl[s]));
    mx->Gdel[s] = mx->Dl[s];
    mx->ldel[s] = no * nb;
    mx->Gcol[s] = mx->base == VI_MIXED_EDALPHA ? NULL : mx->Cl[s];
  }
  for (PetscInt i = 0; i < n; i++) Xd[i] = 1; /* the impulses: M^-1 = I */
  PetscCall(VIMixedModalRows(st, mx, 1, Xd, &mx->Cl[VI_MIXED_STAGES], &mx->Dl[VI_MIXED_STAGES]));
  mx->Gdel[VI_MIXED_STAGES] = mx->Dl[VI_MIXED_STAGES];
  mx->ldel[VI_MIXED_STAGES] = nb;
  mx->Gcol[VI_MIXED_STAGES] = mx->Cl[VI_MIXED_STAGES];
  PetscCall(PetscFree(Xd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The base scheme's coefficients at the step h (shared by the nonlinear path, mixednl.c): generalized-alpha's alpha_m, alpha_f, gamma,
   beta (seed 001 Eqs. 26, 98, 100), ED-alpha's c1..c15 (Eq. 90, c7 and c14 with the factor h the printed ones miss); Bathe has none. */
static void VIMixedSetCoefficients(VIMixed *mx, PetscReal h)
{
  const PetscReal rho = mx->opt.rho_inf;

  if (mx->base == VI_MIXED_GENALPHA) {
    if (mx->opt.alpha_given) {
      mx->am = mx->opt.alpha_m;
      mx->af = mx->opt.alpha_f;
    } else {
      mx->am = (2 * rho - 1) / (rho + 1); /* Eq. (26) */
      mx->af = rho / (rho + 1);
    }
    mx->ga = 0.5 - mx->am + mx->af;                                /* Eq. (98): second order */
    mx->be = 0.25 * (1 - mx->am + mx->af) * (1 - mx->am + mx->af); /* Eq. (26) */
  } else if (mx->base == VI_MIXED_EDALPHA) {
    const PetscReal al = (1 - rho) / (1 + rho), ar = mx->opt.alpha_ar, d = h * ar * (al + 1);
    mx->c[1]  = 1;
    mx->c[2]  = 0.5 * h;
    mx->c[3]  = 0.5 * h;
    mx->c[4]  = 2 * ar * al / d;
    mx->c[5]  = 2 * (0.5 - ar * al) / d;
    mx->c[6]  = -1 / d;
    mx->c[7]  = (1 - al) / (1 + al);
    mx->c[8]  = -h * ar;
    mx->c[9]  = 1;
    mx->c[10] = h * ar * al;
    mx->c[11] = h * ar * (1 - al);
    mx->c[12] = 1 / d;
    mx->c[13] = -2 * (0.5 + ar) / d;
    mx->c[14] = -(1 - al) / (1 + al);
    mx->c[15] = 2 * ar / d;
  }
}

static PetscErrorCode VIStepperSetUp_Mixed(VIStepper st)
{
  VIMixed         *mx = (VIMixed *)st->data;
  PetscInt         n = st->n, n2 = 2 * n;
  PetscReal        h = st->dt, rho = mx->opt.rho_inf, *ops = NULL;
  const PetscReal *M = st->M, *D = st->D, *K = st->K;
  char             what[320];

  PetscFunctionBeginUser;
  PetscCheck(rho >= 0 && rho <= 1, st->comm, PETSC_ERR_USER_INPUT, "-step_rho_inf: got %g, expected a spectral radius in [0, 1]", (double)rho);
  mx->base = mx->opt.base;
  VIMixedSetCoefficients(mx, h);
  if (st->nonlinear) {
    VIMixedCoefficients cf = {mx->base, mx->am, mx->af, mx->ga, mx->be, {0}, mx->opt.restitution_t, PETSC_FALSE};
    cf.joints_previous     = mx->base == VI_MIXED_EDALPHA && mx->opt.joints == VI_MIXED_JOINTS_PREVIOUS ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscArraycpy(cf.c, mx->c, 16));
    PetscCall(VIMixedNLSetUp(st, &cf, &mx->nonlin));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (mx->base == VI_MIXED_EDALPHA && st->nc > 0) {
    VIContactSolverType type;
    PetscCall(VIContactSolverGetType(st->solver, &type));
    PetscCheck(type == VI_CONTACT_SOLVER_NEWTON, st->comm, PETSC_ERR_USER_INPUT,
               "-step_mixed_base edalpha with contacts needs -contact_solver newton: its two stages' contact problem is not symmetric "
               "(seed 001 Eq. 85), and the relaxations (-contact_solver %s) converge only on symmetric ones",
               VIContactSolverTypes[type]);
  }
  mx->nstage = mx->base == VI_MIXED_BATHE ? 2 : 1;
  mx->width  = mx->base == VI_MIXED_EDALPHA ? 5 * n : 3 * n;
  PetscCall(PetscCalloc4(n * n, &mx->Minv, 5 * n, &mx->in, n2, &mx->x, n, &mx->vf));
  PetscCall(PetscCalloc4(n, &mx->a, n, &mx->A, n, &mx->fprev, n, &mx->f2));
  PetscCall(PetscCalloc5(n, &mx->qh, n, &mx->vh, n, &mx->ah, n, &mx->vold, n, &mx->work));
  PetscCall(PetscCalloc2(n, &mx->qold, PetscMax(st->nc, 1), &mx->closed));
  PetscCall(PetscCalloc3(PetscMax(st->nb, 1), &mx->ub0, PetscMax(st->nb, 1), &mx->ub1, PetscMax(st->nc, 1), &mx->gn));
  /* in eta the same set-up runs on M = I, D = diag(dd), K = diag(omega^2), whose products and inverses keep the diagonal blocks */
  PetscCall(VIModalFormCreate(st, "mixed", PETSC_FALSE, &mx->md, &mx->modal));
  if (mx->modal) {
    PetscCall(PetscCalloc1(3 * n * n, &ops));
    for (PetscInt i = 0; i < n; i++) {
      ops[i * n + i]             = 1;
      ops[n * n + i * n + i]     = mx->md.dd[i];
      ops[2 * n * n + i * n + i] = mx->md.omega2[i];
    }
    M = ops;
    D = ops + n * n;
    K = ops + 2 * n * n;
  }
  for (PetscInt i = 0; i < n * n; i++)
    if (D[i] != 0) mx->damped = PETSC_TRUE;
  for (PetscInt j = 0; j < st->nc; j++)
    if (st->set.dims[j] > 1 && st->set.mu[j] > 0) mx->friction = PETSC_TRUE;
  PetscCall(PetscArraycpy(mx->Minv, M, n * n));
  PetscCall(VIInvertSPD(st->comm, n, mx->Minv,
                        "-step_type mixed: the mass matrix M (the impulsive correction v+ = v- + M^-1 W Lambda of seed 001 Eq. (46) needs it "
                        "nonsingular)"));
  if (mx->base == VI_MIXED_GENALPHA) {
    PetscReal s, sa, sq;
    s      = (1 - mx->af) / (1 - mx->am);
    sa     = h * mx->ga * s;
    sq     = h * h * mx->be * s;
    /* Eq. (36): M^ = M + h gamma s D + h^2 beta s K; P = [M^-1, -M^-1 D, -M^-1 K] on [h; v_pred; q_pred] (Eqs. 37, 38) */
    PetscCall(PetscMalloc2(n * n, &mx->Gm[0], n * 3 * n, &mx->P[0]));
    for (PetscInt i = 0; i < n * n; i++) mx->Gm[0][i] = M[i] + sa * D[i] + sq * K[i];
    PetscCall(PetscSNPrintf(what, sizeof(what),
                            "-step_type mixed -step_mixed_base genalpha: the iteration matrix M + h gamma (1-alpha_f)/(1-alpha_m) D + h^2 beta "
                            "(1-alpha_f)/(1-alpha_m) K (seed 001 Eq. 36; -step_dt %g, alpha_m %g, alpha_f %g)",
                            (double)h, (double)mx->am, (double)mx->af));
    PetscCall(VIInvertSPD(st->comm, n, mx->Gm[0], what));
    mx->gscale[0] = sa;
    for (PetscInt i = 0; i < n; i++) PetscCall(PetscArraycpy(mx->P[0] + i * 3 * n, mx->Gm[0] + i * n, n));
    PetscCall(VIMatMat(n, n, n, mx->Gm[0], D, -1.0, mx->P[0] + n, 3 * n));
    PetscCall(VIMatMat(n, n, n, mx->Gm[0], K, -1.0, mx->P[0] + 2 * n, 3 * n));
  } else if (mx->base == VI_MIXED_BATHE) {
    /* Eqs. (75), (76): K1^ = 16/h^2 M + 4/h D + K, K2^ = 9/h^2 M + 3/h D + K; P = [K^-1, K^-1 M, K^-1 D] on [h; M input; D input] */
    const PetscReal cm[2] = {16 / (h * h), 9 / (h * h)}, cd[2] = {4 / h, 3 / h};
    for (PetscInt s = 0; s < 2; s++) {
      PetscCall(PetscMalloc2(n * n, &mx->Gm[s], n * 3 * n, &mx->P[s]));
      for (PetscInt i = 0; i < n * n; i++) mx->Gm[s][i] = cm[s] * M[i] + cd[s] * D[i] + K[i];
      PetscCall(PetscSNPrintf(what, sizeof(what),
                              "-step_type mixed -step_mixed_base bathe: the iteration matrix %s of the %s sub-step (seed 001 Eq. %s; -step_dt %g)",
                              s ? "9/h^2 M + 3/h D + K" : "16/h^2 M + 4/h D + K", s ? "second" : "first", s ? "76" : "75", (double)h));
      PetscCall(VIInvertSPD(st->comm, n, mx->Gm[s], what));
      mx->gscale[s] = cd[s];
      for (PetscInt i = 0; i < n; i++) PetscCall(PetscArraycpy(mx->P[s] + i * 3 * n, mx->Gm[s] + i * n, n));
      PetscCall(VIMatMat(n, n, n, mx->Gm[s], M, 1.0, mx->P[s] + n, 3 * n));
      PetscCall(VIMatMat(n, n, n, mx->Gm[s], D, 1.0, mx->P[s] + 2 * n, 3 * n));
    }
  } else {
    const PetscReal al = (1 - rho) / (1 + rho), ar = mx->opt.alpha_ar, *c = mx->c;
    PetscReal      *B, *R;
    /* Eq. (86) with the damping of Eqs. (77), (78): rows (v_{i+1}; v_j) of
       [c4 M + D + c3 K, c6 M + c2 K; c15 M + c8 K, c12 M + D + c10 K] [v_{i+1}; v_j] = R_c (Eq. 87) */
    PetscCall(PetscMalloc2(n2 * n2, &B, n2 * 5 * n, &R));
    PetscCall(PetscMalloc2(1, &mx->Gm[0], n2 * 5 * n, &mx->P[0])); /* no Gm: the forces act through E */
    PetscCall(PetscMalloc1(n2 * n2, &mx->E));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = 0; k < n; k++) {
        const PetscReal m = M[i * n + k], kk = K[i * n + k], dd = D[i * n + k];
        B[i * n2 + k]           = c[4] * m + dd + c[3] * kk;
        B[i * n2 + n + k]       = c[6] * m + c[2] * kk;
        B[(n + i) * n2 + k]     = c[15] * m + c[8] * kk;
        B[(n + i) * n2 + n + k] = c[12] * m + dd + c[10] * kk;
      }
    PetscCall(PetscSNPrintf(what, sizeof(what),
                            "-step_type mixed -step_mixed_base edalpha: the block iteration matrix of (v_{i+1}, v_j) (seed 001 Eq. 86; -step_dt %g, "
                            "alpha %g, alpha_AR %g)",
                            (double)h, (double)al, (double)ar));
    PetscCall(VIInvert(st->comm, n2, B, what));
    /* R_c = Rin [h_{i+1}; h_j; v_i; a_i; q_i] (Eq. 87, c1 = c9 = 1): Rin = [I, 0, -c5 M, -c7 M, -K; 0, I, -c13 M - c11 K, -c14 M, -K] */
    PetscCall(PetscArrayzero(R, n2 * 5 * n));
    for (PetscInt i = 0; i < n; i++) {
      R[i * 5 * n + i]           = 1;
      R[(n + i) * 5 * n + n + i] = 1;
      for (PetscInt k = 0; k < n; k++) {
        const PetscReal m = M[i * n + k], kk = K[i * n + k];
        R[i * 5 * n + 2 * n + k]       = -c[5] * m;
        R[i * 5 * n + 3 * n + k]       = -c[7] * m;
        R[i * 5 * n + 4 * n + k]       = -c[1] * kk;
        R[(n + i) * 5 * n + 2 * n + k] = -c[13] * m - c[11] * kk;
        R[(n + i) * 5 * n + 3 * n + k] = -c[14] * m;
        R[(n + i) * 5 * n + 4 * n + k] = -c[9] * kk;
      }
    }
    {
      /* P = B R (row-major 2n x 5n): column-major P^T = R^T B^T */
      PetscBLASInt    b5, b2;
      const PetscReal one = 1, zero = 0;
      PetscCall(PetscBLASIntCast(5 * n, &b5));
      PetscCall(PetscBLASIntCast(n2, &b2));
      PetscCallBLAS("BLASgemm", BLASgemm_("N", "N", &b5, &b2, &b2, &one, R, &b5, B, &b2, &zero, mx->P[0], &b5));
    }
    /* the forces of both stages (Eq. 85): lambda_{i+1} in Eq. (78) and lambda_j in Eq. (77) move (v_{i+1}; v_j) by E = M_c^-1 */
    PetscCall(PetscArraycpy(mx->E, B, n2 * n2));
    mx->gscale[0] = 1;
    PetscCall(PetscFree2(B, R));
  }
  /* edalpha's force set holds each closed contact twice (stages i+1 and j) */
  for (PetscInt s = 0; s <= VI_MIXED_STAGES; s++) {
    const PetscInt twice = (s == 0 && mx->base == VI_MIXED_EDALPHA) ? 2 : 1;
    PetscCall(VIActiveSetCreate(twice * st->nb, twice * st->nc, &mx->as[s]));
  }
  mx->holder = -1;
  mx->first  = PETSC_TRUE;
  PetscCall(VIRowSplitCreate(st->comm, mx->base == VI_MIXED_EDALPHA ? n2 : n, 1, &mx->rows));
  for (PetscInt s = 0; s < mx->nstage; s++) {
    mx->Gdel[s] = mx->base == VI_MIXED_EDALPHA ? mx->E : mx->Gm[s];
    mx->ldel[s] = mx->base == VI_MIXED_EDALPHA ? n2 : n;
    mx->Gcol[s] = mx->base == VI_MIXED_EDALPHA ? NULL : mx->Gm[s];
  }
  mx->Gdel[VI_MIXED_STAGES] = mx->Gcol[VI_MIXED_STAGES] = mx->Minv;
  mx->ldel[VI_MIXED_STAGES]                             = n;
  if (mx->modal) PetscCall(VIMixedModalSetUp(st, mx));
  PetscCall(PetscFree(ops));
  st->scheme_energy = mx->modal; /* in eta the step computes T and V of its level on the way (two passes over n numbers) */
  /* what the next step reads before writing it (checkpoints); q, u (v_i^+) and the gaps of level i are the stepper's; in eta under other
     names, so that a checkpoint of one path is not restored into the other */
  PetscCall(VIStepperRegisterState(st, mx->modal ? "mixed_modal_a" : "mixed_a", n, mx->a, NULL));
  PetscCall(VIStepperRegisterState(st, mx->modal ? "mixed_modal_A" : "mixed_A", n, mx->A, NULL));
  PetscCall(VIStepperRegisterState(st, mx->modal ? "mixed_modal_fprev" : "mixed_fprev", n, mx->fprev, NULL));
  PetscCall(VIStepperRegisterState(st, "mixed_first", 1, NULL, &mx->first));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = P[s] in: in eta a pass over n numbers per block of P[s] (on every rank); else over this rank's rows, then gathered (bitwise the
   same on any number of ranks). */
static PetscErrorCode VIMixedApply(VIStepper st, VIMixed *mx, PetscInt s)
{
  const PetscInt lo = mx->rows.lo, hi = mx->rows.hi;

  PetscFunctionBeginUser;
  if (mx->modal) {
    const PetscInt n = st->n, no = mx->base == VI_MIXED_EDALPHA ? 2 : 1, ni = mx->width / n;
    for (PetscInt o = 0; o < no; o++) {
      PetscReal *x = mx->x + o * n;
      for (PetscInt i = 0; i < n; i++) x[i] = 0;
      for (PetscInt c = 0; c < ni; c++) {
        const PetscReal *p = mx->Pd[s] + (o * ni + c) * n, *in = mx->in + c * n;
        for (PetscInt i = 0; i < n; i++) x[i] += p[i] * in[i];
      }
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  VIMatVec(hi - lo, mx->width, mx->P[s] + lo * mx->width, mx->width, mx->in, 0.0, mx->x + lo);
  PetscCall(VIRowSplitGather(&mx->rows, mx->x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values at the boundary rows of the closed contacts of a vector of the scheme's coordinates, indexed by ROM row: the vector itself
   in the ROM's coordinates; in eta B v at those rows, into vb (nb). */
static const PetscReal *VIMixedBoundary(VIStepper st, const VIMixed *mx, const PetscBool closed[], const PetscReal v[], PetscReal vb[])
{
  const PetscInt n = st->n;

  if (!mx->modal) return v;
  for (PetscInt j = 0; j < st->nc; j++) {
    if (!closed[j]) continue;
    for (PetscInt r = 0; r < st->set.dims[j]; r++) {
      const PetscInt   row = st->offsets[j] + r;
      const PetscReal *b   = mx->B + row * n;
      PetscReal        d   = 0;
      for (PetscInt i = 0; i < n; i++) d += b[i] * v[i];
      vb[row] = d;
    }
  }
  return vb;
}

/* The normal coordinates of the contacts, W_n q (mx->gn; nc): the ROM's rows, or Bn eta (one nc x n product). */
static void VIMixedNormal(VIStepper st, VIMixed *mx, const PetscReal q[])
{
  if (mx->modal)
    VIMatVec(st->nc, st->n, mx->Bn, st->n, q, 0.0, mx->gn);
  else
    for (PetscInt j = 0; j < st->nc; j++) mx->gn[j] = q[st->offsets[j]];
}

/* Solve the contact problem of active set k with the operator scale Gfull[rows, rows] (leading dimension ld). The stages and the impulses
   share the stepper's contact solver: when another set's operator is in it, this set's is handed over again. forces: the unknowns are a
   stage's forces, a preloaded contact's solved for the total X_n = lambda_n + p >= 0 (c <- c - G p, then lambda_n = X_n - p, as leapfrog's
   seed 000 Eqs. 7, 13-14); else impulses of an impact, to which the preload adds nothing. Either way the Coulomb disk has the radius mu
   times the solved normal unknown (no preload in the solver's set). */
static PetscErrorCode VIMixedSolve(VIStepper st, VIMixed *mx, PetscInt k, const PetscReal Gfull[], PetscInt ld, PetscReal scale, PetscBool forces)
{
  VIActiveSet *as = &mx->as[k];

  PetscFunctionBeginUser;
  for (PetscInt cc = 0, an = 0; forces && cc < as->nact; an += as->dims[cc], cc++) {
    const PetscReal p = as->preload[cc];
    if (p <= 0) continue;
    for (PetscInt b = 0; b < as->nrows; b++) as->c[b] -= scale * Gfull[as->rows[b] * ld + as->rows[an]] * p;
    as->x[an] += p;
  }
  if (mx->holder != k) as->op_nrows = -1;
  as->set.preload = NULL;
  PetscCall(VIStepperSolveContacts(st, as, Gfull, ld, scale));
  mx->holder = k;
  for (PetscInt cc = 0, an = 0; forces && cc < as->nact; an += as->dims[cc], cc++) as->x[an] -= as->preload[cc];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A preloaded contact open at t_i carries the total normal force 0, i.e. lambda_n = -p: a load of the step on its normal row, subtracted
   from the first blocks * n entries of a stage's inputs (its loads, in blocks of n). */
static void VIMixedOpenPreloads(VIStepper st, const VIMixed *mx, PetscReal in[], PetscInt blocks)
{
  const PetscInt n = st->n;

  for (PetscInt j = 0; j < st->nc; j++)
    if (!mx->closed[j] && st->set.preload[j] > 0)
      for (PetscInt b = 0; b < blocks; b++) {
        if (!mx->modal)
          in[b * n + st->offsets[j]] -= st->set.preload[j];
        else
          for (PetscInt i = 0; i < n; i++) in[b * n + i] -= st->set.preload[j] * mx->Bn[j * n + i]; /* -p W_n^T in eta */
      }
}

/* Contact forces of stage k on the contacts closed at t_i (seed 001 Eqs. 27-29, 39-42: velocity level), from the stage's free velocity v
   (st->g0_rate of the stage's time): -(G lambda + gdot_free) ∈ N_C(lambda), G = gscale[k] Gm[k][rows, rows]. The forces are in
   mx->as[k].x; *any is false when no contact is closed. */
static PetscErrorCode VIMixedForces(VIStepper st, VIMixed *mx, PetscInt k, const PetscReal v[], PetscBool *any)
{
  VIActiveSet     *as = &mx->as[k];
  const PetscReal *vb;

  PetscFunctionBeginUser;
  *any = PETSC_FALSE;
  for (PetscInt j = 0; j < st->nc; j++) *any = *any || mx->closed[j];
  if (!*any) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIActiveSetBuild(st, mx->closed, mx->friction, as));
  vb = VIMixedBoundary(st, mx, mx->closed, v, mx->ub0);
  for (PetscInt j = 0, a = 0, cc = 0; j < st->nc; j++) {
    if (!mx->closed[j]) continue;
    for (PetscInt r = 0; r < as->dims[cc]; r++, a++) {
      as->c[a] = VIStepperRelativeVelocity(st, j, r, vb);
      as->x[a] = 0;
    }
    cc++;
  }
  PetscCall(VIMixedSolve(st, mx, k, mx->Gdel[k], mx->ldel[k], mx->gscale[k], PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ED-alpha's contact forces (seed 001 Eqs. 85-89): lambda_{i+1} in Eq. (78) against the velocity v_{i+1} at t_{i+1} and lambda_j in Eq. (77)
   against v_j at t_i^+, each on velocity level on the contacts closed at t_i, solved together: the set holds every closed contact twice
   (rows r of v_{i+1}, then rows n + r of v_j), its Delassus matrix is M_c^-1 at those rows and columns (not symmetric: the contact
   solver's semi-smooth Newton takes it). On entry mx->x holds the free (v_{i+1}; v_j), on exit the velocities with the forces. */
static PetscErrorCode VIMixedForcesEDAlpha(VIStepper st, VIMixed *mx, PetscReal t, PetscBool *any)
{
  VIActiveSet *as = &mx->as[0];
  PetscInt     n = st->n, n2 = 2 * n, m;

  PetscFunctionBeginUser;
  *any = PETSC_FALSE;
  for (PetscInt j = 0; j < st->nc; j++) *any = *any || mx->closed[j];
  if (!*any) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIActiveSetBuild(st, mx->closed, mx->friction, as));
  m = as->nrows;
  for (PetscInt s = 1; s >= 0; s--) { /* stage j at t_i^+ = t - h, then stage i + 1 at t (the imposed gap's rate of each) */
    const PetscReal *vb = VIMixedBoundary(st, mx, mx->closed, mx->x + s * n, mx->ub0);
    PetscCall(VISystemEvaluateGaps(st->sys, t - s * st->dt, st->g0, st->g0_rate));
    for (PetscInt j = 0, a = 0, cc = 0; j < st->nc; j++) {
      if (!mx->closed[j]) continue;
      for (PetscInt r = 0; r < as->dims[cc]; r++, a++) {
        as->c[s * m + a] = VIStepperRelativeVelocity(st, j, r, vb);
        as->x[s * m + a] = 0;
      }
      cc++;
    }
  }
  for (PetscInt a = 0; a < m; a++) as->rows[m + a] = as->rows[a] + (mx->modal ? st->nb : n); /* the second block of E, or of Dl[0] */
  for (PetscInt b = 0; b < as->nact; b++) {
    as->dims[as->nact + b]    = as->dims[b];
    as->mu[as->nact + b]      = as->mu[b];
    as->preload[as->nact + b] = as->preload[b];
    as->kinds[as->nact + b]   = as->kinds[b];
  }
  as->nrows            = 2 * m;
  as->nact             = 2 * as->nact;
  as->set.num_contacts = as->nact;
  PetscCall(VIMixedSolve(st, mx, 0, mx->Gdel[0], mx->ldel[0], 1.0, PETSC_TRUE));
  for (PetscInt b = 0; b < as->nrows; b++) {
    const PetscInt  col = as->rows[b];
    const PetscReal l   = as->x[b];
    if (mx->modal) {
      const PetscReal *c = mx->Cl[0] + col * n2;
      for (PetscInt i = 0; i < n2; i++) mx->x[i] += c[i] * l;
    } else
      for (PetscInt i = 0; i < n2; i++) mx->x[i] += mx->E[i * n2 + col] * l;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x += Gm[k][:, rows] lambda (Gm symmetric: its rows are its columns; in eta the rows of Cl[k]) */
static void VIMixedAddColumns(VIStepper st, VIMixed *mx, PetscInt k, PetscReal x[])
{
  const VIActiveSet *as = &mx->as[k];

  for (PetscInt b = 0; b < as->nrows; b++) {
    const PetscReal *col = mx->Gcol[k] + as->rows[b] * st->n, l = as->x[b];
    for (PetscInt i = 0; i < st->n; i++) x[i] += col[i] * l;
  }
}

/* Energy of percussions scale * as->x on the closed contacts, with the velocities u0 before and u1 after them (values at the boundary rows,
   indexed by ROM row: VIMixedBoundary) (as the moreau scheme):
   normal rows work on the obstacle; tangential rows dissipate by friction, and work on a moving obstacle. Also the recorded force. */
static void VIMixedContactWork(VIStepper st, const PetscBool closed[], const VIActiveSet *as, PetscReal scale, const PetscReal u0[],
                               const PetscReal u1[])
{
  for (PetscInt j = 0, b = 0, cc = 0; j < st->nc; j++) {
    if (!closed[j]) continue;
    for (PetscInt r = 0; r < as->dims[cc]; r++, b++) {
      const PetscInt  row = as->rows[b];
      const PetscReal P = scale * as->x[b], vm = 0.5 * (u0[row] + u1[row]);
      if (r == 0)
        st->energy.obstacle_work += P * vm;
      else {
        const PetscReal drive = st->obstacle_v[2 * j + r - 1];
        st->energy.friction_dissipation -= P * (vm - drive);
        st->energy.obstacle_work += P * drive;
      }
    }
    cc++;
  }
}

/* Steps (b), (c) of seed 001 Fig. 4 at t = t_{i+1}: the gaps of q_{i+1}; on a new impact (Eq. 18) the impulses of Newton's law on the
   closed contacts (Eqs. 47-50) and v+ = v- + M^-1 W Lambda (Eq. 46). st->gap holds the gaps of level i on entry, of level i + 1 on exit. */
static PetscErrorCode VIMixedImpact(VIStepper st, VIMixed *mx, PetscReal t)
{
  VISystem         sys    = st->sys;
  VIActiveSet     *as     = &mx->as[VI_MIXED_STAGES];
  PetscInt         n      = st->n;
  PetscBool        impact = PETSC_FALSE;
  PetscReal       *v = st->u, *vminus = mx->work;
  const PetscReal *vb;

  PetscFunctionBeginUser;
  PetscCall(VISystemEvaluateGaps(sys, t, st->g0, st->g0_rate));
  VIMixedNormal(st, mx, st->q);
  for (PetscInt j = 0; j < st->nc; j++) {
    const PetscReal g = mx->gn[j] + st->g0[j];
    /* a bilateral row does not impact: it never opens (its drift on position level does not trigger Eq. 18) */
    if (st->gap[j] > 0 && g <= 0 && st->set.kinds[j] != VI_CONTACT_BILATERAL) impact = PETSC_TRUE;
    st->gap[j] = g;
  }
  if (!impact) PetscFunctionReturn(PETSC_SUCCESS); /* Eq. (19) */
  VIMixedClosed(st, st->gap, mx->closed);
  PetscCall(VIActiveSetBuild(st, mx->closed, mx->friction, as));
  /* Eqs. (14), (15) with gdot^+ = gdot^- + G Lambda: c = (1 + eps) gdot^-; a bilateral row with eps = 0 (seed 002 §7): B v^+ = 0 */
  vb = VIMixedBoundary(st, mx, mx->closed, v, mx->ub0);
  for (PetscInt j = 0, a = 0, cc = 0; j < st->nc; j++) {
    if (!mx->closed[j]) continue;
    for (PetscInt r = 0; r < as->dims[cc]; r++, a++) {
      const PetscReal eps = st->set.kinds[j] == VI_CONTACT_BILATERAL ? 0 : (r ? mx->opt.restitution_t : st->restitution);
      as->c[a]            = (1 + eps) * VIStepperRelativeVelocity(st, j, r, vb);
      as->x[a]            = 0;
    }
    cc++;
  }
  PetscCall(VIMixedSolve(st, mx, VI_MIXED_STAGES, mx->Gdel[VI_MIXED_STAGES], mx->ldel[VI_MIXED_STAGES], 1.0, PETSC_FALSE));
  PetscCall(PetscArraycpy(vminus, v, n));
  for (PetscInt b = 0; b < as->nrows; b++) {
    const PetscInt   row = as->rows[b];
    const PetscReal *col = mx->Gcol[VI_MIXED_STAGES] + row * n, L = as->x[b];
    for (PetscInt i = 0; i < n; i++) v[i] += col[i] * L;
    st->lambda[row] += L / st->dt; /* recorded as the mean force over the step */
  }
  VIMixedContactWork(st, mx->closed, as, 1.0, VIMixedBoundary(st, mx, mx->closed, vminus, mx->ub0), VIMixedBoundary(st, mx, mx->closed, v, mx->ub1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperStep_Mixed(VIStepper st, PetscReal t)
{
  VIMixed   *mx  = (VIMixed *)st->data;
  VISystem   sys = st->sys;
  PetscInt   n   = st->n;
  PetscReal  h = st->dt, *f = st->f, *q = st->q, *v = st->u, *a = mx->a, *A = mx->A, *in = mx->in, *x = mx->x, *vf = mx->vf;
  PetscReal *qold = mx->qold, *vold = mx->vold;
  PetscBool  any;

  PetscFunctionBeginUser;
  if (mx->nonlin) {
    PetscCall(VIMixedNLStep(st, mx->nonlin, t));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (mx->modal)
    PetscCall(VIModalFormForce(st, &mx->md, t, f));
  else
    PetscCall(VISystemEvaluateForce(sys, t, f));
  if (mx->first) {
    const PetscReal *q0, *u0;
    /* level 0: a_0 = M^-1 (h_0 - K q_0 - D v_0), A_0 = a_0 (Eqs. 24, 25, 62, 83), h_0 with the open preloaded contacts' -p */
    PetscCall(VISystemGetInitialState(sys, &q0, &u0));
    PetscCall(PetscArraycpy(q, mx->modal ? mx->md.eta0 : q0, n));
    PetscCall(PetscArraycpy(v, mx->modal ? mx->md.veta0 : u0, n));
    PetscCall(VISystemEvaluateGaps(sys, t, st->g0, NULL));
    VIMixedNormal(st, mx, q);
    for (PetscInt j = 0; j < st->nc; j++) st->gap[j] = mx->gn[j] + st->g0[j];
    PetscCall(PetscArrayzero(st->lambda, st->nb));
    VIMixedClosed(st, st->gap, mx->closed);
    if (mx->modal)
      for (PetscInt i = 0; i < n; i++) mx->work[i] = mx->md.omega2[i] * q[i] + mx->md.dd[i] * v[i];
    else {
      VIMatVec(n, n, st->K, n, q, 0.0, mx->work);
      VIMatVec(n, n, st->D, n, v, 1.0, mx->work);
    }
    for (PetscInt i = 0; i < n; i++) mx->work[i] = f[i] - mx->work[i];
    VIMixedOpenPreloads(st, mx, mx->work, 1);
    if (mx->modal)
      PetscCall(PetscArraycpy(a, mx->work, n)); /* M = I */
    else
      VIMatVec(n, n, mx->Minv, n, mx->work, 0.0, a);
    PetscCall(PetscArraycpy(A, a, n));
  } else {
    VIMixedClosed(st, st->gap, mx->closed); /* I_1^i (Eq. 41) */
    PetscCall(PetscArrayzero(st->lambda, st->nb));
    PetscCall(PetscArraycpy(vold, v, n));
    if (mx->base == VI_MIXED_GENALPHA) {
      const PetscReal am = mx->am, af = mx->af, ga = mx->ga, be = mx->be, s = (1 - af) / (1 - am), sa = h * ga * s;
      PetscReal      *Ap = mx->ah;
      PetscCall(PetscArraycpy(qold, q, n));
      /* Eqs. (21)-(23) with a_{i+1} = 0: the predictions of v and q; Eqs. (36)-(38): a_free = M^-1 (h - D v_pred - K q_pred) */
      for (PetscInt i = 0; i < n; i++) {
        Ap[i]         = (af * a[i] - am * A[i]) / (1 - am);
        in[i]         = f[i];
        in[n + i]     = v[i] + h * (1 - ga) * A[i] + h * ga * Ap[i];
        in[2 * n + i] = q[i] + h * v[i] + h * h * (0.5 - be) * A[i] + h * h * be * Ap[i];
      }
      VIMixedOpenPreloads(st, mx, in, 1);
      PetscCall(VIMixedApply(st, mx, 0));
      for (PetscInt i = 0; i < n; i++) vf[i] = in[n + i] + sa * x[i];
      PetscCall(VISystemEvaluateGaps(sys, t, st->g0, st->g0_rate));
      PetscCall(VIMixedForces(st, mx, 0, vf, &any)); /* Eqs. (30)-(35), (39)-(43) */
      if (any) VIMixedAddColumns(st, mx, 0, x);
      for (PetscInt i = 0; i < n; i++) {
        const PetscReal Anew = Ap[i] + s * x[i];                    /* Eq. (21) */
        q[i] += h * v[i] + h * h * ((0.5 - be) * A[i] + be * Anew); /* Eq. (22) */
        v[i] += h * ((1 - ga) * A[i] + ga * Anew);                  /* Eq. (23) */
        a[i] = x[i];
        A[i] = Anew;
      }
      if (any) {
        for (PetscInt b = 0; b < mx->as[0].nrows; b++) st->lambda[mx->as[0].rows[b]] = mx->as[0].x[b];
        VIMixedContactWork(st, mx->closed, &mx->as[0], h, VIMixedBoundary(st, mx, mx->closed, vold, mx->ub0),
                           VIMixedBoundary(st, mx, mx->closed, v, mx->ub1));
      }
    } else if (mx->base == VI_MIXED_BATHE) {
      PetscReal *qh = mx->qh, *vh = mx->vh, *ah = mx->ah;
      PetscCall(PetscArraycpy(qold, q, n));
      /* first sub-step, trapezoidal rule on [t_i, t_i + h/2] (Eqs. 58, 59, 75) */
      if (mx->modal)
        PetscCall(VIModalFormForce(st, &mx->md, t - 0.5 * h, mx->f2));
      else
        PetscCall(VISystemEvaluateForce(sys, t - 0.5 * h, mx->f2));
      for (PetscInt i = 0; i < n; i++) {
        in[i]         = mx->f2[i];
        in[n + i]     = 16 / (h * h) * q[i] + 8 / h * v[i] + a[i];
        in[2 * n + i] = 4 / h * q[i] + v[i];
      }
      VIMixedOpenPreloads(st, mx, in, 1);
      PetscCall(VIMixedApply(st, mx, 0));
      for (PetscInt i = 0; i < n; i++) vf[i] = -v[i] + 4 / h * (x[i] - q[i]);
      PetscCall(VISystemEvaluateGaps(sys, t - 0.5 * h, st->g0, st->g0_rate));
      PetscCall(VIMixedForces(st, mx, 0, vf, &any)); /* Eqs. (63)-(68) */
      if (any) VIMixedAddColumns(st, mx, 0, x);
      for (PetscInt i = 0; i < n; i++) {
        qh[i] = x[i];
        vh[i] = -v[i] + 4 / h * (qh[i] - q[i]);
        ah[i] = -a[i] + 4 / h * (vh[i] - v[i]);
      }
      if (any)
        VIMixedContactWork(st, mx->closed, &mx->as[0], 0.5 * h, VIMixedBoundary(st, mx, mx->closed, v, mx->ub0),
                           VIMixedBoundary(st, mx, mx->closed, vh, mx->ub1));
      /* second sub-step, three-point backward Euler on [t_i, t_{i+1}] (Eqs. 60, 61, 76) */
      for (PetscInt i = 0; i < n; i++) {
        in[i]         = f[i];
        in[n + i]     = 12 / (h * h) * qh[i] - 3 / (h * h) * q[i] + 4 / h * vh[i] - 1 / h * v[i];
        in[2 * n + i] = 4 / h * qh[i] - 1 / h * q[i];
      }
      VIMixedOpenPreloads(st, mx, in, 1);
      PetscCall(VIMixedApply(st, mx, 1));
      for (PetscInt i = 0; i < n; i++) vf[i] = (q[i] - 4 * qh[i] + 3 * x[i]) / h;
      PetscCall(VISystemEvaluateGaps(sys, t, st->g0, st->g0_rate));
      PetscCall(VIMixedForces(st, mx, 1, vf, &any)); /* Eqs. (69)-(74) */
      if (any) VIMixedAddColumns(st, mx, 1, x);
      for (PetscInt i = 0; i < n; i++) {
        const PetscReal v1 = (q[i] - 4 * qh[i] + 3 * x[i]) / h;
        a[i]               = (v[i] - 4 * vh[i] + 3 * v1) / h;
        q[i]               = x[i];
        v[i]               = v1;
      }
      if (any) {
        for (PetscInt b = 0; b < mx->as[1].nrows; b++) st->lambda[mx->as[1].rows[b]] = mx->as[1].x[b];
        VIMixedContactWork(st, mx->closed, &mx->as[1], 0.5 * h, VIMixedBoundary(st, mx, mx->closed, vh, mx->ub0),
                           VIMixedBoundary(st, mx, mx->closed, v, mx->ub1));
      }
    } else {
      const PetscReal *c = mx->c;
      PetscCall(PetscArraycpy(qold, q, n));
      /* Eqs. (85)-(87): (v_{i+1}; v_j) = B R_c, the stage j = t_i^+ loaded with h_j = f(t_i) */
      for (PetscInt i = 0; i < n; i++) {
        in[i]         = f[i];
        in[n + i]     = mx->fprev[i];
        in[2 * n + i] = v[i];
        in[3 * n + i] = a[i];
        in[4 * n + i] = q[i];
      }
      VIMixedOpenPreloads(st, mx, in, 2); /* h_{i+1} and h_j */
      PetscCall(VIMixedApply(st, mx, 0));
      PetscCall(VIMixedForcesEDAlpha(st, mx, t, &any)); /* Eqs. (85)-(89) */
      for (PetscInt i = 0; i < n; i++) {
        const PetscReal v1 = x[i], vj = x[n + i];
        q[i] += 0.5 * h * (vj + v1);                              /* Eq. (82) */
        a[i] = c[4] * v1 + c[5] * v[i] + c[6] * vj + c[7] * a[i]; /* Eq. (90) */
        v[i] = v1;
      }
      if (any) {
        /* Eq. (80): the step's impulse is h (lambda_j + lambda_{i+1}) / 2; recorded as the mean force (first half of the set) */
        VIActiveSet   *as = &mx->as[0];
        const PetscInt m  = as->nrows / 2;
        for (PetscInt b = 0; b < m; b++) {
          as->x[b]                = 0.5 * (as->x[b] + as->x[m + b]);
          st->lambda[as->rows[b]] = as->x[b];
        }
        VIMixedContactWork(st, mx->closed, as, h, VIMixedBoundary(st, mx, mx->closed, vold, mx->ub0),
                           VIMixedBoundary(st, mx, mx->closed, v, mx->ub1));
      }
    }
    /* the open preloaded contacts' force -p over the step, and its work */
    for (PetscInt j = 0; j < st->nc; j++) {
      const PetscInt row = st->offsets[j];
      PetscReal      v0 = 0, v1 = 0;
      if (mx->closed[j] || st->set.preload[j] <= 0) continue;
      st->lambda[row] = -st->set.preload[j];
      if (mx->modal)
        for (PetscInt i = 0; i < n; i++) {
          v0 += mx->Bn[j * n + i] * vold[i];
          v1 += mx->Bn[j * n + i] * v[i];
        }
      else {
        v0 = vold[row];
        v1 = v[row];
      }
      st->energy.obstacle_work -= st->set.preload[j] * h * 0.5 * (v0 + v1);
    }
    PetscCall(VIMixedImpact(st, mx, t));
    /* energy: external work (trapezoidal in the force), damping with the step's mean velocity */
    for (PetscInt i = 0; i < n; i++) st->energy.external_work += 0.5 * (mx->fprev[i] + f[i]) * (q[i] - qold[i]);
    if (mx->damped) {
      for (PetscInt i = 0; i < n; i++) vf[i] = 0.5 * (vold[i] + v[i]);
      if (mx->modal)
        for (PetscInt i = 0; i < n; i++) mx->work[i] = mx->md.dd[i] * vf[i];
      else
        VIMatVec(n, n, st->D, n, vf, 0.0, mx->work);
      for (PetscInt i = 0; i < n; i++) st->energy.damping_dissipation += h * vf[i] * mx->work[i];
    }
  }
  if (mx->modal) { /* the energies of the level in eta (M = I, K = diag(omega^2)): the records' two products otherwise */
    PetscReal T = 0, V = 0;
    for (PetscInt i = 0; i < n; i++) {
      T += v[i] * v[i];
      V += mx->md.omega2[i] * q[i] * q[i];
    }
    st->energy.kinetic   = 0.5 * T;
    st->energy.potential = 0.5 * V;
  }
  PetscCall(PetscArraycpy(mx->fprev, f, n));
  mx->first = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The whole step is done by the next call of step (it needs t_{i+1}); the state of level i stays as the step left it. */
static PetscErrorCode VIStepperAdvance_Mixed(VIStepper st)
{
  PetscFunctionBeginUser;
  (void)st;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees the set-up and keeps the options: the next set-up starts from a zeroed state as after VIStepperSetType. */
static PetscErrorCode VIStepperReset_Mixed(VIStepper st)
{
  VIMixed       *mx = (VIMixed *)st->data;
  VIMixedOptions opt;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < VI_MIXED_STAGES; s++) PetscCall(PetscFree2(mx->Gm[s], mx->P[s]));
  PetscCall(PetscFree(mx->E));
  PetscCall(PetscFree4(mx->Minv, mx->in, mx->x, mx->vf));
  PetscCall(PetscFree4(mx->a, mx->A, mx->fprev, mx->f2));
  PetscCall(PetscFree5(mx->qh, mx->vh, mx->ah, mx->vold, mx->work));
  PetscCall(PetscFree2(mx->qold, mx->closed));
  for (PetscInt s = 0; s <= VI_MIXED_STAGES; s++)
    if (mx->as[s].rows) PetscCall(VIActiveSetDestroy(&mx->as[s]));
  for (PetscInt s = 0; s < VI_MIXED_STAGES; s++) PetscCall(PetscFree(mx->Pd[s]));
  for (PetscInt s = 0; s <= VI_MIXED_STAGES; s++) PetscCall(PetscFree2(mx->Cl[s], mx->Dl[s]));
  PetscCall(PetscFree2(mx->B, mx->Bn));
  PetscCall(PetscFree3(mx->ub0, mx->ub1, mx->gn));
  PetscCall(VIModalFormDestroy(&mx->md));
  if (mx->rows.counts) PetscCall(VIRowSplitDestroy(&mx->rows));
  if (mx->nonlin) PetscCall(VIMixedNLDestroy(&mx->nonlin));
  opt = mx->opt;
  PetscCall(PetscMemzero(mx, sizeof(*mx)));
  mx->opt = opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperDestroy_Mixed(VIStepper st)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(st->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperSetFromOptions_Mixed(VIStepper st, PetscOptionItems *PetscOptionsObject)
{
  VIMixedOptions *o     = &((VIMixed *)st->data)->opt;
  PetscBool       set_m = PETSC_FALSE, set_f = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsReal(
      "-step_rho_inf", "mixed: spectral radius at infinity rho_inf in [0, 1] of generalized-alpha (seed 001 Eq. 26) and ED-alpha (seed 001 Eq. 84)",
      "", o->rho_inf, &o->rho_inf, NULL));
  PetscCall(PetscOptionsEnum("-step_mixed_base",
                             "mixed: the smooth base scheme, genalpha (seed 001 §2.4), bathe (§2.6, no parameter, rho_inf 0) or edalpha (§2.7)", "",
                             VIMixedBases, (PetscEnum)o->base, (PetscEnum *)&o->base, NULL));
  PetscCall(
      PetscOptionsReal("-step_mixed_alpha_m",
                       "mixed, genalpha: alpha_m, set together with -step_mixed_alpha_f instead of -step_rho_inf (seed 001 Eq. 26); gamma "
                       "and beta follow from Eq. 26, the pair must lie in the unconditionally stable region alpha_m <= alpha_f <= 1/2 (Eq. 100)",
                       "", o->alpha_m, &o->alpha_m, &set_m));
  PetscCall(PetscOptionsReal("-step_mixed_alpha_f", "mixed, genalpha: alpha_f (with -step_mixed_alpha_m; seed 001 Eqs. 26, 100)", "", o->alpha_f,
                             &o->alpha_f, &set_f));
  PetscCall(PetscOptionsReal("-step_mixed_alpha_ar", "mixed, edalpha: alpha_AR >= 0 (seed 001 Eq. 84; 1/6 gives the least period error)", "",
                             o->alpha_ar, &o->alpha_ar, NULL));
  PetscCall(PetscOptionsEnum("-step_mixed_edalpha_joints",
                             "mixed, edalpha on a multibody system: the stage j's joint rows on velocity level (velocity, seed 001 Eq. 85) or "
                             "the joint force of level i (previous: second order also at rho_inf near 1; docs/multibody.md)",
                             "", VIMixedJointsTypes, (PetscEnum)o->joints, (PetscEnum *)&o->joints, NULL));
  PetscCall(PetscOptionsReal("-step_mixed_restitution_tangential", "mixed: tangential restitution eps_T in [0, 1] of the impacts (seed 001 Eq. 12)",
                             "", o->restitution_t, &o->restitution_t, NULL));
  PetscCheck(o->rho_inf >= 0 && o->rho_inf <= 1, st->comm, PETSC_ERR_USER_INPUT, "-step_rho_inf: got %g, expected a spectral radius in [0, 1]",
             (double)o->rho_inf);
  PetscCheck(o->restitution_t >= 0 && o->restitution_t <= 1, st->comm, PETSC_ERR_USER_INPUT,
             "-step_mixed_restitution_tangential: got %g, expected a value in [0, 1]", (double)o->restitution_t);
  PetscCheck(set_m == set_f, st->comm, PETSC_ERR_USER_INPUT, "-step_mixed_alpha_m and -step_mixed_alpha_f: give both or neither (got only %s)",
             set_m ? "-step_mixed_alpha_m" : "-step_mixed_alpha_f");
  o->alpha_given = set_m;
  PetscCheck(!set_m || (o->alpha_m <= o->alpha_f && o->alpha_f <= 0.5), st->comm, PETSC_ERR_USER_INPUT,
             "-step_mixed_alpha_m %g, -step_mixed_alpha_f %g: outside the unconditionally stable region alpha_m <= alpha_f <= 1/2 of "
             "generalized-alpha (seed 001 Eq. 100)",
             (double)o->alpha_m, (double)o->alpha_f);
  PetscCheck(o->alpha_ar >= 0, st->comm, PETSC_ERR_USER_INPUT, "-step_mixed_alpha_ar: got %g, expected alpha_AR >= 0 (seed 001 Eq. 84)",
             (double)o->alpha_ar);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCheckSystem_Mixed(VIStepper st)
{
  VIMixed  *mx = (VIMixed *)st->data;
  const char *kind;
  PetscBool   massless;

  PetscFunctionBeginUser;
  PetscCall(VISystemHasMasslessBoundary(st->sys, &massless, &kind));
  PetscCheck(!massless, st->comm, PETSC_ERR_USER_INPUT,
             "-step_type mixed (-step_mixed_base %s) needs a mass-carrying ROM (cb, rubin, or a user ROM with a nonsingular M): its impulsive "
             "correction v+ = v- + M^-1 W Lambda (seed 001 Eq. 46) and its initial acceleration a0 = M^-1 (h0 - K q0 - C v0) (Eqs. 24, 83) need M "
             "nonsingular, and this ROM is %s, with a massless boundary: use -step_type leapfrog",
             VIMixedBases[mx->opt.base], kind);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCopyOptions_Mixed(VIStepper from, VIStepper to)
{
  PetscFunctionBeginUser;
  ((VIMixed *)to->data)->opt = ((VIMixed *)from->data)->opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCreate_Mixed(VIStepper st)
{
  VIMixed *mx;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&mx));
  mx->opt.rho_inf        = 0.8;
  mx->opt.base           = VI_MIXED_GENALPHA;
  mx->opt.alpha_f        = 0.5; /* alpha_m, alpha_f of rho_inf = 1 until set */
  mx->opt.alpha_ar       = 1.0 / 6.0;
  st->data               = mx;
  st->ops.setfromoptions = VIStepperSetFromOptions_Mixed;
  st->ops.checksystem    = VIStepperCheckSystem_Mixed;
  /* the base schemes (generalized-alpha in the unconditionally stable region of Eq. 100, Bathe, ED-alpha; App. A, B) are
     unconditionally stable and second order on the linear smooth part, the impulsive correction (Eq. 46) adds no step limit */
  st->ops.stablestep  = VIStableStepUnconditional;
  st->ops.copyoptions = VIStepperCopyOptions_Mixed;
  st->ops.setup       = VIStepperSetUp_Mixed;
  st->ops.step        = VIStepperStep_Mixed;
  st->ops.advance     = VIStepperAdvance_Mixed;
  st->ops.reset       = VIStepperReset_Mixed;
  st->ops.destroy     = VIStepperDestroy_Mixed;
  st->ops.nonlinear   = PETSC_TRUE; /* its nonlinear path, mixednl.c */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The mixed scheme's own options, read in VIStepperSetFromOptions_Mixed (-step_rho_inf also nsgalpha's) (src/sys/options.c's registry) */
static const VIOptionEntry VIMixedOptionTable[] = {
    {"-step_rho_inf", VI_OPTION_REAL, NULL},
    {"-step_mixed_base", VI_OPTION_ENUM, VIMixedBases},
    {"-step_mixed_alpha_m", VI_OPTION_REAL, NULL},
    {"-step_mixed_alpha_f", VI_OPTION_REAL, NULL},
    {"-step_mixed_alpha_ar", VI_OPTION_REAL, NULL},
    {"-step_mixed_restitution_tangential", VI_OPTION_REAL, NULL},
    {"-step_mixed_edalpha_joints", VI_OPTION_ENUM, VIMixedJointsTypes},
};

PetscErrorCode VIStepperRegister_Mixed(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIStepperRegister(VISTEPPERMIXED, VIStepperCreate_Mixed));
  PetscCall(VIOptionsRegisterTable("step_mixed", VIMixedOptionTable, sizeof(VIMixedOptionTable) / sizeof(VIMixedOptionTable[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
