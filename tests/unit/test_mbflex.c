/* A flexible body of the multibody system (src/system/mbflex.c, docs/multibody.md "Flexible bodies") against central
   differences and Lagrange's equations, on a ROM written here with random floating-frame invariants of the right
   symmetries (3 modes, K and D diagonal, nodes 'tip' and 'mid' with output rows): a rigid body pinned to the ground, the
   flexible body pinned to it at its frame's origin, its node pinned to the ground (rows at a node of body1) and against a
   line of the ground with friction (a node of the contact's body), a point of the rigid body against the flexible body's
   line through two points (a node and two weighted nodes, mbpoint.c) with friction and against its chain of three nodes'
   points (two segments, mbchain.c) with friction, springs from the rigid body to a
   point of the flexible body's frame, from two weighted nodes to the rigid body and a damped one from the ground to the
   tip node (mbspring.c), at a configuration off the initial one with elastic coordinates and velocities:
   - G against differences of g (1e-8 absolute, steps 1e-6), d(G^T lambda)/dq against differences of G^T lambda (1e-7);
   - d(M(q) w)/dq (VISystemComputeMassJacobian) against differences of M(q) w (1e-8);
   - df/dq and df/du (VISystemComputeForceJacobian) against differences of f (1e-6 relative to the largest entry);
   - f against Lagrange's equations written from M(q) and the energy alone: f = -(dM/dt) u + dT/dq - dV/dq - D u_f, with
     dM/dt = dM/dq . u, dT/dq and dV/dq by differences of VISystemComputeMass and VISystemComputeEnergy, the damped
     spring's -c (b . u) b with b the gradient of its length by differences of the tip's output (1e-7 relative);
   - the node's point output: its velocity columns against the difference of its position along u (1e-8), and the
     frictional contact's G_t u against the tangent times that velocity (1e-8); the two-point line's gap and G_t u
     against sigma n . (P - A) and tau . (v_P - (1 - xi) v_A - xi v_B) from the points' outputs (1e-8);
   - the chain's gap against the nearest segment's n . (P - A) from the chain points' and P's outputs, with body a moved so
     that P passes along the chain and the nearest segment changes (1e-13);
   - a point at two nodes' mean displacement (node: [tip, mid]) against its formula (1e-14);
   - a distributing coupling, weights: [3, 1] (relative: 3/4 and 1/4), on a second model (the flexible body alone, three
     frictionless contacts at one point on the nodes tip, mid and [tip, mid] with those weights, and a point output): the
     point's position against R + A (x + (3/4 Phi_tip + 1/4 Phi_mid) q_f) (1e-14); the spread contact's gap and its row of
     G (its generalized force per unit normal force) against 3/4 and 1/4 of the two nodes' (1e-14) and its elastic
     columns against n . A (3/4 Phi_tip + 1/4 Phi_mid) (1e-14); G_w u against the gap's difference along u (1e-8). */
#include "vitest.h"
#include <vicms/rom.h>

#define NM                3
#define N                 (3 + 3 + NM)

