/* vicms rom module: the reduced-order model (dense, small, replicated on every rank) and its HDF5 file. */
#pragma once

#include <vicms/sys.h>
#include <vicms/contact.h>
#include <petscviewer.h>
#include <hdf5.h>

/* Reduction methods (seed 000 §3), and the two kinds of a user's own matrices written to a ROM file (not reductions vicms
   makes: -cms_type takes only the first four). */
typedef enum { VI_CMS_CB, VI_CMS_CB_MASSLESS, VI_CMS_MACNEAL, VI_CMS_RUBIN, VI_CMS_USER, VI_CMS_USER_MASSLESS } VICMSType;
PETSC_EXTERN const char *const VICMSTypes[]; /* "cb", "cb_massless", "macneal", "rubin", then PETSc's enum trailer */
/* The method attribute of a ROM file for every VICMSType: the four above, "user" and "user_massless". */
PETSC_EXTERN const char *const VIROMMethods[];

/* One contact of the ROM: its coordinates are rows offset .. offset+dim-1 of q (normal, then tangents). */
typedef struct {
  PetscInt  node_id;   /* mesh node id (file id) */
  PetscInt  dim;       /* 1 = normal only, 2 = normal + t1, 3 = normal + t1 + t2 */
  PetscInt  offset;    /* first ROM coordinate of this contact */
  PetscReal frame[9];  /* rows: normal, t1, t2, unit vectors in the global frame */
  PetscReal coords[3]; /* node position */
  PetscReal area;      /* contact area (1 unless given) */
  /* unilateral (a gap, the default) or bilateral (the row B q = 0 held at every instant, dim 1); file: contact/kinds */
  VIContactKind kind;
} VIContactInfo;

typedef struct _p_VIROM *VIROM;

PETSC_EXTERN PetscErrorCode VIROMCreate(MPI_Comm comm, VIROM *rom);
PETSC_EXTERN PetscErrorCode VIROMDestroy(VIROM *rom);

/* Allocate K, M, D (n x n, n = nb + nm, zeroed) and the frequencies (nm). Not collective. */
PETSC_EXTERN PetscErrorCode VIROMSetSizes(VIROM rom, VICMSType method, PetscInt nb, PetscInt nm);
PETSC_EXTERN PetscErrorCode VIROMGetSizes(VIROM rom, PetscInt *nb, PetscInt *nm);
PETSC_EXTERN PetscErrorCode VIROMGetMethod(VIROM rom, VICMSType *method, PetscBool *massless);
/* Row-major n x n arrays owned by the ROM; callers may fill them after VIROMSetSizes. */
PETSC_EXTERN PetscErrorCode VIROMGetMatrices(VIROM rom, PetscReal **K, PetscReal **M, PetscReal **D);
/* Natural frequencies of the component modes (fixed-interface for cb*, free-interface for macneal/rubin), Hz. */
PETSC_EXTERN PetscErrorCode VIROMGetFrequencies(VIROM rom, PetscReal **freq_hz);
PETSC_EXTERN PetscErrorCode VIROMSetContacts(VIROM rom, PetscInt n, const VIContactInfo contacts[]);
PETSC_EXTERN PetscErrorCode VIROMGetContacts(VIROM rom, PetscInt *n, const VIContactInfo **contacts);
/* Named vectors of length n: loads (f = loads·1, reduced forces) and outputs (a physical DOF = outputs·q). Copied. */
PETSC_EXTERN PetscErrorCode VIROMAddLoad(VIROM rom, const char name[], const PetscReal f[]);
PETSC_EXTERN PetscErrorCode VIROMGetNumLoads(VIROM rom, PetscInt *n);
PETSC_EXTERN PetscErrorCode VIROMGetLoad(VIROM rom, PetscInt k, const char **name, const PetscReal **f);
PETSC_EXTERN PetscErrorCode VIROMFindLoad(VIROM rom, const char name[], const PetscReal **f, PetscBool *found);
PETSC_EXTERN PetscErrorCode VIROMAddOutput(VIROM rom, const char name[], const PetscReal o[]);
PETSC_EXTERN PetscErrorCode VIROMGetNumOutputs(VIROM rom, PetscInt *n);
PETSC_EXTERN PetscErrorCode VIROMGetOutput(VIROM rom, PetscInt k, const char **name, const PetscReal **o);
PETSC_EXTERN PetscErrorCode VIROMFindOutput(VIROM rom, const char name[], const PetscReal **o, PetscBool *found);
/* Named reduced coordinate vectors q (length n) of physical fields, e.g. "translation_x": the rigid translation by a unit
   along x, projected with the parent's mass, q = (R^T M R)^-1 R^T M u. Used for physical initial conditions. */
