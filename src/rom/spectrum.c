/* The spectrum of a ROM with its boundary free (dense LAPACK on the small replicated matrices). */
#include <vicms/rom.h>
#include <petscblaslapack.h>

PetscErrorCode VIROMFreeFrequencies(VIROM rom, PetscInt *nout, PetscReal freq[])
{
  PetscInt     nb, nm, n, m, off;
  PetscBool    massless;
  VICMSType    method;
  PetscReal   *K, *M, *D, *A, *B, *w, *work, lwork_opt;
  PetscBLASInt bm, info, itype = 1, lwork = -1;

  PetscFunctionBeginUser;
  PetscCall(VIROMGetSizes(rom, &nb, &nm));
  PetscCall(VIROMGetMethod(rom, &method, &massless));
  PetscCall(VIROMGetMatrices(rom, &K, &M, &D));
  n   = nb + nm;
  m   = massless ? nm : n;
  off = massless ? nb : 0;
  PetscCall(PetscMalloc3(m * m, &A, m * m, &B, m, &w));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) {
      A[i * m + j] = K[(off + i) * n + off + j];
      B[i * m + j] = M[(off + i) * n + off + j];
    }
  if (massless && nb > 0) {
    /* Schur complement K_ii - K_ib K_bb^-1 K_bi */
    PetscReal   *Kbb, *X;
    PetscBLASInt bnb, bnm;
    PetscCall(PetscMalloc2(nb * nb, &Kbb, nb * nm, &X));
    for (PetscInt i = 0; i < nb; i++)
      for (PetscInt j = 0; j < nb; j++) Kbb[i * nb + j] = K[i * n + j];
    for (PetscInt i = 0; i < nb; i++)
      for (PetscInt k = 0; k < nm; k++) X[k * nb + i] = K[i * n + nb + k]; /* column-major nb x nm: K_bi */
    PetscCall(PetscBLASIntCast(nb, &bnb));
    PetscCall(PetscBLASIntCast(nm, &bnm));
    PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bnb, Kbb, &bnb, &info));
    PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "The ROM's boundary stiffness K_bb is not positive definite (potrf info %d)",
               (int)info);
    PetscCallBLAS("LAPACKpotrs", LAPACKpotrs_("L", &bnb, &bnm, Kbb, &bnb, X, &bnb, &info));
    for (PetscInt k = 0; k < nm; k++)
      for (PetscInt l = 0; l < nm; l++) {
        PetscReal s = 0;
        for (PetscInt i = 0; i < nb; i++) s += K[i * n + nb + k] * X[l * nb + i];
        A[k * m + l] -= s;
      }
    PetscCall(PetscFree2(Kbb, X));
  }
  PetscCall(PetscBLASIntCast(m, &bm));
  PetscCallBLAS("LAPACKsygv", LAPACKsygv_(&itype, "N", "L", &bm, A, &bm, B, &bm, w, &lwork_opt, &lwork, &info));
  PetscCall(PetscBLASIntCast((PetscInt)lwork_opt, &lwork));
  PetscCall(PetscMalloc1(lwork, &work));
  PetscCallBLAS("LAPACKsygv", LAPACKsygv_(&itype, "N", "L", &bm, A, &bm, B, &bm, w, work, &lwork, &info));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "The ROM's free eigenproblem failed (sygv info %d): is M positive definite on the modal coordinates?", (int)info);
  for (PetscInt k = 0; k < m; k++) freq[k] = PetscSqrtReal(PetscMax(w[k], 0)) / (2 * PETSC_PI);
  *nout = m;
  PetscCall(PetscFree(work));
  PetscCall(PetscFree3(A, B, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}
