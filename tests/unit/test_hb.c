/* Verification of harmonic balance (seed 000 App. A): a linear ROM against its frequency response solved directly, a massless
   oscillator against a rigid stop (hardening branch, turning points, unstable overhang, convergence in H), condensed and
   full formulations alike, and results equal on every rank. */
#include <vicms.h>
#include "hb/hbimpl.h" /* white-box: the residual and its analytic Jacobian, checked by finite differences */
#include <petscblaslapack.h>
#include <slepcsys.h>

static const char help[] = "Harmonic balance verification: -case linear|stop|condense|friction|eps|write_stop -rom PATH\n";

static PetscErrorCode SetOption(const char name[], const char value[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, name, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A chain ROM with a contact coordinate: q0 (contact, massless or not), then nm masses on springs. k[i] the spring between
   coordinate i and i+1, the last mass grounded by kg; modal-like damping c on the masses; the load "drive" on the last mass,
   the output "tip" its displacement. */
static PetscErrorCode BuildChain(MPI_Comm comm, PetscInt nm, PetscBool massless, VIROM *rom)
{
  PetscInt      n = nm + 1;
  PetscReal    *K, *M, *D, *f, *o, *freq;
  VIContactInfo ci = {0};

  PetscFunctionBeginUser;
  PetscCall(VIROMCreate(comm, rom));
  PetscCall(VIROMSetSizes(*rom, massless ? VI_CMS_CB_MASSLESS : VI_CMS_CB, 1, nm));
  PetscCall(VIROMGetMatrices(*rom, &K, &M, &D));
  for (PetscInt i = 0; i + 1 < n; i++) {
    PetscReal k = (i == 0 ? 3.0 : 1.5) * 4 * PETSC_PI * PETSC_PI;
    K[i * n + i] += k;
    K[(i + 1) * n + i + 1] += k;
    K[i * n + i + 1] -= k;
    K[(i + 1) * n + i] -= k;
  }
  K[(n - 1) * n + n - 1] += 4 * PETSC_PI * PETSC_PI;
  for (PetscInt i = 1; i < n; i++) {
    M[i * n + i] = 1.0 / i;
    D[i * n + i] = 0.08 * PETSC_PI;
  }
  if (!massless) M[0] = 0.1;
  PetscCall(VIROMGetFrequencies(*rom, &freq));
  for (PetscInt i = 0; i < nm; i++) freq[i] = i + 1;
  ci.dim      = 1;
  ci.node_id  = 1;
  ci.frame[0] = ci.frame[4] = ci.frame[8] = 1;
  ci.area                                 = 1;
  PetscCall(VIROMSetContacts(*rom, 1, &ci));
  PetscCall(PetscCalloc2(n, &f, n, &o));
  f[n - 1] = 1;
  o[n - 1] = 1;
  PetscCall(VIROMAddLoad(*rom, "drive", f));
  PetscCall(VIROMAddOutput(*rom, "tip", o));
  o[n - 1] = 0;
  o[0]     = 1;
  PetscCall(VIROMAddOutput(*rom, "contact", o));
  PetscCall(PetscFree2(f, o));
  PetscCall(VIROMSetUnits(*rom, "SI"));
  PetscCall(VIROMValidate(*rom, "test chain"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The hardening oscillator of the issue: a unit mass on a spring k1 = (2 pi)^2 (1 Hz), joined by a spring k2 = 3 k1 to a
   massless contact coordinate that a rigid stop at gap g0 = 1 holds once it closes (2 Hz), damping 2% of critical. */
static PetscErrorCode BuildStop(MPI_Comm comm, VIROM *rom)
{
  PetscReal    *K, *M, *D, *f, *o, *freq, k1 = 4 * PETSC_PI * PETSC_PI, k2 = 3 * k1;
  VIContactInfo ci = {0};

  PetscFunctionBeginUser;
  PetscCall(VIROMCreate(comm, rom));
  PetscCall(VIROMSetSizes(*rom, VI_CMS_CB_MASSLESS, 1, 1));
  PetscCall(VIROMGetMatrices(*rom, &K, &M, &D));
  K[0] = k2;
  K[1] = K[2] = -k2;
  K[3]        = k1 + k2;
  M[3]        = 1;
  D[3]        = 2 * 0.02 * 2 * PETSC_PI;
  PetscCall(VIROMGetFrequencies(*rom, &freq));
  freq[0]     = 2;
  ci.dim      = 1;
  ci.node_id  = 1;
  ci.frame[0] = ci.frame[4] = ci.frame[8] = 1;
  ci.area                                 = 1;
  PetscCall(VIROMSetContacts(*rom, 1, &ci));
  PetscCall(PetscCalloc2(2, &f, 2, &o));
  f[1] = 1;
  o[1] = 1;
  PetscCall(VIROMAddLoad(*rom, "drive", f));
  PetscCall(VIROMAddOutput(*rom, "mass", o));
  PetscCall(PetscFree2(f, o));
  PetscCall(VIROMSetUnits(*rom, "SI"));
  PetscCall(VIROMValidate(*rom, "stop oscillator"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (K - W^2 M + i W s D) z = f solved in real form [[Ar, -Ai], [Ai, Ar]] [zr; zi] = [f; 0] (z = zr + i zi, x = Re(z e^{iWt})) */
static PetscErrorCode DirectFRF(VIROM rom, PetscReal W, PetscReal s, const PetscReal f[], PetscReal zr[], PetscReal zi[])
{
  PetscInt     nb, nm, n;
  PetscReal   *K, *M, *D, *A, *b;
  PetscBLASInt bn, one = 1, info, *piv;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetSizes(rom, &nb, &nm));
  n = nb + nm;
  PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
  PetscCall(PetscCalloc3(4 * n * n, &A, 2 * n, &b, 2 * n, &piv));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      PetscReal ar = K[i * n + j] - W * W * M[i * n + j], ai = W * s * D[i * n + j];
      A[j * 2 * n + i]           = ar;
      A[(n + j) * 2 * n + n + i] = ar;
      A[(n + j) * 2 * n + i]     = -ai;
      A[j * 2 * n + n + i]       = ai;
    }
  for (PetscInt i = 0; i < n; i++) b[i] = f[i];
  PetscCall(PetscBLASIntCast(2 * n, &bn));
  PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bn, &one, A, &bn, piv, b, &bn, &info));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "direct FRF solve failed");
  for (PetscInt i = 0; i < n; i++) {
    zr[i] = b[i];
    zi[i] = b[n + i];
  }
  PetscCall(PetscFree3(A, b, piv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Case "linear": the gap is never closed; every point of the branch, and fixed-frequency solves of the condensed and the full
   formulation on a mass-carrying ROM, equal the direct FRF to 1e-10 (harmonic 1; every other harmonic zero). The last variant scales
   the case's damping, -case_damping_scale 2.5, against the direct FRF with 2.5 D (its peaks 2.5 times lower than with D). */
static PetscErrorCode CaseLinear(MPI_Comm comm)
{
  VIROM             rom;
  const PetscReal  *f;
  PetscReal         zr[8], zi[8], err = 0, errmax = 0;
  const VIHBBranch *br;

  PetscFunctionBeginUser;
  for (PetscInt variant = 0; variant < 4; variant++) {
    PetscBool massless = variant == 0 || variant == 3 ? PETSC_TRUE : PETSC_FALSE, condense = variant != 2 ? PETSC_TRUE : PETSC_FALSE;
    PetscReal scale = variant == 3 ? 2.5 : 1;
    VISystem  sys;
    VIHB      hb;
    PetscCall(BuildChain(comm, 4, massless, &rom));
    PetscCall(SetOption("-case_loads", "drive"));
    PetscCall(SetOption("-load_drive_type", "harmonic"));
    PetscCall(SetOption("-load_drive_amplitude", "2.5"));
    PetscCall(SetOption("-load_drive_frequency", "7"));
    PetscCall(SetOption("-contact_gap", "1e6"));
    PetscCall(SetOption("-hb_freq_range", "0.2,2.5"));
    PetscCall(SetOption("-hb_harmonics", "3"));
    PetscCall(SetOption("-hb_condense", condense ? "true" : "false"));
    if (scale != 1) PetscCall(SetOption("-case_damping_scale", "2.5"));
    PetscCall(VISystemCreate(comm, &sys));
    PetscCall(VISystemSetROM(sys, rom));
    PetscCall(VISystemSetFromOptions(sys));
    PetscCall(VISystemSetUp(sys));
    PetscCall(VIHBCreate(comm, &hb));
    PetscCall(VIHBSetSystem(hb, sys));
    PetscCall(VIHBSetFromOptions(hb));
    PetscCall(VIHBSetUp(hb));
    PetscCall(VIHBContinue(hb));
    PetscCall(VIHBGetBranch(hb, &br));
    PetscCheck(!br->failed, comm, PETSC_ERR_PLIB, "linear branch failed: %s", br->message);
    PetscCheck(br->np >= 20, comm, PETSC_ERR_PLIB, "linear branch: only %" PetscInt_FMT " points", br->np);
    PetscCheck(br->frequency_hz[br->np - 1] >= 2.5, comm, PETSC_ERR_PLIB, "linear branch ended at %g Hz", (double)br->frequency_hz[br->np - 1]);
    PetscCall(VIROMGetLoad(rom, 0, NULL, &f));
    errmax = 0;
    for (PetscInt k = 0; k < br->np; k++) {
      PetscReal        load[5], W = 2 * PETSC_PI * br->frequency_hz[k], amp;
      const PetscReal *hc = br->harmonics + k * br->nout * br->nh; /* output "tip" */
      for (PetscInt i = 0; i < 5; i++) load[i] = 2.5 * f[i];
      PetscCall(DirectFRF(rom, W, scale, load, zr, zi));
      /* x = Re(z e^{iWt}) = zr cos - zi sin: a1 = zr, b1 = -zi */
      amp = PetscSqrtReal(zr[4] * zr[4] + zi[4] * zi[4]);
      err = PetscMax(PetscAbsReal(hc[1] - zr[4]), PetscAbsReal(hc[2] + zi[4])) / amp;
      for (PetscInt c = 0; c < br->nh; c++)
        if (c != 1 && c != 2) err = PetscMax(err, PetscAbsReal(hc[c]) / amp);
      err    = PetscMax(err, PetscAbsReal(br->amplitude[k * br->nout] - amp) / amp);
      errmax = PetscMax(errmax, err);
      PetscCall(PetscInfo(NULL, "point %" PetscInt_FMT " %g Hz err %g amp %g its %" PetscInt_FMT "\n", k, (double)br->frequency_hz[k], (double)err,
                          (double)amp, br->iterations[k]));
      /* the mass-carrying ROM's points are decided by the time stepping's transient (driven at the branch's frequency, not
         the case's 7 Hz) */
      PetscCheck(br->stable[k] == 1 && br->multiplier[k] < 1 &&
                     br->stability_method[k] == (massless ? VI_HB_STABILITY_FLOQUET : VI_HB_STABILITY_TRANSIENT),
                 comm, PETSC_ERR_PLIB,
                 "linear point %" PetscInt_FMT ": stability %" PetscInt_FMT " by method %" PetscInt_FMT " (largest multiplier modulus %g)", k,
                 br->stable[k], br->stability_method[k], (double)br->multiplier[k]);
      PetscCheck(br->closed_fraction[k] == 0, comm, PETSC_ERR_PLIB, "linear point %" PetscInt_FMT ": contact closed", k);
    }
    PetscCheck(errmax <= 1e-10, comm, PETSC_ERR_PLIB, "linear branch (variant %" PetscInt_FMT "): relative error %g > 1e-10", variant,
               (double)errmax);
    PetscCall(PetscPrintf(comm,
                          "linear %s ROM, %s, damping %g D: %" PetscInt_FMT " points from %g to %g Hz, largest relative error %.2e (<= 1e-10)\n",
                          massless ? "massless" : "mass-carrying", condense ? "condensed" : "full", (double)scale, br->np,
                          (double)br->frequency_hz[0], (double)br->frequency_hz[br->np - 1], (double)errmax));
    PetscCall(VIHBDestroy(&hb));
    PetscCall(VISystemDestroy(&sys));
    PetscCall(VIROMDestroy(&rom));
    PetscCall(PetscOptionsClear(NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stop oscillator's case options. */
static PetscErrorCode StopOptions(const char H[], const char N[])
{
  PetscFunctionBeginUser;
  PetscCall(SetOption("-case_loads", "drive"));
  PetscCall(SetOption("-load_drive_type", "harmonic"));
  PetscCall(SetOption("-load_drive_amplitude", "7.895683520871486")); /* 0.2 k1: linear peak 5 g0 */
  PetscCall(SetOption("-load_drive_frequency", "1"));
  PetscCall(SetOption("-contact_gap", "1"));
  PetscCall(SetOption("-hb_freq_range", "0.6,2.2"));
  PetscCall(SetOption("-hb_harmonics", H));
  PetscCall(SetOption("-hb_samples", N));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NewHB(MPI_Comm comm, VIROM rom, VISystem *sys, VIHB *hb)
{
  PetscFunctionBeginUser;
  PetscCall(VISystemCreate(comm, sys));
  PetscCall(VISystemSetROM(*sys, rom));
  PetscCall(VISystemSetFromOptions(*sys));
  PetscCall(VISystemSetUp(*sys));
  PetscCall(VIHBCreate(comm, hb));
  PetscCall(VIHBSetSystem(*hb, *sys));
  PetscCall(VIHBSetFromOptions(*hb));
  PetscCall(VIHBSetUp(*hb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Case "stop": the branch bends to the right with two turning points, the overhang between them is unstable and the rest
   stable; the branch is the same on every rank (bitwise). */
static PetscErrorCode CaseStop(MPI_Comm comm)
{
  VIROM             rom;
  VISystem          sys;
  VIHB              hb;
  const VIHBBranch *br;
  PetscInt          turning[8], nt = 0, nunstable = 0;
  PetscReal         amax = 0, sum = 0, all;

  PetscFunctionBeginUser;
  PetscCall(BuildStop(comm, &rom));
  PetscCall(StopOptions("20", "256"));
  PetscCall(NewHB(comm, rom, &sys, &hb));
  PetscCall(VIHBContinue(hb));
  PetscCall(VIHBGetBranch(hb, &br));
  PetscCall(VIHBPrintBranch(hb, 0));
  PetscCheck(!br->failed, comm, PETSC_ERR_PLIB, "stop branch failed: %s", br->message);
  for (PetscInt k = 0; k < br->np; k++) {
    if (br->kind[k] & VI_HB_POINT_TURNING && nt < 8) turning[nt++] = k;
    if (br->stable[k] == 0) nunstable++;
    amax = PetscMax(amax, br->amplitude[k]);
    sum += br->amplitude[k] + br->frequency_hz[k];
  }
  PetscCheck(nt == 2, comm, PETSC_ERR_PLIB, "stop branch: %" PetscInt_FMT " turning points, expected 2", nt);
  /* bends right: the first turning point (top of the resonance) lies at a higher frequency than the second, and above 1 Hz */
  PetscCheck(br->frequency_hz[turning[0]] > br->frequency_hz[turning[1]] && br->frequency_hz[turning[1]] > 1.0, comm, PETSC_ERR_PLIB,
             "stop branch: turning points at %g and %g Hz do not bend to the right", (double)br->frequency_hz[turning[0]],
             (double)br->frequency_hz[turning[1]]);
  /* stable before the first turning point and after the second, unstable strictly between (one point of slack at each, where
     the sampled contact switches make the multiplier cross 1 a step apart from the fold of the harmonic balance) */
  for (PetscInt k = 0; k < br->np; k++) {
    PetscInt expect = (k < turning[0] || k >= turning[1]) ? 1 : 0;
    if (k == turning[0] || k == turning[0] - 1 || k == turning[1] || k == turning[1] - 1) continue;
    PetscCheck(br->stable[k] == expect, comm, PETSC_ERR_PLIB,
               "stop branch point %" PetscInt_FMT " (%g Hz, amplitude %g): stability %" PetscInt_FMT ", expected %" PetscInt_FMT, k,
               (double)br->frequency_hz[k], (double)br->amplitude[k], br->stable[k], expect);
  }
  PetscCheck(nunstable >= 3, comm, PETSC_ERR_PLIB, "stop branch: only %" PetscInt_FMT " unstable points", nunstable);
  /* the stop keeps the peak well below the linear peak, 5 g0, and far above the gap g0 = 1 */
  PetscCheck(amax > 2 && amax < 4.5, comm, PETSC_ERR_PLIB, "stop branch: peak amplitude %g", (double)amax);
  PetscCallMPI(MPI_Allreduce(&sum, &all, 1, MPIU_REAL, MPI_MAX, comm));
  PetscCheck(all == sum, comm, PETSC_ERR_PLIB, "stop branch differs between ranks");
  PetscCall(PetscPrintf(comm,
                        "stop: %" PetscInt_FMT " points, turning points at %.6g Hz (amplitude %.6g) and %.6g Hz (amplitude %.6g), %" PetscInt_FMT
                        " unstable points between, peak %.6g\n",
                        br->np, (double)br->frequency_hz[turning[0]], (double)br->amplitude[turning[0]], (double)br->frequency_hz[turning[1]],
                        (double)br->amplitude[turning[1]], nunstable, (double)amax));
  PetscCall(VIHBDestroy(&hb));
  PetscCall(VISystemDestroy(&sys));
  PetscCall(VIROMDestroy(&rom));
  PetscCall(PetscOptionsClear(NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Case "condense": at frequencies on the nonlinear branch of the stop oscillator and of a 4-mass chain hitting its stop, the
   condensed and the full formulations give the same harmonics (1e-9), and the amplitudes converge as H grows. */
static PetscErrorCode CaseCondense(MPI_Comm comm)
{
  const char *Hs[] = {"5", "10", "20", "40"}, *Ns[] = {"64", "128", "256", "512"};
  PetscReal   amp[4], freq;

  PetscFunctionBeginUser;
  for (PetscInt chain = 0; chain < 2; chain++) {
    VIROM rom;
    if (chain)
      PetscCall(BuildChain(comm, 4, PETSC_TRUE, &rom));
    else
      PetscCall(BuildStop(comm, &rom));
    freq = chain ? 1.4 : 1.2;
    for (PetscInt s = 0; s < 4; s++) {
      PetscReal        qc[2048], diff = 0, scale = 0;
      const PetscReal *q;
      PetscInt         n, nh;
      for (PetscInt cond = 1; cond >= 0; cond--) {
        VISystem  sys;
        VIHB      hb;
        PetscBool conv;
        PetscInt  its;
        PetscCall(StopOptions(Hs[s], Ns[s]));
        if (chain) {
          PetscCall(SetOption("-contact_gap", "0.014")); /* the contact coordinate's linear amplitude: 0.0136 at 1 Hz, 0.0188 at 1.5 Hz */
          PetscCall(SetOption("-load_drive_amplitude", "1"));
        }
        PetscCall(SetOption("-hb_condense", cond ? "true" : "false"));
        PetscCall(NewHB(comm, rom, &sys, &hb));
        /* from the linear response at a lower frequency, then up in small steps: the upper, resonant solution at freq */
        for (PetscInt k = 0; k <= 20; k++) {
          PetscReal f0 = chain ? 1.0 : 0.6, fk = f0 + (freq - f0) * k / 20;
          PetscCall(VIHBSolve(hb, fk, &conv, &its));
          PetscCheck(conv, comm, PETSC_ERR_PLIB, "Newton failed at %g Hz (H = %s, condense %d)", (double)fk, Hs[s], (int)cond);
        }
        PetscCall(VIHBGetSolution(hb, &n, &nh, &q));
        if (cond) {
          PetscCall(PetscArraycpy(qc, q, n * nh));
          amp[s] = PetscSqrtReal(q[n * 1 + n - 1] * q[n * 1 + n - 1] + q[n * 2 + n - 1] * q[n * 2 + n - 1]);
        } else {
          for (PetscInt i = 0; i < n * nh; i++) {
            diff  = PetscMax(diff, PetscAbsReal(q[i] - qc[i]));
            scale = PetscMax(scale, PetscAbsReal(qc[i]));
          }
        }
        PetscCall(VIHBDestroy(&hb));
        PetscCall(VISystemDestroy(&sys));
        PetscCall(PetscOptionsClear(NULL));
      }
      PetscCheck(diff <= 1e-9 * scale, comm, PETSC_ERR_PLIB, "%s, H = %s: condensed and full harmonics differ by %g of %g", chain ? "chain" : "stop",
                 Hs[s], (double)diff, (double)scale);
      PetscCall(PetscPrintf(comm, "%s at %g Hz, H = %2s, N = %3s: first-harmonic amplitude %.8f; condensed - full: %.1e of %.3g\n",
                            chain ? "chain" : "stop ", (double)freq, Hs[s], Ns[s], (double)amp[s], (double)diff, (double)scale));
    }
    /* convergence in H: H = 20 within 0.1 % of H = 40, H = 10 within 1 % (the non-smooth contact force converges slowly and not
       monotonically: the table is in docs/hb.md) */
    PetscCheck(PetscAbsReal(amp[2] - amp[3]) <= 1e-3 * amp[3] && PetscAbsReal(amp[1] - amp[3]) <= 1e-2 * amp[3], comm, PETSC_ERR_PLIB,
               "no convergence in H: %g %g %g %g", (double)amp[0], (double)amp[1], (double)amp[2], (double)amp[3]);
    PetscCall(VIROMDestroy(&rom));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* K[i][j] of a spring k between coordinates i and j (j < 0: to the ground). */
static void AddSpring(PetscInt n, PetscReal K[], PetscInt i, PetscInt j, PetscReal k)
{
  K[i * n + i] += k;
  if (j < 0) return;
  K[j * n + j] += k;
  K[i * n + j] -= k;
  K[j * n + i] -= k;
}

/* A ROM of massless contacts (dims[j] coordinates each, normal first) and nm masses, from springs (i, j, k) and modal-like
   damping c on the masses; the load "drive" and the output "mass" on the first mass. */
static PetscErrorCode BuildSprings(MPI_Comm comm, PetscInt nc, const PetscInt dims[], PetscInt nm, const PetscReal mass[], PetscReal c, PetscInt ns,
                                   const PetscInt si[], const PetscInt sj[], const PetscReal sk[], const char name[], VIROM *rom)
{
  PetscInt      nb = 0, n;
  PetscReal    *K, *M, *D, *f, *o, *freq;
  VIContactInfo ci[4] = {{0}};

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < nc; j++) {
    ci[j].dim      = dims[j];
    ci[j].offset   = nb;
    ci[j].node_id  = j + 1;
    ci[j].frame[0] = ci[j].frame[4] = ci[j].frame[8] = 1;
    ci[j].area                                       = 1;
    nb += dims[j];
  }
  n = nb + nm;
  PetscCall(VIROMCreate(comm, rom));
  PetscCall(VIROMSetSizes(*rom, VI_CMS_CB_MASSLESS, nb, nm));
  PetscCall(VIROMGetMatrices(*rom, &K, &M, &D));
  for (PetscInt s = 0; s < ns; s++) AddSpring(n, K, si[s], sj[s], sk[s]);
  for (PetscInt i = 0; i < nm; i++) {
    M[(nb + i) * n + nb + i] = mass[i];
    D[(nb + i) * n + nb + i] = c * mass[i];
  }
  PetscCall(VIROMGetFrequencies(*rom, &freq));
  for (PetscInt i = 0; i < nm; i++) freq[i] = i + 1;
  PetscCall(VIROMSetContacts(*rom, nc, ci));
  PetscCall(PetscCalloc2(n, &f, n, &o));
  f[nb] = 1;
  o[nb] = 1;
  PetscCall(VIROMAddLoad(*rom, "drive", f));
  PetscCall(VIROMAddOutput(*rom, "mass", o));
  PetscCall(PetscFree2(f, o));
  PetscCall(VIROMSetUnits(*rom, "SI"));
  PetscCall(VIROMValidate(*rom, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The two-slider oscillator of issue 12 test 4: a unit mass x on a spring k = (2 pi)^2 to the ground and on two springs
   kt1 = 2 k, kt2 = k in series with Coulomb sliders, the tangential coordinates t1, t2 of two 2D contacts (n1, t1, n2, t2, x)
   whose normal coordinates sit on springs kn = 10 k; 5 % damping at the stuck frequency, 2 Hz. With mu = 0.5 and the
   preload N = 2 the sliders slip at |kt (t - x)| = 1: slider 1 at the amplitude 1 / kt1 = 0.0127, slider 2 at 0.0253. */
#define JENKINS_K (4 * PETSC_PI * PETSC_PI)
static PetscErrorCode BuildJenkins(MPI_Comm comm, VIROM *rom)
{
  const PetscInt  dims[] = {2, 2}, si[] = {0, 2, 1, 3, 4}, sj[] = {-1, -1, 4, 4, -1};
  const PetscReal k = JENKINS_K, sk[] = {10 * k, 10 * k, 2 * k, k, k}, mass[] = {1};

  PetscFunctionBeginUser;
  PetscCall(BuildSprings(comm, 2, dims, 1, mass, 2 * 0.05 * 4 * PETSC_PI, 5, si, sj, sk, "two-slider oscillator", rom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode JenkinsOptions(const char F[])
{
  PetscFunctionBeginUser;
  PetscCall(SetOption("-case_loads", "drive"));
  PetscCall(SetOption("-load_drive_type", "harmonic"));
  PetscCall(SetOption("-load_drive_amplitude", F));
  PetscCall(SetOption("-load_drive_frequency", "1"));
  PetscCall(SetOption("-contact_gap", "0"));
  PetscCall(SetOption("-contact_preload", "2"));
  PetscCall(SetOption("-contact_mu", "0.5"));
  PetscCall(SetOption("-hb_freq_range", "0.5,3"));
  PetscCall(SetOption("-hb_harmonics", "15"));
  PetscCall(SetOption("-hb_samples", "256"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Largest difference between the analytic Jacobian (and dR/dOmega) and central differences at (X, omega), relative to the
   largest entry; counts of the samples open, sticking and slipping over the contacts. */
static PetscErrorCode CheckJacobian(VIHB hb, PetscReal omega, PetscReal *err, PetscReal *err_omega, PetscInt counts[3])
{
  const PetscInt M = hb->M;
  PetscReal     *X, *J, *Rw, *Rp, *Rm, *R0, jmax = 0, wmax = 0, h;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc6(M, &X, M * M, &J, M, &Rw, M, &Rp, M, &Rm, M, &R0));
  PetscCall(PetscArraycpy(X, hb->X, M));
  PetscCall(VIHBResidual(hb, X, omega, R0, J, Rw));
  counts[0] = counts[1] = counts[2] = 0;
  for (PetscInt k = 0; k < hb->nc * hb->N; k++) counts[hb->d_t[k] == 0 ? 0 : hb->slip_t[k] ? 2 : 1]++;
  for (PetscInt i = 0; i < M * M; i++) jmax = PetscMax(jmax, PetscAbsReal(J[i]));
  for (PetscInt i = 0; i < M; i++) wmax = PetscMax(wmax, PetscAbsReal(Rw[i]));
  *err = *err_omega = 0;
  for (PetscInt c = 0; c < M; c++) {
    PetscReal x = X[c];
    h           = 1e-7 * PetscMax(PetscAbsReal(x), 1e-3);
    X[c]        = x + h;
    PetscCall(VIHBResidual(hb, X, omega, Rp, NULL, NULL));
    X[c] = x - h;
    PetscCall(VIHBResidual(hb, X, omega, Rm, NULL, NULL));
    X[c] = x;
    for (PetscInt r = 0; r < M; r++) *err = PetscMax(*err, PetscAbsReal((Rp[r] - Rm[r]) / (2 * h) - J[c * M + r]) / jmax);
  }
  h = 1e-7 * omega;
  PetscCall(VIHBResidual(hb, X, omega + h, Rp, NULL, NULL));
  PetscCall(VIHBResidual(hb, X, omega - h, Rm, NULL, NULL));
  for (PetscInt r = 0; r < M; r++) *err_omega = PetscMax(*err_omega, PetscAbsReal((Rp[r] - Rm[r]) / (2 * h) - Rw[r]) / wmax);
  PetscCall(VIHBResidual(hb, X, omega, R0, NULL, NULL));
  PetscCall(PetscFree6(X, J, Rw, Rp, Rm, R0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Case "friction" (issue 12 test 4, the parts inside the library):
  (a) the analytic Jacobian of the DLFT friction law against central differences, on a ROM with a 3D and a 2D contact
      (the disk's derivative), preloaded and with its normals moving, at harmonics where samples are open, stick and slip;
      condensed and full;
  (b) the two-slider oscillator in full stick (F = 0.1) along a branch 0.5-3 Hz: the exact linear FRF with the contacts
      as springs kt1, kt2 (tangential coordinates held) to 1e-8;
  (c) at micro-slip (F = 0.3, 2 Hz: slider 1 slips, slider 2 sticks) and gross slip (F = 3, 1.5 Hz: both slip) condensed = full
      to 1e-9; results equal on every rank. The stability of (b): stable with the largest multiplier 1 (a stuck slider's
      position is free); against the time stepping in tests/app/hb_friction.sh.
*/
static PetscErrorCode CaseFriction(MPI_Comm comm)
{
  PetscFunctionBeginUser;
  /* (a) */
  {
    const PetscInt  dims[] = {3, 2}, si[] = {0, 1, 2, 3, 4, 5, 0, 1}, sj[] = {5, 5, 6, 6, 6, 6, -1, -1};
    const PetscReal k = JENKINS_K, sk[] = {3 * k, 2 * k, 1.5 * k, 4 * k, k, k, k, 0.5 * k}, mass[] = {1, 0.5};
    VIROM           rom;
    PetscCall(BuildSprings(comm, 2, dims, 2, mass, 0.3, 8, si, sj, sk, "3D and 2D contacts", &rom));
    for (PetscInt cond = 1; cond >= 0; cond--) {
      VISystem  sys;
      VIHB      hb;
      PetscReal err, errw;
      PetscInt  counts[3];
      PetscCall(JenkinsOptions("1"));
      PetscCall(SetOption("-contact_mu", "0.3"));
      PetscCall(SetOption("-contact_preload", "0.5"));
      PetscCall(SetOption("-hb_harmonics", "4"));
      PetscCall(SetOption("-hb_samples", "64"));
      PetscCall(SetOption("-hb_condense", cond ? "true" : "false"));
      PetscCall(NewHB(comm, rom, &sys, &hb));
      PetscCall(VIHBOperatorsSetUp(hb, 2 * PETSC_PI * 1.3));
      /* harmonics of a few 0.01 on every unknown: the normals open and close, the tangents stick and slip in both directions */
      for (PetscInt i = 0; i < hb->M; i++) hb->X[i] = 0.03 * PetscSinReal(1.7 * i + 0.4) + (i < hb->m ? -0.002 : 0);
      PetscCall(CheckJacobian(hb, 2 * PETSC_PI * 1.3, &err, &errw, counts));
      PetscCheck(counts[0] > 0 && counts[1] > 0 && counts[2] > 0, comm, PETSC_ERR_PLIB,
                 "Jacobian check: samples open %" PetscInt_FMT ", stick %" PetscInt_FMT ", slip %" PetscInt_FMT ": expected some of each", counts[0],
                 counts[1], counts[2]);
      PetscCheck(err <= 1e-6 && errw <= 1e-6, comm, PETSC_ERR_PLIB, "friction Jacobian (%s): finite differences differ by %g (dR/dX), %g (dR/dOmega)",
                 cond ? "condensed" : "full", (double)err, (double)errw);
      PetscCall(PetscPrintf(comm,
                            "friction Jacobian, %s, samples open/stick/slip %" PetscInt_FMT "/%" PetscInt_FMT "/%" PetscInt_FMT
                            ": central differences within %.1e (dR/dX), %.1e (dR/dOmega) (<= 1e-6)\n",
                            cond ? "condensed" : "full", counts[0], counts[1], counts[2], (double)err, (double)errw));
      PetscCall(VIHBDestroy(&hb));
      PetscCall(VISystemDestroy(&sys));
      PetscCall(PetscOptionsClear(NULL));
    }
    PetscCall(VIROMDestroy(&rom));
  }
  /* (b) */
  {
    VIROM             rom;
    VISystem          sys;
    VIHB              hb;
    const VIHBBranch *br;
    PetscReal         errmax = 0, sum = 0, all, mumax = 0;
    PetscCall(BuildJenkins(comm, &rom));
    PetscCall(JenkinsOptions("0.1"));
    PetscCall(NewHB(comm, rom, &sys, &hb));
    PetscCall(VIHBContinue(hb));
    PetscCall(VIHBGetBranch(hb, &br));
    PetscCheck(!br->failed, comm, PETSC_ERR_PLIB, "full-stick branch failed: %s", br->message);
    for (PetscInt k = 0; k < br->np; k++) {
      const PetscReal  W = 2 * PETSC_PI * br->frequency_hz[k], kk = JENKINS_K, ar = 4 * kk - W * W, ai = 2 * 0.05 * 4 * PETSC_PI * W;
      const PetscReal  den = ar * ar + ai * ai, zr = 0.1 * ar / den, zi = -0.1 * ai / den, amp = PetscSqrtReal(zr * zr + zi * zi);
      const PetscReal *hc  = br->harmonics + k * br->nout * br->nh;
      PetscReal        err = PetscMax(PetscAbsReal(hc[1] - zr), PetscAbsReal(hc[2] + zi)) / amp;
      for (PetscInt c = 0; c < br->nh; c++)
        if (c != 1 && c != 2) err = PetscMax(err, PetscAbsReal(hc[c]) / amp);
      errmax = PetscMax(errmax, err);
      /* both sliders stick throughout: the multipliers are those of the mass on its springs and 1 for each stick position
         (any offset of a stuck slider is a periodic solution too): stable, not asymptotically */
      PetscCheck(br->stable[k] == 1 && PetscAbsReal(br->multiplier[k] - 1) <= 1e-9, comm, PETSC_ERR_PLIB,
                 "full-stick point %" PetscInt_FMT ": stability %" PetscInt_FMT ", largest multiplier %.12g, expected stable and 1", k, br->stable[k],
                 (double)br->multiplier[k]);
      mumax = PetscMax(mumax, PetscAbsReal(br->multiplier[k] - 1));
      sum += br->amplitude[k] + br->frequency_hz[k];
    }
    PetscCheck(errmax <= 1e-8, comm, PETSC_ERR_PLIB, "full stick: relative error %g against the linear FRF > 1e-8", (double)errmax);
    PetscCallMPI(MPI_Allreduce(&sum, &all, 1, MPIU_REAL, MPI_MAX, comm));
    PetscCheck(all == sum, comm, PETSC_ERR_PLIB, "friction branch differs between ranks");
    PetscCall(PetscPrintf(comm,
                          "full stick (F = 0.1): %" PetscInt_FMT " points 0.5-3 Hz, largest relative error against the linear FRF %.2e (<= 1e-8); "
                          "stable, largest multiplier 1 within %.1e (the stick positions)\n",
                          br->np, (double)errmax, (double)mumax));
    PetscCall(VIHBDestroy(&hb));
    PetscCall(VISystemDestroy(&sys));
    PetscCall(PetscOptionsClear(NULL));
    PetscCall(VIROMDestroy(&rom));
  }
  /* (c) */
  {
    const char     *F[]    = {"0.3", "3"};
    const PetscReal freq[] = {2.0, 1.5};
    VIROM           rom;
    PetscCall(BuildJenkins(comm, &rom));
    for (PetscInt level = 0; level < 2; level++) {
      PetscReal        qc[512], diff = 0, scale = 0, slip[2] = {0, 0}, amp = 0, sum, all;
      const PetscReal *q;
      PetscInt         n, nh;
      for (PetscInt cond = 1; cond >= 0; cond--) {
        VISystem  sys;
        VIHB      hb;
        PetscBool conv;
        PetscInt  its;
        PetscCall(JenkinsOptions(F[level]));
        PetscCall(SetOption("-hb_condense", cond ? "true" : "false"));
        PetscCall(NewHB(comm, rom, &sys, &hb));
        for (PetscInt k = 0; k <= 10; k++) {
          PetscReal fk = 1.0 + (freq[level] - 1.0) * k / 10;
          PetscCall(VIHBSolve(hb, fk, &conv, &its));
          PetscCheck(conv, comm, PETSC_ERR_PLIB, "friction: Newton failed at %g Hz (F = %s, condense %d)", (double)fk, F[level], (int)cond);
        }
        PetscCall(VIHBGetSolution(hb, &n, &nh, &q));
        if (cond) {
          PetscCall(PetscArraycpy(qc, q, n * nh));
          amp = PetscSqrtReal(q[n + n - 1] * q[n + n - 1] + q[2 * n + n - 1] * q[2 * n + n - 1]);
          for (PetscInt j = 0; j < 2; j++)
            for (PetscInt t = 0; t < hb->N; t++) slip[j] += hb->slip_t[j * hb->N + t] / hb->N;
        } else {
          for (PetscInt i = 0; i < n * nh; i++) {
            diff  = PetscMax(diff, PetscAbsReal(q[i] - qc[i]));
            scale = PetscMax(scale, PetscAbsReal(qc[i]));
          }
        }
        PetscCall(VIHBDestroy(&hb));
        PetscCall(VISystemDestroy(&sys));
        PetscCall(PetscOptionsClear(NULL));
      }
      PetscCheck(diff <= 1e-9 * scale, comm, PETSC_ERR_PLIB, "friction F = %s: condensed and full differ by %g of %g", F[level], (double)diff,
                 (double)scale);
      PetscCheck(level ? slip[0] > 0 && slip[1] > 0 : slip[0] > 0 && slip[1] == 0, comm, PETSC_ERR_PLIB,
                 "friction F = %s at %g Hz: slip fractions %g, %g do not show %s", F[level], (double)freq[level], (double)slip[0], (double)slip[1],
                 level ? "gross slip" : "micro-slip");
      sum = amp;
      PetscCallMPI(MPI_Allreduce(&sum, &all, 1, MPIU_REAL, MPI_MAX, comm));
      PetscCheck(all == sum, comm, PETSC_ERR_PLIB, "friction solution differs between ranks");
      PetscCall(PetscPrintf(comm, "%s (F = %s, %g Hz): first-harmonic amplitude %.8f, slip fractions %.3f, %.3f; condensed - full %.1e of %.3g\n",
                            level ? "gross slip" : "micro-slip", F[level], (double)freq[level], (double)amp, (double)slip[0], (double)slip[1],
                            (double)diff, (double)scale));
    }
    PetscCall(VIROMDestroy(&rom));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (K^-1)_cc of a ROM of n <= 64 coordinates by Gauss-Jordan elimination with partial pivoting (the library uses a Cholesky
   factorization); returns 0 when a pivot vanishes (K singular). */
static PetscReal CompliantDiagonal(PetscInt n, const PetscReal K[], PetscInt c)
{
  PetscReal A[64 * 128], x = 0;

  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < 2 * n; j++) A[i * 2 * n + j] = j < n ? K[i * n + j] : (j - n == i ? 1 : 0);
  for (PetscInt k = 0; k < n; k++) {
    PetscInt p = k;
    for (PetscInt i = k + 1; i < n; i++)
      if (PetscAbsReal(A[i * 2 * n + k]) > PetscAbsReal(A[p * 2 * n + k])) p = i;
    if (PetscAbsReal(A[p * 2 * n + k]) <= 1e-12 * PetscAbsReal(K[k * n + k])) return 0;
    for (PetscInt j = 0; j < 2 * n; j++) {
      PetscReal t      = A[k * 2 * n + j];
      A[k * 2 * n + j] = A[p * 2 * n + j];
      A[p * 2 * n + j] = t;
    }
    for (PetscInt i = 0; i < n; i++) {
      PetscReal f = A[i * 2 * n + k] / A[k * 2 * n + k];
      if (i == k) continue;
      for (PetscInt j = 0; j < 2 * n; j++) A[i * 2 * n + j] -= f * A[k * 2 * n + j];
    }
  }
  x = A[c * 2 * n + n + c] / A[c * 2 * n + c];
  return x;
}

/*
  Case "eps": the default dynamic Lagrangian parameters (docs/hb.md). Per contact coordinate c, min(4 / (K^-1)_cc, K_cc) (4
  times the static stiffness the contact sees, at most the diagonal), the normal law the normal coordinate's, the friction law
  the smaller of its tangents'; where K is singular (a free-floating ROM) the diagonal K_cc. On (a) the chain (the contact
  coordinate on springs 3c, 1.5c, 1.5c, 1.5c in series to a mass grounded by c, c = (2 pi)^2: 1 / (K^-1)_00 = 0.3 c
  exactly, 4 times that 1.2 c below K_00 = 3 c), (b) the 3D + 2D contact ROM of the friction Jacobian check against
  (K^-1)_cc by Gauss-Jordan elimination (the 2D contact's normal at half its diagonal, the 3D contact's at its diagonal), (c) a free-floating ROM (a
  massless contact coordinate joined to a mass by one spring: K singular); (d) -hb_eps_dl given: that value for every law.
*/
static PetscErrorCode CaseEps(MPI_Comm comm)
{
  const PetscReal c = 4 * PETSC_PI * PETSC_PI;

  PetscFunctionBeginUser;
  for (PetscInt r = 0; r < 4; r++) {
    const PetscInt  dims3[] = {3, 2}, si[] = {0, 1, 2, 3, 4, 5, 0, 1}, sj[] = {5, 5, 6, 6, 6, 6, -1, -1}, dims1[] = {1}, fi[] = {0}, fj[] = {1};
    const PetscReal k = JENKINS_K, sk[] = {3 * k, 2 * k, 1.5 * k, 4 * k, k, k, k, 0.5 * k}, mass[] = {1, 0.5}, fk[] = {k};
    VIROM           rom;
    VISystem        sys;
    VIHB            hb;
    PetscReal       err = 0;

    if (r == 0 || r == 3) PetscCall(BuildChain(comm, 4, PETSC_TRUE, &rom));
    if (r == 1) PetscCall(BuildSprings(comm, 2, dims3, 2, mass, 0.3, 8, si, sj, sk, "3D and 2D contacts", &rom));
    if (r == 2) PetscCall(BuildSprings(comm, 1, dims1, 1, mass, 0.3, 1, fi, fj, fk, "free-floating", &rom));
    PetscCall(StopOptions("5", "64"));
    if (r == 1) PetscCall(SetOption("-contact_mu", "0.3"));
    if (r == 3) PetscCall(SetOption("-hb_eps_dl", "12.5"));
    PetscCall(NewHB(comm, rom, &sys, &hb));
    for (PetscInt j = 0; j < hb->nc; j++) {
      const PetscInt o  = hb->offsets[j];
      PetscReal      en = 0, et = PETSC_MAX_REAL;
      for (PetscInt s = 0; s < hb->dims[j]; s++) {
        const PetscInt  cc = o + s;
        const PetscReal kd = hb->K[cc * hb->n + cc], ci = CompliantDiagonal(hb->n, hb->K, cc);
        PetscReal       e = ci > 0 ? PetscMin(4 / ci, kd) : kd;
        if (r == 0) e = 1.2 * c; /* closed form */
        if (r == 3) e = 12.5;
        if (s == 0)
          en = e;
        else
          et = PetscMin(et, e);
      }
      if (hb->dims[j] == 1) et = en;
      err = PetscMax(err, PetscMax(PetscAbsReal(hb->eps[j] - en) / en, PetscAbsReal(hb->eps_t[j] - et) / et));
      PetscCall(PetscPrintf(comm, "%s contact %" PetscInt_FMT " (dim %" PetscInt_FMT "): eps_DL %.10g, friction %.10g; expected %.10g, %.10g\n",
                            r == 0   ? "chain"
                            : r == 1 ? "3D + 2D"
                            : r == 2 ? "free-floating"
                                     : "given",
                            j, hb->dims[j], (double)hb->eps[j], (double)hb->eps_t[j], (double)en, (double)et));
    }
    PetscCheck(err <= 1e-12, comm, PETSC_ERR_PLIB, "eps_DL: relative difference %g from the expected (<= 1e-12)", (double)err);
    /* both sides of the min: the 2D contact's normal below its diagonal, the 3D contact's normal at it */
    if (r == 1)
      PetscCheck(hb->eps[1] < 0.5 * hb->K[3 * hb->n + 3] && hb->eps[0] == hb->K[0], comm, PETSC_ERR_PLIB,
                 "3D + 2D: expected the 2D contact's normal parameter below K_33 and the 3D contact's equal to K_00");
    PetscCall(VIHBDestroy(&hb));
    PetscCall(VISystemDestroy(&sys));
    PetscCall(VIROMDestroy(&rom));
    PetscCall(PetscOptionsClear(NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Case "write_stop": write the stop oscillator's ROM file (-chain: the chain's) for the app tests. */
static PetscErrorCode CaseWriteStop(MPI_Comm comm)
{
  VIROM     rom;
  char      path[PETSC_MAX_PATH_LEN] = "stop_rom.h5";
  PetscBool chain                    = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-rom", path, sizeof(path), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-chain", &chain, NULL));
  if (chain)
    PetscCall(BuildChain(comm, 4, PETSC_TRUE, &rom));
  else
    PetscCall(BuildStop(comm, &rom));
  PetscCall(VIROMWrite(rom, path));
  PetscCall(VIROMDestroy(&rom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      c[32] = "";
  PetscBool ok;

  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", c, sizeof(c), NULL));
  PetscCall(PetscStrcmp(c, "linear", &ok));
  if (ok) PetscCall(CaseLinear(PETSC_COMM_WORLD));
  PetscCall(PetscStrcmp(c, "stop", &ok));
  if (ok) PetscCall(CaseStop(PETSC_COMM_WORLD));
  PetscCall(PetscStrcmp(c, "condense", &ok));
  if (ok) PetscCall(CaseCondense(PETSC_COMM_WORLD));
  PetscCall(PetscStrcmp(c, "friction", &ok));
  if (ok) PetscCall(CaseFriction(PETSC_COMM_WORLD));
  PetscCall(PetscStrcmp(c, "eps", &ok));
  if (ok) PetscCall(CaseEps(PETSC_COMM_WORLD));
  PetscCall(PetscStrcmp(c, "write_stop", &ok));
  if (ok) PetscCall(CaseWriteStop(PETSC_COMM_WORLD));
  PetscCall(SlepcFinalize());
  return 0;
}
