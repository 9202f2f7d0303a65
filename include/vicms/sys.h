/* vicms sys module: initialization, logging events and stages, error propagation across ranks. */
#pragma once

#include <petscsys.h>
#include <petscversion.h>
#include <petscsftypes.h>

/* PETSc 3.18 (Debian bookworm) predates PETSC_SUCCESS */
#if PETSC_VERSION_LT(3, 19, 0) && !defined(PETSC_SUCCESS)
#define PETSC_SUCCESS ((PetscErrorCode)0)
#endif

#define VICMS_VERSION "0.1.0"

/* Log events, one per kernel (registered by VIInitializePackage). */
PETSC_EXTERN PetscLogEvent VI_MeshRead, VI_MeshPartition, VI_Assemble, VI_EigenSolve, VI_Factor, VI_StaticModes, VI_Project, VI_Step, VI_ContactSolve;

PETSC_EXTERN PetscErrorCode VIInitializePackage(void);

/*
  VIErrorSync - make an error seen on some ranks an error on all ranks of comm, so that no rank waits in a collective
  call for a rank that gave up. Collective.

  The ranks where local_err is nonzero return it unchanged (their message was printed where it arose); the others
  return PETSC_ERR_USER_INPUT silently.
*/
PETSC_EXTERN PetscErrorCode VIErrorSync(MPI_Comm comm, PetscErrorCode local_err);

/*
  VIMemoryAvailable - the memory one rank of comm may take: the node's available memory (MemAvailable of /proc/meminfo, else
  sysconf's available pages) shared by the ranks of comm on that node, the smallest over the nodes. Collective. For an estimate
  before a large allocation, so that a job that cannot fit is refused with the sizes rather than killed or traced back.
*/
/* A file path as messages show it: whole up to 255 characters, else "..." and its last components (the file name kept whole), so
   that a message stays below PETSc's 2 kB buffer with its reason. Not collective. */
PETSC_EXTERN PetscErrorCode VIMessagePath(const char path[], char out[], size_t len);
PETSC_EXTERN PetscErrorCode VIMemoryAvailable(MPI_Comm comm, PetscLogDouble *per_rank, PetscLogDouble *node, PetscMPIInt *ranks_on_node);

/*
  VISFCreateSend - the PetscSF that sends blocks of entries to ranks that do not know who sends to them: this rank sends
  tocounts[k] consecutive entries of its buffer to toranks[k] (distinct ranks, the blocks in the buffer in that order; roots:
  the buffer's entries), and receives in its leaves the blocks sent to it, ordered by the sender's rank, each in its sender's
  order. PetscSFBcast carries the entries (of any MPI type) to the receivers; PetscSFReduce with MPI_REPLACE carries answers
  back, entry for entry. Nothing of the communicator's size is allocated (PetscCommBuildTwoSided). Collective.
*/
PETSC_EXTERN PetscErrorCode VISFCreateSend(MPI_Comm comm, PetscMPIInt nto, const PetscMPIInt toranks[], const PetscInt tocounts[], PetscSF *sf);

/*
  Clean stops (SIGTERM, SIGUSR1: a cluster's time limit or scancel; SIGINT: Ctrl-C). VISignalInstall sets handlers that only record the
  signal; while VISignalDefer(PETSC_TRUE) is in force (the ensemble's case loop) the job reads VISignalReceived at its step
  boundaries, agrees on a stop across its ranks, writes what it has and exits with VI_EXIT_RESUMABLE; outside (reading
  the input, reducing, setting up), nothing could be kept: a signal ends the process at once with a line from rank 0 and
  VI_EXIT_RESUMABLE (rerun the same command), not a silent death by the signal (143). Not collective.
*/
#define VI_EXIT_RESUMABLE 75 /* EX_TEMPFAIL: stopped on a signal, rerun the same command to resume */
PETSC_EXTERN PetscErrorCode VISignalInstall(void);
/* Once the ranks agreed on the exit status, and again after PetscFinalize (which resets SIGTERM to its default): a late
   SIGTERM or SIGUSR1 is only recorded until the process exits, so that every rank exits with the agreed status. */
PETSC_EXTERN void VISignalKeep(void);
PETSC_EXTERN void VISignalDefer(PetscBool defer);
/* The first signal received while deferring (SIGTERM, SIGUSR1 or SIGINT), 0 if none. */
PETSC_EXTERN int         VISignalReceived(void);
PETSC_EXTERN const char *VISignalName(int sig);
/* Whether the job stopped on a signal with work left (its exit status is then VI_EXIT_RESUMABLE). */
PETSC_EXTERN void      VISetStopped(PetscBool stopped);
PETSC_EXTERN PetscBool VIGetStopped(void);

/* The error handler of the vicms executable: one clear line for user errors, PETSc's traceback for the rest. */
PETSC_EXTERN PetscErrorCode VIErrorHandler(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p,
                                           const char *mess, void *ctx);
/* An error handler that keeps the first line of an error's message in ctx (a char[256]) and prints nothing: for errors
   a caller records (a failed case, a file it cannot write) rather than reports. */
