/* The private layout of VICoupling (coupling.c: the undeformed linearisation, the CEA and the FRF; static.c: the static
   sliding state and the linearisation about it). */
#pragma once
#include <vicms/coupling.h>

struct _p_VICoupling {
  MPI_Comm          comm;
  VIBodies          bodies; /* referenced */
  PetscInt          num_bodies, n;
  PetscInt         *off; /* num_bodies + 1 */
  const PetscReal **K, **M, **D;

  PetscInt          slave_body, master_body, num_master, num_held;
  VIBodyNode        slave, *master;
  PetscReal        *arc; /* num_master: arc length of each master node */
  PetscBool        *held;
  PetscReal         mu;
  VICouplingSliding sliding;
  PetscBool         setup;
  VICouplingState   state; /* the linearisation: undeformed, or about the static sliding state (static.c) */
  PetscReal        *load;  /* n: the constant loads of the static state (the preload) */

  /* the static state at the current position (VICouplingStaticLinearise): u0 (n), the normal force, the segment's
     rotation, and the geometric stiffness of the multiplier on the 6 coordinates of C, T1, T2 (-1: clamped) */
  PetscReal              *u0, lambda0, slope;
  PetscInt                kg_dof[6], static_its;
  PetscReal               kg[36];
  VICouplingStaticFailure static_failure; /* VICouplingGetStaticFailure: the position has no state, no eigenvalues */
  PetscReal               static_value;

  /* at the current position */
  PetscBool  has_position, has_primal, has_eigen, has_vectors;
  PetscReal  s, xi;
  PetscInt   seg, num_rows, m, num_eig;
  PetscReal *BC, *BE;              /* num_rows x n */
  PetscReal *LC, *LE;              /* n x m */
  PetscReal *Mt, *Ct, *Kt;         /* m x m */
  PetscReal *eig_re, *eig_im;      /* 2m */
  PetscReal *vec_re, *vec_im;      /* num_eig x n: u = L_C q of each eigenvalue */
  PetscInt   num_set, *set, *sidx; /* the coordinates any row can touch (slave, master, held), and their index (n, -1) */

  /* the FRF's rows of the positions of its last call, on the set (VICouplingComputeFRF is called line by line: the static
     state's Newton is not redone per line): frf_np positions, per position its row count (-1: the static state failed) and
     (num_rows + 6) x num_set rows B_C, B_E extended by the geometric stiffness's */
  PetscInt   frf_np, *frf_nr;
  PetscReal *frf_pos, *frf_BC, *frf_BE;
};

/* The static state at the current position (c->s) under the loads and the steady sliding friction, then the rows in the
   deformed segment's frame and the geometric stiffness of the normal force (static.c). */
PETSC_INTERN PetscErrorCode VICouplingStaticLinearise(VICoupling c);
