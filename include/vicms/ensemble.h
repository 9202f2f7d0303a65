/* vicms ensemble module: sets of contact cases (grids, sweeps, seeded samples) and their scheduling over rank groups. */
#pragma once

#include <vicms/step.h>
#include <vicms/io.h>
#include <petscviewer.h>

/* Distributions of sampled parameters. */
typedef enum { VI_DIST_UNIFORM, VI_DIST_NORMAL, VI_DIST_LOGNORMAL, VI_DIST_TRUNCATED_NORMAL } VIDistType;
PETSC_EXTERN const char *const VIDistTypes[]; /* "uniform", "normal", "lognormal", "truncated_normal", trailer */

typedef enum { VI_SAMPLING_MONTE_CARLO, VI_SAMPLING_LATIN_HYPERCUBE } VISamplingType;
PETSC_EXTERN const char *const VISamplingTypes[]; /* "mc", "lhs", trailer */

/* The order in which rank 0 hands the cases out: longest first by their estimated cost (LPT), or by case index. */
typedef enum { VI_CASE_ORDER_LONGEST_FIRST, VI_CASE_ORDER_INDEX } VICaseOrder;
PETSC_EXTERN const char *const VICaseOrders[]; /* "longest_first", "index", trailer */

/* ---------------------------------------------------------------- the set of cases */

typedef struct _p_VICaseSet *VICaseSet;

PETSC_EXTERN PetscErrorCode VICaseSetCreate(MPI_Comm comm, VICaseSet *cs);
/*
  A case set is a table: one row per case, one column per parameter. A parameter is named by the case option it sets,
  without the dash (contact_mu, load_tip_frequency, step_dt, ...). Options:

  -cases_grid NAME:FROM:TO:N[:log][,NAME:...]   N values from FROM to TO (linear, or logarithmic), one axis per item;
                                               the cases are the Cartesian product of the axes, the first axis slowest
  -cases_values NAME:V1/V2/.../Vn[,NAME:...]   an axis of explicit values (joins the product like a grid axis)
  -cases_sweep LOAD:F0:F1[:up|down|both]       frequency sweeps of load LOAD between F0 and F1 Hz (default both): one case
                                               per direction, with columns load_LOAD_frequency (the start: F0 up, F1 down),
                                               load_LOAD_sweep_down (0, 1) and step_end_time (the time the sweep takes at
                                               the rate of the -load_LOAD_sweep_* options); joins the product as an axis
  -cases_random NAME:uniform:A:B | NAME:normal:MEAN:SD | NAME:lognormal:MU:SIGMA (of the logarithm) |
                NAME:truncated_normal:MEAN:SD:LO:HI [,NAME:...]   sampled parameters
  -cases_samples S                             samples per grid point (default 1)
  -cases_sampling mc|lhs                       Monte Carlo or Latin hypercube (per grid point, over the random parameters)
  -cases_seed SEED                             the job seed; the samples of grid point g come from a PetscRandom seeded
                                               from (SEED, g), so a case depends only on its index, S and the seed

  With no option the set has one case with no parameters. Grid and random parameters combine: every grid point gets S
  samples; the case index is g * S + j.
*/
PETSC_EXTERN PetscErrorCode VICaseSetSetFromOptions(VICaseSet cs);
PETSC_EXTERN PetscErrorCode VICaseSetGetSize(VICaseSet cs, PetscInt *num_cases, PetscInt *num_params);
PETSC_EXTERN PetscErrorCode VICaseSetGetParameterName(VICaseSet cs, PetscInt p, const char **name);
/* The parameter table, row-major num_cases x num_params, the same on every rank. */
PETSC_EXTERN PetscErrorCode VICaseSetGetTable(VICaseSet cs, const PetscReal **table);
/* Whether the set has random parameters (the job is an uncertainty-quantification ensemble). */
PETSC_EXTERN PetscErrorCode VICaseSetIsSampled(VICaseSet cs, PetscBool *sampled);
/* Set "-NAME value" for every parameter of case k in the global options database, remembering what was there;
   VICaseSetRestore puts the previous values back. Not collective. */
