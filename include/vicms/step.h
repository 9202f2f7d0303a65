/* vicms step module: one contact case — the mechanical system (a ROM with loads, gaps, friction, initial state) and
   its nonsmooth time integration (seed 000 §2, App. B). */
#pragma once

#include <vicms/rom.h>
#include <vicms/contact.h>
#include <vicms/excite.h>

/* ---------------------------------------------------------------- the mechanical system of a case */

typedef enum { VI_INIT_REST, VI_INIT_VELOCITY, VI_INIT_STATIC } VIInitType;
PETSC_EXTERN const char *const VIInitTypes[];

typedef struct _p_VISystem *VISystem;

PETSC_EXTERN PetscErrorCode VISystemCreate(MPI_Comm comm, VISystem *sys);
/* The ROM is referenced, not copied: many cases share one ROM. */
PETSC_EXTERN PetscErrorCode VISystemSetROM(VISystem sys, VIROM rom);
/*
  Options of a case:
  -case_loads NAME[,NAME...]   ROM loads that act (their time functions: options with prefix load_NAME_, see excite.h;
                               default constant 1, e.g. -load_gravity_amplitude 1 -load_tip_type harmonic ...)
  -contact_mu μ, -contact_preload p, -contact_sliding_speed v (the obstacle moves along t1 at v)
  -contact_rotation_axis ax,ay,az, -contact_rotation_origin ox,oy,oz: the structure spins at -contact_rotation_speed
  Omega about this axis inside a fixed obstacle (a blade in its casing): each contact gets the obstacle's velocity
  -Omega r_j e_theta,j seen from the structure (r_j its radius, e_theta,j its circumferential direction) in its frame,
  and, unless -contact_gap_phases is given, the gap phase phi_j = k theta_j (theta_j its angle about the axis from the
  first contact, k = -contact_gap_waves): g0_j(t) = g + a cos(k (Omega t + theta_j))
  -contact_gap g (mean gap), -contact_gap_amplitude a, -contact_gap_waves k, -contact_rotation_speed Ω (rad/s),
  -contact_gap_phases φ0,φ1,... (one per contact, or) -contact_gap_phase_step dφ: g0_j(t) = g + a cos(k Ω t + φ_j);
  -contact_gap_shape bump -contact_gap_bump_width w: g0_j(t) = g - a exp(-d^2/(2 w^2)), d = k Ω t + φ_j wrapped to (-π, π]
  -case_damping_scale s: the case's damping matrix is s D of the ROM (s >= 0; default 1), for HB and time stepping alike
  -init rest|velocity|static, -init_velocity v, -init_direction x|y|z (a uniform velocity, needs the ROM shape
  translation_DIR), -init_load NAME (static deflection under a load: K q = f)
*/
PETSC_EXTERN PetscErrorCode VISystemSetFromOptions(VISystem sys);
/* Once for the ROM and options given (VISystemSetROM and VISystemSetFromOptions ask for it again): a stepper set up on
   the case later reuses its arrays. */
PETSC_EXTERN PetscErrorCode VISystemSetUp(VISystem sys);
/* Sizes: n = nb + nm; contacts and their friction. */
PETSC_EXTERN PetscErrorCode VISystemGetSizes(VISystem sys, PetscInt *n, PetscInt *nb, PetscInt *nm);
PETSC_EXTERN PetscErrorCode VISystemGetROM(VISystem sys, VIROM *rom);
/* The case's K, M and D (n x n row-major; D scaled by -case_damping_scale), after VISystemSetUp: what every solver of the case uses. */
PETSC_EXTERN PetscErrorCode VISystemGetMatrices(VISystem sys, const PetscReal **K, const PetscReal **M, const PetscReal **D);
/* External force f(t) (n) and imposed gap, gap rate and tangential obstacle velocity per contact at t. */
PETSC_EXTERN PetscErrorCode VISystemEvaluateForce(VISystem sys, PetscReal t, PetscReal f[]);
/* The force is f(t) = sum_l s_l(t) v_l: the load vectors v_l (n each, owned by the ROM) and their scales s_l(t), for
   schemes that apply an operator to each v_l once at set-up. */
