/* Private layout of a planar multibody model (src/system/mbmodel.c reads it from a YAML file, multibody.c is the system
   type built on it; docs/multibody.md). Body 0 is the ground (no coordinates); body b >= 1 has the coordinates
   q[off + 0..2] = x, y of its centre of mass and its angle theta (a rigid body), or of its frame's origin and angle
   followed by the nf elastic coordinates of its ROM (a flexible body in a floating frame, mbflex.c); spatial (dim 3): 7
   coordinates, the centre (a rigid body) or the frame's origin and the unit quaternion (mbspatial.c), then a flexible
   body's nf (mbflexspatial.c). */
#pragma once

#include "systemimpl.h"

#define VI_MB_NAME 64

/* A flexible body's elastic part: its ROM's floating-frame invariants (docs/frame.md) reduced to the planar ones of seed
   001 App. C (a spatial body: fr itself, S and mff, mbflexspatial.c), and the ROM's K and D on its elastic coordinates
   (mbflex.c). */
typedef struct {
  PetscInt          nf, dim;      /* dim: 2 planar, 3 spatial (mbflexspatial.c: its invariants are the ROM's /frame, fr) */
  PetscReal         m, I1[2], I2; /* mass, int rho x (Eq. 131), int rho x.x (Eq. 140) */
  PetscReal        *S;            /* dim x nf: int rho Phi_k (S-bar, Eq. 132) */
  PetscReal        *I3, *I4;      /* nf: int rho x.Phi_k, int rho (x Phi_k^y - y Phi_k^x) (Eq. 140) */
  PetscReal        *mff, *St;     /* nf x nf: int rho Phi_k.Phi_l (Eq. 138), int rho (Phi_k^x Phi_l^y - Phi_k^y Phi_l^x) (S~, Eq. 140) */
  PetscReal        *K, *D;        /* nf x nf: the ROM's stiffness and damping */
  const VIROMFrame *fr;           /* spatial: the ROM's invariants (owned by rom) */
  PetscReal         c;            /* spatial: the quaternion norm term's weight, 2 tr(I_thth(0)) / 3 (as mbspatial.c's) */
  VIROM             rom;
  PetscBool         static0;      /* 'initial: static': q0 is the quasi-static deflection at the start (mbstatic.c) */
  PetscReal        *q0;           /* nf: the initial elastic coordinates ('elastic: [...]' or mbstatic.c's); NULL: 0, undeformed */
} VIMBFlex;

typedef struct {
  char      name[VI_MB_NAME];
  PetscReal mass, inertia;        /* kg, kg m^2 (a rigid body) */
  PetscReal pose[7], velocity[7]; /* x, y, theta and their rates (spatial: x, y, z, the unit quaternion e0..e3 and their rates) */
  PetscReal J[9], c;              /* spatial: the inertia tensor in the body's frame (kg m^2) and the norm term's weight (mbspatial.c) */
  PetscReal torque[3];            /* spatial: the loads' torque in the body's frame (N m; VIMBSpatialForce) */
  PetscInt  line;                 /* of the file, for messages */
  PetscInt  off, nq;              /* its coordinates q[off .. off + nq - 1] (3, or 3 + nf for a flexible body; spatial 7, 7 + nf) */
  VIMBFlex *flex;                 /* NULL for a rigid body */
  PetscReal trig[3];              /* planar: the angle its rows were last evaluated at and its cosine, sine (VIMBBodyCosSin) */
} VIMBBody;

typedef enum { VI_MB_JOINT_REVOLUTE, VI_MB_JOINT_PRISMATIC, VI_MB_JOINT_FIXED, VI_MB_JOINT_DRIVER, VI_MB_JOINT_SPHERICAL } VIMBJointType;

/* A scalar function of absolute time (mbtime.c): value + speed t + amplitude sin(frequency t + phase), or, with a table of
   points (t_i, y_i), the C^2 cubic spline through them (not-a-knot ends, or clamped by given end rates), less its origin
   (a driver's: its value at the run's start; 0 otherwise). A driver's prescribed angle, a load's factor: one object for both. */
typedef struct {
  PetscReal  value, speed, amplitude, frequency, phase; /* the analytic form (npoints 0) */
  PetscReal  origin;                                    /* subtracted from the value (VIMBTimeFunctionSetOrigin) */
  PetscInt   npoints;                         /* the table's points, >= 2 (0: none) */
  PetscReal *t, *c;                           /* npoints times; 4 (npoints - 1) coefficients, y_i, y'_i and the cubic's two others per interval */
  char       source[PETSC_MAX_PATH_LEN + 32]; /* where the table was given (file:line), for messages */
} VIMBTimeFunction;

