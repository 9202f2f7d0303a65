/* A flexible body of a spatial multibody model (dim: 3) in a floating frame of reference (docs/multibody.md "Spatial
   flexible bodies", docs/frame.md; Shabana, Dynamics of Multibody Systems, §5.5-5.6, with Euler parameters).

   Its local coordinates are z = (R, p, q_f): the frame's origin R (3), the frame's unit quaternion p (4, with its norm row
   like a spatial rigid body's, mbspatial.c) and the ROM's nf coordinates q_f; a material point of the undeformed position
   x (in the frame) is at R + A(p) u, u = x + Phi q_f (the spatial form of seed 001 Eq. 115). With the body-frame angular
   velocity w_b = 2 G(p) p' (G of mbspatial.c) the point moves at R' - A u~ w_b + A Phi q_f', and the kinetic energy
   w^T M w / 2 has the mass (the spatial forms of seed 001 Eqs. 126-140)
     m_RR = m I,  m_Rp = -2 A u-bar~ G,  m_Rf = A S-bar,  m_pp = 4 G^T I_thth G + 2 c p p^T,  m_pf = 2 G^T I_thf,  m_ff,
   u-bar = int rho u = I_1 + S-bar q_f, I_thth = int rho u~^T u~ = tr(J(q)) I - J(q), J(q)_cd = int rho u_c u_d,
   I_thf = int rho u~ Phi (column k: int rho u x Phi_k), all from the ROM's /frame (docs/frame.md's "Spatial"). A^T A = I
   is used, so M is the true mass on the sphere |p| = 1 with p^T p' = 0; as for a rigid body (mbspatial.c) the term
   c (p^T p')^2 makes it regular and only adds forces along p, which the norm row's multiplier takes: the motion is that of
   the true kinetic energy.

   The quadratic velocity vector is Lagrange's Q_v = -(dM/dt) w + 1/2 d(w^T M w)/dz (VIMBFlexLagrange, shared with the
   planar body: seed 001 Eqs. 146-153 are its terms written out), from dM/dz written out (VIMBFlexSpatialMassReal: each
   coordinate moves a few blocks), and its tangent dQ_v/dz too (VIMBFlexSpatialQvTangentReal, from the rates of A, u-bar,
   I_thth, I_thf along w). M is a polynomial in (p, q_f) (degree 3 in p, 2 in q_f), and the same derivatives computed
   exactly by evaluating M on hyper-dual numbers a + b e1 + c e2 + d e1 e2 (e1^2 = e2^2 = 0, the e1 e2 part the exact mixed
   second derivative, no step) are kept as their reference (VIMBFlexSpatialMassHyperDual, VIMBFlexSpatialQvTangent with
   hyperdual; test_mbflexspatial: equal to 4e-16).
   Gravity has V = -g . (m R + A(p) u-bar) (seed 001 Eqs. 167-169 in space), the ROM adds -K q_f - D q_f'. */
#include "mbimpl.h"

/* a hyper-dual number v + a e1 + b e2 + ab e1 e2 */
typedef struct {
  PetscReal v, a, b, ab;
} VIHD;

static inline VIHD VIHDMul(VIHD x, VIHD y)
{
  VIHD r = {x.v * y.v, x.v * y.a + x.a * y.v, x.v * y.b + x.b * y.v, x.v * y.ab + x.a * y.b + x.b * y.a + x.ab * y.v};
  return r;
}

/* x + s y */
static inline VIHD VIHDAxpy(VIHD x, PetscReal s, VIHD y)
{
  VIHD r = {x.v + s * y.v, x.a + s * y.a, x.b + s * y.b, x.ab + s * y.ab};
  return r;
}

static inline VIHD VIHDReal(PetscReal v)
{
  VIHD r = {v, 0, 0, 0};
  return r;
}

PetscInt VIMBFlexSpatialWorkSize(PetscInt nq)
{
  const PetscInt nn = nq * nq;
  /* M, dM, B, Md; then the hyper-dual z, M and W (9 nf), and the real W0 (9 nf) */
  return nn * (nq + 3) + 4 * (nq + nn + 9 * nq) + 9 * nq;
}

PetscErrorCode VIMBFlexSpatialSetUp(VIMBFlex *fx)
{
  const VIROMFrame *fr = fx->fr;
  const PetscInt    n  = fx->nf;

  PetscFunctionBeginUser;
  /* S-bar = mode_moment, m_ff = sum_i mode_mode[i i] (= the ROM's M for a mass-carrying reduction), c = 2 tr(I_thth(0)) / 3 */
  fx->m = fr->mass;
  PetscCall(PetscArraycpy(fx->S, fr->mode_moment, 3 * n));
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt l = 0; l < n; l++)
      fx->mff[k * n + l] = fr->mode_mode[(0 * n + k) * n + l] + fr->mode_mode[(4 * n + k) * n + l] + fr->mode_mode[(8 * n + k) * n + l];
  fx->c = 4 * (fr->second_moment[0] + fr->second_moment[4] + fr->second_moment[8]) / 3;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* W0[(b c) k] = int rho u_b Phi_k^c = position_mode[b c, k] + sum_l mode_mode[b c, l, k] q_l at the real q (9 nf), linear in q */
static void VIMBFlexSpatialW0(const VIMBFlex *fx, const PetscReal q[], PetscReal W0[])
{
  const PetscInt   n  = fx->nf;
  const PetscReal *pm = fx->fr->position_mode, *mm = fx->fr->mode_mode;

  for (PetscInt bc = 0; bc < 9; bc++)
    for (PetscInt k = 0; k < n; k++) {
      PetscReal r = pm[bc * n + k];
      for (PetscInt l = 0; l < n; l++) r += mm[(bc * n + l) * n + k] * q[l];
      W0[bc * n + k] = r;
    }
}

/* The frame's quantities at the hyper-dual z (its e1 e2 parts zero): A(p), G(p), u-bar, I_thth and W (9 nf: I_thf's
   column k is W[(b c) k] - W[(c b) k], (a, b, c) cyclic), from W0 its W at the real part (VIMBFlexSpatialW0) */
typedef struct {
  VIHD  A[9], G[12], ub[3], Ith[9];
  VIHD *W;
} VIMBFlexSpatialFrame;

