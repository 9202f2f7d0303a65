/* The modal form of a linear ROM, shared by the schemes that step in its modes (nsgalpha, mixed): the probe of whether it applies and
   the transformation q = Phi eta. */
#include "stepimpl.h"

/* The M-normalized modes of (K, M): PhiT (row i = mode i) and Phi = PhiT^T, omega^2 in lam; the damping in them Dt = Phi^T D Phi
   (W: n x n work) with its largest off-diagonal and diagonal magnitudes. */
PetscErrorCode VIModalBasis(VIStepper st, const char scheme[], PetscReal PhiT[], PetscReal Phi[], PetscReal lam[], PetscReal W[], PetscReal Dt[],
                            PetscReal *off, PetscReal *dmax)
{
  const PetscInt n = st->n;

  PetscFunctionBeginUser;
  PetscCall(VIStepperModes(st, scheme, PhiT, lam));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) Phi[i * n + j] = PhiT[j * n + i];
  PetscCall(VIMatMat(n, n, n, PhiT, st->D, 1.0, W, n));
  PetscCall(VIMatMat(n, n, n, W, Phi, 1.0, Dt, n));
  *off = *dmax = 0;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      if (i == j)
        *dmax = PetscMax(*dmax, PetscAbsReal(Dt[i * n + j]));
      else
        *off = PetscMax(*off, PetscAbsReal(Dt[i * n + j]));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The system's initial state in eta = Phi^T M q (PhiTM: n x n, set to Phi^T M), and the stepper's bound of the coordinates:
   q = Phi eta, |eta|_inf <= ||Phi^T M||_inf |q|_inf (st->basis_gain). */
PetscErrorCode VIModalInitialState(VIStepper st, const PetscReal PhiT[], PetscReal PhiTM[], PetscReal eta0[], PetscReal veta0[])
{
  const PetscInt   n = st->n;
  const PetscReal *q0, *u0;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetInitialState(st->sys, &q0, &u0));
  PetscCall(VIMatMat(n, n, n, PhiT, st->M, 1.0, PhiTM, n));
  VIMatVec(n, n, PhiTM, n, q0, 0.0, eta0);
  VIMatVec(n, n, PhiTM, n, u0, 0.0, veta0);
  st->basis_gain = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal r = 0;
    for (PetscInt j = 0; j < n; j++) r += PetscAbsReal(PhiTM[i * n + j]);
    st->basis_gain = PetscMax(st->basis_gain, r);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The modes Phi of (K, M) (M-normalized: Phi^T M Phi = I, Phi^T K Phi = diag(omega^2)) diagonalize the damping when it is a combination
   of them (Rayleigh, modal): then D~ = Phi^T D Phi is diagonal to the eigensolver's orthogonality (the Rubin blade: off-diagonal 1.05e-12
   of the largest entry), and entries below 1e-9 of the largest count as zero, as moreau's. With constraints, the schemes that take them
   from the system (VISystemEvaluateConstraints) need them affine with a fixed gradient, which is probed: G at (t0, q0), at (t0, q0 + dq)
   and at (t0 + h, q0) bitwise equal, and g(q0 + dq) - g(q0) = G dq (1e-12). */
