/* vicms system module: the mechanical system of one case as an interface (VISystem, an ops table per registered type):
   mass, forces and their tangents, constraints by kind, energy, loads, gaps and initial state. The steppers (step.h) and
   the harmonic balance (hb.h) see a system through these functions only; docs/system.md. */
#pragma once

#include <vicms/rom.h>
#include <vicms/contact.h>
#include <vicms/excite.h>

typedef enum { VI_INIT_REST, VI_INIT_VELOCITY, VI_INIT_STATIC } VIInitType;
PETSC_EXTERN const char *const VIInitTypes[];

typedef struct _p_VISystem *VISystem;

/* The implementations, registered by name like PETSc's types (src/system/systemregis.c: one line per type, one file
   each; docs/system.md). reduced: a ROM of vicms reduce (or a user's matrices) with its loads, gaps, friction and initial
   state, linear, constant mass. */
typedef const char *VISystemType;
#define VISYSTEMREDUCED "reduced"
/* multibody: planar rigid bodies, joints and contacts read from a model file (-mb_model FILE.yaml; docs/multibody.md),
   nonlinear, constant mass in the redundant coordinates (x, y, theta) of each body. */
#define VISYSTEMMULTIBODY "multibody"
/* bodies: the coupled bodies of seed 003 (a bodies file of `vicms reduce -bodies`): their ROMs side by side (linear,
   constant mass, block-diagonal), node-to-segment sliding contacts of slave nodes on a master chain as unilateral
   (frictional) constraints whose rows depend on q (seed 003 Eqs. 34-44); the scheme `dual` (dual.h) and `vicms slide`. */
#define VISYSTEMBODIES "bodies"
/* VISystemRegister - add a type: create(sys) sets sys's ops and data. Not collective. */
PETSC_EXTERN PetscErrorCode VISystemRegister(const char name[], PetscErrorCode (*create)(VISystem));
PETSC_EXTERN PetscErrorCode VISystemRegisterAll(void);

PETSC_EXTERN PetscErrorCode VISystemCreate(MPI_Comm comm, VISystem *sys);
/* By name (PETSC_ERR_USER_INPUT naming the known ones otherwise); -system_type in VISystemSetFromOptions; default reduced. */
PETSC_EXTERN PetscErrorCode VISystemSetType(VISystem sys, VISystemType type);
PETSC_EXTERN PetscErrorCode VISystemGetType(VISystem sys, VISystemType *type);
/* The ROM is referenced, not copied: many cases share one ROM. */
PETSC_EXTERN PetscErrorCode VISystemSetROM(VISystem sys, VIROM rom);
/*
  Options of a case: -system_type reduced|multibody, and those of the type (multibody: -mb_model FILE.yaml, docs/multibody.md); reduced:
  -case_loads NAME[,NAME...]   ROM loads that act (their time functions: options with prefix load_NAME_, see excite.h;
                               default constant 1, e.g. -load_gravity_amplitude 1 -load_tip_type harmonic ...)
  -contact_mu μ, -contact_preload p, -contact_sliding_speed v (the obstacle moves along t1 at v)
  -contact_rotation_axis ax,ay,az, -contact_rotation_origin ox,oy,oz: the structure spins at -contact_rotation_speed
  Omega about this axis inside a fixed obstacle (a blade in its casing): each contact gets the obstacle's velocity
  -Omega r_j e_theta,j seen from the structure (r_j its radius, e_theta,j its circumferential direction) in its frame,
  and, unless -contact_gap_phases is given, the gap phase phi_j = k theta_j (theta_j its angle about the axis from the
  first contact, k = -contact_gap_waves): g0_j(t) = g + a cos(k (Omega t + theta_j))
  -contact_gap g (mean gap), -contact_gap_amplitude a, -contact_gap_waves k, -contact_rotation_speed Ω (rad/s),
  -contact_gap_phases φ0,φ1,... (one per contact, or) -contact_gap_phase_step dφ: g0_j(t) = g + a cos(k Ω t + φ_j);
  -contact_gap_shape bump -contact_gap_bump_width w: g0_j(t) = g - a exp(-d^2/(2 w^2)), d = k Ω t + φ_j wrapped to (-π, π]
  -case_damping_scale s: the case's damping matrix is s D of the ROM (s >= 0; default 1), for HB and time stepping alike
  -init rest|velocity|static, -init_velocity v, -init_direction x|y|z (a uniform velocity, needs the ROM shape
  translation_DIR), -init_load NAME (static deflection under a load: K q = f)
*/
PETSC_EXTERN PetscErrorCode VISystemSetFromOptions(VISystem sys);
/* Once for the ROM and options given (VISystemSetROM and VISystemSetFromOptions ask for it again): a stepper set up on
   the case later reuses its arrays. */
