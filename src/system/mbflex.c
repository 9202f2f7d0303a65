/* A flexible body of a planar multibody model in a floating frame of reference (seed 001 §3 and App. C; docs/multibody.md,
   docs/frame.md): its local coordinates z = (R_x, R_y, theta, q_1 .. q_nf), R the frame's origin, A(theta) its rotation
   and q_f the ROM's coordinates, a material point at R + A (x + Phi q_f). The mass matrix M(theta, q_f) (Eqs. 126-140)
   comes from the ROM's inertia invariants (group /frame, `vicms reduce -cms_frame_invariants`); the quadratic velocity
   vector Q_v = -dM/dt w + 1/2 d(w^T M w)/dz (Lagrange's equations, the content of Eqs. 146-153) from the derivatives of M,
   which are few and exact: M depends on theta through A and A_theta, on q_f linearly and in m_thetatheta quadratically. */
#include "mbimpl.h"

PetscErrorCode VIMBFlexLoad(MPI_Comm comm, const char model_path[], PetscInt line, const char body[], const char rom_path[], PetscInt dim,
                            VIMBFlex **flexp)
{
  VIMBFlex         *fx;
  const VIROMFrame *fr;
  char              path[PETSC_MAX_PATH_LEN], who[PETSC_MAX_PATH_LEN + 128];
  PetscInt          nb, nm, n;
  PetscReal        *K, *M, *D;
  FILE             *fp;

  PetscFunctionBeginUser;
  /* relative to the working folder, as -mb_model and -rom_file */
  PetscCall(PetscStrncpy(path, rom_path, sizeof(path)));
  fp = fopen(path, "r");
  PetscCheck(fp, comm, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": flexible body '%s': cannot open its ROM file '%s' (relative to the working folder); make it with `vicms reduce "
             "... -cms_frame_invariants -rom_file %s` (docs/frame.md)",
             model_path, line, body, path, path);
  fclose(fp);
  PetscCall(PetscNew(&fx));
  *flexp = fx;
  PetscCall(VIROMCreate(comm, &fx->rom));
  PetscCall(VIROMLoad(fx->rom, path));
  PetscCall(PetscSNPrintf(who, sizeof(who), "the flexible body '%s' (%s line %" PetscInt_FMT ")", body, model_path, line));
  PetscCall(VIROMGetFrameInvariants(fx->rom, who, &fr));
  PetscCheck(fr->dim == dim, comm, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": flexible body '%s': its ROM '%s' was reduced from a %s mesh (dim %" PetscInt_FMT
             "); a %s model needs a %s parent (%s, docs/frame.md)",
             model_path, line, body, path, fr->dim == 3 ? "spatial" : "planar", fr->dim, dim == 3 ? "spatial (dim: 3)" : "planar",
             dim == 3 ? "spatial" : "planar", dim == 3 ? "3-D solid elements" : "CPS*/CPE* elements");
  fx->dim = dim;
  PetscCall(VIROMGetSizes(fx->rom, &nb, &nm));
  n = fx->nf = nb + nm;
  PetscCheck(fr->n == n, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: its /frame has n = %" PetscInt_FMT " but the ROM has %" PetscInt_FMT " coordinates",
             path, fr->n, n);
  PetscCall(VIROMGetMatrices(fx->rom, &K, &M, &D));
  PetscCall(PetscMalloc6(dim * n, &fx->S, n, &fx->I3, n, &fx->I4, n * n, &fx->mff, n * n, &fx->St, n * n, &fx->K));
  PetscCall(PetscMalloc1(n * n, &fx->D));
  PetscCall(PetscArraycpy(fx->K, K, n * n));
  if (D)
    PetscCall(PetscArraycpy(fx->D, D, n * n));
  else
    PetscCall(PetscArrayzero(fx->D, n * n));
  if (dim == 3) { /* the spatial invariants are read from /frame as they are (mbflexspatial.c) */
    fx->fr = fr;
    PetscCall(VIMBFlexSpatialSetUp(fx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the planar invariants of seed 001 App. C from /frame (docs/frame.md's table) */
  fx->m     = fr->mass;
  fx->I1[0] = fr->first_moment[0];
  fx->I1[1] = fr->first_moment[1];
  fx->I2    = fr->second_moment[0] + fr->second_moment[3];
  for (PetscInt k = 0; k < n; k++) {
    fx->S[k]     = fr->mode_moment[k];
    fx->S[n + k] = fr->mode_moment[n + k];
    fx->I3[k]    = fr->position_mode[0 * n + k] + fr->position_mode[3 * n + k];
    fx->I4[k]    = fr->position_mode[1 * n + k] - fr->position_mode[2 * n + k];
    for (PetscInt l = 0; l < n; l++) {
      fx->mff[k * n + l] = fr->mode_mode[(0 * n + k) * n + l] + fr->mode_mode[(3 * n + k) * n + l];
      fx->St[k * n + l]  = fr->mode_mode[(1 * n + k) * n + l] - fr->mode_mode[(2 * n + k) * n + l];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBFlexDestroy(VIMBFlex **flexp)
{
  VIMBFlex *fx = *flexp;

  PetscFunctionBeginUser;
  if (!fx) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree6(fx->S, fx->I3, fx->I4, fx->mff, fx->St, fx->K));
  PetscCall(PetscFree(fx->D));
  PetscCall(PetscFree(fx->q0));
  PetscCall(VIROMDestroy(&fx->rom));
  PetscCall(PetscFree(*flexp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBFlexNode(MPI_Comm comm, const VIMBFlex *flex, const char model_path[], PetscInt line, const char body[], const char node[],
                            PetscReal **phi)
{
  const PetscInt n = flex->nf;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(flex->dim * n, phi));
  for (PetscInt d = 0; d < flex->dim; d++) {
    char             name[2 * VI_MB_NAME];
    const PetscReal *o;
    PetscBool        found;
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s_%s", node, d == 2 ? "z" : (d ? "y" : "x")));
    PetscCall(VIROMFindOutput(flex->rom, name, &o, &found));
    if (!found) PetscCall(PetscFree(*phi));
    if (!found) { /* the rows it needs: NODE_x and NODE_y (spatial: NODE_x, NODE_y and NODE_z) */
      char rows[3 * VI_MB_NAME + 16];
      if (flex->dim == 3)
        PetscCall(PetscSNPrintf(rows, sizeof(rows), "%s_x, %s_y and %s_z", node, node, node));
      else
        PetscCall(PetscSNPrintf(rows, sizeof(rows), "%s_x and %s_y", node, node));
      SETERRQ(comm, PETSC_ERR_USER_INPUT,
              "%s:%" PetscInt_FMT ": the node '%s' of the flexible body '%s' needs the ROM's outputs %s (the point's displacement), and its ROM has "
              "no output '%s': name a node the ROM reports (`vicms info ROM.h5` lists its outputs)",
              model_path, line, node, body, rows, name);
    }
    PetscCall(PetscArraycpy(*phi + d * n, o, n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M into the nq x nq array X, symmetric entry (i, j) += v */
static inline void VIMBFlexSym(PetscReal X[], PetscInt nq, PetscInt i, PetscInt j, PetscReal v)
{
  X[i * nq + j] += v;
  if (i != j) X[j * nq + i] += v;
}

void VIMBFlexMass(const VIMBFlex *fx, const PetscReal z[], PetscReal M[], PetscReal dM[])
{
  const PetscInt   nf = fx->nf, nq = 3 + nf, nn = nq * nq;
  const PetscReal  th = z[2], *q = z + 3;
  PetscReal        u0[2] = {fx->I1[0], fx->I1[1]}, Au[2], Atu[2], mffq;
  const PetscReal *S     = fx->S;

  for (PetscInt k = 0; k < nf; k++) {
    u0[0] += S[k] * q[k];
    u0[1] += S[nf + k] * q[k];
  }
  VIMBRotate(th, u0, Au, Atu);
  for (PetscInt i = 0; i < nn; i++) M[i] = 0;
  /* m_RR = m I (Eq. 129), m_Rtheta = A_theta (I_1 + S q) (Eq. 130), m_Rf = A S (Eq. 132) */
  M[0] = M[nq + 1] = fx->m;
  VIMBFlexSym(M, nq, 0, 2, Atu[0]);
  VIMBFlexSym(M, nq, 1, 2, Atu[1]);
  /* m_thetatheta = I_2 + 2 I_3 q + q^T m_ff q (Eqs. 133-137), m_thetaf = I_4 + q^T S~ (Eq. 139), m_ff (Eq. 138) */
  M[2 * nq + 2] = fx->I2;
  for (PetscInt k = 0; k < nf; k++) {
    const PetscReal Sk[2] = {S[k], S[nf + k]};
    PetscReal       ASk[2], AtSk[2], mtf = fx->I4[k];
    VIMBRotate(th, Sk, ASk, AtSk);
    VIMBFlexSym(M, nq, 0, 3 + k, ASk[0]);
    VIMBFlexSym(M, nq, 1, 3 + k, ASk[1]);
    mffq = 0;
    for (PetscInt l = 0; l < nf; l++) {
      mffq += fx->mff[k * nf + l] * q[l];
      mtf += q[l] * fx->St[l * nf + k];
      M[(3 + k) * nq + 3 + l] = fx->mff[k * nf + l];
    }
    M[2 * nq + 2] += (2 * fx->I3[k] + mffq) * q[k];
    VIMBFlexSym(M, nq, 2, 3 + k, mtf);
  }
  if (dM) {
    /* dM/dR = 0; dM/dtheta: m_Rtheta -> -A u0, m_Rf -> A_theta S; dM/dq_j: m_Rtheta -> A_theta S_j, m_thetatheta -> 2 I_3j + 2 (m_ff q)_j,
       m_thetaf -> S~_j. */
    PetscReal *Dt = dM + 2 * nn;
    for (PetscInt i = 0; i < nq * nn; i++) dM[i] = 0;
    VIMBFlexSym(Dt, nq, 0, 2, -Au[0]);
    VIMBFlexSym(Dt, nq, 1, 2, -Au[1]);
    for (PetscInt j = 0; j < nf; j++) {
      const PetscReal Sj[2] = {S[j], S[nf + j]};
      PetscReal       ASj[2], AtSj[2], *Dq = dM + (3 + j) * nn, mffq = 0;
      VIMBRotate(th, Sj, ASj, AtSj);
      VIMBFlexSym(Dt, nq, 0, 3 + j, AtSj[0]);
      VIMBFlexSym(Dt, nq, 1, 3 + j, AtSj[1]);
      VIMBFlexSym(Dq, nq, 0, 2, AtSj[0]);
      VIMBFlexSym(Dq, nq, 1, 2, AtSj[1]);
      for (PetscInt l = 0; l < nf; l++) {
        mffq += fx->mff[j * nf + l] * q[l];
        VIMBFlexSym(Dq, nq, 2, 3 + l, fx->St[j * nf + l]);
      }
      Dq[2 * nq + 2] = 2 * fx->I3[j] + 2 * mffq;
    }
  }
}

void VIMBFlexLagrange(PetscInt nq, const PetscReal dM[], const PetscReal w[], PetscReal f[], PetscReal dfdw[], PetscReal B[], PetscReal Md[])
{
  const PetscInt nn = nq * nq;

  /* B[i][a] = (dM/dz_a w)_i, Mdot = sum_a w_a dM/dz_a; Q_v = -Mdot w + 1/2 B^T w (Lagrange's equations with M(z); seed 001
     Eqs. 146-153 are these terms written out) */
  for (PetscInt i = 0; i < nq; i++)
    for (PetscInt a = 0; a < nq; a++) {
      PetscReal b = 0, md = 0;
      for (PetscInt j = 0; j < nq; j++) {
        b += dM[a * nn + i * nq + j] * w[j];
        md += w[j] * dM[j * nn + i * nq + a];
      }
      B[i * nq + a]  = b;
      Md[i * nq + a] = md;
    }
  for (PetscInt i = 0; i < nq; i++) {
    PetscReal r = 0;
    for (PetscInt j = 0; j < nq; j++) r += -Md[i * nq + j] * w[j] + 0.5 * B[j * nq + i] * w[j];
    f[i] += r;
  }
  if (dfdw)
    for (PetscInt i = 0; i < nq; i++)
      for (PetscInt m = 0; m < nq; m++) dfdw[i * nq + m] += -B[i * nq + m] - Md[i * nq + m] + B[m * nq + i];
}

void VIMBFlexForce(const VIMBFlex *fx, const PetscReal g[2], const PetscReal z[], const PetscReal w[], PetscReal f[], PetscReal dfdz[],
                   PetscReal dfdw[], PetscReal work[])
{
  const PetscInt  nf = fx->nf, nq = 3 + nf, nn = nq * nq;
  PetscReal      *M = work, *dM = work + nn, *B = dM + nq * nn, *Md = B + nn;
  PetscReal       u0[2] = {fx->I1[0], fx->I1[1]}, Au[2], Atu[2];
  const PetscReal th = z[2], *q = z + 3, *wf = w + 3;

  VIMBFlexMass(fx, z, M, dM);
  VIMBFlexLagrange(nq, dM, w, f, dfdw, B, Md);
  /* gravity (Eqs. 167-169): Q_R = m g, Q_theta = g . A_theta (I_1 + S q), Q_f = S^T A^T g; the ROM's -K q_f - D dq_f/dt */
  for (PetscInt k = 0; k < nf; k++) {
    u0[0] += fx->S[k] * q[k];
    u0[1] += fx->S[nf + k] * q[k];
  }
  VIMBRotate(th, u0, Au, Atu);
  if (dfdz) {
    /* dQ_v,i/dz_a = -(P_a w)_i + 1/2 w^T (d2M/dz_a dz_i) w, P_a = sum_k w_k d2M/dz_a dz_k, from the few second derivatives of
       M (none in R): (theta, theta): m_Rtheta -> -A_theta u0, m_Rf -> -A S; (theta, q_j): m_Rtheta -> -A S_j; (q_i, q_j):
       m_thetatheta -> 2 m_ff,ij. Written out, with p = -(w_theta A_theta u0 + A S w_f): column theta has rows R
       -w_theta (p - A S w_f) and none in theta and q_f (the two terms cancel there); column q_k has rows R
       w_theta^2 A S_k, row theta -2 w_theta (m_ff w_f)_k, rows q_l w_theta^2 m_ff,lk. */
    const PetscReal wt     = w[2];
    PetscReal       ASw[2] = {0, 0};
    for (PetscInt k = 0; k < nf; k++) {
      const PetscReal Sk[2] = {fx->S[k], fx->S[nf + k]};
      PetscReal       ASk[2], AtSk[2];
      VIMBRotate(th, Sk, ASk, AtSk);
      ASw[0] += ASk[0] * wf[k];
      ASw[1] += ASk[1] * wf[k];
    }
    for (PetscInt r = 0; r < 2; r++) dfdz[r * nq + 2] += wt * (wt * Atu[r] + 2 * ASw[r]);
    for (PetscInt k = 0; k < nf; k++) {
      const PetscReal Sk[2] = {fx->S[k], fx->S[nf + k]};
      PetscReal       ASk[2], AtSk[2], mw = 0;
      VIMBRotate(th, Sk, ASk, AtSk);
      for (PetscInt l = 0; l < nf; l++) mw += fx->mff[k * nf + l] * wf[l];
      for (PetscInt r = 0; r < 2; r++) dfdz[r * nq + 3 + k] += wt * wt * ASk[r];
      dfdz[2 * nq + 3 + k] -= 2 * wt * mw;
      for (PetscInt l = 0; l < nf; l++) dfdz[(3 + l) * nq + 3 + k] += wt * wt * fx->mff[l * nf + k];
    }
  }
  f[0] += fx->m * g[0];
  f[1] += fx->m * g[1];
  f[2] += g[0] * Atu[0] + g[1] * Atu[1];
  if (dfdz) dfdz[2 * nq + 2] -= g[0] * Au[0] + g[1] * Au[1];
  for (PetscInt k = 0; k < nf; k++) {
    const PetscReal Sk[2] = {fx->S[k], fx->S[nf + k]};
    PetscReal       ASk[2], AtSk[2], el = 0;
    VIMBRotate(th, Sk, ASk, AtSk);
    for (PetscInt l = 0; l < nf; l++) el += fx->K[k * nf + l] * q[l] + fx->D[k * nf + l] * wf[l];
    f[3 + k] += g[0] * ASk[0] + g[1] * ASk[1] - el;
    if (dfdz) {
      dfdz[2 * nq + 3 + k] += g[0] * AtSk[0] + g[1] * AtSk[1];
      dfdz[(3 + k) * nq + 2] += g[0] * AtSk[0] + g[1] * AtSk[1];
      for (PetscInt l = 0; l < nf; l++) dfdz[(3 + k) * nq + 3 + l] -= fx->K[k * nf + l];
    }
    if (dfdw)
      for (PetscInt l = 0; l < nf; l++) dfdw[(3 + k) * nq + 3 + l] -= fx->D[k * nf + l];
  }
}

void VIMBFlexEnergy(const VIMBFlex *fx, const PetscReal g[2], const PetscReal z[], const PetscReal w[], PetscReal *T, PetscReal *V, PetscReal work[])
{
  const PetscInt nf = fx->nf, nq = 3 + nf;
  PetscReal      u0[2] = {fx->I1[0], fx->I1[1]}, Au[2], Atu[2], t = 0, v = 0;

  VIMBFlexMass(fx, z, work, NULL);
  for (PetscInt i = 0; i < nq; i++)
    for (PetscInt j = 0; j < nq; j++) t += 0.5 * w[i] * work[i * nq + j] * w[j];
  for (PetscInt k = 0; k < nf; k++) {
    u0[0] += fx->S[k] * z[3 + k];
    u0[1] += fx->S[nf + k] * z[3 + k];
    for (PetscInt l = 0; l < nf; l++) v += 0.5 * z[3 + k] * fx->K[k * nf + l] * z[3 + l];
  }
  VIMBRotate(z[2], u0, Au, Atu);
  v -= g[0] * (fx->m * z[0] + Au[0]) + g[1] * (fx->m * z[1] + Au[1]);
  *T = t;
  *V = v;
}

void VIMBFlexDisplace(const VIMBFlex *fx, const PetscReal phi[], const PetscReal qf[], PetscReal x[2])
{
  for (PetscInt k = 0; k < fx->nf; k++) {
    x[0] += phi[k] * qf[k];
    x[1] += phi[fx->nf + k] * qf[k];
  }
}
