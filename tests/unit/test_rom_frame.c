/* Unit test of the floating-frame invariants of a ROM (VIROMFrame, group /frame; docs/frame.md): the file round trip bit
   for bit on every rank, the refusal of a ROM without them by a reader that needs them (VIROMGetFrameInvariants: the file,
   the body and the option named, on every rank), and a damaged /frame refused on load. */
#include <vicms.h>
#include <vicms/rom.h>
#include <vicms/io.h>
#include <slepcsys.h>

static const char help[] = "Unit test of the floating-frame invariants of a ROM file\n";

#define NM  3
#define DIM 2

static char Captured[4096];

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

/* err on every rank, with code and the words w1, w2 (NULL: none) in the message on rank 0. */
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
  PetscCall(PetscPrintf(comm, "  %-26s rejected: %s\n", test, Captured));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A 0-boundary, NM-mode ROM (K = diag(1..NM), M = I) with, when with_frame, random invariants of the right symmetries. */
static PetscErrorCode BuildROM(MPI_Comm comm, PetscBool with_frame, VIROM *rom, VIROMFrame *frame)
{
  PetscReal *K, *M, *D;

  PetscFunctionBeginUser;
  PetscCall(VIROMCreate(comm, rom));
  PetscCall(VIROMSetSizes(*rom, VI_CMS_CB, 0, NM));
  PetscCall(VIROMGetMatrices(*rom, &K, &M, &D));
  for (PetscInt k = 0; k < NM; k++) {
    K[k * NM + k] = k + 1;
    M[k * NM + k] = 1;
  }
  PetscCall(VIROMSetUnits(*rom, "SI"));
  if (with_frame) {
    PetscRandom rnd;
    PetscReal   A[DIM * NM * DIM * NM];
    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    PetscCall(PetscRandomSetSeed(rnd, 7));
    PetscCall(PetscRandomSeed(rnd));
    frame->dim  = DIM;
    frame->n    = NM;
    frame->mass = 2.5;
    for (PetscInt i = 0; i < DIM; i++) PetscCall(PetscRandomGetValueReal(rnd, &frame->first_moment[i]));
    for (PetscInt i = 0; i < DIM; i++)
      for (PetscInt j = i; j < DIM; j++) {
        PetscCall(PetscRandomGetValueReal(rnd, &frame->second_moment[i * DIM + j]));
        frame->second_moment[j * DIM + i] = frame->second_moment[i * DIM + j];
      }
    for (PetscInt a = 0; a < DIM * NM; a++) PetscCall(PetscRandomGetValueReal(rnd, &frame->mode_moment[a]));
    for (PetscInt a = 0; a < DIM * DIM * NM; a++) PetscCall(PetscRandomGetValueReal(rnd, &frame->position_mode[a]));
    /* S_ij^kl = A[k*DIM+i][l*DIM+j], A symmetric: S_ij^kl = S_ji^lk */
    for (PetscInt a = 0; a < DIM * NM; a++)
      for (PetscInt b = a; b < DIM * NM; b++) {
        PetscCall(PetscRandomGetValueReal(rnd, &A[a * DIM * NM + b]));
        A[b * DIM * NM + a] = A[a * DIM * NM + b];
      }
    for (PetscInt i = 0; i < DIM; i++)
      for (PetscInt j = 0; j < DIM; j++)
        for (PetscInt k = 0; k < NM; k++)
          for (PetscInt l = 0; l < NM; l++) frame->mode_mode[((i * DIM + j) * NM + k) * NM + l] = A[(k * DIM + i) * DIM * NM + l * DIM + j];
    PetscCall(PetscRandomDestroy(&rnd));
    PetscCall(VIROMSetFrame(*rom, frame));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExpectSame(MPI_Comm comm, const char what[], PetscInt len, const PetscReal a[], const PetscReal b[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < len; i++)
    PetscCheck(a[i] == b[i], comm, PETSC_ERR_PLIB, "%s[%" PetscInt_FMT "]: read %.17g, wrote %.17g", what, i, (double)b[i], (double)a[i]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 changes the written file: dataset dset replaced by rows x cols of data. */
static PetscErrorCode Damage(MPI_Comm comm, const char path[], const char dset[], PetscInt rows, PetscInt cols, const PetscReal data[])
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    hid_t file;
    PetscCall(VIH5OpenWrite(path, &file));
    PetscCall(VIH5WriteReal(file, dset, rows, cols, data));
    PetscCall(VIH5Close(&file));
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ExpectLoadFailure(MPI_Comm comm, const char test[], const char path[], const char *w1, const char *w2)
{
  VIROM          rom;
  PetscErrorCode err;

  PetscFunctionBeginUser;
  PetscCall(VIROMCreate(comm, &rom));
  Captured[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  err = VIROMLoad(rom, path);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectFailure(comm, test, err, PETSC_ERR_FILE_UNEXPECTED, w1, w2));
  PetscCall(VIROMDestroy(&rom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunTests(MPI_Comm comm, const char dir[])
{
  char              with[PETSC_MAX_PATH_LEN], without[PETSC_MAX_PATH_LEN];
  VIROM             rom, back;
  VIROMFrame        frame;
  const VIROMFrame *got;
  PetscReal         mode_moment[DIM * NM], position_mode[DIM * DIM * NM], mode_mode[DIM * DIM * NM * NM];
  PetscBool         has;
  PetscErrorCode    err;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(with, sizeof(with), "%s/with_frame.h5", dir));
  PetscCall(PetscSNPrintf(without, sizeof(without), "%s/no_frame.h5", dir));
  frame.mode_moment   = mode_moment;
  frame.position_mode = position_mode;
  frame.mode_mode     = mode_mode;

  /* 1. round trip, every rank */
  PetscCall(BuildROM(comm, PETSC_TRUE, &rom, &frame));
  PetscCall(VIROMWrite(rom, with));
  PetscCall(VIROMCreate(comm, &back));
  PetscCall(VIROMLoad(back, with));
  PetscCall(VIROMGetFrameInvariants(back, "the test", &got));
  PetscCheck(got->dim == DIM && got->n == NM && got->mass == frame.mass, comm, PETSC_ERR_PLIB,
             "frame read back: dim %" PetscInt_FMT ", n %" PetscInt_FMT ", mass %g", got->dim, got->n, (double)got->mass);
  PetscCall(ExpectSame(comm, "first_moment", DIM, frame.first_moment, got->first_moment));
  PetscCall(ExpectSame(comm, "second_moment", DIM * DIM, frame.second_moment, got->second_moment));
  PetscCall(ExpectSame(comm, "mode_moment", DIM * NM, frame.mode_moment, got->mode_moment));
  PetscCall(ExpectSame(comm, "position_mode", DIM * DIM * NM, frame.position_mode, got->position_mode));
  PetscCall(ExpectSame(comm, "mode_mode", DIM * DIM * NM * NM, frame.mode_mode, got->mode_mode));
  PetscCall(VIROMView(back, NULL));
  PetscCall(PetscPrintf(comm, "  round trip of /frame: bit for bit on every rank\n"));
  PetscCall(VIROMDestroy(&back));

  /* 2. invariants of the wrong size refused when set */
  {
    VIROM other;
    PetscCall(VIROMCreate(comm, &other));
    PetscCall(VIROMSetSizes(other, VI_CMS_CB, 1, NM));
    Captured[0] = 0;
    PetscCall(PetscPushErrorHandler(CaptureError, NULL));
    err = VIROMSetFrame(other, &frame);
    PetscCall(PetscPopErrorHandler());
    PetscCall(ExpectFailure(comm, "set, wrong size", err, PETSC_ERR_ARG_WRONG, "for 3 ROM coordinates", "has 4"));
    PetscCall(VIROMDestroy(&other));
  }

  /* 3. a ROM without /frame, asked for as a flexible body */
  {
    VIROM plain;
    PetscCall(BuildROM(comm, PETSC_FALSE, &plain, NULL));
    PetscCall(VIROMWrite(plain, without));
    PetscCall(VIROMDestroy(&plain));
    PetscCall(VIROMCreate(comm, &back));
    PetscCall(VIROMLoad(back, without));
    PetscCall(VIROMHasFrame(back, &has));
    PetscCheck(!has, comm, PETSC_ERR_PLIB, "a ROM written without invariants has them after loading");
    Captured[0] = 0;
    PetscCall(PetscPushErrorHandler(CaptureError, NULL));
    err = VIROMGetFrameInvariants(back, "flexible body 'rod' (model.yaml line 7)", &got);
    PetscCall(PetscPopErrorHandler());
    PetscCall(ExpectFailure(comm, "no /frame", err, PETSC_ERR_USER_INPUT, "no_frame.h5 has no floating-frame inertia invariants",
                            "asked for by flexible body 'rod' (model.yaml line 7): make it again with `vicms reduce ... -cms_frame_invariants`"));
    PetscCall(VIROMDestroy(&back));
  }

  /* 4. damaged /frame refused on load, on every rank */
  {
    PetscReal three[3] = {1, 2, 3};
    PetscCall(VIROMWrite(rom, with));
    PetscCall(Damage(comm, with, "frame/mode_moment", 3, 0, three));
    PetscCall(ExpectLoadFailure(comm, "wrong shape", with, "frame/mode_moment is 3 x 0, expected 2 x 3", NULL));
    PetscCall(VIROMWrite(rom, with));
    mode_mode[1] += 1;
    PetscCall(Damage(comm, with, "frame/mode_mode", DIM * DIM * NM, NM, mode_mode));
    PetscCall(ExpectLoadFailure(comm, "not symmetric", with, "group frame: mode_mode is not symmetric", NULL));
    PetscCall(VIROMWrite(rom, with));
    three[0] = -1;
    PetscCall(Damage(comm, with, "frame/mass", 1, 0, three));
    PetscCall(ExpectLoadFailure(comm, "negative mass", with, "group frame: its mass is -1", NULL));
  }
  PetscCall(VIROMDestroy(&rom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char           dir[PETSC_MAX_PATH_LEN] = "/tmp/vicms_frame_XXXXXX";
  PetscMPIInt    rank;
  PetscErrorCode ierr;

  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) PetscCall(PetscMkdtemp(dir));
  PetscCallMPI(MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, PETSC_COMM_WORLD));
  ierr = RunTests(PETSC_COMM_WORLD, dir);
  if (ierr) {
    if (rank == 0) (void)PetscRMTree(dir);
    return 1;
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  if (rank == 0) PetscCall(PetscRMTree(dir));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_rom_frame: all checks passed\n"));
  PetscCall(SlepcFinalize());
  return 0;
}
