/* `vicms cea`: the stability along the sliding path (time-dependent complex eigenvalue analysis, seed 003 §1.4) and,
   optionally, the time-dependent FRF map (seed 003 Eq. 45) of the bodies of a bodies file -> a results file. */
#include "app.h"
#include <vicms/ensemble.h> /* VIResultsLock: a results file belongs to one job at a time, whatever the command */
#include <vicms/coupling.h>
#include <vicms/io.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
  const char      *rom_file, *slave, *master, *hold, *hold_dir, *sliding, *quantity, *state;
  PetscReal        mu;
  PetscInt         n;                   /* coordinates of the coupled system */
  const PetscReal *lambda, *slope, *u0; /* -cea_state static: per position the normal force, the segment's turn, u0 (n) */
  const PetscInt  *failed;              /* and the failure of its state (VICouplingStaticFailure, 0 none) */
  PetscInt         num_bands;           /* -cea_band_tol: the bands, rows of VI_BAND_COLS (start, end, peak, s, Hz) */
  const PetscReal *bands, *widths;      /* and the widths of the intervals their start and end lie in (B x 2) */
  PetscReal        band_tol;
  const char      *compare; /* -cea_compare_rom_file: its bodies file, its eigenvalues (P x N) and bands, or NULL */
  const PetscReal *cmp_freq, *cmp_real, *cmp_bands, *cmp_widths;
  PetscInt         cmp_num_bands;
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
  PetscCall(VIH5WriteAttrString(file, "/", "state", run->state));
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
  if (run->band_tol > 0) {
    PetscCall(VIH5WriteReal(file, "/bands", run->num_bands, VI_BAND_COLS, run->bands));
    PetscCall(VIH5WriteAttrReal(file, "/bands", "tolerance", run->band_tol));
    PetscCall(VIH5WriteAttrString(file, "/bands", "columns", "start, end (by bisection), peak real part [1/s], its position, its frequency [Hz]"));
    PetscCall(VIH5WriteReal(file, "/band_edge_widths", run->num_bands, 2, run->widths));
    PetscCall(VIH5WriteAttrString(file, "/band_edge_widths", "columns",
                                  "the widths of the intervals the start and the end of each band of /bands lie in: <= tolerance when located by "
                                  "bisection, 0 at an end of the range, larger where the static state failed (next to a failed position, or at "
                                  "the bisection's points: the band then reaches across the interval)"));
  }
  if (run->compare) {
    PetscCall(VIH5CreateGroup(file, "/compare"));
    PetscCall(VIH5WriteAttrString(file, "/compare", "bodies_file", run->compare));
    PetscCall(VIH5WriteReal(file, "/compare/frequency_hz", np, nm, run->cmp_freq));
    PetscCall(VIH5WriteReal(file, "/compare/real", np, nm, run->cmp_real));
    PetscCall(VIH5WriteReal(file, "/compare/bands", run->cmp_num_bands, VI_BAND_COLS, run->cmp_bands));
    PetscCall(VIH5WriteReal(file, "/compare/band_edge_widths", run->cmp_num_bands, 2, run->cmp_widths));
  }
  if (run->lambda) {
    PetscCall(VIH5CreateGroup(file, "/static"));
    PetscCall(VIH5WriteReal(file, "/static/normal_force", np, 1, run->lambda));
    PetscCall(VIH5WriteReal(file, "/static/slope", np, 1, run->slope));
    PetscCall(VIH5WriteReal(file, "/static/u", np, run->n, run->u0));
    PetscCall(VIH5WriteInt(file, "/static/failed", np, 1, run->failed));
    PetscCall(VIH5WriteAttrString(file, "/static/failed", "values", "0 converged, 1 singular, 2 not converged, 3 tensile normal force"));
  }
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

/* The options of a run, read once. */
typedef struct {
  char            rom_file[PETSC_MAX_PATH_LEN], out_file[PETSC_MAX_PATH_LEN], slave[256], master[256], hold[4096], frf[256], preload_nodes[4096];
  char           *inputs[16], *outputs[16];
  PetscInt        np, nm, ni, no, dir, quantity;
  PetscReal       range[2], f0, f1, lines, progress; /* lines: the FRF's frequency lines, as given (checked against memory) */
  PetscBool       has_range, has_preload;
  VIAppCEAVectors vectors;
  VICouplingState state;                       /* the linearisation: undeformed, or about the static sliding state of each position */
  PetscReal       preload[2];                  /* the static state's constant load, total, on preload_nodes (default the held nodes) */
  PetscReal       band_tol;                    /* > 0: the band edges located by bisection to this width (-cea_band_tol) */
  char            compare[PETSC_MAX_PATH_LEN]; /* -cea_compare_rom_file: the same CEA and bands on these bodies (other mode counts) */
} VIAppCEAJob;

/*
  What a run has computed, the arrays of the results file: per position its eigenvalues and (once every position has
  them, the rows laid out from the real parts) its eigenvectors, and per frequency line the FRF of every position (a line's
  dynamic stiffnesses are factored once for all positions). done[] says which; a checkpoint holds all of it, and positions
  and lines are independent: a resumed run computes exactly those not done, bit for bit as an uninterrupted run would.
*/
typedef struct {
  PetscInt   np, nm, nf, nval; /* nval: FRF values per position, nf x no x ni x (re, im) */
  PetscReal *pos, *freq, *real;
  PetscInt  *eig_done;
  PetscInt   n, num; /* eigenvectors: coordinates, and rows (-1 until laid out) */
  PetscBool *keep;
  PetscInt  *first; /* the row of each position's first kept mode, -1 if none */
  PetscReal *vec_re, *vec_im;
  PetscInt  *vec_done;
  PetscReal *ffreq, *H;
  PetscInt  *line_done;
} VIAppCEAState;

static PetscInt VIAppCEACount(PetscInt n, const PetscInt done[])
{
  PetscInt k = 0;
  for (PetscInt i = 0; i < n; i++) k += done[i] ? 1 : 0;
  return k;
}

