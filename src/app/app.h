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
