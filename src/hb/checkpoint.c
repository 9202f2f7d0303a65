/* Checkpoints of a continuation: the branch so far and the state between two points, written whole and restored exactly. */
#include "hbimpl.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define VI_HB_CHECKPOINT_VERSION 3

/* The sizes of the case and the counters of the continuation, in the file's order (an integer dataset /run/sizes). */
enum { VI_HBK_M, VI_HBK_NOUT, VI_HBK_NC, VI_HBK_NH, VI_HBK_NP, VI_HBK_ORBIT_LEN, VI_HBK_HAVE_ORBIT, VI_HBK_NUM };
/* Its real scalars (/run/scalars): the scale of the harmonics, the next step, the orbit's distance, the range, and the
   wall time the continuation has taken so far (over every run). */
enum { VI_HBR_XS, VI_HBR_DS, VI_HBR_ORBIT_DIST, VI_HBR_F0, VI_HBR_F1, VI_HBR_START, VI_HBR_WALL, VI_HBR_NUM };

/* The branch's arrays in the file: datasets /branch/<name> of np rows, w values each (real or integer). */
#define VI_HB_CHECKPOINT_ARRAYS 19
typedef struct {
  const char *name;
  PetscInt    w; /* values per point */
  PetscReal **real;
  PetscInt  **integer;
} VIHBCheckpointArray;

static void VIHBCheckpointArrays(VIHB hb, PetscInt nout, VIHBCheckpointArray a[VI_HB_CHECKPOINT_ARRAYS])
{
  VIHBBranch               *br                            = &hb->branch;
  const VIHBCheckpointArray list[VI_HB_CHECKPOINT_ARRAYS] = {{"frequency_hz", 1, &br->frequency_hz, NULL},
                                                             {"harmonics", nout * hb->nh, &br->harmonics, NULL},
                                                             {"amplitude", nout, &br->amplitude, NULL},
                                                             {"min", nout, &br->min, NULL},
                                                             {"max", nout, &br->max, NULL},
                                                             {"mean", nout, &br->mean, NULL},
                                                             {"closed_fraction", hb->nc, &br->closed_fraction, NULL},
                                                             {"slip_fraction", hb->nc, &br->slip_fraction, NULL},
                                                             {"force_max", hb->nc, &br->force_max, NULL},
                                                             {"multiplier", 1, &br->multiplier, NULL},
                                                             {"iterations", 1, NULL, &br->iterations},
                                                             {"stable", 1, NULL, &br->stable},
                                                             {"stability_method", 1, NULL, &br->stability_method},
                                                             {"kind", 1, NULL, &br->kind},
                                                             {"fold_hz", 1, &br->fold_hz, NULL},
                                                             {"fold_amplitude", nout, &br->fold_amplitude, NULL},
                                                             {"multiplier_arg", 1, &br->multiplier_arg, NULL},
                                                             {"change_hz", 1, &br->change_hz, NULL},
                                                             {"q_harmonics", hb->record_q ? hb->n * hb->nh : 0, &br->q_harmonics, NULL}};
  for (PetscInt i = 0; i < VI_HB_CHECKPOINT_ARRAYS; i++) a[i] = list[i];
}

