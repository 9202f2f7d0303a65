/* The registry of the time-stepping schemes: one line per scheme (its file holds the rest). */
#include "stepimpl.h"

PetscFunctionList VIStepperList = NULL;

#define VI_MAX_STEPPER_TYPES 32
/* names, then PETSc's enum trailer: -step_type's value check reads it as an enum list */
const char      *VIStepperTypes[VI_MAX_STEPPER_TYPES + 3] = {"VIStepperType", "VISTEPPER", NULL};
static PetscInt  VINumStepperTypes                         = 0;
static PetscBool VIStepperRegisterAllCalled                = PETSC_FALSE;

PetscErrorCode VIStepperRegister(const char name[], PetscErrorCode (*create)(VIStepper))
{
  PetscErrorCode (*known)(VIStepper) = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListFind(VIStepperList, name, &known));
  if (!known) {
    char *copy;
    PetscCheck(VINumStepperTypes < VI_MAX_STEPPER_TYPES, PETSC_COMM_SELF, PETSC_ERR_SUP, "At most %d schemes", VI_MAX_STEPPER_TYPES);
    PetscCall(PetscStrallocpy(name, &copy));
    VIStepperTypes[VINumStepperTypes++] = copy;
    VIStepperTypes[VINumStepperTypes]     = "VIStepperType";
    VIStepperTypes[VINumStepperTypes + 1] = "VISTEPPER";
    VIStepperTypes[VINumStepperTypes + 2] = NULL;
  }
  PetscCall(PetscFunctionListAdd(&VIStepperList, name, create));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperFinalizePackage(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListDestroy(&VIStepperList));
  for (PetscInt i = 0; i < VINumStepperTypes; i++) PetscCall(PetscFree(VIStepperTypes[i]));
  VINumStepperTypes          = 0;
  VIStepperTypes[0]          = "VIStepperType";
  VIStepperTypes[1]          = "VISTEPPER";
  VIStepperTypes[2]          = NULL;
  VIStepperRegisterAllCalled = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperRegisterAll(void)
{
  PetscFunctionBeginUser;
  if (VIStepperRegisterAllCalled) PetscFunctionReturn(PETSC_SUCCESS);
  VIStepperRegisterAllCalled = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(VIStepperFinalizePackage));
  PetscCall(VIStepperRegister(VISTEPPERLEAPFROG, VIStepperCreate_Leapfrog));
  PetscCall(VIStepperRegister(VISTEPPERMOREAU, VIStepperCreate_Moreau));
  PetscCall(VIStepperRegister(VISTEPPERNSGALPHA, VIStepperCreate_NSGAlpha));
  PetscCall(VIStepperRegister(VISTEPPERMIXED, VIStepperCreate_Mixed));
  PetscFunctionReturn(PETSC_SUCCESS);
}
