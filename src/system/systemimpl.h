/* Private layout of the system module: the common part of a VISystem, its type's ops and data. */
#pragma once

#include <vicms/system.h>

#define VI_MAX_LOADS    64
#define VI_MAX_CONTACTS 1024

/* What a type implements (one file per type, registered in systemregis.c; docs/system.md). Optional ops may be NULL:
   the interface then refuses the call with PETSC_ERR_SUP naming the type. */
typedef struct {
  PetscErrorCode (*setfromoptions)(VISystem, PetscOptionItems *);
  /* sets n, nb, nm, constant_mass and linear of the common part */
  PetscErrorCode (*setup)(VISystem);
  PetscErrorCode (*view)(VISystem, PetscViewer);
  PetscErrorCode (*destroy)(VISystem);
  PetscErrorCode (*setrom)(VISystem, VIROM);
  PetscErrorCode (*getrom)(VISystem, VIROM *);
  PetscErrorCode (*computemass)(VISystem, const PetscReal[], PetscReal[]);
  /* d(M(q) w)/dq, n x n row-major (a type whose mass depends on q) */
  PetscErrorCode (*computemassjacobian)(VISystem, const PetscReal[], const PetscReal[], PetscReal[]);
  PetscErrorCode (*getlinearoperators)(VISystem, const PetscReal **, const PetscReal **, const PetscReal **);
  PetscErrorCode (*computeforce)(VISystem, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
  PetscErrorCode (*computeforcejacobian)(VISystem, PetscReal, const PetscReal[], const PetscReal[], PetscReal[], PetscReal[]);
  PetscErrorCode (*computeenergy)(VISystem, const PetscReal[], const PetscReal[], PetscReal *, PetscReal *);
  PetscErrorCode (*getcontacts)(VISystem, PetscInt *, const VIContactKind **, const PetscInt **, const PetscInt **);
  PetscErrorCode (*getcontactset)(VISystem, VIContactSet *, const PetscReal **);
  PetscErrorCode (*evaluateconstraints)(VISystem, PetscReal, const PetscReal[], PetscReal[], PetscReal[], PetscReal[]);
  PetscErrorCode (*constraintcurvature)(VISystem, PetscReal, const PetscReal[], const PetscReal[], PetscReal[]);
  /* d^2 g/dt^2 of the rows (optional: 0 without it) */
  PetscErrorCode (*constraintacceleration)(VISystem, PetscReal, PetscReal[]);
  /* G, d(G v)/dq and d(G^T w)/dq in one pass (optional: formed from evaluateconstraints and constraintcurvature otherwise) */
  PetscErrorCode (*constraintderivatives)(VISystem, PetscReal, const PetscReal[], const PetscReal[], const PetscReal[], PetscReal[], PetscReal[],
                                          PetscReal[]);
  PetscErrorCode (*evaluategaps)(VISystem, PetscReal, PetscReal[], PetscReal[]);
  PetscErrorCode (*getgapbound)(VISystem, PetscReal *);
  PetscErrorCode (*getloads)(VISystem, PetscInt *, const PetscReal *const **);
  PetscErrorCode (*evaluateloadscales)(VISystem, PetscReal, PetscReal[]);
  PetscErrorCode (*getloadfrequency)(VISystem, PetscReal, PetscReal *, VIExciteType *);
  PetscErrorCode (*checksampling)(VISystem, PetscReal, PetscReal, PetscReal);
  PetscErrorCode (*getinitialstate)(VISystem, const PetscReal **, const PetscReal **);
  PetscErrorCode (*setinitialstate)(VISystem, const PetscReal[], const PetscReal[]);
  PetscErrorCode (*computeoutputs)(VISystem, PetscReal, const PetscReal[], const PetscReal[], const PetscReal[], PetscReal[]);
  PetscErrorCode (*getrestitution)(VISystem, const PetscReal **);
  /* the bilateral rows quadratic in q (a quaternion's norm, a spherical joint): nc flags (VISystemGetLinearGradientRows) */
  PetscErrorCode (*getlineargradientrows)(VISystem, const PetscBool **);
  /* the coordinates each constraint row touches (VISystemGetConstraintColumns; optional: every coordinate) */
  PetscErrorCode (*getconstraintcolumns)(VISystem, const PetscInt **, const PetscInt **);
  /* the outputs the common stepper records (names; rows for a linear output, NULL for one computeoutputs gives) */
  PetscErrorCode (*getnumoutputs)(VISystem, PetscInt *);
  PetscErrorCode (*getoutput)(VISystem, PetscInt, const char **, const PetscReal **);
  /* whether the nb boundary coordinates carry no mass, and the name of the system's mass model for messages */
  PetscErrorCode (*masslessboundary)(VISystem, PetscBool *, const char **);
  /* the lowest positive natural frequency (Hz) the type knows of (0: none) */
  PetscErrorCode (*lowestfrequency)(VISystem, PetscReal *);
  /* what identifies the system's data besides the options (a ROM shared by cases) */
  PetscErrorCode (*dataid)(VISystem, const void **);
  PetscErrorCode (*evaluatetangents)(VISystem, PetscReal, const PetscReal[], PetscReal[]);
  /* constraints whose rows are linearised at one configuration and evaluated at others (bodies) */
  PetscErrorCode (*linearizecontact)(VISystem, PetscInt, const PetscReal[], PetscBool *);
  PetscErrorCode (*getcontactrows)(VISystem, PetscInt *, const PetscInt **, const PetscReal **, const PetscReal **, const PetscInt **,
                                   const PetscReal **);
  PetscErrorCode (*contactgap)(VISystem, PetscInt, const PetscReal[], PetscReal *);
  PetscErrorCode (*contactframe)(VISystem, PetscInt, const PetscReal[], PetscBool *, PetscReal[]);
} VISystemOps;

struct _p_VISystem {
  MPI_Comm    comm;
  char        type[64];
  VISystemOps ops;
  void       *data;
  PetscBool   setup;         /* VISystemSetUp done for the data and options given (a type's setters undo it) */
  PetscInt    n, nb, nm;     /* coordinates; of a ROM, its boundary and inner ones (n = nb + nm) */
  PetscBool   constant_mass; /* M does not depend on q */
  PetscBool   linear;        /* f = f_ext(t) - K q - D u with constant K, M, D */
  /* set by a caller (VISystemSetTimeScale): the time functions are played time_scale times faster */
  PetscReal time_scale;
};

PETSC_INTERN PetscFunctionList VISystemList;
PETSC_INTERN const char *const VIGapShapes[]; /* -contact_gap_shape's choices (reduced.c) */
PETSC_INTERN PetscErrorCode    VISystemCreate_Reduced(VISystem);
PETSC_INTERN PetscErrorCode    VISystemCreate_Multibody(VISystem);
PETSC_INTERN PetscErrorCode    VISystemCreate_Bodies(VISystem);
