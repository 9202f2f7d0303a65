/* VIROM: the reduced-order model (dense, small, replicated on every rank), its checks, its HDF5 file and its description. */
#include "romimpl.h"
#include <vicms/io.h>
#include <petscblaslapack.h>
#include <errno.h>

const char *const VICMSTypes[] = {"cb", "cb_massless", "macneal", "rubin", "VICMSType", "VI_CMS_", NULL};

const char *const VIROMMethods[] = {"cb", "cb_massless", "macneal", "rubin", "user", "user_massless", NULL};

#define VI_ROM_NUM_METHODS 6

static PetscBool VIROMMethodIsMassless(VICMSType method)
{
  return (method == VI_CMS_CB_MASSLESS || method == VI_CMS_MACNEAL || method == VI_CMS_USER_MASSLESS) ? PETSC_TRUE : PETSC_FALSE;
}

static PetscBool VIROMMethodIsUser(VICMSType method)
{
  return (method == VI_CMS_USER || method == VI_CMS_USER_MASSLESS) ? PETSC_TRUE : PETSC_FALSE;
}

/* ------------------------------------------------------------------ named vectors (loads, outputs) */

static PetscErrorCode VIROMVectorsDestroy(VIROMVectors *v)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < v->num; k++) {
    PetscCall(PetscFree(v->names[k]));
    PetscCall(PetscFree(v->values[k]));
  }
  PetscCall(PetscFree(v->names));
  PetscCall(PetscFree(v->values));
  v->num = v->max = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMVectorsFind(VIROMVectors *v, const char name[], PetscInt *k)
{
  PetscBool same;

  PetscFunctionBeginUser;
  *k = -1;
  for (PetscInt i = 0; i < v->num && *k < 0; i++) {
    PetscCall(PetscStrcmp(v->names[i], name, &same));
    if (same) *k = i;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* kind is "load" or "output"; the name becomes an HDF5 dataset name, so it must be one */
static PetscErrorCode VIROMVectorsAdd(VIROM rom, VIROMVectors *v, const char kind[], const char name[], const PetscReal f[])
{
  size_t   len;
  PetscInt k;

  PetscFunctionBeginUser;
  PetscCheck(rom->n > 0, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Adding %s '%s' to a ROM without sizes: call VIROMSetSizes() first", kind,
             name ? name : "(null)");
  PetscCheck(name, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "A %s needs a name", kind);
  PetscCall(PetscStrlen(name, &len));
  PetscCheck(len > 0 && len < 200 && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, ".."), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s name '%s': expected 1 to 199 characters, no '/', not '.' or '..' (it names an HDF5 dataset)", kind, name);
  PetscCall(VIROMVectorsFind(v, name, &k));
  PetscCheck(k < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The ROM already has a %s named '%s'", kind, name);
  if (v->num == v->max) {
    PetscInt    max = PetscMax(4, 2 * v->max);
    char      **names;
    PetscReal **values;

    PetscCall(PetscCalloc1(max, &names));
    PetscCall(PetscCalloc1(max, &values));
    if (v->num) {
      PetscCall(PetscArraycpy(names, v->names, v->num));
      PetscCall(PetscArraycpy(values, v->values, v->num));
    }
    PetscCall(PetscFree(v->names));
    PetscCall(PetscFree(v->values));
    v->names  = names;
    v->values = values;
    v->max    = max;
  }
  PetscCall(PetscMalloc1(rom->n, &v->values[v->num]));
  PetscCall(PetscArraycpy(v->values[v->num], f, rom->n));
  PetscCall(PetscStrallocpy(name, &v->names[v->num]));
  v->num++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMVectorsGet(VIROMVectors *v, const char kind[], PetscInt k, const char **name, const PetscReal **f)
{
  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k < v->num, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " asked, the ROM has %" PetscInt_FMT " (0-based)",
             kind, k, v->num);
  if (name) *name = v->names[k];
  if (f) *f = v->values[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Without found, a missing name is an error that lists the names there are. */
static PetscErrorCode VIROMVectorsLookUp(VIROMVectors *v, const char kind[], const char name[], const PetscReal **f, PetscBool *found)
{
  PetscInt k;
  char     list[256] = "";

  PetscFunctionBeginUser;
  PetscCall(VIROMVectorsFind(v, name, &k));
  if (f) *f = k >= 0 ? v->values[k] : NULL;
  if (found) {
    *found = k >= 0 ? PETSC_TRUE : PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt i = 0; i < v->num; i++) {
    if (i) PetscCall(PetscStrlcat(list, ", ", sizeof(list)));
    PetscCall(PetscStrlcat(list, v->names[i], sizeof(list)));
  }
  PetscCheck(k >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The ROM has no %s named '%s' (it has: %s)", kind, name, v->num ? list : "none");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ object */

PetscErrorCode VIROMCreate(MPI_Comm comm, VIROM *rom)
{
  VIROM r;

  PetscFunctionBeginUser;
  PetscCall(VIInitializePackage());
  PetscCall(PetscNew(&r));
  r->comm   = comm;
  r->method = VI_CMS_CB;
  PetscCall(PetscStrallocpy("", &r->units));
  *rom = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Back to the state of VIROMCreate (units cleared too). */
PetscErrorCode VIROMReset(VIROM rom)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(rom->K));
  PetscCall(PetscFree(rom->M));
  PetscCall(PetscFree(rom->D));
  PetscCall(PetscFree(rom->freq_hz));
  PetscCall(PetscFree(rom->contacts));
  PetscCall(VIROMVectorsDestroy(&rom->loads));
  PetscCall(VIROMVectorsDestroy(&rom->shapes));
  PetscCall(VIROMVectorsDestroy(&rom->outputs));
  PetscCall(VIROMDestroyFrame(rom));
  PetscCall(PetscFree(rom->units));
  PetscCall(PetscFree(rom->source));
  PetscCall(PetscFree(rom->version));
  PetscCall(PetscFree(rom->reduction));
  PetscCall(PetscStrallocpy("", &rom->units));
  rom->num_contacts = 0;
  rom->nb = rom->nm = rom->n = 0;
  rom->method                = VI_CMS_CB;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMDestroy(VIROM *rom)
{
  PetscFunctionBeginUser;
  if (!rom || !*rom) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIROMReset(*rom));
  PetscCall(PetscFree((*rom)->units));
  PetscCall(PetscFree(*rom));
  *rom = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new n drops the loads and outputs (their length is n); contacts and units stay. */
PetscErrorCode VIROMSetSizes(VIROM rom, VICMSType method, PetscInt nb, PetscInt nm)
{
  PetscInt n, nn;

  PetscFunctionBeginUser;
  PetscCheck((int)method >= 0 && (int)method < VI_ROM_NUM_METHODS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Unknown reduction method %d",
             (int)method);
  PetscCheck(nb >= 0 && nm >= 0 && nb + nm > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "ROM sizes: %" PetscInt_FMT " boundary coordinates and %" PetscInt_FMT " modes, expected nonnegative numbers, not both 0", nb, nm);
  n = nb + nm;
  PetscCall(PetscIntMultError(n, n, &nn));
  if (n != rom->n) {
    PetscCall(VIROMVectorsDestroy(&rom->loads));
    PetscCall(VIROMVectorsDestroy(&rom->shapes));
    PetscCall(VIROMVectorsDestroy(&rom->outputs));
    PetscCall(VIROMDestroyFrame(rom));
  }
  PetscCall(PetscFree(rom->K));
  PetscCall(PetscFree(rom->M));
  PetscCall(PetscFree(rom->D));
  PetscCall(PetscFree(rom->freq_hz));
  PetscCall(PetscCalloc1(nn, &rom->K));
  PetscCall(PetscCalloc1(nn, &rom->M));
  PetscCall(PetscCalloc1(nn, &rom->D));
  PetscCall(PetscCalloc1(PetscMax(nm, 1), &rom->freq_hz));
  rom->method = method;
  rom->nb     = nb;
  rom->nm     = nm;
  rom->n      = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetSizes(VIROM rom, PetscInt *nb, PetscInt *nm)
{
  PetscFunctionBeginUser;
  if (nb) *nb = rom->nb;
  if (nm) *nm = rom->nm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetMethod(VIROM rom, VICMSType *method, PetscBool *massless)
{
  PetscFunctionBeginUser;
  if (method) *method = rom->method;
  if (massless) *massless = VIROMMethodIsMassless(rom->method);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetMatrices(VIROM rom, PetscReal **K, PetscReal **M, PetscReal **D)
{
  PetscFunctionBeginUser;
  PetscCheck(rom->n > 0, PETSC_COMM_SELF, PETSC_ERR_ORDER, "The ROM has no matrices yet: call VIROMSetSizes() or VIROMLoad() first");
  if (K) *K = rom->K;
  if (M) *M = rom->M;
  if (D) *D = rom->D;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetFrequencies(VIROM rom, PetscReal **freq_hz)
{
  PetscFunctionBeginUser;
  PetscCheck(rom->n > 0, PETSC_COMM_SELF, PETSC_ERR_ORDER, "The ROM has no frequencies yet: call VIROMSetSizes() or VIROMLoad() first");
  *freq_hz = rom->freq_hz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMSetContacts(VIROM rom, PetscInt n, const VIContactInfo contacts[])
{
  PetscFunctionBeginUser;
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Number of contacts %" PetscInt_FMT ", expected >= 0", n);
  PetscCall(PetscFree(rom->contacts));
  PetscCall(PetscMalloc1(PetscMax(n, 1), &rom->contacts));
  if (n) PetscCall(PetscArraycpy(rom->contacts, contacts, n));
  rom->num_contacts = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetContacts(VIROM rom, PetscInt *n, const VIContactInfo **contacts)
{
  PetscFunctionBeginUser;
  if (n) *n = rom->num_contacts;
  if (contacts) *contacts = rom->contacts;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMAddLoad(VIROM rom, const char name[], const PetscReal f[])
{
  PetscFunctionBeginUser;
  PetscCall(VIROMVectorsAdd(rom, &rom->loads, "load", name, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetNumLoads(VIROM rom, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = rom->loads.num;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetLoad(VIROM rom, PetscInt k, const char **name, const PetscReal **f)
{
  PetscFunctionBeginUser;
  PetscCall(VIROMVectorsGet(&rom->loads, "Load", k, name, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMFindLoad(VIROM rom, const char name[], const PetscReal **f, PetscBool *found)
{
  PetscFunctionBeginUser;
  PetscCall(VIROMVectorsLookUp(&rom->loads, "load", name, f, found));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMAddShape(VIROM rom, const char name[], const PetscReal q[])
{
  PetscFunctionBeginUser;
  PetscCall(VIROMVectorsAdd(rom, &rom->shapes, "shape", name, q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMFindShape(VIROM rom, const char name[], const PetscReal **q, PetscBool *found)
{
  PetscFunctionBeginUser;
  PetscCall(VIROMVectorsLookUp(&rom->shapes, "shape", name, q, found));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMAddOutput(VIROM rom, const char name[], const PetscReal o[])
{
  PetscFunctionBeginUser;
  PetscCall(VIROMVectorsAdd(rom, &rom->outputs, "output", name, o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetNumOutputs(VIROM rom, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = rom->outputs.num;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetOutput(VIROM rom, PetscInt k, const char **name, const PetscReal **o)
{
  PetscFunctionBeginUser;
  PetscCall(VIROMVectorsGet(&rom->outputs, "Output", k, name, o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMFindOutput(VIROM rom, const char name[], const PetscReal **o, PetscBool *found)
{
  PetscFunctionBeginUser;
  PetscCall(VIROMVectorsLookUp(&rom->outputs, "output", name, o, found));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMSetUnits(VIROM rom, const char units[])
{
  char *copy;

  PetscFunctionBeginUser;
  PetscCall(PetscStrallocpy(units ? units : "", &copy));
  PetscCall(PetscFree(rom->units));
  rom->units = copy;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMSetReduction(VIROM rom, const char reduction[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(rom->reduction));
  if (reduction) PetscCall(PetscStrallocpy(reduction, &rom->reduction));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetReduction(VIROM rom, const char **reduction)
{
  PetscFunctionBeginUser;
  *reduction = rom->reduction;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetUnits(VIROM rom, const char **units)
{
  PetscFunctionBeginUser;
  *units = rom->units;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ validation */

/* The first problem of a matrix in msg (empty when none): non-finite entries, asymmetry beyond 1e-10 max|A|. */
static PetscErrorCode VIROMCheckMatrix(const char what[], const char name[], PetscInt n, const PetscReal A[], char msg[], size_t len)
{
  PetscReal amax = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt j = 0; j < n; j++) {
      PetscReal a = A[i * n + j];
      if (PetscIsInfOrNanReal(a)) {
        PetscCall(PetscSNPrintf(msg, len, "%s: dataset %s, entry [%" PetscInt_FMT "][%" PetscInt_FMT "] (0-based) = %s is not a finite number", what,
                                name, i, j, VINonFiniteString(a)));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      amax = PetscMax(amax, PetscAbsReal(a));
    }
  }
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt j = i + 1; j < n; j++) {
      PetscReal aij = A[i * n + j], aji = A[j * n + i];
      if (PetscAbsReal(aij - aji) > 1e-10 * amax) {
        PetscCall(PetscSNPrintf(msg, len,
                                "%s: %s is not symmetric: %s[%" PetscInt_FMT "][%" PetscInt_FMT "] = %.15g but %s[%" PetscInt_FMT "][%" PetscInt_FMT
                                "] = %.15g (difference %.3g, tolerance 1e-10 max|%s| = %.3g)",
                                what, name, name, i, j, (double)aij, name, j, i, (double)aji, (double)PetscAbsReal(aij - aji), name,
                                (double)(1e-10 * amax)));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMCheckVector(const char what[], const char kind[], const char name[], PetscInt n, const PetscReal v[], char msg[],
                                       size_t len)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    if (PetscIsInfOrNanReal(v[i])) {
      PetscCall(PetscSNPrintf(msg, len, "%s: dataset %s%s, entry [%" PetscInt_FMT "] (0-based) = %s is not a finite number", what, kind, name, i,
                              VINonFiniteString(v[i])));
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMCheckContacts(VIROM rom, const char what[], char msg[], size_t len)
{
  PetscInt offset = 0;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < rom->num_contacts; c++) {
    const VIContactInfo *ci     = &rom->contacts[c];
    PetscReal            err    = 0;
    PetscBool            finite = PETSC_TRUE;

    if (ci->dim < 1 || ci->dim > 3) {
      PetscCall(PetscSNPrintf(msg, len, "%s: contact %" PetscInt_FMT " (node %" PetscInt_FMT ") has dimension %" PetscInt_FMT ", expected 1, 2 or 3",
                              what, c, ci->node_id, ci->dim));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (ci->offset != offset) {
      PetscCall(PetscSNPrintf(msg, len,
                              "%s: contact %" PetscInt_FMT " (node %" PetscInt_FMT ") starts at coordinate %" PetscInt_FMT ", expected %" PetscInt_FMT
                              " (contacts are contiguous, in order, from 0)",
                              what, c, ci->node_id, ci->offset, offset));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (ci->kind != VI_CONTACT_UNILATERAL && ci->kind != VI_CONTACT_BILATERAL) {
      PetscCall(PetscSNPrintf(
          msg, len, "%s: contact %" PetscInt_FMT " (node %" PetscInt_FMT ") has kind %d (contact/kinds), expected 0 (unilateral) or 1 (bilateral)",
          what, c, ci->node_id, (int)ci->kind));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (ci->kind == VI_CONTACT_BILATERAL && ci->dim != 1) {
      PetscCall(PetscSNPrintf(msg, len,
                              "%s: contact %" PetscInt_FMT " (node %" PetscInt_FMT ") is bilateral (contact/kinds = 1) with dimension %" PetscInt_FMT
                              ": a bilateral row B q = 0 has no tangential coordinates and no friction, expected dimension 1",
                              what, c, ci->node_id, ci->dim));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    offset += ci->dim;
    for (PetscInt k = 0; k < 12 && finite; k++) {
      PetscReal v = k < 9 ? ci->frame[k] : ci->coords[k - 9];
      if (!PetscIsInfOrNanReal(v)) continue;
      finite = PETSC_FALSE;
      PetscCall(PetscSNPrintf(msg, len,
                              "%s: contact %" PetscInt_FMT " (node %" PetscInt_FMT "): dataset contact/%s, entry [%" PetscInt_FMT "][%" PetscInt_FMT
                              "] (0-based) = %s is not a finite number",
                              what, c, ci->node_id, k < 9 ? "frames" : "coords", c, k < 9 ? k : k - 9, VINonFiniteString(v)));
    }
    if (!finite) PetscFunctionReturn(PETSC_SUCCESS);
    if (PetscIsInfOrNanReal(ci->area) || !(ci->area > 0)) {
      PetscCall(PetscSNPrintf(msg, len,
                              "%s: contact %" PetscInt_FMT " (node %" PetscInt_FMT "): dataset contact/areas, entry [%" PetscInt_FMT
                              "] = %g, expected a positive area",
                              what, c, ci->node_id, c, (double)ci->area));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    /* rows normal, t1, t2: F F^T = I */
    for (PetscInt a = 0; a < 3; a++) {
      for (PetscInt b = 0; b < 3; b++) {
        PetscReal dot = 0;
        for (PetscInt k = 0; k < 3; k++) dot += ci->frame[3 * a + k] * ci->frame[3 * b + k];
        err = PetscMax(err, PetscAbsReal(dot - (a == b ? 1 : 0)));
      }
    }
    if (err > 1e-10) {
      PetscCall(PetscSNPrintf(msg, len,
                              "%s: the frame of contact %" PetscInt_FMT " (node %" PetscInt_FMT
                              ") is not orthonormal: rows (%.6g, %.6g, %.6g), (%.6g, %.6g, %.6g), (%.6g, %.6g, %.6g); max|F F^T - I| = %.3g > 1e-10",
                              what, c, ci->node_id, (double)ci->frame[0], (double)ci->frame[1], (double)ci->frame[2], (double)ci->frame[3],
                              (double)ci->frame[4], (double)ci->frame[5], (double)ci->frame[6], (double)ci->frame[7], (double)ci->frame[8],
                              (double)err));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (offset != rom->nb)
    PetscCall(PetscSNPrintf(msg, len,
                            "%s: the %" PetscInt_FMT " contacts have %" PetscInt_FMT " coordinates in all, but the ROM has %" PetscInt_FMT
                            " boundary coordinates",
                            what, rom->num_contacts, offset, rom->nb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMEigenRange(PetscInt n, const PetscReal A[], PetscReal *lmin, PetscReal *lmax);

/* K of a ROM is positive semi-definite: zero eigenvalues are rigid-body modes of a free-floating parent (MacNeal, Rubin), a negative one
   beyond rounding (1e-10 of the largest) makes the time integration blow up. */
static PetscErrorCode VIROMCheckStiffness(VIROM rom, const char what[], char msg[], size_t len)
{
  PetscReal lmin, lmax;

  PetscFunctionBeginUser;
  PetscCall(VIROMEigenRange(rom->n, rom->K, &lmin, &lmax));
  if (lmin == PETSC_MAX_REAL)
    PetscCall(PetscSNPrintf(msg, len, "%s: the eigenvalues of K could not be computed (LAPACK syev failed)", what));
  else if (lmin < -1e-10 * PetscAbsReal(lmax))
    PetscCall(PetscSNPrintf(msg, len,
                            "%s: K is not positive semi-definite: its smallest eigenvalue is %.6g, below -1e-10 times its largest (%.6g); a ROM's "
                            "stiffness may have zero eigenvalues (rigid-body modes), not negative ones",
                            what, (double)lmin, (double)lmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first row (0-based, of A) where the Cholesky factorization of A[lo..hi-1][lo..hi-1] (A n x n, symmetric) stops, -1 when that block
   is positive definite. */
static PetscErrorCode VIROMCholeskyRow(PetscInt n, PetscInt lo, PetscInt hi, const PetscReal A[], PetscInt *row)
{
  const PetscInt m = hi - lo;
  PetscReal     *L;
  PetscBLASInt   bm, info;

  PetscFunctionBeginUser;
  *row = -1;
  if (m <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(m, &bm));
  PetscCall(PetscMalloc1(m * m, &L));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) L[i * m + j] = A[(lo + i) * n + lo + j];
  PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bm, L, &bm, &info));
  PetscCall(PetscFree(L));
  if (info > 0) *row = lo + info - 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first problem found, in msg; empty when the ROM is sound. Local. */
static PetscErrorCode VIROMCheck(VIROM rom, const char what[], char msg[], size_t len)
{
  const PetscInt n = rom->n, nb = rom->nb;

  PetscFunctionBeginUser;
  msg[0] = 0;
  PetscCall(VIROMCheckContacts(rom, what, msg, len));
  if (!msg[0]) PetscCall(VIROMCheckMatrix(what, "K", n, rom->K, msg, len));
  if (!msg[0]) PetscCall(VIROMCheckMatrix(what, "M", n, rom->M, msg, len));
  if (!msg[0]) PetscCall(VIROMCheckMatrix(what, "D", n, rom->D, msg, len));
  if (!msg[0]) PetscCall(VIROMCheckStiffness(rom, what, msg, len));
  if (!msg[0] && VIROMMethodIsMassless(rom->method)) {
    /* M_bb = 0 and M_bi = M_ib^T = 0, exactly (seed 000 §3: the boundary carries no mass) */
    for (PetscInt i = 0; i < n && !msg[0]; i++) {
      for (PetscInt j = 0; j < n; j++) {
        if ((i < nb || j < nb) && rom->M[i * n + j] != 0) {
          PetscCall(PetscSNPrintf(msg, len,
                                  "%s: the ROM claims a massless boundary (method %s) but M[%" PetscInt_FMT "][%" PetscInt_FMT
                                  "] = %.6g; the first %" PetscInt_FMT " rows and columns of M must be exactly 0",
                                  what, VIROMMethods[rom->method], i, j, (double)rom->M[i * n + j], nb));
          break;
        }
      }
    }
  }
  if (!msg[0] && rom->method == VI_CMS_USER_MASSLESS) {
    /* leapfrog, the scheme of a massless boundary, solves the boundary's statics with K_bb and the other coordinates' dynamics with M_ii:
       both must be positive definite, said here with the file rather than as a factorization's failure in the middle of a job */
    PetscInt row;
    PetscCall(VIROMCholeskyRow(n, 0, nb, rom->K, &row));
    if (row >= 0) {
      PetscInt c = 0;
      while (c + 1 < rom->num_contacts && rom->contacts[c + 1].offset <= row) c++;
      PetscCall(PetscSNPrintf(msg, len,
                              "%s: K_bb, the stiffness of the %" PetscInt_FMT " boundary coordinates (rows and columns 0..%" PetscInt_FMT
                              " of K) of a user_massless ROM, is not positive definite: its Cholesky factorization stops at row %" PetscInt_FMT
                              " (0-based; contact %" PetscInt_FMT ", node %" PetscInt_FMT "; K[%" PetscInt_FMT "][%" PetscInt_FMT
                              "] = %g), which has no stiffness of its own or depends on the rows before it; a massless boundary coordinate needs "
                              "a stiffness that holds it (leapfrog solves K_bb q_b = f_b - K_bi q_i + lambda)",
                              what, nb, nb - 1, row, c, rom->num_contacts ? rom->contacts[c].node_id : -1, row, row, (double)rom->K[row * n + row]));
    }
    if (!msg[0] && nb < n) {
      PetscCall(VIROMCholeskyRow(n, nb, n, rom->M, &row));
      if (row >= 0)
        PetscCall(PetscSNPrintf(
            msg, len,
            "%s: M_ii, the mass of the %" PetscInt_FMT " coordinates after the boundary (rows and columns %" PetscInt_FMT "..%" PetscInt_FMT
            " of M) of a user_massless ROM, is not positive definite: its Cholesky factorization stops at row %" PetscInt_FMT
            " (0-based; M[%" PetscInt_FMT "][%" PetscInt_FMT "] = %g), which has no mass of its own or depends on the rows before it; only "
            "the first n_boundary coordinates are massless",
            what, n - nb, nb, n - 1, row, row, row, (double)rom->M[row * n + row]));
    }
  }
  if (!msg[0] && rom->method == VI_CMS_USER) {
    /* a user's mass-carrying ROM: the Moreau and nsgalpha schemes invert M */
    PetscReal lmin, lmax;
    PetscCall(VIROMEigenRange(n, rom->M, &lmin, &lmax));
    if (!(lmin > 1e-12 * PetscAbsReal(lmax))) {
      PetscInt row;
      char     where[128] = "";
      PetscCall(VIROMCholeskyRow(n, 0, n, rom->M, &row));
      if (row >= 0)
        PetscCall(PetscSNPrintf(where, sizeof(where),
                                " (its Cholesky factorization stops at row %" PetscInt_FMT ", 0-based; M[%" PetscInt_FMT "][%" PetscInt_FMT "] = %g)",
                                row, row, row, (double)rom->M[row * n + row]));
      PetscCall(PetscSNPrintf(msg, len,
                              "%s: M is not positive definite%s: its smallest eigenvalue is %.6g (largest %.6g), expected above 1e-12 times the "
                              "largest; a ROM of method user carries mass on every coordinate (a massless boundary is method user_massless)",
                              what, where, (double)lmin, (double)lmax));
    }
  }
  if (!msg[0]) PetscCall(VIROMCheckVector(what, "", "frequencies_hz", rom->nm, rom->freq_hz, msg, len));
  for (PetscInt k = 0; k < rom->nm && !msg[0]; k++)
    if (rom->freq_hz[k] < 0)
      PetscCall(PetscSNPrintf(msg, len, "%s: frequencies_hz[%" PetscInt_FMT "] = %.6g, expected a frequency >= 0", what, k, (double)rom->freq_hz[k]));
  for (PetscInt k = 0; k < rom->loads.num && !msg[0]; k++)
    PetscCall(VIROMCheckVector(what, "loads/", rom->loads.names[k], n, rom->loads.values[k], msg, len));
  for (PetscInt k = 0; k < rom->shapes.num && !msg[0]; k++)
    PetscCall(VIROMCheckVector(what, "shapes/", rom->shapes.names[k], n, rom->shapes.values[k], msg, len));
  for (PetscInt k = 0; k < rom->outputs.num && !msg[0]; k++)
    PetscCall(VIROMCheckVector(what, "outputs/", rom->outputs.names[k], n, rom->outputs.values[k], msg, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every rank checks its copy; the lowest rank that finds a problem reports it (once), the others fail silently. */
PetscErrorCode VIROMValidateWithCode(VIROM rom, const char what[], PetscErrorCode code)
{
  char           msg[2048];
  PetscMPIInt    rank, size, mine, first;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  if (!what) what = "ROM";
  PetscCheck(rom->n > 0, rom->comm, PETSC_ERR_ORDER, "%s: the ROM is empty (no VIROMSetSizes() or VIROMLoad())", what);
  PetscCallMPI(MPI_Comm_rank(rom->comm, &rank));
  PetscCallMPI(MPI_Comm_size(rom->comm, &size));
  PetscCall(VIROMCheck(rom, what, msg, sizeof(msg)));
  mine = msg[0] ? rank : size;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, rom->comm));
  if (first == size) PetscFunctionReturn(PETSC_SUCCESS);
  if (rank == first) ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, code, PETSC_ERROR_INITIAL, "%s", msg);
  PetscCall(VIErrorSync(rom->comm, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMValidate(VIROM rom, const char what[])
{
  PetscBool isfile = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (what) PetscCall(PetscTestFile(what, 'r', &isfile));
  PetscCall(VIROMValidateWithCode(rom, what, isfile ? PETSC_ERR_FILE_UNEXPECTED : PETSC_ERR_ARG_WRONG));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ writing */

static PetscErrorCode VIROMWriteVectors(hid_t file, const char group[], VIROMVectors *v, PetscInt n)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(VIH5CreateGroup(file, group));
  for (PetscInt k = 0; k < v->num; k++) {
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", group, v->names[k]));
    PetscCall(VIH5WriteReal(file, path, n, 0, v->values[k]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMWriteContactTable(hid_t file, PetscInt nc, PetscInt ints[], PetscReal reals[])
{
  PetscFunctionBeginUser;
  PetscCall(VIH5WriteInt(file, "contact/node_ids", nc, 0, ints));
  PetscCall(VIH5WriteInt(file, "contact/dims", nc, 0, ints + nc));
  PetscCall(VIH5WriteInt(file, "contact/offsets", nc, 0, ints + 2 * nc));
  PetscCall(VIH5WriteReal(file, "contact/frames", nc, 9, reals));
  PetscCall(VIH5WriteReal(file, "contact/coords", nc, 3, reals + 9 * nc));
  PetscCall(VIH5WriteReal(file, "contact/areas", nc, 0, reals + 12 * nc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* contact/kinds (0 unilateral, 1 bilateral) only when a contact is bilateral: a ROM of unilateral contacts is the file of
   before the extension, byte for byte. work: nc integers. */
static PetscErrorCode VIROMWriteContactKinds(hid_t file, PetscInt nc, const VIContactInfo contacts[], PetscInt work[])
{
  PetscBool any = PETSC_FALSE;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < nc; c++) {
    work[c] = (PetscInt)contacts[c].kind;
    if (contacts[c].kind != VI_CONTACT_UNILATERAL) any = PETSC_TRUE;
  }
  if (any) PetscCall(VIH5WriteInt(file, "contact/kinds", nc, 0, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMWriteContents(VIROM rom, hid_t file)
{
  const PetscInt nc = rom->num_contacts;

  PetscFunctionBeginUser;
  PetscCall(VIH5WriteAttrString(file, ".", "format", "vicms-rom"));
  PetscCall(VIH5WriteAttrString(file, ".", "version", VICMS_VERSION));
  PetscCall(VIH5WriteAttrString(file, ".", "method", VIROMMethods[rom->method]));
  PetscCall(VIH5WriteAttrInt(file, ".", "massless", VIROMMethodIsMassless(rom->method) ? 1 : 0));
  PetscCall(VIH5WriteAttrInt(file, ".", "n_boundary", rom->nb));
  PetscCall(VIH5WriteAttrInt(file, ".", "n_modes", rom->nm));
  PetscCall(VIH5WriteAttrString(file, ".", "units", rom->units));
  if (rom->reduction) PetscCall(VIH5WriteAttrString(file, ".", "reduction", rom->reduction));
  PetscCall(VIH5WriteReal(file, "K", rom->n, rom->n, rom->K));
  PetscCall(VIH5WriteReal(file, "M", rom->n, rom->n, rom->M));
  PetscCall(VIH5WriteReal(file, "D", rom->n, rom->n, rom->D));
  PetscCall(VIH5WriteReal(file, "frequencies_hz", rom->nm, 0, rom->freq_hz));
  /* the names of the dimensions and the units that are known (a coordinate's unit depends on its kind: docs/results.md) */
  PetscCall(VIH5WriteAttrString(file, "K", "dims", "rom_coordinate,rom_coordinate"));
  PetscCall(VIH5WriteAttrString(file, "M", "dims", "rom_coordinate,rom_coordinate"));
  PetscCall(VIH5WriteAttrString(file, "D", "dims", "rom_coordinate,rom_coordinate"));
  PetscCall(VIH5WriteAttrString(file, "frequencies_hz", "units", "Hz"));
  PetscCall(VIH5WriteAttrString(file, "frequencies_hz", "dims", "mode"));
  PetscCall(VIH5CreateGroup(file, "contact"));
  if (nc > 0) {
    PetscInt      *ints;
    PetscReal     *reals;
    PetscErrorCode ierr;

    PetscCall(PetscMalloc1(3 * nc, &ints));
    PetscCall(PetscMalloc1(13 * nc, &reals));
    for (PetscInt c = 0; c < nc; c++) {
      const VIContactInfo *ci = &rom->contacts[c];
      ints[c]                 = ci->node_id;
      ints[nc + c]            = ci->dim;
      ints[2 * nc + c]        = ci->offset;
      for (PetscInt k = 0; k < 9; k++) reals[9 * c + k] = ci->frame[k];
      for (PetscInt k = 0; k < 3; k++) reals[9 * nc + 3 * c + k] = ci->coords[k];
      reals[12 * nc + c] = ci->area;
    }
    ierr = VIROMWriteContactTable(file, nc, ints, reals);
    if (!ierr) ierr = VIROMWriteContactKinds(file, nc, rom->contacts, ints);
    if (!ierr) { /* the contact points' coordinates and areas in the ROM's length unit (cms_units), when it names one */
      char length[32], area[40];
      ierr = VIUnitsLength(rom->units, length, sizeof(length));
      if (!ierr && length[0]) {
        ierr = VIH5WriteAttrString(file, "contact/coords", "units", length);
        if (!ierr) ierr = PetscSNPrintf(area, sizeof(area), "%s^2", length);
        if (!ierr) ierr = VIH5WriteAttrString(file, "contact/areas", "units", area);
      }
      if (!ierr) ierr = VIH5WriteAttrString(file, "contact/coords", "dims", "contact,xyz");
      if (!ierr) ierr = VIH5WriteAttrString(file, "contact/frames", "dims", "contact,normal_t1_t2_xyz");
    }
    PetscCall(PetscFree(ints));
    PetscCall(PetscFree(reals));
    PetscCall(ierr);
  }
  PetscCall(VIROMWriteVectors(file, "loads", &rom->loads, rom->n));
  PetscCall(VIROMWriteVectors(file, "shapes", &rom->shapes, rom->n));
  PetscCall(VIROMWriteVectors(file, "outputs", &rom->outputs, rom->n));
  PetscCall(VIROMWriteFrame(rom, file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Under PATH.part, renamed to PATH when complete: a file with the final name is never a partial one. */
static PetscErrorCode VIROMWriteFile(VIROM rom, const char path[])
{
  char           tmp[PETSC_MAX_PATH_LEN];
  hid_t          file = -1;
  PetscErrorCode ierr, ierr_close;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.part", path));
  PetscCall(VIH5Create(tmp, &file));
  ierr       = VIROMWriteContents(rom, file);
  ierr_close = VIH5Close(&file);
  if (!ierr) ierr = ierr_close;
  if (ierr) (void)remove(tmp);
  PetscCall(ierr);
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s: %s", tmp, path, strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMWrite(VIROM rom, const char path[])
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCheck(rom->n > 0, rom->comm, PETSC_ERR_ORDER, "Cannot write %s: the ROM is empty (call VIROMSetSizes() first)", path);
  PetscCallMPI(MPI_Comm_rank(rom->comm, &rank));
  if (rank == 0) ierr = VIROMWriteFile(rom, path);
  PetscCall(VIErrorSync(rom->comm, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ reading (rank 0) */

static PetscErrorCode VIShapeString(PetscInt rows, PetscInt cols, char s[], size_t len)
{
  PetscFunctionBeginUser;
  if (cols == 0)
    PetscCall(PetscSNPrintf(s, len, "a vector of %" PetscInt_FMT, rows));
  else
    PetscCall(PetscSNPrintf(s, len, "%" PetscInt_FMT " x %" PetscInt_FMT, rows, cols));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMCheckShape(hid_t file, const char path[], const char dset[], PetscInt rows, PetscInt cols)
{
  PetscInt  r, c;
  PetscBool exists;
  char      got[64], expected[64];

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, dset, &exists));
  PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: dataset %s is missing", path, dset);
  PetscCall(VIH5GetShape(file, dset, &r, &c));
  PetscCall(VIShapeString(r, c, got, sizeof(got)));
  PetscCall(VIShapeString(rows, cols, expected, sizeof(expected)));
  PetscCheck(r == rows && c == cols, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: dataset %s is %s, expected %s", path, dset, got, expected);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads dataset dset of the expected shape into *dest (freed first): the ROM owns every buffer at once, so an error leaks nothing. */
static PetscErrorCode VIROMReadReal(hid_t file, const char path[], const char dset[], PetscInt rows, PetscInt cols, PetscReal **dest)
{
  PetscInt r, c;

  PetscFunctionBeginUser;
  PetscCall(VIROMCheckShape(file, path, dset, rows, cols));
  PetscCall(PetscFree(*dest));
  PetscCall(VIH5ReadReal(file, dset, &r, &c, dest));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The optional contact/kinds (one integer per contact: 0 unilateral, 1 bilateral; absent: every contact unilateral, the
   files written before the extension). Values are checked with the contact table (VIROMCheckContacts). */
static PetscErrorCode VIROMReadContactKinds(VIROM rom, hid_t file, const char path[])
{
  PetscBool exists;
  PetscInt  r, c, *ints = NULL;

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, "contact/kinds", &exists));
  if (!exists) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIROMCheckShape(file, path, "contact/kinds", rom->num_contacts, 0));
  PetscCall(VIH5ReadInt(file, "contact/kinds", &r, &c, &ints));
  for (PetscInt i = 0; i < rom->num_contacts; i++) rom->contacts[i].kind = (VIContactKind)ints[i];
  PetscCall(PetscFree(ints));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMReadContacts(VIROM rom, hid_t file, const char path[])
{
  static const char *const int_sets[3] = {"contact/dims", "contact/offsets", "contact/node_ids"};
  PetscBool                exists;
  PetscInt                 nc, cols, r, c;
  PetscInt                *ints  = NULL;
  PetscReal               *reals = NULL;

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, "contact/node_ids", &exists));
  if (!exists) PetscFunctionReturn(PETSC_SUCCESS); /* an empty contact group: no contacts */
  PetscCall(VIH5GetShape(file, "contact/node_ids", &nc, &cols));
  PetscCheck(cols == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: dataset contact/node_ids is %" PetscInt_FMT " x %" PetscInt_FMT ", expected a vector", path, nc, cols);
  for (PetscInt k = 0; k < 3; k++) PetscCall(VIROMCheckShape(file, path, int_sets[k], nc, 0));
  PetscCall(VIROMCheckShape(file, path, "contact/frames", nc, 9));
  PetscCall(VIROMCheckShape(file, path, "contact/coords", nc, 3));
  PetscCall(VIROMCheckShape(file, path, "contact/areas", nc, 0));
  PetscCall(PetscCalloc1(PetscMax(nc, 1), &rom->contacts));
  rom->num_contacts = nc;
  for (PetscInt k = 0; k < 3; k++) {
    PetscCall(VIH5ReadInt(file, int_sets[k], &r, &c, &ints));
    for (PetscInt i = 0; i < nc; i++) {
      if (k == 0)
        rom->contacts[i].dim = ints[i];
      else if (k == 1)
        rom->contacts[i].offset = ints[i];
      else
        rom->contacts[i].node_id = ints[i];
    }
    PetscCall(PetscFree(ints));
  }
  PetscCall(VIH5ReadReal(file, "contact/frames", &r, &c, &reals));
  for (PetscInt i = 0; i < nc; i++) PetscCall(PetscArraycpy(rom->contacts[i].frame, reals + 9 * i, 9));
  PetscCall(PetscFree(reals));
  PetscCall(VIH5ReadReal(file, "contact/coords", &r, &c, &reals));
  for (PetscInt i = 0; i < nc; i++) PetscCall(PetscArraycpy(rom->contacts[i].coords, reals + 3 * i, 3));
  PetscCall(PetscFree(reals));
  PetscCall(VIH5ReadReal(file, "contact/areas", &r, &c, &reals));
  for (PetscInt i = 0; i < nc; i++) rom->contacts[i].area = reals[i];
  PetscCall(PetscFree(reals));
  PetscCall(VIROMReadContactKinds(rom, file, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A user ROM's contact table: contact/dims (one entry per contact, 1 normal only, 2 or 3 with tangents) is required when the ROM has
   boundary coordinates; offsets (contiguous from 0), node_ids (0, 1, ...), frames (identity), coords (0) and areas (1) are optional. */
static PetscErrorCode VIROMReadUserContacts(VIROM rom, hid_t file, const char path[])
{
  PetscBool  exists;
  PetscInt   nc, cols, r, c, *ints = NULL;
  PetscReal *reals = NULL;

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, "contact/dims", &exists));
  PetscCheck(exists || rom->nb == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: dataset contact/dims is missing: a user ROM with n_boundary = %" PetscInt_FMT
             " > 0 lists its contacts' dimensions there (1 = normal "
             "only, 2 or 3 = normal and tangents; their coordinates are the first n_boundary of q, contact after contact)",
             path, rom->nb);
  if (!exists) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIH5GetShape(file, "contact/dims", &nc, &cols));
  PetscCheck(cols == 0 && nc > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: dataset contact/dims is %" PetscInt_FMT " x %" PetscInt_FMT ", expected a vector with one entry per contact", path, nc, cols);
  PetscCall(PetscCalloc1(nc, &rom->contacts));
  rom->num_contacts = nc;
  PetscCall(VIH5ReadInt(file, "contact/dims", &r, &c, &ints));
  for (PetscInt i = 0, off = 0; i < nc; i++) {
    rom->contacts[i].dim     = ints[i];
    rom->contacts[i].offset  = off;
    rom->contacts[i].node_id = i;
    rom->contacts[i].area    = 1;
    for (PetscInt k = 0; k < 3; k++) rom->contacts[i].frame[4 * k] = 1;
    off += ints[i];
  }
  PetscCall(PetscFree(ints));
  PetscCall(VIH5Exists(file, "contact/offsets", &exists));
  if (exists) {
    PetscCall(VIROMCheckShape(file, path, "contact/offsets", nc, 0));
    PetscCall(VIH5ReadInt(file, "contact/offsets", &r, &c, &ints));
    for (PetscInt i = 0; i < nc; i++) rom->contacts[i].offset = ints[i];
    PetscCall(PetscFree(ints));
  }
  PetscCall(VIH5Exists(file, "contact/node_ids", &exists));
  if (exists) {
    PetscCall(VIROMCheckShape(file, path, "contact/node_ids", nc, 0));
    PetscCall(VIH5ReadInt(file, "contact/node_ids", &r, &c, &ints));
    for (PetscInt i = 0; i < nc; i++) rom->contacts[i].node_id = ints[i];
    PetscCall(PetscFree(ints));
  }
  PetscCall(VIH5Exists(file, "contact/frames", &exists));
  if (exists) {
    PetscCall(VIROMCheckShape(file, path, "contact/frames", nc, 9));
    PetscCall(VIH5ReadReal(file, "contact/frames", &r, &c, &reals));
    for (PetscInt i = 0; i < nc; i++) PetscCall(PetscArraycpy(rom->contacts[i].frame, reals + 9 * i, 9));
    PetscCall(PetscFree(reals));
  }
  PetscCall(VIH5Exists(file, "contact/coords", &exists));
  if (exists) {
    PetscCall(VIROMCheckShape(file, path, "contact/coords", nc, 3));
    PetscCall(VIH5ReadReal(file, "contact/coords", &r, &c, &reals));
    for (PetscInt i = 0; i < nc; i++) PetscCall(PetscArraycpy(rom->contacts[i].coords, reals + 3 * i, 3));
    PetscCall(PetscFree(reals));
  }
  PetscCall(VIH5Exists(file, "contact/areas", &exists));
  if (exists) {
    PetscCall(VIROMCheckShape(file, path, "contact/areas", nc, 0));
    PetscCall(VIH5ReadReal(file, "contact/areas", &r, &c, &reals));
    for (PetscInt i = 0; i < nc; i++) rom->contacts[i].area = reals[i];
    PetscCall(PetscFree(reals));
  }
  PetscCall(VIROMReadContactKinds(rom, file, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMReadVectorList(VIROM rom, hid_t file, const char path[], const char group[], PetscInt num, char **names,
                                          PetscErrorCode (*add)(VIROM, const char[], const PetscReal[]))
{
  char           dset[PETSC_MAX_PATH_LEN];
  PetscReal     *f = NULL;
  PetscInt       r, c;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < num; k++) {
    PetscCall(PetscSNPrintf(dset, sizeof(dset), "%s/%s", group, names[k]));
    PetscCall(VIROMCheckShape(file, path, dset, rom->n, 0));
    PetscCall(VIH5ReadReal(file, dset, &r, &c, &f));
    ierr = add(rom, names[k], f);
    PetscCall(PetscFree(f));
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMReadVectors(VIROM rom, hid_t file, const char path[], const char group[],
                                       PetscErrorCode (*add)(VIROM, const char[], const PetscReal[]))
{
  char           gpath[64];
  PetscBool      exists;
  PetscInt       num;
  char         **names;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(gpath, sizeof(gpath), "%s", group));
  PetscCall(VIH5Exists(file, gpath, &exists));
  if (!exists) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIH5ListGroup(file, gpath, &num, &names));
  ierr = VIROMReadVectorList(rom, file, path, group, num, names, add);
  PetscCall(PetscStrArrayDestroy(&names));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "MAJOR.MINOR.PATCH" as three numbers; PETSC_FALSE when it is not of that form. */
static PetscBool VIParseVersion(const char *v, long out[3])
{
  char *end;

  if (!v) return PETSC_FALSE;
  for (int k = 0; k < 3; k++) {
    if (*v < '0' || *v > '9') return PETSC_FALSE;
    out[k] = strtol(v, &end, 10);
    if (k < 2 && *end != '.') return PETSC_FALSE;
    v = end + (k < 2 ? 1 : 0);
  }
  return *end == 0 ? PETSC_TRUE : PETSC_FALSE;
}

/* A ROM file written by this version of vicms or an older one: the layout has not changed since 0.1.0. A newer or unknown version may
   hold what this one would misread, so it is refused. */
static PetscErrorCode VIROMCheckVersion(const char path[], const char version[])
{
  long      found[3], supported[3];
  PetscBool newer = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCheck(VIParseVersion(VICMS_VERSION, supported), PETSC_COMM_SELF, PETSC_ERR_PLIB, "VICMS_VERSION '%s' is not MAJOR.MINOR.PATCH", VICMS_VERSION);
  PetscCheck(VIParseVersion(version, found), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: the ROM file's version attribute is '%s', not a vicms version MAJOR.MINOR.PATCH; this vicms reads ROM files up to version %s", path,
             version ? version : "", VICMS_VERSION);
  for (int k = 0; k < 3; k++) {
    if (found[k] != supported[k]) {
      newer = found[k] > supported[k] ? PETSC_TRUE : PETSC_FALSE;
      break;
    }
  }
  PetscCheck(!newer, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: the ROM file has version %s, newer than this vicms (it reads ROM files up to version %s): use a newer vicms or reduce again", path,
             version, VICMS_VERSION);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before the matrices of a file are allocated: n = n_boundary + n_modes must index n x n arrays with PetscInt, and K, M, D and the copy
   the checks work on (VIROMEigenRange), 4 n^2 reals, must fit in what each rank may take (rom->mem_per_rank, from VIROMLoad): every
   rank holds the ROM. Rank-local; the sizes are the file's attributes, hence the messages name them. */
static PetscErrorCode VIROMCheckSizeFits(VIROM rom, const char path[], PetscInt nb, PetscInt nm)
{
  const PetscInt64 n = (PetscInt64)nb + (PetscInt64)nm;
  PetscLogDouble   need;

  PetscFunctionBeginUser;
  PetscCheck(n <= PETSC_MAX_INT && (PetscLogDouble)n * (PetscLogDouble)n <= (PetscLogDouble)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: n_boundary = %" PetscInt_FMT " and n_modes = %" PetscInt_FMT " make a ROM of n = %" PetscInt64_FMT
             " coordinates, whose n x n matrices (%.4g entries each) are more than this vicms can index (%" PetscInt_FMT
             " entries: PETSc with 32-bit indices); a ROM has at most %" PetscInt64_FMT " coordinates here",
             path, nb, nm, n, (double)n * (double)n, (PetscInt)PETSC_MAX_INT, (PetscInt64)PetscSqrtReal((PetscReal)PETSC_MAX_INT));
  need = 4.0 * (PetscLogDouble)n * (PetscLogDouble)n * sizeof(PetscReal);
  PetscCheck(rom->mem_per_rank <= 0 || need <= rom->mem_per_rank, PETSC_COMM_SELF, PETSC_ERR_MEM,
             "%s: n_boundary = %" PetscInt_FMT " and n_modes = %" PetscInt_FMT " make a ROM of n = %" PetscInt64_FMT
             " coordinates: every rank holds K, M, D and a copy for the checks, 4 n^2 x 8 bytes = %.3g GB, %.3g GB for the %d ranks on this "
             "node, but %.3g GB are available on it (MemAvailable): run fewer ranks per node, or reduce to fewer coordinates",
             path, nb, nm, n, need / 1e9, need * rom->ranks_on_node / 1e9, (int)rom->ranks_on_node, rom->mem_node / 1e9);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMReadContents(VIROM rom, hid_t file, const char path[])
{
  char     *str, value[64];
  PetscBool has, found;
  PetscInt  method, massless, nb, nm;

  PetscFunctionBeginUser;
  PetscCall(VIH5HasAttr(file, ".", "format", &has));
  PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s is not a vicms ROM file (it has no format attribute)", path);
  PetscCall(VIH5ReadAttrStringAlloc(file, ".", "format", &str));
  PetscCall(PetscStrncpy(value, str, sizeof(value)));
  PetscCall(PetscFree(str));
  PetscCall(PetscStrcmp(value, "vicms-rom", &found));
  PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s is not a vicms ROM file (format attribute '%s')", path, value);
  PetscCall(VIH5HasAttr(file, ".", "version", &has));
  PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: the ROM file has no version attribute", path);
  PetscCall(VIH5ReadAttrStringAlloc(file, ".", "version", &rom->version));
  PetscCall(VIROMCheckVersion(path, rom->version));

  PetscCall(VIH5ReadAttrStringAlloc(file, ".", "method", &str));
  PetscCall(PetscStrncpy(value, str, sizeof(value)));
  PetscCall(PetscFree(str));
  for (method = 0, found = PETSC_FALSE; method < VI_ROM_NUM_METHODS && !found; method++) PetscCall(PetscStrcmp(value, VIROMMethods[method], &found));
  method--;
  PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: attribute method is '%s', expected cb, cb_massless, macneal, rubin (reductions) or user, user_massless (a user's own matrices)",
             path, value);
  PetscCall(VIH5HasAttr(file, ".", "massless", &has));
  PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: the ROM file has no massless attribute (0 or 1; 1 for %s)", path,
             VIROMMethodIsUser((VICMSType)method) ? "method user_massless" : "cb_massless and macneal");
  PetscCall(VIH5ReadAttrInt(file, ".", "massless", &massless));
  PetscCheck(massless == (VIROMMethodIsMassless((VICMSType)method) ? 1 : 0), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: attribute massless is %" PetscInt_FMT ", but method %s has %s (massless = %d)", path, massless, value,
             VIROMMethodIsMassless((VICMSType)method) ? "a massless boundary" : "a boundary with mass",
             VIROMMethodIsMassless((VICMSType)method) ? 1 : 0);
  PetscCall(VIH5ReadAttrInt(file, ".", "n_boundary", &nb));
  PetscCall(VIH5ReadAttrInt(file, ".", "n_modes", &nm));
  PetscCheck(nb >= 0 && nm >= 0 && (nb > 0 || nm > 0), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: n_boundary = %" PetscInt_FMT " and n_modes = %" PetscInt_FMT ", expected nonnegative numbers, not both 0", path, nb, nm);
  PetscCall(VIROMCheckSizeFits(rom, path, nb, nm));
  PetscCall(VIH5HasAttr(file, ".", "units", &has));
  if (has) {
    PetscCall(PetscFree(rom->units));
    PetscCall(VIH5ReadAttrStringAlloc(file, ".", "units", &rom->units));
    if (!rom->units) PetscCall(PetscStrallocpy("", &rom->units));
  }
  PetscCall(VIH5HasAttr(file, ".", "reduction", &has));
  if (has) PetscCall(VIH5ReadAttrStringAlloc(file, ".", "reduction", &rom->reduction));
  rom->method = (VICMSType)method;
  rom->nb     = nb;
  rom->nm     = nm;
  rom->n      = nb + nm;

  PetscCall(VIROMReadReal(file, path, "K", rom->n, rom->n, &rom->K));
  PetscCall(VIROMReadReal(file, path, "M", rom->n, rom->n, &rom->M));
  PetscCall(VIROMReadReal(file, path, "D", rom->n, rom->n, &rom->D));
  PetscCall(VIH5Exists(file, "frequencies_hz", &has));
  if (has || !VIROMMethodIsUser(rom->method))
    PetscCall(VIROMReadReal(file, path, "frequencies_hz", nm, 0, &rom->freq_hz));
  else {
    /* a user's matrices have no component modes: frequencies_hz is optional, 0 (unknown) when not given */
    PetscCall(PetscFree(rom->freq_hz));
    PetscCall(PetscCalloc1(PetscMax(nm, 1), &rom->freq_hz));
  }
  if (VIROMMethodIsUser(rom->method))
    PetscCall(VIROMReadUserContacts(rom, file, path));
  else
    PetscCall(VIROMReadContacts(rom, file, path));
  PetscCall(VIROMReadVectors(rom, file, path, "loads", VIROMAddLoad));
  PetscCall(VIROMReadVectors(rom, file, path, "shapes", VIROMAddShape));
  PetscCall(VIROMReadVectors(rom, file, path, "outputs", VIROMAddOutput));
  PetscCall(VIROMReadFrame(rom, file, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMReadFile(VIROM rom, const char path[])
{
  hid_t          file = -1;
  PetscBool      exists;
  PetscErrorCode ierr;
  char           shown[300];

  PetscFunctionBeginUser;
  PetscCall(VIMessagePath(path, shown, sizeof(shown)));
  PetscCall(PetscTestFile(path, 'r', &exists));
  PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read the ROM file %s (no such file, or not readable)", shown);
  PetscCall(VIH5Open(path, &file));
  ierr = VIROMReadContents(rom, file, shown);
  PetscCall(VIH5Close(&file));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ broadcast */

/* MPI counts are int: large arrays go in pieces. */
static PetscErrorCode VIBcastReal(MPI_Comm comm, PetscMPIInt root, PetscReal *a, PetscInt count)
{
  const PetscInt chunk = 1 << 28;

  PetscFunctionBeginUser;
  for (PetscInt start = 0; start < count; start += chunk)
    PetscCallMPI(MPI_Bcast(a + start, (int)PetscMin(chunk, count - start), MPIU_REAL, root, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIBcastString(MPI_Comm comm, PetscMPIInt rank, PetscMPIInt root, char **s)
{
  PetscInt len = 0;

  PetscFunctionBeginUser;
  if (rank == root) {
    size_t l = 0;
    if (*s) PetscCall(PetscStrlen(*s, &l));
    len = *s ? (PetscInt)l + 1 : 0; /* 0: NULL */
  }
  PetscCallMPI(MPI_Bcast(&len, 1, MPIU_INT, root, comm));
  if (rank != root) {
    PetscCall(PetscFree(*s));
    if (len) PetscCall(PetscMalloc1(len, s));
  }
  if (len) PetscCallMPI(MPI_Bcast(*s, (int)len, MPI_CHAR, root, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMBcastVectors(VIROM rom, PetscMPIInt rank, PetscMPIInt root, VIROMVectors *v,
                                        PetscErrorCode (*add)(VIROM, const char[], const PetscReal[]))
{
  PetscInt   num = v->num;
  PetscReal *f;
  char      *name = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Bcast(&num, 1, MPIU_INT, root, rom->comm));
  PetscCall(PetscMalloc1(rom->n, &f));
  for (PetscInt k = 0; k < num; k++) {
    if (rank == root) {
      name = v->names[k];
      PetscCall(PetscArraycpy(f, v->values[k], rom->n));
    }
    PetscCall(VIBcastString(rom->comm, rank, root, &name));
    PetscCall(VIBcastReal(rom->comm, root, f, rom->n));
    if (rank != root) {
      PetscCall(add(rom, name, f));
      PetscCall(PetscFree(name));
    }
  }
  PetscCall(PetscFree(f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMBcast(VIROM rom, PetscMPIInt root)
{
  PetscMPIInt rank;
  PetscInt    head[4] = {(PetscInt)rom->method, rom->nb, rom->nm, rom->num_contacts};

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(rom->comm, &rank));
  PetscCallMPI(MPI_Bcast(head, 4, MPIU_INT, root, rom->comm));
  if (rank != root) {
    PetscCall(VIROMSetSizes(rom, (VICMSType)head[0], head[1], head[2]));
    PetscCall(PetscFree(rom->contacts));
    PetscCall(PetscCalloc1(PetscMax(head[3], 1), &rom->contacts));
    rom->num_contacts = head[3];
  }
  PetscCall(VIBcastReal(rom->comm, root, rom->K, rom->n * rom->n));
  PetscCall(VIBcastReal(rom->comm, root, rom->M, rom->n * rom->n));
  PetscCall(VIBcastReal(rom->comm, root, rom->D, rom->n * rom->n));
  PetscCall(VIBcastReal(rom->comm, root, rom->freq_hz, rom->nm));
  /* replicated on one machine type: the struct goes as bytes */
  if (rom->num_contacts) PetscCallMPI(MPI_Bcast(rom->contacts, (int)(rom->num_contacts * sizeof(VIContactInfo)), MPI_BYTE, root, rom->comm));
  PetscCall(VIROMBcastVectors(rom, rank, root, &rom->loads, VIROMAddLoad));
  PetscCall(VIROMBcastVectors(rom, rank, root, &rom->shapes, VIROMAddShape));
  PetscCall(VIROMBcastVectors(rom, rank, root, &rom->outputs, VIROMAddOutput));
  PetscCall(VIROMBcastFrame(rom, root));
  PetscCall(VIBcastString(rom->comm, rank, root, &rom->units));
  PetscCall(VIBcastString(rom->comm, rank, root, &rom->version));
  PetscCall(VIBcastString(rom->comm, rank, root, &rom->reduction));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMLoad(VIROM rom, const char path[])
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCall(VIROMReset(rom));
  PetscCallMPI(MPI_Comm_rank(rom->comm, &rank));
  PetscCall(VIMemoryAvailable(rom->comm, &rom->mem_per_rank, &rom->mem_node, &rom->ranks_on_node));
  if (rank == 0) ierr = VIROMReadFile(rom, path);
  ierr = VIErrorSync(rom->comm, ierr);
  if (ierr) {
    /* leave an empty ROM behind, not a half-read one */
    PetscCall(VIROMReset(rom));
    PetscCall(ierr);
  }
  PetscCall(VIROMBcast(rom, 0));
  PetscCall(PetscStrallocpy(path, &rom->source));
  {
    char shown[300];
    PetscCall(VIMessagePath(path, shown, sizeof(shown)));
    PetscCall(VIROMValidateWithCode(rom, shown, PETSC_ERR_FILE_UNEXPECTED));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ description */

/* Smallest and largest eigenvalue of the symmetric part of A (LAPACK, A untouched). */
static PetscErrorCode VIROMEigenRange(PetscInt n, const PetscReal A[], PetscReal *lmin, PetscReal *lmax)
{
  PetscReal   *S, *w, *work, wsize;
  PetscBLASInt bn, lwork = -1, info;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscMalloc2(n * n, &S, n, &w));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) S[i * n + j] = 0.5 * (A[i * n + j] + A[j * n + i]);
  PetscCallBLAS("LAPACKsyev", LAPACKsyev_("N", "U", &bn, S, &bn, w, &wsize, &lwork, &info));
  PetscCall(PetscBLASIntCast((PetscInt)wsize, &lwork));
  PetscCall(PetscMalloc1(lwork, &work));
  PetscCallBLAS("LAPACKsyev", LAPACKsyev_("N", "U", &bn, S, &bn, w, work, &lwork, &info));
  PetscCall(PetscFree(work));
  *lmin = info == 0 ? w[0] : PETSC_MAX_REAL;
  *lmax = info == 0 ? w[n - 1] : PETSC_MAX_REAL;
  PetscCall(PetscFree2(S, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMViewMatrix(VIROM rom, PetscViewer viewer, PetscMPIInt rank, const char name[], const PetscReal A[])
{
  const PetscInt n    = rom->n;
  PetscReal      amax = 0, asym = 0, lmin = 0, lmax = 0;
  PetscBool      eigen = (n <= 1000) ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBeginUser;
  if (rank == 0) {
    for (PetscInt i = 0; i < n * n; i++) amax = PetscMax(amax, PetscAbsReal(A[i]));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = i + 1; j < n; j++) asym = PetscMax(asym, PetscAbsReal(A[i * n + j] - A[j * n + i]));
    if (eigen && amax > 0) PetscCall(VIROMEigenRange(n, A, &lmin, &lmax));
  }
  if (amax == 0)
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s: zero\n", name));
  else {
    char sym[96], range[96] = "";
    if (asym <= 1e-10 * amax)
      PetscCall(PetscSNPrintf(sym, sizeof(sym), "symmetric"));
    else
      PetscCall(PetscSNPrintf(sym, sizeof(sym), "NOT symmetric (max|A - A^T| = %.3g max|A|)", (double)(asym / amax)));
    if (eigen && lmax != PETSC_MAX_REAL) PetscCall(PetscSNPrintf(range, sizeof(range), ", eigenvalues in [%.6g, %.6g]", (double)lmin, (double)lmax));
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s: %s, max|%s_ij| = %.6g%s\n", name, sym, name, (double)amax, range));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIROMViewNames(PetscViewer viewer, const char title[], VIROMVectors *v)
{
  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s:", title));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  if (!v->num) PetscCall(PetscViewerASCIIPrintf(viewer, " none"));
  for (PetscInt k = 0; k < v->num; k++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s %s", k ? "," : "", v->names[k]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMView(VIROM rom, PetscViewer viewer)
{
  static const char *const method_names[] = {"Craig-Bampton", "massless Craig-Bampton", "MacNeal", "Rubin", "user matrices", "user matrices"};
  static const char *const dim_words[]    = {"", "1D: normal only", "2D: normal + 1 tangent", "3D: normal + 2 tangents"};
  const PetscInt           max_freq = 10, max_contacts = 20;
  PetscBool                ascii;
  PetscMPIInt              rank;
  PetscInt                 count[4] = {0, 0, 0, 0};

  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(rom->comm, &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(rom->comm, &rank));
  if (rom->n == 0) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "ROM: empty\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "ROM %s: %s (%s), %" PetscInt_FMT " boundary coordinates + %" PetscInt_FMT " modes = %" PetscInt_FMT "\n",
                                   rom->source ? rom->source : "(in memory)", method_names[rom->method],
                                   VIROMMethodIsMassless(rom->method) ? "massless boundary" : "boundary with mass", rom->nb, rom->nm, rom->n));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (rom->version) PetscCall(PetscViewerASCIIPrintf(viewer, "written by vicms %s\n", rom->version));
  PetscCall(PetscViewerASCIIPrintf(viewer, "units: %s\n", rom->units[0] ? rom->units : "not given"));

  if (VIROMMethodIsUser(rom->method))
    PetscCall(PetscViewerASCIIPrintf(viewer, "other coordinates (user, frequencies as given, 0 = not given):"));
  else
    PetscCall(PetscViewerASCIIPrintf(
        viewer, "component modes (%s-interface):", (rom->method == VI_CMS_CB || rom->method == VI_CMS_CB_MASSLESS) ? "fixed" : "free"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  if (!rom->nm) PetscCall(PetscViewerASCIIPrintf(viewer, " none"));
  for (PetscInt k = 0; k < PetscMin(rom->nm, max_freq); k++)
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s %.6g", k ? "," : "", (double)rom->freq_hz[k]));
  if (rom->nm) PetscCall(PetscViewerASCIIPrintf(viewer, " Hz"));
  if (rom->nm > max_freq) PetscCall(PetscViewerASCIIPrintf(viewer, " ... %" PetscInt_FMT " in all", rom->nm));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));

  for (PetscInt c = 0; c < rom->num_contacts; c++)
    if (rom->contacts[c].dim >= 1 && rom->contacts[c].dim <= 3) count[rom->contacts[c].dim]++;
  if (!rom->num_contacts)
    PetscCall(PetscViewerASCIIPrintf(viewer, "contacts: none\n"));
  else {
    PetscInt d_all = 0;
    for (PetscInt d = 1; d <= 3; d++)
      if (count[d] == rom->num_contacts) d_all = d;
    if (d_all)
      PetscCall(PetscViewerASCIIPrintf(viewer, "contacts: %" PetscInt_FMT " (%s)\n", rom->num_contacts, dim_words[d_all]));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "contacts: %" PetscInt_FMT " (%" PetscInt_FMT " 1D, %" PetscInt_FMT " 2D, %" PetscInt_FMT " 3D)\n",
                                       rom->num_contacts, count[1], count[2], count[3]));
  }
  {
    PetscInt nbil = 0;
    for (PetscInt c = 0; c < rom->num_contacts; c++) nbil += rom->contacts[c].kind == VI_CONTACT_BILATERAL;
    if (nbil)
      PetscCall(PetscViewerASCIIPrintf(
          viewer, "bilateral rows: %" PetscInt_FMT " (B q = 0 held at every instant: free-sign multiplier, no friction)\n", nbil));
  }
  PetscCall(PetscViewerASCIIPushTab(viewer));
  for (PetscInt c = 0; c < PetscMin(rom->num_contacts, max_contacts); c++) {
    const VIContactInfo *ci = &rom->contacts[c];
    if (ci->kind == VI_CONTACT_BILATERAL) {
      PetscCall(
          PetscViewerASCIIPrintf(viewer, "node %" PetscInt_FMT ": bilateral row, coordinate %" PetscInt_FMT " held at 0\n", ci->node_id, ci->offset));
      continue;
    }
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "node %" PetscInt_FMT " at (%.6g, %.6g, %.6g), %" PetscInt_FMT
                                     "D, normal (%.4g, %.4g, %.4g), area %.6g, coordinates %" PetscInt_FMT "..%" PetscInt_FMT "\n",
                                     ci->node_id, (double)ci->coords[0], (double)ci->coords[1], (double)ci->coords[2], ci->dim, (double)ci->frame[0],
                                     (double)ci->frame[1], (double)ci->frame[2], (double)ci->area, ci->offset, ci->offset + ci->dim - 1));
  }
  if (rom->num_contacts > max_contacts) PetscCall(PetscViewerASCIIPrintf(viewer, "... %" PetscInt_FMT " in all\n", rom->num_contacts));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscCall(VIROMViewNames(viewer, "loads", &rom->loads));
  PetscCall(VIROMViewNames(viewer, "shapes", &rom->shapes));
  PetscCall(VIROMViewNames(viewer, "outputs", &rom->outputs));
  PetscCall(VIROMViewFrame(rom, viewer));
  PetscCall(VIROMViewMatrix(rom, viewer, rank, "K", rom->K));
  PetscCall(VIROMViewMatrix(rom, viewer, rank, "M", rom->M));
  PetscCall(VIROMViewMatrix(rom, viewer, rank, "D", rom->D));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}
