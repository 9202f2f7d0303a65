/* The dual assembly of seed 003 §2.2 (dual.c) as a scheme of the common stepper, VIStepper type dual: the coupled bodies of a
   system of type bodies, stepped by VIDualStep. The caller gives the scheme's own loads to its VIDual (VIStepperDualGetDual:
   drives, preloads, slave forces, -dual_* options) before VIStepperSetUp, which sets the VIDual up; the time step is the
   dual's (-dual_dt, or 0.8 times its stability limit), set into the stepper by the set-up. Level k: st->q the bodies'
   displacements u_k, st->u the backward difference (u_k - u_{k-1}) / dt (0 at level 0, at rest), per contact j its gap
   (+inf for a slave off the master) and its multipliers from st->lambda[offsets[j]] (normal, then tangential when mu > 0).
   The step is the whole of VIDualStep; advance has nothing left to do. A VIDual cannot restart: a set-up serves one run.
   The VIDual's packed state (VIDualGetState) is the state field "dual", so that the common checkpoints carry it, and the
   records' energy columns are the dual's (VIDualGetEnergy). */
#include <vicms/dual.h>
#include "stepimpl.h"

typedef struct {
  VIDual     dual;
  PetscReal *q_prev; /* n: u_{k-1}, for the velocity estimate */
  PetscReal *packed; /* the VIDual's packed state (VIDualGetState), the state field "dual" of the checkpoints */
  PetscInt   npacked;
  /* the system's, cached at set-up for the level's copy: the bodies, the first coordinate of each (nbod + 1), the contacts' rows */
  PetscInt        nbod;
  const PetscInt *off, *dims;
} VIStepper_Dual;

