/* The vicms commands' own options (info, modes, cea, slide; -rom_file of every command) for the option registry. */
#include "app.h"
#include <vicms/coupling.h> /* VICouplingStates, the choices of -cea_state */

/* the choices of enums defined static next to their commands' readers (cea.c, slide.c): a wrong list shows as a refused
   valid value in the tests of the option */
static const char *const VIAppCEADirChoices[]      = {"x", "y", "VIAppCEADir", "VI_APP_CEA_DIR_", NULL};
static const char *const VIAppCEAQuantityChoices[] = {"displacement", "acceleration", "VIAppCEAQuantity", "VI_APP_CEA_QUANTITY_", NULL};
static const char *const VIAppCEAVectorsChoices[]  = {"none", "unstable", "all", "VIAppCEAVectors", "VI_APP_CEA_VECTORS_", NULL};
static const char *const VIAppSlideDirChoices[]    = {"x", "y", "VIAppSlideDir", "VI_APP_SLIDE_DIR_", NULL};
static const char *const VIAppSlideNoiseChoices[]  = {"normal", "x", "y", "VIAppSlideNoiseDir", "VI_APP_SLIDE_NOISE_", NULL};

static const VIOptionEntry VIAppOptions[] = {
    /* vicms info, modes, reduce, simulate */
    {"-file", VI_OPTION_STRING, NULL},
    {"-info_nodes", VI_OPTION_INT, NULL},
    {"-modes_file", VI_OPTION_STRING, NULL},
    {"-modes_write", VI_OPTION_BOOL, NULL},
    {"-rom_file", VI_OPTION_STRING, NULL},
    /* vicms cea: stability and time-dependent FRF along the sliding path */
    {"-cea_file", VI_OPTION_STRING, NULL},
    {"-cea_slave", VI_OPTION_STRING, NULL},
    {"-cea_master", VI_OPTION_STRING, NULL},
    {"-cea_hold", VI_OPTION_STRING, NULL},
    {"-cea_hold_dir", VI_OPTION_ENUM, VIAppCEADirChoices},
    {"-cea_state", VI_OPTION_ENUM, VICouplingStates},
    {"-cea_preload", VI_OPTION_REALS, NULL},
    {"-cea_preload_nodes", VI_OPTION_STRING, NULL},
    {"-cea_band_tol", VI_OPTION_REAL, NULL},
    {"-cea_compare_rom_file", VI_OPTION_STRING, NULL},
    {"-cea_positions", VI_OPTION_INT, NULL},
    {"-cea_range", VI_OPTION_REALS, NULL},
    {"-cea_modes", VI_OPTION_INT, NULL},
    {"-cea_vectors", VI_OPTION_ENUM, VIAppCEAVectorsChoices},
    {"-cea_frf_frequencies", VI_OPTION_STRING, NULL},
    {"-cea_frf_inputs", VI_OPTION_STRINGS, NULL},
    {"-cea_frf_outputs", VI_OPTION_STRINGS, NULL},
    {"-cea_progress_interval", VI_OPTION_REAL, NULL},
    {"-cea_frf_quantity", VI_OPTION_ENUM, VIAppCEAQuantityChoices},
    /* vicms fields: the parent's displacements as a time series for ParaView */
    {"-fields_case", VI_OPTION_INT, NULL},
    {"-fields_file", VI_OPTION_STRING, NULL},
    {"-fields_point", VI_OPTION_INT, NULL},
    {"-fields_samples", VI_OPTION_INT, NULL},
    {"-fields_position", VI_OPTION_INT, NULL},
    {"-fields_mode", VI_OPTION_INT, NULL},
    {"-fields_every", VI_OPTION_INT, NULL},
    /* vicms slide: the transient of sliding bodies */
    {"-slide_file", VI_OPTION_STRING, NULL},
    {"-slide_slave", VI_OPTION_STRING, NULL},
    {"-slide_master", VI_OPTION_STRING, NULL},
    {"-slide_drive", VI_OPTION_STRING, NULL},
    {"-slide_drive_dir", VI_OPTION_ENUM, VIAppSlideDirChoices},
    {"-slide_drive_velocity", VI_OPTION_REAL, NULL},
    {"-slide_preload", VI_OPTION_REALS, NULL},
    {"-slide_preload_nodes", VI_OPTION_STRING, NULL},
    {"-slide_end_time", VI_OPTION_REAL, NULL},
    {"-slide_record_interval", VI_OPTION_REAL, NULL},
    {"-slide_record_q", VI_OPTION_BOOL, NULL},
    {"-slide_start", VI_OPTION_REAL, NULL},
    {"-slide_noise_rms", VI_OPTION_REAL, NULL},
    {"-slide_noise_band", VI_OPTION_REALS, NULL},
    {"-slide_noise_harmonics", VI_OPTION_INT, NULL},
    {"-slide_seed", VI_OPTION_INT, NULL},
    {"-slide_noise_dir", VI_OPTION_ENUM, VIAppSlideNoiseChoices},
    {"-slide_progress_interval", VI_OPTION_REAL, NULL},
    {"-slide_checkpoint_interval", VI_OPTION_REAL, NULL},
    {"-slide_resume", VI_OPTION_BOOL, NULL},
};

PetscErrorCode VIAppRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRegisterAll());
  PetscCall(VIOptionsRegisterTable("app", VIAppOptions, sizeof(VIAppOptions) / sizeof(VIAppOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
