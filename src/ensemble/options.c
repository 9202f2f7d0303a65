/* Case parameters as options: set them in the global options database for the time of a case, then restore. */
#include "ensembleimpl.h"

PetscErrorCode VIOptionsOverride(VIOptionsSaved *saved, PetscInt n, const char *const names[], const PetscReal values[])
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRestore(saved));
  /* a sampled value can overflow (a lognormal's tail): the case must not run on it */
  for (PetscInt i = 0; i < n; i++)
    PetscCheck(!PetscIsInfOrNanReal(values[i]), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "case parameter %s: the value %g is not a finite number",
               names[i], (double)values[i]);
  PetscCall(PetscCalloc2(PetscMax(n, 1), &saved->names, PetscMax(n, 1), &saved->old));
  saved->n = n;
  for (PetscInt i = 0; i < n; i++) {
    char      name[VI_NAME_LEN + 2], old[4096], value[64];
    PetscBool set;
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", names[i]));
    PetscCall(PetscStrallocpy(name, &saved->names[i]));
    PetscCall(PetscOptionsGetString(NULL, NULL, name, old, sizeof(old), &set));
    if (set) PetscCall(PetscStrallocpy(old, &saved->old[i]));
    /* %.17g: the option reads back the exact double of the table */
    PetscCall(PetscSNPrintf(value, sizeof(value), "%.17g", (double)values[i]));
    PetscCall(PetscOptionsSetValue(NULL, name, value));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIOptionsRestore(VIOptionsSaved *saved)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < saved->n; i++) {
    if (saved->old[i])
      PetscCall(PetscOptionsSetValue(NULL, saved->names[i], saved->old[i][0] ? saved->old[i] : NULL));
    else
      PetscCall(PetscOptionsClearValue(NULL, saved->names[i]));
    PetscCall(PetscFree(saved->names[i]));
    PetscCall(PetscFree(saved->old[i]));
  }
  PetscCall(PetscFree2(saved->names, saved->old));
  saved->n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