PETSC_EXTERN PetscErrorCode VISystemSetUp(VISystem sys);
/* Sizes: n = nb + nm; contacts and their friction. */
PETSC_EXTERN PetscErrorCode VISystemGetSizes(VISystem sys, PetscInt *n, PetscInt *nb, PetscInt *nm);
PETSC_EXTERN PetscErrorCode VISystemGetROM(VISystem sys, VIROM *rom);
/*
  The equations of motion M(q) u' = f(t, q, u) + G(q, t)^T lambda, q' = u, and what a scheme asks of them.

  VISystemHasConstantMass - whether M does not depend on q (a ROM): a scheme then factors it once.
  VISystemComputeMass - M(q) (n x n, row-major).
  VISystemComputeMassJacobian - d(M(q) w)/dq for a given w (n x n row-major, [i n + k] = d(M w)_i/dq_k): the term a
  Newton iteration on M(q) u' needs; zero for a constant mass (no op asked).
  VISystemIsLinear - whether f(t, q, u) = f_ext(t) - K q - D u with constant K, M, D (a ROM): VISystemGetLinearOperators
  then gives them, and the ROM schemes keep their factorizations, modal bases and BLAS paths.
  VISystemGetLinearOperators - the case's K, M and D (n x n row-major; D scaled by -case_damping_scale), after
  VISystemSetUp; PETSC_ERR_SUP for a nonlinear system.
  VISystemComputeForce - f(t, q, u): the external force less the internal (elastic, damping, gyroscopic) forces.
  VISystemComputeForceJacobian - the tangents df/dq and df/du (n x n each, row-major; either may be NULL).
  VISystemComputeEnergy - kinetic and potential energy at (q, u).
  Not collective (every rank of a case's group holds the whole, replicated system).
*/
PETSC_EXTERN PetscErrorCode VISystemHasConstantMass(VISystem sys, PetscBool *constant);
PETSC_EXTERN PetscErrorCode VISystemComputeMass(VISystem sys, const PetscReal q[], PetscReal M[]);
PETSC_EXTERN PetscErrorCode VISystemComputeMassJacobian(VISystem sys, const PetscReal q[], const PetscReal w[], PetscReal dMw[]);
PETSC_EXTERN PetscErrorCode VISystemIsLinear(VISystem sys, PetscBool *linear);
PETSC_EXTERN PetscErrorCode VISystemGetLinearOperators(VISystem sys, const PetscReal **K, const PetscReal **M, const PetscReal **D);
PETSC_EXTERN PetscErrorCode VISystemComputeForce(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal f[]);
PETSC_EXTERN PetscErrorCode VISystemComputeForceJacobian(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal dfdq[],
                                                         PetscReal dfdu[]);