typedef struct {
  char          name[VI_MB_NAME];
  VIMBJointType type;
  PetscInt      body[2];     /* indices into bodies (0: ground) */
  PetscReal     point[2][3]; /* a point of each body, in the body's frame (x, y; spatial x, y, z) */
  PetscReal    *phi[2];      /* on a flexible body: the point's elastic displacement rows (dim x nf; NULL: none) */
  PetscReal     axis[2];     /* prismatic: the sliding direction in body[0]'s frame (unit) */
  PetscReal     hinge[3][3]; /* spatial revolute: its axis in body[0]'s frame, two normals to it in body[1]'s (unit);
                                spatial prismatic: its axis and two normals to it, all in body[0]'s frame */
  PetscReal     lock[3][16]; /* spatial fixed, prismatic: the relative rotation's rows p1^T lock_k p2 (4 x 4 each, mbspatial.c); spatial
                                driver: its angle's sine and cosine forms (VIMBSpatialDriverForms) */
  PetscReal     rel0[4];     /* spatial revolute: the relative rotation p1^* (x) p2 at the start, its joint_angle's zero */
  PetscReal     angle0;      /* prismatic, fixed, driver: theta_2 - theta_1 at the start (held by prismatic and fixed) */
  VIMBTimeFunction motion; /* driver: the prescribed change of theta_2 - theta_1 since the run's start t0, phi(t) less its origin phi(t0),
                              its row theta_2 - theta_1 - angle0 - phi(t); driven prismatic joint: of point2's position along the axis,
                              its row a . (P2 - P1) - slide0 - phi(t) */
  PetscBool     driven;    /* a driver, or a prismatic joint with a motion: its last row is rheonomic (minus phi(t), multibody.c) */
  PetscReal     slide0;    /* a driven prismatic joint: a . (P2 - P1) at the start (a = R1 axis) */
  PetscInt         nchain;    /* planar prismatic on a flexible body[0]: its rail, a chain of nchain points (mbchain.c; 0: a straight axis) */
  PetscReal       *chain_x;   /* 2 nchain: the rail's points in body[0]'s frame */
  PetscReal      **chain_phi; /* nchain: their node rows (2 x nf; NULL: the frame's point) */
  PetscInt      row, rows;   /* first constraint row and count */
  PetscInt      line;
} VIMBJoint;

/* A point of body[1] against the line of body[0] through line_point with unit normal line_normal (both in body[0]'s frame):
   g = n . (P - C), open when positive (spatial: against the ground's plane through line_point, normal line_normal). */
typedef struct {
  char      name[VI_MB_NAME];
  PetscInt  body[2];
  PetscReal  line_point[3], line_normal[3], point[3]; /* spatial: the ground's plane through line_point with unit normal line_normal */
  PetscReal *phi; /* the point on a flexible body: its elastic displacement rows (dim x nf; NULL: none) */
  PetscBool  two_point;      /* planar: the line through line_point and line_point2 of body[0] (mbpoint.c), not line_normal's */
  PetscReal  line_point2[2]; /* its second point, in body[0]'s frame */
  PetscReal *line_phi[2];    /* the two points' node rows on a flexible body[0] (2 x nf; NULL: none) */
  PetscReal  sigma;          /* its normal is sigma J (B - A) / |B - A| (+1: the left of A to B; -1: the right) */
  PetscInt    nchain;         /* planar: a chain of segments through nchain points of body[0] (mbchain.c; two_point set too), 0: none */
  PetscReal  *chain_x;        /* 2 nchain: the chain's points in body[0]'s frame */
  PetscReal **chain_phi;      /* nchain: each point's node rows on a flexible body[0] (2 x nf; NULL: the frame's point) */
  PetscReal restitution, mu;
  PetscInt  row, line;
} VIMBContact;

typedef enum {
  VI_MB_OUT_POINT,
  VI_MB_OUT_ANGLE,
  VI_MB_OUT_JOINT_ANGLE,
  VI_MB_OUT_CONTACT_FORCE,
  VI_MB_OUT_JOINT_FORCE,
  VI_MB_OUT_ENERGY,
  VI_MB_OUT_ORIENTATION,      /* spatial: the unit quaternion, NAME_e0 .. NAME_e3 */
  VI_MB_OUT_ANGULAR_VELOCITY, /* spatial: omega in the fixed frame, NAME_x, NAME_y, NAME_z */
  VI_MB_OUT_SPRING_FORCE,     /* a spring-damper's tension N = k (l - L0) + c dl/dt (mbspring.c) */
  VI_MB_OUT_JOINT_SLIDE,      /* a prismatic joint's slide along its axis and its rate, NAME, NAME_rate (mbjoint.c) */
  VI_MB_OUT_PRESCRIBED        /* a driven joint's prescribed coordinate and its rate, NAME, NAME_rate (mbjoint.c) */
} VIMBOutputType;

