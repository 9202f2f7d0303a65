/* `vicms simulate`: the contact cases of a job on a ROM file -> results file; `vicms run`: reduce, then simulate. */
#include "app.h"

PetscErrorCode VIAppSimulate(MPI_Comm comm)
{
  VIROM         rom;
  VIEnsemble    ens;
  char          rom_file[PETSC_MAX_PATH_LEN] = "rom.h5";
  PetscBool     help;
  PetscLogStage stage_load, stage_run;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister("ROM load", &stage_load));
  PetscCall(PetscLogStageRegister("Cases", &stage_run));
  PetscCall(VIROMCreate(comm, &rom));
  PetscCall(VIEnsembleCreate(comm, &ens));
  PetscCall(VIEnsembleSetROM(ens, rom));
  PetscOptionsBegin(comm, NULL, "vicms simulate", "");
  PetscCall(PetscOptionsString("-rom_file", "ROM file (from vicms reduce)", "", rom_file, rom_file, sizeof(rom_file), NULL));
  PetscOptionsEnd();
  PetscCall(VIEnsembleSetFromOptions(ens));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    /* list the options of a case too */
    VISystem  sys;
    VIStepper st;
    PetscCall(VISystemCreate(comm, &sys));
    PetscCall(VIStepperCreate(comm, &st));
    PetscCall(VISystemSetFromOptions(sys));
    PetscCall(VIStepperSetFromOptions(st));
    PetscCall(VIStepperDestroy(&st));
    PetscCall(VISystemDestroy(&sys));
  } else {
    PetscCall(PetscLogStagePush(stage_load));
    PetscCall(VIROMLoad(rom, rom_file));
    PetscCall(PetscLogStagePop());
    PetscCall(PetscLogStagePush(stage_run));
    PetscCall(VIEnsembleRun(ens));
    PetscCall(PetscLogStagePop());
  }
  PetscCall(VIEnsembleDestroy(&ens));
  PetscCall(VIROMDestroy(&rom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppRun(MPI_Comm comm)
{
  PetscFunctionBeginUser;
  PetscCall(VIAppReduce(comm));
  PetscCall(VIAppSimulate(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