PETSC_EXTERN PetscErrorCode VISystemComputeEnergy(VISystem sys, const PetscReal q[], const PetscReal u[], PetscReal *kinetic, PetscReal *potential);
/*
  The constraints by kind (VIContactKind per contact: bilateral, unilateral; a unilateral contact with dims > 1 and
  mu > 0 is frictional): contact j owns dims[j] rows starting at row offsets[j] of the constraint space, normal first.
  VISystemGetContacts - their number, kinds, rows per contact and first rows (arrays owned by the system; any may be NULL).
  VISystemComputeConstraintCurvature - the term a position-level scheme needs besides g and G: d(G^T lambda)/dq at (t, q)
  for the normal multipliers lambda (nc), n x n row-major; zero for a ROM (its G is constant).
  VISystemComputeConstraintDerivatives - what a Newton iteration on the rows needs at (t, q), in one pass over them: G = dg/dq
  (nc x n, as VISystemEvaluateConstraints gives it), HV = d(G(q) v)/dq for a velocity v (nc x n: row j is (H_j v)^T, H_j the
  Hessian of row j; the term of a velocity-level row) and Hw = d(G(q)^T w)/dq for multipliers w (n x n: the curvature above);
  any output may be NULL (HV and Hw then need no v, w). A type whose rows touch few coordinates gives it directly (multibody:
  a row's Hessian lives in its two bodies' coordinates); for the others it is formed from VISystemEvaluateConstraints and
  VISystemComputeConstraintCurvature (unit multipliers for HV: n x n per row).
*/
PETSC_EXTERN PetscErrorCode VISystemGetContacts(VISystem sys, PetscInt *nc, const VIContactKind **kinds, const PetscInt **dims,
                                                const PetscInt **offsets);
/*
  VISystemGetLinearGradientRows - which constraint rows are quadratic in q (their gradient G_j linear in q, so
  G_j((q0 + q1)/2) (q1 - q0) = g_j(q1) - g_j(q0) exactly), bilateral, independent of t and without an impact law: in a
  spatial multibody model a body's quaternion norm g = (p^T p - 1)/2 and the three rows of a spherical joint,
  r_b + R(p_b) s_b - r_a - R(p_a) s_a (R(p) s quadratic in p), also rows 0-2 of a revolute, fixed or driver joint.
  Not collective. linear: nc flags owned by the system, or NULL when it has none (no op: none).
*/
PETSC_EXTERN PetscErrorCode VISystemGetLinearGradientRows(VISystem sys, const PetscBool **linear);
/*
  VISystemGetConstraintColumns - the coordinates each constraint row touches, fixed after VISystemSetUp: row j's gradient
  G_j, its contact's tangential rows (VISystemEvaluateTangents) and d(G_j v)/dq are zero outside cols[ptr[j] .. ptr[j + 1])
  (ascending), and its Hessian outside those columns squared. A scheme's sums over a row then skip terms that are exact
  zeros (the same sums). Not collective. ptr (nc + 1) and cols owned by the system, both NULL when the type gives none:
  every row may then touch every coordinate (a planar model of rigid bodies gives its rows' two bodies, 6 of n).
*/
PETSC_EXTERN PetscErrorCode VISystemGetConstraintColumns(VISystem sys, const PetscInt **ptr, const PetscInt **cols);
PETSC_EXTERN PetscErrorCode VISystemComputeConstraintCurvature(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal lambda[],
                                                               PetscReal H[]);
PETSC_EXTERN PetscErrorCode VISystemComputeConstraintDerivatives(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal v[],
                                                                 const PetscReal w[], PetscReal G[], PetscReal HV[], PetscReal Hw[]);
/* A bound of the imposed gaps' size (|mean| + |amplitude|): the blow-up test's scale of the motion. */
PETSC_EXTERN PetscErrorCode VISystemGetGapBound(VISystem sys, PetscReal *bound);
/* External force f(t) (n) and imposed gap, gap rate and tangential obstacle velocity per contact at t. */
PETSC_EXTERN PetscErrorCode VISystemEvaluateForce(VISystem sys, PetscReal t, PetscReal f[]);
/* The force is f(t) = sum_l s_l(t) v_l: the load vectors v_l (n each, owned by the ROM) and their scales s_l(t), for
   schemes that apply an operator to each v_l once at set-up. */
