/* The registry of every option name vicms knows: unknown names and bad values refused at entry, job-file checks, -help. */
#include <vicms/sys.h>
#include <vicms/contact.h>
#include <vicms/ensemble.h>
#include <vicms/excite.h>
#include <vicms/fem.h>
#include <vicms/rom.h>
#include <vicms/step.h>
#include <vicms/dual.h>
#include <vicms/coupling.h>
#include <vicms/hb.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* defined static next to their SetFromOptions, or in mesh.c without a public declaration: the registry keeps its own
   lists (a wrong one shows as a refused valid value in the tests of the option) */
extern const char *const VIElementTypes[];
static const char *const VIMoreauVariantChoices[]  = {"symmetric", "theta", "VIMoreauVariant", "VI_MOREAU_", NULL};
static const char *const VIGapShapeChoices[]       = {"cosine", "bump", "VIGapShape", "VI_GAP_", NULL};
static const char *const VIAppCEADirChoices[]      = {"x", "y", "VIAppCEADir", "VI_APP_CEA_DIR_", NULL};
static const char *const VIAppCEAQuantityChoices[] = {"displacement", "acceleration", "VIAppCEAQuantity", "VI_APP_CEA_QUANTITY_", NULL};
static const char *const VIAppCEAVectorsChoices[]  = {"none", "unstable", "all", "VIAppCEAVectors", "VI_APP_CEA_VECTORS_", NULL};
static const char *const VIAppSlideDirChoices[]    = {"x", "y", "VIAppSlideDir", "VI_APP_SLIDE_DIR_", NULL};
static const char *const VIAppSlideNoiseChoices[]  = {"normal", "x", "y", "VIAppSlideNoiseDir", "VI_APP_SLIDE_NOISE_", NULL};
static const char *const VIMixedBaseChoices[]      = {"genalpha", "bathe", "edalpha", "VIMixedBase", "VI_MIXED_", NULL};

