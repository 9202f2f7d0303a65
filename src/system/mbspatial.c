/* Spatial rigid bodies of the multibody system (model key 'dim: 3', docs/multibody.md "Spatial bodies").

   A body's coordinates are z = (r, p): its centre of mass r (3) and a unit quaternion p = (e0, e1, e2, e3) (4), and its
   velocity is w = dz/dt (7), so that the schemes' q' = u holds as for the planar bodies. With
     G(p) = [-e, e0 I - [e]x] (3 x 4, e = (e1, e2, e3)),   w_b = 2 G(p) p'  (the angular velocity in the body's frame),
   G(p) is linear in p and G(p) p = 0, hence G(a) b = -G(b) a. The kinetic energy is
     T = m |r'|^2 / 2 + 2 p'^T G(p)^T J G(p) p' + c (p^T p')^2,
   the last term zero on the constraint |p| = 1 (its rate p^T p' = 0): it makes the mass SPD, M = diag(m I, 4 G^T J G + 2 c p
   p^T) (4 G^T J G alone is singular along p), and every term it adds to Lagrange's equations lies along p, the gradient of
   the norm row, so its multiplier absorbs them and the motion is the same for any c > 0 (c = 2 tr(J) / 3: on a sphere the
   block is 4 J I). Lagrange's equations give the quadratic velocity vector
     f = -8 G(p')^T J G(p) p' - 2 c |p'|^2 p = 8 G(p')^T J G(p') p - 2 c |p'|^2 p.
   The norm |p| = 1 is one bilateral row per body, (p^T p - 1) / 2, held at position and velocity level by GGL (seed 002
   Eq. 29c-d, g): no drift, no singularity. */
#include "mbimpl.h"

/* G(p), 3 x 4 row-major */
void VIMBQuatG(const PetscReal p[], PetscReal G[])
{
  const PetscReal e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
  const PetscReal g[12] = {-e1, e0, e3, -e2, -e2, -e3, e0, e1, -e3, e2, -e1, e0};
  for (PetscInt i = 0; i < 12; i++) G[i] = g[i];
}

/* B(y) with G(v)^T y = B(y) v (4 x 4): column k is G(e_k)^T y */
static void VIMBQuatB(const PetscReal y[], PetscReal B[])
{
  for (PetscInt k = 0; k < 4; k++) {
    PetscReal ek[4] = {0, 0, 0, 0}, G[12];
    ek[k]           = 1;
    VIMBQuatG(ek, G);
    for (PetscInt a = 0; a < 4; a++) B[a * 4 + k] = G[a] * y[0] + G[4 + a] * y[1] + G[8 + a] * y[2];
  }
}

/* (R(p) s)_i = p^T A_i p with A_i symmetric (4 x 4 each): R(p) the quadratic rotation of a unit quaternion */
void VIMBQuatForms(const PetscReal s[], PetscReal A[3][16])
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt k = 0; k < 16; k++) A[i][k] = 0;
#define SYM(i, a, b, v) (A[i][(a)*4 + (b)] += (v), A[i][(b)*4 + (a)] += ((a) == (b) ? 0 : (v)))
  SYM(0, 0, 0, s[0]), SYM(0, 1, 1, s[0]), SYM(0, 2, 2, -s[0]), SYM(0, 3, 3, -s[0]);
  SYM(0, 1, 2, s[1]), SYM(0, 0, 3, -s[1]), SYM(0, 1, 3, s[2]), SYM(0, 0, 2, s[2]);
  SYM(1, 0, 0, s[1]), SYM(1, 1, 1, -s[1]), SYM(1, 2, 2, s[1]), SYM(1, 3, 3, -s[1]);
  SYM(1, 1, 2, s[0]), SYM(1, 0, 3, s[0]), SYM(1, 2, 3, s[2]), SYM(1, 0, 1, -s[2]);
  SYM(2, 0, 0, s[2]), SYM(2, 1, 1, -s[2]), SYM(2, 2, 2, -s[2]), SYM(2, 3, 3, s[2]);
  SYM(2, 1, 3, s[0]), SYM(2, 0, 2, -s[0]), SYM(2, 2, 3, s[1]), SYM(2, 0, 1, s[1]);
#undef SYM
}

static PetscReal VIMBForm(const PetscReal A[], const PetscReal a[], const PetscReal b[])
{
  PetscReal r = 0;
  for (PetscInt i = 0; i < 4; i++)
    for (PetscInt j = 0; j < 4; j++) r += a[i] * A[i * 4 + j] * b[j];
  return r;
}

void VIMBQuatRotation(const PetscReal p[], PetscReal R[])
{
  for (PetscInt k = 0; k < 3; k++) {
    PetscReal s[3] = {0, 0, 0}, A[3][16];
    s[k]           = 1;
    VIMBQuatForms(s, A);
    for (PetscInt i = 0; i < 3; i++) R[i * 3 + k] = VIMBForm(A[i], p, p);
  }
}