PETSC_EXTERN PetscErrorCode VISystemGetLoads(VISystem sys, PetscInt *num_loads, const PetscReal *const **vectors);
PETSC_EXTERN PetscErrorCode VISystemEvaluateLoadScales(VISystem sys, PetscReal t, PetscReal s[]);
/* f = sum_l s_l v_l from scales already evaluated (a scheme that needs both evaluates the excitations once). */
PETSC_EXTERN PetscErrorCode VISystemForceFromScales(VISystem sys, const PetscReal s[], PetscReal f[]);
PETSC_EXTERN PetscErrorCode VISystemEvaluateGaps(VISystem sys, PetscReal t, PetscReal g0[], PetscReal g0_rate[]);
/* The contact set of the case and the obstacle's tangential velocity per contact (nc x 2: along t1 and t2). */
/* The unilateral constraints at (t, q), as a stepper that works on gaps sees them (seed 002 Eq. 17): the normal gap g_j(q, t) of each
   contact (nc), its gradient G_j = dg_j/dq (row j of G, nc x n, row-major) and its explicit time rate dg_j/dt (nc). A ROM's gaps are
   linear, g_j = q[offset_j] + g0_j(t) with G_j a unit row; a system whose gaps depend nonlinearly on q (rigid bodies, joints) gives
   its own here, and the steppers that read gaps through this function (nsgalpha) take it unchanged. Any output may be NULL.
   G does not depend on t (a rheonomic row's time enters g and g_rate alone): a scheme may keep G at q across times. */
PETSC_EXTERN PetscErrorCode VISystemEvaluateConstraints(VISystem sys, PetscReal t, const PetscReal q[], PetscReal g[], PetscReal G[],
                                                        PetscReal g_rate[]);
/* The constraints' second explicit time derivative d^2 g_j/dt^2 at t (nc; rows whose gradient G does not depend on t: a
   multibody driver's prescribed angle), the term a consistent initial acceleration needs, G a = -u^T H u - d^2 g/dt^2;
   zero for a type without rheonomic rows. */
PETSC_EXTERN PetscErrorCode VISystemEvaluateConstraintAcceleration(VISystem sys, PetscReal t, PetscReal g_tt[]);
PETSC_EXTERN PetscErrorCode VISystemGetContactSet(VISystem sys, VIContactSet *set, const PetscReal **obstacle_velocity);
/* The tangential rows of the frictional contacts (dims > 1) of a system whose tangents depend on q (multibody): their
   gradients at (t, q), sum(dims - 1) x n row-major in the contacts' order, the relative sliding velocity being Gt u.
   PETSC_ERR_SUP for a ROM (its tangential rows are its coordinates offsets[j] + 1 ..). */
PETSC_EXTERN PetscErrorCode VISystemEvaluateTangents(VISystem sys, PetscReal t, const PetscReal q[], PetscReal Gt[]);
/* The frequency (Hz) at t of the first load with a harmonic or swept time function, and that function's type; f = 0
   and type VI_EXCITE_CONSTANT when no load has one. */
PETSC_EXTERN PetscErrorCode VISystemGetLoadFrequency(VISystem sys, PetscReal t, PetscReal *f, VIExciteType *type);
/* An error when a time function of the system's loads or gaps reaches the Nyquist frequency of a step dt over [t0, t1]. Collective. */
PETSC_EXTERN PetscErrorCode VISystemCheckSampling(VISystem sys, PetscReal t0, PetscReal t1, PetscReal dt);
/* Initial displacement q0 and velocity u0 (n), from the -init options (or VISystemSetInitialState). */
PETSC_EXTERN PetscErrorCode VISystemGetInitialState(VISystem sys, const PetscReal **q0, const PetscReal **u0);
/*
  VISystemSetTimeScale - play the case's time functions s times faster (s > 0; 1, the default, is the case as given):
  every load scale is l(s t) instead of l(t), every imposed gap g0(s t) with its rate s g0'(s t), and the load
  frequency reported at t is s f(s t). A harmonic load of frequency f_case and gaps periodic with it then repeat with the
  frequency s f_case: harmonic balance (src/hb/transient.c) drives its case at its own frequency Omega this way,
  s = Omega / (2 pi f_case). The constant obstacle velocities (-contact_sliding_speed, rotation) are not scaled. Not
  collective; applies from the next evaluation; the caller sets 1 back to restore the case.
*/
PETSC_EXTERN PetscErrorCode VISystemSetTimeScale(VISystem sys, PetscReal s);
PETSC_EXTERN PetscErrorCode VISystemGetTimeScale(VISystem sys, PetscReal *s);
/* VISystemSetInitialState - after VISystemSetUp: the initial state is q0, u0 (n each, copied; NULL is zero) instead of
   the -init options, from now and at every later set-up, until called with both NULL (the -init state again). Not
   collective: every rank of a case's group gives the same state. */
