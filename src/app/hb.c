/* `vicms hb`: the harmonic balance branches of a job's cases on a ROM file -> results file, one branch per case on rank groups. */
#include "app.h"
#include <vicms/hb.h>
#include <math.h>

/* The case runner of harmonic balance: one continuation per case (the ensemble does the rest). */
typedef struct {
  char           output[128]; /* -hb_output: the ROM output of the printed table ("" : the first) */
  VISystem       sys;
  VIHB           hb;
  VIEnsemble     ens;
  PetscLogDouble wall;
} VIAppHBRunner;

/* Per ROM output the peak of the branch and its frequency, then the branch's size, turning and unstable points, and its
   largest contact force: the quantities whose statistics summarize a set of branches. */
static PetscErrorCode VIAppHBQuantityNames(void *ctx, VIROM rom, PetscInt *nq, char ***names)
{
  static const char *const tail[] = {"points", "turning_points", "unstable_points", "max_contact_force"};
  PetscInt                 nout, c = 0;

  PetscFunctionBeginUser;
  (void)ctx;
  PetscCall(VIROMGetNumOutputs(rom, &nout));
  *nq = 2 * nout + 4;
  PetscCall(PetscCalloc1(*nq + 1, names));
  for (PetscInt o = 0; o < nout; o++) {
    const char *out;
    char        name[160];
    PetscCall(VIROMGetOutput(rom, o, &out, NULL));
    PetscCall(PetscSNPrintf(name, sizeof(name), "peak_amplitude_%s", out));
    PetscCall(PetscStrallocpy(name, &(*names)[c++]));
    PetscCall(PetscSNPrintf(name, sizeof(name), "peak_frequency_%s", out));
    PetscCall(PetscStrallocpy(name, &(*names)[c++]));
  }
  for (PetscInt i = 0; i < 4; i++) PetscCall(PetscStrallocpy(tail[i], &(*names)[c++]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The index of the output named name ("" : 0; -1 when the ROM has no outputs). */
static PetscErrorCode VIAppHBOutputIndex(VIROM rom, MPI_Comm comm, const char name[], PetscInt *out)
{
  PetscInt nout;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetNumOutputs(rom, &nout));
  *out = nout ? 0 : -1;
  if (!name[0]) PetscFunctionReturn(PETSC_SUCCESS);
  *out = -1;
  for (PetscInt o = 0; o < nout; o++) {
    const char *oname;
    PetscBool   same;
    PetscCall(VIROMGetOutput(rom, o, &oname, NULL));
    PetscCall(PetscStrcmp(oname, name, &same));
    if (same) *out = o;
  }
  PetscCheck(*out >= 0, comm, PETSC_ERR_USER_INPUT, "-hb_output: the ROM has no output '%s'", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The case's system and harmonic balance problem on comm, set up from the options of the case. */
static PetscErrorCode VIAppHBSetUp(VIAppHBRunner *r, VIROM rom, MPI_Comm comm)
{
  PetscInt out;

  PetscFunctionBeginUser;
  PetscCall(VIAppHBOutputIndex(rom, comm, r->output, &out));
  PetscCall(VISystemCreate(comm, &r->sys));
  PetscCall(VIHBCreate(comm, &r->hb));
  PetscCall(VISystemSetROM(r->sys, rom));
  PetscCall(VISystemSetFromOptions(r->sys));
  PetscCall(VISystemSetUp(r->sys));
  PetscCall(VIHBSetSystem(r->hb, r->sys));
  PetscCall(VIHBSetFromOptions(r->hb));
  PetscCall(VIHBSetUp(r->hb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIAppHBReset(void *ctx)
{
  VIAppHBRunner *r = (VIAppHBRunner *)ctx;

  PetscFunctionBeginUser;
  PetscCall(VIHBDestroy(&r->hb));
  PetscCall(VISystemDestroy(&r->sys));
  r->wall = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A case parameter that sets a load's frequency (load_<name>_frequency) and takes several values: harmonic balance
   replaces the load's frequency by the continuation's, so the cases that differ only in it would run the same branch. */
static PetscErrorCode VIAppHBCheckFrequencyGrid(MPI_Comm comm)
{
  VICaseSet        cs;
  const PetscReal *table;
  PetscInt         ncases, np;

  PetscFunctionBeginUser;
  PetscCall(VICaseSetCreate(comm, &cs));
  PetscCall(VICaseSetSetFromOptions(cs));
  PetscCall(VICaseSetGetSize(cs, &ncases, &np));
  PetscCall(VICaseSetGetTable(cs, &table));
  for (PetscInt p = 0; p < np; p++) {
    const char *name;
    size_t      len;
    PetscBool   load, freq, varies = PETSC_FALSE;
    PetscCall(VICaseSetGetParameterName(cs, p, &name));
    PetscCall(PetscStrlen(name, &len));
    PetscCall(PetscStrncmp(name, "load_", 5, &load));
    freq = (len > 10 && !strcmp(name + len - 10, "_frequency")) ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt k = 1; k < ncases; k++)
      if (table[k * np + p] != table[p]) varies = PETSC_TRUE;
    if (load && freq && varies) {
      char pname[128];
      PetscCall(PetscStrncpy(pname, name, sizeof(pname)));
      PetscCall(VICaseSetDestroy(&cs));
      SETERRQ(comm, PETSC_ERR_USER_INPUT,
              "vicms hb: the case parameter %s takes several values (-cases_grid, -cases_values or -cases_random), but harmonic balance "
              "continues in frequency itself and replaces the load's frequency by the branch's: those cases would run the same branch. "
              "Give the frequency range with -hb_freq_range f0,f1 and vary other parameters over the cases",
              pname);
    }
  }
  PetscCall(VICaseSetDestroy(&cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stability's transient steps with leapfrog (massless boundary) or Moreau with restitution 0 (mass-carrying), the
   schemes that integrate the dynamic Lagrangian's contact law (docs/hb.md): a -step_type given for another scheme is not
   used, and the job says so once. */
static PetscErrorCode VIAppHBCheckStepType(VIROM rom, MPI_Comm comm)
{
  char        type[64];
  const char *used;
  VICMSType   method;
  PetscBool   set, massless, same;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-step_type", type, sizeof(type), &set));
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIROMGetMethod(rom, &method, &massless));
  used = massless ? "leapfrog" : "moreau";
  PetscCall(PetscStrcmp(type, used, &same));
  if (!same)
    PetscCall(PetscPrintf(comm,
                          "vicms hb: warning: -step_type %s is not used: harmonic balance steps in time only for the stability's transient, "
                          "which uses %s (the ROM's boundary is %s; the transient supports leapfrog on a massless boundary and moreau with "
                          "restitution 0 on a mass-carrying one)\n",
                          type, massless ? "leapfrog" : "moreau with restitution 0", massless ? "massless" : "mass-carrying"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIAppHBCheck(void *ctx, VIROM rom, MPI_Comm comm)
{
  PetscFunctionBeginUser;
  PetscCall(VIAppHBCheckFrequencyGrid(comm));
  PetscCall(VIAppHBSetUp((VIAppHBRunner *)ctx, rom, comm));
  PetscCall(VIAppHBReset(ctx));
  PetscCall(VIAppHBCheckStepType(rom, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* At every point boundary of the continuation: a stop (SIGTERM, SIGUSR1, SIGINT) or a periodic checkpoint, and the
   progress of a job of one branch. */
static PetscErrorCode VIAppHBMonitor(VIHB hb, PetscInt np, PetscReal f, void *ctx)
{
  VIAppHBRunner *r = (VIAppHBRunner *)ctx;
  char           progress[96];
  PetscBool      stop;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(progress, sizeof(progress), "point %" PetscInt_FMT " at %g Hz", np, (double)f));
  PetscCall(VIEnsembleCasePoll(r->ens, progress, &stop));
  if (stop) PetscCall(VIHBStop(hb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIAppHBCheckpoint(void *ctx, const char path[], const char tag[])
{
  PetscFunctionBeginUser;
  PetscCall(VIHBCheckpointWrite(((VIAppHBRunner *)ctx)->hb, path, tag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIAppHBRestore(void *ctx, const char path[], const char tag[], PetscBool *restored, PetscReal *f, char why[], size_t len)
{
  VIAppHBRunner    *r = (VIAppHBRunner *)ctx;
  const VIHBBranch *br;

  PetscFunctionBeginUser;
  PetscCall(VIHBCheckpointRead(r->hb, path, tag, restored, why, len));
  PetscCall(VIHBGetBranch(r->hb, &br));
  *f = *restored ? br->frequency_hz[br->np - 1] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIAppHBRun(void *ctx, VIROM rom, MPI_Comm group, PetscBool verbose, VICaseOutcome *out)
{
  VIAppHBRunner    *r = (VIAppHBRunner *)ctx;
  const VIHBBranch *br;
  PetscInt          o, c = 0;

  PetscFunctionBeginUser;
  PetscCall(VIAppHBSetUp(r, rom, group));
  PetscCall(VIHBSetMonitor(r->hb, VIAppHBMonitor, r));
  PetscCall(VIEnsembleCaseRestore(r->ens));
  PetscCall(VIHBContinue(r->hb));
  PetscCall(VIHBGetBranch(r->hb, &br));
  r->wall = br->wall_time;
  if (br->stopped) { /* to be continued from its checkpoint */
    out->stopped      = PETSC_TRUE;
    out->stopped_time = br->frequency_hz[br->np - 1];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VIAppHBOutputIndex(rom, group, r->output, &o));
  if (verbose) PetscCall(VIHBPrintBranch(r->hb, o));
  for (PetscInt i = 0; i < br->nout; i++) {
    PetscInt kmax = 0;
    for (PetscInt k = 1; k < br->np; k++)
      if (br->amplitude[k * br->nout + i] > br->amplitude[kmax * br->nout + i]) kmax = k;
    out->quantities[c++] = br->np ? br->amplitude[kmax * br->nout + i] : (PetscReal)NAN;
    out->quantities[c++] = br->np ? br->frequency_hz[kmax] : (PetscReal)NAN;
  }
  out->quantities[c]     = (PetscReal)br->np;
  out->quantities[c + 1] = out->quantities[c + 2] = out->quantities[c + 3] = 0;
  for (PetscInt k = 0; k < br->np; k++) {
    if (br->kind[k] & VI_HB_POINT_TURNING) out->quantities[c + 1] += 1;
    if (br->stable[k] == 0) out->quantities[c + 2] += 1;
    for (PetscInt j = 0; j < br->nc; j++) out->quantities[c + 3] = PetscMax(out->quantities[c + 3], br->force_max[k * br->nc + j]);
  }
  if (br->failed) {
    out->failed = PETSC_TRUE;
    PetscCall(PetscStrncpy(out->message, br->message, sizeof(out->message)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The branch (complete or as far as it went) under the case's group. */
static PetscErrorCode VIAppHBWrite(void *ctx, VIROM rom, const VICaseOutcome *out, hid_t file, const char group[])
{
  VIAppHBRunner    *r = (VIAppHBRunner *)ctx;
  const VIHBBranch *br;

  PetscFunctionBeginUser;
  (void)rom;
  if (out->error || !r->hb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIHBGetBranch(r->hb, &br));
  PetscCall(VIHBWriteBranch(r->hb, file, group));
  PetscCall(VIH5WriteAttrInt(file, group, "steps", br->np));
  PetscCall(VIH5WriteAttrReal(file, group, "wall_time", r->wall));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A job of one case keeps the layout of a single branch: its branch also under summary/hb. */
static PetscErrorCode VIAppHBSummary(void *ctx, hid_t file, PetscInt ncases, const PetscInt status[])
{
  PetscBool has, copied;

  PetscFunctionBeginUser;
  (void)ctx;
  if (ncases != 1 || !status[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIH5Exists(file, "/cases/0/frequency_hz", &has));
  PetscCall(VIH5Exists(file, "/summary/hb", &copied)); /* by an earlier merge: the case does not change */
  if (has && !copied) PetscCall(VIH5Copy(file, "/cases/0", file, "/summary/hb"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options of a case (-help). */
static PetscErrorCode VIAppHBHelp(MPI_Comm comm)
{
  VISystem       sys;
  VIHB           hb;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(VISystemCreate(comm, &sys));
  PetscCall(VIHBCreate(comm, &hb));
  ierr = VISystemSetFromOptions(sys);
  if (!ierr) ierr = VIHBSetFromOptions(hb);
  PetscCall(VIHBDestroy(&hb));
  PetscCall(VISystemDestroy(&sys));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIAppHBEnsembleCreate(MPI_Comm comm, VIAppHBRunner *r, VIEnsemble *ens, char rom_file[], size_t len)
{
  VICaseRunner runner = {.kind           = "hb",
                         .ctx            = r,
                         .quantity_names = VIAppHBQuantityNames,
                         .check          = VIAppHBCheck,
                         .run            = VIAppHBRun,
                         .write          = VIAppHBWrite,
                         .summary        = VIAppHBSummary,
                         .reset          = VIAppHBReset,
                         .checkpoint     = VIAppHBCheckpoint,
                         .restore        = VIAppHBRestore,
                         .position_name  = "f",
                         .position_unit  = " Hz"};

  PetscFunctionBeginUser;
  PetscCall(VIEnsembleCreate(comm, ens));
  r->ens = *ens;
  PetscCall(VIEnsembleSetCaseRunner(*ens, &runner));
  PetscOptionsBegin(comm, NULL, "vicms hb", "");
  PetscCall(PetscOptionsString("-rom_file", "ROM file (from vicms reduce)", "", rom_file, rom_file, len, NULL));
  PetscCall(
      PetscOptionsString("-hb_output", "ROM output of the printed table (default: the first)", "", r->output, r->output, sizeof(r->output), NULL));
  PetscOptionsEnd();
  PetscCall(VIEnsembleSetFromOptions(*ens));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppHB(MPI_Comm comm)
{
  VIROM          rom                          = NULL;
  VIEnsemble     ens                          = NULL;
  VIAppHBRunner  runner                       = {{0}, NULL, NULL, NULL, 0};
  char           rom_file[PETSC_MAX_PATH_LEN] = "rom.h5";
  PetscBool      help;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(VIROMCreate(comm, &rom));
  /* the ensemble goes on every path, errors included: it holds the results file's lock */
  ierr = VIAppHBEnsembleCreate(comm, &runner, &ens, rom_file, sizeof(rom_file));
  if (!ierr) ierr = PetscOptionsHasHelp(NULL, &help);
  if (!ierr) ierr = help ? VIAppHBHelp(comm) : VIAppRunEnsemble(ens, rom, rom_file, "Harmonic balance");
  if (!ierr && !help) ierr = VIEnsembleCheckAllFailed(ens, "branch");
  PetscCall(VIEnsembleDestroy(&ens));
  PetscCall(VIAppHBReset(&runner));
  PetscCall(VIROMDestroy(&rom));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
