/* The coupled bodies of seed 003 as a system type (bodies): the bodies' ROMs side by side (block-diagonal constant K, M,
   D), and node-to-segment sliding contacts between the slave nodes of one body and the master chain of another as
   unilateral (frictional when mu > 0) constraints whose rows depend on the configuration (seed 003 Eqs. 34-44). */
#include "systemimpl.h"

#define VI_BODIES_ROW 6 /* a contact row touches the slave C (x, y) and the segment's nodes T1 (x, y), T2 (x, y) */

typedef struct {
  VIBodies       bodies; /* referenced */
  PetscInt       num_bodies, *off;
  PetscReal     *place; /* 2 num_bodies: the rigid translation of each body's nodes (VISystemBodiesTranslateBody) */
  PetscInt       slave_body, master_body, num_slaves, num_master;
  VIBodyNode    *slaves, *master;
  PetscReal      mu;
  PetscReal     *K, *M, *D; /* n x n row-major, block-diagonal */
  PetscInt       num_outputs;
  VIContactKind *kinds;
  PetscInt      *dims, *offsets;
  /* per contact its mu (the contact set), and the initial state: at rest, undeformed (2 n zeros: q0, u0) */
  PetscReal *mus, *q0;
  /* the linearisation of each contact (VISystemLinearizeContact): segment, xi, frame (n, t) and rows over bdof */
  PetscInt  *seg, *bdof;
  PetscReal *xi, *frame, *bn, *bt;
} VISystem_Bodies;