/* '*' in a name stands for one or more characters (a load name, or anything SLEPc, PETSc and MUMPS read under a prefix) */
static const VIOptionEntry VIOptionTable[] = {
    /* vicms info, modes, reduce, simulate */
    {"-file", VI_OPTION_STRING, NULL},
    {"-modes_file", VI_OPTION_STRING, NULL},
    {"-modes_write", VI_OPTION_BOOL, NULL},
    {"-rom_file", VI_OPTION_STRING, NULL},
    /* mesh */
    {"-mesh_file", VI_OPTION_STRING, NULL},
    {"-mesh_elset", VI_OPTION_STRING, NULL},
    {"-mesh_line_cells", VI_OPTION_INT, NULL},
    {"-mesh_line_length", VI_OPTION_REAL, NULL},
    {"-mesh_line_area", VI_OPTION_REAL, NULL},
    {"-mesh_box_cells", VI_OPTION_INTS, NULL},
    {"-mesh_box_lengths", VI_OPTION_REALS, NULL},
    {"-mesh_box_element", VI_OPTION_ENUM, VIElementTypes},
    {"-mesh_rect_cells", VI_OPTION_INTS, NULL},
    {"-mesh_rect_lengths", VI_OPTION_REALS, NULL},
    {"-mesh_rect_thickness", VI_OPTION_REAL, NULL},
    {"-mesh_rect_origin", VI_OPTION_REALS, NULL},
    {"-mesh_rect_angle", VI_OPTION_REAL, NULL},
    /* model */
    {"-model_young", VI_OPTION_REAL, NULL},
    {"-model_poisson", VI_OPTION_REAL, NULL},
    {"-model_density", VI_OPTION_REAL, NULL},
    {"-model_clamp", VI_OPTION_STRINGS, NULL},
    {"-model_lumped_mass", VI_OPTION_BOOL, NULL},
    {"-model_integration", VI_OPTION_ENUM, VIIntegrations},
    /* modes */
    {"-modes_num", VI_OPTION_INT, NULL},
    {"-modes_shift", VI_OPTION_REAL, NULL},
    {"-modes_tol", VI_OPTION_REAL, NULL},
    /* component mode synthesis */
    {"-cms_type", VI_OPTION_ENUM, VICMSTypes},
    {"-cms_num_modes", VI_OPTION_INT, NULL},
    {"-cms_contact_nodes", VI_OPTION_INTS, NULL},
    {"-cms_contact_set", VI_OPTION_STRINGS, NULL},
    {"-cms_contact_dirs", VI_OPTION_INT, NULL},
    {"-cms_contact_normal", VI_OPTION_REALS, NULL},
    {"-cms_contact_radial_axis", VI_OPTION_REALS, NULL},
    {"-cms_contact_radial_origin", VI_OPTION_REALS, NULL},
    {"-cms_contact_radial_inward", VI_OPTION_BOOL, NULL},
    {"-cms_contact_t1", VI_OPTION_REALS, NULL},
    {"-cms_contact_area", VI_OPTION_REAL, NULL},
    {"-cms_rigid_stiffness", VI_OPTION_REAL, NULL},
    {"-cms_damping_ratio", VI_OPTION_REAL, NULL},
    {"-cms_damping_ratios", VI_OPTION_REALS, NULL},
    {"-cms_rayleigh", VI_OPTION_REALS, NULL},
    {"-cms_gravity", VI_OPTION_REALS, NULL},
    {"-cms_forces", VI_OPTION_STRINGS, NULL},
    {"-cms_outputs", VI_OPTION_STRINGS, NULL},
    {"-cms_units", VI_OPTION_STRING, NULL},
    /* several substructures (seed 003): the names, then each body's single-body options under -body_NAME_ */
    {"-bodies", VI_OPTION_STRINGS, NULL},
    {"-bodies_parallel", VI_OPTION_ENUM, VIBodiesParallelTypes},
    {"-bodies_mesh_file", VI_OPTION_STRING, NULL},
    {"-body_*_mesh_file", VI_OPTION_STRING, NULL},
    {"-body_*_mesh_elset", VI_OPTION_STRING, NULL},
    {"-body_*_mesh_line_cells", VI_OPTION_INT, NULL},
    {"-body_*_mesh_line_length", VI_OPTION_REAL, NULL},
    {"-body_*_mesh_line_area", VI_OPTION_REAL, NULL},
    {"-body_*_mesh_box_cells", VI_OPTION_INTS, NULL},
    {"-body_*_mesh_box_lengths", VI_OPTION_REALS, NULL},
    {"-body_*_mesh_box_element", VI_OPTION_ENUM, VIElementTypes},
    {"-body_*_mesh_rect_cells", VI_OPTION_INTS, NULL},
    {"-body_*_mesh_rect_lengths", VI_OPTION_REALS, NULL},
    {"-body_*_mesh_rect_thickness", VI_OPTION_REAL, NULL},
    {"-body_*_mesh_rect_origin", VI_OPTION_REALS, NULL},
    {"-body_*_mesh_rect_angle", VI_OPTION_REAL, NULL},
    {"-body_*_model_young", VI_OPTION_REAL, NULL},
    {"-body_*_model_poisson", VI_OPTION_REAL, NULL},
    {"-body_*_model_density", VI_OPTION_REAL, NULL},
    {"-body_*_model_clamp", VI_OPTION_STRINGS, NULL},
    {"-body_*_model_lumped_mass", VI_OPTION_BOOL, NULL},
    {"-body_*_model_integration", VI_OPTION_ENUM, VIIntegrations},
    {"-body_*_cms_type", VI_OPTION_ENUM, VICMSTypes},
    {"-body_*_cms_num_modes", VI_OPTION_INT, NULL},
    {"-body_*_cms_contact_nodes", VI_OPTION_INTS, NULL},
    {"-body_*_cms_contact_set", VI_OPTION_STRINGS, NULL},
    {"-body_*_cms_contact_dirs", VI_OPTION_INT, NULL},
    {"-body_*_cms_contact_normal", VI_OPTION_REALS, NULL},
    {"-body_*_cms_contact_area", VI_OPTION_REAL, NULL},
    {"-body_*_cms_damping_ratio", VI_OPTION_REAL, NULL},
    {"-body_*_cms_damping_ratios", VI_OPTION_REALS, NULL},
    {"-body_*_cms_rayleigh", VI_OPTION_REALS, NULL},
    {"-body_*_cms_gravity", VI_OPTION_REALS, NULL},
    {"-body_*_cms_forces", VI_OPTION_STRINGS, NULL},
    {"-body_*_cms_outputs", VI_OPTION_STRINGS, NULL},
    {"-body_*_cms_units", VI_OPTION_STRING, NULL},
    /* a contact case */
    {"-case_loads", VI_OPTION_STRINGS, NULL},
    {"-case_damping_scale", VI_OPTION_REAL, NULL},
    {"-contact_mu", VI_OPTION_REAL, NULL},
    {"-contact_preload", VI_OPTION_REAL, NULL},
    {"-contact_sliding_speed", VI_OPTION_REAL, NULL},
    {"-contact_gap", VI_OPTION_REAL, NULL},
    {"-contact_gap_amplitude", VI_OPTION_REAL, NULL},
    {"-contact_gap_waves", VI_OPTION_INT, NULL},
    {"-contact_gap_shape", VI_OPTION_ENUM, VIGapShapeChoices},
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
    /* time functions of the loads, prefix load_NAME_ */
    {"-load_*_type", VI_OPTION_ENUM, VIExciteTypes},
    {"-load_*_offset", VI_OPTION_REAL, NULL},
    {"-load_*_amplitude", VI_OPTION_REAL, NULL},
    {"-load_*_frequency", VI_OPTION_REAL, NULL},
    {"-load_*_phase", VI_OPTION_REAL, NULL},
    {"-load_*_sweep_rate", VI_OPTION_REAL, NULL},
    {"-load_*_sweep_down", VI_OPTION_BOOL, NULL},
    {"-load_*_sweep_percent", VI_OPTION_REAL, NULL},
    {"-load_*_sweep_periods", VI_OPTION_REAL, NULL},
    {"-load_*_sweep_reference_frequency", VI_OPTION_REAL, NULL},
    {"-load_*_bump_center", VI_OPTION_REAL, NULL},
    {"-load_*_bump_width", VI_OPTION_REAL, NULL},
    {"-load_*_noise_band", VI_OPTION_REALS, NULL},
    {"-load_*_noise_harmonics", VI_OPTION_INT, NULL},
    {"-load_*_seed", VI_OPTION_INT, NULL},
    /* time stepping and contact solver */
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
    {"-step_blowup_factor", VI_OPTION_REAL, NULL},
    {"-step_restitution", VI_OPTION_REAL, NULL},
    {"-step_moreau_variant", VI_OPTION_ENUM, VIMoreauVariantChoices},
    {"-step_theta", VI_OPTION_REAL, NULL},
    {"-step_max_nonconverged", VI_OPTION_INT, NULL},
    {"-step_rho_inf", VI_OPTION_REAL, NULL},
    {"-step_nsgalpha_max_it", VI_OPTION_INT, NULL},
    {"-step_mixed_base", VI_OPTION_ENUM, VIMixedBaseChoices},
    {"-step_mixed_alpha_m", VI_OPTION_REAL, NULL},
    {"-step_mixed_alpha_f", VI_OPTION_REAL, NULL},
    {"-step_mixed_alpha_ar", VI_OPTION_REAL, NULL},
    {"-step_mixed_restitution_tangential", VI_OPTION_REAL, NULL},
    /* dual assembly of sliding substructures (seed 003) */
    {"-dual_dt", VI_OPTION_REAL, NULL},
    {"-dual_mu", VI_OPTION_REAL, NULL},
    {"-dual_geometry", VI_OPTION_ENUM, VIDualGeometries},
    {"-dual_start", VI_OPTION_ENUM, VIDualStarts},
    /* bodies coupled at a position of the sliding path: CEA and time-dependent FRF (seed 003) */
    {"-coupling_mu", VI_OPTION_REAL, NULL},
    {"-coupling_sliding", VI_OPTION_ENUM, VICouplingSlidings},
    /* vicms cea: stability and time-dependent FRF along the sliding path */
    {"-cea_file", VI_OPTION_STRING, NULL},
    {"-cea_slave", VI_OPTION_STRING, NULL},
    {"-cea_master", VI_OPTION_STRING, NULL},
    {"-cea_hold", VI_OPTION_STRING, NULL},
    {"-cea_hold_dir", VI_OPTION_ENUM, VIAppCEADirChoices},
    {"-cea_positions", VI_OPTION_INT, NULL},
    {"-cea_range", VI_OPTION_REALS, NULL},
    {"-cea_modes", VI_OPTION_INT, NULL},
    {"-cea_vectors", VI_OPTION_ENUM, VIAppCEAVectorsChoices},
    {"-cea_frf_frequencies", VI_OPTION_STRING, NULL},
    {"-cea_frf_inputs", VI_OPTION_STRINGS, NULL},
    {"-cea_frf_outputs", VI_OPTION_STRINGS, NULL},
    {"-cea_progress_interval", VI_OPTION_REAL, NULL},
    {"-cea_frf_quantity", VI_OPTION_ENUM, VIAppCEAQuantityChoices},
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
    {"-slide_start", VI_OPTION_REAL, NULL},
    {"-slide_noise_rms", VI_OPTION_REAL, NULL},
    {"-slide_noise_band", VI_OPTION_REALS, NULL},
    {"-slide_noise_harmonics", VI_OPTION_INT, NULL},
    {"-slide_seed", VI_OPTION_INT, NULL},
    {"-slide_noise_dir", VI_OPTION_ENUM, VIAppSlideNoiseChoices},
    {"-slide_progress_interval", VI_OPTION_REAL, NULL},
    {"-slide_checkpoint_interval", VI_OPTION_REAL, NULL},
    {"-slide_resume", VI_OPTION_BOOL, NULL},
    {"-contact_solver", VI_OPTION_ENUM, VIContactSolverTypes},
    {"-contact_tol", VI_OPTION_REAL, NULL},
    {"-contact_max_it", VI_OPTION_INT, NULL},
    {"-contact_relaxation", VI_OPTION_REAL, NULL},
    {"-contact_al_scale", VI_OPTION_REAL, NULL},
    /* ensembles */
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
    /* harmonic balance (vicms hb) */
    {"-hb_harmonics", VI_OPTION_INT, NULL},
    {"-hb_samples", VI_OPTION_INT, NULL},
    {"-hb_eps_dl", VI_OPTION_REAL, NULL},
    {"-hb_freq_range", VI_OPTION_REALS, NULL},
    {"-hb_direction", VI_OPTION_ENUM, VIHBDirections},
    {"-hb_start", VI_OPTION_REAL, NULL},
    {"-hb_step", VI_OPTION_REAL, NULL},
    {"-hb_step_min", VI_OPTION_REAL, NULL},
    {"-hb_step_max", VI_OPTION_REAL, NULL},
    {"-hb_max_freq_step", VI_OPTION_REAL, NULL},
    {"-hb_max_points", VI_OPTION_INT, NULL},
    {"-hb_tol", VI_OPTION_REAL, NULL},
    {"-hb_max_it", VI_OPTION_INT, NULL},
    {"-hb_target_it", VI_OPTION_INT, NULL},
    {"-hb_condense", VI_OPTION_BOOL, NULL},
    {"-hb_stability", VI_OPTION_BOOL, NULL},
    {"-hb_stability_method", VI_OPTION_ENUM, VIHBStabilityTypes},
    {"-hb_stability_steps", VI_OPTION_INT, NULL},
    {"-hb_stability_periods", VI_OPTION_INT, NULL},
    {"-hb_fold_tol", VI_OPTION_REAL, NULL},
    {"-hb_output", VI_OPTION_STRING, NULL},
    /* read by SLEPc, PETSc and MUMPS under vicms's prefixes (eigensolvers, their spectral transforms, the partitioner) */
    {"-modes_eps_*", VI_OPTION_PASS, NULL},
    {"-modes_st_*", VI_OPTION_PASS, NULL},
    {"-modes_bv_*", VI_OPTION_PASS, NULL},
    {"-modes_ds_*", VI_OPTION_PASS, NULL},
    {"-modes_rg_*", VI_OPTION_PASS, NULL},
    {"-cms_eps_*", VI_OPTION_PASS, NULL},
    {"-cms_st_*", VI_OPTION_PASS, NULL},
    {"-cms_bv_*", VI_OPTION_PASS, NULL},
    {"-cms_ds_*", VI_OPTION_PASS, NULL},
    {"-cms_rg_*", VI_OPTION_PASS, NULL},
    {"-mesh_mat_partitioning_*", VI_OPTION_PASS, NULL},
    /* PETSc's generic options (most are read, and so accepted, at start-up; these may be read later) */
    {"-help", VI_OPTION_PETSC, NULL},
    {"-version", VI_OPTION_PETSC, NULL},
    {"-options_file", VI_OPTION_PETSC, NULL},
    {"-options_file_yaml", VI_OPTION_PETSC, NULL},
    {"-options_string_yaml", VI_OPTION_PETSC, NULL},
    {"-options_left", VI_OPTION_PETSC, NULL},
    {"-options_view", VI_OPTION_PETSC, NULL},
    {"-options_monitor", VI_OPTION_PETSC, NULL},
    {"-options_monitor_cancel", VI_OPTION_PETSC, NULL},
    {"-options_suppress_deprecated_warnings", VI_OPTION_PETSC, NULL},
    {"-log", VI_OPTION_PETSC, NULL},
    {"-log_view", VI_OPTION_PETSC, NULL},
    {"-log_view_memory", VI_OPTION_PETSC, NULL},
    {"-log_view_gpu_time", VI_OPTION_PETSC, NULL},
    {"-log_all", VI_OPTION_PETSC, NULL},
    {"-log_trace", VI_OPTION_PETSC, NULL},
    {"-log_exclude", VI_OPTION_PETSC, NULL},
    {"-log_sync", VI_OPTION_PETSC, NULL},
    {"-log_mpe", VI_OPTION_PETSC, NULL},
    {"-log_perfstubs", VI_OPTION_PETSC, NULL},
    {"-log_summary", VI_OPTION_PETSC, NULL},
    {"-info", VI_OPTION_PETSC, NULL},
    {"-info_exclude", VI_OPTION_PETSC, NULL},
    {"-malloc", VI_OPTION_PETSC, NULL},
    {"-malloc_debug", VI_OPTION_PETSC, NULL},
    {"-malloc_dump", VI_OPTION_PETSC, NULL},
    {"-malloc_view", VI_OPTION_PETSC, NULL},
    {"-malloc_view_threshold", VI_OPTION_PETSC, NULL},
    {"-malloc_info", VI_OPTION_PETSC, NULL},
    {"-malloc_test", VI_OPTION_PETSC, NULL},
    {"-malloc_requested_size", VI_OPTION_PETSC, NULL},
    {"-malloc_coalesce", VI_OPTION_PETSC, NULL},
    {"-malloc_hbw", VI_OPTION_PETSC, NULL},
    {"-memory_view", VI_OPTION_PETSC, NULL},
    {"-on_error_abort", VI_OPTION_PETSC, NULL},
    {"-on_error_attach_debugger", VI_OPTION_PETSC, NULL},
    {"-on_error_emacs", VI_OPTION_PETSC, NULL},
    {"-on_error_malloc_dump", VI_OPTION_PETSC, NULL},
    {"-on_error_mpiabort", VI_OPTION_PETSC, NULL},
    {"-no_signal_handler", VI_OPTION_PETSC, NULL},
    {"-fp_trap", VI_OPTION_PETSC, NULL},
    {"-start_in_debugger", VI_OPTION_PETSC, NULL},
    {"-stop_for_debugger", VI_OPTION_PETSC, NULL},
    {"-debugger_ranks", VI_OPTION_PETSC, NULL},
    {"-debugger_pause", VI_OPTION_PETSC, NULL},
    {"-debugger_nodes", VI_OPTION_PETSC, NULL},
    {"-display", VI_OPTION_PETSC, NULL},
    {"-mpi_return_on_error", VI_OPTION_PETSC, NULL},
    {"-get_total_flops", VI_OPTION_PETSC, NULL},
    {"-check_pointer_intensity", VI_OPTION_PETSC, NULL},
    {"-checkstack", VI_OPTION_PETSC, NULL},
    {"-objects_dump", VI_OPTION_PETSC, NULL},
    {"-skip_petscrc", VI_OPTION_PETSC, NULL},
    {"-petsc_ci", VI_OPTION_PETSC, NULL},
    {"-history", VI_OPTION_PETSC, NULL},
    {"-tmp", VI_OPTION_PETSC, NULL},
    {"-shared_tmp", VI_OPTION_PETSC, NULL},
    {"-not_shared_tmp", VI_OPTION_PETSC, NULL},
    {"-petsc_sleep", VI_OPTION_PETSC, NULL},
    {"-use_gpu_aware_mpi", VI_OPTION_PETSC, NULL},
    {"-nox", VI_OPTION_PETSC, NULL},
    {"-x_virtual", VI_OPTION_PETSC, NULL},
    {"-device_*", VI_OPTION_PETSC, NULL},
    {"-root_device_context_*", VI_OPTION_PETSC, NULL},
    {"-viewer_*", VI_OPTION_PETSC, NULL},
    {"-saws_*", VI_OPTION_PETSC, NULL},
};

