/* Private structure of VIExcitation: the parameters of every type and the noise tables built at set-up. */
#pragma once

#include <vicms/excite.h>

struct _p_VIExcitation {
  MPI_Comm     comm;
  char        *prefix; /* options prefix, never NULL ("" when none); error messages name options with it */
  VIExciteType type;
  PetscReal    offset, amplitude;
  PetscReal    frequency;  /* Hz: harmonic frequency, sweep start frequency, bump repetition frequency */
  PetscReal    phase;      /* rad, harmonic and sweeps */
  PetscReal    sweep_rate; /* > 0: Hz/s (linear) or 1/s (log); the sign comes from sweep_down */
  PetscBool    sweep_down;
  PetscReal    bump_center, bump_width; /* s */
  PetscReal    noise_lo, noise_hi;      /* Hz */
  PetscInt     noise_harmonics, seed;
  /* built from noise_lo, noise_hi, noise_harmonics and seed whenever these are valid, so that Evaluate never allocates */
  PetscInt   noise_n;               /* entries of the tables, 0 when not built */
  PetscReal *noise_omega;           /* 2 pi f_k (rad/s) */
  PetscReal *noise_cos, *noise_sin; /* cos and sin of the seeded phases theta_k */
  PetscReal  noise_domega;          /* omega_{k+1} - omega_k = 2 pi (f_hi - f_lo) / (n - 1) (0 when n = 1) */
  PetscReal  noise_scale;           /* sqrt(2 / n): unit RMS */
  PetscBool  checked;               /* the parameters were found consistent with the type since they last changed */
};

/* Type-dependent consistency of the parameters (what a type needs that its set function could not check). Not collective. */
PETSC_INTERN PetscErrorCode VIExcitationCheck(VIExcitation e, MPI_Comm comm);
