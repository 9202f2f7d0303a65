/* What the commands on bodies files (cea, slide) share: loading the file, its node options (BODY, BODY:ID,ID,... and
   BODY:NODE, checked against the file) and its token for checkpoints. */
#include "app.h"
#include <string.h>
#include <unistd.h>

PetscErrorCode VIAppLoadBodies(MPI_Comm comm, const char rom_file[], VIBodies *bodies)
{
  PetscFunctionBeginUser;
  PetscCheck(access(rom_file, R_OK) == 0, comm, PETSC_ERR_FILE_OPEN, "-rom_file: cannot read '%s' (the bodies file of vicms reduce -bodies)",
             rom_file);
  PetscCall(VIBodiesCreate(comm, bodies));
  PetscCall(VIBodiesLoad(*bodies, rom_file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppBodiesToken(VIBodies bodies, char token[], size_t len)
{
  PetscInt nb;

  PetscFunctionBeginUser;
  PetscCall(VIBodiesGetNum(bodies, &nb));
  token[0] = 0;
  for (PetscInt k = 0; k < nb; k++) {
    const char *name;
    VIROM       rom;
    char        t[64];
    PetscCall(VIBodiesGet(bodies, k, &name, &rom, NULL));
    PetscCall(VIEnsembleROMToken(rom, NULL, t, sizeof(t)));
    PetscCall(PetscStrlcat(token, k ? " " : "", len));
    PetscCall(PetscStrlcat(token, name, len));
    PetscCall(PetscStrlcat(token, ":", len));
    PetscCall(PetscStrlcat(token, t, len));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppParseBodyNodes(MPI_Comm comm, VIBodies bodies, const char opt[], const char value[], char body[], size_t len, PetscInt max,
                                   PetscInt *n, PetscInt ids[])
{
  const char *colon = strchr(value, ':');
  size_t      blen  = colon ? (size_t)(colon - value) : strlen(value);
  PetscInt    k;

  PetscFunctionBeginUser;
  PetscCheck(blen > 0 && blen < len, comm, PETSC_ERR_USER_INPUT, "%s: '%s' does not start with a body name (expected BODY or BODY:ID,...)", opt,
             value);
  PetscCall(PetscStrncpy(body, value, blen + 1));
  PetscCall(VIBodiesFind(bodies, body, &k));
  PetscCheck(k >= 0, comm, PETSC_ERR_USER_INPUT, "%s: no body '%s' in the bodies file", opt, body);
  *n = 0;
  if (!colon) PetscFunctionReturn(PETSC_SUCCESS);
  for (const char *p = colon + 1; *p;) {
    char *end;
    long  id = strtol(p, &end, 10);
    PetscCheck(end != p && (*end == ',' || !*end), comm, PETSC_ERR_USER_INPUT, "%s: '%s': expected node ids after '%s:', comma-separated", opt, value,
               body);
    PetscCheck(*n < max, comm, PETSC_ERR_USER_INPUT, "%s: more than %" PetscInt_FMT " nodes", opt, max);
    ids[(*n)++] = (PetscInt)id;
    p           = *end ? end + 1 : end;
  }
  PetscCheck(*n > 0, comm, PETSC_ERR_USER_INPUT, "%s: '%s': no node ids after the colon", opt, value);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppParseBoundaryNodes(MPI_Comm comm, VIBodies bodies, const char opt[], const char value[], char body[], size_t len, PetscInt max,
                                       PetscInt *n, PetscInt ids[])
{
  PetscInt k;

  PetscFunctionBeginUser;
  PetscCall(VIAppParseBodyNodes(comm, bodies, opt, value, body, len, max, n, ids));
  PetscCheck(*n > 0, comm, PETSC_ERR_USER_INPUT, "%s: '%s', expected BODY:ID[,ID,...] (the node ids)", opt, value);
  PetscCall(VIBodiesFind(bodies, body, &k));
  for (PetscInt j = 0; j < *n; j++) {
    VIBodyNode node;
    PetscCall(VIBodiesGetNode(bodies, k, ids[j], opt, &node)); /* on the body's boundary */
    for (PetscInt i = 0; i < j; i++)
      PetscCheck(ids[i] != ids[j], comm, PETSC_ERR_USER_INPUT, "%s: node %" PetscInt_FMT " is given twice", opt, ids[j]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppParseBodyNode(MPI_Comm comm, VIBodies bodies, const char opt[], const char value[], char body[], size_t len, PetscInt *id)
{
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(VIAppParseBoundaryNodes(comm, bodies, opt, value, body, len, 1, &n, id));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIAppBodyNodesBut(VIBodies bodies, const char body[], const char skip_body[], PetscInt nskip, const PetscInt skip_ids[], PetscInt max,
                                 PetscInt *n, PetscInt ids[])
{
  const VIBodyBoundary *bd;
  PetscInt              k;
  PetscBool             same;

  PetscFunctionBeginUser;
  PetscCall(VIBodiesFind(bodies, body, &k));
  PetscCall(VIBodiesGet(bodies, k, NULL, NULL, &bd));
  PetscCall(PetscStrcmp(body, skip_body, &same));
  *n = 0;
  for (PetscInt j = 0; j < bd->num_nodes && *n < max; j++) {
    PetscBool skip = PETSC_FALSE;
    for (PetscInt i = 0; same && i < nskip; i++)
      if (bd->node_ids[j] == skip_ids[i]) skip = PETSC_TRUE;
    if (!skip) ids[(*n)++] = bd->node_ids[j];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
