/* Clean stops: SIGTERM, SIGUSR1 and SIGINT only raise a flag that the case loop reads at its step boundaries. */
#include <vicms/sys.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/* The signal received (0: none). Written by the handler only: a handler may do nothing else safely (no I/O, no MPI). */
static volatile sig_atomic_t vi_signal_received = 0;
/* Set while a part of the job that can stop cleanly runs (the case loop); elsewhere a signal ends the job at once with a
   line and VI_EXIT_RESUMABLE. */
static volatile sig_atomic_t vi_signal_deferring = 0;
static PetscBool             vi_signal_installed = PETSC_FALSE;
static PetscBool             vi_stopped          = PETSC_FALSE;

static int                   vi_signal_rank      = 0;

static void VISignalCatch(int sig)
{
  if (!vi_signal_deferring) {
    /* nothing here can be kept (the files are read, the ROM reduced, the cases set up): one line from rank 0 and the
       status of a stop, rather than a silent death by the signal (143), so that a batch script requeues the job; write()
       and _exit() are async-signal-safe */
    static const char term[] = "vicms: stopped by SIGTERM outside a part that can stop and resume (reading, reducing, setting up: nothing to keep): run the same command again\n";
    static const char usr1[] = "vicms: stopped by SIGUSR1 outside a part that can stop and resume (reading, reducing, setting up: nothing to keep): run the same command again\n";
    static const char intr[] = "vicms: stopped by SIGINT outside a part that can stop and resume (reading, reducing, setting up: nothing to keep): run the same command again\n";
    const char       *m      = sig == SIGTERM ? term : sig == SIGUSR1 ? usr1 : intr;
    size_t            n      = sig == SIGTERM ? sizeof(term) : sig == SIGUSR1 ? sizeof(usr1) : sizeof(intr);
    if (vi_signal_rank == 0 && write(STDERR_FILENO, m, n - 1) < 0) _exit(VI_EXIT_RESUMABLE);
    _exit(VI_EXIT_RESUMABLE);
  }
  if (!vi_signal_received) vi_signal_received = sig;
}

/* SA_RESTART: a signal must not make a system call of MPI or HDF5 fail with EINTR. Returns the failing signal, or 0. */
static int VISignalSet(void)
{
  struct sigaction action;
  const int        sigs[] = {SIGTERM, SIGUSR1, SIGINT};

  memset(&action, 0, sizeof(action));
  action.sa_handler = VISignalCatch;
  action.sa_flags   = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
    if (sigaction(sigs[i], &action, NULL)) return sigs[i];
  return 0;
}

PetscErrorCode VISignalInstall(void)
{
  int bad;

  PetscFunctionBeginUser;
  if (vi_signal_installed) PetscFunctionReturn(PETSC_SUCCESS);
  /* installed after PetscInitialize, so it replaces whatever PETSc put there (PETSc catches SIGTERM when built with an MPI
     other than Open MPI) */
  if (MPI_Comm_rank(PETSC_COMM_WORLD, &vi_signal_rank)) vi_signal_rank = 0;
  bad = VISignalSet();
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_SYS, "Cannot install the handler of signal %d", bad);
  /* `vicms info f.h5 | head`, `vicms simulate -help | less`: a reader that has seen enough ends the output quietly, as
     for any Unix filter (PETSc's handler would print a traceback for SIGPIPE and exit 59) */
  (void)signal(SIGPIPE, SIG_DFL);
  vi_signal_installed = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* At the end of the job, once the ranks agreed on its exit status: a late signal (mpirun sends SIGTERM to the ranks still
   finalizing once one has exited) is only recorded, so every rank exits with the agreed status. Called before and after
   PETSc's finalize, which may reset the handlers. */
void VISignalKeep(void)
{
  vi_signal_deferring = 1;
  if (vi_signal_installed) (void)VISignalSet();
}

void VISignalDefer(PetscBool defer)
{
  vi_signal_deferring = defer ? 1 : 0;
}

int VISignalReceived(void)
{
  return (int)vi_signal_received;
}

const char *VISignalName(int sig)
{
  switch (sig) {
  case SIGTERM:
    return "SIGTERM";
  case SIGUSR1:
    return "SIGUSR1";
  case SIGINT:
    return "SIGINT";
  case 0:
    return "none";
  default:
    return "a signal";
  }
}

void VISetStopped(PetscBool stopped)
{
  vi_stopped = stopped;
}

PetscBool VIGetStopped(void)
{
  return vi_stopped;
}
