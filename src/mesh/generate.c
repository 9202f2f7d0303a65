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

/* Structured box [0,Lx]x[0,Ly]x[0,Lz]; node id = 1 + i + (nx+1)(j + (ny+1)k). Node sets: faces xmin..zmax, the 12
   edges (e.g. "xmin_ymin") and the 8 corners (e.g. "xmin_ymin_zmin"). */
PetscErrorCode VIMeshGenerateBox(VIMesh mesh)
{
  const PetscInt *c  = mesh->box_cells;
  PetscInt        nx = c[0] + 1, ny = c[1] + 1, nz = c[2] + 1, eid = 1;
  VISource        src     = {NULL, 0};
  const char     *axis[3] = {"x", "y", "z"};
  PetscInt       *members;

  PetscFunctionBeginUser;
  mesh->dim = 3;
  for (PetscInt k = 0; k < nz; k++)
    for (PetscInt j = 0; j < ny; j++)
      for (PetscInt i = 0; i < nx; i++) {
        PetscReal xyz[3] = {mesh->box_lengths[0] * i / c[0], mesh->box_lengths[1] * j / c[1], mesh->box_lengths[2] * k / c[2]};
        PetscCall(VIMeshBuildAddNode(mesh, 1 + i + nx * (j + ny * k), xyz, src));
      }
  for (PetscInt k = 0; k < c[2]; k++)
    for (PetscInt j = 0; j < c[1]; j++)
      for (PetscInt i = 0; i < c[0]; i++) {
        PetscInt hex[8], base = 1 + i + nx * (j + ny * k);
        hex[0] = base;
        hex[1] = base + 1;
        hex[2] = base + 1 + nx;
        hex[3] = base + nx;
        for (PetscInt q = 0; q < 4; q++) hex[4 + q] = hex[q] + nx * ny;
        if (mesh->box_type == VI_ELEM_C3D8)
          PetscCall(VIMeshBuildAddElement(mesh, eid++, VI_ELEM_C3D8, hex, src));
        else if (mesh->box_type == VI_ELEM_C3D6) {
          for (PetscInt s = 0; s < 2; s++) {
            PetscInt w[6];
            for (PetscInt q = 0; q < 6; q++) w[q] = hex[wedge_split[s][q]];
            PetscCall(VIMeshBuildAddElement(mesh, eid++, VI_ELEM_C3D6, w, src));
          }
        } else {
          for (PetscInt s = 0; s < 6; s++) {
            PetscInt t[4];
            for (PetscInt q = 0; q < 4; q++) t[q] = hex[tet_split[s][q]];
            PetscCall(VIMeshBuildAddElement(mesh, eid++, VI_ELEM_C3D4, t, src));
          }
        }
      }

  /* sets: a node belongs to the face set of each bound it lies on; edges and corners are intersections */
  PetscCall(PetscMalloc1(nx * ny * nz, &members));
  for (PetscInt mask = 1; mask < 27; mask++) {
    /* per axis: 0 = free, 1 = min, 2 = max */
    PetscInt side[3] = {mask % 3, (mask / 3) % 3, mask / 9}, n = 0;
    char     name[64] = "";
    for (PetscInt d = 0; d < 3; d++) {
      if (!side[d]) continue;
      if (name[0]) PetscCall(PetscStrlcat(name, "_", sizeof(name)));
      PetscCall(PetscStrlcat(name, axis[d], sizeof(name)));
      PetscCall(PetscStrlcat(name, side[d] == 1 ? "min" : "max", sizeof(name)));
    }
    for (PetscInt k = 0; k < nz; k++)
      for (PetscInt j = 0; j < ny; j++)
        for (PetscInt i = 0; i < nx; i++) {
          PetscInt  idx[3] = {i, j, k}, last[3] = {nx - 1, ny - 1, nz - 1};
          PetscBool in = PETSC_TRUE;
          for (PetscInt d = 0; d < 3; d++) {
            if (side[d] == 1 && idx[d] != 0) in = PETSC_FALSE;
            if (side[d] == 2 && idx[d] != last[d]) in = PETSC_FALSE;
          }
          if (in) members[n++] = 1 + i + nx * (j + ny * k);
        }
    PetscCall(VIMeshBuildAddToNodeSet(mesh, name, n, members));
  }
  PetscCall(PetscFree(members));
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