/* Rank 0, before any work: the results file's folder exists and is writable (a run must not end unable to write). */
static PetscErrorCode VIAppCEACheckFolder(const char path[])
{
  char        folder[PETSC_MAX_PATH_LEN], *slash;
  struct stat st;

  PetscFunctionBeginUser;
  PetscCheck(path[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-cea_file: empty, expected the path of the results file");
  PetscCall(PetscStrncpy(folder, path, sizeof(folder)));
  slash = strrchr(folder, '/');
  if (!slash)
    PetscCall(PetscStrncpy(folder, ".", sizeof(folder)));
  else if (slash == folder)
    folder[1] = 0;
  else
    *slash = 0;
  PetscCheck(stat(folder, &st) == 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "-cea_file: cannot write %s: the folder %s does not exist (create it, or choose another -cea_file)", path, folder);
  PetscCheck(S_ISDIR(st.st_mode), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-cea_file: cannot write %s: %s is not a folder", path, folder);
  PetscCheck(access(folder, W_OK | X_OK) == 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-cea_file: cannot write %s: the folder %s is not writable",
             path, folder);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The memory this host has available [bytes]: MemAvailable (free memory and what the page cache gives back), else the free pages. */
static double VIAppCEAAvailableMemory(void)
{
  FILE  *f = fopen("/proc/meminfo", "r");
  char   line[256];
  double kb = -1;

  if (f) {
    while (fgets(line, sizeof(line), f))
      if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    fclose(f);
  }
  if (kb >= 0) return kb * 1024;
  return (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

/*
  Before allocating: the results arrays fit in memory. Every rank holds them all (they are gathered), so a host needs them
  once per rank it runs; rank 0 also copies the FRF map to write it. nvec: the eigenvector rows (an upper bound before
  the eigenvalues are known). Sizes in double: the products overflow PetscInt long before they fit. Collective.
*/
static PetscErrorCode VIAppCEACheckMemory(MPI_Comm comm, const VIAppCEAJob *job, PetscInt n, double nvec)
{
  const double np = (double)job->np, nm = (double)job->nm, nf = job->lines, nio = (double)job->ni * (double)job->no;
  double       eig, vec, frf, need, avail, mine[2], all[2], values;
  PetscMPIInt  size, local;
  MPI_Comm     host;
  char         frf_opt[300] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
  PetscCallMPI(MPI_Comm_size(host, &local));
  PetscCallMPI(MPI_Comm_free(&host));
  eig     = np * (8.0 + nm * (2 * 8.0 + sizeof(PetscBool)) + 3 * sizeof(PetscInt));
  vec     = (nvec + size * nm) * n * 2 * 8.0; /* and a round's rows */
  frf     = nf ? (2 * np * nf + np * size) * nio * 2 * 8.0 + nf * (8.0 + sizeof(PetscInt)) : 0;
  need    = eig + vec + frf;
  mine[0] = need * local;
  mine[1] = -VIAppCEAAvailableMemory();
  PetscCallMPI(MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, comm));
  avail = -all[1];
  if (nf) PetscCall(PetscSNPrintf(frf_opt, sizeof(frf_opt), ", -cea_frf_frequencies %s", job->frf));
  PetscCheck(all[0] <= avail, comm, PETSC_ERR_USER_INPUT,
             "-cea_positions %" PetscInt_FMT ", -cea_modes %" PetscInt_FMT "%s: the results need %.3g GB per rank (eigenvalues %.3g GB, eigenvectors "
             "%.3g GB, FRF map %.3g GB), %.3g GB with the %d rank%s on this host, which has %.3g GB available; ask for fewer positions, modes or "
             "frequency lines",
             job->np, job->nm, frf_opt, need / 1e9, eig / 1e9, vec / 1e9, frf / 1e9, all[0] / 1e9, (int)local, local > 1 ? "s" : "", avail / 1e9);
  values = PetscMax(PetscMax(np * nm, nvec * n), np * nf * nio * 2);
  PetscCheck(values < (double)PETSC_MAX_INT, comm, PETSC_ERR_USER_INPUT,
             "-cea_positions %" PetscInt_FMT ", -cea_modes %" PetscInt_FMT
             "%s: an array of the results would hold %.3g values, more than the %" PetscInt_FMT
             " this build's indices address; ask for fewer positions, modes or frequency lines",
             job->np, job->nm, frf_opt, values, PETSC_MAX_INT);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The clock and the signals at the boundaries of positions and lines. */
typedef struct {
  MPI_Comm       comm;
  PetscReal      interval;
  PetscLogDouble t0, t_last;
  int            sig;
} VIAppCEAPoll;

/* At a boundary: whether the job stops (a signal on any rank) and, on rank 0's clock, a progress line. Collective. */
static PetscErrorCode VIAppCEAPollCheck(VIAppCEAPoll *poll, const char what[], PetscInt done, PetscInt total)
{
  int            mine[2], all[2];
  PetscMPIInt    rank;
  PetscLogDouble t;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(poll->comm, &rank));
  PetscCall(PetscTime(&t));
  mine[0] = VISignalReceived();
  mine[1] = rank == 0 && t - poll->t_last >= poll->interval;
  PetscCallMPI(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, poll->comm));
  poll->sig = all[0];
  if (all[1] && !all[0] && done < total) {
    poll->t_last = t;
    PetscCall(
        PetscPrintf(poll->comm, "  %s: %" PetscInt_FMT " of %" PetscInt_FMT " done, %.1f s elapsed\n", what, done, total, (double)(t - poll->t0)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The eigenvalues of the positions not done, in rounds of one position per rank (VICouplingComputeStability). Collective. */
static PetscErrorCode VIAppCEAEigenvalues(VICoupling c, VIAppCEAState *st, VIAppCEAPoll *poll, PetscInt *computed)
{
  const PetscInt nm = st->nm;
  PetscMPIInt    size;
  PetscInt      *idx, next = 0, k;
  PetscReal     *rpos, *rf, *rr;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(poll->comm, &size));
  PetscCall(PetscMalloc4(size, &idx, size, &rpos, size * nm, &rf, size * nm, &rr));
  do {
    for (k = 0; next < st->np && k < size; next++)
      if (!st->eig_done[next]) {
        idx[k]    = next;
        rpos[k++] = st->pos[next];
      }
    if (!k) break;
    PetscCall(VICouplingComputeStability(c, k, rpos, nm, rf, rr));
    for (PetscInt i = 0; i < k; i++) {
      PetscCall(PetscArraycpy(&st->freq[idx[i] * nm], &rf[i * nm], nm));
      PetscCall(PetscArraycpy(&st->real[idx[i] * nm], &rr[i * nm], nm));
      st->eig_done[idx[i]] = 1;
    }
    *computed += k;
    PetscCall(VIAppCEAPollCheck(poll, "eigenvalues (positions)", VIAppCEACount(st->np, st->eig_done), st->np));
  } while (!poll->sig);
  PetscCall(PetscFree4(idx, rpos, rf, rr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Once every position has its eigenvalues: which modes have eigenvectors (keep) and their rows; *num rows in all. */
static PetscErrorCode VIAppCEAVectorRows(VIAppCEAState *st, VIAppCEAVectors which, PetscInt *num)
{
  PetscFunctionBeginUser;
  if (!st->keep) PetscCall(PetscMalloc2(st->np * st->nm, &st->keep, st->np, &st->first));
  *num = 0;
  for (PetscInt p = 0; p < st->np; p++) {
    PetscInt kp = 0;
    for (PetscInt m = 0; m < st->nm; m++) {
      const PetscReal r        = st->real[p * st->nm + m];
      st->keep[p * st->nm + m] = which == VI_APP_CEA_VECTORS_ALL ? !PetscIsNanReal(r) : r > 0;
      kp += st->keep[p * st->nm + m];
    }
    st->first[p] = kp ? *num : -1;
    *num += kp;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The eigenvectors of the positions with a kept mode not done, in rounds of one such position per rank. Collective. */
static PetscErrorCode VIAppCEAEigenvectors(VICoupling c, VIAppCEAState *st, VIAppCEAPoll *poll, PetscInt *computed)
{
  const PetscInt nm = st->nm, n = st->n;
  PetscMPIInt    size;
  PetscInt      *idx, next = 0, k, total = 0;
  PetscReal     *rpos, *vr, *vi;
  PetscBool     *rkeep;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(poll->comm, &size));
  for (PetscInt p = 0; p < st->np; p++) total += st->first[p] >= 0;
  PetscCall(PetscMalloc5(size, &idx, size, &rpos, size * nm, &rkeep, size * nm * n, &vr, size * nm * n, &vi));
  do {
    PetscInt rows = 0, done = 0;
    for (k = 0; next < st->np && k < size; next++)
      if (st->first[next] >= 0 && !st->vec_done[next]) {
        idx[k]  = next;
        rpos[k] = st->pos[next];
        PetscCall(PetscArraycpy(&rkeep[k++ * nm], &st->keep[next * nm], nm));
      }
    if (!k) break;
    PetscCall(VICouplingComputeModeShapes(c, k, rpos, nm, rkeep, vr, vi));
    for (PetscInt i = 0; i < k; i++) {
      const PetscInt p   = idx[i];
      PetscInt       cnt = 0;
      for (PetscInt m = 0; m < nm; m++) cnt += st->keep[p * nm + m];
      PetscCall(PetscArraycpy(&st->vec_re[st->first[p] * n], &vr[rows * n], cnt * n));
      PetscCall(PetscArraycpy(&st->vec_im[st->first[p] * n], &vi[rows * n], cnt * n));
      rows += cnt;
      st->vec_done[p] = 1;
    }
    *computed += k;
    for (PetscInt p = 0; p < st->np; p++) done += st->first[p] >= 0 && st->vec_done[p];
    PetscCall(VIAppCEAPollCheck(poll, "eigenvectors (positions)", done, total));
  } while (!poll->sig);
  PetscCall(PetscFree5(idx, rpos, rkeep, vr, vi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The FRF of every position on the lines not done, in rounds of one line per rank (VICouplingComputeFRF). Collective. */
static PetscErrorCode VIAppCEAFRF(VICoupling c, VIAppCEAState *st, PetscInt ni, const PetscReal in[], PetscInt no, const PetscReal out[],
                                  VIAppCEAPoll *poll, PetscInt *computed)
{
  const PetscInt nio = 2 * ni * no;
  PetscMPIInt    size;
  PetscInt      *idx, next = 0, k;
  PetscReal     *rf, *Hr;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(poll->comm, &size));
  PetscCall(PetscMalloc3(size, &idx, size, &rf, st->np * size * nio, &Hr));
  do {
    for (k = 0; next < st->nf && k < size; next++)
      if (!st->line_done[next]) {
        idx[k]  = next;
        rf[k++] = st->ffreq[next];
      }
    if (!k) break;
    PetscCall(VICouplingComputeFRF(c, ni, in, no, out, st->np, st->pos, k, rf, Hr));
    for (PetscInt p = 0; p < st->np; p++)
      for (PetscInt i = 0; i < k; i++) PetscCall(PetscArraycpy(&st->H[(p * st->nf + idx[i]) * nio], &Hr[(p * k + i) * nio], nio));
    for (PetscInt i = 0; i < k; i++) st->line_done[idx[i]] = 1;
    *computed += k;
    PetscCall(VIAppCEAPollCheck(poll, "FRF (frequency lines)", VIAppCEACount(st->nf, st->line_done), st->nf));
  } while (!poll->sig);
  PetscCall(PetscFree3(idx, rf, Hr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The checkpoint of a stopped run (format "vicms-cea-checkpoint", FILE.ckpt beside the results FILE): tag, what decides
  the results (the options but output and progress, the bodies' tokens); sizes (np, nm, nf, n, eigenvector rows or -1);
  per position eigenvalues/done, frequency_hz, real; once laid out vectors/done, re, im; with an FRF map frf/done (per
  line) and frf/H (np x nf no ni 2). Written by rank 0, whole (.part, then renamed).
*/
static PetscErrorCode VIAppCEACheckpointWrite(const char path[], const char tag[], const VIAppCEAState *st)
{
  char     part[PETSC_MAX_PATH_LEN + 8];
  hid_t    file;
  PetscInt sizes[5] = {st->np, st->nm, st->nf, st->n, st->num};

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(part, sizeof(part), "%s.part", path));
  PetscCall(VIH5Create(part, &file));
  PetscCall(VIH5WriteAttrString(file, "/", "format", "vicms-cea-checkpoint"));
  PetscCall(VIH5WriteAttrInt(file, "/", "version", 1));
  PetscCall(VIH5WriteAttrString(file, "/", "tag", tag));
  PetscCall(VIH5WriteInt(file, "/sizes", 5, 0, sizes));
  PetscCall(VIH5WriteInt(file, "/eigenvalues/done", st->np, 0, st->eig_done));
  PetscCall(VIH5WriteReal(file, "/eigenvalues/frequency_hz", st->np, st->nm, st->freq));
  PetscCall(VIH5WriteReal(file, "/eigenvalues/real", st->np, st->nm, st->real));
  if (st->num >= 0) {
    PetscCall(VIH5WriteInt(file, "/vectors/done", st->np, 0, st->vec_done));
    if (st->num) {
      PetscCall(VIH5WriteReal(file, "/vectors/re", st->num, st->n, st->vec_re));
      PetscCall(VIH5WriteReal(file, "/vectors/im", st->num, st->n, st->vec_im));
    }
  }
  if (st->nf) {
    PetscCall(VIH5WriteInt(file, "/frf/done", st->nf, 0, st->line_done));
    PetscCall(VIH5WriteReal(file, "/frf/H", st->np, st->nval, st->H));
  }
  PetscCall(VIH5Close(&file));
  PetscCheck(rename(part, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "-cea_file: cannot rename %s to %s: %s", part, path, strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Read an integer dataset of exactly len entries into dst; *ok false when its size differs. */
static PetscErrorCode VIAppCEAReadDone(hid_t file, const char path[], PetscInt len, PetscInt dst[], PetscBool *ok)
{
  PetscInt rows, cols, *v;

  PetscFunctionBeginUser;
  PetscCall(VIH5ReadInt(file, path, &rows, &cols, &v));
  *ok = rows * PetscMax(cols, 1) == len ? PETSC_TRUE : PETSC_FALSE;
  if (*ok) PetscCall(PetscArraycpy(dst, v, len));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank-local (VIH5CheckpointRead): restore the state; *ok false with the reason when it does not fit this run. */
static PetscErrorCode VIAppCEACheckpointLoad(void *ctx, hid_t file, PetscBool *ok, char why[], size_t len)
{
  VIAppCEAState *st = (VIAppCEAState *)ctx;
  PetscInt       rows, cols, *sizes;
  PetscBool      good, g, has;

  PetscFunctionBeginUser;
  *ok = PETSC_FALSE;
  PetscCall(VIH5ReadInt(file, "/sizes", &rows, &cols, &sizes));
  good = rows == 5 && sizes[0] == st->np && sizes[1] == st->nm && sizes[2] == st->nf && sizes[3] == st->n ? PETSC_TRUE : PETSC_FALSE;
  if (!good) {
    PetscCall(PetscSNPrintf(why, len, "its sizes differ from this run's"));
    PetscCall(PetscFree(sizes));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VIAppCEAReadDone(file, "/eigenvalues/done", st->np, st->eig_done, &g));
  good = (PetscBool)(good && g);
  PetscCall(VIH5ReadRealExact(file, "/eigenvalues/frequency_hz", st->np * st->nm, st->freq, &g));
  good = (PetscBool)(good && g);
  PetscCall(VIH5ReadRealExact(file, "/eigenvalues/real", st->np * st->nm, st->real, &g));
  good = (PetscBool)(good && g);
  PetscCall(VIH5Exists(file, "/vectors/done", &has));
  if (has && sizes[4] >= 0) {
    st->num = sizes[4];
    PetscCall(PetscMalloc2(st->num * st->n, &st->vec_re, st->num * st->n, &st->vec_im));
    PetscCall(VIAppCEAReadDone(file, "/vectors/done", st->np, st->vec_done, &g));
    good = (PetscBool)(good && g);
    if (st->num) {
      PetscCall(VIH5ReadRealExact(file, "/vectors/re", st->num * st->n, st->vec_re, &g));
      good = (PetscBool)(good && g);
      PetscCall(VIH5ReadRealExact(file, "/vectors/im", st->num * st->n, st->vec_im, &g));
      good = (PetscBool)(good && g);
    }
  }
  PetscCall(PetscFree(sizes));
  if (st->nf) {
    PetscCall(VIAppCEAReadDone(file, "/frf/done", st->nf, st->line_done, &g));
    good = (PetscBool)(good && g);
    PetscCall(VIH5ReadRealExact(file, "/frf/H", st->np * st->nval, st->H, &g));
    good = (PetscBool)(good && g);
  }
  if (!good) PetscCall(PetscSNPrintf(why, len, "a part of it has the wrong size"));
  *ok = good;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Nothing done: what a run without a checkpoint starts from. */
static PetscErrorCode VIAppCEAStateReset(VIAppCEAState *st)
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(st->eig_done, st->np));
  PetscCall(PetscArrayzero(st->vec_done, st->np));
  if (st->nf) PetscCall(PetscArrayzero(st->line_done, st->nf));
  PetscCall(PetscFree2(st->vec_re, st->vec_im));
  st->num = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -cea_state static: the static sliding state of every position (normal force, the turn of the master segment under the
   slave, u0), positions dealt to the ranks and gathered by an exact sum over zero-filled arrays (the same bits on any
   number of ranks); a line with their ranges. Cheap beside the eigenvalues: a few dense Newton steps per position. A
   position whose state failed (VICouplingGetStaticFailure: no eigenvalues, NaN state) gets one line from rank 0 with the
   reason and is marked in failed[] (the failure's code, 0 none); the run goes on, unless every position failed (an error,
   on every rank alike). */
static PetscErrorCode VIAppCEAStaticStates(MPI_Comm comm, VICoupling c, PetscInt np, const PetscReal pos[], PetscInt n, PetscReal **lam,
                                           PetscReal **slope, PetscReal **u, PetscInt **failed)
{
  PetscMPIInt rank, size;
  PetscReal   lo[2] = {PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[2] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL}, *code;
  PetscInt    nfail = 0, first = -1;
  char        msg[512];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscCalloc3(np, lam, np, slope, np * n, u));
  PetscCall(PetscCalloc1(2 * np, &code));
  PetscCall(PetscMalloc1(np, failed));
  for (PetscInt p = rank; p < np; p += size) {
    const PetscReal        *u0;
    VICouplingStaticFailure f;
    PetscCall(VICouplingSetPosition(c, pos[p]));
    PetscCall(VICouplingGetStaticState(c, &u0, &(*lam)[p], &(*slope)[p], NULL));
    PetscCall(VICouplingGetStaticFailure(c, &f, &code[2 * p + 1]));
    code[2 * p] = (PetscReal)f;
    PetscCall(PetscArraycpy(*u + p * n, u0, n));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, *lam, (PetscMPIInt)np, MPIU_REAL, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, *slope, (PetscMPIInt)np, MPIU_REAL, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, *u, (PetscMPIInt)(np * n), MPIU_REAL, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, code, (PetscMPIInt)(2 * np), MPIU_REAL, MPI_SUM, comm));
  for (PetscInt p = 0; p < np; p++) {
    (*failed)[p] = (PetscInt)code[2 * p];
    if ((*failed)[p]) {
      PetscCall(VICouplingStaticFailureMessage((VICouplingStaticFailure)(*failed)[p], code[2 * p + 1], pos[p], msg, sizeof(msg)));
      PetscCall(PetscPrintf(comm, "Failed position: %s; its eigenvalues, FRF and state are NaN\n", msg));
      if (first < 0) first = p;
      nfail++;
      continue;
    }
    lo[0] = PetscMin(lo[0], (*lam)[p]);
    hi[0] = PetscMax(hi[0], (*lam)[p]);
    lo[1] = PetscMin(lo[1], (*slope)[p]);
    hi[1] = PetscMax(hi[1], (*slope)[p]);
  }
  if (nfail == np)
    PetscCall(VICouplingStaticFailureMessage((VICouplingStaticFailure)(*failed)[first], code[2 * first + 1], pos[first], msg, sizeof(msg)));
  PetscCall(PetscFree(code));
  PetscCheck(nfail < np, comm, PETSC_ERR_USER_INPUT,
             "-cea_state static: the static sliding state failed at every position (%" PetscInt_FMT "); the first: %s", np, msg);
  PetscCall(PetscPrintf(comm, "Static sliding state: normal force %g to %g, turn of the master segment under the slave %g to %g rad", (double)lo[0],
                        (double)hi[0], (double)lo[1], (double)hi[1]));
  if (nfail) PetscCall(PetscPrintf(comm, "; failed at %" PetscInt_FMT " of %" PetscInt_FMT " positions", nfail, np));
  PetscCall(PetscPrintf(comm, "\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VIBandFunction of a coupling: the largest real part of the nm lowest eigenvalues at position s and its frequency, or
   failed when the static state there failed. Not collective. */
typedef struct {
  VICoupling c;
  PetscInt   nm;
} VIAppCEABandCtx;

static PetscErrorCode VIAppCEAMaxReal(void *ctx, PetscReal s, PetscReal *rmax, PetscReal *fmax, PetscBool *failed)
{
  VIAppCEABandCtx        *b = (VIAppCEABandCtx *)ctx;
  const PetscReal        *re, *im;
  PetscInt                ne;
  VICouplingStaticFailure why;
  PetscReal               value;

  PetscFunctionBeginUser;
  PetscCall(VICouplingSetPosition(b->c, s));
  PetscCall(VICouplingGetStaticFailure(b->c, &why, &value));
  PetscCall(VICouplingGetEigenvalues(b->c, &ne, &re, &im));
  *failed = why != VI_COUPLING_STATIC_OK ? PETSC_TRUE : PETSC_FALSE;
  *rmax   = -PETSC_MAX_REAL;
  *fmax   = 0;
  for (PetscInt j = 0; j < PetscMin(ne, b->nm); j++)
    if (re[j] > *rmax) {
      *rmax = re[j];
      *fmax = im[j] / (2 * PETSC_PI);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -cea_band_tol: the bands of unstable positions with their edges located (VIBandsLocate) from the largest real part of
   the kept modes at each position (NaN where the static state failed). Collective. */
static PetscErrorCode VIAppCEABands(MPI_Comm comm, VICoupling c, PetscInt np, const PetscReal pos[], PetscInt nm, const PetscReal freq[],
                                    const PetscReal real[], PetscReal tol, PetscInt *num_bands, PetscReal **bands, PetscReal **widths)
{
  VIAppCEABandCtx ctx = {c, nm};
  PetscReal      *mx, *fx;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(np, &mx, np, &fx));
  for (PetscInt p = 0; p < np; p++) {
    mx[p] = NAN;
    fx[p] = 0;
    for (PetscInt m = 0; m < nm; m++)
      if (!PetscIsNanReal(real[p * nm + m]) && (PetscIsNanReal(mx[p]) || real[p * nm + m] > mx[p])) {
        mx[p] = real[p * nm + m];
        fx[p] = freq[p * nm + m];
      }
  }
  PetscCall(VIBandsLocate(comm, np, pos, mx, fx, tol, VIAppCEAMaxReal, &ctx, num_bands, bands, widths));
  PetscCall(PetscFree2(mx, fx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The coupling of the job's bodies: slave, master chain, held DOFs, the static state's load and linearisation, options. */
static PetscErrorCode VIAppCEACoupling(MPI_Comm comm, const VIAppCEAJob *job, VIBodies bodies, VICoupling *cp)
{
  char       body[128];
  PetscInt   nid, *ids;
  VICoupling c;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(4096, &ids));
  PetscCall(VICouplingCreate(comm, &c));
  PetscCall(VICouplingSetBodies(c, bodies));
  {
    PetscInt id_slave;
    char     sbody[128];
    PetscCall(VIAppParseBodyNode(comm, bodies, "-cea_slave", job->slave, sbody, sizeof(sbody), &id_slave));
    PetscCall(VICouplingSetSlave(c, sbody, id_slave));
    PetscCall(VIAppParseBodyNodes(comm, bodies, "-cea_master", job->master, body, sizeof(body), 4096, &nid, ids));
    PetscCall(VICouplingSetMaster(c, body, nid, nid ? ids : NULL));
    if (job->hold[0]) {
      PetscCall(VIAppParseBodyNodes(comm, bodies, "-cea_hold", job->hold, body, sizeof(body), 4096, &nid, ids));
      if (!nid) PetscCall(VIAppBodyNodesBut(bodies, body, sbody, 1, &id_slave, 4096, &nid, ids)); /* every boundary node but the slave */
      PetscCall(VICouplingAddHold(c, body, nid, ids, job->dir));
    }
  }
  if (job->has_preload) {
    const char *spec = job->preload_nodes[0] ? job->preload_nodes : job->hold;
    PetscInt    id_slave;
    char        sbody[128];
    PetscCheck(spec[0], comm, PETSC_ERR_USER_INPUT,
               "-cea_preload: give its nodes (-cea_preload_nodes BODY or BODY:ID,...) or the held nodes (-cea_hold)");
    PetscCall(
        VIAppParseBodyNodes(comm, bodies, job->preload_nodes[0] ? "-cea_preload_nodes" : "-cea_hold", spec, body, sizeof(body), 4096, &nid, ids));
    PetscCall(VIAppParseBodyNode(comm, bodies, "-cea_slave", job->slave, sbody, sizeof(sbody), &id_slave));
    if (!nid) PetscCall(VIAppBodyNodesBut(bodies, body, sbody, 1, &id_slave, 4096, &nid, ids));
    PetscCall(VICouplingAddLoad(c, body, nid, ids, job->preload));
  }
  PetscCall(VICouplingSetState(c, job->state));
  PetscCall(VICouplingSetFromOptions(c));
  PetscCall(VICouplingSetUp(c));
  PetscCall(PetscFree(ids));
  *cp = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The run once its options are read, the results file's folder checked and its lock taken. Collective. */
static PetscErrorCode VIAppCEARunJob(MPI_Comm comm, VIAppCEAJob *job)
{
  const PetscInt nm = job->nm, np = job->np, ni = job->ni, no = job->no;
  char           ckpt[PETSC_MAX_PATH_LEN + 8], token[4096], *options, *tag;
  PetscInt       ncoord = 0, done_eig = 0, done_vec = 0, done_lines = 0;
  PetscReal      mu = 0, length, *in = NULL, *out = NULL;
  PetscMPIInt    rank;
  VIBodies       bodies;
  VICoupling     c;
  PetscLogDouble t0, t1;
  VIAppCEAState  st = {0};
  VIAppCEAPoll   poll;
  VIAppCEAShapes shapes = {job->vectors, 0, 0, NULL, NULL, NULL, NULL};
  PetscReal *slam = NULL, *sslope = NULL, *su = NULL, *bands = NULL, *cfreq = NULL, *creal = NULL, *cbands = NULL, *widths = NULL, *cwidths = NULL;
  PetscInt      *sfailed = NULL;
  PetscInt       nbands = 0, cnb = 0, cn = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(VIAppLoadBodies(comm, job->rom_file, &bodies));
  PetscCall(VIAppCEACoupling(comm, job, bodies, &c));
  PetscCall(VICouplingGetLength(c, &length));
  if (!job->has_range) job->range[1] = length;
  PetscCheck(job->range[0] >= 0 && job->range[1] > job->range[0] && job->range[1] <= length, comm, PETSC_ERR_USER_INPUT,
             "-cea_range: [%g, %g], expected 0 <= s0 < s1 <= %g (the master chain's length)", (double)job->range[0], (double)job->range[1],
             (double)length);
  PetscCall(VICouplingView(c, NULL));
  mu = 0; /* validated by VICouplingSetFromOptions */
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-coupling_mu", &mu, NULL));

  /* every input checked and the memory counted before the first eigenvalue problem */
  {
    PetscInt         nrows;
    const PetscReal *BC, *BE;
    PetscInt         nb;
    PetscCall(VIBodiesGetNum(bodies, &nb));
    PetscCall(VIBodiesGetOffset(bodies, nb, &st.n));
    PetscCall(VICouplingSetPosition(c, job->range[0])); /* for the number of coordinates of the coupled system */
    PetscCall(VICouplingGetRows(c, &nrows, &ncoord, &BC, &BE));
  }
  PetscCall(VIAppCEACheckMemory(comm, job, st.n, job->vectors == VI_APP_CEA_VECTORS_ALL ? (double)np * nm : 0));
  st.np   = np;
  st.nm   = nm;
  st.nf   = job->frf[0] ? (PetscInt)job->lines : 0;
  st.nval = st.nf * no * ni * 2;
  st.num  = -1;
  PetscCall(PetscMalloc4(np, &st.pos, np * nm, &st.freq, np * nm, &st.real, np, &st.eig_done));
  PetscCall(PetscCalloc1(np, &st.vec_done));
  for (PetscInt p = 0; p < np; p++) st.pos[p] = job->range[0] + (job->range[1] - job->range[0]) * p / (np - 1);
  if (st.nf) {
    PetscCall(PetscMalloc3(st.nf, &st.ffreq, np * st.nval, &st.H, st.nf, &st.line_done));
    for (PetscInt f = 0; f < st.nf; f++) st.ffreq[f] = job->f0 + (job->f1 - job->f0) * f / (st.nf - 1);
    PetscCall(PetscMalloc2(ni * ncoord, &in, no * ncoord, &out));
    for (PetscInt i = 0; i < ni; i++) PetscCall(VIAppCEAParseDof(comm, c, bodies, "-cea_frf_inputs", job->inputs[i], ncoord, &in[i * ncoord]));
    for (PetscInt o = 0; o < no; o++) PetscCall(VIAppCEAParseDof(comm, c, bodies, "-cea_frf_outputs", job->outputs[o], ncoord, &out[o * ncoord]));
  }
  PetscCall(VIAppCEAStateReset(&st));

  /* a checkpoint of this run: resume; of another: refuse (nothing computed is lost); unreadable: start afresh */
  {
    static const char *const ignore[] = {"-cea_file", "-cea_progress_interval", "-rom_file", "-options_file"};
    PetscMPIInt              exists   = 0;
    size_t                   len;
    PetscCall(VIOptionsFingerprint(0, NULL, (PetscInt)(sizeof(ignore) / sizeof(ignore[0])), ignore, &options));
    PetscCall(VIAppBodiesToken(bodies, token, sizeof(token)));
    PetscCall(PetscStrlen(options, &len));
    PetscCall(PetscMalloc1(len + sizeof(token) + 2, &tag));
    PetscCall(PetscSNPrintf(tag, len + sizeof(token) + 2, "%s %s", options, token));
    PetscCall(PetscFree(options));
    PetscCall(PetscSNPrintf(ckpt, sizeof(ckpt), "%s.ckpt", job->out_file));
    if (rank == 0) exists = access(ckpt, F_OK) == 0;
    PetscCallMPI(MPI_Bcast(&exists, 1, MPI_INT, 0, comm));
    if (exists) {
      PetscBool restored;
      char      why[256];
      PetscCall(VIH5CheckpointRead(comm, ckpt, "vicms-cea-checkpoint", "a checkpoint of vicms cea", tag, VIAppCEACheckpointLoad, &st, &restored, why,
                                   sizeof(why)));
      PetscCheck(restored || !strcmp(why, "it cannot be read"), comm, PETSC_ERR_USER_INPUT,
                 "-cea_file: the checkpoint %s cannot be resumed by this run: %s. Rerun the command that wrote it to finish that run, or remove "
                 "%s to start afresh",
                 ckpt, why, ckpt);
      if (restored)
        PetscCall(PetscPrintf(comm,
                              "Resumed from %s: eigenvalues at %" PetscInt_FMT " of %" PetscInt_FMT " positions, eigenvectors at %" PetscInt_FMT
                              " positions, FRF on %" PetscInt_FMT " of %" PetscInt_FMT " frequency lines\n",
                              ckpt, VIAppCEACount(np, st.eig_done), np, VIAppCEACount(np, st.vec_done),
                              st.nf ? VIAppCEACount(st.nf, st.line_done) : 0, st.nf));
      else {
        PetscCall(PetscPrintf(comm, "Not resuming from %s: %s; starting afresh\n", ckpt, why));
        PetscCall(VIAppCEAStateReset(&st));
      }
    }
  }

  /* the positions and lines left; a SIGTERM, SIGUSR1 or SIGINT stops them at a boundary the ranks agree on */
  poll.comm     = comm;
  poll.interval = job->progress;
  poll.t0 = poll.t_last = t0;
  poll.sig              = 0;
  VISignalDefer(PETSC_TRUE);
  PetscCall(VIAppCEAEigenvalues(c, &st, &poll, &done_eig));
  if (!poll.sig) {
    PetscInt  npos = 0, nmod = 0, pmax = -1;
    PetscReal rmax = -PETSC_MAX_REAL, flo = PETSC_MAX_REAL, fhi = 0, fmax = 0;
    PetscCall(VICouplingStabilityView(c, np, st.pos, nm, st.freq, st.real, NULL));
    for (PetscInt p = 0; p < np; p++) {
      PetscBool any = PETSC_FALSE;
      for (PetscInt m = 0; m < nm; m++) {
        PetscReal r = st.real[p * nm + m], f = st.freq[p * nm + m];
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
    if (npos)
      PetscCall(PetscPrintf(comm,
                            "CEA mu = %g: %" PetscInt_FMT " of %" PetscInt_FMT " positions unstable (%" PetscInt_FMT
                            " unstable modes, %g to %g Hz); largest real part %g 1/s at s = %g (%g Hz)\n",
                            (double)mu, npos, np, nmod, (double)flo, (double)fhi, (double)rmax, (double)st.pos[pmax], (double)fmax));
    else
      PetscCall(PetscPrintf(
          comm, "CEA mu = %g: stable at all %" PetscInt_FMT " positions (%" PetscInt_FMT " modes each); largest real part %g 1/s at s = %g (%g Hz)\n",
          (double)mu, np, nm, (double)rmax, (double)st.pos[pmax], (double)fmax));
  }

  /* the eigenvectors of the selected modes, the positions that have one over the ranks */
  if (!poll.sig && job->vectors != VI_APP_CEA_VECTORS_NONE) {
    PetscInt num, npos = 0;
    PetscCall(VIAppCEAVectorRows(&st, job->vectors, &num));
    if (st.num < 0) {
      PetscCall(VIAppCEACheckMemory(comm, job, st.n, (double)num));
      st.num = num;
      PetscCall(PetscMalloc2(num * st.n, &st.vec_re, num * st.n, &st.vec_im));
    }
    PetscCheck(st.num == num, comm, PETSC_ERR_FILE_UNEXPECTED,
               "-cea_file: the checkpoint %s has %" PetscInt_FMT " eigenvector rows, expected %" PetscInt_FMT, ckpt, st.num, num);
    PetscCall(VIAppCEAEigenvectors(c, &st, &poll, &done_vec));
    for (PetscInt p = 0; p < np; p++) npos += st.first[p] >= 0;
    if (!poll.sig)
      PetscCall(PetscPrintf(comm, "Eigenvectors (%s): %" PetscInt_FMT " modes at %" PetscInt_FMT " positions, %" PetscInt_FMT " coordinates each\n",
                            VIAppCEAVectorsTypes[job->vectors], num, npos, st.n));
  }

  /* the FRF map, frequency lines over the ranks */
  if (!poll.sig && st.nf) {
    PetscCall(VIAppCEAFRF(c, &st, ni, in, no, out, &poll, &done_lines));
    if (!poll.sig && job->quantity == 1) /* acceleration: -omega^2 times the displacement, line by line (H[p][f][o][i], re and im) */
      for (PetscInt p = 0; p < np; p++)
        for (PetscInt f = 0; f < st.nf; f++) {
          const PetscReal w = 2 * PETSC_PI * st.ffreq[f];
          for (PetscInt q = 0; q < 2 * ni * no; q++) st.H[2 * ((p * st.nf + f) * no * ni) + q] *= -w * w;
        }
    if (!poll.sig)
      PetscCall(PetscPrintf(comm,
                            "FRF map (%s): %" PetscInt_FMT " positions x %" PetscInt_FMT " lines (%g to %g Hz), %" PetscInt_FMT
                            " inputs x %" PetscInt_FMT " outputs\n",
                            VIAppCEAQuantities[job->quantity], np, st.nf, (double)job->f0, (double)job->f1, ni, no));
  }
  /* deferring still (until VIAppCEA ends): a signal once everything is computed lets the run write its file */
  {
    PetscErrorCode ierr = PETSC_SUCCESS;
    if (poll.sig) {
      if (rank == 0) ierr = VIAppCEACheckpointWrite(ckpt, tag, &st);
      PetscCall(VIErrorSync(comm, ierr));
      PetscCall(PetscPrintf(comm,
                            "vicms: stopped by %s; the checkpoint %s holds the eigenvalues at %" PetscInt_FMT " of %" PetscInt_FMT
                            " positions, the eigenvectors at %" PetscInt_FMT ", the FRF on %" PetscInt_FMT " of %" PetscInt_FMT
                            " frequency lines (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT
                            " of them computed in this run); rerun the same command to "
                            "continue from it (exit status %d)\n",
                            VISignalName(poll.sig), ckpt, VIAppCEACount(np, st.eig_done), np, VIAppCEACount(np, st.vec_done),
                            st.nf ? VIAppCEACount(st.nf, st.line_done) : 0, st.nf, done_eig, done_vec, done_lines, VI_EXIT_RESUMABLE));
      VISetStopped(PETSC_TRUE);
    } else {
      if (job->state == VI_COUPLING_STATE_STATIC) PetscCall(VIAppCEAStaticStates(comm, c, np, st.pos, st.n, &slam, &sslope, &su, &sfailed));
      if (job->band_tol > 0) PetscCall(VIAppCEABands(comm, c, np, st.pos, nm, st.freq, st.real, job->band_tol, &nbands, &bands, &widths));
      if (job->compare[0]) { /* modal convergence: the same CEA and bands on the other bodies file, and the table of both */
        VIBodies   b2;
        VICoupling c2;
        PetscCall(PetscMalloc2(np * nm, &cfreq, np * nm, &creal));
        PetscCall(VIAppLoadBodies(comm, job->compare, &b2));
        PetscCall(VIAppCEACoupling(comm, job, b2, &c2));
        PetscCall(VIBodiesGetNum(b2, &cn));
        PetscCall(VIBodiesGetOffset(b2, cn, &cn));
        PetscCall(PetscPrintf(comm, "Compared with %s (%" PetscInt_FMT " coordinates):\n", job->compare, cn));
        PetscCall(VICouplingComputeStability(c2, np, st.pos, nm, cfreq, creal));
        PetscCall(VIAppCEABands(comm, c2, np, st.pos, nm, cfreq, creal, job->band_tol, &cnb, &cbands, &cwidths));
        PetscCall(PetscPrintf(comm, "Modal convergence (bands: start, end, peak real part):\n  %-36s %s\n", job->rom_file, job->compare));
        for (PetscInt i = 0; i < PetscMax(nbands, cnb); i++) {
          char l[128] = "", r[128] = "";
          if (i < nbands)
            PetscCall(
                PetscSNPrintf(l, sizeof(l), "%.6g to %.6g, %.4g 1/s", (double)bands[5 * i], (double)bands[5 * i + 1], (double)bands[5 * i + 2]));
          if (i < cnb)
            PetscCall(
                PetscSNPrintf(r, sizeof(r), "%.6g to %.6g, %.4g 1/s", (double)cbands[5 * i], (double)cbands[5 * i + 1], (double)cbands[5 * i + 2]));
          PetscCall(PetscPrintf(comm, "  %-36s %s\n", l, r));
        }
        PetscCall(VICouplingDestroy(&c2));
        PetscCall(VIBodiesDestroy(&b2));
      }
      shapes.n      = st.n;
      shapes.num    = st.num < 0 ? 0 : st.num;
      shapes.keep   = st.keep;
      shapes.re     = st.vec_re;
      shapes.im     = st.vec_im;
      shapes.bodies = bodies;
      if (rank == 0) {
        VIAppCEARun run     = {.rom_file      = job->rom_file,
                               .slave         = job->slave,
                               .master        = job->master,
                               .hold          = job->hold,
                               .hold_dir      = VIAppCEADirs[job->dir],
                               .sliding       = VICouplingSlidings[0],
                               .quantity      = VIAppCEAQuantities[job->quantity],
                               .state         = VICouplingStates[job->state],
                               .mu            = mu,
                               .n             = st.n,
                               .lambda        = slam,
                               .slope         = sslope,
                               .u0            = su,
                               .failed        = sfailed,
                               .num_bands     = nbands,
                               .bands         = bands,
                               .widths        = widths,
                               .band_tol      = job->band_tol,
                               .compare       = job->compare[0] ? job->compare : NULL,
                               .cmp_freq      = cfreq,
                               .cmp_real      = creal,
                               .cmp_bands     = cbands,
                               .cmp_widths    = cwidths,
                               .cmp_num_bands = cnb};
        PetscInt    sliding = 0;
        PetscCall(PetscOptionsGetEList(NULL, NULL, "-coupling_sliding", VICouplingSlidings, 2, &sliding, NULL)); /* validated by the coupling */
        run.sliding = VICouplingSlidings[sliding];
        ierr =
            VIAppCEAWrite(job->out_file, &run, np, st.pos, nm, st.freq, st.real, st.nf, st.ffreq, ni, job->inputs, no, job->outputs, st.H, &shapes);
        /* the complete file makes the checkpoint useless */
        if (!ierr && remove(ckpt) && errno != ENOENT)
          ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_WRITE, PETSC_ERROR_INITIAL,
                            "-cea_file: cannot remove the checkpoint %s of the complete run: %s", ckpt, strerror(errno));
      }
      PetscCall(VIErrorSync(comm, ierr));
      PetscCall(PetscTime(&t1));
      PetscCall(PetscPrintf(comm,
                            "Wrote %s; done in %.2f s (this run: eigenvalues at %" PetscInt_FMT " positions, eigenvectors at %" PetscInt_FMT
                            ", FRF on %" PetscInt_FMT " lines)\n",
                            job->out_file, (double)(t1 - t0), done_eig, done_vec, done_lines));
    }
  }

  PetscCall(PetscFree3(slam, sslope, su));
  PetscCall(PetscFree(sfailed));
  PetscCall(PetscFree(bands));
  PetscCall(PetscFree(widths));
  PetscCall(PetscFree(cwidths));
  PetscCall(PetscFree2(cfreq, creal));
  PetscCall(PetscFree(cbands));
  PetscCall(PetscFree(tag));
  PetscCall(PetscFree4(st.pos, st.freq, st.real, st.eig_done));
  PetscCall(PetscFree(st.vec_done));
  PetscCall(PetscFree2(st.keep, st.first));
  PetscCall(PetscFree2(st.vec_re, st.vec_im));
  PetscCall(PetscFree3(st.ffreq, st.H, st.line_done));
  PetscCall(PetscFree2(in, out));
  PetscCall(VICouplingDestroy(&c));
  PetscCall(VIBodiesDestroy(&bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppCEA(MPI_Comm comm)
{
  VIAppCEAJob    job = {.rom_file = "bodies.h5",
                        .out_file = "cea.h5",
                        .nm       = 20,
                        .ni       = 16,
                        .no       = 16,
                        .range    = {0, -1},
                        .progress = 10,
                        .state    = VI_COUPLING_STATE_STATIC};
  char           lock[PETSC_MAX_PATH_LEN + 8];
  PetscInt       k;
  PetscBool      help, has_frf, has_in, has_out, locked = PETSC_FALSE;
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "vicms cea: stability and time-dependent FRF along the sliding path (seed 003)", "");
  PetscCall(PetscOptionsString("-rom_file", "The bodies file (vicms reduce -bodies)", "", job.rom_file, job.rom_file, sizeof(job.rom_file), NULL));
  PetscCall(PetscOptionsString("-cea_file", "HDF5 results file (format vicms-cea); a stopped run leaves FILE.ckpt, from which a rerun continues", "",
                               job.out_file, job.out_file, sizeof(job.out_file), NULL));
  PetscCall(PetscOptionsString("-cea_slave", "The slave node: BODY:NODE_ID (a boundary node of that body)", "", job.slave, job.slave,
                               sizeof(job.slave), NULL));
  PetscCall(PetscOptionsString("-cea_master", "The master chain: BODY (all its boundary nodes, in table order) or BODY:ID,ID,...", "", job.master,
                               job.master, sizeof(job.master), NULL));
  PetscCall(PetscOptionsString("-cea_hold", "Held (driven) nodes: BODY (its boundary nodes but the slave) or BODY:ID,...; none by default", "",
                               job.hold, job.hold, sizeof(job.hold), NULL));
  PetscCall(
      PetscOptionsEList("-cea_hold_dir", "The held component of the -cea_hold nodes", "", VIAppCEADirs, 2, VIAppCEADirs[job.dir], &job.dir, NULL));
  PetscCall(PetscOptionsEnum(
      "-cea_state",
      "The linearisation: about the undeformed configuration, or about the static sliding state of each position "
      "(the preload and the steady friction; rows in the deformed segment's frame, geometric stiffness of the normal force; the default)",
      "", VICouplingStates, (PetscEnum)job.state, (PetscEnum *)&job.state, NULL));
  PetscCall(PetscOptionsRealArray("-cea_preload", "fx,fy: the constant total force of the static state (-cea_state static), split over its nodes", "",
                                  job.preload, (k = 2, &k), &job.has_preload));
  PetscCheck(!job.has_preload || k == 2, comm, PETSC_ERR_USER_INPUT, "-cea_preload: %" PetscInt_FMT " values, expected the two components fx,fy", k);
  PetscCall(PetscOptionsReal("-cea_band_tol",
                             "Locate the edges of the bands of unstable positions by bisection to this width (arc length); 0: no bisection", "",
                             job.band_tol, &job.band_tol, NULL));
  PetscCheck(job.band_tol >= 0, comm, PETSC_ERR_USER_INPUT, "-cea_band_tol: %g, expected >= 0 (0: no bisection)", (double)job.band_tol);
  PetscCall(
      PetscOptionsString("-cea_compare_rom_file",
                         "Modal convergence: the same CEA and bands (-cea_band_tol) on these bodies (the same job reduced with other mode counts)",
                         "", job.compare, job.compare, sizeof(job.compare), NULL));
  PetscCheck(!job.compare[0] || job.band_tol > 0, comm, PETSC_ERR_USER_INPUT,
             "-cea_compare_rom_file: compares the bands; give their tolerance too (-cea_band_tol ds > 0)");
  PetscCall(PetscOptionsString("-cea_preload_nodes",
                               "The nodes of -cea_preload: BODY (its boundary nodes but the slave) or BODY:ID,...; default the held nodes", "",
                               job.preload_nodes, job.preload_nodes, sizeof(job.preload_nodes), NULL));
  PetscCall(PetscOptionsEList("-cea_frf_quantity", "What the FRF map gives per unit force: the displacement, or the acceleration (-omega^2 times it)",
                              "", VIAppCEAQuantities, 2, VIAppCEAQuantities[job.quantity], &job.quantity, NULL));
  PetscCall(PetscOptionsInt("-cea_positions", "Number of contact positions, evenly spaced along the master chain (>= 2)", "", job.np, &job.np, NULL));
  PetscCall(PetscOptionsRealArray("-cea_range", "s0,s1: the arc-length range of the positions (default the whole chain)", "", job.range, (k = 2, &k),
                                  &job.has_range));
  PetscCheck(!job.has_range || k == 2, comm, PETSC_ERR_USER_INPUT, "-cea_range: expected two arc lengths s0,s1, got %" PetscInt_FMT " values", k);
  PetscCall(PetscOptionsInt("-cea_modes", "Eigenvalues kept per position, lowest first (>= 1)", "", job.nm, &job.nm, NULL));
  PetscCall(PetscOptionsEnum("-cea_vectors",
                             "Eigenvectors (mode shapes, u = L_C q) to write: none, those of the unstable modes (real part > 0), or all of the kept "
                             "modes",
                             "", VIAppCEAVectorsTypes, (PetscEnum)job.vectors, (PetscEnum *)&job.vectors, NULL));
  PetscCall(PetscOptionsString("-cea_frf_frequencies", "f0:f1:n: the FRF map on n lines from f0 to f1 Hz (none by default)", "", job.frf, job.frf,
                               sizeof(job.frf), &has_frf));
  PetscCall(PetscOptionsStringArray("-cea_frf_inputs", "FRF input forces: BODY:NODE:x|y,...", "", job.inputs, &job.ni, &has_in));
  PetscCall(PetscOptionsStringArray("-cea_frf_outputs", "FRF outputs (displacements): BODY:NODE:x|y,...", "", job.outputs, &job.no, &has_out));
  PetscCall(PetscOptionsReal("-cea_progress_interval", "Seconds between progress lines (0: at every round of positions or lines)", "", job.progress,
                             &job.progress, NULL));
  PetscOptionsEnd();
  if (!has_in) job.ni = 0;
  if (!has_out) job.no = 0;
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    VICoupling c;
    PetscCall(VICouplingCreate(comm, &c));
    PetscCall(VICouplingSetFromOptions(c));
    PetscCall(VICouplingDestroy(&c));
  } else {
    PetscCheck(job.np >= 2, comm, PETSC_ERR_USER_INPUT, "-cea_positions: %" PetscInt_FMT " positions, expected at least 2 (give -cea_positions N)",
               job.np);
    PetscCheck(job.nm >= 1, comm, PETSC_ERR_USER_INPUT, "-cea_modes: %" PetscInt_FMT ", expected at least 1", job.nm);
    PetscCheck(job.slave[0], comm, PETSC_ERR_USER_INPUT, "-cea_slave: give the slave node as BODY:NODE_ID");
    PetscCheck(job.master[0], comm, PETSC_ERR_USER_INPUT, "-cea_master: give the master chain as BODY or BODY:ID,ID,...");
    PetscCheck(has_frf == has_in && has_frf == has_out, comm, PETSC_ERR_USER_INPUT,
               "-cea_frf_frequencies, -cea_frf_inputs and -cea_frf_outputs go together: give all three or none");
    PetscCheck(job.progress >= 0, comm, PETSC_ERR_USER_INPUT, "-cea_progress_interval: %g, expected >= 0 seconds", (double)job.progress);
    if (has_frf) { /* n may be written 2e3: it is checked against the memory before it becomes an index */
      char   tail;
      double a, b, m;
      PetscCheck(sscanf(job.frf, "%lf:%lf:%lf%c", &a, &b, &m, &tail) == 3 && a >= 0 && b > a && m >= 2 && m == PetscFloorReal(m) && m < 1e300, comm,
                 PETSC_ERR_USER_INPUT, "-cea_frf_frequencies: '%s', expected f0:f1:n with 0 <= f0 < f1 [Hz] and n >= 2 lines", job.frf);
      job.f0    = a;
      job.f1    = b;
      job.lines = m;
    }
    /* before any work: the results file can be written, and belongs to this job (its lock, FILE.lock) */
    PetscCall(PetscSNPrintf(lock, sizeof(lock), "%s.lock", job.out_file));
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) {
      ierr = VIAppCEACheckFolder(job.out_file);
      if (!ierr) ierr = VIResultsLockOption(job.out_file, lock, "-cea_file");
      locked = ierr ? PETSC_FALSE : PETSC_TRUE;
    }
    PetscCall(VIErrorSync(comm, ierr));
    ierr = VIAppCEARunJob(comm, &job);
    VISignalDefer(PETSC_FALSE);
    if (locked) PetscCall(VIResultsUnlock(lock));
  }
  for (PetscInt i = 0; i < job.ni; i++) PetscCall(PetscFree(job.inputs[i]));
  for (PetscInt i = 0; i < job.no; i++) PetscCall(PetscFree(job.outputs[i]));
  PetscFunctionReturn(ierr);
}
