/* Several substructures (seed 003 §3.1.1): two beams reduced by Craig–Bampton with physical boundary DOFs, coupled by primal
   assembly at a fixed contact point (seed 003 Eqs. 10, 44); their coupled eigenfrequencies converge to the unreduced FE model's. */
#include <vicms.h>
#include <petscblaslapack.h>
#include <slepcsys.h>

static const char help[] = "Bodies: primal assembly of two Craig-Bampton beams against the unreduced coupled model\n";

/* The beam-on-beam geometry of jobs/beam_on_beam.yaml on a coarse mesh, 2 x 20 CPS4 per beam (N-mm-t-s). beam1 (aluminium,
   75 x 5 mm at 30 deg): node id = 1 + i + 21 j, C = node 1 at (50, 10), its end A = xmax = nodes 21, 42, 63. beam2
   (polycarbonate, 300 x 10 mm, clamped at x = 0): top edge ymax = nodes 43 + i at x = 15 i. */
#define BODIES                                                                                                                                       \
  "-bodies beam1,beam2 "                                                                                                                             \
  "-body_beam1_mesh_rect_cells 20,2 -body_beam1_mesh_rect_lengths 75,5 -body_beam1_mesh_rect_thickness 10 -body_beam1_mesh_rect_origin 50,10 "       \
  "-body_beam1_mesh_rect_angle 30 -body_beam1_model_young 70000 -body_beam1_model_poisson 0.33 -body_beam1_model_density 2.7e-9 "                    \
  "-body_beam1_cms_contact_set xmin_ymin,xmax "                                                                                                      \
  "-body_beam2_mesh_rect_cells 20,2 -body_beam2_mesh_rect_lengths 300,10 -body_beam2_mesh_rect_thickness 10 -body_beam2_model_young 2400 "           \
  "-body_beam2_model_poisson 0.37 -body_beam2_model_density 1.2e-9 -body_beam2_model_clamp xmin -body_beam2_cms_contact_set ymax "
#define NODE_C   1
#define ALPHA    (1.0 / 3.0) /* C at x = 50 on the segment T1 = node 46 (x = 45), T2 = node 47 (x = 60): alpha = 5/15 (Eq. 36) */
#define NODE_T1  46
#define NODE_T2  47
#define NUM_FREQ 10 /* coupled frequencies compared */

static const PetscInt NodesA[3] = {21, 42, 63};

/* The coupled system q = [q_beam1; q_beam2] (n = n1 + n2) with the index of each physical DOF (body, node id, component);
   the constraints: beam1's end A held (its DOFs removed) and the frictionless normal tie of C to the point of segment T1-T2
   (seed 003 Eq. 44 with gamma = 0: u_Cy = (1 - alpha) u_T1y + alpha u_T2y; C slides freely along x). Primal assembly with the
   explicit null-space basis L of these rows (Eq. 10): K~ = L^T K L, M~ = L^T M L; frequencies in Hz, ascending. */
static PetscErrorCode CoupledFrequencies(PetscInt n, const PetscReal K[], const PetscReal M[], PetscInt nheld, const PetscInt held[], PetscInt cy,
                                         PetscInt t1y, PetscInt t2y, PetscInt nfreq, PetscReal freq[])
{
  PetscInt    *col, m = 0;
  PetscReal   *L, *Kt, *Mt, *KL, *ML, *w, *work;
  PetscBLASInt bn, itype = 1, lwork, info;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n, &col));
  for (PetscInt i = 0; i < n; i++) {
    PetscBool removed = i == cy ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt h = 0; h < nheld; h++)
      if (held[h] == i) removed = PETSC_TRUE;
    col[i] = removed ? -1 : m++;
  }
  PetscCall(PetscCalloc1(n * m, &L)); /* row-major n x m */
  for (PetscInt i = 0; i < n; i++)
    if (col[i] >= 0) L[i * m + col[i]] = 1;
  L[cy * m + col[t1y]] = 1 - ALPHA;
  L[cy * m + col[t2y]] = ALPHA;
  PetscCall(PetscCalloc4(n * m, &KL, n * m, &ML, m * m, &Kt, m * m, &Mt));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = 0; k < n; k++) {
      PetscReal kik = K[i * n + k], mik = M[i * n + k];
      if (kik == 0 && mik == 0) continue;
      for (PetscInt j = 0; j < m; j++) {
        KL[i * m + j] += kik * L[k * m + j];
        ML[i * m + j] += mik * L[k * m + j];
      }
    }
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt a = 0; a < m; a++) {
      PetscReal l = L[i * m + a];
      if (l == 0) continue;
      for (PetscInt j = 0; j < m; j++) {
        Kt[a * m + j] += l * KL[i * m + j];
        Mt[a * m + j] += l * ML[i * m + j];
      }
    }
  PetscCall(PetscBLASIntCast(m, &bn));
  lwork = 8 * bn;
  PetscCall(PetscMalloc2(m, &w, 8 * m, &work));
  PetscCallBLAS("LAPACKsygv", LAPACKsygv_(&itype, "N", "U", &bn, Kt, &bn, Mt, &bn, w, work, &lwork, &info));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK sygv failed: info %d", (int)info);
  for (PetscInt k = 0; k < nfreq; k++) freq[k] = PetscSqrtReal(PetscMax(w[k], 0)) / (2 * PETSC_PI);
  PetscCall(PetscFree2(w, work));
  PetscCall(PetscFree4(KL, ML, Kt, Mt));
  PetscCall(PetscFree(L));
  PetscCall(PetscFree(col));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The unreduced FE model of body NAME (options -body_NAME_*) as dense K, M (N x N, every rank) and its equation numbers. */
