/* `vicms reduce`: parent model -> component mode synthesis -> ROM file, which records the reduction that made it. */
#include "app.h"
#include <ctype.h>
#include <stdio.h>
#include <sys/stat.h>

/* -bodies_parallel auto: rank groups unless the most loaded group carries more than this times its share of the DOFs */
#define VI_BODIES_AUTO_IMBALANCE 2.0

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
  static const char *const keep[]   = {"-mesh_", "-model_", "-cms_", "-parent_"};
  static const char *const ignore[] = {"-mesh_file", "-parent_matrices", "-parent_dofs"};
  PetscMPIInt              rank;
  PetscInt                 len  = 0;
  PetscErrorCode           ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  *fingerprint = NULL;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char     *opts, mesh[PETSC_MAX_PATH_LEN], content[128] = "";
    PetscBool has;
    size_t    l;
    PetscCall(VIOptionsFingerprint(4, keep, 3, ignore, &opts));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh_file", mesh, sizeof(mesh), &has));
    if (has) {
      /* the mesh's content decides the ROM, not where the file is */
      unsigned long long h = 14695981039346656037ULL;
      ierr                 = VIHashMeshFile(mesh, 0, &h);
      PetscCall(PetscSNPrintf(content, sizeof(content), "%smesh_content=%016llx", opts[0] ? " " : "", h));
    }
    {
      /* the same for a parent given as matrices: the files' content (CalculiX's JOB names JOB.sti, JOB.mas, JOB.dof) */
      char      parent[2 * PETSC_MAX_PATH_LEN], dofs[PETSC_MAX_PATH_LEN], *save = NULL;
      PetscBool has_parent, has_dofs;
      PetscCall(PetscOptionsGetString(NULL, NULL, "-parent_matrices", parent, sizeof(parent), &has_parent));
      PetscCall(PetscOptionsGetString(NULL, NULL, "-parent_dofs", dofs, sizeof(dofs), &has_dofs));
      if (has_parent) {
        unsigned long long h  = 14695981039346656037ULL;
        size_t             cl = strlen(content);
        for (char *tok = strtok_r(parent, ",", &save); tok && !ierr; tok = strtok_r(NULL, ",", &save)) {
          if (strchr(parent, ',') || has_dofs)
            ierr = VIHashMeshFile(tok, 0, &h);
          else
            for (int k = 0; k < 3 && !ierr; k++) {
              char f[PETSC_MAX_PATH_LEN + 8];
              PetscCall(PetscSNPrintf(f, sizeof(f), "%s.%s", tok, k == 0 ? "sti" : (k == 1 ? "mas" : "dof")));
              ierr = VIHashMeshFile(f, 0, &h);
            }
        }
        if (has_dofs && !ierr) ierr = VIHashMeshFile(dofs, 0, &h);
        PetscCall(PetscSNPrintf(content + cl, sizeof(content) - cl, "%sparent_content=%016llx", opts[0] || cl ? " " : "", h));
      }
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

/* The names of -bodies, checked: letters and digits (the prefix -body_NAME_ must read back unambiguously), each once; every
   -body_NAME_* option names one of them; no single-body mesh option beside them. */
static PetscErrorCode VIAppBodyNames(MPI_Comm comm, char *names[], PetscInt n)
{
  static const char *const single[] = {"-mesh_file",       "-mesh_elset",      "-mesh_line_cells",  "-mesh_box_cells",
                                       "-mesh_rect_cells", "-cms_contact_set", "-cms_contact_nodes"};
  char                    *all, *save = NULL;

  PetscFunctionBeginUser;
  PetscCheck(n > 0, comm, PETSC_ERR_USER_INPUT, "-bodies: give the names of the bodies, e.g. -bodies slider,track");
  for (PetscInt k = 0; k < n; k++) {
    size_t len = strlen(names[k]);
    PetscCheck(len > 0 && len < 32, comm, PETSC_ERR_USER_INPUT, "-bodies: name %" PetscInt_FMT " is '%s', expected 1 to 31 letters or digits", k + 1,
               names[k]);
    for (size_t i = 0; i < len; i++)
      PetscCheck(isalnum((unsigned char)names[k][i]), comm, PETSC_ERR_USER_INPUT,
                 "-bodies: name '%s' has the character '%c'; a body name is letters and digits (its options are -body_%s_...)", names[k], names[k][i],
                 names[k]);
    for (PetscInt j = 0; j < k; j++)
      PetscCheck(strcmp(names[j], names[k]), comm, PETSC_ERR_USER_INPUT,
                 "-bodies: the name '%s' is given twice (bodies %" PetscInt_FMT " and %" PetscInt_FMT ")", names[k], j + 1, k + 1);
  }
  for (size_t i = 0; i < sizeof(single) / sizeof(single[0]); i++) {
    PetscBool has;
    PetscCall(PetscOptionsHasName(NULL, NULL, single[i], &has));
    PetscCheck(!has, comm, PETSC_ERR_USER_INPUT, "%s is an option of a single-body reduction; with -bodies give it per body: -body_NAME_%s",
               single[i], single[i] + 1);
  }
  PetscCall(PetscOptionsGetAll(NULL, &all));
  for (char *tok = strtok_r(all, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char     *rest, *end;
    PetscBool known = PETSC_FALSE;
    if (strncmp(tok, "-body_", 6)) continue;
    rest = tok + 6;
    end  = strchr(rest, '_');
    for (PetscInt k = 0; k < n && end; k++)
      if ((size_t)(end - rest) == strlen(names[k]) && !strncmp(rest, names[k], (size_t)(end - rest))) known = PETSC_TRUE;
    if (!known) {
      char option[256];
      PetscCall(PetscStrncpy(option, tok, sizeof(option)));
      PetscCall(PetscFree(all));
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s: no body of that name in -bodies (a body's options are -body_NAME_OPTION, NAME one of -bodies)",
              option);
    }
  }
  PetscCall(PetscFree(all));
  {
    PetscBool shared, used = PETSC_FALSE;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-bodies_mesh_file", &shared));
    for (PetscInt k = 0; k < n && shared; k++) {
      char      prefix[80];
      PetscBool elset, file;
      PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "body_%s_", names[k]));
      PetscCall(PetscOptionsHasName(NULL, prefix, "-mesh_elset", &elset));
      PetscCall(PetscOptionsHasName(NULL, prefix, "-mesh_file", &file));
      if (elset && !file) used = PETSC_TRUE;
    }
    PetscCheck(!shared || used, comm, PETSC_ERR_USER_INPUT,
               "-bodies_mesh_file: no body takes its mesh from it (a body does with -body_NAME_mesh_elset SET and no -body_NAME_mesh_file)");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The bodies reduced concurrently, each on a rank group of its own (VIRankGroupsSplit balances the groups by the bodies' DOF
  counts), then gathered to every rank in the order of -bodies. With mode auto, this is done when it pays (see below), and
  the bodies are reduced one after the other on all ranks otherwise (*done false). An error in one group stops that group
  only; the others finish their bodies, and then every rank returns an error together. Collective.
*/
static PetscErrorCode VIAppReduceBodiesOnGroups(MPI_Comm comm, char *names[], PetscInt n, VIBodiesParallel mode, VIBodies bodies, PetscBool *done)
{
  PetscMPIInt    size, rank, *leader;
  PetscInt      *dofs, *group_of, ngroups;
  PetscReal     *cost, imbalance;
  PetscErrorCode ierr = PETSC_SUCCESS;
  MPI_Comm       group;
  VIBodies       mine;

  PetscFunctionBeginUser;
  *done = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (size == 1 || n == 1 || mode == VI_BODIES_SEQUENTIAL) PetscFunctionReturn(PETSC_SUCCESS);
  /* the sizes, each body's mesh read by one rank */
  PetscCall(PetscCalloc4(n, &dofs, n, &cost, n, &group_of, n, &leader));
  for (PetscInt k = rank; k < n && !ierr; k += size) ierr = VICMSBodyGetSize(PETSC_COMM_SELF, names[k], &dofs[k]);
  PetscCall(VIErrorSync(comm, ierr));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, dofs, (PetscMPIInt)n, MPIU_INT, MPI_SUM, comm));
  for (PetscInt k = 0; k < n; k++) cost[k] = (PetscReal)dofs[k];
  PetscCall(VIRankGroupsSplit(comm, n, cost, &group, &ngroups, group_of, leader, &imbalance));
  /* auto: groups unless one group would carry much more than its share (bench/RESULTS.md, "Bodies on rank groups") */
  if (mode == VI_BODIES_AUTO && imbalance > VI_BODIES_AUTO_IMBALANCE) {
    PetscCall(PetscPrintf(
        comm,
        "Bodies reduced one after the other on all %d ranks (-bodies_parallel auto: rank groups would be %.2f times the ideal load, above %.2f)\n",
        size, (double)imbalance, (double)VI_BODIES_AUTO_IMBALANCE));
    PetscCallMPI(MPI_Comm_free(&group));
    PetscCall(PetscFree4(dofs, cost, group_of, leader));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscPrintf(comm, "Bodies reduced on %" PetscInt_FMT " rank groups (load %.2f times the ideal):", ngroups, (double)imbalance));
  for (PetscInt k = 0; k < n; k++)
    PetscCall(PetscPrintf(comm, "%s %s (%" PetscInt_FMT " DOFs) on group %" PetscInt_FMT " from rank %d", k ? "," : "", names[k], dofs[k],
                          group_of[k] + 1, leader[k]));
  PetscCall(PetscPrintf(comm, "\n"));
  PetscCall(VIBodiesCreate(group, &mine));
  {
    PetscMPIInt grank;
    PetscInt    g = -1;
    PetscCallMPI(MPI_Comm_rank(group, &grank));
    for (PetscInt k = 0; k < n; k++)
      if (leader[k] == rank - grank) g = group_of[k];
    for (PetscInt k = 0; k < n && !ierr; k++)
      if (group_of[k] == g) ierr = VICMSReduceBody(group, names[k], mine, PETSC_FALSE);
  }
  ierr = VIErrorSync(comm, ierr);
  if (!ierr) ierr = VIBodiesGather(bodies, mine, n, (const char *const *)names, leader);
  PetscCall(VIBodiesDestroy(&mine));
  PetscCallMPI(MPI_Comm_free(&group));
  PetscCall(PetscFree4(dofs, cost, group_of, leader));
  PetscCall(ierr);
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* `vicms reduce -bodies a,b`: each body reduced (VICMSReduceBody) on all ranks in turn or on rank groups, one bodies file. */
static PetscErrorCode VIAppReduceBodies(MPI_Comm comm, char *names[], PetscInt n)
{
  /* how the bodies are spread over the ranks does not change the file (to rounding): not part of what made it */
  static const char *const keep[] = {"-bodies", "-body_"}, *const ignore[] = {"-bodies_parallel"};
  char             file[PETSC_MAX_PATH_LEN] = "bodies.h5", *reduction = NULL, shared[PETSC_MAX_PATH_LEN] = "";
  PetscBool        help, on_groups;
  VIBodies         bodies;
  VIBodiesParallel mode = VI_BODIES_AUTO;
  PetscLogStage    stage;
  PetscLogDouble   t0, t1, t2;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "vicms reduce -bodies", "");
  PetscCall(PetscOptionsString("-rom_file", "Where the bodies file goes", "", file, file, sizeof(file), NULL));
  PetscCall(
      PetscOptionsEnum("-bodies_parallel",
                       "The bodies one after the other on all ranks (sequential), each on a rank group of its own at the same time (groups), or "
                       "groups unless they would be unbalanced (auto)",
                       "", VIBodiesParallelTypes, (PetscEnum)mode, (PetscEnum *)&mode, NULL));
  PetscCall(PetscOptionsString("-bodies_mesh_file", "The mesh file of the bodies given by an element set alone (-body_NAME_mesh_elset)", "", shared,
                               shared, sizeof(shared), NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  PetscCall(VIBodiesCreate(comm, &bodies));
  if (help) {
    for (PetscInt k = 0; k < n; k++) PetscCall(VICMSReduceBody(comm, names[k], bodies, PETSC_TRUE));
    PetscCall(VIBodiesDestroy(&bodies));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VIAppBodyNames(comm, names, n));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogStageRegister("Bodies", &stage));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(VIAppReduceBodiesOnGroups(comm, names, n, mode, bodies, &on_groups));
  for (PetscInt k = 0; k < n && !on_groups; k++) PetscCall(VICMSReduceBody(comm, names[k], bodies, PETSC_FALSE));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscTime(&t2));
  PetscCall(PetscPrintf(comm, "Reduced %" PetscInt_FMT " bodies in %.3f s (%s)\n", n, (double)(t2 - t0),
                        on_groups ? "rank groups" : "one after the other on all ranks"));
  {
    PetscMPIInt rank;
    PetscInt    len = 0;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) {
      PetscCall(VIOptionsFingerprint(2, keep, 1, ignore, &reduction));
      len = (PetscInt)strlen(reduction) + 1;
    }
    PetscCallMPI(MPI_Bcast(&len, 1, MPIU_INT, 0, comm));
    if (rank != 0) PetscCall(PetscMalloc1(len, &reduction));
    PetscCallMPI(MPI_Bcast(reduction, (PetscMPIInt)len, MPI_CHAR, 0, comm));
  }
  PetscCall(VIBodiesSetReduction(bodies, reduction));
  PetscCall(PetscFree(reduction));
  PetscCall(VIBodiesWrite(bodies, file));
  PetscCall(VIBodiesView(bodies, NULL));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(comm, "Wrote %s in %.2f s\n", file, (double)(t1 - t0)));
  PetscCall(VIBodiesDestroy(&bodies));
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
  {
    char     *names[64];
    PetscInt  n = 64;
    PetscBool has;
    PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-bodies", names, &n, &has));
    if (has) {
      PetscErrorCode ierr = VIAppReduceBodies(comm, names, n);
      for (PetscInt k = 0; k < n; k++) PetscCall(PetscFree(names[k]));
      PetscCall(ierr);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
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
    PetscCall(VICMSWriteFields(cms, rom, file));
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
