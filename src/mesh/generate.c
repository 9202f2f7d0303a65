/* Built-in meshes: a line of T3D2 rods, a structured box of hexes (or wedges, tets), a 2D rectangle of CPS4 quads. */
#include "meshimpl.h"

/* Line along x: nodes 1..n+1, elements 1..n, node sets "start" (x = 0) and "end" (x = L). */
PetscErrorCode VIMeshGenerateLine(VIMesh mesh)
{
  PetscInt n = mesh->line_cells, first = 1, last = n + 1;
  VISource src = {NULL, 0};

  PetscFunctionBeginUser;
  mesh->dim = 1;
  for (PetscInt i = 0; i <= n; i++) {
    PetscReal xyz[3] = {mesh->line_length * (PetscReal)i / (PetscReal)n, 0, 0};
    PetscCall(VIMeshBuildAddNode(mesh, i + 1, xyz, src));
  }
  for (PetscInt e = 0; e < n; e++) {
    PetscInt nodes[2] = {e + 1, e + 2};
    PetscCall(VIMeshBuildAddElement(mesh, e + 1, VI_ELEM_T3D2, nodes, src));
  }
  PetscCall(VIMeshBuildAddToNodeSet(mesh, "start", 1, &first));
  PetscCall(VIMeshBuildAddToNodeSet(mesh, "end", 1, &last));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each hex of the box split into 2 wedges (along z) or 6 tets sharing the main diagonal 1-7 (Kuhn split, conforming). */
static const PetscInt wedge_split[2][6] = {{0, 1, 3, 4, 5, 7}, {1, 2, 3, 5, 6, 7}};
static const PetscInt tet_split[6][4]   = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6}, {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};

/* Structured box [0,Lx]x[0,Ly]x[0,Lz] of c[0] x c[1] x c[2] cells: node g (0-based) = i + nx (j + ny k), its id g + 1; each cell
   one hex8, 2 wedges or 6 tets, element e of cell e / split (cells in i, then j, then k order), its id e + 1. */
static PetscInt VIMeshBoxSplit(VIElementType type)
{
  return type == VI_ELEM_C3D8 ? 1 : (type == VI_ELEM_C3D6 ? 2 : 6);
}

PetscErrorCode VIMeshBoxSizes(VIMesh mesh)
{
  const PetscInt *c = mesh->box_cells;

  PetscFunctionBeginUser;
  PetscCheck((PetscInt64)(c[0] + 1) * (c[1] + 1) * (c[2] + 1) < PETSC_MAX_INT / 8 &&
                 (PetscInt64)c[0] * c[1] * c[2] * VIMeshBoxSplit(mesh->box_type) < PETSC_MAX_INT / 8,
             mesh->comm, PETSC_ERR_USER_INPUT,
             "-mesh_box_cells %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ": too many nodes or elements for 32-bit indices", c[0], c[1],
             c[2]);
  mesh->dim       = 3;
  mesh->parts     = PETSC_TRUE;
  mesh->num_nodes = (c[0] + 1) * (c[1] + 1) * (c[2] + 1);
  mesh->num_elems = c[0] * c[1] * c[2] * VIMeshBoxSplit(mesh->box_type);
  PetscFunctionReturn(PETSC_SUCCESS);
}

void VIMeshBoxNode(VIMesh mesh, PetscInt g, PetscReal xyz[3])
{
  const PetscInt *c  = mesh->box_cells;
  PetscInt        nx = c[0] + 1, ny = c[1] + 1, i = g % nx, j = (g / nx) % ny, k = g / (nx * ny);

  xyz[0] = mesh->box_lengths[0] * i / c[0];
  xyz[1] = mesh->box_lengths[1] * j / c[1];
  xyz[2] = mesh->box_lengths[2] * k / c[2];
}

