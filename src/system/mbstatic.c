/* A flexible body's quasi-static initial deflection ('initial: static' on a body of type flexible; docs/multibody.md,
   "Initial elastic coordinates"; issue 23): the start at which the elastic coordinates q_F of every such body do not
   accelerate. With the given velocities u0 held and d2q_F/dt2 = 0, the unknowns are q (q_F, and the other coordinates
   q_N moved only across the rows, q_N - q_N0 = G_N(q0)^T mu), the other coordinates' accelerations a_N, the active rows'
   multipliers lambda (the joints' rows and the contacts closed at the start, |g| <= assembly_tolerance, with their
   friction's tangential rows, sticking) and mu:

       M(q)[:, N] a_N - f(q, u0) - G^T lambda - G_t^T lambda_t = 0   (every coordinate; the rows of F: K q_F = Q_F - m_FN a_N + G_F^T lambda)
       G_N a_N + u0^T H u0 + d2g/dt2 = 0,  G_t,N a_N = 0               (the rows at acceleration level)
       g(q) = g(q0)                                                    (and at position level)
       q_N - q_N0 - G_N(q0)^T mu = 0

   f the system's forces at t = 0 (the ROM's -K q_f, gravity, springs, loads, the quadratic velocity vector at u0: a spinning
   body's centrifugal load; seed 001 Eqs. 146-153 and 167-169). A body whose frame is held or turns steadily has a_N = 0
   and its static deflection; one whose frame accelerates carries the d'Alembert load -m_FN a_N; a body resting on it
   loads it with the contact's force. Gauss-Newton on the row- and column-scaled system, its least-squares solution of
   least norm (LAPACK gelss: redundant rows, a node pinned on a clamped body, leave it rank-deficient but consistent), with
   the exact derivatives but those of u0^T H u0 and of the tangential rows (converging linearly where they matter). A
   closed contact's gap is left at or below its initial value (not opened by round-off: a velocity-level scheme would see
   the contact open in its first step). */
#include "mbimpl.h"
#include <petscblaslapack.h>

