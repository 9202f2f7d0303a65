/* The linear part of harmonic balance: dynamic stiffness per harmonic, its condensation onto the contact harmonics (one
   complex system per harmonic, the unknowns in real form), the linear residual and its frequency derivative (seed 000
   Eq. A.2). */
#include "hbimpl.h"
#include <petscblaslapack.h>

/* Index in the real form [a (n); b (n)] of harmonic h of the k-th boundary (inner when inner) coordinate. */
static inline PetscInt VIHBIndex(VIHB hb, PetscInt p, PetscInt k, PetscBool inner)
{
  PetscInt nset = inner ? hb->nm : hb->nb, part = k / nset, i = k % nset;
  (void)p;
  return part * hb->n + (inner ? hb->nb + i : i);
}

/* Entry (i, j) of S(h) = K - (h Omega)^2 M + i h Omega D: with a complex amplitude z = a - i b of x = a cos + b sin,
   S z = c - i s gives the cosine part c = Ar a + Ai b and the sine part s = Ar b - Ai a of the forces, the real form
   [Ar Ai; -Ai Ar] on [a; b] with Ar = K - (h Omega)^2 M, Ai = h Omega D. */
static inline PetscComplex VIHBStiffnessEntry(VIHB hb, PetscReal w, PetscInt i, PetscInt j)
{
  const PetscInt k = i * hb->n + j;
  return PetscCMPLX(hb->K[k] - w * w * hb->Mass[k], w * hb->D[k]);
}

/* the complex force amplitude of harmonic h on coordinate i */
static inline PetscComplex VIHBForce(VIHB hb, PetscInt h, PetscInt i)
{
  return h ? PetscCMPLX(hb->F[(2 * h - 1) * hb->n + i], -hb->F[2 * h * hb->n + i]) : hb->F[i];
}

/* the complex amplitudes z = a - i b of nset coordinates from the real form x = [a; b] (p = 2; x = a for p = 1), and back */
static inline void VIHBToComplex(PetscInt p, PetscInt nset, const PetscReal x[], PetscComplex z[])
{
  for (PetscInt i = 0; i < nset; i++) z[i] = PetscCMPLX(x[i], p == 2 ? -x[nset + i] : 0);
}

static inline void VIHBToReal(PetscInt p, PetscInt nset, const PetscComplex z[], PetscReal x[])
{
  for (PetscInt i = 0; i < nset; i++) {
    x[i] = PetscRealPartComplex(z[i]);
    if (p == 2) x[nset + i] = -PetscImaginaryPartComplex(z[i]);
  }
}

/* LAPACK's complex LU (Fortran names with the trailing underscore, as PETSc's own): the (cos, sin) pair of a harmonic as
   one complex system, half the flops of the real form */
BLAS_EXTERN void zgetrf_(const PetscBLASInt *, const PetscBLASInt *, PetscComplex *, const PetscBLASInt *, PetscBLASInt *, PetscBLASInt *);
BLAS_EXTERN void zgetrs_(const char *, const PetscBLASInt *, const PetscBLASInt *, const PetscComplex *, const PetscBLASInt *, const PetscBLASInt *,
                         PetscComplex *, const PetscBLASInt *, PetscBLASInt *);

/* z <- S_II^-1 z for nrhs columns of length nm (the factors of harmonic h) */
static PetscErrorCode VIHBSolveInner(VIHB hb, PetscInt h, PetscInt nrhs, PetscComplex z[])
{
  PetscBLASInt bnm, bnrhs, info;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(hb->nm, &bnm));
  PetscCall(PetscBLASIntCast(nrhs, &bnrhs));
  PetscCallBLAS("LAPACKzgetrs", zgetrs_("N", &bnm, &bnrhs, hb->Sii[h], &bnm, hb->piv[h], z, &bnm, &info));
  PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: zgetrs failed (LAPACK info %d)", (int)info);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = dS(h)/dOmega z, z and w of length p n */
