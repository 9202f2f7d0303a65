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
   planar body: seed 001 Eqs. 146-153 are its terms written out). Its tangents need the second derivatives of M, which is a
   polynomial in (p, q_f) (degree 3 in p, 2 in q_f): they are computed exactly, to rounding, by evaluating M on hyper-dual
   numbers a + b e1 + c e2 + d e1 e2 (e1^2 = e2^2 = 0), whose e1 e2 part is the exact mixed second derivative (no step).
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

void VIMBFlexSpatialForce(const VIMBFlex *fx, const PetscReal g[], const PetscReal tau[], const PetscReal z[], const PetscReal w[], PetscReal f[],
                          PetscReal dfdz[], PetscReal dfdw[], PetscReal work[])
{
  const PetscInt   n = fx->nf, nq = 7 + n, nn = nq * nq;
  PetscReal       *M = work, *dM = M + nn, *B = dM + nq * nn, *Md = B + nn;
  VIHD            *Z = VIMBFlexSpatialHD(nq, work), *MH = Z + nq, *W = MH + nn;
  PetscReal       *W0 = (PetscReal *)(W + 9 * n);
  const PetscReal *p = z + 3, *q = z + 7, *wq = w + 7;
  PetscReal        ub[3], Bg[16];

  VIMBFlexSpatialW0(fx, q, W0);
  /* dM/dz_b (e1 = e_b) with, in the same evaluation (e2 = w), d/dz_b (dM/dt) = sum_a w_a d2M/dz_a dz_b: the first term of
     dQ_v/dz_b = -(d/dz_b (dM/dt)) w + 1/2 d2(w^T M w)/dz dz_b */
  for (PetscInt i = 0; i < 3 * nn; i++) dM[i] = 0;
  for (PetscInt b = 3; b < nq; b++) {
    VIMBFlexSpatialSeed(nq, z, b, w, -1, Z);
    VIMBFlexSpatialMassHD(fx, Z, W0, MH, W);
    for (PetscInt i = 0; i < nn; i++) dM[b * nn + i] = MH[i].a;
    if (dfdz)
      for (PetscInt i = 0; i < nq; i++) {
        PetscReal r = 0;
        for (PetscInt j = 0; j < nq; j++) r += MH[i * nq + j].ab * w[j];
        dfdz[i * nq + b] -= r;
      }
  }
  VIMBFlexLagrange(nq, dM, w, f, dfdw, B, Md);
  if (dfdz) /* 1/2 w^T (d2M/dz_i dz_b) w, symmetric in (i, b), none in R */
    for (PetscInt i = 3; i < nq; i++)
      for (PetscInt b = i; b < nq; b++) {
        PetscReal t;
        VIMBFlexSpatialSeed(nq, z, i, NULL, b, Z);
        t = VIMBFlexSpatialKineticHD(fx, Z, W0, w, W).ab;
        dfdz[i * nq + b] += t;
        if (b != i) dfdz[b * nq + i] += t;
      }
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
