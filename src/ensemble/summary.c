/* Per-case quantities (peaks, steady-state RMS and amplitude), sweep envelopes, and the summaries of a job. */
#include "ensembleimpl.h"

PetscErrorCode VISummaryQuantityNames(VIROM rom, PetscInt *nq, char ***names)
{
  static const char *const kinds[VI_QUANTITIES_PER_OUTPUT] = {"max_abs", "rms", "amplitude", "mean", "min", "max"};
  PetscInt                 nout, c = 0;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetNumOutputs(rom, &nout));
  *nq = VI_QUANTITIES_PER_OUTPUT * nout + 2;
  PetscCall(PetscCalloc1(*nq + 1, names));
  for (PetscInt o = 0; o < nout; o++) {
    const char *out;
    PetscCall(VIROMGetOutput(rom, o, &out, NULL));
    for (PetscInt k = 0; k < VI_QUANTITIES_PER_OUTPUT; k++) {
      char name[128];
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_%s", kinds[k], out));
      PetscCall(PetscStrallocpy(name, &(*names)[c++]));
    }
  }
  PetscCall(PetscStrallocpy("max_contact_force", &(*names)[c++]));
  PetscCall(PetscStrallocpy("min_gap", &(*names)[c++]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISummaryQuantities(VIStepper st, PetscReal q[])
{
  VIRunStatistics s;
  PetscInt        c = 0;

  PetscFunctionBeginUser;
  PetscCall(VIStepperGetRunStatistics(st, &s));
  for (PetscInt o = 0; o < s.nout; o++) {
    q[c++] = s.max_abs[o];
    q[c++] = s.rms[o];
    q[c++] = 0.5 * (s.max[o] - s.min[o]);
    q[c++] = s.mean[o];
    q[c++] = s.min[o];
    q[c++] = s.max[o];
  }
  q[c++] = s.force_max;
  q[c++] = s.gap_min;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The note that summaries over cases of which some are still pending carry: "partial: N of M cases" (N finished, done or
   failed), empty when every case is finished. */
static void VISummaryPartial(PetscInt ncases, const PetscInt status[], char note[], size_t len)
{
  PetscInt finished = 0;

  for (PetscInt k = 0; k < ncases; k++) finished += status[k] ? 1 : 0;
  if (finished < ncases)
    snprintf(note, len, "partial: %" PetscInt_FMT " of %" PetscInt_FMT " cases", finished, ncases);
  else
    note[0] = 0;
}

PetscReal VIEnergyBalanceError(PetscInt nt, const PetscReal energy[])
{
  PetscReal err = 0, scale = 0;

  if (nt <= 0) return VI_NAN;
  for (PetscInt i = 0; i < nt; i++) {
    const PetscReal *e = energy + i * VI_ENERGY_COLUMNS;
    err                = PetscMax(err, PetscAbsReal(e[6]));
    scale              = PetscMax(scale, e[0] + e[1] + e[2] + e[3]);
  }
  return scale > 0 ? err / scale : 0;
}

static int VICompareReal(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* Rearrange v[lo..hi] so that v[k] is the value a sort would put there, with none larger before it and none smaller
   after it (Hoare's selection: linear time on average, where a sort of every merge's values would take N log N). */
static void VISelect(PetscReal v[], PetscInt lo, PetscInt hi, PetscInt k)
{
  while (hi > lo) {
    PetscReal a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
    PetscReal pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)); /* median of three */
    PetscInt  i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) i++;
      while (v[j] > pivot) j--;
      if (i <= j) {
        PetscReal t = v[i];
        v[i++]      = v[j];
        v[j--]      = t;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return;
  }
}

/* Statistics of quantity i over the done cases: mean, std (n - 1), min, q05, q25, q50, q75, q95, max; count n. The
   quantiles are numpy's default (linear between order statistics), found by selection in increasing order (each one
   among the values above the one before). */
static PetscErrorCode VIStatistics(PetscInt ncases, const PetscInt status[], PetscInt nq, const PetscReal quantities[], PetscInt i, PetscReal work[],
                                   PetscInt *n, PetscReal stats[9])
{
  static const PetscReal p[]  = {0.05, 0.25, 0.5, 0.75, 0.95};
  PetscReal              mean = 0, var = 0, lo, hi;
  PetscInt               from = 0;

  PetscFunctionBeginUser;
  *n = 0;
  for (PetscInt k = 0; k < ncases; k++)
    if (status[k] == 1 && !PetscIsInfOrNanReal(quantities[k * nq + i])) work[(*n)++] = quantities[k * nq + i];
  for (PetscInt j = 0; j < 9; j++) stats[j] = VI_NAN;
  if (*n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  lo = hi = work[0];
  for (PetscInt j = 0; j < *n; j++) {
    mean += work[j];
    lo = PetscMin(lo, work[j]);
    hi = PetscMax(hi, work[j]);
  }
  mean /= *n;
  for (PetscInt j = 0; j < *n; j++) var += (work[j] - mean) * (work[j] - mean);
  stats[0] = mean;
  stats[1] = *n > 1 ? PetscSqrtReal(var / (*n - 1)) : 0;
  stats[2] = lo;
  for (PetscInt j = 0; j < 5; j++) {
    PetscReal h = p[j] * (*n - 1), below, above;
    PetscInt  r = PetscMin((PetscInt)PetscFloorReal(h), *n - 1);
    VISelect(work, from, *n - 1, r);
    below = work[r];
    if (r + 1 < *n) {
      VISelect(work, r + 1, *n - 1, r + 1);
      above = work[r + 1];
    } else
      above = below;
    stats[3 + j] = r >= *n - 1 ? below : below + (h - r) * (above - below);
    from         = r;
  }
  stats[8] = hi;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Column of the case table named load_*_SUFFIX, or -1. */
static PetscErrorCode VIFindLoadColumn(VICaseSet cs, const char suffix[], PetscInt *col)
{
  PetscInt np;

  PetscFunctionBeginUser;
  *col = -1;
  PetscCall(VICaseSetGetSize(cs, NULL, &np));
  for (PetscInt p = 0; p < np && *col < 0; p++) {
    const char *name;
    size_t      ln, ls;
    PetscCall(VICaseSetGetParameterName(cs, p, &name));
    PetscCall(PetscStrlen(name, &ln));
    PetscCall(PetscStrlen(suffix, &ls));
    if (ln > ls + 5 && !strncmp(name, "load_", 5) && !strcmp(name + ln - ls, suffix)) *col = p;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The frequency response of constant-frequency cases: (frequency, amplitude of the output), done cases sorted by frequency. */
static PetscErrorCode VIFrequencyResponse(VICaseSet cs, const PetscInt status[], PetscInt nq, const char *const qnames[],
                                          const PetscReal quantities[], PetscInt output, PetscInt *m, PetscReal **frf)
{
  PetscInt         fcol, scol, ncases, np, qa = VI_QUANTITIES_PER_OUTPUT * output + VI_QUANTITY_AMPLITUDE;
  const PetscReal *table;

  PetscFunctionBeginUser;
  *m   = 0;
  *frf = NULL;
  /* the time stepping's steady-state amplitude (a harmonic balance job has its own quantities) */
  if (output < 0 || qa >= nq || strncmp(qnames[qa], "amplitude_", 10)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIFindLoadColumn(cs, "_frequency", &fcol));
  PetscCall(VIFindLoadColumn(cs, "_sweep_down", &scol));
  /* a frequency axis of the grid (a sampled frequency gives a scatter, which the statistics and plots show instead) */
  if (fcol < 0 || fcol >= cs->num_params - cs->num_random || scol >= 0 || output < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VICaseSetGetSize(cs, &ncases, &np));
  PetscCall(VICaseSetGetTable(cs, &table));
  PetscCall(PetscMalloc1(2 * PetscMax(ncases, 1), frf));
  for (PetscInt k = 0; k < ncases; k++)
    if (status[k] == 1) {
      (*frf)[2 * *m]     = table[k * np + fcol];
      (*frf)[2 * *m + 1] = quantities[k * nq + qa];
      (*m)++;
    }
  qsort(*frf, (size_t)*m, 2 * sizeof(PetscReal), VICompareReal);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISummaryWrite(hid_t file, VICaseSet cs, const PetscInt status[], PetscInt nq, const char *const qnames[],
                              const PetscReal quantities[], PetscInt output, const char output_name[], PetscInt bins)
{
  PetscInt   ncases, m, np, scol;
  PetscReal *frf, *work, *stats;
  PetscBool  sampled, has;
  char       rows[8192] = "", partial[96];

  PetscFunctionBeginUser;
  PetscCall(VICaseSetGetSize(cs, &ncases, &np));
  PetscCall(VICaseSetIsSampled(cs, &sampled));
  VISummaryPartial(ncases, status, partial, sizeof(partial));
  /* a merge into a results file merged before writes over its summaries in place: the cases only add to them (a
     histogram, the frequency response's rows), so no object of the last merge's is left over */
  PetscCall(VIH5Exists(file, "/summary", &has));
  if (!has) PetscCall(VIH5CreateGroup(file, "/summary"));
  {
    /* how many cases the summaries are over: a stopped job's are partial, and say so (also on each summary dataset) */
    PetscInt finished = 0;
    for (PetscInt k = 0; k < ncases; k++) finished += status[k] ? 1 : 0;
    PetscCall(VIH5WriteAttrInt(file, "/summary", "n_cases_finished", finished));
    PetscCall(VIH5WriteAttrInt(file, "/summary", "n_cases", ncases));
    PetscCall(VIH5WriteAttrString(file, "/summary", "partial", partial));
  }
  /* statistics of every quantity over the done cases, and histograms when the job samples */
  PetscCall(PetscMalloc2(PetscMax(ncases, 1), &work, 9 * nq, &stats));
  for (PetscInt i = 0; i < nq; i++) {
    PetscInt n;
    PetscCall(VIStatistics(ncases, status, nq, quantities, i, work, &n, stats + 9 * i));
    if (i) PetscCall(PetscStrlcat(rows, ",", sizeof(rows)));
    PetscCall(PetscStrlcat(rows, qnames[i], sizeof(rows)));
    if (sampled && n > 0) {
      PetscReal *edges, lo = stats[9 * i + 2], hi = stats[9 * i + 8];
      PetscInt  *counts;
      char       path[256];
      if (hi <= lo) hi = lo + (lo != 0 ? 1e-9 * PetscAbsReal(lo) : 1e-300);
      PetscCall(PetscMalloc2(bins + 1, &edges, bins, &counts));
      for (PetscInt b = 0; b <= bins; b++) edges[b] = lo + (hi - lo) * b / bins;
      PetscCall(PetscArrayzero(counts, bins));
      for (PetscInt j = 0; j < n; j++) counts[PetscMin((PetscInt)((work[j] - lo) / (hi - lo) * bins), bins - 1)]++;
      PetscCall(PetscSNPrintf(path, sizeof(path), "/summary/histograms/%s/edges", qnames[i]));
      PetscCall(VIH5WriteReal(file, path, bins + 1, 0, edges));
      PetscCall(PetscSNPrintf(path, sizeof(path), "/summary/histograms/%s/counts", qnames[i]));
      PetscCall(VIH5WriteInt(file, path, bins, 0, counts));
      PetscCall(PetscFree2(edges, counts));
    }
    if (i == nq - 1) {
      PetscCall(VIH5WriteReal(file, "/summary/statistics", nq, 9, stats));
      PetscCall(VIH5WriteAttrString(file, "/summary/statistics", "rows", rows));
      PetscCall(VIH5WriteAttrString(file, "/summary/statistics", "columns", "mean,std,min,q05,q25,q50,q75,q95,max"));
      PetscCall(VIH5WriteAttrInt(file, "/summary/statistics", "n", n));
      PetscCall(VIH5WriteAttrString(file, "/summary/statistics", "partial", partial));
    }
  }
  PetscCall(PetscFree2(work, stats));
  /* frequency response of constant-frequency cases */
  PetscCall(VIFrequencyResponse(cs, status, nq, qnames, quantities, output, &m, &frf));
  if (m > 0) {
    PetscCall(VIH5WriteRealResizable(file, "/summary/frf", m, 2, frf)); /* its rows grow from merge to merge */
    PetscCall(VIH5WriteAttrString(file, "/summary/frf", "columns", "frequency,amplitude"));
    PetscCall(VIH5WriteAttrString(file, "/summary/frf", "output", output_name));
    PetscCall(VIH5WriteAttrString(file, "/summary/frf", "partial", partial));
    {
      const char *fname;
      PetscInt    fcol;
      PetscCall(VIFindLoadColumn(cs, "_frequency", &fcol));
      PetscCall(VICaseSetGetParameterName(cs, fcol, &fname));
      PetscCall(VIH5WriteAttrString(file, "/summary/frf", "parameter", fname));
    }
  }
  PetscCall(PetscFree(frf));
  /* the envelopes of the first done sweep up and down */
  PetscCall(VIFindLoadColumn(cs, "_sweep_down", &scol));
  for (PetscInt dir = 0; dir < 2 && scol >= 0; dir++) {
    const PetscReal *table;
    PetscCall(VICaseSetGetTable(cs, &table));
    for (PetscInt k = 0; k < ncases; k++) {
      char      src[64], dst[32];
      PetscBool has;
      if (status[k] != 1 || (PetscInt)table[k * np + scol] != dir) continue;
      PetscCall(PetscSNPrintf(src, sizeof(src), "/cases/%" PetscInt_FMT "/envelope", k));
      PetscCall(VIH5Exists(file, src, &has));
      if (!has) continue;
      PetscCall(PetscSNPrintf(dst, sizeof(dst), "/summary/sweep_%s", dir ? "down" : "up"));
      {
        PetscInt   r, c;
        PetscReal *env;
        PetscCall(VIH5ReadReal(file, src, &r, &c, &env));
        PetscCall(VIH5WriteReal(file, dst, r, c, env));
        PetscCall(VIH5WriteAttrString(file, dst, "columns", "frequency,amplitude"));
        PetscCall(VIH5WriteAttrString(file, dst, "output", output_name));
        PetscCall(VIH5WriteAttrInt(file, dst, "case", k));
        PetscCall(VIH5WriteAttrString(file, dst, "direction", dir ? "down" : "up"));
        PetscCall(VIH5WriteAttrString(file, dst, "partial", partial));
        PetscCall(PetscFree(env));
      }
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VISummaryPrint(hid_t file, VICaseSet cs, const PetscInt status[], PetscInt nq, const char *const qnames[],
                              const PetscReal quantities[], PetscInt output, const char output_name[])
{
  PetscInt   ncases, m;
  PetscReal *frf;
  PetscBool  sampled, sweeps       = PETSC_FALSE;
  char       partial[96], tag[100] = "";

  PetscFunctionBeginUser;
  PetscCall(VICaseSetGetSize(cs, &ncases, NULL));
  PetscCall(VICaseSetIsSampled(cs, &sampled));
  /* a stopped job's summaries are over the cases finished so far: every line says so */
  VISummaryPartial(ncases, status, partial, sizeof(partial));
  if (partial[0]) PetscCall(PetscSNPrintf(tag, sizeof(tag), " (%s)", partial));
  PetscCall(VIFrequencyResponse(cs, status, nq, qnames, quantities, output, &m, &frf));
  if (m > 0) {
    PetscReal peak  = 0;
    PetscInt  ipeak = 0;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "Frequency response of %s (steady-state amplitude, half peak-to-peak)%s:\n  %14s %14s\n", output_name, tag,
                          "frequency [Hz]", "amplitude"));
    for (PetscInt i = 0; i < m; i++) {
      if (frf[2 * i + 1] > peak) {
        peak  = frf[2 * i + 1];
        ipeak = i;
      }
      if (m <= 40 || i % (m / 20 + 1) == 0 || i == m - 1)
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %14.6g %14.6g\n", (double)frf[2 * i], (double)frf[2 * i + 1]));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  peak %.6g at %.6g Hz%s\n", (double)peak, (double)frf[2 * ipeak], tag));
  }
  PetscCall(PetscFree(frf));
  for (PetscInt dir = 0; dir < 2; dir++) {
    const char *path = dir ? "/summary/sweep_down" : "/summary/sweep_up";
    PetscBool   has;
    PetscCall(VIH5Exists(file, path, &has));
    if (has) {
      PetscInt   rows, cols, ipeak = 0;
      PetscReal *env;
      PetscCall(VIH5ReadReal(file, path, &rows, &cols, &env));
      for (PetscInt i = 1; i < rows; i++)
        if (env[2 * i + 1] > env[2 * ipeak + 1]) ipeak = i;
      if (rows > 0)
        PetscCall(PetscPrintf(PETSC_COMM_SELF,
                              "Sweep %-4s of %s: %" PetscInt_FMT " pseudo-periods from %.6g to %.6g Hz, largest amplitude %.6g at %.6g Hz%s\n",
                              dir ? "down" : "up", output_name, rows, (double)env[0], (double)env[2 * (rows - 1)], (double)env[2 * ipeak + 1],
                              (double)env[2 * ipeak], tag));
      PetscCall(PetscFree(env));
      sweeps = PETSC_TRUE;
    }
  }
  if (sampled || (m == 0 && !sweeps)) {
    PetscReal *work, stats[9];
    PetscCall(PetscMalloc1(PetscMax(ncases, 1), &work));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "Statistics over the done cases%s:\n  %-28s %6s %12s %12s %12s %12s %12s\n", tag, "quantity", "n", "mean",
                          "std", "q05", "median", "q95"));
    for (PetscInt i = 0; i < nq; i++) {
      PetscInt n;
      PetscCall(VIStatistics(ncases, status, nq, quantities, i, work, &n, stats));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-28s %6" PetscInt_FMT " %12.5g %12.5g %12.5g %12.5g %12.5g\n", qnames[i], n, (double)stats[0],
                            (double)stats[1], (double)stats[3], (double)stats[5], (double)stats[7]));
    }
    PetscCall(PetscFree(work));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
