/* Small HDF5 helpers: files, datasets of reals and integers, attributes; used on one rank. */
#include <vicms/io.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The system error behind the HDF5 error just raised (its stack names it as "errno = N"), 0 if none. */
static herr_t VIH5FindErrno(unsigned n, const H5E_error2_t *e, void *ctx)
{
  const char *p = e->desc ? strstr(e->desc, "errno = ") : NULL;

  (void)n;
  if (p && !*(int *)ctx) *(int *)ctx = atoi(p + 8);
  return 0;
}

/* Why a write failed, in words: "no space left on device" and its kin, or what the system said. */
static void VIH5WriteReason(char why[], size_t len)
{
  int err = 0;

  (void)H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, VIH5FindErrno, &err);
  if (!err && (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)) err = errno;
  if (err == ENOSPC)
    snprintf(why, len, "no space left on device");
  else if (err == EDQUOT)
    snprintf(why, len, "disk quota exceeded (no space left for this user)");
  else if (err == EFBIG)
    snprintf(why, len, "file too large (a file size limit, e.g. ulimit -f, or no space left)");
  else if (err)
    snprintf(why, len, "%s", strerror(err));
  else
    snprintf(why, len, "HDF5 write error");
}

/* A failed write whose reason why was taken right after the failing call (a later HDF5 call clears the error stack). */
#define VIH5Fail(file, why, ...)                                                                                                                     \
  do {                                                                                                                                               \
    char fname_[PETSC_MAX_PATH_LEN], what_[PETSC_MAX_PATH_LEN];                                                                                      \
    if (H5Fget_name(file, fname_, sizeof(fname_)) < 0) snprintf(fname_, sizeof(fname_), "an HDF5 file");                                             \
    snprintf(what_, sizeof(what_), __VA_ARGS__);                                                                                                     \
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "%s while writing %s (%s)", why, fname_, what_);                                                  \
  } while (0)

/* A failed write: its reason, the file and the object. */
#define VIH5Check(call, file, ...)                                                                                                                   \
  do {                                                                                                                                               \
    if ((call) < 0) {                                                                                                                                \
      char why_[128], fname_[PETSC_MAX_PATH_LEN], what_[PETSC_MAX_PATH_LEN];                                                                         \
      VIH5WriteReason(why_, sizeof(why_));                                                                                                           \
      if (H5Fget_name(file, fname_, sizeof(fname_)) < 0) snprintf(fname_, sizeof(fname_), "an HDF5 file");                                           \
      snprintf(what_, sizeof(what_), __VA_ARGS__);                                                                                                   \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "%s while writing %s (%s)", why_, fname_, what_);                                               \
    }                                                                                                                                                \
  } while (0)

