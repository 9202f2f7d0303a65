/* The vicms executable's commands. */
#pragma once

#include <vicms.h>

PETSC_INTERN PetscErrorCode VIAppModes(MPI_Comm comm);
