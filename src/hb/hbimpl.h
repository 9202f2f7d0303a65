/* Private layout of the hb module: the harmonic balance problem of a case, its transforms, operators and branch. */
#pragma once

#include <vicms/hb.h>
#include <fftw3.h>

/* Real Fourier coefficients of a periodic quantity x(theta), theta = Omega t: index c = 0 is a0, c = 2h - 1 is a_h (cos h theta),
   c = 2h is b_h (sin h theta), h = 1..H; nh = 2H + 1. An unknown vector holds m coordinates per coefficient, entry c * m + i. */

/* Alternating frequency-time transforms on N samples theta_k = 2 pi k / N (seed 000 Eqs. A.5, A.7). */
typedef struct {
  PetscInt      H, N, nh;
  double       *t; /* N samples */
  fftw_complex *z; /* N / 2 + 1 coefficients */
  fftw_plan     to_time, to_freq;
  PetscReal    *basis;  /* nh x N: phi_c(theta_k) */
  PetscReal    *weight; /* nh: 1/N for c = 0, 2/N else (the projection of samples onto phi_c) */
} VIHBAFT;

PETSC_INTERN PetscErrorCode VIHBAFTCreate(PetscInt H, PetscInt N, VIHBAFT *aft);
PETSC_INTERN PetscErrorCode VIHBAFTDestroy(VIHBAFT *aft);
/* coefficients (nh, stride s: entry c * s) -> N samples (Eq. A.5) */
PETSC_INTERN void VIHBAFTToTime(VIHBAFT *aft, const PetscReal coef[], PetscInt s, PetscReal samples[]);
/* N samples -> coefficients (nh, stride s) (Eq. A.7) */
PETSC_INTERN void VIHBAFTToFreq(VIHBAFT *aft, const PetscReal samples[], PetscReal coef[], PetscInt s);
/* C = T_freq diag(d) T_time (nh x nh, row-major): the derivative of the coefficients of a sampled function whose sample
   derivatives are d_k with respect to the coefficients of its argument (the AFT chain rule of the Jacobian). */
PETSC_INTERN void VIHBAFTProjector(VIHBAFT *aft, const PetscReal d[], PetscReal C[]);

struct _p_VIHB {
  MPI_Comm  comm;
  VISystem  sys;
  VIROM     rom;
  PetscBool setup;

  /* options */
  PetscInt          H, N, max_it, target_it, max_points;
  PetscReal         eps_dl, fold_tol, freq_range[2], f_start, step, step_min, step_max, max_freq_step, tol;
  PetscBool         condense, stability, has_start, record_q; /* record_q: -hb_record_q, the branch keeps q_harmonics */
  VIHBDirection     direction;
  VIHBStabilityType stability_type;                     /* -hb_stability_method */
  PetscInt          stability_steps, stability_periods; /* the transient's steps per period (0: automatic) and most periods */

  /* the case */
  PetscInt         n, nb, nm, nc, nh, m, M; /* m unknowns per coefficient (nb condensed, n full), M = m nh */
  PetscBool        massless;
  const PetscReal *K, *Mass, *D;
  const PetscInt  *dims;
  PetscInt        *offsets;
  const PetscReal *mu, *preload;
  PetscReal       *eps;      /* nc: dynamic Lagrangian parameter per contact (normal law) */
  PetscReal       *eps_t;    /* nc: dynamic Lagrangian parameter of the tangential (friction) law */
  PetscInt         dmax;     /* the largest contact dimension */
  PetscBool        friction; /* some 2D/3D contact has mu > 0 */
  PetscReal       *F;        /* n x nh: force harmonics, entry c * n + i */
  PetscReal       *G0;       /* nc x nh: imposed gap harmonics, entry c * nc + j */
  PetscReal        f_scale;
  PetscReal        f_case; /* Hz: the frequency of the case's harmonic load, whose period the harmonics sample */
  VIHBAFT          aft;

  /* operators at Omega: per harmonic h the dynamic stiffness S(h) = K - (h Omega)^2 M + i h Omega D, in real form on
     [a; b] (p m, p = 1 for h = 0, else 2; column-major) the condensed (or full) L and force Fc; for the condensation the
     complex blocks of S(h) acting on z = a - i b: the LU factors of S_II (nm x nm) with pivots, S_IB and S_BI */
  PetscReal      omega;
  PetscBool      have_omega;
  PetscReal    **L, **Fc;
  PetscComplex **Sii, **Sib, **Sbi, *cwork; /* cwork: nm (nb + 1) + nb */
  PetscBLASInt **piv;

  /* state and work */
  PetscReal *X, *R, *J, *Romega, *q;  /* X, R, Romega: M; J: M x M column-major; q: n x nh ROM coordinate harmonics */
  PetscReal *r_t, *g_t, *lam_t, *d_t; /* nc x N: samples of r_b, gap, normal force, and active flags */
  PetscReal *slip_t;                  /* nc x N: 1 where a closed frictional contact slips */
  /* per contact work of the contact law (VIHBContactLaw): W = 2 dmax nh inputs (the coefficients of the rows r_b,o+s and of
     the coordinates X_o+s, s < dim), their samples, the force samples and coefficients, the derivative Dc of the force
     coefficients (dim nh rows) with respect to the inputs, the force samples' derivatives of the tangential rows */
  PetscReal *law_in, *law_t, *law_lam, *law_out, *law_D, *law_dlam, *law_dw;
  PetscReal *C, *work;
  PetscBool  have_solution;
  PetscBool  nonfinite; /* a state or residual that was not finite was met since the continuation's last point */

