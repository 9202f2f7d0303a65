/* vicms io module: small HDF5 helpers (serial, called on one rank) and XDMF output for ParaView. */
#pragma once

#include <vicms/sys.h>
#include <hdf5.h>
#include <vicms/mesh.h>

/* Create (truncate) an HDF5 file for writing on the calling rank; errors name the path. */
PETSC_EXTERN PetscErrorCode VIH5Create(const char path[], hid_t *file);
PETSC_EXTERN PetscErrorCode VIH5Open(const char path[], hid_t *file);
/* Open an existing HDF5 file for reading and writing. */
PETSC_EXTERN PetscErrorCode VIH5OpenWrite(const char path[], hid_t *file);
PETSC_EXTERN PetscErrorCode VIH5Close(hid_t *file);
/* Write a dense row-major array of doubles (rows x cols; cols = 0 for a 1-D dataset) at path, creating groups. A dataset
   already at path is overwritten in place when it has the same type and shape (the file does not grow), else replaced
   (HDF5 does not reuse the replaced one's space once the file is closed). So are those of the other writers below. */
PETSC_EXTERN PetscErrorCode VIH5WriteReal(hid_t file, const char path[], PetscInt rows, PetscInt cols, const PetscReal data[]);
/* VIH5WriteReal for a dataset whose number of rows changes from one write to the next: chunked with unlimited rows,
   rewritten in place (resized) rather than replaced. */
PETSC_EXTERN PetscErrorCode VIH5WriteRealResizable(hid_t file, const char path[], PetscInt rows, PetscInt cols, const PetscReal data[]);
PETSC_EXTERN PetscErrorCode VIH5WriteInt(hid_t file, const char path[], PetscInt rows, PetscInt cols, const PetscInt data[]);
/* A dataset rows x cols (cols 0: a vector) of type, its space allocated and nothing written, for writers of row blocks. */
PETSC_EXTERN PetscErrorCode VIH5CreateDataset(hid_t file, const char path[], PetscInt rows, PetscInt cols, hid_t type);
/* Rows [row0, row0 + nrows) of dataset path from data (nrows x cols, row-major), through dxpl (collective when the file is
   opened with MPI-IO: every rank calls it, nrows = 0 if need be); a failure sets *bad instead of raising, so that no rank waits. */
PETSC_EXTERN PetscErrorCode VIH5WriteRows(hid_t file, hid_t dxpl, const char path[], hid_t type, PetscInt row0, PetscInt nrows, PetscInt cols,
                                          const void *data, PetscBool *bad);
/* Attributes on an object (path "/" for the root). */
PETSC_EXTERN PetscErrorCode VIH5WriteAttrString(hid_t file, const char obj[], const char name[], const char value[]);
PETSC_EXTERN PetscErrorCode VIH5WriteAttrInt(hid_t file, const char obj[], const char name[], PetscInt value);
PETSC_EXTERN PetscErrorCode VIH5WriteAttrReal(hid_t file, const char obj[], const char name[], PetscReal value);
/* Read a dataset of doubles; allocates *data (PetscMalloc), returns its shape (cols = 0 for 1-D). */
PETSC_EXTERN PetscErrorCode VIH5ReadReal(hid_t file, const char path[], PetscInt *rows, PetscInt *cols, PetscReal **data);
/* An error (PETSC_ERR_FILE_UNEXPECTED, not collective) naming what (the file, and the group), the dataset and the first entry of
   data (rows x cols, cols = 0 for a vector) that is not a finite number: every real an input file gives is checked where it is read. */
/* "NaN", "Inf" or "-Inf" for a value that is not finite (PETSc prints those as "nan."), for the messages. */
PETSC_EXTERN const char    *VINonFiniteString(PetscReal v);
PETSC_EXTERN PetscErrorCode VIH5CheckFinite(const char what[], const char dataset[], PetscInt rows, PetscInt cols, const PetscReal data[]);
PETSC_EXTERN PetscErrorCode VIH5ReadAttrString(hid_t file, const char obj[], const char name[], char value[], size_t len);

