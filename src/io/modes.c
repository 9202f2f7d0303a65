/* The modes file of `vicms modes`: frequencies, eigenvalues, mesh and mass-normalized mode shapes, plus its XDMF. */
#include <vicms/io.h>
#include <vicms/sys.h>

PetscErrorCode VIModesFileWrite(const char path[], VIMesh mesh, PetscInt n, const PetscReal freq_hz[], const PetscReal eigenvalues[],
                                const PetscReal *const shapes[])
{
  hid_t       file;
  PetscInt    nn;
  char        name[64], xmf[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN];
  const char *base;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetSizes(mesh, &nn, NULL));
  /* written under a temporary name and renamed, so that a file with the final name is always complete */
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.part", path));
  PetscCall(VIH5Create(tmp, &file));
  PetscCall(VIH5WriteAttrString(file, "/", "format", "vicms-modes"));
  PetscCall(VIH5WriteAttrString(file, "/", "version", VICMS_VERSION));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_modes", n));
  PetscCall(VIH5WriteReal(file, "/frequencies_hz", n, 0, freq_hz));
  PetscCall(VIH5WriteAttrString(file, "/frequencies_hz", "units", "Hz"));
  PetscCall(VIH5WriteAttrString(file, "/frequencies_hz", "dims", "mode"));
  PetscCall(VIH5WriteReal(file, "/eigenvalues", n, 0, eigenvalues));
  PetscCall(VIH5WriteAttrString(file, "/eigenvalues", "units", "rad^2/s^2"));
  PetscCall(VIH5WriteAttrString(file, "/eigenvalues", "dims", "mode"));
  PetscCall(VIH5WriteMesh(file, "/mesh", mesh));
  /* the shapes /modes/1, /modes/2, ...: a group that keeps their creation order, so that a listing runs 1, 2, ..., 10 (not 1, 10, 2) */
  PetscCall(VIH5CreateGroup(file, "/modes"));
  for (PetscInt k = 0; k < n; k++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "/modes/%" PetscInt_FMT, k + 1));
    PetscCall(VIH5WriteReal(file, name, nn, 3, shapes[k]));
    PetscCall(VIH5WriteAttrReal(file, name, "frequency_hz", freq_hz[k]));
    PetscCall(VIH5WriteAttrString(file, name, "dims", "node,xyz"));
  }
  PetscCall(VIH5Close(&file));
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s", tmp, path);

  PetscCall(VIXdmfPath(path, xmf, sizeof(xmf), &base));
  PetscCall(VIXdmfWriteFields(xmf, base, mesh, "modes", n, freq_hz));
  PetscFunctionReturn(PETSC_SUCCESS);
}