static void VIHBDynamicStiffnessRate(VIHB hb, PetscInt h, PetscReal omega, const PetscReal z[], PetscReal w[])
{
  const PetscInt n = hb->n;
  if (!h) {
    for (PetscInt i = 0; i < n; i++) w[i] = 0;
    return;
  }
  for (PetscInt i = 0; i < n; i++) {
    PetscReal sa = 0, sb = 0;
    for (PetscInt j = 0; j < n; j++) {
      PetscReal ar = -2.0 * h * h * omega * hb->Mass[i * n + j], ai = h * hb->D[i * n + j];
      sa += ar * z[j] + ai * z[n + j];
      sb += -ai * z[j] + ar * z[n + j];
    }
    w[i]     = sa;
    w[n + i] = sb;
  }
}

PetscErrorCode VIHBOperatorsDestroy(VIHB hb)
{
  PetscFunctionBeginUser;
  if (!hb->L) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt h = 0; h <= hb->H; h++) {
    PetscCall(PetscFree2(hb->L[h], hb->Fc[h]));
    PetscCall(PetscFree4(hb->Sii[h], hb->Sib[h], hb->Sbi[h], hb->piv[h]));
  }
  PetscCall(PetscFree5(hb->L, hb->Fc, hb->Sii, hb->Sib, hb->Sbi));
  PetscCall(PetscFree2(hb->piv, hb->cwork));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Eq. (A.2) with the inner rows solved, per harmonic as one complex system: L = S_BB - S_BI S_II^-1 S_IB,
   Fc = F_B - S_BI S_II^-1 F_I, with the LU factors of S_II kept for the inner coordinates */
