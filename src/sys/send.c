/* VISFCreateSend: the PetscSF that carries blocks of entries from their senders to ranks that do not know who sends them. */
#include <vicms/sys.h>
#include <petscsf.h>

PetscErrorCode VISFCreateSend(MPI_Comm comm, PetscMPIInt nto, const PetscMPIInt toranks[], const PetscInt tocounts[], PetscSF *sf)
{
  PetscMPIInt  nfrom, *fromranks, *order;
  PetscInt    *todata, *fromdata, nroots = 0, nleaves = 0;
  PetscSFNode *remote;

  PetscFunctionBeginUser;
  /* each destination learns the count and the offset of its block in the sender's buffer (PetscCommBuildTwoSided: no message
     from a rank that sends nothing, no array of the communicator's size) */
  PetscCall(PetscMalloc1(2 * PetscMax(nto, 1), &todata));
  for (PetscMPIInt k = 0; k < nto; k++) {
    todata[2 * k]     = tocounts[k];
    todata[2 * k + 1] = nroots;
    nroots += tocounts[k];
  }
  PetscCall(PetscCommBuildTwoSided(comm, 2, MPIU_INT, nto, toranks, todata, &nfrom, &fromranks, &fromdata));
  PetscCall(PetscFree(todata));
  /* the leaves in the senders' rank order, whatever order the messages came in: the same leaves on every run */
  PetscCall(PetscMalloc1(PetscMax(nfrom, 1), &order));
  for (PetscMPIInt k = 0; k < nfrom; k++) order[k] = k;
  PetscCall(PetscSortMPIIntWithArray(nfrom, fromranks, order));
  for (PetscMPIInt k = 0; k < nfrom; k++) nleaves += fromdata[2 * order[k]];
  PetscCall(PetscMalloc1(PetscMax(nleaves, 1), &remote));
  for (PetscMPIInt k = 0, n = 0; k < nfrom; k++)
    for (PetscInt j = 0; j < fromdata[2 * order[k]]; j++, n++) {
      remote[n].rank  = fromranks[k];
      remote[n].index = fromdata[2 * order[k] + 1] + j;
    }
  PetscCall(PetscFree(order));
  PetscCall(PetscFree(fromranks));
  PetscCall(PetscFree(fromdata));
  PetscCall(PetscSFCreate(comm, sf));
  PetscCall(PetscSFSetGraph(*sf, nroots, nleaves, NULL, PETSC_OWN_POINTER, remote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(*sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}
