/* `vicms cea`: the stability along the sliding path (time-dependent complex eigenvalue analysis, seed 003 §1.4) and,
   optionally, the time-dependent FRF map (seed 003 Eq. 45) of the bodies of a bodies file -> a results file. */
#include "app.h"
#include <vicms/coupling.h>
#include <vicms/io.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const VIAppCEADirs[]       = {"x", "y", "VIAppCEADir", "VI_APP_CEA_DIR_", NULL};
static const char *const VIAppCEAQuantities[] = {"displacement", "acceleration", "VIAppCEAQuantity", "VI_APP_CEA_QUANTITY_", NULL};

/* Which eigenvectors (mode shapes) the results file holds: none, those of the unstable modes, or those of every kept mode. */
typedef enum { VI_APP_CEA_VECTORS_NONE, VI_APP_CEA_VECTORS_UNSTABLE, VI_APP_CEA_VECTORS_ALL } VIAppCEAVectors;
static const char *const VIAppCEAVectorsTypes[] = {"none", "unstable", "all", "VIAppCEAVectors", "VI_APP_CEA_VECTORS_", NULL};

/* The eigenvectors of the selected modes (VICouplingComputeModeShapes): num rows of n coordinates, in the order of keep. */
typedef struct {
  VIAppCEAVectors  which;
  PetscInt         num, n;
  const PetscBool *keep; /* positions x modes */
  const PetscReal *re, *im;
  VIBodies         bodies;
} VIAppCEAShapes;

/* What was run, for the root attributes of the results file. */
typedef struct {
  const char *rom_file, *slave, *master, *hold, *hold_dir, *sliding, *quantity;
  PetscReal   mu;
} VIAppCEARun;

/* "BODY:NODE:x|y" -> a unit vector on that coordinate of the coupled system (n coordinates). */
static PetscErrorCode VIAppCEAParseDof(MPI_Comm comm, VICoupling c, VIBodies bodies, const char opt[], const char value[], PetscInt n,
                                       PetscReal vec[])
{
  char     spec[256], body[128], *dir;
  PetscInt id, nid, dof;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(spec, value, sizeof(spec)));
  dir = strrchr(spec, ':');
  PetscCheck(dir && (!strcmp(dir, ":x") || !strcmp(dir, ":y")), comm, PETSC_ERR_USER_INPUT, "%s: '%s': expected BODY:NODE:x or BODY:NODE:y", opt,
             value);
  *dir = 0;
  PetscCall(VIAppParseBodyNodes(comm, bodies, opt, spec, body, sizeof(body), 1, &nid, &id));
  PetscCheck(nid == 1, comm, PETSC_ERR_USER_INPUT, "%s: '%s': expected BODY:NODE:x or BODY:NODE:y", opt, value);
  PetscCall(VICouplingGetNodeDof(c, body, id, dir[1] == 'x' ? 0 : 1, &dof));
  PetscCheck(dof >= 0, comm, PETSC_ERR_USER_INPUT, "%s: '%s' is clamped", opt, value);
  PetscCall(PetscArrayzero(vec, n));
  vec[dof] = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The group /vectors of the results file: which modes, the row of each (index, -1 where none), the vectors u = L_C q over
   the n coordinates, and per body its boundary nodes (ids, undeformed x, y) and their displacements, column 2 i + c the
   component c (x, y) of node i, 0 where clamped: what a script needs to draw the shapes. */