void VIMBQuatOmega(const PetscReal p[], const PetscReal pd[], PetscReal wb[])
{
  PetscReal G[12];
  VIMBQuatG(p, G);
  for (PetscInt i = 0; i < 3; i++) wb[i] = 2 * (G[i * 4] * pd[0] + G[i * 4 + 1] * pd[1] + G[i * 4 + 2] * pd[2] + G[i * 4 + 3] * pd[3]);
}

void VIMBQuatRate(const PetscReal p[], const PetscReal wb[], PetscReal pd[])
{
  PetscReal G[12];
  VIMBQuatG(p, G);
  for (PetscInt a = 0; a < 4; a++) pd[a] = 0.5 * (G[a] * wb[0] + G[4 + a] * wb[1] + G[8 + a] * wb[2]);
}

/* X^T J Y (X, Y 3 x 4) added times s into P (4 x 4) */
static void VIMBAddGtJG(const PetscReal J[], const PetscReal X[], const PetscReal Y[], PetscReal s, PetscReal P[])
{
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt b = 0; b < 4; b++) {
      PetscReal r = 0;
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt j = 0; j < 3; j++) r += X[i * 4 + a] * J[i * 3 + j] * Y[j * 4 + b];
      P[a * 4 + b] += s * r;
    }
}

/* y = J X v (X 3 x 4) */
static void VIMBJXv(const PetscReal J[], const PetscReal X[], const PetscReal v[], PetscReal y[])
{
  PetscReal x[3];
  for (PetscInt i = 0; i < 3; i++) x[i] = X[i * 4] * v[0] + X[i * 4 + 1] * v[1] + X[i * 4 + 2] * v[2] + X[i * 4 + 3] * v[3];
  for (PetscInt i = 0; i < 3; i++) y[i] = J[i * 3] * x[0] + J[i * 3 + 1] * x[1] + J[i * 3 + 2] * x[2];
}

/* the 4 x 4 block P into the 7 x 7 matrix X at (3, 3) */
static void VIMBPutBlock(const PetscReal P[], PetscReal X[])
{
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt b = 0; b < 4; b++) X[(3 + a) * 7 + 3 + b] += P[a * 4 + b];
}

void VIMBSpatialMass(const VIMBBody *bd, const PetscReal z[], PetscReal M[])
{
  const PetscReal *p = z + 3;
  PetscReal        G[12], P[16] = {0};

  for (PetscInt i = 0; i < 49; i++) M[i] = 0;
  for (PetscInt i = 0; i < 3; i++) M[i * 7 + i] = bd->mass;
  VIMBQuatG(p, G);
  VIMBAddGtJG(bd->J, G, G, 4, P);
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt b = 0; b < 4; b++) P[a * 4 + b] += 2 * bd->c * p[a] * p[b];
  VIMBPutBlock(P, M);
}

/* d(M w)/dp = 4 B(J G(p) w) - 4 G(p)^T J G(w) + 2 c ((p^T w) I + p w^T) */
void VIMBSpatialMassJacobian(const VIMBBody *bd, const PetscReal z[], const PetscReal w[], PetscReal dMw[])
{
  const PetscReal *p = z + 3, *wp = w + 3;
  PetscReal        Gp[12], Gw[12], y[3], P[16], pw = 0;

  for (PetscInt i = 0; i < 49; i++) dMw[i] = 0;
  VIMBQuatG(p, Gp);
  VIMBQuatG(wp, Gw);
  VIMBJXv(bd->J, Gp, wp, y);
  VIMBQuatB(y, P);
  for (PetscInt i = 0; i < 16; i++) P[i] *= 4;
  VIMBAddGtJG(bd->J, Gp, Gw, -4, P);
  for (PetscInt a = 0; a < 4; a++) pw += p[a] * wp[a];
  for (PetscInt a = 0; a < 4; a++) {
    P[a * 4 + a] += 2 * bd->c * pw;
    for (PetscInt b = 0; b < 4; b++) P[a * 4 + b] += 2 * bd->c * p[a] * wp[b];
  }
  VIMBPutBlock(P, dMw);
}

/* f_p += 8 G(v)^T J G(v) p - 2 c |v|^2 p (v = p'); df/dp = 8 G(v)^T J G(v) - 2 c |v|^2 I,
   df/dv = 8 (B(J G(v) p) - G(v)^T J G(p)) - 4 c p v^T (G(v) p = -G(p) v).
   The loads' torque tau in the body's frame: its virtual work tau . 2 G(p) dp gives f_p += 2 G(p)^T tau = 2 B(tau) p, and
   df/dp += 2 B(tau). */