PETSC_EXTERN PetscErrorCode VISystemGetLoads(VISystem sys, PetscInt *num_loads, const PetscReal *const **vectors);
PETSC_EXTERN PetscErrorCode VISystemEvaluateLoadScales(VISystem sys, PetscReal t, PetscReal s[]);
/* f = sum_l s_l v_l from scales already evaluated (a scheme that needs both evaluates the excitations once). */
PETSC_EXTERN PetscErrorCode VISystemForceFromScales(VISystem sys, const PetscReal s[], PetscReal f[]);
PETSC_EXTERN PetscErrorCode VISystemEvaluateGaps(VISystem sys, PetscReal t, PetscReal g0[], PetscReal g0_rate[]);
/* The contact set of the case and the obstacle's tangential velocity per contact (nc x 2: along t1 and t2). */
/* The unilateral constraints at (t, q), as a stepper that works on gaps sees them (seed 002 Eq. 17): the normal gap g_j(q, t) of each
   contact (nc), its gradient G_j = dg_j/dq (row j of G, nc x n, row-major) and its explicit time rate dg_j/dt (nc). A ROM's gaps are
   linear, g_j = q[offset_j] + g0_j(t) with G_j a unit row; a system whose gaps depend nonlinearly on q (rigid bodies, joints) gives
   its own here, and the steppers that read gaps through this function (nsgalpha) take it unchanged. Any output may be NULL. */
PETSC_EXTERN PetscErrorCode VISystemEvaluateConstraints(VISystem sys, PetscReal t, const PetscReal q[], PetscReal g[], PetscReal G[],
                                                        PetscReal g_rate[]);
PETSC_EXTERN PetscErrorCode VISystemGetContactSet(VISystem sys, VIContactSet *set, const PetscReal **obstacle_velocity);
/* The frequency (Hz) at t of the first load with a harmonic or swept time function, and that function's type; f = 0
   and type VI_EXCITE_CONSTANT when no load has one. */
PETSC_EXTERN PetscErrorCode VISystemGetLoadFrequency(VISystem sys, PetscReal t, PetscReal *f, VIExciteType *type);
/* Initial displacement q0 and velocity u0 (n), from the -init options (or VISystemSetInitialState). */
PETSC_EXTERN PetscErrorCode VISystemGetInitialState(VISystem sys, const PetscReal **q0, const PetscReal **u0);
/*
  VISystemSetTimeScale - play the case's time functions s times faster (s > 0; 1, the default, is the case as given):
  every load scale is l(s t) instead of l(t), every imposed gap g0(s t) with its rate s g0'(s t), and the load
  frequency reported at t is s f(s t). A harmonic load of frequency f_case and gaps periodic with it then repeat with the
  frequency s f_case: harmonic balance (src/hb/transient.c) drives its case at its own frequency Omega this way,
  s = Omega / (2 pi f_case). The constant obstacle velocities (-contact_sliding_speed, rotation) are not scaled. Not
  collective; applies from the next evaluation; the caller sets 1 back to restore the case.
*/
PETSC_EXTERN PetscErrorCode VISystemSetTimeScale(VISystem sys, PetscReal s);
PETSC_EXTERN PetscErrorCode VISystemGetTimeScale(VISystem sys, PetscReal *s);
/* VISystemSetInitialState - after VISystemSetUp: the initial state is q0, u0 (n each, copied; NULL is zero) instead of
   the -init options, from now and at every later set-up, until called with both NULL (the -init state again). Not
   collective: every rank of a case's group gives the same state. */
PETSC_EXTERN PetscErrorCode VISystemSetInitialState(VISystem sys, const PetscReal q0[], const PetscReal u0[]);
PETSC_EXTERN PetscErrorCode VISystemView(VISystem sys, PetscViewer viewer);
PETSC_EXTERN PetscErrorCode VISystemDestroy(VISystem *sys);

/* ---------------------------------------------------------------- time integration */

typedef enum { VI_STEPPER_LEAPFROG, VI_STEPPER_MOREAU, VI_STEPPER_NSGALPHA, VI_STEPPER_MIXED } VIStepperType;
PETSC_EXTERN const char *const VIStepperTypes[];

/* Columns of the recorded energy: kinetic, potential, damping, friction, external work, obstacle work, balance error. */
#define VI_ENERGY_COLUMNS 7

/* Energy terms, cumulated from the start (seed 000's energy bookkeeping). The balance error is
   kinetic + potential - (kinetic0 + potential0) - external_work - obstacle_work + damping + friction. */
typedef struct {
  PetscReal kinetic, potential, damping_dissipation, friction_dissipation, external_work, obstacle_work;
} VIEnergy;

