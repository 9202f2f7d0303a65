/* Private structure of VIContactSolver: the options and the work arrays the solve reuses from call to call. */
#pragma once

#include <vicms/contact.h>

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
};