PETSC_EXTERN PetscErrorCode VISystemSetInitialState(VISystem sys, const PetscReal q0[], const PetscReal u0[]);
/*
  Outputs that are not linear in q (a multibody system's point positions and velocities, joint angles, contact forces,
  energy): VISystemHasOutputs tells whether the type computes its outputs itself; VISystemComputeOutputs then gives the
  outputs (VISystemGetNumOutputs, VISystemGetOutput: their names and number) at (t, q, u) with the constraint forces lambda (one per
  constraint row, row offsets[j] of contact j). A ROM's outputs are rows times q (the stepper applies them).
  VISystemGetRestitution - Newton's coefficient per contact given by the system (NULL: the stepper's -step_restitution).
*/
PETSC_EXTERN PetscErrorCode VISystemHasOutputs(VISystem sys, PetscBool *has);
PETSC_EXTERN PetscErrorCode VISystemComputeOutputs(VISystem sys, PetscReal t, const PetscReal q[], const PetscReal u[], const PetscReal lambda[],
                                                   PetscReal y[]);
PETSC_EXTERN PetscErrorCode VISystemGetRestitution(VISystem sys, const PetscReal **e);
/*
  What a stepper asks of any system besides the equations (every type answers, or refuses naming itself):
  VISystemGetNumOutputs, VISystemGetOutput - the outputs the common stepper records at every level: output o's name and,
  for an output linear in q (a ROM's), its row (n; y_o = row . q), NULL for one the type computes (VISystemComputeOutputs).
  0 outputs for a type that records its own (bodies: the dual scheme, VISystemBodiesGetNumOutputs).
  VISystemHasMasslessBoundary - whether the nb boundary coordinates carry no mass (massless Craig-Bampton, MacNeal: the
  leapfrog scheme solves a static problem on them; the other schemes need M nonsingular), and a name of the system's mass
  model for messages (a ROM: its reduction method, e.g. cb_massless; else the type's name).
  VISystemGetLowestFrequency - the lowest positive natural frequency (Hz) the system knows of (a ROM: of its inner modes,
  stored at reduction); 0 when it knows none (a nonlinear system).
  VISystemGetDataId - what identifies the system's data besides the options (a ROM shared by a job's cases; NULL: the
  options say it all, e.g. -mb_model): two systems of one type with the same id and options are the same case.
*/
PETSC_EXTERN PetscErrorCode VISystemGetNumOutputs(VISystem sys, PetscInt *num);
PETSC_EXTERN PetscErrorCode VISystemGetOutput(VISystem sys, PetscInt o, const char **name, const PetscReal **row);
PETSC_EXTERN PetscErrorCode VISystemHasMasslessBoundary(VISystem sys, PetscBool *massless, const char **kind);
PETSC_EXTERN PetscErrorCode VISystemGetLowestFrequency(VISystem sys, PetscReal *f);
PETSC_EXTERN PetscErrorCode VISystemGetDataId(VISystem sys, const void **id);
/* The ROM view of a multibody model file (sizes, constant mass, contacts, named outputs, units): what the ensemble's
   records and results need of a case; the multibody system builds the same from -mb_model. Not collective. */
