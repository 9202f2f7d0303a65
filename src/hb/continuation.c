/* Newton on the harmonics and pseudo-arclength continuation in the excitation frequency, with step control, turning
   points, stability and the record of every point. */
#include "hbimpl.h"
#include <petscblaslapack.h>

/* A point is converged when its residual is below -hb_tol (relative to the largest force harmonic) and the last Newton
   correction was below this fraction of the solution (quadratic convergence then leaves an error of its square), or
   the residual is a thousand times below the tolerance (the piecewise linear contact law solved exactly). */
#define VI_HB_STEP_TOL 1e-6

/* Solve A x = b in place (A column-major, k x k, overwritten). */
static PetscErrorCode VIHBDenseSolve(VIHB hb, PetscInt k, PetscReal A[], PetscReal b[], PetscBool *ok)
{
  PetscBLASInt bk, one = 1, info, *piv;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(k, &bk));
  PetscCall(PetscMalloc1(k, &piv));
  PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bk, &one, A, &bk, piv, b, &bk, &info));
  PetscCall(PetscFree(piv));
  *ok = info == 0 ? PETSC_TRUE : PETSC_FALSE;
  (void)hb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal VIHBNorm2(PetscInt k, const PetscReal x[])
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < k; i++) s += x[i] * x[i];
  return PetscSqrtReal(s);
}

/* The largest modulus, infinite when an entry is not a finite number (PetscMax would skip a NaN, and a NaN residual
   would then pass for converged). */
static PetscReal VIHBNormInf(PetscInt k, const PetscReal x[])
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < k; i++) {
    if (PetscIsInfOrNanReal(x[i])) return PETSC_INFINITY;
    s = PetscMax(s, PetscAbsReal(x[i]));
  }
  return s;
}

/* Whether the state (X, Omega) and its residual are finite numbers, their 2-norms included; a state that is not (an overflow: a load or a
   frequency too large for double precision) is no solution, however small its residual looks, and is remembered as the
   reason of the failure that follows. */
static PetscBool VIHBFinite(VIHB hb, PetscReal omega)
{
  /* the 2-norms too: the backtracking compares them, and their squares overflow from 1e154 on */
  PetscBool finite = (PetscIsInfOrNanReal(omega) || PetscIsInfOrNanReal(VIHBNorm2(hb->M, hb->R)) || PetscIsInfOrNanReal(VIHBNorm2(hb->M, hb->X)))
                         ? PETSC_FALSE
                         : PETSC_TRUE;
  if (!finite) hb->nonfinite = PETSC_TRUE;
  return finite;
}

