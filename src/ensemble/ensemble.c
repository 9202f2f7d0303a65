/* VIEnsemble: runs the cases of a job on groups of ranks, writes each finished case at once, merges, summarizes. */
#include "ensembleimpl.h"
#include <vicms/sys.h>
#include <dirent.h>
#include <unistd.h>

struct _p_VIEnsemble {
  MPI_Comm  comm, group;
  VIROM     rom;
  VICaseSet cs;
  char      results[PETSC_MAX_PATH_LEN], journal[PETSC_MAX_PATH_LEN + 8];
  PetscInt  group_size, bins, ngroups;
  PetscReal merge_interval, progress_interval, steady_fraction;
  PetscBool keep_series, quiet, overwrite;
  char      output_name[128];
  PetscInt  output; /* index of the summary output, -1 when the ROM has none */
  char     *job;    /* fingerprint of the options that decide the results */
  char      lock[PETSC_MAX_PATH_LEN + 8];
  PetscBool locked; /* rank 0 holds the lock of the results file */

  /* quantities */
  PetscInt nq;
  char   **qnames;

  /* rank 0: the state of every case, progress, merging */
  PetscMPIInt    rank;
  PetscInt      *status, ntodo, nfinished, nfailed_now;
  PetscLogDouble t_start, t_progress, t_merge;
  PetscBool      dirty; /* finished cases wait in the journal */
  PetscBool      merge_warned;
  PetscBool      write_failed;     /* this group could not write a case (a full disk): it drains the cases left unrun */
  char           write_error[256]; /* why, on the group's rank 0 */
  VIScheduler    sched;
};

