/* Private layout of the step module: the system of a case, the stepper and its per-scheme operations. */
#pragma once

#include <vicms/step.h>

#define VI_MAX_LOADS    64 /* as src/system: a stepper evaluates the load scales into arrays of this size */
#define VI_MAX_CONTACTS 1024
/* -step_max_nonconverged not given: the run fails past 0.1 % of its steps (at least 10) */
#define VI_NONCONVERGED_AUTO (-2)

/* The stability analysis of a scheme on a ROM (the automatic time step, timestep.c); defined after VIStableStep. */
typedef struct _VIStableStep VIStableStep;

/* What a scheme implements (one file per scheme, registered in stepregis.c). The common stepper calls them in this
   order: setfromoptions (inside VIStepperSetFromOptions' block: the scheme's own options, kept in st->data), checksystem
   (does the system suit the scheme), stablestep (-step_dt auto), setup, then step and advance per level; reset frees
   what setup made and keeps the options; destroy frees st->data. */
/* What a scheme's stability analysis (-step_dt auto) reads of the system, taken through its interface (VISystemGetSizes,
   VISystemGetLinearOperators, VISystemGetContacts; a nonlinear system: K = 0 and M(q0), as the stepper sees it) or, for
   `vicms info`, from a ROM file: n coordinates, the first nb of them the boundary; K, M (n x n row-major); per contact its
   rows dims[j] from row offsets[j]. */
typedef struct {
  PetscInt         n, nb, nc;
  const PetscReal *K, *M;
  const PetscInt  *dims, *offsets;
} VIStableOperators;

