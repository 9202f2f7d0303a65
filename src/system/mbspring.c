/* Linear spring-dampers between two body points of a multibody model (model key 'springs:', docs/multibody.md "Springs").

   Spring k joins P1, a point of body1, and P2, a point of body2 (either may be the ground; in the plane P = r + R(theta) s,
   in space P_i = r_i + p^T A_i(s) p, the quaternion's quadratic form of mbspatial.c). With d = P2 - P1, its length
   l = |d|, e = d / l and its rate dl/dt = e . (dP2/dt - dP1/dt), the tension is N = k (l - L0) + c dl/dt, the force -N e on
   P2 and +N e on P1. On the two bodies' coordinates z (3 or 7 each; the ground has none) with D = dd/dz:
     grad l = b = D^T e,   Hess l = H = (D^T D - b b^T) / l + sum_i e_i Hess d_i,   dl/dt = b . w (w = dz/dt),
   so the generalized force is f = -N b (its virtual work -N dl) and, as b . w = grad l . w has the gradient H w at fixed w,
     df/dz = -b (k b + c H w)^T - N H,   df/dw = -c b b^T.
   Hess d_i has the rotation's part only: -(R s)_i on the planar angle, 2 A_i(s) on the quaternion. The spring's potential
   is k (l - L0)^2 / 2; the damper's power -c (dl/dt)^2 is external work in the energy balance (its force is in f). */
#include "mbimpl.h"

#define VI_MB_SPRING_NZ 14 /* two spatial bodies' coordinates */

/* One spring's kinematics on its bodies' coordinates idx[0 .. nz - 1]: l, dl/dt, b = grad l and (hess) H = Hess l. */
typedef struct {
  PetscInt  nz, idx[VI_MB_SPRING_NZ];
  PetscReal len, rate, b[VI_MB_SPRING_NZ], H[VI_MB_SPRING_NZ * VI_MB_SPRING_NZ];
} VIMBSpringKin;

/* A body's point in the fixed frame, P, its Jacobian Jp = dP/dz (dim x nq, rows of VI_MB_SPRING_NZ / 2) and the Hessians
   Hp[i] of its components (nq x nq); the ground's point s is fixed (nq = 0). A flexible body's point is its frame's. */
static void VIMBSpringPoint(const VIMBModel *model, PetscInt b, const PetscReal s[], const PetscReal q[], PetscReal P[3], PetscReal Jp[3][7],
                            PetscReal Hp[3][49], PetscInt *nq)
{
  const PetscReal *z = b ? q + model->bodies[b].off : NULL;

  *nq = b ? (model->dim == 3 ? 7 : 3) : 0;
  for (PetscInt i = 0; i < 3; i++) {
    P[i] = z ? z[i] : s[i];
    for (PetscInt a = 0; a < 7; a++) Jp[i][a] = a == i && z ? 1 : 0;
    for (PetscInt a = 0; a < 49; a++) Hp[i][a] = 0;
  }
  if (!z) return;
  if (model->dim == 2) {
    PetscReal rs[2], rs1[2];
    VIMBRotate(z[2], s, rs, rs1);
    P[2] = 0;
    for (PetscInt i = 0; i < 2; i++) {
      P[i] += rs[i];
      Jp[i][2]         = rs1[i];
      Hp[i][2 * 3 + 2] = -rs[i];
    }
    return;
  }
  {
    PetscReal A[3][16];
    VIMBQuatForms(s, A);
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt a = 0; a < 4; a++)
        for (PetscInt c = 0; c < 4; c++) {
          P[i] += z[3 + a] * A[i][a * 4 + c] * z[3 + c];
          Jp[i][3 + a] += 2 * A[i][a * 4 + c] * z[3 + c];
          Hp[i][(3 + a) * 7 + 3 + c] = 2 * A[i][a * 4 + c];
        }
  }
}