/* The VIDual of the stepper, with the stepper's system (VIStepperSetSystem before) as its own. */
PetscErrorCode VIStepperDualGetDual(VIStepper st, VIDual *dual)
{
  VIStepper_Dual *d;
  VISystem        sys;
  PetscBool       same;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(st->type, VISTEPPERDUAL, &same));
  PetscCheck(same, st->comm, PETSC_ERR_ARG_WRONG, "VIStepperDualGetDual: the stepper is of type '%s', expected %s", st->type, VISTEPPERDUAL);
  d = (VIStepper_Dual *)st->data;
  PetscCall(VIDualGetSystem(d->dual, &sys));
  if (!sys) {
    PetscCheck(st->sys, st->comm, PETSC_ERR_ORDER, "VIStepperDualGetDual: call VIStepperSetSystem first");
    PetscCall(VIDualSetSystem(d->dual, st->sys));
  }
  *dual = d->dual;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCheckSystem_Dual(VIStepper st)
{
  VIStepper_Dual *d = (VIStepper_Dual *)st->data;
  VISystemType    type;
  VISystem        sys;
  PetscBool       same;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetType(st->sys, &type));
  PetscCall(PetscStrcmp(type, VISYSTEMBODIES, &same));
  PetscCheck(same, st->comm, PETSC_ERR_USER_INPUT,
             "-step_type %s integrates coupled bodies (-system_type %s, `vicms slide`); this system is of type %s", VISTEPPERDUAL, VISYSTEMBODIES,
             type);
  PetscCall(VIDualGetSystem(d->dual, &sys));
  if (!sys) PetscCall(VIDualSetSystem(d->dual, st->sys));
  PetscCheck(!sys || sys == st->sys, st->comm, PETSC_ERR_ARG_INCOMP, "The dual scheme's VIDual holds another system than the stepper's");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperDescribe_Dual(VIStepper st, char name[], size_t len)
{
  PetscFunctionBeginUser;
  (void)st;
  PetscCall(PetscStrncpy(name, "the dual assembly of sliding bodies (seed 003 §2.2)", len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* st->q, st->u, st->gap and st->lambda of the dual's current level. */
static PetscErrorCode VIStepperDualLevel(VIStepper st, PetscBool first)
{
  VIStepper_Dual      *d = (VIStepper_Dual *)st->data;
  const VIDualContact *rec;
  const PetscInt      *off = d->off, *dims = d->dims;
  PetscInt             nbod = d->nbod, ns;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < nbod; k++) {
    const PetscReal *q;
    PetscCall(VIDualGetDisplacement(d->dual, k, &q));
    PetscCall(PetscArraycpy(st->q + off[k], q, off[k + 1] - off[k]));
  }
  if (first)
    PetscCall(PetscArrayzero(st->u, st->n));
  else { /* one loop without branches, which the compiler vectorizes */
    const PetscReal *restrict q = st->q, *restrict qp = d->q_prev;
    PetscReal *restrict u = st->u;
    const PetscReal dt    = st->dt;
    for (PetscInt i = 0; i < st->n; i++) u[i] = (q[i] - qp[i]) / dt;
  }
  PetscCall(VIDualGetContacts(d->dual, &ns, &rec));
  for (PetscInt j = 0; j < ns; j++) {
    st->gap[j]                 = rec[j].segment < 0 ? (PetscReal)INFINITY : rec[j].gap;
    st->lambda[st->offsets[j]] = rec[j].normal;
    if (dims[j] > 1) st->lambda[st->offsets[j] + 1] = rec[j].tangential;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperSetUp_Dual(VIStepper st)
{
  VIStepper_Dual *d = (VIStepper_Dual *)st->data;

  PetscFunctionBeginUser;
  PetscCall(VIDualSetUp(d->dual));
  PetscCall(VIDualGetTimeStep(d->dual, &st->dt));
  PetscCall(PetscCalloc1(st->n, &d->q_prev));
  PetscCall(VISystemBodiesGetBodies(st->sys, NULL, &d->nbod, &d->off));
  PetscCall(VISystemGetContacts(st->sys, NULL, NULL, &d->dims, NULL));
  PetscCall(VIStepperDualLevel(st, PETSC_TRUE));
  /* the VIDual's whole state, packed into a field at a checkpoint (VIStepperSyncState_Dual); q_prev is rewritten by each
     step before it is read */
  PetscCall(VIDualGetStateSize(d->dual, &d->npacked));
  PetscCall(PetscCalloc1(d->npacked, &d->packed));
  PetscCall(VIStepperRegisterState(st, "dual", d->npacked, d->packed, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperSyncState_Dual(VIStepper st, PetscBool restore)
{
  VIStepper_Dual *d = (VIStepper_Dual *)st->data;

  PetscFunctionBeginUser;
  if (restore)
    PetscCall(VIDualSetState(d->dual, d->npacked, d->packed));
  else
    PetscCall(VIDualGetState(d->dual, d->packed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The dual's energy E_{n+1/2} (seed 003 §2.2, VIDualGetEnergy) as the stepper's: the work of the loads and drives as the
   external work, the contacts' (normal and friction) as the obstacle work, the initial energy E_{-1/2} as the balance's
   start; the balance column is the dual's closure kinetic + potential - initial + damping - load - drive - contact work. */
static PetscErrorCode VIStepperEnergy_Dual(VIStepper st, PetscReal *T, PetscReal *V)
{
  VIStepper_Dual *d = (VIStepper_Dual *)st->data;
  VIDualEnergy    e;

  PetscFunctionBeginUser;
  PetscCall(VIDualGetEnergy(d->dual, &e));
  *T                               = e.kinetic;
  *V                               = e.potential;
  st->energy.damping_dissipation   = e.damping;
  st->energy.friction_dissipation  = 0;
  st->energy.external_work         = e.load_work + e.drive_work;
  st->energy.obstacle_work         = e.contact_work;
  st->energy.numerical_dissipation = 0;
  st->energy0                      = e.initial;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Level k at t: the dual's step from level k - 1 (none at level 0, its set-up's state). */
static PetscErrorCode VIStepperStep_Dual(VIStepper st, PetscReal t)
{
  VIStepper_Dual *d = (VIStepper_Dual *)st->data;
  PetscInt        k = (PetscInt)PetscFloorReal((t - st->t0) / st->dt + 0.5), step;

  PetscFunctionBeginUser;
  PetscCall(VIDualGetTime(d->dual, NULL, &step));
  if (k == step) PetscFunctionReturn(PETSC_SUCCESS); /* level 0, or a level restored */
  PetscCheck(k == step + 1, st->comm, PETSC_ERR_PLIB, "The dual scheme is at step %" PetscInt_FMT ", asked for level %" PetscInt_FMT, step, k);
  PetscCall(PetscArraycpy(d->q_prev, st->q, st->n));
  PetscCall(VIDualStep(d->dual));
  PetscCall(VIStepperDualLevel(st, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperAdvance_Dual(VIStepper st)
{
  PetscFunctionBeginUser;
  (void)st;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperReset_Dual(VIStepper st)
{
  VIStepper_Dual *d = (VIStepper_Dual *)st->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(d->q_prev));
  PetscCall(PetscFree(d->packed));
  d->npacked = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperDestroy_Dual(VIStepper st)
{
  VIStepper_Dual *d = (VIStepper_Dual *)st->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(d->q_prev));
  PetscCall(PetscFree(d->packed));
  PetscCall(VIDualDestroy(&d->dual));
  PetscCall(PetscFree(st->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperCreate_Dual(VIStepper st)
{
  VIStepper_Dual *d;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&d));
  PetscCall(VIDualCreate(st->comm, &d->dual));
  st->data            = d;
  st->ops.checksystem = VIStepperCheckSystem_Dual;
  st->ops.describe    = VIStepperDescribe_Dual;
  st->ops.setup       = VIStepperSetUp_Dual;
  st->ops.step        = VIStepperStep_Dual;
  st->ops.advance     = VIStepperAdvance_Dual;
  st->ops.reset       = VIStepperReset_Dual;
  st->ops.destroy     = VIStepperDestroy_Dual;
  st->ops.syncstate   = VIStepperSyncState_Dual;
  st->ops.energy      = VIStepperEnergy_Dual;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The scheme's options are the VIDual's (-dual_*, dual.c's table, registered with the step module's). */
PetscErrorCode VIStepperRegister_Dual(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIStepperRegister(VISTEPPERDUAL, VIStepperCreate_Dual));
  PetscFunctionReturn(PETSC_SUCCESS);
}