typedef struct {
  PetscErrorCode (*setfromoptions)(VIStepper, PetscOptionItems *);
  PetscErrorCode (*checksystem)(VIStepper);
  /* The scheme's stability limit on the system's operators (VIStableOperators), friction[j]: contact j may stick (NULL:
     frictionless). Rank-local. */
  PetscErrorCode (*stablestep)(VIStepper, const VIStableOperators *, const PetscBool friction[], VIStableStep *);
  /* The scheme with its variant in words ("the symmetric moreau scheme"): messages, and the key a checkpoint must match */
  PetscErrorCode (*describe)(VIStepper, char name[], size_t len);
  /* Give another stepper of the same type this one's options (the trial runs of -step_accuracy) */
  PetscErrorCode (*copyoptions)(VIStepper from, VIStepper to);
  PetscErrorCode (*setup)(VIStepper);
  /* Complete level k (time t): on return st->q, st->u, st->lambda, st->gap describe level k, ready to be recorded */
  PetscErrorCode (*step)(VIStepper, PetscReal t);
  /* Move st->q on to level k + 1 */
  PetscErrorCode (*advance)(VIStepper);
  PetscErrorCode (*reset)(VIStepper);
  PetscErrorCode (*destroy)(VIStepper);
  /* optional: a scheme that keeps part of its state outside its registered fields copies it into them before a checkpoint is
     written (restore false) and back after one is read (restore true): the dual scheme's VIDual, packed */
  PetscErrorCode (*syncstate)(VIStepper, PetscBool restore);
  /* optional: the scheme's own energy terms of the level recorded (VIStepperRecord): kinetic *T and potential *V, and it sets
     st->energy's cumulated terms and st->energy0 (the initial energy of the balance); without it, T and V are computed from
     the system's K and M */
  PetscErrorCode (*energy)(VIStepper, PetscReal *T, PetscReal *V);
  /* the scheme has a path for a system that is not linear (VISystemIsLinear false); the others are refused on one */
  PetscBool nonlinear;
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

struct _VIStableStep {
  PetscBool      unconditional; /* no stability limit (theta-scheme, theta >= 1/2) */
  PetscInt       order;         /* order of accuracy under fixed contact conditions */
  PetscReal      omega_max;     /* rad/s: the largest frequency of the worst contact state */
  PetscReal      omega_open;    /* rad/s: the same with every contact open */
  PetscReal      dt_stable;     /* 2 / omega_max; 0 when unconditionally stable */
  VIContactState state;         /* the worst contact state */
};

/* The spectra a scheme's stability analysis takes its limit from (timestep.c), rank-local on the replicated ROM: the
   largest frequency of a massless-boundary ROM with the boundary rows held as state says (friction[j]: contact j's
   tangential rows held too) and the others condensed, and of a mass-carrying ROM with every row dynamic (contacts open). */
PETSC_INTERN PetscErrorCode VIStableStepMasslessOmega(const VIStableOperators *ops, const PetscBool friction[], VIContactState state,
                                                      PetscReal *omega, PetscInt *m, PetscReal **w);
PETSC_INTERN PetscErrorCode VIStableStepFullOmega(const VIStableOperators *ops, PetscReal *omega, PetscInt *m, PetscReal **w);
/* The analysis of the schemes that are unconditionally stable and second order on the linear smooth part (nsgalpha, mixed):
   no limit; omega_max of the open contacts for the step from accuracy. */
PETSC_INTERN PetscErrorCode VIStableStepUnconditional(VIStepper st, const VIStableOperators *ops, const PetscBool friction[], VIStableStep *s);

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
  char            type[64]; /* the registered name; "" until VIStepperSetType */
  VIStepperOps    ops;
  void           *data;
  PetscBool       setup;
  VIContactSolver solver;

  /* restitution: Newton's normal impact law of the schemes with impacts (moreau, nsgalpha, mixed), a property of the
     contacts rather than of one scheme */
  PetscReal     dt, t0, t_end, blowup_factor, restitution;
  PetscInt      output_every, max_nonconverged; /* max_nonconverged: VI_NONCONVERGED_AUTO, -1 (no limit) or a count */
  VITimeStepCtl ts;                             /* the automatic time step */

  /* called every few steps on every rank of the group (e.g. to serve the ensemble's scheduler) */
  PetscErrorCode (*monitor)(VIStepper, PetscReal, void *);
  void *monitor_ctx;
  /* called on every rank after each level's step and record (VIStepperSetPostLevel) */
  PetscErrorCode (*postlevel)(VIStepper, PetscInt, PetscReal, PetscBool, void *);
  void *postlevel_ctx;

  /* checkpoints: the scheme's state fields; the level last completed (0-based, the run stands between its step and its
     advance); a stop asked by the monitor; a run restored from a checkpoint continues from level + 1 */
  VIStateField   state[VI_MAX_STATE_FIELDS];
  PetscInt       nstate, level, nsteps;
  PetscBool      stop_requested, restored;
  PetscLogDouble wall_before; /* wall time of the run before its restore */

  /* the system, cached at set-up (VISystemGetSizes, GetLinearOperators, GetContactSet, GetContacts, GetLoads): the contacts'
     dims, mu, preload and kinds in set, the first row of each in offsets */
  PetscInt         n, nb, nm, nc, num_loads;
  const PetscReal *K, *M, *D;
  /* a nonlinear system (VISystemIsLinear false): K = D = 0 and M its mass at q0, owned here (3 n x n), so that the generic
     code (scale, cost unit) runs unchanged; the energy comes from VISystemComputeEnergy and the outputs from
     VISystemComputeOutputs when the system has its own (has_outputs) */
  PetscBool        nonlinear, has_outputs;
  PetscBool        out_rows; /* some output has a row (out_mat not all zero): the recorded velocities out_mat u */
  PetscReal       *nonlinear_ops;
  PetscInt         nlambda; /* entries of lambda: nb, or more for a multibody system's constraint rows */
  VIContactSet     set;
  const PetscInt  *offsets;
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
  /* -step_modal (default true): nsgalpha and mixed may step in the modes of a linear ROM (VIModalFormCreate); false keeps the ROM's own
     coordinates (the check of the modal path against them) */
  PetscBool modal_allowed;

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
  PetscReal  *t_rec, *out_rec, *vel_rec, *gap_rec, *force_rec, *energy_rec;
  PetscBool   record_q; /* -step_record_q: the ROM coordinates q at the recorded levels, nt x n in q_rec (vicms fields) */
  PetscReal  *q_rec;
  VIStepStats stats;
};

/* Each scheme's registration (in its file): VIStepperRegister(NAME, VIStepperCreate_NAME) and its own option table
   (VIOptionsRegisterTable), so that -step_type NAME, -help and the typo check know it; one line each in stepregis.c. */
