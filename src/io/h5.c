/* Small HDF5 helpers: files, datasets of reals and integers, attributes; used on one rank. */
#include <vicms/io.h>

#define VIH5Check(call, ...) PetscCheck((call) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, __VA_ARGS__)

PetscErrorCode VIH5Create(const char path[], hid_t *file)
{
  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  *file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  PetscCheck(*file >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create HDF5 file %s (does its folder exist and is it writable?)", path);
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

PetscErrorCode VIH5Close(hid_t *file)
{
  PetscFunctionBeginUser;
  if (*file >= 0) VIH5Check(H5Fclose(*file), "Cannot close an HDF5 file");
  *file = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIH5Write(hid_t file, const char path[], PetscInt rows, PetscInt cols, hid_t type, const void *data)
{
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
  hid_t   space, lcpl, dset;

  PetscFunctionBeginUser;
  space = H5Screate_simple(cols > 0 ? 2 : 1, dims, NULL);
  lcpl  = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  dset = H5Dcreate2(file, path, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  PetscCheck(dset >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot create dataset %s", path);
  if (rows > 0) VIH5Check(H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "Cannot write dataset %s", path);
  H5Dclose(dset);
  H5Pclose(lcpl);
  H5Sclose(space);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5WriteReal(hid_t file, const char path[], PetscInt rows, PetscInt cols, const PetscReal data[])
{
  PetscFunctionBeginUser;
  PetscCall(VIH5Write(file, path, rows, cols, H5T_NATIVE_DOUBLE, data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5WriteInt(hid_t file, const char path[], PetscInt rows, PetscInt cols, const PetscInt data[])
{
  PetscFunctionBeginUser;
  PetscCall(VIH5Write(file, path, rows, cols, sizeof(PetscInt) == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32, data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIH5WriteAttr(hid_t file, const char obj[], const char name[], hid_t type, const void *value)
{
  hid_t space = H5Screate(H5S_SCALAR), attr;

  PetscFunctionBeginUser;
  if (H5Aexists_by_name(file, obj, name, H5P_DEFAULT) > 0) H5Adelete_by_name(file, obj, name, H5P_DEFAULT);
  attr = H5Acreate_by_name(file, obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  PetscCheck(attr >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot create attribute %s on %s", name, obj);
  VIH5Check(H5Awrite(attr, type, value), "Cannot write attribute %s on %s", name, obj);
  H5Aclose(attr);
  H5Sclose(space);
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
