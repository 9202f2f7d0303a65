/* Private layout of a planar multibody model (src/system/mbmodel.c reads it from a YAML file, multibody.c is the system
   type built on it; docs/multibody.md). Body 0 is the ground (no coordinates); body b >= 1 has the coordinates
   q[off + 0..2] = x, y of its centre of mass and its angle theta (a rigid body), or of its frame's origin and angle
   followed by the nf elastic coordinates of its ROM (a flexible body in a floating frame, mbflex.c). */
#pragma once

#include "systemimpl.h"

#define VI_MB_NAME 64

/* A flexible body's elastic part: its ROM's floating-frame invariants (docs/frame.md) reduced to the planar ones of seed
   001 App. C, and the ROM's K and D on its elastic coordinates (mbflex.c). */
typedef struct {
  PetscInt   nf;
  PetscReal  m, I1[2], I2; /* mass, int rho x (Eq. 131), int rho x.x (Eq. 140) */
  PetscReal *S;            /* 2 x nf: int rho Phi_k (S-bar, Eq. 132) */
  PetscReal *I3, *I4;      /* nf: int rho x.Phi_k, int rho (x Phi_k^y - y Phi_k^x) (Eq. 140) */
  PetscReal *mff, *St;     /* nf x nf: int rho Phi_k.Phi_l (Eq. 138), int rho (Phi_k^x Phi_l^y - Phi_k^y Phi_l^x) (S~, Eq. 140) */
  PetscReal *K, *D;        /* nf x nf: the ROM's stiffness and damping */
  VIROM      rom;
} VIMBFlex;

typedef struct {
  char      name[VI_MB_NAME];
  PetscReal mass, inertia;        /* kg, kg m^2 (a rigid body) */
  PetscReal pose[3], velocity[3]; /* x, y, theta and their rates */
  PetscInt  line;                 /* of the file, for messages */
  PetscInt  off, nq;              /* its coordinates q[off .. off + nq - 1] (3, or 3 + nf for a flexible body) */
  VIMBFlex *flex;                 /* NULL for a rigid body */
} VIMBBody;

typedef enum { VI_MB_JOINT_REVOLUTE, VI_MB_JOINT_PRISMATIC, VI_MB_JOINT_FIXED, VI_MB_JOINT_DRIVER } VIMBJointType;

typedef struct {
  char          name[VI_MB_NAME];
  VIMBJointType type;
  PetscInt      body[2];     /* indices into bodies (0: ground) */
  PetscReal     point[2][2]; /* a point of each body, in the body's frame */
  PetscReal    *phi[2];      /* on a flexible body: the point's elastic displacement rows (2 x nf; NULL: none) */
  PetscReal     axis[2];     /* prismatic: the sliding direction in body[0]'s frame (unit) */
  PetscReal     angle0;      /* prismatic, fixed, driver: theta_2 - theta_1 at the start (held by prismatic and fixed) */
  PetscReal     speed;       /* driver: the prescribed rate of theta_2 - theta_1 (rad/s), its row theta_2 - theta_1 - angle0 - speed t */
  PetscInt      row, rows;   /* first constraint row and count */
  PetscInt      line;
} VIMBJoint;

/* A point of body[1] against the line of body[0] through line_point with unit normal line_normal (both in body[0]'s frame):
   g = n . (P - C), open when positive. */
typedef struct {
  char      name[VI_MB_NAME];
  PetscInt  body[2];
  PetscReal line_point[2], line_normal[2], point[2];
  PetscReal *phi; /* the point on a flexible body: its elastic displacement rows (2 x nf; NULL: none) */
  PetscReal restitution, mu;
  PetscInt  row, line;
} VIMBContact;

typedef enum {
  VI_MB_OUT_POINT,
  VI_MB_OUT_ANGLE,
  VI_MB_OUT_JOINT_ANGLE,
  VI_MB_OUT_CONTACT_FORCE,
  VI_MB_OUT_JOINT_FORCE,
  VI_MB_OUT_ENERGY
} VIMBOutputType;