PETSC_INTERN PetscErrorCode VIStepperRegister_Leapfrog(void);
PETSC_INTERN PetscErrorCode VIStepperRegister_Moreau(void);
PETSC_INTERN PetscErrorCode VIStepperRegister_NSGAlpha(void);
PETSC_INTERN PetscErrorCode VIStepperRegister_Mixed(void);
PETSC_INTERN PetscErrorCode VIStepperRegister_Dual(void);
/* The seed 003 dual assembly's options (dual.c; the scheme of the stepper type dual, dualstep.c). */
PETSC_INTERN PetscErrorCode VIDualRegisterOptions(void);
/* The registered schemes (stepregis.c). */
PETSC_INTERN PetscFunctionList VIStepperList;
/* The scheme in words for messages and checkpoints: its describe op, or its type name. */
PETSC_INTERN PetscErrorCode VIStepperDescribe(VIStepper st, char name[], size_t len);

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
/* The modes of the linear system's (K, M) (LAPACK sygv): PhiT (n x n row-major, row i = mode i, M-normalized) and omega^2 (lam),
   ascending; scheme names the -step_type in the error of a mass matrix that is not positive definite. */
PETSC_INTERN PetscErrorCode VIStepperModes(VIStepper st, const char scheme[], PetscReal PhiT[], PetscReal lam[]);
/* The modes of (K, M) for the schemes that step in them (modal.c; moreau, nsgalpha, mixed): PhiT (row i = mode i), Phi = PhiT^T, omega^2
   in lam, the damping in the modes Dt = Phi^T D Phi (W: n x n work) and its largest off-diagonal and diagonal magnitudes. */
PETSC_INTERN PetscErrorCode VIModalBasis(VIStepper st, const char scheme[], PetscReal PhiT[], PetscReal Phi[], PetscReal lam[], PetscReal W[],
                                         PetscReal Dt[], PetscReal *off, PetscReal *dmax);
/* The initial state in eta = Phi^T M q (PhiTM: n x n, set to Phi^T M) and st->basis_gain = ||Phi^T M||_inf. */
PETSC_INTERN PetscErrorCode VIModalInitialState(VIStepper st, const PetscReal PhiT[], PetscReal PhiTM[], PetscReal eta0[], PetscReal veta0[]);
/* The modal form of a linear ROM (modal.c), shared by the schemes that step in its modes (nsgalpha, mixed): Phi (q = Phi eta, M-normalized
   modes of (K, M); handed to the stepper as st->basis), omega^2 and the damping's diagonal dd in eta, the loads Phi^T v_l (num_loads x n)
   and the initial state in eta; G (nc x n): the constraints' gradient in the ROM's coordinates when probed (else NULL). */
typedef struct {
  PetscReal *Phi, *omega2, *dd, *L, *scales, *eta0, *veta0, *G;
} VIModalForm;
/* Whether the modal form applies (*ok): -step_modal not false, the damping diagonal in the modes (1e-9) and, with constraints true, the
   system's constraints affine with a fixed gradient (probed); if so, sets st->basis and st->basis_gain. Collective only through the
   system's evaluations (each rank computes the same). */
PETSC_INTERN PetscErrorCode VIModalFormCreate(VIStepper st, const char scheme[], PetscBool constraints, VIModalForm *mf, PetscBool *ok);
/* The load in eta at t: sum_l s_l(t) Phi^T v_l (n numbers per load instead of Phi^T f). */
PETSC_INTERN PetscErrorCode VIModalFormForce(VIStepper st, VIModalForm *mf, PetscReal t, PetscReal f[]);
PETSC_INTERN PetscErrorCode VIModalFormDestroy(VIModalForm *mf);
/* C = alpha A B, A m x k and B k x p row-major, C with leading dimension ldc (BLAS dgemm). */
PETSC_INTERN PetscErrorCode VIMatMat(PetscInt m, PetscInt k, PetscInt p, const PetscReal A[], const PetscReal B[], PetscReal alpha, PetscReal C[],
                                     PetscInt ldc);

/* ---------------------------------------------------------------- the nonlinear paths (ssnewton.c) */

/* A dense semi-smooth Newton method for the step of a scheme on a nonlinear system (VISystemIsLinear false): the scheme's
   form(ctx, x, F, J) gives the residual F (N) and its Jacobian J (N x N, row-major; J NULL: F alone, for VISSNewton.chord)
   at x, with its complementarity rows already written as active-set equations (Alart-Curnier: a multiplier whose
   min-function selects it inactive has the row x_i = 0), so that one iteration is an exact Newton step of the semi-smooth
   system. */
