/* The dense semi-smooth Newton method of the schemes' nonlinear paths (nsgalpha.c, moreau.c on a system that is not
   linear: rigid multibody systems, seed 002 §10.2 and §10.4), and the constraint data both need. The systems are small
   (three coordinates per rigid body), so the step's whole Jacobian is assembled and factored by LAPACK. */
#include "stepimpl.h"
#include <petscblaslapack.h>

PetscErrorCode VISSNewtonCreate(PetscInt N, PetscInt max_it, PetscReal tol, VISSNewton *nw)
{
  PetscFunctionBeginUser;
  nw->N      = N;
  nw->max_it = max_it;
  nw->tol    = tol;
  PetscCall(PetscCalloc3(PetscMax(N, 1), &nw->F, PetscMax(N * N, 1), &nw->J, PetscMax(N, 1), &nw->ipiv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISSNewtonDestroy(VISSNewton *nw)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(nw->F, nw->J, nw->ipiv));
  PetscCall(PetscMemzero(nw, sizeof(*nw)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISSNewtonSolve(VIStepper st, VISSNewton *nw, VISSNewtonFormFn form, void *ctx, PetscReal x[])
{
  const PetscInt N = nw->N;
  PetscBLASInt   bn, one = 1, info;
  PetscInt       it;
  PetscBool      converged = PETSC_FALSE;
  PetscReal      step      = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(N, &bn));
  for (it = 0; it < nw->max_it && !converged; it++) {
    PetscReal xmax = 0;
    PetscCall((*form)(ctx, x, nw->F, nw->J));
    /* J is row-major: solve J^T's column-major transpose */
    PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&bn, &bn, nw->J, &bn, nw->ipiv, &info));
    PetscCheck(info == 0, st->comm, PETSC_ERR_USER_INPUT,
               "-step_type %s: the step's Newton matrix is singular (getrf info %d) on this nonlinear system: the active constraints' gradients "
               "are linearly dependent (a redundant joint?)",
               st->type, (int)info);
    PetscCallBLAS("LAPACKgetrs", LAPACKgetrs_("T", &bn, &one, nw->J, &bn, nw->ipiv, nw->F, &bn, &info));
    step = 0;
    for (PetscInt i = 0; i < N; i++) {
      x[i] -= nw->F[i];
      step = PetscMax(step, PetscAbsReal(nw->F[i]));
      xmax = PetscMax(xmax, PetscAbsReal(x[i]));
    }
    converged = step <= nw->tol * (1 + xmax) ? PETSC_TRUE : PETSC_FALSE;
  }
  st->stats.contact_solves++;
  st->stats.contact_iterations += it;
  st->stats.contact_iterations_max = PetscMax(st->stats.contact_iterations_max, it);
  if (!converged) {
    st->stats.nonconverged++;
    st->stats.contact_residual_max = PetscMax(st->stats.contact_residual_max, step);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VINonlinearConstraints(VIStepper st, PetscReal t, const PetscReal q[], PetscReal g[], PetscReal G[], PetscReal H[])
{
  const PetscInt n = st->n, m = st->nc;

  PetscFunctionBeginUser;
  if (g || G) PetscCall(VISystemEvaluateConstraints(st->sys, t, q, g, G, NULL));
  if (H) {
    PetscReal w[VI_MAX_CONTACTS];
    PetscCall(PetscArrayzero(w, m));
    for (PetscInt r = 0; r < m; r++) {
      w[r] = 1;
      PetscCall(VISystemComputeConstraintCurvature(st->sys, t, q, w, H + r * n * n));
      w[r] = 0;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VINonlinearRestitution(VIStepper st, PetscReal e[])
{
  const PetscReal *es;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetRestitution(st->sys, &es));
  for (PetscInt j = 0; j < st->nc; j++) e[j] = st->set.kinds[j] == VI_CONTACT_BILATERAL ? 0 : (es ? es[j] : st->restitution);
  PetscFunctionReturn(PETSC_SUCCESS);
}
