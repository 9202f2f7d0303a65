/* The automatic time step: the stability limit of each scheme on a ROM (-step_dt auto) and a step chosen from an error
   estimate (-step_accuracy), seed 000 §2, Eq. (30) and App. B. */
#include "stepimpl.h"
#include <petscblaslapack.h>

/*
  Why the worst contact state of each scheme is the one taken here.

  Leapfrog on a massless boundary (seed 000 §2): the boundary carries no mass, so at every level q_b is the static answer
  to q_i (Eqs. 1, 11-14). With the contacts of a set H held (their rows prescribed, the prescribed part being a load that
  does not change stability) and the other boundary rows F condensed, the inner coordinates see central differences on
  M_ii q_i'' + K_H q_i = r with K_H = K_ii - K_iF K_FF^-1 K_Fi. q_i^T K_H q_i is the least strain energy over the free
  boundary rows with q_i given and the held rows at zero: holding more rows minimises over fewer unknowns, so
  K_H <= K_H' (Loewner order) when H is a subset of H', and the fully held K_ii bounds all (eigenvalue interlacing of the
  pencils with the same M_ii). Frictionless contacts act on the normal rows only (position level, §2.1.1): the worst case
  holds every normal row and condenses the tangential rows. Frictional contacts (velocity level, §2.1.2): a sticking
  contact prescribes its tangential velocity (the obstacle's), which holds the tangential rows as well; a slipping one
  leaves them free under a force mu lambda_n bounded by the normal reaction, between the free and the held case for the
  symmetric part (the non-symmetric coupling is the physical friction-induced instability, not a property of the step).
  So a contact that can stick has its whole row block held in the worst case, K_ii itself when all can. A contact whose
  obstacle slides (-contact_sliding_speed, a rotating frame: the obstacle's tangential velocity is nonzero) sticks only
  if its node moves with the obstacle, which vibration at the imposed sliding speeds of rubbing (hundreds of m/s) never
  does: its tangential rows are taken as slipping (free, condensed) and only its normal row is held. -step_dt_stick
  holds them anyway (the strict bound).
  Central differences on M x'' + K x = 0 are stable for dt omega < 2, omega^2 the largest eigenvalue of K x = omega^2 M x.

  Damping: the scheme averages D over u^{k-1/2} and u^{k+1/2} (Eq. 10). For one damped mode (ratio zeta) the recursion
  x^{k+1} - x^k = a (x^k - x^{k-1}) - b x^k, a = (1 - zeta h)/(1 + zeta h), b = h^2/(1 + zeta h), h = omega dt, has both
  roots inside the unit circle exactly when h < 2 (Jury: b < 2 (1 + a) <=> h^2 < 4): damping that is diagonal in the
  modes neither raises nor lowers the limit. For non-proportional damping the undamped limit is taken (light damping).

  Symmetric Moreau-like scheme (App. B, Eq. B.1): central differences on the whole mass-carrying system. Active contacts
  constrain the normal (and, sticking, tangential) velocities: the motion is restricted to a subspace, whose largest
  frequency is at most the unconstrained one (Rayleigh quotient), and the restitution law only reflects velocities
  (|e| <= 1, no energy added). The worst case is every contact open: 2 / omega_max of (K, M).

  Moreau-Jean theta-scheme, theta >= 1/2: unconditionally stable on the linear part (A-stable for theta = 1/2, damping
  the high frequencies for theta > 1/2). There is no limit to take: -step_dt auto chooses the step from accuracy, a
  number of steps (-step_points_per_period, default 20) per period of the highest ROM frequency at or below
  -step_frequency_cutoff (default: the highest frequency of the ROM), or the user asks for -step_accuracy.
*/

/* Row kinds of a stability problem: coordinates with mass, boundary rows condensed statically, rows held. */
enum { VI_ROW_DYNAMIC, VI_ROW_CONDENSED, VI_ROW_HELD };

/* Eigenvalues omega^2 (ascending, m of them) of K_eff x = omega^2 M_dd x, K_eff the Schur complement of the condensed rows
   on the dynamic rows; the held rows are removed. Rank-local (dense LAPACK on the replicated ROM). */
