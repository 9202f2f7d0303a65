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
/* Options: -cms_type, -cms_num_modes, -cms_contact_nodes | -cms_contact_set SET[,SET...], -cms_contact_dirs, -cms_contact_normal,
   -cms_contact_radial_axis/-cms_contact_radial_origin, -cms_contact_t1, -cms_contact_area, -cms_rigid_stiffness,
   -cms_damping_ratio(s), -cms_rayleigh, -cms_gravity, -cms_forces, -cms_outputs, -cms_units; SLEPc/MUMPS through
   -cms_eps_*, -cms_st_* . */
PETSC_EXTERN PetscErrorCode VICMSSetFromOptions(VICMS cms);
/* Options prefix (e.g. "body_a_": -body_a_cms_num_modes); before VICMSSetFromOptions. SLEPc and MUMPS keep -cms_eps_*, -cms_st_*. */
PETSC_EXTERN PetscErrorCode VICMSSetOptionsPrefix(VICMS cms, const char prefix[]);
/*
  VICMSSetPhysicalBoundary - keep every translational DOF of the boundary nodes as a ROM coordinate, in the global frame
  (x, y[, z] per node, contact frames the identity), as the substructures of seed 003 §3.1.1 need: the coupling rows B_C,
  B_E (seed 003 Eqs. 42, 44) address physical DOFs. Boundary nodes whose DOFs are all clamped (the master node at a clamped
  end) are kept in the boundary table (VICMSGetBoundaryNodes) without ROM coordinates; a partly clamped one is refused.
  -cms_contact_dirs, -cms_contact_normal and the other frame options are refused in this mode. Before VICMSReduce.
*/
PETSC_EXTERN PetscErrorCode VICMSSetPhysicalBoundary(VICMS cms, PetscBool physical);
/*
  VICMSGetBoundaryNodes - the boundary nodes after VICMSReduce, in the order given (node sets: the union in the order of the
  sets, each set by node id): mesh ids, coordinates (n x 3) and the ROM coordinate of each component (n x 3, -1 where clamped
  or beyond the model's dimension; with a physical boundary, node k's component d is coordinate dofs[3k+d]). Arrays owned
  by cms. Not collective.
*/
PETSC_EXTERN PetscErrorCode VICMSGetBoundaryNodes(VICMS cms, PetscInt *n, const PetscInt **ids, const PetscReal **coords, const PetscInt **dofs);

/*
  VICMSReduce - build the reduced-order model. Collective.

  Selects the boundary, rotates the contact nodes into their local frames so that the ROM's first coordinates are the
  contact coordinates (W_b = I, seed 000 §3), computes the component modes of the chosen method in parallel (SLEPc
  shift-and-invert with one MUMPS factorization that also gives the static or attachment modes), forms the basis R and
  the reduced matrices, damping, loads and outputs, and stores them in rom (replicated on every rank).
*/
PETSC_EXTERN PetscErrorCode VICMSReduce(VICMS cms, VIROM rom);
/* Which parent nodes the ROM file keeps the basis rows of, to recover displacements (vicms fields, docs/fields.md). */
typedef enum { VI_CMS_FIELDS_SURFACE, VI_CMS_FIELDS_ALL, VI_CMS_FIELDS_NONE } VICMSFields;
PETSC_EXTERN const char *const VICMSFieldsTypes[];
/*
  VICMSWriteFields - add the group /fields to the ROM file at path (written by VIROMWrite): the rows of u = Q R q on the kept
  nodes (3 per node, x y z in the global frame, zero where clamped), the nodes' ids and coordinates, and the cells that show
  them (XDMF mixed topology in kept-node numbers: the free faces of the solid elements for surface, the elements for all, the
  faces of the surface within the set for -cms_fields_nodes, else a vertex per node). Each rank takes the kept rows it owns,
  rank 0 gathers those rows only and writes. Nothing with -cms_fields none. Collective.
*/
PETSC_EXTERN PetscErrorCode VICMSWriteFields(VICMS cms, VIROM rom, const char path[]);
/* The same rows, nodes and cells in fields (sizes on every rank, the arrays on rank 0 only; nk = 0 with -cms_fields none), for
   a caller that writes them elsewhere (the bodies of `vicms reduce -bodies`). VIROMFieldsReset(fields) after. Collective. */
PETSC_EXTERN PetscErrorCode VICMSComputeFields(VICMS cms, VIROM rom, VIROMFields *fields);
PETSC_EXTERN PetscErrorCode VICMSView(VICMS cms, PetscViewer viewer);
PETSC_EXTERN PetscErrorCode VICMSDestroy(VICMS *cms);

/*
  VICMSReduceBody - the per-body step of a multi-body job (seed 003 §3.1.1): the body's mesh, parent model and Craig–Bampton
  reduction with its boundary DOFs physical (VICMSSetPhysicalBoundary), read from the options of the single-body reduction
  under the prefix -body_NAME_ (-body_NAME_mesh_file, -body_NAME_mesh_elset (from -bodies_mesh_file without a file of its
  own), -body_NAME_model_young, -body_NAME_cms_contact_set, ...; the method
  defaults to cb), added to bodies under NAME. With help, only the options are read (for -help). Collective on comm: the body
  is reduced on all ranks of comm.
*/
PETSC_EXTERN PetscErrorCode VICMSReduceBody(MPI_Comm comm, const char name[], VIBodies bodies, PetscBool help);
/* The size of body NAME's parent model, nodes x dimension (its mesh read or generated from the -body_NAME_ options, on
   comm; the cost by which `vicms reduce -bodies_parallel groups` balances the rank groups). Collective on comm. */
PETSC_EXTERN PetscErrorCode VICMSBodyGetSize(MPI_Comm comm, const char name[], PetscInt *ndofs);
/* Declares the module's options to the option registry (src/sys/options.c; once, at start-up: VIOptionsRegisterAll). */
PETSC_EXTERN PetscErrorCode VICMSRegisterOptions(void);
