/* The full-field recovery kept in a ROM file (group /fields): the rows of the reduction basis on a set of parent nodes and the
   cells that show them, so that `vicms fields` maps ROM coordinates q to the parent's displacements u = Q R q on those nodes. */
#include "cmsimpl.h"
#include <vicms/io.h>

const char *const VICMSFieldsTypes[] = {"surface", "all", "none", "VICMSFields", "VI_CMS_FIELDS_", NULL};

/* The faces of the solid elements, in Abaqus local node numbers, corners first then mid-edge nodes, each seen from outside
   (XDMF codes: 4 triangle, 5 quadrilateral, 36 six-node triangle, 37 eight-node quadrilateral). */
typedef struct {
  PetscInt num_faces, corners[6], nodes[6], code[6], n[6][8];
} VIFaceTable;

static const VIFaceTable VIFacesHex8  = {6,
                                         {4, 4, 4, 4, 4, 4},
                                         {4, 4, 4, 4, 4, 4},
                                         {5, 5, 5, 5, 5, 5},
                                         {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}}};
static const VIFaceTable VIFacesHex20 = {6,
                                         {4, 4, 4, 4, 4, 4},
                                         {8, 8, 8, 8, 8, 8},
                                         {37, 37, 37, 37, 37, 37},
                                         {{0, 3, 2, 1, 11, 10, 9, 8},
                                          {4, 5, 6, 7, 12, 13, 14, 15},
                                          {0, 1, 5, 4, 8, 17, 12, 16},
                                          {1, 2, 6, 5, 9, 18, 13, 17},
                                          {2, 3, 7, 6, 10, 19, 14, 18},
                                          {3, 0, 4, 7, 11, 16, 15, 19}}};
static const VIFaceTable VIFacesTet4  = {4, {3, 3, 3, 3}, {3, 3, 3, 3}, {4, 4, 4, 4}, {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}}};
static const VIFaceTable VIFacesTet10 = {
    4, {3, 3, 3, 3}, {6, 6, 6, 6}, {36, 36, 36, 36}, {{0, 2, 1, 6, 5, 4}, {0, 1, 3, 4, 8, 7}, {1, 2, 3, 5, 9, 8}, {0, 3, 2, 7, 9, 6}}};
static const VIFaceTable VIFacesWedge6 = {
    5, {3, 3, 4, 4, 4}, {3, 3, 4, 4, 4}, {4, 4, 5, 5, 5}, {{0, 2, 1}, {3, 4, 5}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}}};
static const VIFaceTable VIFacesWedge15 = {
    5,
    {3, 3, 4, 4, 4},
    {6, 6, 8, 8, 8},
    {36, 36, 37, 37, 37},
    {{0, 2, 1, 8, 7, 6}, {3, 4, 5, 9, 10, 11}, {0, 1, 4, 3, 6, 13, 9, 12}, {1, 2, 5, 4, 7, 14, 10, 13}, {2, 0, 3, 5, 8, 12, 11, 14}}};

static const VIFaceTable *VIFaces(VIElementType type)
{
  switch (type) {
  case VI_ELEM_C3D8:
    return &VIFacesHex8;
  case VI_ELEM_C3D20:
    return &VIFacesHex20;
  case VI_ELEM_C3D4:
    return &VIFacesTet4;
  case VI_ELEM_C3D10:
    return &VIFacesTet10;
  case VI_ELEM_C3D6:
    return &VIFacesWedge6;
  case VI_ELEM_C3D15:
    return &VIFacesWedge15;
  default:
    return NULL;
  }
}

/* A face by its sorted corner mesh nodes (-1 padding for a triangle), the element and its local face number. */
typedef struct {
  PetscInt key[4], e, f;
} VIFaceRecord;

static int VIFaceCompare(const void *a, const void *b)
{
  const VIFaceRecord *x = (const VIFaceRecord *)a, *y = (const VIFaceRecord *)b;
  for (int i = 0; i < 4; i++)
    if (x->key[i] != y->key[i]) return x->key[i] < y->key[i] ? -1 : 1;
  return 0;
}

/* The display cells as a list of (XDMF code, nodes) in mesh node numbers: with surface, the faces of the solid elements that no
   other element shares and every element of lower dimension; else every element. Mixed-topology array (codes and nodes), its
   size, and the count of cells. */