static PetscErrorCode VIHBCondense(VIHB hb, PetscInt h, PetscReal omega)
{
  const PetscInt  nb = hb->nb, nm = hb->nm, p = h ? 2 : 1, pb = p * nb;
  const PetscReal w   = h * omega;
  PetscComplex   *Sii = hb->Sii[h], *Sib = hb->Sib[h], *Sbi = hb->Sbi[h], *X = hb->cwork, *f = X + nm * nb;
  PetscReal      *L = hb->L[h], *Fc = hb->Fc[h];
  PetscBLASInt    bnm, info;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < nm; j++) {
    for (PetscInt i = 0; i < nm; i++) Sii[j * nm + i] = VIHBStiffnessEntry(hb, w, nb + i, nb + j);
    for (PetscInt i = 0; i < nb; i++) Sbi[j * nb + i] = VIHBStiffnessEntry(hb, w, i, nb + j);
  }
  for (PetscInt j = 0; j < nb; j++)
    for (PetscInt i = 0; i < nm; i++) Sib[j * nm + i] = VIHBStiffnessEntry(hb, w, nb + i, j);
  /* the right-hand sides S_IB and F_I, then the force F_B (z = a - i b) */
  PetscCall(PetscArraycpy(X, Sib, nm * nb));
  for (PetscInt i = 0; i < nm; i++) f[i] = VIHBForce(hb, h, nb + i);
  for (PetscInt i = 0; i < nb; i++) f[nm + i] = VIHBForce(hb, h, i);
  if (nm) {
    PetscCall(PetscBLASIntCast(nm, &bnm));
    PetscCallBLAS("LAPACKzgetrf", zgetrf_(&bnm, &bnm, Sii, &bnm, hb->piv[h], &info));
    PetscCheck(info == 0, hb->comm, PETSC_ERR_USER_INPUT,
               "hb: the dynamic stiffness of the inner coordinates is singular at harmonic %" PetscInt_FMT " of %g Hz (a rigid-body mode, or a "
               "resonance of the fixed-contact system); use -hb_condense false",
               h, (double)(omega / (2 * PETSC_PI)));
    PetscCall(VIHBSolveInner(hb, h, nb + 1, X));
  }
  for (PetscInt j = 0; j <= nb; j++)
    for (PetscInt i = 0; i < nb; i++) {
      PetscComplex s = j < nb ? VIHBStiffnessEntry(hb, w, i, j) : f[nm + i];
      for (PetscInt k = 0; k < nm; k++) s -= Sbi[k * nb + i] * X[j * nm + k];
      if (j == nb) {
        Fc[i] = PetscRealPartComplex(s);
        if (h) Fc[nb + i] = -PetscImaginaryPartComplex(s);
      } else {
        L[j * pb + i] = PetscRealPartComplex(s);
        if (!h) continue;
        L[(nb + j) * pb + i]      = PetscImaginaryPartComplex(s);
        L[j * pb + nb + i]        = -PetscImaginaryPartComplex(s);
        L[(nb + j) * pb + nb + i] = PetscRealPartComplex(s);
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBOperatorsSetUp(VIHB hb, PetscReal omega)
{
  const PetscInt n = hb->n, m = hb->m, nb = hb->nb, nm = hb->nm;

  PetscFunctionBeginUser;
  if (hb->have_omega && hb->omega == omega) PetscFunctionReturn(PETSC_SUCCESS);
  if (!hb->L) {
    PetscCall(PetscMalloc5(hb->H + 1, &hb->L, hb->H + 1, &hb->Fc, hb->H + 1, &hb->Sii, hb->H + 1, &hb->Sib, hb->H + 1, &hb->Sbi));
    PetscCall(PetscMalloc2(hb->H + 1, &hb->piv, nm * (nb + 1) + nb, &hb->cwork));
    for (PetscInt h = 0; h <= hb->H; h++) {
      PetscInt p = h ? 2 : 1;
      PetscCall(PetscMalloc2(p * m * p * m, &hb->L[h], p * m, &hb->Fc[h]));
      PetscCall(PetscMalloc4(nm * nm, &hb->Sii[h], nm * nb, &hb->Sib[h], nb * nm, &hb->Sbi[h], PetscMax(nm, 1), &hb->piv[h]));
    }
  }
  for (PetscInt h = 0; h <= hb->H; h++) {
    const PetscInt p = h ? 2 : 1, P = p * n;
    if (hb->condense) {
      PetscCall(VIHBCondense(hb, h, omega));
      continue;
    }
    /* the full dynamic stiffness in real form and the force of harmonic h */
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) {
        PetscComplex s      = VIHBStiffnessEntry(hb, h * omega, i, j);
        hb->L[h][j * P + i] = PetscRealPartComplex(s);
        if (!h) continue;
        hb->L[h][(n + j) * P + i]     = PetscImaginaryPartComplex(s);
        hb->L[h][j * P + n + i]       = -PetscImaginaryPartComplex(s);
        hb->L[h][(n + j) * P + n + i] = PetscRealPartComplex(s);
      }
    for (PetscInt part = 0; part < p; part++)
      for (PetscInt i = 0; i < n; i++) hb->Fc[h][part * n + i] = hb->F[(h ? 2 * h - 1 + part : 0) * n + i];
  }
  hb->omega      = omega;
  hb->have_omega = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the inner harmonics y = S_II^-1 (F_I - S_IB x) of harmonic h (condensed form; x and y real form) */
static PetscErrorCode VIHBInner(VIHB hb, PetscInt h, const PetscReal x[], PetscReal y[])
{
  const PetscInt nb = hb->nb, nm = hb->nm, p = h ? 2 : 1;
  PetscComplex  *z = hb->cwork, *xb = z + nm;

  PetscFunctionBeginUser;
  if (!nm) PetscFunctionReturn(PETSC_SUCCESS);
  VIHBToComplex(p, nb, x, xb);
  for (PetscInt i = 0; i < nm; i++) {
    PetscComplex s = VIHBForce(hb, h, nb + i);
    for (PetscInt j = 0; j < nb; j++) s -= hb->Sib[h][j * nm + i] * xb[j];
    z[i] = s;
  }
  PetscCall(VIHBSolveInner(hb, h, 1, z));
  VIHBToReal(p, nm, z, y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* gather (scatter) the real form [a; b] of harmonic h from (to) a coefficient-major vector with m entries per coefficient */
static void VIHBGather(PetscInt h, PetscInt m, const PetscReal X[], PetscReal x[])
{
  if (!h) {
    for (PetscInt i = 0; i < m; i++) x[i] = X[i];
    return;
  }
  for (PetscInt i = 0; i < m; i++) {
    x[i]     = X[(2 * h - 1) * m + i];
    x[m + i] = X[2 * h * m + i];
  }
}

static void VIHBScatter(PetscInt h, PetscInt m, const PetscReal x[], PetscReal X[])
{
  if (!h) {
    for (PetscInt i = 0; i < m; i++) X[i] = x[i];
    return;
  }
  for (PetscInt i = 0; i < m; i++) {
    X[(2 * h - 1) * m + i] = x[i];
    X[2 * h * m + i]       = x[m + i];
  }
}

PetscErrorCode VIHBLinearResidual(VIHB hb, const PetscReal X[], PetscReal R[], PetscReal Romega[])
{
  const PetscInt m = hb->m, n = hb->n, nb = hb->nb;
  PetscReal     *x = hb->work, *r = x + 2 * n, *z = r + 2 * n, *w = z + 2 * n, *y = w + 2 * n;

  PetscFunctionBeginUser;
  for (PetscInt h = 0; h <= hb->H; h++) {
    const PetscInt p = h ? 2 : 1, pm = p * m;
    VIHBGather(h, m, X, x);
    for (PetscInt i = 0; i < pm; i++) r[i] = -hb->Fc[h][i];
    for (PetscInt c = 0; c < pm; c++)
      for (PetscInt i = 0; i < pm; i++) r[i] += hb->L[h][c * pm + i] * x[c];
    VIHBScatter(h, m, r, R);
    if (!Romega) continue;
    if (!hb->condense) {
      VIHBDynamicStiffnessRate(hb, h, hb->omega, x, r);
    } else {
      /* r_b = S_BB x + S_BI y - F_B with y = S_II^-1 (F_I - S_IB x): dr_b/dOmega = (S' z)_B + S_BI y', y' = -S_II^-1 (S' z)_I, z = (x, y) */
      const PetscInt nm = hb->nm, pi = p * nm, pb = p * nb;
      PetscComplex  *c = hb->cwork, *wb = c + nm;
      PetscCall(VIHBInner(hb, h, x, y));
      for (PetscInt k = 0; k < pb; k++) z[VIHBIndex(hb, p, k, PETSC_FALSE)] = x[k];
      for (PetscInt k = 0; k < pi; k++) z[VIHBIndex(hb, p, k, PETSC_TRUE)] = y[k];
      VIHBDynamicStiffnessRate(hb, h, hb->omega, z, w);
      /* w in complex form: the inner part from w[nb], the boundary part from w[0] (stride n between the parts) */
      for (PetscInt i = 0; i < nm; i++) c[i] = -PetscCMPLX(w[nb + i], h ? -w[n + nb + i] : 0);
      for (PetscInt i = 0; i < nb; i++) wb[i] = PetscCMPLX(w[i], h ? -w[n + i] : 0);
      if (nm) PetscCall(VIHBSolveInner(hb, h, 1, c));
      for (PetscInt i = 0; i < nb; i++)
        for (PetscInt k = 0; k < nm; k++) wb[i] += hb->Sbi[h][k * nb + i] * c[k];
      VIHBToReal(p, nb, wb, r);
    }
    VIHBScatter(h, m, r, Romega);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBRecover(VIHB hb, const PetscReal X[], PetscReal q[])
{
  const PetscInt n = hb->n, m = hb->m;
  PetscReal     *x = hb->work, *y = x + 2 * n, *z = y + 2 * n;

  PetscFunctionBeginUser;
  if (!hb->condense) {
    PetscCall(PetscArraycpy(q, X, n * hb->nh));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt h = 0; h <= hb->H; h++) {
    const PetscInt p = h ? 2 : 1;
    VIHBGather(h, m, X, x);
    PetscCall(VIHBInner(hb, h, x, y));
    for (PetscInt k = 0; k < p * hb->nb; k++) z[VIHBIndex(hb, p, k, PETSC_FALSE)] = x[k];
    for (PetscInt k = 0; k < p * hb->nm; k++) z[VIHBIndex(hb, p, k, PETSC_TRUE)] = y[k];
    VIHBScatter(h, n, z, q);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
