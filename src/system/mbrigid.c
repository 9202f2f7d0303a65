/* The constraint rows of a planar model of rigid bodies in one pass (VIMBRigid, mbimpl.h; docs/multibody.md): the rows'
   joint, bodies, coordinates and vectors are listed once when the model is set up, and at a configuration q every row's
   g, its gradient (at most six entries: x, y, theta of its two bodies) and its Hessian (at most seven distinct entries,
   all with an angle) come from one loop, each body's cosine and sine once (VIMBBodyCosSin), without the row's joint
   searched, an n-wide gradient zeroed or an n x n Hessian scratch (VIMBModelConstraint, the general path of flexible and
   spatial models). The formulas and their order of operations are VIMBModelConstraint's and VIMBModelTangent's, so the
   results are theirs, bitwise. */
#include "mbimpl.h"

/* A model the one-pass rows take: planar, every body rigid, every contact against a line of given normal. */
PetscBool VIMBRigidApplies(const VIMBModel *model)
{
  if (model->dim != 2) return PETSC_FALSE;
  for (PetscInt b = 1; b < model->nbodies; b++)
    if (model->bodies[b].flex) return PETSC_FALSE;
  for (PetscInt k = 0; k < model->ncontacts; k++)
    if (model->contacts[k].two_point) return PETSC_FALSE;
  return PETSC_TRUE;
}

PetscErrorCode VIMBRigidCreate(const VIMBModel *model, VIMBRigid *rg)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(rg, sizeof(*rg)));
  rg->nrows = model->nrows;
  PetscCall(PetscCalloc3(PetscMax(rg->nrows, 1), &rg->row, PetscMax(rg->nrows, 1), &rg->ev, 2 * model->nbodies, &rg->cs));
  for (PetscInt k = 0; k < model->njoints; k++) {
    const VIMBJoint *j = &model->joints[k];
    for (PetscInt r = j->row; r < j->row + j->rows; r++) {
      VIMBRigidRow *w = &rg->row[r];
      w->a            = j->body[0];
      w->b            = j->body[1];
      /* the angle rows, linear: th_b - th_a - angle0 (a driver's - phi(t) is the system's: multibody.c) */
      if ((j->type == VI_MB_JOINT_FIXED && r == j->row + 2) || j->type == VI_MB_JOINT_DRIVER ||
          (j->type == VI_MB_JOINT_PRISMATIC && r == j->row + 1)) {
        w->angle = PETSC_TRUE;
        w->shift = j->angle0;
        continue;
      }
      for (PetscInt i = 0; i < 2; i++) {
        w->p[i] = j->point[1][i];
        w->c[i] = j->point[0][i];
      }
      if (j->type == VI_MB_JOINT_PRISMATIC && r == j->row + 2) { /* a driven slide along body 1's axis */
        w->turn  = PETSC_TRUE;
        w->n0[0] = j->axis[0];
        w->n0[1] = j->axis[1];
        w->shift = j->slide0;
      } else if (j->type == VI_MB_JOINT_PRISMATIC) { /* point 2 on body 1's axis through point 1 */
        w->turn  = PETSC_TRUE;
        w->n0[0] = -j->axis[1];
        w->n0[1] = j->axis[0];
      } else {
        w->d[0] = r == j->row ? 1 : 0;
        w->d[1] = r == j->row ? 0 : 1;
        w->same = r > j->row ? PETSC_TRUE : PETSC_FALSE; /* a revolute or fixed joint's y row: the x row's points */
      }
    }
  }
  for (PetscInt k = 0; k < model->ncontacts; k++) {
    const VIMBContact *c = &model->contacts[k];
    VIMBRigidRow      *w = &rg->row[c->row];
    w->a                 = c->body[0];
    w->b                 = c->body[1];
    w->turn              = PETSC_TRUE;
    for (PetscInt i = 0; i < 2; i++) {
      w->p[i]  = c->point[i];
      w->c[i]  = c->line_point[i];
      w->n0[i] = c->line_normal[i];
    }
  }
  PetscCall(PetscMalloc2(rg->nrows + 1, &rg->ptr, PetscMax(6 * rg->nrows, 1), &rg->cols));
  rg->ptr[0] = 0;
  for (PetscInt r = 0; r < rg->nrows; r++) {
    VIMBRigidRow *w = &rg->row[r];
    PetscInt     *c = rg->cols + rg->ptr[r], nz = 0, lo, hi;
    w->oa = w->a ? model->bodies[w->a].off : -1;
    w->ob = w->b ? model->bodies[w->b].off : -1;
    lo    = w->oa >= 0 && w->ob >= 0 ? PetscMin(w->oa, w->ob) : PetscMax(w->oa, w->ob);
    hi    = w->oa >= 0 && w->ob >= 0 && w->oa != w->ob ? PetscMax(w->oa, w->ob) : -1; /* each coordinate once */
    if (w->angle) { /* constant gradient, no curvature */
      rg->ev[r].gb[2] = 1;
      rg->ev[r].ga[2] = -1;
    }
    /* the row's columns: its bodies' (x, y, theta), ascending */
    for (PetscInt i = 0; i < 3 && lo >= 0; i++) c[nz++] = lo + i;
    for (PetscInt i = 0; i < 3 && hi >= 0; i++) c[nz++] = hi + i;
    rg->ptr[r + 1] = rg->ptr[r] + nz;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBRigidDestroy(VIMBRigid *rg)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(rg->row, rg->ev, rg->cs));
  PetscCall(PetscFree2(rg->ptr, rg->cols));
  rg->nrows = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every row at q into rg->ev (seed 002 Eqs. 53-54 for a corner against a line; mbmodel.c VIMBModelConstraint for the
   derivation): g = d . D - shift, D = r_b + R_b p - r_a - R_a c, d = R_a n0 (turning with body a) or fixed; hess: the
   Hessian's entries too. */
