/* Mass products of nodal fields over the parent's elements: the inertia integrals of a floating frame of reference. */
#include "femimpl.h"
#include <vicms/sys.h>
#include <petscblaslapack.h>

/* C (m x n, column-major, ldc = m) = A^T B, A (k x m) and B (k x n) column-major. */
static PetscErrorCode VIDenseGemmTN(PetscInt m, PetscInt n, PetscInt k, const PetscReal A[], PetscInt lda, const PetscReal B[], PetscInt ldb,
                                    PetscReal C[])
{
  PetscBLASInt bm, bn, bk, blda, bldb;
  PetscReal    one = 1, zero = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(m, &bm));
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(k, &bk));
  PetscCall(PetscBLASIntCast(lda, &blda));
  PetscCall(PetscBLASIntCast(ldb, &bldb));
  PetscCallBLAS("BLASgemm", BLASgemm_("T", "N", &bm, &bn, &bk, &one, A, &blda, B, &bldb, &zero, C, &bm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The values of the nv fields at the nodes of this rank's elements, local node slot by slot: values[slot * nv * dim + k * dim
  + j] = component j of field k (0 where clamped); slot[l] is the slot of the model's held node l (model->lnode[l]), -1 for
  the nodes of no local element; the slots of the local elements' nodes in CSR (*eoff, *eslot; PetscFree2). One
  scatter from the distributed fields to the (owned and ghost) DOFs the local elements touch; no global-size vector.
*/
static PetscErrorCode VIModelGatherElementFields(VIModel model, PetscInt nv, const Vec v[], PetscInt slot[], PetscInt *nslots, PetscReal **values,
                                                 PetscInt **eoff, PetscInt **eslot)
{
  VIMesh             mesh = model->mesh;
  const PetscInt    *local;
  PetscInt           nlocal, dim = model->dim, ns = 0, nidx = 0, *idx, *where;
  IS                 is;
  Vec                seq;
  VecScatter         scatter;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetLocalElements(mesh, &nlocal, &local));
  for (PetscInt l = 0; l < model->num_lnodes; l++) slot[l] = -1;
  {
    PetscInt conn = 0;
    for (PetscInt i = 0; i < nlocal; i++) {
      PetscInt nen;
      PetscCall(VIMeshGetElement(mesh, local[i], NULL, &nen, NULL));
      conn += nen;
    }
    PetscCall(PetscMalloc2(nlocal + 1, eoff, PetscMax(conn, 1), eslot));
  }
  (*eoff)[0] = 0;
  for (PetscInt i = 0; i < nlocal; i++) {
    PetscInt        nen;
    const PetscInt *nodes;
    PetscCall(VIMeshGetElement(mesh, local[i], NULL, &nen, &nodes));
    for (PetscInt a = 0; a < nen; a++) {
      PetscInt l;
      PetscCall(VIModelFindLocalNode(model, nodes[a], &l));
      if (slot[l] < 0) slot[l] = ns++;
      (*eslot)[(*eoff)[i] + a] = slot[l];
    }
    (*eoff)[i + 1] = (*eoff)[i] + nen;
  }
  PetscCall(PetscMalloc2(ns * dim, &idx, ns * dim, &where));
  for (PetscInt l = 0; l < model->num_lnodes; l++)
    for (PetscInt d = 0; d < dim && slot[l] >= 0; d++) {
      PetscInt dof = model->lnode_dof[l * dim + d];
      if (dof < 0) continue;
      idx[nidx]   = dof;
      where[nidx] = slot[l] * dim + d;
      nidx++;
    }
  PetscCall(PetscCalloc1(ns * nv * dim, values));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nidx, idx, PETSC_USE_POINTER, &is));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, nidx, &seq));
  if (nv > 0) PetscCall(VecScatterCreate(v[0], is, seq, NULL, &scatter));
  for (PetscInt k = 0; k < nv; k++) {
    PetscCall(VecScatterBegin(scatter, v[k], seq, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(scatter, v[k], seq, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(seq, &a));
    for (PetscInt r = 0; r < nidx; r++) {
      PetscInt s = where[r] / dim, d = where[r] % dim;
      (*values)[(s * nv + k) * dim + d] = PetscRealPart(a[r]);
    }
    PetscCall(VecRestoreArrayRead(seq, &a));
  }
  if (nv > 0) PetscCall(VecScatterDestroy(&scatter));
  PetscCall(VecDestroy(&seq));
  PetscCall(ISDestroy(&is));
  PetscCall(PetscFree2(idx, where));
  *nslots = ns;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  This rank's part of the scalar mass, Ms_r = sum over its elements of rho N_a N_b (the same in every component for
  consistent and HRZ-lumped mass), assembled on the slots of its elements' nodes (ghost nodes included): then
  G = sum_r F_r^T Ms_r F_r with F_r the fields at the slots, one sparse product and one GEMM per rank instead of one
  small product per element (the elements' rows repeat every node several times).
*/
static PetscErrorCode VIModelLocalScalarMass(VIModel model, PetscInt ns, const PetscInt eoff[], const PetscInt eslot[], Mat *Ms)
{
  VIMesh           mesh = model->mesh;
  const PetscReal *xyz;
  const PetscInt  *local;
  PetscInt         nlocal, dim = model->dim, *nnz, *stamp, *sel_off, *sel;
  PetscReal        coords[VI_MAX_ELEMENT_NODES * 3], Me[VI_MAX_ELEMENT_DOFS * VI_MAX_ELEMENT_DOFS], Mse[VI_MAX_ELEMENT_NODES * VI_MAX_ELEMENT_NODES];
  PetscErrorCode   ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCall(VIMeshGetCoordinates(mesh, &xyz));
  PetscCall(VIMeshGetLocalElements(mesh, &nlocal, &local));
  /* exact row counts: the slots that share one of this rank's elements with the row's slot, from the slots' elements (CSR
     sel_off, sel; this rank's elements only, no map of the whole mesh) */
  PetscCall(PetscCalloc2(ns + 1, &nnz, ns, &stamp));
  PetscCall(PetscCalloc1(ns + 1, &sel_off));
  for (PetscInt k = 0; k < eoff[nlocal]; k++) sel_off[eslot[k] + 1]++;
  for (PetscInt s = 0; s < ns; s++) sel_off[s + 1] += sel_off[s];
  PetscCall(PetscMalloc1(PetscMax(sel_off[ns], 1), &sel));
  for (PetscInt i = 0; i < nlocal; i++)
    for (PetscInt k = eoff[i]; k < eoff[i + 1]; k++) sel[sel_off[eslot[k]] + stamp[eslot[k]]++] = i;
  for (PetscInt s = 0; s < ns; s++) stamp[s] = -1;
  for (PetscInt r = 0; r < ns; r++)
    for (PetscInt q = sel_off[r]; q < sel_off[r + 1]; q++)
      for (PetscInt k = eoff[sel[q]]; k < eoff[sel[q] + 1]; k++) {
        if (stamp[eslot[k]] == r) continue;
        stamp[eslot[k]] = r;
        nnz[r]++;
      }
  PetscCall(PetscFree(sel));
  PetscCall(PetscFree(sel_off));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, ns, ns, 0, nnz, Ms));
  PetscCall(PetscFree2(nnz, stamp));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  for (PetscInt i = 0; i < nlocal && !ierr; i++) {
    PetscInt          nen, ndof, idx[VI_MAX_ELEMENT_NODES];
    const PetscInt   *nodes;
    const VIMaterial *mat;
    VIElementType     type;
    PetscReal         thickness;

    ierr = VIMeshGetElement(mesh, local[i], &type, &nen, &nodes);
    if (!ierr) ierr = VIMeshGetElementMaterial(mesh, local[i], &mat, &thickness);
    if (ierr) break;
    if (!mat) mat = &model->default_mat;
    for (PetscInt a = 0; a < nen && !ierr; a++) {
      PetscInt h;
      idx[a] = eslot[eoff[i] + a];
      ierr   = VIMeshFindHeldNode(mesh, nodes[a], &h); /* the mesh holds this rank's elements' nodes */
      for (PetscInt d = 0; d < dim; d++) coords[a * dim + d] = xyz[h * dim + d];
    }
    if (!ierr) ierr = VIElementMatricesIntegrated(type, model->integration, dim, coords, mat, thickness, model->lumped, NULL, Me, NULL);
    if (ierr) break;
    ndof = nen * dim;
    for (PetscInt a = 0; a < nen; a++)
      for (PetscInt b = 0; b < nen; b++) Mse[a * nen + b] = Me[(a * dim) * ndof + b * dim];
    ierr = MatSetValues(*Ms, nen, idx, nen, idx, Mse, ADD_VALUES);
  }
  PetscCall(PetscPopErrorHandler());
  PetscCall(VIErrorSync(model->comm, ierr));
  PetscCall(MatAssemblyBegin(*Ms, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*Ms, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelMassProducts(VIModel model, PetscInt nv, const Vec v[], PetscReal G[])
{
  const PetscReal   *xyz;
  PetscInt           dim, nf, *slot, ns = 0, ldf, ldmf, *eoff, *eslot;
  PetscReal         *values, *Gl;
  PetscScalar       *f;
  const PetscScalar *mf;
  Mat                Ms, F, MF;

  PetscFunctionBeginUser;
  PetscCheck(model->setup, model->comm, PETSC_ERR_ORDER, "Call VIModelSetUp() first");
  dim = model->dim;
  nf  = 1 + dim + nv * dim;
  PetscCall(VIMeshGetCoordinates(model->mesh, &xyz));
  PetscCall(PetscMalloc1(model->num_lnodes, &slot));
  PetscCall(VIModelGatherElementFields(model, nv, v, slot, &ns, &values, &eoff, &eslot));
  PetscCall(VIModelLocalScalarMass(model, ns, eoff, eslot, &Ms));
  PetscCall(PetscFree2(eoff, eslot));
  /* F: ns x nf, column-major; column 0 the constant 1, then x_1..x_dim, then the fields' components */
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, ns, nf, NULL, &F));
  PetscCall(MatDenseGetLDA(F, &ldf));
  PetscCall(MatDenseGetArrayWrite(F, &f));
  for (PetscInt l = 0; l < model->num_lnodes; l++) {
    PetscInt s = slot[l], h;
    if (s < 0) continue;
    PetscCall(VIMeshFindHeldNode(model->mesh, model->lnode[l], &h)); /* a node of this rank's elements: held */
    f[s] = 1;
    for (PetscInt d = 0; d < dim; d++) f[(1 + d) * ldf + s] = xyz[h * dim + d];
    for (PetscInt c = 0; c < nv * dim; c++) f[(1 + dim + c) * ldf + s] = values[s * nv * dim + c];
  }
  PetscCall(MatDenseRestoreArrayWrite(F, &f));
  PetscCall(MatMatMult(Ms, F, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &MF));
  PetscCall(PetscMalloc1(nf * nf, &Gl));
  PetscCall(MatDenseGetArrayRead(F, (const PetscScalar **)&f));
  PetscCall(MatDenseGetArrayRead(MF, &mf));
  PetscCall(MatDenseGetLDA(MF, &ldmf));
  if (ns > 0)
    PetscCall(VIDenseGemmTN(nf, nf, ns, f, ldf, mf, ldmf, Gl));
  else
    PetscCall(PetscArrayzero(Gl, nf * nf));
  PetscCall(MatDenseRestoreArrayRead(MF, &mf));
  PetscCall(MatDenseRestoreArrayRead(F, (const PetscScalar **)&f));
  PetscCallMPI(MPI_Allreduce(Gl, G, (PetscMPIInt)(nf * nf), MPIU_REAL, MPIU_SUM, model->comm));
  /* symmetric in exact arithmetic: keep it symmetric to the last bit */
  for (PetscInt a = 0; a < nf; a++)
    for (PetscInt b = a + 1; b < nf; b++) G[a * nf + b] = G[b * nf + a] = 0.5 * (G[a * nf + b] + G[b * nf + a]);
  PetscCall(PetscFree(Gl));
  PetscCall(MatDestroy(&MF));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&Ms));
  PetscCall(PetscFree(values));
  PetscCall(PetscFree(slot));
  PetscFunctionReturn(PETSC_SUCCESS);
}
