/* The modes file of `vicms modes`: frequencies, eigenvalues, mesh and mass-normalized mode shapes, plus its XDMF. The
   shapes and the mesh's datasets are written in parallel: each rank its own block of node rows and of elements (HDF5
   through MPI-IO, collective transfers), so that no rank holds a mode or a copy of the mesh's arrays of global size (issue 26). The file's layout is
   that of docs/results.md, unchanged. */
#include <vicms/io.h>
#include <vicms/sys.h>
#include <unistd.h>

/* Rank 0: the file NAME.part with everything but the mesh's and the shapes' values; the datasets /mesh/... and /modes/k
   (num_nodes x 3, contiguous), their space allocated now so that the parallel writers only fill them. */
static PetscErrorCode VIModesFileCreate(const char tmp[], VIMesh mesh, PetscInt n, const PetscReal freq_hz[], const PetscReal eigenvalues[])
{
  hid_t    file;
  PetscInt nn;
  char     name[64];

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetSizes(mesh, &nn, NULL));
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
  PetscCall(VIH5CreateMesh(file, "/mesh", mesh)); /* written in parallel with the shapes */
  /* the shapes /modes/1, /modes/2, ...: a group that keeps their creation order, so that a listing runs 1, 2, ..., 10 (not 1, 10, 2) */
  PetscCall(VIH5CreateGroup(file, "/modes"));
  for (PetscInt k = 0; k < n; k++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "/modes/%" PetscInt_FMT, k + 1));
    PetscCall(VIH5CreateDataset(file, name, nn, 3, H5T_NATIVE_DOUBLE));
    PetscCall(VIH5WriteAttrReal(file, name, "frequency_hz", freq_hz[k]));
    PetscCall(VIH5WriteAttrString(file, name, "dims", "node,xyz"));
  }
  PetscCall(VIH5Close(&file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective: every rank writes rows [row0, row0 + nrows) of each /modes/k from shapes[k] (nrows x 3, row-major), and of the
   mesh's nodes, and the cells of its contiguous block of the elements. */
static PetscErrorCode VIModesFileWriteShapes(MPI_Comm comm, const char tmp[], VIMesh mesh, PetscInt n, PetscInt row0, PetscInt nrows,
                                             const PetscReal *const shapes[])
{
  hid_t       fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER), file;
  char        name[64];
  PetscBool   bad = PETSC_FALSE;
  int         any;
  PetscMPIInt rank, size;
  PetscInt    ne;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(VIMeshGetSizes(mesh, NULL, &ne));
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  file = H5Fopen(tmp, H5F_ACC_RDWR, fapl);
  H5Pclose(fapl);
  PetscCheck(file >= 0, comm, PETSC_ERR_FILE_OPEN, "Cannot open %s for the parallel write of the mode shapes (MPI-IO)", tmp);
  PetscCall(VIH5WriteMeshRows(comm, file, dxpl, "/mesh", mesh, row0, nrows, (PetscInt)(((PetscInt64)ne * rank) / size),
                              (PetscInt)(((PetscInt64)ne * (rank + 1)) / size), &bad));
  for (PetscInt k = 0; k < n; k++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "/modes/%" PetscInt_FMT, k + 1));
    PetscCall(VIH5WriteRows(file, dxpl, name, H5T_NATIVE_DOUBLE, row0, nrows, 3, nrows > 0 ? shapes[k] : NULL, &bad));
  }
  H5Pclose(dxpl);
  if (H5Fclose(file) < 0) bad = PETSC_TRUE;
  {
    int mine = bad ? 1 : 0;
    PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm));
  }
  if (any && rank == 0) (void)unlink(tmp); /* a part-written file is discarded, as VIH5Close does */
  PetscCheck(!any, comm, PETSC_ERR_FILE_WRITE, "Cannot write the mode shapes to %s (no space left on device?)", tmp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModesFileWrite(MPI_Comm comm, const char path[], VIMesh mesh, PetscInt n, const PetscReal freq_hz[], const PetscReal eigenvalues[],
                                PetscInt row0, PetscInt nrows, const PetscReal *const shapes[])
{
  char           xmf[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN];
  const char    *base;
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  /* written under a temporary name and renamed, so that a file with the final name is always complete */
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.part", path));
  if (rank == 0) ierr = VIModesFileCreate(tmp, mesh, n, freq_hz, eigenvalues);
  PetscCall(VIErrorSync(comm, ierr));
  PetscCall(VIModesFileWriteShapes(comm, tmp, mesh, n, row0, nrows, shapes));
  if (rank == 0) {
    if (rename(tmp, path) != 0)
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_WRITE, PETSC_ERROR_INITIAL, "Cannot rename %s to %s",
                        tmp, path);
    if (!ierr) ierr = VIXdmfPath(path, xmf, sizeof(xmf), &base);
    if (!ierr) ierr = VIXdmfWriteFields(xmf, base, mesh, "modes", n, freq_hz);
  }
  PetscCall(VIErrorSync(comm, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}