static void VIMBFlexSpatialFrameHD(const VIMBFlex *fx, const VIHD z[], const PetscReal W0[], VIMBFlexSpatialFrame *k)
{
  const VIROMFrame *fr = fx->fr;
  const PetscInt    n  = fx->nf;
  const VIHD       *p = z + 3, *q = z + 7;
  const PetscReal  *pm = fr->position_mode, *mm = fr->mode_mode, *S = fx->S;
  VIHD              Jq[9], tr = VIHDReal(0), pp[16], *W = k->W;
  static PetscReal  F[3][3][16], Gb[4][12]; /* constant: A_ij = p^T F[j][i] p, G(p) = sum_b p_b Gb[b] */
  static PetscBool  tables = PETSC_FALSE;
  PetscInt          act[16], nact = 0; /* the elastic coordinates the seeds move (a unit direction: one; more: all, dense) */
  PetscBool         dense = PETSC_FALSE;

  if (!tables) {
    for (PetscInt j = 0; j < 3; j++) { /* (A s)_i = p^T A_i(s) p (VIMBQuatForms) */
      PetscReal s[3] = {0, 0, 0};
      s[j]           = 1;
      VIMBQuatForms(s, F[j]);
    }
    for (PetscInt b = 0; b < 4; b++) {
      PetscReal e[4] = {0, 0, 0, 0};
      e[b]           = 1;
      VIMBQuatG(e, Gb[b]);
    }
    tables = PETSC_TRUE;
  }
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt b = a; b < 4; b++) pp[a * 4 + b] = pp[b * 4 + a] = VIHDMul(p[a], p[b]);
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) {
      VIHD r = VIHDReal(0);
      for (PetscInt ab = 0; ab < 16; ab++)
        if (F[j][i][ab] != 0) r = VIHDAxpy(r, F[j][i][ab], pp[ab]);
      k->A[i * 3 + j] = r;
    }
  for (PetscInt c = 0; c < 12; c++) {
    k->G[c] = VIHDReal(0);
    for (PetscInt b = 0; b < 4; b++)
      if (Gb[b][c] != 0) k->G[c] = VIHDAxpy(k->G[c], Gb[b][c], p[b]);
  }
  /* u-bar = I_1 + S-bar q; W[(b c) k] = int rho u_b Phi_k^c, linear in q: W0 and the seeded directions' parts (few for a
     unit direction) */
  for (PetscInt i = 0; i < 3; i++) {
    k->ub[i] = VIHDReal(fr->first_moment[i]);
    for (PetscInt l = 0; l < n; l++) k->ub[i] = VIHDAxpy(k->ub[i], S[i * n + l], q[l]);
  }
  for (PetscInt l = 0; l < n; l++)
    if (q[l].a != 0 || q[l].b != 0) {
      if (nact < 16)
        act[nact++] = l;
      else
        dense = PETSC_TRUE;
    }
  for (PetscInt bc = 0; bc < 9; bc++)
    for (PetscInt c = 0; c < n; c++) {
      VIHD r = VIHDReal(W0[bc * n + c]);
      for (PetscInt j = 0; j < (dense ? n : nact); j++) {
        const PetscInt l = dense ? j : act[j];
        r.a += mm[(bc * n + l) * n + c] * q[l].a;
        r.b += mm[(bc * n + l) * n + c] * q[l].b;
      }
      W[bc * n + c] = r;
    }
  /* J(q)_cd = J_cd + sum_k position_mode[d c, k] q_k + sum_l W[(c d) l] q_l; I_thth = tr(J) I - J */
  for (PetscInt c = 0; c < 3; c++)
    for (PetscInt d = 0; d < 3; d++) {
      VIHD r = VIHDReal(fr->second_moment[c * 3 + d]);
      for (PetscInt l = 0; l < n; l++) {
        r = VIHDAxpy(r, pm[(d * 3 + c) * n + l], q[l]);
        r = VIHDAxpy(r, 1, VIHDMul(W[(c * 3 + d) * n + l], q[l]));
      }
      Jq[c * 3 + d] = r;
    }
  for (PetscInt c = 0; c < 3; c++) tr = VIHDAxpy(tr, 1, Jq[c * 4]);
  for (PetscInt c = 0; c < 9; c++) k->Ith[c] = VIHDAxpy(c % 4 ? VIHDReal(0) : tr, -1, Jq[c]);
}

/* I_thf's column c: int rho u x Phi_c */
static void VIMBFlexSpatialThetaF(const VIMBFlex *fx, const VIMBFlexSpatialFrame *k, PetscInt c, VIHD If[3])
{
  const PetscInt n = fx->nf;
  for (PetscInt a = 0; a < 3; a++) {
    const PetscInt b = (a + 1) % 3, d = (a + 2) % 3;
    If[a] = VIHDAxpy(k->W[(b * 3 + d) * n + c], -1, k->W[(d * 3 + b) * n + c]);
  }
}

/* M (nq x nq, hyper-dual) at the hyper-dual z; W: 9 nf scratch */
static void VIMBFlexSpatialMassHD(const VIMBFlex *fx, const VIHD z[], const PetscReal W0[], VIHD M[], VIHD W[])
{
  const PetscInt       n = fx->nf, nq = 7 + n;
  const VIHD          *p = z + 3;
  const PetscReal     *S = fx->S;
  VIMBFlexSpatialFrame k;
  VIHD                 X[12], ut[9], *A = k.A, *G = k.G, *ub = k.ub, *Ith = k.Ith;

  k.W = W;
  VIMBFlexSpatialFrameHD(fx, z, W0, &k);
  for (PetscInt i = 0; i < nq * nq; i++) M[i] = VIHDReal(0);
  /* m_RR = m I; m_Rp = -2 A u~ G; m_Rf = A S-bar */
  for (PetscInt i = 0; i < 3; i++) M[i * nq + i] = VIHDReal(fx->m);
  ut[0] = ut[4] = ut[8] = VIHDReal(0);
  ut[1] = VIHDAxpy(VIHDReal(0), -1, ub[2]), ut[2] = ub[1];
  ut[3] = ub[2], ut[5] = VIHDAxpy(VIHDReal(0), -1, ub[0]);
  ut[6] = VIHDAxpy(VIHDReal(0), -1, ub[1]), ut[7] = ub[0];
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt a = 0; a < 4; a++) {
      X[i * 4 + a] = VIHDReal(0);
      for (PetscInt j = 0; j < 3; j++) X[i * 4 + a] = VIHDAxpy(X[i * 4 + a], 1, VIHDMul(ut[i * 3 + j], G[j * 4 + a]));
    }
  for (PetscInt i = 0; i < 3; i++) {
    for (PetscInt a = 0; a < 4; a++) {
      VIHD r = VIHDReal(0);
      for (PetscInt j = 0; j < 3; j++) r = VIHDAxpy(r, -2, VIHDMul(A[i * 3 + j], X[j * 4 + a]));
      M[i * nq + 3 + a] = M[(3 + a) * nq + i] = r;
    }
    for (PetscInt c = 0; c < n; c++) {
      VIHD r = VIHDReal(0);
      for (PetscInt j = 0; j < 3; j++) r = VIHDAxpy(r, S[j * n + c], A[i * 3 + j]);
      M[i * nq + 7 + c] = M[(7 + c) * nq + i] = r;
    }
  }
  /* m_pp = 4 G^T I_thth G + 2 c p p^T */
  for (PetscInt a = 0; a < 4; a++) {
    VIHD IG[3];
    for (PetscInt i = 0; i < 3; i++) {
      IG[i] = VIHDReal(0);
      for (PetscInt j = 0; j < 3; j++) IG[i] = VIHDAxpy(IG[i], 1, VIHDMul(Ith[i * 3 + j], G[j * 4 + a]));
    }
    for (PetscInt b = 0; b < 4; b++) {
      VIHD r = VIHDAxpy(VIHDReal(0), 2 * fx->c, VIHDMul(p[a], p[b]));
      for (PetscInt i = 0; i < 3; i++) r = VIHDAxpy(r, 4, VIHDMul(G[i * 4 + b], IG[i]));
      M[(3 + b) * nq + 3 + a] = r;
    }
  }
  /* m_pf = 2 G^T I_thf; m_ff */
  for (PetscInt c = 0; c < n; c++) {
    VIHD If[3];
    VIMBFlexSpatialThetaF(fx, &k, c, If);
    for (PetscInt a = 0; a < 4; a++) {
      VIHD r = VIHDReal(0);
      for (PetscInt i = 0; i < 3; i++) r = VIHDAxpy(r, 2, VIHDMul(G[i * 4 + a], If[i]));
      M[(3 + a) * nq + 7 + c] = M[(7 + c) * nq + 3 + a] = r;
    }
    for (PetscInt l = 0; l < n; l++) M[(7 + c) * nq + 7 + l] = VIHDReal(fx->mff[c * n + l]);
  }
}

