/* Private layout of the step module: the system of a case, the stepper and its per-scheme operations. */
#pragma once

#include <vicms/step.h>

#define VI_MAX_LOADS    64
#define VI_MAX_CONTACTS 1024

typedef enum { VI_GAP_COSINE, VI_GAP_BUMP } VIGapShape;

struct _p_VISystem {
  MPI_Comm  comm;
  VIROM     rom; /* used, not owned */
  PetscInt  n, nb, nm, nc;
  PetscBool massless;

  /* the case's damping D = damping_scale D_rom (seed 000 Eq. 1): the ROM's own array when the scale is 1, else damping_scaled,
     owned here (the ROM is shared by the cases of a job, so it is never scaled in place) */
  PetscReal        damping_scale;
  PetscReal       *damping_scaled;
  const PetscReal *K, *M, *D;

  /* loads: f(t) = sum_l s_l(t) load_vec[l] */
  PetscInt          num_loads;
  char            **load_names;
  VIExcitation     *load_fn;
  const PetscReal **load_vec;

  /* contacts */
  PetscInt      *dims, *offsets, *normal_row;
  VIContactKind *kinds;                             /* per contact: bilateral rows are held at 0 (no imposed gap, friction, preload or sliding) */
  PetscReal     *mu, *preload, *gap_phase, *gap_cs; /* gap_cs: cos and sin of each gap phase */
  PetscReal     *obstacle_v;                        /* nc x 2: the obstacle's velocity along t1 and t2 of each contact */
  PetscReal      mu_all, preload_all, sliding_speed;
  PetscReal      rotation_axis[3], rotation_origin[3];
  PetscBool      rotation_frame;
  VIGapShape     gap_shape;
  PetscReal      gap_bump_width;
  PetscReal      gap_mean, gap_amplitude, rotation_speed, gap_phase_step, phases_given[VI_MAX_CONTACTS];
  PetscInt       gap_waves, num_phases_given;

  /* initial state */
  VIInitType init;
  PetscReal  init_velocity;
  PetscInt   init_direction;
  char       init_load[64];
  PetscReal *q0, *u0;

  /* set by a caller, not by options (VISystemSetTimeScale, VISystemSetInitialState): the time functions played
     time_scale times faster; an initial state that replaces -init (q_given, u_given: n each; NULL when none) */
  PetscReal  time_scale;
  PetscBool  setup; /* VISystemSetUp done for the ROM and options given (SetROM and SetFromOptions undo it) */
  PetscReal *q_given, *u_given;
};

typedef struct {
  PetscErrorCode (*setup)(VIStepper);
  /* Complete level k (time t): on return st->q, st->u, st->lambda, st->gap describe level k, ready to be recorded */
  PetscErrorCode (*step)(VIStepper, PetscReal t);
  /* Move st->q on to level k + 1 */
  PetscErrorCode (*advance)(VIStepper);
  PetscErrorCode (*destroy)(VIStepper);
} VIStepperOps;

/* A part of a scheme's state that a checkpoint saves and restores exactly: len reals or len flags, named in the file.
   Each scheme registers, in its setup, everything its next step or advance reads before writing it (previous levels,
   half-step velocities, warm starts, first-step flags); the generic checkpoint code (checkpoint.c) writes the list. */
#define VI_MAX_STATE_FIELDS 32
typedef struct {
  char       name[32];
  PetscReal *real;
  PetscBool *flag;
  PetscInt   len;
} VIStateField;

PETSC_INTERN PetscErrorCode VIStepperRegisterState(VIStepper st, const char name[], PetscInt len, PetscReal *real, PetscBool *flag);

typedef enum { VI_MOREAU_SYMMETRIC, VI_MOREAU_THETA } VIMoreauVariant;

/* The smooth base scheme inside a step of the mixed scheme (seed 001 §2.4, 2.6, 2.7). */
typedef enum { VI_MIXED_GENALPHA, VI_MIXED_BATHE, VI_MIXED_EDALPHA } VIMixedBase;
PETSC_INTERN const char *const VIMixedBases[];