static const char model[] = "gravity: [0.7, -9.81]\n"
                            "bodies:\n"
                            "  - {name: a, mass: 2, inertia: 0.3, position: [0.5, 0], angle: 0}\n"
                            "  - {name: f, type: flexible, rom: test_mbflex_rom.h5, position: [1, 0], angle: 0.2}\n"
                            "joints:\n"
                            "  - {name: pin, type: revolute, body1: ground, point1: [0, 0], body2: a, point2: [-0.5, 0]}\n"
                            "  - {name: crank, type: revolute, body1: a, point1: [0.5, 0], body2: f, point2: [0, 0]}\n"
                            "  - {name: tip, type: revolute, body1: f, point1: [1.2, 0.1], node1: tip, body2: ground, point2: [2, 0.3]}\n"
                            "contacts:\n"
                            "  - {name: wall, body: f, point: [1.2, 0.1], node: tip, against: ground, line_point: [0, -1], line_normal: [0.6, 0.8],\n"
                            "     friction: 0.2}\n"
                            "  - {name: ledge, body: a, point: [0.3, -0.2], against: f, line_point: [0.2, 0.1], line_node: tip,\n"
                            "     line_point2: [1.1, -0.1], line_node2: [tip, mid], line_weights2: [1, 3], line_normal: [0.1, -1], friction: 0.3}\n"
                            "  - {name: rail, body: a, point: [-0.1, 0.25], against: f, chain: [[0.1, 0.3], [0.6, 0.2], [1.3, 0.35]],\n"
                            "     chain_nodes: [mid, tip, mid], friction: 0.4}\n"
                            "springs:\n"
                            "  - {name: s, body1: a, point1: [0.2, 0.1], body2: f, point2: [0.8, -0.2], stiffness: 30}\n"
                            "  - {name: sn, body1: f, point1: [0.9, 0.2], node1: [mid, tip], weights1: [2, 1], body2: a, point2: [-0.1, 0.3],\n"
                            "     stiffness: 20, length: 0.4}\n"
                            "  - {name: sg, body1: ground, point1: [2.5, 1], body2: f, point2: [1.2, 0.1], node2: tip, stiffness: 50,\n"
                            "     damping: 1.1}\n"
                            "outputs:\n"
                            "  - {name: p, type: point, body: f, point: [1.2, 0.1], node: tip}\n"
                            "  - {name: pm, type: point, body: f, point: [0.4, -0.3], node: [tip, mid]}\n"
                            "  - {name: la, type: point, body: f, point: [0.2, 0.1], node: tip}\n"
                            "  - {name: lb, type: point, body: f, point: [1.1, -0.1], node: [tip, mid], weights: [1, 3]}\n"
                            "  - {name: pa, type: point, body: a, point: [0.3, -0.2]}\n"
                            "  - {name: fsg, type: spring_force, spring: sg}\n"
                            "  - {name: c0, type: point, body: f, point: [0.1, 0.3], node: mid}\n"
                            "  - {name: c1, type: point, body: f, point: [0.6, 0.2], node: tip}\n"
                            "  - {name: c2, type: point, body: f, point: [1.3, 0.35], node: mid}\n"
                            "  - {name: pr, type: point, body: a, point: [-0.1, 0.25]}\n"
                            "assembly_tolerance: 10\n";

static const char weighted[] = "gravity: [0, 0]\n"
                               "bodies:\n"
                               "  - {name: f, type: flexible, rom: test_mbflex_rom.h5, position: [1, 0], angle: 0.2}\n"
                               "contacts:\n"
                               "  - {name: t, body: f, point: [1.2, 0.1], node: tip, against: ground, line_point: [0, -1], line_normal: [0.6, 0.8]}\n"
                               "  - {name: m, body: f, point: [1.2, 0.1], node: mid, against: ground, line_point: [0, -1], line_normal: [0.6, 0.8]}\n"
                               "  - {name: w, body: f, point: [1.2, 0.1], node: [tip, mid], weights: [3, 1], against: ground, line_point: [0, -1],\n"
                               "     line_normal: [0.6, 0.8]}\n"
                               "outputs:\n"
                               "  - {name: p, type: point, body: f, point: [1.2, 0.1], node: [tip, mid], weights: [1.5, 0.5]}\n";

