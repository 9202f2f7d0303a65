/* Private layout of the ensemble module: case sets, the scheduler of rank groups, results journal and summaries. */
#pragma once

#include <vicms/ensemble.h>
#include <vicms/io.h>
#include <math.h>

#define VI_NAN ((PetscReal)NAN)

#define VI_MAX_AXES   16
#define VI_MAX_RANDOM 32
#define VI_MAX_VALUES 1024
#define VI_NAME_LEN   96
#define VI_MAX_CASES  1e8 /* cases of a job: the tables over all cases are held in memory */

/* Options of the global database overridden for a while, and what they were. */
typedef struct {
  PetscInt n;
  char   **names; /* with the dash */
  char   **old;   /* previous value, NULL when the option was not set */
} VIOptionsSaved;

/* Set "-names[i] values[i]" for i < n (names without the dash); VIOptionsRestore puts the previous values back. */
PETSC_INTERN PetscErrorCode VIOptionsOverride(VIOptionsSaved *saved, PetscInt n, const char *const names[], const PetscReal values[]);
PETSC_INTERN PetscErrorCode VIOptionsRestore(VIOptionsSaved *saved);

/* A product axis of the case table: m points of w columns (a grid or value axis has w = 1, a sweep axis 4). */
typedef struct {
  PetscInt   m, w;
  char       names[4][VI_NAME_LEN];
  PetscReal *values; /* m x w, until the table is built */
} VICaseAxis;

typedef struct {
  char       name[VI_NAME_LEN];
  VIDistType dist;
  PetscReal  a[4]; /* uniform A,B; normal MEAN,SD; lognormal MU,SIGMA; truncated normal MEAN,SD,LO,HI */
} VIRandomPar;

struct _p_VICaseSet {
  MPI_Comm       comm;
  VICaseAxis     axes[VI_MAX_AXES];
  PetscInt       num_axes;
  VIRandomPar    random[VI_MAX_RANDOM];
  PetscInt       num_random, num_samples, seed;
  VISamplingType sampling;
  PetscInt       num_cases, num_params;
  char         **names;
  PetscReal     *table; /* num_cases x num_params */
  VIOptionsSaved saved;
};

/* ---------------------------------------------------------------- scheduler: dynamic hand-out of cases to groups */

/* Rank 0 of the job's communicator owns the list of cases to run, longest first by their estimated cost (LPT: the last
   cases to start are the short ones, so no group waits long for another to finish its last case), and hands them out
   on request; the leaders (rank 0 of each group) ask for the next case when they finish one, telling how it ended. Rank 0 answers between its own
   cases and, through the stepper's monitor, during them.

   Stops (SIGTERM, SIGUSR1): a group that sees a signal on any of its ranks (VISchedulerPoll, VISchedulerNext) stops its
   case at that step boundary and tells rank 0, which answers every request with "stop" from then on and sends a stop
   notice to every leader still at work, which its group reads at its next poll: every group stops at its next step
   boundary, and no rank waits for a case that will not come. */
typedef struct _p_VIScheduler *VIScheduler;

/* How a case ended, as reported to rank 0. */
#define VI_CASE_DONE    1
#define VI_CASE_FAILED  2
#define VI_CASE_STOPPED 3 /* stopped at time t on a signal, its state in a checkpoint */

/* Called on rank 0 when a case ended (status VI_CASE_*; t: the time a stopped case reached), for progress and merging. */
typedef PetscErrorCode (*VISchedulerFinished)(void *ctx, PetscInt k, PetscInt status, PetscReal t);

/* Rank 0 hands out the cases todo[] longest first: in decreasing cost[] (an estimate per case, VIEnsembleEstimateCosts;
   ties in increasing case index), or in the order of todo[] when cost is NULL. Only rank 0 reads todo and cost. */
PETSC_INTERN PetscErrorCode VISchedulerCreate(MPI_Comm comm, MPI_Comm group, PetscInt ntodo, const PetscInt todo[], const PetscReal cost[],
                                              VISchedulerFinished finished, void *ctx, VIScheduler *s);
/* Rank 0 prints a line per case it hands out: the case, its estimated cost, the group (by its leader's rank). */
PETSC_INTERN PetscErrorCode VISchedulerSetVerbose(VIScheduler s, PetscBool verbose);
/* Collective on the group: report the case just ended (k < 0: none; t the time a stopped case reached) and get the next
   one (-1: no more, -2: the job stops). */
PETSC_INTERN PetscErrorCode VISchedulerNext(VIScheduler s, PetscInt finished, PetscInt status, PetscReal t, PetscInt *next);
/* Rank 0 only (no-op elsewhere): answer the requests that are waiting, without blocking. */
PETSC_INTERN PetscErrorCode VISchedulerServe(VIScheduler s);
/* Collective on the group, at a step boundary: serve (rank 0), read a stop notice (leaders), and agree over the group on
   whether the job stops (*sig: the signal, 0 if not) and on the maximum of flag over the group's ranks. */