/* T = w^T M w / 2 (hyper-dual) at the hyper-dual z, w real, without M: with the frame's angular velocity w_b = 2 G p',
   T = m |R'|^2 / 2 + R'^T A (w_b x u-bar + S-bar q_f') + w_b^T I_thth w_b / 2 + c (p^T p')^2 + w_b^T I_thf q_f' + q_f'^T m_ff
   q_f' / 2, the blocks of M applied to w (the pairs' second derivatives need it alone). */
static VIHD VIMBFlexSpatialKineticHD(const VIMBFlex *fx, const VIHD z[], const PetscReal W0[], const PetscReal w[], VIHD W[])
{
  const PetscInt       n = fx->nf;
  const VIHD          *p = z + 3;
  const PetscReal     *v = w, *pd = w + 3, *qd = w + 7;
  VIMBFlexSpatialFrame k;
  VIHD                 wb[3], x[3], T = VIHDReal(0), pp = VIHDReal(0);

  k.W = W;
  VIMBFlexSpatialFrameHD(fx, z, W0, &k);
  for (PetscInt i = 0; i < 3; i++) {
    wb[i] = VIHDReal(0);
    for (PetscInt a = 0; a < 4; a++) wb[i] = VIHDAxpy(wb[i], 2 * pd[a], k.G[i * 4 + a]);
  }
  for (PetscInt i = 0; i < 3; i++) { /* w_b x u-bar + S-bar q_f' */
    const PetscInt b = (i + 1) % 3, d = (i + 2) % 3;
    x[i] = VIHDAxpy(VIHDMul(wb[b], k.ub[d]), -1, VIHDMul(wb[d], k.ub[b]));
    for (PetscInt c = 0; c < n; c++) x[i].v += fx->S[i * n + c] * qd[c];
  }
  for (PetscInt i = 0; i < 3; i++) {
    VIHD Iw = VIHDReal(0);
    T.v += 0.5 * fx->m * v[i] * v[i];
    for (PetscInt j = 0; j < 3; j++) {
      T  = VIHDAxpy(T, v[i], VIHDMul(k.A[i * 3 + j], x[j]));
      Iw = VIHDAxpy(Iw, 1, VIHDMul(k.Ith[i * 3 + j], wb[j]));
    }
    T = VIHDAxpy(T, 0.5, VIHDMul(wb[i], Iw));
  }
  for (PetscInt a = 0; a < 4; a++) pp = VIHDAxpy(pp, pd[a], p[a]);
  T = VIHDAxpy(T, fx->c, VIHDMul(pp, pp));
  for (PetscInt c = 0; c < n; c++) {
    VIHD If[3];
    VIMBFlexSpatialThetaF(fx, &k, c, If);
    for (PetscInt i = 0; i < 3; i++) T = VIHDAxpy(T, qd[c], VIHDMul(wb[i], If[i]));
    for (PetscInt l = 0; l < n; l++) T.v += 0.5 * qd[c] * fx->mff[c * n + l] * qd[l];
  }
  return T;
}

/* The frame's real quantities at z for the mass written out: A(p) (A_ij = p^T F_ji p, F = VIMBQuatForms of the axes), its
   derivatives dA[e] = dA/dp_e (dA_ij = 2 (F_ji p)_e), G(p) and the constant Gb[e] = dG/dp_e, u-bar, I_thth, W (9 nf) and
   I_thf (3 x nf). */
typedef struct {
  PetscReal A[9], dA[4][9], G[12], Gb[4][12], ub[3], Ith[9], *W, *If;
} VIMBFlexSpatialReal;

static void VIMBFlexSpatialFrameReal(const VIMBFlex *fx, const PetscReal z[], VIMBFlexSpatialReal *k)
{
  const VIROMFrame *fr = fx->fr;
  const PetscInt    n  = fx->nf;
  const PetscReal  *p = z + 3, *q = z + 7, *pm = fr->position_mode, *S = fx->S;
  PetscReal         F[3][3][16], J[9], tr = 0;

  for (PetscInt j = 0; j < 3; j++) {
    PetscReal e[3] = {0, 0, 0};
    e[j]           = 1;
    VIMBQuatForms(e, F[j]);
  }
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) {
      PetscReal Fp[4], r = 0;
      for (PetscInt a = 0; a < 4; a++) {
        Fp[a] = F[j][i][a * 4] * p[0] + F[j][i][a * 4 + 1] * p[1] + F[j][i][a * 4 + 2] * p[2] + F[j][i][a * 4 + 3] * p[3];
        r += p[a] * Fp[a];
        k->dA[a][i * 3 + j] = 2 * Fp[a];
      }
      k->A[i * 3 + j] = r;
    }
  VIMBQuatG(p, k->G);
  for (PetscInt b = 0; b < 4; b++) {
    PetscReal e[4] = {0, 0, 0, 0};
    e[b]           = 1;
    VIMBQuatG(e, k->Gb[b]);
  }
  for (PetscInt i = 0; i < 3; i++) {
    k->ub[i] = fr->first_moment[i];
    for (PetscInt l = 0; l < n; l++) k->ub[i] += S[i * n + l] * q[l];
  }
  VIMBFlexSpatialW0(fx, q, k->W);
  for (PetscInt c = 0; c < 3; c++)
    for (PetscInt d = 0; d < 3; d++) {
      PetscReal r = fr->second_moment[c * 3 + d];
      for (PetscInt l = 0; l < n; l++) r += (pm[(d * 3 + c) * n + l] + k->W[(c * 3 + d) * n + l]) * q[l];
      J[c * 3 + d] = r;
    }
  for (PetscInt c = 0; c < 3; c++) tr += J[c * 4];
  for (PetscInt c = 0; c < 9; c++) k->Ith[c] = (c % 4 ? 0 : tr) - J[c];
  for (PetscInt a = 0; a < 3; a++) {
    const PetscInt b = (a + 1) % 3, d = (a + 2) % 3;
    for (PetscInt c = 0; c < n; c++) k->If[a * n + c] = k->W[(b * 3 + d) * n + c] - k->W[(d * 3 + b) * n + c];
  }
}

/* X^T Y Z (X 3 x 4, Y 3 x 3, Z 3 x 4) times s added into the 4 x 4 block of D at (3, 3) (row stride nq) */
static void VIMBFlexSpatialGtIG(const PetscReal X[], const PetscReal Y[], const PetscReal Z[], PetscReal s, PetscInt nq, PetscReal D[])
{
  for (PetscInt b = 0; b < 4; b++)
    for (PetscInt a = 0; a < 4; a++) {
      PetscReal r = 0;
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt j = 0; j < 3; j++) r += X[i * 4 + b] * Y[i * 3 + j] * Z[j * 4 + a];
      D[(3 + b) * nq + 3 + a] += s * r;
    }
}