static const size_t VINumOptions = sizeof(VIOptionTable) / sizeof(VIOptionTable[0]);

/* ------------------------------------------------------------------ names */

/* Does name match pattern? '*' matches one or more characters; only one '*' per pattern. */
static int VIMatch(const char *pattern, const char *name)
{
  const char *star = strchr(pattern, '*');
  size_t      lp, ls, ln = strlen(name);

  if (!star) return strcmp(pattern, name) == 0;
  lp = (size_t)(star - pattern);
  ls = strlen(star + 1);
  if (ln < lp + ls + 1) return 0;
  return strncmp(pattern, name, lp) == 0 && strcmp(name + ln - ls, star + 1) == 0;
}

const VIOptionEntry *VIOptionsFind(const char name[])
{
  const VIOptionEntry *best = NULL;

  if (!name) return NULL;
  /* an exact name wins over a pattern (-load_x_sweep_rate is a load's sweep rate, not the rate of a load x_sweep) */
  for (size_t i = 0; i < VINumOptions; i++)
    if (!strchr(VIOptionTable[i].name, '*') && !strcmp(VIOptionTable[i].name, name)) return &VIOptionTable[i];
  /* among patterns, the longest fixed part: -load_a_sweep_rate is -load_*_sweep_rate */
  for (size_t i = 0; i < VINumOptions; i++)
    if (strchr(VIOptionTable[i].name, '*') && VIMatch(VIOptionTable[i].name, name) && (!best || strlen(VIOptionTable[i].name) > strlen(best->name)))
      best = &VIOptionTable[i];
  return best;
}