static PetscErrorCode VICMSFieldsCells(VIMesh mesh, PetscBool surface, PetscInt *ncells, PetscInt *size, PetscInt **topo)
{
  PetscInt      ne, nrec = 0, cap = 0, pos = 0, count = 0;
  VIFaceRecord *rec;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetSizes(mesh, NULL, &ne));
  for (PetscInt e = 0; e < ne; e++) {
    VIElementType      type;
    const VIFaceTable *ft;
    PetscCall(VIMeshGetElement(mesh, e, &type, NULL, NULL));
    ft = VIFaces(type);
    cap += (surface && ft) ? ft->num_faces : 1;
  }
  PetscCall(PetscMalloc1(PetscMax(cap, 1), &rec));
  /* the element itself (f = -1) or each of its faces */
  for (PetscInt e = 0; e < ne; e++) {
    VIElementType      type;
    const VIFaceTable *ft;
    const PetscInt    *nodes;
    PetscCall(VIMeshGetElement(mesh, e, &type, NULL, &nodes));
    ft = surface ? VIFaces(type) : NULL;
    if (!ft) {
      rec[nrec].key[0] = -1 - e; /* unique */
      rec[nrec].key[1] = rec[nrec].key[2] = rec[nrec].key[3] = -1;
      rec[nrec].e                                            = e;
      rec[nrec++].f                                          = -1;
      continue;
    }
    for (PetscInt f = 0; f < ft->num_faces; f++) {
      PetscInt *k = rec[nrec].key;
      k[3]        = -1;
      for (PetscInt c = 0; c < ft->corners[f]; c++) k[c] = nodes[ft->n[f][c]];
      PetscCall(PetscSortInt(ft->corners[f], k));
      rec[nrec].e   = e;
      rec[nrec++].f = f;
    }
  }
  qsort(rec, (size_t)nrec, sizeof(VIFaceRecord), VIFaceCompare);
  /* a face shared by two elements is inside: keep the records whose key appears once */
  PetscCall(PetscMalloc1(PetscMax(nrec * 22, 1), topo));
  for (PetscInt i = 0; i < nrec; i++) {
    VIElementType   type;
    PetscInt        nen;
    const PetscInt *nodes;
    if ((i > 0 && !VIFaceCompare(&rec[i], &rec[i - 1])) || (i + 1 < nrec && !VIFaceCompare(&rec[i], &rec[i + 1]))) continue;
    PetscCall(VIMeshGetElement(mesh, rec[i].e, &type, &nen, &nodes));
    if (rec[i].f < 0) {
      PetscInt tsize;
      /* the element as the mesh writer puts it (its code and node order) */
      PetscCall(VIXdmfElementCell(type, nen, nodes, *topo + pos, &tsize));
      pos += tsize;
    } else {
      const VIFaceTable *ft = VIFaces(type);
      (*topo)[pos++]        = ft->code[rec[i].f];
      for (PetscInt c = 0; c < ft->nodes[rec[i].f]; c++) (*topo)[pos++] = nodes[ft->n[rec[i].f][c]];
    }
    count++;
  }
  PetscCall(PetscFree(rec));
  *ncells = count;
  *size   = pos;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSComputeFields(VICMS cms, VIROM rom, VIROMFields *f)
{
  VIMesh           mesh;
  PetscInt         nn, dim, n, nkeep = 0, ncells = 0, tsize = 0, *topo, *where, *keep, *kdofs, rstart, rend, lda, mine = 0;
  PetscBool        surface = PETSC_TRUE;
  Mat              QR;
  PetscMPIInt      rank, size;
  char             kind[96];

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(f, sizeof(*f)));
  if (cms->fields == VI_CMS_FIELDS_NONE && !cms->fields_set[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(cms->R, cms->comm, PETSC_ERR_ORDER, "Call VICMSReduce() first");
  PetscCall(PetscLogEventBegin(VI_Project, 0, 0, 0, 0));
  PetscCallMPI(MPI_Comm_rank(cms->comm, &rank));
  PetscCallMPI(MPI_Comm_size(cms->comm, &size));
  PetscCall(VIModelGetMesh(cms->model, &mesh));
  PetscCall(VIMeshGetSizes(mesh, &nn, NULL));
  PetscCall(VIMeshGetDimension(mesh, &dim));
  PetscCall(MatGetSize(cms->R, NULL, &n));
  /* the kept nodes (where[node] = its row block, -1 if not kept) and their cells */
  PetscCall(PetscMalloc2(nn, &where, nn, &keep));
  for (PetscInt i = 0; i < nn; i++) where[i] = -1;
  if (cms->fields == VI_CMS_FIELDS_ALL && !cms->fields_set[0]) surface = PETSC_FALSE;
  PetscCall(VICMSFieldsCells(mesh, surface, &ncells, &tsize, &topo));
  if (cms->fields_set[0]) {
    PetscInt        nset;
    const PetscInt *set;
    PetscCall(VIMeshRequireNodeSet(mesh, "-cms_fields_nodes", cms->fields_set, &nset, &set));
    for (PetscInt i = 0; i < nset; i++) where[set[i]] = 0;
    PetscCall(PetscSNPrintf(kind, sizeof(kind), "set %s", cms->fields_set));
  } else {
    /* the nodes of the cells */
    for (PetscInt p = 0; p < tsize;) {
      PetscInt code = topo[p++], m;
      m             = (code == 1 || code == 2) ? topo[p++] : VIXdmfCellNodes(code);
      for (PetscInt c = 0; c < m; c++) where[topo[p + c]] = 0;
      p += m;
    }
    if (!ncells)
      for (PetscInt i = 0; i < nn; i++) where[i] = 0; /* a parent without elements (given as matrices): its nodes */
    PetscCall(PetscStrncpy(kind, surface ? "surface" : "all", sizeof(kind)));
  }
  for (PetscInt i = 0; i < nn; i++)
    if (!where[i]) {
      keep[nkeep] = i;
      where[i]    = nkeep++;
    }
  {
    /* the cells all of whose nodes are kept, renumbered to the kept nodes; none: one vertex cell per kept node */
    PetscInt q = 0, kept = 0;
    for (PetscInt p = 0; p < tsize;) {
      PetscInt  start = p, code = topo[p++], m = (code == 1 || code == 2) ? topo[p++] : VIXdmfCellNodes(code);
      PetscBool all = PETSC_TRUE;
      for (PetscInt c = 0; c < m; c++) all = (PetscBool)(all && where[topo[p + c]] >= 0);
      if (all) {
        for (PetscInt j = start; j < p; j++) topo[q++] = topo[j];
        for (PetscInt c = 0; c < m; c++) topo[q++] = where[topo[p + c]];
        kept++;
      }
      p += m;
    }
    tsize  = q;
    ncells = kept;
    if (!ncells) {
      PetscCall(PetscFree(topo));
      PetscCall(PetscMalloc1(3 * PetscMax(nkeep, 1), &topo));
      for (PetscInt i = 0; i < nkeep; i++) {
        topo[3 * i]     = 1;
        topo[3 * i + 1] = 1;
        topo[3 * i + 2] = i;
      }
      tsize  = 3 * nkeep;
      ncells = nkeep;
    }
  }
  /* the rows of u = Q R q on the kept DOFs, each rank its own rows, gathered on rank 0: 3 rows per kept node (x, y, z; zero where
     clamped or beyond the model's dimension) */
  if (cms->Q)
    PetscCall(MatMatMult(cms->Q, cms->R, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &QR));
  else {
    PetscCall(PetscObjectReference((PetscObject)cms->R));
    QR = cms->R;
  }
  PetscCall(MatGetOwnershipRange(QR, &rstart, &rend));
  PetscCall(MatDenseGetLDA(QR, &lda));
  PetscCall(PetscMalloc1(nkeep * dim, &kdofs));
  PetscCall(VIModelGetNodeDofs(cms->model, nkeep, keep, kdofs));
  for (PetscInt i = 0; i < nkeep * dim; i++)
    if (kdofs[i] >= rstart && kdofs[i] < rend) mine++;
  {
    const PetscScalar *a;
    PetscInt          *rows, k    = 0;
    PetscReal         *vals, *all = NULL;
    PetscMPIInt       *counts = NULL, *displs = NULL, cnt;
    PetscInt          *allrows = NULL;
    PetscCall(PetscMalloc2(PetscMax(mine, 1), &rows, PetscMax(mine, 1) * n, &vals));
    PetscCall(MatDenseGetArrayRead(QR, &a));
    for (PetscInt i = 0; i < nkeep; i++)
      for (PetscInt d = 0; d < dim; d++) {
        PetscInt dof = kdofs[i * dim + d];
        if (dof < rstart || dof >= rend) continue;
        rows[k] = 3 * i + d;
        for (PetscInt j = 0; j < n; j++) vals[k * n + j] = PetscRealPart(a[j * lda + dof - rstart]);
        k++;
      }
    PetscCall(MatDenseRestoreArrayRead(QR, &a));
    PetscCall(PetscMPIIntCast(mine, &cnt));
    if (rank == 0) PetscCall(PetscMalloc2(size, &counts, size + 1, &displs));
    PetscCallMPI(MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, cms->comm));
    if (rank == 0) {
      displs[0] = 0;
      for (PetscMPIInt r = 0; r < size; r++) displs[r + 1] = displs[r] + counts[r];
      PetscCall(PetscMalloc1(PetscMax(displs[size], 1), &allrows));
    }
    PetscCallMPI(MPI_Gatherv(rows, cnt, MPIU_INT, allrows, counts, displs, MPIU_INT, 0, cms->comm));
    if (rank == 0) {
      PetscInt total = displs[size];
      PetscCall(PetscMalloc1(PetscMax(total * n, 1), &all));
      for (PetscMPIInt r = 0; r <= size; r++) PetscCall(PetscMPIIntCast((PetscInt)displs[r] * n, &displs[r]));
      for (PetscMPIInt r = 0; r < size; r++) PetscCall(PetscMPIIntCast((PetscInt)counts[r] * n, &counts[r]));
    }
    PetscCall(PetscMPIIntCast(mine * n, &cnt));
    PetscCallMPI(MPI_Gatherv(vals, cnt, MPIU_REAL, all, counts, displs, MPIU_REAL, 0, cms->comm));
    PetscCall(PetscFree2(rows, vals));
    PetscCall(PetscFree(kdofs));
    if (rank == 0) {
      const char *units;
      PetscCall(PetscCalloc1(PetscMax(3 * nkeep * n, 1), &f->basis));
      PetscCall(PetscCalloc1(PetscMax(3 * nkeep, 1), &f->xyz));
      PetscCall(PetscMalloc1(PetscMax(nkeep, 1), &f->ids));
      for (PetscInt r = 0; r < displs[size] / PetscMax(n, 1); r++) PetscCall(PetscArraycpy(f->basis + allrows[r] * n, all + r * n, n));
      PetscCall(VIROMGetUnits(rom, &units));
      PetscCall(VIUnitsLength(units, f->length, sizeof(f->length)));
      PetscCall(PetscFree(all));
      PetscCall(PetscFree(allrows));
      PetscCall(PetscFree2(counts, displs));
    }
  }
  /* the kept nodes' points and ids, looked up for rank 0 (VIModelGetNodeCoordinates: read where the nodes are held, not from
     the replicated mesh; 3 coordinates per node, zeros beyond the mesh's dimension) */
  {
    PetscReal none_x[3];
    PetscInt  none_id[1];
    PetscCall(VIModelGetNodeCoordinates(cms->model, rank == 0 ? nkeep : 0, keep, rank == 0 ? f->xyz : none_x, rank == 0 ? f->ids : none_id));
  }
  /* every rank knows the sizes; rank 0 holds the arrays */
  PetscCall(PetscStrncpy(f->kind, kind, sizeof(f->kind)));
  f->nk     = nkeep;
  f->n      = n;
  f->ncells = ncells;
  f->tsize  = tsize;
  if (rank == 0) {
    f->topo = topo;
    topo    = NULL;
  }
  PetscCall(MatDestroy(&QR));
  PetscCall(PetscFree(topo));
  PetscCall(PetscFree2(where, keep));
  PetscCall(PetscLogEventEnd(VI_Project, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSWriteFields(VICMS cms, VIROM rom, const char path[])
{
  VIROMFields    f;
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCall(VICMSComputeFields(cms, rom, &f));
  if (!f.nk) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(cms->comm, &rank));
  if (rank == 0) {
    /* an error is returned, not raised, so that the other ranks learn of it */
    hid_t file = -1;
    ierr       = VIH5OpenWrite(path, &file);
    if (!ierr) ierr = VIROMFieldsWrite(file, "/fields", &f);
    if (file >= 0) {
      PetscErrorCode ierr_close = VIH5Close(&file);
      if (!ierr) ierr = ierr_close;
    }
  }
  PetscCall(VIErrorSync(cms->comm, ierr));
  PetscCall(PetscPrintf(
      cms->comm, "Fields: the basis on %" PetscInt_FMT " nodes (%s) and %" PetscInt_FMT " cells kept in %s, %" PetscInt_FMT " bytes per kept DOF\n",
      f.nk, f.kind, f.ncells, path, f.n * (PetscInt)sizeof(PetscReal)));
  PetscCall(VIROMFieldsReset(&f));
  PetscFunctionReturn(PETSC_SUCCESS);
}
