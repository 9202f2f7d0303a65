/* vicms cms module: component mode synthesis of the parallel parent model into a ROM (seed 000 §3). */
#pragma once

#include <vicms/fem.h>
#include <vicms/rom.h>

typedef struct _p_VICMS *VICMS;

PETSC_EXTERN PetscErrorCode VICMSCreate(MPI_Comm comm, VICMS *cms);
PETSC_EXTERN PetscErrorCode VICMSSetModel(VICMS cms, VIModel model);
PETSC_EXTERN PetscErrorCode VICMSSetType(VICMS cms, VICMSType type);
PETSC_EXTERN PetscErrorCode VICMSSetNumModes(VICMS cms, PetscInt n);
/* Contact boundary: node ids (file ids) with dirs coordinates each (1 normal, 2 normal + t1, 3 normal + t1 + t2). */
PETSC_EXTERN PetscErrorCode VICMSSetContactNodes(VICMS cms, PetscInt n, const PetscInt ids[], PetscInt dirs);
/* Options: -cms_type, -cms_num_modes, -cms_contact_nodes | -cms_contact_set, -cms_contact_dirs, -cms_contact_normal,
   -cms_contact_radial_axis/-cms_contact_radial_origin, -cms_contact_t1, -cms_contact_area, -cms_rigid_stiffness,
   -cms_damping_ratio(s), -cms_rayleigh, -cms_gravity, -cms_forces, -cms_outputs, -cms_units; SLEPc/MUMPS through
   -cms_eps_*, -cms_st_* . */
PETSC_EXTERN PetscErrorCode VICMSSetFromOptions(VICMS cms);

/*
  VICMSReduce - build the reduced-order model. Collective.

  Selects the boundary, rotates the contact nodes into their local frames so that the ROM's first coordinates are the
  contact coordinates (W_b = I, seed 000 §3), computes the component modes of the chosen method in parallel (SLEPc
  shift-and-invert with one MUMPS factorization that also gives the static or attachment modes), forms the basis R and
  the reduced matrices, damping, loads and outputs, and stores them in rom (replicated on every rank).
*/
PETSC_EXTERN PetscErrorCode VICMSReduce(VICMS cms, VIROM rom);
PETSC_EXTERN PetscErrorCode VICMSView(VICMS cms, PetscViewer viewer);
PETSC_EXTERN PetscErrorCode VICMSDestroy(VICMS *cms);
