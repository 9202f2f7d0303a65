/* vicms step module: the nonsmooth time integration of a mechanical system (include/vicms/system.h; seed 000 §2, App. B;
   seeds 001, 002). */
#pragma once

#include <vicms/system.h>

/* ---------------------------------------------------------------- time integration */

typedef struct _p_VIStepper *VIStepper;

/* The schemes, registered by name like PETSc's TS types (src/step/stepregis.c: one line per scheme, one file each). */
typedef const char *VIStepperType;
#define VISTEPPERLEAPFROG "leapfrog"
#define VISTEPPERMOREAU   "moreau"
#define VISTEPPERNSGALPHA "nsgalpha"
#define VISTEPPERMIXED    "mixed"
#define VISTEPPERDUAL     "dual" /* coupled bodies (system type bodies), seed 003 §2.2: src/step/dualstep.c */
/* The registered names in PETSc's enum layout (names, "VIStepperType", "VISTEPPER", NULL): filled by
   VIStepperRegisterAll, read by the option registry's value check of -step_type. */
PETSC_EXTERN const char *VIStepperTypes[];
/* VIStepperRegister - add a scheme: create(st) sets st's ops and data (its options at their defaults). Not collective. */
PETSC_EXTERN PetscErrorCode VIStepperRegister(const char name[], PetscErrorCode (*create)(VIStepper));
/* Registers the schemes of vicms (once; VIStepperCreate calls it). */
PETSC_EXTERN PetscErrorCode VIStepperRegisterAll(void);

/* Columns of the recorded energy: kinetic, potential, damping, friction, external work, obstacle work, balance error, numerical
   dissipation (the last one added after the balance error, so that a reader of the first seven finds them where they were). */
#define VI_ENERGY_COLUMNS 8

/* Energy terms, cumulated from the start (seed 000's energy bookkeeping). The balance error is
   kinetic + potential - (kinetic0 + potential0) - external_work - obstacle_work + damping + friction + numerical.
   numerical_dissipation: the energy the scheme itself takes out (or puts in, < 0): nsgalpha's generalized-alpha damping of
   rho_inf < 1 and its position projection at contacts (docs/results.md); 0 for the other schemes. */
typedef struct {
  PetscReal kinetic, potential, damping_dissipation, friction_dissipation, external_work, obstacle_work, numerical_dissipation;
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
  PetscErrorCode error;        /* a step that raised an error on some rank of the group: its code (VIStepperRun returned it on every rank), else 0 */
  PetscInt       failed_level; /* the level whose step raised it (-1: none) */
  PetscLogDouble wall_time;
  PetscLogDouble matvec_time; /* one BLAS dgemv of n x n (the ROM's K), timed at set-up: the unit of a step's cost */
} VIStepStats;

PETSC_EXTERN PetscErrorCode VIStepperCreate(MPI_Comm comm, VIStepper *st);
PETSC_EXTERN PetscErrorCode VIStepperSetSystem(VIStepper st, VISystem sys);
/* Options: -step_type leapfrog|moreau|nsgalpha|mixed, -step_dt (a number, or auto: see timestep.c and README), -step_dt_safety,
   -step_accuracy, -step_accuracy_window, -step_accuracy_output, -step_points_per_period, -step_frequency_cutoff, -step_end_time,
   -step_start_time, -step_output_every N (record every N-th step), -step_blowup_factor B (unstable when |q| exceeds B times the
   largest static response, default 1e6), -step_restitution e (moreau, nsgalpha, mixed), -step_max_nonconverged N (the run stops as failed
   when more than N contact solves did not converge; default 0.1 % of the steps, at least 10; -1: no limit, they are counted and
   reported), the contact solver's
   -contact_solver ... options, and the scheme's own, read by the scheme's file: -step_moreau_variant symmetric|theta, -step_theta θ
   (moreau.c), -step_rho_inf ρ∞ (nsgalpha.c, mixed.c; in [0, 1]), -step_nsgalpha_max_it N (nsgalpha.c), -step_mixed_base
   genalpha|bathe|edalpha, -step_mixed_alpha_m, -step_mixed_alpha_f, -step_mixed_alpha_ar, -step_mixed_restitution_tangential (mixed.c,
   seed 001). */
PETSC_EXTERN PetscErrorCode VIStepperSetFromOptions(VIStepper st);
/* By name (a registered scheme; PETSC_ERR_USER_INPUT naming the known ones otherwise): the scheme's options at their
   defaults until VIStepperSetFromOptions. */
