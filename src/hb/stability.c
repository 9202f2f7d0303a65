/* Stability of a harmonic balance solution: Floquet multipliers of the linearized motion over one period (massless boundary). */
#include "hbimpl.h"
#include <petscblaslapack.h>

/* C = A B, k x k column-major */
static PetscErrorCode VIMatMul(PetscInt k, const PetscReal A[], const PetscReal B[], PetscReal C[])
{
  PetscBLASInt bk;
  PetscReal    one = 1, zero = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(k, &bk));
  PetscCallBLAS("BLASgemm", BLASgemm_("N", "N", &bk, &bk, &bk, &one, A, &bk, B, &bk, &zero, C, &bk));
  PetscFunctionReturn(PETSC_SUCCESS);
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
    PetscCall(VIMatMul(k, B, E, T));
    for (PetscInt i = 0; i < k * k; i++) E[i] = T[i] / d;
    for (PetscInt i = 0; i < k; i++) E[i * k + i] += 1;
  }
  for (PetscInt q = 0; q < s; q++) {
    PetscCall(VIMatMul(k, E, E, W));
    PetscCall(PetscArraycpy(E, W, k * k));
  }
  PetscCall(PetscFree3(B, T, W));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Work space of the stability analysis. */
typedef struct {
  PetscInt      k2, nf;
  PetscReal    *A, *E, *T, *Minv, *Keff, *KFF, *KFi;
  PetscInt     *free_rows;
  PetscBLASInt *piv;
} VIFloquetWork;