/* One named output; a point gives four columns (NAME_x, NAME_y, NAME_vx, NAME_vy; spatial six, with NAME_z and NAME_vz),
   an angle two (NAME, NAME_rate), a joint's force two (NAME_x, NAME_y; a spherical joint's three), the others one. */
typedef struct {
  char           name[VI_MB_NAME];
  VIMBOutputType type;
  PetscInt       body, index; /* the body (point, angle), or the joint, contact or spring (index) */
  PetscReal      point[3];
  PetscReal     *phi; /* a point of a flexible body: its elastic displacement rows (dim x nf; NULL: none) */
  PetscInt       columns;
} VIMBOutput;

/* A force and torque on a body's centre of mass (N, N m), e.g. a driving torque, constant or scaled by a factor s(t). Planar: force (x, y) and the
   torque about z in torque[2]; spatial: the force in the fixed frame and the torque in the body's frame (it turns with the
   body, as a motor's does). */
typedef struct {
  PetscInt          body;
  PetscReal         force[3], torque[3];
  VIMBTimeFunction *factor; /* the loads' scale s(t) (NULL: constant, 1) */
} VIMBLoad;

/* A linear spring-damper between a point of body[0] and one of body[1] (in their frames; a flexible body's frame point):
   the tension N = k (l - L0) + c dl/dt along the line between them, l their distance (mbspring.c). */
typedef struct {
  char      name[VI_MB_NAME];
  PetscInt  body[2];
  PetscReal point[2][3];
  PetscReal *phi[2];   /* a point on a flexible body moved by its node rows (dim x nf; NULL: the frame's point) */
  PetscReal k, c, L0; /* N/m, N s/m, m */
  PetscInt  line;
} VIMBSpring;

typedef struct {
  char         path[PETSC_MAX_PATH_LEN];
  PetscInt     dim; /* 2 (planar, the default) or 3 (spatial: model key 'dim: 3', mbspatial.c) */
  PetscReal    gravity[3];
  PetscInt     nbodies; /* including the ground */
  VIMBBody    *bodies;
  PetscInt     njoints, ncontacts, nloads, nsprings, noutputs, ncolumns;
  VIMBJoint   *joints;
  VIMBSpring  *springs;
  VIMBContact *contacts;
  VIMBLoad    *loads;
  VIMBOutput  *outputs;
  PetscInt     n, nrows;  /* coordinates; constraint rows (joints' bilateral rows first, then one per contact) */
  PetscInt     qrow;      /* spatial: the first quaternion norm row (one per body, after the joints' rows, before the contacts) */
  PetscReal    tolerance; /* the joints' initial residual accepted (model key assembly_tolerance) */
  PetscInt     nparams;   /* the 'parameters:' section: names and values (after -mb_param_NAME) */
  char (*param_names)[VI_MB_NAME];
  PetscReal *param_values;
} VIMBModel;

/* Rotation of v by theta, and its derivatives: R' v = R J v (J a quarter turn), R'' v = -R v. */
static inline void VIMBRotate(PetscReal th, const PetscReal v[2], PetscReal r[2], PetscReal r1[2])
{
  const PetscReal c = PetscCosReal(th), s = PetscSinReal(th);
  r[0]  = c * v[0] - s * v[1];
  r[1]  = s * v[0] + c * v[1];
  r1[0] = -r[1];
  r1[1] = r[0];
}

/* cos and sin of th, the angle of body b (0: the ground): each row of a Newton iteration asks for its bodies' angles, and
   a body's cosine and sine are computed once per configuration (the last angle is kept; the same value gives the same
   numbers, so the rows are those computed without it, bitwise). */
static inline void VIMBBodyCosSin(const VIMBModel *model, PetscInt b, PetscReal th, PetscReal *c, PetscReal *s)
{
  PetscReal *tr = model->bodies[b].trig;
  if (th != tr[0] || (tr[1] == 0 && tr[2] == 0)) {
    tr[0] = th;
    tr[1] = PetscCosReal(th);
    tr[2] = PetscSinReal(th);
  }
  *c = tr[1];
  *s = tr[2];
}