PetscBool VIOptionsIsKnown(const char name[])
{
  return VIOptionsFind(name) ? PETSC_TRUE : PETSC_FALSE;
}

PetscBool VIOptionsIsVicms(const char name[])
{
  const VIOptionEntry *e = VIOptionsFind(name);
  return e && e->type != VI_OPTION_PASS && e->type != VI_OPTION_PETSC ? PETSC_TRUE : PETSC_FALSE;
}

/* Edit distance with transpositions (optimal string alignment); names are short, a 64 x 64 table suffices. */
static int VIDistance(const char *a, const char *b)
{
  int la = (int)strlen(a), lb = (int)strlen(b), d[65][65];

  if (la > 64 || lb > 64) return 1000;
  for (int i = 0; i <= la; i++) d[i][0] = i;
  for (int j = 0; j <= lb; j++) d[0][j] = j;
  for (int i = 1; i <= la; i++)
    for (int j = 1; j <= lb; j++) {
      int c = a[i - 1] == b[j - 1] ? 0 : 1, v = d[i - 1][j - 1] + c;
      if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v) v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[la][lb];
}

void VIOptionsSuggest(const char name[], char suggestion[], size_t len)
{
  int  best = 1000;
  char cand[256];

  suggestion[0] = 0;
  for (size_t i = 0; i < VINumOptions; i++) {
    const char *p = VIOptionTable[i].name, *star = strchr(p, '*');
    if (!star) {
      int d = VIDistance(name, p);
      if (d < best) {
        best = d;
        snprintf(suggestion, len, "%s", p);
      }
    } else if (star[1] && !strncmp(name, p, (size_t)(star - p))) {
      /* a load option: the load's name is the name's own, cut at each '_' after the prefix */
      size_t lp = (size_t)(star - p);
      for (const char *c = name + lp + 1; *c; c++) {
        if (*c != '_') continue;
        snprintf(cand, sizeof(cand), "%.*s%s", (int)(c - name), name, star + 1);
        int d = VIDistance(name, cand);
        if (d < best) {
          best = d;
          snprintf(suggestion, len, "%s", cand);
        }
      }
    }
  }
  /* far names are no suggestion: at most one edit in four characters, and at least one */
  if (best > 1 + (int)strlen(name) / 4) suggestion[0] = 0;
}