static PetscErrorCode FullBody(MPI_Comm comm, const char name[], PetscInt *N, PetscReal **K, PetscReal **M, VIMesh *mesh, VIModel *model)
{
  char prefix[64];
  Mat  A[2];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "body_%s_", name));
  PetscCall(VIMeshCreate(comm, mesh));
  PetscCall(VIModelCreate(comm, model));
  PetscCall(VIModelSetMesh(*model, *mesh));
  PetscCall(VIMeshSetOptionsPrefix(*mesh, prefix));
  PetscCall(VIModelSetOptionsPrefix(*model, prefix));
  PetscCall(VIMeshSetFromOptions(*mesh));
  PetscCall(VIModelSetFromOptions(*model));
  PetscCall(VIMeshSetUp(*mesh));
  PetscCall(VIModelSetUp(*model));
  PetscCall(VIModelGetMatrices(*model, &A[0], &A[1]));
  PetscCall(MatGetSize(A[0], N, NULL));
  PetscCall(PetscCalloc1(*N * *N, K));
  PetscCall(PetscCalloc1(*N * *N, M));
  for (PetscInt t = 0; t < 2; t++) {
    IS   all;
    Mat *sub;
    PetscCall(ISCreateStride(PETSC_COMM_SELF, *N, 0, 1, &all));
    PetscCall(MatCreateSubMatrices(A[t], 1, &all, &all, MAT_INITIAL_MATRIX, &sub));
    for (PetscInt i = 0; i < *N; i++) {
      PetscInt           nc;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscCall(MatGetRow(sub[0], i, &nc, &cols, &vals));
      for (PetscInt c = 0; c < nc; c++) (t ? *M : *K)[i * *N + cols[c]] = PetscRealPart(vals[c]);
      PetscCall(MatRestoreRow(sub[0], i, &nc, &cols, &vals));
    }
    PetscCall(MatDestroySubMatrices(1, &sub));
    PetscCall(ISDestroy(&all));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NodeDof(VIMesh mesh, VIModel model, PetscInt id, PetscInt comp, PetscInt *dof)
{
  PetscInt node;

  PetscFunctionBeginUser;
  PetscInt dofs[3];

  PetscCall(VIMeshFindNode(mesh, id, &node));
  PetscCall(VIModelGetNodeDofs(model, 1, &node, dofs)); /* collective */
  *dof = dofs[comp];
  PetscCheck(*dof >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "node %" PetscInt_FMT " component %" PetscInt_FMT " has no DOF", id, comp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ROM coordinate of (node id, component) from a body's boundary table. */
static PetscErrorCode BoundaryDof(const VIBodyBoundary *bd, PetscInt id, PetscInt comp, PetscInt *dof)
{
  PetscFunctionBeginUser;
  *dof = -1;
  for (PetscInt i = 0; i < bd->num_nodes; i++)
    if (bd->node_ids[i] == id) *dof = bd->dofs[3 * i + comp];
  PetscCheck(*dof >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "node %" PetscInt_FMT " component %" PetscInt_FMT " is not a free boundary DOF", id, comp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Block-diagonal [A1 0; 0 A2] of two dense matrices. */
static PetscErrorCode BlockDiag(PetscInt n1, const PetscReal A1[], PetscInt n2, const PetscReal A2[], PetscReal **A)
{
  PetscInt n = n1 + n2;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(n * n, A));
  for (PetscInt i = 0; i < n1; i++)
    for (PetscInt j = 0; j < n1; j++) (*A)[i * n + j] = A1[i * n1 + j];
  for (PetscInt i = 0; i < n2; i++)
    for (PetscInt j = 0; j < n2; j++) (*A)[(n1 + i) * n + n1 + j] = A2[i * n2 + j];
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm        comm;
  const PetscInt  modes[3] = {5, 10, 20};
  PetscReal       ffull[NUM_FREQ], err[3];
  PetscMPIInt     rank;
  const PetscReal bound20 = 1e-3;

  PetscFunctionBeginUser;
  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscOptionsInsertString(NULL, BODIES));

  /* the unreduced coupled model: the same constraints on the FE DOFs */
  {
    VIMesh     mesh[2];
    VIModel    model[2];
    PetscInt   N[2], held[6], cy, t1y, t2y;
    PetscReal *K[2], *M[2], *Kc, *Mc;
    PetscCall(FullBody(comm, "beam1", &N[0], &K[0], &M[0], &mesh[0], &model[0]));
    PetscCall(FullBody(comm, "beam2", &N[1], &K[1], &M[1], &mesh[1], &model[1]));
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt d = 0; d < 2; d++) PetscCall(NodeDof(mesh[0], model[0], NodesA[a], d, &held[2 * a + d]));
    PetscCall(NodeDof(mesh[0], model[0], NODE_C, 1, &cy));
    PetscCall(NodeDof(mesh[1], model[1], NODE_T1, 1, &t1y));
    PetscCall(NodeDof(mesh[1], model[1], NODE_T2, 1, &t2y));
    PetscCall(BlockDiag(N[0], K[0], N[1], K[1], &Kc));
    PetscCall(BlockDiag(N[0], M[0], N[1], M[1], &Mc));
    PetscCall(CoupledFrequencies(N[0] + N[1], Kc, Mc, 6, held, cy, N[0] + t1y, N[0] + t2y, NUM_FREQ, ffull));
    PetscCall(PetscPrintf(comm, "Unreduced coupled model: %" PetscInt_FMT " + %" PetscInt_FMT " DOFs; lowest frequencies [Hz]:", N[0], N[1]));
    for (PetscInt k = 0; k < NUM_FREQ; k++) PetscCall(PetscPrintf(comm, " %.6g", (double)ffull[k]));
    PetscCall(PetscPrintf(comm, "\n"));
    for (PetscInt b = 0; b < 2; b++) {
      PetscCall(PetscFree(K[b]));
      PetscCall(PetscFree(M[b]));
      PetscCall(VIModelDestroy(&model[b]));
      PetscCall(VIMeshDestroy(&mesh[b]));
    }
    PetscCall(PetscFree(Kc));
    PetscCall(PetscFree(Mc));
  }

  for (PetscInt r = 0; r < 3; r++) {
    VIBodies              bodies, loaded;
    VIROM                 rom[2];
    const VIBodyBoundary *bd[2];
    PetscInt              nb, nm, n[2], held[6], cy, t1y, t2y;
    PetscReal            *K[2], *M[2], *D, *Kc, *Mc, f[NUM_FREQ];
    char                  value[16];

    PetscCall(PetscSNPrintf(value, sizeof(value), "%" PetscInt_FMT, modes[r]));
    PetscCall(PetscOptionsSetValue(NULL, "-body_beam1_cms_num_modes", value));
    PetscCall(PetscOptionsSetValue(NULL, "-body_beam2_cms_num_modes", value));
    PetscCall(VIBodiesCreate(comm, &bodies));
    PetscCall(VICMSReduceBody(comm, "beam1", bodies, PETSC_FALSE));
    PetscCall(VICMSReduceBody(comm, "beam2", bodies, PETSC_FALSE));
    for (PetscInt b = 0; b < 2; b++) {
      PetscCall(VIBodiesGet(bodies, b, NULL, &rom[b], &bd[b]));
      PetscCall(VIROMGetSizes(rom[b], &nb, &nm));
      PetscCall(VIROMGetMatrices(rom[b], &K[b], &M[b], &D));
      n[b] = nb + nm;
      PetscCheck(nm == modes[r], comm, PETSC_ERR_PLIB, "%" PetscInt_FMT " modes, asked %" PetscInt_FMT, nm, modes[r]);
    }
    /* the boundary tables: beam1 keeps C and A (4 nodes, 8 DOFs), beam2 its 21 top nodes, the clamped one at B without DOFs */
    PetscCheck(bd[0]->num_nodes == 4 && n[0] == 8 + modes[r], comm, PETSC_ERR_PLIB, "beam1: %" PetscInt_FMT " boundary nodes, n = %" PetscInt_FMT,
               bd[0]->num_nodes, n[0]);
    PetscCheck(bd[1]->num_nodes == 21 && n[1] == 40 + modes[r] && bd[1]->dofs[0] == -1 && bd[1]->dofs[1] == -1 && bd[1]->dofs[3] == 0, comm,
               PETSC_ERR_PLIB, "beam2: %" PetscInt_FMT " boundary nodes, n = %" PetscInt_FMT ", first DOFs %" PetscInt_FMT " %" PetscInt_FMT,
               bd[1]->num_nodes, n[1], bd[1]->dofs[0], bd[1]->dofs[3]);
    PetscCheck(bd[0]->node_ids[0] == NODE_C && PetscAbsReal(bd[0]->coords[0] - 50) < 1e-12 && PetscAbsReal(bd[0]->coords[1] - 10) < 1e-12, comm,
               PETSC_ERR_PLIB, "beam1: first boundary node %" PetscInt_FMT " at (%g, %g), expected C = 1 at (50, 10)", bd[0]->node_ids[0],
               (double)bd[0]->coords[0], (double)bd[0]->coords[1]);
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt d = 0; d < 2; d++) PetscCall(BoundaryDof(bd[0], NodesA[a], d, &held[2 * a + d]));
    PetscCall(BoundaryDof(bd[0], NODE_C, 1, &cy));
    PetscCall(BoundaryDof(bd[1], NODE_T1, 1, &t1y));
    PetscCall(BoundaryDof(bd[1], NODE_T2, 1, &t2y));
    PetscCall(BlockDiag(n[0], K[0], n[1], K[1], &Kc));
    PetscCall(BlockDiag(n[0], M[0], n[1], M[1], &Mc));
    PetscCall(CoupledFrequencies(n[0] + n[1], Kc, Mc, 6, held, cy, n[0] + t1y, n[0] + t2y, NUM_FREQ, f));
    err[r] = 0;
    for (PetscInt k = 0; k < NUM_FREQ; k++) err[r] = PetscMax(err[r], PetscAbsReal(f[k] - ffull[k]) / ffull[k]);
    PetscCall(PetscPrintf(comm,
                          "%2" PetscInt_FMT " modes per body: coupled ROM %" PetscInt_FMT " + %" PetscInt_FMT
                          " coordinates, max relative error of the lowest %d frequencies %.3e\n",
                          modes[r], n[0], n[1], NUM_FREQ, (double)err[r]));

    /* the file gives back the same bodies, bit for bit */
    PetscCall(VIBodiesWrite(bodies, "test_bodies.h5"));
    PetscCall(VIBodiesCreate(comm, &loaded));
    PetscCall(VIBodiesLoad(loaded, "test_bodies.h5"));
    for (PetscInt b = 0; b < 2; b++) {
      VIROM                 lr;
      const VIBodyBoundary *lb;
      PetscReal            *lK, *lM, *lD;
      PetscCall(VIBodiesGet(loaded, b, NULL, &lr, &lb));
      PetscCall(VIROMGetMatrices(lr, &lK, &lM, &lD));
      PetscCheck(lb->num_nodes == bd[b]->num_nodes, comm, PETSC_ERR_PLIB, "loaded boundary differs");
      for (PetscInt i = 0; i < n[b] * n[b]; i++) PetscCheck(lK[i] == K[b][i] && lM[i] == M[b][i], comm, PETSC_ERR_PLIB, "loaded K or M differs");
      for (PetscInt i = 0; i < 3 * lb->num_nodes; i++)
        PetscCheck(lb->dofs[i] == bd[b]->dofs[i] && lb->coords[i] == bd[b]->coords[i], comm, PETSC_ERR_PLIB, "loaded boundary table differs");
    }
    PetscCall(VIBodiesDestroy(&loaded));
    if (rank == 0) (void)remove("test_bodies.h5");
    PetscCall(PetscFree(Kc));
    PetscCall(PetscFree(Mc));
    PetscCall(VIBodiesDestroy(&bodies));
  }
  PetscCheck(err[1] < err[0] && err[2] < err[1], comm, PETSC_ERR_PLIB, "errors not decreasing with the modes: %g, %g, %g", (double)err[0],
             (double)err[1], (double)err[2]);
  PetscCheck(err[2] < bound20, comm, PETSC_ERR_PLIB, "error with 20 modes %g above %g", (double)err[2], (double)bound20);
  PetscCall(PetscPrintf(comm, "OK: errors decrease with the modes, %.3e < %.0e with 20\n", (double)err[2], (double)bound20));
  PetscCall(SlepcFinalize());
  return 0;
}