/* VIMBRotate with the cosine and sine given */
static inline void VIMBRotateCS(PetscReal c, PetscReal s, const PetscReal v[2], PetscReal r[2], PetscReal r1[2])
{
  r[0]  = c * v[0] - s * v[1];
  r[1]  = s * v[0] + c * v[1];
  r1[0] = -r[1];
  r1[1] = r[0];
}

/* text as an arithmetic expression of the np parameters (mbexpr.c); PETSC_FALSE with a message in err when it is not one. */
PETSC_INTERN PetscBool VIMBExpressionEvaluate(const char text[], PetscInt np, const char names[][VI_MB_NAME], const PetscReal values[], PetscReal *x,
                                              char err[], size_t len);
/* A time function (mbtime.c): the analytic form; the spline through n points (t strictly increasing, n >= 2) clamped by the
   end rates rates[0], rates[1] (NULL: not-a-knot ends), refused on comm naming source; its value and two derivatives at t
   (beyond the table: its end cubics continued; any output may be NULL); the table's span; free. */
PETSC_INTERN void VIMBTimeFunctionSetAnalytic(VIMBTimeFunction *f, PetscReal value, PetscReal speed, PetscReal amplitude, PetscReal frequency,
                                              PetscReal phase);
/* its origin: its value at t0 (a driver's at the run's start), subtracted from then on */
PETSC_INTERN void           VIMBTimeFunctionSetOrigin(VIMBTimeFunction *f, PetscReal t0);
PETSC_INTERN PetscErrorCode VIMBTimeFunctionSetTable(MPI_Comm comm, VIMBTimeFunction *f, const char source[], PetscInt n, const PetscReal t[],
                                                     const PetscReal y[], const PetscReal rates[]);
PETSC_INTERN void           VIMBTimeFunctionEvaluate(const VIMBTimeFunction *f, PetscReal t, PetscReal *y, PetscReal *dy, PetscReal *ddy);
PETSC_INTERN PetscErrorCode VIMBTimeFunctionCheckSpan(MPI_Comm comm, const VIMBTimeFunction *f, const char what[], PetscReal t0, PetscReal t1);
PETSC_INTERN PetscErrorCode VIMBTimeFunctionReset(VIMBTimeFunction *f);
/* A table of two columns 'time, value' from a CSV file (blank lines and '#' comments skipped, one header line allowed): n
   points in t, y (allocated), refused with the file and line. */
PETSC_INTERN PetscErrorCode VIMBTimeTableReadCSV(MPI_Comm comm, const char path[], PetscInt *n, PetscReal **t, PetscReal **y);
PETSC_INTERN PetscErrorCode VIMBModelLoad(MPI_Comm comm, const char path[], VIMBModel *model);
PETSC_INTERN PetscErrorCode VIMBModelFree(VIMBModel *model);
/* The run's start t0: the drivers' motions take their origin there, and the initial velocities must give their rates. */
PETSC_INTERN PetscErrorCode VIMBModelSetStart(MPI_Comm comm, VIMBModel *model, PetscReal t0);
/* M(q) of the whole model (n x n; q NULL: the initial poses). */
PETSC_INTERN PetscErrorCode VIMBModelMass(const VIMBModel *model, const PetscReal q[], PetscReal M[]);
/* The initial q and u of the model's bodies (elastic coordinates 0). */
PETSC_INTERN PetscErrorCode VIMBModelInitialState(const VIMBModel *model, PetscReal q[], PetscReal u[]);
/* 'initial: static': the flexible bodies' quasi-static elastic coordinates at the start into q (and their q0), the frames and
   u held (mbstatic.c) */
PETSC_INTERN PetscErrorCode VIMBModelStaticElastic(VISystem sys, VIMBModel *model, PetscReal q[], const PetscReal u[]);
/* Row r of the constraints (joint rows, then contacts) at q: g_r, its gradient (n) and Hessian (n x n) added times w to H
   (any output may be NULL). */
PETSC_INTERN PetscErrorCode VIMBModelConstraint(const VIMBModel *model, PetscInt r, const PetscReal q[], PetscReal *g, PetscReal grad[], PetscReal w,
                                                PetscReal H[]);
/* The bodies of row r (0: the ground; a row of one body has a = 0): its gradient and Hessian live in their coordinates. */
PETSC_INTERN void VIMBModelRowBodies(const VIMBModel *model, PetscInt r, PetscInt *a, PetscInt *b);
/* The tangential (friction) row of contact k at q: its gradient (n), the relative sliding velocity being grad . u. */
PETSC_INTERN PetscErrorCode VIMBModelTangent(const VIMBModel *model, PetscInt k, const PetscReal q[], PetscReal grad[]);
/* A flexible body (mbflex.c): read its ROM (path relative to the working folder) with its frame invariants, refused
   with the model file and line when absent; free it. */
