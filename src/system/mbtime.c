/* Time functions of a multibody model (docs/multibody.md, "Prescribed motions and time-varying loads"): a driver's
   prescribed angle and a load's factor, either the formula value + speed t + amplitude sin(frequency t + phase) or the
   C^2 cubic spline through a table of points (t_i, y_i), given inline or read from a CSV file; t is the run's absolute
   time. A driver's function has an origin, its value at the run's start t0 (VIMBTimeFunctionSetOrigin), subtracted from
   its value: the joint's coordinate changes by phi(t) - phi(t0) from its initial value.

   The spline: on [t_i, t_i+1], with h_i = t_i+1 - t_i, d_i = (y_i+1 - y_i) / h_i and the knots' slopes s_i,
     y(t) = y_i + s_i x + c2_i x^2 + c3_i x^3, x = t - t_i, c2_i = (3 d_i - 2 s_i - s_i+1) / h_i, c3_i = (s_i + s_i+1 - 2 d_i) / h_i^2,
   which is C^1 for any slopes; C^2 (y'' continuous at the inner knots) is the tridiagonal system
     h_i s_i-1 + 2 (h_i-1 + h_i) s_i + h_i-1 s_i+1 = 3 (h_i d_i-1 + h_i-1 d_i),  i = 1 .. n-2
   (de Boor, A Practical Guide to Splines, ch. IV), closed at each end by a given rate (clamped: s_0 = rates[0]) or by
   not-a-knot (the third derivative continuous at t_1, so the first two intervals are one cubic):
     h_1 s_0 + (h_0 + h_1) s_1 = ((h_0 + 2 (h_0 + h_1)) h_1 d_0 + h_0^2 d_1) / (h_0 + h_1),
   and its mirror at t_n-2 — the ends of MATLAB's spline and SciPy's CubicSpline. Not-a-knot reproduces a cubic exactly and
   its error on a smooth function is O(h^4) in the value, O(h^3) in the rate and O(h^2) in y'' (the driver's torque). Three
   points with not-a-knot ends are the parabola through them, two the line (clamped: the cubic with the two rates). The
   system is solved without pivoting: its pivots are positive (not-a-knot's first one h_1, an inner row's at least
   h_i-1 + h_i once eliminated (more from the second on), so that the last, not-a-knot's h_n-3 (1 - (h_n-3 + h_n-2) /
   pivot_n-2) for n >= 4, is too). */
#include "mbimpl.h"
#include <ctype.h>

void VIMBTimeFunctionSetAnalytic(VIMBTimeFunction *f, PetscReal value, PetscReal speed, PetscReal amplitude, PetscReal frequency, PetscReal phase)
{
  f->value     = value;
  f->speed     = speed;
  f->amplitude = amplitude;
  f->frequency = frequency;
  f->phase     = phase;
  f->origin    = 0;
  f->npoints   = 0;
}

/* The origin is the function's value at t0 (itself taken without an origin). */
void VIMBTimeFunctionSetOrigin(VIMBTimeFunction *f, PetscReal t0)
{
  PetscReal y;

  f->origin = 0;
  VIMBTimeFunctionEvaluate(f, t0, &y, NULL, NULL);
  f->origin = y;
}

