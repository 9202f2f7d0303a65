/* Checkpoints of a run: the scheme's registered state fields and the generic run state, written whole and restored exactly. */
#include "stepimpl.h"
#include <vicms/io.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define VI_CHECKPOINT_VERSION 2 /* 2: the numerical dissipation, the outputs' velocities */

/* The counters of a run, in the file's order (an integer dataset /run/counters). */
enum {
  VI_CK_LEVEL,
  VI_CK_NSTEPS,
  VI_CK_NT,
  VI_CK_NWINDOW,
  VI_CK_NENV,
  VI_CK_STEPS,
  VI_CK_SOLVES,
  VI_CK_ITERATIONS,
  VI_CK_ITERATIONS_MAX,
  VI_CK_NONCONVERGED,
  VI_CK_N,
  VI_CK_NB,
  VI_CK_NC,
  VI_CK_NOUT,
  VI_CK_NUM
};
/* Its real scalars (/run/scalars). */
enum {
  VI_CR_T0,
  VI_CR_DT,
  VI_CR_T_END,
  VI_CR_T,
  VI_CR_KINETIC,
  VI_CR_POTENTIAL,
  VI_CR_DAMPING,
  VI_CR_FRICTION,
  VI_CR_EXTERNAL,
  VI_CR_OBSTACLE,
  VI_CR_ENERGY0,
  VI_CR_FORCE_MAX,
  VI_CR_GAP_MIN,
  VI_CR_ENV_LO,
  VI_CR_ENV_HI,
  VI_CR_ENV_START,
  VI_CR_ENV_END,
  VI_CR_WALL,
  VI_CR_RESIDUAL_MAX,
  VI_CR_NUMERICAL,
  VI_CR_NUM
};