PETSC_INTERN PetscErrorCode VIMBFlexLoad(MPI_Comm comm, const char model_path[], PetscInt line, const char body[], const char rom_path[],
                                         PetscInt dim, VIMBFlex **flex);
PETSC_INTERN PetscErrorCode VIMBFlexDestroy(VIMBFlex **flex);
/* x += Phi_P q_f: a point's deformed position in the frame (phi 2 x nf). */
PETSC_INTERN void VIMBFlexDisplace(const VIMBFlex *flex, const PetscReal phi[], const PetscReal qf[], PetscReal x[2]);
/* The rows phi (dim x nf, allocated) of the ROM's outputs NAME_x, NAME_y (and NAME_z, spatial) (refused naming the model file and line). */
PETSC_INTERN PetscErrorCode VIMBFlexNode(MPI_Comm comm, const VIMBFlex *flex, const char model_path[], PetscInt line, const char body[],
                                         const char node[], PetscReal **phi);
/* The flexible body's mass matrix at its local coordinates z = (R, theta, q_f) (nq x nq, row-major), and with dM non-NULL
   dM[a] = dM/dz_a (nq x nq each) (seed 001 Eqs. 126-140). */
PETSC_INTERN void VIMBFlexMass(const VIMBFlex *flex, const PetscReal z[], PetscReal M[], PetscReal dM[]);
/* Its generalized forces at (z, w = dz/dt): the quadratic velocity vector (Eqs. 146-153), gravity (Eqs. 167-169), -K q_f
   - D dq_f/dt, added into f (nq), and their tangents into dfdz, dfdw (nq x nq, either may be NULL); work: nq^3 + 3 nq^2. */
PETSC_INTERN void VIMBFlexForce(const VIMBFlex *flex, const PetscReal g[2], const PetscReal z[], const PetscReal w[], PetscReal f[], PetscReal dfdz[],
                                PetscReal dfdw[], PetscReal work[]);
/* T = w^T M w / 2 and V = -g . (m R + A (I_1 + S q_f)) + q_f^T K q_f / 2. work: nq^2. */
PETSC_INTERN void VIMBFlexEnergy(const VIMBFlex *flex, const PetscReal g[2], const PetscReal z[], const PetscReal w[], PetscReal *T, PetscReal *V,
                                 PetscReal work[]);
/* Q_v = -dM/dt w + 1/2 d(w^T M w)/dz added into f (nq) and its w-tangent into dfdw (NULL: not asked), from dM[a] = dM/dz_a
   (nq x nq each); B and Md (nq x nq each) get (dM/dz_a w)_i at [i][a] and dM/dt (Lagrange's equations with M(z), mbflex.c). */
PETSC_INTERN void VIMBFlexLagrange(PetscInt nq, const PetscReal dM[], const PetscReal w[], PetscReal f[], PetscReal dfdw[], PetscReal B[],
                                   PetscReal Md[]);
/* Spatial flexible bodies (mbflexspatial.c): z = (R, p, q_f) (3 + 4 + nf), R the frame's origin, p its unit quaternion.
   The mass (nq x nq) and with dM non-NULL dM[a] = dM/dz_a; the generalized forces (quadratic velocity vector, gravity g,
   the loads' torque tau in the frame (NULL: none), -K q_f - D dq_f/dt) added into f with their tangents (either NULL;
   work: VIMBFlexSpatialWorkSize); T and V. */
PETSC_INTERN PetscInt       VIMBFlexSpatialWorkSize(PetscInt nq);
PETSC_INTERN PetscErrorCode VIMBFlexSpatialSetUp(VIMBFlex *flex);
PETSC_INTERN void           VIMBFlexSpatialMass(const VIMBFlex *flex, const PetscReal z[], PetscReal M[], PetscReal dM[], PetscReal work[]);
/* dQ_v/dz of the quadratic velocity vector (its tangent in VIMBFlexSpatialForce) added into dfdz (nq x nq): written out, or
   (hyperdual) by hyper-dual numbers, the reference (test_mbflexspatial); work: VIMBFlexSpatialWorkSize */
PETSC_INTERN void VIMBFlexSpatialQvTangent(const VIMBFlex *flex, const PetscReal z[], const PetscReal w[], PetscBool hyperdual, PetscReal dfdz[],
                                           PetscReal work[]);
