/* vicms mesh module: nodes, elements, sets, materials, clamps; file readers, generators and partitioning. */
#pragma once

#include <vicms/sys.h>
#include <petscmat.h>

/* Element types, named as in Abaqus/CalculiX. */
typedef enum {
  VI_ELEM_T3D2,  /* 2-node rod (truss) */
  VI_ELEM_CPS3,  /* plane stress triangle, 3 nodes */
  VI_ELEM_CPS4,  /* plane stress quadrilateral, 4 nodes */
  VI_ELEM_CPS8,  /* plane stress quadrilateral, 8 nodes (serendipity) */
  VI_ELEM_CPE3,  /* plane strain triangle */
  VI_ELEM_CPE4,  /* plane strain quadrilateral */
  VI_ELEM_CPE8,  /* plane strain quadrilateral, 8 nodes */
  VI_ELEM_C3D4,  /* tetrahedron, 4 nodes */
  VI_ELEM_C3D10, /* tetrahedron, 10 nodes */
  VI_ELEM_C3D8,  /* hexahedron, 8 nodes */
  VI_ELEM_C3D20, /* hexahedron, 20 nodes (serendipity) */
  VI_ELEM_C3D6,  /* wedge (pentahedron), 6 nodes */
  VI_ELEM_C3D15, /* wedge, 15 nodes */
  VI_ELEM_NUM_TYPES
} VIElementType;

/* Constant facts about one element type. */
typedef struct {
  const char *name;      /* Abaqus name, "C3D8" */
  PetscInt    num_nodes; /* nodes per element */
  PetscInt    ref_dim;   /* dimension of the reference element: 1, 2 or 3 */
  PetscInt    num_corners;
  PetscInt    face_nodes; /* fewest corner nodes two neighbouring elements share across a facet (1, 2 or 3) */
} VIElementInfo;

PETSC_EXTERN const VIElementInfo VIElementInfoTable[VI_ELEM_NUM_TYPES];
PETSC_EXTERN PetscErrorCode      VIElementTypeFromName(const char name[], VIElementType *type, PetscBool *found);

/* A linear isotropic elastic material. */
typedef struct {
  char      name[64];
  PetscReal young, poisson, density;
} VIMaterial;

typedef struct _p_VIMesh *VIMesh;

PETSC_EXTERN PetscErrorCode VIMeshCreate(MPI_Comm comm, VIMesh *mesh);
PETSC_EXTERN PetscErrorCode VIMeshSetFromOptions(VIMesh mesh);
PETSC_EXTERN PetscErrorCode VIMeshSetUp(VIMesh mesh);
PETSC_EXTERN PetscErrorCode VIMeshView(VIMesh mesh, PetscViewer viewer);
PETSC_EXTERN PetscErrorCode VIMeshDestroy(VIMesh *mesh);

/* Sources: exactly one of these before VIMeshSetUp (or the matching options). */
PETSC_EXTERN PetscErrorCode VIMeshSetFile(VIMesh mesh, const char path[]);
PETSC_EXTERN PetscErrorCode VIMeshSetLine(VIMesh mesh, PetscInt num_cells, PetscReal length);
PETSC_EXTERN PetscErrorCode VIMeshSetBox(VIMesh mesh, const PetscInt cells[3], const PetscReal lengths[3], VIElementType type);
/* Built-in 2D rectangle of CPS4 plane-stress quads (cells nx x ny, lengths Lx x Ly, out-of-plane thickness), its corner
   xmin_ymin placed at origin and the rectangle turned by angle_deg (counter-clockwise) about it. Node sets xmin, xmax, ymin,
   ymax and the corners xmin_ymin, ... are named in the rectangle's own axes (before the turn). */
PETSC_EXTERN PetscErrorCode VIMeshSetRectangle(VIMesh mesh, const PetscInt cells[2], const PetscReal lengths[2], PetscReal thickness,
                                               const PetscReal origin[2], PetscReal angle_deg);
/* Only the elements of element set name of the file (an Abaqus *ELSET, a Gmsh physical group of the highest dimension), and
   their nodes, keeping the file's node ids; the set may share no node with the file's other elements. Option -mesh_elset. */