PetscErrorCode VIMBTimeFunctionReset(VIMBTimeFunction *f)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(f->t, f->c));
  f->npoints = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBTimeFunctionSetTable(MPI_Comm comm, VIMBTimeFunction *f, const char source[], PetscInt n, const PetscReal t[], const PetscReal y[],
                                        const PetscReal rates[])
{
  PetscReal      *s, *a, *b, *c, *r;
  const PetscBool knot = rates ? PETSC_FALSE : PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCheck(n >= 2, comm, PETSC_ERR_USER_INPUT, "%s: a table of %" PetscInt_FMT " point%s: a spline needs two or more (time, value) points", source,
             n, n == 1 ? "" : "s");
  for (PetscInt i = 0; i < n; i++)
    PetscCheck(!PetscIsInfOrNanReal(t[i]) && !PetscIsInfOrNanReal(y[i]) && (i == 0 || t[i] > t[i - 1]), comm, PETSC_ERR_USER_INPUT,
               "%s: point %" PetscInt_FMT " (%g, %g): the times must be finite and strictly increasing", source, i + 1, (double)t[i], (double)y[i]);
  PetscCall(VIMBTimeFunctionReset(f));
  PetscCall(PetscStrncpy(f->source, source, sizeof(f->source)));
  f->value = f->speed = f->amplitude = f->frequency = f->phase = f->origin = 0;
  PetscCall(PetscMalloc2(n, &f->t, 4 * (n - 1), &f->c));
  PetscCall(PetscArraycpy(f->t, t, n));
  f->npoints = n;
  PetscCall(PetscMalloc5(n, &s, n, &a, n, &b, n, &c, n, &r));
  /* rows a_i s_i-1 + b_i s_i + c_i s_i+1 = r_i, with d_i the intervals' slopes */
#define H(i) (t[(i) + 1] - t[(i)])
#define D(i) ((y[(i) + 1] - y[(i)]) / H(i))
  if (n == 2 || (n == 3 && knot)) {
    /* the line (n = 2, a not-a-knot end taking the chord's slope) or the parabola through three points */
    for (PetscInt i = 0; i < n; i++) a[i] = c[i] = 0, b[i] = 1;
    if (n == 2) {
      r[0] = knot ? D(0) : rates[0];
      r[1] = knot ? D(0) : rates[1];
    } else { /* the parabola's slopes at its points */
      const PetscReal h0 = H(0), h1 = H(1), d0 = D(0), d1 = D(1), q = (d1 - d0) / (h0 + h1);
      r[0] = d0 - q * h0;
      r[1] = d0 + q * h0;
      r[2] = d1 + q * h1;
    }
  } else {
    for (PetscInt i = 1; i < n - 1; i++) {
      a[i] = H(i);
      b[i] = 2 * (H(i - 1) + H(i));
      c[i] = H(i - 1);
      r[i] = 3 * (H(i) * D(i - 1) + H(i - 1) * D(i));
    }
    a[0] = c[n - 1] = 0;
    if (knot) {
      const PetscReal dd = t[2] - t[0];
      b[0]               = H(1);
      c[0]               = dd;
      r[0]               = ((H(0) + 2 * dd) * H(1) * D(0) + H(0) * H(0) * D(1)) / dd;
    } else
      b[0] = 1, c[0] = 0, r[0] = rates[0];
    if (knot) {
      const PetscReal dd = t[n - 1] - t[n - 3];
      a[n - 1]           = dd;
      b[n - 1]           = H(n - 3);
      r[n - 1]           = (H(n - 2) * H(n - 2) * D(n - 3) + (2 * dd + H(n - 2)) * H(n - 3) * D(n - 2)) / dd;
    } else
      a[n - 1] = 0, b[n - 1] = 1, r[n - 1] = rates[1];
  }
  /* Thomas's elimination */
  for (PetscInt i = 1; i < n; i++) {
    const PetscReal w = a[i] / b[i - 1];
    b[i] -= w * c[i - 1];
    r[i] -= w * r[i - 1];
  }
  s[n - 1] = r[n - 1] / b[n - 1];
  for (PetscInt i = n - 2; i >= 0; i--) s[i] = (r[i] - c[i] * s[i + 1]) / b[i];
  for (PetscInt i = 0; i < n - 1; i++) {
    const PetscReal h = H(i), d = D(i);
    f->c[4 * i]     = y[i];
    f->c[4 * i + 1] = s[i];
    f->c[4 * i + 2] = (3 * d - 2 * s[i] - s[i + 1]) / h;
    f->c[4 * i + 3] = (s[i] + s[i + 1] - 2 * d) / (h * h);
  }
#undef H
#undef D
  PetscCall(PetscFree5(s, a, b, c, r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void VIMBTimeFunctionEvaluate(const VIMBTimeFunction *f, PetscReal t, PetscReal *y, PetscReal *dy, PetscReal *ddy)
{
  PetscInt         lo = 0, hi;
  PetscReal        x;
  const PetscReal *c;

  if (!f->npoints) { /* the driver's former expressions when value, phase and origin are 0 (its records bitwise as before) */
    const PetscReal arg = f->phase != 0 ? f->frequency * t + f->phase : f->frequency * t;
    if (y) *y = f->speed * t + f->amplitude * PetscSinReal(arg);
    if (y && (f->value != 0 || f->origin != 0)) *y += f->value - f->origin;
    if (dy) *dy = f->speed + f->amplitude * f->frequency * PetscCosReal(arg);
    if (ddy) *ddy = -f->amplitude * f->frequency * f->frequency * PetscSinReal(arg);
    return;
  }
  /* the interval [t_lo, t_lo+1] holding t (the first or last beyond the table: its cubic continued) */
  hi = f->npoints - 1;
  while (hi - lo > 1) {
    const PetscInt mid = (lo + hi) / 2;
    if (t >= f->t[mid])
      lo = mid;
    else
      hi = mid;
  }
  c = f->c + 4 * lo;
  x = t - f->t[lo];
  if (y) *y = c[0] + x * (c[1] + x * (c[2] + x * c[3])) - f->origin;
  if (dy) *dy = c[1] + x * (2 * c[2] + 3 * x * c[3]);
  if (ddy) *ddy = 2 * c[2] + 6 * x * c[3];
}

/* A run from t0 to t1 must stay within the table (to the round-off of the times: 1e-9 of the table's span). */
PetscErrorCode VIMBTimeFunctionCheckSpan(MPI_Comm comm, const VIMBTimeFunction *f, const char what[], PetscReal t0, PetscReal t1)
{
  PetscReal first, last, tol;

  PetscFunctionBeginUser;
  if (!f->npoints) PetscFunctionReturn(PETSC_SUCCESS);
  first = f->t[0];
  last  = f->t[f->npoints - 1];
  tol   = 1e-9 * (last - first);
  PetscCheck(
      t0 >= first - tol && t1 <= last + tol, comm, PETSC_ERR_USER_INPUT,
      "%s: %s is tabulated from t = %g to %g s, and the run goes from %g to %g s (-step_start_time, -step_end_time): extend the table over the "
      "run or shorten the run (a table is not extrapolated)",
      f->source, what, (double)first, (double)last, (double)t0, (double)t1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one field of a CSV line: a finite number with blanks around it */
static PetscBool VIMBCSVNumber(const char *s, const char *e, PetscReal *x)
{
  char   buf[128], *end;
  size_t len;

  while (s < e && isspace((unsigned char)*s)) s++;
  while (e > s && isspace((unsigned char)e[-1])) e--;
  len = (size_t)(e - s);
  if (!len || len >= sizeof(buf)) return PETSC_FALSE;
  memcpy(buf, s, len);
  buf[len] = 0;
  *x       = strtod(buf, &end);
  return *end || PetscIsInfOrNanReal(*x) ? PETSC_FALSE : PETSC_TRUE;
}

PetscErrorCode VIMBTimeTableReadCSV(MPI_Comm comm, const char path[], PetscInt *n, PetscReal **t, PetscReal **y)
{
  FILE     *fp = fopen(path, "r");
  char      line[1024];
  PetscInt  lineno = 0, cap = 64, prev = 0;
  PetscBool header_allowed = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCheck(fp, comm, PETSC_ERR_USER_INPUT, "%s: cannot open the table (a CSV file of 'time, value' lines)", path);
  *n = 0;
  PetscCall(PetscMalloc2(cap, t, cap, y));
  while (fgets(line, sizeof(line), fp)) {
    char     *p = line, *sep, msg[256] = "";
    size_t    len = strlen(line);
    PetscReal a, b;
    PetscBool ok;
    lineno++;
    if (len == sizeof(line) - 1 && line[len - 1] != '\n')
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "a line longer than %d characters", (int)sizeof(line) - 2));
    if (lineno == 1 && !strncmp(p, "\xEF\xBB\xBF", 3)) p += 3; /* a UTF-8 byte order mark (spreadsheets write one) */
    while (*p && isspace((unsigned char)*p)) p++;
    if (!msg[0] && (!*p || *p == '#')) continue;
    if (!msg[0]) {
      line[strcspn(line, "\r\n")] = 0;
      sep                         = strchr(p, ',');
      if (!sep) sep = strpbrk(p, " \t"); /* blank-separated columns too */
      {
        const PetscBool na = sep && VIMBCSVNumber(p, sep, &a) ? PETSC_TRUE : PETSC_FALSE,
                        nb = sep && VIMBCSVNumber(sep + 1, p + strlen(p), &b) ? PETSC_TRUE : PETSC_FALSE;
        ok                 = na && nb ? PETSC_TRUE : PETSC_FALSE;
        if (sep && !na && !nb && header_allowed) { /* a first line of two column names */
          header_allowed = PETSC_FALSE;
          continue;
        }
      }
      header_allowed = PETSC_FALSE;
      if (!ok)
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "expected two numbers 'time, value' (got '%.80s')", p));
      else if (*n > 0 && a <= (*t)[*n - 1])
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "the time %g is not after %g (line %" PetscInt_FMT "): the times must be strictly increasing",
                                (double)a, (double)(*t)[*n - 1], prev));
    }
    if (msg[0]) {
      fclose(fp);
      PetscCall(PetscFree2(*t, *y));
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": %s", path, lineno, msg);
    }
    if (*n == cap) {
      PetscReal *t2, *y2;
      PetscCall(PetscMalloc2(2 * cap, &t2, 2 * cap, &y2));
      PetscCall(PetscArraycpy(t2, *t, cap));
      PetscCall(PetscArraycpy(y2, *y, cap));
      PetscCall(PetscFree2(*t, *y));
      *t = t2, *y = y2, cap *= 2;
    }
    (*t)[*n] = a;
    (*y)[*n] = b;
    (*n)++;
    prev = lineno;
  }
  fclose(fp);
  if (*n < 2) PetscCall(PetscFree2(*t, *y));
  PetscCheck(*n >= 2, comm, PETSC_ERR_USER_INPUT, "%s: %" PetscInt_FMT " data line%s: a table needs two or more 'time, value' lines", path, *n,
             *n == 1 ? "" : "s");
  PetscFunctionReturn(PETSC_SUCCESS);
}
