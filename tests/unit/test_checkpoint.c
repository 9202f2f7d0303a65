/* Checkpoints of the steppers: a frictional run (warm starts, velocity-level contact, envelope and statistics accumulators) stopped at a step
   boundary, written, restored into a fresh stepper and continued ends bitwise equal to an uninterrupted run; a checkpoint of another run is
   refused. Leapfrog on a massless-boundary ROM, Moreau, nsgalpha (frictionless) and mixed (its three base schemes) on a mass-carrying one. */
#include "vitest.h"
#include <slepcsys.h>
#include <unistd.h>

static const char help[] = "Stepper checkpoints: stop, write, restore, continue = uninterrupted run\n";

/* 3D frictional contact on a 5-coordinate ROM (as test_step's FrictionROM); massless boundary unless mass is set. */
static PetscErrorCode MakeROM(PetscBool massless, VIROM *rom)
{
  const PetscReal K[25] = {4, 0.5, 0, -0.5, 0.2, 0.5, 3, 0.3, 0.3, -0.4, 0, 0.3, 3, 0.1, 0.2, -0.5, 0.3, 0.1, 2, 0, 0.2, -0.4, 0.2, 0, 5};
  VIContactInfo   ci;
  PetscReal      *k, *m, *d, v[5] = {0};

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&ci, sizeof(ci)));
  ci.node_id  = 1;
  ci.dim      = 3;
  ci.area     = 1;
  ci.frame[0] = ci.frame[4] = ci.frame[8] = 1;
  PetscCall(VIROMCreate(PETSC_COMM_WORLD, rom));
  PetscCall(VIROMSetSizes(*rom, massless ? VI_CMS_CB_MASSLESS : VI_CMS_CB, 3, 2));
  PetscCall(VIROMGetMatrices(*rom, &k, &m, &d));
  PetscCall(PetscArraycpy(k, K, 25));
  PetscCall(PetscArrayzero(m, 25));
  PetscCall(PetscArrayzero(d, 25));
  for (PetscInt i = massless ? 3 : 0; i < 5; i++) m[i * 5 + i] = 1;
  d[3 * 5 + 3] = 0.05;
  d[4 * 5 + 4] = 0.08;
  PetscCall(VIROMSetContacts(*rom, 1, &ci));
  PetscCall(VIROMValidate(*rom, NULL));
  v[0] = -1;
  PetscCall(VIROMAddLoad(*rom, "normal", v));
  v[0] = 0;
  v[1] = 1;
  PetscCall(VIROMAddLoad(*rom, "pull", v));
  PetscCall(VIROMAddOutput(*rom, "qt1", v));
  v[1] = 0;
  v[4] = 1;
  PetscCall(VIROMAddOutput(*rom, "q5", v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NewRun(VISystem sys, VIStepper *st)
{
  PetscFunctionBeginUser;
  PetscCall(VIStepperCreate(PETSC_COMM_WORLD, st));
  PetscCall(VIStepperSetSystem(*st, sys));
  PetscCall(VIStepperSetFromOptions(*st));
  PetscCall(VIStepperSetEnvelopeOutput(*st, 0));
  PetscCall(VIStepperSetUp(*st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bitwise comparison of everything a run reports (wall times aside). */
static PetscErrorCode Compare(const char label[], VIStepper a, VIStepper b, PetscInt nout, PetscInt nc)
{
  PetscInt         na, nb, ea, eb;
  const PetscReal *x[5], *y[5], *enva, *envb;
  VIStepStats      sa, sb;
  VIRunStatistics  ra, rb;
  PetscInt         w[5] = {1, nout, nc, nc, VI_ENERGY_COLUMNS}, bad = 0;

  PetscFunctionBeginUser;
  PetscCall(VIStepperGetSeries(a, &na, &x[0], &x[1], &x[2], &x[3], &x[4]));
  PetscCall(VIStepperGetSeries(b, &nb, &y[0], &y[1], &y[2], &y[3], &y[4]));
  PetscCheck(na == nb, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " records against %" PetscInt_FMT, label, nb, na);
  for (PetscInt s = 0; s < 5; s++)
    if (memcmp(x[s], y[s], sizeof(PetscReal) * na * w[s])) bad |= 1 << s;
  PetscCall(VIStepperGetStats(a, &sa));
  PetscCall(VIStepperGetStats(b, &sb));
  if (sa.steps != sb.steps || sa.contact_solves != sb.contact_solves || sa.contact_iterations != sb.contact_iterations ||
      sa.contact_iterations_max != sb.contact_iterations_max || sa.nonconverged != sb.nonconverged || sb.stopped)
    bad |= 1 << 5;
  PetscCall(VIStepperGetRunStatistics(a, &ra));
  PetscCall(VIStepperGetRunStatistics(b, &rb));
  if (memcmp(ra.max_abs, rb.max_abs, sizeof(PetscReal) * nout) || memcmp(ra.rms, rb.rms, sizeof(PetscReal) * nout) ||
      memcmp(ra.mean, rb.mean, sizeof(PetscReal) * nout) || memcmp(ra.min, rb.min, sizeof(PetscReal) * nout) || ra.force_max != rb.force_max ||
      ra.gap_min != rb.gap_min)
    bad |= 1 << 6;
  PetscCall(VIStepperGetEnvelope(a, &ea, &enva));
  PetscCall(VIStepperGetEnvelope(b, &eb, &envb));
  if (ea != eb || ea < 3 || memcmp(enva, envb, sizeof(PetscReal) * 2 * ea)) bad |= 1 << 7;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s: resumed run against the uninterrupted one: %" PetscInt_FMT " records, %" PetscInt_FMT " steps, %" PetscInt_FMT
                        " contact solves (%" PetscInt_FMT " iterations), %" PetscInt_FMT " envelope points: %s\n",
                        label, na, sa.steps, sa.contact_solves, sa.contact_iterations, ea, bad ? "DIFFER" : "bitwise equal"));
  PetscCheck(!bad, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "%s: the resumed run differs (mask %" PetscInt_FMT
             ": 1 t, 2 outputs, 4 gaps, 8 forces, 16 energy, 32 counters, 64 statistics, 128 envelope)",
             label, bad);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestScheme(const char label[], PetscBool massless, const char opts[])
{
  VIROM       rom;
  VISystem    sys;
  VIStepper   full, part, rest;
  VITestStop  ctx = {0, 5};
  VIStepStats stats;
  PetscBool   restored;
  char        why[128], path[64];
  PetscMPIInt rank;
  PetscInt    nout, nc;
  PetscReal   t;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  {
    int pid = (int)getpid(); /* rank 0's: one file for the job */
    PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    PetscCall(PetscSNPrintf(path, sizeof(path), "ckpt_%s_%d.h5", label, pid));
  }
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(MakeROM(massless, &rom));
  PetscCall(VIROMGetNumOutputs(rom, &nout));
  PetscCall(VIROMGetContacts(rom, &nc, NULL));
  PetscCall(VISystemCreate(PETSC_COMM_WORLD, &sys));
  PetscCall(VISystemSetROM(sys, rom));
  PetscCall(VISystemSetFromOptions(sys));

  PetscCall(NewRun(sys, &full));
  PetscCall(VIStepperRun(full));
  {
    VIRunStatistics rs;
    PetscCall(VIStepperGetRunStatistics(full, &rs));
    PetscCheck(rs.force_max > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the contact never closed (largest force %g): the test would not test it",
               label, (double)rs.force_max);
  }

  /* stopped at the 5th monitor call (level 256), checkpointed by rank 0 (the state is the same on every rank) */
  PetscCall(NewRun(sys, &part));
  PetscCall(VIStepperSetMonitor(part, VITestStopMonitor, &ctx));
  PetscCall(VIStepperRun(part));
  PetscCall(VIStepperGetStats(part, &stats));
  PetscCall(VIStepperGetLevel(part, NULL, &t));
  PetscCheck(stats.stopped && stats.stopped_time == t, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the run did not stop at the monitor's request", label);
  if (rank == 0) PetscCall(VIStepperCheckpointWrite(part, path, "job A case 0"));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));

  /* a checkpoint of another run is refused, and the stepper starts from the beginning */
  PetscCall(NewRun(sys, &rest));
  PetscCall(VIStepperCheckpointRead(rest, path, "job B case 0", &restored, why, sizeof(why)));
  PetscCheck(!restored && strstr(why, "another job"), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: a checkpoint with another tag was accepted (%s)", label,
             why);
  PetscCall(VIStepperRun(rest));
  PetscCall(Compare("checkpoint of another run refused, fresh run", full, rest, nout, nc));
  PetscCall(VIStepperDestroy(&rest));

  PetscCall(NewRun(sys, &rest));
  PetscCall(VIStepperCheckpointRead(rest, path, "job A case 0", &restored, why, sizeof(why)));
  PetscCheck(restored, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the checkpoint was not restored: %s", label, why);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: stopped and checkpointed at t = %g (%" PetscInt_FMT " steps)\n", label, (double)t, stats.steps));
  PetscCall(VIStepperRun(rest));
  PetscCall(Compare(label, full, rest, nout, nc));

  if (rank == 0) (void)unlink(path);
  PetscCall(VIStepperDestroy(&full));
  PetscCall(VIStepperDestroy(&part));
  PetscCall(VIStepperDestroy(&rest));
  PetscCall(VISystemDestroy(&sys));
  PetscCall(VIROMDestroy(&rom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define COMMON                                                                                                                                       \
  "-case_loads normal,pull -load_normal_amplitude 10 -load_pull_type harmonic -load_pull_amplitude 40 -load_pull_frequency 0.3 -contact_mu 0.3 "     \
  "-contact_gap 0 -step_end_time 20 -step_output_every 7 "

int main(int argc, char **argv)
{
  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCall(TestScheme("leapfrog", PETSC_TRUE, COMMON "-step_type leapfrog -step_dt 1e-2"));
  PetscCall(TestScheme("moreau", PETSC_FALSE, COMMON "-step_type moreau -step_dt 1e-2"));
  /* frictionless (seed 002), a normal load that opens and closes the contact: impacts, position projections, the generalized-alpha state */
  PetscCall(TestScheme("nsgalpha", PETSC_FALSE,
                       COMMON "-contact_mu 0 -load_normal_type harmonic -load_normal_amplitude 10 -load_normal_frequency 0.25 -load_normal_offset 2 "
                              "-step_type nsgalpha -step_rho_inf 0.7 -step_restitution 0.5 -step_dt 1e-2"));
  /* mixed (seed 001), frictional, the contact opening and closing (impulses, velocity-level forces, each base scheme's state) */
  PetscCall(TestScheme("mixed genalpha", PETSC_FALSE,
                       COMMON "-load_normal_type harmonic -load_normal_amplitude 10 -load_normal_frequency 0.25 -load_normal_offset 2 "
                              "-step_type mixed -step_mixed_base genalpha -step_rho_inf 0.7 -step_restitution 0.5 -step_dt 1e-2"));
  PetscCall(TestScheme("mixed bathe", PETSC_FALSE,
                       COMMON "-load_normal_type harmonic -load_normal_amplitude 10 -load_normal_frequency 0.25 -load_normal_offset 2 "
                              "-step_type mixed -step_mixed_base bathe -step_restitution 0.5 -step_dt 1e-2"));
  PetscCall(TestScheme("mixed edalpha", PETSC_FALSE,
                       COMMON "-load_normal_type harmonic -load_normal_amplitude 10 -load_normal_frequency 0.25 -load_normal_offset 2 "
                              "-step_type mixed -step_mixed_base edalpha -step_rho_inf 0.5 -step_restitution 0.5 "
                              "-step_mixed_restitution_tangential 0.2 -step_dt 1e-2"));
  PetscCall(SlepcFinalize());
  return 0;
}
