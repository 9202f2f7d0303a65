/* Linear spring-dampers between two body points of a multibody model (model key 'springs:', docs/multibody.md "Springs").

   Spring k joins P1, a point of body1, and P2, a point of body2 (either may be the ground; in the plane P = r + R(theta) s,
   in space P_i = r_i + p^T A_i(s) p, the quaternion's quadratic form of mbspatial.c; on a flexible body s + Phi_P q_f at a
   node or a weighted mean of nodes, mbpoint.c). With d = P2 - P1, its length l = |d|, e = d / l and its rate
   dl/dt = e . (dP2/dt - dP1/dt), the tension is N = k (l - L0) + c dl/dt, the force -N e on P2 and +N e on P1. On the two
   bodies' coordinates z (3 or 3 + nf each, spatial 7 or 7 + nf; the ground has none) with D = dd/dz:
     grad l = b = D^T e,   Hess l = H = (D^T D - b b^T) / l + sum_i e_i Hess d_i,   dl/dt = b . w (w = dz/dt),
   so the generalized force is f = -N b (its virtual work -N dl) and, as b . w = grad l . w has the gradient H w at fixed w,
     df/dz = -b (k b + c H w)^T - N H,   df/dw = -c b b^T.
   Hess d_i has the rotation's part only: -(R s)_i on the planar angle (and R' Phi_k on (theta, q_k) at a node, whose
   generalized force on the elastic coordinates is (dP/dq_f)^T (-N e) = -N Phi_P^T R^T e), 2 A_i(s) on the quaternion (and
   2 A_i(Phi_k) p on (p, q_k) at a node); H is VIMBPointChain's (mbpoint.c) of l(P1, P2), planar and spatial. The spring's
   potential is k (l - L0)^2 / 2; the damper's power
   -c (dl/dt)^2 is external work in the energy balance (its force is in f). */
#include "mbimpl.h"

/* One spring's kinematics on its bodies' coordinates idx[0 .. nz - 1]: l, dl/dt, b = grad l and (hess) H = Hess l
   (VIMBSpringKinFree frees them). */
typedef struct {
  PetscInt  nz, *idx;
  PetscReal len, rate, *b, *H;
} VIMBSpringKin;

