/* vicms coupling module: the bodies of a VIBodies coupled at a contact position of a sliding path, linearised in the
   undeformed configuration: primal assembly and complex eigenvalues (time-dependent CEA, seed 003 Eqs. 8-16) and the
   time-dependent FRF (seed 003 Eq. 45). */
#pragma once

#include <vicms/rom.h>

/* The direction in which the slave slides on the master: along the master chain (from its first node towards its last,
   the segments' T1 -> T2) or against it. The friction force on the slave opposes it (seed 003 Eq. 39, the sign ±). */
typedef enum { VI_COUPLING_FORWARD, VI_COUPLING_BACKWARD } VICouplingSliding;
PETSC_EXTERN const char *const VICouplingSlidings[]; /* "forward", "backward", PETSc enum trailer */

typedef struct _p_VICoupling *VICoupling;

PETSC_EXTERN PetscErrorCode VICouplingCreate(MPI_Comm comm, VICoupling *coupling);
PETSC_EXTERN PetscErrorCode VICouplingDestroy(VICoupling *coupling);
/* The bodies (referenced, not copied: they must outlive the coupling); every body is 2D. Not collective. */
PETSC_EXTERN PetscErrorCode VICouplingSetBodies(VICoupling coupling, VIBodies bodies);
/* The slave node (a mesh id in the boundary table of body `body`). */
PETSC_EXTERN PetscErrorCode VICouplingSetSlave(VICoupling coupling, const char body[], PetscInt node_id);
/* The master chain of body `body`, as VIDualSetMaster: segments between consecutive nodes (clamped ones allowed); the
   normal is the tangent turned by +90 degrees, towards the slave. num_nodes = 0: every boundary node, in table order. */
PETSC_EXTERN PetscErrorCode VICouplingSetMaster(VICoupling coupling, const char body[], PetscInt num_nodes, const PetscInt node_ids[]);
/* Hold component `comp` (0 = x, 1 = y) of boundary nodes of a body: the driven DOFs of the sliding (end A of seed 003
   §3.1 moved at v_x), whose perturbation is zero. They are rows of both B_C and B_E (their reactions). */
PETSC_EXTERN PetscErrorCode VICouplingAddHold(VICoupling coupling, const char body[], PetscInt num_nodes, const PetscInt node_ids[], PetscInt comp);
/* Coulomb coefficient mu of the sliding contact and the sliding direction (default 0, forward). */
PETSC_EXTERN PetscErrorCode VICouplingSetFriction(VICoupling coupling, PetscReal mu, VICouplingSliding sliding);
/* What the CEA and the FRF are linearised about: the undeformed configuration (seed 003 §1.4), or the static sliding
   state at each position (src/rom/static.c): the static equilibrium of the bodies under the loads (VICouplingAddLoad) and
   the steady sliding friction, with the slave body translated rigidly so that the slave's undeformed place is the point
   at arc length s of the undeformed master chain and the held DOFs at 0; the rows are then those of the deformed
   segment's frame (the slave projected on the deformed chain) and the stiffness gains the geometric stiffness of the
   normal force, -lambda0 d(B_E^T)/du (the turn of the segment and the lever of xi). */
typedef enum { VI_COUPLING_STATE_UNDEFORMED, VI_COUPLING_STATE_STATIC } VICouplingState;
PETSC_EXTERN const char *const VICouplingStates[]; /* "undeformed", "static", PETSc enum trailer */
PETSC_EXTERN PetscErrorCode    VICouplingSetState(VICoupling coupling, VICouplingState state);
/* A constant force F (fx, fy, total, split equally over the nodes) on boundary nodes of a body: the preload of the static state. */
PETSC_EXTERN PetscErrorCode VICouplingAddLoad(VICoupling coupling, const char body[], PetscInt num_nodes, const PetscInt node_ids[],
                                              const PetscReal F[2]);
/* The static state of the current position (state static): the displacements u0 (n, owned by the coupling), the normal
   force lambda0 >= 0 on the slave, the rotation of the deformed master segment under the slave (rad, counter-clockwise)
   and the Newton iterations taken. Not collective. */
PETSC_EXTERN PetscErrorCode VICouplingGetStaticState(VICoupling coupling, const PetscReal **u0, PetscReal *lambda0, PetscReal *slope, PetscInt *its);
/* Whether the static state of the current position failed, and why: 0 none, 1 a singular Newton system (value: LAPACK's
   info), 2 no convergence in 50 Newton steps (value: the last change over |u|), 3 a tensile normal force (value: lambda0).
   A failed position has no eigenvalues (VICouplingGetEigenvalues gives 0 of them) and a NaN FRF, u0, lambda0 and slope;
   VICouplingSetPosition does not raise an error for it, so that a failure at a position one rank computes cannot leave
   the others waiting. Not collective. */