PetscErrorCode VIModalFormCreate(VIStepper st, const char scheme[], PetscBool constraints, VIModalForm *mf, PetscBool *ok)
{
  const PetscInt   n = st->n, m = constraints ? st->nc : 0, mm = PetscMax(m, 1), nl = st->num_loads;
  const PetscReal  h = st->dt;
  const PetscReal *q0, *u0, *const *loads;
  PetscReal *PhiT, *Phi, *W, *Dt, *PhiTM, *Ga, *Gb, *ga, *gb, *dq, dmax = 0, off = 0;
  PetscBool  affine = PETSC_TRUE, same;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(mf, sizeof(*mf)));
  *ok = PETSC_FALSE;
  if (!st->modal_allowed) {
    PetscCall(PetscInfo(NULL, "%s: -step_modal false: the ROM's coordinates\n", scheme));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VISystemGetInitialState(st->sys, &q0, &u0));
  PetscCall(PetscMalloc1(mm * n, &Ga));
  PetscCall(PetscMalloc4(mm * n, &Gb, mm, &ga, mm, &gb, n, &dq));
  if (m > 0) {
    for (PetscInt i = 0; i < n; i++) dq[i] = q0[i] + 1 + 0.5 * i;
    PetscCall(VISystemEvaluateConstraints(st->sys, st->t0, q0, ga, Ga, NULL));
    PetscCall(VISystemEvaluateConstraints(st->sys, st->t0, dq, gb, Gb, NULL));
    PetscCall(PetscMemcmp(Ga, Gb, sizeof(PetscReal) * m * n, &same));
    affine = same;
    for (PetscInt j = 0; j < m && affine; j++) {
      PetscReal lin = 0, size = PetscAbsReal(ga[j]) + PetscAbsReal(gb[j]);
      for (PetscInt i = 0; i < n; i++) lin += Ga[j * n + i] * (dq[i] - q0[i]);
      affine = PetscAbsReal(gb[j] - ga[j] - lin) <= 1e-12 * (size + PetscAbsReal(lin)) ? PETSC_TRUE : PETSC_FALSE;
    }
    PetscCall(VISystemEvaluateConstraints(st->sys, st->t0 + h, q0, NULL, Gb, NULL));
    PetscCall(PetscMemcmp(Ga, Gb, sizeof(PetscReal) * m * n, &same));
    affine = (PetscBool)(affine && same);
  }
  PetscCall(PetscFree4(Gb, ga, gb, dq));
  if (!affine) {
    PetscCall(PetscFree(Ga));
    PetscCall(PetscInfo(NULL, "%s: the constraints' gradient changes with q or t: the ROM's coordinates\n", scheme));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(n * n, &Phi)); /* handed to the stepper */
  PetscCall(PetscMalloc4(n * n, &PhiT, n * n, &W, n * n, &Dt, n * n, &PhiTM));
  PetscCall(PetscMalloc2(n, &mf->omega2, n, &mf->dd));
  PetscCall(VIModalBasis(st, scheme, PhiT, Phi, mf->omega2, W, Dt, &off, &dmax));
  if (off > 1e-9 * dmax) {
    PetscCall(PetscInfo(NULL, "%s: modal damping off-diagonal %g of its largest entry: the ROM's coordinates\n", scheme, (double)(off / dmax)));
    PetscCall(PetscFree4(PhiT, W, Dt, PhiTM));
    PetscCall(PetscFree(Phi));
    PetscCall(PetscFree(Ga));
    PetscCall(PetscFree2(mf->omega2, mf->dd));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *ok = PETSC_TRUE;
  PetscCall(PetscInfo(NULL, "%s: modal path (damping off-diagonal %g of its largest entry%s)\n", scheme, (double)(dmax > 0 ? off / dmax : 0),
                      m > 0 ? ", constraints affine" : ""));
  for (PetscInt i = 0; i < n; i++) mf->dd[i] = Dt[i * n + i];
  mf->G = m > 0 ? Ga : NULL;
  if (m == 0) PetscCall(PetscFree(Ga));
  /* the loads and the initial state in eta (eta = Phi^T M q) */
  {
    PetscInt num;
    PetscCall(VISystemGetLoads(st->sys, &num, &loads));
  }
  PetscCall(PetscCalloc4(PetscMax(nl, 1) * n, &mf->L, PetscMax(nl, 1), &mf->scales, n, &mf->eta0, n, &mf->veta0));
  for (PetscInt l = 0; l < nl; l++) VIMatVec(n, n, PhiT, n, loads[l], 0.0, mf->L + l * n);
  PetscCall(VIModalInitialState(st, PhiT, PhiTM, mf->eta0, mf->veta0));
  st->basis = Phi;
  mf->Phi   = Phi;
  PetscCall(PetscFree4(PhiT, W, Dt, PhiTM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f~(t) = sum_l s_l(t) Phi^T v_l: the load in eta without the n x n product of Phi^T f. */
PetscErrorCode VIModalFormForce(VIStepper st, VIModalForm *mf, PetscReal t, PetscReal f[])
{
  const PetscInt n = st->n;

  PetscFunctionBeginUser;
  PetscCall(VISystemEvaluateLoadScales(st->sys, t, mf->scales));
  PetscCall(PetscArrayzero(f, n));
  for (PetscInt l = 0; l < st->num_loads; l++)
    for (PetscInt i = 0; i < n; i++) f[i] += mf->scales[l] * mf->L[l * n + i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModalFormDestroy(VIModalForm *mf)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(mf->omega2, mf->dd));
  PetscCall(PetscFree4(mf->L, mf->scales, mf->eta0, mf->veta0));
  PetscCall(PetscFree(mf->G));
  PetscCall(PetscMemzero(mf, sizeof(*mf))); /* Phi is the stepper's (st->basis) */
  PetscFunctionReturn(PETSC_SUCCESS);
}
