/* Stability of a harmonic balance solution: Floquet multipliers of the linearized motion over one period (massless boundary). */
#include "hbimpl.h"
#include <petscblaslapack.h>

/* C = A B, k x k column-major */
static void VIMatMul(PetscInt k, const PetscReal A[], const PetscReal B[], PetscReal C[])
{
  for (PetscInt j = 0; j < k; j++) {
    for (PetscInt i = 0; i < k; i++) C[j * k + i] = 0;
    for (PetscInt l = 0; l < k; l++) {
      PetscReal b = B[j * k + l];
      if (b == 0) continue;
      for (PetscInt i = 0; i < k; i++) C[j * k + i] += A[l * k + i] * b;
    }
  }
}

/* E = exp(A tau) by scaling and squaring of a degree-16 Taylor series (scaled norm <= 1/4: truncation below 1e-25). */
static PetscErrorCode VIExpm(PetscInt k, const PetscReal A[], PetscReal tau, PetscReal E[])
{
  PetscReal *B, *T, *W, norm = 0;
  PetscInt   s = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(k * k, &B, k * k, &T, k * k, &W));
  for (PetscInt j = 0; j < k; j++) {
    PetscReal c = 0;
    for (PetscInt i = 0; i < k; i++) c += PetscAbsReal(A[j * k + i] * tau);
    norm = PetscMax(norm, c);
  }
  while (norm > 0.25) {
    norm /= 2;
    s++;
  }
  for (PetscInt i = 0; i < k * k; i++) B[i] = A[i] * tau / PetscPowReal(2.0, (PetscReal)s);
  /* Horner: E = I + B (I + B/2 (I + B/3 (...))) */
  for (PetscInt i = 0; i < k * k; i++) E[i] = 0;
  for (PetscInt i = 0; i < k; i++) E[i * k + i] = 1;
  for (PetscInt d = 16; d >= 1; d--) {
    VIMatMul(k, B, E, T);
    for (PetscInt i = 0; i < k * k; i++) E[i] = T[i] / d;
    for (PetscInt i = 0; i < k; i++) E[i * k + i] += 1;
  }
  for (PetscInt q = 0; q < s; q++) {
    VIMatMul(k, E, E, W);
    PetscCall(PetscArraycpy(E, W, k * k));
  }
  PetscCall(PetscFree3(B, T, W));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  With a massless boundary (M_bb = M_bi = 0, D_bb = D_bi = 0) the boundary follows the inner coordinates statically, and
  the motion near the periodic solution is M_ii dq'' + D_ii dq' + K_eff(t) dq = 0: while contact j is closed its normal
  coordinate is held (dq_o = 0), while it is open its force is zero; the boundary rows left free are condensed,
  K_eff = K_ii - K_iF K_FF^-1 K_Fi. The force is continuous across a switch (it closes and opens at zero force), so the
  monodromy matrix is the product of exp(A tau) over the runs of constant contact state (no saltation). The solution is
  stable when no multiplier leaves the unit circle.
