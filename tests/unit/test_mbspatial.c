/* Spatial rigid bodies of the multibody system (src/system/mbspatial.c, docs/multibody.md "Spatial bodies"): two bodies
   with full inertia tensors on a spherical joint (ground - a) and a revolute joint (a - b, its axis along a's y) under gravity,
   a point of b against a tilted plane of the ground, at a configuration
   off the initial one (quaternions off the unit sphere too), against central differences and Lagrange's equations:
   - G against differences of g (1e-8 absolute, steps 1e-6), d(G^T lambda)/dq against differences of G^T lambda (1e-7),
     d(M(q) w)/dq against differences of M(q) w (1e-8), df/dq and df/du against differences of f (1e-6 relative);
   - f against Lagrange's equations from M(q) and the energy alone: f = -(dM/dq . u) u + dT/dq - dV/dq (1e-7 relative);
   - M SPD, and at a unit quaternion the rotational energy 2 p'^T G^T J G p' equal to w_b^T J w_b / 2 with the norm term
     zero on p^T p' = 0 (1e-14);
   - a second model with a 3-D prismatic joint between the two bodies, a fixed joint of one to the ground and a
     frictional contact of a point of b against a plane of a: G and d(G^T lambda)/dq against differences as above, the
     contact's Gt u against the relative sliding velocity by differences (1e-8);
   - the frictional contact's two tangential rows: t1, t2 orthonormal in the plane (1e-15), Gt u against the difference
     of the contact point's position along them (1e-8);
   - the initial state: the quaternion of 'axis' and 'angle', the angular velocity output equal to the given one in the
     fixed frame (1e-14), the point output at R(p) s with R orthogonal (1e-14), the point's velocity against the
     difference of its position (1e-8). */
#include "vitest.h"
#include <petscblaslapack.h>

#define N                 14
#define NC                11
#define NC2               15 /* the second model: a prismatic joint driven along its axis (6 rows), a fixed joint (6), two norm rows, a contact */
#define NC3               14 /* the third model: two drivers (6 rows each), two norm rows */
#define NCMAX             15

static const char model[] =
    "dim: 3\n"
    "gravity: [0.5, -1, -9.81]\n"
    "bodies:\n"
    "  - {name: a, mass: 2, inertia: [0.3, 0.4, 0.2, 0.02, -0.01, 0.03], position: [0, 0, -0.5],\n"
    "     angular_velocity: [0, 0, 2]}\n"
    "  - {name: b, mass: 1.5, inertia: [0.05, 0.2, 0.22], position: [-0.3, 0, -1], axis: [0, 0, 1], angle: 0}\n"
    "joints:\n"
    "  - {name: top, type: spherical, body1: ground, body2: a, point2: [0, 0, 0.5]}\n"
    "  - {name: knee, type: revolute, body1: a, point1: [0, 0, -0.5], body2: b, point2: [0.3, 0, 0], axis: [0, 2, 0]}\n"
    "outputs:\n"
    "  - {name: p, type: point, body: b, point: [0.1, -0.2, 0.3]}\n"
    "  - {name: w, type: angular_velocity, body: a}\n"
    "  - {name: e, type: orientation, body: a}\n"
    "contacts:\n"
    "  - {name: floor, body: b, point: [0.2, 0.1, -0.1], against: ground, plane_point: [0, 0, -3], plane_normal: [0.1, 0.2, 1], friction: 0.4}\n"
    "assembly_tolerance: 10\n"; /* the initial spin of a turns the knee's axis (its rate rows): not a motion to run */

/* the head of the second and third models: gravity and two bodies (a full inertia tensor, full orientations) */
#define TWO_BODIES_HEAD                                                                                                                              \
  "dim: 3\n"                                                                                                                                         \
  "gravity: [0, 0, -9.81]\n"                                                                                                                         \
  "bodies:\n"                                                                                                                                        \
  "  - {name: a, mass: 2, inertia: [0.3, 0.4, 0.2, 0.02, -0.01, 0.03], position: [0.1, 0.2, 0.3], axis: [1, 2, 3], angle: 0.5}\n"                    \
  "  - {name: b, mass: 1.5, inertia: [0.05, 0.2, 0.22], position: [0.4, -0.1, 0.6], axis: [0, 1, 1], angle: -0.3}\n"

/* the 3-D prismatic (its 2 rows normal to the axis, 3 rotation rows and, driven, its slide along the axis) between two bodies and a fixed joint (the
   spherical 3 and 3 rotation rows) of one to the ground: derivative checks only (its poses are not assembled) */
