/* `vicms info FILE.h5`: what is inside a vicms file (a ROM, a bodies file, a modes or results file), in words. */
#include "app.h"
#include <vicms/rom.h>
#include <vicms/step.h>

static PetscErrorCode VIInfoFormatOpen(hid_t file, const char path[], char format[], size_t len)
{
  PetscBool has;
  char     *value;

  PetscFunctionBeginUser;
  PetscCall(VIH5HasAttr(file, "/", "format", &has));
  PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s is not a vicms file (it has no format attribute)", path);
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "format", &value));
  PetscCall(PetscStrncpy(format, value, len));
  PetscCall(PetscFree(value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The format attribute of path. Rank-local. */
static PetscErrorCode VIInfoFormat(const char path[], char format[], size_t len)
{
  PetscBool      exists;
  hid_t          file;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscTestFile(path, 'r', &exists));
  PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read %s (no such file, or not readable)", path);
  PetscCall(VIH5Open(path, &file));
  ierr = VIInfoFormatOpen(file, path, format, len);
  PetscCall(VIH5Close(&file));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frequencies and mesh size of a modes file (`vicms modes`), printed by the calling rank. */
static PetscErrorCode VIInfoModesOpen(hid_t file, const char path[])
{
  PetscInt   n, rows, cols, num_nodes = 0, num_elements = 0;
  PetscReal *freq;
  PetscBool  has_mesh, has_topology, has_version;
  char      *version = NULL;

  PetscFunctionBeginUser;
  PetscCall(VIH5ReadAttrInt(file, "/", "n_modes", &n));
  PetscCall(VIH5GetShape(file, "/frequencies_hz", &rows, &cols));
  PetscCheck(rows == n && cols == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: dataset frequencies_hz has %" PetscInt_FMT " x %" PetscInt_FMT " entries, expected a vector of n_modes = %" PetscInt_FMT, path,
             rows, cols, n);
  PetscCall(VIH5Exists(file, "/mesh/coordinates", &has_mesh));
  if (has_mesh) PetscCall(VIH5GetShape(file, "/mesh/coordinates", &num_nodes, &cols));
  PetscCall(VIH5HasAttr(file, "/mesh/topology", "num_elements", &has_topology));
  if (has_topology) PetscCall(VIH5ReadAttrInt(file, "/mesh/topology", "num_elements", &num_elements));
  PetscCall(VIH5HasAttr(file, "/", "version", &has_version));
  if (has_version) PetscCall(VIH5ReadAttrStringAlloc(file, "/", "version", &version));
  PetscCall(VIH5ReadReal(file, "/frequencies_hz", &rows, &cols, &freq));
  {
    PetscErrorCode ierr = VIH5CheckFinite(path, "frequencies_hz", rows, 0, freq);
    if (ierr) {
      PetscCall(PetscFree(freq));
      PetscCall(PetscFree(version));
    }
    PetscCall(ierr);
  }

  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "Modes file %s (vicms %s): %" PetscInt_FMT " natural modes of a mesh with %" PetscInt_FMT " nodes and %" PetscInt_FMT
                        " elements\n",
                        path, version ? version : "version unknown", n, num_nodes, num_elements));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %6s  %16s  %16s\n", "mode", "frequency [Hz]", "omega [rad/s]"));
  for (PetscInt k = 0; k < n; k++)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %6" PetscInt_FMT "  %16.8g  %16.8g\n", k + 1, (double)freq[k], (double)(2 * PETSC_PI * freq[k])));
  PetscCall(PetscFree(freq));
  PetscCall(PetscFree(version));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Open path, describe it with describe(file, path) on the calling rank, close it whatever happened. */
static PetscErrorCode VIInfoWithFile(const char path[], PetscErrorCode (*describe)(hid_t, const char[]))
{
  hid_t          file;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(VIH5Open(path, &file));
  ierr = (*describe)(file, path);
  PetscCall(VIH5Close(&file));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A results file (`vicms simulate`) in words: cases and their state, parameters and their ranges, failures, summaries. */
/* What the ROM file keeps for vicms fields (group /fields), one line; nothing without it. */
static PetscErrorCode VIInfoROMFields(hid_t file, const char path[])
{
  PetscBool has;
  PetscInt  nodes, cells, rows, cols;
  char     *kind = NULL;

  PetscFunctionBeginUser;
  (void)path;
  PetscCall(VIH5Exists(file, "/fields/basis", &has));
  if (!has) {
    PetscCall(
        PetscPrintf(PETSC_COMM_SELF, "Fields: none kept (vicms fields needs a ROM reduced with -cms_fields surface|all or -cms_fields_nodes)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VIH5ReadAttrInt(file, "/fields", "num_nodes", &nodes));
  PetscCall(VIH5ReadAttrInt(file, "/fields", "num_cells", &cells));
  PetscCall(VIH5ReadAttrStringAlloc(file, "/fields", "kind", &kind));
  PetscCall(VIH5GetShape(file, "/fields/basis", &rows, &cols));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "Fields: the basis rows of %" PetscInt_FMT " nodes (%s), %" PetscInt_FMT " cells, %" PetscInt_FMT
                        " bytes per kept DOF (vicms fields)\n",
                        nodes, kind, cells, cols * (PetscInt)sizeof(PetscReal)));
  PetscCall(PetscFree(kind));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIInfoResultsOpen(hid_t file, const char path[])
{
  PetscInt   n, rows, np, *status, count[3] = {0, 0, 0};
  PetscReal *par;
  char      *columns = NULL, *options = NULL, *units = NULL;
  PetscBool  has;

  PetscFunctionBeginUser;
  PetscCall(VIH5ReadInt(file, "/cases/status", &n, &rows, &status));
  PetscCall(VIH5ReadReal(file, "/cases/parameters", &rows, &np, &par));
  PetscCall(VIH5ReadAttrStringAlloc(file, "/cases/parameters", "columns", &columns));
  PetscCall(VIH5HasAttr(file, "/", "units", &has));
  if (has) PetscCall(VIH5ReadAttrStringAlloc(file, "/", "units", &units));
  for (PetscInt k = 0; k < n; k++)
    if (status[k] >= 0 && status[k] <= 2) count[status[k]]++;
  PetscCall(PetscPrintf(
      PETSC_COMM_SELF,
      "Results file %s: %" PetscInt_FMT " case%s: %" PetscInt_FMT " done, %" PetscInt_FMT " failed, %" PetscInt_FMT " pending%s%s%s\n", path, n,
      n == 1 ? "" : "s", count[1], count[2], count[0], units && units[0] ? " (units " : "", units ? units : "", units && units[0] ? ")" : ""));
  PetscCall(VIH5Exists(file, "/summary", &has));
  if (has && count[0]) {
    /* summaries over the cases finished so far (a stopped job): as many as the merge that wrote them had */
    PetscInt finished = count[1] + count[2];
    PetscCall(VIH5HasAttr(file, "/summary", "n_cases_finished", &has));
    if (has) PetscCall(VIH5ReadAttrInt(file, "/summary", "n_cases_finished", &finished));
    PetscCall(PetscPrintf(
        PETSC_COMM_SELF, "  summaries partial: %" PetscInt_FMT " of %" PetscInt_FMT " cases (the job is not finished: run it again to complete it)\n",
        finished, n));
  }
  if (strcmp(columns, "case")) {
    char *save = NULL, *name = strtok_r(columns, ",", &save);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  parameters:\n"));
    for (PetscInt p = 0; p < np && name; p++, name = strtok_r(NULL, ",", &save)) {
      PetscReal lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL;
      for (PetscInt k = 0; k < n; k++) {
        lo = PetscMin(lo, par[k * np + p]);
        hi = PetscMax(hi, par[k * np + p]);
      }
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "    %-40s from %-14.8g to %.8g\n", name, (double)lo, (double)hi));
    }
  }
  if (count[2]) {
    PetscInt shown = 0;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  failed cases:\n"));
    for (PetscInt k = 0; k < n && shown < 10; k++)
      if (status[k] == 2) {
        char obj[64], *msg = NULL;
        PetscCall(PetscSNPrintf(obj, sizeof(obj), "/cases/%" PetscInt_FMT, k));
        PetscCall(VIH5ReadAttrStringAlloc(file, obj, "message", &msg));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "    case %" PetscInt_FMT ": %s\n", k, msg));
        PetscCall(PetscFree(msg));
        shown++;
      }
  }
  PetscCall(VIH5Exists(file, "/cases/balance_error", &has));
  if (has && count[1]) {
    /* the energy balance (and, from the first 100 done cases' records, nsgalpha's numerical dissipation at their end, both
       against the energy stored or spent: docs/results.md) */
    PetscReal *bal, worst = -1, num = 0;
    PetscInt   nr, nc, kb = -1, kn = -1, seen = 0;
    PetscCall(VIH5ReadReal(file, "/cases/balance_error", &nr, &nc, &bal));
    for (PetscInt k = 0; k < PetscMin(nr, n); k++)
      if (status[k] == 1 && !PetscIsInfOrNanReal(bal[k]) && bal[k] > worst) {
        worst = bal[k];
        kb    = k;
      }
    PetscCall(PetscFree(bal));
    for (PetscInt k = 0; k < n && seen < 100; k++) {
      char       obj[64];
      PetscBool  series;
      PetscInt   rows_e, cols_e;
      PetscReal *e, scale = 0;
      if (status[k] != 1) continue;
      PetscCall(PetscSNPrintf(obj, sizeof(obj), "/cases/%" PetscInt_FMT "/energy", k));
      PetscCall(VIH5Exists(file, obj, &series));
      if (!series) continue;
      seen++;
      PetscCall(VIH5ReadReal(file, obj, &rows_e, &cols_e, &e));
      if (cols_e >= 8 && rows_e > 0) {
        for (PetscInt i = 0; i < rows_e; i++) scale = PetscMax(scale, e[i * cols_e] + e[i * cols_e + 1] + e[i * cols_e + 2] + e[i * cols_e + 3]);
        if (scale > 0 && PetscAbsReal(e[(rows_e - 1) * cols_e + 7]) / scale > PetscAbsReal(num)) {
          num = e[(rows_e - 1) * cols_e + 7] / scale;
          kn  = k;
        }
      }
      PetscCall(PetscFree(e));
    }
    if (kb >= 0)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  energy balance error: %.3g %% at most (case %" PetscInt_FMT ")", (double)(100 * worst), kb));
    if (kn >= 0)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "; numerical dissipation at the end: %.3g %% at most (case %" PetscInt_FMT "%s)", (double)(100 * num),
                            kn, seen == 100 ? ", of the first 100 done cases" : ""));
    if (kb >= 0 || kn >= 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, " of the energy stored or spent\n"));
  }
  PetscCall(VIH5Exists(file, "/cases/contact_nonconverged", &has));
  if (has && count[1]) {
    /* done cases whose contact solves did not all converge (below the limit that fails a case): their motion may be wrong */
    PetscInt *nonconv, nr, nc, flagged = 0, shown = 0;
    PetscCall(VIH5ReadInt(file, "/cases/contact_nonconverged", &nr, &nc, &nonconv));
    for (PetscInt k = 0; k < PetscMin(nr, n); k++) flagged += status[k] == 1 && nonconv[k] > 0 ? 1 : 0;
    if (flagged) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "  contact solves not converged in %" PetscInt_FMT " done case%s (the motion may be wrong where they failed; a "
                            "smaller -step_dt or another -step_type):\n",
                            flagged, flagged == 1 ? "" : "s"));
      for (PetscInt k = 0; k < PetscMin(nr, n) && shown < 10; k++)
        if (status[k] == 1 && nonconv[k] > 0) {
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "    case %" PetscInt_FMT ": %" PetscInt_FMT " not converged\n", k, nonconv[k]));
          shown++;
        }
    }
    PetscCall(PetscFree(nonconv));
  }
  PetscCall(VIH5Exists(file, "/summary/statistics", &has));
  if (has) {
    PetscInt   nq, cols;
    PetscReal *st;
    char      *qnames, *save = NULL, *q;
    PetscCall(VIH5ReadReal(file, "/summary/statistics", &nq, &cols, &st));
    PetscCall(VIH5ReadAttrStringAlloc(file, "/summary/statistics", "rows", &qnames));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  quantities over the done cases:\n    %-36s %12s %12s %12s %12s\n", "", "mean", "std", "min", "max"));
    q = strtok_r(qnames, ",", &save);
    for (PetscInt i = 0; i < nq && q; i++, q = strtok_r(NULL, ",", &save))
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "    %-36s %12.5g %12.5g %12.5g %12.5g\n", q, (double)st[9 * i], (double)st[9 * i + 1],
                            (double)st[9 * i + 2], (double)st[9 * i + 8]));
    PetscCall(PetscFree(qnames));
    PetscCall(PetscFree(st));
  }
  {
    const char *parts[][2] = {{"/summary/frf", "frequency response of the constant-frequency cases (summary/frf)"},
                              {"/summary/sweep_up", "envelope of the sweep up (summary/sweep_up)"},
                              {"/summary/sweep_down", "envelope of the sweep down (summary/sweep_down)"},
                              {"/summary/histograms", "histograms of the quantities (summary/histograms)"}};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
      PetscCall(VIH5Exists(file, parts[i][0], &has));
      if (has) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s\n", parts[i][1]));
    }
  }
  PetscCall(VIH5Exists(file, "/summary/hb", &has));
  if (has)
    PetscCall(VIHBBranchDescribe(file, "/summary/hb"));
  else {
    /* a harmonic balance job of several cases: one branch per case under cases/<k> */
    PetscInt shown = 0;
    for (PetscInt k = 0; k < n && shown < 10; k++) {
      char obj[64];
      PetscCall(PetscSNPrintf(obj, sizeof(obj), "/cases/%" PetscInt_FMT "/frequency_hz", k));
      PetscCall(VIH5Exists(file, obj, &has));
      if (!has) continue;
      PetscCall(PetscSNPrintf(obj, sizeof(obj), "/cases/%" PetscInt_FMT, k));
      PetscCall(VIHBBranchDescribe(file, obj));
      shown++;
    }
  }
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "options", &options));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  options: %s\n", options));
  PetscCall(PetscFree(options));
  PetscCall(PetscFree(units));
  PetscCall(PetscFree(columns));
  PetscCall(PetscFree(par));
  PetscCall(PetscFree(status));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Per slave node j of a history with several (the columns of the contact datasets): its recorded states, largest normal force and the
   range of its contact positions. */
