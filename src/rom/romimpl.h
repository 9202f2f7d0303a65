/* Private structure of VIROM: the reduced-order model, replicated on every rank of its communicator. */
#pragma once

#include <vicms/rom.h>

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
};