PETSC_INTERN PetscErrorCode VISchedulerPoll(VIScheduler s, int flag, int *sig, int *flag_max);
/* Collective on the job's communicator: rank 0 answers until every leader has been told there is no more (or to stop). */
PETSC_INTERN PetscErrorCode VISchedulerFinish(VIScheduler s);
/* After VISchedulerFinish, on every rank: whether the job stopped on a signal, and which. Collective. */
PETSC_INTERN PetscErrorCode VISchedulerGetStop(VIScheduler s, PetscBool *stopping, int *sig);
/* Rank 0: when a group was first told that no case is left (0: never); from then on the groups run out one by one. */
PETSC_INTERN PetscErrorCode VISchedulerGetDrainTime(VIScheduler s, PetscLogDouble *t);
PETSC_INTERN PetscErrorCode VISchedulerDestroy(VIScheduler *s);

/* ---------------------------------------------------------------- one case's outcome */

typedef struct {
  PetscInt         k;
  PetscBool        failed;
  char             message[256];
  VIStepStats      stats;
  PetscInt         nt, nout, nc;
  const PetscReal *t, *outputs, *gaps, *forces, *energy; /* owned by the stepper */
  const PetscReal *velocities;                           /* nt x nout: the outputs' velocities (owned by the stepper) */
  const PetscReal *q;                                    /* nt x nq: the ROM coordinates with -step_record_q, else NULL (the stepper's) */
  PetscInt         nq;
  PetscReal       *frequency;       /* nt, or NULL when no load has a frequency */
  const PetscReal *envelope;        /* m x 2 (frequency, amplitude) for a sweep, in time order (owned by the stepper) */
  const char      *envelope_output; /* the output it is of */
  PetscInt         nenv;
  PetscReal       *quantities;    /* nq */
  VITimeStepInfo   timestep;      /* the step, and how it was chosen when automatic */
  PetscReal        balance_error; /* the largest relative energy balance error over the recorded levels (VIEnergyBalanceError) */
} VICaseResult;

/* The relative energy balance error of a recorded run (nt x VI_ENERGY_COLUMNS): the largest |balance error| over the
   levels divided by the largest kinetic + potential + damping and friction dissipation (the energy stored or spent);
   0 when nothing moves, NaN without levels. */
PETSC_INTERN PetscReal VIEnergyBalanceError(PetscInt nt, const PetscReal energy[]);

/* Quantities of a case: per ROM output max_abs (whole run), then over the steady window rms, amplitude (half
   peak-to-peak), mean, min, max; then max_contact_force (whole run) and min_gap (steady window). */
#define VI_QUANTITIES_PER_OUTPUT 6
#define VI_QUANTITY_AMPLITUDE    2
PETSC_INTERN PetscErrorCode VISummaryQuantityNames(VIROM rom, PetscInt *nq, char ***names);
/* The quantities of a finished run, taken at every time level by the stepper. */
PETSC_INTERN PetscErrorCode VISummaryQuantities(VIStepper st, PetscReal q[]);
/* The summary/ group of a results file: statistics and histograms of the quantities (sampled jobs), the frequency
   response of constant-frequency cases, the envelopes of the first up and down sweeps. Rank-local. */
PETSC_INTERN PetscErrorCode VISummaryWrite(hid_t file, VICaseSet cs, const PetscInt status[], PetscInt nq, const char *const qnames[],
                                           const PetscReal quantities[], PetscInt output, const char output_name[], PetscInt bins);
/* Print the job's summary (rank-local, to stdout): the frequency response, the sweeps' peaks, or the statistics; file is
   the merged results file. */
PETSC_INTERN PetscErrorCode VISummaryPrint(hid_t file, VICaseSet cs, const PetscInt status[], PetscInt nq, const char *const qnames[],
                                           const PetscReal quantities[], PetscInt output, const char output_name[]);

/* Rank 0's state of a results file PATH between merges: the tables over all cases as the published file holds them, and
   its twin PATH.twin, a private file one merge behind the published one. A merge brings the twin up to date in place
   (the cases of the merge before, from PATH, and the new ones, from the journal: the rows of the tables they change,
   the summaries), then publishes it by a rename, and the file it replaces becomes the twin (a hard link kept across the
   rename). So a merge writes what changed since the merge before, whatever the number of cases merged before, and the
   published file is always whole: it is never written once published until it is the twin again, a merge later. */
typedef struct {
  PetscBool  ready;                  /* read from the published file (VIResultsMerge's first call) */
  PetscInt   ncases, nq, generation; /* generation: merges into the published file ("merge" attribute) */
  PetscInt  *status, *steps, *iter_max, *nonconv;
  PetscReal *quantities, *wall, *iter_mean, *balance;
  char     **messages;
  PetscBool  twin;      /* PATH.twin is the published file of the merge before: it lacks the cases lag[] */
  PetscInt  *lag, nlag; /* capacity ncases */
  /* what the last merge did (-info, the merge test and bench/merge.sh): cases taken in from the journal and from the
     published file, bytes of a byte copy (a twin made anew: the first merge after a crash), the size of the published file */
  PetscInt new_cases, lag_cases, merged_before;
  double   copied_bytes, file_bytes, journal_bytes;
} VIResults;

/* ---------------------------------------------------------------- the ensemble */

