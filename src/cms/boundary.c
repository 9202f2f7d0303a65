/* The contact boundary: contact nodes, their local frames, the rotation of the parent model into those frames. */
#include "cmsimpl.h"

static PetscReal VIDot3(const PetscReal a[3], const PetscReal b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Unit vector along v minus its component along unit n (n may be NULL); fails when what is left is tiny. */
static PetscErrorCode VIOrthonormalize(const PetscReal v[3], const PetscReal n[3], PetscReal out[3], PetscBool *ok)
{
  PetscReal len, vn = n ? VIDot3(v, n) : 0, vlen = PetscSqrtReal(VIDot3(v, v));

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) out[d] = v[d] - (n ? vn * n[d] : 0);
  len = PetscSqrtReal(VIDot3(out, out));
  *ok = (len > 1e-8 * vlen && len > 0) ? PETSC_TRUE : PETSC_FALSE;
  if (*ok)
    for (PetscInt d = 0; d < 3; d++) out[d] /= len;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frame rows (normal, t1, t2) of one contact node in a dim-dimensional model; stored padded to 3 x 3. */
static PetscErrorCode VICMSContactFrame(VICMS cms, PetscInt dim, PetscInt id, const PetscReal x[3], PetscReal frame[9])
{
  PetscReal n[3], t1[3], hint[3] = {0, 0, 0};
  PetscBool ok;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(frame, 9));
  if (cms->radial) {
    PetscReal axis[3], r[3];
    PetscCall(VIOrthonormalize(cms->radial_axis, NULL, axis, &ok));
    PetscCheck(ok, cms->comm, PETSC_ERR_USER_INPUT, "-cms_contact_radial_axis: the axis is a zero vector");
    for (PetscInt d = 0; d < 3; d++) r[d] = x[d] - cms->radial_origin[d];
    PetscCall(VIOrthonormalize(r, axis, n, &ok));
    PetscCheck(ok, cms->comm, PETSC_ERR_USER_INPUT, "Contact node %" PetscInt_FMT " lies on the radial axis: its radial normal is undefined", id);
    if (cms->radial_inward)
      for (PetscInt d = 0; d < 3; d++) n[d] = -n[d];
    if (!cms->t1_hint_set) PetscCall(PetscArraycpy(hint, axis, 3));
  } else {
    PetscCall(VIOrthonormalize(cms->normal, NULL, n, &ok));
    PetscCheck(ok, cms->comm, PETSC_ERR_USER_INPUT, "-cms_contact_normal: the normal is a zero vector");
  }
  if (dim == 1) {
    PetscCheck(PetscAbsReal(PetscAbsReal(n[0]) - 1) < 1e-12, cms->comm, PETSC_ERR_USER_INPUT,
               "In a 1D model the contact normal must be +x or -x, got (%g, %g, %g)", (double)n[0], (double)n[1], (double)n[2]);
    /* the frame is stored as a full right-handed 3 x 3 basis; only its first dim x dim block acts */
    frame[0] = n[0] > 0 ? 1 : -1;
    frame[4] = 1;
    frame[8] = frame[0];
  } else if (dim == 2) {
    PetscCheck(PetscAbsReal(n[2]) < 1e-12, cms->comm, PETSC_ERR_USER_INPUT,
               "In a 2D model the contact normal must lie in the x-y plane, got (%g, %g, %g)", (double)n[0], (double)n[1], (double)n[2]);
    frame[0] = n[0];
    frame[1] = n[1];
    frame[3] = -n[1];
    frame[4] = n[0];
    frame[8] = 1;
  } else {
    if (cms->t1_hint_set)
      PetscCall(PetscArraycpy(hint, cms->t1_hint, 3));
    else if (!cms->radial) {
      PetscInt k = 0; /* the global axis least aligned with n */
      for (PetscInt d = 1; d < 3; d++)
        if (PetscAbsReal(n[d]) < PetscAbsReal(n[k])) k = d;
      hint[k] = 1;
    }
    PetscCall(VIOrthonormalize(hint, n, t1, &ok));
    PetscCheck(ok, cms->comm, PETSC_ERR_USER_INPUT, "-cms_contact_t1: the tangent hint (%g, %g, %g) is parallel to the normal of node %" PetscInt_FMT,
               (double)hint[0], (double)hint[1], (double)hint[2], id);
    for (PetscInt d = 0; d < 3; d++) {
      frame[d]     = n[d];
      frame[3 + d] = t1[d];
    }
    frame[6] = n[1] * t1[2] - n[2] * t1[1];
    frame[7] = n[2] * t1[0] - n[0] * t1[2];
    frame[8] = n[0] * t1[1] - n[1] * t1[0];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The nodes of the contact sets (their union, in the order of the sets) as mesh indices into nodes (num_contact_ids of them,
   to free) and their ids into contact_ids (one collective look-up: no array of the mesh's size). */
static PetscErrorCode VICMSCollectSets(VICMS cms, VIMesh mesh, PetscInt **nodes)
{
  PetscInt  total = 0, n, *sorted, *first;
  PetscBool found;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < cms->num_contact_sets; s++) {
    const PetscInt *set;
    char            option[96];
    PetscCall(PetscSNPrintf(option, sizeof(option), "-%scms_contact_set", cms->prefix));
    PetscCall(VIMeshRequireNodeSet(mesh, option, cms->contact_sets[s], &n, &set));
    total += n;
  }
  PetscCall(PetscMalloc1(PetscMax(total, 1), nodes));
  PetscCall(PetscMalloc2(PetscMax(total, 1), &sorted, PetscMax(total, 1), &first));
  total = 0;
  for (PetscInt s = 0; s < cms->num_contact_sets; s++) {
    const PetscInt *set;
    PetscCall(VIMeshGetNodeSet(mesh, cms->contact_sets[s], &n, &set, &found));
    PetscCall(PetscArraycpy(*nodes + total, set, n));
    total += n;
  }
  /* a node stays at its first place in the list: (node, place) pairs sorted by node, each run of one node keeps its lowest place */
  for (PetscInt i = 0; i < total; i++) {
    sorted[i] = (*nodes)[i];
    first[i]  = i;
  }
  PetscCall(PetscSortIntWithArray(total, sorted, first));
  for (PetscInt i = 0, j; i < total; i = j) {
    PetscInt keep = first[i];
    for (j = i + 1; j < total && sorted[j] == sorted[i]; j++) keep = PetscMin(keep, first[j]);
    for (PetscInt k = i; k < j; k++)
      if (first[k] != keep) (*nodes)[first[k]] = -1; /* a repeat */
  }
  cms->num_contact_ids = 0;
  for (PetscInt i = 0; i < total; i++)
    if ((*nodes)[i] >= 0) (*nodes)[cms->num_contact_ids++] = (*nodes)[i];
  PetscCall(PetscFree2(sorted, first));
  PetscCall(PetscFree(cms->contact_ids));
  PetscCall(PetscMalloc1(PetscMax(cms->num_contact_ids, 1), &cms->contact_ids));
  PetscCall(VIModelGetNodeCoordinates(cms->model, cms->num_contact_ids, *nodes, NULL, cms->contact_ids));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Contact nodes as mesh indices, checked: in the mesh, not repeated, all DOFs free. With a physical boundary, the nodes whose
   DOFs are all clamped leave the contacts and stay in the boundary table (bnode_*) with no ROM coordinate. */
static PetscErrorCode VICMSResolveNodes(VICMS cms, VIMesh mesh, PetscInt dim)
{
  PetscInt nfree = 0, *nodes = NULL, *dofs;

  PetscFunctionBeginUser;
  if (cms->num_contact_sets) PetscCall(VICMSCollectSets(cms, mesh, &nodes));
  PetscCheck(cms->num_contact_ids > 0, cms->comm, PETSC_ERR_USER_INPUT,
             "No contact boundary: give -%scms_contact_nodes ID,ID,... or -%scms_contact_set SET", cms->prefix, cms->prefix);
  if (cms->physical) {
    PetscCheck(!cms->contact_dirs_set || cms->contact_dirs == dim, cms->comm, PETSC_ERR_USER_INPUT,
               "-%scms_contact_dirs: got %" PetscInt_FMT ", but the boundary of a substructure keeps all %" PetscInt_FMT
               " translational DOFs of its nodes (leave the option out)",
               cms->prefix, cms->contact_dirs, dim);
    PetscCheck(!cms->frame_set, cms->comm, PETSC_ERR_USER_INPUT,
               "-%scms_contact_normal, _radial_* and _t1 do not apply to a substructure: its boundary DOFs are the global x, y%s of each node",
               cms->prefix, dim == 3 ? ", z" : "");
    cms->contact_dirs = dim;
  }
  PetscCheck(cms->contact_dirs <= dim, cms->comm, PETSC_ERR_USER_INPUT,
             "-%scms_contact_dirs: %" PetscInt_FMT " directions asked in a %" PetscInt_FMT "D model", cms->prefix, cms->contact_dirs, dim);
  PetscCall(PetscFree(cms->contact_node));
  PetscCall(PetscMalloc1(cms->num_contact_ids, &cms->contact_node));
  PetscCall(PetscFree(cms->contact_dof));
  PetscCall(PetscMalloc1(cms->num_contact_ids * dim, &cms->contact_dof));
  PetscCall(PetscFree(cms->bnode_ids));
  PetscCall(PetscFree(cms->bnode_dofs));
  PetscCall(PetscFree(cms->bnode_coords));
  cms->num_bnodes = cms->num_contact_ids;
  PetscCall(PetscMalloc1(cms->num_bnodes, &cms->bnode_ids));
  PetscCall(PetscMalloc1(3 * cms->num_bnodes, &cms->bnode_dofs));
  PetscCall(PetscCalloc1(3 * cms->num_bnodes, &cms->bnode_coords));
  PetscCall(PetscMalloc1(cms->num_contact_ids * dim, &dofs));
  if (!nodes) {
    PetscCall(PetscMalloc1(cms->num_contact_ids, &nodes));
    /* a collective look-up by id (every rank asks the same list, so every rank sees the same missing id) */
    PetscCall(VIMeshFindNodes(mesh, cms->num_contact_ids, cms->contact_ids, nodes));
    for (PetscInt c = 0; c < cms->num_contact_ids; c++)
      PetscCheck(nodes[c] >= 0, cms->comm, PETSC_ERR_USER_INPUT, "-%scms_contact_nodes: node %" PetscInt_FMT " is not in the mesh", cms->prefix,
                 cms->contact_ids[c]);
  }
  /* the boundary nodes' DOFs and points: collective look-ups of the short list (no rank reads the map or the coordinates of
     every node) */
  PetscCall(VIModelGetNodeDofs(cms->model, cms->num_contact_ids, nodes, dofs));
  PetscCall(VIModelGetNodeCoordinates(cms->model, cms->num_contact_ids, nodes, cms->bnode_coords, NULL));
  for (PetscInt c = 0; c < cms->num_contact_ids; c++) {
    PetscInt id = cms->contact_ids[c], node = nodes[c], nclamped = 0, first_clamped = -1;
    for (PetscInt k = 0; k < c; k++)
      PetscCheck(cms->bnode_ids[k] != id, cms->comm, PETSC_ERR_USER_INPUT, "Contact node %" PetscInt_FMT " is listed twice (a repeated boundary DOF)",
                 id);
    for (PetscInt d = 0; d < dim; d++) {
      if (dofs[c * dim + d] < 0) {
        nclamped++;
        if (first_clamped < 0) first_clamped = d;
      }
    }
    PetscCheck(nclamped == 0 || (cms->physical && nclamped == dim), cms->comm, PETSC_ERR_USER_INPUT,
               "%s node %" PetscInt_FMT " has a clamped DOF (component %" PetscInt_FMT "): a %s", cms->physical ? "Boundary" : "Contact", id,
               first_clamped + 1, cms->physical ? "boundary node is either free or clamped in every direction" : "contact node must be free");
    cms->bnode_ids[c] = id;
    for (PetscInt d = 0; d < 3; d++) {
      cms->bnode_dofs[3 * c + d] = (nclamped || d >= dim) ? -1 : nfree * cms->contact_dirs + d;
      if (d >= cms->contact_dirs) cms->bnode_dofs[3 * c + d] = -1;
    }
    if (nclamped) continue;
    for (PetscInt d = 0; d < dim; d++) cms->contact_dof[nfree * dim + d] = dofs[c * dim + d];
    cms->contact_node[nfree++] = node;
  }
  PetscCall(PetscFree(nodes));
  PetscCall(PetscFree(dofs));
  cms->num_contacts = nfree;
  PetscCheck(nfree > 0, cms->comm, PETSC_ERR_USER_INPUT, "Every boundary node of -%scms_contact_set/-%scms_contact_nodes is clamped", cms->prefix,
             cms->prefix);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Q maps local-frame DOFs to global ones: u = Q u_hat; identity except the dim x dim blocks T^T of the contact nodes. */
static PetscErrorCode VICMSBuildRotation(VICMS cms, PetscInt dim)
{
  PetscInt nlocal, rstart, rend, *d_nnz, *o_nnz, *rotated;
  Mat      K;

  PetscFunctionBeginUser;
  PetscCall(VIModelGetMatrices(cms->model, &K, NULL));
  PetscCall(MatGetLocalSize(K, &nlocal, NULL));
  PetscCall(MatGetOwnershipRange(K, &rstart, &rend));
  PetscCall(PetscMalloc3(nlocal, &d_nnz, nlocal, &o_nnz, nlocal, &rotated));
  for (PetscInt r = 0; r < nlocal; r++) {
    d_nnz[r]   = 1;
    o_nnz[r]   = 0;
    rotated[r] = -1;
  }
  for (PetscInt c = 0; c < cms->num_contacts; c++)
    for (PetscInt e = 0; e < dim; e++) {
      PetscInt dof = cms->contact_dof[c * dim + e];
      if (dof >= rstart && dof < rend) {
        d_nnz[dof - rstart]   = dim; /* a node's DOFs have one owner */
        rotated[dof - rstart] = c;
      }
    }
  PetscCall(MatCreate(cms->comm, &cms->Q));
  PetscCall(MatSetSizes(cms->Q, nlocal, nlocal, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(cms->Q, MATAIJ));
  PetscCall(MatXAIJSetPreallocation(cms->Q, 1, d_nnz, o_nnz, NULL, NULL));
  for (PetscInt r = 0; r < nlocal; r++) {
    PetscInt row = rstart + r, c = rotated[r];
    if (c < 0)
      PetscCall(MatSetValue(cms->Q, row, row, 1.0, INSERT_VALUES));
    else {
      PetscInt e = -1;
      for (PetscInt k = 0; k < dim; k++)
        if (cms->contact_dof[c * dim + k] == row) e = k;
      for (PetscInt d = 0; d < dim; d++) PetscCall(MatSetValue(cms->Q, row, cms->contact_dof[c * dim + d], cms->contacts[c].frame[3 * d + e], INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(cms->Q, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(cms->Q, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree3(d_nnz, o_nnz, rotated));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSSetUpBoundary(VICMS cms)
{
  VIMesh           mesh;
  Mat              K, M;
  PetscInt         dim, rstart, rend, nown = 0, *own, b = 0;
  PetscBool        identity = PETSC_TRUE;
  IS               is_all, is_sorted;
  Vec              x;

  PetscFunctionBeginUser;
  PetscCall(VIModelGetMesh(cms->model, &mesh));
  PetscCall(VIModelGetMatrices(cms->model, &K, &M));
  PetscCall(VIMeshGetDimension(mesh, &dim));
  PetscCall(VICMSResolveNodes(cms, mesh, dim));

  PetscCall(PetscFree(cms->contacts));
  PetscCall(PetscFree(cms->b_dofs));
  PetscCall(PetscCalloc1(cms->num_contacts, &cms->contacts));
  cms->nb = cms->num_contacts * cms->contact_dirs;
  PetscCall(PetscMalloc1(cms->nb, &cms->b_dofs));
  for (PetscInt c = 0; c < cms->num_contacts; c++) {
    VIContactInfo *info = &cms->contacts[c];
    while (cms->bnode_dofs[3 * b] < 0) b++; /* a clamped boundary node: no contact (contact_dirs >= 1) */
    info->node_id = cms->bnode_ids[b];
    info->dim     = cms->contact_dirs;
    info->offset  = c * cms->contact_dirs;
    info->area    = cms->area;
    for (PetscInt d = 0; d < dim; d++) info->coords[d] = cms->bnode_coords[3 * b + d];
    b++;
    PetscCall(VICMSContactFrame(cms, dim, info->node_id, info->coords, info->frame));
    for (PetscInt d = 0; d < dim; d++)
      for (PetscInt e = 0; e < dim; e++)
        if (info->frame[3 * d + e] != (d == e ? 1.0 : 0.0)) identity = PETSC_FALSE;
    for (PetscInt d = 0; d < cms->contact_dirs; d++) cms->b_dofs[info->offset + d] = cms->contact_dof[c * dim + d];
  }

  /* the parent in the contact frames; nothing to do when every frame is the global one */
  PetscCall(MatDestroy(&cms->Q));
  PetscCall(MatDestroy(&cms->K));
  PetscCall(MatDestroy(&cms->M));
  if (identity) {
    PetscCall(PetscObjectReference((PetscObject)K));
    PetscCall(PetscObjectReference((PetscObject)M));
    cms->K = K;
    cms->M = M;
  } else {
    PetscCall(VICMSBuildRotation(cms, dim));
    PetscCall(MatPtAP(K, cms->Q, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &cms->K));
    PetscCall(MatPtAP(M, cms->Q, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &cms->M));
    PetscCall(MatSetOption(cms->K, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(MatSetOption(cms->M, MAT_SYMMETRIC, PETSC_TRUE));
  }

  /* boundary and inner rows of this rank */
  PetscCall(MatGetOwnershipRange(cms->K, &rstart, &rend));
  PetscCall(PetscMalloc1(PetscMax(cms->nb, 1), &own));
  for (PetscInt j = 0; j < cms->nb; j++)
    if (cms->b_dofs[j] >= rstart && cms->b_dofs[j] < rend) own[nown++] = cms->b_dofs[j];
  PetscCall(ISDestroy(&cms->is_b));
  PetscCall(ISDestroy(&cms->is_i));
  PetscCall(ISCreateGeneral(cms->comm, nown, own, PETSC_COPY_VALUES, &cms->is_b));
  PetscCall(ISDuplicate(cms->is_b, &is_sorted));
  PetscCall(ISSort(is_sorted));
  PetscCall(ISComplement(is_sorted, rstart, rend, &cms->is_i));
  PetscCall(ISDestroy(&is_sorted));
  PetscCall(PetscFree(own));

  /* every rank sees all boundary values of a vector */
  PetscCall(VecScatterDestroy(&cms->b_gather));
  PetscCall(VecDestroy(&cms->b_values));
  PetscCall(MatCreateVecs(cms->K, &x, NULL));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, cms->nb, &cms->b_values));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, cms->nb, cms->b_dofs, PETSC_COPY_VALUES, &is_all));
  PetscCall(VecScatterCreate(x, is_all, cms->b_values, NULL, &cms->b_gather));
  PetscCall(ISDestroy(&is_all));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSGatherBoundary(VICMS cms, Vec x, PetscReal values[])
{
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecScatterBegin(cms->b_gather, x, cms->b_values, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(cms->b_gather, x, cms->b_values, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(cms->b_values, &a));
  for (PetscInt j = 0; j < cms->nb; j++) values[j] = PetscRealPart(a[j]);
  PetscCall(VecRestoreArrayRead(cms->b_values, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}
