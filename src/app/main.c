/* vicms: command dispatch, initialization, and an exit status that every rank agrees on. */
#include "app.h"
#include <slepcsys.h>
#include <unistd.h>

static const char usage[] =
    "vicms " VICMS_VERSION " - vibro-impact component mode synthesis\n"
    "\n"
    "usage: [mpirun -n N] vicms COMMAND [-options_file job.yaml] [-option value ...]\n"
    "\n"
    "commands:\n"
    "  info       what is inside a vicms HDF5 file: vicms info FILE.h5 (a ROM, modes or results file; or -file FILE.h5)\n"
    "  modes      lowest natural frequencies and mode shapes of the parent model (-modes_num, -modes_file)\n"
    "  reduce     component mode synthesis of the parent model into a ROM file (-cms_type, -cms_num_modes, -rom_file)\n"
    "  simulate   the contact cases of a job on a ROM (one case, or grids, sweeps, samples with -cases_*) on groups of ranks:\n"
    "             nonsmooth time stepping -> results file (-rom_file, -step_type, -step_dt, -results_file, -cases_group_size)\n"
    "  run        reduce, then simulate, in one job\n"
    "  version    print the version\n"
    "\n"
    "Every setting is a PETSc option; `vicms COMMAND -help` lists the options of that command with their defaults.\n";

typedef struct {
  const char *name;
  PetscErrorCode (*run)(MPI_Comm);
} VICommand;

static const VICommand commands[] = {
    {"info", VIAppInfo}, {"modes", VIAppModes}, {"reduce", VIAppReduce}, {"simulate", VIAppSimulate}, {"run", VIAppRun}};

const char *VIAppArgument = NULL;

/* All ranks agree on success (0), a stop on a signal with work left (1) or failure (2); a rank that never arrives (stuck
   after a one-sided failure) ends the job. */
static int VIAgreeExit(int failed)
{
  int         any = failed, done = 0;
  MPI_Request req;

  MPI_Iallreduce(&failed, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD, &req);
  for (int t = 0; t < 3000 && !done; t++) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) usleep(10000);
  }
  if (!done) MPI_Abort(PETSC_COMM_WORLD, 1);
  return any;
}

int main(int argc, char **argv)
{
  const char    *cmd = NULL;
  PetscErrorCode ierr;
  int            failed;

  /* the command is the first argument that is not an option; it is removed before PETSc reads the options */
  if (argc > 1 && argv[1][0] != '-') {
    cmd = argv[1];
    for (int i = 1; i < argc - 1; i++) argv[i] = argv[i + 1];
    argc--;
  }
  /* a word right after the command (`vicms info rom.h5`) is the command's argument, also kept from PETSc */
  if (cmd && argc > 1 && argv[1][0] != '-') {
    VIAppArgument = argv[1];
    for (int i = 1; i < argc - 1; i++) argv[i] = argv[i + 1];
    argc--;
  }
  /* MPI is initialized here rather than by PETSc, so that it is finalized after PETSc, with vicms's signal handlers in
     place: once a rank has exited mpirun sends SIGTERM to those still finalizing, and a stopped job must exit
     VI_EXIT_RESUMABLE on every rank */
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  PetscCall(SlepcInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscPushErrorHandler(VIErrorHandler, NULL));
  PetscCall(VISignalInstall());
  if (!cmd || !strcmp(cmd, "help")) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", usage));
    ierr = cmd ? PETSC_SUCCESS : PETSC_ERR_USER_INPUT;
  } else if (!strcmp(cmd, "version")) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "vicms %s\n", VICMS_VERSION));
    ierr = PETSC_SUCCESS;
  } else {
    const VICommand *c = NULL;
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
      if (!strcmp(cmd, commands[i].name)) c = &commands[i];
    if (c)
      ierr = c->run(PETSC_COMM_WORLD);
    else {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "vicms: error: unknown command '%s'\n\n%s", cmd, usage));
      ierr = PETSC_ERR_USER_INPUT;
    }
  }
  failed = VIAgreeExit(ierr ? 2 : VIGetStopped() ? 1 : 0);
  PetscCall(PetscPopErrorHandler());
  if (SlepcFinalize()) return 1;
  VISignalKeep();
  MPI_Finalize();
  return failed == 2 ? 1 : failed == 1 ? VI_EXIT_RESUMABLE : 0;
}
