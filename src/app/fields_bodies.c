/* `vicms fields` on the results of the commands on a bodies file (docs/fields.md): a complex mode shape of `vicms cea` animated
   by phase, or the history of `vicms slide -slide_record_q`, on the meshes of every body of the bodies file (the group
   bodies/NAME/fields that `vicms reduce -bodies` keeps), one XDMF 3 + HDF5 series. */
#include "app.h"
#include <unistd.h>

/* What rank 0 found in the files, broadcast: the bodies file, and for cea the chosen position, mode and its eigenvector's row. */
typedef struct {
  char     bodies_file[PETSC_MAX_PATH_LEN], msg[1024], root[64]; /* root: "" for a history file, /cases/K/history in an ensemble's */
  PetscInt position, mode, row;
} VIAppFieldsPick;

/* Rank 0, cea: the position and mode (the given ones, or the largest real part among the modes with an eigenvector), checked. */
static PetscErrorCode VIAppFieldsPickMode(hid_t file, const VIAppFieldsOptions *o, VIAppFieldsPick *pk)
{
  PetscInt   np, nm, r, c, *index = NULL;
  PetscReal *freq = NULL, *real = NULL, best = PETSC_MIN_REAL;
  PetscBool  has;

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, "/vectors/index", &has));
  if (!has) {
    PetscCall(PetscSNPrintf(pk->msg, sizeof(pk->msg), "-results_file %s: no eigenvectors (/vectors); run vicms cea with -cea_vectors unstable|all",
                            o->results));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VIH5ReadReal(file, "/frequency_hz", &np, &nm, &freq));
  PetscCall(VIH5ReadReal(file, "/real", &r, &c, &real));
  PetscCall(VIH5ReadInt(file, "/vectors/index", &r, &c, &index));
  if (r != np || c != nm)
    PetscCall(
        PetscSNPrintf(pk->msg, sizeof(pk->msg), "-results_file %s: /vectors/index is not %" PetscInt_FMT " x %" PetscInt_FMT, o->results, np, nm));
  else if (o->position >= np || o->position < -1)
    PetscCall(PetscSNPrintf(pk->msg, sizeof(pk->msg), "-fields_position: got %" PetscInt_FMT ", expected a position of %s from 0 to %" PetscInt_FMT,
                            o->position, o->results, np - 1));
  else if (o->mode >= nm || o->mode < -1)
    PetscCall(PetscSNPrintf(pk->msg, sizeof(pk->msg), "-fields_mode: got %" PetscInt_FMT ", expected a mode of %s from 0 to %" PetscInt_FMT, o->mode,
                            o->results, nm - 1));
  else {
    pk->position = pk->mode = -1;
    for (PetscInt p = 0; p < np; p++)
      for (PetscInt m = 0; m < nm; m++) {
        if ((o->position >= 0 && p != o->position) || (o->mode >= 0 && m != o->mode)) continue;
        if (o->mode < 0 && index[p * nm + m] < 0) continue; /* the default: a mode with an eigenvector */
        if (pk->position < 0 || real[p * nm + m] > best) {
          best         = real[p * nm + m];
          pk->position = p;
          pk->mode     = m;
        }
      }
    if (pk->position < 0 && o->position < 0)
      PetscCall(PetscSNPrintf(
          pk->msg, sizeof(pk->msg),
          "-results_file %s keeps no eigenvector (-cea_vectors unstable and no unstable mode?); run vicms cea with -cea_vectors all", o->results));
    else if (pk->position < 0)
      PetscCall(PetscSNPrintf(pk->msg, sizeof(pk->msg),
                              "-fields_position: %s keeps no eigenvector at position %" PetscInt_FMT "; run vicms cea with -cea_vectors all",
                              o->results, o->position));
    else if ((pk->row = index[pk->position * nm + pk->mode]) < 0)
      PetscCall(PetscSNPrintf(pk->msg, sizeof(pk->msg),
                              "-fields_mode: mode %" PetscInt_FMT " at position %" PetscInt_FMT
                              " (real part %g 1/s) has no eigenvector in %s; run vicms cea with -cea_vectors all",
                              pk->mode, pk->position, (double)real[pk->position * nm + pk->mode], o->results));
    else if (!(freq[pk->position * nm + pk->mode] > 0))
      PetscCall(PetscSNPrintf(pk->msg, sizeof(pk->msg),
                              "-fields_mode: mode %" PetscInt_FMT " at position %" PetscInt_FMT
                              " has frequency %g Hz (overdamped): no period to animate; choose another with -fields_mode",
                              pk->mode, pk->position, (double)freq[pk->position * nm + pk->mode]));
  }
  PetscCall(PetscFree(freq));
  PetscCall(PetscFree(real));
  PetscCall(PetscFree(index));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: the bodies file (-rom_file, or the one the results name) with fields for every body, and the results' contents. */
