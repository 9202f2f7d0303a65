/* VIStepper: the scheme-independent part of a time integration — options, the step loop, records, energy, stats. */
#include "stepimpl.h"
#include <vicms/sys.h>
#include <petscblaslapack.h>
#include <string.h>

PetscErrorCode VIStepperCreate(MPI_Comm comm, VIStepper *st)
{
  VIStepper s;

  PetscFunctionBeginUser;
  PetscCall(VIInitializePackage());
  PetscCall(VIStepperRegisterAll());
  PetscCall(PetscNew(&s));
  s->comm             = comm;
  s->dt               = 1e-4;
  s->t_end            = 1.0;
  s->output_every     = 1;
  s->blowup_factor    = 1e6;
  s->max_nonconverged = VI_NONCONVERGED_AUTO;
  s->modal_allowed    = PETSC_TRUE;
  s->steady_fraction  = 0.25;
  s->env_output       = -1;
  s->ts.safety        = 0.9;
  s->ts.points        = 20;
  PetscCall(VIContactSolverCreate(comm, &s->solver));
  *st = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIStepperReset(VIStepper st)
{
  PetscFunctionBeginUser;
  if (st->ops.reset) PetscCall((*st->ops.reset)(st)); /* the scheme's set-up; its options stay */
  st->scheme_energy = PETSC_FALSE;
  PetscCall(PetscFree(st->basis));
  PetscCall(PetscFree2(st->qphys, st->uphys));
  st->basis_gain = 1;
  PetscCall(PetscFree4(st->q, st->u, st->lambda, st->gap));
  PetscCall(PetscFree4(st->f, st->g0, st->g0_rate, st->work));
  /* grown one by one with PetscRealloc: freed one by one (PetscFree5 assumes one coalesced block) */
  PetscCall(PetscFree(st->t_rec));
  PetscCall(PetscFree(st->out_rec));
  PetscCall(PetscFree(st->vel_rec));
  PetscCall(PetscFree(st->gap_rec));
  PetscCall(PetscFree(st->force_rec));
  PetscCall(PetscFree(st->energy_rec));
  PetscCall(PetscFree(st->q_rec));
  PetscCall(PetscFree2(st->out_mat, st->out_y));
  PetscCall(PetscFree2(st->ostat, st->stat_out));
  PetscCall(PetscFree(st->env));
  PetscCall(PetscFree(st->nonlinear_ops));
  st->nenv = st->max_env = 0;
  st->nt = st->max_t = 0;
  st->setup          = PETSC_FALSE;
  st->nstate         = 0;
  st->restored       = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperRegisterState(VIStepper st, const char name[], PetscInt len, PetscReal *real, PetscBool *flag)
{
  VIStateField *f;

  PetscFunctionBeginUser;
  PetscCheck(st->nstate < VI_MAX_STATE_FIELDS, st->comm, PETSC_ERR_PLIB, "More than %d state fields", VI_MAX_STATE_FIELDS);
  PetscCheck((real != NULL) != (flag != NULL), st->comm, PETSC_ERR_PLIB, "State field %s: give reals or flags", name);
  f = &st->state[st->nstate++];
  PetscCall(PetscStrncpy(f->name, name, sizeof(f->name)));
  f->real = real;
  f->flag = flag;
  f->len  = len;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperDestroy(VIStepper *st)
{
  PetscFunctionBeginUser;
  if (!st || !*st) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIStepperReset(*st));
  if ((*st)->ops.destroy) PetscCall((*(*st)->ops.destroy)(*st));
  PetscCall(VIContactSolverDestroy(&(*st)->solver));
  PetscCall(PetscFree(*st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperSetSystem(VIStepper st, VISystem sys)
{
  PetscFunctionBeginUser;
  st->sys = sys;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperSetMonitor(VIStepper st, PetscErrorCode (*monitor)(VIStepper, PetscReal, void *), void *ctx)
{
  PetscFunctionBeginUser;
  st->monitor     = monitor;
  st->monitor_ctx = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperSetPostLevel(VIStepper st, PetscErrorCode (*postlevel)(VIStepper, PetscInt, PetscReal, PetscBool, void *), void *ctx)
{
  PetscFunctionBeginUser;
  st->postlevel     = postlevel;
  st->postlevel_ctx = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperSetType(VIStepper st, VIStepperType type)
{
  PetscErrorCode (*create)(VIStepper) = NULL;
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(st->type, type, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFunctionListFind(VIStepperList, type, &create));
  if (!create) {
    char list[512] = "";
    for (PetscInt i = 0; VIStepperTypes[i + 2]; i++) {
      PetscCall(PetscStrlcat(list, i ? ", " : "", sizeof(list)));
      PetscCall(PetscStrlcat(list, VIStepperTypes[i], sizeof(list)));
    }
    SETERRQ(st->comm, PETSC_ERR_USER_INPUT, "-step_type: '%s' is not one of %s", type, list);
  }
  PetscCall(VIStepperReset(st));
  if (st->ops.destroy) PetscCall((*st->ops.destroy)(st));
  PetscCall(PetscMemzero(&st->ops, sizeof(st->ops)));
  st->data = NULL;
  PetscCall(PetscStrncpy(st->type, type, sizeof(st->type)));
  PetscCall((*create)(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperGetType(VIStepper st, VIStepperType *type)
{
  PetscFunctionBeginUser;
  *type = st->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperSetTimeStep(VIStepper st, PetscReal dt, PetscReal end_time)
{
  PetscFunctionBeginUser;
  if (dt == PETSC_DETERMINE) {
    PetscCheck(end_time > st->t0, st->comm, PETSC_ERR_USER_INPUT, "-step_end_time: got %g, expected a time after the start %g", (double)end_time,
               (double)st->t0);
    st->ts.auto_dt = PETSC_TRUE;
    st->ts.chosen  = PETSC_FALSE;
    st->t_end      = end_time;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(dt > 0, st->comm, PETSC_ERR_USER_INPUT, "-step_dt: got %g, expected a positive time step", (double)dt);
  PetscCheck(end_time > st->t0, st->comm, PETSC_ERR_USER_INPUT, "-step_end_time: got %g, expected a time after the start %g", (double)end_time,
             (double)st->t0);
  /* a step longer than the run would record a time past its end; a step count past PetscInt (or absurd) would wrap */
  PetscCheck(dt <= end_time - st->t0, st->comm, PETSC_ERR_USER_INPUT,
             "-step_dt: got %g, longer than the time span %g of the run (-step_start_time %g to -step_end_time %g)", (double)dt,
             (double)(end_time - st->t0), (double)st->t0, (double)end_time);
  PetscCheck((end_time - st->t0) / dt <= PetscMin(1e12, (PetscReal)PETSC_MAX_INT - 1), st->comm, PETSC_ERR_USER_INPUT,
             "-step_dt: got %g, which makes %g steps from %g to %g; expected at most %g", (double)dt, (double)((end_time - st->t0) / dt),
             (double)st->t0, (double)end_time, (double)PetscMin(1e12, (PetscReal)PETSC_MAX_INT - 1));
  st->dt    = dt;
  st->t_end = end_time;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperSetOutputEvery(VIStepper st, PetscInt every)
{
  PetscFunctionBeginUser;
  PetscCheck(every >= 1, st->comm, PETSC_ERR_ARG_OUTOFRANGE, "VIStepperSetOutputEvery: got %" PetscInt_FMT ", expected >= 1", every);
  st->output_every = every;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperGetTimeStep(VIStepper st, PetscReal *dt, PetscReal *end_time)
{
  PetscFunctionBeginUser;
  if (dt) *dt = st->dt;
  if (end_time) *end_time = st->t_end;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperSetFromOptions(VIStepper st)
{
  PetscReal dt = st->dt, t_end = st->t_end;
  char      type[64];
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(type, st->type[0] ? st->type : VISTEPPERLEAPFROG, sizeof(type)));
  PetscOptionsBegin(st->comm, NULL, "Time integration", "VIStepper");
  PetscCall(VIOptionsTypeList(PetscOptionsObject, "-step_type",
                              "Scheme: leapfrog (massless boundary, seed 000 §2), moreau (mass-carrying, App. B), nsgalpha (mass-carrying, seed 002), "
                              "mixed (mass-carrying, seed 001) or dual (the coupled bodies of vicms slide, seed 003)",
                              VIStepperList, type, type, sizeof(type), &set));
  PetscCall(VIStepperSetType(st, type));
  PetscCall(VIStepperTimeStepOptions(st, PetscOptionsObject, &dt));
  PetscCall(PetscOptionsReal("-step_start_time", "Start time", "", st->t0, &st->t0, NULL));
  PetscCall(PetscOptionsReal("-step_end_time", "End time", "VIStepperSetTimeStep", t_end, &t_end, NULL));
  PetscCall(PetscOptionsInt("-step_output_every", "Record every N-th time level", "", st->output_every, &st->output_every, NULL));
  PetscCall(PetscOptionsBool("-step_record_q", "Record the ROM coordinates q at the recorded levels (/case/q of the results, for vicms fields)", "",
                             st->record_q, &st->record_q, NULL));
  PetscCall(PetscOptionsReal("-step_blowup_factor",
                             "A run is unstable when |q| exceeds this factor times the scale of its initial state, gaps and static responses", "",
                             st->blowup_factor, &st->blowup_factor, NULL));
  PetscCall(PetscOptionsBool("-step_modal",
                             "nsgalpha and mixed on a linear ROM whose damping is diagonal in its modes: step in the modal coordinates (false: in "
                             "the ROM's own, the same results to round-off at a higher cost per step)",
                             "", st->modal_allowed, &st->modal_allowed, NULL));
  PetscCall(PetscOptionsReal("-step_restitution", "Normal restitution coefficient e of the moreau, nsgalpha and mixed schemes", "", st->restitution,
                             &st->restitution, NULL));
  {
    PetscBool set_max;
    PetscInt  max_nc = st->max_nonconverged;
    PetscCall(
        PetscOptionsInt("-step_max_nonconverged",
                        "The run fails when more contact solves than this do not converge (-1: no limit; default: 0.1 % of the steps, at least 10)",
                        "", max_nc, &max_nc, &set_max));
    if (set_max) {
      PetscCheck(max_nc >= -1, st->comm, PETSC_ERR_USER_INPUT,
                 "-step_max_nonconverged: got %" PetscInt_FMT ", expected a count >= 0, or -1 for no limit", max_nc);
      st->max_nonconverged = max_nc;
    }
  }
  if (st->ops.setfromoptions) PetscCall((*st->ops.setfromoptions)(st, PetscOptionsObject));
  PetscOptionsEnd();
  PetscCall(VIStepperTimeStepCheck(st, dt, t_end));
  PetscCheck(st->output_every >= 1, st->comm, PETSC_ERR_USER_INPUT, "-step_output_every: got %" PetscInt_FMT ", expected >= 1", st->output_every);
  PetscCheck(st->restitution >= 0 && st->restitution <= 1, st->comm, PETSC_ERR_USER_INPUT, "-step_restitution: got %g, expected a value in [0, 1]",
             (double)st->restitution);
  PetscCheck(st->blowup_factor > 1, st->comm, PETSC_ERR_USER_INPUT, "-step_blowup_factor: got %g, expected > 1", (double)st->blowup_factor);
  PetscCall(VIContactSolverSetFromOptions(st->solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Scale of the motion, for the blow-up test: initial state, gaps, and the static responses diag(K)^-1 f of the loads. */
static PetscErrorCode VIStepperScale(VIStepper st)
{
  VISystem         sys = st->sys;
  const PetscReal *q0, *u0, *const *loads;
  PetscReal s = 0, gap;
  PetscInt  num_loads;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetInitialState(sys, &q0, &u0));
  for (PetscInt k = 0; k < st->n; k++) s = PetscMax(s, PetscAbsReal(q0[k]));
  PetscCall(VISystemGetGapBound(sys, &gap));
  PetscCall(VISystemGetLoads(sys, &num_loads, &loads));
  s = PetscMax(s, gap);
  for (PetscInt l = 0; l < num_loads; l++)
    for (PetscInt k = 0; k < st->n; k++)
      if (st->K[k * st->n + k] > 0) s = PetscMax(s, PetscAbsReal(loads[l][k]) / st->K[k * st->n + k]);
  for (PetscInt k = 0; k < st->n; k++)
    if (st->M[k * st->n + k] > 0) s = PetscMax(s, PetscAbsReal(u0[k]) * st->t_end);
  st->bound = st->blowup_factor * (s > 0 ? s : 1.0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperSetUp(VIStepper st)
{
  VISystem         sys = st->sys;
  const PetscReal *K, *M, *D;
  PetscBool        linear;

  PetscFunctionBeginUser;
  PetscCheck(sys, st->comm, PETSC_ERR_ORDER, "Call VIStepperSetSystem() first");
  PetscCall(VIStepperReset(st));
  PetscCall(VISystemSetUp(sys));
  PetscCall(VISystemIsLinear(sys, &linear));
  st->nonlinear = linear ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(VISystemHasOutputs(sys, &st->has_outputs));
  if (linear)
    PetscCall(VISystemGetLinearOperators(sys, &K, &M, &D)); /* D scaled by -case_damping_scale */
  else {
    const PetscReal *q0;
    PetscInt         n;
    PetscCall(VISystemGetSizes(sys, &n, NULL, NULL));
    PetscCall(VISystemGetInitialState(sys, &q0, NULL));
    PetscCall(PetscCalloc1(3 * n * n, &st->nonlinear_ops));
    PetscCall(VISystemComputeMass(sys, q0, st->nonlinear_ops + n * n));
    K = st->nonlinear_ops;
    M = st->nonlinear_ops + n * n;
    D = st->nonlinear_ops + 2 * n * n;
  }
  if (!st->type[0]) PetscCall(VIStepperSetType(st, VISTEPPERLEAPFROG));
  if (!linear) {
    VISystemType type;
    PetscCall(VISystemGetType(sys, &type));
    PetscCheck(st->ops.nonlinear, st->comm, PETSC_ERR_USER_INPUT,
               "-step_type %s works on a ROM's constant K, M, D only; this system (-system_type %s) is nonlinear: use -step_type nsgalpha, "
               "mixed or moreau (-step_moreau_variant theta)",
               st->type, type);
  }
  if (st->ops.checksystem) PetscCall((*st->ops.checksystem)(st));
  PetscCall(VIStepperTimeStepSetUp(st)); /* -step_dt auto, -step_accuracy: before anything of the system is cached */
  PetscCall(VISystemCheckSampling(sys, st->t0, st->t_end, st->dt));
  PetscCall(VISystemGetSizes(sys, &st->n, &st->nb, &st->nm));
  PetscCall(VISystemGetContacts(sys, &st->nc, NULL, NULL, &st->offsets));
  PetscCall(VISystemGetLoads(sys, &st->num_loads, NULL));
  st->K = K;
  st->M = M;
  st->D = D;
  PetscCall(VISystemGetContactSet(sys, &st->set, &st->obstacle_v));
  /* lambda: a force per boundary row of a ROM (its contacts' rows are among them), per constraint row of a multibody system
     (offsets[j] + dims[j] may pass nb there) */
  st->nlambda = st->nb;
  for (PetscInt j = 0; j < st->nc; j++) st->nlambda = PetscMax(st->nlambda, st->offsets[j] + st->set.dims[j]);
  PetscCall(PetscCalloc4(st->n, &st->q, st->n, &st->u, PetscMax(st->nlambda, 1), &st->lambda, PetscMax(st->nc, 1), &st->gap));
  PetscCall(PetscCalloc4(st->n, &st->f, PetscMax(st->nc, 1), &st->g0, PetscMax(st->nc, 1), &st->g0_rate, 2 * st->n, &st->work));
  {
    PetscInt nout;
    /* the outputs the common records take (a system that records its own, the coupled bodies of the dual scheme, has none
       here); rows for outputs linear in q, the system's own computation otherwise (has_outputs) */
    PetscCall(VISystemGetNumOutputs(sys, &nout));
    if (!nout) st->has_outputs = PETSC_FALSE;
    st->nout = nout;
    PetscCall(PetscMalloc2(PetscMax(nout, 1) * st->n, &st->out_mat, PetscMax(nout, 1), &st->out_y));
    PetscCall(PetscCalloc2(6 * PetscMax(nout, 1), &st->ostat, 5 * PetscMax(nout, 1), &st->stat_out));
    PetscCheck(st->env_output < nout, st->comm, PETSC_ERR_ARG_OUTOFRANGE,
               "Envelope of output %" PetscInt_FMT ": the ROM has %" PetscInt_FMT " outputs", st->env_output, nout);
    st->out_rows = PETSC_FALSE;
    for (PetscInt o = 0; o < nout; o++) {
      const PetscReal *row;
      PetscCall(VISystemGetOutput(sys, o, NULL, &row));
      if (row) st->out_rows = PETSC_TRUE;
      if (row)
        PetscCall(PetscArraycpy(st->out_mat + o * st->n, row, st->n));
      else
        PetscCall(PetscArrayzero(st->out_mat + o * st->n, st->n));
    }
  }
  /* the level's state, read by the next step of some schemes (the scheme registers the rest in its setup) */
  PetscCall(VIStepperRegisterState(st, "q", st->n, st->q, NULL));
  PetscCall(VIStepperRegisterState(st, "u", st->n, st->u, NULL));
  PetscCall(VIStepperRegisterState(st, "lambda", st->nlambda, st->lambda, NULL));
  PetscCall(VIStepperRegisterState(st, "gap", st->nc, st->gap, NULL));
  PetscCall((*st->ops.setup)(st));
  PetscCall(VIStepperScale(st));
  if (st->basis) {
    /* the scheme steps in eta, q = basis eta: the outputs are out_mat basis, the blow-up bound is on eta */
    PetscReal *rows;
    PetscCall(PetscMalloc1(PetscMax(st->nout, 1) * st->n, &rows));
    if (st->nout) PetscCall(VIMatMat(st->nout, st->n, st->n, st->out_mat, st->basis, 1.0, rows, st->n));
    PetscCall(PetscArraycpy(st->out_mat, rows, st->nout * st->n));
    PetscCall(PetscFree(rows));
    st->bound *= st->basis_gain;
  }
  /* the cost unit of a step: one BLAS dgemv of the ROM's size (n x n, K), on this machine, now */
  PetscCall(VIMatVecTime(st->n, st->K, st->q, st->f, &st->matvec_time));
  PetscCall(PetscArrayzero(st->f, st->n));
  st->setup = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The statistics of the level just completed (every level): outputs, contact forces and gaps, sweep envelope. */
static PetscErrorCode VIStepperObserve(VIStepper st, PetscReal t)
{
  PetscBool in_window = t >= st->window_start ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBeginUser;
  if (st->has_outputs)
    PetscCall(VISystemComputeOutputs(st->sys, t, st->q, st->u, st->lambda, st->out_y));
  else
    VIMatVec(st->nout, st->n, st->out_mat, st->n, st->q, 0.0, st->out_y);
  for (PetscInt o = 0; o < st->nout; o++) {
    PetscReal y = st->out_y[o], *s = st->ostat + 6 * o;
    s[5] = y;
    s[0] = PetscMax(s[0], PetscAbsReal(y));
    if (in_window) {
      s[1] = st->nwindow ? PetscMin(s[1], y) : y;
      s[2] = st->nwindow ? PetscMax(s[2], y) : y;
      s[3] += y;
      s[4] += y * y;
    }
  }
  for (PetscInt j = 0; j < st->nc; j++) {
    st->force_max = PetscMax(st->force_max, st->lambda[st->offsets[j]]);
    if (in_window) st->gap_min = st->nwindow || j ? PetscMin(st->gap_min, st->gap[j]) : st->gap[j];
  }
  if (in_window) st->nwindow++;
  if (st->env_output >= 0) {
    PetscReal    y = st->ostat[6 * st->env_output + 5], f;
    VIExciteType type;
    if (t >= st->env_end && st->env_end > st->env_start) {
      /* a pseudo-period is complete: its frequency at the middle, half its peak-to-peak */
      PetscCall(VISystemGetLoadFrequency(st->sys, 0.5 * (st->env_start + st->env_end), &f, &type));
      if (st->nenv == st->max_env) {
        st->max_env = PetscMax(64, 2 * st->max_env);
        PetscCall(PetscRealloc(sizeof(PetscReal) * 2 * st->max_env, &st->env));
      }
      st->env[2 * st->nenv]     = f;
      st->env[2 * st->nenv + 1] = 0.5 * (st->env_hi - st->env_lo);
      st->nenv++;
    }
    if (t >= st->env_end) {
      PetscCall(VISystemGetLoadFrequency(st->sys, t, &f, &type));
      st->env_start = t;
      st->env_end   = f > 0 ? t + 1 / f : PETSC_MAX_REAL;
      st->env_lo = st->env_hi = y;
    }
    st->env_lo = PetscMin(st->env_lo, y);
    st->env_hi = PetscMax(st->env_hi, y);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperSetSteadyWindow(VIStepper st, PetscReal fraction)
{
  PetscFunctionBeginUser;
  PetscCheck(fraction > 0 && fraction <= 1, st->comm, PETSC_ERR_ARG_OUTOFRANGE, "The steady window is a fraction in (0, 1], got %g",
             (double)fraction);
  st->steady_fraction = fraction;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperSetEnvelopeOutput(VIStepper st, PetscInt output)
{
  PetscFunctionBeginUser;
  st->env_output = output;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperGetEnvelope(VIStepper st, PetscInt *m, const PetscReal **env)
{
  PetscFunctionBeginUser;
  *m   = st->nenv;
  *env = st->env;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperGetRunStatistics(VIStepper st, VIRunStatistics *s)
{
  PetscInt no = st->nout;

  PetscFunctionBeginUser;
  s->nout    = no;
  s->max_abs = st->stat_out;
  s->min     = st->stat_out + no;
  s->max     = st->stat_out + 2 * no;
  s->mean    = st->stat_out + 3 * no;
  s->rms     = st->stat_out + 4 * no;
  for (PetscInt o = 0; o < no; o++) {
    const PetscReal *a = st->ostat + 6 * o;
    PetscInt         w = st->nwindow;
    s->max_abs[o]      = a[0];
    s->min[o]          = w ? a[1] : NAN;
    s->max[o]          = w ? a[2] : NAN;
    s->mean[o]         = w ? a[3] / w : NAN;
    s->rms[o]          = w ? PetscSqrtReal(a[4] / w) : NAN;
  }
  s->force_max = st->force_max;
  s->gap_min   = st->nwindow && st->nc ? st->gap_min : NAN;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Append the level just completed to the records (VIStepperObserve has seen it: its outputs are in ostat). */
static PetscErrorCode VIStepperRecord(VIStepper st, PetscReal t)
{
  PetscInt k = st->nt, n = st->n;

  PetscFunctionBeginUser;
  if (k == st->max_t) {
    PetscInt cap = PetscMax(1024, 2 * st->max_t);
    PetscCall(PetscRealloc(sizeof(PetscReal) * cap, &st->t_rec));
    PetscCall(PetscRealloc(sizeof(PetscReal) * cap * PetscMax(st->nout, 1), &st->out_rec));
    PetscCall(PetscRealloc(sizeof(PetscReal) * cap * PetscMax(st->nout, 1), &st->vel_rec));
    PetscCall(PetscRealloc(sizeof(PetscReal) * cap * PetscMax(st->nc, 1), &st->gap_rec));
    PetscCall(PetscRealloc(sizeof(PetscReal) * cap * PetscMax(st->nc, 1), &st->force_rec));
    PetscCall(PetscRealloc(sizeof(PetscReal) * cap * VI_ENERGY_COLUMNS, &st->energy_rec));
    if (st->record_q) PetscCall(PetscRealloc(sizeof(PetscReal) * cap * n, &st->q_rec));
    st->max_t = cap;
  }
  st->t_rec[k] = t;
  if (st->record_q) {
    /* the ROM's coordinates (q = basis eta for a scheme in other coordinates) */
    const PetscReal *q;
    PetscCall(VIStepperGetState(st, &q, NULL));
    PetscCall(PetscArraycpy(st->q_rec + k * n, q, n));
  }
  /* the outputs of this level, computed by VIStepperObserve */
  for (PetscInt o = 0; o < st->nout; o++) st->out_rec[k * st->nout + o] = st->ostat[6 * o + 5];
  /* and their velocities: the output rows (in the scheme's coordinates, as for the outputs) times the level's velocity estimate */
  if (st->out_rows)
    VIMatVec(st->nout, n, st->out_mat, n, st->u, 0.0, st->vel_rec + k * st->nout);
  else /* no rows (a system's own outputs): zeros, without the product */
    PetscCall(PetscArrayzero(st->vel_rec + k * st->nout, st->nout));
  for (PetscInt j = 0; j < st->nc; j++) {
    st->gap_rec[k * st->nc + j]   = st->gap[j];
    st->force_rec[k * st->nc + j] = st->lambda[st->offsets[j]];
  }
  {
    PetscReal T = st->energy.kinetic, V = st->energy.potential, *e = st->energy_rec + VI_ENERGY_COLUMNS * k;
    if (st->ops.energy)
      PetscCall((*st->ops.energy)(st, &T, &V));
    else if (st->nonlinear)
      PetscCall(VISystemComputeEnergy(st->sys, st->q, st->u, &T, &V));
    else if (!st->scheme_energy) {
      /* the scheme does not compute them on the way: two products at each recorded level */
      T = V = 0;
      VIMatVec(n, n, st->M, n, st->u, 0.0, st->work);
      VIMatVec(n, n, st->K, n, st->q, 0.0, st->work + n);
      for (PetscInt i = 0; i < n; i++) {
        T += 0.5 * st->u[i] * st->work[i];
        V += 0.5 * st->q[i] * st->work[n + i];
      }
    }
    st->energy.kinetic   = T;
    st->energy.potential = V;
    e[0]                 = T;
    e[1]                 = V;
    e[2]                 = st->energy.damping_dissipation;
    e[3]                 = st->energy.friction_dissipation;
    e[4]                 = st->energy.external_work;
    e[5]                 = st->energy.obstacle_work;
    e[7]                 = st->energy.numerical_dissipation;
    if (k == 0 && !st->ops.energy) st->energy0 = T + V;
    e[6] = T + V - st->energy0 - e[4] - e[5] + e[2] + e[3] + e[7];
  }
  st->nt++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperStop(VIStepper st)
{
  PetscFunctionBeginUser;
  st->stop_requested = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperGetLevel(VIStepper st, PetscInt *level, PetscReal *t)
{
  PetscFunctionBeginUser;
  if (level) *level = st->level;
  if (t) *t = st->t0 + st->level * st->dt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The option that bounds the iterations of the scheme's contact solves, for messages. */
static const char *VIStepperIterationLimit(VIStepper st)
{
  PetscBool ns;
  return (PetscStrcmp(st->type, VISTEPPERNSGALPHA, &ns) == PETSC_SUCCESS && ns) ? "-step_nsgalpha_max_it" : "-contact_max_it";
}

/* The ranks' agreement on a step that raised an error (VIStepperRun): *first, the first failing level over the group
   (PETSC_MAX_INT: none, after one MPI_Allreduce); with one, *code and msg become those of its lowest failing rank, *root. */
static PetscErrorCode VIStepperAgreeFailure(VIStepper st, PetscInt level, PetscErrorCode *code, char msg[], size_t len, PetscInt *first,
                                            PetscMPIInt *root)
{
  PetscMPIInt rank, mine;
  int         c = (int)*code;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&level, first, 1, MPIU_INT, MPI_MIN, st->comm));
  if (*first == PETSC_MAX_INT) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(st->comm, &rank));
  mine = level == *first ? rank : PETSC_MPI_INT_MAX;
  PetscCallMPI(MPI_Allreduce(&mine, root, 1, MPI_INT, MPI_MIN, st->comm));
  PetscCallMPI(MPI_Bcast(&c, 1, MPI_INT, *root, st->comm));
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)len, MPI_CHAR, *root, st->comm));
  *code = (PetscErrorCode)c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperRun(VIStepper st)
{
  PetscInt       nsteps, k0 = 0, max_nonconverged;
  PetscLogDouble t0, t1;
  PetscMPIInt    size, rank, root = 0;
  /* a step that raised an error on this rank: its level (PETSC_MAX_INT: none), code and message; then the group's first */
  PetscInt       fail_level = PETSC_MAX_INT, first = PETSC_MAX_INT;
  PetscErrorCode fail_code                           = PETSC_SUCCESS;
  char           fail_msg[sizeof(st->stats.message)] = "";

  PetscFunctionBeginUser;
  /* every run starts from the initial state, or from the checkpoint restored after its set-up: a set-up serves one run */
  if (!st->setup) PetscCall(VIStepperSetUp(st));
  st->setup          = PETSC_FALSE;
  st->stop_requested = PETSC_FALSE;
  st->window_start   = st->t_end - st->steady_fraction * (st->t_end - st->t0);
  nsteps             = (PetscInt)PetscCeilReal((st->t_end - st->t0) / st->dt - 1e-9);
  st->nsteps         = nsteps;
  /* a run whose contact solves do not converge computes garbage (the Rubin blade at 1,000 levels per revolution: residuals 1e13,
     gaps of -3 mm): by default it fails past 0.1 % of its steps (at least 10), the few a good run meets in its hardest impacts */
  max_nonconverged = st->max_nonconverged == VI_NONCONVERGED_AUTO ? PetscMax(10, nsteps / 1000) : st->max_nonconverged;
  if (st->restored) {
    /* the checkpoint stands between the step and the advance of its level */
    st->restored = PETSC_FALSE;
    k0           = st->level + 1;
    if (st->level < nsteps) PetscCall((*st->ops.advance)(st));
  } else {
    PetscCall(PetscMemzero(&st->stats, sizeof(st->stats)));
    PetscCall(PetscMemzero(&st->energy, sizeof(st->energy)));
    st->nt = 0;
    PetscCall(PetscArrayzero(st->ostat, 6 * PetscMax(st->nout, 1)));
    st->nwindow   = 0;
    st->force_max = 0;
    st->gap_min   = 0;
    st->nenv      = 0;
    st->env_start = st->env_end = st->t0;
    st->wall_before             = 0;
  }
  st->stats.error        = PETSC_SUCCESS;
  st->stats.failed_level = -1;
  PetscCallMPI(MPI_Comm_size(st->comm, &size));
  PetscCall(PetscTime(&t0));
  for (PetscInt k = k0; k <= nsteps; k++) {
    PetscReal      t = st->t0 + k * st->dt, qmax = 0, nonfinite = 0;
    PetscErrorCode ierr;
    PetscBool      recorded;
    if (fail_level < PETSC_MAX_INT) goto agree; /* this rank's step failed: on to the agreement of the group */
    PetscCall(PetscLogEventBegin(VI_Step, 0, 0, 0, 0));
    ierr = (*st->ops.step)(st, t);
    PetscCall(PetscLogEventEnd(VI_Step, 0, 0, 0, 0));
    if (PetscUnlikely(ierr)) {
      /* a step's error (the handler has seen it where it was raised): kept with its message, so that the group ends together */
      char *specific = NULL;
      fail_level     = k;
      fail_code      = ierr;
      (void)PetscErrorMessage(ierr, NULL, &specific);
      (void)PetscStrncpy(fail_msg, specific && specific[0] ? specific : "error", sizeof(fail_msg));
      if (size == 1) break;
      goto agree;
    }
    st->stats.steps++;
    /* NaN compares false with everything: it never exceeds the bound, so the state is tested for it directly; x - x is
       0 for a finite x and NaN for an infinite or NaN one, which one sum over q shows (then the culprit is named). The
       velocity is not summed: every scheme moves q by dt u, so a non-finite u is a non-finite q one level later. */
    {
      const PetscReal *restrict q = st->q;
      PetscReal m[4] = {0, 0, 0, 0}, z[4] = {0, 0, 0, 0}; /* four independent chains: no wait on the previous entry */
      PetscInt  i = 0;
      for (; i + 4 <= st->n; i += 4)
        for (PetscInt l = 0; l < 4; l++) {
          m[l] = PetscMax(m[l], PetscAbsReal(q[i + l]));
          z[l] += q[i + l] - q[i + l];
        }
      for (; i < st->n; i++) {
        m[0] = PetscMax(m[0], PetscAbsReal(q[i]));
        z[0] += q[i] - q[i];
      }
      qmax      = PetscMax(PetscMax(m[0], m[1]), PetscMax(m[2], m[3]));
      nonfinite = (z[0] + z[1]) + (z[2] + z[3]);
    }
    for (PetscInt i = 0; i < st->n && nonfinite != 0; i++)
      if (PetscIsInfOrNanReal(st->q[i]) || PetscIsInfOrNanReal(st->u[i])) {
        const PetscBool inq     = PetscIsInfOrNanReal(st->q[i]);
        const PetscReal x       = inq ? st->q[i] : st->u[i];
        st->stats.unstable      = PETSC_TRUE;
        st->stats.unstable_time = t;
        st->stats.failed        = PETSC_TRUE;
        PetscCall(PetscSNPrintf(st->stats.message, sizeof(st->stats.message), "non-finite state at t = %g: %s%s[%" PetscInt_FMT "] = %s%s", (double)t,
                                st->basis ? "modal " : "", inq ? "q" : "v", i, !PetscIsNanReal(x) && x < 0 ? "-" : "",
                                PetscIsNanReal(x) ? "nan" : "inf"));
        break;
      }
    if (st->stats.failed) break;
    if (PetscIsInfOrNanReal(qmax) || qmax > st->bound) {
      if (st->basis) { /* |q|_inf of q = basis eta: more than bound / basis_gain, which the message names */
        const PetscReal *q;
        PetscCall(VIStepperGetState(st, &q, NULL));
        qmax = 0;
        for (PetscInt i = 0; i < st->n; i++) qmax = PetscMax(qmax, PetscAbsReal(q[i]));
      }
      st->stats.unstable      = PETSC_TRUE;
      st->stats.unstable_time = t;
      st->stats.failed        = PETSC_TRUE;
      PetscCall(PetscSNPrintf(st->stats.message, sizeof(st->stats.message),
                              "unstable at t = %g: |q| = %g exceeds %g (blow-up factor %g); reduce -step_dt", (double)t, (double)qmax,
                              (double)(st->bound / st->basis_gain), (double)st->blowup_factor));
      break;
    }
    if (max_nonconverged >= 0 && st->stats.nonconverged > max_nonconverged) {
      char scheme[64];
      PetscCall(VIStepperDescribe(st, scheme, sizeof(scheme)));
      st->stats.failed = PETSC_TRUE;
      PetscCall(PetscSNPrintf(st->stats.message, sizeof(st->stats.message),
                              "contact not converged at t = %g: %" PetscInt_FMT " of %" PetscInt_FMT " solves (%s, %s) failed, residual up to %.3g; "
                              "limit -step_max_nonconverged %" PetscInt_FMT "%s: reduce -step_dt (%g) or change -step_type",
                              (double)t, st->stats.nonconverged, st->stats.contact_solves, scheme, VIStepperIterationLimit(st),
                              (double)st->stats.contact_residual_max, max_nonconverged,
                              st->max_nonconverged == VI_NONCONVERGED_AUTO ? " (default: 0.1 % of steps)" : "", (double)st->dt));
      break;
    }
    PetscCall(VIStepperObserve(st, t));
    recorded = (PetscBool)(k % st->output_every == 0 || k == nsteps);
    if (recorded) {
      PetscCall(VIStepperRecord(st, t));
      /* a finite state whose energy overflows (|v| ~ 1e200): its balance and summaries would be inf, the case "done" */
      if (PetscIsInfOrNanReal(st->energy.kinetic + st->energy.potential)) {
        st->stats.failed = PETSC_TRUE;
        PetscCall(PetscSNPrintf(st->stats.message, sizeof(st->stats.message),
                                "non-finite energy at t = %g (kinetic %g, potential %g): the state is beyond what double precision can square; check "
                                "the initial state (-init_velocity) and the loads",
                                (double)t, (double)st->energy.kinetic, (double)st->energy.potential));
        break;
      }
    }
    if (st->postlevel) PetscCall((*st->postlevel)(st, k, t, recorded, st->postlevel_ctx));
  agree:
    /* the failure agreement of the group, where the monitor may make a collective call: every 64 levels (and after the loop) */
    if (size > 1 && k % 64 == 0) {
      PetscCall(VIStepperAgreeFailure(st, fail_level, &fail_code, fail_msg, sizeof(fail_msg), &first, &root));
      if (first < PETSC_MAX_INT) break;
    }
    if (fail_level < PETSC_MAX_INT) continue;
    st->level = k;
    if (st->monitor && k % 64 == 0) {
      PetscCall(PetscTime(&t1));
      st->stats.wall_time = st->wall_before + (t1 - t0); /* for a checkpoint the monitor may write */
      PetscCall((*st->monitor)(st, t, st->monitor_ctx));
      if (st->stop_requested && k < nsteps) {
        st->stats.stopped      = PETSC_TRUE;
        st->stats.stopped_time = t;
        break;
      }
    }
    if (k < nsteps) PetscCall((*st->ops.advance)(st));
  }
  /* the ranks that left the loop elsewhere (its end, a failure of the run, a stop) meet the others' last agreement */
  if (size > 1 && first == PETSC_MAX_INT) PetscCall(VIStepperAgreeFailure(st, fail_level, &fail_code, fail_msg, sizeof(fail_msg), &first, &root));
  if (size == 1) first = fail_level;
  PetscCall(PetscTime(&t1));
  st->stats.wall_time   = st->wall_before + (t1 - t0);
  st->stats.matvec_time = st->matvec_time;
  if (first < PETSC_MAX_INT) {
    /* the same error on every rank: the records up to the level before the failing one, its code and message */
    st->stats.failed       = PETSC_TRUE;
    st->stats.error        = fail_code;
    st->stats.failed_level = first;
    PetscCall(PetscStrncpy(st->stats.message, fail_msg, sizeof(st->stats.message)));
    while (st->nt > 0 && st->t_rec[st->nt - 1] > st->t0 + (first - 0.5) * st->dt) st->nt--;
    st->level = PetscMax(first - 1, 0);
    PetscCallMPI(MPI_Comm_rank(st->comm, &rank));
    /* the failing rank returns its own error (its handler printed it where it was raised); the others raise it here, printed
       once by the group's rank 0 when that was not the failing one */
    if (size == 1 || (rank == root && fail_level == first)) PetscFunctionReturn(fail_code);
    SETERRQ(st->comm, fail_code, "%s", fail_msg);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperGetSeries(VIStepper st, PetscInt *nt, const PetscReal **t, const PetscReal **outputs, const PetscReal **gaps,
                                  const PetscReal **forces, const PetscReal **energy)
{
  PetscFunctionBeginUser;
  if (nt) *nt = st->nt;
  if (t) *t = st->t_rec;
  if (outputs) *outputs = st->out_rec;
  if (gaps) *gaps = st->gap_rec;
  if (forces) *forces = st->force_rec;
  if (energy) *energy = st->energy_rec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperGetStateSeries(VIStepper st, PetscInt *n, const PetscReal **q)
{
  PetscFunctionBeginUser;
  if (n) *n = st->record_q ? st->n : 0;
  *q = st->record_q ? st->q_rec : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperGetVelocities(VIStepper st, const PetscReal **velocities)
{
  PetscFunctionBeginUser;
  *velocities = st->vel_rec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperGetStats(VIStepper st, VIStepStats *stats)
{
  PetscFunctionBeginUser;
  *stats = st->stats;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperGetState(VIStepper st, const PetscReal **q, const PetscReal **u)
{
  PetscFunctionBeginUser;
  if (q) *q = st->q;
  if (u) *u = st->u;
  if (st->basis) {
    /* the ROM's coordinates of the scheme's eta */
    if (!st->qphys) PetscCall(PetscMalloc2(st->n, &st->qphys, st->n, &st->uphys));
    if (q) VIMatVec(st->n, st->n, st->basis, st->n, st->q, 0.0, st->qphys);
    if (u) VIMatVec(st->n, st->n, st->basis, st->n, st->u, 0.0, st->uphys);
    if (q) *q = st->qphys;
    if (u) *u = st->uphys;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperView(VIStepper st, PetscViewer viewer)
{
  VIStepStats *s = &st->stats;

  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(st->comm, &viewer));
  PetscCall(PetscViewerASCIIPrintf(
      viewer,
      "Stepper %s: dt %g, %" PetscInt_FMT " steps in %.3f s (%.0f steps/s), %" PetscInt_FMT
      " contact solves, %.1f iterations on average (max %" PetscInt_FMT "), %" PetscInt_FMT " not converged",
      st->type, (double)st->dt, s->steps, (double)s->wall_time, s->wall_time > 0 ? (double)(s->steps / s->wall_time) : 0.0, s->contact_solves,
      s->contact_solves ? (double)s->contact_iterations / (double)s->contact_solves : 0.0, s->contact_iterations_max, s->nonconverged));
  if (s->nonconverged) PetscCall(PetscViewerASCIIPrintf(viewer, " (largest residual %g)", (double)s->contact_residual_max));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  if (s->steps && s->matvec_time > 0)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "  time per step: %.3g s = %.2f BLAS dgemv of %" PetscInt_FMT " x %" PetscInt_FMT " (timed in this run)\n",
                                     (double)(s->wall_time / s->steps), (double)(s->wall_time / s->steps / s->matvec_time), st->n, st->n));
  if (s->failed) PetscCall(PetscViewerASCIIPrintf(viewer, "  %s\n", s->message));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ shared kernels of the schemes */

PetscErrorCode VIStepperDescribe(VIStepper st, char name[], size_t len)
{
  PetscFunctionBeginUser;
  if (st->ops.describe)
    PetscCall((*st->ops.describe)(st, name, len));
  else
    PetscCall(PetscStrncpy(name, st->type, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}


PetscErrorCode VIRowSplitCreate(MPI_Comm comm, PetscInt m, PetscInt width, VIRowSplit *rs)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(rs, sizeof(*rs)));
  rs->comm  = comm;
  rs->width = width;
  PetscCallMPI(MPI_Comm_size(comm, &rs->size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc2(rs->size, &rs->counts, rs->size, &rs->displs));
  for (PetscMPIInt r = 0; r < rs->size; r++) {
    const PetscInt blocks = (m + VI_ROW_BLOCK - 1) / VI_ROW_BLOCK;
    PetscInt       lo = PetscMin(m, VI_ROW_BLOCK * ((blocks * r) / rs->size)), hi = PetscMin(m, VI_ROW_BLOCK * ((blocks * (r + 1)) / rs->size));
    PetscCall(PetscMPIIntCast(lo * width, &rs->displs[r]));
    PetscCall(PetscMPIIntCast((hi - lo) * width, &rs->counts[r]));
    if (r == rank) {
      rs->lo = lo;
      rs->hi = hi;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIRowSplitGather(VIRowSplit *rs, PetscReal y[])
{
  PetscFunctionBeginUser;
  if (rs->size > 1) PetscCallMPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPIU_REAL, y, rs->counts, rs->displs, MPIU_REAL, rs->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIRowSplitDestroy(VIRowSplit *rs)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(rs->counts, rs->displs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* BLAS dgemv: A row-major with leading dimension lda is A^T column-major. */
/* The time of one BLAS dgemv y = A x (n x n) on this machine, now: the fastest of 10 batches of 200, so that another process's
   burst does not inflate it; the unit in which the steppers state their cost. x is read, y overwritten. */
PetscErrorCode VIMatVecTime(PetscInt n, const PetscReal A[], const PetscReal x[], PetscReal y[], PetscReal *seconds)
{
  const PetscInt batches = 10, reps = 200;
  PetscReal      sum = 0;

  PetscFunctionBeginUser;
  *seconds = PETSC_MAX_REAL;
  for (PetscInt b = 0; b < batches; b++) {
    PetscLogDouble t0, t1;
    PetscCall(PetscTime(&t0));
    for (PetscInt r = 0; r < reps; r++) {
      VIMatVec(n, n, A, n, x, 0.0, y);
      sum += y[r % n];
    }
    PetscCall(PetscTime(&t1));
    *seconds = PetscMin(*seconds, (t1 - t0) / reps);
  }
  PetscCall(PetscInfo(NULL, "BLAS dgemv %" PetscInt_FMT " x %" PetscInt_FMT ": %g s (checksum %g)\n", n, n, *seconds, (double)sum));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void VIMatVec(PetscInt m, PetscInt k, const PetscReal A[], PetscInt lda, const PetscReal x[], PetscReal beta, PetscReal y[])
{
  PetscBLASInt    bm = (PetscBLASInt)m, bk = (PetscBLASInt)k, bl = (PetscBLASInt)lda, one = 1;
  const PetscReal a = 1.0;

  if (m <= 0) return;
  if (k <= 0) {
    for (PetscInt i = 0; i < m; i++) y[i] = beta != 0 ? beta * y[i] : 0;
    return;
  }
  BLASgemv_("T", &bk, &bm, &a, A, &bl, x, &one, &beta, y, &one);
}

/* The modes of (K, M): PhiT (n x n row-major, row i = mode i, M-normalized) and omega^2 (lam), ascending. */
PetscErrorCode VIStepperModes(VIStepper st, const char scheme[], PetscReal PhiT[], PetscReal lam[])
{
  PetscInt     n = st->n;
  PetscBLASInt bn, itype = 1, lwork, info;
  PetscReal   *Mc, *work, lwork_opt;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscMalloc1(n * n, &Mc));
  PetscCall(PetscArraycpy(PhiT, st->K, n * n)); /* symmetric: row-major is column-major */
  PetscCall(PetscArraycpy(Mc, st->M, n * n));
  lwork = -1;
  PetscCallBLAS("LAPACKsygv", LAPACKsygv_(&itype, "V", "L", &bn, PhiT, &bn, Mc, &bn, lam, &lwork_opt, &lwork, &info));
  PetscCall(PetscBLASIntCast(PetscMax((PetscInt)lwork_opt, 3 * n), &lwork));
  PetscCall(PetscMalloc1(lwork, &work));
  PetscCallBLAS("LAPACKsygv", LAPACKsygv_(&itype, "V", "L", &bn, PhiT, &bn, Mc, &bn, lam, work, &lwork, &info));
  PetscCall(PetscFree(work));
  PetscCall(PetscFree(Mc));
  /* the eigenvectors come back as columns of a column-major matrix: the rows of the row-major one */
  PetscCheck(info == 0, st->comm, PETSC_ERR_USER_INPUT,
             "-step_type %s: the ROM's modes could not be computed (LAPACK sygv info %d): the mass matrix must be symmetric positive definite",
             scheme, (int)info);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C = alpha A B for row-major A (m x k) and B (k x p), C row-major with leading dimension ldc (BLAS dgemm). */
PetscErrorCode VIMatMat(PetscInt m, PetscInt k, PetscInt p, const PetscReal A[], const PetscReal B[], PetscReal alpha, PetscReal C[], PetscInt ldc)
{
  PetscBLASInt    bm, bk, bp, bl;
  const PetscReal zero = 0;

  PetscFunctionBeginUser;
  if (!m || !k || !p) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(m, &bm));
  PetscCall(PetscBLASIntCast(k, &bk));
  PetscCall(PetscBLASIntCast(p, &bp));
  PetscCall(PetscBLASIntCast(ldc, &bl));
  /* row-major C = A B is column-major C^T = B^T A^T */
  PetscCallBLAS("BLASgemm", BLASgemm_("N", "N", &bp, &bm, &bk, &alpha, B, &bp, A, &bk, &zero, C, &bl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIInvertSPD(MPI_Comm comm, PetscInt n, PetscReal A[], const char what[])
{
  PetscBLASInt bn, info;

  PetscFunctionBeginUser;
  if (n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bn, A, &bn, &info));
  PetscCheck(info == 0, comm, PETSC_ERR_USER_INPUT, "%s is not positive definite (potrf info %d)", what, (int)info);
  PetscCallBLAS("LAPACKpotri", LAPACKpotri_("L", &bn, A, &bn, &info));
  PetscCheck(info == 0, comm, PETSC_ERR_LIB, "potri failed with info %d", (int)info);
  /* LAPACK filled one triangle (column-major "L" = row-major upper); mirror it */
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < i; j++) A[i * n + j] = A[j * n + i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIInvert(MPI_Comm comm, PetscInt n, PetscReal A[], const char what[])
{
  PetscBLASInt  bn, info, lwork;
  PetscBLASInt *ipiv;
  PetscReal    *work;

  PetscFunctionBeginUser;
  if (n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(64 * n, &lwork));
  PetscCall(PetscMalloc2(n, &ipiv, 64 * n, &work));
  /* row-major A is column-major A^T, and inv(A^T) = inv(A)^T: the inverse comes back row-major */
  PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&bn, &bn, A, &bn, ipiv, &info));
  PetscCheck(info == 0, comm, PETSC_ERR_USER_INPUT, "%s is singular (getrf info %d)", what, (int)info);
  PetscCallBLAS("LAPACKgetri", LAPACKgetri_(&bn, A, &bn, ipiv, work, &lwork, &info));
  PetscCheck(info == 0, comm, PETSC_ERR_LIB, "getri failed with info %d", (int)info);
  PetscCall(PetscFree2(ipiv, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscReal VIStepperRelativeVelocity(VIStepper st, PetscInt j, PetscInt r, const PetscReal u[])
{
  PetscReal v = u[st->offsets[j] + r];
  if (r == 0) v += st->g0_rate[j];
  if (r > 0) v -= st->obstacle_v[2 * j + r - 1];
  return v;
}

PetscErrorCode VIActiveSetCreate(PetscInt nb, PetscInt nc, VIActiveSet *as)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(as, sizeof(*as)));
  PetscCall(PetscMalloc4(PetscMax(nb, 1), &as->rows, PetscMax(nc, 1), &as->dims, PetscMax(nc, 1), &as->mu, PetscMax(nc, 1), &as->preload));
  PetscCall(PetscMalloc1(PetscMax(nc, 1), &as->kinds));
  PetscCall(PetscMalloc4(PetscMax(nb * nb, 1), &as->G, PetscMax(nb, 1), &as->c, PetscMax(nb, 1), &as->x, PetscMax(nb, 1), &as->op_rows));
  as->op_nrows = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIActiveSetDestroy(VIActiveSet *as)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree4(as->rows, as->dims, as->mu, as->preload));
  PetscCall(PetscFree(as->kinds));
  PetscCall(PetscFree4(as->G, as->c, as->x, as->op_rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIActiveSetBuild(VIStepper st, const PetscBool active[], PetscBool friction, VIActiveSet *as)
{
  PetscFunctionBeginUser;
  as->nrows = as->nact = 0;
  for (PetscInt j = 0; j < st->nc; j++) {
    PetscInt d;
    if (!active[j]) continue;
    d = (friction && st->set.dims[j] > 1 && st->set.mu[j] > 0) ? st->set.dims[j] : 1;
    for (PetscInt r = 0; r < d; r++) as->rows[as->nrows++] = st->offsets[j] + r;
    as->dims[as->nact]    = d;
    as->mu[as->nact]      = st->set.mu[j];
    as->preload[as->nact] = st->set.preload[j];
    as->kinds[as->nact]   = st->set.kinds[j];
    as->nact++;
  }
  as->set.num_contacts = as->nact;
  as->set.dims         = as->dims;
  as->set.mu           = as->mu;
  as->set.preload      = as->preload;
  as->set.kinds        = as->kinds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIStepperSolveContacts(VIStepper st, VIActiveSet *as, const PetscReal Gfull[], PetscInt ld, PetscReal scale)
{
  VIContactSolveInfo info;
  PetscInt           m = as->nrows;

  PetscFunctionBeginUser;
  if (m != as->op_nrows || Gfull != as->op_full || scale != as->op_scale || memcmp(as->rows, as->op_rows, sizeof(PetscInt) * m)) {
    for (PetscInt a = 0; a < m; a++)
      for (PetscInt b = 0; b < m; b++) as->G[a * m + b] = scale * Gfull[as->rows[a] * ld + as->rows[b]];
    PetscCall(VIContactSolverSetOperator(st->solver, &as->set, m, as->G));
    PetscCall(PetscArraycpy(as->op_rows, as->rows, m));
    as->op_nrows = m;
    as->op_full  = Gfull;
    as->op_scale = scale;
  }
  PetscCall(VIContactSolverSolve(st->solver, &as->set, m, NULL, as->c, as->x, &info));
  st->stats.contact_solves++;
  st->stats.contact_iterations += info.iterations;
  st->stats.contact_iterations_max = PetscMax(st->stats.contact_iterations_max, info.iterations);
  if (!info.converged) {
    st->stats.nonconverged++;
    st->stats.contact_residual_max = PetscMax(st->stats.contact_residual_max, info.residual);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
