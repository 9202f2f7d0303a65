/* The floating-frame inertia invariants of a ROM (VIROMFrame, docs/frame.md) and their group /frame in the ROM file. */
#include "romimpl.h"

/* The datasets of /frame: name, rows and columns as multiples of (1, dim, dim*dim, n, dim*dim*n) and the units attribute
   (M, L: the ROM's mass and length; [q_k]: the unit of ROM coordinate k). */
typedef enum { VI_FRAME_ONE, VI_FRAME_DIM, VI_FRAME_DIM2, VI_FRAME_N, VI_FRAME_DIM2N } VIFrameSize;
static const struct {
  const char *name;
  VIFrameSize rows, cols; /* cols VI_FRAME_ONE: a 1-D dataset */
  const char *units;
} VIFrameSets[] = {
    {"mass", VI_FRAME_ONE, VI_FRAME_ONE, "M"},
    {"first_moment", VI_FRAME_DIM, VI_FRAME_ONE, "M L"},
    {"second_moment", VI_FRAME_DIM, VI_FRAME_DIM, "M L^2"},
    {"mode_moment", VI_FRAME_DIM, VI_FRAME_N, "M L / [q_k]"},
    {"position_mode", VI_FRAME_DIM2, VI_FRAME_N, "M L^2 / [q_k]"},
    {"mode_mode", VI_FRAME_DIM2N, VI_FRAME_N, "M L^2 / ([q_k][q_l])"},
};
#define VI_FRAME_NUM_SETS ((PetscInt)(sizeof(VIFrameSets) / sizeof(VIFrameSets[0])))

static PetscInt VIFrameExtent(VIFrameSize s, PetscInt dim, PetscInt n)
{
  switch (s) {
  case VI_FRAME_ONE:
    return 1;
  case VI_FRAME_DIM:
    return dim;
  case VI_FRAME_DIM2:
    return dim * dim;
  case VI_FRAME_N:
    return n;
  default:
    return dim * dim * n;
  }
}

/* The storage of dataset k in f (allocated by VIFrameAllocate). */
static PetscReal *VIFrameData(VIROMFrame *f, PetscInt k)
{
  switch (k) {
  case 0:
    return &f->mass;
  case 1:
    return f->first_moment;
  case 2:
    return f->second_moment;
  case 3:
    return f->mode_moment;
  case 4:
    return f->position_mode;
  default:
    return f->mode_mode;
  }
}

