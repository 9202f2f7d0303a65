/* The semi-smooth Newton's linear solve (src/step/ssnewton.c): the Schur path (a diagonal momentum block, VISSNewton.nd)
   against LAPACK's gesv on the whole matrix, and the dense path taken, bitwise, when the block is not diagonal; the Schur
   path on a block-diagonal leading block of interleaved 3 x 3 groups (VISSNewtonSetBlocks: nsgalpha's (delta_i, U_i, W_i)),
   and the chord steps' re-solve with the last factors (VISSNewton.chord) on every path: a residual F = J1 x - r with the
   Jacobian J0 = J1 - E, |E| = 1e-4, contracts by about |J0^-1 E| per chord step, so that one Newton matrix per solve is
   enough when the re-solve applies J0^-1 exactly (it did not on the dense path with row interchanges before). */
#include <vicms.h>
#include "step/stepimpl.h"
#include <petscblaslapack.h>

/* An affine form F = J0 x - r: one Newton step from any x lands on J0^-1 r, the next confirms it */
typedef struct {
  PetscInt         N;
  const PetscReal *J0, *r, *J1; /* J1: the residual's matrix when not NULL (J0 then the Jacobian given) */
  const PetscBool *unit;
  VISSNewton      *nw;
  PetscInt         newton; /* forms with J (Newton matrices) */
} AffineForm;