static const char model2[] = TWO_BODIES_HEAD
    "joints:\n"
    "  - {name: slide, type: prismatic, body1: a, point1: [0.1, -0.2, 0.05], body2: b, point2: [0.2, 0.1, -0.1], axis: [1, -1, 2], speed: 0.5}\n"
    "  - {name: weld, type: fixed, body1: ground, point1: [0.3, 0.1, 0.2], body2: a, point2: [0.3, 0.1, -0.2]}\n"
    "contacts:\n"
    "  - {name: tray, body: b, point: [-0.1, 0.2, 0.15], against: a, plane_point: [0.05, -0.1, 0.2], plane_normal: [0.3, -0.2, 1], friction: 0.3}\n"
    "assembly_tolerance: 10\n";

/* two spatial drivers (a revolute joint's five rows and its angle about the axis, 2 atan2 of two bilinear forms, minus
   speed t), one between the bodies and one to the ground: derivative checks only */
static const char model3[] = TWO_BODIES_HEAD
    "joints:\n"
    "  - {name: motor, type: driver, body1: a, point1: [0.1, -0.2, 0.05], body2: b, point2: [0.2, 0.1, -0.1], axis: [1, -1, 2], speed: 3}\n"
    "  - {name: spin, type: driver, body1: ground, point1: [0.3, 0.1, 0.2], body2: a, point2: [0.3, 0.1, -0.2], axis: [0, 0.6, 0.8], speed: -1}\n"
    "assembly_tolerance: 10\n";

/* central differences of the system's g, G^T lambda, M w, f(q, u), f(q, u) in u against its derivatives */
/* a state off the initial one (and off the unit sphere), a direction w and multipliers for the derivative checks */
static void PerturbedState(PetscInt n, PetscInt nc, const PetscReal q0[], PetscReal q[], PetscReal u[], PetscReal w[], PetscReal lam[])
{
  for (PetscInt i = 0; i < n; i++) {
    q[i] = q0[i] + 0.1 * (i + 1) * (i % 2 ? -1 : 1) / 3;
    u[i] = 0.3 * (i % 3) - 0.4 + 0.05 * i;
    w[i] = 0.2 - 0.07 * i;
  }
  for (PetscInt r = 0; r < nc; r++) lam[r] = 0.5 + 0.3 * r * (r % 2 ? -1 : 1);
}