/* the same M and dM by hyper-dual numbers (the reference of the written-out derivatives, test_mbflexspatial) */
PETSC_INTERN void VIMBFlexSpatialMassHyperDual(const VIMBFlex *flex, const PetscReal z[], PetscReal M[], PetscReal dM[], PetscReal work[]);
PETSC_INTERN void VIMBFlexSpatialForce(const VIMBFlex *flex, const PetscReal g[], const PetscReal tau[], const PetscReal z[], const PetscReal w[],
                                       PetscReal f[], PetscReal dfdz[], PetscReal dfdw[], PetscReal work[]);
PETSC_INTERN void VIMBFlexSpatialEnergy(const VIMBFlex *flex, const PetscReal g[], const PetscReal z[], const PetscReal w[], PetscReal *T,
                                        PetscReal *V, PetscReal work[]);
/* s = x + Phi q_f: a point's deformed position in the frame (phi 3 x nf; NULL: x) */
PETSC_INTERN void VIMBFlexSpatialDisplace(const VIMBFlex *flex, const PetscReal phi[], const PetscReal x[], const PetscReal qf[], PetscReal s[]);
/* G(p) (3 x 4, mbspatial.c) */
PETSC_INTERN void VIMBQuatG(const PetscReal p[], PetscReal G[]);
/* Spatial rigid bodies (mbspatial.c): z = (r, p), the centre of mass and a unit quaternion p = (e0, e1, e2, e3), w = dz/dt.
   The mass block (7 x 7) at z, and d(M w)/dz (7 x 7, [i][a]); the quadratic velocity vector added into f (7) with its
   tangents into dfdz, dfdw (7 x 7, either NULL); T and V (gravity g, 3). */
PETSC_INTERN void VIMBSpatialMass(const VIMBBody *bd, const PetscReal z[], PetscReal M[]);
PETSC_INTERN void VIMBSpatialMassJacobian(const VIMBBody *bd, const PetscReal z[], const PetscReal w[], PetscReal dMw[]);
PETSC_INTERN void VIMBSpatialForce(const VIMBBody *bd, const PetscReal z[], const PetscReal w[], PetscReal f[], PetscReal dfdz[], PetscReal dfdw[]);
PETSC_INTERN void VIMBSpatialEnergy(const VIMBBody *bd, const PetscReal g[], const PetscReal z[], const PetscReal w[], PetscReal *T, PetscReal *V);
/* The rotation matrix R(p) (3 x 3, row-major; a rotation when |p| = 1), and w_b = 2 G(p) dp/dt the body-frame angular velocity */
PETSC_INTERN void VIMBQuatRotation(const PetscReal p[], PetscReal R[]);
PETSC_INTERN void VIMBQuatOmega(const PetscReal p[], const PetscReal pd[], PetscReal wb[]);
/* dp/dt = G(p)^T w_b / 2 for a body-frame angular velocity w_b */
PETSC_INTERN void VIMBQuatRate(const PetscReal p[], const PetscReal wb[], PetscReal pd[]);
/* Row r of a spatial model (spherical joints' rows, the quaternions' norm rows), as VIMBModelConstraint. */
PETSC_INTERN PetscErrorCode VIMBSpatialConstraint(const VIMBModel *model, PetscInt r, const PetscReal q[], PetscReal *g, PetscReal grad[],
                                                  PetscReal w, PetscReal H[]);
/* A spatial contact's plane tangents t1, t2 (unit, t2 = n x t1) and its two tangential rows (2 x n, along t1 and t2:
   the relative sliding velocity is grad . u), the frictional contact's rows of VISystemEvaluateTangents. */
PETSC_INTERN void           VIMBSpatialContactTangents(const PetscReal nv[], PetscReal t[2][3]);
PETSC_INTERN PetscErrorCode VIMBSpatialTangent(const VIMBModel *model, PetscInt k, const PetscReal q[], PetscReal grad[]);
/* A spatial fixed or prismatic joint's rotation rows (j->lock) from its bodies' initial quaternions (p1 the ground's
   identity when body[0] is the ground). */
