/* VIScheduler: dynamic hand-out of cases to rank groups; rank 0 keeps the list and answers the group leaders. */
#include "ensembleimpl.h"

#define VI_TAG_REQUEST 7301
#define VI_TAG_REPLY   7302

struct _p_VIScheduler {
  MPI_Comm            comm, group; /* comm: a duplicate of the job's communicator, for the scheduler's messages only */
  PetscMPIInt         rank, grank;
  PetscInt            ntodo, next, *todo;
  PetscInt            leaders_waiting; /* rank 0: leaders of other groups not yet told that there is no more */
  VISchedulerFinished finished;
  void               *ctx;
};

PetscErrorCode VISchedulerCreate(MPI_Comm comm, MPI_Comm group, PetscInt ntodo, const PetscInt todo[], VISchedulerFinished finished, void *ctx,
                                 VIScheduler *s)
{
  VIScheduler sc;
  PetscMPIInt leader, nleaders;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&sc));
  PetscCallMPI(MPI_Comm_dup(comm, &sc->comm));
  sc->group = group;
  PetscCallMPI(MPI_Comm_rank(comm, &sc->rank));
  PetscCallMPI(MPI_Comm_rank(group, &sc->grank));
  leader = sc->grank == 0 ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&leader, &nleaders, 1, MPI_INT, MPI_SUM, comm));
  PetscCheck(sc->rank != 0 || sc->grank == 0, comm, PETSC_ERR_PLIB, "Rank 0 of the job must lead its group");
  sc->leaders_waiting = nleaders - 1;
  sc->ntodo           = ntodo;
  sc->finished        = finished;
  sc->ctx             = ctx;
  if (sc->rank == 0) {
    PetscCall(PetscMalloc1(PetscMax(ntodo, 1), &sc->todo));
    PetscCall(PetscArraycpy(sc->todo, todo, ntodo));
  }
  *s = sc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISchedulerDestroy(VIScheduler *s)
{
  PetscFunctionBeginUser;
  if (!s || !*s) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_free(&(*s)->comm));
  PetscCall(PetscFree((*s)->todo));
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: the next case of the list, -1 when none is left. */
static PetscInt VISchedulerTake(VIScheduler s)
{
  return s->next < s->ntodo ? s->todo[s->next++] : -1;
}

/* Rank 0: one request from a leader: record what it finished, answer with its next case. */
static PetscErrorCode VISchedulerAnswer(VIScheduler s, MPI_Status *status)
{
  PetscInt64 req[2], next;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Recv(req, 2, MPIU_INT64, status->MPI_SOURCE, VI_TAG_REQUEST, s->comm, MPI_STATUS_IGNORE));
  if (req[0] >= 0 && s->finished) PetscCall((*s->finished)(s->ctx, (PetscInt)req[0], (PetscInt)req[1]));
  next = VISchedulerTake(s);
  if (next < 0) s->leaders_waiting--;
  PetscCallMPI(MPI_Send(&next, 1, MPIU_INT64, status->MPI_SOURCE, VI_TAG_REPLY, s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISchedulerServe(VIScheduler s)
{
  PetscFunctionBeginUser;
  if (s->rank != 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (;;) {
    int        flag;
    MPI_Status status;
    PetscCallMPI(MPI_Iprobe(MPI_ANY_SOURCE, VI_TAG_REQUEST, s->comm, &flag, &status));
    if (!flag) break;
    PetscCall(VISchedulerAnswer(s, &status));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISchedulerNext(VIScheduler s, PetscInt finished, PetscInt status, PetscInt *next)
{
  PetscInt64 n = -1;

  PetscFunctionBeginUser;
  if (s->rank == 0) {
    if (finished >= 0 && s->finished) PetscCall((*s->finished)(s->ctx, finished, status));
    PetscCall(VISchedulerServe(s));
    n = VISchedulerTake(s);
  } else if (s->grank == 0) {
    PetscInt64 req[2] = {finished, status};
    PetscCallMPI(MPI_Send(req, 2, MPIU_INT64, 0, VI_TAG_REQUEST, s->comm));
    PetscCallMPI(MPI_Recv(&n, 1, MPIU_INT64, 0, VI_TAG_REPLY, s->comm, MPI_STATUS_IGNORE));
  }
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT64, 0, s->group));
  *next = (PetscInt)n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISchedulerFinish(VIScheduler s)
{
  PetscFunctionBeginUser;
  if (s->rank == 0)
    while (s->leaders_waiting > 0) {
      MPI_Status status;
      PetscCallMPI(MPI_Probe(MPI_ANY_SOURCE, VI_TAG_REQUEST, s->comm, &status));
      PetscCall(VISchedulerAnswer(s, &status));
    }
  PetscCallMPI(MPI_Barrier(s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
