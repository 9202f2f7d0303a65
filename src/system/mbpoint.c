/* Points of a multibody model's bodies, rigid or flexible, planar or spatial, and scalar functions of several of them: a
   spring's length (mbspring.c), the gap of a point against the line through two points of a body (docs/multibody.md
   "Contacts against a line of a flexible body") and, in space, the row of a point against a plane of a body (a contact, a
   prismatic joint's rows), each point optionally a node of a flexible body.

   A planar point of body b at x in its frame, on a flexible body moved by its node rows Phi_P (2 x nf, VIMBNodeRef in
   mbmodel.c; a weighted mean of nodes' rows), is P = r + A(theta) (x + Phi_P q_f) (seed 001 Eq. (120); the ground's P = x).
   On the body's coordinates z = (r, theta, q_f), with xe = x + Phi_P q_f and J the quarter turn (A' = A J = J A):
     dP/dr = I,   dP/dtheta = A' xe,   dP/dq_k = A Phi_k,
   and the second derivatives are few: d2P/dtheta2 = -A xe = J dP/dtheta, d2P/dtheta dq_k = A' Phi_k = J dP/dq_k, the
   others zero. A spatial point on z = (r, p, q_f) (p the frame's quaternion, mbspatial.c; mbflexspatial.c) is
   P = r + A(p) s, s = x + Phi_P q_f, with (A(p) s)_i = p^T A_i(s) p, A_i(s) symmetric 4 x 4 and linear in s:
     dP_i/dr = e_i,   dP_i/dp = 2 A_i(s) p,   dP_i/dq_k = p^T A_i(Phi_k) p,
     d2P_i/dp2 = 2 A_i(s),   d2P_i/dp dq_k = 2 A_i(Phi_k) p,   d2P_i/dq_k dq_l = 0.
   A scalar s(X_1, .., X_m) of m points, with its gradient gX and Hessian HX in the points' positions, has on the
   coordinates (the chain rule)
     grad s = sum_p Jp_p^T gX_p,
     Hess s = sum_{p,t} Jp_p^T HX_pt Jp_t + sum_p sum_i gX_p,i Hess P_p,i,
   the last term C_p(theta, a) = C_p(a, theta) = gX_p . J dP_p/dz_a (a = theta or q_k) in the plane, and in space
   2 B(s) on (p, p) and 2 B(Phi_k) p on (p, q_k), B(v) = sum_i gX_p,i A_i(v). */
#include "mbimpl.h"

PetscInt VIMBPointSize(const VIMBModel *model, PetscInt b)
{
  return b ? model->bodies[b].nq : 0;
}

/* a spatial point (the comment above): X, J, and s, p, phi for its curvature */
static void VIMBPointEvaluateSpatial(const VIMBModel *model, PetscInt b, const PetscReal x[], const PetscReal phi[], const PetscReal q[],
                                     VIMBPoint *pt)
{
  const VIMBBody *bd = &model->bodies[b];
  const PetscInt  nq = pt->nq, nf = phi ? bd->flex->nf : 0;
  const PetscReal zero[3] = {0, 0, 0}, *z = q + bd->off, *p = z + 3;
  PetscReal       A[3][16];

  pt->p   = p;
  pt->phi = phi;
  pt->nf  = nf;
  VIMBFlexSpatialDisplace(bd->flex, phi, x ? x : zero, z + 7, pt->s);
  VIMBQuatForms(pt->s, A);
  for (PetscInt i = 0; i < 3; i++) {
    PetscReal *Ji = pt->J + i * nq, pAp = 0;
    for (PetscInt a = 0; a < nq; a++) Ji[a] = 0;
    Ji[i] = 1;
    for (PetscInt a = 0; a < 4; a++) {
      const PetscReal Ap = A[i][a * 4] * p[0] + A[i][a * 4 + 1] * p[1] + A[i][a * 4 + 2] * p[2] + A[i][a * 4 + 3] * p[3];
      Ji[3 + a]          = 2 * Ap;
      pAp += p[a] * Ap;
    }
    pt->X[i] = z[i] + pAp;
  }
  for (PetscInt k = 0; k < nf; k++) {
    const PetscReal ph[3] = {phi[k], phi[nf + k], phi[2 * nf + k]};
    PetscReal       Ak[3][16];
    VIMBQuatForms(ph, Ak);
    for (PetscInt i = 0; i < 3; i++) {
      PetscReal r = 0;
      for (PetscInt a = 0; a < 4; a++)
        for (PetscInt c = 0; c < 4; c++) r += p[a] * Ak[i][a * 4 + c] * p[c];
      pt->J[i * nq + 7 + k] = r;
    }
  }
}

