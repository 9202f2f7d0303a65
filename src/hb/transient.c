/* Stability of a harmonic balance solution by a transient of the case's own time stepping started from it. */
#include "hbimpl.h"

/*
  The criteria on the Poincare states x_k = (q, v) at t = k T, with d_k = |x_k - x_{k-1}| and e_k = |x_k - x_0| in the
  energy norm of the ROM (q^T K q + v^T M v)^(1/2), relative to |x_0|:
  - VI_TRANSIENT_NEAR: the motion has left the solution when e_k exceeds it (stability.c's VI_FLOQUET_NEAR: half the
    solution's own size is far beyond the truncation error of a converged series, a few 1e-3 on the impact cases);
  - VI_TRANSIENT_SETTLED: the motion has settled on a periodic orbit when d_k falls below it: 1e-6 is four decades under
    the first period's departure of the stop oscillators (the series' truncation, 1e-3 to 1e-2), and four above the
    floor of the stepping's contact solves (their tolerance 1e-10 and the round-off of the period map);
  - VI_TRANSIENT_SAME, VI_TRANSIENT_DRIFT: a motion that settles within max(SAME, DRIFT e_1) of the solution settled on
    the orbit the series approximates (stable); one that settles farther drifted away to another orbit (unstable: the
    start lies within the series' truncation of the solution's orbit, which would have attracted it were it stable).
    On the stop oscillator of tests/app/hb.sh the settled orbits lie 0.002 to 0.02 from the solutions, while next to
    the upper turning point the motion started from an unstable solution (multiplier 1.02-1.05, e_1 ~ 0.004) settles
    after 270-350 periods on the other branch's orbit, 0.2-0.46 away. On the mass-carrying impact oscillator the
    series places a stable orbit less well (its contact coordinate's velocity, the orbit's phase): settled orbits lie
    up to 0.2 away, within 4-6 times their first period's distance e_1, hence the factor 10;
  - VI_TRANSIENT_GROWN: the departure has grown consistently when the largest d over the last VI_TRANSIENT_WINDOW
    periods is this factor above the smallest such maximum so far: a perturbation of a stable orbit does not gain two
    decades of energy-norm distance (the energy norm makes the smooth part of the motion normal: without forcing its
    energy only decays), and windowed maxima ignore the dips of a cycle;
  - VI_TRANSIENT_BOUNDED: after this many windows, a motion that stayed within max(SAME, DRIFT e_1) over the last two
    windows and whose largest d over the last window is not above the window before's is stable: Moreau's closing
    instants are quantized to the time grid, and on the mass-carrying impact oscillator the motion ends on a cycle of
    5 to 23 periods (d ~ 1e-3, not periodic to 1e-6) near the solution;
  - VI_TRANSIENT_WINDOW: the multiplier's modulus of a settling motion is the geometric mean of d_{k+1} / d_k over the
    last this many periods, (d_k / d_{k-W})^(1/W): over 16 periods the beat of a complex pair (whose departure is not
    monotonic from one period to the next) averages out, and the fast modes excited by the start have decayed;
  - VI_TRANSIENT_GROWTH_WINDOW, VI_TRANSIENT_LINEAR: that of a departing motion is the largest such mean over 8 periods
    among the windows that end before d_k exceeds 0.05, where the departure is still small enough for the linearization
    (on the stop oscillator's unstable points the ratios climb for 5-10 periods as the start's decaying components
    vanish, then fall once the departure changes the contact pattern: the largest 8-period mean is within 6 % of the
    exact multiplier, the last 16-period mean within 9 %).
*/
#define VI_TRANSIENT_NEAR          0.5
#define VI_TRANSIENT_SAME          0.05
#define VI_TRANSIENT_SETTLED       1e-6
#define VI_TRANSIENT_GROWN         100
#define VI_TRANSIENT_WINDOW        16
#define VI_TRANSIENT_GROWTH_WINDOW 8
#define VI_TRANSIENT_DRIFT         10
#define VI_TRANSIENT_BOUNDED       4
#define VI_TRANSIENT_LINEAR        0.05
/* the stepper's monitor runs every 64 steps: a period is a multiple of it */
#define VI_TRANSIENT_MONITOR_EVERY 64

typedef struct {
  PetscInt         n, spp, periods, p; /* p: the last period reached */
  const PetscReal *K, *M;
  PetscReal       *x0, *xp, *dx, *d, *e, *m, norm0, mmin, e1;
  PetscInt         verdict; /* -1 undecided, 0 unstable, 1 stable */
  char             why[320];
} VITransientCtx;