PETSC_EXTERN PetscErrorCode VICaseSetApply(VICaseSet cs, PetscInt k);
PETSC_EXTERN PetscErrorCode VICaseSetRestore(VICaseSet cs);
PETSC_EXTERN PetscErrorCode VICaseSetView(VICaseSet cs, PetscViewer viewer);
PETSC_EXTERN PetscErrorCode VICaseSetDestroy(VICaseSet *cs);

/* Standard normal distribution: cumulative and its inverse (full double precision; used by the sampling). */
PETSC_EXTERN PetscReal VINormalCDF(PetscReal x);
PETSC_EXTERN PetscReal VINormalQuantile(PetscReal p);

/* ---------------------------------------------------------------- running an ensemble */

typedef struct _p_VIEnsemble *VIEnsemble;

/* How one case ended, filled by a case runner's run (the ensemble sets k and nq, and NaN in quantities). */
typedef struct {
  PetscInt   k, nq;
  PetscReal *quantities;   /* nq: the case's quantities (summaries and statistics over the cases) */
  PetscBool  failed;       /* the case failed on its own (recorded with message, the others go on) */
  PetscBool  error;        /* run stopped on an error (set by the ensemble; message is the error's) */
  char       message[256]; /* why it failed */
  PetscBool  stopped;      /* stopped on a signal at stopped_time, its state in a checkpoint (to be continued) */
  PetscReal  stopped_time;
} VICaseOutcome;

/*
  VICaseRunner - what one case of an ensemble computes and writes. The ensemble does everything else: the case table,
  rank groups, scheduling, the results file's journal, lock, resume, merge, failure isolation and clean stops. For
  every case it sets the case's parameters as options, calls run on the case's rank group with errors captured (an error
  fails that case only), has the group's rank 0 write the case into its journal file under group "/case" (write, then
  the quantities, status and message), and calls reset on every rank of the group. The default runner steps the case
  in time (`vicms simulate`); `vicms hb` gives one that continues a harmonic balance branch.

  kind            the results file's root attribute "kind" ("simulate", "hb")
  quantity_names  the nq names of the per-case quantities (PetscStrArrayDestroy)
  check           the first case's set-up on the job's communicator (case 0's options set): an error stops the job
  cost            the estimated costs of cases[i], i < n, to hand the longest out first (NULL: index order). Rank-local
  run             compute the case (its options set) on group; fill out (quantities, failed and message)
  write           the case's data under group of the open journal file (the group's rank 0; out->error: run failed)
  summary         extra summaries of the merged results file (NULL: none). Rank-local
  reset           release the case's data, on every rank of the group
  checkpoint      write the state of the case being run to path, carrying tag (the group's rank 0; NULL: a case cannot be
                  stopped mid-way). Called at a stop, and every -cases_checkpoint_interval seconds, from VIEnsembleCasePoll
  restore         collective on the group: continue the case from the checkpoint at path when its tag is tag (*restored,
                  *position where it was; else why in words), from VIEnsembleCaseRestore
  position_name, position_unit   how a stopped case's position (VICaseOutcome.stopped_time) is named in messages:
                  "t", "" for the time stepping; "f", " Hz" for a continuation
  token           the model's part of the job fingerprint when the cases run on a model that is not a ROM (the bodies of
                  `vicms slide`; VIEnsembleSetROM not called: the rom argument of the callbacks is NULL). Not collective
  A runner with checkpoint and restore calls VIEnsembleCaseRestore once the case is set up, VIEnsembleCasePoll at every
  boundary where it can stop, and on a stop returns from run with out->stopped set: the ensemble writes its checkpoint.
*/
typedef struct {
  const char *kind;
  void       *ctx;
  PetscErrorCode (*quantity_names)(void *ctx, VIROM rom, PetscInt *nq, char ***names);
  PetscErrorCode (*check)(void *ctx, VIROM rom, MPI_Comm comm);
  PetscErrorCode (*cost)(void *ctx, VIROM rom, PetscInt n, const PetscInt cases[], PetscReal cost[]);
  PetscErrorCode (*run)(void *ctx, VIROM rom, MPI_Comm group, PetscBool verbose, VICaseOutcome *out);
  PetscErrorCode (*write)(void *ctx, VIROM rom, const VICaseOutcome *out, hid_t file, const char group[]);
  PetscErrorCode (*summary)(void *ctx, hid_t file, PetscInt ncases, const PetscInt status[]);
  PetscErrorCode (*reset)(void *ctx);
  PetscErrorCode (*checkpoint)(void *ctx, const char path[], const char tag[]);
  PetscErrorCode (*restore)(void *ctx, const char path[], const char tag[], PetscBool *restored, PetscReal *position, char why[], size_t len);
  const char *position_name, *position_unit;
  PetscErrorCode (*token)(void *ctx, char token[], size_t len);
} VICaseRunner;

