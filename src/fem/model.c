/* VIModel: the parent finite-element model — materials, clamps, DOF numbering and parallel assembly of K and M. */
#include "femimpl.h"
#include <petscsf.h>
#include <vicms/sys.h>

PetscErrorCode VIModelCreate(MPI_Comm comm, VIModel *model)
{
  VIModel m;

  PetscFunctionBeginUser;
  PetscCall(VIInitializePackage());
  PetscCall(PetscNew(&m));
  m->comm = comm;
  PetscCall(PetscStrncpy(m->default_mat.name, "options", sizeof(m->default_mat.name)));
  m->default_mat.poisson = 0.3;
  *model                 = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIModelFreeHeldElements(VIModel);

PetscErrorCode VIModelDestroy(VIModel *model)
{
  VIModel m;

  PetscFunctionBeginUser;
  if (!model || !*model) PetscFunctionReturn(PETSC_SUCCESS);
  m = *model;
  PetscCall(MatDestroy(&m->K));
  PetscCall(MatDestroy(&m->M));
  PetscCall(PetscFree(m->lnode));
  PetscCall(PetscFree(m->lnode_dof));
  PetscCall(VIModelFreeHeldElements(m));
  PetscCall(PetscLayoutDestroy(&m->dir_layout));
  PetscCall(PetscFree3(m->row_node, m->row_dir, m->row_copy));
  for (PetscInt i = 0; i < m->num_clamp_sets; i++) PetscCall(PetscFree(m->clamp_sets[i]));
  PetscCall(PetscFree(m));
  *model = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelSetMesh(VIModel model, VIMesh mesh)
{
  PetscFunctionBeginUser;
  model->mesh = mesh;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelGetMesh(VIModel model, VIMesh *mesh)
{
  PetscFunctionBeginUser;
  *mesh = model->mesh;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIModelSetIntegration - the quadrature of the element matrices: VI_INTEGRATION_CALCULIX (default) gives each element
  name the rule of CalculiX and Abaqus, VI_INTEGRATION_FULL vicms's exact rules.

  Logically collective; before VIModelSetUp.
*/
PetscErrorCode VIModelSetIntegration(VIModel model, VIIntegration integration)
{
  PetscFunctionBeginUser;
  PetscCheck(!model->setup, model->comm, PETSC_ERR_ORDER, "Set the integration before VIModelSetUp()");
  PetscCheck(integration == VI_INTEGRATION_CALCULIX || integration == VI_INTEGRATION_FULL, model->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Unknown integration %d", (int)integration);
  model->integration = integration;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelSetOptionsPrefix(VIModel model, const char prefix[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(model->prefix, prefix ? prefix : "", sizeof(model->prefix)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelSetFromOptions(VIModel model)
{
  VIMaterial *mat          = &model->default_mat;
  PetscBool   has_matrices = PETSC_FALSE, has_format = PETSC_FALSE, has_dofs = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscOptionsBegin(model->comm, model->prefix[0] ? model->prefix : NULL, "Parent model", "VIModel");
  PetscCall(PetscOptionsReal("-model_young", "Young's modulus of elements without a section (generated and .msh meshes)", "VIModelSetFromOptions",
                             mat->young, &mat->young, &model->young_set));
  PetscCall(PetscOptionsReal("-model_poisson", "Poisson's ratio of elements without a section", "VIModelSetFromOptions", mat->poisson, &mat->poisson,
                             NULL));
  PetscCall(PetscOptionsReal("-model_density", "Density of elements without a section", "VIModelSetFromOptions", mat->density, &mat->density,
                             &model->density_set));
  model->num_clamp_sets = VI_MAX_CLAMP_SETS;
  PetscCall(PetscOptionsStringArray("-model_clamp", "Node sets whose DOFs are fixed, e.g. zmin or start (added to the deck's *BOUNDARY)",
                                    "VIModelSetFromOptions", model->clamp_sets, &model->num_clamp_sets, NULL));
  PetscCall(PetscOptionsBool("-model_lumped_mass", "Use a lumped (HRZ) mass matrix instead of the consistent one", "VIModelSetFromOptions",
                             model->lumped, &model->lumped, NULL));
  PetscCall(PetscOptionsEnum(
      "-model_integration",
      "Quadrature of the element stiffness and mass: calculix = the rule CalculiX/Abaqus use for each element name (C3D4 1 "
      "point, C3D10 4, C3D6 2, C3D15 9, C3D8 8, C3D20 27, CPS3/CPE3 1), full = vicms's exact rules (C3D4 4, C3D10 14, C3D6 6, C3D15 21, CPS3/CPE3 3)",
      "VIModelSetIntegration", VIIntegrations, (PetscEnum)model->integration, (PetscEnum *)&model->integration, NULL));
  PetscCall(PetscOptionsString("-parent_matrices",
                               "The parent as matrices exported by another FE code instead of assembled from the mesh: JOB (CalculiX JOB.sti, "
                               "JOB.mas, JOB.dof) or K,M (Matrix Market, Abaqus *MATRIX GENERATE); the mesh file gives the nodes and node sets",
                               "VIModelSetUp", model->parent_matrices, model->parent_matrices, sizeof(model->parent_matrices), &has_matrices));
  PetscCall(PetscOptionsEnum("-parent_format",
                             "Format of -parent_matrices: ccx (default for one name), mtx (with -parent_dofs), abaqus (default for K,M without "
                             "-parent_dofs)",
                             "VIModelSetUp", VIParentFormats, (PetscEnum)model->parent_format, (PetscEnum *)&model->parent_format, &has_format));
  PetscCall(PetscOptionsString("-parent_dofs", "DOF map of Matrix Market matrices: one line 'NODE DIRECTION' per row (direction 1..6)",
                               "VIModelSetUp", model->parent_dofs, model->parent_dofs, sizeof(model->parent_dofs), &has_dofs));
  PetscOptionsEnd();
  PetscCheck(has_matrices || (!has_format && !has_dofs), model->comm, PETSC_ERR_USER_INPUT,
             "-%sparent_format and -%sparent_dofs describe -%sparent_matrices, which is not given", model->prefix, model->prefix, model->prefix);
  if (has_matrices) {
    PetscCheck(model->parent_matrices[0], model->comm, PETSC_ERR_USER_INPUT, "-%sparent_matrices: give JOB (CalculiX) or K,M files", model->prefix);
    if (!has_format) model->parent_format = strchr(model->parent_matrices, ',') ? (has_dofs ? VI_PARENT_MTX : VI_PARENT_ABAQUS) : VI_PARENT_CCX;
    PetscCheck(model->parent_format != VI_PARENT_ASSEMBLED, model->comm, PETSC_ERR_USER_INPUT,
               "-%sparent_format assembled: the matrices of -%sparent_matrices need their format, ccx, mtx or abaqus", model->prefix, model->prefix);
    PetscCheck(!has_dofs || model->parent_format == VI_PARENT_MTX, model->comm, PETSC_ERR_USER_INPUT,
               "-%sparent_dofs: only Matrix Market matrices take a DOF map (CalculiX has JOB.dof, Abaqus labels its entries)", model->prefix);
    PetscCheck(!model->lumped, model->comm, PETSC_ERR_USER_INPUT, "-%smodel_lumped_mass: the mass of -%sparent_matrices is the exporter's",
               model->prefix, model->prefix);
    /* the mesh gives the nodes and the sets; the elements are the exporter's */
    if (model->mesh) PetscCall(VIMeshSetNodesOnly(model->mesh, PETSC_TRUE));
  }
  if (model->young_set)
    PetscCheck(mat->young > 0, model->comm, PETSC_ERR_USER_INPUT, "-%smodel_young: got %g, expected a positive Young's modulus", model->prefix,
               (double)mat->young);
  if (model->density_set)
    PetscCheck(mat->density > 0, model->comm, PETSC_ERR_USER_INPUT, "-%smodel_density: got %g, expected a positive density", model->prefix,
               (double)mat->density);
  PetscCheck(mat->poisson > -1 && mat->poisson < 0.5, model->comm, PETSC_ERR_USER_INPUT, "-%smodel_poisson: got %g, expected a value in (-1, 0.5)",
             model->prefix, (double)mat->poisson);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The element list this rank assembles: every element has a material (from the mesh or the options). Collective. */
static PetscErrorCode VIModelCheckMaterials(VIModel model)
{
  const PetscInt *local;
  PetscInt        nlocal;
  PetscInt        missing = 0, any;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetLocalElements(model->mesh, &nlocal, &local));
  for (PetscInt i = 0; i < nlocal && !missing; i++) {
    const VIMaterial *mat;
    PetscCall(VIMeshGetElementMaterial(model->mesh, local[i], &mat, NULL));
    if (!mat) missing = 1;
  }
  PetscCallMPI(MPI_Allreduce(&missing, &any, 1, MPIU_INT, MPI_MAX, model->comm));
  PetscCheck(!any || (model->young_set && model->density_set), model->comm, PETSC_ERR_USER_INPUT,
             "Some elements have no material from the mesh file: give -%smodel_young and -%smodel_density (and -%smodel_poisson, default 0.3)",
             model->prefix, model->prefix, model->prefix);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The clamps of the nodes this rank holds: the deck's and the -model_clamp sets', clamped[l * dim + d]. */
static PetscErrorCode VIModelCollectClamps(VIModel model, PetscBool clamped[])
{
  VIMesh          mesh = model->mesh;
  const PetscInt *deck;
  PetscInt        dim = model->dim, ndeck, l;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetClamps(mesh, &ndeck, &deck));
  PetscCall(PetscArrayzero(clamped, model->num_lnodes * dim));
  for (PetscInt i = 0; i < ndeck; i++) {
    PetscCall(PetscFindInt(deck[i] / dim, model->num_lnodes, model->lnode, &l));
    if (l >= 0) clamped[l * dim + deck[i] % dim] = PETSC_TRUE;
  }
  for (PetscInt s = 0; s < model->num_clamp_sets; s++) {
    PetscInt        n;
    const PetscInt *nodes;
    char            option[96];
    PetscCall(PetscSNPrintf(option, sizeof(option), "-%smodel_clamp", model->prefix));
    PetscCall(VIMeshRequireNodeSet(mesh, option, model->clamp_sets[s], &n, &nodes));
    for (PetscInt i = 0; i < n; i++) {
      PetscCall(PetscFindInt(nodes[i], model->num_lnodes, model->lnode, &l));
      for (PetscInt d = 0; d < dim && l >= 0; d++) clamped[l * dim + d] = PETSC_TRUE;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The nodes of the elements elems[0..ne) appended to *list (capacity *cap, length *len). */
static PetscErrorCode VIModelAppendElementNodes(VIMesh mesh, PetscInt ne, const PetscInt elems[], PetscInt *len, PetscInt *cap, PetscInt **list)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < ne; i++) {
    PetscInt        nen;
    const PetscInt *nodes;
    PetscCall(VIMeshGetElement(mesh, elems[i], NULL, &nen, &nodes));
    if (*len + nen > *cap) {
      *cap = PetscMax(2 * *cap, *len + nen + 1024);
      PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)*cap, list));
    }
    for (PetscInt k = 0; k < nen; k++) (*list)[(*len)++] = nodes[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The PetscSF from n global nodes (leaf i) to their entries of a directory array (root: a node of the directory layout's
   block of this rank); a node's entry is one PetscInt (VIModelNodeOwners) or dim of them (VIModelDofUnit). */
static PetscErrorCode VIModelDirectorySF(VIModel model, PetscInt n, const PetscInt nodes[], PetscSF *sf)
{
  PetscSFNode    *remote;
  PetscInt        nroots;
  const PetscInt *range;
  PetscMPIInt     r = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscLayoutGetLocalSize(model->dir_layout, &nroots));
  PetscCall(PetscLayoutGetRanges(model->dir_layout, &range));
  PetscCall(PetscMalloc1(n, &remote));
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(nodes[i] >= 0 && nodes[i] < model->num_nodes, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Node index %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", nodes[i], model->num_nodes);
    PetscCall(PetscLayoutFindOwner(model->dir_layout, nodes[i], &r));
    remote[i].rank  = r;
    remote[i].index = nodes[i] - range[r];
  }
  PetscCall(PetscSFCreate(model->comm, sf));
  PetscCall(PetscSFSetGraph(*sf, nroots, n, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(*sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MPI type of a node's DOFs: dim PetscInt (free with MPI_Type_free) */
static PetscErrorCode VIModelDofUnit(VIModel model, MPI_Datatype *unit)
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)model->dim, MPIU_INT, unit));
  PetscCallMPI(MPI_Type_commit(unit));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* owner[l] = the lowest rank of the elements of node[l], from the directory of owners dir_owner (the directory's block) */
/* out[l] = the directory's entry (of MPI type unit) of nodes[l], from dir (this rank's block). Collective. */
static PetscErrorCode VIModelDirectoryBcast(VIModel model, MPI_Datatype unit, const PetscInt dir[], PetscInt n, const PetscInt nodes[],
                                            PetscInt out[])
{
  PetscSF sf;

  PetscFunctionBeginUser;
  PetscCall(VIModelDirectorySF(model, n, nodes, &sf));
  PetscCall(PetscSFBcastBegin(sf, unit, dir, out, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, unit, dir, out, MPI_REPLACE));
  PetscCall(PetscSFDestroy(&sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIModelNodeOwners(VIModel model, PetscInt *dir_owner, PetscInt n, const PetscInt node[], PetscMPIInt owner[])
{
  PetscInt *o;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n, &o));
  PetscCall(VIModelDirectoryBcast(model, MPIU_INT, dir_owner, n, node, o));
  for (PetscInt l = 0; l < n; l++) owner[l] = (PetscMPIInt)o[l];
  PetscCall(PetscFree(o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The halo's elements: each rank sends each of its elements, as a record [nen, nodes...], to the owners (other than itself) of
   its nodes (list[0..len) ascending: this rank's elements' nodes, owner: their owners); *recv gets the records sent to this
   rank, the other ranks' elements around the nodes it owns, *nrecv entries in all (by sender rank, then element). One
   PetscSF round: no rank reads an element it does not own, nor the node-to-element map of the whole mesh. Collective. */
static PetscErrorCode VIModelSendHaloElements(VIModel model, PetscInt len, const PetscInt list[], const PetscMPIInt owner[], PetscInt *nrecv,
                                              PetscInt **recv)
{
  VIMesh          mesh = model->mesh;
  const PetscInt *local;
  PetscInt        nlocal, npairs = 0, cap = 0, *dest = NULL, *elem = NULL, *tocounts, *send, nsend = 0;
  PetscMPIInt     rank, nto = 0, *toranks;
  PetscSF         sf;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(model->comm, &rank));
  PetscCall(VIMeshGetLocalElements(mesh, &nlocal, &local));
  /* the pairs (destination, element): an element once to each other owner of its nodes */
  for (PetscInt i = 0; i < nlocal; i++) {
    PetscInt        nen, first = npairs;
    const PetscInt *nodes;
    PetscCall(VIMeshGetElement(mesh, local[i], NULL, &nen, &nodes));
    for (PetscInt k = 0; k < nen; k++) {
      PetscInt  l;
      PetscBool seen = PETSC_FALSE;
      PetscCall(PetscFindInt(nodes[k], len, list, &l));
      if (owner[l] == rank) continue;
      for (PetscInt p = first; p < npairs && !seen; p++) seen = (PetscBool)(dest[p] == owner[l]);
      if (seen) continue;
      if (npairs == cap) {
        cap = PetscMax(2 * cap, 1024);
        PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)cap, &dest));
        PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)cap, &elem));
      }
      dest[npairs]   = owner[l];
      elem[npairs++] = i;
    }
  }
  /* grouped by destination, each group in element order */
  PetscCall(PetscSortIntWithArray(npairs, dest, elem));
  for (PetscInt p = 0, q; p < npairs; p = q) {
    for (q = p; q < npairs && dest[q] == dest[p]; q++) {}
    PetscCall(PetscSortInt(q - p, elem + p));
    nto++;
  }
  PetscCall(PetscMalloc2(PetscMax(nto, 1), &toranks, PetscMax(nto, 1), &tocounts));
  for (PetscInt p = 0, k = -1; p < npairs; p++) {
    PetscInt nen;
    PetscCall(VIMeshGetElement(mesh, local[elem[p]], NULL, &nen, NULL));
    if (!p || dest[p] != dest[p - 1]) {
      toranks[++k] = (PetscMPIInt)dest[p];
      tocounts[k]  = 0;
    }
    tocounts[k] += 1 + nen;
    nsend += 1 + nen;
  }
  PetscCall(PetscMalloc1(PetscMax(nsend, 1), &send));
  for (PetscInt p = 0, c = 0; p < npairs; p++) {
    PetscInt        nen;
    const PetscInt *nodes;
    PetscCall(VIMeshGetElement(mesh, local[elem[p]], NULL, &nen, &nodes));
    send[c++] = nen;
    for (PetscInt k = 0; k < nen; k++) send[c++] = nodes[k];
  }
  PetscCall(PetscFree(dest));
  PetscCall(PetscFree(elem));
  PetscCall(VISFCreateSend(model->comm, nto, toranks, tocounts, &sf));
  PetscCall(PetscFree2(toranks, tocounts));
  PetscCall(PetscSFGetGraph(sf, NULL, nrecv, NULL, NULL));
  PetscCall(PetscMalloc1(PetscMax(*nrecv, 1), recv));
  PetscCall(PetscSFBcastBegin(sf, MPIU_INT, send, *recv, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, send, *recv, MPI_REPLACE));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree(send));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The held elements (this rank's, then the halo's records recv[0..nrecv)) as positions in list[0..nl), and the held nodes'
   elements: model->helem_*, model->lnode_elem_* (femimpl.h), freed by VIModelFreeHeldElements. Not collective. */
static PetscErrorCode VIModelHeldElements(VIModel model, PetscInt nl, const PetscInt list[], PetscInt nrecv, const PetscInt recv[])
{
  VIMesh          mesh = model->mesh;
  const PetscInt *local;
  PetscInt        nlocal, nhalo = 0, nconn = 0, ne, c = 0, *count;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetLocalElements(mesh, &nlocal, &local));
  for (PetscInt k = 0; k < nrecv; k += 1 + recv[k]) nhalo++;
  for (PetscInt i = 0; i < nlocal; i++) {
    PetscInt nen;
    PetscCall(VIMeshGetElement(mesh, local[i], NULL, &nen, NULL));
    nconn += nen;
  }
  nconn += nrecv - nhalo;
  ne                = nlocal + nhalo;
  model->num_helems = ne;
  PetscCall(PetscMalloc2(ne + 1, &model->helem_off, PetscMax(nconn, 1), &model->helem_node));
  model->helem_off[0] = 0;
  for (PetscInt e = 0, k = 0; e < ne; e++) {
    PetscInt        nen;
    const PetscInt *nodes;
    if (e < nlocal)
      PetscCall(VIMeshGetElement(mesh, local[e], NULL, &nen, &nodes));
    else {
      nen   = recv[k];
      nodes = recv + k + 1;
      k += 1 + nen;
    }
    for (PetscInt j = 0; j < nen; j++) {
      PetscInt l;
      PetscCall(PetscFindInt(nodes[j], nl, list, &l));
      PetscCheck(l >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Node %" PetscInt_FMT " of a held element is not held", nodes[j]);
      model->helem_node[c++] = l;
    }
    model->helem_off[e + 1] = c;
  }
  /* the held nodes' elements (CSR by position in list) */
  PetscCall(PetscCalloc1(nl + 1, &count));
  for (PetscInt k = 0; k < nconn; k++) count[model->helem_node[k] + 1]++;
  for (PetscInt l = 0; l < nl; l++) count[l + 1] += count[l];
  PetscCall(PetscMalloc2(nl + 1, &model->lnode_elem_off, PetscMax(nconn, 1), &model->lnode_elem));
  PetscCall(PetscArraycpy(model->lnode_elem_off, count, nl + 1));
  for (PetscInt e = 0; e < ne; e++)
    for (PetscInt k = model->helem_off[e]; k < model->helem_off[e + 1]; k++) model->lnode_elem[count[model->helem_node[k]]++] = e;
  PetscCall(PetscFree(count));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIModelFreeHeldElements(VIModel model)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(model->helem_off, model->helem_node));
  PetscCall(PetscFree2(model->lnode_elem_off, model->lnode_elem));
  model->num_helems = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Node ownership and equation numbers. A node belongs to the lowest rank among the owners of its elements; each rank
  numbers the free DOFs of its nodes contiguously, in node order (the numbering of the replicated map this replaces, so
  the matrices are bitwise the same). Each rank holds the map of its elements' nodes and of the elements around the nodes
  it owns; the ghosts' DOFs come from their owners through the DOF directory (VIModelSetNodeMap).
*/
static PetscErrorCode VIModelNumberDofs(VIModel model)
{
  VIMesh          mesh = model->mesh;
  const PetscInt *local;
  PetscMPIInt     rank;
  PetscInt        dim, nn, nlocal, len = 0, cap = 0, nl, nfree = 0, rstart = 0, total, *list = NULL, *dof, nd, *dir_owner, nrecv, *recv;
  PetscMPIInt    *owner;
  PetscBool      *clamped;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(model->comm, &rank));
  PetscCall(VIMeshGetDimension(mesh, &dim));
  PetscCall(VIMeshGetSizes(mesh, &nn, NULL));
  model->dim       = dim;
  model->num_nodes = nn;
  /* the nodes of this rank's elements, then with the elements around the nodes it owns */
  PetscCall(VIMeshGetLocalElements(mesh, &nlocal, &local));
  for (PetscInt i = 0, kept = 0; i < nlocal; i += 4096) {
    PetscCall(VIModelAppendElementNodes(mesh, PetscMin(4096, nlocal - i), local + i, &len, &cap, &list));
    if (len > 2 * kept + 65536 || i + 4096 >= nlocal) { /* the list stays within about twice its nodes */
      PetscCall(PetscSortRemoveDupsInt(&len, list));
      kept = len;
    }
  }
  /* a node's owner: the lowest rank among its elements', reduced into the directory from each rank's elements' nodes */
  PetscCall(PetscLayoutDestroy(&model->dir_layout));
  PetscCall(PetscLayoutCreateFromSizes(model->comm, PETSC_DECIDE, nn, 1, &model->dir_layout));
  PetscCall(PetscLayoutGetLocalSize(model->dir_layout, &nd));
  PetscCall(PetscMalloc1(nd, &dir_owner));
  for (PetscInt i = 0; i < nd; i++) dir_owner[i] = PETSC_MAX_INT;
  {
    PetscSF   sf;
    PetscInt *me;
    PetscCall(PetscMalloc1(len, &me));
    for (PetscInt l = 0; l < len; l++) me[l] = rank;
    PetscCall(VIModelDirectorySF(model, len, list, &sf));
    PetscCall(PetscSFReduceBegin(sf, MPIU_INT, me, dir_owner, MPI_MIN));
    PetscCall(PetscSFReduceEnd(sf, MPIU_INT, me, dir_owner, MPI_MIN));
    PetscCall(PetscSFDestroy(&sf));
    PetscCall(PetscFree(me));
  }
  PetscCall(PetscMalloc1(len, &owner));
  PetscCall(VIModelNodeOwners(model, dir_owner, len, list, owner));
  /* the halo: the nodes of the other ranks' elements around the nodes this rank owns, sent by the elements' owners (this
     rank's elements' nodes are in) */
  PetscCall(VIModelSendHaloElements(model, len, list, owner, &nrecv, &recv));
  if (len + nrecv > cap) {
    cap = len + nrecv;
    PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)PetscMax(cap, 1), &list));
  }
  for (PetscInt k = 0; k < nrecv; k += 1 + recv[k])
    for (PetscInt j = 1; j <= recv[k]; j++) list[len++] = recv[k + j];
  PetscCall(PetscFree(owner));
  PetscCall(PetscSortRemoveDupsInt(&len, list));
  nl = len;
  PetscCall(PetscMalloc1(nl, &owner));
  PetscCall(VIModelNodeOwners(model, dir_owner, nl, list, owner));
  PetscCall(PetscFree(dir_owner));
  PetscCall(VIModelHeldElements(model, nl, list, nrecv, recv));
  PetscCall(PetscFree(recv));
  PetscCall(PetscMalloc1(nl * dim, &dof));
  model->num_lnodes = nl;
  model->lnode      = list;
  PetscCall(PetscMalloc1(nl * dim, &clamped));
  PetscCall(VIModelCollectClamps(model, clamped));
  for (PetscInt l = 0; l < nl; l++) {
    if (owner[l] != rank) continue;
    for (PetscInt d = 0; d < dim; d++) {
      if (!clamped[l * dim + d]) nfree++;
    }
  }
  PetscCallMPI(MPI_Exscan(&nfree, &rstart, 1, MPIU_INT, MPI_SUM, model->comm));
  if (rank == 0) rstart = 0;
  PetscCallMPI(MPI_Allreduce(&nfree, &total, 1, MPIU_INT, MPI_SUM, model->comm));
  for (PetscInt l = 0, next = rstart; l < nl; l++)
    for (PetscInt d = 0; d < dim; d++) dof[l * dim + d] = owner[l] != rank ? -2 : (clamped[l * dim + d] ? -1 : next++);
  PetscCall(PetscFree(clamped));
  model->rstart     = rstart;
  model->num_local  = nfree;
  model->num_global = total;
  model->lnode      = NULL; /* VIModelSetNodeMap takes list over */
  model->num_lnodes = 0;
  /* the directory's nodes no rank holds: the nodes of no element */
  PetscCall(VIModelSetNodeMap(model, nl, list, owner, dof, &model->num_orphans));
  PetscCall(PetscFree(owner));
  if (model->num_orphans) PetscCall(PetscInfo(NULL, "%" PetscInt_FMT " nodes belong to no element and carry no DOF\n", model->num_orphans));
  PetscCheck(model->num_global > 0, model->comm, PETSC_ERR_USER_INPUT, "Every DOF of the model is clamped: check *BOUNDARY and -model_clamp");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The DOF directory: the DOFs of the directory layout's block of global nodes (dir_layout), -1 clamped, -2 for a node not in
   any rank's list; written from n nodes and their DOFs (dofs, n x dim) of each rank, whose ranks agree on a node's DOFs (so
   that MPI_REPLACE, which PetscSF supports for a block of dim integers, gives the same whatever the order). Collective; the
   caller frees *dir. */
static PetscErrorCode VIModelBuildDirectory(VIModel model, PetscInt n, const PetscInt nodes[], const PetscInt dofs[], PetscInt **dir)
{
  PetscInt     dim = model->dim, nroots;
  PetscSF      sf;
  MPI_Datatype unit;

  PetscFunctionBeginUser;
  PetscCall(PetscLayoutGetLocalSize(model->dir_layout, &nroots));
  PetscCall(PetscMalloc1(PetscMax(nroots * dim, 1), dir));
  for (PetscInt i = 0; i < nroots * dim; i++) (*dir)[i] = -2;
  PetscCall(VIModelDofUnit(model, &unit));
  PetscCall(VIModelDirectorySF(model, n, nodes, &sf));
  PetscCall(PetscSFReduceBegin(sf, unit, dofs, *dir, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, unit, dofs, *dir, MPI_REPLACE));
  PetscCall(PetscSFDestroy(&sf));
  PetscCallMPI(MPI_Type_free(&unit));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dofs[l * dim + d] = the directory's entry of nodes[l] (dir: this rank's block, from VIModelBuildDirectory). Collective. */
static PetscErrorCode VIModelReadDirectory(VIModel model, const PetscInt dir[], PetscInt n, const PetscInt nodes[], PetscInt dofs[])
{
  MPI_Datatype unit;

  PetscFunctionBeginUser;
  PetscCall(VIModelDofUnit(model, &unit));
  PetscCall(VIModelDirectoryBcast(model, unit, dir, n, nodes, dofs));
  PetscCallMPI(MPI_Type_free(&unit));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelSetNodeMap(VIModel model, PetscInt nl, PetscInt lnode[], const PetscMPIInt lnode_owner[], PetscInt lnode_dof[],
                                 PetscInt *num_unheld)
{
  PetscMPIInt  rank;
  PetscInt     dim = model->dim, nroots, nown = 0, *own, *own_dof, *dir, clamped = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(model->comm, &rank));
  PetscCall(PetscFree(model->lnode));
  PetscCall(PetscFree(model->lnode_dof));
  model->num_lnodes = nl;
  model->lnode      = lnode;
  model->lnode_dof  = lnode_dof;
  if (!model->dir_layout) PetscCall(PetscLayoutCreateFromSizes(model->comm, PETSC_DECIDE, model->num_nodes, 1, &model->dir_layout));
  /* the owners write their nodes' DOFs (-1 clamped) into the directory; then every holder reads its nodes' back */
  for (PetscInt l = 0; l < nl; l++)
    if (lnode_owner[l] == rank) nown++;
  PetscCall(PetscMalloc2(PetscMax(nown, 1), &own, PetscMax(nown * dim, 1), &own_dof));
  for (PetscInt l = 0, k = 0; l < nl; l++) {
    if (lnode_owner[l] != rank) continue;
    own[k] = lnode[l];
    for (PetscInt d = 0; d < dim; d++) {
      own_dof[k * dim + d] = lnode_dof[l * dim + d];
      if (own_dof[k * dim + d] == -1) clamped++;
    }
    k++;
  }
  PetscCallMPI(MPI_Allreduce(&clamped, &model->num_clamped, 1, MPIU_INT, MPI_SUM, model->comm));
  PetscCall(VIModelBuildDirectory(model, nown, own, own_dof, &dir));
  PetscCall(PetscFree2(own, own_dof));
  PetscCall(VIModelReadDirectory(model, dir, nl, lnode, lnode_dof));
  if (num_unheld) {
    PetscInt unheld = 0;
    PetscCall(PetscLayoutGetLocalSize(model->dir_layout, &nroots));
    for (PetscInt i = 0; i < nroots; i++)
      if (dir[i * dim] == -2) unheld++;
    PetscCallMPI(MPI_Allreduce(&unheld, num_unheld, 1, MPIU_INT, MPI_SUM, model->comm));
  }
  PetscCall(PetscFree(dir));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelFindLocalNode(VIModel model, PetscInt node, PetscInt *l)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFindInt(node, model->num_lnodes, model->lnode, l));
  if (*l < 0) *l = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Exact nonzero counts per owned row: DOFs of the nodes that share an element with the row's node. */
static PetscErrorCode VIModelPreallocate(VIModel model, Mat A, PetscBool diagonal_only)
{
  PetscInt *d_nnz, *o_nnz, *stamp, dim = model->dim;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc2(model->num_local + 1, &d_nnz, model->num_local + 1, &o_nnz));
  if (diagonal_only) {
    for (PetscInt i = 0; i < model->num_local; i++) d_nnz[i] = 1;
  } else {
    PetscCall(PetscMalloc1(model->num_lnodes, &stamp));
    for (PetscInt l = 0; l < model->num_lnodes; l++) stamp[l] = -1;
    for (PetscInt l = 0; l < model->num_lnodes; l++) {
      PetscInt dn = 0, on = 0;
      if (!VIModelOwnsNode(model, l)) continue; /* a node of clamped DOFs only has no rows */
      /* the elements around an owned node are held: this rank's and the halo (VIModelSendHaloElements) */
      for (PetscInt q = model->lnode_elem_off[l]; q < model->lnode_elem_off[l + 1]; q++) {
        PetscInt e = model->lnode_elem[q];
        for (PetscInt k = model->helem_off[e]; k < model->helem_off[e + 1]; k++) {
          PetscInt j = model->helem_node[k];
          if (stamp[j] == l) continue;
          stamp[j] = l;
          for (PetscInt d = 0; d < dim; d++) {
            PetscInt col = model->lnode_dof[j * dim + d];
            if (col < 0) continue;
            if (col >= model->rstart && col < model->rstart + model->num_local)
              dn++;
            else
              on++;
          }
        }
      }
      for (PetscInt d = 0; d < dim; d++) {
        PetscInt row = model->lnode_dof[l * dim + d];
        if (row < 0) continue;
        d_nnz[row - model->rstart] = dn;
        o_nnz[row - model->rstart] = on;
      }
    }
    PetscCall(PetscFree(stamp));
  }
  PetscCall(MatXAIJSetPreallocation(A, 1, d_nnz, o_nnz, NULL, NULL));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscFree2(d_nnz, o_nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIModelCreateMatrix(VIModel model, PetscBool diagonal_only, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreate(model->comm, A));
  PetscCall(MatSetSizes(*A, model->num_local, model->num_local, model->num_global, model->num_global));
  PetscCall(MatSetType(*A, MATAIJ));
  /* Block size 1, as MatXAIJSetPreallocation(A, 1, ...) sets it (it overrode a MatSetBlockSize(dim) made here before). Measured
     with node blocks of 3 (issue 26): GAMG's CG iterations per solve of vicms modes -modes_solver iterative rose on a clamped
     3x3x12 hex8 box (21.5 -> 25.2 on average), 10x10x30 (24.9 -> 25.6), and the Rotor 37 blade's first solve (855 -> 877 on 2
     ranks), while K times the blade's six rigid-body modes is 6e-19 to 3e-18 of |K|_F |v| (the near null space is right). */
  PetscCall(VIModelPreallocate(model, *A, diagonal_only));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Element loop over this rank's elements; an error in one element (e.g. inverted) is shared before the collective assembly. */
static PetscErrorCode VIModelAssembleElements(VIModel model)
{
  VIMesh           mesh = model->mesh;
  const PetscReal *xyz;
  const PetscInt  *local;
  PetscInt         nlocal, dim = model->dim, idx[VI_MAX_ELEMENT_DOFS];
  PetscReal        coords[VI_MAX_ELEMENT_NODES * 3], Ke[VI_MAX_ELEMENT_DOFS * VI_MAX_ELEMENT_DOFS], Me[VI_MAX_ELEMENT_DOFS * VI_MAX_ELEMENT_DOFS];
  PetscReal        mass = 0;
  PetscErrorCode   ierr = PETSC_SUCCESS;
  const PetscInt  *ids;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetCoordinates(mesh, &xyz));
  PetscCall(VIMeshGetLocalElements(mesh, &nlocal, &local));
  PetscCall(VIMeshGetNodeIds(mesh, &ids));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  for (PetscInt i = 0; i < nlocal && !ierr; i++) {
    PetscInt          e = local[i], nen, ndof, first = -1;
    const PetscInt   *nodes;
    const VIMaterial *mat;
    VIElementType     type;
    PetscReal         thickness, volume;

    ierr = VIMeshGetElement(mesh, e, &type, &nen, &nodes);
    if (!ierr) ierr = VIMeshGetElementMaterial(mesh, e, &mat, &thickness);
    if (ierr) break;
    if (!mat) mat = &model->default_mat;
    for (PetscInt k = 0; k < nen; k++) {
      PetscInt l, h;
      ierr = PetscFindInt(nodes[k], model->num_lnodes, model->lnode, &l);
      if (!ierr) ierr = VIMeshFindHeldNode(mesh, nodes[k], &h); /* the mesh holds its elements' nodes (in parts too) */
      if (ierr) break;
      if (k == 0) first = ids[h];
      for (PetscInt d = 0; d < dim; d++) {
        coords[k * dim + d] = xyz[h * dim + d];
        idx[k * dim + d]    = model->lnode_dof[l * dim + d];
      }
    }
    if (ierr) break;
    ndof = nen * dim;
    ierr = VIElementMatricesIntegrated(type, model->integration, dim, coords, mat, thickness, model->lumped, Ke, Me, &volume);
    if (ierr) {
      const char *text = NULL, *specific = NULL;
      PetscErrorMessage(ierr, &text, (char **)&specific);
      PetscCall(PetscPopErrorHandler());
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL,
                        "Element %" PetscInt_FMT " (%s, first node %" PetscInt_FMT "): %s", e + 1, VIElementInfoTable[type].name, first,
                        specific ? specific : (text ? text : "invalid element"));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      break;
    }
    mass += mat->density * volume;
    ierr = MatSetValues(model->K, ndof, idx, ndof, idx, Ke, ADD_VALUES);
    if (ierr) break;
    if (model->lumped) {
      for (PetscInt k = 0; k < ndof && !ierr; k++) ierr = MatSetValue(model->M, idx[k], idx[k], Me[k * ndof + k], ADD_VALUES);
    } else
      ierr = MatSetValues(model->M, ndof, idx, ndof, idx, Me, ADD_VALUES);
  }
  PetscCall(PetscPopErrorHandler());
  PetscCall(VIErrorSync(model->comm, ierr));
  PetscCallMPI(MPI_Allreduce(&mass, &model->total_mass, 1, MPIU_REAL, MPIU_SUM, model->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelSetUp(VIModel model)
{
  PetscFunctionBeginUser;
  if (model->setup) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(model->mesh, model->comm, PETSC_ERR_ORDER, "Call VIModelSetMesh() before VIModelSetUp()");
  if (model->parent_format != VI_PARENT_ASSEMBLED) {
    PetscCall(VIMeshSetUp(model->mesh));
    PetscCall(VIModelSetUpParent(model));
    model->setup = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VIMeshSetUp(model->mesh));
  PetscCall(VIModelCheckMaterials(model));
  PetscCall(VIModelNumberDofs(model));

  PetscCall(PetscLogEventBegin(VI_Assemble, 0, 0, 0, 0));
  PetscCall(VIModelCreateMatrix(model, PETSC_FALSE, &model->K));
  PetscCall(VIModelCreateMatrix(model, model->lumped, &model->M));
  PetscCall(VIModelFreeHeldElements(model)); /* the preallocation's only: freed before the assembly's stash */
  PetscCall(VIModelAssembleElements(model));
  PetscCall(MatAssemblyBegin(model->K, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(model->M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(model->K, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(model->M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(model->K, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(model->M, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(model->K, MAT_SPD, PETSC_FALSE));
  PetscCall(PetscLogEventEnd(VI_Assemble, 0, 0, 0, 0));
  model->setup = PETSC_TRUE;
  {
    PetscLogDouble rss, mesh_bytes, map_bytes = (PetscLogDouble)model->num_lnodes * (1 + model->dim) * sizeof(PetscInt);
    PetscCall(PetscMemoryGetCurrentUsage(&rss));
    PetscCall(VIMeshGetMemoryUsage(model->mesh, &mesh_bytes));
    /* per global DOF: the mesh's arrays (of global size while the mesh is replicated) and the node-to-DOF map of the nodes
       this rank holds (which falls with ranks; docs/scale.md) */
    PetscCall(PetscInfo(NULL,
                        "Model on this rank: %" PetscInt_FMT " of %" PetscInt_FMT " DOFs owned, node-to-DOF map of %" PetscInt_FMT
                        " of %" PetscInt_FMT
                        " nodes; mesh arrays %.1f B and node-to-DOF map %.1f B per global DOF; resident memory after assembly %.1f MiB\n",
                        model->num_local, model->num_global, model->num_lnodes, model->num_nodes, mesh_bytes / model->num_global,
                        map_bytes / model->num_global, rss / 1048576.0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelGetMatrices(VIModel model, Mat *K, Mat *M)
{
  PetscFunctionBeginUser;
  PetscCheck(model->setup, model->comm, PETSC_ERR_ORDER, "Call VIModelSetUp() first");
  if (K) *K = model->K;
  if (M) *M = model->M;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelGetNodeDofs(VIModel model, PetscInt n, const PetscInt nodes[], PetscInt dofs[])
{
  PetscInt *dir;

  PetscFunctionBeginUser;
  PetscCheck(model->dir_layout, model->comm, PETSC_ERR_ORDER, "Call VIModelSetUp() first");
  /* the directory is built for the look-up and freed: its memory falls with ranks, but the look-ups are few */
  PetscCall(VIModelBuildDirectory(model, model->num_lnodes, model->lnode, model->lnode_dof, &dir));
  PetscCall(VIModelReadDirectory(model, dir, n, nodes, dofs));
  PetscCall(PetscFree(dir));
  for (PetscInt i = 0; i < n * model->dim; i++) dofs[i] = PetscMax(dofs[i], -1); /* a node of no element: no DOF */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelPointDirectory(VIModel model, PetscReal **dir_x, PetscInt **dir_id, PetscBool **held)
{
  PetscMPIInt     rank;
  PetscInt        nroots, nw = 0, *held_id, *written;
  PetscReal      *held_x;
  const PetscInt *range;
  PetscSF         sf;
  MPI_Datatype    point;

  PetscFunctionBeginUser;
  PetscCheck(model->dir_layout, model->comm, PETSC_ERR_ORDER, "Call VIModelSetUp() first");
  PetscCallMPI(MPI_Comm_rank(model->comm, &rank));
  PetscCall(PetscLayoutGetLocalSize(model->dir_layout, &nroots));
  PetscCall(PetscLayoutGetRanges(model->dir_layout, &range));
  /* the holders write the points of the nodes they hold into the directory (a node's holders write the same bits): the model's
     held nodes that the mesh holds too (a mesh in parts: this rank's elements' nodes, not the halo's; every node of an element
     is so written by its element's owner) */
  PetscCall(
      PetscMalloc3(PetscMax(3 * model->num_lnodes, 1), &held_x, PetscMax(model->num_lnodes, 1), &held_id, PetscMax(model->num_lnodes, 1), &written));
  PetscCall(PetscMalloc3(PetscMax(3 * nroots, 1), dir_x, PetscMax(nroots, 1), dir_id, PetscMax(nroots, 1), held));
  for (PetscInt l = 0; l < model->num_lnodes; l++) {
    PetscInt h;
    PetscCall(VIMeshFindHeldNode(model->mesh, model->lnode[l], &h));
    if (h < 0) continue;
    PetscCall(VIMeshGetNodePoint(model->mesh, model->lnode[l], held_x + 3 * nw, held_id + nw));
    written[nw++] = model->lnode[l];
  }
  for (PetscInt i = 0; i < nroots; i++) (*dir_id)[i] = -1;
  PetscCallMPI(MPI_Type_contiguous(3, MPIU_REAL, &point));
  PetscCallMPI(MPI_Type_commit(&point));
  PetscCall(VIModelDirectorySF(model, nw, written, &sf));
  PetscCall(PetscSFReduceBegin(sf, point, held_x, *dir_x, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, point, held_x, *dir_x, MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, held_id, *dir_id, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, held_id, *dir_id, MPI_REPLACE));
  PetscCall(PetscSFDestroy(&sf));
  PetscCallMPI(MPI_Type_free(&point));
  PetscCall(PetscFree3(held_x, held_id, written));
  /* a node no rank holds (of no element, or of no row of a parent given as matrices; a replicated mesh): its directory rank reads
     the mesh */
  for (PetscInt i = 0; i < nroots; i++) {
    (*held)[i] = (PetscBool)((*dir_id)[i] >= 0);
    if (!(*held)[i]) PetscCall(VIMeshGetNodePoint(model->mesh, range[rank] + i, *dir_x + 3 * i, *dir_id + i));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelGetNodeCoordinates(VIModel model, PetscInt n, const PetscInt nodes[], PetscReal coords[], PetscInt ids[])
{
  PetscInt    *dir_id;
  PetscReal   *dir_x;
  PetscBool   *held;
  PetscSF      sf;
  MPI_Datatype point;

  PetscFunctionBeginUser;
  PetscCall(VIModelPointDirectory(model, &dir_x, &dir_id, &held));
  PetscCallMPI(MPI_Type_contiguous(3, MPIU_REAL, &point));
  PetscCallMPI(MPI_Type_commit(&point));
  PetscCall(VIModelDirectorySF(model, n, nodes, &sf));
  if (coords) {
    PetscCall(PetscSFBcastBegin(sf, point, dir_x, coords, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(sf, point, dir_x, coords, MPI_REPLACE));
  }
  if (ids) {
    PetscCall(PetscSFBcastBegin(sf, MPIU_INT, dir_id, ids, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(sf, MPIU_INT, dir_id, ids, MPI_REPLACE));
  }
  PetscCall(PetscSFDestroy(&sf));
  PetscCallMPI(MPI_Type_free(&point));
  PetscCall(PetscFree3(dir_x, dir_id, held));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelGetNumDofs(VIModel model, PetscInt *num_local, PetscInt *num_global)
{
  PetscFunctionBeginUser;
  if (num_local) *num_local = model->num_local;
  if (num_global) *num_global = model->num_global;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelGetTotalMass(VIModel model, PetscReal *mass)
{
  PetscFunctionBeginUser;
  *mass = model->total_mass;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelGetRigidTranslation(VIModel model, PetscInt d, Vec u)
{
  PetscInt     rstart, rend;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecSet(u, 0));
  PetscCall(VecGetOwnershipRange(u, &rstart, &rend));
  PetscCall(VecGetArray(u, &a));
  if (model->parent_format != VI_PARENT_ASSEMBLED) {
    /* the mean of a node's direction and its other rows all move by 1 (parent.c) */
    for (PetscInt r = 0; r < rend - rstart; r++)
      if (model->row_dir[r] == d) a[r] = 1;
  } else
    for (PetscInt l = 0; l < model->num_lnodes; l++) {
      PetscInt dof = d < model->dim ? model->lnode_dof[l * model->dim + d] : -1;
      if (dof >= rstart && dof < rend) a[dof - rstart] = 1;
    }
  PetscCall(VecRestoreArray(u, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Node rows [row0, row0 + nrows) of rank r: the r-th of size contiguous blocks of the num_nodes rows. */
PetscErrorCode VIModelCreateNodalScatter(VIModel model, Vec u, PetscInt *row0, PetscInt *nrows, Vec *nodal, VecScatter *scatter)
{
  PetscMPIInt rank, size;
  PetscInt    nn = model->num_nodes, dim = model->dim, n = 0, *from, *to, count;
  IS          isfrom, isto;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(model->comm, &rank));
  PetscCallMPI(MPI_Comm_size(model->comm, &size));
  *row0  = (PetscInt)(((PetscInt64)nn * rank) / size);
  *nrows = (PetscInt)(((PetscInt64)nn * (rank + 1)) / size) - *row0;
  PetscCall(VecCreateMPI(model->comm, 3 * *nrows, 3 * nn, nodal));
  PetscCall(VecSet(*nodal, 0)); /* clamped DOFs and directions beyond dim stay zero */
  /* this rank's DOFs to their nodal entries 3 i + d (of any rank's block) */
  count = model->num_local;
  PetscCall(PetscMalloc1(count, &from));
  PetscCall(PetscMalloc1(count, &to));
  for (PetscInt l = 0; l < model->num_lnodes; l++) {
    for (PetscInt d = 0; d < dim; d++) {
      PetscInt dof = model->lnode_dof[l * dim + d];
      if (dof < model->rstart || dof >= model->rstart + model->num_local) continue; /* clamped, or a ghost's */
      from[n] = dof;
      to[n++] = 3 * model->lnode[l] + d;
    }
  }
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, from, PETSC_OWN_POINTER, &isfrom));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, to, PETSC_OWN_POINTER, &isto));
  PetscCall(VecScatterCreate(u, isfrom, *nodal, isto, scatter));
  PetscCall(ISDestroy(&isto));
  PetscCall(ISDestroy(&isfrom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelView(VIModel model, PetscViewer viewer)
{
  PetscInt    minl, maxl, nclamped = 0;
  PetscMPIInt size;
  MatInfo     info;
  PetscBool   parent;

  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(model->comm, &viewer));
  PetscCallMPI(MPI_Comm_size(model->comm, &size));
  PetscCallMPI(MPI_Allreduce(&model->num_local, &minl, 1, MPIU_INT, MPI_MIN, model->comm));
  PetscCallMPI(MPI_Allreduce(&model->num_local, &maxl, 1, MPIU_INT, MPI_MAX, model->comm));
  nclamped = model->num_clamped;
  PetscCall(MatGetInfo(model->K, MAT_GLOBAL_SUM, &info));
  parent = (PetscBool)(model->parent_format != VI_PARENT_ASSEMBLED);
  PetscCall(PetscViewerASCIIPrintf(
      viewer,
      "Model: %" PetscInt_FMT " DOFs (%" PetscInt_FMT " clamped), %s mass, total mass %g, K has %.0f nonzeros; DOFs per rank %" PetscInt_FMT
      "..%" PetscInt_FMT " on %d rank%s; %s%s\n",
      model->num_global, nclamped, parent ? "exported" : (model->lumped ? "lumped" : "consistent"), (double)model->total_mass, info.nz_used, minl,
      maxl, size, size > 1 ? "s" : "", parent ? "the exporter's elements" : VIIntegrations[model->integration], parent ? "" : " integration"));
  if (model->parent_format != VI_PARENT_ASSEMBLED)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "Parent matrices (%s) %s: %" PetscInt_FMT " rows in the files, %" PetscInt_FMT
                                     " on node directions of several rows (each such node moves by their mean), %" PetscInt_FMT
                                     " rotations; the total mass above is the mass moving with a rigid translation along x\n",
                                     VIParentFormats[model->parent_format], model->parent_matrices, model->parent_rows, model->parent_repeated,
                                     model->parent_other));
  PetscFunctionReturn(PETSC_SUCCESS);
}
