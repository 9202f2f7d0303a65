/* VIModelGetRigidBodyModes: the rigid-body motions of a model's free DOFs, the near null space of its stiffness for GAMG. */
#include "femimpl.h"
#include <petscbt.h>

/*
  Translations u = e_d and, when the mesh's nodes carry as many translations as the space has dimensions (2 or 3), the
  rotations u = omega x (x - c) about the centroid c (one in 2D, three in 3D), each restricted to the free DOFs (a clamped
  DOF drops its row). Each rank fills the rows of the nodes it owns.
*/
PetscErrorCode VIModelGetRigidBodyModes(VIModel model, PetscInt *n, Vec **v)
{
  VIMesh           mesh;
  const PetscReal *x;
  PetscInt         sdim, dim = model->dim, nn = model->num_nodes, nrot = 0, rstart, rend, count = 0;
  PetscReal        c[3] = {0, 0, 0};
  PetscScalar     *a[6];
  Vec              u;

  PetscFunctionBeginUser;
  PetscCall(VIModelSetUp(model));
  PetscCall(MatCreateVecs(model->K, &u, NULL));
  PetscCall(VecGetOwnershipRange(u, &rstart, &rend));
  if (model->parent_format != VI_PARENT_ASSEMBLED) {
    /* a parent given as matrices: its rows' directions are known, not their positions */
    *n = 3;
    PetscCall(VecDuplicateVecs(u, *n, v));
    for (PetscInt d = 0; d < 3; d++) PetscCall(VIModelGetRigidTranslation(model, d, (*v)[d]));
    PetscCall(VecDestroy(&u));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VIModelGetMesh(model, &mesh));
  PetscCall(VIMeshGetDimension(mesh, &sdim));
  PetscCall(VIMeshGetCoordinates(mesh, &x));
  if (sdim == dim && dim == 2) nrot = 1;
  if (sdim == dim && dim == 3) nrot = 3;
  *n = dim + nrot;
  {
    /* the centroid of the nodes of the elements, summed in node order on every rank from the replicated coordinates (the
       same bits on any number of ranks); the nodes of no element are told apart by a pass over the elements only when
       there are any */
    PetscBT in = NULL;
    if (model->num_orphans) {
      PetscInt ne;
      PetscCall(VIMeshGetSizes(mesh, NULL, &ne));
      PetscCall(PetscBTCreate(nn, &in));
      for (PetscInt e = 0; e < ne; e++) {
        PetscInt        nen;
        const PetscInt *nodes;
        PetscCall(VIMeshGetElement(mesh, e, NULL, &nen, &nodes));
        for (PetscInt k = 0; k < nen; k++) PetscCall(PetscBTSet(in, nodes[k]));
      }
    }
    for (PetscInt i = 0; i < nn; i++)
      if (!in || PetscBTLookup(in, i)) {
        for (PetscInt d = 0; d < sdim; d++) c[d] += x[i * sdim + d];
        count++;
      }
    PetscCall(PetscBTDestroy(&in));
  }
  for (PetscInt d = 0; d < sdim; d++) c[d] /= PetscMax(count, 1);
  PetscCall(VecDuplicateVecs(u, *n, v));
  PetscCall(VecDestroy(&u));
  for (PetscInt k = 0; k < *n; k++) {
    PetscCall(VecSet((*v)[k], 0));
    PetscCall(VecGetArray((*v)[k], &a[k]));
  }
  for (PetscInt l = 0; l < model->num_lnodes; l++) {
    PetscInt  i    = model->lnode[l];
    PetscReal r[3] = {0, 0, 0}, w[3][3] = {{0}};
    for (PetscInt d = 0; d < sdim && d < 3; d++) r[d] = x[i * sdim + d] - c[d];
    /* rotation k about axis k: omega x r; in 2D the one rotation about z */
    if (nrot == 1) {
      w[0][0] = -r[1];
      w[0][1] = r[0];
    } else if (nrot == 3) {
      w[0][1] = -r[2];
      w[0][2] = r[1]; /* about x: (0, -z, y) */
      w[1][0] = r[2];
      w[1][2] = -r[0]; /* about y: (z, 0, -x) */
      w[2][0] = -r[1];
      w[2][1] = r[0]; /* about z: (-y, x, 0) */
    }
    for (PetscInt d = 0; d < dim; d++) {
      PetscInt dof = model->lnode_dof[l * dim + d];
      if (dof < rstart || dof >= rend) continue;
      a[d][dof - rstart] = 1;
      for (PetscInt k = 0; k < nrot; k++) a[dim + k][dof - rstart] = w[k][d];
    }
  }
  for (PetscInt k = 0; k < *n; k++) PetscCall(VecRestoreArray((*v)[k], &a[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