typedef enum {
  VI_COUPLING_STATIC_OK,
  VI_COUPLING_STATIC_SINGULAR,
  VI_COUPLING_STATIC_NOT_CONVERGED,
  VI_COUPLING_STATIC_TENSILE
} VICouplingStaticFailure;
PETSC_EXTERN PetscErrorCode VICouplingGetStaticFailure(VICoupling coupling, VICouplingStaticFailure *failure, PetscReal *value);
/* The one-line reason of a failure at position s (no trailing newline). */
PETSC_EXTERN PetscErrorCode VICouplingStaticFailureMessage(VICouplingStaticFailure failure, PetscReal value, PetscReal s, char msg[], size_t len);
/* The bands of unstable positions along a path (src/rom/bands.c, vicms cea -cea_band_tol): f gives at position s the
   largest real part of the kept eigenvalues and its frequency [Hz], or failed (no state there: a failed static state).
   From the samples re[p], hz[p] at pos[p] (NaN: failed), each band (rows of VI_BAND_COLS: start, end, peak real part, its s,
   its Hz) has its edges located by bisection to tol and its peak by golden-section search; widths (B x 2) are the
   widths of the intervals its start and end are known to lie in (<= tol located, 0 at an end of the range, larger where
   failed points stopped the bisection or next to a failed sample). f is called on one rank at a time for a point; the
   results are the same on any number of ranks. Collective; the arrays are the caller's to free. */
#define VI_BAND_COLS 5
typedef PetscErrorCode (*VIBandFunction)(void *ctx, PetscReal s, PetscReal *re, PetscReal *hz, PetscBool *failed);
PETSC_EXTERN PetscErrorCode VIBandsLocate(MPI_Comm comm, PetscInt np, const PetscReal pos[], const PetscReal re[], const PetscReal hz[],
                                          PetscReal tol, VIBandFunction f, void *ctx, PetscInt *num_bands, PetscReal **bands, PetscReal **widths);
/* Options: -coupling_mu, -coupling_sliding forward|backward. Collective. */
PETSC_EXTERN PetscErrorCode VICouplingSetFromOptions(VICoupling coupling);
PETSC_EXTERN PetscErrorCode VICouplingSetUp(VICoupling coupling);
/* The length of the master chain in the undeformed configuration (the range of the contact positions). */
PETSC_EXTERN PetscErrorCode VICouplingGetLength(VICoupling coupling, PetscReal *length);
/*
  VICouplingSetPosition - put the slave at arc length s (0 <= s <= length) along the undeformed master chain: segment k,
  xi = (s - s_k) / l_k (seed 003 Eq. 36), and build the rows (seed 003 Eqs. 42, 44) in the segment's undeformed frame
  (tangent t = T1T2 / l, normal n = t turned by +90 degrees):
    B_C = B_N = n . (e_C - (1 - xi) e_T1 - xi e_T2)    (compatibility, normal only, Eq. 44)
    B_E = B_N - d mu B_T,  B_T the same with t          (equilibrium, Eq. 42; d = +1 forward, -1 backward)
  so that M u'' + C u' + K u = f + B_E^T lambda, B_C u = 0, lambda the normal force on the slave. Each held DOF adds the
  row e_i to both. Not collective.
*/
PETSC_EXTERN PetscErrorCode VICouplingSetPosition(VICoupling coupling, PetscReal s);
/* The segment and xi of the current position. */
PETSC_EXTERN PetscErrorCode VICouplingGetPosition(VICoupling coupling, PetscReal *s, PetscInt *segment, PetscReal *xi);
/* The rows at the current position, dense num_rows x n (row-major; n the coordinates of all bodies, body after body):
   the contact row first, then one per held DOF. */
PETSC_EXTERN PetscErrorCode VICouplingGetRows(VICoupling coupling, PetscInt *num_rows, PetscInt *n, const PetscReal **BC, const PetscReal **BE);
/*
  VICouplingGetPrimal - the primal assembly at the current position (seed 003 Eqs. 8-14): L_C, L_E null-space bases of
  B_C, B_E (n x m, Eq. 10, by Gauss-Jordan elimination: u = L_C q), and M~ = L_E^T M L_C, C~ = L_E^T C L_C,
  K~ = L_E^T K L_C (m x m, row-major), non-symmetric with friction. The arrays belong to the coupling and are valid until
  the next VICouplingSetPosition. Not collective.
*/
PETSC_EXTERN PetscErrorCode VICouplingGetPrimal(VICoupling coupling, PetscInt *m, const PetscReal **LC, const PetscReal **LE, const PetscReal **Mt,
                                                const PetscReal **Ct, const PetscReal **Kt);
