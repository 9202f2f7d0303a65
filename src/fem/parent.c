/*
  A parent given as matrices exported by another FE code: CalculiX's matrix storage (JOB.sti, JOB.mas, JOB.dof), Matrix
  Market coordinate files with a DOF map, and Abaqus *MATRIX GENERATE coordinate text ("node, dof, node, dof, value").

  Every row of the files carries a label (node id, direction 1..6). The mesh (nodes only) gives the nodes; the model gets
  K and M in a numbering of its own: the nodes in mesh order, each node's rows together on one rank. Each rank reads the
  whole files line by line and keeps only the entries of its own rows (and their mirrors): no rank holds more than its rows.

  A label on several rows (CalculiX labels the nodes it adds to expand a beam or a shell with the beam's or shell's node)
  is a node whose displacement in that direction is the mean of its rows: the rows r1..rk are replaced by the mean
  c = (u_r1 + ... + u_rk) / k and u_r2 ... u_rk, u = T u' with u_r1 = k c - u_r2 - ... - u_rk; K' = T^T K T and
  M' = T^T M T have the eigenvalues of K and M (T is invertible), and c is the node's DOF for contacts, outputs and forces.
  Directions 4..6 (rotations) are kept as inner DOFs of no node direction.
*/
#include "femimpl.h"
#include <vicms/sys.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const VIParentFormats[] = {"assembled", "ccx", "mtx", "abaqus", "VIParentFormat", "VI_PARENT_", NULL};

/* The first characters of a line, for messages. */
#define VI_PARENT_SHOW 60

/* A matrix entry of one rank: raw row i, raw column j (0-based rows of the files), as written (mirror 0) or as the
   mirror of the entry (j, i) (mirror 1), with its line. */
typedef struct {
  PetscInt  i, j, line;
  PetscInt  p, q; /* the new row and column of (i, j): entries are sorted by them, so that K' needs no other sort */
  PetscInt  mirror;
  PetscReal v;
} VIParentEntry;

/* An entry of K' or M': new row and column. */
typedef struct {
  PetscInt  p, q;
  PetscReal v;
} VIParentTriplet;

/* What every rank knows about the rows of the files. */
typedef struct {
  const char *what;   /* "K" or "M", for messages */
  PetscInt    n;      /* rows of the files */
  PetscInt   *node;   /* n: node id of each row */
  PetscInt   *dir;    /* n: direction 1..6 */
  PetscInt   *index;  /* n: mesh node index */
  PetscInt   *newrow; /* n: row of K' and M', -1 when clamped */
  PetscInt   *head;   /* n: the row of the same label that carries the mean (itself when alone), -1 when clamped */
  PetscInt   *count;  /* n: for a head, the number of rows of its label */
  PetscInt   *next;   /* n: the next row of the same label after this one, -1 at the last */
  PetscInt    rstart, rend;
  PetscInt   *owner_start; /* size + 1: first new row of each rank */
} VIParentRows;

typedef struct {
  FILE       *fp;
  const char *name;
  PetscInt    line;
  char       *buf;
  size_t      cap;
} VIParentFile;

