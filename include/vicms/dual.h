/* vicms dual module: several reduced bodies coupled by sliding node-to-segment contact, dual assembly with forward-increment
   Lagrange multipliers (seed 003 §2.2, Eqs. 22–44). */
#pragma once

#include <vicms/rom.h>
#include <vicms/contact.h>
#include <vicms/excite.h>
#include <vicms/system.h>
#include <vicms/step.h>

/* Where the coupling rows B_N, B_T are built: in the configuration predicted for t_{n+1} (seed 003 Eq. 33, the default), or
   once in the undeformed configuration and held (the time-invariant coupling of the primal assembly, seed 003 §1.4/§2.3). */
typedef enum { VI_DUAL_GEOMETRY_DEFORMED, VI_DUAL_GEOMETRY_FIXED } VIDualGeometry;
PETSC_EXTERN const char *const VIDualGeometries[]; /* "deformed", "fixed", PETSc enum trailer */
/* How the run starts: at rest undeformed (or at VIDualSetInitialDisplacement), at rest in the static equilibrium under the
   constant loads with the slaves pressed on the master, or in the steady sliding state (VIDualSetStart) */
typedef enum { VI_DUAL_START_REST, VI_DUAL_START_STATIC, VI_DUAL_START_SLIDING } VIDualStart;
PETSC_EXTERN const char *const VIDualStarts[]; /* "rest", "static", "sliding", PETSc enum trailer */

/* The state of one slave node after a step: no master segment under it (it left the master's ends), open (no force),
   stick (tangential force inside the Coulomb cone) or slip (on the cone; every closed frictionless contact). */
typedef enum { VI_DUAL_OFF, VI_DUAL_OPEN, VI_DUAL_STICK, VI_DUAL_SLIP } VIDualStatus;
PETSC_EXTERN const char *const VIDualStatuses[]; /* "off", "open", "stick", "slip", PETSc enum trailer */

/* The record of one slave node for step n (t_n -> t_{n+1}). */
typedef struct {
  VIDualStatus status;
  PetscInt     segment;       /* master segment k (nodes k, k+1 of the master chain) found in the search, -1 when off */
  PetscReal    xi;            /* the slave's projection on the segment, 0 at node k, 1 at node k+1 (seed 003 Eq. 36); NaN when off */
  PetscReal    gap;           /* normal gap at t_{n+1} (the compatibility row, Eqs. 30-31, linearised about the prediction); NaN when off */
  PetscReal    normal;        /* normal force lambda_n >= 0 on the slave over the step (Eq. 32 with the contact law) */
  PetscReal    tangential;    /* tangential force on the slave along the segment's tangent (T1 -> T2), |.| <= mu normal */
  PetscReal    slip_velocity; /* relative tangential velocity of the slave on the master over the step, (B_T (u_{n+1} - u_n)) / dt */
} VIDualContact;

/* The terms of the discrete energy identity of the central difference (see VIDualGetEnergy). */
typedef struct {
  PetscReal kinetic;      /* 1/2 v^T M v, v = (u_{n+1} - u_n) / dt (the mid-step velocity) */
  PetscReal potential;    /* 1/2 u_n^T K u_{n+1} */
  PetscReal damping;      /* sum over the steps of (D (u_n - u_{n-1}) / dt) . (u_{n+1} - u_{n-1}) / 2 */
  PetscReal load_work;    /* sum of f_n . (u_{n+1} - u_{n-1}) / 2, f_n the constant loads and the slave forces at t_n */
  PetscReal drive_work;   /* sum of R . (u_{n+1} - u_{n-1}) / 2, R the reaction of the driven DOFs */
  PetscReal contact_work; /* sum of lambda_n^T B_{n+1} (u_{n+1} - u_{n-1}) / 2 (minus the friction dissipation) */
  PetscReal initial;      /* kinetic + potential at t_{-1/2}: 1/2 u_0^T K u_0 from rest */
} VIDualEnergy;

typedef struct _p_VIDual *VIDual;

PETSC_EXTERN PetscErrorCode VIDualCreate(MPI_Comm comm, VIDual *dual);
PETSC_EXTERN PetscErrorCode VIDualDestroy(VIDual *dual);
/* The bodies (referenced, not copied: they must outlive the VIDual); every body is 2D. The VIDual makes of them a system of
   type bodies (system.h) of its own, which VIDualSetSlave, VIDualSetMaster and VIDualTranslateBody define. */
