/* VIScheduler: dynamic hand-out of cases to rank groups, longest first; rank 0 keeps the list, answers the group leaders,
   spreads a stop. */
#include "ensembleimpl.h"
#include <unistd.h>

#define VI_TAG_REQUEST 7301
#define VI_TAG_REPLY   7302
#define VI_TAG_STOP    7303

struct _p_VIScheduler {
  MPI_Comm            comm, group; /* comm: a duplicate of the job's communicator, for the scheduler's messages only */
  PetscMPIInt         rank, grank, size;
  PetscInt            ntodo, next, *todo;
  PetscReal          *cost;            /* rank 0: the estimated cost of todo[i], NULL when not given */
  PetscBool           verbose;         /* rank 0: a line per case handed out */
  PetscLogDouble      t_drained;       /* rank 0: when a group was first told that there is no more (0: not yet) */
  PetscInt            leaders_waiting; /* rank 0: leaders of other groups not yet told that there is no more */
  VISchedulerFinished finished;
  void               *ctx;

  /* stops */
  PetscBool    stopping;         /* rank 0: the job stops; a leader: its group was told to */
  int          signal;           /* the signal it stops on */
  PetscBool   *active, *noticed; /* rank 0, per rank of comm: a leader still at work; a leader sent a stop notice */
  MPI_Request *notice_req;       /* rank 0, per rank of comm */
  PetscInt64   notice_out, notice_in;
};

/* Longest first: decreasing cost, ties in increasing case index (a stable, total order: the same on every run). */
typedef struct {
  PetscReal cost;
  PetscInt  k;
} VICaseCost;

static int VICaseCostCompare(const void *a, const void *b)
{
  const VICaseCost *x = (const VICaseCost *)a, *y = (const VICaseCost *)b;

  if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k ? 1 : 0;
}

