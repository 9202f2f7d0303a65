/* The dense semi-smooth Newton method of the schemes' nonlinear paths (nsgalpha.c, moreau.c on a system that is not
   linear: rigid multibody systems, seed 002 §10.2 and §10.4), and the constraint data both need. The systems are small
   (three coordinates per rigid body), so the step's whole Jacobian is assembled; its unit rows (an inactive constraint's
   x_i = 0, about a third of the rows of a mechanism whose contacts are open) are eliminated and the rest is factored by a
   small LU with partial pivoting written here (at these sizes, N <= 60, LAPACK's blocked getrf costs more in its calls
   than in its arithmetic: bench/RESULTS.md, the slider-crank). */
#include "stepimpl.h"
#include <petscblaslapack.h>

PetscErrorCode VISSNewtonCreate(PetscInt N, PetscInt max_it, PetscReal tol, VISSNewton *nw)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(nw, sizeof(*nw))); /* the options (hinted, nd, chord, the blocks) off until the caller sets them */
  nw->N      = N;
  nw->max_it = max_it;
  nw->tol    = tol;
  PetscCall(PetscCalloc3(PetscMax(N, 1), &nw->F, PetscMax(N * N, 1), &nw->J, PetscMax(N, 1), &nw->ipiv));
  PetscCall(PetscCalloc4(3 * PetscMax(N, 1), &nw->keep, PetscMax(N * N, 1), &nw->A, PetscMax(N, 1), &nw->b, PetscMax(N, 1), &nw->unit));
  PetscCall(PetscCalloc6(PetscMax(N * N, 1), &nw->ucols, PetscMax(N, 1), &nw->unz, 3 * PetscMax(N, 1), &nw->diag, PetscMax(N, 1), &nw->perm,
                         PetscMax(N, 1), &nw->unit_last, PetscMax(N, 1), &nw->cmax));
  PetscCall(PetscCalloc2(PetscMax(N * N, 1), &nw->bidx, PetscMax(N, 1), &nw->bnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISSNewtonSetBlocks(VISSNewton *nw, PetscInt nd, PetscInt bs)
{
  PetscFunctionBeginUser;
  PetscCheck(bs >= 1 && bs <= VI_SSNEWTON_MAX_BLOCK && nd % bs == 0 && nd <= nw->N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "VISSNewtonSetBlocks: %" PetscInt_FMT " leading rows in blocks of %" PetscInt_FMT, nd, bs);
  PetscCall(PetscFree2(nw->binv, nw->seen));
  nw->nd = nd;
  nw->bs = bs;
  if (bs > 1) PetscCall(PetscCalloc2(nd * bs + nd, &nw->binv, nd / bs, &nw->seen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISSNewtonDestroy(VISSNewton *nw)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(nw->binv, nw->seen));
  PetscCall(PetscFree2(nw->bidx, nw->bnz));
  PetscCall(PetscFree3(nw->F, nw->J, nw->ipiv));
  PetscCall(PetscFree4(nw->keep, nw->A, nw->b, nw->unit));
  PetscCall(PetscFree6(nw->ucols, nw->unz, nw->diag, nw->perm, nw->unit_last, nw->cmax));
  PetscCall(PetscMemzero(nw, sizeof(*nw)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b = U^-1 b with the factor U of VISSNewtonEliminate (in nw->A, its nonzeros right of the diagonal in ucols) */
static inline void VISSNewtonBackSubstitute(VISSNewton *nw, PetscInt k)
{
  const PetscReal *A = nw->A;
  PetscReal       *b = nw->b;

  for (PetscInt c = k - 1; c >= 0; c--) {
    const PetscInt *cols = nw->ucols + c * nw->N;
    PetscReal       r    = b[c];
    for (PetscInt a = 0; a < nw->unz[c]; a++) r -= A[c * k + cols[a]] * b[cols[a]];
    b[c] = r / A[c * k + c];
  }
}

/* Gaussian elimination with partial pivoting of the k x k system A x = b (nw->A row-major, nw->b, x into b). Returns
   PETSC_FALSE when a pivot is 0 or below VI_SSNEWTON_PIVOT times its column's largest entry before the elimination (singular
   to round-off: redundant rows, whose step would be round-off divided by round-off). */
static inline PetscBool VISSNewtonEliminate(VISSNewton *nw, PetscInt k)
{
  const PetscInt  N      = nw->N;
  const PetscBool keep_l = nw->chord;
  PetscReal      *A = nw->A, *b = nw->b;
  PetscInt       *perm = nw->perm, *unz = nw->unz, *ucols = nw->ucols;
  PetscReal      *cmax = nw->cmax;

  for (PetscInt c = 0; c < k; c++) cmax[c] = 0;
  for (PetscInt r = 0; r < k; r++)
    for (PetscInt c = 0; c < k; c++) cmax[c] = PetscMax(cmax[c], PetscAbsReal(A[r * k + c]));
  for (PetscInt c = 0; c < k; c++) {
    PetscInt  p   = c;
    PetscReal big = PetscAbsReal(A[c * k + c]);
    for (PetscInt r = c + 1; r < k; r++)
      if (PetscAbsReal(A[r * k + c]) > big) {
        big = PetscAbsReal(A[r * k + c]);
        p   = r;
      }
    if (big == 0 || big <= VI_SSNEWTON_PIVOT * cmax[c]) return PETSC_FALSE;
    perm[c] = p;
    if (p != c) {
      for (PetscInt j = keep_l ? 0 : c; j < k; j++) { /* with chord steps the whole row: L's part too, for VISSNewtonResolve */
        PetscReal tmp = A[c * k + j];
        A[c * k + j]  = A[p * k + j];
        A[p * k + j]  = tmp;
      }
      PetscReal tmp = b[c];
      b[c]          = b[p];
      b[p]          = tmp;
    }
    {
      /* the pivot row's nonzeros only: the Jacobians are sparse (M diagonal, a joint's or contact's row touches two bodies) */
      const PetscReal  inv = 1 / A[c * k + c];
      const PetscReal *Ac  = A + c * k;
      PetscInt         nz = 0, *cols = ucols + c * N; /* kept for the back-substitution: row c is final from here */
      for (PetscInt j = c + 1; j < k; j++)
        if (Ac[j] != 0) cols[nz++] = j;
      unz[c] = nz;
      for (PetscInt r = c + 1; r < k; r++) {
        PetscReal *Ar = A + r * k, l = Ar[c] * inv;
        if (l == 0) continue;
        if (keep_l) Ar[c] = l; /* L, kept for VISSNewtonResolve */
        for (PetscInt a = 0; a < nz; a++) Ar[cols[a]] -= l * Ac[cols[a]];
        b[r] -= l * b[c];
      }
    }
  }
  VISSNewtonBackSubstitute(nw, k);
  nw->k = k;
  return PETSC_TRUE;
}

/* The inverse of the leading block's group g (VISSNewton.bs rows, diag when bs = 1) */
static inline const PetscReal *VISSNewtonGroupInverse(const VISSNewton *nw, PetscInt g)
{
  return nw->bs > 1 ? nw->binv + g * nw->bs * nw->bs : nw->diag + g;
}

/* d_K = b (the kept rows' solution) into F, and d_V = y - a^-1 B d_K on the nd leading rows (nd = 0: the dense path) */
static void VISSNewtonScatter(VISSNewton *nw, PetscInt nd)
{
  const PetscInt   N = nw->N, k = nw->k, *keep = nw->keep, bs = nw->bs > 1 ? nw->bs : 1, s = bs > 1 ? nd / bs : nd;
  const PetscReal *J = nw->J, *b = nw->b, *y = nw->diag + N;
  PetscReal       *F = nw->F, *t = nw->binv + nd * bs; /* bs > 1: B d_K, nd */

  for (PetscInt a = 0; a < k; a++) F[keep[a]] = b[a];
  for (PetscInt i = 0; i < nd; i++) {
    const PetscReal *Ji = J + i * N;
    const PetscInt  *ci = nw->bidx + i * N;
    PetscReal        r  = 0;
    for (PetscInt a = 0; a < nw->bnz[i]; a++) r += Ji[keep[ci[a]]] * b[ci[a]]; /* B's nonzeros (VISSNewtonSchur) */
    if (bs == 1)
      F[i] = y[i] - nw->diag[i] * r;
    else
      t[i] = r;
  }
  for (PetscInt g = 0; g < s && bs > 1; g++) { /* d_V = y - a_g^-1 (B d_K)_g, group by group */
    const PetscReal *ig = VISSNewtonGroupInverse(nw, g);
    for (PetscInt a = 0; a < bs; a++) {
      PetscReal r = y[g + a * s];
      for (PetscInt c = 0; c < bs; c++) r -= ig[a * bs + c] * t[g + c * s];
      F[g + a * s] = r;
    }
  }
}

/* y = a^-1 (F_V - J_VU F_U) on the leading rows, with the u unit rows unit[] (the Schur path's first part, and its chord
   steps') */
static void VISSNewtonSchurY(VISSNewton *nw, PetscInt u, const PetscInt unit[])
{
  const PetscInt   N = nw->N, nd = nw->nd, bs = nw->bs > 1 ? nw->bs : 1, s = nd / bs;
  const PetscReal *J = nw->J, *F = nw->F;
  PetscReal       *y = nw->diag + N, *t = bs > 1 ? nw->binv + nd * bs : y;

  for (PetscInt i = 0; i < nd; i++) {
    const PetscReal *Ji = J + i * N;
    PetscReal        r  = F[i];
    for (PetscInt c = 0; c < u; c++) r -= Ji[unit[c]] * F[unit[c]];
    if (bs == 1)
      y[i] = nw->diag[i] * r;
    else
      t[i] = r;
  }
  for (PetscInt g = 0; g < s && bs > 1; g++) {
    const PetscReal *ig = VISSNewtonGroupInverse(nw, g);
    for (PetscInt a = 0; a < bs; a++) {
      PetscReal r = 0;
      for (PetscInt c = 0; c < bs; c++) r += ig[a * bs + c] * t[g + c * s];
      y[g + a * s] = r;
    }
  }
}

/* The leading nd x nd block of J: diagonal (bs = 1), or block diagonal in its s = nd / bs interleaved groups
   {g, g + s, ..., g + (bs - 1) s} (VISSNewtonSetBlocks); each group's block inverted (Gauss-Jordan with partial pivoting)
   into VISSNewtonGroupInverse. PETSC_FALSE when it is not, or a group is singular (VI_SSNEWTON_PIVOT). */
static PetscBool VISSNewtonLeadingBlock(VISSNewton *nw)
{
  const PetscInt   N = nw->N, nd = nw->nd, bs = nw->bs > 1 ? nw->bs : 1, s = nd / bs;
  const PetscReal *J = nw->J;

  for (PetscInt i = 0; i < nd; i++) {
    const PetscReal *Ji = J + i * N;
    if (nw->unit[i] || (bs == 1 && Ji[i] == 0)) return PETSC_FALSE;
    for (PetscInt c = 0; c < nd; c++)
      if (Ji[c] != 0 && c % s != i % s) return PETSC_FALSE;
  }
  if (bs == 1) {
    for (PetscInt i = 0; i < nd; i++) nw->diag[i] = 1 / J[i * N + i];
    return PETSC_TRUE;
  }
  for (PetscInt g = 0; g < s; g++) {
    PetscReal a[VI_SSNEWTON_MAX_BLOCK * VI_SSNEWTON_MAX_BLOCK], *ig = nw->binv + g * bs * bs, big = 0;
    for (PetscInt r = 0; r < bs; r++)
      for (PetscInt c = 0; c < bs; c++) {
        a[r * bs + c]  = J[(g + r * s) * N + g + c * s];
        ig[r * bs + c] = r == c ? 1 : 0;
        big            = PetscMax(big, PetscAbsReal(a[r * bs + c]));
      }
    for (PetscInt c = 0; c < bs; c++) {
      PetscInt p = c;
      for (PetscInt r = c + 1; r < bs; r++)
        if (PetscAbsReal(a[r * bs + c]) > PetscAbsReal(a[p * bs + c])) p = r;
      if (a[p * bs + c] == 0 || PetscAbsReal(a[p * bs + c]) <= VI_SSNEWTON_PIVOT * big) return PETSC_FALSE;
      for (PetscInt j = 0; j < bs && p != c; j++) {
        PetscReal t = a[c * bs + j], w = ig[c * bs + j];
        a[c * bs + j]  = a[p * bs + j];
        a[p * bs + j]  = t;
        ig[c * bs + j] = ig[p * bs + j];
        ig[p * bs + j] = w;
      }
      {
        const PetscReal inv = 1 / a[c * bs + c];
        for (PetscInt j = 0; j < bs; j++) {
          a[c * bs + j] *= inv;
          ig[c * bs + j] *= inv;
        }
      }
      for (PetscInt r = 0; r < bs; r++) {
        const PetscReal l = a[r * bs + c];
        if (r == c || l == 0) continue;
        for (PetscInt j = 0; j < bs; j++) {
          a[r * bs + j] -= l * a[c * bs + j];
          ig[r * bs + j] -= l * ig[c * bs + j];
        }
      }
    }
  }
  return PETSC_TRUE;
}

/* The Schur path of VISSNewtonLinearSolve, for a J whose leading nd x nd block a is diagonal, or block diagonal in
   interleaved groups (VISSNewtonSetBlocks: nsgalpha's (delta_i, U_i, W_i) of a coordinate i of planar rigid bodies), no
   unit row among its rows: with V the leading rows, K the other rows that are not unit rows, U the unit rows (d_U = F_U),
     a d_V + B d_K = b_V,  C d_V + D d_K = b_K  (b = F - J[:, U] F_U),
   d_K from the Schur complement (D - C a^-1 B) d_K = b_K - C a^-1 b_V (|K| x |K|, the active constraints' rows: a
   Delassus matrix with the curvature and friction terms), then d_V = a^-1 (b_V - B d_K). C's rows are read at their
   nonzeros (a joint's or contact's row touches two bodies), C a^-1 at the groups those touch. The same solution as the
   dense elimination's, to round-off. Sets *done PETSC_FALSE (J untouched) when a is not (block) diagonal or is singular. */
static PetscBool VISSNewtonSchur(VISSNewton *nw, PetscBool *done)
{
  const PetscInt N = nw->N, nd = nw->nd, bs = nw->bs > 1 ? nw->bs : 1, s = nd / bs;
  PetscReal     *J = nw->J, *F = nw->F, *A = nw->A, *b = nw->b, *ia = nw->diag, *y = nw->diag + N, *cs = nw->diag + 2 * N;
  PetscInt       k = 0, u = 0, *keep = nw->keep, *unit = nw->keep + N, *cv = nw->keep + 2 * N, *seen = nw->seen;

  *done = VISSNewtonLeadingBlock(nw);
  if (!*done) return PETSC_TRUE;
  for (PetscInt i = nd; i < N; i++) { /* the unit rows with d_i = F_i = 0 (an inactive multiplier at 0) move nothing */
    if (!nw->unit[i])
      keep[k++] = i;
    else if (F[i] != 0)
      unit[u++] = i;
  }
  VISSNewtonSchurY(nw, u, unit);      /* y = a^-1 b_V */
  for (PetscInt v = 0; v < nd; v++) { /* B's nonzeros, row by row: the kept columns a momentum row touches */
    const PetscReal *Jv = J + v * N;
    PetscInt        *cb = nw->bidx + v * N, nb = 0;
    for (PetscInt c = 0; c < k; c++)
      if (Jv[keep[c]] != 0) cb[nb++] = c;
    nw->bnz[v] = nb;
  }
  for (PetscInt a = 0; a < k; a++) {
    const PetscReal *Jr = J + keep[a] * N;
    PetscReal       *Wa = A + a * k, r = F[keep[a]];
    PetscInt         nz = 0;
    for (PetscInt c = 0; c < u; c++) r -= Jr[unit[c]] * F[unit[c]];
    for (PetscInt v = 0; v < nd; v++)
      if (Jr[v] != 0) {
        r -= Jr[v] * y[v];
        if (bs == 1) {
          cv[nz]   = v;
          cs[nz++] = Jr[v] * ia[v];
        } else if (seen[v % s] != a + 1) { /* (C a^-1) on the group of v, once per row */
          const PetscInt   g  = v % s;
          const PetscReal *ig = VISSNewtonGroupInverse(nw, g);
          seen[g]             = a + 1;
          for (PetscInt c = 0; c < bs; c++) {
            PetscReal w = 0;
            for (PetscInt e = 0; e < bs; e++) w += Jr[g + e * s] * ig[e * bs + c];
            cv[nz]   = g + c * s;
            cs[nz++] = w;
          }
        }
      }
    for (PetscInt c = 0; c < k; c++) Wa[c] = Jr[keep[c]];
    for (PetscInt z = 0; z < nz; z++) { /* W_a -= (C a^-1)_z B_z at B_z's nonzeros: the same sums as over every column */
      const PetscReal *Jz = J + cv[z] * N;
      const PetscInt  *cb = nw->bidx + cv[z] * N;
      for (PetscInt e = 0; e < nw->bnz[cv[z]]; e++) Wa[cb[e]] -= cs[z] * Jz[keep[cb[e]]];
    }
    b[a] = r;
  }
  for (PetscInt g = 0; g < s && bs > 1; g++) seen[g] = 0;
  nw->schur = PETSC_TRUE;
  if (!VISSNewtonEliminate(nw, k)) return PETSC_FALSE;
  VISSNewtonScatter(nw, nd);
  return PETSC_TRUE;
}

/* Solve J d = F in place of F (J row-major N x N): by the Schur complement when nw->nd > 0 and J's leading block is
   diagonal (VISSNewtonSchur); otherwise the unit rows i (J_ik = delta_ik) give d_i = F_i and the other rows, with those d_i
   moved to the right-hand side, are solved by Gaussian elimination with partial pivoting. Returns PETSC_FALSE when a pivot
   is 0 (singular). */
static PetscBool VISSNewtonLinearSolve(VISSNewton *nw)
{
  const PetscInt N = nw->N;
  PetscReal     *J = nw->J, *F = nw->F, *A = nw->A, *b = nw->b;
  PetscInt       k = 0, u = 0, *unit = nw->keep + N; /* keep: the kept rows, from N the unit rows, from 2 N scratch */

  nw->schur = PETSC_FALSE;
  if (nw->nd > 0 && nw->hinted) {
    PetscBool done, ok = VISSNewtonSchur(nw, &done);
    if (done) return ok;
  }
  for (PetscInt i = 0; i < N; i++) {
    const PetscReal *Ji  = J + i * N;
    PetscBool        isu = nw->hinted ? nw->unit[i] : (Ji[i] == 1 ? PETSC_TRUE : PETSC_FALSE);
    for (PetscInt c = 0; c < N && isu && !nw->hinted; c++) isu = c == i || Ji[c] == 0 ? PETSC_TRUE : PETSC_FALSE;
    if (isu)
      unit[u++] = i; /* d_i = F_i */
    else
      nw->keep[k++] = i;
  }
  for (PetscInt a = 0; a < k; a++) {
    const PetscReal *Ji = J + nw->keep[a] * N;
    PetscReal       *Aa = A + a * k, r = F[nw->keep[a]];
    for (PetscInt c = 0; c < u; c++) r -= Ji[unit[c]] * F[unit[c]];
    for (PetscInt c = 0; c < k; c++) Aa[c] = Ji[nw->keep[c]];
    b[a] = r;
  }
  if (!VISSNewtonEliminate(nw, k)) return PETSC_FALSE;
  for (PetscInt a = 0; a < k; a++) F[nw->keep[a]] = b[a];
  return PETSC_TRUE;
}

/* d = J^-1 F in place of F with the factors of the last VISSNewtonLinearSolve (J, its unit rows and kept rows unchanged,
   F new): the chord step. Same path (Schur or dense) and arithmetic as that solve's right-hand side. */
static void VISSNewtonResolve(VISSNewton *nw)
{
  const PetscInt N = nw->N, nd = nw->schur ? nw->nd : 0, k = nw->k, *keep = nw->keep;
  PetscReal     *J = nw->J, *F = nw->F, *A = nw->A, *b = nw->b, *y = nw->diag + N;
  PetscInt       u = 0, *unit = nw->keep + N;

  for (PetscInt i = nd; i < N; i++)
    if (nw->unit[i] && F[i] != 0) unit[u++] = i;
  if (nd > 0) VISSNewtonSchurY(nw, u, unit);
  for (PetscInt a = 0; a < k; a++) {
    const PetscReal *Jr = J + keep[a] * N;
    PetscReal        r  = F[keep[a]];
    for (PetscInt c = 0; c < u; c++) r -= Jr[unit[c]] * F[unit[c]];
    for (PetscInt v = 0; v < nd; v++)
      if (Jr[v] != 0) r -= Jr[v] * y[v];
    b[a] = r;
  }
  /* L^-1 P b: every interchange first, then L (as LAPACK's getrs): L's rows were swapped with the later pivots' rows
     (VISSNewtonEliminate), so that L holds the rows in their final order; applying the interchanges between the columns'
     eliminations instead read L's rows in the wrong places whenever a later pivot swapped them */
  for (PetscInt c = 0; c < k; c++) {
    const PetscInt p = nw->perm[c];
    if (p != c) {
      PetscReal tmp = b[c];
      b[c]          = b[p];
      b[p]          = tmp;
    }
  }
  for (PetscInt c = 0; c < k; c++)
    for (PetscInt r = c + 1; r < k; r++) b[r] -= A[r * k + c] * b[c];
  VISSNewtonBackSubstitute(nw, k);
  VISSNewtonScatter(nw, nd);
}

PetscErrorCode VISSNewtonSolve(VIStepper st, VISSNewton *nw, VISSNewtonFormFn form, void *ctx, PetscReal x[])
{
  const PetscInt N = nw->N;
  PetscInt       it;
  PetscBool      converged = PETSC_FALSE;
  PetscReal      step = 0, last = PETSC_MAX_REAL, last_xmax = 0, before = PETSC_MAX_REAL;
  PetscBool      plast = PETSC_FALSE;

  PetscFunctionBeginUser;
  for (it = 0; it < nw->max_it && !converged; it++) {
    PetscReal xmax = 0;
    PetscBool chord = PETSC_FALSE;
    if (nw->chord && it > 0 && step <= VI_SSNEWTON_CHORD * (1 + last_xmax) && step < VI_SSNEWTON_CHORD_RATE * before) {
      /* a chord step: the residual alone, solved with the last Jacobian's factors, while the active set (the unit rows) stays
         and the steps contract (the Jacobian's change since it was formed is of the order of the steps since) */
      PetscCall(PetscArraycpy(nw->unit_last, nw->unit, N));
      nw->same = PETSC_TRUE;
      PetscCall((*form)(ctx, x, nw->F, NULL));
      chord = nw->same;
      for (PetscInt i = 0; i < N && chord; i++) chord = nw->unit[i] == nw->unit_last[i] ? PETSC_TRUE : PETSC_FALSE;
    }
    if (chord)
      VISSNewtonResolve(nw);
    else {
      PetscBool ok;
      PetscCall((*form)(ctx, x, nw->F, nw->J));
      ok = VISSNewtonLinearSolve(nw);
      if (!ok && !nw->regularize) { /* redundant rows: formed again with the forms' diagonal terms (VISSNewton.regularize) */
        nw->regularize = PETSC_TRUE;
        PetscCall((*form)(ctx, x, nw->F, nw->J));
        ok = VISSNewtonLinearSolve(nw);
      }
      if (!ok) nw->regularize = PETSC_FALSE;
      PetscCheck(ok, st->comm, PETSC_ERR_USER_INPUT,
                 "-step_type %s: the step's Newton matrix is singular on this nonlinear system: the active constraints' gradients are linearly "
                 "dependent (a redundant joint?)",
                 st->type);
    }
    before = chord ? step : PETSC_MAX_REAL; /* a full step is followed by a chord step if small; a chord step by another if it contracted */
    step   = 0;
    for (PetscInt i = 0; i < N; i++) {
      x[i] -= nw->F[i];
      step = PetscMax(step, PetscAbsReal(nw->F[i]));
      xmax = PetscMax(xmax, PetscAbsReal(x[i]));
    }
    converged = step <= nw->tol * (1 + xmax) ? PETSC_TRUE : PETSC_FALSE;
    /* a regularized solve (redundant rows): the redundant multipliers' split is free, and their step is the residual's
       round-off over eps (about 1e-6 of their size), no convergence; the motion's unknowns (np) are what converges: their step
       below the tolerance twice in a row (the first may still carry a momentum residual the multipliers' step removes) */
    if (!converged && nw->regularize && nw->np > 0) {
      PetscReal pstep = 0, pmax = 0;
      PetscBool pc;
      for (PetscInt i = 0; i < nw->np; i++) {
        pstep = PetscMax(pstep, PetscAbsReal(nw->F[i]));
        pmax  = PetscMax(pmax, PetscAbsReal(x[i]));
      }
      pc        = pstep <= nw->tol * (1 + pmax) ? PETSC_TRUE : PETSC_FALSE;
      converged = pc && plast ? PETSC_TRUE : PETSC_FALSE;
      plast     = pc;
    }
    /* the round-off floor: an update that no longer shrinks once below VI_SSNEWTON_FLOOR (1 + |x|) is the noise of the
       residual (a stiff elastic body on a joint: its force is K times the joint's position round-off, 1e-10 of it with an
       almost rigid rod), not a slow convergence */
    if (!converged && !chord && step <= VI_SSNEWTON_FLOOR * (1 + xmax) && step > 0.5 * last) converged = PETSC_TRUE;
    last      = step;
    last_xmax = xmax;
  }
  nw->regularize = PETSC_FALSE;
  st->stats.contact_solves++;
  st->stats.contact_iterations += it;
  st->stats.contact_iterations_max = PetscMax(st->stats.contact_iterations_max, it);
  if (!converged) {
    st->stats.nonconverged++;
    st->stats.contact_residual_max = PetscMax(st->stats.contact_residual_max, step);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VINonlinearConstraints(VIStepper st, PetscReal t, const PetscReal q[], PetscReal g[], PetscReal G[], PetscReal H[])
{
  const PetscInt n = st->n, m = st->nc;

  PetscFunctionBeginUser;
  if (g || G) PetscCall(VISystemEvaluateConstraints(st->sys, t, q, g, G, NULL));
  if (H) {
    PetscReal w[VI_MAX_CONTACTS];
    PetscCall(PetscArrayzero(w, m));
    for (PetscInt r = 0; r < m; r++) {
      w[r] = 1;
      PetscCall(VISystemComputeConstraintCurvature(st->sys, t, q, w, H + r * n * n));
      w[r] = 0;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VINonlinearRestitution(VIStepper st, PetscReal e[])
{
  const PetscReal *es;

  PetscFunctionBeginUser;
  PetscCall(VISystemGetRestitution(st->sys, &es));
  for (PetscInt j = 0; j < st->nc; j++) e[j] = st->set.kinds[j] == VI_CONTACT_BILATERAL ? 0 : (es ? es[j] : st->restitution);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VINonlinearWork(VIStepper st, PetscReal t, PetscReal h, const PetscReal qn[], const PetscReal vn[], const PetscReal G[], PetscInt mt,
                               const PetscInt trow[], const PetscReal Gt[], PetscReal *power, PetscReal w[])
{
  const PetscInt n = st->n, m = st->nc;
  PetscReal     *fn = w, *f = w + n, Tn, Vn, T, V, wf = 0, wc = 0, p1 = 0;
  PetscBool      constant;

  PetscFunctionBeginUser;
  PetscCall(VISystemHasConstantMass(st->sys, &constant));
  PetscCall(VISystemComputeForce(st->sys, t - h, qn, vn, fn));
  PetscCall(VISystemComputeForce(st->sys, t, st->q, st->u, f));
  PetscCall(VISystemComputeEnergy(st->sys, qn, vn, &Tn, &Vn));
  PetscCall(VISystemComputeEnergy(st->sys, st->q, st->u, &T, &V));
  for (PetscInt i = 0; i < n; i++) wf += 0.25 * h * (fn[i] + f[i]) * (vn[i] + st->u[i]);
  if (!constant) {
    /* f holds the quadratic velocity vector Q_v of a mass M(q), whose power is Q_v . v = -v^T (dM/dt) v / 2 (it moves energy
       between the coordinates, it does no external work): its trapezoid, v^T dM/dt v = v^T (d(M v)/dq) v, is taken out */
    PetscReal *B = w + 2 * n, p0 = 0, p1v = 0; /* n x n of the scratch (VI_NONLINEAR_WORK_SIZE) */
    PetscCall(VISystemComputeMassJacobian(st->sys, qn, vn, B));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = 0; k < n; k++) p0 += vn[i] * B[i * n + k] * vn[k];
    PetscCall(VISystemComputeMassJacobian(st->sys, st->q, st->u, B));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = 0; k < n; k++) p1v += st->u[i] * B[i * n + k] * st->u[k];
    wf += 0.25 * h * (p0 + p1v);
  }
  {
    PetscReal *vm = w + 2 * n; /* the mean velocity (the mass section's scratch is free again) */
    for (PetscInt i = 0; i < n; i++) vm[i] = 0.5 * (vn[i] + st->u[i]);
  }
  for (PetscInt j = 0; j < m; j++) {
    const PetscBool  smooth = power && st->set.kinds[j] == VI_CONTACT_BILATERAL ? PETSC_TRUE : PETSC_FALSE;
    const PetscReal *vj     = smooth ? st->u : w + 2 * n;
    PetscReal        gv     = 0;
    if (st->lambda[st->offsets[j]] == 0) continue; /* a zero term (an open contact) */
    for (PetscInt i = 0; i < n; i++) gv += G[j * n + i] * vj[i];
    if (smooth)
      p1 += st->lambda[st->offsets[j]] * gv;
    else
      wc += h * st->lambda[st->offsets[j]] * gv;
  }
  for (PetscInt k = 0, a = 0; k < mt; k++) {
    PetscReal gv = 0;
    a            = k > 0 && trow[k - 1] == trow[k] ? a + 1 : 1; /* the row's place after its contact's normal one */
    if (st->lambda[st->offsets[trow[k]] + a] == 0) continue;
    for (PetscInt i = 0; i < n; i++) gv += Gt[k * n + i] * w[2 * n + i]; /* the mean velocity (a halving is exact either way) */
    wc += h * st->lambda[st->offsets[trow[k]] + a] * gv;
  }
  if (power) {
    wc += 0.5 * h * (*power + p1);
    *power = p1;
  }
  st->energy.external_work += wf + V - Vn;
  st->energy.obstacle_work += wc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Alart-Curnier's sigma = Pt - r w_t, w_t = w0 + Gt v, of one contact's d tangential rows, and |sigma| */
static PetscReal VINonlinearCoulombSigma(PetscInt n, PetscInt d, const PetscReal Gt[], const PetscReal v[], const PetscReal w0[], PetscReal r,
                                         const PetscReal Pt[], PetscReal w[], PetscReal sig[])
{
  PetscReal norm = 0;

  for (PetscInt a = 0; a < d; a++) {
    w[a] = w0 ? w0[a] : 0;
    for (PetscInt i = 0; i < n; i++) w[a] += Gt[a * n + i] * v[i];
    sig[a] = Pt[a] - r * w[a];
    norm += sig[a] * sig[a];
  }
  return d == 1 ? PetscAbsReal(sig[0]) : PetscSqrtReal(norm);
}

PetscBool VINonlinearCoulombSticks(PetscInt n, PetscInt d, const PetscReal Gt[], const PetscReal v[], const PetscReal w0[], PetscReal mu, PetscReal r,
                                   PetscBool closed, PetscReal Pn, const PetscReal Pt[])
{
  PetscReal w[2], sig[2];

  return closed && VINonlinearCoulombSigma(n, d, Gt, v, w0, r, Pt, w, sig) <= mu * PetscMax(Pn, 0) ? PETSC_TRUE : PETSC_FALSE;
}

void VINonlinearCoulomb(PetscInt n, PetscInt d, const PetscReal Gt[], const PetscReal v[], const PetscReal w0[], PetscReal mu, PetscReal r,
                        PetscBool closed, PetscReal Pn, const PetscReal Pt[], PetscInt N, PetscInt nv, const PetscInt cv[], const PetscReal cs[],
                        PetscInt cn, PetscInt ct, PetscReal F[], PetscReal J[], PetscBool unit[])
{
  const PetscReal radius = mu * PetscMax(Pn, 0);
  PetscReal       w[2], sig[2], z[2], norm;

  if (!closed) { /* off: unit rows F = Pt (below), without sigma */
    for (PetscInt a = 0; a < d; a++) {
      F[a] = Pt[a];
      if (unit)
        unit[ct + a] = PETSC_TRUE;
      else
        J[a * N + ct + a] = 1;
    }
    return;
  }
  norm = VINonlinearCoulombSigma(n, d, Gt, v, w0, r, Pt, w, sig);
  for (PetscInt a = 0; a < d; a++) z[a] = sig[a];
  if (d > 1) VIProjectDisk(d, radius, z); /* slip: Pt = the projection of sigma on the disk (seed 000 Eq. C.4) */
  for (PetscInt a = 0; a < d; a++) {
    PetscReal *Ja = J + a * N;
    if (!closed || (norm > radius && Pn <= 0)) {
      /* a unit row (off, or slipping on a disk of radius 0: F = Pt): flagged and not written, or written into a zeroed J */
      F[a] = Pt[a];
      if (unit) unit[ct + a] = PETSC_TRUE;
      else Ja[ct + a] = 1;
      continue;
    }
    if (unit) PetscArrayzero(Ja, N);
    if (norm <= radius) {
      /* stick: w_t = 0. Two contacts of one body sticking along one line are redundant (their rows alike): a tiny diagonal
         term 1e-10 / r in the Newton matrix (not in F, so the solution is unchanged) keeps it nonsingular and the split of
         the impulse between them where the iteration started */
      F[a] = w[a];
      for (PetscInt c = 0; c < nv; c++)
        for (PetscInt i = 0; i < n; i++) Ja[cv[c] + i] = cs ? cs[c] * Gt[a * n + i] : Gt[a * n + i];
      Ja[ct + a] = -1e-10 / r;
    } else {
      /* slip: F = Pt - radius s, s = sigma / |sigma|; dF/dPt = I - K, dF/dv = K r Gt, K = radius / |sigma| (I - s s^T) (0 in
         the plane, d = 1, where s is sigma's sign and radius s is exact), dF/dPn = -mu s */
      const PetscReal sa = d == 1 ? (sig[0] > 0 ? 1 : -1) : sig[a] / norm;
      F[a]               = Pt[a] - (d == 1 ? radius * sa : z[a]);
      Ja[ct + a]         = 1;
      Ja[cn]             = -mu * sa;
      for (PetscInt b = 0; b < d && d > 1; b++) {
        const PetscReal K = radius / norm * ((a == b ? 1 : 0) - sa * sig[b] / norm);
        Ja[ct + b] -= K;
        for (PetscInt c = 0; c < nv; c++)
          for (PetscInt i = 0; i < n; i++) Ja[cv[c] + i] += (cs ? cs[c] : 1) * K * r * Gt[b * n + i];
      }
    }
  }
}

PetscErrorCode VINonlinearInitialAcceleration(VIStepper st, PetscReal t, const PetscReal q[], const PetscReal u[], PetscReal a[], PetscReal lambda[])
{
  const PetscInt n = st->n, m = st->nc, nn = n * n;
  PetscInt       mb = 0, K;
  PetscReal     *A, *rhs, *M, *f, *G, *H, *gtt, *B, *rhs0;
  PetscBLASInt   bk, one = 1, info, *ipiv;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < m; j++)
    if (st->set.kinds[j] == VI_CONTACT_BILATERAL) mb++;
  K = n + mb;
  PetscCall(PetscCalloc4(K * K, &A, K, &rhs, K, &ipiv, nn, &M));
  PetscCall(PetscCalloc2(K * K, &B, K, &rhs0));
  PetscCall(PetscCalloc4(n, &f, PetscMax(m, 1) * n, &G, PetscMax(m, 1) * nn, &H, PetscMax(m, 1), &gtt));
  PetscCall(VISystemComputeMass(st->sys, q, M));
  PetscCall(VISystemEvaluateConstraintAcceleration(st->sys, t, gtt)); /* a rheonomic row's d^2 g/dt^2 (a driver's -phi'') */
  PetscCall(VISystemComputeForce(st->sys, t, q, u, f));
  PetscCall(VINonlinearConstraints(st, t, q, NULL, G, H));
  for (PetscInt i = 0; i < n; i++) { /* column-major K x K */
    for (PetscInt k = 0; k < n; k++) A[k * K + i] = M[i * n + k];
    rhs[i] = f[i];
  }
  for (PetscInt j = 0, b = 0; j < m; j++) {
    if (st->set.kinds[j] != VI_CONTACT_BILATERAL) continue;
    for (PetscInt k = 0; k < n; k++) {
      A[(n + b) * K + k] = -G[j * n + k];
      A[k * K + n + b]   = G[j * n + k];
    }
    for (PetscInt k = 0; k < n; k++)
      for (PetscInt i = 0; i < n; i++) rhs[n + b] -= u[k] * H[j * nn + k * n + i] * u[i];
    rhs[n + b] -= gtt[j];
    b++;
  }
  PetscCall(PetscBLASIntCast(K, &bk));
  PetscCall(PetscArraycpy(B, A, K * K));
  PetscCall(PetscArraycpy(rhs0, rhs, K));
  PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bk, &one, A, &bk, ipiv, rhs, &bk, &info));
  if (info > 0) {
    /* redundant joints (two hinges on one axis, a pin twice): the accelerations are determined, the split of the redundant rows'
       forces is not; solved again with -eps (G M^-1 G^T)_bb on the rows' diagonal, as the Newton solves do (VISSNewton.regularize):
       a the same to round-off, lambda one split of the forces */
    for (PetscInt j = 0, b = 0; j < m; j++) {
      PetscReal d = 0;
      if (st->set.kinds[j] != VI_CONTACT_BILATERAL) continue;
      for (PetscInt k = 0; k < n; k++) d += G[j * n + k] * G[j * n + k] / M[k * n + k];
      B[(n + b) * K + n + b] = -1e-10 * d;
      b++;
    }
    PetscCall(PetscArraycpy(A, B, K * K));
    PetscCall(PetscArraycpy(rhs, rhs0, K));
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bk, &one, A, &bk, ipiv, rhs, &bk, &info));
  }
  PetscCheck(info == 0, st->comm, PETSC_ERR_USER_INPUT,
             "-step_type %s: the initial accelerations are undetermined (gesv info %d): the mass matrix is singular on the joints' free motions",
             st->type, (int)info);
  PetscCall(PetscArraycpy(a, rhs, n));
  for (PetscInt j = 0, b = 0; j < m; j++) lambda[j] = st->set.kinds[j] == VI_CONTACT_BILATERAL ? rhs[n + b++] : 0;
  PetscCall(PetscFree4(A, rhs, ipiv, M));
  PetscCall(PetscFree2(B, rhs0));
  PetscCall(PetscFree4(f, G, H, gtt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
