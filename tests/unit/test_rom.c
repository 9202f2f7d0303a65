/* Unit test of VIROM and rom.h5: write and load bit for bit, the file's attributes, its description, and every check of
   VIROMValidate/VIROMLoad failing cleanly on every rank. */
#include <vicms.h>
#include <vicms/rom.h>
#include <slepcsys.h>
#include <math.h>

static const char help[] = "Unit test of the ROM object and its HDF5 file\n";

#define NB 4
#define NM 3
#define N  (NB + NM)

static char Captured[4096];

/* Keeps the first message of the error where it arose, and returns the error like PetscReturnErrorHandler. */
static PetscErrorCode CaptureError(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess,
                                   void *ctx)
{
  (void)comm;
  (void)line;
  (void)func;
  (void)file;
  (void)ctx;
  if (p == PETSC_ERROR_INITIAL && !Captured[0]) snprintf(Captured, sizeof(Captured), "%s", mess ? mess : "");
  return n;
}

static PetscErrorCode Join(char out[], const char dir[], const char name[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(out, PETSC_MAX_PATH_LEN, "%s/%s", dir, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A random symmetric n x n matrix; the same on every rank (same seed). */
static PetscErrorCode RandomSymmetric(PetscRandom rnd, PetscInt n, PetscInt first, PetscReal A[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = first; i < n; i++) {
    for (PetscInt j = i; j < n; j++) {
      PetscReal v;
      PetscCall(PetscRandomGetValueReal(rnd, &v));
      A[i * n + j] = A[j * n + i] = v + (i == j ? n : 0);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  nb = 4 boundary coordinates from a 1-D contact (node 17) and a 3-D contact (node 42) in a rotated frame, nm = 3 modes,
  random symmetric K and D, M zero on the boundary rows and columns when the method is massless; two loads, one output.
*/
static PetscErrorCode BuildROM(MPI_Comm comm, VICMSType method, VIROM *rom)
{
  PetscRandom   rnd;
  PetscReal    *K, *M, *D, *freq, f[N], o[N];
  PetscBool     massless;
  const double  c = PetscCosReal(0.3), s = PetscSinReal(0.3);
  VIContactInfo contacts[2] = {
      {17, 1, 0, {0, 0, 1, 1, 0, 0, 0, 1, 0}, {1.5, -2.0, 0.25}, 0.5, VI_CONTACT_UNILATERAL},
      {42, 3, 1, {c, s, 0, -s, c, 0, 0, 0, 1}, {10.0, 3.0, -1.0}, 2.0, VI_CONTACT_UNILATERAL},
  };

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 20240601));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VIROMCreate(comm, rom));
  PetscCall(VIROMSetSizes(*rom, method, NB, NM));
  PetscCall(VIROMGetMethod(*rom, NULL, &massless));
  PetscCall(VIROMGetMatrices(*rom, &K, &M, &D));
  PetscCall(RandomSymmetric(rnd, N, 0, K));
  PetscCall(RandomSymmetric(rnd, N, 0, D));
  PetscCall(RandomSymmetric(rnd, N, massless ? NB : 0, M));
  PetscCall(VIROMGetFrequencies(*rom, &freq));
  freq[0] = 1.5;
  freq[1] = 10.25;
  freq[2] = 123.0;
  PetscCall(VIROMSetContacts(*rom, 2, contacts));
  for (PetscInt i = 0; i < N; i++) PetscCall(PetscRandomGetValueReal(rnd, &f[i]));
  PetscCall(VIROMAddLoad(*rom, "tip", f)); /* not in name order: the file keeps the order of addition */
  for (PetscInt i = 0; i < N; i++) f[i] = -9.81 * (i + 1);
  PetscCall(VIROMAddLoad(*rom, "gravity", f));
  for (PetscInt i = 0; i < N; i++) o[i] = i == 2 ? 1.0 : 0.1 * i;
  PetscCall(VIROMAddOutput(*rom, "n1353_y", o));
  PetscCall(VIROMSetUnits(*rom, "N-mm-t-s"));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SameBits(const char what[], PetscInt n, const PetscReal a[], const PetscReal b[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++)
    PetscCheck(!memcmp(&a[i], &b[i], sizeof(PetscReal)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s[%" PetscInt_FMT "]: %.17g written, %.17g loaded", what,
               i, (double)a[i], (double)b[i]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every array, name and number of b is the one of a, bit for bit. Local. */
static PetscErrorCode CompareROMs(VIROM a, VIROM b)
{
  PetscInt             nba, nma, nbb, nmb, nca, ncb, la, lb, oa, ob;
  VICMSType            ma, mb;
  PetscBool            sa, sb, same;
  PetscReal           *Ka, *Ma, *Da, *Kb, *Mb, *Db, *fa, *fb;
  const VIContactInfo *ca, *cb;
  const char          *ua, *ub, *na, *nb;
  const PetscReal     *va, *vb;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetSizes(a, &nba, &nma));
  PetscCall(VIROMGetSizes(b, &nbb, &nmb));
  PetscCheck(nba == nbb && nma == nmb, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "sizes %" PetscInt_FMT "+%" PetscInt_FMT " written, %" PetscInt_FMT "+%" PetscInt_FMT " loaded", nba, nma, nbb, nmb);
  PetscCall(VIROMGetMethod(a, &ma, &sa));
  PetscCall(VIROMGetMethod(b, &mb, &sb));
  PetscCheck(ma == mb && sa == sb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "method %s written, %s loaded", VICMSTypes[ma], VICMSTypes[mb]);
  PetscCall(VIROMGetMatrices(a, &Ka, &Ma, &Da));
  PetscCall(VIROMGetMatrices(b, &Kb, &Mb, &Db));
  PetscCall(SameBits("K", (nba + nma) * (nba + nma), Ka, Kb));
  PetscCall(SameBits("M", (nba + nma) * (nba + nma), Ma, Mb));
  PetscCall(SameBits("D", (nba + nma) * (nba + nma), Da, Db));
  PetscCall(VIROMGetFrequencies(a, &fa));
  PetscCall(VIROMGetFrequencies(b, &fb));
  PetscCall(SameBits("frequencies_hz", nma, fa, fb));
  PetscCall(VIROMGetContacts(a, &nca, &ca));
  PetscCall(VIROMGetContacts(b, &ncb, &cb));
  PetscCheck(nca == ncb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " contacts written, %" PetscInt_FMT " loaded", nca, ncb);
  for (PetscInt c = 0; c < nca; c++) {
    PetscCheck(ca[c].node_id == cb[c].node_id && ca[c].dim == cb[c].dim && ca[c].offset == cb[c].offset, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "contact %" PetscInt_FMT ": node/dim/offset differ", c);
    PetscCall(SameBits("contact frame", 9, ca[c].frame, cb[c].frame));
    PetscCall(SameBits("contact coords", 3, ca[c].coords, cb[c].coords));
    PetscCall(SameBits("contact area", 1, &ca[c].area, &cb[c].area));
  }
  PetscCall(VIROMGetUnits(a, &ua));
  PetscCall(VIROMGetUnits(b, &ub));
  PetscCall(PetscStrcmp(ua, ub, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "units '%s' written, '%s' loaded", ua, ub);
  PetscCall(VIROMGetNumLoads(a, &la));
  PetscCall(VIROMGetNumLoads(b, &lb));
  PetscCheck(la == lb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " loads written, %" PetscInt_FMT " loaded", la, lb);
  for (PetscInt k = 0; k < la; k++) {
    PetscCall(VIROMGetLoad(a, k, &na, &va));
    PetscCall(VIROMGetLoad(b, k, &nb, &vb));
    PetscCall(PetscStrcmp(na, nb, &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "load %" PetscInt_FMT ": '%s' written, '%s' loaded (order of addition lost?)", k, na, nb);
    PetscCall(SameBits(na, nba + nma, va, vb));
  }
  PetscCall(VIROMGetNumOutputs(a, &oa));
  PetscCall(VIROMGetNumOutputs(b, &ob));
  PetscCheck(oa == ob, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " outputs written, %" PetscInt_FMT " loaded", oa, ob);
  for (PetscInt k = 0; k < oa; k++) {
    PetscCall(VIROMGetOutput(a, k, &na, &va));
    PetscCall(VIROMGetOutput(b, k, &nb, &vb));
    PetscCall(PetscStrcmp(na, nb, &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "output %" PetscInt_FMT ": '%s' written, '%s' loaded", k, na, nb);
    PetscCall(SameBits(na, nba + nma, va, vb));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExpectAttrString(hid_t file, const char name[], const char expected[])
{
  char     *value;
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", name, &value));
  PetscCall(PetscStrcmp(value, expected, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "attribute %s is '%s', expected '%s'", name, value, expected);
  PetscCall(PetscFree(value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExpectAttrInt(hid_t file, const char name[], PetscInt expected)
{
  PetscInt value;

  PetscFunctionBeginUser;
  PetscCall(VIH5ReadAttrInt(file, "/", name, &value));
  PetscCheck(value == expected, PETSC_COMM_SELF, PETSC_ERR_PLIB, "attribute %s is %" PetscInt_FMT ", expected %" PetscInt_FMT, name, value, expected);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckFileOpen(hid_t file)
{
  PetscInt  rows, cols, n;
  char    **names;
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(ExpectAttrString(file, "format", "vicms-rom"));
  PetscCall(ExpectAttrString(file, "version", VICMS_VERSION));
  PetscCall(ExpectAttrString(file, "method", "macneal"));
  PetscCall(ExpectAttrString(file, "units", "N-mm-t-s"));
  PetscCall(ExpectAttrInt(file, "massless", 1));
  PetscCall(ExpectAttrInt(file, "n_boundary", NB));
  PetscCall(ExpectAttrInt(file, "n_modes", NM));
  PetscCall(VIH5GetShape(file, "/K", &rows, &cols));
  PetscCheck(rows == N && cols == N, PETSC_COMM_SELF, PETSC_ERR_PLIB, "K is %" PetscInt_FMT " x %" PetscInt_FMT, rows, cols);
  PetscCall(VIH5GetShape(file, "/frequencies_hz", &rows, &cols));
  PetscCheck(rows == NM && cols == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "frequencies_hz is %" PetscInt_FMT " x %" PetscInt_FMT, rows, cols);
  PetscCall(VIH5GetShape(file, "/contact/frames", &rows, &cols));
  PetscCheck(rows == 2 && cols == 9, PETSC_COMM_SELF, PETSC_ERR_PLIB, "contact/frames is %" PetscInt_FMT " x %" PetscInt_FMT, rows, cols);
  PetscCall(VIH5ListGroup(file, "/loads", &n, &names));
  PetscCheck(n == 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "loads/ has %" PetscInt_FMT " members, expected 2", n);
  PetscCall(PetscStrcmp(names[0], "tip", &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "loads/ lists '%s' first, expected 'tip' (order of addition)", names[0]);
  PetscCall(PetscStrArrayDestroy(&names));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The attributes and shapes of DESIGN.md, read back with the VIH5 helpers on rank 0. */
static PetscErrorCode CheckFile(const char path[])
{
  hid_t          file;
  PetscErrorCode ierr;
  PetscBool      part;
  char           tmp[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.part", path));
  PetscCall(PetscTestFile(tmp, 'r', &part));
  PetscCheck(!part, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s is left behind", tmp);
  PetscCall(VIH5Open(path, &file));
  ierr = CheckFileOpen(file);
  PetscCall(VIH5Close(&file));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VIROMView to a file, then rank 0 looks for each expected line fragment. */
static PetscErrorCode CheckView(MPI_Comm comm, VIROM rom, const char path[])
{
  const char *expect[] = {"MacNeal (massless boundary), 4 boundary coordinates + 3 modes = 7",
                          "units: N-mm-t-s",
                          "component modes (free-interface): 1.5, 10.25, 123 Hz",
                          "contacts: 2 (1 1D, 0 2D, 1 3D)",
                          "node 42 at (10, 3, -1), 3D, normal (0.9553, 0.2955, 0), area 2,",
                          "loads: tip, gravity",
                          "outputs: n1353_y",
                          "K: symmetric",
                          "M: symmetric"};
  PetscViewer viewer;
  PetscMPIInt rank;
  char        text[8192] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIOpen(comm, path, &viewer));
  PetscCall(VIROMView(rom, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(VIROMView(rom, NULL));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    FILE  *fp = fopen(path, "r");
    size_t len;
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot read %s", path);
    len       = fread(text, 1, sizeof(text) - 1, fp);
    text[len] = 0;
    fclose(fp);
  }
  PetscCallMPI(MPI_Bcast(text, sizeof(text), MPI_CHAR, 0, comm));
  for (size_t k = 0; k < sizeof(expect) / sizeof(expect[0]); k++)
    PetscCheck(strstr(text, expect[k]), comm, PETSC_ERR_PLIB, "VIROMView does not say '%s':\n%s", expect[k], text);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* err on every rank; on rank 0 (where the file is read, and the first rank to find a problem) the code and the words. */
static PetscErrorCode ExpectFailure(MPI_Comm comm, const char test[], PetscErrorCode err, PetscErrorCode code, const char *w1, const char *w2)
{
  PetscMPIInt rank;
  int         ok, all;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  ok = err != 0;
  if (rank == 0) ok = ok && err == code && strstr(Captured, w1) && (!w2 || strstr(Captured, w2));
  PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
  PetscCheck(all, comm, PETSC_ERR_PLIB, "%s: expected error %d naming '%s'%s%s on every rank; rank 0 got %d: %s", test, (int)code, w1,
             w2 ? " and " : "", w2 ? w2 : "", (int)err, Captured);
  PetscCall(PetscPrintf(comm, "  %-22s rejected: %s\n", test, Captured));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExpectLoadFailure(MPI_Comm comm, const char test[], const char path[], PetscErrorCode code, const char *w1, const char *w2)
{
  VIROM          rom;
  PetscErrorCode err;

  PetscFunctionBeginUser;
  PetscCall(VIROMCreate(comm, &rom));
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  err = VIROMLoad(rom, path);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectFailure(comm, test, err, code, w1, w2));
  PetscCall(VIROMDestroy(&rom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExpectValidateFailure(VIROM rom, MPI_Comm comm, const char test[], const char *w1, const char *w2)
{
  PetscErrorCode err;

  PetscFunctionBeginUser;
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  err = VIROMValidate(rom, "test ROM");
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectFailure(comm, test, err, PETSC_ERR_ARG_WRONG, w1, w2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Write a good ROM, change one entry (one pair, to stay symmetric when asked), write it under name, expect the load to fail. */
static PetscErrorCode ExpectBadEntry(MPI_Comm comm, const char dir[], const char name[], char matrix, PetscInt i, PetscInt j, PetscReal value,
                                     PetscBool pair, const char *w1, const char *w2)
{
  VIROM      rom;
  PetscReal *K, *M, *D, *A;
  char       path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(BuildROM(comm, VI_CMS_MACNEAL, &rom));
  PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
  A            = matrix == 'K' ? K : (matrix == 'M' ? M : D);
  A[i * N + j] = value;
  if (pair) A[j * N + i] = value;
  PetscCall(Join(path, dir, name));
  PetscCall(VIROMWrite(rom, path)); /* writing does not validate: the reader must catch it */
  PetscCall(VIROMDestroy(&rom));
  PetscCall(ExpectLoadFailure(comm, name, path, PETSC_ERR_FILE_UNEXPECTED, w1, w2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef enum {
  RAW_SHAPE_K,
  RAW_SHAPE_FREQ,
  RAW_MODES,
  RAW_NO_FORMAT,
  RAW_METHOD,
  RAW_MASSLESS,
  RAW_NO_VERSION,
  RAW_LOAD_SHAPE,
  RAW_NEWER_VERSION, /* 0.1.0 is this vicms: 0.2.0 is newer */
  RAW_BAD_VERSION,
  RAW_OLDER_VERSION, /* 0.0.9: loads */
} RawKind;

static PetscErrorCode WriteRawOpen(hid_t file, RawKind kind)
{
  PetscReal zeros[N * N], freq[N] = {1, 2, 3, 4, 5, 6, 7};

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(zeros, N * N));
  for (PetscInt i = 0; i < N; i++) zeros[i * N + i] = 1; /* K = identity: symmetric, finite */
  if (kind != RAW_NO_FORMAT) PetscCall(VIH5WriteAttrString(file, "/", "format", kind == RAW_MODES ? "vicms-modes" : "vicms-rom"));
  if (kind != RAW_NO_VERSION)
    PetscCall(VIH5WriteAttrString(
        file, "/", "version",
        kind == RAW_NEWER_VERSION ? "0.2.0" : (kind == RAW_BAD_VERSION ? "1.x" : (kind == RAW_OLDER_VERSION ? "0.0.9" : VICMS_VERSION))));
  PetscCall(VIH5WriteAttrString(file, "/", "method", kind == RAW_METHOD ? "guyan" : "rubin"));
  PetscCall(VIH5WriteAttrInt(file, "/", "massless", kind == RAW_MASSLESS ? 1 : 0));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_boundary", 0));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_modes", N));
  PetscCall(VIH5WriteAttrString(file, "/", "units", ""));
  PetscCall(VIH5WriteReal(file, "/K", N, kind == RAW_SHAPE_K ? N - 1 : N, zeros));
  PetscCall(VIH5WriteReal(file, "/M", N, N, zeros));
  PetscCall(VIH5WriteReal(file, "/D", N, N, zeros));
  PetscCall(VIH5WriteReal(file, "/frequencies_hz", kind == RAW_SHAPE_FREQ ? NM : N, 0, freq));
  if (kind == RAW_LOAD_SHAPE) PetscCall(VIH5WriteReal(file, "/loads/gravity", N + 1, 0, zeros));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A ROM-like file written directly with the VIH5 helpers (rank 0), broken as kind says; without the break it loads. */
static PetscErrorCode WriteRaw(MPI_Comm comm, const char path[], RawKind kind)
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;
  hid_t          file;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    ierr = VIH5Create(path, &file);
    if (!ierr) {
      ierr = WriteRawOpen(file, kind);
      PetscCall(VIH5Close(&file));
    }
  }
  PetscCall(VIErrorSync(comm, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestRoundTrip(MPI_Comm comm, const char dir[])
{
  VIROM            a, b;
  char             path[PETSC_MAX_PATH_LEN], view[PETSC_MAX_PATH_LEN];
  PetscMPIInt      rank;
  PetscErrorCode   ierr = PETSC_SUCCESS, err;
  const PetscReal *f;
  PetscBool        found;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(Join(path, dir, "good.h5"));
  PetscCall(Join(view, dir, "view.txt"));
  PetscCall(BuildROM(comm, VI_CMS_MACNEAL, &a));
  PetscCall(VIROMValidate(a, "built ROM"));
  PetscCall(VIROMWrite(a, path));
  if (rank == 0) ierr = CheckFile(path);
  PetscCall(VIErrorSync(comm, ierr));
  PetscCall(VIROMCreate(comm, &b));
  PetscCall(VIROMLoad(b, path));
  PetscCall(CompareROMs(a, b));
  PetscCall(CheckView(comm, b, view));

  PetscCall(VIROMFindLoad(b, "gravity", &f, &found));
  PetscCheck(found && f[3] == -9.81 * 4, comm, PETSC_ERR_PLIB, "load gravity not found, or wrong");
  PetscCall(VIROMFindOutput(b, "n1353_x", &f, &found));
  PetscCheck(!found && !f, comm, PETSC_ERR_PLIB, "output n1353_x found in a ROM without it");
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  err = VIROMFindOutput(b, "n1353_x", &f, NULL);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(err && strstr(Captured, "n1353_x") && strstr(Captured, "n1353_y"), comm, PETSC_ERR_PLIB,
             "looking up a missing output without 'found' must fail and list the outputs; got %d: %s", (int)err, Captured);
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  err = VIROMAddLoad(b, "tip", f);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(err && strstr(Captured, "tip"), comm, PETSC_ERR_PLIB, "adding a second load 'tip' must fail; got %d: %s", (int)err, Captured);

  /* a failed load leaves an empty ROM, and the object can load again */
  PetscCall(Join(path, dir, "no_such_rom.h5"));
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  err = VIROMLoad(b, path);
  PetscCall(PetscPopErrorHandler());
  {
    PetscInt nb, nm;
    PetscCall(VIROMGetSizes(b, &nb, &nm));
    PetscCheck(err && nb == 0 && nm == 0, comm, PETSC_ERR_PLIB, "a failed load must leave an empty ROM");
  }
  PetscCall(Join(path, dir, "good.h5"));
  PetscCall(VIROMLoad(b, path));
  PetscCall(CompareROMs(a, b));
  PetscCall(VIROMDestroy(&b));
  PetscCall(VIROMDestroy(&a));

  /* boundary mass is fine where the method does not claim a massless boundary */
  PetscCall(BuildROM(comm, VI_CMS_RUBIN, &a));
  PetscCall(Join(path, dir, "rubin.h5"));
  PetscCall(VIROMWrite(a, path));
  PetscCall(VIROMCreate(comm, &b));
  PetscCall(VIROMLoad(b, path));
  PetscCall(CompareROMs(a, b));
  PetscCall(VIROMDestroy(&b));
  PetscCall(VIROMDestroy(&a));

  /* edge sizes: no component modes (an empty frequencies_hz), and no boundary (an empty contact group) */
  for (PetscInt edge = 0; edge < 2; edge++) {
    const PetscInt nb = edge ? 0 : NB, nm = edge ? NM : 0;
    PetscReal     *K, *M, *D;
    PetscCall(VIROMCreate(comm, &a));
    PetscCall(VIROMSetSizes(a, edge ? VI_CMS_RUBIN : VI_CMS_MACNEAL, nb, nm));
    PetscCall(VIROMGetMatrices(a, &K, &M, &D));
    for (PetscInt i = 0; i < nb + nm; i++) {
      K[i * (nb + nm) + i] = 1.0 + i;
      if (edge) M[i * (nb + nm) + i] = 0.5;
    }
    if (!edge) {
      VIContactInfo c = {7, 3, 0, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}, 1, VI_CONTACT_UNILATERAL};
      VIContactInfo d = {8, 1, 3, {0, 1, 0, 0, 0, 1, 1, 0, 0}, {1, 0, 0}, 1, VI_CONTACT_UNILATERAL};
      VIContactInfo cd[2];
      cd[0] = c;
      cd[1] = d;
      PetscCall(VIROMSetContacts(a, 2, cd));
    }
    PetscCall(Join(path, dir, edge ? "no_boundary.h5" : "no_modes.h5"));
    PetscCall(VIROMWrite(a, path));
    PetscCall(VIROMCreate(comm, &b));
    PetscCall(VIROMLoad(b, path));
    PetscCall(CompareROMs(a, b));
    PetscCall(VIROMDestroy(&b));
    PetscCall(VIROMDestroy(&a));
  }
  PetscCall(PetscPrintf(comm, "round trip: every array bit for bit, attributes and view as expected\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestBadFiles(MPI_Comm comm, const char dir[])
{
  char        path[PETSC_MAX_PATH_LEN];
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscPrintf(comm, "bad ROM files:\n"));
  PetscCall(ExpectBadEntry(comm, dir, "nonsymmetric.h5", 'K', 1, 5, 7.0, PETSC_FALSE, "nonsymmetric.h5: K is not symmetric", "K[1][5] = 7"));
  PetscCall(
      ExpectBadEntry(comm, dir, "nan.h5", 'D', 2, 3, (PetscReal)NAN, PETSC_TRUE, "nan.h5: dataset D, entry [2][3] (0-based) = NaN", "not a finite"));
  PetscCall(ExpectBadEntry(comm, dir, "inf.h5", 'K', 6, 6, (PetscReal)INFINITY, PETSC_FALSE, "inf.h5: dataset K, entry [6][6] (0-based) = Inf",
                           "not a finite"));
  PetscCall(ExpectBadEntry(comm, dir, "boundary_mass.h5", 'M', 0, 0, 1e-3, PETSC_FALSE, "boundary_mass.h5", "M[0][0] = 0.001"));
  PetscCall(ExpectBadEntry(comm, dir, "coupling_mass.h5", 'M', 1, 5, 1e-12, PETSC_TRUE, "coupling_mass.h5", "M[1][5]"));

  PetscCall(Join(path, dir, "shape_K.h5"));
  PetscCall(WriteRaw(comm, path, RAW_SHAPE_K));
  PetscCall(ExpectLoadFailure(comm, "shape_K.h5", path, PETSC_ERR_FILE_UNEXPECTED, "shape_K.h5: dataset K is 7 x 6, expected 7 x 7", NULL));
  PetscCall(Join(path, dir, "shape_freq.h5"));
  PetscCall(WriteRaw(comm, path, RAW_SHAPE_FREQ));
  PetscCall(ExpectLoadFailure(comm, "shape_freq.h5", path, PETSC_ERR_FILE_UNEXPECTED,
                              "dataset frequencies_hz is a vector of 3, expected a vector of 7", NULL));
  PetscCall(Join(path, dir, "shape_load.h5"));
  PetscCall(WriteRaw(comm, path, RAW_LOAD_SHAPE));
  PetscCall(ExpectLoadFailure(comm, "shape_load.h5", path, PETSC_ERR_FILE_UNEXPECTED,
                              "dataset loads/gravity is a vector of 8, expected a vector of 7", NULL));
  PetscCall(Join(path, dir, "modes.h5"));
  PetscCall(WriteRaw(comm, path, RAW_MODES));
  PetscCall(ExpectLoadFailure(comm, "modes.h5", path, PETSC_ERR_FILE_UNEXPECTED, "modes.h5 is not a vicms ROM file (format attribute 'vicms-modes')",
                              NULL));
  PetscCall(Join(path, dir, "no_format.h5"));
  PetscCall(WriteRaw(comm, path, RAW_NO_FORMAT));
  PetscCall(ExpectLoadFailure(comm, "no_format.h5", path, PETSC_ERR_FILE_UNEXPECTED, "no_format.h5 is not a vicms ROM file", "no format"));
  PetscCall(Join(path, dir, "no_version.h5"));
  PetscCall(WriteRaw(comm, path, RAW_NO_VERSION));
  PetscCall(ExpectLoadFailure(comm, "no_version.h5", path, PETSC_ERR_FILE_UNEXPECTED, "no_version.h5", "version"));
  /* the version is checked: newer or not a version is refused naming the file, the version found and the supported one; older loads */
  PetscCall(Join(path, dir, "newer.h5"));
  PetscCall(WriteRaw(comm, path, RAW_NEWER_VERSION));
  PetscCall(ExpectLoadFailure(comm, "newer.h5", path, PETSC_ERR_FILE_UNEXPECTED, "newer.h5: the ROM file has version 0.2.0, newer than this vicms",
                              "up to version " VICMS_VERSION));
  PetscCall(Join(path, dir, "bad_version.h5"));
  PetscCall(WriteRaw(comm, path, RAW_BAD_VERSION));
  PetscCall(ExpectLoadFailure(comm, "bad_version.h5", path, PETSC_ERR_FILE_UNEXPECTED, "bad_version.h5: the ROM file's version attribute is '1.x'",
                              "up to version " VICMS_VERSION));
  PetscCall(Join(path, dir, "older.h5"));
  PetscCall(WriteRaw(comm, path, RAW_OLDER_VERSION));
  {
    VIROM old;
    PetscCall(VIROMCreate(comm, &old));
    PetscCall(VIROMLoad(old, path));
    PetscCall(VIROMDestroy(&old));
  }
  /* an indefinite K is refused: K[6][6] = -100 against diagonal entries 7 +- 6 */
  PetscCall(ExpectBadEntry(comm, dir, "indefinite.h5", 'K', 6, 6, -100.0, PETSC_FALSE, "indefinite.h5: K is not positive semi-definite",
                           "smallest eigenvalue is -10"));
  PetscCall(Join(path, dir, "method.h5"));
  PetscCall(WriteRaw(comm, path, RAW_METHOD));
  PetscCall(ExpectLoadFailure(comm, "method.h5", path, PETSC_ERR_FILE_UNEXPECTED, "method.h5", "'guyan'"));
  PetscCall(Join(path, dir, "massless_attr.h5"));
  PetscCall(WriteRaw(comm, path, RAW_MASSLESS));
  PetscCall(ExpectLoadFailure(comm, "massless_attr.h5", path, PETSC_ERR_FILE_UNEXPECTED, "massless_attr.h5", "massless is 1"));

  PetscCall(Join(path, dir, "not_hdf5.h5"));
  if (rank == 0) {
    FILE *fp = fopen(path, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
    fprintf(fp, "this is not HDF5\n");
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(ExpectLoadFailure(comm, "not_hdf5.h5", path, PETSC_ERR_FILE_OPEN, "not_hdf5.h5", NULL));
  PetscCall(Join(path, dir, "missing.h5"));
  PetscCall(ExpectLoadFailure(comm, "missing.h5", path, PETSC_ERR_FILE_OPEN, "missing.h5", "no such file"));

  /* a raw file without the break loads (so the failures above come from the break alone) */
  {
    VIROM rom;
    PetscCall(Join(path, dir, "raw_good.h5"));
    PetscCall(WriteRaw(comm, path, (RawKind)-1));
    PetscCall(VIROMCreate(comm, &rom));
    PetscCall(VIROMLoad(rom, path));
    PetscCall(VIROMDestroy(&rom));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VIROMValidate on ROMs built in memory: contact table and frames. */
static PetscErrorCode TestBadContacts(MPI_Comm comm)
{
  VIROM                rom;
  const VIContactInfo *c;
  VIContactInfo        good[2], bad[2];
  PetscInt             nc;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "bad ROMs in memory:\n"));
  PetscCall(BuildROM(comm, VI_CMS_CB_MASSLESS, &rom));
  PetscCall(VIROMGetContacts(rom, &nc, &c));
  PetscCheck(nc == 2, comm, PETSC_ERR_PLIB, "expected 2 contacts");
  PetscCall(PetscArraycpy(good, c, 2)); /* c goes stale at the next VIROMSetContacts */
  PetscCall(PetscArraycpy(bad, good, 2));

  bad[1].offset = 2;
  PetscCall(VIROMSetContacts(rom, 2, bad));
  PetscCall(ExpectValidateFailure(rom, comm, "gap in offsets", "contact 1 (node 42) starts at coordinate 2, expected 1", NULL));
  bad[1].offset = 1;
  bad[1].dim    = 2;
  PetscCall(VIROMSetContacts(rom, 2, bad));
  PetscCall(ExpectValidateFailure(rom, comm, "dims do not sum to nb", "3 coordinates in all", "4 boundary"));
  bad[1].dim = 4;
  PetscCall(VIROMSetContacts(rom, 2, bad));
  PetscCall(ExpectValidateFailure(rom, comm, "dimension 4", "has dimension 4", NULL));
  bad[1].dim      = 3;
  bad[1].frame[4] = 1.0 + 1e-8;
  PetscCall(VIROMSetContacts(rom, 2, bad));
  PetscCall(ExpectValidateFailure(rom, comm, "frame not orthonormal", "frame of contact 1 (node 42) is not orthonormal", NULL));
  bad[1].frame[4] = good[1].frame[4] + 1e-13; /* within the tolerance 1e-10 */
  PetscCall(VIROMSetContacts(rom, 2, bad));
  PetscCall(VIROMValidate(rom, "frame within tolerance"));
  bad[1].frame[4] = good[1].frame[4] + 1e-9;
  PetscCall(VIROMSetContacts(rom, 2, bad));
  PetscCall(ExpectValidateFailure(rom, comm, "frame off by 1e-9", "frame of contact 1 (node 42) is not orthonormal", NULL));
  bad[1].frame[4] = good[1].frame[4];
  bad[0].area     = 0;
  PetscCall(VIROMSetContacts(rom, 2, bad));
  PetscCall(ExpectValidateFailure(rom, comm, "zero area", "contact 0 (node 17)", "area"));
  bad[0].area = 0.5;
  PetscCall(VIROMSetContacts(rom, 2, bad));
  PetscCall(VIROMValidate(rom, "repaired ROM"));
  {
    PetscReal *K, *M, *D, kmax = 0, k15;
    PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
    for (PetscInt i = 0; i < N * N; i++) kmax = PetscMax(kmax, PetscAbsReal(K[i]));
    k15 = K[1 * N + 5];
    K[1 * N + 5] += 0.5e-10 * kmax; /* relative asymmetry half the tolerance */
    PetscCall(VIROMValidate(rom, "K within tolerance"));
    K[1 * N + 5] = k15 + 2e-10 * kmax;
    PetscCall(ExpectValidateFailure(rom, comm, "K beyond tolerance", "K is not symmetric: K[1][5]", NULL));
    K[1 * N + 5] = k15;
    M[6 * N + 0] = M[0 * N + 6] = 1e-300; /* massless means exactly zero */
    PetscCall(ExpectValidateFailure(rom, comm, "tiny boundary mass", "M[0][6] = 1e-300", NULL));
    M[6 * N + 0] = M[0 * N + 6] = 0;
    PetscCall(VIROMValidate(rom, "repaired ROM"));
  }
  {
    /* K positive semi-definite: a zero eigenvalue (a rigid-body mode) passes, -0.5e-10 of the largest passes, -2e-10 is refused */
    PetscReal *K, *M, *D, Ksave[N * N];
    PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
    PetscCall(PetscArraycpy(Ksave, K, N * N));
    PetscCall(PetscArrayzero(K, N * N));
    for (PetscInt i = 1; i < N; i++) K[i * N + i] = 2.0 + i; /* largest eigenvalue 8 */
    PetscCall(VIROMValidate(rom, "K with a zero eigenvalue"));
    K[0] = -0.5e-10 * 8;
    PetscCall(VIROMValidate(rom, "K with an eigenvalue -0.5e-10 of the largest"));
    K[0] = -2e-10 * 8;
    PetscCall(ExpectValidateFailure(rom, comm, "K slightly indefinite", "K is not positive semi-definite: its smallest eigenvalue is -1.6e-09",
                                    "largest (8)"));
    PetscCall(PetscArraycpy(K, Ksave, N * N));
  }
  {
    PetscReal *freq;
    PetscCall(VIROMGetFrequencies(rom, &freq));
    freq[1] = -1;
    PetscCall(ExpectValidateFailure(rom, comm, "negative frequency", "frequencies_hz[1] = -1", NULL));
  }
  PetscCall(VIROMDestroy(&rom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The checks return PETSC_ERR_PLIB (77), which ctest would take for "skipped": any failure exits 1 instead. */
static PetscErrorCode RunTests(MPI_Comm comm, const char dir[])
{
  PetscFunctionBeginUser;
  PetscCall(TestRoundTrip(comm, dir));
  PetscCall(TestBadFiles(comm, dir));
  PetscCall(TestBadContacts(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char           dir[PETSC_MAX_PATH_LEN] = "/tmp/vicms_rom_XXXXXX";
  PetscMPIInt    rank;
  PetscErrorCode ierr;

  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  /* one folder for all ranks: rank 0 makes it, everyone uses its name */
  if (rank == 0) PetscCall(PetscMkdtemp(dir));
  PetscCallMPI(MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, PETSC_COMM_WORLD));
  ierr = RunTests(PETSC_COMM_WORLD, dir);
  if (ierr) {
    if (rank == 0) (void)PetscRMTree(dir);
    return 1;
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  if (rank == 0) PetscCall(PetscRMTree(dir));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_rom: all checks passed\n"));
  PetscCall(SlepcFinalize());
  return 0;
}
