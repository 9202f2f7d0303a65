/* Spring-dampers of the multibody system (src/system/mbspring.c, docs/multibody.md "Springs"): a planar model (two rigid
   bodies under gravity, a spring from the ground to one and one between their off-centre points) and a spatial one (two
   bodies with full inertia tensors, the same two springs in 3-D), at a configuration off the initial one (the spatial
   quaternions off the unit sphere too), with damping and a velocity:
   - df/dq and df/du against central differences of f (1e-6 relative to the largest entry, steps 1e-6);
   - at u = 0 (no damping force, no quadratic velocity vector) f = -dV/dq by central differences of the energy (1e-7
     relative): the springs' force and potential agree;
   - the potential minus gravity's against sum k (l - L0)^2 / 2 with the points written out here (R(theta) s, the
     quaternion's rotation matrix), the default free length the initial distance (1e-13);
   - the spring_force outputs against k (l - L0) + c dl/dt, dl/dt by central differences of l along u (1e-7 relative). */
#include "vitest.h"

#define NMAX 14

static const char planar[] =
    "gravity: [0.3, -9.81]\n"
    "bodies:\n"
    "  - {name: a, mass: 2, inertia: 0.05, position: [0.4, -0.3], angle: 0.3}\n"
    "  - {name: b, mass: 1.2, inertia: 0.02, position: [0.9, -0.5], angle: -0.7}\n"
    "springs:\n"
    "  - {name: s1, body1: ground, point1: [0.1, 0.3], body2: a, point2: [0.2, -0.1], stiffness: 40, damping: 1.5, length: 0.7}\n"
    "  - {name: s2, body1: a, point1: [-0.15, 0.05], body2: b, point2: [0.1, 0.2], stiffness: 25, damping: 0.8}\n"
    "outputs:\n"
    "  - {name: N1, type: spring_force, spring: s1}\n"
    "  - {name: N2, type: spring_force, spring: s2}\n";

static const char spatial[] =
    "dim: 3\n"
    "gravity: [0.5, -1, -9.81]\n"
    "bodies:\n"
    "  - {name: a, mass: 2, inertia: [0.3, 0.4, 0.2, 0.02, -0.01, 0.03], position: [0.1, 0.2, -0.5], axis: [1, 2, 3], angle: 0.5}\n"
    "  - {name: b, mass: 1.5, inertia: [0.05, 0.2, 0.22], position: [-0.3, 0.1, -1], axis: [0, 1, 1], angle: -0.3}\n"
    "springs:\n"
    "  - {name: s1, body1: ground, point1: [0.1, 0.3, 0.2], body2: a, point2: [0.2, -0.1, 0.15], stiffness: 40, damping: 1.5, length: 0.7}\n"
    "  - {name: s2, body1: a, point1: [-0.15, 0.05, 0.1], body2: b, point2: [0.1, 0.2, -0.05], stiffness: 25, damping: 0.8}\n"
    "outputs:\n"
    "  - {name: N1, type: spring_force, spring: s1}\n"
    "  - {name: N2, type: spring_force, spring: s2}\n";

/* the spring's data as the model texts give them (s2's free length: the initial distance) */
static const PetscReal k_s[2] = {40, 25}, c_s[2] = {1.5, 0.8},
                       pt[2][2][3] = {{{0.1, 0.3, 0.2}, {0.2, -0.1, 0.15}}, {{-0.15, 0.05, 0.1}, {0.1, 0.2, -0.05}}};
static const PetscInt body_s[2][2] = {{0, 1}, {1, 2}};

/* a body's point in the fixed frame: r + R(theta) s, or r + R(p) s with R the quaternion's quadratic form written out
   (VITestRotateQuadratic) */
static void Point(PetscInt dim, PetscInt b, const PetscReal s[], const PetscReal q[], PetscReal P[3])
{
  const PetscInt o = (b - 1) * (dim == 3 ? 7 : 3);
  if (!b) {
    for (PetscInt i = 0; i < 3; i++) P[i] = dim == 3 || i < 2 ? s[i] : 0;
    return;
  }
  if (dim == 2) {
    P[0] = q[o] + PetscCosReal(q[o + 2]) * s[0] - PetscSinReal(q[o + 2]) * s[1];
    P[1] = q[o + 1] + PetscSinReal(q[o + 2]) * s[0] + PetscCosReal(q[o + 2]) * s[1];
    P[2] = 0;
    return;
  }
  VITestRotateQuadratic(q + o + 3, s, P);
  for (PetscInt i = 0; i < 3; i++) P[i] += q[o + i];
}

static PetscReal Length(PetscInt dim, PetscInt k, const PetscReal q[])
{
  PetscReal P[2][3];
  for (PetscInt s = 0; s < 2; s++) Point(dim, body_s[k][s], pt[k][s], q, P[s]);
  return PetscSqrtReal(PetscSqr(P[1][0] - P[0][0]) + PetscSqr(P[1][1] - P[0][1]) + PetscSqr(P[1][2] - P[0][2]));
}

