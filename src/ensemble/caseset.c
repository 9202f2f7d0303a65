/* VICaseSet: the table of cases of a job — grid axes, frequency sweeps and seeded random samples. */
#include "ensembleimpl.h"
#include <vicms/excite.h>

const char *const VIDistTypes[]     = {"uniform", "normal", "lognormal", "truncated_normal", "VIDistType", "VI_DIST_", NULL};
const char *const VISamplingTypes[] = {"mc", "lhs", "VISamplingType", "VI_SAMPLING_", NULL};

PetscErrorCode VICaseSetCreate(MPI_Comm comm, VICaseSet *cs)
{
  VICaseSet c;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  c->comm        = comm;
  c->num_samples = 1;
  c->seed        = 1;
  c->sampling    = VI_SAMPLING_MONTE_CARLO;
  *cs            = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICaseSetDestroy(VICaseSet *cs)
{
  VICaseSet c;

  PetscFunctionBeginUser;
  if (!cs || !*cs) PetscFunctionReturn(PETSC_SUCCESS);
  c = *cs;
  PetscCall(VICaseSetRestore(c));
  for (PetscInt a = 0; a < c->num_axes; a++) PetscCall(PetscFree(c->axes[a].values));
  for (PetscInt p = 0; p < c->num_params; p++) PetscCall(PetscFree(c->names[p]));
  PetscCall(PetscFree(c->names));
  PetscCall(PetscFree(c->table));
  PetscCall(PetscFree(c));
  *cs = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- options of the case set */

/* Split s at sep into at most max fields (in place); returns how many. */
static PetscInt VISplit(char *s, char sep, char *fields[], PetscInt max)
{
  PetscInt n = 0;

  if (!s) return 0;
  fields[n++] = s;
  for (char *c = s; *c; c++)
    if (*c == sep) {
      *c = 0;
      if (n == max) return max + 1;
      fields[n++] = c + 1;
    }
  return n;
}

static PetscErrorCode VIParseReal(MPI_Comm comm, const char option[], const char item[], const char text[], PetscReal *v)
{
  char *end;

  PetscFunctionBeginUser;
  *v = (PetscReal)strtod(text, &end);
  PetscCheck(text[0] && !*end && !PetscIsInfOrNanReal(*v), comm, PETSC_ERR_USER_INPUT, "%s: in '%s', '%s' is not a number", option, item, text);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A job of count cases of np parameters must fit: at most VI_MAX_CASES, checked before anything of that size is
   allocated, with the memory its parameter table alone would take on every rank (the results tables come on top). */
static PetscErrorCode VICaseSetCheckCount(VICaseSet cs, PetscReal count, PetscInt np)
{
  PetscReal   bytes = count * (PetscReal)PetscMax(np, 1) * sizeof(PetscReal);
  const char *unit  = bytes >= 1e12 ? "TB" : bytes >= 1e9 ? "GB" : "MB";
  PetscReal   scale = bytes >= 1e12 ? 1e12 : bytes >= 1e9 ? 1e9 : 1e6;

  PetscFunctionBeginUser;
  PetscCheck(count <= VI_MAX_CASES, cs->comm, PETSC_ERR_USER_INPUT,
             "The case set (-cases_grid, -cases_values, -cases_sweep, -cases_samples) has %.4g cases; its parameter table alone would take %.3g %s "
             "of memory on every rank: expected at most %.0e cases (split the job into several results files)",
             (double)count, (double)(bytes / scale), unit, (double)VI_MAX_CASES);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new axis of m points and w columns; its values are filled by the caller. */
static PetscErrorCode VICaseSetAddAxis(VICaseSet cs, const char option[], PetscInt m, PetscInt w, const char *const names[], VICaseAxis **axis)
{
  VICaseAxis *a;

  PetscFunctionBeginUser;
  PetscCheck(cs->num_axes < VI_MAX_AXES, cs->comm, PETSC_ERR_USER_INPUT, "%s: at most %d axes per job", option, VI_MAX_AXES);
  a = &cs->axes[cs->num_axes++];
  PetscCall(PetscMemzero(a, sizeof(*a)));
  a->m = m;
  a->w = w;
  for (PetscInt c = 0; c < w; c++) PetscCall(PetscStrncpy(a->names[c], names[c], sizeof(a->names[c])));
  PetscCall(PetscMalloc1(m * w, &a->values));
  *axis = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VICaseSetParseGrid(VICaseSet cs, char *item)
{
  char       *f[6], copy[256];
  PetscInt    nf, m;
  PetscReal   from, to, count;
  PetscBool   logscale = PETSC_FALSE;
  VICaseAxis *axis;
  const char *name;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(copy, item, sizeof(copy)));
  nf = VISplit(item, ':', f, 5);
  PetscCheck(nf == 4 || nf == 5, cs->comm, PETSC_ERR_USER_INPUT, "-cases_grid: '%s' is not NAME:FROM:TO:N or NAME:FROM:TO:N:log", copy);
  PetscCall(VIParseReal(cs->comm, "-cases_grid", copy, f[1], &from));
  PetscCall(VIParseReal(cs->comm, "-cases_grid", copy, f[2], &to));
  PetscCall(VIParseReal(cs->comm, "-cases_grid", copy, f[3], &count));
  PetscCheck(count >= 1 && count == PetscFloorReal(count), cs->comm, PETSC_ERR_USER_INPUT, "-cases_grid: in '%s', N = %s is not a positive integer",
             copy, f[3]);
  /* before the cast and the allocation: N beyond PetscInt would wrap around */
  PetscCall(VICaseSetCheckCount(cs, count, 1));
  m = (PetscInt)count;
  if (nf == 5) {
    PetscCheck(!strcmp(f[4], "log"), cs->comm, PETSC_ERR_USER_INPUT, "-cases_grid: in '%s', '%s' is not 'log'", copy, f[4]);
    PetscCheck(from > 0 && to > 0, cs->comm, PETSC_ERR_USER_INPUT, "-cases_grid: in '%s', a logarithmic axis needs FROM > 0 and TO > 0", copy);
    logscale = PETSC_TRUE;
  }
  name = f[0];
  PetscCall(VICaseSetAddAxis(cs, "-cases_grid", m, 1, &name, &axis));
  for (PetscInt i = 0; i < m; i++) {
    PetscReal s     = m > 1 ? (PetscReal)i / (m - 1) : 0;
    axis->values[i] = logscale ? from * PetscPowReal(to / from, s) : from + s * (to - from);
  }
  if (m > 1) axis->values[m - 1] = to; /* exactly the end the user wrote */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VICaseSetParseValues(VICaseSet cs, char *item)
{
  char       *f[3], *v[VI_MAX_VALUES + 1], copy[4096];
  PetscInt    nf, m;
  VICaseAxis *axis;
  const char *name;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(copy, item, sizeof(copy)));
  nf = VISplit(item, ':', f, 2);
  PetscCheck(nf == 2 && f[1][0], cs->comm, PETSC_ERR_USER_INPUT, "-cases_values: '%s' is not NAME:V1/V2/...", copy);
  m = VISplit(f[1], '/', v, VI_MAX_VALUES);
  PetscCheck(m <= VI_MAX_VALUES, cs->comm, PETSC_ERR_USER_INPUT, "-cases_values: '%s' has more than %d values", copy, VI_MAX_VALUES);
  name = f[0];
  PetscCall(VICaseSetAddAxis(cs, "-cases_values", m, 1, &name, &axis));
  for (PetscInt i = 0; i < m; i++) PetscCall(VIParseReal(cs->comm, "-cases_values", copy, v[i], &axis->values[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The time a sweep of load LOAD takes from f_start to f_end with the job's -load_LOAD_* options and the case's values. */
static PetscErrorCode VICaseSetSweepTime(VICaseSet cs, const char load[], PetscInt n, const char *const names[], const PetscReal values[],
                                         PetscReal f_end, PetscReal *time)
{
  VIExcitation   e;
  VIExciteType   type;
  char           prefix[96], opt[128], value[64] = "";
  PetscBool      set;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "load_%s_", load));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%stype", prefix));
  PetscCall(PetscOptionsGetString(NULL, NULL, opt, value, sizeof(value), &set));
  for (type = VI_EXCITE_CONSTANT; set && VIExciteTypes[type] != NULL && type <= VI_EXCITE_NOISE; type++)
    if (!strcmp(VIExciteTypes[type], value)) break;
  PetscCheck(set && (type == VI_EXCITE_SWEEP_LINEAR || type == VI_EXCITE_SWEEP_LOG), cs->comm, PETSC_ERR_USER_INPUT,
             "-cases_sweep %s: %s is '%s'; expected sweep_linear or sweep_log (with -%ssweep_rate, or -%ssweep_percent and -%ssweep_periods)", load,
             opt, set ? value : "not set", prefix, prefix, prefix);
  PetscCall(VIOptionsOverride(&cs->saved, n, names, values));
  PetscCall(VIExcitationCreate(PETSC_COMM_SELF, &e));
  PetscCall(VIExcitationSetOptionsPrefix(e, prefix));
  /* a bad -load_LOAD_* option must not leak the excitation nor leave the case's values in the options */
  ierr = VIExcitationSetFromOptions(e);
  if (!ierr) ierr = VIExcitationGetSweepTime(e, f_end, time);
  PetscCall(VIExcitationDestroy(&e));
  PetscCall(VIOptionsRestore(&cs->saved));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VICaseSetParseSweep(VICaseSet cs, char *item)
{
  char       *f[5], copy[256], cols[4][VI_NAME_LEN];
  const char *names[4] = {cols[0], cols[1], cols[2], cols[3]};
  PetscInt    nf, ndir;
  PetscReal   f0, f1, start = 0, reference = 0;
  PetscBool   up = PETSC_TRUE, down = PETSC_TRUE, set, percent;
  VICaseAxis *axis;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(copy, item, sizeof(copy)));
  nf = VISplit(item, ':', f, 4);
  PetscCheck(nf == 3 || nf == 4, cs->comm, PETSC_ERR_USER_INPUT, "-cases_sweep: '%s' is not LOAD:F0:F1 or LOAD:F0:F1:up|down|both", copy);
  PetscCall(VIParseReal(cs->comm, "-cases_sweep", copy, f[1], &f0));
  PetscCall(VIParseReal(cs->comm, "-cases_sweep", copy, f[2], &f1));
  PetscCheck(f0 > 0 && f1 > f0, cs->comm, PETSC_ERR_USER_INPUT, "-cases_sweep: in '%s', expected 0 < F0 < F1", copy);
  if (nf == 4) {
    PetscCheck(!strcmp(f[3], "up") || !strcmp(f[3], "down") || !strcmp(f[3], "both"), cs->comm, PETSC_ERR_USER_INPUT,
               "-cases_sweep: in '%s', '%s' is not up, down or both", copy, f[3]);
    up   = strcmp(f[3], "down") ? PETSC_TRUE : PETSC_FALSE;
    down = strcmp(f[3], "up") ? PETSC_TRUE : PETSC_FALSE;
  }
  ndir = (up ? 1 : 0) + (down ? 1 : 0);
  PetscCall(PetscSNPrintf(cols[0], VI_NAME_LEN, "load_%s_frequency", f[0]));
  PetscCall(PetscSNPrintf(cols[1], VI_NAME_LEN, "load_%s_sweep_down", f[0]));
  PetscCall(PetscStrncpy(cols[2], "step_end_time", VI_NAME_LEN));
  {
    char opt[VI_NAME_LEN + 2];
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-load_%s_sweep_percent", f[0]));
    PetscCall(PetscOptionsHasName(NULL, NULL, opt, &percent));
    /* a rate in percent refers to one frequency: the user's, or F0 for both directions (not each start frequency) */
    if (percent) {
      PetscCall(PetscSNPrintf(cols[3], VI_NAME_LEN, "load_%s_sweep_reference_frequency", f[0]));
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s", cols[3]));
      PetscCall(PetscOptionsGetReal(NULL, NULL, opt, &reference, &set));
      if (!set) reference = f0;
    }
  }
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-step_start_time", &start, NULL));
  {
    /* the options of the sweep's time function first (frequency, direction, reference), then the end time */
    const char *opts[3] = {cols[0], cols[1], cols[3]};
    PetscInt    w       = percent ? 4 : 3;
    PetscCall(VICaseSetAddAxis(cs, "-cases_sweep", ndir, w, names, &axis));
    for (PetscInt d = 0, row = 0; d < 2; d++) {
      PetscReal *v = axis->values + w * row, fn[3], duration;
      if ((d == 0 && !up) || (d == 1 && !down)) continue;
      fn[0] = v[0] = d == 0 ? f0 : f1;
      fn[1] = v[1] = d;
      fn[2]        = reference;
      if (percent) v[3] = reference;
      PetscCall(VICaseSetSweepTime(cs, f[0], percent ? 3 : 2, opts, fn, d == 0 ? f1 : f0, &duration));
      v[2] = start + duration;
      row++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VICaseSetParseRandom(VICaseSet cs, char *item)
{
  char        *f[7], copy[256];
  PetscInt     nf, need;
  VIRandomPar *r;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(copy, item, sizeof(copy)));
  PetscCheck(cs->num_random < VI_MAX_RANDOM, cs->comm, PETSC_ERR_USER_INPUT, "-cases_random: at most %d random parameters", VI_MAX_RANDOM);
  r  = &cs->random[cs->num_random];
  nf = VISplit(item, ':', f, 6);
  PetscCheck(nf >= 2 && nf <= 6, cs->comm, PETSC_ERR_USER_INPUT, "-cases_random: '%s' is not NAME:DISTRIBUTION:PARAMETERS", copy);
  for (r->dist = VI_DIST_UNIFORM; r->dist <= VI_DIST_TRUNCATED_NORMAL; r->dist++)
    if (!strcmp(f[1], VIDistTypes[r->dist])) break;
  PetscCheck(r->dist <= VI_DIST_TRUNCATED_NORMAL, cs->comm, PETSC_ERR_USER_INPUT,
             "-cases_random: in '%s', unknown distribution '%s' (expected uniform, normal, lognormal or truncated_normal)", copy, f[1]);
  need = r->dist == VI_DIST_TRUNCATED_NORMAL ? 6 : 4;
  PetscCheck(nf == need, cs->comm, PETSC_ERR_USER_INPUT, "-cases_random: '%s' has %" PetscInt_FMT " numbers, %s takes %" PetscInt_FMT " (%s)", copy,
             nf - 2, f[1], need - 2,
             r->dist == VI_DIST_UNIFORM     ? "A:B"
             : r->dist == VI_DIST_NORMAL    ? "MEAN:SD"
             : r->dist == VI_DIST_LOGNORMAL ? "MU:SIGMA of the logarithm"
                                            : "MEAN:SD:LO:HI");
  for (PetscInt i = 2; i < nf; i++) PetscCall(VIParseReal(cs->comm, "-cases_random", copy, f[i], &r->a[i - 2]));
  PetscCheck(r->dist != VI_DIST_UNIFORM || r->a[1] > r->a[0], cs->comm, PETSC_ERR_USER_INPUT, "-cases_random: in '%s', expected A < B", copy);
  PetscCheck(r->dist == VI_DIST_UNIFORM || r->a[1] > 0, cs->comm, PETSC_ERR_USER_INPUT, "-cases_random: in '%s', expected a positive spread", copy);
  PetscCheck(r->dist != VI_DIST_TRUNCATED_NORMAL || r->a[3] > r->a[2], cs->comm, PETSC_ERR_USER_INPUT, "-cases_random: in '%s', expected LO < HI",
             copy);
  PetscCall(PetscStrncpy(r->name, f[0], sizeof(r->name)));
  cs->num_random++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- sampling */

PetscReal VINormalCDF(PetscReal x)
{
  return 0.5 * erfc(-x / PetscSqrtReal(2.0));
}

/* Acklam's rational approximation (relative error 1.15e-9), refined by one Halley step on the CDF. */
PetscReal VINormalQuantile(PetscReal p)
{
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
  double              x, q, r, e, u;

  if (p <= 0) return PETSC_NINFINITY;
  if (p >= 1) return PETSC_INFINITY;
  /* the upper half by symmetry: 1 - p is exact for p >= 1/2, while the Halley step's VINormalCDF(x) - p near 1 has only
     absolute accuracy (x off by 5e-11 relative at p = 1 - 1e-9) */
  if (p > 0.5) return -VINormalQuantile(1 - p);
  if (p < 0.02425) {
    q = sqrt(-2 * log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    q = p - 0.5;
    r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  e = VINormalCDF(x) - p;
  u = e * sqrt(2 * PETSC_PI) * exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

/* The value of a random parameter at probability u in (0, 1): the inverse of its cumulative distribution. */
static PetscReal VIRandomValue(const VIRandomPar *r, PetscReal u)
{
  switch (r->dist) {
  case VI_DIST_UNIFORM:
    return r->a[0] + u * (r->a[1] - r->a[0]);
  case VI_DIST_NORMAL:
    return r->a[0] + r->a[1] * VINormalQuantile(u);
  case VI_DIST_LOGNORMAL:
    return PetscExpReal(r->a[0] + r->a[1] * VINormalQuantile(u));
  case VI_DIST_TRUNCATED_NORMAL: {
    PetscReal lo = VINormalCDF((r->a[2] - r->a[0]) / r->a[1]), hi = VINormalCDF((r->a[3] - r->a[0]) / r->a[1]);
    PetscReal x = r->a[0] + r->a[1] * VINormalQuantile(lo + u * (hi - lo));
    return PetscMin(PetscMax(x, r->a[2]), r->a[3]);
  }
  }
  return 0;
}

/* A uniform number in (0, 1), never exactly 0. */
static PetscErrorCode VIUniform(PetscRandom rnd, PetscReal *u)
{
  PetscFunctionBeginUser;
  do PetscCall(PetscRandomGetValueReal(rnd, u));
  while (*u <= 0 || *u >= 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The S samples of grid point g: rows out[j * ld + r] for parameter r. The generator is seeded from (seed, g) only. */
static PetscErrorCode VICaseSetSample(VICaseSet cs, PetscInt g, PetscReal out[], PetscInt ld)
{
  PetscRandom   rnd;
  PetscInt      S = cs->num_samples, *perm;
  unsigned long seed;

  PetscFunctionBeginUser;
  /* splitmix64 of (seed, g): neighbouring grid points get unrelated streams */
  {
    unsigned long long z = (unsigned long long)cs->seed * 0x9E3779B97F4A7C15ULL + (unsigned long long)(g + 1) * 0xBF58476D1CE4E5B9ULL;
    z                    = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z                    = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    seed                 = (unsigned long)((z ^ (z >> 31)) & 0xFFFFFFFFFFFFULL);
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetType(rnd, PETSCRANDER48));
  PetscCall(PetscRandomSetSeed(rnd, seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscMalloc1(S, &perm));
  for (PetscInt r = 0; r < cs->num_random; r++) {
    if (cs->sampling == VI_SAMPLING_LATIN_HYPERCUBE) {
      /* one sample per stratum [i/S, (i+1)/S), strata shuffled (Fisher-Yates) independently per parameter */
      for (PetscInt j = 0; j < S; j++) perm[j] = j;
      for (PetscInt j = S - 1; j > 0; j--) {
        PetscReal u;
        PetscInt  i, t;
        PetscCall(VIUniform(rnd, &u));
        i       = PetscMin((PetscInt)(u * (j + 1)), j);
        t       = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
      }
    }
    for (PetscInt j = 0; j < S; j++) {
      PetscReal u;
      PetscCall(VIUniform(rnd, &u));
      if (cs->sampling == VI_SAMPLING_LATIN_HYPERCUBE) u = (perm[j] + u) / S;
      out[j * ld + r] = VIRandomValue(&cs->random[r], u);
    }
  }
  PetscCall(PetscFree(perm));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- the table */

static PetscErrorCode VICaseSetBuild(VICaseSet cs)
{
  PetscInt  ngrid = 1, np = 0, S = cs->num_samples;
  PetscReal count = S;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < cs->num_axes; a++) {
    count *= cs->axes[a].m; /* in floating point: the product of the axes may not fit a PetscInt */
    np += cs->axes[a].w;
  }
  np += cs->num_random;
  PetscCall(VICaseSetCheckCount(cs, count, np));
  for (PetscInt a = 0; a < cs->num_axes; a++) ngrid *= cs->axes[a].m;
  cs->num_params = np;
  cs->num_cases  = ngrid * S;
  PetscCall(PetscMalloc1(PetscMax(np, 1), &cs->names));
  {
    PetscInt c = 0;
    for (PetscInt a = 0; a < cs->num_axes; a++)
      for (PetscInt k = 0; k < cs->axes[a].w; k++) PetscCall(PetscStrallocpy(cs->axes[a].names[k], &cs->names[c++]));
    for (PetscInt r = 0; r < cs->num_random; r++) PetscCall(PetscStrallocpy(cs->random[r].name, &cs->names[c++]));
    for (PetscInt i = 0; i < np; i++)
      for (PetscInt j = 0; j < i; j++)
        PetscCheck(strcmp(cs->names[i], cs->names[j]), cs->comm, PETSC_ERR_USER_INPUT,
                   "The case parameter '%s' is given twice (-cases_grid, -cases_values, -cases_sweep, -cases_random)", cs->names[i]);
  }
  PetscCall(PetscMalloc1(PetscMax(cs->num_cases * np, 1), &cs->table));
  for (PetscInt g = 0; g < ngrid; g++) {
    PetscReal *row0 = cs->table + g * S * np;
    PetscInt   rest = g, c = 0;
    /* the first axis slowest: decompose g from the last axis */
    PetscInt idx[VI_MAX_AXES];
    for (PetscInt a = cs->num_axes - 1; a >= 0; a--) {
      idx[a] = rest % cs->axes[a].m;
      rest /= cs->axes[a].m;
    }
    for (PetscInt a = 0; a < cs->num_axes; a++)
      for (PetscInt k = 0; k < cs->axes[a].w; k++, c++)
        for (PetscInt j = 0; j < S; j++) row0[j * np + c] = cs->axes[a].values[idx[a] * cs->axes[a].w + k];
    if (cs->num_random) PetscCall(VICaseSetSample(cs, g, row0 + c, np));
  }
  for (PetscInt a = 0; a < cs->num_axes; a++) PetscCall(PetscFree(cs->axes[a].values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICaseSetSetFromOptions(VICaseSet cs)
{
  char     *grid[VI_MAX_AXES], *values[VI_MAX_AXES], *sweeps[VI_MAX_AXES], *random[VI_MAX_RANDOM];
  PetscInt  ngrid = VI_MAX_AXES, nvalues = VI_MAX_AXES, nsweeps = VI_MAX_AXES, nrandom = VI_MAX_RANDOM, seed = cs->seed;
  PetscBool has_samples;

  PetscFunctionBeginUser;
  PetscCheck(!cs->table, cs->comm, PETSC_ERR_ORDER, "The case set is already set up");
  PetscOptionsBegin(cs->comm, NULL, "Case set: grids, sweeps and samples of case parameters", "VICaseSet");
  PetscCall(PetscOptionsStringArray("-cases_grid", "Grid axes NAME:FROM:TO:N[:log] over case options (without the dash)", "VICaseSetSetFromOptions",
                                    grid, &ngrid, NULL));
  PetscCall(PetscOptionsStringArray("-cases_values", "Axes of explicit values NAME:V1/V2/...", "VICaseSetSetFromOptions", values, &nvalues, NULL));
  PetscCall(PetscOptionsStringArray("-cases_sweep", "Frequency sweeps LOAD:F0:F1[:up|down|both] of a load with a sweep time function",
                                    "VICaseSetSetFromOptions", sweeps, &nsweeps, NULL));
  PetscCall(PetscOptionsStringArray(
      "-cases_random", "Random parameters NAME:uniform:A:B, NAME:normal:MEAN:SD, NAME:lognormal:MU:SIGMA, NAME:truncated_normal:MEAN:SD:LO:HI",
      "VICaseSetSetFromOptions", random, &nrandom, NULL));
  PetscCall(
      PetscOptionsInt("-cases_samples", "Samples of the random parameters per grid point", "", cs->num_samples, &cs->num_samples, &has_samples));
  PetscCall(PetscOptionsEnum("-cases_sampling", "Sampling of the random parameters: mc (Monte Carlo) or lhs (Latin hypercube)", "", VISamplingTypes,
                             (PetscEnum)cs->sampling, (PetscEnum *)&cs->sampling, NULL));
  PetscCall(PetscOptionsInt("-cases_seed", "Seed of the job's random samples", "", seed, &seed, NULL));
  PetscOptionsEnd();
  cs->seed = seed;
  {
    PetscErrorCode ierr = PETSC_SUCCESS;
    for (PetscInt i = 0; i < ngrid && !ierr; i++) ierr = VICaseSetParseGrid(cs, grid[i]);
    for (PetscInt i = 0; i < nvalues && !ierr; i++) ierr = VICaseSetParseValues(cs, values[i]);
    for (PetscInt i = 0; i < nsweeps && !ierr; i++) ierr = VICaseSetParseSweep(cs, sweeps[i]);
    for (PetscInt i = 0; i < nrandom && !ierr; i++) ierr = VICaseSetParseRandom(cs, random[i]);
    for (PetscInt i = 0; i < ngrid; i++) PetscCall(PetscFree(grid[i]));
    for (PetscInt i = 0; i < nvalues; i++) PetscCall(PetscFree(values[i]));
    for (PetscInt i = 0; i < nsweeps; i++) PetscCall(PetscFree(sweeps[i]));
    for (PetscInt i = 0; i < nrandom; i++) PetscCall(PetscFree(random[i]));
    if (ierr) {
      for (PetscInt a = 0; a < cs->num_axes; a++) PetscCall(PetscFree(cs->axes[a].values));
      cs->num_axes = 0;
    }
    PetscCall(ierr);
  }
  /* after the option strings are freed: an error here would leak them */
  PetscCheck(cs->num_samples >= 1, cs->comm, PETSC_ERR_USER_INPUT, "-cases_samples: got %" PetscInt_FMT ", expected >= 1", cs->num_samples);
  PetscCheck(!has_samples || cs->num_samples == 1 || nrandom > 0, cs->comm, PETSC_ERR_USER_INPUT,
             "-cases_samples %" PetscInt_FMT " needs random parameters (-cases_random)", cs->num_samples);
  PetscCall(VICaseSetBuild(cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICaseSetGetSize(VICaseSet cs, PetscInt *num_cases, PetscInt *num_params)
{
  PetscFunctionBeginUser;
  if (num_cases) *num_cases = cs->num_cases;
  if (num_params) *num_params = cs->num_params;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICaseSetGetParameterName(VICaseSet cs, PetscInt p, const char **name)
{
  PetscFunctionBeginUser;
  PetscCheck(p >= 0 && p < cs->num_params, cs->comm, PETSC_ERR_ARG_OUTOFRANGE, "No parameter %" PetscInt_FMT, p);
  *name = cs->names[p];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICaseSetGetTable(VICaseSet cs, const PetscReal **table)
{
  PetscFunctionBeginUser;
  *table = cs->table;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICaseSetIsSampled(VICaseSet cs, PetscBool *sampled)
{
  PetscFunctionBeginUser;
  *sampled = cs->num_random > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICaseSetApply(VICaseSet cs, PetscInt k)
{
  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k < cs->num_cases, cs->comm, PETSC_ERR_ARG_OUTOFRANGE, "No case %" PetscInt_FMT, k);
  PetscCall(VIOptionsOverride(&cs->saved, cs->num_params, (const char *const *)cs->names, cs->table + k * cs->num_params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICaseSetRestore(VICaseSet cs)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRestore(&cs->saved));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICaseSetView(VICaseSet cs, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(cs->comm, &viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "Cases: %" PetscInt_FMT, cs->num_cases));
  if (cs->num_params) {
    PetscCall(PetscViewerASCIIPrintf(viewer, " over"));
    for (PetscInt p = 0; p < cs->num_params; p++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s %s", p ? "," : "", cs->names[p]));
  }
  if (cs->num_random)
    PetscCall(PetscViewerASCIIPrintf(viewer, "; %" PetscInt_FMT " %s sample%s per grid point, seed %" PetscInt_FMT, cs->num_samples,
                                     cs->sampling == VI_SAMPLING_LATIN_HYPERCUBE ? "Latin hypercube" : "Monte Carlo", cs->num_samples == 1 ? "" : "s",
                                     cs->seed));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