static PetscErrorCode VITimeStepSpectrum(PetscInt n, const PetscReal K[], const PetscReal M[], const PetscInt kind[], PetscInt *m_out,
                                         PetscReal **w_out)
{
  PetscInt     m = 0, c = 0, *dyn, *cond;
  PetscReal   *A, *B, *w, *Kcc = NULL, *X = NULL, *work, lwork_opt;
  PetscBLASInt bm, bc, info, itype = 1, lwork = -1;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n, &dyn, n, &cond));
  for (PetscInt i = 0; i < n; i++) {
    if (kind[i] == VI_ROW_DYNAMIC) dyn[m++] = i;
    if (kind[i] == VI_ROW_CONDENSED) cond[c++] = i;
  }
  PetscCall(PetscMalloc3(PetscMax(m * m, 1), &A, PetscMax(m * m, 1), &B, PetscMax(m, 1), &w));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) {
      A[i * m + j] = K[dyn[i] * n + dyn[j]];
      B[i * m + j] = M[dyn[i] * n + dyn[j]];
    }
  if (c > 0 && m > 0) {
    PetscCall(PetscMalloc2(c * c, &Kcc, c * m, &X));
    for (PetscInt i = 0; i < c; i++)
      for (PetscInt j = 0; j < c; j++) Kcc[i * c + j] = K[cond[i] * n + cond[j]];
    for (PetscInt k = 0; k < m; k++)
      for (PetscInt i = 0; i < c; i++) X[k * c + i] = K[cond[i] * n + dyn[k]]; /* column-major c x m: K_cd */
    PetscCall(PetscBLASIntCast(c, &bc));
    PetscCall(PetscBLASIntCast(m, &bm));
    PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bc, Kcc, &bc, &info));
    PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "The ROM's stiffness on the free boundary rows is not positive definite (potrf info %d)", (int)info);
    PetscCallBLAS("LAPACKpotrs", LAPACKpotrs_("L", &bc, &bm, Kcc, &bc, X, &bc, &info));
    for (PetscInt k = 0; k < m; k++)
      for (PetscInt l = 0; l < m; l++) {
        PetscReal s = 0;
        for (PetscInt i = 0; i < c; i++) s += K[cond[i] * n + dyn[k]] * X[l * c + i];
        A[k * m + l] -= s;
      }
    PetscCall(PetscFree2(Kcc, X));
  }
  if (m > 0) {
    PetscCall(PetscBLASIntCast(m, &bm));
    PetscCallBLAS("LAPACKsygv", LAPACKsygv_(&itype, "N", "L", &bm, A, &bm, B, &bm, w, &lwork_opt, &lwork, &info));
    PetscCall(PetscBLASIntCast(PetscMax((PetscInt)lwork_opt, 3 * m), &lwork));
    PetscCall(PetscMalloc1(lwork, &work));
    PetscCallBLAS("LAPACKsygv", LAPACKsygv_(&itype, "N", "L", &bm, A, &bm, B, &bm, w, work, &lwork, &info));
    PetscCall(PetscFree(work));
    PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "The ROM's eigenproblem for the stable step failed (sygv info %d): is the mass matrix positive definite on the coordinates with mass?",
               (int)info);
  }
  PetscCall(PetscMalloc1(PetscMax(m, 1), w_out));
  PetscCall(PetscArraycpy(*w_out, w, m));
  *m_out = m;
  PetscCall(PetscFree3(A, B, w));
  PetscCall(PetscFree2(dyn, cond));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *const VIContactStateNames[] = {"contacts open", "contacts closed: normal rows held", "contacts closed: boundary held"};

