/* The full-field recovery kept in a ROM file (group /fields): the rows of the reduction basis on a set of parent nodes and the
   cells that show them, so that `vicms fields` maps ROM coordinates q to the parent's displacements u = Q R q on those nodes. */
#include "cmsimpl.h"
#include <vicms/io.h>
#include <petscsf.h>

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
   size, and the count of cells, in the order of the faces' sorted corner nodes (an element's own cell first, by descending
   element number), the same on every rank. Each rank makes the records of its own elements only and sends each to the rank of
   its first corner's block of nodes (an element's own cell to rank 0), which sorts them and drops the faces met twice; the
   ranks' cells, in rank order, are then the whole list (Allgatherv). No rank passes over every element. Collective. */
static PetscErrorCode VICMSFieldsCells(VIMesh mesh, PetscBool surface, PetscInt *ncells, PetscInt *size, PetscInt **topo)
{
  const PetscInt *local;
  PetscInt        nn, nlocal, nsend = 0, nrecv, nrec = 0, pos = 0, count = 0, *send, *recv, *cells, *dest, *len, *perm, *counts;
  PetscMPIInt     nranks, mine[2], *all, *displs, nto = 0, *toranks;
  VIFaceRecord   *rec;
  PetscSF         sf;
  MPI_Comm        comm;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetComm(mesh, &comm));
  PetscCallMPI(MPI_Comm_size(comm, &nranks));
  PetscCall(VIMeshGetSizes(mesh, &nn, NULL));
  PetscCall(VIMeshGetLocalElements(mesh, &nlocal, &local));
  /* this rank's records [key[4], cell size, cell]: a face's cell is its code and nodes, an element's at most 2 + its nodes */
  for (PetscInt i = 0; i < nlocal; i++) {
    VIElementType      type;
    const VIFaceTable *ft;
    PetscInt           nen;
    PetscCall(VIMeshGetElement(mesh, local[i], &type, &nen, NULL));
    ft = surface ? VIFaces(type) : NULL;
    nrec += ft ? ft->num_faces : 1;
    if (ft)
      for (PetscInt f = 0; f < ft->num_faces; f++) nsend += 6 + ft->nodes[f];
    else
      nsend += 7 + nen;
  }
  PetscCall(PetscMalloc3(PetscMax(nsend, 1), &cells, PetscMax(nrec, 1), &dest, PetscMax(nrec + 1, 1), &len));
  nsend  = 0;
  len[0] = 0;
  for (PetscInt i = 0, r = 0; i < nlocal; i++) {
    VIElementType      type;
    const VIFaceTable *ft;
    const PetscInt    *nodes;
    PetscInt           e = local[i], nen;
    PetscCall(VIMeshGetElement(mesh, e, &type, &nen, &nodes));
    ft = surface ? VIFaces(type) : NULL;
    for (PetscInt f = 0; f < (ft ? ft->num_faces : 1); f++, r++) {
      PetscInt *k = cells + len[r], tsize;
      if (!ft) {
        k[0] = -1 - e; /* unique */
        k[1] = k[2] = k[3] = -1;
        PetscCall(VIXdmfElementCell(type, nen, nodes, k + 5, &tsize)); /* the element as the mesh writer puts it */
      } else {
        k[3] = -1;
        for (PetscInt c = 0; c < ft->corners[f]; c++) k[c] = nodes[ft->n[f][c]];
        PetscCall(PetscSortInt(ft->corners[f], k));
        k[5] = ft->code[f];
        for (PetscInt c = 0; c < ft->nodes[f]; c++) k[6 + c] = nodes[ft->n[f][c]];
        tsize = 1 + ft->nodes[f];
      }
      k[4]       = tsize;
      len[r + 1] = len[r] + 5 + tsize;
      dest[r]    = k[0] < 0 ? 0 : (PetscInt)(((PetscInt64)k[0] * nranks) / nn);
    }
  }
  /* grouped by destination rank */
  PetscCall(PetscMalloc1(PetscMax(nrec, 1), &perm));
  for (PetscInt r = 0; r < nrec; r++) perm[r] = r;
  PetscCall(PetscSortIntWithArray(nrec, dest, perm));
  PetscCall(PetscMalloc3(PetscMax(len[nrec], 1), &send, PetscMax(nrec, 1), &toranks, PetscMax(nrec, 1), &counts));
  for (PetscInt q = 0; q < nrec; q++) {
    PetscInt r = perm[q], m = len[r + 1] - len[r];
    if (!q || dest[q] != dest[q - 1]) {
      toranks[nto]  = (PetscMPIInt)dest[q];
      counts[nto++] = 0;
    }
    counts[nto - 1] += m;
    PetscCall(PetscArraycpy(send + nsend, cells + len[r], m));
    nsend += m;
  }
  PetscCall(PetscFree3(cells, dest, len));
  PetscCall(PetscFree(perm));
  PetscCall(VISFCreateSend(comm, nto, toranks, counts, &sf));
  PetscCall(PetscSFGetGraph(sf, NULL, &nrecv, NULL, NULL));
  PetscCall(PetscMalloc1(PetscMax(nrecv, 1), &recv));
  PetscCall(PetscSFBcastBegin(sf, MPIU_INT, send, recv, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, send, recv, MPI_REPLACE));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree3(send, toranks, counts));
  /* the records sent here, sorted by key (e: the record's place in recv); a face shared by two elements is inside: keep the
     records whose key appears once */
  nrec = 0;
  for (PetscInt p = 0; p < nrecv; p += 5 + recv[p + 4]) nrec++;
  PetscCall(PetscMalloc1(PetscMax(nrec, 1), &rec));
  for (PetscInt p = 0, r = 0; p < nrecv; p += 5 + recv[p + 4], r++) {
    PetscCall(PetscArraycpy(rec[r].key, recv + p, 4));
    rec[r].e = p;
    rec[r].f = 0;
  }
  qsort(rec, (size_t)nrec, sizeof(VIFaceRecord), VIFaceCompare);
  PetscCall(PetscMalloc1(PetscMax(nrecv, 1), &cells));
  for (PetscInt i = 0; i < nrec; i++) {
    const PetscInt *k = recv + rec[i].e;
    if ((i > 0 && !VIFaceCompare(&rec[i], &rec[i - 1])) || (i + 1 < nrec && !VIFaceCompare(&rec[i], &rec[i + 1]))) continue;
    PetscCall(PetscArraycpy(cells + pos, k + 5, k[4]));
    pos += k[4];
    count++;
  }
  PetscCall(PetscFree(rec));
  PetscCall(PetscFree(recv));
  /* the whole list on every rank, in rank order (the ranks' blocks of keys ascend with the rank) */
  PetscCall(PetscMalloc2(2 * nranks, &all, nranks + 1, &displs));
  PetscCall(PetscMPIIntCast(pos, &mine[0]));
  PetscCall(PetscMPIIntCast(count, &mine[1]));
  PetscCallMPI(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm));
  *ncells   = 0;
  displs[0] = 0;
  for (PetscMPIInt r = 0; r < nranks; r++) {
    PetscCall(PetscMPIIntCast((PetscInt64)displs[r] + all[2 * r], &displs[r + 1]));
    all[r] = all[2 * r]; /* the sizes, packed in place (all[2 r] is read before all[r] is written for r >= 1) */
    *ncells += all[2 * r + 1];
  }
  *size = displs[nranks];
  PetscCall(PetscMalloc1(PetscMax(*size, 1), topo));
  PetscCallMPI(MPI_Allgatherv(cells, mine[0], MPIU_INT, *topo, all, displs, MPIU_INT, comm));
  PetscCall(PetscFree(cells));
  PetscCall(PetscFree2(all, displs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSComputeFields(VICMS cms, VIROM rom, VIROMFields *f)
{
  VIMesh           mesh;
  PetscInt         nn, dim, n, nkeep = 0, ncells = 0, tsize = 0, *topo, *keep = NULL, *kdofs, rstart, rend, lda, mine = 0;
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
  /* the kept nodes, ascending (a node's row block: its place in keep, by bisection; no array of the mesh's size), and their cells */
  if (cms->fields == VI_CMS_FIELDS_ALL && !cms->fields_set[0]) surface = PETSC_FALSE;
  PetscCall(VICMSFieldsCells(mesh, surface, &ncells, &tsize, &topo));
  if (cms->fields_set[0]) {
    PetscInt        nset;
    const PetscInt *set;
    PetscCall(VIMeshRequireNodeSet(mesh, "-cms_fields_nodes", cms->fields_set, &nset, &set));
    PetscCall(PetscMalloc1(nset, &keep));
    PetscCall(PetscArraycpy(keep, set, nset)); /* sorted, unique */
    nkeep = nset;
    PetscCall(PetscSNPrintf(kind, sizeof(kind), "set %s", cms->fields_set));
  } else if (!ncells) {
    /* a parent without elements (given as matrices): its nodes */
    PetscCall(PetscMalloc1(PetscMax(nn, 1), &keep));
    for (PetscInt i = 0; i < nn; i++) keep[i] = i;
    nkeep = nn;
    PetscCall(PetscStrncpy(kind, surface ? "surface" : "all", sizeof(kind)));
  } else {
    /* the nodes of the cells */
    PetscCall(PetscMalloc1(PetscMax(tsize, 1), &keep));
    for (PetscInt p = 0; p < tsize;) {
      PetscInt code = topo[p++], m;
      m             = (code == 1 || code == 2) ? topo[p++] : VIXdmfCellNodes(code);
      for (PetscInt c = 0; c < m; c++) keep[nkeep++] = topo[p + c];
      p += m;
    }
    PetscCall(PetscSortRemoveDupsInt(&nkeep, keep));
    PetscCall(PetscStrncpy(kind, surface ? "surface" : "all", sizeof(kind)));
  }
  {
    /* the cells all of whose nodes are kept, renumbered to the kept nodes; none: one vertex cell per kept node */
    PetscInt q = 0, kept = 0;
    for (PetscInt p = 0; p < tsize;) {
      PetscInt  start = p, code = topo[p++], m = (code == 1 || code == 2) ? topo[p++] : VIXdmfCellNodes(code);
      PetscBool all = PETSC_TRUE;
      for (PetscInt c = 0; c < m; c++) {
        PetscInt at;
        PetscCall(PetscFindInt(topo[p + c], nkeep, keep, &at));
        all = (PetscBool)(all && at >= 0);
      }
      if (all) {
        for (PetscInt j = start; j < p; j++) topo[q++] = topo[j];
        for (PetscInt c = 0; c < m; c++) PetscCall(PetscFindInt(topo[p + c], nkeep, keep, &topo[q++]));
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
  PetscCall(PetscFree(keep));
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
