/* Mesh geometry and topology in HDF5, and XDMF files that let ParaView show nodal fields on it. */
#include <vicms/io.h>
#include <string.h>

/* XDMF cell codes and the permutation from Abaqus node order (XDMF follows VTK: same as Abaqus except that the
   wedge's base triangle runs the other way). */
static PetscErrorCode VIXdmfCell(VIElementType type, PetscInt *code, const PetscInt **perm)
{
  static const PetscInt wedge6[6] = {0, 2, 1, 3, 5, 4}, wedge15[15] = {0, 2, 1, 3, 5, 4, 8, 7, 6, 11, 10, 9, 12, 14, 13};

  PetscFunctionBeginUser;
  *perm = NULL;
  switch (type) {
  case VI_ELEM_T3D2:
    *code = 2;
    break;
  case VI_ELEM_CPS3:
  case VI_ELEM_CPE3:
    *code = 4;
    break;
  case VI_ELEM_CPS4:
  case VI_ELEM_CPE4:
    *code = 5;
    break;
  case VI_ELEM_CPS8:
  case VI_ELEM_CPE8:
    *code = 37;
    break;
  case VI_ELEM_C3D4:
    *code = 6;
    break;
  case VI_ELEM_C3D10:
    *code = 38;
    break;
  case VI_ELEM_C3D8:
    *code = 9;
    break;
  case VI_ELEM_C3D20:
    *code = 48;
    break;
  case VI_ELEM_C3D6:
    *code = 8;
    *perm = wedge6;
    break;
  case VI_ELEM_C3D15:
    *code = 40;
    *perm = wedge15;
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "No XDMF cell for element type %d", (int)type);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIXdmfElementCell(VIElementType type, PetscInt nen, const PetscInt nodes[], PetscInt cell[], PetscInt *len)
{
  PetscInt        code, pos = 0;
  const PetscInt *perm;

  PetscFunctionBeginUser;
  PetscCall(VIXdmfCell(type, &code, &perm));
  cell[pos++] = code;
  if (type == VI_ELEM_T3D2) cell[pos++] = nen;
  for (PetscInt k = 0; k < nen; k++) cell[pos++] = nodes[perm ? perm[k] : k];
  *len = pos;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt VIXdmfCellNodes(PetscInt code)
{
  switch (code) {
  case 4:
    return 3;
  case 5:
  case 6:
    return 4;
  case 8:
    return 6;
  case 9:
  case 37:
    return 8;
  case 36:
    return 6;
  case 38:
    return 10;
  case 40:
    return 15;
  case 48:
    return 20;
  default:
    return -1;
  }
}

/* The entries of the XDMF mixed topology of the whole mesh, from its counts of elements of each type (a mesh in parts holds its own
   elements only) */
static PetscErrorCode VIXdmfMeshTopologySize(VIMesh mesh, PetscInt *size)
{
  const PetscInt *count;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetElementTypeCounts(mesh, &count));
  *size = 0;
  for (PetscInt t = 0; t < VI_ELEM_NUM_TYPES; t++) *size += count[t] * (1 + VIElementInfoTable[t].num_nodes + (t == VI_ELEM_T3D2 ? 1 : 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5CreateMesh(hid_t file, const char group[], VIMesh mesh)
{
  PetscInt nn, ne, size;
  char     path[256];

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetSizes(mesh, &nn, &ne));
  PetscCall(VIXdmfMeshTopologySize(mesh, &size));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/coordinates", group));
  PetscCall(VIH5CreateDataset(file, path, nn, 3, H5T_NATIVE_DOUBLE));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/node_ids", group));
  PetscCall(VIH5CreateDataset(file, path, nn, 0, sizeof(PetscInt) == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/topology", group));
  PetscCall(VIH5CreateDataset(file, path, size, 0, sizeof(PetscInt) == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32));
  PetscCall(VIH5WriteAttrInt(file, path, "num_elements", ne));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIH5WriteMeshRows(MPI_Comm comm, hid_t file, hid_t dxpl, const char group[], VIMesh mesh, PetscInt row0, PetscInt nrows, PetscInt e0,
                                 PetscInt e1, PetscBool *bad)
{
  PetscInt   t0 = 0, size = 0, nrec = 0, pos = 0, *ids, *rec, *topo;
  PetscReal *xyz;
  char       path[256];
  hid_t      itype = sizeof(PetscInt) == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32;

  PetscFunctionBeginUser;
  /* the rows' points and ids, and the block's elements (type, count, nodes): collectively from the ranks that hold them (a mesh
     in parts), or by a single writer from a replicated mesh or a box's index space */
  PetscCall(PetscCalloc2(3 * PetscMax(nrows, 1), &xyz, PetscMax(nrows, 1), &ids));
  if (comm != MPI_COMM_NULL) {
    PetscCall(VIMeshGetNodeRows(mesh, row0, nrows, xyz, ids));
    PetscCall(VIMeshGetElementRecords(mesh, e0, e1, &nrec, &rec));
  } else {
    for (PetscInt i = 0; i < nrows; i++) PetscCall(VIMeshGetNodePoint(mesh, row0 + i, xyz + 3 * i, ids + i));
    PetscCall(PetscMalloc1(PetscMax(22 * (e1 - e0), 1), &rec));
    for (PetscInt e = e0; e < e1; e++) {
      VIElementType   type;
      PetscInt        nen;
      const PetscInt *nodes;
      PetscCall(VIMeshGetElement(mesh, e, &type, &nen, &nodes));
      rec[nrec++] = type;
      rec[nrec++] = nen;
      for (PetscInt k = 0; k < nen; k++) rec[nrec++] = nodes[k];
    }
  }
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/coordinates", group));
  PetscCall(VIH5WriteRows(file, dxpl, path, H5T_NATIVE_DOUBLE, row0, nrows, 3, xyz, bad));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/node_ids", group));
  PetscCall(VIH5WriteRows(file, dxpl, path, itype, row0, nrows, 0, ids, bad));
  PetscCall(PetscFree2(xyz, ids));
  /* the elements' cells: their entries start after those of the elements before e0 (the ranks before this one's) */
  for (PetscInt p = 0; p < nrec; p += 2 + rec[p + 1]) size += 1 + rec[p + 1] + (rec[p] == VI_ELEM_T3D2 ? 1 : 0);
  if (comm != MPI_COMM_NULL) {
    PetscCallMPI(MPI_Exscan(&size, &t0, 1, MPIU_INT, MPI_SUM, comm));
    if (e0 == 0) t0 = 0; /* MPI_Exscan leaves rank 0's undefined */
  }
  PetscCall(PetscMalloc1(PetscMax(size, 1), &topo));
  for (PetscInt p = 0; p < nrec; p += 2 + rec[p + 1]) {
    PetscInt len;
    PetscCall(VIXdmfElementCell((VIElementType)rec[p], rec[p + 1], rec + p + 2, topo + pos, &len));
    pos += len;
  }
  PetscCall(PetscFree(rec));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/topology", group));
  PetscCall(VIH5WriteRows(file, dxpl, path, itype, t0, size, 0, topo, bad));
  PetscCall(PetscFree(topo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIXdmfWriteFields(const char xmf_path[], const char h5_name[], VIMesh mesh, const char field[], PetscInt n, const PetscReal times[])
{
  FILE    *fp;
  PetscInt nn, ne, size;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetSizes(mesh, &nn, &ne));
  PetscCall(VIXdmfMeshTopologySize(mesh, &size));
  fp = fopen(xmf_path, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create %s", xmf_path);
  fprintf(fp,
          "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n <Domain>\n  <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
          field);
  for (PetscInt k = 0; k < n; k++) {
    fprintf(fp, "   <Grid Name=\"%s %" PetscInt_FMT "\" GridType=\"Uniform\">\n    <Time Value=\"%.12g\"/>\n", field, k + 1, (double)times[k]);
    fprintf(fp, "    <Topology TopologyType=\"Mixed\" NumberOfElements=\"%" PetscInt_FMT "\">\n", ne);
    fprintf(fp,
            "     <DataItem Dimensions=\"%" PetscInt_FMT
            "\" NumberType=\"Int\" Precision=\"%d\" Format=\"HDF\">%s:/mesh/topology</DataItem>\n    </Topology>\n",
            size, (int)sizeof(PetscInt), h5_name);
    fprintf(fp,
            "    <Geometry GeometryType=\"XYZ\">\n     <DataItem Dimensions=\"%" PetscInt_FMT
            " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/mesh/coordinates</DataItem>\n    </Geometry>\n",
            nn, h5_name);
    fprintf(fp, "    <Attribute Name=\"%s\" AttributeType=\"Vector\" Center=\"Node\">\n", field);
    fprintf(fp,
            "     <DataItem Dimensions=\"%" PetscInt_FMT " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/%s/%" PetscInt_FMT
            "</DataItem>\n    </Attribute>\n   </Grid>\n",
            nn, h5_name, field, k + 1);
  }
  fprintf(fp, "  </Grid>\n </Domain>\n</Xdmf>\n");
  PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s (disk full?)", xmf_path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIXdmfWriteSeries(const char xmf_path[], const char h5_name[], const char title[], PetscInt nn, PetscInt ncells, PetscInt tsize,
                                 PetscInt nt, const PetscReal times[], PetscInt nf, const VIXdmfField fields[])
{
  FILE *fp;

  PetscFunctionBeginUser;
  fp = fopen(xmf_path, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create %s", xmf_path);
  fprintf(fp, "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n <Domain>\n");
  fprintf(fp, "  <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", title);
  for (PetscInt k = 0; k < nt; k++) {
    fprintf(fp, "   <Grid Name=\"%s %" PetscInt_FMT "\" GridType=\"Uniform\">\n    <Time Value=\"%.17g\"/>\n", title, k, (double)times[k]);
    /* the mesh in every grid (a Reference to one copy stops ParaView's Xdmf3 reader): its data are read from the same datasets */
    fprintf(fp,
            "    <Topology TopologyType=\"Mixed\" NumberOfElements=\"%" PetscInt_FMT "\">\n     <DataItem Dimensions=\"%" PetscInt_FMT
            "\" NumberType=\"Int\" Precision=\"%d\" Format=\"HDF\">%s:/mesh/topology</DataItem>\n    </Topology>\n",
            ncells, tsize, (int)sizeof(PetscInt), h5_name);
    fprintf(fp,
            "    <Geometry GeometryType=\"XYZ\">\n     <DataItem Dimensions=\"%" PetscInt_FMT
            " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/mesh/coordinates</DataItem>\n    </Geometry>\n",
            nn, h5_name);
    for (PetscInt f = 0; f < nf; f++) {
      if (fields[f].ncomp == 3)
        fprintf(fp, "    <Attribute Name=\"%s\" AttributeType=\"Vector\" Center=\"Node\">\n", fields[f].name);
      else
        fprintf(fp, "    <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"Node\">\n", fields[f].name);
      fprintf(fp, "     <DataItem Dimensions=\"%" PetscInt_FMT, nn);
      if (fields[f].ncomp > 1) fprintf(fp, " %" PetscInt_FMT, fields[f].ncomp);
      if (fields[f].constant)
        fprintf(fp, "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:%s</DataItem>\n    </Attribute>\n", h5_name, fields[f].group);
      else
        fprintf(fp, "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:%s/%" PetscInt_FMT "</DataItem>\n    </Attribute>\n", h5_name,
                fields[f].group, k);
    }
    fprintf(fp, "   </Grid>\n");
  }
  fprintf(fp, "  </Grid>\n </Domain>\n</Xdmf>\n");
  PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s (disk full?)", xmf_path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIXdmfPath(const char h5_path[], char xmf_path[], size_t len, const char **h5_name)
{
  const char *slash = strrchr(h5_path, '/');
  size_t      n;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(xmf_path, h5_path, len));
  PetscCall(PetscStrlen(xmf_path, &n));
  if (n > 3 && !strcmp(xmf_path + n - 3, ".h5")) xmf_path[n - 3] = 0;
  PetscCall(PetscStrlcat(xmf_path, ".xmf", len));
  *h5_name = slash ? slash + 1 : h5_path;
  PetscFunctionReturn(PETSC_SUCCESS);
}
