/* VIEnsemble: runs the cases of a job on groups of ranks, writes each finished case at once, merges, summarizes. */
#include "ensembleimpl.h"
#include <vicms/sys.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const VICaseOrders[] = {"longest_first", "index", "VICaseOrder", "VI_CASE_ORDER_", NULL};

static PetscErrorCode VIStepRunnerQuantityNames(void *, VIROM, PetscInt *, char ***);
static PetscErrorCode VIStepRunnerCheck(void *, VIROM, MPI_Comm);
static PetscErrorCode VIStepRunnerCost(void *, VIROM, PetscInt, const PetscInt[], PetscReal[]);
static PetscErrorCode VIStepRunnerRun(void *, VIROM, MPI_Comm, PetscBool, VICaseOutcome *);
static PetscErrorCode VIStepRunnerWrite(void *, VIROM, const VICaseOutcome *, hid_t, const char[]);
static PetscErrorCode VIStepRunnerReset(void *);
static PetscErrorCode VIStepRunnerCheckpoint(void *, const char[], const char[]);
static PetscErrorCode VIStepRunnerRestore(void *, const char[], const char[], PetscBool *, PetscReal *, char[], size_t);

PetscErrorCode VIEnsembleCreate(MPI_Comm comm, VIEnsemble *ens)
{
  VIEnsemble e;

  PetscFunctionBeginUser;
  PetscCall(VIInitializePackage());
  PetscCall(PetscNew(&e));
  e->comm                = comm;
  e->group_size          = 1;
  e->bins                = 20;
  e->merge_interval      = 10;
  e->progress_interval   = 2;
  e->checkpoint_interval = 600;
  e->steady_fraction     = 0.25;
  e->balance_warning     = 0.01;
  e->keep_series         = PETSC_TRUE;
  e->group               = MPI_COMM_NULL;
  PetscCall(PetscStrncpy(e->results, "results.h5", sizeof(e->results)));
  PetscCall(VICaseSetCreate(comm, &e->cs));
  e->runner.kind           = "simulate";
  e->runner.ctx            = e;
  e->runner.quantity_names = VIStepRunnerQuantityNames;
  e->runner.check          = VIStepRunnerCheck;
  e->runner.cost           = VIStepRunnerCost;
  e->runner.run            = VIStepRunnerRun;
  e->runner.write          = VIStepRunnerWrite;
  e->runner.reset          = VIStepRunnerReset;
  e->runner.checkpoint     = VIStepRunnerCheckpoint;
  e->runner.restore        = VIStepRunnerRestore;
  e->runner.position_name  = "t";
  e->runner.position_unit  = "";
  *ens                     = e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleDestroy(VIEnsemble *ens)
{
  VIEnsemble e;

  PetscFunctionBeginUser;
  if (!ens || !*ens) PetscFunctionReturn(PETSC_SUCCESS);
  e = *ens;
  if (e->locked) PetscCall(VIResultsUnlock(e->lock));
  PetscCall(VIResultsDestroy(&e->results_state));
  PetscCall(VIStepRunnerReset(e));
  PetscCall(VICaseSetDestroy(&e->cs));
  PetscCall(VISchedulerDestroy(&e->sched));
  if (e->group != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&e->group));
  if (e->qnames) PetscCall(PetscStrArrayDestroy(&e->qnames));
  PetscCall(PetscFree(e->status));
  PetscCall(PetscFree(e->cost));
  PetscCall(PetscFree2(e->stopped_k, e->stopped_t));
  PetscCall(PetscFree(e->job));
  PetscCall(PetscFree(e));
  *ens = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleSetROM(VIEnsemble ens, VIROM rom)
{
  PetscFunctionBeginUser;
  ens->rom = rom;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleSetFromOptions(VIEnsemble ens)
{
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscOptionsBegin(ens->comm, NULL, "Ensemble of contact cases on rank groups", "VIEnsemble");
  PetscCall(PetscOptionsString("-results_file", "Where the results go (finished cases wait in RESULTS.cases/ until merged)", "", ens->results,
                               ens->results, sizeof(ens->results), NULL));
  PetscCall(PetscOptionsBool("-results_overwrite", "Start afresh: remove an existing results file and its journal", "", ens->overwrite,
                             &ens->overwrite, NULL));
  PetscCall(PetscOptionsInt("-cases_group_size", "Ranks per group; each group runs one case at a time", "", ens->group_size, &ens->group_size, NULL));
  PetscCall(PetscOptionsReal("-cases_merge_interval", "Merge finished cases into the results file at most every this many seconds (0: after each)",
                             "", ens->merge_interval, &ens->merge_interval, NULL));
  PetscCall(PetscOptionsReal("-cases_checkpoint_interval",
                             "Seconds between checkpoints of a running case (0: none; a stop on SIGTERM or SIGUSR1 always writes one)", "",
                             ens->checkpoint_interval, &ens->checkpoint_interval, NULL));
  PetscCall(PetscOptionsBool("-cases_keep_series", "Store each case's time series (false: its quantities only)", "", ens->keep_series,
                             &ens->keep_series, NULL));
  PetscCall(PetscOptionsEnum("-cases_order",
                             "Order the cases are handed out in: longest first by estimated cost (steps x cost per step), or by index", "",
                             VICaseOrders, (PetscEnum)ens->order, (PetscEnum *)&ens->order, NULL));
  PetscCall(PetscOptionsBool("-cases_verbose", "A line per case handed out: the case, its estimated cost, the group", "", ens->verbose, &ens->verbose,
                             NULL));
  PetscCall(PetscOptionsBool("-cases_quiet", "No progress line", "", ens->quiet, &ens->quiet, NULL));
  PetscCall(
      PetscOptionsReal("-cases_progress_interval", "Seconds between progress lines", "", ens->progress_interval, &ens->progress_interval, NULL));
  PetscCall(PetscOptionsString("-summary_output", "ROM output of the frequency-response summaries (default: the first)", "", ens->output_name,
                               ens->output_name, sizeof(ens->output_name), NULL));
  PetscCall(PetscOptionsReal("-summary_steady_fraction", "Last fraction of a case taken as its steady state", "", ens->steady_fraction,
                             &ens->steady_fraction, NULL));
  PetscCall(PetscOptionsInt("-summary_bins", "Histogram bins of the sampled quantities", "", ens->bins, &ens->bins, NULL));
  PetscCall(
      PetscOptionsReal("-summary_balance_warning",
                       "Warn when a case's relative energy balance error exceeds this (the step is then too coarse for accuracy: -step_accuracy)", "",
                       ens->balance_warning, &ens->balance_warning, NULL));
  PetscOptionsEnd();
  PetscCallMPI(MPI_Comm_size(ens->comm, &size));
  PetscCheck(ens->group_size >= 1 && ens->group_size <= size, ens->comm, PETSC_ERR_USER_INPUT,
             "-cases_group_size: got %" PetscInt_FMT ", expected 1 to %d (the number of ranks)", ens->group_size, size);
  PetscCheck(ens->steady_fraction > 0 && ens->steady_fraction <= 1, ens->comm, PETSC_ERR_USER_INPUT,
             "-summary_steady_fraction: got %g, expected a value in (0, 1]", (double)ens->steady_fraction);
  PetscCheck(ens->bins >= 1, ens->comm, PETSC_ERR_USER_INPUT, "-summary_bins: got %" PetscInt_FMT ", expected >= 1", ens->bins);
  PetscCheck(ens->balance_warning > 0, ens->comm, PETSC_ERR_USER_INPUT, "-summary_balance_warning: got %g, expected a relative error > 0",
             (double)ens->balance_warning);
  PetscCheck(ens->merge_interval >= 0, ens->comm, PETSC_ERR_USER_INPUT, "-cases_merge_interval: got %g, expected >= 0", (double)ens->merge_interval);
  PetscCheck(ens->checkpoint_interval >= 0 && !PetscIsInfOrNanReal(ens->checkpoint_interval), ens->comm, PETSC_ERR_USER_INPUT,
             "-cases_checkpoint_interval: got %g, expected a number of seconds >= 0 (0: no periodic checkpoint)", (double)ens->checkpoint_interval);
  PetscCall(PetscSNPrintf(ens->journal, sizeof(ens->journal), "%s.cases", ens->results));
  PetscCall(PetscSNPrintf(ens->lock, sizeof(ens->lock), "%s.lock", ens->results));
  PetscCall(VICaseSetSetFromOptions(ens->cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- progress and merging (rank 0) */

static PetscErrorCode VIEnsembleProgress(VIEnsemble ens, PetscBool force)
{
  PetscLogDouble now;
  PetscInt       ncases, done = 0, failed = 0;

  PetscFunctionBeginUser;
  if (ens->quiet) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&now));
  if (!force && now - ens->t_progress < ens->progress_interval) PetscFunctionReturn(PETSC_SUCCESS);
  ens->t_progress = now;
  PetscCall(VICaseSetGetSize(ens->cs, &ncases, NULL));
  for (PetscInt k = 0; k < ncases; k++) {
    if (ens->status[k] == 1) done++;
    if (ens->status[k] == 2) failed++;
  }
  {
    /* the cases run longest first: the remaining time scales with the estimated cost left, not with the count of cases */
    PetscReal elapsed = now - ens->t_start, remaining = -1;
    if (ens->cost_done > 0)
      remaining = elapsed / ens->cost_done * PetscMax(ens->cost_todo - ens->cost_done, 0);
    else if (ens->nfinished > 0)
      remaining = elapsed / ens->nfinished * (ens->ntodo - ens->nfinished);
    if (remaining >= 0)
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "  cases %" PetscInt_FMT "/%" PetscInt_FMT " finished (%" PetscInt_FMT " failed), %.1f s elapsed, ~%.1f s remaining\n",
                            done + failed, ncases, failed, (double)elapsed, (double)remaining));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIEnsembleMerge(VIEnsemble ens)
{
  const char    *units;
  PetscLogDouble t0;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  units = NULL;
  if (ens->rom) PetscCall(VIROMGetUnits(ens->rom, &units));
  PetscCall(VIResultsMerge(&ens->results_state, ens->results, ens->journal, ens->cs, &ens->runner, ens->status, ens->nq,
                           (const char *const *)ens->qnames, ens->output, ens->output_name, ens->bins, ens->job, units ? units : ""));
  PetscCall(PetscTime(&ens->t_merge));
  {
    /* what a merge costs: the cases it takes in (from the journal and, for its twin, from the results file) and any byte copy,
       against the cases merged before it (bench/merge.sh, tests/app/merge.sh) */
    const VIResults *R = &ens->results_state;
    PetscCall(PetscInfo(NULL,
                        "merge %" PetscInt_FMT ": %" PetscInt_FMT " cases merged before, %" PetscInt_FMT
                        " new (%.0f bytes of journal), %" PetscInt_FMT
                        " from the merge before, %.0f bytes byte-copied, results file %.0f bytes, %.4f s\n",
                        ens->nmerges + 1, R->merged_before, R->new_cases, R->journal_bytes, R->lag_cases, R->copied_bytes, R->file_bytes,
                        (double)(ens->t_merge - t0)));
  }
  ens->merge_time += ens->t_merge - t0;
  ens->nmerges++;
  ens->dirty = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: case k has finished (its file is in the journal; status 0: it could not be written), or stopped at t on a
   signal (its state in a checkpoint). */
static PetscErrorCode VIEnsembleFinished(void *ctx, PetscInt k, PetscInt status, PetscReal t)
{
  VIEnsemble     ens = (VIEnsemble)ctx;
  PetscLogDouble now;

  PetscFunctionBeginUser;
  if (status == VI_CASE_STOPPED) {
    if (ens->nstopped < ens->ngroups) {
      ens->stopped_k[ens->nstopped] = k;
      ens->stopped_t[ens->nstopped] = t;
      ens->nstopped++;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ens->status[k] = status;
  ens->nfinished++;
  PetscCall(PetscTime(&ens->t_last_finished));
  if (ens->cost) ens->cost_done += ens->cost[k];
  if (!status) PetscFunctionReturn(PETSC_SUCCESS); /* not written (a full disk): nothing to merge */
  ens->dirty = PETSC_TRUE;
  PetscCall(VIEnsembleProgress(ens, ens->nfinished == ens->ntodo ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(PetscTime(&now));
  if (now - ens->t_merge >= ens->merge_interval && ens->nfinished < ens->ntodo) {
    /* a merge that fails now (a full disk) leaves the results file and the journal as they were: the job goes on */
    char           msg[256] = "";
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(VIErrorCapture, msg));
    ierr = VIEnsembleMerge(ens);
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      if (!ens->merge_warned) PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "vicms: warning: %s (merging again at the end)\n", msg));
      ens->merge_warned = PETSC_TRUE;
      ens->t_merge      = now;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIEnsembleCheckpoint(VIEnsemble ens);

/* Collective on the group at a boundary of its case: rank 0 answers the other groups while it runs a case of its own; the
   group agrees on a stop (a signal on any rank of the job) and on a periodic checkpoint (its leader's clock). */
static PetscErrorCode VIEnsemblePollGroup(VIEnsemble ens, PetscBool *stop)
{
  PetscFunctionBeginUser;
  *stop = PETSC_FALSE;
  if (ens->sched) {
    int due = 0, sig, due_all;
    if (ens->grank == 0 && ens->checkpoint_interval > 0 && ens->runner.checkpoint) {
      PetscLogDouble now;
      PetscCall(PetscTime(&now));
      due = now - ens->t_checkpoint >= ens->checkpoint_interval ? 1 : 0;
    }
    PetscCall(VISchedulerPoll(ens->sched, due, &sig, &due_all));
    /* a stop's checkpoint is written once the run has returned (VIEnsembleRunCase) */
    if (sig)
      *stop = PETSC_TRUE;
    else if (due_all)
      PetscCall(VIEnsembleCheckpoint(ens));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* In a job of one (long) case, rank 0: whether a line saying how far it is is due (-cases_progress_interval), and the time
   elapsed since the job started. */
static PetscErrorCode VIEnsembleProgressDue(VIEnsemble ens, PetscBool *due, PetscLogDouble *elapsed)
{
  PetscLogDouble now;

  PetscFunctionBeginUser;
  *due = PETSC_FALSE;
  if (ens->rank != 0 || ens->ntodo != 1 || ens->quiet) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&now));
  if (now - ens->t_progress < ens->progress_interval) PetscFunctionReturn(PETSC_SUCCESS);
  ens->t_progress = now;
  *elapsed        = now - ens->t_start;
  *due            = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleCasePoll(VIEnsemble ens, const char progress[], PetscBool *stop)
{
  PetscBool      due = PETSC_FALSE;
  PetscLogDouble elapsed;

  PetscFunctionBeginUser;
  PetscCall(VIEnsemblePollGroup(ens, stop));
  if (progress) PetscCall(VIEnsembleProgressDue(ens, &due, &elapsed));
  if (due) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s, %.1f s elapsed\n", progress, (double)elapsed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stepper monitor, collective on the group at a step boundary. */
static PetscErrorCode VIEnsembleMonitor(VIStepper st, PetscReal t, void *ctx)
{
  VIEnsemble     ens = (VIEnsemble)ctx;
  PetscBool      stop, due;
  PetscLogDouble elapsed;

  PetscFunctionBeginUser;
  PetscCall(VIEnsemblePollGroup(ens, &stop));
  if (stop) PetscCall(VIStepperStop(st));
  PetscCall(VIEnsembleProgressDue(ens, &due, &elapsed));
  if (due) {
    PetscReal t_end;
    PetscCall(VIStepperGetTimeStep(st, NULL, &t_end));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  t = %g of %g (%.0f %%), %.1f s elapsed\n", (double)t, (double)t_end, (double)(100 * t / t_end),
                          (double)elapsed));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- one case */

/* The checkpoint of case k in the journal folder, and what it must belong to (this job, this case). */
static PetscErrorCode VIEnsembleCheckpointPath(VIEnsemble ens, PetscInt k, char path[], size_t len, char **tag)
{
  size_t n;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, len, "%s/%" PetscInt_FMT ".ckpt.h5", ens->journal, k));
  if (tag) {
    PetscCall(PetscStrlen(ens->job, &n));
    PetscCall(PetscMalloc1(n + 48, tag));
    PetscCall(PetscSNPrintf(*tag, n + 48, "%s case=%" PetscInt_FMT, ens->job, k));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The group's leader writes the checkpoint of the case it runs (the runner's checkpoint). A checkpoint that cannot be
   written is reported and the case goes on: it would only start again from an older checkpoint, or from its beginning. */
static PetscErrorCode VIEnsembleCheckpoint(VIEnsemble ens)
{
  char           path[PETSC_MAX_PATH_LEN + 32], captured[256] = "", *tag;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&ens->t_checkpoint));
  if (ens->grank != 0 || !ens->runner.checkpoint) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIEnsembleCheckpointPath(ens, ens->case_k, path, sizeof(path), &tag));
  if (mkdir(ens->journal, 0777) != 0 && errno != EEXIST)
    PetscCall(PetscSNPrintf(captured, sizeof(captured), "cannot create the folder %s: %s", ens->journal, strerror(errno)));
  else {
    PetscCall(PetscPushErrorHandler(VIErrorCapture, captured));
    ierr = ens->runner.checkpoint(ens->runner.ctx, path, tag);
    PetscCall(PetscPopErrorHandler());
  }
  if (ierr || captured[0])
    PetscCall(
        PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "vicms: warning: case %" PetscInt_FMT ": no checkpoint written: %s\n", ens->case_k, captured));
  PetscCall(PetscFree(tag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleCaseRestore(VIEnsemble ens)
{
  char        path[PETSC_MAX_PATH_LEN + 32], *tag, why[128];
  PetscMPIInt exists = 0;
  PetscBool   restored;
  PetscReal   position = 0;
  PetscInt    k        = ens->case_k;

  PetscFunctionBeginUser;
  PetscCheck(ens->runner.restore, PETSC_COMM_SELF, PETSC_ERR_ORDER, "VIEnsembleCaseRestore: the case runner has no restore");
  PetscCall(VIEnsembleCheckpointPath(ens, k, path, sizeof(path), &tag));
  /* the leader's view decides: a collective read must be entered by every rank of the group or by none */
  if (ens->grank == 0) exists = access(path, F_OK) == 0 ? 1 : 0;
  PetscCallMPI(MPI_Bcast(&exists, 1, MPI_INT, 0, ens->group));
  if (exists) {
    why[0] = 0;
    PetscCall(ens->runner.restore(ens->runner.ctx, path, tag, &restored, &position, why, sizeof(why)));
    if (ens->grank == 0) {
      if (restored)
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  resuming case %" PetscInt_FMT " from %s = %g%s (its checkpoint %s)\n", k, ens->runner.position_name,
                              (double)position, ens->runner.position_unit, path));
      else
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  case %" PetscInt_FMT ": its checkpoint %s is not used (%s): the case starts from its beginning\n",
                              k, path, why));
    }
  }
  PetscCall(PetscFree(tag));
  PetscCall(PetscTime(&ens->t_checkpoint));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- the default case runner: time stepping */

/* Set up and run the case on the group; the stepper stays alive for its records. */
static PetscErrorCode VIEnsembleCompute(VIEnsemble ens, VISystem sys, VIStepper st, VICaseResult *r)
{
  PetscFunctionBeginUser;
  PetscCall(VISystemSetFromOptions(sys));
  PetscCall(VIStepperSetFromOptions(st));
  PetscCall(VIStepperSetSteadyWindow(st, ens->steady_fraction));
  {
    VIExciteType type;
    PetscReal    f;
    PetscCall(VISystemGetLoadFrequency(sys, 0, &f, &type));
    if ((type == VI_EXCITE_SWEEP_LINEAR || type == VI_EXCITE_SWEEP_LOG) && ens->output >= 0) {
      PetscCall(VIStepperSetEnvelopeOutput(st, ens->output));
      r->envelope_output = ens->output_name;
    }
  }
  PetscCall(VIStepperSetUp(st));
  PetscCall(VIStepperGetTimeStepInfo(st, &r->timestep));
  PetscCall(VIStepperSetMonitor(st, VIEnsembleMonitor, ens));
  ens->case_k = r->k;
  PetscCall(VIEnsembleCaseRestore(ens));
  PetscCall(VIStepperRun(st));
  PetscCall(VIStepperGetStats(st, &r->stats));
  if (r->stats.stopped) PetscFunctionReturn(PETSC_SUCCESS); /* to be continued from its checkpoint */
  PetscCall(VIStepperGetSeries(st, &r->nt, &r->t, &r->outputs, &r->gaps, &r->forces, &r->energy));
  PetscCall(VIStepperGetVelocities(st, &r->velocities));
  PetscCall(VIStepperGetStateSeries(st, &r->nq, &r->q));
  r->balance_error = VIEnergyBalanceError(r->nt, r->energy);
  PetscCall(VIROMGetNumOutputs(ens->rom, &r->nout));
  PetscCall(VIROMGetContacts(ens->rom, &r->nc, NULL));
  {
    VIExciteType type;
    PetscReal    f;
    PetscCall(VISystemGetLoadFrequency(sys, 0, &f, &type));
    if (type != VI_EXCITE_CONSTANT && r->nt > 0) {
      PetscCall(PetscMalloc1(r->nt, &r->frequency));
      for (PetscInt i = 0; i < r->nt; i++) PetscCall(VISystemGetLoadFrequency(sys, r->t[i], &r->frequency[i], &type));
    }
  }
  if (r->envelope_output) PetscCall(VIStepperGetEnvelope(st, &r->nenv, &r->envelope));
  PetscCall(VISummaryQuantities(st, r->quantities));
  if (r->stats.failed) {
    r->failed = PETSC_TRUE;
    PetscCall(PetscStrncpy(r->message, r->stats.message, sizeof(r->message)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepRunnerQuantityNames(void *ctx, VIROM rom, PetscInt *nq, char ***names)
{
  PetscFunctionBeginUser;
  (void)ctx;
  PetscCall(VISummaryQuantityNames(rom, nq, names));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first case's set-up on the whole communicator. */
static PetscErrorCode VIStepRunnerCheck(void *ctx, VIROM rom, MPI_Comm comm)
{
  VIEnsemble ens = (VIEnsemble)ctx;
  VISystem   sys;
  VIStepper  st;

  PetscFunctionBeginUser;
  PetscCall(VISystemCreate(comm, &sys));
  PetscCall(VIStepperCreate(comm, &st));
  PetscCall(VISystemSetROM(sys, rom));
  PetscCall(VIStepperSetSystem(st, sys));
  PetscCall(VISystemSetFromOptions(sys));
  PetscCall(VIStepperSetFromOptions(st));
  PetscCall(VIStepperSetUp(st));
  {
    /* an automatic step is told before the cases run (each case chooses its own: cases/<k> attributes dt, dt_how) */
    VITimeStepInfo info;
    PetscInt       ncases, np;
    PetscCall(VIStepperGetTimeStepInfo(st, &info));
    PetscCall(VICaseSetGetSize(ens->cs, &ncases, &np));
    if (info.automatic) PetscCall(PetscPrintf(comm, "-step_dt auto%s: %s\n", ncases > 1 ? " (first case)" : "", info.how));
  }
  PetscCall(VIStepperDestroy(&st));
  PetscCall(VISystemDestroy(&sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepRunnerCost(void *ctx, VIROM rom, PetscInt n, const PetscInt cases[], PetscReal cost[])
{
  PetscFunctionBeginUser;
  (void)rom;
  PetscCall(VIEnsembleEstimateCosts((VIEnsemble)ctx, n, cases, cost));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepRunnerRun(void *ctx, VIROM rom, MPI_Comm group, PetscBool verbose, VICaseOutcome *out)
{
  VIEnsemble    ens = (VIEnsemble)ctx;
  VICaseResult *r   = &ens->step_r;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->k          = out->k;
  r->quantities = out->quantities;
  PetscCall(VISystemCreate(group, &ens->step_sys));
  PetscCall(VIStepperCreate(group, &ens->step_st));
  PetscCall(VISystemSetROM(ens->step_sys, rom));
  PetscCall(VIStepperSetSystem(ens->step_st, ens->step_sys));
  PetscCall(VIEnsembleCompute(ens, ens->step_sys, ens->step_st, r));
  out->failed       = r->failed;
  out->stopped      = r->stats.stopped;
  out->stopped_time = r->stats.stopped_time;
  PetscCall(PetscStrncpy(out->message, r->message, sizeof(out->message)));
  if (verbose && !out->stopped) {
    PetscCall(VISystemView(ens->step_sys, NULL));
    PetscCall(VIStepperView(ens->step_st, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepRunnerWrite(void *ctx, VIROM rom, const VICaseOutcome *out, hid_t file, const char group[])
{
  VIEnsemble   ens = (VIEnsemble)ctx;
  VICaseResult r   = ens->step_r;

  PetscFunctionBeginUser;
  (void)group;
  if (out->error) r.nt = 0; /* nothing of a run that stopped on an error */
  PetscCall(VIJournalWriteSeries(file, rom, &r, ens->keep_series));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepRunnerCheckpoint(void *ctx, const char path[], const char tag[])
{
  VIEnsemble ens = (VIEnsemble)ctx;

  PetscFunctionBeginUser;
  PetscCall(VIStepperCheckpointWrite(ens->step_st, path, tag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Continue the case from its checkpoint (collective on the group); position: the time reached. */
static PetscErrorCode VIStepRunnerRestore(void *ctx, const char path[], const char tag[], PetscBool *restored, PetscReal *position, char why[],
                                          size_t len)
{
  VIEnsemble ens = (VIEnsemble)ctx;

  PetscFunctionBeginUser;
  PetscCall(VIStepperCheckpointRead(ens->step_st, path, tag, restored, why, len));
  PetscCall(VIStepperGetLevel(ens->step_st, NULL, position));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A stopped case writes its checkpoint here, on every rank of the group, before the stepper goes. */
static PetscErrorCode VIStepRunnerReset(void *ctx)
{
  VIEnsemble ens = (VIEnsemble)ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(ens->step_r.frequency));
  PetscCall(PetscMemzero(&ens->step_r, sizeof(ens->step_r)));
  PetscCall(VIStepperDestroy(&ens->step_st));
  PetscCall(VISystemDestroy(&ens->step_sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleSetCaseRunner(VIEnsemble ens, const VICaseRunner *runner)
{
  PetscFunctionBeginUser;
  ens->runner = *runner;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- one case */

/* Run case k on the group and write it to the journal (the group's rank 0); its status is VI_CASE_DONE or VI_CASE_FAILED,
   or VI_CASE_STOPPED at time *t on a signal, its state then in a checkpoint. */
static PetscErrorCode VIEnsembleRunCase(VIEnsemble ens, PetscInt k, PetscBool verbose, PetscInt *status, PetscReal *t)
{
  const VICaseRunner *runner = &ens->runner;
  VICaseOutcome       out;
  PetscErrorCode      ierr;
  PetscMPIInt         grank, mine, any;
  char                captured[256] = "";

  PetscFunctionBeginUser;
  if (ens->write_failed) { /* pending: for a rerun */
    *status = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMemzero(&out, sizeof(out)));
  out.k  = k;
  out.nq = ens->nq;
  PetscCall(PetscMalloc1(ens->nq, &out.quantities));
  for (PetscInt i = 0; i < ens->nq; i++) out.quantities[i] = VI_NAN;
  PetscCall(VICaseSetApply(ens->cs, k));
  ens->case_k = k;
  PetscCall(PetscTime(&ens->t_checkpoint));
  /* an error inside the case (its own parameters) fails the case, not the job */
  PetscCall(PetscPushErrorHandler(VIErrorCapture, captured));
  ierr = runner->run(runner->ctx, ens->rom, ens->group, verbose, &out);
  PetscCall(PetscPopErrorHandler());
  PetscCall(VICaseSetRestore(ens->cs));
  mine = ierr ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, ens->group));
  if (any) {
    out.failed  = PETSC_TRUE;
    out.error   = PETSC_TRUE;
    out.stopped = PETSC_FALSE;
    for (PetscInt i = 0; i < ens->nq; i++) out.quantities[i] = VI_NAN;
    PetscCall(PetscStrncpy(out.message, mine ? captured : "failed on another rank of the group", sizeof(out.message)));
  }
  PetscCallMPI(MPI_Comm_rank(ens->group, &grank));
  *t = 0;
  if (out.stopped) {
    /* the same on every rank of the group: the stop was agreed at this step boundary */
    PetscCall(VIEnsembleCheckpoint(ens));
    *status = VI_CASE_STOPPED;
    *t      = out.stopped_time;
  } else {
    /* a case that cannot be written (a full disk) stops the group's work without stranding the other groups */
    PetscMPIInt werr = 0;
    if (grank == 0) {
      PetscCall(PetscPushErrorHandler(VIErrorCapture, ens->write_error));
      werr = VIJournalWriteCase(ens->journal, ens->rom, runner, &out, (const char *const *)ens->qnames, ens->job) ? 1 : 0;
      PetscCall(PetscPopErrorHandler());
      if (!werr) { /* the case is in the journal: its checkpoint has served */
        char path[PETSC_MAX_PATH_LEN + 32];
        PetscCall(VIEnsembleCheckpointPath(ens, k, path, sizeof(path), NULL));
        (void)unlink(path);
      }
    }
    PetscCallMPI(MPI_Bcast(&werr, 1, MPI_INT, 0, ens->group));
    if (werr) ens->write_failed = PETSC_TRUE;
    *status = ens->write_failed ? 0 : out.failed ? VI_CASE_FAILED : VI_CASE_DONE;
  }
  PetscCall(runner->reset(runner->ctx));
  PetscCall(PetscFree(out.quantities));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0, at the end: the largest relative energy balance error over the done cases (cases/balance_error), and a warning
   above -summary_balance_warning: the step keeps the scheme stable, not the motion accurate (-step_dt auto is a stability
   limit), which -step_accuracy does. */
static PetscErrorCode VIEnsembleBalanceReport(VIEnsemble ens, hid_t file)
{
  PetscInt   ncases, rows, cols, worst = -1, above = 0, n = 0;
  PetscReal *balance, largest = 0;
  PetscBool  has, automatic = PETSC_FALSE, accurate = PETSC_FALSE;
  PetscReal  accuracy = 0;

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, "/cases/balance_error", &has));
  if (!has) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VICaseSetGetSize(ens->cs, &ncases, NULL));
  PetscCall(VIH5ReadReal(file, "/cases/balance_error", &rows, &cols, &balance));
  for (PetscInt k = 0; k < PetscMin(rows, ncases); k++) {
    if (ens->status[k] != 1 || PetscIsInfOrNanReal(balance[k])) continue;
    n++;
    if (balance[k] > ens->balance_warning) above++;
    if (worst < 0 || balance[k] > largest) {
      largest = balance[k];
      worst   = k;
    }
  }
  PetscCall(PetscFree(balance));
  if (worst < 0) PetscFunctionReturn(PETSC_SUCCESS);
  {
    char obj[64];
    PetscCall(PetscSNPrintf(obj, sizeof(obj), "/cases/%" PetscInt_FMT, worst));
    PetscCall(VIH5HasAttr(file, obj, "dt_how", &automatic));
    PetscCall(VIH5HasAttr(file, obj, "accuracy", &accurate));
    if (accurate) PetscCall(VIH5ReadAttrReal(file, obj, "accuracy", &accuracy));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "Energy balance error (largest |balance| / largest energy stored or spent): %.3g %% at most, in case %" PetscInt_FMT
                        " (over %" PetscInt_FMT " done case%s)\n",
                        (double)(100 * largest), worst, n, n == 1 ? "" : "s"));
  if (above) {
    char limit[32], why[160];
    (void)snprintf(limit, sizeof(limit), "%g", (double)(100 * ens->balance_warning)); /* PETSc's %g prints 1 as "1." */
    if (accurate)
      (void)snprintf(why, sizeof(why), "-step_accuracy %g bounds the error of the outputs, not of the energy: a smaller one", (double)accuracy);
    else
      (void)snprintf(why, sizeof(why), "%s",
                     automatic ? "-step_dt auto chose a stable step, not an accurate one" : "the time step does not resolve the motion");
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR,
                           "vicms: warning: the energy balance error of %" PetscInt_FMT
                           " case%s exceeds %s %% (-summary_balance_warning), up to %.3g %% in case %" PetscInt_FMT
                           ": %s; for accuracy choose the step with -step_accuracy (e.g. -step_dt auto -step_accuracy 1e-3) or a smaller -step_dt\n",
                           above, above == 1 ? "" : "s", limit, (double)(100 * largest), worst, why));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0, at the end: done cases whose contact solves did not all converge (cases/contact_nonconverged), below the limit that
   fails a case (-step_max_nonconverged): a warning naming them, since their motion may be wrong where the solves failed. */
static PetscErrorCode VIEnsembleNonconvergedReport(VIEnsemble ens, hid_t file)
{
  PetscInt  ncases, rows, cols, *nonconv, worst = -1, flagged = 0;
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, "/cases/contact_nonconverged", &has));
  if (!has) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VICaseSetGetSize(ens->cs, &ncases, NULL));
  PetscCall(VIH5ReadInt(file, "/cases/contact_nonconverged", &rows, &cols, &nonconv));
  for (PetscInt k = 0; k < PetscMin(rows, ncases); k++) {
    if (ens->status[k] != 1 || nonconv[k] <= 0) continue;
    flagged++;
    if (worst < 0 || nonconv[k] > nonconv[worst]) worst = k;
  }
  if (flagged)
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR,
                           "vicms: warning: %" PetscInt_FMT " done case%s had contact solves that did not converge (up to %" PetscInt_FMT
                           " in case %" PetscInt_FMT "): the motion may be wrong where they failed; reduce -step_dt or change -step_type "
                           "(-step_max_nonconverged: how many fail a case)\n",
                           flagged, flagged == 1 ? "" : "s", nonconv[worst], worst));
  PetscCall(PetscFree(nonconv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first case's set-up on the whole communicator, outside any error capture: an error in the job's own options stops the job. */
static PetscErrorCode VIEnsembleCheckJob(VIEnsemble ens)
{
  PetscFunctionBeginUser;
  PetscCall(VICaseSetApply(ens->cs, 0));
  PetscCall(ens->runner.check(ens->runner.ctx, ens->rom, ens->comm));
  PetscCall(VICaseSetRestore(ens->cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleRun(VIEnsemble ens)
{
  PetscMPIInt    rank, size;
  PetscInt       ncases, *todo = NULL, next, finished = -1, fstatus = 0, nmine = 0;
  PetscReal     *cost      = NULL;
  PetscLogDouble t_drained = 0, t_merge = 0;
  PetscErrorCode ierr  = PETSC_SUCCESS;
  PetscReal      tstop = 0;
  PetscBool      stopping, stopped = PETSC_FALSE;
  int            sig;

  PetscFunctionBeginUser;
  PetscCheck(ens->rom || ens->runner.token, ens->comm, PETSC_ERR_ORDER, "Call VIEnsembleSetROM() first (or give the runner a token)");
  /* from here a SIGTERM or SIGUSR1 stops the job at its next step boundary, resumable */
  VISignalDefer(PETSC_TRUE);
  PetscCallMPI(MPI_Comm_rank(ens->comm, &rank));
  PetscCallMPI(MPI_Comm_size(ens->comm, &size));
  ens->rank = rank;
  if (ens->group == MPI_COMM_NULL) PetscCallMPI(MPI_Comm_split(ens->comm, (PetscMPIInt)(rank / ens->group_size), rank, &ens->group));
  PetscCallMPI(MPI_Comm_rank(ens->group, &ens->grank));
  ens->ngroups = (size + ens->group_size - 1) / ens->group_size;
  PetscCall(PetscFree2(ens->stopped_k, ens->stopped_t));
  PetscCall(PetscMalloc2(ens->ngroups, &ens->stopped_k, ens->ngroups, &ens->stopped_t));
  ens->nstopped = 0;
  PetscCall(VICaseSetGetSize(ens->cs, &ncases, NULL));
  PetscCall(VIEnsembleFingerprint(ens, NULL));
  PetscCall(ens->runner.quantity_names(ens->runner.ctx, ens->rom, &ens->nq, &ens->qnames));
  ens->output = -1;
  {
    PetscInt nout = 0;
    if (ens->rom) PetscCall(VIROMGetNumOutputs(ens->rom, &nout));
    for (PetscInt o = 0; o < nout; o++) {
      const char *name;
      PetscCall(VIROMGetOutput(ens->rom, o, &name, NULL));
      if (!ens->output_name[0] || !strcmp(name, ens->output_name)) {
        ens->output = o;
        PetscCall(PetscStrncpy(ens->output_name, name, sizeof(ens->output_name)));
        break;
      }
    }
    PetscCheck(!ens->output_name[0] || ens->output >= 0, ens->comm, PETSC_ERR_USER_INPUT, "-summary_output: the ROM has no output '%s'",
               ens->output_name);
  }
  PetscCall(VIEnsembleCheckJob(ens));
  PetscCall(VIErrorSync(ens->comm, PETSC_SUCCESS));

  /* one job per results file, from here on */
  PetscCall(VIEnsembleLock(ens));
  /* rank 0: what the results file and the journal hold already, and the list of cases still to run */
  PetscCall(PetscCalloc1(PetscMax(ncases, 1), &ens->status));
  if (rank == 0) {
    if (ens->overwrite) ierr = VIResultsRemove(ens->results, ens->journal);
    if (!ierr) ierr = VIResultsScan(ens->results, ens->journal, ens->cs, ens->job, ens->status);
    if (!ierr) ierr = VIResultsPrepare(&ens->results_state, ens->results, ens->journal, ncases, ens->nq);
    if (!ierr) ierr = PetscMalloc1(PetscMax(ncases, 1), &todo);
    if (!ierr)
      for (PetscInt k = 0; k < ncases; k++)
        if (!ens->status[k]) todo[ens->ntodo++] = k;
    /* the estimated cost of every case to run, to hand out the longest first and to tell the time remaining */
    if (!ierr) ierr = PetscFree(ens->cost);
    if (!ierr) ierr = PetscCalloc1(PetscMax(ncases, 1), &ens->cost);
    if (!ierr) ierr = PetscMalloc1(PetscMax(ens->ntodo, 1), &cost);
    if (!ierr && ens->runner.cost) ierr = ens->runner.cost(ens->runner.ctx, ens->rom, ens->ntodo, todo, cost);
    if (!ierr && !ens->runner.cost)
      for (PetscInt i = 0; i < ens->ntodo; i++) cost[i] = 1;
    if (!ierr) {
      ens->cost_todo = ens->cost_done = 0;
      for (PetscInt i = 0; i < ens->ntodo; i++) {
        ens->cost[todo[i]] = cost[i];
        ens->cost_todo += cost[i];
      }
    }
  }
  PetscCall(VIErrorSync(ens->comm, ierr));
  PetscCallMPI(MPI_Bcast(&ens->ntodo, 1, MPIU_INT, 0, ens->comm));
  PetscCall(VICaseSetView(ens->cs, NULL));
  PetscCall(PetscPrintf(ens->comm,
                        "Running %" PetscInt_FMT " of %" PetscInt_FMT " cases on %" PetscInt_FMT " group%s of %s%" PetscInt_FMT " rank%s%s\n",
                        ens->ntodo, ncases, ens->ngroups, ens->ngroups == 1 ? "" : "s", size % ens->group_size ? "up to " : "", ens->group_size,
                        ens->group_size == 1 ? "" : "s", ens->ntodo < ncases ? " (the others finished in an earlier run)" : ""));
  PetscCall(PetscTime(&ens->t_start));
  ens->t_merge = ens->t_progress = ens->t_start;
  ens->merge_time                = 0;
  ens->nmerges                   = 0;
  PetscCall(VISchedulerCreate(ens->comm, ens->group, ens->ntodo, todo, ens->order == VI_CASE_ORDER_LONGEST_FIRST && ens->runner.cost ? cost : NULL,
                              VIEnsembleFinished, ens, &ens->sched));
  PetscCall(VISchedulerSetVerbose(ens->sched, ens->verbose));
  PetscCall(PetscFree(todo));
  PetscCall(PetscFree(cost));
  for (;;) {
    PetscCall(VISchedulerNext(ens->sched, finished, fstatus, tstop, &next));
    if (next < 0) break;
    PetscCall(VIEnsembleRunCase(ens, next, ncases == 1 ? PETSC_TRUE : PETSC_FALSE, &fstatus, &tstop));
    finished = next;
    nmine++;
  }
  PetscCall(VISchedulerFinish(ens->sched));
  PetscCall(VISchedulerGetDrainTime(ens->sched, &t_drained));
  PetscCall(VISchedulerGetStop(ens->sched, &stopping, &sig));
  PetscCall(VISchedulerDestroy(&ens->sched));
  if (stopping) {
    PetscInt left = 0;
    if (rank == 0)
      for (PetscInt k = 0; k < ncases; k++) left += ens->status[k] ? 0 : 1;
    PetscCallMPI(MPI_Bcast(&left, 1, MPIU_INT, 0, ens->comm));
    stopped = left > 0 ? PETSC_TRUE : PETSC_FALSE;
  }
  /* a stop merges what is finished, so the results file holds it even when no case finished in this run */
  if (rank == 0 && (ens->dirty || ens->ntodo == 0 || ens->overwrite || stopped)) {
    PetscCall(PetscTime(&t_merge));
    ierr = VIEnsembleMerge(ens);
    if (!ierr) t_merge = ens->t_merge - t_merge;
  }
  if (!ierr && ens->write_error[0])
    ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_WRITE, PETSC_ERROR_INITIAL, "%s", ens->write_error);
  PetscCall(VIErrorSync(ens->comm, ierr));
  if (rank == 0) {
    PetscLogDouble now;
    PetscInt       done = 0, failed = 0;
    PetscCall(PetscTime(&now));
    for (PetscInt k = 0; k < ncases; k++) {
      if (ens->status[k] == 1) done++;
      if (ens->status[k] == 2) failed++;
    }
    PetscCall(PetscPrintf(
        PETSC_COMM_SELF,
        "%" PetscInt_FMT " cases: %" PetscInt_FMT " done, %" PetscInt_FMT " failed; %" PetscInt_FMT " run now in %.2f s (%.3g cases/s)", ncases, done,
        failed, ens->ntodo, (double)(now - ens->t_start), now > ens->t_start ? (double)(ens->ntodo / (now - ens->t_start)) : 0.0));
    /* where the parallel time went at the end: groups idle while the last cases ran (the tail), the merge on rank 0 */
    if (ens->ngroups > 1 && t_drained > 0 && ens->t_last_finished > t_drained)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, ", tail %.2f s", (double)(ens->t_last_finished - t_drained)));
    if (t_merge > 0)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, ", last merge %.2f s (%" PetscInt_FMT " merge%s, %.2f s in all)", (double)t_merge, ens->nmerges,
                            ens->nmerges == 1 ? "" : "s", (double)ens->merge_time));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    if (failed || done > 0) {
      hid_t file;
      PetscCall(VIH5Open(ens->results, &file));
      if (failed) {
        PetscInt shown = 0;
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "Failed cases:\n"));
        for (PetscInt k = 0; k < ncases && shown < 10; k++)
          if (ens->status[k] == 2) {
            char obj[64], *msg = NULL;
            PetscCall(PetscSNPrintf(obj, sizeof(obj), "/cases/%" PetscInt_FMT, k));
            PetscCall(VIH5ReadAttrStringAlloc(file, obj, "message", &msg));
            PetscCall(PetscPrintf(PETSC_COMM_SELF, "  case %" PetscInt_FMT ": %s\n", k, msg));
            PetscCall(PetscFree(msg));
            shown++;
          }
      }
      if (ncases > 1 && done > 0) {
        PetscReal *quantities;
        PetscInt   rows, cols;
        PetscCall(VIH5ReadReal(file, "/cases/quantities", &rows, &cols, &quantities));
        PetscCall(VISummaryPrint(file, ens->cs, ens->status, ens->nq, (const char *const *)ens->qnames, quantities, ens->output, ens->output_name));
        PetscCall(PetscFree(quantities));
      }
      PetscCall(VIEnsembleBalanceReport(ens, file));
      PetscCall(VIEnsembleNonconvergedReport(ens, file));
      PetscCall(VIH5Close(&file));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "Wrote %s\n", ens->results));
    if (stopped) {
      char where[512] = "between cases";
      for (PetscInt i = 0; i < ens->nstopped; i++) {
        char one[96];
        PetscCall(PetscSNPrintf(one, sizeof(one), "%s%s = %g%s of case %" PetscInt_FMT, i ? ", " : "at ", ens->runner.position_name,
                                (double)ens->stopped_t[i], ens->runner.position_unit, ens->stopped_k[i]));
        if (!i) where[0] = 0;
        PetscCall(PetscStrlcat(where, one, sizeof(where)));
      }
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "vicms: stopped by %s %s; %" PetscInt_FMT " cases finished, %" PetscInt_FMT
                            " remaining; rerun the same command to resume (exit status %d)\n",
                            VISignalName(sig), where, done + failed, ncases - done - failed, VI_EXIT_RESUMABLE));
    }
  }
  VISetStopped(stopped);
  {
    PetscInt counts[2] = {0, 0};
    if (rank == 0)
      for (PetscInt k = 0; k < ncases; k++) counts[ens->status[k] == 1 ? 0 : 1] += ens->status[k] == 1 || ens->status[k] == 2;
    PetscCallMPI(MPI_Bcast(counts, 2, MPIU_INT, 0, ens->comm));
    ens->count_done   = counts[0];
    ens->count_failed = counts[1];
  }
  PetscCall(PetscInfo(NULL, "this rank ran %" PetscInt_FMT " cases\n", nmine));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIEnsembleCheckAllFailed - after VIEnsembleRun: an error when every case of the job failed and none is done (a job that
  computed nothing usable ends non-zero; the cases and their messages are in the results file all the same). A stopped
  run passes (it resumes). Collective. `what` names the cases ("case", "branch").
*/
PetscErrorCode VIEnsembleCheckAllFailed(VIEnsemble ens, const char what[])
{
  PetscFunctionBeginUser;
  if (VIGetStopped()) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!(ens->count_done == 0 && ens->count_failed > 0), ens->comm, PETSC_ERR_USER_INPUT,
             "every %s failed (%" PetscInt_FMT " of %" PetscInt_FMT "; their messages above and in %s, cases/<k> attribute message)", what,
             ens->count_failed, ens->count_failed, ens->results);
  PetscFunctionReturn(PETSC_SUCCESS);
}
