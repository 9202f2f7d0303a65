/* The bands of unstable positions along a sliding path (issue 27): their edges by bisection, their peaks by golden-section
   search, on any function of the position that gives the largest real part of the kept eigenvalues (vicms cea). */
#include <vicms/coupling.h>

/*
  One edge: the bracket [a, b] of a sign change of the largest real part (unstable on the left when left_unstable), halved
  until it is no wider than tol. A point whose evaluation fails (no static state there) says nothing about the sign:
  the bracket is then split at its thirds instead; when those fail too, the bisection stops and the edge is known only
  to lie in [a, b]. out: the final a and b, the best unstable point met (real part, s, Hz; 0 when none).
*/
static PetscErrorCode VIBandsBisect(VIBandFunction f, void *ctx, PetscReal a, PetscReal b, PetscBool left_unstable, PetscReal tol, PetscReal out[5])
{
  static const PetscReal split[3] = {0.5, 1.0 / 3.0, 2.0 / 3.0};
  PetscReal              best = 0, bs = 0, bf = 0;

  PetscFunctionBeginUser;
  while (b - a > tol) {
    PetscReal mid = 0, r = 0, hz = 0;
    PetscBool failed = PETSC_TRUE;
    for (PetscInt k = 0; k < 3 && failed; k++) {
      mid = a + split[k] * (b - a);
      PetscCall((*f)(ctx, mid, &r, &hz, &failed));
    }
    if (failed) break;
    if (r > 0 && r > best) {
      best = r;
      bs   = mid;
      bf   = hz;
    }
    if ((r > 0) == left_unstable)
      a = mid;
    else
      b = mid;
  }
  out[0] = a;
  out[1] = b;
  out[2] = best;
  out[3] = bs;
  out[4] = bf;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The peak of a band by golden-section search on [a, z] to tol; a point that fails counts as no candidate (-inf). */
static PetscErrorCode VIBandsGolden(VIBandFunction f, void *ctx, PetscReal a, PetscReal z, PetscReal tol, PetscReal pk[3], PetscInt *nfailed)
{
  const PetscReal g = 0.5 * (PetscSqrtReal(5.0) - 1);
  PetscReal       x[2], r[2], hz[2];

  PetscFunctionBeginUser;
  x[0] = z - g * (z - a);
  x[1] = a + g * (z - a);
  for (PetscInt i = 0; i < 2; i++) {
    PetscBool failed;
    PetscCall((*f)(ctx, x[i], &r[i], &hz[i], &failed));
    if (failed) {
      r[i] = -PETSC_MAX_REAL;
      (*nfailed)++;
    }
  }
  while (z - a > tol) {
    PetscInt  i = r[0] > r[1] ? 0 : 1; /* 0: the peak is in [a, x1], keep x0 as the new x1; 1: in [x0, z] */
    PetscBool failed;
    if (i == 0) {
      z     = x[1];
      x[1]  = x[0];
      r[1]  = r[0];
      hz[1] = hz[0];
      x[0]  = z - g * (z - a);
    } else {
      a     = x[0];
      x[0]  = x[1];
      r[0]  = r[1];
      hz[0] = hz[1];
      x[1]  = a + g * (z - a);
    }
    PetscCall((*f)(ctx, x[i], &r[i], &hz[i], &failed));
    if (failed) {
      r[i] = -PETSC_MAX_REAL;
      (*nfailed)++;
    }
  }
  for (PetscInt i = 0; i < 2; i++)
    if (r[i] > pk[0]) {
      pk[0] = r[i];
      pk[1] = x[i];
      pk[2] = hz[i];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The bands of consecutive unstable positions (re[p] > 0; NaN: the position failed), each as a row of VI_BAND_COLS: start,
  end, peak real part, its s and its frequency; and per band the widths of the intervals its start and end are known to
  lie in (widths, B x 2): the final bracket (<= tol) for an edge by bisection; the bracket where the bisection stopped
  because its points failed, the band then reaching across it (the unknown part counted as unstable); the position
  spacing next to a failed position (the band ends at the last converged one; no bisection towards it); 0 at an end of
  the range. The edges and the bands are dealt to the ranks and gathered by exact sums over zero-filled arrays, so the
  result is the same on any number of ranks. Rank 0 prints one line per band and one per edge that could not be located.
  Collective.
*/
PetscErrorCode VIBandsLocate(MPI_Comm comm, PetscInt np, const PetscReal pos[], const PetscReal re[], const PetscReal hz[], PetscReal tol,
                             VIBandFunction f, void *ctx, PetscInt *num_bands, PetscReal **bands, PetscReal **widths)
{
  static const char *const sides[2] = {"start", "end"};
  PetscMPIInt              rank, size;
  PetscReal               *edge, *pk; /* per gap between p and p + 1: the 5 numbers of VIBandsBisect; per band: peak, s, Hz, failures */
  PetscInt ne = 0, nb = 0, *kind;     /* edges bisected, bands; per band edge: 0 located or a range end, 1 stopped, 2 next to a failed position */

  PetscFunctionBeginUser;
  PetscCheck(tol > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "VIBandsLocate: tolerance %g, expected > 0", (double)tol);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscCalloc1(5 * np, &edge));
  for (PetscInt p = 0; p + 1 < np; p++) {
    if (PetscIsNanReal(re[p]) || PetscIsNanReal(re[p + 1]) || (re[p] > 0) == (re[p + 1] > 0)) continue; /* NaN: no bisection towards it */
    if (ne++ % size == rank) PetscCall(VIBandsBisect(f, ctx, pos[p], pos[p + 1], re[p] > 0 ? PETSC_TRUE : PETSC_FALSE, tol, &edge[5 * p]));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, edge, (PetscMPIInt)(5 * np), MPIU_REAL, MPI_SUM, comm));
  PetscCall(PetscMalloc1(VI_BAND_COLS * (np / 2 + 1), bands));
  PetscCall(PetscMalloc1(2 * (np / 2 + 1), widths));
  PetscCall(PetscMalloc1(2 * (np / 2 + 1), &kind));
  for (PetscInt p = 0; p < np; p++) {
    PetscReal *b, *w;
    PetscInt   q, *k;
    if (!(re[p] > 0) || (p > 0 && re[p - 1] > 0)) continue;
    b = *bands + VI_BAND_COLS * nb;
    w = *widths + 2 * nb;
    k = kind + 2 * nb++;
    for (q = p; q < np && re[q] > 0; q++) /* the band's samples; NaN ends it */
      if (q == p || re[q] > b[2]) {
        b[2] = re[q];
        b[3] = pos[q];
        b[4] = hz[q];
      }
    for (PetscInt side = 0; side < 2; side++) { /* the start lies in the gap p - 1, the end in the gap q - 1 */
      const PetscInt   g = side ? q - 1 : p - 1, last = side ? q - 1 : p;
      const PetscReal *e = &edge[5 * PetscMax(g, 0)];
      if (side ? q == np : p == 0) { /* an end of the range */
        b[side] = pos[last];
        w[side] = 0;
        k[side] = 0;
      } else if (PetscIsNanReal(re[side ? q : p - 1])) { /* next to a failed position: the last converged one */
        b[side] = pos[last];
        w[side] = pos[g + 1] - pos[g];
        k[side] = 2;
      } else {
        w[side] = e[1] - e[0];
        k[side] = w[side] <= tol ? 0 : 1;
        b[side] = k[side] == 0 ? 0.5 * (e[0] + e[1]) : e[side]; /* stopped: the band reaches across the unknown bracket */
        if (e[2] > b[2]) {
          b[2] = e[2];
          b[3] = e[3];
          b[4] = e[4];
        }
      }
    }
  }
  /* the peak of each band by golden-section search around its best point so far, one position spacing either side (within the band) */
  PetscCall(PetscCalloc1(4 * nb + 1, &pk));
  for (PetscInt i = rank; i < nb; i += size) {
    PetscReal *b = *bands + VI_BAND_COLS * i, h = np > 1 ? pos[1] - pos[0] : 0;
    PetscInt   nfailed = 0;
    pk[4 * i]          = b[2];
    pk[4 * i + 1]      = b[3];
    pk[4 * i + 2]      = b[4];
    if (b[1] > b[0]) PetscCall(VIBandsGolden(f, ctx, PetscMax(b[0], b[3] - h), PetscMin(b[1], b[3] + h), tol, &pk[4 * i], &nfailed));
    pk[4 * i + 3] = (PetscReal)nfailed;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, pk, (PetscMPIInt)(4 * nb), MPIU_REAL, MPI_SUM, comm));
  for (PetscInt i = 0; i < nb; i++) {
    PetscReal *b = *bands + VI_BAND_COLS * i, *w = *widths + 2 * i;
    b[2] = pk[4 * i];
    b[3] = pk[4 * i + 1];
    b[4] = pk[4 * i + 2];
    PetscCall(PetscPrintf(comm, "  band %" PetscInt_FMT ": s = %g to %g, peak real part %g 1/s at s = %g (%g Hz)\n", i + 1, (double)b[0],
                          (double)b[1], (double)b[2], (double)b[3], (double)b[4]));
    for (PetscInt side = 0; side < 2; side++) {
      const PetscReal lo = (side == 0) == (kind[2 * i + side] == 1) ? b[side] : b[side] - w[side], hi = lo + w[side];
      if (kind[2 * i + side] == 1)
        PetscCall(PetscPrintf(
            comm, "    its %s lies between s = %g and %g: the bisection's points there failed (no static state); the band reaches across\n",
            sides[side], (double)lo, (double)hi));
      else if (kind[2 * i + side] == 2)
        PetscCall(PetscPrintf(comm, "    its %s lies between s = %g and %g, next to a failed position: the band %s at the last converged one\n",
                              sides[side], (double)lo, (double)hi, side ? "ends" : "starts"));
    }
    if (pk[4 * i + 3] > 0)
      PetscCall(
          PetscPrintf(comm, "    the static state failed at %" PetscInt_FMT " of the peak search's points (left out)\n", (PetscInt)pk[4 * i + 3]));
  }
  for (PetscInt i = 0; i < 2 * nb; i++) ne -= kind[i] == 1; /* the bisections stopped by failed points */
  PetscCall(PetscPrintf(comm, "Bands of instability (edges by bisection to %g): %" PetscInt_FMT " (%" PetscInt_FMT " edges located)\n", (double)tol,
                        nb, ne));
  *num_bands = nb;
  PetscCall(PetscFree(edge));
  PetscCall(PetscFree(pk));
  PetscCall(PetscFree(kind));
  PetscFunctionReturn(PETSC_SUCCESS);
}
