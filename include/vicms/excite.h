/* vicms excite module: scalar functions of time for loads and imposed gaps (harmonic, sweeps, bumps, noise). */
#pragma once

#include <vicms/sys.h>

typedef enum {
  VI_EXCITE_CONSTANT,     /* s(t) = offset + amplitude */
  VI_EXCITE_HARMONIC,     /* offset + amplitude cos(2 pi f t + phase) */
  VI_EXCITE_SWEEP_LINEAR, /* offset + amplitude cos(phi(t)), f(t) = f0 + a t, a = +-rate (Hz/s), phi = 2 pi (f0 t + a t^2 / 2) + phase */
  VI_EXCITE_SWEEP_LOG,    /* f(t) = f0 exp(+-r t), phi = 2 pi f0 (exp(+-r t) - 1) / (+-r) + phase */
  VI_EXCITE_BUMP,         /* offset + amplitude sum_n exp(-(t - t_c - n T)^2 / (2 w^2)): a Gaussian bump once per period T = 1/f */
  VI_EXCITE_NOISE         /* offset + amplitude * band-limited noise of unit RMS, harmonics in [f_lo, f_hi], seeded phases */
} VIExciteType;
PETSC_EXTERN const char *const VIExciteTypes[]; /* "constant", "harmonic", "sweep_linear", "sweep_log", "bump", "noise", trailer */

typedef struct _p_VIExcitation *VIExcitation;

PETSC_EXTERN PetscErrorCode VIExcitationCreate(MPI_Comm comm, VIExcitation *e);
/*
  Options, all with the object's prefix (VIExcitationSetOptionsPrefix, e.g. "load_" gives -load_type):
  -type constant|harmonic|sweep_linear|sweep_log|bump|noise, -offset, -amplitude, -frequency f (Hz; start frequency
  of a sweep, repetition frequency of a bump), -phase (rad), -sweep_rate (Hz/s for linear, 1/s for log; positive),
  -sweep_down (sweep towards lower frequencies), -sweep_percent P -sweep_periods N (instead of -sweep_rate: +P % of
  the reference frequency in N pseudo-periods of it, seed 000 §5.2; reference = -sweep_reference_frequency, default
  -frequency), -bump_center t_c (s, within a period), -bump_width w (s), -noise_band f_lo,f_hi (Hz),
  -noise_harmonics n (default 256), -seed (integer).
*/
PETSC_EXTERN PetscErrorCode VIExcitationSetOptionsPrefix(VIExcitation e, const char prefix[]);
PETSC_EXTERN PetscErrorCode VIExcitationSetFromOptions(VIExcitation e);
/* Programmatic set-up (what the options do). */
PETSC_EXTERN PetscErrorCode VIExcitationSetType(VIExcitation e, VIExciteType type);
PETSC_EXTERN PetscErrorCode VIExcitationSetAmplitude(VIExcitation e, PetscReal offset, PetscReal amplitude);
PETSC_EXTERN PetscErrorCode VIExcitationSetHarmonic(VIExcitation e, PetscReal frequency, PetscReal phase);
PETSC_EXTERN PetscErrorCode VIExcitationSetSweep(VIExcitation e, PetscReal f0, PetscReal rate, PetscBool down);
PETSC_EXTERN PetscErrorCode VIExcitationSetBump(VIExcitation e, PetscReal frequency, PetscReal center, PetscReal width);
PETSC_EXTERN PetscErrorCode VIExcitationSetNoise(VIExcitation e, PetscReal f_lo, PetscReal f_hi, PetscInt harmonics, PetscInt seed);
PETSC_EXTERN PetscErrorCode VIExcitationGetType(VIExcitation e, VIExciteType *type);
/* Value and time derivative at t (either output may be NULL). Not collective, no allocation: safe in a time-step loop. */
PETSC_EXTERN PetscErrorCode VIExcitationEvaluate(VIExcitation e, PetscReal t, PetscReal *value, PetscReal *rate);
/* Instantaneous frequency at t (Hz): f for harmonic and bump, f(t) for sweeps, 0 for constant, the band centre for noise. */
PETSC_EXTERN PetscErrorCode VIExcitationGetFrequency(VIExcitation e, PetscReal t, PetscReal *f);
/* Time at which a sweep reaches frequency f (error for other types or if never reached). */
PETSC_EXTERN PetscErrorCode VIExcitationGetSweepTime(VIExcitation e, PetscReal f, PetscReal *t);
/* An error (on comm) when the function's content over [t0, t1] reaches the Nyquist frequency 1/(2 dt) of a step dt. */
PETSC_EXTERN PetscErrorCode VIExcitationCheckSampling(VIExcitation e, PetscReal t0, PetscReal t1, PetscReal dt, MPI_Comm comm);
PETSC_EXTERN PetscErrorCode VIExcitationView(VIExcitation e, PetscViewer viewer);
PETSC_EXTERN PetscErrorCode VIExcitationDestroy(VIExcitation *e);
/* Declares the module's options to the option registry (src/sys/options.c; once, at start-up: VIOptionsRegisterAll). */
PETSC_EXTERN PetscErrorCode VIExciteRegisterOptions(void);