PetscErrorCode VIHBCheckpointWrite(VIHB hb, const char path[], const char tag[])
{
  VIHBBranch         *br = &hb->branch;
  char                part[PETSC_MAX_PATH_LEN + 8];
  hid_t               file;
  PetscInt            c[VI_HBK_NUM], nout, np = br->np;
  PetscReal           r[VI_HBR_NUM];
  VIHBCheckpointArray a[VI_HB_CHECKPOINT_ARRAYS];

  PetscFunctionBeginUser;
  PetscCheck(hb->setup && np > 0, hb->comm, PETSC_ERR_ORDER, "hb: no continuation to checkpoint: call VIHBContinue() first");
  PetscCall(VIROMGetNumOutputs(hb->rom, &nout));
  c[VI_HBK_M]          = hb->M;
  c[VI_HBK_NOUT]       = nout;
  c[VI_HBK_NC]         = hb->nc;
  c[VI_HBK_NH]         = hb->nh;
  c[VI_HBK_NP]         = np;
  c[VI_HBK_ORBIT_LEN]  = hb->orbit ? hb->orbit_len : 0;
  c[VI_HBK_HAVE_ORBIT] = hb->have_orbit ? 1 : 0;
  r[VI_HBR_XS]         = hb->cont_xs;
  r[VI_HBR_DS]         = hb->cont_ds;
  r[VI_HBR_ORBIT_DIST] = hb->orbit_dist;
  r[VI_HBR_F0]         = hb->freq_range[0];
  r[VI_HBR_F1]         = hb->freq_range[1];
  r[VI_HBR_START]      = hb->f_start;
  PetscCall(VIHBWallTime(hb, &r[VI_HBR_WALL]));
  PetscCall(PetscSNPrintf(part, sizeof(part), "%s.part", path));
  PetscCall(VIH5Create(part, &file));
  PetscCall(VIH5WriteAttrString(file, "/", "format", "vicms-hb-checkpoint"));
  PetscCall(VIH5WriteAttrInt(file, "/", "version", VI_HB_CHECKPOINT_VERSION));
  PetscCall(VIH5WriteAttrString(file, "/", "tag", tag));
  PetscCall(VIH5WriteAttrInt(file, "/", "points", np));
  PetscCall(VIH5WriteAttrReal(file, "/", "frequency_hz", br->frequency_hz[np - 1]));
  PetscCall(VIH5WriteInt(file, "/run/sizes", VI_HBK_NUM, 0, c));
  PetscCall(VIH5WriteReal(file, "/run/scalars", VI_HBR_NUM, 0, r));
  PetscCall(VIH5WriteReal(file, "/state/X", hb->M, 0, hb->X));
  PetscCall(VIH5WriteReal(file, "/state/tangent", hb->M + 1, 0, hb->cont_t));
  PetscCall(VIH5WriteReal(file, "/state/point", hb->M + 1, 0, hb->cont_Y));
  PetscCall(VIH5WriteReal(file, "/state/previous_point", hb->M + 1, 0, hb->cont_Yprev));
  if (c[VI_HBK_ORBIT_LEN]) PetscCall(VIH5WriteReal(file, "/state/orbit", hb->orbit_len, 0, hb->orbit));
  VIHBCheckpointArrays(hb, nout, a);
  for (PetscInt i = 0; i < VI_HB_CHECKPOINT_ARRAYS; i++) {
    char name[64];
    if (!a[i].w) continue;
    PetscCall(PetscSNPrintf(name, sizeof(name), "/branch/%s", a[i].name));
    if (a[i].real)
      PetscCall(VIH5WriteReal(file, name, np, a[i].w, *a[i].real));
    else
      PetscCall(VIH5WriteInt(file, name, np, a[i].w, *a[i].integer));
  }
  PetscCall(VIH5Close(&file));
  PetscCheck(rename(part, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s: %s", part, path, strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank-local: restore from an open file (its format and tag checked); *ok false with the reason when it belongs to another run. */
static PetscErrorCode VIHBCheckpointLoad(void *ctx, hid_t file, PetscBool *ok, char why[], size_t len)
{
  VIHB                hb = (VIHB)ctx;
  VIHBBranch         *br = &hb->branch;
  PetscInt            rows, cols, *c, nout, np;
  PetscReal          *r;
  PetscBool           good = PETSC_TRUE, g;
  VIHBCheckpointArray a[VI_HB_CHECKPOINT_ARRAYS];

  PetscFunctionBeginUser;
  *ok = PETSC_FALSE;
  PetscCall(VIROMGetNumOutputs(hb->rom, &nout));
  PetscCall(VIH5ReadInt(file, "/run/sizes", &rows, &cols, &c));
  PetscCall(VIH5ReadReal(file, "/run/scalars", &rows, &cols, &r));
  if (rows * PetscMax(cols, 1) != VI_HBR_NUM || c[VI_HBK_M] != hb->M || c[VI_HBK_NOUT] != nout || c[VI_HBK_NC] != hb->nc || c[VI_HBK_NH] != hb->nh ||
      c[VI_HBK_NP] < 1 || c[VI_HBK_NP] >= hb->max_points || r[VI_HBR_F0] != hb->freq_range[0] || r[VI_HBR_F1] != hb->freq_range[1] ||
      r[VI_HBR_START] != hb->f_start) {
    PetscCall(PetscSNPrintf(why, len, "its sizes or frequency range differ from this run's"));
    PetscCall(PetscFree(c));
    PetscCall(PetscFree(r));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* from here on the continuation's state is overwritten: a failure makes the caller start the branch afresh */
  np             = c[VI_HBK_NP];
  hb->cont_xs    = r[VI_HBR_XS];
  hb->cont_ds    = r[VI_HBR_DS];
  hb->orbit_dist = r[VI_HBR_ORBIT_DIST];
  hb->wall_base  = r[VI_HBR_WALL];
  hb->have_orbit = c[VI_HBK_HAVE_ORBIT] ? PETSC_TRUE : PETSC_FALSE;
  if (c[VI_HBK_ORBIT_LEN]) {
    PetscCall(PetscFree(hb->orbit));
    hb->orbit_len = c[VI_HBK_ORBIT_LEN];
    PetscCall(PetscMalloc1(hb->orbit_len, &hb->orbit));
    PetscCall(VIH5ReadRealExact(file, "/state/orbit", hb->orbit_len, hb->orbit, &g));
    good = (PetscBool)(good && g);
  } else if (hb->have_orbit)
    good = PETSC_FALSE;
  PetscCall(PetscFree(c));
  PetscCall(PetscFree(r));
  PetscCall(VIH5ReadRealExact(file, "/state/X", hb->M, hb->X, &g));
  good = (PetscBool)(good && g);
  PetscCall(VIH5ReadRealExact(file, "/state/tangent", hb->M + 1, hb->cont_t, &g));
  good = (PetscBool)(good && g);
  PetscCall(VIH5ReadRealExact(file, "/state/point", hb->M + 1, hb->cont_Y, &g));
  good = (PetscBool)(good && g);
  PetscCall(VIH5ReadRealExact(file, "/state/previous_point", hb->M + 1, hb->cont_Yprev, &g));
  good = (PetscBool)(good && g);
  PetscCall(VIHBBranchReserve(hb, PetscMax(64, np)));
  br->np   = 0;
  br->nout = nout;
  br->nc   = hb->nc;
  br->nh   = hb->nh;
  VIHBCheckpointArrays(hb, nout, a);
  for (PetscInt i = 0; i < VI_HB_CHECKPOINT_ARRAYS; i++) {
    char name[64];
    if (!a[i].w) continue;
    PetscCall(PetscSNPrintf(name, sizeof(name), "/branch/%s", a[i].name));
    if (a[i].real)
      PetscCall(VIH5ReadRealExact(file, name, np * a[i].w, *a[i].real, &g));
    else {
      PetscInt *v;
      PetscCall(VIH5ReadInt(file, name, &rows, &cols, &v));
      g = rows * PetscMax(cols, 1) == np * a[i].w ? PETSC_TRUE : PETSC_FALSE;
      if (g) PetscCall(PetscArraycpy(*a[i].integer, v, np * a[i].w));
      PetscCall(PetscFree(v));
    }
    good = (PetscBool)(good && g);
  }
  br->np         = np;
  br->failed     = PETSC_FALSE;
  br->message[0] = 0;
  if (!good) PetscCall(PetscSNPrintf(why, len, "a part of its state has the wrong size"));
  *ok = good;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBCheckpointRead(VIHB hb, const char path[], const char tag[], PetscBool *restored, char why[], size_t len)
{
  PetscBool all;

  PetscFunctionBeginUser;
  PetscCall(VIHBSetUp(hb));
  PetscCall(VIH5CheckpointRead(hb->comm, path, "vicms-hb-checkpoint", "a checkpoint of vicms hb", tag, VIHBCheckpointLoad, hb, &all, why, len));
  /* a branch not restored starts afresh: VIHBContinue overwrites whatever the read left */
  hb->restored = all ? PETSC_TRUE : PETSC_FALSE;
  if (!all) {
    hb->branch.np  = 0;
    hb->have_orbit = PETSC_FALSE;
    PetscCall(PetscArrayzero(hb->X, hb->M));
  }
  *restored = hb->restored;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBSetMonitor(VIHB hb, PetscErrorCode (*monitor)(VIHB, PetscInt, PetscReal, void *), void *ctx)
{
  PetscFunctionBeginUser;
  hb->monitor     = monitor;
  hb->monitor_ctx = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIHBStop(VIHB hb)
{
  PetscFunctionBeginUser;
  hb->stop = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
