/* vicms: command dispatch, initialization, and an exit status that every rank agrees on. */
#include "app.h"
#include <slepcsys.h>
#include <stdio.h>
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
    "  hb         harmonic balance: the periodic responses of each case of a job over a frequency range (pseudo-arclength\n"
    "             continuation, stability), one branch per case on groups of ranks -> results file (-hb_freq_range, -cases_*)\n"
    "  cea        stability (complex eigenvalues) and time-dependent FRF of sliding bodies along the path (seed 003):\n"
    "             a bodies file -> results file (-rom_file, -cea_slave, -cea_master, -coupling_mu, -cea_positions, -cea_file)\n"
    "  slide      the transient of sliding bodies (dual assembly, seed 003): drive, preload, random force at the contact ->\n"
    "             history file (-rom_file, -slide_slave, -slide_master, -slide_drive, -slide_end_time, -dual_mu, -slide_file)\n"
    "  fields     the parent's displacements recovered from a results case on the nodes the ROM keeps (-cms_fields):\n"
    "             an XDMF + HDF5 time series for ParaView (-rom_file, -results_file, -fields_case, -fields_file)\n"
    "  version    print the version\n"
    "\n"
    "Every setting is a PETSc option; `vicms COMMAND -help` lists the options of that command with their defaults\n"
    "(`-help all` adds PETSc's, SLEPc's and MUMPS's). An unknown option, a misspelt one or a bad value stops the job before\n"
    "it starts; a job file (-options_file job.yaml) holds flat `key: value` lines for every command.\n";

typedef struct {
  const char *name;
  PetscErrorCode (*run)(MPI_Comm);
} VICommand;

static const VICommand commands[] = {{"info", VIAppInfo},         {"modes", VIAppModes}, {"reduce", VIAppReduce},
                                     {"simulate", VIAppSimulate}, {"run", VIAppRun},     {"hb", VIAppHB},
                                     {"cea", VIAppCEA},           {"slide", VIAppSlide}, {"fields", VIAppFields}};

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

/* Check every job file given with -options_file (or -options_file_yaml) before PETSc reads it. Rank 0 looks at the files
   and tells the others its verdict: PETSc reads them on rank 0 only, and a FIFO or /dev/zero must not block every rank.
   Returns nonzero on a bad file, on every rank alike; rank 0 tells what is wrong. */
static int VIAppCheckJobFiles(int argc, char **argv)
{
  int  rank = 0;
  char message[2048];

  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  message[0] = 0;
  for (int i = 1; rank == 0 && i < argc && !message[0]; i++) {
    if (strcmp(argv[i], "-options_file") && strcmp(argv[i], "-options_file_yaml")) continue;
    if (i + 1 >= argc || argv[i + 1][0] == '-')
      snprintf(message, sizeof(message), "%s: no file given; expected %s FILE (a job file, e.g. jobs/bar_bounce.yaml)", argv[i], argv[i]);
    else
      (void)VIOptionsCheckJobFile(argv[i], argv[i + 1], message, sizeof(message));
  }
  MPI_Bcast(message, (int)sizeof(message), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (!message[0]) return 0;
  if (rank == 0) fprintf(stderr, "vicms: error: %s\n", message);
  return 1;
}

/* -help: 0 none, 1 vicms's options only, 2 everything PETSc prints. `-help all` asks for everything; PETSc reads the
   value of -help as a boolean (or intro), so the word is taken out of the arguments. */
static int VIAppHelpMode(int *argc, char **argv)
{
  for (int i = 1; i < *argc; i++) {
    if (strcmp(argv[i], "-help")) continue;
    if (i + 1 < *argc && !strcmp(argv[i + 1], "all")) {
      for (int j = i + 1; j < *argc - 1; j++) argv[j] = argv[j + 1];
      (*argc)--;
      return 2;
    }
    return (i + 1 < *argc && !strcmp(argv[i + 1], "intro")) ? 2 : 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  const char    *cmd = NULL;
  PetscErrorCode ierr;
  int            failed, help;

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
  /* MPI first, and finalized after PETSc: the job files are checked, and a bad one reported once, before PETSc reads
     (and half-reads) them; and with vicms's signal handlers still in place at the end, since once a rank has exited
     mpirun sends SIGTERM to those still finalizing, and a stopped job must exit VI_EXIT_RESUMABLE on every rank */
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  if (VIAppCheckJobFiles(argc, argv)) {
    MPI_Finalize();
    return 1;
  }
  help = VIAppHelpMode(&argc, argv);
  if (help == 1) VIOptionsFilterHelp();
  /* -help prints during SlepcInitialize, before VISignalInstall: without PETSc's signal handler there, a pipe closed by
     its reader (`vicms simulate -help all | head`) ends the output quietly rather than with a traceback */
  if (help && PetscOptionsSetValue(NULL, "-no_signal_handler", "true")) return 1;
  PetscCall(SlepcInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscPushErrorHandler(VIErrorHandler, NULL));
  PetscCall(VIAppRegisterOptions()); /* each module's option table, for the check and -help */
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
    if (c) {
      if (help == 1)
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "vicms %s: its options (`vicms %s -help all` adds PETSc's, SLEPc's and MUMPS's)\n", cmd, cmd));
      /* every option of the job is known and reads as its type before any work */
      ierr = VIOptionsCheck(PETSC_COMM_WORLD);
      if (!ierr) ierr = c->run(PETSC_COMM_WORLD);
    } else {
      const char *names[sizeof(commands) / sizeof(commands[0]) + 2] = {"help", "version"}, *near;
      for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) names[i + 2] = commands[i].name;
      near = VINearestWord(cmd, names, sizeof(names) / sizeof(names[0]));
      if (near)
        PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "vicms: error: unknown command '%s' (did you mean %s?)\n", cmd, near));
      else
        PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "vicms: error: unknown command '%s'\n\n%s", cmd, usage));
      ierr = PETSC_ERR_USER_INPUT;
    }
  }
  failed = VIAgreeExit(ierr ? 2 : VIGetStopped() ? 1 : 0);
  VISignalKeep();
  PetscCall(PetscPopErrorHandler());
  if (SlepcFinalize()) return 1;
  VISignalKeep();
  MPI_Finalize();
  return failed == 2 ? 1 : failed == 1 ? VI_EXIT_RESUMABLE : 0;
}
