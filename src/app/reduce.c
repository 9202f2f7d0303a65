/* `vicms reduce`: parent model -> component mode synthesis -> ROM file, which records the reduction that made it. */
#include "app.h"
#include <ctype.h>
#include <stdio.h>
#include <sys/stat.h>

/* FNV-1a over bytes, continued from h. */
static unsigned long long VIHashBytes(unsigned long long h, const void *data, size_t len)
{
  const unsigned char *b = (const unsigned char *)data;
  for (size_t i = 0; i < len; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

/* The INPUT= file of an Abaqus *INCLUDE keyword line (NULL-terminated in place), or NULL when line is none. */
static char *VIIncludeTarget(char *line)
{
  char *p = line, *q;

  while (*p == ' ' || *p == '\t') p++;
  if (*p != '*' || p[1] == '*') return NULL;
  p++;
  while (*p == ' ') p++;
  if (strncasecmp(p, "include", 7) || (isalnum((unsigned char)p[7]) || p[7] == '_')) return NULL;
  for (q = p + 7; *q; q++)
    if (!strncasecmp(q, "input", 5)) {
      char *v = q + 5, *e;
      while (*v == ' ') v++;
      if (*v != '=') continue;
      v++;
      while (*v == ' ' || *v == '"') v++;
      for (e = v; *e && *e != ',' && *e != '"' && *e != '\r' && *e != '\n'; e++)
        ;
      while (e > v && e[-1] == ' ') e--;
      *e = 0;
      return v;
    }
  return NULL;
}

/* Hash the bytes of a mesh file and, for an Abaqus deck, of the files it *INCLUDEs (relative to the including file's
   folder, as the reader resolves them). A path that is not a readable regular file is hashed by name: the reader
   reports it. Rank-local. */
static PetscErrorCode VIHashMeshFile(const char path[], PetscInt depth, unsigned long long *h)
{
  struct stat st;
  FILE       *fp;
  char       *buf, *line, *save = NULL;
  size_t      n;

  PetscFunctionBeginUser;
  *h = VIHashBytes(*h, "|file|", 6);
  if (depth > 16 || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(fp = fopen(path, "rb"))) {
    *h = VIHashBytes(*h, path, strlen(path));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1((size_t)st.st_size + 1, &buf));
  n = fread(buf, 1, (size_t)st.st_size, fp);
  fclose(fp);
  buf[n] = 0;
  *h     = VIHashBytes(*h, buf, n);
  for (size_t i = 0; i < n; i++)
    if (!buf[i]) buf[i] = ' ';
  for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *target = VIIncludeTarget(line), inc[PETSC_MAX_PATH_LEN];
    if (!target || !target[0]) continue;
    if (target[0] == '/')
      PetscCall(PetscStrncpy(inc, target, sizeof(inc)));
    else {
      const char *slash = strrchr(path, '/');
      int         dl    = slash ? (int)(slash - path) + 1 : 0;
      PetscCall(PetscSNPrintf(inc, sizeof(inc), "%.*s%s", dl, path, target));
    }
    PetscCall(VIHashMeshFile(inc, depth + 1, h));
  }
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppReductionFingerprint(MPI_Comm comm, char **fingerprint)
{
  static const char *const keep[]   = {"-mesh_", "-model_", "-cms_"};
  static const char *const ignore[] = {"-mesh_file"};
  PetscMPIInt              rank;
  PetscInt                 len  = 0;
  PetscErrorCode           ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  *fingerprint = NULL;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char     *opts, mesh[PETSC_MAX_PATH_LEN], content[64] = "";
    PetscBool has;
    size_t    l;
    PetscCall(VIOptionsFingerprint(3, keep, 1, ignore, &opts));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh_file", mesh, sizeof(mesh), &has));
    if (has) {
      /* the mesh's content decides the ROM, not where the file is */
      unsigned long long h = 14695981039346656037ULL;
      ierr                 = VIHashMeshFile(mesh, 0, &h);
      PetscCall(PetscSNPrintf(content, sizeof(content), "%smesh_content=%016llx", opts[0] ? " " : "", h));
    }
    PetscCall(PetscStrlen(opts, &l));
    len = (PetscInt)(l + strlen(content) + 1);
    PetscCall(PetscMalloc1(len, fingerprint));
    PetscCall(PetscSNPrintf(*fingerprint, len, "%s%s", opts, content));
    PetscCall(PetscFree(opts));
  }
  PetscCall(VIErrorSync(comm, ierr));
  PetscCallMPI(MPI_Bcast(&len, 1, MPIU_INT, 0, comm));
  if (rank != 0) PetscCall(PetscMalloc1(len, fingerprint));
  PetscCallMPI(MPI_Bcast(*fingerprint, (PetscMPIInt)len, MPI_CHAR, 0, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppReduce(MPI_Comm comm)
{
  VIMesh         mesh;
  VIModel        model;
  VICMS          cms;
  VIROM          rom;
  char           file[PETSC_MAX_PATH_LEN] = "rom.h5", *reduction = NULL;
  PetscBool      help;
  PetscLogStage  stage_model, stage_reduce, stage_output;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister("Parent model", &stage_model));
  PetscCall(PetscLogStageRegister("Reduction", &stage_reduce));
  PetscCall(PetscLogStageRegister("ROM output", &stage_output));
  PetscCall(VIMeshCreate(comm, &mesh));
  PetscCall(VIModelCreate(comm, &model));
  PetscCall(VICMSCreate(comm, &cms));
  PetscCall(VIROMCreate(comm, &rom));
  PetscCall(VIModelSetMesh(model, mesh));
  PetscCall(VICMSSetModel(cms, model));
  PetscCall(VIMeshSetFromOptions(mesh));
  PetscCall(VIModelSetFromOptions(model));
  PetscCall(VICMSSetFromOptions(cms));
  PetscOptionsBegin(comm, NULL, "vicms reduce", "");
  PetscCall(PetscOptionsString("-rom_file", "Where the ROM goes", "", file, file, sizeof(file), NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (!help) {
    PetscCall(PetscTime(&t0));
    PetscCall(VIAppReductionFingerprint(comm, &reduction));
    PetscCall(PetscLogStagePush(stage_model));
    PetscCall(VIMeshSetUp(mesh));
    PetscCall(VIMeshView(mesh, NULL));
    PetscCall(VIModelSetUp(model));
    PetscCall(PetscLogStagePop());
    PetscCall(VIModelView(model, NULL));
    PetscCall(PetscLogStagePush(stage_reduce));
    PetscCall(VICMSReduce(cms, rom));
    PetscCall(PetscLogStagePop());
    PetscCall(PetscLogStagePush(stage_output));
    PetscCall(VIROMSetReduction(rom, reduction));
    PetscCall(PetscFree(reduction));
    PetscCall(VIROMValidate(rom, file));
    PetscCall(VIROMWrite(rom, file));
    PetscCall(PetscLogStagePop());
    PetscCall(VIROMView(rom, NULL));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscPrintf(comm, "Wrote %s in %.2f s\n", file, (double)(t1 - t0)));
  }
  PetscCall(VIROMDestroy(&rom));
  PetscCall(VICMSDestroy(&cms));
  PetscCall(VIModelDestroy(&model));
  PetscCall(VIMeshDestroy(&mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