PetscErrorCode VIHBSolve(VIHB hb, PetscReal f, PetscBool *converged, PetscInt *iterations)
{
  const PetscInt M     = hb->M;
  PetscReal      omega = 2 * PETSC_PI * f, step = PETSC_MAX_REAL, rnorm, r2, *dX, *X0;
  PetscBool      ok;

  PetscFunctionBeginUser;
  PetscCall(VIHBSetUp(hb));
  PetscCall(PetscMalloc2(M + 1, &dX, M + 1, &X0));
  *converged  = PETSC_FALSE;
  *iterations = hb->max_it;
  PetscCall(VIHBResidual(hb, hb->X, omega, hb->R, hb->J, NULL));
  rnorm = VIHBNormInf(M, hb->R);
  for (PetscInt it = 0; it <= hb->max_it; it++) {
    PetscReal lambda = 1;
    if (!VIHBFinite(hb, omega)) break;
    if (rnorm <= hb->tol * hb->f_scale && (step <= VI_HB_STEP_TOL || rnorm <= 1e-3 * hb->tol * hb->f_scale)) {
      *converged  = PETSC_TRUE;
      *iterations = it;
      break;
    }
    if (it == hb->max_it) break;
    for (PetscInt i = 0; i < M; i++) dX[i] = -hb->R[i];
    PetscCall(VIHBDenseSolve(hb, M, hb->J, dX, &ok));
    if (!ok) break;
    /* backtracking on the residual norm: the contact law is only piecewise smooth, and full steps may cycle between
       contact states far from the solution */
    PetscCall(PetscArraycpy(X0, hb->X, M));
    r2 = VIHBNorm2(M, hb->R);
    for (PetscInt b = 0; b < 12; b++, lambda /= 2) {
      for (PetscInt i = 0; i < M; i++) hb->X[i] = X0[i] + lambda * dX[i];
      PetscCall(VIHBResidual(hb, hb->X, omega, hb->R, NULL, NULL));
      if (VIHBNorm2(M, hb->R) < (1 - 1e-4 * lambda) * r2) break;
    }
    PetscCall(VIHBResidual(hb, hb->X, omega, hb->R, hb->J, NULL));
    rnorm = VIHBNormInf(M, hb->R);
    step  = lambda * VIHBNormInf(M, dX) / PetscMax(VIHBNormInf(M, hb->X), 1e-300);
    PetscCall(PetscInfo(NULL, "hb: %g Hz, Newton %" PetscInt_FMT ": residual %g (tolerance %g), step %g (damping %g)\n", (double)f, it + 1,
                        (double)rnorm, (double)(hb->tol * hb->f_scale), (double)step, (double)lambda));
  }
  hb->have_solution = *converged;
  PetscCall(PetscFree2(dX, X0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The extreme of y(theta) = a0 + sum_h a_h cos(h theta) + b_h sin(h theta) near the sample theta0: Newton on y' = 0
   within one sample spacing (the samples alone miss the peak of a harmonic by up to 1 - cos(pi / N) of its amplitude). */
static PetscReal VIHBRefineExtreme(PetscInt H, const PetscReal c[], PetscReal theta0, PetscReal spacing, PetscReal sample)
{
  PetscReal th = theta0, y = sample;
  for (PetscInt it = 0; it < 8; it++) {
    PetscReal d1 = 0, d2 = 0;
    for (PetscInt h = 1; h <= H; h++) {
      PetscReal ch = PetscCosReal(h * th), sh = PetscSinReal(h * th), a = c[2 * h - 1], b = c[2 * h];
      d1 += h * (-a * sh + b * ch);
      d2 -= h * h * (a * ch + b * sh);
    }
    if (d2 == 0) break;
    th -= d1 / d2;
    if (PetscAbsReal(th - theta0) > spacing) return sample;
  }
  y = c[0];
  for (PetscInt h = 1; h <= H; h++) y += c[2 * h - 1] * PetscCosReal(h * th) + c[2 * h] * PetscSinReal(h * th);
  return y;
}

PetscErrorCode VIHBBranchReserve(VIHB hb, PetscInt cap)
{
  VIHBBranch *br = &hb->branch;
  PetscInt    nout, nc = hb->nc, nh = hb->nh;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetNumOutputs(hb->rom, &nout));
  if (cap > hb->cap) {
    VIHBBranch nb = *br;
    if (hb->record_q) {
      /* grown in place: its points kept */
      PetscCall(PetscRealloc(sizeof(PetscReal) * cap * hb->n * nh, &br->q_harmonics));
      nb.q_harmonics = br->q_harmonics;
    }
    PetscCall(PetscMalloc6(cap, &nb.frequency_hz, cap * nout * nh + 1, &nb.harmonics, cap * nout + 1, &nb.amplitude, cap * nout + 1, &nb.min,
                           cap * nout + 1, &nb.max, cap * nout + 1, &nb.mean));
    PetscCall(PetscMalloc4(cap * nc + 1, &nb.closed_fraction, cap * nc + 1, &nb.slip_fraction, cap * nc + 1, &nb.force_max, cap, &nb.multiplier));
    PetscCall(PetscMalloc4(cap, &nb.iterations, cap, &nb.stable, cap, &nb.stability_method, cap, &nb.kind));
    PetscCall(PetscMalloc4(cap, &nb.fold_hz, cap * nout + 1, &nb.fold_amplitude, cap, &nb.multiplier_arg, cap, &nb.change_hz));
    if (br->np) {
      PetscInt np = br->np;
      PetscCall(PetscArraycpy(nb.frequency_hz, br->frequency_hz, np));
      PetscCall(PetscArraycpy(nb.harmonics, br->harmonics, np * nout * nh));
      PetscCall(PetscArraycpy(nb.amplitude, br->amplitude, np * nout));
      PetscCall(PetscArraycpy(nb.min, br->min, np * nout));
      PetscCall(PetscArraycpy(nb.max, br->max, np * nout));
      PetscCall(PetscArraycpy(nb.mean, br->mean, np * nout));
      PetscCall(PetscArraycpy(nb.closed_fraction, br->closed_fraction, np * nc));
      PetscCall(PetscArraycpy(nb.slip_fraction, br->slip_fraction, np * nc));
      PetscCall(PetscArraycpy(nb.force_max, br->force_max, np * nc));
      PetscCall(PetscArraycpy(nb.multiplier, br->multiplier, np));
      PetscCall(PetscArraycpy(nb.iterations, br->iterations, np));
      PetscCall(PetscArraycpy(nb.stable, br->stable, np));
      PetscCall(PetscArraycpy(nb.stability_method, br->stability_method, np));
      PetscCall(PetscArraycpy(nb.kind, br->kind, np));
      PetscCall(PetscArraycpy(nb.fold_hz, br->fold_hz, np));
      PetscCall(PetscArraycpy(nb.fold_amplitude, br->fold_amplitude, np * nout));
      PetscCall(PetscArraycpy(nb.multiplier_arg, br->multiplier_arg, np));
      PetscCall(PetscArraycpy(nb.change_hz, br->change_hz, np));
    }
    PetscCall(PetscFree6(br->frequency_hz, br->harmonics, br->amplitude, br->min, br->max, br->mean));
    PetscCall(PetscFree4(br->closed_fraction, br->slip_fraction, br->force_max, br->multiplier));
    PetscCall(PetscFree4(br->iterations, br->stable, br->stability_method, br->kind));
    PetscCall(PetscFree4(br->fold_hz, br->fold_amplitude, br->multiplier_arg, br->change_hz));
    *br     = nb;
    hb->cap = cap;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The outputs at the solution X: per output its harmonics hc (nh each), and over the samples of a period its min, max,
   mean and amplitude (half peak-to-peak) (entries o of lo, hi, mean, amp). */
static PetscErrorCode VIHBOutputs(VIHB hb, PetscInt nout, PetscReal harmonics[], PetscReal lo_out[], PetscReal hi_out[], PetscReal mean[],
                                  PetscReal amp[])
{
  const PetscInt nh = hb->nh, N = hb->N;
  PetscReal     *y;

  PetscFunctionBeginUser;
  PetscCall(VIHBRecover(hb, hb->X, hb->q));
  PetscCall(PetscMalloc1(N, &y));
  for (PetscInt o = 0; o < nout; o++) {
    const char      *name;
    const PetscReal *ov;
    PetscReal       *hc = harmonics + o * nh, lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL;
    PetscCall(VIROMGetOutput(hb->rom, o, &name, &ov));
    for (PetscInt c = 0; c < nh; c++) {
      PetscReal s = 0;
      for (PetscInt i = 0; i < hb->n; i++) s += ov[i] * hb->q[c * hb->n + i];
      hc[c] = s;
    }
    VIHBAFTToTime(&hb->aft, hc, 1, y);
    {
      PetscInt  ilo = 0, ihi = 0;
      PetscReal sp = 2 * PETSC_PI / N;
      for (PetscInt t = 0; t < N; t++) {
        if (y[t] < y[ilo]) ilo = t;
        if (y[t] > y[ihi]) ihi = t;
      }
      lo = PetscMin(y[ilo], VIHBRefineExtreme(hb->H, hc, ilo * sp, sp, y[ilo]));
      hi = PetscMax(y[ihi], VIHBRefineExtreme(hb->H, hc, ihi * sp, sp, y[ihi]));
    }
    lo_out[o] = lo;
    hi_out[o] = hi;
    mean[o]   = hc[0];
    amp[o]    = 0.5 * (hi - lo);
  }
  PetscCall(PetscFree(y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Append the point at (X, omega) to the branch: outputs' harmonics and their statistics over the samples, contact state. */
static PetscErrorCode VIHBRecord(VIHB hb, PetscReal omega, PetscInt its, PetscInt stable, PetscReal mu, PetscReal arg, VIHBStabilityMethod method)
{
  VIHBBranch *br = &hb->branch;
  PetscInt    nout, nc = hb->nc, nh = hb->nh, N = hb->N, k;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetNumOutputs(hb->rom, &nout));
  if (br->np == hb->cap) PetscCall(VIHBBranchReserve(hb, PetscMax(64, 2 * hb->cap)));
  br->nout = nout;
  br->nc   = nc;
  br->nh   = nh;
  k        = br->np;
  PetscCall(
      VIHBOutputs(hb, nout, br->harmonics + k * nout * nh, br->min + k * nout, br->max + k * nout, br->mean + k * nout, br->amplitude + k * nout));
  if (hb->record_q) PetscCall(PetscArraycpy(br->q_harmonics + k * hb->n * nh, hb->q, hb->n * nh)); /* VIHBOutputs recovered q at X */
  br->fold_hz[k] = 0;
  for (PetscInt o = 0; o < nout; o++) br->fold_amplitude[k * nout + o] = 0;
  for (PetscInt j = 0; j < nc; j++) {
    PetscReal closed = 0, slip = 0, fmax = 0, p = hb->preload ? hb->preload[j] : 0;
    for (PetscInt t = 0; t < N; t++) {
      closed += hb->d_t[j * N + t];
      slip += hb->slip_t[j * N + t];
      fmax = PetscMax(fmax, hb->lam_t[j * N + t] + p);
    }
    br->closed_fraction[k * nc + j] = closed / N;
    br->slip_fraction[k * nc + j]   = slip / N;
    br->force_max[k * nc + j]       = fmax;
  }
  br->frequency_hz[k]     = omega / (2 * PETSC_PI);
  br->iterations[k]       = its;
  br->stable[k]           = stable;
  br->multiplier[k]       = mu;
  br->multiplier_arg[k]   = arg;
  br->change_hz[k]        = 0;
  br->stability_method[k] = method;
  br->kind[k]             = 0;
  /* a change of stability against the last point where it was computed (a few points near a turning point may have no
     exact periodic orbit to analyse, docs/hb.md) */
  if (stable >= 0) {
    PetscInt last = k - 1;
    while (last >= 0 && br->stable[last] < 0) last--;
    if (last >= 0 && stable != br->stable[last]) br->kind[k] |= VI_HB_POINT_STABILITY;
  }
  br->np++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stability of the solution last evaluated (its contact state is in d_t) and record it. */
static PetscErrorCode VIHBAccept(VIHB hb, PetscReal omega, PetscInt its)
{
  PetscReal           mu = -1, arg = -1;
  PetscInt            stable   = -1;
  VIHBStabilityMethod method   = VI_HB_STABILITY_NONE;
  PetscBool           modelled = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (hb->stability && hb->stability_type != VI_HB_STABILITY_TYPE_TRANSIENT)
    PetscCall(VIHBFloquet(hb, omega, &mu, &arg, &stable, &method, &modelled));
  /* the points the exact analysis does not model (or every point, -hb_stability_method transient): the time stepping */
  if (hb->stability && !modelled && hb->stability_type != VI_HB_STABILITY_TYPE_FLOQUET)
    PetscCall(VIHBStabilityTransient(hb, omega, &mu, &stable, &method));
  PetscCall(VIHBRecord(hb, omega, its, stable, mu, arg, method));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Bordered Newton in the scaled unknowns (U, v) = (X / xs, Omega / ws): [J xs, R_Omega ws; t^T] [dU; dv] = -[R; t.(Y - Yp)]
  (pseudo-arclength corrector); with rhs (0, 1) the same matrix gives the next tangent.
*/
static PetscErrorCode VIHBBordered(VIHB hb, PetscReal xs, PetscReal ws, const PetscReal t[], PetscReal rhs[], PetscBool *ok)
{
  const PetscInt M = hb->M, K = M + 1;
  PetscReal     *A;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(K * K, &A));
  for (PetscInt c = 0; c < M; c++) {
    for (PetscInt r = 0; r < M; r++) A[c * K + r] = hb->J[c * M + r] * xs;
    A[c * K + M] = t[c];
  }
  for (PetscInt r = 0; r < M; r++) A[M * K + r] = hb->Romega[r] * ws;
  A[M * K + M] = t[M];
  PetscCall(VIHBDenseSolve(hb, K, A, rhs, ok));
  PetscCall(PetscFree(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void VIHBNormalize(PetscInt k, PetscReal t[])
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < k; i++) s += t[i] * t[i];
  s = PetscSqrtReal(s);
  for (PetscInt i = 0; i < k; i++) t[i] /= s;
}

/* Newton from rest may cycle between contact states when the full load is applied at once (a preloaded contact that
   must open, a gap closed by a large force): the start is then reached through the load scaled by 1/16, 2/16, ..., 1,
   each solve from the previous one (the small loads keep the contacts in their state at rest: the response is linear). */
static PetscErrorCode VIHBSolveRamp(VIHB hb, PetscReal f, PetscBool *converged, PetscInt *iterations)
{
  const PetscInt nF = hb->n * hb->nh;
  PetscReal     *F0;
  PetscInt       total = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(nF, &F0));
  PetscCall(PetscArraycpy(F0, hb->F, nF));
  PetscCall(PetscArrayzero(hb->X, hb->M));
  *converged = PETSC_TRUE;
  for (PetscInt s = 1; s <= 16 && *converged; s++) {
    for (PetscInt i = 0; i < nF; i++) hb->F[i] = F0[i] * s / 16.0;
    hb->have_omega = PETSC_FALSE; /* the condensed forces follow F */
    PetscCall(VIHBSolve(hb, f, converged, iterations));
    total += *iterations;
  }
  PetscCall(PetscArraycpy(hb->F, F0, nF));
  hb->have_omega = PETSC_FALSE;
  PetscCall(PetscFree(F0));
  PetscCall(PetscInfo(NULL, "hb: the start at %g Hz %s through the load ramp (%" PetscInt_FMT " Newton iterations)\n", (double)f,
                      *converged ? "reached" : "not reached", total));
  *iterations = total;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first point of the branch: Newton from rest at the full load, then through the load ramp. Where both stagnate (at a
   local minimum of the residual's norm that is not a solution, as where a preloaded contact must open: docs/hb.md), from
   rest with the dynamic Lagrangian parameters scaled by 1/4, 1/16, 1/64 and 4 in turn (each with the ramp); from the first
   solution so found, Newton with the case's parameters, which starts next to its solution (the solution depends only
   slightly on them) and converges in one or two iterations. */
static PetscErrorCode VIHBSolveStart(VIHB hb, PetscReal f, PetscBool *converged, PetscInt *iterations)
{
  const PetscReal scale[] = {0.25, 0.0625, 0.015625, 4};
  PetscReal      *eps0;
  PetscInt        total, its;

  PetscFunctionBeginUser;
  PetscCall(VIHBSolve(hb, f, converged, iterations));
  if (*converged) PetscFunctionReturn(PETSC_SUCCESS);
  total = *iterations;
  PetscCall(VIHBSolveRamp(hb, f, converged, iterations));
  total += *iterations;
  PetscCall(PetscMalloc1(2 * hb->nc + 1, &eps0));
  PetscCall(PetscArraycpy(eps0, hb->eps, hb->nc));
  PetscCall(PetscArraycpy(eps0 + hb->nc, hb->eps_t, hb->nc));
  for (PetscInt s = 0; s < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(scale) && !*converged; s++) {
    for (PetscInt j = 0; j < hb->nc; j++) {
      hb->eps[j]   = scale[s] * eps0[j];
      hb->eps_t[j] = scale[s] * eps0[hb->nc + j];
    }
    PetscCall(PetscArrayzero(hb->X, hb->M));
    PetscCall(VIHBSolve(hb, f, converged, &its));
    total += its;
    if (!*converged) {
      PetscCall(VIHBSolveRamp(hb, f, converged, &its));
      total += its;
    }
    PetscCall(PetscArraycpy(hb->eps, eps0, hb->nc));
    PetscCall(PetscArraycpy(hb->eps_t, eps0 + hb->nc, hb->nc));
    if (*converged) {
      PetscCall(VIHBSolve(hb, f, converged, &its));
      total += its;
      PetscCall(PetscInfo(NULL, "hb: the start at %g Hz %s from the solution with eps_DL scaled by %g (%" PetscInt_FMT " Newton iterations)\n",
                          (double)f, *converged ? "reached" : "not reached", (double)scale[s], its));
    }
  }
  PetscCall(PetscFree(eps0));
  *iterations = total;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The sampled contact law makes the branch piecewise smooth: where a sample changes state the branch may zig-zag in tiny
   folds. Pairs of neighbouring turning points less than -hb_fold_tol (relative) apart in frequency are such zig-zags,
   not turning points of the response: they are unmarked, the closest pairs first, until none is left. */
static PetscErrorCode VIHBFilterFolds(VIHB hb)
{
  VIHBBranch *br = &hb->branch;
  PetscInt   *idx, nt = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(br->np + 1, &idx));
  for (PetscInt k = 0; k < br->np; k++)
    if (br->kind[k] & VI_HB_POINT_TURNING) idx[nt++] = k;
  while (nt >= 2) {
    PetscInt  best = -1;
    PetscReal dmin = PETSC_MAX_REAL;
    for (PetscInt i = 0; i + 1 < nt; i++) {
      PetscReal d = PetscAbsReal(br->frequency_hz[idx[i + 1]] - br->frequency_hz[idx[i]]);
      if (d < dmin) {
        dmin = d;
        best = i;
      }
    }
    if (dmin > hb->fold_tol * br->frequency_hz[idx[best]]) break;
    br->kind[idx[best]] &= ~VI_HB_POINT_TURNING;
    br->kind[idx[best + 1]] &= ~VI_HB_POINT_TURNING;
    br->fold_hz[idx[best]] = br->fold_hz[idx[best + 1]] = 0;
    for (PetscInt i = best; i + 2 < nt; i++) idx[i] = idx[i + 2];
    nt -= 2;
  }
  PetscCall(PetscFree(idx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The pseudo-arclength corrector: bordered Newton from X = Yp xs on the hyperplane t.(Y - Yp) = 0 of the scaled unknowns,
  with backtracking; *omega the frequency reached, *conv, *its the iterations. rhs and X0 are work (M + 1 each).
*/
static PetscErrorCode VIHBCorrector(VIHB hb, PetscReal xs, PetscReal ws, const PetscReal t[], const PetscReal Yp[], PetscReal rhs[], PetscReal X0[],
                                    PetscReal *omega_out, PetscBool *conv, PetscInt *its_out)
{
  const PetscInt M = hb->M;
  PetscReal      omega, step;
  PetscInt       its;
  PetscBool      ok;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < M; i++) hb->X[i] = Yp[i] * xs;
  *conv = PETSC_FALSE;
  omega = Yp[M] * ws;
  step  = PETSC_MAX_REAL;
  for (its = 0; its <= hb->max_it; its++) {
    PetscReal arc = t[M] * (omega / ws - Yp[M]);
    PetscCall(VIHBResidual(hb, hb->X, omega, hb->R, hb->J, hb->Romega));
    PetscReal rn = VIHBNormInf(M, hb->R);
    if (!VIHBFinite(hb, omega)) break;
    if (rn <= hb->tol * hb->f_scale && (step <= VI_HB_STEP_TOL || rn <= 1e-3 * hb->tol * hb->f_scale)) {
      *conv = PETSC_TRUE;
      break;
    }
    if (its == hb->max_it) break;
    for (PetscInt i = 0; i < M; i++) arc += t[i] * (hb->X[i] / xs - Yp[i]);
    for (PetscInt i = 0; i < M; i++) rhs[i] = -hb->R[i];
    rhs[M] = -arc;
    PetscCall(VIHBBordered(hb, xs, ws, t, rhs, &ok));
    if (!ok || PetscIsInfOrNanReal(rhs[M])) break;
    /* backtracking on the residual's 2-norm (the arclength equation is linear and holds along the step): the
       contact law is piecewise smooth and a full step may jump between contact states */
    {
      PetscReal r2 = VIHBNorm2(M, hb->R), lambda = 1, om0 = omega;
      PetscCall(PetscArraycpy(X0, hb->X, M));
      for (PetscInt b = 0; b < 8; b++, lambda /= 2) {
        for (PetscInt i = 0; i < M; i++) hb->X[i] = X0[i] + lambda * rhs[i] * xs;
        omega = om0 + lambda * rhs[M] * ws;
        if (r2 <= hb->tol * hb->f_scale) break;
        PetscCall(VIHBResidual(hb, hb->X, omega, hb->R, NULL, NULL));
        if (VIHBNorm2(M, hb->R) < (1 - 1e-4 * lambda) * r2) break;
      }
      step = lambda * PetscMax(VIHBNormInf(M, rhs) / PetscMax(VIHBNormInf(M, hb->X) / xs, 1e-300), PetscAbsReal(rhs[M] * ws / omega));
    }
  }
  *omega_out = omega;
  *its_out   = its;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The turning point between the accepted points Ya, Yk, Yb (scaled unknowns, Yk the one whose frequency is extreme): its
   frequency and the outputs' amplitudes there. */
typedef struct {
  VIHB       hb;
  PetscReal  xs, ws, sk, sb, sign; /* sign: +1 a lower fold (least frequency), -1 an upper one */
  PetscReal *c, *Ya, *Yk, *Yb, *Yp, *rhs, *X0;
  PetscReal  best, omega; /* the least sign * omega found, and its omega */
  PetscReal *amp, *h, *lo, *hi, *mean;
  PetscInt   nout, evaluations;
} VIHBFold;

/* sign * Omega at the branch point on the hyperplane c.(Y - Ya) = s: predicted on the polygon Ya - Yk - Yb (whose point at
   s lies on that hyperplane), corrected there; PETSC_MAX_REAL where the corrector fails. */
static PetscErrorCode VIHBFoldEvaluate(VIHBFold *F, PetscReal s, PetscReal *phi)
{
  VIHB           hb = F->hb;
  const PetscInt K  = hb->M + 1;
  PetscReal      omega;
  PetscBool      conv;
  PetscInt       its;

  PetscFunctionBeginUser;
  F->evaluations++;
  if (s <= F->sk)
    for (PetscInt i = 0; i < K; i++) F->Yp[i] = F->Ya[i] + s / F->sk * (F->Yk[i] - F->Ya[i]);
  else
    for (PetscInt i = 0; i < K; i++) F->Yp[i] = F->Yk[i] + (s - F->sk) / (F->sb - F->sk) * (F->Yb[i] - F->Yk[i]);
  PetscCall(VIHBCorrector(hb, F->xs, F->ws, F->c, F->Yp, F->rhs, F->X0, &omega, &conv, &its));
  *phi = conv ? F->sign * omega : PETSC_MAX_REAL;
  if (*phi < F->best) {
    F->best  = *phi;
    F->omega = omega;
    PetscCall(VIHBOutputs(hb, F->nout, F->h, F->lo, F->hi, F->mean, F->amp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Relative tolerance, on the chord from Ya to Yb, of the arclength where the frequency is extreme: the fold's frequency is
   then within its square (a smooth fold) or its first power times the frequency change along the chord (a corner of the
   sampled branch) */
#define VI_HB_FOLD_TOL 1e-7

/*
  Locate the turning point marked at branch point k (between the accepted points Ya, Yk = point k and Yb): the extreme
  of the frequency along the branch, by Brent's minimization (golden section and parabolic interpolation; robust where
  the sampled contact law makes the branch only piecewise smooth) of sign * Omega over the arclength s on the chord
  c = (Yb - Ya) / |Yb - Ya|, each trial point corrected on the hyperplane c.(Y - Ya) = s. Stored in the branch's
  fold_hz[k], fold_amplitude[k]; hb->X is left as it was (the continuation goes on from it).
*/
static PetscErrorCode VIHBLocateFold(VIHB hb, PetscInt k, PetscReal xs, PetscReal ws, const PetscReal Ya[], const PetscReal Yk[],
                                     const PetscReal Yb[])
{
  const PetscInt  M = hb->M, K = M + 1;
  const PetscReal golden = 0.5 * (3 - PetscSqrtReal(5.0));
  VIHBBranch     *br     = &hb->branch;
  VIHBFold        F;
  PetscReal      *Xsave, a, b, x, w, v, fx, fw, fv, d = 0, e = 0, tol;

  PetscFunctionBeginUser;
  F.hb           = hb;
  F.xs           = xs;
  F.ws           = ws;
  F.nout         = br->nout;
  F.evaluations  = 0;
  F.sign         = br->frequency_hz[k] > br->frequency_hz[k - 1] ? -1 : 1;
  F.Ya           = (PetscReal *)Ya;
  F.Yk           = (PetscReal *)Yk;
  F.Yb           = (PetscReal *)Yb;
  F.omega        = Yk[M] * ws;
  F.best         = F.sign * F.omega;
  br->fold_hz[k] = br->frequency_hz[k];
  for (PetscInt o = 0; o < F.nout; o++) br->fold_amplitude[k * F.nout + o] = br->amplitude[k * F.nout + o];
  PetscCall(PetscMalloc5(K, &F.c, K, &F.Yp, K, &F.rhs, K, &F.X0, M, &Xsave));
  PetscCall(PetscMalloc5(F.nout + 1, &F.amp, F.nout * hb->nh + 1, &F.h, F.nout + 1, &F.lo, F.nout + 1, &F.hi, F.nout + 1, &F.mean));
  PetscCall(PetscArraycpy(Xsave, hb->X, M));
  F.sb = 0;
  for (PetscInt i = 0; i < K; i++) {
    F.c[i] = Yb[i] - Ya[i];
    F.sb += F.c[i] * F.c[i];
  }
  F.sb = PetscSqrtReal(F.sb);
  F.sk = 0;
  for (PetscInt i = 0; i < K; i++) {
    F.c[i] /= F.sb;
    F.sk += F.c[i] * (Yk[i] - Ya[i]);
  }
  for (PetscInt o = 0; o < F.nout; o++) F.amp[o] = br->amplitude[k * F.nout + o];
  /* the point k must lie strictly inside the chord's span for the hyperplanes to cut the polygon once each */
  if (F.sk > 0 && F.sk < F.sb) {
    tol = VI_HB_FOLD_TOL * F.sb;
    a   = 0;
    b   = F.sb;
    x = w = v = F.sk;
    fx = fw = fv = F.best;
    while (F.evaluations < 100) {
      const PetscReal xm = 0.5 * (a + b), tol1 = tol, tol2 = 2 * tol1;
      PetscReal       u, fu = PETSC_MAX_REAL;
      if (PetscAbsReal(x - xm) <= tol2 - 0.5 * (b - a)) break;
      if (PetscAbsReal(e) > tol1) { /* a parabola through x, w, v */
        PetscReal r = (x - w) * (fx - fv), q = (x - v) * (fx - fw), p = (x - v) * q - (x - w) * r;
        q = 2 * (q - r);
        if (q > 0) p = -p;
        q = PetscAbsReal(q);
        r = e;
        e = d;
        if (PetscAbsReal(p) >= PetscAbsReal(0.5 * q * r) || p <= q * (a - x) || p >= q * (b - x) || fx == PETSC_MAX_REAL) {
          e = x >= xm ? a - x : b - x;
          d = golden * e;
        } else {
          d = p / q;
          u = x + d;
          if (u - a < tol2 || b - u < tol2) d = xm - x >= 0 ? tol1 : -tol1;
        }
      } else {
        e = x >= xm ? a - x : b - x;
        d = golden * e;
      }
      u = PetscAbsReal(d) >= tol1 ? x + d : x + (d >= 0 ? tol1 : -tol1);
      PetscCall(VIHBFoldEvaluate(&F, u, &fu));
      if (fu <= fx) {
        if (u >= x)
          a = x;
        else
          b = x;
        v  = w;
        fv = fw;
        w  = x;
        fw = fx;
        x  = u;
        fx = fu;
      } else {
        if (u < x)
          a = u;
        else
          b = u;
        if (fu <= fw || w == x) {
          v  = w;
          fv = fw;
          w  = u;
          fw = fu;
        } else if (fu <= fv || v == x || v == w) {
          v  = u;
          fv = fu;
        }
      }
    }
    br->fold_hz[k] = F.omega / (2 * PETSC_PI);
    for (PetscInt o = 0; o < F.nout; o++) br->fold_amplitude[k * F.nout + o] = F.amp[o];
  }
  PetscCall(PetscInfo(NULL, "hb: turning point of point %" PetscInt_FMT " (%g Hz) located at %.10g Hz in %" PetscInt_FMT " corrections\n", k,
                      (double)br->frequency_hz[k], (double)br->fold_hz[k], F.evaluations));
  PetscCall(PetscArraycpy(hb->X, Xsave, M));
  hb->nonfinite = PETSC_FALSE;
  PetscCall(PetscFree5(F.c, F.Yp, F.rhs, F.X0, Xsave));
  PetscCall(PetscFree5(F.amp, F.h, F.lo, F.hi, F.mean));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Locate the stability change between the accepted points Ya and Yb (scaled unknowns), both decided by the Floquet
  multipliers of the exact motion, muA and muB their largest moduli on either side of 1 + VI_FLOQUET_STABLE_TOL: the
  Illinois method (regula falsi that halves the weight of an end kept twice) on g(s) = mu(s) - 1 - VI_FLOQUET_STABLE_TOL
  over the arclength s on the chord from Ya to Yb, each trial point corrected on its hyperplane and its multipliers
  computed (the shooting starts from the orbit of the last trial); to VI_HB_FOLD_TOL of the chord. The frequency where
  g = 0, interpolated linearly in g between the bracket's ends, goes to the branch's change_hz[k] (k the point after the
  change). hb->X and the stability's orbit are left as they were (the continuation goes on from them).
*/
static PetscErrorCode VIHBLocateChange(VIHB hb, PetscInt k, PetscReal xs, PetscReal ws, const PetscReal Ya[], const PetscReal Yb[])
{
  const PetscInt M = hb->M, K = M + 1;
  VIHBBranch    *br = &hb->branch;
  PetscReal     *c, *Yp, *rhs, *X0, *Xsave, *orbit = NULL, orbit_dist = hb->orbit_dist, sb = 0;
  PetscReal sa = 0, ga = br->multiplier[k - 1] - 1 - VI_FLOQUET_STABLE_TOL, oa = Ya[M] * ws, sz, gb = br->multiplier[k] - 1 - VI_FLOQUET_STABLE_TOL,
            ob         = Yb[M] * ws;
  PetscBool have_orbit = hb->have_orbit;
  PetscInt  side = 0, evaluations = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc5(K, &c, K, &Yp, K, &rhs, K, &X0, M, &Xsave));
  PetscCall(PetscArraycpy(Xsave, hb->X, M));
  if (hb->orbit_len) {
    PetscCall(PetscMalloc1(hb->orbit_len, &orbit));
    PetscCall(PetscArraycpy(orbit, hb->orbit, hb->orbit_len));
  }
  for (PetscInt i = 0; i < K; i++) {
    c[i] = Yb[i] - Ya[i];
    sb += c[i] * c[i];
  }
  sb = PetscSqrtReal(sb);
  sz = sb;
  for (PetscInt i = 0; i < K; i++) c[i] /= sb;
  while (evaluations < 40 && sz - sa > VI_HB_FOLD_TOL * sb && ga * gb < 0) {
    const PetscReal     s = (sa * gb - sz * ga) / (gb - ga);
    PetscReal           omega, mu, arg;
    PetscInt            its, stable;
    PetscBool           conv, modelled;
    VIHBStabilityMethod method;
    evaluations++;
    for (PetscInt i = 0; i < K; i++) Yp[i] = Ya[i] + s * c[i];
    PetscCall(VIHBCorrector(hb, xs, ws, c, Yp, rhs, X0, &omega, &conv, &its));
    if (!conv) break;
    PetscCall(VIHBFloquet(hb, omega, &mu, &arg, &stable, &method, &modelled));
    if (method != VI_HB_STABILITY_FLOQUET) break;
    if ((mu - 1 - VI_FLOQUET_STABLE_TOL) * ga > 0) {
      sa = s;
      ga = mu - 1 - VI_FLOQUET_STABLE_TOL;
      oa = omega;
      if (side == -1) gb /= 2;
      side = -1;
    } else {
      sz = s;
      gb = mu - 1 - VI_FLOQUET_STABLE_TOL;
      ob = omega;
      if (side == 1) ga /= 2;
      side = 1;
    }
  }
  /* the halved weights of the Illinois steps are not the multipliers: the final frequency from the bracket's ends */
  br->change_hz[k] = (ga * gb < 0 ? (oa * gb - ob * ga) / (gb - ga) : (ga == 0 ? oa : ob)) / (2 * PETSC_PI);
  PetscCall(PetscInfo(NULL, "hb: stability change before point %" PetscInt_FMT " (%g Hz) located at %.10g Hz in %" PetscInt_FMT " corrections\n", k,
                      (double)br->frequency_hz[k], (double)br->change_hz[k], evaluations));
  PetscCall(PetscArraycpy(hb->X, Xsave, M));
  if (orbit) PetscCall(PetscArraycpy(hb->orbit, orbit, hb->orbit_len));
  hb->orbit_dist = orbit_dist;
  hb->have_orbit = have_orbit;
  hb->nonfinite  = PETSC_FALSE;
  PetscCall(PetscFree(orbit));
  PetscCall(PetscFree5(c, Yp, rhs, X0, Xsave));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIHBContinueBranch(VIHB hb)
{
  const PetscInt  M = hb->M, K = M + 1;
  const PetscReal ws = 2 * PETSC_PI * (hb->freq_range[1] - hb->freq_range[0]), lo = 2 * PETSC_PI * hb->freq_range[0],
                  hi = 2 * PETSC_PI * hb->freq_range[1];
  PetscReal  *t, *Y, *Yprev, *Yp, *rhs, *X0, xs, ds = hb->step, omega;
  PetscBool   conv, ok;
  PetscInt    its;
  VIHBBranch *br = &hb->branch;

  PetscFunctionBeginUser;
  PetscCall(VIHBSetUp(hb));
  br->stopped = PETSC_FALSE;
  hb->stop    = PETSC_FALSE;
  /* the continuation's state between two points: the tangent t and the last point Y (scaled), the scale xs, the step ds;
     a checkpoint restores it (VIHBCheckpointRead) */
  t     = hb->cont_t;
  Y     = hb->cont_Y;
  Yprev = hb->cont_Yprev;
  PetscCall(PetscMalloc3(K, &Yp, K, &rhs, K, &X0));
  if (hb->restored) {
    xs           = hb->cont_xs;
    ds           = hb->cont_ds;
    hb->restored = PETSC_FALSE;
  } else {
    br->np         = 0;
    hb->have_orbit = PETSC_FALSE;
    br->failed     = PETSC_FALSE;
    br->message[0] = 0;
    hb->nonfinite  = PETSC_FALSE;
    PetscCall(VIHBSolveStart(hb, hb->f_start, &conv, &its));
    if (!conv) {
      br->failed = PETSC_TRUE;
      if (hb->nonfinite)
        PetscCall(PetscSNPrintf(br->message, sizeof(br->message),
                                "the harmonic balance state is not finite at the start, %g Hz (an overflow in double precision: the "
                                "largest force sample is %g: a smaller load or frequency)",
                                (double)hb->f_start, (double)hb->f_scale));
      else
        PetscCall(PetscSNPrintf(br->message, sizeof(br->message),
                                "Newton did not converge at the start, %g Hz, in -hb_max_it %" PetscInt_FMT
                                " iterations (also with eps_DL scaled); start the branch at another frequency (-hb_start)",
                                (double)hb->f_start, hb->max_it));
      PetscCall(PetscFree3(Yp, rhs, X0));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    omega = 2 * PETSC_PI * hb->f_start;
    PetscCall(VIHBAccept(hb, omega, its));
    xs = VIHBNormInf(M, hb->X);
    if (!(xs > 0)) xs = 1;
    for (PetscInt i = 0; i < M; i++) Y[i] = hb->X[i] / xs;
    Y[M] = omega / ws;
    PetscCall(PetscArraycpy(Yprev, Y, K));
    /* first tangent: the one of positive (up) or negative (down) frequency direction */
    PetscCall(PetscArrayzero(t, K));
    t[M] = hb->direction == VI_HB_UP ? 1 : -1;
    PetscCall(VIHBResidual(hb, hb->X, omega, hb->R, hb->J, hb->Romega));
    PetscCall(PetscArrayzero(rhs, K));
    rhs[M] = 1;
    PetscCall(VIHBBordered(hb, xs, ws, t, rhs, &ok));
    if (!ok || PetscIsInfOrNanReal(VIHBNormInf(K, rhs))) {
      br->failed = PETSC_TRUE;
      PetscCall(PetscSNPrintf(br->message, sizeof(br->message), "the continuation stopped at its start, %g Hz: singular or non-finite tangent",
                              (double)hb->f_start));
      PetscCall(PetscFree3(Yp, rhs, X0));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscArraycpy(t, rhs, K));
    VIHBNormalize(K, t);
  }
  while (br->np < hb->max_points) {
    PetscReal dsf = ds;
    /* a point boundary: everything the next point depends on is in t, Y, xs, ds, the branch and the stability's orbit;
       the monitor may write a checkpoint of it, or stop the continuation here */
    hb->cont_xs = xs;
    hb->cont_ds = ds;
    if (hb->monitor) {
      PetscCall(hb->monitor(hb, br->np, br->frequency_hz[br->np - 1], hb->monitor_ctx));
      if (hb->stop) {
        br->stopped = PETSC_TRUE;
        PetscCall(PetscFree3(Yp, rhs, X0));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
    /* the frequency step bound */
    if (PetscAbsReal(t[M]) * ws * dsf > 2 * PETSC_PI * hb->max_freq_step) dsf = 2 * PETSC_PI * hb->max_freq_step / (PetscAbsReal(t[M]) * ws);
    for (PetscInt i = 0; i < K; i++) Yp[i] = Y[i] + dsf * t[i];
    PetscCall(VIHBCorrector(hb, xs, ws, t, Yp, rhs, X0, &omega, &conv, &its));
    if (!conv) {
      ds = dsf / 2;
      if (ds < hb->step_min && hb->nonfinite) {
        br->failed = PETSC_TRUE;
        PetscCall(PetscSNPrintf(br->message, sizeof(br->message),
                                "the continuation stopped at %g Hz: the harmonic balance state is not finite (an overflow in double precision) "
                                "even with the smallest step (-hb_step_min %g)",
                                (double)(Y[M] * ws / (2 * PETSC_PI)), (double)hb->step_min));
        break;
      }
      if (ds < hb->step_min) {
        br->failed = PETSC_TRUE;
        PetscCall(PetscSNPrintf(br->message, sizeof(br->message),
                                "the continuation stopped at %g Hz: Newton did not converge even with the smallest step (-hb_step_min %g); a "
                                "corner of the sampled branch: another -hb_eps_dl or -hb_samples gets past it (docs/hb.md)",
                                (double)(Y[M] * ws / (2 * PETSC_PI)), (double)hb->step_min));
        break;
      }
      continue;
    }
    /* accept: the new tangent from the bordered system with the old one, oriented along it */
    PetscCall(PetscArrayzero(rhs, K));
    rhs[M] = 1;
    PetscCall(VIHBBordered(hb, xs, ws, t, rhs, &ok));
    if (!ok || PetscIsInfOrNanReal(VIHBNormInf(K, rhs))) {
      br->failed = PETSC_TRUE;
      PetscCall(PetscSNPrintf(br->message, sizeof(br->message), "the continuation stopped at %g Hz: singular or non-finite tangent",
                              (double)(omega / (2 * PETSC_PI))));
      break;
    }
    {
      PetscReal dot = 0;
      VIHBNormalize(K, rhs);
      for (PetscInt i = 0; i < K; i++) dot += rhs[i] * t[i];
      if (dot < 0)
        for (PetscInt i = 0; i < K; i++) rhs[i] = -rhs[i];
    }
    PetscCall(VIHBAccept(hb, omega, its)); /* the contact state of the accepted point is that of its last residual */
    hb->nonfinite = PETSC_FALSE;
    {
      /* a stability change right after the previous point, both decided by the exact multipliers: located between them */
      const PetscInt k = br->np - 1;
      if ((br->kind[k] & VI_HB_POINT_STABILITY) && br->stable[k - 1] >= 0 && br->stability_method[k] == VI_HB_STABILITY_FLOQUET &&
          br->stability_method[k - 1] == VI_HB_STABILITY_FLOQUET) {
        for (PetscInt i = 0; i < M; i++) Yp[i] = hb->X[i] / xs;
        Yp[M] = omega / ws;
        PetscCall(VIHBLocateChange(hb, k, xs, ws, Y, Yp));
      }
    }
    /* a turning point: the frequency turns back at the previous point (the sign of the tangent's frequency component is
       not reliable there: the Jacobian of the contact law is only piecewise continuous) */
    if (br->np >= 3) {
      const PetscReal *fq = br->frequency_hz;
      PetscInt         k  = br->np - 2;
      if ((fq[k] - fq[k - 1]) * (fq[k + 1] - fq[k]) < 0) {
        br->kind[k] |= VI_HB_POINT_TURNING;
        for (PetscInt i = 0; i < M; i++) Yp[i] = hb->X[i] / xs;
        Yp[M] = omega / ws;
        PetscCall(VIHBLocateFold(hb, k, xs, ws, Yprev, Y, Yp));
      }
    }
    PetscCall(PetscArraycpy(t, rhs, K));
    PetscCall(PetscArraycpy(Yprev, Y, K));
    for (PetscInt i = 0; i < M; i++) Y[i] = hb->X[i] / xs;
    Y[M] = omega / ws;
    ds   = PetscMin(hb->step_max, dsf * PetscClipInterval((PetscReal)hb->target_it / PetscMax(its, 1), 0.5, 2.0));
    if (omega > hi * (1 + 1e-12) || omega < lo * (1 - 1e-12)) break;
  }
  PetscCall(VIHBFilterFolds(hb));
  if (!br->failed && br->np >= hb->max_points) {
    br->failed = PETSC_TRUE;
    PetscCall(PetscSNPrintf(br->message, sizeof(br->message), "the continuation stopped at %g Hz: -hb_max_points %" PetscInt_FMT " reached",
                            (double)br->frequency_hz[br->np - 1], hb->max_points));
  }
  PetscCall(PetscFree3(Yp, rhs, X0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBWallTime(VIHB hb, PetscReal *wall)
{
  PetscLogDouble now;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&now));
  *wall = hb->wall_base + (now - hb->wall_start);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The continuation, timed over every run that computes the branch (a restored checkpoint carries the time before). */
PetscErrorCode VIHBContinue(VIHB hb)
{
  PetscFunctionBeginUser;
  PetscCall(PetscTime(&hb->wall_start));
  if (!hb->restored) hb->wall_base = 0;
  PetscCall(VIHBContinueBranch(hb));
  PetscCall(VIHBWallTime(hb, &hb->branch.wall_time));
  PetscFunctionReturn(PETSC_SUCCESS);
}