PETSC_INTERN void VIMBSpatialLock(const PetscReal p1[], const PetscReal p2[], PetscReal lock[3][16]);
/* The columns of a spatial output (point, orientation, angular_velocity) at (q, u) into y. */
PETSC_INTERN void VIMBSpatialOutput(const VIMBModel *model, const VIMBOutput *o, const PetscReal q[], const PetscReal u[], PetscReal y[]);
PETSC_INTERN void VIMBSpatialRelative(const PetscReal p1[], const PetscReal p2[], PetscReal r[]);
PETSC_INTERN void VIMBSpatialDriverForms(const PetscReal p1[], const PetscReal p2[], const PetscReal a[], PetscReal forms[3][16]);
/* (R(p) s)_i = p^T A_i p, A_i symmetric 4 x 4 (mbspatial.c) */
PETSC_INTERN void VIMBQuatForms(const PetscReal s[], PetscReal A[3][16]);
/* The springs' distance l of spring k at q (refused on comm when 0: no direction), their forces added into f (n) and their
   exact tangents into dfdq, dfdu (n x n, row-major; any may be NULL), their potential sum k (l - L0)^2 / 2, and spring k's
   tension at (q, u) (mbspring.c). */
PETSC_INTERN PetscErrorCode VIMBSpringLength(MPI_Comm comm, const VIMBModel *model, PetscInt k, const PetscReal q[], PetscReal *len);
PETSC_INTERN PetscErrorCode VIMBSpringForce(MPI_Comm comm, const VIMBModel *model, const PetscReal q[], const PetscReal u[], PetscReal f[],
                                            PetscReal dfdq[], PetscReal dfdu[]);
PETSC_INTERN PetscErrorCode VIMBSpringEnergy(MPI_Comm comm, const VIMBModel *model, const PetscReal q[], PetscReal *V);
PETSC_INTERN PetscErrorCode VIMBSpringTension(MPI_Comm comm, const VIMBModel *model, PetscInt k, const PetscReal q[], const PetscReal u[],
                                              PetscReal *N);
/* A point of a body (mbpoint.c): its body, its coordinates' count nq (0: the ground), its position X and its Jacobian
   J = dX/dz (dim x nq, row-major; the caller's array); spatial: also its quaternion p, its deformed position s in the
   frame and its node rows phi (3 x nf; NULL: none), which give its curvature. */
typedef struct {
  PetscInt         body, nq, dim, nf;
  PetscReal        X[3], s[3];
  PetscReal       *J;
  const PetscReal *p, *phi;
} VIMBPoint;
/* nq of body b's points (0 for the ground) */
PETSC_INTERN PetscInt VIMBPointSize(const VIMBModel *model, PetscInt b);
/* The point x of body b (its frame), on a flexible body moved by the node rows phi (NULL: none), at q. */
PETSC_INTERN void VIMBPointEvaluate(const VIMBModel *model, PetscInt b, const PetscReal x[], const PetscReal phi[], const PetscReal q[],
                                    VIMBPoint *pt);
/* A scalar of m points with its gradient gX (dim m) and Hessian HX (dim m x dim m) in their positions: its gradient added
   into gz and w times its Hessian into Hz (nz x nz; NULL: none), on the compact coordinates where point p's start at base[p]. */
PETSC_INTERN void VIMBPointChain(PetscInt m, const VIMBPoint pts[], const PetscInt base[], const PetscReal gX[], const PetscReal HX[], PetscInt nz,
                                 PetscReal gz[], PetscReal w, PetscReal Hz[]);
/* A contact against a two-point line (c->two_point): its row as VIMBModelConstraint (grad added to, zeroed by the caller)
   and its tangential row added into grad. */
PETSC_INTERN PetscErrorCode VIMBLineRow(const VIMBModel *model, const VIMBContact *c, const PetscReal q[], PetscReal *g, PetscReal grad[],
                                        PetscReal w, PetscReal H[]);
PETSC_INTERN PetscErrorCode VIMBLineTangent(const VIMBModel *model, const VIMBContact *c, const PetscReal q[], PetscReal grad[]);
/* A spatial row g = (R1 nv) . (P2 - P1): the point P2 (s2 in body[1]'s frame, moved by the node rows phi2; NULL: none)
   against the plane of body[0] through P1 (s1, phi1) with normal nv in its frame (the ground's: fixed), its gradient (n,
   set at its bodies' coordinates) and w times its Hessian added into H (n x n) (any output may be NULL; mbpoint.c). A
   contact against a plane, a prismatic joint's rows. */
PETSC_INTERN PetscErrorCode VIMBPlaneRow(const VIMBModel *model, const PetscInt body[2], const PetscReal nv[], const PetscReal s1[],
                                         const PetscReal phi1[], const PetscReal s2[], const PetscReal phi2[], const PetscReal q[], PetscReal *g,
                                         PetscReal grad[], PetscReal w, PetscReal H[]);