/* One element as a cell of an XDMF mixed topology: its code (2, the polyline, followed by its node count), then its nodes in
   XDMF's order; *len entries written to cell (at most 22). */
PETSC_EXTERN PetscErrorCode VIXdmfElementCell(VIElementType type, PetscInt nen, const PetscInt nodes[], PetscInt cell[], PetscInt *len);
/* Nodes of a cell of fixed size by its XDMF code (4 triangle, 5 quadrilateral, 6 tetrahedron, 8 wedge, 9 hexahedron, 36, 37,
   38, 40, 48 their quadratic forms); -1 for the codes followed by a count (1 polyvertex, 2 polyline). */
PETSC_EXTERN PetscInt VIXdmfCellNodes(PetscInt code);
/* The length unit of a ROM's units FORCE-LENGTH-MASS-TIME (N-mm-t-s: mm), "" when not of that form. */
PETSC_EXTERN PetscErrorCode VIUnitsLength(const char units[], char length[], size_t len);
/* Mesh geometry (nodes x 3) and XDMF mixed topology under group (e.g. "/mesh"), in two steps for a parallel write:
   VIH5CreateMesh creates them (space allocated, nothing written;
   rank-local), VIH5WriteMeshRows writes node rows [row0, row0 + nrows) and the cells of elements [e0, e1), each rank
   its block (collective on comm when dxpl is collective: every rank calls it, with empty blocks if need be; MPI_COMM_NULL for
   a single writer of every row). A failed write sets *bad, so that the ranks agree before raising it. */
PETSC_EXTERN PetscErrorCode VIH5CreateMesh(hid_t file, const char group[], VIMesh mesh);
PETSC_EXTERN PetscErrorCode VIH5WriteMeshRows(MPI_Comm comm, hid_t file, hid_t dxpl, const char group[], VIMesh mesh, PetscInt row0, PetscInt nrows,
                                              PetscInt e0, PetscInt e1, PetscBool *bad);
/* The XDMF file beside an HDF5 file h5_path (its .h5 replaced by, or else followed by, .xmf) and the HDF5 file's name as
   that XDMF file refers to it (its last component: the two sit in one folder). */
PETSC_EXTERN PetscErrorCode VIXdmfPath(const char h5_path[], char xmf_path[], size_t len, const char **h5_name);
/* XDMF text file describing n nodal vector fields "<field>/<k>" (k = 1..n) of h5file on the mesh of VIH5CreateMesh, one grid
   per field in a temporal collection so ParaView steps through them; times[k] labels each grid. */
PETSC_EXTERN PetscErrorCode VIXdmfWriteFields(const char xmf_path[], const char h5_name[], VIMesh mesh, const char field[], PetscInt n,
                                              const PetscReal times[]);
/* A nodal field of a time series: its name as shown (with its unit, "displacement [m]"), the HDF5 group whose datasets
   <group>/<k> (k = 0..nt-1) hold it, and its components (1 scalar, 3 vector); constant: the dataset <group> itself, the same at
   every step (e.g. which body a node belongs to). */
typedef struct {
  const char *name, *group;
  PetscInt    ncomp;
  PetscBool   constant;
} VIXdmfField;
/* XDMF 3 file of a temporal collection of nt grids (time values times, seconds) on the mesh /mesh/coordinates (nn x 3) and
   /mesh/topology (mixed, ncells cells, tsize entries) of the HDF5 file h5_name, each grid with the nf fields. Rank-local. */
PETSC_EXTERN PetscErrorCode VIXdmfWriteSeries(const char xmf_path[], const char h5_name[], const char title[], PetscInt nn, PetscInt ncells,
                                              PetscInt tsize, PetscInt nt, const PetscReal times[], PetscInt nf, const VIXdmfField fields[]);
/* Modes file of `vicms modes` (frequencies_hz, eigenvalues, mesh, mode shapes num_nodes x 3) and its .xmf. Collective: each
   rank gives rows [row0, row0 + nrows) of every shape (shapes[k], nrows x 3), written in parallel (MPI-IO). */