void VIMBPointEvaluate(const VIMBModel *model, PetscInt b, const PetscReal x[], const PetscReal phi[], const PetscReal q[], VIMBPoint *pt)
{
  const VIMBBody *bd    = &model->bodies[b];
  const PetscInt  nq    = VIMBPointSize(model, b);
  PetscReal       xe[2] = {x ? x[0] : 0, x ? x[1] : 0}, c, s, Ax[2], Ax1[2];

  pt->body = b;
  pt->nq   = nq;
  pt->dim  = model->dim;
  pt->p = pt->phi = NULL;
  pt->nf          = 0;
  if (model->dim == 3) {
    if (b) VIMBPointEvaluateSpatial(model, b, x, phi, q, pt);
    for (PetscInt i = 0; i < 3 && !b; i++) pt->X[i] = x ? x[i] : 0;
    return;
  }
  if (!b) {
    pt->X[0] = xe[0];
    pt->X[1] = xe[1];
    return;
  }
  if (phi) VIMBFlexDisplace(bd->flex, phi, q + bd->off + 3, xe);
  VIMBBodyCosSin(model, b, q[bd->off + 2], &c, &s);
  VIMBRotateCS(c, s, xe, Ax, Ax1);
  pt->X[0] = q[bd->off] + Ax[0];
  pt->X[1] = q[bd->off + 1] + Ax[1];
  for (PetscInt i = 0; i < 2 * nq; i++) pt->J[i] = 0;
  pt->J[0]      = 1;
  pt->J[nq + 1] = 1;
  pt->J[2]      = Ax1[0];
  pt->J[nq + 2] = Ax1[1];
  if (!phi) return;
  for (PetscInt k = 0; k < bd->flex->nf; k++) {
    const PetscReal ph[2] = {phi[k], phi[bd->flex->nf + k]};
    PetscReal       e[2], e1[2];
    VIMBRotateCS(c, s, ph, e, e1);
    pt->J[3 + k]      = e[0];
    pt->J[nq + 3 + k] = e[1];
  }
}