PETSC_EXTERN PetscErrorCode VIErrorCapture(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p,
                                           const char *mess, void *ctx);

/* The registry of option names (src/sys/options.c): every option of every command, so that a job file serves all of
   them, with the type each is read with. */
typedef enum {
  VI_OPTION_REAL,        /* a finite number */
  VI_OPTION_INT,         /* an integer */
  VI_OPTION_BOOL,        /* true or false */
  VI_OPTION_ENUM,        /* one of a list of choices */
  VI_OPTION_STRING,      /* any text */
  VI_OPTION_REALS,       /* comma-separated finite numbers */
  VI_OPTION_INTS,        /* comma-separated integers */
  VI_OPTION_STRINGS,     /* comma-separated texts */
  VI_OPTION_PASS,        /* read by SLEPc, PETSc or MUMPS under a vicms prefix (-cms_eps_*): not checked by vicms */
  VI_OPTION_PETSC,       /* PETSc's generic options (-log_view, -malloc_debug, ...) */
  VI_OPTION_REAL_OR_AUTO /* a finite number or the word auto (-step_dt), read as a string */
} VIOptionType;

typedef struct {
  const char        *name; /* with its dash; '*' stands for one or more characters (-load_*_type) */
  VIOptionType       type;
  const char *const *choices; /* VI_OPTION_ENUM: the choices, PETSc's enum list (names, type name, prefix, NULL) */
} VIOptionEntry;

/* VIOptionsRegisterTable - add a module's options (n rows, kept by reference: a static table) to the registry; a table
   registered again is ignored. Each module declares its own options next to the code that reads them and registers
   them once at start-up (VIOptionsRegisterAll in vicms.h); sys's own rows are PETSc's generic options. Not collective. */
PETSC_EXTERN PetscErrorCode VIOptionsRegisterTable(const char module[], const VIOptionEntry table[], size_t n);
/* The registry's entry of an option name (with its dash), or NULL. Not collective. */
PETSC_EXTERN const VIOptionEntry *VIOptionsFind(const char name[]);
/* Whether vicms knows the name (its own, passed to SLEPc/PETSc/MUMPS under its prefixes, or PETSc's generic ones). */
PETSC_EXTERN PetscBool VIOptionsIsKnown(const char name[]);
/* Whether the name is one of vicms's own options (not PETSc's, nor passed on to SLEPc/PETSc/MUMPS). */
PETSC_EXTERN PetscBool VIOptionsIsVicms(const char name[]);
/* The known name nearest to name by edit distance, or "" when none is close. */
PETSC_EXTERN void VIOptionsSuggest(const char name[], char suggestion[], size_t len);
/* The word of words[0..n) nearest to word by edit distance (or of which word is a prefix of 3 characters or more), NULL
   when none is close: a mistyped command's suggestion. Not collective. */
PETSC_EXTERN const char *VINearestWord(const char word[], const char *const words[], size_t n);

/*
  VIOptionsCheck - refuse, with one line naming the option, any option in the database that vicms does not know (with
  the nearest known name) or whose value does not read as its type: a number that is not finite, an enum value not among
  its choices. Called before any work. Collective: every rank sees the same options and reaches the same verdict.
*/
PETSC_EXTERN PetscErrorCode VIOptionsCheck(MPI_Comm comm);
/* Refuse a case parameter (-cases_grid NAME:...) that is not a numeric vicms option without its dash. */
PETSC_EXTERN PetscErrorCode VIOptionsCheckCaseParameter(MPI_Comm comm, const char option[], const char param[]);
/*
  VIOptionsCheckYAML - check a job file against the flat `key: value` YAML of vicms jobs, before PETSc reads it; returns
  nonzero with "FILE:LINE: what" in message for a syntax error or a key given twice. Needs no PETSc (runs before
  PetscInitialize).
*/
PETSC_EXTERN int VIOptionsCheckYAML(const char path[], char message[], size_t len);
/*
  VIOptionsCheckJobFile - check the file PATH given with OPTION (-options_file or -options_file_yaml) before PETSc reads
  it: a regular file of at most 8 MB (a directory, a FIFO or pipe, a device is refused by its type, without opening it),
  without a UTF-8 byte-order mark or NUL byte, with no nested options_file; then, by its name, the flat YAML of vicms jobs
  (VIOptionsCheckYAML) or PETSc's `-option value` lines. Returns nonzero with "FILE[:LINE]: what" in message. Needs no
  PETSc; call it on one rank and tell the others (a FIFO would block every rank that opens it).
*/
PETSC_EXTERN int VIOptionsCheckJobFile(const char option[], const char path[], char message[], size_t len);
/* Make -help print vicms's options only (call before PetscInitialize). */
PETSC_EXTERN void VIOptionsFilterHelp(void);
/* A type option read from a registry (-system_type, -step_type) with its choices in its help line, printed through -help's filter */
PETSC_EXTERN PetscErrorCode VIOptionsTypeList(PetscOptionItems *PetscOptionsObject, const char opt[], const char text[], PetscFunctionList list,
                                              const char current[], char value[], size_t len, PetscBool *set);