PETSC_EXTERN PetscErrorCode VISystemMultibodyModelROM(MPI_Comm comm, const char path[], VIROM rom);
/*
  Constraints linearised at one configuration and evaluated at others (the coupled bodies' node-to-segment contacts, whose
  rows a scheme builds in a predicted configuration and then holds over a step, seed 003 Eq. 33):
  VISystemLinearizeContact - the search of contact j at q and, when it is active there (a segment under the slave), its
  rows at q, kept by the system until the next linearisation of j (inactive: the rows of the last active one are kept).
  VISystemGetContactRows - every contact's linearisation (owned by the system, valid from VISystemSetUp on): contact j's
  rows have nnz entries from j nnz on, over the coordinates dof (-1: clamped), normal and tangential values; where[j] its
  segment (-1: none), xi[j] the slave's place on it (0 at its first node, 1 at its second).
  VISystemEvaluateContactGap - the normal gap of contact j in the configuration q with its linearised rows (the rows
  applied to the positions X + q).
  VISystemEvaluateContactFrame - the search of contact j at q without changing its linearisation: whether it is active and
  the segment's frame (normal then tangent, 2 components each).
*/
PETSC_EXTERN PetscErrorCode VISystemLinearizeContact(VISystem sys, PetscInt j, const PetscReal q[], PetscBool *active);
PETSC_EXTERN PetscErrorCode VISystemGetContactRows(VISystem sys, PetscInt *nnz, const PetscInt **dof, const PetscReal **normal,
                                                   const PetscReal **tangent, const PetscInt **where, const PetscReal **xi);
PETSC_EXTERN PetscErrorCode VISystemEvaluateContactGap(VISystem sys, PetscInt j, const PetscReal q[], PetscReal *g);
PETSC_EXTERN PetscErrorCode VISystemEvaluateContactFrame(VISystem sys, PetscInt j, const PetscReal q[], PetscBool *active, PetscReal frame[]);
/*
  The bodies type's own functions (an error for another type): the bodies (referenced: they must outlive the system),
  the slave nodes of one body and the master chain of another (as VIDualSetSlave, VIDualSetMaster in dual.h), a rigid
  translation of a body's nodes (VIDualTranslateBody), the friction coefficient (a contact is frictional when mu > 0),
  and what a scheme needs of the case besides the interface: a body by name, a boundary node's coordinates, the slave and
  master nodes, the number of outputs (every ROM output of every body, VISystemComputeOutputs).
*/
PETSC_EXTERN PetscErrorCode VISystemBodiesSetBodies(VISystem sys, VIBodies bodies);
PETSC_EXTERN PetscErrorCode VISystemBodiesGetBodies(VISystem sys, VIBodies *bodies, PetscInt *num, const PetscInt **offsets);
PETSC_EXTERN PetscErrorCode VISystemBodiesSetSlave(VISystem sys, const char body[], PetscInt num_nodes, const PetscInt node_ids[]);
PETSC_EXTERN PetscErrorCode VISystemBodiesSetMaster(VISystem sys, const char body[], PetscInt num_nodes, const PetscInt node_ids[]);
PETSC_EXTERN PetscErrorCode VISystemBodiesTranslateBody(VISystem sys, const char body[], const PetscReal shift[]);
PETSC_EXTERN PetscErrorCode VISystemBodiesSetFriction(VISystem sys, PetscReal mu);
PETSC_EXTERN PetscErrorCode VISystemBodiesFindBody(VISystem sys, const char body[], const char what[], PetscInt *k);
PETSC_EXTERN PetscErrorCode VISystemBodiesGetNode(VISystem sys, PetscInt k, PetscInt id, const char what[], VIBodyNode *node);
PETSC_EXTERN PetscErrorCode VISystemBodiesGetSlaves(VISystem sys, PetscInt *num, const VIBodyNode **slaves, PetscInt *body);
PETSC_EXTERN PetscErrorCode VISystemBodiesGetMaster(VISystem sys, PetscInt *num, const VIBodyNode **master, PetscInt *body);
PETSC_EXTERN PetscErrorCode VISystemBodiesGetNumOutputs(VISystem sys, PetscInt *num);
PETSC_EXTERN PetscErrorCode VISystemView(VISystem sys, PetscViewer viewer);
PETSC_EXTERN PetscErrorCode VISystemDestroy(VISystem *sys);
/* Declares the module's options to the option registry (src/sys/options.c; once, at start-up: VIOptionsRegisterAll). */
PETSC_EXTERN PetscErrorCode VISystemRegisterOptions(void);