/* What a case reports besides its time series. */
typedef struct {
  PetscInt       steps, contact_solves, contact_iterations, contact_iterations_max, nonconverged;
  PetscReal      contact_residual_max; /* largest residual among non-converged solves */
  PetscBool      unstable;             /* the run blew up (NaN, or |q| beyond the bound) */
  PetscReal      unstable_time;
  PetscBool      failed;       /* the run stopped early: unstable, or more non-converged contact solves than allowed */
  PetscBool      stopped;      /* the run was stopped at a step boundary on request (VIStepperStop) and can continue from a checkpoint */
  PetscReal      stopped_time; /* the time level it stopped at */
  char           message[256]; /* why it failed */
  PetscLogDouble wall_time;
  PetscLogDouble matvec_time; /* one BLAS dgemv of n x n (the ROM's K), timed at set-up: the unit of a step's cost */
} VIStepStats;

typedef struct _p_VIStepper *VIStepper;

PETSC_EXTERN PetscErrorCode VIStepperCreate(MPI_Comm comm, VIStepper *st);
PETSC_EXTERN PetscErrorCode VIStepperSetSystem(VIStepper st, VISystem sys);
/* Options: -step_type leapfrog|moreau|nsgalpha|mixed, -step_dt (a number, or auto: see timestep.c and README), -step_dt_safety,
   -step_accuracy, -step_accuracy_window, -step_accuracy_output, -step_points_per_period, -step_frequency_cutoff, -step_end_time,
   -step_start_time, -step_output_every N (record every N-th step), -step_blowup_factor B (unstable when |q| exceeds B times the
   largest static response, default 1e6), -step_restitution e (moreau, nsgalpha, mixed), -step_rho_inf ρ∞ (nsgalpha, mixed; in [0, 1]),
   -step_mixed_base genalpha|bathe|edalpha, -step_mixed_alpha_m, -step_mixed_alpha_f, -step_mixed_alpha_ar, -step_mixed_restitution_tangential
   (mixed, seed 001: see src/step/mixed.c),
   -step_nsgalpha_max_it N (semi-smooth Newton iterations per step), -step_moreau_variant symmetric|theta, -step_theta θ, -step_max_nonconverged N
   (the run stops as failed when more than N contact solves did not converge; default -1, no limit: they are counted and reported), and the contact
   solver's -contact_solver ... options. */
PETSC_EXTERN PetscErrorCode VIStepperSetFromOptions(VIStepper st);
PETSC_EXTERN PetscErrorCode VIStepperSetType(VIStepper st, VIStepperType type);
/* dt PETSC_DETERMINE: the automatic step (as -step_dt auto), chosen at the next set-up. */
PETSC_EXTERN PetscErrorCode VIStepperSetTimeStep(VIStepper st, PetscReal dt, PetscReal end_time);
/* Record every every-th time level (and the last), as -step_output_every. */
PETSC_EXTERN PetscErrorCode VIStepperSetOutputEvery(VIStepper st, PetscInt every);
PETSC_EXTERN PetscErrorCode VIStepperGetTimeStep(VIStepper st, PetscReal *dt, PetscReal *end_time);
/* A function called on every rank of the stepper's communicator every 64 steps with the current time; not collective by itself. The ensemble uses it
 * to serve its scheduler during long cases. */
PETSC_EXTERN PetscErrorCode VIStepperSetMonitor(VIStepper st, PetscErrorCode (*monitor)(VIStepper, PetscReal, void *), void *ctx);
/* Refuses a scheme that does not suit the ROM (leapfrog needs a massless boundary, moreau, nsgalpha and mixed a mass-carrying one). */
PETSC_EXTERN PetscErrorCode VIStepperSetUp(VIStepper st);
/* Integrate from the initial state to the end time, recording every output_every-th step. Collective on the stepper's
   communicator (a case's rank group): the dense row blocks of the ROM operators are split over its ranks, and every rank
   ends with the same, bitwise identical, state and records. A run that fails (unstable, too many non-converged contact
   solves) ends early with stats->failed set and the reason in stats->message, not with an error. */
PETSC_EXTERN PetscErrorCode VIStepperRun(VIStepper st);
/* Recorded series: times (nt), outputs (nt x nout, the ROM's outputs), gaps and normal forces (nt x ncontacts),
   energy (nt x 7: kinetic, potential, damping, friction, external work, obstacle work, balance error). Owned by the stepper. */
PETSC_EXTERN PetscErrorCode VIStepperGetSeries(VIStepper st, PetscInt *nt, const PetscReal **t, const PetscReal **outputs, const PetscReal **gaps,
                                               const PetscReal **forces, const PetscReal **energy);
