/* vicms sys module: initialization, logging events and stages, error propagation across ranks. */
#pragma once

#include <petscsys.h>
#include <petscversion.h>

/* PETSc 3.18 (Debian bookworm) predates PETSC_SUCCESS */
#if PETSC_VERSION_LT(3, 19, 0) && !defined(PETSC_SUCCESS)
#define PETSC_SUCCESS ((PetscErrorCode)0)
#endif

#define VICMS_VERSION "0.1.0"

/* Log events, one per kernel (registered by VIInitializePackage). */
PETSC_EXTERN PetscLogEvent VI_MeshRead, VI_MeshPartition, VI_Assemble, VI_EigenSolve, VI_Factor, VI_StaticModes, VI_Project, VI_Step, VI_ContactSolve;

PETSC_EXTERN PetscErrorCode VIInitializePackage(void);

/*
  VIErrorSync - make an error seen on some ranks an error on all ranks of comm, so that no rank waits in a collective
  call for a rank that gave up. Collective.

  The ranks where local_err is nonzero return it unchanged (their message was printed where it arose); the others
  return PETSC_ERR_USER_INPUT silently.
*/
PETSC_EXTERN PetscErrorCode VIErrorSync(MPI_Comm comm, PetscErrorCode local_err);

/*
  Clean stops (SIGTERM, SIGUSR1: a cluster's time limit or scancel). VISignalInstall sets handlers that only record the
  signal; while VISignalDefer(PETSC_TRUE) is in force (the ensemble's case loop) the job reads VISignalReceived at its step
  boundaries, agrees on a stop across its ranks, writes what it has and exits with VI_EXIT_RESUMABLE; outside, a signal has
  its default action (nothing there could be resumed). Not collective.
*/
#define VI_EXIT_RESUMABLE 75 /* EX_TEMPFAIL: stopped on a signal, rerun the same command to resume */
PETSC_EXTERN PetscErrorCode VISignalInstall(void);
/* After PetscFinalize (which resets SIGTERM to its default): the handlers again, until the process exits. */
PETSC_EXTERN void VISignalKeep(void);
PETSC_EXTERN void VISignalDefer(PetscBool defer);
/* The first signal received while deferring (SIGTERM or SIGUSR1), 0 if none. */
PETSC_EXTERN int         VISignalReceived(void);
PETSC_EXTERN const char *VISignalName(int sig);
/* Whether the job stopped on a signal with work left (its exit status is then VI_EXIT_RESUMABLE). */
PETSC_EXTERN void      VISetStopped(PetscBool stopped);
PETSC_EXTERN PetscBool VIGetStopped(void);

/* The error handler of the vicms executable: one clear line for user errors, PETSc's traceback for the rest. */
PETSC_EXTERN PetscErrorCode VIErrorHandler(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p,
                                           const char *mess, void *ctx);
