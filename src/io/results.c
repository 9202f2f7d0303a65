/* The results file of `vicms simulate`: header, case parameters, one group per case with its series and statistics. */
#include <vicms/io.h>

PetscErrorCode VIResultsCreate(const char path[], PetscInt ncases, PetscInt ncols, const char *const columns[], const PetscReal parameters[],
                               hid_t *file)
{
  char *all, names[4096] = "";

  PetscFunctionBeginUser;
  PetscCall(VIH5Create(path, file));
  PetscCall(VIH5WriteAttrString(*file, "/", "format", "vicms-results"));
  PetscCall(VIH5WriteAttrString(*file, "/", "version", VICMS_VERSION));
  PetscCall(PetscOptionsGetAll(NULL, &all));
  PetscCall(VIH5WriteAttrString(*file, "/", "options", all));
  PetscCall(PetscFree(all));
  PetscCall(VIH5WriteReal(*file, "/cases/parameters", ncases, ncols, parameters));
  for (PetscInt c = 0; c < ncols; c++) {
    if (c) PetscCall(PetscStrlcat(names, ",", sizeof(names)));
    PetscCall(PetscStrlcat(names, columns[c], sizeof(names)));
  }
  PetscCall(VIH5WriteAttrString(*file, "/cases/parameters", "columns", names));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIResultsWriteCase(hid_t file, PetscInt k, PetscInt nt, const PetscReal t[], PetscInt nout, const char *const out_names[],
                                  const PetscReal outputs[], PetscInt nc, const PetscReal gaps[], const PetscReal forces[], const PetscReal energy[],
                                  PetscBool failed, const char message[], PetscInt steps, PetscReal wall_time, PetscReal iterations_mean,
                                  PetscInt iterations_max, PetscInt nonconverged)
{
  char group[64], path[128], names[4096] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(group, sizeof(group), "/cases/%" PetscInt_FMT, k));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/t", group));
  PetscCall(VIH5WriteReal(file, path, nt, 0, t));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/outputs", group));
  PetscCall(VIH5WriteReal(file, path, nt, PetscMax(nout, 1), nout ? outputs : t));
  for (PetscInt o = 0; o < nout; o++) {
    if (o) PetscCall(PetscStrlcat(names, ",", sizeof(names)));
    PetscCall(PetscStrlcat(names, out_names[o], sizeof(names)));
  }
  PetscCall(VIH5WriteAttrString(file, path, "columns", nout ? names : "t"));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/gaps", group));
  PetscCall(VIH5WriteReal(file, path, nt, PetscMax(nc, 1), nc ? gaps : t));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/forces", group));
  PetscCall(VIH5WriteReal(file, path, nt, PetscMax(nc, 1), nc ? forces : t));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/energy", group));
  PetscCall(VIH5WriteReal(file, path, nt, 7, energy));
  PetscCall(VIH5WriteAttrString(file, path, "columns", "kinetic,potential,damping_dissipation,friction_dissipation,external_work,obstacle_work,balance_error"));
  PetscCall(VIH5WriteAttrString(file, group, "status", failed ? "failed" : "done"));
  PetscCall(VIH5WriteAttrString(file, group, "message", message ? message : ""));
  PetscCall(VIH5WriteAttrInt(file, group, "steps", steps));
  PetscCall(VIH5WriteAttrReal(file, group, "wall_time", wall_time));
  PetscCall(VIH5WriteAttrReal(file, group, "contact_iterations_mean", iterations_mean));
  PetscCall(VIH5WriteAttrInt(file, group, "contact_iterations_max", iterations_max));
  PetscCall(VIH5WriteAttrInt(file, group, "contact_nonconverged", nonconverged));
  PetscFunctionReturn(PETSC_SUCCESS);
}