PETSC_EXTERN PetscErrorCode VIEnsembleCreate(MPI_Comm comm, VIEnsemble *ens);
/* The ROM the cases run on (loaded on every rank of the communicator; referenced, not copied). */
PETSC_EXTERN PetscErrorCode VIEnsembleSetROM(VIEnsemble ens, VIROM rom);
/* The case runner (copied; its ctx referenced). Default: the time stepping of `vicms simulate`. Call before VIEnsembleRun. */
PETSC_EXTERN PetscErrorCode VIEnsembleSetCaseRunner(VIEnsemble ens, const VICaseRunner *runner);
/* From a runner's run, once the case is set up: continue it from its checkpoint when there is one (through the runner's
   restore), with a line saying so. Collective on the case's group. */
PETSC_EXTERN PetscErrorCode VIEnsembleCaseRestore(VIEnsemble ens);
/* From a runner's run, at a boundary where the case can stop: rank 0 answers the other groups, the group agrees on a stop
   (*stop: a signal on any rank of the job; the run then returns with out->stopped) and writes a periodic checkpoint
   when due (-cases_checkpoint_interval); progress: a line printed every -cases_progress_interval seconds in a job of one
   case (NULL: none). Collective on the case's group. */
PETSC_EXTERN PetscErrorCode VIEnsembleCasePoll(VIEnsemble ens, const char progress[], PetscBool *stop);
/*
  Options:
  -results_file PATH            where the results go (default results.h5); finished cases wait in PATH.cases/ until they
                                are merged into PATH
  -cases_group_size G           ranks per group (default 1); the ranks split into groups of G consecutive ranks, and each
                                group runs one case at a time with the ROM operators split over its ranks
  -cases_merge_interval S       merge finished cases into the results file at most every S seconds (default 10; 0: after
                                every case); the file is replaced atomically, so it is always complete and readable, and
                                a merge writes the cases finished since the merge before, not the file (docs/merge.md)
  -cases_keep_series            store each case's time series (default true); false keeps the statistics only
  -cases_order longest_first|index  the order cases are handed out in (default longest_first: by decreasing estimated
                                cost, the time steps times a cost per step from the ROM's size, the contacts and the scheme)
  -cases_verbose                a line per case handed out (case, estimated cost, group)
  -cases_quiet                  no progress line
  -cases_progress_interval S    seconds between progress lines (default 2)
  -summary_output NAME          the ROM output the frequency-response summaries use (default: the first)
  -summary_steady_fraction F    the last fraction of a case taken as its steady state (default 0.25)
  -summary_bins B               histogram bins of the sampled quantities (default 20)
  -summary_balance_warning E    warn when a case's relative energy balance error exceeds E (default 0.01)
  and the case set's -cases_* options.
*/
PETSC_EXTERN PetscErrorCode VIEnsembleSetFromOptions(VIEnsemble ens);
/*
  VIEnsembleRun - run every case of the set that the results file does not hold yet, dynamically over the rank groups,
  write each finished case at once, merge them and the summaries into the results file, and print a summary.
  Collective. A case that fails (unstable, contact not converged past its limit, an error in its own parameters) is
  recorded as failed with its message and the others go on; an error in the job itself (found on the first case's
  set-up) stops the job on every rank.
*/
PETSC_EXTERN PetscErrorCode VIEnsembleRun(VIEnsemble ens);
/* After VIEnsembleRun: an error when every case failed (what: "case", "branch"), unless the run was stopped. Collective. */
PETSC_EXTERN PetscErrorCode VIEnsembleCheckAllFailed(VIEnsemble ens, const char what[]);
/* Take the results file's lock (PATH.lock: pid, host, start time, command, SLURM job) for the life of the ensemble, or
   stop with a message naming the job that holds it; a lock of the same SLURM job's earlier incarnation (requeued, or the
   array task before) is taken over on any host (docs/lock.md). VIEnsembleRun takes it if not done before,
   VIEnsembleDestroy releases it. Collective. */