PetscErrorCode VIStepperCheckpointWrite(VIStepper st, const char path[], const char tag[])
{
  char      part[PETSC_MAX_PATH_LEN + 8];
  hid_t     file;
  PetscInt  c[VI_CK_NUM];
  PetscReal r[VI_CR_NUM];
  PetscInt  nt = st->nt, no = st->nout, nc = st->nc;

  PetscFunctionBeginUser;
  if (st->ops.syncstate) PetscCall((*st->ops.syncstate)(st, PETSC_FALSE)); /* the scheme's own state into its fields */
  c[VI_CK_LEVEL]          = st->level;
  c[VI_CK_NSTEPS]         = st->nsteps;
  c[VI_CK_NT]             = nt;
  c[VI_CK_NWINDOW]        = st->nwindow;
  c[VI_CK_NENV]           = st->nenv;
  c[VI_CK_STEPS]          = st->stats.steps;
  c[VI_CK_SOLVES]         = st->stats.contact_solves;
  c[VI_CK_ITERATIONS]     = st->stats.contact_iterations;
  c[VI_CK_ITERATIONS_MAX] = st->stats.contact_iterations_max;
  c[VI_CK_NONCONVERGED]   = st->stats.nonconverged;
  c[VI_CK_N]              = st->n;
  c[VI_CK_NB]             = st->nb;
  c[VI_CK_NC]             = nc;
  c[VI_CK_NOUT]           = no;
  r[VI_CR_T0]             = st->t0;
  r[VI_CR_DT]             = st->dt;
  r[VI_CR_T_END]          = st->t_end;
  r[VI_CR_T]              = st->t0 + st->level * st->dt;
  r[VI_CR_KINETIC]        = st->energy.kinetic;
  r[VI_CR_POTENTIAL]      = st->energy.potential;
  r[VI_CR_DAMPING]        = st->energy.damping_dissipation;
  r[VI_CR_FRICTION]       = st->energy.friction_dissipation;
  r[VI_CR_EXTERNAL]       = st->energy.external_work;
  r[VI_CR_OBSTACLE]       = st->energy.obstacle_work;
  r[VI_CR_ENERGY0]        = st->energy0;
  r[VI_CR_FORCE_MAX]      = st->force_max;
  r[VI_CR_GAP_MIN]        = st->gap_min;
  r[VI_CR_ENV_LO]         = st->env_lo;
  r[VI_CR_ENV_HI]         = st->env_hi;
  r[VI_CR_ENV_START]      = st->env_start;
  r[VI_CR_ENV_END]        = st->env_end;
  r[VI_CR_WALL]           = st->stats.wall_time;
  r[VI_CR_RESIDUAL_MAX]   = st->stats.contact_residual_max;
  r[VI_CR_NUMERICAL]      = st->energy.numerical_dissipation;

  PetscCall(PetscSNPrintf(part, sizeof(part), "%s.part", path));
  PetscCall(VIH5Create(part, &file));
  PetscCall(VIH5WriteAttrString(file, "/", "format", "vicms-checkpoint"));
  PetscCall(VIH5WriteAttrInt(file, "/", "version", VI_CHECKPOINT_VERSION));
  PetscCall(VIH5WriteAttrString(file, "/", "tag", tag));
  PetscCall(VIH5WriteAttrString(file, "/", "scheme", st->type));
  {
    char variant[64];
    PetscCall(VIStepperDescribe(st, variant, sizeof(variant)));
    PetscCall(VIH5WriteAttrString(file, "/", "scheme_variant", variant));
  }
  PetscCall(VIH5WriteAttrReal(file, "/", "t", r[VI_CR_T]));
  PetscCall(VIH5WriteInt(file, "/run/counters", VI_CK_NUM, 0, c));
  PetscCall(VIH5WriteReal(file, "/run/scalars", VI_CR_NUM, 0, r));
  if (no) PetscCall(VIH5WriteReal(file, "/run/output_statistics", no, 6, st->ostat));
  if (st->nenv) PetscCall(VIH5WriteReal(file, "/run/envelope", st->nenv, 2, st->env));
  if (nt) {
    PetscCall(VIH5WriteReal(file, "/records/t", nt, 0, st->t_rec));
    if (no) PetscCall(VIH5WriteReal(file, "/records/outputs", nt, no, st->out_rec));
    if (no) PetscCall(VIH5WriteReal(file, "/records/velocities", nt, no, st->vel_rec));
    if (nc) PetscCall(VIH5WriteReal(file, "/records/gaps", nt, nc, st->gap_rec));
    if (nc) PetscCall(VIH5WriteReal(file, "/records/forces", nt, nc, st->force_rec));
    PetscCall(VIH5WriteReal(file, "/records/energy", nt, VI_ENERGY_COLUMNS, st->energy_rec));
    if (st->record_q) PetscCall(VIH5WriteReal(file, "/records/q", nt, st->n, st->q_rec));
  }
  for (PetscInt i = 0; i < st->nstate; i++) {
    const VIStateField *f = &st->state[i];
    char                name[64];
    if (!f->len) continue;
    PetscCall(PetscSNPrintf(name, sizeof(name), "/state/%s", f->name));
    if (f->real)
      PetscCall(VIH5WriteReal(file, name, f->len, 0, f->real));
    else {
      PetscInt *v;
      PetscCall(PetscMalloc1(f->len, &v));
      for (PetscInt j = 0; j < f->len; j++) v[j] = f->flag[j] ? 1 : 0;
      PetscCall(VIH5WriteInt(file, name, f->len, 0, v));
      PetscCall(PetscFree(v));
    }
  }
  PetscCall(VIH5Close(&file));
  PetscCheck(rename(part, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s: %s", part, path, strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Grow a record array to hold cap rows of width w (the records grow by PetscRealloc, see VIStepperRecord). */
static PetscErrorCode VICheckpointRecordSpace(PetscInt cap, PetscInt w, PetscReal **a)
{
  PetscFunctionBeginUser;
  PetscCall(PetscRealloc(sizeof(PetscReal) * cap * PetscMax(w, 1), a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank-local: restore from an open file (its format and tag checked); *ok false with the reason when it belongs to another run. */
static PetscErrorCode VICheckpointLoad(void *ctx, hid_t file, PetscBool *ok, char why[], size_t len)
{
  VIStepper  st = (VIStepper)ctx;
  PetscInt   rows, cols, *c, nt, no = st->nout, nc = st->nc, nsteps;
  PetscReal *r;
  PetscBool  good = PETSC_TRUE, same_scheme = PETSC_FALSE;

  PetscFunctionBeginUser;
  *ok = PETSC_FALSE;
  {
    /* the scheme and its variant, by name (a checkpoint written before the names were kept is not restored) */
    char      scheme[64] = "", variant[64] = "", mine[64];
    PetscBool has, same_type, same_variant;
    PetscCall(VIH5HasAttr(file, "/", "scheme_variant", &has));
    if (has) {
      PetscCall(VIH5ReadAttrString(file, "/", "scheme", scheme, sizeof(scheme)));
      PetscCall(VIH5ReadAttrString(file, "/", "scheme_variant", variant, sizeof(variant)));
      PetscCall(VIStepperDescribe(st, mine, sizeof(mine)));
      PetscCall(PetscStrcmp(scheme, st->type, &same_type));
      PetscCall(PetscStrcmp(variant, mine, &same_variant));
      same_scheme = (PetscBool)(same_type && same_variant);
    }
  }
  PetscCall(VIH5ReadInt(file, "/run/counters", &rows, &cols, &c));
  PetscCall(VIH5ReadReal(file, "/run/scalars", &rows, &cols, &r));
  if (rows * PetscMax(cols, 1) < VI_CR_NUM) {
    PetscCall(PetscSNPrintf(why, len, "it was written by an older vicms (%" PetscInt_FMT " run scalars, %d expected)", rows * PetscMax(cols, 1),
                            (int)VI_CR_NUM));
    PetscCall(PetscFree(c));
    PetscCall(PetscFree(r));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  nsteps = (PetscInt)PetscCeilReal((st->t_end - st->t0) / st->dt - 1e-9);
  if (!same_scheme || c[VI_CK_N] != st->n || c[VI_CK_NB] != st->nb || c[VI_CK_NC] != nc || c[VI_CK_NOUT] != no || r[VI_CR_T0] != st->t0 ||
      r[VI_CR_DT] != st->dt || r[VI_CR_T_END] != st->t_end || c[VI_CK_NSTEPS] != nsteps || c[VI_CK_LEVEL] < 0 || c[VI_CK_LEVEL] > nsteps ||
      c[VI_CK_NT] < 1) {
    PetscCall(PetscSNPrintf(why, len, "its scheme, sizes or time steps differ from this run's"));
    PetscCall(PetscFree(c));
    PetscCall(PetscFree(r));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* from here on the stepper's state is overwritten: a failure makes the caller set it up afresh */
  nt          = c[VI_CK_NT];
  st->level   = c[VI_CK_LEVEL];
  st->nwindow = c[VI_CK_NWINDOW];
  PetscCall(PetscMemzero(&st->stats, sizeof(st->stats)));
  st->stats.steps                  = c[VI_CK_STEPS];
  st->stats.contact_solves         = c[VI_CK_SOLVES];
  st->stats.contact_iterations     = c[VI_CK_ITERATIONS];
  st->stats.contact_iterations_max = c[VI_CK_ITERATIONS_MAX];
  st->stats.nonconverged           = c[VI_CK_NONCONVERGED];
  st->stats.contact_residual_max   = r[VI_CR_RESIDUAL_MAX];
  st->wall_before                  = r[VI_CR_WALL];
  st->energy.kinetic               = r[VI_CR_KINETIC];
  st->energy.potential             = r[VI_CR_POTENTIAL];
  st->energy.damping_dissipation   = r[VI_CR_DAMPING];
  st->energy.friction_dissipation  = r[VI_CR_FRICTION];
  st->energy.external_work         = r[VI_CR_EXTERNAL];
  st->energy.obstacle_work         = r[VI_CR_OBSTACLE];
  st->energy.numerical_dissipation = r[VI_CR_NUMERICAL];
  st->energy0                      = r[VI_CR_ENERGY0];
  st->force_max                    = r[VI_CR_FORCE_MAX];
  st->gap_min                      = r[VI_CR_GAP_MIN];
  st->env_lo                       = r[VI_CR_ENV_LO];
  st->env_hi                       = r[VI_CR_ENV_HI];
  st->env_start                    = r[VI_CR_ENV_START];
  st->env_end                      = r[VI_CR_ENV_END];
  st->nenv                         = c[VI_CK_NENV];
  PetscCall(PetscFree(c));
  PetscCall(PetscFree(r));
  if (no) {
    PetscBool g;
    PetscCall(VIH5ReadRealExact(file, "/run/output_statistics", 6 * no, st->ostat, &g));
    good = (PetscBool)(good && g);
  }
  if (st->nenv) {
    PetscBool g;
    st->max_env = st->nenv;
    PetscCall(PetscRealloc(sizeof(PetscReal) * 2 * st->max_env, &st->env));
    PetscCall(VIH5ReadRealExact(file, "/run/envelope", 2 * st->nenv, st->env, &g));
    good = (PetscBool)(good && g);
  }
  {
    struct {
      const char *name;
      PetscInt    w;
      PetscReal **a;
    } rec[] = {{"/records/t", 1, &st->t_rec},       {"/records/outputs", no, &st->out_rec},  {"/records/velocities", no, &st->vel_rec},
               {"/records/gaps", nc, &st->gap_rec}, {"/records/forces", nc, &st->force_rec}, {"/records/energy", VI_ENERGY_COLUMNS, &st->energy_rec}};
    for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++) {
      PetscBool g;
      PetscCall(VICheckpointRecordSpace(nt, rec[i].w, rec[i].a));
      PetscCall(VIH5ReadRealExact(file, rec[i].name, nt * rec[i].w, *rec[i].a, &g));
      good = (PetscBool)(good && g);
    }
    if (st->record_q) {
      PetscBool g = PETSC_TRUE, has = PETSC_TRUE;
      PetscCall(VICheckpointRecordSpace(nt, st->n, &st->q_rec));
      if (nt) PetscCall(VIH5Exists(file, "/records/q", &has)); /* a checkpoint of a run without -step_record_q: not this run's */
      if (has) PetscCall(VIH5ReadRealExact(file, "/records/q", nt * st->n, st->q_rec, &g));
      g    = (PetscBool)(g && has);
      good = (PetscBool)(good && g);
    }
    st->nt = st->max_t = nt;
  }
  for (PetscInt i = 0; i < st->nstate; i++) {
    const VIStateField *f = &st->state[i];
    char                name[64];
    PetscBool           g = PETSC_TRUE;
    if (!f->len) continue;
    PetscCall(PetscSNPrintf(name, sizeof(name), "/state/%s", f->name));
    if (f->real)
      PetscCall(VIH5ReadRealExact(file, name, f->len, f->real, &g));
    else {
      PetscInt *v;
      PetscCall(VIH5ReadInt(file, name, &rows, &cols, &v));
      if (rows * PetscMax(cols, 1) == f->len)
        for (PetscInt j = 0; j < f->len; j++) f->flag[j] = v[j] ? PETSC_TRUE : PETSC_FALSE;
      else
        g = PETSC_FALSE;
      PetscCall(PetscFree(v));
    }
    good = (PetscBool)(good && g);
  }
  if (!good) PetscCall(PetscSNPrintf(why, len, "a part of its state has the wrong size"));
  if (good && st->ops.syncstate) PetscCall((*st->ops.syncstate)(st, PETSC_TRUE)); /* the fields into the scheme's own state */
  *ok = good;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperCheckpointRead(VIStepper st, const char path[], const char tag[], PetscBool *restored, char why[], size_t len)
{
  PetscFunctionBeginUser;
  PetscCheck(st->setup, st->comm, PETSC_ERR_ORDER, "Call VIStepperSetUp() before VIStepperCheckpointRead()");
  PetscCall(VIH5CheckpointRead(st->comm, path, "vicms-checkpoint", "a vicms checkpoint", tag, VICheckpointLoad, st, restored, why, len));
  /* back to the initial state, whatever the read overwrote */
  if (!*restored) PetscCall(VIStepperSetUp(st));
  st->restored = *restored;
  PetscFunctionReturn(PETSC_SUCCESS);
}
