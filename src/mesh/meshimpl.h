/* Private layout of VIMesh and the builder used by the readers and generators. */
#pragma once

#include <vicms/mesh.h>

/* Where an entity came from, for error messages: "blade.msh:20840". */
typedef struct {
  const char *file; /* not owned */
  PetscInt    line;
} VISource;

typedef struct {
  char      name[64];
  PetscInt  n;
  PetscInt *items; /* node or element indices (0-based, into the mesh arrays), sorted, unique */
} VISet;

typedef struct {
  char      elset[64];
  PetscInt  material;  /* index into materials */
  PetscReal thickness; /* plane thickness or rod area; 1 when not given */
  VISource  src;
} VISection;

typedef enum { VI_MESH_SOURCE_NONE, VI_MESH_SOURCE_FILE, VI_MESH_SOURCE_LINE, VI_MESH_SOURCE_BOX, VI_MESH_SOURCE_RECT } VIMeshSourceKind;

struct _p_VIMesh {
  MPI_Comm         comm;
  PetscBool        setup;
  VIMeshSourceKind kind;
  char             path[PETSC_MAX_PATH_LEN];
  PetscInt         line_cells;
  PetscReal        line_length, line_area;
  PetscInt         box_cells[3];
  PetscReal        box_lengths[3];
  VIElementType    box_type;
  PetscInt         rect_cells[2];
  PetscReal        rect_lengths[2], rect_thickness, rect_origin[2], rect_angle; /* angle in degrees, about the origin */
  char             prefix[64];                                                  /* options prefix ("" or e.g. "body_a_"), also in messages */
  char             elset[64];                                                   /* the mesh is this element set of the file ("" for all of it) */
  PetscBool        nodes_only; /* nodes and node sets only: the parent is given as matrices (VIMeshSetNodesOnly) */

  PetscInt dim; /* spatial dimension = DOFs per node */

  /* nodes, sorted by file id after VIMeshBuildFinish */
  PetscInt   num_nodes, max_nodes;
  PetscInt  *node_ids;
  PetscReal *coords;   /* num_nodes x 3 while building, num_nodes x dim after */
  VISource  *node_src; /* building only */

  /* elements in file order; connectivity holds node file ids while building, node indices after */
  PetscInt       num_elems, max_elems, conn_size, max_conn;
  PetscInt      *elem_ids;
  VIElementType *elem_type;
  PetscInt      *elem_offset; /* num_elems + 1 */
  PetscInt      *elem_conn;
  PetscInt      *elem_section; /* index into sections, -1 when none */
  VISource      *elem_src;     /* building only */

  PetscInt num_nsets, max_nsets, num_esets, max_esets;
  VISet   *nsets, *esets; /* while building, items hold file ids */

  PetscInt    num_materials, max_materials;
  VIMaterial *materials;
  PetscInt    num_sections, max_sections;
  VISection  *sections;

  /* clamps: while building a list of (target, first, last); after, flags num_nodes x dim */
  PetscInt num_bcs, max_bcs;
  struct VIBoundary {
    char     target[64];  /* node id as text or node set name */
    PetscInt first, last; /* 1-based DOF range */
    VISource src;
  } * bcs;
  PetscBool *clamped;     /* while building (rank 0) */
  PetscInt   num_clamped; /* after set-up: the clamped DOFs node * dim + direction, ascending (a face, not a flag per DOF) */
  PetscInt  *clamp_dofs;

  /* file names seen while reading (kept for messages) */
  PetscInt num_files;
  char   **files;

  /* node -> elements */
  PetscInt *node_elem_offset, *node_elem;

  /* partition: this rank's elements, ascending (VIMeshPartition) */
  PetscInt  num_local_elems;
  PetscInt *local_elems;

  /* held in parts (a generated box, issue 26): the element arrays above hold this rank's elements only, in the order of
     local_elems, their connectivity in global node numbers; node_ids and coords hold the nodes those elements use, in the
     order of held (their global node numbers, ascending; a node is found by bisection). num_nodes and num_elems stay the
     whole mesh's. When every node is held (a replicated mesh, or a box on one rank), held is NULL and
     node h is held at position h. */
  PetscBool parts;
  PetscInt  num_held;
  PetscInt *held;
  PetscInt  type_count[VI_ELEM_NUM_TYPES]; /* the whole mesh's elements of each type (every rank, after set-up) */
  PetscInt  scratch[32];                   /* an element of a box not held, generated from its index (VIMeshGetElement) */
};

/* Text files of the readers: the longest line they accept (real decks have lines of at most a few hundred characters;
   a larger one is binary data or a device such as /dev/zero, which must not hang the reader or exhaust memory). */