void VIMeshBoxElement(VIMesh mesh, PetscInt e, VIElementType *type, PetscInt *nen, PetscInt nodes[])
{
  const PetscInt *c  = mesh->box_cells;
  PetscInt        nx = c[0] + 1, ny = c[1] + 1, split = VIMeshBoxSplit(mesh->box_type), h = e / split, s = e % split;
  PetscInt        i = h % c[0], j = (h / c[0]) % c[1], k = h / (c[0] * c[1]), hex[8], base = i + nx * (j + ny * k);

  hex[0] = base;
  hex[1] = base + 1;
  hex[2] = base + 1 + nx;
  hex[3] = base + nx;
  for (PetscInt q = 0; q < 4; q++) hex[4 + q] = hex[q] + nx * ny;
  *type = mesh->box_type;
  if (mesh->box_type == VI_ELEM_C3D8) {
    *nen = 8;
    for (PetscInt q = 0; q < 8; q++) nodes[q] = hex[q];
  } else if (mesh->box_type == VI_ELEM_C3D6) {
    *nen = 6;
    for (PetscInt q = 0; q < 6; q++) nodes[q] = hex[wedge_split[s][q]];
  } else {
    *nen = 4;
    for (PetscInt q = 0; q < 4; q++) nodes[q] = hex[tet_split[s][q]];
  }
}

/* Node sets: faces xmin..zmax, the 12 edges (e.g. "xmin_ymin") and the 8 corners (e.g. "xmin_ymin_zmin"); a node belongs to
   the face set of each bound it lies on, edges and corners are intersections. Global node numbers, ascending, on every rank
   (a face's nodes: of the order of the mesh's nodes to the power 2/3). */