/* Rows of a dense operator split over the ranks of a case's group: each rank computes its rows [lo, hi), then every
   rank gathers the whole vector. Each row is computed exactly as on one rank, so the results are bitwise identical:
   the ranges start at multiples of VI_ROW_BLOCK rows, so that BLAS's dgemv (which computes rows in groups of 4 whose
   summation order depends on the group) meets the same groups on any number of ranks. */
#define VI_ROW_BLOCK 8
typedef struct {
  MPI_Comm     comm;
  PetscMPIInt  size;
  PetscInt     lo, hi;
  PetscMPIInt *counts, *displs; /* in units of the gathered entries */
  PetscInt     width;           /* entries per row */
} VIRowSplit;

PETSC_INTERN PetscErrorCode VIRowSplitCreate(MPI_Comm comm, PetscInt m, PetscInt width, VIRowSplit *rs);
/* In place: y holds m * width entries, this rank's rows filled; on return all rows are filled on every rank. */
PETSC_INTERN PetscErrorCode VIRowSplitGather(VIRowSplit *rs, PetscReal y[]);
PETSC_INTERN PetscErrorCode VIRowSplitDestroy(VIRowSplit *rs);

/* ---------------------------------------------------------------- the automatic time step (timestep.c) */

/* Contact states of a stability analysis: every contact open, the normal rows of every contact held (closed,
   frictionless), every boundary row held (closed, friction sticking). */
typedef enum { VI_CONTACTS_OPEN, VI_CONTACTS_NORMAL_HELD, VI_CONTACTS_ALL_HELD } VIContactState;
PETSC_INTERN const char *const VIContactStateNames[];

/* What a stability analysis needs to know of the scheme. */
typedef struct {
  VIStepperType   type;
  VIMoreauVariant variant;
  PetscReal       theta;
} VIScheme;

typedef struct {
  PetscBool      unconditional; /* no stability limit (theta-scheme, theta >= 1/2) */
  PetscInt       order;         /* order of accuracy under fixed contact conditions */
  PetscReal      omega_max;     /* rad/s: the largest frequency of the worst contact state */
  PetscReal      omega_open;    /* rad/s: the same with every contact open */
  PetscReal      dt_stable;     /* 2 / omega_max; 0 when unconditionally stable */
  VIContactState state;         /* the worst contact state */
} VIStableStep;

/* The stability analysis of one scheme on a ROM; friction[j]: contact j may stick (NULL: frictionless). Rank-local. */
typedef PetscErrorCode (*VIStableStepFn)(VIROM rom, const PetscBool friction[], const VIScheme *scheme, VIStableStep *s);
/* Dispatches on scheme->type to the scheme's analysis (a table in timestep.c that a new scheme extends). Rank-local. */
PETSC_INTERN PetscErrorCode VIStableStepCompute(VIROM rom, const PetscBool friction[], const VIScheme *scheme, VIStableStep *s);

/* The automatic step's options and outcome. */
typedef struct {
  PetscBool    auto_dt;  /* -step_dt auto (or -step_accuracy) */
  PetscReal    safety;   /* -step_dt_safety */
  PetscBool    stick;    /* -step_dt_stick: sliding frictional contacts may stick */
  PetscReal    accuracy; /* -step_accuracy (0: none) */
  PetscBool    accuracy_set;
  PetscReal    window; /* -step_accuracy_window (0: automatic) */
  char         output[256];
  PetscInt     points; /* -step_points_per_period */
  PetscReal    cutoff; /* -step_frequency_cutoff, Hz */
  PetscBool    chosen; /* the step below was chosen for the current options */
  PetscReal    dt, estimate;
  VIStableStep stable;
  char         how[512];
} VITimeStepCtl;

/* Inside VIStepperSetFromOptions' block: -step_dt (a number or auto) and the automatic step's options. */
PETSC_INTERN PetscErrorCode VIStepperTimeStepOptions(VIStepper st, PetscOptionItems *PetscOptionsObject, PetscReal *dt);
/* After the block: checks the options, sets the time step (a number) or only the end time (auto). */
PETSC_INTERN PetscErrorCode VIStepperTimeStepCheck(VIStepper st, PetscReal dt, PetscReal t_end);
/* In VIStepperSetUp, with the system set up and before the scheme's set-up: chooses the automatic step. Collective. */
PETSC_INTERN PetscErrorCode VIStepperTimeStepSetUp(VIStepper st);

