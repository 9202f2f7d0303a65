/* Rank groups for a few tasks of known cost (the bodies of a multi-body reduction): a static, balanced assignment. */
#include <vicms/ensemble.h>

PetscErrorCode VIRankGroupsSplit(MPI_Comm comm, PetscInt ntasks, const PetscReal cost[], MPI_Comm *group, PetscInt *ngroups, PetscInt task_group[],
                                 PetscMPIInt leader[], PetscReal *imbalance)
{
  PetscMPIInt size, rank, my_group = 0;
  PetscInt    ng, *order;
  PetscReal  *load, total = 0, worst = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(ntasks > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "No tasks to deal to rank groups");
  ng = PetscMin(ntasks, (PetscInt)size);
  PetscCall(PetscMalloc2(ntasks, &order, ng, &load));
  /* group g: size / ng ranks, one more for the first size % ng groups; consecutive ranks */
  for (PetscInt g = 0, first = 0; g < ng; g++) {
    PetscInt gsize = size / ng + (g < size % ng ? 1 : 0);
    if (rank >= first && rank < first + gsize) my_group = (PetscMPIInt)g;
    load[g] = 0;
    first += gsize;
  }
  /* largest first, each to the group where it ends first (load per rank), ties to the lower group: deterministic */
  for (PetscInt k = 0; k < ntasks; k++) order[k] = k;
  for (PetscInt i = 1; i < ntasks; i++)
    for (PetscInt j = i; j > 0 && cost[order[j]] > cost[order[j - 1]]; j--) {
      PetscInt t   = order[j];
      order[j]     = order[j - 1];
      order[j - 1] = t;
    }
  for (PetscInt i = 0; i < ntasks; i++) {
    PetscInt  k = order[i], best = 0;
    PetscReal best_end = PETSC_MAX_REAL;
    for (PetscInt g = 0; g < ng; g++) {
      PetscReal gsize = (PetscReal)(size / ng + (g < size % ng ? 1 : 0)), end = (load[g] + cost[k]) / gsize;
      if (end < best_end) {
        best_end = end;
        best     = g;
      }
    }
    task_group[k] = best;
    load[best] += cost[k];
  }
  for (PetscInt k = 0; k < ntasks; k++) {
    PetscInt g = task_group[k];
    leader[k]  = (PetscMPIInt)(g * (size / ng) + PetscMin(g, (PetscInt)(size % ng)));
    total += cost[k];
  }
  for (PetscInt g = 0; g < ng; g++) worst = PetscMax(worst, load[g] / (PetscReal)(size / ng + (g < size % ng ? 1 : 0)));
  if (imbalance) *imbalance = total > 0 ? worst * (PetscReal)size / total : 1;
  PetscCall(PetscFree2(order, load));
  PetscCallMPI(MPI_Comm_split(comm, my_group, rank, group));
  *ngroups = ng;
  PetscFunctionReturn(PETSC_SUCCESS);
}