static PetscErrorCode VIMeshBoxSets(VIMesh mesh)
{
  const PetscInt *c       = mesh->box_cells;
  PetscInt        n3[3]   = {c[0] + 1, c[1] + 1, c[2] + 1};
  const char     *axis[3] = {"x", "y", "z"};

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(26, &mesh->nsets));
  mesh->max_nsets = 26;
  for (PetscInt mask = 1; mask < 27; mask++) {
    /* per axis: 0 = free, 1 = min, 2 = max */
    PetscInt side[3] = {mask % 3, (mask / 3) % 3, mask / 9}, lo[3], hi[3], n = 1;
    VISet   *set = &mesh->nsets[mesh->num_nsets++];
    for (PetscInt d = 0; d < 3; d++) {
      if (side[d]) {
        if (set->name[0]) PetscCall(PetscStrlcat(set->name, "_", sizeof(set->name)));
        PetscCall(PetscStrlcat(set->name, axis[d], sizeof(set->name)));
        PetscCall(PetscStrlcat(set->name, side[d] == 1 ? "min" : "max", sizeof(set->name)));
      }
      lo[d] = side[d] == 2 ? n3[d] - 1 : 0;
      hi[d] = side[d] == 1 ? 0 : n3[d] - 1;
      n *= hi[d] - lo[d] + 1;
    }
    PetscCall(PetscMalloc1(n, &set->items));
    for (PetscInt k = lo[2]; k <= hi[2]; k++)
      for (PetscInt j = lo[1]; j <= hi[1]; j++)
        for (PetscInt i = lo[0]; i <= hi[0]; i++) set->items[set->n++] = i + n3[0] * (j + n3[1] * k);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshGenerateBoxParts(VIMesh mesh)
{
  PetscInt ne = mesh->num_local_elems, nen = 0, *list;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(PetscMax(ne, 1), &mesh->elem_ids));
  PetscCall(PetscMalloc1(PetscMax(ne, 1), &mesh->elem_type));
  PetscCall(PetscMalloc1(PetscMax(ne, 1), &mesh->elem_section));
  PetscCall(PetscMalloc1(ne + 1, &mesh->elem_offset));
  PetscCall(PetscMalloc1(PetscMax(8 * ne, 1), &mesh->elem_conn));
  mesh->elem_offset[0] = 0;
  for (PetscInt l = 0; l < ne; l++) {
    PetscInt e = mesh->local_elems[l];
    VIMeshBoxElement(mesh, e, &mesh->elem_type[l], &nen, mesh->elem_conn + mesh->elem_offset[l]);
    mesh->elem_ids[l]        = e + 1;
    mesh->elem_section[l]    = -1;
    mesh->elem_offset[l + 1] = mesh->elem_offset[l] + nen;
  }
  mesh->conn_size = mesh->elem_offset[ne];
  /* the held nodes: those of this rank's elements */
  PetscCall(PetscMalloc1(PetscMax(mesh->conn_size, 1), &list));
  PetscCall(PetscArraycpy(list, mesh->elem_conn, mesh->conn_size));
  mesh->num_held = mesh->conn_size;
  PetscCall(PetscSortRemoveDupsInt(&mesh->num_held, list));
  if (mesh->num_held < mesh->num_nodes) {
    PetscCall(PetscMalloc1(PetscMax(mesh->num_held, 1), &mesh->held));
    PetscCall(PetscArraycpy(mesh->held, list, mesh->num_held));
  } /* else every node is held (one rank): held node h is node h, no list */
  PetscCall(PetscFree(list));
  PetscCall(PetscMalloc1(PetscMax(mesh->num_held, 1), &mesh->node_ids));
  PetscCall(PetscMalloc1(PetscMax(3 * mesh->num_held, 1), &mesh->coords));
  for (PetscInt h = 0; h < mesh->num_held; h++) {
    PetscInt g        = mesh->held ? mesh->held[h] : h;
    mesh->node_ids[h] = g + 1;
    VIMeshBoxNode(mesh, g, mesh->coords + 3 * h);
  }
  PetscCall(PetscMalloc1(1, &mesh->clamp_dofs));
  mesh->num_clamped                = 0;
  mesh->type_count[mesh->box_type] = mesh->num_elems;
  PetscCall(VIMeshBoxSets(mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rectangle of CPS4 quads in its own axes [0,Lx]x[0,Ly], turned by the angle and moved to the origin; node id =
   1 + i + (nx+1) j, element id = 1 + i + nx j, nodes counter-clockwise (Abaqus order). Node sets: sides xmin, xmax, ymin,
   ymax and corners xmin_ymin, xmax_ymin, xmin_ymax, xmax_ymax, in the rectangle's own axes. */
PetscErrorCode VIMeshGenerateRectangle(VIMesh mesh)
{
  const PetscInt *c  = mesh->rect_cells;
  PetscInt        nx = c[0] + 1, ny = c[1] + 1, *members, n;
  VISource        src = {NULL, 0};
  PetscReal       a = mesh->rect_angle * PETSC_PI / 180, ca = PetscCosReal(a), sa = PetscSinReal(a);
  const char     *sides[4] = {"xmin", "xmax", "ymin", "ymax"};

  PetscFunctionBeginUser;
  mesh->dim = 2;
  for (PetscInt j = 0; j < ny; j++)
    for (PetscInt i = 0; i < nx; i++) {
      PetscReal x = mesh->rect_lengths[0] * i / c[0], y = mesh->rect_lengths[1] * j / c[1];
      PetscReal xyz[3] = {mesh->rect_origin[0] + ca * x - sa * y, mesh->rect_origin[1] + sa * x + ca * y, 0};
      /* the turn leaves rounding on the axes of an unturned rectangle: keep its coordinates exact */
      if (mesh->rect_angle == 0) {
        xyz[0] = mesh->rect_origin[0] + x;
        xyz[1] = mesh->rect_origin[1] + y;
      }
      PetscCall(VIMeshBuildAddNode(mesh, 1 + i + nx * j, xyz, src));
    }
  for (PetscInt j = 0; j < c[1]; j++)
    for (PetscInt i = 0; i < c[0]; i++) {
      PetscInt base = 1 + i + nx * j, quad[4] = {base, base + 1, base + 1 + nx, base + nx};
      PetscCall(VIMeshBuildAddElement(mesh, 1 + i + c[0] * j, VI_ELEM_CPS4, quad, src));
    }
  PetscCall(PetscMalloc1(PetscMax(nx, ny), &members));
  for (PetscInt s = 0; s < 4; s++) {
    PetscBool along_y = s < 2 ? PETSC_TRUE : PETSC_FALSE; /* xmin, xmax run along y */
    PetscInt  fixed   = (s % 2) ? (along_y ? nx - 1 : ny - 1) : 0;
    n                 = along_y ? ny : nx;
    for (PetscInt k = 0; k < n; k++) members[k] = along_y ? 1 + fixed + nx * k : 1 + k + nx * fixed;
    PetscCall(VIMeshBuildAddToNodeSet(mesh, sides[s], n, members));
  }
  for (PetscInt s = 0; s < 4; s++) {
    char     name[64];
    PetscInt i = (s % 2) ? nx - 1 : 0, j = (s / 2) ? ny - 1 : 0, id = 1 + i + nx * j;
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s_%s", sides[s % 2], sides[2 + s / 2]));
    PetscCall(VIMeshBuildAddToNodeSet(mesh, name, 1, &id));
  }
  PetscCall(PetscFree(members));
  PetscFunctionReturn(PETSC_SUCCESS);
}
