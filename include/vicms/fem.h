/* vicms fem module: isoparametric elements, the parent model (DOFs, parallel assembly of K and M) and its modal analysis. */
#pragma once

#include <vicms/mesh.h>
#include <petscksp.h>
#include <slepceps.h>

/* ---------------------------------------------------------------- elements */

/*
  VIIntegration - the quadrature rule of the element matrices (stiffness and mass alike).
    VI_INTEGRATION_CALCULIX (default, option value "calculix"): the rule CalculiX ccx uses for the Abaqus element name,
      the integration-point counts of the Abaqus library: C3D4 1 point, C3D10 4, C3D8 8, C3D20 27, C3D6 2, C3D15 9; a deck
      gives the frequencies ccx gives.
    VI_INTEGRATION_FULL ("full"): vicms's exact rules, which integrate the mass N^T N and the stiffness of an undistorted
      element exactly (C3D4 4 points, C3D10 14, C3D6 6, C3D15 21; the bricks as above).
  CPS3/CPE3 take 1 point under calculix, 3 under full; CPS4/CPE4 (2x2), CPS8/CPE8 (3x3) and T3D2 (exact) the same under both.
*/
typedef enum { VI_INTEGRATION_CALCULIX, VI_INTEGRATION_FULL } VIIntegration;
/* Option names of VIIntegration, for PetscOptionsEnum. */
PETSC_EXTERN const char *const VIIntegrations[];

/*
  VIElementMatricesIntegrated - stiffness and mass matrices of one isoparametric element, linear isotropic elasticity,
  integrated by the rule of integration (see VIIntegration).

  Not collective.

  Input:
+ type      - element type
. sdim      - spatial dimension of the coordinates and of the nodal DOFs (1, 2 or 3; rods may live in 1, 2 or 3,
              plane elements need 2, solids 3)
. coords    - nodal coordinates, num_nodes x sdim, in Abaqus node order
. mat       - material
. thickness - thickness of plane elements, cross-section area of rods (ignored for solids)
- lumped    - PETSC_TRUE for a diagonal (HRZ) mass matrix

  Output (any may be NULL):
+ Ke     - (num_nodes*sdim)^2, row-major, DOFs ordered node by node (u_x, u_y, u_z of node 1, then node 2 ...)
. Me     - same layout
- volume - measure of the element times thickness/area (mass = density * volume)

  Plane stress or plane strain follows from the type (CPS* or CPE*).

  Errors: PETSC_ERR_USER_INPUT for a degenerate or inverted element (Jacobian determinant at a quadrature point of the
  rule not positive relative to the size of J: det J <= 1e-12 times the product of its column lengths), for E <= 0, rho < 0,
  nu outside (-1, 0.5) or a thickness/area <= 0; PETSC_ERR_ARG_WRONG when sdim does not suit the type.
*/
PETSC_EXTERN PetscErrorCode VIElementMatricesIntegrated(VIElementType type, VIIntegration integration, PetscInt sdim, const PetscReal coords[],
                                                        const VIMaterial *mat, PetscReal thickness, PetscBool lumped, PetscReal Ke[], PetscReal Me[],
                                                        PetscReal *volume);
/* VIElementMatricesIntegrated with the default integration, VI_INTEGRATION_CALCULIX. */
PETSC_EXTERN PetscErrorCode VIElementMatrices(VIElementType type, PetscInt sdim, const PetscReal coords[], const VIMaterial *mat, PetscReal thickness,
                                              PetscBool lumped, PetscReal Ke[], PetscReal Me[], PetscReal *volume);

/* Shape functions N (num_nodes) and their reference derivatives dN (num_nodes x ref_dim, row-major: dN[a*ref_dim+k])
   at reference point xi; either output may be NULL. */
PETSC_EXTERN PetscErrorCode VIElementShape(VIElementType type, const PetscReal xi[], PetscReal N[], PetscReal dN[]);
/* Reference coordinates of the nodes (num_nodes x ref_dim), in Abaqus order. */
PETSC_EXTERN PetscErrorCode VIElementReferenceNodes(VIElementType type, const PetscReal **xi);

/* ---------------------------------------------------------------- model */

typedef struct _p_VIModel *VIModel;

