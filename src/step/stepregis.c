/* The registry of the time-stepping schemes: one line per scheme (its file holds the rest). */
#include "stepimpl.h"
#include <vicms/dual.h>

PetscFunctionList VIStepperList = NULL;

#define VI_MAX_STEPPER_TYPES 32
/* names, then PETSc's enum trailer: -step_type's value check reads it as an enum list */
const char      *VIStepperTypes[VI_MAX_STEPPER_TYPES + 3] = {"VIStepperType", "VISTEPPER", NULL};
static PetscInt  VINumStepperTypes                        = 0;
static PetscBool VIStepperRegisterAllCalled               = PETSC_FALSE;

PetscErrorCode VIStepperRegister(const char name[], PetscErrorCode (*create)(VIStepper))
{
  PetscErrorCode (*known)(VIStepper) = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListFind(VIStepperList, name, &known));
  if (!known) {
    char *copy;
    PetscCheck(VINumStepperTypes < VI_MAX_STEPPER_TYPES, PETSC_COMM_SELF, PETSC_ERR_SUP, "At most %d schemes", VI_MAX_STEPPER_TYPES);
    PetscCall(PetscStrallocpy(name, &copy));
    VIStepperTypes[VINumStepperTypes++]   = copy;
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
  PetscCall(VIStepperRegister_Leapfrog());
  PetscCall(VIStepperRegister_Moreau());
  PetscCall(VIStepperRegister_NSGAlpha());
  PetscCall(VIStepperRegister_Mixed());
  PetscCall(VIStepperRegister_Dual());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The step module's common options: the stepper's (stepper.c) and the time step's (timestep.c); each scheme declares its own in
   its file, registered with the scheme (VIStepperRegister_NAME), and dual.c its own (src/sys/options.c's registry: names, the
   type each is read with, an enum's choices) */
static const VIOptionEntry VIStepOptions[] = {
    {"-step_type", VI_OPTION_ENUM, VIStepperTypes},    {"-step_dt", VI_OPTION_REAL_OR_AUTO, NULL},
    {"-step_dt_safety", VI_OPTION_REAL, NULL},         {"-step_dt_stick", VI_OPTION_BOOL, NULL},
    {"-step_accuracy", VI_OPTION_REAL, NULL},          {"-step_accuracy_window", VI_OPTION_REAL, NULL},
    {"-step_accuracy_output", VI_OPTION_STRING, NULL}, {"-step_points_per_period", VI_OPTION_INT, NULL},
    {"-step_frequency_cutoff", VI_OPTION_REAL, NULL},  {"-step_start_time", VI_OPTION_REAL, NULL},
    {"-step_end_time", VI_OPTION_REAL, NULL},          {"-step_output_every", VI_OPTION_INT, NULL},
    {"-step_record_q", VI_OPTION_BOOL, NULL},          {"-step_modal", VI_OPTION_BOOL, NULL},
    {"-step_blowup_factor", VI_OPTION_REAL, NULL},     {"-step_restitution", VI_OPTION_REAL, NULL},
    {"-step_max_nonconverged", VI_OPTION_INT, NULL},
};

PetscErrorCode VIStepRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIStepperRegisterAll()); /* -step_type's choices, and each scheme's options */
  PetscCall(VIOptionsRegisterTable("step", VIStepOptions, sizeof(VIStepOptions) / sizeof(VIStepOptions[0])));
  PetscCall(VIDualRegisterOptions());
  PetscFunctionReturn(PETSC_SUCCESS);
}
