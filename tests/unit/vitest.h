/* Helpers shared by the unit tests (tests/unit/): the check macro, a multibody system from a model text, a quaternion's
   rotation, a monitor that stops a run. Header-only, static inline, so that a test links what it uses. */
#pragma once

#include <vicms.h>
#include <stdio.h>

#define EXPECT(cond, ...) PetscCheck(cond, PETSC_COMM_WORLD, PETSC_ERR_PLIB, __VA_ARGS__)

/* The multibody system of the model text `model`, written to `file` by rank 0 and read by every rank (-mb_model file),
   set from the options (a test sets its -mb_param_* first) and set up. Collective on PETSC_COMM_WORLD. */
static inline PetscErrorCode VITestMultibodyCreate(const char file[], const char model[], VISystem *sys)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank) {
    FILE *fp = fopen(file, "w");
    EXPECT(fp, "cannot write the model file %s", file);
    fputs(model, fp);
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(VISystemCreate(PETSC_COMM_WORLD, sys));
  PetscCall(VISystemSetType(*sys, VISYSTEMMULTIBODY));
  PetscCall(PetscOptionsSetValue(NULL, "-mb_model", file));
  PetscCall(VISystemSetFromOptions(*sys));
  PetscCall(VISystemSetUp(*sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* R(p) s with R the quadratic form of the quaternion written out (a rotation when |p| = 1) */
static inline void VITestRotateQuadratic(const PetscReal p[], const PetscReal s[], PetscReal y[])
{
  const PetscReal R[9] = {p[0] * p[0] + p[1] * p[1] - p[2] * p[2] - p[3] * p[3],
                          2 * (p[1] * p[2] - p[0] * p[3]),
                          2 * (p[1] * p[3] + p[0] * p[2]),
                          2 * (p[1] * p[2] + p[0] * p[3]),
                          p[0] * p[0] - p[1] * p[1] + p[2] * p[2] - p[3] * p[3],
                          2 * (p[2] * p[3] - p[0] * p[1]),
                          2 * (p[1] * p[3] - p[0] * p[2]),
                          2 * (p[2] * p[3] + p[0] * p[1]),
                          p[0] * p[0] - p[1] * p[1] - p[2] * p[2] + p[3] * p[3]};
  for (PetscInt i = 0; i < 3; i++) y[i] = R[i * 3] * s[0] + R[i * 3 + 1] * s[1] + R[i * 3 + 2] * s[2];
}

/* A stepper monitor (VIStepperSetMonitor) that stops the run (VIStepperStop) at its stop_at-th call. */
typedef struct {
  PetscInt calls, stop_at;
} VITestStop;

static inline PetscErrorCode VITestStopMonitor(VIStepper st, PetscReal t, void *ctx)
{
  VITestStop *s = (VITestStop *)ctx;

  PetscFunctionBeginUser;
  (void)t;
  if (++s->calls == s->stop_at) PetscCall(VIStepperStop(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}