/*
  VIParentFormat - where the parent's K and M come from (docs/parents.md):
    VI_PARENT_ASSEMBLED ("assembled"): vicms assembles them from the mesh's elements (default);
    VI_PARENT_CCX ("ccx"): CalculiX's matrix storage, -parent_matrices JOB reads JOB.sti, JOB.mas and JOB.dof
      (*FREQUENCY, SOLVER=MATRIXSTORAGE);
    VI_PARENT_MTX ("mtx"): Matrix Market coordinate files -parent_matrices K.mtx,M.mtx with the DOF map -parent_dofs FILE (one
      line "NODE DIRECTION" per row);
    VI_PARENT_ABAQUS ("abaqus"): Abaqus *MATRIX GENERATE output as labelled text (FORMAT=MATRIX INPUT), lines "NODE, DOF, NODE, DOF, VALUE",
      -parent_matrices JOB_STIF1.mtx,JOB_MASS1.mtx.
  The mesh (-mesh_file: the exporter's deck or a file of *NODE and *NSET) gives the nodes' coordinates and the node sets.
*/
typedef enum { VI_PARENT_ASSEMBLED, VI_PARENT_CCX, VI_PARENT_MTX, VI_PARENT_ABAQUS } VIParentFormat;
PETSC_EXTERN const char *const VIParentFormats[];

PETSC_EXTERN PetscErrorCode VIModelCreate(MPI_Comm comm, VIModel *model);
PETSC_EXTERN PetscErrorCode VIModelSetMesh(VIModel model, VIMesh mesh);
PETSC_EXTERN PetscErrorCode VIModelSetFromOptions(VIModel model);
/* Options prefix (e.g. "body_a_": -body_a_model_young); before VIModelSetFromOptions. */
PETSC_EXTERN PetscErrorCode VIModelSetOptionsPrefix(VIModel model, const char prefix[]);
/* The element integration (default VI_INTEGRATION_CALCULIX; option -model_integration); before VIModelSetUp. */
PETSC_EXTERN PetscErrorCode VIModelSetIntegration(VIModel model, VIIntegration integration);
PETSC_EXTERN PetscErrorCode VIModelSetUp(VIModel model);
PETSC_EXTERN PetscErrorCode VIModelView(VIModel model, PetscViewer viewer);
PETSC_EXTERN PetscErrorCode VIModelDestroy(VIModel *model);

PETSC_EXTERN PetscErrorCode VIModelGetMesh(VIModel model, VIMesh *mesh);
/* K and M, assembled in parallel (MPIAIJ), clamped DOFs eliminated; owned by the model. */
PETSC_EXTERN PetscErrorCode VIModelGetMatrices(VIModel model, Mat *K, Mat *M);
/* The global equation numbers of n nodes (mesh node indices, any node of the mesh; each rank its own list, which may be empty):
   dofs[i * dim + d] for component d, -1 when clamped or for a node of no element. Collective: each rank asks the rank whose
   block of the distributed DOF directory holds the node (a PetscSF), so no rank holds a map of global size. */
PETSC_EXTERN PetscErrorCode VIModelGetNodeDofs(VIModel model, PetscInt n, const PetscInt nodes[], PetscInt dofs[]);
/* The coordinates and file ids of n nodes (mesh node indices, any node of the mesh; each rank its own list, which may be empty):
   coords[3 i + d], padded with zeros beyond the mesh's dimension, and ids[i] (either may be NULL). Collective, as
   VIModelGetNodeDofs: the ranks that hold a node write its point into the distributed directory and each rank reads its list
   from there; the mesh is read at the nodes this rank holds only (and at a node no rank holds, by its directory rank). */
