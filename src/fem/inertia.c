/* Mass products of nodal fields over the parent's elements: the inertia integrals of a floating frame of reference. */
#include "femimpl.h"
#include <vicms/sys.h>
#include <petscblaslapack.h>

/* Rows of element fields gathered before one GEMM adds them to the products: BLAS-3 instead of one small product per element. */
#define VI_MASS_BATCH_ROWS 2048

/*
  The values of the nv fields at the nodes of this rank's elements, local node slot by slot: values[slot * nv * dim + k * dim
  + j] = component j of field k (0 where clamped); slot[node] is the node's slot, -1 for the nodes of no local element. One
  scatter from the distributed fields to the (owned and ghost) DOFs the local elements touch; no global-size vector.
*/
static PetscErrorCode VIModelGatherElementFields(VIModel model, PetscInt nv, const Vec v[], PetscInt slot[], PetscInt *nslots, PetscReal **values)
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
  for (PetscInt i = 0; i < model->num_nodes; i++) slot[i] = -1;
  for (PetscInt i = 0; i < nlocal; i++) {
    PetscInt        nen;
    const PetscInt *nodes;
    PetscCall(VIMeshGetElement(mesh, local[i], NULL, &nen, &nodes));
    for (PetscInt a = 0; a < nen; a++)
      if (slot[nodes[a]] < 0) slot[nodes[a]] = ns++;
  }
  PetscCall(PetscMalloc2(ns * dim, &idx, ns * dim, &where));
  for (PetscInt i = 0; i < model->num_nodes; i++)
    for (PetscInt d = 0; d < dim && slot[i] >= 0; d++) {
      PetscInt dof = model->node_dof[i * dim + d];
      if (dof < 0) continue;
      idx[nidx]   = dof;
      where[nidx] = slot[i] * dim + d;
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

PetscErrorCode VIModelMassProducts(VIModel model, PetscInt nv, const Vec v[], PetscReal G[])
{
  VIMesh           mesh;
  const PetscReal *xyz;
  const PetscInt  *local;
  PetscInt         nlocal, dim, nf, *slot, ns, rows = 0;
  PetscReal       *values, *F, *MF, *Gl;
  PetscReal        coords[VI_MAX_ELEMENT_NODES * 3], Me[VI_MAX_ELEMENT_DOFS * VI_MAX_ELEMENT_DOFS];
  PetscErrorCode   ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCheck(model->setup, model->comm, PETSC_ERR_ORDER, "Call VIModelSetUp() first");
  mesh = model->mesh;
  dim  = model->dim;
  nf   = 1 + dim + nv * dim;
  PetscCall(VIMeshGetCoordinates(mesh, &xyz));
  PetscCall(VIMeshGetLocalElements(mesh, &nlocal, &local));
  PetscCall(PetscMalloc1(model->num_nodes, &slot));
  PetscCall(VIModelGatherElementFields(model, nv, v, slot, &ns, &values));
  PetscCall(PetscMalloc3(VI_MASS_BATCH_ROWS * nf, &F, VI_MASS_BATCH_ROWS * nf, &MF, nf * nf, &Gl));
  PetscCall(PetscArrayzero(Gl, nf * nf));
  /* element e adds F_e^T Ms_e F_e, F_e (nen x nf) the fields at its nodes and Ms_e its scalar mass (rho N_a N_b, the same in
     every component for consistent and HRZ-lumped mass); rows of F_e and of Ms_e F_e are stacked column-major, nf columns */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  for (PetscInt i = 0; i <= nlocal && !ierr; i++) {
    PetscInt          e, nen, ndof;
    const PetscInt   *nodes;
    const VIMaterial *mat;
    VIElementType     type;
    PetscReal         thickness;

    if (i == nlocal || rows + VI_MAX_ELEMENT_NODES > VI_MASS_BATCH_ROWS) {
      /* Gl += F^T MF, F and MF of leading dimension VI_MASS_BATCH_ROWS */
      PetscBLASInt bn, bk, ld = VI_MASS_BATCH_ROWS;
      PetscReal    one = 1;
      if (rows > 0) {
        ierr = PetscBLASIntCast(nf, &bn);
        if (!ierr) ierr = PetscBLASIntCast(rows, &bk);
        if (ierr) break;
        BLASgemm_("T", "N", &bn, &bn, &bk, &one, F, &ld, MF, &ld, &one, Gl, &bn);
      }
      rows = 0;
      if (i == nlocal) break;
    }
    e    = local[i];
    ierr = VIMeshGetElement(mesh, e, &type, &nen, &nodes);
    if (!ierr) ierr = VIMeshGetElementMaterial(mesh, e, &mat, &thickness);
    if (ierr) break;
    if (!mat) mat = &model->default_mat;
    for (PetscInt a = 0; a < nen; a++)
      for (PetscInt d = 0; d < dim; d++) coords[a * dim + d] = xyz[nodes[a] * dim + d];
    ierr = VIElementMatricesIntegrated(type, model->integration, dim, coords, mat, thickness, model->lumped, NULL, Me, NULL);
    if (ierr) break;
    ndof = nen * dim;
    for (PetscInt a = 0; a < nen; a++) {
      const PetscReal *val = values + slot[nodes[a]] * nv * dim;
      PetscInt         r   = rows + a;
      F[r]                 = 1;
      for (PetscInt d = 0; d < dim; d++) F[(1 + d) * VI_MASS_BATCH_ROWS + r] = coords[a * dim + d];
      for (PetscInt c = 0; c < nv * dim; c++) F[(1 + dim + c) * VI_MASS_BATCH_ROWS + r] = val[c];
    }
    for (PetscInt c = 0; c < nf; c++)
      for (PetscInt a = 0; a < nen; a++) {
        PetscReal s = 0;
        for (PetscInt b = 0; b < nen; b++) s += Me[(a * dim) * ndof + b * dim] * F[c * VI_MASS_BATCH_ROWS + rows + b];
        MF[c * VI_MASS_BATCH_ROWS + rows + a] = s;
      }
    rows += nen;
  }
  PetscCall(PetscPopErrorHandler());
  PetscCall(VIErrorSync(model->comm, ierr));
  PetscCallMPI(MPI_Allreduce(Gl, G, (PetscMPIInt)(nf * nf), MPIU_REAL, MPIU_SUM, model->comm));
  /* symmetric in exact arithmetic: keep it symmetric to the last bit */
  for (PetscInt a = 0; a < nf; a++)
    for (PetscInt b = a + 1; b < nf; b++) G[a * nf + b] = G[b * nf + a] = 0.5 * (G[a * nf + b] + G[b * nf + a]);
  PetscCall(PetscFree3(F, MF, Gl));
  PetscCall(PetscFree(values));
  PetscCall(PetscFree(slot));
  PetscFunctionReturn(PETSC_SUCCESS);
}
