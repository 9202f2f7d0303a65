/* VIROMFields: what recovers the parent's displacements from ROM coordinates on a set of kept nodes (docs/fields.md), its HDF5
   group (in a ROM file /fields, in a bodies file /bodies/NAME/fields) and its passage from one rank to another. */
#include "romimpl.h"

PetscErrorCode VIROMFieldsWrite(hid_t file, const char group[], const VIROMFields *f)
{
  char path[256];

  PetscFunctionBeginUser;
  PetscCall(VIH5CreateGroup(file, group));
  PetscCall(VIH5WriteAttrString(file, group, "kind", f->kind));
  PetscCall(VIH5WriteAttrInt(file, group, "num_nodes", f->nk));
  PetscCall(VIH5WriteAttrInt(file, group, "num_cells", f->ncells));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/coordinates", group));
  PetscCall(VIH5WriteReal(file, path, f->nk, 3, f->xyz));
  PetscCall(VIH5WriteAttrString(file, path, "dims", "node,xyz"));
  if (f->length[0]) PetscCall(VIH5WriteAttrString(file, path, "units", f->length));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/node_ids", group));
  PetscCall(VIH5WriteInt(file, path, f->nk, 0, f->ids));
  PetscCall(VIH5WriteAttrString(file, path, "dims", "node"));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/topology", group));
  PetscCall(VIH5WriteInt(file, path, f->tsize, 0, f->topo));
  PetscCall(VIH5WriteAttrString(file, path, "dims", "xdmf_mixed"));
  PetscCall(VIH5WriteAttrInt(file, path, "num_cells", f->ncells));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/basis", group));
  PetscCall(VIH5WriteReal(file, path, 3 * f->nk, f->n, f->basis));
  PetscCall(VIH5WriteAttrString(file, path, "dims", "node_xyz,rom_coordinate"));
  PetscCall(VIH5WriteAttrString(file, path, "units", "length per unit of the ROM coordinate (1 for a boundary coordinate)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMFieldsRead(hid_t file, const char group[], const char what[], VIROMFields *f)
{
  char      path[256];
  PetscInt  rows, cols;
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(f, sizeof(*f)));
  PetscCall(VIH5ReadAttrString(file, group, "kind", f->kind, sizeof(f->kind)));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/coordinates", group));
  PetscCall(VIH5ReadReal(file, path, &f->nk, &cols, &f->xyz));
  PetscCheck(cols == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: %s has %" PetscInt_FMT " columns, expected 3", what, path, cols);
  PetscCall(VIH5HasAttr(file, path, "units", &has));
  if (has) PetscCall(VIH5ReadAttrString(file, path, "units", f->length, sizeof(f->length)));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/node_ids", group));
  PetscCall(VIH5ReadInt(file, path, &rows, &cols, &f->ids));
  PetscCheck(rows == f->nk, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: %s has %" PetscInt_FMT " entries, expected %" PetscInt_FMT, what, path,
             rows, f->nk);
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/topology", group));
  PetscCall(VIH5ReadInt(file, path, &f->tsize, &cols, &f->topo));
  PetscCall(VIH5ReadAttrInt(file, path, "num_cells", &f->ncells));
  for (PetscInt p = 0, c = 0; p < f->tsize; c++) {
    PetscInt code = f->topo[p++], m;
    PetscCheck(c < f->ncells && p < f->tsize, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: %s does not hold %" PetscInt_FMT " cells", what, path,
               f->ncells);
    m = (code == 1 || code == 2) ? f->topo[p++] : VIXdmfCellNodes(code);
    PetscCheck(m > 0 && p + m <= f->tsize, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "%s: %s: cell %" PetscInt_FMT " of type %" PetscInt_FMT " is cut", what, path, c, code);
    for (PetscInt j = 0; j < m; j++)
      PetscCheck(f->topo[p + j] >= 0 && f->topo[p + j] < f->nk, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s: %s: cell %" PetscInt_FMT " names node %" PetscInt_FMT ", expected 0 to %" PetscInt_FMT, what, path, c, f->topo[p + j],
                 f->nk - 1);
    p += m;
  }
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/basis", group));
  PetscCall(VIH5ReadReal(file, path, &rows, &f->n, &f->basis));
  PetscCheck(rows == 3 * f->nk, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: %s has %" PetscInt_FMT " rows, expected %" PetscInt_FMT, what, path,
             rows, 3 * f->nk);
  PetscCall(VIH5CheckFinite(what, path, rows, f->n, f->basis));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMFieldsReset(VIROMFields *f)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(f->ids));
  PetscCall(PetscFree(f->topo));
  PetscCall(PetscFree(f->xyz));
  PetscCall(PetscFree(f->basis));
  PetscCall(PetscMemzero(f, sizeof(*f)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMFieldsSend(MPI_Comm comm, PetscMPIInt src, PetscMPIInt dst, VIROMFields *f, PetscBool *has)
{
  PetscMPIInt rank;
  PetscInt    head[5];
  const int   tag = 7311;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (src == dst || (rank != src && rank != dst)) PetscFunctionReturn(PETSC_SUCCESS);
  if (rank == src) {
    head[0] = *has ? 1 : 0;
    head[1] = f->nk;
    head[2] = f->n;
    head[3] = f->ncells;
    head[4] = f->tsize;
    PetscCallMPI(MPI_Send(head, 5, MPIU_INT, dst, tag, comm));
    if (!*has) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCallMPI(MPI_Send(f->kind, (PetscMPIInt)sizeof(f->kind), MPI_CHAR, dst, tag, comm));
    PetscCallMPI(MPI_Send(f->length, (PetscMPIInt)sizeof(f->length), MPI_CHAR, dst, tag, comm));
    PetscCallMPI(MPI_Send(f->ids, (PetscMPIInt)f->nk, MPIU_INT, dst, tag, comm));
    PetscCallMPI(MPI_Send(f->topo, (PetscMPIInt)f->tsize, MPIU_INT, dst, tag, comm));
    PetscCallMPI(MPI_Send(f->xyz, (PetscMPIInt)(3 * f->nk), MPIU_REAL, dst, tag, comm));
    PetscCallMPI(MPI_Send(f->basis, (PetscMPIInt)(3 * f->nk * f->n), MPIU_REAL, dst, tag, comm));
  } else {
    PetscCall(VIROMFieldsReset(f));
    PetscCallMPI(MPI_Recv(head, 5, MPIU_INT, src, tag, comm, MPI_STATUS_IGNORE));
    *has = head[0] ? PETSC_TRUE : PETSC_FALSE;
    if (!*has) PetscFunctionReturn(PETSC_SUCCESS);
    f->nk     = head[1];
    f->n      = head[2];
    f->ncells = head[3];
    f->tsize  = head[4];
    /* separate blocks: VIROMFieldsReset frees each */
    PetscCall(PetscMalloc1(PetscMax(f->nk, 1), &f->ids));
    PetscCall(PetscMalloc1(PetscMax(f->tsize, 1), &f->topo));
    PetscCall(PetscMalloc1(PetscMax(3 * f->nk, 1), &f->xyz));
    PetscCall(PetscMalloc1(PetscMax(3 * f->nk * f->n, 1), &f->basis));
    PetscCallMPI(MPI_Recv(f->kind, (PetscMPIInt)sizeof(f->kind), MPI_CHAR, src, tag, comm, MPI_STATUS_IGNORE));
    PetscCallMPI(MPI_Recv(f->length, (PetscMPIInt)sizeof(f->length), MPI_CHAR, src, tag, comm, MPI_STATUS_IGNORE));
    PetscCallMPI(MPI_Recv(f->ids, (PetscMPIInt)f->nk, MPIU_INT, src, tag, comm, MPI_STATUS_IGNORE));
    PetscCallMPI(MPI_Recv(f->topo, (PetscMPIInt)f->tsize, MPIU_INT, src, tag, comm, MPI_STATUS_IGNORE));
    PetscCallMPI(MPI_Recv(f->xyz, (PetscMPIInt)(3 * f->nk), MPIU_REAL, src, tag, comm, MPI_STATUS_IGNORE));
    PetscCallMPI(MPI_Recv(f->basis, (PetscMPIInt)(3 * f->nk * f->n), MPIU_REAL, src, tag, comm, MPI_STATUS_IGNORE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
