/* Bodies coupled at a contact position of a sliding path: primal assembly, complex eigenvalues (seed 003 Eqs. 8-16) and the
   time-dependent FRF (seed 003 Eq. 45). */
#include "couplingimpl.h"
#include <vicms/sys.h>
#include <petscblaslapack.h>

const char *const VICouplingSlidings[] = {"forward", "backward", "VICouplingSliding", "VI_COUPLING_", NULL};

/* The step of the phase weights of the eigenvectors, (sqrt(5) - 1) / 2 (VICouplingGetEigenvectors). */
#define VI_COUPLING_PHASE_STEP 0.6180339887498949

PetscErrorCode VICouplingCreate(MPI_Comm comm, VICoupling *coupling)
{
  VICoupling c;

  PetscFunctionBeginUser;
  PetscCall(VIInitializePackage());
  PetscCall(PetscNew(&c));
  c->comm        = comm;
  c->slave_body  = -1;
  c->master_body = -1;
  c->sliding     = VI_COUPLING_FORWARD;
  *coupling      = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VICouplingClearPosition(VICoupling c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(c->BC, c->BE));
  PetscCall(PetscFree2(c->LC, c->LE));
  PetscCall(PetscFree3(c->Mt, c->Ct, c->Kt));
  PetscCall(PetscFree2(c->eig_re, c->eig_im));
  PetscCall(PetscFree2(c->vec_re, c->vec_im));
  c->has_position = c->has_primal = c->has_eigen = c->has_vectors = PETSC_FALSE;
  c->static_failure                                               = VI_COUPLING_STATIC_OK;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingDestroy(VICoupling *coupling)
{
  VICoupling c = *coupling;

  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VICouplingClearPosition(c));
  PetscCall(PetscFree4(c->off, c->K, c->M, c->D));
  PetscCall(PetscFree(c->held));
  PetscCall(PetscFree2(c->load, c->u0));
  PetscCall(PetscFree2(c->master, c->arc));
  PetscCall(PetscFree2(c->set, c->sidx));
  PetscCall(PetscFree2(c->frf_pos, c->frf_nr));
  PetscCall(PetscFree2(c->frf_BC, c->frf_BE));
  PetscCall(PetscFree(*coupling));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingSetBodies(VICoupling c, VIBodies bodies)
{
  PetscFunctionBeginUser;
  PetscCheck(!c->bodies, c->comm, PETSC_ERR_ORDER, "VICouplingSetBodies: the bodies are already set");
  PetscCall(VIBodiesGetNum(bodies, &c->num_bodies));
  PetscCheck(c->num_bodies >= 2, c->comm, PETSC_ERR_USER_INPUT, "VICouplingSetBodies: %" PetscInt_FMT " bodies, a contact couples two",
             c->num_bodies);
  c->bodies = bodies;
  PetscCall(PetscCalloc4(c->num_bodies + 1, &c->off, c->num_bodies, &c->K, c->num_bodies, &c->M, c->num_bodies, &c->D));
  for (PetscInt k = 0; k < c->num_bodies; k++) {
    VIROM                 rom;
    const VIBodyBoundary *bd;
    const char           *name;
    PetscReal            *K, *M, *D;
    PetscCall(VIBodiesGet(bodies, k, &name, &rom, &bd));
    PetscCheck(bd->dim == 2, c->comm, PETSC_ERR_SUP, "Body %s is %" PetscInt_FMT "D; the sliding coupling is 2D (seed 003)", name, bd->dim);
    PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
    c->K[k] = K;
    c->M[k] = M;
    c->D[k] = D;
    PetscCall(VIBodiesGetOffset(bodies, k + 1, &c->off[k + 1]));
  }
  c->n = c->off[c->num_bodies];
  PetscCall(PetscCalloc1(c->n, &c->held));
  PetscCall(PetscCalloc2(c->n, &c->load, c->n, &c->u0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VICouplingFindBody(VICoupling c, const char body[], const char what[], PetscInt *k)
{
  PetscFunctionBeginUser;
  PetscCheck(c->bodies, c->comm, PETSC_ERR_ORDER, "%s: call VICouplingSetBodies first", what);
  PetscCall(VIBodiesFind(c->bodies, body, k));
  PetscCheck(*k >= 0, c->comm, PETSC_ERR_USER_INPUT, "%s: no body '%s' in the bodies file", what, body);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingSetSlave(VICoupling c, const char body[], PetscInt id)
{
  PetscFunctionBeginUser;
  PetscCall(VICouplingFindBody(c, body, "VICouplingSetSlave", &c->slave_body));
  PetscCall(VIBodiesGetNode(c->bodies, c->slave_body, id, "VICouplingSetSlave", &c->slave));
  PetscCheck(c->slave.dof[0] >= 0 && c->slave.dof[1] >= 0, c->comm, PETSC_ERR_USER_INPUT,
             "VICouplingSetSlave: slave node %" PetscInt_FMT " of body %s is clamped", id, body);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingSetMaster(VICoupling c, const char body[], PetscInt num, const PetscInt ids[])
{
  const VIBodyBoundary *bd;

  PetscFunctionBeginUser;
  PetscCall(VICouplingFindBody(c, body, "VICouplingSetMaster", &c->master_body));
  PetscCall(VIBodiesGet(c->bodies, c->master_body, NULL, NULL, &bd));
  if (!num) num = bd->num_nodes;
  PetscCheck(num >= 2, c->comm, PETSC_ERR_USER_INPUT, "VICouplingSetMaster: the master chain of body %s needs at least 2 nodes, got %" PetscInt_FMT,
             body, num);
  PetscCall(PetscFree2(c->master, c->arc));
  PetscCall(PetscMalloc2(num, &c->master, num, &c->arc));
  c->num_master = num;
  for (PetscInt j = 0; j < num; j++) {
    PetscCall(VIBodiesGetNode(c->bodies, c->master_body, ids ? ids[j] : bd->node_ids[j], "VICouplingSetMaster", &c->master[j]));
    c->arc[j] =
        j ? c->arc[j - 1] + PetscSqrtReal(PetscSqr(c->master[j].X[0] - c->master[j - 1].X[0]) + PetscSqr(c->master[j].X[1] - c->master[j - 1].X[1]))
          : 0;
    PetscCheck(!j || c->arc[j] > c->arc[j - 1], c->comm, PETSC_ERR_USER_INPUT,
               "VICouplingSetMaster: nodes %" PetscInt_FMT " and %" PetscInt_FMT " of body %s coincide: a segment of zero length",
               c->master[j - 1].id, c->master[j].id, body);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingAddHold(VICoupling c, const char body[], PetscInt num, const PetscInt ids[], PetscInt comp)
{
  PetscInt k;

  PetscFunctionBeginUser;
  PetscCall(VICouplingFindBody(c, body, "VICouplingAddHold", &k));
  PetscCheck(!c->setup, c->comm, PETSC_ERR_ORDER, "VICouplingAddHold: the coupling is already set up");
  PetscCheck(comp == 0 || comp == 1, c->comm, PETSC_ERR_USER_INPUT, "VICouplingAddHold: component %" PetscInt_FMT ", expected 0 (x) or 1 (y)", comp);
  for (PetscInt j = 0; j < num; j++) {
    VIBodyNode node = {0};
    PetscCall(VIBodiesGetNode(c->bodies, k, ids[j], "VICouplingAddHold", &node));
    PetscCheck(node.dof[comp] >= 0, c->comm, PETSC_ERR_USER_INPUT, "VICouplingAddHold: node %" PetscInt_FMT " of body %s is clamped", ids[j], body);
    if (!c->held[node.dof[comp]]) c->num_held++;
    c->held[node.dof[comp]] = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingSetFriction(VICoupling c, PetscReal mu, VICouplingSliding sliding)
{
  PetscFunctionBeginUser;
  PetscCheck(mu >= 0 && PetscIsNormalReal(mu + 1), c->comm, PETSC_ERR_USER_INPUT, "-coupling_mu: the friction coefficient is %g, expected >= 0",
             (double)mu);
  c->mu      = mu;
  c->sliding = sliding;
  PetscCall(VICouplingClearPosition(c));
  c->frf_np = -1; /* the FRF's rows depend on mu: rebuilt at the next call */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingSetFromOptions(VICoupling c)
{
  PetscReal         mu      = c->mu;
  VICouplingSliding sliding = c->sliding;

  PetscFunctionBeginUser;
  PetscOptionsBegin(c->comm, NULL, "Bodies coupled at a position of the sliding path (seed 003 CEA and time-dependent FRF)", "VICoupling");
  PetscCall(PetscOptionsReal("-coupling_mu", "Coulomb coefficient of the sliding contact in the CEA and the FRF (seed 003 Eq. 39)",
                             "VICouplingSetFriction", mu, &mu, NULL));
  PetscCall(PetscOptionsEnum("-coupling_sliding", "Direction of the slave's sliding on the master chain: forward (first node to last) or backward",
                             "VICouplingSetFriction", VICouplingSlidings, (PetscEnum)sliding, (PetscEnum *)&sliding, NULL));
  PetscOptionsEnd();
  PetscCall(VICouplingSetFriction(c, mu, sliding));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingSetUp(VICoupling c)
{
  PetscInt ns = 0;

  PetscFunctionBeginUser;
  if (c->setup) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(c->bodies, c->comm, PETSC_ERR_ORDER, "VICouplingSetUp: no bodies (VICouplingSetBodies)");
  PetscCheck(c->slave_body >= 0 && c->master_body >= 0, c->comm, PETSC_ERR_ORDER, "VICouplingSetUp: give the slave node and the master chain");
  PetscCheck(c->slave_body != c->master_body, c->comm, PETSC_ERR_USER_INPUT, "VICouplingSetUp: the slave and master bodies are the same");
  /* here, collectively, not at the positions the ranks are dealt */
  PetscCheck(c->state != VI_COUPLING_STATE_STATIC || c->num_held > 0, c->comm, PETSC_ERR_USER_INPUT,
             "The static sliding state needs held DOFs (the driven nodes, -cea_hold): without them nothing balances the friction (or linearise about "
             "the undeformed configuration, -cea_state undeformed)");
  PetscCall(PetscMalloc2(c->n, &c->set, c->n, &c->sidx));
  for (PetscInt i = 0; i < c->n; i++) c->sidx[i] = -1;
  for (PetscInt d = 0; d < 2; d++) c->sidx[c->slave.dof[d]] = 0;
  for (PetscInt j = 0; j < c->num_master; j++)
    for (PetscInt d = 0; d < 2; d++)
      if (c->master[j].dof[d] >= 0) c->sidx[c->master[j].dof[d]] = 0;
  for (PetscInt i = 0; i < c->n; i++)
    if (c->held[i]) c->sidx[i] = 0;
  for (PetscInt i = 0; i < c->n; i++)
    if (!c->sidx[i]) {
      c->set[ns] = i;
      c->sidx[i] = ns++;
    }
  c->num_set  = ns;
  c->num_rows = 1 + c->num_held;
  c->setup    = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingGetLength(VICoupling c, PetscReal *length)
{
  PetscFunctionBeginUser;
  PetscCheck(c->num_master >= 2, c->comm, PETSC_ERR_ORDER, "VICouplingGetLength: no master chain (VICouplingSetMaster)");
  *length = c->arc[c->num_master - 1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingSetPosition(VICoupling c, PetscReal s)
{
  PetscInt        k = 0, n, nr;
  PetscReal       L, l, t[2], nv[2], xi, sign;
  VIBodyNode     *T1, *T2;
  const PetscInt *dofs[3];
  PetscReal       wgt[3];

  PetscFunctionBeginUser;
  PetscCheck(c->setup, c->comm, PETSC_ERR_ORDER, "VICouplingSetPosition: call VICouplingSetUp first");
  PetscCall(VICouplingGetLength(c, &L));
  PetscCheck(s >= 0 && s <= L, c->comm, PETSC_ERR_USER_INPUT, "VICouplingSetPosition: position %g is off the master chain [0, %g]", (double)s,
             (double)L);
  PetscCall(VICouplingClearPosition(c));
  while (k + 2 < c->num_master && s >= c->arc[k + 1]) k++;
  T1 = &c->master[k];
  T2 = &c->master[k + 1];
  l  = c->arc[k + 1] - c->arc[k];
  xi = (s - c->arc[k]) / l;
  for (PetscInt d = 0; d < 2; d++) t[d] = (T2->X[d] - T1->X[d]) / l;
  nv[0]   = -t[1];
  nv[1]   = t[0];
  n       = c->n;
  nr      = c->num_rows;
  sign    = c->sliding == VI_COUPLING_FORWARD ? 1.0 : -1.0;
  dofs[0] = c->slave.dof;
  dofs[1] = T1->dof;
  dofs[2] = T2->dof;
  wgt[0]  = 1;
  wgt[1]  = -(1 - xi);
  wgt[2]  = -xi;
  PetscCall(PetscCalloc2(nr * n, &c->BC, nr * n, &c->BE));
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt d = 0; d < 2; d++) {
      if (dofs[a][d] < 0) continue;
      c->BC[dofs[a][d]] += wgt[a] * nv[d];
      c->BE[dofs[a][d]] += wgt[a] * (nv[d] - sign * c->mu * t[d]);
    }
  for (PetscInt i = 0, r = 1; i < n; i++)
    if (c->held[i]) {
      c->BC[r * n + i] = c->BE[r * n + i] = 1;
      r++;
    }
  c->s            = s;
  c->seg          = k;
  c->xi           = xi;
  c->has_position = PETSC_TRUE;
  if (c->state == VI_COUPLING_STATE_STATIC) PetscCall(VICouplingStaticLinearise(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingGetPosition(VICoupling c, PetscReal *s, PetscInt *segment, PetscReal *xi)
{
  PetscFunctionBeginUser;
  PetscCheck(c->has_position, c->comm, PETSC_ERR_ORDER, "VICouplingGetPosition: no position (VICouplingSetPosition)");
  if (s) *s = c->s;
  if (segment) *segment = c->seg;
  if (xi) *xi = c->xi;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingGetRows(VICoupling c, PetscInt *num_rows, PetscInt *n, const PetscReal **BC, const PetscReal **BE)
{
  PetscFunctionBeginUser;
  PetscCheck(c->has_position, c->comm, PETSC_ERR_ORDER, "VICouplingGetRows: no position (VICouplingSetPosition)");
  *num_rows = c->num_rows;
  *n        = c->n;
  if (BC) *BC = c->BC;
  if (BE) *BE = c->BE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A basis of the null space of the nr x n rows B (seed 003 Eq. 10): Gauss-Jordan with the largest entry of each row as
   pivot; the free coordinates are q, the pivots follow from them: L (n x (n - nr)). */
static PetscErrorCode VICouplingNullSpace(VICoupling c, PetscInt nr, PetscInt n, const PetscReal B[], PetscReal L[], const char what[])
{
  PetscReal *W;
  PetscInt  *piv, *col, m = n - nr;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(nr * n, &W, nr, &piv, n, &col));
  PetscCall(PetscArraycpy(W, B, nr * n));
  for (PetscInt i = 0; i < n; i++) col[i] = 0;
  for (PetscInt r = 0; r < nr; r++) {
    PetscReal big = 0, scale = 0;
    PetscInt  p = -1;
    for (PetscInt i = 0; i < n; i++) scale = PetscMax(scale, PetscAbsReal(B[r * n + i]));
    for (PetscInt i = 0; i < n; i++)
      if (!col[i] && PetscAbsReal(W[r * n + i]) > big) {
        big = PetscAbsReal(W[r * n + i]);
        p   = i;
      }
    PetscCheck(p >= 0 && big > 1e-12 * scale, c->comm, PETSC_ERR_USER_INPUT,
               "The %s rows are linearly dependent (row %" PetscInt_FMT "): a held DOF is also constrained by the contact", what, r);
    piv[r] = p;
    col[p] = 1;
    big    = W[r * n + p]; /* signed */
    for (PetscInt i = 0; i < n; i++) W[r * n + i] /= big;
    W[r * n + p] = 1;
    for (PetscInt q = 0; q < nr; q++) {
      PetscReal f = W[q * n + p];
      if (q == r || f == 0) continue;
      for (PetscInt i = 0; i < n; i++) W[q * n + i] -= f * W[r * n + i];
      W[q * n + p] = 0;
    }
  }
  PetscCall(PetscArrayzero(L, n * m));
  for (PetscInt i = 0, a = 0; i < n; i++) {
    if (col[i]) continue;
    L[i * m + a] = 1;
    for (PetscInt r = 0; r < nr; r++) L[piv[r] * m + a] = -W[r * n + i];
    a++;
  }
  PetscCall(PetscFree3(W, piv, col));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingGetPrimal(VICoupling c, PetscInt *m_out, const PetscReal **LC, const PetscReal **LE, const PetscReal **Mt,
                                   const PetscReal **Ct, const PetscReal **Kt)
{
  PetscInt   n = c->n, m;
  PetscReal *T;

  PetscFunctionBeginUser;
  PetscCheck(c->has_position, c->comm, PETSC_ERR_ORDER, "VICouplingGetPrimal: no position (VICouplingSetPosition)");
  if (!c->has_primal) {
    const PetscReal *A[3];
    PetscReal       *R[3];
    m = c->m = n - c->num_rows;
    PetscCall(PetscMalloc2(n * m, &c->LC, n * m, &c->LE));
    PetscCall(PetscCalloc3(m * m, &c->Mt, m * m, &c->Ct, m * m, &c->Kt));
    PetscCall(VICouplingNullSpace(c, c->num_rows, n, c->BC, c->LC, "compatibility (B_C)"));
    PetscCall(VICouplingNullSpace(c, c->num_rows, n, c->BE, c->LE, "equilibrium (B_E)"));
    PetscCall(PetscMalloc1(n * m, &T));
    R[0] = c->Mt;
    R[1] = c->Ct;
    R[2] = c->Kt;
    for (PetscInt w = 0; w < 3; w++) {
      /* T = X L_C (block-diagonal X), then X~ = L_E^T T (Eq. 14) */
      for (PetscInt k = 0; k < c->num_bodies; k++) {
        PetscInt o = c->off[k], nk = c->off[k + 1] - o;
        A[0] = c->M[k];
        A[1] = c->D[k];
        A[2] = c->K[k];
        for (PetscInt i = 0; i < nk; i++) {
          PetscReal *Ti = T + (o + i) * m;
          for (PetscInt a = 0; a < m; a++) Ti[a] = 0;
          for (PetscInt j = 0; j < nk; j++) {
            const PetscReal  x  = A[w][i * nk + j];
            const PetscReal *Lj = c->LC + (o + j) * m;
            if (x == 0) continue;
            for (PetscInt a = 0; a < m; a++) Ti[a] += x * Lj[a];
          }
        }
      }
      if (w == 2 && c->state == VI_COUPLING_STATE_STATIC) /* the geometric stiffness of the static normal force */
        for (PetscInt i = 0; i < 6; i++)
          for (PetscInt j = 0; j < 6; j++) {
            const PetscReal x = c->kg[i * 6 + j];
            if (c->kg_dof[i] < 0 || c->kg_dof[j] < 0 || x == 0) continue;
            for (PetscInt a = 0; a < m; a++) T[c->kg_dof[i] * m + a] += x * c->LC[c->kg_dof[j] * m + a];
          }
      for (PetscInt i = 0; i < n; i++) {
        const PetscReal *Li = c->LE + i * m, *Ti = T + i * m;
        for (PetscInt a = 0; a < m; a++) {
          if (Li[a] == 0) continue;
          for (PetscInt b = 0; b < m; b++) R[w][a * m + b] += Li[a] * Ti[b];
        }
      }
    }
    PetscCall(PetscFree(T));
    c->has_primal = PETSC_TRUE;
  }
  if (m_out) *m_out = c->m;
  if (LC) *LC = c->LC;
  if (LE) *LE = c->LE;
  if (Mt) *Mt = c->Mt;
  if (Ct) *Ct = c->Ct;
  if (Kt) *Kt = c->Kt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CEA's eigenproblem at the current position (seed 003 Eqs. 13, 15-16) by LAPACK geev on the shift-and-invert about a real
   sigma < 0, T = (A - sigma I)^-1 (N = 2m, column-major): its eigenvalues nu = (wr, wi) give lambda = sigma + 1 / nu, the
   lowest modes (those of the CEA) to rounding relative to their own size whatever the spread of the ROM's spectrum, and its
   right eigenvectors (VR, N x N in geev's packing of conjugate pairs; not computed when VR is NULL) are those of A,
   y = (q, lambda q). With Q = K~ + sigma C~ + sigma^2 M~ and X = Q^-1 [C~ + sigma M~, M~] (m x 2m): T = [-X; [I 0] - sigma X].
   sigma is minus the smallest sqrt(K~_ii / M~_ii), the scale of the lowest coordinates (-1 if it is 0: rigid-body modes). */
static PetscErrorCode VICouplingEigenSolve(VICoupling c, PetscReal *sigma_out, PetscReal wr[], PetscReal wi[], PetscReal VR[])
{
  PetscInt     m = c->m, N = 2 * m;
  PetscReal   *A, *X, *work, wq, sigma = PETSC_MAX_REAL;
  PetscBLASInt bm, bN, nrhs, *ipiv, info, lwork = -1, one = 1, ldvr = 1;
  const char  *jobvr = VR ? "V" : "N";

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(m, &bm));
  PetscCall(PetscBLASIntCast(N, &bN));
  PetscCall(PetscBLASIntCast(N, &nrhs));
  if (VR) ldvr = bN;
  PetscCall(PetscMalloc3(N * N, &A, m * N, &X, m, &ipiv));
  PetscCall(PetscMalloc1(m * m, &work));
  for (PetscInt a = 0; a < m; a++)
    if (c->Mt[a * m + a] > 0 && c->Kt[a * m + a] > 0) sigma = PetscMin(sigma, PetscSqrtReal(c->Kt[a * m + a] / c->Mt[a * m + a]));
  sigma = sigma == PETSC_MAX_REAL ? -1.0 : -sigma;
  for (PetscInt a = 0; a < m; a++)
    for (PetscInt b = 0; b < m; b++) {
      work[b * m + a]    = c->Kt[a * m + b] + sigma * c->Ct[a * m + b] + sigma * sigma * c->Mt[a * m + b];
      X[b * m + a]       = c->Ct[a * m + b] + sigma * c->Mt[a * m + b];
      X[(m + b) * m + a] = c->Mt[a * m + b];
    }
  PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bm, &nrhs, work, &bm, ipiv, X, &bm, &info));
  PetscCheck(info == 0, c->comm, PETSC_ERR_LIB, "K~ + s C~ + s^2 M~ at position %g is singular for the shift s = %g (LAPACK gesv info %d)",
             (double)c->s, (double)sigma, (int)info);
  PetscCall(PetscFree(work));
  for (PetscInt b = 0; b < N; b++)
    for (PetscInt a = 0; a < m; a++) {
      A[b * N + a]     = -X[b * m + a];
      A[b * N + m + a] = (b == a ? 1.0 : 0.0) - sigma * X[b * m + a];
    }
  PetscCallBLAS("LAPACKgeev", LAPACKgeev_("N", jobvr, &bN, A, &bN, wr, wi, NULL, &one, VR, &ldvr, &wq, &lwork, &info));
  PetscCall(PetscBLASIntCast((PetscInt)wq, &lwork));
  PetscCall(PetscMalloc1(lwork, &work));
  PetscCallBLAS("LAPACKgeev", LAPACKgeev_("N", jobvr, &bN, A, &bN, wr, wi, NULL, &one, VR, &ldvr, work, &lwork, &info));
  PetscCheck(info == 0, c->comm, PETSC_ERR_LIB, "LAPACK geev failed with info %d at position %g", (int)info, (double)c->s);
  PetscCall(PetscFree(work));
  PetscCall(PetscFree3(A, X, ipiv));
  *sigma_out = sigma;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingGetEigenvalues(VICoupling c, PetscInt *num, const PetscReal **re, const PetscReal **im)
{
  PetscFunctionBeginUser;
  PetscCheck(c->has_position, c->comm, PETSC_ERR_ORDER, "VICouplingGetEigenvalues: no position (VICouplingSetPosition)");
  if (c->static_failure != VI_COUPLING_STATIC_OK) { /* no state to linearise about (VICouplingGetStaticFailure) */
    if (num) *num = 0;
    if (re) *re = NULL;
    if (im) *im = NULL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VICouplingGetPrimal(c, NULL, NULL, NULL, NULL, NULL, NULL));
  if (!c->has_eigen) {
    PetscInt   N = 2 * c->m, ne = 0;
    PetscReal *wr, *wi, sigma, numax = 0;
    PetscCall(PetscMalloc2(N, &wr, N, &wi));
    PetscCall(VICouplingEigenSolve(c, &sigma, wr, wi, NULL));
    for (PetscInt i = 0; i < N; i++) numax = PetscMax(numax, PetscSqrtReal(wr[i] * wr[i] + wi[i] * wi[i]));
    PetscCall(PetscMalloc2(N, &c->eig_re, N, &c->eig_im));
    for (PetscInt i = 0; i < N; i++) {
      PetscReal a2 = wr[i] * wr[i] + wi[i] * wi[i];
      PetscCheck(a2 > PetscSqr(1e-14 * numax), c->comm, PETSC_ERR_USER_INPUT,
                 "The coupled mass matrix M~ = L_E^T M L_C at position %g is singular (an infinite eigenvalue): mu = %g too large?", (double)c->s,
                 (double)c->mu);
      if (-wi[i] >= 0) {
        c->eig_re[ne] = sigma + wr[i] / a2;
        c->eig_im[ne] = wi[i] == 0 ? 0 : -wi[i] / a2; /* +0, not -0, for a real eigenvalue: the same bits after a sum over ranks */
        ne++;
      }
    }
    /* insertion sort by imaginary part, then by real part (descending) */
    for (PetscInt i = 1; i < ne; i++) {
      PetscReal r = c->eig_re[i], s = c->eig_im[i];
      PetscInt  j = i - 1;
      while (j >= 0 && (c->eig_im[j] > s || (c->eig_im[j] == s && c->eig_re[j] < r))) {
        c->eig_re[j + 1] = c->eig_re[j];
        c->eig_im[j + 1] = c->eig_im[j];
        j--;
      }
      c->eig_re[j + 1] = r;
      c->eig_im[j + 1] = s;
    }
    c->num_eig = ne;
    PetscCall(PetscFree2(wr, wi));
    c->has_eigen = PETSC_TRUE;
  }
  *num = c->num_eig;
  if (re) *re = c->eig_re;
  if (im) *im = c->eig_im;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* u = L_C q (seed 003 Eq. 8) for a complex q (m), normalised: ||u||_2 = 1 and w^T u real and > 0 with the fixed weights
   w_i = frac((i + 1) g), g = (sqrt(5) - 1) / 2, a low-discrepancy sequence in (0, 1). The phase is then a smooth function of
   u: no tie between entries of equal modulus to break (as with "the largest entry real"), and no symmetry of a mode shape
   makes w^T u vanish. Zeros are +0 (x + 0.0), so that a sum over ranks of zero-filled arrays keeps them bit for bit. */
static PetscErrorCode VICouplingModeShape(VICoupling c, const PetscReal qr[], const PetscReal qi[], PetscReal ur[], PetscReal ui[])
{
  const PetscInt m = c->m, n = c->n;
  PetscReal      nrm = 0, zr = 0, zi = 0, az, pr, pi;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal *L = c->LC + i * m, w = PetscFmodReal((i + 1) * VI_COUPLING_PHASE_STEP, 1.0);
    PetscReal        sr = 0, si = 0;
    for (PetscInt a = 0; a < m; a++) {
      sr += L[a] * qr[a];
      si += L[a] * qi[a];
    }
    ur[i] = sr;
    ui[i] = si;
    nrm += sr * sr + si * si;
    zr += w * sr;
    zi += w * si;
  }
  nrm = PetscSqrtReal(nrm);
  az  = PetscSqrtReal(zr * zr + zi * zi);
  PetscCheck(nrm > 0, c->comm, PETSC_ERR_PLIB, "A zero eigenvector at position %g", (double)c->s);
  if (az > 0) { /* u conj(z) / (|z| |u|) */
    pr = zr / (az * nrm);
    pi = -zi / (az * nrm);
  } else {
    PetscCall(PetscInfo(NULL, "Eigenvector at position %g: w^T u = 0, its phase left as geev's\n", (double)c->s));
    pr = 1 / nrm;
    pi = 0;
  }
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal r = ur[i] * pr - ui[i] * pi, s = ur[i] * pi + ui[i] * pr;
    ur[i] = r + 0.0;
    ui[i] = s + 0.0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingGetEigenvectors(VICoupling c, PetscInt *num, PetscInt *n_out, const PetscReal **vr, const PetscReal **vi)
{
  const PetscReal *lre, *lim;
  PetscInt         ne;

  PetscFunctionBeginUser;
  PetscCall(VICouplingGetEigenvalues(c, &ne, &lre, &lim));
  if (c->static_failure != VI_COUPLING_STATIC_OK) {
    if (num) *num = 0;
    if (n_out) *n_out = c->n;
    if (vr) *vr = NULL;
    if (vi) *vi = NULL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!c->has_vectors) {
    const PetscInt m = c->m, N = 2 * m, n = c->n;
    PetscReal     *wr, *wi, *VR, *lr, *li, *qr, *qi, sigma;
    PetscBool     *used;
    /* geev again, with vectors: its eigenvalues can differ from those of the run without them in the last bits, so each
       kept eigenvalue takes the vector of the nearest one not taken yet; the eigenvalues stay those of
       VICouplingGetEigenvalues, whether vectors are asked for or not */
    PetscCall(PetscMalloc5(N, &wr, N, &wi, N * N, &VR, N, &lr, N, &li));
    PetscCall(PetscMalloc3(N, &used, m, &qr, m, &qi));
    PetscCall(VICouplingEigenSolve(c, &sigma, wr, wi, VR));
    for (PetscInt i = 0; i < N; i++) {
      const PetscReal a2 = wr[i] * wr[i] + wi[i] * wi[i];
      lr[i]              = sigma + wr[i] / a2;
      li[i]              = -wi[i] / a2;
      used[i]            = PETSC_FALSE;
    }
    PetscCall(PetscMalloc2(ne * n, &c->vec_re, ne * n, &c->vec_im));
    for (PetscInt j = 0; j < ne; j++) {
      PetscInt  i    = -1, col;
      PetscReal best = PETSC_MAX_REAL, sign;
      for (PetscInt k = 0; k < N; k++) {
        const PetscReal d = PetscSqrtReal(PetscSqr(lr[k] - lre[j]) + PetscSqr(li[k] - lim[j]));
        if (!used[k] && d < best) {
          best = d;
          i    = k;
        }
      }
      PetscCheck(i >= 0 && best <= 1e-6 * PetscSqrtReal(PetscSqr(lre[j] - sigma) + PetscSqr(lim[j])), c->comm, PETSC_ERR_LIB,
                 "Eigenvalue %g%+gj at position %g: LAPACK geev with vectors finds none closer than %g", (double)lre[j], (double)lim[j], (double)c->s,
                 (double)best);
      used[i] = PETSC_TRUE;
      /* geev's pair: wi[k] > 0 at k, < 0 at k + 1, eigenvectors VR_k +- j VR_{k+1}; y = (q, lambda q), q its first m rows */
      col  = wi[i] < 0 ? i - 1 : i;
      sign = wi[i] < 0 ? -1.0 : 1.0;
      for (PetscInt a = 0; a < m; a++) {
        qr[a] = VR[col * N + a];
        qi[a] = wi[i] != 0 ? sign * VR[(col + 1) * N + a] : 0;
      }
      PetscCall(VICouplingModeShape(c, qr, qi, c->vec_re + j * n, c->vec_im + j * n));
    }
    PetscCall(PetscFree5(wr, wi, VR, lr, li));
    PetscCall(PetscFree3(used, qr, qi));
    c->has_vectors = PETSC_TRUE;
  }
  *num = ne;
  if (n_out) *n_out = c->n;
  if (vr) *vr = c->vec_re;
  if (vi) *vi = c->vec_im;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingComputeStability(VICoupling c, PetscInt np, const PetscReal pos[], PetscInt nmodes, PetscReal freq[], PetscReal real[])
{
  PetscMPIInt rank, size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(c->comm, &rank));
  PetscCallMPI(MPI_Comm_size(c->comm, &size));
  /* zeros elsewhere: the sum over the ranks is exact, so the result is that of one rank, bit for bit */
  PetscCall(PetscArrayzero(freq, np * nmodes));
  PetscCall(PetscArrayzero(real, np * nmodes));
  PetscCall(PetscLogEventBegin(VI_EigenSolve, 0, 0, 0, 0));
  for (PetscInt p = rank; p < np; p += size) {
    const PetscReal *re, *im;
    PetscInt         ne;
    PetscCall(VICouplingSetPosition(c, pos[p]));
    PetscCall(VICouplingGetEigenvalues(c, &ne, &re, &im));
    for (PetscInt j = 0; j < nmodes; j++) {
      freq[p * nmodes + j] = j < ne ? im[j] / (2 * PETSC_PI) : NAN;
      real[p * nmodes + j] = j < ne ? re[j] : NAN;
    }
  }
  PetscCall(PetscLogEventEnd(VI_EigenSolve, 0, 0, 0, 0));
  PetscCall(VICouplingClearPosition(c));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, freq, (PetscMPIInt)(np * nmodes), MPIU_REAL, MPI_SUM, c->comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, real, (PetscMPIInt)(np * nmodes), MPIU_REAL, MPI_SUM, c->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingComputeModeShapes(VICoupling c, PetscInt np, const PetscReal pos[], PetscInt nmodes, const PetscBool keep[], PetscReal vr[],
                                           PetscReal vi[])
{
  const PetscInt n = c->n;
  PetscMPIInt    rank, size, count;
  PetscInt      *first, nsel = 0, nrow = 0;

  PetscFunctionBeginUser;
  PetscCheck(c->setup, c->comm, PETSC_ERR_ORDER, "VICouplingComputeModeShapes: call VICouplingSetUp first");
  PetscCallMPI(MPI_Comm_rank(c->comm, &rank));
  PetscCallMPI(MPI_Comm_size(c->comm, &size));
  /* first[p]: the row of position p's first selected mode, -1 if it has none; the positions with one are dealt to the ranks */
  PetscCall(PetscMalloc1(np, &first));
  for (PetscInt p = 0; p < np; p++) {
    PetscInt k = 0;
    for (PetscInt j = 0; j < nmodes; j++) k += keep[p * nmodes + j] ? 1 : 0;
    first[p] = k ? nrow : -1;
    nrow += k;
  }
  PetscCall(PetscMPIIntCast(nrow * n, &count));
  PetscCall(PetscArrayzero(vr, nrow * n));
  PetscCall(PetscArrayzero(vi, nrow * n));
  PetscCall(PetscLogEventBegin(VI_EigenSolve, 0, 0, 0, 0));
  for (PetscInt p = 0; p < np; p++) {
    const PetscReal *ur, *ui;
    PetscInt         ne, row;
    if (first[p] < 0 || nsel++ % size != rank) continue;
    PetscCall(VICouplingSetPosition(c, pos[p]));
    PetscCall(VICouplingGetEigenvectors(c, &ne, NULL, &ur, &ui));
    row = first[p];
    for (PetscInt j = 0; j < nmodes; j++) {
      if (!keep[p * nmodes + j]) continue;
      for (PetscInt i = 0; i < n; i++) {
        vr[row * n + i] = j < ne ? ur[j * n + i] : NAN;
        vi[row * n + i] = j < ne ? ui[j * n + i] : NAN;
      }
      row++;
    }
  }
  PetscCall(PetscLogEventEnd(VI_EigenSolve, 0, 0, 0, 0));
  PetscCall(VICouplingClearPosition(c));
  PetscCall(PetscFree(first));
  /* zeros elsewhere, and +0 in the vectors: the sum is exact, the arrays those of one rank bit for bit */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, vr, count, MPIU_REAL, MPI_SUM, c->comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, vi, count, MPIU_REAL, MPI_SUM, c->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingStabilityView(VICoupling c, PetscInt np, const PetscReal pos[], PetscInt nmodes, const PetscReal freq[],
                                       const PetscReal real[], PetscViewer viewer)
{
  PetscInt  nu = 0, pmax = -1, jmax = -1;
  PetscReal rmax = -PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(c->comm, &viewer));
  for (PetscInt p = 0; p < np; p++)
    for (PetscInt j = 0; j < nmodes; j++) {
      PetscReal r = real[p * nmodes + j];
      if (PetscIsNanReal(r)) continue;
      if (r > rmax) {
        rmax = r;
        pmax = p;
        jmax = j;
      }
      if (r > 0) {
        if (!nu)
          PetscCall(PetscViewerASCIIPrintf(viewer, "Unstable modes (real part > 0), mu = %g, sliding %s:\n", (double)c->mu,
                                           VICouplingSlidings[c->sliding]));
        PetscCall(PetscViewerASCIIPrintf(viewer, "  position %g: mode %" PetscInt_FMT ", %g Hz, real part %g 1/s\n", (double)pos[p], j,
                                         (double)freq[p * nmodes + j], (double)r));
        nu++;
      }
    }
  if (!nu)
    PetscCall(PetscViewerASCIIPrintf(viewer, "No unstable mode among the %" PetscInt_FMT " lowest at %" PetscInt_FMT " positions, mu = %g\n", nmodes,
                                     np, (double)c->mu));
  if (pmax >= 0)
    PetscCall(PetscViewerASCIIPrintf(viewer, "Largest real part %g 1/s: mode %" PetscInt_FMT " (%g Hz) at position %g\n", (double)rmax, jmax,
                                     (double)freq[pmax * nmodes + jmax], (double)pos[pmax]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solve (Ar + j Ai) X = Br + j Bi (n x n, nrhs columns; all column-major) through the real form [Ar -Ai; Ai Ar]. */
static PetscErrorCode VICouplingSolveComplex(VICoupling c, PetscInt n, const PetscReal Ar[], const PetscReal Ai[], PetscInt nrhs, PetscReal Xr[],
                                             PetscReal Xi[], const char what[])
{
  PetscInt     N = 2 * n;
  PetscReal   *A, *B;
  PetscBLASInt bN, bk, *ipiv, info;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(N * N, &A, N * nrhs, &B, N, &ipiv));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      A[j * N + i]           = Ar[j * n + i];
      A[(n + j) * N + n + i] = Ar[j * n + i];
      A[j * N + n + i]       = Ai[j * n + i];
      A[(n + j) * N + i]     = -Ai[j * n + i];
    }
  for (PetscInt k = 0; k < nrhs; k++)
    for (PetscInt i = 0; i < n; i++) {
      B[k * N + i]     = Xr[k * n + i];
      B[k * N + n + i] = Xi[k * n + i];
    }
  PetscCall(PetscBLASIntCast(N, &bN));
  PetscCall(PetscBLASIntCast(nrhs, &bk));
  PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&bN, &bk, A, &bN, ipiv, B, &bN, &info));
  PetscCheck(info == 0, c->comm, PETSC_ERR_USER_INPUT, "%s is singular (LAPACK gesv info %d)", what, (int)info);
  for (PetscInt k = 0; k < nrhs; k++)
    for (PetscInt i = 0; i < n; i++) {
      Xr[k * n + i] = B[k * N + i];
      Xi[k * n + i] = B[k * N + n + i];
    }
  PetscCall(PetscFree3(A, B, ipiv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The FRF's rows of every position (c->frf_*), unless those of the last call's positions (the same pos[]). Not collective. */
static PetscErrorCode VICouplingFRFRows(VICoupling c, PetscInt np, const PetscReal pos[])
{
  const PetscInt n = c->n, ns = c->num_set, nr0 = c->num_rows, nrx = nr0 + 6;
  PetscInt      *nrp;
  PetscReal     *BCx, *BEx;

  PetscFunctionBeginUser;
  if (c->frf_pos && c->frf_np == np && np >= 0 && !memcmp(c->frf_pos, pos, sizeof(PetscReal) * np)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree2(c->frf_pos, c->frf_nr));
  PetscCall(PetscFree2(c->frf_BC, c->frf_BE));
  PetscCall(PetscMalloc2(np, &c->frf_pos, np, &c->frf_nr));
  PetscCall(PetscCalloc2(np * nrx * ns, &c->frf_BC, np * nrx * ns, &c->frf_BE));
  PetscCall(PetscArraycpy(c->frf_pos, pos, np));
  c->frf_np = np;
  nrp       = c->frf_nr;
  BCx       = c->frf_BC;
  BEx       = c->frf_BE;
  for (PetscInt p = 0; p < np; p++) {
    PetscReal *bc = BCx + p * nrx * ns, *be = BEx + p * nrx * ns;
    PetscCall(VICouplingSetPosition(c, pos[p]));
    nrp[p] = nr0;
    if (c->static_failure != VI_COUPLING_STATIC_OK) {
      nrp[p] = -1;
      continue;
    }
    for (PetscInt r = 0; r < nr0; r++)
      for (PetscInt a = 0; a < ns; a++) {
        bc[r * ns + a] = c->BC[r * n + c->set[a]];
        be[r * ns + a] = c->BE[r * n + c->set[a]];
      }
    if (c->state == VI_COUPLING_STATE_STATIC) {
      /* the geometric stiffness Kg = P G P^T on the k coordinates of C, T1, T2 (G = kg, P their unit columns): with mu =
         -G P^T u as k more multipliers, (Z + Kg) u = f + B_E^T lambda becomes Z u = f + B_E^T lambda + P mu, and Eq. 45 holds
         with the rows [B_C; G P^T] and [B_E; P^T] and the identity added to the new diagonal block (below): the same
         linearisation as the CEA's K~ */
      for (PetscInt a = 0; a < 6; a++) {
        if (c->kg_dof[a] < 0) continue;
        for (PetscInt j = 0; j < 6; j++)
          if (c->kg_dof[j] >= 0) bc[nrp[p] * ns + c->sidx[c->kg_dof[j]]] += c->kg[a * 6 + j];
        be[nrp[p] * ns + c->sidx[c->kg_dof[a]]] = 1;
        nrp[p]++;
      }
    }
  }
  PetscCall(VICouplingClearPosition(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingComputeFRF(VICoupling c, PetscInt ni, const PetscReal in[], PetscInt no, const PetscReal out[], PetscInt np,
                                    const PetscReal pos[], PetscInt nf, const PetscReal freq[], PetscReal H[])
{
  const PetscInt n = c->n, ns = c->num_set, nr0 = c->num_rows, nrx = nr0 + 6, nrhs = ni + ns;
  PetscMPIInt    rank, size;
  PetscInt      *nrp = NULL;              /* per position: its rows (-1: the static state failed) */
  PetscReal     *BCx = NULL, *BEx = NULL; /* per position, the rows of Eq. 45 (and the geometric stiffness's) on the set, nrx x ns */
  PetscInt       total = np * nf * no * ni * 2, nmax = 0;
  PetscReal     *Zr, *Zi, *Xr, *Xi;           /* per body: dynamic stiffness and the columns H [in | e_S] */
  PetscReal     *Hfr, *Hfi, *HSr, *HSi;       /* H in (n x ni, column-major), H e_S (n x ns) */
  PetscReal     *ohr, *ohi, *oHr, *oHi;       /* out^T H in (no x ni), out^T H e_S (no x ns) */
  PetscReal     *Sr, *Si, *Yr, *Yi, *Pr, *Pi; /* B_C H B_E^T (nr x nr), B_C H in (nr x ni), out^T H B_E^T (no x nr) */
  char           what[128];

  PetscFunctionBeginUser;
  PetscCheck(c->setup, c->comm, PETSC_ERR_ORDER, "VICouplingComputeFRF: call VICouplingSetUp first");
  PetscCallMPI(MPI_Comm_rank(c->comm, &rank));
  PetscCallMPI(MPI_Comm_size(c->comm, &size));
  for (PetscInt k = 0; k < c->num_bodies; k++) nmax = PetscMax(nmax, c->off[k + 1] - c->off[k]);
  PetscCall(PetscMalloc4(nmax * nmax, &Zr, nmax * nmax, &Zi, nmax * nrhs, &Xr, nmax * nrhs, &Xi));
  PetscCall(PetscMalloc4(n * ni, &Hfr, n * ni, &Hfi, n * ns, &HSr, n * ns, &HSi));
  PetscCall(PetscMalloc4(no * ni, &ohr, no * ni, &ohi, no * ns, &oHr, no * ns, &oHi));
  PetscCall(PetscMalloc6(nrx * nrx, &Sr, nrx * nrx, &Si, nrx * ni, &Yr, nrx * ni, &Yi, no * nrx, &Pr, no * nrx, &Pi));
  if (rank < nf) PetscCall(VICouplingFRFRows(c, np, pos));
  nrp = c->frf_nr;
  BCx = c->frf_BC;
  BEx = c->frf_BE;

  PetscCall(PetscArrayzero(H, total));
  PetscCall(PetscLogEventBegin(VI_Factor, 0, 0, 0, 0));
  for (PetscInt f = rank; f < nf; f += size) {
    const PetscReal w = 2 * PETSC_PI * freq[f];
    /* the uncoupled H(jw) on the inputs and on the coupling coordinates, body by body */
    for (PetscInt k = 0; k < c->num_bodies; k++) {
      PetscInt o = c->off[k], nk = c->off[k + 1] - o;
      for (PetscInt i = 0; i < nk; i++)
        for (PetscInt j = 0; j < nk; j++) {
          Zr[j * nk + i] = c->K[k][i * nk + j] - w * w * c->M[k][i * nk + j];
          Zi[j * nk + i] = w * c->D[k][i * nk + j];
        }
      PetscCall(PetscArrayzero(Xr, nk * nrhs));
      PetscCall(PetscArrayzero(Xi, nk * nrhs));
      for (PetscInt a = 0; a < ni; a++)
        for (PetscInt i = 0; i < nk; i++) Xr[a * nk + i] = in[a * n + o + i];
      for (PetscInt a = 0; a < ns; a++)
        if (c->set[a] >= o && c->set[a] < o + nk) Xr[(ni + a) * nk + c->set[a] - o] = 1;
      PetscCall(PetscSNPrintf(what, sizeof(what), "The dynamic stiffness K - w^2 M + j w C of body %" PetscInt_FMT " at %g Hz", k, (double)freq[f]));
      PetscCall(VICouplingSolveComplex(c, nk, Zr, Zi, nrhs, Xr, Xi, what));
      for (PetscInt a = 0; a < ni; a++)
        for (PetscInt i = 0; i < nk; i++) {
          Hfr[a * n + o + i] = Xr[a * nk + i];
          Hfi[a * n + o + i] = Xi[a * nk + i];
        }
      for (PetscInt a = 0; a < ns; a++)
        for (PetscInt i = 0; i < nk; i++) {
          HSr[a * n + o + i] = Xr[(ni + a) * nk + i];
          HSi[a * n + o + i] = Xi[(ni + a) * nk + i];
        }
    }
    for (PetscInt b = 0; b < no; b++) {
      const PetscReal *ob = out + b * n;
      for (PetscInt a = 0; a < ni + ns; a++) {
        const PetscReal *xr = a < ni ? Hfr + a * n : HSr + (a - ni) * n, *xi = a < ni ? Hfi + a * n : HSi + (a - ni) * n;
        PetscReal        sr = 0, si = 0;
        for (PetscInt i = 0; i < n; i++) {
          sr += ob[i] * xr[i];
          si += ob[i] * xi[i];
        }
        if (a < ni) {
          ohr[b * ni + a] = sr;
          ohi[b * ni + a] = si;
        } else {
          oHr[b * ns + a - ni] = sr;
          oHi[b * ns + a - ni] = si;
        }
      }
    }
    /* every position: Eq. 45 on the coupling coordinates */
    for (PetscInt p = 0; p < np; p++) {
      const PetscInt   nr = nrp[p];
      const PetscReal *BC = BCx + p * nrx * ns, *BE = BEx + p * nrx * ns;
      if (nr < 0) { /* no static state: NaN */
        for (PetscInt b = 0; b < no * ni; b++) H[((p * nf + f) * no * ni + b) * 2] = H[((p * nf + f) * no * ni + b) * 2 + 1] = NAN;
        continue;
      }
      PetscCall(PetscArrayzero(Sr, nr * nr));
      PetscCall(PetscArrayzero(Si, nr * nr));
      PetscCall(PetscArrayzero(Yr, nr * ni));
      PetscCall(PetscArrayzero(Yi, nr * ni));
      PetscCall(PetscArrayzero(Pr, no * nr));
      PetscCall(PetscArrayzero(Pi, no * nr));
      for (PetscInt a = 0; a < ns; a++) {
        const PetscInt j = c->set[a];
        for (PetscInt r = 0; r < nr; r++) {
          const PetscReal bc = BC[r * ns + a], be = BE[r * ns + a];
          if (bc != 0) {
            /* S(r, s) += B_C(r, j) H(j, l) B_E(s, l): column major S, row r, column s */
            for (PetscInt b = 0; b < ns; b++) {
              const PetscReal hr = HSr[b * n + j], hi = HSi[b * n + j];
              for (PetscInt s = 0; s < nr; s++) {
                const PetscReal e = BE[s * ns + b];
                if (e == 0) continue;
                Sr[s * nr + r] += bc * hr * e;
                Si[s * nr + r] += bc * hi * e;
              }
            }
            for (PetscInt i = 0; i < ni; i++) {
              Yr[i * nr + r] += bc * Hfr[i * n + j];
              Yi[i * nr + r] += bc * Hfi[i * n + j];
            }
          }
          if (be != 0)
            for (PetscInt b = 0; b < no; b++) {
              Pr[r * no + b] += oHr[b * ns + a] * be;
              Pi[r * no + b] += oHi[b * ns + a] * be;
            }
        }
      }
      for (PetscInt r = nr0; r < nr; r++) Sr[r * nr + r] += 1; /* the geometric stiffness's multipliers: mu + G P^T u = 0 */
      PetscCall(PetscSNPrintf(what, sizeof(what), "B_C H B_E^T (seed 003 Eq. 45) at position %g, %g Hz", (double)pos[p], (double)freq[f]));
      PetscCall(VICouplingSolveComplex(c, nr, Sr, Si, ni, Yr, Yi, what));
      for (PetscInt b = 0; b < no; b++)
        for (PetscInt i = 0; i < ni; i++) {
          PetscReal hr = ohr[b * ni + i], hi = ohi[b * ni + i];
          for (PetscInt r = 0; r < nr; r++) {
            hr -= Pr[r * no + b] * Yr[i * nr + r] - Pi[r * no + b] * Yi[i * nr + r];
            hi -= Pr[r * no + b] * Yi[i * nr + r] + Pi[r * no + b] * Yr[i * nr + r];
          }
          H[(((p * nf + f) * no + b) * ni + i) * 2]     = hr;
          H[(((p * nf + f) * no + b) * ni + i) * 2 + 1] = hi;
        }
    }
  }
  PetscCall(PetscLogEventEnd(VI_Factor, 0, 0, 0, 0));
  PetscCall(VICouplingClearPosition(c));
  PetscCall(PetscFree4(Zr, Zi, Xr, Xi));
  PetscCall(PetscFree4(Hfr, Hfi, HSr, HSi));
  PetscCall(PetscFree4(ohr, ohi, oHr, oHi));
  PetscCall(PetscFree6(Sr, Si, Yr, Yi, Pr, Pi));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, H, (PetscMPIInt)total, MPIU_REAL, MPI_SUM, c->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingGetNodeDof(VICoupling c, const char body[], PetscInt id, PetscInt comp, PetscInt *dof)
{
  PetscInt   k;
  VIBodyNode node = {0};

  PetscFunctionBeginUser;
  PetscCall(VICouplingFindBody(c, body, "VICouplingGetNodeDof", &k));
  PetscCheck(comp == 0 || comp == 1, c->comm, PETSC_ERR_USER_INPUT, "VICouplingGetNodeDof: component %" PetscInt_FMT ", expected 0 (x) or 1 (y)",
             comp);
  PetscCall(VIBodiesGetNode(c->bodies, k, id, "VICouplingGetNodeDof", &node));
  *dof = node.dof[comp];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICouplingView(VICoupling c, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(c->comm, &viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "Sliding coupling (seed 003 CEA, Eq. 45): %" PetscInt_FMT " bodies, %" PetscInt_FMT
                                   " coordinates, slave node %" PetscInt_FMT " on a master chain of %" PetscInt_FMT " nodes, %" PetscInt_FMT
                                   " held DOFs, mu = %g sliding %s\n",
                                   c->num_bodies, c->n, c->slave.id, c->num_master, c->num_held, (double)c->mu, VICouplingSlidings[c->sliding]));
  if (c->has_position)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  position %g: segment %" PetscInt_FMT ", xi = %g\n", (double)c->s, c->seg, (double)c->xi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The coupling analysis's options (bodies coupled at a position of the sliding path) (src/sys/options.c's registry: names, the type each is read
 * with, an enum's choices) */
static const VIOptionEntry VICouplingOptions[] = {
    {"-coupling_mu", VI_OPTION_REAL, NULL},
    {"-coupling_sliding", VI_OPTION_ENUM, VICouplingSlidings},
};

PetscErrorCode VICouplingRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRegisterTable("rom", VICouplingOptions, sizeof(VICouplingOptions) / sizeof(VICouplingOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
