/* `vicms hb`: the harmonic balance branch of a job's case on a ROM file -> results file (summary/hb). */
#include "app.h"
#include <vicms/hb.h>
#include <stdio.h>

/* Write the results file of one branch: the results format with one case, its branch under summary/hb. Rank-local. */
static PetscErrorCode VIAppHBWriteOpen(hid_t file, VIHB hb, VIROM rom, PetscLogDouble wall)
{
  const VIHBBranch *br;
  const char       *units, *msg[1];
  char             *all;
  PetscReal         zero = 0;
  PetscInt          status;

  PetscFunctionBeginUser;
  PetscCall(VIHBGetBranch(hb, &br));
  status = br->failed ? 2 : 1;
  msg[0] = br->message;
  PetscCall(VIROMGetUnits(rom, &units));
  PetscCall(VIH5WriteAttrString(file, "/", "format", "vicms-results"));
  PetscCall(VIH5WriteAttrString(file, "/", "version", VICMS_VERSION));
  PetscCall(VIH5WriteAttrString(file, "/", "kind", "hb"));
  PetscCall(PetscOptionsGetAll(NULL, &all));
  PetscCall(VIH5WriteAttrString(file, "/", "options", all));
  PetscCall(PetscFree(all));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_cases", 1));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_done", status == 1));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_failed", status == 2));
  PetscCall(VIH5WriteAttrString(file, "/", "units", units ? units : ""));
  PetscCall(VIH5WriteReal(file, "/cases/parameters", 1, 1, &zero));
  PetscCall(VIH5WriteAttrString(file, "/cases/parameters", "columns", "case"));
  PetscCall(VIH5WriteInt(file, "/cases/status", 1, 0, &status));
  PetscCall(VIH5WriteAttrString(file, "/cases/status", "values", "pending,done,failed"));
  PetscCall(VIH5WriteStrings(file, "/cases/message", 1, msg));
  PetscCall(VIH5WriteReal(file, "/cases/wall_time", 1, 0, &wall));
  PetscCall(VIH5CreateGroup(file, "/cases/0"));
  PetscCall(VIH5WriteAttrString(file, "/cases/0", "message", br->message));
  PetscCall(VIH5WriteAttrReal(file, "/cases/0", "wall_time", wall));
  PetscCall(VIHBWriteBranch(hb, file, "/summary/hb"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIAppHBWrite(MPI_Comm comm, const char path[], VIHB hb, VIROM rom, PetscLogDouble wall)
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;
  int            failed;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char  part[PETSC_MAX_PATH_LEN + 8];
    hid_t file;
    PetscCall(PetscSNPrintf(part, sizeof(part), "%s.part", path));
    ierr = VIH5Create(part, &file);
    if (!ierr) {
      ierr = VIAppHBWriteOpen(file, hb, rom, wall);
      PetscCall(VIH5Close(&file));
    }
    if (!ierr && rename(part, path)) ierr = PETSC_ERR_FILE_WRITE;
  }
  failed = ierr ? 1 : 0;
  PetscCallMPI(MPI_Bcast(&failed, 1, MPI_INT, 0, comm));
  PetscCheck(!failed, comm, PETSC_ERR_FILE_WRITE, "vicms hb: could not write the results file %s", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIAppHBRun(MPI_Comm comm, VIROM rom, VISystem sys, VIHB hb, const char rom_file[], const char results[], const char output[])
{
  const VIHBBranch *br;
  PetscLogDouble    t0, t1;
  PetscInt          out = 0, nout;
  PetscLogStage     stage;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister("Harmonic balance", &stage));
  PetscCall(VIROMLoad(rom, rom_file));
  PetscCall(VISystemSetROM(sys, rom));
  PetscCall(VISystemSetFromOptions(sys));
  PetscCall(VISystemSetUp(sys));
  PetscCall(VIHBSetSystem(hb, sys));
  PetscCall(VIHBSetFromOptions(hb));
  PetscCall(VIHBSetUp(hb));
  PetscCall(VIROMGetNumOutputs(rom, &nout));
  if (output[0]) {
    out = -1;
    for (PetscInt o = 0; o < nout; o++) {
      const char *name;
      PetscBool   same;
      PetscCall(VIROMGetOutput(rom, o, &name, NULL));
      PetscCall(PetscStrcmp(name, output, &same));
      if (same) out = o;
    }
    PetscCheck(out >= 0, comm, PETSC_ERR_USER_INPUT, "-hb_output: the ROM %s has no output '%s'", rom_file, output);
  }
  PetscCall(PetscLogStagePush(stage));
  PetscCall(PetscTime(&t0));
  PetscCall(VIHBContinue(hb));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogStagePop());
  PetscCall(VIHBPrintBranch(hb, nout ? out : -1));
  PetscCall(VIAppHBWrite(comm, results, hb, rom, t1 - t0));
  PetscCall(VIHBGetBranch(hb, &br));
  PetscCall(PetscPrintf(comm, "Wrote %s (summary/hb: %" PetscInt_FMT " points) in %.2f s\n", results, br->np, (double)(t1 - t0)));
  PetscCheck(!br->failed, comm, PETSC_ERR_NOT_CONVERGED, "vicms hb: %s", br->message);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppHB(MPI_Comm comm)
{
  VIROM          rom                          = NULL;
  VISystem       sys                          = NULL;
  VIHB           hb                           = NULL;
  char           rom_file[PETSC_MAX_PATH_LEN] = "rom.h5", results[PETSC_MAX_PATH_LEN] = "results.h5", output[128] = "";
  PetscBool      help;
  PetscErrorCode ierr;
  const char    *sets[] = {"-cases_grid", "-cases_values", "-cases_sweep", "-cases_random", "-cases_samples"};

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "vicms hb", "");
  PetscCall(PetscOptionsString("-rom_file", "ROM file (from vicms reduce)", "", rom_file, rom_file, sizeof(rom_file), NULL));
  PetscCall(PetscOptionsString("-results_file", "Results file of the branch", "", results, results, sizeof(results), NULL));
  PetscCall(PetscOptionsString("-hb_output", "ROM output of the printed table (default: the first)", "", output, output, sizeof(output), NULL));
  PetscOptionsEnd();
  for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
    PetscBool has;
    PetscCall(PetscOptionsHasName(NULL, NULL, sets[i], &has));
    PetscCheck(!has, comm, PETSC_ERR_SUP, "vicms hb: %s: case sets are not supported by harmonic balance yet (one continuation per job)", sets[i]);
  }
  PetscCall(VIROMCreate(comm, &rom));
  PetscCall(VISystemCreate(comm, &sys));
  PetscCall(VIHBCreate(comm, &hb));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    ierr = VISystemSetFromOptions(sys);
    if (!ierr) ierr = VIHBSetFromOptions(hb);
  } else
    ierr = VIAppHBRun(comm, rom, sys, hb, rom_file, results, output);
  PetscCall(VIHBDestroy(&hb));
  PetscCall(VISystemDestroy(&sys));
  PetscCall(VIROMDestroy(&rom));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
