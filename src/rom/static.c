/* The static sliding state of the coupled bodies at a contact position, and the linearisation of the CEA and the FRF
   about it (VICouplingSetState static; issue 27). */
#include "couplingimpl.h"
#include <petscblaslapack.h>

const char *const VICouplingStates[] = {"undeformed", "static", "VICouplingState", "VI_COUPLING_STATE_", NULL};

PetscErrorCode VICouplingSetState(VICoupling c, VICouplingState state)
{
  PetscFunctionBeginUser;
  PetscCheck(!c->setup, c->comm, PETSC_ERR_ORDER, "VICouplingSetState: call it before VICouplingSetUp");
  c->state = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingAddLoad(VICoupling c, const char body[], PetscInt num, const PetscInt ids[], const PetscReal F[2])
{
  PetscInt k;

  PetscFunctionBeginUser;
  PetscCheck(c->bodies, c->comm, PETSC_ERR_ORDER, "VICouplingAddLoad: call VICouplingSetBodies first");
  PetscCall(VIBodiesFind(c->bodies, body, &k));
  PetscCheck(k >= 0, c->comm, PETSC_ERR_USER_INPUT, "VICouplingAddLoad: no body '%s' in the bodies file", body);
  PetscCheck(num > 0, c->comm, PETSC_ERR_USER_INPUT, "VICouplingAddLoad: no nodes of body %s given", body);
  for (PetscInt j = 0; j < num; j++) {
    VIBodyNode node = {0};
    PetscCall(VIBodiesGetNode(c->bodies, k, ids[j], "VICouplingAddLoad", &node));
    for (PetscInt d = 0; d < 2; d++)
      if (node.dof[d] >= 0) c->load[node.dof[d]] += F[d] / num;
  }
  c->frf_np = -1; /* the FRF's rows of the static states: rebuilt at the next call */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingGetStaticFailure(VICoupling c, VICouplingStaticFailure *failure, PetscReal *value)
{
  PetscFunctionBeginUser;
  PetscCheck(c->has_position, c->comm, PETSC_ERR_ORDER, "VICouplingGetStaticFailure: no position (VICouplingSetPosition)");
  if (failure) *failure = c->static_failure;
  if (value) *value = c->static_value;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingStaticFailureMessage(VICouplingStaticFailure failure, PetscReal value, PetscReal s, char msg[], size_t len)
{
  PetscFunctionBeginUser;
  switch (failure) {
  case VI_COUPLING_STATIC_OK:
    PetscCall(PetscSNPrintf(msg, len, "the static sliding state at position %g converged", (double)s));
    break;
  case VI_COUPLING_STATIC_SINGULAR:
    PetscCall(PetscSNPrintf(msg, len,
                            "the static sliding state at position %g is singular (LAPACK gesv info %d): a body is free to move rigidly where "
                            "neither the contact nor a held DOF holds it",
                            (double)s, (int)value));
    break;
  case VI_COUPLING_STATIC_NOT_CONVERGED:
    PetscCall(PetscSNPrintf(msg, len, "the static sliding state at position %g did not converge in 50 Newton steps (last change %g of |u|)",
                            (double)s, (double)value));
    break;
  case VI_COUPLING_STATIC_TENSILE:
    PetscCall(PetscSNPrintf(msg, len,
                            "the static sliding state at position %g has a tensile normal force %g: the loads lift the slave off the master "
                            "(check the preload's direction)",
                            (double)s, (double)value));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingGetStaticState(VICoupling c, const PetscReal **u0, PetscReal *lambda0, PetscReal *slope, PetscInt *its)
{
  PetscFunctionBeginUser;
  PetscCheck(c->has_position && c->state == VI_COUPLING_STATE_STATIC, c->comm, PETSC_ERR_ORDER,
             "VICouplingGetStaticState: no static state (VICouplingSetState static, then VICouplingSetPosition)");
  if (u0) *u0 = c->u0;
  if (lambda0) *lambda0 = c->lambda0;
  if (slope) *slope = c->slope;
  if (its) *its = c->static_its;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The contact geometry in the configuration X + u: master segment k, xi, its deformed length l, tangent t, normal n (t
   turned by +90 degrees), and the slave's gap g. */
typedef struct {
  PetscInt  k;
  PetscReal xi, l, t[2], n[2], g;
} VICouplingContactGeom;

static void VICouplingDeformedNode(const VIBodyNode *node, const PetscReal u[], PetscReal x[2])
{
  for (PetscInt d = 0; d < 2; d++) x[d] = node->X[d] + (node->dof[d] >= 0 ? u[node->dof[d]] : 0);
}

/*
  The rows and the geometric stiffness of the contact in the geometry geo, over the 6 local coordinates
  z = (C x, C y, T1 x, T1 y, T2 x, T2 y) (dof[] their coordinates in the coupled system, -1 clamped):
    bN = n . (e_C - (1 - xi) e_T1 - xi e_T2), w = B_E^T = the same with v = n - d mu t (the force per unit normal force);
    G = d w / d z, from the turn of the segment, d theta = n . (dT2 - dT1) / l (dt = n d theta, dn = -t d theta, so
    dv = p d theta with p = -t - d mu n), and the slide of the contact point along it, d xi = t . (dC - (1 - xi) dT1 - xi dT2) / l
    (exact where g = 0): dw_C = p d theta, dw_T1 = -(1 - xi) p d theta + v d xi, dw_T2 = -xi p d theta - v d xi.
*/
static void VICouplingContactRows(VICoupling c, const VICouplingContactGeom *geo, PetscReal bN[6], PetscReal w[6], PetscReal G[36])
{
  const PetscReal sign = c->sliding == VI_COUPLING_FORWARD ? 1.0 : -1.0, xi = geo->xi, l = geo->l;
  const PetscReal wgt[3] = {1, -(1 - xi), -xi};
  PetscReal       v[2], p[2], th[6] = {0}, xr[6];

  for (PetscInt d = 0; d < 2; d++) {
    v[d]      = geo->n[d] - sign * c->mu * geo->t[d];
    p[d]      = -geo->t[d] - sign * c->mu * geo->n[d];
    th[2 + d] = -geo->n[d] / l;
    th[4 + d] = geo->n[d] / l;
    for (PetscInt a = 0; a < 3; a++) {
      bN[2 * a + d] = wgt[a] * geo->n[d];
      w[2 * a + d]  = wgt[a] * v[d];
      xr[2 * a + d] = wgt[a] * geo->t[d] / l;
    }
  }
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt d = 0; d < 2; d++)
      for (PetscInt j = 0; j < 6; j++) {
        const PetscReal lever  = a == 0 ? 0 : (a == 1 ? 1 : -1);
        G[(2 * a + d) * 6 + j] = wgt[a] * p[d] * th[j] + lever * v[d] * xr[j];
      }
}

/* The geometry of the contact at the material point xi of master segment k in the configuration X + u, with the slave at xC. */
static void VICouplingAtPoint(VICoupling c, PetscInt k, PetscReal xi, const PetscReal xC[2], const PetscReal u[], VICouplingContactGeom *geo)
{
  PetscReal a[2], b[2];

  VICouplingDeformedNode(&c->master[k], u, a);
  VICouplingDeformedNode(&c->master[k + 1], u, b);
  geo->k    = k;
  geo->xi   = xi;
  geo->l    = PetscSqrtReal(PetscSqr(b[0] - a[0]) + PetscSqr(b[1] - a[1]));
  geo->t[0] = (b[0] - a[0]) / geo->l;
  geo->t[1] = (b[1] - a[1]) / geo->l;
  geo->n[0] = -geo->t[1];
  geo->n[1] = geo->t[0];
  geo->g    = geo->n[0] * (xC[0] - a[0]) + geo->n[1] * (xC[1] - a[1]);
}

/*
  The static sliding state at position s (segment k, xi of the undeformed chain): the material point of the master at s is
  under the slave, as the contact position a slide records (s_k + xi l_k along the undeformed chain). The slave body is
  placed rigidly with the slave's undeformed place at that point, then free to translate along the held component by an
  unknown delta (the held DOFs at delta: where the drive has it). Newton on
    K u - f - lambda w(u) - sum_h r_h e_h = 0,  n . (x_C - x_Q) = 0,  u_h - delta = 0,  t . (x_C - x_Q) = 0,
  x_Q = (1 - xi) x_T1 + xi x_T2 the deformed material point, w = B_E^T with the steady sliding friction (-d mu lambda t),
  with the Jacobian of VICouplingContactRows (the tangential row's own derivative approximated by its row, exact at the solution).
*/
PetscErrorCode VICouplingStaticLinearise(VICoupling c)
{
  const PetscInt        n = c->n, nh = c->num_held, N = n + nh + 2, k = c->seg;
  const PetscReal       xi = c->xi;
  PetscInt             *hidx, dof[6], it;
  PetscReal            *J, *r, *u = c->u0, lam = 0, delta = 0, *react, X[2], bN[6], w[6], G[36], du = 0, unorm = 0, xC[2], fscale = 0;
  PetscBLASInt          bN_, one = 1, *ipiv, info = 0;
  VICouplingContactGeom geo       = {0};
  PetscBool             converged = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCheck(nh > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The static sliding state needs held DOFs (checked by VICouplingSetUp)");
  PetscCall(PetscBLASIntCast(N, &bN_));
  PetscCall(PetscMalloc5(N * N, &J, N, &r, nh, &hidx, nh, &react, N, &ipiv));
  for (PetscInt i = 0, h = 0; i < n; i++)
    if (c->held[i]) hidx[h++] = i;
  for (PetscInt d = 0; d < 2; d++) {
    X[d]       = (1 - xi) * c->master[k].X[d] + xi * c->master[k + 1].X[d];
    dof[d]     = c->slave.dof[d];
    dof[2 + d] = c->master[k].dof[d];
    dof[4 + d] = c->master[k + 1].dof[d];
  }
  PetscCall(PetscArrayzero(u, n));
  PetscCall(PetscArrayzero(react, nh));
  for (it = 0; it < 50 && !converged; it++) {
    PetscReal bT[6], tg;
    for (PetscInt d = 0; d < 2; d++) xC[d] = X[d] + u[c->slave.dof[d]];
    VICouplingAtPoint(c, k, xi, xC, u, &geo);
    VICouplingContactRows(c, &geo, bN, w, G);
    tg = 0;
    for (PetscInt d = 0; d < 2; d++) {
      PetscReal xQ = 0, x1[2], x2[2];
      VICouplingDeformedNode(&c->master[k], u, x1);
      VICouplingDeformedNode(&c->master[k + 1], u, x2);
      xQ = (1 - xi) * x1[d] + xi * x2[d];
      tg += geo.t[d] * (xC[d] - xQ);
      bT[d]     = geo.t[d];
      bT[2 + d] = -(1 - xi) * geo.t[d];
      bT[4 + d] = -xi * geo.t[d];
    }
    /* the residual and the Jacobian (column-major): unknowns u (n), lambda, the reactions r_h, delta */
    PetscCall(PetscArrayzero(J, N * N));
    for (PetscInt b = 0; b < c->num_bodies; b++) {
      const PetscInt o = c->off[b], nb = c->off[b + 1] - o;
      for (PetscInt i = 0; i < nb; i++) {
        PetscReal s = 0;
        for (PetscInt j = 0; j < nb; j++) {
          s += c->K[b][i * nb + j] * u[o + j];
          J[(o + j) * N + o + i] = c->K[b][i * nb + j];
        }
        r[o + i] = s - c->load[o + i];
      }
    }
    for (PetscInt a = 0; a < 6; a++) {
      if (dof[a] < 0) continue;
      r[dof[a]] -= lam * w[a];
      J[n * N + dof[a]]          = -w[a];
      J[dof[a] * N + n]          = bN[a];
      J[dof[a] * N + n + nh + 1] = bT[a];
      for (PetscInt j = 0; j < 6; j++)
        if (dof[j] >= 0) J[dof[j] * N + dof[a]] -= lam * G[a * 6 + j];
    }
    r[n] = geo.g;
    for (PetscInt h = 0; h < nh; h++) {
      r[hidx[h]] -= react[h];
      J[(n + 1 + h) * N + hidx[h]]    = -1;
      J[hidx[h] * N + n + 1 + h]      = 1;
      J[(n + nh + 1) * N + n + 1 + h] = -1;
      r[n + 1 + h]                    = u[hidx[h]] - delta;
    }
    r[n + nh + 1] = tg;
    for (PetscInt i = 0; i < N; i++) r[i] = -r[i];
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bN_, &one, J, &bN_, ipiv, r, &bN_, &info));
    if (info) break;
    du = unorm = 0;
    for (PetscInt i = 0; i < n; i++) {
      u[i] += r[i];
      du    = PetscMax(du, PetscAbsReal(r[i]));
      unorm = PetscMax(unorm, PetscAbsReal(u[i]));
    }
    lam += r[n];
    for (PetscInt h = 0; h < nh; h++) react[h] += r[n + 1 + h];
    delta += r[n + nh + 1];
    converged = it > 0 && du <= 1e-10 * unorm ? PETSC_TRUE : PETSC_FALSE;
  }
  /* a failure marks the position (VICouplingGetStaticFailure), without an error: the positions are dealt to the ranks. A
     normal force that is zero but for rounding (the loads press nothing on the slave) is not tensile. */
  for (PetscInt i = 0; i < n; i++) fscale += PetscAbsReal(c->load[i]);
  c->static_failure = info                                     ? VI_COUPLING_STATIC_SINGULAR
                      : !converged || PetscIsInfOrNanReal(lam) ? VI_COUPLING_STATIC_NOT_CONVERGED
                      : lam < -1e-9 * fscale                   ? VI_COUPLING_STATIC_TENSILE
                                                               : VI_COUPLING_STATIC_OK;
  c->static_value   = info ? (PetscReal)info : (!converged || PetscIsInfOrNanReal(lam) ? (unorm > 0 ? du / unorm : du) : lam);
  if (c->static_failure != VI_COUPLING_STATIC_OK) {
    for (PetscInt i = 0; i < n; i++) u[i] = NAN;
    c->lambda0 = c->slope = NAN;
    c->static_its         = it;
    PetscCall(PetscFree5(J, r, hidx, react, ipiv));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the rows and the geometric stiffness in the converged state */
  for (PetscInt d = 0; d < 2; d++) xC[d] = X[d] + u[c->slave.dof[d]];
  VICouplingAtPoint(c, k, xi, xC, u, &geo);
  VICouplingContactRows(c, &geo, bN, w, G);
  for (PetscInt i = 0; i < n; i++) c->BC[i] = c->BE[i] = 0;
  for (PetscInt a = 0; a < 6; a++) {
    c->kg_dof[a] = dof[a];
    if (dof[a] < 0) continue;
    c->BC[dof[a]] += bN[a];
    c->BE[dof[a]] += w[a];
    for (PetscInt j = 0; j < 6; j++) c->kg[a * 6 + j] = -lam * G[a * 6 + j];
  }
  {
    const VIBodyNode *U = &c->master[geo.k], *V = &c->master[geo.k + 1];
    c->slope = PetscAtan2Real(geo.t[1], geo.t[0]) - PetscAtan2Real(V->X[1] - U->X[1], V->X[0] - U->X[0]);
  }
  c->lambda0    = lam;
  c->static_its = it;
  PetscCall(PetscFree5(J, r, hidx, react, ipiv));
  PetscFunctionReturn(PETSC_SUCCESS);
}