static PetscErrorCode VIMBSpringKinematics(MPI_Comm comm, const VIMBModel *model, const VIMBSpring *sp, const PetscReal q[], const PetscReal u[],
                                           PetscBool hess, VIMBSpringKin *kin)
{
  const PetscInt dim = model->dim;
  PetscReal      P[2][3], Jp[2][3][7], Hp[2][3][49], D[3][VI_MB_SPRING_NZ] = {{0}}, e[3] = {0, 0, 0}, len = 0;
  PetscInt       nq[2], base[2];

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < 2; s++) VIMBSpringPoint(model, sp->body[s], sp->point[s], q, P[s], Jp[s], Hp[s], &nq[s]);
  base[0] = 0;
  base[1] = nq[0];
  kin->nz = nq[0] + nq[1];
  for (PetscInt s = 0; s < 2; s++)
    for (PetscInt a = 0; a < nq[s]; a++) {
      kin->idx[base[s] + a] = model->bodies[sp->body[s]].off + a;
      for (PetscInt i = 0; i < dim; i++) D[i][base[s] + a] = (s ? 1 : -1) * Jp[s][i][a];
    }
  for (PetscInt i = 0; i < dim; i++) len += PetscSqr(P[1][i] - P[0][i]);
  len = PetscSqrtReal(len);
  PetscCheck(len > 1e-12 * PetscMax(sp->L0, 1), comm, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": spring '%s' has its two points at one place (length %g m): a zero-length spring has no direction (give it "
             "points apart)",
             model->path, sp->line, sp->name, (double)len);
  for (PetscInt i = 0; i < dim; i++) e[i] = (P[1][i] - P[0][i]) / len;
  kin->len  = len;
  kin->rate = 0;
  for (PetscInt a = 0; a < kin->nz; a++) {
    kin->b[a] = 0;
    for (PetscInt i = 0; i < dim; i++) kin->b[a] += D[i][a] * e[i];
    if (u) kin->rate += kin->b[a] * u[kin->idx[a]];
  }
  if (!hess) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < kin->nz; a++)
    for (PetscInt c = 0; c < kin->nz; c++) {
      PetscReal x = -kin->b[a] * kin->b[c];
      for (PetscInt i = 0; i < dim; i++) x += D[i][a] * D[i][c];
      kin->H[a * kin->nz + c] = x / len;
    }
  for (PetscInt s = 0; s < 2; s++)
    for (PetscInt a = 0; a < nq[s]; a++)
      for (PetscInt c = 0; c < nq[s]; c++)
        for (PetscInt i = 0; i < dim; i++) kin->H[(base[s] + a) * kin->nz + base[s] + c] += (s ? 1 : -1) * e[i] * Hp[s][i][a * nq[s] + c];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBSpringLength(MPI_Comm comm, const VIMBModel *model, PetscInt k, const PetscReal q[], PetscReal *len)
{
  VIMBSpringKin kin;

  PetscFunctionBeginUser;
  PetscCall(VIMBSpringKinematics(comm, model, &model->springs[k], q, NULL, PETSC_FALSE, &kin));
  *len = kin.len;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBSpringTension(MPI_Comm comm, const VIMBModel *model, PetscInt k, const PetscReal q[], const PetscReal u[], PetscReal *N)
{
  const VIMBSpring *sp = &model->springs[k];
  VIMBSpringKin     kin;

  PetscFunctionBeginUser;
  PetscCall(VIMBSpringKinematics(comm, model, sp, q, u, PETSC_FALSE, &kin));
  *N = sp->k * (kin.len - sp->L0) + sp->c * kin.rate;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBSpringForce(MPI_Comm comm, const VIMBModel *model, const PetscReal q[], const PetscReal u[], PetscReal f[], PetscReal dfdq[],
                               PetscReal dfdu[])
{
  const PetscInt n = model->n;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < model->nsprings; k++) {
    const VIMBSpring *sp = &model->springs[k];
    VIMBSpringKin     kin;
    PetscReal         N, Hw[VI_MB_SPRING_NZ];
    PetscCall(VIMBSpringKinematics(comm, model, sp, q, u, dfdq ? PETSC_TRUE : PETSC_FALSE, &kin));
    N = sp->k * (kin.len - sp->L0) + sp->c * kin.rate;
    for (PetscInt a = 0; a < kin.nz; a++) {
      if (f) f[kin.idx[a]] -= N * kin.b[a];
      if (dfdu)
        for (PetscInt c = 0; c < kin.nz; c++) dfdu[kin.idx[a] * n + kin.idx[c]] -= sp->c * kin.b[a] * kin.b[c];
    }
    if (!dfdq) continue;
    for (PetscInt a = 0; a < kin.nz; a++) {
      Hw[a] = 0;
      for (PetscInt c = 0; c < kin.nz; c++) Hw[a] += kin.H[a * kin.nz + c] * u[kin.idx[c]];
    }
    for (PetscInt a = 0; a < kin.nz; a++)
      for (PetscInt c = 0; c < kin.nz; c++)
        dfdq[kin.idx[a] * n + kin.idx[c]] -= kin.b[a] * (sp->k * kin.b[c] + sp->c * Hw[c]) + N * kin.H[a * kin.nz + c];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBSpringEnergy(MPI_Comm comm, const VIMBModel *model, const PetscReal q[], PetscReal *V)
{
  PetscFunctionBeginUser;
  *V = 0;
  for (PetscInt k = 0; k < model->nsprings; k++) {
    PetscReal len;
    PetscCall(VIMBSpringLength(comm, model, k, q, &len));
    *V += 0.5 * model->springs[k].k * PetscSqr(len - model->springs[k].L0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