PETSC_EXTERN PetscErrorCode VIStepperSetType(VIStepper st, VIStepperType type);
PETSC_EXTERN PetscErrorCode VIStepperGetType(VIStepper st, VIStepperType *type);
/* dt PETSC_DETERMINE: the automatic step (as -step_dt auto), chosen at the next set-up. */
PETSC_EXTERN PetscErrorCode VIStepperSetTimeStep(VIStepper st, PetscReal dt, PetscReal end_time);
/* Record every every-th time level (and the last), as -step_output_every. */
PETSC_EXTERN PetscErrorCode VIStepperSetOutputEvery(VIStepper st, PetscInt every);
PETSC_EXTERN PetscErrorCode VIStepperGetTimeStep(VIStepper st, PetscReal *dt, PetscReal *end_time);
/* A function called on every rank of the stepper's communicator every 64 steps with the current time; not collective by itself. The ensemble uses it
 * to serve its scheduler during long cases. */
PETSC_EXTERN PetscErrorCode VIStepperSetMonitor(VIStepper st, PetscErrorCode (*monitor)(VIStepper, PetscReal, void *), void *ctx);
/* A function called on every rank after the step of each level (level 0, the initial state, included) and after its record
   (recorded: the level was recorded), before the monitor: what a caller keeps per level beside the stepper's records (vicms
   slide: its contact tally and its history). Not collective. */
PETSC_EXTERN PetscErrorCode VIStepperSetPostLevel(VIStepper st,
                                                  PetscErrorCode (*postlevel)(VIStepper, PetscInt level, PetscReal t, PetscBool recorded, void *),
                                                  void *ctx);
/* Refuses a scheme that does not suit the ROM (leapfrog needs a massless boundary, moreau, nsgalpha and mixed a mass-carrying one). */
PETSC_EXTERN PetscErrorCode VIStepperSetUp(VIStepper st);
/* Integrate from the initial state to the end time, recording every output_every-th step. Collective on the stepper's
   communicator (a case's rank group): the dense row blocks of the ROM operators are split over its ranks, and every rank
   ends with the same, bitwise identical, state and records. A run that fails (unstable, too many non-converged contact
   solves) ends early with stats->failed set and the reason in stats->message, not with an error. A step that raises an
   error on some ranks of the group only (a rank-local failure) ends the run on all of them: the ranks agree every 64 levels
   (where the monitor is called) and at the end, and VIStepperRun returns the error of the first failing level (lowest rank)
   with its message on every rank, stats->failed set, stats->error its code, stats->failed_level its level and stats->message
   its message, the records cut before that level. Such a rank skips its steps until the agreement, so a scheme whose step
   is itself collective (the row blocks of leapfrog, moreau, nsgalpha, mixed on more than one rank) must not fail before its
   gather; the dual scheme's step is rank-local. */
PETSC_EXTERN PetscErrorCode VIStepperRun(VIStepper st);
/* Recorded series: times (nt), outputs (nt x nout, the ROM's outputs), gaps and normal forces (nt x ncontacts; row i the mean
   force of the step ending at t_i, or the force at t_i of the schemes whose contact forces act at the levels: docs/results.md),
   energy (nt x VI_ENERGY_COLUMNS: kinetic, potential, damping, friction, external work, obstacle work, balance error, numerical
   dissipation). Owned by the stepper. */
PETSC_EXTERN PetscErrorCode VIStepperGetSeries(VIStepper st, PetscInt *nt, const PetscReal **t, const PetscReal **outputs, const PetscReal **gaps,
                                               const PetscReal **forces, const PetscReal **energy);
/* The velocities of the outputs at the recorded levels (nt x nout, the same rows as the outputs: the output rows times the
   scheme's velocity estimate of the level). Owned by the stepper. */
PETSC_EXTERN PetscErrorCode VIStepperGetVelocities(VIStepper st, const PetscReal **velocities);
/* The ROM coordinates q at the recorded levels (nt x n, n the ROM's size) with -step_record_q, else n = 0 and q = NULL. Owned by
   the stepper. */
PETSC_EXTERN PetscErrorCode VIStepperGetStateSeries(VIStepper st, PetscInt *n, const PetscReal **q);
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
/* Declares the module's options to the option registry (src/sys/options.c; once, at start-up: VIOptionsRegisterAll). */
PETSC_EXTERN PetscErrorCode VIStepRegisterOptions(void);