void VIMBRigidEvaluate(const VIMBModel *model, VIMBRigid *rg, const PetscReal q[], PetscBool hess)
{
  PetscReal *cs = rg->cs, Rp[2] = {0, 0}, Rp1[2] = {0, 0}, Rc[2] = {0, 0}, Rc1[2] = {0, 0}, D[2] = {0, 0};

  for (PetscInt b = 0; b < model->nbodies; b++) VIMBBodyCosSin(model, b, b ? q[model->bodies[b].off + 2] : 0, &cs[2 * b], &cs[2 * b + 1]);
  for (PetscInt r = 0; r < rg->nrows; r++) {
    const VIMBRigidRow *w     = &rg->row[r];
    VIMBRigidEval      *e     = &rg->ev[r];
    PetscReal           ra[2] = {0, 0}, rb[2] = {0, 0}, tha = 0, thb = 0, ca, sa, cb, sb, d[2], d1[2] = {0, 0};

    if (w->same) { /* a joint's y row after its x row: their points and D are the same */
      d[0] = w->d[0];
      d[1] = w->d[1];
    } else {
      if (w->a) {
        ra[0] = q[w->oa];
        ra[1] = q[w->oa + 1];
        tha   = q[w->oa + 2];
      }
      if (w->b) {
        rb[0] = q[w->ob];
        rb[1] = q[w->ob + 1];
        thb   = q[w->ob + 2];
      }
      if (w->angle) {
        e->g = thb - tha - w->shift;
        continue;
      }
      ca = cs[2 * w->a];
      sa = cs[2 * w->a + 1];
      cb = cs[2 * w->b];
      sb = cs[2 * w->b + 1];
      if (w->turn)
        VIMBRotateCS(ca, sa, w->n0, d, d1);
      else {
        d[0] = w->d[0];
        d[1] = w->d[1];
      }
      VIMBRotateCS(cb, sb, w->p, Rp, Rp1);
      VIMBRotateCS(ca, sa, w->c, Rc, Rc1);
      D[0] = rb[0] + Rp[0] - ra[0] - Rc[0];
      D[1] = rb[1] + Rp[1] - ra[1] - Rc[1];
    }
    e->g     = d[0] * D[0] + d[1] * D[1] - w->shift;
    e->gb[0] = d[0];
    e->gb[1] = d[1];
    e->gb[2] = d[0] * Rp1[0] + d[1] * Rp1[1];
    e->ga[0] = -d[0];
    e->ga[1] = -d[1];
    e->ga[2] = d1[0] * D[0] + d1[1] * D[1] - (d[0] * Rc1[0] + d[1] * Rc1[1]);
    if (!hess) continue;
    e->hbb   = -(d[0] * Rp[0] + d[1] * Rp[1]);
    e->haa   = (w->turn ? -(d[0] * D[0] + d[1] * D[1]) : 0) - 2 * (d1[0] * Rc1[0] + d1[1] * Rc1[1]) + d[0] * Rc[0] + d[1] * Rc[1];
    e->hab   = d1[0] * Rp1[0] + d1[1] * Rp1[1];
    e->d1[0] = d1[0];
    e->d1[1] = d1[1];
  }
}

/* The tangential row of contact k (VIMBModelTangent's, for a contact of a rigid body against a line of given normal) into
   grad (n, zeroed by the caller) */
void VIMBRigidTangent(const VIMBModel *model, PetscInt k, const PetscReal q[], PetscReal grad[])
{
  const VIMBContact *c = &model->contacts[k];
  const PetscInt     a = c->body[0], b = c->body[1], oa = a ? model->bodies[a].off : 0, ob = b ? model->bodies[b].off : 0;
  PetscReal          tha = a ? q[oa + 2] : 0, thb = b ? q[ob + 2] : 0, d[2], d1[2], Rp[2], Rp1[2], P[2], ra[2] = {0, 0}, ca, sa, cb, sb;

  VIMBBodyCosSin(model, a, tha, &ca, &sa);
  VIMBBodyCosSin(model, b, thb, &cb, &sb);
  VIMBRotateCS(ca, sa, c->line_normal, d, d1); /* d1 = J d: the tangent */
  VIMBRotateCS(cb, sb, c->point, Rp, Rp1);
  if (a) {
    ra[0] = q[oa];
    ra[1] = q[oa + 1];
  }
  P[0] = (b ? q[ob] : 0) + Rp[0];
  P[1] = (b ? q[ob + 1] : 0) + Rp[1];
  if (b) {
    grad[ob]     = d1[0];
    grad[ob + 1] = d1[1];
    grad[ob + 2] = d1[0] * Rp1[0] + d1[1] * Rp1[1];
  }
  if (a) {
    grad[oa]     = -d1[0];
    grad[oa + 1] = -d1[1];
    grad[oa + 2] = -(d1[0] * -(P[1] - ra[1]) + d1[1] * (P[0] - ra[0]));
  }
}

