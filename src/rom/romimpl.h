/* Private structure of VIROM: the reduced-order model, replicated on every rank of its communicator. */
#pragma once

#include <vicms/rom.h>
#include <vicms/io.h>

/* Named vectors of length n (loads, outputs), in the order they were added. */
typedef struct {
  PetscInt    num, max;
  char      **names;  /* num names, each PetscMalloc'ed */
  PetscReal **values; /* num vectors of length n */
} VIROMVectors;

struct _p_VIROM {
  MPI_Comm       comm;
  VICMSType      method;
  PetscInt       nb, nm, n; /* boundary coordinates, component modes, n = nb + nm (0 until VIROMSetSizes) */
  PetscReal     *K, *M, *D; /* n x n, row-major */
  PetscReal     *freq_hz;   /* nm natural frequencies of the component modes */
  PetscInt       num_contacts;
  VIContactInfo *contacts;
  VIROMVectors   loads, outputs, shapes;
  char          *units;     /* never NULL; "" when not given */
  char          *source;    /* the file the ROM was loaded from (NULL if built in memory), for VIROMView */
  char          *version;   /* the version attribute of that file (NULL if built in memory) */
  char          *reduction; /* what made it (options and mesh content, see VIROMSetReduction); NULL when unknown */
  /* what one rank may allocate (VIMemoryAvailable, set before a file is read; 0: unknown, not checked), the node's and its ranks */
  PetscLogDouble mem_per_rank, mem_node;
  PetscMPIInt    ranks_on_node;
  VIROMFrame    *frame;     /* floating-frame inertia invariants (group /frame), NULL when absent */
};

/* The ROM layout of DESIGN.md relative to an open HDF5 group (the root of a ROM file, or /bodies/NAME of a bodies file);
   path names the file (and group) in messages. Rank-local. */
PETSC_INTERN PetscErrorCode VIROMWriteContents(VIROM rom, hid_t loc);
PETSC_INTERN PetscErrorCode VIROMReadContents(VIROM rom, hid_t loc, const char path[]);
/* The ROM of rank root to every rank of its communicator; empty the ROM; validate with the error code of a file's fault.
   Collective / not. */
PETSC_INTERN PetscErrorCode VIROMBcast(VIROM rom, PetscMPIInt root);
PETSC_INTERN PetscErrorCode VIROMReset(VIROM rom);
PETSC_INTERN PetscErrorCode VIROMValidateWithCode(VIROM rom, const char what[], PetscErrorCode code);
/* The group /frame (src/rom/frame.c): write when present, read when present (shapes checked against the ROM's n), broadcast,
   free. Rank-local but the broadcast. */
PETSC_INTERN PetscErrorCode VIROMWriteFrame(VIROM rom, hid_t loc);
PETSC_INTERN PetscErrorCode VIROMReadFrame(VIROM rom, hid_t loc, const char path[]);
PETSC_INTERN PetscErrorCode VIROMBcastFrame(VIROM rom, PetscMPIInt root);
PETSC_INTERN PetscErrorCode VIROMDestroyFrame(VIROM rom);
PETSC_INTERN PetscErrorCode VIROMViewFrame(VIROM rom, PetscViewer viewer);