static PetscErrorCode Check(const char file[], const char text[], PetscInt dim)
{
  const PetscReal  eps = 1e-6, mass[2] = {2, dim == 3 ? 1.5 : 1.2}, g[3] = {dim == 3 ? 0.5 : 0.3, dim == 3 ? -1 : -9.81, dim == 3 ? -9.81 : 0};
  VISystem         sys;
  PetscInt         n;
  const PetscReal *q0, *u0;
  PetscReal        q[NMAX], u[NMAX], z[NMAX] = {0}, f[NMAX], dfdq[NMAX * NMAX], dfdu[NMAX * NMAX], fs[2][NMAX], fu[2][NMAX], y[2], L0[2];
  PetscReal        errQ = 0, errU = 0, scale = 0, errV = 0, fmax = 0, errE, errN = 0, T, V, Vs = 0, Vg = 0;

  PetscFunctionBeginUser;
  PetscCall(VITestMultibodyCreate(file, text, &sys));
  PetscCall(VISystemGetSizes(sys, &n, NULL, NULL));
  EXPECT(n == 2 * (dim == 3 ? 7 : 3), "%" PetscInt_FMT " coordinates", n);
  PetscCall(VISystemGetInitialState(sys, &q0, &u0));
  L0[0] = 0.7;
  L0[1] = Length(dim, 1, q0);
  for (PetscInt i = 0; i < n; i++) {
    q[i] = q0[i] + 0.1 * (i + 1) * (i % 2 ? -1 : 1) / 3;
    u[i] = 0.3 * (i % 3) - 0.4 + 0.05 * i;
  }
  /* df/dq, df/du */
  PetscCall(VISystemComputeForceJacobian(sys, 0, q, u, dfdq, dfdu));
  for (PetscInt i = 0; i < n * n; i++) scale = PetscMax(scale, PetscMax(PetscAbsReal(dfdq[i]), PetscAbsReal(dfdu[i])));
  for (PetscInt k = 0; k < n; k++) {
    for (PetscInt s = 0; s < 2; s++) {
      const PetscReal qk = q[k], uk = u[k];
      q[k] += s ? -eps : eps;
      PetscCall(VISystemComputeForce(sys, 0, q, u, fs[s]));
      q[k] = qk;
      u[k] += s ? -eps : eps;
      PetscCall(VISystemComputeForce(sys, 0, q, u, fu[s]));
      u[k] = uk;
    }
    for (PetscInt i = 0; i < n; i++) {
      errQ = PetscMax(errQ, PetscAbsReal((fs[0][i] - fs[1][i]) / (2 * eps) - dfdq[i * n + k]) / scale);
      errU = PetscMax(errU, PetscAbsReal((fu[0][i] - fu[1][i]) / (2 * eps) - dfdu[i * n + k]) / scale);
    }
  }
  /* f = -dV/dq at u = 0 */
  PetscCall(VISystemComputeForce(sys, 0, q, z, f));
  for (PetscInt k = 0; k < n; k++) {
    PetscReal Vk[2];
    for (PetscInt s = 0; s < 2; s++) {
      const PetscReal qk = q[k];
      q[k] += s ? -eps : eps;
      PetscCall(VISystemComputeEnergy(sys, q, z, &T, &Vk[s]));
      q[k] = qk;
    }
    errV = PetscMax(errV, PetscAbsReal(f[k] + (Vk[0] - Vk[1]) / (2 * eps)));
    fmax = PetscMax(fmax, PetscAbsReal(f[k]));
  }
  errV /= fmax;
  /* the potential and the tensions */
  PetscCall(VISystemComputeEnergy(sys, q, u, &T, &V));
  for (PetscInt b = 0; b < 2; b++)
    for (PetscInt i = 0; i < dim; i++) Vg -= mass[b] * g[i] * q[b * (dim == 3 ? 7 : 3) + i];
  PetscCall(VISystemComputeOutputs(sys, 0, q, u, NULL, y));
  for (PetscInt k = 0; k < 2; k++) {
    PetscReal l = Length(dim, k, q), qs[2][NMAX], rate, N;
    for (PetscInt s = 0; s < 2; s++)
      for (PetscInt i = 0; i < n; i++) qs[s][i] = q[i] + (s ? -eps : eps) * u[i];
    rate = (Length(dim, k, qs[0]) - Length(dim, k, qs[1])) / (2 * eps);
    N    = k_s[k] * (l - L0[k]) + c_s[k] * rate;
    errN = PetscMax(errN, PetscAbsReal(y[k] - N) / PetscAbsReal(N));
    Vs += 0.5 * k_s[k] * PetscSqr(l - L0[k]);
  }
  errE = PetscAbsReal(V - Vg - Vs);
  PetscCall(
      PetscPrintf(PETSC_COMM_WORLD,
                  "springs (%s): df/dq %.2e, df/du %.2e (relative, 1e-6); f + dV/dq at u = 0 %.2e (relative, 1e-7); the springs' potential %.2e "
                  "(1e-13); the tensions %.2e (relative, 1e-7)\n",
                  dim == 3 ? "spatial" : "planar", (double)errQ, (double)errU, (double)errV, (double)errE, (double)errN));
  EXPECT(errQ < 1e-6 && errU < 1e-6 && errV < 1e-7 && errE < 1e-13 && errN < 1e-7, "the springs' forces, tangents or energy are wrong");
  PetscCall(VISystemDestroy(&sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Check("test_mbspring.yaml", planar, 2));
  PetscCall(Check("test_mbspring3.yaml", spatial, 3));
  PetscCall(PetscFinalize());
  return 0;
}
