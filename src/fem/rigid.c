/* VIModelGetRigidBodyModes: the rigid-body motions of a model's free DOFs, the near null space of its stiffness for GAMG. */
#include "femimpl.h"

/*
  Translations u = e_d and, when the mesh's nodes carry as many translations as the space has dimensions (2 or 3), the
  rotations u = omega x (x - c) about the centroid c (one in 2D, three in 3D), each restricted to the free DOFs (a clamped
  DOF drops its row). Each rank fills the rows of the nodes it owns.
*/
PetscErrorCode VIModelGetRigidBodyModes(VIModel model, PetscInt *n, Vec **v)
{
  VIMesh           mesh;
  const PetscReal *x;
  PetscInt         sdim, dim = model->dim, nrot = 0, rstart, rend, count = 0;
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
    /* the centroid of the nodes of the elements (the held ones), summed in node order: each rank adds the points of its block
       of the directory to the sums of the ranks before it and passes them on, so the sums are the same bits on any number of
       ranks, and no rank reads the coordinates of every node */
    PetscMPIInt rank, size;
    PetscReal  *dir_x, sums[4] = {0, 0, 0, 0}; /* c and count */
    PetscInt   *dir_id, nroots;
    PetscBool  *held;
    PetscCallMPI(MPI_Comm_rank(model->comm, &rank));
    PetscCallMPI(MPI_Comm_size(model->comm, &size));
    PetscCall(VIModelPointDirectory(model, &dir_x, &dir_id, &held));
    PetscCall(PetscLayoutGetLocalSize(model->dir_layout, &nroots));
    if (rank > 0) PetscCallMPI(MPI_Recv(sums, 4, MPIU_REAL, rank - 1, 0, model->comm, MPI_STATUS_IGNORE));
    for (PetscInt i = 0; i < nroots; i++)
      if (held[i]) {
        for (PetscInt d = 0; d < sdim; d++) sums[d] += dir_x[3 * i + d];
        sums[3] += 1;
      }
    if (rank < size - 1) PetscCallMPI(MPI_Send(sums, 4, MPIU_REAL, rank + 1, 0, model->comm));
    PetscCallMPI(MPI_Bcast(sums, 4, MPIU_REAL, size - 1, model->comm));
    PetscCall(PetscFree3(dir_x, dir_id, held));
    for (PetscInt d = 0; d < 3; d++) c[d] = sums[d];
    count = (PetscInt)sums[3];
  }
  for (PetscInt d = 0; d < sdim; d++) c[d] /= PetscMax(count, 1);
  PetscCall(VecDuplicateVecs(u, *n, v));
  PetscCall(VecDestroy(&u));
  for (PetscInt k = 0; k < *n; k++) {
    PetscCall(VecSet((*v)[k], 0));
    PetscCall(VecGetArray((*v)[k], &a[k]));
  }
  for (PetscInt l = 0; l < model->num_lnodes; l++) {
    PetscInt  h, mine = 0;
    PetscReal r[3] = {0, 0, 0}, w[3][3] = {{0}};
    for (PetscInt d = 0; d < dim; d++) mine += model->lnode_dof[l * dim + d] >= rstart && model->lnode_dof[l * dim + d] < rend ? 1 : 0;
    if (!mine) continue;
    /* a node of this rank's rows: this rank owns it, so one of its elements has it, and the mesh holds it (in parts too) */
    PetscCall(VIMeshFindHeldNode(mesh, model->lnode[l], &h));
    for (PetscInt d = 0; d < sdim && d < 3; d++) r[d] = x[h * sdim + d] - c[d];
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
