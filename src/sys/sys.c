/* vicms package registration (log events) and error handling shared by all ranks. */
#include <vicms/sys.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

PetscLogEvent VI_MeshRead, VI_MeshPartition, VI_Assemble, VI_EigenSolve, VI_Factor, VI_StaticModes, VI_Project, VI_Step, VI_ContactSolve;

static PetscBool VIPackageInitialized = PETSC_FALSE;

PetscErrorCode VIInitializePackage(void)
{
  PetscClassId classid;

  PetscFunctionBeginUser;
  if (VIPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  VIPackageInitialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("vicms", &classid));
  PetscCall(PetscLogEventRegister("VI_MeshRead", classid, &VI_MeshRead));
  PetscCall(PetscLogEventRegister("VI_MeshPartition", classid, &VI_MeshPartition));
  PetscCall(PetscLogEventRegister("VI_Assemble", classid, &VI_Assemble));
  PetscCall(PetscLogEventRegister("VI_EigenSolve", classid, &VI_EigenSolve));
  PetscCall(PetscLogEventRegister("VI_Factor", classid, &VI_Factor));
  PetscCall(PetscLogEventRegister("VI_StaticModes", classid, &VI_StaticModes));
  PetscCall(PetscLogEventRegister("VI_Project", classid, &VI_Project));
  PetscCall(PetscLogEventRegister("VI_Step", classid, &VI_Step));
  PetscCall(PetscLogEventRegister("VI_ContactSolve", classid, &VI_ContactSolve));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIErrorSync(MPI_Comm comm, PetscErrorCode local_err)
{
  PetscMPIInt mine = local_err ? 1 : 0, any;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm));
  if (!any) PetscFunctionReturn(PETSC_SUCCESS);
  if (local_err) PetscFunctionReturn(local_err);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  {
    PetscErrorCode ierr =
        PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL, "failed on another rank");
    PetscCall(PetscPopErrorHandler());
    PetscFunctionReturn(ierr);
  }
}

/* MemAvailable in bytes (what the kernel can give without swapping), -1 when unknown. */
static PetscLogDouble VINodeMemoryAvailable(void)
{
  FILE          *fp = fopen("/proc/meminfo", "r");
  char           line[256];
  PetscLogDouble bytes = -1;

  if (fp) {
    while (fgets(line, sizeof(line), fp)) {
      unsigned long long kb;
      if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
        bytes = 1024.0 * (PetscLogDouble)kb;
        break;
      }
    }
    (void)fclose(fp);
  }
#if defined(_SC_AVPHYS_PAGES) && defined(_SC_PAGESIZE)
  if (bytes < 0) {
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) bytes = (PetscLogDouble)pages * (PetscLogDouble)size;
  }
#endif
  return bytes;
}

PetscErrorCode VIMemoryAvailable(MPI_Comm comm, PetscLogDouble *per_rank, PetscLogDouble *node, PetscMPIInt *ranks_on_node)
{
  MPI_Comm       shared;
  PetscMPIInt    n;
  PetscLogDouble mine[2], least[2];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
  PetscCallMPI(MPI_Comm_size(shared, &n));
  PetscCallMPI(MPI_Comm_free(&shared));
  mine[1] = VINodeMemoryAvailable();
  mine[0] = mine[1] < 0 ? PETSC_MAX_REAL : mine[1] / n; /* unknown: no limit */
  if (mine[1] < 0) mine[1] = PETSC_MAX_REAL;
  PetscCallMPI(MPI_Allreduce(mine, least, 2, MPI_DOUBLE, MPI_MIN, comm));
  if (per_rank) *per_rank = least[0];
  if (node) *node = mine[1];
  if (ranks_on_node) *ranks_on_node = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIMessagePath(const char path[], char out[], size_t len)
{
  const size_t keep = 252;
  size_t       n    = strlen(path);
  const char  *tail, *slash;

  PetscFunctionBeginUser;
  if (n <= keep + 3 || len <= keep + 4) {
    PetscCall(PetscStrncpy(out, path, len));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  tail  = path + n - keep;
  slash = strchr(tail, '/');
  if (slash && slash[1]) tail = slash; /* whole components, unless the file name alone is longer */
  PetscCall(PetscSNPrintf(out, len, "...%s", tail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Errors a user can fix get one line, printed once per communicator; everything else gets PETSc's traceback. */
static PetscBool VIIsUserError(PetscErrorCode n)
{
  return (n == PETSC_ERR_USER_INPUT || n == PETSC_ERR_FILE_OPEN || n == PETSC_ERR_FILE_READ || n == PETSC_ERR_FILE_UNEXPECTED ||
          n == PETSC_ERR_FILE_WRITE || n == PETSC_ERR_MEM)
             ? PETSC_TRUE
             : PETSC_FALSE;
}

PetscErrorCode VIErrorHandler(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess,
                              void *ctx)
{
  if (!VIIsUserError(n)) return PetscTraceBackErrorHandler(comm, line, func, file, n, p, mess, ctx);
  if (p == PETSC_ERROR_INITIAL) {
    PetscMPIInt rank = 0;
    if (comm != PETSC_COMM_SELF) MPI_Comm_rank(comm, &rank);
    if (rank == 0) (void)PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "vicms: error: %s\n", mess ? mess : "(no message)");
  }
  return n;
}

PetscErrorCode VIErrorCapture(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess,
                              void *ctx)
{
  (void)comm;
  (void)line;
  (void)func;
  (void)file;
  if (p == PETSC_ERROR_INITIAL) (void)PetscStrncpy((char *)ctx, mess ? mess : "error", 256);
  return n;
}