/* -2 X u~ Z (X 3 x 3, Z 3 x 4, u~ the cross product matrix of u) added into the blocks (R, p) and (p, R) of D */
static void VIMBFlexSpatialRp(const PetscReal X[], const PetscReal u[], const PetscReal Z[], PetscInt nq, PetscReal D[])
{
  const PetscReal ut[9] = {0, -u[2], u[1], u[2], 0, -u[0], -u[1], u[0], 0};
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt a = 0; a < 4; a++) {
      PetscReal r = 0;
      for (PetscInt j = 0; j < 3; j++)
        for (PetscInt l = 0; l < 3; l++) r += X[i * 3 + j] * ut[j * 3 + l] * Z[l * 4 + a];
      D[i * nq + 3 + a] -= 2 * r;
      D[(3 + a) * nq + i] -= 2 * r;
    }
}

/* M and dM[a] = dM/dz_a written out (docs/multibody.md "Spatial flexible bodies"): with dA = dA/dp_e, Gb = dG/dp_e,
     d/dp_e:  m_Rp -> -2 (dA u~ G + A u~ Gb),  m_Rf -> dA S-bar,  m_pp -> 4 (Gb^T I G + G^T I Gb) + 2 c (e_e p^T + p e_e^T),
              m_pf -> 2 Gb^T I_thf;
     d/dq_k:  m_Rp -> -2 A S~_k G (S_k the column k of S-bar),  m_pp -> 4 G^T (dI/dq_k) G,  m_pf -> 2 G^T dI_thf/dq_k,
   dI/dq_k = tr(dJ_k) I - dJ_k, dJ_k,cd = position_mode[d c, k] + W[(c d) k] + sum_l mode_mode[c d, k, l] q_l and
   dI_thf/dq_k[a][c] = mode_mode[b d, k, c] - mode_mode[d b, k, c] ((a, b, d) cyclic); dM/dR = 0. scratch: 12 nf + 9 nf. */
static void VIMBFlexSpatialMassReal(const VIMBFlex *fx, const PetscReal z[], PetscReal M[], PetscReal dM[], PetscReal scratch[])
{
  const PetscInt      n = fx->nf, nq = 7 + n, nn = nq * nq;
  const PetscReal    *S = fx->S, *p = z + 3, *q = z + 7, *pm = fx->fr->position_mode, *mm = fx->fr->mode_mode;
  VIMBFlexSpatialReal k;

  k.W  = scratch;
  k.If = scratch + 9 * n;
  VIMBFlexSpatialFrameReal(fx, z, &k);
  for (PetscInt i = 0; i < nn; i++) M[i] = 0;
  for (PetscInt i = 0; i < 3; i++) M[i * nq + i] = fx->m;
  VIMBFlexSpatialRp(k.A, k.ub, k.G, nq, M);
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt c = 0; c < n; c++) {
      PetscReal r = 0;
      for (PetscInt j = 0; j < 3; j++) r += k.A[i * 3 + j] * S[j * n + c];
      M[i * nq + 7 + c] = M[(7 + c) * nq + i] = r;
    }
  VIMBFlexSpatialGtIG(k.G, k.Ith, k.G, 4, nq, M);
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt b = 0; b < 4; b++) M[(3 + a) * nq + 3 + b] += 2 * fx->c * p[a] * p[b];
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt c = 0; c < n; c++) {
      PetscReal r = 0;
      for (PetscInt i = 0; i < 3; i++) r += 2 * k.G[i * 4 + a] * k.If[i * n + c];
      M[(3 + a) * nq + 7 + c] = M[(7 + c) * nq + 3 + a] = r;
    }
  for (PetscInt c = 0; c < n; c++)
    for (PetscInt l = 0; l < n; l++) M[(7 + c) * nq + 7 + l] = fx->mff[c * n + l];
  if (!dM) return;
  for (PetscInt i = 0; i < nq * nn; i++) dM[i] = 0;
  for (PetscInt e = 0; e < 4; e++) {
    PetscReal *D = dM + (3 + e) * nn;
    VIMBFlexSpatialRp(k.dA[e], k.ub, k.G, nq, D);
    VIMBFlexSpatialRp(k.A, k.ub, k.Gb[e], nq, D);
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt c = 0; c < n; c++) {
        PetscReal r = 0;
        for (PetscInt j = 0; j < 3; j++) r += k.dA[e][i * 3 + j] * S[j * n + c];
        D[i * nq + 7 + c] = D[(7 + c) * nq + i] = r;
      }
    VIMBFlexSpatialGtIG(k.Gb[e], k.Ith, k.G, 4, nq, D);
    VIMBFlexSpatialGtIG(k.G, k.Ith, k.Gb[e], 4, nq, D);
    for (PetscInt a = 0; a < 4; a++) {
      D[(3 + e) * nq + 3 + a] += 2 * fx->c * p[a];
      D[(3 + a) * nq + 3 + e] += 2 * fx->c * p[a];
    }
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt c = 0; c < n; c++) {
        PetscReal r = 0;
        for (PetscInt i = 0; i < 3; i++) r += 2 * k.Gb[e][i * 4 + a] * k.If[i * n + c];
        D[(3 + a) * nq + 7 + c] = D[(7 + c) * nq + 3 + a] = r;
      }
  }
  for (PetscInt kk = 0; kk < n; kk++) {
    PetscReal      *D = dM + (7 + kk) * nn, dJ[9], dI[9], tr = 0;
    const PetscReal Sk[3] = {S[kk], S[n + kk], S[2 * n + kk]};
    VIMBFlexSpatialRp(k.A, Sk, k.G, nq, D);
    for (PetscInt c = 0; c < 3; c++)
      for (PetscInt d = 0; d < 3; d++) {
        PetscReal r = pm[(d * 3 + c) * n + kk] + k.W[(c * 3 + d) * n + kk];
        for (PetscInt l = 0; l < n; l++) r += mm[((c * 3 + d) * n + kk) * n + l] * q[l];
        dJ[c * 3 + d] = r;
      }
    for (PetscInt c = 0; c < 3; c++) tr += dJ[c * 4];
    for (PetscInt c = 0; c < 9; c++) dI[c] = (c % 4 ? 0 : tr) - dJ[c];
    VIMBFlexSpatialGtIG(k.G, dI, k.G, 4, nq, D);
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt c = 0; c < n; c++) {
        PetscReal r = 0;
        for (PetscInt i = 0; i < 3; i++) {
          const PetscInt b = (i + 1) % 3, d = (i + 2) % 3;
          r += 2 * k.G[i * 4 + a] * (mm[((b * 3 + d) * n + kk) * n + c] - mm[((d * 3 + b) * n + kk) * n + c]);
        }
        D[(3 + a) * nq + 7 + c] = D[(7 + c) * nq + 3 + a] = r;
      }
  }
}

