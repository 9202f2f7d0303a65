/* Element partitioning over the ranks: dual graph of the mesh, PETSc MatPartitioning (PT-Scotch by default). */
#include "meshimpl.h"
#include <vicms/sys.h>

/* Rows [start, end) of the dual graph: two elements are neighbours when they share a facet's worth of corner nodes. */
static PetscErrorCode VIMeshDualGraph(VIMesh mesh, PetscInt start, PetscInt end, PetscInt **ia, PetscInt **ja)
{
  PetscInt *shared, *touched, cap = 0, nnz = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(mesh->num_elems, &shared));
  PetscCall(PetscMalloc1(mesh->num_elems, &touched));
  PetscCall(PetscMalloc1(end - start + 1, ia));
  *ja      = NULL;
  (*ia)[0] = 0;
  for (PetscInt e = start; e < end; e++) {
    const VIElementInfo *info     = &VIElementInfoTable[mesh->elem_type[e]];
    PetscInt             ntouched = 0, row = e - start;
    for (PetscInt k = 0; k < info->num_corners; k++) {
      PetscInt node = mesh->elem_conn[mesh->elem_offset[e] + k];
      for (PetscInt q = mesh->node_elem_offset[node]; q < mesh->node_elem_offset[node + 1]; q++) {
        PetscInt f = mesh->node_elem[q];
        if (f == e) continue;
        if (!shared[f]) touched[ntouched++] = f;
        shared[f]++;
      }
    }
    if (nnz + ntouched > cap) {
      cap = PetscMax(2 * cap, nnz + ntouched + 1024);
      PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)cap, ja));
    }
    PetscCall(PetscSortInt(ntouched, touched));
    for (PetscInt t = 0; t < ntouched; t++) {
      PetscInt f = touched[t], need = PetscMin(info->face_nodes, VIElementInfoTable[mesh->elem_type[f]].face_nodes);
      if (shared[f] >= need) (*ja)[nnz++] = f;
      shared[f] = 0;
    }
    (*ia)[row + 1] = nnz;
  }
  if (!*ja) PetscCall(PetscMalloc1(1, ja));
  PetscCall(PetscFree(shared));
  PetscCall(PetscFree(touched));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same rows of a box held in parts, from the box's index space: the elements sharing a node with e lie in the cells next
   to e's (the 27 around it); their corners are counted against e's, the same rule and the same rows, ascending, as above. */