PETSC_EXTERN PetscErrorCode VIEnsembleLock(VIEnsemble ens);
/* Take the lock LOCK of the results file PATH (created with O_EXCL: pid, host, start time, command, and the SLURM job id,
   restart count, array job and task ids from the environment), or stop with a message naming the job that holds it; a
   lock whose process no longer runs on this host, or of an earlier incarnation of this SLURM job (the same job id with a
   smaller restart count, or another task of the same array) on any host, is taken over with a notice. Every command that
   writes a results file (simulate, run, hb, slide, cea) takes it. Rank-local. */
PETSC_EXTERN PetscErrorCode VIResultsLock(const char path[], const char lock[]);
/* VIResultsLock for a file given by another option than -results_file (cea's -cea_file, slide's -slide_file): the
   messages name that option. Rank-local. */
PETSC_EXTERN PetscErrorCode VIResultsLockOption(const char path[], const char lock[], const char option[]);
/* Remove LOCK if this process holds it. Rank-local. */
PETSC_EXTERN PetscErrorCode VIResultsUnlock(const char lock[]);
/*
  VIEnsembleCheckReduction - before `vicms run` reduces: *reuse tells whether rom_file exists and was made by this
  reduction (its `reduction` attribute equals reduction); a ROM made otherwise that the results file depends on is an
  error (never overwritten), and so is a results file of another job. Collective; call after VIEnsembleSetFromOptions.
*/
PETSC_EXTERN PetscErrorCode VIEnsembleCheckReduction(VIEnsemble ens, const char rom_file[], const char reduction[], PetscBool *reuse);
/* The ROM's part of a job fingerprint: from what made it when known (reduction, or the ROM's own), else its checksum. */
PETSC_EXTERN PetscErrorCode VIEnsembleROMToken(VIROM rom, const char reduction[], char token[], size_t len);
/* The sorted options of the database whose names start with one of keep[] (nkeep = 0: all), but for those in ignore[]
   and the diagnostics (-log_*, -malloc_*, -info, -help, viewers, monitors, ...); PetscFree(*fp). Not collective. */
PETSC_EXTERN PetscErrorCode VIOptionsFingerprint(PetscInt nkeep, const char *const keep[], PetscInt nignore, const char *const ignore[], char **fp);
PETSC_EXTERN PetscErrorCode VIEnsembleDestroy(VIEnsemble *ens);

/*
  VIRankGroupsSplit - deal a few tasks of known cost (the bodies of `vicms reduce -bodies`, their DOF counts) to rank groups:
  ngroups = min(ntasks, size) groups of consecutive ranks whose sizes differ by at most one; the tasks, largest first, each
  to the group where it would end first (its load per rank after the task), ties to the lower group. Gives this rank's group
  communicator (MPI_Comm_free it), each task's group and that group's first rank (leader, a rank of comm), and the imbalance:
  the largest load per rank over the ideal total / size (1 when perfectly balanced). Collective; the same on every rank.
*/
PETSC_EXTERN PetscErrorCode VIRankGroupsSplit(MPI_Comm comm, PetscInt ntasks, const PetscReal cost[], MPI_Comm *group, PetscInt *ngroups,
                                              PetscInt task_group[], PetscMPIInt leader[], PetscReal *imbalance);
/* Declares the module's options to the option registry (src/sys/options.c; once, at start-up: VIOptionsRegisterAll). */
PETSC_EXTERN PetscErrorCode VIEnsembleRegisterOptions(void);
