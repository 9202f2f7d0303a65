/* The vicms executable's commands. */
#pragma once

#include <vicms.h>

PETSC_INTERN PetscErrorCode VIAppModes(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppInfo(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppReduce(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppSimulate(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppRun(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppHB(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppCEA(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppSlide(MPI_Comm comm);
PETSC_INTERN PetscErrorCode VIAppFields(MPI_Comm comm);
/* vicms fields (src/app/fields.c, fields_bodies.c): how a series is written: its title, the vector field's name ("displacement",
   "mode shape"), the length and force units, the normal contact force per node (nt x nk, or NULL), and for bodies each node's
   body (nk, as reals for the XDMF attribute, or NULL) with the bodies' names. */
typedef struct {
  const char      *title, *shape_name, *length, *force_unit;
  const PetscReal *force, *body;
  const char      *bodies;
} VIAppFieldsSeries;
/* The options of vicms fields, read once (src/app/fields.c) and handed to the bodies' series (src/app/fields_bodies.c). */
typedef struct {
  char      rom_file[PETSC_MAX_PATH_LEN], results[PETSC_MAX_PATH_LEN], out[PETSC_MAX_PATH_LEN];
  PetscBool rom_set;
  PetscInt  kcase, point, samples, position, mode, every;
} VIAppFieldsOptions;
/* u = B q for nt states q (nt x n): each rank a block of states, gathered into u (nt x 3 nk) on rank 0 only. Collective. */
PETSC_INTERN PetscErrorCode VIAppFieldsRecover(MPI_Comm comm, const VIROMFields *m, PetscInt nt, const PetscReal q[], PetscReal **u);
/* Rank 0: the series file OUT.h5 (mesh, time, a dataset per step and field) and OUT.xmf beside it. */
PETSC_INTERN PetscErrorCode VIAppFieldsWrite(const char out[], const VIROMFields *m, PetscInt nt, const PetscReal t[], const PetscReal u[],
                                             const VIAppFieldsSeries *series);
/* The force unit of a ROM's units FORCE-LENGTH-MASS-TIME (N-mm-t-s: N), "" when not of that form. */
PETSC_INTERN void VIAppUnitsForce(const char units[], char force[], size_t len);
/* vicms fields on the results of vicms cea (format vicms-cea: a mode shape animated by phase) or vicms slide (vicms-slide: the
   history), on the meshes of the bodies file (src/app/fields_bodies.c). Collective. */
PETSC_INTERN PetscErrorCode VIAppFieldsBodies(MPI_Comm comm, const char format[], const VIAppFieldsOptions *o);
/* The bodies file of vicms reduce -bodies (cea, slide), read on every rank; a missing one is an error naming -rom_file. */
PETSC_INTERN PetscErrorCode VIAppLoadBodies(MPI_Comm comm, const char rom_file[], VIBodies *bodies);
/* A token of each body's ROM (VIEnsembleROMToken: what made it, or its checksum), "NAME:TOKEN NAME:TOKEN ...", for the
   checkpoints of runs on a bodies file: the file may move, not change. Not collective. */
PETSC_INTERN PetscErrorCode VIAppBodiesToken(VIBodies bodies, char token[], size_t len);
/* Node options of the commands on bodies files (src/app/nodes.c), errors naming the option opt:
   "BODY" or "BODY:ID,ID,...": the body name (checked against the file) and at most max node ids (*n = 0 when none given); */
PETSC_INTERN PetscErrorCode VIAppParseBodyNodes(MPI_Comm comm, VIBodies bodies, const char opt[], const char value[], char body[], size_t len,
                                                PetscInt max, PetscInt *n, PetscInt ids[]);
/* "BODY:ID,ID,...": at least one and at most max nodes, each a boundary node of that body, none twice; */
PETSC_INTERN PetscErrorCode VIAppParseBoundaryNodes(MPI_Comm comm, VIBodies bodies, const char opt[], const char value[], char body[], size_t len,
                                                    PetscInt max, PetscInt *n, PetscInt ids[]);
/* "BODY:NODE_ID": one node, a boundary node of that body; */
PETSC_INTERN PetscErrorCode VIAppParseBodyNode(MPI_Comm comm, VIBodies bodies, const char opt[], const char value[], char body[], size_t len,
                                               PetscInt *id);
/* every boundary node of body `body` in table order but the nodes skip_ids of body skip_body (the slaves), at most max. */
PETSC_INTERN PetscErrorCode VIAppBodyNodesBut(VIBodies bodies, const char body[], const char skip_body[], PetscInt nskip, const PetscInt skip_ids[],
                                              PetscInt max, PetscInt *n, PetscInt ids[]);
/* Load the ROM and run the ensemble's cases on it (simulate, run, hb), in log stages "ROM load" and run_stage. */
PETSC_INTERN PetscErrorCode VIAppRunEnsemble(VIEnsemble ens, VIROM rom, const char rom_file[], const char run_stage[]);
/* The reduction fingerprint of the options database: the sorted options that decide the ROM (-mesh_*, -model_*,
   -cms_*, diagnostics aside) and the content of the mesh file(s). Collective; PetscFree(*fingerprint). */
PETSC_INTERN PetscErrorCode VIAppReductionFingerprint(MPI_Comm comm, char **fingerprint);

/* The word that followed the command on the command line (`vicms info FILE.h5`), or NULL. */
PETSC_INTERN const char *VIAppArgument;
/* Every option of the library and of the commands into the option registry (options.c). */
PETSC_INTERN PetscErrorCode VIAppRegisterOptions(void);
