/* VISystem: the interface — creation, type, options, set-up, and the functions that dispatch to the type's ops. */
#include "systemimpl.h"

/* An optional op the type does not provide: the call is refused, naming the type. */
#define VISystemCheckOp(sys, op, what)                                                                                                               \
  PetscCheck((sys)->ops.op, (sys)->comm, PETSC_ERR_SUP, "The system type %s does not provide %s", (sys)->type, what)

PetscErrorCode VISystemCreate(MPI_Comm comm, VISystem *sys)
{
  VISystem s;

  PetscFunctionBeginUser;
  PetscCall(VISystemRegisterAll());
  PetscCall(PetscNew(&s));
  s->comm       = comm;
  s->time_scale = 1;
  PetscCall(VISystemSetType(s, VISYSTEMREDUCED));
  *sys = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemSetType(VISystem sys, VISystemType type)
{
  PetscErrorCode (*create)(VISystem) = NULL;
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(sys->type, type, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFunctionListFind(VISystemList, type, &create));
  PetscCheck(create, sys->comm, PETSC_ERR_USER_INPUT, "-system_type: '%s' is not a registered system type (known: %s, %s, %s)", type, VISYSTEMREDUCED,
             VISYSTEMMULTIBODY, VISYSTEMBODIES);
  if (sys->ops.destroy) PetscCall((*sys->ops.destroy)(sys));
  PetscCall(PetscMemzero(&sys->ops, sizeof(sys->ops)));
  sys->data  = NULL;
  sys->setup = PETSC_FALSE;
  PetscCall(PetscStrncpy(sys->type, type, sizeof(sys->type)));
  PetscCall((*create)(sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetType(VISystem sys, VISystemType *type)
{
  PetscFunctionBeginUser;
  *type = sys->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemSetFromOptions(VISystem sys)
{
  char type[64];

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(type, sys->type, sizeof(type)));
  sys->setup = PETSC_FALSE;
  PetscOptionsBegin(sys->comm, NULL, "Contact case", "VISystem");
  PetscCall(VIOptionsTypeList(PetscOptionsObject, "-system_type",
                              "The mechanical system: reduced (a ROM with loads, gaps, friction, initial state), multibody (-mb_model FILE.yaml), bodies (seed "
                              "003's sliding bodies: vicms slide)",
                              VISystemList, type, type, sizeof(type), NULL));
  PetscCall(VISystemSetType(sys, type));
  if (sys->ops.setfromoptions) PetscCall((*sys->ops.setfromoptions)(sys, PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemSetUp(VISystem sys)
{
  PetscFunctionBeginUser;
  if (sys->setup) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall((*sys->ops.setup)(sys));
  sys->setup = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemView(VISystem sys, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(sys->comm, &viewer));
  if (sys->ops.view)
    PetscCall((*sys->ops.view)(sys, viewer));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "System %s: %" PetscInt_FMT " coordinates\n", sys->type, sys->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemDestroy(VISystem *sys)
{
  PetscFunctionBeginUser;
  if (!sys || !*sys) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*sys)->ops.destroy) PetscCall((*(*sys)->ops.destroy)(*sys));
  PetscCall(PetscFree(*sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemSetROM(VISystem sys, VIROM rom)
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, setrom, "a ROM (VISystemSetROM)");
  PetscCall((*sys->ops.setrom)(sys, rom));
  sys->setup = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetROM(VISystem sys, VIROM *rom)
{
  PetscFunctionBeginUser;
  *rom = NULL;
  if (sys->ops.getrom) PetscCall((*sys->ops.getrom)(sys, rom));
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

PetscErrorCode VISystemHasConstantMass(VISystem sys, PetscBool *constant)
{
  PetscFunctionBeginUser;
  *constant = sys->constant_mass;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemIsLinear(VISystem sys, PetscBool *linear)
{
  PetscFunctionBeginUser;
  *linear = sys->linear;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemComputeMass(VISystem sys, const PetscReal q[], PetscReal M[])
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, computemass, "a mass matrix (VISystemComputeMass)");
  PetscCall((*sys->ops.computemass)(sys, q, M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemComputeMassJacobian(VISystem sys, const PetscReal q[], const PetscReal w[], PetscReal dMw[])
{
  PetscFunctionBeginUser;
  if (sys->constant_mass) {
    PetscCall(PetscArrayzero(dMw, sys->n * sys->n));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  VISystemCheckOp(sys, computemassjacobian, "d(M(q) w)/dq (VISystemComputeMassJacobian)");
  PetscCall((*sys->ops.computemassjacobian)(sys, q, w, dMw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetLinearOperators(VISystem sys, const PetscReal **K, const PetscReal **M, const PetscReal **D)
{
  PetscFunctionBeginUser;
  PetscCheck(sys->linear && sys->ops.getlinearoperators, sys->comm, PETSC_ERR_SUP,
             "The system type %s is not linear: it has no constant K, M, D (use VISystemComputeForce and its Jacobian)", sys->type);
  PetscCall((*sys->ops.getlinearoperators)(sys, K, M, D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemComputeForce(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal f[])
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, computeforce, "forces (VISystemComputeForce)");
  PetscCall((*sys->ops.computeforce)(sys, t, q, u, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemComputeForceJacobian(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal dfdq[], PetscReal dfdu[])
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, computeforcejacobian, "force tangents (VISystemComputeForceJacobian)");
  PetscCall((*sys->ops.computeforcejacobian)(sys, t, q, u, dfdq, dfdu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemComputeEnergy(VISystem sys, const PetscReal q[], const PetscReal u[], PetscReal *kinetic, PetscReal *potential)
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, computeenergy, "energies (VISystemComputeEnergy)");
  PetscCall((*sys->ops.computeenergy)(sys, q, u, kinetic, potential));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetContacts(VISystem sys, PetscInt *nc, const VIContactKind **kinds, const PetscInt **dims, const PetscInt **offsets)
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, getcontacts, "contacts (VISystemGetContacts)");
  PetscCall((*sys->ops.getcontacts)(sys, nc, kinds, dims, offsets));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetContactSet(VISystem sys, VIContactSet *set, const PetscReal **obstacle_velocity)
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, getcontactset, "a contact set (VISystemGetContactSet)");
  PetscCall((*sys->ops.getcontactset)(sys, set, obstacle_velocity));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemEvaluateConstraints(VISystem sys, PetscReal t, const PetscReal q[], PetscReal g[], PetscReal G[], PetscReal g_rate[])
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, evaluateconstraints, "constraints (VISystemEvaluateConstraints)");
  PetscCall((*sys->ops.evaluateconstraints)(sys, t, q, g, G, g_rate));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemEvaluateConstraintAcceleration(VISystem sys, PetscReal t, PetscReal g_tt[])
{
  PetscInt nc = 0;

  PetscFunctionBeginUser;
  if (sys->ops.constraintacceleration)
    PetscCall((*sys->ops.constraintacceleration)(sys, t, g_tt));
  else {
    PetscCall(VISystemGetContacts(sys, &nc, NULL, NULL, NULL));
    PetscCall(PetscArrayzero(g_tt, nc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemComputeConstraintCurvature(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal lambda[], PetscReal H[])
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, constraintcurvature, "d(G^T lambda)/dq (VISystemComputeConstraintCurvature)");
  PetscCall((*sys->ops.constraintcurvature)(sys, t, q, lambda, H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemComputeConstraintDerivatives(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal w[],
                                                    PetscReal G[], PetscReal HV[], PetscReal Hw[])
{
  PetscInt   n = sys->n, nc;
  PetscReal *H, e[VI_MAX_CONTACTS];

  PetscFunctionBeginUser;
  if (sys->ops.constraintderivatives) {
    PetscCall((*sys->ops.constraintderivatives)(sys, t, q, v, w, G, HV, Hw));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (G) PetscCall(VISystemEvaluateConstraints(sys, t, q, NULL, G, NULL));
  if (Hw) PetscCall(VISystemComputeConstraintCurvature(sys, t, q, w, Hw));
  if (!HV) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VISystemGetContacts(sys, &nc, NULL, NULL, NULL));
  PetscCall(PetscMalloc1(n * n, &H));
  PetscCall(PetscArrayzero(e, nc));
  for (PetscInt r = 0; r < nc; r++) {
    e[r] = 1;
    PetscCall(VISystemComputeConstraintCurvature(sys, t, q, e, H));
    e[r] = 0;
    for (PetscInt k = 0; k < n; k++) {
      PetscReal hv = 0;
      for (PetscInt i = 0; i < n; i++) hv += H[k * n + i] * v[i];
      HV[r * n + k] = hv;
    }
  }
  PetscCall(PetscFree(H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemEvaluateGaps(VISystem sys, PetscReal t, PetscReal g0[], PetscReal g0_rate[])
{
  PetscFunctionBeginUser;
  PetscCall((*sys->ops.evaluategaps)(sys, t, g0, g0_rate));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetGapBound(VISystem sys, PetscReal *bound)
{
  PetscFunctionBeginUser;
  *bound = 0;
  if (sys->ops.getgapbound) PetscCall((*sys->ops.getgapbound)(sys, bound));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetLoads(VISystem sys, PetscInt *num_loads, const PetscReal *const **vectors)
{
  PetscFunctionBeginUser;
  PetscCall((*sys->ops.getloads)(sys, num_loads, vectors));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemEvaluateLoadScales(VISystem sys, PetscReal t, PetscReal s[])
{
  PetscFunctionBeginUser;
  PetscCall((*sys->ops.evaluateloadscales)(sys, t, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f = sum_l s_l v_l: the same for every type that states its external force as scaled load vectors. */
PetscErrorCode VISystemForceFromScales(VISystem sys, const PetscReal s[], PetscReal f[])
{
  PetscInt                num_loads;
  const PetscReal *const *v;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetLoads(sys, &num_loads, &v));
  PetscCall(PetscArrayzero(f, sys->n));
  for (PetscInt l = 0; l < num_loads; l++)
    for (PetscInt k = 0; k < sys->n; k++) f[k] += s[l] * v[l][k];
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

PetscErrorCode VISystemGetLoadFrequency(VISystem sys, PetscReal t, PetscReal *f, VIExciteType *type)
{
  PetscFunctionBeginUser;
  *f    = 0;
  *type = VI_EXCITE_CONSTANT;
  if (sys->ops.getloadfrequency) PetscCall((*sys->ops.getloadfrequency)(sys, t, f, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemCheckSampling(VISystem sys, PetscReal t0, PetscReal t1, PetscReal dt)
{
  PetscFunctionBeginUser;
  if (sys->ops.checksampling) PetscCall((*sys->ops.checksampling)(sys, t0, t1, dt));
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
  VISystemCheckOp(sys, setinitialstate, "a given initial state (VISystemSetInitialState)");
  PetscCall((*sys->ops.setinitialstate)(sys, q0, u0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetInitialState(VISystem sys, const PetscReal **q0, const PetscReal **u0)
{
  PetscFunctionBeginUser;
  PetscCall((*sys->ops.getinitialstate)(sys, q0, u0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemHasOutputs(VISystem sys, PetscBool *has)
{
  PetscFunctionBeginUser;
  *has = sys->ops.computeoutputs ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemComputeOutputs(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], const PetscReal lambda[], PetscReal y[])
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, computeoutputs, "outputs of its own (VISystemComputeOutputs)");
  PetscCall((*sys->ops.computeoutputs)(sys, t, q, u, lambda, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetNumOutputs(VISystem sys, PetscInt *num)
{
  PetscFunctionBeginUser;
  *num = 0;
  if (sys->ops.getnumoutputs) PetscCall((*sys->ops.getnumoutputs)(sys, num));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetOutput(VISystem sys, PetscInt o, const char **name, const PetscReal **row)
{
  PetscInt num;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetNumOutputs(sys, &num));
  PetscCheck(o >= 0 && o < num, sys->comm, PETSC_ERR_ARG_OUTOFRANGE, "Output %" PetscInt_FMT ": the system (%s) records %" PetscInt_FMT " outputs", o,
             sys->type, num);
  if (name) *name = NULL;
  if (row) *row = NULL;
  PetscCall((*sys->ops.getoutput)(sys, o, name, row));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemHasMasslessBoundary(VISystem sys, PetscBool *massless, const char **kind)
{
  const char *k = NULL;

  PetscFunctionBeginUser;
  VISystemCheckOp(sys, masslessboundary, "the mass of its boundary coordinates (VISystemHasMasslessBoundary)");
  PetscCall((*sys->ops.masslessboundary)(sys, massless, &k));
  if (kind) *kind = k ? k : sys->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetLowestFrequency(VISystem sys, PetscReal *f)
{
  PetscFunctionBeginUser;
  *f = 0;
  if (sys->ops.lowestfrequency) PetscCall((*sys->ops.lowestfrequency)(sys, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetDataId(VISystem sys, const void **id)
{
  PetscFunctionBeginUser;
  *id = NULL;
  if (sys->ops.dataid) PetscCall((*sys->ops.dataid)(sys, id));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetRestitution(VISystem sys, const PetscReal **e)
{
  PetscFunctionBeginUser;
  *e = NULL;
  if (sys->ops.getrestitution) PetscCall((*sys->ops.getrestitution)(sys, e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetLinearGradientRows(VISystem sys, const PetscBool **linear)
{
  PetscFunctionBeginUser;
  *linear = NULL;
  if (sys->ops.getlineargradientrows) PetscCall((*sys->ops.getlineargradientrows)(sys, linear));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetConstraintColumns(VISystem sys, const PetscInt **ptr, const PetscInt **cols)
{
  PetscFunctionBeginUser;
  *ptr  = NULL;
  *cols = NULL;
  if (sys->ops.getconstraintcolumns) PetscCall((*sys->ops.getconstraintcolumns)(sys, ptr, cols));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemEvaluateTangents(VISystem sys, PetscReal t, const PetscReal q[], PetscReal Gt[])
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, evaluatetangents, "tangential rows that depend on q (VISystemEvaluateTangents)");
  PetscCall((*sys->ops.evaluatetangents)(sys, t, q, Gt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemLinearizeContact(VISystem sys, PetscInt j, const PetscReal q[], PetscBool *active)
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, linearizecontact, "contact rows linearised at a configuration (VISystemLinearizeContact)");
  PetscCall((*sys->ops.linearizecontact)(sys, j, q, active));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemGetContactRows(VISystem sys, PetscInt *nnz, const PetscInt **dof, const PetscReal **normal, const PetscReal **tangent,
                                      const PetscInt **where, const PetscReal **xi)
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, getcontactrows, "linearised contact rows (VISystemGetContactRows)");
  PetscCheck(sys->setup, sys->comm, PETSC_ERR_ORDER, "VISystemGetContactRows: call VISystemSetUp first");
  PetscCall((*sys->ops.getcontactrows)(sys, nnz, dof, normal, tangent, where, xi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemEvaluateContactGap(VISystem sys, PetscInt j, const PetscReal q[], PetscReal *g)
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, contactgap, "gaps of linearised contact rows (VISystemEvaluateContactGap)");
  PetscCall((*sys->ops.contactgap)(sys, j, q, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISystemEvaluateContactFrame(VISystem sys, PetscInt j, const PetscReal q[], PetscBool *active, PetscReal frame[])
{
  PetscFunctionBeginUser;
  VISystemCheckOp(sys, contactframe, "contact frames (VISystemEvaluateContactFrame)");
  PetscCall((*sys->ops.contactframe)(sys, j, q, active, frame));
  PetscFunctionReturn(PETSC_SUCCESS);
}