/*
  VICouplingGetEigenvalues - the complex eigenvalues at the current position (time-dependent CEA, seed 003 §1.4, §4): those
  of the first-order form (Eq. 15) y' = A y, y = (q, q'), A = [0 I; -M~^-1 K~, -M~^-1 C~], by LAPACK geev; one of each
  conjugate pair (imaginary part >= 0, real eigenvalues included), sorted by imaginary part. Not collective.
*/
PETSC_EXTERN PetscErrorCode VICouplingGetEigenvalues(VICoupling coupling, PetscInt *num, const PetscReal **re, const PetscReal **im);
/*
  VICouplingGetEigenvectors - the right eigenvectors of the eigenvalues of VICouplingGetEigenvalues at the current position
  (same count, same order), as displacements of the coupled system: u = L_C q (seed 003 Eq. 8), where y = (q, lambda q) is
  the eigenvector of A for lambda (Eqs. 15-16), i.e. (lambda^2 M~ + lambda C~ + K~) q = 0 (Eq. 13). vr, vi: num x n
  (row-major; n the coordinates of all bodies, body after body, as VICouplingGetRows), the real and imaginary parts.
  Normalised: ||u||_2 = 1 over the n coordinates, and w^T u real and > 0 with the fixed weights
  w_i = frac((i + 1) (sqrt(5) - 1) / 2), i = 0 .. n-1 (a rule free of ties between entries of equal modulus); zeros are +0.
  The eigenvalues themselves do not change. The arrays belong to the coupling and are valid until the next
  VICouplingSetPosition. Not collective.
*/
PETSC_EXTERN PetscErrorCode VICouplingGetEigenvectors(VICoupling coupling, PetscInt *num, PetscInt *n, const PetscReal **vr, const PetscReal **vi);
/*
  VICouplingComputeStability - the CEA along the path: at each of the num_positions positions, the num_modes lowest
  eigenvalues (as VICouplingGetEigenvalues; NaN beyond the last), frequency Im/(2 pi) [Hz] and real part [1/s], arrays
  num_positions x num_modes. The positions are distributed over the ranks and gathered: every rank gets the same arrays,
  which do not depend on the number of ranks. Leaves no position set. Collective.
*/
PETSC_EXTERN PetscErrorCode VICouplingComputeStability(VICoupling coupling, PetscInt num_positions, const PetscReal positions[], PetscInt num_modes,
                                                       PetscReal freq_hz[], PetscReal real[]);
/*
  VICouplingComputeModeShapes - the eigenvectors (as VICouplingGetEigenvectors) of selected modes along the path: keep
  (num_positions x num_modes, the same on every rank) selects mode j of position p, as numbered by
  VICouplingComputeStability. Row k of vr, vi (num_kept x n, row-major) is the k-th selected (p, j) in the order of keep
  (p first); NaN for a selected j beyond the last eigenvalue. The positions with a selected mode are dealt to the ranks and
  gathered: every rank gets the same arrays, which do not depend on the number of ranks. Leaves no position set. Collective.
*/
PETSC_EXTERN PetscErrorCode VICouplingComputeModeShapes(VICoupling coupling, PetscInt num_positions, const PetscReal positions[], PetscInt num_modes,
                                                        const PetscBool keep[], PetscReal vr[], PetscReal vi[]);
/* Print the unstable modes (real part > 0) of a VICouplingComputeStability result: position, segment, xi, frequency, real
   part; and the largest real part. Collective. */
PETSC_EXTERN PetscErrorCode VICouplingStabilityView(VICoupling coupling, PetscInt num_positions, const PetscReal positions[], PetscInt num_modes,
                                                    const PetscReal freq_hz[], const PetscReal real[], PetscViewer viewer);
/*
  VICouplingComputeFRF - the time-dependent FRF (seed 003 Eq. 45)
    H^C(jw, s) = H(jw) - H(jw) B_E(s)^T (B_C(s) H(jw) B_E(s)^T)^-1 B_C(s) H(jw),   H(jw) = blkdiag (K - w^2 M + j w C)^-1,
  between num_inputs force vectors `in` (num_inputs x n, row-major) and num_outputs output vectors `out` (num_outputs x n):
  H[(((p nf + f) no + o) ni + i) 2 + (0 re, 1 im)] = out_o^T H^C(j 2 pi freq_hz[f], positions[p]) in_i. The frequency lines
  are distributed over the ranks (each factors the bodies' dynamic stiffnesses once per line, then all positions) and
  gathered: every rank gets the same array, independent of the number of ranks. Leaves no position set. Collective.
*/
PETSC_EXTERN PetscErrorCode VICouplingComputeFRF(VICoupling coupling, PetscInt num_inputs, const PetscReal in[], PetscInt num_outputs,
                                                 const PetscReal out[], PetscInt num_positions, const PetscReal positions[], PetscInt num_freq,
                                                 const PetscReal freq_hz[], PetscReal H[]);
/* The global coordinate of component comp of a boundary node of a body (-1 if clamped): to build input/output vectors. */
PETSC_EXTERN PetscErrorCode VICouplingGetNodeDof(VICoupling coupling, const char body[], PetscInt node_id, PetscInt comp, PetscInt *dof);
PETSC_EXTERN PetscErrorCode VICouplingView(VICoupling coupling, PetscViewer viewer);
/* Declares the module's options to the option registry (src/sys/options.c; once, at start-up: VIOptionsRegisterAll). */
PETSC_EXTERN PetscErrorCode VICouplingRegisterOptions(void);
