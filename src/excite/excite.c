/* VIExcitation: the object, its options and set functions, the checks of its parameters, the noise tables, its view. */
#include "exciteimpl.h"
#include <petscviewer.h>
#include <unistd.h>

const char *const VIExciteTypes[] = {"constant", "harmonic", "sweep_linear", "sweep_log", "bump", "noise", "VIExciteType", "VI_EXCITE_", NULL};

#define VI_EXCITE_NUM_TYPES 6

/* ------------------------------------------------------------------ checks (messages name the option, with the prefix) */

static PetscBool VIExciteIsSweep(VIExciteType type)
{
  return (type == VI_EXCITE_SWEEP_LINEAR || type == VI_EXCITE_SWEEP_LOG) ? PETSC_TRUE : PETSC_FALSE;
}

/* A harmonic, sweep or bump of frequency 0 would be a constant (which has its own type) or a division by zero. */
static PetscErrorCode VIExciteCheckFrequency(MPI_Comm comm, const char p[], PetscReal f, VIExciteType type)
{
  PetscFunctionBeginUser;
  if (type == VI_EXCITE_HARMONIC || VIExciteIsSweep(type) || type == VI_EXCITE_BUMP)
    PetscCheck(f > 0 && !PetscIsInfReal(f), comm, PETSC_ERR_USER_INPUT, "-%sfrequency: got %g Hz, expected a positive frequency for -%stype %s", p,
               (double)f, p, VIExciteTypes[type]);
  else
    PetscCheck(f >= 0 && !PetscIsInfReal(f), comm, PETSC_ERR_USER_INPUT, "-%sfrequency: got %g Hz, expected a frequency >= 0", p, (double)f);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIExciteCheckSweepRate(MPI_Comm comm, const char p[], PetscReal rate, VIExciteType type)
{
  PetscFunctionBeginUser;
  PetscCheck(rate > 0 && !PetscIsInfReal(rate), comm, PETSC_ERR_USER_INPUT,
             "-%ssweep_rate: got %g %s, expected a positive sweep rate (or -%ssweep_percent with -%ssweep_periods; -%ssweep_down reverses the "
             "sweep)",
             p, (double)rate, type == VI_EXCITE_SWEEP_LOG ? "1/s" : "Hz/s", p, p, p);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Evaluate sums the two pulses that bracket t; the others are at least T away, so w <= T/6 bounds what is left out by
   2 exp(-T^2 / (2 w^2)) <= 2 exp(-18) = 3.0e-8 of the amplitude. */
static PetscErrorCode VIExciteCheckBump(MPI_Comm comm, const char p[], PetscReal f, PetscReal center, PetscReal width)
{
  PetscReal T = 1 / f;

  PetscFunctionBeginUser;
  PetscCheck(width > 0 && width <= T / 6, comm, PETSC_ERR_USER_INPUT,
             "-%sbump_width: got %g s, expected 0 < w <= T/6 = %g s (T = 1/f = %g s; only the two nearest pulses are summed)", p, (double)width,
             (double)(T / 6), (double)T);
  PetscCheck(center >= 0 && center < T, comm, PETSC_ERR_USER_INPUT,
             "-%sbump_center: got %g s, expected a time within the first period, 0 <= t_c < %g s", p, (double)center, (double)T);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool VIExciteNoiseBandValid(PetscReal lo, PetscReal hi)
{
  return (lo > 0 && hi > lo && !PetscIsInfReal(hi)) ? PETSC_TRUE : PETSC_FALSE;
}

static PetscErrorCode VIExciteCheckNoise(MPI_Comm comm, const char p[], PetscReal lo, PetscReal hi, PetscInt n, PetscInt seed)
{
  PetscFunctionBeginUser;
  PetscCheck(VIExciteNoiseBandValid(lo, hi), comm, PETSC_ERR_USER_INPUT, "-%snoise_band: got %g,%g Hz, expected f_lo,f_hi with 0 < f_lo < f_hi", p,
             (double)lo, (double)hi);
  PetscCheck(n >= 1, comm, PETSC_ERR_USER_INPUT, "-%snoise_harmonics: got %" PetscInt_FMT ", expected at least 1", p, n);
  {
    /* the tables (VIExciteBuildNoise) are estimated before they are allocated: a failed allocation would end in a traceback */
    const double need = 3.0 * sizeof(PetscReal) * (double)n, have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    PetscCheck(have <= 0 || need <= 0.5 * have, comm, PETSC_ERR_USER_INPUT,
               "-%snoise_harmonics: %" PetscInt_FMT " harmonics need %.3g GB for their tables (3 x %d bytes each), more than half of this "
               "machine's memory (%.3g GB); every step also sums them all: give fewer harmonics",
               p, n, need / 1e9, (int)sizeof(PetscReal), have / 1e9);
  }
  PetscCheck(seed >= 0, comm, PETSC_ERR_USER_INPUT, "-%sseed: got %" PetscInt_FMT ", expected an integer >= 0", p, seed);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIExcitationCheck(VIExcitation e, MPI_Comm comm)
{
  const char *p = e->prefix;

  PetscFunctionBeginUser;
  PetscCheck((int)e->type >= 0 && (int)e->type < VI_EXCITE_NUM_TYPES, comm, PETSC_ERR_ARG_OUTOFRANGE, "Unknown excitation type %d", (int)e->type);
  PetscCall(VIExciteCheckFrequency(comm, p, e->frequency, e->type));
  if (VIExciteIsSweep(e->type)) PetscCall(VIExciteCheckSweepRate(comm, p, e->sweep_rate, e->type));
  if (e->type == VI_EXCITE_BUMP) PetscCall(VIExciteCheckBump(comm, p, e->frequency, e->bump_center, e->bump_width));
  if (e->type == VI_EXCITE_NOISE) PetscCall(VIExciteCheckNoise(comm, p, e->noise_lo, e->noise_hi, e->noise_harmonics, e->seed));
  e->checked = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ noise tables */

/*
  The n harmonics of the noise: f_k = f_lo + k (f_hi - f_lo) / (n - 1) (the band centre when n = 1), phases theta_k uniform
  in [0, 2 pi) from a PetscRandom of fixed type seeded with the seed, so that the series depends on the seed only.
*/
static PetscErrorCode VIExciteBuildNoise(VIExcitation e)
{
  PetscRandom rnd;
  PetscInt    n = e->noise_harmonics;

  PetscFunctionBeginUser;
  PetscCall(PetscFree3(e->noise_omega, e->noise_cos, e->noise_sin));
  e->noise_n = 0;
  PetscCall(PetscMalloc3(n, &e->noise_omega, n, &e->noise_cos, n, &e->noise_sin));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetType(rnd, PETSCRANDER48));
  PetscCall(PetscRandomSetInterval(rnd, 0, 2 * PETSC_PI));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)e->seed));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt k = 0; k < n; k++) {
    PetscReal f = n == 1 ? (e->noise_lo + e->noise_hi) / 2 : e->noise_lo + (e->noise_hi - e->noise_lo) * (PetscReal)k / (PetscReal)(n - 1), theta;

    e->noise_omega[k] = 2 * PETSC_PI * f;
    PetscCall(PetscRandomGetValueReal(rnd, &theta));
    e->noise_cos[k] = PetscCosReal(theta);
    e->noise_sin[k] = PetscSinReal(theta);
  }
  PetscCall(PetscRandomDestroy(&rnd));
  e->noise_n      = n;
  e->noise_domega = n == 1 ? 0 : 2 * PETSC_PI * (e->noise_hi - e->noise_lo) / (PetscReal)(n - 1);
  e->noise_scale  = PetscSqrtReal(2 / (PetscReal)n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ object */

/*
  VIExcitationCreate - a constant excitation s(t) = 1 (offset 0, amplitude 1); the other types need their parameters
  (frequency, sweep rate, bump width, noise band) before they can be evaluated. Not collective (comm is for messages).
*/
PetscErrorCode VIExcitationCreate(MPI_Comm comm, VIExcitation *e)
{
  VIExcitation x;

  PetscFunctionBeginUser;
  PetscCall(VIInitializePackage());
  PetscCall(PetscNew(&x));
  x->comm            = comm;
  x->type            = VI_EXCITE_CONSTANT;
  x->amplitude       = 1;
  x->noise_harmonics = 256;
  PetscCall(PetscStrallocpy("", &x->prefix));
  *e = x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIExcitationDestroy(VIExcitation *e)
{
  PetscFunctionBeginUser;
  if (!e || !*e) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree3((*e)->noise_omega, (*e)->noise_cos, (*e)->noise_sin));
  PetscCall(PetscFree((*e)->prefix));
  PetscCall(PetscFree(*e));
  *e = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIExcitationSetOptionsPrefix(VIExcitation e, const char prefix[])
{
  PetscFunctionBeginUser;
  PetscCheck(!prefix || prefix[0] != '-', e->comm, PETSC_ERR_ARG_WRONG, "Options prefix '%s' should not begin with a hyphen", prefix);
  PetscCall(PetscFree(e->prefix));
  PetscCall(PetscStrallocpy(prefix ? prefix : "", &e->prefix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIExcitationSetType(VIExcitation e, VIExciteType type)
{
  PetscFunctionBeginUser;
  PetscCheck((int)type >= 0 && (int)type < VI_EXCITE_NUM_TYPES, e->comm, PETSC_ERR_ARG_OUTOFRANGE, "Unknown excitation type %d", (int)type);
  e->type    = type;
  e->checked = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIExcitationSetAmplitude(VIExcitation e, PetscReal offset, PetscReal amplitude)
{
  PetscFunctionBeginUser;
  e->offset    = offset;
  e->amplitude = amplitude;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIExcitationSetHarmonic(VIExcitation e, PetscReal frequency, PetscReal phase)
{
  PetscFunctionBeginUser;
  PetscCall(VIExciteCheckFrequency(e->comm, e->prefix, frequency, VI_EXCITE_HARMONIC));
  e->frequency = frequency;
  e->phase     = phase;
  e->checked   = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f0 is the frequency at t = 0; rate > 0 in Hz/s (sweep_linear) or 1/s (sweep_log), the direction is given by down. */
PetscErrorCode VIExcitationSetSweep(VIExcitation e, PetscReal f0, PetscReal rate, PetscBool down)
{
  VIExciteType type = VIExciteIsSweep(e->type) ? e->type : VI_EXCITE_SWEEP_LINEAR;

  PetscFunctionBeginUser;
  PetscCall(VIExciteCheckFrequency(e->comm, e->prefix, f0, type));
  PetscCall(VIExciteCheckSweepRate(e->comm, e->prefix, rate, type));
  e->frequency  = f0;
  e->sweep_rate = rate;
  e->sweep_down = down;
  e->checked    = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIExcitationSetBump(VIExcitation e, PetscReal frequency, PetscReal center, PetscReal width)
{
  PetscFunctionBeginUser;
  PetscCall(VIExciteCheckFrequency(e->comm, e->prefix, frequency, VI_EXCITE_BUMP));
  PetscCall(VIExciteCheckBump(e->comm, e->prefix, frequency, center, width));
  e->frequency   = frequency;
  e->bump_center = center;
  e->bump_width  = width;
  e->checked     = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Builds the tables of the n harmonics here, so that VIExcitationEvaluate never allocates. */
PetscErrorCode VIExcitationSetNoise(VIExcitation e, PetscReal f_lo, PetscReal f_hi, PetscInt harmonics, PetscInt seed)
{
  PetscFunctionBeginUser;
  PetscCall(VIExciteCheckNoise(e->comm, e->prefix, f_lo, f_hi, harmonics, seed));
  e->noise_lo        = f_lo;
  e->noise_hi        = f_hi;
  e->noise_harmonics = harmonics;
  e->seed            = seed;
  e->checked         = PETSC_FALSE;
  PetscCall(VIExciteBuildNoise(e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  An unknown -type is refused before the options block: PETSc 3.18 leaks on that error, both in PetscOptionsGetEList
  (the value and the list of choices) and in PetscOptionsBegin (an error inside the block skips PetscOptionsEnd).
*/
static PetscErrorCode VIExciteCheckTypeOption(VIExcitation e)
{
  char      value[64];
  PetscBool set, found;
  PetscInt  type;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, e->prefix[0] ? e->prefix : NULL, "-type", value, sizeof(value), &set));
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscEListFind(VI_EXCITE_NUM_TYPES, VIExciteTypes, value, &type, &found));
  PetscCheck(found, e->comm, PETSC_ERR_USER_INPUT, "-%stype: got '%s', expected one of constant, harmonic, sweep_linear, sweep_log, bump, noise",
             e->prefix, value);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIExcitationSetFromOptions - reads the options of excite.h (with the object's prefix) in one block, checks them, and
  only then changes the object: on error the object is left as it was. Collective on the object's communicator.

  -sweep_percent P -sweep_periods N (seed 000 §5.2, "+1.5 % in 100 pseudo-periods") give the sweep rate from the
  reference frequency f_ref: the sweep lasts N / f_ref seconds, so a = P f_ref^2 / (100 N) Hz/s (sweep_linear) or
  r = ln(1 + P/100) f_ref / N 1/s (sweep_log).
*/
PetscErrorCode VIExcitationSetFromOptions(VIExcitation e)
{
  struct _p_VIExcitation c = *e; /* the candidate state */
  const char            *p = e->prefix;
  PetscReal              band[2], percent, periods, reference;
  PetscInt               nband = 2;
  PetscBool              set_rate, set_percent, set_periods, set_reference, set_width, set_band, rebuild;

  PetscFunctionBeginUser;
  PetscCall(VIExciteCheckTypeOption(e));
  PetscOptionsBegin(e->comm, p[0] ? p : NULL, "Excitation: a scalar function of time for a load or an imposed gap", "VIExcitation");
  PetscCall(PetscOptionsEnum("-type", "Time function: constant, harmonic, sweep_linear, sweep_log, bump, noise", "VIExcitationSetType", VIExciteTypes,
                             (PetscEnum)c.type, (PetscEnum *)&c.type, NULL));
  PetscCall(
      PetscOptionsReal("-offset", "Constant part: s(t) = offset + amplitude * shape(t)", "VIExcitationSetAmplitude", c.offset, &c.offset, NULL));
  PetscCall(PetscOptionsReal("-amplitude", "Amplitude of the shape (noise: its RMS)", "VIExcitationSetAmplitude", c.amplitude, &c.amplitude, NULL));
  PetscCall(PetscOptionsReal("-frequency", "Frequency (Hz): of a harmonic, at the start of a sweep, of repetition of a bump",
                             "VIExcitationSetHarmonic", c.frequency, &c.frequency, NULL));
  PetscCall(PetscOptionsReal("-phase", "Phase (rad) of a harmonic or a sweep", "VIExcitationSetHarmonic", c.phase, &c.phase, NULL));
  PetscCall(PetscOptionsReal("-sweep_rate", "Sweep rate, positive: Hz/s for sweep_linear, 1/s for sweep_log", "VIExcitationSetSweep", c.sweep_rate,
                             &c.sweep_rate, &set_rate));
  PetscCall(PetscOptionsBool("-sweep_down", "Sweep towards lower frequencies", "VIExcitationSetSweep", c.sweep_down, &c.sweep_down, NULL));
  percent = 0;
  PetscCall(PetscOptionsReal("-sweep_percent", "Instead of -sweep_rate: the sweep covers P % of the reference frequency ...", "VIExcitationSetSweep",
                             percent, &percent, &set_percent));
  periods = 0;
  PetscCall(PetscOptionsReal("-sweep_periods", "... in N pseudo-periods 1/f_ref (seed 000 §5.2: 1.5 % in 100)", "VIExcitationSetSweep", periods,
                             &periods, &set_periods));
  reference = c.frequency;
  PetscCall(PetscOptionsReal("-sweep_reference_frequency", "Reference frequency f_ref (Hz) of -sweep_percent and -sweep_periods (default -frequency)",
                             "VIExcitationSetSweep", reference, &reference, &set_reference));
  PetscCall(PetscOptionsReal("-bump_center", "Time (s) of the first bump, within the first period", "VIExcitationSetBump", c.bump_center,
                             &c.bump_center, NULL));
  PetscCall(PetscOptionsReal("-bump_width", "Standard deviation w (s) of the Gaussian bump, 0 < w <= T/6", "VIExcitationSetBump", c.bump_width,
                             &c.bump_width, &set_width));
  band[0] = c.noise_lo;
  band[1] = c.noise_hi;
  PetscCall(PetscOptionsRealArray("-noise_band", "Band f_lo,f_hi (Hz) of the noise harmonics", "VIExcitationSetNoise", band, &nband, &set_band));
  PetscCall(PetscOptionsInt("-noise_harmonics", "Number of harmonics of the noise, evenly spaced in the band", "VIExcitationSetNoise",
                            c.noise_harmonics, &c.noise_harmonics, NULL));
  PetscCall(PetscOptionsInt("-seed", "Seed of the random phases of the noise", "VIExcitationSetNoise", c.seed, &c.seed, NULL));
  PetscOptionsEnd();

  /* each given value on its own, whatever the type */
  PetscCall(VIExciteCheckFrequency(e->comm, p, c.frequency, VI_EXCITE_CONSTANT));
  if (set_rate) PetscCall(VIExciteCheckSweepRate(e->comm, p, c.sweep_rate, c.type));
  if (set_percent || set_periods) {
    PetscReal duration;

    PetscCheck(set_percent && set_periods, e->comm, PETSC_ERR_USER_INPUT, "-%ssweep_percent and -%ssweep_periods go together: only -%s%s was given",
               p, p, p, set_percent ? "sweep_percent" : "sweep_periods");
    PetscCheck(!set_rate, e->comm, PETSC_ERR_USER_INPUT, "Give either -%ssweep_rate or -%ssweep_percent with -%ssweep_periods, not both", p, p, p);
    PetscCheck(percent > 0 && !PetscIsInfReal(percent), e->comm, PETSC_ERR_USER_INPUT,
               "-%ssweep_percent: got %g, expected a positive percentage (-%ssweep_down sweeps towards lower frequencies)", p, (double)percent, p);
    PetscCheck(periods > 0 && !PetscIsInfReal(periods), e->comm, PETSC_ERR_USER_INPUT,
               "-%ssweep_periods: got %g, expected a positive number of pseudo-periods", p, (double)periods);
    PetscCheck(reference > 0 && !PetscIsInfReal(reference), e->comm, PETSC_ERR_USER_INPUT,
               "-%ssweep_reference_frequency: got %g Hz, expected a positive frequency (it defaults to -%sfrequency)", p, (double)reference, p);
    duration     = periods / reference;
    c.sweep_rate = c.type == VI_EXCITE_SWEEP_LOG ? PetscLogReal(1 + percent / 100) / duration : percent / 100 * reference / duration;
  } else
    PetscCheck(!set_reference, e->comm, PETSC_ERR_USER_INPUT, "-%ssweep_reference_frequency is used only with -%ssweep_percent and -%ssweep_periods",
               p, p, p);
  if (set_width) PetscCheck(c.bump_width > 0, e->comm, PETSC_ERR_USER_INPUT, "-%sbump_width: got %g s, expected w > 0", p, (double)c.bump_width);
  if (set_band) {
    PetscCheck(nband == 2, e->comm, PETSC_ERR_USER_INPUT, "-%snoise_band: got %" PetscInt_FMT " value(s), expected two, f_lo,f_hi (Hz)", p, nband);
    PetscCall(VIExciteCheckNoise(e->comm, p, band[0], band[1], c.noise_harmonics, c.seed));
    c.noise_lo = band[0];
    c.noise_hi = band[1];
  }
  PetscCheck(c.noise_harmonics >= 1, e->comm, PETSC_ERR_USER_INPUT, "-%snoise_harmonics: got %" PetscInt_FMT ", expected at least 1", p,
             c.noise_harmonics);
  PetscCheck(c.seed >= 0, e->comm, PETSC_ERR_USER_INPUT, "-%sseed: got %" PetscInt_FMT ", expected an integer >= 0", p, c.seed);
  /* then what the type needs */
  PetscCall(VIExcitationCheck(&c, e->comm));

  /* commit; the noise tables follow the noise parameters whenever these are valid, whatever the type */
  rebuild = (VIExciteNoiseBandValid(c.noise_lo, c.noise_hi) &&
             (!e->noise_n || c.noise_lo != e->noise_lo || c.noise_hi != e->noise_hi || c.noise_harmonics != e->noise_harmonics || c.seed != e->seed))
                ? PETSC_TRUE
                : PETSC_FALSE;
  *e      = c;
  if (rebuild) PetscCall(VIExciteBuildNoise(e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ view */

PetscErrorCode VIExcitationView(VIExcitation e, PetscViewer viewer)
{
  PetscBool   isascii;
  const char *unit = e->type == VI_EXCITE_SWEEP_LOG ? "1/s" : "Hz/s";

  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(e->comm, &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "Excitation%s%s%s: %s, s(t) = %g + %g * shape(t)\n", e->prefix[0] ? " (options prefix " : "", e->prefix,
                                   e->prefix[0] ? ")" : "", VIExciteTypes[e->type], (double)e->offset, (double)e->amplitude));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  switch (e->type) {
  case VI_EXCITE_CONSTANT:
    break;
  case VI_EXCITE_HARMONIC:
    PetscCall(PetscViewerASCIIPrintf(viewer, "shape cos(2 pi f t + phase): f = %g Hz, phase = %g rad\n", (double)e->frequency, (double)e->phase));
    break;
  case VI_EXCITE_SWEEP_LINEAR:
  case VI_EXCITE_SWEEP_LOG:
    PetscCall(PetscViewerASCIIPrintf(viewer, "sweep %s from f0 = %g Hz at %g %s, phase = %g rad\n", e->sweep_down ? "down" : "up",
                                     (double)e->frequency, (double)e->sweep_rate, unit, (double)e->phase));
    break;
  case VI_EXCITE_BUMP:
    PetscCall(PetscViewerASCIIPrintf(viewer, "Gaussian bump every T = %g s (f = %g Hz), first at t_c = %g s, width w = %g s\n",
                                     (double)(1 / e->frequency), (double)e->frequency, (double)e->bump_center, (double)e->bump_width));
    break;
  case VI_EXCITE_NOISE:
    PetscCall(PetscViewerASCIIPrintf(viewer, "unit-RMS noise: %" PetscInt_FMT " harmonics evenly spaced in [%g, %g] Hz, seed %" PetscInt_FMT "\n",
                                     e->noise_harmonics, (double)e->noise_lo, (double)e->noise_hi, e->seed));
    break;
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The excite module's options: a load's time function under -load_NAME_ (src/sys/options.c's registry: names, the type each is read with, an enum's choices) */
static const VIOptionEntry VIExciteOptions[] = {
    {"-load_*_type", VI_OPTION_ENUM, VIExciteTypes},
    {"-load_*_offset", VI_OPTION_REAL, NULL},
    {"-load_*_amplitude", VI_OPTION_REAL, NULL},
    {"-load_*_frequency", VI_OPTION_REAL, NULL},
    {"-load_*_phase", VI_OPTION_REAL, NULL},
    {"-load_*_sweep_rate", VI_OPTION_REAL, NULL},
    {"-load_*_sweep_down", VI_OPTION_BOOL, NULL},
    {"-load_*_sweep_percent", VI_OPTION_REAL, NULL},
    {"-load_*_sweep_periods", VI_OPTION_REAL, NULL},
    {"-load_*_sweep_reference_frequency", VI_OPTION_REAL, NULL},
    {"-load_*_bump_center", VI_OPTION_REAL, NULL},
    {"-load_*_bump_width", VI_OPTION_REAL, NULL},
    {"-load_*_noise_band", VI_OPTION_REALS, NULL},
    {"-load_*_noise_harmonics", VI_OPTION_INT, NULL},
    {"-load_*_seed", VI_OPTION_INT, NULL},
};

PetscErrorCode VIExciteRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRegisterTable("excite", VIExciteOptions, sizeof(VIExciteOptions) / sizeof(VIExciteOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