/* the hyper-dual z with the directions d1 (e1) and d2 (e2), either NULL: none; i1, i2 >= 0: the unit vectors instead */
static void VIMBFlexSpatialSeed(PetscInt nq, const PetscReal z[], PetscInt i1, const PetscReal d2[], PetscInt i2, VIHD Z[])
{
  for (PetscInt i = 0; i < nq; i++) {
    Z[i].v  = z[i];
    Z[i].a  = i == i1 ? 1 : 0;
    Z[i].b  = d2 ? d2[i] : (i == i2 ? 1 : 0);
    Z[i].ab = 0;
  }
}

/* the hyper-dual scratch after the real one (VIMBFlexSpatialWorkSize): z, M, W */
static VIHD *VIMBFlexSpatialHD(PetscInt nq, PetscReal work[])
{
  return (VIHD *)(work + nq * nq * (nq + 3));
}

void VIMBFlexSpatialMass(const VIMBFlex *fx, const PetscReal z[], PetscReal M[], PetscReal dM[], PetscReal work[])
{
  VIMBFlexSpatialMassReal(fx, z, M, dM, (PetscReal *)VIMBFlexSpatialHD(7 + fx->nf, work));
}

void VIMBFlexSpatialMassHyperDual(const VIMBFlex *fx, const PetscReal z[], PetscReal M[], PetscReal dM[], PetscReal work[])
{
  const PetscInt nq = 7 + fx->nf, nn = nq * nq;
  VIHD          *Z = VIMBFlexSpatialHD(nq, work), *MH = Z + nq, *W = MH + nn;
  PetscReal     *W0 = (PetscReal *)(W + 9 * fx->nf);

  /* M, and dM/dz_a by one evaluation per direction of (p, q_f) (dM/dR = 0) */
  VIMBFlexSpatialW0(fx, z + 7, W0);
  VIMBFlexSpatialSeed(nq, z, -1, NULL, -1, Z);
  VIMBFlexSpatialMassHD(fx, Z, W0, MH, W);
  for (PetscInt i = 0; i < nn; i++) M[i] = MH[i].v;
  if (!dM) return;
  for (PetscInt i = 0; i < 3 * nn; i++) dM[i] = 0;
  for (PetscInt a = 3; a < nq; a++) {
    VIMBFlexSpatialSeed(nq, z, a, NULL, -1, Z);
    VIMBFlexSpatialMassHD(fx, Z, W0, MH, W);
    for (PetscInt i = 0; i < nn; i++) dM[a * nn + i] = MH[i].a;
  }
}

/* B_g(s) = sum_i g_i A_i(s) (4 x 4): g . A(p) s = p^T B_g(s) p */
static void VIMBFlexSpatialGravityForm(const PetscReal g[], const PetscReal s[], PetscReal Bg[])
{
  PetscReal F[3][16];
  VIMBQuatForms(s, F);
  for (PetscInt k = 0; k < 16; k++) Bg[k] = g[0] * F[0][k] + g[1] * F[1][k] + g[2] * F[2][k];
}

/* a x b added times s into c */
static inline void VIMBCrossAdd(const PetscReal a[], const PetscReal b[], PetscReal s, PetscReal c[])
{
  c[0] += s * (a[1] * b[2] - a[2] * b[1]);
  c[1] += s * (a[2] * b[0] - a[0] * b[2]);
  c[2] += s * (a[0] * b[1] - a[1] * b[0]);
}

/* y = X^T v (X 3 x 3) and y = X v */
static inline void VIMBMatTVec(const PetscReal X[], const PetscReal v[], PetscReal y[])
{
  for (PetscInt j = 0; j < 3; j++) y[j] = X[j] * v[0] + X[3 + j] * v[1] + X[6 + j] * v[2];
}
static inline void VIMBMatVec(const PetscReal X[], const PetscReal v[], PetscReal y[])
{
  for (PetscInt i = 0; i < 3; i++) y[i] = X[i * 3] * v[0] + X[i * 3 + 1] * v[1] + X[i * 3 + 2] * v[2];
}

/* 2 X^T y (X 3 x 4) added into r (4) */
static inline void VIMBGtAdd(const PetscReal X[], const PetscReal y[], PetscReal r[])
{
  for (PetscInt a = 0; a < 4; a++) r[a] += 2 * (X[a] * y[0] + X[4 + a] * y[1] + X[8 + a] * y[2]);
}

/* dI_k = tr(dJ_k) I - dJ_k (9 each, k < nf; VIMBFlexSpatialMassReal's) and, with qd, Idot = sum_k qd_k dI_k */
static void VIMBFlexSpatialDI(const VIMBFlex *fx, const PetscReal q[], const PetscReal W[], PetscReal dI[])
{
  const PetscInt   n  = fx->nf;
  const PetscReal *pm = fx->fr->position_mode, *mm = fx->fr->mode_mode;
  for (PetscInt k = 0; k < n; k++) {
    PetscReal dJ[9], tr = 0;
    for (PetscInt c = 0; c < 3; c++)
      for (PetscInt d = 0; d < 3; d++) {
        PetscReal r = pm[(d * 3 + c) * n + k] + W[(c * 3 + d) * n + k];
        for (PetscInt l = 0; l < n; l++) r += mm[((c * 3 + d) * n + k) * n + l] * q[l];
        dJ[c * 3 + d] = r;
      }
    for (PetscInt c = 0; c < 3; c++) tr += dJ[c * 4];
    for (PetscInt c = 0; c < 9; c++) dI[k * 9 + c] = (c % 4 ? 0 : tr) - dJ[c];
  }
}