/* the spatial chain rule (the comment above) */
static void VIMBPointChainSpatial(PetscInt m, const VIMBPoint pts[], const PetscInt base[], const PetscReal gX[], const PetscReal HX[], PetscInt nz,
                                  PetscReal gz[], PetscReal w, PetscReal Hz[])
{
  for (PetscInt p = 0; p < m; p++) {
    const VIMBPoint *P = &pts[p];
    for (PetscInt a = 0; a < P->nq; a++)
      gz[base[p] + a] += P->J[a] * gX[3 * p] + P->J[P->nq + a] * gX[3 * p + 1] + P->J[2 * P->nq + a] * gX[3 * p + 2];
  }
  if (!Hz || w == 0) return;
  for (PetscInt p = 0; p < m; p++) {
    const VIMBPoint *P = &pts[p];
    PetscReal        A[3][16], B[16];
    const PetscReal *gp = gX + 3 * p;
    for (PetscInt t = 0; t < m; t++) {
      const VIMBPoint *T = &pts[t];
      const PetscReal *h = HX + (3 * p) * 3 * m + 3 * t; /* the 3 x 3 block (p, t), row stride 3 m */
      for (PetscInt a = 0; a < P->nq; a++) {
        PetscReal hj[3];
        for (PetscInt j = 0; j < 3; j++) hj[j] = P->J[a] * h[j] + P->J[P->nq + a] * h[3 * m + j] + P->J[2 * P->nq + a] * h[6 * m + j];
        if (hj[0] == 0 && hj[1] == 0 && hj[2] == 0) continue;
        for (PetscInt c = 0; c < T->nq; c++)
          Hz[(base[p] + a) * nz + base[t] + c] += w * (hj[0] * T->J[c] + hj[1] * T->J[T->nq + c] + hj[2] * T->J[2 * T->nq + c]);
      }
    }
    /* the point's own curvature: 2 B(s) on (p, p), 2 B(Phi_k) p on (p, q_k) */
    if (!P->nq || (gp[0] == 0 && gp[1] == 0 && gp[2] == 0)) continue;
    VIMBQuatForms(P->s, A);
    for (PetscInt k = 0; k < 16; k++) B[k] = gp[0] * A[0][k] + gp[1] * A[1][k] + gp[2] * A[2][k];
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt c = 0; c < 4; c++) Hz[(base[p] + 3 + a) * nz + base[p] + 3 + c] += 2 * w * B[a * 4 + c];
    for (PetscInt k = 0; k < P->nf; k++) {
      const PetscReal ph[3] = {P->phi[k], P->phi[P->nf + k], P->phi[2 * P->nf + k]};
      VIMBQuatForms(ph, A);
      for (PetscInt a = 0; a < 4; a++) {
        PetscReal r = 0;
        for (PetscInt c = 0; c < 4; c++) r += (gp[0] * A[0][a * 4 + c] + gp[1] * A[1][a * 4 + c] + gp[2] * A[2][a * 4 + c]) * P->p[c];
        Hz[(base[p] + 3 + a) * nz + base[p] + 7 + k] += 2 * w * r;
        Hz[(base[p] + 7 + k) * nz + base[p] + 3 + a] += 2 * w * r;
      }
    }
  }
}

void VIMBPointChain(PetscInt m, const VIMBPoint pts[], const PetscInt base[], const PetscReal gX[], const PetscReal HX[], PetscInt nz, PetscReal gz[],
                    PetscReal w, PetscReal Hz[])
{
  if (m > 0 && pts[0].dim == 3) {
    VIMBPointChainSpatial(m, pts, base, gX, HX, nz, gz, w, Hz);
    return;
  }
  for (PetscInt p = 0; p < m; p++) {
    const VIMBPoint *P = &pts[p];
    for (PetscInt a = 0; a < P->nq; a++) gz[base[p] + a] += P->J[a] * gX[2 * p] + P->J[P->nq + a] * gX[2 * p + 1];
  }
  if (!Hz || w == 0) return;
  for (PetscInt p = 0; p < m; p++) {
    const VIMBPoint *P = &pts[p];
    for (PetscInt t = 0; t < m; t++) {
      const VIMBPoint *T = &pts[t];
      const PetscReal *h = HX + (2 * p) * 2 * m + 2 * t; /* the 2 x 2 block (p, t), row stride 2 m */
      for (PetscInt a = 0; a < P->nq; a++) {
        const PetscReal ja[2] = {P->J[a], P->J[P->nq + a]}, hj[2] = {ja[0] * h[0] + ja[1] * h[2 * m], ja[0] * h[1] + ja[1] * h[2 * m + 1]};
        if (hj[0] == 0 && hj[1] == 0) continue;
        for (PetscInt c = 0; c < T->nq; c++) Hz[(base[p] + a) * nz + base[t] + c] += w * (hj[0] * T->J[c] + hj[1] * T->J[T->nq + c]);
      }
    }
    /* the points' own curvature: (theta, a) and (a, theta), a = theta and the elastic coordinates; J v = (-v_y, v_x) */
    if (!P->nq) continue;
    for (PetscInt a = 2; a < P->nq; a++) {
      const PetscReal cv = w * (gX[2 * p] * -P->J[P->nq + a] + gX[2 * p + 1] * P->J[a]);
      Hz[(base[p] + 2) * nz + base[p] + a] += cv;
      if (a > 2) Hz[(base[p] + a) * nz + base[p] + 2] += cv;
    }
  }
}

