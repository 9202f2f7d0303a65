/* The interpolation of the p-multigrid (src/fem/pmg.c) on the bundled C3D20 beam: its size (the corner nodes' free DOFs) and
 * the linear fields it reproduces exactly (the rigid-body modes from their corner values), on any number of ranks. */
#include <vicms.h>
#include "fem/femimpl.h"

static const char help[] = "p-multigrid interpolation: -mesh_file beam_c3d20.inp\n";

int main(int argc, char **argv)
{
  VIMesh   mesh;
  VIModel  model;
  Mat      P;
  PetscInt nrb, m, n, nfine;
  Vec     *rb, c, f, w;

  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCall(VIMeshCreate(PETSC_COMM_WORLD, &mesh));
  PetscCall(VIMeshSetFromOptions(mesh));
  PetscCall(VIModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(VIModelSetMesh(model, mesh));
  PetscCall(VIModelSetFromOptions(model));
  PetscCall(VIModelSetUp(model));
  PetscCall(VIModelGetNumDofs(model, NULL, &nfine));
  PetscCall(VIModelCreateCornerInterpolation(model, NULL, &P));
  PetscCheck(P, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "no interpolation on a C3D20 mesh");
  PetscCall(MatGetSize(P, &m, &n));
  /* 2 x 2 x 20 bricks: 3 x 3 x 21 corners, the 9 of the clamped root face without DOFs */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "P: %" PetscInt_FMT " x %" PetscInt_FMT " (expected 1800 x 540)\n", m, n));
  PetscCheck(m == nfine && m == 1800 && n == 540, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "P is %" PetscInt_FMT " x %" PetscInt_FMT, m, n);
  PetscCall(VIModelGetRigidBodyModes(model, &nrb, &rb));
  PetscCall(MatCreateVecs(P, &c, &f));
  PetscCall(VecDuplicate(f, &w));
  /* row sums: 1, but 1/2 for the mid-side nodes between the root face (clamped: no coarse DOF) and the first layer, 3 x 3 of them */
  PetscCall(VecSet(c, 1.0));
  PetscCall(MatMult(P, c, w));
  {
    const PetscScalar *ws;
    PetscInt           half = 0, other = 0, nl;
    PetscCall(VecGetLocalSize(w, &nl));
    PetscCall(VecGetArrayRead(w, &ws));
    for (PetscInt i = 0; i < nl; i++) {
      if (ws[i] == 0.5)
        half++;
      else if (ws[i] != 1.0)
        other++;
    }
    PetscCall(VecRestoreArrayRead(w, &ws));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &half, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &other, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(
        PetscPrintf(PETSC_COMM_WORLD, "row sums: %" PetscInt_FMT " of 1/2 (expected 27), %" PetscInt_FMT " other than 1 or 1/2\n", half, other));
    PetscCheck(half == 27 && other == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "wrong row sums");
  }
  /* elsewhere P reproduces every linear field from its corner values: the rigid-body modes, to rounding */
  for (PetscInt k = 0; k < nrb; k++) {
    PetscReal err, norm;
    PetscCall(VIPMGInject(P, rb[k], c));
    PetscCall(MatMult(P, c, f));
    PetscCall(VecAXPY(f, -1.0, rb[k]));
    PetscCall(VecPointwiseMult(f, f, w));
    PetscCall(VecShift(w, -0.5));
    PetscCall(VecPointwiseMult(f, f, w)); /* zero on the rows of sum 1/2 */
    PetscCall(VecShift(w, 0.5));
    PetscCall(VecNorm(f, NORM_INFINITY, &err));
    PetscCall(VecNorm(rb[k], NORM_INFINITY, &norm));
    err *= 2; /* the two weights, 1 x 1/2, of the rows of sum 1 */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "rigid-body mode %" PetscInt_FMT ": |P (its corner values) - mode| / |mode| = %.2e\n", k,
                          (double)(err / norm)));
    PetscCheck(err <= 1e-12 * norm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "rigid-body mode %" PetscInt_FMT " not reproduced: %g", k,
               (double)(err / norm));
  }
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&c));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroyVecs(nrb, &rb));
  PetscCall(MatDestroy(&P));
  PetscCall(VIModelDestroy(&model));
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(SlepcFinalize());
  return 0;
}
