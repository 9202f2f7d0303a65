/* `vicms info FILE.h5`: what is inside a vicms file (a ROM, a modes file), in words. */
#include "app.h"
#include <vicms/rom.h>

static PetscErrorCode VIInfoFormatOpen(hid_t file, const char path[], char format[], size_t len)
{
  PetscBool has;
  char     *value;

  PetscFunctionBeginUser;
  PetscCall(VIH5HasAttr(file, "/", "format", &has));
  PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s is not a vicms file (it has no format attribute)", path);
  PetscCall(VIH5ReadAttrStringAlloc(file, "/", "format", &value));
  PetscCall(PetscStrncpy(format, value, len));
  PetscCall(PetscFree(value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The format attribute of path. Rank-local. */
static PetscErrorCode VIInfoFormat(const char path[], char format[], size_t len)
{
  PetscBool      exists;
  hid_t          file;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscTestFile(path, 'r', &exists));
  PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read %s (no such file, or not readable)", path);
  PetscCall(VIH5Open(path, &file));
  ierr = VIInfoFormatOpen(file, path, format, len);
  PetscCall(VIH5Close(&file));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIInfoModesOpen(hid_t file, const char path[])
{
  PetscInt   n, rows, cols, num_nodes = 0, num_elements = 0;
  PetscReal *freq;
  PetscBool  has_mesh, has_topology, has_version;
  char      *version = NULL;

  PetscFunctionBeginUser;
  PetscCall(VIH5ReadAttrInt(file, "/", "n_modes", &n));
  PetscCall(VIH5GetShape(file, "/frequencies_hz", &rows, &cols));
  PetscCheck(rows == n && cols == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: dataset frequencies_hz has %" PetscInt_FMT " x %" PetscInt_FMT " entries, expected a vector of n_modes = %" PetscInt_FMT, path,
             rows, cols, n);
  PetscCall(VIH5Exists(file, "/mesh/coordinates", &has_mesh));
  if (has_mesh) PetscCall(VIH5GetShape(file, "/mesh/coordinates", &num_nodes, &cols));
  PetscCall(VIH5HasAttr(file, "/mesh/topology", "num_elements", &has_topology));
  if (has_topology) PetscCall(VIH5ReadAttrInt(file, "/mesh/topology", "num_elements", &num_elements));
  PetscCall(VIH5HasAttr(file, "/", "version", &has_version));
  if (has_version) PetscCall(VIH5ReadAttrStringAlloc(file, "/", "version", &version));
  PetscCall(VIH5ReadReal(file, "/frequencies_hz", &rows, &cols, &freq));

  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "Modes file %s (vicms %s): %" PetscInt_FMT " natural modes of a mesh with %" PetscInt_FMT " nodes and %" PetscInt_FMT
                        " elements\n",
                        path, version ? version : "version unknown", n, num_nodes, num_elements));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %6s  %16s  %16s\n", "mode", "frequency [Hz]", "omega [rad/s]"));
  for (PetscInt k = 0; k < n; k++)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %6" PetscInt_FMT "  %16.8g  %16.8g\n", k + 1, (double)freq[k], (double)(2 * PETSC_PI * freq[k])));
  PetscCall(PetscFree(freq));
  PetscCall(PetscFree(version));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frequencies and mesh size of a modes file (`vicms modes`), printed by the calling rank. */
static PetscErrorCode VIInfoModes(const char path[])
{
  hid_t          file;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(VIH5Open(path, &file));
  ierr = VIInfoModesOpen(file, path);
  PetscCall(VIH5Close(&file));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppInfo(MPI_Comm comm)
{
  char           file[PETSC_MAX_PATH_LEN] = "", format[64] = "";
  PetscBool      help, is_rom, is_modes;
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  if (VIAppArgument) PetscCall(PetscStrncpy(file, VIAppArgument, sizeof(file)));
  PetscOptionsBegin(comm, NULL, "vicms info", "");
  PetscCall(PetscOptionsString("-file", "The vicms HDF5 file to describe (a ROM or a modes file); also `vicms info FILE.h5`", "", file, file,
                               sizeof(file), NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(file[0], comm, PETSC_ERR_USER_INPUT, "vicms info: which file? Give it after the command (vicms info FILE.h5) or with -file FILE.h5");

  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) ierr = VIInfoFormat(file, format, sizeof(format));
  PetscCall(VIErrorSync(comm, ierr));
  PetscCallMPI(MPI_Bcast(format, sizeof(format), MPI_CHAR, 0, comm));
  PetscCall(PetscStrcmp(format, "vicms-rom", &is_rom));
  PetscCall(PetscStrcmp(format, "vicms-modes", &is_modes));
  if (is_rom) {
    VIROM rom;

    PetscCall(VIROMCreate(comm, &rom));
    ierr = VIROMLoad(rom, file);
    if (!ierr) ierr = VIROMView(rom, NULL);
    PetscCall(VIROMDestroy(&rom));
    PetscCall(ierr);
  } else if (is_modes) {
    if (rank == 0) ierr = VIInfoModes(file);
    PetscCall(VIErrorSync(comm, ierr));
  } else
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "%s: format '%s' is not one vicms info knows (expected vicms-rom or vicms-modes)", file, format);
  PetscFunctionReturn(PETSC_SUCCESS);
}
