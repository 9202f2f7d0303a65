/* One body cut from a shared mesh file: the elements of an element set, their nodes (file ids kept), sets and clamps. */
#include "meshimpl.h"

/* The names of the sets, comma-separated, into list. */
static PetscErrorCode VISetNames(PetscInt n, const VISet sets[], char list[], size_t len)
{
  PetscFunctionBeginUser;
  list[0] = 0;
  for (PetscInt k = 0; k < n; k++) {
    if (k) PetscCall(PetscStrlcat(list, ", ", len));
    PetscCall(PetscStrlcat(list, sets[k].name, len));
  }
  if (!n) PetscCall(PetscStrncpy(list, "(none)", len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Map the items of each set through map (-1: dropped); sets left empty go. */
static PetscErrorCode VISetsRestrict(PetscInt *num, VISet sets[], const PetscInt map[])
{
  PetscInt kept = 0;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < *num; s++) {
    VISet   *set = &sets[s];
    PetscInt n   = 0;
    for (PetscInt i = 0; i < set->n; i++)
      if (map[set->items[i]] >= 0) set->items[n++] = map[set->items[i]];
    set->n = n;
    if (!n) {
      PetscCall(PetscFree(set->items));
      continue;
    }
    if (kept != s) sets[kept] = *set;
    kept++;
  }
  *num = kept;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMeshRestrictToElementSet(VIMesh mesh)
{
  const char  *file = mesh->num_files ? mesh->files[0] : mesh->path;
  const VISet *set  = NULL;
  PetscInt     dim = mesh->dim, nn = 0, ne = 0, conn = 0, start = 0, *node_map, *elem_map;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < mesh->num_esets && !set; s++) {
    PetscBool same;
    PetscCall(PetscStrcasecmp(mesh->esets[s].name, mesh->elset, &same));
    if (same) set = &mesh->esets[s];
  }
  if (!set) {
    char list[1024];
    PetscCall(VISetNames(mesh->num_esets, mesh->esets, list, sizeof(list)));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-%smesh_elset: element set '%s' is not in %s; its element sets are: %s", mesh->prefix,
            mesh->elset, file, list);
  }
  PetscCheck(set->n > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-%smesh_elset: element set '%s' of %s is empty", mesh->prefix, mesh->elset, file);

  /* the set's elements and nodes */
  PetscCall(PetscMalloc2(mesh->num_nodes, &node_map, mesh->num_elems, &elem_map));
  for (PetscInt i = 0; i < mesh->num_nodes; i++) node_map[i] = -1;
  for (PetscInt e = 0; e < mesh->num_elems; e++) elem_map[e] = -1;
  for (PetscInt i = 0; i < set->n; i++) {
    PetscInt e  = set->items[i];
    elem_map[e] = 0;
    for (PetscInt k = mesh->elem_offset[e]; k < mesh->elem_offset[e + 1]; k++) node_map[mesh->elem_conn[k]] = 0;
  }
  /* bodies are coupled through contact only: a node shared with the rest of the file would tie the body to it */
  for (PetscInt e = 0; e < mesh->num_elems; e++) {
    if (!elem_map[e]) continue;
    for (PetscInt k = mesh->elem_offset[e]; k < mesh->elem_offset[e + 1]; k++) {
      PetscInt node = mesh->elem_conn[k];
      if (node_map[node]) continue;
      {
        char     list[512] = "";
        PetscInt id = mesh->node_ids[node], eid = mesh->elem_ids[e];
        for (PetscInt s = 0; s < mesh->num_esets; s++) {
          PetscInt pos;
          PetscCall(PetscFindInt(e, mesh->esets[s].n, mesh->esets[s].items, &pos));
          if (pos < 0) continue;
          PetscCall(PetscStrlcat(list, list[0] ? ", " : " (element set ", sizeof(list)));
          PetscCall(PetscStrlcat(list, mesh->esets[s].name, sizeof(list)));
        }
        if (list[0]) PetscCall(PetscStrlcat(list, ")", sizeof(list)));
        PetscCall(PetscFree2(node_map, elem_map));
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                "-%smesh_elset: element set '%s' of %s shares node %" PetscInt_FMT " with element %" PetscInt_FMT
                "%s outside it; bodies are coupled only through contact, so the element set of a body must have nodes of its own",
                mesh->prefix, mesh->elset, file, id, eid, list);
      }
    }
  }

  /* nodes: the set's, in id order (ids stay sorted); indices renumbered */
  for (PetscInt i = 0; i < mesh->num_nodes; i++) {
    if (node_map[i] < 0) continue;
    node_map[i]        = nn;
    mesh->node_ids[nn] = mesh->node_ids[i];
    for (PetscInt d = 0; d < dim; d++) mesh->coords[dim * nn + d] = mesh->coords[dim * i + d];
    nn++;
  }
  /* the clamped DOFs of the set's nodes, renumbered (ascending still: the renumbering keeps the nodes' order) */
  for (PetscInt k = 0, kept = 0, n = mesh->num_clamped; k < n; k++) {
    PetscInt node = node_map[mesh->clamp_dofs[k] / dim];
    if (node >= 0) mesh->clamp_dofs[kept++] = node * dim + mesh->clamp_dofs[k] % dim;
    mesh->num_clamped = kept;
  }
  /* elements: the set's, in file order */
  for (PetscInt e = 0; e < mesh->num_elems; e++) {
    PetscInt end = mesh->elem_offset[e + 1];
    if (elem_map[e] == 0) {
      elem_map[e]            = ne;
      mesh->elem_ids[ne]     = mesh->elem_ids[e];
      mesh->elem_type[ne]    = mesh->elem_type[e];
      mesh->elem_section[ne] = mesh->elem_section[e];
      if (mesh->elem_src) mesh->elem_src[ne] = mesh->elem_src[e];
      for (PetscInt k = start; k < end; k++) mesh->elem_conn[conn++] = node_map[mesh->elem_conn[k]];
      mesh->elem_offset[++ne] = conn;
    }
    start = end;
  }
  mesh->num_nodes = nn;
  mesh->num_elems = ne;
  mesh->conn_size = conn;
  PetscCall(VISetsRestrict(&mesh->num_nsets, mesh->nsets, node_map));
  PetscCall(VISetsRestrict(&mesh->num_esets, mesh->esets, elem_map));
  PetscCall(PetscFree2(node_map, elem_map));
  PetscFunctionReturn(PETSC_SUCCESS);
}
