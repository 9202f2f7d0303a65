/* The modes file of `vicms modes`: frequencies, eigenvalues, mesh and mass-normalized mode shapes, plus its XDMF. The
   shapes are written in parallel: each rank its own block of node rows (HDF5 through MPI-IO, collective transfers), so
   that no rank holds a mode of global size (issue 26). The file's layout is that of docs/results.md, unchanged. */
#include <vicms/io.h>
#include <vicms/sys.h>
#include <unistd.h>

/* Rank 0: the file NAME.part with everything but the shapes' values; the datasets /modes/k (num_nodes x 3, contiguous,
   their space allocated now so that the parallel writers only fill them). */
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
  PetscCall(VIH5WriteMesh(file, "/mesh", mesh));
  /* the shapes /modes/1, /modes/2, ...: a group that keeps their creation order, so that a listing runs 1, 2, ..., 10 (not 1, 10, 2) */
  PetscCall(VIH5CreateGroup(file, "/modes"));
  for (PetscInt k = 0; k < n; k++) {
    hsize_t dims[2] = {(hsize_t)nn, 3};
    hid_t   space = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE), dset;

    PetscCall(PetscSNPrintf(name, sizeof(name), "/modes/%" PetscInt_FMT, k + 1));
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    dset = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (dset < 0) {
      PetscCall(VIH5Close(&file));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot create dataset %s in %s (no space left on device?)", name, tmp);
    }
    H5Dclose(dset);
    PetscCall(VIH5WriteAttrReal(file, name, "frequency_hz", freq_hz[k]));
    PetscCall(VIH5WriteAttrString(file, name, "dims", "node,xyz"));
  }
  PetscCall(VIH5Close(&file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective: every rank writes rows [row0, row0 + nrows) of each /modes/k from shapes[k] (nrows x 3, row-major). */
static PetscErrorCode VIModesFileWriteShapes(MPI_Comm comm, const char tmp[], PetscInt n, PetscInt row0, PetscInt nrows,
                                             const PetscReal *const shapes[])
{
  hid_t       fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER), file;
  hsize_t     start[2] = {(hsize_t)row0, 0}, count[2] = {(hsize_t)nrows, 3};
  char        name[64];
  int         bad = 0, any;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  file = H5Fopen(tmp, H5F_ACC_RDWR, fapl);
  H5Pclose(fapl);
  PetscCheck(file >= 0, comm, PETSC_ERR_FILE_OPEN, "Cannot open %s for the parallel write of the mode shapes (MPI-IO)", tmp);
  for (PetscInt k = 0; k < n; k++) {
    hid_t dset, fspace, mspace;

    PetscCall(PetscSNPrintf(name, sizeof(name), "/modes/%" PetscInt_FMT, k + 1));
    dset   = H5Dopen2(file, name, H5P_DEFAULT);
    fspace = H5Dget_space(dset);
    mspace = H5Screate_simple(2, count, NULL);
    if (nrows > 0)
      H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    else {
      H5Sselect_none(fspace);
      H5Sselect_none(mspace);
    }
    /* every rank takes part in each collective write, even after a failure of its own, so that none waits */
    if (dset < 0 || H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, nrows > 0 ? shapes[k] : NULL) < 0) bad = 1;
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(dset);
  }
  H5Pclose(dxpl);
  if (H5Fclose(file) < 0) bad = 1;
  PetscCallMPI(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm));
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
  PetscCall(VIModesFileWriteShapes(comm, tmp, n, row0, nrows, shapes));
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