static PetscErrorCode VIAppFieldsBodiesCheck(const char format[], const VIAppFieldsOptions *o, VIAppFieldsPick *pk)
{
  hid_t     file, bf;
  PetscBool has, cea = (PetscBool)!strcmp(format, "vicms-cea");
  char     *list = NULL, *save = NULL, fmt[64] = "", path[128];
  PetscInt  ncases = 0;

  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  PetscCall(VIH5Open(o->results, &file));
  if (!strcmp(format, "vicms-results")) {
    /* an ensemble of slides: case K's history, the layout of a history file under /cases/K/history */
    PetscCall(VIH5ReadAttrInt(file, "/", "n_cases", &ncases));
    PetscCall(PetscSNPrintf(pk->root, sizeof(pk->root), "/cases/%" PetscInt_FMT "/history", o->kcase));
    has = PETSC_FALSE;
    if (o->kcase >= 0 && o->kcase < ncases) PetscCall(VIH5Exists(file, pk->root, &has));
    if (o->kcase < 0 || o->kcase >= ncases)
      PetscCall(PetscSNPrintf(pk->msg, sizeof(pk->msg), "-fields_case: got %" PetscInt_FMT ", expected a case of %s from 0 to %" PetscInt_FMT,
                              o->kcase, o->results, ncases - 1));
    else if (!has)
      PetscCall(PetscSNPrintf(pk->msg, sizeof(pk->msg), "-results_file %s: case %" PetscInt_FMT " has no history (%s): not run yet, or failed",
                              o->results, o->kcase, pk->root));
  }
  if (!pk->msg[0] && o->rom_set)
    PetscCall(PetscStrncpy(pk->bodies_file, o->rom_file, sizeof(pk->bodies_file)));
  else if (!pk->msg[0]) {
    PetscCall(VIH5HasAttr(file, pk->root[0] ? pk->root : "/", "bodies_file", &has));
    if (has) PetscCall(VIH5ReadAttrString(file, pk->root[0] ? pk->root : "/", "bodies_file", pk->bodies_file, sizeof(pk->bodies_file)));
  }
  if (!pk->msg[0] && cea)
    PetscCall(VIAppFieldsPickMode(file, o, pk));
  else if (!pk->msg[0]) {
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/q", pk->root));
    PetscCall(VIH5Exists(file, path, &has));
    if (!has)
      PetscCall(PetscSNPrintf(pk->msg, sizeof(pk->msg),
                              "-results_file %s: no ROM coordinates of the bodies (%s); run vicms slide with -slide_record_q", o->results, path));
  }
  PetscCall(VIH5Close(&file));
  if (pk->msg[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (access(pk->bodies_file, R_OK) || (bf = H5Fopen(pk->bodies_file, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
    PetscCall(PetscSNPrintf(pk->msg, sizeof(pk->msg), "-rom_file %s: cannot read the bodies file of %s (give it with -rom_file)", pk->bodies_file,
                            o->results));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VIH5HasAttr(bf, "/", "format", &has));
  if (has) PetscCall(VIH5ReadAttrString(bf, "/", "format", fmt, sizeof(fmt)));
  if (strcmp(fmt, "vicms-bodies"))
    PetscCall(PetscSNPrintf(pk->msg, sizeof(pk->msg),
                            "-rom_file %s: not a bodies file of vicms reduce -bodies (format %s), which the results of vicms %s need",
                            pk->bodies_file, fmt[0] ? fmt : "none", cea ? "cea" : "slide"));
  else {
    PetscCall(VIH5ReadAttrStringAlloc(bf, "/", "bodies", &list));
    for (char *name = strtok_r(list, ",", &save); name && !pk->msg[0]; name = strtok_r(NULL, ",", &save)) {
      char path[160];
      PetscCall(PetscSNPrintf(path, sizeof(path), "/bodies/%s/fields/basis", name));
      PetscCall(VIH5Exists(bf, path, &has));
      if (!has)
        PetscCall(
            PetscSNPrintf(pk->msg, sizeof(pk->msg),
                          "-rom_file %s: body %s keeps no fields (bodies/%s/fields); reduce the bodies again with -body_%s_cms_fields surface|all",
                          pk->bodies_file, name, name, name));
    }
    PetscCall(PetscFree(list));
  }
  PetscCall(VIH5Close(&bf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every rank: the bodies' fields as one mesh (the bodies' nodes one after the other, each moved by its shift (x, y) when given),
   the basis block-diagonal over the coupled coordinates (body after body, as cea's vectors and slide's q), each node's body. */
static PetscErrorCode VIAppFieldsBodiesMesh(const char path[], const char results[], const char root[], PetscBool slide, VIROMFields *m,
                                            PetscReal **body, char **names, PetscInt *nbodies, char force_unit[], size_t flen)
{
  hid_t       file, rf    = -1;
  char       *list, *save = NULL, what[PETSC_MAX_PATH_LEN + 64];
  VIROMFields f[64];
  PetscReal   shift[64][2];
  PetscInt    nb = 0, nk = 0, n = 0, nc = 0, ts = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(m, sizeof(*m)));
  PetscCall(VIH5Open(path, &file));
  if (slide) PetscCall(VIH5Open(results, &rf));
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "bodies", &list));
  PetscCall(PetscStrallocpy(list, names));
  force_unit[0] = 0;
  for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save), nb++) {
    char      group[160];
    PetscBool has;
    PetscCheck(nb < 64, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: more than 64 bodies", path);
    PetscCall(PetscSNPrintf(group, sizeof(group), "/bodies/%s/fields", name));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s (body %s)", path, name));
    PetscCall(VIROMFieldsRead(file, group, what, &f[nb]));
    PetscCall(PetscSNPrintf(group, sizeof(group), "/bodies/%s", name));
    PetscCall(VIH5HasAttr(file, group, "units", &has));
    if (has && !force_unit[0]) {
      char units[64];
      PetscCall(VIH5ReadAttrString(file, group, "units", units, sizeof(units)));
      VIAppUnitsForce(units, force_unit, flen);
    }
    shift[nb][0] = shift[nb][1] = 0;
    if (slide) {
      PetscInt rows, cols;
      PetscCall(PetscSNPrintf(group, sizeof(group), "%s/q/%s", root, name));
      PetscCall(VIH5Exists(rf, group, &has));
      PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-results_file %s: no %s (a history of other bodies than %s?)", results, group, path);
      PetscCall(VIH5GetShape(rf, group, &rows, &cols));
      PetscCheck(cols == f[nb].n, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "-results_file %s: %s has %" PetscInt_FMT " coordinates, body %s of %s has %" PetscInt_FMT " (a history of other bodies?)", results,
                 group, cols, name, path, f[nb].n);
      PetscCall(VIH5ReadAttrReal(rf, group, "shift_x", &shift[nb][0]));
      PetscCall(VIH5ReadAttrReal(rf, group, "shift_y", &shift[nb][1]));
    }
    nk += f[nb].nk;
    n += f[nb].n;
    nc += f[nb].ncells;
    ts += f[nb].tsize;
  }
  PetscCall(PetscFree(list));
  PetscCall(VIH5Close(&file));
  if (slide) PetscCall(VIH5Close(&rf));
  m->nk     = nk;
  m->n      = n;
  m->ncells = nc;
  m->tsize  = ts;
  PetscCall(PetscStrncpy(m->kind, "bodies", sizeof(m->kind)));
  PetscCall(PetscStrncpy(m->length, f[0].length, sizeof(m->length)));
  PetscCall(PetscMalloc1(PetscMax(nk, 1), &m->ids));
  PetscCall(PetscMalloc1(PetscMax(ts, 1), &m->topo));
  PetscCall(PetscMalloc1(PetscMax(3 * nk, 1), &m->xyz));
  PetscCall(PetscCalloc1(PetscMax(3 * nk * n, 1), &m->basis));
  PetscCall(PetscMalloc1(PetscMax(nk, 1), body));
  for (PetscInt b = 0, k0 = 0, j0 = 0, p0 = 0; b < nb; b++) {
    for (PetscInt i = 0; i < f[b].nk; i++) {
      m->ids[k0 + i]  = f[b].ids[i];
      (*body)[k0 + i] = (PetscReal)b;
      for (PetscInt c = 0; c < 3; c++) m->xyz[3 * (k0 + i) + c] = f[b].xyz[3 * i + c] + (c < 2 ? shift[b][c] : 0);
      for (PetscInt r = 0; r < 3; r++)
        for (PetscInt j = 0; j < f[b].n; j++) m->basis[(3 * (k0 + i) + r) * n + j0 + j] = f[b].basis[(3 * i + r) * f[b].n + j];
    }
    for (PetscInt p = 0; p < f[b].tsize;) {
      /* the cells renumbered to the merged nodes */
      PetscInt code = f[b].topo[p], cnt = (code == 1 || code == 2) ? 2 : 1, len;
      len = cnt + ((code == 1 || code == 2) ? f[b].topo[p + 1] : VIXdmfCellNodes(code));
      for (PetscInt q = 0; q < len; q++) m->topo[p0 + p + q] = q < cnt ? f[b].topo[p + q] : f[b].topo[p + q] + k0;
      p += len;
    }
    k0 += f[b].nk;
    j0 += f[b].n;
    p0 += f[b].tsize;
    PetscCall(VIROMFieldsReset(&f[b]));
  }
  *nbodies = nb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cea: q(theta_s) = Re(phi e^{i theta_s}) = phi_re cos theta_s - phi_im sin theta_s, theta_s = 2 pi s / N, at t_s = theta_s / (2 pi f). */
static PetscErrorCode VIAppFieldsPhases(const char results[], const VIAppFieldsPick *pk, PetscInt N, PetscInt n, PetscInt *nt, PetscReal **t,
                                        PetscReal **q, PetscReal info[3])
{
  hid_t      file;
  PetscInt   rows, cols, np, nm;
  PetscReal *re, *im, *freq, *real, *pos;

  PetscFunctionBeginUser;
  PetscCall(VIH5Open(results, &file));
  PetscCall(VIH5ReadReal(file, "/vectors/re", &rows, &cols, &re));
  PetscCheck(cols == n, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "-results_file %s: the eigenvectors have %" PetscInt_FMT " coordinates, the bodies %" PetscInt_FMT " (results of other bodies?)",
             results, cols, n);
  PetscCall(VIH5ReadReal(file, "/vectors/im", &rows, &cols, &im));
  PetscCall(VIH5ReadReal(file, "/frequency_hz", &np, &nm, &freq));
  PetscCall(VIH5ReadReal(file, "/real", &np, &nm, &real));
  PetscCall(VIH5ReadReal(file, "/positions", &np, &cols, &pos));
  PetscCall(VIH5Close(&file));
  PetscCall(VIH5CheckFinite(results, "/vectors/re", rows, n, re));
  PetscCall(VIH5CheckFinite(results, "/vectors/im", rows, n, im));
  info[0] = pos[pk->position * cols];
  info[1] = freq[pk->position * nm + pk->mode];
  info[2] = real[pk->position * nm + pk->mode];
  *nt     = N;
  PetscCall(PetscMalloc1(N, t));
  PetscCall(PetscMalloc1(N * n, q));
  for (PetscInt s = 0; s < N; s++) {
    const PetscReal theta = 2 * PETSC_PI * s / N, *a = re + pk->row * n, *b = im + pk->row * n;
    (*t)[s] = s / (N * info[1]);
    for (PetscInt i = 0; i < n; i++) (*q)[s * n + i] = a[i] * PetscCosReal(theta) - b[i] * PetscSinReal(theta);
  }
  PetscCall(PetscFree(re));
  PetscCall(PetscFree(im));
  PetscCall(PetscFree(freq));
  PetscCall(PetscFree(real));
  PetscCall(PetscFree(pos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* slide: every k-th record's time and coordinates (the bodies' /q/NAME side by side), and the normal force of each slave at
   its node of the merged mesh (nt x nk; 0 elsewhere and while off the master). */
static PetscErrorCode VIAppFieldsHistory(const char results[], const char root[], const VIROMFields *m, const PetscReal body[], const char names[],
                                         PetscInt every, PetscInt *nt, PetscReal **t, PetscReal **q, PetscReal **force)
{
  hid_t      file;
  PetscInt   nr, cols, ns, rows, off = 0, *sids, sb = -1, k = 0;
  PetscReal *tall, *normal;
  char      *list, *save = NULL, slave[256], *colon, path[160];

  PetscFunctionBeginUser;
  PetscCall(VIH5Open(results, &file));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/t", root));
  PetscCall(VIH5ReadReal(file, path, &nr, &cols, &tall));
  *nt = (nr + every - 1) / every;
  PetscCall(PetscMalloc1(PetscMax(*nt, 1), t));
  PetscCall(PetscMalloc1(PetscMax(*nt * m->n, 1), q));
  for (PetscInt r = 0; r < *nt; r++) (*t)[r] = tall[r * every];
  PetscCall(PetscStrallocpy(names, &list));
  for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
    PetscReal *qb;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/q/%s", root, name));
    PetscCall(VIH5ReadReal(file, path, &rows, &cols, &qb));
    PetscCheck(rows == nr, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-results_file %s: %s has %" PetscInt_FMT " records, /t %" PetscInt_FMT,
               results, path, rows, nr);
    PetscCall(VIH5CheckFinite(results, path, rows, cols, qb));
    for (PetscInt r = 0; r < *nt; r++) PetscCall(PetscArraycpy(*q + r * m->n + off, qb + r * every * cols, cols));
    off += cols;
    PetscCall(PetscFree(qb));
  }
  PetscCall(PetscFree(list));
  /* the slave body: the part of the attribute slave (BODY:ID,...) before the colon */
  PetscCall(VIH5ReadAttrString(file, root[0] ? root : "/", "slave", slave, sizeof(slave)));
  if ((colon = strchr(slave, ':'))) *colon = 0;
  PetscCall(PetscStrallocpy(names, &list));
  save = NULL;
  for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save), k++)
    if (!strcmp(name, slave)) sb = k;
  PetscCall(PetscFree(list));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/contact/slave_ids", root));
  PetscCall(VIH5ReadInt(file, path, &ns, &cols, &sids));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/contact/normal", root));
  PetscCall(VIH5ReadReal(file, path, &rows, &cols, &normal));
  PetscCall(VIH5Close(&file));
  PetscCall(PetscCalloc1(PetscMax(*nt * m->nk, 1), force));
  for (PetscInt j = 0; j < ns; j++)
    for (PetscInt i = 0; i < m->nk; i++)
      if ((PetscInt)body[i] == sb && m->ids[i] == sids[j])
        for (PetscInt r = 0; r < *nt; r++) {
          const PetscReal v = normal[r * every * ns + j];
          (*force)[r * m->nk + i] += PetscIsNormalReal(v) ? v : 0;
        }
  PetscCall(PetscFree(sids));
  PetscCall(PetscFree(normal));
  PetscCall(PetscFree(tall));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppFieldsBodies(MPI_Comm comm, const char format[], const VIAppFieldsOptions *o)
{
  VIAppFieldsPick pk  = {"", "", "", -1, -1, -1};
  PetscBool       cea = (PetscBool)!strcmp(format, "vicms-cea");
  PetscMPIInt     rank;
  VIROMFields     m;
  PetscReal      *body = NULL, *t = NULL, *q = NULL, *u = NULL, *force = NULL, info[3] = {0, 0, 0};
  PetscInt        nb = 0, nt = 0;
  char           *names = NULL, force_unit[32], title[160];
  PetscErrorCode  ierr  = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) ierr = VIAppFieldsBodiesCheck(format, o, &pk);
  PetscCall(VIErrorSync(comm, ierr));
  PetscCallMPI(MPI_Bcast(&pk, (PetscMPIInt)sizeof(pk), MPI_BYTE, 0, comm));
  PetscCheck(!pk.msg[0], comm, PETSC_ERR_USER_INPUT, "%s", pk.msg);
  /* every rank reads the meshes and the states (the files are checked); each recovers a block of the states */
  ierr = VIAppFieldsBodiesMesh(pk.bodies_file, o->results, pk.root, (PetscBool)!cea, &m, &body, &names, &nb, force_unit, sizeof(force_unit));
  if (!ierr && cea) ierr = VIAppFieldsPhases(o->results, &pk, o->samples, m.n, &nt, &t, &q, info);
  if (!ierr && !cea) ierr = VIAppFieldsHistory(o->results, pk.root, &m, body, names, o->every, &nt, &t, &q, &force);
  PetscCall(VIErrorSync(comm, ierr));
  PetscCall(VIAppFieldsRecover(comm, &m, nt, q, &u));
  if (cea)
    PetscCall(PetscSNPrintf(title, sizeof(title), "mode %" PetscInt_FMT " at position %" PetscInt_FMT, pk.mode, pk.position));
  else if (pk.root[0])
    PetscCall(PetscSNPrintf(title, sizeof(title), "slide case %" PetscInt_FMT, o->kcase));
  else
    PetscCall(PetscSNPrintf(title, sizeof(title), "slide"));
  if (rank == 0) {
    VIAppFieldsSeries series = {title, cea ? "mode shape" : "displacement", m.length, force_unit, force, body, names};
    ierr                     = VIAppFieldsWrite(o->out, &m, nt, t, u, &series);
  }
  PetscCall(VIErrorSync(comm, ierr));
  if (cea)
    PetscCall(PetscPrintf(
        comm,
        "Wrote %s and its .xmf: %" PetscInt_FMT " phases over one period (%g s) of mode %" PetscInt_FMT " at position %" PetscInt_FMT
        " (s = %g, %g Hz, real part %g 1/s) on %" PetscInt_FMT " nodes and %" PetscInt_FMT " cells of %" PetscInt_FMT " bodies (%s)\n",
        o->out, nt, (double)(1 / info[1]), pk.mode, pk.position, (double)info[0], (double)info[1], (double)info[2], m.nk, m.ncells, nb, names));
  else
    PetscCall(PetscPrintf(comm,
                          "Wrote %s and its .xmf: %" PetscInt_FMT " records from %g to %g s on %" PetscInt_FMT " nodes and %" PetscInt_FMT
                          " cells of %" PetscInt_FMT " bodies (%s)\n",
                          o->out, nt, nt ? (double)t[0] : 0.0, nt ? (double)t[nt - 1] : 0.0, m.nk, m.ncells, nb, names));
  PetscCall(PetscFree(u));
  PetscCall(PetscFree(t));
  PetscCall(PetscFree(q));
  PetscCall(PetscFree(force));
  PetscCall(PetscFree(body));
  PetscCall(PetscFree(names));
  PetscCall(VIROMFieldsReset(&m));
  PetscFunctionReturn(PETSC_SUCCESS);
}