PetscErrorCode VISchedulerCreate(MPI_Comm comm, MPI_Comm group, PetscInt ntodo, const PetscInt todo[], const PetscReal cost[],
                                 VISchedulerFinished finished, void *ctx, VIScheduler *s)
{
  VIScheduler sc;
  PetscMPIInt leader, *leaders = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&sc));
  PetscCallMPI(MPI_Comm_dup(comm, &sc->comm));
  sc->group = group;
  PetscCallMPI(MPI_Comm_rank(comm, &sc->rank));
  PetscCallMPI(MPI_Comm_size(comm, &sc->size));
  PetscCallMPI(MPI_Comm_rank(group, &sc->grank));
  leader = sc->grank == 0 ? 1 : 0;
  if (sc->rank == 0) PetscCall(PetscMalloc1(sc->size, &leaders));
  PetscCallMPI(MPI_Gather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, 0, comm));
  PetscCheck(sc->rank != 0 || sc->grank == 0, comm, PETSC_ERR_PLIB, "Rank 0 of the job must lead its group");
  sc->ntodo    = ntodo;
  sc->finished = finished;
  sc->ctx      = ctx;
  if (sc->rank == 0) {
    PetscCall(PetscMalloc1(PetscMax(ntodo, 1), &sc->todo));
    PetscCall(PetscArraycpy(sc->todo, todo, ntodo));
    if (cost) {
      VICaseCost *order;
      PetscCall(PetscMalloc1(PetscMax(ntodo, 1), &order));
      PetscCall(PetscMalloc1(PetscMax(ntodo, 1), &sc->cost));
      for (PetscInt i = 0; i < ntodo; i++) {
        order[i].cost = cost[i];
        order[i].k    = todo[i];
      }
      qsort(order, (size_t)ntodo, sizeof(*order), VICaseCostCompare);
      for (PetscInt i = 0; i < ntodo; i++) {
        sc->todo[i] = order[i].k;
        sc->cost[i] = order[i].cost;
      }
      PetscCall(PetscFree(order));
    }
    PetscCall(PetscCalloc3(sc->size, &sc->active, sc->size, &sc->noticed, sc->size, &sc->notice_req));
    for (PetscMPIInt r = 1; r < sc->size; r++) {
      sc->active[r] = leaders[r] ? PETSC_TRUE : PETSC_FALSE;
      if (leaders[r]) sc->leaders_waiting++;
      sc->notice_req[r] = MPI_REQUEST_NULL;
    }
    sc->notice_req[0] = MPI_REQUEST_NULL;
  }
  PetscCall(PetscFree(leaders));
  *s = sc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISchedulerDestroy(VIScheduler *s)
{
  PetscFunctionBeginUser;
  if (!s || !*s) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_free(&(*s)->comm));
  PetscCall(PetscFree((*s)->todo));
  PetscCall(PetscFree((*s)->cost));
  PetscCall(PetscFree3((*s)->active, (*s)->noticed, (*s)->notice_req));
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISchedulerSetVerbose(VIScheduler s, PetscBool verbose)
{
  PetscFunctionBeginUser;
  s->verbose = verbose;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: the next case of the list for the group led by rank leader, -1 when none is left. */
static PetscErrorCode VISchedulerTake(VIScheduler s, PetscMPIInt leader, PetscInt *k)
{
  PetscFunctionBeginUser;
  *k = -1;
  if (s->next >= s->ntodo) {
    if (!s->t_drained) PetscCall(PetscTime(&s->t_drained));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *k = s->todo[s->next];
  if (s->verbose) {
    if (s->cost)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  case %" PetscInt_FMT " (estimated cost %.4g) to the group of rank %d\n", *k, (double)s->cost[s->next],
                            leader));
    else
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  case %" PetscInt_FMT " to the group of rank %d\n", *k, leader));
  }
  s->next++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: the job stops on sig; every leader still at work gets a notice (it may be stepping a long case). */
static PetscErrorCode VISchedulerStopAll(VIScheduler s, int sig)
{
  PetscFunctionBeginUser;
  if (s->stopping) PetscFunctionReturn(PETSC_SUCCESS);
  s->stopping   = PETSC_TRUE;
  s->signal     = sig;
  s->notice_out = sig;
  for (PetscMPIInt r = 1; r < s->size; r++)
    if (s->active[r]) {
      PetscCallMPI(MPI_Isend(&s->notice_out, 1, MPIU_INT64, r, VI_TAG_STOP, s->comm, &s->notice_req[r]));
      s->noticed[r] = PETSC_TRUE;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: one request from a leader: record how its case ended, answer with its next case (or stop). */
static PetscErrorCode VISchedulerAnswer(VIScheduler s, MPI_Status *status)
{
  PetscInt64  req[4], reply[2];
  PetscMPIInt src = status->MPI_SOURCE;
  PetscReal   t;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Recv(req, 4, MPIU_INT64, src, VI_TAG_REQUEST, s->comm, MPI_STATUS_IGNORE));
  PetscCall(PetscMemcpy(&t, &req[3], sizeof(t)));
  if (req[0] >= 0 && s->finished) PetscCall((*s->finished)(s->ctx, (PetscInt)req[0], (PetscInt)req[1], t));
  if (req[2]) PetscCall(VISchedulerStopAll(s, (int)req[2]));
  if (s->stopping)
    reply[0] = -2;
  else {
    PetscInt k;
    PetscCall(VISchedulerTake(s, src, &k));
    reply[0] = k;
  }
  reply[1] = s->noticed[src];
  if (reply[0] < 0) {
    s->active[src] = PETSC_FALSE;
    s->leaders_waiting--;
  }
  PetscCallMPI(MPI_Send(reply, 2, MPIU_INT64, src, VI_TAG_REPLY, s->comm));
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

/* Leaders other than rank 0: take in a stop notice if one has come (block: one is known to be on its way). */
static PetscErrorCode VISchedulerReadNotice(VIScheduler s, PetscBool block)
{
  int flag = 1;

  PetscFunctionBeginUser;
  if (s->rank == 0 || s->grank != 0 || s->stopping) PetscFunctionReturn(PETSC_SUCCESS);
  if (!block) PetscCallMPI(MPI_Iprobe(0, VI_TAG_STOP, s->comm, &flag, MPI_STATUS_IGNORE));
  if (flag) {
    PetscCallMPI(MPI_Recv(&s->notice_in, 1, MPIU_INT64, 0, VI_TAG_STOP, s->comm, MPI_STATUS_IGNORE));
    s->stopping = PETSC_TRUE;
    s->signal   = (int)s->notice_in;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective on the group: the signal the group stops on (0: none), from its ranks' handlers and its leader's notice. */
static PetscErrorCode VISchedulerAgree(VIScheduler s, int flag, int *sig, int *flag_max)
{
  int mine[2], all[2];

  PetscFunctionBeginUser;
  mine[0] = VISignalReceived();
  if (!mine[0] && s->stopping) mine[0] = s->signal ? s->signal : 1;
  mine[1] = flag;
  PetscCallMPI(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, s->group));
  *sig = all[0];
  if (flag_max) *flag_max = all[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISchedulerPoll(VIScheduler s, int flag, int *sig, int *flag_max)
{
  PetscFunctionBeginUser;
  PetscCall(VISchedulerServe(s));
  PetscCall(VISchedulerReadNotice(s, PETSC_FALSE));
  PetscCall(VISchedulerAgree(s, flag, sig, flag_max));
  if (s->rank == 0 && *sig) PetscCall(VISchedulerStopAll(s, *sig));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISchedulerNext(VIScheduler s, PetscInt finished, PetscInt status, PetscReal t, PetscInt *next)
{
  PetscInt64 n = -1;
  int        sig;

  PetscFunctionBeginUser;
  PetscCall(VISchedulerReadNotice(s, PETSC_FALSE));
  PetscCall(VISchedulerAgree(s, 0, &sig, NULL));
  if (s->rank == 0) {
    if (finished >= 0 && s->finished) PetscCall((*s->finished)(s->ctx, finished, status, t));
    if (sig) PetscCall(VISchedulerStopAll(s, sig));
    PetscCall(VISchedulerServe(s));
    if (s->stopping)
      n = -2;
    else {
      PetscInt k;
      PetscCall(VISchedulerTake(s, 0, &k));
      n = k;
    }
  } else if (s->grank == 0) {
    PetscInt64 req[4] = {finished, status, sig, 0}, reply[2];
    PetscCall(PetscMemcpy(&req[3], &t, sizeof(t)));
    PetscCallMPI(MPI_Send(req, 4, MPIU_INT64, 0, VI_TAG_REQUEST, s->comm));
    PetscCallMPI(MPI_Recv(reply, 2, MPIU_INT64, 0, VI_TAG_REPLY, s->comm, MPI_STATUS_IGNORE));
    n = reply[0];
    if (reply[1]) PetscCall(VISchedulerReadNotice(s, PETSC_TRUE));
  }
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT64, 0, s->group));
  *next = (PetscInt)n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISchedulerFinish(VIScheduler s)
{
  PetscFunctionBeginUser;
  if (s->rank == 0) {
    /* its own group is done; a signal may still come while the other groups step their last cases */
    while (s->leaders_waiting > 0) {
      int        flag;
      MPI_Status status;
      PetscCallMPI(MPI_Iprobe(MPI_ANY_SOURCE, VI_TAG_REQUEST, s->comm, &flag, &status));
      if (flag)
        PetscCall(VISchedulerAnswer(s, &status));
      else {
        if (!s->stopping && VISignalReceived()) PetscCall(VISchedulerStopAll(s, VISignalReceived()));
        (void)usleep(1000);
      }
    }
    PetscCallMPI(MPI_Waitall(s->size, s->notice_req, MPI_STATUSES_IGNORE));
  }
  PetscCallMPI(MPI_Barrier(s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISchedulerGetDrainTime(VIScheduler s, PetscLogDouble *t)
{
  PetscFunctionBeginUser;
  *t = s->t_drained;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISchedulerGetStop(VIScheduler s, PetscBool *stopping, int *sig)
{
  int v = s->rank == 0 && s->stopping ? (s->signal ? s->signal : 1) : 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Bcast(&v, 1, MPI_INT, 0, s->comm));
  *stopping = v ? PETSC_TRUE : PETSC_FALSE;
  *sig      = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}
