/* The harmonic balance residual with dynamic Lagrangian contact forces, normal and frictional, and its analytic Jacobian
   through the AFT (seed 000 Eqs. A.2-A.7). */
#include "hbimpl.h"
#include <petscblaslapack.h>

/* Most marches over the period of the friction law: at least two, more while the force at the period's end still changes. */
#define VI_HB_FRICTION_PASSES 8

/*
  Projection of the predicted tangential force xi (nt = 1 or 2 components) on the Coulomb disk of radius rho = mu (p +
  lambda_n) (seed 000 Eq. C.4, the tangential part of Eq. 7), and, when dxi is not NULL, its derivative with respect to
  the W inputs of the contact law: dxi, dlam are nt x W (row a at a W), drho is W. Returns 0 where the contact is open
  (rho <= 0: no force), 1 in stick (xi inside the disk, kept), 2 in slip (xi scaled onto the circle). In slip
  lambda = rho xi / |xi|, so d lambda = rho / |xi| (I - e e^T) d xi + e d rho with e = xi / |xi|.
*/
static PetscInt VIHBProjectDisk(PetscInt nt, PetscReal rho, const PetscReal xi[], const PetscReal *dxi, const PetscReal *drho, PetscInt W,
                                PetscReal lam[], PetscReal *dlam)
{
  PetscReal norm = 0, e[2];

  for (PetscInt a = 0; a < nt; a++) norm += xi[a] * xi[a];
  norm = PetscSqrtReal(norm);
  if (rho <= 0) {
    for (PetscInt a = 0; a < nt; a++) lam[a] = 0;
    if (dxi)
      for (PetscInt w = 0; w < nt * W; w++) dlam[w] = 0;
    return 0;
  }
  if (norm <= rho) {
    for (PetscInt a = 0; a < nt; a++) lam[a] = xi[a];
    if (dxi)
      for (PetscInt w = 0; w < nt * W; w++) dlam[w] = dxi[w];
    return 1;
  }
  for (PetscInt a = 0; a < nt; a++) {
    e[a]   = xi[a] / norm;
    lam[a] = rho * e[a];
  }
  if (dxi)
    for (PetscInt w = 0; w < W; w++) {
      PetscReal ed = 0;
      for (PetscInt b = 0; b < nt; b++) ed += e[b] * dxi[b * W + w];
      for (PetscInt a = 0; a < nt; a++) dlam[a * W + w] = rho / norm * (dxi[a * W + w] - e[a] * ed) + e[a] * drho[w];
    }
  return 2;
}

