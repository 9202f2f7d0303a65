/* Dual assembly of sliding substructures: explicit central difference on every body, forward-increment Lagrange multipliers
   on node-to-segment contacts with Coulomb friction (seed 003 §2.2, Eqs. 22–44). */
#include <vicms/dual.h>
#include <petscblaslapack.h>
#include "stepimpl.h"

const char *const VIDualGeometries[] = {"deformed", "fixed", "VIDualGeometry", "VI_DUAL_GEOMETRY_", NULL};
const char *const VIDualStatuses[]   = {"off", "open", "stick", "slip", "VIDualStatus", "VI_DUAL_", NULL};
const char *const VIDualStarts[]     = {"rest", "static", "sliding", "VIDualStart", "VI_DUAL_START_", NULL};

#define VI_DUAL_ROW 6 /* a coupling row touches C (x, y), T1 (x, y), T2 (x, y) */

struct _p_VIDual {
  MPI_Comm        comm;
  VISystem        sys;     /* the coupled bodies (type bodies): operators, contact rows, outputs */
  PetscBool       own_sys; /* created by VIDualSetBodies (else referenced, VIDualSetSystem) */
  VIBodies        bodies;  /* the system's */
  PetscInt        num_bodies, n;
  const PetscInt *off;                    /* num_bodies + 1: body k owns global coordinates off[k] .. off[k+1]-1 (the system's) */
  PetscInt       *dof_body;               /* n: the body of each coordinate */
  PetscReal     **K, **M, **D;            /* num_bodies: the blocks of the system's K, M, D (n_k x n_k, row-major) */
  PetscReal     **Minv;                   /* num_bodies, n_k x n_k: (M_ff)^-1 on the free coordinates, zero rows and columns at driven ones */
  PetscBool      *driven;                 /* n */
  PetscInt        num_driven, *drv;       /* the driven coordinates, ascending */
  PetscReal      *drive_v, *drive_u0, *f; /* n: imposed velocity and initial value of driven coordinates; constant load */
  PetscReal      *u, *u_prev, *u_next;    /* n: u_n, u_{n-1}, u_{n+1} (u* before the corrector) */
  PetscReal      *ku, *dv, *ddu, *btx;    /* n: K u_n; D (u_n - u_{n-1}) / dt; u_{n+1} - 2 u_n + u_{n-1}; B^T lambda */
  PetscReal      *work;                   /* n */
  PetscReal      *fn;                     /* n: the load of the step, f + the slave forces at t_n */

  PetscInt          num_slaves, num_master; /* the system's, at VIDualSetUp */
  const VIBodyNode *slaves;                 /* the system's */
  /* per slave node: a time-dependent force s(t) dir (VIDualSetSlaveForce; NULL: none), dir NaN for the master's normal, and
     the value and vector applied in the last step */
  VIExcitation *sforce;
  PetscReal    *sforce_dir, *sforce_val, *sforce_vec;

  PetscReal       mu, dt, dt_crit, t;
  PetscReal       matvec_time; /* VIDualGetMatVecTime, 0 until timed */
  PetscInt        step;
  VIDualGeometry  geometry;
  VIDualStart     start;
  PetscBool       setup;
  VIContactSolver solver;

  /* per slave node, the system's linearisation (VISystemGetContactRows): the segment, xi and the rows B_N, B_T (seed 003
     Eqs. 42, 44) over the coordinates bdof */
  const PetscInt  *seg, *bdof;
  const PetscReal *xi, *bn, *bt;
  PetscReal       *lambda; /* 2 per slave (normal, tangential) of the last step */
  VIDualContact   *rec;
  /* the contact problem of a step on the slaves with a segment */
  PetscInt    *dims, *act;
  PetscReal   *mus, *G, *c, *x;
  PetscInt     num_outputs;
  PetscReal   *outputs;
  VIDualEnergy energy;
  PetscInt     energy_step; /* the step whose kinetic and potential energy are in energy (-1: none): VIDualGetEnergy computes them once */
};

