/* A flexible body's quasi-static initial deflection ('initial: static' on a body of type flexible; docs/multibody.md,
   "Initial elastic coordinates"; issue 23). With the frames' poses and the given velocities held, dq_f/dt = 0 and the
   frames' accelerations taken as 0, the elastic coordinates q_F of every such body solve their rows of the equations of
   motion,

       f_F(q, u0) + G_F^T lambda = 0,   g_R(q) = g_R(q0)   (R: the joints' rows that involve q_F),

   f_F the elastic coordinates' generalized forces of the system at t = 0 (the ROM's -K q_f, gravity's S^T A^T g, the
   springs at the body's nodes, the quadratic velocity vector at the initial velocities: a spinning body's centrifugal load;
   seed 001 Eqs. 146-153 and 167-169, mbflex.c, mbflexspatial.c, mbspring.c): a bordered Newton iteration on (q_F, lambda_R),

       [ df_F/dq_F + sum lambda_r d2g_r/dq_F2   G_RF^T ] [dq_F   ]     [ f_F + G_F^T lambda ]
       [ G_RF                                   0      ] [dlambda] = - [ g_R - g_R(q0)      ],

   with the system's own exact tangents (VISystemComputeForceJacobian, VISystemComputeConstraintCurvature): planar and
   spatial bodies through the same code. Contacts are not held (their force at t0 depends on the accelerations, which this
   start does not compute). */
#include "mbimpl.h"
#include <petscblaslapack.h>

PetscErrorCode VIMBModelStaticElastic(VISystem sys, VIMBModel *model, PetscReal q[], const PetscReal u[])
{
  const PetscInt n = model->n, nc = model->nrows, nb = model->nrows - model->ncontacts, fo = model->dim == 3 ? 7 : 3;
  PetscInt       nF = 0, nR = 0, m, *F, *R, it;
  PetscReal     *f, *dfdq, *g, *g0, *G, *H, *lam, *A, *r, step = 0, size = 0;
  PetscBLASInt   bm, one = 1, info, *piv;
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
  PetscCall(PetscMalloc6(n, &f, n * n, &dfdq, PetscMax(nc, 1), &g, PetscMax(nc, 1), &g0, PetscMax(nc, 1) * n, &G, n * n, &H));
  PetscCall(PetscMalloc3(nF, &F, PetscMax(nc, 1), &R, PetscMax(nc, 1), &lam));
  m = 0;
  for (PetscInt b = 1; b < model->nbodies; b++) {
    const VIMBBody *bd = &model->bodies[b];
    if (bd->flex && bd->flex->static0)
      for (PetscInt k = 0; k < bd->flex->nf; k++) F[m++] = bd->off + fo + k;
  }
  /* the joints' rows that involve the static bodies' elastic coordinates at the start: held at their initial value */
  PetscCall(VISystemEvaluateConstraints(sys, 0, q, g0, G, NULL));
  for (PetscInt rr = 0; rr < nb; rr++) {
    PetscBool touch = PETSC_FALSE;
    for (PetscInt i = 0; i < nF; i++)
      if (G[rr * n + F[i]] != 0) touch = PETSC_TRUE;
    if (touch) R[nR++] = rr;
  }
  m  = nF + nR;
  bm = (PetscBLASInt)m;
  PetscCall(PetscMalloc3(m * m, &A, m, &r, m, &piv));
  PetscCall(PetscArrayzero(lam, PetscMax(nc, 1)));
  for (it = 0; it < 50; it++) {
    PetscCall(VISystemComputeForce(sys, 0, q, u, f));
    PetscCall(VISystemComputeForceJacobian(sys, 0, q, u, dfdq, NULL));
    PetscCall(VISystemEvaluateConstraints(sys, 0, q, g, G, NULL));
    if (nR) PetscCall(VISystemComputeConstraintCurvature(sys, 0, q, lam, H));
    /* column-major A: the bordered tangent; r the residual */
    PetscCall(PetscArrayzero(A, m * m));
    for (PetscInt i = 0; i < nF; i++) {
      r[i] = f[F[i]];
      for (PetscInt k = 0; k < nR; k++) r[i] += G[R[k] * n + F[i]] * lam[R[k]];
      for (PetscInt j = 0; j < nF; j++) A[j * m + i] = dfdq[F[i] * n + F[j]] + (nR ? H[F[i] * n + F[j]] : 0);
      for (PetscInt k = 0; k < nR; k++) A[(nF + k) * m + i] = A[i * m + nF + k] = G[R[k] * n + F[i]];
    }
    for (PetscInt k = 0; k < nR; k++) r[nF + k] = g[R[k]] - g0[R[k]];
    for (PetscInt i = 0; i < m; i++) r[i] = -r[i];
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bm, &one, A, &bm, piv, r, &bm, &info));
    PetscCheck(info == 0, sys->comm, PETSC_ERR_USER_INPUT,
               "%s: 'initial: static' on the flexible bod%s %s: the elastic equations are singular (pivot %d): a ROM with rigid-body modes "
               "(free-free) has no static deflection (reduce it clamped at its frame's origin, docs/frame.md), nor has a node held twice by joints; "
               "or start it 'undeformed'",
               model->path, strchr(names, ',') ? "ies" : "y", names, (int)info);
    step = size = 0;
    for (PetscInt i = 0; i < nF; i++) {
      q[F[i]] += r[i];
      step = PetscMax(step, PetscAbsReal(r[i]));
      size = PetscMax(size, PetscAbsReal(q[F[i]]));
    }
    for (PetscInt k = 0; k < nR; k++) lam[R[k]] += r[nF + k];
    if (step <= 1e-13 * size || step == 0) break;
  }
  PetscCheck(it < 50, sys->comm, PETSC_ERR_NOT_CONVERGED,
             "%s: 'initial: static' on the flexible bod%s %s: the quasi-static Newton iteration did not converge in 50 steps (its last step %.3e "
             "of %.3e); start %s 'undeformed' or give 'elastic: [...]'",
             model->path, strchr(names, ',') ? "ies" : "y", names, (double)step, (double)size, strchr(names, ',') ? "them" : "it");
  PetscCall(PetscInfo(NULL,
                      "initial: static: %" PetscInt_FMT " elastic coordinates, %" PetscInt_FMT " joint rows held, %" PetscInt_FMT
                      " Newton steps (the last %.3e of %.3e)\n",
                      nF, nR, it + 1, (double)step, (double)size));
  for (PetscInt b = 1; b < model->nbodies; b++) {
    VIMBFlex *fx = model->bodies[b].flex;
    if (!fx || !fx->static0) continue;
    if (!fx->q0) PetscCall(PetscMalloc1(fx->nf, &fx->q0));
    PetscCall(PetscArraycpy(fx->q0, q + model->bodies[b].off + fo, fx->nf));
  }
  PetscCall(PetscFree3(A, r, piv));
  PetscCall(PetscFree3(F, R, lam));
  PetscCall(PetscFree6(f, dfdq, g, g0, G, H));
  PetscFunctionReturn(PETSC_SUCCESS);
}