void VIMBSpatialForce(const VIMBBody *bd, const PetscReal z[], const PetscReal w[], PetscReal f[], PetscReal dfdz[], PetscReal dfdw[])
{
  const PetscReal *p = z + 3, *v = w + 3;
  PetscReal        Gp[12], Gv[12], y[3], P[16] = {0}, vv = 0;

  VIMBQuatG(p, Gp);
  VIMBQuatG(v, Gv);
  for (PetscInt a = 0; a < 4; a++) vv += v[a] * v[a];
  VIMBAddGtJG(bd->J, Gv, Gv, 8, P);
  if (bd->torque[0] != 0 || bd->torque[1] != 0 || bd->torque[2] != 0) {
    PetscReal T[16];
    VIMBQuatB(bd->torque, T);
    for (PetscInt i = 0; i < 16; i++) P[i] += 2 * T[i];
  }
  for (PetscInt a = 0; a < 4; a++) {
    PetscReal r = 0;
    for (PetscInt b = 0; b < 4; b++) r += P[a * 4 + b] * p[b];
    f[3 + a] += r - 2 * bd->c * vv * p[a];
  }
  if (dfdz) {
    for (PetscInt a = 0; a < 4; a++) P[a * 4 + a] -= 2 * bd->c * vv;
    VIMBPutBlock(P, dfdz);
  }
  if (dfdw) {
    VIMBJXv(bd->J, Gv, p, y);
    VIMBQuatB(y, P);
    for (PetscInt i = 0; i < 16; i++) P[i] *= 8;
    VIMBAddGtJG(bd->J, Gv, Gp, -8, P);
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt b = 0; b < 4; b++) P[a * 4 + b] -= 4 * bd->c * p[a] * v[b];
    VIMBPutBlock(P, dfdw);
  }
}

void VIMBSpatialEnergy(const VIMBBody *bd, const PetscReal g[], const PetscReal z[], const PetscReal w[], PetscReal *T, PetscReal *V)
{
  PetscReal M[49], t = 0;

  VIMBSpatialMass(bd, z, M);
  for (PetscInt i = 0; i < 7; i++)
    for (PetscInt j = 0; j < 7; j++) t += w[i] * M[i * 7 + j] * w[j];
  *T = 0.5 * t;
  *V = -bd->mass * (g[0] * z[0] + g[1] * z[1] + g[2] * z[2]);
}

/* L(a) with a (x) b = L(a) b, the quaternion product (4 x 4 row-major) */
static void VIMBQuatLeft(const PetscReal a[], PetscReal L[])
{
  const PetscReal l[16] = {a[0], -a[1], -a[2], -a[3], a[1], a[0], -a[3], a[2], a[2], a[3], a[0], -a[1], a[3], -a[2], a[1], a[0]};
  for (PetscInt i = 0; i < 16; i++) L[i] = l[i];
}

/*
  A fixed or prismatic joint's rotation rows: the relative rotation p1^* (x) p2 held at its initial value r0 through the
  vector part of c (x) p1^* (x) p2 with c = r0^* (zero at the start: c (x) r0 = |r0|^2 (1, 0, 0, 0)). Row k (k = 1, 2, 3 of
  the product) is bilinear, p1^T lock_k p2 with lock_k[i][j] = D_ii (L(c) L(e_i))_kj, D = diag(1, -1, -1, -1) (the
  conjugate): its gradient is (lock_k p2, lock_k^T p1), its Hessian the constant off-diagonal block lock_k.
*/
/* The four bilinear forms of y = c (x) p1^* (x) p2 with c = (p1^* (x) p2)^* at the given poses: y_k = p1^T F_k p2, k = 0..3 */
static void VIMBSpatialRelativeForms(const PetscReal p1[], const PetscReal p2[], PetscReal F[4][16])
{
  PetscReal r0[4], c[4], Lc[16];

  VIMBSpatialRelative(p1, p2, r0); /* r0 = p1^* (x) p2 */
  c[0] = r0[0], c[1] = -r0[1], c[2] = -r0[2], c[3] = -r0[3];
  VIMBQuatLeft(c, Lc);
  for (PetscInt i = 0; i < 4; i++) {
    PetscReal ei[4] = {0, 0, 0, 0}, Li[16];
    ei[i]           = 1;
    VIMBQuatLeft(ei, Li);
    for (PetscInt k = 0; k < 4; k++)
      for (PetscInt j = 0; j < 4; j++) {
        PetscReal x = 0;
        for (PetscInt m = 0; m < 4; m++) x += Lc[k * 4 + m] * Li[m * 4 + j];
        F[k][i * 4 + j] = (i ? -1 : 1) * x;
      }
  }
}

void VIMBSpatialLock(const PetscReal p1[], const PetscReal p2[], PetscReal lock[3][16])
{
  PetscReal F[4][16];

  VIMBSpatialRelativeForms(p1, p2, F);
  for (PetscInt k = 0; k < 3; k++) PetscArraycpy(lock[k], F[k + 1], 16);
}

