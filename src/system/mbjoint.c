/* Joint outputs of a multibody model (docs/multibody.md, the model file's `outputs:`): a prismatic joint's slide along its
   axis and its rate, planar and spatial (`joint_slide`), and a driven joint's prescribed coordinate and rate
   (`prescribed`).

   The slide is s = a . (P2 - P1), a = R1 axis the axis turned with body 1 (planar R(theta_1); spatial R(p_1), whose
   entries are the quadratic forms p^T A_i p of mbspatial.c, as the joint's rows use), P1 and P2 the joint's points; its
   rate ds/dt = da/dt . (P2 - P1) + a . (dP2/dt - dP1/dt), with da/dt = omega_1 J a (planar) or (2 p_1^T A_i(axis) dp_1/dt)_i
   (spatial). A driven prismatic joint's last row is s - s0 - (phi(t) - phi(t0)) (mbmodel.c, multibody.c). */
#include "mbimpl.h"

/* a spatial point x of body b (its frame; the ground's x itself) at (q, u): its position X and velocity V, and with ax non-NULL
   a = R(p) ax and da/dt */
static void VIMBJointSpatialPoint(const VIMBModel *model, PetscInt b, const PetscReal x[], const PetscReal ax[], const PetscReal q[],
                                  const PetscReal u[], PetscReal X[], PetscReal V[], PetscReal a[], PetscReal ad[])
{
  PetscReal A[3][16], Aa[3][16];

  if (!b) {
    for (PetscInt i = 0; i < 3; i++) {
      X[i] = x[i];
      V[i] = 0;
      if (ax) a[i] = ax[i], ad[i] = 0;
    }
    return;
  }
  {
    const PetscInt   off = model->bodies[b].off;
    const PetscReal *p = q + off + 3, *pd = u + off + 3;
    VIMBQuatForms(x, A);
    if (ax) VIMBQuatForms(ax, Aa);
    for (PetscInt i = 0; i < 3; i++) {
      PetscReal f = 0, fd = 0, g = 0, gd = 0;
      for (PetscInt r = 0; r < 4; r++)
        for (PetscInt c = 0; c < 4; c++) {
          f += p[r] * A[i][4 * r + c] * p[c];
          fd += 2 * p[r] * A[i][4 * r + c] * pd[c];
          if (ax) g += p[r] * Aa[i][4 * r + c] * p[c], gd += 2 * p[r] * Aa[i][4 * r + c] * pd[c];
        }
      X[i] = q[off + i] + f;
      V[i] = u[off + i] + fd;
      if (ax) a[i] = g, ad[i] = gd;
    }
  }
}

void VIMBJointSlide(const VIMBModel *model, const VIMBJoint *j, const PetscReal q[], const PetscReal u[], PetscReal *s, PetscReal *sd)
{
  PetscReal d[3], dv[3], a[3], ad[3];

  if (model->dim == 3) {
    PetscReal X1[3], V1[3], X2[3], V2[3];
    VIMBJointSpatialPoint(model, j->body[0], j->point[0], j->hinge[0], q, u, X1, V1, a, ad);
    VIMBJointSpatialPoint(model, j->body[1], j->point[1], NULL, q, u, X2, V2, NULL, NULL);
    for (PetscInt i = 0; i < 3; i++) d[i] = X2[i] - X1[i], dv[i] = V2[i] - V1[i];
  } else {
    PetscReal X[2][2], V[2][2], c, sn;
    for (PetscInt e = 0; e < 2; e++) { /* P = r + R xe, dP/dt = v + omega J R xe + R Phi dq_f/dt (xe = x + Phi q_f) */
      const PetscInt b = j->body[e], off = b ? model->bodies[b].off : 0;
      PetscReal      xe[2] = {j->point[e][0], j->point[e][1]}, ve[2] = {0, 0}, Rx[2], Rx1[2], Rv[2], Rv1[2];
      if (!b) {
        X[e][0] = xe[0], X[e][1] = xe[1], V[e][0] = V[e][1] = 0;
        continue;
      }
      if (j->phi[e]) {
        VIMBFlexDisplace(model->bodies[b].flex, j->phi[e], q + off + 3, xe);
        VIMBFlexDisplace(model->bodies[b].flex, j->phi[e], u + off + 3, ve);
      }
      VIMBBodyCosSin(model, b, q[off + 2], &c, &sn);
      VIMBRotateCS(c, sn, xe, Rx, Rx1);
      VIMBRotateCS(c, sn, ve, Rv, Rv1);
      for (PetscInt i = 0; i < 2; i++) {
        X[e][i] = q[off + i] + Rx[i];
        V[e][i] = u[off + i] + u[off + 2] * Rx1[i] + Rv[i];
      }
      if (e == 0) { /* the axis turns with body 1 */
        VIMBRotateCS(c, sn, j->axis, a, ad);
        ad[0] *= u[off + 2];
        ad[1] *= u[off + 2];
      }
    }
    if (!j->body[0]) a[0] = j->axis[0], a[1] = j->axis[1], ad[0] = ad[1] = 0;
    for (PetscInt i = 0; i < 2; i++) d[i] = X[1][i] - X[0][i], dv[i] = V[1][i] - V[0][i];
    a[2] = ad[2] = d[2] = dv[2] = 0;
  }
  *s  = a[0] * d[0] + a[1] * d[1] + a[2] * d[2];
  *sd = ad[0] * d[0] + ad[1] * d[1] + ad[2] * d[2] + a[0] * dv[0] + a[1] * dv[1] + a[2] * dv[2];
}

void VIMBJointPrescribed(const VIMBModel *model, const VIMBJoint *j, PetscReal t, PetscReal *y, PetscReal *yd)
{
  PetscReal phi, rate;

  VIMBTimeFunctionEvaluate(&j->motion, t, &phi, &rate, NULL);
  /* the coordinate joint_angle and joint_slide record: planar theta_2 - theta_1 (angle0 at the start), a slide s0 + ...; a
     spatial driver's angle from its initial relative rotation (0 at the start) */
  *y  = (j->type == VI_MB_JOINT_PRISMATIC ? j->slide0 : (model->dim == 3 ? 0 : j->angle0)) + phi;
  *yd = rate;
}
