/* A contact of a point against a chain of segments through several points of a planar body, each optionally a node of a
   flexible body (docs/multibody.md "Contacts against a chain of segments"): a flexible body's edge followed by the contact
   as it slides along it, the line through two points of mbpoint.c generalized.

   At q, with P the contact's point and A_i, B_i = A_i+1 the deformed ends of segment i (i = 0 .. nchain - 2), the active
   segment is the one nearest to P, min_i |P - (A_i + clamp(xi_i, 0, 1) (B_i - A_i))| (the first of equals), with
   xi_i = (B_i - A_i) . (P - A_i) / |B_i - A_i|^2; the gap, its gradient and curvature, and the friction's row are those of the
   line through A_i and B_i (VIMBLineRow, VIMBLineTangent: the lever rule loads the segment's two nodes). Beyond the chain's
   ends the end segments' lines continue (a point past the last point is against the last segment's line). The active
   segment changes during the run as the point moves; where two segments meet at an angle delta the gap is continuous at
   contact (g = 0) and its normal turns by delta (a kink of the surface, as the deformed edge's polyline has).

   A prismatic joint whose body 1 is flexible slides along such a chain, its rail (VIMBChainOfJoint): its first row is the
   chain's gap of point 2, held at 0 (bilateral), its second theta_2 - theta_1 held (the frame's angle, not the deformed
   rail's local slope). */
#include "mbimpl.h"

PetscErrorCode VIMBChainSegment(const VIMBModel *model, const VIMBContact *c, const PetscReal q[], PetscInt *seg)
{
  const PetscInt na = VIMBPointSize(model, c->body[0]), nb = VIMBPointSize(model, c->body[1]);
  PetscReal     *J, best                                   = PETSC_MAX_REAL;
  VIMBPoint      P, A, B;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2 * nb + 4 * na + 1, &J));
  P.J = J;
  A.J = J + 2 * nb;
  B.J = J + 2 * nb + 2 * na;
  VIMBPointEvaluate(model, c->body[1], c->point, c->phi, q, &P);
  VIMBPointEvaluate(model, c->body[0], c->chain_x, c->chain_phi[0], q, &B);
  *seg = 0;
  for (PetscInt i = 0; i < c->nchain - 1; i++) {
    PetscReal u[2], v[2], uu, xi, d2;
    A.X[0] = B.X[0];
    A.X[1] = B.X[1];
    VIMBPointEvaluate(model, c->body[0], c->chain_x + 2 * (i + 1), c->chain_phi[i + 1], q, &B);
    u[0] = B.X[0] - A.X[0];
    u[1] = B.X[1] - A.X[1];
    v[0] = P.X[0] - A.X[0];
    v[1] = P.X[1] - A.X[1];
    uu   = u[0] * u[0] + u[1] * u[1];
    xi   = uu > 0 ? PetscMin(PetscMax((u[0] * v[0] + u[1] * v[1]) / uu, 0), 1) : 0;
    d2   = PetscSqr(v[0] - xi * u[0]) + PetscSqr(v[1] - xi * u[1]);
    if (d2 < best) {
      best = d2;
      *seg = i;
    }
  }
  PetscCall(PetscFree(J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the two-point line of segment i of the chain c */
static void VIMBChainLine(const VIMBContact *c, PetscInt i, VIMBContact *line)
{
  *line           = *c;
  line->nchain    = 0;
  line->two_point = PETSC_TRUE;
  for (PetscInt d = 0; d < 2; d++) {
    line->line_point[d]  = c->chain_x[2 * i + d];
    line->line_point2[d] = c->chain_x[2 * (i + 1) + d];
  }
  line->line_phi[0] = c->chain_phi[i];
  line->line_phi[1] = c->chain_phi[i + 1];
}

PetscErrorCode VIMBChainRow(const VIMBModel *model, const VIMBContact *c, const PetscReal q[], PetscReal *g, PetscReal grad[], PetscReal w,
                            PetscReal H[])
{
  PetscInt    i;
  VIMBContact line;

  PetscFunctionBeginUser;
  PetscCall(VIMBChainSegment(model, c, q, &i));
  VIMBChainLine(c, i, &line);
  PetscCall(VIMBLineRow(model, &line, q, g, grad, w, H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBChainTangent(const VIMBModel *model, const VIMBContact *c, const PetscReal q[], PetscReal grad[])
{
  PetscInt    i;
  VIMBContact line;

  PetscFunctionBeginUser;
  PetscCall(VIMBChainSegment(model, c, q, &i));
  VIMBChainLine(c, i, &line);
  PetscCall(VIMBLineTangent(model, &line, q, grad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void VIMBChainOfJoint(const VIMBJoint *j, VIMBContact *c)
{
  PetscMemzero(c, sizeof(*c));
  (void)PetscStrncpy(c->name, j->name, sizeof(c->name));
  c->body[0] = j->body[0];
  c->body[1] = j->body[1];
  for (PetscInt d = 0; d < 3; d++) c->point[d] = j->point[1][d];
  c->phi       = j->phi[1];
  c->two_point = PETSC_TRUE;
  c->nchain    = j->nchain;
  c->chain_x   = j->chain_x;
  c->chain_phi = j->chain_phi;
  c->sigma     = 1;
  c->line      = j->line;
}
