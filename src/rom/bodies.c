/* VIBodies: the reduced substructures of a multi-body job (seed 003) and their file, one ROM group per body. */
#include "romimpl.h"
#include <errno.h>
#include <stdio.h>

#define VI_BODIES_MAX 64

const char *const VIBodiesParallelTypes[] = {"auto", "sequential", "groups", "VIBodiesParallel", "VI_BODIES_", NULL};

struct _p_VIBodies {
  MPI_Comm       comm;
  PetscInt       num;
  char           names[VI_BODIES_MAX][64];
  VIROM          roms[VI_BODIES_MAX];
  VIBodyBoundary boundary[VI_BODIES_MAX];
  VIROMFields    fields[VI_BODIES_MAX]; /* the reduction's field recovery (vicms fields), on rank 0; nk = 0 when none */
  char          *reduction, *source;
  PetscLogDouble mem_per_rank, mem_node; /* VIMemoryAvailable, for the ROMs read */
  PetscMPIInt    ranks_on_node;
};

PetscErrorCode VIBodiesCreate(MPI_Comm comm, VIBodies *bodies)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(bodies));
  (*bodies)->comm = comm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIBodiesReset(VIBodies b)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < b->num; k++) {
    PetscCall(VIROMDestroy(&b->roms[k]));
    PetscCall(PetscFree(b->boundary[k].node_ids));
    PetscCall(PetscFree(b->boundary[k].coords));
    PetscCall(PetscFree(b->boundary[k].dofs));
    PetscCall(VIROMFieldsReset(&b->fields[k]));
  }
  b->num = 0;
  PetscCall(PetscFree(b->reduction));
  PetscCall(PetscFree(b->source));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIBodiesDestroy(VIBodies *bodies)
{
  PetscFunctionBeginUser;
  if (!bodies || !*bodies) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIBodiesReset(*bodies));
  PetscCall(PetscFree(*bodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIBodiesAdd(VIBodies b, const char name[], VIROM rom, PetscInt dim, PetscInt n, const PetscInt ids[], const PetscReal coords[],
                           const PetscInt dofs[])
{
  VIBodyBoundary *bd;
  PetscInt        k;

  PetscFunctionBeginUser;
  PetscCheck(b->num < VI_BODIES_MAX, b->comm, PETSC_ERR_USER_INPUT, "At most %d bodies", VI_BODIES_MAX);
  PetscCall(VIBodiesFind(b, name, &k));
  PetscCheck(k < 0, b->comm, PETSC_ERR_USER_INPUT, "Body '%s' is added twice", name);
  PetscCall(PetscStrncpy(b->names[b->num], name, sizeof(b->names[0])));
  b->roms[b->num] = rom;
  bd              = &b->boundary[b->num];
  bd->dim         = dim;
  bd->num_nodes   = n;
  PetscCall(PetscMalloc1(PetscMax(n, 1), &bd->node_ids));
  PetscCall(PetscMalloc1(PetscMax(3 * n, 1), &bd->coords));
  PetscCall(PetscMalloc1(PetscMax(3 * n, 1), &bd->dofs));
  PetscCall(PetscArraycpy(bd->node_ids, ids, n));
  PetscCall(PetscArraycpy(bd->coords, coords, 3 * n));
  PetscCall(PetscArraycpy(bd->dofs, dofs, 3 * n));
  b->num++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIBodiesGetNum(VIBodies b, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = b->num;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIBodiesGetOffset(VIBodies b, PetscInt k, PetscInt *offset)
{
  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k <= b->num, b->comm, PETSC_ERR_ARG_OUTOFRANGE, "Body %" PetscInt_FMT " of %" PetscInt_FMT, k, b->num);
  *offset = 0;
  for (PetscInt j = 0; j < k; j++) {
    PetscInt nb, nm;
    PetscCall(VIROMGetSizes(b->roms[j], &nb, &nm));
    *offset += nb + nm;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIBodiesGetNode(VIBodies b, PetscInt k, PetscInt id, const char what[], VIBodyNode *node)
{
  const VIBodyBoundary *bd;
  PetscInt              off;

  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k < b->num, b->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: body %" PetscInt_FMT " of %" PetscInt_FMT, what, k, b->num);
  PetscCall(VIBodiesGetOffset(b, k, &off));
  bd = &b->boundary[k];
  for (PetscInt i = 0; i < bd->num_nodes; i++) {
    if (bd->node_ids[i] != id) continue;
    node->id = id;
    for (PetscInt c = 0; c < 2; c++) {
      node->X[c]   = bd->coords[3 * i + c];
      node->dof[c] = bd->dofs[3 * i + c] < 0 ? -1 : off + bd->dofs[3 * i + c];
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  SETERRQ(b->comm, PETSC_ERR_USER_INPUT, "%s: node %" PetscInt_FMT " is not a boundary node of body %s (its ROM coordinates must be physical)", what,
          id, b->names[k]);
}

PetscErrorCode VIBodiesGet(VIBodies b, PetscInt k, const char **name, VIROM *rom, const VIBodyBoundary **boundary)
{
  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k < b->num, b->comm, PETSC_ERR_ARG_OUTOFRANGE, "Body %" PetscInt_FMT " of %" PetscInt_FMT, k, b->num);
  if (name) *name = b->names[k];
  if (rom) *rom = b->roms[k];
  if (boundary) *boundary = &b->boundary[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIBodiesFind(VIBodies b, const char name[], PetscInt *k)
{
  PetscFunctionBeginUser;
  *k = -1;
  for (PetscInt i = 0; i < b->num && *k < 0; i++)
    if (!strcmp(b->names[i], name)) *k = i;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIBodiesSetReduction(VIBodies b, const char reduction[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(b->reduction));
  if (reduction) PetscCall(PetscStrallocpy(reduction, &b->reduction));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The boundary table against the body's ROM: sizes, each free node's DOFs are the coordinates of its contact (the ROM's
   contact table holds the free boundary nodes, in the same order, global frame), clamped nodes have no coordinate. */
PetscErrorCode VIBodiesSetFields(VIBodies b, PetscInt k, VIROMFields *fields)
{
  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k < b->num, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Body %" PetscInt_FMT " of %" PetscInt_FMT, k, b->num);
  PetscCall(VIROMFieldsReset(&b->fields[k]));
  b->fields[k] = *fields;
  PetscCall(PetscMemzero(fields, sizeof(*fields)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIBodiesCheckBoundary(VIBodies b, PetscInt k, const char what[])
{
  const VIBodyBoundary *bd = &b->boundary[k];
  const VIContactInfo  *ci;
  PetscInt              nc, nb, nm, c = 0;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetContacts(b->roms[k], &nc, &ci));
  PetscCall(VIROMGetSizes(b->roms[k], &nb, &nm));
  PetscCheck(bd->dim == 2 || bd->dim == 3, b->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: body %s: boundary dim is %" PetscInt_FMT ", expected 2 or 3",
             what, b->names[k], bd->dim);
  for (PetscInt i = 0; i < bd->num_nodes; i++) {
    PetscBool clamped = bd->dofs[3 * i] < 0 ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt d = 0; d < 3; d++) {
      PetscInt dof = bd->dofs[3 * i + d];
      if (d >= bd->dim || clamped)
        PetscCheck(dof == -1, b->comm, PETSC_ERR_FILE_UNEXPECTED,
                   "%s: body %s: boundary node %" PetscInt_FMT " has DOF %" PetscInt_FMT " in component %" PetscInt_FMT ", expected -1", what,
                   b->names[k], bd->node_ids[i], dof, d + 1);
      else {
        PetscCheck(c < nc && ci[c].node_id == bd->node_ids[i] && ci[c].dim == bd->dim && dof == ci[c].offset + d && dof < nb, b->comm,
                   PETSC_ERR_FILE_UNEXPECTED,
                   "%s: body %s: boundary node %" PetscInt_FMT " component %" PetscInt_FMT " maps to coordinate %" PetscInt_FMT
                   ", which is not that node's coordinate in the ROM's contact table",
                   what, b->names[k], bd->node_ids[i], d + 1, dof);
        for (PetscInt e = 0; e < bd->dim; e++)
          PetscCheck(ci[c].frame[3 * d + e] == (d == e ? 1.0 : 0.0), b->comm, PETSC_ERR_FILE_UNEXPECTED,
                     "%s: body %s: the frame of boundary node %" PetscInt_FMT " is not the global one (a body's boundary DOFs are physical)", what,
                     b->names[k], bd->node_ids[i]);
      }
    }
    if (!clamped) c++;
  }
  PetscCheck(c == nc, b->comm, PETSC_ERR_FILE_UNEXPECTED,
             "%s: body %s: %" PetscInt_FMT " free boundary nodes but %" PetscInt_FMT " contacts in the ROM", what, b->names[k], c, nc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIBodiesWriteContents(VIBodies b, hid_t file)
{
  char list[VI_BODIES_MAX * 65] = "";

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < b->num; k++) {
    if (k) PetscCall(PetscStrlcat(list, ",", sizeof(list)));
    PetscCall(PetscStrlcat(list, b->names[k], sizeof(list)));
  }
  PetscCall(VIH5WriteAttrString(file, "/", "format", "vicms-bodies"));
  PetscCall(VIH5WriteAttrString(file, "/", "version", VICMS_VERSION));
  PetscCall(VIH5WriteAttrInt(file, "/", "n_bodies", b->num));
  PetscCall(VIH5WriteAttrString(file, "/", "bodies", list));
  if (b->reduction) PetscCall(VIH5WriteAttrString(file, "/", "reduction", b->reduction));
  for (PetscInt k = 0; k < b->num; k++) {
    char                  group[128];
    hid_t                 g;
    PetscErrorCode        ierr;
    const VIBodyBoundary *bd = &b->boundary[k];

    PetscCall(PetscSNPrintf(group, sizeof(group), "/bodies/%s", b->names[k]));
    PetscCall(VIH5CreateGroup(file, group));
    g = H5Gopen2(file, group, H5P_DEFAULT);
    PetscCheck(g >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot open group %s", group);
    ierr = VIROMWriteContents(b->roms[k], g);
    if (!ierr) ierr = VIH5WriteInt(g, "boundary/node_ids", bd->num_nodes, 0, bd->node_ids);
    if (!ierr) ierr = VIH5WriteReal(g, "boundary/coords", bd->num_nodes, 3, bd->coords);
    if (!ierr) ierr = VIH5WriteInt(g, "boundary/dofs", bd->num_nodes, 3, bd->dofs);
    if (!ierr) ierr = VIH5WriteAttrInt(g, "boundary", "dim", bd->dim);
    H5Gclose(g);
    PetscCall(PetscStrlcat(group, "/fields", sizeof(group)));
    if (!ierr && b->fields[k].nk) ierr = VIROMFieldsWrite(file, group, &b->fields[k]);
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIBodiesWrite(VIBodies b, const char path[])
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCheck(b->num > 0, b->comm, PETSC_ERR_ORDER, "Cannot write %s: no bodies", path);
  PetscCallMPI(MPI_Comm_rank(b->comm, &rank));
  if (rank == 0) {
    char  tmp[PETSC_MAX_PATH_LEN];
    hid_t file = -1;
    ierr       = PetscSNPrintf(tmp, sizeof(tmp), "%s.part", path);
    if (!ierr) ierr = VIH5Create(tmp, &file);
    if (!ierr) {
      PetscErrorCode ierr_close;
      ierr       = VIBodiesWriteContents(b, file);
      ierr_close = VIH5Close(&file);
      if (!ierr) ierr = ierr_close;
      if (ierr) (void)remove(tmp);
    }
    if (!ierr && rename(tmp, path) != 0)
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_WRITE, PETSC_ERROR_INITIAL,
                        "Cannot rename %s to %s: %s", tmp, path, strerror(errno));
  }
  PetscCall(VIErrorSync(b->comm, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One body's group on rank 0: its ROM and boundary table. */
static PetscErrorCode VIBodiesReadBody(VIBodies b, hid_t file, const char path[], const char name[])
{
  char           group[128], what[PETSC_MAX_PATH_LEN + 160];
  hid_t          g;
  PetscBool      exists;
  PetscErrorCode ierr;
  VIROM          rom;
  PetscInt       n, r, c, dim = 0, *ids = NULL, *dofs = NULL;
  PetscReal     *coords = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(group, sizeof(group), "/bodies/%s", name));
  PetscCall(PetscSNPrintf(what, sizeof(what), "%s (body %s)", path, name));
  PetscCall(VIH5Exists(file, group, &exists));
  PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: the attribute bodies names '%s', but group %s is missing", path, name, group);
  PetscCall(VIROMCreate(PETSC_COMM_SELF, &rom));
  rom->mem_per_rank  = b->mem_per_rank;
  rom->mem_node      = b->mem_node;
  rom->ranks_on_node = b->ranks_on_node;
  g                  = H5Gopen2(file, group, H5P_DEFAULT);
  ierr               = VIROMReadContents(rom, g, what);
  if (!ierr) ierr = VIH5ReadInt(g, "boundary/node_ids", &n, &c, &ids);
  if (!ierr) ierr = VIH5ReadReal(g, "boundary/coords", &r, &c, &coords);
  if (!ierr && (r != n || c != 3))
    ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_UNEXPECTED, PETSC_ERROR_INITIAL,
                      "%s: boundary/coords is %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT " x 3", what, r, c, n);
  /* a NaN position makes every gap NaN, and a NaN gap is never a penetration: the contact would be open for the whole run */
  if (!ierr) ierr = VIH5CheckFinite(what, "boundary/coords", n, 3, coords);
  if (!ierr) ierr = VIH5ReadInt(g, "boundary/dofs", &r, &c, &dofs);
  if (!ierr && (r != n || c != 3))
    ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_UNEXPECTED, PETSC_ERROR_INITIAL,
                      "%s: boundary/dofs is %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT " x 3", what, r, c, n);
  if (!ierr) ierr = VIH5ReadAttrInt(g, "boundary", "dim", &dim);
  H5Gclose(g);
  if (!ierr) ierr = VIBodiesAdd(b, name, rom, dim, n, ids, coords, dofs);
  PetscCall(PetscFree(ids));
  PetscCall(PetscFree(coords));
  PetscCall(PetscFree(dofs));
  if (ierr) PetscCall(VIROMDestroy(&rom));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIBodiesReadFile(VIBodies b, const char file_path[])
{
  char           path[300]; /* as messages show it */
  hid_t          file = -1;
  PetscBool      exists;
  PetscErrorCode ierr   = PETSC_SUCCESS;
  char          *format = NULL, *list = NULL;

  PetscFunctionBeginUser;
  PetscCall(VIMessagePath(file_path, path, sizeof(path)));
  PetscCall(PetscTestFile(file_path, 'r', &exists));
  PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read the bodies file %s (no such file, or not readable)", path);
  PetscCall(VIH5Open(file_path, &file));
  ierr = VIH5ReadAttrStringAlloc(file, "/", "format", &format);
  if (!ierr && strcmp(format, "vicms-bodies"))
    ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_UNEXPECTED, PETSC_ERROR_INITIAL,
                      "%s is not a vicms bodies file (format attribute '%s')", path, format);
  if (!ierr) ierr = VIH5ReadAttrStringAlloc(file, "/", "bodies", &list);
  if (!ierr) {
    char *save = NULL;
    for (char *name = strtok_r(list, ",", &save); name && !ierr; name = strtok_r(NULL, ",", &save)) ierr = VIBodiesReadBody(b, file, path, name);
  }
  if (!ierr) {
    PetscBool has;
    ierr = VIH5HasAttr(file, "/", "reduction", &has);
    if (!ierr && has) ierr = VIH5ReadAttrStringAlloc(file, "/", "reduction", &b->reduction);
  }
  PetscCall(VIH5Close(&file));
  PetscCall(PetscFree(format));
  PetscCall(PetscFree(list));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIBodiesLoad(VIBodies b, const char path[])
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;
  PetscInt       num;

  PetscFunctionBeginUser;
  PetscCall(VIBodiesReset(b));
  PetscCallMPI(MPI_Comm_rank(b->comm, &rank));
  PetscCall(VIMemoryAvailable(b->comm, &b->mem_per_rank, &b->mem_node, &b->ranks_on_node));
  if (rank == 0) ierr = VIBodiesReadFile(b, path);
  ierr = VIErrorSync(b->comm, ierr);
  if (ierr) {
    PetscCall(VIBodiesReset(b));
    PetscCall(ierr);
  }
  num = b->num;
  PetscCallMPI(MPI_Bcast(&num, 1, MPIU_INT, 0, b->comm));
  for (PetscInt k = 0; k < num; k++) {
    VIROM           rom;
    PetscInt        head[2];
    VIBodyBoundary *bd = &b->boundary[k];

    /* rank 0 read the ROM on its own: it joins the bodies' communicator, the other ranks receive it */
    if (rank == 0) {
      rom       = b->roms[k];
      rom->comm = b->comm;
    } else
      PetscCall(VIROMCreate(b->comm, &rom));
    PetscCall(VIROMBcast(rom, 0));
    PetscCall(PetscStrallocpy(path, &rom->source));
    PetscCallMPI(MPI_Bcast(b->names[k], sizeof(b->names[k]), MPI_CHAR, 0, b->comm));
    head[0] = bd->dim;
    head[1] = bd->num_nodes;
    PetscCallMPI(MPI_Bcast(head, 2, MPIU_INT, 0, b->comm));
    if (rank != 0) {
      b->roms[k]    = rom;
      bd->dim       = head[0];
      bd->num_nodes = head[1];
      PetscCall(PetscMalloc1(PetscMax(head[1], 1), &bd->node_ids));
      PetscCall(PetscMalloc1(PetscMax(3 * head[1], 1), &bd->coords));
      PetscCall(PetscMalloc1(PetscMax(3 * head[1], 1), &bd->dofs));
      b->num = k + 1;
    }
    PetscCallMPI(MPI_Bcast(bd->node_ids, (PetscMPIInt)head[1], MPIU_INT, 0, b->comm));
    PetscCallMPI(MPI_Bcast(bd->coords, (PetscMPIInt)(3 * head[1]), MPIU_REAL, 0, b->comm));
    PetscCallMPI(MPI_Bcast(bd->dofs, (PetscMPIInt)(3 * head[1]), MPIU_INT, 0, b->comm));
  }
  {
    char    *red = rank == 0 ? b->reduction : NULL;
    PetscInt len = red ? (PetscInt)strlen(red) + 1 : 0;
    PetscCallMPI(MPI_Bcast(&len, 1, MPIU_INT, 0, b->comm));
    if (rank != 0 && len) PetscCall(PetscMalloc1(len, &b->reduction));
    if (len) PetscCallMPI(MPI_Bcast(b->reduction, (PetscMPIInt)len, MPI_CHAR, 0, b->comm));
  }
  PetscCall(PetscStrallocpy(path, &b->source));
  for (PetscInt k = 0; k < b->num; k++) {
    char what[PETSC_MAX_PATH_LEN + 80], shown[300];
    PetscCall(VIMessagePath(path, shown, sizeof(shown)));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s (body %s)", shown, b->names[k]));
    PetscCall(VIROMValidateWithCode(b->roms[k], what, PETSC_ERR_FILE_UNEXPECTED));
    PetscCall(VIBodiesCheckBoundary(b, k, what));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIBodiesGather(VIBodies b, VIBodies mine, PetscInt n, const char *const names[], const PetscMPIInt leader[])
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(b->comm, &rank));
  for (PetscInt k = 0; k < n; k++) {
    VIROM          rom = NULL;
    VIBodyBoundary bd  = {0};
    PetscInt       head[2], j = -1;

    if (rank == leader[k]) {
      PetscCall(VIBodiesFind(mine, names[k], &j));
      PetscCheck(j >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Body %s is not among the bodies of its group", names[k]);
      /* the group's ROM joins the bodies' communicator: it is the root of the broadcast */
      rom           = mine->roms[j];
      mine->roms[j] = NULL;
      rom->comm     = b->comm;
      bd            = mine->boundary[j];
    } else
      PetscCall(VIROMCreate(b->comm, &rom));
    PetscCall(VIROMBcast(rom, leader[k]));
    head[0] = bd.dim;
    head[1] = bd.num_nodes;
    PetscCallMPI(MPI_Bcast(head, 2, MPIU_INT, leader[k], b->comm));
    if (rank != leader[k]) {
      bd.dim       = head[0];
      bd.num_nodes = head[1];
      PetscCall(PetscMalloc3(PetscMax(head[1], 1), &bd.node_ids, PetscMax(3 * head[1], 1), &bd.coords, PetscMax(3 * head[1], 1), &bd.dofs));
    }
    PetscCallMPI(MPI_Bcast(bd.node_ids, (PetscMPIInt)head[1], MPIU_INT, leader[k], b->comm));
    PetscCallMPI(MPI_Bcast(bd.coords, (PetscMPIInt)(3 * head[1]), MPIU_REAL, leader[k], b->comm));
    PetscCallMPI(MPI_Bcast(bd.dofs, (PetscMPIInt)(3 * head[1]), MPIU_INT, leader[k], b->comm));
    PetscCall(VIBodiesAdd(b, names[k], rom, bd.dim, bd.num_nodes, bd.node_ids, bd.coords, bd.dofs));
    if (rank != leader[k]) PetscCall(PetscFree3(bd.node_ids, bd.coords, bd.dofs));
    {
      /* the fields of the reduction, on the group's first rank, to the rank that writes the file */
      VIROMFields f;
      PetscBool   has = PETSC_FALSE;
      PetscCall(PetscMemzero(&f, sizeof(f)));
      if (rank == leader[k]) {
        f   = mine->fields[j];
        has = f.nk > 0 ? PETSC_TRUE : PETSC_FALSE;
        PetscCall(PetscMemzero(&mine->fields[j], sizeof(f)));
      }
      PetscCall(VIROMFieldsSend(b->comm, leader[k], 0, &f, &has));
      if (rank == 0 && has) PetscCall(VIBodiesSetFields(b, b->num - 1, &f));
      PetscCall(VIROMFieldsReset(&f));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIBodiesView(VIBodies b, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(b->comm, &viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "Bodies %s: %" PetscInt_FMT " substructures, Craig-Bampton with physical boundary DOFs (seed 003)\n",
                                   b->source ? b->source : "(in memory)", b->num));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  for (PetscInt k = 0; k < b->num; k++) {
    const VIBodyBoundary *bd = &b->boundary[k];
    PetscInt              nb, nm, nclamped = 0;
    PetscCall(VIROMGetSizes(b->roms[k], &nb, &nm));
    for (PetscInt i = 0; i < bd->num_nodes; i++) nclamped += bd->dofs[3 * i] < 0;
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "body %s: %" PetscInt_FMT "D, %" PetscInt_FMT " boundary nodes (%" PetscInt_FMT " clamped) -> %" PetscInt_FMT
                                     " physical boundary DOFs + %" PetscInt_FMT " fixed-interface modes = %" PetscInt_FMT "\n",
                                     b->names[k], bd->dim, bd->num_nodes, nclamped, nb, nm, nb + nm));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    if (bd->num_nodes) {
      PetscInt last = bd->num_nodes - 1;
      PetscCall(PetscViewerASCIIPrintf(viewer, "boundary nodes %" PetscInt_FMT " at (%.6g, %.6g) ... %" PetscInt_FMT " at (%.6g, %.6g)\n",
                                       bd->node_ids[0], (double)bd->coords[0], (double)bd->coords[1], bd->node_ids[last],
                                       (double)bd->coords[3 * last], (double)bd->coords[3 * last + 1]));
    }
    PetscCall(VIROMView(b->roms[k], viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}
