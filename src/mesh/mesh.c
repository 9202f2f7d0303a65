/* VIMesh: the object, its builder (used by readers and generators on one rank), broadcast and queries. */
#include "meshimpl.h"
#include <vicms/sys.h>
#include <petscsf.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const char *const VIElementTypes[] = {"T3D2",  "CPS3", "CPS4",  "CPS8", "CPE3",  "CPE4",          "CPE8",     "C3D4",
                                      "C3D10", "C3D8", "C3D20", "C3D6", "C3D15", "VIElementType", "VI_ELEM_", NULL};

PetscErrorCode VIMeshCreate(MPI_Comm comm, VIMesh *mesh)
{
  VIMesh m;

  PetscFunctionBeginUser;
  PetscCall(VIInitializePackage());
  PetscCall(PetscNew(&m));
  m->comm           = comm;
  m->kind           = VI_MESH_SOURCE_NONE;
  m->line_length    = 1.0;
  m->line_area      = 1.0;
  m->box_type       = VI_ELEM_C3D8;
  m->box_lengths[0] = m->box_lengths[1] = m->box_lengths[2] = 1.0;
  m->rect_lengths[0] = m->rect_lengths[1] = m->rect_thickness = 1.0;
  *mesh                                                       = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISetsDestroy(PetscInt n, VISet **sets)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscFree((*sets)[i].items));
  PetscCall(PetscFree(*sets));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshDestroy(VIMesh *mesh)
{
  VIMesh m;

  PetscFunctionBeginUser;
  if (!mesh || !*mesh) PetscFunctionReturn(PETSC_SUCCESS);
  m = *mesh;
  PetscCall(PetscFree(m->node_ids));
  PetscCall(PetscFree(m->coords));
  PetscCall(PetscFree(m->node_src));
  PetscCall(PetscFree(m->elem_ids));
  PetscCall(PetscFree(m->elem_type));
  PetscCall(PetscFree(m->elem_section));
  PetscCall(PetscFree(m->elem_src));
  PetscCall(PetscFree(m->elem_offset));
  PetscCall(PetscFree(m->elem_conn));
  PetscCall(VISetsDestroy(m->num_nsets, &m->nsets));
  PetscCall(VISetsDestroy(m->num_esets, &m->esets));
  PetscCall(PetscFree(m->materials));
  PetscCall(PetscFree(m->sections));
  PetscCall(PetscFree(m->bcs));
  PetscCall(PetscFree(m->clamped));
  PetscCall(PetscFree(m->clamp_dofs));
  for (PetscInt i = 0; i < m->num_files; i++) PetscCall(PetscFree(m->files[i]));
  PetscCall(PetscFree(m->files));
  PetscCall(PetscFree2(m->node_elem_offset, m->node_elem));
  PetscCall(PetscFree(m->local_elems));
  PetscCall(PetscFree(m->held));
  PetscCall(PetscFree(m));
  *mesh = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshSetFile(VIMesh mesh, const char path[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(mesh->path, path, sizeof(mesh->path)));
  mesh->kind = VI_MESH_SOURCE_FILE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshSetLine(VIMesh mesh, PetscInt num_cells, PetscReal length)
{
  PetscFunctionBeginUser;
  PetscCheck(num_cells > 0, mesh->comm, PETSC_ERR_USER_INPUT, "-mesh_line_cells: got %" PetscInt_FMT ", expected a positive number of elements",
             num_cells);
  PetscCheck(length > 0, mesh->comm, PETSC_ERR_USER_INPUT, "-mesh_line_length: got %g, expected a positive length", (double)length);
  mesh->kind        = VI_MESH_SOURCE_LINE;
  mesh->line_cells  = num_cells;
  mesh->line_length = length;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshSetBox(VIMesh mesh, const PetscInt cells[3], const PetscReal lengths[3], VIElementType type)
{
  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) {
    PetscCheck(cells[d] > 0, mesh->comm, PETSC_ERR_USER_INPUT,
               "-mesh_box_cells: entry %" PetscInt_FMT " is %" PetscInt_FMT ", expected a positive number of cells", d + 1, cells[d]);
    PetscCheck(lengths[d] > 0, mesh->comm, PETSC_ERR_USER_INPUT, "-mesh_box_lengths: entry %" PetscInt_FMT " is %g, expected a positive length",
               d + 1, (double)lengths[d]);
    mesh->box_cells[d]   = cells[d];
    mesh->box_lengths[d] = lengths[d];
  }
  PetscCheck(type == VI_ELEM_C3D8 || type == VI_ELEM_C3D6 || type == VI_ELEM_C3D4, mesh->comm, PETSC_ERR_USER_INPUT,
             "-mesh_box_element: %s is not available for boxes, expected C3D8, C3D6 or C3D4", VIElementTypes[type]);
  mesh->box_type = type;
  mesh->kind     = VI_MESH_SOURCE_BOX;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshSetRectangle(VIMesh mesh, const PetscInt cells[2], const PetscReal lengths[2], PetscReal thickness, const PetscReal origin[2],
                                  PetscReal angle_deg)
{
  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 2; d++) {
    PetscCheck(cells[d] > 0, mesh->comm, PETSC_ERR_USER_INPUT,
               "-%smesh_rect_cells: entry %" PetscInt_FMT " is %" PetscInt_FMT ", expected a positive number of cells", mesh->prefix, d + 1,
               cells[d]);
    PetscCheck(lengths[d] > 0, mesh->comm, PETSC_ERR_USER_INPUT, "-%smesh_rect_lengths: entry %" PetscInt_FMT " is %g, expected a positive length",
               mesh->prefix, d + 1, (double)lengths[d]);
    mesh->rect_cells[d]   = cells[d];
    mesh->rect_lengths[d] = lengths[d];
    mesh->rect_origin[d]  = origin[d];
  }
  PetscCheck(thickness > 0, mesh->comm, PETSC_ERR_USER_INPUT, "-%smesh_rect_thickness: got %g, expected a positive thickness", mesh->prefix,
             (double)thickness);
  mesh->rect_thickness = thickness;
  mesh->rect_angle     = angle_deg;
  mesh->kind           = VI_MESH_SOURCE_RECT;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshSetElementSet(VIMesh mesh, const char name[])
{
  PetscFunctionBeginUser;
  PetscCheck(strlen(name) < sizeof(mesh->elset), mesh->comm, PETSC_ERR_USER_INPUT, "-%smesh_elset: the name '%s' is longer than %d characters",
             mesh->prefix, name, (int)sizeof(mesh->elset) - 1);
  PetscCall(PetscStrncpy(mesh->elset, name, sizeof(mesh->elset)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshSetNodesOnly(VIMesh mesh, PetscBool nodes_only)
{
  PetscFunctionBeginUser;
  PetscCheck(!mesh->setup, mesh->comm, PETSC_ERR_ORDER, "Call VIMeshSetNodesOnly() before VIMeshSetUp()");
  mesh->nodes_only = nodes_only;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshSetOptionsPrefix(VIMesh mesh, const char prefix[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(mesh->prefix, prefix ? prefix : "", sizeof(mesh->prefix)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshSetFromOptions(VIMesh mesh)
{
  char          path[PETSC_MAX_PATH_LEN] = "", elset[256] = "";
  PetscInt      line_cells = 0, cells[3] = {1, 1, 1}, ncells = 3, nlengths = 3;
  PetscReal     line_length = mesh->line_length, lengths[3] = {1, 1, 1};
  PetscBool     has_file, has_line, has_box, has_lengths, has_rect, has_rect_lengths, has_rect_origin, has_elset;
  VIElementType box_type      = mesh->box_type;
  PetscInt      rect_cells[2] = {1, 1}, nrc = 2, nrl = 2, nro = 2;
  PetscReal     rect_lengths[2] = {1, 1}, rect_origin[2] = {0, 0}, rect_thickness = mesh->rect_thickness, rect_angle = mesh->rect_angle;

  PetscFunctionBeginUser;
  PetscOptionsBegin(mesh->comm, mesh->prefix[0] ? mesh->prefix : NULL, "Parent mesh", "VIMesh");
  PetscCall(PetscOptionsString("-mesh_file", "Abaqus/CalculiX .inp or Gmsh .msh file", "VIMeshSetFile", path, path, sizeof(path), &has_file));
  PetscCall(PetscOptionsString("-mesh_elset", "Only this element set of the mesh file (*ELSET, Gmsh physical group): one body of a shared file",
                               "VIMeshSetElementSet", elset, elset, sizeof(elset), &has_elset));
  PetscCall(PetscOptionsInt("-mesh_line_cells", "Built-in line of T3D2 rods along x: number of elements", "VIMeshSetLine", line_cells, &line_cells,
                            &has_line));
  PetscCall(PetscOptionsReal("-mesh_line_length", "Built-in line: length", "VIMeshSetLine", line_length, &line_length, NULL));
  PetscCall(
      PetscOptionsReal("-mesh_line_area", "Built-in line: cross-section area of the rods", "VIMeshSetLine", mesh->line_area, &mesh->line_area, NULL));
  PetscCall(PetscOptionsIntArray("-mesh_box_cells", "Built-in box: cells nx,ny,nz", "VIMeshSetBox", cells, &ncells, &has_box));
  PetscCall(PetscOptionsRealArray("-mesh_box_lengths", "Built-in box: lengths Lx,Ly,Lz", "VIMeshSetBox", lengths, &nlengths, &has_lengths));
  PetscCall(PetscOptionsEnum("-mesh_box_element", "Built-in box: element type (C3D8, or hexes split into C3D6 wedges or C3D4 tets)", "VIMeshSetBox",
                             VIElementTypes, (PetscEnum)box_type, (PetscEnum *)&box_type, NULL));
  PetscCall(PetscOptionsIntArray("-mesh_rect_cells", "Built-in 2D rectangle of CPS4 quads: cells nx,ny", "VIMeshSetRectangle", rect_cells, &nrc,
                                 &has_rect));
  PetscCall(
      PetscOptionsRealArray("-mesh_rect_lengths", "Built-in rectangle: lengths Lx,Ly", "VIMeshSetRectangle", rect_lengths, &nrl, &has_rect_lengths));
  PetscCall(PetscOptionsReal("-mesh_rect_thickness", "Built-in rectangle: out-of-plane thickness of the plane-stress elements", "VIMeshSetRectangle",
                             rect_thickness, &rect_thickness, NULL));
  PetscCall(PetscOptionsRealArray("-mesh_rect_origin", "Built-in rectangle: position x,y of its corner xmin_ymin", "VIMeshSetRectangle", rect_origin,
                                  &nro, &has_rect_origin));
  PetscCall(PetscOptionsReal("-mesh_rect_angle", "Built-in rectangle: turn about its corner xmin_ymin, degrees counter-clockwise",
                             "VIMeshSetRectangle", rect_angle, &rect_angle, NULL));
  PetscOptionsEnd();
  PetscCheck(has_file + has_line + has_box + has_rect <= 1, mesh->comm, PETSC_ERR_USER_INPUT,
             "Give one mesh source: -%smesh_file, -%smesh_line_cells, -%smesh_box_cells or -%smesh_rect_cells, not several", mesh->prefix,
             mesh->prefix, mesh->prefix, mesh->prefix);
  if (has_rect) {
    PetscCheck(nrc == 2, mesh->comm, PETSC_ERR_USER_INPUT, "-%smesh_rect_cells: expected two numbers nx,ny, got %" PetscInt_FMT, mesh->prefix, nrc);
    PetscCheck(!has_rect_lengths || nrl == 2, mesh->comm, PETSC_ERR_USER_INPUT,
               "-%smesh_rect_lengths: expected two numbers Lx,Ly, got %" PetscInt_FMT, mesh->prefix, nrl);
    PetscCheck(!has_rect_origin || nro == 2, mesh->comm, PETSC_ERR_USER_INPUT, "-%smesh_rect_origin: expected two numbers x,y, got %" PetscInt_FMT,
               mesh->prefix, nro);
    PetscCall(VIMeshSetRectangle(mesh, rect_cells, rect_lengths, rect_thickness, rect_origin, rect_angle));
  }
  if (has_file) PetscCall(VIMeshSetFile(mesh, path));
  if (has_line) PetscCall(VIMeshSetLine(mesh, line_cells, line_length));
  if (has_box) {
    PetscCheck(ncells == 3, mesh->comm, PETSC_ERR_USER_INPUT, "-mesh_box_cells: expected three numbers nx,ny,nz, got %" PetscInt_FMT, ncells);
    PetscCheck(!has_lengths || nlengths == 3, mesh->comm, PETSC_ERR_USER_INPUT,
               "-mesh_box_lengths: expected three numbers Lx,Ly,Lz, got %" PetscInt_FMT, nlengths);
    PetscCall(VIMeshSetBox(mesh, cells, lengths, box_type));
  }
  PetscCheck(mesh->line_area > 0, mesh->comm, PETSC_ERR_USER_INPUT, "-mesh_line_area: got %g, expected a positive area", (double)mesh->line_area);
  if (has_elset) {
    PetscCheck(mesh->kind == VI_MESH_SOURCE_FILE, mesh->comm, PETSC_ERR_USER_INPUT,
               "-%smesh_elset %s: an element set is taken from a mesh file (-%smesh_file%s), not from a built-in mesh", mesh->prefix, elset,
               mesh->prefix, mesh->prefix[0] ? " or -bodies_mesh_file" : "");
    PetscCall(VIMeshSetElementSet(mesh, elset));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ builder */

PetscErrorCode VIMeshBuildAddFile(VIMesh mesh, const char path[], const char **stored)
{
  PetscFunctionBeginUser;
  PetscCall(PetscRealloc(sizeof(char *) * (mesh->num_files + 1), &mesh->files));
  PetscCall(PetscStrallocpy(path, &mesh->files[mesh->num_files]));
  *stored = mesh->files[mesh->num_files++];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshOpenFile(const char path[], const char what[], const char where[], FILE **fp, unsigned long long *dev, unsigned long long *ino)
{
  struct stat st;
  int         err;

  PetscFunctionBeginUser;
  *fp = fopen(path, "r");
  PetscCheck(*fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s%s%s: cannot open '%s': %s", where ? where : "", where ? ": " : "", what, path,
             strerror(errno));
  err = fstat(fileno(*fp), &st);
  if (err || !S_ISREG(st.st_mode)) {
    int e = errno;

    (void)fclose(*fp);
    *fp = NULL;
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s%s%s: cannot read '%s': %s", where ? where : "", where ? ": " : "", what, path,
               strerror(e));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s%s%s: '%s' is not a regular file (%s); give a mesh file", where ? where : "", where ? ": " : "",
            what, path, S_ISDIR(st.st_mode) ? "a directory" : (S_ISFIFO(st.st_mode) ? "a pipe" : "a device or other special file"));
  }
  *dev = (unsigned long long)st.st_dev;
  *ino = (unsigned long long)st.st_ino;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshReadLine(FILE *fp, const char name[], PetscInt line, char **buf, PetscInt *size, PetscBool *eof)
{
  size_t len = 0;
  int    c;

  PetscFunctionBeginUser;
  *eof = PETSC_TRUE;
  /* character by character rather than fgets: fgets cannot tell a NUL byte from the end of the line, and then glues
     the next line onto this one */
  while ((c = getc(fp)) != EOF) {
    *eof = PETSC_FALSE;
    if (c == '\n') break;
    PetscCheck(c != 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": NUL byte at column %zu; a mesh file is text (binary or damaged file?)", name, line, len + 1);
    PetscCheck(len < VI_MESH_MAX_LINE, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": line longer than %d bytes; a mesh file has short text lines (binary data?)", name, line, VI_MESH_MAX_LINE);
    if ((PetscInt)len + 2 > *size) {
      *size = PetscMax((PetscInt)len + 2, 2 * (*size) + 1024);
      PetscCall(PetscRealloc((size_t)*size, buf));
    }
    (*buf)[len++] = (char)c;
  }
  PetscCheck(!ferror(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s:%" PetscInt_FMT ": read error: %s", name, line, strerror(errno));
  if (*eof) PetscFunctionReturn(PETSC_SUCCESS);
  if (*size < 1) {
    *size = 1024;
    PetscCall(PetscRealloc((size_t)*size, buf));
  }
  while (len > 0 && (*buf)[len - 1] == '\r') len--;
  (*buf)[len] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* grow an array of elements of size sz to hold at least need entries */
static PetscErrorCode VIGrow(void *arr, size_t sz, PetscInt need, PetscInt *cap)
{
  PetscFunctionBeginUser;
  if (need <= *cap) PetscFunctionReturn(PETSC_SUCCESS);
  *cap = PetscMax(need, 2 * (*cap) + 64);
  PetscCall(PetscRealloc(sz * (size_t)(*cap), arr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshBuildAddNode(VIMesh mesh, PetscInt id, const PetscReal xyz[3], VISource src)
{
  PetscInt cap = mesh->max_nodes, cap2 = mesh->max_nodes, cap3 = mesh->max_nodes;

  PetscFunctionBeginUser;
  if (mesh->num_nodes + 1 > mesh->max_nodes) {
    PetscCall(VIGrow(&mesh->node_ids, sizeof(PetscInt), mesh->num_nodes + 1, &cap));
    PetscCall(VIGrow(&mesh->coords, 3 * sizeof(PetscReal), mesh->num_nodes + 1, &cap2));
    PetscCall(VIGrow(&mesh->node_src, sizeof(VISource), mesh->num_nodes + 1, &cap3));
    mesh->max_nodes = cap;
  }
  mesh->node_ids[mesh->num_nodes] = id;
  for (PetscInt d = 0; d < 3; d++) mesh->coords[3 * mesh->num_nodes + d] = xyz[d];
  mesh->node_src[mesh->num_nodes] = src;
  mesh->num_nodes++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshBuildAddElement(VIMesh mesh, PetscInt id, VIElementType type, const PetscInt node_ids[], VISource src)
{
  PetscInt nn = VIElementInfoTable[type].num_nodes, e = mesh->num_elems;

  PetscFunctionBeginUser;
  if (e + 1 > mesh->max_elems) {
    PetscInt c[5];
    for (PetscInt k = 0; k < 5; k++) c[k] = mesh->max_elems;
    PetscCall(VIGrow(&mesh->elem_ids, sizeof(PetscInt), e + 1, &c[0]));
    PetscCall(VIGrow(&mesh->elem_type, sizeof(VIElementType), e + 1, &c[1]));
    PetscCall(VIGrow(&mesh->elem_section, sizeof(PetscInt), e + 1, &c[2]));
    PetscCall(VIGrow(&mesh->elem_src, sizeof(VISource), e + 1, &c[3]));
    c[4] = mesh->max_elems + 1;
    PetscCall(VIGrow(&mesh->elem_offset, sizeof(PetscInt), e + 2, &c[4]));
    mesh->max_elems = c[0];
  }
  PetscCall(VIGrow(&mesh->elem_conn, sizeof(PetscInt), mesh->conn_size + nn, &mesh->max_conn));
  if (e == 0) mesh->elem_offset[0] = 0;
  mesh->elem_ids[e]     = id;
  mesh->elem_type[e]    = type;
  mesh->elem_section[e] = -1;
  mesh->elem_src[e]     = src;
  for (PetscInt i = 0; i < nn; i++) mesh->elem_conn[mesh->conn_size + i] = node_ids[i];
  mesh->conn_size += nn;
  mesh->elem_offset[e + 1] = mesh->conn_size;
  mesh->num_elems++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISetFind(PetscInt n, VISet *sets, const char name[], PetscInt *index)
{
  PetscFunctionBeginUser;
  *index = -1;
  for (PetscInt i = 0; i < n; i++) {
    PetscBool same;
    PetscCall(PetscStrcasecmp(sets[i].name, name, &same));
    if (same) {
      *index = i;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISetAdd(PetscInt *num, PetscInt *cap, VISet **sets, const char name[], PetscInt n, const PetscInt ids[])
{
  PetscInt s;
  VISet   *set;

  PetscFunctionBeginUser;
  PetscCall(VISetFind(*num, *sets, name, &s));
  if (s < 0) {
    PetscCall(VIGrow(sets, sizeof(VISet), *num + 1, cap));
    s = (*num)++;
    PetscCall(PetscMemzero(&(*sets)[s], sizeof(VISet)));
    PetscCall(PetscStrncpy((*sets)[s].name, name, sizeof((*sets)[s].name)));
  }
  set = &(*sets)[s];
  PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)(set->n + n + 1), &set->items));
  for (PetscInt i = 0; i < n; i++) set->items[set->n + i] = ids[i];
  set->n += n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshBuildAddToNodeSet(VIMesh mesh, const char name[], PetscInt n, const PetscInt node_ids[])
{
  PetscFunctionBeginUser;
  PetscCall(VISetAdd(&mesh->num_nsets, &mesh->max_nsets, &mesh->nsets, name, n, node_ids));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshBuildAddToElementSet(VIMesh mesh, const char name[], PetscInt n, const PetscInt elem_ids[])
{
  PetscFunctionBeginUser;
  PetscCall(VISetAdd(&mesh->num_esets, &mesh->max_esets, &mesh->esets, name, n, elem_ids));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshBuildFindMaterial(VIMesh mesh, const char name[], PetscInt *index)
{
  PetscFunctionBeginUser;
  *index = -1;
  for (PetscInt i = 0; i < mesh->num_materials; i++) {
    PetscBool same;
    PetscCall(PetscStrcasecmp(mesh->materials[i].name, name, &same));
    if (same) {
      *index = i;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshBuildAddMaterial(VIMesh mesh, const char name[], PetscInt *index)
{
  PetscFunctionBeginUser;
  PetscCall(VIMeshBuildFindMaterial(mesh, name, index));
  if (*index >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIGrow(&mesh->materials, sizeof(VIMaterial), mesh->num_materials + 1, &mesh->max_materials));
  *index = mesh->num_materials++;
  PetscCall(PetscMemzero(&mesh->materials[*index], sizeof(VIMaterial)));
  PetscCall(PetscStrncpy(mesh->materials[*index].name, name, sizeof(mesh->materials[*index].name)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshBuildAddSection(VIMesh mesh, const char elset[], PetscInt material, PetscReal thickness, VISource src)
{
  VISection *s;

  PetscFunctionBeginUser;
  PetscCall(VIGrow(&mesh->sections, sizeof(VISection), mesh->num_sections + 1, &mesh->max_sections));
  s = &mesh->sections[mesh->num_sections++];
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCall(PetscStrncpy(s->elset, elset, sizeof(s->elset)));
  s->material  = material;
  s->thickness = thickness;
  s->src       = src;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshBuildAddBoundary(VIMesh mesh, const char target[], PetscInt first, PetscInt last, VISource src)
{
  struct VIBoundary *b;

  PetscFunctionBeginUser;
  PetscCall(VIGrow(&mesh->bcs, sizeof(*mesh->bcs), mesh->num_bcs + 1, &mesh->max_bcs));
  b = &mesh->bcs[mesh->num_bcs++];
  PetscCall(PetscMemzero(b, sizeof(*b)));
  PetscCall(PetscStrncpy(b->target, target, sizeof(b->target)));
  b->first = first;
  b->last  = last;
  b->src   = src;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VISortUnique(PetscInt *n, PetscInt items[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSortRemoveDupsInt(n, items));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *VISourceFile(VISource src)
{
  return src.file ? src.file : "(generated)";
}

/* Is text an integer node id? */
static PetscBool VIIsInteger(const char s[], PetscInt *value)
{
  char *end;
  long  v;

  while (isspace((unsigned char)*s)) s++;
  if (!*s) return PETSC_FALSE;
  v = strtol(s, &end, 10);
  while (isspace((unsigned char)*end)) end++;
  if (*end) return PETSC_FALSE;
  *value = (PetscInt)v;
  return PETSC_TRUE;
}

PetscErrorCode VIMeshBuildDropElements(VIMesh mesh, const PetscBool drop[])
{
  PetscInt kept = 0, conn = 0;

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < mesh->num_elems; e++) {
    PetscInt start = mesh->elem_offset[e], nn = mesh->elem_offset[e + 1] - start;
    if (drop[e]) continue;
    mesh->elem_ids[kept]     = mesh->elem_ids[e];
    mesh->elem_type[kept]    = mesh->elem_type[e];
    mesh->elem_section[kept] = mesh->elem_section[e];
    mesh->elem_src[kept]     = mesh->elem_src[e];
    for (PetscInt k = 0; k < nn; k++) mesh->elem_conn[conn + k] = mesh->elem_conn[start + k];
    mesh->elem_offset[kept] = conn;
    conn += nn;
    kept++;
  }
  if (mesh->num_elems) mesh->elem_offset[kept] = conn;
  mesh->num_elems = kept;
  mesh->conn_size = conn;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The clamp flags (one per DOF, while building) as the list of clamped DOFs, which is what every rank keeps. */
static PetscErrorCode VIMeshCompressClamps(VIMesh mesh)
{
  PetscInt n = 0, ndof = mesh->num_nodes * mesh->dim;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < ndof; i++) n += mesh->clamped[i] ? 1 : 0;
  PetscCall(PetscFree(mesh->clamp_dofs));
  PetscCall(PetscMalloc1(PetscMax(n, 1), &mesh->clamp_dofs));
  mesh->num_clamped = 0;
  for (PetscInt i = 0; i < ndof; i++)
    if (mesh->clamped[i]) mesh->clamp_dofs[mesh->num_clamped++] = i;
  PetscCall(PetscFree(mesh->clamped));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshBuildFinish(VIMesh mesh)
{
  PetscInt  *perm, *sorted_ids, *elem_perm, *elem_sorted;
  PetscReal *coords;
  VISource  *node_src;
  MPI_Comm   self = PETSC_COMM_SELF;

  PetscFunctionBeginUser;
  PetscCheck(mesh->num_nodes > 0, self, PETSC_ERR_USER_INPUT, "%s: the mesh has no nodes", mesh->num_files ? mesh->files[0] : "mesh");
  PetscCheck(mesh->num_elems > 0 || mesh->nodes_only, self, PETSC_ERR_USER_INPUT, "%s: the mesh has no elements",
             mesh->num_files ? mesh->files[0] : "mesh");

  /* nodes sorted by id, so that an id is found by bisection */
  PetscCall(PetscMalloc4(mesh->num_nodes, &perm, mesh->num_nodes, &sorted_ids, 3 * mesh->num_nodes, &coords, mesh->num_nodes, &node_src));
  for (PetscInt i = 0; i < mesh->num_nodes; i++) perm[i] = i;
  PetscCall(PetscArraycpy(sorted_ids, mesh->node_ids, mesh->num_nodes));
  PetscCall(PetscSortIntWithPermutation(mesh->num_nodes, mesh->node_ids, perm));
  for (PetscInt i = 0; i < mesh->num_nodes; i++) {
    sorted_ids[i] = mesh->node_ids[perm[i]];
    node_src[i]   = mesh->node_src[perm[i]];
    for (PetscInt d = 0; d < 3; d++) coords[3 * i + d] = mesh->coords[3 * perm[i] + d];
  }
  for (PetscInt i = 1; i < mesh->num_nodes; i++) {
    if (sorted_ids[i] != sorted_ids[i - 1]) continue;
    {
      /* the sort is not stable: the definition that came first in the file is the one of the smaller position */
      VISource a = node_src[perm[i - 1] < perm[i] ? i - 1 : i], b = node_src[perm[i - 1] < perm[i] ? i : i - 1];
      PetscInt id = sorted_ids[i];
      PetscCall(PetscFree4(perm, sorted_ids, coords, node_src));
      SETERRQ(self, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": node %" PetscInt_FMT " is defined twice (first at %s:%" PetscInt_FMT ")",
              VISourceFile(b), b.line, id, VISourceFile(a), a.line);
    }
  }
  PetscCall(PetscArraycpy(mesh->node_ids, sorted_ids, mesh->num_nodes));
  PetscCall(PetscArraycpy(mesh->coords, coords, 3 * mesh->num_nodes));
  PetscCall(PetscArraycpy(mesh->node_src, node_src, mesh->num_nodes));
  PetscCall(PetscFree4(perm, sorted_ids, coords, node_src));

  /* connectivity: ids -> indices */
  for (PetscInt e = 0; e < mesh->num_elems; e++) {
    /* a repeated node collapses the element: its Jacobian is singular somewhere, and the stiffness is wrong or NaN */
    for (PetscInt k = mesh->elem_offset[e] + 1; k < mesh->elem_offset[e + 1]; k++)
      for (PetscInt j = mesh->elem_offset[e]; j < k; j++)
        PetscCheck(mesh->elem_conn[j] != mesh->elem_conn[k], self, PETSC_ERR_USER_INPUT,
                   "%s:%" PetscInt_FMT ": element %" PetscInt_FMT " lists node %" PetscInt_FMT " twice (as its node %" PetscInt_FMT
                   " and %" PetscInt_FMT "); collapsed %s elements are not supported, use the element type of the collapsed shape",
                   VISourceFile(mesh->elem_src[e]), mesh->elem_src[e].line, mesh->elem_ids[e], mesh->elem_conn[k], j - mesh->elem_offset[e] + 1,
                   k - mesh->elem_offset[e] + 1, VIElementInfoTable[mesh->elem_type[e]].name);
    for (PetscInt k = mesh->elem_offset[e]; k < mesh->elem_offset[e + 1]; k++) {
      PetscInt idx;
      PetscCall(PetscFindInt(mesh->elem_conn[k], mesh->num_nodes, mesh->node_ids, &idx));
      PetscCheck(idx >= 0, self, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": element %" PetscInt_FMT " references node %" PetscInt_FMT ", which is not defined",
                 VISourceFile(mesh->elem_src[e]), mesh->elem_src[e].line, mesh->elem_ids[e], mesh->elem_conn[k]);
      mesh->elem_conn[k] = idx;
    }
  }

  /* element ids sorted (with permutation) to resolve element sets */
  PetscCall(PetscMalloc2(mesh->num_elems, &elem_perm, mesh->num_elems, &elem_sorted));
  for (PetscInt e = 0; e < mesh->num_elems; e++) {
    elem_perm[e]   = e;
    elem_sorted[e] = mesh->elem_ids[e];
  }
  PetscCall(PetscSortIntWithArray(mesh->num_elems, elem_sorted, elem_perm));
  for (PetscInt e = 1; e < mesh->num_elems; e++) {
    VISource a = mesh->elem_src[PetscMin(elem_perm[e - 1], elem_perm[e])], b = mesh->elem_src[PetscMax(elem_perm[e - 1], elem_perm[e])];
    PetscCheck(elem_sorted[e] != elem_sorted[e - 1], self, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": element %" PetscInt_FMT " is defined twice (first at %s:%" PetscInt_FMT ")", VISourceFile(b), b.line,
               elem_sorted[e], VISourceFile(a), a.line);
  }

  /* node sets: ids -> indices */
  for (PetscInt s = 0; s < mesh->num_nsets; s++) {
    VISet *set = &mesh->nsets[s];
    for (PetscInt i = 0; i < set->n; i++) {
      PetscInt idx;
      PetscCall(PetscFindInt(set->items[i], mesh->num_nodes, mesh->node_ids, &idx));
      PetscCheck(idx >= 0, self, PETSC_ERR_USER_INPUT, "%s: node set '%s' lists node %" PetscInt_FMT ", which is not defined",
                 mesh->num_files ? mesh->files[0] : "mesh", set->name, set->items[i]);
      set->items[i] = idx;
    }
    PetscCall(VISortUnique(&set->n, set->items));
  }
  /* element sets: ids -> indices */
  for (PetscInt s = 0; s < mesh->num_esets; s++) {
    VISet *set = &mesh->esets[s];
    for (PetscInt i = 0; i < set->n; i++) {
      PetscInt pos;
      PetscCall(PetscFindInt(set->items[i], mesh->num_elems, elem_sorted, &pos));
      PetscCheck(pos >= 0, self, PETSC_ERR_USER_INPUT, "%s: element set '%s' lists element %" PetscInt_FMT ", which is not defined",
                 mesh->num_files ? mesh->files[0] : "mesh", set->name, set->items[i]);
      set->items[i] = elem_perm[pos];
    }
    PetscCall(VISortUnique(&set->n, set->items));
  }
  PetscCall(PetscFree2(elem_perm, elem_sorted));

  /* spatial dimension: readers may set it; otherwise from the elements */
  if (!mesh->dim) {
    mesh->dim = 1;
    for (PetscInt e = 0; e < mesh->num_elems; e++) mesh->dim = PetscMax(mesh->dim, VIElementInfoTable[mesh->elem_type[e]].ref_dim);
  }
  for (PetscInt e = 0; e < mesh->num_elems; e++) {
    const VIElementInfo *info = &VIElementInfoTable[mesh->elem_type[e]];
    PetscCheck(info->ref_dim == mesh->dim || mesh->elem_type[e] == VI_ELEM_T3D2, self, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": element %" PetscInt_FMT " is a %s (%" PetscInt_FMT "D) in a %" PetscInt_FMT
               "D model; mixing solid and plane elements is not supported",
               VISourceFile(mesh->elem_src[e]), mesh->elem_src[e].line, mesh->elem_ids[e], info->name, info->ref_dim, mesh->dim);
  }

  /* sections -> element materials */
  for (PetscInt s = 0; s < mesh->num_sections; s++) {
    VISection *sec = &mesh->sections[s];
    PetscInt   k;
    PetscCall(VISetFind(mesh->num_esets, mesh->esets, sec->elset, &k));
    PetscCheck(k >= 0, self, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": section refers to element set '%s', which is not defined",
               VISourceFile(sec->src), sec->src.line, sec->elset);
    PetscCheck(mesh->esets[k].n > 0, self, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": section refers to element set '%s', which is empty",
               VISourceFile(sec->src), sec->src.line, sec->elset);
    PetscCheck(sec->material >= 0 && sec->material < mesh->num_materials, self, PETSC_ERR_PLIB, "section material index out of range");
    {
      const VIMaterial *mat = &mesh->materials[sec->material];
      PetscCheck(mat->young > 0 && mat->density > 0, self, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": material '%s' needs *ELASTIC (E > 0) and *DENSITY (rho > 0)", VISourceFile(sec->src), sec->src.line,
                 mat->name);
    }
    for (PetscInt i = 0; i < mesh->esets[k].n; i++) mesh->elem_section[mesh->esets[k].items[i]] = s;
  }

  /* coordinates compacted to the spatial dimension */
  if (mesh->dim < 3) {
    for (PetscInt i = 0; i < mesh->num_nodes; i++)
      for (PetscInt d = 0; d < mesh->dim; d++) mesh->coords[mesh->dim * i + d] = mesh->coords[3 * i + d];
  }

  /* clamps */
  PetscCall(PetscCalloc1(mesh->num_nodes * mesh->dim, &mesh->clamped));
  for (PetscInt b = 0; b < mesh->num_bcs; b++) {
    struct VIBoundary *bc = &mesh->bcs[b];
    PetscInt           id, n = 0, single;
    const PetscInt    *nodes = NULL;

    PetscCheck(bc->first >= 1 && bc->last >= bc->first, self, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": DOF range %" PetscInt_FMT "..%" PetscInt_FMT " is not valid", VISourceFile(bc->src), bc->src.line, bc->first,
               bc->last);
    if (VIIsInteger(bc->target, &id)) {
      PetscCall(PetscFindInt(id, mesh->num_nodes, mesh->node_ids, &single));
      PetscCheck(single >= 0, self, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *BOUNDARY on node %" PetscInt_FMT ", which is not defined",
                 VISourceFile(bc->src), bc->src.line, id);
      n     = 1;
      nodes = &single;
    } else {
      PetscInt s;
      PetscCall(VISetFind(mesh->num_nsets, mesh->nsets, bc->target, &s));
      PetscCheck(s >= 0, self, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *BOUNDARY on node set '%s', which is not defined", VISourceFile(bc->src),
                 bc->src.line, bc->target);
      PetscCheck(mesh->nsets[s].n > 0, self, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *BOUNDARY on node set '%s', which is empty",
                 VISourceFile(bc->src), bc->src.line, bc->target);
      n     = mesh->nsets[s].n;
      nodes = mesh->nsets[s].items;
    }
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt d = bc->first; d <= PetscMin(bc->last, mesh->dim); d++) mesh->clamped[nodes[i] * mesh->dim + d - 1] = PETSC_TRUE;
  }
  PetscCall(PetscFree(mesh->bcs));
  mesh->num_bcs = mesh->max_bcs = 0;
  PetscCall(VIMeshCompressClamps(mesh));
  PetscCall(PetscFree(mesh->node_src));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ broadcast */

static PetscErrorCode VIBcastArray(MPI_Comm comm, PetscBool root, void *arr, PetscInt n, size_t sz)
{
  void **p = (void **)arr;

  PetscFunctionBeginUser;
  if (!root) PetscCall(PetscMalloc(sz * (size_t)PetscMax(n, 1), p));
  if (n) PetscCallMPI(MPI_Bcast(*p, (PetscMPIInt)(sz * (size_t)n), MPI_BYTE, 0, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIBcastSets(MPI_Comm comm, PetscBool root, PetscInt num, VISet **sets)
{
  PetscFunctionBeginUser;
  if (!root) PetscCall(PetscCalloc1(PetscMax(num, 1), sets));
  for (PetscInt s = 0; s < num; s++) {
    VISet *set = &(*sets)[s];
    PetscCallMPI(MPI_Bcast(set->name, sizeof(set->name), MPI_CHAR, 0, comm));
    PetscCallMPI(MPI_Bcast(&set->n, 1, MPIU_INT, 0, comm));
    PetscCall(VIBcastArray(comm, root, &set->items, set->n, sizeof(PetscInt)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 holds the finished mesh; every other rank receives a copy. Collective. */
PetscErrorCode VIMeshBroadcast(VIMesh mesh)
{
  PetscMPIInt rank;
  PetscBool   root;
  PetscInt    sizes[8];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(mesh->comm, &rank));
  root     = rank == 0 ? PETSC_TRUE : PETSC_FALSE;
  sizes[0] = mesh->dim;
  sizes[1] = mesh->num_nodes;
  sizes[2] = mesh->num_elems;
  sizes[3] = mesh->conn_size;
  sizes[4] = mesh->num_nsets;
  sizes[5] = mesh->num_esets;
  sizes[6] = mesh->num_materials * 1000000 + mesh->num_sections;
  sizes[7] = mesh->num_clamped;
  PetscCallMPI(MPI_Bcast(sizes, 8, MPIU_INT, 0, mesh->comm));
  if (!root) {
    mesh->dim           = sizes[0];
    mesh->num_nodes     = sizes[1];
    mesh->num_elems     = sizes[2];
    mesh->conn_size     = sizes[3];
    mesh->num_nsets     = sizes[4];
    mesh->num_esets     = sizes[5];
    mesh->num_materials = sizes[6] / 1000000;
    mesh->num_sections  = sizes[6] % 1000000;
    mesh->num_clamped   = sizes[7];
  }
  PetscCall(VIBcastArray(mesh->comm, root, &mesh->node_ids, mesh->num_nodes, sizeof(PetscInt)));
  PetscCall(VIBcastArray(mesh->comm, root, &mesh->coords, mesh->num_nodes * mesh->dim, sizeof(PetscReal)));
  PetscCall(VIBcastArray(mesh->comm, root, &mesh->elem_ids, mesh->num_elems, sizeof(PetscInt)));
  PetscCall(VIBcastArray(mesh->comm, root, &mesh->elem_type, mesh->num_elems, sizeof(VIElementType)));
  PetscCall(VIBcastArray(mesh->comm, root, &mesh->elem_section, mesh->num_elems, sizeof(PetscInt)));
  PetscCall(VIBcastArray(mesh->comm, root, &mesh->elem_offset, mesh->num_elems + 1, sizeof(PetscInt)));
  PetscCall(VIBcastArray(mesh->comm, root, &mesh->elem_conn, mesh->conn_size, sizeof(PetscInt)));
  PetscCall(VIBcastArray(mesh->comm, root, &mesh->clamp_dofs, mesh->num_clamped, sizeof(PetscInt)));
  PetscCall(VIBcastArray(mesh->comm, root, &mesh->materials, mesh->num_materials, sizeof(VIMaterial)));
  PetscCall(VIBcastArray(mesh->comm, root, &mesh->sections, mesh->num_sections, sizeof(VISection)));
  if (!root)
    for (PetscInt s = 0; s < mesh->num_sections; s++) mesh->sections[s].src.file = NULL;
  PetscCall(VIBcastSets(mesh->comm, root, mesh->num_nsets, &mesh->nsets));
  PetscCall(VIBcastSets(mesh->comm, root, mesh->num_esets, &mesh->esets));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* node -> elements, CSR */
static PetscErrorCode VIMeshBuildNodeElements(VIMesh mesh)
{
  PetscInt *count;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(mesh->num_nodes + 1, &mesh->node_elem_offset, mesh->conn_size, &mesh->node_elem));
  PetscCall(PetscCalloc1(mesh->num_nodes + 1, &count));
  for (PetscInt k = 0; k < mesh->conn_size; k++) count[mesh->elem_conn[k] + 1]++;
  for (PetscInt i = 0; i < mesh->num_nodes; i++) count[i + 1] += count[i];
  PetscCall(PetscArraycpy(mesh->node_elem_offset, count, mesh->num_nodes + 1));
  for (PetscInt e = 0; e < mesh->num_elems; e++)
    for (PetscInt k = mesh->elem_offset[e]; k < mesh->elem_offset[e + 1]; k++) mesh->node_elem[count[mesh->elem_conn[k]]++] = e;
  PetscCall(PetscFree(count));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A file, line or rectangle: read or generated on rank 0 and broadcast (replicated: every rank holds every node and element). Collective. */
static PetscErrorCode VIMeshSetUpReplicated(VIMesh mesh)
{
  PetscMPIInt    rank;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(mesh->comm, &rank));
  PetscCall(PetscLogEventBegin(VI_MeshRead, 0, 0, 0, 0));
  if (rank == 0) {
    switch (mesh->kind) {
    case VI_MESH_SOURCE_FILE: {
      size_t    len;
      PetscBool inp = PETSC_FALSE, msh = PETSC_FALSE;
      PetscCall(PetscStrlen(mesh->path, &len));
      if (len >= 4) {
        PetscCall(PetscStrcasecmp(mesh->path + len - 4, ".inp", &inp));
        PetscCall(PetscStrcasecmp(mesh->path + len - 4, ".msh", &msh));
      }
      if (inp)
        ierr = VIMeshReadAbaqus(mesh, mesh->path);
      else if (msh)
        ierr = VIMeshReadGmsh(mesh, mesh->path);
      else
        ierr =
            PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL,
                       "-%smesh_file %s: unknown format, expected a name ending in .inp (Abaqus/CalculiX) or .msh (Gmsh)", mesh->prefix, mesh->path);
    } break;
    case VI_MESH_SOURCE_LINE:
      ierr = VIMeshGenerateLine(mesh);
      break;
    case VI_MESH_SOURCE_RECT:
      ierr = VIMeshGenerateRectangle(mesh);
      break;
    default:
      break;
    }
    if (!ierr) ierr = VIMeshBuildFinish(mesh);
    if (!ierr && mesh->elset[0] && !mesh->nodes_only) ierr = VIMeshRestrictToElementSet(mesh);
    if (!ierr) ierr = PetscFree(mesh->elem_src); /* the file lines of elements serve the reader's messages only */
  }
  PetscCall(VIErrorSync(mesh->comm, ierr));
  PetscCall(VIMeshBroadcast(mesh));
  PetscCall(PetscLogEventEnd(VI_MeshRead, 0, 0, 0, 0));
  mesh->num_held = mesh->num_nodes;
  for (PetscInt e = 0; e < mesh->num_elems; e++) mesh->type_count[mesh->elem_type[e]]++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A box is held in parts (each rank its elements and their nodes); a file, line or rectangle is read or generated on rank 0, the
   outcome shared so that no rank waits for a rank that failed, and broadcast. */
PetscErrorCode VIMeshSetUp(VIMesh mesh)
{
  PetscFunctionBeginUser;
  if (mesh->setup) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(mesh->kind != VI_MESH_SOURCE_NONE, mesh->comm, PETSC_ERR_USER_INPUT,
             "No mesh given: use -%smesh_file FILE (.inp or .msh), -%smesh_line_cells N, -%smesh_box_cells nx,ny,nz or -%smesh_rect_cells nx,ny",
             mesh->prefix, mesh->prefix, mesh->prefix, mesh->prefix);
  if (mesh->kind == VI_MESH_SOURCE_BOX) {
    /* a box is held in parts: partitioned from its index space, then every rank generates its own elements and their nodes */
    PetscCall(VIMeshBoxSizes(mesh));
    PetscCall(VIMeshPartition(mesh));
    PetscCall(PetscLogEventBegin(VI_MeshRead, 0, 0, 0, 0));
    PetscCall(VIMeshGenerateBoxParts(mesh));
    PetscCall(PetscLogEventEnd(VI_MeshRead, 0, 0, 0, 0));
  } else {
    PetscCall(VIMeshSetUpReplicated(mesh));
    PetscCall(VIMeshPartition(mesh));
  }
  mesh->setup = PETSC_TRUE;
  {
    PetscLogDouble rss, bytes;
    PetscCall(PetscMemoryGetCurrentUsage(&rss));
    PetscCall(VIMeshGetMemoryUsage(mesh, &bytes));
    /* what this rank holds of the mesh (issue 26: memory per rank that falls with ranks; tests/app/modes_parallel.sh reads it) */
    PetscCall(PetscInfo(NULL,
                        "Mesh held on this rank: %" PetscInt_FMT " nodes of %" PetscInt_FMT ", %" PetscInt_FMT " elements of %" PetscInt_FMT
                        ", %" PetscInt_FMT " elements owned; its arrays %.1f MiB, resident memory %.1f MiB\n",
                        mesh->parts ? mesh->num_held : mesh->num_nodes, mesh->num_nodes, mesh->parts ? mesh->num_local_elems : mesh->num_elems,
                        mesh->num_elems, mesh->num_local_elems, bytes / 1048576.0, rss / 1048576.0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ queries */

PetscErrorCode VIMeshGetComm(VIMesh mesh, MPI_Comm *comm)
{
  PetscFunctionBeginUser;
  *comm = mesh->comm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetDimension(VIMesh mesh, PetscInt *dim)
{
  PetscFunctionBeginUser;
  *dim = mesh->dim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetSizes(VIMesh mesh, PetscInt *num_nodes, PetscInt *num_elements)
{
  PetscFunctionBeginUser;
  if (num_nodes) *num_nodes = mesh->num_nodes;
  if (num_elements) *num_elements = mesh->num_elems;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetCoordinates(VIMesh mesh, const PetscReal **coords)
{
  PetscFunctionBeginUser;
  *coords = mesh->coords;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetNodeIds(VIMesh mesh, const PetscInt **ids)
{
  PetscFunctionBeginUser;
  *ids = mesh->node_ids;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshFindNode(VIMesh mesh, PetscInt id, PetscInt *index)
{
  PetscFunctionBeginUser;
  if (mesh->parts)
    *index = id >= 1 && id <= mesh->num_nodes ? id - 1 : -1; /* a box: node id - 1 */
  else {
    PetscCall(PetscFindInt(id, mesh->num_nodes, mesh->node_ids, index));
    if (*index < 0) *index = -1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetHeldNodes(VIMesh mesh, PetscInt *n, const PetscInt **nodes)
{
  PetscFunctionBeginUser;
  if (n) *n = mesh->parts ? mesh->num_held : mesh->num_nodes;
  if (nodes) *nodes = mesh->held;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshFindHeldNode(VIMesh mesh, PetscInt node, PetscInt *h)
{
  PetscFunctionBeginUser;
  if (mesh->held) {
    PetscCall(PetscFindInt(node, mesh->num_held, mesh->held, h));
    if (*h < 0) *h = -1;
  } else
    *h = node >= 0 && node < mesh->num_nodes ? node : -1; /* every node held */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetNodePoint(VIMesh mesh, PetscInt node, PetscReal xyz[3], PetscInt *id)
{
  PetscInt h;

  PetscFunctionBeginUser;
  PetscCall(VIMeshFindHeldNode(mesh, node, &h));
  if (h >= 0) {
    for (PetscInt d = 0; d < 3; d++) xyz[d] = d < mesh->dim ? mesh->coords[h * mesh->dim + d] : 0;
    if (id) *id = mesh->node_ids[h];
  } else {
    /* a node this rank does not hold: only a box's, from its index space */
    PetscCheck(mesh->parts && mesh->kind == VI_MESH_SOURCE_BOX && node >= 0 && node < mesh->num_nodes, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Node %" PetscInt_FMT " is not held on this rank (of %" PetscInt_FMT " nodes)", node, mesh->num_nodes);
    VIMeshBoxNode(mesh, node, xyz);
    if (id) *id = node + 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The nodes whose ids this rank writes into the id directory (VIMeshFindNodes), *n of them (node numbers, ids; PetscFree2): with
   the mesh replicated, the rank's contiguous block of the nodes; in parts, its held nodes (a node's holders write the same
   pair). Not collective. */
static PetscErrorCode VIMeshIdDirectoryNodes(VIMesh mesh, PetscInt *n, PetscInt **nodes, PetscInt **ids)
{
  PetscMPIInt rank, size;
  PetscInt    start = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(mesh->comm, &rank));
  PetscCallMPI(MPI_Comm_size(mesh->comm, &size));
  if (mesh->parts)
    *n = mesh->num_held;
  else {
    start = (PetscInt)(((PetscInt64)mesh->num_nodes * rank) / size);
    *n    = (PetscInt)(((PetscInt64)mesh->num_nodes * (rank + 1)) / size) - start;
  }
  PetscCall(PetscMalloc2(PetscMax(*n, 1), nodes, PetscMax(*n, 1), ids));
  for (PetscInt i = 0; i < *n; i++) {
    PetscInt h  = mesh->parts ? i : start + i; /* the held position */
    (*nodes)[i] = mesh->held ? mesh->held[h] : h;
    (*ids)[i]   = mesh->node_ids[h];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rank of the id directory that holds id: the ids [idmin, idmax] cut in size blocks of equal span, so that a rank finds the
   directory rank of any id without a table. */
static inline PetscMPIInt VIMeshIdRank(PetscInt id, PetscInt idmin, PetscInt idmax, PetscMPIInt size)
{
  return (PetscMPIInt)((((PetscInt64)id - idmin) * size) / ((PetscInt64)idmax - idmin + 1));
}

/* The PetscSF that sends n entries to the ranks dest[] (any order): *perm gets the entries' order grouped by rank (entry
   perm[k] goes to the k-th place of the send buffer). Collective. */
static PetscErrorCode VIMeshSendByRank(MPI_Comm comm, PetscInt n, const PetscInt dest[], PetscInt **perm, PetscSF *sf)
{
  PetscInt    *key, *tocounts;
  PetscMPIInt *toranks, nto = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(PetscMax(n, 1), &key));
  PetscCall(PetscMalloc1(PetscMax(n, 1), perm));
  for (PetscInt i = 0; i < n; i++) {
    key[i]     = dest[i];
    (*perm)[i] = i;
  }
  PetscCall(PetscSortIntWithArray(n, key, *perm));
  for (PetscInt i = 0; i < n; i++)
    if (!i || key[i] != key[i - 1]) nto++;
  PetscCall(PetscMalloc2(PetscMax(nto, 1), &toranks, PetscMax(nto, 1), &tocounts));
  for (PetscInt i = 0, k = -1; i < n; i++) {
    if (!i || key[i] != key[i - 1]) {
      toranks[++k] = (PetscMPIInt)key[i];
      tocounts[k]  = 0;
    }
    tocounts[k]++;
  }
  PetscCall(VISFCreateSend(comm, nto, toranks, tocounts, sf));
  PetscCall(PetscFree2(toranks, tocounts));
  PetscCall(PetscFree(key));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshFindNodes(VIMesh mesh, PetscInt n, const PetscInt ids[], PetscInt index[])
{
  PetscMPIInt  size;
  PetscInt     nsend = 0, range[2], nq = 0, ndir, nasked, *pair, *dir, *dest, *perm, *qid, *ask, *answer, *got, *qpos, *bids, *bnodes;
  PetscSF      sf;
  MPI_Datatype unit;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(mesh->comm, &size));
  for (PetscInt i = 0; i < n; i++) index[i] = -1;
  PetscCall(VIMeshIdDirectoryNodes(mesh, &nsend, &bnodes, &bids));
  /* the span of the ids over the ranks (a rank of no node gives an empty range) */
  range[0] = PETSC_MAX_INT;
  range[1] = PETSC_MIN_INT;
  for (PetscInt i = 0; i < nsend; i++) {
    range[0] = PetscMin(range[0], bids[i]);
    range[1] = PetscMax(range[1], bids[i]);
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &range[0], 1, MPIU_INT, MPI_MIN, mesh->comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &range[1], 1, MPIU_INT, MPI_MAX, mesh->comm));
  if (range[0] > range[1]) { /* a mesh of no node */
    PetscCall(PetscFree2(bnodes, bids));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the directory: the pairs (id, node index) sent to the rank of the id's block, sorted by id there */
  PetscCall(PetscMalloc1(PetscMax(nsend, 1), &dest));
  for (PetscInt i = 0; i < nsend; i++) dest[i] = VIMeshIdRank(bids[i], range[0], range[1], size);
  PetscCall(VIMeshSendByRank(mesh->comm, nsend, dest, &perm, &sf));
  PetscCall(PetscFree(dest));
  PetscCall(PetscMalloc1(PetscMax(2 * nsend, 1), &pair));
  for (PetscInt k = 0; k < nsend; k++) {
    pair[2 * k]     = bids[perm[k]];
    pair[2 * k + 1] = bnodes[perm[k]];
  }
  PetscCall(PetscFree(perm));
  PetscCall(PetscFree2(bnodes, bids));
  PetscCall(PetscSFGetGraph(sf, NULL, &ndir, NULL, NULL));
  PetscCall(PetscMalloc1(PetscMax(2 * ndir, 1), &dir));
  PetscCallMPI(MPI_Type_contiguous(2, MPIU_INT, &unit));
  PetscCallMPI(MPI_Type_commit(&unit));
  PetscCall(PetscSFBcastBegin(sf, unit, pair, dir, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, unit, pair, dir, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&unit));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree(pair));
  {
    PetscInt *did, *dnode;
    PetscCall(PetscMalloc2(PetscMax(ndir, 1), &did, PetscMax(ndir, 1), &dnode));
    for (PetscInt k = 0; k < ndir; k++) {
      did[k]   = dir[2 * k];
      dnode[k] = dir[2 * k + 1];
    }
    PetscCall(PetscFree(dir));
    PetscCall(PetscSortIntWithArray(ndir, did, dnode));
    /* the questions: each id within the span to its directory rank; the answers come back through the same PetscSF */
    PetscCall(PetscMalloc3(PetscMax(n, 1), &qid, PetscMax(n, 1), &qpos, PetscMax(n, 1), &dest));
    for (PetscInt i = 0; i < n; i++) {
      if (ids[i] < range[0] || ids[i] > range[1]) continue;
      qid[nq]    = ids[i];
      qpos[nq]   = i;
      dest[nq++] = VIMeshIdRank(ids[i], range[0], range[1], size);
    }
    PetscCall(VIMeshSendByRank(mesh->comm, nq, dest, &perm, &sf));
    PetscCall(PetscMalloc2(PetscMax(nq, 1), &ask, PetscMax(nq, 1), &got));
    for (PetscInt k = 0; k < nq; k++) ask[k] = qid[perm[k]];
    PetscCall(PetscSFGetGraph(sf, NULL, &nasked, NULL, NULL));
    PetscCall(PetscMalloc1(PetscMax(nasked, 1), &answer));
    PetscCall(PetscSFBcastBegin(sf, MPIU_INT, ask, answer, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(sf, MPIU_INT, ask, answer, MPI_REPLACE));
    for (PetscInt k = 0; k < nasked; k++) {
      PetscInt at;
      PetscCall(PetscFindInt(answer[k], ndir, did, &at));
      answer[k] = at >= 0 ? dnode[at] : -1;
    }
    PetscCall(PetscSFReduceBegin(sf, MPIU_INT, answer, got, MPI_REPLACE));
    PetscCall(PetscSFReduceEnd(sf, MPIU_INT, answer, got, MPI_REPLACE));
    for (PetscInt k = 0; k < nq; k++) index[qpos[perm[k]]] = got[k];
    PetscCall(PetscSFDestroy(&sf));
    PetscCall(PetscFree(answer));
    PetscCall(PetscFree2(ask, got));
    PetscCall(PetscFree(perm));
    PetscCall(PetscFree3(qid, qpos, dest));
    PetscCall(PetscFree2(did, dnode));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The position of element e in the element arrays: e when replicated, its place among this rank's elements in parts (-1: not
   held). */
static PetscErrorCode VIMeshElementPosition(VIMesh mesh, PetscInt e, PetscInt *pos)
{
  PetscFunctionBeginUser;
  if (mesh->parts) {
    PetscCall(PetscFindInt(e, mesh->num_local_elems, mesh->local_elems, pos));
    if (*pos < 0) *pos = -1;
  } else
    *pos = e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetElement(VIMesh mesh, PetscInt e, VIElementType *type, PetscInt *num_nodes, const PetscInt **nodes)
{
  PetscInt p;

  PetscFunctionBeginUser;
  PetscCall(VIMeshElementPosition(mesh, e, &p));
  if (p < 0) {
    /* an element this rank does not hold: a box's, generated from its index space into the mesh's scratch */
    VIElementType t;
    PetscInt      nen;
    PetscCheck(mesh->kind == VI_MESH_SOURCE_BOX && e >= 0 && e < mesh->num_elems, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Element %" PetscInt_FMT " is not held on this rank (of %" PetscInt_FMT " elements)", e, mesh->num_elems);
    VIMeshBoxElement(mesh, e, &t, &nen, mesh->scratch);
    if (type) *type = t;
    if (num_nodes) *num_nodes = nen;
    if (nodes) *nodes = mesh->scratch;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (type) *type = mesh->elem_type[p];
  if (num_nodes) *num_nodes = mesh->elem_offset[p + 1] - mesh->elem_offset[p];
  if (nodes) *nodes = mesh->elem_conn + mesh->elem_offset[p];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every rank's first index of a contiguous block ([first, first + n) on this rank), start[size] = total. Collective. */
static PetscErrorCode VIMeshBlockStarts(MPI_Comm comm, PetscInt first, PetscInt total, PetscInt **start)
{
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc1(size + 1, start));
  PetscCallMPI(MPI_Allgather(&first, 1, MPIU_INT, *start, 1, MPIU_INT, comm));
  (*start)[size] = total;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rank whose block holds index g: the last r with start[r] <= g (a rank of an empty block is skipped). */
static PetscMPIInt VIMeshBlockRank(PetscMPIInt size, const PetscInt start[], PetscInt g)
{
  PetscMPIInt lo = 0, hi = size - 1;

  while (lo < hi) {
    PetscMPIInt mid = (lo + hi + 1) / 2;
    if (start[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

PetscErrorCode VIMeshGetNodeRows(VIMesh mesh, PetscInt row0, PetscInt nrows, PetscReal xyz[], PetscInt ids[])
{
  PetscMPIInt  size;
  PetscInt    *start, *hid;
  PetscReal   *hx;
  PetscSFNode *remote;
  PetscSF      sf;
  MPI_Datatype point;

  PetscFunctionBeginUser;
  if (!mesh->parts) {
    /* replicated: every rank reads its rows */
    for (PetscInt i = 0; i < nrows; i++) PetscCall(VIMeshGetNodePoint(mesh, row0 + i, xyz + 3 * i, ids + i));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* in parts: the holders write their nodes' points and ids into the rows' blocks (a node's holders write the same bits) */
  PetscCallMPI(MPI_Comm_size(mesh->comm, &size));
  PetscCall(VIMeshBlockStarts(mesh->comm, row0, mesh->num_nodes, &start));
  PetscCall(PetscMalloc3(PetscMax(mesh->num_held, 1), &remote, PetscMax(3 * mesh->num_held, 1), &hx, PetscMax(mesh->num_held, 1), &hid));
  for (PetscInt h = 0; h < mesh->num_held; h++) {
    PetscInt g      = mesh->held ? mesh->held[h] : h;
    remote[h].rank  = VIMeshBlockRank(size, start, g);
    remote[h].index = g - start[remote[h].rank];
    for (PetscInt d = 0; d < 3; d++) hx[3 * h + d] = d < mesh->dim ? mesh->coords[h * mesh->dim + d] : 0;
    hid[h] = mesh->node_ids[h];
  }
  PetscCall(PetscFree(start));
  PetscCall(PetscSFCreate(mesh->comm, &sf));
  PetscCall(PetscSFSetGraph(sf, nrows, mesh->num_held, NULL, PETSC_COPY_VALUES, remote, PETSC_COPY_VALUES));
  for (PetscInt i = 0; i < nrows; i++) ids[i] = -1;
  PetscCallMPI(MPI_Type_contiguous(3, MPIU_REAL, &point));
  PetscCallMPI(MPI_Type_commit(&point));
  PetscCall(PetscSFReduceBegin(sf, point, hx, xyz, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, point, hx, xyz, MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, hid, ids, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, hid, ids, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&point));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree3(remote, hx, hid));
  /* a node of no element, which no rank holds (a box has none) */
  for (PetscInt i = 0; i < nrows; i++)
    if (ids[i] < 0) PetscCall(VIMeshGetNodePoint(mesh, row0 + i, xyz + 3 * i, ids + i));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetElementRecords(VIMesh mesh, PetscInt e0, PetscInt e1, PetscInt *size, PetscInt **records)
{
  PetscMPIInt  nranks;
  PetscInt    *start, nl = mesh->num_local_elems, *len, *off, *rootlen, *rootoff, nent = 0, *ent;
  PetscSFNode *remote;
  PetscSF      sf;

  PetscFunctionBeginUser;
  if (!mesh->parts) {
    /* replicated: every rank reads its elements */
    *size = 0;
    for (PetscInt e = e0; e < e1; e++) *size += 2 + mesh->elem_offset[e + 1] - mesh->elem_offset[e];
    PetscCall(PetscMalloc1(PetscMax(*size, 1), records));
    for (PetscInt e = e0, p = 0; e < e1; e++) {
      (*records)[p++] = mesh->elem_type[e];
      (*records)[p++] = mesh->elem_offset[e + 1] - mesh->elem_offset[e];
      for (PetscInt k = mesh->elem_offset[e]; k < mesh->elem_offset[e + 1]; k++) (*records)[p++] = mesh->elem_conn[k];
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* in parts: each element's owner sends its record to the rank of its block; first the lengths, then the places */
  PetscCallMPI(MPI_Comm_size(mesh->comm, &nranks));
  PetscCall(VIMeshBlockStarts(mesh->comm, e0, mesh->num_elems, &start));
  PetscCall(PetscMalloc3(PetscMax(nl, 1), &remote, PetscMax(nl, 1), &len, PetscMax(nl, 1), &off));
  for (PetscInt l = 0; l < nl; l++) {
    PetscInt e      = mesh->local_elems[l];
    remote[l].rank  = VIMeshBlockRank(nranks, start, e);
    remote[l].index = e - start[remote[l].rank];
    len[l]          = 2 + mesh->elem_offset[l + 1] - mesh->elem_offset[l];
    nent += len[l];
  }
  PetscCall(PetscFree(start));
  PetscCall(PetscMalloc2(PetscMax(e1 - e0, 1), &rootlen, PetscMax(e1 - e0, 1), &rootoff));
  PetscCall(PetscSFCreate(mesh->comm, &sf));
  PetscCall(PetscSFSetGraph(sf, e1 - e0, nl, NULL, PETSC_COPY_VALUES, remote, PETSC_COPY_VALUES));
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, len, rootlen, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, len, rootlen, MPI_REPLACE));
  *size = 0;
  for (PetscInt i = 0; i < e1 - e0; i++) {
    rootoff[i] = *size;
    *size += rootlen[i];
  }
  PetscCall(PetscSFBcastBegin(sf, MPIU_INT, rootoff, off, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, rootoff, off, MPI_REPLACE));
  PetscCall(PetscSFDestroy(&sf));
  /* the records' entries to their places */
  {
    PetscSFNode *eremote;
    PetscCall(PetscMalloc2(PetscMax(nent, 1), &eremote, PetscMax(nent, 1), &ent));
    for (PetscInt l = 0, p = 0; l < nl; l++) {
      ent[p]     = mesh->elem_type[l];
      ent[p + 1] = len[l] - 2;
      for (PetscInt k = 0; k < len[l] - 2; k++) ent[p + 2 + k] = mesh->elem_conn[mesh->elem_offset[l] + k];
      for (PetscInt k = 0; k < len[l]; k++) {
        eremote[p + k].rank  = remote[l].rank;
        eremote[p + k].index = off[l] + k;
      }
      p += len[l];
    }
    PetscCall(PetscMalloc1(PetscMax(*size, 1), records));
    PetscCall(PetscSFCreate(mesh->comm, &sf));
    PetscCall(PetscSFSetGraph(sf, *size, nent, NULL, PETSC_COPY_VALUES, eremote, PETSC_COPY_VALUES));
    PetscCall(PetscSFReduceBegin(sf, MPIU_INT, ent, *records, MPI_REPLACE));
    PetscCall(PetscSFReduceEnd(sf, MPIU_INT, ent, *records, MPI_REPLACE));
    PetscCall(PetscSFDestroy(&sf));
    PetscCall(PetscFree2(eremote, ent));
  }
  PetscCall(PetscFree2(rootlen, rootoff));
  PetscCall(PetscFree3(remote, len, off));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetElementTypeCounts(VIMesh mesh, const PetscInt **counts)
{
  PetscFunctionBeginUser;
  *counts = mesh->type_count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetElementMaterial(VIMesh mesh, PetscInt e, const VIMaterial **mat, PetscReal *thickness)
{
  PetscInt s, p;

  PetscFunctionBeginUser;
  PetscCall(VIMeshElementPosition(mesh, e, &p));
  s = p >= 0 ? mesh->elem_section[p] : -1; /* an element not held: a box's, of no section */
  if (mat) *mat = s >= 0 ? &mesh->materials[mesh->sections[s].material] : NULL;
  if (thickness)
    *thickness = s >= 0 ? mesh->sections[s].thickness
                        : (mesh->kind == VI_MESH_SOURCE_LINE ? mesh->line_area : (mesh->kind == VI_MESH_SOURCE_RECT ? mesh->rect_thickness : 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetNodeSet(VIMesh mesh, const char name[], PetscInt *n, const PetscInt **nodes, PetscBool *found)
{
  PetscInt s;

  PetscFunctionBeginUser;
  PetscCall(VISetFind(mesh->num_nsets, mesh->nsets, name, &s));
  *found = s >= 0 ? PETSC_TRUE : PETSC_FALSE;
  if (n) *n = s >= 0 ? mesh->nsets[s].n : 0;
  if (nodes) *nodes = s >= 0 ? mesh->nsets[s].items : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshRequireNodeSet(VIMesh mesh, const char option[], const char name[], PetscInt *n, const PetscInt **nodes)
{
  PetscBool found;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetNodeSet(mesh, name, n, nodes, &found));
  if (!found) {
    char list[1024] = "";
    for (PetscInt k = 0; k < mesh->num_nsets; k++) {
      if (k) PetscCall(PetscStrlcat(list, ", ", sizeof(list)));
      PetscCall(PetscStrlcat(list, mesh->nsets[k].name, sizeof(list)));
    }
    SETERRQ(mesh->comm, PETSC_ERR_USER_INPUT, "%s: node set '%s' is not in the mesh%s%s%s; its node sets are: %s", option, name,
            mesh->elset[0] ? " (element set " : "", mesh->elset, mesh->elset[0] ? ", sets with none of its nodes left out)" : "",
            mesh->num_nsets ? list : "(none)");
  }
  PetscCheck(*n > 0, mesh->comm, PETSC_ERR_USER_INPUT, "%s: node set '%s' is empty", option, name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetNumNodeSets(VIMesh mesh, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = mesh->num_nsets;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetNodeSetName(VIMesh mesh, PetscInt s, const char **name)
{
  PetscFunctionBeginUser;
  *name = mesh->nsets[s].name;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetClamps(VIMesh mesh, PetscInt *n, const PetscInt **dofs)
{
  PetscFunctionBeginUser;
  *n    = mesh->num_clamped;
  *dofs = mesh->clamp_dofs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetLocalElements(VIMesh mesh, PetscInt *n, const PetscInt **elements)
{
  PetscFunctionBeginUser;
  *n        = mesh->num_local_elems;
  *elements = mesh->local_elems;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGetNodeElements(VIMesh mesh, const PetscInt **offsets, const PetscInt **elements)
{
  PetscFunctionBeginUser;
  PetscCheck(!mesh->parts, PETSC_COMM_SELF, PETSC_ERR_SUP, "The node-to-element map of the whole mesh is not built for a mesh held in parts");
  if (!mesh->node_elem_offset) PetscCall(VIMeshBuildNodeElements(mesh));
  if (offsets) *offsets = mesh->node_elem_offset;
  if (elements) *elements = mesh->node_elem;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bytes of the mesh's arrays on this rank (of global size when the mesh is replicated, this rank's part of a box: issue 26). */
PetscErrorCode VIMeshGetMemoryUsage(VIMesh mesh, PetscLogDouble *bytes)
{
  PetscLogDouble b = 0, nn = (PetscLogDouble)(mesh->parts ? mesh->num_held : mesh->num_nodes);
  PetscLogDouble ne = (PetscLogDouble)(mesh->parts ? mesh->num_local_elems : mesh->num_elems);

  PetscFunctionBeginUser;
  b += nn * (sizeof(PetscInt) + mesh->dim * sizeof(PetscReal)) + mesh->num_clamped * sizeof(PetscInt); /* ids, coordinates, clamps */
  if (mesh->held) b += nn * sizeof(PetscInt);                                                          /* the held nodes' numbers */
  b += ne * (3 * sizeof(PetscInt) + sizeof(VIElementType)) + mesh->conn_size * sizeof(PetscInt); /* ids, sections, offsets, types, connectivity */
  if (mesh->node_src) b += mesh->max_nodes * sizeof(VISource);
  if (mesh->elem_src) b += mesh->max_elems * sizeof(VISource);
  for (PetscInt s = 0; s < mesh->num_nsets; s++) b += mesh->nsets[s].n * sizeof(PetscInt);
  for (PetscInt s = 0; s < mesh->num_esets; s++) b += mesh->esets[s].n * sizeof(PetscInt);
  if (mesh->node_elem_offset) b += (nn + 1 + mesh->conn_size) * sizeof(PetscInt);
  if (mesh->local_elems) b += mesh->num_local_elems * sizeof(PetscInt); /* this rank's elements (no longer every element's owner) */
  *bytes = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Free the node -> elements map (about 12 bytes per DOF of a hex8 mesh): a set-up that has used it gives its memory back
   before the solvers take theirs; the next VIMeshGetNodeElements builds it again. */
PetscErrorCode VIMeshRestoreNodeElements(VIMesh mesh)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(mesh->node_elem_offset, mesh->node_elem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshView(VIMesh mesh, PetscViewer viewer)
{
  PetscInt    count[VI_ELEM_NUM_TYPES] = {0}, nclamped = 0;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(mesh->comm, &viewer));
  PetscCallMPI(MPI_Comm_size(mesh->comm, &size));
  for (PetscInt t = 0; t < VI_ELEM_NUM_TYPES; t++) count[t] = mesh->type_count[t]; /* the whole mesh's, held in parts or not */
  nclamped = mesh->num_clamped;
  PetscCall(PetscViewerASCIIPrintf(viewer, "Mesh: %s%s%s, %" PetscInt_FMT "D, %" PetscInt_FMT " nodes, %" PetscInt_FMT " elements (",
                                   mesh->kind == VI_MESH_SOURCE_FILE ? mesh->path : "generated", mesh->elset[0] ? " element set " : "", mesh->elset,
                                   mesh->dim, mesh->num_nodes, mesh->num_elems));
  if (mesh->nodes_only) PetscCall(PetscViewerASCIIPrintf(viewer, "not read: the parent is given as matrices"));
  for (PetscInt t = 0, first = 1; t < VI_ELEM_NUM_TYPES; t++)
    if (count[t]) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "%s%" PetscInt_FMT " %s", first ? "" : ", ", count[t], VIElementInfoTable[t].name));
      first = 0;
    }
  PetscCall(PetscViewerASCIIPrintf(viewer, "), %" PetscInt_FMT " node sets, %" PetscInt_FMT " DOFs clamped by the deck, partitioned over %d rank%s\n",
                                   mesh->num_nsets, nclamped, size, size > 1 ? "s" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The mesh module's options: readers, generators, the partitioner under -mesh_ (src/sys/options.c's registry: names, the type each is read with, an enum's choices) */
static const VIOptionEntry VIMeshOptions[] = {
    {"-mesh_file", VI_OPTION_STRING, NULL},
    {"-mesh_elset", VI_OPTION_STRING, NULL},
    {"-mesh_line_cells", VI_OPTION_INT, NULL},
    {"-mesh_line_length", VI_OPTION_REAL, NULL},
    {"-mesh_line_area", VI_OPTION_REAL, NULL},
    {"-mesh_box_cells", VI_OPTION_INTS, NULL},
    {"-mesh_box_lengths", VI_OPTION_REALS, NULL},
    {"-mesh_box_element", VI_OPTION_ENUM, VIElementTypes},
    {"-mesh_rect_cells", VI_OPTION_INTS, NULL},
    {"-mesh_rect_lengths", VI_OPTION_REALS, NULL},
    {"-mesh_rect_thickness", VI_OPTION_REAL, NULL},
    {"-mesh_rect_origin", VI_OPTION_REALS, NULL},
    {"-mesh_rect_angle", VI_OPTION_REAL, NULL},
    {"-mesh_mat_partitioning_*", VI_OPTION_PASS, NULL},
};

PetscErrorCode VIMeshRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRegisterTable("mesh", VIMeshOptions, sizeof(VIMeshOptions) / sizeof(VIMeshOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