static PetscErrorCode VIAppCEAWriteShapes(hid_t file, PetscInt np, PetscInt nm, const VIAppCEAShapes *v)
{
  PetscInt *index, nb, k = 0;

  PetscFunctionBeginUser;
  PetscCall(VIH5CreateGroup(file, "/vectors"));
  PetscCall(VIH5WriteAttrString(file, "/vectors", "which", VIAppCEAVectorsTypes[v->which]));
  PetscCall(VIH5WriteAttrString(file, "/vectors", "normalisation",
                                "unit 2-norm over the n coordinates; w^T u real and > 0, w_i = frac((i + 1) (sqrt(5) - 1) / 2), i = 0 .. n-1"));
  PetscCall(PetscMalloc1(np * nm, &index));
  for (PetscInt i = 0; i < np * nm; i++) index[i] = v->keep[i] ? k++ : -1;
  PetscCall(VIH5WriteInt(file, "/vectors/index", np, nm, index));
  PetscCall(PetscFree(index));
  PetscCall(VIH5WriteReal(file, "/vectors/re", v->num, v->n, v->re));
  PetscCall(VIH5WriteReal(file, "/vectors/im", v->num, v->n, v->im));
  PetscCall(VIBodiesGetNum(v->bodies, &nb));
  for (PetscInt b = 0; b < nb; b++) {
    const VIBodyBoundary *bd;
    const char           *name;
    char                  path[256];
    PetscReal            *xy, *ur, *ui;
    PetscInt              off, B;
    PetscCall(VIBodiesGet(v->bodies, b, &name, NULL, &bd));
    PetscCall(VIBodiesGetOffset(v->bodies, b, &off));
    B = bd->num_nodes;
    PetscCall(PetscMalloc3(2 * B, &xy, v->num * 2 * B, &ur, v->num * 2 * B, &ui));
    for (PetscInt i = 0; i < B; i++)
      for (PetscInt c = 0; c < 2; c++) {
        const PetscInt dof = bd->dofs[3 * i + c];
        xy[2 * i + c]      = bd->coords[3 * i + c];
        for (PetscInt r = 0; r < v->num; r++) {
          ur[r * 2 * B + 2 * i + c] = dof < 0 ? 0 : v->re[r * v->n + off + dof];
          ui[r * 2 * B + 2 * i + c] = dof < 0 ? 0 : v->im[r * v->n + off + dof];
        }
      }
    PetscCall(PetscSNPrintf(path, sizeof(path), "/vectors/bodies/%s/node_ids", name));
    PetscCall(VIH5WriteInt(file, path, B, 0, bd->node_ids));
    PetscCall(PetscSNPrintf(path, sizeof(path), "/vectors/bodies/%s/coords", name));
    PetscCall(VIH5WriteReal(file, path, B, 2, xy));
    PetscCall(PetscSNPrintf(path, sizeof(path), "/vectors/bodies/%s/u_re", name));
    PetscCall(VIH5WriteReal(file, path, v->num, 2 * B, ur));
    PetscCall(PetscSNPrintf(path, sizeof(path), "/vectors/bodies/%s/u_im", name));
    PetscCall(VIH5WriteReal(file, path, v->num, 2 * B, ui));
    PetscCall(PetscFree3(xy, ur, ui));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The results file (format "vicms-cea", docs/substructures.md), written whole by rank 0 (.part, then renamed). */
static PetscErrorCode VIAppCEAWrite(const char path[], const VIAppCEARun *run, PetscInt np, const PetscReal pos[], PetscInt nm,
                                    const PetscReal freq[], const PetscReal real[], PetscInt nf, const PetscReal ffreq[], PetscInt ni, char **inputs,
                                    PetscInt no, char **outputs, const PetscReal H[], const VIAppCEAShapes *shapes)
{
  char      tmp[PETSC_MAX_PATH_LEN + 8], *all;
  hid_t     file;
  PetscInt *unstable, count = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.part", path));
  PetscCall(VIH5Create(tmp, &file));
  PetscCall(VIH5WriteAttrString(file, "/", "format", "vicms-cea"));
  PetscCall(VIH5WriteAttrInt(file, "/", "version", 1));
  PetscCall(VIH5WriteAttrString(file, "/", "bodies_file", run->rom_file));
  PetscCall(VIH5WriteAttrString(file, "/", "slave", run->slave));
  PetscCall(VIH5WriteAttrString(file, "/", "master", run->master));
  PetscCall(VIH5WriteAttrString(file, "/", "hold", run->hold));
  PetscCall(VIH5WriteAttrString(file, "/", "hold_dir", run->hold_dir));
  PetscCall(VIH5WriteAttrReal(file, "/", "mu", run->mu));
  PetscCall(VIH5WriteAttrString(file, "/", "sliding", run->sliding));
  PetscCall(PetscOptionsGetAll(NULL, &all));
  PetscCall(VIH5WriteAttrString(file, "/", "options", all));
  PetscCall(PetscFree(all));
  PetscCall(PetscMalloc1(np, &unstable));
  for (PetscInt p = 0; p < np; p++) {
    unstable[p] = 0;
    for (PetscInt m = 0; m < nm; m++) unstable[p] += real[p * nm + m] > 0;
    count += unstable[p] > 0;
  }
  PetscCall(VIH5WriteAttrInt(file, "/", "n_unstable_positions", count));
  PetscCall(VIH5WriteReal(file, "/positions", np, 1, pos));
  PetscCall(VIH5WriteReal(file, "/frequency_hz", np, nm, freq));
  PetscCall(VIH5WriteReal(file, "/real", np, nm, real));
  PetscCall(VIH5WriteInt(file, "/unstable_modes", np, 1, unstable));
  PetscCall(PetscFree(unstable));
  if (shapes->which != VI_APP_CEA_VECTORS_NONE) PetscCall(VIAppCEAWriteShapes(file, np, nm, shapes));
  if (nf) {
    PetscReal *re, *im;
    PetscInt   nc = nf * no * ni;
    PetscCall(VIH5CreateGroup(file, "/frf"));
    PetscCall(VIH5WriteReal(file, "/frf/frequencies_hz", nf, 1, ffreq));
    PetscCall(VIH5WriteStrings(file, "/frf/inputs", ni, (const char *const *)inputs));
    PetscCall(VIH5WriteStrings(file, "/frf/outputs", no, (const char *const *)outputs));
    PetscCall(PetscMalloc2(np * nc, &re, np * nc, &im));
    for (PetscInt k = 0; k < np * nc; k++) {
      re[k] = H[2 * k];
      im[k] = H[2 * k + 1];
    }
    PetscCall(VIH5WriteReal(file, "/frf/H_re", np, nc, re));
    PetscCall(VIH5WriteReal(file, "/frf/H_im", np, nc, im));
    PetscCall(VIH5WriteAttrString(file, "/frf", "quantity", run->quantity));
    PetscCall(PetscFree2(re, im));
  }
  PetscCall(VIH5Close(&file));
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "-cea_file: cannot rename %s to %s: %s", tmp, path, strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppCEA(MPI_Comm comm)
{
  char      rom_file[PETSC_MAX_PATH_LEN] = "bodies.h5", out_file[PETSC_MAX_PATH_LEN] = "cea.h5", slave[256] = "", master[256] = "", hold[4096] = "";
  char      frf[256] = "", *inputs[16], *outputs[16], body[128];
  PetscInt  np = 0, nm = 20, ni = 16, no = 16, nf = 0, k, nid, ids[4096], dir = 0, quantity = 0;
  PetscReal range[2] = {0, -1}, f0 = 0, f1 = 0, mu, length, *pos, *freq, *real, *ffreq = NULL, *in = NULL, *out = NULL, *H = NULL;
  PetscBool help, has_range, has_frf, has_in, has_out, *keep = NULL;
  VIAppCEAVectors vectors = VI_APP_CEA_VECTORS_NONE;
  VIAppCEAShapes  shapes  = {VI_APP_CEA_VECTORS_NONE, 0, 0, NULL, NULL, NULL, NULL};
  PetscReal      *vec_re = NULL, *vec_im = NULL;
  PetscMPIInt     rank;
  VIBodies        bodies;
  VICoupling      c;
  PetscLogDouble  t0, t1;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "vicms cea: stability and time-dependent FRF along the sliding path (seed 003)", "");
  PetscCall(PetscOptionsString("-rom_file", "The bodies file (vicms reduce -bodies)", "", rom_file, rom_file, sizeof(rom_file), NULL));
  PetscCall(PetscOptionsString("-cea_file", "HDF5 results file (format vicms-cea)", "", out_file, out_file, sizeof(out_file), NULL));
  PetscCall(PetscOptionsString("-cea_slave", "The slave node: BODY:NODE_ID (a boundary node of that body)", "", slave, slave, sizeof(slave), NULL));
  PetscCall(PetscOptionsString("-cea_master", "The master chain: BODY (all its boundary nodes, in table order) or BODY:ID,ID,...", "", master, master,
                               sizeof(master), NULL));
  PetscCall(PetscOptionsString("-cea_hold", "Held (driven) nodes: BODY (its boundary nodes but the slave) or BODY:ID,...; none by default", "", hold,
                               hold, sizeof(hold), NULL));
  PetscCall(PetscOptionsEList("-cea_hold_dir", "The held component of the -cea_hold nodes", "", VIAppCEADirs, 2, VIAppCEADirs[dir], &dir, NULL));
  PetscCall(PetscOptionsEList("-cea_frf_quantity", "What the FRF map gives per unit force: the displacement, or the acceleration (-omega^2 times it)",
                              "", VIAppCEAQuantities, 2, VIAppCEAQuantities[quantity], &quantity, NULL));
  PetscCall(PetscOptionsInt("-cea_positions", "Number of contact positions, evenly spaced along the master chain (>= 2)", "", np, &np, NULL));
  PetscCall(PetscOptionsRealArray("-cea_range", "s0,s1: the arc-length range of the positions (default the whole chain)", "", range, (k = 2, &k),
                                  &has_range));
  PetscCheck(!has_range || k == 2, comm, PETSC_ERR_USER_INPUT, "-cea_range: expected two arc lengths s0,s1, got %" PetscInt_FMT " values", k);
  PetscCall(PetscOptionsInt("-cea_modes", "Eigenvalues kept per position, lowest first (>= 1)", "", nm, &nm, NULL));
  PetscCall(PetscOptionsEnum("-cea_vectors",
                             "Eigenvectors (mode shapes, u = L_C q) to write: none, those of the unstable modes (real part > 0), or all of the kept "
                             "modes",
                             "", VIAppCEAVectorsTypes, (PetscEnum)vectors, (PetscEnum *)&vectors, NULL));
  PetscCall(PetscOptionsString("-cea_frf_frequencies", "f0:f1:n: the FRF map on n lines from f0 to f1 Hz (none by default)", "", frf, frf,
                               sizeof(frf), &has_frf));
  PetscCall(PetscOptionsStringArray("-cea_frf_inputs", "FRF input forces: BODY:NODE:x|y,...", "", inputs, &ni, &has_in));
  PetscCall(PetscOptionsStringArray("-cea_frf_outputs", "FRF outputs (displacements): BODY:NODE:x|y,...", "", outputs, &no, &has_out));
  PetscOptionsEnd();
  if (!has_in) ni = 0;
  if (!has_out) no = 0;
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscCall(VICouplingCreate(comm, &c));
    PetscCall(VICouplingSetFromOptions(c));
    PetscCall(VICouplingDestroy(&c));
    for (PetscInt i = 0; i < ni; i++) PetscCall(PetscFree(inputs[i]));
    for (PetscInt i = 0; i < no; i++) PetscCall(PetscFree(outputs[i]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscTime(&t0));
  PetscCheck(np >= 2, comm, PETSC_ERR_USER_INPUT, "-cea_positions: %" PetscInt_FMT " positions, expected at least 2 (give -cea_positions N)", np);
  PetscCheck(nm >= 1, comm, PETSC_ERR_USER_INPUT, "-cea_modes: %" PetscInt_FMT ", expected at least 1", nm);
  PetscCheck(slave[0], comm, PETSC_ERR_USER_INPUT, "-cea_slave: give the slave node as BODY:NODE_ID");
  PetscCheck(master[0], comm, PETSC_ERR_USER_INPUT, "-cea_master: give the master chain as BODY or BODY:ID,ID,...");
  PetscCheck(has_frf == has_in && has_frf == has_out, comm, PETSC_ERR_USER_INPUT,
             "-cea_frf_frequencies, -cea_frf_inputs and -cea_frf_outputs go together: give all three or none");
  if (has_frf) {
    char   tail;
    double a, b;
    long   m;
    PetscCheck(sscanf(frf, "%lf:%lf:%ld%c", &a, &b, &m, &tail) == 3 && a >= 0 && b > a && m >= 2, comm, PETSC_ERR_USER_INPUT,
               "-cea_frf_frequencies: '%s', expected f0:f1:n with 0 <= f0 < f1 [Hz] and n >= 2 lines", frf);
    f0 = a;
    f1 = b;
    nf = (PetscInt)m;
  }
  PetscCall(VIAppLoadBodies(comm, rom_file, &bodies));
  PetscCall(VICouplingCreate(comm, &c));
  PetscCall(VICouplingSetBodies(c, bodies));
  {
    PetscInt id_slave;
    char     sbody[128];
    PetscCall(VIAppParseBodyNode(comm, bodies, "-cea_slave", slave, sbody, sizeof(sbody), &id_slave));
    PetscCall(VICouplingSetSlave(c, sbody, id_slave));
    PetscCall(VIAppParseBodyNodes(comm, bodies, "-cea_master", master, body, sizeof(body), 4096, &nid, ids));
    PetscCall(VICouplingSetMaster(c, body, nid, nid ? ids : NULL));
    if (hold[0]) {
      PetscCall(VIAppParseBodyNodes(comm, bodies, "-cea_hold", hold, body, sizeof(body), 4096, &nid, ids));
      if (!nid) PetscCall(VIAppBodyNodesBut(bodies, body, sbody, 1, &id_slave, 4096, &nid, ids)); /* every boundary node but the slave */
      PetscCall(VICouplingAddHold(c, body, nid, ids, dir));
    }
  }
  PetscCall(VICouplingSetFromOptions(c));
  PetscCall(VICouplingSetUp(c));
  PetscCall(VICouplingGetLength(c, &length));
  if (!has_range) range[1] = length;
  PetscCheck(range[0] >= 0 && range[1] > range[0] && range[1] <= length, comm, PETSC_ERR_USER_INPUT,
             "-cea_range: [%g, %g], expected 0 <= s0 < s1 <= %g (the master chain's length)", (double)range[0], (double)range[1], (double)length);
  PetscCall(VICouplingView(c, NULL));

  /* the stability sweep, positions over the ranks */
  PetscCall(PetscMalloc3(np, &pos, np * nm, &freq, np * nm, &real));
  for (PetscInt p = 0; p < np; p++) pos[p] = range[0] + (range[1] - range[0]) * p / (np - 1);
  PetscCall(VICouplingComputeStability(c, np, pos, nm, freq, real));
  PetscCall(VICouplingStabilityView(c, np, pos, nm, freq, real, NULL));
  {
    PetscInt  npos = 0, nmod = 0, pmax = -1;
    PetscReal rmax = -PETSC_MAX_REAL, flo = PETSC_MAX_REAL, fhi = 0, fmax = 0;
    for (PetscInt p = 0; p < np; p++) {
      PetscBool any = PETSC_FALSE;
      for (PetscInt m = 0; m < nm; m++) {
        PetscReal r = real[p * nm + m], f = freq[p * nm + m];
        if (r != r) continue; /* NaN beyond the last eigenvalue */
        if (r > rmax) {
          rmax = r;
          pmax = p;
          fmax = f;
        }
        if (r > 0) {
          any = PETSC_TRUE;
          nmod++;
          flo = PetscMin(flo, f);
          fhi = PetscMax(fhi, f);
        }
      }
      npos += any;
    }
    mu = 0; /* validated by VICouplingSetFromOptions */
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-coupling_mu", &mu, NULL));
    if (npos)
      PetscCall(PetscPrintf(comm,
                            "CEA mu = %g: %" PetscInt_FMT " of %" PetscInt_FMT " positions unstable (%" PetscInt_FMT
                            " unstable modes, %g to %g Hz); largest real part %g 1/s at s = %g (%g Hz)\n",
                            (double)mu, npos, np, nmod, (double)flo, (double)fhi, (double)rmax, (double)pos[pmax], (double)fmax));
    else
      PetscCall(PetscPrintf(
          comm, "CEA mu = %g: stable at all %" PetscInt_FMT " positions (%" PetscInt_FMT " modes each); largest real part %g 1/s at s = %g (%g Hz)\n",
          (double)mu, np, nm, (double)rmax, (double)pos[pmax], (double)fmax));
  }

  /* the eigenvectors of the selected modes, the positions that have one over the ranks */
  shapes.which  = vectors;
  shapes.bodies = bodies;
  if (vectors != VI_APP_CEA_VECTORS_NONE) {
    PetscInt nb, npos = 0;
    PetscCall(VIBodiesGetNum(bodies, &nb));
    PetscCall(VIBodiesGetOffset(bodies, nb, &shapes.n));
    PetscCall(PetscMalloc1(np * nm, &keep));
    for (PetscInt p = 0; p < np; p++) {
      PetscInt kp = 0;
      for (PetscInt m = 0; m < nm; m++) {
        const PetscReal r = real[p * nm + m];
        keep[p * nm + m]  = vectors == VI_APP_CEA_VECTORS_ALL ? !PetscIsNanReal(r) : r > 0;
        kp += keep[p * nm + m];
      }
      shapes.num += kp;
      npos += kp > 0;
    }
    PetscCall(PetscMalloc2(shapes.num * shapes.n, &vec_re, shapes.num * shapes.n, &vec_im));
    PetscCall(VICouplingComputeModeShapes(c, np, pos, nm, keep, vec_re, vec_im));
    shapes.keep = keep;
    shapes.re   = vec_re;
    shapes.im   = vec_im;
    PetscCall(PetscPrintf(comm, "Eigenvectors (%s): %" PetscInt_FMT " modes at %" PetscInt_FMT " positions, %" PetscInt_FMT " coordinates each\n",
                          VIAppCEAVectorsTypes[vectors], shapes.num, npos, shapes.n));
  }

  /* the FRF map, frequency lines over the ranks */
  if (nf) {
    PetscInt         ncoord, nrows;
    const PetscReal *BC, *BE;
    PetscCall(VICouplingSetPosition(c, pos[0])); /* for the number of coordinates of the coupled system */
    PetscCall(VICouplingGetRows(c, &nrows, &ncoord, &BC, &BE));
    PetscCall(PetscMalloc4(nf, &ffreq, ni * ncoord, &in, no * ncoord, &out, 2 * np * nf * ni * no, &H));
    for (PetscInt f = 0; f < nf; f++) ffreq[f] = f0 + (f1 - f0) * f / (nf - 1);
    for (PetscInt i = 0; i < ni; i++) PetscCall(VIAppCEAParseDof(comm, c, bodies, "-cea_frf_inputs", inputs[i], ncoord, &in[i * ncoord]));
    for (PetscInt o = 0; o < no; o++) PetscCall(VIAppCEAParseDof(comm, c, bodies, "-cea_frf_outputs", outputs[o], ncoord, &out[o * ncoord]));
    PetscCall(VICouplingComputeFRF(c, ni, in, no, out, np, pos, nf, ffreq, H));
    if (quantity == 1) /* acceleration: -omega^2 times the displacement, line by line (H[p][f][o][i], re and im) */
      for (PetscInt p = 0; p < np; p++)
        for (PetscInt f = 0; f < nf; f++) {
          const PetscReal w = 2 * PETSC_PI * ffreq[f];
          for (PetscInt q = 0; q < 2 * ni * no; q++) H[2 * ((p * nf + f) * no * ni) + q] *= -w * w;
        }
    PetscCall(PetscPrintf(comm,
                          "FRF map (%s): %" PetscInt_FMT " positions x %" PetscInt_FMT " lines (%g to %g Hz), %" PetscInt_FMT
                          " inputs x %" PetscInt_FMT " outputs\n",
                          VIAppCEAQuantities[quantity], np, nf, (double)f0, (double)f1, ni, no));
  }

  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    VIAppCEARun run     = {rom_file, slave, master, hold, VIAppCEADirs[dir], VICouplingSlidings[0], VIAppCEAQuantities[quantity], mu};
    PetscInt    sliding = 0;
    PetscCall(PetscOptionsGetEList(NULL, NULL, "-coupling_sliding", VICouplingSlidings, 2, &sliding, NULL)); /* validated by the coupling */
    run.sliding = VICouplingSlidings[sliding];
    PetscCall(VIAppCEAWrite(out_file, &run, np, pos, nm, freq, real, nf, ffreq, ni, inputs, no, outputs, H, &shapes));
  }
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(comm, "Wrote %s; done in %.2f s\n", out_file, (double)(t1 - t0)));

  PetscCall(PetscFree3(pos, freq, real));
  PetscCall(PetscFree4(ffreq, in, out, H));
  PetscCall(PetscFree(keep));
  PetscCall(PetscFree2(vec_re, vec_im));
  for (PetscInt i = 0; i < ni; i++) PetscCall(PetscFree(inputs[i]));
  for (PetscInt i = 0; i < no; i++) PetscCall(PetscFree(outputs[i]));
  PetscCall(VICouplingDestroy(&c));
  PetscCall(VIBodiesDestroy(&bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}
