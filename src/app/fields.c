/* `vicms fields`: the parent's displacements recovered from the ROM coordinates of a results file, on the nodes the ROM file
   keeps (group /fields, vicms reduce -cms_fields), as an XDMF 3 + HDF5 time series for ParaView (docs/fields.md). */
#include "app.h"
#include <unistd.h>

/* Rank 0 checks the files and the case; every rank stops with its message (one line) when one is wrong. Collective. */
static PetscErrorCode VIAppFieldsCheck(MPI_Comm comm, const char rom_file[], const char results[], PetscInt kcase, PetscInt point, PetscBool *is_hb)
{
  PetscMPIInt rank;
  char        msg[1024] = "";
  PetscInt    hb        = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    hid_t     file;
    PetscBool has;
    char      path[64];
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (access(rom_file, R_OK))
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "-rom_file %s: no such file (the ROM file of vicms reduce)", rom_file));
    else if (access(results, R_OK))
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "-results_file %s: no such file (the results file of vicms simulate -step_record_q)", results));
    else if ((file = H5Fopen(rom_file, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "-rom_file %s: not an HDF5 file", rom_file));
    else {
      PetscCall(VIH5Exists(file, "/fields/basis", &has));
      PetscCall(VIH5Close(&file));
      if (!has)
        PetscCall(PetscSNPrintf(msg, sizeof(msg),
                                "-rom_file %s: the ROM keeps no fields (group /fields); reduce it again with -cms_fields surface|all or "
                                "-cms_fields_nodes SET",
                                rom_file));
    }
    if (!msg[0] && (file = H5Fopen(results, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "-results_file %s: not an HDF5 file", results));
    else if (!msg[0]) {
      char    *format = NULL, *kind = NULL;
      PetscInt ncases = 0;
      PetscCall(VIH5HasAttr(file, "/", "format", &has));
      if (has) PetscCall(VIH5ReadAttrStringAlloc(file, "/", "format", &format));
      if (has) PetscCall(VIH5HasAttr(file, "/", "kind", &has));
      if (has) PetscCall(VIH5ReadAttrStringAlloc(file, "/", "kind", &kind));
      if (has) PetscCall(VIH5ReadAttrInt(file, "/", "n_cases", &ncases));
      if (has && !strcmp(kind, "hb")) hb = 1;
      if (!has || strcmp(format, "vicms-results") || (strcmp(kind, "simulate") && !hb))
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "-results_file %s: not a results file of vicms simulate, hb, cea or slide (format %s, kind %s)",
                                results, format ? format : "none", kind ? kind : "none"));
      else if (kcase < 0 || kcase >= ncases)
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "-fields_case: got %" PetscInt_FMT ", expected a case of %s from 0 to %" PetscInt_FMT, kcase,
                                results, ncases - 1));
      else if (hb) {
        PetscInt np = 0, cols;
        PetscCall(PetscSNPrintf(path, sizeof(path), "/cases/%" PetscInt_FMT "/q_harmonics", kcase));
        PetscCall(VIH5Exists(file, path, &has));
        if (has) PetscCall(VIH5GetShape(file, path, &np, &cols));
        if (!has)
          PetscCall(PetscSNPrintf(msg, sizeof(msg),
                                  "-results_file %s: case %" PetscInt_FMT
                                  " has no harmonics of the ROM coordinates (%s); run vicms hb with -hb_record_q",
                                  results, kcase, path));
        else if (point < 0 || point >= np)
          PetscCall(PetscSNPrintf(msg, sizeof(msg),
                                  "-fields_point: got %" PetscInt_FMT ", expected a branch point of case %" PetscInt_FMT
                                  " of %s from 0 to %" PetscInt_FMT,
                                  point, kcase, results, np - 1));
      } else {
        PetscCall(PetscSNPrintf(path, sizeof(path), "/cases/%" PetscInt_FMT "/q", kcase));
        PetscCall(VIH5Exists(file, path, &has));
        if (!has)
          PetscCall(PetscSNPrintf(msg, sizeof(msg),
                                  "-results_file %s: case %" PetscInt_FMT " has no ROM coordinates (%s); run vicms simulate with -step_record_q",
                                  results, kcase, path));
      }
      PetscCall(PetscFree(format));
      PetscCall(PetscFree(kind));
      PetscCall(VIH5Close(&file));
    }
  }
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, comm));
  PetscCheck(!msg[0], comm, PETSC_ERR_USER_INPUT, "%s", msg);
  PetscCallMPI(MPI_Bcast(&hb, 1, MPIU_INT, 0, comm));
  *is_hb = hb ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The group /fields of the ROM file, on every rank (read by each: the file is checked). */
