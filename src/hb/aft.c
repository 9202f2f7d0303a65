/* Alternating frequency-time transforms of harmonic balance with FFTW real transforms (seed 000 Eqs. A.5, A.7). */
#include "hbimpl.h"

PetscErrorCode VIHBAFTCreate(PetscInt H, PetscInt N, VIHBAFT *aft)
{
  PetscFunctionBeginUser;
  aft->H  = H;
  aft->N  = N;
  aft->nh = 2 * H + 1;
  aft->t  = fftw_alloc_real((size_t)N);
  aft->z  = fftw_alloc_complex((size_t)(N / 2 + 1));
  PetscCheck(aft->t && aft->z, PETSC_COMM_SELF, PETSC_ERR_MEM, "FFTW could not allocate %" PetscInt_FMT " samples", N);
  /* FFTW_ESTIMATE: no timing runs, so the plan, and the results, are the same on every rank */
  aft->to_time = fftw_plan_dft_c2r_1d((int)N, aft->z, aft->t, FFTW_ESTIMATE);
  aft->to_freq = fftw_plan_dft_r2c_1d((int)N, aft->t, aft->z, FFTW_ESTIMATE);
  PetscCall(PetscMalloc2(aft->nh * N, &aft->basis, aft->nh, &aft->weight));
  for (PetscInt k = 0; k < N; k++) {
    PetscReal theta = 2 * PETSC_PI * (PetscReal)k / (PetscReal)N;
    aft->basis[k]   = 1;
    for (PetscInt h = 1; h <= H; h++) {
      aft->basis[(2 * h - 1) * N + k] = PetscCosReal(h * theta);
      aft->basis[(2 * h) * N + k]     = PetscSinReal(h * theta);
    }
  }
  aft->weight[0] = 1.0 / N;
  for (PetscInt c = 1; c < aft->nh; c++) aft->weight[c] = 2.0 / N;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBAFTDestroy(VIHBAFT *aft)
{
  PetscFunctionBeginUser;
  if (aft->t) {
    fftw_destroy_plan(aft->to_time);
    fftw_destroy_plan(aft->to_freq);
    fftw_free(aft->t);
    fftw_free(aft->z);
    aft->t = NULL;
    aft->z = NULL;
  }
  PetscCall(PetscFree2(aft->basis, aft->weight));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x_k = a0 + sum_h a_h cos(h theta_k) + b_h sin(h theta_k): the complex spectrum Y_h = (a_h - i b_h) / 2, Y_0 = a0, nothing
   above H (N >= 2H + 1, so no Nyquist term), through FFTW's unnormalized c2r */
void VIHBAFTToTime(VIHBAFT *aft, const PetscReal coef[], PetscInt s, PetscReal samples[])
{
  double(*z)[2] = (double(*)[2])aft->z; /* fftw_complex is C99 complex here: its documented layout, re and im */
  for (PetscInt h = 0; h <= aft->N / 2; h++) z[h][0] = z[h][1] = 0;
  z[0][0] = coef[0];
  for (PetscInt h = 1; h <= aft->H; h++) {
    z[h][0] = 0.5 * coef[(2 * h - 1) * s];
    z[h][1] = -0.5 * coef[(2 * h) * s];
  }
  fftw_execute(aft->to_time);
  for (PetscInt k = 0; k < aft->N; k++) samples[k] = aft->t[k];
}

/* X_h = sum_k x_k e^{-i h theta_k}: a0 = X_0 / N, a_h = 2 Re X_h / N, b_h = -2 Im X_h / N */
void VIHBAFTToFreq(VIHBAFT *aft, const PetscReal samples[], PetscReal coef[], PetscInt s)
{
  const PetscReal w = 2.0 / aft->N;
  double(*z)[2]     = (double(*)[2])aft->z;
  for (PetscInt k = 0; k < aft->N; k++) aft->t[k] = samples[k];
  fftw_execute(aft->to_freq);
  coef[0] = z[0][0] / aft->N;
  for (PetscInt h = 1; h <= aft->H; h++) {
    coef[(2 * h - 1) * s] = w * z[h][0];
    coef[(2 * h) * s]     = -w * z[h][1];
  }
}

/* S_m = sum_k d_k e^{-i m theta_k} of the N samples d for |m| <= 2H, from the r2c spectrum z (index m mod N, the upper half
   by conjugate symmetry): its real part is sum d_k cos(m theta_k), minus its imaginary part sum d_k sin(m theta_k). */
static void VIHBAFTTrig(VIHBAFT *aft, PetscInt m, PetscReal *cs, PetscReal *sn)
{
  double(*z)[2]  = (double(*)[2])aft->z;
  PetscInt  k    = ((m % aft->N) + aft->N) % aft->N;
  PetscReal sign = 1;
  if (k > aft->N / 2) {
    k    = aft->N - k;
    sign = -1;
  }
  *cs = z[k][0];
  *sn = -sign * z[k][1];
}

/* The entries sum_k phi_c d_k phi_e are Fourier sums of d at the sum and difference of the two harmonics (cos a cos b =
   (cos(a - b) + cos(a + b)) / 2, etc.): one FFT of d and nh^2 look-ups instead of nh^2 N products. */
void VIHBAFTProjector(VIHBAFT *aft, const PetscReal d[], PetscReal C[])
{
  const PetscInt nh = aft->nh;
  for (PetscInt k = 0; k < aft->N; k++) aft->t[k] = d[k];
  fftw_execute(aft->to_freq);
  for (PetscInt c = 0; c < nh; c++) {
    const PetscInt hc = (c + 1) / 2, kc = c ? (c % 2 ? 1 : 2) : 0; /* kc: 0 constant, 1 cosine, 2 sine */
    for (PetscInt e = c; e < nh; e++) {
      const PetscInt he = (e + 1) / 2, ke = e ? (e % 2 ? 1 : 2) : 0;
      PetscReal      cp, sp, cm, sm, s;
      VIHBAFTTrig(aft, he + hc, &cp, &sp);
      VIHBAFTTrig(aft, he - hc, &cm, &sm);
      if (!kc)
        s = ke == 2 ? sp : cp; /* 1 phi_e */
      else if (kc == 1 && ke == 1)
        s = 0.5 * (cm + cp); /* cos hc cos he */
      else if (kc == 2 && ke == 2)
        s = 0.5 * (cm - cp); /* sin hc sin he */
      else if (kc == 1)
        s = 0.5 * (sp + sm); /* cos hc sin he = (sin(he + hc) + sin(he - hc)) / 2 */
      else
        s = 0.5 * (sp - sm); /* sin hc cos he = (sin(he + hc) - sin(he - hc)) / 2 */
      C[c * nh + e] = aft->weight[c] * s;
      C[e * nh + c] = aft->weight[e] * s;
    }
  }
}