static PetscErrorCode FormAffine(void *ctx, const PetscReal x[], PetscReal F[], PetscReal J[])
{
  AffineForm    *af = (AffineForm *)ctx;
  const PetscInt N  = af->N;

  PetscFunctionBeginUser;
  const PetscReal *A = af->J1 ? af->J1 : af->J0;
  for (PetscInt i = 0; i < N; i++) {
    F[i] = -af->r[i];
    for (PetscInt k = 0; k < N; k++) F[i] += A[i * N + k] * x[k];
    af->nw->unit[i] = af->unit[i];
  }
  if (J) PetscCall(PetscArraycpy(J, af->J0, N * N));
  if (J) af->newton++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = J0^-1 r by VISSNewtonSolve from x = 0, with the leading block size nd (0: the dense path); schur: whether the Schur
   path ran (it alone writes the scratch diag: 1 / J_00 first) */
static PetscErrorCode SolveNewton(VIStepper st, PetscInt N, PetscInt nd, const PetscReal J0[], const PetscReal r[], const PetscBool unit[],
                                  PetscReal x[], PetscBool *schur)
{
  VISSNewton nw;
  AffineForm af = {N, J0, r, NULL, unit, &nw, 0};

  PetscFunctionBeginUser;
  PetscCall(VISSNewtonCreate(N, 10, VI_SSNEWTON_TOL, &nw));
  nw.hinted = PETSC_TRUE;
  nw.nd     = nd;
  PetscCall(PetscArrayzero(x, N));
  PetscCall(VISSNewtonSolve(st, &nw, FormAffine, &af, x));
  *schur = nw.diag[0] != 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(VISSNewtonDestroy(&nw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = J1^-1 r by VISSNewtonSolve with chord steps, the Jacobian J0 (leading block nd in groups of bs; nd = 0: the dense
   path), from x0; *newton: the Newton matrices formed */
static PetscErrorCode SolveChord(VIStepper st, PetscInt N, PetscInt nd, PetscInt bs, const PetscReal J0[], const PetscReal J1[], const PetscReal r[],
                                 const PetscBool unit[], const PetscReal x0[], PetscReal x[], PetscInt *newton)
{
  VISSNewton nw;
  AffineForm af = {N, J0, r, J1, unit, &nw, 0};

  PetscFunctionBeginUser;
  PetscCall(VISSNewtonCreate(N, 20, VI_SSNEWTON_TOL, &nw));
  nw.hinted = PETSC_TRUE;
  nw.chord  = PETSC_TRUE;
  if (nd > 0) PetscCall(VISSNewtonSetBlocks(&nw, nd, bs));
  PetscCall(PetscArraycpy(x, x0, N));
  PetscCall(VISSNewtonSolve(st, &nw, FormAffine, &af, x));
  *newton = af.newton;
  PetscCall(VISSNewtonDestroy(&nw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  VIStepper   st;
  PetscRandom rnd;
  PetscReal   worst = 0, fallback = 0;
  PetscInt    schur_runs = 0, dense_runs = 0, newton_max = 0;
  PetscReal   worst_block = 0, worst_chord = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(VIStepperCreate(PETSC_COMM_SELF, &st));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(PetscRandomSetSeed(rnd, 23));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt trial = 0; trial < 200; trial++) {
    /* n coordinates (3 per body), m constraint rows touching two bodies' coordinates, mt friction rows, m + mt < n (more
       rows than coordinates is a redundant mechanism, singular but for the friction rows' 1e-10: refused by the solver) */
    const PetscInt nb = 3 + trial % 5, n = 3 * nb, m = 2 + trial % (n - 5), mt = trial % 4, N = n + m + mt;
    PetscReal     *J0, *Jf, *r, *x, *xs, *xd, *xf;
    PetscBool     *unit, s1, s2;
    PetscBLASInt   bN, one = 1, info, *ipiv;
    PetscReal      v, err = 0, xmax = 0;

    PetscCall(PetscCalloc6(N * N, &J0, N * N, &Jf, N, &r, N, &x, N, &xs, N, &xd));
    PetscCall(PetscCalloc3(N, &xf, N, &unit, N, &ipiv));
    for (PetscInt i = 0; i < n; i++) { /* the momentum block: a diagonal mass with its curvature term */
      PetscCall(PetscRandomGetValueReal(rnd, &v));
      J0[i * N + i] = 1.5 + v;
    }
    for (PetscInt j = n; j < N; j++) {
      PetscInt body[2];
      PetscCall(PetscRandomGetValueReal(rnd, &v));
      unit[j] = j >= n + m / 2 && v > 0.2 ? PETSC_TRUE : PETSC_FALSE; /* an inactive contact or its friction row */
      for (PetscInt b = 0; b < 2; b++) {
        PetscCall(PetscRandomGetValueReal(rnd, &v));
        body[b] = (PetscInt)((v + 1) / 2 * nb) % nb;
      }
      for (PetscInt b = 0; b < 2; b++)
        for (PetscInt c = 0; c < 3; c++) {
          const PetscInt k = 3 * body[b] + c;
          PetscCall(PetscRandomGetValueReal(rnd, &v));
          J0[k * N + j] = -v; /* -G^T in the momentum rows */
          PetscCall(PetscRandomGetValueReal(rnd, &v));
          if (!unit[j]) J0[j * N + k] = -J0[k * N + j] + 0.1 * v; /* G + h theta d(G v)/dq in the constraint's row */
        }
      if (unit[j])
        J0[j * N + j] = 1;
      else if (j >= n + m) { /* a friction row: stick (a tiny diagonal) or slip (1, and -mu s in its normal's column) */
        PetscCall(PetscRandomGetValueReal(rnd, &v));
        J0[j * N + j] = v > 0 ? -1e-10 : 1;
        if (v <= 0) J0[j * N + n + m / 2] = -0.3;
      }
    }
    for (PetscInt i = 0; i < N; i++) {
      PetscCall(PetscRandomGetValueReal(rnd, &v));
      r[i] = unit[i] && v > 0 ? 0 : v; /* unit rows at 0 and not */
    }
    /* the reference: gesv on J0 (column-major: its transpose) */
    for (PetscInt i = 0; i < N; i++)
      for (PetscInt k = 0; k < N; k++) Jf[k * N + i] = J0[i * N + k];
    PetscCall(PetscArraycpy(x, r, N));
    PetscCall(PetscBLASIntCast(N, &bN));
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bN, &one, Jf, &bN, ipiv, x, &bN, &info));
    PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "trial %" PetscInt_FMT ": the random system is singular", trial);
    PetscCall(SolveNewton(st, N, n, J0, r, unit, xs, &s1));
    PetscCall(SolveNewton(st, N, 0, J0, r, unit, xd, &s2));
    schur_runs += s1 + s2;
    for (PetscInt i = 0; i < N; i++) {
      err  = PetscMax(err, PetscMax(PetscAbsReal(xs[i] - x[i]), PetscAbsReal(xd[i] - x[i])));
      xmax = PetscMax(xmax, PetscAbsReal(x[i]));
    }
    worst = PetscMax(worst, err / xmax);
    /* chord steps on the diagonal, dense and (below) block paths: J1 = J0 + E on the rows that are not unit rows, from
       x0 = x1 + 1e-3 (1 + |x1|) perturbations, x1 = J1^-1 r by gesv */
    {
      PetscReal *J1, *x1, *x0, *xc;
      PetscCall(PetscCalloc4(N * N, &J1, N, &x1, N, &x0, N, &xc));
      for (PetscInt i = 0; i < N; i++)
        for (PetscInt k = 0; k < N; k++) {
          PetscCall(PetscRandomGetValueReal(rnd, &v));
          J1[i * N + k] = J0[i * N + k] + (i < n ? 1e-4 * v : 0); /* E on the momentum rows */
        }
      for (PetscInt b = 0; b < 2; b++) { /* b = 1: the leading block in interleaved 3 x 3 groups (stride nb) */
        PetscInt newton[2];
        if (b == 1)
          for (PetscInt g = 0; g < nb; g++)
            for (PetscInt a = 0; a < 3; a++)
              for (PetscInt c = 0; c < 3; c++) {
                if (a == c) continue;
                PetscCall(PetscRandomGetValueReal(rnd, &v));
                J0[(g + a * nb) * N + g + c * nb] = 0.3 * v;
                J1[(g + a * nb) * N + g + c * nb] = 0.3 * v;
              }
        for (PetscInt i = 0; i < N; i++)
          for (PetscInt k = 0; k < N; k++) Jf[k * N + i] = J1[i * N + k];
        PetscCall(PetscArraycpy(x1, r, N));
        PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bN, &one, Jf, &bN, ipiv, x1, &bN, &info));
        PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "trial %" PetscInt_FMT ": the random system is singular", trial);
        xmax = 0;
        for (PetscInt i = 0; i < N; i++) xmax = PetscMax(xmax, PetscAbsReal(x1[i]));
        for (PetscInt i = 0; i < N; i++) {
          PetscCall(PetscRandomGetValueReal(rnd, &v));
          x0[i] = x1[i] + 1e-3 * (1 + xmax) * v;
        }
        PetscCall(SolveChord(st, N, n, b ? 3 : 1, J0, J1, r, unit, x0, xc, &newton[0]));
        PetscCall(SolveChord(st, N, 0, 1, J0, J1, r, unit, x0, xs, &newton[1]));
        for (PetscInt i = 0; i < N; i++) {
          worst_chord = PetscMax(worst_chord, PetscMax(PetscAbsReal(xc[i] - x1[i]), PetscAbsReal(xs[i] - x1[i])) / xmax);
          if (b == 1) worst_block = PetscMax(worst_block, PetscAbsReal(xc[i] - x1[i]) / xmax);
        }
        newton_max = PetscMax(newton_max, PetscMax(newton[0], newton[1]));
      }
      PetscCall(PetscFree4(J1, x1, x0, xc));
    }
    /* a momentum block that is not diagonal (a flexible or spatial body): the dense path's answer, bitwise */
    J0[0 * N + 1] = J0[1 * N + 0] = 0.25;
    PetscCall(SolveNewton(st, N, n, J0, r, unit, xs, &s1));
    PetscCall(SolveNewton(st, N, 0, J0, r, unit, xf, &s2));
    dense_runs += !s1 && !s2;
    for (PetscInt i = 0; i < N; i++) fallback = PetscMax(fallback, PetscAbsReal(xs[i] - xf[i]));
    PetscCall(PetscFree6(J0, Jf, r, x, xs, xd));
    PetscCall(PetscFree3(xf, unit, ipiv));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "200 random systems: Schur and dense paths against gesv, largest error %.2e of max |x| (tolerance 1e-9); "
                        "non-diagonal block: Schur path against dense %.1e (expected 0)\n",
                        (double)worst, (double)fallback));
  PetscCheck(schur_runs == 200 && dense_runs == 200, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "the Schur path ran %" PetscInt_FMT " times of 200 (diagonal blocks with nd = n), the dense path %" PetscInt_FMT " of 200 (the others)",
             schur_runs, dense_runs);
  PetscCall(
      PetscPrintf(PETSC_COMM_SELF,
                  "chord steps (Jacobian off by 1e-4, from 1e-3 away): diagonal, dense and 3 x 3 block Schur paths against gesv %.2e of max |x| "
                  "(the block path alone %.2e; tolerance 1e-9), at most %" PetscInt_FMT " Newton matrix per solve (expected 1)\n",
                  (double)worst_chord, (double)worst_block, newton_max));
  PetscCheck(worst <= 1e-9, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the Newton linear solve is off gesv's by %g", (double)worst);
  PetscCheck(worst_chord <= 1e-9, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the chord steps' solution is off gesv's by %g", (double)worst_chord);
  PetscCheck(newton_max == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "a chord solve formed %" PetscInt_FMT " Newton matrices (expected 1: the re-solve is not J0^-1)", newton_max);
  PetscCheck(fallback == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a non-diagonal block did not take the dense path (%g)", (double)fallback);
  PetscCheck(st->stats.nonconverged == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " affine solves did not converge",
             st->stats.nonconverged);
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VIStepperDestroy(&st));
  PetscCall(PetscFinalize());
  return 0;
}
