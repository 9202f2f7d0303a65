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

    /* the node-to-element map of the whole mesh, for the dual graph only (transient; docs/scale.md) */
    PetscCall(VIMeshGetNodeElements(mesh, NULL, NULL));
    PetscCall(VIMeshDualGraph(mesh, start, end, &ia, &ja));
    PetscCall(VIMeshRestoreNodeElements(mesh));
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
