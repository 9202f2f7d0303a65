/* The harmonic balance residual with dynamic Lagrangian contact forces and its analytic Jacobian through the AFT
   (seed 000 Eqs. A.2-A.7). */
#include "hbimpl.h"

/*
  Unilateral contact j with normal coordinate o (seed 000 Eqs. A.3-A.7): the gap g = q_o + g0 and r_b, the row o of the
  linear residual, are sampled at N points of the period; the normal force is predicted as r_b - eps g and projected on
  the admissible set, lambda = max(-p, r_b - eps g) for a preload p (the ROM's state 0 is the preloaded equilibrium and
  lambda the change of the normal force, as in the time stepping: the total p + lambda >= 0); its coefficients close
  the row: R_o = r_b - lambda. At a solution (r_b = lambda, sample by sample up to the
  truncation) either lambda = r_b - eps g > -p, so g = 0 (closed), or lambda = -p with eps g >= r_b + p = 0 (open). Tangential rows of 2D/3D contacts
  carry no force here (frictionless).

  Jacobian: in time, d lambda_k = d_k (d r_b,k - eps d g_k) with d_k = 1 where the prediction is admissible (closed), 0
  where it is projected; in coefficients, d Lambda = C (d R_o - eps d X_o) with C = T_freq diag(d) T_time.
*/
PetscErrorCode VIHBResidual(VIHB hb, const PetscReal X[], PetscReal omega, PetscReal R[], PetscReal J[], PetscReal Romega[])
{
  const PetscInt m = hb->m, nh = hb->nh, N = hb->N, M = hb->M, nc = hb->nc;
  PetscReal     *rc = hb->work + 12 * hb->n, *gc = rc + nh, *lc = gc + nh;

  PetscFunctionBeginUser;
  PetscCall(VIHBOperatorsSetUp(hb, omega));
  PetscCall(VIHBLinearResidual(hb, X, R, Romega));
  if (J) {
    /* the linear part: block diagonal over harmonics, L[h] on the coefficients 2h - 1 (cos) and 2h (sin) */
    PetscCall(PetscArrayzero(J, M * M));
    for (PetscInt h = 0; h <= hb->H; h++) {
      const PetscInt p = h ? 2 : 1, pm = p * m, c0 = h ? 2 * h - 1 : 0;
      for (PetscInt cc = 0; cc < pm; cc++)
        for (PetscInt rr = 0; rr < pm; rr++) J[((c0 + cc / m) * m + cc % m) * M + (c0 + rr / m) * m + rr % m] = hb->L[h][cc * pm + rr];
    }
  }
  for (PetscInt j = 0; j < nc; j++) {
    const PetscInt  o   = hb->offsets[j];
    const PetscReal eps = hb->eps[j], p = hb->preload ? hb->preload[j] : 0;
    PetscReal      *r_t = hb->r_t + j * N, *g_t = hb->g_t + j * N, *l_t = hb->lam_t + j * N, *d_t = hb->d_t + j * N;
    for (PetscInt c = 0; c < nh; c++) {
      rc[c] = R[c * m + o];
      gc[c] = X[c * m + o] + hb->G0[c * nc + j];
    }
    VIHBAFTToTime(&hb->aft, rc, 1, r_t); /* Eq. (A.5) */
    VIHBAFTToTime(&hb->aft, gc, 1, g_t);
    for (PetscInt k = 0; k < N; k++) { /* Eq. (A.6) */
      PetscReal pred = r_t[k] - eps * g_t[k];
      d_t[k]         = pred > -p ? 1.0 : 0.0;
      l_t[k]         = pred > -p ? pred : -p;
    }
    VIHBAFTToFreq(&hb->aft, l_t, lc, 1); /* Eq. (A.7) */
    for (PetscInt c = 0; c < nh; c++) R[c * m + o] -= lc[c];
    if (!J && !Romega) continue;
    VIHBAFTProjector(&hb->aft, d_t, hb->C);
    if (Romega) {
      for (PetscInt c = 0; c < nh; c++) rc[c] = Romega[c * m + o];
      for (PetscInt c = 0; c < nh; c++) {
        PetscReal s = 0;
        for (PetscInt e = 0; e < nh; e++) s += hb->C[c * nh + e] * rc[e];
        Romega[c * m + o] -= s;
      }
    }
    if (J) {
      /* rows c*m+o of J -= C (Lrow_o - eps e_o); Lrow_o's coefficient e only couples to the columns of e's harmonic */
      for (PetscInt col = 0; col < M; col++) {
        const PetscInt ce = col / m, h = (ce + 1) / 2, e0 = h ? 2 * h - 1 : 0, e1 = h ? 2 * h : 0;
        PetscReal      lo0, lo1;
        lo0 = J[col * M + e0 * m + o];
        lo1 = h ? J[col * M + e1 * m + o] : 0;
        /* the linear values of rows o are still in J for the columns not yet visited: save them before the update */
        for (PetscInt c = 0; c < nh; c++) {
          PetscReal s = hb->C[c * nh + e0] * lo0 + (h ? hb->C[c * nh + e1] * lo1 : 0);
          if (col == ce * m + o) s -= eps * hb->C[c * nh + ce];
          rc[c] = s;
        }
        for (PetscInt c = 0; c < nh; c++) J[col * M + c * m + o] -= rc[c];
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
