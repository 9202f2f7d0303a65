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
  PetscInt     dim, num_nodes, num_orphans;
  PetscMPIInt *node_owner; /* rank owning each node's DOFs, -1 for a node of no element */
  PetscInt    *node_dof;   /* num_nodes x dim: global equation number, -1 when clamped */
  PetscInt     rstart, num_local, num_global, block_size;
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

struct _p_VIModal {
  MPI_Comm     comm;
  VIModel      model;
  PetscInt     num_requested, num_modes;
  PetscReal    shift;
  PetscBool    shift_set;
  PetscReal    tol;
  VISolverType solver_type;               /* -modes_solver: direct (MUMPS) or iterative (CG + GAMG, LOBPCG) */
  PetscInt     solver_its, solver_solves; /* iterative: CG iterations and solves of the last VIModalSolve */
  EPS          eps;
  PetscReal   *eigenvalues, *freq_hz, *residuals;
  Vec         *modes;
};
