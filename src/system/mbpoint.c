/* Points of a planar multibody model's bodies, rigid or flexible, and scalar functions of several of them: a spring's
   length (mbspring.c) and the gap of a point against the line through two points of a body, each optionally a node of a
   flexible body (docs/multibody.md "Contacts against a line of a flexible body").

   A point of body b at x in its frame, on a flexible body moved by its node rows Phi_P (2 x nf, VIMBNodeRef in
   mbmodel.c; a weighted mean of nodes' rows), is P = r + A(theta) (x + Phi_P q_f) (seed 001 Eq. (120); the ground's P = x).
   On the body's coordinates z = (r, theta, q_f), with xe = x + Phi_P q_f and J the quarter turn (A' = A J = J A):
     dP/dr = I,   dP/dtheta = A' xe,   dP/dq_k = A Phi_k,
   and the second derivatives are few: d2P/dtheta2 = -A xe = J dP/dtheta, d2P/dtheta dq_k = A' Phi_k = J dP/dq_k, the
   others zero. A scalar s(X_1, .., X_m) of m points, with its gradient gX and Hessian HX in the points' positions, has on
   the coordinates (the chain rule)
     grad s = sum_p Jp_p^T gX_p,
     Hess s = sum_{p,t} Jp_p^T HX_pt Jp_t + sum_p C_p,   C_p(theta, a) = C_p(a, theta) = gX_p . J dP_p/dz_a (a = theta or q_k). */
#include "mbimpl.h"

PetscInt VIMBPointSize(const VIMBModel *model, PetscInt b)
{
  return b ? model->bodies[b].nq : 0;
}

void VIMBPointEvaluate(const VIMBModel *model, PetscInt b, const PetscReal x[], const PetscReal phi[], const PetscReal q[], VIMBPoint *pt)
{
  const VIMBBody *bd    = &model->bodies[b];
  const PetscInt  nq    = VIMBPointSize(model, b);
  PetscReal       xe[2] = {x ? x[0] : 0, x ? x[1] : 0}, c, s, Ax[2], Ax1[2];

  pt->body = b;
  pt->nq   = nq;
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

void VIMBPointChain(PetscInt m, const VIMBPoint pts[], const PetscInt base[], const PetscReal gX[], const PetscReal HX[], PetscInt nz, PetscReal gz[],
                    PetscReal w, PetscReal Hz[])
{
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