/* G (nc x n), HV (nc x n: row r is (H_r v)^T) and Hw = sum_r w_r H_r (n x n) from rg->ev (VIMBRigidEvaluate with the
   Hessians for HV, Hw; any may be NULL). The sums run over each row's coordinates in their order, as
   VISystemComputeConstraintDerivatives_Multibody's general path sums its scratch Hessian's rows: the same numbers, bitwise. */
void VIMBRigidDerivatives(const VIMBRigid *rg, PetscInt n, const PetscReal v[], const PetscReal w[], PetscReal G[], PetscReal HV[], PetscReal Hw[])
{
  if (G) {
    for (PetscInt i = 0; i < rg->nrows * n; i++) G[i] = 0;
    for (PetscInt r = 0; r < rg->nrows; r++) {
      const VIMBRigidRow  *rw = &rg->row[r];
      const VIMBRigidEval *e  = &rg->ev[r];
      PetscReal           *Gr = G + r * n;
      if (rw->b)
        for (PetscInt i = 0; i < 3; i++) Gr[rw->ob + i] = e->gb[i];
      if (rw->a)
        for (PetscInt i = 0; i < 3; i++) Gr[rw->oa + i] = e->ga[i];
    }
  }
  if (HV) {
    for (PetscInt i = 0; i < rg->nrows * n; i++) HV[i] = 0;
    for (PetscInt r = 0; r < rg->nrows; r++) {
      const VIMBRigidRow  *rw = &rg->row[r];
      const VIMBRigidEval *e  = &rg->ev[r];
      PetscReal           *Hr = HV + r * n;
      const PetscInt       oa = rw->oa, ob = rw->ob;
      if (rw->angle) continue;
      if (rw->a && rw->b) {
        const PetscReal va = v[oa + 2], vb = v[ob + 2];
        PetscReal       sa, sb;
        if (oa < ob) {
          sb = e->hab * va;
          sb += e->hbb * vb;
          sa = -e->d1[0] * v[oa];
          sa += -e->d1[1] * v[oa + 1];
          sa += e->haa * va;
          sa += e->d1[0] * v[ob];
          sa += e->d1[1] * v[ob + 1];
          sa += e->hab * vb;
        } else {
          sb = e->hbb * vb;
          sb += e->hab * va;
          sa = e->d1[0] * v[ob];
          sa += e->d1[1] * v[ob + 1];
          sa += e->hab * vb;
          sa += -e->d1[0] * v[oa];
          sa += -e->d1[1] * v[oa + 1];
          sa += e->haa * va;
        }
        for (PetscInt i = 0; i < 2; i++) {
          Hr[oa + i] = -e->d1[i] * va;
          Hr[ob + i] = e->d1[i] * va;
        }
        Hr[oa + 2] = sa;
        Hr[ob + 2] = sb;
      } else if (rw->b) {
        Hr[ob + 2] = e->hbb * v[ob + 2];
      } else if (rw->a) {
        PetscReal sa = -e->d1[0] * v[oa];
        sa += -e->d1[1] * v[oa + 1];
        sa += e->haa * v[oa + 2];
        for (PetscInt i = 0; i < 2; i++) Hr[oa + i] = -e->d1[i] * v[oa + 2];
        Hr[oa + 2] = sa;
      }
    }
  }
  if (Hw) {
    for (PetscInt i = 0; i < n * n; i++) Hw[i] = 0;
    for (PetscInt r = 0; r < rg->nrows; r++) {
      const VIMBRigidRow  *rw = &rg->row[r];
      const VIMBRigidEval *e  = &rg->ev[r];
      const PetscReal      wr = w[r];
      const PetscInt       ta = rw->oa + 2, tb = rw->ob + 2;
      if (rw->angle || wr == 0) continue;
      if (rw->b) Hw[tb * n + tb] += wr * e->hbb;
      if (rw->a) {
        Hw[ta * n + ta] += wr * e->haa;
        for (PetscInt i = 0; i < 2; i++) {
          Hw[ta * n + rw->oa + i] += wr * -e->d1[i];
          Hw[(rw->oa + i) * n + ta] += wr * -e->d1[i];
        }
      }
      if (rw->a && rw->b) {
        Hw[ta * n + tb] += wr * e->hab;
        Hw[tb * n + ta] += wr * e->hab;
        for (PetscInt i = 0; i < 2; i++) {
          Hw[ta * n + rw->ob + i] += wr * e->d1[i];
          Hw[(rw->ob + i) * n + ta] += wr * e->d1[i];
        }
      }
    }
  }
}
