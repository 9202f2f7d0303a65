/* VIExcitation in a time loop: value and time derivative, instantaneous frequency, time at which a sweep reaches a frequency. */
#include "exciteimpl.h"
#include <math.h>

/* The signed sweep rate: a (Hz/s) for sweep_linear, +-r (1/s) for sweep_log. */
static PetscReal VIExciteSignedRate(VIExcitation e)
{
  return e->sweep_down ? -e->sweep_rate : e->sweep_rate;
}

/* f(t) of a sweep; a linear sweep whose frequency has reached 0 has no meaning beyond, so evaluating it there is an error. */
static PetscErrorCode VIExciteSweepFrequency(VIExcitation e, PetscReal t, PetscReal *f)
{
  PetscReal a = VIExciteSignedRate(e);

  PetscFunctionBeginUser;
  if (e->type == VI_EXCITE_SWEEP_LOG) {
    *f = e->frequency * PetscExpReal(a * t);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *f = e->frequency + a * t;
  PetscCheck(*f > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Linear sweep %s from %g Hz at %g Hz/s: its frequency is %g Hz <= 0 at t = %g s (it reaches 0 Hz at t = %g s)",
             e->sweep_down ? "down" : "up", (double)e->frequency, (double)e->sweep_rate, (double)*f, (double)t, (double)(-e->frequency / a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIExcitationEvaluate - s(t) = offset + amplitude * shape(t) and ds/dt (excite.h gives each shape). Not collective, no
  allocation. The first call after a change of parameters checks them (a type needs its frequency, rate, width or band).

  Sweeps (seed 000 §5.2): phi(t) = 2 pi (f0 t + a t^2 / 2) + phase (linear), phi(t) = 2 pi f0 (exp(k t) - 1) / k + phase
  with k = +-r (log, through expm1 so that small k t keeps its digits); dphi/dt = 2 pi f(t).
  Bump: the sum over all pulses is replaced by the two pulses that bracket t (see VIExciteCheckBump for the bound).
  Noise: shape = sqrt(2/n) sum_k cos(omega_k t + theta_k), evaluated as the real part of a polynomial (below).
*/
PetscErrorCode VIExcitationEvaluate(VIExcitation e, PetscReal t, PetscReal *value, PetscReal *rate)
{
  PetscReal s = 0, ds = 0;

  PetscFunctionBeginUser;
  if (!e->checked) PetscCall(VIExcitationCheck(e, PETSC_COMM_SELF));
  switch (e->type) {
  case VI_EXCITE_CONSTANT:
    s  = 1;
    ds = 0;
    break;
  case VI_EXCITE_HARMONIC: {
    PetscReal omega = 2 * PETSC_PI * e->frequency, phi = omega * t + e->phase;

    s  = PetscCosReal(phi);
    ds = -omega * PetscSinReal(phi);
  } break;
  case VI_EXCITE_SWEEP_LINEAR:
  case VI_EXCITE_SWEEP_LOG: {
    PetscReal a = VIExciteSignedRate(e), f, phi;

    PetscCall(VIExciteSweepFrequency(e, t, &f));
    if (e->type == VI_EXCITE_SWEEP_LINEAR)
      phi = 2 * PETSC_PI * (e->frequency * t + a * t * t / 2) + e->phase;
    else
      phi = 2 * PETSC_PI * e->frequency * expm1(a * t) / a + e->phase;
    s  = PetscCosReal(phi);
    ds = -2 * PETSC_PI * f * PetscSinReal(phi);
  } break;
  case VI_EXCITE_BUMP: {
    PetscReal T = 1 / e->frequency, w2 = e->bump_width * e->bump_width, u = t - e->bump_center;
    PetscReal d1 = u - PetscFloorReal(u / T) * T, d2 = d1 - T; /* distances to the pulses before and after t */
    PetscReal g1 = PetscExpReal(-d1 * d1 / (2 * w2)), g2 = PetscExpReal(-d2 * d2 / (2 * w2));

    s  = g1 + g2;
    ds = -(d1 * g1 + d2 * g2) / w2;
  } break;
  case VI_EXCITE_NOISE: {
    /* the harmonics are evenly spaced, omega_k = omega_0 + k dw: sum_k c_k e^{i omega_k t} = e^{i omega_0 t} P(z), z = e^{i dw t},
       P(z) = sum_k c_k z^k with c_k = e^{i theta_k}, by Horner's rule (one sincos pair per call instead of n); the rate from
       the polynomial of the coefficients omega_k c_k */
    PetscReal zr = PetscCosReal(e->noise_domega * t), zi = PetscSinReal(e->noise_domega * t);
    PetscReal er = PetscCosReal(e->noise_omega[0] * t), ei = PetscSinReal(e->noise_omega[0] * t);
    PetscReal pr = 0, pi = 0, rr = 0, ri = 0;

    PetscCheck(e->noise_n > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Noise excitation without its tables");
    {
      /* four interleaved Horner chains in w = z^4, P(z) = sum_r z^r Q_r(w), Q_r(w) = sum_j c_{4j+r} w^j: four times the
         instruction-level parallelism of one chain */
      PetscReal w2r = zr * zr - zi * zi, w2i = 2 * zr * zi, wr = w2r * w2r - w2i * w2i, wi = 2 * w2r * w2i;
      PetscReal qr[4] = {0, 0, 0, 0}, qi[4] = {0, 0, 0, 0}, zpr = 1, zpi = 0;
      PetscInt  top = (e->noise_n - 1) / 4;

      for (PetscInt j = top; j >= 0; j--)
        for (PetscInt r = 0; r < 4; r++) {
          PetscInt  k = 4 * j + r;
          PetscReal a = qr[r] * wr - qi[r] * wi + (k < e->noise_n ? e->noise_cos[k] : 0);

          qi[r] = qr[r] * wi + qi[r] * wr + (k < e->noise_n ? e->noise_sin[k] : 0);
          qr[r] = a;
        }
      for (PetscInt r = 0; r < 4; r++) { /* P = sum_r z^r Q_r */
        PetscReal a;
        pr += zpr * qr[r] - zpi * qi[r];
        pi += zpr * qi[r] + zpi * qr[r];
        a   = zpr * zr - zpi * zi;
        zpi = zpr * zi + zpi * zr;
        zpr = a;
      }
    }
    s = e->noise_scale * (er * pr - ei * pi);
    if (rate) {
      for (PetscInt k = e->noise_n - 1; k >= 0; k--) {
        PetscReal a = rr * zr - ri * zi + e->noise_omega[k] * e->noise_cos[k];

        ri = rr * zi + ri * zr + e->noise_omega[k] * e->noise_sin[k];
        rr = a;
      }
      ds = -e->noise_scale * (er * ri + ei * rr);
    }
  } break;
  }
  if (value) *value = e->offset + e->amplitude * s;
  if (rate) *rate = e->amplitude * ds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VIExcitationGetFrequency - f for harmonic and bump, f(t) for sweeps, 0 for constant, (f_lo + f_hi) / 2 for noise. Not collective. */
PetscErrorCode VIExcitationGetType(VIExcitation e, VIExciteType *type)
{
  PetscFunctionBeginUser;
  *type = e->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIExcitationGetFrequency(VIExcitation e, PetscReal t, PetscReal *f)
{
  PetscFunctionBeginUser;
  if (!e->checked) PetscCall(VIExcitationCheck(e, PETSC_COMM_SELF));
  switch (e->type) {
  case VI_EXCITE_CONSTANT:
    *f = 0;
    break;
  case VI_EXCITE_HARMONIC:
  case VI_EXCITE_BUMP:
    *f = e->frequency;
    break;
  case VI_EXCITE_SWEEP_LINEAR:
  case VI_EXCITE_SWEEP_LOG:
    PetscCall(VIExciteSweepFrequency(e, t, f));
    break;
  case VI_EXCITE_NOISE:
    *f = (e->noise_lo + e->noise_hi) / 2;
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIExcitationGetSweepTime - the time t >= 0 at which a sweep has the frequency f: (f - f0) / a (linear), ln(f / f0) / k
  (log). An error for other types and for a frequency the sweep never reaches after t = 0. Not collective.
*/
PetscErrorCode VIExcitationGetSweepTime(VIExcitation e, PetscReal f, PetscReal *t)
{
  PetscReal a;

  PetscFunctionBeginUser;
  PetscCheck(e->type == VI_EXCITE_SWEEP_LINEAR || e->type == VI_EXCITE_SWEEP_LOG, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "VIExcitationGetSweepTime() needs a sweep, the excitation is %s", VIExciteTypes[e->type]);
  if (!e->checked) PetscCall(VIExcitationCheck(e, PETSC_COMM_SELF));
  a = VIExciteSignedRate(e);
  PetscCheck(f > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A sweep never reaches %g Hz: expected a positive frequency", (double)f);
  *t = e->type == VI_EXCITE_SWEEP_LINEAR ? (f - e->frequency) / a : PetscLogReal(f / e->frequency) / a;
  PetscCheck(*t >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The %s sweep %s from %g Hz never reaches %g Hz", VIExciteTypes[e->type],
             e->sweep_down ? "down" : "up", (double)e->frequency, (double)f);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIExcitationCheckSampling - an error when the function's content over [t0, t1] reaches the Nyquist frequency 1/(2 dt)
  of a time step dt: a harmonic by its frequency, a sweep by the highest frequency it passes, noise by the top of its band.
  A time stepping samples the load once per step and would fold such content onto lower frequencies, silently (issue 24
  item 13). Constants and bumps pass. Collective on comm (every rank holds the same function).
*/
PetscErrorCode VIExcitationCheckSampling(VIExcitation e, PetscReal t0, PetscReal t1, PetscReal dt, MPI_Comm comm)
{
  const PetscReal nyquist = 0.5 / dt;
  PetscReal       f0, f1;

  PetscFunctionBeginUser;
  if (!e->checked) PetscCall(VIExcitationCheck(e, comm));
  switch (e->type) {
  case VI_EXCITE_HARMONIC:
    PetscCheck(e->frequency < nyquist, comm, PETSC_ERR_USER_INPUT,
               "-%sfrequency: %g Hz reaches the Nyquist frequency 1/(2 dt) = %g Hz of the time step dt = %g s, which would fold it onto a lower "
               "frequency: choose -step_dt below %g s",
               e->prefix, (double)e->frequency, (double)nyquist, (double)dt, (double)(0.5 / e->frequency));
    break;
  case VI_EXCITE_SWEEP_LINEAR:
  case VI_EXCITE_SWEEP_LOG:
    PetscCall(VIExciteSweepFrequency(e, t0, &f0));
    PetscCall(VIExciteSweepFrequency(e, t1, &f1));
    f1 = PetscMax(f0, f1);
    PetscCheck(f1 < nyquist, comm, PETSC_ERR_USER_INPUT,
               "-%sfrequency, -%ssweep_rate: the sweep reaches %g Hz by t = %g s, above the Nyquist frequency 1/(2 dt) = %g Hz of the time step "
               "dt = %g s, which would fold it onto lower frequencies: choose -step_dt below %g s or end the sweep earlier",
               e->prefix, e->prefix, (double)f1, (double)t1, (double)nyquist, (double)dt, (double)(0.5 / f1));
    break;
  case VI_EXCITE_NOISE:
    PetscCheck(e->noise_hi < nyquist, comm, PETSC_ERR_USER_INPUT,
               "-%snoise_band: %g,%g Hz reaches above the Nyquist frequency 1/(2 dt) = %g Hz of the time step dt = %g s, which would fold the "
               "noise onto lower frequencies: lower the band or choose -step_dt below %g s",
               e->prefix, (double)e->noise_lo, (double)e->noise_hi, (double)nyquist, (double)dt, (double)(0.5 / e->noise_hi));
    break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
