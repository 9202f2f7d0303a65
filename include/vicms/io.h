/* vicms io module: small HDF5 helpers (serial, called on one rank) and XDMF output for ParaView. */
#pragma once

#include <vicms/sys.h>
#include <hdf5.h>
#include <vicms/mesh.h>

/* Create (truncate) an HDF5 file for writing on the calling rank; errors name the path. */
PETSC_EXTERN PetscErrorCode VIH5Create(const char path[], hid_t *file);
PETSC_EXTERN PetscErrorCode VIH5Open(const char path[], hid_t *file);
PETSC_EXTERN PetscErrorCode VIH5Close(hid_t *file);
/* Write a dense row-major array of doubles (rows x cols; cols = 0 for a 1-D dataset) at path, creating groups. */
PETSC_EXTERN PetscErrorCode VIH5WriteReal(hid_t file, const char path[], PetscInt rows, PetscInt cols, const PetscReal data[]);
PETSC_EXTERN PetscErrorCode VIH5WriteInt(hid_t file, const char path[], PetscInt rows, PetscInt cols, const PetscInt data[]);
/* Attributes on an object (path "/" for the root). */
PETSC_EXTERN PetscErrorCode VIH5WriteAttrString(hid_t file, const char obj[], const char name[], const char value[]);
PETSC_EXTERN PetscErrorCode VIH5WriteAttrInt(hid_t file, const char obj[], const char name[], PetscInt value);
PETSC_EXTERN PetscErrorCode VIH5WriteAttrReal(hid_t file, const char obj[], const char name[], PetscReal value);
/* Read a dataset of doubles; allocates *data (PetscMalloc), returns its shape (cols = 0 for 1-D). */
PETSC_EXTERN PetscErrorCode VIH5ReadReal(hid_t file, const char path[], PetscInt *rows, PetscInt *cols, PetscReal **data);
PETSC_EXTERN PetscErrorCode VIH5ReadAttrString(hid_t file, const char obj[], const char name[], char value[], size_t len);

/* Mesh geometry (nodes x 3) and XDMF mixed topology under group (e.g. "/mesh"). Rank-local; mesh replicated. */
PETSC_EXTERN PetscErrorCode VIH5WriteMesh(hid_t file, const char group[], VIMesh mesh);
/* XDMF text file describing n nodal vector fields "<field>/<k>" (k = 1..n) of h5file on the mesh of VIH5WriteMesh, one grid
   per field in a temporal collection so ParaView steps through them; times[k] labels each grid. */
PETSC_EXTERN PetscErrorCode VIXdmfWriteFields(const char xmf_path[], const char h5_name[], VIMesh mesh, const char field[], PetscInt n,
                                              const PetscReal times[]);
/* Modes file of `vicms modes` (frequencies_hz, eigenvalues, mesh, mode shapes num_nodes x 3) and its .xmf. Rank-local. */
PETSC_EXTERN PetscErrorCode VIModesFileWrite(const char path[], VIMesh mesh, PetscInt n, const PetscReal freq_hz[], const PetscReal eigenvalues[],
                                             const PetscReal *const shapes[]);
