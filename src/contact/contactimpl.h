/* Private structure of VIContactSolver: the options and the work arrays the solve reuses from call to call. */
#pragma once

#include <vicms/contact.h>
#include <petscblaslapack.h>

struct _p_VIContactSolver {
  MPI_Comm            comm;
  VIContactSolverType type;
  PetscReal           tol;      /* on ||x - proj_C(x - eps (G x + c))||_inf / max(1, ||x||_inf) */
  PetscInt            max_it;   /* iterations (sweeps) at most */
  PetscReal           omega;    /* over-relaxation of projected Jacobi, in (0, 2) */
  PetscReal           al_scale; /* s in eps_i = s / G_ii (or s / sum_j |G_ij|) */
  PetscInt            m_alloc;  /* length of each work array below */
  PetscReal          *eps;      /* m: augmented-Lagrangian parameter per row (one value per tangential block) */
  PetscReal          *y;        /* m: G x + c */
  PetscReal          *z;        /* m: proj_C(x - eps (G x + c)) */

  /* the operator of the solves: set by VIContactSolverSetOperator (or by a solve given G), referenced, not copied */
  const PetscReal *G;
  PetscInt         m;

  /* semi-smooth Newton (newton.c): the Jacobian of the natural map, its LU factors and the pattern they were built for */
  PetscInt      n_alloc;
  PetscReal    *J, *F, *d, *xt, *yt, *zt, *P; /* m x m, m, m, m, m, m, 3 x 3 per row block (m x 3) */
  PetscBLASInt *pivots;
  PetscInt     *pattern, *lu_pattern, *keep; /* per row: 0 open, 1 closed normal, 2 stick tangent, 3 slip tangent */
  PetscInt      nkeep;
  PetscBool     lu_valid;
  PetscInt      factorizations; /* LU factorizations made (reported with -info) */
};

/* Shared by the solvers (solver.c): eps of the operator set (Studer 2009), y = G x + c, and z = proj_C(x - eps y) with
   the residual ||x - z||_inf / max(1, ||x||_inf). */
PETSC_INTERN void      VIContactResidualForce(PetscInt m, const PetscReal G[], const PetscReal c[], const PetscReal x[], PetscReal y[]);
PETSC_INTERN PetscReal VIContactProject(const VIContactSet *set, const PetscReal eps[], const PetscReal x[], const PetscReal y[], PetscReal z[]);
/* Semi-smooth Newton on x - proj_C(x - eps (G x + c)) = 0 (newton.c); it, res: iterations made and the final residual. */
PETSC_INTERN PetscErrorCode VIContactSolveNewton(VIContactSolver solver, const VIContactSet *set, const PetscReal c[], PetscReal x[], PetscInt *it,
                                                 PetscReal *res);
PETSC_INTERN PetscErrorCode VIContactNewtonDestroy(VIContactSolver solver);