/* A contact against a chain of segments (c->nchain, mbchain.c): the segment whose distance to the contact's point is the
   least at q, its index; the contact's row and tangential row against that segment's line (VIMBLineRow, VIMBLineTangent). */
PETSC_INTERN PetscErrorCode VIMBChainSegment(const VIMBModel *model, const VIMBContact *c, const PetscReal q[], PetscInt *seg);
PETSC_INTERN PetscErrorCode VIMBChainRow(const VIMBModel *model, const VIMBContact *c, const PetscReal q[], PetscReal *g, PetscReal grad[],
                                         PetscReal w, PetscReal H[]);
PETSC_INTERN PetscErrorCode VIMBChainTangent(const VIMBModel *model, const VIMBContact *c, const PetscReal q[], PetscReal grad[]);
/* A prismatic joint's rail (j->nchain) as the chain contact of its point2 (its first row, bilateral: the gap held at 0). */
PETSC_INTERN void VIMBChainOfJoint(const VIMBJoint *j, VIMBContact *c);
/* The rows of a planar model of rigid bodies whose contacts are against lines of given normals (VIMBRigidApplies), in one
   pass per configuration (mbrigid.c): each row's bodies, coordinates (-1: the ground) and vectors listed once. A row is
   an angle row th_b - th_a - shift, or d . (r_b + R_b p - r_a - R_a c) - shift with d = R_a n0 (turn) or the fixed d. */
typedef struct {
  PetscBool angle, turn, same; /* same: the row before's points and D (a joint's y row after its x row) */
  PetscInt  a, b, oa, ob;
  PetscReal p[2], c[2], n0[2], d[2], shift;
} VIMBRigidRow;
/* A row at q: g, its gradient at body b's (x, y, theta) and body a's, its Hessian's entries th_b th_b, th_a th_a, th_a th_b,
   and d1 = J d (th_a x_a: -d1, th_a x_b: +d1) */
typedef struct {
  PetscReal g, gb[3], ga[3], hbb, haa, hab, d1[2];
} VIMBRigidEval;
typedef struct {
  PetscInt       nrows;
  VIMBRigidRow  *row;
  VIMBRigidEval *ev; /* the rows at the last VIMBRigidEvaluate */
  PetscReal     *cs; /* each body's cosine and sine there (2 per body, the ground's 1, 0) */
  PetscInt      *ptr, *cols; /* row r's coordinates cols[ptr[r] .. ptr[r + 1]), ascending: its two bodies' (VISystemGetConstraintColumns) */
} VIMBRigid;
PETSC_INTERN PetscBool      VIMBRigidApplies(const VIMBModel *model);
PETSC_INTERN PetscErrorCode VIMBRigidCreate(const VIMBModel *model, VIMBRigid *rg);
PETSC_INTERN PetscErrorCode VIMBRigidDestroy(VIMBRigid *rg);
/* every row at q into rg->ev (hess: with their Hessians) */
PETSC_INTERN void VIMBRigidEvaluate(const VIMBModel *model, VIMBRigid *rg, const PetscReal q[], PetscBool hess);
/* G, HV = d(G v)/dq and Hw = d(G^T w)/dq (VISystemComputeConstraintDerivatives's) from rg->ev; any may be NULL */
PETSC_INTERN void VIMBRigidDerivatives(const VIMBRigid *rg, PetscInt n, const PetscReal v[], const PetscReal w[], PetscReal G[], PetscReal HV[],
                                       PetscReal Hw[]);
/* contact k's tangential row (VIMBModelTangent's) into grad (n, zeroed by the caller) */
PETSC_INTERN void VIMBRigidTangent(const VIMBModel *model, PetscInt k, const PetscReal q[], PetscReal grad[]);
/* A prismatic joint's slide s = a . (P2 - P1) along its axis a = R1 axis and its rate at (q, u); a driven joint's prescribed
   coordinate (planar theta_2 - theta_1 or s, as joint_angle and joint_slide record them; a spatial driver's angle from the
   start) and its rate at t (mbjoint.c). */
PETSC_INTERN void VIMBJointSlide(const VIMBModel *model, const VIMBJoint *j, const PetscReal q[], const PetscReal u[], PetscReal *s, PetscReal *sd);
PETSC_INTERN void VIMBJointPrescribed(const VIMBModel *model, const VIMBJoint *j, PetscReal t, PetscReal *y, PetscReal *yd);
/* The ROM view of the model (sizes, M, contacts, outputs, units). */
PETSC_INTERN PetscErrorCode VIMBModelROM(const VIMBModel *model, VIROM rom);