PetscErrorCode VIDualCreate(MPI_Comm comm, VIDual *dual)
{
  VIDual d;

  PetscFunctionBeginUser;
  PetscCall(VIInitializePackage());
  PetscCall(PetscNew(&d));
  d->comm     = comm;
  d->geometry = VI_DUAL_GEOMETRY_DEFORMED;
  PetscCall(VIContactSolverCreate(comm, &d->solver));
  *dual = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualDestroy(VIDual *dual)
{
  VIDual d = *dual;

  PetscFunctionBeginUser;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < d->num_bodies && d->Minv; k++) PetscCall(PetscFree(d->Minv[k]));
  for (PetscInt k = 0; k < d->num_bodies && d->K; k++) PetscCall(PetscFree3(d->K[k], d->M[k], d->D[k]));
  PetscCall(PetscFree4(d->K, d->M, d->D, d->Minv));
  PetscCall(PetscFree(d->dof_body));
  PetscCall(PetscFree4(d->driven, d->drive_v, d->drive_u0, d->f));
  PetscCall(PetscFree4(d->u, d->u_prev, d->u_next, d->work));
  PetscCall(PetscFree4(d->ku, d->dv, d->ddu, d->btx));
  PetscCall(PetscFree(d->drv));
  PetscCall(PetscFree4(d->sforce, d->sforce_dir, d->sforce_val, d->sforce_vec));
  PetscCall(PetscFree(d->fn));
  PetscCall(PetscFree2(d->lambda, d->rec));
  PetscCall(PetscFree3(d->dims, d->act, d->mus));
  PetscCall(PetscFree3(d->G, d->c, d->x));
  PetscCall(PetscFree(d->outputs));
  PetscCall(VIContactSolverDestroy(&d->solver));
  if (d->own_sys) PetscCall(VISystemDestroy(&d->sys));
  PetscCall(PetscFree(*dual));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The per-coordinate arrays of a system of bodies. */
static PetscErrorCode VIDualAttach(VIDual d)
{
  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesGetBodies(d->sys, &d->bodies, &d->num_bodies, &d->off));
  PetscCheck(d->bodies, d->comm, PETSC_ERR_ORDER, "VIDualSetSystem: the system has no bodies (VISystemBodiesSetBodies)");
  d->n = d->off[d->num_bodies];
  PetscCall(PetscCalloc4(d->num_bodies, &d->K, d->num_bodies, &d->M, d->num_bodies, &d->D, d->num_bodies, &d->Minv));
  PetscCall(PetscMalloc1(d->n, &d->dof_body));
  for (PetscInt k = 0; k < d->num_bodies; k++)
    for (PetscInt i = d->off[k]; i < d->off[k + 1]; i++) d->dof_body[i] = k;
  PetscCall(PetscCalloc4(d->n, &d->driven, d->n, &d->drive_v, d->n, &d->drive_u0, d->n, &d->f));
  PetscCall(PetscCalloc4(d->n, &d->u, d->n, &d->u_prev, d->n, &d->u_next, d->n, &d->work));
  PetscCall(PetscCalloc1(d->n, &d->fn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetBodies(VIDual d, VIBodies bodies)
{
  PetscFunctionBeginUser;
  PetscCheck(!d->sys, d->comm, PETSC_ERR_ORDER, "VIDualSetBodies: the bodies are already set");
  PetscCall(VISystemCreate(d->comm, &d->sys));
  d->own_sys = PETSC_TRUE;
  PetscCall(VISystemSetType(d->sys, VISYSTEMBODIES));
  PetscCall(VISystemBodiesSetBodies(d->sys, bodies));
  PetscCall(VIDualAttach(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetSystem(VIDual d, VISystem sys)
{
  PetscFunctionBeginUser;
  PetscCheck(!d->sys, d->comm, PETSC_ERR_ORDER, "VIDualSetSystem: the system is already set");
  d->sys = sys;
  PetscCall(VIDualAttach(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualGetSystem(VIDual d, VISystem *sys)
{
  PetscFunctionBeginUser;
  *sys = d->sys;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Body index of a name, with an error naming the caller. */
static PetscErrorCode VIDualFindBody(VIDual d, const char body[], const char what[], PetscInt *k)
{
  PetscFunctionBeginUser;
  PetscCheck(d->sys, d->comm, PETSC_ERR_ORDER, "%s: call VIDualSetBodies first", what);
  PetscCheck(!d->setup, d->comm, PETSC_ERR_ORDER, "%s: the dual assembly is already set up", what);
  PetscCall(VISystemBodiesFindBody(d->sys, body, what, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slave forces' arrays for the system's slaves (none applied). */
static PetscErrorCode VIDualSlaveArrays(VIDual d)
{
  PetscInt num;

  PetscFunctionBeginUser;
  PetscCall(VISystemBodiesGetSlaves(d->sys, &num, NULL, NULL));
  if (d->sforce && num == d->num_slaves) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree4(d->sforce, d->sforce_dir, d->sforce_val, d->sforce_vec));
  PetscCall(PetscCalloc4(num, &d->sforce, 2 * num, &d->sforce_dir, num, &d->sforce_val, 2 * num, &d->sforce_vec));
  d->num_slaves = num;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetSlave(VIDual d, const char body[], PetscInt num, const PetscInt ids[])
{
  PetscInt k;

  PetscFunctionBeginUser;
  PetscCall(VIDualFindBody(d, body, "VIDualSetSlave", &k));
  PetscCall(VISystemBodiesSetSlave(d->sys, body, num, ids));
  PetscCall(PetscFree4(d->sforce, d->sforce_dir, d->sforce_val, d->sforce_vec));
  PetscCall(VIDualSlaveArrays(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetMaster(VIDual d, const char body[], PetscInt num, const PetscInt ids[])
{
  PetscInt k;

  PetscFunctionBeginUser;
  PetscCall(VIDualFindBody(d, body, "VIDualSetMaster", &k));
  PetscCall(VISystemBodiesSetMaster(d->sys, body, num, ids));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetFriction(VIDual d, PetscReal mu)
{
  PetscFunctionBeginUser;
  /* a coefficient far beyond any material's only overflows mu lambda_n (1e308 ended in a traceback mid-run): sticking is mu = 1e6 */
  PetscCheck(mu >= 0 && mu <= 1e6, d->comm, PETSC_ERR_USER_INPUT,
             "-dual_mu: the friction coefficient is %g, expected 0 <= mu <= 1e6 (a contact that never slips: a large mu such as 1e3)", (double)mu);
  d->mu = mu;
  if (d->sys) PetscCall(VISystemBodiesSetFriction(d->sys, mu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetTimeStep(VIDual d, PetscReal dt)
{
  PetscFunctionBeginUser;
  PetscCheck(dt >= 0 && PetscIsNormalReal(dt + 1), d->comm, PETSC_ERR_USER_INPUT, "-dual_dt: the time step is %g, expected > 0 (0: automatic)",
             (double)dt);
  d->dt = dt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetGeometry(VIDual d, VIDualGeometry geometry)
{
  PetscFunctionBeginUser;
  d->geometry = geometry;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetStart(VIDual d, VIDualStart start)
{
  PetscFunctionBeginUser;
  PetscCheck(!d->setup, d->comm, PETSC_ERR_ORDER, "VIDualSetStart: the dual assembly is already set up");
  d->start = start;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualAddLoad(VIDual d, const char body[], PetscInt num, const PetscInt ids[], const PetscReal force[])
{
  PetscInt k;

  PetscFunctionBeginUser;
  PetscCall(VIDualFindBody(d, body, "VIDualAddLoad", &k));
  PetscCheck(num >= 1, d->comm, PETSC_ERR_USER_INPUT, "VIDualAddLoad: no nodes of body %s", body);
  for (PetscInt j = 0; j < num; j++) {
    VIBodyNode node = {0};
    PetscCall(VISystemBodiesGetNode(d->sys, k, ids[j], "VIDualAddLoad", &node));
    for (PetscInt c = 0; c < 2; c++)
      if (node.dof[c] >= 0) d->f[node.dof[c]] += force[c] / num;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetSlaveForce(VIDual d, PetscInt j, VIExcitation s, const PetscReal dir[])
{
  PetscFunctionBeginUser;
  PetscCheck(!d->setup, d->comm, PETSC_ERR_ORDER, "VIDualSetSlaveForce: the dual assembly is already set up");
  PetscCheck(d->sys, d->comm, PETSC_ERR_ORDER, "VIDualSetSlaveForce: call VIDualSetBodies first");
  PetscCall(VIDualSlaveArrays(d));
  PetscCheck(j >= 0 && j < d->num_slaves, d->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "VIDualSetSlaveForce: slave %" PetscInt_FMT " of %" PetscInt_FMT " (call VIDualSetSlave first)", j, d->num_slaves);
  d->sforce[j] = s;
  if (dir) {
    PetscReal l = PetscSqrtReal(dir[0] * dir[0] + dir[1] * dir[1]);
    PetscCheck(l > 0 && PetscIsNormalReal(l), d->comm, PETSC_ERR_USER_INPUT, "VIDualSetSlaveForce: the direction (%g, %g) is not a direction",
               (double)dir[0], (double)dir[1]);
    d->sforce_dir[2 * j]     = dir[0] / l;
    d->sforce_dir[2 * j + 1] = dir[1] / l;
  } else
    d->sforce_dir[2 * j] = d->sforce_dir[2 * j + 1] = NAN;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualGetSlaveForce(VIDual d, PetscInt j, PetscReal *value, PetscReal force[])
{
  PetscFunctionBeginUser;
  PetscCheck(j >= 0 && j < d->num_slaves, d->comm, PETSC_ERR_ARG_OUTOFRANGE, "VIDualGetSlaveForce: slave %" PetscInt_FMT " of %" PetscInt_FMT, j,
             d->num_slaves);
  if (value) *value = d->sforce_val[j];
  if (force) {
    force[0] = d->sforce_vec[2 * j];
    force[1] = d->sforce_vec[2 * j + 1];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualAddDrive(VIDual d, const char body[], PetscInt num, const PetscInt ids[], PetscInt comp, PetscReal velocity)
{
  PetscInt k;

  PetscFunctionBeginUser;
  PetscCall(VIDualFindBody(d, body, "VIDualAddDrive", &k));
  PetscCheck(comp == 0 || comp == 1, d->comm, PETSC_ERR_USER_INPUT, "VIDualAddDrive: component %" PetscInt_FMT ", expected 0 (x) or 1 (y)", comp);
  for (PetscInt j = 0; j < num; j++) {
    VIBodyNode node = {0};
    PetscCall(VISystemBodiesGetNode(d->sys, k, ids[j], "VIDualAddDrive", &node));
    PetscCheck(node.dof[comp] >= 0, d->comm, PETSC_ERR_USER_INPUT, "VIDualAddDrive: node %" PetscInt_FMT " of body %s is clamped", ids[j], body);
    d->driven[node.dof[comp]]  = PETSC_TRUE;
    d->drive_v[node.dof[comp]] = velocity;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualTranslateBody(VIDual d, const char body[], const PetscReal shift[])
{
  PetscInt k;

  PetscFunctionBeginUser;
  PetscCall(VIDualFindBody(d, body, "VIDualTranslateBody", &k));
  PetscCall(VISystemBodiesTranslateBody(d->sys, body, shift));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetInitialDisplacement(VIDual d, PetscInt k, const PetscReal q[])
{
  PetscFunctionBeginUser;
  PetscCheck(d->sys, d->comm, PETSC_ERR_ORDER, "VIDualSetInitialDisplacement: call VIDualSetBodies first");
  PetscCheck(!d->setup, d->comm, PETSC_ERR_ORDER, "VIDualSetInitialDisplacement: the dual assembly is already set up");
  PetscCheck(k >= 0 && k < d->num_bodies, d->comm, PETSC_ERR_ARG_OUTOFRANGE, "Body %" PetscInt_FMT " of %" PetscInt_FMT, k, d->num_bodies);
  PetscCall(PetscArraycpy(d->u + d->off[k], q, d->off[k + 1] - d->off[k]));
  PetscCall(PetscArraycpy(d->u_prev + d->off[k], q, d->off[k + 1] - d->off[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetFromOptions(VIDual d)
{
  PetscReal      dt = d->dt, mu = d->mu;
  VIDualGeometry geometry = d->geometry;
  VIDualStart    start    = d->start;

  PetscFunctionBeginUser;
  PetscOptionsBegin(d->comm, NULL, "Dual assembly of sliding substructures (seed 003)", "VIDual");
  PetscCall(PetscOptionsReal("-dual_dt", "Time step of the central difference (0: 0.8 times the stability limit, seed 003 Eq. 25)",
                             "VIDualSetTimeStep", dt, &dt, NULL));
  PetscCall(PetscOptionsReal("-dual_mu", "Coulomb friction coefficient of the sliding contacts", "VIDualSetFriction", mu, &mu, NULL));
  PetscCall(PetscOptionsEnum("-dual_geometry",
                             "Coupling rows in the predicted deformed configuration (seed 003 Eq. 33) or fixed in the undeformed one",
                             "VIDualSetGeometry", VIDualGeometries, (PetscEnum)geometry, (PetscEnum *)&geometry, NULL));
  PetscCall(PetscOptionsEnum(
      "-dual_start",
      "Start at rest undeformed (rest), at rest in the static equilibrium under the constant loads with the slaves pressed on the master "
      "(static), or in the steady sliding state: that equilibrium with the sliding friction, moving with the drive (sliding)",
      "VIDualSetStart", VIDualStarts, (PetscEnum)start, (PetscEnum *)&start, NULL));
  PetscOptionsEnd();
  PetscCall(VIDualSetTimeStep(d, dt));
  PetscCall(VIDualSetFriction(d, mu));
  PetscCall(VIDualSetGeometry(d, geometry));
  PetscCall(VIDualSetStart(d, start));
  PetscCall(VIContactSolverSetFromOptions(d->solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Body k: (M_ff)^-1 on its free coordinates, and the stability limit of the central difference with the backward-difference
   damping velocity over its free modes: for u'' + 2 zeta omega u' + omega^2 u = 0 the scheme is stable for
   omega dt <= 2 (sqrt(1 + zeta^2) - zeta) (the roots of z^2 + (omega^2 dt^2 + 2 zeta omega dt - 2) z + 1 - 2 zeta omega dt). */
static PetscErrorCode VIDualSetUpBody(VIDual d, PetscInt k, PetscReal *dt_crit)
{
  PetscInt     off = d->off[k], nk = d->off[k + 1] - off, m = 0, *keep;
  PetscReal   *Mf, *Kf, *w, *work;
  PetscBLASInt bn, itype = 1, lwork, info;
  const char  *name;

  PetscFunctionBeginUser;
  PetscCall(VIBodiesGet(d->bodies, k, &name, NULL, NULL));
  PetscCall(PetscMalloc1(nk, &keep));
  for (PetscInt i = 0; i < nk; i++)
    if (!d->driven[off + i]) keep[m++] = i;
  PetscCall(PetscCalloc1(nk * nk, &d->Minv[k]));
  *dt_crit = PETSC_MAX_REAL;
  if (!m) {
    PetscCall(PetscFree(keep));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc4(m * m, &Mf, m * m, &Kf, m, &w, 8 * m, &work));
  for (PetscInt a = 0; a < m; a++)
    for (PetscInt b = 0; b < m; b++) Mf[a * m + b] = d->M[k][keep[a] * nk + keep[b]];
  {
    char what[128];
    PetscCall(PetscSNPrintf(what, sizeof(what), "The mass matrix of body %s on its free coordinates", name));
    PetscCall(VIInvertSPD(d->comm, m, Mf, what));
  }
  for (PetscInt a = 0; a < m; a++)
    for (PetscInt b = 0; b < m; b++) d->Minv[k][keep[a] * nk + keep[b]] = Mf[a * m + b];
  for (PetscInt a = 0; a < m; a++)
    for (PetscInt b = 0; b < m; b++) {
      Mf[a * m + b] = d->M[k][keep[a] * nk + keep[b]];
      Kf[a * m + b] = d->K[k][keep[a] * nk + keep[b]];
    }
  PetscCall(PetscBLASIntCast(m, &bn));
  lwork = 8 * bn;
  PetscCallBLAS("LAPACKsygv", LAPACKsygv_(&itype, "V", "U", &bn, Kf, &bn, Mf, &bn, w, work, &lwork, &info));
  PetscCheck(info == 0, d->comm, PETSC_ERR_LIB, "Body %s: LAPACK sygv failed with info %d", name, (int)info);
  for (PetscInt j = 0; j < m; j++) {
    const PetscReal *phi = Kf + j * m; /* column-major eigenvector j, M-normalised */
    PetscReal        omega, dphi = 0, zeta;
    if (w[j] <= 0) continue;
    omega = PetscSqrtReal(w[j]);
    for (PetscInt a = 0; a < m; a++)
      for (PetscInt b = 0; b < m; b++) dphi += phi[a] * d->D[k][keep[a] * nk + keep[b]] * phi[b];
    zeta     = PetscMax(dphi, 0) / (2 * omega);
    *dt_crit = PetscMin(*dt_crit, 2 * (PetscSqrtReal(1 + zeta * zeta) - zeta) / omega);
  }
  PetscCall(PetscFree4(Mf, Kf, w, work));
  PetscCall(PetscFree(keep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Displacement of a global coordinate (clamped: 0). */
static inline PetscReal VIDualValue(const PetscReal u[], PetscInt dof)
{
  return dof >= 0 ? u[dof] : 0.0;
}

/* Row (VI_DUAL_ROW entries over bdof) times a vector. */
static inline PetscReal VIDualRowDot(const PetscInt dof[], const PetscReal row[], const PetscReal v[])
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < VI_DUAL_ROW; i++) s += row[i] * VIDualValue(v, dof[i]);
  return s;
}

/* The load of the step t_n -> t_{n+1}: fn = f + s(t_n) dir on each slave with a force (the central difference takes the
   load at t_n, seed 003 Eq. 24); dir NaN: the outward normal of the master segment under the slave in X + u_n. */
static PetscErrorCode VIDualStepLoad(VIDual d)
{
  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(d->fn, d->f, d->n));
  for (PetscInt j = 0; j < d->num_slaves; j++) {
    PetscReal s, dir[2] = {d->sforce_dir[2 * j], d->sforce_dir[2 * j + 1]};
    if (!d->sforce[j]) continue;
    PetscCall(VIExcitationEvaluate(d->sforce[j], d->t, &s, NULL));
    if (PetscIsNanReal(dir[0])) {
      PetscBool on;
      PetscReal fr[4];
      PetscCall(VISystemEvaluateContactFrame(d->sys, j, d->u, &on, fr));
      dir[0] = on ? fr[0] : 0;
      dir[1] = on ? fr[1] : 0;
    }
    d->sforce_val[j] = s;
    for (PetscInt c = 0; c < 2; c++) {
      d->sforce_vec[2 * j + c] = s * dir[c];
      if (d->slaves[j].dof[c] >= 0) d->fn[d->slaves[j].dof[c]] += s * dir[c];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The static equilibrium under the constant loads f (VI_DUAL_START_STATIC): the driven coordinates u_p at their value plus
  tshift times their velocity, one normal multiplier per active slave; for given rows B_N (the search and rows in X + u),
    [K_ff  -W_f^T] [u_f   ]   [f_f + e_f - K_fp u_p    ]
    [B_f    0    ] [lambda] = [-B_N (X) - B_p u_p     ]   (the gap n . (C - (1 - xi) T1 - xi T2) closed),
  W = B_N - sgn_j mu B_T: no friction (sgn NULL: W = B_N), or the steady sliding friction lambda_t = -sgn_j mu lambda_n of a
  slave slipping along +t (sgn_j = 1) or -t (-1); e an extra constant force (NULL: none). Dense LU on the free coordinates
  of all the bodies. A slave whose lambda comes out negative is released (and a released one that penetrates taken back)
  until the set repeats; with deformed geometry the search and the rows are redone in X + u until u changes by less than
  1e-12 of its largest entry. u: in, the first guess (and the driven coordinates' value before the shift); out, the
  equilibrium. The multipliers go to d->lambda (the warm start). what: the option named in the errors.
*/
static PetscErrorCode VIDualStatic(VIDual d, PetscReal tshift, const PetscReal sgn[], const PetscReal extra[], const char what[], PetscReal u[])
{
  PetscInt     n = d->n, ns = d->num_slaves, nf = 0, *fi, *gi, it, N;
  PetscBool   *on, changed = PETSC_TRUE, moved = PETSC_TRUE;
  PetscReal   *A, *b;
  PetscBLASInt bN, one = 1, info, *piv;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(n, &fi, n, &gi, ns, &on));
  for (PetscInt i = 0; i < n; i++) gi[i] = d->driven[i] ? -1 : nf++;
  for (PetscInt i = 0; i < n; i++)
    if (gi[i] >= 0) fi[gi[i]] = i;
  for (PetscInt j = 0; j < ns; j++) on[j] = PETSC_TRUE;
  PetscCall(PetscMalloc3((nf + ns) * (nf + ns), &A, nf + ns, &b, nf + ns, &piv));
  for (PetscInt i = 0; i < n; i++)
    if (d->driven[i]) u[i] += d->drive_v[i] * tshift;
  for (it = 0; it < 50 && (changed || moved); it++) {
    PetscReal du = 0, umax = 0;
    PetscInt  na = 0;

    /* search and rows in X + u (the fixed geometry keeps those of the undeformed configuration) */
    for (PetscInt j = 0; j < ns; j++) {
      if (d->geometry == VI_DUAL_GEOMETRY_DEFORMED) PetscCall(VISystemLinearizeContact(d->sys, j, u, NULL));
      if (d->seg[j] >= 0 && on[j]) na++;
    }
    N = nf + na;
    PetscCall(PetscArrayzero(A, N * N));
    for (PetscInt a = 0; a < nf; a++) { /* column-major A(a, c) = A[c N + a] */
      PetscInt i = fi[a], k = d->dof_body[i], o = d->off[k], nk = d->off[k + 1] - o;
      b[a] = d->f[i] + (extra ? extra[i] : 0);
      for (PetscInt jj = 0; jj < nk; jj++) {
        PetscReal kij = d->K[k][(i - o) * nk + jj];
        if (gi[o + jj] >= 0)
          A[gi[o + jj] * N + a] = kij;
        else
          b[a] -= kij * u[o + jj];
      }
    }
    for (PetscInt j = 0, r = nf; j < ns; j++) {
      const PetscInt  *dof = d->bdof + VI_DUAL_ROW * j;
      const PetscReal *row = d->bn + VI_DUAL_ROW * j, *tan = d->bt + VI_DUAL_ROW * j, fr = sgn ? sgn[j] * d->mu : 0;
      PetscReal        g0;
      if (!(d->seg[j] >= 0 && on[j])) continue;
      PetscCall(PetscArrayzero(d->work, n));
      PetscCall(VISystemEvaluateContactGap(d->sys, j, d->work, &g0)); /* B_N X */
      b[r] = -g0;
      for (PetscInt p = 0; p < VI_DUAL_ROW; p++) {
        if (dof[p] < 0) continue;
        if (gi[dof[p]] >= 0) {
          A[gi[dof[p]] * N + r] += row[p];               /* B_f */
          A[r * N + gi[dof[p]]] -= row[p] - fr * tan[p]; /* -W_f^T */
        } else
          b[r] -= row[p] * u[dof[p]]; /* driven: B_p u_p */
      }
      r++;
    }
    PetscCall(PetscBLASIntCast(N, &bN));
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bN, &one, A, &bN, piv, b, &bN, &info));
    PetscCheck(info == 0, d->comm, PETSC_ERR_USER_INPUT,
               "%s: the static problem is singular (gesv info %d): a body is free to move rigidly where no slave holds it "
               "(every slave released, or not over the master); start at rest instead (-dual_start rest)",
               what, (int)info);
    for (PetscInt a = 0; a < nf; a++) {
      du       = PetscMax(du, PetscAbsReal(b[a] - u[fi[a]]));
      umax     = PetscMax(umax, PetscAbsReal(b[a]));
      u[fi[a]] = b[a];
    }
    moved   = d->geometry == VI_DUAL_GEOMETRY_DEFORMED && du > 1e-12 * umax ? PETSC_TRUE : PETSC_FALSE;
    changed = PETSC_FALSE;
    PetscCall(PetscArrayzero(d->lambda, 2 * ns));
    for (PetscInt j = 0, r = nf; j < ns; j++) {
      if (d->seg[j] < 0) continue;
      if (on[j]) {
        d->lambda[2 * j]     = b[r++];
        d->lambda[2 * j + 1] = sgn ? -sgn[j] * d->mu * d->lambda[2 * j] : 0;
        if (d->lambda[2 * j] < 0) on[j] = PETSC_FALSE, changed = PETSC_TRUE;
      } else {
        PetscReal g;
        PetscCall(VISystemEvaluateContactGap(d->sys, j, u, &g));
        if (g < 0) on[j] = PETSC_TRUE, changed = PETSC_TRUE;
      }
    }
  }
  PetscCheck(!changed && !moved, d->comm, PETSC_ERR_NOT_CONVERGED,
             "%s: the static equilibrium did not settle in %" PetscInt_FMT " iterations (contact set or geometry)", what, it);
  for (PetscInt j = 0; j < ns; j++)
    if (d->seg[j] >= 0 && !on[j]) d->lambda[2 * j] = d->lambda[2 * j + 1] = 0;
  PetscCall(PetscFree3(A, b, piv));
  PetscCall(PetscFree3(fi, gi, on));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The steady sliding state (VI_DUAL_START_SLIDING, issue 27): u_0 and u_{-1} the static equilibria of VIDualStatic with the
  steady sliding friction, the driven coordinates at their value (t_0 = 0) and one step back (t_{-1} = -dt), so that the
  first step starts sliding at the drive's velocity with the Coulomb force already on the cone, and the slow change of the
  equilibrium as the contact moves is the starting velocity (u_0 - u_{-1}) / dt. The slip direction of each slave is that
  of the frictionless equilibria at -+1000 dt; the damping force of the sliding velocity, -D (u_0 - u_{-1}) / dt (the mass
  proportional part drags a translating body), enters a second solve of both states.
*/
static PetscErrorCode VIDualSliding(VIDual d)
{
  const char *what = "-dual_start sliding";
  PetscInt    n = d->n, ns = d->num_slaves;
  PetscReal  *u0, *um, *sgn, *drag, vmax = 0;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < d->num_driven; a++) vmax = PetscMax(vmax, PetscAbsReal(d->drive_v[d->drv[a]]));
  PetscCheck(vmax > 0, d->comm, PETSC_ERR_USER_INPUT,
             "-dual_start sliding: no driven coordinate moves (give the drive a velocity, e.g. -slide_drive_velocity): nothing slides");
  PetscCall(PetscMalloc4(n, &u0, n, &um, ns, &sgn, n, &drag));
  PetscCall(PetscArraycpy(u0, d->u, n));
  PetscCall(PetscArraycpy(um, d->u, n));
  PetscCall(VIDualStatic(d, -1e3 * d->dt, NULL, NULL, what, um));
  PetscCall(VIDualStatic(d, 1e3 * d->dt, NULL, NULL, what, u0));
  for (PetscInt j = 0; j < ns; j++) {
    const PetscInt  *dof  = d->bdof + VI_DUAL_ROW * j;
    const PetscReal *row  = d->bt + VI_DUAL_ROW * j;
    PetscReal        slip = VIDualRowDot(dof, row, u0) - VIDualRowDot(dof, row, um);
    sgn[j]                = d->seg[j] >= 0 && d->lambda[2 * j] > 0 ? (slip > 0 ? 1.0 : (slip < 0 ? -1.0 : 0.0)) : 0.0;
    PetscCheck(!(d->seg[j] >= 0 && d->lambda[2 * j] > 0) || sgn[j] != 0, d->comm, PETSC_ERR_USER_INPUT,
               "%s: slave node %" PetscInt_FMT " does not move along the master as the drive moves (the drive's direction is normal to the contact)",
               what, d->slaves[j].id);
  }
  PetscCall(PetscArrayzero(drag, n));
  for (PetscInt pass = 0; pass < 2; pass++) {
    PetscCall(PetscArraycpy(um, d->u, n));
    PetscCall(VIDualStatic(d, -d->dt, sgn, drag, what, um));
    PetscCall(PetscArraycpy(u0, d->u, n));
    PetscCall(VIDualStatic(d, 0, sgn, drag, what, u0)); /* last: the multipliers and the rows are those of u_0 */
    for (PetscInt i = 0; i < n; i++) d->work[i] = (u0[i] - um[i]) / d->dt;
    for (PetscInt k = 0; k < d->num_bodies; k++) {
      PetscInt o = d->off[k], nk = d->off[k + 1] - o;
      VIMatVec(nk, nk, d->D[k], nk, d->work + o, 0.0, drag + o);
    }
    for (PetscInt i = 0; i < n; i++) drag[i] = -drag[i];
  }
  for (PetscInt j = 0; j < ns; j++) {
    const PetscInt  *dof  = d->bdof + VI_DUAL_ROW * j;
    const PetscReal *row  = d->bt + VI_DUAL_ROW * j;
    PetscReal        slip = VIDualRowDot(dof, row, u0) - VIDualRowDot(dof, row, um);
    PetscCheck(sgn[j] == 0 || slip * sgn[j] > 0, d->comm, PETSC_ERR_USER_INPUT,
               "%s: slave node %" PetscInt_FMT " slips against the friction's direction in the sliding state (slip %g over a step)", what,
               d->slaves[j].id, (double)slip);
  }
  PetscCall(PetscArraycpy(d->u, u0, n));
  PetscCall(PetscArraycpy(d->u_prev, um, n));
  PetscCall(PetscFree4(u0, um, sgn, drag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetUp(VIDual d)
{
  PetscInt n, ns;

  PetscFunctionBeginUser;
  if (d->setup) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(d->sys, d->comm, PETSC_ERR_ORDER, "VIDualSetUp: no bodies (VIDualSetBodies)");
  /* the system: its checks of the slaves and the master, its operators, rows and outputs */
  PetscCall(VISystemBodiesSetFriction(d->sys, d->mu));
  PetscCall(VISystemSetUp(d->sys));
  PetscCall(VIDualSlaveArrays(d));
  PetscCall(VISystemBodiesGetSlaves(d->sys, &d->num_slaves, &d->slaves, NULL));
  PetscCall(VISystemBodiesGetMaster(d->sys, &d->num_master, NULL, NULL));
  PetscCall(VISystemGetContactRows(d->sys, NULL, &d->bdof, &d->bn, &d->bt, &d->seg, &d->xi));
  {
    const PetscReal *K, *M, *D;
    PetscCall(VISystemGetLinearOperators(d->sys, &K, &M, &D));
    for (PetscInt k = 0; k < d->num_bodies; k++) {
      PetscInt o = d->off[k], nk = d->off[k + 1] - o;
      PetscCall(PetscFree3(d->K[k], d->M[k], d->D[k]));
      PetscCall(PetscMalloc3(nk * nk, &d->K[k], nk * nk, &d->M[k], nk * nk, &d->D[k]));
      for (PetscInt i = 0; i < nk; i++) {
        PetscCall(PetscArraycpy(d->K[k] + i * nk, K + (o + i) * d->n + o, nk));
        PetscCall(PetscArraycpy(d->M[k] + i * nk, M + (o + i) * d->n + o, nk));
        PetscCall(PetscArraycpy(d->D[k] + i * nk, D + (o + i) * d->n + o, nk));
      }
    }
  }
  n          = d->n;
  ns         = d->num_slaves;
  d->dt_crit = PETSC_MAX_REAL;
  for (PetscInt k = 0; k < d->num_bodies; k++) {
    PetscReal h = PETSC_MAX_REAL;
    PetscCall(VIDualSetUpBody(d, k, &h));
    d->dt_crit = PetscMin(d->dt_crit, h);
  }
  if (d->dt == 0) d->dt = 0.8 * d->dt_crit;
  PetscCheck(d->dt <= d->dt_crit, d->comm, PETSC_ERR_USER_INPUT,
             "-dual_dt %g exceeds the stability limit %g of the central difference on the bodies (seed 003 Eq. 25)", (double)d->dt,
             (double)d->dt_crit);
  PetscCall(PetscCalloc4(n, &d->ku, n, &d->dv, n, &d->ddu, n, &d->btx));
  PetscCall(PetscMalloc1(n, &d->drv));
  d->num_driven = 0;
  for (PetscInt i = 0; i < n; i++)
    if (d->driven[i]) d->drv[d->num_driven++] = i;
  PetscCall(PetscCalloc2(2 * ns, &d->lambda, ns, &d->rec));
  PetscCall(PetscCalloc3(ns, &d->dims, ns, &d->act, ns, &d->mus));
  PetscCall(PetscCalloc3(4 * ns * ns, &d->G, 2 * ns, &d->c, 2 * ns, &d->x));
  PetscCall(VISystemBodiesGetNumOutputs(d->sys, &d->num_outputs));
  PetscCall(PetscCalloc1(PetscMax(d->num_outputs, 1), &d->outputs));
  for (PetscInt j = 0; j < ns; j++) {
    d->rec[j].status  = VI_DUAL_OFF;
    d->rec[j].segment = -1;
    d->rec[j].xi = d->rec[j].gap = NAN;
  }
  /* the fixed geometry: search and rows once, in the undeformed configuration */
  PetscCall(PetscArrayzero(d->work, n));
  if (d->geometry == VI_DUAL_GEOMETRY_FIXED)
    for (PetscInt j = 0; j < ns; j++) {
      PetscBool on;
      PetscCall(VISystemLinearizeContact(d->sys, j, d->work, &on));
      PetscCheck(on, d->comm, PETSC_ERR_USER_INPUT, "-dual_geometry fixed: slave node %" PetscInt_FMT " is not over the master chain",
                 d->slaves[j].id);
    }
  if (d->start == VI_DUAL_START_STATIC) {
    PetscCall(VIDualStatic(d, 0, NULL, NULL, "-dual_start static", d->u));
    PetscCall(PetscArraycpy(d->u_prev, d->u, n));
  }
  /* the initial state: at rest E_{-1/2} = 1/2 u_0^T K u_0 (the system's potential energy); sliding, E_{-1/2} = 1/2 v^T M v +
     1/2 u_{-1}^T K u_0 with v = (u_0 - u_{-1}) / dt; the driven coordinates move from their initial value */
  if (d->start == VI_DUAL_START_SLIDING) {
    PetscCall(VIDualSliding(d));
    d->energy.initial = 0;
    for (PetscInt i = 0; i < n; i++) d->work[i] = (d->u[i] - d->u_prev[i]) / d->dt;
    for (PetscInt k = 0; k < d->num_bodies; k++) {
      PetscInt o = d->off[k], nk = d->off[k + 1] - o;
      VIMatVec(nk, nk, d->M[k], nk, d->work + o, 0.0, d->u_next + o);
      for (PetscInt i = 0; i < nk; i++) d->energy.initial += 0.5 * d->work[o + i] * d->u_next[o + i];
      VIMatVec(nk, nk, d->K[k], nk, d->u + o, 0.0, d->u_next + o);
      for (PetscInt i = 0; i < nk; i++) d->energy.initial += 0.5 * d->u_prev[o + i] * d->u_next[o + i];
    }
  } else
    PetscCall(VISystemComputeEnergy(d->sys, d->u, NULL, NULL, &d->energy.initial));
  PetscCall(PetscArraycpy(d->drive_u0, d->u, n));
  d->t           = 0;
  d->step        = 0;
  d->energy_step = -1;
  d->setup       = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualStep(VIDual d)
{
  const PetscReal h = d->dt, h2 = h * h, t1 = d->t + h;
  PetscInt        n = d->n, ns = d->num_slaves, m = 0, na = 0;

  PetscFunctionBeginUser;
  PetscCheck(d->setup, d->comm, PETSC_ERR_ORDER, "VIDualStep: call VIDualSetUp first");
  PetscCall(PetscLogEventBegin(VI_Step, 0, 0, 0, 0));
  PetscCall(VIDualStepLoad(d));
  /* predictor (seed 003 Eq. 28): u* = 2 u_n - u_{n-1} + h^2 M^-1 [f - D (u_n - u_{n-1}) / h - K u_n], the driven coordinates at
     their imposed value, their second difference moved to the right-hand side of the free rows */
  for (PetscInt i = 0; i < n; i++) d->work[i] = d->u[i] - d->u_prev[i];
  for (PetscInt k = 0; k < d->num_bodies; k++) {
    PetscInt o = d->off[k], nk = d->off[k + 1] - o;
    VIMatVec(nk, nk, d->K[k], nk, d->u + o, 0.0, d->ku + o);
    VIMatVec(nk, nk, d->D[k], nk, d->work + o, 0.0, d->dv + o);
  }
  for (PetscInt i = 0; i < n; i++) {
    d->dv[i] /= h;
    d->work[i] = h2 * (d->fn[i] - d->dv[i] - d->ku[i]);
  }
  for (PetscInt a = 0; a < d->num_driven; a++) {
    PetscInt  p = d->drv[a], k = d->dof_body[p], o = d->off[k], nk = d->off[k + 1] - o;
    PetscReal dd = d->drive_u0[p] + d->drive_v[p] * t1 - 2 * d->u[p] + d->u_prev[p];
    d->ddu[p]    = dd;
    for (PetscInt i = 0; i < nk; i++) d->work[o + i] -= d->M[k][i * nk + p - o] * dd; /* M symmetric: column p = row p */
  }
  for (PetscInt k = 0; k < d->num_bodies; k++) {
    PetscInt o = d->off[k], nk = d->off[k + 1] - o;
    VIMatVec(nk, nk, d->Minv[k], nk, d->work + o, 0.0, d->btx + o); /* zero at the driven rows */
  }
  for (PetscInt i = 0; i < n; i++)
    if (!d->driven[i]) d->ddu[i] = d->btx[i];
  for (PetscInt i = 0; i < n; i++) d->u_next[i] = 2 * d->u[i] - d->u_prev[i] + d->ddu[i];

  /* search and coupling rows in the predicted configuration X + u* (Eqs. 33-36, 42, 44) */
  for (PetscInt j = 0; j < ns; j++) {
    if (d->geometry == VI_DUAL_GEOMETRY_DEFORMED) PetscCall(VISystemLinearizeContact(d->sys, j, d->u_next, NULL));
    if (d->seg[j] >= 0) {
      d->act[na]  = j;
      d->dims[na] = d->mu > 0 ? 2 : 1;
      d->mus[na]  = d->mu;
      m += d->dims[na];
      na++;
    }
  }
  /* the contact problem on the slaves over a segment: rows r = (B_N, B_T) at t_{n+1}, G = h^2 B M^-1 B^T (Eq. 32),
     c = (gap of u*, B_T (u* - u_n)): -(G lambda + c) in N_C(lambda), C = R+ x [-mu lambda_n, mu lambda_n] */
  PetscCall(PetscArrayzero(d->btx, n));
  if (na) {
    VIContactSet       set = {0};
    VIContactSolveInfo info;
    for (PetscInt a = 0, ra = 0; a < na; ra += d->dims[a], a++) {
      PetscInt j = d->act[a];
      for (PetscInt r = 0; r < d->dims[a]; r++) {
        const PetscReal *row = r ? d->bt + VI_DUAL_ROW * j : d->bn + VI_DUAL_ROW * j;
        const PetscInt  *dof = d->bdof + VI_DUAL_ROW * j;
        for (PetscInt b = 0, rb = 0; b < na; rb += d->dims[b], b++) {
          PetscInt jb = d->act[b];
          for (PetscInt s = 0; s < d->dims[b]; s++) {
            const PetscReal *col  = s ? d->bt + VI_DUAL_ROW * jb : d->bn + VI_DUAL_ROW * jb;
            const PetscInt  *dofb = d->bdof + VI_DUAL_ROW * jb;
            PetscReal        g    = 0;
            for (PetscInt p = 0; p < VI_DUAL_ROW; p++) {
              PetscInt ip = dof[p], k;
              if (ip < 0 || d->driven[ip] || row[p] == 0) continue;
              k = d->dof_body[ip];
              for (PetscInt q = 0; q < VI_DUAL_ROW; q++) {
                PetscInt iq = dofb[q];
                if (iq < 0 || d->dof_body[iq] != k) continue;
                g += row[p] * d->Minv[k][(ip - d->off[k]) * (d->off[k + 1] - d->off[k]) + iq - d->off[k]] * col[q];
              }
            }
            d->G[(ra + r) * m + rb + s] = h2 * g;
          }
        }
        if (r)
          d->c[ra + r] = VIDualRowDot(dof, row, d->u_next) - VIDualRowDot(dof, row, d->u);
        else
          PetscCall(VISystemEvaluateContactGap(d->sys, j, d->u_next, &d->c[ra + r]));
        d->x[ra + r] = d->lambda[2 * j + r]; /* warm start */
      }
    }
    for (PetscInt a = 0, ra = 0; a < na; ra += d->dims[a], a++)
      for (PetscInt r = 0; r < d->dims[a]; r++)
        PetscCheck(d->G[(ra + r) * m + ra + r] > 0, d->comm, PETSC_ERR_USER_INPUT,
                   "The contact of slave node %" PetscInt_FMT " moves no free coordinate %s (its slave and master nodes are clamped or driven)",
                   d->slaves[d->act[a]].id, r ? "tangentially" : "normally");
    set.num_contacts = na;
    set.dims         = d->dims;
    set.mu           = d->mus;
    PetscCall(PetscLogEventBegin(VI_ContactSolve, 0, 0, 0, 0));
    PetscCall(VIContactSolverSolve(d->solver, &set, m, d->G, d->c, d->x, &info));
    PetscCall(PetscLogEventEnd(VI_ContactSolve, 0, 0, 0, 0));
    PetscCheck(info.converged, d->comm, PETSC_ERR_NOT_CONVERGED,
               "Step %" PetscInt_FMT ": the contact solver did not converge in %" PetscInt_FMT
               " iterations (residual %g); raise -contact_max_it or -contact_tol",
               d->step, info.iterations, (double)info.residual);
    /* corrector (Eq. 29): u_{n+1} = u* + h^2 M^-1 B^T lambda */
    for (PetscInt a = 0, ra = 0; a < na; ra += d->dims[a], a++) {
      PetscInt j = d->act[a];
      for (PetscInt r = 0; r < d->dims[a]; r++) {
        const PetscReal *row = r ? d->bt + VI_DUAL_ROW * j : d->bn + VI_DUAL_ROW * j;
        const PetscInt  *dof = d->bdof + VI_DUAL_ROW * j;
        for (PetscInt p = 0; p < VI_DUAL_ROW; p++)
          if (dof[p] >= 0) d->btx[dof[p]] += row[p] * d->x[ra + r];
      }
    }
    for (PetscInt k = 0; k < d->num_bodies; k++) {
      PetscInt o = d->off[k], nk = d->off[k + 1] - o;
      for (PetscInt p = 0; p < nk; p++) {
        PetscReal y = h2 * d->btx[o + p];
        if (y == 0 || d->driven[o + p]) continue;
        for (PetscInt i = 0; i < nk; i++) d->u_next[o + i] += d->Minv[k][i * nk + p] * y; /* Minv symmetric: column p = row p */
      }
    }
  }

  /* records of the step */
  for (PetscInt i = 0; i < 2 * ns; i++) d->lambda[i] = 0;
  for (PetscInt a = 0, ra = 0; a < na; ra += d->dims[a], a++) {
    PetscInt j       = d->act[a];
    d->lambda[2 * j] = d->x[ra];
    if (d->dims[a] > 1) d->lambda[2 * j + 1] = d->x[ra + 1];
  }
  for (PetscInt j = 0; j < ns; j++) {
    VIDualContact *rc = &d->rec[j];
    rc->segment       = d->seg[j];
    rc->normal        = d->lambda[2 * j];
    rc->tangential    = d->lambda[2 * j + 1];
    if (d->seg[j] < 0) {
      rc->status = VI_DUAL_OFF;
      rc->xi = rc->gap = rc->slip_velocity = NAN;
      continue;
    }
    rc->xi = d->xi[j];
    PetscCall(VISystemEvaluateContactGap(d->sys, j, d->u_next, &rc->gap)); /* the linear row at u_{n+1}: the compatibility of Eqs. 30-31 */
    rc->slip_velocity = (VIDualRowDot(d->bdof + VI_DUAL_ROW * j, d->bt + VI_DUAL_ROW * j, d->u_next) -
                         VIDualRowDot(d->bdof + VI_DUAL_ROW * j, d->bt + VI_DUAL_ROW * j, d->u)) /
                        h;
    if (rc->normal <= 0)
      rc->status = VI_DUAL_OPEN;
    else if (d->mu == 0 || PetscAbsReal(rc->tangential) >= d->mu * rc->normal * (1 - 1e-8))
      rc->status = VI_DUAL_SLIP;
    else
      rc->status = VI_DUAL_STICK;
  }

  /* the energy identity: (M ddu / h^2 + dv + K u_n) . w = (f_n + B^T lambda + R) . w, w = (u_{n+1} - u_{n-1}) / 2; f_n the load
     of the step, time-dependent slave forces included, so that their work is in load_work; the kinetic and potential
     energies, state functions, are computed when asked for (VIDualGetEnergy) */
  {
    PetscReal damp = 0, load = 0, contact = 0, drive = 0;
    for (PetscInt i = 0; i < n; i++) {
      PetscReal w = 0.5 * (d->u_next[i] - d->u_prev[i]);
      damp += d->dv[i] * w;
      load += d->fn[i] * w;
      contact += d->btx[i] * w;
    }
    for (PetscInt a = 0; a < d->num_driven; a++) {
      PetscInt  p = d->drv[a], k = d->dof_body[p], o = d->off[k], nk = d->off[k + 1] - o;
      PetscReal ma = 0, w = 0.5 * (d->u_next[p] - d->u_prev[p]);
      for (PetscInt i = 0; i < nk; i++) ma += d->M[k][(p - o) * nk + i] * (d->u_next[o + i] - 2 * d->u[o + i] + d->u_prev[o + i]);
      drive += (ma / h2 + d->dv[p] + d->ku[p] - d->fn[p] - d->btx[p]) * w;
    }
    d->energy.damping += damp;
    d->energy.load_work += load;
    d->energy.contact_work += contact;
    d->energy.drive_work += drive;
  }
  PetscCall(PetscArraycpy(d->u_prev, d->u, n));
  PetscCall(PetscArraycpy(d->u, d->u_next, n));
  d->step++;
  d->t = d->step * h;
  PetscCall(VISystemComputeOutputs(d->sys, d->t, d->u, NULL, NULL, d->outputs));
  PetscCall(PetscLogEventEnd(VI_Step, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualGetTime(VIDual d, PetscReal *t, PetscInt *step)
{
  PetscFunctionBeginUser;
  if (t) *t = d->t;
  if (step) *step = d->step;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualGetTimeStep(VIDual d, PetscReal *dt)
{
  PetscFunctionBeginUser;
  PetscCheck(d->setup, d->comm, PETSC_ERR_ORDER, "VIDualGetTimeStep: call VIDualSetUp first");
  *dt = d->dt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One OpenBLAS dgemv of the coupled system's size (n x n, the bodies' K on the block diagonal) on this machine, now: the unit in
   which a step's cost is stated (as VIStepper does); timed at the first call. */
PetscErrorCode VIDualGetMatVecTime(VIDual d, PetscReal *seconds)
{
  PetscFunctionBeginUser;
  PetscCheck(d->setup, d->comm, PETSC_ERR_ORDER, "VIDualGetMatVecTime: call VIDualSetUp first");
  if (d->matvec_time == 0) {
    PetscReal *A, *x, *y;
    PetscCall(PetscCalloc3(d->n * d->n, &A, d->n, &x, d->n, &y));
    for (PetscInt k = 0; k < d->num_bodies; k++) {
      PetscInt o = d->off[k], nk = d->off[k + 1] - o;
      for (PetscInt i = 0; i < nk; i++)
        for (PetscInt j = 0; j < nk; j++) A[(o + i) * d->n + o + j] = d->K[k][i * nk + j];
    }
    for (PetscInt i = 0; i < d->n; i++) x[i] = 1;
    PetscCall(VIMatVecTime(d->n, A, x, y, &d->matvec_time));
    PetscCall(PetscFree3(A, x, y));
  }
  *seconds = d->matvec_time;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualGetCriticalStep(VIDual d, PetscReal *dt)
{
  PetscFunctionBeginUser;
  PetscCheck(d->setup, d->comm, PETSC_ERR_ORDER, "VIDualGetCriticalStep: call VIDualSetUp first");
  *dt = d->dt_crit;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualGetContacts(VIDual d, PetscInt *num, const VIDualContact **contacts)
{
  PetscFunctionBeginUser;
  PetscCheck(d->setup, d->comm, PETSC_ERR_ORDER, "VIDualGetContacts: call VIDualSetUp first");
  *num      = d->num_slaves;
  *contacts = d->rec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualGetDisplacement(VIDual d, PetscInt k, const PetscReal **q)
{
  PetscFunctionBeginUser;
  PetscCheck(d->setup, d->comm, PETSC_ERR_ORDER, "VIDualGetDisplacement: call VIDualSetUp first");
  PetscCheck(k >= 0 && k < d->num_bodies, d->comm, PETSC_ERR_ARG_OUTOFRANGE, "Body %" PetscInt_FMT " of %" PetscInt_FMT, k, d->num_bodies);
  *q = d->u + d->off[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualGetOutputs(VIDual d, PetscInt *num, const PetscReal **values)
{
  PetscFunctionBeginUser;
  PetscCheck(d->setup, d->comm, PETSC_ERR_ORDER, "VIDualGetOutputs: call VIDualSetUp first");
  *num    = d->num_outputs;
  *values = d->outputs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* E_{n+1/2} = 1/2 v^T M v + 1/2 u_{n+1}^T K u_n, v = (u_{n+1} - u_n) / h (0 before the first step) */
PetscErrorCode VIDualGetEnergy(VIDual d, VIDualEnergy *energy)
{
  PetscReal kin = 0, pot = 0;

  PetscFunctionBeginUser;
  PetscCheck(d->setup, d->comm, PETSC_ERR_ORDER, "VIDualGetEnergy: call VIDualSetUp first");
  if (d->energy_step == d->step) { /* asked again at the same step (the stepper's record, then vicms slide's history) */
    *energy = d->energy;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (d->step > 0) {
    for (PetscInt i = 0; i < d->n; i++) d->work[i] = (d->u[i] - d->u_prev[i]) / d->dt;
    for (PetscInt k = 0; k < d->num_bodies; k++) {
      PetscInt o = d->off[k], nk = d->off[k + 1] - o;
      VIMatVec(nk, nk, d->M[k], nk, d->work + o, 0.0, d->u_next + o);
      for (PetscInt i = 0; i < nk; i++) kin += 0.5 * d->work[o + i] * d->u_next[o + i];
      VIMatVec(nk, nk, d->K[k], nk, d->u_prev + o, 0.0, d->u_next + o);
      for (PetscInt i = 0; i < nk; i++) pot += 0.5 * d->u[o + i] * d->u_next[o + i];
    }
  }
  d->energy.kinetic   = kin;
  d->energy.potential = pot;
  d->energy_step      = d->step;
  *energy             = d->energy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualView(VIDual d, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(d->comm, &viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "Dual assembly (seed 003 Eqs. 22-44): %" PetscInt_FMT " bodies, %" PetscInt_FMT " coordinates, %" PetscInt_FMT
                                   " slave nodes on a master chain of %" PetscInt_FMT " nodes, mu = %g, geometry %s\n",
                                   d->num_bodies, d->n, d->num_slaves, d->num_master, (double)d->mu, VIDualGeometries[d->geometry]));
  if (d->setup)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  dt = %g (stability limit %g), step %" PetscInt_FMT ", t = %g\n", (double)d->dt, (double)d->dt_crit,
                                     d->step, (double)d->t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The packed state of VIDualGetState: a header (coordinates, slaves, outputs, dt), then the step and t, the energy terms,
   u_n, u_{n-1}, the initial value of the driven coordinates, the multipliers of the last step (the warm start of the next
   solve), per slave its record of the last step and the slave force applied (value, x, y), and the outputs. */
#define VI_DUAL_STATE_HEADER 6
#define VI_DUAL_STATE_REC    7

PetscErrorCode VIDualGetStateSize(VIDual d, PetscInt *len)
{
  PetscFunctionBeginUser;
  PetscCheck(d->setup, d->comm, PETSC_ERR_ORDER, "VIDualGetStateSize: call VIDualSetUp first");
  *len = VI_DUAL_STATE_HEADER + 7 + 3 * d->n + (2 + VI_DUAL_STATE_REC + 3) * d->num_slaves + d->num_outputs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualGetState(VIDual d, PetscReal state[])
{
  PetscReal *p = state;

  PetscFunctionBeginUser;
  PetscCheck(d->setup, d->comm, PETSC_ERR_ORDER, "VIDualGetState: call VIDualSetUp first");
  *p++ = (PetscReal)d->n;
  *p++ = (PetscReal)d->num_slaves;
  *p++ = (PetscReal)d->num_outputs;
  *p++ = d->dt;
  *p++ = (PetscReal)d->step;
  *p++ = d->t;
  *p++ = d->energy.kinetic;
  *p++ = d->energy.potential;
  *p++ = d->energy.damping;
  *p++ = d->energy.load_work;
  *p++ = d->energy.drive_work;
  *p++ = d->energy.contact_work;
  *p++ = d->energy.initial;
  PetscCall(PetscArraycpy(p, d->u, d->n));
  p += d->n;
  PetscCall(PetscArraycpy(p, d->u_prev, d->n));
  p += d->n;
  PetscCall(PetscArraycpy(p, d->drive_u0, d->n));
  p += d->n;
  PetscCall(PetscArraycpy(p, d->lambda, 2 * d->num_slaves));
  p += 2 * d->num_slaves;
  for (PetscInt j = 0; j < d->num_slaves; j++) {
    const VIDualContact *rc = &d->rec[j];
    *p++                    = (PetscReal)rc->status;
    *p++                    = (PetscReal)rc->segment;
    *p++                    = rc->xi;
    *p++                    = rc->gap;
    *p++                    = rc->normal;
    *p++                    = rc->tangential;
    *p++                    = rc->slip_velocity;
    *p++                    = d->sforce_val[j];
    *p++                    = d->sforce_vec[2 * j];
    *p++                    = d->sforce_vec[2 * j + 1];
  }
  PetscCall(PetscArraycpy(p, d->outputs, d->num_outputs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIDualSetState(VIDual d, PetscInt len, const PetscReal state[])
{
  const PetscReal *p = state + VI_DUAL_STATE_HEADER - 2;
  PetscInt         size;

  PetscFunctionBeginUser;
  PetscCall(VIDualGetStateSize(d, &size));
  PetscCheck(len == size && state[0] == (PetscReal)d->n && state[1] == (PetscReal)d->num_slaves && state[2] == (PetscReal)d->num_outputs, d->comm,
             PETSC_ERR_USER_INPUT,
             "VIDualSetState: a state of %" PetscInt_FMT " values (%g coordinates, %g slaves, %g outputs), expected %" PetscInt_FMT " (%" PetscInt_FMT
             ", %" PetscInt_FMT ", %" PetscInt_FMT "): the state of another model",
             len, len > 2 ? (double)state[0] : 0.0, len > 2 ? (double)state[1] : 0.0, len > 2 ? (double)state[2] : 0.0, size, d->n, d->num_slaves,
             d->num_outputs);
  PetscCheck(state[3] == d->dt, d->comm, PETSC_ERR_USER_INPUT, "VIDualSetState: the state is of time step %g, this one's is %g", (double)state[3],
             (double)d->dt);
  PetscCheck(p[0] >= 0 && p[0] == PetscFloorReal(p[0]), d->comm, PETSC_ERR_USER_INPUT, "VIDualSetState: step %g is not a step number", (double)p[0]);
  d->step                = (PetscInt)p[0];
  d->t                   = p[1];
  d->energy_step         = -1;
  p                      = state + VI_DUAL_STATE_HEADER;
  d->energy.kinetic      = *p++;
  d->energy.potential    = *p++;
  d->energy.damping      = *p++;
  d->energy.load_work    = *p++;
  d->energy.drive_work   = *p++;
  d->energy.contact_work = *p++;
  d->energy.initial      = *p++;
  PetscCall(PetscArraycpy(d->u, p, d->n));
  p += d->n;
  PetscCall(PetscArraycpy(d->u_prev, p, d->n));
  p += d->n;
  PetscCall(PetscArraycpy(d->drive_u0, p, d->n));
  p += d->n;
  PetscCall(PetscArraycpy(d->lambda, p, 2 * d->num_slaves));
  p += 2 * d->num_slaves;
  for (PetscInt j = 0; j < d->num_slaves; j++) {
    VIDualContact *rc        = &d->rec[j];
    rc->status               = (VIDualStatus)(PetscInt)*p++;
    rc->segment              = (PetscInt)*p++;
    rc->xi                   = *p++;
    rc->gap                  = *p++;
    rc->normal               = *p++;
    rc->tangential           = *p++;
    rc->slip_velocity        = *p++;
    d->sforce_val[j]         = *p++;
    d->sforce_vec[2 * j]     = *p++;
    d->sforce_vec[2 * j + 1] = *p++;
  }
  PetscCall(PetscArraycpy(d->outputs, p, d->num_outputs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The dual assembly's own options, read in VIDualSetFromOptions (src/sys/options.c's registry) */
static const VIOptionEntry VIDualOptions[] = {
    {"-dual_dt", VI_OPTION_REAL, NULL},
    {"-dual_mu", VI_OPTION_REAL, NULL},
    {"-dual_geometry", VI_OPTION_ENUM, VIDualGeometries},
    {"-dual_start", VI_OPTION_ENUM, VIDualStarts},
};

PetscErrorCode VIDualRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRegisterTable("dual", VIDualOptions, sizeof(VIDualOptions) / sizeof(VIDualOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
