/* From the basis R to the ROM: reduced K, M (seed 000 Eqs. 19, 21, 24), damping, loads and outputs. */
#include "cmsimpl.h"
#include <vicms/sys.h>
#include <petscblaslapack.h>

PetscErrorCode VIDenseGemm(const char ta[], PetscInt m, PetscInt n, PetscInt k, PetscReal alpha, const PetscReal A[], PetscInt lda,
                           const PetscReal B[], PetscInt ldb, PetscReal beta, PetscReal C[], PetscInt ldc)
{
  PetscBLASInt bm, bn, bk, blda, bldb, bldc;

  PetscFunctionBeginUser;
  if (m == 0 || n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscBLASIntCast(m, &bm));
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(k, &bk));
  PetscCall(PetscBLASIntCast(PetscMax(lda, 1), &blda));
  PetscCall(PetscBLASIntCast(PetscMax(ldb, 1), &bldb));
  PetscCall(PetscBLASIntCast(PetscMax(ldc, 1), &bldc));
  PetscCallBLAS("BLASgemm", BLASgemm_(ta, "N", &bm, &bn, &bk, &alpha, A, &blda, B, &bldb, &beta, C, &bldc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSRtAR(VICMS cms, Mat A, PetscReal out[])
{
  Mat                AR;
  const PetscScalar *r, *ar;
  PetscInt           nlocal, n, lda, ldb;
  PetscReal         *local;

  PetscFunctionBeginUser;
  PetscCall(MatMatMult(A, cms->R, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &AR));
  PetscCall(MatGetLocalSize(cms->R, &nlocal, NULL));
  PetscCall(MatGetSize(cms->R, NULL, &n));
  PetscCall(PetscCalloc1(n * n, &local));
  PetscCall(MatDenseGetArrayRead(cms->R, &r));
  PetscCall(MatDenseGetArrayRead(AR, &ar));
  PetscCall(MatDenseGetLDA(cms->R, &lda));
  PetscCall(MatDenseGetLDA(AR, &ldb));
  PetscCall(VIDenseGemm("T", n, n, nlocal, 1.0, r, lda, ar, ldb, 0.0, local, n));
  PetscCall(MatDenseRestoreArrayRead(AR, &ar));
  PetscCall(MatDenseRestoreArrayRead(cms->R, &r));
  PetscCallMPI(MPI_Allreduce(local, out, (PetscMPIInt)(n * n), MPIU_REAL, MPIU_SUM, cms->comm));
  /* symmetric in exact arithmetic: keep it symmetric to the last bit */
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = i + 1; j < n; j++) out[i * n + j] = out[j * n + i] = 0.5 * (out[i * n + j] + out[j * n + i]);
  PetscCall(PetscFree(local));
  PetscCall(MatDestroy(&AR));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSRtV(VICMS cms, Vec v, PetscReal out[])
{
  const PetscScalar *r, *a;
  PetscInt           nlocal, n, lda;
  PetscReal         *local;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(cms->R, &nlocal, NULL));
  PetscCall(MatGetSize(cms->R, NULL, &n));
  PetscCall(PetscCalloc1(n, &local));
  PetscCall(MatDenseGetArrayRead(cms->R, &r));
  PetscCall(MatDenseGetLDA(cms->R, &lda));
  PetscCall(VecGetArrayRead(v, &a));
  PetscCall(VIDenseGemm("T", n, 1, nlocal, 1.0, r, lda, a, nlocal, 0.0, local, n));
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscCall(MatDenseRestoreArrayRead(cms->R, &r));
  PetscCallMPI(MPI_Allreduce(local, out, (PetscMPIInt)n, MPIU_REAL, MPIU_SUM, cms->comm));
  PetscCall(PetscFree(local));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VICMSCopyInner(VICMS cms, Vec inner, Vec full, PetscBool to_full)
{
  const PetscInt *idx;
  PetscInt        ni, rstart;
  PetscScalar    *f, *s;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(full, &rstart, NULL));
  PetscCall(ISGetLocalSize(cms->is_i, &ni));
  PetscCall(ISGetIndices(cms->is_i, &idx));
  PetscCall(VecGetArray(full, &f));
  PetscCall(VecGetArray(inner, &s));
  for (PetscInt k = 0; k < ni; k++) {
    if (to_full)
      f[idx[k] - rstart] = s[k];
    else
      s[k] = f[idx[k] - rstart];
  }
  PetscCall(VecRestoreArray(inner, &s));
  PetscCall(VecRestoreArray(full, &f));
  PetscCall(ISRestoreIndices(cms->is_i, &idx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSInnerToFull(VICMS cms, Vec inner, Vec full)
{
  PetscFunctionBeginUser;
  PetscCall(VICMSCopyInner(cms, inner, full, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSFullToInner(VICMS cms, Vec full, Vec inner)
{
  PetscFunctionBeginUser;
  PetscCall(VICMSCopyInner(cms, inner, full, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "NODE:DIR" or "SET:DIR:VALUE": the name before the first colon, the direction x|y|z, the optional value. */
static PetscErrorCode VIParseItem(MPI_Comm comm, const char option[], const char item[], PetscBool want_value, char name[64], PetscInt *dir,
                                  PetscReal *value)
{
  char        buf[256], *c1, *c2 = NULL, *end;
  const char *format = want_value ? "SET:DIR:VALUE, e.g. tip:y:1.5" : "NODE:DIR, e.g. 1353:y";

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(buf, item, sizeof(buf)));
  c1 = strchr(buf, ':');
  if (c1) c2 = strchr(c1 + 1, ':');
  PetscCheck(c1 && (want_value ? c2 != NULL : c2 == NULL), comm, PETSC_ERR_USER_INPUT, "%s: '%s' is not of the form %s", option, item, format);
  *c1 = 0;
  if (c2) *c2 = 0;
  PetscCall(PetscStrncpy(name, buf, 64));
  PetscCheck(strlen(c1 + 1) == 1 && (c1[1] == 'x' || c1[1] == 'y' || c1[1] == 'z'), comm, PETSC_ERR_USER_INPUT,
             "%s: in '%s' the direction '%s' is not x, y or z", option, item, c1 + 1);
  *dir = c1[1] - 'x';
  if (want_value) {
    *value = strtod(c2 + 1, &end);
    PetscCheck(end != c2 + 1 && *end == 0, comm, PETSC_ERR_USER_INPUT, "%s: in '%s' the value '%s' is not a number", option, item, c2 + 1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reduced vector R^T Q^T f of a load f given in the global frame. */
static PetscErrorCode VICMSReduceLoad(VICMS cms, Vec f, PetscReal out[])
{
  PetscFunctionBeginUser;
  if (cms->Q) {
    Vec fhat;
    PetscCall(VecDuplicate(f, &fhat));
    PetscCall(MatMultTranspose(cms->Q, f, fhat));
    PetscCall(VICMSRtV(cms, fhat, out));
    PetscCall(VecDestroy(&fhat));
  } else
    PetscCall(VICMSRtV(cms, f, out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VICMSLoadsAndOutputs(VICMS cms, VIROM rom, PetscInt n)
{
  VIMesh     mesh;
  PetscInt   dim, rstart, rend, *dofs;
  Vec        f;
  PetscReal *red;
  Mat        K, M;

  PetscFunctionBeginUser;
  PetscCall(VIModelGetMesh(cms->model, &mesh));
  PetscCall(VIMeshGetDimension(mesh, &dim));
  PetscCall(VIModelGetMatrices(cms->model, &K, &M));
  PetscCall(MatCreateVecs(K, &f, NULL));
  PetscCall(VecGetOwnershipRange(f, &rstart, &rend));
  PetscCall(PetscMalloc1(n, &red));
  if (cms->gravity_set) {
    /* body force M g: g on every translational DOF */
    Vec g;
    PetscCall(VecDuplicate(f, &g));
    PetscCall(VecSet(g, 0));
    for (PetscInt d = 0; d < dim; d++) {
      PetscCall(VIModelGetRigidTranslation(cms->model, d, f));
      PetscCall(VecAXPY(g, cms->gravity[d], f));
    }
    PetscCall(MatMult(M, g, f));
    PetscCall(VICMSReduceLoad(cms, f, red));
    PetscCall(VIROMAddLoad(rom, "gravity", red));
    PetscCall(VecDestroy(&g));
  }
  for (PetscInt k = 0; k < cms->num_forces; k++) {
    char            name[64];
    PetscInt        dir, nset;
    PetscReal       value;
    const PetscInt *nodes;
    PetscCall(VIParseItem(cms->comm, "-cms_forces", cms->forces[k], PETSC_TRUE, name, &dir, &value));
    PetscCheck(dir < dim, cms->comm, PETSC_ERR_USER_INPUT, "-cms_forces: '%s' acts in direction %c of a %" PetscInt_FMT "D model", cms->forces[k],
               (char)('x' + dir), dim);
    PetscCall(VIMeshRequireNodeSet(mesh, "-cms_forces", name, &nset, &nodes));
    PetscCall(VecSet(f, 0));
    PetscCall(PetscMalloc1(nset * dim, &dofs));
    PetscCall(VIModelGetNodeDofs(cms->model, nset, nodes, dofs));
    for (PetscInt i = 0; i < nset; i++) {
      PetscInt dof = dofs[i * dim + dir];
      if (dof >= rstart && dof < rend) PetscCall(VecSetValue(f, dof, value, INSERT_VALUES));
    }
    PetscCall(PetscFree(dofs));
    PetscCall(VecAssemblyBegin(f));
    PetscCall(VecAssemblyEnd(f));
    PetscCall(VICMSReduceLoad(cms, f, red));
    PetscCall(VIROMAddLoad(rom, name, red));
  }
  /* an output row o gives the physical DOF o . q; it is the reduced load of a unit force on that DOF. NODE:DIR is one output
     n<NODE>_<dir>; SET:DIR one per node of the set, SET_<dir> for a set of one node, SET_n<NODE>_<dir> otherwise */
  for (PetscInt k = 0; k < cms->num_outputs; k++) {
    char            name[64], *end;
    PetscInt        dir, id, node, nset = 1, *ids;
    const PetscInt *nodes = &node;
    PetscBool       is_set;
    PetscCall(VIParseItem(cms->comm, "-cms_outputs", cms->outputs[k], PETSC_FALSE, name, &dir, NULL));
    id     = (PetscInt)strtol(name, &end, 10);
    is_set = (PetscBool)(!*name || *end);
    PetscCheck(dir < dim, cms->comm, PETSC_ERR_USER_INPUT, "-cms_outputs: '%s' asks direction %c of a %" PetscInt_FMT "D model", cms->outputs[k],
               (char)('x' + dir), dim);
    if (is_set)
      PetscCall(VIMeshRequireNodeSet(mesh, "-cms_outputs", name, &nset, &nodes));
    else {
      PetscCall(VIMeshFindNodes(mesh, 1, &id, &node)); /* collective: every rank parses the same output */
      PetscCheck(node >= 0, cms->comm, PETSC_ERR_USER_INPUT, "-cms_outputs: node %" PetscInt_FMT " is not in the mesh", id);
    }
    PetscCall(PetscMalloc2(nset * dim, &dofs, nset, &ids));
    PetscCall(VIModelGetNodeDofs(cms->model, nset, nodes, dofs));
    if (is_set && nset > 1) PetscCall(VIModelGetNodeCoordinates(cms->model, nset, nodes, NULL, ids)); /* the labels' node ids */
    for (PetscInt i = 0; i < nset; i++) {
      char     label[160];
      PetscInt dof = dofs[i * dim + dir];
      PetscCall(VecSet(f, 0));
      if (dof >= rstart && dof < rend) PetscCall(VecSetValue(f, dof, 1.0, INSERT_VALUES));
      PetscCall(VecAssemblyBegin(f));
      PetscCall(VecAssemblyEnd(f));
      PetscCall(VICMSReduceLoad(cms, f, red));
      if (!is_set)
        PetscCall(PetscSNPrintf(label, sizeof(label), "n%" PetscInt_FMT "_%c", id, (char)('x' + dir)));
      else if (nset == 1)
        PetscCall(PetscSNPrintf(label, sizeof(label), "%s_%c", name, (char)('x' + dir)));
      else
        PetscCall(PetscSNPrintf(label, sizeof(label), "%s_n%" PetscInt_FMT "_%c", name, ids[i], (char)('x' + dir)));
      PetscCall(VIROMAddOutput(rom, label, red));
    }
    PetscCall(PetscFree2(dofs, ids));
  }
  PetscCall(PetscFree(red));
  PetscCall(VecDestroy(&f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Reduced coordinates of the rigid translations along each axis, q = (R^T M R)^-1 R^T M u, stored as shapes
  "translation_x" ... only where the basis represents the translation (relative M-norm residual below 1e-6; exact in
  exact arithmetic), e.g. for a free-floating parent whose boundary includes that direction. Mfull = R^T M R (n x n).
*/
static PetscErrorCode VICMSTranslationShapes(VICMS cms, VIROM rom, const PetscReal Mfull[], PetscInt n)
{
  VIMesh       mesh;
  PetscInt     dim;
  Vec          u, uhat, Mu;
  PetscReal   *b, *L, *q;
  PetscBLASInt bn, one = 1, info;

  PetscFunctionBeginUser;
  PetscCall(VIModelGetMesh(cms->model, &mesh));
  PetscCall(VIMeshGetDimension(mesh, &dim));
  PetscCall(MatCreateVecs(cms->K, &u, &Mu));
  PetscCall(VecDuplicate(u, &uhat));
  PetscCall(PetscMalloc3(n, &b, n * n, &L, n, &q));
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscArraycpy(L, Mfull, n * n));
  PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bn, L, &bn, &info));
  for (PetscInt d = 0; d < dim && info == 0; d++) {
    PetscScalar uMu;
    PetscReal   bq = 0;
    char        name[32];
    PetscCall(VIModelGetRigidTranslation(cms->model, d, u));
    if (cms->Q)
      PetscCall(MatMultTranspose(cms->Q, u, uhat));
    else
      PetscCall(VecCopy(u, uhat));
    PetscCall(MatMult(cms->M, uhat, Mu));
    PetscCall(VecDot(uhat, Mu, &uMu));
    PetscCall(VICMSRtV(cms, Mu, b));
    PetscCall(PetscArraycpy(q, b, n));
    PetscCallBLAS("LAPACKpotrs", LAPACKpotrs_("L", &bn, &one, L, &bn, q, &bn, &info));
    for (PetscInt k = 0; k < n; k++) bq += b[k] * q[k];
    /* Galerkin: ||u - R q||_M^2 = u^T M u - b^T q */
    if (PetscRealPart(uMu) > 0 && PetscAbsReal(PetscRealPart(uMu) - bq) < 1e-12 * PetscRealPart(uMu)) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "translation_%c", (char)('x' + d)));
      PetscCall(VIROMAddShape(rom, name, q));
    }
  }
  PetscCall(PetscFree3(b, L, q));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&uhat));
  PetscCall(VecDestroy(&Mu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSProject(VICMS cms, VIROM rom)
{
  PetscInt   nb = cms->nb, nm = cms->num_modes, n = nb + nm;
  PetscReal *K, *M, *D, *freq, *Mfull;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(VI_Project, 0, 0, 0, 0));
  PetscCall(VIROMSetSizes(rom, cms->type, nb, nm));
  PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
  PetscCall(VIROMGetFrequencies(rom, &freq));
  PetscCall(VICMSRtAR(cms, cms->K, K));
  PetscCall(PetscMalloc1(n * n, &Mfull));
  PetscCall(VICMSRtAR(cms, cms->M, Mfull));
  if (cms->type == VI_CMS_MACNEAL) {
    /* Eq. (19): the boundary carries no mass, the modal block is the identity */
    PetscCall(PetscArrayzero(M, n * n));
    for (PetscInt k = 0; k < nm; k++) M[(nb + k) * n + nb + k] = 1.0;
  } else {
    PetscCall(PetscArraycpy(M, Mfull, n * n));
    if (cms->type == VI_CMS_CB_MASSLESS) {
      /* Eq. (24): M_bi vanishes by construction of alpha; M*_bb is dropped */
      PetscReal mbi = 0;
      for (PetscInt i = 0; i < nb; i++)
        for (PetscInt j = nb; j < n; j++) mbi = PetscMax(mbi, PetscAbsReal(M[i * n + j]));
      PetscCall(PetscInfo(NULL, "massless Craig-Bampton: max |M_bi| before zeroing %g\n", (double)mbi));
      for (PetscInt i = 0; i < n; i++)
        for (PetscInt j = 0; j < n; j++)
          if (i < nb || j < nb) M[i * n + j] = 0;
    }
  }
  PetscCall(PetscArrayzero(D, n * n));
  if (cms->rayleigh_set) {
    for (PetscInt i = 0; i < n * n; i++) D[i] = cms->rayleigh[0] * M[i] + cms->rayleigh[1] * K[i];
  } else {
    for (PetscInt k = 0; k < nm; k++) {
      PetscReal zeta           = cms->num_damping_ratios > 0 ? cms->damping_ratios[PetscMin(k, cms->num_damping_ratios - 1)] : cms->damping_ratio;
      D[(nb + k) * n + nb + k] = 2 * zeta * PetscSqrtReal(cms->omega2[k]);
    }
  }
  for (PetscInt k = 0; k < nm; k++) freq[k] = PetscSqrtReal(cms->omega2[k]) / (2 * PETSC_PI);
  PetscCall(VIROMSetContacts(rom, cms->num_contacts, cms->contacts));
  PetscCall(VIROMSetUnits(rom, cms->units));
  PetscCall(VICMSLoadsAndOutputs(cms, rom, n));
  PetscCall(VICMSTranslationShapes(cms, rom, Mfull, n));
  PetscCall(PetscFree(Mfull));
  PetscCall(PetscLogEventEnd(VI_Project, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