PETSC_EXTERN PetscErrorCode VIDualSetBodies(VIDual dual, VIBodies bodies);
/* Or a system of type bodies made by the caller (referenced: it must outlive the VIDual), with its bodies set (and its slaves
   and master, or VIDualSetSlave and VIDualSetMaster define them): the scheme then gets the operators, the contact rows, the
   gaps, the outputs and the initial energy through the system's interface. */
PETSC_EXTERN PetscErrorCode VIDualSetSystem(VIDual dual, VISystem sys);
PETSC_EXTERN PetscErrorCode VIDualGetSystem(VIDual dual, VISystem *sys);
/* The slave nodes (mesh ids in the body's boundary table) of body `body`. */
PETSC_EXTERN PetscErrorCode VIDualSetSlave(VIDual dual, const char body[], PetscInt num_nodes, const PetscInt node_ids[]);
/* The master chain of body `body`: segments between consecutive nodes (mesh ids in its boundary table, clamped ones
   allowed), ordered so that the body lies on the right of the chain (its outward normal is the tangent turned by +90
   degrees: a top edge runs towards +x). num_nodes = 0: every boundary node of the body, in the order of its table. */
PETSC_EXTERN PetscErrorCode VIDualSetMaster(VIDual dual, const char body[], PetscInt num_nodes, const PetscInt node_ids[]);
PETSC_EXTERN PetscErrorCode VIDualSetFriction(VIDual dual, PetscReal mu);
/* dt = 0: 0.8 times the stability limit (VIDualGetCriticalStep). */
PETSC_EXTERN PetscErrorCode VIDualSetTimeStep(VIDual dual, PetscReal dt);
PETSC_EXTERN PetscErrorCode VIDualSetGeometry(VIDual dual, VIDualGeometry geometry);
/* VI_DUAL_START_STATIC: VIDualSetUp starts the run at rest in the static equilibrium under the constant loads (VIDualAddLoad),
   the driven coordinates at their initial value, every slave over the master pressed on it without friction (a slave
   that would pull is released), the gap closed in the deformed configuration (or the fixed one); from the undeformed
   state or VIDualSetInitialDisplacement's as the first guess. VI_DUAL_START_SLIDING: the same equilibrium with the steady
   sliding friction (lambda_t = -+mu lambda_n, the slip direction that of the drive), at t_0 and at t_{-1} = -dt with the
   driven coordinates one step back, so that the run starts sliding at the drive's velocity (needs a moving drive).
   Option -dual_start rest|static|sliding. */
PETSC_EXTERN PetscErrorCode VIDualSetStart(VIDual dual, VIDualStart start);
/* A constant force (total, x y z, split equally over the nodes) on boundary nodes of a body: the preload of seed 003 §3.1. */
PETSC_EXTERN PetscErrorCode VIDualAddLoad(VIDual dual, const char body[], PetscInt num_nodes, const PetscInt node_ids[], const PetscReal force[]);
/*
  VIDualSetSlaveForce - a time-dependent force s(t) d on slave node j (its index in VIDualSetSlave's list): the roughness of
  seed 003 §3.1 ("a vertical force, band-limited white noise, on point C") with s a noise VIExcitation (referenced: it must
  outlive dual). dir = {x, y}: d that direction (normalised); dir = NULL: d the outward normal of the master segment under
  the slave in the configuration X + u_n (the search of Eqs. 34-36), no force while the slave is off the master. Step n
  applies s(t_n) (the load of t_n in Eq. 24), and the force's work is part of VIDualEnergy.load_work. Call after
  VIDualSetSlave, before VIDualSetUp.
*/
PETSC_EXTERN PetscErrorCode VIDualSetSlaveForce(VIDual dual, PetscInt j, VIExcitation s, const PetscReal dir[]);
/* The slave force of the last step (t_n -> t_{n+1}): s(t_n) and the vector (x, y) applied; 0 before the first step. */
PETSC_EXTERN PetscErrorCode VIDualGetSlaveForce(VIDual dual, PetscInt j, PetscReal *value, PetscReal force[]);
/* Imposed motion: component `comp` (0 = x, 1 = y) of each node's displacement is velocity * t (the driven end A of seed
   003 §3.1 moved at v_x). The node's ROM coordinate is eliminated from the dynamics and its reaction recorded. */
PETSC_EXTERN PetscErrorCode VIDualAddDrive(VIDual dual, const char body[], PetscInt num_nodes, const PetscInt node_ids[], PetscInt comp,
                                           PetscReal velocity);