/* ------------------------------------------------------------------ checks of the options database */

/* The value as the user wrote it, for messages. */
static PetscErrorCode VIOptionsRawValue(const char name[], char value[], size_t len)
{
  PetscBool set;

  PetscFunctionBeginUser;
  value[0] = 0;
  PetscCall(PetscOptionsGetString(NULL, NULL, name, value, len, &set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Parse the value of one known option with PETSc's own reader of its type; a failed read becomes a one-line message. */
static PetscErrorCode VIOptionsCheckValue(MPI_Comm comm, const char name[], const VIOptionEntry *e)
{
  char           raw[4096];
  PetscErrorCode ierr = PETSC_SUCCESS;
  PetscBool      set, finite = PETSC_TRUE;
  PetscInt       n = 1024, nbad = -1;

  PetscFunctionBeginUser;
  PetscCall(VIOptionsRawValue(name, raw, sizeof(raw)));
  /* PETSc's readers raise errors with tracebacks on every rank; here they only return */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  switch (e->type) {
  case VI_OPTION_REAL: {
    PetscReal v;
    ierr = PetscOptionsGetReal(NULL, NULL, name, &v, &set);
    if (!ierr && set && PetscIsInfOrNanReal(v)) finite = PETSC_FALSE;
  } break;
  case VI_OPTION_REAL_OR_AUTO: {
    PetscReal v;
    PetscBool is_auto;
    ierr = PetscStrcasecmp(raw, "auto", &is_auto);
    if (!ierr && !is_auto) ierr = PetscOptionsGetReal(NULL, NULL, name, &v, &set);
    if (!ierr && !is_auto && set && PetscIsInfOrNanReal(v)) finite = PETSC_FALSE;
  } break;
  case VI_OPTION_INT: {
    PetscInt v;
    ierr = PetscOptionsGetInt(NULL, NULL, name, &v, &set);
  } break;
  case VI_OPTION_BOOL: {
    PetscBool v;
    ierr = PetscOptionsGetBool(NULL, NULL, name, &v, &set);
  } break;
  case VI_OPTION_ENUM: {
    PetscEnum v;
    ierr = PetscOptionsGetEnum(NULL, NULL, name, e->choices, &v, &set);
  } break;
  case VI_OPTION_REALS: {
    PetscReal *v;
    ierr = PetscMalloc1(n, &v);
    if (!ierr) ierr = PetscOptionsGetRealArray(NULL, NULL, name, v, &n, &set);
    for (PetscInt i = 0; !ierr && i < n; i++)
      if (PetscIsInfOrNanReal(v[i])) {
        finite = PETSC_FALSE;
        nbad   = i + 1;
        break;
      }
    if (PetscFree(v)) ierr = PETSC_ERR_MEM;
  } break;
  case VI_OPTION_INTS: {
    PetscInt *v;
    ierr = PetscMalloc1(n, &v);
    if (!ierr) ierr = PetscOptionsGetIntArray(NULL, NULL, name, v, &n, &set);
    if (PetscFree(v)) ierr = PETSC_ERR_MEM;
  } break;
  default:
    break;
  }
  PetscCall(PetscPopErrorHandler());
  if (e->type == VI_OPTION_ENUM && ierr) {
    char list[1024] = "";
    int  nc         = 0;
    while (e->choices[nc]) nc++;
    for (int i = 0; i < nc - 2; i++) /* the list ends with the type name, the prefix, NULL */ {
      PetscCall(PetscStrlcat(list, i ? ", " : "", sizeof(list)));
      PetscCall(PetscStrlcat(list, e->choices[i], sizeof(list)));
    }
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s: '%s' is not one of %s", name, raw, list);
  }
  PetscCheck(!ierr, comm, PETSC_ERR_USER_INPUT, "%s: '%s' is not %s", name, raw,
             e->type == VI_OPTION_REAL           ? "a number"
             : e->type == VI_OPTION_REAL_OR_AUTO ? "a number or auto"
             : e->type == VI_OPTION_INT          ? "an integer"
             : e->type == VI_OPTION_BOOL         ? "true or false"
             : e->type == VI_OPTION_REALS        ? "a comma-separated list of numbers"
                                                 : "a comma-separated list of integers");
  PetscCheck(finite || nbad < 0, comm, PETSC_ERR_USER_INPUT, "%s: entry %" PetscInt_FMT " of '%s' is not a finite number", name, nbad, raw);
  PetscCheck(finite, comm, PETSC_ERR_USER_INPUT, "%s: '%s' is not a finite number", name, raw);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIOptionsCheck(MPI_Comm comm)
{
  PetscInt n;
  char   **names, **values;

  PetscFunctionBeginUser;
  /* the options nobody has read yet: PETSc's and SLEPc's start-up have read theirs, vicms's commands have not started */
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt i = 0; i < n; i++) {
    char                 name[512], suggestion[256];
    const VIOptionEntry *e;
    PetscErrorCode       ierr;

    PetscCall(PetscSNPrintf(name, sizeof(name), "%s%s", names[i][0] == '-' ? "" : "-", names[i]));
    e = VIOptionsFind(name);
    if (!e) {
      VIOptionsSuggest(name, suggestion, sizeof(suggestion));
      PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
      PetscCheck(!suggestion[0], comm, PETSC_ERR_USER_INPUT, "unknown option %s (did you mean %s?)", name, suggestion);
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "unknown option %s (vicms COMMAND -help lists the options)", name);
    }
    ierr = VIOptionsCheckValue(comm, name, e);
    if (ierr) {
      PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
      PetscCall(ierr);
    }
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  /* the case parameters too, so that `vicms run` stops on a misspelt one before it reduces */
  {
    const char *axes[] = {"-cases_grid", "-cases_values", "-cases_random"};
    for (int a = 0; a < 3; a++) {
      char          *items[64];
      PetscInt       m = 64;
      PetscBool      set;
      PetscErrorCode ierr = PETSC_SUCCESS;
      PetscCall(PetscOptionsGetStringArray(NULL, NULL, axes[a], items, &m, &set));
      for (PetscInt i = 0; i < m; i++) {
        char *colon = strchr(items[i], ':');
        if (colon) *colon = 0;
        if (!ierr) ierr = VIOptionsCheckCaseParameter(comm, axes[a], items[i]);
        PetscCall(PetscFree(items[i]));
      }
      PetscCall(ierr);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIOptionsCheckCaseParameter(MPI_Comm comm, const char option[], const char param[])
{
  char                 name[512], suggestion[256];
  const VIOptionEntry *e;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", param));
  e = VIOptionsFind(name);
  if (!e || !VIOptionsIsVicms(name)) {
    VIOptionsSuggest(name, suggestion, sizeof(suggestion));
    PetscCheck(!suggestion[0], comm, PETSC_ERR_USER_INPUT, "%s: unknown case parameter '%s' (did you mean %s?)", option, param, suggestion + 1);
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s: unknown case parameter '%s' (a case parameter is a numeric case option without its dash)", option,
            param);
  }
  PetscCheck(e->type == VI_OPTION_REAL || e->type == VI_OPTION_REAL_OR_AUTO || e->type == VI_OPTION_INT || e->type == VI_OPTION_BOOL, comm,
             PETSC_ERR_USER_INPUT, "%s: the case parameter '%s' is not a numeric option", option, param);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ job files */

/* The flat YAML subset of vicms jobs: comments, blank lines, `key: value` at column 0 (value optional, quoted or a
   [flow, list] on one line); anything else is refused with its line, and so is a key given twice. */
int VIOptionsCheckYAML(const char path[], char message[], size_t len)
{
  FILE *f = fopen(path, "r");
  char  line[8192];
  int   lineno = 0, nkeys = 0;
  struct {
    char key[128];
    int  line;
  } keys[1024];

  message[0] = 0;
  if (!f) {
    snprintf(message, len, "-options_file: cannot open %s", path);
    return 1;
  }
  while (fgets(line, sizeof(line), f)) {
    size_t      l = strlen(line), k = 0;
    const char *v;

    lineno++;
    if (l == sizeof(line) - 1 && line[l - 1] != '\n') {
      snprintf(message, len, "%s:%d: line longer than %d characters", path, lineno, (int)sizeof(line) - 2);
      break;
    }
    while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
    {
      const char *p = line;
      while (*p == ' ') p++;
      if (!*p || *p == '#') continue;
      if (!strcmp(line, "---") || !strcmp(line, "...")) continue;
      if (*p == '\t' || p != line) {
        snprintf(message, len, "%s:%d: indented line '%s'; vicms job files are flat lists of 'key: value' lines starting at the first column", path,
                 lineno, line);
        break;
      }
    }
    if (line[0] == '-') {
      snprintf(message, len, "%s:%d: '%s': write the option name without its dash ('key: value')", path, lineno, line);
      break;
    }
    while (isalnum((unsigned char)line[k]) || line[k] == '_') k++;
    if (k == 0 || line[k] != ':' || (line[k + 1] && line[k + 1] != ' ' && line[k + 1] != '\t')) {
      snprintf(message, len, "%s:%d: '%s' is not 'key: value' (a key is letters, digits and '_', then ': ', then the value)", path, lineno, line);
      break;
    }
    if (k >= sizeof(keys[0].key)) {
      snprintf(message, len, "%s:%d: key longer than %d characters", path, lineno, (int)sizeof(keys[0].key) - 1);
      break;
    }
    v = line + k + 1;
    while (*v == ' ' || *v == '\t') v++;
    if (*v == '"' || *v == '\'' || *v == '[') {
      char        close = *v == '[' ? ']' : *v;
      const char *c     = strchr(v + 1, close);
      if (!c) {
        snprintf(message, len, "%s:%d: the value %s has no closing %c", path, lineno, v, close);
        break;
      }
    } else if (*v == '{' || *v == '&' || *v == '*' || *v == '|' || *v == '>' || *v == '!') {
      snprintf(message, len, "%s:%d: the value '%s' is YAML that vicms job files do not use (write a plain value)", path, lineno, v);
      break;
    }
    for (int i = 0; i < nkeys; i++)
      if (strlen(keys[i].key) == k && !strncmp(keys[i].key, line, k)) {
        snprintf(message, len, "%s:%d: duplicate key '%.*s' (first at %s:%d)", path, lineno, (int)k, line, path, keys[i].line);
        break;
      }
    if (message[0]) break;
    if (nkeys == (int)(sizeof(keys) / sizeof(keys[0]))) {
      snprintf(message, len, "%s:%d: more than %d keys", path, lineno, nkeys);
      break;
    }
    memcpy(keys[nkeys].key, line, k);
    keys[nkeys].key[k] = 0;
    keys[nkeys].line   = lineno;
    nkeys++;
  }
  fclose(f);
  return message[0] ? 1 : 0;
}

/* ------------------------------------------------------------------ -help */

/* PETSc prints its help in pieces; lines are assembled, and only the sections' lines of vicms's options are kept. */
static char      help_line[8192], help_title[1024];
static size_t    help_len;
static PetscBool help_after_rule, help_title_printed, help_keep;

static PetscErrorCode VIHelpLine(MPI_Comm comm, const char *line)
{
  const char *p = line;
  size_t      n = 0;
  char        name[256];

  PetscFunctionBeginUser;
  if (strlen(line) >= 10 && strspn(line, "-") == strlen(line)) {
    help_after_rule = PETSC_TRUE;
    help_keep       = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (help_after_rule) {
    help_after_rule = PETSC_FALSE;
    PetscCall(PetscStrncpy(help_title, line, sizeof(help_title)));
    help_title_printed = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  while (*p == ' ') p++;
  if (p != line && *p == '-') {
    while (p[n] && p[n] != ' ' && p[n] != ':' && p[n] != '<' && n < sizeof(name) - 1) n++;
    memcpy(name, p, n);
    name[n]   = 0;
    help_keep = VIOptionsIsVicms(name);
    if (help_keep && !help_title_printed) {
      PetscCall(PetscHelpPrintfDefault(comm, "%s\n", help_title));
      help_title_printed = PETSC_TRUE;
    }
  }
  if (help_keep) PetscCall(PetscHelpPrintfDefault(comm, "%s\n", line));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIHelpPrintf(MPI_Comm comm, const char format[], ...)
{
  char    piece[8192];
  va_list ap;

  PetscFunctionBeginUser;
  va_start(ap, format);
  vsnprintf(piece, sizeof(piece), format, ap);
  va_end(ap);
  for (const char *c = piece; *c; c++) {
    if (*c == '\n' || help_len == sizeof(help_line) - 1) {
      help_line[help_len] = 0;
      help_len            = 0;
      PetscCall(VIHelpLine(comm, help_line));
      if (*c == '\n') continue;
    }
    help_line[help_len++] = *c;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void VIOptionsFilterHelp(void)
{
  PetscHelpPrintf = VIHelpPrintf;
}
