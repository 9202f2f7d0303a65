/* The multibody system type (VISYSTEMMULTIBODY): planar rigid bodies in redundant coordinates q = (x, y, theta) per body
   (centre of mass and angle, seed 002 §10.2 and §10.4), joints as bilateral constraint rows, contacts of a body-fixed
   point against a line of another body or of the ground as unilateral rows with gaps g(q), gravity and constant loads;
   read from a model file (-mb_model FILE.yaml, mbmodel.c; docs/multibody.md). The drivers' motions and the loads' factors
   are time functions (mbtime.c).

   In these coordinates M = diag(m, m, J) per body is constant (constant_mass), and there is no gyroscopic force in the
   plane; gravity and the loads are constant, and the spring-dampers' forces f(q, u) come with their exact tangents
   (mbspring.c); the system is not linear because its constraints are not: g(q), G(q) and their curvature come from
   mbmodel.c.

   A flexible body in a floating frame (mbflex.c: its frame's origin and angle, then its ROM's elastic coordinates) has a
   mass M(theta, q_f), a quadratic velocity vector, gravity's generalized force and its ROM's -K q_f - D dq_f/dt in f(q, u);
   a model with one is not constant_mass, and gives d(M w)/dq (VISystemComputeMassJacobian). */
#include "mbimpl.h"

typedef struct {
  char           path[PETSC_MAX_PATH_LEN];
  VIMBModel      model;
  PetscBool      loaded;
  VIROM          rom; /* the ROM view (owned): outputs' names, units, contacts for the records */
  PetscInt       nc;
  VIContactKind *kinds;
  PetscBool     *linear; /* nc: the rows quadratic in q, norm rows and spherical joints' (spatial; NULL for a planar model) */
  PetscInt      *dims, *offsets;
  PetscReal     *mu, *preload, *obstacle_v, *restitution, *q0, *u0, *fext;
  PetscBool      given_restitution;
  PetscReal     *work; /* the flexible bodies' scratch (VIMBFlexForce) and local blocks */
  PetscReal     *hs;   /* n x n, zero between calls: one row's Hessian (VISystemComputeConstraintDerivatives_Multibody) */
  PetscInt      *idx;  /* 2 n: its coordinates */
  PetscInt       nqmax, nwork; /* the largest flexible body's coordinates; the size of its force's scratch (then its local blocks) */
  PetscReal     *torque0; /* spatial: 3 per body, the constant loads' torque (the timed loads' added at t: VISystemMultibodyTimedLoads) */
  PetscBool      timed;   /* a load has a factor s(t) */
  PetscBool      rigid;   /* a planar model of rigid bodies: its rows in one pass (mbrigid.c) */
  PetscInt       nt;      /* the tangential rows (VISystemEvaluateTangents) */
  VIMBRigid      rows;
} VISystem_Multibody;