PETSC_EXTERN PetscErrorCode VIROMAddShape(VIROM rom, const char name[], const PetscReal q[]);
PETSC_EXTERN PetscErrorCode VIROMFindShape(VIROM rom, const char name[], const PetscReal **q, PetscBool *found);
PETSC_EXTERN PetscErrorCode VIROMSetUnits(VIROM rom, const char units[]);
PETSC_EXTERN PetscErrorCode VIROMGetUnits(VIROM rom, const char **units);
/* What made the ROM (the reduction fingerprint: the options that decide it and the mesh content; root attribute
   `reduction` of the file), NULL when unknown; `vicms run` reuses a ROM file made by the same reduction. */
PETSC_EXTERN PetscErrorCode VIROMSetReduction(VIROM rom, const char reduction[]);
PETSC_EXTERN PetscErrorCode VIROMGetReduction(VIROM rom, const char **reduction);

/*
  VIROMFrame - the inertia invariants of a flexible body in a floating frame of reference (docs/frame.md; seed 001 App. C,
  Eqs. 129-140; Shabana, Dynamics of multibody systems, ch. 5), computed at reduction from the parent's elements and the
  ROM's basis (`vicms reduce -cms_frame_invariants`): the body frame is the parent mesh's axes and origin, x the undeformed
  position of a material point in it, and the displacement relative to the frame is u = sum_k Phi_k q_k, Phi_k the ROM's
  column k in the mesh's axes (the contact frames undone). dim is the parent's dimension (2: planar, 3: spatial), n the
  ROM's size. Row-major arrays:
    mass              m = int rho dV
    first_moment[i]   int rho x_i dV                                              (dim)
    second_moment     J_ij = int rho x_i x_j dV at [i*dim+j] (inertia about the origin: tr(J) 1 - J; planar I_zz = J_xx + J_yy)
    mode_moment       int rho Phi_k^j dV at [j*n+k]                               (dim x n; Shabana's S-bar)
    position_mode     int rho x_i Phi_k^j dV at [(i*dim+j)*n+k]                    (dim*dim x n)
    mode_mode         int rho Phi_k^i Phi_l^j dV at [((i*dim+j)*n+k)*n+l]          (dim*dim x n x n; its trace over i = j is M)
*/
typedef struct {
  PetscInt   dim, n;
  PetscReal  mass, first_moment[3], second_moment[9];
  PetscReal *mode_moment, *position_mode, *mode_mode;
} VIROMFrame;
/* Store the invariants (copied; dim 2 or 3, n the ROM's size). Not collective. */
PETSC_EXTERN PetscErrorCode VIROMSetFrame(VIROM rom, const VIROMFrame *frame);
/* Whether the ROM holds them (group /frame of its file). Not collective. */
PETSC_EXTERN PetscErrorCode VIROMHasFrame(VIROM rom, PetscBool *has);
/*
  VIROMGetFrameInvariants - the floating-frame invariants of the ROM, owned by it. A ROM without them (reduced without
  -cms_frame_invariants, or a user's matrices) is refused with PETSC_ERR_USER_INPUT and a message naming the ROM's file,
  `who` (the body that asks, e.g. "flexible body 'rod' (model.yaml line 12)"; may be NULL) and the fix: reduce again with
  -cms_frame_invariants. Collective in effect: the ROM is replicated, so every rank answers the same.
*/
PETSC_EXTERN PetscErrorCode VIROMGetFrameInvariants(VIROM rom, const char who[], const VIROMFrame **frame);

