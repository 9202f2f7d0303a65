/* The results file of an ensemble: one file per finished case in a journal folder, merged atomically into the results file. */
#define _GNU_SOURCE /* copy_file_range */
#include "ensembleimpl.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static PetscErrorCode VIJournalPath(const char dir[], PetscInt k, const char suffix[], char path[], size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, len, "%s/%" PetscInt_FMT ".h5%s", dir, k, suffix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIJoin(PetscInt n, const char *const names[], char out[], size_t len)
{
  PetscFunctionBeginUser;
  out[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    if (i) PetscCall(PetscStrlcat(out, ",", len));
    PetscCall(PetscStrlcat(out, names[i], len));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The units and dimension names of a series dataset (HDF5 conventions a user's tools read): unit "" when the ROM's units
   are not given. */
static PetscErrorCode VISeriesAttrs(hid_t file, const char path[], const char unit[], const char dims[])
{
  PetscFunctionBeginUser;
  if (unit && unit[0]) PetscCall(VIH5WriteAttrString(file, path, "units", unit));
  PetscCall(VIH5WriteAttrString(file, path, "dims", dims));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIJournalWriteSeries(hid_t file, VIROM rom, const VICaseResult *r, PetscBool keep_series)
{
  char        names[8192], length[32] = "", force[32] = "", speed[48] = "", energy[80] = "";
  const char *out_names[1024], *units = NULL;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetUnits(rom, &units));
  PetscCall(VIUnitsLength(units, length, sizeof(length)));
  if (length[0]) {
    const char *dash = strchr(units, '-'), *last = strrchr(units, '-');
    PetscCall(PetscStrncpy(force, units, PetscMin(sizeof(force), (size_t)(dash - units) + 1)));
    PetscCall(PetscSNPrintf(speed, sizeof(speed), "%s/%s", length, last + 1));
    PetscCall(PetscSNPrintf(energy, sizeof(energy), "%s %s", force, length));
  }
  if (keep_series && r->nt > 0) {
    PetscCheck(r->nout <= 1024, PETSC_COMM_SELF, PETSC_ERR_SUP, "At most 1024 outputs per ROM");
    for (PetscInt o = 0; o < r->nout; o++) PetscCall(VIROMGetOutput(rom, o, &out_names[o], NULL));
    PetscCall(VIH5WriteReal(file, "/case/t", r->nt, 0, r->t));
    PetscCall(VISeriesAttrs(file, "/case/t", "s", "time"));
    if (r->nout) {
      PetscCall(VIH5WriteReal(file, "/case/outputs", r->nt, r->nout, r->outputs));
      PetscCall(VIJoin(r->nout, out_names, names, sizeof(names)));
      PetscCall(VIH5WriteAttrString(file, "/case/outputs", "columns", names));
      PetscCall(VISeriesAttrs(file, "/case/outputs", length, "time,output"));
      if (r->velocities) {
        /* the outputs' velocities at the same levels, in length per time of the ROM's units */
        PetscCall(VIH5WriteReal(file, "/case/velocities", r->nt, r->nout, r->velocities));
        PetscCall(VIH5WriteAttrString(file, "/case/velocities", "columns", names));
        PetscCall(VISeriesAttrs(file, "/case/velocities", speed, "time,output"));
      }
    }
    if (r->nc) {
      const VIContactInfo *contacts;
      PetscCall(VIROMGetContacts(rom, NULL, &contacts));
      names[0] = 0;
      for (PetscInt j = 0; j < r->nc; j++) {
        char id[32];
        PetscCall(PetscSNPrintf(id, sizeof(id), "%sn%" PetscInt_FMT, j ? "," : "", contacts[j].node_id));
        PetscCall(PetscStrlcat(names, id, sizeof(names)));
      }
      PetscCall(VIH5WriteReal(file, "/case/gaps", r->nt, r->nc, r->gaps));
      PetscCall(VIH5WriteAttrString(file, "/case/gaps", "columns", names));
      PetscCall(VISeriesAttrs(file, "/case/gaps", length, "time,contact"));
      PetscCall(VIH5WriteReal(file, "/case/forces", r->nt, r->nc, r->forces));
      PetscCall(VIH5WriteAttrString(file, "/case/forces", "columns", names));
      PetscCall(VISeriesAttrs(file, "/case/forces", force, "time,contact"));
    }
    PetscCall(VIH5WriteReal(file, "/case/energy", r->nt, VI_ENERGY_COLUMNS, r->energy));
    PetscCall(VIH5WriteAttrString(file, "/case/energy", "columns",
                                  "kinetic,potential,damping_dissipation,friction_dissipation,external_work,obstacle_work,balance_error,"
                                  "numerical_dissipation"));
    PetscCall(VISeriesAttrs(file, "/case/energy", energy, "time,energy_column"));
    if (r->frequency) PetscCall(VIH5WriteReal(file, "/case/frequency", r->nt, 0, r->frequency));
    if (r->frequency) PetscCall(VISeriesAttrs(file, "/case/frequency", "Hz", "time"));
    if (r->q) {
      /* -step_record_q: the ROM coordinates, from which vicms fields recovers the parent's displacements */
      PetscCall(VIH5WriteReal(file, "/case/q", r->nt, r->nq, r->q));
      PetscCall(VIH5WriteAttrString(file, "/case/q", "dims", "time,rom_coordinate"));
    }
  }
  if (r->envelope && r->nenv > 0) {
    PetscCall(VIH5WriteReal(file, "/case/envelope", r->nenv, 2, r->envelope));
    PetscCall(VIH5WriteAttrString(file, "/case/envelope", "columns", "frequency,amplitude"));
    PetscCall(VIH5WriteAttrString(file, "/case/envelope", "output", r->envelope_output));
    PetscCall(VIH5WriteAttrString(file, "/case/envelope", "direction", r->envelope[2 * (r->nenv - 1)] >= r->envelope[0] ? "up" : "down"));
  }
  /* how well the scheme keeps the energy balance (a stability-limited step can be far off: -step_accuracy) */
  if (r->nt > 0) PetscCall(VIH5WriteAttrReal(file, "/case", "balance_error", r->balance_error));
  PetscCall(VIH5WriteAttrInt(file, "/case", "steps", r->stats.steps));
  PetscCall(VIH5WriteAttrReal(file, "/case", "wall_time", r->stats.wall_time));
  /* the cost unit of a step: one BLAS dgemv of the ROM's size, timed in this run (time per step / it, issue 11) */
  PetscCall(VIH5WriteAttrReal(file, "/case", "wall_time_dgemv", r->stats.matvec_time));
  PetscCall(VIH5WriteAttrReal(file, "/case", "contact_iterations_mean",
                              r->stats.contact_solves ? (PetscReal)r->stats.contact_iterations / r->stats.contact_solves : 0));
  PetscCall(VIH5WriteAttrInt(file, "/case", "contact_iterations_max", r->stats.contact_iterations_max));
  PetscCall(VIH5WriteAttrInt(file, "/case", "contact_nonconverged", r->stats.nonconverged));
  PetscCall(VIH5WriteAttrReal(file, "/case", "contact_residual_max", r->stats.contact_residual_max));
  if (r->timestep.dt > 0) PetscCall(VIH5WriteAttrReal(file, "/case", "dt", r->timestep.dt));
  if (r->timestep.automatic) {
    /* -step_dt auto, -step_accuracy: how the step was found */
    PetscCall(VIH5WriteAttrString(file, "/case", "dt_how", r->timestep.how));
    PetscCall(VIH5WriteAttrReal(file, "/case", "dt_stable", r->timestep.dt_stable));
    PetscCall(VIH5WriteAttrReal(file, "/case", "omega_max", r->timestep.omega_max));
    if (r->timestep.accuracy > 0) {
      PetscCall(VIH5WriteAttrReal(file, "/case", "accuracy", r->timestep.accuracy));
      PetscCall(VIH5WriteAttrReal(file, "/case", "accuracy_estimate", r->timestep.estimate));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The content of a journal file: one case, the runner's part first. */
static PetscErrorCode VIJournalWriteContents(hid_t file, VIROM rom, const VICaseRunner *runner, const VICaseOutcome *out, const char *const qnames[],
                                             const char job[])
{
  char names[8192];

  PetscFunctionBeginUser;
  PetscCall(VIH5CreateGroup(file, "/case"));
  PetscCall(runner->write(runner->ctx, rom, out, file, "/case"));
  PetscCall(VIH5WriteReal(file, "/case/quantities", out->nq, 0, out->quantities));
  PetscCall(VIJoin(out->nq, qnames, names, sizeof(names)));
  PetscCall(VIH5WriteAttrString(file, "/case/quantities", "columns", names));
  PetscCall(VIH5WriteAttrInt(file, "/case", "case", out->k));
  PetscCall(VIH5WriteAttrString(file, "/case", "job", job));
  PetscCall(VIH5WriteAttrString(file, "/case", "status", out->failed ? "failed" : "done"));
  PetscCall(VIH5WriteAttrString(file, "/case", "message", out->message));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIJournalWriteCase(const char dir[], VIROM rom, const VICaseRunner *runner, const VICaseOutcome *out, const char *const qnames[],
                                  const char job[])
{
  char           part[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
  hid_t          file;
  PetscErrorCode ierr, ierr_close;

  PetscFunctionBeginUser;
  PetscCheck(mkdir(dir, 0777) == 0 || errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot create the folder %s for finished cases: %s",
             dir, strerror(errno));
  PetscCall(VIJournalPath(dir, out->k, ".part", part, sizeof(part)));
  PetscCall(VIJournalPath(dir, out->k, "", path, sizeof(path)));
  PetscCall(VIH5Create(part, &file));
  ierr = VIJournalWriteContents(file, rom, runner, out, qnames, job);
  if (ierr) PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); /* the first error was reported */
  ierr_close = VIH5Close(&file);
  if (ierr) PetscCall(PetscPopErrorHandler());
  /* a part-written file (a full disk) goes at once: it holds the space the others need */
  if (ierr || ierr_close) (void)unlink(part);
  PetscCall(ierr);
  PetscCall(ierr_close);
  PetscCheck(rename(part, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s: %s", part, path, strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Status of the case in group obj of an open file: 1 done, 2 failed. */
static PetscErrorCode VICaseStatus(hid_t file, const char obj[], PetscInt *status)
{
  char value[16];

  PetscFunctionBeginUser;
  PetscCall(VIH5ReadAttrString(file, obj, "status", value, sizeof(value)));
  *status = !strcmp(value, "failed") ? 2 : 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first option where two job fingerprints differ, for the message. */
static void VIFirstDifference(const char a[], const char b[], char out[], size_t len)
{
  size_t i = 0, start;
  while (a[i] && a[i] == b[i]) i++;
  for (start = i; start > 0 && !(a[start - 1] == ' ' && a[start] == '-'); start--)
    ;
  snprintf(out, len, "'%.60s' there, '%.60s' here", a + start, b + start);
  for (char *c = out; *c; c++)
    if (*c == '\n') *c = ' ';
}

/* Remove the journal folder and everything in it (finished cases, part-written files of a killed run). */
static PetscErrorCode VIJournalRemove(const char dir[])
{
  DIR *d = opendir(dir);

  PetscFunctionBeginUser;
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      char file_path[PETSC_MAX_PATH_LEN];
      if (e->d_name[0] == '.') continue;
      PetscCall(PetscSNPrintf(file_path, sizeof(file_path), "%s/%s", dir, e->d_name));
      (void)unlink(file_path);
    }
    closedir(d);
    (void)rmdir(dir);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIResultsRemove(const char path[], const char dir[])
{
  char twin[PETSC_MAX_PATH_LEN + 8];

  PetscFunctionBeginUser;
  (void)unlink(path);
  PetscCall(PetscSNPrintf(twin, sizeof(twin), "%s.twin", path));
  (void)unlink(twin);
  PetscCall(PetscSNPrintf(twin, sizeof(twin), "%s.prev", path));
  (void)unlink(twin);
  PetscCall(VIJournalRemove(dir));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The job fingerprint of group obj must be job. */
static PetscErrorCode VICheckJob(hid_t file, const char obj[], const char what[], const char job[])
{
  char *theirs, diff[200];

  PetscFunctionBeginUser;
  PetscCall(VIH5ReadAttrStringAlloc(file, obj, "job", &theirs));
  if (strcmp(theirs, job)) {
    VIFirstDifference(theirs, job, diff, sizeof(diff));
    PetscCall(PetscFree(theirs));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
            "%s holds the results of another job (its options differ: %s): remove it, choose another -results_file, or add -results_overwrite", what,
            diff);
  }
  PetscCall(PetscFree(theirs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the journal file path holds a whole case: it opens, and its status, job, message and quantities read. */
static PetscErrorCode VIJournalProbe(const char path[], char why[], size_t len, PetscBool *readable)
{
  hid_t          file = -1;
  char          *a = NULL, *b = NULL, *c = NULL, msg[256] = "";
  PetscReal     *q = NULL;
  PetscInt       rows, cols;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(VIErrorCapture, msg));
  ierr = VIH5Open(path, &file);
  if (!ierr) ierr = VIH5ReadAttrStringAlloc(file, "/case", "status", &a);
  if (!ierr) ierr = VIH5ReadAttrStringAlloc(file, "/case", "job", &b);
  if (!ierr) ierr = VIH5ReadAttrStringAlloc(file, "/case", "message", &c);
  if (!ierr) ierr = VIH5ReadReal(file, "/case/quantities", &rows, &cols, &q);
  if (file >= 0) (void)VIH5Close(&file);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscFree(a));
  PetscCall(PetscFree(b));
  PetscCall(PetscFree(c));
  PetscCall(PetscFree(q));
  *readable = ierr ? PETSC_FALSE : PETSC_TRUE;
  PetscCall(PetscStrncpy(why, msg, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIResultsScan(const char path[], const char dir[], VICaseSet cs, const char job[], PetscInt status[])
{
  PetscInt ncases, np;
  DIR     *d;

  PetscFunctionBeginUser;
  PetscCall(VICaseSetGetSize(cs, &ncases, &np));
  PetscCall(PetscArrayzero(status, ncases));
  if (access(path, F_OK) == 0) {
    hid_t            file;
    PetscInt         rows, cols, *st;
    PetscReal       *par;
    const PetscReal *table;
    PetscCall(VIH5Open(path, &file));
    PetscCall(VICheckJob(file, "/", path, job));
    PetscCall(VIH5ReadInt(file, "/cases/status", &rows, &cols, &st));
    PetscCall(VIH5ReadReal(file, "/cases/parameters", &rows, &cols, &par));
    PetscCall(VIH5Close(&file));
    PetscCall(VICaseSetGetTable(cs, &table));
    PetscCheck(rows == ncases && (cols == np || (np == 0 && cols == 1)), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s holds %" PetscInt_FMT " cases of %" PetscInt_FMT " parameters, this job has %" PetscInt_FMT " of %" PetscInt_FMT
               ": remove it, choose another -results_file, or add -results_overwrite",
               path, rows, cols, ncases, np);
    for (PetscInt k = 0; k < ncases * np; k++)
      PetscCheck(par[k] == table[k], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s holds other cases (case %" PetscInt_FMT ", parameter %" PetscInt_FMT ": %.17g there, %.17g here): remove it, choose another "
                 "-results_file, or add -results_overwrite",
                 path, k / np, k % np, (double)par[k], (double)table[k]);
    for (PetscInt k = 0; k < ncases; k++) status[k] = st[k];
    PetscCall(PetscFree(st));
    PetscCall(PetscFree(par));
  }
  d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      char     *end, file_path[PETSC_MAX_PATH_LEN], why[256];
      long      k = strtol(e->d_name, &end, 10);
      hid_t     file;
      PetscBool has, readable = PETSC_FALSE;
      if (end == e->d_name || strcmp(end, ".h5") || k < 0 || k >= ncases) continue; /* <k>.h5 only: not .part, .ckpt.h5, .corrupt */
      PetscCall(PetscSNPrintf(file_path, sizeof(file_path), "%s/%s", dir, e->d_name));
      PetscCall(VIJournalProbe(file_path, why, sizeof(why), &readable));
      if (!readable) {
        /* a file a crash or a full disk left broken: set aside (not deleted: it may tell what happened), the case runs again */
        char aside[PETSC_MAX_PATH_LEN + 16];
        PetscCall(PetscSNPrintf(aside, sizeof(aside), "%s.corrupt", file_path));
        PetscCheck(rename(file_path, aside) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "%s is unreadable (%s) and cannot be moved aside: %s",
                   file_path, why, strerror(errno));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "Case %ld: %s is unreadable (%s); moved to %s, the case runs again\n", k, file_path, why, aside));
        continue;
      }
      PetscCall(VIH5Open(file_path, &file));
      PetscCall(VIH5HasAttr(file, "/case", "status", &has));
      if (has) PetscCall(VICheckJob(file, "/case", file_path, job));
      if (has) PetscCall(VICaseStatus(file, "/case", &status[k]));
      PetscCall(VIH5Close(&file));
    }
    closedir(d);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Attribute name of group obj into *v when it exists (*v unchanged otherwise). */
static PetscErrorCode VIReadAttrIntIf(hid_t file, const char obj[], const char name[], PetscInt *v)
{
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(VIH5HasAttr(file, obj, name, &has));
  if (has) PetscCall(VIH5ReadAttrInt(file, obj, name, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIReadAttrRealIf(hid_t file, const char obj[], const char name[], PetscReal *v)
{
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(VIH5HasAttr(file, obj, name, &has));
  if (has) PetscCall(VIH5ReadAttrReal(file, obj, name, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- the tables over all cases, row by row */

static hid_t VIIntType(void)
{
  return sizeof(PetscInt) == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32;
}

/* A table of rows x cols (cols = 0: 1-D) of type at path, every row at fill (NULL: the type's default), chunked by rows:
   the rows a merge writes touch their chunks only, and rows never written take no space. */
static PetscErrorCode VITableCreate(hid_t file, const char path[], hid_t type, PetscInt rows, PetscInt cols, const void *fill)
{
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols}, chunk[2] = {(hsize_t)PetscMax(PetscMin(rows, 256), 1), (hsize_t)PetscMax(cols, 1)};
  hid_t   space, lcpl, dcpl, dset;

  PetscFunctionBeginUser;
  space = H5Screate_simple(cols > 0 ? 2 : 1, dims, NULL);
  lcpl  = H5Pcreate(H5P_LINK_CREATE);
  dcpl  = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  if (rows > 0) H5Pset_chunk(dcpl, cols > 0 ? 2 : 1, chunk);
  if (fill) H5Pset_fill_value(dcpl, type, fill);
  dset = H5Dcreate2(file, path, type, space, lcpl, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Pclose(lcpl);
  H5Sclose(space);
  PetscCheck(dset >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot create the table %s of the results file (is the disk full?)", path);
  H5Dclose(dset);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Write rows[i], i < n, of table (row-major, cols entries of size bytes per row; cols = 0: 1-D) into the dataset at
   path, in place: a merge writes the rows of the cases it takes in, not the table. */
static PetscErrorCode VITableWriteRows(hid_t file, const char path[], hid_t type, PetscInt n, const PetscInt rows[], PetscInt cols, size_t size,
                                       const void *table)
{
  hid_t   dset, fspace, mspace;
  hsize_t one[2] = {1, (hsize_t)PetscMax(cols, 1)};
  herr_t  err    = 0;

  PetscFunctionBeginUser;
  if (n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  dset = H5Dopen2(file, path, H5P_DEFAULT);
  PetscCheck(dset >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "The results file has no table %s", path);
  fspace = H5Dget_space(dset);
  mspace = H5Screate_simple(cols > 0 ? 2 : 1, one, NULL);
  for (PetscInt i = 0; i < n && err >= 0; i++) {
    hsize_t start[2] = {(hsize_t)rows[i], 0};
    err              = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, one, NULL);
    if (err >= 0) err = H5Dwrite(dset, type, mspace, fspace, H5P_DEFAULT, (const char *)table + (size_t)rows[i] * PetscMax(cols, 1) * size);
  }
  H5Sclose(mspace);
  H5Sclose(fspace);
  if (H5Dclose(dset) < 0) err = -1;
  PetscCheck(err >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write the rows of the table %s of the results file (is the disk full?)", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row k of the tables from the group obj of case k. */
static PetscErrorCode VIResultsTake(VIResults *R, hid_t file, const char obj[], PetscInt k)
{
  char       qpath[96];
  PetscReal *q;
  PetscInt   rows, cols, nq = R->nq;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(qpath, sizeof(qpath), "%s/quantities", obj));
  PetscCall(VIH5ReadReal(file, qpath, &rows, &cols, &q));
  if (rows != nq) PetscCall(PetscFree(q));
  PetscCheck(rows == nq, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Case %" PetscInt_FMT ": %" PetscInt_FMT " quantities, expected %" PetscInt_FMT,
             k, rows, nq);
  PetscCall(PetscArraycpy(R->quantities + k * nq, q, nq));
  PetscCall(PetscFree(q));
  PetscCall(PetscFree(R->messages[k]));
  PetscCall(VIH5ReadAttrStringAlloc(file, obj, "message", &R->messages[k]));
  /* what a case's runner records: time steps or branch points, and for the time stepping its contact solves */
  PetscCall(VIReadAttrIntIf(file, obj, "steps", &R->steps[k]));
  PetscCall(VIReadAttrRealIf(file, obj, "wall_time", &R->wall[k]));
  PetscCall(VIReadAttrRealIf(file, obj, "contact_iterations_mean", &R->iter_mean[k]));
  PetscCall(VIReadAttrIntIf(file, obj, "contact_iterations_max", &R->iter_max[k]));
  PetscCall(VIReadAttrIntIf(file, obj, "contact_nonconverged", &R->nonconv[k]));
  PetscCall(VIReadAttrRealIf(file, obj, "balance_error", &R->balance[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Read a table of n rows (and cols columns, 0: 1-D) of file into dst, when it is there. */
static PetscErrorCode VITableRead(hid_t file, const char path[], PetscInt n, PetscInt cols, PetscBool real, void *dst)
{
  PetscInt  rows, c;
  void     *data;
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, path, &has));
  if (!has) PetscFunctionReturn(PETSC_SUCCESS); /* a table newer than the file: its rows come with the cases merged now */
  if (real)
    PetscCall(VIH5ReadReal(file, path, &rows, &c, (PetscReal **)&data));
  else
    PetscCall(VIH5ReadInt(file, path, &rows, &c, (PetscInt **)&data));
  if (rows != n || c != cols) PetscCall(PetscFree(data));
  PetscCheck(rows == n && c == cols, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "The results file's %s is %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT " x %" PetscInt_FMT, path, rows, c, n, cols);
  PetscCall(PetscMemcpy(dst, data, (size_t)(n * PetscMax(cols, 1)) * (real ? sizeof(PetscReal) : sizeof(PetscInt))));
  PetscCall(PetscFree(data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIResultsDestroy(VIResults *R)
{
  PetscFunctionBeginUser;
  if (!R->ready) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree5(R->status, R->steps, R->iter_max, R->nonconv, R->lag));
  PetscCall(PetscFree4(R->quantities, R->wall, R->iter_mean, R->balance));
  PetscCall(PetscStrArrayDestroy(&R->messages));
  PetscCall(PetscMemzero(R, sizeof(*R)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIResultsTwinPath(const char path[], const char suffix[], char out[], size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(out, len, "%s.%s", path, suffix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a reader holds the file open (HDF5 readers take a shared flock on it): the twin, once a published file, may
   still be open in a reader, which must not see it change; it is then left to the reader and made anew. */
static PetscBool VIFileInUse(const char path[])
{
  int       fd = open(path, O_RDONLY);
  PetscBool used;

  if (fd < 0) return PETSC_FALSE;
  used = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK ? PETSC_TRUE : PETSC_FALSE;
  close(fd); /* releases the lock */
  return used;
}

static double VIFileSize(const char path[])
{
  struct stat st;
  return stat(path, &st) == 0 ? (double)st.st_size : 0;
}

/* Byte copy of the file src to dst (created, or truncated): in the kernel with copy_file_range(2) (a reflink on file
   systems that share extents), by read(2)/write(2) where the kernel cannot (another file system, an old kernel). */
static PetscErrorCode VIFileCopy(const char src[], const char dst[])
{
  int         in, out, err = 0;
  struct stat st;
  off_t       copied = 0;
  PetscBool   kernel = PETSC_TRUE;
  char       *buf    = NULL;

  PetscFunctionBeginUser;
  in = open(src, O_RDONLY);
  PetscCheck(in >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s to copy it: %s", src, strerror(errno));
  if (fstat(in, &st) != 0) {
    err = errno;
    close(in);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot read the size of %s: %s", src, strerror(err));
  }
  out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 0777);
  if (out < 0) {
    err = errno;
    close(in);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create %s: %s (is its folder writable?)", dst, strerror(err));
  }
  while (copied < st.st_size && !err) {
    ssize_t n;
    if (kernel) {
      n = copy_file_range(in, NULL, out, NULL, (size_t)(st.st_size - copied), 0);
      if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL)) { /* the file offsets are where it stopped */
        kernel = PETSC_FALSE;
        continue;
      }
    } else {
      if (!buf && !(buf = malloc(1 << 20))) {
        err = ENOMEM;
        break;
      }
      n = read(in, buf, (size_t)PetscMin(st.st_size - copied, 1 << 20));
      for (ssize_t w = 0, m; n > 0 && w < n; w += m)
        if ((m = write(out, buf + w, (size_t)(n - w))) <= 0) {
          n = -1;
          if (m == 0) errno = ENOSPC;
          break;
        }
    }
    if (n < 0)
      err = errno;
    else if (n == 0)
      err = EIO; /* src shrank: another writer (the lock says there is none) */
    else
      copied += n;
  }
  free(buf);
  close(in);
  if (close(out) != 0 && !err) err = errno;
  if (err) {
    (void)unlink(dst); /* a part-written copy holds the space others need */
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "%s while writing %s (a copy of %s)",
            err == ENOSPC ? "no space left on device" : (err == EDQUOT ? "disk quota exceeded (no space left for this user)" : strerror(err)), dst,
            src);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A results file with no case finished: the root attributes, the parameters, the tables over all cases (pending). */
static PetscErrorCode VIResultsSkeleton(VIResults *R, const char twin[], VICaseSet cs, const VICaseRunner *runner, const char *const qnames[],
                                        const char job[], const char units[], PetscInt generation)
{
  hid_t            file;
  char             names[8192];
  const PetscReal *table;
  PetscInt         ncases = R->ncases, np, zero = 0;
  PetscReal        nan = VI_NAN;
  hid_t            str = H5Tcopy(H5T_C_S1);
  PetscErrorCode   ierr;

  PetscFunctionBeginUser;
  H5Tset_size(str, H5T_VARIABLE);
  PetscCall(VICaseSetGetSize(cs, NULL, &np));
  PetscCall(VICaseSetGetTable(cs, &table));
  PetscCall(VIH5Create(twin, &file));
  PetscCall(VIH5WriteAttrString(file, "/", "format", "vicms-results"));
  PetscCall(VIH5WriteAttrString(file, "/", "version", VICMS_VERSION));
  PetscCall(VIH5WriteAttrString(file, "/", "kind", runner->kind));
  PetscCall(VIH5WriteAttrString(file, "/", "job", job));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_cases", ncases));
  PetscCall(VIH5WriteAttrString(file, "/", "units", units));
  PetscCall(VIH5WriteAttrInt(file, "/", "merge", generation));
  if (np > 0) {
    const char *pn[VI_MAX_AXES * 4 + VI_MAX_RANDOM];
    for (PetscInt p = 0; p < np; p++) PetscCall(VICaseSetGetParameterName(cs, p, &pn[p]));
    PetscCall(VIH5WriteReal(file, "/cases/parameters", ncases, np, table));
    PetscCall(VIJoin(np, pn, names, sizeof(names)));
  } else {
    PetscReal *index;
    PetscCall(PetscMalloc1(ncases, &index));
    for (PetscInt k = 0; k < ncases; k++) index[k] = k;
    PetscCall(VIH5WriteReal(file, "/cases/parameters", ncases, 1, index));
    PetscCall(PetscFree(index));
    PetscCall(PetscStrncpy(names, "case", sizeof(names)));
  }
  PetscCall(VIH5WriteAttrString(file, "/cases/parameters", "columns", names));
  ierr = VITableCreate(file, "/cases/status", VIIntType(), ncases, 0, &zero);
  if (!ierr) ierr = VITableCreate(file, "/cases/message", str, ncases, 0, NULL);
  if (!ierr) ierr = VITableCreate(file, "/cases/quantities", H5T_NATIVE_DOUBLE, ncases, R->nq, &nan);
  if (!ierr) ierr = VITableCreate(file, "/cases/wall_time", H5T_NATIVE_DOUBLE, ncases, 0, &nan);
  if (!ierr) ierr = VITableCreate(file, "/cases/steps", VIIntType(), ncases, 0, &zero);
  if (!ierr) ierr = VITableCreate(file, "/cases/contact_iterations_mean", H5T_NATIVE_DOUBLE, ncases, 0, &nan);
  if (!ierr) ierr = VITableCreate(file, "/cases/contact_iterations_max", VIIntType(), ncases, 0, &zero);
  if (!ierr) ierr = VITableCreate(file, "/cases/contact_nonconverged", VIIntType(), ncases, 0, &zero);
  if (!ierr) ierr = VITableCreate(file, "/cases/balance_error", H5T_NATIVE_DOUBLE, ncases, 0, &nan);
  H5Tclose(str);
  PetscCall(ierr);
  PetscCall(VIH5WriteAttrString(file, "/cases/status", "values", "pending,done,failed"));
  PetscCall(VIJoin(R->nq, qnames, names, sizeof(names)));
  PetscCall(VIH5WriteAttrString(file, "/cases/quantities", "columns", names));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_done", 0));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_failed", 0));
  PetscCall(VIH5Close(&file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The state of the results file path when a run starts: its tables, and its twin when it is the published file's of the
   merge before (its "merge" one less; the cases it lacks from the status tables), else the twin goes. The journal's
   copies of cases the file holds (a kill between a merge's rename and their removal) go too. */
static PetscErrorCode VIResultsInit(VIResults *R, const char path[], const char dir[], PetscInt ncases, PetscInt nq)
{
  char     twin[PETSC_MAX_PATH_LEN + 8], prev[PETSC_MAX_PATH_LEN + 8];
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(R, sizeof(*R)));
  R->ncases = ncases;
  R->nq     = nq;
  PetscCall(PetscCalloc5(ncases, &R->status, ncases, &R->steps, ncases, &R->iter_max, ncases, &R->nonconv, ncases, &R->lag));
  PetscCall(PetscMalloc4(ncases * nq, &R->quantities, ncases, &R->wall, ncases, &R->iter_mean, ncases, &R->balance));
  for (PetscInt i = 0; i < ncases * nq; i++) R->quantities[i] = VI_NAN;
  for (PetscInt k = 0; k < ncases; k++) R->wall[k] = R->iter_mean[k] = R->balance[k] = VI_NAN;
  PetscCall(PetscCalloc1(ncases + 1, &R->messages));
  for (PetscInt k = 0; k < ncases; k++) PetscCall(PetscStrallocpy("", &R->messages[k]));
  R->ready = PETSC_TRUE;
  PetscCall(VIResultsTwinPath(path, "twin", twin, sizeof(twin)));
  PetscCall(VIResultsTwinPath(path, "prev", prev, sizeof(prev)));
  (void)unlink(prev); /* a kill mid-publish: the published file is whole either way */
  if (access(path, F_OK) != 0) {
    (void)unlink(twin);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    hid_t     file;
    PetscBool has;
    PetscCall(VIH5Open(path, &file));
    PetscCall(VIReadAttrIntIf(file, "/", "merge", &R->generation));
    PetscCall(VITableRead(file, "/cases/status", ncases, 0, PETSC_FALSE, R->status));
    PetscCall(VITableRead(file, "/cases/quantities", ncases, nq, PETSC_TRUE, R->quantities));
    PetscCall(VITableRead(file, "/cases/wall_time", ncases, 0, PETSC_TRUE, R->wall));
    PetscCall(VITableRead(file, "/cases/steps", ncases, 0, PETSC_FALSE, R->steps));
    PetscCall(VITableRead(file, "/cases/contact_iterations_mean", ncases, 0, PETSC_TRUE, R->iter_mean));
    PetscCall(VITableRead(file, "/cases/contact_iterations_max", ncases, 0, PETSC_FALSE, R->iter_max));
    PetscCall(VITableRead(file, "/cases/contact_nonconverged", ncases, 0, PETSC_FALSE, R->nonconv));
    PetscCall(VITableRead(file, "/cases/balance_error", ncases, 0, PETSC_TRUE, R->balance));
    PetscCall(VIH5Exists(file, "/cases/message", &has));
    if (has) {
      PetscCall(PetscStrArrayDestroy(&R->messages));
      PetscCall(VIH5ReadStrings(file, "/cases/message", &n, &R->messages));
      PetscCheck(n == ncases, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: /cases/message has %" PetscInt_FMT " rows, expected %" PetscInt_FMT,
                 path, n, ncases);
    }
    PetscCall(VIH5Close(&file));
  }
  if (access(twin, F_OK) == 0) {
    /* the twin of the merge before (a clean stop keeps it): usable when whole and exactly one merge behind */
    hid_t          file = -1;
    PetscInt       gen = -1, rows, cols, *st = NULL;
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = VIH5Open(twin, &file);
    if (!ierr) ierr = VIH5ReadAttrInt(file, "/", "merge", &gen);
    if (!ierr) ierr = VIH5ReadInt(file, "/cases/status", &rows, &cols, &st);
    if (file >= 0) (void)VIH5Close(&file);
    PetscCall(PetscPopErrorHandler());
    if (!ierr && gen == R->generation - 1 && rows == ncases) {
      R->twin = PETSC_TRUE;
      for (PetscInt k = 0; k < ncases; k++)
        if (R->status[k] && !st[k]) R->lag[R->nlag++] = k;
    } else
      (void)unlink(twin);
    PetscCall(PetscFree(st));
  }
  {
    DIR *d = opendir(dir);
    if (d) {
      struct dirent *e;
      while ((e = readdir(d))) {
        char *end, jpath[PETSC_MAX_PATH_LEN];
        long  k = strtol(e->d_name, &end, 10);
        if (end == e->d_name || strcmp(end, ".h5") || k < 0 || k >= ncases || !R->status[k]) continue;
        PetscCall(PetscSNPrintf(jpath, sizeof(jpath), "%s/%s", dir, e->d_name));
        (void)unlink(jpath);
      }
      closedir(d);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIResultsPrepare(VIResults *R, const char path[], const char dir[], PetscInt ncases, PetscInt nq)
{
  char twin[PETSC_MAX_PATH_LEN + 8];

  PetscFunctionBeginUser;
  PetscCall(VIResultsDestroy(R));
  PetscCall(VIResultsInit(R, path, dir, ncases, nq));
  if (access(path, F_OK) != 0) PetscFunctionReturn(PETSC_SUCCESS); /* the first merge makes both files */
  PetscCall(VIResultsTwinPath(path, "twin", twin, sizeof(twin)));
  {
    PetscInt pending = 0;
    for (PetscInt k = 0; k < ncases; k++) pending += R->status[k] ? 0 : 1;
    if (!pending) { /* complete: nothing will be merged */
      (void)unlink(twin);
      R->twin = PETSC_FALSE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (R->twin && VIFileInUse(twin)) {
    (void)unlink(twin); /* the reader's: it keeps it */
    R->twin = PETSC_FALSE;
  }
  if (!R->twin) {
    PetscCall(VIFileCopy(path, twin));
    R->twin         = PETSC_TRUE;
    R->nlag         = 0;
    R->copied_bytes = VIFileSize(path);
    PetscCall(PetscInfo(NULL, "the twin %s made anew: %.0f bytes byte-copied from %s\n", twin, R->copied_bytes, path));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bring the twin (open in file) up to date: the cases lag[] from the published file, the new ones from the journal, the
   rows of the tables of both, the root attributes and the summaries. */
static PetscErrorCode VIResultsMergeContents(VIResults *R, hid_t file, const char path[], const char dir[], VICaseSet cs, const VICaseRunner *runner,
                                             PetscInt nnew, const PetscInt news[], const PetscInt status[], const char *const qnames[],
                                             PetscInt output, const char output_name[], PetscInt bins)
{
  char     *all;
  PetscInt  ncases = R->ncases, nq = R->nq, ndone = 0, nfailed = 0, nrows = 0, *rows;
  hid_t     str;
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(R->nlag + nnew, &rows));
  if (R->nlag) {
    hid_t          src;
    PetscErrorCode ierr = PETSC_SUCCESS;
    PetscCall(VIH5Open(path, &src));
    for (PetscInt i = 0; i < R->nlag && !ierr; i++) {
      char obj[64];
      PetscCall(PetscSNPrintf(obj, sizeof(obj), "/cases/%" PetscInt_FMT, R->lag[i]));
      ierr = VIH5Exists(file, obj, &has);
      if (!ierr && !has) ierr = VIH5Copy(src, obj, file, obj);
      rows[nrows++] = R->lag[i];
    }
    PetscCall(VIH5Close(&src));
    PetscCall(ierr);
  }
  for (PetscInt i = 0; i < nnew; i++) {
    char           obj[64], jpath[PETSC_MAX_PATH_LEN];
    PetscInt       k = news[i];
    hid_t          src;
    PetscErrorCode ierr;
    PetscCall(PetscSNPrintf(obj, sizeof(obj), "/cases/%" PetscInt_FMT, k));
    PetscCall(VIJournalPath(dir, k, "", jpath, sizeof(jpath)));
    PetscCheck(access(jpath, F_OK) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "Case %" PetscInt_FMT " is finished but neither %s nor %s holds it", k, path, jpath);
    PetscCall(VIH5Exists(file, obj, &has));
    if (!has) {
      PetscCall(VIH5Open(jpath, &src));
      ierr = VIH5Copy(src, "/case", file, obj);
      PetscCall(VIH5Close(&src));
      PetscCall(ierr);
    }
    PetscCall(VIResultsTake(R, file, obj, k));
    R->status[k]  = status[k];
    rows[nrows++] = k;
  }
  /* the rows that changed since the twin was last written; a table the file lacks (an older vicms) is made whole */
  str = H5Tcopy(H5T_C_S1);
  H5Tset_size(str, H5T_VARIABLE);
  PetscCall(VIH5Exists(file, "/cases/balance_error", &has));
  if (!has) {
    PetscReal nan = VI_NAN;
    PetscCall(VITableCreate(file, "/cases/balance_error", H5T_NATIVE_DOUBLE, ncases, 0, &nan));
  }
  PetscCall(VITableWriteRows(file, "/cases/status", VIIntType(), nrows, rows, 0, sizeof(PetscInt), R->status));
  PetscCall(VITableWriteRows(file, "/cases/message", str, nrows, rows, 0, sizeof(char *), R->messages));
  PetscCall(VITableWriteRows(file, "/cases/quantities", H5T_NATIVE_DOUBLE, nrows, rows, nq, sizeof(PetscReal), R->quantities));
  PetscCall(VITableWriteRows(file, "/cases/wall_time", H5T_NATIVE_DOUBLE, nrows, rows, 0, sizeof(PetscReal), R->wall));
  PetscCall(VITableWriteRows(file, "/cases/steps", VIIntType(), nrows, rows, 0, sizeof(PetscInt), R->steps));
  PetscCall(VITableWriteRows(file, "/cases/contact_iterations_mean", H5T_NATIVE_DOUBLE, nrows, rows, 0, sizeof(PetscReal), R->iter_mean));
  PetscCall(VITableWriteRows(file, "/cases/contact_iterations_max", VIIntType(), nrows, rows, 0, sizeof(PetscInt), R->iter_max));
  PetscCall(VITableWriteRows(file, "/cases/contact_nonconverged", VIIntType(), nrows, rows, 0, sizeof(PetscInt), R->nonconv));
  PetscCall(VITableWriteRows(file, "/cases/balance_error", H5T_NATIVE_DOUBLE, nrows, rows, 0, sizeof(PetscReal), R->balance));
  H5Tclose(str);
  PetscCall(PetscFree(rows));
  for (PetscInt k = 0; k < ncases; k++) {
    if (R->status[k] == 1) ndone++;
    if (R->status[k] == 2) nfailed++;
  }
  PetscCall(PetscOptionsGetAll(NULL, &all));
  PetscCall(VIH5WriteAttrString(file, "/", "options", all));
  PetscCall(PetscFree(all));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_done", ndone));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_failed", nfailed));
  PetscCall(VIH5WriteAttrInt(file, "/", "merge", R->generation + 1));
  /* the summaries are small (but for the frequency response's rows): those of every merge, written over in place; their
     statistics sort the quantities in memory */
  PetscCall(VISummaryWrite(file, cs, R->status, nq, qnames, R->quantities, output, output_name, bins));
  if (runner->summary) PetscCall(runner->summary(runner->ctx, file, ncases, R->status));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIResultsMerge(VIResults *R, const char path[], const char dir[], VICaseSet cs, const VICaseRunner *runner, const PetscInt status[],
                              PetscInt nq, const char *const qnames[], PetscInt output, const char output_name[], PetscInt bins, const char job[],
                              const char units[])
{
  char           twin[PETSC_MAX_PATH_LEN + 8], prev[PETSC_MAX_PATH_LEN + 8];
  PetscInt       ncases, nnew = 0, *news, nfinished = 0;
  hid_t          file = -1;
  PetscBool      published, complete, kept;
  PetscErrorCode ierr, ierr_close;

  PetscFunctionBeginUser;
  PetscCall(VICaseSetGetSize(cs, &ncases, NULL));
  if (!R->ready) PetscCall(VIResultsInit(R, path, dir, ncases, nq));
  PetscCall(VIResultsTwinPath(path, "twin", twin, sizeof(twin)));
  PetscCall(VIResultsTwinPath(path, "prev", prev, sizeof(prev)));
  published = access(path, F_OK) == 0 ? PETSC_TRUE : PETSC_FALSE;
  /* the cases finished since the last merge (in memory: a merge reads no table over all cases) */
  PetscCall(PetscMalloc1(PetscMax(ncases, 1), &news));
  R->merged_before = 0;
  for (PetscInt k = 0; k < ncases; k++) {
    if (status[k] && !R->status[k]) news[nnew++] = k;
    if (R->status[k]) R->merged_before++;
  }
  R->new_cases    = nnew;
  R->lag_cases    = R->nlag;
  R->copied_bytes = R->journal_bytes = 0;
  if (nnew == 0 && published) {
    PetscCall(PetscFree(news));
    goto cleanup;
  }
  {
    /* HDF5 (1.10) can crash when the disk fills: look at the free space first. The twin takes in the cases of the journal
       and those of the merge before (about as large), and a twin made anew is a copy of the results file */
    struct statvfs vfs;
    char           folder[PETSC_MAX_PATH_LEN], *slash;
    double         need = 65536, avail;
    for (PetscInt i = 0; i < nnew; i++) {
      char jpath[PETSC_MAX_PATH_LEN];
      PetscCall(VIJournalPath(dir, news[i], "", jpath, sizeof(jpath)));
      R->journal_bytes += VIFileSize(jpath);
    }
    need += 2 * R->journal_bytes + (R->twin ? 0 : VIFileSize(path));
    PetscCall(PetscStrncpy(folder, path, sizeof(folder)));
    slash = strrchr(folder, '/');
    if (slash)
      *slash = 0;
    else
      PetscCall(PetscStrncpy(folder, ".", sizeof(folder)));
    if (statvfs(slash && !folder[0] ? "/" : folder, &vfs) == 0) {
      avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
      if (avail < 1.05 * need) PetscCall(PetscFree(news));
      PetscCheck(avail >= 1.05 * need, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE,
                 "no space left on device while writing %s: merging the finished cases needs about %.1f MB, %.1f MB are free (%s and the "
                 "finished cases in %s are kept as they were: free some space and run the same job again)",
                 twin, 1.05 * need / 1048576, avail / 1048576, path, dir);
    }
  }
  /* a twin still open in a reader (a published file of two merges ago) stays the reader's: the twin is made anew */
  if (R->twin && VIFileInUse(twin)) {
    (void)unlink(twin);
    R->twin = PETSC_FALSE;
  }
  ierr = PETSC_SUCCESS;
  if (!R->twin) {
    R->nlag = 0;
    if (published) {
      ierr = VIFileCopy(path, twin);
      if (!ierr) R->copied_bytes = VIFileSize(path);
    } else
      ierr = VIResultsSkeleton(R, twin, cs, runner, qnames, job, units, R->generation);
  }
  R->lag_cases = R->nlag;
  if (!ierr) ierr = VIH5OpenWrite(twin, &file);
  if (!ierr) {
    ierr = VIResultsMergeContents(R, file, path, dir, cs, runner, nnew, news, status, qnames, output, output_name, bins);
    if (ierr) PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); /* the first error was reported */
    ierr_close = VIH5Close(&file);
    if (ierr) PetscCall(PetscPopErrorHandler());
    if (!ierr) ierr = ierr_close;
  }
  /* publish: the twin replaces the results file (a rename), which stays as the new twin (a hard link kept across the
     rename; on a file system without hard links, the next merge makes the twin anew by a byte copy) */
  (void)unlink(prev);
  kept = !ierr && published && link(path, prev) == 0 ? PETSC_TRUE : PETSC_FALSE;
  if (!ierr && rename(twin, path) != 0)
    ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_WRITE, PETSC_ERROR_INITIAL,
                      "Cannot rename %s to %s: %s", twin, path, strerror(errno));
  if (ierr) {
    /* the results file and the journal stay as they were; the part-written twin goes (a full disk: it holds the space),
       and the next merge makes it anew */
    for (PetscInt i = 0; i < nnew; i++) R->status[news[i]] = 0;
    (void)unlink(twin);
    (void)unlink(prev);
    R->twin = PETSC_FALSE;
    R->nlag = 0;
    PetscCall(PetscFree(news));
    PetscCall(ierr);
  }
  R->generation++;
  R->file_bytes = VIFileSize(path);
  /* the twin now lacks the cases just taken in; with no results file before, it is a new file without cases */
  R->twin = PETSC_TRUE;
  if (published)
    R->twin = kept && rename(prev, twin) == 0 ? PETSC_TRUE : PETSC_FALSE;
  else {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); /* no twin: the next merge copies the results file */
    if (VIResultsSkeleton(R, twin, cs, runner, qnames, job, units, R->generation - 1)) R->twin = PETSC_FALSE;
    PetscCall(PetscPopErrorHandler());
  }
  R->nlag = nnew;
  PetscCall(PetscArraycpy(R->lag, news, nnew));
  /* the results file now holds the new cases: their journal files can go */
  for (PetscInt i = 0; i < nnew; i++) {
    char jpath[PETSC_MAX_PATH_LEN];
    PetscCall(VIJournalPath(dir, news[i], "", jpath, sizeof(jpath)));
    (void)unlink(jpath);
  }
  PetscCall(PetscFree(news));
cleanup:
  for (PetscInt k = 0; k < ncases; k++) nfinished += R->status[k] ? 1 : 0;
  complete = nfinished == ncases ? PETSC_TRUE : PETSC_FALSE;
  /* complete: the journal, with any part-written file of a killed run, and the twin are no longer needed */
  if (complete) {
    PetscCall(VIJournalRemove(dir));
    (void)unlink(twin);
    R->twin = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- one job per results file */

/* Whether process pid runs on this host (a pid reused by another program counts as gone when /proc says so). */
static PetscBool VIProcessAlive(long pid)
{
  char   path[64], cmd[4096];
  FILE  *f;
  size_t n;

  if (pid <= 0) return PETSC_FALSE;
  if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return PETSC_FALSE;
  snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
  f = fopen(path, "r");
  if (!f) return PETSC_TRUE; /* no /proc: trust kill() */
  n = fread(cmd, 1, sizeof(cmd) - 1, f);
  fclose(f);
  cmd[n] = 0;
  for (size_t i = 0; i < n; i++)
    if (!cmd[i]) cmd[i] = ' ';
  return strstr(cmd, "vicms") ? PETSC_TRUE : PETSC_FALSE;
}

/* The SLURM job a process belongs to, from its environment (empty strings outside SLURM): the job id (kept by a requeue,
   which counts up the restart count), and for an array task the array's job id and the task id. */
typedef struct {
  char job[32], restart[32], array_job[32], array_task[32];
} VISlurmJob;

static void VISlurmJobGet(VISlurmJob *s)
{
  const char *v;

  s->job[0] = s->restart[0] = s->array_job[0] = s->array_task[0] = 0;
  if ((v = getenv("SLURM_JOB_ID")) || (v = getenv("SLURM_JOBID"))) (void)PetscStrncpy(s->job, v, sizeof(s->job));
  if ((v = getenv("SLURM_RESTART_COUNT"))) (void)PetscStrncpy(s->restart, v, sizeof(s->restart));
  if ((v = getenv("SLURM_ARRAY_JOB_ID"))) (void)PetscStrncpy(s->array_job, v, sizeof(s->array_job));
  if ((v = getenv("SLURM_ARRAY_TASK_ID"))) (void)PetscStrncpy(s->array_task, v, sizeof(s->array_task));
}

/* Whether the process of lock "theirs" is an earlier incarnation of this process's SLURM job, ended for sure: the same job
   requeued (same job id, a smaller restart count), or an earlier task of the same array (same array job id, another task:
   the array template runs one task at a time, %1). Why, in words. */
static PetscBool VISlurmSameJob(const VISlurmJob *theirs, const VISlurmJob *mine, char why[], size_t len)
{
  if (theirs->job[0] && !strcmp(theirs->job, mine->job) && atol(theirs->restart) < atol(mine->restart)) {
    snprintf(why, len, "SLURM job %s, requeued (restart %ld, this is restart %ld)", mine->job, atol(theirs->restart), atol(mine->restart));
    return PETSC_TRUE;
  }
  if (theirs->array_job[0] && !strcmp(theirs->array_job, mine->array_job) && strcmp(theirs->array_task, mine->array_task)) {
    snprintf(why, len, "task %s of SLURM array job %s, this is task %s", theirs->array_task, mine->array_job, mine->array_task);
    return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* The fields of a lock file: pid, host, since (seconds since the epoch), command, and the SLURM job of its process. */
static void VILockRead(const char lock[], long *pid, char host[], size_t hlen, long long *since, char cmd[], size_t clen, VISlurmJob *slurm)
{
  FILE      *f = fopen(lock, "r");
  char       line[4096];
  VISlurmJob none;

  if (!slurm) slurm = &none;
  *pid    = 0;
  *since  = 0;
  host[0] = cmd[0] = 0;
  slurm->job[0] = slurm->restart[0] = slurm->array_job[0] = slurm->array_task[0] = 0;
  if (!f) return;
  while (fgets(line, sizeof(line), f)) {
    line[strcspn(line, "\n")] = 0;
    if (!strncmp(line, "pid ", 4))
      *pid = strtol(line + 4, NULL, 10);
    else if (!strncmp(line, "host ", 5))
      (void)PetscStrncpy(host, line + 5, hlen);
    else if (!strncmp(line, "since ", 6))
      *since = strtoll(line + 6, NULL, 10);
    else if (!strncmp(line, "command ", 8))
      (void)PetscStrncpy(cmd, line + 8, clen);
    else if (!strncmp(line, "slurm_job_id ", 13))
      (void)PetscStrncpy(slurm->job, line + 13, sizeof(slurm->job));
    else if (!strncmp(line, "slurm_restart_count ", 20))
      (void)PetscStrncpy(slurm->restart, line + 20, sizeof(slurm->restart));
    else if (!strncmp(line, "slurm_array_job_id ", 19))
      (void)PetscStrncpy(slurm->array_job, line + 19, sizeof(slurm->array_job));
    else if (!strncmp(line, "slurm_array_task_id ", 20))
      (void)PetscStrncpy(slurm->array_task, line + 20, sizeof(slurm->array_task));
  }
  fclose(f);
}

PetscErrorCode VIResultsLock(const char path[], const char lock[])
{
  PetscFunctionBeginUser;
  PetscCall(VIResultsLockOption(path, lock, "-results_file"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIResultsLockOption(const char path[], const char lock[], const char option[])
{
  char       host[256] = "";
  VISlurmJob mine;

  PetscFunctionBeginUser;
  (void)gethostname(host, sizeof(host) - 1);
  VISlurmJobGet(&mine);
  for (int attempt = 0; attempt < 3; attempt++) {
    int fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
      char    text[8192], cmd[4096] = "";
      int     argc = 0;
      char  **args = NULL;
      time_t  now  = time(NULL);
      ssize_t len, wrote;
      FILE   *self = fopen("/proc/self/cmdline", "r");
      if (self) { /* the command line as typed, the command word included */
        size_t n = fread(cmd, 1, sizeof(cmd) - 1, self);
        fclose(self);
        cmd[n] = 0;
        while (n > 0 && !cmd[n - 1]) n--;
        for (size_t i = 0; i < n; i++)
          if (!cmd[i] || cmd[i] == '\n') cmd[i] = ' ';
      } else {
        PetscCall(PetscGetArgs(&argc, &args));
        for (int i = 0; i < argc; i++) {
          if (i) PetscCall(PetscStrlcat(cmd, " ", sizeof(cmd)));
          PetscCall(PetscStrlcat(cmd, args[i], sizeof(cmd)));
        }
      }
      len = snprintf(text, sizeof(text), "pid %ld\nhost %s\nsince %lld\n", (long)getpid(), host, (long long)now);
      /* a requeued job or the next task of an array, on whatever node, may take the lock over (VISlurmSameJob) */
      if (mine.job[0])
        len += snprintf(text + len, sizeof(text) - len, "slurm_job_id %s\nslurm_restart_count %s\n", mine.job, mine.restart[0] ? mine.restart : "0");
      if (mine.array_job[0])
        len += snprintf(text + len, sizeof(text) - len, "slurm_array_job_id %s\nslurm_array_task_id %s\n", mine.array_job, mine.array_task);
      len += snprintf(text + len, sizeof(text) - len, "command %s\n", cmd);
      wrote = write(fd, text, (size_t)PetscMin(len, (ssize_t)sizeof(text) - 1));
      if (close(fd) != 0 || wrote != PetscMin(len, (ssize_t)sizeof(text) - 1)) {
        int err = errno;
        (void)unlink(lock);
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write the lock %s of %s: %s", lock, path, strerror(err));
      }
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCheck(errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot create the lock %s of %s: %s (is its folder writable?)", lock, path,
               strerror(errno));
    {
      long       pid, pid2;
      long long  since, since2;
      char       theirs[256], cmd[4096], when[64] = "an unknown time", host2[256], cmd2[4096], same[160];
      time_t     t;
      struct tm  tm;
      VISlurmJob their_job;
      VILockRead(lock, &pid, theirs, sizeof(theirs), &since, cmd, sizeof(cmd), &their_job);
      t = (time_t)since;
      if (since && localtime_r(&t, &tm)) strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
      if (pid == 0 && attempt == 0) { /* being written this instant: look again */
        usleep(200000);
        continue;
      }
      if (pid != 0 && VISlurmSameJob(&their_job, &mine, same, sizeof(same))) {
        /* the job's earlier incarnation (killed at its time limit, or on a node that failed) holds it: the job takes it
           over, on whatever node it now runs */
        VILockRead(lock, &pid2, host2, sizeof(host2), &since2, cmd2, sizeof(cmd2), NULL);
        if (pid2 == pid && since2 == since) {
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "Taking over the lock %s of process %ld on host %s (since %s): the same job, %s\n", lock, pid,
                                theirs, when, same));
          (void)unlink(lock);
        }
        continue;
      }
      PetscCheck(strcmp(theirs, host) == 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s is in use by another job: process %ld on host %s, since %s (%.300s%s). Wait for it to end or choose another %s; if "
                 "that job is dead, remove the lock %s and run again",
                 path, pid, theirs, when, cmd, strlen(cmd) > 300 ? " ..." : "", option, lock);
      PetscCheck(!VIProcessAlive(pid) || pid == (long)getpid(), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s is in use by another job: process %ld on this host (%s), since %s (%.300s%s). Wait for it to end, stop it, or choose "
                 "another %s",
                 path, pid, theirs, when, cmd, strlen(cmd) > 300 ? " ..." : "", option);
      /* stale: its process is gone; take it over unless another job just did */
      VILockRead(lock, &pid2, host2, sizeof(host2), &since2, cmd2, sizeof(cmd2), NULL);
      if (pid2 == pid && since2 == since) {
        PetscCall(
            PetscPrintf(PETSC_COMM_SELF, "Taking over the lock %s of process %ld (since %s), which no longer runs on this host\n", lock, pid, when));
        (void)unlink(lock);
      }
    }
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s is in use by another job (its lock %s keeps changing); choose another %s", path, lock, option);
}

PetscErrorCode VIResultsUnlock(const char lock[])
{
  long      pid;
  long long since;
  char      host[256], cmd[16];

  PetscFunctionBeginUser;
  /* only our own: a lock taken over after this process was thought dead belongs to the other job */
  VILockRead(lock, &pid, host, sizeof(host), &since, cmd, sizeof(cmd), NULL);
  if (pid == (long)getpid()) (void)unlink(lock);
  PetscFunctionReturn(PETSC_SUCCESS);
}
