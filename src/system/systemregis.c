/* The registry of the system types: one line per type (its file holds the rest). */
#include "systemimpl.h"

PetscFunctionList VISystemList              = NULL;
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
  PetscCall(VISystemRegister(VISYSTEMMULTIBODY, VISystemCreate_Multibody));
  PetscCall(VISystemRegister(VISYSTEMBODIES, VISystemCreate_Bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The system module's options: the type, and the reduced type's case (src/sys/options.c's registry: names, the type each is read with, an enum's
 * choices) */
static const VIOptionEntry VISystemOptions[] = {
    {"-system_type", VI_OPTION_STRING, NULL},
    {"-case_loads", VI_OPTION_STRINGS, NULL},
    {"-case_damping_scale", VI_OPTION_REAL, NULL},
    {"-contact_mu", VI_OPTION_REAL, NULL},
    {"-contact_preload", VI_OPTION_REAL, NULL},
    {"-contact_sliding_speed", VI_OPTION_REAL, NULL},
    {"-contact_gap", VI_OPTION_REAL, NULL},
    {"-contact_gap_amplitude", VI_OPTION_REAL, NULL},
    {"-contact_gap_waves", VI_OPTION_INT, NULL},
    {"-contact_gap_shape", VI_OPTION_ENUM, VIGapShapes},
    {"-contact_gap_bump_width", VI_OPTION_REAL, NULL},
    {"-contact_rotation_speed", VI_OPTION_REAL, NULL},
    {"-contact_rotation_axis", VI_OPTION_REALS, NULL},
    {"-contact_rotation_origin", VI_OPTION_REALS, NULL},
    {"-contact_gap_phases", VI_OPTION_REALS, NULL},
    {"-contact_gap_phase_step", VI_OPTION_REAL, NULL},
    {"-init", VI_OPTION_ENUM, VIInitTypes},
    {"-init_velocity", VI_OPTION_REAL, NULL},
    {"-init_direction", VI_OPTION_STRING, NULL},
    {"-init_load", VI_OPTION_STRING, NULL},
    {"-mb_model", VI_OPTION_STRING, NULL},
    {"-mb_param_*", VI_OPTION_REAL, NULL},
};

PetscErrorCode VISystemRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRegisterTable("system", VISystemOptions, sizeof(VISystemOptions) / sizeof(VISystemOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