/*
  The contact law of contact j with dim = 1, 2 or 3 coordinates o, o+1, ... over one period, on its inputs in law_in: the
  coefficients (nh each) of the rows r_s of the linear residual (s < dim) and of the relative displacements x_s (s < dim;
  x_0 = q_o + g0 the gap). Output: the force coefficients law_out (dim x nh) and, when deriv, law_D = d law_out / d law_in
  ((dim nh) x W, W = 2 dim nh, row-major).

  Normal (seed 000 Eqs. A.3-A.7): lambda_n = max(-p, r_0 - eps g) sample by sample, for a preload p (the ROM's state 0 is
  the preloaded equilibrium and lambda the change of the normal force, as in the time stepping: the total p + lambda >= 0).
  At a solution (r_0 = lambda_n up to the truncation) either lambda_n > -p and g = 0 (closed), or lambda_n = -p, g >= 0.
  Its derivative: d lambda_n,k = d_k (d r_0,k - eps d g_k), d_k = 1 where the prediction is admissible, so in
  coefficients C = T_freq diag(d) T_time on r_0 and -eps C on g.

  Friction (mu > 0, dim > 1): the displacement-based DLFT of Nacivet et al. (2003), the law of Eq. (A.6) written for
  increments: the tangential force is predicted from the previous sample's force and the increments of the row and of the
  relative tangential displacement, and projected on the Coulomb disk of radius mu (p + lambda_n,k),
    lambda_t,k = proj_D(mu (p + lambda_n,k)) (lambda_t,k-1 + r_t,k - r_t,k-1 - eps_t (x_t,k - x_t,k-1)),
  so at a solution (r_t = lambda_t) the contact sticks (x_t,k = x_t,k-1) or slips opposite to the force. The march starts
  from the force of an absolute prediction at the last sample, proj(r_t,N-1 - eps_t x_t,N-1), which makes the stick
  position of a contact that never slips its position at rest, x_t = 0 (the time stepping's from rest), and runs over the
  period again from where it ended until the force at the end repeats (1e-13): twice for a 1D slider (the play operator is
  periodic after one period), at most VI_HB_FRICTION_PASSES times on the round disk. Its derivative is marched along
  (forward mode, through every pass, the slip radius through d lambda_n) and transformed with T_freq. An open contact
  carries no tangential force.
*/
static PetscErrorCode VIHBContactLaw(VIHB hb, PetscInt j, PetscBool deriv)
{
  const PetscInt   N = hb->N, nh = hb->nh, dim = hb->dims[j], W = 2 * dim * nh, nt = dim - 1;
  const PetscReal  eps = hb->eps[j], p = hb->preload ? hb->preload[j] : 0, *phi = hb->aft.basis;
  const PetscReal *rs = hb->law_t, *xs = hb->law_t + dim * N;
  PetscReal       *r_t = hb->r_t + j * N, *g_t = hb->g_t + j * N, *l_t = hb->lam_t + j * N, *d_t = hb->d_t + j * N, *D = hb->law_D;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < 2 * dim; s++) VIHBAFTToTime(&hb->aft, hb->law_in + s * nh, 1, hb->law_t + s * N); /* Eq. (A.5) */
  PetscCall(PetscArraycpy(r_t, rs, N));
  PetscCall(PetscArraycpy(g_t, xs, N));
  for (PetscInt k = 0; k < N; k++) { /* Eq. (A.6) */
    PetscReal pred        = r_t[k] - eps * g_t[k];
    d_t[k]                = pred > -p ? 1.0 : 0.0;
    l_t[k]                = pred > -p ? pred : -p;
    hb->slip_t[j * N + k] = 0;
  }
  VIHBAFTToFreq(&hb->aft, l_t, hb->law_out, 1); /* Eq. (A.7) */
  if (deriv) {
    PetscCall(PetscArrayzero(D, dim * nh * W));
    VIHBAFTProjector(&hb->aft, d_t, hb->C);
    for (PetscInt c = 0; c < nh; c++)
      for (PetscInt e = 0; e < nh; e++) {
        D[c * W + e]            = hb->C[c * nh + e];
        D[c * W + dim * nh + e] = -eps * hb->C[c * nh + e];
      }
  }
  if (nt && hb->mu[j] > 0) {
    const PetscReal mu = hb->mu[j], et = hb->eps_t[j];
    PetscReal      *dl = hb->law_dw, *dprev = dl + nt * W, *dxi = dprev + nt * W, *drho = dxi + nt * W;
    PetscReal       lam[2], lprev[2], xi[2];
    PetscInt        k = N - 1;

    /* the first pass's start: the absolute prediction at the last sample */
    for (PetscInt a = 0; a < nt; a++) xi[a] = rs[(1 + a) * N + k] - et * xs[(1 + a) * N + k];
    if (deriv) {
      PetscCall(PetscArrayzero(dxi, nt * W));
      PetscCall(PetscArrayzero(drho, W));
      for (PetscInt e = 0; e < nh; e++) {
        for (PetscInt a = 0; a < nt; a++) {
          dxi[a * W + (1 + a) * nh + e]       = phi[e * N + k];
          dxi[a * W + (dim + 1 + a) * nh + e] = -et * phi[e * N + k];
        }
        drho[e]            = mu * d_t[k] * phi[e * N + k];
        drho[dim * nh + e] = -mu * eps * d_t[k] * phi[e * N + k];
      }
    }
    (void)VIHBProjectDisk(nt, mu * (p + l_t[k]), xi, deriv ? dxi : NULL, drho, W, lprev, dprev);
    for (PetscInt pass = 0;; pass++) {
      PetscReal change = 0, size = mu * p;
      for (k = 0; k < N; k++) {
        const PetscInt kp = k ? k - 1 : N - 1;
        PetscInt       state;
        for (PetscInt a = 0; a < nt; a++)
          xi[a] = lprev[a] + rs[(1 + a) * N + k] - rs[(1 + a) * N + kp] - et * (xs[(1 + a) * N + k] - xs[(1 + a) * N + kp]);
        if (deriv) {
          PetscCall(PetscArraycpy(dxi, dprev, nt * W));
          for (PetscInt e = 0; e < nh; e++) {
            const PetscReal dphi = phi[e * N + k] - phi[e * N + kp];
            for (PetscInt a = 0; a < nt; a++) {
              dxi[a * W + (1 + a) * nh + e] += dphi;
              dxi[a * W + (dim + 1 + a) * nh + e] -= et * dphi;
            }
            drho[e]            = mu * d_t[k] * phi[e * N + k];
            drho[dim * nh + e] = -mu * eps * d_t[k] * phi[e * N + k];
          }
          dl = hb->law_dlam + k * nt * W; /* the last pass's derivative samples are kept for the transform */
        }
        state = VIHBProjectDisk(nt, mu * (p + l_t[k]), xi, deriv ? dxi : NULL, drho, W, lam, dl);
        for (PetscInt a = 0; a < nt; a++) {
          if (k == N - 1) change = PetscMax(change, PetscAbsReal(lam[a] - hb->law_lam[a * N + k]));
          size                   = PetscMax(size, PetscAbsReal(lam[a]));
          lprev[a]               = lam[a];
          hb->law_lam[a * N + k] = lam[a];
        }
        if (deriv) PetscCall(PetscArraycpy(dprev, dl, nt * W));
        hb->slip_t[j * N + k] = state == 2 ? 1.0 : 0.0;
      }
      /* periodic: the period ends where the previous pass ended (a 1D slider after one pass; a 2D one may take more) */
      if ((pass >= 1 && change <= 1e-13 * size) || pass + 1 == VI_HB_FRICTION_PASSES) break;
    }
    for (PetscInt a = 0; a < nt; a++) VIHBAFTToFreq(&hb->aft, hb->law_lam + a * N, hb->law_out + (1 + a) * nh, 1); /* Eq. (A.7) */
    if (deriv) {
      /* D_t,a = T_freq dlambda_t,a: (nh x N basis) times (N x W samples), then the weights of the projection */
      PetscBLASInt bW, bnh, bN, ld;
      PetscReal    one = 1, zero = 0;
      PetscCall(PetscBLASIntCast(W, &bW));
      PetscCall(PetscBLASIntCast(nh, &bnh));
      PetscCall(PetscBLASIntCast(N, &bN));
      PetscCall(PetscBLASIntCast(nt * W, &ld));
      for (PetscInt a = 0; a < nt; a++) {
        PetscReal *Da = D + (1 + a) * nh * W;
        PetscCallBLAS("BLASgemm", BLASgemm_("N", "N", &bW, &bnh, &bN, &one, hb->law_dlam + a * W, &ld, phi, &bN, &zero, Da, &bW));
        for (PetscInt c = 0; c < nh; c++)
          for (PetscInt w = 0; w < W; w++) Da[c * W + w] *= hb->aft.weight[c];
      }
    }
  } else {
    /* frictionless tangents carry no force */
    PetscCall(PetscArrayzero(hb->law_out + nh, nt * nh));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  R = L X - Fc - Lambda(X) on the contact rows (seed 000 Eq. A.2), Lambda from VIHBContactLaw on the rows o + s of the linear
  residual and the coordinates X_o+s (+ g0 on the normal). Jacobian: rows o + r of J and Romega lose
  Dc_(r,.),(s,.) d r_s + Dc_(r,.),(dim+s,.) d x_s; the linear rows r_s only couple to the columns of their own harmonic.
*/
PetscErrorCode VIHBResidual(VIHB hb, const PetscReal X[], PetscReal omega, PetscReal R[], PetscReal J[], PetscReal Romega[])
{
  const PetscInt m = hb->m, nh = hb->nh, M = hb->M, nc = hb->nc;
  PetscReal     *upd = hb->work + 12 * hb->n;

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
    const PetscInt   o = hb->offsets[j], dim = hb->dims[j], W = 2 * dim * nh;
    const PetscReal *D = hb->law_D;
    for (PetscInt s = 0; s < dim; s++)
      for (PetscInt c = 0; c < nh; c++) {
        hb->law_in[s * nh + c]         = R[c * m + o + s];
        hb->law_in[(dim + s) * nh + c] = X[c * m + o + s] + (s ? 0 : hb->G0[c * nc + j]);
      }
    PetscCall(VIHBContactLaw(hb, j, J || Romega ? PETSC_TRUE : PETSC_FALSE));
    for (PetscInt r = 0; r < dim; r++)
      for (PetscInt c = 0; c < nh; c++) R[c * m + o + r] -= hb->law_out[r * nh + c];
    if (Romega) {
      for (PetscInt rc = 0; rc < dim * nh; rc++) {
        PetscReal s = 0;
        for (PetscInt sc = 0; sc < dim * nh; sc++) s += D[rc * W + sc] * Romega[(sc % nh) * m + o + sc / nh];
        upd[rc] = s;
      }
      for (PetscInt rc = 0; rc < dim * nh; rc++) Romega[(rc % nh) * m + o + rc / nh] -= upd[rc];
    }
    if (J) {
      for (PetscInt col = 0; col < M; col++) {
        const PetscInt ce = col / m, h = (ce + 1) / 2, e0 = h ? 2 * h - 1 : 0, e1 = h ? 2 * h : 0, io = col % m - o;
        /* the linear values of the rows o + s in this column, saved before the update */
        PetscReal lin[3][2];
        for (PetscInt s = 0; s < dim; s++) {
          lin[s][0] = J[col * M + e0 * m + o + s];
          lin[s][1] = h ? J[col * M + e1 * m + o + s] : 0;
        }
        for (PetscInt rc = 0; rc < dim * nh; rc++) {
          const PetscReal *Dr = D + rc * W;
          PetscReal        s  = 0;
          for (PetscInt t = 0; t < dim; t++) s += Dr[t * nh + e0] * lin[t][0] + (h ? Dr[t * nh + e1] * lin[t][1] : 0);
          if (io >= 0 && io < dim) s += Dr[(dim + io) * nh + ce];
          upd[rc] = s;
        }
        for (PetscInt rc = 0; rc < dim * nh; rc++) J[col * M + (rc % nh) * m + o + rc / nh] -= upd[rc];
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