/*
  A spatial driver's angle row. With y = c (x) p1^* (x) p2 (c = the initial relative rotation's conjugate, so y = 1 at the
  start) and b = R2^T R1 a the hinge's axis in body2's frame at the start, the revolute rows keep y a rotation about b by
  the joint's angle phi: y = (cos(phi/2), b sin(phi/2)). Its sine and cosine are bilinear: s = b . vec(y) = p1^T S p2 and
  c = y_0 = p1^T C p2 (forms[0] = S, forms[1] = C), and the row is phi = 2 atan2(s, c) (minus speed t, multibody.c).
*/
void VIMBSpatialDriverForms(const PetscReal p1[], const PetscReal p2[], const PetscReal a[], PetscReal forms[3][16])
{
  PetscReal F[4][16], R1[9], R2[9], w[3], b[3];

  VIMBSpatialRelativeForms(p1, p2, F);
  VIMBQuatRotation(p1, R1);
  VIMBQuatRotation(p2, R2);
  for (PetscInt i = 0; i < 3; i++) w[i] = R1[i * 3] * a[0] + R1[i * 3 + 1] * a[1] + R1[i * 3 + 2] * a[2]; /* R1 a */
  for (PetscInt i = 0; i < 3; i++) b[i] = R2[i] * w[0] + R2[3 + i] * w[1] + R2[6 + i] * w[2];             /* R2^T R1 a */
  for (PetscInt k = 0; k < 16; k++) {
    forms[0][k] = b[0] * F[1][k] + b[1] * F[2][k] + b[2] * F[3][k];
    forms[1][k] = F[0][k];
    forms[2][k] = 0;
  }
}

/* phi = 2 atan2(s, c), s = p1^T S p2, c = p1^T C p2: grad phi = 2 (c grad s - s grad c) / D, D = s^2 + c^2, and its Hessian
   2 [(grad c grad s^T - grad s grad c^T + c H_s - s H_c) / D - N grad D^T / D^2] (N = c grad s - s grad c; H_s, H_c the
   forms' constant off-diagonal blocks), on the quaternions of the two bodies (the ground's fixed: o = -1) */
static void VIMBSpatialDriverRow(const VIMBModel *model, const VIMBJoint *j, const PetscReal q[], PetscReal *g, PetscReal grad[], PetscReal w,
                                 PetscReal H[])
{
  const PetscReal  one[4] = {1, 0, 0, 0}, *S = j->lock[0], *C = j->lock[1];
  const PetscInt   n = model->n, o[2] = {j->body[0] ? model->bodies[j->body[0]].off + 3 : -1, model->bodies[j->body[1]].off + 3};
  const PetscReal *p1 = j->body[0] ? q + o[0] : one, *p2 = q + o[1];
  PetscReal        ds[8], dc[8], s = 0, c = 0, D, N[8], dD[8];

  for (PetscInt a = 0; a < 4; a++) {
    ds[a] = dc[a] = ds[4 + a] = dc[4 + a] = 0;
    for (PetscInt b = 0; b < 4; b++) {
      ds[a] += S[a * 4 + b] * p2[b], dc[a] += C[a * 4 + b] * p2[b];         /* d/dp1 */
      ds[4 + a] += S[b * 4 + a] * p1[b], dc[4 + a] += C[b * 4 + a] * p1[b]; /* d/dp2 */
    }
    s += p1[a] * ds[a], c += p1[a] * dc[a];
  }
  D = s * s + c * c;
  for (PetscInt a = 0; a < 8; a++) N[a] = c * ds[a] - s * dc[a], dD[a] = 2 * (s * ds[a] + c * dc[a]);
  if (g) *g = 2 * PetscAtan2Real(s, c);
  for (PetscInt a = 0; a < 8 && grad; a++)
    if (o[a / 4] >= 0) grad[o[a / 4] + a % 4] = 2 * N[a] / D;
  if (!H || w == 0) return;
  for (PetscInt a = 0; a < 8; a++) {
    if (o[a / 4] < 0) continue;
    for (PetscInt b = 0; b < 8; b++) {
      PetscReal hs = 0, hc = 0, x;
      if (o[b / 4] < 0) continue;
      if (a < 4 && b >= 4) hs = S[a * 4 + b - 4], hc = C[a * 4 + b - 4];
      if (a >= 4 && b < 4) hs = S[b * 4 + a - 4], hc = C[b * 4 + a - 4];
      x = (dc[b] * ds[a] - ds[b] * dc[a] + c * hs - s * hc) / D - N[a] * dD[b] / (D * D);
      H[(o[a / 4] + a % 4) * n + o[b / 4] + b % 4] += 2 * w * x;
    }
  }
}

