/* Unit test of VICaseSet: grid and value axes, frequency sweeps, Monte Carlo and Latin hypercube samples against exact
   statistics, reproducibility from (seed, grid point), the normal quantile, applying cases as options, bad input. */
#include <vicms/ensemble.h>
#include <math.h>
#include <string.h>

static const char help[] = "Case set verification: -case grid|values|random|lhs|quantile|sweep|errors|apply|repro\n";

/* Every option a sub-case may set; all are cleared after each set is built. */
static const char *const OwnedOptions[] = {"-cases_grid",
                                           "-cases_values",
                                           "-cases_sweep",
                                           "-cases_random",
                                           "-cases_samples",
                                           "-cases_sampling",
                                           "-cases_seed",
                                           "-load_tip_type",
                                           "-load_tip_sweep_rate",
                                           "-load_tip_sweep_percent",
                                           "-load_tip_sweep_periods",
                                           "-load_tip_sweep_reference_frequency",
                                           "-load_tip_frequency",
                                           "-load_tip_sweep_down",
                                           "-step_start_time",
                                           "-step_end_time",
                                           "-a",
                                           "-b",
                                           "-c",
                                           "-d",
                                           "-m",
                                           NULL};

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
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-58s %.17g (expected %.17g): error %.2e (tolerance %.0e)\n", what, (double)got, (double)want,
                        (double)err, (double)tol));
  PetscCheck(err <= tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: got %.17g, expected %.17g, relative error %.3e > %.1e", what, (double)got,
             (double)want, (double)err, (double)tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An exact equality of integers (counts, indices), printed. */
static PetscErrorCode CheckInt(const char what[], PetscInt got, PetscInt want)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-58s %" PetscInt_FMT " (expected %" PetscInt_FMT ")\n", what, got, want));
  PetscCheck(got == want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: got %" PetscInt_FMT ", expected %" PetscInt_FMT, what, got, want);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The call returned ierr; it must have failed with a message that contains needle. */
static PetscErrorCode CheckFailed(const char what[], PetscErrorCode ierr, const char needle[])
{
  PetscFunctionBeginUser;
  PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: succeeded, expected an error", what);
  PetscCheck(strstr(Captured, needle), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the message \"%s\" does not contain \"%s\"", what, Captured, needle);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-40s error %d as expected: %s\n", what, (int)ierr, Captured));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ClearOwnedOptions(void)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; OwnedOptions[i]; i++) PetscCall(PetscOptionsClearValue(NULL, OwnedOptions[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A case set on comm from the options string opts; the options are cleared afterwards. */
static PetscErrorCode BuildSet(MPI_Comm comm, const char opts[], VICaseSet *cs)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(VICaseSetCreate(comm, cs));
  PetscCall(VICaseSetSetFromOptions(*cs));
  PetscCall(ClearOwnedOptions());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The size and the parameter names of a set. */
static PetscErrorCode CheckShape(VICaseSet cs, PetscInt num_cases, PetscInt num_params, const char *const names[])
{
  PetscInt    nc, np;
  const char *name;
  char        what[96];

  PetscFunctionBeginUser;
  PetscCall(VICaseSetGetSize(cs, &nc, &np));
  PetscCall(CheckInt("number of cases", nc, num_cases));
  PetscCall(CheckInt("number of parameters", np, num_params));
  for (PetscInt p = 0; p < np; p++) {
    PetscCall(VICaseSetGetParameterName(cs, p, &name));
    PetscCall(PetscSNPrintf(what, sizeof(what), "name of parameter %" PetscInt_FMT, p));
    PetscCheck(!strcmp(name, names[p]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: got '%s', expected '%s'", what, name, names[p]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-58s %s\n", what, name));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* None of the options a set overrides for a while (Apply, the sweep time) is left behind. */
static PetscErrorCode CheckNoOptionsLeft(const char what[])
{
  PetscBool set;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; OwnedOptions[i]; i++) {
    PetscCall(PetscOptionsHasName(NULL, NULL, OwnedOptions[i], &set));
    PetscCheck(!set, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the option %s is still set", what, OwnedOptions[i]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Standard normal density and distribution, written out here (not the library's). */
static PetscReal Phi(PetscReal x)
{
  return 0.5 * erfc(-x / sqrt(2.0));
}

static PetscReal PhiDensity(PetscReal x)
{
  return exp(-0.5 * x * x) / sqrt(2 * PETSC_PI);
}

/* ------------------------------------------------------------------ grid and value axes */

static PetscErrorCode TestGrid(void)
{
  VICaseSet        cs;
  const PetscReal *t;
  const char      *names[] = {"a", "b"}, *name;
  const PetscReal  va[] = {1, 1.25, 1.5, 1.75, 2}, vb[] = {10, 100, 1000};
  PetscReal        worst_a = 0, worst_b = 0;
  PetscBool        sampled;
  PetscInt         nc, np;
  PetscErrorCode   ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "no option: one case without parameters\n"));
  PetscCall(BuildSet(PETSC_COMM_WORLD, "", &cs));
  PetscCall(CheckShape(cs, 1, 0, NULL));
  PetscCall(VICaseSetIsSampled(cs, &sampled));
  PetscCall(CheckInt("sampled", sampled, 0));
  PetscCall(VICaseSetDestroy(&cs));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-cases_grid a:1:2:5,b:10:1000:3:log\n"));
  PetscCall(BuildSet(PETSC_COMM_WORLD, "-cases_grid a:1:2:5,b:10:1000:3:log", &cs));
  PetscCall(CheckShape(cs, 15, 2, names));
  PetscCall(VICaseSetGetTable(cs, &t));
  /* the first axis slowest: case k = ia * 3 + ib; the linear points i/4 are exact in binary, so is the whole axis */
  for (PetscInt ia = 0; ia < 5; ia++)
    for (PetscInt ib = 0; ib < 3; ib++) {
      PetscInt k = ia * 3 + ib;
      worst_a    = PetscMax(worst_a, PetscAbsReal(t[2 * k] - va[ia]));
      worst_b    = PetscMax(worst_b, PetscAbsReal(t[2 * k + 1] - vb[ib]) / vb[ib]);
    }
  PetscCall(CheckClose("linear axis a = 1, 1.25, ..., 2: largest |error|", worst_a, 0, 1, 0));
  PetscCall(CheckClose("log axis b = 10, 100, 1000: largest relative error", worst_b, 0, 1, 1e-14));
  PetscCall(CheckClose("first case a (exact)", t[0], 1, 1, 0));
  PetscCall(CheckClose("first case b (exact)", t[1], 10, 1, 0));
  PetscCall(CheckClose("last case a (exact)", t[2 * 14], 2, 1, 0));
  PetscCall(CheckClose("last case b (exact)", t[2 * 14 + 1], 1000, 1, 0));
  PetscCall(CheckClose("case 7 = (ia 2, ib 1): a", t[2 * 7], 1.5, 1, 0));
  PetscCall(CheckClose("case 7 = (ia 2, ib 1): b", t[2 * 7 + 1], 100, 100, 1e-14));
  PetscCall(VICaseSetIsSampled(cs, &sampled));
  PetscCall(CheckInt("sampled", sampled, 0));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = VICaseSetGetParameterName(cs, 2, &name);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VICaseSetGetParameterName(cs, 2) of a 2-parameter set succeeded, expected an error");
  PetscCall(VICaseSetDestroy(&cs));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-cases_grid a:0.1:0.7:7,b:3:7:1 (inexact spacing, a one-point axis)\n"));
  PetscCall(BuildSet(PETSC_COMM_WORLD, "-cases_grid a:0.1:0.7:7,b:3:7:1", &cs));
  PetscCall(CheckShape(cs, 7, 2, names));
  PetscCall(VICaseSetGetTable(cs, &t));
  worst_a = 0;
  for (PetscInt i = 0; i < 7; i++) worst_a = PetscMax(worst_a, PetscAbsReal(t[2 * i] - 0.1 * (i + 1)) / (0.1 * (i + 1)));
  PetscCall(CheckClose("a = 0.1 (i + 1): largest relative error", worst_a, 0, 1, 4e-16));
  PetscCall(CheckClose("a at the end: the 0.7 the user wrote (exact)", t[12], 0.7, 1, 0));
  for (PetscInt i = 0; i < 7; i++)
    PetscCheck(t[2 * i + 1] == 3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "one-point axis b: got %g, expected 3", (double)t[2 * i + 1]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  one-point axis b:3:7:1 is 3 (FROM) in all 7 cases\n"));
  PetscCall(VICaseSetGetSize(cs, &nc, &np));
  PetscCall(VICaseSetDestroy(&cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestValues(void)
{
  VICaseSet        cs;
  const PetscReal *t;
  const char      *names2[] = {"a", "c"}, *names4[] = {"a", "b", "c", "d"};
  const PetscReal  va[] = {1, 2}, vb[] = {0, 1}, vc[] = {0.1, 0.5, 2}, vd[] = {-3, 4};
  PetscInt         bad = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-cases_grid a:1:2:2 -cases_values c:0.1/0.5/2\n"));
  PetscCall(BuildSet(PETSC_COMM_WORLD, "-cases_grid a:1:2:2 -cases_values c:0.1/0.5/2", &cs));
  PetscCall(CheckShape(cs, 6, 2, names2));
  PetscCall(VICaseSetGetTable(cs, &t));
  for (PetscInt ia = 0; ia < 2; ia++)
    for (PetscInt ic = 0; ic < 3; ic++) {
      PetscInt k = ia * 3 + ic;
      if (t[2 * k] != va[ia] || t[2 * k + 1] != vc[ic]) bad++;
    }
  PetscCall(CheckInt("cases (a, c) != (a[k / 3], c[k % 3]) exactly", bad, 0));
  PetscCall(VICaseSetDestroy(&cs));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-cases_grid a:1:2:2,b:0:1:2 -cases_values c:0.1/0.5/2,d:-3/4\n"));
  PetscCall(BuildSet(PETSC_COMM_WORLD, "-cases_grid a:1:2:2,b:0:1:2 -cases_values c:0.1/0.5/2,d:-3/4", &cs));
  PetscCall(CheckShape(cs, 24, 4, names4));
  PetscCall(VICaseSetGetTable(cs, &t));
  bad = 0;
  for (PetscInt ia = 0; ia < 2; ia++)
    for (PetscInt ib = 0; ib < 2; ib++)
      for (PetscInt ic = 0; ic < 3; ic++)
        for (PetscInt id = 0; id < 2; id++) {
          PetscInt         k = ((ia * 2 + ib) * 3 + ic) * 2 + id;
          const PetscReal *r = t + 4 * k;
          if (r[0] != va[ia] || r[1] != vb[ib] || r[2] != vc[ic] || r[3] != vd[id]) bad++;
        }
  PetscCall(CheckInt("cases of the product a x b x c x d in the wrong order", bad, 0));
  PetscCall(VICaseSetDestroy(&cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ random samples */

/* Exact moments of the four distributions of the test. */
#define U_A         2.0
#define U_B         5.0
#define N_MEAN      1.0
#define N_SD        0.5
#define L_MU        0.1
#define L_SIG       0.4
#define T_MEAN      0.3
#define T_SD        1.2
#define T_LO        -0.5
#define T_HI        2.0
#define RANDOM_SPEC "u:uniform:2:5,n:normal:1:0.5,l:lognormal:0.1:0.4,t:truncated_normal:0.3:1.2:-0.5:2" /* the values above, as an option */

static void ExactMoments(PetscReal mean[4], PetscReal sd[4])
{
  /* uniform on [A, B): (A + B) / 2, (B - A) / sqrt(12) */
  mean[0] = 0.5 * (U_A + U_B);
  sd[0]   = (U_B - U_A) / sqrt(12.0);
  mean[1] = N_MEAN;
  sd[1]   = N_SD;
  /* lognormal, exp(N(mu, s^2)): mean exp(mu + s^2/2), variance (exp(s^2) - 1) exp(2 mu + s^2) */
  mean[2] = exp(L_MU + 0.5 * L_SIG * L_SIG);
  sd[2]   = sqrt((exp(L_SIG * L_SIG) - 1) * exp(2 * L_MU + L_SIG * L_SIG));
  /* normal (m, s) truncated to [lo, hi], a = (lo - m)/s, b = (hi - m)/s, Z = Phi(b) - Phi(a):
     mean m + s (phi(a) - phi(b)) / Z, variance s^2 [1 + (a phi(a) - b phi(b)) / Z - ((phi(a) - phi(b)) / Z)^2] */
  {
    PetscReal a = (T_LO - T_MEAN) / T_SD, b = (T_HI - T_MEAN) / T_SD, Z = Phi(b) - Phi(a), d = (PhiDensity(a) - PhiDensity(b)) / Z;
    mean[3] = T_MEAN + T_SD * d;
    sd[3]   = T_SD * sqrt(1 + (a * PhiDensity(a) - b * PhiDensity(b)) / Z - d * d);
  }
}

static PetscErrorCode TestRandom(void)
{
  VICaseSet        cs, cs2;
  const PetscReal *t, *t2;
  const char      *names[] = {"u", "n", "l", "t"}, *dist[] = {"uniform", "normal", "lognormal", "truncated_normal"};
  const PetscInt   S = 20000;
  PetscReal        mean[4], sd[4];
  PetscBool        sampled;
  char             opts[512], what[96];

  PetscFunctionBeginUser;
  ExactMoments(mean, sd);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "Monte Carlo, %" PetscInt_FMT " samples of %s: sample mean and sd within 4 standard errors of the exact ones\n", S,
                        RANDOM_SPEC));
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-cases_random " RANDOM_SPEC " -cases_samples %" PetscInt_FMT " -cases_seed 2024", S));
  PetscCall(BuildSet(PETSC_COMM_WORLD, opts, &cs));
  PetscCall(CheckShape(cs, S, 4, names));
  PetscCall(VICaseSetIsSampled(cs, &sampled));
  PetscCall(CheckInt("sampled", sampled, 1));
  PetscCall(VICaseSetGetTable(cs, &t));
  for (PetscInt r = 0; r < 4; r++) {
    PetscReal m = 0, m2 = 0, m4 = 0, s, se_mean, se_sd, lo = PETSC_MAX_REAL, hi = PETSC_MIN_REAL;
    for (PetscInt j = 0; j < S; j++) m += t[4 * j + r];
    m /= S;
    for (PetscInt j = 0; j < S; j++) {
      PetscReal d = t[4 * j + r] - m;
      m2 += d * d;
      m4 += d * d * d * d;
      lo = PetscMin(lo, t[4 * j + r]);
      hi = PetscMax(hi, t[4 * j + r]);
    }
    s  = sqrt(m2 / (S - 1));
    m4 = m4 / S;
    /* standard error of the mean sd / sqrt(S); of the sample sd sqrt(mu4 - sd^4) / (2 sd sqrt(S)), mu4 from the sample */
    se_mean = sd[r] / sqrt((PetscReal)S);
    se_sd   = sqrt(m4 - sd[r] * sd[r] * sd[r] * sd[r]) / (2 * sd[r] * sqrt((PetscReal)S));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s mean (in standard errors %.2e)", dist[r], (double)se_mean));
    PetscCall(CheckClose(what, m, mean[r], se_mean, 4));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s sd (in standard errors %.2e)", dist[r], (double)se_sd));
    PetscCall(CheckClose(what, s, sd[r], se_sd, 4));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-58s [%.6g, %.6g]\n", "range of the samples", (double)lo, (double)hi));
    if (r == 0)
      PetscCheck(lo >= U_A && hi < U_B, PETSC_COMM_SELF, PETSC_ERR_PLIB, "uniform samples in [%g, %g], expected in [2, 5)", (double)lo, (double)hi);
    if (r == 2) PetscCheck(lo > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "lognormal sample %g <= 0", (double)lo);
    if (r == 3)
      PetscCheck(lo >= T_LO && hi <= T_HI, PETSC_COMM_SELF, PETSC_ERR_PLIB, "truncated normal samples in [%g, %g], expected in [-0.5, 2]", (double)lo,
                 (double)hi);
  }
  PetscCall(VICaseSetDestroy(&cs));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "reproducibility: the same seed gives the same table bit for bit, another seed another one\n"));
  PetscCall(BuildSet(PETSC_COMM_WORLD, "-cases_grid a:1:2:2 -cases_random " RANDOM_SPEC " -cases_samples 300 -cases_seed 17", &cs));
  PetscCall(BuildSet(PETSC_COMM_WORLD, "-cases_grid a:1:2:2 -cases_random " RANDOM_SPEC " -cases_samples 300 -cases_seed 17", &cs2));
  PetscCall(VICaseSetGetTable(cs, &t));
  PetscCall(VICaseSetGetTable(cs2, &t2));
  PetscCall(CheckInt("seed 17 twice: bytes that differ", memcmp(t, t2, 600 * 5 * sizeof(PetscReal)) ? 1 : 0, 0));
  PetscCall(VICaseSetDestroy(&cs2));
  PetscCall(BuildSet(PETSC_COMM_WORLD, "-cases_grid a:1:2:2 -cases_random " RANDOM_SPEC " -cases_samples 300 -cases_seed 18", &cs2));
  PetscCall(VICaseSetGetTable(cs2, &t2));
  {
    PetscInt same = 0, grid_differs = 0;
    for (PetscInt k = 0; k < 600; k++) {
      if (t[5 * k] != t2[5 * k]) grid_differs++;
      for (PetscInt r = 1; r < 5; r++) same += t[5 * k + r] == t2[5 * k + r];
    }
    PetscCall(CheckInt("seeds 17 and 18: grid entries that differ", grid_differs, 0));
    PetscCall(CheckInt("seeds 17 and 18: equal samples (of 2400)", same, 0));
  }
  PetscCall(VICaseSetDestroy(&cs2));
  /* the two grid points of one job have unrelated samples */
  {
    PetscInt same = 0;
    for (PetscInt j = 0; j < 300; j++)
      for (PetscInt r = 1; r < 5; r++) same += t[5 * j + r] == t[5 * (300 + j) + r];
    PetscCall(CheckInt("grid points 0 and 1 of one job: equal samples (of 1200)", same, 0));
  }
  PetscCall(VICaseSetDestroy(&cs));

  /* grid point g's samples depend only on (seed, g, S): a 3-point job and a 10-point job on two other axes agree on g < 3,
     and a job without grid is grid point 0 */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the samples of grid point g depend only on the seed, g and S\n"));
  {
    const PetscInt S7 = 7;
    VICaseSet      c1;
    PetscInt       differ = 0, grid_bad = 0;
    PetscCall(BuildSet(PETSC_COMM_WORLD, "-cases_grid a:1:3:3 -cases_random " RANDOM_SPEC " -cases_samples 7 -cases_seed 99", &cs));
    PetscCall(BuildSet(PETSC_COMM_WORLD,
                       "-cases_values b:5/6/7/8/9 -cases_grid c:0:1:2 -cases_random " RANDOM_SPEC " -cases_samples 7 -cases_seed 99", &cs2));
    PetscCall(BuildSet(PETSC_COMM_WORLD, "-cases_random " RANDOM_SPEC " -cases_samples 7 -cases_seed 99", &c1));
    PetscCall(VICaseSetGetTable(cs, &t));
    PetscCall(VICaseSetGetTable(cs2, &t2));
    PetscCall(CheckShape(cs2, 70, 6, (const char *const[]){"c", "b", "u", "n", "l", "t"}));
    for (PetscInt g = 0; g < 3; g++)
      for (PetscInt j = 0; j < S7; j++) {
        PetscInt k = g * S7 + j;
        if (t[5 * k] != 1 + g) grid_bad++;
        for (PetscInt r = 0; r < 4; r++) differ += t[5 * k + 1 + r] != t2[6 * k + 2 + r];
      }
    PetscCall(CheckInt("3-point job vs 10-point job, g < 3: samples that differ", differ, 0));
    PetscCall(CheckInt("3-point job: grid values a != 1 + g", grid_bad, 0));
    PetscCall(VICaseSetGetTable(c1, &t2));
    differ = 0;
    for (PetscInt j = 0; j < S7; j++)
      for (PetscInt r = 0; r < 4; r++) differ += t[5 * j + 1 + r] != t2[4 * j + r];
    PetscCall(CheckInt("job without grid vs grid point 0: samples that differ", differ, 0));
    PetscCall(VICaseSetDestroy(&c1));
    PetscCall(VICaseSetDestroy(&cs2));
    PetscCall(VICaseSetDestroy(&cs));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* floor(F(x) S) over the S samples of column r (stride ld) is a permutation of 0..S-1, F the distribution's CDF. */
static PetscErrorCode CheckStrata(const char what[], const PetscReal col[], PetscInt ld, PetscInt S, PetscInt dist, const PetscReal a[])
{
  PetscInt *hits, missing = 0, worst = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(S, &hits));
  for (PetscInt j = 0; j < S; j++) {
    PetscReal x = col[j * ld], F = 0;
    PetscInt  i;
    switch (dist) {
    case 0:
      F = (x - a[0]) / (a[1] - a[0]);
      break;
    case 1:
      F = VINormalCDF((x - a[0]) / a[1]);
      break;
    case 2:
      F = VINormalCDF((log(x) - a[0]) / a[1]);
      break;
    case 3: {
      PetscReal lo = VINormalCDF((a[2] - a[0]) / a[1]), hi = VINormalCDF((a[3] - a[0]) / a[1]);
      F = (VINormalCDF((x - a[0]) / a[1]) - lo) / (hi - lo);
    }
    }
    i = (PetscInt)floor(F * S);
    PetscCheck(i >= 0 && i < S, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "%s: sample %" PetscInt_FMT " = %g is in stratum %" PetscInt_FMT ", outside 0..%" PetscInt_FMT, what, j, (double)x, i, S - 1);
    hits[i]++;
  }
  for (PetscInt i = 0; i < S; i++) {
    missing += hits[i] == 0;
    worst = PetscMax(worst, hits[i]);
  }
  PetscCall(PetscFree(hits));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  %-58s empty strata %" PetscInt_FMT " (expected 0), most samples in a stratum %" PetscInt_FMT " (expected 1)\n", what,
                        missing, worst));
  PetscCheck(missing == 0 && worst == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%s: %" PetscInt_FMT " empty strata, up to %" PetscInt_FMT " samples in one", what, missing, worst);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestLHS(void)
{
  VICaseSet        cs;
  const PetscReal *t;
  const PetscInt   S       = 50;
  const char      *names[] = {"x", "y", "n", "l", "t"};
  const PetscReal  unit[] = {0, 1}, nrm[] = {3, 2}, lgn[] = {L_MU, L_SIG}, trn[] = {T_MEAN, T_SD, T_LO, T_HI};
  char             what[96];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Latin hypercube, 50 samples per grid point, 2 grid points: one sample per stratum of each parameter\n"));
  PetscCall(BuildSet(PETSC_COMM_WORLD,
                     "-cases_random x:uniform:0:1,y:uniform:0:1,n:normal:3:2,l:lognormal:0.1:0.4,t:truncated_normal:0.3:1.2:-0.5:2 -cases_samples 50 "
                     "-cases_sampling lhs -cases_seed 5",
                     &cs));
  PetscCall(CheckShape(cs, S, 5, names));
  PetscCall(VICaseSetGetTable(cs, &t));
  PetscCall(CheckStrata("x uniform [0, 1)", t + 0, 5, S, 0, unit));
  PetscCall(CheckStrata("y uniform [0, 1)", t + 1, 5, S, 0, unit));
  PetscCall(CheckStrata("n normal (3, 2): Phi((x - 3) / 2)", t + 2, 5, S, 1, nrm));
  PetscCall(CheckStrata("l lognormal (0.1, 0.4)", t + 3, 5, S, 2, lgn));
  PetscCall(CheckStrata("t truncated normal", t + 4, 5, S, 3, trn));
  /* the mean of S stratified uniforms on [0, 1) is (S - 1) / (2 S) + mean(u) / S: within 1 / (2 S) of 1/2 */
  {
    PetscReal m = 0;
    for (PetscInt j = 0; j < S; j++) m += t[5 * j];
    PetscCall(CheckClose("x: sample mean within 1/(2S) of 1/2", m / S, 0.5, 1, 0.5 / S));
  }
  /* the two uniform columns are not the same permutation */
  {
    PetscInt same = 0;
    for (PetscInt j = 0; j < S; j++) same += (PetscInt)floor(t[5 * j] * S) == (PetscInt)floor(t[5 * j + 1] * S);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-58s %" PetscInt_FMT " of %" PetscInt_FMT "\n", "x and y in the same stratum", same, S));
    PetscCheck(same < S / 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "x and y share the stratum in %" PetscInt_FMT " of %" PetscInt_FMT " samples", same, S);
  }
  PetscCall(VICaseSetDestroy(&cs));

  PetscCall(BuildSet(PETSC_COMM_WORLD, "-cases_grid g:0:1:2 -cases_random x:uniform:0:1,n:normal:3:2 -cases_samples 50 -cases_sampling lhs", &cs));
  PetscCall(CheckShape(cs, 2 * S, 3, (const char *const[]){"g", "x", "n"}));
  PetscCall(VICaseSetGetTable(cs, &t));
  for (PetscInt g = 0; g < 2; g++) {
    PetscCall(PetscSNPrintf(what, sizeof(what), "grid point %" PetscInt_FMT ": x uniform", g));
    PetscCall(CheckStrata(what, t + 3 * S * g + 1, 3, S, 0, unit));
    PetscCall(PetscSNPrintf(what, sizeof(what), "grid point %" PetscInt_FMT ": n normal", g));
    PetscCall(CheckStrata(what, t + 3 * S * g + 2, 3, S, 1, nrm));
  }
  PetscCall(VICaseSetDestroy(&cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the standard normal */

/* The quantile of p by bisection in long double on erfcl: the lower tail for p <= 1/2, the upper one (against 1 - p, exact
   in double for p >= 1/2) above. Independent of the library's rational approximation and Halley step. */
static long double QuantileReference(double p)
{
  long double lo = p <= 0.5 ? -45 : 0, hi = p <= 0.5 ? 0 : 45, q = p <= 0.5 ? p : 1 - p;

  for (int it = 0; it < 200; it++) {
    long double x = 0.5L * (lo + hi);
    if (p <= 0.5) {
      if (0.5L * erfcl(-x / sqrtl(2.0L)) < q)
        lo = x;
      else
        hi = x;
    } else {
      if (0.5L * erfcl(x / sqrtl(2.0L)) > q)
        lo = x;
      else
        hi = x;
    }
  }
  return 0.5L * (lo + hi);
}

/* The change of Phi when x moves by one unit in the last place, plus one rounding of p: how close Phi(x) can come to p
   for the double x nearest the quantile. Relative to p it is about |x| ulp(x): below 1e-14 for p >= 1e-10 (|x| <= 6.4),
   1.6e-14 at p = 1e-20, 2.6e-13 at p = 1e-300; hence 1e-14 relative down to 1e-10, and this bound over all p. */
static PetscReal RoundTripBound(PetscReal x, PetscReal tail)
{
  PetscReal ulp = nextafter(fabs(x), PETSC_INFINITY) - fabs(x);
  return PhiDensity(x) * ulp + PETSC_MACHINE_EPSILON * tail;
}

static PetscErrorCode TestQuantile(void)
{
  const double ps[]      = {1e-300, 1e-100, 1e-20, 1e-10, 1e-3,  0.02,        0.02425, 0.0242500001, 0.1,      0.25,     0.3,      0.5,
                            0.6,    0.75,   0.9,   0.97,  0.975, 1 - 0.02425, 0.98,    1 - 1e-3,     1 - 1e-6, 1 - 1e-9, 1 - 1e-15};
  PetscReal    worst_rel = 0, worst_rel_10 = 0, worst_ulps = 0, worst_abs_hi = 0, worst_x = 0, worst_x_p = 0, worst_abs_mid = 0, worst_abs_mid_p = 0;
  PetscInt     n = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "VINormalQuantile against a long double bisection on erfcl, and the round trip through the CDF\n"));
  /* the listed p, then 2000 more: log-spaced in both tails from 1e-300 and 1e-16, linear in between */
  for (PetscInt i = 0; i < (PetscInt)(sizeof(ps) / sizeof(ps[0])) + 2000; i++) {
    double      p, x, tail, rt, ex;
    long double xr;
    if (i < (PetscInt)(sizeof(ps) / sizeof(ps[0])))
      p = ps[i];
    else {
      PetscInt j = i - (PetscInt)(sizeof(ps) / sizeof(ps[0]));
      if (j < 700)
        p = pow(10.0, -300.0 + 300.0 * j / 700);
      else if (j < 1300)
        p = 0.001 + 0.998 * (j - 700) / 599.0;
      else
        p = 1 - pow(10.0, -16.0 + 13.0 * (j - 1300) / 699.0);
    }
    x    = VINormalQuantile(p);
    xr   = p == 0.5 ? 0 : QuantileReference(p);
    ex   = xr != 0 ? (double)fabsl((x - xr) / xr) : fabs(x);
    tail = p <= 0.5 ? p : 1 - p; /* exact */
    /* the tail the quantile lies in, computed independently: Phi(x) below 1/2, 1 - Phi(x) = erfc(x / sqrt 2) / 2 above */
    rt         = p <= 0.5 ? 0.5 * erfc(-x / sqrt(2.0)) - p : 0.5 * erfc(x / sqrt(2.0)) - tail;
    worst_ulps = PetscMax(worst_ulps, fabs(rt) / RoundTripBound(x, tail));
    worst_rel  = PetscMax(worst_rel, fabs(rt) / tail);
    if (tail >= 1e-10) worst_rel_10 = PetscMax(worst_rel_10, fabs(rt) / tail);
    /* the library's own CDF near 1 is a number whose spacing is 1.1e-16: absolute */
    if (p > 0.5) worst_abs_hi = PetscMax(worst_abs_hi, fabs(VINormalCDF(x) - p));
    /* near the median the quantile comes from Phi(x) - p, whose rounding there is absolute (Phi ~ 1/2, spacing 5.5e-17):
       x is accurate to about 1e-16 absolutely, not relatively (x -> 0); relative accuracy is asked for |x| >= 0.1 */
    if (fabsl(xr) < 0.1L) {
      if (fabsl(x - xr) > worst_abs_mid) {
        worst_abs_mid   = (double)fabsl(x - xr);
        worst_abs_mid_p = p;
      }
    } else if (ex > worst_x) {
      worst_x   = ex;
      worst_x_p = p;
    }
    if (i < (PetscInt)(sizeof(ps) / sizeof(ps[0])))
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  p = %-22.17g x = %-24.17g reference %-24.17Lg relative error %.2e, tail round trip %.2e\n", p, x, xr,
                            ex, fabs(rt) / tail));
    n++;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  %" PetscInt_FMT " values of p; largest relative error of the quantile for |x| >= 0.1: %.2e at p = %.17g\n", n, worst_x,
                        worst_x_p));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  largest absolute error for |x| < 0.1: %.2e at p = %.17g\n", worst_abs_mid, worst_abs_mid_p));
  PetscCall(CheckClose("worst relative error of Q(p), |x| >= 0.1", worst_x, 0, 1, 1e-14));
  PetscCall(CheckClose("worst absolute error of Q(p), |x| < 0.1", worst_abs_mid, 0, 1, 1e-15));
  PetscCall(CheckClose("worst |tail(Q(p)) - min(p, 1-p)| / min(p, 1-p), p >= 1e-10", worst_rel_10, 0, 1, 1e-14));
  PetscCall(CheckClose("the same over all p, in units of phi(x) ulp(x) + eps min(p,1-p)", worst_ulps, 0, 1, 2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  (over all p, relative to min(p, 1-p): %.2e, set by the spacing of x at p = 1e-300)\n", worst_rel));
  PetscCall(CheckClose("worst |VINormalCDF(Q(p)) - p|, p > 1/2 (absolute)", worst_abs_hi, 0, 1, 1e-15));
  PetscCall(CheckClose("Q(0.975) = 1.959963984540054", VINormalQuantile(0.975), 1.959963984540054, 1, 1e-13));
  PetscCall(CheckClose("Q(0.5) = 0 (exact)", VINormalQuantile(0.5), 0, 1, 0));
  PetscCall(CheckClose("Q(0.25) = -Q(0.75)", VINormalQuantile(0.25), -VINormalQuantile(0.75), 0.6744897501960817, 1e-15));
  PetscCall(CheckClose("Q(0.25) = -0.6744897501960817", VINormalQuantile(0.25), -0.6744897501960817, 0.6744897501960817, 1e-15));
  PetscCall(CheckClose("Phi(-1) = 0.15865525393145705", VINormalCDF(-1), 0.15865525393145705, 0.15865525393145705, 1e-15));
  /* erfc(10 / sqrt 2): the rounding of the argument (1.1e-16) is amplified by x^2 = 100 in the relative error */
  PetscCall(CheckClose("Phi(-10) = 7.6198530241605261e-24", VINormalCDF(-10), 7.6198530241605261e-24, 7.6198530241605261e-24, 3e-14));
  PetscCall(CheckClose("Phi(0) = 1/2 (exact)", VINormalCDF(0), 0.5, 1, 0));
  PetscCheck(VINormalQuantile(0) == PETSC_NINFINITY && VINormalQuantile(1) == PETSC_INFINITY, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Q(0) = %g, Q(1) = %g, expected -inf, +inf", (double)VINormalQuantile(0), (double)VINormalQuantile(1));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  Q(0) = -inf, Q(1) = +inf\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ frequency sweeps */

static PetscErrorCode TestSweep(void)
{
  VICaseSet        cs;
  const PetscReal *t;
  PetscErrorCode   ierr;

  PetscFunctionBeginUser;
  /* a linear sweep at a = 2 Hz/s from 100 to 110 Hz takes (110 - 100) / 2 = 5 s either way; without -sweep_percent the
     set has no reference-frequency column (the rate does not depend on one) */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-load_tip_type sweep_linear -load_tip_sweep_rate 2 -cases_sweep tip:100:110\n"));
  PetscCall(BuildSet(PETSC_COMM_WORLD, "-load_tip_type sweep_linear -load_tip_sweep_rate 2 -cases_sweep tip:100:110", &cs));
  PetscCall(CheckShape(cs, 2, 3, (const char *const[]){"load_tip_frequency", "load_tip_sweep_down", "step_end_time"}));
  PetscCall(VICaseSetGetTable(cs, &t));
  {
    const PetscReal want[] = {100, 0, 5, 110, 1, 5};
    for (PetscInt i = 0; i < 6; i++) {
      char what[64];
      PetscCall(PetscSNPrintf(what, sizeof(what), "case %" PetscInt_FMT " column %" PetscInt_FMT " (exact)", i / 3, i % 3));
      PetscCall(CheckClose(what, t[i], want[i], 1, 0));
    }
  }
  PetscCall(CheckNoOptionsLeft("after the linear sweep set"));
  PetscCall(VICaseSetDestroy(&cs));

  /* sweep_log with -sweep_percent P -sweep_periods N (src/excite/excite.c): the rate is r = ln(1 + P/100) f_ref / N 1/s with
     f_ref = F0 when -sweep_reference_frequency is not given, and f(t) = f0 exp(r t), so the sweep from F0 to F1 takes
     ln(F1 / F0) / r = N ln(F1 / F0) / (f_ref ln(1 + P/100)) */
  {
    const PetscReal r = log(1.015) * 250 / 100, T = log(320.0 / 250.0) / r;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "-load_tip_type sweep_log -load_tip_sweep_percent 1.5 -load_tip_sweep_periods 100 -cases_sweep tip:250:320:up\n"));
    PetscCall(BuildSet(PETSC_COMM_WORLD,
                       "-load_tip_type sweep_log -load_tip_sweep_percent 1.5 -load_tip_sweep_periods 100 -cases_sweep tip:250:320:up", &cs));
    PetscCall(CheckShape(cs, 1, 4,
                         (const char *const[]){"load_tip_frequency", "load_tip_sweep_down", "step_end_time", "load_tip_sweep_reference_frequency"}));
    PetscCall(VICaseSetGetTable(cs, &t));
    PetscCall(CheckClose("start frequency (exact)", t[0], 250, 1, 0));
    PetscCall(CheckClose("sweep_down (exact)", t[1], 0, 1, 0));
    PetscCall(CheckClose("end time ln(320/250) / r, r = ln(1.015) 250 / 100", t[2], T, T, 1e-14));
    PetscCall(CheckClose("reference frequency F0 (exact)", t[3], 250, 1, 0));
    PetscCall(VICaseSetDestroy(&cs));

    /* both directions, from -step_start_time 1.5: the down sweep starts at 320 and keeps the reference F0 = 250, so
       it takes the same time ln(320/250) / r */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the same sweep both ways from -step_start_time 1.5\n"));
    PetscCall(BuildSet(
        PETSC_COMM_WORLD,
        "-load_tip_type sweep_log -load_tip_sweep_percent 1.5 -load_tip_sweep_periods 100 -step_start_time 1.5 -cases_sweep tip:250:320", &cs));
    PetscCall(CheckShape(cs, 2, 4,
                         (const char *const[]){"load_tip_frequency", "load_tip_sweep_down", "step_end_time", "load_tip_sweep_reference_frequency"}));
    PetscCall(VICaseSetGetTable(cs, &t));
    PetscCall(CheckClose("up: start frequency (exact)", t[0], 250, 1, 0));
    PetscCall(CheckClose("up: end time 1.5 + ln(320/250) / r", t[2], 1.5 + T, 1.5 + T, 1e-14));
    PetscCall(CheckClose("down: start frequency (exact)", t[4], 320, 1, 0));
    PetscCall(CheckClose("down: sweep_down (exact)", t[5], 1, 1, 0));
    PetscCall(CheckClose("down: end time 1.5 + ln(320/250) / r", t[6], 1.5 + T, 1.5 + T, 1e-14));
    PetscCall(CheckClose("down: reference frequency F0 (exact)", t[7], 250, 1, 0));
    PetscCall(CheckNoOptionsLeft("after the log sweep set"));
    PetscCall(VICaseSetDestroy(&cs));
  }

  /* a sweep axis joins the product: grid first, then the sweep's two directions */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-cases_grid a:1:2:2 with the linear sweep\n"));
  PetscCall(BuildSet(PETSC_COMM_WORLD, "-load_tip_type sweep_linear -load_tip_sweep_rate 4 -cases_grid a:1:2:2 -cases_sweep tip:100:110", &cs));
  PetscCall(CheckShape(cs, 4, 4, (const char *const[]){"a", "load_tip_frequency", "load_tip_sweep_down", "step_end_time"}));
  PetscCall(VICaseSetGetTable(cs, &t));
  {
    const PetscReal want[] = {1, 100, 0, 2.5, 1, 110, 1, 2.5, 2, 100, 0, 2.5, 2, 110, 1, 2.5};
    PetscInt        bad    = 0;
    for (PetscInt i = 0; i < 16; i++) bad += t[i] != want[i];
    PetscCall(CheckInt("entries of the 4 x 4 table not as expected (exact)", bad, 0));
  }
  PetscCall(VICaseSetDestroy(&cs));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-cases_sweep tip:100:110 without -load_tip_type: an error naming -load_tip_type\n"));
  PetscCall(PetscOptionsInsertString(NULL, "-cases_sweep tip:100:110"));
  PetscCall(VICaseSetCreate(PETSC_COMM_WORLD, &cs));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = VICaseSetSetFromOptions(cs);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-cases_sweep without -load_tip_type: succeeded, expected an error");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  returned error %d with PetscReturnErrorHandler\n", (int)ierr));
  PetscCall(VICaseSetDestroy(&cs));
  PetscCall(VICaseSetCreate(PETSC_COMM_WORLD, &cs));
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  ierr = VICaseSetSetFromOptions(cs);
  PetscCall(PetscPopErrorHandler());
  PetscCall(CheckFailed("-cases_sweep tip:100:110", ierr, "load_tip_type"));
  PetscCall(VICaseSetDestroy(&cs));
  PetscCall(ClearOwnedOptions());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ bad input */

static PetscErrorCode ExpectBadInput(const char opts[], const char needle[])
{
  VICaseSet      cs;
  PetscErrorCode ierr;
  PetscLogDouble before, after;

  PetscFunctionBeginUser;
  PetscCall(PetscMallocGetCurrentUsage(&before));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(VICaseSetCreate(PETSC_COMM_WORLD, &cs));
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  ierr = VICaseSetSetFromOptions(cs);
  PetscCall(PetscPopErrorHandler());
  PetscCall(VICaseSetDestroy(&cs));
  PetscCall(ClearOwnedOptions());
  PetscCall(CheckFailed(opts, ierr, needle));
  PetscCall(CheckNoOptionsLeft(opts));
  PetscCall(PetscMallocGetCurrentUsage(&after));
  PetscCheck(after == before, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %g bytes leaked on the error path", opts, (double)(after - before));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestErrors(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bad input: an error naming the option, nothing leaked\n"));
  PetscCall(ExpectBadInput("-cases_grid a:1:2", "-cases_grid: 'a:1:2'"));
  PetscCall(ExpectBadInput("-cases_grid a:1:2:0", "-cases_grid: in 'a:1:2:0', N = 0"));
  PetscCall(ExpectBadInput("-cases_grid a:1:2:2.5", "-cases_grid: in 'a:1:2:2.5', N = 2.5"));
  PetscCall(ExpectBadInput("-cases_grid a:0:2:3:log", "-cases_grid: in 'a:0:2:3:log', a logarithmic axis"));
  PetscCall(ExpectBadInput("-cases_grid a:1:2:3:cubic", "'cubic' is not 'log'"));
  PetscCall(ExpectBadInput("-cases_grid a:1:x:3", "-cases_grid: in 'a:1:x:3', 'x' is not a number"));
  PetscCall(ExpectBadInput("-cases_grid a:1:2:3,b:1:x:3", "-cases_grid: in 'b:1:x:3'"));
  PetscCall(ExpectBadInput("-cases_values c:0.1/zz", "-cases_values: in 'c:0.1/zz', 'zz'"));
  PetscCall(ExpectBadInput("-cases_values c", "-cases_values: 'c'"));
  PetscCall(ExpectBadInput("-cases_random m:gamma:1:2", "-cases_random: in 'm:gamma:1:2', unknown distribution 'gamma'"));
  PetscCall(ExpectBadInput("-cases_random m:normal:1", "-cases_random: 'm:normal:1' has 1 numbers, normal takes 2"));
  PetscCall(ExpectBadInput("-cases_random m:uniform:2:1", "-cases_random: in 'm:uniform:2:1', expected A < B"));
  PetscCall(ExpectBadInput("-cases_random m:normal:1:0", "-cases_random: in 'm:normal:1:0', expected a positive spread"));
  PetscCall(ExpectBadInput("-cases_random m:truncated_normal:0:1:2:1", "expected LO < HI"));
  PetscCall(ExpectBadInput("-cases_grid a:1:2:3 -cases_values a:1/2", "'a' is given twice"));
  PetscCall(ExpectBadInput("-cases_grid a:1:2:3 -cases_random a:uniform:0:1", "'a' is given twice"));
  PetscCall(ExpectBadInput("-cases_samples 5", "-cases_samples 5 needs random parameters"));
  PetscCall(ExpectBadInput("-cases_grid a:1:2:3 -cases_values c:1/2 -cases_random m:normal:0:1 -cases_samples 0", "-cases_samples: got 0"));
  PetscCall(ExpectBadInput("-cases_grid a:1:2:3 -cases_values c:1/2 -cases_samples 5", "-cases_samples 5 needs random parameters"));
  PetscCall(ExpectBadInput("-cases_sweep tip:110:100", "-cases_sweep: in 'tip:110:100', expected 0 < F0 < F1"));
  PetscCall(ExpectBadInput("-cases_sweep tip:100:110:sideways", "'sideways' is not up, down or both"));
  PetscCall(ExpectBadInput("-load_tip_type harmonic -cases_sweep tip:100:110", "-load_tip_type is 'harmonic'"));
  /* the excitation's own check of its options, after the case values were set for the sweep time */
  PetscCall(ExpectBadInput("-load_tip_type sweep_linear -cases_sweep tip:100:110", "-load_tip_sweep_rate"));
  PetscCall(
      ExpectBadInput("-cases_grid a:1:2:3 -load_tip_type sweep_log -load_tip_sweep_percent 1.5 -cases_sweep tip:100:110", "-load_tip_sweep_periods"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ cases as options */

static PetscErrorCode TestApply(void)
{
  VICaseSet        cs;
  const PetscReal *t;
  PetscInt         nc, np, bad = 0;
  PetscReal        v;
  PetscBool        set;
  char             text[64];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "VICaseSetApply: every parameter reads back exactly; VICaseSetRestore puts the options back\n"));
  PetscCall(BuildSet(PETSC_COMM_WORLD,
                     "-cases_grid a:0.1:0.7:3 -cases_values b:1e-300/3.3333333333333335/-7 -cases_random c:normal:0:1,d:lognormal:0:3 "
                     "-cases_samples 4 -cases_seed 3",
                     &cs));
  PetscCall(VICaseSetGetSize(cs, &nc, &np));
  PetscCall(CheckInt("cases", nc, 36));
  PetscCall(VICaseSetGetTable(cs, &t));
  /* -a was set before (it must come back), -b was set as a flag without value, -c and -d were not set (they must go) */
  PetscCall(PetscOptionsSetValue(NULL, "-a", "42.5"));
  PetscCall(PetscOptionsSetValue(NULL, "-b", NULL));
  for (PetscInt k = 0; k < nc; k++) {
    PetscCall(VICaseSetApply(cs, k));
    for (PetscInt p = 0; p < np; p++) {
      const char *name;
      char        opt[64];
      PetscCall(VICaseSetGetParameterName(cs, p, &name));
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s", name));
      PetscCall(PetscOptionsGetReal(NULL, NULL, opt, &v, &set));
      if (!set || v != t[k * np + p]) {
        bad++;
        PetscCall(
            PetscPrintf(PETSC_COMM_WORLD, "  case %" PetscInt_FMT " %s: got %.17g, expected %.17g\n", k, opt, (double)v, (double)t[k * np + p]));
      }
    }
  }
  PetscCall(CheckInt("parameters of the 36 cases not read back bit for bit", bad, 0));
  PetscCall(VICaseSetRestore(cs));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-a", text, sizeof(text), &set));
  PetscCheck(set && !strcmp(text, "42.5"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "after Restore -a is '%s' (set %d), expected '42.5'", text, (int)set);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  after Restore -a is '%s' again\n", text));
  text[0] = 'x';
  PetscCall(PetscOptionsGetString(NULL, NULL, "-b", text, sizeof(text), &set));
  PetscCheck(set && !text[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "after Restore -b is '%s' (set %d), expected a flag without value", text, (int)set);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  after Restore -b is a flag without value again\n"));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-c", &set));
  PetscCheck(!set, PETSC_COMM_SELF, PETSC_ERR_PLIB, "after Restore -c is still set");
  PetscCall(PetscOptionsHasName(NULL, NULL, "-d", &set));
  PetscCheck(!set, PETSC_COMM_SELF, PETSC_ERR_PLIB, "after Restore -d is still set");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  after Restore -c and -d are not set\n"));
  /* Restore twice is harmless; Destroy without Restore restores */
  PetscCall(VICaseSetRestore(cs));
  PetscCall(VICaseSetApply(cs, 5));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-a", &v, NULL));
  PetscCall(CheckClose("case 5: -a (exact)", v, t[5 * np], 1, 0));
  PetscCall(VICaseSetDestroy(&cs));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-a", &v, NULL));
  PetscCall(CheckClose("after Destroy without Restore: -a (exact)", v, 42.5, 1, 0));
  PetscCall(PetscOptionsClearValue(NULL, "-a"));
  PetscCall(PetscOptionsClearValue(NULL, "-b"));
  PetscCall(CheckNoOptionsLeft("after the apply test"));
  {
    PetscErrorCode ierr;
    PetscCall(BuildSet(PETSC_COMM_WORLD, "-cases_grid a:1:2:2", &cs));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = VICaseSetApply(cs, 2);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "VICaseSetApply(cs, 2) of a 2-case set succeeded, expected an error");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  VICaseSetApply(cs, 2) of a 2-case set: error %d as expected\n", (int)ierr));
    PetscCall(VICaseSetDestroy(&cs));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the same table on every rank */

static PetscErrorCode TestRepro(void)
{
  const char *jobs[] = {
      "-cases_grid a:1:2:3 -cases_values b:4/5 -cases_random " RANDOM_SPEC " -cases_samples 40 -cases_seed 5",
      "-cases_grid a:1:2:3 -cases_random " RANDOM_SPEC " -cases_samples 40 -cases_seed 5 -cases_sampling lhs",
      "-load_tip_type sweep_log -load_tip_sweep_percent 1.5 -load_tip_sweep_periods 100 -cases_sweep tip:250:320 -cases_random m:normal:0:1 "
      "-cases_samples 3"};
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the table is the same on each of the %d ranks, and the same as built on PETSC_COMM_SELF\n", size));
  for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
    VICaseSet        cs, self;
    const PetscReal *t, *ts;
    PetscReal       *mx, *mn;
    PetscInt         nc, np, nc_s, np_s, dims[2], dmax[2], dmin[2], differ = 0, differ_self = 0;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", jobs[i]));
    PetscCall(BuildSet(PETSC_COMM_WORLD, jobs[i], &cs));
    PetscCall(BuildSet(PETSC_COMM_SELF, jobs[i], &self));
    PetscCall(VICaseSetGetSize(cs, &nc, &np));
    PetscCall(VICaseSetGetSize(self, &nc_s, &np_s));
    dims[0] = nc;
    dims[1] = np;
    PetscCallMPI(MPI_Allreduce(dims, dmax, 2, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Allreduce(dims, dmin, 2, MPIU_INT, MPI_MIN, PETSC_COMM_WORLD));
    PetscCheck(dmax[0] == dmin[0] && dmax[1] == dmin[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "the ranks disagree on the size of the set");
    PetscCheck(nc == nc_s && np == np_s, PETSC_COMM_SELF, PETSC_ERR_PLIB, "WORLD and SELF sets differ in size");
    PetscCall(VICaseSetGetTable(cs, &t));
    PetscCall(VICaseSetGetTable(self, &ts));
    PetscCall(PetscMalloc2(nc * np, &mx, nc * np, &mn));
    PetscCallMPI(MPI_Allreduce(t, mx, (PetscMPIInt)(nc * np), MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Allreduce(t, mn, (PetscMPIInt)(nc * np), MPIU_REAL, MPI_MIN, PETSC_COMM_WORLD));
    for (PetscInt e = 0; e < nc * np; e++) {
      differ += mx[e] != t[e] || mn[e] != t[e];
      differ_self += ts[e] != t[e];
    }
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &differ_self, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %" PetscInt_FMT " x %" PetscInt_FMT " table\n", nc, np));
    PetscCall(CheckInt("entries where max != min over the ranks", differ, 0));
    PetscCall(CheckInt("entries where WORLD != SELF (summed over the ranks)", differ_self, 0));
    PetscCall(PetscFree2(mx, mn));
    PetscCall(VICaseSetDestroy(&self));
    PetscCall(VICaseSetDestroy(&cs));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The checks return PETSC_ERR_PLIB (77), which ctest would take for "skipped": any failure exits 1 instead. */
int main(int argc, char **argv)
{
  char           which[32] = "";
  PetscErrorCode ierr;
  PetscLogDouble before = 0, after = 0;
  const struct {
    const char *name;
    PetscErrorCode (*run)(void);
  } cases[] = {{"grid", TestGrid},   {"values", TestValues}, {"random", TestRandom}, {"lhs", TestLHS},    {"quantile", TestQuantile},
               {"sweep", TestSweep}, {"errors", TestErrors}, {"apply", TestApply},   {"repro", TestRepro}};
  PetscErrorCode (*run)(void) = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", which, sizeof(which), NULL));
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    if (!strcmp(which, cases[i].name)) run = cases[i].run;
  if (!run) {
    (void)PetscPrintf(PETSC_COMM_WORLD, "-case: expected grid, values, random, lhs, quantile, sweep, errors, apply or repro, got '%s'\n", which);
    (void)PetscFinalize();
    return 1;
  }
  {
    /* the packages allocate their registries once, on first use: not the sets' memory */
    PetscRandom rnd;
    PetscCall(VIInitializePackage());
    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    PetscCall(PetscRandomSetType(rnd, PETSCRANDER48));
    PetscCall(PetscRandomDestroy(&rnd));
  }
  PetscCall(PetscMallocGetCurrentUsage(&before));
  ierr = run();
  if (!ierr) {
    PetscCall(PetscMallocGetCurrentUsage(&after));
    after -= before;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &after, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %.0f bytes still allocated after the sets were destroyed (largest over the ranks; tolerance 0)\n",
                          which, (double)after));
  }
  if (ierr || after != 0) {
    (void)PetscPrintf(PETSC_COMM_WORLD, "test_ensemble -case %s: FAILED%s\n", which, ierr ? "" : " (memory leak)");
    (void)PetscFinalize();
    return 1;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_ensemble -case %s: all checks passed\n", which));
  PetscCall(PetscFinalize());
  return 0;
}
