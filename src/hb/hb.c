/* VIHB: the harmonic balance problem of one contact case — options, set-up from the case's loads and gaps, accessors. */
#include "hbimpl.h"
#include <petscblaslapack.h>
#include <unistd.h>

const char *const VIHBDirections[]     = {"up", "down", "VIHBDirection", "VI_HB_", NULL};
const char *const VIHBStabilityTypes[] = {"auto", "floquet", "transient", "VIHBStabilityType", "VI_HB_STABILITY_TYPE_", NULL};

PetscErrorCode VIHBCreate(MPI_Comm comm, VIHB *hb)
{
  VIHB b;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&b));
  b->comm              = comm;
  b->H                 = 10;
  b->N                 = 0;
  b->eps_dl            = 0;
  b->direction         = VI_HB_UP;
  b->step              = 0.02;
  b->step_min          = 1e-7;
  b->step_max          = 0.5;
  b->max_freq_step     = 0;
  b->max_points        = 2000;
  b->tol               = 1e-10;
  b->fold_tol          = 1e-3;
  b->max_it            = 30;
  b->target_it         = 4;
  b->condense          = PETSC_TRUE;
  b->stability         = PETSC_TRUE;
  b->stability_type    = VI_HB_STABILITY_TYPE_AUTO;
  b->stability_steps   = 0;
  b->stability_periods = 200;
  *hb                  = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBSetSystem(VIHB hb, VISystem sys)
{
  PetscFunctionBeginUser;
  hb->sys = sys;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBSetFromOptions(VIHB hb)
{
  PetscInt  nr = 3; /* room for one value too many: a third one is reported, not dropped */
  PetscReal range[3];
  PetscBool has_range, help;

  PetscFunctionBeginUser;
  PetscOptionsBegin(hb->comm, NULL, "Harmonic balance (vicms hb)", "VIHB");
  PetscCall(PetscOptionsInt("-hb_harmonics", "Harmonics H of the truncated Fourier series (seed 000 Eq. A.1)", "", hb->H, &hb->H, NULL));
  PetscCall(PetscOptionsBool("-hb_record_q", "Keep the harmonics of the ROM coordinates at every branch point (q_harmonics, for vicms fields)", "",
                             hb->record_q, &hb->record_q, NULL));
  PetscCall(
      PetscOptionsInt("-hb_samples", "Samples N per period of the alternating frequency-time scheme (>= 2H+1; 0: 8(2H+1))", "", hb->N, &hb->N, NULL));
  PetscCall(PetscOptionsReal("-hb_eps_dl",
                             "Dynamic Lagrangian parameter eps_DL (Eq. A.6) of the normal and friction laws; 0: per contact coordinate c, 4 times "
                             "the static stiffness the contact sees, 1 / (K^-1)_cc, at most K_cc (the normal law its normal coordinate's, "
                             "friction the smaller of its tangents')",
                             "", hb->eps_dl, &hb->eps_dl, NULL));
  range[0] = hb->freq_range[0];
  range[1] = hb->freq_range[1];
  PetscCall(PetscOptionsRealArray("-hb_freq_range", "Excitation frequency range f0,f1 (Hz) of the continuation", "", range, &nr, &has_range));
  if (has_range && nr == 2) {
    hb->freq_range[0] = range[0];
    hb->freq_range[1] = range[1];
  }
  PetscCall(PetscOptionsEnum("-hb_direction", "Direction of the continuation: up from f0, or down from f1", "", VIHBDirections,
                             (PetscEnum)hb->direction, (PetscEnum *)&hb->direction, NULL));
  PetscCall(
      PetscOptionsReal("-hb_start", "Frequency (Hz) of the first point (default f0 up, f1 down)", "", hb->f_start, &hb->f_start, &hb->has_start));
  PetscCall(PetscOptionsReal("-hb_step", "Initial pseudo-arclength step (scaled unknowns: frequency by the range, harmonics by the first solution)",
                             "", hb->step, &hb->step, NULL));
  PetscCall(PetscOptionsReal("-hb_step_min", "Smallest step: the continuation fails below it", "", hb->step_min, &hb->step_min, NULL));
  PetscCall(PetscOptionsReal("-hb_step_max", "Largest step", "", hb->step_max, &hb->step_max, NULL));
  PetscCall(PetscOptionsReal("-hb_max_freq_step", "Largest frequency change (Hz) between two points (0: 1/50 of the range)", "", hb->max_freq_step,
                             &hb->max_freq_step, NULL));
  PetscCall(PetscOptionsInt("-hb_max_points", "Most points of a branch", "", hb->max_points, &hb->max_points, NULL));
  PetscCall(PetscOptionsReal("-hb_tol", "Newton tolerance: largest residual relative to the largest force harmonic", "", hb->tol, &hb->tol, NULL));
  PetscCall(PetscOptionsInt("-hb_max_it", "Most Newton iterations per point", "", hb->max_it, &hb->max_it, NULL));
  PetscCall(PetscOptionsInt("-hb_target_it", "Newton iterations per point the step control aims at", "", hb->target_it, &hb->target_it, NULL));
  PetscCall(
      PetscOptionsBool("-hb_condense", "Condense the linear inner coordinates onto the contact harmonics", "", hb->condense, &hb->condense, NULL));
  PetscCall(PetscOptionsReal("-hb_fold_tol",
                             "Turning points closer than this (relative) in frequency are zig-zags of the sampled contact law, not reported", "",
                             hb->fold_tol, &hb->fold_tol, NULL));
  PetscCall(PetscOptionsBool("-hb_stability",
                             "Stability of every point (Floquet multipliers, or the time stepping's transient: -hb_stability_method)", "",
                             hb->stability, &hb->stability, NULL));
  PetscCall(PetscOptionsEnum("-hb_stability_method",
                             "How stability is decided: auto (Floquet multipliers of the exact motion where it is modelled, else a transient of the "
                             "case's time stepping from the solution), floquet (only where modelled), transient (the time stepping at every point)",
                             "", VIHBStabilityTypes, (PetscEnum)hb->stability_type, (PetscEnum *)&hb->stability_type, NULL));
  PetscCall(PetscOptionsInt("-hb_stability_steps",
                            "Time steps per period of the stability's transient, a multiple of 64 (0: the stepper's automatic step, at least "
                            "-hb_samples, rounded up to a multiple of 64)",
                            "", hb->stability_steps, &hb->stability_steps, NULL));
  PetscCall(PetscOptionsInt("-hb_stability_periods", "Most periods of the stability's transient; undecided after them", "", hb->stability_periods,
                            &hb->stability_periods, NULL));
  PetscOptionsEnd();
  PetscCheck(hb->stability_steps >= 0 && hb->stability_steps % 64 == 0, hb->comm, PETSC_ERR_USER_INPUT,
             "-hb_stability_steps: got %" PetscInt_FMT ", expected a multiple of 64 (the period's end must fall on the stepper's monitor, every 64 "
             "steps) or 0 (automatic)",
             hb->stability_steps);
  PetscCheck(hb->stability_periods >= 2, hb->comm, PETSC_ERR_USER_INPUT, "-hb_stability_periods: got %" PetscInt_FMT ", expected at least 2",
             hb->stability_periods);
  PetscCheck(hb->H >= 1, hb->comm, PETSC_ERR_USER_INPUT, "-hb_harmonics: got %" PetscInt_FMT ", expected at least 1", hb->H);
  /* the sizes below are products of H and N: far beyond any memory (VIHBSetUp estimates it) before they overflow */
  PetscCheck(hb->H <= PETSC_MAX_INT / 64, hb->comm, PETSC_ERR_USER_INPUT, "-hb_harmonics: got %" PetscInt_FMT ", expected at most %" PetscInt_FMT,
             hb->H, (PetscInt)(PETSC_MAX_INT / 64));
  if (!hb->N) hb->N = 8 * (2 * hb->H + 1);
  PetscCheck(hb->N >= 2 * hb->H + 1, hb->comm, PETSC_ERR_USER_INPUT,
             "-hb_samples: got %" PetscInt_FMT ", expected at least 2H + 1 = %" PetscInt_FMT " samples per period for H = %" PetscInt_FMT, hb->N,
             2 * hb->H + 1, hb->H);
  PetscCheck(hb->eps_dl >= 0, hb->comm, PETSC_ERR_USER_INPUT, "-hb_eps_dl: got %g, expected a positive value (or 0: automatic)", (double)hb->eps_dl);
  PetscCall(PetscOptionsHasHelp(NULL, &help)); /* -help lists the options: it needs no range */
  if (help && !has_range) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(has_range, hb->comm, PETSC_ERR_USER_INPUT, "-hb_freq_range f0,f1 (Hz) is required: the frequency range of the continuation");
  PetscCheck(nr == 2, hb->comm, PETSC_ERR_USER_INPUT, "-hb_freq_range: got %s numbers, expected 2 values, f0,f1 (Hz)",
             nr > 2 ? "more than two" : "one");
  PetscCheck(hb->freq_range[0] > 0 && hb->freq_range[1] > hb->freq_range[0], hb->comm, PETSC_ERR_USER_INPUT,
             "-hb_freq_range: got %g,%g, expected 0 < f0 < f1 (Hz)", (double)hb->freq_range[0], (double)hb->freq_range[1]);
  {
    /* the dynamic stiffness holds (H Omega)^2 M: it, and the range's width in rad/s (the continuation's scale), must be
       finite numbers */
    const PetscReal wmax = 2 * PETSC_PI * hb->H * hb->freq_range[1];
    PetscCheck(!PetscIsInfOrNanReal(wmax * wmax) && !PetscIsInfOrNanReal(hb->freq_range[0]), hb->comm, PETSC_ERR_USER_INPUT,
               "-hb_freq_range: got %g,%g: (2 pi H f1)^2 = (2 pi %" PetscInt_FMT " %g)^2 overflows; expected finite frequencies below %g Hz",
               (double)hb->freq_range[0], (double)hb->freq_range[1], hb->H, (double)hb->freq_range[1], (double)(1e150 / (2 * PETSC_PI * hb->H)));
  }
  if (!hb->has_start) hb->f_start = hb->freq_range[hb->direction == VI_HB_UP ? 0 : 1];
  PetscCheck(hb->f_start >= hb->freq_range[0] && hb->f_start <= hb->freq_range[1], hb->comm, PETSC_ERR_USER_INPUT,
             "-hb_start: got %g Hz, outside -hb_freq_range %g,%g: the range must bracket the start", (double)hb->f_start, (double)hb->freq_range[0],
             (double)hb->freq_range[1]);
  PetscCheck(hb->step > 0 && hb->step_min > 0 && hb->step_max >= hb->step && hb->step >= hb->step_min, hb->comm, PETSC_ERR_USER_INPUT,
             "-hb_step %g, -hb_step_min %g, -hb_step_max %g: expected 0 < min <= step <= max", (double)hb->step, (double)hb->step_min,
             (double)hb->step_max);
  PetscCheck(hb->fold_tol >= 0 && hb->fold_tol < 1, hb->comm, PETSC_ERR_USER_INPUT, "-hb_fold_tol: got %g, expected in [0, 1)", (double)hb->fold_tol);
  PetscCheck(hb->max_freq_step >= 0, hb->comm, PETSC_ERR_USER_INPUT, "-hb_max_freq_step: got %g, expected >= 0", (double)hb->max_freq_step);
  PetscCheck(hb->tol > 0 && hb->tol < 1, hb->comm, PETSC_ERR_USER_INPUT, "-hb_tol: got %g, expected in (0, 1)", (double)hb->tol);
  PetscCheck(hb->max_it >= 1 && hb->target_it >= 1 && hb->max_points >= 1, hb->comm, PETSC_ERR_USER_INPUT,
             "-hb_max_it, -hb_target_it, -hb_max_points: expected positive integers");
  if (!hb->max_freq_step) hb->max_freq_step = (hb->freq_range[1] - hb->freq_range[0]) / 50;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Harmonics of the case's force and imposed gaps, sampled over one period of its harmonic load: the load's phase, not
   its frequency, is kept (the frequency is the continuation's); a load or gap that is not periodic with that period, or
   has harmonics above H, is refused. */
static PetscErrorCode VIHBSampleCase(VIHB hb, PetscReal f)
{
  const PetscInt n = hb->n, nc = hb->nc, N = hb->N, nh = hb->nh;
  PetscReal     *ft, *gt, *rate, *coef, *chk, fmax = 0, gmax = 0, ferr = 0, gerr = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc5(N * n, &ft, N * PetscMax(nc, 1), &gt, PetscMax(nc, 1), &rate, PetscMax(n, nc) + 1, &coef, N, &chk));
  for (PetscInt k = 0; k < N; k++) {
    PetscReal t = (PetscReal)k / (N * f);
    PetscCall(VISystemEvaluateForce(hb->sys, t, hb->work));
    for (PetscInt i = 0; i < n; i++) ft[i * N + k] = hb->work[i];
    if (nc) {
      PetscCall(VISystemEvaluateGaps(hb->sys, t, hb->work, rate));
      for (PetscInt j = 0; j < nc; j++) gt[j * N + k] = hb->work[j];
    }
  }
  for (PetscInt i = 0; i < n; i++) VIHBAFTToFreq(&hb->aft, ft + i * N, hb->F + i, n);
  for (PetscInt j = 0; j < nc; j++) VIHBAFTToFreq(&hb->aft, gt + j * N, hb->G0 + j, nc);
  /* check between the samples: the series must reproduce the functions there */
  for (PetscInt k = 0; k < N; k++) {
    PetscReal t = (k + 0.5) / (N * f), th = 2 * PETSC_PI * (k + 0.5) / N;
    PetscCall(VISystemEvaluateForce(hb->sys, t, hb->work));
    for (PetscInt i = 0; i < n; i++) {
      PetscReal s = hb->F[i];
      for (PetscInt h = 1; h <= hb->H; h++) s += hb->F[(2 * h - 1) * n + i] * PetscCosReal(h * th) + hb->F[2 * h * n + i] * PetscSinReal(h * th);
      fmax = PetscMax(fmax, PetscAbsReal(hb->work[i]));
      ferr = PetscMax(ferr, PetscAbsReal(hb->work[i] - s));
    }
    if (nc) {
      PetscCall(VISystemEvaluateGaps(hb->sys, t, hb->work, rate));
      for (PetscInt j = 0; j < nc; j++) {
        PetscReal s = hb->G0[j];
        for (PetscInt h = 1; h <= hb->H; h++)
          s += hb->G0[(2 * h - 1) * nc + j] * PetscCosReal(h * th) + hb->G0[2 * h * nc + j] * PetscSinReal(h * th);
        gmax = PetscMax(gmax, PetscAbsReal(hb->work[j]));
        gerr = PetscMax(gerr, PetscAbsReal(hb->work[j] - s));
      }
    }
  }
  (void)nh;
  PetscCall(PetscFree5(ft, gt, rate, coef, chk));
  PetscCheck(ferr <= 1e-8 * fmax, hb->comm, PETSC_ERR_USER_INPUT,
             "hb: the case's force is not a Fourier series of H = %" PetscInt_FMT
             " harmonics of the period 1/%g s of its harmonic load (error %g of %g "
             "between samples): every load must be constant or harmonic with the same frequency",
             hb->H, (double)f, (double)ferr, (double)fmax);
  PetscCheck(gerr <= 1e-8 * PetscMax(gmax, 1e-300) || gerr == 0, hb->comm, PETSC_ERR_USER_INPUT,
             "hb: the imposed gaps are not periodic with the period 1/%g s of the harmonic load (or have harmonics above H = %" PetscInt_FMT
             "): error %g of %g",
             (double)f, hb->H, (double)gerr, (double)gmax);
  hb->f_scale = fmax;
  PetscCheck(fmax > 0, hb->comm, PETSC_ERR_USER_INPUT, "hb: the case's force is zero: nothing drives the response");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The default dynamic Lagrangian parameter is this multiple of the static stiffness a contact coordinate sees (docs/hb.md:
   the plate's branches run for multiples 1-8, 23 of 24 each, and fail from 18 on the fine plate at H = 20; Newton at
   fixed frequencies up the stop oscillator's resonance needs 4) */
#define VI_HB_EPS_FACTOR 4.0

/*
  The default dynamic Lagrangian parameter of each contact coordinate c < nct (the contact coordinates come first), from the
  stiffness the contact sees: the static condensation of K onto c, 1 / (K^-1)_cc (every other coordinate free: the
  stiffness of the structure behind the contact, e.g. the tip stiffness of a cantilever), times VI_HB_EPS_FACTOR (the
  harmonics above the first resonance see a stiffer structure than the static one), and at most the diagonal K_cc (the
  limit of that stiffness at high frequency; at a massless boundary node the local stiffness of its elements, orders of
  magnitude above the structure's). docs/hb.md says why, with numbers. From one Cholesky factorization of the small dense
  K (LAPACK: the same input and so the same result on every rank). When K is not numerically positive definite (a
  free-floating ROM: a pivot below 1e-12 of its diagonal entry) the diagonal K_cc is used (1 where it is not positive).
*/
static PetscErrorCode VIHBContactStiffness(VIHB hb, const PetscReal K[], PetscInt nct, PetscReal kc[])
{
  const PetscInt n = hb->n;
  PetscReal     *A, *B, ratio = PETSC_MAX_REAL, kmin = PETSC_MAX_REAL, kmax = 0, rmin = PETSC_MAX_REAL, rmax = 0;
  PetscBLASInt   bn, bk, info;
  PetscInt       worst = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(nct, &bk));
  PetscCall(PetscMalloc2(n * n, &A, n * nct, &B));
  PetscCall(PetscArraycpy(A, K, n * n)); /* symmetric: row- and column-major alike */
  PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bn, A, &bn, &info));
  if (!info)
    for (PetscInt i = 0; i < n; i++) {
      PetscReal r = K[i * n + i] > 0 ? A[i * n + i] * A[i * n + i] / K[i * n + i] : 0;
      if (r < ratio) {
        ratio = r;
        worst = i;
      }
    }
  if (!info && ratio > 1e-12) {
    PetscCall(PetscArrayzero(B, n * nct));
    for (PetscInt c = 0; c < nct; c++) B[c * n + c] = 1;
    PetscCallBLAS("LAPACKpotrs", LAPACKpotrs_("L", &bn, &bk, A, &bn, B, &bn, &info));
    for (PetscInt c = 0; c < nct; c++) {
      const PetscReal ks = 1 / B[c * n + c];
      kc[c]              = PetscMin(VI_HB_EPS_FACTOR * ks, K[c * n + c]);
      kmin               = PetscMin(kmin, ks);
      kmax               = PetscMax(kmax, ks);
      rmin               = PetscMin(rmin, kc[c] / K[c * n + c]);
      rmax               = PetscMax(rmax, kc[c] / K[c * n + c]);
    }
    PetscCall(PetscInfo(NULL,
                        "hb: eps_DL per contact coordinate: %g times the static condensation of K, 1 / (K^-1)_cc = %g to %g over %" PetscInt_FMT
                        " coordinates, at most the diagonal K_cc: %g to %g of K_cc\n",
                        (double)VI_HB_EPS_FACTOR, (double)kmin, (double)kmax, nct, (double)rmin, (double)rmax));
  } else {
    for (PetscInt c = 0; c < nct; c++) kc[c] = K[c * n + c] > 0 ? K[c * n + c] : 1.0;
    if (info)
      PetscCall(PetscInfo(NULL,
                          "hb: K is not positive definite (LAPACK potrf: info %d; a free-floating ROM?): eps_DL per contact coordinate is the "
                          "diagonal K_cc, not derived from the static condensation 1 / (K^-1)_cc\n",
                          (int)info));
    else
      PetscCall(PetscInfo(NULL,
                          "hb: K is singular to working precision (Cholesky pivot %g of the diagonal at coordinate %" PetscInt_FMT
                          "; a free-floating ROM?): eps_DL per contact coordinate is the diagonal K_cc, not derived from the "
                          "static condensation 1 / (K^-1)_cc\n",
                          (double)ratio, worst));
  }
  PetscCall(PetscFree2(A, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Refuse sizes whose arrays cannot be held, before any is allocated: the memory the branch needs per rank, estimated in
  floating point (the products of H, N and the unknowns overflow PetscInt long before), against the physical memory of
  the node, and the largest array against what PetscInt can index. Every rank of the group holds the same arrays.
*/
static PetscErrorCode VIHBCheckMemory(VIHB hb)
{
  const double nh = 2.0 * hb->H + 1, N = hb->N, M = (double)hb->m * nh + 1, n = hb->n, nb = hb->nb, nm = hb->nm, nc = hb->nc, d = hb->dmax,
               W = 2 * d * nh, nt = PetscMax(d - 1, 1);
  /* in doubles: the Jacobian and the bordered matrix of the corrector (M + 1)^2 each; the AFT basis nh x N and the
     projector nh^2; the contact law's derivative d nh x W and, with friction, its samples N nt W; the operators per
     harmonic, real (2m)^2 and complex (two doubles) S_II, S_IB, S_BI; the samples of the contacts; harmonics of q, F */
  const double words = 2 * M * M + nh * N + nh * nh + d * nh * W + (hb->friction ? N * nt * W : 0) +
                       hb->H * (4.0 * hb->m * hb->m + 2 * (nm * nm + 2 * nm * nb)) + 5 * PetscMax(nc, 1) * N + 3 * n * nh;
  const double largest = PetscMax(PetscMax(M * M, nh * N), hb->friction ? N * nt * W : 0);
  const double bytes = 8 * words, node = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);

  PetscFunctionBeginUser;
  PetscCheck(node <= 0 || bytes <= node, hb->comm, PETSC_ERR_USER_INPUT,
             "hb: -hb_harmonics %" PetscInt_FMT " with -hb_samples %" PetscInt_FMT
             " (%.0f unknowns) needs about %.3g GB of memory per rank, more than "
             "the %.3g GB of this node: lower -hb_harmonics or -hb_samples",
             hb->H, hb->N, M - 1, bytes / 1e9, node / 1e9);
  PetscCheck(largest < (double)PETSC_MAX_INT, hb->comm, PETSC_ERR_USER_INPUT,
             "hb: -hb_harmonics %" PetscInt_FMT " with -hb_samples %" PetscInt_FMT " (%.0f unknowns) needs an array of %.3g entries, more than the "
             "%" PetscInt_FMT " this build's PetscInt can index: lower -hb_harmonics or -hb_samples",
             hb->H, hb->N, M - 1, largest, (PetscInt)PETSC_MAX_INT);
  PetscCall(PetscInfo(NULL, "hb: about %.3g MB of memory per rank for the harmonic balance\n", bytes / 1e6));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBSetUp(VIHB hb)
{
  VIContactSet     set;
  const PetscReal *ov;
  const PetscReal *K, *Mm, *D;
  PetscReal        f;
  PetscInt         nloads;
  VIExciteType     type;
  VICMSType        method;

  PetscFunctionBeginUser;
  if (hb->setup) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(hb->sys, hb->comm, PETSC_ERR_ORDER, "Call VIHBSetSystem() first");
  PetscCall(VISystemGetROM(hb->sys, &hb->rom));
  PetscCall(VIROMGetNumLoads(hb->rom, &nloads));
  PetscCheck(nloads > 0, hb->comm, PETSC_ERR_USER_INPUT,
             "hb: the ROM has no loads: harmonic balance needs a harmonic load (ROM dataset loads/<name>)");
  PetscCall(VISystemGetLoadFrequency(hb->sys, 0, &f, &type));
  PetscCheck(type == VI_EXCITE_HARMONIC, hb->comm, PETSC_ERR_USER_INPUT,
             "hb: the case has no harmonic load (its first load with a frequency is %s): give -case_loads NAME -load_NAME_type harmonic",
             type == VI_EXCITE_CONSTANT ? "none" : VIExciteTypes[type]);
  PetscCall(VISystemGetSizes(hb->sys, &hb->n, &hb->nb, &hb->nm));
  PetscCall(VIROMGetMethod(hb->rom, &method, &hb->massless));
  PetscCall(VISystemGetLinearOperators(hb->sys, &K, &Mm, &D)); /* D scaled by -case_damping_scale */
  hb->K    = K;
  hb->Mass = Mm;
  hb->D    = D;
  PetscCall(VISystemGetContactSet(hb->sys, &set, &ov));
  hb->nc      = set.num_contacts;
  hb->dims    = set.dims;
  hb->mu      = set.mu;
  hb->preload = set.preload;
  PetscCall(PetscMalloc3(hb->nc + 1, &hb->offsets, hb->nc + 1, &hb->eps, hb->nc + 1, &hb->eps_t));
  hb->dmax     = 1;
  hb->friction = PETSC_FALSE;
  {
    PetscInt *off = hb->offsets, o = 0;
    for (PetscInt j = 0; j < hb->nc; j++) {
      off[j] = o;
      o += set.dims[j];
      hb->dmax = PetscMax(hb->dmax, set.dims[j]);
      if (set.dims[j] > 1 && set.mu[j] > 0) hb->friction = PETSC_TRUE;
      PetscCheck(!VIContactSetIsBilateral(&set, j), hb->comm, PETSC_ERR_USER_INPUT,
                 "hb: contact %" PetscInt_FMT " is a bilateral row (ROM contact/kinds): harmonic balance takes unilateral contacts only; use a "
                 "time integration (-step_type nsgalpha, moreau or leapfrog)",
                 j);
      PetscCheck(set.dims[j] == 1 || (ov[2 * j] == 0 && ov[2 * j + 1] == 0), hb->comm, PETSC_ERR_USER_INPUT,
                 "hb: contact %" PetscInt_FMT " has a moving obstacle: not supported by harmonic balance", j);
    }
    off[hb->nc] = o;
  }
  if (hb->nc) {
    const PetscInt *off = hb->offsets;
    PetscReal      *kc;
    PetscCall(PetscMalloc1(off[hb->nc], &kc));
    if (hb->eps_dl > 0)
      for (PetscInt c = 0; c < off[hb->nc]; c++) kc[c] = hb->eps_dl;
    else
      PetscCall(VIHBContactStiffness(hb, K, off[hb->nc], kc));
    for (PetscInt j = 0; j < hb->nc; j++) {
      hb->eps[j] = kc[off[j]];
      /* one value for both tangents, so that a slipping contact moves opposite to its force on the round disk: the smaller
         of the two */
      hb->eps_t[j] = set.dims[j] == 1 ? hb->eps[j] : PETSC_MAX_REAL;
      for (PetscInt t = off[j] + 1; t < off[j + 1]; t++) hb->eps_t[j] = PetscMin(hb->eps_t[j], kc[t]);
    }
    PetscCall(PetscFree(kc));
  }
  if (!hb->nb) hb->condense = PETSC_FALSE;
  hb->nh = 2 * hb->H + 1;
  hb->m  = hb->condense ? hb->nb : hb->n;
  hb->M  = hb->m * hb->nh;
  PetscCall(VIHBCheckMemory(hb));
  PetscCall(VIHBAFTCreate(hb->H, hb->N, &hb->aft));
  PetscCall(PetscCalloc4(hb->n * hb->nh, &hb->F, PetscMax(hb->nc, 1) * hb->nh, &hb->G0, 12 * hb->n + 3 * hb->nh + 1024, &hb->work, hb->nh * hb->nh,
                         &hb->C));
  PetscCall(PetscCalloc5(hb->M + 1, &hb->X, hb->M + 1, &hb->R, (hb->M + 1) * (hb->M + 1), &hb->J, hb->M + 1, &hb->Romega, hb->n * hb->nh, &hb->q));
  PetscCall(PetscCalloc3(hb->M + 1, &hb->cont_t, hb->M + 1, &hb->cont_Y, hb->M + 1, &hb->cont_Yprev));
  PetscCall(PetscCalloc5(PetscMax(hb->nc, 1) * hb->N, &hb->r_t, PetscMax(hb->nc, 1) * hb->N, &hb->g_t, PetscMax(hb->nc, 1) * hb->N, &hb->lam_t,
                         PetscMax(hb->nc, 1) * hb->N, &hb->d_t, PetscMax(hb->nc, 1) * hb->N, &hb->slip_t));
  {
    const PetscInt d = hb->dmax, nt = PetscMax(d - 1, 1), W = 2 * d * hb->nh, N = hb->N;
    PetscCall(PetscCalloc7(W, &hb->law_in, 2 * d * N, &hb->law_t, nt * N, &hb->law_lam, d * hb->nh, &hb->law_out, d * hb->nh * W, &hb->law_D,
                           hb->friction ? N * nt * W : 1, &hb->law_dlam, 3 * nt * W + W, &hb->law_dw));
  }
  PetscCall(VIHBSampleCase(hb, f));
  hb->f_case = f;
  PetscCall(PetscInfo(
      NULL, "hb: n = %" PetscInt_FMT ", %" PetscInt_FMT " contacts, H = %" PetscInt_FMT ", N = %" PetscInt_FMT ", %" PetscInt_FMT " unknowns\n",
      hb->n, hb->nc, hb->H, hb->N, hb->M));
  hb->setup = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBGetBranch(VIHB hb, const VIHBBranch **branch)
{
  PetscFunctionBeginUser;
  *branch = &hb->branch;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBGetSolution(VIHB hb, PetscInt *n, PetscInt *nh, const PetscReal **q)
{
  PetscFunctionBeginUser;
  PetscCall(VIHBRecover(hb, hb->X, hb->q));
  if (n) *n = hb->n;
  if (nh) *nh = hb->nh;
  *q = hb->q;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBDestroy(VIHB *hb)
{
  VIHB b;

  PetscFunctionBeginUser;
  if (!hb || !*hb) PetscFunctionReturn(PETSC_SUCCESS);
  b = *hb;
  PetscCall(VIHBOperatorsDestroy(b));
  PetscCall(VIHBAFTDestroy(&b->aft));
  PetscCall(PetscFree3(b->offsets, b->eps, b->eps_t));
  PetscCall(PetscFree4(b->F, b->G0, b->work, b->C));
  PetscCall(PetscFree5(b->X, b->R, b->J, b->Romega, b->q));
  PetscCall(PetscFree(b->orbit));
  PetscCall(PetscFree3(b->cont_t, b->cont_Y, b->cont_Yprev));
  PetscCall(PetscFree5(b->r_t, b->g_t, b->lam_t, b->d_t, b->slip_t));
  PetscCall(PetscFree7(b->law_in, b->law_t, b->law_lam, b->law_out, b->law_D, b->law_dlam, b->law_dw));
  {
    VIHBBranch *br = &b->branch;
    PetscCall(PetscFree6(br->frequency_hz, br->harmonics, br->amplitude, br->min, br->max, br->mean));
    PetscCall(PetscFree4(br->closed_fraction, br->slip_fraction, br->force_max, br->multiplier));
    PetscCall(PetscFree4(br->iterations, br->stable, br->stability_method, br->kind));
    PetscCall(PetscFree4(br->fold_hz, br->fold_amplitude, br->multiplier_arg, br->change_hz));
    PetscCall(PetscFree(br->q_harmonics));
  }
  PetscCall(PetscFree(b));
  *hb = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The hb module's options (src/sys/options.c's registry: names, the type each is read with, an enum's choices) */
static const VIOptionEntry VIHBOptions[] = {
    {"-hb_harmonics", VI_OPTION_INT, NULL},
    {"-hb_samples", VI_OPTION_INT, NULL},
    {"-hb_record_q", VI_OPTION_BOOL, NULL},
    {"-hb_eps_dl", VI_OPTION_REAL, NULL},
    {"-hb_freq_range", VI_OPTION_REALS, NULL},
    {"-hb_direction", VI_OPTION_ENUM, VIHBDirections},
    {"-hb_start", VI_OPTION_REAL, NULL},
    {"-hb_step", VI_OPTION_REAL, NULL},
    {"-hb_step_min", VI_OPTION_REAL, NULL},
    {"-hb_step_max", VI_OPTION_REAL, NULL},
    {"-hb_max_freq_step", VI_OPTION_REAL, NULL},
    {"-hb_max_points", VI_OPTION_INT, NULL},
    {"-hb_tol", VI_OPTION_REAL, NULL},
    {"-hb_max_it", VI_OPTION_INT, NULL},
    {"-hb_target_it", VI_OPTION_INT, NULL},
    {"-hb_condense", VI_OPTION_BOOL, NULL},
    {"-hb_stability", VI_OPTION_BOOL, NULL},
    {"-hb_stability_method", VI_OPTION_ENUM, VIHBStabilityTypes},
    {"-hb_stability_steps", VI_OPTION_INT, NULL},
    {"-hb_stability_periods", VI_OPTION_INT, NULL},
    {"-hb_fold_tol", VI_OPTION_REAL, NULL},
    {"-hb_output", VI_OPTION_STRING, NULL},
};

PetscErrorCode VIHBRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRegisterTable("hb", VIHBOptions, sizeof(VIHBOptions) / sizeof(VIHBOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