struct _p_VIStepper {
  MPI_Comm        comm;
  VISystem        sys;
  VIStepperType   type;
  VIStepperOps    ops;
  void           *data;
  PetscBool       setup;
  VIContactSolver solver;

  PetscReal       dt, t0, t_end, blowup_factor, restitution, theta;
  PetscInt        output_every, max_nonconverged;
  PetscReal       rho_inf;                      /* nsgalpha: spectral radius at infinity (seed 002 Eq. 31) */
  PetscInt        nsgalpha_max_it;              /* nsgalpha: semi-smooth Newton iterations per step */
  VIMixedBase     mixed_base;                   /* mixed: the smooth base scheme */
  PetscReal       mixed_alpha_m, mixed_alpha_f; /* mixed, genalpha: given instead of rho_inf (seed 001 Eqs. 26, 100) */
  PetscBool       mixed_alpha_given;
  PetscReal       mixed_alpha_ar; /* mixed, edalpha: alpha_AR (seed 001 Eq. 84) */
  PetscReal       restitution_t;  /* mixed: tangential restitution eps_T (seed 001 Eq. 12) */
  VIMoreauVariant variant;
  VITimeStepCtl   ts; /* the automatic time step */

  /* called every few steps on every rank of the group (e.g. to serve the ensemble's scheduler) */
  PetscErrorCode (*monitor)(VIStepper, PetscReal, void *);
  void *monitor_ctx;

  /* checkpoints: the scheme's state fields; the level last completed (0-based, the run stands between its step and its
     advance); a stop asked by the monitor; a run restored from a checkpoint continues from level + 1 */
  VIStateField   state[VI_MAX_STATE_FIELDS];
  PetscInt       nstate, level, nsteps;
  PetscBool      stop_requested, restored;
  PetscLogDouble wall_before; /* wall time of the run before its restore */

  /* the system, cached */
  PetscInt         n, nb, nm, nc;
  const PetscReal *K, *M, *D;
  VIContactSet     set;
  const PetscReal *obstacle_v; /* nc x 2 */

  /* state at the level just completed by a step: q, u (velocity estimate at that level), boundary forces lambda
     (force on the boundary coordinates from the contacts), gaps g (normal gap per contact) */
  PetscReal *q, *u, *lambda, *gap;
  /* work arrays of the schemes */
  PetscReal     *f, *g0, *g0_rate, *work; /* work: 2n for the records */
  VIEnergy       energy;
  PetscReal      bound;
  PetscLogDouble matvec_time;
  PetscReal      energy0;       /* kinetic + potential at the first record */
  PetscBool      scheme_energy; /* the scheme's step sets energy.kinetic and energy.potential of its level */

  /* The scheme's coordinates: q = basis eta (n x n row-major), set by a scheme that steps in coordinates other than the
     ROM's (moreau: the modes of (K, M)); NULL: the ROM's own. Then st->q and st->u hold eta and its rate, the outputs are
     read through out_mat basis, the blow-up test runs on eta with a bound scaled by basis_gain = ||basis^-1||_inf (so
     that |eta|_inf > bound basis_gain implies |q|_inf > bound), and VIStepperGetState returns q = basis eta in qphys. */
  PetscReal *basis, *qphys, *uphys;
  PetscReal  basis_gain;

  /* statistics at every level (VIRunStatistics) and the sweep envelope */
  PetscReal  steady_fraction, window_start;
  PetscReal *ostat; /* nout x 6: max |y|, min, max, sum, sum of squares (window), y of this level */
  PetscInt   nwindow;
  PetscReal  force_max, gap_min;
  PetscInt   env_output, nenv, max_env;
  PetscReal  env_lo, env_hi, env_start, env_end, *env;
  PetscReal *stat_out; /* 5 x nout: the arrays handed out by VIStepperGetRunStatistics */