static PetscErrorCode CheckDerivatives(VISystem sys, PetscInt nc, PetscReal q[], PetscReal u[], const PetscReal w[], const PetscReal lam[])
{
  const PetscReal eps = 1e-6;
  PetscReal       G[NCMAX * N], H[N * N], dMw[N * N], dfdq[N * N], dfdu[N * N], g[2][NCMAX], Gs[2][NCMAX * N], Ms[2][N * N], fs[2][N], fu[2][N];
  PetscReal       errG = 0, errH = 0, errM = 0, errQ = 0, errU = 0, scale = 0;

  PetscFunctionBeginUser;
  PetscCall(VISystemEvaluateConstraints(sys, 0, q, g[0], G, NULL));
  PetscCall(VISystemComputeConstraintCurvature(sys, 0, q, lam, H));
  PetscCall(VISystemComputeMassJacobian(sys, q, w, dMw));
  PetscCall(VISystemComputeForceJacobian(sys, 0, q, u, dfdq, dfdu));
  for (PetscInt i = 0; i < N * N; i++) scale = PetscMax(scale, PetscMax(PetscAbsReal(dfdq[i]), PetscAbsReal(dfdu[i])));
  for (PetscInt k = 0; k < N; k++) {
    for (PetscInt s = 0; s < 2; s++) {
      const PetscReal qk = q[k], uk = u[k];
      q[k] += s ? -eps : eps;
      PetscCall(VISystemEvaluateConstraints(sys, 0, q, g[s], Gs[s], NULL));
      PetscCall(VISystemComputeMass(sys, q, Ms[s]));
      PetscCall(VISystemComputeForce(sys, 0, q, u, fs[s]));
      q[k] = qk;
      u[k] += s ? -eps : eps;
      PetscCall(VISystemComputeForce(sys, 0, q, u, fu[s]));
      u[k] = uk;
    }
    for (PetscInt r = 0; r < nc; r++) errG = PetscMax(errG, PetscAbsReal((g[0][r] - g[1][r]) / (2 * eps) - G[r * N + k]));
    for (PetscInt i = 0; i < N; i++) {
      PetscReal d = 0, mw = 0;
      for (PetscInt r = 0; r < nc; r++) d += lam[r] * (Gs[0][r * N + i] - Gs[1][r * N + i]) / (2 * eps);
      for (PetscInt j = 0; j < N; j++) mw += (Ms[0][i * N + j] - Ms[1][i * N + j]) / (2 * eps) * w[j];
      errH = PetscMax(errH, PetscAbsReal(d - H[i * N + k]));
      errM = PetscMax(errM, PetscAbsReal(mw - dMw[i * N + k]));
      errQ = PetscMax(errQ, PetscAbsReal((fs[0][i] - fs[1][i]) / (2 * eps) - dfdq[i * N + k]) / scale);
      errU = PetscMax(errU, PetscAbsReal((fu[0][i] - fu[1][i]) / (2 * eps) - dfdu[i * N + k]) / scale);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "spatial bodies: |G - dg/dq| %.2e (1e-8), |H - d(G^T lambda)/dq| %.2e (1e-7), |d(M w)/dq - differences| %.2e (1e-8), df/dq "
                        "%.2e, df/du %.2e (relative, 1e-6)\n",
                        (double)errG, (double)errH, (double)errM, (double)errQ, (double)errU));
  EXPECT(errG < 1e-8 && errH < 1e-7 && errM < 1e-8 && errQ < 1e-6 && errU < 1e-6, "derivatives differ from central differences");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f against -(dM/dq . u) u + dT/dq - dV/dq, all by differences of VISystemComputeMass and VISystemComputeEnergy */
static PetscErrorCode CheckLagrange(VISystem sys, PetscReal q[], const PetscReal u[])
{
  const PetscReal eps = 1e-6;
  PetscReal       f[N], L[N] = {0}, Ms[2][N * N], T[2], V[2], fmax = 0, err = 0;

  PetscFunctionBeginUser;
  PetscCall(VISystemComputeForce(sys, 0, q, u, f));
  for (PetscInt k = 0; k < N; k++) {
    const PetscReal qk = q[k];
    for (PetscInt s = 0; s < 2; s++) {
      q[k] = qk + (s ? -eps : eps);
      PetscCall(VISystemComputeMass(sys, q, Ms[s]));
      PetscCall(VISystemComputeEnergy(sys, q, u, &T[s], &V[s]));
    }
    q[k] = qk;
    L[k] += (T[0] - T[1] - V[0] + V[1]) / (2 * eps);
    for (PetscInt i = 0; i < N; i++)
      for (PetscInt j = 0; j < N; j++) L[i] -= (Ms[0][i * N + j] - Ms[1][i * N + j]) / (2 * eps) * u[k] * u[j];
  }
  for (PetscInt i = 0; i < N; i++) {
    fmax = PetscMax(fmax, PetscAbsReal(f[i]));
    err  = PetscMax(err, PetscAbsReal(f[i] - L[i]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "spatial bodies: f against Lagrange's equations from M(q) and the energy: %.2e (relative, 1e-7)\n",
                        (double)(err / fmax)));
  EXPECT(err / fmax < 1e-7, "f is not Lagrange's equations of M(q) and V");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A second model: its rows counted, G, the curvature and the forces' tangents against differences at a perturbed state (q,
   u, w, lam hold it after) */
static PetscErrorCode CheckModel(const char file[], const char text[], PetscInt nc_expected, const char label[], VISystem *sys, PetscReal q[],
                                 PetscReal u[], PetscReal w[], PetscReal lam[])
{
  const PetscReal *q0, *u0;
  PetscInt         nc, n;

  PetscFunctionBeginUser;
  PetscCall(VITestMultibodyCreate(file, text, sys));
  PetscCall(VISystemGetContacts(*sys, &nc, NULL, NULL, NULL));
  EXPECT(nc == nc_expected, "%s: %" PetscInt_FMT " rows (expected %" PetscInt_FMT ")", label, nc, nc_expected);
  PetscCall(VISystemGetSizes(*sys, &n, NULL, NULL));
  PetscCall(VISystemGetInitialState(*sys, &q0, &u0));
  PerturbedState(n, nc, q0, q, u, w, lam);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: ", label));
  PetscCall(CheckDerivatives(*sys, nc, q, u, w, lam));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  VISystem         sys;
  PetscInt         n, nc;
  const PetscReal *q0, *u0;
  PetscReal        q[N], u[N], w[N], lam[NCMAX], M[N * N], y[13], yp[13], ym[13], T, V, err;
  PetscBool        constant;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(VITestMultibodyCreate("test_mbspatial.yaml", model, &sys));
  PetscCall(VISystemGetSizes(sys, &n, NULL, NULL));
  PetscCall(VISystemGetContacts(sys, &nc, NULL, NULL, NULL));
  PetscCall(VISystemHasConstantMass(sys, &constant));
  EXPECT(n == N && nc == NC && !constant, "sizes: %" PetscInt_FMT " coordinates, %" PetscInt_FMT " rows (expected %d and %d), mass not constant", n,
         nc, N, NC);
  /* the initial state: body a's identity quaternion spinning at w = (0, 0, 2) in the fixed frame: p' = (0, 0, 0, 1) */
  PetscCall(VISystemGetInitialState(sys, &q0, &u0));
  PetscCall(VISystemComputeOutputs(sys, 0, q0, u0, NULL, y));
  err = PetscAbsReal(u0[6] - 1) + PetscAbsReal(y[6]) + PetscAbsReal(y[7]) + PetscAbsReal(y[8] - 2) + PetscAbsReal(y[9] - 1);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "spatial bodies: the initial quaternion rate and angular velocity output against the given ones %.1e (1e-14)\n",
                        (double)err));
  EXPECT(err < 1e-14, "the initial state is wrong");
  {
    PetscReal g0[NC], gmax = 0;
    PetscCall(VISystemEvaluateConstraints(sys, 0, q0, g0, NULL, NULL));
    for (PetscInt r = 0; r < NC - 1; r++) gmax = PetscMax(gmax, PetscAbsReal(g0[r])); /* the joints and norms, not the contact */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "spatial bodies: the bilateral rows at the initial poses (the knee's axis rows included) %.1e (1e-15)\n",
                          (double)gmax));
    EXPECT(gmax < 1e-15, "the initial poses do not satisfy the joints");
  }
  PerturbedState(n, NC, q0, q, u, w, lam);
  PetscCall(CheckDerivatives(sys, NC, q, u, w, lam));
  PetscCall(CheckLagrange(sys, q, u));
  /* on the unit sphere with p^T p' = 0: T = m |v|^2 / 2 + w_b^T J w_b / 2 (w_b = 2 G p'), body b (principal J) */
  {
    const PetscReal J[3] = {0.05, 0.2, 0.22};
    PetscReal      *p = q + 10, *pd = u + 10, nrm = 0, pp = 0, wb[3], Tr, Ta, Va;
    for (PetscInt a = 0; a < 4; a++) nrm += p[a] * p[a];
    for (PetscInt a = 0; a < 4; a++) p[a] /= PetscSqrtReal(nrm);
    for (PetscInt a = 0; a < 4; a++) pp += p[a] * pd[a];
    for (PetscInt a = 0; a < 4; a++) pd[a] -= pp * p[a];
    wb[0] = 2 * (-p[1] * pd[0] + p[0] * pd[1] + p[3] * pd[2] - p[2] * pd[3]);
    wb[1] = 2 * (-p[2] * pd[0] - p[3] * pd[1] + p[0] * pd[2] + p[1] * pd[3]);
    wb[2] = 2 * (-p[3] * pd[0] + p[2] * pd[1] - p[1] * pd[2] + p[0] * pd[3]);
    Tr    = 0.5 * (J[0] * wb[0] * wb[0] + J[1] * wb[1] * wb[1] + J[2] * wb[2] * wb[2]) + 0.75 * (u[7] * u[7] + u[8] * u[8] + u[9] * u[9]);
    for (PetscInt i = 0; i < 7; i++) u[i] = 0;
    PetscCall(VISystemComputeEnergy(sys, q, u, &T, &V));
    Va = -1.5 * (0.5 * q[7] - q[8] - 9.81 * q[9]) - 2 * (0.5 * q[0] - q[1] - 9.81 * q[2]);
    Ta = T;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "spatial bodies: T %.15g against w_b^T J w_b / 2 + m |v|^2 / 2 = %.15g; V %.15g against %.15g (1e-14)\n",
                          (double)Ta, (double)Tr, (double)V, (double)Va));
    EXPECT(PetscAbsReal(Ta - Tr) < 1e-14 && PetscAbsReal(V - Va) < 1e-14, "the energy is wrong");
  }
  /* the frictional contact's two tangential rows (VISystemEvaluateTangents; off the unit sphere: body a's p is not
     normalized): their centre parts are the tangents t1, t2, unit and normal to the plane's n and to each other, and
     Gt u is the contact point's velocity along them, against the difference of its position r + R(p) s along u */
  {
    const PetscReal eps = 1e-6, s[3] = {0.2, 0.1, -0.1}, nn = PetscSqrtReal(1.05), nv[3] = {0.1 / nn, 0.2 / nn, 1 / nn};
    const PetscInt *dims;
    PetscReal       Gt[2 * N], qs[N], P[2][3], orth = 0, verr = 0;
    PetscCall(VISystemGetContacts(sys, NULL, NULL, &dims, NULL));
    PetscCall(VISystemEvaluateTangents(sys, 0, q, Gt));
    for (PetscInt a = 0; a < 2; a++) {
      const PetscReal *ta = Gt + a * N + 7, *tb = Gt + (1 - a) * N + 7;
      orth = PetscMax(orth, PetscAbsReal(ta[0] * ta[0] + ta[1] * ta[1] + ta[2] * ta[2] - 1));
      orth =
          PetscMax(orth, PetscAbsReal(ta[0] * tb[0] + ta[1] * tb[1] + ta[2] * tb[2]) + PetscAbsReal(ta[0] * nv[0] + ta[1] * nv[1] + ta[2] * nv[2]));
    }
    for (PetscInt k = 0; k < 2; k++) {
      for (PetscInt i = 0; i < N; i++) qs[i] = q[i] + (k ? -eps : eps) * u[i];
      VITestRotateQuadratic(qs + 10, s, P[k]);
      for (PetscInt i = 0; i < 3; i++) P[k][i] += qs[7 + i];
    }
    for (PetscInt a = 0; a < 2; a++) {
      PetscReal gu = 0, dp = 0;
      for (PetscInt i = 0; i < N; i++) gu += Gt[a * N + i] * u[i];
      for (PetscInt i = 0; i < 3; i++) dp += Gt[a * N + 7 + i] * (P[0][i] - P[1][i]) / (2 * eps);
      verr = PetscMax(verr, PetscAbsReal(gu - dp));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "spatial friction: the contact's rows %" PetscInt_FMT
                          " (1 + 2 tangents), the tangents' orthonormality and normality to n %.1e "
                          "(1e-15), Gt u against the difference of the contact point along them %.1e (1e-8)\n",
                          dims[NC - 1], (double)orth, (double)verr));
    EXPECT(dims[NC - 1] == 3 && orth < 1e-15 && verr < 1e-8, "the spatial contact's tangential rows are wrong");
  }
  /* M SPD: Cholesky */
  {
    PetscBLASInt nb = N, info;
    PetscCall(VISystemComputeMass(sys, q, M));
    PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("U", &nb, M, &nb, &info));
    EXPECT(info == 0, "the mass matrix is not positive definite (potrf %d)", (int)info);
  }
  /* the point output of body b: r + R s with R orthogonal, its velocity against the difference of its position along u */
  {
    const PetscReal  eps = 1e-6, s[3] = {0.1, -0.2, 0.3};
    const PetscReal *p = q + 10;
    PetscReal        R[9], ortho = 0, perr = 0, verr = 0;
    /* R from the quaternion written out (p unit here) */
    R[0] = p[0] * p[0] + p[1] * p[1] - p[2] * p[2] - p[3] * p[3];
    R[1] = 2 * (p[1] * p[2] - p[0] * p[3]);
    R[2] = 2 * (p[1] * p[3] + p[0] * p[2]);
    R[3] = 2 * (p[1] * p[2] + p[0] * p[3]);
    R[4] = p[0] * p[0] - p[1] * p[1] + p[2] * p[2] - p[3] * p[3];
    R[5] = 2 * (p[2] * p[3] - p[0] * p[1]);
    R[6] = 2 * (p[1] * p[3] - p[0] * p[2]);
    R[7] = 2 * (p[2] * p[3] + p[0] * p[1]);
    R[8] = p[0] * p[0] - p[1] * p[1] - p[2] * p[2] + p[3] * p[3];
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) ortho = PetscMax(ortho, PetscAbsReal(R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j] - (i == j)));
    for (PetscInt i = 0; i < n; i++) u[i] = 0.3 * (i % 3) - 0.4 + 0.05 * i;
    PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, y));
    for (PetscInt i = 0; i < 3; i++)
      perr = PetscMax(perr, PetscAbsReal(y[i] - q[7 + i] - R[i * 3] * s[0] - R[i * 3 + 1] * s[1] - R[i * 3 + 2] * s[2]));
    for (PetscInt i = 0; i < n; i++) q[i] += eps * u[i];
    PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, yp));
    for (PetscInt i = 0; i < n; i++) q[i] -= 2 * eps * u[i];
    PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, ym));
    for (PetscInt i = 0; i < 3; i++) verr = PetscMax(verr, PetscAbsReal(y[3 + i] - (yp[i] - ym[i]) / (2 * eps)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "spatial bodies: R^T R - I %.1e, the point against r + R s %.1e (1e-14), its velocity against the difference %.1e (1e-8)\n",
                          (double)ortho, (double)perr, (double)verr));
    EXPECT(ortho < 1e-14 && perr < 1e-14 && verr < 1e-8, "the point output is wrong");
  }
  PetscCall(VISystemDestroy(&sys));
  /* the prismatic and fixed joints: G and the curvature against differences, off the unit sphere */
  PetscCall(CheckModel("test_mbspatial2.yaml", model2, NC2, "prismatic and fixed joints, a contact on a moving body's plane", &sys, q, u, w, lam));
  /* the contact's tangential rows on body a's plane: Gt u against the velocity of b's point relative to a's material point
     under it (x = R(p_a)^T (P - r_a) / |p_a|^4 held in a's frame), by differences, along t_k = R(p_a) t_k (a's frame) */
  {
    const PetscReal eps = 1e-6, s[3] = {-0.1, 0.2, 0.15};
    PetscReal       Gt[2 * N], qs[N], P[3], Ra[3], x[3], R[9], nn = 0, rel[2][3], ta[3], err = 0;
    PetscCall(VISystemEvaluateTangents(sys, 0, q, Gt));
    VITestRotateQuadratic(q + 10, s, P);
    for (PetscInt a = 0; a < 4; a++) nn += q[3 + a] * q[3 + a];
    for (PetscInt c = 0; c < 3; c++) { /* R(p_a) columns: R e_c */
      const PetscReal e[3] = {c == 0, c == 1, c == 2};
      VITestRotateQuadratic(q + 3, e, Ra);
      for (PetscInt i = 0; i < 3; i++) R[i * 3 + c] = Ra[i];
    }
    for (PetscInt i = 0; i < 3; i++) P[i] += q[7 + i] - q[i];
    for (PetscInt i = 0; i < 3; i++) x[i] = (R[i] * P[0] + R[3 + i] * P[1] + R[6 + i] * P[2]) / (nn * nn);
    for (PetscInt k = 0; k < 2; k++) {
      PetscReal Pb[3], Pa[3];
      for (PetscInt i = 0; i < N; i++) qs[i] = q[i] + (k ? -eps : eps) * u[i];
      VITestRotateQuadratic(qs + 10, s, Pb);
      VITestRotateQuadratic(qs + 3, x, Pa);
      for (PetscInt i = 0; i < 3; i++) rel[k][i] = qs[7 + i] + Pb[i] - qs[i] - Pa[i];
    }
    for (PetscInt a = 0; a < 2; a++) {
      PetscReal gu = 0, dp = 0;
      for (PetscInt i = 0; i < 3; i++) ta[i] = Gt[a * N + 7 + i]; /* the tangent in the fixed frame: its part on b's centre */
      for (PetscInt i = 0; i < N; i++) gu += Gt[a * N + i] * u[i];
      for (PetscInt i = 0; i < 3; i++) dp += ta[i] * (rel[0][i] - rel[1][i]) / (2 * eps);
      err = PetscMax(err, PetscAbsReal(gu - dp));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "a contact on a moving body's plane: Gt u against the relative sliding velocity by differences %.1e (1e-8)\n",
                          (double)err));
    EXPECT(err < 1e-8, "the tangential rows on a moving body's plane are wrong");
  }
  PetscCall(VISystemDestroy(&sys));
  /* the spatial drivers: G and the curvature of the angle rows against differences, off the unit sphere */
  PetscCall(CheckModel("test_mbspatial3.yaml", model3, NC3, "spatial drivers", &sys, q, u, w, lam));
  PetscCall(VISystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