/*
  A relative rotation row of two bodies, p1^T C p2 (C = lock_k, above; the ground's p = (1, 0, 0, 0), no coordinates): its
  gradient (C p2, C^T p1) and its Hessian the constant off-diagonal block C; g, its gradient (n) and its Hessian added
  times w into H (n x n). (A point of body2 against a plane of body1, a prismatic joint's position rows and a contact's,
  is VIMBPlaneRow's, mbpoint.c.)
*/
static void VIMBSpatialRotationRow(const VIMBModel *model, const PetscInt body[2], const PetscReal C[], const PetscReal q[], PetscReal *g,
                                   PetscReal grad[], PetscReal w, PetscReal H[])
{
  const PetscInt   n      = model->n;
  const PetscReal  one[4] = {1, 0, 0, 0};
  const PetscReal *p[2];
  PetscInt         o[2];
  PetscReal        val = 0;

  for (PetscInt s = 0; s < 2; s++) {
    o[s] = body[s] ? model->bodies[body[s]].off + 3 : -1;
    p[s] = body[s] ? q + o[s] : one;
  }
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt b = 0; b < 4; b++) {
      val += p[0][a] * C[a * 4 + b] * p[1][b];
      if (grad && o[0] >= 0) grad[o[0] + a] += C[a * 4 + b] * p[1][b];
      if (grad && o[1] >= 0) grad[o[1] + b] += p[0][a] * C[a * 4 + b];
      if (H && w != 0 && o[0] >= 0 && o[1] >= 0 && C[a * 4 + b] != 0) {
        H[(o[0] + a) * n + o[1] + b] += w * C[a * 4 + b];
        H[(o[1] + b) * n + o[0] + a] += w * C[a * 4 + b];
      }
    }
  if (g) *g = val;
}

/*
  A point on a flexible body's node (phi, 3 x nf: its elastic displacement rows, mbflexspatial.c) is at s = x + Phi_P q_f in
  the frame, and a row sum_i a_i (R(p) s)_i = p^T B(s) p with B(s) = sum_i a_i A_i(s) linear in s gets the elastic columns
  p^T B(Phi_k) p and the curvature 2 B(Phi_k) p between p and q_k (none between two elastic coordinates): added here, times
  sg, into grad and w times into H (a body's off, its quaternion at off + 3, q_f at off + 7). The point's s is the row's.
*/
static void VIMBSpatialNodeColumns(const VIMBModel *model, PetscInt b, const PetscReal phi[], const PetscReal a[], PetscReal sg, const PetscReal q[],
                                   PetscReal grad[], PetscReal w, PetscReal H[])
{
  const PetscInt   n = model->n, o = model->bodies[b].off, nf = phi ? model->bodies[b].flex->nf : 0;
  const PetscReal *p = q + o + 3;

  for (PetscInt k = 0; k < nf; k++) {
    const PetscReal ph[3] = {phi[k], phi[nf + k], phi[2 * nf + k]};
    PetscReal       A[3][16], Bp[4], pBp = 0;
    VIMBQuatForms(ph, A);
    for (PetscInt e = 0; e < 4; e++) {
      Bp[e] = 0;
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt f = 0; f < 4; f++) Bp[e] += a[i] * A[i][e * 4 + f] * p[f];
      pBp += p[e] * Bp[e];
    }
    if (grad) grad[o + 7 + k] += sg * pBp;
    if (H && w != 0)
      for (PetscInt e = 0; e < 4; e++) {
        H[(o + 3 + e) * n + o + 7 + k] += 2 * sg * w * Bp[e];
        H[(o + 7 + k) * n + o + 3 + e] += 2 * sg * w * Bp[e];
      }
  }
}

