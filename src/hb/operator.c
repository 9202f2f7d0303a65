/* The linear part of harmonic balance: dynamic stiffness per harmonic in real form, its condensation onto the contact
   harmonics, the linear residual and its frequency derivative (seed 000 Eq. A.2). */
#include "hbimpl.h"
#include <petscblaslapack.h>

/* Index in the real form [a (n); b (n)] of harmonic h of the k-th boundary (inner when inner) coordinate. */
static inline PetscInt VIHBIndex(VIHB hb, PetscInt p, PetscInt k, PetscBool inner)
{
  PetscInt nset = inner ? hb->nm : hb->nb, part = k / nset, i = k % nset;
  (void)p;
  return part * hb->n + (inner ? hb->nb + i : i);
}

/* S(h) in real form, column-major (p n) x (p n): with a complex amplitude z = a - i b of x = a cos + b sin,
   (Ar + i Ai) z has cosine part Ar a + Ai b and sine part Ar b - Ai a; Ar = K - (h Omega)^2 M, Ai = h Omega D. */
static void VIHBDynamicStiffness(VIHB hb, PetscInt h, PetscReal omega, PetscReal S[])
{
  const PetscInt  n = hb->n, P = (h ? 2 : 1) * n;
  const PetscReal w = h * omega;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      PetscReal ar = hb->K[i * n + j] - w * w * hb->Mass[i * n + j], ai = w * hb->D[i * n + j];
      S[j * P + i] = ar;
      if (!h) continue;
      S[(n + j) * P + i]     = ai;
      S[j * P + n + i]       = -ai;
      S[(n + j) * P + n + i] = ar;
    }
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
  if (!hb->S) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt h = 0; h <= hb->H; h++) {
    PetscCall(PetscFree3(hb->S[h], hb->L[h], hb->Fc[h]));
    PetscCall(PetscFree4(hb->Sii[h], hb->Sib[h], hb->Sbi[h], hb->piv[h]));
  }
  PetscCall(PetscFree6(hb->S, hb->L, hb->Fc, hb->Sii, hb->Sib, hb->Sbi));
  PetscCall(PetscFree(hb->piv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBOperatorsSetUp(VIHB hb, PetscReal omega)
{
  const PetscInt n = hb->n, m = hb->m, nb = hb->nb, nm = hb->nm;

  PetscFunctionBeginUser;
  if (hb->have_omega && hb->omega == omega) PetscFunctionReturn(PETSC_SUCCESS);
  if (!hb->S) {
    PetscCall(PetscMalloc6(hb->H + 1, &hb->S, hb->H + 1, &hb->L, hb->H + 1, &hb->Fc, hb->H + 1, &hb->Sii, hb->H + 1, &hb->Sib, hb->H + 1, &hb->Sbi));
    PetscCall(PetscMalloc1(hb->H + 1, &hb->piv));
    for (PetscInt h = 0; h <= hb->H; h++) {
      PetscInt p = h ? 2 : 1, P = p * n;
      PetscCall(PetscMalloc3(P * P, &hb->S[h], p * m * p * m, &hb->L[h], p * m, &hb->Fc[h]));
      PetscCall(
          PetscMalloc4(p * nm * p * nm, &hb->Sii[h], p * nm * p * nb, &hb->Sib[h], p * nb * p * nm, &hb->Sbi[h], PetscMax(p * nm, 1), &hb->piv[h]));
    }
  }
  for (PetscInt h = 0; h <= hb->H; h++) {
    const PetscInt p = h ? 2 : 1, P = p * n, pb = p * nb, pi = p * nm;
    PetscReal     *S = hb->S[h], *L = hb->L[h], *Fc = hb->Fc[h];
    VIHBDynamicStiffness(hb, h, omega, S);
    /* the force of harmonic h in real form */
    for (PetscInt part = 0; part < p; part++)
      for (PetscInt i = 0; i < m; i++) Fc[part * m + i] = hb->F[(h ? 2 * h - 1 + part : 0) * n + i];
    if (!hb->condense) {
      PetscCall(PetscArraycpy(L, S, P * P));
      continue;
    }
    /* Eq. (A.2) with the inner rows solved: L = S_BB - S_BI S_II^-1 S_IB, Fc = F_B - S_BI S_II^-1 F_I */
    {
      PetscReal   *Sii = hb->Sii[h], *Sib = hb->Sib[h], *Sbi = hb->Sbi[h], *fi;
      PetscBLASInt bpi, bpb, info;
      for (PetscInt c = 0; c < pi; c++) {
        PetscInt jc = VIHBIndex(hb, p, c, PETSC_TRUE);
        for (PetscInt r = 0; r < pi; r++) Sii[c * pi + r] = S[jc * P + VIHBIndex(hb, p, r, PETSC_TRUE)];
        for (PetscInt r = 0; r < pb; r++) Sbi[c * pb + r] = S[jc * P + VIHBIndex(hb, p, r, PETSC_FALSE)];
      }
      for (PetscInt c = 0; c < pb; c++) {
        PetscInt jc = VIHBIndex(hb, p, c, PETSC_FALSE);
        for (PetscInt r = 0; r < pi; r++) Sib[c * pi + r] = S[jc * P + VIHBIndex(hb, p, r, PETSC_TRUE)];
        for (PetscInt r = 0; r < pb; r++) L[c * pb + r] = S[jc * P + VIHBIndex(hb, p, r, PETSC_FALSE)];
      }
      if (!pi) continue;
      PetscCall(PetscBLASIntCast(pi, &bpi));
      PetscCall(PetscBLASIntCast(pb, &bpb));
      PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&bpi, &bpi, Sii, &bpi, hb->piv[h], &info));
      PetscCheck(info == 0, hb->comm, PETSC_ERR_USER_INPUT,
                 "hb: the dynamic stiffness of the inner coordinates is singular at harmonic %" PetscInt_FMT " of %g Hz (a rigid-body mode, or a "
                 "resonance of the fixed-contact system); use -hb_condense false",
                 h, (double)(omega / (2 * PETSC_PI)));
      PetscCall(PetscMalloc1(pi * (pb + 1), &fi));
      PetscCall(PetscArraycpy(fi, Sib, pi * pb));
      for (PetscInt r = 0; r < pi; r++) fi[pb * pi + r] = hb->F[(h ? 2 * h - 1 + r / nm : 0) * n + nb + r % nm];
      {
        PetscBLASInt nrhs = bpb + 1;
        PetscCallBLAS("LAPACKgetrs", LAPACKgetrs_("N", &bpi, &nrhs, Sii, &bpi, hb->piv[h], fi, &bpi, &info));
      }
      for (PetscInt c = 0; c <= pb; c++)
        for (PetscInt r = 0; r < pb; r++) {
          PetscReal s = 0;
          for (PetscInt k = 0; k < pi; k++) s += Sbi[k * pb + r] * fi[c * pi + k];
          if (c < pb)
            L[c * pb + r] -= s;
          else
            Fc[r] -= s;
        }
      PetscCall(PetscFree(fi));
    }
  }
  hb->omega      = omega;
  hb->have_omega = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the inner harmonics y = S_II^-1 (F_I - S_IB x) of harmonic h (condensed form) */
static PetscErrorCode VIHBInner(VIHB hb, PetscInt h, const PetscReal x[], PetscReal y[])
{
  const PetscInt p = h ? 2 : 1, pb = p * hb->nb, pi = p * hb->nm;
  PetscBLASInt   bpi, one = 1, info;

  PetscFunctionBeginUser;
  if (!pi) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt r = 0; r < pi; r++) {
    PetscReal s = hb->F[(h ? 2 * h - 1 + r / hb->nm : 0) * hb->n + hb->nb + r % hb->nm];
    for (PetscInt c = 0; c < pb; c++) s -= hb->Sib[h][c * pi + r] * x[c];
    y[r] = s;
  }
  PetscCall(PetscBLASIntCast(pi, &bpi));
  PetscCallBLAS("LAPACKgetrs", LAPACKgetrs_("N", &bpi, &one, hb->Sii[h], &bpi, hb->piv[h], y, &bpi, &info));
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
  PetscReal     *x = hb->work, *r = x + 2 * n, *z = r + 2 * n, *w = z + 2 * n, *y = w + 2 * n, *yp = y + 2 * n;

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
      const PetscInt pi = p * hb->nm, pb = p * nb;
      PetscBLASInt   bpi, one            = 1, info;
      PetscCall(VIHBInner(hb, h, x, y));
      for (PetscInt k = 0; k < pb; k++) z[VIHBIndex(hb, p, k, PETSC_FALSE)] = x[k];
      for (PetscInt k = 0; k < pi; k++) z[VIHBIndex(hb, p, k, PETSC_TRUE)] = y[k];
      VIHBDynamicStiffnessRate(hb, h, hb->omega, z, w);
      for (PetscInt k = 0; k < pi; k++) yp[k] = -w[VIHBIndex(hb, p, k, PETSC_TRUE)];
      if (pi) {
        PetscCall(PetscBLASIntCast(pi, &bpi));
        PetscCallBLAS("LAPACKgetrs", LAPACKgetrs_("N", &bpi, &one, hb->Sii[h], &bpi, hb->piv[h], yp, &bpi, &info));
      }
      for (PetscInt k = 0; k < pb; k++) {
        PetscReal s = w[VIHBIndex(hb, p, k, PETSC_FALSE)];
        for (PetscInt c = 0; c < pi; c++) s += hb->Sbi[h][c * pb + k] * yp[c];
        r[k] = s;
      }
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