  /* the periodic orbit of the piecewise-linear motion found at the last point (the stability's shooting): its state at
     t = 0 (2 nm, balanced coordinates), a start for the next point's shooting */
  PetscReal *orbit;
  PetscReal  orbit_dist; /* its distance to the harmonic balance state (energy norm, relative) */
  PetscBool  have_orbit;
  PetscInt   orbit_len; /* the length of orbit */

  /* the continuation between two points (VIHBContinue): tangent and last point in the scaled unknowns (M + 1 each), the
     scale of the harmonics, the next step; restored: continue from them (a checkpoint was read); the monitor called at
     every point boundary, and a stop it asked for (VIHBStop) */
  PetscReal *cont_t, *cont_Y, cont_xs, cont_ds;
  PetscReal *cont_Yprev; /* the point before the last (M + 1): with the last and the next, the bracket of a turning point */
  /* wall time: the continuation's before this run (a restored checkpoint's), and when this run's VIHBContinue began */
  PetscLogDouble wall_base, wall_start;
  PetscBool      restored, stop;
  PetscErrorCode (*monitor)(VIHB, PetscInt, PetscReal, void *);
  void *monitor_ctx;

  /* the transient's stability (transient.c): the stepper's automatic step (0 until found), and over the points so far the
     transients run, their steps per period (least and most) and steps in all */
  PetscReal tr_dt_auto;
  PetscInt  tr_runs, tr_spp_min, tr_spp_max;
  PetscReal tr_steps;

  /* the branch */
  VIHBBranch branch;
  PetscInt   cap;
};

/* A point is stable when its largest Floquet multiplier's modulus is at most 1 + this (stability.c; the stability changes
   are located where the modulus crosses it, continuation.c) */
#define VI_FLOQUET_STABLE_TOL 1e-6

/* The wall time the continuation has taken so far, over every run that computed it (a stopped one's included). */
PETSC_INTERN PetscErrorCode VIHBWallTime(VIHB hb, PetscReal *wall);
/* Room for cap points in the branch (its points kept). */
PETSC_INTERN PetscErrorCode VIHBBranchReserve(VIHB hb, PetscInt cap);

/* Dynamic stiffness and condensed operators at Omega (rad/s) (seed 000 Eq. A.2). */
PETSC_INTERN PetscErrorCode VIHBOperatorsSetUp(VIHB hb, PetscReal omega);
PETSC_INTERN PetscErrorCode VIHBOperatorsDestroy(VIHB hb);
/* R = L X - Fc (harmonic blocks), and when Romega is not NULL its derivative with respect to Omega at fixed X. */
PETSC_INTERN PetscErrorCode VIHBLinearResidual(VIHB hb, const PetscReal X[], PetscReal R[], PetscReal Romega[]);
/* ROM coordinate harmonics q (n x nh) from the unknowns X (inner coordinates recovered when condensed). */
PETSC_INTERN PetscErrorCode VIHBRecover(VIHB hb, const PetscReal X[], PetscReal q[]);
/* Residual of the harmonic balance with the dynamic Lagrangian contact forces (Eqs. A.2-A.7) at (X, Omega); with J the
   analytic Jacobian dR/dX (column-major M x M) and Romega = dR/dOmega. */
PETSC_INTERN PetscErrorCode VIHBResidual(VIHB hb, const PetscReal X[], PetscReal omega, PetscReal R[], PetscReal J[], PetscReal Romega[]);
/* Stability of the solution last evaluated by VIHBResidual from the exact piecewise-linear motion (massless boundary,
   stability.c): *modelled false where that motion is not modelled (a mass-carrying boundary, 3D frictional contacts,
   frictional contacts that open); else the verdict (*stable 1, 0, or -1 undecided), how it was found and *mu (the
   largest multiplier modulus, or the growth or contraction per period of the motion from the solution; *arg the
   argument in [0, pi] of that multiplier, -1 where it is not a Floquet multiplier). */
PETSC_INTERN PetscErrorCode VIHBFloquet(VIHB hb, PetscReal omega, PetscReal *mu, PetscReal *arg, PetscInt *stable, VIHBStabilityMethod *method,
                                        PetscBool *modelled);
/* Stability of the solution last evaluated by VIHBResidual at Omega by a transient of the case's own time stepping from
   the harmonic balance state (transient.c): *stable 1, 0, or -1 undecided; *mu the estimated dominant multiplier modulus
   (-1 when none); *method VI_HB_STABILITY_TRANSIENT. Collective on hb->comm (every rank computes the same). */
PETSC_INTERN PetscErrorCode VIHBStabilityTransient(VIHB hb, PetscReal omega, PetscReal *mu, PetscInt *stable, VIHBStabilityMethod *method);