static PetscErrorCode VIAppFieldsMeshLoad(const char rom_file[], VIROMFields *m)
{
  hid_t file;

  PetscFunctionBeginUser;
  PetscCall(VIH5Open(rom_file, &file));
  PetscCall(VIROMFieldsRead(file, "/fields", rom_file, m));
  PetscCall(VIH5Close(&file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* u = B q for the nt states q (nt x n): each rank a block of states, gathered on rank 0 into u (nt x 3 nk, rank 0 only). */
PetscErrorCode VIAppFieldsRecover(MPI_Comm comm, const VIROMFields *m, PetscInt nt, const PetscReal q[], PetscReal **u)
{
  PetscMPIInt rank, size, *counts = NULL, *displs = NULL, cnt;
  PetscInt    k0, k1, w = 3 * m->nk;
  PetscReal  *mine;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  k0 = nt * rank / size;
  k1 = nt * (rank + 1) / size;
  PetscCall(PetscCalloc1(PetscMax((k1 - k0) * w, 1), &mine));
  for (PetscInt k = k0; k < k1; k++)
    for (PetscInt i = 0; i < w; i++) {
      PetscReal s = 0;
      for (PetscInt j = 0; j < m->n; j++) s += m->basis[i * m->n + j] * q[k * m->n + j];
      mine[(k - k0) * w + i] = s;
    }
  *u = NULL;
  if (rank == 0) {
    PetscCall(PetscMalloc1(PetscMax(nt * w, 1), u));
    PetscCall(PetscMalloc2(size, &counts, size, &displs));
    for (PetscMPIInt r = 0; r < size; r++) {
      PetscCall(PetscMPIIntCast((nt * (r + 1) / size - nt * r / size) * w, &counts[r]));
      PetscCall(PetscMPIIntCast(nt * r / size * w, &displs[r]));
    }
  }
  PetscCall(PetscMPIIntCast((k1 - k0) * w, &cnt));
  PetscCallMPI(MPI_Gatherv(mine, cnt, MPIU_REAL, rank == 0 ? *u : NULL, counts, displs, MPIU_REAL, 0, comm));
  PetscCall(PetscFree2(counts, displs));
  PetscCall(PetscFree(mine));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One period of the orbit of a branch point of vicms hb: q(t_s) = a0 + sum_h a_h cos(h theta_s) + b_h sin(h theta_s), theta_s
   = 2 pi s / samples, t_s = s / (samples f) at the point's frequency f (the layout of q_harmonics, src/hb/output.c). */
static PetscErrorCode VIAppFieldsOrbit(MPI_Comm comm, hid_t file, const char results[], PetscInt kcase, PetscInt point, PetscInt samples, PetscInt n,
                                       PetscInt *nt, PetscReal **t, PetscReal **q)
{
  PetscInt   rows, cols, H, nh;
  PetscReal *f, *qh;
  char       path[64], group[32];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(group, sizeof(group), "/cases/%" PetscInt_FMT, kcase));
  PetscCall(VIH5ReadAttrInt(file, group, "harmonics_H", &H));
  nh = 2 * H + 1;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/frequency_hz", group));
  PetscCall(VIH5ReadReal(file, path, &rows, &cols, &f));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/q_harmonics", group));
  PetscCall(VIH5ReadReal(file, path, &rows, &cols, &qh));
  PetscCheck(cols == nh * n, comm, PETSC_ERR_USER_INPUT,
             "-results_file %s: %s has %" PetscInt_FMT " columns, expected (2H + 1) n = %" PetscInt_FMT " for H = %" PetscInt_FMT
             " and the %" PetscInt_FMT " coordinates of the ROM (results of another ROM?)",
             results, path, cols, nh * n, H, n);
  PetscCall(VIH5CheckFinite(results, path, rows, cols, qh));
  *nt = samples;
  PetscCall(PetscMalloc1(samples, t));
  PetscCall(PetscMalloc1(samples * n, q));
  for (PetscInt s = 0; s < samples; s++) {
    const PetscReal *c = qh + point * nh * n, theta = 2 * PETSC_PI * s / samples;
    (*t)[s] = s / (samples * f[point]);
    for (PetscInt i = 0; i < n; i++) {
      PetscReal v = c[i];
      for (PetscInt h = 1; h <= H; h++) v += c[(2 * h - 1) * n + i] * PetscCosReal(h * theta) + c[2 * h * n + i] * PetscSinReal(h * theta);
      (*q)[s * n + i] = v;
    }
  }
  PetscCall(PetscFree(f));
  PetscCall(PetscFree(qh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppFieldsWrite(const char out[], const VIROMFields *m, PetscInt nt, const PetscReal t[], const PetscReal u[],
                                const VIAppFieldsSeries *s)
{
  hid_t       file;
  char        xmf[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN], path[64], dname[96], fname[64];
  const char *base;
  VIXdmfField f[3];
  PetscInt    nf = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.part", out));
  PetscCall(VIH5Create(tmp, &file));
  PetscCall(VIH5WriteAttrString(file, "/", "format", "vicms-fields"));
  PetscCall(VIH5WriteAttrString(file, "/", "version", VICMS_VERSION));
  PetscCall(VIH5WriteAttrString(file, "/", "title", s->title));
  PetscCall(VIH5WriteReal(file, "/mesh/coordinates", m->nk, 3, m->xyz));
  PetscCall(VIH5WriteAttrString(file, "/mesh/coordinates", "dims", "node,xyz"));
  if (s->length[0]) PetscCall(VIH5WriteAttrString(file, "/mesh/coordinates", "units", s->length));
  PetscCall(VIH5WriteInt(file, "/mesh/node_ids", m->nk, 0, m->ids));
  PetscCall(VIH5WriteAttrString(file, "/mesh/node_ids", "dims", "node"));
  PetscCall(VIH5WriteInt(file, "/mesh/topology", m->tsize, 0, m->topo));
  PetscCall(VIH5WriteAttrInt(file, "/mesh/topology", "num_cells", m->ncells));
  if (s->body) {
    PetscCall(VIH5WriteReal(file, "/mesh/body", m->nk, 0, s->body));
    PetscCall(VIH5WriteAttrString(file, "/mesh/body", "dims", "node"));
    PetscCall(VIH5WriteAttrString(file, "/mesh/body", "bodies", s->bodies));
  }
  PetscCall(VIH5WriteReal(file, "/time", nt, 0, t));
  PetscCall(VIH5WriteAttrString(file, "/time", "units", "s"));
  PetscCall(VIH5WriteAttrString(file, "/time", "dims", "time"));
  PetscCall(PetscSNPrintf(dname, sizeof(dname), "%s [%s]", s->shape_name, s->length[0] ? s->length : "length"));
  PetscCall(PetscSNPrintf(fname, sizeof(fname), "contact force [%s]", s->force_unit[0] ? s->force_unit : "force"));
  f[nf].name       = dname;
  f[nf].group      = "/displacement";
  f[nf].ncomp      = 3;
  f[nf++].constant = PETSC_FALSE;
  if (s->force) {
    f[nf].name       = fname;
    f[nf].group      = "/contact_force";
    f[nf].ncomp      = 1;
    f[nf++].constant = PETSC_FALSE;
  }
  if (s->body) {
    f[nf].name       = "body";
    f[nf].group      = "/mesh/body";
    f[nf].ncomp      = 1;
    f[nf++].constant = PETSC_TRUE;
  }
  PetscCall(VIH5CreateGroup(file, "/displacement"));
  PetscCall(VIH5WriteAttrString(file, "/displacement", "name", dname));
  if (s->force) PetscCall(VIH5CreateGroup(file, "/contact_force"));
  for (PetscInt k = 0; k < nt; k++) {
    PetscCall(PetscSNPrintf(path, sizeof(path), "/displacement/%" PetscInt_FMT, k));
    PetscCall(VIH5WriteReal(file, path, m->nk, 3, u + k * 3 * m->nk));
    if (s->length[0]) PetscCall(VIH5WriteAttrString(file, path, "units", s->length));
    PetscCall(VIH5WriteAttrString(file, path, "dims", "node,xyz"));
    PetscCall(VIH5WriteAttrReal(file, path, "time", t[k]));
    if (!s->force) continue;
    PetscCall(PetscSNPrintf(path, sizeof(path), "/contact_force/%" PetscInt_FMT, k));
    PetscCall(VIH5WriteReal(file, path, m->nk, 0, s->force + k * m->nk));
    if (s->force_unit[0]) PetscCall(VIH5WriteAttrString(file, path, "units", s->force_unit));
    PetscCall(VIH5WriteAttrString(file, path, "dims", "node"));
  }
  PetscCall(VIH5Close(&file));
  PetscCheck(rename(tmp, out) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s", tmp, out);
  PetscCall(VIXdmfPath(out, xmf, sizeof(xmf), &base));
  PetscCall(VIXdmfWriteSeries(xmf, base, s->title, m->nk, m->ncells, m->tsize, nt, t, nf, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The force unit of a ROM's units FORCE-LENGTH-MASS-TIME (N-mm-t-s: N). */
void VIAppUnitsForce(const char units[], char force[], size_t len)
{
  const char *a = units ? strchr(units, '-') : NULL;
  force[0]      = 0;
  if (a && strchr(a + 1, '-') && (size_t)(a - units) < len) {
    memcpy(force, units, (size_t)(a - units));
    force[a - units] = 0;
  }
}

/* Rank 0: the format attribute of the results file ("" when it has none or cannot be read: VIAppFieldsCheck says why). */
static PetscErrorCode VIAppFieldsFormat(MPI_Comm comm, const char results[], char format[], size_t len)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  format[0] = 0;
  if (rank == 0 && !access(results, R_OK)) {
    hid_t     file;
    PetscBool has;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if ((file = H5Fopen(results, H5F_ACC_RDONLY, H5P_DEFAULT)) >= 0) {
      PetscCall(VIH5HasAttr(file, "/", "format", &has));
      if (has) PetscCall(VIH5ReadAttrString(file, "/", "format", format, len));
      PetscCall(VIH5Close(&file));
    }
  }
  PetscCallMPI(MPI_Bcast(format, (PetscMPIInt)len, MPI_CHAR, 0, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppFields(MPI_Comm comm)
{
  VIAppFieldsOptions   o = {"rom.h5", "results.h5", "fields.h5", PETSC_FALSE, 0, 0, 32, -1, -1, 1};
  char                 length[32], force_unit[32], path[64], title[64], format[64];
  char                *rom_file = o.rom_file, *results = o.results, *out = o.out;
  PetscInt             nt, cols, nc;
  PetscBool            is_hb = PETSC_FALSE;
  PetscBool            help;
  VIROM                rom;
  VIROMFields          m;
  const char          *units;
  const VIContactInfo *contacts;
  PetscReal           *t, *q, *u, *forces = NULL, *nodal = NULL;
  PetscMPIInt          rank;
  hid_t                file;
  PetscErrorCode       ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "vicms fields", "");
  PetscCall(PetscOptionsString(
      "-rom_file", "The ROM file, reduced with fields kept (-cms_fields); for cea and slide results the bodies file (default: the one they name)", "",
      o.rom_file, o.rom_file, sizeof(o.rom_file), &o.rom_set));
  PetscCall(PetscOptionsString("-results_file",
                               "The results file of vicms simulate -step_record_q, hb -hb_record_q, cea -cea_vectors or slide -slide_record_q", "",
                               o.results, o.results, sizeof(o.results), NULL));
  PetscCall(PetscOptionsInt("-fields_case", "The case of the results file (from 0)", "", o.kcase, &o.kcase, NULL));
  PetscCall(PetscOptionsInt("-fields_point", "vicms hb results: the branch point (from 0) whose orbit is shown over one period", "", o.point,
                            &o.point, NULL));
  PetscCall(PetscOptionsInt("-fields_samples", "vicms hb results: time levels per period; vicms cea results: phases per period", "", o.samples,
                            &o.samples, NULL));
  PetscCall(PetscOptionsInt("-fields_position", "vicms cea results: the position (from 0; default: the one of the largest real part)", "", o.position,
                            &o.position, NULL));
  PetscCall(PetscOptionsInt("-fields_mode",
                            "vicms cea results: the mode at that position (from 0; default: its largest real part with an eigenvector)", "", o.mode,
                            &o.mode, NULL));
  PetscCall(PetscOptionsInt("-fields_every", "vicms slide results: every k-th record", "", o.every, &o.every, NULL));
  PetscCall(PetscOptionsString("-fields_file", "Where the series goes (FILE.h5, with FILE.xmf beside it for ParaView)", "", o.out, o.out,
                               sizeof(o.out), NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(o.samples >= 2, comm, PETSC_ERR_USER_INPUT, "-fields_samples: got %" PetscInt_FMT ", expected at least 2 levels per period", o.samples);
  PetscCheck(o.every >= 1, comm, PETSC_ERR_USER_INPUT, "-fields_every: got %" PetscInt_FMT ", expected at least 1", o.every);
  PetscCall(VIAppFieldsFormat(comm, results, format, sizeof(format)));
  if (!strcmp(format, "vicms-results")) {
    /* an ensemble of slides (vicms slide -cases_*) keeps each case's history as a history file does, under /cases/K/history */
    char kind[32] = "";
    if (rank == 0) {
      hid_t     file;
      PetscBool has;
      PetscCall(VIH5Open(results, &file));
      PetscCall(VIH5HasAttr(file, "/", "kind", &has));
      if (has) PetscCall(VIH5ReadAttrString(file, "/", "kind", kind, sizeof(kind)));
      PetscCall(VIH5Close(&file));
    }
    PetscCallMPI(MPI_Bcast(kind, (PetscMPIInt)sizeof(kind), MPI_CHAR, 0, comm));
    if (!strcmp(kind, "slide")) {
      PetscCall(VIAppFieldsBodies(comm, format, &o));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (!strcmp(format, "vicms-cea") || !strcmp(format, "vicms-slide")) {
    PetscCall(VIAppFieldsBodies(comm, format, &o));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(!format[0] || !strcmp(format, "vicms-results"), comm, PETSC_ERR_USER_INPUT,
             "-results_file %s: not a results file of vicms simulate, hb, cea or slide (format %s)", results, format);
  PetscCall(VIAppFieldsCheck(comm, rom_file, results, o.kcase, o.point, &is_hb));
  PetscCall(PetscMemzero(&m, sizeof(m)));
  PetscCall(VIAppFieldsMeshLoad(rom_file, &m));
  PetscCall(VIROMCreate(comm, &rom));
  PetscCall(VIROMLoad(rom, rom_file));
  PetscCall(VIROMGetUnits(rom, &units));
  PetscCall(VIUnitsLength(units, length, sizeof(length)));
  VIAppUnitsForce(units, force_unit, sizeof(force_unit));
  PetscCall(VIROMGetContacts(rom, &nc, &contacts));
  /* the case's series */
  PetscCall(VIH5Open(results, &file));
  if (is_hb) {
    PetscCall(VIAppFieldsOrbit(comm, file, results, o.kcase, o.point, o.samples, m.n, &nt, &t, &q));
    PetscCall(VIH5Close(&file));
    nc = 0;
  } else {
    PetscCall(PetscSNPrintf(path, sizeof(path), "/cases/%" PetscInt_FMT "/t", o.kcase));
    PetscCall(VIH5ReadReal(file, path, &nt, &cols, &t));
    PetscCall(PetscSNPrintf(path, sizeof(path), "/cases/%" PetscInt_FMT "/q", o.kcase));
    PetscCall(VIH5ReadReal(file, path, &nt, &cols, &q));
    PetscCheck(cols == m.n, comm, PETSC_ERR_USER_INPUT,
               "-results_file %s: case %" PetscInt_FMT " has %" PetscInt_FMT " ROM coordinates, the ROM of -rom_file %s has %" PetscInt_FMT
               " (results of another ROM?)",
               results, o.kcase, cols, rom_file, m.n);
    PetscCall(VIH5CheckFinite(results, path, nt, cols, q));
    PetscCall(PetscSNPrintf(path, sizeof(path), "/cases/%" PetscInt_FMT "/forces", o.kcase));
    if (nc) {
      PetscInt  rows, fc;
      PetscBool has;
      PetscCall(VIH5Exists(file, path, &has));
      if (has) PetscCall(VIH5ReadReal(file, path, &rows, &fc, &forces));
      PetscCheck(!has || (rows == nt && fc == nc), comm, PETSC_ERR_USER_INPUT,
                 "-results_file %s: %s is %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT " x %" PetscInt_FMT, results, path, rows,
                 fc, nt, nc);
    }
    PetscCall(VIH5Close(&file));
  }
  PetscCall(VIAppFieldsRecover(comm, &m, nt, q, &u));
  if (forces) {
    /* the normal contact force as point data at each contact node the ROM keeps, zero at the other nodes */
    PetscCall(PetscCalloc1(PetscMax(nt * m.nk, 1), &nodal));
    for (PetscInt j = 0; j < nc; j++)
      for (PetscInt i = 0; i < m.nk; i++)
        if (m.ids[i] == contacts[j].node_id)
          for (PetscInt k = 0; k < nt; k++) nodal[k * m.nk + i] += forces[k * nc + j];
  }
  if (is_hb)
    PetscCall(PetscSNPrintf(title, sizeof(title), "case %" PetscInt_FMT " point %" PetscInt_FMT, o.kcase, o.point));
  else
    PetscCall(PetscSNPrintf(title, sizeof(title), "case %" PetscInt_FMT, o.kcase));
  if (rank == 0) {
    VIAppFieldsSeries series = {title, "displacement", length, force_unit, nodal, NULL, NULL};
    ierr                     = VIAppFieldsWrite(out, &m, nt, t, u, &series);
  }
  PetscCall(VIErrorSync(comm, ierr));
  PetscCall(PetscPrintf(comm,
                        "Wrote %s and its .xmf: %" PetscInt_FMT " steps from %g to %g s of case %" PetscInt_FMT " on %" PetscInt_FMT
                        " nodes and %" PetscInt_FMT " cells\n",
                        out, nt, nt ? (double)t[0] : 0.0, nt ? (double)t[nt - 1] : 0.0, o.kcase, m.nk, m.ncells));
  if (is_hb)
    PetscCall(PetscPrintf(comm, "  one period of the orbit of branch point %" PetscInt_FMT " (%g Hz)\n", o.point, (double)(1.0 / (nt * t[1]))));
  PetscCall(PetscFree(u));
  PetscCall(PetscFree(nodal));
  PetscCall(PetscFree(forces));
  PetscCall(PetscFree(t));
  PetscCall(PetscFree(q));
  PetscCall(VIROMDestroy(&rom));
  PetscCall(VIROMFieldsReset(&m));
  PetscFunctionReturn(PETSC_SUCCESS);
}
