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

/* The multibody system's derivatives at (q, u) against central differences of step eps, into err: [0] |G - dg/dq|,
   [1] |d(G^T lam)/dq - H| (H of VISystemComputeConstraintCurvature), [2] |d(M(q) w)/dq - differences of M(q) w|, [3] and
   [4] |df/dq|, |df/du| against the differences of f, relative to the largest entry of df/dq and df/du (err[5]). */
static inline PetscErrorCode VITestMultibodyDerivatives(VISystem sys, const PetscReal q0[], const PetscReal u0[], const PetscReal w[],
                                                        const PetscReal lam[], PetscReal eps, PetscReal err[6])
{
  PetscInt   n, nc;
  PetscReal *q, *u, *g, *gp, *gm, *G, *Gp, *Gm, *H, *Mp, *Mm, *dMw, *fp, *fm, *dfdq, *dfdu, scale = 0;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetSizes(sys, &n, NULL, NULL));
  PetscCall(VISystemGetContacts(sys, &nc, NULL, NULL, NULL));
  PetscCall(PetscMalloc6(n, &q, n, &u, 3 * nc, &g, 3 * nc * n, &G, 6 * n * n, &H, 2 * n, &fp));
  gp = g + nc, gm = gp + nc, Gp = G + nc * n, Gm = Gp + nc * n, Mp = H + n * n, Mm = Mp + n * n, dMw = Mm + n * n, dfdq = dMw + n * n,
  dfdu = dfdq + n * n, fm = fp + n;
  PetscCall(PetscArraycpy(q, q0, n));
  PetscCall(PetscArraycpy(u, u0, n));
  PetscCall(VISystemEvaluateConstraints(sys, 0, q, g, G, NULL));
  PetscCall(VISystemComputeConstraintCurvature(sys, 0, q, lam, H));
  PetscCall(VISystemComputeMassJacobian(sys, q, w, dMw));
  PetscCall(VISystemComputeForceJacobian(sys, 0, q, u, dfdq, dfdu));
  for (PetscInt i = 0; i < n * n; i++) scale = PetscMax(scale, PetscMax(PetscAbsReal(dfdq[i]), PetscAbsReal(dfdu[i])));
  for (PetscInt e = 0; e < 5; e++) err[e] = 0;
  err[5] = scale;
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal qk = q[k], uk = u[k];
    q[k] = qk + eps;
    PetscCall(VISystemEvaluateConstraints(sys, 0, q, gp, Gp, NULL));
    PetscCall(VISystemComputeMass(sys, q, Mp));
    PetscCall(VISystemComputeForce(sys, 0, q, u, fp));
    q[k] = qk - eps;
    PetscCall(VISystemEvaluateConstraints(sys, 0, q, gm, Gm, NULL));
    PetscCall(VISystemComputeMass(sys, q, Mm));
    PetscCall(VISystemComputeForce(sys, 0, q, u, fm));
    q[k] = qk;
    for (PetscInt r = 0; r < nc; r++) err[0] = PetscMax(err[0], PetscAbsReal((gp[r] - gm[r]) / (2 * eps) - G[r * n + k]));
    for (PetscInt i = 0; i < n; i++) {
      PetscReal d = 0, mw = 0;
      for (PetscInt r = 0; r < nc; r++) d += lam[r] * (Gp[r * n + i] - Gm[r * n + i]) / (2 * eps);
      for (PetscInt j = 0; j < n; j++) mw += (Mp[i * n + j] - Mm[i * n + j]) / (2 * eps) * w[j];
      err[1] = PetscMax(err[1], PetscAbsReal(d - H[i * n + k]));
      err[2] = PetscMax(err[2], PetscAbsReal(mw - dMw[i * n + k]));
      err[3] = PetscMax(err[3], PetscAbsReal((fp[i] - fm[i]) / (2 * eps) - dfdq[i * n + k]) / scale);
    }
    u[k] = uk + eps;
    PetscCall(VISystemComputeForce(sys, 0, q, u, fp));
    u[k] = uk - eps;
    PetscCall(VISystemComputeForce(sys, 0, q, u, fm));
    u[k] = uk;
    for (PetscInt i = 0; i < n; i++) err[4] = PetscMax(err[4], PetscAbsReal((fp[i] - fm[i]) / (2 * eps) - dfdu[i * n + k]) / scale);
  }
  PetscCall(PetscFree6(q, u, g, G, H, fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Lagrange's equations written from M(q) and the energy alone, by central differences of step eps: L = -(dM/dq . u) u +
   dT/dq - dV/dq (n; the system's f less its non-conservative forces) */
static inline PetscErrorCode VITestMultibodyLagrange(VISystem sys, const PetscReal q0[], const PetscReal u[], PetscReal eps, PetscReal L[])
{
  PetscInt   n;
  PetscReal *q, *Mp, *Mm, Tp, Vp, Tm, Vm;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetSizes(sys, &n, NULL, NULL));
  PetscCall(PetscMalloc3(n, &q, n * n, &Mp, n * n, &Mm));
  PetscCall(PetscArraycpy(q, q0, n));
  for (PetscInt i = 0; i < n; i++) L[i] = 0;
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal qk = q[k];
    q[k]               = qk + eps;
    PetscCall(VISystemComputeMass(sys, q, Mp));
    PetscCall(VISystemComputeEnergy(sys, q, u, &Tp, &Vp));
    q[k] = qk - eps;
    PetscCall(VISystemComputeMass(sys, q, Mm));
    PetscCall(VISystemComputeEnergy(sys, q, u, &Tm, &Vm));
    q[k] = qk;
    L[k] += (Tp - Tm - Vp + Vm) / (2 * eps);
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) L[i] -= (Mp[i * n + j] - Mm[i * n + j]) / (2 * eps) * u[k] * u[j];
  }
  PetscCall(PetscFree3(q, Mp, Mm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