/*
  VIROMValidate - check a ROM: sizes consistent with the contacts (sum of dims = nb, offsets contiguous), K, M, D
  symmetric (relative 1e-10 of the largest entry), finite, K positive semi-definite (no eigenvalue below -1e-10 times the
  largest; zero eigenvalues are rigid-body modes), a massless ROM (cb_massless, macneal, user_massless) has M_bb = 0 and
  M_bi = 0 exactly, frames orthonormal; a user ROM (method user) has a positive definite M. Collective; errors (PETSC_ERR_FILE_UNEXPECTED when what
  names a file) say what is wrong and where ("rom.h5: K is not symmetric: K[3][7] = 1.2 but K[7][3] = 1.3").
*/
PETSC_EXTERN PetscErrorCode VIROMValidate(VIROM rom, const char what[]);
/* Write the ROM file of DESIGN.md (rank 0 writes, to PATH.part then renamed; all ranks return the same status). Collective. */
PETSC_EXTERN PetscErrorCode VIROMWrite(VIROM rom, const char path[]);
/* Read a ROM file on rank 0, broadcast it to every rank of the ROM's communicator, validate. A file whose version attribute is
   newer than VICMS_VERSION, or not MAJOR.MINOR.PATCH, is refused. Collective. */
PETSC_EXTERN PetscErrorCode VIROMLoad(VIROM rom, const char path[]);
/* Describe the ROM in words: method, sizes, frequencies, contacts, loads, outputs (`vicms info`). Collective. */
PETSC_EXTERN PetscErrorCode VIROMView(VIROM rom, PetscViewer viewer);

/*
  VIROMFreeFrequencies - natural frequencies (Hz, ascending) of the ROM with its boundary free: K q = w^2 M q. For a
  massless boundary the boundary coordinates are condensed statically (exact, since M_bb = M_bi = 0). Not collective;
  freq holds nb + nm entries for a mass-carrying ROM, nm for a massless one; n returns how many were written.
*/
PETSC_EXTERN PetscErrorCode VIROMFreeFrequencies(VIROM rom, PetscInt *n, PetscReal freq[]);

/* ---------------------------------------------------------------- full-field recovery (docs/fields.md) */

/* What recovers the parent's displacements from the ROM coordinates q on a set of kept nodes: u = B q (3 nk x n, x y z of each
   node in the global frame, zero where clamped), the nodes (ids, coordinates nk x 3) and the display cells (XDMF mixed layout,
   tsize entries, ncells cells, in kept-node numbers); kind says which nodes ("surface", "all", "set NAME"), length the unit. */
typedef struct {
  char       kind[96], length[32];
  PetscInt   nk, n, ncells, tsize;
  PetscInt  *ids, *topo;
  PetscReal *xyz, *basis;
} VIROMFields;
/* The group `group` of an open HDF5 file (e.g. "/fields", "/bodies/NAME/fields"): attributes kind, num_nodes, num_cells, datasets
   coordinates, node_ids, topology, basis with their units and dims. Rank-local. */
PETSC_EXTERN PetscErrorCode VIROMFieldsWrite(hid_t file, const char group[], const VIROMFields *fields);
/* Read that group (every dataset checked: sizes, finite basis); what names the file in messages. Rank-local. */
PETSC_EXTERN PetscErrorCode VIROMFieldsRead(hid_t file, const char group[], const char what[], VIROMFields *fields);
PETSC_EXTERN PetscErrorCode VIROMFieldsReset(VIROMFields *fields);
/* Point to point: src sends its fields (has: whether it has any) to dst, which receives them into fields. */
PETSC_EXTERN PetscErrorCode VIROMFieldsSend(MPI_Comm comm, PetscMPIInt src, PetscMPIInt dst, VIROMFields *fields, PetscBool *has);

/* ---------------------------------------------------------------- several substructures (seed 003) */

/* The boundary of one substructure: the nodes that may touch (slave nodes, master-segment nodes), clamped ones included. */
typedef struct {
  PetscInt   dim;       /* spatial dimension of the body's model (2 or 3) */
  PetscInt   num_nodes; /* boundary nodes */
  PetscInt  *node_ids;  /* mesh ids */
  PetscReal *coords;    /* num_nodes x 3, undeformed positions in the common frame of the job */
  PetscInt  *dofs;      /* num_nodes x 3: the ROM coordinate of each translation, -1 where clamped or beyond dim */
} VIBodyBoundary;

/* The components of a coupled system: one Craig–Bampton ROM per body, boundary DOFs physical (seed 003 §3.1.1). */
typedef struct _p_VIBodies *VIBodies;

/* How `vicms reduce -bodies` spreads the bodies over the ranks: each body on all ranks in turn, each on a rank group of its
   own (at the same time), or chosen by the balance of the groups (option -bodies_parallel). */
