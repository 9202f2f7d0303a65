/* vicms contact module: projections onto the admissible contact forces and solvers of the implicit inclusion
   -(G x + c) ∈ N_C(x) (seed 000 Eqs. 5–7 and App. C). */
#pragma once

#include <vicms/sys.h>

/* Projection onto R+ (seed 000 Eq. C.3). */
PETSC_EXTERN PetscReal VIProjectHalfLine(PetscReal xi);
/* Projection of a tangential vector xi (dimension 1 or 2) onto the disk of radius r >= 0 (Eq. C.4), in place. */
PETSC_EXTERN void VIProjectDisk(PetscInt dim, PetscReal r, PetscReal xi[]);

typedef enum { VI_CONTACT_SOLVER_JACOBI, VI_CONTACT_SOLVER_GAUSS_SEIDEL, VI_CONTACT_SOLVER_NEWTON } VIContactSolverType;
PETSC_EXTERN const char *const VIContactSolverTypes[]; /* "jacobi", "gauss_seidel", "newton", PETSc enum trailer */

/* The kind of a contact: unilateral (a gap g >= 0 with a multiplier in R+, the default) or bilateral (a constraint row
   B q = 0, seed 002 Eq. 1c, whose multiplier has free sign: its admissible set is R, the projection onto it the identity). */
typedef enum { VI_CONTACT_UNILATERAL, VI_CONTACT_BILATERAL } VIContactKind;
PETSC_EXTERN const char *const VIContactKinds[]; /* "unilateral", "bilateral", PETSc enum trailer */

/* The contacts of one inclusion problem, in the order of the unknowns: contact j owns dims[j] consecutive unknowns,
   normal first, then its tangents (0, 1 or 2). C_j = R+ for dims[j] = 1, else R+ x D(mu_j (x_n,j + preload_j)); a
   bilateral contact has dims[j] = 1 and C_j = R (an equality row: no friction, no preload). A solver handles a mixed
   set of unilateral, frictional and bilateral contacts when it is given the set: nothing else changes for its caller.
   Initialize a set whole (VIContactSet set = {0}, or VISystemGetContactSet): kinds = NULL keeps the old meaning. */
typedef struct {
  PetscInt             num_contacts;
  const PetscInt      *dims;    /* 1, 2 or 3 per contact */
  const PetscReal     *mu;      /* friction coefficient per contact (ignored where dims = 1) */
  const PetscReal     *preload; /* normal preload lambda0_n per contact (0 for an initially open contact), may be NULL */
  const VIContactKind *kinds;   /* per contact, may be NULL: every contact unilateral */
} VIContactSet;

/* Whether contact j of the set is bilateral. */
static inline PetscBool VIContactSetIsBilateral(const VIContactSet *set, PetscInt j)
{
  return set->kinds && set->kinds[j] == VI_CONTACT_BILATERAL ? PETSC_TRUE : PETSC_FALSE;
}

typedef struct {
  PetscInt  iterations;
  PetscReal residual; /* ||x - proj_C(x - eps (G x + c))||_inf / max(1, ||x||_inf), at exit */
  PetscBool converged;
} VIContactSolveInfo;

typedef struct _p_VIContactSolver *VIContactSolver;

PETSC_EXTERN PetscErrorCode VIContactSolverCreate(MPI_Comm comm, VIContactSolver *solver);
/* Options (prefix -contact_): -contact_solver newton|jacobi|gauss_seidel (default newton), -contact_tol (1e-10),
   -contact_max_it (1000), -contact_relaxation omega (over-relaxation of projected Jacobi, default 1; (0, 2)),
   -contact_al_scale s (scale of the augmented-Lagrangian parameter, default 1). */
PETSC_EXTERN PetscErrorCode VIContactSolverSetFromOptions(VIContactSolver solver);
PETSC_EXTERN PetscErrorCode VIContactSolverSetType(VIContactSolver solver, VIContactSolverType type);
PETSC_EXTERN PetscErrorCode VIContactSolverGetType(VIContactSolver solver, VIContactSolverType *type);
PETSC_EXTERN PetscErrorCode VIContactSolverSetTolerances(VIContactSolver solver, PetscReal tol, PetscInt max_it);
PETSC_EXTERN PetscErrorCode VIContactSolverSetALScale(VIContactSolver solver, PetscReal s);
PETSC_EXTERN PetscErrorCode VIContactSolverSetRelaxation(VIContactSolver solver, PetscReal omega);
/*
  VIContactSolverSetOperator - the Delassus matrix G (m x m, row-major, symmetric positive semi-definite, positive
  diagonal) and the contact set of the solves that follow with G = NULL. G is referenced, not copied: it must stay
  unchanged until the next VIContactSolverSetOperator. Setting it checks the set and computes eps, which a sequence of
  solves on the same operator (one per time step on the same active contacts) then shares.
*/
PETSC_EXTERN PetscErrorCode VIContactSolverSetOperator(VIContactSolver solver, const VIContactSet *set, PetscInt m, const PetscReal G[]);
/*
  VIContactSolverSolve - solve -(G x + c) ∈ N_C(x), i.e. x = proj_C[x - eps (G x + c)] (seed 000 Eq. C.2). A bilateral
  row k has C = R: its condition is the equation (G x + c)_k = 0 (Jacobi and Gauss-Seidel: the unprojected step
  x_k - eps_k (G x + c)_k; Newton: always a closed row), so a set of bilateral rows only is the linear solve G x = -c.

  Not collective (a case runs on one rank or its group, the problem is small and dense).
  G   - m x m, row-major, symmetric positive semi-definite (the Delassus matrix on the active contacts); NULL: the
        operator of the last VIContactSolverSetOperator (set and m must be the same)
  c   - m
  x   - in: initial guess (warm start); out: the solution
  eps - after Studer (2009): eps_i = s / G_ii when G is diagonally dominant (every row, non-strictly; G_ii > 0 is
        required), else s / sum_j |G_ij|; the two tangent rows of one contact share the smaller of their values, so
        that the fixed point keeps the sliding velocity opposite to the friction force on the round disk. The
        over-relaxation omega acts on Jacobi only; omega > 1 may diverge when eps = s / G_ii.
  newton: semi-smooth Newton on x - proj_C(x - eps (G x + c)) = 0 with LU factors of the closed contacts' rows, kept
        within the solve while the open/stick/slip pattern stays the same (src/contact/newton.c); where it cannot
        decrease the residual it hands over to projected Jacobi, within the same max_it.

  A solve that reaches max_it returns normally with info->converged = PETSC_FALSE: the caller counts and reports it.
*/
PETSC_EXTERN PetscErrorCode VIContactSolverSolve(VIContactSolver solver, const VIContactSet *set, PetscInt m, const PetscReal G[],
                                                 const PetscReal c[], PetscReal x[], VIContactSolveInfo *info);
PETSC_EXTERN PetscErrorCode VIContactSolverDestroy(VIContactSolver *solver);
/* Declares the module's options to the option registry (src/sys/options.c; once, at start-up: VIOptionsRegisterAll). */
PETSC_EXTERN PetscErrorCode VIContactRegisterOptions(void);