struct _p_VIEnsemble {
  MPI_Comm    comm, group;
  VIROM       rom;
  VICaseSet   cs;
  char        results[PETSC_MAX_PATH_LEN], journal[PETSC_MAX_PATH_LEN + 8];
  PetscInt    group_size, bins, ngroups;
  PetscReal   merge_interval, progress_interval, steady_fraction, checkpoint_interval, balance_warning;
  PetscBool   keep_series, quiet, overwrite, verbose;
  VICaseOrder order;
  char        output_name[128];
  PetscInt    output; /* index of the summary output, -1 when the ROM has none */
  char       *job;    /* fingerprint of the options that decide the results */
  char        lock[PETSC_MAX_PATH_LEN + 8];
  PetscBool   locked; /* rank 0 holds the lock of the results file */

  /* quantities */
  PetscInt nq;
  char   **qnames;

  /* rank 0: the state of every case, progress, merging */
  PetscMPIInt    rank, grank;
  PetscInt      *status, ntodo, nfinished, nfailed_now;
  PetscInt       count_done, count_failed; /* at the end of VIEnsembleRun, over every case of the job (all ranks) */
  PetscReal     *cost, cost_todo, cost_done; /* the estimated cost of every case; of the cases to run now; of those finished */
  PetscLogDouble t_start, t_progress, t_merge, t_last_finished;
  PetscLogDouble merge_time; /* of the merges of this run, their count nmerges */
  PetscInt       nmerges;
  PetscBool      dirty; /* finished cases wait in the journal */
  VIResults      results_state;
  PetscBool      merge_warned;
  PetscBool      write_failed;     /* this group could not write a case (a full disk): it drains the cases left unrun */
  char           write_error[256]; /* why, on the group's rank 0 */
  VIScheduler    sched;

  /* what a case computes: the runner, and the state of the time stepping's (the default runner) between run and reset */
  VICaseRunner runner;
  VISystem     step_sys;
  VIStepper    step_st;
  VICaseResult step_r;

  /* stops and checkpoints: the case this group steps, when it last wrote a checkpoint; rank 0: the cases stopped */
  PetscInt       case_k;
  PetscLogDouble t_checkpoint;
  PetscInt       nstopped, *stopped_k;
  PetscReal     *stopped_t;
};

/* The estimated cost of cases[i], i < n (cost.c: time steps x cost per step from the ROM's size, the contacts and the
   scheme). Rank-local: applies each case's parameters in turn. */
PETSC_INTERN PetscErrorCode VIEnsembleEstimateCosts(VIEnsemble ens, PetscInt n, const PetscInt cases[], PetscReal cost[]);

/* The job fingerprint ens->job (job.c), with the ROM's token: that of the reduction given (NULL: the ensemble's ROM's). */
PETSC_INTERN PetscErrorCode VIEnsembleFingerprint(VIEnsemble ens, const char reduction[]);

/* ---------------------------------------------------------------- the results file and its journal */

/* Write one case to its own file DIR/K.h5 (through K.h5.part and a rename): the runner's part, the quantities, status
   and message. Rank-local. */
PETSC_INTERN PetscErrorCode VIJournalWriteCase(const char dir[], VIROM rom, const VICaseRunner *runner, const VICaseOutcome *out,
                                               const char *const qnames[], const char job[]);
/* The time stepping's part of a journal file under /case: the series (keep_series), envelope and run statistics. */
PETSC_INTERN PetscErrorCode VIJournalWriteSeries(hid_t file, VIROM rom, const VICaseResult *r, PetscBool keep_series);
/* Cases finished according to the results file PATH and the journal DIR: status[k] = 0 pending, 1 done, 2 failed. Both
   must come from the same job (the same fingerprint job: the options that decide the results). Rank-local. */
PETSC_INTERN PetscErrorCode VIResultsScan(const char path[], const char dir[], VICaseSet cs, const char job[], PetscInt status[]);
/* Remove the results file PATH, its twin and the journal DIR (-results_overwrite). Rank-local. */
PETSC_INTERN PetscErrorCode VIResultsRemove(const char path[], const char dir[]);

PETSC_INTERN PetscErrorCode VIResultsDestroy(VIResults *R);
/* At the start of a run, before cases are handed out: read the tables of the results file PATH, and make its twin anew
   (a byte copy) unless the one there is usable, so that no merge of the run reads or copies the whole file. Rank-local. */
PETSC_INTERN PetscErrorCode VIResultsPrepare(VIResults *R, const char path[], const char dir[], PetscInt ncases, PetscInt nq);
/* Merge the journal's cases finished according to status[] into PATH through its twin (VIResults), then remove the
   journal files it took in (and the journal and the twin when every case is finished). Rank-local. */
PETSC_INTERN PetscErrorCode VIResultsMerge(VIResults *R, const char path[], const char dir[], VICaseSet cs, const VICaseRunner *runner,
                                           const PetscInt status[], PetscInt nq, const char *const qnames[], PetscInt output,
                                           const char output_name[], PetscInt bins, const char job[], const char units[]);
/* VIResultsLock, VIResultsUnlock: in vicms/ensemble.h (`vicms slide` and `vicms cea` take the same lock) */