PetscErrorCode VIH5Create(const char path[], hid_t *file)
{
  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  *file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (*file < 0) {
    char   why[128];
    size_t len = strlen(path);
    VIH5WriteReason(why, sizeof(why));
    if (len > 5 && !strcmp(path + len - 5, ".part")) (void)unlink(path); /* what a full disk left of it */
    PetscCheck(!strncmp(why, "no space", 8) || !strncmp(why, "disk quota", 10) || !strncmp(why, "file too large", 14), PETSC_COMM_SELF,
               PETSC_ERR_FILE_OPEN, "Cannot create HDF5 file %s (does its folder exist and is it writable?)", path);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "%s while writing %s (at its creation)", why, path);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5Open(const char path[], hid_t *file)
{
  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  PetscCheck(*file >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open HDF5 file %s (missing, or not an HDF5 file)", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5OpenWrite(const char path[], hid_t *file)
{
  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  *file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  PetscCheck(*file >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open HDF5 file %s for writing (missing, not an HDF5 file, or not writable)",
             path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5Close(hid_t *file)
{
  char     why[128], name[PETSC_MAX_PATH_LEN] = "an HDF5 file";
  hid_t    f = *file;
  herr_t   err;
  unsigned intent = 0;

  PetscFunctionBeginUser;
  if (f < 0) PetscFunctionReturn(PETSC_SUCCESS);
  *file = -1;
  if (H5Fget_name(f, name, sizeof(name)) < 0) snprintf(name, sizeof(name), "an HDF5 file");
  why[0] = 0;
  if (H5Fget_intent(f, &intent) >= 0 && (intent & H5F_ACC_RDWR) && H5Fflush(f, H5F_SCOPE_LOCAL) < 0) {
    size_t len = strlen(name);
    VIH5WriteReason(why, sizeof(why));
    /* a close that fails leaves the file open in HDF5, which then crashes at exit (inside MPI_Finalize): the flush must
       succeed first. A part-written file (NAME.part: every file vicms writes, renamed when whole) is discarded anyway:
       emptying it makes room, and other writers on a full disk give theirs up in a moment */
    if (len > 5 && !strcmp(name + len - 5, ".part"))
      for (int t = 0; t < 100; t++) {
        if (truncate(name, 0) != 0 || H5Fflush(f, H5F_SCOPE_LOCAL) >= 0) break;
        usleep(100000);
      }
  }
  err = H5Fclose(f);
  if (err < 0 || why[0]) {
    if (!why[0]) VIH5WriteReason(why, sizeof(why));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "%s while writing %s (at its close)", why, name);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether something exists at path, and whether it is a dataset that takes rows x cols of type in place: of that type
   and shape, or (resizable) of that type and number of columns, with unlimited rows. */
static PetscErrorCode VIH5Reusable(hid_t file, const char path[], PetscInt rows, PetscInt cols, hid_t type, PetscBool resizable, PetscBool *exists,
                                   PetscBool *reusable)
{
  hid_t   dset, space, dtype;
  hsize_t dims[2] = {0, 0}, maxdims[2] = {0, 0};
  int     ndims;

  PetscFunctionBeginUser;
  *reusable = PETSC_FALSE;
  PetscCall(VIH5Exists(file, path, exists));
  if (!*exists) PetscFunctionReturn(PETSC_SUCCESS);
  dset = H5Dopen2(file, path, H5P_DEFAULT);
  if (dset < 0) PetscFunctionReturn(PETSC_SUCCESS); /* a group: replaced */
  space = H5Dget_space(dset);
  dtype = H5Dget_type(dset);
  ndims = H5Sget_simple_extent_ndims(space);
  if (ndims == (cols > 0 ? 2 : 1) && H5Sget_simple_extent_dims(space, dims, maxdims) >= 0 && H5Tequal(dtype, type) > 0) {
    if (resizable)
      *reusable = maxdims[0] == H5S_UNLIMITED && (cols == 0 || dims[1] == (hsize_t)cols) ? PETSC_TRUE : PETSC_FALSE;
    else
      *reusable = dims[0] == (hsize_t)rows && (cols == 0 || dims[1] == (hsize_t)cols) ? PETSC_TRUE : PETSC_FALSE;
  }
  H5Tclose(dtype);
  H5Sclose(space);
  H5Dclose(dset);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Write rows x cols of type at path. A dataset already there (a results file merged again) is overwritten in place when
   it has this type and shape (resizable: unlimited rows, set to rows), so the file does not grow; otherwise it is
   replaced, and HDF5 does not reuse the old one's space in later sessions. A resizable dataset is chunked with unlimited
   rows: for one whose number of rows changes from one write to the next. */
static PetscErrorCode VIH5Write(hid_t file, const char path[], PetscInt rows, PetscInt cols, hid_t type, const void *data, PetscBool resizable)
{
  hsize_t   dims[2] = {(hsize_t)rows, (hsize_t)cols}, maxdims[2] = {H5S_UNLIMITED, (hsize_t)cols}, chunk[2] = {256, (hsize_t)PetscMax(cols, 1)};
  hid_t     space, lcpl, dcpl, dset;
  herr_t    err;
  char      why[128];
  PetscBool exists, reusable;

  PetscFunctionBeginUser;
  PetscCall(VIH5Reusable(file, path, rows, cols, type, resizable, &exists, &reusable));
  if (reusable) {
    dset = H5Dopen2(file, path, H5P_DEFAULT);
    err  = resizable ? H5Dset_extent(dset, dims) : 0;
    if (err < 0) VIH5WriteReason(why, sizeof(why));
  } else {
    if (exists) VIH5Check(H5Ldelete(file, path, H5P_DEFAULT), file, "dataset %s, replaced", path);
    space = H5Screate_simple(cols > 0 ? 2 : 1, dims, resizable ? maxdims : NULL);
    lcpl  = H5Pcreate(H5P_LINK_CREATE);
    dcpl  = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    if (resizable) H5Pset_chunk(dcpl, cols > 0 ? 2 : 1, chunk);
    dset = H5Dcreate2(file, path, type, space, lcpl, dcpl, H5P_DEFAULT);
    if (dset < 0) VIH5WriteReason(why, sizeof(why));
    H5Pclose(dcpl);
    H5Pclose(lcpl);
    H5Sclose(space);
    if (dset < 0) VIH5Fail(file, why, "dataset %s", path);
    err = 0;
  }
  if (err >= 0) err = rows > 0 ? H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : 0;
  if (err < 0) VIH5WriteReason(why, sizeof(why));
  if (H5Dclose(dset) < 0 && err >= 0) {
    err = -1;
    VIH5WriteReason(why, sizeof(why));
  }
  if (err < 0) VIH5Fail(file, why, "dataset %s", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5CreateDataset(hid_t file, const char path[], PetscInt rows, PetscInt cols, hid_t type)
{
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
  hid_t   space = H5Screate_simple(cols > 0 ? 2 : 1, dims, NULL), lcpl = H5Pcreate(H5P_LINK_CREATE), dcpl = H5Pcreate(H5P_DATASET_CREATE), dset;
  char    why[128];

  PetscFunctionBeginUser;
  H5Pset_create_intermediate_group(lcpl, 1);
  H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  dset = H5Dcreate2(file, path, type, space, lcpl, dcpl, H5P_DEFAULT);
  if (dset < 0) VIH5WriteReason(why, sizeof(why));
  H5Pclose(dcpl);
  H5Pclose(lcpl);
  H5Sclose(space);
  if (dset < 0) VIH5Fail(file, why, "dataset %s (no space left on device?)", path);
  VIH5Check(H5Dclose(dset), file, "dataset %s", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5WriteRows(hid_t file, hid_t dxpl, const char path[], hid_t type, PetscInt row0, PetscInt nrows, PetscInt cols, const void *data,
                             PetscBool *bad)
{
  hsize_t start[2] = {(hsize_t)row0, 0}, count[2] = {(hsize_t)nrows, (hsize_t)cols};
  int     rank = cols > 0 ? 2 : 1;
  hid_t   dset = H5Dopen2(file, path, H5P_DEFAULT), fspace, mspace;

  PetscFunctionBeginUser;
  fspace = dset >= 0 ? H5Dget_space(dset) : H5Screate_simple(rank, count, NULL);
  mspace = H5Screate_simple(rank, count, NULL);
  if (nrows > 0)
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
  else {
    H5Sselect_none(fspace);
    H5Sselect_none(mspace);
  }
  /* a rank takes part in a collective write even after a failure of its own, so that none waits; an empty dataset (the
     topology of a mesh of nodes only) is written by none */
  if (dset < 0) *bad = PETSC_TRUE;
  else if (H5Sget_simple_extent_npoints(fspace) > 0 && H5Dwrite(dset, type, mspace, fspace, dxpl, nrows > 0 ? data : NULL) < 0) *bad = PETSC_TRUE;
  H5Sclose(mspace);
  H5Sclose(fspace);
  if (dset >= 0) H5Dclose(dset);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5WriteReal(hid_t file, const char path[], PetscInt rows, PetscInt cols, const PetscReal data[])
{
  PetscFunctionBeginUser;
  PetscCall(VIH5Write(file, path, rows, cols, H5T_NATIVE_DOUBLE, data, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5WriteRealResizable(hid_t file, const char path[], PetscInt rows, PetscInt cols, const PetscReal data[])
{
  PetscFunctionBeginUser;
  PetscCall(VIH5Write(file, path, rows, cols, H5T_NATIVE_DOUBLE, data, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5WriteInt(hid_t file, const char path[], PetscInt rows, PetscInt cols, const PetscInt data[])
{
  PetscFunctionBeginUser;
  PetscCall(VIH5Write(file, path, rows, cols, sizeof(PetscInt) == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32, data, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIH5WriteAttr(hid_t file, const char obj[], const char name[], hid_t type, const void *value)
{
  hid_t  space = H5Screate(H5S_SCALAR), attr;
  herr_t err;
  char   why[128];

  PetscFunctionBeginUser;
  if (H5Aexists_by_name(file, obj, name, H5P_DEFAULT) > 0) H5Adelete_by_name(file, obj, name, H5P_DEFAULT);
  attr = H5Acreate_by_name(file, obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (attr < 0) VIH5WriteReason(why, sizeof(why));
  H5Sclose(space);
  if (attr < 0) VIH5Fail(file, why, "attribute %s of %s", name, obj);
  err = H5Awrite(attr, type, value);
  if (err < 0) VIH5WriteReason(why, sizeof(why));
  if (H5Aclose(attr) < 0 && err >= 0) {
    err = -1;
    VIH5WriteReason(why, sizeof(why));
  }
  if (err < 0) VIH5Fail(file, why, "attribute %s of %s", name, obj);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5WriteAttrString(hid_t file, const char obj[], const char name[], const char value[])
{
  hid_t  type = H5Tcopy(H5T_C_S1);
  size_t len;

  PetscFunctionBeginUser;
  PetscCall(PetscStrlen(value, &len));
  H5Tset_size(type, len > 0 ? len : 1);
  H5Tset_strpad(type, H5T_STR_NULLTERM);
  PetscCall(VIH5WriteAttr(file, obj, name, type, len > 0 ? value : ""));
  H5Tclose(type);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5WriteAttrInt(hid_t file, const char obj[], const char name[], PetscInt value)
{
  long long v = (long long)value;

  PetscFunctionBeginUser;
  PetscCall(VIH5WriteAttr(file, obj, name, H5T_NATIVE_LLONG, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5WriteAttrReal(hid_t file, const char obj[], const char name[], PetscReal value)
{
  double v = (double)value;

  PetscFunctionBeginUser;
  PetscCall(VIH5WriteAttr(file, obj, name, H5T_NATIVE_DOUBLE, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5ReadReal(hid_t file, const char path[], PetscInt *rows, PetscInt *cols, PetscReal **data)
{
  hid_t   dset, space;
  hsize_t dims[2] = {0, 0};
  int     ndims;

  PetscFunctionBeginUser;
  dset = H5Dopen2(file, path, H5P_DEFAULT);
  PetscCheck(dset >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "The HDF5 file has no dataset %s", path);
  space = H5Dget_space(dset);
  ndims = H5Sget_simple_extent_ndims(space);
  PetscCheck(ndims == 1 || ndims == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Dataset %s has %d dimensions, expected 1 or 2", path, ndims);
  H5Sget_simple_extent_dims(space, dims, NULL);
  *rows = (PetscInt)dims[0];
  *cols = ndims == 2 ? (PetscInt)dims[1] : 0;
  PetscCall(PetscMalloc1(PetscMax(1, (PetscInt)(dims[0] * (ndims == 2 ? dims[1] : 1))), data));
  if (dims[0] > 0)
    PetscCheck(H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *data) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ,
               "Cannot read dataset %s", path);
  H5Sclose(space);
  H5Dclose(dset);
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *VINonFiniteString(PetscReal v)
{
  return PetscIsNanReal(v) ? "NaN" : (v > 0 ? "Inf" : "-Inf");
}

PetscErrorCode VIH5CheckFinite(const char what[], const char dataset[], PetscInt rows, PetscInt cols, const PetscReal data[])
{
  const PetscInt w = PetscMax(cols, 1);

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < rows * w; i++) {
    if (!PetscIsInfOrNanReal(data[i])) continue;
    if (cols)
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
              "%s: dataset %s, entry [%" PetscInt_FMT "][%" PetscInt_FMT "] (0-based) = %s is not a finite number", what, dataset, i / w, i % w,
              VINonFiniteString(data[i]));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: dataset %s, entry [%" PetscInt_FMT "] (0-based) = %s is not a finite number", what,
            dataset, i, VINonFiniteString(data[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5ReadAttrString(hid_t file, const char obj[], const char name[], char value[], size_t len)
{
  hid_t  attr, type, mem;
  size_t size;

  PetscFunctionBeginUser;
  attr = H5Aopen_by_name(file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  PetscCheck(attr >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "The HDF5 object %s has no attribute %s", obj, name);
  type = H5Aget_type(attr);
  size = H5Tget_size(type);
  PetscCheck(H5Tget_class(type) == H5T_STRING && size < len, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Attribute %s on %s is not a short string",
             name, obj);
  mem = H5Tcopy(H5T_C_S1);
  H5Tset_size(mem, len);
  H5Tset_strpad(mem, H5T_STR_NULLTERM);
  PetscCheck(H5Aread(attr, mem, value) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot read attribute %s on %s", name, obj);
  H5Tclose(mem);
  H5Tclose(type);
  H5Aclose(attr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The name a file was opened with, for messages. */
static void VIH5FileName(hid_t file, char name[], size_t len)
{
  if (H5Fget_name(file, name, len) < 0) snprintf(name, len, "(HDF5 file)");
}

PetscErrorCode VIH5Exists(hid_t file, const char path[], PetscBool *exists)
{
  char   partial[PETSC_MAX_PATH_LEN];
  size_t len;

  PetscFunctionBeginUser;
  *exists = PETSC_TRUE;
  PetscCall(PetscStrlen(path, &len));
  PetscCheck(len < sizeof(partial), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "HDF5 path %s is too long", path);
  if (!strcmp(path, "/") || !strcmp(path, ".")) PetscFunctionReturn(PETSC_SUCCESS); /* the root, or the group itself */
  /* H5Lexists fails, rather than saying no, when an intermediate group is missing: test each prefix */
  for (size_t i = 1; i <= len; i++) {
    if (i < len && path[i] != '/') continue;
    PetscCall(PetscMemcpy(partial, path, i));
    partial[i] = 0;
    if (H5Lexists(file, partial, H5P_DEFAULT) <= 0) {
      *exists = PETSC_FALSE;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5HasAttr(hid_t file, const char obj[], const char name[], PetscBool *has)
{
  PetscBool exists;

  PetscFunctionBeginUser;
  PetscCall(VIH5Exists(file, obj, &exists));
  *has = (exists && H5Aexists_by_name(file, obj, name, H5P_DEFAULT) > 0) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5GetShape(hid_t file, const char path[], PetscInt *rows, PetscInt *cols)
{
  char      fname[PETSC_MAX_PATH_LEN];
  PetscBool exists;
  hid_t     dset, space;
  hsize_t   dims[2] = {0, 0};
  int       ndims;

  PetscFunctionBeginUser;
  VIH5FileName(file, fname, sizeof(fname));
  PetscCall(VIH5Exists(file, path, &exists));
  PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: no dataset %s", fname, path);
  dset = H5Dopen2(file, path, H5P_DEFAULT);
  PetscCheck(dset >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: %s is not a dataset", fname, path);
  space = H5Dget_space(dset);
  ndims = H5Sget_simple_extent_ndims(space);
  if (ndims == 1 || ndims == 2) H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  H5Dclose(dset);
  PetscCheck(ndims == 1 || ndims == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: dataset %s has %d dimensions, expected 1 or 2", fname, path,
             ndims);
  *rows = (PetscInt)dims[0];
  *cols = ndims == 2 ? (PetscInt)dims[1] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5ReadInt(hid_t file, const char path[], PetscInt *rows, PetscInt *cols, PetscInt **data)
{
  char  fname[PETSC_MAX_PATH_LEN];
  hid_t dset, type;

  PetscFunctionBeginUser;
  VIH5FileName(file, fname, sizeof(fname));
  PetscCall(VIH5GetShape(file, path, rows, cols));
  dset = H5Dopen2(file, path, H5P_DEFAULT);
  type = H5Dget_type(dset);
  if (H5Tget_class(type) != H5T_INTEGER) {
    H5Tclose(type);
    H5Dclose(dset);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: dataset %s does not hold integers", fname, path);
  }
  H5Tclose(type);
  PetscCall(PetscMalloc1(PetscMax(1, *rows * PetscMax(1, *cols)), data));
  if (*rows > 0 && H5Dread(dset, sizeof(PetscInt) == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, *data) < 0) {
    H5Dclose(dset);
    PetscCall(PetscFree(*data));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: cannot read dataset %s as integers (values out of range?)", fname, path);
  }
  H5Dclose(dset);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Opens attribute name of obj after checking that it exists, is a single value and of class cls (H5T_NO_CLASS: any). */
static PetscErrorCode VIH5OpenAttr(hid_t file, const char obj[], const char name[], H5T_class_t cls, const char expected[], hid_t *attr)
{
  char        fname[PETSC_MAX_PATH_LEN];
  PetscBool   has;
  hid_t       type, space;
  H5T_class_t c;
  hssize_t    npoints;

  PetscFunctionBeginUser;
  VIH5FileName(file, fname, sizeof(fname));
  PetscCall(VIH5HasAttr(file, obj, name, &has));
  PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: %s has no attribute %s", fname, obj, name);
  *attr   = H5Aopen_by_name(file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  type    = H5Aget_type(*attr);
  space   = H5Aget_space(*attr);
  c       = H5Tget_class(type);
  npoints = H5Sget_simple_extent_npoints(space);
  H5Tclose(type);
  H5Sclose(space);
  if ((cls != H5T_NO_CLASS && c != cls && !(cls == H5T_FLOAT && c == H5T_INTEGER)) || npoints != 1) {
    H5Aclose(*attr);
    *attr = -1;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: attribute %s of %s is not %s", fname, name, obj, expected);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5ReadAttrInt(hid_t file, const char obj[], const char name[], PetscInt *value)
{
  char      fname[PETSC_MAX_PATH_LEN];
  hid_t     attr;
  long long v;
  herr_t    err;

  PetscFunctionBeginUser;
  VIH5FileName(file, fname, sizeof(fname));
  PetscCall(VIH5OpenAttr(file, obj, name, H5T_INTEGER, "an integer", &attr));
  err = H5Aread(attr, H5T_NATIVE_LLONG, &v);
  H5Aclose(attr);
  PetscCheck(err >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: cannot read attribute %s of %s", fname, name, obj);
  PetscCheck(v >= PETSC_MIN_INT && v <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: attribute %s of %s is %lld, out of range",
             fname, name, obj, v);
  *value = (PetscInt)v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5ReadAttrReal(hid_t file, const char obj[], const char name[], PetscReal *value)
{
  char   fname[PETSC_MAX_PATH_LEN];
  hid_t  attr;
  double v;
  herr_t err;

  PetscFunctionBeginUser;
  VIH5FileName(file, fname, sizeof(fname));
  PetscCall(VIH5OpenAttr(file, obj, name, H5T_FLOAT, "a number", &attr));
  err = H5Aread(attr, H5T_NATIVE_DOUBLE, &v);
  H5Aclose(attr);
  PetscCheck(err >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: cannot read attribute %s of %s", fname, name, obj);
  *value = (PetscReal)v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5ReadAttrStringAlloc(hid_t file, const char obj[], const char name[], char **value)
{
  char   fname[PETSC_MAX_PATH_LEN];
  hid_t  attr, type, mem;
  size_t size;
  herr_t err;

  PetscFunctionBeginUser;
  *value = NULL;
  VIH5FileName(file, fname, sizeof(fname));
  PetscCall(VIH5OpenAttr(file, obj, name, H5T_STRING, "a string", &attr));
  type = H5Aget_type(attr);
  if (H5Tis_variable_str(type) > 0) {
    char *s = NULL;
    mem     = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5Tget_cset(type)); /* h5py writes UTF-8 strings: read them as they are, without an ASCII conversion */
    err = H5Aread(attr, mem, &s);
    /* a failed copy leaves *value NULL, reported below */
    if (err >= 0 && PetscStrallocpy(s ? s : "", value)) err = -1;
    if (s) H5free_memory(s);
  } else {
    size = H5Tget_size(type);
    mem  = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, size + 1);
    H5Tset_strpad(mem, H5T_STR_NULLTERM);
    H5Tset_cset(mem, H5Tget_cset(type));
    err = PetscCalloc1(size + 2, value) ? -1 : H5Aread(attr, mem, *value);
  }
  H5Tclose(mem);
  H5Tclose(type);
  H5Aclose(attr);
  if (err < 0) PetscCall(PetscFree(*value));
  PetscCheck(err >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: cannot read attribute %s of %s", fname, name, obj);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5CreateGroup(hid_t file, const char path[])
{
  hid_t lcpl, gcpl, group;
  char  why[128];

  PetscFunctionBeginUser;
  lcpl = H5Pcreate(H5P_LINK_CREATE);
  gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  group = H5Gcreate2(file, path, lcpl, gcpl, H5P_DEFAULT);
  if (group < 0) VIH5WriteReason(why, sizeof(why));
  H5Pclose(gcpl);
  H5Pclose(lcpl);
  if (group < 0) VIH5Fail(file, why, "group %s", path);
  VIH5Check(H5Gclose(group), file, "group %s", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt n, max;
  char   **names;
} VIH5NameList;

static herr_t VIH5CollectName(hid_t group, const char *name, const H5L_info_t *info, void *ctx)
{
  VIH5NameList *list = (VIH5NameList *)ctx;

  (void)group;
  (void)info;
  if (list->n >= list->max) return -1;
  if (PetscStrallocpy(name, &list->names[list->n])) return -1;
  list->n++;
  return 0;
}

PetscErrorCode VIH5ListGroup(hid_t file, const char path[], PetscInt *n, char ***names)
{
  char         fname[PETSC_MAX_PATH_LEN];
  hid_t        group, gcpl;
  H5G_info_t   ginfo;
  unsigned     order = 0;
  herr_t       err;
  VIH5NameList list = {0, 0, NULL};

  PetscFunctionBeginUser;
  VIH5FileName(file, fname, sizeof(fname));
  group = H5Gopen2(file, path, H5P_DEFAULT);
  PetscCheck(group >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: no group %s", fname, path);
  err  = H5Gget_info(group, &ginfo);
  gcpl = H5Gget_create_plist(group);
  H5Pget_link_creation_order(gcpl, &order);
  H5Pclose(gcpl);
  H5Gclose(group);
  PetscCheck(err >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: cannot read group %s", fname, path);
  list.max = (PetscInt)ginfo.nlinks;
  PetscCall(PetscCalloc1(list.max + 1, &list.names));
  /* creation order when the writer tracked it (VIH5CreateGroup), name order otherwise */
  err = H5Literate_by_name(file, path, (order & H5P_CRT_ORDER_INDEXED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME, H5_ITER_INC, NULL, VIH5CollectName,
                           &list, H5P_DEFAULT);
  if (err < 0) PetscCall(PetscStrArrayDestroy(&list.names));
  PetscCheck(err >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: cannot list group %s", fname, path);
  *n     = list.n;
  *names = list.names;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5WriteStrings(hid_t file, const char path[], PetscInt n, const char *const strings[])
{
  hid_t type = H5Tcopy(H5T_C_S1);

  PetscFunctionBeginUser;
  H5Tset_size(type, H5T_VARIABLE);
  PetscCall(VIH5Write(file, path, n, 0, type, strings, PETSC_FALSE));
  H5Tclose(type);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5ReadStrings(hid_t file, const char path[], PetscInt *n, char ***strings)
{
  char     fname[PETSC_MAX_PATH_LEN];
  hid_t    dset, mem;
  char   **raw;
  herr_t   err;
  PetscInt cols;

  PetscFunctionBeginUser;
  VIH5FileName(file, fname, sizeof(fname));
  PetscCall(VIH5GetShape(file, path, n, &cols));
  PetscCheck(cols == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: dataset %s has 2 dimensions, expected a list of strings", fname, path);
  PetscCall(PetscCalloc1(*n + 1, strings));
  PetscCall(PetscCalloc1(*n + 1, &raw));
  dset = H5Dopen2(file, path, H5P_DEFAULT);
  mem  = H5Tcopy(H5T_C_S1);
  H5Tset_size(mem, H5T_VARIABLE);
  err = *n > 0 ? H5Dread(dset, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) : 0;
  for (PetscInt i = 0; i < *n && err >= 0; i++) PetscCall(PetscStrallocpy(raw[i] ? raw[i] : "", &(*strings)[i]));
  for (PetscInt i = 0; i < *n && err >= 0; i++)
    if (raw[i]) H5free_memory(raw[i]);
  H5Tclose(mem);
  H5Dclose(dset);
  PetscCall(PetscFree(raw));
  if (err < 0) PetscCall(PetscStrArrayDestroy(strings));
  PetscCheck(err >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: cannot read dataset %s as strings", fname, path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copy the attributes of src to dst (open objects), each with its own type and shape. */
typedef struct {
  hid_t dst;
  int   failed;
  char  why[128];
} VIH5CopyCtx;

static herr_t VIH5CopyAttr(hid_t src, const char *name, const H5A_info_t *info, void *ctx)
{
  VIH5CopyCtx *c    = (VIH5CopyCtx *)ctx;
  hid_t        attr = H5Aopen(src, name, H5P_DEFAULT), type = H5Aget_type(attr), space = H5Aget_space(attr), out = -1;
  size_t       size = H5Tget_size(type) * (size_t)PetscMax(1, H5Sget_simple_extent_npoints(space));
  void        *buf  = calloc(1, size);
  herr_t       err  = (attr < 0 || !buf) ? -1 : H5Aread(attr, type, buf);

  (void)info;
  if (err >= 0) {
    out = H5Acreate2(c->dst, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    err = out < 0 ? -1 : H5Awrite(out, type, buf);
  }
  if (err < 0 && !c->failed) {
    c->failed = 1;
    VIH5WriteReason(c->why, sizeof(c->why));
  }
  if (out >= 0) H5Aclose(out);
  free(buf);
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(attr);
  return err < 0 ? -1 : 0;
}

/* A dataset: its data with its own type and shape, and its attributes. */
static herr_t VIH5CopyDataset(hid_t src, const char *name, hid_t dst, VIH5CopyCtx *c)
{
  hid_t    in = H5Dopen2(src, name, H5P_DEFAULT), type = H5Dget_type(in), space = H5Dget_space(in), out = -1;
  hssize_t n    = H5Sget_simple_extent_npoints(space);
  size_t   size = H5Tget_size(type) * (size_t)PetscMax(1, n);
  void    *buf  = calloc(1, size);
  htri_t   vlen = H5Tis_variable_str(type); /* strings of any length (VIH5WriteStrings): their pointers, reclaimed below */
  herr_t   err  = (in < 0 || n < 0 || !buf || vlen < 0) ? -1 : (n > 0 ? H5Dread(in, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : 0);

  if (err >= 0) {
    out = H5Dcreate2(dst, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    err = out < 0 ? -1 : (n > 0 ? H5Dwrite(out, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : 0);
  }
  if (err < 0 && !c->failed) {
    c->failed = 1;
    VIH5WriteReason(c->why, sizeof(c->why));
  }
  if (err >= 0) {
    hid_t saved = c->dst;
    c->dst      = out;
    err         = H5Aiterate2(in, H5_INDEX_NAME, H5_ITER_INC, NULL, VIH5CopyAttr, c);
    c->dst      = saved;
  }
  if (out >= 0 && H5Dclose(out) < 0 && err >= 0) {
    err = -1;
    if (!c->failed) VIH5WriteReason(c->why, sizeof(c->why));
    c->failed = 1;
  }
  if (vlen > 0 && n > 0 && buf) (void)H5Dvlen_reclaim(type, space, H5P_DEFAULT, buf);
  free(buf);
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(in);
  return err < 0 ? -1 : 0;
}

typedef struct {
  hid_t        dst;
  VIH5CopyCtx *c;
} VIH5CopyGroupCtx;

static herr_t VIH5CopyMember(hid_t group, const char *name, const H5L_info_t *info, void *ctx)
{
  VIH5CopyGroupCtx *g = (VIH5CopyGroupCtx *)ctx;
  H5O_info_t        oi;

  (void)info;
  if (H5Oget_info_by_name(group, name, &oi, H5P_DEFAULT) < 0) return -1;
  if (oi.type == H5O_TYPE_GROUP) { /* a subgroup (a slide history's contact/): its attributes and members, in turn */
    hid_t            in = H5Gopen2(group, name, H5P_DEFAULT), out = in < 0 ? -1 : H5Gcreate2(g->dst, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    VIH5CopyGroupCtx sub   = {out, g->c};
    hid_t            saved = g->c->dst;
    herr_t           err   = out < 0 ? -1 : 0;
    if (err >= 0) {
      g->c->dst = out;
      err       = H5Aiterate2(in, H5_INDEX_NAME, H5_ITER_INC, NULL, VIH5CopyAttr, g->c);
      g->c->dst = saved;
    }
    if (err >= 0) err = H5Literate(in, H5_INDEX_NAME, H5_ITER_INC, NULL, VIH5CopyMember, &sub);
    if (err < 0 && !g->c->failed) {
      g->c->failed = 1;
      VIH5WriteReason(g->c->why, sizeof(g->c->why));
    }
    if (out >= 0) H5Gclose(out);
    if (in >= 0) H5Gclose(in);
    return err < 0 ? -1 : 0;
  }
  if (oi.type != H5O_TYPE_DATASET) return -1;
  return VIH5CopyDataset(group, name, g->dst, g->c);
}

PetscErrorCode VIH5Copy(hid_t src, const char src_path[], hid_t dst, const char dst_path[])
{
  hid_t            in, out, lcpl, gcpl;
  VIH5CopyCtx      c = {-1, 0, ""};
  VIH5CopyGroupCtx g;
  herr_t           err;
  H5O_info_t       oi;
  char             sname[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  /* by hand, through checked writes: H5Ocopy (HDF5 1.10) crashes when the disk fills during the copy */
  if (H5Fget_name(src, sname, sizeof(sname)) < 0) snprintf(sname, sizeof(sname), "an HDF5 file");
  PetscCheck(H5Oget_info_by_name(src, src_path, &oi, H5P_DEFAULT) >= 0 && oi.type == H5O_TYPE_GROUP, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: %s is not a group", sname, src_path);
  in   = H5Gopen2(src, src_path, H5P_DEFAULT);
  lcpl = H5Pcreate(H5P_LINK_CREATE);
  gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  out = H5Gcreate2(dst, dst_path, lcpl, gcpl, H5P_DEFAULT);
  if (out < 0) {
    c.failed = 1;
    VIH5WriteReason(c.why, sizeof(c.why));
  }
  H5Pclose(gcpl);
  H5Pclose(lcpl);
  err = out < 0 ? -1 : 0;
  if (err >= 0) {
    c.dst = out;
    err   = H5Aiterate2(in, H5_INDEX_NAME, H5_ITER_INC, NULL, VIH5CopyAttr, &c);
  }
  if (err >= 0) {
    unsigned order = 0;
    hid_t    p     = H5Gget_create_plist(in);
    H5Pget_link_creation_order(p, &order);
    H5Pclose(p);
    g.dst = out;
    g.c   = &c;
    err   = H5Literate(in, (order & H5P_CRT_ORDER_INDEXED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME, H5_ITER_INC, NULL, VIH5CopyMember, &g);
  }
  if (out >= 0) H5Gclose(out);
  H5Gclose(in);
  if (err < 0) {
    if (!c.failed) snprintf(c.why, sizeof(c.why), "cannot copy it (not a group of datasets and groups?)");
    VIH5Fail(dst, c.why, "%.200s, copied from %.1000s", dst_path, sname);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5CheckpointRead(MPI_Comm comm, const char path[], const char format[], const char what[], const char tag[],
                                  PetscErrorCode (*load)(void *, hid_t, PetscBool *, char[], size_t), void *ctx, PetscBool *restored, char why[],
                                  size_t len)
{
  hid_t          file = -1;
  PetscBool      ok   = PETSC_FALSE;
  PetscErrorCode ierr;
  PetscMPIInt    mine, all;
  char          *s = NULL;

  PetscFunctionBeginUser;
  why[0] = 0;
  /* a damaged file is not an error of the job: the case starts again from its beginning */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = VIH5Open(path, &file);
  if (!ierr) ierr = VIH5ReadAttrStringAlloc(file, "/", "format", &s);
  if (!ierr && strcmp(s, format)) (void)PetscSNPrintf(why, len, "not %s (format '%s')", what, s);
  (void)PetscFree(s);
  if (!ierr && !why[0]) ierr = VIH5ReadAttrStringAlloc(file, "/", "tag", &s);
  if (!ierr && !why[0] && strcmp(s, tag)) (void)PetscSNPrintf(why, len, "it belongs to another job or case");
  (void)PetscFree(s);
  if (!ierr && !why[0]) ierr = load(ctx, file, &ok, why, len);
  if (file >= 0) {
    PetscErrorCode cerr = VIH5Close(&file);
    if (!ierr) ierr = cerr;
  }
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(why, len, "it cannot be read"));
  }
  mine = ok ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm));
  if (!all && ok) PetscCall(PetscSNPrintf(why, len, "another rank of the group cannot read it"));
  *restored = all ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5ReadRealExact(hid_t file, const char name[], PetscInt len, PetscReal dst[], PetscBool *ok)
{
  PetscInt   rows, cols;
  PetscReal *v;

  PetscFunctionBeginUser;
  *ok = PETSC_TRUE;
  if (!len) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIH5ReadReal(file, name, &rows, &cols, &v));
  if (rows * PetscMax(cols, 1) == len)
    PetscCall(PetscArraycpy(dst, v, len));
  else
    *ok = PETSC_FALSE;
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}