static PetscErrorCode VIMeshDualGraphBox(VIMesh mesh, PetscInt start, PetscInt end, PetscInt **ia, PetscInt **ja)
{
  const PetscInt *c     = mesh->box_cells;
  PetscInt        split = mesh->num_elems / (c[0] * c[1] * c[2]), nnz = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(end - start + 1, ia));
  PetscCall(PetscMalloc1(PetscMax(27 * split * (end - start), 1), ja));
  (*ia)[0] = 0;
  for (PetscInt e = start; e < end; e++) {
    PetscInt      h = e / split, ijk[3] = {h % c[0], (h / c[0]) % c[1], h / (c[0] * c[1])}, nen, ne2, nodes[8], other[8];
    VIElementType type, type2;
    VIMeshBoxElement(mesh, e, &type, &nen, nodes);
    for (PetscInt dk = -1; dk <= 1; dk++)
      for (PetscInt dj = -1; dj <= 1; dj++)
        for (PetscInt di = -1; di <= 1; di++) {
          PetscInt i = ijk[0] + di, j = ijk[1] + dj, k = ijk[2] + dk;
          if (i < 0 || j < 0 || k < 0 || i >= c[0] || j >= c[1] || k >= c[2]) continue;
          for (PetscInt s = 0; s < split; s++) {
            PetscInt f = (i + c[0] * (j + c[1] * k)) * split + s, shared = 0, need;
            if (f == e) continue;
            VIMeshBoxElement(mesh, f, &type2, &ne2, other);
            for (PetscInt a = 0; a < VIElementInfoTable[type].num_corners; a++)
              for (PetscInt b = 0; b < ne2; b++) shared += nodes[a] == other[b] ? 1 : 0;
            need = PetscMin(VIElementInfoTable[type].face_nodes, VIElementInfoTable[type2].face_nodes);
            if (shared >= need) (*ja)[nnz++] = f;
          }
        }
    PetscCall(PetscSortInt(nnz - (*ia)[e - start], *ja + (*ia)[e - start]));
    (*ia)[e - start + 1] = nnz;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIMeshPartition - assign every element to a rank. Collective.

  Each rank builds the dual-graph rows of a contiguous slice of the elements; the partitioner (options prefix
  -mesh_, e.g. -mesh_mat_partitioning_type ptscotch|average) decides their owners, to which the slice's element numbers
  are sent (ISBuildTwoSided): each rank knows its own elements, ascending, and no rank the owner of every element.
*/
PetscErrorCode VIMeshPartition(VIMesh mesh)
{
  PetscMPIInt size, rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(mesh->comm, &size));
  PetscCallMPI(MPI_Comm_rank(mesh->comm, &rank));
  PetscCall(PetscFree(mesh->local_elems));
  PetscCall(PetscLogEventBegin(VI_MeshPartition, 0, 0, 0, 0));
  if (size == 1 || mesh->num_elems == 0) {
    mesh->num_local_elems = rank == 0 ? mesh->num_elems : 0;
    PetscCall(PetscMalloc1(PetscMax(mesh->num_local_elems, 1), &mesh->local_elems));
    for (PetscInt e = 0; e < mesh->num_local_elems; e++) mesh->local_elems[e] = e;
  } else {
    PetscInt        start = (mesh->num_elems * rank) / size, end = (mesh->num_elems * (rank + 1)) / size, *ia, *ja;
    Mat             adj;
    MatPartitioning part;
    IS              is, mine;
    const PetscInt *elems;

    if (mesh->parts)
      PetscCall(VIMeshDualGraphBox(mesh, start, end, &ia, &ja));
    else {
      /* the node-to-element map of the whole mesh, for the dual graph only (transient; docs/scale.md) */
      PetscCall(VIMeshGetNodeElements(mesh, NULL, NULL));
      PetscCall(VIMeshDualGraph(mesh, start, end, &ia, &ja));
      PetscCall(VIMeshRestoreNodeElements(mesh));
    }
    PetscCall(MatCreateMPIAdj(mesh->comm, end - start, mesh->num_elems, ia, ja, NULL, &adj));
    PetscCall(MatPartitioningCreate(mesh->comm, &part));
    PetscCall(MatPartitioningSetAdjacency(part, adj));
    PetscCall(MatPartitioningSetNParts(part, size));
#if defined(PETSC_HAVE_PTSCOTCH)
    /* a small graph split over many ranks may leave a rank with no rows, which PT-Scotch refuses */
    if (mesh->num_elems >= 4 * size)
      PetscCall(MatPartitioningSetType(part, MATPARTITIONINGPTSCOTCH));
    else
      PetscCall(MatPartitioningSetType(part, MATPARTITIONINGAVERAGE));
#else
    PetscCall(MatPartitioningSetType(part, MATPARTITIONINGAVERAGE));
#endif
    PetscCall(PetscObjectSetOptionsPrefix((PetscObject)part, "mesh_"));
    PetscCall(MatPartitioningSetFromOptions(part));
    PetscCall(MatPartitioningApply(part, &is));
    /* the owners of the slice's elements are sent to them: each rank learns its own elements only (no gather of the owners) */
    PetscCall(ISBuildTwoSided(is, NULL, &mine));
    PetscCall(ISGetLocalSize(mine, &mesh->num_local_elems));
    PetscCall(ISGetIndices(mine, &elems));
    PetscCall(PetscMalloc1(PetscMax(mesh->num_local_elems, 1), &mesh->local_elems));
    PetscCall(PetscArraycpy(mesh->local_elems, elems, mesh->num_local_elems));
    PetscCall(ISRestoreIndices(mine, &elems));
    PetscCall(PetscSortInt(mesh->num_local_elems, mesh->local_elems)); /* element order: the assembly's order, as before */
    PetscCall(ISDestroy(&mine));
    PetscCall(ISDestroy(&is));
    PetscCall(MatPartitioningDestroy(&part));
    PetscCall(MatDestroy(&adj));
  }
  PetscCall(PetscLogEventEnd(VI_MeshPartition, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
