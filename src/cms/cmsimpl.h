/* Private layout of VICMS and the pieces of the reduction shared by its files. */
#pragma once

#include <vicms/cms.h>
#include <petscksp.h>
#include <slepceps.h>

#define VI_CMS_MAX_ITEMS 256

struct _p_VICMS {
  MPI_Comm  comm;
  VIModel   model;
  VICMSType type;
  PetscInt  num_modes;

  /* contact boundary as given */
  PetscInt *contact_ids, num_contact_ids;
  char     *contact_sets[VI_CMS_MAX_ITEMS]; /* node sets, their union in the order given */
  PetscInt  num_contact_sets;
  PetscInt  contact_dirs;
  PetscBool contact_dirs_set, frame_set;
  char      prefix[64]; /* options prefix ("" or e.g. "body_a_"), also in messages */
  /* physical boundary (a substructure of seed 003): every translational DOF of the boundary nodes kept in the global frame;
     boundary nodes whose DOFs are all clamped stay in the boundary table with no ROM coordinate */
  PetscBool  physical;
  PetscInt   num_bnodes, *bnode_ids, *bnode_dofs; /* dofs: num_bnodes x 3, ROM coordinate or -1 */
  PetscReal *bnode_coords;                        /* num_bnodes x 3 */
  PetscReal  normal[3], radial_axis[3], radial_origin[3], t1_hint[3], area;
  PetscBool  radial, radial_inward, t1_hint_set;

  VISolverType solver_type;     /* -cms_solver: direct (MUMPS) or iterative (CG + GAMG, LOBPCG) */
  PetscReal    tol;             /* -cms_tol: the eigensolver's tolerance and the iterative solves' relative residual; 0 = the path's default */
  PetscReal    rigid_stiffness; /* artificial boundary stiffness for free-floating parents (seed 000 §3.1), 0 = none */
  PetscReal    damping_ratio, damping_ratios[VI_CMS_MAX_ITEMS], rayleigh[2];
  PetscInt     num_damping_ratios;
  PetscBool    rayleigh_set, gravity_set;
  PetscReal    gravity[3];
  char        *forces[VI_CMS_MAX_ITEMS], *outputs[VI_CMS_MAX_ITEMS];
  PetscInt     num_forces, num_outputs;
  char         units[64];
  VICMSFields  fields;         /* -cms_fields: which rows of the basis the ROM file keeps for vicms fields (fields.c) */
  char         fields_set[64]; /* -cms_fields_nodes: those of a node set instead */
  PetscBool    frame_invariants; /* -cms_frame_invariants: the ROM gets the floating-frame invariants (VICMSFrameInvariants) */

  /* boundary, after VICMSSetUpBoundary */
  PetscInt       num_contacts, nb;
  VIContactInfo *contacts;
  PetscInt      *contact_node; /* mesh node index per contact */
  PetscInt      *contact_dof;  /* num_contacts x dim: their global equation numbers (VIModelGetNodeDofs) */
  PetscInt      *b_dofs;       /* global equation numbers of the nb boundary coordinates, in contact order */
  Mat            Q;            /* u = Q u_hat: identity but at contact nodes, where u_node = T^T u_hat_node */
  Mat            K, M;         /* K_hat = Q^T K Q, M_hat = Q^T M Q */
  IS             is_b, is_i;   /* this rank's boundary rows (contact order) and inner rows, global numbers */
  VecScatter     b_gather;     /* full vector -> all nb boundary values on every rank */
  Vec            b_values;     /* sequential, nb */

  /* basis, after the method's routine */
  Mat        R;      /* MPIDENSE, N x (nb + nm), rows as K_hat */
  PetscReal *omega2; /* nm squared frequencies of the component modes */
};

PETSC_INTERN PetscErrorCode VICMSSetUpBoundary(VICMS cms);
/* Basis R of the Craig–Bampton family (seed 000 Eqs. 20, 22–23) and of the MacNeal/Rubin family (Eqs. 16–18). */
PETSC_INTERN PetscErrorCode VICMSBasisCraigBampton(VICMS cms);
PETSC_INTERN PetscErrorCode VICMSBasisMacNeal(VICMS cms);
/* Reduced matrices, damping, loads and outputs from R (Eqs. 19, 21, 24). */
PETSC_INTERN PetscErrorCode VICMSProject(VICMS cms, VIROM rom);

/* The floating-frame inertia invariants of the basis (VIROMFrame, docs/frame.md) from the parent's elements, into rom. */
PETSC_INTERN PetscErrorCode VICMSFrameInvariants(VICMS cms, VIROM rom);

/* The solver of A (-cms_solver): MUMPS's Cholesky factorization whose null pivots are counted (a singular matrix is a user error
   naming what), or CG + GAMG with the rigid-body modes (inner: restricted to the inner DOFs) as near null space. */
PETSC_INTERN PetscErrorCode VICMSFactor(VICMS cms, Mat A, PetscBool inner, const char what[], VISolver *solver);
/* Lowest eigenpairs of (A, B) with the factorization of A reused as shift-and-invert at 0; X is MPIDENSE (rows of A) x n, each column
   mass-normalized and turned so that w . x > 0 (w from VIModelGetSignWeights, in the layout of A: the sign convention of vicms). */
PETSC_INTERN PetscErrorCode VICMSEigenModes(VICMS cms, Mat A, Mat B, VISolver solver, PetscInt n, const char what[], Vec w, Mat *X,
                                            PetscReal omega2[]);
/* R^T A R (n x n, on every rank) and R^T v (n, on every rank), n = columns of R. */
PETSC_INTERN PetscErrorCode VICMSRtAR(VICMS cms, Mat A, PetscReal out[]);
PETSC_INTERN PetscErrorCode VICMSRtV(VICMS cms, Vec v, PetscReal out[]);
/* Copy between a vector of the inner DOFs (layout of is_i) and the inner rows of a full-space vector. */
PETSC_INTERN PetscErrorCode VICMSInnerToFull(VICMS cms, Vec inner, Vec full);
PETSC_INTERN PetscErrorCode VICMSFullToInner(VICMS cms, Vec full, Vec inner);
/* Local rows of a dense matrix as a column-major array: C(m x n) = alpha op(A) B + beta C with BLAS. */
PETSC_INTERN PetscErrorCode VIDenseGemm(const char ta[], PetscInt m, PetscInt n, PetscInt k, PetscReal alpha, const PetscReal A[], PetscInt lda,
                                        const PetscReal B[], PetscInt ldb, PetscReal beta, PetscReal C[], PetscInt ldc);
/* All nb boundary values of a full-space vector, on every rank. */
PETSC_INTERN PetscErrorCode VICMSGatherBoundary(VICMS cms, Vec x, PetscReal values[]);