typedef PetscErrorCode (*VISSNewtonFormFn)(void *ctx, const PetscReal x[], PetscReal F[], PetscReal J[]);
typedef struct {
  PetscInt      N, max_it;
  PetscReal     tol; /* converged when |dx|_inf <= tol (1 + |x|_inf) */
  PetscReal    *F, *J;
  PetscBLASInt *ipiv;
  PetscInt     *keep; /* the unknowns whose Jacobian row is not a unit row, and the system on them (row-major) */
  PetscReal    *A, *b;
  /* unit (N): set by a form that knows its unit rows (J_ii = 1, the rest of the row 0: an inactive multiplier's x_i = 0) when
     hinted is true; the solver then neither scans J for them nor reads those rows, which the form need not write (the other
     rows it writes whole) */
  PetscBool *unit, hinted;
  PetscInt  *ucols, *unz; /* N x N, N: the nonzero columns right of the diagonal of each row of the factor U */
  /* nd (set by a hinted form, 0 by default): J's leading nd rows may have a diagonal nd x nd block (the momentum rows of
     planar rigid bodies), checked per solve; when it is, the step is solved by the Schur complement on the kept rows after
     them (ssnewton.c, VISSNewtonSchur), else by the dense elimination. diag: 3 N scratch of that path. */
  PetscInt   nd;
  PetscReal *diag;
  /* bs (VISSNewtonSetBlocks; 0 or 1: the diagonal block above): the leading nd rows as nd / bs interleaved groups
     {g, g + nd / bs, ..., g + (bs - 1) nd / bs}, their block checked block diagonal per solve and each group's block
     inverted (binv: nd bs, then nd scratch; seen: nd / bs marks) */
  PetscInt   bs, *seen;
  PetscReal *binv;
  PetscInt  *bidx, *bnz; /* N x N, N: the kept columns (their index in keep) where each leading row of J is nonzero */
  /* chord (set by a form that accepts J = NULL: F and the unit flags alone): after a Newton step below VI_SSNEWTON_CHORD
     (1 + |x|), the next steps are chord steps (the residual solved with the last factors: VISSNewtonResolve) while the unit
     rows stay and each step is below VI_SSNEWTON_CHORD_RATE times the one before; else a Newton step. The factors: perm (N)
     the elimination's pivot rows, L in A below the diagonal, k the kept rows, schur the path; unit_last (N) scratch. */
  PetscBool chord, schur;
  PetscBool same; /* set PETSC_FALSE by a form giving F alone when a row's Jacobian changed kind (not only the unit rows: a
                     friction row between stick and slip), which the chord step then leaves to a Newton step */
  PetscInt   k, *perm;
  PetscBool *unit_last;
  PetscReal *cmax; /* (N) scratch of the elimination: each column's largest entry */
  /* regularize: set by VISSNewtonSolve for the rest of a solve whose Newton matrix was singular (redundant active rows: a body on
     four coplanar feet, a redundant joint): the form then puts a tiny diagonal term -eps / r on its rows that hold (w = 0, g = 0) —
     in J only, not in F, so the solution is unchanged and the split of the redundant rows' multipliers is the iteration's */
  PetscBool regularize;
} VISSNewton;

/* The nonlinear paths' convergence test: a Newton step below VI_SSNEWTON_TOL (1 + max |x|). 1e-12 was at round-off: near
   an active-set switch the pendulum's step chattered at up to 6.9e-12 for 50 iterations (76 of 5451 solves), which the
   default limit of non-converged solves (-step_max_nonconverged) then failed; the iteration converges quadratically, so
   the constraints' residual after a step of 1e-10 is far below it. */
#define VI_SSNEWTON_TOL 1e-10
/* ... or a step below VI_SSNEWTON_FLOOR (1 + max |x|) that is more than half the previous one: the residual's round-off
   floor, reached by a stiff flexible body on a joint (an almost rigid rod, E = 1e13: its joint's force is K times the
   joint's position round-off, 3e-10 of the largest unknown), where the step stops shrinking. */
