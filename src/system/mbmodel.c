/* The multibody model file (YAML, docs/multibody.md): gravity, bodies, joints, contacts, loads and outputs, read with
   libyaml on every rank of the case's group (the same file, the same answer, the same errors). Every message names the
   file, the line and what was expected. */
#include "mbimpl.h"
#include <yaml.h>
#include <ctype.h>

typedef struct {
  MPI_Comm         comm;
  const char      *path;
  yaml_document_t *doc;
  VIMBModel       *model; /* its parameters, for the numbers written as expressions */
} VIMBReader;

static int VIMBLine(const yaml_node_t *node)
{
  return node ? (int)node->start_mark.line + 1 : 0;
}

static yaml_node_t *VIMBNode(VIMBReader *rd, int id)
{
  return yaml_document_get_node(rd->doc, id);
}

/* The value of key in a mapping (NULL when absent). */
static yaml_node_t *VIMBGet(VIMBReader *rd, yaml_node_t *map, const char key[])
{
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = VIMBNode(rd, p->key);
    if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key)) return VIMBNode(rd, p->value);
  }
  return NULL;
}

/* Refuse a key of a mapping that is not among the known ones (a misspelt key would be silently ignored otherwise). */
static PetscErrorCode VIMBCheckKeys(VIMBReader *rd, yaml_node_t *map, const char what[], const char *const known[])
{
  PetscFunctionBeginUser;
  PetscCheck(map && map->type == YAML_MAPPING_NODE, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: %s is not a mapping of 'key: value' lines", rd->path,
             VIMBLine(map), what);
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k         = VIMBNode(rd, p->key);
    PetscBool    found     = PETSC_FALSE;
    char         list[512] = "";
    for (PetscInt i = 0; known[i]; i++) {
      if (!strcmp((const char *)k->data.scalar.value, known[i])) found = PETSC_TRUE;
      PetscCall(PetscStrlcat(list, i ? ", " : "", sizeof(list)));
      PetscCall(PetscStrlcat(list, known[i], sizeof(list)));
    }
    PetscCheck(found, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: unknown key '%s' in %s (expected one of: %s)", rd->path, VIMBLine(k),
               (const char *)k->data.scalar.value, what, list);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A number field's value: a number, or an expression of the model's parameters (mbexpr.c). */
static PetscErrorCode VIMBNumber(VIMBReader *rd, yaml_node_t *v, const char key[], PetscReal *x)
{
  const char *text = (const char *)v->data.scalar.value;
  char       *end, err[256];

  PetscFunctionBeginUser;
  *x = strtod(text, &end);
  if (end != text && !*end && !PetscIsInfOrNanReal(*x)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(VIMBExpressionEvaluate(text, rd->model->nparams, (const char(*)[VI_MB_NAME])rd->model->param_names, rd->model->param_values, x, err,
                                    sizeof(err)),
             rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: '%s: %s' is not a finite number or an expression of the model's parameters: %s", rd->path,
             VIMBLine(v), key, text, err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMBReal(VIMBReader *rd, yaml_node_t *map, const char key[], PetscBool required, PetscReal dflt, PetscReal *x)
{
  yaml_node_t *v = VIMBGet(rd, map, key);

  PetscFunctionBeginUser;
  *x = dflt;
  if (!v) {
    PetscCheck(!required, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: the key '%s' is missing (a number)", rd->path, VIMBLine(map), key);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(v->type == YAML_SCALAR_NODE, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: '%s' must be a number", rd->path, VIMBLine(v), key);
  PetscCall(VIMBNumber(rd, v, key, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A list [a, b] (len numbers), or [a, b, c]. */
static PetscErrorCode VIMBVector(VIMBReader *rd, yaml_node_t *map, const char key[], PetscInt len, PetscBool required, PetscReal x[])
{
  yaml_node_t *v = VIMBGet(rd, map, key);
  PetscInt     i = 0;

  PetscFunctionBeginUser;
  if (!v) {
    PetscCheck(!required, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: the key '%s' is missing (a list of %" PetscInt_FMT " numbers, e.g. [0, 1])",
               rd->path, VIMBLine(map), key, len);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(v->type == YAML_SEQUENCE_NODE && v->data.sequence.items.top - v->data.sequence.items.start == len, rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: '%s' must be a list of %" PetscInt_FMT " numbers, e.g. [0, 1]", rd->path, VIMBLine(v), key, len);
  for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
    yaml_node_t *e = VIMBNode(rd, *it);
    PetscCheck(e->type == YAML_SCALAR_NODE, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: '%s' must be a list of numbers", rd->path, VIMBLine(e), key);
    PetscCall(VIMBNumber(rd, e, key, &x[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMBString(VIMBReader *rd, yaml_node_t *map, const char key[], const char *dflt, char s[], size_t len)
{
  yaml_node_t *v = VIMBGet(rd, map, key);

  PetscFunctionBeginUser;
  if (!v) {
    PetscCheck(dflt, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: the key '%s' is missing", rd->path, VIMBLine(map), key);
    PetscCall(PetscStrncpy(s, dflt, len));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(v->type == YAML_SCALAR_NODE && strlen((const char *)v->data.scalar.value) < len && v->data.scalar.length > 0, rd->comm,
             PETSC_ERR_USER_INPUT, "%s:%d: '%s' must be a name of at most %d characters", rd->path, VIMBLine(v), key, (int)len - 1);
  PetscCall(PetscStrncpy(s, (const char *)v->data.scalar.value, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The body named by key: its index (0 for ground), refused with the known names. */
static PetscErrorCode VIMBBodyRef(VIMBReader *rd, VIMBModel *model, yaml_node_t *map, const char key[], const char what[], PetscInt *b)
{
  char name[VI_MB_NAME], list[512] = "ground";

  PetscFunctionBeginUser;
  PetscCall(VIMBString(rd, map, key, NULL, name, sizeof(name)));
  for (*b = 0; *b < model->nbodies; (*b)++)
    if (!strcmp(model->bodies[*b].name, name)) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 1; k < model->nbodies; k++) {
    PetscCall(PetscStrlcat(list, ", ", sizeof(list)));
    PetscCall(PetscStrlcat(list, model->bodies[k].name, sizeof(list)));
  }
  SETERRQ(rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: %s names the body '%s', which the model does not have (bodies: %s)", rd->path,
          VIMBLine(VIMBGet(rd, map, key)), what, name, list);
}

static PetscInt VIMBCount(yaml_node_t *seq)
{
  return seq ? (PetscInt)(seq->data.sequence.items.top - seq->data.sequence.items.start) : 0;
}

/* The tributary lengths of the values s[0 .. count - 1] along a line (tol apart or more: the distinct ones; equal ones
   share one length): each distinct value carries half of each neighbouring interval; their number into *nd and each
   value's place among them into cls. */
static PetscErrorCode VIMBTributaryLengths(PetscInt count, const PetscReal s[], PetscReal tol, PetscReal len[], PetscInt cls[], PetscInt *nd)
{
  PetscInt  *order;
  PetscReal *v;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(count, &order, count, &v));
  for (PetscInt k = 0; k < count; k++) order[k] = k, v[k] = s[k];
  PetscCall(PetscSortRealWithPermutation(count, v, order));
  *nd = 0;
  for (PetscInt k = 0; k < count; k++) { /* the distinct values in order, v[0 .. nd - 1], and each entry's class */
    if (k == 0 || s[order[k]] - v[*nd - 1] > tol) v[(*nd)++] = s[order[k]];
    cls[order[k]] = *nd - 1;
  }
  for (PetscInt k = 0; k < count; k++) {
    const PetscInt  c    = cls[k];
    const PetscReal prev = c > 0 ? v[c - 1] : v[c], next = c < *nd - 1 ? v[c + 1] : v[c];
    len[k] = (next - prev) / 2;
  }
  PetscCall(PetscFree2(order, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The tributary lengths of the nodes `nodes` (a list of stems n<ID>, each a boundary node of the flexible body's ROM, whose
   position the ROM keeps) on one straight edge: ordered along it, each node carries half of each neighbouring segment; the
   consistent nodal loads of a uniform traction on an edge of linear elements when the list is all the edge's nodes. In a
   spatial model, or the nodes of a flat face on a rectangular grid (all the grid's nodes, each line of it complete): the
   tributary areas, the products of the tributary lengths along the grid's two directions, the consistent nodal loads of a
   uniform traction on the face's bilinear quadrilaterals (8-node hexahedra's faces). */
static PetscErrorCode VIMBTributaryWeights(VIMBReader *rd, const VIMBFlex *flex, PetscInt dim, yaml_node_t *nodes, yaml_node_t *wv, const char wkey[],
                                           PetscReal w[])
{
  const VIContactInfo *bnd;
  PetscInt             nb, count = VIMBCount(nodes), *order, *cls, a = 0, z = 0, m = 0, near = -1, nd[2];
  PetscReal           *x, *s, len, u[3], nrm[3] = {0, 0, 0}, e[2][3], *l2, dmax = 0, nn;
  PetscBool            straight = PETSC_TRUE, flat = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetContacts(flex->rom, &nb, &bnd));
  PetscCall(PetscMalloc5(3 * count, &x, 2 * count, &s, count, &order, count, &l2, 3 * count, &cls));
  for (PetscInt k = 0; k < count; k++) {
    yaml_node_t *e    = VIMBNode(rd, nodes->data.sequence.items.start[k]);
    const char  *stem = e->type == YAML_SCALAR_NODE ? (const char *)e->data.scalar.value : "(a list)";
    char        *end;
    PetscInt     id = stem[0] == 'n' ? (PetscInt)strtol(stem + 1, &end, 10) : -1, i;
    for (i = 0; i < nb && !(stem[0] == 'n' && !*end && bnd[i].node_id == id); i++) continue;
    if (i == nb) PetscCall(PetscFree5(x, s, order, l2, cls));
    PetscCheck(i < nb, rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: '%s: tributary' needs each node's position, and '%s' is not a boundary node of the ROM (reduce with it in -cms_contact_nodes, "
               "or give the weights)",
               rd->path, VIMBLine(wv), wkey, stem);
    for (PetscInt d = 0; d < 3; d++) x[3 * k + d] = d < dim ? bnd[i].coords[d] : 0;
  }
#define VIMB_D2(k, l) (PetscSqr(x[3 * (k)] - x[3 * (l)]) + PetscSqr(x[3 * (k) + 1] - x[3 * (l) + 1]) + PetscSqr(x[3 * (k) + 2] - x[3 * (l) + 2]))
  for (PetscInt k = 0; k < count; k++) /* the edge's ends: the two nodes farthest apart */
    for (PetscInt l = 0; l < count; l++)
      if (VIMB_D2(k, l) > VIMB_D2(a, z)) {
        a = k;
        z = l;
      }
  len = PetscSqrtReal(VIMB_D2(z, a));
  for (PetscInt d = 0; d < 3; d++) u[d] = x[3 * z + d] - x[3 * a + d];
  for (PetscInt k = 0; k < count; k++) {
    const PetscReal dx = x[3 * k] - x[3 * a], dy = x[3 * k + 1] - x[3 * a + 1], dz = x[3 * k + 2] - x[3 * a + 2];
    const PetscReal c[3] = {dy * u[2] - dz * u[1], dz * u[0] - dx * u[2], dx * u[1] - dy * u[0]},
                    cn   = PetscSqrtReal(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    s[k]                 = len > 0 ? (dx * u[0] + dy * u[1] + dz * u[2]) / len : 0;
    if (!(len > 0 && cn <= 1e-8 * len * len)) straight = PETSC_FALSE;
    if (cn > dmax) dmax = cn, m = k; /* the node farthest from the line: the face's normal */
  }
  if (straight) { /* an edge: the nodes ordered along it */
    for (PetscInt k = 0; k < count; k++) order[k] = k;
    PetscCall(PetscSortRealWithPermutation(count, s, order));
    for (PetscInt k = 0; k < count; k++) {
      const PetscReal prev = k > 0 ? s[order[k - 1]] : s[order[k]], next = k < count - 1 ? s[order[k + 1]] : s[order[k]];
      w[order[k]] = (next - prev) / 2;
    }
  } else if (dim == 3 && len > 0 && dmax > 1e-8 * len * len) { /* a flat face: the grid's directions e1 (node 0 to its nearest node), e2 = n x e1 */
    flat = PETSC_TRUE;
    for (PetscInt d = 0; d < 3; d++) {
      const PetscInt d1 = (d + 1) % 3, d2 = (d + 2) % 3;
      nrm[d] = u[d1] * (x[3 * m + d2] - x[3 * a + d2]) - u[d2] * (x[3 * m + d1] - x[3 * a + d1]);
    }
    nn = PetscSqrtReal(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
    for (PetscInt d = 0; d < 3; d++) nrm[d] /= nn;
    for (PetscInt k = 1; k < count; k++)
      if (near < 0 || VIMB_D2(k, 0) < VIMB_D2(near, 0)) near = k;
    for (PetscInt d = 0; d < 3; d++) e[0][d] = (x[3 * near + d] - x[d]) / PetscSqrtReal(VIMB_D2(near, 0));
    for (PetscInt d = 0; d < 3; d++) e[1][d] = nrm[(d + 1) % 3] * e[0][(d + 2) % 3] - nrm[(d + 2) % 3] * e[0][(d + 1) % 3];
    for (PetscInt k = 0; k < count; k++) {
      PetscReal h = 0;
      s[k] = s[count + k] = 0;
      for (PetscInt d = 0; d < 3; d++) {
        s[k] += e[0][d] * (x[3 * k + d] - x[d]);
        s[count + k] += e[1][d] * (x[3 * k + d] - x[d]);
        h += nrm[d] * (x[3 * k + d] - x[3 * a + d]);
      }
      if (PetscAbsReal(h) > 1e-8 * len) flat = PETSC_FALSE;
    }
    if (flat) PetscCall(VIMBTributaryLengths(count, s, 1e-8 * len, w, cls, &nd[0]));
    if (flat) PetscCall(VIMBTributaryLengths(count, s + count, 1e-8 * len, l2, cls + count, &nd[1]));
    /* a complete grid: nd[0] x nd[1] nodes, each place of it once */
    if (flat && nd[0] * nd[1] != count) flat = PETSC_FALSE;
    for (PetscInt k = 0; k < count && flat; k++) cls[2 * count + k] = 0;
    for (PetscInt k = 0; k < count && flat; k++) {
      const PetscInt c = cls[k] * nd[1] + cls[count + k];
      if (cls[2 * count + c]++) flat = PETSC_FALSE;
      w[k] *= l2[k];
    }
  }
#undef VIMB_D2
  PetscCall(PetscFree5(x, s, order, l2, cls));
  PetscCheck(straight || (dim == 3 && flat), rd->comm, PETSC_ERR_USER_INPUT,
             dim == 3
                 ? "%s:%d: '%s: tributary' needs the nodes of one straight edge, or all the nodes of a rectangular grid on one flat face (give the "
                   "weights)"
                 : "%s:%d: '%s: tributary' needs two or more nodes on one straight edge (give the weights)",
             rd->path, VIMBLine(wv), wkey);
  for (PetscInt k = 0; k < count; k++)
    PetscCheck(w[k] > 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: '%s: tributary' needs distinct nodes (two are at one position)", rd->path,
               VIMBLine(wv), wkey);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The weights listed under wkey (count positive numbers), or 1 each without the key. */
static PetscErrorCode VIMBGivenWeights(VIMBReader *rd, yaml_node_t *wv, const char wkey[], PetscInt count, PetscReal w[])
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < count; k++) {
    yaml_node_t *e = wv ? VIMBNode(rd, wv->data.sequence.items.start[k]) : NULL;
    w[k]           = 1;
    if (!e) continue;
    PetscCheck(e->type == YAML_SCALAR_NODE, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: '%s' must list numbers", rd->path, VIMBLine(e), wkey);
    PetscCall(VIMBNumber(rd, e, wkey, &w[k]));
    PetscCheck(w[k] > 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: '%s' has the weight %s: a node's weight must be positive", rd->path, VIMBLine(e),
               wkey, (const char *)e->data.scalar.value);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A point's node on a flexible body (key: the ROM's output name stem, or a list of stems: a pin spread over several nodes,
   a distributing coupling like Nastran's RBE3), its displacement rows, NULL without the key. The point's displacement is
   the weighted mean u_P = sum_k w_k u_k, so a force F at the point loads node k with w_k F (Phi_P^T F = sum_k w_k Phi_k^T F):
   wkey lists relative weights (positive, divided by their sum; e.g. the tributary lengths of the nodes of an edge of
   linear elements, the consistent nodal loads of a uniform traction), equal weights without it. */
static PetscErrorCode VIMBNodeRef(VIMBReader *rd, VIMBModel *model, yaml_node_t *map, const char key[], const char wkey[], PetscInt b,
                                  PetscReal **phi)
{
  yaml_node_t *v = VIMBGet(rd, map, key), *wv = VIMBGet(rd, map, wkey);
  PetscInt     nf, count;
  PetscReal   *w, wsum = 0;
  PetscBool    tributary;

  PetscFunctionBeginUser;
  *phi = NULL;
  PetscCheck(!wv || v, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: '%s' weighs the nodes of '%s', and there is no '%s' (list the nodes, or remove '%s')",
             rd->path, VIMBLine(wv), wkey, key, key, wkey);
  if (!v) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(b > 0 && model->bodies[b].flex, rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: '%s' names a node of a flexible body's ROM, and '%s' is not a flexible body (remove '%s')", rd->path, VIMBLine(v), key,
             model->bodies[b].name, key);
  nf = model->bodies[b].flex->nf;
  PetscCheck(v->type == YAML_SCALAR_NODE || (v->type == YAML_SEQUENCE_NODE && VIMBCount(v) > 0), rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: '%s' must be a ROM output stem (n63: rows n63_x, n63_y) or a list of them, e.g. [n61, n62, n63]", rd->path, VIMBLine(v), key);
  count = v->type == YAML_SCALAR_NODE ? 1 : VIMBCount(v);
  tributary =
      (PetscBool)(wv && v->type == YAML_SEQUENCE_NODE && wv->type == YAML_SCALAR_NODE && !strcmp((const char *)wv->data.scalar.value, "tributary"));
  PetscCheck(!wv || tributary || (wv->type == YAML_SEQUENCE_NODE && VIMBCount(wv) == count), rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: '%s' must list one weight per node of '%s' (%" PetscInt_FMT " numbers), or be 'tributary' with a list of nodes", rd->path,
             VIMBLine(wv), wkey, key, count);
  PetscCall(PetscMalloc1(count, &w));
  {
    PetscErrorCode ierr =
        tributary ? VIMBTributaryWeights(rd, model->bodies[b].flex, model->dim, v, wv, wkey, w) : VIMBGivenWeights(rd, wv, wkey, count, w);
    if (ierr) PetscCall(PetscFree(w));
    PetscCall(ierr);
  }
  for (PetscInt k = 0; k < count; k++) wsum += w[k];
  PetscCall(PetscCalloc1(model->dim * nf, phi));
  for (PetscInt k = 0; k < count; k++) {
    yaml_node_t   *e = v->type == YAML_SCALAR_NODE ? v : VIMBNode(rd, v->data.sequence.items.start[k]);
    PetscReal     *rows;
    PetscErrorCode ierr;
    PetscCheck(e->type == YAML_SCALAR_NODE && strlen((const char *)e->data.scalar.value) < VI_MB_NAME, rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: '%s' must list ROM output stems (names of at most %d characters)", rd->path, VIMBLine(e), key, VI_MB_NAME - 1);
    ierr = VIMBFlexNode(rd->comm, model->bodies[b].flex, rd->path, VIMBLine(e), model->bodies[b].name, (const char *)e->data.scalar.value, &rows);
    if (ierr) PetscCall(PetscFree(*phi));
    if (ierr) PetscCall(PetscFree(w));
    PetscCall(ierr);
    for (PetscInt i = 0; i < model->dim * nf; i++) (*phi)[i] += w[k] / wsum * rows[i];
    PetscCall(PetscFree(rows));
  }
  PetscCall(PetscFree(w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMBSequence(VIMBReader *rd, yaml_node_t *root, const char key[], yaml_node_t **seq)
{
  PetscFunctionBeginUser;
  *seq = VIMBGet(rd, root, key);
  PetscCheck(!*seq || (*seq)->type == YAML_SEQUENCE_NODE, rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: '%s' must be a list of entries, each starting with '- name: ...'", rd->path, VIMBLine(*seq), key);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A flexible body's ROM (key 'rom', dim 2 or 3: the model's; dim 0: a rigid body, which has no 'rom') with its
   invariants (VIMBFlexLoad); its mass and inertia are the ROM's, so 'mass' and 'inertia' are refused. */
static PetscErrorCode VIMBReadFlexibleROM(VIMBReader *rd, yaml_node_t *e, VIMBBody *bd, PetscInt dim)
{
  char rom[PETSC_MAX_PATH_LEN], init[16];

  PetscFunctionBeginUser;
  if (!dim) {
    PetscCheck(!VIMBGet(rd, e, "rom"), rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: body '%s': 'rom' is a flexible body's key (add 'type: flexible')",
               rd->path, bd->line, bd->name);
    for (PetscInt k = 0; k < 2; k++) {
      const char *key = k ? "elastic" : "initial";
      PetscCheck(!VIMBGet(rd, e, key), rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: body '%s': '%s' sets a flexible body's initial elastic coordinates, and '%s' is rigid (remove '%s', or add 'type: flexible' "
                 "and its 'rom')",
                 rd->path, VIMBLine(VIMBGet(rd, e, key)), bd->name, key, bd->name, key);
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(!VIMBGet(rd, e, "mass") && !VIMBGet(rd, e, "inertia"), rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: flexible body '%s': its mass and inertia come from its ROM's invariants; remove 'mass' and 'inertia'", rd->path, bd->line,
             bd->name);
  PetscCheck(VIMBGet(rd, e, "rom"), rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: flexible body '%s' needs 'rom: FILE.h5', a ROM reduced with -cms_frame_invariants (docs/frame.md)", rd->path, bd->line,
             bd->name);
  PetscCall(VIMBString(rd, e, "rom", NULL, rom, sizeof(rom)));
  PetscCall(VIMBFlexLoad(rd->comm, rd->path, bd->line, bd->name, rom, dim, &bd->flex));
  bd->mass = bd->flex->m;
  /* the initial elastic coordinates: 'initial: undeformed' (0, the default), 'initial: static' (the quasi-static deflection,
     mbstatic.c) or 'elastic: [q_1, ..., q_nf]' given */
  PetscCall(VIMBString(rd, e, "initial", "undeformed", init, sizeof(init)));
  PetscCheck(!strcmp(init, "undeformed") || !strcmp(init, "static"), rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: flexible body '%s' has 'initial: %s' (expected undeformed, the default, or static: the quasi-static deflection at the start)",
             rd->path, VIMBLine(VIMBGet(rd, e, "initial")), bd->name, init);
  bd->flex->static0 = strcmp(init, "static") ? PETSC_FALSE : PETSC_TRUE;
  if (VIMBGet(rd, e, "elastic")) {
    PetscCheck(!VIMBGet(rd, e, "initial"), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: flexible body '%s': give 'initial' or 'elastic' (the initial elastic coordinates themselves), not both", rd->path,
               VIMBLine(VIMBGet(rd, e, "elastic")), bd->name);
    PetscCall(PetscMalloc1(bd->flex->nf, &bd->flex->q0));
    PetscCall(VIMBVector(rd, e, "elastic", bd->flex->nf, PETSC_TRUE, bd->flex->q0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A spatial rigid body's mass and inertia tensor (its keys 'mass', 'inertia'). */
static PetscErrorCode VIMBReadSpatialInertia(VIMBReader *rd, yaml_node_t *e, VIMBBody *bd)
{
  yaml_node_t *v     = VIMBGet(rd, e, "inertia");
  PetscReal    Jv[6] = {0, 0, 0, 0, 0, 0}, *J = bd->J, m2, m3;
  PetscInt     len = v && v->type == YAML_SEQUENCE_NODE ? VIMBCount(v) : 0;

  PetscFunctionBeginUser;
  PetscCall(VIMBReal(rd, e, "mass", PETSC_TRUE, 0, &bd->mass));
  PetscCheck(bd->mass > 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: body '%s' has mass %g: give mass > 0 (kg)", rd->path,
             VIMBLine(VIMBGet(rd, e, "mass")), bd->name, (double)bd->mass);
  PetscCheck(v && (len == 3 || len == 6), rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: body '%s' needs 'inertia: [J1, J2, J3]' (principal moments along its axes, kg m^2) or [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz] (a "
             "spatial model's inertia is a tensor)",
             rd->path, v ? VIMBLine(v) : bd->line, bd->name);
  PetscCall(VIMBVector(rd, e, "inertia", len, PETSC_TRUE, Jv));
  J[0] = Jv[0], J[4] = Jv[1], J[8] = Jv[2];
  J[1] = J[3] = Jv[3], J[2] = J[6] = Jv[4], J[5] = J[7] = Jv[5];
  m2 = J[0] * J[4] - J[1] * J[3];
  m3 = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);
  PetscCheck(J[0] > 0 && m2 > 0 && m3 > 0, rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: body '%s' has a singular or indefinite inertia tensor (leading minors %g, %g, %g): give a positive definite one (kg m^2, about "
             "the centre of mass)",
             rd->path, VIMBLine(v), bd->name, (double)J[0], (double)m2, (double)m3);
  bd->inertia = (J[0] + J[4] + J[8]) / 3;
  bd->c       = 2 * bd->inertia; /* 2 tr(J) / 3: the norm term's weight (mbspatial.c) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A spatial rigid body (dim: 3): mass, inertia [J1, J2, J3] (principal, along the body's axes) or [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz]
   (the tensor's entries in the body's frame), position [x, y, z], orientation [e0, e1, e2, e3] (a unit quaternion, e0 the
   scalar part) or axis [ax, ay, az] with angle (rad), velocity [vx, vy, vz] and angular_velocity [wx, wy, wz] (rad/s, in
   the fixed frame), stored as z = (r, p) and dz/dt = (v, G(p)^T R^T w / 2) (mbspatial.c). */
static PetscErrorCode VIMBReadSpatialBody(VIMBReader *rd, yaml_node_t *e, VIMBBody *bd, PetscBool flexible)
{
  yaml_node_t *o = VIMBGet(rd, e, "orientation");
  PetscReal   *p = bd->pose + 3, nrm = 0, w[3] = {0, 0, 0}, R[9], wb[3];

  PetscFunctionBeginUser;
  PetscCall(VIMBReadFlexibleROM(rd, e, bd, flexible ? 3 : 0));
  if (!flexible) PetscCall(VIMBReadSpatialInertia(rd, e, bd)); /* a flexible body's: its ROM's invariants (mbflexspatial.c) */
  PetscCall(VIMBVector(rd, e, "position", 3, PETSC_TRUE, bd->pose));
  PetscCheck(!(o && VIMBGet(rd, e, "axis")), rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: body '%s': give 'orientation' or 'axis' with 'angle', not both",
             rd->path, bd->line, bd->name);
  if (o) {
    PetscCheck(!VIMBGet(rd, e, "angle"), rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: body '%s': 'angle' goes with 'axis', not with 'orientation'",
               rd->path, bd->line, bd->name);
    PetscCall(VIMBVector(rd, e, "orientation", 4, PETSC_TRUE, p));
    for (PetscInt a = 0; a < 4; a++) nrm += p[a] * p[a];
    nrm = PetscSqrtReal(nrm);
    PetscCheck(PetscAbsReal(nrm - 1) <= 1e-6, rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: body '%s' has the orientation [%g, %g, %g, %g] of norm %.9g: a unit quaternion [e0, e1, e2, e3] is expected (normalised: "
               "[%.9g, %.9g, %.9g, %.9g]; or give 'axis' and 'angle')",
               rd->path, VIMBLine(o), bd->name, (double)p[0], (double)p[1], (double)p[2], (double)p[3], (double)nrm, (double)(p[0] / nrm),
               (double)(p[1] / nrm), (double)(p[2] / nrm), (double)(p[3] / nrm));
    for (PetscInt a = 0; a < 4; a++) p[a] /= nrm; /* within 1e-6 of the sphere (the digits given): on it to round-off, for the norm row */
  } else {
    PetscReal ax[3] = {0, 0, 1}, th;
    PetscCall(VIMBVector(rd, e, "axis", 3, PETSC_FALSE, ax));
    PetscCall(VIMBReal(rd, e, "angle", PETSC_FALSE, 0, &th));
    nrm = PetscSqrtReal(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    PetscCheck(nrm > 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: body '%s' has a zero rotation axis", rd->path, VIMBLine(VIMBGet(rd, e, "axis")),
               bd->name);
    p[0] = PetscCosReal(th / 2);
    for (PetscInt i = 0; i < 3; i++) p[1 + i] = PetscSinReal(th / 2) * ax[i] / nrm;
  }
  PetscCall(VIMBVector(rd, e, "velocity", 3, PETSC_FALSE, bd->velocity));
  PetscCall(VIMBVector(rd, e, "angular_velocity", 3, PETSC_FALSE, w));
  VIMBQuatRotation(p, R);
  for (PetscInt i = 0; i < 3; i++) wb[i] = R[i] * w[0] + R[3 + i] * w[1] + R[6 + i] * w[2]; /* R^T w */
  VIMBQuatRate(p, wb, bd->velocity + 3);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMBReadBodies(VIMBReader *rd, VIMBModel *model, yaml_node_t *root)
{
  static const char *const keys[] = {"name",        "type",    "rom",     "mass",     "inertia",
                                     "position",    "angle",   "axis",    "velocity", "angular_velocity",
                                     "orientation", "initial", "elastic", NULL};
  yaml_node_t             *seq;
  PetscInt                 b = 1;

  PetscFunctionBeginUser;
  PetscCall(VIMBSequence(rd, root, "bodies", &seq));
  PetscCheck(VIMBCount(seq) > 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: the model has no bodies (a list 'bodies:' of '- name: ...' entries)",
             rd->path, VIMBLine(root));
  model->nbodies = VIMBCount(seq) + 1;
  PetscCall(PetscCalloc1(model->nbodies, &model->bodies));
  PetscCall(PetscStrncpy(model->bodies[0].name, "ground", VI_MB_NAME));
  for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, b++) {
    yaml_node_t *e  = VIMBNode(rd, *it);
    VIMBBody    *bd = &model->bodies[b];
    char         type[16];
    PetscCall(VIMBCheckKeys(rd, e, "a body", keys));
    bd->line = VIMBLine(e);
    PetscCall(VIMBString(rd, e, "name", NULL, bd->name, sizeof(bd->name)));
    for (PetscInt k = 0; k < b; k++)
      PetscCheck(strcmp(model->bodies[k].name, bd->name), rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: the body name '%s' is %s (give each body its own name)", rd->path, bd->line, bd->name,
                 k ? "used twice" : "reserved for the fixed frame");
    PetscCall(VIMBString(rd, e, "type", "rigid", type, sizeof(type)));
    if (model->dim == 3) {
      PetscCheck(!strcmp(type, "rigid") || !strcmp(type, "flexible"), rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: body '%s' has the type '%s' (expected rigid, the default, or flexible: a ROM of a 3-D mesh in a floating frame)", rd->path,
                 VIMBLine(VIMBGet(rd, e, "type")), bd->name, type);
      PetscCall(VIMBReadSpatialBody(rd, e, bd, !strcmp(type, "flexible")));
      continue;
    }
    PetscCheck(!VIMBGet(rd, e, "orientation") && !VIMBGet(rd, e, "axis"), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: body '%s': 'orientation' and 'axis' are a spatial body's keys (add 'dim: 3' at the model's top)", rd->path, bd->line,
               bd->name);
    PetscCheck(!strcmp(type, "rigid") || !strcmp(type, "flexible"), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: body '%s' has the type '%s' (expected rigid, the default, or flexible: a ROM in a floating frame)", rd->path,
               VIMBLine(VIMBGet(rd, e, "type")), bd->name, type);
    PetscCall(VIMBReadFlexibleROM(rd, e, bd, !strcmp(type, "flexible") ? 2 : 0));
    if (!bd->flex) {
      PetscCall(VIMBReal(rd, e, "mass", PETSC_TRUE, 0, &bd->mass));
      PetscCall(VIMBReal(rd, e, "inertia", PETSC_TRUE, 0, &bd->inertia));
    }
    PetscCheck(bd->flex || (bd->mass > 0 && bd->inertia > 0), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: body '%s' has mass %g and inertia %g: its mass matrix diag(m, m, J) is singular; give mass > 0 (kg) and inertia > 0 "
               "(kg m^2, about the centre of mass)",
               rd->path, VIMBLine(VIMBGet(rd, e, bd->mass > 0 ? "inertia" : "mass")), bd->name, (double)bd->mass, (double)bd->inertia);
    PetscCall(VIMBVector(rd, e, "position", 2, PETSC_TRUE, bd->pose));
    PetscCall(VIMBReal(rd, e, "angle", PETSC_FALSE, 0, &bd->pose[2]));
    PetscCall(VIMBVector(rd, e, "velocity", 2, PETSC_FALSE, bd->velocity));
    PetscCall(VIMBReal(rd, e, "angular_velocity", PETSC_FALSE, 0, &bd->velocity[2]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A spatial revolute joint: its axis in body1's frame (key 'axis', unit after scaling), and in body2's frame the two
   normals to the same axis at the initial poses (R2^T R1 a turned into two unit normals): its rows 4 and 5 hold
   (R1 a) . (R2 n_k) = 0, k = 1, 2. */
static PetscErrorCode VIMBHinge(VIMBReader *rd, VIMBModel *model, yaml_node_t *e, VIMBJoint *j)
{
  PetscReal *a = j->hinge[0], R[2][9], w[3], b[3], len;
  PetscInt   k;

  PetscFunctionBeginUser;
  PetscCall(VIMBVector(rd, e, "axis", 3, PETSC_TRUE, a));
  len = PetscSqrtReal(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  PetscCheck(len > 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: joint '%s' has a zero axis (give the hinge's direction in body1's frame)", rd->path,
             j->line, j->name);
  for (PetscInt i = 0; i < 3; i++) a[i] /= len;
  for (PetscInt s = 0; s < 2; s++) {
    const PetscReal one[4] = {1, 0, 0, 0};
    VIMBQuatRotation(j->body[s] ? model->bodies[j->body[s]].pose + 3 : one, R[s]);
  }
  for (PetscInt i = 0; i < 3; i++) w[i] = R[0][i * 3] * a[0] + R[0][i * 3 + 1] * a[1] + R[0][i * 3 + 2] * a[2]; /* R1 a */
  for (PetscInt i = 0; i < 3; i++) b[i] = R[1][i] * w[0] + R[1][3 + i] * w[1] + R[1][6 + i] * w[2];             /* R2^T R1 a */
  k = PetscAbsReal(b[0]) <= PetscAbsReal(b[1]) && PetscAbsReal(b[0]) <= PetscAbsReal(b[2]) ? 0 : (PetscAbsReal(b[1]) <= PetscAbsReal(b[2]) ? 1 : 2);
  w[0] = w[1] = w[2] = 0;
  w[k]               = 1; /* the coordinate axis least along b: n1 = b x e_k, n2 = b x n1 */
  j->hinge[1][0]     = b[1] * w[2] - b[2] * w[1];
  j->hinge[1][1]     = b[2] * w[0] - b[0] * w[2];
  j->hinge[1][2]     = b[0] * w[1] - b[1] * w[0];
  len                = PetscSqrtReal(j->hinge[1][0] * j->hinge[1][0] + j->hinge[1][1] * j->hinge[1][1] + j->hinge[1][2] * j->hinge[1][2]);
  for (PetscInt i = 0; i < 3; i++) j->hinge[1][i] /= len;
  j->hinge[2][0] = b[1] * j->hinge[1][2] - b[2] * j->hinge[1][1];
  j->hinge[2][1] = b[2] * j->hinge[1][0] - b[0] * j->hinge[1][2];
  j->hinge[2][2] = b[0] * j->hinge[1][1] - b[1] * j->hinge[1][0];
  j->rows        = 5;
  {
    const PetscReal one[4] = {1, 0, 0, 0};
    VIMBSpatialRelative(j->body[0] ? model->bodies[j->body[0]].pose + 3 : one, model->bodies[j->body[1]].pose + 3, j->rel0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The formula value + speed t + amplitude sin(frequency t + phase) of a time function: the keys of the mapping map (all
   optional, 0 by default; amplitude needs frequency > 0). */
static PetscErrorCode VIMBReadFormula(VIMBReader *rd, yaml_node_t *map, const char what[], VIMBTimeFunction *f)
{
  static const char *const keys[] = {"value", "speed", "amplitude", "frequency", "phase", NULL};
  PetscReal                x[5];

  PetscFunctionBeginUser;
  PetscCall(VIMBCheckKeys(rd, map, "a formula (value + speed t + amplitude sin(frequency t + phase))", keys));
  for (PetscInt k = 0; k < 5; k++) PetscCall(VIMBReal(rd, map, keys[k], PETSC_FALSE, 0, &x[k]));
  PetscCheck(x[2] == 0 || x[3] > 0, rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: %s: 'amplitude' needs 'frequency' (rad/s, > 0): the formula is value + speed t + amplitude sin(frequency t + phase)", rd->path,
             VIMBLine(map), what);
  VIMBTimeFunctionSetAnalytic(f, x[0], x[1], x[2], x[3], x[4]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A time function under key (docs/multibody.md, "Prescribed motions and time-varying loads"): a formula, key: {value, speed,
   amplitude, frequency, phase} (VIMBReadFormula); or a table, inline, key: [[t0, y0], [t1, y1], ...], or from a CSV file,
   key_file: FILE.csv (relative to the model file's folder), clamped by key_rates: [r0, r1] or not-a-knot without; what
   names its owner in messages. given: whether key or key_file is there. */
static PetscErrorCode VIMBReadTimeFunction(VIMBReader *rd, yaml_node_t *e, const char key[], const char what[], VIMBTimeFunction *f, PetscBool *given)
{
  char         fkey[VI_MB_NAME], rkey[VI_MB_NAME], source[PETSC_MAX_PATH_LEN + 32];
  yaml_node_t *v, *fv, *rv;
  PetscInt     n = 0;
  PetscReal   *t = NULL, *y = NULL, rates[2];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(fkey, sizeof(fkey), "%s_file", key));
  PetscCall(PetscSNPrintf(rkey, sizeof(rkey), "%s_rates", key));
  v      = VIMBGet(rd, e, key);
  fv     = VIMBGet(rd, e, fkey);
  rv     = VIMBGet(rd, e, rkey);
  *given = v || fv ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(!(v && fv), rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: %s: give '%s' (a list of [time, value] points) or '%s' (a CSV file), not both",
             rd->path, VIMBLine(fv), what, key, fkey);
  PetscCheck(*given || !rv, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: %s: '%s' clamps the spline of a table, and there is no '%s' or '%s'", rd->path,
             VIMBLine(rv), what, rkey, key, fkey);
  if (!*given) PetscFunctionReturn(PETSC_SUCCESS);
  if (v && v->type == YAML_MAPPING_NODE) {
    PetscCheck(!rv, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: %s: '%s' clamps the spline of a table, and '%s' is a formula", rd->path, VIMBLine(rv),
               what, rkey, key);
    PetscCall(VIMBReadFormula(rd, v, what, f));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (rv) PetscCall(VIMBVector(rd, e, rkey, 2, PETSC_TRUE, rates));
  if (v) {
    PetscCheck(v->type == YAML_SEQUENCE_NODE, rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: %s: '%s' must be a list of [time, value] points, e.g. [[0, 0], [0.5, 1]], or a formula {value: 1, speed: 0, amplitude: 0.5, "
               "frequency: 20, phase: 0}",
               rd->path, VIMBLine(v), what, key);
    n = VIMBCount(v);
    PetscCall(PetscMalloc2(PetscMax(n, 1), &t, PetscMax(n, 1), &y));
    for (PetscInt i = 0; i < n; i++) {
      yaml_node_t *p    = VIMBNode(rd, v->data.sequence.items.start[i]), *a, *b;
      PetscBool    pair = p->type == YAML_SEQUENCE_NODE && VIMBCount(p) == 2 ? PETSC_TRUE : PETSC_FALSE;
      if (!pair) PetscCall(PetscFree2(t, y));
      PetscCheck(pair, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: %s: point %" PetscInt_FMT " of '%s' must be a pair [time, value]", rd->path,
                 VIMBLine(p), what, i + 1, key);
      a    = VIMBNode(rd, p->data.sequence.items.start[0]);
      b    = VIMBNode(rd, p->data.sequence.items.start[1]);
      pair = a->type == YAML_SCALAR_NODE && b->type == YAML_SCALAR_NODE ? PETSC_TRUE : PETSC_FALSE;
      if (!pair) PetscCall(PetscFree2(t, y));
      PetscCheck(pair, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: %s: point %" PetscInt_FMT " of '%s' must be two numbers [time, value]", rd->path,
                 VIMBLine(p), what, i + 1, key);
      {
        PetscErrorCode ierr = VIMBNumber(rd, a, key, &t[i]);
        if (!ierr) ierr = VIMBNumber(rd, b, key, &y[i]);
        if (ierr) PetscCall(PetscFree2(t, y));
        PetscCall(ierr);
      }
      if (i > 0 && t[i] <= t[i - 1]) {
        const PetscReal ti = t[i], tp = t[i - 1];
        PetscCall(PetscFree2(t, y));
        SETERRQ(rd->comm, PETSC_ERR_USER_INPUT,
                "%s:%d: %s: point %" PetscInt_FMT " of '%s' has the time %g, not after %g: the times must be strictly increasing", rd->path,
                VIMBLine(p), what, i + 1, key, (double)ti, (double)tp);
      }
    }
    PetscCall(PetscSNPrintf(source, sizeof(source), "%s:%d", rd->path, VIMBLine(v)));
  } else {
    char name[PETSC_MAX_PATH_LEN], file[PETSC_MAX_PATH_LEN];
    PetscCall(VIMBString(rd, e, fkey, NULL, name, sizeof(name)));
    if (name[0] == '/')
      PetscCall(PetscStrncpy(file, name, sizeof(file)));
    else { /* relative to the model file's folder */
      const char *slash = strrchr(rd->path, '/');
      PetscCall(PetscSNPrintf(file, sizeof(file), "%.*s%s", slash ? (int)(slash - rd->path + 1) : 0, rd->path, name));
    }
    {
      FILE *fp = fopen(file, "r");
      if (fp) fclose(fp);
      PetscCheck(fp, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: %s: cannot open '%s: %s' (%s; a relative path is from the model file's folder)",
                 rd->path, VIMBLine(fv), what, fkey, name, file);
    }
    PetscCall(VIMBTimeTableReadCSV(rd->comm, file, &n, &t, &y));
    PetscCall(PetscSNPrintf(source, sizeof(source), "%s:%d (%s)", rd->path, VIMBLine(fv), file));
  }
  if (n < 2) PetscCall(PetscFree2(t, y));
  PetscCheck(n >= 2, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: %s: '%s' has %" PetscInt_FMT " point%s: a table needs two or more [time, value] points",
             rd->path, VIMBLine(v), what, key, n, n == 1 ? "" : "s");
  {
    PetscErrorCode ierr = VIMBTimeFunctionSetTable(rd->comm, f, source, n, t, y, rv ? rates : NULL);
    PetscCall(PetscFree2(t, y));
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A driver's prescribed motion phi(t), a time function of the run's absolute time t (docs/multibody.md): the formula
   speed t + amplitude sin(frequency t) (keys speed; amplitude, rad, and frequency, rad/s > 0, optional together), or
   motion: {value, speed, amplitude, frequency, phase} or a table (motion: or motion_file:, with motion_rates:,
   VIMBReadTimeFunction); the keys refused on other joints. The joint's coordinate changes by phi(t) - phi(t0) from its
   initial value (the origin set at the run's start, VIMBModelSetStart); phi''(t0) enters the consistent initial
   acceleration (VISystemEvaluateConstraintAcceleration). */
static PetscErrorCode VIMBReadDriverMotion(VIMBReader *rd, yaml_node_t *e, const char type[], VIMBJoint *j)
{
  static const char *const keys[] = {"speed", "amplitude", "frequency", "motion", "motion_file", "motion_rates"};
  PetscReal                speed = 0, amplitude = 0, frequency = 0;
  PetscBool                given;
  char                     what[2 * VI_MB_NAME];

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 6; k++)
    PetscCheck(j->type == VI_MB_JOINT_DRIVER || j->type == VI_MB_JOINT_PRISMATIC || !VIMBGet(rd, e, keys[k]), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: joint '%s': '%s' is a driver's key (type: driver), not a %s joint's (a prismatic joint takes it too: a prescribed slide)",
               rd->path, j->line, j->name, keys[k], type);
  if (j->type == VI_MB_JOINT_PRISMATIC) { /* driven when it has a motion */
    PetscBool any = PETSC_FALSE;
    for (PetscInt k = 0; k < 6; k++) any = any || VIMBGet(rd, e, keys[k]) ? PETSC_TRUE : PETSC_FALSE;
    if (!any) PetscFunctionReturn(PETSC_SUCCESS);
  } else if (j->type != VI_MB_JOINT_DRIVER)
    PetscFunctionReturn(PETSC_SUCCESS);
  j->driven = PETSC_TRUE;
  PetscCall(PetscSNPrintf(what, sizeof(what), "joint '%s'", j->name));
  PetscCall(VIMBReadTimeFunction(rd, e, "motion", what, &j->motion, &given));
  if (given) {
    for (PetscInt k = 0; k < 3; k++)
      PetscCheck(!VIMBGet(rd, e, keys[k]), rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: joint '%s': give its motion as 'speed' (with 'amplitude', 'frequency') or as 'motion' (a table, a formula) or "
                 "'motion_file', not both",
                 rd->path, VIMBLine(VIMBGet(rd, e, keys[k])), j->name);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(VIMBGet(rd, e, "speed"), rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: joint '%s': a driver needs its motion: 'speed' (rad/s or m/s, with 'amplitude' and 'frequency' optional), a formula ('motion: "
             "{speed: 2, amplitude: 0.5, frequency: 20, phase: 0}') or a table ('motion: [[t, value], ...]' or 'motion_file: FILE.csv')",
             rd->path, j->line, j->name);
  PetscCall(VIMBReal(rd, e, "speed", PETSC_TRUE, 0, &speed));
  PetscCall(VIMBReal(rd, e, "amplitude", PETSC_FALSE, 0, &amplitude));
  PetscCall(VIMBReal(rd, e, "frequency", PETSC_FALSE, 0, &frequency));
  PetscCheck(amplitude == 0 || frequency > 0, rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: joint '%s': 'amplitude' needs 'frequency' (rad/s, > 0): the motion is speed t + amplitude sin(frequency t)", rd->path, j->line,
             j->name);
  VIMBTimeFunctionSetAnalytic(&j->motion, 0, speed, amplitude, frequency, 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A chain of segments of body b (mbchain.c), for what (a contact, a prismatic joint's rail): chain: [[x0, y0], [x1, y1], ...]
   (two or more points in its frame, consecutive ones apart), each moved by its node of chain_nodes: [n28, n29, ...] (one
   ROM output stem per point, on a flexible body; none: the frame's points): n points x (2 n) and their rows phi (n). */
static PetscErrorCode VIMBReadChain(VIMBReader *rd, VIMBModel *model, yaml_node_t *e, PetscInt b, const char what[], PetscInt *n, PetscReal **x,
                                    PetscReal ***phi)
{
  yaml_node_t    *v = VIMBGet(rd, e, "chain"), *nv = VIMBGet(rd, e, "chain_nodes");
  const VIMBBody *bd = &model->bodies[b];

  PetscFunctionBeginUser;
  *n = VIMBCount(v);
  PetscCheck(v->type == YAML_SEQUENCE_NODE && *n >= 2, rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: %s: 'chain' has %" PetscInt_FMT " point%s: a chain of segments needs two or more points [x, y] in the frame of '%s'", rd->path,
             VIMBLine(v), what, v->type == YAML_SEQUENCE_NODE ? *n : 0, *n == 1 ? "" : "s", bd->name);
  PetscCheck(!nv || (nv->type == YAML_SEQUENCE_NODE && VIMBCount(nv) == *n), rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: %s: 'chain_nodes' must list one ROM output stem per point of 'chain' (%" PetscInt_FMT " stems, e.g. [n28, n29])", rd->path,
             VIMBLine(nv), what, *n);
  PetscCheck(!nv || bd->flex, rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: %s: 'chain_nodes' names nodes of a flexible body's ROM, and '%s' is not a flexible body (remove 'chain_nodes')", rd->path,
             VIMBLine(nv), what, bd->name);
  PetscCall(PetscCalloc2(2 * *n, x, *n, phi));
  for (PetscInt k = 0; k < *n; k++) {
    yaml_node_t *p = VIMBNode(rd, v->data.sequence.items.start[k]);
    PetscCheck(p->type == YAML_SEQUENCE_NODE && VIMBCount(p) == 2, rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: %s: point %" PetscInt_FMT " of 'chain' must be a pair [x, y]", rd->path, VIMBLine(p), what, k + 1);
    for (PetscInt d = 0; d < 2; d++) {
      yaml_node_t *xv = VIMBNode(rd, p->data.sequence.items.start[d]);
      PetscCheck(xv->type == YAML_SCALAR_NODE, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: %s: 'chain' must list pairs of numbers", rd->path,
                 VIMBLine(xv), what);
      PetscCall(VIMBNumber(rd, xv, "chain", &(*x)[2 * k + d]));
    }
    PetscCheck(k == 0 || (*x)[2 * k] != (*x)[2 * k - 2] || (*x)[2 * k + 1] != (*x)[2 * k - 1], rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: %s: points %" PetscInt_FMT " and %" PetscInt_FMT " of 'chain' are one point [%g, %g] (a segment needs its ends apart)",
               rd->path, VIMBLine(p), what, k, k + 1, (double)(*x)[2 * k], (double)(*x)[2 * k + 1]);
    if (nv) {
      yaml_node_t *st = VIMBNode(rd, nv->data.sequence.items.start[k]);
      PetscCheck(st->type == YAML_SCALAR_NODE && strlen((const char *)st->data.scalar.value) < VI_MB_NAME, rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: %s: 'chain_nodes' must list ROM output stems (names of at most %d characters)", rd->path, VIMBLine(st), what,
                 VI_MB_NAME - 1);
      PetscCall(VIMBFlexNode(rd->comm, bd->flex, rd->path, VIMBLine(st), bd->name, (const char *)st->data.scalar.value, &(*phi)[k]));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMBReadJoints(VIMBReader *rd, VIMBModel *model, yaml_node_t *root)
{
  static const char *const keys[]  = {"name",   "type",        "body1",        "point1", "node1",       "body2",     "point2",
                                      "node2",  "weights1",    "weights2",     "axis",   "speed",       "amplitude", "frequency",
                                      "motion", "motion_file", "motion_rates", "chain",  "chain_nodes", NULL};
  static const char *const types[] = {"revolute", "prismatic", "fixed", "driver", "spherical"};
  yaml_node_t             *seq;
  PetscInt                 k = 0;

  PetscFunctionBeginUser;
  PetscCall(VIMBSequence(rd, root, "joints", &seq));
  model->njoints = VIMBCount(seq);
  PetscCall(PetscCalloc1(PetscMax(model->njoints, 1), &model->joints));
  if (!seq) PetscFunctionReturn(PETSC_SUCCESS);
  for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, k++) {
    yaml_node_t *e = VIMBNode(rd, *it);
    VIMBJoint   *j = &model->joints[k];
    char         type[32];
    PetscInt     t;
    PetscCall(VIMBCheckKeys(rd, e, "a joint", keys));
    j->line = VIMBLine(e);
    PetscCall(VIMBString(rd, e, "name", NULL, j->name, sizeof(j->name)));
    PetscCall(VIMBString(rd, e, "type", NULL, type, sizeof(type)));
    for (t = 0; t < 5; t++)
      if (!strcmp(type, types[t])) break;
    PetscCheck(t < 5 && (model->dim == 3 || t != VI_MB_JOINT_SPHERICAL), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: joint '%s' has the type '%s' (expected %s)", rd->path, j->line, j->name, type,
               model->dim == 3 ? "spherical, revolute, prismatic, fixed or driver: the joints built for a spatial model"
                               : "revolute, prismatic, fixed or driver; spherical needs dim: 3");
    j->type = (VIMBJointType)t;
    PetscCall(VIMBBodyRef(rd, model, e, "body1", "the joint's body1", &j->body[0]));
    PetscCall(VIMBBodyRef(rd, model, e, "body2", "the joint's body2", &j->body[1]));
    PetscCheck(j->body[0] != j->body[1], rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: joint '%s' joins the body '%s' to itself (name two bodies)",
               rd->path, j->line, j->name, model->bodies[j->body[0]].name);
    PetscCall(VIMBVector(rd, e, "point1", model->dim, PETSC_FALSE, j->point[0]));
    PetscCall(VIMBVector(rd, e, "point2", model->dim, PETSC_FALSE, j->point[1]));
    if (model->dim == 3) {
      j->rows = 3;
      /* a node of a flexible body: its point moves with the ROM (mbspatial.c, mbpoint.c); a prismatic joint's slider (node2)
         may be one, not its line's point on body1 (the line would deform: as in the plane) */
      PetscCall(VIMBNodeRef(rd, model, e, "node1", "weights1", j->body[0], &j->phi[0]));
      PetscCall(VIMBNodeRef(rd, model, e, "node2", "weights2", j->body[1], &j->phi[1]));
      PetscCheck(j->type != VI_MB_JOINT_PRISMATIC || !j->phi[0], rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: joint '%s': a prismatic joint's line on the flexible body '%s' through a node is not supported (its line deforms); give "
                 "point1 in its frame without 'node1', or put the node on body2 ('node2')",
                 rd->path, j->line, j->name, model->bodies[j->body[0]].name);
      PetscCheck(j->type == VI_MB_JOINT_REVOLUTE || j->type == VI_MB_JOINT_DRIVER || j->type == VI_MB_JOINT_PRISMATIC || !VIMBGet(rd, e, "axis"),
                 rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: joint '%s': 'axis' is a revolute, driver or prismatic joint's key, a %s joint has none",
                 rd->path, j->line, j->name, types[t]);
      if (j->type == VI_MB_JOINT_REVOLUTE || j->type == VI_MB_JOINT_DRIVER) PetscCall(VIMBHinge(rd, model, e, j));
      PetscCall(VIMBReadDriverMotion(rd, e, types[t], j));
      if (j->type == VI_MB_JOINT_DRIVER) {
        /* a revolute joint and a sixth row, its angle about the axis minus speed t (VIMBSpatialDriverForms, mbspatial.c) */
        const PetscReal one[4] = {1, 0, 0, 0};
        VIMBSpatialDriverForms(j->body[0] ? model->bodies[j->body[0]].pose + 3 : one, model->bodies[j->body[1]].pose + 3, j->hinge[0], j->lock);
        j->rows = 6;
      }
      if (j->type == VI_MB_JOINT_FIXED || j->type == VI_MB_JOINT_PRISMATIC) {
        /* the relative rotation held (3 rows, VIMBSpatialLock); fixed: after the spherical 3 rows, prismatic: after its 2
           rows normal to the axis (a body1-fixed line through point1, along axis, that point2 stays on) */
        const PetscReal one[4] = {1, 0, 0, 0};
        VIMBSpatialLock(j->body[0] ? model->bodies[j->body[0]].pose + 3 : one, model->bodies[j->body[1]].pose + 3, j->lock);
        j->rows = j->type == VI_MB_JOINT_FIXED ? 6 : (j->driven ? 6 : 5); /* a driven prismatic joint: its slide, row 5 */
      }
      if (j->type == VI_MB_JOINT_PRISMATIC) {
        PetscReal *a = j->hinge[0], len, t2[2][3];
        PetscCheck(VIMBGet(rd, e, "axis"), rd->comm, PETSC_ERR_USER_INPUT,
                   "%s:%d: joint '%s': a prismatic joint needs 'axis: [ax, ay, az]' (body1's frame)", rd->path, j->line, j->name);
        PetscCall(VIMBVector(rd, e, "axis", 3, PETSC_TRUE, a));
        len = PetscSqrtReal(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        PetscCheck(len > 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: joint '%s' has a zero axis (give the sliding direction in body1's frame)",
                   rd->path, j->line, j->name);
        for (PetscInt i = 0; i < 3; i++) a[i] /= len;
        VIMBSpatialContactTangents(a, t2); /* two unit normals to the axis */
        for (PetscInt i = 0; i < 3; i++) j->hinge[1][i] = t2[0][i], j->hinge[2][i] = t2[1][i];
      }
      continue;
    }
    PetscCall(VIMBNodeRef(rd, model, e, "node1", "weights1", j->body[0], &j->phi[0]));
    PetscCall(VIMBNodeRef(rd, model, e, "node2", "weights2", j->body[1], &j->phi[1]));
    PetscCheck(!VIMBGet(rd, e, "chain") || (j->type == VI_MB_JOINT_PRISMATIC && model->bodies[j->body[0]].flex), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: joint '%s': 'chain' is the rail of a prismatic joint whose body1 is a flexible body (a rigid body1's axis is 'axis')",
               rd->path, VIMBLine(VIMBGet(rd, e, "chain")), j->name);
    PetscCheck(VIMBGet(rd, e, "chain") || !VIMBGet(rd, e, "chain_nodes"), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: joint '%s': 'chain_nodes' moves the points of a 'chain', and there is none", rd->path, j->line, j->name);
    PetscCheck(j->type != VI_MB_JOINT_PRISMATIC || !model->bodies[j->body[0]].flex || VIMBGet(rd, e, "chain"), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: joint '%s': a prismatic joint's axis on the flexible body '%s' deforms: give its rail as a chain of the body's points, "
               "'chain: [[x0, y0], [x1, y1], ...]' with 'chain_nodes: [n1, n2, ...]' (or make the flexible body body2)",
               rd->path, j->line, j->name, model->bodies[j->body[0]].name);
    j->rows = j->type == VI_MB_JOINT_FIXED ? 3 : (j->type == VI_MB_JOINT_DRIVER ? 1 : 2);
    if (VIMBGet(rd, e, "chain")) { /* a rail on a flexible body1 (mbchain.c): point2 on the chain, theta_2 - theta_1 held */
      char what[2 * VI_MB_NAME];
      PetscCheck(!VIMBGet(rd, e, "axis") && !VIMBGet(rd, e, "point1") && !VIMBGet(rd, e, "node1"), rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: joint '%s': its rail is the chain ('axis', 'point1' and 'node1' are a straight axis's keys: remove them)", rd->path, j->line,
                 j->name);
      PetscCall(PetscSNPrintf(what, sizeof(what), "joint '%s'", j->name));
      PetscCall(VIMBReadChain(rd, model, e, j->body[0], what, &j->nchain, &j->chain_x, &j->chain_phi));
      PetscCall(VIMBReadDriverMotion(rd, e, types[t], j));
      PetscCheck(!j->driven, rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: joint '%s': a prescribed slide along a chain is not supported (drive a straight axis of a rigid body1)", rd->path, j->line,
                 j->name);
      j->angle0 = model->bodies[j->body[1]].pose[2] - model->bodies[j->body[0]].pose[2];
      continue;
    }
    PetscCall(VIMBReadDriverMotion(rd, e, types[t], j));
    if (j->type == VI_MB_JOINT_PRISMATIC && j->driven) j->rows = 3; /* its slide along the axis, row 2 */
    if (j->type == VI_MB_JOINT_PRISMATIC) {
      PetscReal len;
      j->axis[0] = 1;
      PetscCall(VIMBVector(rd, e, "axis", 2, PETSC_TRUE, j->axis));
      len = PetscSqrtReal(j->axis[0] * j->axis[0] + j->axis[1] * j->axis[1]);
      PetscCheck(len > 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: joint '%s' has a zero axis (give the sliding direction in body1's frame)", rd->path,
                 j->line, j->name);
      j->axis[0] /= len;
      j->axis[1] /= len;
    }
    if (j->type != VI_MB_JOINT_REVOLUTE) j->angle0 = model->bodies[j->body[1]].pose[2] - model->bodies[j->body[0]].pose[2];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The start of a contact entry: its keys, line, name and two bodies (the point's and the one it is against). */
static PetscErrorCode VIMBContactHead(VIMBReader *rd, VIMBModel *model, yaml_node_t *e, const char what[], const char *const keys[], VIMBContact *c)
{
  PetscFunctionBeginUser;
  PetscCall(VIMBCheckKeys(rd, e, what, keys));
  c->line = VIMBLine(e);
  PetscCall(VIMBString(rd, e, "name", NULL, c->name, sizeof(c->name)));
  PetscCall(VIMBBodyRef(rd, model, e, "body", "the contact's body", &c->body[1]));
  PetscCall(VIMBBodyRef(rd, model, e, "against", "the contact's 'against'", &c->body[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A contact's restitution (Newton's e in [0, 1], -1 when absent) and friction (Coulomb's mu >= 0). */
static PetscErrorCode VIMBContactLaw(VIMBReader *rd, yaml_node_t *e, VIMBContact *c)
{
  PetscFunctionBeginUser;
  PetscCall(VIMBReal(rd, e, "restitution", PETSC_FALSE, -1, &c->restitution));
  PetscCheck(c->restitution == -1 || (c->restitution >= 0 && c->restitution <= 1), rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: contact '%s' has restitution %g (expected Newton's coefficient in [0, 1])", rd->path, c->line, c->name, (double)c->restitution);
  PetscCall(VIMBReal(rd, e, "friction", PETSC_FALSE, 0, &c->mu));
  PetscCheck(c->mu >= 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: contact '%s' has friction %g (expected Coulomb's coefficient >= 0)", rd->path,
             c->line, c->name, (double)c->mu);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A spatial contact: a point of a body (its frame) against the plane through plane_point with normal plane_normal of the
   ground or of another body (in its frame; open where the normal points), Newton's restitution and Coulomb's friction (two tangential rows,
   VIMBSpatialTangent). */
static PetscErrorCode VIMBReadPlaneContact(VIMBReader *rd, VIMBModel *model, yaml_node_t *e, VIMBContact *c)
{
  static const char *const keys[] = {"name",        "body",         "point",       "node",     "weights", "against",
                                     "plane_point", "plane_normal", "restitution", "friction", NULL};
  PetscReal                len;

  PetscFunctionBeginUser;
  PetscCall(VIMBContactHead(rd, model, e, "a spatial contact", keys, c));
  PetscCheck(c->body[1] > 0, rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: contact '%s': a spatial contact puts a point of a moving body ('body') against a plane of the ground or of another body "
             "('against'); name a moving body as 'body'",
             rd->path, c->line, c->name);
  PetscCheck(c->body[0] != c->body[1], rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: contact '%s' puts a point of '%s' against its own plane (name two bodies)", rd->path, c->line, c->name,
             model->bodies[c->body[1]].name);
  PetscCall(VIMBVector(rd, e, "point", 3, PETSC_FALSE, c->point));
  PetscCall(VIMBNodeRef(rd, model, e, "node", "weights", c->body[1], &c->phi));
  PetscCall(VIMBVector(rd, e, "plane_point", 3, PETSC_FALSE, c->line_point));
  PetscCall(VIMBVector(rd, e, "plane_normal", 3, PETSC_TRUE, c->line_normal));
  len = PetscSqrtReal(c->line_normal[0] * c->line_normal[0] + c->line_normal[1] * c->line_normal[1] + c->line_normal[2] * c->line_normal[2]);
  PetscCheck(len > 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: contact '%s' has a zero plane_normal (the plane's open side)", rd->path, c->line,
             c->name);
  for (PetscInt i = 0; i < 3; i++) c->line_normal[i] /= len;
  PetscCall(VIMBContactLaw(rd, e, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A two-point line of the body 'against' (mbpoint.c): A at line_point (+ line_node with line_weights), B at line_point2
   (+ line_node2 with line_weights2), its normal J (B - A) / |B - A| (the left of A to B), or the right when line_normal
   (optional) points there at the undeformed points; refused when A and B coincide or line_normal lies along the line. */
static PetscErrorCode VIMBContactLine(VIMBReader *rd, VIMBModel *model, yaml_node_t *e, VIMBContact *c)
{
  PetscReal u[2], L, nl;

  PetscFunctionBeginUser;
  PetscCall(VIMBVector(rd, e, "line_point2", 2, PETSC_FALSE, c->line_point2));
  PetscCall(VIMBNodeRef(rd, model, e, "line_node", "line_weights", c->body[0], &c->line_phi[0]));
  PetscCall(VIMBNodeRef(rd, model, e, "line_node2", "line_weights2", c->body[0], &c->line_phi[1]));
  u[0] = c->line_point2[0] - c->line_point[0];
  u[1] = c->line_point2[1] - c->line_point[1];
  L    = PetscSqrtReal(u[0] * u[0] + u[1] * u[1]);
  PetscCheck(L > 0, rd->comm, PETSC_ERR_USER_INPUT,
             "%s:%d: contact '%s': 'line_point' and 'line_point2' are one point [%g, %g] (the line through two points needs them apart)", rd->path,
             c->line, c->name, (double)c->line_point[0], (double)c->line_point[1]);
  c->sigma = 1;
  if (VIMBGet(rd, e, "line_normal")) {
    PetscCall(VIMBVector(rd, e, "line_normal", 2, PETSC_TRUE, c->line_normal));
    nl = PetscSqrtReal(c->line_normal[0] * c->line_normal[0] + c->line_normal[1] * c->line_normal[1]);
    PetscCheck(PetscAbsReal(-u[1] * c->line_normal[0] + u[0] * c->line_normal[1]) > 0.1 * L * nl, rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: contact '%s': 'line_normal' [%g, %g] lies along the line from line_point to line_point2 (give the open side, across it)",
               rd->path, VIMBLine(VIMBGet(rd, e, "line_normal")), c->name, (double)c->line_normal[0], (double)c->line_normal[1]);
    c->sigma = -u[1] * c->line_normal[0] + u[0] * c->line_normal[1] > 0 ? 1 : -1;
  }
  c->line_normal[0] = -c->sigma * u[1] / L; /* the undeformed normal (for the record) */
  c->line_normal[1] = c->sigma * u[0] / L;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A contact against a chain of segments of the body 'against' (VIMBReadChain); its normal the left of each segment's
   direction, or the right when line_normal (optional) points there at the first undeformed segment. */
static PetscErrorCode VIMBContactChain(VIMBReader *rd, VIMBModel *model, yaml_node_t *e, VIMBContact *c)
{
  static const char *const line_keys[] = {"line_point", "line_point2", "line_node", "line_node2", "line_weights", "line_weights2"};
  char                     what[2 * VI_MB_NAME];
  PetscReal                u[2], L, nl;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 6; k++)
    PetscCheck(!VIMBGet(rd, e, line_keys[k]), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: contact '%s': '%s' is a line's key; a contact against a chain takes its points from 'chain' (give one or the other)", rd->path,
               VIMBLine(VIMBGet(rd, e, line_keys[k])), c->name, line_keys[k]);
  PetscCall(PetscSNPrintf(what, sizeof(what), "contact '%s'", c->name));
  PetscCall(VIMBReadChain(rd, model, e, c->body[0], what, &c->nchain, &c->chain_x, &c->chain_phi));
  c->two_point = PETSC_TRUE;
  u[0]         = c->chain_x[2] - c->chain_x[0];
  u[1]         = c->chain_x[3] - c->chain_x[1];
  L            = PetscSqrtReal(u[0] * u[0] + u[1] * u[1]);
  c->sigma     = 1;
  if (VIMBGet(rd, e, "line_normal")) {
    PetscCall(VIMBVector(rd, e, "line_normal", 2, PETSC_TRUE, c->line_normal));
    nl = PetscSqrtReal(c->line_normal[0] * c->line_normal[0] + c->line_normal[1] * c->line_normal[1]);
    PetscCheck(PetscAbsReal(-u[1] * c->line_normal[0] + u[0] * c->line_normal[1]) > 0.1 * L * nl, rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: contact '%s': 'line_normal' [%g, %g] lies along the chain's first segment (give the open side, across it)", rd->path,
               VIMBLine(VIMBGet(rd, e, "line_normal")), c->name, (double)c->line_normal[0], (double)c->line_normal[1]);
    c->sigma = -u[1] * c->line_normal[0] + u[0] * c->line_normal[1] > 0 ? 1 : -1;
  }
  c->line_normal[0] = -c->sigma * u[1] / L; /* the first undeformed segment's normal (for the record) */
  c->line_normal[1] = c->sigma * u[0] / L;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMBReadContacts(VIMBReader *rd, VIMBModel *model, yaml_node_t *root)
{
  static const char *const keys[] = {"name",        "body",        "point",        "node",        "weights",     "against",
                                     "line_point",  "line_node",   "line_weights", "line_point2", "line_node2",  "line_weights2",
                                     "line_normal", "restitution", "friction",     "chain",       "chain_nodes", NULL};
  yaml_node_t             *seq;
  PetscInt                 k = 0;

  PetscFunctionBeginUser;
  PetscCall(VIMBSequence(rd, root, "contacts", &seq));
  model->ncontacts = VIMBCount(seq);
  PetscCall(PetscCalloc1(PetscMax(model->ncontacts, 1), &model->contacts));
  if (!seq) PetscFunctionReturn(PETSC_SUCCESS);
  for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, k++) {
    yaml_node_t *e = VIMBNode(rd, *it);
    VIMBContact *c = &model->contacts[k];
    PetscReal    len;
    if (model->dim == 3) {
      PetscCall(VIMBReadPlaneContact(rd, model, e, c));
      continue;
    }
    PetscCall(VIMBContactHead(rd, model, e, "a contact", keys, c));
    PetscCheck(c->body[0] != c->body[1], rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: contact '%s' puts a point of '%s' against its own line", rd->path,
               c->line, c->name, model->bodies[c->body[0]].name);
    PetscCall(VIMBVector(rd, e, "point", 2, PETSC_FALSE, c->point));
    PetscCall(VIMBNodeRef(rd, model, e, "node", "weights", c->body[1], &c->phi));
    PetscCheck(VIMBGet(rd, e, "chain") || !VIMBGet(rd, e, "chain_nodes"), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: contact '%s': 'chain_nodes' moves the points of a 'chain', and there is none", rd->path, c->line, c->name);
    if (VIMBGet(rd, e, "chain")) { /* a chain of segments (mbchain.c) */
      PetscCall(VIMBContactChain(rd, model, e, c));
      PetscCall(VIMBContactLaw(rd, e, c));
      continue;
    }
    c->two_point = VIMBGet(rd, e, "line_point2") || VIMBGet(rd, e, "line_node2") ? PETSC_TRUE : PETSC_FALSE;
    PetscCheck(c->two_point || !model->bodies[c->body[0]].flex, rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: contact '%s': a line on the flexible body '%s' deforms: give it by two points, 'line_point' and 'line_point2' (each "
               "optionally a node: 'line_node', 'line_node2'), not by 'line_normal' alone",
               rd->path, c->line, c->name, model->bodies[c->body[0]].name);
    PetscCall(VIMBVector(rd, e, "line_point", 2, PETSC_FALSE, c->line_point));
    if (c->two_point) {
      PetscCall(VIMBContactLine(rd, model, e, c));
      PetscCall(VIMBContactLaw(rd, e, c));
      continue;
    }
    PetscCheck(!VIMBGet(rd, e, "line_node") && !VIMBGet(rd, e, "line_weights"), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: contact '%s': 'line_node' is a two-point line's (give 'line_point2' too)", rd->path, c->line, c->name);
    PetscCall(VIMBVector(rd, e, "line_normal", 2, PETSC_TRUE, c->line_normal));
    len = PetscSqrtReal(c->line_normal[0] * c->line_normal[0] + c->line_normal[1] * c->line_normal[1]);
    PetscCheck(len > 0, rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: contact '%s' has a zero line_normal (the open side of the line, in the frame of '%s')", rd->path, c->line, c->name,
               model->bodies[c->body[0]].name);
    c->line_normal[0] /= len;
    c->line_normal[1] /= len;
    PetscCall(VIMBContactLaw(rd, e, c));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMBReadLoads(VIMBReader *rd, VIMBModel *model, yaml_node_t *root)
{
  static const char *const keys[] = {"name", "body", "force", "torque", "factor", "factor_file", "factor_rates", NULL};
  yaml_node_t             *seq;
  PetscInt                 k = 0;

  PetscFunctionBeginUser;
  PetscCall(VIMBSequence(rd, root, "loads", &seq));
  model->nloads = VIMBCount(seq);
  PetscCall(PetscCalloc1(PetscMax(model->nloads, 1), &model->loads));
  if (!seq) PetscFunctionReturn(PETSC_SUCCESS);
  for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, k++) {
    yaml_node_t     *e = VIMBNode(rd, *it);
    VIMBLoad        *l = &model->loads[k];
    VIMBTimeFunction factor;
    PetscBool        timed;
    char             what[2 * VI_MB_NAME] = "a load";
    PetscCall(VIMBCheckKeys(rd, e, "a load", keys));
    PetscCall(VIMBBodyRef(rd, model, e, "body", "the load's body", &l->body));
    PetscCheck(l->body > 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: a load on the ground does nothing (name a moving body)", rd->path, VIMBLine(e));
    PetscCall(VIMBVector(rd, e, "force", model->dim, PETSC_FALSE, l->force));
    /* its factor s(t): a formula or a table (factor: or factor_file:), the load constant without one */
    if (VIMBGet(rd, e, "name")) {
      char name[VI_MB_NAME];
      PetscCall(VIMBString(rd, e, "name", NULL, name, sizeof(name)));
      PetscCall(PetscSNPrintf(what, sizeof(what), "load '%s'", name));
    }
    PetscCall(PetscMemzero(&factor, sizeof(factor)));
    PetscCall(VIMBReadTimeFunction(rd, e, "factor", what, &factor, &timed));
    if (timed) {
      PetscCall(PetscNew(&l->factor));
      *l->factor = factor;
    }
    if (model->dim == 3) {
      VIMBBody *bd = &model->bodies[l->body];
      PetscCall(VIMBVector(rd, e, "torque", 3, PETSC_FALSE, l->torque));
      for (PetscInt d = 0; d < 3 && !timed; d++) bd->torque[d] += l->torque[d]; /* the constant loads' (a timed one's: multibody.c) */
    } else {
      PetscCall(VIMBReal(rd, e, "torque", PETSC_FALSE, 0, &l->torque[2]));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The spring-dampers: two body points (on a flexible body, node1/node2 with weights1/weights2 as a joint's: the point
   moves with the nodes, mbpoint.c), the stiffness k and damping c (>= 0) and the free length L0 (default: the points'
   distance at the initial poses, refused when zero). */
static PetscErrorCode VIMBReadSprings(VIMBReader *rd, VIMBModel *model, yaml_node_t *root)
{
  static const char *const keys[] = {"name",   "body1", "point1", "body2",    "point2",   "stiffness", "damping",
                                     "length", "node1", "node2",  "weights1", "weights2", NULL};
  yaml_node_t             *seq;
  PetscInt                 k = 0;

  PetscFunctionBeginUser;
  PetscCall(VIMBSequence(rd, root, "springs", &seq));
  model->nsprings = VIMBCount(seq);
  PetscCall(PetscCalloc1(PetscMax(model->nsprings, 1), &model->springs));
  if (!seq) PetscFunctionReturn(PETSC_SUCCESS);
  for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, k++) {
    yaml_node_t *e  = VIMBNode(rd, *it);
    VIMBSpring  *sp = &model->springs[k];
    PetscCall(VIMBCheckKeys(rd, e, "a spring", keys));
    sp->line = VIMBLine(e);
    PetscCall(VIMBString(rd, e, "name", NULL, sp->name, sizeof(sp->name)));
    for (PetscInt i = 0; i < k; i++)
      PetscCheck(strcmp(model->springs[i].name, sp->name), rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: the spring name '%s' is used twice", rd->path,
                 (int)sp->line, sp->name);
    PetscCall(VIMBBodyRef(rd, model, e, "body1", "the spring's body1", &sp->body[0]));
    PetscCall(VIMBBodyRef(rd, model, e, "body2", "the spring's body2", &sp->body[1]));
    PetscCheck(sp->body[0] != sp->body[1], rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: spring '%s' joins the body '%s' to itself (name two bodies)",
               rd->path, (int)sp->line, sp->name, model->bodies[sp->body[0]].name);
    PetscCall(VIMBNodeRef(rd, model, e, "node1", "weights1", sp->body[0], &sp->phi[0]));
    PetscCall(VIMBNodeRef(rd, model, e, "node2", "weights2", sp->body[1], &sp->phi[1]));
    PetscCall(VIMBVector(rd, e, "point1", model->dim, PETSC_FALSE, sp->point[0]));
    PetscCall(VIMBVector(rd, e, "point2", model->dim, PETSC_FALSE, sp->point[1]));
    PetscCall(VIMBReal(rd, e, "stiffness", PETSC_TRUE, 0, &sp->k));
    PetscCall(VIMBReal(rd, e, "damping", PETSC_FALSE, 0, &sp->c));
    PetscCheck(sp->k >= 0 && sp->c >= 0, rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: spring '%s' has stiffness %g N/m and damping %g N s/m: both must be >= 0", rd->path,
               VIMBLine(VIMBGet(rd, e, sp->k < 0 ? "stiffness" : "damping")), sp->name, (double)sp->k, (double)sp->c);
    PetscCall(VIMBReal(rd, e, "length", PETSC_FALSE, -1, &sp->L0));
    PetscCheck(sp->L0 >= 0 || !VIMBGet(rd, e, "length"), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: spring '%s' has the free length %g m (expected >= 0; default: the points' initial distance)", rd->path,
               VIMBLine(VIMBGet(rd, e, "length")), sp->name, (double)sp->L0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIMBReadOutputs(VIMBReader *rd, VIMBModel *model, yaml_node_t *root)
{
  static const char *const keys[]  = {"name", "type", "body", "point", "node", "weights", "joint", "contact", "spring", NULL};
  static const char *const types[] = {"point",        "angle",       "joint_angle", "contact_force",
                                      "joint_force",  "energy",      "orientation", "angular_velocity",
                                      "spring_force", "joint_slide", "prescribed"};
  yaml_node_t             *seq;
  PetscInt                 k = 0;

  PetscFunctionBeginUser;
  PetscCall(VIMBSequence(rd, root, "outputs", &seq));
  model->noutputs = VIMBCount(seq);
  PetscCall(PetscCalloc1(PetscMax(model->noutputs, 1), &model->outputs));
  model->ncolumns = 0;
  if (!seq) PetscFunctionReturn(PETSC_SUCCESS);
  for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, k++) {
    yaml_node_t *e = VIMBNode(rd, *it);
    VIMBOutput  *o = &model->outputs[k];
    char         type[32], ref[VI_MB_NAME];
    PetscInt     t;
    PetscCall(VIMBCheckKeys(rd, e, "an output", keys));
    PetscCall(VIMBString(rd, e, "name", NULL, o->name, sizeof(o->name)));
    PetscCall(VIMBString(rd, e, "type", NULL, type, sizeof(type)));
    for (t = 0; t < 11; t++)
      if (!strcmp(type, types[t])) break;
    PetscCheck(model->dim == 3 ? t < 11 && t != 1 : t < 6 || (t >= 8 && t < 11), rd->comm, PETSC_ERR_USER_INPUT,
               "%s:%d: output '%s' has the type '%s' (expected %s)", rd->path, VIMBLine(e), o->name, type,
               model->dim == 3 ? "point, orientation, angular_velocity, joint_angle, joint_force, joint_slide, prescribed, contact_force, "
                                 "spring_force or energy: a spatial model's"
                               : "point, angle, joint_angle, joint_force, joint_slide, prescribed, contact_force, spring_force or energy");
    o->type    = (VIMBOutputType)t;
    o->columns = o->type == VI_MB_OUT_POINT ? 4 : (o->type == VI_MB_OUT_JOINT_FORCE || o->type == VI_MB_OUT_ANGLE ? 2 : 1);
    if (model->dim == 3) {
      const PetscBool one =
          o->type == VI_MB_OUT_ENERGY || o->type == VI_MB_OUT_CONTACT_FORCE || o->type == VI_MB_OUT_JOINT_ANGLE || o->type == VI_MB_OUT_SPRING_FORCE
              ? PETSC_TRUE
              : PETSC_FALSE;
      o->columns = o->type == VI_MB_OUT_POINT ? 6 : (o->type == VI_MB_OUT_ORIENTATION ? 4 : (one ? 1 : 3));
    }
    if (o->type == VI_MB_OUT_JOINT_SLIDE || o->type == VI_MB_OUT_PRESCRIBED) { /* NAME, NAME_rate */
      const VIMBJoint *j;
      o->columns = 2;
      PetscCall(VIMBString(rd, e, "joint", NULL, ref, sizeof(ref)));
      for (o->index = 0; o->index < model->njoints; o->index++)
        if (!strcmp(model->joints[o->index].name, ref)) break;
      PetscCheck(o->index < model->njoints, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: output '%s' names the joint '%s', which the model does not have",
                 rd->path, VIMBLine(e), o->name, ref);
      j = &model->joints[o->index];
      PetscCheck(o->type != VI_MB_OUT_JOINT_SLIDE || j->type == VI_MB_JOINT_PRISMATIC, rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: output '%s': a joint_slide is a prismatic joint's (the joint '%s' is not one)", rd->path, VIMBLine(e), o->name, ref);
      PetscCheck(o->type != VI_MB_OUT_JOINT_SLIDE || !j->nchain, rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: output '%s': the joint '%s' slides along a chain (a curve), it has no axis to record a slide along (give a point output of "
                 "its body2)",
                 rd->path, VIMBLine(e), o->name, ref);
      PetscCheck(o->type != VI_MB_OUT_PRESCRIBED || j->driven, rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: output '%s': 'prescribed' is a driven joint's (a driver, or a prismatic joint with a motion; the joint '%s' has none)",
                 rd->path, VIMBLine(e), o->name, ref);
    }
    if (o->type == VI_MB_OUT_ORIENTATION || o->type == VI_MB_OUT_ANGULAR_VELOCITY) {
      PetscCall(VIMBBodyRef(rd, model, e, "body", "the output's body", &o->body));
      PetscCheck(o->body > 0, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: output '%s' names the ground (name a moving body)", rd->path, VIMBLine(e),
                 o->name);
    }
    if (o->type == VI_MB_OUT_POINT || o->type == VI_MB_OUT_ANGLE) {
      PetscCall(VIMBBodyRef(rd, model, e, "body", "the output's body", &o->body));
      PetscCheck(o->body > 0 || model->dim == 2, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: output '%s' names the ground (name a moving body)", rd->path,
                 VIMBLine(e), o->name);
      PetscCall(VIMBVector(rd, e, "point", model->dim, PETSC_FALSE, o->point));
      PetscCall(VIMBNodeRef(rd, model, e, "node", "weights", o->body, &o->phi));
    }
    if (o->type == VI_MB_OUT_JOINT_ANGLE || o->type == VI_MB_OUT_JOINT_FORCE) {
      PetscCall(VIMBString(rd, e, "joint", NULL, ref, sizeof(ref)));
      for (o->index = 0; o->index < model->njoints; o->index++)
        if (!strcmp(model->joints[o->index].name, ref)) break;
      PetscCheck(o->index < model->njoints, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: output '%s' names the joint '%s', which the model does not have",
                 rd->path, VIMBLine(e), o->name, ref);
      if (o->type == VI_MB_OUT_JOINT_FORCE && model->joints[o->index].type == VI_MB_JOINT_DRIVER)
        o->columns = model->dim == 3 ? 4 : 1; /* its torque, N m (spatial: the reaction's x, y, z and the torque) */
      PetscCheck(o->type != VI_MB_OUT_JOINT_ANGLE || model->dim == 2 || model->joints[o->index].type == VI_MB_JOINT_REVOLUTE ||
                     model->joints[o->index].type == VI_MB_JOINT_DRIVER,
                 rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: output '%s': a spatial joint_angle is a revolute or driver joint's (the joint '%s' is not one)", rd->path, VIMBLine(e),
                 o->name, ref);
      if (o->type == VI_MB_OUT_JOINT_FORCE && model->dim == 3 && model->joints[o->index].type == VI_MB_JOINT_PRISMATIC)
        o->columns = 2; /* along n1, n2 */
      if (o->type == VI_MB_OUT_JOINT_FORCE && model->joints[o->index].type == VI_MB_JOINT_PRISMATIC && model->joints[o->index].driven)
        o->columns = 3; /* and NAME_drive, the driving force along the axis (N) */
    }
    if (o->type == VI_MB_OUT_SPRING_FORCE) {
      PetscCall(VIMBString(rd, e, "spring", NULL, ref, sizeof(ref)));
      for (o->index = 0; o->index < model->nsprings; o->index++)
        if (!strcmp(model->springs[o->index].name, ref)) break;
      PetscCheck(o->index < model->nsprings, rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: output '%s' names the spring '%s', which the model does not have", rd->path, VIMBLine(e), o->name, ref);
    }
    if (o->type == VI_MB_OUT_CONTACT_FORCE) {
      PetscCall(VIMBString(rd, e, "contact", NULL, ref, sizeof(ref)));
      for (o->index = 0; o->index < model->ncontacts; o->index++)
        if (!strcmp(model->contacts[o->index].name, ref)) break;
      PetscCheck(o->index < model->ncontacts, rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: output '%s' names the contact '%s', which the model does not have", rd->path, VIMBLine(e), o->name, ref);
      if (model->contacts[o->index].mu > 0) o->columns = model->dim; /* NAME, NAME_t (spatial NAME_t1, NAME_t2): normal, friction */
    }
    model->ncolumns += o->columns;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The joints' residual at the initial pose: refused beyond the tolerance, with the worst row. At the model's load (start
   PETSC_FALSE) every row but the driven ones' time part; at the run's start t0 (start PETSC_TRUE, VIMBModelSetStart) the
   driven rows, g - (phi(t0) - phi(t0)) and G u - phi'(t0). */
static PetscErrorCode VIMBCheckAssembly(MPI_Comm comm, VIMBModel *model, PetscBool start, PetscReal t0)
{
  PetscReal *q, *u, *grad;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(model->n, &q, model->n, &u, model->n, &grad));
  PetscCall(VIMBModelInitialState(model, q, u));
  for (PetscInt k = 0; k < model->njoints; k++) {
    const VIMBJoint *j = &model->joints[k];
    for (PetscInt r = j->row; r < j->row + j->rows; r++) {
      const PetscBool driven = j->driven && r == j->row + j->rows - 1 ? PETSC_TRUE : PETSC_FALSE;
      PetscReal       g, gv = 0;
      char            rated[256] = "";
      if (driven != start) continue;
      PetscCall(VIMBModelConstraint(model, r, q, &g, grad, 0, NULL));
      for (PetscInt i = 0; i < model->n; i++) gv += grad[i] * u[i];
      if (driven) { /* its driven row at t0: g - (phi(t0) - origin) (0), G u - phi'(t0) */
        PetscReal phi, rate;
        VIMBTimeFunctionEvaluate(&j->motion, t0, &phi, &rate, NULL);
        g -= phi;
        gv -= rate;
        PetscCall(PetscSNPrintf(rated, sizeof(rated), " (the driver's prescribed rate at t = %g is %.9g %s%s)", (double)t0, (double)rate,
                                j->type == VI_MB_JOINT_DRIVER ? "rad/s" : "m/s",
                                j->motion.npoints ? "; or clamp the table's end rates with 'motion_rates: [r0, r1]'" : ""));
      }
      PetscCheck(PetscAbsReal(g) <= model->tolerance, comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: the initial poses violate joint '%s': its row %" PetscInt_FMT " is %.3e (m or rad), more than assembly_tolerance %g; "
                 "move the bodies so that the joint's points coincide (or raise assembly_tolerance)",
                 model->path, j->line, j->name, r - j->row + 1, (double)g, (double)model->tolerance);
      PetscCheck(PetscAbsReal(gv) <= model->tolerance * 1e3, comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: the initial velocities violate joint '%s': its row %" PetscInt_FMT " has the rate %.3e; give velocities the joint allows%s",
                 model->path, j->line, j->name, r - j->row + 1, (double)gv, rated);
    }
  }
  PetscCall(PetscFree3(q, u, grad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The run starts at t0 with the model's initial state: each driver's motion takes its origin there (its coordinate changes
   by phi(t) - phi(t0)) and the initial velocities must give its rate phi'(t0). */
PetscErrorCode VIMBModelSetStart(MPI_Comm comm, VIMBModel *model, PetscReal t0)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < model->njoints; k++)
    if (model->joints[k].driven) VIMBTimeFunctionSetOrigin(&model->joints[k].motion, t0);
  PetscCall(VIMBCheckAssembly(comm, model, PETSC_TRUE, t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The 'parameters:' section, NAME: number, each replaced by the option -mb_param_NAME when given (a case parameter:
   -cases_grid mb_param_NAME:FROM:TO:N); an -mb_param_ option naming no parameter is refused. */
static PetscErrorCode VIMBReadParameters(VIMBReader *rd, VIMBModel *model, yaml_node_t *root)
{
  yaml_node_t *map = VIMBGet(rd, root, "parameters");
  const char  *all;
  char        *copy, *tok, *save = NULL;
  PetscInt     k = 0;

  PetscFunctionBeginUser;
  if (map) {
    PetscCheck(map->type == YAML_MAPPING_NODE, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: 'parameters' must be a mapping of 'name: number' lines",
               rd->path, VIMBLine(map));
    model->nparams = (PetscInt)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
    PetscCall(PetscCalloc2(PetscMax(model->nparams, 1), &model->param_names, PetscMax(model->nparams, 1), &model->param_values));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++, k++) {
      yaml_node_t *key = VIMBNode(rd, p->key), *v = VIMBNode(rd, p->value);
      const char  *name = (const char *)key->data.scalar.value;
      char         opt[VI_MB_NAME + 16], *end;
      PetscBool    set, ok = name[0] && (isalpha((unsigned char)name[0]) || name[0] == '_') && strlen(name) < VI_MB_NAME ? PETSC_TRUE : PETSC_FALSE;
      for (const char *c = name; *c && ok; c++) ok = isalnum((unsigned char)*c) || *c == '_' ? PETSC_TRUE : PETSC_FALSE;
      PetscCheck(key->type == YAML_SCALAR_NODE && ok, rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: the parameter name '%s' must be letters, digits and '_', starting with a letter or '_'", rd->path, VIMBLine(key), name);
      for (PetscInt i = 0; i < k; i++)
        PetscCheck(strcmp(model->param_names[i], name), rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: the parameter '%s' is given twice", rd->path,
                   VIMBLine(key), name);
      PetscCall(PetscStrncpy(model->param_names[k], name, VI_MB_NAME));
      PetscCheck(v->type == YAML_SCALAR_NODE, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: the parameter '%s' must be a number", rd->path, VIMBLine(v),
                 name);
      model->param_values[k] = strtod((const char *)v->data.scalar.value, &end);
      PetscCheck(end != (char *)v->data.scalar.value && !*end && !PetscIsInfOrNanReal(model->param_values[k]), rd->comm, PETSC_ERR_USER_INPUT,
                 "%s:%d: the parameter '%s: %s' is not a finite number", rd->path, VIMBLine(v), name, (const char *)v->data.scalar.value);
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mb_param_%s", name));
      PetscCall(PetscOptionsGetReal(NULL, NULL, opt, &model->param_values[k], &set));
    }
  }
  PetscCall(PetscOptionsGetAll(NULL, (char **)&all));
  PetscCall(PetscStrallocpy(all, &copy));
  PetscCall(PetscFree(all));
  for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    PetscBool found = PETSC_FALSE;
    if (strncmp(tok, "-mb_param_", 10)) continue;
    for (PetscInt i = 0; i < model->nparams && !found; i++) found = !strcmp(tok + 10, model->param_names[i]) ? PETSC_TRUE : PETSC_FALSE;
    if (!found) {
      char name[256];
      PetscCall(PetscStrncpy(name, tok, sizeof(name)));
      PetscCall(PetscFree(copy));
      SETERRQ(rd->comm, PETSC_ERR_USER_INPUT, "%s: the model file '%s' has no parameter '%s' (its 'parameters:' section%s)", name, rd->path,
              name + 10, model->nparams ? " names the others" : " is absent");
    }
  }
  PetscCall(PetscFree(copy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The document's sections, in the order their references need (bodies first). */
static PetscErrorCode VIMBRead(VIMBReader *rd, VIMBModel *model, yaml_node_t *root)
{
  static const char *const keys[] = {"parameters",         "dim", "gravity", "bodies", "joints", "contacts", "loads", "springs", "outputs",
                                     "assembly_tolerance", NULL};
  PetscReal                dim;

  PetscFunctionBeginUser;
  PetscCall(VIMBCheckKeys(rd, root, "the model", keys));
  PetscCall(VIMBReadParameters(rd, model, root));
  PetscCall(VIMBReal(rd, root, "dim", PETSC_FALSE, 2, &dim));
  PetscCheck(dim == 2 || dim == 3, rd->comm, PETSC_ERR_USER_INPUT, "%s:%d: 'dim: %g' (expected 2, planar, the default, or 3, spatial)", rd->path,
             VIMBLine(VIMBGet(rd, root, "dim")), (double)dim);
  model->dim = (PetscInt)dim;
  PetscCall(VIMBVector(rd, root, "gravity", model->dim, PETSC_FALSE, model->gravity));
  PetscCall(VIMBReal(rd, root, "assembly_tolerance", PETSC_FALSE, 1e-9, &model->tolerance));
  PetscCall(VIMBReadBodies(rd, model, root));
  PetscCall(VIMBReadJoints(rd, model, root));
  PetscCall(VIMBReadContacts(rd, model, root));
  PetscCall(VIMBReadLoads(rd, model, root));
  PetscCall(VIMBReadSprings(rd, model, root));
  PetscCall(VIMBReadOutputs(rd, model, root));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBModelLoad(MPI_Comm comm, const char path[], VIMBModel *model)
{
  FILE           *fp;
  yaml_parser_t   parser;
  yaml_document_t doc;
  yaml_node_t    *root;
  VIMBReader      rd = {comm, path, &doc, model};
  int             ok;
  PetscErrorCode  ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(model, sizeof(*model)));
  PetscCall(PetscStrncpy(model->path, path, sizeof(model->path)));
  fp = fopen(path, "r");
  PetscCheck(fp, comm, PETSC_ERR_USER_INPUT, "-mb_model: cannot open the model file '%s'", path);
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_file(&parser, fp);
  ok = yaml_parser_load(&parser, &doc);
  fclose(fp);
  if (!ok) {
    char msg[256];
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s", parser.problem ? parser.problem : "unreadable YAML"));
    int line = (int)parser.problem_mark.line + 1;
    yaml_parser_delete(&parser);
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s:%d: not valid YAML (%s)", path, line, msg);
  }
  yaml_parser_delete(&parser);
  root = yaml_document_get_root_node(&doc);
  if (!root) {
    yaml_document_delete(&doc);
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s: the model file is empty (docs/multibody.md shows one)", path);
  }
  ierr = VIMBRead(&rd, model, root);
  yaml_document_delete(&doc); /* on the error path too */
  PetscCall(ierr);
  model->n = 0;
  for (PetscInt b = 1; b < model->nbodies; b++) {
    model->bodies[b].off = model->n;
    model->bodies[b].nq  = (model->dim == 3 ? 7 : 3) + (model->bodies[b].flex ? model->bodies[b].flex->nf : 0);
    model->n += model->bodies[b].nq;
  }
  model->nrows = 0;
  for (PetscInt k = 0; k < model->njoints; k++) {
    model->joints[k].row = model->nrows;
    model->nrows += model->joints[k].rows;
  }
  model->qrow = model->nrows;
  if (model->dim == 3) model->nrows += model->nbodies - 1; /* the quaternions' norm rows */
  for (PetscInt k = 0; k < model->ncontacts; k++) model->contacts[k].row = model->nrows++;
  PetscCheck(model->nrows <= VI_MAX_CONTACTS, comm, PETSC_ERR_USER_INPUT, "%s: %" PetscInt_FMT " constraint rows, at most %d", path, model->nrows,
             VI_MAX_CONTACTS);
  for (PetscInt k = 0; k < model->njoints; k++) { /* a driven prismatic joint's slide at the start: its row's zero */
    VIMBJoint *j = &model->joints[k];
    PetscReal *q;
    if (j->type != VI_MB_JOINT_PRISMATIC || !j->driven) continue;
    PetscCall(PetscMalloc1(2 * model->n, &q));
    PetscCall(VIMBModelInitialState(model, q, q + model->n));
    PetscCall(VIMBModelConstraint(model, j->row + j->rows - 1, q, &j->slide0, NULL, 0, NULL));
    PetscCall(PetscFree(q));
  }
  PetscCall(VIMBCheckAssembly(comm, model, PETSC_FALSE, 0));
  if (model->nsprings) { /* the springs' free lengths by default, and no zero-length spring at the start (VIMBSpringLength refuses it) */
    PetscReal *q;
    PetscCall(PetscMalloc1(2 * model->n, &q));
    PetscCall(VIMBModelInitialState(model, q, q + model->n));
    for (PetscInt k = 0; k < model->nsprings; k++) {
      PetscReal      len  = 0;
      PetscErrorCode ierr = VIMBSpringLength(comm, model, k, q, &len);
      if (ierr) PetscCall(PetscFree(q));
      PetscCall(ierr);
      if (model->springs[k].L0 < 0) model->springs[k].L0 = len;
    }
    PetscCall(PetscFree(q));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBModelInitialState(const VIMBModel *model, PetscReal q[], PetscReal u[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(q, model->n));
  PetscCall(PetscArrayzero(u, model->n));
  for (PetscInt b = 1; b < model->nbodies; b++) {
    const VIMBFlex *fx = model->bodies[b].flex;
    for (PetscInt d = 0; d < (model->dim == 3 ? 7 : 3); d++) {
      q[model->bodies[b].off + d] = model->bodies[b].pose[d];
      u[model->bodies[b].off + d] = model->bodies[b].velocity[d];
    }
    if (fx && fx->q0) PetscCall(PetscArraycpy(q + model->bodies[b].off + (model->dim == 3 ? 7 : 3), fx->q0, fx->nf)); /* given or static */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBModelMass(const VIMBModel *model, const PetscReal q[], PetscReal M[])
{
  const PetscInt n     = model->n;
  PetscReal     *q0    = NULL, *Mb;
  PetscInt       nqmax = 3;

  PetscFunctionBeginUser;
  for (PetscInt b = 1; b < model->nbodies; b++) nqmax = PetscMax(nqmax, model->bodies[b].nq);
  if (!q) {
    PetscCall(PetscMalloc1(2 * n, &q0));
    PetscCall(VIMBModelInitialState(model, q0, q0 + n));
    q = q0;
  }
  PetscCall(PetscMalloc1(model->dim == 3 ? VIMBFlexSpatialWorkSize(nqmax) : nqmax * nqmax, &Mb));
  PetscCall(PetscArrayzero(M, n * n));
  for (PetscInt b = 1; b < model->nbodies; b++) {
    const VIMBBody *bd = &model->bodies[b];
    const PetscInt  i = bd->off, nq = bd->nq;
    if (model->dim == 3 && bd->flex) {
      VIMBFlexSpatialMass(bd->flex, q + i, Mb, NULL, Mb);
      for (PetscInt r = 0; r < nq; r++)
        for (PetscInt c = 0; c < nq; c++) M[(i + r) * n + i + c] = Mb[r * nq + c];
      continue;
    }
    if (model->dim == 3) {
      PetscReal Ms[49];
      VIMBSpatialMass(bd, q + i, Ms);
      for (PetscInt r = 0; r < 7; r++)
        for (PetscInt c = 0; c < 7; c++) M[(i + r) * n + i + c] = Ms[r * 7 + c];
      continue;
    }
    if (!bd->flex) {
      M[i * n + i] = M[(i + 1) * n + i + 1] = bd->mass;
      M[(i + 2) * n + i + 2]                = bd->inertia;
      continue;
    }
    VIMBFlexMass(bd->flex, q + i, Mb, NULL);
    for (PetscInt r = 0; r < nq; r++)
      for (PetscInt c = 0; c < nq; c++) M[(i + r) * n + i + c] = Mb[r * nq + c];
  }
  PetscCall(PetscFree(Mb));
  PetscCall(PetscFree(q0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMBModelFree(VIMBModel *model)
{
  PetscFunctionBeginUser;
  for (PetscInt b = 1; b < model->nbodies; b++) PetscCall(VIMBFlexDestroy(&model->bodies[b].flex));
  for (PetscInt k = 0; k < model->njoints; k++) {
    PetscCall(PetscFree(model->joints[k].phi[0]));
    PetscCall(PetscFree(model->joints[k].phi[1]));
  }
  for (PetscInt k = 0; k < model->njoints; k++) {
    PetscCall(VIMBTimeFunctionReset(&model->joints[k].motion));
    for (PetscInt i = 0; i < model->joints[k].nchain; i++) PetscCall(PetscFree(model->joints[k].chain_phi[i]));
    PetscCall(PetscFree2(model->joints[k].chain_x, model->joints[k].chain_phi));
  }
  for (PetscInt k = 0; k < model->nloads; k++)
    if (model->loads[k].factor) {
      PetscCall(VIMBTimeFunctionReset(model->loads[k].factor));
      PetscCall(PetscFree(model->loads[k].factor));
    }
  for (PetscInt k = 0; k < model->ncontacts; k++) {
    PetscCall(PetscFree(model->contacts[k].phi));
    PetscCall(PetscFree(model->contacts[k].line_phi[0]));
    PetscCall(PetscFree(model->contacts[k].line_phi[1]));
    for (PetscInt i = 0; i < model->contacts[k].nchain; i++) PetscCall(PetscFree(model->contacts[k].chain_phi[i]));
    PetscCall(PetscFree2(model->contacts[k].chain_x, model->contacts[k].chain_phi));
  }
  for (PetscInt k = 0; k < model->nsprings; k++) {
    PetscCall(PetscFree(model->springs[k].phi[0]));
    PetscCall(PetscFree(model->springs[k].phi[1]));
  }
  for (PetscInt k = 0; k < model->noutputs; k++) PetscCall(PetscFree(model->outputs[k].phi));
  PetscCall(PetscFree(model->bodies));
  PetscCall(PetscFree(model->joints));
  PetscCall(PetscFree(model->contacts));
  PetscCall(PetscFree(model->loads));
  PetscCall(PetscFree(model->springs));
  PetscCall(PetscFree(model->outputs));
  PetscCall(PetscFree2(model->param_names, model->param_values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Every row but a joint's angle row is g = d . (P_b - P_a): P_b = r_b + R_b p the point of body b, P_a = r_a + R_a c the
  point of body a, d a fixed direction of the plane (a revolute joint's x and y rows) or d = R_a n turning with body a (a
  contact's normal, a prismatic joint's normal to its axis). With D = P_b - P_a and primes the derivatives in the angles
  (R' v = R J v, R'' v = -R v):
    dg/dr_b = d, dg/dth_b = d . R_b' p, dg/dr_a = -d, dg/dth_a = d' . D - d . R_a' c,
  and the Hessian's non-zero entries th_b th_b: -d . R_b p; th_a th_b: d' . R_b' p; th_a r_b: d'; th_a r_a: -d';
  th_a th_a: d'' . D - 2 d' . R_a' c + d . R_a c (d'' = -d, or 0 for a fixed d).
*/
PetscErrorCode VIMBModelConstraint(const VIMBModel *model, PetscInt r, const PetscReal q[], PetscReal *g, PetscReal grad[], PetscReal w,
                                   PetscReal H[])
{
  const PetscInt         n = model->n;
  PetscInt               a, b, oa, ob;
  const PetscReal       *p, *c, *n0 = NULL, *phip = NULL, *phic = NULL;
  PetscReal              pe[2], ce[2];
  PetscReal              d[2] = {0, 0}, d1[2] = {0, 0}, ra[2] = {0, 0}, rb[2] = {0, 0}, tha = 0, thb = 0;
  PetscReal              Rp[2], Rp1[2], Rc[2], Rc1[2], D[2], nrm[2], ca, sa, cb, sb, shift = 0;

  PetscFunctionBeginUser;
  if (model->dim == 3) {
    PetscCall(VIMBSpatialConstraint(model, r, q, g, grad, w, H));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (grad) PetscCall(PetscArrayzero(grad, n));
  if (r < model->nrows - model->ncontacts) {
    const VIMBJoint *j = NULL;
    for (PetscInt k = 0; k < model->njoints && !j; k++) /* the joints' rows are consecutive ranges: one holds r */
      if (r >= model->joints[k].row && r < model->joints[k].row + model->joints[k].rows) j = &model->joints[k];
    a = j->body[0];
    b = j->body[1];
    if (j->nchain && r == j->row) { /* a prismatic joint's rail on a flexible body: point2 on the chain (mbchain.c) */
      VIMBContact rail;
      VIMBChainOfJoint(j, &rail);
      PetscCall(VIMBChainRow(model, &rail, q, g, grad, w, H));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if ((j->type == VI_MB_JOINT_FIXED && r == j->row + 2) || j->type == VI_MB_JOINT_DRIVER) {
      /* the angle row, linear: th_b - th_a - angle0 (a driver's - speed t is the system's: multibody.c) */
      PetscReal tb = b ? q[model->bodies[b].off + 2] : 0, ta = a ? q[model->bodies[a].off + 2] : 0;
      if (g) *g = tb - ta - j->angle0;
      if (grad && b) grad[model->bodies[b].off + 2] = 1;
      if (grad && a) grad[model->bodies[a].off + 2] = -1;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (j->type == VI_MB_JOINT_PRISMATIC && r == j->row + 1) {
      PetscReal tb = b ? q[model->bodies[b].off + 2] : 0, ta = a ? q[model->bodies[a].off + 2] : 0;
      if (g) *g = tb - ta - j->angle0;
      if (grad && b) grad[model->bodies[b].off + 2] = 1;
      if (grad && a) grad[model->bodies[a].off + 2] = -1;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    p    = j->point[1];
    c    = j->point[0];
    phip = j->phi[1];
    phic = j->phi[0];
    if (j->type == VI_MB_JOINT_PRISMATIC && r == j->row + 2) {
      n0    = j->axis; /* a driven prismatic joint's slide: point2's position along body 1's axis, less its initial one */
      shift = j->slide0;
    } else if (j->type == VI_MB_JOINT_PRISMATIC) {
      nrm[0] = -j->axis[1];
      nrm[1] = j->axis[0];
      n0     = nrm; /* the point of body 2 stays on body 1's axis through point1 */
    } else {
      d[0] = r == j->row ? 1 : 0;
      d[1] = r == j->row ? 0 : 1;
    }
  } else {
    const VIMBContact *k = &model->contacts[r - (model->nrows - model->ncontacts)];
    if (k->nchain) {
      PetscCall(VIMBChainRow(model, k, q, g, grad, w, H));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (k->two_point) {
      PetscCall(VIMBLineRow(model, k, q, g, grad, w, H));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    a                    = k->body[0];
    b                    = k->body[1];
    p                    = k->point;
    c                    = k->line_point;
    n0                   = k->line_normal;
    phip                 = k->phi;
  }
  oa = a ? model->bodies[a].off : 0;
  ob = b ? model->bodies[b].off : 0;
  /* a point of a flexible body: its deformed position in the frame, x + Phi_P q_f */
  pe[0] = p ? p[0] : 0;
  pe[1] = p ? p[1] : 0;
  ce[0] = c ? c[0] : 0;
  ce[1] = c ? c[1] : 0;
  if (phip) VIMBFlexDisplace(model->bodies[b].flex, phip, q + ob + 3, pe);
  if (phic) VIMBFlexDisplace(model->bodies[a].flex, phic, q + oa + 3, ce);
  if (a) {
    ra[0] = q[oa];
    ra[1] = q[oa + 1];
    tha   = q[oa + 2];
  }
  if (b) {
    rb[0] = q[ob];
    rb[1] = q[ob + 1];
    thb   = q[ob + 2];
  }
  VIMBBodyCosSin(model, a, tha, &ca, &sa);
  VIMBBodyCosSin(model, b, thb, &cb, &sb);
  if (n0) VIMBRotateCS(ca, sa, n0, d, d1);
  VIMBRotateCS(cb, sb, pe, Rp, Rp1);
  VIMBRotateCS(ca, sa, ce, Rc, Rc1);
  D[0] = rb[0] + Rp[0] - ra[0] - Rc[0];
  D[1] = rb[1] + Rp[1] - ra[1] - Rc[1];
  if (g) *g = d[0] * D[0] + d[1] * D[1] - shift;
  if (grad && b) {
    grad[ob]     = d[0];
    grad[ob + 1] = d[1];
    grad[ob + 2] = d[0] * Rp1[0] + d[1] * Rp1[1];
  }
  if (grad && a) {
    grad[oa]     = -d[0];
    grad[oa + 1] = -d[1];
    grad[oa + 2] = d1[0] * D[0] + d1[1] * D[1] - (d[0] * Rc1[0] + d[1] * Rc1[1]);
  }
  if (H && w != 0) {
    const PetscInt tb = ob + 2, ta = oa + 2;
    if (b) H[tb * n + tb] += w * -(d[0] * Rp[0] + d[1] * Rp[1]);
    if (a) {
      /* d'' = -d when d turns with body a, 0 when it is fixed */
      const PetscReal taa = (n0 ? -(d[0] * D[0] + d[1] * D[1]) : 0) - 2 * (d1[0] * Rc1[0] + d1[1] * Rc1[1]) + d[0] * Rc[0] + d[1] * Rc[1];
      H[ta * n + ta] += w * taa;
      for (PetscInt i = 0; i < 2; i++) {
        H[ta * n + oa + i] -= w * d1[i];
        H[(oa + i) * n + ta] -= w * d1[i];
      }
    }
    if (a && b) {
      const PetscReal tab = d1[0] * Rp1[0] + d1[1] * Rp1[1];
      H[ta * n + tb] += w * tab;
      H[tb * n + ta] += w * tab;
      for (PetscInt i = 0; i < 2; i++) {
        H[ta * n + ob + i] += w * d1[i];
        H[(ob + i) * n + ta] += w * d1[i];
      }
    }
  }
  /* the elastic coordinates of a flexible body's point: dP_b/dq_k = A_b Phi_k (row b), dP_a/dq_k = A_a Phi_k (row a, a joint's
     point: a line on a flexible body is the two-point line of mbpoint.c); their curvature with the angles: A' Phi_k */
  if (phip) {
    const VIMBFlex *fx = model->bodies[b].flex;
    for (PetscInt k = 0; k < fx->nf; k++) {
      const PetscReal ph[2] = {phip[k], phip[fx->nf + k]};
      PetscReal       e[2], e1[2];
      const PetscInt  qk = ob + 3 + k, tb = ob + 2, ta = oa + 2;
      VIMBRotateCS(cb, sb, ph, e, e1);
      if (grad) grad[qk] = d[0] * e[0] + d[1] * e[1];
      if (H && w != 0) {
        const PetscReal hb = w * (d[0] * e1[0] + d[1] * e1[1]), ha = w * (d1[0] * e[0] + d1[1] * e[1]);
        H[tb * n + qk] += hb;
        H[qk * n + tb] += hb;
        if (a && n0) {
          H[ta * n + qk] += ha;
          H[qk * n + ta] += ha;
        }
      }
    }
  }
  if (phic) {
    const VIMBFlex *fx = model->bodies[a].flex;
    for (PetscInt k = 0; k < fx->nf; k++) {
      const PetscReal ph[2] = {phic[k], phic[fx->nf + k]};
      PetscReal       e[2], e1[2];
      const PetscInt  qk = oa + 3 + k, ta = oa + 2;
      VIMBRotateCS(ca, sa, ph, e, e1);
      if (grad) grad[qk] = -(d[0] * e[0] + d[1] * e[1]);
      if (H && w != 0) {
        const PetscReal ha = -w * (d1[0] * e[0] + d1[1] * e[1] + d[0] * e1[0] + d[1] * e1[1]);
        H[ta * n + qk] += ha;
        H[qk * n + ta] += ha;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void VIMBModelRowBodies(const VIMBModel *model, PetscInt r, PetscInt *a, PetscInt *b)
{
  if (r >= model->nrows - model->ncontacts) {
    const VIMBContact *k = &model->contacts[r - (model->nrows - model->ncontacts)];
    *a                   = k->body[0];
    *b                   = k->body[1];
    return;
  }
  *a = *b = 0;
  for (PetscInt k = 0; k < model->njoints; k++)
    if (r >= model->joints[k].row && r < model->joints[k].row + model->joints[k].rows) {
      *a = model->joints[k].body[0];
      *b = model->joints[k].body[1];
    }
}

/* The tangential row of contact k: the velocity of its point on body b relative to the material point of body a under it,
   along the line's tangent t = J d (d the line's normal turned by a quarter): w_t = t . (v_b + om_b J R_b p - v_a -
   om_a J (P - r_a)), grad its coefficients (n). A velocity-level row (Coulomb's law acts on velocities and impulses). */
PetscErrorCode VIMBModelTangent(const VIMBModel *model, PetscInt k, const PetscReal q[], PetscReal grad[])
{
  const VIMBContact *c = &model->contacts[k];
  const PetscInt     a = c->body[0], b = c->body[1];
  PetscReal tha = a ? q[model->bodies[a].off + 2] : 0, thb = b ? q[model->bodies[b].off + 2] : 0, d[2], d1[2], Rp[2], Rp1[2], P[2], ra[2] = {0, 0},
            pe[2], ca, sa, cb, sb;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(grad, model->n));
  if (c->nchain) {
    PetscCall(VIMBChainTangent(model, c, q, grad));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (c->two_point) {
    PetscCall(VIMBLineTangent(model, c, q, grad));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  VIMBBodyCosSin(model, a, tha, &ca, &sa);
  VIMBBodyCosSin(model, b, thb, &cb, &sb);
  VIMBRotateCS(ca, sa, c->line_normal, d, d1); /* d1 = J d: the tangent */
  pe[0] = c->point[0];
  pe[1] = c->point[1];
  if (c->phi) VIMBFlexDisplace(model->bodies[b].flex, c->phi, q + model->bodies[b].off + 3, pe);
  VIMBRotateCS(cb, sb, pe, Rp, Rp1);
  if (a) {
    ra[0] = q[model->bodies[a].off];
    ra[1] = q[model->bodies[a].off + 1];
  }
  P[0] = (b ? q[model->bodies[b].off] : 0) + Rp[0];
  P[1] = (b ? q[model->bodies[b].off + 1] : 0) + Rp[1];
  if (b) {
    grad[model->bodies[b].off]     = d1[0];
    grad[model->bodies[b].off + 1] = d1[1];
    grad[model->bodies[b].off + 2] = d1[0] * Rp1[0] + d1[1] * Rp1[1];
  }
  if (c->phi) {
    const VIMBFlex *fx = model->bodies[b].flex;
    for (PetscInt k = 0; k < fx->nf; k++) {
      const PetscReal ph[2] = {c->phi[k], c->phi[fx->nf + k]};
      PetscReal       e[2], e1[2];
      VIMBRotateCS(cb, sb, ph, e, e1);
      grad[model->bodies[b].off + 3 + k] = d1[0] * e[0] + d1[1] * e[1];
    }
  }
  if (a) {
    grad[model->bodies[a].off]     = -d1[0];
    grad[model->bodies[a].off + 1] = -d1[1];
    grad[model->bodies[a].off + 2] = -(d1[0] * -(P[1] - ra[1]) + d1[1] * (P[0] - ra[0]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ROM view: n = 3 coordinates per body, 3 + nf per flexible body (all "boundary": nb = n, nm = 0), M at the initial
   poses (diag(m, m, J) per rigid body), K = D = 0, one
   contact entry per constraint row (bilateral for the joints' rows, offset = the row), the outputs' names with zero rows
   (the system computes them), SI units. */
PetscErrorCode VIMBModelROM(const VIMBModel *model, VIROM rom)
{
  const PetscInt n = model->n;
  PetscReal     *K, *M, *D, *zero;
  VIContactInfo *info;

  PetscFunctionBeginUser;
  PetscCall(VIROMSetSizes(rom, VI_CMS_CB, n, 0));
  PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
  PetscCall(VIMBModelMass(model, NULL, M));
  PetscCall(PetscCalloc1(PetscMax(model->nrows, 1), &info));
  for (PetscInt r = 0; r < model->nrows; r++) {
    info[r].node_id  = r + 1;
    info[r].dim      = 1;
    info[r].offset   = r < n ? r : 0;
    info[r].kind     = r < model->nrows - model->ncontacts ? VI_CONTACT_BILATERAL : VI_CONTACT_UNILATERAL;
    info[r].frame[0] = 1;
  }
  PetscCall(VIROMSetContacts(rom, model->nrows, info));
  PetscCall(PetscFree(info));
  PetscCall(PetscCalloc1(PetscMax(n, 1), &zero));
  for (PetscInt k = 0; k < model->noutputs; k++) {
    const VIMBOutput *o = &model->outputs[k];
    char              name[2 * VI_MB_NAME];
    if (o->type == VI_MB_OUT_JOINT_SLIDE || o->type == VI_MB_OUT_PRESCRIBED) {
      PetscCall(VIROMAddOutput(rom, o->name, zero));
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_rate", o->name));
      PetscCall(VIROMAddOutput(rom, name, zero));
    } else if (model->dim == 3 && o->type != VI_MB_OUT_ENERGY && o->type != VI_MB_OUT_CONTACT_FORCE && o->type != VI_MB_OUT_JOINT_ANGLE &&
               o->type != VI_MB_OUT_SPRING_FORCE) {
      static const char *const pt[] = {"x", "y", "z", "vx", "vy", "vz"}, *qt[] = {"e0", "e1", "e2", "e3"}, *ft[] = {"x", "y", "z", "torque"};
      for (PetscInt i = 0; i < o->columns; i++) {
        const PetscBool drive =
            o->type == VI_MB_OUT_JOINT_FORCE && model->joints[o->index].type == VI_MB_JOINT_PRISMATIC && i == 2 ? PETSC_TRUE : PETSC_FALSE;
        PetscCall(PetscSNPrintf(name, sizeof(name), "%s_%s", o->name,
                                o->type == VI_MB_OUT_ORIENTATION ? qt[i] : (o->type == VI_MB_OUT_JOINT_FORCE ? (drive ? "drive" : ft[i]) : pt[i])));
        PetscCall(VIROMAddOutput(rom, name, zero));
      }
    } else if (o->type == VI_MB_OUT_POINT) {
      static const char *const sfx[] = {"x", "y", "vx", "vy"};
      for (PetscInt i = 0; i < 4; i++) {
        PetscCall(PetscSNPrintf(name, sizeof(name), "%s_%s", o->name, sfx[i]));
        PetscCall(VIROMAddOutput(rom, name, zero));
      }
    } else if (o->type == VI_MB_OUT_ANGLE) {
      PetscCall(VIROMAddOutput(rom, o->name, zero));
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_rate", o->name));
      PetscCall(VIROMAddOutput(rom, name, zero));
    } else if (o->type == VI_MB_OUT_JOINT_FORCE && o->columns >= 2) { /* a driven prismatic joint's third: NAME_drive */
      for (PetscInt i = 0; i < o->columns; i++) {
        PetscCall(PetscSNPrintf(name, sizeof(name), "%s_%s", o->name, i == 2 ? "drive" : (i ? "y" : "x")));
        PetscCall(VIROMAddOutput(rom, name, zero));
      }
    } else
      PetscCall(VIROMAddOutput(rom, o->name, zero));
    for (PetscInt a = 1; o->type == VI_MB_OUT_CONTACT_FORCE && a < o->columns; a++) {
      if (o->columns == 2)
        PetscCall(PetscSNPrintf(name, sizeof(name), "%s_t", o->name));
      else
        PetscCall(PetscSNPrintf(name, sizeof(name), "%s_t%" PetscInt_FMT, o->name, a));
      PetscCall(VIROMAddOutput(rom, name, zero));
    }
  }
  PetscCall(PetscFree(zero));
  PetscCall(VIROMSetUnits(rom, "SI: positions m, velocities m/s, angles rad, forces N, energy J"));
  PetscCall(VIROMSetReduction(rom, model->path));
  PetscFunctionReturn(PETSC_SUCCESS);
}
