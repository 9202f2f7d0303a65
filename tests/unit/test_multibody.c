/* The multibody system's constraints (src/system/mbmodel.c) against central differences: on a model with two moving bodies,
   a revolute joint to the ground, a prismatic joint (driven along its axis: its third row, the slide) and a fixed joint
   between them and contacts of each body against the other's line and the ground's, at a configuration off the initial
   one: G = dg/dq against differences of g (1e-8 absolute, steps 1e-6), and d(G^T lambda)/dq
   (VISystemComputeConstraintCurvature) against differences of G^T lambda (1e-7); the one-pass derivatives of a Newton
   iteration (VISystemComputeConstraintDerivatives) bitwise equal to those dense ones, and zero outside each row's columns
   (VISystemGetConstraintColumns: its two bodies' coordinates); the mass, energy and outputs against
   their formulas (1e-14), and a frictional contact's tangential row against the relative sliding velocity (1e-14); the
   one-pass rows of this rigid model (mbrigid.c) bitwise equal to the general path's (VIMBModelConstraint, VIMBModelTangent). A
   second model with parameters and a driver: numbers written as expressions of the parameters (precedence, unary minus,
   parentheses) equal to their values computed here, one of them replaced by -mb_param_k (1e-15); the driver's row
   theta_a - theta_a(0) - speed t at t = 0.3 with its rate -speed and its gradient (exact). The model files are written
   here. */
#include "vitest.h"
#include "system/mbimpl.h"

static const char model[] =
    "gravity: [0.5, -9.81]\n"
    "bodies:\n"
    "  - {name: a, mass: 2, inertia: 0.3, position: [1, 0], angle: 0, velocity: [0, 0.7], angular_velocity: 0.7}\n"
    "  - {name: b, mass: 1.5, inertia: 0.2, position: [2, 0.5], angle: 0.4}\n"
    "joints:\n"
    "  - {name: pin, type: revolute, body1: ground, point1: [0, 0], body2: a, point2: [-1, 0]}\n"
    "  - {name: slide, type: prismatic, body1: a, point1: [0.2, 0.1], body2: b, point2: [0.3, -0.2], axis: [1, 2], speed: 0.5}\n"
    "  - {name: weld, type: fixed, body1: b, point1: [0.1, 0.3], body2: a, point2: [-0.4, 0.2]}\n"
    "contacts:\n"
    "  - {name: ab, body: a, point: [0.3, -0.1], against: b, line_point: [0.2, 0.4], line_normal: [0.6, 0.8], friction: 0.2}\n"
    "  - {name: ag, body: b, point: [-0.2, 0.1], against: ground, line_point: [0, -1], line_normal: [0, 1]}\n"
    "outputs:\n"
    "  - {name: p, type: point, body: b, point: [0.5, -0.25]}\n"
    "  - {name: th, type: angle, body: a}\n"
    "  - {name: e, type: energy}\n"
    "assembly_tolerance: 10\n";

static const char model2[] = "parameters: {k: 0.5, w: 3}\n"
                             "bodies:\n"
                             "  - {name: a, mass: 2 * (1 + k) - k / 4, inertia: -(-k) * k, position: [1 - 2 * k, (k + 1) / (k - 3)], angle: 0.25,\n"
                             "     angular_velocity: w}\n"
                             "joints:\n"
                             "  - {name: motor, type: driver, body1: ground, body2: a, speed: w}\n";

