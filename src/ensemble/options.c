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

/* The ensemble module's options: results, cases, summaries (src/sys/options.c's registry: names, the type each is read with, an enum's choices) */
static const VIOptionEntry VIEnsembleOptions[] = {
    {"-results_file", VI_OPTION_STRING, NULL},
    {"-results_overwrite", VI_OPTION_BOOL, NULL},
    {"-cases_group_size", VI_OPTION_INT, NULL},
    {"-cases_merge_interval", VI_OPTION_REAL, NULL},
    {"-cases_checkpoint_interval", VI_OPTION_REAL, NULL},
    {"-cases_keep_series", VI_OPTION_BOOL, NULL},
    {"-cases_quiet", VI_OPTION_BOOL, NULL},
    {"-cases_order", VI_OPTION_ENUM, VICaseOrders},
    {"-cases_verbose", VI_OPTION_BOOL, NULL},
    {"-cases_progress_interval", VI_OPTION_REAL, NULL},
    {"-cases_grid", VI_OPTION_STRINGS, NULL},
    {"-cases_values", VI_OPTION_STRINGS, NULL},
    {"-cases_sweep", VI_OPTION_STRINGS, NULL},
    {"-cases_random", VI_OPTION_STRINGS, NULL},
    {"-cases_samples", VI_OPTION_INT, NULL},
    {"-cases_sampling", VI_OPTION_ENUM, VISamplingTypes},
    {"-cases_seed", VI_OPTION_INT, NULL},
    {"-summary_output", VI_OPTION_STRING, NULL},
    {"-summary_steady_fraction", VI_OPTION_REAL, NULL},
    {"-summary_bins", VI_OPTION_INT, NULL},
    {"-summary_balance_warning", VI_OPTION_REAL, NULL},
};

PetscErrorCode VIEnsembleRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRegisterTable("ensemble", VIEnsembleOptions, sizeof(VIEnsembleOptions) / sizeof(VIEnsembleOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
