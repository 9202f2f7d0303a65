/* Unit test of VIExcitation: closed forms, derivatives against finite differences, sweep frequency and timing (seed 000
   §5.2), bump placement, noise reproducibility, RMS and band, options and their errors without leaks. */
#include <vicms/excite.h>
#include <petscviewer.h>
#include <string.h>

static const char help[] = "Unit test of the excitation object\n";

#define F_REF   278.0 /* Hz, the reference frequency of the sweeps */
#define PERCENT 1.5
#define PERIODS 100.0

static char Captured[4096];

/* Keeps the first message of the error where it arose, and returns the error like PetscReturnErrorHandler. */
static PetscErrorCode CaptureError(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess,
                                   void *ctx)
{
  (void)comm;
  (void)line;
  (void)func;
  (void)file;
  (void)ctx;
  if (p == PETSC_ERROR_INITIAL && !Captured[0]) snprintf(Captured, sizeof(Captured), "%s", mess ? mess : "");
  return n;
}

/* |got - want| <= tol * scale, printed. */
static PetscErrorCode CheckClose(const char what[], PetscReal got, PetscReal want, PetscReal scale, PetscReal tol)
{
  PetscReal err = PetscAbsReal(got - want) / scale;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-52s %.17g (expected %.17g): error %.2e (tolerance %.0e)\n", what, (double)got, (double)want,
                        (double)err, (double)tol));
  PetscCheck(err <= tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: got %.17g, expected %.17g, relative error %.3e > %.1e", what, (double)got,
             (double)want, (double)err, (double)tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The call returned ierr; it must have failed with a message that contains needle. */
static PetscErrorCode CheckFailed(const char what[], PetscErrorCode ierr, const char needle[])
{
  PetscFunctionBeginUser;
  PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: succeeded, expected an error", what);
  PetscCheck(strstr(Captured, needle), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the message \"%s\" does not name %s", what, Captured, needle);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-52s error %d as expected: %s\n", what, (int)ierr, Captured));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define EXPECT_ERROR(call, needle)                                                                                                                   \
  do {                                                                                                                                               \
    PetscErrorCode ierr_;                                                                                                                            \
    Captured[0] = 0;                                                                                                                                 \
    PetscCall(PetscPushErrorHandler(CaptureError, NULL));                                                                                            \
    ierr_ = (call);                                                                                                                                  \
    PetscCall(PetscPopErrorHandler());                                                                                                               \
    PetscCall(CheckFailed(#call, ierr_, needle));                                                                                                    \
  } while (0)

/* kv: name, value, name, value, ..., NULL (a NULL value for a flag) */
static PetscErrorCode SetOptions(const char *const kv[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; kv[i]; i += 2) PetscCall(PetscOptionsSetValue(NULL, kv[i], kv[i + 1] && kv[i + 1][0] ? kv[i + 1] : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ClearOptions(const char *const kv[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; kv[i]; i += 2) PetscCall(PetscOptionsClearValue(NULL, kv[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An excitation made from options only (prefix pre), the options removed afterwards. */
static PetscErrorCode FromOptions(const char pre[], const char *const kv[], VIExcitation *e)
{
  PetscFunctionBeginUser;
  PetscCall(SetOptions(kv));
  PetscCall(VIExcitationCreate(PETSC_COMM_WORLD, e));
  PetscCall(VIExcitationSetOptionsPrefix(*e, pre));
  PetscCall(VIExcitationSetFromOptions(*e));
  PetscCall(ClearOptions(kv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ closed forms */

static PetscErrorCode TestClosedForms(void)
{
  VIExcitation    e;
  const PetscReal ts[] = {0, 0.01, 0.123, 1.7, -0.4}, f = 7.5, phase = 0.3, off = 0.5, A = 2, omega = 2 * PETSC_PI * f;
  PetscReal       v, r, fq;
  char            what[64];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "constant and harmonic against closed forms\n"));
  PetscCall(VIExcitationCreate(PETSC_COMM_WORLD, &e));
  PetscCall(VIExcitationSetAmplitude(e, 0.25, -3));
  for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
    PetscCall(VIExcitationEvaluate(e, ts[i], &v, &r));
    PetscCall(PetscSNPrintf(what, sizeof(what), "constant s(%g)", (double)ts[i]));
    PetscCall(CheckClose(what, v, -2.75, 2.75, 1e-14));
    PetscCall(PetscSNPrintf(what, sizeof(what), "constant ds/dt(%g)", (double)ts[i]));
    PetscCall(CheckClose(what, r, 0, 1, 0));
  }
  PetscCall(VIExcitationGetFrequency(e, 1, &fq));
  PetscCall(CheckClose("constant frequency", fq, 0, 1, 0));

  PetscCall(VIExcitationSetType(e, VI_EXCITE_HARMONIC));
  PetscCall(VIExcitationSetAmplitude(e, off, A));
  PetscCall(VIExcitationSetHarmonic(e, f, phase));
  for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
    PetscCall(VIExcitationEvaluate(e, ts[i], &v, &r));
    PetscCall(PetscSNPrintf(what, sizeof(what), "harmonic s(%g)", (double)ts[i]));
    PetscCall(CheckClose(what, v, off + A * PetscCosReal(omega * ts[i] + phase), PetscAbsReal(off) + A, 1e-14));
    PetscCall(PetscSNPrintf(what, sizeof(what), "harmonic ds/dt(%g)", (double)ts[i]));
    PetscCall(CheckClose(what, r, -A * omega * PetscSinReal(omega * ts[i] + phase), A * omega, 1e-14));
  }
  /* a quarter period later cos(x + pi/2) = -sin(x): an identity the code does not use */
  PetscCall(VIExcitationEvaluate(e, 1 / (4 * f), &v, &r));
  PetscCall(CheckClose("harmonic s(T/4) = off - A sin(phase)", v, off - A * PetscSinReal(phase), off + A, 1e-14));
  PetscCall(CheckClose("harmonic ds/dt(T/4) = -A omega cos(phase)", r, -A * omega * PetscCosReal(phase), A * omega, 1e-14));
  /* either output may be NULL */
  PetscCall(VIExcitationEvaluate(e, 0, NULL, &r));
  PetscCall(VIExcitationEvaluate(e, 0, &v, NULL));
  PetscCall(CheckClose("harmonic s(0) = off + A cos(phase)", v, off + A * PetscCosReal(phase), off + A, 1e-14));
  PetscCall(VIExcitationGetFrequency(e, 3, &fq));
  PetscCall(CheckClose("harmonic frequency", fq, f, f, 0));
  EXPECT_ERROR(VIExcitationGetSweepTime(e, 10, &v), "needs a sweep");
  PetscCall(VIExcitationDestroy(&e));
  PetscCall(VIExcitationDestroy(&e)); /* safe on NULL */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ derivatives of every type */

/* Central differences with step h at n points of [t0, t1]: max |fd - ds/dt| over max |ds/dt| (absolute when ds/dt is 0). */
static PetscErrorCode CheckDerivative(VIExcitation e, const char what[], PetscReal t0, PetscReal t1, PetscReal h)
{
  const PetscInt n   = 1000;
  PetscReal      err = 0, dmax = 0;
  char           text[96];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal t = t0 + (t1 - t0) * i / (n - 1), vp, vm, r;

    PetscCall(VIExcitationEvaluate(e, t + h, &vp, NULL));
    PetscCall(VIExcitationEvaluate(e, t - h, &vm, NULL));
    PetscCall(VIExcitationEvaluate(e, t, NULL, &r));
    err  = PetscMax(err, PetscAbsReal((vp - vm) / (2 * h) - r));
    dmax = PetscMax(dmax, PetscAbsReal(r));
  }
  PetscCall(PetscSNPrintf(text, sizeof(text), "%s: max |FD - ds/dt| / max |ds/dt|", what));
  PetscCall(CheckClose(text, err / (dmax > 0 ? dmax : 1), 0, 1, dmax > 0 ? 1e-6 : 1e-12));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestDerivatives(void)
{
  VIExcitation    e;
  const PetscReal a = PERCENT * F_REF * F_REF / (100 * PERIODS), r = PetscLogReal(1 + PERCENT / 100) * F_REF / PERIODS, t1 = PERIODS / F_REF;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "derivatives against central differences on [0, %g] s\n", (double)t1));
  PetscCall(VIExcitationCreate(PETSC_COMM_WORLD, &e));
  PetscCall(VIExcitationSetAmplitude(e, 0.25, -3));
  PetscCall(CheckDerivative(e, "constant", 0, t1, 1e-6));
  PetscCall(VIExcitationSetAmplitude(e, 0.5, 1.3));
  PetscCall(VIExcitationSetType(e, VI_EXCITE_HARMONIC));
  PetscCall(VIExcitationSetHarmonic(e, 7.5, 0.3));
  PetscCall(CheckDerivative(e, "harmonic", 0, t1, 1e-4 / (2 * PETSC_PI * 7.5)));
  for (PetscInt k = 0; k < 4; k++) {
    PetscBool down = (k % 2) ? PETSC_TRUE : PETSC_FALSE;

    PetscCall(VIExcitationSetType(e, k < 2 ? VI_EXCITE_SWEEP_LINEAR : VI_EXCITE_SWEEP_LOG));
    PetscCall(VIExcitationSetSweep(e, F_REF, k < 2 ? a : r, down));
    PetscCall(CheckDerivative(e,
                              k == 0   ? "sweep_linear up"
                              : k == 1 ? "sweep_linear down"
                              : k == 2 ? "sweep_log up"
                                       : "sweep_log down",
                              0, t1, 1e-4 / (2 * PETSC_PI * 1.02 * F_REF)));
  }
  PetscCall(VIExcitationSetType(e, VI_EXCITE_BUMP));
  PetscCall(VIExcitationSetBump(e, 50, 0.005, 0.003));
  PetscCall(CheckDerivative(e, "bump (w = T/6.7)", 0, t1, 1e-4 * 0.003));
  PetscCall(VIExcitationSetType(e, VI_EXCITE_NOISE));
  PetscCall(VIExcitationSetNoise(e, 10, 50, 64, 3));
  PetscCall(CheckDerivative(e, "noise", 0, t1, 1e-4 / (2 * PETSC_PI * 50)));
  PetscCall(VIExcitationDestroy(&e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ sweeps */

static PetscErrorCode Value(VIExcitation e, PetscReal t, PetscReal *v)
{
  PetscFunctionBeginUser;
  PetscCall(VIExcitationEvaluate(e, t, v, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MAX_CROSSINGS 1024

/* Zero crossings of s(t) (offset 0) on [t0, t1], sampled 64 times per period of f_max, each refined by bisection. */
static PetscErrorCode ZeroCrossings(VIExcitation e, PetscReal t0, PetscReal t1, PetscReal f_max, PetscInt *n, PetscReal tc[])
{
  PetscInt  steps = (PetscInt)PetscCeilReal((t1 - t0) * f_max * 64);
  PetscReal ta    = t0, va;

  PetscFunctionBeginUser;
  *n = 0;
  PetscCall(Value(e, ta, &va));
  for (PetscInt i = 1; i <= steps; i++) {
    PetscReal tb = t0 + (t1 - t0) * i / steps, vb;

    PetscCall(Value(e, tb, &vb));
    if ((va > 0) != (vb > 0)) {
      PetscReal lo = ta, hi = tb, vlo = va;

      for (PetscInt it = 0; it < 200; it++) {
        PetscReal mid = (lo + hi) / 2, vm;

        if (mid <= lo || mid >= hi) break;
        PetscCall(Value(e, mid, &vm));
        if ((vm > 0) == (vlo > 0)) {
          lo  = mid;
          vlo = vm;
        } else
          hi = mid;
      }
      PetscCheck(*n < MAX_CROSSINGS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "too many zero crossings");
      tc[(*n)++] = (lo + hi) / 2;
    }
    ta = tb;
    va = vb;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The sweep of seed 000 §5.2 made from -sw_sweep_percent 1.5 -sw_sweep_periods 100 at 278 Hz: its frequency after 100/278 s,
  GetSweepTime, its rate, and the phase of Evaluate against GetFrequency: 1/(2 dt) between successive zero crossings (the
  phase advances by pi) is f at the midpoint (exactly for a linear sweep), and the number of crossings is the phase
  advance 2 int f dt over pi, within one.
*/
static PetscErrorCode TestSweep(VIExciteType type, PetscBool down)
{
  VIExcitation    e;
  const char     *kv[]  = {"-sw_type",
                           VIExciteTypes[type],
                           "-sw_frequency",
                           "278",
                           "-sw_sweep_percent",
                           "1.5",
                           "-sw_sweep_periods",
                           "100",
                      down ? "-sw_sweep_down" : NULL,
                           NULL,
                           NULL};
  const PetscReal t_end = PERIODS / F_REF, p = PERCENT / 100;
  const PetscBool lin   = type == VI_EXCITE_SWEEP_LINEAR ? PETSC_TRUE : PETSC_FALSE;
  PetscReal       f_end = lin ? (down ? (1 - p) * F_REF : (1 + p) * F_REF) : (down ? F_REF / (1 + p) : (1 + p) * F_REF);
  PetscReal       f, f0, f1, t, rate, tc[MAX_CROSSINGS], err = 0, advance = 0;
  PetscInt        nc, ns = 1000;
  char            what[96];
  const char     *name = lin ? (down ? "sweep_linear down" : "sweep_linear up") : (down ? "sweep_log down" : "sweep_log up");

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s from options, +-1.5 %% in 100 periods of 278 Hz\n", name));
  PetscCall(FromOptions("sw_", kv, &e));
  PetscCall(VIExcitationView(e, NULL));
  PetscCall(VIExcitationGetFrequency(e, t_end, &f));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s: f(100/278 s) (Hz)", name));
  PetscCall(CheckClose(what, f, f_end, f_end, 1e-12));
  PetscCall(VIExcitationGetSweepTime(e, f_end, &t));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s: GetSweepTime(f_end) (s)", name));
  PetscCall(CheckClose(what, t, t_end, t_end, 1e-12));
  PetscCall(VIExcitationGetSweepTime(e, F_REF, &t));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s: GetSweepTime(f0) (s)", name));
  PetscCall(CheckClose(what, t, 0, 1, 0));
  PetscCall(VIExcitationGetFrequency(e, 0, &f0));
  PetscCall(VIExcitationGetFrequency(e, 1, &f1));
  if (lin) {
    rate = (down ? -1 : 1) * 1.5e-2 * F_REF * F_REF / 100;
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s: f(1) - f(0) (Hz/s)", name));
    PetscCall(CheckClose(what, f1 - f0, rate, PetscAbsReal(rate), 1e-12));
  } else {
    rate = (down ? -1 : 1) * PetscLogReal(1.015) * F_REF / 100;
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s: ln(f(1)/f(0)) (1/s)", name));
    PetscCall(CheckClose(what, PetscLogReal(f1 / f0), rate, PetscAbsReal(rate), 1e-12));
  }

  PetscCall(ZeroCrossings(e, 0, t_end, PetscMax(F_REF, f_end), &nc, tc));
  for (PetscInt k = 0; k + 1 < nc; k++) {
    PetscCall(VIExcitationGetFrequency(e, (tc[k] + tc[k + 1]) / 2, &f));
    err = PetscMax(err, PetscAbsReal(1 / (2 * (tc[k + 1] - tc[k])) - f) / f);
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s: max |1/(2 dt_crossing) - f(mid)| / f", name));
  PetscCall(CheckClose(what, err, 0, 1, 1e-8));
  for (PetscInt i = 0; i <= ns; i++) { /* Simpson */
    PetscCall(VIExcitationGetFrequency(e, t_end * i / ns, &f));
    advance += f * ((i == 0 || i == ns) ? 1 : (i % 2 ? 4 : 2));
  }
  advance *= t_end / (3 * ns) * 2; /* phase advance / pi */
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s: zero crossings vs phase advance / pi", name));
  PetscCall(CheckClose(what, (PetscReal)nc, advance, 1, 1));
  PetscCheck(nc > 150, PETSC_COMM_SELF, PETSC_ERR_PLIB, "only %" PetscInt_FMT " crossings", nc);

  if (!down)
    EXPECT_ERROR(VIExcitationGetSweepTime(e, 200, &t), "never reaches");
  else
    EXPECT_ERROR(VIExcitationGetSweepTime(e, 300, &t), "never reaches");
  EXPECT_ERROR(VIExcitationGetSweepTime(e, -1, &t), "never reaches");
  if (lin && down) EXPECT_ERROR(VIExcitationEvaluate(e, F_REF / (-rate) + 1, &f, NULL), "reaches 0 Hz");
  PetscCall(VIExcitationDestroy(&e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ bump */

static PetscErrorCode TestBump(void)
{
  VIExcitation    e;
  const PetscReal f = 50, T = 1 / f, tc = 0.005, w = T / 20, off = 0.1, A = 2;
  const PetscInt  ns[] = {0, 1, 2, 7, 123, -1, -4};
  const PetscReal ss[] = {0.0003, 0.001, 0.0021, 0.0137, 0.0456, 1.2345};
  PetscReal       v, vm, r, rm, worst = 0;
  char            what[96];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bump: f = 50 Hz, t_c = 5 ms, w = T/20\n"));
  PetscCall(VIExcitationCreate(PETSC_COMM_WORLD, &e));
  PetscCall(VIExcitationSetType(e, VI_EXCITE_BUMP));
  PetscCall(VIExcitationSetAmplitude(e, off, A));
  PetscCall(VIExcitationSetBump(e, f, tc, w));
  for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
    PetscCall(VIExcitationEvaluate(e, tc + ns[i] * T, &v, &r));
    PetscCall(PetscSNPrintf(what, sizeof(what), "s(t_c + %" PetscInt_FMT " T)", ns[i]));
    PetscCall(CheckClose(what, v, off + A, A, 1e-12));
    PetscCall(PetscSNPrintf(what, sizeof(what), "ds/dt(t_c + %" PetscInt_FMT " T) * w", ns[i]));
    PetscCall(CheckClose(what, r * w, 0, A, 1e-9));
  }
  PetscCall(VIExcitationSetAmplitude(e, 0, A)); /* without the offset, to see the small values */
  for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
    PetscCall(VIExcitationEvaluate(e, tc + T / 2 + ns[i] * T, &v, NULL));
    worst = PetscMax(worst, PetscAbsReal(v));
  }
  PetscCall(CheckClose("max |s(t_c + T/2 + n T) - offset| / A", worst / A, 0, 1, 1e-6));
  PetscCall(VIExcitationSetAmplitude(e, off, A));
  worst = 0;
  for (size_t i = 0; i < sizeof(ss) / sizeof(ss[0]); i++) {
    PetscCall(VIExcitationEvaluate(e, tc + ss[i], &v, &r));
    PetscCall(VIExcitationEvaluate(e, tc - ss[i], &vm, &rm));
    worst = PetscMax(worst, PetscMax(PetscAbsReal(v - vm) / A, PetscAbsReal(r + rm) * w / A));
  }
  PetscCall(CheckClose("symmetry about t_c: max |s(+)-s(-)|, |s'(+)+s'(-)| w", worst, 0, 1, 1e-12));
  /* one width away from the centre the Gaussian is exp(-1/2) */
  PetscCall(VIExcitationEvaluate(e, tc + 3 * T + w, &v, NULL));
  PetscCall(CheckClose("s(t_c + 3T + w) = off + A exp(-1/2)", v, off + A * PetscExpReal(-0.5), A, 1e-12));
  EXPECT_ERROR(VIExcitationSetBump(e, f, tc, T / 5), "-bump_width");
  EXPECT_ERROR(VIExcitationSetBump(e, f, T, w), "-bump_center");
  PetscCall(VIExcitationDestroy(&e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ noise */

static PetscErrorCode Series(VIExcitation e, PetscInt n, PetscReal fs, PetscReal x[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) PetscCall(VIExcitationEvaluate(e, i / fs, &x[i], NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakeNoise(PetscReal lo, PetscReal hi, PetscInt n, PetscInt seed, VIExcitation *e)
{
  PetscFunctionBeginUser;
  PetscCall(VIExcitationCreate(PETSC_COMM_WORLD, e));
  PetscCall(VIExcitationSetType(*e, VI_EXCITE_NOISE));
  PetscCall(VIExcitationSetNoise(*e, lo, hi, n, seed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The noise against its definition sqrt(2/n) sum_k cos(omega_k t + theta_k) summed here term by term in long double, theta_k
   drawn as excite.h documents (rander48 seeded with the seed, uniform in [0, 2 pi)): value and rate at times up to 1000 s,
   the beam-on-beam job's band and harmonics (2000 in [100, 20000] Hz). The error is measured in units of the sum's own
   condition at t, eps (1 + omega_max t) of the unit RMS (the phases of a double t are that uncertain). */
static PetscErrorCode CheckNoiseSum(void)
{
  const PetscInt  n = 2000, seed = 1;
  const PetscReal lo = 100, hi = 20000, times[] = {0, 1e-4, 0.0123456, 3.7, 41.5, 1000};
  VIExcitation    e;
  PetscRandom     rnd;
  PetscReal      *theta, err = 0, err_rate = 0;

  PetscFunctionBeginUser;
  PetscCall(MakeNoise(lo, hi, n, seed, &e));
  PetscCall(PetscMalloc1(n, &theta));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetType(rnd, PETSCRANDER48));
  PetscCall(PetscRandomSetInterval(rnd, 0, 2 * PETSC_PI));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt k = 0; k < n; k++) PetscCall(PetscRandomGetValueReal(rnd, &theta[k]));
  PetscCall(PetscRandomDestroy(&rnd));
  for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
    PetscReal   t = times[i], v, r, cond = PETSC_MACHINE_EPSILON * (1 + 2 * PETSC_PI * hi * t);
    long double s = 0, ds = 0;
    for (PetscInt k = 0; k < n; k++) {
      long double w = 2 * 3.14159265358979323846264338327950288L * (lo + (hi - lo) * (long double)k / (long double)(n - 1));
      s += cosl(w * t + theta[k]);
      ds -= w * sinl(w * t + theta[k]);
    }
    s *= sqrtl(2.0L / n);
    ds *= sqrtl(2.0L / n);
    PetscCall(VIExcitationEvaluate(e, t, &v, &r));
    /* relative to the condition of the sum at t: eps (1 + omega_max t) (a rounding of t alone moves each phase that much) */
    err      = PetscMax(err, (PetscReal)fabsl(v - s) / cond);
    err_rate = PetscMax(err_rate, (PetscReal)(fabsl(r - ds) / (2 * PETSC_PI * hi)) / cond);
  }
  PetscCall(CheckClose("noise - its cosine sum, in eps (1 + omega_max t)", err, 0, 1, 100));
  PetscCall(CheckClose("its rate / omega_max, in eps (1 + omega_max t)", err_rate, 0, 1, 100));
  PetscCall(PetscFree(theta));
  PetscCall(VIExcitationDestroy(&e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestNoise(void)
{
  VIExcitation    a, b, c;
  const PetscInt  N = 4096, Nlong = 20000;
  const PetscReal lo = 10, hi = 50, fs = 128, fs_long = 200;
  PetscReal      *x, *y, *z, diff = 0, ms = 0, total = 0, band = 0, f;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "noise: [10, 50] Hz, 256 harmonics\n"));
  PetscCall(MakeNoise(lo, hi, 256, 7, &a));
  PetscCall(MakeNoise(lo, hi, 256, 7, &b));
  PetscCall(MakeNoise(lo, hi, 256, 8, &c));
  PetscCall(PetscMalloc1(Nlong, &x));
  PetscCall(PetscMalloc1(N, &y));
  PetscCall(PetscMalloc1(N, &z));
  PetscCall(Series(a, N, fs, x));
  PetscCall(Series(b, N, fs, y));
  PetscCall(Series(c, N, fs, z));
  PetscCheck(!memcmp(x, y, N * sizeof(PetscReal)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "same seed, different series");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  seed 7 twice: %" PetscInt_FMT " samples bit-identical\n", N));
  for (PetscInt i = 0; i < N; i++) diff = PetscMax(diff, PetscAbsReal(x[i] - z[i]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  seed 7 vs seed 8: max |difference| = %.4g (required > 0.5)\n", (double)diff));
  PetscCheck(diff > 0.5, PETSC_COMM_SELF, PETSC_ERR_PLIB, "seeds 7 and 8 give nearly the same series (max difference %g)", (double)diff);

  /* power in the band: Parseval, sum x^2 = (1/N) sum_k |X_k|^2, the band [lo, hi] holds the bins k/(N/fs) in it */
  for (PetscInt i = 0; i < N; i++) total += x[i] * x[i];
  for (PetscInt k = 1; k < N / 2; k++) {
    PetscReal fk = k * fs / N, re = 0, im = 0;

    if (fk < lo || fk > hi) continue;
    for (PetscInt i = 0; i < N; i++) {
      PetscReal arg = 2 * PETSC_PI * (PetscReal)((k * i) % N) / N;

      re += x[i] * PetscCosReal(arg);
      im -= x[i] * PetscSinReal(arg);
    }
    band += 2 * (re * re + im * im) / N;
  }
  PetscCall(CheckClose("DFT (32 s at 128 Hz): power fraction outside [10, 50] Hz", 1 - band / total, 0, 1, 0.01));

  PetscCall(Series(a, Nlong, fs_long, x));
  for (PetscInt i = 0; i < Nlong; i++) ms += x[i] * x[i];
  PetscCall(CheckClose("RMS over 100 s", PetscSqrtReal(ms / Nlong), 1, 1, 0.05));
  PetscCall(VIExcitationGetFrequency(a, 0, &f));
  PetscCall(CheckClose("noise frequency = band centre", f, 30, 30, 0));
  PetscCall(CheckNoiseSum());

  /* offset and amplitude act on the unit-RMS shape */
  PetscCall(VIExcitationSetAmplitude(b, -1, 3));
  PetscCall(VIExcitationEvaluate(b, 0.37, &f, NULL));
  PetscCall(VIExcitationEvaluate(a, 0.37, &ms, NULL));
  PetscCall(CheckClose("noise with offset -1, amplitude 3", f, -1 + 3 * ms, 3, 1e-15));

  /* noise without its band cannot be evaluated */
  PetscCall(VIExcitationDestroy(&c));
  PetscCall(VIExcitationCreate(PETSC_COMM_WORLD, &c));
  PetscCall(VIExcitationSetType(c, VI_EXCITE_NOISE));
  EXPECT_ERROR(VIExcitationEvaluate(c, 0, &f, NULL), "-noise_band");
  PetscCall(PetscFree(x));
  PetscCall(PetscFree(y));
  PetscCall(PetscFree(z));
  PetscCall(VIExcitationDestroy(&a));
  PetscCall(VIExcitationDestroy(&b));
  PetscCall(VIExcitationDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ options */

/* Options that SetFromOptions must refuse, naming the option; the object stays what it was (constant 1), nothing leaks. */
static PetscErrorCode ExpectBadOptions(const char *const kv[], const char needle[])
{
  VIExcitation   e;
  PetscLogDouble before, after;
  PetscReal      v;
  char           what[160] = "SetFromOptions";

  PetscFunctionBeginUser;
  for (PetscInt i = 0; kv[i]; i += 2) {
    PetscCall(PetscStrlcat(what, " ", sizeof(what)));
    PetscCall(PetscStrlcat(what, kv[i], sizeof(what)));
    if (kv[i + 1] && kv[i + 1][0]) {
      PetscCall(PetscStrlcat(what, " ", sizeof(what)));
      PetscCall(PetscStrlcat(what, kv[i + 1], sizeof(what)));
    }
  }
  PetscCall(SetOptions(kv));
  PetscCall(PetscMallocGetCurrentUsage(&before));
  PetscCall(VIExcitationCreate(PETSC_COMM_WORLD, &e));
  PetscCall(VIExcitationSetOptionsPrefix(e, "load_"));
  EXPECT_ERROR(VIExcitationSetFromOptions(e), needle);
  PetscCall(VIExcitationEvaluate(e, 0.1, &v, NULL));
  PetscCheck(v == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the object changed after the error (s(0.1) = %g)", what, (double)v);
  PetscCall(VIExcitationDestroy(&e));
  PetscCall(PetscMallocGetCurrentUsage(&after));
  PetscCall(ClearOptions(kv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    %s: %g bytes left over\n", what, (double)(after - before)));
  PetscCheck(after == before, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %g bytes leaked", what, (double)(after - before));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestOptions(void)
{
  VIExcitation e, g;
  PetscReal    v, r, w;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "options with prefix load_\n"));
  {
    const char     *kv[] = {"-load_type", "harmonic", "-load_frequency", "12.5", "-load_amplitude", "3", "-load_offset", "-1", "-load_phase",
                            "0.5",        NULL};
    const PetscReal om   = 2 * PETSC_PI * 12.5;

    PetscCall(FromOptions("load_", kv, &e));
    PetscCall(VIExcitationView(e, NULL));
    PetscCall(VIExcitationEvaluate(e, 0.1, &v, &r));
    PetscCall(CheckClose("harmonic from options: s(0.1)", v, -1 + 3 * PetscCosReal(om * 0.1 + 0.5), 4, 1e-14));
    PetscCall(CheckClose("harmonic from options: ds/dt(0.1)", r, -3 * om * PetscSinReal(om * 0.1 + 0.5), 3 * om, 1e-14));
    PetscCall(VIExcitationDestroy(&e));
  }
  {
    const char *kv[] = {"-load_type", "bump", "-load_frequency", "10", "-load_bump_width", "0.01", "-load_bump_center", "0.02", NULL};

    PetscCall(FromOptions("load_", kv, &e));
    PetscCall(VIExcitationView(e, NULL));
    PetscCall(VIExcitationEvaluate(e, 0.32, &v, NULL));
    PetscCall(CheckClose("bump from options: s(t_c + 3 T)", v, 1, 1, 1e-12));
    PetscCall(VIExcitationDestroy(&e));
  }
  {
    const char *kv[] = {"-load_type", "noise", "-load_noise_band", "10,50", "-load_noise_harmonics", "32", "-load_seed", "5", NULL};

    PetscCall(FromOptions("load_", kv, &e));
    PetscCall(VIExcitationView(e, NULL));
    PetscCall(MakeNoise(10, 50, 32, 5, &g));
    PetscCall(VIExcitationEvaluate(e, 0.77, &v, NULL));
    PetscCall(VIExcitationEvaluate(g, 0.77, &w, NULL));
    PetscCheck(!memcmp(&v, &w, sizeof(v)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "noise from options %.17g, from VIExcitationSetNoise %.17g", (double)v,
               (double)w);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  noise from options = VIExcitationSetNoise, bit for bit (%.17g)\n", (double)v));
    PetscCall(VIExcitationDestroy(&g));
    PetscCall(VIExcitationDestroy(&e));
  }
  {
    const char *kv[] = {"-load_type", "sweep_linear", "-load_frequency", "100", "-load_sweep_rate", "20", "-load_sweep_down", "", NULL};

    PetscCall(FromOptions("load_", kv, &e));
    PetscCall(VIExcitationGetFrequency(e, 2, &v));
    PetscCall(CheckClose("sweep_linear down from options: f(2 s)", v, 60, 60, 1e-15));
    PetscCall(VIExcitationDestroy(&e));
  }

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  bad options (object unchanged, no leak):\n"));
  {
    const char *kv[] = {"-load_type", "harmonic", "-load_frequency", "-1", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_frequency"));
  }
  {
    const char *kv[] = {"-load_type", "noise", "-load_noise_band", "10,50", "-load_frequency", "-1", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_frequency"));
  }
  {
    const char *kv[] = {"-load_type", "harmonic", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_frequency"));
  }
  {
    const char *kv[] = {"-load_type", "sweep_linear", "-load_frequency", "100", "-load_sweep_rate", "0", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_sweep_rate"));
  }
  {
    const char *kv[] = {"-load_type", "sweep_log", "-load_frequency", "100", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_sweep_rate"));
  }
  {
    const char *kv[] = {"-load_type", "sweep_linear", "-load_frequency", "100", "-load_sweep_percent", "1.5", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_sweep_periods"));
  }
  {
    const char *kv[] = {
        "-load_type", "sweep_linear", "-load_frequency", "100", "-load_sweep_percent", "1.5", "-load_sweep_periods", "100", "-load_sweep_rate", "3",
        NULL};
    PetscCall(ExpectBadOptions(kv, "-load_sweep_rate"));
  }
  {
    const char *kv[] = {"-load_type", "noise", "-load_noise_band", "5,2", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_noise_band"));
  }
  {
    const char *kv[] = {"-load_type", "noise", "-load_noise_band", "5", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_noise_band"));
  }
  {
    const char *kv[] = {"-load_type", "noise", "-load_noise_band", "5,20", "-load_noise_harmonics", "0", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_noise_harmonics"));
  }
  {
    const char *kv[] = {"-load_type", "bump", "-load_frequency", "10", "-load_bump_width", "0.02", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_bump_width"));
  }
  {
    const char *kv[] = {"-load_type", "bump", "-load_frequency", "10", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_bump_width"));
  }
  {
    const char *kv[] = {"-load_type", "wobble", NULL};
    PetscCall(ExpectBadOptions(kv, "-load_type"));
  }

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  bad arguments of the set functions:\n"));
  PetscCall(VIExcitationCreate(PETSC_COMM_WORLD, &e));
  PetscCall(VIExcitationSetOptionsPrefix(e, "load_"));
  EXPECT_ERROR(VIExcitationSetHarmonic(e, -1, 0), "-load_frequency");
  EXPECT_ERROR(VIExcitationSetSweep(e, 100, 0, PETSC_FALSE), "-load_sweep_rate");
  EXPECT_ERROR(VIExcitationSetBump(e, 10, 0, 0.02), "-load_bump_width");
  EXPECT_ERROR(VIExcitationSetNoise(e, 5, 2, 16, 1), "-load_noise_band");
  EXPECT_ERROR(VIExcitationSetType(e, (VIExciteType)17), "Unknown excitation type");
  PetscCall(VIExcitationSetType(e, VI_EXCITE_SWEEP_LINEAR)); /* no frequency nor rate yet: refused at the first evaluation */
  EXPECT_ERROR(VIExcitationEvaluate(e, 0, &v, NULL), "-load_frequency");
  PetscCall(VIExcitationDestroy(&e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunTests(void)
{
  PetscLogDouble before, after;
  PetscViewer    viewer;
  PetscRandom    rnd;

  PetscFunctionBeginUser;
  /* what PETSc keeps until PetscFinalize (registered log events and random types, the stdout viewer) is made before the
     count starts */
  PetscCall(VIInitializePackage());
  PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_WORLD, &viewer));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetType(rnd, PETSCRANDER48));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscMallocGetCurrentUsage(&before));
  PetscCall(TestClosedForms());
  PetscCall(TestDerivatives());
  PetscCall(TestSweep(VI_EXCITE_SWEEP_LINEAR, PETSC_FALSE));
  PetscCall(TestSweep(VI_EXCITE_SWEEP_LINEAR, PETSC_TRUE));
  PetscCall(TestSweep(VI_EXCITE_SWEEP_LOG, PETSC_FALSE));
  PetscCall(TestSweep(VI_EXCITE_SWEEP_LOG, PETSC_TRUE));
  PetscCall(TestBump());
  PetscCall(TestNoise());
  PetscCall(TestOptions());
  PetscCall(PetscMallocGetCurrentUsage(&after));
  PetscCheck(after == before, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%g bytes leaked by the tests", (double)(after - before));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The checks return PETSC_ERR_PLIB (77), which ctest would take for "skipped": any failure exits 1 instead. */
int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  if (RunTests()) {
    (void)PetscPrintf(PETSC_COMM_WORLD, "test_excite: FAILED\n");
    return 1;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_excite: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