PETSC_EXTERN PetscErrorCode VIMeshSetElementSet(VIMesh mesh, const char name[]);
/* Read only the nodes and node sets of the file (a parent given as matrices, whose coordinates and sets come from the exporter's
   deck or a side file): an Abaqus deck's elements, sections, materials, clamps and every other keyword are skipped whatever their
   type (beams, shells, springs), and a file without elements is accepted. Before VIMeshSetUp. */
PETSC_EXTERN PetscErrorCode VIMeshSetNodesOnly(VIMesh mesh, PetscBool nodes_only);
/* Options prefix (e.g. "body_a_" for the body a of a multi-body job: -body_a_mesh_file); before VIMeshSetFromOptions. */
PETSC_EXTERN PetscErrorCode VIMeshSetOptionsPrefix(VIMesh mesh, const char prefix[]);

/* Queries, valid after VIMeshSetUp. A mesh read from a file (or a generated line or rectangle) is replicated: every rank holds
   every node and element. A generated box is held in parts: each rank holds its own elements (VIMeshGetLocalElements), their
   connectivity in global node numbers, and the nodes they use ("held" nodes); the node sets (a box's faces, edges and corners)
   are on every rank. Node numbers (0-based, ascending file ids) and element numbers are the whole mesh's in both cases. */
PETSC_EXTERN PetscErrorCode VIMeshGetComm(VIMesh mesh, MPI_Comm *comm);
PETSC_EXTERN PetscErrorCode VIMeshGetDimension(VIMesh mesh, PetscInt *dim);
PETSC_EXTERN PetscErrorCode VIMeshGetSizes(VIMesh mesh, PetscInt *num_nodes, PetscInt *num_elements); /* the whole mesh's */
/* The held nodes: n and their node numbers, ascending; nodes = NULL when every node is held (a replicated mesh: held node h is
   node h). */
PETSC_EXTERN PetscErrorCode VIMeshGetHeldNodes(VIMesh mesh, PetscInt *n, const PetscInt **nodes);
/* The position h of node among the held nodes (bisection), -1 when this rank does not hold it. Not collective. */
PETSC_EXTERN PetscErrorCode VIMeshFindHeldNode(VIMesh mesh, PetscInt node, PetscInt *h);
PETSC_EXTERN PetscErrorCode VIMeshGetCoordinates(VIMesh mesh, const PetscReal **coords); /* of the held nodes: held x dim */
PETSC_EXTERN PetscErrorCode VIMeshGetNodeIds(VIMesh mesh, const PetscInt **ids);         /* of the held nodes: file ids, ascending */
/* The point (x, y, z; 0 beyond the dimension) and file id of one node: a held node's, or any node of a box (from its index space);
   a node not held of another mesh is an error. Not collective. id may be NULL. */
PETSC_EXTERN PetscErrorCode VIMeshGetNodePoint(VIMesh mesh, PetscInt node, PetscReal xyz[3], PetscInt *id);
/* The node index of a file id, -1 when absent, from the replicated ids (a parent given as matrices, parent.c); not collective. */
PETSC_EXTERN PetscErrorCode VIMeshFindNode(VIMesh mesh, PetscInt id, PetscInt *index); /* a box: id - 1 */
/*
  VIMeshFindNodes - the node indices of n file ids (any order, repeats allowed; each rank its own list, possibly empty), -1 for
  an id not in the mesh. Collective: a directory keyed by blocks of the ids' span, each rank writing the pairs (id, index) of
  its nodes into it and asking it for its list (two PetscSF rounds); no rank searches the ids of the whole mesh.
*/
PETSC_EXTERN PetscErrorCode VIMeshFindNodes(VIMesh mesh, PetscInt n, const PetscInt ids[], PetscInt index[]);
/* Element e (0-based, file order): a held element's type and nodes (node numbers); for a box in parts an element not held is generated
   from the box's index space into the mesh's scratch (valid until the next call); an element not held of another mesh is an error. */
