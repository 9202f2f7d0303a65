/* `vicms slide`: the transient of sliding bodies (the dual assembly of seed 003 §2.2 on a bodies file): a driven body, a
   preload, a band-limited random force at the contact (the roughness of seed 003 §3.1) -> a history file (vicms-slide). */
#include "app.h"
#include <vicms/dual.h>
#include <vicms/io.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const VIAppSlideDirs[]      = {"x", "y", "VIAppSlideDir", "VI_APP_SLIDE_DIR_", NULL};
static const char *const VIAppSlideNoiseDirs[] = {"normal", "x", "y", "VIAppSlideNoiseDir", "VI_APP_SLIDE_NOISE_", NULL};
static const char *const VIAppSlideEnergy      = "kinetic,potential,damping,load_work,drive_work,contact_work,initial";

#define VI_SLIDE_MAX_NODES 4096

/* The recorded steps, grown as the run goes: per record the time, the body outputs, per slave its VIDualContact record,
   its arc-length position on the master chain and its random force, and the energy terms. */
typedef struct {
  PetscInt   n, cap, no, ns;
  PetscReal *t, *outputs, *energy, *force, *real; /* real: 6 per slave: xi, gap, normal, tangential, slip_velocity, position */
  PetscInt  *status, *segment;
  PetscInt   nq, nb; /* -slide_record_q: the nq ROM coordinates of the nb bodies (body after body) per record in q; else nq = 0 */
  PetscReal *q;
} VISlideHistory;

