/* vicms: vibro-impact component mode synthesis — umbrella header. */
#pragma once

#include <vicms/sys.h>
#include <vicms/mesh.h>
#include <vicms/fem.h>
#include <vicms/io.h>
#include <vicms/rom.h>
#include <vicms/cms.h>
#include <vicms/contact.h>
#include <vicms/excite.h>
#include <vicms/system.h>
#include <vicms/step.h>
#include <vicms/dual.h>
#include <vicms/coupling.h>
#include <vicms/ensemble.h>
#include <vicms/hb.h>

/* Every library module's options into the option registry (src/sys/options.c), in the order the registry searches
   them; the vicms executable adds its commands' own (src/app/options.c). Call after PetscInitialize, before
   VIOptionsCheck; repeated calls do nothing. */
static inline PetscErrorCode VIOptionsRegisterAll(void)
{
  PetscFunctionBeginUser;
  PetscCall(VIMeshRegisterOptions());
  PetscCall(VIFEMRegisterOptions());
  PetscCall(VICMSRegisterOptions());
  PetscCall(VISystemRegisterOptions());
  PetscCall(VIExciteRegisterOptions());
  PetscCall(VIStepRegisterOptions());
  PetscCall(VICouplingRegisterOptions());
  PetscCall(VIContactRegisterOptions());
  PetscCall(VIEnsembleRegisterOptions());
  PetscCall(VIHBRegisterOptions());
  PetscFunctionReturn(PETSC_SUCCESS);
}