#define VI_SSNEWTON_FLOOR 1e-8
/* The chord steps (VISSNewton.chord): tried after a Newton step below VI_SSNEWTON_CHORD (1 + max |x|), the chord's
   contraction being of the order of that step; continued while each step is below VI_SSNEWTON_CHORD_RATE times the one
   before. A chord step converges below VI_SSNEWTON_TOL (1 + max |x|), as a Newton step; the error it leaves is that step
   times the contraction. (Stopping on Hairer and Wanner's estimate of that error instead, theta / (1 - theta) times the
   step, saved a chord step in 2 of 5 steps but left the driven slider-crank's energy balance at 8.9e-11 instead of 1e-12.) */
/* A pivot below VI_SSNEWTON_PIVOT times its column's largest entry is singular (ssnewton.c, VISSNewtonEliminate): the
   active rows are redundant to round-off, and the step would be round-off over round-off (a box on its four bottom
   corners: Moreau-Jean's passed a pivot of 1e-52 and the step blew up to 1e33). The solve is then formed again regularized
   (VISSNewton.regularize). Measured on that box with every scheme: redundant pivots 0 to 2.7e-20 of their column's, the
   smallest of a regular or regularized row 1.6e-14 (mixed genalpha: the rows' -1e-10 / r over its scales). */
#define VI_SSNEWTON_PIVOT 1e-16
#define VI_SSNEWTON_CHORD      1e-2
#define VI_SSNEWTON_MAX_BLOCK  4
#define VI_SSNEWTON_CHORD_RATE 0.1
PETSC_INTERN PetscErrorCode VISSNewtonCreate(PetscInt N, PetscInt max_it, PetscReal tol, VISSNewton *nw);
PETSC_INTERN PetscErrorCode VISSNewtonDestroy(VISSNewton *nw);
/* The Schur path (VISSNewton.nd) on a leading block of nd rows whose interleaved groups of bs rows (stride nd / bs) make it
   block diagonal when the system allows (bs <= VI_SSNEWTON_MAX_BLOCK; bs = 1: diagonal) */
PETSC_INTERN PetscErrorCode VISSNewtonSetBlocks(VISSNewton *nw, PetscInt nd, PetscInt bs);
/* From x (the predictor) to the solution in place; counts the solve in st's statistics (iterations, not converged). */
PETSC_INTERN PetscErrorCode VISSNewtonSolve(VIStepper st, VISSNewton *nw, VISSNewtonFormFn form, void *ctx, PetscReal x[]);
/* The constraints of the system at (t, q): g (nc), G (nc x n) and each row's Hessian H + r n n (nc x n x n, from
   VISystemComputeConstraintCurvature with unit multipliers); any may be NULL. */
PETSC_INTERN PetscErrorCode VINonlinearConstraints(VIStepper st, PetscReal t, const PetscReal q[], PetscReal g[], PetscReal G[], PetscReal H[]);
/* Newton's coefficient per contact: the system's (VISystemGetRestitution) or -step_restitution for all; 0 on bilateral rows. */
PETSC_INTERN PetscErrorCode VINonlinearRestitution(VIStepper st, PetscReal e[]);
/* Coulomb's law on the d tangential impulses Pt of one frictional contact (d = 1 planar, 2 spatial: the disk of radius
   mu Pn in the contact's plane, not d laws on intervals) at velocity level, Alart-Curnier with sigma = Pt - r w_t,
   w_t = w0 + Gt v (Gt d x n, w0 a target term or NULL): written as d rows of the semi-smooth Newton's residual F (d) and Jacobian J (d rows of stride N):
   off (Pt = 0) where the normal row is not closed, stick (w_t = 0) while |sigma| <= mu max(Pn, 0), slip (Pt = the
   projection of sigma on the disk, VIProjectDisk) outside; r is one scale for the contact's rows, so that the slip opposes
   w_t at the fixed point. The Jacobian's columns: v's at cv[0 .. nv - 1] (unknowns v depends on with the derivative cs[c], 1 when cs is NULL),
   Pn's at cn, Pt's from ct; the tangential rows' curvature is left out (an inexact Newton step there). With unit (the
   Newton's flags, VISSNewton.hinted) a unit row is flagged and not written and the other rows are zeroed before they are
   written; without it (NULL) J must come zeroed. The nonlinear paths (nsgalpha.c, moreau.c, mixednl.c). */
PETSC_INTERN void VINonlinearCoulomb(PetscInt n, PetscInt d, const PetscReal Gt[], const PetscReal v[], const PetscReal w0[], PetscReal mu, PetscReal r,
                                     PetscBool closed, PetscReal Pn, const PetscReal Pt[], PetscInt N, PetscInt nv, const PetscInt cv[], const PetscReal cs[],
                                     PetscInt cn, PetscInt ct, PetscReal F[], PetscReal J[], PetscBool unit[]);
