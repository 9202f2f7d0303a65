/* The p-multigrid of the iterative solver on quadratic elements: the corner nodes' (linear elements') space and its two-level PCMG. */
#include "femimpl.h"
#include <petscsf.h>

/*
  The corner a mid-side node of an element sits between: the two corners whose reference points it halves (the element tables of
  element.c list corners first, then the mid-edge nodes). The linear field of the corners, evaluated at that mid-side node, is their
  mean: for every element of element.c the corners' linear (or bi/trilinear) shape functions are linear along an edge.
*/
static PetscErrorCode VIElementEdgeOfNode(VIElementType type, PetscInt k, PetscInt *a, PetscInt *b)
{
  const PetscReal *xi;
  PetscInt         rd = VIElementInfoTable[type].ref_dim, nc = VIElementInfoTable[type].num_corners;

  PetscFunctionBeginUser;
  PetscCall(VIElementReferenceNodes(type, &xi));
  *a = *b = -1;
  for (PetscInt i = 0; i < nc && *a < 0; i++)
    for (PetscInt j = i + 1; j < nc && *a < 0; j++) {
      PetscBool mid = PETSC_TRUE;
      for (PetscInt c = 0; c < rd; c++)
        if (PetscAbsReal(0.5 * (xi[i * rd + c] + xi[j * rd + c]) - xi[k * rd + c]) > 1e-12) mid = PETSC_FALSE;
      if (mid) {
        *a = i;
        *b = j;
      }
    }
  PetscCheck(*a >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Node %" PetscInt_FMT " of a %s is no edge's mid-point", k + 1, VIElementInfoTable[type].name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIModelCreateCornerInterpolation - the interpolation P from the DOFs of the corner nodes (the space of the linear elements on
  the same vertices) to the model's DOFs: a corner copies its own value, a mid-side node takes the mean of its edge's two corners
  (a clamped corner contributes zero). NULL when no element of the mesh has mid-side nodes (or the parent is given as matrices).

  Collective.

  Input:
+ model - set up
- rows  - NULL for all the model's DOFs, or this rank's subset of its owned DOFs, ascending (the inner DOFs of K_ii): P's rows are
          then these, its columns the corner DOFs among them

  Output:
. P - MPIAIJ, the rows of the model (or of rows) by the corner DOFs, each column owned by the rank owning its corner's DOF
*/
PetscErrorCode VIModelCreateCornerInterpolation(VIModel model, IS rows, Mat *P)
{
  VIMesh          mesh = model->mesh;
  const PetscInt *local;
  PetscInt        nlocal, dim = model->dim, nl = model->num_lnodes, rstart = model->rstart, rend = model->rstart + model->num_local;
  PetscInt       *edge, *coarse, ncl = 0, cstart = 0, nleaf = 0, *leaf_dof, *leaf_coarse;
  PetscBool       quadratic = PETSC_FALSE, any;
  Mat             Pfull;

  PetscFunctionBeginUser;
  *P = NULL;
  PetscCheck(model->setup, model->comm, PETSC_ERR_ORDER, "Call VIModelSetUp() first");
  if (model->parent_format == VI_PARENT_ASSEMBLED) {
    PetscCall(VIMeshGetLocalElements(mesh, &nlocal, &local));
    for (PetscInt i = 0; i < nlocal && !quadratic; i++) {
      VIElementType type;
      PetscInt      nen;
      PetscCall(VIMeshGetElement(mesh, local[i], &type, &nen, NULL));
      if (nen > VIElementInfoTable[type].num_corners) quadratic = PETSC_TRUE;
    }
  }
  PetscCallMPI(MPI_Allreduce(&quadratic, &any, 1, MPIU_BOOL, MPI_LOR, model->comm));
  if (!any) PetscFunctionReturn(PETSC_SUCCESS);

  /* edge[2 l], edge[2 l + 1]: the held positions of held node l's edge corners; -1, -1 for a corner (-2 unseen). A node this rank owns
     is a node of one of its elements (its owner is the lowest rank among its elements'), so every owned node is seen. */
  PetscCall(PetscMalloc2(2 * nl, &edge, nl * dim, &coarse));
  for (PetscInt l = 0; l < 2 * nl; l++) edge[l] = -2;
  for (PetscInt i = 0; i < nlocal; i++) {
    VIElementType   type;
    PetscInt        nen, lk[VI_MAX_ELEMENT_NODES];
    const PetscInt *nodes;
    PetscCall(VIMeshGetElement(mesh, local[i], &type, &nen, &nodes));
    for (PetscInt k = 0; k < nen; k++) {
      PetscCall(VIModelFindLocalNode(model, nodes[k], &lk[k]));
      PetscCheck(lk[k] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Node %" PetscInt_FMT " of a local element is not held", nodes[k]);
    }
    for (PetscInt k = 0; k < nen; k++) {
      if (edge[2 * lk[k]] != -2) continue;
      if (k < VIElementInfoTable[type].num_corners)
        edge[2 * lk[k]] = edge[2 * lk[k] + 1] = -1;
      else {
        PetscInt a = -1, b = -1;
        PetscCall(VIElementEdgeOfNode(type, k, &a, &b));
        edge[2 * lk[k]]     = lk[a];
        edge[2 * lk[k] + 1] = lk[b];
      }
    }
  }
  /* the coarse numbers of this rank's corner DOFs (kept by rows), in the order of their DOFs */
  {
    PetscBool      *keep = NULL;
    const PetscInt *ri;
    PetscInt        nri;
    if (rows) {
      PetscCall(PetscCalloc1(model->num_local, &keep));
      PetscCall(ISGetLocalSize(rows, &nri));
      PetscCall(ISGetIndices(rows, &ri));
      for (PetscInt i = 0; i < nri; i++) {
        PetscCheck(ri[i] >= rstart && ri[i] < rend, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row %" PetscInt_FMT " is not this rank's", ri[i]);
        keep[ri[i] - rstart] = PETSC_TRUE;
      }
      PetscCall(ISRestoreIndices(rows, &ri));
    }
    for (PetscInt l = 0; l < nl; l++)
      for (PetscInt d = 0; d < dim; d++) {
        PetscInt  g         = model->lnode_dof[l * dim + d];
        PetscBool mine      = g >= rstart && g < rend;
        coarse[l * dim + d] = -1;
        if (mine)
          PetscCheck(edge[2 * l] != -2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Owned node %" PetscInt_FMT " is in no local element", model->lnode[l]);
        if (mine && edge[2 * l] == -1 && (!keep || keep[g - rstart])) coarse[l * dim + d] = ncl++;
      }
    PetscCall(PetscFree(keep));
  }
  PetscCallMPI(MPI_Exscan(&ncl, &cstart, 1, MPIU_INT, MPI_SUM, model->comm));
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(model->comm, &rank));
    if (rank == 0) cstart = 0;
  }
  for (PetscInt i = 0; i < nl * dim; i++)
    if (coarse[i] >= 0) coarse[i] += cstart;
  /* the corners of this rank's mid-side DOFs that other ranks own: their coarse numbers from their owners (PetscSF on the DOFs),
     listed in the order the rows of P below read them */
  for (PetscInt pass = 0; pass < 2; pass++) {
    for (PetscInt l = 0; l < nl; l++) {
      if (edge[2 * l] < 0 || !VIModelOwnsNode(model, l)) continue;
      for (PetscInt d = 0; d < dim; d++)
        for (PetscInt e = 0; e < 2; e++) {
          PetscInt g = model->lnode_dof[edge[2 * l + e] * dim + d];
          if (g < 0 || (g >= rstart && g < rend)) continue;
          if (pass == 1) leaf_dof[nleaf] = g;
          nleaf++;
        }
    }
    if (pass == 0) {
      PetscCall(PetscMalloc2(nleaf, &leaf_dof, nleaf, &leaf_coarse));
      nleaf = 0;
    }
  }
  {
    PetscSF     sf;
    PetscLayout layout;
    PetscInt   *root;
    PetscCall(PetscMalloc1(model->num_local, &root));
    for (PetscInt l = 0; l < nl; l++)
      for (PetscInt d = 0; d < dim; d++) {
        PetscInt g = model->lnode_dof[l * dim + d];
        if (g >= rstart && g < rend) root[g - rstart] = coarse[l * dim + d];
      }
    PetscCall(PetscLayoutCreateFromSizes(model->comm, model->num_local, PETSC_DECIDE, 1, &layout));
    PetscCall(PetscSFCreate(model->comm, &sf));
    PetscCall(PetscSFSetGraphLayout(sf, layout, nleaf, NULL, PETSC_COPY_VALUES, leaf_dof));
    PetscCall(PetscSFBcastBegin(sf, MPIU_INT, root, leaf_coarse, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(sf, MPIU_INT, root, leaf_coarse, MPI_REPLACE));
    PetscCall(PetscSFDestroy(&sf));
    PetscCall(PetscLayoutDestroy(&layout));
    PetscCall(PetscFree(root));
  }
  /* P on the model's owned rows; a kept subset of rows is taken by MatCreateSubMatrix with the kept corners as its columns */
  PetscCall(MatCreateAIJ(model->comm, model->num_local, ncl, PETSC_DETERMINE, PETSC_DETERMINE, 2, NULL, 2, NULL, &Pfull));
  for (PetscInt l = 0, q = 0; l < nl; l++)
    for (PetscInt d = 0; d < dim; d++) {
      PetscInt g = model->lnode_dof[l * dim + d];
      if (edge[2 * l] < 0) {
        if (g >= rstart && g < rend && coarse[l * dim + d] >= 0) PetscCall(MatSetValue(Pfull, g, coarse[l * dim + d], 1.0, INSERT_VALUES));
        continue;
      }
      if (!VIModelOwnsNode(model, l)) continue;
      for (PetscInt e = 0; e < 2; e++) {
        PetscInt lc = edge[2 * l + e], gc = model->lnode_dof[lc * dim + d], c;
        if (gc < 0) continue;
        c = (gc >= rstart && gc < rend) ? coarse[lc * dim + d] : leaf_coarse[q++];
        if (g >= rstart && g < rend && c >= 0) PetscCall(MatSetValue(Pfull, g, c, 0.5, INSERT_VALUES));
      }
    }
  PetscCall(MatAssemblyBegin(Pfull, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Pfull, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(leaf_dof, leaf_coarse));
  if (rows) {
    IS cols;
    PetscCall(ISCreateStride(model->comm, ncl, cstart, 1, &cols));
    PetscCall(MatCreateSubMatrix(Pfull, rows, cols, MAT_INITIAL_MATRIX, P));
    PetscCall(ISDestroy(&cols));
    PetscCall(MatDestroy(&Pfull));
  } else
    *P = Pfull;
  PetscCall(PetscFree2(edge, coarse));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* coarse = the values of fine at the corners: the rows of P holding a single 1 (a corner's own DOF, whose column is this rank's). */
PetscErrorCode VIPMGInject(Mat P, Vec fine, Vec coarse)
{
  PetscInt           rstart, rend, cstart, cend;
  const PetscScalar *f;
  PetscScalar       *c;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(P, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(P, &cstart, &cend));
  PetscCall(VecGetArrayRead(fine, &f));
  PetscCall(VecGetArray(coarse, &c));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(P, r, &ncols, &cols, &vals));
    if (ncols == 1 && vals[0] == 1.0) {
      PetscCheck(cols[0] >= cstart && cols[0] < cend, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Corner column %" PetscInt_FMT " is not this rank's", cols[0]);
      c[cols[0] - cstart] = f[r - rstart];
    }
    PetscCall(MatRestoreRow(P, r, &ncols, &cols, &vals));
  }
  PetscCall(VecRestoreArray(coarse, &c));
  PetscCall(VecRestoreArrayRead(fine, &f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Two-level p-multigrid on pc for A (the quadratic elements' operator): the fine level smoothed by Chebyshev with Jacobi, the
  coarse operator the Galerkin product P^T A P (the linear elements' stiffness on the corner nodes) solved by one GAMG cycle whose
  near null space is nearnull injected onto the corners. Every level reads its options under the PC's prefix (-<prefix>mg_levels_*,
  -<prefix>mg_coarse_*). GAMG's aggregation coarsens the quadratic elements' graph badly (docs/scale.md); on the corner nodes it
  works as on linear elements.
*/
PetscErrorCode VIPMGSetUp(PC pc, Mat A, Mat P, MatNullSpace nearnull)
{
  Mat Ac;
  KSP smooth, coarse;
  PC  pcs, pcc;

  PetscFunctionBeginUser;
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(PCMGSetLevels(pc, 2, NULL));
  PetscCall(PCMGSetType(pc, PC_MG_MULTIPLICATIVE));
  PetscCall(PCMGSetCycleType(pc, PC_MG_CYCLE_V));
  PetscCall(PCMGSetInterpolation(pc, 1, P));
  PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_NONE));
  PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Ac));
  PetscCall(MatSetOption(Ac, MAT_SPD, PETSC_TRUE));
  if (nearnull) {
    PetscInt     n;
    PetscBool    has_const;
    const Vec   *v;
    Vec          w, *vc;
    MatNullSpace cnull;
    PetscCall(MatNullSpaceGetVecs(nearnull, &has_const, &n, &v));
    PetscCheck(!has_const && n > 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "The near null space is given by its vectors");
    PetscCall(MatCreateVecs(Ac, &w, NULL));
    PetscCall(VecDuplicateVecs(w, n, &vc));
    PetscCall(VecDestroy(&w));
    for (PetscInt k = 0; k < n; k++) PetscCall(VIPMGInject(P, v[k], vc[k]));
    /* the injected modes are no longer orthonormal, which MatNullSpaceCreate asks for */
    PetscCall(VIOrthonormalizeVecs(PetscObjectComm((PetscObject)pc), n, vc));
    PetscCall(MatNullSpaceCreate(PetscObjectComm((PetscObject)pc), PETSC_FALSE, n, vc, &cnull));
    PetscCall(MatSetNearNullSpace(Ac, cnull));
    PetscCall(MatNullSpaceDestroy(&cnull));
    PetscCall(VecDestroyVecs(n, &vc));
  }
  PetscCall(PCMGGetSmoother(pc, 1, &smooth));
  /* four Chebyshev steps on local symmetric SOR: on the Rotor 37 blade's thin C3D15 wedges 145 CG iterations per solve with two on
     Jacobi even with an exact coarse solve, 135 with four on SOR and 3 coarse steps (113 with 5) */
  PetscCall(KSPSetType(smooth, KSPCHEBYSHEV));
  PetscCall(KSPSetTolerances(smooth, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 4));
  PetscCall(KSPGetPC(smooth, &pcs));
  PetscCall(PCSetType(pcs, PCSOR));
  PetscCall(PCMGGetCoarseSolve(pc, &coarse));
  PetscCall(KSPSetOperators(coarse, Ac, Ac));
  /* a fixed number of Chebyshev steps preconditioned by GAMG (a fixed polynomial: the V-cycle stays a linear, symmetric operator for
     CG): one GAMG cycle alone left 70-86 CG iterations per solve on the C3D20 beam and 372 on the blade, an exact coarse solve 26 and
     145, three steps 36 on the beam */
  PetscCall(KSPSetType(coarse, KSPCHEBYSHEV));
  PetscCall(KSPChebyshevEstEigSet(coarse, 0.0, 0.1, 0.0, 1.1));
  PetscCall(KSPSetTolerances(coarse, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 4));
  PetscCall(KSPSetNormType(coarse, KSP_NORM_NONE));
  PetscCall(KSPSetConvergenceTest(coarse, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPGetPC(coarse, &pcc));
  PetscCall(PCSetType(pcc, PCGAMG));
  PetscCall(MatDestroy(&Ac));
  PetscFunctionReturn(PETSC_SUCCESS);
}