static PetscErrorCode VIFrameAllocate(PetscInt dim, PetscInt n, VIROMFrame **f)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(f));
  (*f)->dim = dim;
  (*f)->n   = n;
  PetscCall(PetscCalloc3(dim * n, &(*f)->mode_moment, dim * dim * n, &(*f)->position_mode, dim * dim * n * n, &(*f)->mode_mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMDestroyFrame(VIROM rom)
{
  PetscFunctionBeginUser;
  if (!rom->frame) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree3(rom->frame->mode_moment, rom->frame->position_mode, rom->frame->mode_mode));
  PetscCall(PetscFree(rom->frame));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What is wrong with f for a ROM of size n, in msg ("" when nothing): sizes, finite values, m > 0, the symmetries. */
static PetscErrorCode VIFrameCheck(const VIROMFrame *f, PetscInt n, char msg[], size_t len)
{
  const PetscInt d = f->dim;

  PetscFunctionBeginUser;
  msg[0] = 0;
  if (d != 2 && d != 3) {
    PetscCall(PetscSNPrintf(msg, len, "its dimension is %" PetscInt_FMT ", expected 2 (planar) or 3 (spatial)", d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (f->n != n) {
    PetscCall(PetscSNPrintf(msg, len, "it is for %" PetscInt_FMT " ROM coordinates, the ROM has %" PetscInt_FMT, f->n, n));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!(f->mass > 0) || PetscIsInfOrNanReal(f->mass)) {
    PetscCall(PetscSNPrintf(msg, len, "its mass is %g, expected a positive number", (double)f->mass));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt k = 1; k < VI_FRAME_NUM_SETS; k++) {
    const PetscReal *a  = VIFrameData((VIROMFrame *)f, k);
    PetscInt         na = VIFrameExtent(VIFrameSets[k].rows, d, n) * VIFrameExtent(VIFrameSets[k].cols, d, n);
    for (PetscInt i = 0; i < na; i++)
      if (PetscIsInfOrNanReal(a[i])) {
        PetscCall(PetscSNPrintf(msg, len, "%s has a value that is not finite (entry %" PetscInt_FMT ")", VIFrameSets[k].name, i));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
  }
  /* J and the mode products are symmetric: J_ij = J_ji, S_ij^kl = S_ji^lk (relative 1e-10 of the largest) */
  {
    PetscReal big = 0, bad = 0;
    for (PetscInt i = 0; i < d * d; i++) big = PetscMax(big, PetscAbsReal(f->second_moment[i]));
    for (PetscInt i = 0; i < d; i++)
      for (PetscInt j = 0; j < d; j++) bad = PetscMax(bad, PetscAbsReal(f->second_moment[i * d + j] - f->second_moment[j * d + i]));
    if (bad > 1e-10 * big) {
      PetscCall(PetscSNPrintf(msg, len, "second_moment is not symmetric (difference %g, largest entry %g)", (double)bad, (double)big));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    big = bad = 0;
    for (PetscInt i = 0; i < d * d * n * n; i++) big = PetscMax(big, PetscAbsReal(f->mode_mode[i]));
    for (PetscInt i = 0; i < d; i++)
      for (PetscInt j = 0; j < d; j++)
        for (PetscInt k = 0; k < n; k++)
          for (PetscInt l = 0; l < n; l++)
            bad = PetscMax(bad, PetscAbsReal(f->mode_mode[((i * d + j) * n + k) * n + l] - f->mode_mode[((j * d + i) * n + l) * n + k]));
    if (bad > 1e-10 * big)
      PetscCall(PetscSNPrintf(msg, len, "mode_mode is not symmetric (int rho Phi_k^i Phi_l^j differs from the (j,i,l,k) entry by %g, largest %g)",
                              (double)bad, (double)big));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMSetFrame(VIROM rom, const VIROMFrame *frame)
{
  VIROMFrame *f;
  char        msg[256];

  PetscFunctionBeginUser;
  PetscCheck(rom->n > 0, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call VIROMSetSizes() before VIROMSetFrame()");
  PetscCall(VIFrameCheck(frame, rom->n, msg, sizeof(msg)));
  PetscCheck(!msg[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Floating-frame invariants: %s", msg);
  PetscCall(VIFrameAllocate(frame->dim, frame->n, &f));
  for (PetscInt k = 0; k < VI_FRAME_NUM_SETS; k++) {
    PetscInt na = VIFrameExtent(VIFrameSets[k].rows, frame->dim, frame->n) * VIFrameExtent(VIFrameSets[k].cols, frame->dim, frame->n);
    PetscCall(PetscArraycpy(VIFrameData(f, k), VIFrameData((VIROMFrame *)frame, k), na));
  }
  PetscCall(VIROMDestroyFrame(rom));
  rom->frame = f;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMHasFrame(VIROM rom, PetscBool *has)
{
  PetscFunctionBeginUser;
  *has = rom->frame ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMGetFrameInvariants(VIROM rom, const char who[], const VIROMFrame **frame)
{
  PetscFunctionBeginUser;
  *frame = NULL;
  PetscCheck(rom->frame, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s%s has no floating-frame inertia invariants (group /frame)%s%s: make it again with `vicms reduce ... -cms_frame_invariants`",
             rom->source ? "The ROM file " : "The ROM", rom->source ? rom->source : " (in memory)", who ? ", asked for by " : "", who ? who : "");
  *frame = rom->frame;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMWriteFrame(VIROM rom, hid_t loc)
{
  const VIROMFrame *f = rom->frame;
  char              path[64];

  PetscFunctionBeginUser;
  if (!f) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIH5CreateGroup(loc, "frame"));
  PetscCall(VIH5WriteAttrInt(loc, "frame", "dim", f->dim));
  PetscCall(VIH5WriteAttrInt(loc, "frame", "n", f->n));
  PetscCall(
      VIH5WriteAttrString(loc, "frame", "units",
                          "M, L: mass and length in the ROM's units (root attribute units); [q_k]: the unit of ROM coordinate k (L for a boundary "
                          "coordinate, M^1/2 L for a mass-normalized component mode)"));
  PetscCall(VIH5WriteAttrString(loc, "frame", "frame", "the parent mesh's axes and origin"));
  for (PetscInt k = 0; k < VI_FRAME_NUM_SETS; k++) {
    PetscInt rows = VIFrameExtent(VIFrameSets[k].rows, f->dim, f->n);
    PetscInt cols = VIFrameSets[k].cols == VI_FRAME_ONE ? 0 : VIFrameExtent(VIFrameSets[k].cols, f->dim, f->n);
    PetscCall(PetscSNPrintf(path, sizeof(path), "frame/%s", VIFrameSets[k].name));
    PetscCall(VIH5WriteReal(loc, path, rows, cols, VIFrameData((VIROMFrame *)f, k)));
    PetscCall(VIH5WriteAttrString(loc, path, "units", VIFrameSets[k].units));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMReadFrame(VIROM rom, hid_t loc, const char path[])
{
  PetscBool      exists;
  PetscInt       dim, n;
  VIROMFrame    *f;
  PetscErrorCode ierr = PETSC_SUCCESS;
  char           msg[256];

  PetscFunctionBeginUser;
  PetscCall(VIROMDestroyFrame(rom));
  PetscCall(VIH5Exists(loc, "frame", &exists));
  if (!exists) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VIH5ReadAttrInt(loc, "frame", "dim", &dim));
  PetscCall(VIH5ReadAttrInt(loc, "frame", "n", &n));
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: group frame has the attribute dim = %" PetscInt_FMT ", expected 2 (planar) or 3 (spatial)", path, dim);
  PetscCheck(n == rom->n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s: group frame has the attribute n = %" PetscInt_FMT ", but the ROM has %" PetscInt_FMT " coordinates", path, n, rom->n);
  PetscCall(VIFrameAllocate(dim, n, &f));
  for (PetscInt k = 0; k < VI_FRAME_NUM_SETS && !ierr; k++) {
    PetscInt rows = VIFrameExtent(VIFrameSets[k].rows, dim, n),
             cols = VIFrameSets[k].cols == VI_FRAME_ONE ? 0 : VIFrameExtent(VIFrameSets[k].cols, dim, n);
    PetscInt   r, c;
    PetscReal *data = NULL;
    char       dset[64];
    PetscCall(PetscSNPrintf(dset, sizeof(dset), "frame/%s", VIFrameSets[k].name));
    PetscCall(VIH5Exists(loc, dset, &exists));
    if (!exists) {
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_UNEXPECTED, PETSC_ERROR_INITIAL,
                        "%s: dataset %s is missing", path, dset);
      break;
    }
    PetscCall(VIH5GetShape(loc, dset, &r, &c));
    if (r != rows || c != cols) {
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_UNEXPECTED, PETSC_ERROR_INITIAL,
                        "%s: dataset %s is %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT " x %" PetscInt_FMT " (dim %" PetscInt_FMT
                        ", n %" PetscInt_FMT "; 0 columns: a vector)",
                        path, dset, r, c, rows, cols, dim, n);
      break;
    }
    PetscCall(VIH5ReadReal(loc, dset, &r, &c, &data));
    PetscCall(PetscArraycpy(VIFrameData(f, k), data, rows * PetscMax(cols, 1)));
    PetscCall(PetscFree(data));
  }
  if (!ierr) {
    PetscCall(VIFrameCheck(f, rom->n, msg, sizeof(msg)));
    if (msg[0])
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_UNEXPECTED, PETSC_ERROR_INITIAL,
                        "%s: group frame: %s", path, msg);
  }
  if (ierr) {
    PetscCall(PetscFree3(f->mode_moment, f->position_mode, f->mode_mode));
    PetscCall(PetscFree(f));
    PetscCall(ierr);
  }
  rom->frame = f;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMBcastFrame(VIROM rom, PetscMPIInt root)
{
  PetscMPIInt rank;
  PetscInt    head[2] = {0, 0};

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(rom->comm, &rank));
  if (rank == root && rom->frame) {
    head[0] = rom->frame->dim;
    head[1] = rom->frame->n;
  }
  PetscCallMPI(MPI_Bcast(head, 2, MPIU_INT, root, rom->comm));
  if (rank != root) {
    PetscCall(VIROMDestroyFrame(rom));
    if (head[0]) PetscCall(VIFrameAllocate(head[0], head[1], &rom->frame));
  }
  if (!head[0]) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < VI_FRAME_NUM_SETS; k++) {
    PetscInt na = VIFrameExtent(VIFrameSets[k].rows, head[0], head[1]) * VIFrameExtent(VIFrameSets[k].cols, head[0], head[1]);
    PetscCallMPI(MPI_Bcast(VIFrameData(rom->frame, k), (PetscMPIInt)na, MPIU_REAL, root, rom->comm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIROMViewFrame(VIROM rom, PetscViewer viewer)
{
  const VIROMFrame *f = rom->frame;
  const PetscInt    d = f ? f->dim : 0;

  PetscFunctionBeginUser;
  if (!f) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "floating-frame invariants (%s, mesh axes and origin): mass %.6g, first moment (%.6g, %.6g%s",
                                   d == 2 ? "planar" : "spatial", (double)f->mass, (double)f->first_moment[0], (double)f->first_moment[1],
                                   d == 3 ? ", " : ")"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  if (d == 3) PetscCall(PetscViewerASCIIPrintf(viewer, "%.6g)", (double)f->first_moment[2]));
  if (d == 2)
    PetscCall(PetscViewerASCIIPrintf(viewer, ", I_zz about the origin %.6g\n", (double)(f->second_moment[0] + f->second_moment[3])));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, ", inertia about the origin diag (%.6g, %.6g, %.6g)\n",
                                     (double)(f->second_moment[4] + f->second_moment[8]), (double)(f->second_moment[0] + f->second_moment[8]),
                                     (double)(f->second_moment[0] + f->second_moment[4])));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