/*
  The tangent of Q_v = -(dM/dt) w + 1/2 d(w^T M w)/dz: dQ_v/dz = H - Y, H = Hess_z T (T = w^T M w / 2 at fixed w) and
  Y = d(V)/dz, V = (dM/dt) w = d/ds (M(z + s w) w) at s = 0. Written out (v = R', pd = p', qd = q_f', w_b = 2 G pd, the
  rates of A, u-bar, I_thth, I_thf along w: Adot = sum_e pd_e dA_e, S qd, Idot = sum_k qd_k dI_k, Ifdot = sum_k qd_k dIf_k;
  w_b's rate 2 G(pd) pd = 0):
    M w = (m v + A x,  2 G^T y + 2 c p (p . pd),  S^T A^T v + I_thf^T w_b + m_ff qd),  x = w_b x u-bar + S qd,
      y = u-bar x (A^T v) + I_thth w_b + I_thf qd,
    V = (Adot x + A (w_b x S qd),  2 G(pd)^T y + 2 G^T ydot + 2 c pd (p . pd) + 2 c p |pd|^2,  S^T Adot^T v + Ifdot^T w_b),
      ydot = S qd x (A^T v) + u-bar x (Adot^T v) + Idot w_b + Ifdot qd;
  with w_e = 2 Gb_e pd = dw_b/dp_e and Adot_e = dAdot/dp_e (dA_e at pd in place of p), its columns p_e:
    R: Adot_e x + Adot (w_e x u-bar) + dA_e (w_b x S qd) + A (w_e x S qd),
    p: 2 G(pd)^T (u-bar x (dA_e^T v) + I w_e) + 2 Gb_e^T ydot + 2 G^T (S qd x (dA_e^T v) + u-bar x (Adot_e^T v) + Idot w_e)
       + 2 c pd pd_e + 2 c e_e |pd|^2,
    f: S^T Adot_e^T v + Ifdot^T w_e;
  and q_k (S_k the column k of S-bar, Idot_k = sum_l qd_l d2I/dq_l dq_k):
    R: Adot (w_b x S_k),   p: 2 G(pd)^T (S_k x (A^T v) + dI_k w_b + dIf_k qd) + 2 G^T (S_k x (Adot^T v) + Idot_k w_b),   f: 0;
  and the Hessian of T = m |v|^2 / 2 + v . A x + w_b . I w_b / 2 + c (p . pd)^2 + w_b . I_thf qd + qd . m_ff qd / 2:
    (p_e, p_f): v . ddA_ef x + v . dA_e (w_f x u-bar) + v . dA_f (w_e x u-bar) + w_e . I w_f + 2 c pd_e pd_f,
    (p_e, q_k): v . dA_e (w_b x S_k) + v . A (w_e x S_k) + w_e . dI_k w_b + w_e . dIf_k qd,
    (q_k, q_l): w_b . ddI_kl w_b / 2,
  ddA_ef,ij = 2 F_ji[e f], ddI_kl = tr(ddJ) I - ddJ with ddJ_kl,cd = mode_mode[c d, k, l] + mode_mode[c d, l, k].
*/
static void VIMBFlexSpatialQvTangentReal(const VIMBFlex *fx, const PetscReal z[], const PetscReal w[], PetscReal dfdz[], PetscReal scratch[])
{
  const PetscInt      n = fx->nf, nq = 7 + n;
  const PetscReal    *S = fx->S, *q = z + 7, *v = w, *pd = w + 3, *qd = w + 7, *mm = fx->fr->mode_mode;
  VIMBFlexSpatialReal k;
  PetscReal           F[3][3][16], Ad[9], Ade[4][9], Gpd[12], wb[3], we[4][3], Sq[3], x[3], Atv[3], Adtv[3], y[3], yd[3];
  PetscReal           Id[9] = {0}, Ifq[3] = {0}, wbS[3], pdpd = 0, *dI;

  k.W  = scratch;
  k.If = scratch + 9 * n;
  dI   = scratch + 12 * n;
  VIMBFlexSpatialFrameReal(fx, z, &k);
  VIMBFlexSpatialDI(fx, q, k.W, dI);
  for (PetscInt j = 0; j < 3; j++) {
    PetscReal e[3] = {0, 0, 0};
    e[j]           = 1;
    VIMBQuatForms(e, F[j]);
  }
  VIMBQuatG(pd, Gpd);
  for (PetscInt a = 0; a < 4; a++) pdpd += pd[a] * pd[a];
  for (PetscInt i = 0; i < 9; i++) {
    Ad[i] = 0;
    for (PetscInt e = 0; e < 4; e++) Ad[i] += pd[e] * k.dA[e][i];
  }
  for (PetscInt e = 0; e < 4; e++) /* Adot_e = dA_e with pd for p: 2 (F_ji pd)_e */
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) {
        const PetscReal *Fj = F[j][i] + e * 4;
        Ade[e][i * 3 + j]   = 2 * (Fj[0] * pd[0] + Fj[1] * pd[1] + Fj[2] * pd[2] + Fj[3] * pd[3]);
      }
  for (PetscInt i = 0; i < 3; i++) {
    wb[i] = 2 * (k.G[i * 4] * pd[0] + k.G[i * 4 + 1] * pd[1] + k.G[i * 4 + 2] * pd[2] + k.G[i * 4 + 3] * pd[3]);
    for (PetscInt e = 0; e < 4; e++)
      we[e][i] = 2 * (k.Gb[e][i * 4] * pd[0] + k.Gb[e][i * 4 + 1] * pd[1] + k.Gb[e][i * 4 + 2] * pd[2] + k.Gb[e][i * 4 + 3] * pd[3]);
    Sq[i] = 0;
    for (PetscInt c = 0; c < n; c++) Sq[i] += S[i * n + c] * qd[c];
  }
  for (PetscInt c = 0; c < n; c++) /* Idot and Ifdot qd (Ifq) */
    for (PetscInt i = 0; i < 9; i++) Id[i] += qd[c] * dI[c * 9 + i];
  for (PetscInt a = 0; a < 3; a++) {
    const PetscInt b = (a + 1) % 3, d = (a + 2) % 3;
    for (PetscInt kk = 0; kk < n; kk++)
      for (PetscInt c = 0; c < n; c++) Ifq[a] += qd[kk] * (mm[((b * 3 + d) * n + kk) * n + c] - mm[((d * 3 + b) * n + kk) * n + c]) * qd[c];
  }
  for (PetscInt i = 0; i < 3; i++) x[i] = Sq[i], wbS[i] = 0;
  VIMBCrossAdd(wb, k.ub, 1, x);
  VIMBCrossAdd(wb, Sq, 1, wbS);
  VIMBMatTVec(k.A, v, Atv);
  VIMBMatTVec(Ad, v, Adtv);
  VIMBMatVec(k.Ith, wb, y);
  VIMBCrossAdd(k.ub, Atv, 1, y);
  VIMBMatVec(Id, wb, yd);
  VIMBCrossAdd(Sq, Atv, 1, yd);
  VIMBCrossAdd(k.ub, Adtv, 1, yd);
  for (PetscInt a = 0; a < 3; a++) {
    yd[a] += Ifq[a];
    for (PetscInt c = 0; c < n; c++) y[a] += k.If[a * n + c] * qd[c];
  }
  /* -Y and H on the columns p_e */
  for (PetscInt e = 0; e < 4; e++) {
    const PetscInt b      = 3 + e;
    PetscReal      col[3] = {0, 0, 0}, t[3], t2[3], cp[4] = {0, 0, 0, 0}, dAtv[3], Aetv[3], u1[3], u2[3];
    VIMBMatVec(Ade[e], x, t);
    for (PetscInt i = 0; i < 3; i++) col[i] += t[i];
    for (PetscInt i = 0; i < 3; i++) u1[i] = 0, u2[i] = 0;
    VIMBCrossAdd(we[e], k.ub, 1, u1);
    VIMBMatVec(Ad, u1, t);
    for (PetscInt i = 0; i < 3; i++) col[i] += t[i];
    VIMBMatVec(k.dA[e], wbS, t);
    for (PetscInt i = 0; i < 3; i++) col[i] += t[i];
    VIMBCrossAdd(we[e], Sq, 1, u2);
    VIMBMatVec(k.A, u2, t);
    for (PetscInt i = 0; i < 3; i++) dfdz[i * nq + b] -= col[i] + t[i];
    VIMBMatTVec(k.dA[e], v, dAtv);
    VIMBMatTVec(Ade[e], v, Aetv);
    VIMBMatVec(k.Ith, we[e], t);
    VIMBCrossAdd(k.ub, dAtv, 1, t);
    VIMBGtAdd(Gpd, t, cp);
    VIMBGtAdd(k.Gb[e], yd, cp);
    VIMBMatVec(Id, we[e], t2);
    VIMBCrossAdd(Sq, dAtv, 1, t2);
    VIMBCrossAdd(k.ub, Aetv, 1, t2);
    VIMBGtAdd(k.G, t2, cp);
    for (PetscInt a = 0; a < 4; a++) dfdz[(3 + a) * nq + b] -= cp[a] + 2 * fx->c * (pd[a] * pd[e] + (a == e ? pdpd : 0));
    for (PetscInt c = 0; c < n; c++) {
      PetscReal r = 0;
      for (PetscInt i = 0; i < 3; i++) r += S[i * n + c] * Aetv[i];
      dfdz[(7 + c) * nq + b] -= r;
    }
    /* Ifdot^T w_e */
    for (PetscInt a = 0; a < 3; a++) {
      const PetscInt bb = (a + 1) % 3, d = (a + 2) % 3;
      for (PetscInt kk = 0; kk < n; kk++)
        for (PetscInt c = 0; c < n; c++)
          dfdz[(7 + c) * nq + b] -= qd[kk] * (mm[((bb * 3 + d) * n + kk) * n + c] - mm[((d * 3 + bb) * n + kk) * n + c]) * we[e][a];
    }
    /* H (p_e, p_f), f >= e */
    for (PetscInt f2 = e; f2 < 4; f2++) {
      PetscReal h = 2 * fx->c * pd[e] * pd[f2], uf[3] = {0, 0, 0}, ue[3] = {0, 0, 0}, t3[3], Iw[3];
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt j = 0; j < 3; j++) h += 2 * v[i] * F[j][i][e * 4 + f2] * x[j];
      VIMBCrossAdd(we[f2], k.ub, 1, uf);
      VIMBCrossAdd(we[e], k.ub, 1, ue);
      VIMBMatVec(k.dA[e], uf, t3);
      h += v[0] * t3[0] + v[1] * t3[1] + v[2] * t3[2];
      VIMBMatVec(k.dA[f2], ue, t3);
      h += v[0] * t3[0] + v[1] * t3[1] + v[2] * t3[2];
      VIMBMatVec(k.Ith, we[f2], Iw);
      h += we[e][0] * Iw[0] + we[e][1] * Iw[1] + we[e][2] * Iw[2];
      dfdz[(3 + e) * nq + 3 + f2] += h;
      if (f2 != e) dfdz[(3 + f2) * nq + 3 + e] += h;
    }
    /* H (p_e, q_k) */
    for (PetscInt kk = 0; kk < n; kk++) {
      const PetscReal Sk[3] = {S[kk], S[n + kk], S[2 * n + kk]};
      PetscReal       h = 0, u3[3] = {0, 0, 0}, u4[3] = {0, 0, 0}, t3[3], Iw[3];
      VIMBCrossAdd(wb, Sk, 1, u3);
      VIMBMatVec(k.dA[e], u3, t3);
      h += v[0] * t3[0] + v[1] * t3[1] + v[2] * t3[2];
      VIMBCrossAdd(we[e], Sk, 1, u4);
      VIMBMatVec(k.A, u4, t3);
      h += v[0] * t3[0] + v[1] * t3[1] + v[2] * t3[2];
      VIMBMatVec(dI + 9 * kk, wb, Iw);
      h += we[e][0] * Iw[0] + we[e][1] * Iw[1] + we[e][2] * Iw[2];
      for (PetscInt a = 0; a < 3; a++) {
        const PetscInt bb = (a + 1) % 3, d = (a + 2) % 3;
        for (PetscInt c = 0; c < n; c++) h += we[e][a] * (mm[((bb * 3 + d) * n + kk) * n + c] - mm[((d * 3 + bb) * n + kk) * n + c]) * qd[c];
      }
      dfdz[(3 + e) * nq + 7 + kk] += h;
      dfdz[(7 + kk) * nq + 3 + e] += h;
    }
  }
  /* -Y and H on the columns q_k */
  for (PetscInt kk = 0; kk < n; kk++) {
    const PetscInt  b     = 7 + kk;
    const PetscReal Sk[3] = {S[kk], S[n + kk], S[2 * n + kk]};
    PetscReal       u3[3] = {0, 0, 0}, t[3], t1[3], t2[3] = {0, 0, 0}, Idk[9] = {0}, cp[4] = {0, 0, 0, 0}, trd;
    VIMBCrossAdd(wb, Sk, 1, u3);
    VIMBMatVec(Ad, u3, t);
    for (PetscInt i = 0; i < 3; i++) dfdz[i * nq + b] -= t[i];
    VIMBMatVec(dI + 9 * kk, wb, t1);
    VIMBCrossAdd(Sk, Atv, 1, t1);
    for (PetscInt a = 0; a < 3; a++) {
      const PetscInt bb = (a + 1) % 3, d = (a + 2) % 3;
      for (PetscInt c = 0; c < n; c++) t1[a] += (mm[((bb * 3 + d) * n + kk) * n + c] - mm[((d * 3 + bb) * n + kk) * n + c]) * qd[c];
    }
    VIMBGtAdd(Gpd, t1, cp);
    /* Idot_k = sum_l qd_l ddI_lk */
    for (PetscInt c = 0; c < 9; c++)
      for (PetscInt l = 0; l < n; l++) Idk[c] += qd[l] * (mm[(c * n + l) * n + kk] + mm[(c * n + kk) * n + l]);
    trd = Idk[0] + Idk[4] + Idk[8];
    for (PetscInt c = 0; c < 9; c++) Idk[c] = (c % 4 ? 0 : trd) - Idk[c];
    VIMBMatVec(Idk, wb, t2);
    VIMBCrossAdd(Sk, Adtv, 1, t2);
    VIMBGtAdd(k.G, t2, cp);
    for (PetscInt a = 0; a < 4; a++) dfdz[(3 + a) * nq + b] -= cp[a];
    /* H (q_k, q_l), l >= k: w_b . ddI_kl w_b / 2 = (tr(ddJ) |w_b|^2 - w_b . ddJ w_b) / 2 */
    for (PetscInt l = kk; l < n; l++) {
      PetscReal dd[9], h, ww = wb[0] * wb[0] + wb[1] * wb[1] + wb[2] * wb[2], wJw = 0;
      for (PetscInt c = 0; c < 9; c++) dd[c] = mm[(c * n + kk) * n + l] + mm[(c * n + l) * n + kk];
      for (PetscInt c = 0; c < 3; c++)
        for (PetscInt d = 0; d < 3; d++) wJw += wb[c] * dd[c * 3 + d] * wb[d];
      h = 0.5 * ((dd[0] + dd[4] + dd[8]) * ww - wJw);
      dfdz[(7 + kk) * nq + 7 + l] += h;
      if (l != kk) dfdz[(7 + l) * nq + 7 + kk] += h;
    }
  }
}