/* w->A = A(state), the first-order matrix of the linearized motion for the contact state (1 closed, 0 open per contact). */
static PetscErrorCode VIHBFloquetMatrix(VIHB hb, VIFloquetWork *w, const PetscReal state[])
{
  const PetscInt n = hb->n, nb = hb->nb, nm = hb->nm, k2 = w->k2;
  PetscInt       nf = 0;

  PetscBLASInt bn, bf, info;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(nm, &bn));
  for (PetscInt i = 0; i < nb; i++) {
    PetscBool held = PETSC_FALSE;
    for (PetscInt j = 0; j < hb->nc; j++)
      if (hb->offsets[j] == i && state[j] > 0) held = PETSC_TRUE;
    if (!held) w->free_rows[nf++] = i;
  }
  /* K_eff = K_ii - K_iF K_FF^-1 K_Fi (column-major nm x nm) */
  for (PetscInt c = 0; c < nm; c++)
    for (PetscInt r = 0; r < nm; r++) w->Keff[c * nm + r] = hb->K[(nb + r) * n + nb + c];
  if (nf) {
    for (PetscInt c = 0; c < nf; c++)
      for (PetscInt r = 0; r < nf; r++) w->KFF[c * nf + r] = hb->K[w->free_rows[r] * n + w->free_rows[c]];
    for (PetscInt c = 0; c < nm; c++)
      for (PetscInt r = 0; r < nf; r++) w->KFi[c * nf + r] = hb->K[w->free_rows[r] * n + nb + c];
    PetscCall(PetscBLASIntCast(nf, &bf));
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bf, &bn, w->KFF, &bf, w->piv, w->KFi, &bf, &info));
    PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: singular boundary stiffness in the stability analysis");
    for (PetscInt c = 0; c < nm; c++)
      for (PetscInt r = 0; r < nm; r++) {
        PetscReal s = 0;
        for (PetscInt l = 0; l < nf; l++) s += hb->K[(nb + r) * n + w->free_rows[l]] * w->KFi[c * nf + l];
        w->Keff[c * nm + r] -= s;
      }
  }
  /* A = [0 I; -M^-1 K_eff, -M^-1 D] */
  for (PetscInt c = 0; c < nm; c++)
    for (PetscInt r = 0; r < nm; r++) {
      w->Minv[c * nm + r]     = hb->Mass[(nb + r) * n + nb + c];
      w->T[c * nm + r]        = w->Keff[c * nm + r];
      w->T[(nm + c) * nm + r] = hb->D[(nb + r) * n + nb + c];
    }
  {
    PetscBLASInt nrhs = 2 * bn;
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bn, &nrhs, w->Minv, &bn, w->piv, w->T, &bn, &info));
    PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: singular inner mass matrix in the stability analysis");
  }
  for (PetscInt i = 0; i < k2 * k2; i++) w->A[i] = 0;
  for (PetscInt c = 0; c < nm; c++) {
    w->A[(nm + c) * k2 + c] = 1;
    for (PetscInt r = 0; r < nm; r++) {
      w->A[c * k2 + nm + r]        = -w->T[c * nm + r];
      w->A[(nm + c) * k2 + nm + r] = -w->T[(nm + c) * nm + r];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Mon <- exp(A(state) len) Mon for the contact state held over a time len. */
static PetscErrorCode VIHBFloquetSegment(VIHB hb, VIFloquetWork *w, const PetscReal state[], PetscReal len, PetscReal Mon[])
{
  const PetscInt k2 = w->k2;

  PetscFunctionBeginUser;
  PetscCall(VIHBFloquetMatrix(hb, w, state));
  PetscCall(VIExpm(k2, w->A, len, w->E));
  PetscCall(VIMatMul(k2, w->E, Mon, w->T));
  PetscCall(PetscArraycpy(Mon, w->T, k2 * k2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  With a massless boundary (M_bb = M_bi = 0, D_bb = D_bi = 0) the boundary follows the inner coordinates statically, and
  the motion near the periodic solution is M_ii dq'' + D_ii dq' + K_eff(t) dq = 0: while contact j is closed its normal
  coordinate is held (dq_o = 0), while it is open its force is zero; the boundary rows left free are condensed,
  K_eff = K_ii - K_iF K_FF^-1 K_Fi. The force is continuous across a switch (it closes and opens at zero force), so the
  monodromy matrix is the product of exp(A tau) over the segments of constant contact state (no saltation). The
  solution is stable when no multiplier leaves the unit circle.
*/
PetscErrorCode VIHBFloquet(VIHB hb, PetscReal omega, PetscReal *mu_max, PetscBool *computed)
{
  const PetscInt n = hb->n, nb = hb->nb, nm = hb->nm, N = hb->N, nc = hb->nc, k2 = 2 * nm;
  PetscReal     *Mon, *wr, *wi, *work, *cut, *state, dt = 2 * PETSC_PI / omega / N, held = 0;
  PetscInt      *who;
  PetscBool      switches = PETSC_FALSE;
  PetscBLASInt   bk, info, lwork, one = 1;
  VIFloquetWork  w;

  PetscFunctionBeginUser;
  *computed = PETSC_FALSE;
  *mu_max   = -1;
  /* friction: a sticking contact holds its tangential coordinate, a slipping one adds a force along the slip whose
     linearization (and the saltation at stick-slip switches) this analysis does not model; not computed rather than a
     multiplier of the wrong system */
  if (!hb->massless || nm == 0 || hb->friction) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt j = 0; j < n; j++)
      if (hb->D[i * n + j] != 0 || hb->Mass[i * n + j] != 0) PetscFunctionReturn(PETSC_SUCCESS);
  w.k2 = k2;
  PetscCall(PetscMalloc6(k2 * k2, &w.A, k2 * k2, &w.E, k2 * k2, &w.T, nm * nm, &w.Minv, nm * nm, &w.Keff, nb * nb + 1, &w.KFF));
  PetscCall(PetscMalloc3(nb * nm + 1, &w.KFi, nb + 1, &w.free_rows, PetscMax(nb, nm) + 1, &w.piv));
  PetscCall(PetscMalloc5(k2 * k2, &Mon, k2, &wr, k2, &wi, 8 * k2, &work, nc + 1, &state));
  /* segments of constant contact state: between samples k and k+1 a contact whose state differs switches where its
     predicted force r_b - eps g + p crosses zero, placed by linear interpolation (the sample grid alone would quantize
     the closed durations to T/N, to which the multipliers of the stiff closed states are sensitive) */
  PetscCall(PetscMalloc2(nc + 2, &cut, nc + 2, &who));
  for (PetscInt i = 0; i < k2 * k2; i++) Mon[i] = 0;
  for (PetscInt i = 0; i < k2; i++) Mon[i * k2 + i] = 1;
  for (PetscInt j = 0; j < nc; j++) state[j] = hb->d_t[j * N];
  for (PetscInt j = 0; j < nc; j++)
    for (PetscInt k = 0; k < N; k++)
      if (hb->d_t[j * N + k] != state[j]) switches = PETSC_TRUE;
  /* one state over the whole period (every contact open, or closed, throughout): the monodromy matrix is exp(A T), whose
     eigenvalues are exp(lambda T) for the eigenvalues lambda of A; those of A are computed instead of the exponential */
  if (!switches) {
    PetscCall(VIHBFloquetMatrix(hb, &w, state));
    PetscCall(PetscArraycpy(Mon, w.A, k2 * k2));
  }
  for (PetscInt k = 0; k < N && switches; k++) {
    PetscInt ncut = 0, kn = (k + 1) % N;
    for (PetscInt j = 0; j < nc; j++) {
      if (hb->d_t[j * N + k] == hb->d_t[j * N + kn]) continue;
      {
        PetscReal p = hb->preload ? hb->preload[j] : 0, a = hb->r_t[j * N + k] - hb->eps[j] * hb->g_t[j * N + k] + p,
                  b = hb->r_t[j * N + kn] - hb->eps[j] * hb->g_t[j * N + kn] + p, sfrac = a != b ? a / (a - b) : 0.5;
        PetscInt c = ncut++;
        sfrac      = PetscClipInterval(sfrac, 0, 1);
        /* insertion in order of the crossing */
        while (c > 0 && cut[c - 1] > sfrac) {
          cut[c] = cut[c - 1];
          who[c] = who[c - 1];
          c--;
        }
        cut[c] = sfrac;
        who[c] = j;
      }
    }
    cut[ncut] = 1;
    /* the time in the current state accumulates; one exponential per state held, not per sample */
    for (PetscInt c = 0; c <= ncut; c++) {
      held += (cut[c] - (c ? cut[c - 1] : 0)) * dt;
      if (c < ncut) {
        if (held > 0) PetscCall(VIHBFloquetSegment(hb, &w, state, held, Mon));
        held          = 0;
        state[who[c]] = hb->d_t[who[c] * N + kn];
      }
    }
  }
  if (held > 0 && switches) PetscCall(VIHBFloquetSegment(hb, &w, state, held, Mon));
  PetscCall(PetscFree2(cut, who));
  PetscCall(PetscBLASIntCast(k2, &bk));
  PetscCall(PetscBLASIntCast(8 * k2, &lwork));
  PetscCallBLAS("LAPACKgeev", LAPACKgeev_("N", "N", &bk, Mon, &bk, wr, wi, NULL, &one, NULL, &one, work, &lwork, &info));
  PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: the eigenvalues of the monodromy matrix failed (LAPACK info %d)", (int)info);
  for (PetscInt i = 0; i < k2; i++)
    *mu_max = PetscMax(*mu_max, switches ? PetscSqrtReal(wr[i] * wr[i] + wi[i] * wi[i]) : PetscExpReal(wr[i] * 2 * PETSC_PI / omega));
  *computed = PETSC_TRUE;
  PetscCall(PetscFree6(w.A, w.E, w.T, w.Minv, w.Keff, w.KFF));
  PetscCall(PetscFree3(w.KFi, w.free_rows, w.piv));
  PetscCall(PetscFree5(Mon, wr, wi, work, state));
  PetscFunctionReturn(PETSC_SUCCESS);
}
