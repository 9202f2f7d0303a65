/* One substructure of a multi-body job (seed 003): the single-body reduction under the options prefix -body_NAME_. */
#include "cmsimpl.h"

PetscErrorCode VICMSReduceBody(MPI_Comm comm, const char name[], VIBodies bodies, PetscBool help)
{
  char           prefix[80], path[PETSC_MAX_PATH_LEN];
  VIMesh         mesh;
  VIModel        model;
  VICMS          cms;
  VIROM          rom = NULL;
  PetscBool      has_file;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "body_%s_", name));
  PetscCall(VIMeshCreate(comm, &mesh));
  PetscCall(VIModelCreate(comm, &model));
  PetscCall(VICMSCreate(comm, &cms));
  PetscCall(VIModelSetMesh(model, mesh));
  PetscCall(VICMSSetModel(cms, model));
  PetscCall(VIMeshSetOptionsPrefix(mesh, prefix));
  PetscCall(VIModelSetOptionsPrefix(model, prefix));
  PetscCall(VICMSSetOptionsPrefix(cms, prefix));
  PetscCall(VICMSSetType(cms, VI_CMS_CB));
  PetscCall(VICMSSetPhysicalBoundary(cms, PETSC_TRUE));
  PetscCall(VIMeshSetFromOptions(mesh));
  PetscCall(VIModelSetFromOptions(model));
  PetscCall(VICMSSetFromOptions(cms));
  if (!help) {
    PetscCheck(cms->type == VI_CMS_CB, comm, PETSC_ERR_USER_INPUT,
               "-%scms_type %s: a body is reduced by Craig-Bampton with its boundary DOFs physical and carrying mass (cb), as in seed 003 §3.1.1",
               prefix, VICMSTypes[cms->type]);
    PetscCall(PetscOptionsGetString(NULL, prefix, "-mesh_file", path, sizeof(path), &has_file));
    if (has_file) {
      PetscBool exists;
      PetscCall(PetscTestFile(path, 'r', &exists));
      PetscCheck(exists, comm, PETSC_ERR_USER_INPUT, "-%smesh_file: cannot read '%s' (the mesh of body %s): no such file, or not readable", prefix,
                 path, name);
    }
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
      ierr = VIBodiesAdd(bodies, name, rom, dim, cms->num_bnodes, cms->bnode_ids, cms->bnode_coords, cms->bnode_dofs);
      if (ierr) PetscCall(VIROMDestroy(&rom));
    }
  }
  PetscCall(VICMSDestroy(&cms));
  PetscCall(VIModelDestroy(&model));
  PetscCall(VIMeshDestroy(&mesh));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