static PetscErrorCode VIInfoSlideSlaves(hid_t file, PetscInt n, PetscInt ns, const PetscInt status[], const PetscReal normal[])
{
  PetscInt  *ids = NULL, rows, cols;
  PetscReal *pos;
  PetscBool  has_ids;

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, "/contact/slave_ids", &has_ids));
  if (has_ids) PetscCall(VIH5ReadInt(file, "/contact/slave_ids", &rows, &cols, &ids));
  PetscCall(VIH5ReadReal(file, "/contact/position", &rows, &cols, &pos));
  for (PetscInt j = 0; j < ns; j++) {
    PetscInt  counts[4] = {0, 0, 0, 0};
    PetscReal fmax = 0, lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL;
    for (PetscInt r = 0; r < n; r++) {
      PetscInt st = status[r * ns + j];
      if (st >= 0 && st < 4) counts[st]++;
      fmax = PetscMax(fmax, normal[r * ns + j]);
      if (!PetscIsNanReal(pos[r * ns + j])) {
        lo = PetscMin(lo, pos[r * ns + j]);
        hi = PetscMax(hi, pos[r * ns + j]);
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "    slave %" PetscInt_FMT " (node %" PetscInt_FMT "): %" PetscInt_FMT " slip, %" PetscInt_FMT " stick, %" PetscInt_FMT
                          " open, %" PetscInt_FMT " off; max normal force %g; ",
                          j, ids ? ids[j] : -1, counts[3], counts[2], counts[1], counts[0], (double)fmax));
    if (lo <= hi)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "contact position %g to %g\n", (double)lo, (double)hi));
    else
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "never over the master\n"));
  }
  PetscCall(PetscFree(ids));
  PetscCall(PetscFree(pos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A history file (`vicms slide`, format vicms-slide) in words: the run, how far it went, the contact states recorded (per
   slave node when there are several), the largest normal force and the closure of the energy identity at the last record. */
static PetscErrorCode VIInfoSlideOpen(hid_t file, const char path[])
{
  char     *bodies = NULL, *slave = NULL, *master = NULL, *geometry = NULL, *stopped = NULL;
  PetscReal mu, dt, end_time, rms, f0, f1, *t, *e, *normal, fmax = 0;
  PetscInt  steps, n, ns, cols, complete, *status, counts[4] = {0, 0, 0, 0}, seed, every;
  PetscBool has_out;

  PetscFunctionBeginUser;
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "bodies_file", &bodies));
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "slave", &slave));
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "master", &master));
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "geometry", &geometry));
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "stopped_by", &stopped));
  PetscCall(VIH5ReadAttrReal(file, "/", "mu", &mu));
  PetscCall(VIH5ReadAttrReal(file, "/", "dt", &dt));
  PetscCall(VIH5ReadAttrReal(file, "/", "end_time", &end_time));
  PetscCall(VIH5ReadAttrReal(file, "/", "noise_rms", &rms));
  PetscCall(VIH5ReadAttrReal(file, "/", "noise_f0", &f0));
  PetscCall(VIH5ReadAttrReal(file, "/", "noise_f1", &f1));
  PetscCall(VIH5ReadAttrInt(file, "/", "seed", &seed));
  PetscCall(VIH5ReadAttrInt(file, "/", "steps", &steps));
  PetscCall(VIH5ReadAttrInt(file, "/", "record_every", &every));
  PetscCall(VIH5ReadAttrInt(file, "/", "complete", &complete));
  PetscCall(VIH5ReadReal(file, "/t", &n, &cols, &t));
  PetscCall(VIH5ReadReal(file, "/energy", &n, &cols, &e));
  PetscCall(VIH5ReadInt(file, "/contact/status", &n, &ns, &status));
  PetscCall(VIH5ReadReal(file, "/contact/normal", &n, &ns, &normal));
  ns = PetscMax(ns, 1);
  for (PetscInt r = 0; r < n * ns; r++) {
    if (status[r] >= 0 && status[r] < 4) counts[status[r]]++;
    fmax = PetscMax(fmax, normal[r]);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Slide history %s: bodies %s, slave %s on master %s, mu = %g, geometry %s\n", path, bodies, slave, master,
                        (double)mu, geometry));
  PetscCall(PetscPrintf(
      PETSC_COMM_SELF, "  %" PetscInt_FMT " steps of %g s to t = %g s of %g (%s%s), %" PetscInt_FMT " records (every %" PetscInt_FMT " steps)\n",
      steps, (double)dt, (double)(n ? t[n - 1] : 0), (double)end_time, complete ? "complete" : "stopped by ", complete ? "" : stopped, n, every));
  if (rms > 0 && ns > 1)
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "  random force at each of the %" PetscInt_FMT " slaves: RMS %g in [%g, %g] Hz, independent, seeds %" PetscInt_FMT
                          " to %" PetscInt_FMT "\n",
                          ns, (double)rms, (double)f0, (double)f1, seed, seed + ns - 1));
  else if (rms > 0)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  random force at the slave: RMS %g in [%g, %g] Hz, seed %" PetscInt_FMT "\n", (double)rms, (double)f0,
                          (double)f1, seed));
  else
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  no random force\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "  recorded contact states: %" PetscInt_FMT " slip, %" PetscInt_FMT " stick, %" PetscInt_FMT " open, %" PetscInt_FMT
                        " off; max normal force %g\n",
                        counts[3], counts[2], counts[1], counts[0], (double)fmax));
  if (ns > 1) PetscCall(VIInfoSlideSlaves(file, n, ns, status, normal));
  if (n) {
    const PetscReal *l     = e + 7 * (n - 1);
    PetscReal        scale = 0, closure = l[0] + l[1] - l[6] + l[2] - l[3] - l[4] - l[5];
    for (PetscInt c = 0; c < 7; c++) scale = PetscMax(scale, PetscAbsReal(l[c]));
    PetscCall(
        PetscPrintf(PETSC_COMM_SELF,
                    "  energy at t = %g: kinetic %g, potential %g, damping %g, load work %g, drive work %g, contact work %g; closure %.3g of %g\n",
                    (double)t[n - 1], (double)l[0], (double)l[1], (double)l[2], (double)l[3], (double)l[4], (double)l[5],
                    (double)(PetscAbsReal(closure) / (scale > 0 ? scale : 1)), (double)scale));
  }
  PetscCall(VIH5Exists(file, "/output_names", &has_out));
  if (has_out) {
    PetscInt no;
    char   **on;
    PetscCall(VIH5ReadStrings(file, "/output_names", &no, &on));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  outputs:"));
    for (PetscInt o = 0; o < no; o++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %s", on[o]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    PetscCall(PetscStrArrayDestroy(&on));
  }
  PetscCall(PetscFree(bodies));
  PetscCall(PetscFree(slave));
  PetscCall(PetscFree(master));
  PetscCall(PetscFree(geometry));
  PetscCall(PetscFree(stopped));
  PetscCall(PetscFree(t));
  PetscCall(PetscFree(e));
  PetscCall(PetscFree(status));
  PetscCall(PetscFree(normal));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A root string attribute of a results file, or fallback when the file predates it; PetscFree(*value). */
static PetscErrorCode VIInfoAttrString(hid_t file, const char name[], const char fallback[], char **value)
{
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(VIH5HasAttr(file, "/", name, &has));
  if (has)
    PetscCall(VIH5ReadAttrStringAlloc(file, "/", name, value));
  else
    PetscCall(PetscStrallocpy(fallback, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The unstable positions of a CEA sweep grouped into bands of consecutive unstable positions (n_unstable > 0): per band
   its arc-length range and count, the frequency range of its unstable eigenvalues and the largest real part, and where. */
static PetscErrorCode VIInfoCEABands(PetscInt np, const PetscReal pos[], PetscInt nm, const PetscReal freq[], const PetscReal real[],
                                     const PetscInt unstable[])
{
  PetscInt nb = 0;

  PetscFunctionBeginUser;
  for (PetscInt p = 0; p < np;) {
    PetscInt  q   = p;
    PetscReal flo = PETSC_MAX_REAL, fhi = -PETSC_MAX_REAL, rmax = -PETSC_MAX_REAL, smax = 0, fmax = 0;
    PetscInt  nmod = 0;
    if (unstable[p] <= 0) {
      p++;
      continue;
    }
    for (; q < np && unstable[q] > 0; q++)
      for (PetscInt m = 0; m < nm; m++) {
        PetscReal r = real[q * nm + m], f = freq[q * nm + m];
        if (!(r > 0)) continue;
        nmod++;
        flo = PetscMin(flo, f);
        fhi = PetscMax(fhi, f);
        if (r > rmax) {
          rmax = r;
          smax = pos[q];
          fmax = f;
        }
      }
    nb++;
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "    band %" PetscInt_FMT ": s = %g to %g (%" PetscInt_FMT " position%s, %" PetscInt_FMT
                          " unstable eigenvalue%s), %g to %g Hz, largest real part %g 1/s at s = %g (%g Hz)\n",
                          nb, (double)pos[p], (double)pos[q - 1], q - p, q - p > 1 ? "s" : "", nmod, nmod > 1 ? "s" : "", (double)flo, (double)fhi,
                          (double)rmax, (double)smax, (double)fmax));
    p = q;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The eigenvectors of a CEA file (/vectors, -cea_vectors): which modes, how many at how many positions, their size, and the
   bodies whose boundary-node displacements are there. */
static PetscErrorCode VIInfoCEAVectors(hid_t file)
{
  PetscBool has;
  PetscInt  rows, cols, np, nm, *index, npos = 0, nb;
  char     *which, **names, path[256];

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, "/vectors/re", &has));
  if (!has) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  no eigenvectors (-cea_vectors none)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VIH5ReadAttrStringAlloc(file, "/vectors", "which", &which));
  PetscCall(VIH5GetShape(file, "/vectors/re", &rows, &cols));
  PetscCall(VIH5ReadInt(file, "/vectors/index", &np, &nm, &index));
  for (PetscInt p = 0; p < np; p++) {
    PetscBool any = PETSC_FALSE;
    for (PetscInt m = 0; m < nm; m++) any = any || index[p * nm + m] >= 0 ? PETSC_TRUE : PETSC_FALSE;
    npos += any;
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "  eigenvectors (%s): %" PetscInt_FMT " modes at %" PetscInt_FMT " positions, u = L_C q over %" PetscInt_FMT
                        " coordinates (vectors/re, im: %" PetscInt_FMT " x %" PetscInt_FMT "); boundary-node displacements of",
                        which, rows, npos, cols, rows, cols));
  PetscCall(VIH5ListGroup(file, "/vectors/bodies", &nb, &names));
  for (PetscInt b = 0; b < nb; b++) {
    PetscInt B, c;
    PetscCall(PetscSNPrintf(path, sizeof(path), "/vectors/bodies/%s/coords", names[b]));
    PetscCall(VIH5GetShape(file, path, &B, &c));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %s (%" PetscInt_FMT " nodes)", b ? "," : "", names[b], B));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
  PetscCall(PetscStrArrayDestroy(&names));
  PetscCall(PetscFree(index));
  PetscCall(PetscFree(which));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The linearisation of a CEA results file (-cea_state; undeformed when not recorded), its static states' ranges, and the
   bands located by bisection (-cea_band_tol). */
static PetscErrorCode VIInfoCEAStatic(hid_t file)
{
  char     *state;
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(VIInfoAttrString(file, "state", "undeformed", &state));
  PetscCall(VIH5Exists(file, "/static/normal_force", &has));
  if (has) {
    PetscReal *lam, *slope, lo[2] = {PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[2] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL};
    PetscInt   np, c, nfail = 0;
    PetscCall(VIH5ReadReal(file, "/static/normal_force", &np, &c, &lam));
    PetscCall(VIH5ReadReal(file, "/static/slope", &np, &c, &slope));
    for (PetscInt p = 0; p < np; p++) {
      if (PetscIsNanReal(lam[p])) { /* a failed static state (/static/failed) */
        nfail++;
        continue;
      }
      lo[0] = PetscMin(lo[0], lam[p]);
      hi[0] = PetscMax(hi[0], lam[p]);
      lo[1] = PetscMin(lo[1], slope[p]);
      hi[1] = PetscMax(hi[1], slope[p]);
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "  linearised about the static sliding state: normal force %g to %g, turn of the master segment %g to %g rad\n",
                          (double)lo[0], (double)hi[0], (double)lo[1], (double)hi[1]));
    if (nfail)
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "  the static state failed at %" PetscInt_FMT " of %" PetscInt_FMT " positions (/static/failed; no eigenvalues there)\n",
                            nfail, np));
    PetscCall(PetscFree(lam));
    PetscCall(PetscFree(slope));
  } else
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  linearised about the %s configuration\n", state));
  PetscCall(PetscFree(state));
  PetscCall(VIH5Exists(file, "/bands", &has));
  if (has) {
    PetscReal *b, tol;
    PetscInt   nb, c;
    PetscCall(VIH5ReadReal(file, "/bands", &nb, &c, &b));
    PetscCall(VIH5ReadAttrReal(file, "/bands", "tolerance", &tol));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %" PetscInt_FMT " band%s with edges by bisection to %g:\n", nb, nb == 1 ? "" : "s", (double)tol));
    for (PetscInt i = 0; i < nb; i++)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "    s = %g to %g, peak real part %g 1/s at s = %g (%g Hz)\n", (double)b[c * i], (double)b[c * i + 1],
                            (double)b[c * i + 2], (double)b[c * i + 3], (double)b[c * i + 4]));
    PetscCall(PetscFree(b));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A results file of `vicms cea` (format vicms-cea) in words: what was run, the positions and modes, the unstable positions
   in bands of consecutive positions, the eigenvectors, and the FRF map's size. */