#define VI_MESH_MAX_LINE (1 << 20)
/* Open a mesh file for reading: a regular file (not a device, pipe or directory); *dev and *ino identify it, so that a
   reader can tell an *INCLUDE cycle. what and where prefix the messages ("*INCLUDE" and "deck.inp:3", or NULL). */
PETSC_INTERN PetscErrorCode VIMeshOpenFile(const char path[], const char what[], const char where[], FILE **fp, unsigned long long *dev,
                                           unsigned long long *ino);
/* One physical line of fp (line number line of the file name) into *buf, without "\n", "\r\n" or "\r"; *eof when
   nothing was left. A NUL byte or a line longer than VI_MESH_MAX_LINE is an error naming the file and line. */
PETSC_INTERN PetscErrorCode VIMeshReadLine(FILE *fp, const char name[], PetscInt line, char **buf, PetscInt *size, PetscBool *eof);

/* Builder, used on one rank by readers and generators (collective only where noted). */
PETSC_INTERN PetscErrorCode VIMeshBuildAddFile(VIMesh mesh, const char path[], const char **stored);
PETSC_INTERN PetscErrorCode VIMeshBuildAddNode(VIMesh mesh, PetscInt id, const PetscReal xyz[3], VISource src);
PETSC_INTERN PetscErrorCode VIMeshBuildAddElement(VIMesh mesh, PetscInt id, VIElementType type, const PetscInt node_ids[], VISource src);
PETSC_INTERN PetscErrorCode VIMeshBuildAddToNodeSet(VIMesh mesh, const char name[], PetscInt n, const PetscInt node_ids[]);
PETSC_INTERN PetscErrorCode VIMeshBuildAddToElementSet(VIMesh mesh, const char name[], PetscInt n, const PetscInt elem_ids[]);
PETSC_INTERN PetscErrorCode VIMeshBuildAddMaterial(VIMesh mesh, const char name[], PetscInt *index);
PETSC_INTERN PetscErrorCode VIMeshBuildFindMaterial(VIMesh mesh, const char name[], PetscInt *index); /* -1 when absent */
PETSC_INTERN PetscErrorCode VIMeshBuildAddSection(VIMesh mesh, const char elset[], PetscInt material, PetscReal thickness, VISource src);
PETSC_INTERN PetscErrorCode VIMeshBuildAddBoundary(VIMesh mesh, const char target[], PetscInt first, PetscInt last, VISource src);
/* Resolve ids, sort, check references (messages name file and line), build flags. */
/* Drop the elements e with drop[e] (building order) before VIMeshBuildFinish: a reader that learns only at the end of its file which
   elements are not part of the model (the skin elements of an Abaqus deck written by Gmsh). */
PETSC_INTERN PetscErrorCode VIMeshBuildDropElements(VIMesh mesh, const PetscBool drop[]);
PETSC_INTERN PetscErrorCode VIMeshBuildFinish(VIMesh mesh);

/* Readers and generators fill the mesh on the calling rank only (mesh->comm is not used for collectives). */
PETSC_INTERN PetscErrorCode VIMeshReadAbaqus(VIMesh mesh, const char path[]);
PETSC_INTERN PetscErrorCode VIMeshReadGmsh(VIMesh mesh, const char path[]);
PETSC_INTERN PetscErrorCode VIMeshGenerateLine(VIMesh mesh);
/* The box in parts (collective; after VIMeshPartition): every rank its elements, the nodes they use and the box's node sets,
   generated from the box's index space, nothing broadcast. */
PETSC_INTERN PetscErrorCode VIMeshGenerateBoxParts(VIMesh mesh);
/* The box's sizes (nodes, elements, elements per cell) set on every rank before the partitioning. Not collective. */
PETSC_INTERN PetscErrorCode VIMeshBoxSizes(VIMesh mesh);
/* Element e (0-based, the box's element order) of a box: its type and its nodes (global node numbers = file id - 1, at most
   8); node g's point. From the box's index space, on any rank. */
PETSC_INTERN void           VIMeshBoxElement(VIMesh mesh, PetscInt e, VIElementType *type, PetscInt *nen, PetscInt nodes[]);
PETSC_INTERN void           VIMeshBoxNode(VIMesh mesh, PetscInt g, PetscReal xyz[3]);
PETSC_INTERN PetscErrorCode VIMeshGenerateRectangle(VIMesh mesh);

/* Keep the elements of the element set mesh->elset only, their nodes (file ids kept, indices renumbered), sets and clamps
   restricted to them; refused when the set shares a node with an element outside it. After VIMeshBuildFinish, one rank. */
PETSC_INTERN PetscErrorCode VIMeshRestrictToElementSet(VIMesh mesh);

/* Collective */
PETSC_INTERN PetscErrorCode VIMeshBroadcast(VIMesh mesh);
PETSC_INTERN PetscErrorCode VIMeshPartition(VIMesh mesh);
