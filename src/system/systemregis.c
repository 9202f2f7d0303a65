/* The registry of the system types: one line per type (its file holds the rest). */
#include "systemimpl.h"

PetscFunctionList VISystemList                = NULL;
static PetscBool  VISystemRegisterAllCalled = PETSC_FALSE;

PetscErrorCode VISystemRegister(const char name[], PetscErrorCode (*create)(VISystem))
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListAdd(&VISystemList, name, create));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemFinalizePackage(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListDestroy(&VISystemList));
  VISystemRegisterAllCalled = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemRegisterAll(void)
{
  PetscFunctionBeginUser;
  if (VISystemRegisterAllCalled) PetscFunctionReturn(PETSC_SUCCESS);
  VISystemRegisterAllCalled = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(VISystemFinalizePackage));
  PetscCall(VISystemRegister(VISYSTEMREDUCED, VISystemCreate_Reduced));
  PetscFunctionReturn(PETSC_SUCCESS);
}
