/* The reduced system type: a ROM (vicms reduce, or a user's matrices) with its loads, gaps, friction and initial state;
   linear, constant mass (VISYSTEMREDUCED). */
#include "systemimpl.h"
#include <petscblaslapack.h>

typedef enum { VI_GAP_COSINE, VI_GAP_BUMP } VIGapShape;

const char *const        VIInitTypes[] = {"rest", "velocity", "static", "VIInitType", "VI_INIT_", NULL};
const char *const VIGapShapes[] = {"cosine", "bump", "VIGapShape", "VI_GAP_", NULL};

typedef struct {
  VIROM     rom; /* used, not owned */
  PetscInt  nc;
  PetscBool massless;

  /* the case's damping D = damping_scale D_rom (seed 000 Eq. 1): the ROM's own array when the scale is 1, else damping_scaled,
     owned here (the ROM is shared by the cases of a job, so it is never scaled in place) */
  PetscReal        damping_scale;
  PetscReal       *damping_scaled;
  const PetscReal *K, *M, *D;

  /* loads: f(t) = sum_l s_l(t) load_vec[l] */
  PetscInt          num_loads;
  char            **load_names;
  VIExcitation     *load_fn;
  const PetscReal **load_vec;

  /* contacts */
  PetscInt      *dims, *offsets, *normal_row;
  VIContactKind *kinds;                             /* per contact: bilateral rows are held at 0 (no imposed gap, friction, preload or sliding) */
  PetscReal     *mu, *preload, *gap_phase, *gap_cs; /* gap_cs: cos and sin of each gap phase */
  PetscReal     *obstacle_v;                        /* nc x 2: the obstacle's velocity along t1 and t2 of each contact */
  PetscReal      mu_all, preload_all, sliding_speed;
  PetscReal      rotation_axis[3], rotation_origin[3];
  PetscBool      rotation_frame;
  VIGapShape     gap_shape;
  PetscReal      gap_bump_width;
  PetscReal      gap_mean, gap_amplitude, rotation_speed, gap_phase_step, phases_given[VI_MAX_CONTACTS];
  PetscInt       gap_waves, num_phases_given;

  /* initial state */
  VIInitType init;
  PetscReal  init_velocity;
  PetscInt   init_direction;
  char       init_load[64];
  PetscReal *q0, *u0;

  /* set by a caller, not by options (VISystemSetInitialState): an initial state that replaces -init (q_given, u_given: n
     each; NULL when none) */
  PetscReal *q_given, *u_given;
} VISystem_Reduced;

static PetscErrorCode VISystemDestroy_Reduced(VISystem sys)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < rd->num_loads; l++) {
    PetscCall(VIExcitationDestroy(&rd->load_fn[l]));
    PetscCall(PetscFree(rd->load_names[l]));
  }
  PetscCall(PetscFree3(rd->load_fn, rd->load_names, rd->load_vec));
  PetscCall(PetscFree6(rd->dims, rd->offsets, rd->mu, rd->preload, rd->gap_phase, rd->normal_row));
  PetscCall(PetscFree(rd->kinds));
  PetscCall(PetscFree(rd->obstacle_v));
  PetscCall(PetscFree(rd->gap_cs));
  PetscCall(PetscFree2(rd->q0, rd->u0));
  PetscCall(PetscFree2(rd->q_given, rd->u_given));
  PetscCall(PetscFree(rd->damping_scaled));
  PetscCall(PetscFree(sys->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ROM is used, not copied or owned: keep it alive while the system lives (many cases share one ROM). */
static PetscErrorCode VISystemSetROM_Reduced(VISystem sys, VIROM rom)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  rd->rom = rom;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetROM_Reduced(VISystem sys, VIROM *rom)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  *rom = rd->rom;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetNumOutputs_Reduced(VISystem sys, PetscInt *num)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetNumOutputs(rd->rom, num));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ROM's outputs are rows times q (vicms reduce -cms_outputs) */
static PetscErrorCode VISystemGetOutput_Reduced(VISystem sys, PetscInt o, const char **name, const PetscReal **row)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetOutput(rd->rom, o, name, row));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Massless boundary: the reduction method says (cb_massless, macneal); the method's name for messages */
static PetscErrorCode VISystemHasMasslessBoundary_Reduced(VISystem sys, PetscBool *massless, const char **kind)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;
  VICMSType         method;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetMethod(rd->rom, &method, massless));
  *kind = VIROMMethods[method];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The lowest positive frequency of the ROM's inner modes (stored at reduction) */
