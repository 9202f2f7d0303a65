/* Time functions of the multibody model (src/system/mbtime.c, docs/multibody.md "Prescribed motions and time-varying
   loads"): the C^2 cubic spline through a table.
   - 0.5 sin(20 t) sampled on [0, 1] with 10 .. 160 intervals, not-a-knot and clamped by the exact end rates: the largest
     error over 4001 points of the value, the rate and the second derivative against the function's, and their orders
     (4, 3, 2 expected: > 3.8, 2.8, 1.8 between the last two tables), the value at 160 intervals within Hall and Meyer's
     bound (5/384) h^4 max|f''''| (clamped; 3 times it not-a-knot);
   - a cubic through six unevenly spaced points: not-a-knot and clamped by its end rates reproduce it (1e-12), its
     rate and second derivative too; three points (not-a-knot) give their parabola, two the line, two clamped the cubic
     Hermite interpolant (1e-12);
   - C^2: the value, rate and second derivative continuous at every knot of the sine's table (left and right limits
     within 1e-9 of the largest);
   - the analytic form speed t + amplitude sin(frequency t) and its two derivatives (1e-15);
   - refused: one point, times not increasing (with the point's number); a CSV file missing, a line of three columns and
     a time not after the previous (with the file's line number), one data line, a first line of one name and one
     number (a header is two names); read: comments, a header, blank
     separators, a spreadsheet's byte order mark and CR LF line ends. */
#include "vitest.h"
#include "system/mbimpl.h"

static PetscReal Sine(PetscReal t, PetscInt d)
{
  return d == 0 ? 0.5 * PetscSinReal(20 * t) : (d == 1 ? 10 * PetscCosReal(20 * t) : -200 * PetscSinReal(20 * t));
}

/* the largest errors of the spline through 0.5 sin(20 t) at N + 1 even points of [0, 1] */
static PetscErrorCode SineErrors(PetscInt N, PetscBool clamped, PetscReal err[3])
{
  VIMBTimeFunction f;
  PetscReal        t[161], y[161], r[2] = {Sine(0, 1), Sine(1, 1)};

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&f, sizeof(f)));
  for (PetscInt i = 0; i <= N; i++) t[i] = (PetscReal)i / N, y[i] = Sine(t[i], 0);
  PetscCall(VIMBTimeFunctionSetTable(PETSC_COMM_WORLD, &f, "sine", N + 1, t, y, clamped ? r : NULL));
  err[0] = err[1] = err[2] = 0;
  for (PetscInt k = 0; k <= 4000; k++) {
    const PetscReal s = k / 4000.0;
    PetscReal       v[3];
    VIMBTimeFunctionEvaluate(&f, s, &v[0], &v[1], &v[2]);
    for (PetscInt d = 0; d < 3; d++) err[d] = PetscMax(err[d], PetscAbsReal(v[d] - Sine(s, d)));
  }
  PetscCall(VIMBTimeFunctionReset(&f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal Cubic(PetscReal t, PetscInt d)
{
  return d == 0 ? 1 - 2 * t + 0.5 * t * t + 3 * t * t * t : (d == 1 ? -2 + t + 9 * t * t : 1 + 18 * t);
}

/* the largest error of f against p (value and two derivatives) over [a, b] */
static PetscReal Against(const VIMBTimeFunction *f, PetscReal (*p)(PetscReal, PetscInt, const PetscReal[]), const PetscReal c[], PetscReal a,
                         PetscReal b)
{
  PetscReal e = 0;
  for (PetscInt k = 0; k <= 200; k++) {
    const PetscReal s = a + (b - a) * k / 200.0;
    PetscReal       v[3];
    VIMBTimeFunctionEvaluate(f, s, &v[0], &v[1], &v[2]);
    for (PetscInt d = 0; d < 3; d++) e = PetscMax(e, PetscAbsReal(v[d] - p(s, d, c)));
  }
  return e;
}

/* c[0] + c[1] t + c[2] t^2 + c[3] t^3 */
static PetscReal Poly(PetscReal t, PetscInt d, const PetscReal c[])
{
  return d == 0 ? c[0] + t * (c[1] + t * (c[2] + t * c[3])) : (d == 1 ? c[1] + t * (2 * c[2] + 3 * t * c[3]) : 2 * c[2] + 6 * t * c[3]);
}

static PetscReal CubicP(PetscReal t, PetscInt d, const PetscReal c[])
{
  (void)c;
  return Cubic(t, d);
}

/* the error code of a call, its message not printed */
#define CAUGHT(call, code)                                                                                                                           \
  do {                                                                                                                                               \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));                                                                                 \
    code = (call);                                                                                                                                   \
    PetscCall(PetscPopErrorHandler());                                                                                                               \
  } while (0)