/*
  A spherical joint's row i (i = 0, 1, 2): g = (r_b + R(p_b) s_b - r_a - R(p_a) s_a)_i, with (R(p) s)_i = p^T A_i(s) p:
  dg/dr_b = e_i, dg/dp_b = 2 A_i(s_b) p_b, the Hessian's p_b block 2 A_i(s_b) (and minus those of body a).
  A quaternion's norm row: g = (p^T p - 1) / 2, dg/dp = p, Hessian I.
*/
PetscErrorCode VIMBSpatialConstraint(const VIMBModel *model, PetscInt r, const PetscReal q[], PetscReal *g, PetscReal grad[], PetscReal w,
                                     PetscReal H[])
{
  const PetscInt n = model->n;

  PetscFunctionBeginUser;
  if (grad) PetscCall(PetscArrayzero(grad, n));
  if (r >= model->nrows - model->ncontacts) {
    /* a point (a node's: x + Phi_P q_f) against a plane of the ground or of a moving body: g = (R1 n) . (P - r1 - R1 C) */
    const VIMBContact *c = &model->contacts[r - (model->nrows - model->ncontacts)];
    PetscCall(VIMBPlaneRow(model, c->body, c->line_normal, c->line_point, NULL, c->point, c->phi, q, g, grad, w, H));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (r >= model->qrow) { /* a norm row */
    const PetscInt o = model->bodies[r - model->qrow + 1].off + 3;
    if (g) *g = 0.5 * (q[o] * q[o] + q[o + 1] * q[o + 1] + q[o + 2] * q[o + 2] + q[o + 3] * q[o + 3] - 1);
    for (PetscInt a = 0; a < 4; a++) {
      if (grad) grad[o + a] = q[o + a];
      if (H && w != 0) H[(o + a) * n + o + a] += w;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    const VIMBJoint *j = NULL;
    PetscInt         i;
    PetscReal        val = 0;
    for (PetscInt k = 0; k < model->njoints; k++)
      if (r >= model->joints[k].row && r < model->joints[k].row + model->joints[k].rows) j = &model->joints[k];
    i = r - j->row;
    if (j->type == VI_MB_JOINT_DRIVER && i == 5) {
      VIMBSpatialDriverRow(model, j, q, g, grad, w, H);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (j->type == VI_MB_JOINT_PRISMATIC && i == 5) { /* a driven prismatic joint's slide: point2 against body1's plane normal to the axis */
      PetscCall(VIMBPlaneRow(model, j->body, j->hinge[0], j->point[0], j->phi[0], j->point[1], j->phi[1], q, g, grad, w, H));
      if (g) *g -= j->slide0;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if ((j->type == VI_MB_JOINT_FIXED && i >= 3) || j->type == VI_MB_JOINT_PRISMATIC) {
      /* fixed: rows 3-5 the rotation; prismatic: rows 0, 1 point2 against body1's planes through point1 normal to n1, n2,
         rows 2-4 the rotation */
      const PetscInt k = j->type == VI_MB_JOINT_FIXED ? i - 3 : i - 2;
      if (k >= 0)
        VIMBSpatialRotationRow(model, j->body, j->lock[k], q, g, grad, w, H);
      else
        PetscCall(VIMBPlaneRow(model, j->body, j->hinge[1 + i], j->point[0], j->phi[0], j->point[1], j->phi[1], q, g, grad, w, H));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (i >= 3) { /* a revolute joint's row: (R1 a) . (R2 n) = sum_i (p1^T A_i(a) p1) (p2^T A_i(n) p2), R of the ground I */
      PetscReal       A[2][3][16], Ap[2][3][4], d[2][3];
      const PetscReal one[4] = {1, 0, 0, 0};
      PetscInt        o[2];
      for (PetscInt side = 0; side < 2; side++) {
        const PetscReal *p = j->body[side] ? q + model->bodies[j->body[side]].off + 3 : one;
        o[side]            = j->body[side] ? model->bodies[j->body[side]].off + 3 : -1;
        VIMBQuatForms(j->hinge[side ? i - 2 : 0], A[side]);
        for (PetscInt c = 0; c < 3; c++) {
          for (PetscInt a = 0; a < 4; a++)
            Ap[side][c][a] = A[side][c][a * 4] * p[0] + A[side][c][a * 4 + 1] * p[1] + A[side][c][a * 4 + 2] * p[2] + A[side][c][a * 4 + 3] * p[3];
          d[side][c] = p[0] * Ap[side][c][0] + p[1] * Ap[side][c][1] + p[2] * Ap[side][c][2] + p[3] * Ap[side][c][3];
        }
      }
      if (g) *g = d[0][0] * d[1][0] + d[0][1] * d[1][1] + d[0][2] * d[1][2];
      for (PetscInt side = 0; side < 2; side++) {
        if (o[side] < 0) continue;
        for (PetscInt c = 0; c < 3; c++) {
          for (PetscInt a = 0; a < 4; a++) {
            if (grad) grad[o[side] + a] += 2 * Ap[side][c][a] * d[1 - side][c];
            if (H && w != 0)
              for (PetscInt b = 0; b < 4; b++) H[(o[side] + a) * n + o[side] + b] += 2 * w * A[side][c][a * 4 + b] * d[1 - side][c];
          }
          if (H && w != 0 && side == 0 && o[1] >= 0)
            for (PetscInt a = 0; a < 4; a++)
              for (PetscInt b = 0; b < 4; b++) {
                const PetscReal x = 4 * w * Ap[0][c][a] * Ap[1][c][b];
                H[(o[0] + a) * n + o[1] + b] += x;
                H[(o[1] + b) * n + o[0] + a] += x;
              }
        }
      }
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    for (PetscInt side = 0; side < 2; side++) {
      const PetscInt   b = j->body[side], sg = side ? 1 : -1;
      PetscReal        A[3][16], Ap[4], s[3], ei[3] = {0, 0, 0};
      const PetscReal *p;
      PetscInt         o;
      if (!b) {
        val += sg * j->point[side][i]; /* the ground's point is fixed */
        continue;
      }
      o = model->bodies[b].off;
      p = q + o + 3;
      VIMBFlexSpatialDisplace(model->bodies[b].flex, j->phi[side], j->point[side], q + o + 7, s); /* a node's: x + Phi_P q_f */
      VIMBQuatForms(s, A);
      ei[i] = 1;
      VIMBSpatialNodeColumns(model, b, j->phi[side], ei, sg, q, grad, w, H);
      for (PetscInt a = 0; a < 4; a++) Ap[a] = A[i][a * 4] * p[0] + A[i][a * 4 + 1] * p[1] + A[i][a * 4 + 2] * p[2] + A[i][a * 4 + 3] * p[3];
      val += sg * (q[o + i] + p[0] * Ap[0] + p[1] * Ap[1] + p[2] * Ap[2] + p[3] * Ap[3]);
      if (grad) {
        grad[o + i] = sg;
        for (PetscInt a = 0; a < 4; a++) grad[o + 3 + a] = 2 * sg * Ap[a];
      }
      if (H && w != 0)
        for (PetscInt a = 0; a < 4; a++)
          for (PetscInt c = 0; c < 4; c++) H[(o + 3 + a) * n + o + 3 + c] += 2 * sg * w * A[i][a * 4 + c];
    }
    if (g) *g = val;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A spatial contact's tangents (unit, spanning its plane): t1 the coordinate axis least aligned with the normal n, made
   normal to it, and t2 = n x t1 (the ground z = 0 with n = (0, 0, 1): t1 = x, t2 = y) */
void VIMBSpatialContactTangents(const PetscReal nv[], PetscReal t[2][3])
{
  PetscInt  k = 0;
  PetscReal len;

  for (PetscInt i = 1; i < 3; i++)
    if (PetscAbsReal(nv[i]) < PetscAbsReal(nv[k])) k = i;
  for (PetscInt i = 0; i < 3; i++) t[0][i] = (i == k ? 1 : 0) - nv[k] * nv[i];
  len = PetscSqrtReal(t[0][0] * t[0][0] + t[0][1] * t[0][1] + t[0][2] * t[0][2]);
  for (PetscInt i = 0; i < 3; i++) t[0][i] /= len;
  t[1][0] = nv[1] * t[0][2] - nv[2] * t[0][1];
  t[1][1] = nv[2] * t[0][0] - nv[0] * t[0][2];
  t[1][2] = nv[0] * t[0][1] - nv[1] * t[0][0];
}

/* The two tangential rows of spatial contact k (2 x n): the sliding velocity of its point along t_a,
   t_a . (r' + d(R(p) s)/dt) = t_a . r' + 2 p^T B_a p' with B_a = sum_i t_a,i A_i(s), so its gradient is (t_a, 2 B_a p);
   on a moving body's plane, relative to that body's material point under it (below). */
PetscErrorCode VIMBSpatialTangent(const VIMBModel *model, PetscInt k, const PetscReal q[], PetscReal grad[])
{
  const VIMBContact *c = &model->contacts[k];
  const PetscInt     o = model->bodies[c->body[1]].off, oa = c->body[0] ? model->bodies[c->body[0]].off : -1;
  const PetscReal   *p = q + o + 3;
  PetscReal          A[3][16], t[2][3], Ax[3][16], x[3], s[3];

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(grad, 2 * model->n));
  VIMBFlexSpatialDisplace(model->bodies[c->body[1]].flex, c->phi, c->point, q + o + 7, s); /* a node's: x + Phi_P q_f */
  VIMBQuatForms(s, A);
  VIMBSpatialContactTangents(c->line_normal, t);
  if (oa >= 0) {
    /* on a moving body's plane: the tangents turn with it, t_a = R(p1) t_a (body1's frame), and the velocity is relative
       to body1's material point under the contact point P, x = R(p1)^T (P - r1) / |p1|^4 in body1's frame (R(p) = |p|^2
       times a rotation): its velocity r1' + d(R(p1) x)/dt at fixed x gives the gradient (-t_a, -2 B_a(x) p1) on body1 */
    const PetscReal *p1 = q + oa + 3;
    PetscReal        R1[9], P[3], n4 = 0, tb[2][3];
    VIMBQuatRotation(p1, R1);
    for (PetscInt a = 0; a < 4; a++) n4 += p1[a] * p1[a];
    n4 *= n4;
    for (PetscInt i = 0; i < 3; i++) P[i] = q[o + i] + VIMBForm(A[i], p, p) - q[oa + i];
    for (PetscInt i = 0; i < 3; i++) x[i] = (R1[i] * P[0] + R1[3 + i] * P[1] + R1[6 + i] * P[2]) / n4;
    VIMBQuatForms(x, Ax);
    for (PetscInt a = 0; a < 2; a++)
      for (PetscInt i = 0; i < 3; i++) tb[a][i] = R1[i * 3] * t[a][0] + R1[i * 3 + 1] * t[a][1] + R1[i * 3 + 2] * t[a][2];
    for (PetscInt a = 0; a < 2; a++)
      for (PetscInt i = 0; i < 3; i++) t[a][i] = tb[a][i];
  }
  for (PetscInt a = 0; a < 2; a++) {
    PetscReal *ga = grad + a * model->n;
    for (PetscInt i = 0; i < 3; i++) ga[o + i] = t[a][i];
    for (PetscInt e = 0; e < 4; e++) {
      PetscReal r = 0;
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt f = 0; f < 4; f++) r += t[a][i] * A[i][e * 4 + f] * p[f];
      ga[o + 3 + e] = 2 * r;
    }
    VIMBSpatialNodeColumns(model, c->body[1], c->phi, t[a], 1, q, ga, 0, NULL); /* a node's q_f columns: t_a . A Phi_k */
    if (oa < 0) continue;
    for (PetscInt i = 0; i < 3; i++) ga[oa + i] = -t[a][i];
    for (PetscInt e = 0; e < 4; e++) {
      PetscReal r = 0;
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt f = 0; f < 4; f++) r += t[a][i] * Ax[i][e * 4 + f] * q[oa + 3 + f];
      ga[oa + 3 + e] = -2 * r;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = p1^* (x) p2: body2's orientation relative to body1's (R1^T R2) */
void VIMBSpatialRelative(const PetscReal p1[], const PetscReal p2[], PetscReal r[])
{
  const PetscReal c1[4] = {p1[0], -p1[1], -p1[2], -p1[3]};
  PetscReal       L[16];

  VIMBQuatLeft(c1, L);
  for (PetscInt a = 0; a < 4; a++) r[a] = L[a * 4] * p2[0] + L[a * 4 + 1] * p2[1] + L[a * 4 + 2] * p2[2] + L[a * 4 + 3] * p2[3];
}

/* A revolute joint's angle: R1^T R2 = Rot(a, theta) R1^T R2 at the start (the axis a in body1's frame is fixed in both bodies),
   so d = r (x) r0^* is the rotation about a by theta = 2 atan2(a . vec(d), d_0): continuous in (-2 pi, 2 pi] (the
   quaternions move continuously), not unwrapped beyond */
static PetscReal VIMBSpatialJointAngle(const VIMBModel *model, const VIMBJoint *j, const PetscReal q[])
{
  const PetscReal  one[4] = {1, 0, 0, 0};
  const PetscReal *p1 = j->body[0] ? q + model->bodies[j->body[0]].off + 3 : one, *p2 = q + model->bodies[j->body[1]].off + 3;
  const PetscReal  c0[4] = {j->rel0[0], -j->rel0[1], -j->rel0[2], -j->rel0[3]}, *a = j->hinge[0];
  PetscReal        r[4], L[16], d[4];

  VIMBSpatialRelative(p1, p2, r);
  VIMBQuatLeft(r, L);
  for (PetscInt k = 0; k < 4; k++) d[k] = L[k * 4] * c0[0] + L[k * 4 + 1] * c0[1] + L[k * 4 + 2] * c0[2] + L[k * 4 + 3] * c0[3];
  return 2 * PetscAtan2Real(a[0] * d[1] + a[1] * d[2] + a[2] * d[3], d[0]);
}

void VIMBSpatialOutput(const VIMBModel *model, const VIMBOutput *o, const PetscReal q[], const PetscReal u[], PetscReal y[])
{
  const PetscInt   off = o->body ? model->bodies[o->body].off : 0;
  const PetscReal *p = q + off + 3, *pd = u + off + 3;

  if (o->type == VI_MB_OUT_JOINT_ANGLE) {
    y[0] = VIMBSpatialJointAngle(model, &model->joints[o->index], q);
    return;
  }
  switch (o->type) {
  case VI_MB_OUT_POINT: { /* x = r + R(p) s, v = r' + (2 p^T A_i(s) p')_i; a node's s = x + Phi_P q_f, moving at R(p) Phi_P q_f' too */
    PetscReal       A[3][16], Av[3][16], s[3], sv[3];
    const PetscReal zero[3] = {0, 0, 0};
    const VIMBFlex *fx      = o->body ? model->bodies[o->body].flex : NULL;
    VIMBFlexSpatialDisplace(fx, o->phi, o->point, q + off + 7, s);
    VIMBFlexSpatialDisplace(fx, o->phi, zero, u + off + 7, sv);
    VIMBQuatForms(s, A);
    VIMBQuatForms(sv, Av);
    for (PetscInt i = 0; i < 3; i++) {
      y[i]     = q[off + i] + VIMBForm(A[i], p, p);
      y[3 + i] = u[off + i] + 2 * VIMBForm(A[i], p, pd) + VIMBForm(Av[i], p, p);
    }
  } break;
  case VI_MB_OUT_ORIENTATION:
    for (PetscInt a = 0; a < 4; a++) y[a] = p[a];
    break;
  case VI_MB_OUT_ANGULAR_VELOCITY: { /* R(p) w_b */
    PetscReal R[9], wb[3];
    VIMBQuatRotation(p, R);
    VIMBQuatOmega(p, pd, wb);
    for (PetscInt i = 0; i < 3; i++) y[i] = R[i * 3] * wb[0] + R[i * 3 + 1] * wb[1] + R[i * 3 + 2] * wb[2];
  } break;
  default:
    break;
  }
}
