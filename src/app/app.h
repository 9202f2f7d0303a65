/* The vicms executable's commands. */
#pragma once

#include <vicms.h>

PETSC_INTERN PetscErrorCode VIAppModes(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppInfo(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppReduce(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppSimulate(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppRun(MPI_Comm comm);

/* The word that followed the command on the command line (`vicms info FILE.h5`), or NULL. */
PETSC_INTERN const char *VIAppArgument;