int main(int argc, char **argv)
{
  VISystem         sys;
  PetscInt         n, nc;
  const PetscReal *q0;
  PetscReal        q[6], u[6] = {0.1, -0.3, 0.7, 0.4, 0.2, -0.5}, lam[16], g[16], gp[16], gm[16], G[96], Gp[96], Gm[96], H[36], M[36], y[16], T, V;
  PetscReal        errG = 0, errH = 0, eps = 1e-6;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(VITestMultibodyCreate("test_multibody.yaml", model, &sys));
  PetscCall(VISystemGetSizes(sys, &n, NULL, NULL));
  PetscCall(VISystemGetContacts(sys, &nc, NULL, NULL, NULL));
  EXPECT(n == 6 && nc == 2 + 3 + 3 + 2, "sizes: %" PetscInt_FMT " coordinates, %" PetscInt_FMT " rows (expected 6 and 10)", n, nc);
  PetscCall(VISystemGetInitialState(sys, &q0, NULL));
  for (PetscInt i = 0; i < n; i++) q[i] = q0[i] + 0.1 * (i + 1) * (i % 2 ? -1 : 1);
  for (PetscInt r = 0; r < nc; r++) lam[r] = 0.5 + 0.3 * r * (r % 2 ? -1 : 1);
  PetscCall(VISystemEvaluateConstraints(sys, 0, q, g, G, NULL));
  PetscCall(VISystemComputeConstraintCurvature(sys, 0, q, lam, H));
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal qk = q[k];
    q[k]               = qk + eps;
    PetscCall(VISystemEvaluateConstraints(sys, 0, q, gp, Gp, NULL));
    q[k] = qk - eps;
    PetscCall(VISystemEvaluateConstraints(sys, 0, q, gm, Gm, NULL));
    q[k] = qk;
    for (PetscInt r = 0; r < nc; r++) errG = PetscMax(errG, PetscAbsReal((gp[r] - gm[r]) / (2 * eps) - G[r * n + k]));
    for (PetscInt i = 0; i < n; i++) {
      PetscReal d = 0;
      for (PetscInt r = 0; r < nc; r++) d += lam[r] * (Gp[r * n + i] - Gm[r * n + i]) / (2 * eps);
      errH = PetscMax(errH, PetscAbsReal(d - H[i * n + k]));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "multibody constraints: |G - dg/dq|max = %.2e (tolerance 1e-8), |H - d(G^T lambda)/dq|max = %.2e (tolerance 1e-7)\n",
                        (double)errG, (double)errH));
  EXPECT(errG < 1e-8 && errH < 1e-7, "the constraints' derivatives differ from central differences: G %g, H %g", (double)errG, (double)errH);
  /* the one-pass derivatives a Newton iteration takes (VISystemComputeConstraintDerivatives): G, d(G^T lambda)/dq and
     d(G u)/dq (row r: (H_r u)^T, H_r the curvature with the unit multiplier e_r) equal to the dense ones, bitwise */
  {
    PetscReal Gd[96], HV[96], Hw[36], Hr[36], e[16] = {0};
    PetscBool same;
    PetscCall(VISystemComputeConstraintDerivatives(sys, 0, q, u, lam, Gd, HV, Hw));
    same = PETSC_TRUE;
    for (PetscInt i = 0; i < nc * n; i++) same = same && Gd[i] == G[i] ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt i = 0; i < n * n; i++) same = same && Hw[i] == H[i] ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt r = 0; r < nc; r++) {
      e[r] = 1;
      PetscCall(VISystemComputeConstraintCurvature(sys, 0, q, e, Hr));
      e[r] = 0;
      for (PetscInt k = 0; k < n; k++) {
        PetscReal hv = 0;
        for (PetscInt i = 0; i < n; i++) hv += Hr[k * n + i] * u[i];
        same = same && HV[r * n + k] == hv ? PETSC_TRUE : PETSC_FALSE;
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "multibody one-pass derivatives (G, d(G^T lambda)/dq, d(G u)/dq): %s the dense ones\n",
                          same ? "bitwise equal to" : "DIFFERENT from"));
    EXPECT(same, "VISystemComputeConstraintDerivatives differs from VISystemEvaluateConstraints / VISystemComputeConstraintCurvature");
    /* the rows' columns (VISystemGetConstraintColumns): their two bodies' coordinates, ascending (the pin's: a's 0-2, the
       contact ag's: b's 3-5, the others both bodies'); G, d(G u)/dq and the tangent exact zeros outside them */
    {
      const PetscInt *ptr, *cols, want[10] = {3, 3, 6, 6, 6, 6, 6, 6, 6, 3};
      PetscReal       Gt[6];
      PetscBool       in[6], ok = PETSC_TRUE;
      PetscCall(VISystemGetConstraintColumns(sys, &ptr, &cols));
      PetscCall(VISystemEvaluateTangents(sys, 0, q, Gt));
      EXPECT(ptr && cols, "a planar rigid model gives its rows' columns");
      for (PetscInt r = 0; r < nc; r++) {
        ok = ok && ptr[r + 1] - ptr[r] == want[r] ? PETSC_TRUE : PETSC_FALSE;
        for (PetscInt i = 0; i < n; i++) in[i] = PETSC_FALSE;
        for (PetscInt a = ptr[r]; a < ptr[r + 1]; a++) {
          ok          = ok && cols[a] == (r < 2 ? 0 : r == 9 ? 3 : 0) + a - ptr[r] ? PETSC_TRUE : PETSC_FALSE;
          in[cols[a]] = PETSC_TRUE;
        }
        for (PetscInt i = 0; i < n; i++)
          if (!in[i]) ok = ok && Gd[r * n + i] == 0 && HV[r * n + i] == 0 && (r != 8 || Gt[i] == 0) ? PETSC_TRUE : PETSC_FALSE;
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "multibody rows' columns (VISystemGetConstraintColumns): %s\n",
                            ok ? "their bodies', G zero elsewhere" : "WRONG"));
      EXPECT(ok, "VISystemGetConstraintColumns: a row's columns are not its two bodies' coordinates, or G is nonzero outside them");
    }
  }
  /* mass, energy, outputs */
  PetscCall(VISystemComputeMass(sys, q, M));
  PetscCall(VISystemComputeEnergy(sys, q, u, &T, &V));
  {
    const PetscReal Tref = 0.5 * (2 * (u[0] * u[0] + u[1] * u[1]) + 0.3 * u[2] * u[2] + 1.5 * (u[3] * u[3] + u[4] * u[4]) + 0.2 * u[5] * u[5]);
    const PetscReal Vref = -(2 * (0.5 * q[0] - 9.81 * q[1]) + 1.5 * (0.5 * q[3] - 9.81 * q[4]));
    const PetscReal c = PetscCosReal(q[5]), s = PetscSinReal(q[5]);
    const PetscReal px = q[3] + c * 0.5 + s * 0.25, py = q[4] + s * 0.5 - c * 0.25;
    const PetscReal vx = u[3] - u[5] * (s * 0.5 - c * 0.25), vy = u[4] + u[5] * (c * 0.5 + s * 0.25);
    PetscCall(VISystemComputeOutputs(sys, 0, q, u, lam, y));
    EXPECT(M[0] == 2 && M[7] == 2 && M[14] == 0.3 && M[21] == 1.5 && M[35] == 0.2 && M[1] == 0, "mass matrix");
    EXPECT(PetscAbsReal(T - Tref) < 1e-14 && PetscAbsReal(V - Vref) < 1e-13, "energy %g %g, expected %g %g", (double)T, (double)V, (double)Tref,
           (double)Vref);
    EXPECT(PetscAbsReal(y[0] - px) < 1e-14 && PetscAbsReal(y[1] - py) < 1e-14 && PetscAbsReal(y[2] - vx) < 1e-14 && PetscAbsReal(y[3] - vy) < 1e-14,
           "point output (%g, %g, %g, %g), expected (%g, %g, %g, %g)", (double)y[0], (double)y[1], (double)y[2], (double)y[3], (double)px, (double)py,
           (double)vx, (double)vy);
    EXPECT(y[4] == q[2] && y[5] == u[2] && PetscAbsReal(y[6] - (T + V)) < 1e-14, "angle, rate, energy outputs");
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "multibody mass, energy and outputs: as their formulas (1e-14)\n"));
  /* the frictional contact ab (the point (0.3, -0.1) of a against the line of b): Gt u is the point's velocity relative to
     the material point of b under it, along b's tangent J R_b n */
  {
    PetscReal       Gt[6], w = 0, wref;
    const PetscReal ca = PetscCosReal(q[2]), sa = PetscSinReal(q[2]), cb = PetscCosReal(q[5]), sb = PetscSinReal(q[5]);
    const PetscReal px = q[0] + ca * 0.3 + sa * 0.1, py = q[1] + sa * 0.3 - ca * 0.1; /* P = r_a + R_a p */
    const PetscReal vpx = u[0] - u[2] * (py - q[1]), vpy = u[1] + u[2] * (px - q[0]); /* its velocity */
    const PetscReal vbx = u[3] - u[5] * (py - q[4]), vby = u[4] + u[5] * (px - q[3]); /* b's material point at P */
    const PetscReal nx = cb * 0.6 - sb * 0.8, ny = sb * 0.6 + cb * 0.8, tx = -ny, ty = nx;
    PetscCall(VISystemEvaluateTangents(sys, 0, q, Gt));
    for (PetscInt i = 0; i < n; i++) w += Gt[i] * u[i];
    wref = tx * (vpx - vbx) + ty * (vpy - vby);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "multibody tangent: Gt u = %.15g, relative sliding velocity %.15g (tolerance 1e-14)\n", (double)w,
                          (double)wref));
    EXPECT(PetscAbsReal(w - wref) < 1e-14, "tangent row: Gt u %g, expected %g", (double)w, (double)wref);
  }
  /* a planar rigid model's rows come from one pass (src/system/mbrigid.c): bitwise those of the general path,
     VIMBModelConstraint row by row (g, gradient, the curvature with the multipliers lam) and VIMBModelTangent */
  {
    VIMBModel md;
    PetscReal gr, grad[6], Hg[36] = {0}, Gt[6], tg[6];
    PetscBool same = PETSC_TRUE;
    PetscCall(VIMBModelLoad(PETSC_COMM_WORLD, "test_multibody.yaml", &md));
    PetscCall(VISystemEvaluateConstraints(sys, 0, q, g, G, NULL));
    PetscCall(VISystemComputeConstraintCurvature(sys, 0, q, lam, H));
    for (PetscInt r = 0; r < nc; r++) {
      PetscCall(VIMBModelConstraint(&md, r, q, &gr, grad, lam[r], Hg));
      same = same && gr == g[r] ? PETSC_TRUE : PETSC_FALSE;
      for (PetscInt i = 0; i < n; i++) same = same && grad[i] == G[r * n + i] ? PETSC_TRUE : PETSC_FALSE;
    }
    for (PetscInt i = 0; i < n * n; i++) same = same && Hg[i] == H[i] ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(VISystemEvaluateTangents(sys, 0, q, Gt));
    PetscCall(VIMBModelTangent(&md, 0, q, tg));
    for (PetscInt i = 0; i < n; i++) same = same && tg[i] == Gt[i] ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(VIMBModelFree(&md));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "multibody one-pass rigid rows (g, G, d(G^T lambda)/dq, the tangent): %s the general path's\n",
                          same ? "bitwise equal to" : "DIFFERENT from"));
    EXPECT(same, "the one-pass rows of a rigid model (mbrigid.c) differ from VIMBModelConstraint / VIMBModelTangent");
  }
  PetscCall(VISystemDestroy(&sys));
  /* the second model: parameters, expressions, a driver (k = 0.5 in the file, 0.75 by -mb_param_k) */
  {
    const PetscReal  k = 0.75, w = 3;
    PetscReal        Md[9], g1, G1[3], r1;
    const PetscReal *qa, *ua;
    PetscCall(PetscOptionsSetValue(NULL, "-mb_param_k", "0.75"));
    PetscCall(VITestMultibodyCreate("test_multibody2.yaml", model2, &sys));
    PetscCall(VISystemComputeMass(sys, NULL, Md));
    PetscCall(VISystemGetInitialState(sys, &qa, &ua));
    EXPECT(PetscAbsReal(Md[0] - (2 * (1 + k) - k / 4)) < 1e-15 && PetscAbsReal(Md[8] - k * k) < 1e-15 && PetscAbsReal(qa[0] - (1 - 2 * k)) < 1e-15 &&
               PetscAbsReal(qa[1] - (k + 1) / (k - 3)) < 1e-15 && ua[2] == w,
           "expressions: mass %g inertia %g position (%g, %g) rate %g; expected %g, %g, (%g, %g), %g", (double)Md[0], (double)Md[8], (double)qa[0],
           (double)qa[1], (double)ua[2], (double)(2 * (1 + k) - k / 4), (double)(k * k), (double)(1 - 2 * k), (double)((k + 1) / (k - 3)), (double)w);
    q[0] = 0.1;
    q[1] = 0.2;
    q[2] = 1.4;
    PetscCall(VISystemEvaluateConstraints(sys, 0.3, q, &g1, G1, &r1));
    EXPECT(PetscAbsReal(g1 - (1.4 - 0.25 - w * 0.3)) < 1e-15 && r1 == -w && G1[0] == 0 && G1[1] == 0 && G1[2] == 1,
           "driver row at t = 0.3: g %g rate %g G (%g, %g, %g); expected %g, %g, (0, 0, 1)", (double)g1, (double)r1, (double)G1[0], (double)G1[1],
           (double)G1[2], (double)(1.4 - 0.25 - w * 0.3), (double)-w);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "multibody parameters and expressions (-mb_param_k 0.75): as computed here (1e-15); driver row, rate and "
                                            "gradient at t = 0.3: exact\n"));
    PetscCall(PetscOptionsClearValue(NULL, "-mb_param_k"));
    PetscCall(VISystemDestroy(&sys));
  }
  PetscCall(PetscFinalize());
  return 0;
}