/* The largest frequency omega of the spectrum of VITimeStepSpectrum, and optionally the spectrum (m values, w, to free). */
static PetscErrorCode VITimeStepOmega(PetscInt n, const PetscReal K[], const PetscReal M[], const PetscInt kind[], PetscReal *omega, PetscInt *m,
                                      PetscReal **w)
{
  PetscInt   ml = 0;
  PetscReal *wl = NULL;

  PetscFunctionBeginUser;
  PetscCall(VITimeStepSpectrum(n, K, M, kind, &ml, &wl));
  *omega = ml > 0 ? PetscSqrtReal(PetscMax(wl[ml - 1], 0)) : 0;
  if (m) *m = ml;
  if (w)
    *w = wl;
  else
    PetscCall(PetscFree(wl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest frequency of a massless-boundary ROM with the boundary rows held as state says, the others condensed. */
PetscErrorCode VIStableStepMasslessOmega(const VIStableOperators *ops, const PetscBool friction[], VIContactState state, PetscReal *omega,
                                         PetscInt *m, PetscReal **w)
{
  PetscInt n = ops->n, *kind;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n, &kind));
  for (PetscInt i = 0; i < n; i++) kind[i] = i < ops->nb ? VI_ROW_CONDENSED : VI_ROW_DYNAMIC;
  for (PetscInt j = 0; j < ops->nc && state != VI_CONTACTS_OPEN; j++)
    for (PetscInt r = 0; r < ops->dims[j]; r++)
      if (r == 0 || state == VI_CONTACTS_ALL_HELD || (friction && friction[j])) kind[ops->offsets[j] + r] = VI_ROW_HELD;
  PetscCall(VITimeStepOmega(n, ops->K, ops->M, kind, omega, m, w));
  PetscCall(PetscFree(kind));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest frequency of a mass-carrying ROM, every row with its mass (contacts open). */
PetscErrorCode VIStableStepFullOmega(const VIStableOperators *ops, PetscReal *omega, PetscInt *m, PetscReal **w)
{
  PetscInt *kind;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(ops->n, &kind)); /* all VI_ROW_DYNAMIC */
  PetscCall(VITimeStepOmega(ops->n, ops->K, ops->M, kind, omega, m, w));
  PetscCall(PetscFree(kind));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* nsgalpha (seed 002), mixed (seed 001): generalized-alpha with rho_inf in [0, 1] and the other base schemes are
   unconditionally stable on the linear smooth part (Chung & Hulbert), second order; the impulsive part and the position
   correction add no step limit. */
PetscErrorCode VIStableStepUnconditional(VIStepper st, const VIStableOperators *ops, const PetscBool friction[], VIStableStep *s)
{
  PetscFunctionBeginUser;
  (void)st;
  (void)friction;
  PetscCall(VIStableStepFullOmega(ops, &s->omega_max, NULL, NULL));
  s->omega_open    = s->omega_max;
  s->state         = VI_CONTACTS_OPEN;
  s->unconditional = PETSC_TRUE;
  s->order         = 2;
  s->dt_stable     = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- options */

PetscErrorCode VIStepperTimeStepOptions(VIStepper st, PetscOptionItems *PetscOptionsObject, PetscReal *dt)
{
  VITimeStepCtl *ts = &st->ts;
  char           value[64];
  PetscBool      set;

  PetscFunctionBeginUser;
  ts->chosen = PETSC_FALSE;
  PetscCall(PetscSNPrintf(value, sizeof(value), "%s", ts->auto_dt ? "auto" : ""));
  if (!ts->auto_dt) PetscCall(PetscSNPrintf(value, sizeof(value), "%g", (double)*dt));
  PetscCall(PetscOptionsString("-step_dt",
                               "Time step, or auto: the stable step of the scheme on the ROM times -step_dt_safety (leapfrog, symmetric "
                               "moreau), or -step_points_per_period steps per period of the highest ROM frequency (theta-scheme)",
                               "VIStepperSetTimeStep", value, value, sizeof(value), &set));
  if (set) {
    PetscBool is_auto;
    PetscCall(PetscStrcasecmp(value, "auto", &is_auto));
    ts->auto_dt = is_auto;
    if (!is_auto) {
      char  *end;
      double v = strtod(value, &end);
      PetscCheck(end != value && *end == 0 && !PetscIsInfOrNanReal((PetscReal)v), PetscOptionsObject->comm, PETSC_ERR_USER_INPUT,
                 "-step_dt: '%s' is neither a number nor auto", value);
      *dt = (PetscReal)v;
    }
  }
  PetscCall(PetscOptionsReal("-step_dt_safety", "-step_dt auto: the step is this factor, in (0, 1], times the stability limit", "", ts->safety,
                             &ts->safety, NULL));
  PetscCall(PetscOptionsReal("-step_accuracy",
                             "Choose the step so that the estimated epsilon_RMS (seed 000 Eq. 30) of the outputs stays below this value, in (0, 1) "
                             "(step doubling with Richardson extrapolation over the first periods; never above the stable step)",
                             "", ts->accuracy, &ts->accuracy, &ts->accuracy_set));
  PetscCall(PetscOptionsReal("-step_accuracy_window",
                             "-step_accuracy: the time span of the trial runs (0: ten periods of the lowest ROM frequency, at most the whole run)",
                             "", ts->window, &ts->window, NULL));
  PetscCall(PetscOptionsString("-step_accuracy_output", "-step_accuracy: the ROM output whose error is estimated (default: all outputs together)", "",
                               ts->output, ts->output, sizeof(ts->output), NULL));
  PetscCall(PetscOptionsBool("-step_dt_stick",
                             "-step_dt auto: take frictional contacts whose obstacle slides as possibly sticking too (their tangential rows held: a "
                             "smaller, strict bound)",
                             "", ts->stick, &ts->stick, NULL));
  PetscCall(PetscOptionsInt("-step_points_per_period",
                            "-step_dt auto with the (unconditionally stable) theta-scheme: steps per period of the highest ROM frequency at or below "
                            "-step_frequency_cutoff",
                            "", ts->points, &ts->points, NULL));
  PetscCall(PetscOptionsReal("-step_frequency_cutoff",
                             "-step_dt auto with the theta-scheme: the highest frequency (Hz) to resolve (0: all of the ROM)", "", ts->cutoff,
                             &ts->cutoff, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperTimeStepCheck(VIStepper st, PetscReal dt, PetscReal t_end)
{
  VITimeStepCtl *ts = &st->ts;
  PetscBool      dt_set;

  PetscFunctionBeginUser;
  PetscCheck(ts->safety > 0 && ts->safety <= 1, st->comm, PETSC_ERR_USER_INPUT, "-step_dt_safety: got %g, expected a factor in (0, 1]",
             (double)ts->safety);
  PetscCheck((!ts->accuracy_set && ts->accuracy == 0) || (ts->accuracy > 0 && ts->accuracy < 1), st->comm, PETSC_ERR_USER_INPUT,
             "-step_accuracy: got %g, expected a relative error epsilon_RMS in (0, 1), e.g. 0.01", (double)ts->accuracy);
  PetscCheck(ts->window >= 0, st->comm, PETSC_ERR_USER_INPUT, "-step_accuracy_window: got %g, expected a positive time span (0: automatic)",
             (double)ts->window);
  PetscCheck(ts->points >= 2, st->comm, PETSC_ERR_USER_INPUT, "-step_points_per_period: got %" PetscInt_FMT ", expected at least 2", ts->points);
  PetscCheck(ts->cutoff >= 0, st->comm, PETSC_ERR_USER_INPUT, "-step_frequency_cutoff: got %g Hz, expected a positive frequency (0: none)",
             (double)ts->cutoff);
  PetscCall(PetscOptionsHasName(NULL, NULL, "-step_dt", &dt_set));
  PetscCheck(!ts->accuracy || ts->auto_dt || !dt_set, st->comm, PETSC_ERR_USER_INPUT,
             "-step_accuracy %g chooses the step: -step_dt must be auto or absent, got -step_dt %g", (double)ts->accuracy, (double)dt);
  if (ts->accuracy) ts->auto_dt = PETSC_TRUE;
  if (ts->auto_dt) {
    /* the step is known at set-up, from the ROM: the end time only now */
    PetscCheck(t_end > st->t0, st->comm, PETSC_ERR_USER_INPUT, "-step_end_time: got %g, expected a time after the start %g", (double)t_end,
               (double)st->t0);
    st->t_end = t_end;
  } else
    PetscCall(VIStepperSetTimeStep(st, dt, t_end));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- the step from accuracy */

/* One trial run of the case with step dt from the start to t_end, on a stepper of its own (same scheme, same system):
   the recorded outputs (column col, or all when col < 0) at every level; *failed when it blew up. Collective. */
static PetscErrorCode VITimeStepTrial(VIStepper st, PetscReal dt, PetscReal t_end, PetscInt col, PetscInt *nt, PetscInt *width, PetscReal **y,
                                      PetscBool *failed)
{
  VIStepper        sub;
  VIStepStats      stats;
  const PetscReal *out;
  PetscInt         n, w;

  PetscFunctionBeginUser;
  PetscCall(VIStepperCreate(st->comm, &sub));
  PetscCall(VIStepperSetType(sub, st->type));
  if (st->ops.copyoptions) PetscCall((*st->ops.copyoptions)(st, sub));
  sub->restitution      = st->restitution;
  sub->blowup_factor    = st->blowup_factor;
  sub->modal_allowed    = st->modal_allowed;
  sub->max_nonconverged = st->max_nonconverged;
  sub->t0               = st->t0;
  PetscCall(VIContactSolverSetFromOptions(sub->solver));
  PetscCall(VIStepperSetSystem(sub, st->sys));
  PetscCall(VIStepperSetTimeStep(sub, dt, t_end));
  PetscCall(VIStepperSetUp(sub));
  PetscCall(VIStepperRun(sub));
  PetscCall(VIStepperGetStats(sub, &stats));
  PetscCall(VIStepperGetSeries(sub, &n, NULL, &out, NULL, NULL, NULL));
  w = col >= 0 ? 1 : sub->nout;
  PetscCall(PetscMalloc1(PetscMax(n * w, 1), y));
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt o = 0; o < w; o++) (*y)[k * w + o] = out[k * sub->nout + (col >= 0 ? col : o)];
  *nt     = n;
  *width  = w;
  *failed = stats.failed;
  PetscCall(PetscInfo(NULL, "-step_accuracy trial: dt %g to t = %g, %" PetscInt_FMT " levels, %s\n", (double)dt, (double)t_end, n,
                      stats.failed ? stats.message : "ok"));
  PetscCall(VIStepperDestroy(&sub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscReal  dt;
  PetscInt   nt, width;
  PetscReal *y;
  PetscBool  failed;
} VITrial;

/* epsilon_RMS (seed 000 Eq. 30) of the coarse run against the run with half its step, at the coarse run's levels (every
   second level of the fine run); infinite when either failed. */
static PetscReal VITimeStepDifference(const VITrial *coarse, const VITrial *fine)
{
  PetscReal num = 0, den = 0;

  if (coarse->failed || fine->failed || fine->nt < 2 * (coarse->nt - 1) + 1) return PETSC_INFINITY;
  for (PetscInt k = 0; k < coarse->nt; k++)
    for (PetscInt o = 0; o < coarse->width; o++) {
      PetscReal a = coarse->y[k * coarse->width + o], b = fine->y[2 * k * fine->width + o];
      num += (a - b) * (a - b);
      den += b * b;
    }
  return den > 0 ? PetscSqrtReal(num / den) : (num > 0 ? PETSC_INFINITY : 0);
}

/* The observed order from the differences of three runs (steps dt, dt/2, dt/4), within [1/2, the scheme's order]: impacts
   lower the order of every scheme, and a pre-asymptotic ratio must not make the estimate optimistic. */
static PetscReal VITimeStepOrder(PetscReal d0, PetscReal d1, PetscInt order)
{
  PetscReal p = order;
  if (d0 > 0 && d1 > 0 && d0 < PETSC_INFINITY && d1 < PETSC_INFINITY) p = PetscLog2Real(d0 / d1);
  return PetscMin(PetscMax(p, 0.5), (PetscReal)order);
}

/* The largest step, at most cap, whose estimated epsilon_RMS over [t0, t0 + window] stays below eps: step halving from cap
   with Richardson's estimate e(h) = d(h) 2^p / (2^p - 1), d(h) the difference of the runs with h and h/2, p the observed
   order; then one step between the last two, from e ~ h^p, checked by its own pair of runs. Collective. */
static PetscErrorCode VITimeStepFromAccuracy(VIStepper st, PetscReal cap, PetscReal window, PetscInt order, PetscReal *dt, PetscReal *estimate,
                                             PetscReal *p_used)
{
  VITimeStepCtl *ts = &st->ts;
  VITrial        r[3];
  PetscInt       col = -1, nout, N;
  PetscReal      eps = ts->accuracy, t_end;
  PetscBool      linear;
  VISystemType   type;
  const PetscInt max_halvings = 12;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetNumOutputs(st->sys, &nout));
  PetscCall(VISystemIsLinear(st->sys, &linear));
  PetscCall(VISystemGetType(st->sys, &type));
  PetscCheck(nout > 0 || !linear, st->comm, PETSC_ERR_USER_INPUT,
             "-step_accuracy: the error is estimated on the ROM's outputs, and this ROM has none (reduce with -cms_outputs NODE:DIR,...)");
  PetscCheck(nout > 0, st->comm, PETSC_ERR_USER_INPUT,
             "-step_accuracy: the error is estimated on the system's outputs, and this system (-system_type %s) records none (a multibody model: "
             "its outputs: list, docs/multibody.md)",
             type);
  if (ts->output[0]) {
    for (PetscInt o = 0; o < nout && col < 0; o++) {
      const char *name;
      PetscBool   same;
      PetscCall(VISystemGetOutput(st->sys, o, &name, NULL));
      PetscCall(PetscStrcmp(name, ts->output, &same));
      if (same) col = o;
    }
    PetscCheck(col >= 0, st->comm, PETSC_ERR_USER_INPUT, "-step_accuracy_output: the %s has no output named '%s'", linear ? "ROM" : "system",
               ts->output);
  }
  /* the trial window: a whole number of cap steps, so that every halved step lands on the same end */
  N     = PetscMax((PetscInt)PetscFloorReal(window / cap + 1e-9), 4);
  t_end = st->t0 + N * cap;
  PetscCall(PetscMemzero(r, sizeof(r)));
  for (PetscInt i = 0; i < 3; i++) {
    r[i].dt = cap / PetscPowInt(2, i);
    PetscCall(VITimeStepTrial(st, r[i].dt, t_end, col, &r[i].nt, &r[i].width, &r[i].y, &r[i].failed));
  }
  for (PetscInt k = 0;; k++) {
    PetscReal d0 = VITimeStepDifference(&r[0], &r[1]), d1 = VITimeStepDifference(&r[1], &r[2]), p = VITimeStepOrder(d0, d1, order);
    PetscReal f = PetscPowReal(2, p) / (PetscPowReal(2, p) - 1), e0 = f * d0, e1 = f * d1;

    PetscCall(PetscInfo(NULL, "-step_accuracy: dt %g: estimate %g; dt %g: estimate %g (order %g)\n", (double)r[0].dt, (double)e0, (double)r[1].dt,
                        (double)e1, (double)p));
    *p_used = p;
    if (e0 <= eps) {
      *dt       = r[0].dt;
      *estimate = e0;
      break;
    }
    if (e1 <= eps) {
      /* between the two: e(h) ~ e0 (h / h0)^p */
      VITrial   a, b;
      PetscReal h = r[0].dt * PetscPowReal(eps / e0, 1 / p), ea;
      PetscInt  Nh;
      h  = PetscMin(PetscMax(h, r[1].dt), r[0].dt);
      Nh = PetscMax((PetscInt)PetscFloorReal(window / h + 1e-9), 4);
      PetscCall(PetscMemzero(&a, sizeof(a)));
      PetscCall(PetscMemzero(&b, sizeof(b)));
      a.dt = h;
      b.dt = h / 2;
      PetscCall(VITimeStepTrial(st, a.dt, st->t0 + Nh * h, col, &a.nt, &a.width, &a.y, &a.failed));
      PetscCall(VITimeStepTrial(st, b.dt, st->t0 + Nh * h, col, &b.nt, &b.width, &b.y, &b.failed));
      ea = f * VITimeStepDifference(&a, &b);
      PetscCall(PetscInfo(NULL, "-step_accuracy: between: dt %g: estimate %g\n", (double)h, (double)ea));
      if (ea <= eps) {
        *dt       = h;
        *estimate = ea;
      } else {
        *dt       = r[1].dt;
        *estimate = e1;
      }
      PetscCall(PetscFree(a.y));
      PetscCall(PetscFree(b.y));
      break;
    }
    PetscCheck(k < max_halvings, st->comm, PETSC_ERR_USER_INPUT,
               "-step_accuracy %g: not reached with steps down to %g s (estimated epsilon_RMS %g there): ask for a larger error, or a shorter "
               "-step_accuracy_window",
               (double)eps, (double)r[1].dt, (double)e1);
    PetscCall(PetscFree(r[0].y));
    r[0] = r[1];
    r[1] = r[2];
    PetscCall(PetscMemzero(&r[2], sizeof(r[2])));
    r[2].dt = r[1].dt / 2;
    PetscCall(VITimeStepTrial(st, r[2].dt, t_end, col, &r[2].nt, &r[2].width, &r[2].y, &r[2].failed));
  }
  for (PetscInt i = 0; i < 3; i++) PetscCall(PetscFree(r[i].y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- set-up */

/* The last step chosen from accuracy in this process, and what it depends on: the system's type and data (VISystemGetDataId:
   a ROM), the options (a case's parameters are options), the time span. The ensemble sets up its first case twice (the job's check, then the case)
   and the search would run twice; the same key gives the same step, the search being deterministic. */
static struct {
  const void *id;
  char        type[64];
  char       *options;
  PetscReal t0, t_end, dt, estimate;
  char      how[512];
} VITimeStepLast;

static PetscErrorCode VITimeStepMemoFree(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(VITimeStepLast.options));
  VITimeStepLast.id = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VITimeStepMemo(VIStepper st, PetscBool store, PetscReal *dt, PetscBool *found)
{
  char        *all;
  PetscBool    same = PETSC_FALSE, same_type = PETSC_FALSE;
  const void  *id;
  VISystemType type;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetDataId(st->sys, &id));
  PetscCall(VISystemGetType(st->sys, &type));
  PetscCall(PetscOptionsGetAll(NULL, &all));
  if (VITimeStepLast.options) PetscCall(PetscStrcmp(all, VITimeStepLast.options, &same));
  PetscCall(PetscStrcmp(type, VITimeStepLast.type, &same_type));
  same = same && same_type && VITimeStepLast.id == id && VITimeStepLast.t0 == st->t0 && VITimeStepLast.t_end == st->t_end ? PETSC_TRUE : PETSC_FALSE;
  *found = PETSC_FALSE;
  if (store) {
    if (!VITimeStepLast.options) PetscCall(PetscRegisterFinalize(VITimeStepMemoFree));
    PetscCall(PetscFree(VITimeStepLast.options));
    VITimeStepLast.options  = all;
    VITimeStepLast.id       = id;
    PetscCall(PetscStrncpy(VITimeStepLast.type, type, sizeof(VITimeStepLast.type)));
    VITimeStepLast.t0       = st->t0;
    VITimeStepLast.t_end    = st->t_end;
    VITimeStepLast.dt       = *dt;
    VITimeStepLast.estimate = st->ts.estimate;
    PetscCall(PetscStrncpy(VITimeStepLast.how, st->ts.how, sizeof(VITimeStepLast.how)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscFree(all));
  if (same) {
    *dt             = VITimeStepLast.dt;
    st->ts.estimate = VITimeStepLast.estimate;
    PetscCall(PetscStrncpy(st->ts.how, VITimeStepLast.how, sizeof(st->ts.how)));
    *found = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stability analysis's view of the system through its interface: sizes, K and M (a nonlinear system: K = 0 and M at its
   initial q, as VIStepperSetUp's generic code sees it; work holds them, to free), the contacts' rows. */
static PetscErrorCode VIStableOperatorsFromSystem(VISystem sys, VIStableOperators *ops, PetscReal **work)
{
  PetscBool linear;

  PetscFunctionBeginUser;
  *work = NULL;
  PetscCall(VISystemSetUp(sys));
  PetscCall(VISystemGetSizes(sys, &ops->n, &ops->nb, NULL));
  PetscCall(VISystemGetContacts(sys, &ops->nc, NULL, &ops->dims, &ops->offsets));
  PetscCall(VISystemIsLinear(sys, &linear));
  if (linear)
    PetscCall(VISystemGetLinearOperators(sys, &ops->K, &ops->M, NULL));
  else {
    const PetscReal *q0, *u0;
    PetscCall(PetscCalloc1(2 * ops->n * ops->n, work));
    PetscCall(VISystemGetInitialState(sys, &q0, &u0));
    PetscCall(VISystemComputeMass(sys, q0, *work + ops->n * ops->n));
    ops->K = *work;
    ops->M = *work + ops->n * ops->n;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same from a ROM file (vicms info): its matrices and contact table (dims_offsets holds the contacts' rows, to free). */
static PetscErrorCode VIStableOperatorsFromROM(VIROM rom, VIStableOperators *ops, PetscInt **dims_offsets)
{
  PetscInt             nb, nm;
  PetscReal           *K, *M, *D;
  const VIContactInfo *contacts;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetSizes(rom, &nb, &nm));
  PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
  PetscCall(VIROMGetContacts(rom, &ops->nc, &contacts));
  PetscCall(PetscMalloc1(2 * PetscMax(ops->nc, 1), dims_offsets));
  for (PetscInt j = 0; j < ops->nc; j++) {
    (*dims_offsets)[j]           = contacts[j].dim;
    (*dims_offsets)[ops->nc + j] = contacts[j].offset;
  }
  ops->n       = nb + nm;
  ops->nb      = nb;
  ops->K       = K;
  ops->M       = M;
  ops->dims    = *dims_offsets;
  ops->offsets = *dims_offsets + ops->nc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The highest frequency (Hz) of the mass-carrying ROM at or below the cut-off (0: none), and the lowest positive one. */
static PetscErrorCode VITimeStepFrequencies(VIStepper st, const VIStableOperators *ops, PetscReal cutoff, PetscReal *f_high, PetscReal *f_low)
{
  PetscInt   m;
  PetscReal *w, omega;

  PetscFunctionBeginUser;
  PetscCall(VIStableStepFullOmega(ops, &omega, &m, &w));
  *f_high = *f_low = 0;
  for (PetscInt k = 0; k < m; k++) {
    PetscReal f = PetscSqrtReal(PetscMax(w[k], 0)) / (2 * PETSC_PI);
    if (f <= 1e-6 * omega / (2 * PETSC_PI)) continue; /* rigid-body modes (a free-floating ROM) */
    if (*f_low == 0) *f_low = f;
    if (cutoff == 0 || f <= cutoff) *f_high = f;
  }
  PetscCall(PetscFree(w));
  PetscCheck(*f_high > 0, st->comm, PETSC_ERR_USER_INPUT,
             "-step_dt auto: the ROM has no natural frequency at or below -step_frequency_cutoff %g Hz (its lowest is %g Hz): raise the cut-off",
             (double)cutoff, (double)*f_low);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperTimeStepSetUp(VIStepper st)
{
  VITimeStepCtl    *ts  = &st->ts;
  VISystem          sys = st->sys;
  VIContactSet      set;
  const PetscReal  *obstacle_v;
  PetscBool        *friction;
  VIStableOperators sops;
  PetscReal        *swork = NULL;
  PetscReal         dt, cap, span = st->t_end - st->t0;
  char              name[64];
  PetscBool         found = PETSC_FALSE, linear;
  VISystemType      type;

  PetscFunctionBeginUser;
  if (!ts->auto_dt) PetscFunctionReturn(PETSC_SUCCESS);
  if (ts->chosen) {
    /* chosen for this stepper's options already (a second set-up, a checkpoint's) */
    PetscCall(VIStepperSetTimeStep(st, ts->dt, st->t_end));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VISystemGetContactSet(sys, &set, &obstacle_v));
  PetscCall(PetscMalloc1(PetscMax(set.num_contacts, 1), &friction));
  /* a frictional contact can stick only where its obstacle stands still, unless -step_dt_stick (see the top) */
  for (PetscInt j = 0; j < set.num_contacts; j++) {
    PetscBool sliding = obstacle_v[2 * j] != 0 || obstacle_v[2 * j + 1] != 0 ? PETSC_TRUE : PETSC_FALSE;
    friction[j]       = set.dims[j] > 1 && set.mu[j] > 0 && (!sliding || ts->stick) ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCheck(st->ops.stablestep, PETSC_COMM_SELF, PETSC_ERR_SUP, "-step_dt auto: no stability analysis for -step_type %s", st->type);
  PetscCall(PetscMemzero(&ts->stable, sizeof(ts->stable)));
  PetscCall(VIStableOperatorsFromSystem(sys, &sops, &swork));
  PetscCall(VISystemIsLinear(sys, &linear));
  PetscCall(VISystemGetType(sys, &type));
  PetscCall((*st->ops.stablestep)(st, &sops, friction, &ts->stable));
  PetscCall(PetscFree(friction));
  PetscCall(VIStepperDescribe(st, name, sizeof(name)));
  ts->estimate = 0;
  if (!ts->stable.unconditional) {
    PetscCheck(ts->stable.omega_max > 0, st->comm, PETSC_ERR_USER_INPUT,
               "-step_dt auto: %s on this ROM has no stability limit to take (no coordinate with mass and stiffness: omega_max = 0); give -step_dt",
               name);
    dt = ts->safety * ts->stable.dt_stable;
    PetscCall(PetscSNPrintf(ts->how, sizeof(ts->how), "%.6g s = %g x the stability limit %.6g s of %s (omega_max = %.6g rad/s, %s)", (double)dt,
                            (double)ts->safety, (double)ts->stable.dt_stable, name, (double)ts->stable.omega_max,
                            VIContactStateNames[ts->stable.state]));
  } else if (!linear) {
    /* a nonlinear system has no natural frequencies of its own (a multibody model: K = 0 in the stability operators); the
       step comes from -step_accuracy on its outputs, or is given */
    PetscCheck(ts->accuracy > 0, st->comm, PETSC_ERR_USER_INPUT,
               "-step_dt auto: %s is unconditionally stable and takes its step from the system's natural frequencies, and this system "
               "(-system_type %s) is nonlinear, without any: give -step_dt, or -step_accuracy EPS (the step from the error on its outputs)",
               name, type);
    dt = span;
    PetscCall(PetscSNPrintf(ts->how, sizeof(ts->how), "none from frequencies (%s is unconditionally stable, the system nonlinear)", name));
  } else {
    PetscReal f_high = 0, f_low = 0;
    PetscCall(VITimeStepFrequencies(st, &sops, ts->cutoff, &f_high, &f_low));
    dt = 1 / (ts->points * f_high);
    PetscCall(PetscSNPrintf(ts->how, sizeof(ts->how),
                            "%.6g s = %" PetscInt_FMT " steps per period of %.6g Hz, the highest ROM frequency%s (%s is unconditionally stable: the "
                            "step comes from accuracy, -step_points_per_period, -step_frequency_cutoff)",
                            (double)dt, ts->points, (double)f_high, ts->cutoff > 0 ? " below the cut-off" : "", name));
  }
  PetscCall(PetscFree(swork));
  if (ts->accuracy > 0) PetscCall(VITimeStepMemo(st, PETSC_FALSE, &dt, &found));
  if (ts->accuracy > 0 && !found) {
    PetscReal window = ts->window, f1 = 0, p = 0;
    char      how[256];
    PetscCall(VISystemGetLowestFrequency(sys, &f1));
    if (window == 0) window = f1 > 0 ? PetscMin(span, 10 / f1) : span;
    window = PetscMin(window, span);
    cap    = dt;
    if (ts->stable.unconditional) {
      /* no limit: start coarse, four steps per period of the lowest frequency, at least eight steps in the window */
      cap = f1 > 0 ? 1 / (4 * f1) : window / 8;
      cap = PetscMin(cap, window / 8);
    }
    PetscCall(VITimeStepFromAccuracy(st, cap, window, ts->stable.order, &dt, &ts->estimate, &p));
    PetscCall(PetscStrncpy(how, ts->how, sizeof(how)));
    PetscCall(PetscSNPrintf(ts->how, sizeof(ts->how),
                            "%.6g s from -step_accuracy %g: estimated epsilon_RMS %.3g over [%g, %g] (step halving from %.6g s, Richardson with "
                            "order %.2g); the automatic step was %s",
                            (double)dt, (double)ts->accuracy, (double)ts->estimate, (double)st->t0, (double)(st->t0 + window), (double)cap, (double)p,
                            how));
    PetscCall(VITimeStepMemo(st, PETSC_TRUE, &dt, &found));
  }
  /* every rank of the group takes the step of its first rank (the computation is rank-local on replicated data) */
  PetscCallMPI(MPI_Bcast(&dt, 1, MPIU_REAL, 0, st->comm));
  PetscCallMPI(MPI_Bcast(&ts->estimate, 1, MPIU_REAL, 0, st->comm));
  PetscCheck(dt <= span, st->comm, PETSC_ERR_USER_INPUT,
             "-step_dt auto: the step %g s is longer than the run (%g s, -step_start_time %g to -step_end_time %g)", (double)dt, (double)span,
             (double)st->t0, (double)st->t_end);
  PetscCall(VIStepperSetTimeStep(st, dt, st->t_end));
  ts->dt     = dt;
  ts->chosen = PETSC_TRUE;
  PetscCall(PetscInfo(NULL, "-step_dt auto: %s\n", ts->how));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperGetTimeStepInfo(VIStepper st, VITimeStepInfo *info)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->dt = st->dt;
  if (st->ts.chosen) {
    info->automatic = PETSC_TRUE;
    info->dt_stable = st->ts.stable.dt_stable;
    info->omega_max = st->ts.stable.omega_max;
    info->accuracy  = st->ts.accuracy;
    info->estimate  = st->ts.estimate;
    PetscCall(PetscStrncpy(info->how, st->ts.how, sizeof(info->how)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frequencies (Hz) of the worst state, the highest few, on one line. */
static PetscErrorCode VITimeStepViewHighest(PetscViewer viewer, const char what[], PetscInt m, const PetscReal w[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "    highest frequencies, %s [Hz]:", what));
  for (PetscInt k = m - 1; k >= 0 && k >= m - 5; k--)
    PetscCall(PetscViewerASCIIPrintf(viewer, " %.6g", (double)(PetscSqrtReal(PetscMax(w[k], 0)) / (2 * PETSC_PI))));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperViewStableSteps(VIROM rom, PetscViewer viewer)
{
  PetscBool         massless;
  PetscInt          m, *dims_offsets;
  PetscReal        *w, omega;
  VIStableOperators sops, *rom_ops = &sops;

  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_SELF, &viewer));
  PetscCall(VIROMGetMethod(rom, NULL, &massless));
  PetscCall(VIStableOperatorsFromROM(rom, &sops, &dims_offsets));
  if (massless) {
    PetscBool tangents = PETSC_FALSE;
    for (PetscInt j = 0; j < sops.nc; j++)
      if (sops.dims[j] > 1) tangents = PETSC_TRUE;
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "  stable step of leapfrog (seed 000 §2), dt <= 2 / omega_max of the inner coordinates (-step_dt auto takes "
                                     "-step_dt_safety times the worst case):\n"));
    PetscCall(VIStableStepMasslessOmega(rom_ops, NULL, VI_CONTACTS_ALL_HELD, &omega, &m, &w));
    PetscCall(PetscViewerASCIIPrintf(viewer, "    boundary held (contacts closed%s): %.6g s (omega_max %.6g rad/s)\n",
                                     tangents ? ", friction sticking" : "", (double)(omega > 0 ? 2 / omega : 0), (double)omega));
    PetscCall(VITimeStepViewHighest(viewer, "boundary held", m, w));
    PetscCall(PetscFree(w));
    if (tangents) {
      PetscCall(VIStableStepMasslessOmega(rom_ops, NULL, VI_CONTACTS_NORMAL_HELD, &omega, NULL, NULL));
      PetscCall(PetscViewerASCIIPrintf(viewer, "    normal rows held (contacts closed, frictionless): %.6g s (omega_max %.6g rad/s)\n",
                                       (double)(omega > 0 ? 2 / omega : 0), (double)omega));
    }
    PetscCall(VIStableStepMasslessOmega(rom_ops, NULL, VI_CONTACTS_OPEN, &omega, NULL, NULL));
    PetscCall(PetscViewerASCIIPrintf(viewer, "    contacts open (boundary condensed): %.6g s (omega_max %.6g rad/s)\n",
                                     (double)(omega > 0 ? 2 / omega : 0), (double)omega));
  } else {
    PetscCall(VIStableStepFullOmega(rom_ops, &omega, &m, &w));
    PetscCall(PetscViewerASCIIPrintf(
        viewer,
        "  stable step of the symmetric moreau scheme (seed 000 App. B), contacts open: dt <= 2 / omega_max = %.6g s (omega_max "
        "%.6g rad/s); the theta-scheme is unconditionally stable\n",
        (double)(omega > 0 ? 2 / omega : 0), (double)omega));
    PetscCall(VITimeStepViewHighest(viewer, "contacts open", m, w));
    PetscCall(PetscFree(w));
  }
  PetscCall(PetscFree(dims_offsets));
  PetscFunctionReturn(PETSC_SUCCESS);
}
