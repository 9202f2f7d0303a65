/* Private layout of a planar multibody model (src/system/mbmodel.c reads it from a YAML file, multibody.c is the system
   type built on it; docs/multibody.md). Body 0 is the ground (no coordinates); body b >= 1 has the coordinates
   q[3 (b - 1) + 0..2] = x, y of its centre of mass and its angle theta. */
#pragma once

#include "systemimpl.h"

#define VI_MB_NAME 64

typedef struct {
  char      name[VI_MB_NAME];
  PetscReal mass, inertia;        /* kg, kg m^2 */
  PetscReal pose[3], velocity[3]; /* x, y, theta and their rates */
  PetscInt  line;                 /* of the file, for messages */
} VIMBBody;

typedef enum { VI_MB_JOINT_REVOLUTE, VI_MB_JOINT_PRISMATIC, VI_MB_JOINT_FIXED, VI_MB_JOINT_DRIVER } VIMBJointType;

typedef struct {
  char          name[VI_MB_NAME];
  VIMBJointType type;
  PetscInt      body[2];     /* indices into bodies (0: ground) */
  PetscReal     point[2][2]; /* a point of each body, in the body's frame */
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

/* text as an arithmetic expression of the np parameters (mbexpr.c); PETSC_FALSE with a message in err when it is not one. */
PETSC_INTERN PetscBool VIMBExpressionEvaluate(const char text[], PetscInt np, const char names[][VI_MB_NAME], const PetscReal values[], PetscReal *x,
                                              char err[], size_t len);
PETSC_INTERN PetscErrorCode VIMBModelLoad(MPI_Comm comm, const char path[], VIMBModel *model);
PETSC_INTERN PetscErrorCode VIMBModelFree(VIMBModel *model);
/* Row r of the constraints (joint rows, then contacts) at q: g_r, its gradient (n) and Hessian (n x n) added times w to H
   (any output may be NULL). */
PETSC_INTERN PetscErrorCode VIMBModelConstraint(const VIMBModel *model, PetscInt r, const PetscReal q[], PetscReal *g, PetscReal grad[], PetscReal w,
                                                PetscReal H[]);
/* The tangential (friction) row of contact k at q: its gradient (n), the relative sliding velocity being grad . u. */
PETSC_INTERN PetscErrorCode VIMBModelTangent(const VIMBModel *model, PetscInt k, const PetscReal q[], PetscReal grad[]);
/* The ROM view of the model (sizes, M, contacts, outputs, units). */
PETSC_INTERN PetscErrorCode VIMBModelROM(const VIMBModel *model, VIROM rom);