PETSC_EXTERN PetscErrorCode VIModelGetNodeCoordinates(VIModel model, PetscInt n, const PetscInt nodes[], PetscReal coords[], PetscInt ids[]);
PETSC_EXTERN PetscErrorCode VIModelGetNumDofs(VIModel model, PetscInt *num_local, PetscInt *num_global);
PETSC_EXTERN PetscErrorCode VIModelGetTotalMass(VIModel model, PetscReal *mass);
/*
  VIModelMassProducts - the mass products G_ab = \int rho f_a f_b dV of the scalar nodal fields f = (1, x_1 .. x_dim, then the
  dim components of each field v[k]), interpolated by the elements' shape functions and integrated with the model's own mass
  matrices (consistent or lumped, its integration rule) over every element, the elements of clamped nodes included (the
  assembled M has no clamped rows: it cannot give the mass of a clamped node). x are the mesh coordinates; v[k] are
  displacement fields in the model's DOF layout and the global frame (a clamped DOF is 0). G is nf x nf, row-major,
  nf = 1 + dim + nv * dim, field 1 + dim + k * dim + j the component j of v[k]; on every rank. Each rank integrates its own
  elements with the values of v at their nodes (one scatter of the DOFs they touch), then one reduction of G. The inertia
  invariants of a floating frame of reference (docs/frame.md) are entries of G. Collective.
*/
PETSC_EXTERN PetscErrorCode VIModelMassProducts(VIModel model, PetscInt nv, const Vec v[], PetscReal G[]);
/* The rigid translation along axis d (0, 1, 2) in the layout of K: 1 on every DOF that moves with it (each translational DOF in
   direction d; for a parent given as matrices, also the other rows of a node's direction). Collective on u. */
PETSC_EXTERN PetscErrorCode VIModelGetRigidTranslation(VIModel model, PetscInt d, Vec u);
/* Nodal values of distributed DOF vectors, num_nodes x 3 (zeros where clamped or beyond dim), in blocks of contiguous node
   rows: rank r holds rows [row0, row0 + nrows) of its block vector (local size 3 nrows), filled from a DOF vector by the
   scatter. No rank holds more than its block. Collective. */
PETSC_EXTERN PetscErrorCode VIModelCreateNodalScatter(VIModel model, Vec u, PetscInt *row0, PetscInt *nrows, Vec *nodal, VecScatter *scatter);

/* ---------------------------------------------------------------- modal analysis */

/*
  Sign convention of every mode vicms computes (vicms modes, the CMS fixed- and free-interface modes, hence the ROM's
  columns): a mode x is turned so that w . x > 0, w a fixed pseudo-random weight per (mesh node id, component) in [-1, 1)
  (a hash, no state). w depends only on the mesh, never on the partition or the number of ranks, so the same mode gets
  the same sign on 1, 2 or 3 ranks. Unlike "the largest entry is positive", the test is not fooled by two entries of
  nearly equal size (symmetric structures): w . x is far from 0 except with a probability of the order of the rounding
  error. Collective on w.
*/
PETSC_EXTERN PetscErrorCode VIModelGetSignWeights(VIModel model, Vec w);
PETSC_EXTERN PetscErrorCode VIModeNormalizeSign(Vec x, Vec w);

/*
  VIFactorCholesky - a Cholesky factorization of the symmetric matrix A by MUMPS in a KSP (preonly) with the options of prefix
  (e.g. "cms_st_", "modes_st_"): A is flagged MAT_SPD when spd (MUMPS SYM = 1, no pivoting), else MAT_SYMMETRIC (SYM = 2).
  When MUMPS's analysis underestimated its workspace (INFOG(1) = -8 or -9), the factorization is retried with ICNTL(14)
  doubled (at least 40, at most 1000), which the log says; a full memory (-13), a limit (-19) and other MUMPS failures stop
  with a message naming the -<prefix>mat_mumps_* options to use. Null pivots (below 1e-11 of the norm) are counted.

  Collective on A.

  Input:
+ comm   - the communicator of A
. A      - the matrix (left flagged MAT_SPD or MAT_SYMMETRIC)
. spd    - whether A is positive definite
. prefix - options prefix of the KSP
- what   - the matrix in words, for the log and the messages

  Output:
+ ksp   - the factored KSP; NULL when A is singular (a failed factorization, or null pivots): the caller says what that means
- nnull - the number of null pivots MUMPS found (INFOG(28)), 0 when the factorization failed before counting them
*/
PETSC_EXTERN PetscErrorCode VIFactorCholesky(MPI_Comm comm, Mat A, PetscBool spd, const char prefix[], const char what[], KSP *ksp, PetscInt *nnull);

/*
  VISolver - the linear solver of the reductions and of `vicms modes`: every solve with K (or K_ii, K - sigma M) goes through it.
  VI_SOLVER_DIRECT is the MUMPS Cholesky factorization of VIFactorCholesky; VI_SOLVER_ITERATIVE is preconditioned conjugate
  gradients with PETSc's smoothed-aggregation multigrid (GAMG) given the rigid-body modes as its near null space, which needs no
  global factorization (docs/scale.md). Options under the prefix given (e.g. "cms_st_": -cms_st_ksp_*, -cms_st_pc_gamg_*).
*/
typedef enum { VI_SOLVER_DIRECT, VI_SOLVER_ITERATIVE } VISolverType;
PETSC_EXTERN const char *const VISolverTypes[];
typedef struct _p_VISolver    *VISolver;