PETSC_EXTERN PetscErrorCode VIModesFileWrite(MPI_Comm comm, const char path[], VIMesh mesh, PetscInt n, const PetscReal freq_hz[],
                                             const PetscReal eigenvalues[], PetscInt row0, PetscInt nrows, const PetscReal *const shapes[]);

/* Reading helpers whose messages name the file. Rank-local. */
/* Whether a link (group or dataset) exists at path, intermediate groups included ("/" always exists). */
PETSC_EXTERN PetscErrorCode VIH5Exists(hid_t file, const char path[], PetscBool *exists);
PETSC_EXTERN PetscErrorCode VIH5HasAttr(hid_t file, const char obj[], const char name[], PetscBool *has);
/* Shape of a 1-D (cols = 0) or 2-D dataset; an error if path is missing or not such a dataset. */
PETSC_EXTERN PetscErrorCode VIH5GetShape(hid_t file, const char path[], PetscInt *rows, PetscInt *cols);
/* Read an integer dataset; allocates *data (PetscMalloc), returns its shape (cols = 0 for 1-D). */
PETSC_EXTERN PetscErrorCode VIH5ReadInt(hid_t file, const char path[], PetscInt *rows, PetscInt *cols, PetscInt **data);
/* Scalar attributes: an integer, a number (integer or float), a string of any length (PetscFree it). */
PETSC_EXTERN PetscErrorCode VIH5ReadAttrInt(hid_t file, const char obj[], const char name[], PetscInt *value);
PETSC_EXTERN PetscErrorCode VIH5ReadAttrReal(hid_t file, const char obj[], const char name[], PetscReal *value);
PETSC_EXTERN PetscErrorCode VIH5ReadAttrStringAlloc(hid_t file, const char obj[], const char name[], char **value);
/* Create a group (and missing parents) that remembers the order in which its members were created. */
PETSC_EXTERN PetscErrorCode VIH5CreateGroup(hid_t file, const char path[]);
/* Names of the members of a group, in creation order when the group tracks it, else by name; NULL-terminated,
   free with PetscStrArrayDestroy(). */
PETSC_EXTERN PetscErrorCode VIH5ListGroup(hid_t file, const char path[], PetscInt *n, char ***names);

/* A 1-D dataset of n variable-length strings. */
PETSC_EXTERN PetscErrorCode VIH5WriteStrings(hid_t file, const char path[], PetscInt n, const char *const strings[]);
/* Read a 1-D dataset of strings: *n of them, NULL-terminated, free with PetscStrArrayDestroy(). */
PETSC_EXTERN PetscErrorCode VIH5ReadStrings(hid_t file, const char path[], PetscInt *n, char ***strings);
/* Copy the group src_path of src (its attributes and datasets with theirs; no subgroups) to dst_path of dst, creating
   groups; by hand, with every write checked (H5Ocopy of HDF5 1.10 crashes on a full disk). */
/* Read a real dataset of exactly len entries (any shape) into dst; *ok false, dst untouched, when its size differs. */
PETSC_EXTERN PetscErrorCode VIH5ReadRealExact(hid_t file, const char path[], PetscInt len, PetscReal dst[], PetscBool *ok);
/* Collective on comm: open the checkpoint at path, check its root attributes format (else "not <what>") and tag (else
   "it belongs to another job or case"), and let load(ctx, file, ok, why, len) restore it on every rank; *restored when
   every rank of comm did, else why in words. A damaged file is not an error: "it cannot be read". */
PETSC_EXTERN PetscErrorCode VIH5CheckpointRead(MPI_Comm comm, const char path[], const char format[], const char what[], const char tag[],
                                               PetscErrorCode (*load)(void *ctx, hid_t file, PetscBool *ok, char why[], size_t len), void *ctx,
                                               PetscBool *restored, char why[], size_t len);
PETSC_EXTERN PetscErrorCode VIH5Copy(hid_t src, const char src_path[], hid_t dst, const char dst_path[]);