PETSC_EXTERN PetscErrorCode VIStepperGetStats(VIStepper st, VIStepStats *stats);

/* Statistics of a run taken at every time level, whatever is recorded. Per ROM output: max |y| over the run, and over
   the steady window (the last `fraction` of the run, VIStepperSetSteadyWindow, default 0.25) its min, max, mean and RMS;
   the largest normal contact force over the run, and the smallest normal gap over the steady window. */
typedef struct {
  PetscInt   nout;
  PetscReal *max_abs, *min, *max, *mean, *rms; /* nout each, owned by the stepper */
  PetscReal  force_max, gap_min;
} VIRunStatistics;
PETSC_EXTERN PetscErrorCode VIStepperSetSteadyWindow(VIStepper st, PetscReal fraction);
PETSC_EXTERN PetscErrorCode VIStepperGetRunStatistics(VIStepper st, VIRunStatistics *s);
/* Envelope of one output over a frequency sweep, taken at every level: per pseudo-period 1/f(t) of the first load with a
   frequency, (f at the window's middle, half peak-to-peak), in time order. Set before the run (-1: none). */
PETSC_EXTERN PetscErrorCode VIStepperSetEnvelopeOutput(VIStepper st, PetscInt output);
PETSC_EXTERN PetscErrorCode VIStepperGetEnvelope(VIStepper st, PetscInt *m, const PetscReal **env);
PETSC_EXTERN PetscErrorCode VIStepperGetState(VIStepper st, const PetscReal **q, const PetscReal **u);
/* From a monitor: end the run at this step boundary (not at the last level, which completes the run); VIStepperRun returns
   with stats.stopped set and the state of that level kept for VIStepperCheckpointWrite. Not collective: every rank of the
   group must ask at the same level. */
PETSC_EXTERN PetscErrorCode VIStepperStop(VIStepper st);
/* The time level the run stands at (from a monitor, or after a stop): its 0-based index and time. */
PETSC_EXTERN PetscErrorCode VIStepperGetLevel(VIStepper st, PetscInt *level, PetscReal *t);
/*
  Checkpoints: everything a run needs to continue exactly as if it had not stopped — the scheme's state fields (q, v,
  contact forces and warm starts, previous levels, flags), the records so far, the per-level statistics and envelope
  accumulators, energy sums, counters and the time level — written at a step boundary (from a monitor, or after a stop).

  VIStepperCheckpointWrite - write the checkpoint to path, whole (path.part, then a rename). Rank-local: the state is the
  same on every rank of the group, one writes it. tag: what the checkpoint belongs to (job and case), checked on restore.

  VIStepperCheckpointRead - after VIStepperSetUp, restore the run from path; VIStepperRun then continues from the level
  it holds, and the finished run's records, statistics and counters equal those of an uninterrupted run bitwise. Collective
  on the group (every rank reads the file; all restore or none). *restored is false, with the reason in why, when the
  file cannot be read or belongs to another run (another tag, scheme, size or time step); the stepper is then set up afresh.
*/
PETSC_EXTERN PetscErrorCode VIStepperCheckpointWrite(VIStepper st, const char path[], const char tag[]);
PETSC_EXTERN PetscErrorCode VIStepperCheckpointRead(VIStepper st, const char path[], const char tag[], PetscBool *restored, char why[], size_t len);
/* The time step of a set-up stepper and, when it was chosen automatically (-step_dt auto, -step_accuracy), how: the
   stability limit of the scheme (seed 000 §2, App. B; 0 for an unconditionally stable scheme) with its omega_max, the
   accuracy asked and the estimated epsilon_RMS (seed 000 Eq. 30) of the chosen step, and a sentence for people. */
typedef struct {
  PetscReal dt;
  PetscBool automatic;
  PetscReal dt_stable, omega_max, accuracy, estimate;
  char      how[512];
} VITimeStepInfo;
PETSC_EXTERN PetscErrorCode VIStepperGetTimeStepInfo(VIStepper st, VITimeStepInfo *info);
/* The stable steps of the schemes that suit the ROM, in words (vicms info): leapfrog's for a massless boundary with the
   contacts held and open, the symmetric Moreau scheme's for a mass-carrying one, and the highest frequencies. Rank-local. */
PETSC_EXTERN PetscErrorCode VIStepperViewStableSteps(VIROM rom, PetscViewer viewer);
PETSC_EXTERN PetscErrorCode VIStepperView(VIStepper st, PetscViewer viewer);
PETSC_EXTERN PetscErrorCode VIStepperDestroy(VIStepper *st);