static PetscErrorCode VISystemMultibodyFreeSetUp(VISystem_Multibody *mb)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree4(mb->kinds, mb->dims, mb->offsets, mb->mu));
  PetscCall(PetscFree(mb->linear));
  PetscCall(PetscFree3(mb->preload, mb->obstacle_v, mb->restitution));
  PetscCall(PetscFree3(mb->q0, mb->u0, mb->fext));
  PetscCall(PetscFree3(mb->work, mb->hs, mb->idx));
  PetscCall(PetscFree(mb->torque0));
  PetscCall(VIMBRigidDestroy(&mb->rows));
  mb->rigid = PETSC_FALSE;
  PetscCall(VIROMDestroy(&mb->rom));
  if (mb->loaded) PetscCall(VIMBModelFree(&mb->model));
  mb->loaded = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemDestroy_Multibody(VISystem sys)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(VISystemMultibodyFreeSetUp(mb));
  PetscCall(PetscFree(sys->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemSetFromOptions_Multibody(VISystem sys, PetscOptionItems *PetscOptionsObject)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;
  PetscBool           set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsString("-mb_model", "multibody: the model file (YAML: bodies, joints, contacts, loads, outputs; docs/multibody.md)", "",
                               mb->path, mb->path, sizeof(mb->path), &set));
  PetscCheck(mb->path[0], sys->comm, PETSC_ERR_USER_INPUT, "-system_type multibody needs its model file: -mb_model FILE.yaml (docs/multibody.md)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A ROM given to a multibody system (the ensemble gives every case its ROM view) is not needed: the model file is read. */
static PetscErrorCode VISystemSetROM_Multibody(VISystem sys, VIROM rom)
{
  PetscFunctionBeginUser;
  (void)sys;
  (void)rom;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetROM_Multibody(VISystem sys, VIROM *rom)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  *rom = mb->rom;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The model's named outputs (its ROM view's names; computed by VISystemComputeOutputs_Multibody, no rows) */
static PetscErrorCode VISystemGetNumOutputs_Multibody(VISystem sys, PetscInt *num)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  *num = 0;
  if (mb->rom) PetscCall(VIROMGetNumOutputs(mb->rom, num));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetOutput_Multibody(VISystem sys, PetscInt o, const char **name, const PetscReal **row)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetOutput(mb->rom, o, name, NULL));
  if (row) *row = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every body carries mass (a singular mass is refused when the model is read): no massless coordinates */
static PetscErrorCode VISystemHasMasslessBoundary_Multibody(VISystem sys, PetscBool *massless, const char **kind)
{
  PetscFunctionBeginUser;
  (void)sys;
  *massless = PETSC_FALSE;
  *kind     = "a multibody model";
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemSetUp_Multibody(VISystem sys)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;
  VIMBModel          *md = &mb->model;
  PetscInt            n, nc;

  PetscFunctionBeginUser;
  PetscCheck(mb->path[0], sys->comm, PETSC_ERR_USER_INPUT, "-system_type multibody needs its model file: -mb_model FILE.yaml (docs/multibody.md)");
  PetscCall(VISystemMultibodyFreeSetUp(mb));
  PetscCall(VIMBModelLoad(sys->comm, mb->path, md));
  mb->loaded = PETSC_TRUE;
  n          = md->n;
  nc         = md->nrows;
  sys->n     = n;
  sys->nb    = n;
  sys->nm    = 0;
  mb->nc     = nc;
  PetscCall(VIROMCreate(PETSC_COMM_SELF, &mb->rom));
  PetscCall(VIMBModelROM(md, mb->rom));
  PetscCall(PetscCalloc4(PetscMax(nc, 1), &mb->kinds, PetscMax(nc, 1), &mb->dims, PetscMax(nc, 1), &mb->offsets, PetscMax(nc, 1), &mb->mu));
  PetscCall(PetscCalloc3(PetscMax(nc, 1), &mb->preload, 2 * PetscMax(nc, 1), &mb->obstacle_v, PetscMax(nc, 1), &mb->restitution));
  PetscCall(PetscCalloc3(n, &mb->q0, n, &mb->u0, n, &mb->fext));
  mb->given_restitution = PETSC_FALSE;
  /* one force per row, a frictional contact's tangential force right after its normal one */
  for (PetscInt r = 0; r < nc; r++) {
    mb->dims[r]  = 1;
    mb->kinds[r] = r < nc - md->ncontacts ? VI_CONTACT_BILATERAL : VI_CONTACT_UNILATERAL;
  }
  if (md->dim == 3) { /* a prismatic joint's rows 0-1 are a point against body 1's planes, cubic in q (VIMBSpatialConstraint) */
    PetscCall(PetscCalloc1(nc, &mb->linear));
    for (PetscInt b = 1; b < md->nbodies; b++) mb->linear[md->qrow + b - 1] = PETSC_TRUE;
    for (PetscInt k = 0; k < md->njoints; k++) /* not at a flexible body's node (its row is cubic: p^T A(x + Phi q_f) p) */
      if (md->joints[k].type != VI_MB_JOINT_PRISMATIC && !md->joints[k].phi[0] && !md->joints[k].phi[1])
        for (PetscInt i = 0; i < 3; i++) mb->linear[md->joints[k].row + i] = PETSC_TRUE;
  }
  for (PetscInt k = 0; k < md->ncontacts; k++) {
    const VIMBContact *c = &md->contacts[k];
    mb->mu[c->row]       = c->mu;
    mb->dims[c->row]     = c->mu > 0 ? md->dim : 1; /* spatial: two tangential rows */
    if (c->restitution >= 0) mb->given_restitution = PETSC_TRUE;
  }
  for (PetscInt r = 0, off = 0; r < nc; off += mb->dims[r], r++) mb->offsets[r] = off;
  mb->nt = 0;
  for (PetscInt k = 0; k < md->ncontacts; k++)
    if (md->contacts[k].mu > 0) mb->nt += md->dim - 1;
  /* a contact without its own coefficient takes the first given one (or 0 when no contact gives one: then the stepper's) */
  for (PetscInt k = 0; k < md->ncontacts; k++) {
    const VIMBContact *c = &md->contacts[k];
    PetscReal          e = c->restitution;
    for (PetscInt i = 0; i < md->ncontacts && e < 0; i++) e = md->contacts[i].restitution;
    mb->restitution[c->row] = PetscMax(e, 0);
  }
  PetscCall(VIMBModelInitialState(md, mb->q0, mb->u0));
  mb->rigid = VIMBRigidApplies(md);
  if (mb->rigid) PetscCall(VIMBRigidCreate(md, &mb->rows));
  sys->constant_mass = PETSC_TRUE;
  mb->nqmax          = 0;
  for (PetscInt b = 1; b < md->nbodies; b++) {
    const VIMBBody *bd = &md->bodies[b];
    if (md->dim == 3 && bd->flex) { /* M(p, q_f), its gravity and the rest in VIMBFlexSpatialForce (mbflexspatial.c) */
      sys->constant_mass = PETSC_FALSE;
      mb->nqmax          = PetscMax(mb->nqmax, bd->nq);
      continue;
    }
    if (md->dim == 3) { /* M(p) and a quadratic velocity vector (mbspatial.c); gravity on the centre */
      sys->constant_mass = PETSC_FALSE;
      for (PetscInt d = 0; d < 3; d++) mb->fext[bd->off + d] = bd->mass * md->gravity[d];
      continue;
    }
    if (bd->flex) { /* its gravity depends on its angle and deformation: VIMBFlexForce */
      sys->constant_mass = PETSC_FALSE;
      mb->nqmax          = PetscMax(mb->nqmax, bd->nq);
      continue;
    }
    mb->fext[bd->off]     = bd->mass * md->gravity[0];
    mb->fext[bd->off + 1] = bd->mass * md->gravity[1];
  }
  {
    const PetscInt nq = mb->nqmax;
    mb->nwork         = md->dim == 3 ? VIMBFlexSpatialWorkSize(nq) : nq * nq * nq + 3 * nq * nq; /* VIMBFlexSpatialForce's, VIMBFlexForce's */
    PetscCall(PetscMalloc3(PetscMax(mb->nwork + 3 * nq * nq + nq, 1), &mb->work, n * n, &mb->hs, 2 * n, &mb->idx));
    PetscCall(PetscArrayzero(mb->hs, n * n));
  }
  mb->timed = PETSC_FALSE;
  for (PetscInt l = 0; l < md->nloads; l++) {
    const VIMBLoad *ld  = &md->loads[l];
    const PetscInt  off = md->bodies[ld->body].off; /* a flexible body's: at its frame's origin */
    /* a load scaled by s(t) is added at t: VISystemMultibodyTimedLoads */
    if (ld->factor) {
      mb->timed = PETSC_TRUE;
      continue;
    }
    mb->fext[off] += ld->force[0];
    mb->fext[off + 1] += ld->force[1];
    /* planar: the torque on the angle's row; spatial: the force on z, the torque through the quaternion (VIMBSpatialForce) */
    mb->fext[off + 2] += md->dim == 3 ? ld->force[2] : ld->torque[2];
  }
  if (mb->timed && md->dim == 3) {
    PetscCall(PetscMalloc1(3 * md->nbodies, &mb->torque0));
    for (PetscInt b = 0; b < md->nbodies; b++)
      for (PetscInt d = 0; d < 3; d++) mb->torque0[3 * b + d] = md->bodies[b].torque[d];
  }
  PetscCall(VIMBModelStaticElastic(sys, md, mb->q0, mb->u0)); /* 'initial: static' bodies' q_f (mbstatic.c); none: q0 as it is */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The loads with a factor at t: s(t) times their force added into f (NULL: none; planar: their torque on the angle's row),
   and a spatial body's torque in its frame (VIMBSpatialForce, and its tangent) set to the constant loads' plus s(t) times
   theirs. */
static void VISystemMultibodyTimedLoads(VISystem_Multibody *mb, PetscReal t, PetscReal f[])
{
  VIMBModel *md = &mb->model;

  if (!mb->timed) return;
  if (md->dim == 3)
    for (PetscInt b = 0; b < md->nbodies; b++)
      for (PetscInt d = 0; d < 3; d++) md->bodies[b].torque[d] = mb->torque0[3 * b + d];
  for (PetscInt l = 0; l < md->nloads; l++) {
    const VIMBLoad *ld  = &md->loads[l];
    const PetscInt  off = md->bodies[ld->body].off;
    PetscReal       sc;
    if (!ld->factor) continue;
    VIMBTimeFunctionEvaluate(ld->factor, t, &sc, NULL, NULL);
    if (f)
      for (PetscInt d = 0; d < 3; d++) f[off + d] += sc * (md->dim == 3 || d < 2 ? ld->force[d] : ld->torque[2]);
    if (md->dim == 3)
      for (PetscInt d = 0; d < 3; d++) md->bodies[ld->body].torque[d] += sc * ld->torque[d];
  }
}

static PetscErrorCode VISystemComputeMass_Multibody(VISystem sys, const PetscReal q[], PetscReal M[])
{
  PetscFunctionBeginUser;
  PetscCall(VIMBModelMass(&((VISystem_Multibody *)sys->data)->model, q, M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d(M(q) w)/dq: the flexible bodies' blocks, [i][a] = (dM/dq_a w)_i */
static PetscErrorCode VISystemComputeMassJacobian_Multibody(VISystem sys, const PetscReal q[], const PetscReal w[], PetscReal dMw[])
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;
  const VIMBModel    *md = &mb->model;
  const PetscInt      n  = sys->n;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(dMw, n * n));
  for (PetscInt b = 1; b < md->nbodies; b++) {
    const VIMBBody *bd = &md->bodies[b];
    const PetscInt  o = bd->off, nq = bd->nq, nn = nq * nq;
    PetscReal      *M = mb->work, *dM = mb->work + nn;
    if (md->dim == 3 && bd->flex) VIMBFlexSpatialMass(bd->flex, q + o, M, dM, mb->work);
    if (md->dim == 3 && !bd->flex) {
      PetscReal J[49];
      VIMBSpatialMassJacobian(bd, q + o, w + o, J);
      for (PetscInt i = 3; i < 7; i++)
        for (PetscInt a = 3; a < 7; a++) dMw[(o + i) * n + o + a] = J[i * 7 + a];
      continue;
    }
    if (!bd->flex) continue;
    if (md->dim == 2) VIMBFlexMass(bd->flex, q + o, M, dM);
    for (PetscInt i = 0; i < nq; i++)
      for (PetscInt a = md->dim == 3 ? 3 : 2; a < nq; a++) {
        PetscReal r = 0;
        for (PetscInt j = 0; j < nq; j++) r += dM[a * nn + i * nq + j] * w[o + j];
        dMw[(o + i) * n + o + a] = r;
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gravity and the constant loads (constant for rigid planar bodies), the loads scaled by s(t), the spatial and flexible
   bodies' forces, the spring-dampers' (mbspring.c). */
static PetscErrorCode VISystemComputeForce_Multibody(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal f[])
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(f, mb->fext, sys->n));
  VISystemMultibodyTimedLoads(mb, t, f);
  for (PetscInt b = 1; b < mb->model.nbodies; b++) {
    const VIMBBody *bd = &mb->model.bodies[b];
    if (mb->model.dim == 3 && bd->flex)
      VIMBFlexSpatialForce(bd->flex, mb->model.gravity, bd->torque, q + bd->off, u + bd->off, f + bd->off, NULL, NULL, mb->work);
    else if (mb->model.dim == 3)
      VIMBSpatialForce(bd, q + bd->off, u + bd->off, f + bd->off, NULL, NULL);
    else if (bd->flex)
      VIMBFlexForce(bd->flex, mb->model.gravity, q + bd->off, u + bd->off, f + bd->off, NULL, NULL, mb->work);
  }
  PetscCall(VIMBSpringForce(sys->comm, &mb->model, q, u, f, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemComputeForceJacobian_Multibody(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal dfdq[],
                                                             PetscReal dfdu[])
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;
  const PetscInt      n  = sys->n;

  PetscFunctionBeginUser;
  VISystemMultibodyTimedLoads(mb, t, NULL); /* a spatial body's torque at t (its tangent) */
  if (dfdq) PetscCall(PetscArrayzero(dfdq, n * n));
  if (dfdu) PetscCall(PetscArrayzero(dfdu, n * n));
  for (PetscInt b = 1; b < mb->model.nbodies; b++) {
    const VIMBBody *bd = &mb->model.bodies[b];
    const PetscInt  o = bd->off, nq = bd->nq;
    PetscReal      *fl = mb->work + mb->nwork, *dz = fl + nq, *dw = dz + nq * nq; /* after VIMBFlexForce's work */
    if (mb->model.dim == 3 && !bd->flex) {
      PetscReal fs[7] = {0}, Z[49] = {0}, W[49] = {0};
      VIMBSpatialForce(bd, q + o, u + o, fs, Z, W);
      for (PetscInt i = 3; i < 7; i++)
        for (PetscInt k = 3; k < 7; k++) {
          if (dfdq) dfdq[(o + i) * n + o + k] = Z[i * 7 + k];
          if (dfdu) dfdu[(o + i) * n + o + k] = W[i * 7 + k];
        }
      continue;
    }
    if (!bd->flex) continue;
    PetscCall(PetscArrayzero(fl, nq + 2 * nq * nq));
    if (mb->model.dim == 3)
      VIMBFlexSpatialForce(bd->flex, mb->model.gravity, bd->torque, q + o, u + o, fl, dz, dw, mb->work);
    else
      VIMBFlexForce(bd->flex, mb->model.gravity, q + o, u + o, fl, dz, dw, mb->work);
    for (PetscInt i = 0; i < nq; i++)
      for (PetscInt k = 0; k < nq; k++) {
        if (dfdq) dfdq[(o + i) * n + o + k] = dz[i * nq + k];
        if (dfdu) dfdu[(o + i) * n + o + k] = dw[i * nq + k];
      }
  }
  PetscCall(VIMBSpringForce(sys->comm, &mb->model, q, u, NULL, dfdq, dfdu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* T = sum (m |v|^2 + J omega^2) / 2, V = -sum m g . r (gravity's potential; the constant loads are external work) plus the
   springs' k (l - L0)^2 / 2; a flexible body's T = w^T M w / 2 and V with its strain energy (VIMBFlexEnergy). */
static PetscErrorCode VISystemComputeEnergy_Multibody(VISystem sys, const PetscReal q[], const PetscReal u[], PetscReal *kinetic,
                                                      PetscReal *potential)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;
  const VIMBModel    *md = &mb->model;
  PetscReal           T = 0, V = 0;

  PetscFunctionBeginUser;
  for (PetscInt b = 1; b < md->nbodies; b++) {
    const VIMBBody *bd = &md->bodies[b];
    const PetscInt  i  = bd->off;
    if (md->dim == 3) {
      PetscReal Tb, Vb;
      if (bd->flex)
        VIMBFlexSpatialEnergy(bd->flex, md->gravity, q + i, u + i, &Tb, &Vb, mb->work);
      else
        VIMBSpatialEnergy(bd, md->gravity, q + i, u + i, &Tb, &Vb);
      T += Tb;
      V += Vb;
      continue;
    }
    if (bd->flex) {
      PetscReal Tb, Vb;
      VIMBFlexEnergy(bd->flex, md->gravity, q + i, u + i, &Tb, &Vb, mb->work);
      T += Tb;
      V += Vb;
      continue;
    }
    T += 0.5 * (bd->mass * (u[i] * u[i] + u[i + 1] * u[i + 1]) + bd->inertia * u[i + 2] * u[i + 2]);
    V -= bd->mass * (md->gravity[0] * q[i] + md->gravity[1] * q[i + 1]);
  }
  {
    PetscReal Vs;
    PetscCall(VIMBSpringEnergy(sys->comm, md, q, &Vs));
    V += Vs;
  }
  *kinetic   = T;
  *potential = V;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetContacts_Multibody(VISystem sys, PetscInt *nc, const VIContactKind **kinds, const PetscInt **dims,
                                                    const PetscInt **offsets)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  if (nc) *nc = mb->nc;
  if (kinds) *kinds = mb->kinds;
  if (dims) *dims = mb->dims;
  if (offsets) *offsets = mb->offsets;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetContactSet_Multibody(VISystem sys, VIContactSet *set, const PetscReal **obstacle_velocity)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  set->num_contacts = mb->nc;
  set->dims         = mb->dims;
  set->mu           = mb->mu;
  set->preload      = mb->preload;
  set->kinds        = mb->kinds;
  if (obstacle_velocity) *obstacle_velocity = mb->obstacle_v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemEvaluateConstraints_Multibody(VISystem sys, PetscReal t, const PetscReal q[], PetscReal g[], PetscReal G[],
                                                            PetscReal g_rate[])
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  if (!g && !G) { /* the rates alone: the drivers' (below) */
    if (g_rate) PetscCall(PetscArrayzero(g_rate, mb->nc));
  } else if (mb->rigid) {
    VIMBRigidEvaluate(&mb->model, &mb->rows, q, PETSC_FALSE);
    VIMBRigidDerivatives(&mb->rows, sys->n, NULL, NULL, G, NULL, NULL);
    for (PetscInt r = 0; r < mb->nc; r++) {
      if (g) g[r] = mb->rows.ev[r].g;
      if (g_rate) g_rate[r] = 0;
    }
  } else
    for (PetscInt r = 0; r < mb->nc; r++) {
      PetscCall(VIMBModelConstraint(&mb->model, r, q, g ? &g[r] : NULL, G ? G + r * sys->n : NULL, 0, NULL));
      if (g_rate) g_rate[r] = 0;
    }
  /* the drivers' rows are rheonomic: theta_2 - theta_1 - angle0 - phi(t) (a driven prismatic joint's slide a . (P2 - P1) -
     slide0 - phi(t)), dg/dt = -phi'(t) (their G and curvature are t-free; phi the joint's time function, mbtime.c); a spatial
     driver's angle (its last row, in (-2 pi, 2 pi]) minus phi(t) is taken modulo 4 pi, the period of the quaternion's angle */
  for (PetscInt k = 0; k < mb->model.njoints; k++) {
    const VIMBJoint *j = &mb->model.joints[k];
    const PetscInt   r = j->row + j->rows - 1;
    PetscReal        phi, rate;
    if (!j->driven) continue;
    VIMBTimeFunctionEvaluate(&j->motion, t, &phi, &rate, NULL);
    if (g) g[r] -= phi;
    if (g && mb->model.dim == 3 && j->type == VI_MB_JOINT_DRIVER) g[r] -= 4 * PETSC_PI * PetscFloorReal(g[r] / (4 * PETSC_PI) + 0.5);
    if (g_rate) g_rate[r] = -rate;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d^2 g/dt^2 of the rows: -phi''(t) on a driver's angle row, 0 elsewhere (the consistent initial acceleration's G a =
   -u^T H u - d^2 g/dt^2; the rows' G is t-free) */
static PetscErrorCode VISystemEvaluateConstraintAcceleration_Multibody(VISystem sys, PetscReal t, PetscReal g_tt[])
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(g_tt, mb->nc));
  for (PetscInt k = 0; k < mb->model.njoints; k++) {
    const VIMBJoint *j = &mb->model.joints[k];
    PetscReal        acc;
    if (!j->driven) continue;
    VIMBTimeFunctionEvaluate(&j->motion, t, NULL, NULL, &acc);
    g_tt[j->row + j->rows - 1] = -acc;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A run from t0 to t1 stays within the tables of the drivers' motions and the loads' factors (refused otherwise: a table
   is not extrapolated); the drivers start at t0 (VIMBModelSetStart). */
static PetscErrorCode VISystemCheckSampling_Multibody(VISystem sys, PetscReal t0, PetscReal t1, PetscReal dt)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;
  char                what[2 * VI_MB_NAME];

  PetscFunctionBeginUser;
  (void)dt;
  for (PetscInt k = 0; k < mb->model.njoints; k++) {
    PetscCall(PetscSNPrintf(what, sizeof(what), "joint '%s': its motion", mb->model.joints[k].name));
    PetscCall(VIMBTimeFunctionCheckSpan(sys->comm, &mb->model.joints[k].motion, what, t0, t1));
  }
  for (PetscInt l = 0; l < mb->model.nloads; l++)
    if (mb->model.loads[l].factor) PetscCall(VIMBTimeFunctionCheckSpan(sys->comm, mb->model.loads[l].factor, "a load's factor", t0, t1));
  PetscCall(VIMBModelSetStart(sys->comm, &mb->model, t0)); /* the drivers' origin phi(t0) and their rates at t0 */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The frictional contacts' tangential rows (one per contact in the plane, two in space), in the contacts' order. */
static PetscErrorCode VISystemEvaluateTangents_Multibody(VISystem sys, PetscReal t, const PetscReal q[], PetscReal Gt[])
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;
  PetscInt            i  = 0;

  PetscFunctionBeginUser;
  (void)t;
  if (mb->rigid) PetscCall(PetscArrayzero(Gt, mb->nt * sys->n));
  for (PetscInt k = 0; k < mb->model.ncontacts; k++)
    if (mb->model.contacts[k].mu > 0) {
      if (mb->rigid)
        VIMBRigidTangent(&mb->model, k, q, Gt + i * sys->n);
      else if (mb->model.dim == 3)
        PetscCall(VIMBSpatialTangent(&mb->model, k, q, Gt + i * sys->n));
      else
        PetscCall(VIMBModelTangent(&mb->model, k, q, Gt + i * sys->n));
      i += mb->model.dim - 1;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemComputeConstraintCurvature_Multibody(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal lambda[],
                                                                   PetscReal H[])
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  (void)t;
  if (mb->rigid) {
    VIMBRigidEvaluate(&mb->model, &mb->rows, q, PETSC_TRUE);
    VIMBRigidDerivatives(&mb->rows, sys->n, NULL, lambda, NULL, NULL, H);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscArrayzero(H, sys->n * sys->n));
  for (PetscInt r = 0; r < mb->nc; r++)
    if (lambda[r] != 0) PetscCall(VIMBModelConstraint(&mb->model, r, q, NULL, NULL, lambda[r], H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* G, HV = d(G v)/dq and Hw = d(G^T w)/dq in one pass over the rows: row r's gradient and Hessian (VIMBModelConstraint with the
   multiplier 1, into the scratch hs, zeroed back) over the coordinates of its two bodies only (a planar row touches nothing
   else; a spatial model's rows take all n), and there not the pairs of two translations (x, y of a planar body: g is linear
   in them, and a translation's second derivatives are with an angle or an elastic coordinate only). The sums run over the
   coordinates in their order and Hw gathers w_r H_r row after row, so each entry is that of the dense products
   (VISystemComputeConstraintCurvature with the multipliers w, or with e_r times v), bitwise. */
static PetscErrorCode VISystemComputeConstraintDerivatives_Multibody(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal v[],
                                                                     const PetscReal w[], PetscReal G[], PetscReal HV[], PetscReal Hw[])
{
  VISystem_Multibody *mb  = (VISystem_Multibody *)sys->data;
  const VIMBModel    *md  = &mb->model;
  const PetscInt      n   = sys->n;
  PetscReal          *H   = mb->hs;
  PetscInt           *idx = mb->idx, *cur = mb->idx + n; /* a row's coordinates; those of them that are not translations */

  PetscFunctionBeginUser;
  (void)t;
  if (mb->rigid) { /* the rows in one pass (mbrigid.c): the same numbers */
    VIMBRigidEvaluate(md, &mb->rows, q, HV || Hw ? PETSC_TRUE : PETSC_FALSE);
    VIMBRigidDerivatives(&mb->rows, n, v, w, G, HV, Hw);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (HV) PetscCall(PetscArrayzero(HV, mb->nc * n));
  if (Hw) PetscCall(PetscArrayzero(Hw, n * n));
  for (PetscInt r = 0; r < mb->nc; r++) {
    const PetscBool hv = HV ? PETSC_TRUE : PETSC_FALSE, hw = Hw && w[r] != 0 ? PETSC_TRUE : PETSC_FALSE;
    PetscInt        ni = 0, nu = 0, body[2] = {0, 0};
    if (!G && !hv && !hw) continue; /* a row without a multiplier when only Hw is asked for */
    PetscCall(VIMBModelConstraint(md, r, q, NULL, G ? G + r * n : NULL, hv || hw ? 1 : 0, H));
    if (!hv && !hw) continue;
    if (md->dim == 3) {
      for (PetscInt i = 0; i < n; i++) idx[ni++] = cur[nu++] = i;
    } else {
      VIMBModelRowBodies(md, r, &body[0], &body[1]);
      if (body[0] && body[1] && md->bodies[body[1]].off < md->bodies[body[0]].off) {
        const PetscInt tmp = body[0];
        body[0]            = body[1];
        body[1]            = tmp;
      }
      if (body[1] == body[0]) body[1] = 0;
      for (PetscInt x = 0; x < 2; x++) {
        const VIMBBody *bd = &md->bodies[body[x]];
        if (!body[x]) continue;
        for (PetscInt i = 0; i < bd->nq; i++) {
          idx[ni++] = bd->off + i;
          if (i >= 2) cur[nu++] = bd->off + i;
        }
      }
    }
    for (PetscInt x = 0, y = 0; x < ni; x++) {
      const PetscInt  k   = idx[x];
      const PetscBool rot = y < nu && cur[y] == k ? PETSC_TRUE : PETSC_FALSE; /* k is not a translation: its whole row */
      const PetscInt *col = rot ? idx : cur, nco = rot ? ni : nu;
      PetscReal       s = 0;
      if (rot) y++;
      for (PetscInt a = 0; a < nco; a++) {
        const PetscInt i = col[a];
        if (hv) s += H[k * n + i] * v[i];
        if (hw) Hw[k * n + i] += w[r] * H[k * n + i];
        H[k * n + i] = 0;
      }
      if (hv) HV[r * n + k] = s;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemEvaluateGaps_Multibody(VISystem sys, PetscReal t, PetscReal g0[], PetscReal g0_rate[])
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  (void)t;
  for (PetscInt r = 0; r < mb->nc; r++) {
    if (g0) g0[r] = 0;
    if (g0_rate) g0_rate[r] = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* No load vectors with time functions: the forces are f(t, q, u) (VISystemComputeForce). */
static PetscErrorCode VISystemGetLoads_Multibody(VISystem sys, PetscInt *num_loads, const PetscReal *const **vectors)
{
  PetscFunctionBeginUser;
  (void)sys;
  if (num_loads) *num_loads = 0;
  if (vectors) *vectors = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemEvaluateLoadScales_Multibody(VISystem sys, PetscReal t, PetscReal s[])
{
  PetscFunctionBeginUser;
  (void)sys;
  (void)t;
  (void)s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetInitialState_Multibody(VISystem sys, const PetscReal **q0, const PetscReal **u0)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  if (q0) *q0 = mb->q0;
  if (u0) *u0 = mb->u0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetLinearGradientRows_Multibody(VISystem sys, const PetscBool **linear)
{
  PetscFunctionBeginUser;
  *linear = ((VISystem_Multibody *)sys->data)->linear;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a planar model of rigid bodies: each row's two bodies (mbrigid.c); other models: none given (every coordinate) */
static PetscErrorCode VISystemGetConstraintColumns_Multibody(VISystem sys, const PetscInt **ptr, const PetscInt **cols)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  *ptr  = mb->rigid ? mb->rows.ptr : NULL;
  *cols = mb->rigid ? mb->rows.cols : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetRestitution_Multibody(VISystem sys, const PetscReal **e)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  *e = mb->given_restitution ? mb->restitution : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The named outputs at (q, u): a point's position and velocity r + R p, v + omega J R p; a body's angle and its rate; a joint's
   relative angle; a contact's normal force (lambda of its row); a joint's reaction (x and y rows); a spring's tension; the
   energy T + V. */
static PetscErrorCode VISystemComputeOutputs_Multibody(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], const PetscReal lambda[],
                                                       PetscReal y[])
{
  VISystem_Multibody *mb  = (VISystem_Multibody *)sys->data;
  const VIMBModel    *md  = &mb->model;
  PetscInt            col = 0;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < md->noutputs; k++) {
    const VIMBOutput *o = &md->outputs[k];
    const PetscInt    i = o->body ? md->bodies[o->body].off : 0;
    if (md->dim == 3 && (o->type == VI_MB_OUT_POINT || o->type == VI_MB_OUT_ORIENTATION || o->type == VI_MB_OUT_ANGULAR_VELOCITY ||
                         o->type == VI_MB_OUT_JOINT_ANGLE)) {
      VIMBSpatialOutput(md, o, q, u, y + col);
      col += o->columns;
      continue;
    }
    switch (o->type) {
    case VI_MB_OUT_POINT: {
      PetscReal th = o->body ? q[i + 2] : 0, c, s, pe[2] = {o->point[0], o->point[1]}, ve[2] = {0, 0};
      PetscReal rp[2], w = o->body ? u[i + 2] : 0;
      VIMBBodyCosSin(md, o->body, th, &c, &s); /* the body's, kept from its rows' last evaluation when at th */
      if (o->phi) { /* a flexible body's node: x + Phi q_f, moving at Phi dq_f/dt in the frame */
        VIMBFlexDisplace(md->bodies[o->body].flex, o->phi, q + i + 3, pe);
        VIMBFlexDisplace(md->bodies[o->body].flex, o->phi, u + i + 3, ve);
      }
      rp[0]    = c * pe[0] - s * pe[1];
      rp[1]    = s * pe[0] + c * pe[1];
      y[col++] = (o->body ? q[i] : 0) + rp[0];
      y[col++] = (o->body ? q[i + 1] : 0) + rp[1];
      y[col++] = (o->body ? u[i] : 0) - w * rp[1] + c * ve[0] - s * ve[1];
      y[col++] = (o->body ? u[i + 1] : 0) + w * rp[0] + s * ve[0] + c * ve[1];
    } break;
    case VI_MB_OUT_ANGLE:
      y[col++] = o->body ? q[i + 2] : 0;
      y[col++] = o->body ? u[i + 2] : 0;
      break;
    case VI_MB_OUT_JOINT_ANGLE: {
      const VIMBJoint *j = &md->joints[o->index];
      y[col++]           = (j->body[1] ? q[md->bodies[j->body[1]].off + 2] : 0) - (j->body[0] ? q[md->bodies[j->body[0]].off + 2] : 0);
    } break;
    case VI_MB_OUT_CONTACT_FORCE: {
      const PetscInt off = mb->offsets[md->contacts[o->index].row];
      y[col++]           = lambda ? lambda[off] : 0;
      for (PetscInt a = 1; a < o->columns; a++) y[col++] = lambda ? lambda[off + a] : 0;
    } break;
    case VI_MB_OUT_JOINT_FORCE: {
      const VIMBJoint *j = &md->joints[o->index];
      for (PetscInt c = 0; c < o->columns; c++) {
        /* a spatial driver's torque, a driven spatial prismatic joint's force: their row 5 */
        const PetscInt r =
            md->dim == 3 && ((j->type == VI_MB_JOINT_DRIVER && c == 3) || (j->type == VI_MB_JOINT_PRISMATIC && c == 2)) ? j->row + 5 : j->row + c;
        y[col++]         = lambda ? lambda[mb->offsets[r]] : 0;
      }
    } break;
    case VI_MB_OUT_SPRING_FORCE:
      PetscCall(VIMBSpringTension(sys->comm, md, o->index, q, u, &y[col++]));
      break;
    case VI_MB_OUT_JOINT_SLIDE: /* mbjoint.c */
      VIMBJointSlide(md, &md->joints[o->index], q, u, &y[col], &y[col + 1]);
      col += 2;
      break;
    case VI_MB_OUT_PRESCRIBED:
      VIMBJointPrescribed(md, &md->joints[o->index], t, &y[col], &y[col + 1]);
      col += 2;
      break;
    case VI_MB_OUT_ENERGY: {
      PetscReal T, V;
      PetscCall(VISystemComputeEnergy_Multibody(sys, q, u, &T, &V));
      y[col++] = T + V;
    } break;
    default:
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemView_Multibody(VISystem sys, PetscViewer viewer)
{
  VISystem_Multibody *mb = (VISystem_Multibody *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "Multibody %s: %" PetscInt_FMT " bodies, %" PetscInt_FMT " joints, %" PetscInt_FMT " contacts, %" PetscInt_FMT
                                   " springs, %" PetscInt_FMT " coordinates, %" PetscInt_FMT " constraint rows\n",
                                   mb->path, mb->model.nbodies - 1, mb->model.njoints, mb->model.ncontacts, mb->model.nsprings, sys->n, mb->nc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemMultibodyModelROM(MPI_Comm comm, const char path[], VIROM rom)
{
  VIMBModel model;

  PetscFunctionBeginUser;
  PetscCall(VIMBModelLoad(comm, path, &model));
  PetscCall(VIMBModelROM(&model, rom));
  PetscCall(VIMBModelFree(&model));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemCreate_Multibody(VISystem sys)
{
  VISystem_Multibody *mb;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&mb));
  sys->data                     = mb;
  sys->constant_mass            = PETSC_TRUE;
  sys->linear                   = PETSC_FALSE;
  sys->ops.setfromoptions       = VISystemSetFromOptions_Multibody;
  sys->ops.setup                = VISystemSetUp_Multibody;
  sys->ops.view                 = VISystemView_Multibody;
  sys->ops.destroy              = VISystemDestroy_Multibody;
  sys->ops.setrom               = VISystemSetROM_Multibody;
  sys->ops.getrom               = VISystemGetROM_Multibody;
  sys->ops.computemass          = VISystemComputeMass_Multibody;
  sys->ops.computemassjacobian  = VISystemComputeMassJacobian_Multibody;
  sys->ops.computeforce         = VISystemComputeForce_Multibody;
  sys->ops.computeforcejacobian = VISystemComputeForceJacobian_Multibody;
  sys->ops.computeenergy        = VISystemComputeEnergy_Multibody;
  sys->ops.getcontacts          = VISystemGetContacts_Multibody;
  sys->ops.getcontactset        = VISystemGetContactSet_Multibody;
  sys->ops.evaluateconstraints  = VISystemEvaluateConstraints_Multibody;
  sys->ops.constraintacceleration = VISystemEvaluateConstraintAcceleration_Multibody;
  sys->ops.checksampling        = VISystemCheckSampling_Multibody;
  sys->ops.constraintcurvature  = VISystemComputeConstraintCurvature_Multibody;
  sys->ops.constraintderivatives = VISystemComputeConstraintDerivatives_Multibody;
  sys->ops.evaluategaps         = VISystemEvaluateGaps_Multibody;
  sys->ops.getloads             = VISystemGetLoads_Multibody;
  sys->ops.evaluateloadscales   = VISystemEvaluateLoadScales_Multibody;
  sys->ops.getinitialstate      = VISystemGetInitialState_Multibody;
  sys->ops.getrestitution       = VISystemGetRestitution_Multibody;
  sys->ops.getlineargradientrows = VISystemGetLinearGradientRows_Multibody;
  sys->ops.getconstraintcolumns = VISystemGetConstraintColumns_Multibody;
  sys->ops.computeoutputs       = VISystemComputeOutputs_Multibody;
  sys->ops.evaluatetangents     = VISystemEvaluateTangents_Multibody;
  sys->ops.getnumoutputs        = VISystemGetNumOutputs_Multibody;
  sys->ops.getoutput            = VISystemGetOutput_Multibody;
  sys->ops.masslessboundary     = VISystemHasMasslessBoundary_Multibody;
  PetscFunctionReturn(PETSC_SUCCESS);
}