/* (dq^T K dq + dv^T M dv)^(1/2) of x - y (q then v, n each) */
static PetscReal VITransientNorm(VITransientCtx *c, const PetscReal x[], const PetscReal y[])
{
  const PetscInt n = c->n;
  PetscReal      s = 0;

  for (PetscInt i = 0; i < 2 * n; i++) c->dx[i] = x[i] - (y ? y[i] : 0);
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt l = 0; l < n; l++) s += c->K[i * n + l] * c->dx[i] * c->dx[l] + c->M[i * n + l] * c->dx[n + i] * c->dx[n + l];
  return PetscSqrtReal(PetscMax(s, 0));
}

/* The dominant multiplier's modulus from d_1..d_p. A motion that settles: the geometric mean of the ratios over the last
   VI_TRANSIENT_WINDOW periods (the slowest decay, the others gone). A motion that departs: the largest geometric mean
   over VI_TRANSIENT_GROWTH_WINDOW periods among the windows whose departures stay below VI_TRANSIENT_LINEAR (after the
   decaying components of the start, before the departure is large enough to change the contact pattern). -1 with fewer
   than two periods. */
static PetscReal VITransientMultiplier(VITransientCtx *c)
{
  PetscInt  end = c->p, start;
  PetscReal mu  = -1;

  while (end > 1 && c->d[end] > VI_TRANSIENT_LINEAR) end--;
  if (c->verdict == 0) {
    const PetscInt w = PetscMin(VI_TRANSIENT_GROWTH_WINDOW, end - 1);
    for (PetscInt k = 1 + w; w > 0 && k <= end; k++)
      if (c->d[k - w] > 0) mu = PetscMax(mu, PetscPowReal(c->d[k] / c->d[k - w], 1.0 / w));
    return mu;
  }
  start = PetscMax(1, end - VI_TRANSIENT_WINDOW);
  if (end <= start || !(c->d[start] > 0)) return -1;
  return PetscPowReal(c->d[end] / c->d[start], 1.0 / (end - start));
}