typedef enum { VI_BODIES_AUTO, VI_BODIES_SEQUENTIAL, VI_BODIES_GROUPS } VIBodiesParallel;
PETSC_EXTERN const char *const VIBodiesParallelTypes[]; /* "auto", "sequential", "groups", then PETSc's enum trailer */

PETSC_EXTERN PetscErrorCode VIBodiesCreate(MPI_Comm comm, VIBodies *bodies);
PETSC_EXTERN PetscErrorCode VIBodiesDestroy(VIBodies *bodies);
/* Add a body (rom is taken over: VIBodiesDestroy destroys it); the boundary arrays are copied. Not collective; the same on every rank. */
PETSC_EXTERN PetscErrorCode VIBodiesAdd(VIBodies bodies, const char name[], VIROM rom, PetscInt dim, PetscInt num_nodes, const PetscInt node_ids[],
                                        const PetscReal coords[], const PetscInt dofs[]);
PETSC_EXTERN PetscErrorCode VIBodiesGetNum(VIBodies bodies, PetscInt *n);
PETSC_EXTERN PetscErrorCode VIBodiesGet(VIBodies bodies, PetscInt k, const char **name, VIROM *rom, const VIBodyBoundary **boundary);
PETSC_EXTERN PetscErrorCode VIBodiesFind(VIBodies bodies, const char name[], PetscInt *k); /* -1 when absent */
/* The coupled system of the bodies has their ROM coordinates one body after the other: body k's start (k = number of
   bodies: the size of the coupled system). */
PETSC_EXTERN PetscErrorCode VIBodiesGetOffset(VIBodies bodies, PetscInt k, PetscInt *offset);
/* A 2D boundary node: its undeformed position and the coupled system's coordinate of each translation (-1: clamped). */
typedef struct {
  PetscInt  id;
  PetscReal X[2];
  PetscInt  dof[2];
} VIBodyNode;
/* Node id of body k's boundary table; an error naming `what` and the body when the node is not on the boundary. */
PETSC_EXTERN PetscErrorCode VIBodiesGetNode(VIBodies bodies, PetscInt k, PetscInt id, const char what[], VIBodyNode *node);
PETSC_EXTERN PetscErrorCode VIBodiesSetReduction(VIBodies bodies, const char reduction[]);
/* Body k keeps the fields of its reduction (taken over: the struct is zeroed), written by VIBodiesWrite to bodies/NAME/fields. Rank 0 of
   the bodies' communicator is the one that writes; the fields of the other ranks are not used. Not collective. */
PETSC_EXTERN PetscErrorCode VIBodiesSetFields(VIBodies bodies, PetscInt k, VIROMFields *fields);
/*
  VIBodiesWrite - the bodies file (format "vicms-bodies"): root attributes format, version, n_bodies, bodies (the names, comma
  separated, in order), reduction; per body the group bodies/NAME holding the ROM layout of DESIGN.md (attributes and
  datasets K, M, D, frequencies_hz, contact/..., loads/, outputs/) and boundary/node_ids (B), boundary/coords (B x 3),
  boundary/dofs (B x 3, -1 = clamped) with attribute boundary.dim. Rank 0 writes PATH.part, then renames. Collective.
*/
PETSC_EXTERN PetscErrorCode VIBodiesWrite(VIBodies bodies, const char path[]);
/* Read a bodies file on rank 0, broadcast, validate every ROM and boundary table. Collective. */
PETSC_EXTERN PetscErrorCode VIBodiesLoad(VIBodies bodies, const char path[]);
/* The bodies in words (`vicms info`). Collective. */
/*
  VIBodiesGather - bodies reduced on rank groups (each group's own VIBodies mine, on the group's communicator) into bodies,
  replicated on every rank of its communicator as if reduced there: body k is names[k], taken from the group whose first rank
  is leader[k] (a rank of bodies' communicator). Collective on bodies' communicator; mine gives its ROMs away (destroy it after).
*/
PETSC_EXTERN PetscErrorCode VIBodiesGather(VIBodies bodies, VIBodies mine, PetscInt n, const char *const names[], const PetscMPIInt leader[]);
PETSC_EXTERN PetscErrorCode VIBodiesView(VIBodies bodies, PetscViewer viewer);
