/* The inertia invariants of a floating frame of reference (docs/frame.md, seed 001 App. C) from the reduction's basis. */
#include "cmsimpl.h"
#include <vicms/sys.h>

/*
  The columns of the basis in the mesh's axes, Phi = Q R (R's rows at contact nodes are in the contact frames), integrated
  against the parent's elements with the mass products of VIModelMassProducts (the fields 1, x, Phi_k^j): every invariant
  is one of their entries. The products are computed by each rank on its own elements; only the nf x nf result is summed.
*/
PetscErrorCode VICMSFrameInvariants(VICMS cms, VIROM rom)
{
  VIMesh         mesh;
  PetscInt       dim, n, nf;
  Vec           *phi;
  PetscReal     *G;
  VIROMFrame     f;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(VIModelGetMesh(cms->model, &mesh));
  PetscCall(VIMeshGetDimension(mesh, &dim));
  PetscCall(MatGetSize(cms->R, NULL, &n));
  nf = 1 + dim + n * dim;
  PetscCall(PetscMalloc1(n, &phi));
  for (PetscInt k = 0; k < n; k++) {
    Vec col;
    PetscCall(MatCreateVecs(cms->K, &phi[k], NULL));
    PetscCall(MatDenseGetColumnVecRead(cms->R, k, &col));
    if (cms->Q)
      PetscCall(MatMult(cms->Q, col, phi[k]));
    else
      PetscCall(VecCopy(col, phi[k]));
    PetscCall(MatDenseRestoreColumnVecRead(cms->R, k, &col));
  }
  PetscCall(PetscMalloc1(nf * nf, &G));
  PetscCall(VIModelMassProducts(cms->model, n, phi, G));
  PetscCall(PetscMemzero(&f, sizeof(f)));
  f.dim  = dim;
  f.n    = n;
  f.mass = G[0];
  PetscCall(PetscMalloc3(dim * n, &f.mode_moment, dim * dim * n, &f.position_mode, dim * dim * n * n, &f.mode_mode));
  for (PetscInt i = 0; i < dim; i++) {
    f.first_moment[i] = G[1 + i];
    for (PetscInt j = 0; j < dim; j++) {
      f.second_moment[i * dim + j] = G[(1 + i) * nf + 1 + j];
      for (PetscInt k = 0; k < n; k++) {
        PetscInt pk = 1 + dim + k * dim;
        if (i == 0) f.mode_moment[j * n + k] = G[pk + j];
        f.position_mode[(i * dim + j) * n + k] = G[(1 + i) * nf + pk + j];
        for (PetscInt l = 0; l < n; l++) f.mode_mode[((i * dim + j) * n + k) * n + l] = G[(pk + i) * nf + 1 + dim + l * dim + j];
      }
    }
  }
  PetscCall(VIROMSetFrame(rom, &f));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(NULL, "floating-frame invariants of %" PetscInt_FMT " basis columns (%" PetscInt_FMT " fields) in %.3f s\n", n, nf,
                      (double)(t1 - t0)));
  PetscCall(PetscFree3(f.mode_moment, f.position_mode, f.mode_mode));
  PetscCall(PetscFree(G));
  for (PetscInt k = 0; k < n; k++) PetscCall(VecDestroy(&phi[k]));
  PetscCall(PetscFree(phi));
  PetscFunctionReturn(PETSC_SUCCESS);
}
