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

/* E = exp(A tau) by scaling and squaring of a degree-13 Taylor series (scaled norm <= 1/4: truncation below 1e-19). */
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
  for (PetscInt i = 0; i < k * k; i++) B[i] = A[i] * tau / PetscPowRealInt(2.0, s);
  /* Horner: E = I + B (I + B/2 (I + B/3 (...))) */
  for (PetscInt i = 0; i < k * k; i++) E[i] = 0;
  for (PetscInt i = 0; i < k; i++) E[i * k + i] = 1;
  for (PetscInt d = 13; d >= 1; d--) {
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

/* Most contact states (closed sets) one analysis keeps, Newton iterations of the shooting, contact switches per period per
   contact, degree of the Taylor series of exp(A tau) v within a sub-step (|A tau| <= 1: truncation below 1e-19). */
#define VI_FLOQUET_STATES    64
#define VI_FLOQUET_MAX_IT    15
#define VI_FLOQUET_SWITCHES  64
#define VI_FLOQUET_TAYLOR    20
#define VI_FLOQUET_SHOOT_TOL 1e-10
#define VI_FLOQUET_DEG_MAX   60
#define VI_FLOQUET_NEAR      0.5
#define VI_FLOQUET_STALL     5

/*
  One contact state of the piecewise-linear motion with a massless boundary (the closed contacts' normal coordinates held,
  the other boundary rows condensed), in the balanced first-order coordinates x = (q_I, v_I / ws): x' = A x + b(t) with
  b a Fourier series of H harmonics (the case's force and imposed gaps); its periodic forced response xp (harmonics), exp(A h)
  of a sub-step, and per contact the event function y_j = Y_j x + yc_j(t) that stays >= 0 in this state: the gap of an
  open contact, the total normal force p + lambda of a closed one.
*/
typedef struct {
  char      *closed; /* nc */
  PetscReal *A, *E;  /* k2 x k2, column-major */
  PetscReal *xp;     /* nh x k2: harmonic c of xp at c * k2 */
  PetscReal *Y;      /* k2 x nc, column-major: Y_j at j * k2 (the velocity part is zero) */
  PetscReal *yc;     /* nh x nc: harmonic c of y_j - Y_j (x - xp), i.e. of y_j on xp, at c * nc + j */
  PetscInt   deg;    /* terms of the Taylor series of exp(A tau), tau <= h, for a relative truncation below 1e-17 */
} VIFloquetState;

/* Work space of the stability analysis: the states met, the last period's segments of constant state, scratch. */
typedef struct {
  PetscInt       k2, ns, nst, nseg, cap, nperiods;
  PetscReal      ws, T, h, omega;
  VIFloquetState st[VI_FLOQUET_STATES];
  PetscInt      *seg_state;
  PetscReal     *seg_len, *phi, *u, *y, *Mon, *W, *pw, *cd, *basis; /* basis: phi at the ns + 1 sub-step ends */
  char          *closed;
  PetscBLASInt  *piv;
} VIFloquetWork;

/* phi_c(Omega t), c < nh: 1, cos, sin, cos 2, ... (the order of the coefficients) */
static void VIFloquetBasis(VIHB hb, PetscReal omega, PetscReal t, PetscReal phi[])
{
  phi[0] = 1;
  for (PetscInt h = 1; h <= hb->H; h++) {
    phi[2 * h - 1] = PetscCosReal(h * omega * t);
    phi[2 * h]     = PetscSinReal(h * omega * t);
  }
}

/* y = sum_c coef[c * ld + i] phi_c for i < m */
static void VIFloquetEval(PetscInt nh, PetscInt m, PetscInt ld, const PetscReal coef[], const PetscReal phi[], PetscReal y[])
{
  for (PetscInt i = 0; i < m; i++) y[i] = 0;
  for (PetscInt c = 0; c < nh; c++)
    for (PetscInt i = 0; i < m; i++) y[i] += coef[c * ld + i] * phi[c];
}

/* u = exp(A tau) v by the Taylor series on the vector, in pieces of |A tau| <= 1 */
static PetscErrorCode VIFloquetExpVec(PetscInt k, const PetscReal A[], PetscReal tau, const PetscReal v[], PetscReal u[], PetscReal work[])
{
  PetscReal norm = 0, *term = work, *next = work + k;
  PetscInt  pieces;

  PetscFunctionBeginUser;
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
      for (PetscInt i = 0; i < k; i++) next[i] = 0;
      for (PetscInt j = 0; j < k; j++)
        for (PetscInt i = 0; i < k; i++) next[i] += A[j * k + i] * term[j];
      for (PetscInt i = 0; i < k; i++) {
        term[i] = next[i] * tau / pieces / d;
        u[i] += term[i];
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The state of closed set `closed` (set up on first use); *s its index, -1 when the cache is full. */
static PetscErrorCode VIFloquetGetState(VIHB hb, VIFloquetWork *w, const char closed[], PetscInt *s)
{
  const PetscInt   n = hb->n, nb = hb->nb, nm = hb->nm, nc = hb->nc, nh = hb->nh, k2 = w->k2;
  const PetscReal *K = hb->K;
  VIFloquetState  *st;
  PetscInt         nf = 0, *F, *rowF, nrhs = nm + nh;
  PetscReal       *KF, *U, *Keff, *P, *Minv, *S, *r;
  PetscBool        good = PETSC_TRUE;
  PetscBLASInt     bf, bn, brhs, one = 1, info;

  PetscFunctionBeginUser;
  for (*s = 0; *s < w->nst; (*s)++) {
    PetscInt j = 0;
    while (j < nc && w->st[*s].closed[j] == closed[j]) j++;
    if (j == nc) PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (w->nst == VI_FLOQUET_STATES) {
    *s = -1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  st = &w->st[w->nst];
  PetscCall(PetscMalloc5(nc, &st->closed, k2 * k2, &st->A, k2 * k2, &st->E, nh * k2, &st->xp, k2 * nc, &st->Y));
  PetscCall(PetscMalloc1(nh * nc, &st->yc));
  PetscCall(PetscArraycpy(st->closed, closed, nc));
  PetscCall(PetscMalloc2(nb, &F, nb, &rowF));
  for (PetscInt i = 0; i < nb; i++) rowF[i] = -1;
  for (PetscInt i = 0; i < nb; i++) {
    PetscBool held = PETSC_FALSE;
    for (PetscInt j = 0; j < nc; j++)
      if (hb->offsets[j] == i && closed[j]) held = PETSC_TRUE;
    if (!held) {
      rowF[i] = nf;
      F[nf++] = i;
    }
  }
  PetscCall(PetscMalloc6(nf * nf + 1, &KF, nf * nrhs + 1, &U, nm * nm, &Keff, nm * nh, &P, nm * nm, &Minv, 4 * nm * nm, &S));
  PetscCall(PetscMalloc1(2 * nm * (2 * nm + 2), &r));
  /* the free boundary rows: K_FF q_F = f_F + l_F - K_FC q_C - K_FI q_I with q_C = -g0_C (held closed) and l_F = -p on
     open contacts (the time stepping's law: an open contact carries lambda = -p); U = K_FF^-1 [K_FI, w_F] */
  for (PetscInt a = 0; a < nf; a++) {
    for (PetscInt b = 0; b < nf; b++) KF[b * nf + a] = K[F[a] * n + F[b]];
    for (PetscInt i = 0; i < nm; i++) U[i * nf + a] = K[F[a] * n + nb + i];
    for (PetscInt c = 0; c < nh; c++) U[(nm + c) * nf + a] = hb->F[c * n + F[a]];
  }
  for (PetscInt j = 0; j < nc; j++) {
    const PetscInt o = hb->offsets[j];
    if (closed[j])
      for (PetscInt a = 0; a < nf; a++)
        for (PetscInt c = 0; c < nh; c++) U[(nm + c) * nf + a] += K[F[a] * n + o] * hb->G0[c * nc + j];
    else if (hb->preload)
      U[nm * nf + rowF[o]] -= hb->preload[j];
  }
  if (nf) {
    PetscCall(PetscBLASIntCast(nf, &bf));
    PetscCall(PetscBLASIntCast(nrhs, &brhs));
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bf, &brhs, KF, &bf, w->piv, U, &bf, &info));
    PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: singular boundary stiffness in the stability analysis");
  }
  /* inner: M q'' + D q' + K_eff q = P(t), K_eff = K_II - K_IF U_FI, P = f_I + K_IC g0_C - K_IF U_Fw */
  for (PetscInt i = 0; i < nm; i++) {
    for (PetscInt l = 0; l < nm; l++) {
      PetscReal v = K[(nb + i) * n + nb + l];
      for (PetscInt a = 0; a < nf; a++) v -= K[(nb + i) * n + F[a]] * U[l * nf + a];
      Keff[l * nm + i] = v;
    }
    for (PetscInt c = 0; c < nh; c++) {
      PetscReal v = hb->F[c * n + nb + i];
      for (PetscInt a = 0; a < nf; a++) v -= K[(nb + i) * n + F[a]] * U[(nm + c) * nf + a];
      for (PetscInt j = 0; j < nc; j++)
        if (closed[j]) v += K[(nb + i) * n + hb->offsets[j]] * hb->G0[c * nc + j];
      P[c * nm + i] = v;
    }
  }
  /* A = [0, ws I; -M^-1 K_eff / ws, -M^-1 D] */
  for (PetscInt i = 0; i < nm; i++)
    for (PetscInt l = 0; l < nm; l++) {
      Minv[l * nm + i]     = hb->Mass[(nb + i) * n + nb + l];
      S[l * nm + i]        = Keff[l * nm + i];
      S[(nm + l) * nm + i] = hb->D[(nb + i) * n + nb + l];
    }
  PetscCall(PetscBLASIntCast(nm, &bn));
  {
    PetscBLASInt nr = 2 * bn;
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bn, &nr, Minv, &bn, w->piv, S, &bn, &info));
    PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: singular inner mass matrix in the stability analysis");
  }
  PetscCall(PetscArrayzero(st->A, k2 * k2));
  for (PetscInt l = 0; l < nm; l++) {
    st->A[(nm + l) * k2 + l] = w->ws;
    for (PetscInt i = 0; i < nm; i++) {
      st->A[l * k2 + nm + i]        = -S[l * nm + i] / w->ws;
      st->A[(nm + l) * k2 + nm + i] = -S[(nm + l) * nm + i];
    }
  }
  PetscCall(VIExpm(k2, st->A, w->h, st->E));
  {
    PetscReal norm = 0, term = 1;
    for (PetscInt l = 0; l < k2; l++) {
      PetscReal c = 0;
      for (PetscInt i = 0; i < k2; i++) c += PetscAbsReal(st->A[l * k2 + i]);
      norm = PetscMax(norm, c * w->h);
    }
    for (st->deg = 1; st->deg < VI_FLOQUET_DEG_MAX; st->deg++) {
      term *= norm / st->deg;
      if (term < 1e-17 && st->deg >= 4) break;
    }
  }
  /* the periodic forced response, harmonic by harmonic: K_eff a0 = P0; for x = a cos + b sin at w = h Omega,
     [K_eff - w^2 M, w D; -w D, K_eff - w^2 M] [a; b] = [P_a; P_b] (seed 000 Eq. A.2 with the state's K_eff) */
  PetscCall(PetscArrayzero(st->xp, nh * k2));
  for (PetscInt h = 0; h <= hb->H; h++) {
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
        st->xp[(2 * h - 1) * k2 + i]      = a;
        st->xp[2 * h * k2 + i]            = b;
        st->xp[(2 * h - 1) * k2 + nm + i] = wh * b / w->ws; /* d/dt (a cos + b sin) */
        st->xp[2 * h * k2 + nm + i]       = -wh * a / w->ws;
      }
    }
  }
  /* events: gap of an open contact, q_o + g0 = U_ow - U_oI q_I + g0; total force of a closed one, p + lambda with
     lambda = K_oI q_I + K_oF q_F + K_oC q_C - f_o (the row of Eq. 2 with the boundary's mass zero) */
  PetscCall(PetscArrayzero(st->Y, k2 * nc));
  for (PetscInt j = 0; j < nc; j++) {
    const PetscInt o = hb->offsets[j];
    for (PetscInt c = 0; c < nh; c++) {
      PetscReal v;
      if (!closed[j])
        v = U[(nm + c) * nf + rowF[o]] + hb->G0[c * nc + j];
      else {
        v = -hb->F[c * n + o] + (c == 0 && hb->preload ? hb->preload[j] : 0);
        for (PetscInt a = 0; a < nf; a++) v += K[o * n + F[a]] * U[(nm + c) * nf + a];
        for (PetscInt jj = 0; jj < nc; jj++)
          if (closed[jj]) v -= K[o * n + hb->offsets[jj]] * hb->G0[c * nc + jj];
      }
      st->yc[c * nc + j] = v;
    }
    for (PetscInt i = 0; i < nm; i++) {
      PetscReal v;
      if (!closed[j])
        v = -U[i * nf + rowF[o]];
      else {
        v = K[o * n + nb + i];
        for (PetscInt a = 0; a < nf; a++) v -= K[o * n + F[a]] * U[i * nf + a];
      }
      st->Y[j * k2 + i] = v;
    }
    for (PetscInt c = 0; c < nh; c++)
      for (PetscInt i = 0; i < nm; i++) st->yc[c * nc + j] += st->Y[j * k2 + i] * st->xp[c * k2 + i];
  }
  PetscCall(PetscFree2(F, rowF));
  PetscCall(PetscFree6(KF, U, Keff, P, Minv, S));
  PetscCall(PetscFree(r));
  if (!good) {
    PetscCall(PetscFree5(st->closed, st->A, st->E, st->xp, st->Y));
    PetscCall(PetscFree(st->yc));
    *s = -1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *s = w->nst++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = the event functions of state s at time t for x = xp_s(t) + z; phi the basis at t, or NULL */
static void VIFloquetEvents(VIHB hb, VIFloquetWork *w, PetscInt s, PetscReal t, const PetscReal *phi, const PetscReal z[], PetscReal y[])
{
  const VIFloquetState *st = &w->st[s];
  const PetscInt        nc = hb->nc, k2 = w->k2;

  if (!phi) {
    VIFloquetBasis(hb, w->omega, t, w->phi);
    phi = w->phi;
  }
  VIFloquetEval(hb->nh, nc, nc, st->yc, phi, y);
  for (PetscInt j = 0; j < nc; j++)
    for (PetscInt i = 0; i < hb->nm; i++) y[j] += st->Y[j * k2 + i] * z[i];
}

/*
  The period map of the exact piecewise-linear motion: x(T) from x(0) = x0 (balanced coordinates), integrated with the
  exponentials of each state (xp plus exp(A t) on the rest), the contact switches located where an event function of the
  actual trajectory crosses zero (checked at ns sub-steps, the crossing by the Illinois method on the exact solution).
  The segments of constant state are left in w for the monodromy. *ok false when a state cannot be set up or the
  switches run away.
*/
static PetscErrorCode VIFloquetPeriod(VIHB hb, VIFloquetWork *w, const PetscReal x0[], PetscReal xT[], PetscBool *ok)
{
  const PetscInt nc = hb->nc, nh = hb->nh, nm = hb->nm, k2 = w->k2;
  PetscReal     *z = w->u, *z1 = w->u + k2, *ze = w->u + 2 * k2, *y0 = w->y, *y1 = w->y + nc, t = 0, tseg = 0;
  PetscInt       s, nswitch = 0;

  PetscFunctionBeginUser;
  *ok     = PETSC_FALSE;
  w->nseg = 0;
  w->nperiods++;
  /* the state at t = 0: least-index principal pivoting on the events (the boundary's contact problem has a P-matrix),
     from the sample's state of the harmonic balance */
  for (PetscInt j = 0; j < nc; j++) w->closed[j] = hb->d_t[j * hb->N] > 0;
  for (PetscInt it = 0;; it++) {
    PetscInt bad = -1;
    PetscCall(VIFloquetGetState(hb, w, w->closed, &s));
    if (s < 0 || it > 4 * nc + 4) PetscFunctionReturn(PETSC_SUCCESS);
    VIFloquetBasis(hb, w->omega, 0, w->phi);
    VIFloquetEval(nh, k2, k2, w->st[s].xp, w->phi, z);
    for (PetscInt i = 0; i < k2; i++) z[i] = x0[i] - z[i];
    VIFloquetEvents(hb, w, s, 0, NULL, z, y0);
    for (PetscInt j = 0; j < nc && bad < 0; j++)
      if (y0[j] < 0) bad = j;
    if (bad < 0) break;
    w->closed[bad] = !w->closed[bad];
  }
  for (PetscInt k = 0; k < w->ns; k++) {
    const PetscReal t1    = k == w->ns - 1 ? w->T : (k + 1) * w->h;
    PetscBool       fresh = PETSC_TRUE; /* at the sub-step's start: exp(A h) applies */
    for (;;) {
      const VIFloquetState *st  = &w->st[s];
      const PetscInt        deg = st->deg;
      PetscReal             tau = 0, te, *pw = w->pw;
      PetscInt              jb = -1;

      if (fresh) {
        PetscBLASInt bk, one = 1;
        PetscReal    a = 1, b = 0;
        PetscCall(PetscBLASIntCast(k2, &bk));
        PetscCallBLAS("BLASgemv", BLASgemv_("N", &bk, &bk, &a, st->E, &bk, z, &one, &b, z1, &one));
      } else
        PetscCall(VIFloquetExpVec(k2, st->A, t1 - t, z, z1, ze));
      VIFloquetEvents(hb, w, s, t1, w->basis + (k + 1) * nh, z1, y1);
      for (PetscInt j = 0; j < nc && jb < 0; j++)
        if (y1[j] < 0) jb = j;
      if (jb < 0) {
        PetscCall(PetscArraycpy(z, z1, k2));
        PetscCall(PetscArraycpy(y0, y1, nc));
        t = t1;
        break;
      }
      /* a crossing in (t, t1]: on the sub-step exp(A tau) z = sum_d tau^d / d! A^d z (|A h| small, st->deg terms), so the
         event functions are polynomials in tau plus the forced part; the earliest root by the Illinois method */
      PetscCall(PetscArraycpy(pw, z, k2));
      for (PetscInt d = 1; d <= deg; d++) {
        PetscBLASInt bk, one = 1;
        PetscReal    a = 1.0 / d, b = 0;
        PetscCall(PetscBLASIntCast(k2, &bk));
        PetscCallBLAS("BLASgemv", BLASgemv_("N", &bk, &bk, &a, st->A, &bk, pw + (d - 1) * k2, &one, &b, pw + d * k2, &one));
      }
      jb = -1;
      for (PetscInt j = 0; j < nc; j++) {
        PetscReal a = 0, b = t1 - t, fa = y0[j], fb = y1[j], c = b, *cd = w->cd;
        PetscInt  side = 0;
        if (fb >= 0) continue;
        for (PetscInt d = 0; d <= deg; d++) {
          cd[d] = 0;
          for (PetscInt i = 0; i < nm; i++) cd[d] += st->Y[j * k2 + i] * pw[d * k2 + i];
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
            for (PetscInt e = 0; e < nh; e++) fc += st->yc[e * nc + j] * w->phi[e];
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
        if (jb < 0 || c < tau) {
          tau = c;
          jb  = j;
        }
      }
      /* switch contact jb at te: x is continuous, the new state's forced response differs */
      te = t + tau;
      for (PetscInt i = 0; i < k2; i++) ze[i] = 0;
      for (PetscInt d = deg; d >= 0; d--)
        for (PetscInt i = 0; i < k2; i++) ze[i] = ze[i] * tau + pw[d * k2 + i];
      VIFloquetBasis(hb, w->omega, te, w->phi);
      VIFloquetEval(nh, k2, k2, st->xp, w->phi, z1);
      for (PetscInt i = 0; i < k2; i++) ze[i] += z1[i];
      if (w->nseg == w->cap || ++nswitch > VI_FLOQUET_SWITCHES * nc) PetscFunctionReturn(PETSC_SUCCESS);
      w->seg_state[w->nseg] = s;
      w->seg_len[w->nseg++] = te - tseg;
      tseg                  = te;
      w->closed[jb]         = !w->closed[jb];
      PetscCall(VIFloquetGetState(hb, w, w->closed, &s));
      if (s < 0) PetscFunctionReturn(PETSC_SUCCESS);
      VIFloquetEval(nh, k2, k2, w->st[s].xp, w->phi, z1);
      for (PetscInt i = 0; i < k2; i++) z[i] = ze[i] - z1[i];
      VIFloquetEvents(hb, w, s, te, NULL, z, y0);
      t     = te;
      fresh = PETSC_FALSE;
    }
  }
  if (w->nseg == w->cap) PetscFunctionReturn(PETSC_SUCCESS);
  w->seg_state[w->nseg] = s;
  w->seg_len[w->nseg++] = w->T - tseg;
  VIFloquetBasis(hb, w->omega, w->T, w->phi);
  VIFloquetEval(nh, k2, k2, w->st[s].xp, w->phi, xT);
  for (PetscInt i = 0; i < k2; i++) xT[i] += z[i];
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

/* w->Mon = the product of exp(A_s len) over the last period's segments: the derivative of the period map (no saltation:
   the vector field is continuous across the switches of a massless boundary) */
static PetscErrorCode VIFloquetMonodromy(VIFloquetWork *w)
{
  const PetscInt k2 = w->k2;
  PetscReal     *E = w->W, *T = w->W + k2 * k2;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(w->Mon, k2 * k2));
  for (PetscInt i = 0; i < k2; i++) w->Mon[i * k2 + i] = 1;
  for (PetscInt g = 0; g < w->nseg; g++) {
    if (w->seg_len[g] <= 0) continue;
    PetscCall(VIExpm(k2, w->st[w->seg_state[g]].A, w->seg_len[g], E));
    PetscCall(VIMatMul(k2, E, w->Mon, T));
    PetscCall(PetscArraycpy(w->Mon, T, k2 * k2));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x <- the fixed point of the period map by Newton from x (the monodromy at it left in w->Mon) */
static PetscErrorCode VIFloquetShoot(VIHB hb, VIFloquetWork *w, PetscReal x[], PetscBool *converged)
{
  const PetscInt k2 = w->k2;
  PetscReal     *P = w->W + 2 * k2 * k2, *xn = P + k2, *Pn = xn + k2, *r = Pn + k2, *J = w->W;
  PetscReal      hist[VI_FLOQUET_STALL];
  PetscBool      ok;
  PetscBLASInt   bk, one = 1, info;

  PetscFunctionBeginUser;
  *converged = PETSC_FALSE;
  PetscCall(PetscBLASIntCast(k2, &bk));
  PetscCall(VIFloquetPeriod(hb, w, x, P, &ok));
  for (PetscInt it = 0; ok && it < VI_FLOQUET_MAX_IT; it++) {
    const PetscReal rnorm  = VIFloquetResidual(k2, x, P);
    PetscReal       lambda = 1;
    PetscBool       newton = PETSC_FALSE;

    hist[it % VI_FLOQUET_STALL] = rnorm;
    if (it >= VI_FLOQUET_STALL && rnorm > 0.5 * hist[(it + 1) % VI_FLOQUET_STALL]) break; /* stalled: no orbit near */

    PetscCall(VIFloquetMonodromy(w));
    PetscCall(PetscInfo(NULL, "hb: %g Hz shooting iteration %" PetscInt_FMT ", |P(x) - x| / |x| = %g, %" PetscInt_FMT " segments\n",
                        (double)(w->omega / (2 * PETSC_PI)), it, (double)rnorm, w->nseg));
    if (rnorm <= VI_FLOQUET_SHOOT_TOL) {
      *converged = PETSC_TRUE;
      break;
    }
    /* Newton: (Mon - I) dx = -(P(x) - x), backtracking on the residual; where it fails (the switching pattern changes
       between the iterates) one period of the motion instead, x <- P(x), which approaches a stable orbit */
    PetscCall(PetscArraycpy(J, w->Mon, k2 * k2));
    for (PetscInt i = 0; i < k2; i++) {
      J[i * k2 + i] -= 1;
      r[i] = x[i] - P[i];
    }
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bk, &one, J, &bk, w->piv, r, &bk, &info));
    for (; !info && lambda > 0.1; lambda /= 2) {
      for (PetscInt i = 0; i < k2; i++) xn[i] = x[i] + lambda * r[i];
      PetscCall(VIFloquetPeriod(hb, w, xn, Pn, &ok));
      if (ok && VIFloquetResidual(k2, xn, Pn) < rnorm) {
        newton = PETSC_TRUE;
        break;
      }
    }
    if (!newton) {
      PetscCall(PetscArraycpy(xn, P, k2));
      PetscCall(VIFloquetPeriod(hb, w, xn, Pn, &ok));
    }
    PetscCall(PetscArraycpy(x, xn, k2));
    PetscCall(PetscArraycpy(P, Pn, k2));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
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

/*
  Floquet multipliers of the periodic motion that the harmonic balance solution approximates (massless boundary,
  M_bb = M_bi = D_bb = D_bi = 0: the boundary follows the inner coordinates statically). The motion is piecewise linear:
  while contact j is closed its normal coordinate is held (q_o = -g0), while it is open its force is -p, and the
  boundary rows left free are condensed, M_II q'' + D_II q' + K_eff q = P(t). The truncated series of the harmonic balance
  does not carry the contact's pattern (the DLFT samples smooth an impact with its rebounds, milliseconds of high modes,
  into one closed interval), and the multipliers depend on the closed durations: so the periodic orbit of the exact
  piecewise-linear motion is found first, by Newton on its period map (shooting) from the harmonic balance state at
  t = 0, and the monodromy matrix is the product of the exponentials over its segments of constant contact state. The
  force is continuous across a switch (contacts close and open at zero force), so there is no saltation and that product
  is the exact derivative of the period map (Newton converges quadratically). Not computed (*computed false) where
  the shooting does not converge: no periodic orbit of the exact motion near the harmonic balance solution.
*/
PetscErrorCode VIHBFloquet(VIHB hb, PetscReal omega, PetscReal *mu_max, PetscBool *computed)
{
  const PetscInt n = hb->n, nb = hb->nb, nm = hb->nm, N = hb->N, nc = hb->nc, nh = hb->nh, k2 = 2 * nm;
  PetscReal     *x, *xh, *wr, *wi, *work, *J;
  PetscBool      switches = PETSC_FALSE, converged = PETSC_FALSE;
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
  for (PetscInt j = 0; j < nc; j++)
    for (PetscInt k = 0; k < N; k++)
      if (hb->d_t[j * N + k] != hb->d_t[j * N]) switches = PETSC_TRUE;
  PetscCall(PetscMemzero(&w, sizeof(w)));
  w.k2    = k2;
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
    PetscCall(PetscMalloc1(PetscMax(k2, nb) + 1, &w.piv));
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
  PetscCall(PetscMalloc6(w.cap, &w.seg_state, w.cap, &w.seg_len, nh, &w.phi, 8 * k2, &w.u, 3 * nc + 1, &w.y, k2 * k2, &w.Mon));
  PetscCall(PetscMalloc4(2 * k2 * k2 + 4 * k2, &w.W, nc + 1, &w.closed, (VI_FLOQUET_DEG_MAX + 1) * k2, &w.pw, VI_FLOQUET_DEG_MAX + 1, &w.cd));
  PetscCall(PetscMalloc3(k2, &x, k2, &xh, k2 * k2, &J));
  PetscCall(PetscMalloc3(k2, &wr, k2, &wi, 8 * k2, &work));
  PetscCall(PetscBLASIntCast(k2, &bk));
  if (!switches) {
    /* one state over the whole period (every contact open, or closed, throughout): the monodromy matrix is exp(A T),
       whose eigenvalues are exp(lambda T) for the eigenvalues lambda of A: those of A are computed instead */
    PetscInt s;
    for (PetscInt j = 0; j < nc; j++) w.closed[j] = hb->d_t[j * N] > 0;
    PetscCall(VIFloquetGetState(hb, &w, w.closed, &s));
    if (s >= 0) {
      PetscCall(PetscArraycpy(J, w.st[s].A, k2 * k2));
      converged = PETSC_TRUE;
    }
  } else {
    /* the harmonic balance state at t = 0 (q, v / ws of the inner coordinates) */
    PetscCall(VIHBRecover(hb, hb->X, hb->q));
    for (PetscInt i = 0; i < nm; i++) {
      xh[i]      = hb->q[nb + i];
      xh[nm + i] = 0;
      for (PetscInt h = 1; h <= hb->H; h++) {
        xh[i] += hb->q[(2 * h - 1) * n + nb + i];
        xh[nm + i] += h * omega * hb->q[2 * h * n + nb + i] / w.ws;
      }
    }
    /* shooting from the orbit of the previous point of the branch (closer to the next exact orbit than the truncated
       series, which lacks the high modes of the impacts), else from the harmonic balance state; the orbit found must be
       the one the harmonic balance approximates: with contact switches, and within VI_FLOQUET_NEAR in the energy norm
       of its start (the previous orbit: the exact branch followed by continuity; or the harmonic balance state) */
    for (PetscInt start = hb->have_orbit ? 0 : 1; start < 2 && !converged; start++) {
      PetscReal dist;
      PetscCall(PetscArraycpy(x, start ? xh : hb->orbit, k2));
      PetscCall(VIFloquetShoot(hb, &w, x, &converged));
      if (!converged) continue;
      dist = VIFloquetDistance(hb, &w, x, start ? xh : hb->orbit);
      PetscCall(PetscInfo(NULL, "hb: %g Hz: orbit with %" PetscInt_FMT " segments at %g of %s (energy norm)\n", (double)(omega / (2 * PETSC_PI)),
                          w.nseg, (double)dist, start ? "the harmonic balance state" : "the previous point's orbit"));
      if (w.nseg < 2 || dist > VI_FLOQUET_NEAR) converged = PETSC_FALSE;
    }
    if (converged) {
      PetscCall(PetscArraycpy(J, w.Mon, k2 * k2));
      if (!hb->orbit) PetscCall(PetscMalloc1(k2, &hb->orbit));
      PetscCall(PetscArraycpy(hb->orbit, x, k2));
    } else
      PetscCall(PetscInfo(
          NULL, "hb: %g Hz: no periodic orbit of the piecewise-linear motion found near the harmonic balance solution; stability not computed\n",
          (double)(omega / (2 * PETSC_PI))));
    hb->have_orbit = converged;
    PetscCall(PetscInfo(NULL, "hb: %g Hz: %" PetscInt_FMT " periods integrated, %" PetscInt_FMT " contact states\n", (double)(omega / (2 * PETSC_PI)),
                        w.nperiods, w.nst));
  }
  if (converged) {
    PetscCall(PetscBLASIntCast(8 * k2, &lwork));
    PetscCallBLAS("LAPACKgeev", LAPACKgeev_("N", "N", &bk, J, &bk, wr, wi, NULL, &one, NULL, &one, work, &lwork, &info));
    PetscCheck(info == 0, hb->comm, PETSC_ERR_LIB, "hb: the eigenvalues of the monodromy matrix failed (LAPACK info %d)", (int)info);
    for (PetscInt i = 0; i < k2; i++)
      *mu_max = PetscMax(*mu_max, switches ? PetscSqrtReal(wr[i] * wr[i] + wi[i] * wi[i]) : PetscExpReal(wr[i] * w.T));
    *computed = PETSC_TRUE;
  }
  for (PetscInt s = 0; s < w.nst; s++) {
    PetscCall(PetscFree5(w.st[s].closed, w.st[s].A, w.st[s].E, w.st[s].xp, w.st[s].Y));
    PetscCall(PetscFree(w.st[s].yc));
  }
  PetscCall(PetscFree6(w.seg_state, w.seg_len, w.phi, w.u, w.y, w.Mon));
  PetscCall(PetscFree4(w.W, w.closed, w.pw, w.cd));
  PetscCall(PetscFree(w.basis));
  PetscCall(PetscFree(w.piv));
  PetscCall(PetscFree3(x, xh, J));
  PetscCall(PetscFree3(wr, wi, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}