  /* records */
  PetscInt    nt, max_t, nout;
  PetscReal  *out_mat, *out_y; /* nout x n: the ROM's output rows; nout: their values at the level */
  PetscReal  *t_rec, *out_rec, *gap_rec, *force_rec, *energy_rec;
  VIStepStats stats;
};

PETSC_INTERN PetscErrorCode VIStepperCreate_Leapfrog(VIStepper);
PETSC_INTERN PetscErrorCode VIStepperCreate_Moreau(VIStepper);
PETSC_INTERN PetscErrorCode VIStepperCreate_NSGAlpha(VIStepper);
PETSC_INTERN PetscErrorCode VIStepperCreate_Mixed(VIStepper);

/* The active set of one contact solve: which ROM rows (normal rows, plus the tangential rows of frictional contacts when
   friction is on) and the contact set restricted to the active contacts. */
typedef struct {
  PetscInt       nrows, nact;
  PetscInt      *rows, *dims;
  PetscReal     *mu, *preload;
  VIContactKind *kinds;
  VIContactSet   set;
  PetscReal     *G, *c, *x; /* nrows x nrows, nrows, nrows */
  /* the operator the contact solver holds (VIContactSolverSetOperator): G is rebuilt only when the rows change */
  PetscInt        *op_rows, op_nrows;
  const PetscReal *op_full;
  PetscReal        op_scale;
} VIActiveSet;

PETSC_INTERN PetscErrorCode VIActiveSetCreate(PetscInt nb, PetscInt nc, VIActiveSet *as);
PETSC_INTERN PetscErrorCode VIActiveSetDestroy(VIActiveSet *as);
/* Rows of the contacts flagged active; friction adds the tangential rows of contacts with dims > 1 and mu > 0. Bilateral
   contacts keep their kind in the set (the solver treats their rows as equations); the caller flags them active always. */
PETSC_INTERN PetscErrorCode VIActiveSetBuild(VIStepper st, const PetscBool active[], PetscBool friction, VIActiveSet *as);
/* G = scale * Gfull[rows, rows] (Gfull row-major with leading dimension ld); solve -(G x + c) ∈ N_C(x) with the
   caller's c and warm start x; counts iterations and non-converged solves in the stats. G is extracted and handed to
   the solver only when the rows, Gfull or scale differ from the last call's (the solver then keeps its factors). */
PETSC_INTERN PetscErrorCode VIStepperSolveContacts(VIStepper st, VIActiveSet *as, const PetscReal Gfull[], PetscInt ld, PetscReal scale);
/* Dense helpers (row-major): y = A x + beta y for an m x k block of a matrix with leading dimension lda (BLAS dgemv);
   inverse of an SPD matrix (LAPACK). */
PETSC_INTERN PetscErrorCode VIMatVecTime(PetscInt n, const PetscReal A[], const PetscReal x[], PetscReal y[], PetscReal *seconds);
PETSC_INTERN void           VIMatVec(PetscInt m, PetscInt k, const PetscReal A[], PetscInt lda, const PetscReal x[], PetscReal beta, PetscReal y[]);
PETSC_INTERN PetscErrorCode VIInvertSPD(MPI_Comm comm, PetscInt n, PetscReal A[], const char what[]);
/* Inverse of a general nonsingular matrix (LAPACK getrf, getri), in place; what names it in the error of a singular one. */
PETSC_INTERN PetscErrorCode VIInvert(MPI_Comm comm, PetscInt n, PetscReal A[], const char what[]);
/* Relative velocity of row r (0 normal, 1 first tangent, 2 second) of contact j from the ROM velocity u: the normal rate with the imposed
   gap's rate st->g0_rate (of the time last given to VISystemEvaluateGaps), the tangents less the obstacle's velocity. */
PETSC_INTERN PetscReal VIStepperRelativeVelocity(VIStepper st, PetscInt j, PetscInt r, const PetscReal u[]);
/* C = alpha A B, A m x k and B k x p row-major, C with leading dimension ldc (BLAS dgemm). */
PETSC_INTERN PetscErrorCode VIMatMat(PetscInt m, PetscInt k, PetscInt p, const PetscReal A[], const PetscReal B[], PetscReal alpha, PetscReal C[],
                                     PetscInt ldc);