static PetscErrorCode VIInfoCEAOpen(hid_t file, const char path[])
{
  char     *bodies, *slave, *master, *hold, *hold_dir, *sliding;
  PetscReal mu, *pos, *freq, *real, rmax = -PETSC_MAX_REAL, smax = 0, fmax = 0;
  PetscInt  np, nm, cols, *unstable, npos = 0, nb = 0;
  PetscBool has_frf;

  PetscFunctionBeginUser;
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "bodies_file", &bodies));
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "slave", &slave));
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "master", &master));
  PetscCall(VIInfoAttrString(file, "hold", "", &hold));
  PetscCall(VIInfoAttrString(file, "hold_dir", "x", &hold_dir));
  PetscCall(VIInfoAttrString(file, "sliding", "not recorded", &sliding));
  PetscCall(VIH5ReadAttrReal(file, "/", "mu", &mu));
  PetscCall(VIH5ReadReal(file, "/positions", &np, &cols, &pos));
  PetscCall(VIH5ReadReal(file, "/frequency_hz", &np, &nm, &freq));
  PetscCall(VIH5ReadReal(file, "/real", &np, &nm, &real));
  PetscCall(VIH5ReadInt(file, "/unstable_modes", &np, &cols, &unstable));
  nm = PetscMax(nm, 1);
  for (PetscInt p = 0; p < np; p++) {
    npos += unstable[p] > 0;
    nb += unstable[p] > 0 && (p == 0 || unstable[p - 1] <= 0);
    for (PetscInt m = 0; m < nm; m++)
      if (real[p * nm + m] > rmax) { /* NaN beyond the last eigenvalue: never larger */
        rmax = real[p * nm + m];
        smax = pos[p];
        fmax = freq[p * nm + m];
      }
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "CEA results %s: bodies %s, slave %s on master %s, mu = %g (sliding %s)", path, bodies, slave, master,
                        (double)mu, sliding));
  if (hold[0])
    PetscCall(PetscPrintf(PETSC_COMM_SELF, ", held %s (%s)\n", hold, hold_dir));
  else
    PetscCall(PetscPrintf(PETSC_COMM_SELF, ", nothing held\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %" PetscInt_FMT " positions from s = %g to %g, %" PetscInt_FMT " eigenvalues kept per position\n", np,
                        (double)(np ? pos[0] : 0), (double)(np ? pos[np - 1] : 0), nm));
  if (npos) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %" PetscInt_FMT " of %" PetscInt_FMT " positions unstable, in %" PetscInt_FMT " band%s:\n", npos, np,
                          nb, nb == 1 ? "" : "s"));
    PetscCall(VIInfoCEABands(np, pos, nm, freq, real, unstable));
  } else
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  stable at all %" PetscInt_FMT " positions; largest real part %g 1/s at s = %g (%g Hz)\n", np,
                          (double)rmax, (double)smax, (double)fmax));
  PetscCall(VIInfoCEAStatic(file));
  PetscCall(VIInfoCEAVectors(file));
  PetscCall(VIH5Exists(file, "/frf/H_re", &has_frf));
  if (has_frf) {
    PetscInt   nf, ni, no, rows, nc;
    PetscReal *ff;
    char     **in, **out, *quantity = NULL;
    PetscBool  has_q;
    PetscCall(VIH5ReadReal(file, "/frf/frequencies_hz", &nf, &cols, &ff));
    PetscCall(VIH5ReadStrings(file, "/frf/inputs", &ni, &in));
    PetscCall(VIH5ReadStrings(file, "/frf/outputs", &no, &out));
    PetscCall(VIH5GetShape(file, "/frf/H_re", &rows, &nc));
    PetscCall(VIH5HasAttr(file, "/frf", "quantity", &has_q));
    if (has_q) PetscCall(VIH5ReadAttrStringAlloc(file, "/frf", "quantity", &quantity));
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "  FRF map (%s per unit force): %" PetscInt_FMT " positions x %" PetscInt_FMT " lines (%g to %g Hz), %" PetscInt_FMT
                          " inputs x %" PetscInt_FMT " outputs (H_re, H_im: %" PetscInt_FMT " x %" PetscInt_FMT ")\n",
                          quantity ? quantity : "displacement", rows, nf, (double)(nf ? ff[0] : 0), (double)(nf ? ff[nf - 1] : 0), ni, no, rows, nc));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "    inputs:"));
    for (PetscInt i = 0; i < ni; i++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %s", in[i]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "; outputs:"));
    for (PetscInt o = 0; o < no; o++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %s", out[o]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    PetscCall(PetscStrArrayDestroy(&in));
    PetscCall(PetscStrArrayDestroy(&out));
    PetscCall(PetscFree(ff));
    PetscCall(PetscFree(quantity));
  } else
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  no FRF map\n"));
  PetscCall(PetscFree(bodies));
  PetscCall(PetscFree(slave));
  PetscCall(PetscFree(master));
  PetscCall(PetscFree(hold));
  PetscCall(PetscFree(hold_dir));
  PetscCall(PetscFree(sliding));
  PetscCall(PetscFree(pos));
  PetscCall(PetscFree(freq));
  PetscCall(PetscFree(real));
  PetscCall(PetscFree(unstable));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A mesh file (.inp or .msh): its nodes and elements and every node set with its nodes (the names -cms_contact_set, -cms_outputs
   SET:DIR, -cms_forces and -model_clamp take). An Abaqus deck is read for its nodes and sets only, so that a deck of elements
   vicms does not assemble (a parent given as matrices) is described too. Sets of more than max nodes are shortened. */
static PetscErrorCode VIInfoMesh(MPI_Comm comm, const char path[], PetscInt max)
{
  VIMesh          mesh;
  PetscInt        nn, ne, nsets, dim;
  const PetscInt *ids;
  size_t          len = strlen(path);

  PetscFunctionBeginUser;
  PetscCall(VIMeshCreate(comm, &mesh));
  PetscCall(VIMeshSetFile(mesh, path));
  if (len >= 4 && !strcasecmp(path + len - 4, ".inp")) PetscCall(VIMeshSetNodesOnly(mesh, PETSC_TRUE));
  PetscCall(VIMeshSetUp(mesh));
  PetscCall(VIMeshGetSizes(mesh, &nn, &ne));
  PetscCall(VIMeshGetDimension(mesh, &dim));
  PetscCall(VIMeshGetNodeIds(mesh, &ids));
  PetscCall(VIMeshGetNumNodeSets(mesh, &nsets));
  PetscCall(PetscPrintf(comm, "Mesh file %s: %" PetscInt_FMT " nodes (ids %" PetscInt_FMT "..%" PetscInt_FMT "), ", path, nn, nn ? ids[0] : 0,
                        nn ? ids[nn - 1] : 0));
  if (ne)
    PetscCall(PetscPrintf(comm, "%" PetscInt_FMT " elements, %" PetscInt_FMT "D", ne, dim));
  else
    PetscCall(PetscPrintf(comm, "elements not read (an Abaqus deck is read for its nodes and node sets here)"));
  PetscCall(PetscPrintf(comm, ", %" PetscInt_FMT " node set%s\n", nsets, nsets == 1 ? "" : "s"));
  for (PetscInt s = 0; s < nsets; s++) {
    const char     *name;
    const PetscInt *nodes;
    PetscInt        n;
    PetscBool       found;
    PetscCall(VIMeshGetNodeSetName(mesh, s, &name));
    PetscCall(VIMeshGetNodeSet(mesh, name, &n, &nodes, &found));
    PetscCall(PetscPrintf(comm, "  set %s: %" PetscInt_FMT " node%s:", name, n, n == 1 ? "" : "s"));
    for (PetscInt i = 0; i < n && i < max; i++) PetscCall(PetscPrintf(comm, " %" PetscInt_FMT, ids[nodes[i]]));
    if (n > max) PetscCall(PetscPrintf(comm, " ... (%" PetscInt_FMT " more; -info_nodes %" PetscInt_FMT " shows them)", n - max, n));
    PetscCall(PetscPrintf(comm, "\n"));
  }
  PetscCall(VIMeshDestroy(&mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppInfo(MPI_Comm comm)
{
  char           file[PETSC_MAX_PATH_LEN] = "", format[64] = "";
  PetscInt       max_nodes = 20;
  PetscBool      help, is_rom, is_modes, is_results, is_bodies, is_slide, is_cea;
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  if (VIAppArgument) PetscCall(PetscStrncpy(file, VIAppArgument, sizeof(file)));
  PetscOptionsBegin(comm, NULL, "vicms info", "");
  PetscCall(PetscOptionsString("-file",
                               "The file to describe: a vicms HDF5 file (a ROM, bodies, modes, results, slide history or CEA file) or a mesh file "
                               "(.inp, .msh: its node sets); also `vicms info FILE`",
                               "", file, file, sizeof(file), NULL));
  PetscCall(PetscOptionsInt("-info_nodes", "A mesh file's node sets: at most this many node ids shown per set", "", max_nodes, &max_nodes, NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(file[0], comm, PETSC_ERR_USER_INPUT, "vicms info: which file? Give it after the command (vicms info FILE.h5) or with -file FILE.h5");
  {
    size_t len = strlen(file);
    if (len >= 4 && (!strcasecmp(file + len - 4, ".inp") || !strcasecmp(file + len - 4, ".msh"))) {
      PetscCall(VIInfoMesh(comm, file, max_nodes));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }

  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) ierr = VIInfoFormat(file, format, sizeof(format));
  PetscCall(VIErrorSync(comm, ierr));
  PetscCallMPI(MPI_Bcast(format, sizeof(format), MPI_CHAR, 0, comm));
  PetscCall(PetscStrcmp(format, "vicms-rom", &is_rom));
  PetscCall(PetscStrcmp(format, "vicms-modes", &is_modes));
  PetscCall(PetscStrcmp(format, "vicms-results", &is_results));
  PetscCall(PetscStrcmp(format, "vicms-bodies", &is_bodies));
  PetscCall(PetscStrcmp(format, "vicms-slide", &is_slide));
  PetscCall(PetscStrcmp(format, "vicms-cea", &is_cea));
  if (is_bodies) {
    VIBodies bodies;

    PetscCall(VIBodiesCreate(comm, &bodies));
    ierr = VIBodiesLoad(bodies, file);
    if (!ierr) ierr = VIBodiesView(bodies, NULL);
    PetscCall(VIBodiesDestroy(&bodies));
    PetscCall(ierr);
  } else if (is_rom) {
    VIROM rom;

    PetscCall(VIROMCreate(comm, &rom));
    ierr = VIROMLoad(rom, file);
    if (!ierr) ierr = VIROMView(rom, NULL);
    /* replicated ROM, dense eigenproblems: the first rank describes them */
    if (!ierr && rank == 0) ierr = VIStepperViewStableSteps(rom, NULL);
    if (!ierr && rank == 0) ierr = VIInfoWithFile(file, VIInfoROMFields);
    PetscCall(VIROMDestroy(&rom));
    PetscCall(ierr);
  } else if (is_modes) {
    if (rank == 0) ierr = VIInfoWithFile(file, VIInfoModesOpen);
    PetscCall(VIErrorSync(comm, ierr));
  } else if (is_results) {
    if (rank == 0) ierr = VIInfoWithFile(file, VIInfoResultsOpen);
    PetscCall(VIErrorSync(comm, ierr));
  } else if (is_slide) {
    if (rank == 0) ierr = VIInfoWithFile(file, VIInfoSlideOpen);
    PetscCall(VIErrorSync(comm, ierr));
  } else if (is_cea) {
    if (rank == 0) ierr = VIInfoWithFile(file, VIInfoCEAOpen);
    PetscCall(VIErrorSync(comm, ierr));
  } else
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED,
            "%s: format '%s' is not one vicms info knows (expected vicms-rom, vicms-bodies, vicms-modes, vicms-results, vicms-slide or vicms-cea)",
            file, format);
  PetscFunctionReturn(PETSC_SUCCESS);
}