static PetscErrorCode WriteROM(MPI_Comm comm)
{
  VIROM       rom;
  VIROMFrame  fr;
  PetscReal  *K, *M, *D, A[2 * NM * 2 * NM], tip[2][NM], mm[NM * 2], pm[4 * NM], mmm[4 * NM * NM];
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(VIROMCreate(comm, &rom));
  PetscCall(VIROMSetSizes(rom, VI_CMS_CB, 0, NM));
  PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 11));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt k = 0; k < NM; k++) {
    K[k * NM + k] = 100 * (k + 1);
    D[k * NM + k] = 0.3 * (k + 1);
    M[k * NM + k] = 1;
  }
  PetscCall(PetscMemzero(&fr, sizeof(fr)));
  fr.dim              = 2;
  fr.n                = NM;
  fr.mass             = 1.5;
  fr.first_moment[0]  = 0.8;
  fr.first_moment[1]  = 0.05;
  fr.second_moment[0] = 0.6;
  fr.second_moment[1] = fr.second_moment[2] = 0.02;
  fr.second_moment[3]                       = 0.01;
  fr.mode_moment                            = mm;
  fr.position_mode                          = pm;
  fr.mode_mode                              = mmm;
  for (PetscInt a = 0; a < 2 * NM; a++) PetscCall(PetscRandomGetValueReal(rnd, &mm[a]));
  for (PetscInt a = 0; a < 4 * NM; a++) PetscCall(PetscRandomGetValueReal(rnd, &pm[a]));
  /* int rho Phi_k^i Phi_l^j = A[k 2 + i][l 2 + j], A symmetric positive (a Gram matrix: 2 NM I + R R^T) */
  for (PetscInt a = 0; a < 2 * NM; a++)
    for (PetscInt b = 0; b < 2 * NM; b++) PetscCall(PetscRandomGetValueReal(rnd, &A[a * 2 * NM + b]));
  {
    PetscReal S[2 * NM * 2 * NM];
    for (PetscInt a = 0; a < 2 * NM; a++)
      for (PetscInt b = 0; b < 2 * NM; b++) {
        S[a * 2 * NM + b] = a == b ? 2 * NM : 0;
        for (PetscInt c = 0; c < 2 * NM; c++) S[a * 2 * NM + b] += 0.1 * A[a * 2 * NM + c] * A[b * 2 * NM + c];
      }
    for (PetscInt i = 0; i < 2; i++)
      for (PetscInt j = 0; j < 2; j++)
        for (PetscInt k = 0; k < NM; k++)
          for (PetscInt l = 0; l < NM; l++) mmm[((i * 2 + j) * NM + k) * NM + l] = 0.01 * S[(k * 2 + i) * 2 * NM + l * 2 + j];
  }
  for (PetscInt k = 0; k < NM; k++) { /* the node 'tip' */
    tip[0][k] = 0.3 + 0.1 * k;
    tip[1][k] = 0.15 * k - 0.2;
  }
  PetscCall(VIROMAddOutput(rom, "tip_x", tip[0]));
  PetscCall(VIROMAddOutput(rom, "tip_y", tip[1]));
  for (PetscInt k = 0; k < NM; k++) {
    tip[0][k] = 0.5 - 0.2 * k; /* the node 'mid': rows of its own */
    tip[1][k] = 0.1 * k * k - 0.3;
  }
  PetscCall(VIROMAddOutput(rom, "mid_x", tip[0]));
  PetscCall(VIROMAddOutput(rom, "mid_y", tip[1]));
  PetscCall(VIROMSetFrame(rom, &fr));
  PetscCall(VIROMSetUnits(rom, "SI"));
  PetscCall(VIROMWrite(rom, "test_mbflex_rom.h5"));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VIROMDestroy(&rom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |a - b|max over len */
static PetscReal Diff(PetscInt len, const PetscReal a[], const PetscReal b[])
{
  PetscReal e = 0;
  for (PetscInt i = 0; i < len; i++) e = PetscMax(e, PetscAbsReal(a[i] - b[i]));
  return e;
}

int main(int argc, char **argv)
{
  VISystem         sys;
  PetscInt         n, nc;
  const PetscReal *q0;
  PetscReal        q[N], u[N], w[N], lam[16], g[16], gp[16], gm[16], G[16 * N], M[N * N], f[N], y[48], yp[48], ym[48], err[6] = {0};
  PetscReal        errG, errH, errM, errQ, errU, errL, errV, errT, eps = 1e-6;
  PetscBool        constant;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(WriteROM(PETSC_COMM_WORLD));
  PetscCall(VITestMultibodyCreate("test_mbflex.yaml", model, &sys));
  PetscCall(VISystemGetSizes(sys, &n, NULL, NULL));
  PetscCall(VISystemGetContacts(sys, &nc, NULL, NULL, NULL));
  PetscCall(VISystemHasConstantMass(sys, &constant));
  EXPECT(n == N && nc == 9 && !constant, "sizes: %" PetscInt_FMT " coordinates, %" PetscInt_FMT " rows (expected %d and 9), mass not constant", n, nc,
         N);
  PetscCall(VISystemGetInitialState(sys, &q0, NULL));
  for (PetscInt i = 0; i < n; i++) {
    q[i] = q0[i] + 0.1 * (i + 1) * (i % 2 ? -1 : 1);
    u[i] = 0.3 * (i % 3) - 0.4 + 0.05 * i;
    w[i] = 0.2 - 0.07 * i;
  }
  for (PetscInt r = 0; r < nc; r++) lam[r] = 0.5 + 0.3 * r * (r % 2 ? -1 : 1);
  /* constraints */
  PetscCall(VISystemComputeMass(sys, q, M));
  PetscCall(VISystemComputeForce(sys, 0, q, u, f));
  PetscCall(VITestMultibodyDerivatives(sys, q, u, w, lam, eps, err));
  errG = err[0], errH = err[1], errM = err[2], errQ = err[3], errU = err[4];
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "flexible body: |G - dg/dq| %.2e (1e-8), |H - d(G^T lambda)/dq| %.2e (1e-7), |d(M w)/dq - differences| %.2e (1e-8), df/dq "
                        "%.2e, df/du %.2e (relative, 1e-6)\n",
                        (double)errG, (double)errH, (double)errM, (double)errQ, (double)errU));
  EXPECT(errG < 1e-8 && errH < 1e-7 && errM < 1e-8 && errQ < 1e-6 && errU < 1e-6, "derivatives differ from central differences");
  /* Lagrange's equations from M(q) and the energy alone: f = -(dM/dq . u) u + dT/dq - dV/dq - D u_f */
  {
    PetscReal       L[N], T, V, fmax = 0, bl[N], ldot = 0;
    const PetscReal D[NM] = {0.3, 0.6, 0.9};
    PetscCall(VITestMultibodyLagrange(sys, q, u, eps, L));
    for (PetscInt k = 0; k < n; k++) {
      const PetscReal qk = q[k];
      PetscReal       lp, lm;
      q[k] = qk + eps;
      PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, yp));
      q[k] = qk - eps;
      PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, ym));
      q[k] = qk;
      /* the spring sg's length from the tip's point output p: its gradient b, for its damper's force -c (b . u) b */
      lp    = PetscSqrtReal(PetscSqr(yp[0] - 2.5) + PetscSqr(yp[1] - 1));
      lm    = PetscSqrtReal(PetscSqr(ym[0] - 2.5) + PetscSqr(ym[1] - 1));
      bl[k] = (lp - lm) / (2 * eps);
      ldot += bl[k] * u[k];
    }
    for (PetscInt k = 0; k < NM; k++) L[6 + k] -= D[k] * u[6 + k];
    for (PetscInt k = 0; k < n; k++) L[k] -= 1.1 * ldot * bl[k];
    for (PetscInt i = 0; i < n; i++) fmax = PetscMax(fmax, PetscAbsReal(f[i]));
    errL = Diff(n, f, L) / fmax;
    PetscCall(VISystemComputeEnergy(sys, q, u, &T, &V));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = 0; j < n; j++) T -= 0.5 * u[i] * M[i * n + j] * u[j];
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "flexible body: f against Lagrange's equations from M(q) and the energy: %.2e (relative, 1e-7); T - u^T M u / 2 = %.1e\n",
                          (double)errL, (double)T));
    EXPECT(errL < 1e-7 && PetscAbsReal(T) < 1e-13, "f is not Lagrange's equations of M(q) and V");
  }
  /* the node's point output and the frictional contact's tangential row */
  {
    PetscReal vd[2], Gt[2 * N], wt = 0, t[2], wl = 0, xl;
    for (PetscInt i = 0; i < n; i++) q[i] += eps * u[i];
    PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, yp));
    for (PetscInt i = 0; i < n; i++) q[i] -= 2 * eps * u[i];
    PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, ym));
    for (PetscInt i = 0; i < n; i++) q[i] += eps * u[i];
    PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, y));
    vd[0] = (yp[0] - ym[0]) / (2 * eps);
    vd[1] = (yp[1] - ym[1]) / (2 * eps);
    errV  = PetscMax(PetscAbsReal(y[2] - vd[0]), PetscAbsReal(y[3] - vd[1]));
    PetscCall(VISystemEvaluateTangents(sys, 0, q, Gt));
    for (PetscInt i = 0; i < n; i++) wt += Gt[i] * u[i];
    t[0] = -0.8; /* the ground's line: its tangent J n */
    t[1] = 0.6;
    errT = PetscAbsReal(wt - (t[0] * vd[0] + t[1] * vd[1]));
    /* the ledge, a point P of a against the line through the nodes' points A (la) and B (lb) of f: its gap
       sigma n . (P - A), n = J (B - A) / L, sigma = -1 (line_normal on the right of A to B), from the points' outputs,
       and its tangential row against tau . (v_P - (1 - xi) v_A - xi v_B), tau = J (sigma n), xi = t . (P - A) / L */
    {
      const PetscReal *A = y + 8, *B = y + 12, *P = y + 16;
      const PetscReal  uu[2] = {B[0] - A[0], B[1] - A[1]}, Ll = PetscSqrtReal(uu[0] * uu[0] + uu[1] * uu[1]);
      const PetscReal  tau[2] = {uu[0] / Ll, uu[1] / Ll}; /* J (-J t) = t */
      PetscReal        gl;
      PetscCall(VISystemEvaluateConstraints(sys, 0, q, g, NULL, NULL));
      gl   = -(-uu[1] * (P[0] - A[0]) + uu[0] * (P[1] - A[1])) / Ll;
      xl   = (uu[0] * (P[0] - A[0]) + uu[1] * (P[1] - A[1])) / (Ll * Ll);
      for (PetscInt i = 0; i < n; i++) wl += Gt[n + i] * u[i];
      errT = PetscMax(errT, PetscAbsReal(wl - (tau[0] * (P[2] - (1 - xl) * A[2] - xl * B[2]) + tau[1] * (P[3] - (1 - xl) * A[3] - xl * B[3]))));
      errT = PetscMax(errT, PetscAbsReal(g[7] - gl));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "flexible body: the node's velocity against the difference of its position %.2e (1e-8), G_t u and the two-point line's gap "
                          "against the points' outputs %.2e (1e-8)\n",
                          (double)errV,
                          (double)errT));
    EXPECT(errV < 1e-8 && errT < 1e-8, "the node's point velocity or the tangential row is wrong");
  }
  /* the chain (rail): its gap against the nearest segment's n . (P - A), n = J (B - A) / L, from the points' outputs, with
     body a moved so that its point P passes 0.05 off the chord from the chain's first point to its last, from before the
     first to beyond the last (the nearest segment changes) */
  {
    PetscReal errC    = 0, qs[N], P0[2], C0[2], C2[2];
    PetscInt  seen[2] = {0, 0};
    PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, y));
    for (PetscInt d = 0; d < 2; d++) P0[d] = y[33 + d], C0[d] = y[21 + d], C2[d] = y[29 + d];
    for (PetscInt k = -1; k <= 11; k++) {
      const PetscReal *P = y + 33, lam = 0.1 * k, ch[2] = {C2[0] - C0[0], C2[1] - C0[1]}, lc = PetscSqrtReal(ch[0] * ch[0] + ch[1] * ch[1]);
      PetscReal        best = PETSC_MAX_REAL, gc = 0;
      PetscInt         sg = -1;
      for (PetscInt i = 0; i < n; i++) qs[i] = q[i];
      qs[0] += C0[0] + lam * ch[0] - 0.05 * ch[1] / lc - P0[0];
      qs[1] += C0[1] + lam * ch[1] + 0.05 * ch[0] / lc - P0[1];
      PetscCall(VISystemComputeOutputs(sys, 0, qs, u, NULL, y));
      PetscCall(VISystemEvaluateConstraints(sys, 0, qs, g, NULL, NULL));
      for (PetscInt i = 0; i < 2; i++) {
        const PetscReal *A = y + 21 + 4 * i, *B = y + 25 + 4 * i, uu[2] = {B[0] - A[0], B[1] - A[1]}, v[2] = {P[0] - A[0], P[1] - A[1]};
        const PetscReal  L2 = uu[0] * uu[0] + uu[1] * uu[1], xi = PetscMin(PetscMax((uu[0] * v[0] + uu[1] * v[1]) / L2, 0), 1);
        const PetscReal  d2 = PetscSqr(v[0] - xi * uu[0]) + PetscSqr(v[1] - xi * uu[1]);
        if (d2 < best) {
          best = d2;
          sg   = i;
          gc   = (-uu[1] * v[0] + uu[0] * v[1]) / PetscSqrtReal(L2);
        }
      }
      seen[sg]++;
      errC = PetscMax(errC, PetscAbsReal(g[8] - gc));
    }
    PetscCall(
        PetscPrintf(PETSC_COMM_WORLD,
                    "flexible body: the chain's gap against the nearest segment's n . (P - A) from the points' outputs, body a moved along the chain "
                    "(segments 1 and 2 nearest at %" PetscInt_FMT " and %" PetscInt_FMT " of 13 places): %.2e (1e-13)\n",
                    seen[0], seen[1], (double)errC));
    EXPECT(errC < 1e-13 && seen[0] > 0 && seen[1] > 0, "the chain's gap is not the nearest segment's");
    PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, y));
  }
  /* a point at two nodes' mean displacement (node: [tip, mid]): R + A (x + (Phi_tip + Phi_mid) q_f / 2) */
  {
    const PetscReal c = PetscCosReal(q[5]), s = PetscSinReal(q[5]);
    PetscReal       e[2] = {0.4, -0.3}, px, py;
    for (PetscInt k = 0; k < NM; k++) {
      e[0] += 0.5 * (0.3 + 0.1 * k + 0.5 - 0.2 * k) * q[6 + k];
      e[1] += 0.5 * (0.15 * k - 0.2 + 0.1 * k * k - 0.3) * q[6 + k];
    }
    px = q[3] + c * e[0] - s * e[1];
    py = q[4] + s * e[0] + c * e[1];
    PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, y));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "flexible body: a point at the mean of two nodes: (%.15g, %.15g), expected (%.15g, %.15g) (1e-14)\n",
                          (double)y[4], (double)y[5], (double)px, (double)py));
    EXPECT(PetscAbsReal(y[4] - px) < 1e-14 && PetscAbsReal(y[5] - py) < 1e-14, "the point at two nodes' mean displacement is wrong");
  }
  PetscCall(VISystemDestroy(&sys));
  /* a distributing coupling: weights 3/4, 1/4 on the nodes tip and mid */
  PetscCall(VITestMultibodyCreate("test_mbflex_weights.yaml", weighted, &sys));
  PetscCall(VISystemGetSizes(sys, &n, NULL, NULL));
  PetscCall(VISystemGetContacts(sys, &nc, NULL, NULL, NULL));
  EXPECT(n == 3 + NM && nc == 3, "the weights' model: %" PetscInt_FMT " coordinates, %" PetscInt_FMT " rows (expected %d and 3)", n, nc, 3 + NM);
  PetscCall(VISystemGetInitialState(sys, &q0, NULL));
  for (PetscInt i = 0; i < n; i++) q[i] = q0[i] + 0.1 * (i + 1) * (i % 2 ? -1 : 1);
  {
    const PetscReal c = PetscCosReal(q[2]), s = PetscSinReal(q[2]), nrm[2] = {0.6, 0.8};
    PetscReal       e[2] = {1.2, 0.1}, px, py, errW = 0, errC = 0, errD = 0;
    for (PetscInt k = 0; k < NM; k++) {
      const PetscReal phx = 0.75 * (0.3 + 0.1 * k) + 0.25 * (0.5 - 0.2 * k), phy = 0.75 * (0.15 * k - 0.2) + 0.25 * (0.1 * k * k - 0.3);
      e[0] += phx * q[3 + k];
      e[1] += phy * q[3 + k];
    }
    px = q[0] + c * e[0] - s * e[1];
    py = q[1] + s * e[0] + c * e[1];
    PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, y));
    PetscCall(VISystemEvaluateConstraints(sys, 0, q, g, G, NULL));
    errW = PetscMax(PetscAbsReal(g[2] - 0.75 * g[0] - 0.25 * g[1]), PetscAbsReal(y[0] - px));
    errW = PetscMax(errW, PetscAbsReal(y[1] - py));
    for (PetscInt i = 0; i < n; i++) errW = PetscMax(errW, PetscAbsReal(G[2 * n + i] - 0.75 * G[i] - 0.25 * G[n + i]));
    for (PetscInt k = 0; k < NM; k++) {
      const PetscReal phx = 0.75 * (0.3 + 0.1 * k) + 0.25 * (0.5 - 0.2 * k), phy = 0.75 * (0.15 * k - 0.2) + 0.25 * (0.1 * k * k - 0.3);
      errC = PetscMax(errC, PetscAbsReal(G[2 * n + 3 + k] - (nrm[0] * (c * phx - s * phy) + nrm[1] * (s * phx + c * phy))));
    }
    { /* along u: G_w u against the difference of g_w */
      PetscReal qp[N], qm[N], Gu = 0;
      for (PetscInt i = 0; i < n; i++) {
        qp[i] = q[i] + eps * u[i];
        qm[i] = q[i] - eps * u[i];
        Gu += G[2 * n + i] * u[i];
      }
      PetscCall(VISystemEvaluateConstraints(sys, 0, qp, gp, NULL, NULL));
      PetscCall(VISystemEvaluateConstraints(sys, 0, qm, gm, NULL, NULL));
      errD = PetscAbsReal((gp[2] - gm[2]) / (2 * eps) - Gu);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "flexible body, weights [3, 1]: the point, the gap and its row against 3/4 and 1/4 of the nodes' %.1e (1e-14), the row's "
                          "elastic columns against n . A Phi_P %.1e (1e-14), G_w u against the gap's difference along u %.1e (1e-8)\n",
                          (double)errW, (double)errC, (double)errD));
    EXPECT(errW < 1e-14 && errC < 1e-14 && errD < 1e-8, "the weighted spread point (a distributing coupling) is wrong");
  }
  PetscCall(VISystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
