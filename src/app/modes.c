/* `vicms modes`: natural frequencies and mode shapes of the parent model. */
#include "app.h"

PetscErrorCode VIAppModes(MPI_Comm comm)
{
  VIMesh         mesh;
  VIModel        model;
  VIModal        modal;
  char           file[PETSC_MAX_PATH_LEN] = "modes.h5";
  PetscBool      help, write = PETSC_TRUE;
  PetscLogStage  stage_mesh, stage_assembly, stage_solve, stage_output;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister("Mesh", &stage_mesh));
  PetscCall(PetscLogStageRegister("Assembly", &stage_assembly));
  PetscCall(PetscLogStageRegister("Modal solve", &stage_solve));
  PetscCall(PetscLogStageRegister("Output", &stage_output));
  PetscCall(VIMeshCreate(comm, &mesh));
  PetscCall(VIModelCreate(comm, &model));
  PetscCall(VIModalCreate(comm, &modal));
  PetscCall(VIModelSetMesh(model, mesh));
  PetscCall(VIModalSetModel(modal, model));
  PetscCall(VIMeshSetFromOptions(mesh));
  PetscCall(VIModelSetFromOptions(model));
  PetscCall(VIModalSetFromOptions(modal));
  PetscOptionsBegin(comm, NULL, "vicms modes", "");
  PetscCall(PetscOptionsString("-modes_file", "HDF5 file for frequencies and mode shapes (an .xmf for ParaView is written beside it)", "", file, file,
                               sizeof(file), NULL));
  PetscCall(PetscOptionsBool("-modes_write", "Write the modes file", "", write, &write, NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (!help) {
    PetscCall(PetscTime(&t0));
    PetscCall(PetscLogStagePush(stage_mesh));
    PetscCall(VIMeshSetUp(mesh));
    PetscCall(PetscLogStagePop());
    PetscCall(VIMeshView(mesh, NULL));
    PetscCall(PetscLogStagePush(stage_assembly));
    PetscCall(VIModelSetUp(model));
    PetscCall(PetscLogStagePop());
    PetscCall(VIModelView(model, NULL));
    PetscCall(PetscLogStagePush(stage_solve));
    PetscCall(VIModalSolve(modal));
    PetscCall(PetscLogStagePop());
    PetscCall(VIModalView(modal, NULL));
    if (write) {
      PetscCall(PetscLogStagePush(stage_output));
      PetscCall(VIModalWrite(modal, file));
      PetscCall(PetscLogStagePop());
      PetscCall(PetscPrintf(comm, "Wrote %s (frequencies_hz, mode shapes) and its .xmf for ParaView\n", file));
    }
    PetscCall(PetscTime(&t1));
    PetscCall(PetscPrintf(comm, "Done in %.2f s\n", (double)(t1 - t0)));
  }
  PetscCall(VIModalDestroy(&modal));
  PetscCall(VIModelDestroy(&model));
  PetscCall(VIMeshDestroy(&mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
