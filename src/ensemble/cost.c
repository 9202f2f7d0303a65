/* The cost model of a case: an estimate of its run time, so that the scheduler can hand the longest cases out first. */
#include "ensembleimpl.h"
#include <vicms/step.h>

/*
  The estimate, in multiply-adds (only the ratios between the cases of one job matter: they share one ROM):

    cost = steps * scheme * (n^2 + kappa * nb^2),    steps = ceil((end_time - start_time) / dt)

  n^2:        the dense updates of a step (the inner row block of K and the boundary prediction K_bb^-1 K_bi q_i, about
              1.3 dense n x n matrix-vector products per step without contact, bench/step.sh);
  kappa nb^2: the contact solves on the nb boundary coordinates: kappa = 1 for frictionless contacts (position level),
              kappa = 3 when the case has friction (-contact_mu > 0 and tangential contact coordinates; solved on velocity
              level; the blade's rubbing costs 0.64 matvecs of n = 98 per step on average, about 2.7 nb^2 for nb = 48);
  scheme:     1 for leapfrog, 4 for the other schemes (the mass-carrying boundary's Moreau step with its larger Delassus
              problem costs about 4 times a leapfrog step on the blade, bench/blade.sh).

  The model knows the options of each case (time span, step, scheme, friction), not its dynamics: how often and how long
  the contacts close (gap, amplitude and frequency of the load) changes the cost too, by a factor that the estimate does
  not see, so cases that differ only in such parameters get equal estimates and keep their index order.

  The estimate of case k; dt0, end0: the stepper's defaults; nb, nm: the ROM's sizes; dims: the most coordinates of a
  contact.
*/
static PetscErrorCode VIEnsembleCaseCost(VIEnsemble ens, PetscInt k, PetscReal dt0, PetscReal end0, PetscInt nb, PetscInt nm, PetscInt dims,
                                         PetscReal *cost)
{
  PetscReal     dt = dt0, t0 = 0, t1 = end0, mu = 0, steps, kappa, scheme, n = (PetscReal)(nb + nm);
  char          type[64] = VISTEPPERLEAPFROG;
  PetscBool     leapfrog;

  PetscFunctionBeginUser;
  PetscCall(VICaseSetApply(ens->cs, k));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-step_dt", &dt, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-step_start_time", &t0, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-step_end_time", &t1, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-contact_mu", &mu, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-step_type", type, sizeof(type), NULL));
  PetscCall(PetscStrcmp(type, VISTEPPERLEAPFROG, &leapfrog));
  /* options that the case will refuse (a step longer than the span) make it fail at once: it costs nothing */
  steps  = dt > 0 && t1 > t0 ? PetscCeilReal((t1 - t0) / dt - 1e-9) : 0;
  kappa  = mu > 0 && dims > 1 ? 3 : 1;
  scheme = leapfrog ? 1 : 4;
  *cost  = steps * scheme * (n * n + kappa * nb * nb);
  if (PetscIsInfOrNanReal(*cost)) *cost = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIEnsembleEstimateCosts(VIEnsemble ens, PetscInt n, const PetscInt cases[], PetscReal cost[])
{
  VIStepper            st;
  PetscReal            dt0, end0;
  PetscInt             nb, nm, nc, dims = 0;
  const VIContactInfo *contacts;

  PetscFunctionBeginUser;
  /* the stepper's defaults, for the cases that do not set the time step or span */
  PetscCall(VIStepperCreate(PETSC_COMM_SELF, &st));
  PetscCall(VIStepperGetTimeStep(st, &dt0, &end0));
  PetscCall(VIStepperDestroy(&st));
  PetscCall(VIROMGetSizes(ens->rom, &nb, &nm));
  PetscCall(VIROMGetContacts(ens->rom, &nc, &contacts));
  for (PetscInt j = 0; j < nc; j++) dims = PetscMax(dims, contacts[j].dim);
  {
    /* when no case parameter enters the estimate, every case costs the same: one estimate serves (a large sample) */
    static const char *const inputs[] = {"step_dt", "step_start_time", "step_end_time", "contact_mu", "step_type"};
    PetscInt                 np;
    PetscBool                varies = PETSC_FALSE;
    PetscCall(VICaseSetGetSize(ens->cs, NULL, &np));
    for (PetscInt p = 0; p < np && !varies; p++) {
      const char *name;
      PetscCall(VICaseSetGetParameterName(ens->cs, p, &name));
      for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
        if (!strcmp(name, inputs[i])) varies = PETSC_TRUE;
    }
    if (!varies && n > 1) {
      PetscCall(VIEnsembleEstimateCosts(ens, 1, cases, cost));
      for (PetscInt i = 1; i < n; i++) cost[i] = cost[0];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  for (PetscInt i = 0; i < n; i++) {
    PetscErrorCode ierr;
    char           msg[256];
    /* a case whose parameters cannot be applied (a sampled value out of range) fails at once when it runs: it costs nothing */
    PetscCall(PetscPushErrorHandler(VIErrorCapture, msg));
    ierr = VIEnsembleCaseCost(ens, cases[i], dt0, end0, nb, nm, dims, &cost[i]);
    PetscCall(PetscPopErrorHandler());
    if (ierr) cost[i] = 0;
    PetscCall(VICaseSetRestore(ens->cs));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
