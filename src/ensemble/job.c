/* What makes a job one job: the fingerprint of its options and ROM, the reduction that made its ROM, the lock of its results file. */
#include "ensembleimpl.h"
#include <vicms/sys.h>
#include <dirent.h>
#include <unistd.h>

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
   token). reduction: that of the ROM the job will use (NULL: the ensemble's ROM's own). */
PetscErrorCode VIEnsembleFingerprint(VIEnsemble ens, const char reduction[])
{
  static const char *const ignore[] = {"-cases_group_size",
                                       "-cases_merge_interval",
                                       "-cases_quiet",
                                       "-cases_order",
                                       "-cases_verbose",
                                       "-cases_progress_interval",
                                       "-cases_checkpoint_interval",
                                       "-results_file",
                                       "-results_overwrite",
                                       "-summary_output",
                                       "-summary_bins",
                                       "-summary_balance_warning",
                                       "-hb_output",
                                       "-rom_file",
                                       "-mesh_file"};
  char                    *opts, token[64];
  size_t                   len;

  PetscFunctionBeginUser;
  PetscCall(VIOptionsFingerprint(0, NULL, (PetscInt)(sizeof(ignore) / sizeof(ignore[0])), ignore, &opts));
  if (!ens->rom && ens->runner.token)
    PetscCall(ens->runner.token(ens->runner.ctx, token, sizeof(token))); /* a model that is not a ROM */
  else
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