*/
PetscErrorCode VIHBFloquet(VIHB hb, PetscReal omega, PetscReal *mu_max, PetscBool *computed)
{
  const PetscInt n = hb->n, nb = hb->nb, nm = hb->nm, N = hb->N, nc = hb->nc, k2 = 2 * nm;
  PetscReal     *A, *E, *Mon, *T, *Minv, *Keff, *KFF, *KFi, *wr, *wi, *work, dt = 2 * PETSC_PI / omega / N;
  PetscInt      *free_rows, nf;
  PetscBLASInt   bn, bk, bf, info, lwork, *piv;

  PetscFunctionBeginUser;
  *computed = PETSC_FALSE;
  *mu_max   = -1;
  if (!hb->massless || nm == 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt j = 0; j < n; j++)
      if (hb->D[i * n + j] != 0 || hb->Mass[i * n + j] != 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc6(k2 * k2, &A, k2 * k2, &E, k2 * k2, &Mon, k2 * k2, &T, nm * nm, &Minv, nm * nm, &Keff));
  PetscCall(PetscMalloc6(nb * nb + 1, &KFF, nb * nm + 1, &KFi, k2, &wr, k2, &wi, 8 * k2, &work, nb + 1, &free_rows));
  PetscCall(PetscMalloc1(PetscMax(nb, nm) + 1, &piv));
  PetscCall(PetscBLASIntCast(nm, &bn));
  PetscCall(PetscBLASIntCast(k2, &bk));
  for (PetscInt i = 0; i < k2 * k2; i++) Mon[i] = 0;
  for (PetscInt i = 0; i < k2; i++) Mon[i * k2 + i] = 1;
  for (PetscInt k = 0; k < N;) {
    PetscInt run = 1;
    /* a run of samples with the same contact state */
    while (k + run < N) {
      PetscBool same = PETSC_TRUE;
      for (PetscInt j = 0; j < nc; j++)
        if (hb->d_t[j * N + k + run] != hb->d_t[j * N + k]) same = PETSC_FALSE;
      if (!same) break;
      run++;
    }
    nf = 0;
    for (PetscInt i = 0; i < nb; i++) {
      PetscBool held = PETSC_FALSE;
      for (PetscInt j = 0; j < nc; j++)
        if (hb->offsets[j] == i && hb->d_t[j * N + k] > 0) held = PETSC_TRUE;
      if (!held) free_rows[nf++] = i;
    }
    /* K_eff = K_ii - K_iF K_FF^-1 K_Fi (column-major nm x nm) */
    for (PetscInt c = 0; c < nm; c++)
      for (PetscInt r = 0; r < nm; r++) Keff[c * nm + r] = hb->K[(nb + r) * n + nb + c];
    if (nf) {
      for (PetscInt c = 0; c < nf; c++)
        for (PetscInt r = 0; r < nf; r++) KFF[c * nf + r] = hb->K[free_rows[r] * n + free_rows[c]];
      for (PetscInt c = 0; c < nm; c++)
        for (PetscInt r = 0; r < nf; r++) KFi[c * nf + r] = hb->K[free_rows[r] * n + nb + c];
      PetscCall(PetscBLASIntCast(nf, &bf));
      PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bf, &bn, KFF, &bf, piv, KFi, &bf, &info));
      PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: singular boundary stiffness in the stability analysis");
      for (PetscInt c = 0; c < nm; c++)
        for (PetscInt r = 0; r < nm; r++) {
          PetscReal s = 0;
          for (PetscInt l = 0; l < nf; l++) s += hb->K[(nb + r) * n + free_rows[l]] * KFi[c * nf + l];
          Keff[c * nm + r] -= s;
        }
    }
    /* A = [0 I; -M^-1 K_eff, -M^-1 D] */
    for (PetscInt c = 0; c < nm; c++)
      for (PetscInt r = 0; r < nm; r++) Minv[c * nm + r] = hb->Mass[(nb + r) * n + nb + c];
    for (PetscInt i = 0; i < k2 * k2; i++) A[i] = 0;
    for (PetscInt c = 0; c < nm; c++)
      for (PetscInt r = 0; r < nm; r++) {
        T[c * nm + r]           = Keff[c * nm + r];
        T[(nm + c) * nm + r]    = hb->D[(nb + r) * n + nb + c];
      }
    {
      PetscBLASInt nrhs = 2 * bn;
      PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bn, &nrhs, Minv, &bn, piv, T, &bn, &info));
      PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: singular inner mass matrix in the stability analysis");
    }
    for (PetscInt c = 0; c < nm; c++) {
      A[(nm + c) * k2 + c] = 1;
      for (PetscInt r = 0; r < nm; r++) {
        A[c * k2 + nm + r]        = -T[c * nm + r];
        A[(nm + c) * k2 + nm + r] = -T[(nm + c) * nm + r];
      }
    }
    PetscCall(VIExpm(k2, A, run * dt, E));
    VIMatMul(k2, E, Mon, T);
    PetscCall(PetscArraycpy(Mon, T, k2 * k2));
    k += run;
  }
  PetscCall(PetscBLASIntCast(8 * k2, &lwork));
  {
    PetscBLASInt one = 1;
    PetscCallBLAS("LAPACKgeev", LAPACKgeev_("N", "N", &bk, Mon, &bk, wr, wi, NULL, &one, NULL, &one, work, &lwork, &info));
  }
  PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: the eigenvalues of the monodromy matrix failed (LAPACK info %d)", (int)info);
  for (PetscInt i = 0; i < k2; i++) *mu_max = PetscMax(*mu_max, PetscSqrtReal(wr[i] * wr[i] + wi[i] * wi[i]));
  *computed = PETSC_TRUE;
  PetscCall(PetscFree6(A, E, Mon, T, Minv, Keff));
  PetscCall(PetscFree6(KFF, KFi, wr, wi, work, free_rows));
  PetscCall(PetscFree(piv));
  PetscFunctionReturn(PETSC_SUCCESS);
}