static PetscErrorCode VISlideHistoryAppend(VISlideHistory *h, VIDual dual, const PetscReal sk[], const PetscReal lk[])
{
  const VIDualContact *rec;
  const PetscReal     *out;
  PetscInt             ns, no, r;
  VIDualEnergy         e;

  PetscFunctionBeginUser;
  if (h->n == h->cap) {
    h->cap = PetscMax(1024, 2 * h->cap);
    PetscCall(PetscRealloc(sizeof(PetscReal) * h->cap, &h->t));
    PetscCall(PetscRealloc(sizeof(PetscReal) * h->cap * PetscMax(h->no, 1), &h->outputs));
    PetscCall(PetscRealloc(sizeof(PetscReal) * h->cap * 7, &h->energy));
    PetscCall(PetscRealloc(sizeof(PetscReal) * h->cap * 3 * h->ns, &h->force));
    PetscCall(PetscRealloc(sizeof(PetscReal) * h->cap * 6 * h->ns, &h->real));
    PetscCall(PetscRealloc(sizeof(PetscInt) * h->cap * h->ns, &h->status));
    PetscCall(PetscRealloc(sizeof(PetscInt) * h->cap * h->ns, &h->segment));
    if (h->nq) PetscCall(PetscRealloc(sizeof(PetscReal) * h->cap * h->nq, &h->q));
  }
  r = h->n++;
  PetscCall(VIDualGetTime(dual, &h->t[r], NULL));
  PetscCall(VIDualGetOutputs(dual, &no, &out));
  for (PetscInt o = 0; o < no; o++) h->outputs[r * no + o] = out[o];
  PetscCall(VIDualGetContacts(dual, &ns, &rec));
  for (PetscInt j = 0; j < ns; j++) {
    PetscReal *x = h->real + (r * ns + j) * 6, *f = h->force + (r * ns + j) * 3;
    h->status[r * ns + j]  = (PetscInt)rec[j].status;
    h->segment[r * ns + j] = rec[j].segment;
    x[0]                   = rec[j].xi;
    x[1]                   = rec[j].gap;
    x[2]                   = rec[j].normal;
    x[3]                   = rec[j].tangential;
    x[4]                   = rec[j].slip_velocity;
    x[5]                   = rec[j].segment >= 0 ? sk[rec[j].segment] + rec[j].xi * lk[rec[j].segment] : NAN;
    PetscCall(VIDualGetSlaveForce(dual, j, &f[0], f + 1));
  }
  if (h->nq) {
    VISystem        sys;
    VIBodies        bodies;
    PetscInt        nb;
    const PetscInt *offs;
    PetscCall(VIDualGetSystem(dual, &sys));
    PetscCall(VISystemBodiesGetBodies(sys, &bodies, &nb, &offs));
    for (PetscInt k = 0; k < h->nb; k++) {
      const PetscReal *qk;
      PetscInt         off, next;
      PetscCall(VIBodiesGetOffset(bodies, k, &off));
      PetscCall(VIBodiesGetOffset(bodies, k + 1, &next));
      PetscCall(VIDualGetDisplacement(dual, k, &qk));
      PetscCall(PetscArraycpy(h->q + r * h->nq + off, qk, next - off));
    }
  }
  PetscCall(VIDualGetEnergy(dual, &e));
  {
    const PetscReal terms[7] = {e.kinetic, e.potential, e.damping, e.load_work, e.drive_work, e.contact_work, e.initial};
    PetscCall(PetscArraycpy(h->energy + 7 * r, terms, 7));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISlideHistoryDestroy(VISlideHistory *h)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(h->t));
  PetscCall(PetscFree(h->outputs));
  PetscCall(PetscFree(h->energy));
  PetscCall(PetscFree(h->force));
  PetscCall(PetscFree(h->real));
  PetscCall(PetscFree(h->status));
  PetscCall(PetscFree(h->segment));
  PetscCall(PetscFree(h->q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the run was, for the root attributes of the history file. */
typedef struct {
  const char     *rom_file, *slave, *master, *drive, *drive_dir, *preload_nodes, *geometry, *noise_dir, *stopped_by;
  const char     *job_options, *job_bodies; /* what decides the results (VISlideFingerprint): a rerun of the same run is recognised */
  PetscReal       mu, dt, dt_crit, end_time, drive_velocity, preload[2], start, noise_rms, noise_band[2];
  PetscInt        record_every, steps, noise_harmonics, seed;
  const PetscInt *slave_ids;  /* the S slave nodes (mesh ids), in the order of the columns of the per-slave datasets */
  const char     *shift_body; /* the body -slide_start translated ("" when none) and by how much (x, y) */
  PetscReal       shift[2];
  PetscBool       complete;
} VISlideRun;

/* One column of the per-slave reals (S columns, one per slave) of the history. */
static PetscErrorCode VISlideWriteColumn(hid_t file, const char path[], const VISlideHistory *h, PetscInt c)
{
  PetscReal *v;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(PetscMax(h->n * h->ns, 1), &v));
  for (PetscInt r = 0; r < h->n * h->ns; r++) v[r] = h->real[6 * r + c];
  PetscCall(VIH5WriteReal(file, path, h->n, h->ns, v));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The history file (format "vicms-slide", docs/substructures.md), written whole by rank 0 (.part, then renamed). */
static PetscErrorCode VISlideWrite(const char path[], const VISlideRun *run, const VISlideHistory *h, VIBodies bodies)
{
  char      tmp[PETSC_MAX_PATH_LEN + 8], *all;
  hid_t     file;
  PetscInt  nb;
  const int nreal = 6;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.part", path));
  PetscCall(VIH5Create(tmp, &file));
  PetscCall(VIH5WriteAttrString(file, "/", "format", "vicms-slide"));
  PetscCall(VIH5WriteAttrInt(file, "/", "version", 1));
  PetscCall(VIH5WriteAttrString(file, "/", "vicms_version", VICMS_VERSION));
  PetscCall(VIH5WriteAttrString(file, "/", "bodies_file", run->rom_file));
  PetscCall(VIH5WriteAttrString(file, "/", "slave", run->slave));
  PetscCall(VIH5WriteAttrString(file, "/", "master", run->master));
  PetscCall(VIH5WriteAttrString(file, "/", "drive", run->drive));
  PetscCall(VIH5WriteAttrString(file, "/", "drive_dir", run->drive_dir));
  PetscCall(VIH5WriteAttrReal(file, "/", "drive_velocity", run->drive_velocity));
  PetscCall(VIH5WriteAttrString(file, "/", "preload_nodes", run->preload_nodes));
  PetscCall(VIH5WriteAttrReal(file, "/", "preload_x", run->preload[0]));
  PetscCall(VIH5WriteAttrReal(file, "/", "preload_y", run->preload[1]));
  PetscCall(VIH5WriteAttrReal(file, "/", "mu", run->mu));
  PetscCall(VIH5WriteAttrReal(file, "/", "dt", run->dt));
  PetscCall(VIH5WriteAttrReal(file, "/", "dt_crit", run->dt_crit));
  PetscCall(VIH5WriteAttrString(file, "/", "geometry", run->geometry));
  PetscCall(VIH5WriteAttrReal(file, "/", "end_time", run->end_time));
  PetscCall(VIH5WriteAttrInt(file, "/", "record_every", run->record_every));
  PetscCall(VIH5WriteAttrReal(file, "/", "start", run->start));
  PetscCall(VIH5WriteAttrReal(file, "/", "noise_rms", run->noise_rms));
  PetscCall(VIH5WriteAttrReal(file, "/", "noise_f0", run->noise_band[0]));
  PetscCall(VIH5WriteAttrReal(file, "/", "noise_f1", run->noise_band[1]));
  PetscCall(VIH5WriteAttrInt(file, "/", "noise_harmonics", run->noise_harmonics));
  PetscCall(VIH5WriteAttrInt(file, "/", "seed", run->seed));
  PetscCall(VIH5WriteAttrString(file, "/", "noise_dir", run->noise_dir));
  PetscCall(VIH5WriteAttrInt(file, "/", "steps", run->steps));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_records", h->n));
  PetscCall(VIH5WriteAttrInt(file, "/", "complete", run->complete));
  PetscCall(VIH5WriteAttrString(file, "/", "stopped_by", run->stopped_by));
  PetscCall(VIH5WriteAttrString(file, "/", "job_options", run->job_options));
  PetscCall(VIH5WriteAttrString(file, "/", "job_bodies", run->job_bodies));
  PetscCall(PetscOptionsGetAll(NULL, &all));
  PetscCall(VIH5WriteAttrString(file, "/", "options", all));
  PetscCall(PetscFree(all));

  PetscCall(VIH5WriteReal(file, "/t", h->n, 1, h->t));
  if (h->no) {
    char   **names;
    PetscInt io = 0;
    PetscCall(VIH5WriteReal(file, "/outputs", h->n, h->no, h->outputs));
    PetscCall(PetscMalloc1(h->no, &names));
    PetscCall(VIBodiesGetNum(bodies, &nb));
    for (PetscInt k = 0; k < nb; k++) {
      VIROM       rom;
      const char *body;
      PetscInt    no;
      PetscCall(VIBodiesGet(bodies, k, &body, &rom, NULL));
      PetscCall(VIROMGetNumOutputs(rom, &no));
      for (PetscInt o = 0; o < no; o++, io++) {
        const char *name;
        size_t      len;
        PetscCall(VIROMGetOutput(rom, o, &name, NULL));
        len = strlen(body) + strlen(name) + 2;
        PetscCall(PetscMalloc1(len, &names[io]));
        PetscCall(PetscSNPrintf(names[io], len, "%s/%s", body, name));
      }
    }
    PetscCall(VIH5WriteStrings(file, "/output_names", h->no, (const char *const *)names));
    for (PetscInt o = 0; o < h->no; o++) PetscCall(PetscFree(names[o]));
    PetscCall(PetscFree(names));
  }
  PetscCall(VIH5CreateGroup(file, "/contact"));
  PetscCall(VIH5WriteInt(file, "/contact/slave_ids", h->ns, 0, run->slave_ids));
  PetscCall(VIH5WriteInt(file, "/contact/status", h->n, h->ns, h->status));
  PetscCall(VIH5WriteAttrString(file, "/contact/status", "values", "0 off, 1 open, 2 stick, 3 slip"));
  PetscCall(VIH5WriteInt(file, "/contact/segment", h->n, h->ns, h->segment));
  {
    const char *cols[] = {"/contact/xi", "/contact/gap", "/contact/normal", "/contact/tangential", "/contact/slip_velocity", "/contact/position"};
    for (int c = 0; c < nreal; c++) PetscCall(VISlideWriteColumn(file, cols[c], h, c));
  }
  PetscCall(VIH5WriteReal(file, "/energy", h->n, 7, h->energy));
  PetscCall(VIH5WriteAttrString(file, "/energy", "columns", VIAppSlideEnergy));
  PetscCall(VIH5WriteReal(file, "/force", h->n, 3 * h->ns, h->force));
  PetscCall(VIH5WriteAttrString(file, "/force", "columns", "per slave: s(t_n), f_x, f_y, applied over the step that ends at t (t_n = t - dt)"));
  if (h->nq) {
    /* -slide_record_q: each body's ROM coordinates per record, and the rigid translation its mesh was placed by (-slide_start) */
    PetscCall(VIH5CreateGroup(file, "/q"));
    PetscCall(VIH5WriteAttrString(file, "/q", "shift_body", run->shift_body));
    for (PetscInt k = 0; k < h->nb; k++) {
      const char *body;
      PetscInt    off, next, c = 0;
      PetscReal  *v;
      char        qpath[160];
      PetscCall(VIBodiesGet(bodies, k, &body, NULL, NULL));
      PetscCall(VIBodiesGetOffset(bodies, k, &off));
      PetscCall(VIBodiesGetOffset(bodies, k + 1, &next));
      PetscCall(PetscMalloc1(PetscMax(h->n * (next - off), 1), &v));
      for (PetscInt r = 0; r < h->n; r++)
        for (PetscInt i = off; i < next; i++) v[c++] = h->q[r * h->nq + i];
      PetscCall(PetscSNPrintf(qpath, sizeof(qpath), "/q/%s", body));
      PetscCall(VIH5WriteReal(file, qpath, h->n, next - off, v));
      PetscCall(VIH5WriteAttrString(file, qpath, "dims", "time,rom_coordinate"));
      PetscCall(VIH5WriteAttrReal(file, qpath, "shift_x", strcmp(body, run->shift_body) ? 0 : run->shift[0]));
      PetscCall(VIH5WriteAttrReal(file, qpath, "shift_y", strcmp(body, run->shift_body) ? 0 : run->shift[1]));
      PetscCall(PetscFree(v));
    }
  }
  PetscCall(VIH5Close(&file));
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "-slide_file: cannot rename %s to %s: %s", tmp, path, strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What decides the results of a run, for its checkpoint: the options (sorted; output, progress, checkpoint and diagnostics
   aside) and a token of each body's ROM (VIEnsembleROMToken: what made it, or its checksum), so that the bodies file may
   move but not change. PetscFree(*options). Not collective. */
static PetscErrorCode VISlideFingerprint(VIBodies bodies, char **options, char token[], size_t len)
{
  static const char *const ignore[] = {"-slide_file",
                                       "-slide_resume",
                                       "-slide_checkpoint_interval",
                                       "-slide_progress_interval",
                                       "-rom_file",
                                       "-options_file",
                                       "-results_file",
                                       "-results_overwrite",
                                       "-cases_group_size",
                                       "-cases_merge_interval",
                                       "-cases_quiet",
                                       "-cases_verbose",
                                       "-cases_order",
                                       "-cases_progress_interval",
                                       "-cases_checkpoint_interval"};
  PetscInt                 nb;

  PetscFunctionBeginUser;
  PetscCall(VIOptionsFingerprint(0, NULL, (PetscInt)(sizeof(ignore) / sizeof(ignore[0])), ignore, options));
  PetscCall(VIBodiesGetNum(bodies, &nb));
  token[0] = 0;
  for (PetscInt k = 0; k < nb; k++) {
    const char *name;
    VIROM       rom;
    char        t[64];
    PetscCall(VIBodiesGet(bodies, k, &name, &rom, NULL));
    PetscCall(VIEnsembleROMToken(rom, NULL, t, sizeof(t)));
    PetscCall(PetscStrlcat(token, k ? " " : "", len));
    PetscCall(PetscStrlcat(token, name, len));
    PetscCall(PetscStrlcat(token, ":", len));
    PetscCall(PetscStrlcat(token, t, len));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The next "-name value" item of a fingerprint (items start with '-' and a letter; values may hold spaces and negative
   numbers): its name and value (truncated to their buffers); returns where the following item starts, NULL at the end. */
static const char *VISlideNextOption(const char *p, char name[], size_t nlen, char value[], size_t vlen)
{
  const char *end, *v;
  size_t      l;

  while (*p == ' ') p++;
  if (!*p) return NULL;
  for (end = p + 1; *end && !(end[-1] == ' ' && end[0] == '-' && (isalpha((unsigned char)end[1]) || end[1] == '_')); end++) {}
  for (v = p; v < end && *v != ' '; v++) {}
  l = PetscMin((size_t)(v - p), nlen - 1);
  memcpy(name, p, l);
  name[l] = 0;
  while (v < end && *v == ' ') v++;
  l = (size_t)(end - v);
  while (l && v[l - 1] == ' ') l--;
  l = PetscMin(l, vlen - 1);
  memcpy(value, v, l);
  value[l] = 0;
  return end;
}

/* The value of option name in fingerprint fp: *found, and the value. */
static void VISlideFindOption(const char fp[], const char name[], PetscBool *found, char value[], size_t vlen)
{
  char n[256];

  *found = PETSC_FALSE;
  for (const char *p = fp; p && *p;) {
    p = VISlideNextOption(p, n, sizeof(n), value, vlen);
    if (p && !strcmp(n, name)) {
      *found = PETSC_TRUE;
      return;
    }
  }
}

/* The first option that differs between the fingerprints of an earlier run (then: that of the file named whose, "the
   checkpoint's" or "the history's") and of this run (now), in words; empty when they are equal. */
static void VISlideOptionsDiff(const char then[], const char now[], const char whose[], char why[], size_t len)
{
  char      name[256], a[1024], b[1024];
  PetscBool found;

  why[0] = 0;
  for (int pass = 0; pass < 2; pass++) /* the checkpoint's options against this run's, then the options only this run has */
    for (const char *p = pass ? now : then; p && *p;) {
      p = VISlideNextOption(p, name, sizeof(name), a, sizeof(a));
      if (!p) break;
      VISlideFindOption(pass ? then : now, name, &found, b, sizeof(b));
      if (!pass && (!found || strcmp(a, b))) {
        (void)PetscSNPrintf(why, len, "%s is %s%s%s in %s run and %s%s%s here", name, a[0] ? "'" : "", a[0] ? a : "given", a[0] ? "'" : "", whose,
                            found ? "'" : "", found ? b : "not given", found ? "'" : "");
        return;
      }
      if (pass && !found) {
        (void)PetscSNPrintf(why, len, "%s is not given in %s run and %s%s%s here", name, whose, a[0] ? "'" : "", a[0] ? a : "given", a[0] ? "'" : "");
        return;
      }
    }
}

/* The history's arrays, by dataset name and width (columns per record), for the checkpoint. */
typedef struct {
  const char *name;
  PetscInt    width;
  PetscBool   is_int;
  void      **data;
} VISlideHistoryArray;

static void VISlideHistoryArrays(VISlideHistory *h, VISlideHistoryArray a[8])
{
  const VISlideHistoryArray all[8] = {{"/slide/history/t", 1, PETSC_FALSE, (void **)&h->t},
                                      {"/slide/history/outputs", h->no, PETSC_FALSE, (void **)&h->outputs},
                                      {"/slide/history/energy", 7, PETSC_FALSE, (void **)&h->energy},
                                      {"/slide/history/force", 3 * h->ns, PETSC_FALSE, (void **)&h->force},
                                      {"/slide/history/real", 6 * h->ns, PETSC_FALSE, (void **)&h->real},
                                      {"/slide/history/status", h->ns, PETSC_TRUE, (void **)&h->status},
                                      {"/slide/history/segment", h->ns, PETSC_TRUE, (void **)&h->segment},
                                      {"/slide/history/q", h->nq, PETSC_FALSE, (void **)&h->q}};
  for (int i = 0; i < 8; i++) a[i] = all[i];
}

/* The run's summary counters kept in the checkpoint: the contact steps per state and the largest normal force. */
typedef struct {
  PetscInt  counts[4];
  PetscReal fmax;
} VISlideTally;

/*
  The checkpoint of a run (FILE.ckpt beside the history FILE): the stepper's common checkpoint (VIStepperCheckpointWrite, format
  "vicms-checkpoint": the dual's state, the stepper's records, counters and level; its tag the bodies' token) and, in its group
  /slide, what decides the results (the options' fingerprint, the bodies' token), the history so far and the tally. Written by
  one rank, whole (FILE.ckpt.tmp, completed, then renamed).
*/
static PetscErrorCode VISlideCheckpointWrite(VIStepper st, const char path[], const char options[], const char token[], VISlideHistory *h,
                                             const VISlideTally *tally)
{
  char                tmp[PETSC_MAX_PATH_LEN + 8];
  hid_t               file;
  VISlideHistoryArray a[8];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", path));
  PetscCall(VIStepperCheckpointWrite(st, tmp, token));
  PetscCall(VIH5OpenWrite(tmp, &file));
  PetscCall(VIH5CreateGroup(file, "/slide"));
  PetscCall(VIH5WriteAttrString(file, "/slide", "options", options));
  PetscCall(VIH5WriteAttrString(file, "/slide", "bodies", token));
  PetscCall(VIH5WriteAttrInt(file, "/slide", "n_records", h->n));
  PetscCall(VIH5WriteAttrReal(file, "/slide", "max_normal_force", tally->fmax));
  PetscCall(VIH5WriteInt(file, "/slide/contact_steps", 4, 0, tally->counts));
  if (h->n) PetscCall(VIH5CreateGroup(file, "/slide/history"));
  VISlideHistoryArrays(h, a);
  for (int i = 0; i < 8 && h->n; i++) {
    if (!a[i].width) continue;
    if (a[i].is_int)
      PetscCall(VIH5WriteInt(file, a[i].name, h->n, a[i].width, *(PetscInt **)a[i].data));
    else
      PetscCall(VIH5WriteReal(file, a[i].name, h->n, a[i].width, *(PetscReal **)a[i].data));
  }
  PetscCall(VIH5Close(&file));
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "-slide_file: cannot rename %s to %s: %s", tmp, path, strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective: the checkpoint written by rank 0. One that cannot be written (a full disk) is reported and the run goes on, as
   the ensemble's cases do: it would only resume from an older checkpoint, or from the beginning. *written: on every rank. */
static PetscErrorCode VISlideCheckpoint(MPI_Comm comm, const char path[], const char options[], const char token[], VIStepper st, VISlideHistory *h,
                                        const VISlideTally *tally, PetscBool *written)
{
  PetscMPIInt    rank;
  PetscErrorCode ierr     = PETSC_SUCCESS;
  char           msg[512] = "";
  int            ok;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char part[PETSC_MAX_PATH_LEN + 16];
    PetscCall(PetscPushErrorHandler(VIErrorCapture, msg));
    ierr = VISlideCheckpointWrite(st, path, options, token, h, tally);
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      PetscCall(PetscSNPrintf(part, sizeof(part), "%s.tmp.part", path));
      (void)remove(part);
      PetscCall(PetscSNPrintf(part, sizeof(part), "%s.tmp", path));
      (void)remove(part);
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "vicms: warning: no checkpoint written to %s: %s\n", path, msg));
    }
  }
  ok = ierr ? 0 : 1;
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  if (written) *written = ok ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Rank-local: read the history h (its records so far) and the tally of the checkpoint at path (VISlideCheckpointWrite); why
  says in words why it cannot be resumed (another run's options or bodies, another format), empty when it can. The stepper's
  part is read afterwards by VIStepperCheckpointRead.
*/
static PetscErrorCode VISlideCheckpointLoad(const char path[], const char options[], const char token[], VISlideHistory *h, VISlideTally *tally,
                                            PetscBool *foreign, char why[], size_t wlen)
{
  hid_t               file;
  char               *s = NULL;
  PetscInt            rows, cols, n, *counts;
  PetscBool           has;
  VISlideHistoryArray a[8];

  PetscFunctionBeginUser;
  why[0] = 0;
  PetscCall(VIH5Open(path, &file));
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "format", &s));
  PetscCall(VIH5Exists(file, "/slide", &has));
  *foreign = (PetscBool)(strcmp(s, "vicms-checkpoint") || !has); /* no options would resume it */
  if (*foreign)
    PetscCall(PetscSNPrintf(why, wlen, "%s is not a checkpoint of vicms slide (format '%s'%s; an older vicms wrote 'vicms-slide-checkpoint')", path,
                            s, has ? "" : ", no group /slide"));
  PetscCall(PetscFree(s));
  if (!why[0]) {
    char diff[1024];
    PetscCall(VIH5ReadAttrStringAlloc(file, "/slide", "options", &s));
    VISlideOptionsDiff(s, options, "the checkpoint's", diff, sizeof(diff));
    if (diff[0]) PetscCall(PetscSNPrintf(why, wlen, "the checkpoint %s is of another run: %s", path, diff));
    PetscCall(PetscFree(s));
  }
  if (!why[0]) {
    PetscCall(VIH5ReadAttrStringAlloc(file, "/slide", "bodies", &s));
    if (strcmp(s, token))
      PetscCall(
          PetscSNPrintf(why, wlen, "the checkpoint %s is of another run: -rom_file holds other bodies than it did (%s, now %s)", path, s, token));
    PetscCall(PetscFree(s));
  }
  if (!why[0]) {
    PetscCall(VIH5ReadAttrInt(file, "/slide", "n_records", &n));
    PetscCall(VIH5ReadAttrReal(file, "/slide", "max_normal_force", &tally->fmax));
    PetscCall(VIH5ReadInt(file, "/slide/contact_steps", &rows, &cols, &counts));
    PetscCheck(rows == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: contact_steps has %" PetscInt_FMT " entries, expected 4", path, rows);
    PetscCall(PetscArraycpy(tally->counts, counts, 4));
    PetscCall(PetscFree(counts));
    VISlideHistoryArrays(h, a);
    for (int i = 0; i < 8 && n; i++) {
      if (!a[i].width) continue;
      PetscCall(PetscFree(*a[i].data));
      if (a[i].is_int)
        PetscCall(VIH5ReadInt(file, a[i].name, &rows, &cols, (PetscInt **)a[i].data));
      else
        PetscCall(VIH5ReadReal(file, a[i].name, &rows, &cols, (PetscReal **)a[i].data));
      PetscCheck(rows == n && PetscMax(cols, 1) == a[i].width, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s: %s has %" PetscInt_FMT " x %" PetscInt_FMT " entries, expected %" PetscInt_FMT " x %" PetscInt_FMT, path, a[i].name, rows, cols,
                 n, a[i].width);
    }
    h->n = h->cap = n;
  }
  PetscCall(VIH5Close(&file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective, before any work: the folder of the history file exists and can be written (a run that could not write its
   history at the end would lose it). */
static PetscErrorCode VISlideCheckFolder(MPI_Comm comm, const char path[])
{
  char        dir[PETSC_MAX_PATH_LEN], why[2 * PETSC_MAX_PATH_LEN + 128] = "", *slash;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    PetscCall(PetscStrncpy(dir, path, sizeof(dir)));
    slash = strrchr(dir, '/');
    if (!slash)
      PetscCall(PetscStrncpy(dir, ".", sizeof(dir)));
    else if (slash == dir)
      dir[1] = 0;
    else
      *slash = 0;
    if (access(dir, W_OK | X_OK))
      PetscCall(PetscSNPrintf(why, sizeof(why), "-slide_file: cannot write %s: its folder %s %s; create it or choose another -slide_file", path, dir,
                              errno == ENOENT ? "does not exist" : strerror(errno)));
  }
  PetscCallMPI(MPI_Bcast(why, (PetscMPIInt)sizeof(why), MPI_CHAR, 0, comm));
  PetscCheck(!why[0], comm, PETSC_ERR_USER_INPUT, "%s", why);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What a run does with what its history file and its checkpoint hold already. */
typedef enum {
  VI_SLIDE_START,  /* from the beginning */
  VI_SLIDE_RESUME, /* from its checkpoint */
  VI_SLIDE_DONE    /* nothing: the history file holds this run, complete */
} VISlideAction;

/*
  Rank 0: what the history file at path holds: *exists, and why it is not this run's (empty when it is), *complete.
*/
static PetscErrorCode VISlideHistoryJob(const char path[], const char options[], const char token[], PetscBool *exists, PetscBool *complete,
                                        char why[], size_t len)
{
  hid_t          file   = -1;
  char          *format = NULL, *opts = NULL, *bodies = NULL, msg[256] = "";
  PetscBool      has;
  PetscInt       c = 0;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  why[0]    = 0;
  *complete = PETSC_FALSE;
  *exists   = access(path, F_OK) == 0 ? PETSC_TRUE : PETSC_FALSE;
  if (!*exists) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscPushErrorHandler(VIErrorCapture, msg));
  ierr = VIH5Open(path, &file);
  if (!ierr) ierr = VIH5HasAttr(file, "/", "format", &has);
  if (!ierr && has) ierr = VIH5ReadAttrStringAlloc(file, "/", "format", &format);
  if (!ierr && format && !strcmp(format, "vicms-slide")) {
    ierr = VIH5HasAttr(file, "/", "job_options", &has);
    if (!ierr && has) ierr = VIH5ReadAttrStringAlloc(file, "/", "job_options", &opts);
    if (!ierr && has) ierr = VIH5ReadAttrStringAlloc(file, "/", "job_bodies", &bodies);
    if (!ierr) ierr = VIH5ReadAttrInt(file, "/", "complete", &c);
  }
  if (file >= 0) (void)VIH5Close(&file);
  PetscCall(PetscPopErrorHandler());
  if (ierr)
    PetscCall(PetscSNPrintf(why, len, "%s cannot be read (%s)", path, msg));
  else if (!format || strcmp(format, "vicms-slide"))
    PetscCall(PetscSNPrintf(why, len, "%s is not the history of a slide (format '%s')", path, format ? format : "none"));
  else if (!opts)
    PetscCall(PetscSNPrintf(why, len, "%s holds a history that does not record its run (written by an older vicms)", path));
  else {
    char diff[1024];
    VISlideOptionsDiff(opts, options, "the history's", diff, sizeof(diff));
    if (diff[0])
      PetscCall(PetscSNPrintf(why, len, "%s holds the history of another run: %s", path, diff));
    else if (strcmp(bodies, token))
      PetscCall(PetscSNPrintf(why, len, "%s holds the history of a run on other bodies (%s, now %s)", path, bodies, token));
  }
  *complete = c ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscFree(format));
  PetscCall(PetscFree(opts));
  PetscCall(PetscFree(bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Collective, with the history file locked and before any step: as `vicms simulate` and `vicms hb` do, a rerun of the same
  run continues it from its checkpoint (with or without -slide_resume), or finds it complete; a different run is refused
  (the checkpoint or the history names the first option that differs), unless -results_overwrite starts afresh.
*/
static PetscErrorCode VISlideJobCheck(MPI_Comm comm, const char path[], const char ckpt[], const char options[], const char token[], PetscBool resume,
                                      PetscBool overwrite, VIStepper st, VISlideHistory *h, VISlideTally *tally, VISlideAction *action)
{
  PetscMPIInt    rank;
  int            state[3]  = {0, 0, 0}; /* checkpoint exists, history exists, history complete */
  char           why[2048] = "";
  PetscErrorCode ierr      = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  *action = VI_SLIDE_START;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && overwrite) { /* start afresh: what an earlier run left goes */
    if (remove(ckpt) && errno != ENOENT)
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_WRITE, PETSC_ERROR_INITIAL,
                        "-results_overwrite: cannot remove %s: %s", ckpt, strerror(errno));
    if (!ierr && remove(path) && errno != ENOENT)
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_WRITE, PETSC_ERROR_INITIAL,
                        "-results_overwrite: cannot remove %s: %s", path, strerror(errno));
  }
  PetscCall(VIErrorSync(comm, ierr));
  if (rank == 0) {
    PetscBool exists, complete;
    state[0] = access(ckpt, F_OK) == 0 ? 1 : 0;
    if (!state[0]) {
      PetscCall(VISlideHistoryJob(path, options, token, &exists, &complete, why, sizeof(why)));
      state[1] = exists ? 1 : 0;
      state[2] = complete ? 1 : 0;
    }
  }
  PetscCallMPI(MPI_Bcast(state, 3, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(why, (PetscMPIInt)sizeof(why), MPI_CHAR, 0, comm));
  PetscCheck(state[0] || !resume, comm, PETSC_ERR_USER_INPUT,
             "-slide_resume: there is no checkpoint %s to resume from (a run writes it when stopped by a signal and every "
             "-slide_checkpoint_interval seconds, and removes it when complete); run without -slide_resume to start from the beginning",
             ckpt);
  if (state[0]) {
    PetscBool restored, foreign = PETSC_FALSE;
    ierr = VISlideCheckpointLoad(ckpt, options, token, h, tally, &foreign, why, sizeof(why));
    PetscCall(VIErrorSync(comm, ierr));
    PetscCheck(!foreign, comm, PETSC_ERR_USER_INPUT,
               "-slide_file: %s: it cannot be resumed; add -results_overwrite to start afresh, or choose another -slide_file", why);
    PetscCheck(!why[0] || !resume, comm, PETSC_ERR_USER_INPUT,
               "-slide_resume: %s; resume with the same options, or run without -slide_resume to start again", why);
    PetscCheck(!why[0], comm, PETSC_ERR_USER_INPUT,
               "-slide_file: %s; rerun with its options to resume it, choose another -slide_file, or add -results_overwrite to start afresh", why);
    /* the stepper's part: the dual's state, the stepper's records and level (every rank reads it; all restore or none) */
    PetscCall(VIStepperCheckpointRead(st, ckpt, token, &restored, why, sizeof(why)));
    PetscCheck(restored, comm, PETSC_ERR_USER_INPUT,
               "-slide_file: the checkpoint %s cannot be resumed: %s; add -results_overwrite to start afresh, or choose another -slide_file", ckpt,
               why);
    *action = VI_SLIDE_RESUME;
  } else if (state[1]) {
    PetscCheck(!why[0], comm, PETSC_ERR_USER_INPUT, "-slide_file: %s; choose another -slide_file, or add -results_overwrite to replace it", why);
    if (state[2])
      *action = VI_SLIDE_DONE;
    else
      PetscCall(PetscPrintf(comm, "%s holds this run stopped without its checkpoint: it starts again from the beginning\n", path));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The rigid translation that brings the slave node C from where it is to arc length s0 of the undeformed master chain,
  keeping its normal offset: D = P(s0) + g0 n(s0) - C, with g0 the gap of C on the segment under it (the search of seed 003
  Eqs. 34-36 in the undeformed configuration). The body is placed there (VIDualTranslateBody), undeformed and at rest.
*/
static PetscErrorCode VISlideStartShift(MPI_Comm comm, PetscInt nm, const VIBodyNode master[], const PetscReal sk[], const PetscReal lk[],
                                        const VIBodyNode *slave, PetscReal s0, PetscReal shift[2])
{
  PetscInt  seg  = -1, k;
  PetscReal best = PETSC_MAX_REAL, g0 = 0, t[2], n[2], P[2];

  PetscFunctionBeginUser;
  PetscCheck(s0 >= 0 && s0 <= sk[nm - 1], comm, PETSC_ERR_USER_INPUT,
             "-slide_start: %g, expected an arc length in [0, %g] (the master chain's length)", (double)s0, (double)sk[nm - 1]);
  for (k = 0; k + 1 < nm; k++) {
    PetscReal a, g;
    t[0] = (master[k + 1].X[0] - master[k].X[0]) / lk[k];
    t[1] = (master[k + 1].X[1] - master[k].X[1]) / lk[k];
    a    = ((slave->X[0] - master[k].X[0]) * t[0] + (slave->X[1] - master[k].X[1]) * t[1]) / lk[k];
    g    = (slave->X[1] - master[k].X[1]) * t[0] - (slave->X[0] - master[k].X[0]) * t[1];
    if (a >= 0 && a <= 1 && PetscAbsReal(g) < best) {
      best = PetscAbsReal(g);
      seg  = k;
      g0   = g;
    }
  }
  PetscCheck(seg >= 0, comm, PETSC_ERR_USER_INPUT, "-slide_start: slave node %" PetscInt_FMT " is not over the master chain in the bodies file",
             slave->id);
  for (k = 0; k + 2 < nm && sk[k + 1] < s0; k++) {}
  t[0] = (master[k + 1].X[0] - master[k].X[0]) / lk[k];
  t[1] = (master[k + 1].X[1] - master[k].X[1]) / lk[k];
  n[0] = -t[1];
  n[1] = t[0];
  for (PetscInt c = 0; c < 2; c++) {
    P[c]     = master[k].X[c] + (s0 - sk[k]) * t[c];
    shift[c] = P[c] + g0 * n[c] - slave->X[c];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  One case of an ensemble of slides (`vicms slide -cases_grid dual_mu:...`): the run of VIAppSlideRun on the case's rank
  group, its history written to file (in the ensemble's journal folder, whose lock the ensemble holds) and then copied into
  the journal's case; how it ended, for the ensemble. Not used by a single run.
*/
typedef struct {
  VIEnsemble ens;
  PetscBool  check_only;                    /* set the run up and return (the ensemble's check of the job) */
  PetscBool  verbose;                       /* the run's lines (a job of one case) */
  char       file[PETSC_MAX_PATH_LEN + 64]; /* the case's history (format vicms-slide) */
  char       token[1024];                   /* the bodies' tokens, for the job's fingerprint */
  PetscBool  stopped, failed;
  PetscReal  stopped_time;
  char       message[256];
  PetscReal  quantities[6]; /* steps, slip, stick, open, off (contact steps), max normal force */
} VISlideCase;

/* What the run's per-level hook and monitor work on (VIStepperSetPostLevel, VIStepperSetMonitor). */
typedef struct {
  MPI_Comm         comm;
  PetscMPIInt      rank;
  VIDual           dual;
  VISlideHistory  *h;
  VISlideTally    *tally;
  const PetscReal *sk, *lk;
  VISlideCase     *cs;
  PetscInt         nsteps;
  PetscReal        dt, end_time, progress, ckpt_interval;
  PetscLogDouble   t0, t_prog, t_ckpt;
  const char      *ckpt, *fingerprint, *token;
  PetscBool        quiet, stop_ckpt; /* stop_ckpt: the last checkpoint asked for was written */
  int              sig;              /* the signal (or the ensemble's stop) the ranks agreed on */
} VISlideLoop;

/* After the step of each level but the initial one: the contact states of the step in the tally, and at the stepper's
   recorded levels (every -slide_record_interval, and the last) the level's record in the history. */
static PetscErrorCode VISlidePostLevel(VIStepper st, PetscInt level, PetscReal t, PetscBool recorded, void *ctx)
{
  VISlideLoop         *l = (VISlideLoop *)ctx;
  const VIDualContact *rec;
  PetscInt             ns;

  PetscFunctionBeginUser;
  (void)st;
  (void)t;
  if (level == 0) PetscFunctionReturn(PETSC_SUCCESS); /* the initial state is not a step */
  PetscCall(VIDualGetContacts(l->dual, &ns, &rec));
  for (PetscInt j = 0; j < ns; j++) {
    l->tally->counts[rec[j].status]++;
    l->tally->fmax = PetscMax(l->tally->fmax, rec[j].normal);
  }
  if (recorded) PetscCall(VISlideHistoryAppend(l->h, l->dual, l->sk, l->lk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every 256 steps before the last (the stepper calls it every 64): a SIGTERM, SIGUSR1 or SIGINT (a case: the ensemble's
   stop, agreed over the job) ends the run at a step agreed by the ranks, with its checkpoint; the checkpoint every
   -slide_checkpoint_interval seconds (rank 0's clock decides); the progress line. */
static PetscErrorCode VISlideMonitor(VIStepper st, PetscReal t, void *ctx)
{
  VISlideLoop   *l = (VISlideLoop *)ctx;
  PetscInt       s;
  PetscLogDouble t1;
  int            mine[2], all[2];

  PetscFunctionBeginUser;
  (void)t;
  PetscCall(VIStepperGetLevel(st, &s, NULL));
  if (s == 0 || s % 256 || s >= l->nsteps) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&t1));
  if (l->cs) { /* a case: the ensemble agrees on a stop over the job (and answers the other groups) */
    PetscBool stop;
    PetscCall(VIEnsembleCasePoll(l->cs->ens, NULL, &stop));
    mine[0] = stop ? SIGTERM : 0;
  } else
    mine[0] = VISignalReceived();
  mine[1] = l->rank == 0 && l->ckpt_interval > 0 && t1 - l->t_ckpt >= l->ckpt_interval;
  PetscCallMPI(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, l->comm));
  l->sig = all[0];
  if (l->sig || all[1]) {
    PetscBool written;
    PetscCall(VISlideCheckpoint(l->comm, l->ckpt, l->fingerprint, l->token, st, l->h, l->tally, &written));
    l->stop_ckpt = written;
    l->t_ckpt    = t1;
    if (!l->sig && written) PetscCall(PetscPrintf(l->comm, "  checkpoint at t = %g written to %s\n", (double)(s * l->dt), l->ckpt));
  }
  if (l->sig) {
    PetscCall(VIStepperStop(st));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (t1 - l->t_prog >= l->progress && !l->quiet) {
    l->t_prog = t1;
    PetscCall(PetscPrintf(l->comm, "  t = %g of %g (%.0f %%), %.1f s elapsed\n", (double)(s * l->dt), (double)l->end_time,
                          (double)(100.0 * s * l->dt / l->end_time), (double)(t1 - l->t0)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The run (a single run, or a case of an ensemble: cs), with the history file's lock taken once the run is set up
   (*locked: the lock at path lock, to release; a case runs under the ensemble's lock). */
static PetscErrorCode VIAppSlideRun(MPI_Comm comm, VISlideCase *cs, char lock[], size_t llen, PetscBool *locked)
{
  char      rom_file[PETSC_MAX_PATH_LEN] = "bodies.h5", out_file[PETSC_MAX_PATH_LEN] = "slide.h5", slave[256] = "", master[256] = "";
  char      drive[4096] = "", pnodes[4096] = "", sbody[128], body[128];
  PetscInt  drive_dir = 0, noise_dir = 0, nh = 256, seed = 1, npre = 3, nband = 3, nid, *ids, *slave_ids, nsl, nm, sk_body;
  PetscReal v = 0, preload[3] = {0, 0, 0}, end_time = 0, rec_dt = 0, start = NAN, rms = 0, band[3] = {0, 0, 0}, progress = 10, dt, dt_crit, *sk, *lk;
  PetscBool help, has_preload, has_start, has_band, has_pnodes;
  PetscMPIInt    rank;
  PetscLogDouble t0, t1, t_loop;
  VIBodies       bodies;
  VISystem       sys;
  VIStepper      st;
  VIDual         dual;
  VIExcitation  *noise = NULL;
  VIBodyNode    *mnodes, snode;
  VISlideHistory h   = {0};
  VISlideRun     run = {0};
  PetscInt       nsteps, every, step0 = 0;
  VISlideTally   tally = {{0, 0, 0, 0}, 0};
  int            sig   = 0;
  char           ckpt[PETSC_MAX_PATH_LEN + 8], token[1024], *fingerprint = NULL;
  PetscReal      ckpt_interval = 600;
  PetscBool      resume = PETSC_FALSE, overwrite = PETSC_FALSE, failed = PETSC_FALSE;
  VISlideAction  action;
  char           failure[512] = "", stopped_by[600] = "";
  PetscInt       fail_step = -1, nrec;
  PetscBool      stop_ckpt = PETSC_FALSE, quiet, record_q = PETSC_FALSE;
  PetscReal      shift[2] = {0, 0};

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "vicms slide: the transient of sliding bodies (dual assembly, seed 003 §2.2)", "");
  PetscCall(PetscOptionsString("-rom_file", "The bodies file (vicms reduce -bodies)", "", rom_file, rom_file, sizeof(rom_file), NULL));
  PetscCall(PetscOptionsString("-slide_file", "HDF5 history file (format vicms-slide)", "", out_file, out_file, sizeof(out_file), NULL));
  PetscCall(
      PetscOptionsString("-slide_slave", "The slave nodes: BODY:ID[,ID,...] (boundary nodes of that body)", "", slave, slave, sizeof(slave), NULL));
  PetscCall(PetscOptionsString("-slide_master", "The master chain: BODY (all its boundary nodes, in table order) or BODY:ID,ID,...", "", master,
                               master, sizeof(master), NULL));
  PetscCall(PetscOptionsString("-slide_drive", "Driven nodes: BODY (its boundary nodes but the slave) or BODY:ID,...; none by default", "", drive,
                               drive, sizeof(drive), NULL));
  PetscCall(PetscOptionsEList("-slide_drive_dir", "The driven component of the -slide_drive nodes", "", VIAppSlideDirs, 2, VIAppSlideDirs[drive_dir],
                              &drive_dir, NULL));
  PetscCall(PetscOptionsReal("-slide_drive_velocity", "Velocity of the driven component (length unit of the bodies per s)", "", v, &v, NULL));
  PetscCall(PetscOptionsRealArray("-slide_preload", "fx,fy: a constant total force, split equally over the -slide_preload_nodes", "", preload, &npre,
                                  &has_preload));
  PetscCall(PetscOptionsString("-slide_preload_nodes", "The nodes of the preload: BODY:ID,... or BODY (default the driven nodes)", "", pnodes, pnodes,
                               sizeof(pnodes), &has_pnodes));
  PetscCall(PetscOptionsReal("-slide_end_time", "End time of the transient (s), > 0", "", end_time, &end_time, NULL));
  PetscCall(PetscOptionsReal("-slide_record_interval", "Time between recorded steps (s), rounded to a whole number of steps (0: every step)", "",
                             rec_dt, &rec_dt, NULL));
  PetscCall(PetscOptionsBool("-slide_record_q", "Record each body's ROM coordinates at every record (for vicms fields: the deformed meshes)", "",
                             record_q, &record_q, NULL));
  PetscCall(PetscOptionsReal("-slide_start", "Arc length along the master chain where the slave starts: the slave body is translated rigidly there",
                             "", start, &start, &has_start));
  PetscCall(PetscOptionsReal("-slide_noise_rms", "RMS of the band-limited random force on the slave (0: none)", "", rms, &rms, NULL));
  PetscCall(PetscOptionsRealArray("-slide_noise_band", "f0,f1 (Hz): the band of the random force", "", band, &nband, &has_band));
  PetscCall(
      PetscOptionsInt("-slide_noise_harmonics", "Harmonics of the random force, evenly spaced over the band, random phases", "", nh, &nh, NULL));
  PetscCall(PetscOptionsInt("-slide_seed", "Seed of the random phases of the random force (slave j: seed + j)", "", seed, &seed, NULL));
  PetscCall(PetscOptionsEList("-slide_noise_dir", "Direction of the random force: the master's normal under the slave, x or y", "",
                              VIAppSlideNoiseDirs, 3, VIAppSlideNoiseDirs[noise_dir], &noise_dir, NULL));
  PetscCall(PetscOptionsReal("-slide_progress_interval", "Seconds between progress lines", "", progress, &progress, NULL));
  PetscCall(PetscOptionsReal("-slide_checkpoint_interval",
                             "Seconds of wall time between checkpoints (FILE.ckpt beside the -slide_file FILE; 0: only at a stop by a signal)", "",
                             ckpt_interval, &ckpt_interval, NULL));
  PetscCall(PetscOptionsBool("-slide_resume", "Continue the run from its checkpoint (FILE.ckpt), appending to the records so far", "", resume,
                             &resume, NULL));
  PetscCall(PetscOptionsBool("-results_overwrite", "Start afresh: remove the history file and the checkpoint of an earlier run", "", overwrite,
                             &overwrite, NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscCall(VIDualCreate(comm, &dual));
    PetscCall(VIDualSetFromOptions(dual));
    PetscCall(VIDualDestroy(&dual));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscTime(&t0));
  PetscCheck(slave[0], comm, PETSC_ERR_USER_INPUT, "-slide_slave: give the slave nodes as BODY:ID[,ID,...]");
  PetscCheck(master[0], comm, PETSC_ERR_USER_INPUT, "-slide_master: give the master chain as BODY or BODY:ID,ID,...");
  PetscCheck(end_time > 0 && PetscIsNormalReal(end_time), comm, PETSC_ERR_USER_INPUT, "-slide_end_time: %g, expected a time > 0 (s)",
             (double)end_time);
  PetscCheck(rec_dt >= 0, comm, PETSC_ERR_USER_INPUT, "-slide_record_interval: %g, expected >= 0 (s; 0: every step)", (double)rec_dt);
  PetscCheck(!has_preload || npre == 2, comm, PETSC_ERR_USER_INPUT, "-slide_preload: %" PetscInt_FMT " values, expected the two components fx,fy",
             npre);
  PetscCheck(!has_band || nband == 2, comm, PETSC_ERR_USER_INPUT, "-slide_noise_band: %" PetscInt_FMT " values, expected f0,f1 (Hz)", nband);
  PetscCheck(!has_band || (band[0] > 0 && band[1] > band[0]), comm, PETSC_ERR_USER_INPUT,
             "-slide_noise_band: got %g,%g Hz, expected f_lo,f_hi with 0 < f_lo < f_hi", (double)band[0], (double)band[1]);
  PetscCheck(rms >= 0, comm, PETSC_ERR_USER_INPUT, "-slide_noise_rms: %g, expected an RMS >= 0 (0: no random force)", (double)rms);
  PetscCheck(rms == 0 || has_band, comm, PETSC_ERR_USER_INPUT, "-slide_noise_rms %g needs its band: give -slide_noise_band f0,f1 (Hz)", (double)rms);
  PetscCheck(progress > 0, comm, PETSC_ERR_USER_INPUT, "-slide_progress_interval: %g, expected > 0 (s)", (double)progress);
  PetscCheck(ckpt_interval >= 0, comm, PETSC_ERR_USER_INPUT, "-slide_checkpoint_interval: %g, expected >= 0 (s; 0: only at a stop)",
             (double)ckpt_interval);
  if (cs) PetscCall(PetscStrncpy(out_file, cs->file, sizeof(out_file)));
  PetscCall(PetscSNPrintf(ckpt, sizeof(ckpt), "%s.ckpt", out_file));
  quiet = cs && !cs->verbose ? PETSC_TRUE : PETSC_FALSE;
  if (!cs) PetscCall(VISlideCheckFolder(comm, out_file));
  PetscCall(VIAppLoadBodies(comm, rom_file, &bodies));
  /* the system: the coupled bodies (-system_type bodies, the only type this command integrates) */
  {
    char      type[64] = VISYSTEMBODIES;
    PetscBool same;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-system_type", type, sizeof(type), NULL));
    PetscCall(PetscStrcmp(type, VISYSTEMBODIES, &same));
    PetscCheck(same, comm, PETSC_ERR_USER_INPUT, "-system_type %s: vicms slide integrates coupled bodies, -system_type %s (or leave it out)", type,
               VISYSTEMBODIES);
    PetscCall(VISystemCreate(comm, &sys));
    PetscCall(VISystemSetType(sys, type));
    PetscCall(VISystemBodiesSetBodies(sys, bodies));
  }
  /* the scheme: the dual assembly as the stepper type dual, its own loads given to its VIDual */
  PetscCall(VIStepperCreate(comm, &st));
  PetscCall(VIStepperSetSystem(st, sys));
  PetscCall(VIStepperSetType(st, VISTEPPERDUAL));
  PetscCall(VIStepperDualGetDual(st, &dual));
  PetscCall(PetscMalloc2(VI_SLIDE_MAX_NODES, &ids, VI_SLIDE_MAX_NODES, &slave_ids));
  PetscCall(VIAppParseBoundaryNodes(comm, bodies, "-slide_slave", slave, sbody, sizeof(sbody), VI_SLIDE_MAX_NODES, &nsl, slave_ids));
  PetscCall(VIBodiesFind(bodies, sbody, &sk_body));
  PetscCall(VIBodiesGetNode(bodies, sk_body, slave_ids[0], "-slide_slave", &snode));
  PetscCall(VISystemBodiesSetSlave(sys, sbody, nsl, slave_ids));
  if (rms > 0) { /* the random force at slave j: sqrt(2/n) rms sum_k cos(2 pi f_k t + theta_k), f_k evenly spaced in [f0, f1], theta_k from
                    seed + j (an independent realisation per slave) */
    PetscCall(PetscCalloc1(nsl, &noise));
    for (PetscInt j = 0; j < nsl; j++) {
      PetscCall(VIExcitationCreate(comm, &noise[j]));
      PetscCall(VIExcitationSetOptionsPrefix(noise[j], "slide_")); /* its messages name -slide_noise_band, -slide_noise_harmonics, -slide_seed */
      PetscCall(VIExcitationSetType(noise[j], VI_EXCITE_NOISE));
      PetscCall(VIExcitationSetAmplitude(noise[j], 0, rms));
      PetscCall(VIExcitationSetNoise(noise[j], band[0], band[1], nh, seed + j));
    }
  }
  /* the master chain, and the arc length of its nodes (undeformed) for the contact position */
  PetscCall(VIAppParseBodyNodes(comm, bodies, "-slide_master", master, body, sizeof(body), VI_SLIDE_MAX_NODES, &nm, ids));
  if (!nm) PetscCall(VIAppBodyNodesBut(bodies, body, "", 0, NULL, VI_SLIDE_MAX_NODES, &nm, ids));
  {
    PetscInt mk;
    PetscCall(VIBodiesFind(bodies, body, &mk));
    PetscCall(PetscMalloc3(nm, &mnodes, nm, &sk, nm, &lk));
    sk[0] = 0;
    for (PetscInt j = 0; j < nm; j++) PetscCall(VIBodiesGetNode(bodies, mk, ids[j], "-slide_master", &mnodes[j]));
    for (PetscInt j = 0; j + 1 < nm; j++) {
      lk[j]     = PetscSqrtReal(PetscSqr(mnodes[j + 1].X[0] - mnodes[j].X[0]) + PetscSqr(mnodes[j + 1].X[1] - mnodes[j].X[1]));
      sk[j + 1] = sk[j] + lk[j];
    }
    lk[nm - 1] = 0;
  }
  PetscCall(VISystemBodiesSetMaster(sys, body, nm, ids));
  if (drive[0]) {
    PetscCall(VIAppParseBodyNodes(comm, bodies, "-slide_drive", drive, body, sizeof(body), VI_SLIDE_MAX_NODES, &nid, ids));
    if (!nid) PetscCall(VIAppBodyNodesBut(bodies, body, sbody, nsl, slave_ids, VI_SLIDE_MAX_NODES, &nid, ids));
    PetscCall(VIDualAddDrive(dual, body, nid, ids, drive_dir, v));
  } else
    PetscCheck(v == 0, comm, PETSC_ERR_USER_INPUT, "-slide_drive_velocity %g: give the driven nodes with -slide_drive", (double)v);
  if (has_preload) {
    const PetscReal force[3] = {preload[0], preload[1], 0};
    if (has_pnodes) {
      PetscCall(VIAppParseBodyNodes(comm, bodies, "-slide_preload_nodes", pnodes, body, sizeof(body), VI_SLIDE_MAX_NODES, &nid, ids));
      if (!nid) PetscCall(VIAppBodyNodesBut(bodies, body, sbody, nsl, slave_ids, VI_SLIDE_MAX_NODES, &nid, ids));
    } else {
      PetscCheck(drive[0], comm, PETSC_ERR_USER_INPUT, "-slide_preload: give its nodes with -slide_preload_nodes (they default to -slide_drive's)");
      PetscCall(VIAppParseBodyNodes(comm, bodies, "-slide_drive", drive, body, sizeof(body), VI_SLIDE_MAX_NODES, &nid, ids));
      if (!nid) PetscCall(VIAppBodyNodesBut(bodies, body, sbody, nsl, slave_ids, VI_SLIDE_MAX_NODES, &nid, ids));
    }
    PetscCall(VIDualAddLoad(dual, body, nid, ids, force));
  }
  if (noise) {
    const PetscReal dirs[2][2] = {{1, 0}, {0, 1}};
    for (PetscInt j = 0; j < nsl; j++) PetscCall(VIDualSetSlaveForce(dual, j, noise[j], noise_dir ? dirs[noise_dir - 1] : NULL));
  }
  if (has_start) { /* the slave body placed rigidly so that the (first) slave is at arc length start */
    PetscCall(VISlideStartShift(comm, nm, mnodes, sk, lk, &snode, start, shift));
    PetscCall(VISystemBodiesTranslateBody(sys, sbody, shift));
    if (!quiet)
      PetscCall(PetscPrintf(comm, "Start: body %s translated by (%g, %g) to put node %" PetscInt_FMT " at s = %g on the master chain\n", sbody,
                            (double)shift[0], (double)shift[1], slave_ids[0], (double)start));
  }
  PetscCall(VIDualSetFromOptions(dual));
  PetscCall(VIStepperSetUp(st));
  if (!quiet) PetscCall(VIDualView(dual, NULL));
  PetscCall(VIDualGetTimeStep(dual, &dt));
  PetscCall(VIDualGetCriticalStep(dual, &dt_crit));
  {
    /* the step counts are PetscInt: a run longer than that is refused, not wrapped round (and then marked complete) */
    const PetscReal steps = PetscCeilReal(end_time / dt - 1e-9);
    PetscCheck(steps * nsl <= (PetscReal)PETSC_MAX_INT, comm, PETSC_ERR_USER_INPUT,
               "-slide_end_time: %g s is %.4g steps of %g s (%" PetscInt_FMT " slave node%s), more than %" PetscInt_FMT
               " (the largest count of this build's %d-bit integers); give a shorter -slide_end_time, or run the path in windows with -slide_start",
               (double)end_time, (double)steps, (double)dt, nsl, nsl > 1 ? "s" : "", (PetscInt)PETSC_MAX_INT, (int)(8 * sizeof(PetscInt)));
    nsteps = (PetscInt)steps;
  }
  /* a band above the step's Nyquist frequency would be folded onto lower frequencies by the stepping, silently */
  PetscCheck(!noise || band[1] <= 0.5 / dt, comm, PETSC_ERR_USER_INPUT,
             "-slide_noise_band: %g,%g Hz reaches above the Nyquist frequency of the step, 1/(2 dt) = %g Hz (dt = %g s): the force applied at the "
             "steps would not have that band; lower f_hi, or give a smaller -dual_dt",
             (double)band[0], (double)band[1], (double)(0.5 / dt), (double)dt);
  every = rec_dt > 0 ? PetscMax(1, (PetscInt)PetscFloorReal(rec_dt / dt + 0.5)) : 1;
  if (noise && !quiet) {
    PetscCall(VIExcitationView(noise[0], NULL));
    if (nsl > 1)
      PetscCall(PetscPrintf(
          comm, "  an independent realisation at each of the %" PetscInt_FMT " slave nodes: seeds %" PetscInt_FMT " to %" PetscInt_FMT "\n", nsl,
          seed, seed + nsl - 1));
  }
  if (!quiet)
    PetscCall(PetscPrintf(comm, "Transient: %" PetscInt_FMT " steps of %g s to t = %g s, recorded every %" PetscInt_FMT " step%s (%g s)\n", nsteps,
                          (double)dt, (double)(nsteps * dt), every, every > 1 ? "s" : "", (double)(every * dt)));
  {
    PetscInt         no;
    const PetscReal *out;
    PetscCall(VIDualGetOutputs(dual, &no, &out));
    h.no = no;
    h.ns = nsl;
    if (record_q) {
      PetscCall(VIBodiesGetNum(bodies, &h.nb));
      PetscCall(VIBodiesGetOffset(bodies, h.nb, &h.nq));
    }
  }
  /* the common run loop: the stepper's levels are the dual's steps (t_end: end_time, or one step when it is shorter), recorded
     every `every` and at the last */
  PetscCall(VIStepperSetTimeStep(st, dt, PetscMax(end_time, dt)));
  PetscCall(VIStepperSetOutputEvery(st, every));
  PetscCall(VISlideFingerprint(bodies, &fingerprint, token, sizeof(token)));
  if (cs) PetscCall(PetscStrncpy(cs->token, token, sizeof(cs->token)));
  if (cs && cs->check_only) nsteps = -1;
  /* one job per history file from here on (the lock of `vicms simulate` and `vicms hb`, PATH.lock), then what it holds */
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!cs) PetscCall(PetscSNPrintf(lock, llen, "%s.lock", out_file));
  if (!cs) {
    PetscErrorCode ierr = PETSC_SUCCESS;
    if (rank == 0) ierr = VIResultsLockOption(out_file, lock, "-slide_file");
    *locked = ierr ? PETSC_FALSE : PETSC_TRUE;
    PetscCall(VIErrorSync(comm, ierr));
  }
  if (nsteps >= 0)
    PetscCall(VISlideJobCheck(comm, out_file, ckpt, fingerprint, token, resume, overwrite, st, &h, &tally, &action));
  else
    action = VI_SLIDE_START;
  if (action == VI_SLIDE_DONE) {
    PetscCall(PetscPrintf(comm, "%s holds this run, complete: nothing to do (add -results_overwrite to run it again)\n", out_file));
    nsteps = -1;
  } else if (action == VI_SLIDE_RESUME) {
    PetscCall(VIDualGetTime(dual, NULL, &step0));
    PetscCall(PetscPrintf(comm, "Resumed from %s at step %" PetscInt_FMT " (t = %g s) with %" PetscInt_FMT " records\n", ckpt, step0,
                          (double)(step0 * dt), h.n));
  }
  if (nsteps < 0) {
    PetscCall(PetscFree(fingerprint));
    PetscCall(VISlideHistoryDestroy(&h));
    PetscCall(PetscFree3(mnodes, sk, lk));
    PetscCall(PetscFree2(ids, slave_ids));
    PetscCall(VIStepperDestroy(&st));
    PetscCall(VISystemDestroy(&sys));
    for (PetscInt j = 0; noise && j < nsl; j++) PetscCall(VIExcitationDestroy(&noise[j]));
    PetscCall(PetscFree(noise));
    PetscCall(VIBodiesDestroy(&bodies));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* the time loop: VIStepperRun with the tally and the history per level (VISlidePostLevel) and the stops, checkpoints and
     progress (VISlideMonitor). A SIGTERM, SIGUSR1 or SIGINT ends it at a step agreed by the ranks: the checkpoint is written
     (the records of the steps that are recorded in any run, as the uninterrupted run has them) and the history of what was
     computed, with the last step as a record of its own. A step that fails (the contact solve does not converge) on any
     rank ends the run on all (the stepper's failure agreement): what was computed before it is kept. */
  {
    VISlideLoop    loop;
    VIStepStats    stats;
    PetscErrorCode ierr;
    PetscCall(PetscMemzero(&loop, sizeof(loop)));
    loop.comm          = comm;
    loop.rank          = rank;
    loop.dual          = dual;
    loop.h             = &h;
    loop.tally         = &tally;
    loop.sk            = sk;
    loop.lk            = lk;
    loop.cs            = cs;
    loop.nsteps        = nsteps;
    loop.dt            = dt;
    loop.end_time      = end_time;
    loop.progress      = progress;
    loop.ckpt_interval = ckpt_interval;
    loop.t0            = t0;
    loop.ckpt          = ckpt;
    loop.fingerprint   = fingerprint;
    loop.token         = token;
    loop.quiet         = quiet;
    PetscCall(VIStepperSetPostLevel(st, VISlidePostLevel, &loop));
    PetscCall(VIStepperSetMonitor(st, VISlideMonitor, &loop));
    if (!cs) VISignalDefer(PETSC_TRUE); /* a case: the ensemble defers them for the job */
    PetscCall(PetscTime(&loop.t_prog));
    loop.t_ckpt = t_loop = loop.t_prog;
    PetscCall(PetscPushErrorHandler(VIErrorCapture, failure));
    ierr = VIStepperRun(st);
    PetscCall(PetscPopErrorHandler());
    if (!cs) VISignalDefer(PETSC_FALSE);
    PetscCall(VIStepperGetStats(st, &stats));
    /* an error that is not a step's (the hook's, the monitor's) stays an error */
    PetscCheck(!ierr || (stats.failed && stats.error == ierr), comm, ierr, "%s", failure);
    sig       = loop.sig;
    stop_ckpt = loop.stop_ckpt;
    if (stats.failed) { /* a step's error, or the stepper's own end of a run (a non-finite state) */
      PetscInt level;
      PetscCall(VIStepperGetLevel(st, &level, NULL));
      failed    = PETSC_TRUE;
      fail_step = ierr ? stats.failed_level : level + 1;
      PetscCall(PetscStrncpy(failure, stats.message, sizeof(failure)));
      while (h.n > 0 && h.t[h.n - 1] > (fail_step - 0.5) * dt) h.n--; /* a rank that went on past the failing step */
      nsteps = fail_step - 1;                                         /* the steps computed */
    } else if (stats.stopped) {
      PetscInt level;
      PetscCall(VIStepperGetLevel(st, &level, NULL));
      if (level % every) PetscCall(VISlideHistoryAppend(&h, dual, sk, lk));
      nsteps = level;
    }
  }

  /* the summary */
  PetscCall(PetscTime(&t1));
  {
    VIDualEnergy e;
    PetscReal    t, scale, closure, closure_nc;
    PetscCall(VIDualGetTime(dual, &t, NULL));
    PetscCall(VIDualGetEnergy(dual, &e));
    scale =
        PetscMax(PetscMax(PetscMax(PetscAbsReal(e.kinetic), PetscAbsReal(e.potential)), PetscMax(PetscAbsReal(e.damping), PetscAbsReal(e.load_work))),
                 PetscMax(PetscMax(PetscAbsReal(e.drive_work), PetscAbsReal(e.contact_work)), PetscAbsReal(e.initial)));
    closure_nc = e.kinetic + e.potential - e.initial + e.damping - e.load_work - e.drive_work;
    closure    = closure_nc - e.contact_work;
    if (cs) {
      const PetscReal q[6] = {(PetscReal)nsteps,
                              (PetscReal)tally.counts[VI_DUAL_SLIP],
                              (PetscReal)tally.counts[VI_DUAL_STICK],
                              (PetscReal)tally.counts[VI_DUAL_OPEN],
                              (PetscReal)tally.counts[VI_DUAL_OFF],
                              tally.fmax};
      PetscCall(PetscArraycpy(cs->quantities, q, 6));
    }
    if (!quiet)
      PetscCall(PetscPrintf(comm,
                            "Slide %s: %" PetscInt_FMT " steps to t = %g s in %.2f s; contact steps: %" PetscInt_FMT " slip, %" PetscInt_FMT
                            " stick, %" PetscInt_FMT " open, %" PetscInt_FMT " off; max normal force %g\n",
                            failed ? "failed"
                            : sig  ? "stopped"
                                   : "done",
                            nsteps, (double)t, (double)(t1 - t0), tally.counts[VI_DUAL_SLIP], tally.counts[VI_DUAL_STICK], tally.counts[VI_DUAL_OPEN],
                            tally.counts[VI_DUAL_OFF], (double)tally.fmax));
    if (!quiet)
      PetscCall(PetscPrintf(
          comm,
          "Energy: kinetic %g, potential %g, initial %g, damping %g, load work %g, drive work %g, contact work %g; balance closes to %.3g of "
          "the scale %g (%.3g without the contact work)\n",
          (double)e.kinetic, (double)e.potential, (double)e.initial, (double)e.damping, (double)e.load_work, (double)e.drive_work,
          (double)e.contact_work, (double)(PetscAbsReal(closure) / (scale > 0 ? scale : 1)), (double)scale,
          (double)(PetscAbsReal(closure_nc) / (scale > 0 ? scale : 1))));
    if (nsteps > step0 && !quiet) { /* the cost of a step in the unit of the steppers (the steps of this run, records included) */
      PetscReal tmv, per = (t1 - t_loop) / (nsteps - step0);
      PetscCall(VIDualGetMatVecTime(dual, &tmv));
      PetscCall(PetscPrintf(comm, "  time per step: %.3g s = %.3g BLAS dgemv of the coupled system's size (timed in this run)\n", (double)per,
                            (double)(per / tmv)));
    }
  }
  run.rom_file       = rom_file;
  run.slave          = slave;
  run.master         = master;
  run.drive          = drive;
  run.drive_dir      = VIAppSlideDirs[drive_dir];
  run.drive_velocity = v;
  run.preload_nodes  = has_pnodes ? pnodes : (has_preload ? drive : "");
  run.preload[0]     = preload[0];
  run.preload[1]     = preload[1];
  run.geometry       = "";
  run.mu             = 0;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dual_mu", &run.mu, NULL));
  {
    PetscInt g = 0;
    PetscCall(PetscOptionsGetEList(NULL, NULL, "-dual_geometry", VIDualGeometries, 2, &g, NULL));
    run.geometry = VIDualGeometries[g];
  }
  run.dt              = dt;
  run.dt_crit         = dt_crit;
  run.end_time        = end_time;
  run.record_every    = every;
  run.steps           = nsteps;
  run.start           = start;
  run.noise_rms       = rms;
  run.noise_band[0]   = band[0];
  run.noise_band[1]   = band[1];
  run.noise_harmonics = nh;
  run.seed            = seed;
  run.slave_ids       = slave_ids;
  run.shift_body      = has_start ? sbody : "";
  run.shift[0]        = shift[0];
  run.shift[1]        = shift[1];
  run.noise_dir       = VIAppSlideNoiseDirs[noise_dir];
  run.complete        = sig || failed ? PETSC_FALSE : PETSC_TRUE;
  if (failed) PetscCall(PetscSNPrintf(stopped_by, sizeof(stopped_by), "the failure of step %" PetscInt_FMT ": %s", fail_step, failure));
  run.stopped_by  = failed ? stopped_by : sig ? VISignalName(sig) : "";
  run.job_options = fingerprint;
  run.job_bodies  = token;
  {
    /* a history that cannot be written (a full disk) stops the run resumably: its state goes to the checkpoint (unless
       there is no room for that either), and a rerun of the same command writes the history from there */
    PetscErrorCode ierr     = PETSC_SUCCESS;
    char           msg[256] = "", part[PETSC_MAX_PATH_LEN + 8];
    int            bad;
    if (rank == 0) {
      PetscCall(PetscPushErrorHandler(VIErrorCapture, msg));
      ierr = VISlideWrite(out_file, &run, &h, bodies);
      PetscCall(PetscPopErrorHandler());
      if (ierr) {
        PetscCall(PetscSNPrintf(part, sizeof(part), "%s.part", out_file));
        (void)remove(part);
      }
    }
    bad = ierr ? 1 : 0;
    PetscCallMPI(MPI_Bcast(&bad, 1, MPI_INT, 0, comm));
    PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, comm));
    if (bad) {
      PetscBool written = stop_ckpt; /* a stop wrote its checkpoint already, without the stop's extra record */
      int       older   = 0;         /* an earlier periodic checkpoint is there to resume from */
      if (!failed && !sig) PetscCall(VISlideCheckpoint(comm, ckpt, fingerprint, token, st, &h, &tally, &written));
      if (rank == 0) older = access(ckpt, F_OK) == 0 ? 1 : 0;
      PetscCallMPI(MPI_Bcast(&older, 1, MPI_INT, 0, comm));
      PetscCheck(!failed && (written || older), comm, PETSC_ERR_FILE_WRITE,
                 "-slide_file: the history of %" PetscInt_FMT " steps could not be written (%s)%s", nsteps, msg,
                 failed ? "" : ", nor a checkpoint of the run: it is lost");
      PetscCall(PetscPrintf(comm,
                            "vicms: the history could not be written (%s); %s %s: rerun the same command, with room on the disk, to %s "
                            "(exit status %d)\n",
                            msg, written ? "the run's state is in the checkpoint" : "the run's last checkpoint is kept,", ckpt,
                            written ? "write it" : "continue from there", VI_EXIT_RESUMABLE));
      VISetStopped(PETSC_TRUE);
      sig = -1;
    }
    /* a complete history makes the checkpoint useless: a later -slide_resume says there is none */
    if (rank == 0 && !bad && !sig && !failed && remove(ckpt) && errno != ENOENT)
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_WRITE, PETSC_ERROR_INITIAL,
                        "-slide_file: cannot remove the checkpoint %s of the complete run: %s", ckpt, strerror(errno));
    PetscCall(VIErrorSync(comm, bad ? PETSC_SUCCESS : ierr));
  }
  if (sig >= 0 && !quiet) PetscCall(PetscPrintf(comm, "Wrote %s: %" PetscInt_FMT " records\n", out_file, h.n));
  if (cs) { /* the ensemble tells and records how the case ended */
    cs->stopped      = sig ? PETSC_TRUE : PETSC_FALSE;
    cs->stopped_time = nsteps * dt;
    cs->failed       = failed;
    if (failed) PetscCall(PetscStrncpy(cs->message, stopped_by, sizeof(cs->message)));
  } else if (sig > 0) {
    PetscCall(PetscPrintf(comm,
                          "vicms: stopped by %s at t = %g s of %g; the history holds the %" PetscInt_FMT
                          " records computed; rerun the same command to continue from the checkpoint %s (exit status %d)\n",
                          VISignalName(sig), (double)(nsteps * dt), (double)end_time, h.n, stop_ckpt ? ckpt : "(none could be written)",
                          VI_EXIT_RESUMABLE));
    VISetStopped(PETSC_TRUE);
  }
  PetscCall(PetscFree(fingerprint));
  nrec = h.n;

  PetscCall(VISlideHistoryDestroy(&h));
  PetscCall(PetscFree3(mnodes, sk, lk));
  PetscCall(PetscFree2(ids, slave_ids));
  PetscCall(VIStepperDestroy(&st));
  PetscCall(VISystemDestroy(&sys));
  for (PetscInt j = 0; noise && j < nsl; j++) PetscCall(VIExcitationDestroy(&noise[j]));
  PetscCall(PetscFree(noise));
  PetscCall(VIBodiesDestroy(&bodies));
  PetscCheck(!failed || cs, comm, PETSC_ERR_USER_INPUT,
             "step %" PetscInt_FMT " (t = %g s) failed: %s; %s holds the %" PetscInt_FMT " records computed before it (complete = 0)", fail_step,
             (double)(fail_step * dt), failure, out_file, nrec);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- slides as an ensemble */

/* The runner of an ensemble of slides: one slide per case (its options set by the ensemble), on the case's rank group. */
typedef struct {
  VISlideCase cs;
  char        journal[PETSC_MAX_PATH_LEN + 8];
} VISlideRunner;

static PetscErrorCode VISlideRunnerQuantityNames(void *ctx, VIROM rom, PetscInt *nq, char ***names)
{
  static const char *const q[] = {"steps", "slip_steps", "stick_steps", "open_steps", "off_steps", "max_normal_force"};

  PetscFunctionBeginUser;
  (void)ctx;
  (void)rom;
  *nq = 6;
  PetscCall(PetscCalloc1(*nq + 1, names));
  for (PetscInt i = 0; i < *nq; i++) PetscCall(PetscStrallocpy(q[i], &(*names)[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first case set up on the job's communicator, not run: an error in the job's options stops the job. */
static PetscErrorCode VISlideRunnerCheck(void *ctx, VIROM rom, MPI_Comm comm)
{
  VISlideRunner *r = (VISlideRunner *)ctx;
  char           lock[8];
  PetscBool      locked = PETSC_FALSE;

  PetscFunctionBeginUser;
  (void)rom;
  r->cs.check_only = PETSC_TRUE;
  PetscCall(PetscSNPrintf(r->cs.file, sizeof(r->cs.file), "%s/slide.check.h5", r->journal));
  PetscCall(VIAppSlideRun(comm, &r->cs, lock, sizeof(lock), &locked));
  r->cs.check_only = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bodies' part of the job's fingerprint (their tokens, hashed to the length the ensemble keeps). */
static PetscErrorCode VISlideRunnerToken(void *ctx, char token[], size_t len)
{
  VISlideRunner     *r = (VISlideRunner *)ctx;
  unsigned long long h = 14695981039346656037ULL; /* FNV-1a */

  PetscFunctionBeginUser;
  for (const char *c = r->cs.token; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
  PetscCall(PetscSNPrintf(token, len, "bodies=%016llx", h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISlideRunnerRun(void *ctx, VIROM rom, MPI_Comm group, PetscBool verbose, VICaseOutcome *out)
{
  VISlideRunner *r = (VISlideRunner *)ctx;
  char           lock[8];
  PetscBool      locked = PETSC_FALSE;
  PetscMPIInt    grank;

  PetscFunctionBeginUser;
  (void)rom;
  PetscCallMPI(MPI_Comm_rank(group, &grank));
  if (grank == 0 && mkdir(r->journal, 0777) && errno != EEXIST)
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "-results_file: cannot create the folder %s: %s", r->journal, strerror(errno));
  PetscCallMPI(MPI_Barrier(group));
  r->cs.verbose = verbose;
  r->cs.stopped = r->cs.failed = PETSC_FALSE;
  r->cs.message[0]             = 0;
  PetscCall(PetscSNPrintf(r->cs.file, sizeof(r->cs.file), "%s/slide.%" PetscInt_FMT ".h5", r->journal, out->k));
  PetscCall(VIAppSlideRun(group, &r->cs, lock, sizeof(lock), &locked));
  out->stopped      = r->cs.stopped;
  out->stopped_time = r->cs.stopped_time;
  out->failed       = r->cs.failed;
  PetscCall(PetscStrncpy(out->message, r->cs.message, sizeof(out->message)));
  for (PetscInt i = 0; i < PetscMin(out->nq, 6); i++) out->quantities[i] = r->cs.quantities[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The case's history (the vicms-slide layout: its datasets and attributes) under group/history; its file then goes. */
static PetscErrorCode VISlideRunnerWrite(void *ctx, VIROM rom, const VICaseOutcome *out, hid_t file, const char group[])
{
  VISlideRunner *r = (VISlideRunner *)ctx;
  char           dst[256];
  hid_t          h;

  PetscFunctionBeginUser;
  (void)rom;
  if (out->error || access(r->cs.file, F_OK)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSNPrintf(dst, sizeof(dst), "%s/history", group));
  PetscCall(VIH5Open(r->cs.file, &h));
  PetscCall(VIH5Copy(h, "/", file, dst));
  PetscCall(VIH5Close(&h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A case in the journal no longer needs its own history file (its checkpoint went with its completion). */
static PetscErrorCode VISlideRunnerReset(void *ctx)
{
  VISlideRunner *r = (VISlideRunner *)ctx;

  PetscFunctionBeginUser;
  if (!r->cs.stopped && r->cs.file[0]) (void)remove(r->cs.file);
  r->cs.file[0] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* `vicms slide -cases_grid ...`: the slides of the cases on rank groups, into the results file of the ensemble. */
static PetscErrorCode VIAppSlideEnsemble(MPI_Comm comm)
{
  VISlideRunner  r = {{0}, ""};
  VIEnsemble     ens;
  char           results[PETSC_MAX_PATH_LEN] = "results.h5";
  PetscErrorCode ierr;
  VICaseRunner   runner = {.kind           = "slide",
                           .ctx            = &r,
                           .quantity_names = VISlideRunnerQuantityNames,
                           .check          = VISlideRunnerCheck,
                           .run            = VISlideRunnerRun,
                           .write          = VISlideRunnerWrite,
                           .reset          = VISlideRunnerReset,
                           .position_name  = "t",
                           .position_unit  = " s",
                           .token          = VISlideRunnerToken};

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-results_file", results, sizeof(results), NULL));
  PetscCall(PetscSNPrintf(r.journal, sizeof(r.journal), "%s.cases", results));
  PetscCall(VIEnsembleCreate(comm, &ens));
  r.cs.ens = ens;
  PetscCall(VIEnsembleSetCaseRunner(ens, &runner));
  ierr = VIEnsembleSetFromOptions(ens);
  if (!ierr) { /* the bodies' token, before the ensemble's fingerprint: the job check of case 0 on every rank */
    char      lock[8];
    PetscBool locked = PETSC_FALSE;
    r.cs.check_only  = PETSC_TRUE;
    PetscCall(PetscSNPrintf(r.cs.file, sizeof(r.cs.file), "%s/slide.check.h5", r.journal));
    ierr            = VIAppSlideRun(comm, &r.cs, lock, sizeof(lock), &locked);
    r.cs.check_only = PETSC_FALSE;
  }
  if (!ierr) ierr = VIEnsembleRun(ens);
  PetscCall(VIEnsembleDestroy(&ens));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppSlide(MPI_Comm comm)
{
  char           lock[PETSC_MAX_PATH_LEN + 8] = "";
  PetscBool      locked                       = PETSC_FALSE, grid, values, random, help;
  PetscMPIInt    rank;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  /* cases (a grid over mu or the sliding speed, ...) run as an ensemble; one slide keeps its history file (vicms-slide) */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-cases_grid", &grid));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-cases_values", &values));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-cases_random", &random));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) { /* the options of both ways, nothing run */
    VIEnsemble ens;
    PetscCall(VIEnsembleCreate(comm, &ens));
    PetscCall(VIEnsembleSetFromOptions(ens));
    PetscCall(VIEnsembleDestroy(&ens));
  } else if (grid || values || random) {
    PetscCall(VIAppSlideEnsemble(comm));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ierr = VIAppSlideRun(comm, NULL, lock, sizeof(lock), &locked);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && locked) PetscCall(VIResultsUnlock(lock));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