PetscErrorCode VIEnsembleCreate(MPI_Comm comm, VIEnsemble *ens)
{
  VIEnsemble e;

  PetscFunctionBeginUser;
  PetscCall(VIInitializePackage());
  PetscCall(PetscNew(&e));
  e->comm              = comm;
  e->group_size        = 1;
  e->bins              = 20;
  e->merge_interval    = 10;
  e->progress_interval = 2;
  e->steady_fraction   = 0.25;
  e->keep_series       = PETSC_TRUE;
  e->group             = MPI_COMM_NULL;
  PetscCall(PetscStrncpy(e->results, "results.h5", sizeof(e->results)));
  PetscCall(VICaseSetCreate(comm, &e->cs));
  *ens = e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleDestroy(VIEnsemble *ens)
{
  VIEnsemble e;

  PetscFunctionBeginUser;
  if (!ens || !*ens) PetscFunctionReturn(PETSC_SUCCESS);
  e = *ens;
  if (e->locked) PetscCall(VIResultsUnlock(e->lock));
  PetscCall(VICaseSetDestroy(&e->cs));
  PetscCall(VISchedulerDestroy(&e->sched));
  if (e->group != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&e->group));
  if (e->qnames) PetscCall(PetscStrArrayDestroy(&e->qnames));
  PetscCall(PetscFree(e->status));
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
  PetscCall(PetscOptionsBool("-cases_keep_series", "Store each case's time series (false: its quantities only)", "", ens->keep_series,
                             &ens->keep_series, NULL));
  PetscCall(PetscOptionsBool("-cases_quiet", "No progress line", "", ens->quiet, &ens->quiet, NULL));
  PetscCall(
      PetscOptionsReal("-cases_progress_interval", "Seconds between progress lines", "", ens->progress_interval, &ens->progress_interval, NULL));
  PetscCall(PetscOptionsString("-summary_output", "ROM output of the frequency-response summaries (default: the first)", "", ens->output_name,
                               ens->output_name, sizeof(ens->output_name), NULL));
  PetscCall(PetscOptionsReal("-summary_steady_fraction", "Last fraction of a case taken as its steady state", "", ens->steady_fraction,
                             &ens->steady_fraction, NULL));
  PetscCall(PetscOptionsInt("-summary_bins", "Histogram bins of the sampled quantities", "", ens->bins, &ens->bins, NULL));
  PetscOptionsEnd();
  PetscCallMPI(MPI_Comm_size(ens->comm, &size));
  PetscCheck(ens->group_size >= 1 && ens->group_size <= size, ens->comm, PETSC_ERR_USER_INPUT,
             "-cases_group_size: got %" PetscInt_FMT ", expected 1 to %d (the number of ranks)", ens->group_size, size);
  PetscCheck(ens->steady_fraction > 0 && ens->steady_fraction <= 1, ens->comm, PETSC_ERR_USER_INPUT,
             "-summary_steady_fraction: got %g, expected a value in (0, 1]", (double)ens->steady_fraction);
  PetscCheck(ens->bins >= 1, ens->comm, PETSC_ERR_USER_INPUT, "-summary_bins: got %" PetscInt_FMT ", expected >= 1", ens->bins);
  PetscCheck(ens->merge_interval >= 0, ens->comm, PETSC_ERR_USER_INPUT, "-cases_merge_interval: got %g, expected >= 0", (double)ens->merge_interval);
  PetscCall(PetscSNPrintf(ens->journal, sizeof(ens->journal), "%s.cases", ens->results));
  PetscCall(PetscSNPrintf(ens->lock, sizeof(ens->lock), "%s.lock", ens->results));
  PetscCall(VICaseSetSetFromOptions(ens->cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FNV-1a over bytes, continued from h. */
static unsigned long long VIHash(unsigned long long h, const void *data, size_t len)
{
  const unsigned char *b = (const unsigned char *)data;
  for (size_t i = 0; i < len; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

/* A checksum of what of the ROM decides the results: its matrices, loads, outputs and contact table. */
static PetscErrorCode VIROMChecksum(VIROM rom, unsigned long long *h)
{
  PetscInt             nb, nm, n, nl, no, nc;
  PetscReal           *K, *M, *D;
  const VIContactInfo *contacts;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetSizes(rom, &nb, &nm));
  PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
  n  = nb + nm;
  *h = 14695981039346656037ULL;
  *h = VIHash(*h, K, sizeof(PetscReal) * n * n);
  *h = VIHash(*h, M, sizeof(PetscReal) * n * n);
  *h = VIHash(*h, D, sizeof(PetscReal) * n * n);
  PetscCall(VIROMGetNumLoads(rom, &nl));
  for (PetscInt l = 0; l < nl; l++) {
    const char      *name;
    const PetscReal *f;
    PetscCall(VIROMGetLoad(rom, l, &name, &f));
    *h = VIHash(VIHash(*h, name, strlen(name)), f, sizeof(PetscReal) * n);
  }
  PetscCall(VIROMGetNumOutputs(rom, &no));
  for (PetscInt o = 0; o < no; o++) {
    const char      *name;
    const PetscReal *y;
    PetscCall(VIROMGetOutput(rom, o, &name, &y));
    *h = VIHash(VIHash(*h, name, strlen(name)), y, sizeof(PetscReal) * n);
  }
  PetscCall(VIROMGetContacts(rom, &nc, &contacts));
  for (PetscInt j = 0; j < nc; j++) { /* field by field: the struct has padding */
    *h = VIHash(*h, &contacts[j].node_id, sizeof(PetscInt));
    *h = VIHash(*h, &contacts[j].dim, sizeof(PetscInt));
    *h = VIHash(*h, contacts[j].frame, sizeof(contacts[j].frame));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Diagnostics: options that change what is printed or checked, never a number of the results. */
static PetscBool VIOptionIsDiagnostic(const char item[])
{
  static const char *const diagnostics[] = {"-options_file",
                                            "-options_left",
                                            "-options_view",
                                            "-options_monitor",
                                            "-help",
                                            "-info",
                                            "-log*",
                                            "-malloc*",
                                            "-memory_view",
                                            "-no_signal_handler",
                                            "-on_error_*",
                                            "-start_in_debugger",
                                            "-debugger*",
                                            "-fp_trap",
                                            "-check_pointer_intensity",
                                            "-objects_dump",
                                            "-history",
                                            "-skip_petscrc",
                                            "-petsc_ci",
                                            "-version"};
  const char              *end           = item;
  size_t                   len;

  while (*end && *end != ' ') end++;
  len = (size_t)(end - item);
  for (size_t j = 0; j < sizeof(diagnostics) / sizeof(diagnostics[0]); j++) {
    size_t l = strlen(diagnostics[j]);
    if (diagnostics[j][l - 1] == '*' ? !strncmp(item, diagnostics[j], l - 1) : (len == l && !strncmp(item, diagnostics[j], l))) return PETSC_TRUE;
  }
  /* viewers and monitors of any object (-cms_eps_view, -step_monitor, -cms_st_ksp_converged_reason) */
  for (const char *c = item; c < end; c++)
    if (!strncmp(c, "_view", 5) || !strncmp(c, "_monitor", 8) || !strncmp(c, "_converged_reason", 17)) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode VIOptionsFingerprint(PetscInt nkeep, const char *const keep[], PetscInt nignore, const char *const ignore[], char **fp)
{
  char    *all, *tok, *save = NULL, **items;
  PetscInt n = 0;
  size_t   len;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  PetscCall(PetscStrlen(all, &len));
  PetscCall(PetscCalloc1(len + 1, &items));
  /* tokens: an option starts with '-' and a letter; anything else is (part of) the previous option's value */
  for (tok = strtok_r(all, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (tok[0] == '-' && ((tok[1] >= 'a' && tok[1] <= 'z') || (tok[1] >= 'A' && tok[1] <= 'Z') || tok[1] == '_'))
      items[n++] = tok;
    else if (n) {
      tok[-1] = ' '; /* glue the value to its option again */
    }
  }
  {
    PetscInt m = 0;
    for (PetscInt i = 0; i < n; i++) {
      PetscBool skip = VIOptionIsDiagnostic(items[i]), kept = nkeep ? PETSC_FALSE : PETSC_TRUE;
      for (PetscInt j = 0; j < nignore; j++) {
        size_t l = strlen(ignore[j]);
        if (!strncmp(items[i], ignore[j], l) && (items[i][l] == 0 || items[i][l] == ' ')) skip = PETSC_TRUE;
      }
      for (PetscInt j = 0; j < nkeep; j++)
        if (!strncmp(items[i], keep[j], strlen(keep[j]))) kept = PETSC_TRUE;
      if (kept && !skip) items[m++] = items[i];
    }
    n = m;
  }
  for (PetscInt i = 1; i < n; i++)
    for (PetscInt j = i; j > 0 && strcmp(items[j - 1], items[j]) > 0; j--) {
      char *t      = items[j];
      items[j]     = items[j - 1];
      items[j - 1] = t;
    }
  PetscCall(PetscCalloc1(len + 2, fp));
  for (PetscInt i = 0; i < n; i++) {
    if (i) PetscCall(PetscStrlcat(*fp, " ", len + 2));
    PetscCall(PetscStrlcat(*fp, items[i], len + 2));
  }
  PetscCall(PetscFree(items));
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleROMToken(VIROM rom, const char reduction[], char token[], size_t len)
{
  unsigned long long h = 0;

  PetscFunctionBeginUser;
  if (!reduction && rom) PetscCall(VIROMGetReduction(rom, &reduction));
  if (reduction) {
    /* the same reduction on other rank counts gives a ROM equal to ~1e-10, not bitwise: what made it names it */
    h = VIHash(14695981039346656037ULL, reduction, strlen(reduction));
    PetscCall(PetscSNPrintf(token, len, "reduction=%016llx", h));
  } else {
    PetscCall(VIROMChecksum(rom, &h));
    PetscCall(PetscSNPrintf(token, len, "rom=%016llx", h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options that decide the results, sorted (everything but scheduling, output and diagnostics), and the ROM's
   token (the ROM file's name may change, what made it may not; the mesh file's name neither: its content is in the
   token). reduction: that of the ROM the job will use (NULL:
   the ensemble's ROM's own). */
static PetscErrorCode VIEnsembleFingerprint(VIEnsemble ens, const char reduction[])
{
  static const char *const ignore[] = {"-cases_group_size",
                                       "-cases_merge_interval",
                                       "-cases_quiet",
                                       "-cases_progress_interval",
                                       "-cases_checkpoint_interval",
                                       "-results_file",
                                       "-results_overwrite",
                                       "-summary_output",
                                       "-summary_bins",
                                       "-rom_file",
                                       "-mesh_file"};
  char                    *opts, token[64];
  size_t                   len;

  PetscFunctionBeginUser;
  PetscCall(VIOptionsFingerprint(0, NULL, (PetscInt)(sizeof(ignore) / sizeof(ignore[0])), ignore, &opts));
  PetscCall(VIEnsembleROMToken(ens->rom, reduction, token, sizeof(token)));
  PetscCall(PetscStrlen(opts, &len));
  PetscCall(PetscFree(ens->job));
  PetscCall(PetscMalloc1(len + 80, &ens->job));
  PetscCall(PetscSNPrintf(ens->job, len + 80, "%s%s%s", opts, len ? " " : "", token));
  PetscCall(PetscFree(opts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleLock(VIEnsemble ens)
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(ens->comm, &rank));
  if (rank == 0 && !ens->locked) {
    ierr = VIResultsLock(ens->results, ens->lock);
    if (!ierr) ens->locked = PETSC_TRUE;
  }
  PetscCall(VIErrorSync(ens->comm, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: whether the results file or its journal holds cases computed on the ROM of token (their job ends with it). */
static PetscErrorCode VIEnsembleResultsUse(VIEnsemble ens, const char token[], PetscBool *uses)
{
  PetscErrorCode ierr = PETSC_SUCCESS;
  size_t         tl   = strlen(token);

  PetscFunctionBeginUser;
  *uses = PETSC_FALSE;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  if (access(ens->results, F_OK) == 0) {
    hid_t file = -1;
    char *job  = NULL;
    ierr       = VIH5Open(ens->results, &file);
    if (!ierr) ierr = VIH5ReadAttrStringAlloc(file, "/", "job", &job);
    if (!ierr && strlen(job) >= tl && !strcmp(job + strlen(job) - tl, token)) *uses = PETSC_TRUE;
    PetscCall(PetscFree(job));
    if (file >= 0) (void)VIH5Close(&file);
  }
  {
    DIR *d = opendir(ens->journal);
    if (d) {
      struct dirent *e;
      while (!*uses && (e = readdir(d))) {
        char  path[2 * PETSC_MAX_PATH_LEN], *end, *job = NULL;
        hid_t file = -1;
        (void)strtol(e->d_name, &end, 10);
        if (end == e->d_name || strcmp(end, ".h5")) continue;
        PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", ens->journal, e->d_name));
        ierr = VIH5Open(path, &file);
        if (!ierr) ierr = VIH5ReadAttrStringAlloc(file, "/case", "job", &job);
        if (!ierr && strlen(job) >= tl && !strcmp(job + strlen(job) - tl, token)) *uses = PETSC_TRUE;
        PetscCall(PetscFree(job));
        if (file >= 0) (void)VIH5Close(&file);
      }
      closedir(d);
    }
  }
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first option where two fingerprints differ, for messages. */
static void VIFingerprintDifference(const char a[], const char b[], char out[], size_t len)
{
  size_t i = 0, start, ea, eb;
  while (a[i] && a[i] == b[i]) i++;
  for (start = i; start > 0 && !(a[start - 1] == ' ' && a[start] == '-'); start--)
    ;
  for (ea = start + 1; a[ea - 1] && a[ea] && !(a[ea] == ' ' && a[ea + 1] == '-'); ea++)
    ;
  for (eb = start + 1; b[eb - 1] && b[eb] && !(b[eb] == ' ' && b[eb + 1] == '-'); eb++)
    ;
  snprintf(out, len, "'%.*s' there, '%.*s' here", (int)PetscMin(ea - start, 100), a + start, (int)PetscMin(eb - start, 100), b + start);
}

PetscErrorCode VIEnsembleCheckReduction(VIEnsemble ens, const char rom_file[], const char reduction[], PetscBool *reuse)
{
  PetscMPIInt    rank;
  PetscErrorCode ierr     = PETSC_SUCCESS;
  PetscInt       state[3] = {0, 0, 0}; /* the ROM file exists; it was made by this reduction; it records its reduction */
  char          *theirs   = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(ens->comm, &rank));
  if (rank == 0 && access(rom_file, F_OK) == 0) {
    hid_t     file = -1;
    PetscBool has  = PETSC_FALSE;
    state[0]       = 1;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    if (!VIH5Open(rom_file, &file) && !VIH5HasAttr(file, "/", "reduction", &has) && has)
      (void)VIH5ReadAttrStringAlloc(file, "/", "reduction", &theirs);
    if (file >= 0) (void)VIH5Close(&file);
    PetscCall(PetscPopErrorHandler());
    state[1] = theirs && !strcmp(theirs, reduction) ? 1 : 0;
    state[2] = theirs ? 1 : 0;
  }
  PetscCallMPI(MPI_Bcast(state, 3, MPIU_INT, 0, ens->comm));
  *reuse = state[1] ? PETSC_TRUE : PETSC_FALSE;
  if (state[0] && !state[1] && !ens->overwrite) {
    /* the reduction would overwrite this ROM: not while results computed on it are kept */
    char      token[64] = "";
    PetscBool uses      = PETSC_FALSE;
    if (state[2]) {
      if (rank == 0) PetscCall(VIEnsembleROMToken(NULL, theirs, token, sizeof(token)));
    } else {
      VIROM          old;
      PetscErrorCode lerr;
      PetscCall(VIROMCreate(ens->comm, &old));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      lerr = VIROMLoad(old, rom_file);
      PetscCall(PetscPopErrorHandler());
      if (!lerr) PetscCall(VIEnsembleROMToken(old, NULL, token, sizeof(token)));
      PetscCall(VIROMDestroy(&old));
    }
    if (rank == 0 && token[0]) ierr = VIEnsembleResultsUse(ens, token, &uses);
    if (!ierr && uses) {
      char diff[256] = "it records no reduction";
      if (theirs) VIFingerprintDifference(theirs, reduction, diff, sizeof(diff));
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL,
                        "%s was made by another reduction (%s) and %s holds results computed on it: vicms run will not overwrite it. Run with "
                        "the options it was made with, choose another -rom_file and -results_file, or add -results_overwrite to start afresh",
                        rom_file, diff, ens->results);
    }
  }
  PetscCall(PetscFree(theirs));
  PetscCall(VIErrorSync(ens->comm, ierr));
  /* the job check, before any reduction: the results file must come from this job on the ROM this reduction makes */
  PetscCall(VIEnsembleFingerprint(ens, reduction));
  if (rank == 0 && !ens->overwrite) {
    PetscInt ncases, *status;
    PetscCall(VICaseSetGetSize(ens->cs, &ncases, NULL));
    PetscCall(PetscMalloc1(PetscMax(ncases, 1), &status));
    ierr = VIResultsScan(ens->results, ens->journal, ens->cs, ens->job, status);
    PetscCall(PetscFree(status));
  }
  PetscCall(VIErrorSync(ens->comm, ierr));
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
    PetscReal elapsed = now - ens->t_start, left = ens->ntodo - ens->nfinished;
    PetscReal remaining = ens->nfinished > 0 ? elapsed / ens->nfinished * left : -1;
    if (remaining >= 0)
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "  cases %" PetscInt_FMT "/%" PetscInt_FMT " finished (%" PetscInt_FMT " failed), %.1f s elapsed, ~%.1f s remaining\n",
                            done + failed, ncases, failed, (double)elapsed, (double)remaining));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIEnsembleMerge(VIEnsemble ens)
{
  const char *units;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetUnits(ens->rom, &units));
  PetscCall(VIResultsMerge(ens->results, ens->journal, ens->cs, ens->status, ens->nq, (const char *const *)ens->qnames, ens->output, ens->output_name,
                           ens->bins, ens->job, units ? units : ""));
  PetscCall(PetscTime(&ens->t_merge));
  ens->dirty = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VICaptureError(MPI_Comm, int, const char *, const char *, PetscErrorCode, PetscErrorType, const char *, void *);

/* Rank 0: case k has finished (its file is in the journal). */
static PetscErrorCode VIEnsembleFinished(void *ctx, PetscInt k, PetscInt status)
{
  VIEnsemble     ens = (VIEnsemble)ctx;
  PetscLogDouble now;

  PetscFunctionBeginUser;
  ens->status[k] = status;
  ens->nfinished++;
  if (!status) PetscFunctionReturn(PETSC_SUCCESS); /* not written (a full disk): nothing to merge */
  ens->dirty = PETSC_TRUE;
  PetscCall(VIEnsembleProgress(ens, ens->nfinished == ens->ntodo ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(PetscTime(&now));
  if (now - ens->t_merge >= ens->merge_interval && ens->nfinished < ens->ntodo) {
    /* a merge that fails now (a full disk) leaves the results file and the journal as they were: the job goes on */
    char           msg[256] = "";
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(VICaptureError, msg));
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

/* Stepper monitor: rank 0 answers the other groups while it steps a case of its own. */
static PetscErrorCode VIEnsembleMonitor(VIStepper st, PetscReal t, void *ctx)
{
  VIEnsemble ens = (VIEnsemble)ctx;

  PetscFunctionBeginUser;
  if (ens->sched) PetscCall(VISchedulerServe(ens->sched));
  if (ens->rank == 0 && ens->ntodo == 1 && !ens->quiet) {
    /* a job of one (long) case: how far it is */
    PetscLogDouble now;
    PetscCall(PetscTime(&now));
    if (now - ens->t_progress >= ens->progress_interval) {
      PetscReal t_end;
      PetscCall(VIStepperGetTimeStep(st, NULL, &t_end));
      ens->t_progress = now;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  t = %g of %g (%.0f %%), %.1f s elapsed\n", (double)t, (double)t_end, (double)(100 * t / t_end),
                            (double)(now - ens->t_start)));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- one case */

static PetscErrorCode VICaptureError(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p,
                                     const char *mess, void *ctx)
{
  (void)comm;
  (void)line;
  (void)func;
  (void)file;
  if (p == PETSC_ERROR_INITIAL) (void)PetscStrncpy((char *)ctx, mess ? mess : "error", 256);
  return n;
}

/* Set up and run case k on the group; the stepper stays alive for its records. */
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
  PetscCall(VIStepperSetMonitor(st, VIEnsembleMonitor, ens));
  PetscCall(VIStepperRun(st));
  PetscCall(VIStepperGetStats(st, &r->stats));
  PetscCall(VIStepperGetSeries(st, &r->nt, &r->t, &r->outputs, &r->gaps, &r->forces, &r->energy));
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

/* Run case k on the group and write it to the journal (the group's rank 0); its status is 1 done or 2 failed. */
static PetscErrorCode VIEnsembleRunCase(VIEnsemble ens, PetscInt k, PetscBool verbose, PetscInt *status)
{
  VISystem       sys;
  VIStepper      st;
  VICaseResult   r;
  PetscErrorCode ierr;
  PetscMPIInt    grank, mine, any;
  char           captured[256] = "";

  PetscFunctionBeginUser;
  if (ens->write_failed) { /* pending: for a rerun */
    *status = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMemzero(&r, sizeof(r)));
  r.k = k;
  PetscCall(PetscMalloc1(ens->nq, &r.quantities));
  for (PetscInt i = 0; i < ens->nq; i++) r.quantities[i] = VI_NAN;
  PetscCall(VISystemCreate(ens->group, &sys));
  PetscCall(VIStepperCreate(ens->group, &st));
  PetscCall(VISystemSetROM(sys, ens->rom));
  PetscCall(VIStepperSetSystem(st, sys));
  PetscCall(VICaseSetApply(ens->cs, k));
  /* an error inside the case (its own parameters) fails the case, not the job */
  PetscCall(PetscPushErrorHandler(VICaptureError, captured));
  ierr = VIEnsembleCompute(ens, sys, st, &r);
  PetscCall(PetscPopErrorHandler());
  PetscCall(VICaseSetRestore(ens->cs));
  mine = ierr ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, ens->group));
  if (any) {
    r.failed = PETSC_TRUE;
    r.nt     = 0;
    for (PetscInt i = 0; i < ens->nq; i++) r.quantities[i] = VI_NAN;
    PetscCall(PetscStrncpy(r.message, mine ? captured : "failed on another rank of the group", sizeof(r.message)));
  }
  if (verbose && !any) {
    PetscCall(VISystemView(sys, NULL));
    PetscCall(VIStepperView(st, NULL));
  }
  PetscCallMPI(MPI_Comm_rank(ens->group, &grank));
  {
    /* a case that cannot be written (a full disk) stops the group's work without stranding the other groups */
    PetscMPIInt werr = 0;
    if (grank == 0) {
      PetscCall(PetscPushErrorHandler(VICaptureError, ens->write_error));
      werr = VIJournalWriteCase(ens->journal, ens->rom, &r, ens->keep_series, ens->nq, (const char *const *)ens->qnames, ens->job) ? 1 : 0;
      PetscCall(PetscPopErrorHandler());
    }
    PetscCallMPI(MPI_Bcast(&werr, 1, MPI_INT, 0, ens->group));
    if (werr) ens->write_failed = PETSC_TRUE;
  }
  *status = ens->write_failed ? 0 : r.failed ? 2 : 1;
  PetscCall(PetscFree(r.frequency));
  PetscCall(PetscFree(r.quantities));
  PetscCall(VIStepperDestroy(&st));
  PetscCall(VISystemDestroy(&sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first case's set-up on the whole communicator, outside any error capture: an error in the job's own options stops the job. */
static PetscErrorCode VIEnsembleCheckJob(VIEnsemble ens)
{
  VISystem  sys;
  VIStepper st;

  PetscFunctionBeginUser;
  PetscCall(VISystemCreate(ens->comm, &sys));
  PetscCall(VIStepperCreate(ens->comm, &st));
  PetscCall(VISystemSetROM(sys, ens->rom));
  PetscCall(VIStepperSetSystem(st, sys));
  PetscCall(VICaseSetApply(ens->cs, 0));
  PetscCall(VISystemSetFromOptions(sys));
  PetscCall(VIStepperSetFromOptions(st));
  PetscCall(VIStepperSetUp(st));
  PetscCall(VICaseSetRestore(ens->cs));
  PetscCall(VIStepperDestroy(&st));
  PetscCall(VISystemDestroy(&sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleRun(VIEnsemble ens)
{
  PetscMPIInt    rank, size;
  PetscInt       ncases, *todo = NULL, next, finished = -1, fstatus = 0, nmine = 0;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCheck(ens->rom, ens->comm, PETSC_ERR_ORDER, "Call VIEnsembleSetROM() first");
  PetscCallMPI(MPI_Comm_rank(ens->comm, &rank));
  PetscCallMPI(MPI_Comm_size(ens->comm, &size));
  ens->rank = rank;
  if (ens->group == MPI_COMM_NULL) PetscCallMPI(MPI_Comm_split(ens->comm, (PetscMPIInt)(rank / ens->group_size), rank, &ens->group));
  ens->ngroups = (size + ens->group_size - 1) / ens->group_size;
  PetscCall(VICaseSetGetSize(ens->cs, &ncases, NULL));
  PetscCall(VIEnsembleFingerprint(ens, NULL));
  PetscCall(VISummaryQuantityNames(ens->rom, &ens->nq, &ens->qnames));
  ens->output = -1;
  {
    PetscInt nout;
    PetscCall(VIROMGetNumOutputs(ens->rom, &nout));
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
    if (!ierr) ierr = PetscMalloc1(PetscMax(ncases, 1), &todo);
    if (!ierr)
      for (PetscInt k = 0; k < ncases; k++)
        if (!ens->status[k]) todo[ens->ntodo++] = k;
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
  PetscCall(VISchedulerCreate(ens->comm, ens->group, ens->ntodo, todo, VIEnsembleFinished, ens, &ens->sched));
  PetscCall(PetscFree(todo));
  for (;;) {
    PetscCall(VISchedulerNext(ens->sched, finished, fstatus, &next));
    if (next < 0) break;
    PetscCall(VIEnsembleRunCase(ens, next, ncases == 1 ? PETSC_TRUE : PETSC_FALSE, &fstatus));
    finished = next;
    nmine++;
  }
  PetscCall(VISchedulerFinish(ens->sched));
  PetscCall(VISchedulerDestroy(&ens->sched));
  if (rank == 0 && (ens->dirty || ens->ntodo == 0 || ens->overwrite)) ierr = VIEnsembleMerge(ens);
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
        "%" PetscInt_FMT " cases: %" PetscInt_FMT " done, %" PetscInt_FMT " failed; %" PetscInt_FMT " run now in %.2f s (%.3g cases/s)\n", ncases,
        done, failed, ens->ntodo, (double)(now - ens->t_start), now > ens->t_start ? (double)(ens->ntodo / (now - ens->t_start)) : 0.0));
    if (failed || (ncases > 1 && done > 0)) {
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
      PetscCall(VIH5Close(&file));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "Wrote %s\n", ens->results));
  }
  PetscCall(PetscInfo(NULL, "this rank ran %" PetscInt_FMT " cases\n", nmine));
  PetscFunctionReturn(PETSC_SUCCESS);
}
