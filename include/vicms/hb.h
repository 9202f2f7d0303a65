/* vicms hb module: periodic solutions of a contact case by harmonic balance with the dynamic Lagrangian (seed 000 App. A),
   their continuation in the excitation frequency and their stability. */
#pragma once

#include <vicms/step.h>
#include <vicms/io.h>

typedef enum { VI_HB_UP, VI_HB_DOWN } VIHBDirection;
PETSC_EXTERN const char *const VIHBDirections[]; /* "up", "down", trailer */

/* Kind of a branch point: a regular point, a turning point (dOmega/ds changes sign after it), a change of stability. */
#define VI_HB_POINT_TURNING   1
#define VI_HB_POINT_STABILITY 2

/* How a point's stability was decided (the branch's stability_method; docs/hb.md, "Stability"). */
typedef enum {
  VI_HB_STABILITY_NONE    = -1, /* not computed */
  VI_HB_STABILITY_FLOQUET = 0,  /* Floquet multipliers of the exact periodic orbit near the solution (massless boundary) */
  VI_HB_STABILITY_MOTION  = 1,  /* no exact orbit found near it: the exact motion started from the solution leaves it
                                   (unstable) or stays near it, contracting (stable) */
  VI_HB_STABILITY_TRANSIENT = 2 /* the case's time stepping started from the solution: the dominant multiplier of its period map */
} VIHBStabilityMethod;

/* A computed branch: np points, each with its frequency, the Fourier coefficients of every ROM output (nout x (2H + 1):
   a0, a1, b1, ..., aH, bH with y(t) = a0 + sum_h a_h cos(h Omega t) + b_h sin(h Omega t)), amplitude (half peak-to-peak),
   min, max and mean of every output over the N samples of a period, per contact the closed fraction of the period, the
   slipping fraction (frictional contacts: closed and on the Coulomb circle) and the largest normal force, Newton iterations, stability (1 stable, 0
   unstable, -1 not computed), the largest Floquet multiplier modulus (for VI_HB_STABILITY_MOTION the growth or contraction
   per period of the motion started from the solution, for VI_HB_STABILITY_TRANSIENT the estimate of the dominant one; a
   point the transient left undecided has stable -1 with that method), how the stability was decided
   (VIHBStabilityMethod) and the point's kind (VI_HB_POINT_*
   bits). Arrays owned by the VIHB. */
/* Which analysis decides a point's stability (-hb_stability_method): auto (the Floquet analysis of the exact motion
   where it models the point, else the transient of the case's time stepping), floquet (only that analysis), transient
   (the time stepping's transient at every point). */
typedef enum { VI_HB_STABILITY_TYPE_AUTO, VI_HB_STABILITY_TYPE_FLOQUET, VI_HB_STABILITY_TYPE_TRANSIENT } VIHBStabilityType;
PETSC_EXTERN const char *const VIHBStabilityTypes[]; /* "auto", "floquet", "transient", trailer */

typedef struct {
  PetscInt   np, nout, nc, nh;
  PetscReal *frequency_hz, *harmonics, *amplitude, *min, *max, *mean, *closed_fraction, *slip_fraction, *force_max, *multiplier;
  PetscInt  *iterations, *stable, *stability_method, *kind;
  /* with -hb_record_q: the harmonics of the ROM coordinates, np x (nh n), entry c n + i for harmonic c of coordinate i (the
     layout of the outputs' harmonics: 0 the mean, 2h - 1 cos(h theta), 2h sin(h theta)); else NULL */
  PetscReal *q_harmonics;
  /* at a turning point (kind VI_HB_POINT_TURNING) the located fold: its frequency and the outputs' amplitudes there
     (nout per point); 0 at other points */
  PetscReal *fold_hz, *fold_amplitude;
  /* per point the argument in [0, pi] of the dominant Floquet multiplier (0 real positive, pi real negative: a period
     doubling; -1 where the stability is not from the exact multipliers); at a stability change (VI_HB_POINT_STABILITY)
     decided by the exact multipliers on both sides the located frequency where the dominant one crosses the unit circle,
     0 elsewhere */
  PetscReal *multiplier_arg, *change_hz;
  PetscReal  wall_time;    /* seconds the continuation took, over every run that computed it (stopped and resumed) */
  PetscBool  failed;       /* the continuation stopped before the end of the range */
  PetscBool  stopped;      /* it was stopped on request (VIHBStop) at a point boundary, to be continued from a checkpoint */
  char       message[256]; /* why, with the frequency reached */
} VIHBBranch;

typedef struct _p_VIHB *VIHB;