/* The hyper-dual tangent (the reference of VIMBFlexSpatialQvTangentReal): -Y by M on the hyper-dual z with e1 = e_b and
   e2 = w (d/dz_b (dM/dt) = sum_a w_a d2M/dz_a dz_b), H from T on e1 = e_i, e2 = e_b */
static void VIMBFlexSpatialQvTangentHD(const VIMBFlex *fx, const PetscReal z[], const PetscReal w[], PetscReal dfdz[], PetscReal work[])
{
  const PetscInt n = fx->nf, nq = 7 + n, nn = nq * nq;
  VIHD          *Z = VIMBFlexSpatialHD(nq, work), *MH = Z + nq, *W = MH + nn;
  PetscReal     *W0 = (PetscReal *)(W + 9 * n);

  VIMBFlexSpatialW0(fx, z + 7, W0);
  for (PetscInt b = 3; b < nq; b++) {
    VIMBFlexSpatialSeed(nq, z, b, w, -1, Z);
    VIMBFlexSpatialMassHD(fx, Z, W0, MH, W);
    for (PetscInt i = 0; i < nq; i++) {
      PetscReal r = 0;
      for (PetscInt j = 0; j < nq; j++) r += MH[i * nq + j].ab * w[j];
      dfdz[i * nq + b] -= r;
    }
  }
  for (PetscInt i = 3; i < nq; i++)
    for (PetscInt b = i; b < nq; b++) {
      PetscReal t;
      VIMBFlexSpatialSeed(nq, z, i, NULL, b, Z);
      t = VIMBFlexSpatialKineticHD(fx, Z, W0, w, W).ab;
      dfdz[i * nq + b] += t;
      if (b != i) dfdz[b * nq + i] += t;
    }
}