static PetscErrorCode VISystemGetLowestFrequency_Reduced(VISystem sys, PetscReal *f)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;
  PetscReal        *freq;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetFrequencies(rd->rom, &freq));
  *f = 0;
  for (PetscInt k = 0; k < sys->nm && *f == 0; k++)
    if (freq[k] > 0) *f = freq[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ROM, shared by a job's cases: with the options it makes the case */
static PetscErrorCode VISystemGetDataId_Reduced(VISystem sys, const void **id)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  *id = rd->rom;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemSetFromOptions_Reduced(VISystem sys, PetscOptionItems *PetscOptionsObject)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;
  char     *names[VI_MAX_LOADS];
  PetscInt  nnames = VI_MAX_LOADS, nphases = VI_MAX_CONTACTS;
  PetscBool has_phases;
  char      dir[8] = "x";

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsStringArray("-case_loads", "ROM loads that act; each has a time function with options prefix load_NAME_ (default constant 1)",
                                    "VISystemSetFromOptions", names, &nnames, NULL));
  PetscCall(PetscOptionsReal("-contact_mu", "Coulomb friction coefficient of every contact", "", rd->mu_all, &rd->mu_all, NULL));
  PetscCall(PetscOptionsReal("-contact_preload", "Normal preload of every contact (preloaded contacts start closed)", "", rd->preload_all,
                             &rd->preload_all, NULL));
  PetscCall(PetscOptionsReal("-contact_sliding_speed", "Speed of the obstacle along the first tangent t1", "", rd->sliding_speed,
                             &rd->sliding_speed, NULL));
  PetscCall(PetscOptionsReal("-contact_gap", "Mean initial gap g of every contact", "", rd->gap_mean, &rd->gap_mean, NULL));
  PetscCall(PetscOptionsReal("-contact_gap_amplitude", "Amplitude a of the imposed gap g + a cos(k Omega t + phi_j)", "", rd->gap_amplitude,
                             &rd->gap_amplitude, NULL));
  PetscCall(PetscOptionsInt("-contact_gap_waves", "Waves (or bumps) k of the imposed gap per revolution", "", rd->gap_waves, &rd->gap_waves, NULL));
  PetscCall(PetscOptionsEnum("-contact_gap_shape",
                             "cosine: g + a cos(k Omega t + phi_j); bump: g - a exp(-d^2 / (2 w^2)), d = k Omega t + phi_j wrapped to (-pi, pi]", "",
                             VIGapShapes, (PetscEnum)rd->gap_shape, (PetscEnum *)&rd->gap_shape, NULL));
  PetscCall(
      PetscOptionsReal("-contact_gap_bump_width", "Angular width w (rad) of the Gaussian bump", "", rd->gap_bump_width, &rd->gap_bump_width, NULL));
  PetscCall(PetscOptionsReal("-contact_rotation_speed", "Rotation speed Omega (rad/s) of the imposed gap", "", rd->rotation_speed,
                             &rd->rotation_speed, NULL));
  {
    PetscInt  na = 3, no = 3;
    PetscBool has_origin;
    PetscCall(PetscOptionsRealArray("-contact_rotation_axis",
                                    "The structure spins about this axis inside a fixed obstacle: per-contact sliding velocities and gap phases", "",
                                    rd->rotation_axis, &na, &rd->rotation_frame));
    PetscCheck(!rd->rotation_frame || na == 3, sys->comm, PETSC_ERR_USER_INPUT, "-contact_rotation_axis: got %" PetscInt_FMT " numbers, expected 3",
               na);
    PetscCall(PetscOptionsRealArray("-contact_rotation_origin", "A point of the rotation axis", "", rd->rotation_origin, &no, &has_origin));
    PetscCheck(!has_origin || no == 3, sys->comm, PETSC_ERR_USER_INPUT, "-contact_rotation_origin: got %" PetscInt_FMT " numbers, expected 3", no);
  }
  PetscCall(PetscOptionsRealArray("-contact_gap_phases", "Phase phi_j of the imposed gap, one per contact (rad)", "", rd->phases_given, &nphases,
                                  &has_phases));
  PetscCall(PetscOptionsReal("-contact_gap_phase_step", "Phase step between consecutive contacts, phi_j = j * step (rad)", "", rd->gap_phase_step,
                             &rd->gap_phase_step, NULL));
  PetscCall(PetscOptionsReal("-case_damping_scale", "Scale s of the ROM's damping matrix in this case: D -> s D (a case parameter for ensembles)", "",
                             rd->damping_scale, &rd->damping_scale, NULL));
  PetscCall(PetscOptionsEnum("-init", "Initial state: rest, velocity (uniform), static (deflection under a load)", "", VIInitTypes,
                             (PetscEnum)rd->init, (PetscEnum *)&rd->init, NULL));
  PetscCall(PetscOptionsReal("-init_velocity", "Uniform initial velocity (with -init velocity)", "", rd->init_velocity, &rd->init_velocity, NULL));
  PetscCall(PetscOptionsString("-init_direction", "Direction x, y or z of the uniform initial velocity", "", dir, dir, sizeof(dir), NULL));
  PetscCall(PetscOptionsString("-init_load", "ROM load whose static deflection is the initial state (with -init static)", "", rd->init_load,
                               rd->init_load, sizeof(rd->init_load), NULL));
  PetscCheck(rd->mu_all >= 0 && rd->mu_all <= 1e6, sys->comm, PETSC_ERR_USER_INPUT,
             "-contact_mu: got %g, expected 0 <= mu <= 1e6 (a contact that never slips: a large mu such as 1e3)", (double)rd->mu_all);
  PetscCheck(rd->damping_scale >= 0, sys->comm, PETSC_ERR_USER_INPUT,
             "-case_damping_scale: got %g, expected a scale s >= 0 of the ROM's damping matrix (D -> s D; 1 keeps the ROM's damping)",
             (double)rd->damping_scale);
  PetscCheck(rd->preload_all >= 0, sys->comm, PETSC_ERR_USER_INPUT, "-contact_preload: got %g, expected >= 0", (double)rd->preload_all);
  PetscCheck(rd->gap_shape != VI_GAP_BUMP || (rd->gap_bump_width > 0 && rd->gap_bump_width <= PETSC_PI / 3), sys->comm, PETSC_ERR_USER_INPUT,
             "-contact_gap_bump_width: got %g, expected a width in (0, pi/3] rad for -contact_gap_shape bump", (double)rd->gap_bump_width);
  PetscCheck(rd->gap_waves >= 0, sys->comm, PETSC_ERR_USER_INPUT, "-contact_gap_waves: got %" PetscInt_FMT ", expected >= 0", rd->gap_waves);
  PetscCheck((dir[0] == 'x' || dir[0] == 'y' || dir[0] == 'z') && !dir[1], sys->comm, PETSC_ERR_USER_INPUT,
             "-init_direction: got '%s', expected x, y or z", dir);
  rd->init_direction   = dir[0] - 'x';
  rd->num_phases_given = has_phases ? nphases : 0;
  /* a load named twice would act twice (its vector added with each time function, both read from the same load_NAME_ options) */
  for (PetscInt l = 0; l < nnames; l++)
    for (PetscInt m = 0; m < l; m++) {
      PetscBool same;
      PetscCall(PetscStrcmp(names[l], names[m], &same));
      if (same) {
        char name[256];
        PetscCall(PetscStrncpy(name, names[l], sizeof(name)));
        for (PetscInt i = 0; i < nnames; i++) PetscCall(PetscFree(names[i]));
        SETERRQ(sys->comm, PETSC_ERR_USER_INPUT,
                "-case_loads: '%s' is named twice (entries %" PetscInt_FMT " and %" PetscInt_FMT "); a load acts once: scale it with -load_%s_amplitude",
                name, m + 1, l + 1, name);
      }
    }
  for (PetscInt l = 0; l < rd->num_loads; l++) PetscCall(PetscFree(rd->load_names[l]));
  PetscCall(PetscFree3(rd->load_fn, rd->load_names, rd->load_vec));
  rd->num_loads = nnames;
  PetscCall(PetscCalloc3(PetscMax(nnames, 1), &rd->load_fn, PetscMax(nnames, 1), &rd->load_names, PetscMax(nnames, 1), &rd->load_vec));
  for (PetscInt l = 0; l < nnames; l++) {
    char prefix[96];
    rd->load_names[l] = names[l];
    PetscCall(VIExcitationCreate(sys->comm, &rd->load_fn[l]));
    PetscCall(VIExcitationSetType(rd->load_fn[l], VI_EXCITE_CONSTANT));
    PetscCall(VIExcitationSetAmplitude(rd->load_fn[l], 0, 1));
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "load_%s_", names[l]));
    PetscCall(VIExcitationSetOptionsPrefix(rd->load_fn[l], prefix));
    PetscCall(VIExcitationSetFromOptions(rd->load_fn[l]));
  }
  {
    PetscBool help;
    PetscCall(PetscOptionsHasHelp(NULL, &help));
    if (help && !nnames) { /* -help without a load named: show a load's options under -load_NAME_ (they are read per named load) */
      VIExcitation e;
      PetscCall(VIExcitationCreate(sys->comm, &e));
      PetscCall(VIExcitationSetOptionsPrefix(e, "load_NAME_"));
      PetscCall(VIExcitationSetFromOptions(e));
      PetscCall(VIExcitationDestroy(&e));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Initial state: rest, a uniform velocity (the ROM's translation shape), or the static deflection K q = f under a load. */
static PetscErrorCode VISystemInitialState(VISystem sys, PetscInt n, const PetscReal K[])
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree2(rd->q0, rd->u0));
  PetscCall(PetscCalloc2(n, &rd->q0, n, &rd->u0));
  if (rd->q_given) {
    PetscCall(PetscArraycpy(rd->q0, rd->q_given, n));
    PetscCall(PetscArraycpy(rd->u0, rd->u_given, n));
  } else if (rd->init == VI_INIT_VELOCITY) {
    const PetscReal *shape;
    PetscBool        found;
    char             name[32];
    PetscCall(PetscSNPrintf(name, sizeof(name), "translation_%c", (char)('x' + rd->init_direction)));
    PetscCall(VIROMFindShape(rd->rom, name, &shape, &found));
    PetscCheck(found, sys->comm, PETSC_ERR_USER_INPUT,
               "-init velocity: the ROM has no shape '%s' (vicms reduce stores it when the parent is free to translate along %c and the boundary "
               "includes that direction)",
               name, (char)('x' + rd->init_direction));
    for (PetscInt k = 0; k < n; k++) rd->u0[k] = rd->init_velocity * shape[k];
  } else if (rd->init == VI_INIT_STATIC) {
    const PetscReal *f;
    PetscBool        found;
    PetscReal       *A;
    PetscBLASInt     bn, one = 1, info;
    PetscCall(VIROMFindLoad(rd->rom, rd->init_load, &f, &found));
    PetscCheck(found, sys->comm, PETSC_ERR_USER_INPUT, "-init_load: the ROM has no load '%s'", rd->init_load);
    PetscCall(PetscMalloc1(n * n, &A));
    PetscCall(PetscArraycpy(A, K, n * n));
    PetscCall(PetscArraycpy(rd->q0, f, n));
    PetscCall(PetscBLASIntCast(n, &bn));
    PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bn, A, &bn, &info));
    PetscCheck(info == 0, sys->comm, PETSC_ERR_USER_INPUT,
               "-init static: the ROM's stiffness is singular (a free-floating model has no static deflection)");
    PetscCallBLAS("LAPACKpotrs", LAPACKpotrs_("L", &bn, &one, A, &bn, rd->q0, &bn, &info));
    PetscCall(PetscFree(A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A structure spinning at Omega about an axis inside a fixed obstacle: at contact j (radius r_j, circumferential
   direction e_theta = a x e_r), the obstacle moves at -Omega r_j e_theta relative to the structure; its components
   along the contact's tangents, and the gap phase k theta_j with theta_j the contact's angle from the first contact. */
static PetscErrorCode VISystemRotationFrame(VISystem sys, PetscInt nc, const VIContactInfo contacts[])
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;
  PetscReal         a[3], norm, ref[3] = {0, 0, 0}, ref2[3] = {0, 0, 0};

  PetscFunctionBeginUser;
  norm = PetscSqrtReal(rd->rotation_axis[0] * rd->rotation_axis[0] + rd->rotation_axis[1] * rd->rotation_axis[1] +
                       rd->rotation_axis[2] * rd->rotation_axis[2]);
  PetscCheck(norm > 0, sys->comm, PETSC_ERR_USER_INPUT, "-contact_rotation_axis: the axis is a zero vector");
  for (PetscInt d = 0; d < 3; d++) a[d] = rd->rotation_axis[d] / norm;
  for (PetscInt j = 0; j < nc; j++) {
    PetscReal rv[3], r, ar, er[3], et[3], cth, sth;
    for (PetscInt d = 0; d < 3; d++) rv[d] = contacts[j].coords[d] - rd->rotation_origin[d];
    ar = rv[0] * a[0] + rv[1] * a[1] + rv[2] * a[2];
    for (PetscInt d = 0; d < 3; d++) rv[d] -= ar * a[d];
    r = PetscSqrtReal(rv[0] * rv[0] + rv[1] * rv[1] + rv[2] * rv[2]);
    PetscCheck(r > 0, sys->comm, PETSC_ERR_USER_INPUT, "-contact_rotation_axis: contact node %" PetscInt_FMT " lies on the rotation axis",
               contacts[j].node_id);
    for (PetscInt d = 0; d < 3; d++) er[d] = rv[d] / r;
    et[0] = a[1] * er[2] - a[2] * er[1];
    et[1] = a[2] * er[0] - a[0] * er[2];
    et[2] = a[0] * er[1] - a[1] * er[0];
    for (PetscInt t = 0; t < 2; t++) {
      const PetscReal *tang      = contacts[j].frame + 3 * (t + 1);
      rd->obstacle_v[2 * j + t] = -rd->rotation_speed * r * (et[0] * tang[0] + et[1] * tang[1] + et[2] * tang[2]);
    }
    if (j == 0) {
      PetscCall(PetscArraycpy(ref, er, 3));
      ref2[0] = a[1] * ref[2] - a[2] * ref[1];
      ref2[1] = a[2] * ref[0] - a[0] * ref[2];
      ref2[2] = a[0] * ref[1] - a[1] * ref[0];
    }
    cth = er[0] * ref[0] + er[1] * ref[1] + er[2] * ref[2];
    sth = er[0] * ref2[0] + er[1] * ref2[1] + er[2] * ref2[2];
    if (!rd->num_phases_given) rd->gap_phase[j] = rd->gap_waves * PetscAtan2Real(sth, cth);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Set up once for the ROM and options given: every stepper set up on the case later (the harmonic balance's transients,
   one per branch point) reuses the arrays, and the references to them stay valid. */
static PetscErrorCode VISystemSetUp_Reduced(VISystem sys)
{
  VISystem_Reduced    *rd = (VISystem_Reduced *)sys->data;
  PetscInt             n, nc;
  const VIContactInfo *contacts;
  PetscReal           *K, *M, *D;

  PetscFunctionBeginUser;
  PetscCheck(rd->rom, sys->comm, PETSC_ERR_ORDER, "Call VISystemSetROM() first");
  PetscCall(VIROMGetSizes(rd->rom, &sys->nb, &sys->nm));
  PetscCall(VIROMGetMethod(rd->rom, NULL, &rd->massless));
  PetscCall(VIROMGetMatrices(rd->rom, &K, &M, &D));
  n = sys->n = sys->nb + sys->nm;
  rd->K     = K;
  rd->M     = M;
  rd->D     = D;
  PetscCall(PetscFree(rd->damping_scaled));
  if (rd->damping_scale != 1) {
    PetscCall(PetscMalloc1(n * n, &rd->damping_scaled));
    for (PetscInt i = 0; i < n * n; i++) rd->damping_scaled[i] = rd->damping_scale * D[i];
    rd->D = rd->damping_scaled;
  }
  PetscCall(VIROMGetContacts(rd->rom, &nc, &contacts));
  PetscCheck(nc <= VI_MAX_CONTACTS, sys->comm, PETSC_ERR_SUP, "At most %d contacts per case", VI_MAX_CONTACTS);
  rd->nc = nc;
  PetscCall(PetscFree6(rd->dims, rd->offsets, rd->mu, rd->preload, rd->gap_phase, rd->normal_row));
  PetscCall(PetscFree(rd->kinds));
  PetscCall(PetscFree(rd->obstacle_v));
  PetscCall(PetscCalloc1(2 * PetscMax(nc, 1), &rd->obstacle_v));
  PetscCall(PetscMalloc1(PetscMax(nc, 1), &rd->kinds));
  PetscCall(PetscMalloc6(PetscMax(nc, 1), &rd->dims, PetscMax(nc, 1), &rd->offsets, PetscMax(nc, 1), &rd->mu, PetscMax(nc, 1), &rd->preload,
                         PetscMax(nc, 1), &rd->gap_phase, PetscMax(nc, 1), &rd->normal_row));
  PetscCheck(rd->num_phases_given == 0 || rd->num_phases_given == nc, sys->comm, PETSC_ERR_USER_INPUT,
             "-contact_gap_phases: got %" PetscInt_FMT " phases for %" PetscInt_FMT " contacts", rd->num_phases_given, nc);
  for (PetscInt j = 0; j < nc; j++) {
    rd->dims[j]           = contacts[j].dim;
    rd->offsets[j]        = contacts[j].offset;
    rd->normal_row[j]     = contacts[j].offset;
    rd->mu[j]             = rd->mu_all;
    rd->preload[j]        = rd->preload_all;
    rd->gap_phase[j]      = rd->num_phases_given ? rd->phases_given[j] : j * rd->gap_phase_step;
    rd->obstacle_v[2 * j] = rd->sliding_speed;
  }
  if (rd->rotation_frame) PetscCall(VISystemRotationFrame(sys, nc, contacts));
  /* a bilateral row B q = 0 (seed 002 Eq. 1c) is held at 0: the case's friction, preload and obstacle motion act on the
     unilateral contacts only (VISystemEvaluateGaps gives it g0 = 0) */
  for (PetscInt j = 0; j < nc; j++) {
    rd->kinds[j] = contacts[j].kind;
    if (rd->kinds[j] != VI_CONTACT_BILATERAL) continue;
    rd->mu[j] = rd->preload[j] = 0;
    rd->obstacle_v[2 * j] = rd->obstacle_v[2 * j + 1] = 0;
  }
  /* cos and sin of the gap phases: a step then needs the trigonometry of k Omega t only (angle addition) */
  PetscCall(PetscFree(rd->gap_cs));
  PetscCall(PetscMalloc1(2 * PetscMax(nc, 1), &rd->gap_cs));
  for (PetscInt j = 0; j < nc; j++) {
    rd->gap_cs[2 * j]     = PetscCosReal(rd->gap_phase[j]);
    rd->gap_cs[2 * j + 1] = PetscSinReal(rd->gap_phase[j]);
  }
  for (PetscInt l = 0; l < rd->num_loads; l++) {
    PetscBool found;
    PetscCall(VIROMFindLoad(rd->rom, rd->load_names[l], &rd->load_vec[l], &found));
    PetscCheck(found, sys->comm, PETSC_ERR_USER_INPUT, "-case_loads: the ROM has no load '%s'", rd->load_names[l]);
  }
  PetscCall(VISystemInitialState(sys, n, K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrices every solver of the case reads: the ROM's K and M, and its D times -case_damping_scale. */
static PetscErrorCode VISystemGetLinearOperators_Reduced(VISystem sys, const PetscReal **K, const PetscReal **M, const PetscReal **D)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  PetscCheck(rd->K, sys->comm, PETSC_ERR_ORDER, "Call VISystemSetUp() first");
  if (K) *K = rd->K;
  if (M) *M = rd->M;
  if (D) *D = rd->D;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetLoads_Reduced(VISystem sys, PetscInt *num_loads, const PetscReal *const **vectors)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  if (num_loads) *num_loads = rd->num_loads;
  if (vectors) *vectors = rd->load_vec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemEvaluateLoadScales_Reduced(VISystem sys, PetscReal t, PetscReal s[])
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < rd->num_loads; l++) PetscCall(VIExcitationEvaluate(rd->load_fn[l], sys->time_scale * t, &s[l], NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* g0_j(t) = g + a cos(k Omega t + phi_j) and its rate; 0 for a bilateral row (B q = 0). */
static PetscErrorCode VISystemEvaluateObstacle(VISystem, PetscReal, PetscReal[], PetscReal[]);

static PetscErrorCode VISystemEvaluateGaps_Reduced(VISystem sys, PetscReal t, PetscReal g0[], PetscReal g0_rate[])
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(VISystemEvaluateObstacle(sys, t, g0, g0_rate));
  for (PetscInt j = 0; j < rd->nc; j++)
    if (rd->kinds[j] == VI_CONTACT_BILATERAL) {
      if (g0) g0[j] = 0;
      if (g0_rate) g0_rate[j] = 0;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemEvaluateObstacle(VISystem sys, PetscReal t, PetscReal g0[], PetscReal g0_rate[])
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;
  /* played time_scale s times faster (g0(s t), rate s g0'(s t)): the gap's angular rate times s */
  const PetscReal w = rd->gap_waves * rd->rotation_speed * sys->time_scale;

  PetscFunctionBeginUser;
  if (rd->gap_amplitude == 0) { /* a fixed obstacle: no trigonometry per step */
    for (PetscInt j = 0; j < rd->nc; j++) {
      if (g0) g0[j] = rd->gap_mean;
      if (g0_rate) g0_rate[j] = 0;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (rd->gap_shape == VI_GAP_COSINE) {
    /* cos(w t + phi_j) and sin(w t + phi_j) by angle addition from cos(w t), sin(w t) and the phases' (set-up) */
    const PetscReal c = PetscCosReal(w * t), sn = PetscSinReal(w * t), a = rd->gap_amplitude;
    for (PetscInt j = 0; j < rd->nc; j++) {
      const PetscReal cp = rd->gap_cs[2 * j], sp = rd->gap_cs[2 * j + 1];
      if (g0) g0[j] = rd->gap_mean + a * (c * cp - sn * sp);
      if (g0_rate) g0_rate[j] = -a * w * (sn * cp + c * sp);
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* a Gaussian bump of the obstacle once per k-th of a revolution; the nearest bump only (w <= pi/3) */
  for (PetscInt j = 0; j < rd->nc; j++) {
    PetscReal arg = w * t + rd->gap_phase[j], d = arg - 2 * PETSC_PI * PetscFloorReal((arg + PETSC_PI) / (2 * PETSC_PI)), s = rd->gap_bump_width,
              b = PetscExpReal(-d * d / (2 * s * s));
    if (g0) g0[j] = rd->gap_mean - rd->gap_amplitude * b;
    if (g0_rate) g0_rate[j] = rd->gap_amplitude * b * d / (s * s) * w;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetContactSet_Reduced(VISystem sys, VIContactSet *set, const PetscReal **obstacle_velocity)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  set->num_contacts = rd->nc;
  set->dims         = rd->dims;
  set->mu           = rd->mu;
  set->preload      = rd->preload;
  set->kinds        = rd->kinds;
  if (obstacle_velocity) *obstacle_velocity = rd->obstacle_v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetLoadFrequency_Reduced(VISystem sys, PetscReal t, PetscReal *f, VIExciteType *type)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < rd->num_loads; l++) {
    VIExciteType lt;
    PetscCall(VIExcitationGetType(rd->load_fn[l], &lt));
    if (lt == VI_EXCITE_HARMONIC || lt == VI_EXCITE_SWEEP_LINEAR || lt == VI_EXCITE_SWEEP_LOG) {
      PetscCall(VIExcitationGetFrequency(rd->load_fn[l], sys->time_scale * t, f));
      *f *= sys->time_scale;
      *type = lt;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the loads' time functions are played time_scale times faster: their own time and step are scaled alike */
static PetscErrorCode VISystemCheckSampling_Reduced(VISystem sys, PetscReal t0, PetscReal t1, PetscReal dt)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;
  const PetscReal   s  = sys->time_scale;

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < rd->num_loads; l++) PetscCall(VIExcitationCheckSampling(rd->load_fn[l], s * t0, s * t1, s * dt, sys->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemSetInitialState_Reduced(VISystem sys, const PetscReal q0[], const PetscReal u0[])
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  PetscCheck(rd->K, sys->comm, PETSC_ERR_ORDER, "Call VISystemSetUp() before VISystemSetInitialState()");
  PetscCall(PetscFree2(rd->q_given, rd->u_given));
  if (q0 || u0) {
    PetscCall(PetscCalloc2(sys->n, &rd->q_given, sys->n, &rd->u_given));
    if (q0) PetscCall(PetscArraycpy(rd->q_given, q0, sys->n));
    if (u0) PetscCall(PetscArraycpy(rd->u_given, u0, sys->n));
  }
  PetscCall(VISystemInitialState(sys, sys->n, rd->K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetInitialState_Reduced(VISystem sys, const PetscReal **q0, const PetscReal **u0)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  if (q0) *q0 = rd->q0;
  if (u0) *u0 = rd->u0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemView_Reduced(VISystem sys, PetscViewer viewer)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "Case: %" PetscInt_FMT " contacts, mu %g, gap %g", rd->nc, (double)rd->mu_all, (double)rd->gap_mean));
  if (rd->gap_amplitude != 0 && rd->gap_shape == VI_GAP_BUMP)
    PetscCall(PetscViewerASCIIPrintf(viewer, " - a Gaussian bump of %g, width %g rad, %" PetscInt_FMT " per revolution at %g rad/s",
                                     (double)rd->gap_amplitude, (double)rd->gap_bump_width, rd->gap_waves, (double)rd->rotation_speed));
  else if (rd->gap_amplitude != 0)
    PetscCall(PetscViewerASCIIPrintf(viewer, " + %g cos(%" PetscInt_FMT " x %g t + phi_j)", (double)rd->gap_amplitude, rd->gap_waves,
                                     (double)rd->rotation_speed));
  PetscCall(PetscViewerASCIIPrintf(viewer, ", %" PetscInt_FMT " load%s", rd->num_loads, rd->num_loads == 1 ? "" : "s"));
  for (PetscInt l = 0; l < rd->num_loads; l++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s%s", l ? ", " : ": ", rd->load_names[l]));
  if (rd->damping_scale != 1) PetscCall(PetscViewerASCIIPrintf(viewer, ", damping %g x the ROM's", (double)rd->damping_scale));
  PetscCall(PetscViewerASCIIPrintf(viewer, ", initial state %s\n", VIInitTypes[rd->init]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A ROM's gaps are linear in q: g_j = q[normal row of j] + g0_j(t), gradient the unit row of that coordinate, rate dg0_j/dt. */
static PetscErrorCode VISystemEvaluateConstraints_Reduced(VISystem sys, PetscReal t, const PetscReal q[], PetscReal g[], PetscReal G[], PetscReal g_rate[])
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;
  PetscReal         g0[VI_MAX_CONTACTS], rate[VI_MAX_CONTACTS];

  PetscFunctionBeginUser;
  PetscCall(VISystemEvaluateGaps(sys, t, g0, rate));
  if (G) PetscCall(PetscArrayzero(G, rd->nc * sys->n));
  for (PetscInt j = 0; j < rd->nc; j++) {
    PetscInt r = rd->normal_row[j];
    if (g) g[j] = q[r] + g0[j];
    if (G) G[j * sys->n + r] = 1;
    if (g_rate) g_rate[j] = rate[j];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M(q) = M: the ROM's mass, constant. */
static PetscErrorCode VISystemComputeMass_Reduced(VISystem sys, const PetscReal q[], PetscReal M[])
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  (void)q;
  PetscCall(PetscArraycpy(M, rd->M, sys->n * sys->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f(t, q, u) = f_ext(t) - K q - D u (seed 000 Eq. 1). */
static PetscErrorCode VISystemComputeForce_Reduced(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal f[])
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;
  const PetscInt    n  = sys->n;

  PetscFunctionBeginUser;
  PetscCall(VISystemEvaluateForce(sys, t, f));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal s = 0;
    for (PetscInt j = 0; j < n; j++) s += rd->K[i * n + j] * q[j] + rd->D[i * n + j] * u[j];
    f[i] -= s;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* df/dq = -K, df/du = -D. */
static PetscErrorCode VISystemComputeForceJacobian_Reduced(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal dfdq[],
                                                           PetscReal dfdu[])
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  (void)t;
  (void)q;
  (void)u;
  for (PetscInt i = 0; i < sys->n * sys->n; i++) {
    if (dfdq) dfdq[i] = -rd->K[i];
    if (dfdu) dfdu[i] = -rd->D[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* T = u^T M u / 2, V = q^T K q / 2. */
static PetscErrorCode VISystemComputeEnergy_Reduced(VISystem sys, const PetscReal q[], const PetscReal u[], PetscReal *kinetic, PetscReal *potential)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;
  const PetscInt    n  = sys->n;
  PetscReal         T = 0, V = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      T += 0.5 * u[i] * rd->M[i * n + j] * u[j];
      V += 0.5 * q[i] * rd->K[i * n + j] * q[j];
    }
  *kinetic   = T;
  *potential = V;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetContacts_Reduced(VISystem sys, PetscInt *nc, const VIContactKind **kinds, const PetscInt **dims, const PetscInt **offsets)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  if (nc) *nc = rd->nc;
  if (kinds) *kinds = rd->kinds;
  if (dims) *dims = rd->dims;
  if (offsets) *offsets = rd->offsets;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A ROM's gradient G is constant (unit rows): d(G^T lambda)/dq = 0. */
static PetscErrorCode VISystemComputeConstraintCurvature_Reduced(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal lambda[], PetscReal H[])
{
  PetscFunctionBeginUser;
  (void)t;
  (void)q;
  (void)lambda;
  PetscCall(PetscArrayzero(H, sys->n * sys->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetGapBound_Reduced(VISystem sys, PetscReal *bound)
{
  VISystem_Reduced *rd = (VISystem_Reduced *)sys->data;

  PetscFunctionBeginUser;
  *bound = PetscAbsReal(rd->gap_mean) + PetscAbsReal(rd->gap_amplitude);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemCreate_Reduced(VISystem sys)
{
  VISystem_Reduced *rd;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&rd));
  rd->init                     = VI_INIT_REST;
  rd->init_velocity            = 0;
  rd->gap_waves                = 1;
  rd->damping_scale            = 1;
  sys->data                    = rd;
  sys->constant_mass           = PETSC_TRUE;
  sys->linear                  = PETSC_TRUE;
  sys->ops.setfromoptions      = VISystemSetFromOptions_Reduced;
  sys->ops.setup               = VISystemSetUp_Reduced;
  sys->ops.view                = VISystemView_Reduced;
  sys->ops.destroy             = VISystemDestroy_Reduced;
  sys->ops.setrom              = VISystemSetROM_Reduced;
  sys->ops.getrom              = VISystemGetROM_Reduced;
  sys->ops.computemass         = VISystemComputeMass_Reduced;
  sys->ops.getlinearoperators  = VISystemGetLinearOperators_Reduced;
  sys->ops.computeforce        = VISystemComputeForce_Reduced;
  sys->ops.computeforcejacobian = VISystemComputeForceJacobian_Reduced;
  sys->ops.computeenergy       = VISystemComputeEnergy_Reduced;
  sys->ops.getcontacts         = VISystemGetContacts_Reduced;
  sys->ops.getcontactset       = VISystemGetContactSet_Reduced;
  sys->ops.evaluateconstraints = VISystemEvaluateConstraints_Reduced;
  sys->ops.constraintcurvature = VISystemComputeConstraintCurvature_Reduced;
  sys->ops.evaluategaps        = VISystemEvaluateGaps_Reduced;
  sys->ops.getgapbound         = VISystemGetGapBound_Reduced;
  sys->ops.getloads            = VISystemGetLoads_Reduced;
  sys->ops.evaluateloadscales  = VISystemEvaluateLoadScales_Reduced;
  sys->ops.getloadfrequency    = VISystemGetLoadFrequency_Reduced;
  sys->ops.checksampling       = VISystemCheckSampling_Reduced;
  sys->ops.getinitialstate     = VISystemGetInitialState_Reduced;
  sys->ops.setinitialstate     = VISystemSetInitialState_Reduced;
  sys->ops.getnumoutputs       = VISystemGetNumOutputs_Reduced;
  sys->ops.getoutput           = VISystemGetOutput_Reduced;
  sys->ops.masslessboundary    = VISystemHasMasslessBoundary_Reduced;
  sys->ops.lowestfrequency     = VISystemGetLowestFrequency_Reduced;
  sys->ops.dataid              = VISystemGetDataId_Reduced;
  PetscFunctionReturn(PETSC_SUCCESS);
}
