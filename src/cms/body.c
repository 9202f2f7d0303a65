/* One substructure of a multi-body job (seed 003): the single-body reduction under the options prefix -body_NAME_. */
#include "cmsimpl.h"

/* The body's mesh from its options (not set up): -body_NAME_mesh_*; an element set without a file of its own
   (-body_NAME_mesh_elset alone) is taken from the job's -bodies_mesh_file. A file that cannot be read is an error naming
   the option that gave it. */
static PetscErrorCode VICMSBodyMeshCreate(MPI_Comm comm, const char name[], const char prefix[], PetscBool help, VIMesh *mesh)
{
  char      path[PETSC_MAX_PATH_LEN], option[96];
  PetscBool has_file, has_elset, exists;

  PetscFunctionBeginUser;
  PetscCall(VIMeshCreate(comm, mesh));
  PetscCall(VIMeshSetOptionsPrefix(*mesh, prefix));
  PetscCall(PetscSNPrintf(option, sizeof(option), "-%smesh_file", prefix));
  PetscCall(PetscOptionsGetString(NULL, prefix, "-mesh_file", path, sizeof(path), &has_file));
  PetscCall(PetscOptionsHasName(NULL, prefix, "-mesh_elset", &has_elset));
  if (!has_file && has_elset) {
    PetscCall(PetscOptionsGetString(NULL, NULL, "-bodies_mesh_file", path, sizeof(path), &has_file));
    if (has_file) {
      PetscCall(PetscStrncpy(option, "-bodies_mesh_file", sizeof(option)));
      PetscCall(VIMeshSetFile(*mesh, path));
    }
  }
  PetscCall(VIMeshSetFromOptions(*mesh));
  if (help || !has_file) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTestFile(path, 'r', &exists));
  PetscCheck(exists, comm, PETSC_ERR_USER_INPUT, "%s: cannot read '%s' (the mesh of body %s): no such file, or not readable", option, path, name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSBodyGetSize(MPI_Comm comm, const char name[], PetscInt *ndofs)
{
  char     prefix[80];
  VIMesh   mesh;
  PetscInt nn, dim;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "body_%s_", name));
  PetscCall(VICMSBodyMeshCreate(comm, name, prefix, PETSC_FALSE, &mesh));
  {
    /* a body given as matrices: its deck's nodes only (docs/parents.md) */
    PetscBool parent;
    PetscCall(PetscOptionsHasName(NULL, prefix, "-parent_matrices", &parent));
    PetscCall(VIMeshSetNodesOnly(mesh, parent));
  }
  PetscCall(VIMeshSetUp(mesh));
  PetscCall(VIMeshGetSizes(mesh, &nn, NULL));
  PetscCall(VIMeshGetDimension(mesh, &dim));
  *ndofs = nn * dim;
  PetscCall(VIMeshDestroy(&mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSReduceBody(MPI_Comm comm, const char name[], VIBodies bodies, PetscBool help)
{
  char           prefix[80];
  VIMesh         mesh;
  VIModel        model;
  VICMS          cms;
  VIROM          rom  = NULL;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "body_%s_", name));
  PetscCall(VICMSBodyMeshCreate(comm, name, prefix, help, &mesh));
  PetscCall(VIModelCreate(comm, &model));
  PetscCall(VICMSCreate(comm, &cms));
  PetscCall(VIModelSetMesh(model, mesh));
  PetscCall(VICMSSetModel(cms, model));
  PetscCall(VIModelSetOptionsPrefix(model, prefix));
  PetscCall(VICMSSetOptionsPrefix(cms, prefix));
  PetscCall(VICMSSetType(cms, VI_CMS_CB));
  PetscCall(VICMSSetPhysicalBoundary(cms, PETSC_TRUE));
  PetscCall(VIModelSetFromOptions(model));
  PetscCall(VICMSSetFromOptions(cms));
  if (!help) {
    PetscCheck(cms->type == VI_CMS_CB, comm, PETSC_ERR_USER_INPUT,
               "-%scms_type %s: a body is reduced by Craig-Bampton with its boundary DOFs physical and carrying mass (cb), as in seed 003 §3.1.1",
               prefix, VICMSTypes[cms->type]);
    PetscCall(PetscPrintf(comm, "Body %s\n", name));
    PetscCall(VIMeshSetUp(mesh));
    PetscCall(VIMeshView(mesh, NULL));
    PetscCall(VIModelSetUp(model));
    PetscCall(VIModelView(model, NULL));
    PetscCall(VIROMCreate(comm, &rom));
    PetscCall(VICMSReduce(cms, rom));
    {
      PetscInt dim;
      PetscCall(VIMeshGetDimension(mesh, &dim));
      VIROMFields fields;
      PetscInt    k;
      /* the basis rows on the kept nodes (-body_NAME_cms_fields, default the surface), computed before the ROM is handed over */
      PetscCall(VICMSComputeFields(cms, rom, &fields));
      ierr = VIBodiesAdd(bodies, name, rom, dim, cms->num_bnodes, cms->bnode_ids, cms->bnode_coords, cms->bnode_dofs);
      if (ierr) PetscCall(VIROMDestroy(&rom));
      if (!ierr && fields.nk) {
        PetscCall(PetscPrintf(
            comm, "Fields of body %s: the basis on %" PetscInt_FMT " nodes (%s) and %" PetscInt_FMT " cells, %" PetscInt_FMT " bytes per kept DOF\n",
            name, fields.nk, fields.kind, fields.ncells, fields.n * (PetscInt)sizeof(PetscReal)));
        PetscCall(VIBodiesFind(bodies, name, &k));
        PetscCall(VIBodiesSetFields(bodies, k, &fields));
      }
      PetscCall(VIROMFieldsReset(&fields));
    }
  }
  PetscCall(VICMSDestroy(&cms));
  PetscCall(VIModelDestroy(&model));
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