void VIMBFlexSpatialQvTangent(const VIMBFlex *fx, const PetscReal z[], const PetscReal w[], PetscBool hyperdual, PetscReal dfdz[], PetscReal work[])
{
  if (hyperdual)
    VIMBFlexSpatialQvTangentHD(fx, z, w, dfdz, work);
  else
    VIMBFlexSpatialQvTangentReal(fx, z, w, dfdz, (PetscReal *)VIMBFlexSpatialHD(7 + fx->nf, work));
}

void VIMBFlexSpatialForce(const VIMBFlex *fx, const PetscReal g[], const PetscReal tau[], const PetscReal z[], const PetscReal w[], PetscReal f[],
                          PetscReal dfdz[], PetscReal dfdw[], PetscReal work[])
{
  const PetscInt   n = fx->nf, nq = 7 + n, nn = nq * nq;
  PetscReal       *M = work, *dM = M + nn, *B = dM + nq * nn, *Md = B + nn;
  VIHD            *Z = VIMBFlexSpatialHD(nq, work);
  const PetscReal *p = z + 3, *q = z + 7, *wq = w + 7;
  PetscReal        ub[3], Bg[16];

  /* M and dM/dz written out (VIMBFlexSpatialMassReal), then Lagrange's Q_v and its tangents */
  VIMBFlexSpatialMassReal(fx, z, M, dM, (PetscReal *)Z);
  VIMBFlexLagrange(nq, dM, w, f, dfdw, B, Md);
  if (dfdz) VIMBFlexSpatialQvTangent(fx, z, w, PETSC_FALSE, dfdz, work);
  /* gravity: V = -g . (m R + A(p) u-bar), u-bar = I_1 + S-bar q: Q_R = m g, Q_p = 2 B_g(u-bar) p, Q_f,k = p^T B_g(S-bar_k) p */
  for (PetscInt i = 0; i < 3; i++) {
    ub[i] = fx->fr->first_moment[i];
    for (PetscInt k = 0; k < n; k++) ub[i] += fx->S[i * n + k] * q[k];
    f[i] += fx->m * g[i];
  }
  VIMBFlexSpatialGravityForm(g, ub, Bg);
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt b = 0; b < 4; b++) {
      f[3 + a] += 2 * Bg[a * 4 + b] * p[b];
      if (dfdz) dfdz[(3 + a) * nq + 3 + b] += 2 * Bg[a * 4 + b];
    }
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal Sk[3] = {fx->S[k], fx->S[n + k], fx->S[2 * n + k]};
    PetscReal       Bk[16], el = 0;
    VIMBFlexSpatialGravityForm(g, Sk, Bk);
    for (PetscInt a = 0; a < 4; a++) {
      PetscReal Bp = 0;
      for (PetscInt b = 0; b < 4; b++) Bp += Bk[a * 4 + b] * p[b];
      f[7 + k] += p[a] * Bp;
      if (dfdz) {
        dfdz[(3 + a) * nq + 7 + k] += 2 * Bp;
        dfdz[(7 + k) * nq + 3 + a] += 2 * Bp;
      }
    }
    /* the ROM's -K q_f - D q_f' */
    for (PetscInt l = 0; l < n; l++) {
      el += fx->K[k * n + l] * q[l] + fx->D[k * n + l] * wq[l];
      if (dfdz) dfdz[(7 + k) * nq + 7 + l] -= fx->K[k * n + l];
      if (dfdw) dfdw[(7 + k) * nq + 7 + l] -= fx->D[k * n + l];
    }
    f[7 + k] -= el;
  }
  /* the loads' torque tau in the frame: virtual work tau . 2 G(p) dp, f_p += 2 G(p)^T tau (linear in p), as mbspatial.c's */
  if (tau && (tau[0] != 0 || tau[1] != 0 || tau[2] != 0))
    for (PetscInt b = 0; b < 4; b++) {
      PetscReal e[4] = {0, 0, 0, 0}, Gb[12];
      e[b]           = 1;
      VIMBQuatG(e, Gb);
      for (PetscInt a = 0; a < 4; a++) {
        const PetscReal x = 2 * (Gb[a] * tau[0] + Gb[4 + a] * tau[1] + Gb[8 + a] * tau[2]);
        f[3 + a] += x * p[b];
        if (dfdz) dfdz[(3 + a) * nq + 3 + b] += x;
      }
    }
}

void VIMBFlexSpatialEnergy(const VIMBFlex *fx, const PetscReal g[], const PetscReal z[], const PetscReal w[], PetscReal *T, PetscReal *V,
                           PetscReal work[])
{
  const PetscInt   n = fx->nf, nq = 7 + n;
  const PetscReal *p = z + 3, *q = z + 7;
  PetscReal        t = 0, v = 0, ub[3], Bg[16];

  VIMBFlexSpatialMass(fx, z, work, NULL, work); /* M in work's first nq^2 */
  for (PetscInt i = 0; i < nq; i++)
    for (PetscInt j = 0; j < nq; j++) t += 0.5 * w[i] * work[i * nq + j] * w[j];
  for (PetscInt i = 0; i < 3; i++) {
    ub[i] = fx->fr->first_moment[i];
    for (PetscInt k = 0; k < n; k++) ub[i] += fx->S[i * n + k] * q[k];
    v -= g[i] * fx->m * z[i];
  }
  VIMBFlexSpatialGravityForm(g, ub, Bg);
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt b = 0; b < 4; b++) v -= p[a] * Bg[a * 4 + b] * p[b];
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt l = 0; l < n; l++) v += 0.5 * q[k] * fx->K[k * n + l] * q[l];
  *T = t;
  *V = v;
}

void VIMBFlexSpatialDisplace(const VIMBFlex *fx, const PetscReal phi[], const PetscReal x[], const PetscReal qf[], PetscReal s[])
{
  for (PetscInt i = 0; i < 3; i++) {
    s[i] = x[i];
    for (PetscInt k = 0; phi && k < fx->nf; k++) s[i] += phi[i * fx->nf + k] * qf[k];
  }
}