PETSC_EXTERN PetscErrorCode VIMeshGetElement(VIMesh mesh, PetscInt e, VIElementType *type, PetscInt *num_nodes, const PetscInt **nodes);
/*
  VIMeshGetNodeRows - the points (x, y, z; 0 beyond the dimension) and ids of the nodes [row0, row0 + nrows), each rank its own
  block (possibly empty). Collective: in parts, the holders write their nodes' points into the blocks (one PetscSF round);
  replicated, each rank reads its rows.

  VIMeshGetElementRecords - the elements [e0, e1), each rank its own block: *records (PetscFree) of *size entries, per element its
  type, its number of nodes and its nodes. Collective: in parts, each element's owner sends its record to the block's rank
  (PetscSF rounds for the lengths, the places, the entries); replicated, each rank reads its elements.
*/
PETSC_EXTERN PetscErrorCode VIMeshGetNodeRows(VIMesh mesh, PetscInt row0, PetscInt nrows, PetscReal xyz[], PetscInt ids[]);
PETSC_EXTERN PetscErrorCode VIMeshGetElementRecords(VIMesh mesh, PetscInt e0, PetscInt e1, PetscInt *size, PetscInt **records);
/* The whole mesh's number of elements of each type (VI_ELEM_NUM_TYPES entries), on every rank. */
PETSC_EXTERN PetscErrorCode VIMeshGetElementTypeCounts(VIMesh mesh, const PetscInt **counts);
/* The element's material and section thickness (plane elements) or area (rods); mat = NULL when no section covers it. */
PETSC_EXTERN PetscErrorCode VIMeshGetElementMaterial(VIMesh mesh, PetscInt e, const VIMaterial **mat, PetscReal *thickness);
PETSC_EXTERN PetscErrorCode VIMeshGetNodeSet(VIMesh mesh, const char name[], PetscInt *n, const PetscInt **nodes, PetscBool *found);
/* The same for a set an option names: a missing set (the message lists the mesh's sets) or an empty one is an error
   naming the option (e.g. "-model_clamp"). Collective on the mesh's communicator. */
PETSC_EXTERN PetscErrorCode VIMeshRequireNodeSet(VIMesh mesh, const char option[], const char name[], PetscInt *n, const PetscInt **nodes);
PETSC_EXTERN PetscErrorCode VIMeshGetNumNodeSets(VIMesh mesh, PetscInt *n);
PETSC_EXTERN PetscErrorCode VIMeshGetNodeSetName(VIMesh mesh, PetscInt s, const char **name);
/* Clamped DOFs from the deck's *BOUNDARY: n DOFs node * dim + direction (0-based), ascending. */
PETSC_EXTERN PetscErrorCode VIMeshGetClamps(VIMesh mesh, PetscInt *n, const PetscInt **dofs);
/* Partition: the elements this rank assembles, ascending (no rank knows every element's owner). */
PETSC_EXTERN PetscErrorCode VIMeshGetLocalElements(VIMesh mesh, PetscInt *n, const PetscInt **elements);
/* Node -> elements adjacency (CSR over the whole mesh) of a replicated mesh (an error for a box held in parts), built when asked
   for (today by the partitioner's dual graph only, which frees it at once: the model's set-up reads the held elements);
   VIMeshRestoreNodeElements frees it (its pointers are then
   invalid) until the next VIMeshGetNodeElements. offsets or elements may be NULL. */
PETSC_EXTERN PetscErrorCode VIMeshGetNodeElements(VIMesh mesh, const PetscInt **offsets, const PetscInt **elements);
PETSC_EXTERN PetscErrorCode VIMeshRestoreNodeElements(VIMesh mesh);
/* The bytes of the mesh's arrays held on this rank (coordinates, connectivity, sets, clamps, maps). Not collective. */
PETSC_EXTERN PetscErrorCode VIMeshGetMemoryUsage(VIMesh mesh, PetscLogDouble *bytes);
/* The element names of -mesh_box_element, PETSc's enum layout (mesh.c). */
PETSC_EXTERN const char *const VIElementTypes[];
/* Declares the module's options to the option registry (src/sys/options.c; once, at start-up: VIOptionsRegisterAll). */
PETSC_EXTERN PetscErrorCode VIMeshRegisterOptions(void);