PetscErrorCode VIMBModelStaticElastic(VISystem sys, VIMBModel *model, PetscReal q[], const PetscReal u[])
{
  const PetscInt n = model->n, nc = model->nrows, nb = model->nrows - model->ncontacts, fo = model->dim == 3 ? 7 : 3, dt = model->dim - 1;
  PetscInt       nF = 0, nN = 0, nA = 0, nT = 0, ntall = 0, nx, *N, *A, *T, *Tk, it;
  PetscBool     *isF;
  PetscReal     *q0, *gt, *M, *f, *dfdq, *dMa, *Hl, *HVu, *HVa, *g, *g0, *G, *G0, *Gt, *gtt, *lam, *a, *J, *e, *rs, *cs, *sv, *work, step = 0;
  PetscBLASInt   bn, one = 1, rank, lwork, info;
  PetscInt       nudge      = 0;
  char           names[256] = "";

  PetscFunctionBeginUser;
  for (PetscInt b = 1; b < model->nbodies; b++)
    if (model->bodies[b].flex && model->bodies[b].flex->static0) {
      nF += model->bodies[b].flex->nf;
      PetscCall(PetscStrlcat(names, names[0] ? ", '" : "'", sizeof(names)));
      PetscCall(PetscStrlcat(names, model->bodies[b].name, sizeof(names)));
      PetscCall(PetscStrlcat(names, "'", sizeof(names)));
    }
  if (!nF) PetscFunctionReturn(PETSC_SUCCESS); /* 'initial: undeformed' everywhere: the state as it was */
  for (PetscInt k = 0; k < model->ncontacts; k++)
    if (model->contacts[k].mu > 0) ntall += dt;
  PetscCall(PetscMalloc6(n, &q0, n * n, &M, n, &f, n * n, &dfdq, n * n, &dMa, n * n, &Hl));
  PetscCall(PetscMalloc6(PetscMax(nc, 1) * n, &HVu, PetscMax(nc, 1) * n, &HVa, PetscMax(nc, 1), &g, PetscMax(nc, 1), &g0, PetscMax(nc, 1) * n, &G,
                         PetscMax(nc, 1) * n, &G0));
  PetscCall(PetscMalloc6(PetscMax(ntall, 1) * n, &Gt, PetscMax(nc, 1), &gtt, PetscMax(nc, 1), &lam, n, &a, n, &isF, n, &N));
  PetscCall(PetscMalloc4(PetscMax(nc, 1), &A, PetscMax(ntall, 1), &T, PetscMax(ntall, 1), &Tk, PetscMax(nc, 1), &gt));
  PetscCall(PetscArrayzero(isF, n));
  for (PetscInt b = 1; b < model->nbodies; b++) {
    const VIMBBody *bd = &model->bodies[b];
    if (bd->flex && bd->flex->static0)
      for (PetscInt k = 0; k < bd->flex->nf; k++) isF[bd->off + fo + k] = PETSC_TRUE;
  }
  for (PetscInt i = 0; i < n; i++)
    if (!isF[i]) N[nN++] = i;
  /* the active rows: the joints' (and spatial norm rows), the contacts closed at the start with their tangential rows */
  PetscCall(PetscArraycpy(q0, q, n));
  PetscCall(VISystemEvaluateConstraints(sys, 0, q0, g0, G0, NULL));
  PetscCall(PetscArraycpy(gt, g0, nc));
  for (PetscInt r = 0; r < nb; r++) A[nA++] = r;
  for (PetscInt k = 0, i = 0; k < model->ncontacts; k++) {
    const VIMBContact *c      = &model->contacts[k];
    const PetscBool    closed = PetscAbsReal(g0[c->row]) <= model->tolerance ? PETSC_TRUE : PETSC_FALSE;
    if (closed) A[nA++] = c->row;
    if (c->mu > 0) {
      for (PetscInt d = 0; d < dt; d++)
        if (closed) Tk[nT] = k, T[nT++] = i + d;
      i += dt;
    }
  }
  nx    = n + nN + 2 * nA + nT; /* unknowns q, a_N, lambda_A, lambda_T, mu = equations */
  bn    = (PetscBLASInt)nx;
  lwork = 8 * nx + 64;
  PetscCall(PetscMalloc6(nx * nx, &J, nx, &e, nx, &rs, nx, &cs, nx, &sv, lwork, &work));
  PetscCall(PetscArrayzero(lam, PetscMax(nc, 1)));
  PetscCall(PetscArrayzero(a, n));
  {
    PetscReal *lt, *mu; /* lambda_T; mu, the rows' position multipliers */
    PetscCall(PetscCalloc2(PetscMax(nT, 1), &lt, PetscMax(nA, 1), &mu));
    for (it = 0; it < 100; it++) {
      PetscReal sizeF = 0, stepF = 0, stepN = 0;
      PetscCall(VISystemComputeMass(sys, q, M));
      PetscCall(VISystemComputeForce(sys, 0, q, u, f));
      PetscCall(VISystemComputeForceJacobian(sys, 0, q, u, dfdq, NULL));
      PetscCall(VISystemComputeMassJacobian(sys, q, a, dMa));
      PetscCall(VISystemComputeConstraintCurvature(sys, 0, q, lam, Hl));
      PetscCall(VISystemEvaluateConstraints(sys, 0, q, g, G, NULL));
      PetscCall(VISystemComputeConstraintDerivatives(sys, 0, q, u, NULL, NULL, HVu, NULL));
      PetscCall(VISystemComputeConstraintDerivatives(sys, 0, q, a, NULL, NULL, HVa, NULL));
      PetscCall(VISystemEvaluateConstraintAcceleration(sys, 0, gtt));
      if (ntall) PetscCall(VISystemEvaluateTangents(sys, 0, q, Gt));
      PetscCall(PetscArrayzero(J, nx * nx)); /* column-major: J[col * nx + row] */
      /* E1 (rows 0..n-1): M[:, N] a_N - f - G_A^T lambda - G_T^T lambda_T */
      for (PetscInt i = 0; i < n; i++) {
        e[i] = -f[i];
        for (PetscInt j = 0; j < nN; j++) e[i] += M[i * n + N[j]] * a[N[j]];
        for (PetscInt k = 0; k < nA; k++) e[i] -= G[A[k] * n + i] * lam[A[k]];
        for (PetscInt k = 0; k < nT; k++) e[i] -= Gt[T[k] * n + i] * lt[k];
        for (PetscInt c = 0; c < n; c++) J[c * nx + i] = dMa[i * n + c] - dfdq[i * n + c] - Hl[i * n + c];
        for (PetscInt j = 0; j < nN; j++) J[(n + j) * nx + i] = M[i * n + N[j]];
        for (PetscInt k = 0; k < nA; k++) J[(n + nN + k) * nx + i] = -G[A[k] * n + i];
        for (PetscInt k = 0; k < nT; k++) J[(n + nN + nA + k) * nx + i] = -Gt[T[k] * n + i];
      }
      /* E2 (n..n+nA-1): G_N a_N + u^T H u + d2g/dt2; E4 (after E3): g - g0 */
      for (PetscInt k = 0; k < nA; k++) {
        const PetscInt r = A[k], i2 = n + k, i4 = n + nA + nT + k;
        e[i2] = gtt[r];
        for (PetscInt c = 0; c < n; c++) e[i2] += G[r * n + c] * a[c] + HVu[r * n + c] * u[c];
        for (PetscInt c = 0; c < n; c++) J[c * nx + i2] = HVa[r * n + c];
        for (PetscInt j = 0; j < nN; j++) J[(n + j) * nx + i2] = G[r * n + N[j]];
        e[i4] = g[r] - gt[r];
        for (PetscInt c = 0; c < n; c++) J[c * nx + i4] = G[r * n + c];
      }
      /* E3 (n+nA..): G_t,N a_N (sticking) */
      for (PetscInt k = 0; k < nT; k++) {
        const PetscInt i3 = n + nA + k;
        e[i3]             = 0;
        for (PetscInt j = 0; j < nN; j++) {
          e[i3] += Gt[T[k] * n + N[j]] * a[N[j]];
          J[(n + j) * nx + i3] = Gt[T[k] * n + N[j]];
        }
      }
      /* E5 (last nN): q_N - q_N0 - G_N(q0)^T mu */
      for (PetscInt j = 0; j < nN; j++) {
        const PetscInt i5 = n + 2 * nA + nT + j;
        e[i5]             = q[N[j]] - q0[N[j]];
        J[N[j] * nx + i5] = 1;
        for (PetscInt k = 0; k < nA; k++) {
          e[i5] -= G0[A[k] * n + N[j]] * mu[k];
          J[(n + nN + nA + nT + k) * nx + i5] = -G0[A[k] * n + N[j]];
        }
      }
      /* scale rows and columns, solve the least-squares step of least norm */
      for (PetscInt i = 0; i < nx; i++) {
        PetscReal mx = 0;
        for (PetscInt c = 0; c < nx; c++) mx = PetscMax(mx, PetscAbsReal(J[c * nx + i]));
        rs[i] = mx > 0 ? 1 / mx : 1;
        for (PetscInt c = 0; c < nx; c++) J[c * nx + i] *= rs[i];
        e[i] *= -rs[i];
      }
      for (PetscInt c = 0; c < nx; c++) {
        PetscReal mx = 0;
        for (PetscInt i = 0; i < nx; i++) mx = PetscMax(mx, PetscAbsReal(J[c * nx + i]));
        cs[c] = mx > 0 ? 1 / mx : 1;
        for (PetscInt i = 0; i < nx; i++) J[c * nx + i] *= cs[c];
      }
      {
        const PetscReal rcond = 1e-12;
        PetscCallBLAS("LAPACKgelss", LAPACKgelss_(&bn, &bn, &one, J, &bn, e, &bn, sv, &rcond, &rank, work, &lwork, &info));
      }
      PetscCheck(info == 0, sys->comm, PETSC_ERR_LIB, "LAPACK gelss failed (%d)", (int)info);
      for (PetscInt c = 0; c < nx; c++) e[c] *= cs[c];
      for (PetscInt i = 0; i < n; i++) {
        q[i] += e[i];
        if (isF[i]) {
          stepF = PetscMax(stepF, PetscAbsReal(e[i]));
          sizeF = PetscMax(sizeF, PetscAbsReal(q[i]));
        } else
          stepN = PetscMax(stepN, PetscAbsReal(e[i]));
      }
      for (PetscInt j = 0; j < nN; j++) a[N[j]] += e[n + j];
      for (PetscInt k = 0; k < nA; k++) lam[A[k]] += e[n + nN + k];
      for (PetscInt k = 0; k < nT; k++) lt[k] += e[n + nN + nA + k];
      for (PetscInt k = 0; k < nA; k++) mu[k] += e[n + nN + nA + nT + k];
      step = stepF;
      if ((stepF <= 1e-13 * sizeF || stepF == 0) && stepN <= 1e-15) {
        /* a closed contact's gap must not open by round-off (a velocity-level scheme would see it open at the first step and
           the body fall): its target lowered by twice the excess, and a few more steps */
        PetscBool open = PETSC_FALSE;
        PetscCall(VISystemEvaluateConstraints(sys, 0, q, g, NULL, NULL));
        for (PetscInt k = nb; k < nA; k++)
          if (g[A[k]] > g0[A[k]] && nudge < 5) {
            gt[A[k]] -= 2 * (g[A[k]] - g0[A[k]]);
            open = PETSC_TRUE;
          }
        if (!open) break;
        nudge++;
      }
    }
    PetscCheck(it < 100, sys->comm, PETSC_ERR_NOT_CONVERGED,
               "%s: 'initial: static' on the flexible bod%s %s: the quasi-static iteration did not converge in 100 steps (its last step %.3e); "
               "start %s 'undeformed' or give 'elastic: [...]'",
               model->path, strchr(names, ',') ? "ies" : "y", names, (double)step, strchr(names, ',') ? "them" : "it");
    for (PetscInt k = 0; k < nT; k += dt) { /* a closed frictional contact's dt tangential rows, one after the other */
      const VIMBContact *c   = &model->contacts[Tk[k]];
      const PetscReal    ltn = dt == 2 ? PetscSqrtReal(lt[k] * lt[k] + lt[k + 1] * lt[k + 1]) : PetscAbsReal(lt[k]);
      PetscCheck(lam[c->row] >= 0 && ltn <= c->mu * lam[c->row] * (1 + 1e-12), sys->comm, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT
                 ": 'initial: static' on the flexible bod%s %s: the contact '%s' would not stick at the start (normal force %.6g, "
                 "friction %.6g, mu %g): start %s 'undeformed'",
                 model->path, c->line, strchr(names, ',') ? "ies" : "y", names, c->name, (double)lam[c->row], (double)ltn, (double)c->mu,
                 strchr(names, ',') ? "them" : "it");
    }
    for (PetscInt k = 0; k < model->ncontacts; k++) {
      const VIMBContact *c = &model->contacts[k];
      PetscCheck(PetscAbsReal(g0[c->row]) > model->tolerance || lam[c->row] >= 0, sys->comm, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": 'initial: static' on the flexible bod%s %s: the contact '%s', closed at the start, would pull (%.6g): start "
                 "%s 'undeformed'",
                 model->path, c->line, strchr(names, ',') ? "ies" : "y", names, c->name, (double)lam[c->row], strchr(names, ',') ? "them" : "it");
    }
    PetscCall(PetscInfo(NULL,
                        "initial: static: %" PetscInt_FMT " elastic coordinates, %" PetscInt_FMT " rows, %" PetscInt_FMT " steps (the last %.3e)\n",
                        nF, nA + nT, it + 1, (double)step));
    PetscCall(PetscFree2(lt, mu));
  }
  /* the state found: the bodies' poses (moved across the rows only) and the static bodies' elastic coordinates */
  for (PetscInt b = 1; b < model->nbodies; b++) {
    VIMBBody *bd = &model->bodies[b];
    for (PetscInt d = 0; d < fo; d++) bd->pose[d] = q[bd->off + d];
    if (!bd->flex || !bd->flex->static0) continue;
    if (!bd->flex->q0) PetscCall(PetscMalloc1(bd->flex->nf, &bd->flex->q0));
    PetscCall(PetscArraycpy(bd->flex->q0, q + bd->off + fo, bd->flex->nf));
  }
  PetscCall(PetscFree6(J, e, rs, cs, sv, work));
  PetscCall(PetscFree4(A, T, Tk, gt));
  PetscCall(PetscFree6(Gt, gtt, lam, a, isF, N));
  PetscCall(PetscFree6(HVu, HVa, g, g0, G, G0));
  PetscCall(PetscFree6(q0, M, f, dfdq, dMa, Hl));
  PetscFunctionReturn(PETSC_SUCCESS);
}