static PetscErrorCode VIParentOpen(const char name[], const char option[], VIParentFile *f)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(f, sizeof(*f)));
  f->name = name;
  f->fp   = fopen(name, "r");
  PetscCheck(f->fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s: cannot read %s (%s)", option, name, strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void VIParentClose(VIParentFile *f)
{
  if (f->fp) (void)fclose(f->fp);
  free(f->buf);
  f->fp  = NULL;
  f->buf = NULL;
}

/* The next line (without its end), or *eof. */
static PetscErrorCode VIParentNextLine(VIParentFile *f, PetscBool *eof)
{
  ssize_t len;

  PetscFunctionBeginUser;
  len  = getline(&f->buf, &f->cap, f->fp);
  *eof = len < 0 ? PETSC_TRUE : PETSC_FALSE;
  if (*eof) PetscFunctionReturn(PETSC_SUCCESS);
  f->line++;
  PetscCheck(strlen(f->buf) == (size_t)len, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt_FMT ": a NUL byte: not a text file", f->name,
             f->line);
  while (len > 0 && (f->buf[len - 1] == '\n' || f->buf[len - 1] == '\r')) f->buf[--len] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An integer at *s, then separators (blanks, and one comma when comma is set); false when there is none. */
static PetscBool VIParentInt(char **s, PetscBool comma, PetscInt *value)
{
  char *end;
  long  v;

  errno = 0;
  v     = strtol(*s, &end, 10);
  if (end == *s || errno || v != (PetscInt)v) return PETSC_FALSE;
  *value = (PetscInt)v;
  *s     = end;
  while (**s == ' ' || **s == '\t') (*s)++;
  if (comma && **s == ',') {
    (*s)++;
    while (**s == ' ' || **s == '\t') (*s)++;
  }
  return PETSC_TRUE;
}

static PetscBool VIParentReal(char **s, PetscReal *value)
{
  char  *end;
  double v;

  v = strtod(*s, &end);
  if (end == *s || !isfinite(v)) return PETSC_FALSE;
  *value = (PetscReal)v;
  *s     = end;
  while (**s == ' ' || **s == '\t') (*s)++;
  return PETSC_TRUE;
}

/* ------------------------------------------------------------------ DOF labels */

static PetscErrorCode VIParentAddLabel(PetscInt *n, PetscInt *cap, PetscInt **node, PetscInt **dir, PetscInt **line, PetscInt id, PetscInt d,
                                       PetscInt l)
{
  PetscFunctionBeginUser;
  if (*n == *cap) {
    PetscInt *a, *b, *c, ncap = PetscMax(1024, 2 * *cap);
    PetscCall(PetscMalloc3(ncap, &a, ncap, &b, ncap, &c));
    PetscCall(PetscArraycpy(a, *node, *n));
    PetscCall(PetscArraycpy(b, *dir, *n));
    PetscCall(PetscArraycpy(c, *line, *n));
    PetscCall(PetscFree3(*node, *dir, *line));
    *node = a;
    *dir  = b;
    *line = c;
    *cap  = ncap;
  }
  (*node)[*n] = id;
  (*dir)[*n]  = d;
  (*line)[*n] = l;
  (*n)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A DOF map: one row per line, "NODE.DIRECTION" (CalculiX) or "NODE DIRECTION" (blank lines and lines starting with # or % are
   comments in the latter). */
static PetscErrorCode VIParentReadDofMap(const char name[], const char option[], PetscBool ccx, PetscInt *n, PetscInt **node, PetscInt **dir,
                                         PetscInt **line)
{
  VIParentFile   f;
  PetscInt       cap  = 0;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  *n    = 0;
  *node = *dir = *line = NULL;
  PetscCall(VIParentOpen(name, option, &f));
  for (;;) {
    PetscBool eof;
    PetscInt  id, d;
    char     *s;
    ierr = VIParentNextLine(&f, &eof);
    if (ierr || eof) break;
    s = f.buf;
    while (*s == ' ' || *s == '\t') s++;
    if (!ccx && (!*s || *s == '#' || *s == '%')) continue;
    if (!VIParentInt(&s, PETSC_TRUE, &id) || (ccx && *s != '.') || (ccx && (s++, 0)) || !VIParentInt(&s, PETSC_TRUE, &d) || *s) {
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL,
                        "%s:%" PetscInt_FMT ": expected %s, got '%.*s'", name, f.line,
                        ccx ? "NODE.DIRECTION (e.g. 12.3)" : "NODE DIRECTION (e.g. 12 3)", VI_PARENT_SHOW, f.buf);
      break;
    }
    if (id <= 0 || d < 1 || d > 6) {
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL,
                        "%s:%" PetscInt_FMT ": node %" PetscInt_FMT " direction %" PetscInt_FMT
                        ": expected a positive node id and a direction 1..6 (1-3 translations, 4-6 rotations)",
                        name, f.line, id, d);
      break;
    }
    ierr = VIParentAddLabel(n, &cap, node, dir, line, id, d, f.line);
    if (ierr) break;
  }
  VIParentClose(&f);
  PetscCall(ierr);
  PetscCheck(*n > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s: the DOF map has no rows", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Abaqus coordinate text: "NODE, DOF, NODE, DOF, VALUE"; lines starting with * are headings or comments. */
static PetscErrorCode VIParentAbaqusLine(VIParentFile *f, PetscBool *skip, PetscInt *n1, PetscInt *d1, PetscInt *n2, PetscInt *d2, PetscReal *v)
{
  char *s = f->buf;

  PetscFunctionBeginUser;
  while (*s == ' ' || *s == '\t') s++;
  *skip = (!*s || *s == '*') ? PETSC_TRUE : PETSC_FALSE;
  if (*skip) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(VIParentInt(&s, PETSC_TRUE, n1) && VIParentInt(&s, PETSC_TRUE, d1) && VIParentInt(&s, PETSC_TRUE, n2) &&
                 VIParentInt(&s, PETSC_TRUE, d2) && VIParentReal(&s, v) && !*s,
             PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": expected 'NODE, DOF, NODE, DOF, VALUE' (Abaqus coordinate format), got '%.*s'", f->name, f->line, VI_PARENT_SHOW,
             f->buf);
  PetscCheck(*n1 > 0 && *n2 > 0 && *d1 >= 1 && *d1 <= 6 && *d2 >= 1 && *d2 <= 6, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": node %" PetscInt_FMT " DOF %" PetscInt_FMT ", node %" PetscInt_FMT " DOF %" PetscInt_FMT
             ": expected positive node ids and DOFs 1..6",
             f->name, f->line, *n1, *d1, *n2, *d2);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int VIParentCompareLabel(const void *a, const void *b)
{
  const PetscInt *x = (const PetscInt *)a, *y = (const PetscInt *)b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
  return 0;
}

/* The labels of Abaqus matrices: every (node, DOF) of K and M, sorted. */
static PetscErrorCode VIParentAbaqusLabels(char *files[], PetscInt *n, PetscInt **node, PetscInt **dir, PetscInt **line)
{
  PetscInt      *pairs = NULL, np = 0, cap = 0, m = 0, lcap = 0;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 2 && !ierr; k++) {
    VIParentFile f;
    PetscCall(VIParentOpen(files[k], "-parent_matrices", &f));
    for (;;) {
      PetscBool eof, skip;
      PetscInt  n1, d1, n2, d2;
      PetscReal v;
      ierr = VIParentNextLine(&f, &eof);
      if (ierr || eof) break;
      ierr = VIParentAbaqusLine(&f, &skip, &n1, &d1, &n2, &d2, &v);
      if (ierr) break;
      if (skip) continue;
      if (np + 2 > cap) {
        PetscInt *grown;
        cap  = PetscMax(4096, 2 * cap);
        ierr = PetscMalloc1(2 * cap, &grown);
        if (ierr) break;
        ierr = PetscArraycpy(grown, pairs, 2 * np);
        if (ierr) break;
        ierr  = PetscFree(pairs);
        pairs = grown;
      }
      pairs[2 * np]     = n1;
      pairs[2 * np + 1] = d1;
      np++;
      pairs[2 * np]     = n2;
      pairs[2 * np + 1] = d2;
      np++;
      /* keep the list short: sort and unique now and then */
      if (np == cap) {
        PetscInt u = 0;
        qsort(pairs, (size_t)np, 2 * sizeof(PetscInt), VIParentCompareLabel);
        for (PetscInt i = 0; i < np; i++)
          if (!u || VIParentCompareLabel(&pairs[2 * i], &pairs[2 * (u - 1)])) {
            pairs[2 * u]     = pairs[2 * i];
            pairs[2 * u + 1] = pairs[2 * i + 1];
            u++;
          }
        np = u;
      }
    }
    VIParentClose(&f);
  }
  if (ierr) PetscCall(PetscFree(pairs));
  PetscCall(ierr);
  qsort(pairs, (size_t)np, 2 * sizeof(PetscInt), VIParentCompareLabel);
  *n    = 0;
  *node = *dir = *line = NULL;
  for (PetscInt i = 0; i < np; i++)
    if (!m || VIParentCompareLabel(&pairs[2 * i], &pairs[2 * (i - 1)])) {
      PetscCall(VIParentAddLabel(n, &lcap, node, dir, line, pairs[2 * i], pairs[2 * i + 1], 0));
      m++;
    }
  PetscCall(PetscFree(pairs));
  PetscCheck(*n > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-parent_matrices %s,%s: no matrix entries", files[0], files[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ numbering */

/*
  The rows of K' and M': the nodes in mesh order, each node's rows together (the mean of each direction first, then its other
  rows in file order), the nodes split over the ranks by their row counts. Clamped nodes (-model_clamp) lose all their rows.
*/
static PetscErrorCode VIParentNumber(VIModel model, VIParentRows *rows, const PetscInt line[], const char map_name[])
{
  VIMesh          mesh = model->mesh;
  const PetscInt *ids;
  PetscInt        nn, n = rows->n, *start, *order, *fill, total = 0, *first, *node_dof;
  PetscBool      *clamped;
  PetscMPIInt     size, rank, *node_owner;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(model->comm, &size));
  PetscCallMPI(MPI_Comm_rank(model->comm, &rank));
  PetscCall(VIMeshGetSizes(mesh, &nn, NULL));
  PetscCall(VIMeshGetNodeIds(mesh, &ids));
  PetscCall(PetscCalloc1(nn, &clamped));
  for (PetscInt s = 0; s < model->num_clamp_sets; s++) {
    PetscInt        m;
    const PetscInt *nodes;
    char            option[96];
    PetscCall(PetscSNPrintf(option, sizeof(option), "-%smodel_clamp", model->prefix));
    PetscCall(VIMeshRequireNodeSet(mesh, option, model->clamp_sets[s], &m, &nodes));
    for (PetscInt i = 0; i < m; i++) clamped[nodes[i]] = PETSC_TRUE;
  }
  for (PetscInt r = 0; r < n; r++) {
    PetscCall(VIMeshFindNode(mesh, rows->node[r], &rows->index[r]));
    if (rows->index[r] < 0) {
      PetscCall(PetscFree(clamped));
      if (line[r] > 0)
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": node %" PetscInt_FMT " is not a node of the mesh file (-%smesh_file)",
                map_name, line[r], rows->node[r], model->prefix);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s: node %" PetscInt_FMT " is not a node of the mesh file (-%smesh_file)", map_name,
              rows->node[r], model->prefix);
    }
  }
  /* rows by node (counting sort, file order kept within a node) */
  PetscCall(PetscCalloc3(nn + 1, &start, n, &order, nn, &fill));
  PetscCall(PetscMalloc1(3 * nn, &first));
  for (PetscInt i = 0; i < 3 * nn; i++) first[i] = -1;
  for (PetscInt r = 0; r < n; r++) start[rows->index[r] + 1]++;
  for (PetscInt i = 0; i < nn; i++) start[i + 1] += start[i];
  for (PetscInt r = 0; r < n; r++) order[start[rows->index[r]] + fill[rows->index[r]]++] = r;
  /* labels: head, count, next */
  for (PetscInt r = 0; r < n; r++) {
    rows->head[r]  = -1;
    rows->count[r] = 0;
    rows->next[r]  = -1;
  }
  {
    PetscInt *last;
    PetscCall(PetscMalloc1(6 * nn, &last));
    for (PetscInt i = 0; i < 6 * nn; i++) last[i] = -1;
    for (PetscInt k = 0; k < n; k++) {
      PetscInt r = order[k], i = rows->index[r], key = 6 * i + rows->dir[r] - 1;
      if (clamped[i]) continue;
      if (last[key] < 0) {
        rows->head[r]  = r;
        rows->count[r] = 1;
        if (rows->dir[r] <= 3) first[3 * i + rows->dir[r] - 1] = r;
      } else {
        rows->head[r] = rows->head[last[key]];
        rows->count[rows->head[r]]++;
        rows->next[last[key]] = r;
      }
      last[key] = r;
    }
    PetscCall(PetscFree(last));
  }
  /* new numbering and the ranks' shares, split at nodes */
  for (PetscInt r = 0; r < n; r++)
    if (rows->head[r] >= 0) total++;
  PetscCheck(total > 0, model->comm, PETSC_ERR_USER_INPUT, "Every row of the parent's matrices is clamped: check -%smodel_clamp", model->prefix);
  PetscCall(PetscMalloc1(size + 1, &rows->owner_start));
  PetscCall(PetscMalloc1(nn, &node_owner));
  PetscCall(PetscMalloc1(3 * nn, &node_dof));
  {
    PetscInt    next     = 0;
    PetscMPIInt owner    = 0;
    rows->owner_start[0] = 0;
    for (PetscInt i = 0; i < nn; i++) {
      PetscInt here = 0;
      for (PetscInt k = start[i]; k < start[i + 1]; k++)
        if (rows->head[order[k]] >= 0) here++;
      node_owner[i] = -1;
      for (PetscInt d = 0; d < 3; d++) node_dof[3 * i + d] = -1;
      if (!here) continue;
      /* the node goes to the first rank whose share (total / size rows) it starts in */
      while (owner < size - 1 && next >= ((owner + 1) * total) / size) rows->owner_start[++owner] = next;
      node_owner[i] = owner;
      for (PetscInt d = 0; d < 3; d++)
        if (first[3 * i + d] >= 0) {
          node_dof[3 * i + d]            = next;
          rows->newrow[first[3 * i + d]] = next++;
        }
      for (PetscInt k = start[i]; k < start[i + 1]; k++) {
        PetscInt r = order[k];
        if (rows->head[r] < 0 || (rows->dir[r] <= 3 && first[3 * i + rows->dir[r] - 1] == r)) continue;
        rows->newrow[r] = next++;
      }
    }
    while (owner < size - 1) rows->owner_start[++owner] = next;
    rows->owner_start[size] = next;
  }
  for (PetscInt r = 0; r < n; r++)
    if (rows->head[r] < 0) rows->newrow[r] = -1;
  rows->rstart       = rows->owner_start[rank];
  rows->rend         = rows->owner_start[rank + 1];
  model->dim         = 3;
  model->num_nodes   = nn;
  model->rstart      = rows->rstart;
  model->num_local   = rows->rend - rows->rstart;
  model->num_global  = total;
  model->num_orphans = 0;
  for (PetscInt i = 0; i < nn; i++)
    if (node_owner[i] < 0 && !clamped[i]) model->num_orphans++;
  {
    /* this rank's map: its own nodes (the rows are read on every rank; the map kept is not of global size) */
    PetscInt    nl = 0, *lnode, *ldof;
    PetscMPIInt *lowner;
    for (PetscInt i = 0; i < nn; i++)
      if (node_owner[i] == rank) nl++;
    PetscCall(PetscMalloc1(nl, &lnode));
    PetscCall(PetscMalloc1(nl, &lowner));
    PetscCall(PetscMalloc1(3 * nl, &ldof));
    for (PetscInt i = 0, l = 0; i < nn; i++) {
      if (node_owner[i] != rank) continue;
      lnode[l]  = i;
      lowner[l] = rank;
      for (PetscInt d = 0; d < 3; d++) ldof[3 * l + d] = node_dof[3 * i + d];
      l++;
    }
    PetscCall(PetscFree(node_owner));
    PetscCall(PetscFree(node_dof));
    PetscCall(VIModelSetNodeMap(model, nl, lnode, lowner, ldof, NULL));
    PetscCall(PetscFree(lowner));
  }
  /* this rank's rows: their labels, for the sign weights and the rigid translations */
  PetscCall(PetscMalloc3(model->num_local, &model->row_node, model->num_local, &model->row_dir, model->num_local, &model->row_copy));
  model->parent_rows     = n;
  model->parent_repeated = 0;
  model->parent_other    = 0;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt p = rows->newrow[r];
    if (rows->head[r] >= 0 && rows->count[rows->head[r]] > 1) model->parent_repeated++;
    if (rows->dir[r] > 3) model->parent_other++;
    if (p < rows->rstart || p >= rows->rend) continue;
    model->row_node[p - rows->rstart] = rows->node[r];
    model->row_dir[p - rows->rstart]  = rows->dir[r] - 1;
    model->row_copy[p - rows->rstart] = 0;
    for (PetscInt c = rows->head[r], k = 0; c >= 0; c = rows->next[c], k++)
      if (c == r) model->row_copy[p - rows->rstart] = k;
  }
  PetscCall(PetscFree3(start, order, fill));
  PetscCall(PetscFree(first));
  PetscCall(PetscFree(clamped));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ entries */

static PetscBool VIParentMine(const VIParentRows *rows, PetscInt r)
{
  PetscInt p = rows->newrow[r];
  return (p >= rows->rstart && p < rows->rend) ? PETSC_TRUE : PETSC_FALSE;
}

typedef struct {
  VIParentEntry *e;
  PetscInt       n, cap;
  PetscBool      upper, lower; /* the file has entries above and below the diagonal */
  PetscReal      maxabs;
} VIParentEntries;

static PetscErrorCode VIParentPush(const VIParentRows *rows, VIParentEntries *E, PetscInt i, PetscInt j, PetscReal v, PetscInt line, PetscInt mirror)
{
  PetscFunctionBeginUser;
  if (E->n == E->cap) {
    VIParentEntry *grown;
    E->cap = PetscMax(4096, 2 * E->cap);
    PetscCall(PetscMalloc1(E->cap, &grown));
    PetscCall(PetscArraycpy(grown, E->e, E->n));
    PetscCall(PetscFree(E->e));
    E->e = grown;
  }
  E->e[E->n].i      = i;
  E->e[E->n].j      = j;
  E->e[E->n].p      = rows->newrow[i];
  E->e[E->n].q      = rows->newrow[j];
  E->e[E->n].v      = v;
  E->e[E->n].line   = line;
  E->e[E->n].mirror = mirror;
  E->n++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One entry of a file (0-based raw rows): kept when its row or column is this rank's. */
static PetscErrorCode VIParentKeep(const VIParentRows *rows, VIParentEntries *E, PetscInt i, PetscInt j, PetscReal v, PetscInt line)
{
  PetscFunctionBeginUser;
  if (i < j) E->upper = PETSC_TRUE;
  if (i > j) E->lower = PETSC_TRUE;
  E->maxabs = PetscMax(E->maxabs, PetscAbsReal(v));
  if (rows->head[i] < 0 || rows->head[j] < 0) PetscFunctionReturn(PETSC_SUCCESS); /* clamped */
  if (VIParentMine(rows, i)) PetscCall(VIParentPush(rows, E, i, j, v, line, 0));
  if (i != j && VIParentMine(rows, j)) PetscCall(VIParentPush(rows, E, j, i, v, line, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CalculiX .sti/.mas and Matrix Market: "I J VALUE", 1-based; Matrix Market has its header and size line first. */
static PetscErrorCode VIParentReadCoordinates(const char name[], PetscBool mtx, const VIParentRows *rows, VIParentEntries *E)
{
  VIParentFile   f;
  PetscInt       expected = -1, count = 0;
  PetscBool      symmetric = PETSC_FALSE, sized = PETSC_FALSE;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCall(VIParentOpen(name, "-parent_matrices", &f));
  for (;;) {
    PetscBool eof;
    PetscInt  i, j;
    PetscReal v;
    char     *s;
    ierr = VIParentNextLine(&f, &eof);
    if (ierr || eof) break;
    s = f.buf;
    if (mtx && f.line == 1) {
      char obj[32] = "", fmt[32] = "", field[32] = "", sym[32] = "";
      if (sscanf(s, "%%%%MatrixMarket %31s %31s %31s %31s", obj, fmt, field, sym) != 4 || strcasecmp(obj, "matrix") ||
          strcasecmp(fmt, "coordinate") || (strcasecmp(field, "real") && strcasecmp(field, "integer")) ||
          (strcasecmp(sym, "general") && strcasecmp(sym, "symmetric"))) {
        ierr =
            PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL,
                       "%s:1: expected the header '%%%%MatrixMarket matrix coordinate real general|symmetric', got '%.*s'", name, VI_PARENT_SHOW, s);
        break;
      }
      symmetric = strcasecmp(sym, "symmetric") ? PETSC_FALSE : PETSC_TRUE;
      continue;
    }
    while (*s == ' ' || *s == '\t') s++;
    if (mtx && (*s == '%' || !*s)) continue;
    if (!mtx && !*s) continue;
    if (mtx && !sized) {
      PetscInt m, n;
      if (!VIParentInt(&s, PETSC_FALSE, &m) || !VIParentInt(&s, PETSC_FALSE, &n) || !VIParentInt(&s, PETSC_FALSE, &expected) || *s) {
        ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL,
                          "%s:%" PetscInt_FMT ": expected the size line 'ROWS COLUMNS ENTRIES', got '%.*s'", name, f.line, VI_PARENT_SHOW, f.buf);
        break;
      }
      if (m != rows->n || n != rows->n || expected < 0) {
        ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL,
                          "%s:%" PetscInt_FMT ": the matrix is %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT
                          " entries, but the DOF map has %" PetscInt_FMT " rows",
                          name, f.line, m, n, expected, rows->n);
        break;
      }
      sized = PETSC_TRUE;
      continue;
    }
    if (!VIParentInt(&s, PETSC_FALSE, &i) || !VIParentInt(&s, PETSC_FALSE, &j) || !VIParentReal(&s, &v) || *s) {
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL,
                        "%s:%" PetscInt_FMT ": expected 'ROW COLUMN VALUE' (a finite value), got '%.*s'", name, f.line, VI_PARENT_SHOW, f.buf);
      break;
    }
    if (i < 1 || j < 1 || i > rows->n || j > rows->n) {
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL,
                        "%s:%" PetscInt_FMT ": entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is outside the %" PetscInt_FMT " x %" PetscInt_FMT
                        " matrix of the DOF map's rows",
                        name, f.line, i, j, rows->n, rows->n);
      break;
    }
    if (symmetric && i < j) {
      ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_USER_INPUT, PETSC_ERROR_INITIAL,
                        "%s:%" PetscInt_FMT ": entry (%" PetscInt_FMT ", %" PetscInt_FMT
                        ") above the diagonal of a 'symmetric' Matrix Market file, which holds the lower triangle",
                        name, f.line, i, j);
      break;
    }
    count++;
    ierr = VIParentKeep(rows, E, i - 1, j - 1, v, f.line);
    if (ierr) break;
  }
  VIParentClose(&f);
  PetscCall(ierr);
  PetscCheck(!mtx || sized, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s: no size line: not a Matrix Market file", name);
  PetscCheck(!mtx || count == expected, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s: %" PetscInt_FMT " entries, but its size line announces %" PetscInt_FMT " (a truncated file?)", name, count, expected);
  PetscCheck(count > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s: no matrix entries", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Abaqus coordinate text, the rows found by their labels in the sorted label list. */
static PetscErrorCode VIParentReadAbaqus(const char name[], const VIParentRows *rows, const PetscInt sorted_pairs[], VIParentEntries *E)
{
  VIParentFile   f;
  PetscErrorCode ierr = PETSC_SUCCESS;

  PetscFunctionBeginUser;
  PetscCall(VIParentOpen(name, "-parent_matrices", &f));
  for (;;) {
    PetscBool eof, skip;
    PetscInt  n1, d1, n2, d2, key[2], *hit, i, j;
    PetscReal v;
    ierr = VIParentNextLine(&f, &eof);
    if (ierr || eof) break;
    ierr = VIParentAbaqusLine(&f, &skip, &n1, &d1, &n2, &d2, &v);
    if (ierr) break;
    if (skip) continue;
    key[0] = n1;
    key[1] = d1;
    hit    = (PetscInt *)bsearch(key, sorted_pairs, (size_t)rows->n, 2 * sizeof(PetscInt), VIParentCompareLabel);
    i      = (PetscInt)(hit - sorted_pairs) / 2;
    key[0] = n2;
    key[1] = d2;
    hit    = (PetscInt *)bsearch(key, sorted_pairs, (size_t)rows->n, 2 * sizeof(PetscInt), VIParentCompareLabel);
    j      = (PetscInt)(hit - sorted_pairs) / 2;
    ierr   = VIParentKeep(rows, E, i, j, v, f.line);
    if (ierr) break;
  }
  VIParentClose(&f);
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int VIParentCompareEntry(const void *a, const void *b)
{
  const VIParentEntry *x = (const VIParentEntry *)a, *y = (const VIParentEntry *)b;
  if (x->p != y->p) return x->p < y->p ? -1 : 1;
  if (x->q != y->q) return x->q < y->q ? -1 : 1;
  if (x->mirror != y->mirror) return x->mirror < y->mirror ? -1 : 1;
  return x->line < y->line ? -1 : (x->line > y->line);
}

static int VIParentCompareTriplet(const void *a, const void *b)
{
  const VIParentTriplet *x = (const VIParentTriplet *)a, *y = (const VIParentTriplet *)b;
  if (x->p != y->p) return x->p < y->p ? -1 : 1;
  return x->q < y->q ? -1 : (x->q > y->q);
}

/*
  This rank's raw rows, checked: an entry given twice is refused; a file with both triangles must be symmetric (each entry
  equal to its mirror within 1e-10 relative, or both below 1e-13 of the largest entry); a file with one triangle is
  symmetric by construction. The surviving entries are compacted in place, one per (i, j), i this rank's raw row, sorted by
  their new row and column.
*/
/* The entries sorted by new row (a counting sort over this rank's rows), then within each row by column, mirror and line. */
static PetscErrorCode VIParentSortEntries(const VIParentRows *rows, VIParentEntries *E)
{
  PetscInt       nlocal = rows->rend - rows->rstart, *start;
  VIParentEntry *sorted;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(nlocal + 1, &start));
  PetscCall(PetscMalloc1(PetscMax(E->n, 1), &sorted));
  for (PetscInt k = 0; k < E->n; k++) start[E->e[k].p - rows->rstart + 1]++;
  for (PetscInt r = 0; r < nlocal; r++) start[r + 1] += start[r];
  for (PetscInt k = 0; k < E->n; k++) sorted[start[E->e[k].p - rows->rstart]++] = E->e[k];
  for (PetscInt r = nlocal; r > 0; r--) start[r] = start[r - 1];
  start[0] = 0;
  for (PetscInt r = 0; r < nlocal; r++) qsort(sorted + start[r], (size_t)(start[r + 1] - start[r]), sizeof(VIParentEntry), VIParentCompareEntry);
  PetscCall(PetscFree(E->e));
  PetscCall(PetscFree(start));
  E->e   = sorted;
  E->cap = PetscMax(E->n, 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIParentCheckSymmetric(const VIParentRows *rows, const char name[], const char what[], VIParentEntries *E)
{
  PetscBool full = (PetscBool)(E->upper && E->lower);
  PetscInt  n = 0, a = 0;

  PetscFunctionBeginUser;
  PetscCall(VIParentSortEntries(rows, E));
  while (a < E->n) {
    PetscInt       b = a, orig = -1, mirror = -1;
    VIParentEntry *e = E->e;
    while (b < E->n && e[b].p == e[a].p && e[b].q == e[a].q) b++;
    for (PetscInt k = a; k < b; k++) {
      PetscInt *slot = e[k].mirror ? &mirror : &orig;
      if (*slot >= 0) {
        /* the same entry twice: name the later line */
        PetscInt l0 = e[*slot].line, l1 = e[k].line;
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                "%s:%" PetscInt_FMT ": %s(%" PetscInt_FMT ", %" PetscInt_FMT ") is given again (first at line %" PetscInt_FMT ")", name,
                PetscMax(l0, l1), what, (e[k].mirror ? e[k].j : e[k].i) + 1, (e[k].mirror ? e[k].i : e[k].j) + 1, PetscMin(l0, l1));
      }
      *slot = k;
    }
    if (full && e[a].i != e[a].j) {
      PetscReal x = orig >= 0 ? e[orig].v : 0, y = mirror >= 0 ? e[mirror].v : 0, d = PetscAbsReal(x - y);
      if (d > 1e-10 * PetscMax(PetscAbsReal(x), PetscAbsReal(y)) && d > 1e-13 * E->maxabs) {
        VIParentEntry *given = orig >= 0 ? &e[orig] : &e[mirror];
        PetscInt       i = given->mirror ? given->j : given->i, j = given->mirror ? given->i : given->j;
        if (orig >= 0 && mirror >= 0)
          SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                  "%s:%" PetscInt_FMT ": %s(%" PetscInt_FMT ", %" PetscInt_FMT ") = %.17g but %s(%" PetscInt_FMT ", %" PetscInt_FMT
                  ") = %.17g at line %" PetscInt_FMT ": %s is not symmetric",
                  name, e[orig].line, what, e[a].i + 1, e[a].j + 1, (double)x, what, e[a].j + 1, e[a].i + 1, (double)y, e[mirror].line, what);
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                "%s:%" PetscInt_FMT ": %s(%" PetscInt_FMT ", %" PetscInt_FMT ") = %.17g has no entry (%" PetscInt_FMT ", %" PetscInt_FMT
                ") although the file gives both triangles: %s is not symmetric",
                name, given->line, what, i + 1, j + 1, (double)given->v, j + 1, i + 1, what);
      }
    }
    e[n].i = e[a].i;
    e[n].j = e[a].j;
    e[n].p = e[a].p;
    e[n].q = e[a].q;
    e[n].v = orig >= 0 ? e[orig].v : e[mirror].v;
    n++;
    a = b;
  }
  E->n = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The columns of T in row r: (new row, coefficient); at most count[head] of them. */
static PetscInt VIParentTRow(const VIParentRows *rows, PetscInt r, PetscInt cols[], PetscReal coef[], PetscInt max)
{
  PetscInt n = 0;

  cols[n]   = rows->newrow[r];
  coef[n++] = 1;
  if (rows->head[r] == r && rows->count[r] > 1) {
    coef[0] = (PetscReal)rows->count[r];
    for (PetscInt c = rows->next[r]; c >= 0 && n < max; c = rows->next[c]) {
      cols[n]   = rows->newrow[c];
      coef[n++] = -1;
    }
  }
  return n;
}

/* A = T^T K T on this rank's rows, from its checked raw entries (sorted by raw row). */
static PetscErrorCode VIParentAssemble(VIModel model, const VIParentRows *rows, const VIParentEntries *E, Mat *A)
{
  VIParentTriplet *t  = NULL;
  PetscInt         nt = 0, cap = 0, maxk = 1, *ci, *cj, *d_nnz, *o_nnz;
  PetscReal       *vi, *vj;

  PetscFunctionBeginUser;
  for (PetscInt r = 0; r < rows->n; r++)
    if (rows->head[r] == r) maxk = PetscMax(maxk, rows->count[r]);
  PetscCall(PetscMalloc4(maxk, &ci, maxk, &vi, maxk, &cj, maxk, &vj));
  for (PetscInt k = 0; k < E->n; k++) {
    PetscInt ni = VIParentTRow(rows, E->e[k].i, ci, vi, maxk), nj = VIParentTRow(rows, E->e[k].j, cj, vj, maxk);
    if (nt + ni * nj > cap) {
      VIParentTriplet *grown;
      cap = PetscMax(PetscMax(4096, 2 * cap), nt + ni * nj);
      PetscCall(PetscMalloc1(cap, &grown));
      PetscCall(PetscArraycpy(grown, t, nt));
      PetscCall(PetscFree(t));
      t = grown;
    }
    for (PetscInt a = 0; a < ni; a++)
      for (PetscInt b = 0; b < nj; b++) {
        t[nt].p   = ci[a];
        t[nt].q   = cj[b];
        t[nt++].v = vi[a] * E->e[k].v * vj[b];
      }
  }
  PetscCall(PetscFree4(ci, vi, cj, vj));
  /* with no node on several rows T is a renumbering, and the entries came sorted by their new row and column */
  if (maxk > 1) qsort(t, (size_t)nt, sizeof(VIParentTriplet), VIParentCompareTriplet);
  {
    PetscInt m = 0;
    for (PetscInt k = 0; k < nt; k++) {
      if (m && t[m - 1].p == t[k].p && t[m - 1].q == t[k].q)
        t[m - 1].v += t[k].v;
      else
        t[m++] = t[k];
    }
    nt = m;
  }
  PetscCall(PetscCalloc2(model->num_local + 1, &d_nnz, model->num_local + 1, &o_nnz));
  for (PetscInt k = 0; k < nt; k++) {
    PetscCheck(t[k].p >= rows->rstart && t[k].p < rows->rend, PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT " is not this rank's", t[k].p);
    if (t[k].q >= rows->rstart && t[k].q < rows->rend)
      d_nnz[t[k].p - rows->rstart]++;
    else
      o_nnz[t[k].p - rows->rstart]++;
  }
  PetscCall(MatCreate(model->comm, A));
  PetscCall(MatSetSizes(*A, model->num_local, model->num_local, model->num_global, model->num_global));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatXAIJSetPreallocation(*A, 1, d_nnz, o_nnz, NULL, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscFree2(d_nnz, o_nnz));
  {
    PetscInt  *cols, maxrow = 0;
    PetscReal *vals;
    for (PetscInt a = 0, b; a < nt; a = b) {
      for (b = a; b < nt && t[b].p == t[a].p; b++)
        ;
      maxrow = PetscMax(maxrow, b - a);
    }
    PetscCall(PetscMalloc2(maxrow, &cols, maxrow, &vals));
    for (PetscInt a = 0, b; a < nt; a = b) {
      for (b = a; b < nt && t[b].p == t[a].p; b++) {
        cols[b - a] = t[b].q;
        vals[b - a] = t[b].v;
      }
      PetscCall(MatSetValues(*A, 1, &t[a].p, b - a, cols, vals, INSERT_VALUES));
    }
    PetscCall(PetscFree2(cols, vals));
  }
  PetscCall(PetscFree(t));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ set-up */

/* The files of -parent_matrices: JOB.sti, JOB.mas (ccx; JOB may end in .sti) or the two files K,M. */
static PetscErrorCode VIParentFiles(VIModel model, char files[2][PETSC_MAX_PATH_LEN], char map[PETSC_MAX_PATH_LEN])
{
  char  *comma, given[2 * PETSC_MAX_PATH_LEN];
  size_t len;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(given, model->parent_matrices, sizeof(given)));
  comma  = strchr(given, ',');
  map[0] = 0;
  if (model->parent_format == VI_PARENT_CCX) {
    PetscCheck(!comma, model->comm, PETSC_ERR_USER_INPUT,
               "-%sparent_matrices %s: CalculiX matrices are named by their job (JOB for JOB.sti, JOB.mas and JOB.dof), one name", model->prefix,
               given);
    len = strlen(given);
    if (len > 4 && !strcmp(given + len - 4, ".sti")) given[len - 4] = 0;
    PetscCall(PetscSNPrintf(files[0], PETSC_MAX_PATH_LEN, "%s.sti", given));
    PetscCall(PetscSNPrintf(files[1], PETSC_MAX_PATH_LEN, "%s.mas", given));
    PetscCall(PetscSNPrintf(map, PETSC_MAX_PATH_LEN, "%s.dof", given));
  } else {
    PetscCheck(comma && !strchr(comma + 1, ','), model->comm, PETSC_ERR_USER_INPUT,
               "-%sparent_matrices %s: give the stiffness and the mass file, K,M", model->prefix, given);
    *comma = 0;
    PetscCall(PetscStrncpy(files[0], given, PETSC_MAX_PATH_LEN));
    PetscCall(PetscStrncpy(files[1], comma + 1, PETSC_MAX_PATH_LEN));
    if (model->parent_format == VI_PARENT_MTX) {
      PetscCheck(model->parent_dofs[0], model->comm, PETSC_ERR_USER_INPUT,
                 "-%sparent_format mtx: give the DOF map with -%sparent_dofs FILE (one line 'NODE DIRECTION' per row)", model->prefix, model->prefix);
      PetscCall(PetscStrncpy(map, model->parent_dofs, PETSC_MAX_PATH_LEN));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Everything a rank reads; errors are returned to the caller, which shares them before any collective call. */
static PetscErrorCode VIParentRead(VIModel model, VIParentRows *rows, char files[2][PETSC_MAX_PATH_LEN], char map[], PetscInt **pairs)
{
  PetscInt *line = NULL;

  PetscFunctionBeginUser;
  if (model->parent_format == VI_PARENT_ABAQUS) {
    char *f[2] = {files[0], files[1]};
    PetscCall(VIParentAbaqusLabels(f, &rows->n, &rows->node, &rows->dir, &line));
    PetscCall(PetscMalloc1(2 * rows->n, pairs));
    for (PetscInt r = 0; r < rows->n; r++) {
      (*pairs)[2 * r]     = rows->node[r];
      (*pairs)[2 * r + 1] = rows->dir[r];
    }
  } else
    PetscCall(VIParentReadDofMap(map, model->parent_format == VI_PARENT_CCX ? "-parent_matrices" : "-parent_dofs",
                                 model->parent_format == VI_PARENT_CCX, &rows->n, &rows->node, &rows->dir, &line));
  PetscCall(PetscMalloc5(rows->n, &rows->index, rows->n, &rows->newrow, rows->n, &rows->head, rows->n, &rows->count, rows->n, &rows->next));
  PetscCall(VIParentNumber(model, rows, line, model->parent_format == VI_PARENT_ABAQUS ? files[0] : map));
  PetscCall(PetscFree3(rows->node, rows->dir, line));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIModelSetUpParent(VIModel model)
{
  VIParentRows    rows;
  VIParentEntries EK, EM;
  char            files[2][PETSC_MAX_PATH_LEN], map[PETSC_MAX_PATH_LEN];
  PetscInt       *pairs = NULL;
  PetscErrorCode  ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&rows, sizeof(rows)));
  PetscCall(PetscMemzero(&EK, sizeof(EK)));
  PetscCall(PetscMemzero(&EM, sizeof(EM)));
  PetscCall(VIParentFiles(model, files, map));
  PetscCall(PetscLogEventBegin(VI_Assemble, 0, 0, 0, 0));
  ierr = VIParentRead(model, &rows, files, map, &pairs);
  if (!ierr) {
    if (model->parent_format == VI_PARENT_ABAQUS) {
      ierr = VIParentReadAbaqus(files[0], &rows, pairs, &EK);
      if (!ierr) ierr = VIParentReadAbaqus(files[1], &rows, pairs, &EM);
    } else {
      PetscBool mtx = model->parent_format == VI_PARENT_MTX ? PETSC_TRUE : PETSC_FALSE;
      ierr          = VIParentReadCoordinates(files[0], mtx, &rows, &EK);
      if (!ierr) ierr = VIParentReadCoordinates(files[1], mtx, &rows, &EM);
    }
  }
  if (!ierr) ierr = VIParentCheckSymmetric(&rows, files[0], "K", &EK);
  if (!ierr) ierr = VIParentCheckSymmetric(&rows, files[1], "M", &EM);
  PetscCall(VIErrorSync(model->comm, ierr));
  PetscCall(VIParentAssemble(model, &rows, &EK, &model->K));
  PetscCall(VIParentAssemble(model, &rows, &EM, &model->M));
  PetscCall(MatSetOption(model->K, MAT_SPD, PETSC_FALSE));
  PetscCall(PetscLogEventEnd(VI_Assemble, 0, 0, 0, 0));
  PetscCall(PetscFree(EK.e));
  PetscCall(PetscFree(EM.e));
  PetscCall(PetscFree(pairs));
  PetscCall(PetscFree(rows.owner_start));
  PetscCall(PetscFree5(rows.index, rows.newrow, rows.head, rows.count, rows.next));
  {
    /* the mass that moves with a rigid translation along x: the parent's mass when no DOF is clamped */
    Vec         u, Mu;
    PetscScalar m;
    PetscCall(MatCreateVecs(model->M, &u, &Mu));
    PetscCall(VIModelGetRigidTranslation(model, 0, u));
    PetscCall(MatMult(model->M, u, Mu));
    PetscCall(VecDot(u, Mu, &m));
    model->total_mass = PetscRealPart(m);
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&Mu));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
