/* Private layout of the fem objects (VIModel, VIModal). */
#pragma once

#include <vicms/fem.h>
#include <slepceps.h>

#define VI_MAX_ELEMENT_NODES 20
#define VI_MAX_ELEMENT_DOFS  60
#define VI_MAX_CLAMP_SETS    32
#define VI_MAX_QUADRATURE    27

/* Quadrature rule of an element type under an integration: nq points xi (nq x ref_dim) and weights w; arrays hold
   VI_MAX_QUADRATURE points. */
PETSC_INTERN PetscErrorCode VIElementQuadrature(VIElementType type, VIIntegration integration, PetscInt *nq, PetscReal xi[], PetscReal w[]);

struct _p_VIModel {
  MPI_Comm     comm;
  VIMesh       mesh;
  VIMaterial   default_mat; /* elements without a section */
  PetscBool    young_set, density_set, lumped, setup;
  char        *clamp_sets[VI_MAX_CLAMP_SETS];
  PetscInt     num_clamp_sets;
  PetscInt     dim, num_nodes, num_orphans; /* num_nodes: the mesh's (global) nodes */
  /* The node-to-DOF map of the nodes this rank holds, none of global size (docs/scale.md): the nodes of its elements and of
     the elements around the nodes it owns (the matrices' preallocation needs that halo), ascending global node index. A
     node is this rank's when one of its DOFs is (VIModelOwnsNode). */
  PetscInt  num_lnodes;
  PetscInt *lnode;       /* num_lnodes: global node index, ascending */
  PetscInt *lnode_dof;   /* num_lnodes x dim: global equation number, -1 when clamped */
  PetscInt  num_clamped; /* clamped DOFs of the nodes of elements (over all ranks) */
  /* While setting up (VIModelNumberDofs to the preallocation of K and M): the elements this rank holds, its own (ascending) then the halo (the
     other ranks' elements around the nodes it owns, sent by their owners), their nodes as positions in lnode (CSR helem_off,
     helem_node), and the held nodes' elements (CSR lnode_elem_off, lnode_elem): the preallocation's adjacency, read from no
     array of the whole mesh. */
  PetscInt num_helems, *helem_off, *helem_node, *lnode_elem_off, *lnode_elem;
  /* The global nodes split in contiguous blocks over the ranks: the DOF directory's layout. VIModelGetNodeDofs fills the
     directory of its block from the holders' maps and looks a list of global nodes up in it (PetscSF). */
  PetscLayout  dir_layout;
  PetscInt     rstart, num_local, num_global;
  PetscReal    total_mass;
  Mat          K, M;

  /* a parent given as matrices exported by another FE code (parent.c) instead of assembled from the mesh's elements */
  VIParentFormat parent_format;
  char           parent_matrices[2 * PETSC_MAX_PATH_LEN];    /* -parent_matrices as given: JOB (ccx) or K,M files */
  char           parent_dofs[PETSC_MAX_PATH_LEN];            /* -parent_dofs: the DOF map of Matrix Market files */
  PetscInt      *row_node, *row_dir;                         /* this rank's rows: node id and direction (0..5) */
  PetscInt      *row_copy;                                   /* 0 for the row a node's direction is known by, k for its k-th other row */
  PetscInt       parent_rows, parent_repeated, parent_other; /* rows in the files; rows on a repeated label; rows of directions 4..6 */

  /* quadrature of the element matrices */
  VIIntegration integration;
  char          prefix[64]; /* options prefix, "" or e.g. "body_a_" */
};

/* The parent's K and M, DOF numbering and row labels from the files of -parent_matrices (parent.c); the mesh holds nodes and sets. */
PETSC_INTERN PetscErrorCode VIModelSetUpParent(VIModel model);
/* Set the node-to-DOF map of the nodes this rank holds (lnode and lnode_dof taken over, lnode ascending; lnode_owner read:
   the entries of the nodes lnode_owner gives to this rank are their DOFs, the others are filled from their owners'). With
   num_unheld, the number of global nodes no rank holds. Collective. */
PETSC_INTERN PetscErrorCode VIModelSetNodeMap(VIModel model, PetscInt nl, PetscInt lnode[], const PetscMPIInt lnode_owner[], PetscInt lnode_dof[],
                                              PetscInt *num_unheld);
/* Whether held node l is this rank's: one of its DOFs is (a node of clamped DOFs only: none's, it has no rows). */
static inline PetscBool VIModelOwnsNode(VIModel model, PetscInt l)
{
  for (PetscInt d = 0; d < model->dim; d++) {
    PetscInt dof = model->lnode_dof[l * model->dim + d];
    if (dof >= model->rstart && dof < model->rstart + model->num_local) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}
/* The points of the nodes of this rank's block of the DOF directory (dir_layout), in node order: dir_x (3 per node, zeros beyond
   the mesh's dimension), their ids dir_id and whether a rank holds them (held: a node of an element or, for a parent given as
   matrices, of a row); written by the holders, a node no rank holds read from the mesh by its directory rank. Free with
   PetscFree3(dir_x, dir_id, held). Collective. */
PETSC_INTERN PetscErrorCode VIModelPointDirectory(VIModel model, PetscReal **dir_x, PetscInt **dir_id, PetscBool **held);
/* The position of global node in this rank's map, -1 when this rank does not hold it. Not collective. */
PETSC_INTERN PetscErrorCode VIModelFindLocalNode(VIModel model, PetscInt node, PetscInt *l);

struct _p_VIModal {
  MPI_Comm     comm;
  VIModel      model;
  PetscInt     num_requested, num_modes;
  PetscReal    shift;
  PetscBool    shift_set;
  PetscReal    tol;
  VISolverType solver_type;               /* -modes_solver: direct (MUMPS) or iterative (CG + GAMG, LOBPCG) */
  EPS          eps;
  PetscReal   *eigenvalues, *freq_hz, *residuals;
  Vec         *modes;
};

/* q[0..n) orthonormalized in place (solver.c). Collective. */
PETSC_INTERN PetscErrorCode VIOrthonormalizeVecs(MPI_Comm comm, PetscInt n, Vec q[]);
/* pc set to the two-level p-multigrid of A onto the corner nodes, interpolation P, its coarse level GAMG with nearnull (may be NULL)
   injected onto the corners (pmg.c). Collective. */
PETSC_INTERN PetscErrorCode VIPMGSetUp(PC pc, Mat A, Mat P, MatNullSpace nearnull);
/* coarse = fine's values at the corners of P (VIModelCreateCornerInterpolation): the injection (pmg.c). Not collective. */
PETSC_INTERN PetscErrorCode VIPMGInject(Mat P, Vec fine, Vec coarse);