/* Place body `body` rigidly translated by shift (x, y): the undeformed positions of its slave and master nodes, in the
   search and the rows, are X + shift; its ROM coordinates (and outputs) stay displacements from there. Exact, with no
   strain energy (u = 0): e.g. to start the slave elsewhere on the master. Before VIDualSetUp; cumulative. */
PETSC_EXTERN PetscErrorCode VIDualTranslateBody(VIDual dual, const char body[], const PetscReal shift[]);
/* The initial displacement of body k (its ROM coordinates), at rest: u_0 = u_{-1} = q (default 0); driven coordinates move
   from their value in q. */
PETSC_EXTERN PetscErrorCode VIDualSetInitialDisplacement(VIDual dual, PetscInt k, const PetscReal q[]);
/* Options: -dual_dt, -dual_mu, -dual_geometry deformed|fixed, and the contact solver's -contact_*. Collective. */
PETSC_EXTERN PetscErrorCode VIDualSetFromOptions(VIDual dual);
/* Inverse masses, the stability limit, the fixed coupling rows. Collective. */
PETSC_EXTERN PetscErrorCode VIDualSetUp(VIDual dual);
/* One step t_n -> t_{n+1}: predictor, search, multipliers, corrector (seed 003 Eqs. 27-36). Every rank computes the same
   (the ROMs are small and replicated); collective only through errors. */
PETSC_EXTERN PetscErrorCode VIDualStep(VIDual dual);
PETSC_EXTERN PetscErrorCode VIDualGetTime(VIDual dual, PetscReal *t, PetscInt *step);
PETSC_EXTERN PetscErrorCode VIDualGetTimeStep(VIDual dual, PetscReal *dt);
/* The bound 2 (sqrt(1 + zeta^2) - zeta) / omega over the free modes of every body (seed 003 Eq. 25, exact for this scheme). */
PETSC_EXTERN PetscErrorCode VIDualGetCriticalStep(VIDual dual, PetscReal *dt);
/* The records of the last step, one per slave node. */
PETSC_EXTERN PetscErrorCode VIDualGetContacts(VIDual dual, PetscInt *num, const VIDualContact **contacts);
/* The displacement of body k at the current time (its ROM coordinates). */
PETSC_EXTERN PetscErrorCode VIDualGetDisplacement(VIDual dual, PetscInt k, const PetscReal **q);
/* The body outputs (every ROM output of every body, in body order) at the current time. */
PETSC_EXTERN PetscErrorCode VIDualGetOutputs(VIDual dual, PetscInt *num, const PetscReal **values);
/*
  VIDualGetEnergy - the terms of the identity E_{n+1/2} - initial + damping = load + drive + contact work, which the
  central difference satisfies exactly (multiply Eq. 24 by (u_{n+1} - u_{n-1}) / 2 and sum), E = kinetic + potential.
*/
PETSC_EXTERN PetscErrorCode VIDualGetEnergy(VIDual dual, VIDualEnergy *energy);
/* The time of one OpenBLAS dgemv of the coupled system's size (n x n) on this machine, now (timed at the first call): the unit
   in which a step's cost is stated. */
PETSC_EXTERN PetscErrorCode VIDualGetMatVecTime(VIDual dual, PetscReal *seconds);
PETSC_EXTERN PetscErrorCode VIDualView(VIDual dual, PetscViewer viewer);
/*
  VIDualGetStateSize, VIDualGetState, VIDualSetState - everything VIDualStep carries from one step to the next, packed into
  len reals, to checkpoint a run and continue it bit for bit: the step and t, the energy terms, u_n and u_{n-1}, the initial
  value of the driven coordinates, the multipliers of the last step (the warm start of the next contact solve), and what the
  getters return after a step (per slave its VIDualContact and the slave force applied; the outputs). After VIDualSetUp;
  VIDualSetState takes the state of a VIDual set up alike (the same bodies, slaves, outputs and time step, else an error)
  and leaves this one as the other was after its step. Not collective.
*/
PETSC_EXTERN PetscErrorCode VIDualGetStateSize(VIDual dual, PetscInt *len);
PETSC_EXTERN PetscErrorCode VIDualGetState(VIDual dual, PetscReal state[]);
PETSC_EXTERN PetscErrorCode VIDualSetState(VIDual dual, PetscInt len, const PetscReal state[]);

/* The VIDual of a stepper of type dual (VIStepperSetType(st, VISTEPPERDUAL), after VIStepperSetSystem): the scheme's drives, loads,
   slave forces and options are given to it before VIStepperSetUp, which sets it up (src/step/dualstep.c). */
PETSC_EXTERN PetscErrorCode VIStepperDualGetDual(VIStepper st, VIDual *dual);
