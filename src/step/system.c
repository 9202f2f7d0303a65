/* VISystem: the mechanical system of one contact case — a ROM with its loads, gaps, friction and initial state. */
#include "stepimpl.h"
#include <petscblaslapack.h>

const char *const        VIInitTypes[] = {"rest", "velocity", "static", "VIInitType", "VI_INIT_", NULL};
static const char *const VIGapShapes[] = {"cosine", "bump", "VIGapShape", "VI_GAP_", NULL};

PetscErrorCode VISystemCreate(MPI_Comm comm, VISystem *sys)
{
  VISystem s;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&s));
  s->comm          = comm;
  s->init          = VI_INIT_REST;
  s->init_velocity = 0;
  s->gap_waves     = 1;
  s->damping_scale = 1;
  s->time_scale    = 1;
  *sys             = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemDestroy(VISystem *sys)
{
  VISystem s;

  PetscFunctionBeginUser;
  if (!sys || !*sys) PetscFunctionReturn(PETSC_SUCCESS);
  s = *sys;
  for (PetscInt l = 0; l < s->num_loads; l++) {
    PetscCall(VIExcitationDestroy(&s->load_fn[l]));
    PetscCall(PetscFree(s->load_names[l]));
  }
  PetscCall(PetscFree3(s->load_fn, s->load_names, s->load_vec));
  PetscCall(PetscFree6(s->dims, s->offsets, s->mu, s->preload, s->gap_phase, s->normal_row));
  PetscCall(PetscFree(s->kinds));
  PetscCall(PetscFree(s->obstacle_v));
  PetscCall(PetscFree(s->gap_cs));
  PetscCall(PetscFree2(s->q0, s->u0));
  PetscCall(PetscFree2(s->q_given, s->u_given));
  PetscCall(PetscFree(s->damping_scaled));
  PetscCall(PetscFree(s));
  *sys = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ROM is used, not copied or owned: keep it alive while the system lives (many cases share one ROM). */
PetscErrorCode VISystemSetROM(VISystem sys, VIROM rom)
{
  PetscFunctionBeginUser;
  sys->rom   = rom;
  sys->setup = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetROM(VISystem sys, VIROM *rom)
{
  PetscFunctionBeginUser;
  *rom = sys->rom;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemSetFromOptions(VISystem sys)
{
  char     *names[VI_MAX_LOADS];
  PetscInt  nnames = VI_MAX_LOADS, nphases = VI_MAX_CONTACTS;
  PetscBool has_phases;
  char      dir[8] = "x";

  PetscFunctionBeginUser;
  sys->setup = PETSC_FALSE;
  PetscOptionsBegin(sys->comm, NULL, "Contact case", "VISystem");
  PetscCall(PetscOptionsStringArray("-case_loads", "ROM loads that act; each has a time function with options prefix load_NAME_ (default constant 1)",
                                    "VISystemSetFromOptions", names, &nnames, NULL));
  PetscCall(PetscOptionsReal("-contact_mu", "Coulomb friction coefficient of every contact", "", sys->mu_all, &sys->mu_all, NULL));
  PetscCall(PetscOptionsReal("-contact_preload", "Normal preload of every contact (preloaded contacts start closed)", "", sys->preload_all,
                             &sys->preload_all, NULL));
  PetscCall(PetscOptionsReal("-contact_sliding_speed", "Speed of the obstacle along the first tangent t1", "", sys->sliding_speed,
                             &sys->sliding_speed, NULL));
  PetscCall(PetscOptionsReal("-contact_gap", "Mean initial gap g of every contact", "", sys->gap_mean, &sys->gap_mean, NULL));
  PetscCall(PetscOptionsReal("-contact_gap_amplitude", "Amplitude a of the imposed gap g + a cos(k Omega t + phi_j)", "", sys->gap_amplitude,
                             &sys->gap_amplitude, NULL));
  PetscCall(PetscOptionsInt("-contact_gap_waves", "Waves (or bumps) k of the imposed gap per revolution", "", sys->gap_waves, &sys->gap_waves, NULL));
  PetscCall(PetscOptionsEnum("-contact_gap_shape",
                             "cosine: g + a cos(k Omega t + phi_j); bump: g - a exp(-d^2 / (2 w^2)), d = k Omega t + phi_j wrapped to (-pi, pi]", "",
                             VIGapShapes, (PetscEnum)sys->gap_shape, (PetscEnum *)&sys->gap_shape, NULL));
  PetscCall(
      PetscOptionsReal("-contact_gap_bump_width", "Angular width w (rad) of the Gaussian bump", "", sys->gap_bump_width, &sys->gap_bump_width, NULL));
  PetscCall(PetscOptionsReal("-contact_rotation_speed", "Rotation speed Omega (rad/s) of the imposed gap", "", sys->rotation_speed,
                             &sys->rotation_speed, NULL));
  {
    PetscInt  na = 3, no = 3;
    PetscBool has_origin;
    PetscCall(PetscOptionsRealArray("-contact_rotation_axis",
                                    "The structure spins about this axis inside a fixed obstacle: per-contact sliding velocities and gap phases", "",
                                    sys->rotation_axis, &na, &sys->rotation_frame));
    PetscCheck(!sys->rotation_frame || na == 3, sys->comm, PETSC_ERR_USER_INPUT, "-contact_rotation_axis: got %" PetscInt_FMT " numbers, expected 3",
               na);
    PetscCall(PetscOptionsRealArray("-contact_rotation_origin", "A point of the rotation axis", "", sys->rotation_origin, &no, &has_origin));
    PetscCheck(!has_origin || no == 3, sys->comm, PETSC_ERR_USER_INPUT, "-contact_rotation_origin: got %" PetscInt_FMT " numbers, expected 3", no);
  }
  PetscCall(PetscOptionsRealArray("-contact_gap_phases", "Phase phi_j of the imposed gap, one per contact (rad)", "", sys->phases_given, &nphases,
                                  &has_phases));
  PetscCall(PetscOptionsReal("-contact_gap_phase_step", "Phase step between consecutive contacts, phi_j = j * step (rad)", "", sys->gap_phase_step,
                             &sys->gap_phase_step, NULL));
  PetscCall(PetscOptionsReal("-case_damping_scale", "Scale s of the ROM's damping matrix in this case: D -> s D (a case parameter for ensembles)", "",
                             sys->damping_scale, &sys->damping_scale, NULL));
  PetscCall(PetscOptionsEnum("-init", "Initial state: rest, velocity (uniform), static (deflection under a load)", "", VIInitTypes,
                             (PetscEnum)sys->init, (PetscEnum *)&sys->init, NULL));
  PetscCall(PetscOptionsReal("-init_velocity", "Uniform initial velocity (with -init velocity)", "", sys->init_velocity, &sys->init_velocity, NULL));
  PetscCall(PetscOptionsString("-init_direction", "Direction x, y or z of the uniform initial velocity", "", dir, dir, sizeof(dir), NULL));
  PetscCall(PetscOptionsString("-init_load", "ROM load whose static deflection is the initial state (with -init static)", "", sys->init_load,
                               sys->init_load, sizeof(sys->init_load), NULL));
  PetscOptionsEnd();
  PetscCheck(sys->mu_all >= 0, sys->comm, PETSC_ERR_USER_INPUT, "-contact_mu: got %g, expected >= 0", (double)sys->mu_all);
  PetscCheck(sys->damping_scale >= 0, sys->comm, PETSC_ERR_USER_INPUT,
             "-case_damping_scale: got %g, expected a scale s >= 0 of the ROM's damping matrix (D -> s D; 1 keeps the ROM's damping)",
             (double)sys->damping_scale);
  PetscCheck(sys->preload_all >= 0, sys->comm, PETSC_ERR_USER_INPUT, "-contact_preload: got %g, expected >= 0", (double)sys->preload_all);
  PetscCheck(sys->gap_shape != VI_GAP_BUMP || (sys->gap_bump_width > 0 && sys->gap_bump_width <= PETSC_PI / 3), sys->comm, PETSC_ERR_USER_INPUT,
             "-contact_gap_bump_width: got %g, expected a width in (0, pi/3] rad for -contact_gap_shape bump", (double)sys->gap_bump_width);
  PetscCheck(sys->gap_waves >= 0, sys->comm, PETSC_ERR_USER_INPUT, "-contact_gap_waves: got %" PetscInt_FMT ", expected >= 0", sys->gap_waves);
  PetscCheck((dir[0] == 'x' || dir[0] == 'y' || dir[0] == 'z') && !dir[1], sys->comm, PETSC_ERR_USER_INPUT,
             "-init_direction: got '%s', expected x, y or z", dir);
  sys->init_direction   = dir[0] - 'x';
  sys->num_phases_given = has_phases ? nphases : 0;
  for (PetscInt l = 0; l < sys->num_loads; l++) PetscCall(PetscFree(sys->load_names[l]));
  PetscCall(PetscFree3(sys->load_fn, sys->load_names, sys->load_vec));
  sys->num_loads = nnames;
  PetscCall(PetscCalloc3(PetscMax(nnames, 1), &sys->load_fn, PetscMax(nnames, 1), &sys->load_names, PetscMax(nnames, 1), &sys->load_vec));
  for (PetscInt l = 0; l < nnames; l++) {
    char prefix[96];
    sys->load_names[l] = names[l];
    PetscCall(VIExcitationCreate(sys->comm, &sys->load_fn[l]));
    PetscCall(VIExcitationSetType(sys->load_fn[l], VI_EXCITE_CONSTANT));
    PetscCall(VIExcitationSetAmplitude(sys->load_fn[l], 0, 1));
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "load_%s_", names[l]));
    PetscCall(VIExcitationSetOptionsPrefix(sys->load_fn[l], prefix));
    PetscCall(VIExcitationSetFromOptions(sys->load_fn[l]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Initial state: rest, a uniform velocity (the ROM's translation shape), or the static deflection K q = f under a load. */
static PetscErrorCode VISystemInitialState(VISystem sys, PetscInt n, const PetscReal K[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(sys->q0, sys->u0));
  PetscCall(PetscCalloc2(n, &sys->q0, n, &sys->u0));
  if (sys->q_given) {
    PetscCall(PetscArraycpy(sys->q0, sys->q_given, n));
    PetscCall(PetscArraycpy(sys->u0, sys->u_given, n));
  } else if (sys->init == VI_INIT_VELOCITY) {
    const PetscReal *shape;
    PetscBool        found;
    char             name[32];
    PetscCall(PetscSNPrintf(name, sizeof(name), "translation_%c", (char)('x' + sys->init_direction)));
    PetscCall(VIROMFindShape(sys->rom, name, &shape, &found));
    PetscCheck(found, sys->comm, PETSC_ERR_USER_INPUT,
               "-init velocity: the ROM has no shape '%s' (vicms reduce stores it when the parent is free to translate along %c and the boundary "
               "includes that direction)",
               name, (char)('x' + sys->init_direction));
    for (PetscInt k = 0; k < n; k++) sys->u0[k] = sys->init_velocity * shape[k];
  } else if (sys->init == VI_INIT_STATIC) {
    const PetscReal *f;
    PetscBool        found;
    PetscReal       *A;
    PetscBLASInt     bn, one = 1, info;
    PetscCall(VIROMFindLoad(sys->rom, sys->init_load, &f, &found));
    PetscCheck(found, sys->comm, PETSC_ERR_USER_INPUT, "-init_load: the ROM has no load '%s'", sys->init_load);
    PetscCall(PetscMalloc1(n * n, &A));
    PetscCall(PetscArraycpy(A, K, n * n));
    PetscCall(PetscArraycpy(sys->q0, f, n));
    PetscCall(PetscBLASIntCast(n, &bn));
    PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bn, A, &bn, &info));
    PetscCheck(info == 0, sys->comm, PETSC_ERR_USER_INPUT,
               "-init static: the ROM's stiffness is singular (a free-floating model has no static deflection)");
    PetscCallBLAS("LAPACKpotrs", LAPACKpotrs_("L", &bn, &one, A, &bn, sys->q0, &bn, &info));
    PetscCall(PetscFree(A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A structure spinning at Omega about an axis inside a fixed obstacle: at contact j (radius r_j, circumferential
   direction e_theta = a x e_r), the obstacle moves at -Omega r_j e_theta relative to the structure; its components
   along the contact's tangents, and the gap phase k theta_j with theta_j the contact's angle from the first contact. */
static PetscErrorCode VISystemRotationFrame(VISystem sys, PetscInt nc, const VIContactInfo contacts[])
{
  PetscReal a[3], norm, ref[3] = {0, 0, 0}, ref2[3] = {0, 0, 0};

  PetscFunctionBeginUser;
  norm = PetscSqrtReal(sys->rotation_axis[0] * sys->rotation_axis[0] + sys->rotation_axis[1] * sys->rotation_axis[1] +
                       sys->rotation_axis[2] * sys->rotation_axis[2]);
  PetscCheck(norm > 0, sys->comm, PETSC_ERR_USER_INPUT, "-contact_rotation_axis: the axis is a zero vector");
  for (PetscInt d = 0; d < 3; d++) a[d] = sys->rotation_axis[d] / norm;
  for (PetscInt j = 0; j < nc; j++) {
    PetscReal rv[3], r, ar, er[3], et[3], cth, sth;
    for (PetscInt d = 0; d < 3; d++) rv[d] = contacts[j].coords[d] - sys->rotation_origin[d];
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
      sys->obstacle_v[2 * j + t] = -sys->rotation_speed * r * (et[0] * tang[0] + et[1] * tang[1] + et[2] * tang[2]);
    }
    if (j == 0) {
      PetscCall(PetscArraycpy(ref, er, 3));
      ref2[0] = a[1] * ref[2] - a[2] * ref[1];
      ref2[1] = a[2] * ref[0] - a[0] * ref[2];
      ref2[2] = a[0] * ref[1] - a[1] * ref[0];
    }
    cth = er[0] * ref[0] + er[1] * ref[1] + er[2] * ref[2];
    sth = er[0] * ref2[0] + er[1] * ref2[1] + er[2] * ref2[2];
    if (!sys->num_phases_given) sys->gap_phase[j] = sys->gap_waves * PetscAtan2Real(sth, cth);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Set up once for the ROM and options given: every stepper set up on the case later (the harmonic balance's transients,
   one per branch point) reuses the arrays, and the references to them stay valid. */
PetscErrorCode VISystemSetUp(VISystem sys)
{
  PetscInt             n, nc;
  const VIContactInfo *contacts;
  PetscReal           *K, *M, *D;

  PetscFunctionBeginUser;
  if (sys->setup) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(sys->rom, sys->comm, PETSC_ERR_ORDER, "Call VISystemSetROM() first");
  PetscCall(VIROMGetSizes(sys->rom, &sys->nb, &sys->nm));
  PetscCall(VIROMGetMethod(sys->rom, NULL, &sys->massless));
  PetscCall(VIROMGetMatrices(sys->rom, &K, &M, &D));
  n = sys->n = sys->nb + sys->nm;
  sys->K     = K;
  sys->M     = M;
  sys->D     = D;
  PetscCall(PetscFree(sys->damping_scaled));
  if (sys->damping_scale != 1) {
    PetscCall(PetscMalloc1(n * n, &sys->damping_scaled));
    for (PetscInt i = 0; i < n * n; i++) sys->damping_scaled[i] = sys->damping_scale * D[i];
    sys->D = sys->damping_scaled;
  }
  PetscCall(VIROMGetContacts(sys->rom, &nc, &contacts));
  PetscCheck(nc <= VI_MAX_CONTACTS, sys->comm, PETSC_ERR_SUP, "At most %d contacts per case", VI_MAX_CONTACTS);
  sys->nc = nc;
  PetscCall(PetscFree6(sys->dims, sys->offsets, sys->mu, sys->preload, sys->gap_phase, sys->normal_row));
  PetscCall(PetscFree(sys->kinds));
  PetscCall(PetscFree(sys->obstacle_v));
  PetscCall(PetscCalloc1(2 * PetscMax(nc, 1), &sys->obstacle_v));
  PetscCall(PetscMalloc1(PetscMax(nc, 1), &sys->kinds));
  PetscCall(PetscMalloc6(PetscMax(nc, 1), &sys->dims, PetscMax(nc, 1), &sys->offsets, PetscMax(nc, 1), &sys->mu, PetscMax(nc, 1), &sys->preload,
                         PetscMax(nc, 1), &sys->gap_phase, PetscMax(nc, 1), &sys->normal_row));
  PetscCheck(sys->num_phases_given == 0 || sys->num_phases_given == nc, sys->comm, PETSC_ERR_USER_INPUT,
             "-contact_gap_phases: got %" PetscInt_FMT " phases for %" PetscInt_FMT " contacts", sys->num_phases_given, nc);
  for (PetscInt j = 0; j < nc; j++) {
    sys->dims[j]           = contacts[j].dim;
    sys->offsets[j]        = contacts[j].offset;
    sys->normal_row[j]     = contacts[j].offset;
    sys->mu[j]             = sys->mu_all;
    sys->preload[j]        = sys->preload_all;
    sys->gap_phase[j]      = sys->num_phases_given ? sys->phases_given[j] : j * sys->gap_phase_step;
    sys->obstacle_v[2 * j] = sys->sliding_speed;
  }
  if (sys->rotation_frame) PetscCall(VISystemRotationFrame(sys, nc, contacts));
  /* a bilateral row B q = 0 (seed 002 Eq. 1c) is held at 0: the case's friction, preload and obstacle motion act on the
     unilateral contacts only (VISystemEvaluateGaps gives it g0 = 0) */
  for (PetscInt j = 0; j < nc; j++) {
    sys->kinds[j] = contacts[j].kind;
    if (sys->kinds[j] != VI_CONTACT_BILATERAL) continue;
    sys->mu[j] = sys->preload[j] = 0;
    sys->obstacle_v[2 * j] = sys->obstacle_v[2 * j + 1] = 0;
  }
  /* cos and sin of the gap phases: a step then needs the trigonometry of k Omega t only (angle addition) */
  PetscCall(PetscFree(sys->gap_cs));
  PetscCall(PetscMalloc1(2 * PetscMax(nc, 1), &sys->gap_cs));
  for (PetscInt j = 0; j < nc; j++) {
    sys->gap_cs[2 * j]     = PetscCosReal(sys->gap_phase[j]);
    sys->gap_cs[2 * j + 1] = PetscSinReal(sys->gap_phase[j]);
  }
  for (PetscInt l = 0; l < sys->num_loads; l++) {
    PetscBool found;
    PetscCall(VIROMFindLoad(sys->rom, sys->load_names[l], &sys->load_vec[l], &found));
    PetscCheck(found, sys->comm, PETSC_ERR_USER_INPUT, "-case_loads: the ROM has no load '%s'", sys->load_names[l]);
  }
  PetscCall(VISystemInitialState(sys, n, K));
  sys->setup = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrices every solver of the case reads: the ROM's K and M, and its D times -case_damping_scale. */
PetscErrorCode VISystemGetMatrices(VISystem sys, const PetscReal **K, const PetscReal **M, const PetscReal **D)
{
  PetscFunctionBeginUser;
  PetscCheck(sys->K, sys->comm, PETSC_ERR_ORDER, "Call VISystemSetUp() first");
  if (K) *K = sys->K;
  if (M) *M = sys->M;
  if (D) *D = sys->D;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetSizes(VISystem sys, PetscInt *n, PetscInt *nb, PetscInt *nm)
{
  PetscFunctionBeginUser;
  if (n) *n = sys->n;
  if (nb) *nb = sys->nb;
  if (nm) *nm = sys->nm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemEvaluateForce(VISystem sys, PetscReal t, PetscReal f[])
{
  PetscReal s[VI_MAX_LOADS];

  PetscFunctionBeginUser;
  PetscCall(VISystemEvaluateLoadScales(sys, t, s));
  PetscCall(VISystemForceFromScales(sys, s, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemForceFromScales(VISystem sys, const PetscReal s[], PetscReal f[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(f, sys->n));
  for (PetscInt l = 0; l < sys->num_loads; l++)
    for (PetscInt k = 0; k < sys->n; k++) f[k] += s[l] * sys->load_vec[l][k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetLoads(VISystem sys, PetscInt *num_loads, const PetscReal *const **vectors)
{
  PetscFunctionBeginUser;
  if (num_loads) *num_loads = sys->num_loads;
  if (vectors) *vectors = sys->load_vec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemEvaluateLoadScales(VISystem sys, PetscReal t, PetscReal s[])
{
  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < sys->num_loads; l++) PetscCall(VIExcitationEvaluate(sys->load_fn[l], sys->time_scale * t, &s[l], NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* g0_j(t) = g + a cos(k Omega t + phi_j) and its rate; 0 for a bilateral row (B q = 0). */
static PetscErrorCode VISystemEvaluateObstacle(VISystem, PetscReal, PetscReal[], PetscReal[]);

PetscErrorCode VISystemEvaluateGaps(VISystem sys, PetscReal t, PetscReal g0[], PetscReal g0_rate[])
{
  PetscFunctionBeginUser;
  PetscCall(VISystemEvaluateObstacle(sys, t, g0, g0_rate));
  for (PetscInt j = 0; j < sys->nc; j++)
    if (sys->kinds[j] == VI_CONTACT_BILATERAL) {
      if (g0) g0[j] = 0;
      if (g0_rate) g0_rate[j] = 0;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemEvaluateObstacle(VISystem sys, PetscReal t, PetscReal g0[], PetscReal g0_rate[])
{
  /* played time_scale s times faster (g0(s t), rate s g0'(s t)): the gap's angular rate times s */
  const PetscReal w = sys->gap_waves * sys->rotation_speed * sys->time_scale;

  PetscFunctionBeginUser;
  if (sys->gap_amplitude == 0) { /* a fixed obstacle: no trigonometry per step */
    for (PetscInt j = 0; j < sys->nc; j++) {
      if (g0) g0[j] = sys->gap_mean;
      if (g0_rate) g0_rate[j] = 0;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (sys->gap_shape == VI_GAP_COSINE) {
    /* cos(w t + phi_j) and sin(w t + phi_j) by angle addition from cos(w t), sin(w t) and the phases' (set-up) */
    const PetscReal c = PetscCosReal(w * t), sn = PetscSinReal(w * t), a = sys->gap_amplitude;
    for (PetscInt j = 0; j < sys->nc; j++) {
      const PetscReal cp = sys->gap_cs[2 * j], sp = sys->gap_cs[2 * j + 1];
      if (g0) g0[j] = sys->gap_mean + a * (c * cp - sn * sp);
      if (g0_rate) g0_rate[j] = -a * w * (sn * cp + c * sp);
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* a Gaussian bump of the obstacle once per k-th of a revolution; the nearest bump only (w <= pi/3) */
  for (PetscInt j = 0; j < sys->nc; j++) {
    PetscReal arg = w * t + sys->gap_phase[j], d = arg - 2 * PETSC_PI * PetscFloorReal((arg + PETSC_PI) / (2 * PETSC_PI)), s = sys->gap_bump_width,
              b = PetscExpReal(-d * d / (2 * s * s));
    if (g0) g0[j] = sys->gap_mean - sys->gap_amplitude * b;
    if (g0_rate) g0_rate[j] = sys->gap_amplitude * b * d / (s * s) * w;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetContactSet(VISystem sys, VIContactSet *set, const PetscReal **obstacle_velocity)
{
  PetscFunctionBeginUser;
  set->num_contacts = sys->nc;
  set->dims         = sys->dims;
  set->mu           = sys->mu;
  set->preload      = sys->preload;
  set->kinds        = sys->kinds;
  if (obstacle_velocity) *obstacle_velocity = sys->obstacle_v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetLoadFrequency(VISystem sys, PetscReal t, PetscReal *f, VIExciteType *type)
{
  PetscFunctionBeginUser;
  *f    = 0;
  *type = VI_EXCITE_CONSTANT;
  for (PetscInt l = 0; l < sys->num_loads; l++) {
    VIExciteType lt;
    PetscCall(VIExcitationGetType(sys->load_fn[l], &lt));
    if (lt == VI_EXCITE_HARMONIC || lt == VI_EXCITE_SWEEP_LINEAR || lt == VI_EXCITE_SWEEP_LOG) {
      PetscCall(VIExcitationGetFrequency(sys->load_fn[l], sys->time_scale * t, f));
      *f *= sys->time_scale;
      *type = lt;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemSetTimeScale(VISystem sys, PetscReal s)
{
  PetscFunctionBeginUser;
  PetscCheck(s > 0, sys->comm, PETSC_ERR_ARG_OUTOFRANGE, "VISystemSetTimeScale: got %g, expected a positive scale", (double)s);
  sys->time_scale = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetTimeScale(VISystem sys, PetscReal *s)
{
  PetscFunctionBeginUser;
  *s = sys->time_scale;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemSetInitialState(VISystem sys, const PetscReal q0[], const PetscReal u0[])
{
  PetscFunctionBeginUser;
  PetscCheck(sys->K, sys->comm, PETSC_ERR_ORDER, "Call VISystemSetUp() before VISystemSetInitialState()");
  PetscCall(PetscFree2(sys->q_given, sys->u_given));
  if (q0 || u0) {
    PetscCall(PetscCalloc2(sys->n, &sys->q_given, sys->n, &sys->u_given));
    if (q0) PetscCall(PetscArraycpy(sys->q_given, q0, sys->n));
    if (u0) PetscCall(PetscArraycpy(sys->u_given, u0, sys->n));
  }
  PetscCall(VISystemInitialState(sys, sys->n, sys->K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetInitialState(VISystem sys, const PetscReal **q0, const PetscReal **u0)
{
  PetscFunctionBeginUser;
  if (q0) *q0 = sys->q0;
  if (u0) *u0 = sys->u0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemView(VISystem sys, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(sys->comm, &viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "Case: %" PetscInt_FMT " contacts, mu %g, gap %g", sys->nc, (double)sys->mu_all, (double)sys->gap_mean));
  if (sys->gap_amplitude != 0 && sys->gap_shape == VI_GAP_BUMP)
    PetscCall(PetscViewerASCIIPrintf(viewer, " - a Gaussian bump of %g, width %g rad, %" PetscInt_FMT " per revolution at %g rad/s",
                                     (double)sys->gap_amplitude, (double)sys->gap_bump_width, sys->gap_waves, (double)sys->rotation_speed));
  else if (sys->gap_amplitude != 0)
    PetscCall(PetscViewerASCIIPrintf(viewer, " + %g cos(%" PetscInt_FMT " x %g t + phi_j)", (double)sys->gap_amplitude, sys->gap_waves,
                                     (double)sys->rotation_speed));
  PetscCall(PetscViewerASCIIPrintf(viewer, ", %" PetscInt_FMT " load%s", sys->num_loads, sys->num_loads == 1 ? "" : "s"));
  for (PetscInt l = 0; l < sys->num_loads; l++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s%s", l ? ", " : ": ", sys->load_names[l]));
  if (sys->damping_scale != 1) PetscCall(PetscViewerASCIIPrintf(viewer, ", damping %g x the ROM's", (double)sys->damping_scale));
  PetscCall(PetscViewerASCIIPrintf(viewer, ", initial state %s\n", VIInitTypes[sys->init]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A ROM's gaps are linear in q: g_j = q[normal row of j] + g0_j(t), gradient the unit row of that coordinate, rate dg0_j/dt. */
PetscErrorCode VISystemEvaluateConstraints(VISystem sys, PetscReal t, const PetscReal q[], PetscReal g[], PetscReal G[], PetscReal g_rate[])
{
  PetscReal g0[VI_MAX_CONTACTS], rate[VI_MAX_CONTACTS];

  PetscFunctionBeginUser;
  PetscCall(VISystemEvaluateGaps(sys, t, g0, rate));
  if (G) PetscCall(PetscArrayzero(G, sys->nc * sys->n));
  for (PetscInt j = 0; j < sys->nc; j++) {
    PetscInt r = sys->normal_row[j];
    if (g) g[j] = q[r] + g0[j];
    if (G) G[j * sys->n + r] = 1;
    if (g_rate) g_rate[j] = rate[j];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
