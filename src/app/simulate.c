/* `vicms simulate`: the contact cases of a job on a ROM file -> results file; `vicms run`: reduce, then simulate. */
#include "app.h"

/* List the options of a case (-help). */
static PetscErrorCode VIAppSimulateHelp(MPI_Comm comm)
{
  VISystem  sys;
  VIStepper st;

  PetscFunctionBeginUser;
  PetscCall(VISystemCreate(comm, &sys));
  PetscCall(VIStepperCreate(comm, &st));
  PetscCall(VISystemSetFromOptions(sys));
  PetscCall(VIStepperSetFromOptions(st));
  PetscCall(VIStepperDestroy(&st));
  PetscCall(VISystemDestroy(&sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Load the ROM and run the ensemble's cases on it, the two in log stages "ROM load" and run_stage. */
PetscErrorCode VIAppRunEnsemble(VIEnsemble ens, VIROM rom, const char rom_file[], const char run_stage[])
{
  PetscLogStage stage_load, stage_run;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister("ROM load", &stage_load));
  PetscCall(PetscLogStageRegister(run_stage, &stage_run));
  PetscCall(PetscLogStagePush(stage_load));
  {
    /* a multibody case has no ROM file: the ensemble's records take the model's ROM view (its outputs, contacts, units) */
    char      type[64] = VISYSTEMREDUCED, model[PETSC_MAX_PATH_LEN] = "";
    PetscBool multibody;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-system_type", type, sizeof(type), NULL));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-mb_model", model, sizeof(model), NULL));
    PetscCall(PetscStrcmp(type, VISYSTEMMULTIBODY, &multibody));
    if (multibody) {
      PetscCheck(model[0], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
                 "-system_type multibody needs its model file: -mb_model FILE.yaml (docs/multibody.md)");
      PetscCall(VISystemMultibodyModelROM(PETSC_COMM_WORLD, model, rom));
    } else PetscCall(VIROMLoad(rom, rom_file));
  }
  PetscCall(PetscLogStagePop());
  PetscCall(VIEnsembleSetROM(ens, rom));
  PetscCall(PetscLogStagePush(stage_run));
  PetscCall(VIEnsembleRun(ens));
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ensemble, its options and the ROM file's name. */
static PetscErrorCode VIAppEnsembleCreate(MPI_Comm comm, VIEnsemble *ens, char rom_file[], size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(VIEnsembleCreate(comm, ens));
  PetscOptionsBegin(comm, NULL, "vicms simulate", "");
  PetscCall(PetscOptionsString("-rom_file", "ROM file (from vicms reduce)", "", rom_file, rom_file, len, NULL));
  PetscOptionsEnd();
  PetscCall(VIEnsembleSetFromOptions(*ens));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppSimulate(MPI_Comm comm)
{
  VIROM          rom                          = NULL;
  VIEnsemble     ens                          = NULL;
  char           rom_file[PETSC_MAX_PATH_LEN] = "rom.h5";
  PetscBool      help;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(VIROMCreate(comm, &rom));
  /* the ensemble goes on every path, errors included: it holds the results file's lock */
  ierr = VIAppEnsembleCreate(comm, &ens, rom_file, sizeof(rom_file));
  if (!ierr) ierr = PetscOptionsHasHelp(NULL, &help);
  if (!ierr) ierr = help ? VIAppSimulateHelp(comm) : VIAppRunEnsemble(ens, rom, rom_file, "Cases");
  if (!ierr && !help) ierr = VIEnsembleCheckAllFailed(ens, "case");
  PetscCall(VIEnsembleDestroy(&ens));
  PetscCall(VIROMDestroy(&rom));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* `vicms run` with the results file locked: the job check first, then a reduction unless the ROM file was made by the
   same one (a ROM that results depend on is never overwritten), then the cases. */
static PetscErrorCode VIAppRunLocked(MPI_Comm comm, VIEnsemble ens, VIROM rom, const char rom_file[])
{
  char          *reduction = NULL;
  PetscBool      reuse     = PETSC_FALSE;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(VIAppReductionFingerprint(comm, &reduction));
  ierr = VIEnsembleCheckReduction(ens, rom_file, reduction, &reuse);
  PetscCall(PetscFree(reduction));
  PetscCall(ierr);
  if (reuse)
    PetscCall(PetscPrintf(comm, "Using the existing ROM %s (same reduction)\n", rom_file));
  else
    PetscCall(VIAppReduce(comm));
  PetscCall(VIAppRunEnsemble(ens, rom, rom_file, "Cases"));
  PetscCall(VIEnsembleCheckAllFailed(ens, "case"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppRun(MPI_Comm comm)
{
  VIROM          rom                          = NULL;
  VIEnsemble     ens                          = NULL;
  char           rom_file[PETSC_MAX_PATH_LEN] = "rom.h5";
  PetscBool      help;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscCall(VIAppReduce(comm));
    PetscCall(VIAppSimulate(comm));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VIROMCreate(comm, &rom));
  ierr = VIAppEnsembleCreate(comm, &ens, rom_file, sizeof(rom_file));
  if (!ierr) ierr = VIEnsembleLock(ens);
  if (!ierr) ierr = VIAppRunLocked(comm, ens, rom, rom_file);
  PetscCall(VIEnsembleDestroy(&ens));
  PetscCall(VIROMDestroy(&rom));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