/* One named output; a point gives four columns (NAME_x, NAME_y, NAME_vx, NAME_vy), an angle two (NAME, NAME_rate), a
   joint's force two (NAME_x, NAME_y), the others one. */
typedef struct {
  char           name[VI_MB_NAME];
  VIMBOutputType type;
  PetscInt       body, index; /* the body (point, angle), or the joint or contact (index) */
  PetscReal      point[2];
  PetscReal     *phi; /* a point of a flexible body: its elastic displacement rows (2 x nf; NULL: none) */
  PetscInt       columns;
} VIMBOutput;

/* A constant force and torque on a body's centre of mass (N, N m), e.g. a driving torque. */
typedef struct {
  PetscInt  body;
  PetscReal force[2], torque;
} VIMBLoad;

typedef struct {
  char         path[PETSC_MAX_PATH_LEN];
  PetscReal    gravity[2];
  PetscInt     nbodies; /* including the ground */
  VIMBBody    *bodies;
  PetscInt     njoints, ncontacts, nloads, noutputs, ncolumns;
  VIMBJoint   *joints;
  VIMBContact *contacts;
  VIMBLoad    *loads;
  VIMBOutput  *outputs;
  PetscInt     n, nrows;  /* coordinates; constraint rows (joints' bilateral rows first, then one per contact) */
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

/* text as an arithmetic expression of the np parameters (mbexpr.c); PETSC_FALSE with a message in err when it is not one. */
PETSC_INTERN PetscBool VIMBExpressionEvaluate(const char text[], PetscInt np, const char names[][VI_MB_NAME], const PetscReal values[], PetscReal *x,
                                              char err[], size_t len);
PETSC_INTERN PetscErrorCode VIMBModelLoad(MPI_Comm comm, const char path[], VIMBModel *model);
PETSC_INTERN PetscErrorCode VIMBModelFree(VIMBModel *model);
/* M(q) of the whole model (n x n; q NULL: the initial poses). */
PETSC_INTERN PetscErrorCode VIMBModelMass(const VIMBModel *model, const PetscReal q[], PetscReal M[]);
/* The initial q and u of the model's bodies (elastic coordinates 0). */
PETSC_INTERN PetscErrorCode VIMBModelInitialState(const VIMBModel *model, PetscReal q[], PetscReal u[]);
/* Row r of the constraints (joint rows, then contacts) at q: g_r, its gradient (n) and Hessian (n x n) added times w to H
   (any output may be NULL). */
PETSC_INTERN PetscErrorCode VIMBModelConstraint(const VIMBModel *model, PetscInt r, const PetscReal q[], PetscReal *g, PetscReal grad[], PetscReal w,
                                                PetscReal H[]);
/* The tangential (friction) row of contact k at q: its gradient (n), the relative sliding velocity being grad . u. */
PETSC_INTERN PetscErrorCode VIMBModelTangent(const VIMBModel *model, PetscInt k, const PetscReal q[], PetscReal grad[]);
/* A flexible body (mbflex.c): read its ROM (path relative to the working folder) with its frame invariants, refused
   with the model file and line when absent; free it. */
PETSC_INTERN PetscErrorCode VIMBFlexLoad(MPI_Comm comm, const char model_path[], PetscInt line, const char body[], const char rom_path[],
                                         VIMBFlex **flex);
PETSC_INTERN PetscErrorCode VIMBFlexDestroy(VIMBFlex **flex);
/* x += Phi_P q_f: a point's deformed position in the frame (phi 2 x nf). */
PETSC_INTERN void VIMBFlexDisplace(const VIMBFlex *flex, const PetscReal phi[], const PetscReal qf[], PetscReal x[2]);
/* The rows phi (2 x nf, allocated) of the ROM's outputs NAME_x and NAME_y (refused naming the model file and line). */
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
/* The ROM view of the model (sizes, M, contacts, outputs, units). */
PETSC_INTERN PetscErrorCode VIMBModelROM(const VIMBModel *model, VIROM rom);