static PetscErrorCode VISystemBodiesCheck(VISystem sys, const char what[], VISystem_Bodies **bd)
{
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(sys->type, VISYSTEMBODIES, &same));
  PetscCheck(same, sys->comm, PETSC_ERR_ARG_WRONG, "%s: the system is of type %s, expected %s", what, sys->type, VISYSTEMBODIES);
  *bd = (VISystem_Bodies *)sys->data;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemBodiesFree(VISystem_Bodies *bd)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(bd->K, bd->M, bd->D));
  PetscCall(PetscFree3(bd->kinds, bd->dims, bd->offsets));
  PetscCall(PetscFree3(bd->seg, bd->bdof, bd->xi));
  PetscCall(PetscFree3(bd->frame, bd->bn, bd->bt));
  PetscCall(PetscFree2(bd->mus, bd->q0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemDestroy_Bodies(VISystem sys)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesFree(bd));
  PetscCall(PetscFree2(bd->off, bd->place));
  PetscCall(PetscFree(bd->slaves));
  PetscCall(PetscFree(bd->master));
  PetscCall(PetscFree(sys->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemBodiesSetBodies(VISystem sys, VIBodies bodies)
{
  VISystem_Bodies *bd = NULL;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesCheck(sys, "VISystemBodiesSetBodies", &bd));
  PetscCheck(!bd->bodies, sys->comm, PETSC_ERR_ORDER, "VISystemBodiesSetBodies: the bodies are already set");
  PetscCall(VIBodiesGetNum(bodies, &bd->num_bodies));
  PetscCheck(bd->num_bodies >= 1, sys->comm, PETSC_ERR_USER_INPUT, "VISystemBodiesSetBodies: no bodies");
  bd->bodies = bodies;
  PetscCall(PetscCalloc2(bd->num_bodies + 1, &bd->off, 2 * bd->num_bodies, &bd->place));
  for (PetscInt k = 0; k < bd->num_bodies; k++) {
    const VIBodyBoundary *bb;
    const char           *name;
    PetscCall(VIBodiesGet(bodies, k, &name, NULL, &bb));
    PetscCheck(bb->dim == 2, sys->comm, PETSC_ERR_SUP, "Body %s is %" PetscInt_FMT "D; the dual assembly of sliding contacts is 2D (seed 003)", name,
               bb->dim);
    PetscCall(VIBodiesGetOffset(bodies, k + 1, &bd->off[k + 1]));
  }
  sys->n     = bd->off[bd->num_bodies];
  sys->setup = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemBodiesGetBodies(VISystem sys, VIBodies *bodies, PetscInt *num, const PetscInt **offsets)
{
  VISystem_Bodies *bd = NULL;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesCheck(sys, "VISystemBodiesGetBodies", &bd));
  if (bodies) *bodies = bd->bodies;
  if (num) *num = bd->num_bodies;
  if (offsets) *offsets = bd->off;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemBodiesFindBody(VISystem sys, const char body[], const char what[], PetscInt *k)
{
  VISystem_Bodies *bd = NULL;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesCheck(sys, what, &bd));
  PetscCheck(bd->bodies, sys->comm, PETSC_ERR_ORDER, "%s: call VIDualSetBodies (VISystemBodiesSetBodies) first", what);
  PetscCall(VIBodiesFind(bd->bodies, body, k));
  PetscCheck(*k >= 0, sys->comm, PETSC_ERR_USER_INPUT, "%s: no body '%s' in the bodies file", what, body);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemBodiesGetNode(VISystem sys, PetscInt k, PetscInt id, const char what[], VIBodyNode *node)
{
  VISystem_Bodies *bd = NULL;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesCheck(sys, what, &bd));
  PetscCall(VIBodiesGetNode(bd->bodies, k, id, what, node));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemBodiesSetSlave(VISystem sys, const char body[], PetscInt num, const PetscInt ids[])
{
  VISystem_Bodies *bd = NULL;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesCheck(sys, "VIDualSetSlave", &bd));
  PetscCall(VISystemBodiesFindBody(sys, body, "VIDualSetSlave", &bd->slave_body));
  PetscCheck(num >= 1, sys->comm, PETSC_ERR_USER_INPUT, "VIDualSetSlave: give at least one slave node of body %s", body);
  PetscCall(PetscFree(bd->slaves));
  PetscCall(PetscMalloc1(num, &bd->slaves));
  bd->num_slaves = num;
  for (PetscInt j = 0; j < num; j++) {
    PetscCall(VIBodiesGetNode(bd->bodies, bd->slave_body, ids[j], "VIDualSetSlave", &bd->slaves[j]));
    for (PetscInt c = 0; c < 2; c++) bd->slaves[j].X[c] += bd->place[2 * bd->slave_body + c];
    PetscCheck(bd->slaves[j].dof[0] >= 0, sys->comm, PETSC_ERR_USER_INPUT, "VIDualSetSlave: slave node %" PetscInt_FMT " of body %s is clamped",
               ids[j], body);
  }
  sys->setup = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemBodiesSetMaster(VISystem sys, const char body[], PetscInt num, const PetscInt ids[])
{
  VISystem_Bodies      *bd = NULL;
  const VIBodyBoundary *bb;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesCheck(sys, "VIDualSetMaster", &bd));
  PetscCall(VISystemBodiesFindBody(sys, body, "VIDualSetMaster", &bd->master_body));
  PetscCall(VIBodiesGet(bd->bodies, bd->master_body, NULL, NULL, &bb));
  if (!num) num = bb->num_nodes;
  PetscCheck(num >= 2, sys->comm, PETSC_ERR_USER_INPUT, "VIDualSetMaster: the master chain of body %s needs at least 2 nodes, got %" PetscInt_FMT,
             body, num);
  PetscCall(PetscFree(bd->master));
  PetscCall(PetscMalloc1(num, &bd->master));
  bd->num_master = num;
  for (PetscInt j = 0; j < num; j++) {
    PetscCall(VIBodiesGetNode(bd->bodies, bd->master_body, ids ? ids[j] : bb->node_ids[j], "VIDualSetMaster", &bd->master[j]));
    for (PetscInt c = 0; c < 2; c++) bd->master[j].X[c] += bd->place[2 * bd->master_body + c];
  }
  for (PetscInt j = 0; j + 1 < num; j++)
    PetscCheck(bd->master[j].X[0] != bd->master[j + 1].X[0] || bd->master[j].X[1] != bd->master[j + 1].X[1], sys->comm, PETSC_ERR_USER_INPUT,
               "VIDualSetMaster: nodes %" PetscInt_FMT " and %" PetscInt_FMT " of body %s coincide: a segment of zero length", bd->master[j].id,
               bd->master[j + 1].id, body);
  sys->setup = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemBodiesTranslateBody(VISystem sys, const char body[], const PetscReal shift[])
{
  VISystem_Bodies *bd = NULL;
  PetscInt         k;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesCheck(sys, "VIDualTranslateBody", &bd));
  PetscCall(VISystemBodiesFindBody(sys, body, "VIDualTranslateBody", &k));
  PetscCheck(PetscIsNormalReal(PetscAbsReal(shift[0]) + PetscAbsReal(shift[1]) + 1), sys->comm, PETSC_ERR_USER_INPUT,
             "VIDualTranslateBody: the translation (%g, %g) of body %s is not finite", (double)shift[0], (double)shift[1], body);
  for (PetscInt c = 0; c < 2; c++) {
    bd->place[2 * k + c] += shift[c];
    if (k == bd->slave_body)
      for (PetscInt j = 0; j < bd->num_slaves; j++) bd->slaves[j].X[c] += shift[c];
    if (k == bd->master_body)
      for (PetscInt j = 0; j < bd->num_master; j++) bd->master[j].X[c] += shift[c];
  }
  sys->setup = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemBodiesSetFriction(VISystem sys, PetscReal mu)
{
  VISystem_Bodies *bd = NULL;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesCheck(sys, "VISystemBodiesSetFriction", &bd));
  PetscCheck(mu >= 0 && PetscIsNormalReal(mu + 1), sys->comm, PETSC_ERR_USER_INPUT, "-dual_mu: the friction coefficient is %g, expected >= 0",
             (double)mu);
  if (mu == bd->mu) PetscFunctionReturn(PETSC_SUCCESS); /* a system set up stays so (a stepper caches its arrays) */
  bd->mu     = mu;
  sys->setup = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemBodiesGetSlaves(VISystem sys, PetscInt *num, const VIBodyNode **slaves, PetscInt *body)
{
  VISystem_Bodies *bd = NULL;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesCheck(sys, "VISystemBodiesGetSlaves", &bd));
  if (num) *num = bd->num_slaves;
  if (slaves) *slaves = bd->slaves;
  if (body) *body = bd->slave_body;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemBodiesGetMaster(VISystem sys, PetscInt *num, const VIBodyNode **master, PetscInt *body)
{
  VISystem_Bodies *bd = NULL;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesCheck(sys, "VISystemBodiesGetMaster", &bd));
  if (num) *num = bd->num_master;
  if (master) *master = bd->master;
  if (body) *body = bd->master_body;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bodies come from the caller (vicms slide, VIDualSetBodies): a command that makes its system from options alone
   (simulate, hb, cea) cannot use this type. */
static PetscErrorCode VISystemSetFromOptions_Bodies(VISystem sys, PetscOptionItems *PetscOptionsObject)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  (void)PetscOptionsObject;
  PetscCheck(bd->bodies, sys->comm, PETSC_ERR_USER_INPUT,
             "-system_type bodies: the coupled bodies of a bodies file are integrated by vicms slide (-rom_file BODIES.h5 of vicms reduce "
             "-bodies); this command takes -system_type reduced or multibody");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operators side by side, the contacts' kinds and rows, the number of outputs. */
static PetscErrorCode VISystemSetUp_Bodies(VISystem sys)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;
  PetscInt         n, ns;

  PetscFunctionBeginUser;
  PetscCheck(bd->bodies, sys->comm, PETSC_ERR_ORDER, "VIDualSetUp: no bodies (VIDualSetBodies)");
  PetscCheck(bd->slave_body >= 0 && bd->master_body >= 0, sys->comm, PETSC_ERR_ORDER, "VIDualSetUp: give the slave nodes and the master chain");
  PetscCheck(bd->slave_body != bd->master_body, sys->comm, PETSC_ERR_USER_INPUT,
             "VIDualSetUp: the slave and master bodies are the same (no self-contact)");
  PetscCall(VISystemBodiesFree(bd));
  n  = sys->n;
  ns = bd->num_slaves;
  PetscCall(PetscCalloc3(n * n, &bd->K, n * n, &bd->M, n * n, &bd->D));
  bd->num_outputs = 0;
  for (PetscInt k = 0; k < bd->num_bodies; k++) {
    VIROM      rom;
    PetscReal *K, *M, *D;
    PetscInt   o = bd->off[k], nk = bd->off[k + 1] - o, no;
    PetscCall(VIBodiesGet(bd->bodies, k, NULL, &rom, NULL));
    PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
    for (PetscInt i = 0; i < nk; i++)
      for (PetscInt j = 0; j < nk; j++) {
        bd->K[(o + i) * n + o + j] = K[i * nk + j];
        bd->M[(o + i) * n + o + j] = M[i * nk + j];
        bd->D[(o + i) * n + o + j] = D[i * nk + j];
      }
    PetscCall(VIROMGetNumOutputs(rom, &no));
    bd->num_outputs += no;
  }
  PetscCall(PetscCalloc3(ns, &bd->kinds, ns, &bd->dims, ns, &bd->offsets));
  PetscCall(PetscCalloc2(PetscMax(ns, 1), &bd->mus, 2 * n, &bd->q0));
  for (PetscInt j = 0; j < ns; j++) bd->mus[j] = bd->mu;
  for (PetscInt j = 0, r = 0; j < ns; j++) {
    bd->kinds[j]   = VI_CONTACT_UNILATERAL;
    bd->dims[j]    = bd->mu > 0 ? 2 : 1;
    bd->offsets[j] = r;
    r += bd->dims[j];
  }
  PetscCall(PetscCalloc3(ns, &bd->seg, VI_BODIES_ROW * ns, &bd->bdof, ns, &bd->xi));
  PetscCall(PetscCalloc3(4 * ns, &bd->frame, VI_BODIES_ROW * ns, &bd->bn, VI_BODIES_ROW * ns, &bd->bt));
  for (PetscInt j = 0; j < ns; j++) {
    bd->seg[j] = -1;
    bd->xi[j]  = NAN;
  }
  sys->nb            = 0;
  sys->nm            = n;
  sys->constant_mass = PETSC_TRUE;
  sys->linear        = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Displacement of a coordinate (clamped: 0). */
static inline PetscReal VIBodiesValue(const PetscReal u[], PetscInt dof)
{
  return dof >= 0 ? u[dof] : 0.0;
}

/*
  Contact search of slave j in the configuration X + u (seed 003 Eqs. 34-36): the slave C projected normally on each master
  segment T1 T2, l_1C = T1C . T1T2 / l_12, xi = l_1C / l_12; a segment qualifies when 0 <= xi <= 1 (Eq. 35), and of those
  the one with the smallest |gap| wins. A slave in the blind spot of a convex kink (beyond the end of one segment, before
  the start of the next) is on the shared node (xi = 1). None: the slave has left the master (seg = -1).
*/
static void VIBodiesSearch(const VISystem_Bodies *bd, PetscInt j, const PetscReal u[], PetscInt *seg, PetscReal *xi)
{
  const VIBodyNode *s = &bd->slaves[j];
  PetscReal         C[2], best = PETSC_MAX_REAL, prev_xi = 0;

  *seg = -1;
  *xi  = 0;
  for (PetscInt c = 0; c < 2; c++) C[c] = s->X[c] + VIBodiesValue(u, s->dof[c]);
  for (PetscInt k = 0; k + 1 < bd->num_master; k++) {
    const VIBodyNode *n1 = &bd->master[k], *n2 = &bd->master[k + 1];
    PetscReal         P1[2], e[2], l, a, g;
    for (PetscInt c = 0; c < 2; c++) {
      P1[c] = n1->X[c] + VIBodiesValue(u, n1->dof[c]);
      e[c]  = n2->X[c] + VIBodiesValue(u, n2->dof[c]) - P1[c];
    }
    l = PetscSqrtReal(e[0] * e[0] + e[1] * e[1]);
    a = ((C[0] - P1[0]) * e[0] + (C[1] - P1[1]) * e[1]) / (l * l);
    g = ((C[1] - P1[1]) * e[0] - (C[0] - P1[0]) * e[1]) / l; /* along n = (-e_y, e_x) / l */
    if (a >= 0 && a <= 1 && PetscAbsReal(g) < best) {
      best = PetscAbsReal(g);
      *seg = k;
      *xi  = a;
    } else if (k > 0 && a < 0 && prev_xi > 1) { /* convex kink at node k: on it, as the end of segment k - 1 */
      PetscReal gk = PetscSqrtReal((C[0] - P1[0]) * (C[0] - P1[0]) + (C[1] - P1[1]) * (C[1] - P1[1]));
      if (gk < best) {
        best = gk;
        *seg = k - 1;
        *xi  = 1;
      }
    }
    prev_xi = a;
  }
}

/* The frame of master segment seg in the configuration X + u: fr = (n, t), t = T1T2 / l_12 and n = t turned by +90 degrees. */
static void VIBodiesSegmentFrame(const VISystem_Bodies *bd, PetscInt seg, const PetscReal u[], PetscReal fr[4])
{
  const VIBodyNode *n1 = &bd->master[seg], *n2 = &bd->master[seg + 1];
  PetscReal         e[2], l;

  for (PetscInt c = 0; c < 2; c++) e[c] = n2->X[c] + VIBodiesValue(u, n2->dof[c]) - n1->X[c] - VIBodiesValue(u, n1->dof[c]);
  l     = PetscSqrtReal(e[0] * e[0] + e[1] * e[1]);
  fr[0] = -e[1] / l; /* normal */
  fr[1] = e[0] / l;
  fr[2] = e[0] / l; /* tangent */
  fr[3] = e[1] / l;
}

/* The rows of slave j on segment seg at xi, in the frame of the configuration X + u: n, t (unit normal and tangent of
   the segment), B_N = n . (e_C - (1 - xi) e_T1 - xi e_T2), B_T the same with t (seed 003 Eqs. 40-44: the paper's B_C is
   -B_N, its B_E is -(B_N -/+ mu B_T); here the friction force is a multiplier of its own). Into the given arrays. */
static void VIBodiesRows(const VISystem_Bodies *bd, PetscInt j, PetscInt seg, PetscReal xi, const PetscReal u[], PetscReal fr[4], PetscInt dof[],
                         PetscReal bn[], PetscReal bt[])
{
  const VIBodyNode *nodes[3] = {&bd->slaves[j], &bd->master[seg], &bd->master[seg + 1]};
  const PetscReal   wgt[3]   = {1, -(1 - xi), -xi};

  VIBodiesSegmentFrame(bd, seg, u, fr);
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt c = 0; c < 2; c++) {
      dof[2 * a + c] = nodes[a]->dof[c];
      bn[2 * a + c]  = wgt[a] * fr[c];
      bt[2 * a + c]  = wgt[a] * fr[2 + c];
    }
}

/* Normal gap of slave j on segment seg with the normal row bn, in X + u: n . (C - (1 - xi) T1 - xi T2). */
static PetscReal VIBodiesGap(const VISystem_Bodies *bd, PetscInt j, PetscInt seg, const PetscReal bn[], const PetscReal u[])
{
  const VIBodyNode *nodes[3] = {&bd->slaves[j], &bd->master[seg], &bd->master[seg + 1]};
  PetscReal         g        = 0;

  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt c = 0; c < 2; c++) g += bn[2 * a + c] * (nodes[a]->X[c] + VIBodiesValue(u, nodes[a]->dof[c]));
  return g;
}

static PetscErrorCode VISystemLinearizeContact_Bodies(VISystem sys, PetscInt j, const PetscReal q[], PetscBool *active)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;
  PetscInt         seg;
  PetscReal        xi;

  PetscFunctionBeginUser;
  VIBodiesSearch(bd, j, q, &seg, &xi);
  bd->seg[j] = seg;
  if (seg >= 0) {
    VIBodiesRows(bd, j, seg, xi, q, bd->frame + 4 * j, bd->bdof + VI_BODIES_ROW * j, bd->bn + VI_BODIES_ROW * j, bd->bt + VI_BODIES_ROW * j);
    bd->xi[j] = xi;
  }
  if (active) *active = seg >= 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetContactRows_Bodies(VISystem sys, PetscInt *nnz, const PetscInt **dof, const PetscReal **normal,
                                                    const PetscReal **tangent, const PetscInt **where, const PetscReal **xi)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  if (nnz) *nnz = VI_BODIES_ROW;
  if (dof) *dof = bd->bdof;
  if (normal) *normal = bd->bn;
  if (tangent) *tangent = bd->bt;
  if (where) *where = bd->seg;
  if (xi) *xi = bd->xi;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemEvaluateContactGap_Bodies(VISystem sys, PetscInt j, const PetscReal q[], PetscReal *g)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  PetscCheck(bd->seg[j] >= 0, sys->comm, PETSC_ERR_ORDER, "Contact %" PetscInt_FMT " (slave node %" PetscInt_FMT ") is not over the master chain", j,
             bd->slaves[j].id);
  *g = VIBodiesGap(bd, j, bd->seg[j], bd->bn + VI_BODIES_ROW * j, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemEvaluateContactFrame_Bodies(VISystem sys, PetscInt j, const PetscReal q[], PetscBool *active, PetscReal frame[])
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;
  PetscInt         seg;
  PetscReal        xi;

  PetscFunctionBeginUser;
  VIBodiesSearch(bd, j, q, &seg, &xi);
  if (seg >= 0) VIBodiesSegmentFrame(bd, seg, q, frame);
  *active = seg >= 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The general view of the constraints at q (seed 002 Eq. 17), from the search and rows at q and without touching the
   linearisation: g_j the normal gap (+inf when the slave is off the master, G_j then zero), G_j = B_N, and the tangential
   rows B_T for the frictional contacts; the master does not move by itself, so dg/dt = 0. */
static PetscErrorCode VISystemEvaluateConstraints_Bodies(VISystem sys, PetscReal t, const PetscReal q[], PetscReal g[], PetscReal G[],
                                                         PetscReal g_rate[])
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;
  const PetscInt   n  = sys->n;

  PetscFunctionBeginUser;
  (void)t;
  if (G) PetscCall(PetscArrayzero(G, bd->num_slaves * n));
  for (PetscInt j = 0; j < bd->num_slaves; j++) {
    PetscInt  seg, dof[VI_BODIES_ROW];
    PetscReal xi, fr[4], bn[VI_BODIES_ROW], bt[VI_BODIES_ROW];
    if (g_rate) g_rate[j] = 0;
    VIBodiesSearch(bd, j, q, &seg, &xi);
    if (seg < 0) {
      if (g) g[j] = (PetscReal)INFINITY;
      continue;
    }
    VIBodiesRows(bd, j, seg, xi, q, fr, dof, bn, bt);
    if (g) g[j] = VIBodiesGap(bd, j, seg, bn, q);
    if (G)
      for (PetscInt p = 0; p < VI_BODIES_ROW; p++)
        if (dof[p] >= 0) G[j * n + dof[p]] += bn[p];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemEvaluateTangents_Bodies(VISystem sys, PetscReal t, const PetscReal q[], PetscReal Gt[])
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;
  const PetscInt   n  = sys->n;

  PetscFunctionBeginUser;
  (void)t;
  for (PetscInt j = 0, r = 0; j < bd->num_slaves; j++) {
    PetscInt  seg, dof[VI_BODIES_ROW];
    PetscReal xi, fr[4], bn[VI_BODIES_ROW], bt[VI_BODIES_ROW];
    if (bd->dims[j] < 2) continue;
    PetscCall(PetscArrayzero(Gt + r * n, n));
    VIBodiesSearch(bd, j, q, &seg, &xi);
    if (seg >= 0) {
      VIBodiesRows(bd, j, seg, xi, q, fr, dof, bn, bt);
      for (PetscInt p = 0; p < VI_BODIES_ROW; p++)
        if (dof[p] >= 0) Gt[r * n + dof[p]] += bt[p];
    }
    r++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetContacts_Bodies(VISystem sys, PetscInt *nc, const VIContactKind **kinds, const PetscInt **dims,
                                                 const PetscInt **offsets)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  if (nc) *nc = bd->num_slaves;
  if (kinds) *kinds = bd->kinds;
  if (dims) *dims = bd->dims;
  if (offsets) *offsets = bd->offsets;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetContactSet_Bodies(VISystem sys, VIContactSet *set, const PetscReal **obstacle_velocity)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  set->num_contacts = bd->num_slaves;
  set->dims         = bd->dims;
  set->mu           = bd->mus;
  set->preload      = NULL;
  set->kinds        = bd->kinds;
  if (obstacle_velocity) *obstacle_velocity = NULL; /* the master is a body, not a moving obstacle */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* No load vectors: the scheme adds its case's loads, drives and slave forces (the dual assembly's VIDualAddLoad, ...). */
static PetscErrorCode VISystemGetLoads_Bodies(VISystem sys, PetscInt *num_loads, const PetscReal *const **vectors)
{
  PetscFunctionBeginUser;
  (void)sys;
  *num_loads = 0;
  if (vectors) *vectors = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* At rest, undeformed (the scheme's own start: VIDualSetInitialDisplacement, -dual_start static). */
static PetscErrorCode VISystemGetInitialState_Bodies(VISystem sys, const PetscReal **q0, const PetscReal **u0)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  if (q0) *q0 = bd->q0;
  if (u0) *u0 = bd->q0 + sys->n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemGetLinearOperators_Bodies(VISystem sys, const PetscReal **K, const PetscReal **M, const PetscReal **D)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  if (K) *K = bd->K;
  if (M) *M = bd->M;
  if (D) *D = bd->D;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemComputeMass_Bodies(VISystem sys, const PetscReal q[], PetscReal M[])
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  (void)q;
  PetscCall(PetscArraycpy(M, bd->M, sys->n * sys->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f = -K q - D u: the bodies carry no loads of their own (a scheme adds its case's loads, drives and slave forces). */
static PetscErrorCode VISystemComputeForce_Bodies(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal f[])
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;
  const PetscInt   n  = sys->n;

  PetscFunctionBeginUser;
  (void)t;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal s = 0;
    for (PetscInt j = 0; j < n; j++) s += bd->K[i * n + j] * q[j] + bd->D[i * n + j] * u[j];
    f[i] = -s;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemComputeForceJacobian_Bodies(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal dfdq[],
                                                          PetscReal dfdu[])
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  (void)t;
  (void)q;
  (void)u;
  for (PetscInt i = 0; i < sys->n * sys->n; i++) {
    if (dfdq) dfdq[i] = -bd->K[i];
    if (dfdu) dfdu[i] = -bd->D[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* T = u^T M u / 2, V = q^T K q / 2, body by body (the blocks off the diagonal are zero). */
static PetscErrorCode VISystemComputeEnergy_Bodies(VISystem sys, const PetscReal q[], const PetscReal u[], PetscReal *kinetic, PetscReal *potential)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;
  const PetscInt   n  = sys->n;
  PetscReal        T = 0, V = 0;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < bd->num_bodies; k++) {
    PetscInt o = bd->off[k], nk = bd->off[k + 1] - o;
    for (PetscInt i = 0; i < nk; i++)
      for (PetscInt j = 0; j < nk; j++) {
        if (u) T += 0.5 * u[o + i] * bd->M[(o + i) * n + o + j] * u[o + j];
        if (q) V += 0.5 * q[o + i] * bd->K[(o + i) * n + o + j] * q[o + j];
      }
  }
  if (kinetic) *kinetic = T;
  if (potential) *potential = V;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every ROM output of every body, in body order: rows times the body's coordinates. */
static PetscErrorCode VISystemComputeOutputs_Bodies(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], const PetscReal lambda[],
                                                    PetscReal y[])
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  (void)t;
  (void)u;
  (void)lambda;
  for (PetscInt k = 0, io = 0; k < bd->num_bodies; k++) {
    VIROM    rom;
    PetscInt no, nk = bd->off[k + 1] - bd->off[k];
    PetscCall(VIBodiesGet(bd->bodies, k, NULL, &rom, NULL));
    PetscCall(VIROMGetNumOutputs(rom, &no));
    for (PetscInt o = 0; o < no; o++, io++) {
      const PetscReal *vec;
      PetscReal        s = 0;
      PetscCall(VIROMGetOutput(rom, o, NULL, &vec));
      for (PetscInt i = 0; i < nk; i++) s += vec[i] * q[bd->off[k] + i];
      y[io] = s;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemBodiesGetNumOutputs(VISystem sys, PetscInt *num)
{
  VISystem_Bodies *bd = NULL;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesCheck(sys, "VISystemBodiesGetNumOutputs", &bd));
  PetscCheck(sys->setup, sys->comm, PETSC_ERR_ORDER, "VISystemBodiesGetNumOutputs: call VISystemSetUp first");
  *num = bd->num_outputs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISystemView_Bodies(VISystem sys, PetscViewer viewer)
{
  VISystem_Bodies *bd = (VISystem_Bodies *)sys->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "System bodies: %" PetscInt_FMT " bodies, %" PetscInt_FMT " coordinates, %" PetscInt_FMT
                                   " slave nodes on a master chain of %" PetscInt_FMT " nodes, mu = %g\n",
                                   bd->num_bodies, sys->n, bd->num_slaves, bd->num_master, (double)bd->mu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemCreate_Bodies(VISystem sys)
{
  VISystem_Bodies *bd = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&bd));
  bd->slave_body                = -1;
  bd->master_body               = -1;
  sys->data                     = bd;
  sys->constant_mass            = PETSC_TRUE;
  sys->linear                   = PETSC_TRUE;
  sys->ops.setfromoptions       = VISystemSetFromOptions_Bodies;
  sys->ops.setup                = VISystemSetUp_Bodies;
  sys->ops.view                 = VISystemView_Bodies;
  sys->ops.destroy              = VISystemDestroy_Bodies;
  sys->ops.computemass          = VISystemComputeMass_Bodies;
  sys->ops.getlinearoperators   = VISystemGetLinearOperators_Bodies;
  sys->ops.computeforce         = VISystemComputeForce_Bodies;
  sys->ops.computeforcejacobian = VISystemComputeForceJacobian_Bodies;
  sys->ops.computeenergy        = VISystemComputeEnergy_Bodies;
  sys->ops.computeoutputs       = VISystemComputeOutputs_Bodies;
  sys->ops.getcontacts          = VISystemGetContacts_Bodies;
  sys->ops.getcontactset        = VISystemGetContactSet_Bodies;
  sys->ops.getloads             = VISystemGetLoads_Bodies;
  sys->ops.getinitialstate      = VISystemGetInitialState_Bodies;
  sys->ops.evaluateconstraints  = VISystemEvaluateConstraints_Bodies;
  sys->ops.evaluatetangents     = VISystemEvaluateTangents_Bodies;
  sys->ops.linearizecontact     = VISystemLinearizeContact_Bodies;
  sys->ops.getcontactrows       = VISystemGetContactRows_Bodies;
  sys->ops.contactgap           = VISystemEvaluateContactGap_Bodies;
  sys->ops.contactframe         = VISystemEvaluateContactFrame_Bodies;
  PetscFunctionReturn(PETSC_SUCCESS);
}
