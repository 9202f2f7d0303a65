/* `vicms reduce`: parent model -> component mode synthesis -> ROM file. */
#include "app.h"

PetscErrorCode VIAppReduce(MPI_Comm comm)
{
  VIMesh         mesh;
  VIModel        model;
  VICMS          cms;
  VIROM          rom;
  char           file[PETSC_MAX_PATH_LEN] = "rom.h5";
  PetscBool      help;
  PetscLogStage  stage_model, stage_reduce, stage_output;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister("Parent model", &stage_model));
  PetscCall(PetscLogStageRegister("Reduction", &stage_reduce));
  PetscCall(PetscLogStageRegister("ROM output", &stage_output));
  PetscCall(VIMeshCreate(comm, &mesh));
  PetscCall(VIModelCreate(comm, &model));
  PetscCall(VICMSCreate(comm, &cms));
  PetscCall(VIROMCreate(comm, &rom));
  PetscCall(VIModelSetMesh(model, mesh));
  PetscCall(VICMSSetModel(cms, model));
  PetscCall(VIMeshSetFromOptions(mesh));
  PetscCall(VIModelSetFromOptions(model));
  PetscCall(VICMSSetFromOptions(cms));
  PetscOptionsBegin(comm, NULL, "vicms reduce", "");
  PetscCall(PetscOptionsString("-rom_file", "Where the ROM goes", "", file, file, sizeof(file), NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (!help) {
    PetscCall(PetscTime(&t0));
    PetscCall(PetscLogStagePush(stage_model));
    PetscCall(VIMeshSetUp(mesh));
    PetscCall(VIMeshView(mesh, NULL));
    PetscCall(VIModelSetUp(model));
    PetscCall(PetscLogStagePop());
    PetscCall(VIModelView(model, NULL));
    PetscCall(PetscLogStagePush(stage_reduce));
    PetscCall(VICMSReduce(cms, rom));
    PetscCall(PetscLogStagePop());
    PetscCall(PetscLogStagePush(stage_output));
    PetscCall(VIROMValidate(rom, file));
    PetscCall(VIROMWrite(rom, file));
    PetscCall(PetscLogStagePop());
    PetscCall(VIROMView(rom, NULL));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscPrintf(comm, "Wrote %s in %.2f s\n", file, (double)(t1 - t0)));
  }
  PetscCall(VIROMDestroy(&rom));
  PetscCall(VICMSDestroy(&cms));
  PetscCall(VIModelDestroy(&model));
  PetscCall(VIMeshDestroy(&mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