static PetscErrorCode WriteFile(const char path[], const char text[])
{
  FILE *fp = fopen(path, "w");

  PetscFunctionBeginUser;
  EXPECT(fp, "cannot write %s", path);
  fputs(text, fp);
  fclose(fp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a CSV file's table is refused with the message containing want */
static PetscErrorCode Refused(const char path[], const char text[], const char want[])
{
  PetscErrorCode ierr;
  PetscInt       n;
  PetscReal     *t = NULL, *y = NULL;
  const char    *generic;
  char          *specific;

  PetscFunctionBeginUser;
  if (text) PetscCall(WriteFile(path, text));
  CAUGHT(VIMBTimeTableReadCSV(PETSC_COMM_SELF, path, &n, &t, &y), ierr);
  PetscCall(PetscErrorMessage(ierr, &generic, &specific));
  EXPECT(ierr == PETSC_ERR_USER_INPUT && specific && strstr(specific, want), "%s: expected a refusal with '%s', got %d '%s'", path, want, (int)ierr,
         specific ? specific : "");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok   refused: %s\n", specific));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscReal        e[2][5][3], order[2][3], bound;
  const PetscInt   Ns[5] = {10, 20, 40, 80, 160};
  VIMBTimeFunction f;
  PetscErrorCode   ierr;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscMemzero(&f, sizeof(f)));
  /* the sine's tables */
  for (PetscInt c = 0; c < 2; c++) {
    for (PetscInt k = 0; k < 5; k++) PetscCall(SineErrors(Ns[k], c ? PETSC_TRUE : PETSC_FALSE, e[c][k]));
    for (PetscInt d = 0; d < 3; d++) order[c][d] = PetscLog2Real(e[c][3][d] / e[c][4][d]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: intervals 10 20 40 80 160\n", c ? "clamped" : "not-a-knot"));
    for (PetscInt d = 0; d < 3; d++)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s %.2e %.2e %.2e %.2e %.2e (order %.2f)\n", d == 0 ? "value " : (d == 1 ? "rate  " : "second"),
                            (double)e[c][0][d], (double)e[c][1][d], (double)e[c][2][d], (double)e[c][3][d], (double)e[c][4][d], (double)order[c][d]));
    /* Hall and Meyer's bound of the clamped spline, (5/384) h^4 max|f''''| (1.6e-6 at h = 1/160); not-a-knot's ends within 3 times it */
    bound = (c ? 1 : 3) * 5.0 / 384 * PetscPowReal(1.0 / 160, 4) * 0.5 * PetscPowReal(20, 4);
    EXPECT(order[c][0] > 3.8 && order[c][1] > 2.8 && order[c][2] > 1.8 && e[c][4][0] < bound,
           "the spline of 0.5 sin(20 t): orders %g %g %g, error %g (bound %g)", (double)order[c][0], (double)order[c][1], (double)order[c][2],
           (double)e[c][4][0], (double)bound);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok   the spline of 0.5 sin(20 t): orders 4, 3, 2 in the value, rate, second derivative\n"));
  /* C^2 at the knots of the 40-interval table */
  {
    PetscReal t[41], y[41], jump[3] = {0, 0, 0}, big[3] = {0, 0, 0};
    for (PetscInt i = 0; i <= 40; i++) t[i] = i / 40.0, y[i] = Sine(t[i], 0);
    PetscCall(VIMBTimeFunctionSetTable(PETSC_COMM_WORLD, &f, "sine", 41, t, y, NULL));
    for (PetscInt i = 1; i < 40; i++) {
      const PetscReal *c = f.c + 4 * (i - 1), h = t[i] - t[i - 1];
      const PetscReal  left[3] = {c[0] + h * (c[1] + h * (c[2] + h * c[3])), c[1] + h * (2 * c[2] + 3 * h * c[3]), 2 * c[2] + 6 * h * c[3]};
      PetscReal        right[3];
      VIMBTimeFunctionEvaluate(&f, t[i], &right[0], &right[1], &right[2]);
      for (PetscInt d = 0; d < 3; d++) {
        jump[d] = PetscMax(jump[d], PetscAbsReal(left[d] - right[d]));
        big[d]  = PetscMax(big[d], PetscAbsReal(right[d]));
      }
    }
    for (PetscInt d = 0; d < 3; d++) EXPECT(jump[d] <= 1e-9 * big[d], "derivative %d jumps by %g at a knot", (int)d, (double)jump[d]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok   C2 at the knots: jumps %.1e, %.1e, %.1e of %.1f, %.1f, %.1f\n", (double)jump[0], (double)jump[1],
                          (double)jump[2], (double)big[0], (double)big[1], (double)big[2]));
  }
  /* a cubic reproduced, and the small tables */
  {
    const PetscReal t[6] = {-0.2, 0.1, 0.35, 0.4, 0.8, 1.3}, r[2] = {Cubic(-0.2, 1), Cubic(1.3, 1)};
    PetscReal       y[6], err[6];
    for (PetscInt i = 0; i < 6; i++) y[i] = Cubic(t[i], 0);
    PetscCall(VIMBTimeFunctionSetTable(PETSC_COMM_WORLD, &f, "cubic", 6, t, y, NULL));
    err[0] = Against(&f, CubicP, NULL, -0.2, 1.3);
    PetscCall(VIMBTimeFunctionSetTable(PETSC_COMM_WORLD, &f, "cubic", 6, t, y, r));
    err[1] = Against(&f, CubicP, NULL, -0.2, 1.3);
    {
      /* the parabola through (0, 1), (0.3, 2), (1, 0.5): 1 + b t + a t^2 */
      const PetscReal tp[3] = {0, 0.3, 1}, yp[3] = {1, 2, 0.5}, a = ((0.5 - 1) - (2 - 1) / 0.3) / (1 - 0.3), b = (2 - 1) / 0.3 - a * 0.3;
      const PetscReal cp[4] = {1, b, a, 0}, cl[4] = {2, -1.5 / 0.7, 0, 0};
      PetscCall(VIMBTimeFunctionSetTable(PETSC_COMM_WORLD, &f, "parabola", 3, tp, yp, NULL));
      err[2] = Against(&f, Poly, cp, 0, 1);
      /* the line through (0.3, 2), (1, 0.5), written about t = 0: 2 - 1.5 / 0.7 (t - 0.3) */
      PetscReal cl0[4] = {cl[0] - cl[1] * 0.3, cl[1], 0, 0};
      PetscCall(VIMBTimeFunctionSetTable(PETSC_COMM_WORLD, &f, "line", 2, tp + 1, yp + 1, NULL));
      err[3] = Against(&f, Poly, cl0, 0.3, 1);
    }
    {
      /* two points clamped: the cubic itself between -0.2 and 1.3 */
      const PetscReal t2[2] = {-0.2, 1.3}, y2[2] = {Cubic(-0.2, 0), Cubic(1.3, 0)};
      PetscCall(VIMBTimeFunctionSetTable(PETSC_COMM_WORLD, &f, "hermite", 2, t2, y2, r));
      err[4] = Against(&f, CubicP, NULL, -0.2, 1.3);
    }
    /* the analytic form */
    VIMBTimeFunctionSetAnalytic(&f, 0, 2, 0.3, 5, 0);
    {
      PetscReal v[3];
      VIMBTimeFunctionEvaluate(&f, 0.7, &v[0], &v[1], &v[2]);
      err[5] = PetscMax(PetscAbsReal(v[0] - (1.4 + 0.3 * PetscSinReal(3.5))),
                        PetscMax(PetscAbsReal(v[1] - (2 + 1.5 * PetscCosReal(3.5))), PetscAbsReal(v[2] + 7.5 * PetscSinReal(3.5))));
    }
    /* the formula with a value and a phase (a load's factor 1 + 2 t + 0.3 sin(5 t + 0.4)), and with its origin at t0 = 0.25 (a
       driver started at t0: phi(t) - phi(t0), its rates unchanged) */
    {
      PetscReal v[3], e0, e1;
      VIMBTimeFunctionSetAnalytic(&f, 1, 2, 0.3, 5, 0.4);
      VIMBTimeFunctionEvaluate(&f, 0.7, &v[0], &v[1], &v[2]);
      e0 = PetscMax(PetscAbsReal(v[0] - (2.4 + 0.3 * PetscSinReal(3.9))),
                    PetscMax(PetscAbsReal(v[1] - (2 + 1.5 * PetscCosReal(3.9))), PetscAbsReal(v[2] + 7.5 * PetscSinReal(3.9))));
      VIMBTimeFunctionSetOrigin(&f, 0.25);
      VIMBTimeFunctionEvaluate(&f, 0.7, &v[0], &v[1], NULL);
      e1 = PetscMax(PetscAbsReal(v[0] - (0.9 + 0.3 * (PetscSinReal(3.9) - PetscSinReal(1.65)))), PetscAbsReal(v[1] - (2 + 1.5 * PetscCosReal(3.9))));
      VIMBTimeFunctionEvaluate(&f, 0.25, &v[0], NULL, NULL);
      e1 = PetscMax(e1, PetscAbsReal(v[0]));
      PetscCall(
          PetscPrintf(PETSC_COMM_WORLD,
                      "ok   the formula 1 + 2 t + 0.3 sin(5 t + 0.4) at t = 0.7: %.1e; with its origin at t0 = 0.25 (phi(t) - phi(t0); 0 at t0): "
                      "%.1e\n",
                      (double)e0, (double)e1));
      EXPECT(e0 < 1e-15 && e1 < 1e-15, "the formula %g, with its origin %g (expected < 1e-15)", (double)e0, (double)e1);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "ok   reproduced: a cubic (not-a-knot %.1e, clamped %.1e), three points' parabola %.1e, two points' line %.1e, two clamped "
                          "points' cubic %.1e, speed t + amplitude sin(frequency t) %.1e\n",
                          (double)err[0], (double)err[1], (double)err[2], (double)err[3], (double)err[4], (double)err[5]));
    for (PetscInt k = 0; k < 6; k++) EXPECT(err[k] < (k == 5 ? 1e-15 : 1e-12), "reproduction %d: error %g", (int)k, (double)err[k]);
  }
  /* refused tables */
  {
    const PetscReal t[3] = {0, 0.5, 0.5}, y[3] = {0, 1, 2};
    const char     *generic;
    char           *specific;
    CAUGHT(VIMBTimeFunctionSetTable(PETSC_COMM_SELF, &f, "one.yaml:3", 1, t, y, NULL), ierr);
    PetscCall(PetscErrorMessage(ierr, &generic, &specific));
    EXPECT(ierr == PETSC_ERR_USER_INPUT && strstr(specific, "one.yaml:3: a table of 1 point"), "one point: %d %s", (int)ierr, specific);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok   refused: %s\n", specific));
    CAUGHT(VIMBTimeFunctionSetTable(PETSC_COMM_SELF, &f, "same.yaml:4", 3, t, y, NULL), ierr);
    PetscCall(PetscErrorMessage(ierr, &generic, &specific));
    EXPECT(ierr == PETSC_ERR_USER_INPUT && strstr(specific, "point 3 (0.5, ") && strstr(specific, "the times must be finite and strictly increasing"),
           "same time: %d %s", (int)ierr, specific);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok   refused: %s\n", specific));
  }
  PetscCall(VIMBTimeFunctionReset(&f));
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (!rank) { /* the files are this rank's */
      PetscInt   n;
      PetscReal *t, *y;
      PetscCall(Refused("mbtime_missing.csv", NULL, "mbtime_missing.csv: cannot open the table"));
      PetscCall(
          Refused("mbtime_cols.csv", "# time, angle\n0, 0\n0.1, 0.2\n\n0.2, 0.3, 4\n", "mbtime_cols.csv:5: expected two numbers 'time, value'"));
      PetscCall(Refused("mbtime_order.csv", "t,y\n0,0\n0.2,1\n0.1,2\n", "mbtime_order.csv:4: the time 0.1 is not after 0.2 (line 3)"));
      PetscCall(Refused("mbtime_one.csv", "time,value\n0,1\n", "mbtime_one.csv: 1 data line"));
      PetscCall(Refused("mbtime_text.csv", "0,1\nx,2\n", "mbtime_text.csv:2: expected two numbers"));
      /* not a header: one of its fields is a number */
      PetscCall(Refused("mbtime_half.csv", "t=0,0\n1,1\n", "mbtime_half.csv:1: expected two numbers"));
      PetscCall(WriteFile("mbtime_ok.csv", "# a comment\ntime, angle\n0, 0\n  0.5\t0.25\n\n1.0 ,1e0\n"));
      PetscCall(VIMBTimeTableReadCSV(PETSC_COMM_SELF, "mbtime_ok.csv", &n, &t, &y));
      EXPECT(n == 3 && t[1] == 0.5 && y[1] == 0.25 && t[2] == 1 && y[2] == 1, "the CSV table read %d points", (int)n);
      PetscCall(PetscFree2(t, y));
      PetscCall(WriteFile("mbtime_bom.csv", "\xEF\xBB\xBF"
                                            "0.25,1\r\n0.5,2\r\n")); /* a spreadsheet's: byte order mark, CR LF */
      PetscCall(VIMBTimeTableReadCSV(PETSC_COMM_SELF, "mbtime_bom.csv", &n, &t, &y));
      EXPECT(n == 2 && t[0] == 0.25 && y[0] == 1 && t[1] == 0.5 && y[1] == 2, "the CSV table with a byte order mark read %d points", (int)n);
      PetscCall(PetscFree2(t, y));
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "ok   read: a comment, a header, comma and tab separators, a blank line: 3 points; a byte order mark and CR LF: 2\n"));
      for (const char *const *p = (const char *const[]){"mbtime_cols.csv", "mbtime_order.csv", "mbtime_one.csv", "mbtime_text.csv", "mbtime_half.csv",
                                                        "mbtime_ok.csv", "mbtime_bom.csv", NULL};
           *p; p++)
        (void)remove(*p);
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}
