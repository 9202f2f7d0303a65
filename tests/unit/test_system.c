/* The reduced system's general ops (mass, force, tangents, energy, constraints) against its linear operators, and what a
   stepper asks besides (outputs, massless boundary, lowest frequency, data id) against the ROM's, on a
   hand-made 3-coordinate ROM (two contacts: a 2D one and a normal one, one inner mode) with damping, a load and a gap. */
#include <vicms.h>

#define EXPECT(cond, ...) PetscCheck(cond, PETSC_COMM_WORLD, PETSC_ERR_PLIB, __VA_ARGS__)

int main(int argc, char **argv)
{
  const PetscInt  n = 4, nc = 2;
  const PetscReal K[16] = {5, -1, 0, -1, -1, 4, -1, 0, 0, -1, 3, -1, -1, 0, -1, 6}, M[16] = {2, 0.1, 0, 0, 0.1, 1, 0, 0, 0, 0, 1.5, 0.2, 0, 0, 0.2, 3},
                  D[16] = {0.3, 0, 0, 0.1, 0, 0.2, 0, 0, 0, 0, 0.1, 0, 0.1, 0, 0, 0.4}, load[4] = {0.5, -1, 0, 2};
  const PetscReal q[4] = {0.1, -0.2, 0.3, 0.05}, u[4] = {-1, 0.5, 0.25, 2}, t = 0.3;
  const PetscReal *Kl, *Ml, *Dl, *const *loads;
  PetscReal        f[4], fref[4], dfdq[16], dfdu[16], Mq[16], H[16], T, V, Tref = 0, Vref = 0, g[2], G[8], grate[2], s[1], lam[2] = {1, 2};
  PetscInt         ncs, nl;
  const PetscInt  *dims, *offsets;
  const VIContactKind *kinds;
  PetscBool        constant, linear;
  VIContactInfo    ci[2];
  VIROM            rom;
  VISystem         sys;
  PetscReal           *k, *m, *d, *freq, f1;
  const PetscReal      tip[4] = {0, 0.5, 0, -2}, *row;
  const char          *name, *kind;
  const void          *id;
  PetscInt             nout;
  PetscBool            massless;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscMemzero(ci, sizeof(ci)));
  for (PetscInt j = 0; j < nc; j++) {
    ci[j].node_id  = j + 1;
    ci[j].dim      = j ? 1 : 2;
    ci[j].offset   = j ? 2 : 0;
    ci[j].area     = 1;
    ci[j].frame[0] = ci[j].frame[4] = ci[j].frame[8] = 1;
  }
  PetscCall(VIROMCreate(PETSC_COMM_WORLD, &rom));
  PetscCall(VIROMSetSizes(rom, VI_CMS_CB, 3, 1));
  PetscCall(VIROMGetMatrices(rom, &k, &m, &d));
  PetscCall(PetscArraycpy(k, K, 16));
  PetscCall(PetscArraycpy(m, M, 16));
  PetscCall(PetscArraycpy(d, D, 16));
  PetscCall(VIROMSetContacts(rom, nc, ci));
  PetscCall(VIROMAddLoad(rom, "push", load));
  PetscCall(VIROMAddOutput(rom, "tip", tip));
  PetscCall(VIROMGetFrequencies(rom, &freq));
  freq[0] = 1.25;
  PetscCall(VIROMValidate(rom, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-case_loads", "push"));
  PetscCall(PetscOptionsSetValue(NULL, "-load_push_type", "harmonic"));
  PetscCall(PetscOptionsSetValue(NULL, "-load_push_frequency", "2"));
  PetscCall(PetscOptionsSetValue(NULL, "-contact_gap", "0.7"));
  PetscCall(PetscOptionsSetValue(NULL, "-case_damping_scale", "2"));
  PetscCall(VISystemCreate(PETSC_COMM_WORLD, &sys));
  PetscCall(VISystemSetROM(sys, rom));
  PetscCall(VISystemSetFromOptions(sys));
  PetscCall(VISystemSetUp(sys));

  PetscCall(VISystemHasConstantMass(sys, &constant));
  PetscCall(VISystemIsLinear(sys, &linear));
  EXPECT(constant && linear, "a ROM has a constant mass and is linear");
  PetscCall(VISystemGetLinearOperators(sys, &Kl, &Ml, &Dl));
  for (PetscInt i = 0; i < 16; i++) EXPECT(Kl[i] == K[i] && Ml[i] == M[i] && Dl[i] == 2 * D[i], "linear operators: entry %d", (int)i);
  /* f(t, q, u) = f_ext(t) - K q - D u, f_ext = s(t) load */
  PetscCall(VISystemComputeForce(sys, t, q, u, f));
  PetscCall(VISystemEvaluateLoadScales(sys, t, s));
  PetscCall(VISystemGetLoads(sys, &nl, &loads));
  EXPECT(nl == 1 && PetscAbsReal(s[0] - PetscCosReal(2 * PETSC_PI * 2 * t)) < 1e-14, "load scale %g", (double)s[0]);
  for (PetscInt i = 0; i < n; i++) {
    fref[i] = s[0] * load[i];
    for (PetscInt j = 0; j < n; j++) fref[i] -= K[i * n + j] * q[j] + 2 * D[i * n + j] * u[j];
    EXPECT(PetscAbsReal(f[i] - fref[i]) < 1e-14, "force %d: %g, expected %g", (int)i, (double)f[i], (double)fref[i]);
  }
  PetscCall(VISystemComputeForceJacobian(sys, t, q, u, dfdq, dfdu));
  PetscCall(VISystemComputeMass(sys, q, Mq));
  for (PetscInt i = 0; i < 16; i++)
    EXPECT(dfdq[i] == -K[i] && dfdu[i] == -2 * D[i] && Mq[i] == M[i], "tangents and mass: entry %d", (int)i);
  PetscCall(VISystemComputeEnergy(sys, q, u, &T, &V));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      Tref += 0.5 * u[i] * M[i * n + j] * u[j];
      Vref += 0.5 * q[i] * K[i * n + j] * q[j];
    }
  EXPECT(PetscAbsReal(T - Tref) < 1e-14 && PetscAbsReal(V - Vref) < 1e-14, "energy %g %g, expected %g %g", (double)T, (double)V, (double)Tref,
         (double)Vref);
  /* constraints: the normal rows 0 and 2, g = q_row + 0.7, G unit rows, a fixed obstacle: rate 0; curvature 0 */
  PetscCall(VISystemGetContacts(sys, &ncs, &kinds, &dims, &offsets));
  EXPECT(ncs == 2 && dims[0] == 2 && dims[1] == 1 && offsets[0] == 0 && offsets[1] == 2 && kinds[0] == VI_CONTACT_UNILATERAL, "contacts");
  PetscCall(VISystemEvaluateConstraints(sys, t, q, g, G, grate));
  for (PetscInt j = 0; j < nc; j++) {
    EXPECT(g[j] == q[offsets[j]] + 0.7 && grate[j] == 0, "gap %d: %g", (int)j, (double)g[j]);
    for (PetscInt i = 0; i < n; i++) EXPECT(G[j * n + i] == (i == offsets[j] ? 1 : 0), "G[%d, %d]", (int)j, (int)i);
  }
  PetscCall(VISystemComputeConstraintCurvature(sys, t, q, lam, H));
  for (PetscInt i = 0; i < 16; i++) EXPECT(H[i] == 0, "d(G^T lambda)/dq of a ROM is 0");
  {
    /* the one-pass derivatives of a type without the op (VISystemComputeConstraintDerivatives formed from the two above) */
    PetscReal Gd[8], HV[8], Hw[16];
    PetscCall(VISystemComputeConstraintDerivatives(sys, t, q, u, lam, Gd, HV, Hw));
    for (PetscInt i = 0; i < 8; i++) EXPECT(Gd[i] == G[i] && HV[i] == 0, "one-pass derivatives: G, d(G u)/dq entry %d", (int)i);
    for (PetscInt i = 0; i < 16; i++) EXPECT(Hw[i] == 0, "one-pass derivatives: d(G^T lambda)/dq entry %d", (int)i);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "reduced system: force, tangents, mass, energy and constraints agree with K, M, D (tolerance 1e-14)\n"));
  /* what a stepper asks besides the equations: the ROM's output rows by name, its method (cb: the boundary carries mass),
     its inner mode's frequency, the ROM as the data's identity */
  PetscCall(VISystemGetNumOutputs(sys, &nout));
  PetscCall(VISystemGetOutput(sys, 0, &name, &row));
  EXPECT(nout == 1 && !strcmp(name, "tip"), "outputs: %d, first '%s'", (int)nout, name);
  for (PetscInt i = 0; i < n; i++) EXPECT(row[i] == tip[i], "output row %d", (int)i);
  PetscCall(VISystemHasMasslessBoundary(sys, &massless, &kind));
  EXPECT(!massless && !strcmp(kind, "cb"), "a cb ROM has a mass-carrying boundary: got %d, '%s'", (int)massless, kind);
  PetscCall(VISystemGetLowestFrequency(sys, &f1));
  PetscCall(VISystemGetDataId(sys, &id));
  EXPECT(f1 == 1.25 && id == (const void *)rom, "lowest frequency %g (expected 1.25), data id the ROM", (double)f1);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "reduced system: outputs, massless boundary, lowest frequency and data id are the ROM's\n"));
  PetscCall(VISystemDestroy(&sys));
  PetscCall(VIROMDestroy(&rom));
  PetscCall(PetscFinalize());
  return 0;
}