PETSC_EXTERN PetscErrorCode VISolverCreate(MPI_Comm comm, VISolverType type, const char prefix[], VISolver *solver);
PETSC_EXTERN PetscErrorCode VISolverSetTolerance(VISolver solver, PetscReal rtol);
PETSC_EXTERN PetscErrorCode VISolverSetNearNullSpace(VISolver solver, PetscInt n, const Vec v[]);
/* The interpolation of a two-level p-multigrid (iterative, before VISolverSetUp): the fine level smoothed (Chebyshev, Jacobi), the
   coarse P^T A P by GAMG with the near null space injected; -<prefix>pmg false keeps plain GAMG (docs/scale.md). */
PETSC_EXTERN PetscErrorCode VISolverSetInterpolation(VISolver solver, Mat P);
PETSC_EXTERN PetscErrorCode VISolverSetUp(VISolver solver, Mat A, PetscBool spd, const char what[], PetscBool *ok, PetscInt *nnull);
PETSC_EXTERN PetscErrorCode VISolverSolve(VISolver solver, Vec b, Vec x);
PETSC_EXTERN PetscErrorCode VISolverMatSolve(VISolver solver, Mat B, Mat X);
PETSC_EXTERN PetscErrorCode VISolverSetUpEPS(VISolver solver, EPS eps, PetscReal target, const char default_type[]);
PETSC_EXTERN PetscErrorCode VISolverWarnSplitPair(EPS eps, PetscInt n, PetscReal shift, const char what[], const char option[]);
PETSC_EXTERN PetscErrorCode VISolverGetType(VISolver solver, VISolverType *type);
PETSC_EXTERN PetscErrorCode VISolverView(VISolver solver, EPS eps, const char what[]);
PETSC_EXTERN PetscErrorCode VISolverDestroy(VISolver *solver);

/*
  VIModelGetRigidBodyModes - the rigid-body motions of the model's free DOFs (translations, and rotations about the centroid when
  every node carries dim >= 2 translations), orthonormalized: the near null space of K for GAMG. A parent given as matrices gets
  its translations only. Free them with VecDestroyVecs(n, &v). Collective.
*/
PETSC_EXTERN PetscErrorCode VIModelGetRigidBodyModes(VIModel model, PetscInt *n, Vec **v);
/*
  VIModelCreateCornerInterpolation - the interpolation from the DOFs of the corner nodes (the linear elements' space) to the
  model's DOFs (or to rows, this rank's subset of its DOFs): a mid-side node takes the mean of its edge's corners. NULL when no
  element has mid-side nodes. Collective.
*/
PETSC_EXTERN PetscErrorCode VIModelCreateCornerInterpolation(VIModel model, IS rows, Mat *P);

typedef struct _p_VIModal *VIModal;

PETSC_EXTERN PetscErrorCode VIModalCreate(MPI_Comm comm, VIModal *modal);
PETSC_EXTERN PetscErrorCode VIModalSetModel(VIModal modal, VIModel model);
PETSC_EXTERN PetscErrorCode VIModalSetNumModes(VIModal modal, PetscInt n);
PETSC_EXTERN PetscErrorCode VIModalSetFromOptions(VIModal modal);
PETSC_EXTERN PetscErrorCode VIModalSolve(VIModal modal);
PETSC_EXTERN PetscErrorCode VIModalGetFrequencies(VIModal modal, PetscInt *n, const PetscReal **freq_hz);
PETSC_EXTERN PetscErrorCode VIModalGetMode(VIModal modal, PetscInt k, Vec *phi);
PETSC_EXTERN PetscErrorCode VIModalView(VIModal modal, PetscViewer viewer);
PETSC_EXTERN PetscErrorCode VIModalWrite(VIModal modal, const char path[]);
PETSC_EXTERN PetscErrorCode VIModalDestroy(VIModal *modal);
/* Declares the module's options to the option registry (src/sys/options.c; once, at start-up: VIOptionsRegisterAll). */
PETSC_EXTERN PetscErrorCode VIFEMRegisterOptions(void);
