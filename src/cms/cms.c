/* VICMS: the reduction object, its options, and the order of the reduction steps. */
#include "cmsimpl.h"
#include <vicms/sys.h>

PetscErrorCode VICMSCreate(MPI_Comm comm, VICMS *cms)
{
  VICMS c;

  PetscFunctionBeginUser;
  PetscCall(VIInitializePackage());
  PetscCall(PetscNew(&c));
  c->comm           = comm;
  c->type           = VI_CMS_MACNEAL;
  c->num_modes      = 20;
  c->contact_dirs   = 1;
  c->normal[0]      = 1;
  c->radial_axis[2] = 1;
  c->area           = 1;
  *cms              = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSDestroy(VICMS *cms)
{
  VICMS c;

  PetscFunctionBeginUser;
  if (!cms || !*cms) PetscFunctionReturn(PETSC_SUCCESS);
  c = *cms;
  PetscCall(PetscFree(c->contact_ids));
  for (PetscInt i = 0; i < c->num_contact_sets; i++) PetscCall(PetscFree(c->contact_sets[i]));
  PetscCall(PetscFree(c->bnode_ids));
  PetscCall(PetscFree(c->bnode_dofs));
  PetscCall(PetscFree(c->bnode_coords));
  for (PetscInt i = 0; i < c->num_forces; i++) PetscCall(PetscFree(c->forces[i]));
  for (PetscInt i = 0; i < c->num_outputs; i++) PetscCall(PetscFree(c->outputs[i]));
  PetscCall(PetscFree(c->contacts));
  PetscCall(PetscFree(c->contact_node));
  PetscCall(PetscFree(c->contact_dof));
  PetscCall(PetscFree(c->b_dofs));
  PetscCall(MatDestroy(&c->Q));
  PetscCall(MatDestroy(&c->K));
  PetscCall(MatDestroy(&c->M));
  PetscCall(ISDestroy(&c->is_b));
  PetscCall(ISDestroy(&c->is_i));
  PetscCall(VecScatterDestroy(&c->b_gather));
  PetscCall(VecDestroy(&c->b_values));
  PetscCall(MatDestroy(&c->R));
  PetscCall(PetscFree(c->omega2));
  PetscCall(PetscFree(c));
  *cms = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSSetModel(VICMS cms, VIModel model)
{
  PetscFunctionBeginUser;
  cms->model = model;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSSetOptionsPrefix(VICMS cms, const char prefix[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(cms->prefix, prefix ? prefix : "", sizeof(cms->prefix)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSSetPhysicalBoundary(VICMS cms, PetscBool physical)
{
  PetscFunctionBeginUser;
  cms->physical = physical;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSGetBoundaryNodes(VICMS cms, PetscInt *n, const PetscInt **ids, const PetscReal **coords, const PetscInt **dofs)
{
  PetscFunctionBeginUser;
  PetscCheck(cms->bnode_ids || cms->num_bnodes == 0, cms->comm, PETSC_ERR_ORDER, "Call VICMSReduce() first");
  if (n) *n = cms->num_bnodes;
  if (ids) *ids = cms->bnode_ids;
  if (coords) *coords = cms->bnode_coords;
  if (dofs) *dofs = cms->bnode_dofs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSSetType(VICMS cms, VICMSType type)
{
  PetscFunctionBeginUser;
  cms->type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSSetNumModes(VICMS cms, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCheck(n > 0, cms->comm, PETSC_ERR_USER_INPUT, "-%scms_num_modes: got %" PetscInt_FMT ", expected a positive number of component modes",
             cms->prefix, n);
  cms->num_modes = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSSetContactNodes(VICMS cms, PetscInt n, const PetscInt ids[], PetscInt dirs)
{
  PetscFunctionBeginUser;
  PetscCheck(dirs >= 1 && dirs <= 3, cms->comm, PETSC_ERR_USER_INPUT,
             "-cms_contact_dirs: got %" PetscInt_FMT ", expected 1 (normal), 2 or 3 (normal and tangents)", dirs);
  PetscCall(PetscFree(cms->contact_ids));
  PetscCall(PetscMalloc1(PetscMax(n, 1), &cms->contact_ids));
  PetscCall(PetscArraycpy(cms->contact_ids, ids, n));
  cms->num_contact_ids = n;
  cms->contact_dirs    = dirs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIOptionsVector(PetscOptionItems *PetscOptionsObject, const char name[], const char text[], PetscReal v[3], PetscBool *set)
{
  PetscInt  n = 3;
  PetscBool flg;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsRealArray(name, text, "VICMSSetFromOptions", v, &n, &flg));
  PetscCheck(!flg || n == 3, PetscOptionsObject->comm, PETSC_ERR_USER_INPUT, "%s: expected three numbers x,y,z, got %" PetscInt_FMT, name, n);
  if (set) *set = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSSetFromOptions(VICMS cms)
{
  PetscInt  ids[VI_CMS_MAX_ITEMS] = {0}, nids = VI_CMS_MAX_ITEMS, dirs = cms->contact_dirs, nmodes = cms->num_modes, nray = 2;
  PetscBool has_ids, has_set, normal_set, t;

  PetscFunctionBeginUser;
  PetscOptionsBegin(cms->comm, cms->prefix[0] ? cms->prefix : NULL, "Component mode synthesis", "VICMS");
  PetscCall(PetscOptionsEnum("-cms_type", "Reduction method: cb (Craig-Bampton), cb_massless, macneal, rubin", "VICMSSetType", VICMSTypes,
                             (PetscEnum)cms->type, (PetscEnum *)&cms->type, NULL));
  PetscCall(PetscOptionsInt("-cms_num_modes", "Number of component modes (fixed-interface for cb*, free-interface for macneal/rubin)",
                            "VICMSSetNumModes", nmodes, &nmodes, NULL));
  PetscCall(PetscOptionsIntArray("-cms_contact_nodes", "Contact node ids (mesh file ids)", "VICMSSetContactNodes", ids, &nids, &has_ids));
  for (PetscInt i = 0; i < cms->num_contact_sets; i++) PetscCall(PetscFree(cms->contact_sets[i]));
  cms->num_contact_sets = VI_CMS_MAX_ITEMS;
  PetscCall(PetscOptionsStringArray("-cms_contact_set", "Node set(s) of the contact nodes, their union in this order (instead of -cms_contact_nodes)",
                                    "VICMSSetContactNodes", cms->contact_sets, &cms->num_contact_sets, &has_set));
  if (!has_set) cms->num_contact_sets = 0;
  PetscCall(PetscOptionsInt("-cms_contact_dirs", "Contact coordinates per node: 1 normal, 2 normal + t1, 3 normal + t1 + t2", "VICMSSetContactNodes",
                            dirs, &dirs, &cms->contact_dirs_set));
  PetscCall(
      VIOptionsVector(PetscOptionsObject, "-cms_contact_normal", "Contact normal, the same for every node (global frame)", cms->normal, &normal_set));
  PetscCall(VIOptionsVector(PetscOptionsObject, "-cms_contact_radial_axis",
                            "Normal = outward radial direction from this axis (instead of a fixed normal)", cms->radial_axis, &cms->radial));
  PetscCall(VIOptionsVector(PetscOptionsObject, "-cms_contact_radial_origin", "A point of the radial axis", cms->radial_origin, NULL));
  PetscCall(PetscOptionsBool("-cms_contact_radial_inward", "With -cms_contact_radial_axis: the normal points inward (an obstacle outside, a casing)",
                             "", cms->radial_inward, &cms->radial_inward, NULL));
  PetscCall(VIOptionsVector(PetscOptionsObject, "-cms_contact_t1",
                            "Direction that the first tangent follows (projected on the tangent plane); default the radial axis, else the global "
                            "axis least aligned with the normal",
                            cms->t1_hint, &cms->t1_hint_set));
  cms->frame_set = (PetscBool)(normal_set || cms->radial || cms->t1_hint_set);
  PetscCall(PetscOptionsReal("-cms_contact_area", "Contact area per node", "", cms->area, &cms->area, NULL));
  PetscCall(PetscOptionsEnum("-cms_solver", "Linear solver: direct (MUMPS Cholesky) or iterative (conjugate gradients + GAMG, LOBPCG)", "",
                             VISolverTypes, (PetscEnum)cms->solver_type, (PetscEnum *)&cms->solver_type, NULL));
  PetscCall(PetscOptionsReal("-cms_tol", "Tolerance of the eigensolver and of the iterative solves (default 1e-12 direct, 1e-10 iterative)", "",
                             cms->tol, &cms->tol, NULL));
  PetscCall(PetscOptionsReal("-cms_rigid_stiffness",
                             "Artificial stiffness on the boundary coordinates for free-floating parents (MacNeal, Rubin; seed 000 §3.1), 0 for none",
                             "", cms->rigid_stiffness, &cms->rigid_stiffness, NULL));
  PetscCall(PetscOptionsReal("-cms_damping_ratio", "Modal damping ratio of every component mode", "", cms->damping_ratio, &cms->damping_ratio, NULL));
  cms->num_damping_ratios = VI_CMS_MAX_ITEMS;
  PetscCall(PetscOptionsRealArray("-cms_damping_ratios", "Modal damping ratio per component mode (the last one repeats)", "", cms->damping_ratios,
                                  &cms->num_damping_ratios, NULL));
  PetscCall(PetscOptionsRealArray("-cms_rayleigh", "Rayleigh damping a,b: D = a M + b K (instead of modal damping)", "", cms->rayleigh, &nray,
                                  &cms->rayleigh_set));
  PetscCall(
      VIOptionsVector(PetscOptionsObject, "-cms_gravity", "Gravity vector; gives the load 'gravity' = R^T M g", cms->gravity, &cms->gravity_set));
  cms->num_forces = VI_CMS_MAX_ITEMS;
  PetscCall(PetscOptionsStringArray("-cms_forces", "Nodal forces SET:DIR:VALUE (DIR x, y or z; VALUE per node); each gives the load named SET", "",
                                    cms->forces, &cms->num_forces, NULL));
  cms->num_outputs = VI_CMS_MAX_ITEMS;
  PetscCall(PetscOptionsStringArray(
      "-cms_outputs", "Output DOFs NODE:DIR or SET:DIR (DIR x, y or z), e.g. 1353:y named n1353_y, tip:z named tip_z (one per node of the set)", "",
      cms->outputs, &cms->num_outputs, NULL));
  PetscCall(PetscOptionsBool("-cms_frame_invariants",
                             "Store the inertia invariants of a floating frame of reference (mass, moments, the basis' mass integrals; group /frame, "
                             "docs/frame.md) for a flexible body of a multibody model",
                             "", cms->frame_invariants, &cms->frame_invariants, NULL));
  PetscCall(PetscOptionsString("-cms_units", "Units of the model, recorded in the ROM (e.g. N-mm-t-s)", "", cms->units, cms->units,
                               sizeof(cms->units), NULL));
  PetscCall(PetscOptionsEnum(
      "-cms_fields", "Basis rows kept in the ROM file to show the parent's displacements (vicms fields): on the surface nodes, all nodes, none",
      "VICMSWriteFields", VICMSFieldsTypes, (PetscEnum)cms->fields, (PetscEnum *)&cms->fields, NULL));
  PetscCall(PetscOptionsString("-cms_fields_nodes", "Keep the basis rows of this node set instead (vicms fields)", "VICMSWriteFields",
                               cms->fields_set, cms->fields_set, sizeof(cms->fields_set), NULL));
  PetscOptionsEnd();
  PetscCall(VICMSSetNumModes(cms, nmodes));
  PetscCall(PetscOptionsHasName(NULL, cms->prefix[0] ? cms->prefix : NULL, "-cms_contact_radial_inward", &t));
  if (t) cms->frame_set = PETSC_TRUE;
  PetscCheck(!(has_ids && has_set), cms->comm, PETSC_ERR_USER_INPUT,
             "Give the contact nodes either with -%scms_contact_nodes or with -%scms_contact_set, not both", cms->prefix, cms->prefix);
  if (has_ids)
    PetscCall(VICMSSetContactNodes(cms, nids, ids, dirs));
  else
    PetscCall(VICMSSetContactNodes(cms, cms->num_contact_ids, cms->contact_ids, dirs));
  PetscCheck(nray == 2 || !cms->rayleigh_set, cms->comm, PETSC_ERR_USER_INPUT, "-cms_rayleigh: expected two numbers a,b");
  PetscCheck(!(cms->rayleigh_set && (cms->damping_ratio != 0 || cms->num_damping_ratios > 0)), cms->comm, PETSC_ERR_USER_INPUT,
             "Give either modal damping (-cms_damping_ratio(s)) or -cms_rayleigh, not both");
  PetscCheck(cms->damping_ratio >= 0, cms->comm, PETSC_ERR_USER_INPUT, "-cms_damping_ratio: got %g, expected >= 0", (double)cms->damping_ratio);
  for (PetscInt k = 0; k < cms->num_damping_ratios; k++)
    PetscCheck(cms->damping_ratios[k] >= 0, cms->comm, PETSC_ERR_USER_INPUT, "-cms_damping_ratios: entry %" PetscInt_FMT " is %g, expected >= 0",
               k + 1, (double)cms->damping_ratios[k]);
  PetscCheck(cms->rigid_stiffness >= 0, cms->comm, PETSC_ERR_USER_INPUT, "-cms_rigid_stiffness: got %g, expected >= 0", (double)cms->rigid_stiffness);
  PetscCheck(cms->area > 0, cms->comm, PETSC_ERR_USER_INPUT, "-cms_contact_area: got %g, expected a positive area", (double)cms->area);
  PetscCheck(cms->tol == 0 || (cms->tol > 0 && cms->tol < 1), cms->comm, PETSC_ERR_USER_INPUT, "-cms_tol: got %g, expected a value in (0, 1)",
             (double)cms->tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every method can take all the modes its eigenproblem has, and no more: Craig-Bampton's fixed-interface problem (K_ii, M_ii) has N - nb
   DOFs; MacNeal's and Rubin's free-interface problem has N, but with more than N - nb modes the residual flexibility at the boundary
   F'_bb = sum over the modes left out of phi_b phi_b^T / omega^2 (seed 000 Eq. 17) has rank < nb and cannot be inverted (Eq. 18). So
   the limit is N - nb for all four, and a ROM at the limit is the parent itself in another basis. */
static PetscErrorCode VICMSCheckNumModes(VICMS cms)
{
  PetscInt N, max;

  PetscFunctionBeginUser;
  PetscCall(VIModelGetNumDofs(cms->model, NULL, &N));
  max = N - cms->nb;
  if (cms->num_modes <= max) PetscFunctionReturn(PETSC_SUCCESS);
  if (cms->type == VI_CMS_CB || cms->type == VI_CMS_CB_MASSLESS)
    SETERRQ(cms->comm, PETSC_ERR_USER_INPUT,
            "-%scms_num_modes: %" PetscInt_FMT " component modes asked, but the model has %" PetscInt_FMT " free DOFs of which %" PetscInt_FMT
            " are boundary coordinates, so the fixed-interface problem (K_ii, M_ii) of %s has %" PetscInt_FMT " modes: give at most %" PetscInt_FMT,
            cms->prefix, cms->num_modes, N, cms->nb, VICMSTypes[cms->type], max, PetscMax(max, 0));
  SETERRQ(cms->comm, PETSC_ERR_USER_INPUT,
          "-%scms_num_modes: %" PetscInt_FMT " component modes asked, but the model has %" PetscInt_FMT " free DOFs of which %" PetscInt_FMT
          " are boundary coordinates: %s keeps a residual flexibility at the boundary only with at most N - nb = %" PetscInt_FMT
          " free-interface modes (with more, F'_bb is singular): give at most %" PetscInt_FMT,
          cms->prefix, cms->num_modes, N, cms->nb, VICMSTypes[cms->type], max, PetscMax(max, 0));
}

PetscErrorCode VICMSReduce(VICMS cms, VIROM rom)
{
  PetscFunctionBeginUser;
  PetscCheck(cms->model, cms->comm, PETSC_ERR_ORDER, "Call VICMSSetModel() first");
  PetscCall(VIModelSetUp(cms->model));
  if (cms->frame_invariants) {
    VIMesh   mesh;
    PetscInt dim;
    PetscCall(VIModelGetMesh(cms->model, &mesh));
    PetscCall(VIMeshGetDimension(mesh, &dim));
    PetscCheck(dim == 2 || dim == 3, cms->comm, PETSC_ERR_USER_INPUT,
               "-%scms_frame_invariants: the parent model is %" PetscInt_FMT "-D; a floating frame needs a planar (2-D) or spatial (3-D) model",
               cms->prefix, dim);
  }
  PetscCall(VICMSSetUpBoundary(cms));
  PetscCall(VICMSCheckNumModes(cms));
  PetscCall(MatDestroy(&cms->R));
  PetscCall(PetscFree(cms->omega2));
  PetscCall(PetscMalloc1(cms->num_modes, &cms->omega2));
  if (cms->type == VI_CMS_CB || cms->type == VI_CMS_CB_MASSLESS)
    PetscCall(VICMSBasisCraigBampton(cms));
  else
    PetscCall(VICMSBasisMacNeal(cms));
  PetscCall(VICMSProject(cms, rom));
  if (cms->frame_invariants) PetscCall(VICMSFrameInvariants(cms, rom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VICMSView(VICMS cms, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(cms->comm, &viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "CMS: %s, %" PetscInt_FMT " contacts, %" PetscInt_FMT " boundary coordinates, %" PetscInt_FMT " component modes\n",
                                   VICMSTypes[cms->type], cms->num_contacts, cms->nb, cms->num_modes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cms module's options: the reduction (SLEPc and MUMPS under -cms_), several bodies with each body's options under -body_NAME_
 * (src/sys/options.c's registry: names, the type each is read with, an enum's choices) */
static const VIOptionEntry VICMSOptions[] = {
    {"-cms_type", VI_OPTION_ENUM, VICMSTypes},
    {"-cms_num_modes", VI_OPTION_INT, NULL},
    {"-cms_contact_nodes", VI_OPTION_INTS, NULL},
    {"-cms_contact_set", VI_OPTION_STRINGS, NULL},
    {"-cms_contact_dirs", VI_OPTION_INT, NULL},
    {"-cms_contact_normal", VI_OPTION_REALS, NULL},
    {"-cms_contact_radial_axis", VI_OPTION_REALS, NULL},
    {"-cms_contact_radial_origin", VI_OPTION_REALS, NULL},
    {"-cms_contact_radial_inward", VI_OPTION_BOOL, NULL},
    {"-cms_contact_t1", VI_OPTION_REALS, NULL},
    {"-cms_contact_area", VI_OPTION_REAL, NULL},
    {"-cms_rigid_stiffness", VI_OPTION_REAL, NULL},
    {"-cms_solver", VI_OPTION_ENUM, VISolverTypes},
    {"-cms_tol", VI_OPTION_REAL, NULL},
    {"-cms_damping_ratio", VI_OPTION_REAL, NULL},
    {"-cms_damping_ratios", VI_OPTION_REALS, NULL},
    {"-cms_rayleigh", VI_OPTION_REALS, NULL},
    {"-cms_gravity", VI_OPTION_REALS, NULL},
    {"-cms_forces", VI_OPTION_STRINGS, NULL},
    {"-cms_outputs", VI_OPTION_STRINGS, NULL},
    {"-cms_units", VI_OPTION_STRING, NULL},
    {"-cms_fields", VI_OPTION_ENUM, VICMSFieldsTypes},
    {"-cms_fields_nodes", VI_OPTION_STRING, NULL},
    {"-cms_frame_invariants", VI_OPTION_BOOL, NULL},
    {"-bodies", VI_OPTION_STRINGS, NULL},
    {"-bodies_parallel", VI_OPTION_ENUM, VIBodiesParallelTypes},
    {"-bodies_mesh_file", VI_OPTION_STRING, NULL},
    {"-body_*_mesh_file", VI_OPTION_STRING, NULL},
    {"-body_*_mesh_elset", VI_OPTION_STRING, NULL},
    {"-body_*_mesh_line_cells", VI_OPTION_INT, NULL},
    {"-body_*_mesh_line_length", VI_OPTION_REAL, NULL},
    {"-body_*_mesh_line_area", VI_OPTION_REAL, NULL},
    {"-body_*_mesh_box_cells", VI_OPTION_INTS, NULL},
    {"-body_*_mesh_box_lengths", VI_OPTION_REALS, NULL},
    {"-body_*_mesh_box_element", VI_OPTION_ENUM, VIElementTypes},
    {"-body_*_mesh_rect_cells", VI_OPTION_INTS, NULL},
    {"-body_*_mesh_rect_lengths", VI_OPTION_REALS, NULL},
    {"-body_*_mesh_rect_thickness", VI_OPTION_REAL, NULL},
    {"-body_*_mesh_rect_origin", VI_OPTION_REALS, NULL},
    {"-body_*_mesh_rect_angle", VI_OPTION_REAL, NULL},
    {"-body_*_model_young", VI_OPTION_REAL, NULL},
    {"-body_*_model_poisson", VI_OPTION_REAL, NULL},
    {"-body_*_model_density", VI_OPTION_REAL, NULL},
    {"-body_*_model_clamp", VI_OPTION_STRINGS, NULL},
    {"-body_*_model_lumped_mass", VI_OPTION_BOOL, NULL},
    {"-body_*_model_integration", VI_OPTION_ENUM, VIIntegrations},
    {"-body_*_parent_matrices", VI_OPTION_STRING, NULL},
    {"-body_*_parent_format", VI_OPTION_ENUM, VIParentFormats},
    {"-body_*_parent_dofs", VI_OPTION_STRING, NULL},
    {"-body_*_cms_type", VI_OPTION_ENUM, VICMSTypes},
    {"-body_*_cms_num_modes", VI_OPTION_INT, NULL},
    {"-body_*_cms_solver", VI_OPTION_ENUM, VISolverTypes},
    {"-body_*_cms_tol", VI_OPTION_REAL, NULL},
    {"-body_*_cms_contact_nodes", VI_OPTION_INTS, NULL},
    {"-body_*_cms_contact_set", VI_OPTION_STRINGS, NULL},
    {"-body_*_cms_contact_dirs", VI_OPTION_INT, NULL},
    {"-body_*_cms_contact_normal", VI_OPTION_REALS, NULL},
    {"-body_*_cms_contact_area", VI_OPTION_REAL, NULL},
    {"-body_*_cms_damping_ratio", VI_OPTION_REAL, NULL},
    {"-body_*_cms_damping_ratios", VI_OPTION_REALS, NULL},
    {"-body_*_cms_rayleigh", VI_OPTION_REALS, NULL},
    {"-body_*_cms_gravity", VI_OPTION_REALS, NULL},
    {"-body_*_cms_forces", VI_OPTION_STRINGS, NULL},
    {"-body_*_cms_outputs", VI_OPTION_STRINGS, NULL},
    {"-body_*_cms_units", VI_OPTION_STRING, NULL},
    {"-body_*_cms_fields", VI_OPTION_ENUM, VICMSFieldsTypes},
    {"-body_*_cms_fields_nodes", VI_OPTION_STRING, NULL},
    {"-cms_eps_*", VI_OPTION_PASS, NULL},
    {"-cms_st_pmg", VI_OPTION_BOOL, NULL}, /* VISolverSetUp (src/fem/solver.c) */
    {"-cms_st_*", VI_OPTION_PASS, NULL},
    {"-cms_bv_*", VI_OPTION_PASS, NULL},
    {"-cms_ds_*", VI_OPTION_PASS, NULL},
    {"-cms_rg_*", VI_OPTION_PASS, NULL},
};

PetscErrorCode VICMSRegisterOptions(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIOptionsRegisterTable("cms", VICMSOptions, sizeof(VICMSOptions) / sizeof(VICMSOptions[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}
