/* Stability of a harmonic balance solution from the exact piecewise-linear motion (massless boundary): Floquet multipliers of
   its periodic orbit near the solution, or, where there is none, what the motion from the solution does. */
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

/* E = exp(A tau) by scaling and squaring of the [13/13] Pade approximant (Higham 2005, "The scaling and squaring method
   for the matrix exponential revisited": for |A tau / 2^s|_1 <= theta_13 = 5.37 its backward error is below the unit
   roundoff; six products and one solve, against thirteen products of a Taylor series at a four times smaller norm). */
static PetscErrorCode VIExpm(PetscInt k, const PetscReal A[], PetscReal tau, PetscReal E[])
{
  static const PetscReal b[]   = {64764752532480000.0,
                                  32382376266240000.0,
                                  7771770303897600.0,
                                  1187353796428800.0,
                                  129060195264000.0,
                                  10559470521600.0,
                                  670442572800.0,
                                  33522128640.0,
                                  1323241920.0,
                                  40840800.0,
                                  960960.0,
                                  16380.0,
                                  182.0,
                                  1.0};
  const PetscReal        theta = 5.371920351148152;
  PetscReal             *B, *B2, *B4, *B6, *U, *V, *T, norm = 0, sc;
  PetscInt               s = 0, kk = k * k;
  PetscBLASInt           bk, info, *piv;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(k, &bk));
  PetscCall(PetscMalloc7(kk, &B, kk, &B2, kk, &B4, kk, &B6, kk, &U, kk, &V, kk, &T));
  PetscCall(PetscMalloc1(k, &piv));
  for (PetscInt j = 0; j < k; j++) {
    PetscReal c = 0;
    for (PetscInt i = 0; i < k; i++) c += PetscAbsReal(A[j * k + i] * tau);
    norm = PetscMax(norm, c);
  }
  while (norm > theta) {
    norm /= 2;
    s++;
  }
  sc = tau / PetscPowRealInt(2.0, s);
  for (PetscInt i = 0; i < kk; i++) B[i] = A[i] * sc;
  PetscCall(VIMatMul(k, B, B, B2));
  PetscCall(VIMatMul(k, B2, B2, B4));
  PetscCall(VIMatMul(k, B2, B4, B6));
  /* U = B [B6 (b13 B6 + b11 B4 + b9 B2) + b7 B6 + b5 B4 + b3 B2 + b1 I], V = B6 (b12 B6 + b10 B4 + b8 B2) + b6 B6 + b4 B4 + b2 B2 + b0 I */
  for (PetscInt i = 0; i < kk; i++) T[i] = b[13] * B6[i] + b[11] * B4[i] + b[9] * B2[i];
  PetscCall(VIMatMul(k, B6, T, U));
  for (PetscInt i = 0; i < kk; i++) U[i] += b[7] * B6[i] + b[5] * B4[i] + b[3] * B2[i];
  for (PetscInt i = 0; i < k; i++) U[i * k + i] += b[1];
  PetscCall(VIMatMul(k, B, U, T));
  for (PetscInt i = 0; i < kk; i++) U[i] = b[12] * B6[i] + b[10] * B4[i] + b[8] * B2[i];
  PetscCall(VIMatMul(k, B6, U, V));
  for (PetscInt i = 0; i < kk; i++) V[i] += b[6] * B6[i] + b[4] * B4[i] + b[2] * B2[i];
  for (PetscInt i = 0; i < k; i++) V[i * k + i] += b[0];
  /* (V - U) E = V + U, U = T */
  for (PetscInt i = 0; i < kk; i++) {
    E[i] = V[i] + T[i];
    V[i] -= T[i];
  }
  PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bk, &bk, V, &bk, piv, E, &bk, &info));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "hb: the Pade approximant of a matrix exponential is singular (LAPACK info %d)", (int)info);
  for (PetscInt q = 0; q < s; q++) {
    PetscCall(VIMatMul(k, E, E, T));
    PetscCall(PetscArraycpy(E, T, kk));
  }
  PetscCall(PetscFree7(B, B2, B4, B6, U, V, T));
  PetscCall(PetscFree(piv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Most contact states one analysis keeps, Newton iterations of the shooting, contact switches per period per contact,
   degree of the Taylor series of exp(A tau) v within a sub-step (|A tau| <= 1: truncation below 1e-19); the shooting's
   tolerance, its orbits' distance to their start (NEAR), the jump test past turning points, the stall window; a
   multiplier modulus above 1 + STABLE_TOL is unstable; the periods the motion from a solution is followed when no orbit
   is found, and its change per period at which the shooting is tried from it (SETTLE). */
#define VI_FLOQUET_STATES         64
#define VI_FLOQUET_MAX_IT         15
#define VI_FLOQUET_SWITCHES       64
#define VI_FLOQUET_TAYLOR         20
#define VI_FLOQUET_SHOOT_TOL      1e-10
#define VI_FLOQUET_DEG_MAX        60
#define VI_FLOQUET_NEAR           0.5
#define VI_FLOQUET_JUMP           2
#define VI_FLOQUET_JUMP_ABS       0.01
#define VI_FLOQUET_STALL          5
#define VI_FLOQUET_DEPART_PERIODS 400
#define VI_FLOQUET_SETTLE         1e-4

/* The state of a contact over a segment: open, closed (sticking when frictional), slipping with the tangential force
   +mu (p + lambda_n) or -mu (p + lambda_n) (a frictional 2D contact) */
enum { VI_FLOQUET_OPEN, VI_FLOQUET_CLOSED, VI_FLOQUET_SLIP_PLUS, VI_FLOQUET_SLIP_MINUS };

/*
  One contact state of the piecewise-linear motion with a massless boundary, in the balanced first-order coordinates
  x = (q_I, v_I / ws, x_T) with x_T the tangential coordinates of the frictional 2D contacts (held while they stick, the
  memory of the stick; follow the motion while they slip): x' = A x + b(t), b a Fourier series of H harmonics (the case's
  force and imposed gaps). The boundary follows x: q_B = Bq x + bh(t) (closed normals held at -g0, sticking tangents at
  x_T, the other rows condensed; a slipping tangent's row carries lambda_t = s mu (p + lambda_n)). Kept: A, exp(A h) of
  a sub-step, the periodic forced response xp (harmonics, zero on x_T), and three event functions per contact,
  y_e = Y_e x + yc_e(t), that stay >= 0 in this state: the gap of an open contact or the total normal force p + lambda_n
  of a closed one; for a sticking contact the margins mu (p + lambda_n) -+ lambda_t; for a slipping one -+ its slip
  velocity (slip opposes the force); unused ones are 1.
*/
typedef struct {
  char      *code;         /* nc: VI_FLOQUET_OPEN, ... */
  PetscReal *A, *E;        /* kx x kx, column-major */
  PetscReal *xp;           /* nh x kx: harmonic c of xp at c * kx */
  PetscReal *Y;            /* kx x ne, column-major: Y_e at e * kx */
  PetscReal *yc;           /* nh x ne: harmonic c of y_e on xp, at c * ne + e */
  PetscReal *Bq, *bh;      /* kx x nb (column b at b * kx) and nh x nb: the boundary coordinates q_b = Bq_b x + bh_b(t) */
  PetscInt   deg;          /* terms of the Taylor series of exp(A tau), tau <= h, for a truncation below 1e-17 */
  PetscInt   nused, *used; /* the event functions that are not the constant 1 (only those are evaluated) */
} VIFloquetState;

/* Work space of the stability analysis: the states met, the last period's segments of constant state, scratch. */
typedef struct {
  PetscInt       k2, kx, ne, ns, nst, nseg, cap, nperiods;
  PetscInt      *tan; /* nc: the index in x_T of a frictional contact's tangent, -1 for the others */
  PetscReal      ws, T, h, omega;
  VIFloquetState st[VI_FLOQUET_STATES];
  PetscInt      *seg_state;
  PetscReal     *seg_len, *phi, *u, *y, *Mon, *W, *pw, *cd, *basis; /* basis: phi at the ns + 1 sub-step ends */
  char          *code;
  PetscBLASInt  *piv;
} VIFloquetWork;

/* phi_c(Omega t), c < nh: 1, cos, sin, cos 2, ... (the order of the coefficients) */
static void VIFloquetBasis(VIHB hb, PetscReal omega, PetscReal t, PetscReal phi[])
{
  const PetscReal c1 = PetscCosReal(omega * t), s1 = PetscSinReal(omega * t);
  PetscReal       c = c1, sn = s1;

  /* cos h theta, sin h theta by the angle-addition recurrence (one sincos per call; rounding grows as h eps) */
  phi[0] = 1;
  for (PetscInt h = 1; h <= hb->H; h++) {
    const PetscReal cn = c * c1 - sn * s1;
    phi[2 * h - 1]     = c;
    phi[2 * h]         = sn;
    sn                 = sn * c1 + c * s1;
    c                  = cn;
  }
}

/* y = sum_c coef[c * ld + i] phi_c for i < m */
static void VIFloquetEval(PetscInt nh, PetscInt m, PetscInt ld, const PetscReal coef[], const PetscReal phi[], PetscReal y[])
{
  for (PetscInt i = 0; i < m; i++) y[i] = 0;
  for (PetscInt c = 0; c < nh; c++)
    for (PetscInt i = 0; i < m; i++) y[i] += coef[c * ld + i] * phi[c];
}

/* u = exp(A tau) v by the Taylor series on the vector, in pieces of |A tau| <= 1, each summed until a term falls below
   1e-17 of the sum (at most VI_FLOQUET_TAYLOR terms) */
static PetscErrorCode VIFloquetExpVec(PetscInt k, const PetscReal A[], PetscReal tau, const PetscReal v[], PetscReal u[], PetscReal work[])
{
  PetscReal    norm = 0, *term = work, *next = work + k, zero = 0;
  PetscInt     pieces;
  PetscBLASInt bk, one = 1;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(k, &bk));
  for (PetscInt j = 0; j < k; j++) {
    PetscReal c = 0;
    for (PetscInt i = 0; i < k; i++) c += PetscAbsReal(A[j * k + i]);
    norm = PetscMax(norm, c);
  }
  pieces = PetscMax(1, (PetscInt)PetscCeilReal(norm * tau));
  PetscCall(PetscArraycpy(u, v, k));
  for (PetscInt p = 0; p < pieces; p++) {
    PetscCall(PetscArraycpy(term, u, k));
    for (PetscInt d = 1; d <= VI_FLOQUET_TAYLOR; d++) {
      PetscReal a = tau / pieces / d, tmax = 0, umax = 0;
      PetscCallBLAS("BLASgemv", BLASgemv_("N", &bk, &bk, &a, A, &bk, term, &one, &zero, next, &one));
      for (PetscInt i = 0; i < k; i++) {
        term[i] = next[i];
        u[i] += term[i];
        tmax = PetscMax(tmax, PetscAbsReal(term[i]));
        umax = PetscMax(umax, PetscAbsReal(u[i]));
      }
      if (tmax <= 1e-17 * umax) break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The state of contact codes `code` (set up on first use); *s its index, -1 when it cannot be set up. */
static PetscErrorCode VIFloquetGetState(VIHB hb, VIFloquetWork *w, const char code[], PetscInt *s)
{
  const PetscInt   n = hb->n, nb = hb->nb, nm = hb->nm, nc = hb->nc, nh = hb->nh, k2 = w->k2, kx = w->kx, ne = w->ne;
  const PetscReal *K = hb->K;
  VIFloquetState  *st;
  PetscInt         nf = 0, nt = 0, *F, *role, *owner, *stick, nrhs;
  PetscReal       *KF, *U, *Krow, *fr, *Keff, *P, *Minv, *S, *r, *lam;
  PetscBool        good = PETSC_TRUE;
  PetscBLASInt     bf, bn, brhs, one = 1, info;

  PetscFunctionBeginUser;
  for (*s = 0; *s < w->nst; (*s)++) {
    PetscInt j = 0;
    while (j < nc && w->st[*s].code[j] == code[j]) j++;
    if (j == nc) PetscFunctionReturn(PETSC_SUCCESS);
  }
  *s = -1;
  if (w->nst == VI_FLOQUET_STATES) PetscFunctionReturn(PETSC_SUCCESS);
  st = &w->st[w->nst];
  PetscCall(PetscMalloc5(nc, &st->code, kx * kx, &st->A, kx * kx, &st->E, nh * kx, &st->xp, kx * ne, &st->Y));
  PetscCall(PetscMalloc3(nh * ne, &st->yc, kx * nb, &st->Bq, nh * nb, &st->bh));
  PetscCall(PetscArraycpy(st->code, code, nc));
  /* the boundary coordinates' roles: free (condensed; a slipping tangent's row modified), held at -g0 (closed normal),
     held at x_T (sticking tangent) */
  PetscCall(PetscMalloc4(nb, &F, nb, &role, nb, &owner, nb, &stick));
  for (PetscInt b = 0; b < nb; b++) {
    role[b]  = 0;
    owner[b] = -1;
  }
  for (PetscInt j = 0; j < nc; j++) {
    const PetscInt o = hb->offsets[j];
    owner[o]         = j;
    if (code[j] != VI_FLOQUET_OPEN) role[o] = 1;
    if (w->tan[j] >= 0) {
      owner[o + 1] = j;
      if (code[j] == VI_FLOQUET_CLOSED) role[o + 1] = 2;
    }
  }
  for (PetscInt b = 0; b < nb; b++) {
    if (role[b] == 0) F[nf++] = b;
    if (role[b] == 2) stick[nt++] = b;
  }
  nrhs = nm + nt + nh;
  PetscCall(PetscMalloc6(nf * nf + 1, &KF, nf * nrhs + 1, &U, nf * n + 1, &Krow, nf * nh + 1, &fr, nm * nm, &Keff, nm * nh, &P));
  PetscCall(PetscMalloc4(nm * nm, &Minv, 2 * nm * (nm + kx), &S, 2 * nm * (2 * nm + 2), &r, n + 1, &lam));
  /* the free rows, K_a. q = f_a + l_a: l_a = -p on an open contact's normal; on a slipping tangent lambda_t =
     sg mu (p + lambda_n) with lambda_n = K_n. q - f_n, so (K_t. - sg mu K_n.) q = f_t - sg mu f_n + sg mu p */
  for (PetscInt a = 0; a < nf; a++) {
    const PetscInt  b = F[a], j = owner[b];
    const PetscBool slip = (PetscBool)(j >= 0 && w->tan[j] >= 0 && b == hb->offsets[j] + 1 && code[j] >= VI_FLOQUET_SLIP_PLUS);
    const PetscReal sg = slip ? (code[j] == VI_FLOQUET_SLIP_PLUS ? 1 : -1) * hb->mu[j] : 0, p = hb->preload && j >= 0 ? hb->preload[j] : 0;
    const PetscInt  o = j >= 0 ? hb->offsets[j] : 0;
    for (PetscInt i = 0; i < n; i++) Krow[a * n + i] = K[b * n + i] - sg * K[o * n + i];
    for (PetscInt c = 0; c < nh; c++) fr[a * nh + c] = hb->F[c * n + b] - sg * hb->F[c * n + o];
    if (slip) fr[a * nh] += sg * p;
    if (j >= 0 && b == o && code[j] == VI_FLOQUET_OPEN) fr[a * nh] -= p;
  }
  /* U = K_FF^-1 [K_FI, K_FT (sticking tangents), w], w = f + l + K_FC g0 (closed normals held at -g0) */
  for (PetscInt a = 0; a < nf; a++) {
    for (PetscInt b = 0; b < nf; b++) KF[b * nf + a] = Krow[a * n + F[b]];
    for (PetscInt i = 0; i < nm; i++) U[i * nf + a] = Krow[a * n + nb + i];
    for (PetscInt l = 0; l < nt; l++) U[(nm + l) * nf + a] = Krow[a * n + stick[l]];
    for (PetscInt c = 0; c < nh; c++) {
      PetscReal v = fr[a * nh + c];
      for (PetscInt j = 0; j < nc; j++)
        if (code[j] != VI_FLOQUET_OPEN) v += Krow[a * n + hb->offsets[j]] * hb->G0[c * nc + j];
      U[(nm + nt + c) * nf + a] = v;
    }
  }
  if (nf) {
    PetscCall(PetscBLASIntCast(nf, &bf));
    PetscCall(PetscBLASIntCast(nrhs, &brhs));
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bf, &brhs, KF, &bf, w->piv, U, &bf, &info));
    if (info) good = PETSC_FALSE;
  }
  /* the boundary map q_b = Bq_b x + bh_b(t) */
  PetscCall(PetscArrayzero(st->Bq, kx * nb));
  PetscCall(PetscArrayzero(st->bh, nh * nb));
  for (PetscInt a = 0; a < nf && good; a++) {
    for (PetscInt i = 0; i < nm; i++) st->Bq[F[a] * kx + i] = -U[i * nf + a];
    for (PetscInt l = 0; l < nt; l++) st->Bq[F[a] * kx + k2 + w->tan[owner[stick[l]]]] = -U[(nm + l) * nf + a];
    for (PetscInt c = 0; c < nh; c++) st->bh[c * nb + F[a]] = U[(nm + nt + c) * nf + a];
  }
  for (PetscInt b = 0; b < nb; b++) {
    if (role[b] == 1)
      for (PetscInt c = 0; c < nh; c++) st->bh[c * nb + b] = -hb->G0[c * nc + owner[b]];
    if (role[b] == 2) st->Bq[b * kx + k2 + w->tan[owner[b]]] = 1;
  }
  /* inner: M q'' + D q' + K_II q + K_IB (Bq x + bh) = f_I: K_eff = K_II + K_IB Bq_I, the sticking tangents through
     K_IB Bq_T, P = f_I - K_IB bh */
  for (PetscInt i = 0; i < nm; i++) {
    for (PetscInt l = 0; l < nm; l++) {
      PetscReal v = K[(nb + i) * n + nb + l];
      for (PetscInt b = 0; b < nb; b++) v += K[(nb + i) * n + b] * st->Bq[b * kx + l];
      Keff[l * nm + i] = v;
    }
    for (PetscInt c = 0; c < nh; c++) {
      PetscReal v = hb->F[c * n + nb + i];
      for (PetscInt b = 0; b < nb; b++) v -= K[(nb + i) * n + b] * st->bh[c * nb + b];
      P[c * nm + i] = v;
    }
  }
  /* A = [0, ws I, 0; -M^-1 K_eff / ws, -M^-1 D, -M^-1 K_IB Bq_T / ws; 0, 0, 0] */
  for (PetscInt i = 0; i < nm; i++) {
    for (PetscInt l = 0; l < nm; l++) {
      Minv[l * nm + i]     = hb->Mass[(nb + i) * n + nb + l];
      S[l * nm + i]        = Keff[l * nm + i];
      S[(nm + l) * nm + i] = hb->D[(nb + i) * n + nb + l];
    }
    for (PetscInt l = k2; l < kx; l++) {
      PetscReal v = 0;
      for (PetscInt b = 0; b < nb; b++) v += K[(nb + i) * n + b] * st->Bq[b * kx + l];
      S[(2 * nm + l - k2) * nm + i] = v;
    }
  }
  PetscCall(PetscBLASIntCast(nm, &bn));
  {
    PetscBLASInt nr;
    PetscCall(PetscBLASIntCast(2 * nm + kx - k2, &nr));
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bn, &nr, Minv, &bn, w->piv, S, &bn, &info));
    PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: singular inner mass matrix in the stability analysis");
  }
  PetscCall(PetscArrayzero(st->A, kx * kx));
  for (PetscInt l = 0; l < nm; l++) {
    st->A[(nm + l) * kx + l] = w->ws;
    for (PetscInt i = 0; i < nm; i++) {
      st->A[l * kx + nm + i]        = -S[l * nm + i] / w->ws;
      st->A[(nm + l) * kx + nm + i] = -S[(nm + l) * nm + i];
    }
  }
  for (PetscInt l = k2; l < kx; l++)
    for (PetscInt i = 0; i < nm; i++) st->A[l * kx + nm + i] = -S[(2 * nm + l - k2) * nm + i] / w->ws;
  PetscCall(VIExpm(kx, st->A, w->h, st->E));
  {
    PetscReal norm = 0, term = 1;
    for (PetscInt l = 0; l < kx; l++) {
      PetscReal c = 0;
      for (PetscInt i = 0; i < kx; i++) c += PetscAbsReal(st->A[l * kx + i]);
      norm = PetscMax(norm, c * w->h);
    }
    for (st->deg = 1; st->deg < VI_FLOQUET_DEG_MAX; st->deg++) {
      term *= norm / st->deg;
      if (term < 1e-17 && st->deg >= 4) break;
    }
  }
  /* the periodic forced response, harmonic by harmonic: K_eff a0 = P0; for x = a cos + b sin at w = h Omega,
     [K_eff - w^2 M, w D; -w D, K_eff - w^2 M] [a; b] = [P_a; P_b] (seed 000 Eq. A.2 with the state's K_eff) */
  PetscCall(PetscArrayzero(st->xp, nh * kx));
  for (PetscInt h = 0; h <= hb->H && good; h++) {
    const PetscInt  p = h ? 2 : 1, m = p * nm;
    const PetscReal wh = h * w->omega;
    PetscBLASInt    bm;
    for (PetscInt l = 0; l < nm; l++)
      for (PetscInt i = 0; i < nm; i++) {
        const PetscReal kd = Keff[l * nm + i] - wh * wh * hb->Mass[(nb + i) * n + nb + l], dd = wh * hb->D[(nb + i) * n + nb + l];
        r[l * m + i] = kd;
        if (h) {
          r[(nm + l) * m + nm + i] = kd;
          r[(nm + l) * m + i]      = dd;
          r[l * m + nm + i]        = -dd;
        }
      }
    for (PetscInt i = 0; i < nm; i++) {
      r[m * m + i] = P[(h ? 2 * h - 1 : 0) * nm + i];
      if (h) r[m * m + nm + i] = P[2 * h * nm + i];
    }
    PetscCall(PetscBLASIntCast(m, &bm));
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bm, &one, r, &bm, w->piv, r + m * m, &bm, &info));
    if (info) { /* K_eff singular (a free-floating state) or an undamped resonance: no periodic forced response */
      PetscCall(PetscInfo(NULL, "hb: no forced response of a contact state at harmonic %" PetscInt_FMT " (LAPACK info %d)\n", h, (int)info));
      good = PETSC_FALSE;
      break;
    }
    for (PetscInt i = 0; i < nm; i++) {
      if (!h) {
        st->xp[i] = r[m * m + i];
        continue;
      }
      {
        const PetscReal a = r[m * m + i], b = r[m * m + nm + i];
        st->xp[(2 * h - 1) * kx + i]      = a;
        st->xp[2 * h * kx + i]            = b;
        st->xp[(2 * h - 1) * kx + nm + i] = wh * b / w->ws; /* d/dt (a cos + b sin) */
        st->xp[2 * h * kx + nm + i]       = -wh * a / w->ws;
      }
    }
  }
  /* events; a row force lambda_b = K_bI q_I + K_bB q_B - f_b of the boundary map: Y = K_bI + K_bB Bq, harmonics
     K_bB bh - f_b (lam: the scratch row) */
  PetscCall(PetscArrayzero(st->Y, kx * ne));
  PetscCall(PetscArrayzero(st->yc, nh * ne));
  for (PetscInt j = 0; j < nc && good; j++) {
    const PetscInt  o = hb->offsets[j], e = 3 * j;
    const PetscReal p = hb->preload ? hb->preload[j] : 0, mu = w->tan[j] >= 0 ? hb->mu[j] : 0;
    PetscReal      *Yn = st->Y + e * kx, *Y1 = Yn + kx, *Y2 = Y1 + kx;
    /* the row force of boundary coordinate b into (Yb, harmonics yb at stride ne) */
#define VI_FLOQUET_ROW_FORCE(b, Yb, yb, scale)                                                                                                       \
  do {                                                                                                                                               \
    for (PetscInt l = 0; l < kx; l++) {                                                                                                              \
      PetscReal v = l < nm ? K[(b)*n + nb + l] : 0;                                                                                                  \
      for (PetscInt bb = 0; bb < nb; bb++) v += K[(b)*n + bb] * st->Bq[bb * kx + l];                                                                 \
      (Yb)[l] += (scale)*v;                                                                                                                          \
    }                                                                                                                                                \
    for (PetscInt c = 0; c < nh; c++) {                                                                                                              \
      PetscReal v = -hb->F[c * n + (b)];                                                                                                             \
      for (PetscInt bb = 0; bb < nb; bb++) v += K[(b)*n + bb] * st->bh[c * nb + bb];                                                                 \
      (yb)[c * ne] += (scale)*v;                                                                                                                     \
    }                                                                                                                                                \
  } while (0)
    if (code[j] == VI_FLOQUET_OPEN) { /* the gap q_o + g0 */
      for (PetscInt l = 0; l < kx; l++) Yn[l] = st->Bq[o * kx + l];
      for (PetscInt c = 0; c < nh; c++) st->yc[c * ne + e] = st->bh[c * nb + o] + hb->G0[c * nc + j];
    } else { /* the total normal force p + lambda_n */
      VI_FLOQUET_ROW_FORCE(o, Yn, st->yc + e, 1.0);
      st->yc[e] += p;
    }
    if (code[j] == VI_FLOQUET_CLOSED && w->tan[j] >= 0) { /* sticking: mu (p + lambda_n) -+ lambda_t >= 0 */
      for (PetscInt l = 0; l < kx; l++) Y1[l] = Y2[l] = mu * Yn[l];
      for (PetscInt c = 0; c < nh; c++) st->yc[c * ne + e + 1] = st->yc[c * ne + e + 2] = mu * st->yc[c * ne + e];
      VI_FLOQUET_ROW_FORCE(o + 1, Y1, st->yc + e + 1, -1.0);
      VI_FLOQUET_ROW_FORCE(o + 1, Y2, st->yc + e + 2, 1.0);
    } else if (code[j] >= VI_FLOQUET_SLIP_PLUS) { /* slipping against the force: -+ the slip velocity >= 0 */
      const PetscReal sg = code[j] == VI_FLOQUET_SLIP_PLUS ? -1 : 1;
      for (PetscInt i = 0; i < nm; i++) Y1[nm + i] = sg * st->Bq[(o + 1) * kx + i] * w->ws;
      for (PetscInt h = 1; h <= hb->H; h++) {
        st->yc[(2 * h - 1) * ne + e + 1] = sg * h * w->omega * st->bh[2 * h * nb + o + 1];
        st->yc[2 * h * ne + e + 1]       = -sg * h * w->omega * st->bh[(2 * h - 1) * nb + o + 1];
      }
      st->yc[e + 2] = 1;
    } else
      st->yc[e + 1] = st->yc[e + 2] = 1;
#undef VI_FLOQUET_ROW_FORCE
  }
  for (PetscInt e = 0; e < ne; e++)
    for (PetscInt c = 0; c < nh; c++)
      for (PetscInt i = 0; i < kx; i++) st->yc[c * ne + e] += st->Y[e * kx + i] * st->xp[c * kx + i];
  PetscCall(PetscMalloc1(ne, &st->used));
  st->nused = 0;
  for (PetscInt e = 0; e < ne; e++) {
    PetscBool one = (PetscBool)(st->yc[e] == 1);
    for (PetscInt c = 1; c < nh && one; c++) one = (PetscBool)(st->yc[c * ne + e] == 0);
    for (PetscInt i = 0; i < kx && one; i++) one = (PetscBool)(st->Y[e * kx + i] == 0);
    if (!one) st->used[st->nused++] = e;
  }
  PetscCall(PetscFree4(F, role, owner, stick));
  PetscCall(PetscFree6(KF, U, Krow, fr, Keff, P));
  PetscCall(PetscFree4(Minv, S, r, lam));
  if (!good) {
    PetscCall(PetscFree5(st->code, st->A, st->E, st->xp, st->Y));
    PetscCall(PetscFree3(st->yc, st->Bq, st->bh));
    PetscCall(PetscFree(st->used));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *s = w->nst++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = the event functions of state s at time t for x = xp_s(t) + z; phi the basis at t, or NULL */
static void VIFloquetEvents(VIHB hb, VIFloquetWork *w, PetscInt s, PetscReal t, const PetscReal *phi, const PetscReal z[], PetscReal y[])
{
  const VIFloquetState *st = &w->st[s];
  const PetscInt        ne = w->ne, kx = w->kx;

  if (!phi) {
    VIFloquetBasis(hb, w->omega, t, w->phi);
    phi = w->phi;
  }
  for (PetscInt e = 0; e < ne; e++) y[e] = 1;
  for (PetscInt u = 0; u < st->nused; u++) {
    const PetscInt e = st->used[u];
    PetscReal      v = 0;
    for (PetscInt c = 0; c < hb->nh; c++) v += st->yc[c * ne + e] * phi[c];
    for (PetscInt i = 0; i < kx; i++) v += st->Y[e * kx + i] * z[i];
    y[e] = v;
  }
}

/* x_T of the tangents that do not stick in state s follows the motion: x_T = q_t = Bq_t x + bh_t(t) (phi at t) */
static void VIFloquetFollow(VIHB hb, VIFloquetWork *w, PetscInt s, const PetscReal phi[], PetscReal x[])
{
  const VIFloquetState *st = &w->st[s];

  for (PetscInt j = 0; j < hb->nc; j++) {
    const PetscInt b = hb->offsets[j] + 1;
    PetscReal      v = 0;
    if (w->tan[j] < 0 || st->code[j] == VI_FLOQUET_CLOSED) continue;
    for (PetscInt c = 0; c < hb->nh; c++) v += st->bh[c * hb->nb + b] * phi[c];
    for (PetscInt l = 0; l < w->k2; l++) v += st->Bq[b * w->kx + l] * x[l];
    x[w->k2 + w->tan[j]] = v;
  }
}

/* The next state of contact j when its event e (0, 1, 2) crosses zero, or -1 (a frictional contact opening: not analysed) */
static PetscInt VIFloquetNext(VIFloquetWork *w, PetscInt j, char code, PetscInt e)
{
  if (w->tan[j] < 0) return code == VI_FLOQUET_OPEN ? VI_FLOQUET_CLOSED : VI_FLOQUET_OPEN;
  if (e == 0) return -1;
  if (code == VI_FLOQUET_CLOSED) return e == 1 ? VI_FLOQUET_SLIP_PLUS : VI_FLOQUET_SLIP_MINUS;
  return VI_FLOQUET_CLOSED;
}

/*
  The period map of the exact piecewise-linear motion: x(T) from x(0) = x0 (balanced coordinates), integrated with the
  exponentials of each state (xp plus exp(A t) on the rest), the contact switches located where an event function of the
  actual trajectory crosses zero (checked at ns sub-steps, the crossing by the Illinois method on the exact solution).
  The segments of constant state are left in w for the monodromy. *ok false when a state cannot be set up, the switches
  run away or a frictional contact would open.
*/
static PetscErrorCode VIFloquetPeriod(VIHB hb, VIFloquetWork *w, const PetscReal x0[], PetscReal xT[], PetscBool *ok)
{
  const PetscInt nc = hb->nc, nh = hb->nh, kx = w->kx, ne = w->ne;
  PetscReal     *z = w->u, *z1 = w->u + kx, *ze = w->u + 2 * kx, *y0 = w->y, *y1 = w->y + ne, t = 0, tseg = 0;
  PetscInt       s, nswitch = 0;
  PetscBLASInt   bk, one    = 1;

  PetscFunctionBeginUser;
  *ok     = PETSC_FALSE;
  w->nseg = 0;
  w->nperiods++;
  PetscCall(PetscBLASIntCast(kx, &bk));
  /* the state at t = 0: least-index pivoting on the events (the boundary's contact problem has a P-matrix), from the
     sample's state of the harmonic balance */
  for (PetscInt j = 0; j < nc; j++) w->code[j] = hb->d_t[j * hb->N] > 0 ? VI_FLOQUET_CLOSED : VI_FLOQUET_OPEN;
  for (PetscInt it = 0;; it++) {
    PetscInt bad = -1;
    PetscCall(VIFloquetGetState(hb, w, w->code, &s));
    if (s < 0 || it > 4 * ne + 4) PetscFunctionReturn(PETSC_SUCCESS);
    VIFloquetBasis(hb, w->omega, 0, w->phi);
    VIFloquetEval(nh, kx, kx, w->st[s].xp, w->phi, z);
    for (PetscInt i = 0; i < kx; i++) z[i] = x0[i] - z[i];
    VIFloquetEvents(hb, w, s, 0, NULL, z, y0);
    for (PetscInt e = 0; e < ne && bad < 0; e++)
      if (y0[e] < 0) bad = e;
    if (bad < 0) break;
    {
      const PetscInt next = VIFloquetNext(w, bad / 3, w->code[bad / 3], bad % 3);
      if (next < 0) PetscFunctionReturn(PETSC_SUCCESS);
      w->code[bad / 3] = (char)next;
    }
  }
  for (PetscInt k = 0; k < w->ns; k++) {
    const PetscReal t1    = k == w->ns - 1 ? w->T : (k + 1) * w->h;
    PetscBool       fresh = PETSC_TRUE; /* at the sub-step's start: exp(A h) applies */
    for (;;) {
      const VIFloquetState *st  = &w->st[s];
      const PetscInt        deg = st->deg;
      PetscReal             tau = 0, te, *pw = w->pw;
      PetscInt              eb = -1, next;

      if (fresh) {
        PetscReal a = 1, b = 0;
        PetscCallBLAS("BLASgemv", BLASgemv_("N", &bk, &bk, &a, st->E, &bk, z, &one, &b, z1, &one));
      } else
        PetscCall(VIFloquetExpVec(kx, st->A, t1 - t, z, z1, ze));
      VIFloquetEvents(hb, w, s, t1, w->basis + (k + 1) * nh, z1, y1);
      for (PetscInt e = 0; e < ne && eb < 0; e++)
        if (y1[e] < 0) eb = e;
      if (eb < 0) {
        PetscCall(PetscArraycpy(z, z1, kx));
        PetscCall(PetscArraycpy(y0, y1, ne));
        t = t1;
        break;
      }
      /* a crossing in (t, t1]: on the sub-step exp(A tau) z = sum_d tau^d / d! A^d z (|A h| small, st->deg terms), so the
         event functions are polynomials in tau plus the forced part; the earliest root by the Illinois method */
      PetscCall(PetscArraycpy(pw, z, kx));
      for (PetscInt d = 1; d <= deg; d++) {
        PetscReal a = 1.0 / d, b = 0;
        PetscCallBLAS("BLASgemv", BLASgemv_("N", &bk, &bk, &a, st->A, &bk, pw + (d - 1) * kx, &one, &b, pw + d * kx, &one));
      }
      eb = -1;
      for (PetscInt e = 0; e < ne; e++) {
        PetscReal a = 0, b = t1 - t, fa = y0[e], fb = y1[e], c = b, *cd = w->cd;
        PetscInt  side = 0;
        if (fb >= 0) continue;
        for (PetscInt d = 0; d <= deg; d++) {
          cd[d] = 0;
          for (PetscInt i = 0; i < kx; i++) cd[d] += st->Y[e * kx + i] * pw[d * kx + i];
        }
        if (fa <= 0)
          c = 0;
        else
          for (PetscInt it = 0; it < 200 && b - a > 4 * PETSC_MACHINE_EPSILON * w->T; it++) {
            PetscReal fc = 0;
            c            = (a * fb - b * fa) / (fb - fa);
            if (!(c > a && c < b)) c = (a + b) / 2;
            for (PetscInt d = deg; d >= 0; d--) fc = fc * c + cd[d];
            VIFloquetBasis(hb, w->omega, t + c, w->phi);
            for (PetscInt i = 0; i < nh; i++) fc += st->yc[i * ne + e] * w->phi[i];
            if (fc < 0) {
              b = c, fb = fc;
              if (side == -1) fa /= 2;
              side = -1;
            } else {
              a = c, fa = fc;
              if (side == 1) fb /= 2;
              side = 1;
            }
            c = b;
          }
        if (eb < 0 || c < tau) {
          tau = c;
          eb  = e;
        }
      }
      /* switch at te: x is continuous (the tangents that do not stick follow the motion up to te), the new state's
         forced response differs */
      te = t + tau;
      for (PetscInt i = 0; i < kx; i++) ze[i] = 0;
      for (PetscInt d = deg; d >= 0; d--)
        for (PetscInt i = 0; i < kx; i++) ze[i] = ze[i] * tau + pw[d * kx + i];
      VIFloquetBasis(hb, w->omega, te, w->phi);
      VIFloquetEval(nh, kx, kx, st->xp, w->phi, z1);
      for (PetscInt i = 0; i < kx; i++) ze[i] += z1[i];
      VIFloquetFollow(hb, w, s, w->phi, ze);
      next = VIFloquetNext(w, eb / 3, w->code[eb / 3], eb % 3);
      if (next < 0 || w->nseg == w->cap || ++nswitch > VI_FLOQUET_SWITCHES * nc) PetscFunctionReturn(PETSC_SUCCESS);
      w->seg_state[w->nseg] = s;
      w->seg_len[w->nseg++] = te - tseg;
      tseg                  = te;
      w->code[eb / 3]       = (char)next;
      PetscCall(VIFloquetGetState(hb, w, w->code, &s));
      if (s < 0) PetscFunctionReturn(PETSC_SUCCESS);
      VIFloquetEval(nh, kx, kx, w->st[s].xp, w->phi, z1);
      for (PetscInt i = 0; i < kx; i++) z[i] = ze[i] - z1[i];
      VIFloquetEvents(hb, w, s, te, NULL, z, y0);
      t     = te;
      fresh = PETSC_FALSE;
    }
  }
  if (w->nseg == w->cap) PetscFunctionReturn(PETSC_SUCCESS);
  w->seg_state[w->nseg] = s;
  w->seg_len[w->nseg++] = w->T - tseg;
  VIFloquetBasis(hb, w->omega, w->T, w->phi);
  VIFloquetEval(nh, kx, kx, w->st[s].xp, w->phi, xT);
  for (PetscInt i = 0; i < kx; i++) xT[i] += z[i];
  VIFloquetFollow(hb, w, s, w->phi, xT);
  *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |P - x| / |x| */
static PetscReal VIFloquetResidual(PetscInt k, const PetscReal x[], const PetscReal P[])
{
  PetscReal r = 0, s = 0;
  for (PetscInt i = 0; i < k; i++) {
    r += (P[i] - x[i]) * (P[i] - x[i]);
    s += x[i] * x[i];
  }
  return s > 0 ? PetscSqrtReal(r / s) : PetscSqrtReal(r);
}

/* |x - y|_E / |y|_E in the energy norm of the inner coordinates, |x|_E^2 = q^T K_II q + v^T M_II v */
static PetscReal VIFloquetDistance(VIHB hb, VIFloquetWork *w, const PetscReal x[], const PetscReal y[])
{
  const PetscInt n = hb->n, nb = hb->nb, nm = hb->nm;
  PetscReal      d = 0, e = 0;

  for (PetscInt i = 0; i < nm; i++)
    for (PetscInt l = 0; l < nm; l++) {
      const PetscReal k = hb->K[(nb + i) * n + nb + l], m = hb->Mass[(nb + i) * n + nb + l] * w->ws * w->ws;
      d += k * (x[i] - y[i]) * (x[l] - y[l]) + m * (x[nm + i] - y[nm + i]) * (x[nm + l] - y[nm + l]);
      e += k * y[i] * y[l] + m * y[nm + i] * y[nm + l];
    }
  return e > 0 ? PetscSqrtReal(PetscAbsReal(d / e)) : 0;
}

/* w->Mon = the derivative of the period map: the product of exp(A_s len) over the last period's segments (no saltation:
   the vector field is continuous across the switches of a massless boundary, contacts close and open at zero force,
   stick and slip exchange at the Coulomb limit and zero slip velocity), after each segment the rows of the tangents
   that did not stick replaced by their dependence on the motion, x_T = Bq_t x */
static PetscErrorCode VIFloquetMonodromy(VIHB hb, VIFloquetWork *w)
{
  const PetscInt kx = w->kx;
  PetscReal     *E = w->W, *T = w->W + kx * kx;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(w->Mon, kx * kx));
  for (PetscInt i = 0; i < kx; i++) w->Mon[i * kx + i] = 1;
  for (PetscInt g = 0; g < w->nseg; g++) {
    const VIFloquetState *st = &w->st[w->seg_state[g]];
    if (w->seg_len[g] > 0) {
      PetscCall(VIExpm(kx, st->A, w->seg_len[g], E));
      PetscCall(VIMatMul(kx, E, w->Mon, T));
      PetscCall(PetscArraycpy(w->Mon, T, kx * kx));
    }
    for (PetscInt j = 0; j < hb->nc; j++) {
      const PetscInt b = hb->offsets[j] + 1, row = w->k2 + w->tan[j];
      if (w->tan[j] < 0 || st->code[j] == VI_FLOQUET_CLOSED) continue;
      for (PetscInt c = 0; c < kx; c++) {
        PetscReal v = 0;
        for (PetscInt l = 0; l < w->k2; l++) v += st->Bq[b * kx + l] * w->Mon[c * kx + l];
        for (PetscInt l = w->k2; l < kx; l++) v += st->Bq[b * kx + l] * w->Mon[c * kx + l];
        T[c] = v;
      }
      for (PetscInt c = 0; c < kx; c++) w->Mon[c * kx + row] = T[c];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x <- the fixed point of the period map by Newton from x (the monodromy at it left in w->Mon) */
static PetscErrorCode VIFloquetShoot(VIHB hb, VIFloquetWork *w, PetscReal x[], PetscBool *converged)
{
  const PetscInt kx = w->kx;
  PetscReal     *P = w->W + 2 * kx * kx, *xn = P + kx, *Pn = xn + kx, *r = Pn + kx, *sv = r + kx, *lwork = sv + kx, *J = w->W;
  PetscReal      hist[VI_FLOQUET_STALL], rcond = 1e-12;
  PetscBool      ok;
  PetscBLASInt   bk, one = 1, info, rank, bl;

  PetscFunctionBeginUser;
  *converged = PETSC_FALSE;
  PetscCall(PetscBLASIntCast(kx, &bk));
  PetscCall(PetscBLASIntCast(8 * kx, &bl));
  PetscCall(VIFloquetPeriod(hb, w, x, P, &ok));
  for (PetscInt it = 0; ok && it < VI_FLOQUET_MAX_IT; it++) {
    const PetscReal rnorm  = VIFloquetResidual(kx, x, P);
    PetscReal       lambda = 1;
    PetscBool       newton = PETSC_FALSE;

    hist[it % VI_FLOQUET_STALL] = rnorm;
    if (it >= VI_FLOQUET_STALL && rnorm > 0.5 * hist[(it + 1) % VI_FLOQUET_STALL]) break; /* stalled: no orbit near */
    PetscCall(VIFloquetMonodromy(hb, w));
    PetscCall(PetscInfo(NULL, "hb: %g Hz shooting iteration %" PetscInt_FMT ", |P(x) - x| / |x| = %g, %" PetscInt_FMT " segments\n",
                        (double)(w->omega / (2 * PETSC_PI)), it, (double)rnorm, w->nseg));
    if (rnorm <= VI_FLOQUET_SHOOT_TOL) {
      *converged = PETSC_TRUE;
      break;
    }
    /* Newton: (Mon - I) dx = -(P(x) - x) in the least-squares sense of the smallest step (a contact that sticks over
       the whole period has the multiplier 1: its stick position is free), backtracking on the residual; where it fails
       (the switching pattern changes between the iterates) one period of the motion instead, x <- P(x), which
       approaches a stable orbit */
    PetscCall(PetscArraycpy(J, w->Mon, kx * kx));
    for (PetscInt i = 0; i < kx; i++) {
      J[i * kx + i] -= 1;
      r[i] = x[i] - P[i];
    }
    PetscCallBLAS("LAPACKgelss", LAPACKgelss_(&bk, &bk, &one, J, &bk, r, &bk, sv, &rcond, &rank, lwork, &bl, &info));
    for (; !info && lambda > 0.1; lambda /= 2) {
      for (PetscInt i = 0; i < kx; i++) xn[i] = x[i] + lambda * r[i];
      PetscCall(VIFloquetPeriod(hb, w, xn, Pn, &ok));
      if (ok && VIFloquetResidual(kx, xn, Pn) < rnorm) {
        newton = PETSC_TRUE;
        break;
      }
    }
    if (!newton) {
      PetscCall(PetscArraycpy(xn, P, kx));
      PetscCall(VIFloquetPeriod(hb, w, xn, Pn, &ok));
    }
    PetscCall(PetscArraycpy(x, xn, kx));
    PetscCall(PetscArraycpy(P, Pn, kx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the exact motion started from a harmonic balance solution does (VIFloquetMotion). */
typedef enum { VI_MOTION_UNDECIDED, VI_MOTION_LEAVES, VI_MOTION_ORBIT, VI_MOTION_STAYS } VIFloquetMotionOutcome;

/*
  Where the shooting found no periodic orbit near the harmonic balance state xh: the exact motion itself from xh, period
  after period, up to VI_FLOQUET_DEPART_PERIODS. It leaves the solution (VI_MOTION_LEAVES: its distance to xh in the
  energy norm grows past VI_FLOQUET_NEAR, the test the shooting's orbits must pass; *rate is the mean growth per period
  of that distance from the first period on); or it settles, and each time its change over a period has fallen below
  VI_FLOQUET_SETTLE (then 100 times less) of the state the shooting starts from it (VI_MOTION_ORBIT: an orbit within
  VI_FLOQUET_NEAR of xh, returned in x with its monodromy in w->Mon); or it stays within VI_FLOQUET_NEAR of xh to the
  last period, its change over a period still shrinking (VI_MOTION_STAYS: attracted to the solution's neighbourhood, as
  near a turning point where the orbit's largest multiplier is close to 1 and Newton on the period map is singular;
  *rate is the mean contraction per period over the second half). Beyond the exact motion's turning point the
  truncated series still has solutions that the motion has not: there the motion passes the solution (the ghost of the
  fold) and drops to the other branch, so the point is not realised (unstable).
*/
static PetscErrorCode VIFloquetMotion(VIHB hb, VIFloquetWork *w, const PetscReal xh[], PetscReal x[], VIFloquetMotionOutcome *outcome,
                                      PetscReal *rate, PetscInt *periods)
{
  const PetscInt kx = w->kx, K = VI_FLOQUET_DEPART_PERIODS;
  PetscReal     *P, *xs, *d, first = 0, shoot_at = VI_FLOQUET_SETTLE;
  PetscBool      ok = PETSC_TRUE;
  PetscInt       k;

  PetscFunctionBeginUser;
  *outcome = VI_MOTION_UNDECIDED;
  *rate    = -1;
  PetscCall(PetscMalloc3(kx, &P, kx, &xs, K + 1, &d));
  PetscCall(PetscArraycpy(x, xh, kx));
  for (k = 1; k <= K; k++) {
    PetscReal e;
    PetscCall(VIFloquetPeriod(hb, w, x, P, &ok));
    if (!ok) break;
    e    = VIFloquetDistance(hb, w, P, xh);
    d[k] = VIFloquetDistance(hb, w, P, x);
    PetscCall(PetscArraycpy(x, P, kx));
    if (k == 1) first = e;
    if (e > VI_FLOQUET_NEAR) {
      *outcome = VI_MOTION_LEAVES;
      *rate    = k > 1 && first > 0 ? PetscPowReal(e / first, 1.0 / (k - 1)) : e / PetscMax(first, PETSC_SMALL);
      break;
    }
    if (d[k] <= shoot_at) {
      PetscBool conv;
      PetscCall(PetscArraycpy(xs, x, kx));
      PetscCall(VIFloquetShoot(hb, w, xs, &conv));
      if (conv && w->nseg >= 2 && VIFloquetDistance(hb, w, xs, xh) <= VI_FLOQUET_NEAR) {
        *outcome = VI_MOTION_ORBIT;
        PetscCall(PetscArraycpy(x, xs, kx));
        break;
      }
      shoot_at = d[k] / 100;
    }
  }
  if (k > K && d[K] < d[K / 2]) {
    *outcome = VI_MOTION_STAYS;
    *rate    = PetscPowReal(d[K] / d[K / 2], 1.0 / (K - K / 2));
  }
  *periods = PetscMin(k, K);
  PetscCall(PetscFree3(P, xs, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Floquet multipliers of the periodic motion that the harmonic balance solution approximates (massless boundary,
  M_bb = M_bi = D_bb = D_bi = 0: the boundary follows the inner coordinates statically). The motion is piecewise linear:
  while contact j is closed its normal coordinate is held (q_o = -g0), while it is open its force is -p, and the
  boundary rows left free are condensed, M_II q'' + D_II q' + K_eff q = P(t); a frictional 2D contact that stays closed
  sticks (its tangential coordinate held where it stuck, a memory added to the state) or slips (its row carries
  lambda_t = +-mu (p + lambda_n), linear in the motion). The truncated series of the harmonic balance does not carry
  the contact's pattern (the DLFT samples smooth an impact with its rebounds, milliseconds of high modes, into one closed
  interval), and the multipliers depend on the closed durations: so the periodic orbit of the exact piecewise-linear
  motion is found first, by Newton on its period map (shooting) from the harmonic balance state at t = 0, and the
  monodromy matrix is the product of the exponentials over its segments of constant contact state. The vector field is
  continuous across every switch, so there is no saltation and that product is the exact derivative of the period map.
  Where the shooting finds no periodic orbit of the exact motion near the harmonic balance solution, the exact motion
  from it decides (VIFloquetMotion: it leaves the solution, unstable, or stays near it, stable; *method
  VI_HB_STABILITY_MOTION), undecided (*stable -1) where it does neither. Not modelled (*modelled false: the caller uses
  the time stepping's transient) with a mass-carrying boundary, 3D frictional contacts and frictional contacts that open.
*/
PetscErrorCode VIHBFloquet(VIHB hb, PetscReal omega, PetscReal *mu_max, PetscReal *arg, PetscInt *stable, VIHBStabilityMethod *method,
                           PetscBool *modelled)
{
  const PetscInt n = hb->n, nb = hb->nb, nm = hb->nm, N = hb->N, nc = hb->nc, nh = hb->nh, k2 = 2 * nm;
  PetscInt       kx = k2;
  PetscReal     *x, *xh, *wr, *wi, *work, *J;
  PetscBool      switches = PETSC_FALSE, converged = PETSC_FALSE;
  PetscBLASInt   bk, info, lwork, one = 1;
  VIFloquetWork  w;

  PetscFunctionBeginUser;
  *mu_max   = -1;
  *arg      = -1;
  *stable   = -1;
  *method   = VI_HB_STABILITY_NONE;
  *modelled = PETSC_FALSE;
  if (!hb->massless || nm == 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt j = 0; j < n; j++)
      if (hb->D[i * n + j] != 0 || hb->Mass[i * n + j] != 0) PetscFunctionReturn(PETSC_SUCCESS);
  /* friction: 2D contacts (one tangent) that stay closed over the period; the round disk (a slip direction that turns)
     and the closing of a frictional contact (where the Coulomb radius starts from zero) are not modelled */
  for (PetscInt j = 0; j < nc; j++) {
    if (!(hb->mu && hb->mu[j] > 0 && hb->dims[j] > 1)) continue;
    if (hb->dims[j] > 2) PetscFunctionReturn(PETSC_SUCCESS);
    for (PetscInt k = 0; k < N; k++)
      if (!(hb->d_t[j * N + k] > 0)) PetscFunctionReturn(PETSC_SUCCESS);
  }
  *modelled = PETSC_TRUE;
  for (PetscInt j = 0; j < nc; j++)
    for (PetscInt k = 0; k < N; k++)
      if (hb->d_t[j * N + k] != hb->d_t[j * N] || hb->slip_t[j * N + k] != hb->slip_t[j * N]) switches = PETSC_TRUE;
  PetscCall(PetscMemzero(&w, sizeof(w)));
  PetscCall(PetscMalloc1(nc + 1, &w.tan));
  for (PetscInt j = 0; j < nc; j++) w.tan[j] = hb->mu && hb->mu[j] > 0 && hb->dims[j] == 2 ? kx++ - k2 : -1;
  w.k2    = k2;
  w.kx    = kx;
  w.ne    = 3 * nc;
  w.omega = omega;
  w.T     = 2 * PETSC_PI / omega;
  w.cap   = VI_FLOQUET_SWITCHES * nc + 2;
  /* velocities scaled by ws, the square root of a bound of the largest eigenvalue of M_II^-1 K_II over every state
     (holding a coordinate only stiffens): the first-order matrices are balanced, |A| ~ 2 ws, and the sub-steps, ns with
     |A| h <= 1, resolve the highest mode (a closed or open interval shorter than a sub-step is not seen) */
  {
    PetscReal   *Mi, *Ki, norm = 0, dnorm = 0;
    PetscBLASInt bn, nr;
    PetscCall(PetscMalloc2(nm * nm, &Mi, 2 * nm * nm, &Ki));
    PetscCall(PetscMalloc1(PetscMax(kx, nb) + 1, &w.piv));
    for (PetscInt i = 0; i < nm; i++)
      for (PetscInt l = 0; l < nm; l++) {
        Mi[l * nm + i]        = hb->Mass[(nb + i) * n + nb + l];
        Ki[l * nm + i]        = hb->K[(nb + i) * n + nb + l];
        Ki[(nm + l) * nm + i] = hb->D[(nb + i) * n + nb + l];
      }
    PetscCall(PetscBLASIntCast(nm, &bn));
    nr = 2 * bn;
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bn, &nr, Mi, &bn, w.piv, Ki, &bn, &info));
    PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: singular inner mass matrix in the stability analysis");
    for (PetscInt l = 0; l < nm; l++) {
      PetscReal c = 0, d = 0;
      for (PetscInt i = 0; i < nm; i++) {
        c += PetscAbsReal(Ki[l * nm + i]);
        d += PetscAbsReal(Ki[(nm + l) * nm + i]);
      }
      norm  = PetscMax(norm, c);
      dnorm = PetscMax(dnorm, d);
    }
    w.ws = PetscSqrtReal(norm) > 0 ? PetscSqrtReal(norm) : omega;
    w.ns = PetscMax(N, (PetscInt)PetscCeilReal(w.T * (2 * w.ws + dnorm)));
    w.h  = w.T / w.ns;
    PetscCall(PetscMalloc1((w.ns + 1) * nh, &w.basis));
    for (PetscInt k = 0; k <= w.ns; k++) VIFloquetBasis(hb, omega, k == w.ns ? w.T : k * w.h, w.basis + k * nh);
    PetscCall(PetscInfo(NULL, "hb: stability: %" PetscInt_FMT " sub-steps per period, velocity scale %g rad/s\n", w.ns, (double)w.ws));
    PetscCall(PetscFree2(Mi, Ki));
  }
  PetscCall(PetscMalloc6(w.cap, &w.seg_state, w.cap, &w.seg_len, nh, &w.phi, 8 * kx, &w.u, 3 * w.ne + 1, &w.y, kx * kx, &w.Mon));
  PetscCall(PetscMalloc4(2 * kx * kx + 16 * kx, &w.W, nc + 1, &w.code, (VI_FLOQUET_DEG_MAX + 1) * kx, &w.pw, VI_FLOQUET_DEG_MAX + 1, &w.cd));
  PetscCall(PetscMalloc3(kx, &x, kx, &xh, kx * kx, &J));
  PetscCall(PetscMalloc3(kx, &wr, kx, &wi, 8 * kx, &work));
  PetscCall(PetscBLASIntCast(kx, &bk));
  if (!switches) {
    /* one state over the whole period (every contact open, or closed and sticking, throughout): the monodromy matrix
       is exp(A T), whose eigenvalues are exp(lambda T) for the eigenvalues lambda of A: those of A are computed instead
       (a sticking contact's memory gives lambda = 0, the multiplier 1: its stick position is free) */
    PetscInt s;
    for (PetscInt j = 0; j < nc; j++) w.code[j] = hb->d_t[j * N] > 0 ? VI_FLOQUET_CLOSED : VI_FLOQUET_OPEN;
    PetscCall(VIFloquetGetState(hb, &w, w.code, &s));
    if (s >= 0) {
      PetscCall(PetscArraycpy(J, w.st[s].A, kx * kx));
      converged = PETSC_TRUE;
    }
  } else {
    /* the harmonic balance state at t = 0 (q, v / ws of the inner coordinates, the frictional tangents' positions) */
    PetscCall(VIHBRecover(hb, hb->X, hb->q));
    for (PetscInt i = 0; i < nm; i++) {
      xh[i]      = hb->q[nb + i];
      xh[nm + i] = 0;
      for (PetscInt h = 1; h <= hb->H; h++) {
        xh[i] += hb->q[(2 * h - 1) * n + nb + i];
        xh[nm + i] += h * omega * hb->q[2 * h * n + nb + i] / w.ws;
      }
    }
    for (PetscInt j = 0; j < nc; j++) {
      const PetscInt b = hb->offsets[j] + 1;
      if (w.tan[j] < 0) continue;
      xh[k2 + w.tan[j]] = hb->q[b];
      for (PetscInt h = 1; h <= hb->H; h++) xh[k2 + w.tan[j]] += hb->q[(2 * h - 1) * n + b];
    }
    /* shooting from the orbit of the previous point of the branch (closer to the next exact orbit than the truncated
       series, which lacks the high modes of the impacts), else from the harmonic balance state; the orbit found must be
       the one the harmonic balance approximates: with contact switches, and within VI_FLOQUET_NEAR in the energy norm
       of its start (the previous orbit: the exact branch followed by continuity; or the harmonic balance state). Past a
       turning point the previous orbit may lead to another exact orbit that still exists at the new frequency (the
       stable branch next to an unstable overhang): where the orbit found from it is farther from the harmonic balance
       state than VI_FLOQUET_JUMP times the previous point's orbit was from its own (plus VI_FLOQUET_JUMP_ABS), the
       harmonic balance state is shot from too, and the orbit nearer to it is taken. */
    {
      PetscReal best = PETSC_MAX_REAL;
      for (PetscInt start = hb->have_orbit ? 0 : 1; start < 2; start++) {
        PetscReal dist, dist_hb;
        PetscBool conv;
        PetscCall(PetscArraycpy(x, start ? xh : hb->orbit, kx));
        PetscCall(VIFloquetShoot(hb, &w, x, &conv));
        if (!conv) continue;
        dist    = VIFloquetDistance(hb, &w, x, start ? xh : hb->orbit);
        dist_hb = start ? dist : VIFloquetDistance(hb, &w, x, xh);
        PetscCall(PetscInfo(NULL, "hb: %g Hz: orbit with %" PetscInt_FMT " segments at %g of %s, %g of the harmonic balance state (energy norm)\n",
                            (double)(omega / (2 * PETSC_PI)), w.nseg, (double)dist,
                            start ? "the harmonic balance state" : "the previous point's orbit", (double)dist_hb));
        if (w.nseg < 2 || dist > VI_FLOQUET_NEAR || dist_hb >= best) continue;
        converged = PETSC_TRUE;
        best      = dist_hb;
        PetscCall(PetscArraycpy(J, w.Mon, kx * kx));
        if (!hb->orbit) PetscCall(PetscMalloc1(kx, &hb->orbit));
        hb->orbit_len = kx;
        PetscCall(PetscArraycpy(hb->orbit, x, kx));
        if (dist_hb <= VI_FLOQUET_JUMP * hb->orbit_dist + VI_FLOQUET_JUMP_ABS) break;
      }
      hb->orbit_dist = best;
    }
    if (!converged) {
      /* no orbit found near: the motion itself from the harmonic balance state, which leaves it (no orbit near, the
         point is not realised), settles near an orbit the shooting then finds, or stays near it */
      VIFloquetMotionOutcome outcome;
      PetscReal              rate;
      PetscInt               periods;
      const char *what[] = {"neither leaves nor settles near it: stability not computed", "leaves it (no orbit near)", "settles on an orbit near it",
                            "stays near it, contracting"};
      PetscCall(VIFloquetMotion(hb, &w, xh, x, &outcome, &rate, &periods));
      PetscCall(PetscInfo(
          NULL,
          "hb: %g Hz: no periodic orbit found near the harmonic balance solution by shooting; the exact motion from it %s after %" PetscInt_FMT
          " periods (rate per period %g)\n",
          (double)(omega / (2 * PETSC_PI)), what[outcome], periods, (double)rate));
      if (outcome == VI_MOTION_ORBIT) {
        converged = PETSC_TRUE;
        PetscCall(PetscArraycpy(J, w.Mon, kx * kx));
        if (!hb->orbit) PetscCall(PetscMalloc1(kx, &hb->orbit));
        hb->orbit_len = kx;
        PetscCall(PetscArraycpy(hb->orbit, x, kx));
        hb->orbit_dist = VIFloquetDistance(hb, &w, x, xh);
      } else if (outcome != VI_MOTION_UNDECIDED) {
        *mu_max = rate;
        *stable = outcome == VI_MOTION_STAYS;
        *method = VI_HB_STABILITY_MOTION;
      }
    }
    hb->have_orbit = converged;
    PetscCall(PetscInfo(NULL, "hb: %g Hz: %" PetscInt_FMT " periods integrated, %" PetscInt_FMT " contact states\n", (double)(omega / (2 * PETSC_PI)),
                        w.nperiods, w.nst));
  }
  if (converged) {
    PetscCall(PetscBLASIntCast(8 * kx, &lwork));
    PetscCallBLAS("LAPACKgeev", LAPACKgeev_("N", "N", &bk, J, &bk, wr, wi, NULL, &one, NULL, &one, work, &lwork, &info));
    PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: the eigenvalues of the monodromy matrix failed (LAPACK info %d)", (int)info);
    /* the dominant multiplier's modulus and argument in [0, pi] (0: real positive, as at a fold; pi: real negative, a
       period doubling; between: a complex pair); exp(lambda T) has the argument Im(lambda) T */
    for (PetscInt i = 0; i < kx; i++) {
      const PetscReal m  = switches ? PetscSqrtReal(wr[i] * wr[i] + wi[i] * wi[i]) : PetscExpReal(wr[i] * w.T);
      PetscReal       th = switches ? PetscAtan2Real(wi[i], wr[i]) : PetscFmodReal(wi[i] * w.T, 2 * PETSC_PI);
      if (th > PETSC_PI) th -= 2 * PETSC_PI;
      if (th < -PETSC_PI) th += 2 * PETSC_PI;
      if (m > *mu_max) {
        *mu_max = m;
        *arg    = PetscAbsReal(th);
      }
    }
    *stable = *mu_max <= 1 + VI_FLOQUET_STABLE_TOL;
    *method = VI_HB_STABILITY_FLOQUET;
  }
  for (PetscInt s = 0; s < w.nst; s++) {
    PetscCall(PetscFree5(w.st[s].code, w.st[s].A, w.st[s].E, w.st[s].xp, w.st[s].Y));
    PetscCall(PetscFree3(w.st[s].yc, w.st[s].Bq, w.st[s].bh));
    PetscCall(PetscFree(w.st[s].used));
  }
  PetscCall(PetscFree6(w.seg_state, w.seg_len, w.phi, w.u, w.y, w.Mon));
  PetscCall(PetscFree4(w.W, w.code, w.pw, w.cd));
  PetscCall(PetscFree(w.basis));
  PetscCall(PetscFree(w.piv));
  PetscCall(PetscFree(w.tan));
  PetscCall(PetscFree3(x, xh, J));
  PetscCall(PetscFree3(wr, wi, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}
