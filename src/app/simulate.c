/* `vicms simulate`: one contact case on a ROM file -> results file. */
#include "app.h"

PetscErrorCode VIAppSimulate(MPI_Comm comm)
{
  VIROM          rom;
  VISystem       sys;
  VIStepper      st;
  char           rom_file[PETSC_MAX_PATH_LEN] = "rom.h5", results_file[PETSC_MAX_PATH_LEN] = "results.h5";
  PetscBool      help;
  PetscMPIInt    rank;
  PetscLogStage  stage_load, stage_run, stage_output;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscLogStageRegister("ROM load", &stage_load));
  PetscCall(PetscLogStageRegister("Time stepping", &stage_run));
  PetscCall(PetscLogStageRegister("Results output", &stage_output));
  PetscCall(VIROMCreate(comm, &rom));
  PetscCall(VISystemCreate(comm, &sys));
  PetscCall(VIStepperCreate(comm, &st));
  PetscCall(VISystemSetROM(sys, rom));
  PetscCall(VIStepperSetSystem(st, sys));
  PetscOptionsBegin(comm, NULL, "vicms simulate", "");
  PetscCall(PetscOptionsString("-rom_file", "ROM file (from vicms reduce)", "", rom_file, rom_file, sizeof(rom_file), NULL));
  PetscCall(PetscOptionsString("-results_file", "Where the results go", "", results_file, results_file, sizeof(results_file), NULL));
  PetscOptionsEnd();
  PetscCall(VISystemSetFromOptions(sys));
  PetscCall(VIStepperSetFromOptions(st));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (!help) {
    PetscInt         nt, nout, nc;
    const PetscReal *t, *y, *g, *lam, *e;
    VIStepStats      stats;

    PetscCall(PetscLogStagePush(stage_load));
    PetscCall(VIROMLoad(rom, rom_file));
    PetscCall(PetscLogStagePop());
    PetscCall(PetscLogStagePush(stage_run));
    PetscCall(VIStepperSetUp(st));
    PetscCall(VISystemView(sys, NULL));
    PetscCall(VIStepperRun(st));
    PetscCall(PetscLogStagePop());
    PetscCall(VIStepperView(st, NULL));
    PetscCall(VIStepperGetStats(st, &stats));
    PetscCall(VIStepperGetSeries(st, &nt, &t, &y, &g, &lam, &e));
    PetscCall(VIROMGetNumOutputs(rom, &nout));
    PetscCall(VIROMGetContacts(rom, &nc, NULL));
    PetscCall(PetscLogStagePush(stage_output));
    if (rank == 0) {
      /* one rank writes: the case runs replicated on the communicator */
      const char *columns[4] = {"step_dt", "step_end_time", "contact_mu", "contact_gap"};
      PetscReal   params[4];
      const char *names[256];
      hid_t       file = -1;
      PetscCall(VIStepperGetTimeStep(st, &params[0], &params[1]));
      PetscCall(VISystemGetContactParameters(sys, &params[2], &params[3]));
      for (PetscInt o = 0; o < PetscMin(nout, 256); o++) PetscCall(VIROMGetOutput(rom, o, &names[o], NULL));
      ierr = VIResultsCreate(results_file, 1, 4, columns, params, &file);
      if (!ierr)
        ierr = VIResultsWriteCase(file, 0, nt, t, PetscMin(nout, 256), names, y, nc, g, lam, e, stats.unstable, stats.message, stats.steps,
                                  stats.wall_time, stats.contact_solves ? (PetscReal)stats.contact_iterations / stats.contact_solves : 0,
                                  stats.contact_iterations_max, stats.nonconverged);
      if (file >= 0) PetscCall(VIH5Close(&file));
    }
    PetscCall(VIErrorSync(comm, ierr));
    PetscCall(PetscLogStagePop());
    PetscCall(
        PetscPrintf(comm, "Wrote %s (%" PetscInt_FMT " time levels)%s\n", results_file, nt, stats.unstable ? "; the case is marked failed" : ""));
  }
  PetscCall(VIStepperDestroy(&st));
  PetscCall(VISystemDestroy(&sys));
  PetscCall(VIROMDestroy(&rom));
  PetscFunctionReturn(PETSC_SUCCESS);
}
