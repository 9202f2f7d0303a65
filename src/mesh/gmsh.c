/* Gmsh ASCII .msh reader (formats 4.1 and 2.2): nodes, elements, physical groups as node and element sets, on one rank. */
#include "meshimpl.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSH_NAME_LEN  64
#define MSH_MAX_NODES 20 /* nodes of the largest supported element, the 20-node hexahedron */

/* Gmsh element types 1..31: name, dimension, nodes (Gmsh reference manual, "MSH file format", elm-type). */
typedef struct {
  const char *name;
  PetscInt    dim, num_nodes;
} MshType;

/* clang-format off */
static const MshType MshTypes[] = {
  [1]  = {"2-node line", 1, 2},           [2]  = {"3-node triangle", 2, 3},      [3]  = {"4-node quadrangle", 2, 4},
  [4]  = {"4-node tetrahedron", 3, 4},    [5]  = {"8-node hexahedron", 3, 8},    [6]  = {"6-node prism", 3, 6},
  [7]  = {"5-node pyramid", 3, 5},        [8]  = {"3-node line", 1, 3},          [9]  = {"6-node triangle", 2, 6},
  [10] = {"9-node quadrangle", 2, 9},     [11] = {"10-node tetrahedron", 3, 10}, [12] = {"27-node hexahedron", 3, 27},
  [13] = {"18-node prism", 3, 18},        [14] = {"14-node pyramid", 3, 14},     [15] = {"point", 0, 1},
  [16] = {"8-node quadrangle", 2, 8},     [17] = {"20-node hexahedron", 3, 20},  [18] = {"15-node prism", 3, 15},
  [19] = {"13-node pyramid", 3, 13},      [20] = {"9-node triangle", 2, 9},      [21] = {"10-node triangle", 2, 10},
  [22] = {"12-node triangle", 2, 12},     [23] = {"15-node triangle", 2, 15},    [24] = {"15-node triangle", 2, 15},
  [25] = {"21-node triangle", 2, 21},     [26] = {"4-node line", 1, 4},          [27] = {"5-node line", 1, 5},
  [28] = {"6-node line", 1, 6},           [29] = {"20-node tetrahedron", 3, 20}, [30] = {"35-node tetrahedron", 3, 35},
  [31] = {"56-node tetrahedron", 3, 56},
};
/* clang-format on */
#define MSH_NUM_TYPES ((PetscInt)(sizeof(MshTypes) / sizeof(MshTypes[0])))

/*
  Node order: vicms numbers nodes as Abaqus does; abaqus[k] = gmsh[perm[k]]. Gmsh's order is taken from the Gmsh
  reference manual, section "Node ordering" (gmsh.info/doc/texinfo/gmsh.html#Node-ordering; the same tables are in
  the 2.x manuals, e.g. manpagez.com/info/gmsh/gmsh-2.4.0/gmsh_58.php): mid-edge nodes follow Gmsh's edge list,
    tetrahedron  (0-based) 4:0-1 5:1-2 6:2-0 7:3-0 8:3-2 9:3-1
    hexahedron   8:0-1 9:0-3 10:0-4 11:1-2 12:1-5 13:2-3 14:2-6 15:3-7 16:4-5 17:4-7 18:5-6 19:6-7
    prism        6:0-1 7:0-2 8:0-3 9:1-2 10:1-4 11:2-5 12:3-4 13:3-5 14:4-5
  while Abaqus (and src/fem/element.c) numbers the mid-edge nodes of the bottom face, then the top face, then the
  vertical edges:
    C3D10 4:0-1 5:1-2 6:2-0 7:0-3 8:1-3 9:2-3       (Gmsh nodes 8 and 9 swap: 1-based "nodes 9/10")
    C3D20 8:0-1 9:1-2 10:2-3 11:3-0 12:4-5 13:5-6 14:6-7 15:7-4 16:0-4 17:1-5 18:2-6 19:3-7
    C3D15 6:0-1 7:1-2 8:2-0 9:3-4 10:4-5 11:5-3 12:0-3 13:1-4 14:2-5
  Corner orders agree for every type, and so do the mid-side nodes of the 8-node quadrangle.
*/
static const PetscInt MshPermTet10[10]   = {0, 1, 2, 3, 4, 5, 6, 7, 9, 8};
static const PetscInt MshPermHex20[20]   = {0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 13, 9, 16, 18, 19, 17, 10, 12, 14, 15};
static const PetscInt MshPermWedge15[15] = {0, 1, 2, 3, 4, 5, 6, 9, 7, 12, 14, 13, 8, 10, 11};