/* The two-point line of contact c at q: its points P (the contact's body), A and B (the line's, on 'against'), their
   coordinates' places base[] in the compact list idx[0 .. nz - 1] (P's body first, then the line's body, shared by A and
   B), u = B - A, v = P - A, L = |u|, t = u / L, n = J t, xi = t . v / L and g0 = n . v; gz (nz) and, with hess, Hz
   (nz x nz) zeroed for the chain rule. VIMBLineWorkFree frees it. */
typedef struct {
  VIMBPoint pts[3];
  PetscInt  base[3], nz, *idx;
  PetscReal L, t[2], n[2], xi, g0, *gz, *Hz, *J;
} VIMBLineWork;

static PetscErrorCode VIMBLineWorkFree(VIMBLineWork *lw)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(lw->idx, lw->gz, lw->J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMBLineSetUp(const VIMBModel *model, const VIMBContact *c, const PetscReal q[], PetscBool hess, VIMBLineWork *lw)
{
  const PetscInt nb = VIMBPointSize(model, c->body[1]), na = VIMBPointSize(model, c->body[0]), nz = na + nb;
  PetscReal      u[2], v[2];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(nz + 1, &lw->idx, nz * (hess ? nz + 1 : 1) + 1, &lw->gz, 2 * nb + 4 * na + 1, &lw->J));
  lw->nz       = nz;
  lw->Hz       = hess ? lw->gz + nz : NULL;
  lw->pts[0].J = lw->J;
  lw->pts[1].J = lw->J + 2 * nb;
  lw->pts[2].J = lw->J + 2 * nb + 2 * na;
  VIMBPointEvaluate(model, c->body[1], c->point, c->phi, q, &lw->pts[0]);
  VIMBPointEvaluate(model, c->body[0], c->line_point, c->line_phi[0], q, &lw->pts[1]);
  VIMBPointEvaluate(model, c->body[0], c->line_point2, c->line_phi[1], q, &lw->pts[2]);
  lw->base[0] = 0;
  lw->base[1] = lw->base[2] = nb;
  for (PetscInt a = 0; a < nb; a++) lw->idx[a] = model->bodies[c->body[1]].off + a;
  for (PetscInt a = 0; a < na; a++) lw->idx[nb + a] = model->bodies[c->body[0]].off + a;
  for (PetscInt a = 0; a < nz * (hess ? nz + 1 : 1); a++) lw->gz[a] = 0;
  for (PetscInt i = 0; i < 2; i++) {
    u[i] = lw->pts[2].X[i] - lw->pts[1].X[i];
    v[i] = lw->pts[0].X[i] - lw->pts[1].X[i];
  }
  lw->L = PetscSqrtReal(u[0] * u[0] + u[1] * u[1]);
  if (!(lw->L > 0)) PetscCall(VIMBLineWorkFree(lw));
  PetscCheck(lw->L > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": contact '%s': its line's two points meet (the line has no direction)", model->path, c->line, c->name);
  lw->t[0] = u[0] / lw->L;
  lw->t[1] = u[1] / lw->L;
  lw->n[0] = -lw->t[1];
  lw->n[1] = lw->t[0];
  lw->xi   = (lw->t[0] * v[0] + lw->t[1] * v[1]) / lw->L;
  lw->g0   = lw->n[0] * v[0] + lw->n[1] * v[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The gap g = sigma n . (P - A), n = J (B - A) / L, L = |B - A|: with u = B - A, v = P - A, t = u / L, xi = t . v / L and
   g0 = n . v, g0 = (u x v) / L, so
     dg0/dP = n,   dg0/dA = -(1 - xi) n,   dg0/dB = -xi n                      (the lever rule: a unit normal force at P
                                                                                 loads A and B with 1 - xi and xi of it)
     d2g0/du2 = -g0 n n^T / L^2 + xi (n t^T + t n^T) / L,   d2g0/du dv = -n t^T / L,   d2g0/dv2 = 0,
   mapped onto (P, A, B) by u = B - A, v = P - A. */
PetscErrorCode VIMBLineRow(const VIMBModel *model, const VIMBContact *c, const PetscReal q[], PetscReal *g, PetscReal grad[], PetscReal w,
                           PetscReal H[])
{
  const PetscInt  n = model->n, cu[3] = {0, -1, 1}, cv[3] = {1, -1, 0};
  const PetscBool hess = H && w != 0 ? PETSC_TRUE : PETSC_FALSE;
  VIMBLineWork    lw;
  PetscReal       gX[6], HX[36], Huu[4], Huv[4], sg = c->sigma;

  PetscFunctionBeginUser;
  PetscCall(VIMBLineSetUp(model, c, q, hess, &lw));
  if (g) *g = sg * lw.g0;
  for (PetscInt i = 0; i < 2; i++) {
    gX[i]     = sg * lw.n[i];
    gX[2 + i] = -sg * (1 - lw.xi) * lw.n[i];
    gX[4 + i] = -sg * lw.xi * lw.n[i];
    for (PetscInt j = 0; j < 2; j++) {
      Huu[i * 2 + j] = sg * (-lw.g0 * lw.n[i] * lw.n[j] / (lw.L * lw.L) + lw.xi * (lw.n[i] * lw.t[j] + lw.t[i] * lw.n[j]) / lw.L);
      Huv[i * 2 + j] = -sg * lw.n[i] * lw.t[j] / lw.L;
    }
  }
  for (PetscInt p = 0; p < 3; p++)
    for (PetscInt s = 0; s < 3; s++)
      for (PetscInt i = 0; i < 2; i++)
        for (PetscInt j = 0; j < 2; j++)
          HX[(2 * p + i) * 6 + 2 * s + j] = cu[p] * cu[s] * Huu[i * 2 + j] + cu[p] * cv[s] * Huv[i * 2 + j] + cv[p] * cu[s] * Huv[j * 2 + i];
  VIMBPointChain(3, lw.pts, lw.base, gX, HX, lw.nz, lw.gz, w, lw.Hz);
  if (grad)
    for (PetscInt a = 0; a < lw.nz; a++) grad[lw.idx[a]] += lw.gz[a];
  if (hess)
    for (PetscInt a = 0; a < lw.nz; a++)
      for (PetscInt b = 0; b < lw.nz; b++) H[lw.idx[a] * n + lw.idx[b]] += lw.Hz[a * lw.nz + b];
  PetscCall(VIMBLineWorkFree(&lw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Its tangential row: the sliding velocity of P along tau = J (sigma n) = -sigma t relative to the line's material point
   under it, interpolated between A and B as the normal force is shared (1 - xi, xi): w_t = tau . (dP/dt - (1 - xi) dA/dt
   - xi dB/dt). */
PetscErrorCode VIMBLineTangent(const VIMBModel *model, const VIMBContact *c, const PetscReal q[], PetscReal grad[])
{
  VIMBLineWork lw;
  PetscReal    gX[6];

  PetscFunctionBeginUser;
  PetscCall(VIMBLineSetUp(model, c, q, PETSC_FALSE, &lw));
  for (PetscInt i = 0; i < 2; i++) {
    const PetscReal tau = -c->sigma * lw.t[i];
    gX[i]               = tau;
    gX[2 + i]           = -(1 - lw.xi) * tau;
    gX[4 + i]           = -lw.xi * tau;
  }
  VIMBPointChain(3, lw.pts, lw.base, gX, NULL, lw.nz, lw.gz, 0, NULL);
  for (PetscInt a = 0; a < lw.nz; a++) grad[lw.idx[a]] += lw.gz[a];
  PetscCall(VIMBLineWorkFree(&lw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* g = (R1 nv) . (P2 - P1) as a scalar of three points, X0 = P2, X1 = P1 and X2 = N, the point of body[0] at s1 + nv (moved
   by P1's nodes: N - P1 = R1 nv): with a = X2 - X1 and b = X0 - X1, g = a . b, so
     dg/dX0 = a,   dg/dX1 = -a - b,   dg/dX2 = b,
   and its Hessian in (X0, X1, X2) is [0, -I, I; -I, 2 I, -I; I, -I, 0] (d2g/da db = I), through the chain rule. */
PetscErrorCode VIMBPlaneRow(const VIMBModel *model, const PetscInt body[2], const PetscReal nv[], const PetscReal s1[], const PetscReal phi1[],
                            const PetscReal s2[], const PetscReal phi2[], const PetscReal q[], PetscReal *g, PetscReal grad[], PetscReal w,
                            PetscReal H[])
{
  const PetscInt  n = model->n, nb = VIMBPointSize(model, body[1]), na = VIMBPointSize(model, body[0]), nz = nb + na;
  const PetscBool hess    = H && w != 0 ? PETSC_TRUE : PETSC_FALSE;
  const PetscInt  base[3] = {0, nb, nb}, hx[3][3] = {{0, -1, 1}, {-1, 2, -1}, {1, -1, 0}};
  VIMBPoint       pts[3];
  PetscInt       *idx;
  PetscReal      *gz, *J, sn[3], a[3], b[3], gX[9], HX[81] = {0}, val = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(nz + 1, &idx, nz * (hess ? nz + 1 : 1) + 1, &gz, 3 * (nb + 2 * na) + 1, &J));
  pts[0].J = J;
  pts[1].J = J + 3 * nb;
  pts[2].J = J + 3 * (nb + na);
  for (PetscInt i = 0; i < 3; i++) sn[i] = s1[i] + nv[i];
  VIMBPointEvaluate(model, body[1], s2, phi2, q, &pts[0]);
  VIMBPointEvaluate(model, body[0], s1, phi1, q, &pts[1]);
  VIMBPointEvaluate(model, body[0], sn, phi1, q, &pts[2]);
  for (PetscInt k = 0; k < nb; k++) idx[k] = model->bodies[body[1]].off + k;
  for (PetscInt k = 0; k < na; k++) idx[nb + k] = model->bodies[body[0]].off + k;
  for (PetscInt k = 0; k < nz * (hess ? nz + 1 : 1); k++) gz[k] = 0;
  for (PetscInt i = 0; i < 3; i++) {
    a[i] = pts[2].X[i] - pts[1].X[i];
    b[i] = pts[0].X[i] - pts[1].X[i];
    val += a[i] * b[i];
    gX[i]     = a[i];
    gX[3 + i] = -a[i] - b[i];
    gX[6 + i] = b[i];
    for (PetscInt u = 0; u < 3; u++)
      for (PetscInt v = 0; v < 3; v++) HX[(3 * u + i) * 9 + 3 * v + i] = hx[u][v];
  }
  VIMBPointChain(3, pts, base, gX, HX, nz, gz, hess ? w : 0, hess ? gz + nz : NULL);
  if (g) *g = val;
  if (grad)
    for (PetscInt k = 0; k < nz; k++) grad[idx[k]] += gz[k];
  if (hess)
    for (PetscInt k = 0; k < nz; k++)
      for (PetscInt l = 0; l < nz; l++)
        if (gz[nz + k * nz + l] != 0) H[idx[k] * n + idx[l]] += gz[nz + k * nz + l];
  PetscCall(PetscFree3(idx, gz, J));
  PetscFunctionReturn(PETSC_SUCCESS);
}