/* Whether VINonlinearCoulomb's contact sticks at this iterate (the same arguments): closed and |sigma| <= mu max(Pn, 0). nsgalpha's
   nonlinear path holds a sticking contact's tangential position with it. */
PETSC_INTERN PetscBool VINonlinearCoulombSticks(PetscInt n, PetscInt d, const PetscReal Gt[], const PetscReal v[], const PetscReal w0[], PetscReal mu,
                                                PetscReal r, PetscBool closed, PetscReal Pn, const PetscReal Pt[]);
/* the scratch VINonlinearWork takes: 2 n, and n x n for a mass that depends on q (allocated with the scheme, not per step) */
#define VI_NONLINEAR_WORK_SIZE(n) (2 * (n) + (n) * (n))
/* The energy terms of a nonlinear path's step from (t - h, qn, vn) to (t, st->q, st->u) with the recorded forces st->lambda:
   into obstacle_work the constraint forces' work, h lambda_j G_j(q) (vn + v) / 2 (an impulse on the mean velocity; exact for
   Moreau-Jean, whose momentum balance has that form), or with power (nsgalpha's smooth bilateral forces, whose row
   velocities G v + dg/dt are held at every level) the trapezoid h (P_n + P) / 2 of their power P = sum lambda_j G_j(q) v
   (a driver's; 0 for a scleronomic joint), *power updated to P; into external_work the work of f not already in the
   system's potential, h (f_n + f) . (vn + v) / 2 + V - V_n (a driving torque, constant loads; with a mass M(q), less the
   trapezoid of the quadratic velocity vector's power -v^T (dM/dt) v / 2). w is scratch of VI_NONLINEAR_WORK_SIZE(n). */
PETSC_INTERN PetscErrorCode VINonlinearWork(VIStepper st, PetscReal t, PetscReal h, const PetscReal qn[], const PetscReal vn[], const PetscReal G[],
                                            PetscInt mt, const PetscInt trow[], const PetscReal Gt[], PetscReal *power, PetscReal w[]);
/* A consistent acceleration at (t, q, u) on a nonlinear system: M(q) a - G_b^T lambda = f(t, q, u), G_b a = -(d(G_b u)/dq) u -
   d^2 g_b/dt^2 on the bilateral rows (their acceleration level; the last term a driver's prescribed angular acceleration,
   VISystemEvaluateConstraintAcceleration); a (n) and the bilateral rows' lambda into lambda (nc, 0 on the others). */
PETSC_INTERN PetscErrorCode VINonlinearInitialAcceleration(VIStepper st, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal a[],
                                                           PetscReal lambda[]);

/* ---------------------------------------------------------------- the mixed scheme's nonlinear path (mixednl.c) */

/* The smooth base scheme of the mixed scheme (seed 001 §2.4, 2.6, 2.7) and its coefficients at the step (mixed.c's
   VIMixedSetCoefficients, shared by both paths): generalized-alpha's alpha_m, alpha_f, gamma, beta (Eq. 26), ED-alpha's c1..c15
   (Eq. 90), and the tangential restitution eps_T (Eq. 12). */
typedef enum { VI_MIXED_GENALPHA, VI_MIXED_BATHE, VI_MIXED_EDALPHA } VIMixedBase;
typedef struct {
  VIMixedBase base;
  PetscReal   am, af, ga, be, c[16], restitution_t;
  PetscBool   joints_previous; /* ED-alpha on a nonlinear system: the stage j's joint force is level i's (-step_mixed_edalpha_joints) */
} VIMixedCoefficients;
typedef struct _VIMixedNL  *VIMixedNL;
PETSC_INTERN PetscErrorCode VIMixedNLSetUp(VIStepper st, const VIMixedCoefficients *cf, VIMixedNL *nl);
/* Level 0 at the first call, then the step from t - dt to t (seed 001 Fig. 4 (a)-(c)) */
PETSC_INTERN PetscErrorCode VIMixedNLStep(VIStepper st, VIMixedNL nl, PetscReal t);
PETSC_INTERN PetscErrorCode VIMixedNLDestroy(VIMixedNL *nl);
