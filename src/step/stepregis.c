/* The registry of the time-stepping schemes: one line per scheme (its file holds the rest). */
#include "stepimpl.h"
#include <vicms/dual.h>

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

/* The step module's options: the common stepper, each scheme's (moreau.c, nsgalpha.c, mixed.c), dual.c's (src/sys/options.c's registry: names, the type each is read with, an enum's choices) */
static const VIOptionEntry VIStepOptions[] = {
    {"-step_type", VI_OPTION_ENUM, VIStepperTypes},
    {"-step_dt", VI_OPTION_REAL_OR_AUTO, NULL},
    {"-step_dt_safety", VI_OPTION_REAL, NULL},
    {"-step_dt_stick", VI_OPTION_BOOL, NULL},
    {"-step_accuracy", VI_OPTION_REAL, NULL},
    {"-step_accuracy_window", VI_OPTION_REAL, NULL},
    {"-step_accuracy_output", VI_OPTION_STRING, NULL},
    {"-step_points_per_period", VI_OPTION_INT, NULL},
    {"-step_frequency_cutoff", VI_OPTION_REAL, NULL},
    {"-step_start_time", VI_OPTION_REAL, NULL},
    {"-step_end_time", VI_OPTION_REAL, NULL},
    {"-step_output_every", VI_OPTION_INT, NULL},
    {"-step_record_q", VI_OPTION_BOOL, NULL},
    {"-step_blowup_factor", VI_OPTION_REAL, NULL},
    {"-step_restitution", VI_OPTION_REAL, NULL},
    {"-step_moreau_variant", VI_OPTION_ENUM, VIMoreauVariants},
    {"-step_theta", VI_OPTION_REAL, NULL},
    {"-step_max_nonconverged", VI_OPTION_INT, NULL},
    {"-step_rho_inf", VI_OPTION_REAL, NULL},
    {"-step_nsgalpha_max_it", VI_OPTION_INT, NULL},
    {"-step_mixed_base", VI_OPTION_ENUM, VIMixedBases},
    {"-step_mixed_alpha_m", VI_OPTION_REAL, NULL},
    {"-step_mixed_alpha_f", VI_OPTION_REAL, NULL},
    {"-step_mixed_alpha_ar", VI_OPTION_REAL, NULL},
    {"-step_mixed_restitution_tangential", VI_OPTION_REAL, NULL},
    {"-dual_dt", VI_OPTION_REAL, NULL},
    {"-dual_mu", VI_OPTION_REAL, NULL},
    {"-dual_geometry", VI_OPTION_ENUM, VIDualGeometries},
    {"-dual_start", VI_OPTION_ENUM, VIDualStarts},
};

PetscErrorCode VIStepRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIStepperRegisterAll()); /* -step_type's choices */
  PetscCall(VIOptionsRegisterTable("step", VIStepOptions, sizeof(VIStepOptions) / sizeof(VIStepOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