/* The vicms element of a Gmsh type, and its node permutation (NULL when the orders agree). */
static PetscBool MshElementType(PetscInt gtype, VIElementType *type, const PetscInt **perm)
{
  *perm = NULL;
  switch (gtype) {
  case 1:
    *type = VI_ELEM_T3D2;
    break;
  case 2:
    *type = VI_ELEM_CPS3;
    break;
  case 3:
    *type = VI_ELEM_CPS4;
    break;
  case 16:
    *type = VI_ELEM_CPS8;
    break;
  case 4:
    *type = VI_ELEM_C3D4;
    break;
  case 11:
    *type = VI_ELEM_C3D10;
    *perm = MshPermTet10;
    break;
  case 5:
    *type = VI_ELEM_C3D8;
    break;
  case 17:
    *type = VI_ELEM_C3D20;
    *perm = MshPermHex20;
    break;
  case 6:
    *type = VI_ELEM_C3D6;
    break;
  case 18:
    *type = VI_ELEM_C3D15;
    *perm = MshPermWedge15;
    break;
  default:
    return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

typedef struct {
  PetscInt dim, tag;
  char     name[MSH_NAME_LEN];
} MshName;

/* A geometric entity of a 4.1 file and its physical tags (phys[first .. first+n-1]). */
typedef struct {
  PetscInt dim, tag, first, n;
} MshEntity;

typedef struct {
  VIMesh      mesh;
  FILE       *fp;
  const char *name;
  PetscInt    line;
  PetscInt    version; /* 2 or 4 */

  char    *buf;
  PetscInt buf_size;
  char   **tok;
  PetscInt num_tok, max_tok;

  MshName   *names;
  PetscInt   num_names, max_names;
  MshEntity *entities;
  PetscInt   num_entities, max_entities;
  PetscInt  *phys, num_phys, max_phys;

  /* nodes in file order */
  PetscInt  *node_tag, *node_line;
  PetscReal *node_xyz;
  PetscInt   num_nodes, max_nodes, max_node_line, max_node_xyz;

  /* elements in file order; conn holds node tags, then node indices */
  PetscInt *elem_tag, *elem_type, *elem_line, *elem_group, *elem_offset, *conn;
  PetscInt  num_elems, max_elems, max_elem_type, max_elem_line, max_elem_group, max_elem_offset, conn_size, max_conn;

  /* work arrays of MshFinish, here so that they are freed on errors too */
  PetscInt *sorted, *perm, *used, *pair_key, *pair_elem, *ids;
  PetscInt  max_pairs, max_ids;
} MshReader;

static PetscErrorCode MshGrow(size_t sz, PetscInt need, PetscInt *max, void *arr)
{
  PetscFunctionBeginUser;
  if (need <= *max) PetscFunctionReturn(PETSC_SUCCESS);
  *max = PetscMax(need, 2 * (*max) + 16);
  PetscCall(PetscRealloc(sz * (size_t)(*max), arr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One physical line, without "\n", "\r\n" or "\r"; *eof when nothing was left. */
static PetscErrorCode MshReadPhysicalLine(MshReader *r, PetscBool *eof)
{
  PetscFunctionBeginUser;
  PetscCall(VIMeshReadLine(r->fp, r->name, r->line + 1, &r->buf, &r->buf_size, eof));
  if (!*eof) r->line++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The next non-blank line, split at blanks; a "quoted name" is one token, without its quotes. */
static PetscErrorCode MshNextLine(MshReader *r, PetscBool *eof)
{
  PetscFunctionBeginUser;
  for (;;) {
    char *s;

    PetscCall(MshReadPhysicalLine(r, eof));
    if (*eof) PetscFunctionReturn(PETSC_SUCCESS);
    r->num_tok = 0;
    s          = r->buf;
    for (;;) {
      while (isspace((unsigned char)*s)) s++;
      if (!*s) break;
      PetscCall(MshGrow(sizeof(char *), r->num_tok + 1, &r->max_tok, &r->tok));
      if (*s == '"') {
        char *q = strchr(s + 1, '"');

        PetscCheck(q, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": a quoted name has no closing quote", r->name, r->line);
        r->tok[r->num_tok++] = s + 1;
        *q                   = 0;
        s                    = q + 1;
      } else {
        r->tok[r->num_tok++] = s;
        while (*s && !isspace((unsigned char)*s)) s++;
        if (*s) *s++ = 0;
      }
    }
    if (r->num_tok) break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The next line inside section; the end of the file there is an error. */
static PetscErrorCode MshExpectLine(MshReader *r, const char section[])
{
  PetscBool eof;

  PetscFunctionBeginUser;
  PetscCall(MshNextLine(r, &eof));
  PetscCheck(!eof, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt_FMT ": unexpected end of file in %s", r->name, r->line, section);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MshCheckCount(MshReader *r, PetscInt n, const char what[])
{
  PetscFunctionBeginUser;
  PetscCheck(r->num_tok == n, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": expected %" PetscInt_FMT " fields (%s), found %" PetscInt_FMT, r->name, r->line, n, what, r->num_tok);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MshInt(MshReader *r, PetscInt k, const char what[], PetscInt *v)
{
  char *end;
  long  x;

  PetscFunctionBeginUser;
  PetscCheck(k < r->num_tok, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": %s is missing", r->name, r->line, what);
  errno = 0;
  x     = strtol(r->tok[k], &end, 10);
  PetscCheck(end != r->tok[k] && !*end && errno != ERANGE && x >= PETSC_MIN_INT && x <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": %s '%s' is not an integer", r->name, r->line, what, r->tok[k]);
  *v = (PetscInt)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MshReal(MshReader *r, PetscInt k, const char what[], PetscReal *v)
{
  char  *end;
  double x;

  PetscFunctionBeginUser;
  PetscCheck(k < r->num_tok, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": %s is missing", r->name, r->line, what);
  errno = 0;
  x     = strtod(r->tok[k], &end);
  PetscCheck(end != r->tok[k] && !*end && errno != ERANGE && !PetscIsInfOrNanReal((PetscReal)x), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": %s '%s' is not a finite number", r->name, r->line, what, r->tok[k]);
  *v = (PetscReal)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A count, non-negative. */
static PetscErrorCode MshCountField(MshReader *r, PetscInt k, const char what[], PetscInt *v)
{
  PetscFunctionBeginUser;
  PetscCall(MshInt(r, k, what, v));
  PetscCheck(*v >= 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": %s %" PetscInt_FMT " is negative", r->name, r->line, what, *v);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The line closing section must be $End<section>. */
static PetscErrorCode MshExpectEnd(MshReader *r, const char section[])
{
  char end[64];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(end, sizeof(end), "$End%s", section + 1));
  PetscCall(MshExpectLine(r, section));
  PetscCheck(!strcmp(r->tok[0], end), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": expected %s, found '%s' (more entries than the count says?)", r->name, r->line, end, r->tok[0]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MshReadFormat(MshReader *r)
{
  PetscReal version;
  PetscInt  binary;

  PetscFunctionBeginUser;
  PetscCall(MshExpectLine(r, "$MeshFormat"));
  PetscCheck(r->num_tok >= 2, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": expected 'version file-type data-size'", r->name,
             r->line);
  PetscCall(MshReal(r, 0, "format version", &version));
  PetscCall(MshInt(r, 1, "file type", &binary));
  PetscCheck(!binary, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": binary .msh is not supported, save as ASCII (gmsh -save -format msh41, or Mesh.Binary = 0)", r->name, r->line);
  if (version >= 2 && version < 3)
    r->version = 2;
  else if (PetscAbsReal(version - 4.1) < 1e-6)
    r->version = 4;
  else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": MSH format %s is not supported, save as version 4.1 or 2.2", r->name,
            r->line, r->tok[0]);
  PetscCall(MshExpectEnd(r, "$MeshFormat"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MshReadPhysicalNames(MshReader *r)
{
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(MshExpectLine(r, "$PhysicalNames"));
  PetscCall(MshCheckCount(r, 1, "number of names"));
  PetscCall(MshCountField(r, 0, "number of names", &n));
  for (PetscInt i = 0; i < n; i++) {
    MshName *nm;

    PetscCall(MshExpectLine(r, "$PhysicalNames"));
    PetscCall(MshCheckCount(r, 3, "dimension, tag, \"name\""));
    PetscCall(MshGrow(sizeof(MshName), r->num_names + 1, &r->max_names, &r->names));
    nm = &r->names[r->num_names++];
    PetscCall(MshInt(r, 0, "dimension", &nm->dim));
    PetscCall(MshInt(r, 1, "physical tag", &nm->tag));
    PetscCheck(strlen(r->tok[2]) > 0 && strlen(r->tok[2]) < MSH_NAME_LEN, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": physical name '%s' must have 1 to %d characters", r->name, r->line, r->tok[2], MSH_NAME_LEN - 1);
    PetscCall(PetscStrncpy(nm->name, r->tok[2], MSH_NAME_LEN));
  }
  PetscCall(MshExpectEnd(r, "$PhysicalNames"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 4.1: points "tag x y z nphys phys...", others "tag minx miny minz maxx maxy maxz nphys phys... nbound bound..." */
static PetscErrorCode MshReadEntities(MshReader *r)
{
  PetscInt count[4];

  PetscFunctionBeginUser;
  PetscCall(MshExpectLine(r, "$Entities"));
  PetscCall(MshCheckCount(r, 4, "numbers of points, curves, surfaces, volumes"));
  for (PetscInt d = 0; d < 4; d++) PetscCall(MshCountField(r, d, "number of entities", &count[d]));
  for (PetscInt d = 0; d < 4; d++)
    for (PetscInt i = 0; i < count[d]; i++) {
      PetscInt   at = d ? 7 : 4, nphys;
      MshEntity *e;

      PetscCall(MshExpectLine(r, "$Entities"));
      PetscCall(MshGrow(sizeof(MshEntity), r->num_entities + 1, &r->max_entities, &r->entities));
      e      = &r->entities[r->num_entities++];
      e->dim = d;
      PetscCall(MshInt(r, 0, "entity tag", &e->tag));
      PetscCall(MshCountField(r, at, "number of physical tags", &nphys));
      PetscCheck(r->num_tok >= at + 1 + nphys, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": entity %" PetscInt_FMT " lists fewer than %" PetscInt_FMT " physical tags", r->name, r->line, e->tag, nphys);
      e->first = r->num_phys;
      e->n     = nphys;
      PetscCall(MshGrow(sizeof(PetscInt), r->num_phys + nphys, &r->max_phys, &r->phys));
      for (PetscInt k = 0; k < nphys; k++) {
        PetscCall(MshInt(r, at + 1 + k, "physical tag", &r->phys[r->num_phys]));
        r->phys[r->num_phys] = PetscAbsInt(r->phys[r->num_phys]); /* a sign would only give the orientation */
        r->num_phys++;
      }
    }
  PetscCall(MshExpectEnd(r, "$Entities"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MshAddNode(MshReader *r, PetscInt tag)
{
  PetscFunctionBeginUser;
  PetscCheck(tag > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": node tag %" PetscInt_FMT " is not positive", r->name, r->line,
             tag);
  PetscCall(MshGrow(sizeof(PetscInt), r->num_nodes + 1, &r->max_nodes, &r->node_tag));
  PetscCall(MshGrow(sizeof(PetscInt), r->num_nodes + 1, &r->max_node_line, &r->node_line));
  PetscCall(MshGrow(3 * sizeof(PetscReal), r->num_nodes + 1, &r->max_node_xyz, &r->node_xyz));
  r->node_tag[r->num_nodes++] = tag;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Coordinates of node i from the current line, from token k on. */
static PetscErrorCode MshNodeCoordinates(MshReader *r, PetscInt i, PetscInt k)
{
  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) PetscCall(MshReal(r, k + d, d == 0 ? "x" : (d == 1 ? "y" : "z"), &r->node_xyz[3 * i + d]));
  r->node_line[i] = r->line;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MshReadNodes(MshReader *r)
{
  PetscFunctionBeginUser;
  PetscCall(MshExpectLine(r, "$Nodes"));
  if (r->version == 2) {
    PetscInt n;

    PetscCall(MshCheckCount(r, 1, "number of nodes"));
    PetscCall(MshCountField(r, 0, "number of nodes", &n));
    for (PetscInt i = 0; i < n; i++) {
      PetscInt tag;

      PetscCall(MshExpectLine(r, "$Nodes"));
      PetscCall(MshCheckCount(r, 4, "tag x y z"));
      PetscCall(MshInt(r, 0, "node tag", &tag));
      PetscCall(MshAddNode(r, tag));
      PetscCall(MshNodeCoordinates(r, r->num_nodes - 1, 1));
    }
  } else {
    PetscInt blocks, n;

    PetscCall(MshCheckCount(r, 4, "numEntityBlocks numNodes minNodeTag maxNodeTag"));
    PetscCall(MshCountField(r, 0, "number of entity blocks", &blocks));
    PetscCall(MshCountField(r, 1, "number of nodes", &n));
    for (PetscInt b = 0; b < blocks; b++) {
      PetscInt edim, parametric, nb, first = r->num_nodes;

      PetscCall(MshExpectLine(r, "$Nodes"));
      PetscCall(MshCheckCount(r, 4, "entityDim entityTag parametric numNodesInBlock"));
      PetscCall(MshInt(r, 0, "entity dimension", &edim));
      PetscCall(MshInt(r, 2, "parametric flag", &parametric));
      PetscCall(MshCountField(r, 3, "number of nodes in the block", &nb));
      PetscCheck(edim >= 0 && edim <= 3, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": entity dimension %" PetscInt_FMT " is not 0..3", r->name, r->line, edim);
      for (PetscInt i = 0; i < nb; i++) {
        PetscInt tag;

        PetscCall(MshExpectLine(r, "$Nodes"));
        PetscCall(MshCheckCount(r, 1, "node tag"));
        PetscCall(MshInt(r, 0, "node tag", &tag));
        PetscCall(MshAddNode(r, tag));
      }
      for (PetscInt i = 0; i < nb; i++) {
        PetscCall(MshExpectLine(r, "$Nodes"));
        PetscCall(MshCheckCount(r, 3 + (parametric ? edim : 0), parametric ? "x y z and parametric coordinates" : "x y z"));
        PetscCall(MshNodeCoordinates(r, first + i, 0));
      }
    }
    PetscCheck(r->num_nodes == n, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": $Nodes announced %" PetscInt_FMT " nodes, the blocks hold %" PetscInt_FMT, r->name, r->line, n, r->num_nodes);
  }
  PetscCall(MshExpectEnd(r, "$Nodes"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One element of Gmsh type gtype from the current line: its tag at token 0, its nodes from token k on. */
static PetscErrorCode MshAddElement(MshReader *r, PetscInt gtype, PetscInt group, PetscInt k)
{
  PetscInt e = r->num_elems, nn = MshTypes[gtype].num_nodes;

  PetscFunctionBeginUser;
  PetscCall(MshGrow(sizeof(PetscInt), e + 1, &r->max_elems, &r->elem_tag));
  PetscCall(MshGrow(sizeof(PetscInt), e + 1, &r->max_elem_type, &r->elem_type));
  PetscCall(MshGrow(sizeof(PetscInt), e + 1, &r->max_elem_line, &r->elem_line));
  PetscCall(MshGrow(sizeof(PetscInt), e + 1, &r->max_elem_group, &r->elem_group));
  PetscCall(MshGrow(sizeof(PetscInt), e + 2, &r->max_elem_offset, &r->elem_offset));
  PetscCall(MshGrow(sizeof(PetscInt), r->conn_size + nn, &r->max_conn, &r->conn));
  PetscCall(MshInt(r, 0, "element tag", &r->elem_tag[e]));
  PetscCheck(r->elem_tag[e] > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": element tag %" PetscInt_FMT " is not positive",
             r->name, r->line, r->elem_tag[e]);
  for (PetscInt i = 0; i < nn; i++) PetscCall(MshInt(r, k + i, "node tag", &r->conn[r->conn_size + i]));
  if (e == 0) r->elem_offset[0] = 0;
  r->elem_type[e]  = gtype;
  r->elem_line[e]  = r->line;
  r->elem_group[e] = group;
  r->conn_size += nn;
  r->elem_offset[e + 1] = r->conn_size;
  r->num_elems++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MshCheckType(MshReader *r, PetscInt gtype)
{
  PetscFunctionBeginUser;
  PetscCheck(gtype > 0 && gtype < MSH_NUM_TYPES && MshTypes[gtype].num_nodes > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": Gmsh element type %" PetscInt_FMT " is not supported", r->name, r->line, gtype);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  2.2: "tag type ntags tags... nodes...", the first tag the physical group (elem_group = the physical tag);
  4.1: blocks of one entity (elem_group = index of the entity, -1 when $Entities did not list it).
*/
static PetscErrorCode MshReadElements(MshReader *r)
{
  PetscFunctionBeginUser;
  PetscCall(MshExpectLine(r, "$Elements"));
  if (r->version == 2) {
    PetscInt n;

    PetscCall(MshCheckCount(r, 1, "number of elements"));
    PetscCall(MshCountField(r, 0, "number of elements", &n));
    for (PetscInt i = 0; i < n; i++) {
      PetscInt gtype, ntags, phys = 0;

      PetscCall(MshExpectLine(r, "$Elements"));
      PetscCall(MshInt(r, 1, "element type", &gtype));
      PetscCall(MshCheckType(r, gtype));
      PetscCall(MshCountField(r, 2, "number of tags", &ntags));
      PetscCall(MshCheckCount(r, 3 + ntags + MshTypes[gtype].num_nodes, "tag type ntags tags... node tags..."));
      if (ntags > 0) PetscCall(MshInt(r, 3, "physical tag", &phys));
      PetscCall(MshAddElement(r, gtype, PetscAbsInt(phys), 3 + ntags));
    }
  } else {
    PetscInt blocks, n;

    PetscCall(MshCheckCount(r, 4, "numEntityBlocks numElements minElementTag maxElementTag"));
    PetscCall(MshCountField(r, 0, "number of entity blocks", &blocks));
    PetscCall(MshCountField(r, 1, "number of elements", &n));
    for (PetscInt b = 0; b < blocks; b++) {
      PetscInt edim, etag, gtype, nb, entity = -1;

      PetscCall(MshExpectLine(r, "$Elements"));
      PetscCall(MshCheckCount(r, 4, "entityDim entityTag elementType numElementsInBlock"));
      PetscCall(MshInt(r, 0, "entity dimension", &edim));
      PetscCall(MshInt(r, 1, "entity tag", &etag));
      PetscCall(MshInt(r, 2, "element type", &gtype));
      PetscCall(MshCountField(r, 3, "number of elements in the block", &nb));
      PetscCall(MshCheckType(r, gtype));
      for (PetscInt k = 0; k < r->num_entities; k++)
        if (r->entities[k].dim == edim && r->entities[k].tag == etag) {
          entity = k;
          break;
        }
      for (PetscInt i = 0; i < nb; i++) {
        PetscCall(MshExpectLine(r, "$Elements"));
        PetscCall(MshCheckCount(r, 1 + MshTypes[gtype].num_nodes, "element tag and node tags"));
        PetscCall(MshAddElement(r, gtype, entity, 1));
      }
    }
    PetscCheck(r->num_elems == n, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": $Elements announced %" PetscInt_FMT " elements, the blocks hold %" PetscInt_FMT, r->name, r->line, n,
               r->num_elems);
  }
  PetscCall(MshExpectEnd(r, "$Elements"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Skip a section this reader does not need ($Comments, $NodeData, $Periodic ...). */
static PetscErrorCode MshSkipSection(MshReader *r, const char section[])
{
  char end[MSH_NAME_LEN + 8];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(end, sizeof(end), "$End%s", section + 1));
  for (;;) {
    PetscCall(MshExpectLine(r, section));
    if (!strcmp(r->tok[0], end)) break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The physical groups of element e: (dim, tags[0..*n-1]). */
static void MshElementGroups(MshReader *r, PetscInt e, PetscInt *n, const PetscInt **tags)
{
  if (r->version == 2) {
    *n    = r->elem_group[e] > 0 ? 1 : 0;
    *tags = &r->elem_group[e];
  } else if (r->elem_group[e] >= 0) {
    *n    = r->entities[r->elem_group[e]].n;
    *tags = r->phys + r->entities[r->elem_group[e]].first;
  } else {
    *n    = 0;
    *tags = NULL;
  }
}

/* Physical groups -> element sets (elements of the mesh dimension) and node sets (nodes of all their elements). */
static PetscErrorCode MshMakeSets(MshReader *r, PetscInt top, const PetscInt node_used[])
{
  PetscInt num_pairs = 0;

  PetscFunctionBeginUser;
  /* (dim, physical tag) pairs, one per element and group, sorted by group */
  for (PetscInt e = 0; e < r->num_elems; e++) {
    PetscInt        n, dim = MshTypes[r->elem_type[e]].dim, m = r->max_pairs;
    const PetscInt *tags;

    MshElementGroups(r, e, &n, &tags);
    PetscCall(MshGrow(sizeof(PetscInt), num_pairs + n, &m, &r->pair_key));
    PetscCall(MshGrow(sizeof(PetscInt), num_pairs + n, &r->max_pairs, &r->pair_elem));
    for (PetscInt k = 0; k < n; k++) {
      PetscCheck(tags[k] <= PETSC_MAX_INT / 4, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": physical tag %" PetscInt_FMT " is too large", r->name, r->elem_line[e], tags[k]);
      r->pair_key[num_pairs]    = 4 * tags[k] + dim;
      r->pair_elem[num_pairs++] = e;
    }
  }
  PetscCall(PetscSortIntWithArray(num_pairs, r->pair_key, r->pair_elem));
  for (PetscInt p = 0; p < num_pairs;) {
    PetscInt    q = p, dim = r->pair_key[p] % 4, tag = r->pair_key[p] / 4, nids = 0, dropped = 0, nelems = 0;
    char        name[MSH_NAME_LEN];
    const char *given = NULL;

    while (q < num_pairs && r->pair_key[q] == r->pair_key[p]) q++;
    for (PetscInt k = 0; k < r->num_names; k++)
      if (r->names[k].dim == dim && r->names[k].tag == tag) given = r->names[k].name;
    if (given)
      PetscCall(PetscStrncpy(name, given, sizeof(name)));
    else
      PetscCall(PetscSNPrintf(name, sizeof(name), "physical%" PetscInt_FMT, tag));
    if (dim == top) {
      PetscCall(MshGrow(sizeof(PetscInt), q - p, &r->max_ids, &r->ids));
      for (PetscInt k = p; k < q; k++) r->ids[nelems++] = r->elem_tag[r->pair_elem[k]];
      PetscCall(VIMeshBuildAddToElementSet(r->mesh, name, nelems, r->ids));
    }
    for (PetscInt k = p; k < q; k++) {
      PetscInt e = r->pair_elem[k];

      PetscCall(MshGrow(sizeof(PetscInt), nids + r->elem_offset[e + 1] - r->elem_offset[e], &r->max_ids, &r->ids));
      for (PetscInt c = r->elem_offset[e]; c < r->elem_offset[e + 1]; c++) {
        if (node_used[r->conn[c]])
          r->ids[nids++] = r->node_tag[r->conn[c]];
        else
          dropped++;
      }
    }
    PetscCall(PetscSortRemoveDupsInt(&nids, r->ids));
    if (dropped)
      PetscCall(PetscInfo(NULL,
                          "%s: physical group '%s' (dimension %" PetscInt_FMT "): %" PetscInt_FMT " node references are not on %" PetscInt_FMT
                          "D elements and are left out of its node set\n",
                          r->name, name, dim, dropped, top));
    PetscCall(VIMeshBuildAddToNodeSet(r->mesh, name, nids, r->ids));
    p = q;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Resolve node tags, keep the elements of the highest dimension, hand nodes, elements and sets to the builder. */
static PetscErrorCode MshFinish(MshReader *r)
{
  PetscInt *sorted, *perm, *used, top = 0, num_used = 0, dim, conn[MSH_MAX_NODES];
  PetscReal extent = 0, off_axis = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(r->num_nodes, &r->sorted));
  PetscCall(PetscMalloc1(r->num_nodes, &r->perm));
  PetscCall(PetscCalloc1(r->num_nodes, &r->used));
  sorted = r->sorted;
  perm   = r->perm;
  used   = r->used;
  for (PetscInt i = 0; i < r->num_nodes; i++) {
    sorted[i] = r->node_tag[i];
    perm[i]   = i;
  }
  PetscCall(PetscSortIntWithArray(r->num_nodes, sorted, perm));
  for (PetscInt i = 1; i < r->num_nodes; i++)
    PetscCheck(sorted[i] != sorted[i - 1], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": node %" PetscInt_FMT " is defined twice (first at line %" PetscInt_FMT ")", r->name,
               PetscMax(r->node_line[perm[i]], r->node_line[perm[i - 1]]), sorted[i], PetscMin(r->node_line[perm[i]], r->node_line[perm[i - 1]]));
  for (PetscInt e = 0; e < r->num_elems; e++) {
    top = PetscMax(top, MshTypes[r->elem_type[e]].dim);
    for (PetscInt c = r->elem_offset[e]; c < r->elem_offset[e + 1]; c++) {
      PetscInt pos;

      PetscCall(PetscFindInt(r->conn[c], r->num_nodes, sorted, &pos));
      PetscCheck(pos >= 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": element %" PetscInt_FMT " references node %" PetscInt_FMT ", which is not in $Nodes", r->name,
                 r->elem_line[e], r->elem_tag[e], r->conn[c]);
      r->conn[c] = perm[pos];
    }
  }
  PetscCheck(top > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s: no line, surface or volume elements (Gmsh saves only the elements of physical groups when there are any)", r->name);

  /* the finite elements: those of the highest dimension */
  for (PetscInt e = 0; e < r->num_elems; e++) {
    VIElementType   type;
    const PetscInt *p;

    if (MshTypes[r->elem_type[e]].dim != top) continue;
    PetscCheck(MshElementType(r->elem_type[e], &type, &p), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": element %" PetscInt_FMT " is a %s (Gmsh type %" PetscInt_FMT
               "), which vicms does not support; supported: 2-node line (1), 3-node triangle (2), 4-node quadrangle (3), 8-node quadrangle (16), 4- "
               "and 10-node tetrahedra (4, 11), 8- and 20-node hexahedra (5, 17), 6- and 15-node prisms (6, 18)",
               r->name, r->elem_line[e], r->elem_tag[e], MshTypes[r->elem_type[e]].name, r->elem_type[e]);
    for (PetscInt c = r->elem_offset[e]; c < r->elem_offset[e + 1]; c++) {
      if (!used[r->conn[c]]) num_used++;
      used[r->conn[c]] = 1;
    }
  }

  /* spatial dimension: 3D elements live in 3D, 2D ones in the plane z = 0, 1D ones on the x axis or in 3D */
  for (PetscInt i = 0; i < r->num_nodes; i++)
    if (used[i]) {
      for (PetscInt d = 0; d < 3; d++) extent = PetscMax(extent, PetscAbsReal(r->node_xyz[3 * i + d]));
      off_axis = PetscMax(off_axis, PetscAbsReal(r->node_xyz[3 * i + 2]));
      if (top == 1) off_axis = PetscMax(off_axis, PetscAbsReal(r->node_xyz[3 * i + 1]));
    }
  dim = top;
  if (top == 2) {
    for (PetscInt i = 0; i < r->num_nodes; i++)
      PetscCheck(!used[i] || PetscAbsReal(r->node_xyz[3 * i + 2]) <= 1e-10 * extent, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": node %" PetscInt_FMT " has z = %g, but a mesh of 2D elements must lie in the plane z = 0 (a surface mesh of "
                 "a solid? add a physical volume so that Gmsh saves the 3D elements)",
                 r->name, r->node_line[i], r->node_tag[i], (double)r->node_xyz[3 * i + 2]);
  } else if (top == 1)
    dim = off_axis <= 1e-10 * extent ? 1 : 3;
  if (num_used < r->num_nodes)
    PetscCall(PetscInfo(NULL, "%s: %" PetscInt_FMT " of %" PetscInt_FMT " nodes are on no %" PetscInt_FMT "D element and are left out\n", r->name,
                        r->num_nodes - num_used, r->num_nodes, top));

  for (PetscInt i = 0; i < r->num_nodes; i++) {
    VISource src = {r->name, r->node_line[i]};

    if (used[i]) PetscCall(VIMeshBuildAddNode(r->mesh, r->node_tag[i], &r->node_xyz[3 * i], src));
  }
  for (PetscInt e = 0; e < r->num_elems; e++) {
    VIElementType   type;
    const PetscInt *p;
    PetscInt        nn  = r->elem_offset[e + 1] - r->elem_offset[e];
    VISource        src = {r->name, r->elem_line[e]};

    if (MshTypes[r->elem_type[e]].dim != top) continue;
    (void)MshElementType(r->elem_type[e], &type, &p);
    for (PetscInt k = 0; k < nn; k++) conn[k] = r->node_tag[r->conn[r->elem_offset[e] + (p ? p[k] : k)]];
    PetscCall(VIMeshBuildAddElement(r->mesh, r->elem_tag[e], type, conn, src));
  }
  PetscCall(MshMakeSets(r, top, used));
  r->mesh->dim = dim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MshReadFile(MshReader *r, const char path[])
{
  PetscBool          eof;
  unsigned long long dev, ino;

  PetscFunctionBeginUser;
  PetscCall(VIMeshOpenFile(path, "Gmsh mesh", NULL, &r->fp, &dev, &ino));
  PetscCall(VIMeshBuildAddFile(r->mesh, path, &r->name));
  PetscCall(MshNextLine(r, &eof));
  PetscCheck(!eof, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt_FMT ": unexpected end of file: the file is empty", r->name, r->line);
  PetscCheck(!strcmp(r->tok[0], "$MeshFormat"), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": not a Gmsh mesh: expected $MeshFormat, found '%s'", r->name, r->line, r->tok[0]);
  PetscCall(MshReadFormat(r));
  for (;;) {
    char section[MSH_NAME_LEN];

    PetscCall(MshNextLine(r, &eof));
    if (eof) break;
    PetscCheck(r->tok[0][0] == '$' && strlen(r->tok[0]) < sizeof(section), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": expected a section such as $Nodes, found '%s'", r->name, r->line, r->tok[0]);
    PetscCall(PetscStrncpy(section, r->tok[0], sizeof(section)));
    if (!strcmp(section, "$PhysicalNames"))
      PetscCall(MshReadPhysicalNames(r));
    else if (!strcmp(section, "$Entities") && r->version == 4)
      PetscCall(MshReadEntities(r));
    else if (!strcmp(section, "$PartitionedEntities"))
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": partitioned .msh files are not supported; save the mesh unpartitioned",
              r->name, r->line);
    else if (!strcmp(section, "$Nodes"))
      PetscCall(MshReadNodes(r));
    else if (!strcmp(section, "$Elements"))
      PetscCall(MshReadElements(r));
    else
      PetscCall(MshSkipSection(r, section));
  }
  PetscCheck(r->num_nodes > 0 && r->num_elems > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s: no %s section", r->name,
             r->num_nodes ? "$Elements" : "$Nodes");
  PetscCall(MshFinish(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MshReaderDestroy(MshReader *r)
{
  PetscFunctionBeginUser;
  if (r->fp) (void)fclose(r->fp);
  PetscCall(PetscFree(r->buf));
  PetscCall(PetscFree(r->tok));
  PetscCall(PetscFree(r->names));
  PetscCall(PetscFree(r->entities));
  PetscCall(PetscFree(r->phys));
  PetscCall(PetscFree(r->node_tag));
  PetscCall(PetscFree(r->node_line));
  PetscCall(PetscFree(r->node_xyz));
  PetscCall(PetscFree(r->elem_tag));
  PetscCall(PetscFree(r->elem_type));
  PetscCall(PetscFree(r->elem_line));
  PetscCall(PetscFree(r->elem_group));
  PetscCall(PetscFree(r->elem_offset));
  PetscCall(PetscFree(r->conn));
  PetscCall(PetscFree(r->sorted));
  PetscCall(PetscFree(r->perm));
  PetscCall(PetscFree(r->used));
  PetscCall(PetscFree(r->pair_key));
  PetscCall(PetscFree(r->pair_elem));
  PetscCall(PetscFree(r->ids));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIMeshReadGmsh - read a Gmsh ASCII mesh, format 4.1 or 2.2, into the mesh builder.

  Not collective: runs on the calling rank only. The elements of the highest dimension present become the finite
  elements (3D: solids; 2D: plane stress CPS3/CPS4/CPS8 in the plane z = 0; 1D: T3D2 rods, in 1D when on the x axis);
  lower-dimensional elements only feed the sets. Each physical group becomes a node set (the nodes of its elements) and,
  when of the highest dimension, an element set, named by its physical name or "physical<tag>". Second-order node
  orders are converted from Gmsh's to Abaqus's. Every error names the file and line. The caller runs VIMeshBuildFinish.

  Input:
+ mesh - the mesh being built
- path - the .msh file
*/
PetscErrorCode VIMeshReadGmsh(VIMesh mesh, const char path[])
{
  MshReader      r;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&r, sizeof(r)));
  r.mesh = mesh;
  /* the reader's buffers and the file are released whether or not the mesh was good */
  ierr = MshReadFile(&r, path);
  PetscCall(MshReaderDestroy(&r));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