/* At every period's end: the Poincare state, the distances, the verdict (the run stopped once it is reached). */
static PetscErrorCode VITransientMonitor(VIStepper st, PetscReal t, void *ctx)
{
  VITransientCtx  *c = (VITransientCtx *)ctx;
  const PetscReal *q, *u;
  const int        W = VI_TRANSIENT_WINDOW;
  PetscInt         level, p;
  PetscReal        d, e, near, *x;

  PetscFunctionBeginUser;
  (void)t;
  PetscCall(VIStepperGetLevel(st, &level, NULL));
  if (level % c->spp) PetscFunctionReturn(PETSC_SUCCESS);
  p = level / c->spp;
  PetscCall(VIStepperGetState(st, &q, &u));
  x = p ? c->dx + 2 * c->n : c->x0;
  PetscCall(PetscArraycpy(x, q, c->n));
  PetscCall(PetscArraycpy(x + c->n, u, c->n));
  if (p == 0) {
    c->norm0 = VITransientNorm(c, c->x0, NULL);
    PetscCall(PetscArraycpy(c->xp, c->x0, 2 * c->n));
    if (!(c->norm0 > 0)) {
      PetscCall(PetscSNPrintf(c->why, sizeof(c->why), "the solution's state at t = 0 is zero in the energy norm"));
      PetscCall(VIStepperStop(st));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  c->p    = p;
  d       = VITransientNorm(c, x, c->xp) / c->norm0;
  e       = VITransientNorm(c, x, c->x0) / c->norm0;
  c->d[p] = d;
  c->e[p] = e;
  if (p == 1) c->e1 = e;
  near = PetscMax(VI_TRANSIENT_SAME, VI_TRANSIENT_DRIFT * c->e1);
  PetscCall(PetscArraycpy(c->xp, x, 2 * c->n));
  /* m[p]: the largest departure per period over the last window (a cycle of the stepping's grid keeps it constant) */
  if (p >= W) {
    c->m[p] = 0;
    for (PetscInt k = p - W + 1; k <= p; k++) c->m[p] = PetscMax(c->m[p], c->d[k]);
    c->mmin = p == W ? c->m[p] : PetscMin(c->mmin, c->m[p]);
  }
  if (!(e <= VI_TRANSIENT_NEAR)) { /* NaN included */
    c->verdict = 0;
    PetscCall(
        PetscSNPrintf(c->why, sizeof(c->why), "the motion left the solution: %g of it (energy norm) after %" PetscInt_FMT " periods", (double)e, p));
  } else if (d <= VI_TRANSIENT_SETTLED) {
    c->verdict = e <= near ? 1 : 0;
    PetscCall(PetscSNPrintf(c->why, sizeof(c->why),
                            "the motion settled on a periodic orbit %g from the solution (%g after the first period) after %" PetscInt_FMT
                            " periods%s",
                            (double)e, (double)c->e1, p, c->verdict ? "" : ": it drifted away to another orbit"));
  } else if (p >= W && c->m[p] >= VI_TRANSIENT_GROWN * c->mmin) {
    c->verdict = 0;
    PetscCall(PetscSNPrintf(c->why, sizeof(c->why),
                            "the largest departure per period over %d periods grew %g-fold from its smallest, to %g, after %" PetscInt_FMT " periods",
                            W, (double)(c->m[p] / c->mmin), (double)c->m[p], p));
  } else if (p >= VI_TRANSIENT_BOUNDED * W && c->m[p] <= c->m[p - W]) {
    PetscBool stays = PETSC_TRUE;
    for (PetscInt k = p - 2 * W + 1; k <= p; k++) stays = (PetscBool)(stays && c->e[k] <= near);
    if (stays) {
      c->verdict = 1;
      PetscCall(PetscSNPrintf(c->why, sizeof(c->why),
                              "the motion stays within %g of the solution over the last %d periods, its departure per period bounded (at most %g, "
                              "not growing) after %" PetscInt_FMT " periods",
                              (double)near, 2 * W, (double)c->m[p], p));
    }
  }
  if (c->verdict >= 0) PetscCall(VIStepperStop(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIHBStabilityTransient - the approach of Colaitis & Batailly (2021) for blade-tip/casing contact: the case's own time
  stepping is started from the harmonic balance state at t = 0 (q(0) = a0 + sum_h a_h, v(0) = sum_h h Omega b_h of every
  ROM coordinate) with the case driven at Omega (its load and gap functions played Omega / (2 pi f_case) times faster,
  VISystemSetTimeScale), and the period map is sampled at t = k T. Where the motion stays near the solution and the
  distance between consecutive periods falls below VI_TRANSIENT_SETTLED, it has settled on the periodic orbit the series
  approximates, or where it stays near the solution with a bounded departure per period (a cycle of the time grid):
  stable. Where it leaves the solution, drifts to another orbit, or the departure keeps growing: unstable. The
  dominant Floquet multiplier's modulus is estimated from the decay or growth of that distance. Undecided (*stable -1)
  after -hb_stability_periods periods (a multiplier near 1, near turning points) or where the run fails.

  The scheme is the case's: leapfrog for a massless boundary; Moreau with restitution 0 for a mass-carrying one (the
  dynamic Lagrangian's closed intervals are plastic contacts: a contact that closes stays closed, without rebound, until
  its force vanishes). The step is the stepper's automatic one or finer: T over a multiple of 64 steps, at least N (the
  samples of the harmonic balance), or -hb_stability_steps. Every rank of hb->comm runs the same stepping (bitwise
  identical states, so the same verdict). The case is restored afterwards (time scale 1, its -init state).
*/
PetscErrorCode VIHBStabilityTransient(VIHB hb, PetscReal omega, PetscReal *mu, PetscInt *stable, VIHBStabilityMethod *method)
{
  const PetscInt  n = hb->n, nh = hb->nh;
  const PetscReal T    = 2 * PETSC_PI / omega;
  VIStepperType   type = hb->massless ? VISTEPPERLEAPFROG : VISTEPPERMOREAU;
  VIStepper       st;
  VIStepStats     stats;
  VITransientCtx  c;
  PetscReal      *q0, *v0;

  PetscFunctionBeginUser;
  *mu     = -1;
  *stable = -1;
  *method = VI_HB_STABILITY_TRANSIENT;
  PetscCall(PetscMemzero(&c, sizeof(c)));
  c.n       = n;
  c.periods = hb->stability_periods;
  c.verdict = -1;
  /* the harmonic balance state at t = 0 */
  PetscCall(VIHBRecover(hb, hb->X, hb->q));
  PetscCall(PetscCalloc2(n, &q0, n, &v0));
  for (PetscInt i = 0; i < n; i++) {
    q0[i] = hb->q[i];
    for (PetscInt h = 1; 2 * h < nh; h++) {
      q0[i] += hb->q[(2 * h - 1) * n + i];
      v0[i] += h * omega * hb->q[2 * h * n + i];
    }
  }
  PetscCall(VISystemSetTimeScale(hb->sys, omega / (2 * PETSC_PI * hb->f_case)));
  PetscCall(VISystemSetInitialState(hb->sys, q0, v0));
  /* the stepper's automatic step (a property of the ROM and scheme, found once) */
  if (!hb->stability_steps && !hb->tr_dt_auto) {
    PetscCall(VIStepperCreate(hb->comm, &st));
    PetscCall(VIStepperSetSystem(st, hb->sys));
    PetscCall(VIStepperSetType(st, type));
    PetscCall(VIStepperSetTimeStep(st, PETSC_DETERMINE, c.periods * T));
    PetscCall(VIStepperSetUp(st));
    PetscCall(VIStepperGetTimeStep(st, &hb->tr_dt_auto, NULL));
    PetscCall(VIStepperDestroy(&st));
  }
  c.spp = hb->stability_steps;
  if (!c.spp) {
    const PetscInt m = VI_TRANSIENT_MONITOR_EVERY;
    c.spp            = PetscMax(hb->N, (PetscInt)PetscCeilReal(T / hb->tr_dt_auto - 1e-9));
    c.spp            = m * ((c.spp + m - 1) / m);
  }
  PetscCall(PetscMalloc3(2 * n, &c.x0, 2 * n, &c.xp, 4 * n, &c.dx));
  PetscCall(PetscCalloc3(c.periods + 1, &c.d, c.periods + 1, &c.e, c.periods + 1, &c.m));
  PetscCall(VIStepperCreate(hb->comm, &st));
  PetscCall(VIStepperSetSystem(st, hb->sys));
  PetscCall(VIStepperSetType(st, type));
  PetscCall(VIStepperSetTimeStep(st, T / c.spp, c.periods * T));
  PetscCall(VIStepperSetOutputEvery(st, PETSC_MAX_INT)); /* the first and last levels: the run's records are not used */
  PetscCall(VIStepperSetMonitor(st, VITransientMonitor, &c));
  PetscCall(VIStepperSetUp(st));
  PetscCall(VISystemGetLinearOperators(hb->sys, &c.K, &c.M, NULL));
  PetscCall(VIStepperRun(st));
  PetscCall(VIStepperGetStats(st, &stats));
  PetscCall(VIStepperDestroy(&st));
  /* the case as it was (the stepper's set-up reused the system's arrays: VISystemSetUp is done once) */
  PetscCall(VISystemSetTimeScale(hb->sys, 1));
  PetscCall(VISystemSetInitialState(hb->sys, NULL, NULL));
  hb->tr_runs++;
  hb->tr_spp_min = hb->tr_runs == 1 ? c.spp : PetscMin(hb->tr_spp_min, c.spp);
  hb->tr_spp_max = PetscMax(hb->tr_spp_max, c.spp);
  hb->tr_steps += stats.steps;

  if (stats.failed) {
    PetscCall(PetscInfo(NULL, "hb: %g Hz: stability not decided: the time stepping failed after %" PetscInt_FMT " periods: %s\n",
                        (double)(omega / (2 * PETSC_PI)), c.p, stats.message));
  } else {
    *stable = c.verdict;
    *mu     = VITransientMultiplier(&c);
    if (c.verdict < 0 && !c.why[0])
      PetscCall(PetscSNPrintf(c.why, sizeof(c.why),
                              "undecided after %" PetscInt_FMT " periods: the departure per period is %g at %g from the solution, neither settled "
                              "(below %g) nor grown %g-fold nor bounded near the solution (a multiplier near 1, or a slow drift)",
                              c.p, (double)(c.p ? c.d[c.p] : 0), (double)(c.p ? c.e[c.p] : 0), (double)VI_TRANSIENT_SETTLED,
                              (double)VI_TRANSIENT_GROWN));
    PetscCall(PetscInfo(NULL, "hb: %g Hz: transient (%s, %" PetscInt_FMT " steps per period): %s; multiplier %g\n", (double)(omega / (2 * PETSC_PI)),
                        type, c.spp, c.why, (double)*mu));
  }
  PetscCall(PetscFree3(c.x0, c.xp, c.dx));
  PetscCall(PetscFree3(c.d, c.e, c.m));
  PetscCall(PetscFree2(q0, v0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