static PetscErrorCode VIMBSpringKinFree(VIMBSpringKin *kin)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(kin->idx, kin->b, kin->H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* l = |P2 - P1| of two mbpoint.c points (planar or spatial, each optionally a flexible body's node), e = (P2 - P1) / l,
   gX = (-e, e) and HX = [M, -M; -M, M], M = (I - e e^T) / l, through VIMBPointChain; dl/dt = b . u. */
static PetscErrorCode VIMBSpringKinematics(MPI_Comm comm, const VIMBModel *model, const VIMBSpring *sp, const PetscReal q[], const PetscReal u[],
                                           PetscBool hess, VIMBSpringKin *kin)
{
  const PetscInt dim = model->dim, nzmax = VIMBPointSize(model, sp->body[0]) + VIMBPointSize(model, sp->body[1]);
  VIMBPoint      pts[2];
  PetscInt       base[2];
  PetscReal      e[3], gX[6], HX[36], len = 0, *Jp;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(nzmax + 1, &kin->idx, nzmax + 1, &kin->b, (hess ? nzmax * nzmax : 0) + 1, &kin->H));
  PetscCall(PetscMalloc1(dim * nzmax + 1, &Jp));
  pts[0].J = Jp;
  pts[1].J = Jp + dim * VIMBPointSize(model, sp->body[0]);
  for (PetscInt s = 0; s < 2; s++) VIMBPointEvaluate(model, sp->body[s], sp->point[s], sp->phi[s], q, &pts[s]);
  base[0] = 0;
  base[1] = pts[0].nq;
  kin->nz = nzmax;
  for (PetscInt s = 0; s < 2; s++)
    for (PetscInt a = 0; a < pts[s].nq; a++) kin->idx[base[s] + a] = model->bodies[sp->body[s]].off + a;
  for (PetscInt i = 0; i < dim; i++) len += PetscSqr(pts[1].X[i] - pts[0].X[i]);
  len = PetscSqrtReal(len);
  if (!(len > 1e-12 * PetscMax(sp->L0, 1))) {
    PetscCall(PetscFree(Jp));
    PetscCall(VIMBSpringKinFree(kin));
  }
  PetscCheck(len > 1e-12 * PetscMax(sp->L0, 1), comm, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": spring '%s' has its two points at one place (length %g m): a zero-length spring has no direction (give it "
             "points apart)",
             model->path, sp->line, sp->name, (double)len);
  for (PetscInt i = 0; i < dim; i++) {
    e[i]        = (pts[1].X[i] - pts[0].X[i]) / len;
    gX[i]       = -e[i];
    gX[dim + i] = e[i];
  }
  for (PetscInt i = 0; i < dim; i++)
    for (PetscInt j = 0; j < dim; j++) {
      const PetscReal m   = ((i == j ? 1 : 0) - e[i] * e[j]) / len;
      HX[i * 2 * dim + j] = HX[(dim + i) * 2 * dim + dim + j] = m;
      HX[i * 2 * dim + dim + j] = HX[(dim + i) * 2 * dim + j] = -m;
    }
  for (PetscInt a = 0; a < kin->nz * (hess ? kin->nz : 0); a++) kin->H[a] = 0;
  for (PetscInt a = 0; a < kin->nz; a++) kin->b[a] = 0;
  VIMBPointChain(2, pts, base, gX, HX, kin->nz, kin->b, hess ? 1 : 0, hess ? kin->H : NULL);
  PetscCall(PetscFree(Jp));
  kin->len  = len;
  kin->rate = 0;
  for (PetscInt a = 0; a < kin->nz && u; a++) kin->rate += kin->b[a] * u[kin->idx[a]];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBSpringLength(MPI_Comm comm, const VIMBModel *model, PetscInt k, const PetscReal q[], PetscReal *len)
{
  VIMBSpringKin kin;

  PetscFunctionBeginUser;
  PetscCall(VIMBSpringKinematics(comm, model, &model->springs[k], q, NULL, PETSC_FALSE, &kin));
  *len = kin.len;
  PetscCall(VIMBSpringKinFree(&kin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBSpringTension(MPI_Comm comm, const VIMBModel *model, PetscInt k, const PetscReal q[], const PetscReal u[], PetscReal *N)
{
  const VIMBSpring *sp = &model->springs[k];
  VIMBSpringKin     kin;

  PetscFunctionBeginUser;
  PetscCall(VIMBSpringKinematics(comm, model, sp, q, u, PETSC_FALSE, &kin));
  *N = sp->k * (kin.len - sp->L0) + sp->c * kin.rate;
  PetscCall(VIMBSpringKinFree(&kin));
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
    PetscReal         N, *Hw;
    PetscCall(VIMBSpringKinematics(comm, model, sp, q, u, dfdq ? PETSC_TRUE : PETSC_FALSE, &kin));
    N = sp->k * (kin.len - sp->L0) + sp->c * kin.rate;
    for (PetscInt a = 0; a < kin.nz; a++) {
      if (f) f[kin.idx[a]] -= N * kin.b[a];
      if (dfdu)
        for (PetscInt c = 0; c < kin.nz; c++) dfdu[kin.idx[a] * n + kin.idx[c]] -= sp->c * kin.b[a] * kin.b[c];
    }
    if (!dfdq) {
      PetscCall(VIMBSpringKinFree(&kin));
      continue;
    }
    PetscCall(PetscMalloc1(kin.nz + 1, &Hw));
    for (PetscInt a = 0; a < kin.nz; a++) {
      Hw[a] = 0;
      for (PetscInt c = 0; c < kin.nz; c++) Hw[a] += kin.H[a * kin.nz + c] * u[kin.idx[c]];
    }
    for (PetscInt a = 0; a < kin.nz; a++)
      for (PetscInt c = 0; c < kin.nz; c++)
        dfdq[kin.idx[a] * n + kin.idx[c]] -= kin.b[a] * (sp->k * kin.b[c] + sp->c * Hw[c]) + N * kin.H[a * kin.nz + c];
    PetscCall(PetscFree(Hw));
    PetscCall(VIMBSpringKinFree(&kin));
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