PETSC_EXTERN PetscErrorCode VIHBCreate(MPI_Comm comm, VIHB *hb);
/* The case: its ROM, harmonic loads, contacts, gaps and preloads (referenced, set up by the caller). */
PETSC_EXTERN PetscErrorCode VIHBSetSystem(VIHB hb, VISystem sys);
/*
  Options (prefix -hb_): -hb_harmonics H, -hb_samples N (>= 2H + 1), -hb_eps_dl eps (dynamic Lagrangian parameter of the normal
  and the friction law; 0: per contact coordinate c, 4 / (K^-1)_cc, at most K_cc: the normal law its normal coordinate's,
  friction the smaller of its tangents'), -hb_freq_range f0,f1
  (Hz), -hb_direction up|down, -hb_start f (Hz, default the end of the range the direction starts from), -hb_step ds, -hb_step_min, -hb_step_max
  (pseudo-arclength steps, in the scaled unknowns), -hb_max_freq_step df (Hz), -hb_max_points, -hb_tol, -hb_max_it,
  -hb_target_it, -hb_fold_tol (turning points closer than this relative frequency are zig-zags of the
  sampled contact law), -hb_condense (linear inner coordinates condensed onto the contact harmonics), -hb_stability,
  -hb_stability_method auto|floquet|transient (VIHBStabilityType), -hb_stability_steps S (the transient's steps per
  period, a multiple of 64; 0: automatic), -hb_stability_periods P (the transient's most periods, default 200).
*/
PETSC_EXTERN PetscErrorCode VIHBSetFromOptions(VIHB hb);
/* Check the case against the method (loads, harmonics, samples, range), build the transforms. Collective. */
PETSC_EXTERN PetscErrorCode VIHBSetUp(VIHB hb);
/* Newton at fixed frequency f (Hz) from the current harmonics (the linear response on the first call). Not collective:
   every rank computes the same. */
PETSC_EXTERN PetscErrorCode VIHBSolve(VIHB hb, PetscReal f, PetscBool *converged, PetscInt *iterations);
/* The continuation over the range, with stability of every point; a failure ends the branch with branch.failed set. */
PETSC_EXTERN PetscErrorCode VIHBContinue(VIHB hb);
/*
  VIHBSetMonitor - monitor(hb, np, f, ctx) is called by VIHBContinue at every point boundary: after the first point and
  after every later point accepted or step cut, with the points so far np and the last one's frequency f (Hz). Every
  rank of the object's communicator reaches the same boundaries (each computes the same branch), so the monitor may be
  collective there. It may call VIHBStop, or write a checkpoint (VIHBCheckpointWrite).
*/
PETSC_EXTERN PetscErrorCode VIHBSetMonitor(VIHB hb, PetscErrorCode (*monitor)(VIHB hb, PetscInt np, PetscReal f, void *ctx), void *ctx);
/* From the monitor: VIHBContinue returns at this boundary with branch.stopped set (the fold filter not applied), its
   state kept for VIHBCheckpointWrite. Not collective: every rank of the object must call it at the same boundary. */
PETSC_EXTERN PetscErrorCode VIHBStop(VIHB hb);
/* Write the continuation at its last point boundary to path (through path.part and a rename): the points so far, the
   solution X, the tangent, the last point and scale, the step, the stability's orbit; tag names what it belongs to.
   Rank-local. */
PETSC_EXTERN PetscErrorCode VIHBCheckpointWrite(VIHB hb, const char path[], const char tag[]);
/* Collective: after VIHBSetUp, restore the continuation from the checkpoint at path when its tag, sizes and range are
   this run's (*restored; else why, in words, and the branch starts afresh); the next VIHBContinue continues it, equal
   bit for bit to the branch never stopped. */
PETSC_EXTERN PetscErrorCode VIHBCheckpointRead(VIHB hb, const char path[], const char tag[], PetscBool *restored, char why[], size_t len);
PETSC_EXTERN PetscErrorCode VIHBGetBranch(VIHB hb, const VIHBBranch **branch);
/* Harmonics (n x (2H+1), coefficient-major: entry c * n + i) of the ROM coordinates at the last solution. */
PETSC_EXTERN PetscErrorCode VIHBGetSolution(VIHB hb, PetscInt *n, PetscInt *nh, const PetscReal **q);
/* Print the branch as a table on the object's communicator (output index of the ROM). */
PETSC_EXTERN PetscErrorCode VIHBPrintBranch(VIHB hb, PetscInt output);
/* Write the branch into an open HDF5 file under group (rank-local). */
PETSC_EXTERN PetscErrorCode VIHBWriteBranch(VIHB hb, hid_t file, const char group[]);
/* Describe a branch written by VIHBWriteBranch in words (`vicms info`): size, range, turning points, stability changes,
   largest amplitude. Rank-local. */
PETSC_EXTERN PetscErrorCode VIHBBranchDescribe(hid_t file, const char group[]);
PETSC_EXTERN PetscErrorCode VIHBDestroy(VIHB *hb);
/* Declares the module's options to the option registry (src/sys/options.c; once, at start-up: VIOptionsRegisterAll). */
PETSC_EXTERN PetscErrorCode VIHBRegisterOptions(void);
