/* Abaqus/CalculiX .inp reader: nodes, elements, node and element sets, clamps, materials and sections, on one rank. */
#include "meshimpl.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INP_MAX_DEPTH    16        /* *INCLUDE nesting, so that a file including itself stops with a message */
#define INP_NAME_LEN     64        /* set, material and keyword names, as in VISet and VIMaterial */
#define INP_MAX_PARAMS   32        /* parameters on one keyword line */
#define INP_MAX_GENERATE 100000000 /* members one GENERATE line may create: a typo must not exhaust memory */

typedef struct {
  FILE              *fp;
  const char        *name;     /* as stored by VIMeshBuildAddFile, used in every message */
  PetscInt           line;     /* physical lines read so far */
  unsigned long long dev, ino; /* the file itself, whatever path named it: an *INCLUDE cycle is found by these */
  VISource           included; /* the *INCLUDE line that opened it (file NULL for the deck itself) */
} InpFile;

/* A node or element set as the deck defines it. Chunks remember which data line added which members, so that an
   undefined member is reported at its own line. */
typedef struct {
  char      name[INP_NAME_LEN];
  VISource  src; /* first definition */
  PetscInt  n, max;
  PetscInt *ids;
  PetscInt  num_chunks, max_chunks;
  PetscInt *chunk_start;
  VISource *chunk_src;
} InpSet;

/* A *BOUNDARY target, checked once the whole deck is read (sets may be defined after their use). */
typedef struct {
  char     set[INP_NAME_LEN]; /* empty when the target is a node id */
  PetscInt node;
  VISource src;
} InpTarget;

typedef struct {
  char      elset[INP_NAME_LEN], material[INP_NAME_LEN];
  PetscReal thickness;
  VISource  src;
} InpSection;

typedef struct {
  VISource  src;
  PetscBool elastic, density;
} InpMaterial;

/* A keyword skipped because it does not change the model: where it first appeared and how often, for the notice. */
typedef struct {
  char     name[INP_NAME_LEN];
  VISource src;
  PetscInt count;
} InpSkipped;

/* Skin elements of one type: where they first appear, how many, their dimension (1 edges, 2 faces). */
typedef struct {
  char     type[INP_NAME_LEN];
  PetscInt dim, count;
  VISource src;
} InpSkinBlock;

typedef struct {
  VIMesh   mesh;
  InpFile  files[INP_MAX_DEPTH];
  PetscInt depth;

  /* the current significant line: trimmed, inside buf */
  char     *buf;
  PetscInt  buf_size;
  char     *line;
  VISource  src;
  PetscBool keyword, pending;

  /* the last keyword line, parsed */
  char    *kw_buf;
  PetscInt kw_buf_size;
  char     kw[INP_NAME_LEN], prev_kw[INP_NAME_LEN];
  PetscInt num_params;
  char    *param_key[INP_MAX_PARAMS], *param_value[INP_MAX_PARAMS];

  /* the fields of the current data line (split at commas, trimmed) */
  char   **field;
  PetscInt num_fields, max_fields;

  PetscInt    *node_ids, num_nodes, max_nodes;
  PetscInt    *elem_ids, num_elems, max_elems;
  PetscInt    *record, max_record;
  InpSet      *nsets, *esets;
  PetscInt     num_nsets, max_nsets, num_esets, max_esets;
  InpTarget   *targets;
  PetscInt     num_targets, max_targets;
  InpSection  *sections;
  PetscInt     num_sections, max_sections;
  InpMaterial *materials; /* indexed like mesh->materials */
  PetscInt     num_materials, max_materials;
  PetscInt     material; /* the *MATERIAL whose options follow, -1 outside */
  InpSkipped  *skipped;
  PetscInt     num_skipped, max_skipped, num_instances;
  PetscBool    rotations_noted, has_solid, has_rod, has_plane;

  /* elements of a lower-dimensional type vicms does not model (Gmsh's Abaqus export writes the faces and edges of the solids, e.g.
     CPS6 beside C3D10), kept aside until the end of the deck decides: skipped beside solids, refused otherwise */
  InpSkinBlock *skin_blocks;
  PetscInt      num_skin_blocks, max_skin_blocks;
  PetscInt     *skin_ids, *skin_off, *skin_nodes; /* element ids, offsets (num_skin + 1) into skin_nodes */
  PetscInt      num_skin, max_skin, max_skin_off, num_skin_nodes, max_skin_nodes;
  /* the skin elements skipped, per type, for the notice; the element sets turned into node sets */
  InpSkinBlock *skipped_skin;
  PetscInt      num_skipped_skin, max_skipped_skin, num_skin_nsets;
  char          skin_nsets[256];
} InpReader;

/* Make room for need entries of size sz in *arr, which holds *max. */
static PetscErrorCode InpGrow(size_t sz, PetscInt need, PetscInt *max, void *arr)
{
  PetscFunctionBeginUser;
  if (need <= *max) PetscFunctionReturn(PETSC_SUCCESS);
  *max = PetscMax(need, 2 * (*max) + 16);
  PetscCall(PetscRealloc(sz * (size_t)(*max), arr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static char *InpTrim(char *s)
{
  size_t n;

  while (isspace((unsigned char)*s)) s++;
  n = strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = 0;
  return s;
}

/* Upper case, runs of blanks made one blank: "solid   Section" -> "SOLID SECTION"; in place. */
static void InpNormalize(char *s)
{
  char     *in = InpTrim(s), *out = s;
  PetscBool blank = PETSC_FALSE;

  for (; *in; in++) {
    if (isspace((unsigned char)*in)) {
      blank = PETSC_TRUE;
      continue;
    }
    if (blank) *out++ = ' ';
    blank  = PETSC_FALSE;
    *out++ = (char)toupper((unsigned char)*in);
  }
  *out = 0;
}

static PetscBool InpSame(const char a[], const char b[])
{
  for (; *a && *b; a++, b++)
    if (toupper((unsigned char)*a) != toupper((unsigned char)*b)) return PETSC_FALSE;
  return (*a == *b) ? PETSC_TRUE : PETSC_FALSE;
}

static PetscBool InpLooksNumeric(const char s[])
{
  return (isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '+' || s[0] == '.') ? PETSC_TRUE : PETSC_FALSE;
}

/* An integer field, parsed completely. */
static PetscErrorCode InpInt(InpReader *r, const char s[], const char what[], PetscInt *v)
{
  char *end;
  long  x;

  PetscFunctionBeginUser;
  PetscCheck(s[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": %s is missing", r->src.file, r->src.line, what);
  errno = 0;
  x     = strtol(s, &end, 10);
  PetscCheck(end != s && !*end && errno != ERANGE && x >= PETSC_MIN_INT && x <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": %s '%s' is not an integer", r->src.file, r->src.line, what, s);
  *v = (PetscInt)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A real field, parsed completely; an empty field is 0 when empty_ok (Abaqus reads blank fields as zero). */
static PetscErrorCode InpReal(InpReader *r, const char s[], const char what[], PetscBool empty_ok, PetscReal *v)
{
  char  *end;
  double x;

  PetscFunctionBeginUser;
  if (!s[0]) {
    PetscCheck(empty_ok, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": %s is missing", r->src.file, r->src.line, what);
    *v = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  errno = 0;
  x     = strtod(s, &end);
  PetscCheck(end != s && !*end && errno != ERANGE && !PetscIsInfOrNanReal((PetscReal)x), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": %s '%s' is not a finite number", r->src.file, r->src.line, what, s);
  *v = (PetscReal)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode InpCopyName(InpReader *r, const char s[], const char what[], char name[])
{
  size_t n = strlen(s);

  PetscFunctionBeginUser;
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": %s is empty", r->src.file, r->src.line, what);
  PetscCheck(n < INP_NAME_LEN, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": %s '%s' is longer than %d characters", r->src.file,
             r->src.line, what, s, INP_NAME_LEN - 1);
  PetscCall(PetscStrncpy(name, s, INP_NAME_LEN));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Split the current data line at commas into trimmed fields (empty ones kept: *BOUNDARY has positional fields). */
static PetscErrorCode InpSplitFields(InpReader *r)
{
  char *s = r->line;

  PetscFunctionBeginUser;
  r->num_fields = 0;
  for (;;) {
    char *comma = strchr(s, ',');

    if (comma) *comma = 0;
    PetscCall(InpGrow(sizeof(char *), r->num_fields + 1, &r->max_fields, &r->field));
    r->field[r->num_fields++] = InpTrim(s);
    if (!comma) break;
    s = comma + 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Number of fields up to the last non-empty one ("1, 1, , " has 2). */
static PetscInt InpNumFilled(InpReader *r)
{
  PetscInt n = r->num_fields;

  while (n > 0 && !r->field[n - 1][0]) n--;
  return n;
}

/* Parse the current keyword line: name (normalized) and KEY=VALUE parameters (keys normalized, values trimmed). */
static PetscErrorCode InpParseKeyword(InpReader *r)
{
  size_t len = strlen(r->line);
  char  *s, *comma;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(r->prev_kw, r->kw, sizeof(r->prev_kw)));
  PetscCall(InpGrow(sizeof(char), (PetscInt)len + 1, &r->kw_buf_size, &r->kw_buf));
  PetscCall(PetscStrcpy(r->kw_buf, r->line));
  s     = r->kw_buf + 1;
  comma = strchr(s, ',');
  if (comma) *comma = 0;
  InpNormalize(s);
  PetscCall(PetscStrncpy(r->kw, s, sizeof(r->kw)));
  r->num_params = 0;
  while (comma) {
    char *eq;

    s     = comma + 1;
    comma = strchr(s, ',');
    if (comma) *comma = 0;
    s = InpTrim(s);
    if (!*s) continue;
    PetscCheck(r->num_params < INP_MAX_PARAMS, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": more than %d parameters on *%s",
               r->src.file, r->src.line, INP_MAX_PARAMS, r->kw);
    eq = strchr(s, '=');
    if (eq) {
      char  *v = InpTrim(eq + 1);
      size_t n = strlen(v);

      *eq = 0;
      if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
        v[n - 1] = 0;
        v++;
      }
      r->param_value[r->num_params] = v;
    } else
      r->param_value[r->num_params] = NULL;
    InpNormalize(s);
    r->param_key[r->num_params++] = s;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The value of parameter key of the current keyword, NULL when absent; *present tells a flag (GENERATE) apart. */
static const char *InpParam(InpReader *r, const char key[], PetscBool *present)
{
  if (present) *present = PETSC_FALSE;
  for (PetscInt i = 0; i < r->num_params; i++)
    if (!strcmp(r->param_key[i], key)) {
      if (present) *present = PETSC_TRUE;
      return r->param_value[i] ? r->param_value[i] : "";
    }
  return NULL;
}

/* A parameter that must be there with a value. */
static PetscErrorCode InpRequiredParam(InpReader *r, const char key[], const char **value)
{
  PetscFunctionBeginUser;
  *value = InpParam(r, key, NULL);
  PetscCheck(*value && (*value)[0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *%s needs the parameter %s=...", r->src.file,
             r->src.line, r->kw, key);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Open path on top of the include stack; a file that is already open there would include itself forever. */
static PetscErrorCode InpPushFile(InpReader *r, const char path[])
{
  FILE              *fp;
  unsigned long long dev, ino;
  char               where[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBeginUser;
  if (r->depth == 0) {
    PetscCall(VIMeshOpenFile(path, "Abaqus/CalculiX deck", NULL, &fp, &dev, &ino));
  } else {
    PetscCall(PetscSNPrintf(where, sizeof(where), "%s:%" PetscInt_FMT, r->src.file, r->src.line));
    PetscCheck(r->depth < INP_MAX_DEPTH, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s: *INCLUDE of '%s' nests deeper than %d files", where, path,
               INP_MAX_DEPTH);
    PetscCall(VIMeshOpenFile(path, "*INCLUDE", where, &fp, &dev, &ino));
    for (PetscInt i = 0; i < r->depth; i++) {
      char first[PETSC_MAX_PATH_LEN + 32] = "the deck itself";

      if (r->files[i].dev != dev || r->files[i].ino != ino) continue;
      if (r->files[i].included.file)
        PetscCall(PetscSNPrintf(first, sizeof(first), "included at %s:%" PetscInt_FMT, r->files[i].included.file, r->files[i].included.line));
      (void)fclose(fp);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s: *INCLUDE of '%s' makes a cycle: that file is %s (%s), which is still being read", where,
              path, r->files[i].name, first);
    }
  }
  r->files[r->depth].fp       = fp;
  r->files[r->depth].line     = 0;
  r->files[r->depth].name     = NULL;
  r->files[r->depth].dev      = dev;
  r->files[r->depth].ino      = ino;
  r->files[r->depth].included = r->depth ? r->src : (VISource){NULL, 0};
  r->depth++;
  PetscCall(VIMeshBuildAddFile(r->mesh, path, &r->files[r->depth - 1].name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *INCLUDE, INPUT=path: relative to the directory of the including file. */
static PetscErrorCode InpInclude(InpReader *r)
{
  const char *input;
  char        path[PETSC_MAX_PATH_LEN];
  const char *slash  = strrchr(r->src.file, '/');
  size_t      dirlen = slash ? (size_t)(slash - r->src.file) + 1 : 0;

  PetscFunctionBeginUser;
  PetscCall(InpRequiredParam(r, "INPUT", &input));
  if (input[0] == '/') dirlen = 0;
  PetscCheck(dirlen + strlen(input) < sizeof(path), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *INCLUDE path '%s' is too long",
             r->src.file, r->src.line, input);
  PetscCall(PetscMemcpy(path, r->src.file, dirlen));
  PetscCall(PetscStrcpy(path + dirlen, input));
  PetscCall(InpPushFile(r, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The next line of the innermost file that is neither blank nor a ** comment; *eof at the end of that file. */
static PetscErrorCode InpRawLine(InpReader *r, PetscBool *eof)
{
  InpFile *f = &r->files[r->depth - 1];

  PetscFunctionBeginUser;
  for (;;) {
    PetscCall(VIMeshReadLine(f->fp, f->name, f->line + 1, &r->buf, &r->buf_size, eof));
    if (*eof) PetscFunctionReturn(PETSC_SUCCESS);
    f->line++;
    r->line = InpTrim(r->buf);
    if (!r->line[0] || (r->line[0] == '*' && r->line[1] == '*')) continue;
    break;
  }
  r->src.file = f->name;
  r->src.line = f->line;
  r->keyword  = r->line[0] == '*' ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The next significant line of the deck, following *INCLUDEs; keyword lines are parsed. *end at the end of the deck. */
static PetscErrorCode InpNextLine(InpReader *r, PetscBool *end)
{
  PetscFunctionBeginUser;
  *end = PETSC_FALSE;
  if (r->pending) {
    r->pending = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (;;) {
    PetscBool eof;

    PetscCall(InpRawLine(r, &eof));
    if (eof) {
      if (r->depth == 1) {
        *end = PETSC_TRUE;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      PetscCheck(!fclose(r->files[r->depth - 1].fp), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: close failed", r->files[r->depth - 1].name);
      r->files[--r->depth].fp = NULL;
      continue;
    }
    if (!r->keyword) break;
    PetscCall(InpParseKeyword(r));
    if (strcmp(r->kw, "INCLUDE")) break;
    PetscCall(InpInclude(r));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The next data line of the current keyword, split into fields; *has = false at a keyword (kept for the caller) or
   at the end of the deck. */
static PetscErrorCode InpNextData(InpReader *r, PetscBool *has)
{
  PetscBool end;

  PetscFunctionBeginUser;
  *has = PETSC_FALSE;
  PetscCall(InpNextLine(r, &end));
  if (end) PetscFunctionReturn(PETSC_SUCCESS);
  if (r->keyword) {
    r->pending = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(InpSplitFields(r));
  *has = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ sets */

static PetscErrorCode InpFindSet(PetscInt num, InpSet *sets, const char name[], PetscInt *index)
{
  PetscFunctionBeginUser;
  *index = -1;
  for (PetscInt s = 0; s < num; s++)
    if (InpSame(sets[s].name, name)) {
      *index = s;
      break;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The set called name (names compare without case, as in Abaqus), created at src when new. */
static PetscErrorCode InpGetSet(InpReader *r, PetscBool nodes, const char name[], PetscInt *index)
{
  InpSet  **sets = nodes ? &r->nsets : &r->esets;
  PetscInt *num  = nodes ? &r->num_nsets : &r->num_esets;
  PetscInt *max  = nodes ? &r->max_nsets : &r->max_esets;
  char      copy[INP_NAME_LEN];

  PetscFunctionBeginUser;
  PetscCall(InpCopyName(r, name, nodes ? "node set name" : "element set name", copy));
  PetscCall(InpFindSet(*num, *sets, copy, index));
  if (*index >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(InpGrow(sizeof(InpSet), *num + 1, max, sets));
  *index = (*num)++;
  PetscCall(PetscMemzero(&(*sets)[*index], sizeof(InpSet)));
  PetscCall(PetscStrncpy((*sets)[*index].name, copy, INP_NAME_LEN));
  (*sets)[*index].src = r->src;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode InpSetAppend(InpSet *set, PetscInt n, const PetscInt ids[], VISource src)
{
  PetscFunctionBeginUser;
  if (!set->num_chunks || set->chunk_src[set->num_chunks - 1].file != src.file || set->chunk_src[set->num_chunks - 1].line != src.line) {
    PetscInt max = set->max_chunks;

    PetscCall(InpGrow(sizeof(PetscInt), set->num_chunks + 1, &max, &set->chunk_start));
    PetscCall(InpGrow(sizeof(VISource), set->num_chunks + 1, &set->max_chunks, &set->chunk_src));
    set->chunk_start[set->num_chunks] = set->n;
    set->chunk_src[set->num_chunks++] = src;
  }
  PetscCall(InpGrow(sizeof(PetscInt), set->n + n, &set->max, &set->ids));
  PetscCall(PetscArraycpy(set->ids + set->n, ids, n));
  set->n += n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *NSET, NSET=name [, GENERATE] and *ELSET, ELSET=name [, GENERATE]. */
static PetscErrorCode InpReadSet(InpReader *r, PetscBool nodes)
{
  const char *kind = nodes ? "NSET" : "ELSET", *name;
  PetscBool   generate, has;
  PetscInt    s;

  PetscFunctionBeginUser;
  PetscCall(InpRequiredParam(r, kind, &name));
  (void)InpParam(r, "GENERATE", &generate);
  PetscCheck(!nodes || !InpParam(r, "ELSET", NULL), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *NSET with ELSET= (the nodes of elements) is not supported; list the nodes", r->src.file, r->src.line);
  PetscCall(InpGetSet(r, nodes, name, &s));
  for (;;) {
    InpSet *set;

    PetscCall(InpNextData(r, &has));
    if (!has) break;
    set = nodes ? &r->nsets[s] : &r->esets[s];
    if (generate) {
      PetscInt nf = InpNumFilled(r), first, last, step = 1, count;

      PetscCheck(nf == 2 || nf == 3, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": *%s, GENERATE expects 'first, last[, increment]', got %" PetscInt_FMT " fields", r->src.file, r->src.line,
                 kind, nf);
      PetscCall(InpInt(r, r->field[0], "first id", &first));
      PetscCall(InpInt(r, r->field[1], "last id", &last));
      if (nf == 3) PetscCall(InpInt(r, r->field[2], "increment", &step));
      PetscCheck(first > 0 && last >= first && step > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": *%s, GENERATE %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT
                 ": expected 0 < first <= last and a positive increment",
                 r->src.file, r->src.line, kind, first, last, step);
      count = (last - first) / step + 1;
      PetscCheck(count <= INP_MAX_GENERATE, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": *%s, GENERATE makes %" PetscInt_FMT " members, more than %d", r->src.file, r->src.line, kind, count,
                 INP_MAX_GENERATE);
      PetscCall(InpGrow(sizeof(PetscInt), count, &r->max_record, &r->record));
      for (PetscInt i = 0; i < count; i++) r->record[i] = first + i * step;
      PetscCall(InpSetAppend(set, count, r->record, r->src));
      continue;
    }
    for (PetscInt k = 0; k < r->num_fields; k++) {
      const char *f = r->field[k];

      if (!f[0]) continue;
      if (InpLooksNumeric(f)) {
        PetscInt id;

        PetscCall(InpInt(r, f, nodes ? "node id" : "element id", &id));
        PetscCheck(id > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *%s '%s': id %" PetscInt_FMT " is not positive", r->src.file,
                   r->src.line, kind, set->name, id);
        PetscCall(InpSetAppend(set, 1, &id, r->src));
      } else {
        InpSet  *sets = nodes ? r->nsets : r->esets;
        PetscInt o;

        PetscCall(InpFindSet(nodes ? r->num_nsets : r->num_esets, sets, f, &o));
        PetscCheck(o >= 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                   "%s:%" PetscInt_FMT ": *%s '%s': '%s' is neither an id nor a previously defined %s set", r->src.file, r->src.line, kind, set->name,
                   f, nodes ? "node" : "element");
        if (o != s) PetscCall(InpSetAppend(set, sets[o].n, sets[o].ids, r->src));
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ nodes and elements */

/* *NODE [, NSET=name]: id, x[, y[, z]] */
static PetscErrorCode InpReadNodes(InpReader *r)
{
  const char *v;
  PetscInt    s = -1;
  PetscBool   has;
  VISource    kw_src = r->src;

  PetscFunctionBeginUser;
  v = InpParam(r, "SYSTEM", NULL);
  PetscCheck(!v || InpSame(v, "R"), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *NODE, SYSTEM=%s is not supported (only rectangular coordinates)", r->src.file, r->src.line, v);
  PetscCheck(!InpParam(r, "INPUT", NULL), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *NODE, INPUT= is not supported; use *INCLUDE",
             r->src.file, r->src.line);
  v = InpParam(r, "NSET", NULL);
  if (v) PetscCall(InpGetSet(r, PETSC_TRUE, v, &s));
  for (;;) {
    PetscInt  nf, id;
    PetscReal xyz[3] = {0, 0, 0};

    PetscCall(InpNextData(r, &has));
    if (!has) break;
    nf = InpNumFilled(r);
    PetscCheck(nf >= 2 && nf <= 4, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": *NODE expects 'id, x[, y[, z]]', got %" PetscInt_FMT " fields", r->src.file, r->src.line, nf);
    PetscCall(InpInt(r, r->field[0], "node id", &id));
    PetscCheck(id > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": node id %" PetscInt_FMT " is not positive", r->src.file,
               r->src.line, id);
    for (PetscInt d = 0; d + 1 < nf; d++)
      PetscCall(InpReal(r, r->field[d + 1], d == 0 ? "x coordinate" : (d == 1 ? "y coordinate" : "z coordinate"), PETSC_TRUE, &xyz[d]));
    PetscCall(VIMeshBuildAddNode(r->mesh, id, xyz, r->src));
    PetscCall(InpGrow(sizeof(PetscInt), r->num_nodes + 1, &r->max_nodes, &r->node_ids));
    r->node_ids[r->num_nodes++] = id;
    if (s >= 0) PetscCall(InpSetAppend(&r->nsets[s], 1, &id, kw_src));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode InpUnknownType(const char tname[], VISource src)
{
  char list[256] = "";

  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < VI_ELEM_NUM_TYPES; t++) {
    PetscCall(PetscStrlcat(list, t ? ", " : "", sizeof(list)));
    PetscCall(PetscStrlcat(list, VIElementInfoTable[t].name, sizeof(list)));
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
          "%s:%" PetscInt_FMT
          ": unknown element type '%s'; supported types: %s (a Gmsh mesh is read whole from its .msh file: gmsh -save -format msh41)",
          src.file, src.line, tname, list);
}

/* The dimension of an Abaqus element type that vicms does not model but may find beside solids as their skin: 1 for trusses, beams
   and pipes, 2 for shells, membranes, surfaces and plane or axisymmetric continua; 0 for anything else (SC6R, SC8R: continuum shells
   are solids). tname is upper case. */
static PetscInt InpSkinDimension(const char t[])
{
  static const char *const edges[] = {"T2D", "T3D", "B2", "B3", "PIPE"};
  static const char *const faces[] = {"STRI", "M3D", "SFM3D", "CPS", "CPE", "CAX", "CGAX", "DS", "R3D"};

  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(edges); i++)
    if (!strncmp(t, edges[i], strlen(edges[i]))) return 1;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(faces); i++)
    if (!strncmp(t, faces[i], strlen(faces[i]))) return 2;
  return (t[0] == 'S' && isdigit((unsigned char)t[1])) ? 2 : 0;
}

/* The records of an *ELEMENT block of skin type tname (id, node ids...; a trailing comma continues the record), kept aside; their ids
   join the element set s (-1: none) as any element's, so that sets naming them are checked as usual. */
static PetscErrorCode InpReadSkinElements(InpReader *r, const char tname[], PetscInt s)
{
  InpSkinBlock *blk;
  VISource      kw_src = r->src;
  PetscBool     has;

  PetscFunctionBeginUser;
  PetscCall(InpGrow(sizeof(InpSkinBlock), r->num_skin_blocks + 1, &r->max_skin_blocks, &r->skin_blocks));
  blk = &r->skin_blocks[r->num_skin_blocks++];
  PetscCall(PetscMemzero(blk, sizeof(*blk)));
  PetscCall(PetscStrncpy(blk->type, tname, INP_NAME_LEN));
  blk->dim = InpSkinDimension(tname);
  blk->src = kw_src;
  for (;;) {
    VISource rec_src;
    PetscInt count = 0, id = 0;

    PetscCall(InpNextData(r, &has));
    if (!has) break;
    rec_src = r->src;
    for (;;) {
      PetscInt  nf   = r->num_fields;
      PetscBool more = (nf > 1 && !r->field[nf - 1][0]) ? PETSC_TRUE : PETSC_FALSE, eof;

      if (more) nf--;
      for (PetscInt k = 0; k < nf; k++) {
        PetscCheck(r->field[k][0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": empty field %" PetscInt_FMT " in a %s record",
                   r->src.file, r->src.line, k + 1, tname);
        PetscCall(InpGrow(sizeof(PetscInt), r->num_skin_nodes + 1, &r->max_skin_nodes, &r->skin_nodes));
        PetscCall(InpInt(r, r->field[k], count ? "node id" : "element id", &r->skin_nodes[r->num_skin_nodes]));
        if (count)
          r->num_skin_nodes++;
        else
          id = r->skin_nodes[r->num_skin_nodes];
        count++;
      }
      if (!more) break;
      PetscCall(InpRawLine(r, &eof));
      PetscCheck(!eof && !r->keyword, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s:%" PetscInt_FMT ": the %s record of line %" PetscInt_FMT " ends with a comma but does not continue", rec_src.file, rec_src.line,
                 tname, rec_src.line);
      PetscCall(InpSplitFields(r));
    }
    PetscCheck(count >= 2 && id > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": a %s record needs a positive element id and its nodes", rec_src.file, rec_src.line, tname);
    PetscCall(InpGrow(sizeof(PetscInt), r->num_skin + 1, &r->max_skin, &r->skin_ids));
    PetscCall(InpGrow(sizeof(PetscInt), r->num_skin + 2, &r->max_skin_off, &r->skin_off));
    r->skin_off[0]             = 0;
    r->skin_ids[r->num_skin]   = id;
    r->skin_off[++r->num_skin] = r->num_skin_nodes;
    blk->count++;
    PetscCall(InpGrow(sizeof(PetscInt), r->num_elems + 1, &r->max_elems, &r->elem_ids));
    r->elem_ids[r->num_elems++] = id;
    if (s >= 0) PetscCall(InpSetAppend(&r->esets[s], 1, &id, kw_src));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *ELEMENT, TYPE=..., [ELSET=...]: id, n1, n2, ...; a line ending with a comma continues on the next line. */
static PetscErrorCode InpReadElements(InpReader *r)
{
  const char   *v;
  char          tname[INP_NAME_LEN];
  VIElementType type;
  PetscBool     found, has;
  PetscInt      s      = -1, need;
  VISource      kw_src = r->src;

  PetscFunctionBeginUser;
  PetscCall(InpRequiredParam(r, "TYPE", &v));
  PetscCall(InpCopyName(r, v, "element type", tname));
  InpNormalize(tname);
  PetscCall(VIElementTypeFromName(tname, &type, &found));
  if (!found && !InpSkinDimension(tname)) PetscCall(InpUnknownType(tname, r->src));
  PetscCheck(!InpParam(r, "INPUT", NULL), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *ELEMENT, INPUT= is not supported; use *INCLUDE", r->src.file, r->src.line);
  v = InpParam(r, "ELSET", NULL);
  if (v) PetscCall(InpGetSet(r, PETSC_FALSE, v, &s));
  if (!found) {
    PetscCall(InpReadSkinElements(r, tname, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  need = VIElementInfoTable[type].num_nodes + 1;
  PetscCall(InpGrow(sizeof(PetscInt), need, &r->max_record, &r->record));
  if (VIElementInfoTable[type].ref_dim == 3)
    r->has_solid = PETSC_TRUE;
  else if (VIElementInfoTable[type].ref_dim == 2)
    r->has_plane = PETSC_TRUE;
  else
    r->has_rod = PETSC_TRUE;
  for (;;) {
    VISource rec_src;
    PetscInt count = 0;

    PetscCall(InpNextData(r, &has));
    if (!has) break;
    rec_src = r->src;
    for (;;) {
      PetscInt  nf   = r->num_fields;
      PetscBool more = (nf > 1 && !r->field[nf - 1][0]) ? PETSC_TRUE : PETSC_FALSE;
      PetscBool eof;

      if (more) nf--;
      for (PetscInt k = 0; k < nf; k++) {
        PetscCheck(r->field[k][0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": empty field %" PetscInt_FMT " in a %s record",
                   r->src.file, r->src.line, k + 1, tname);
        PetscCheck(count < need, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                   "%s:%" PetscInt_FMT ": element %" PetscInt_FMT " lists more than the %" PetscInt_FMT " nodes of a %s", r->src.file, r->src.line,
                   r->record[0], need - 1, tname);
        PetscCall(InpInt(r, r->field[k], count ? "node id" : "element id", &r->record[count]));
        count++;
      }
      if (count == need) break;
      /* short record: it continues only after a trailing comma, and never into another file */
      PetscCall(InpRawLine(r, &eof));
      PetscCheck(!eof, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s:%" PetscInt_FMT ": unexpected end of file: element %" PetscInt_FMT " (line %" PetscInt_FMT ") has %" PetscInt_FMT
                 " of the %" PetscInt_FMT " nodes of a %s",
                 r->files[r->depth - 1].name, r->files[r->depth - 1].line, r->record[0], rec_src.line, count - 1, need - 1, tname);
      PetscCheck(more, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": element %" PetscInt_FMT " has %" PetscInt_FMT " nodes, but a %s has %" PetscInt_FMT
                 " (a record continued on the next line ends with a comma)",
                 rec_src.file, rec_src.line, r->record[0], count - 1, tname, need - 1);
      PetscCheck(!r->keyword, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": element %" PetscInt_FMT " has %" PetscInt_FMT " nodes, but a %s has %" PetscInt_FMT, rec_src.file,
                 rec_src.line, r->record[0], count - 1, tname, need - 1);
      PetscCall(InpSplitFields(r));
    }
    PetscCheck(r->record[0] > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": element id %" PetscInt_FMT " is not positive",
               rec_src.file, rec_src.line, r->record[0]);
    PetscCall(VIMeshBuildAddElement(r->mesh, r->record[0], type, r->record + 1, rec_src));
    PetscCall(InpGrow(sizeof(PetscInt), r->num_elems + 1, &r->max_elems, &r->elem_ids));
    r->elem_ids[r->num_elems++] = r->record[0];
    if (s >= 0) PetscCall(InpSetAppend(&r->esets[s], 1, &r->record[0], kw_src));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ clamps, materials, sections */

/* *BOUNDARY: node-or-nset, first_dof[, last_dof[, value]], or node-or-nset, ENCASTRE|PINNED|XSYMM|YSYMM|ZSYMM */
static PetscErrorCode InpReadBoundary(InpReader *r)
{
  const char *v = InpParam(r, "TYPE", NULL);
  PetscBool   has;

  PetscFunctionBeginUser;
  PetscCheck(!v || InpSame(v, "DISPLACEMENT"), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *BOUNDARY, TYPE=%s is not supported (only clamped displacements)", r->src.file, r->src.line, v);
  /* OP=NEW releases the clamps defined before, FIXED holds a deformed state, the others take values from elsewhere:
     each gives clamps other than the ones listed, which are all vicms reads (an AMPLITUDE scales values that are 0) */
  v = InpParam(r, "OP", NULL);
  PetscCheck(!v || InpSame(v, "MOD"), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *BOUNDARY, OP=%s is not supported: vicms keeps every clamp of the deck (OP=MOD)", r->src.file, r->src.line, v);
  for (PetscInt i = 0; i < r->num_params; i++)
    PetscCheck(strcmp(r->param_key[i], "FIXED") && strcmp(r->param_key[i], "USER") && strcmp(r->param_key[i], "SUBMODEL") &&
                   strcmp(r->param_key[i], "LOAD CASE") && strcmp(r->param_key[i], "BASE NAME"),
               PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *BOUNDARY, %s is not supported (only clamps listed with the value 0)",
               r->src.file, r->src.line, r->param_key[i]);
  for (;;) {
    PetscInt   nf, first, last;
    InpTarget *t;
    char       text[INP_NAME_LEN];

    PetscCall(InpNextData(r, &has));
    if (!has) break;
    nf = InpNumFilled(r);
    PetscCheck(nf >= 2 && nf <= 4 && r->field[0][0], PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": *BOUNDARY expects 'node or node set, first DOF[, last DOF[, value]]'", r->src.file, r->src.line);
    if (isalpha((unsigned char)r->field[1][0])) {
      const char *names[]  = {"ENCASTRE", "PINNED", "XSYMM", "YSYMM", "ZSYMM"};
      PetscInt    firsts[] = {1, 1, 1, 2, 3}, lasts[] = {6, 3, 1, 2, 3}, k;

      for (k = 0; k < 5; k++)
        if (InpSame(r->field[1], names[k])) break;
      PetscCheck(k < 5 && nf == 2, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": *BOUNDARY type '%s' is not supported; use DOF numbers, ENCASTRE, PINNED, XSYMM, YSYMM or ZSYMM", r->src.file,
                 r->src.line, r->field[1]);
      first = firsts[k];
      last  = lasts[k];
    } else {
      PetscReal value;

      PetscCall(InpInt(r, r->field[1], "first DOF", &first));
      last = first;
      if (nf > 2 && r->field[2][0]) PetscCall(InpInt(r, r->field[2], "last DOF", &last));
      PetscCheck(first >= 1 && last >= first && last <= 6, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": *BOUNDARY DOF range %" PetscInt_FMT "..%" PetscInt_FMT " is not valid, expected 1 <= first <= last <= 6",
                 r->src.file, r->src.line, first, last);
      PetscCall(InpReal(r, nf > 3 ? r->field[3] : "", "prescribed value", PETSC_TRUE, &value));
      PetscCheck(value == 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "%s:%" PetscInt_FMT ": *BOUNDARY prescribes %g on '%s'; only homogeneous clamps (value 0) are supported", r->src.file, r->src.line,
                 (double)value, r->field[0]);
    }
    if (last > 3) {
      if (!r->rotations_noted)
        PetscCall(PetscInfo(NULL, "%s:%" PetscInt_FMT ": rotational DOFs 4-6 of *BOUNDARY are ignored (solid elements have none)\n", r->src.file,
                            r->src.line));
      r->rotations_noted = PETSC_TRUE;
      if (first > 3) continue;
      last = 3;
    }
    PetscCall(InpGrow(sizeof(InpTarget), r->num_targets + 1, &r->max_targets, &r->targets));
    t = &r->targets[r->num_targets++];
    PetscCall(PetscMemzero(t, sizeof(*t)));
    t->src = r->src;
    if (InpLooksNumeric(r->field[0])) {
      PetscCall(InpInt(r, r->field[0], "node id", &t->node));
      PetscCheck(t->node > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": node id %" PetscInt_FMT " is not positive", r->src.file,
                 r->src.line, t->node);
      PetscCall(PetscSNPrintf(text, sizeof(text), "%" PetscInt_FMT, t->node));
    } else {
      PetscCall(InpCopyName(r, r->field[0], "node set name", t->set));
      PetscCall(PetscStrncpy(text, t->set, sizeof(text)));
      t->node = -1;
    }
    PetscCall(VIMeshBuildAddBoundary(r->mesh, text, first, last, r->src));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *MATERIAL, NAME=... */
static PetscErrorCode InpReadMaterial(InpReader *r)
{
  const char *v;
  char        name[INP_NAME_LEN];
  PetscInt    m;

  PetscFunctionBeginUser;
  PetscCall(InpRequiredParam(r, "NAME", &v));
  PetscCall(InpCopyName(r, v, "material name", name));
  PetscCall(VIMeshBuildFindMaterial(r->mesh, name, &m));
  PetscCheck(m < 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": material '%s' is defined twice", r->src.file, r->src.line, name);
  PetscCall(VIMeshBuildAddMaterial(r->mesh, name, &m));
  PetscCall(InpGrow(sizeof(InpMaterial), m + 1, &r->max_materials, &r->materials));
  for (PetscInt i = r->num_materials; i <= m; i++) PetscCall(PetscMemzero(&r->materials[i], sizeof(InpMaterial)));
  r->num_materials    = PetscMax(r->num_materials, m + 1);
  r->materials[m].src = r->src;
  r->material         = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The one data line of *ELASTIC or *DENSITY; a second line would be temperature dependence. */
static PetscErrorCode InpMaterialLine(InpReader *r, const char what[])
{
  PetscBool has;
  VISource  kw_src = r->src;

  PetscFunctionBeginUser;
  PetscCheck(r->material >= 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *%s outside of a *MATERIAL", r->src.file, r->src.line,
             r->kw);
  PetscCall(InpNextData(r, &has));
  if (!has && !r->pending)
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt_FMT ": unexpected end of file: *%s needs a data line '%s'", kw_src.file,
            kw_src.line, r->kw, what);
  PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *%s needs a data line '%s'", kw_src.file, kw_src.line, r->prev_kw,
             what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode InpNoMoreData(InpReader *r, const char kw[])
{
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(InpNextData(r, &has));
  PetscCheck(!has, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *%s takes one data line; temperature-dependent data is not supported", r->src.file, r->src.line, kw);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *ELASTIC[, TYPE=ISO]: E, nu[, temperature] */
static PetscErrorCode InpReadElastic(InpReader *r)
{
  const char *v = InpParam(r, "TYPE", NULL);
  PetscReal   E, nu, temp;
  VIMaterial *mat;

  PetscFunctionBeginUser;
  PetscCheck(!v || InpSame(v, "ISO") || InpSame(v, "ISOTROPIC"), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *ELASTIC, TYPE=%s is not supported; only isotropic elasticity (TYPE=ISO)", r->src.file, r->src.line, v);
  PetscCall(InpMaterialLine(r, "E, nu"));
  PetscCheck(InpNumFilled(r) >= 2 && InpNumFilled(r) <= 3, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *ELASTIC expects 'E, nu[, temperature]'", r->src.file, r->src.line);
  PetscCall(InpReal(r, r->field[0], "Young's modulus", PETSC_FALSE, &E));
  PetscCall(InpReal(r, r->field[1], "Poisson's ratio", PETSC_FALSE, &nu));
  if (InpNumFilled(r) == 3) PetscCall(InpReal(r, r->field[2], "temperature", PETSC_TRUE, &temp));
  mat = &r->mesh->materials[r->material];
  PetscCheck(E > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": material '%s': Young's modulus E = %g, expected E > 0", r->src.file,
             r->src.line, mat->name, (double)E);
  PetscCheck(nu > -1 && nu < 0.5, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": material '%s': Poisson's ratio nu = %g, expected -1 < nu < 0.5", r->src.file, r->src.line, mat->name, (double)nu);
  mat->young                        = E;
  mat->poisson                      = nu;
  r->materials[r->material].elastic = PETSC_TRUE;
  PetscCall(InpNoMoreData(r, "ELASTIC"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *DENSITY: rho[, temperature] */
static PetscErrorCode InpReadDensity(InpReader *r)
{
  PetscReal   rho, temp;
  VIMaterial *mat;

  PetscFunctionBeginUser;
  PetscCall(InpMaterialLine(r, "rho"));
  PetscCheck(InpNumFilled(r) >= 1 && InpNumFilled(r) <= 2, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *DENSITY expects 'rho[, temperature]'", r->src.file, r->src.line);
  PetscCall(InpReal(r, r->field[0], "density", PETSC_FALSE, &rho));
  if (InpNumFilled(r) == 2) PetscCall(InpReal(r, r->field[1], "temperature", PETSC_TRUE, &temp));
  mat = &r->mesh->materials[r->material];
  PetscCheck(rho > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": material '%s': density rho = %g, expected rho > 0", r->src.file,
             r->src.line, mat->name, (double)rho);
  mat->density                      = rho;
  r->materials[r->material].density = PETSC_TRUE;
  PetscCall(InpNoMoreData(r, "DENSITY"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *SOLID SECTION, ELSET=..., MATERIAL=... [data line: thickness or area]; resolved once the deck is read. */
static PetscErrorCode InpReadSection(InpReader *r)
{
  const char *elset, *material;
  InpSection *sec;
  PetscBool   has;

  PetscFunctionBeginUser;
  PetscCall(InpRequiredParam(r, "ELSET", &elset));
  PetscCall(InpRequiredParam(r, "MATERIAL", &material));
  PetscCall(InpGrow(sizeof(InpSection), r->num_sections + 1, &r->max_sections, &r->sections));
  sec = &r->sections[r->num_sections++];
  PetscCall(PetscMemzero(sec, sizeof(*sec)));
  sec->src       = r->src;
  sec->thickness = 1;
  PetscCall(InpCopyName(r, elset, "element set name", sec->elset));
  PetscCall(InpCopyName(r, material, "material name", sec->material));
  PetscCall(InpNextData(r, &has));
  if (has && r->field[0][0]) {
    PetscCall(InpReal(r, r->field[0], "thickness (or area)", PETSC_FALSE, &sec->thickness));
    PetscCheck(sec->thickness > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": section thickness (or area) %g, expected a positive value", r->src.file, r->src.line, (double)sec->thickness);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode InpSkipData(InpReader *r)
{
  PetscBool has = PETSC_TRUE;

  PetscFunctionBeginUser;
  while (has) PetscCall(InpNextData(r, &has));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The keyword policy. vicms builds K, M and the clamps from the keywords it reads (InpReadDeck); a keyword it skipped
  but that changes the structure would give another structure without a word, so only keywords that cannot change K,
  M or the clamps are skipped: the ones below, listed in one notice. Every other keyword is an error at its line.
*/
static const char *const InpSkippable[] = {
    /* steps and procedures: vicms makes its own analysis of the model */
    "STEP", "END STEP", "FREQUENCY", "STATIC", "BUCKLE", "DYNAMIC", "MODAL DYNAMIC", "STEADY STATE DYNAMICS", "COMPLEX FREQUENCY", "CONTROLS",
    "TIME POINTS", "SELECT CYCLIC SYMMETRY MODES", "MODAL DAMPING",
    /* loads and their time functions: vicms takes its loads from its options */
    "CLOAD", "DLOAD", "DSLOAD", "TEMPERATURE", "AMPLITUDE",
    /* output requests */
    "OUTPUT", "NODE OUTPUT", "ELEMENT OUTPUT", "CONTACT OUTPUT", "ENERGY OUTPUT", "NODE FILE", "EL FILE", "NODE PRINT", "EL PRINT", "CONTACT FILE",
    "CONTACT PRINT", "SECTION PRINT", "ENERGY PRINT", "ENERGY FILE", "FILE FORMAT", "PREPRINT", "RESTART", "MONITOR",
    /* definitions that only the refused keywords (contact, ties) or the loads use, constants, thermal material data */
    "SURFACE", "PHYSICAL CONSTANTS", "CONDUCTIVITY", "SPECIFIC HEAT",
    /* the wrapping of an Abaqus deck with one part and one untransformed instance (checked in InpSkip) */
    "PART", "END PART", "ASSEMBLY", "END ASSEMBLY", "INSTANCE", "END INSTANCE", "INITIAL CONDITIONS"};

/* Keywords known to change the model, with what they would add, for a message that says why it stops. */
static const struct {
  const char *name, *what;
} InpRefused[] = {
    {"EQUATION", "linear constraints between DOFs"},
    {"MPC", "multi-point constraints"},
    {"TIE", "tied surfaces"},
    {"COUPLING", "a coupling constraint"},
    {"DISTRIBUTING COUPLING", "a distributing coupling"},
    {"KINEMATIC COUPLING", "a kinematic coupling"},
    {"KINEMATIC", "a kinematic coupling"},
    {"DISTRIBUTING", "a distributing coupling"},
    {"RIGID BODY", "a rigid body"},
    {"SPRING", "springs"},
    {"DASHPOT", "dashpots"},
    {"MASS", "point masses"},
    {"ROTARY INERTIA", "rotary inertia"},
    {"GAP", "gap elements"},
    {"ORIENTATION", "local material directions"},
    {"TRANSFORM", "local directions of nodal DOFs"},
    {"SHELL SECTION", "shell elements"},
    {"BEAM SECTION", "beam elements"},
    {"BEAM GENERAL SECTION", "beam elements"},
    {"MEMBRANE SECTION", "membrane elements"},
    {"CONTACT PAIR", "contact"},
    {"CONTACT", "contact"},
    {"SURFACE INTERACTION", "a contact interaction"},
    {"SURFACE BEHAVIOR", "a contact behaviour"},
    {"FRICTION", "friction"},
    {"PLASTIC", "plasticity"},
    {"EXPANSION", "thermal strains"},
    {"DAMPING", "material damping"},
    {"HYPERELASTIC", "hyperelasticity"},
    {"HYPERFOAM", "hyperelasticity"},
    {"VISCOELASTIC", "viscoelasticity"},
    {"CREEP", "creep"},
    {"USER MATERIAL", "a user material"},
    {"DEPVAR", "a user material"},
    {"CYCLIC SYMMETRY MODEL", "cyclic symmetry"},
    {"MODEL CHANGE", "removed or added elements"},
    {"CHANGE MATERIAL", "a changed material"},
    {"CHANGE SOLID SECTION", "a changed section"},
    {"PRE-TENSION SECTION", "a pre-tension"},
    {"NORMAL", "shell normals"},
    {"NODAL THICKNESS", "shell thicknesses"},
    {"SUBMODEL", "a submodel"},
};

/* A keyword that is not read: skipped with its data lines when harmless (recorded for the notice), an error otherwise. */
static PetscErrorCode InpSkip(InpReader *r)
{
  PetscInt    k;
  const char *v;

  PetscFunctionBeginUser;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(InpRefused); i++)
    PetscCheck(strcmp(r->kw, InpRefused[i].name), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": *%s (%s) changes the stiffness, mass or constraints of the model, and vicms does not implement it", r->src.file,
               r->src.line, r->kw, InpRefused[i].what);
  for (k = 0; k < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(InpSkippable); k++)
    if (!strcmp(r->kw, InpSkippable[k])) break;
  PetscCheck(k < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(InpSkippable), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *%s is not a keyword vicms reads; it is refused rather than skipped because it may change the stiffness, mass "
             "or constraints of the model (vicms skips only step, load and output keywords)",
             r->src.file, r->src.line, r->kw);
  /* a step with geometric nonlinearity prestresses the structure: its frequencies are those of another stiffness */
  v = InpParam(r, "NLGEOM", NULL);
  PetscCheck(strcmp(r->kw, "STEP") || !v || InpSame(v, "NO"), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *STEP, NLGEOM: a geometrically nonlinear step changes the stiffness (prestress), which vicms does not model; "
             "remove NLGEOM",
             r->src.file, r->src.line);
  v = InpParam(r, "TYPE", NULL);
  PetscCheck(strcmp(r->kw, "INITIAL CONDITIONS") || (v && InpSame(v, "TEMPERATURE")), PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "%s:%" PetscInt_FMT ": *INITIAL CONDITIONS, TYPE=%s is not supported (only TYPE=TEMPERATURE is skipped; vicms takes its initial "
             "state from its options)",
             r->src.file, r->src.line, v ? v : "(none)");
  for (k = 0; k < r->num_skipped; k++)
    if (!strcmp(r->skipped[k].name, r->kw)) break;
  if (k == r->num_skipped) {
    PetscCall(InpGrow(sizeof(InpSkipped), r->num_skipped + 1, &r->max_skipped, &r->skipped));
    PetscCall(PetscStrncpy(r->skipped[k].name, r->kw, INP_NAME_LEN));
    r->skipped[k].src   = r->src;
    r->skipped[k].count = 0;
    r->num_skipped++;
  }
  r->skipped[k].count++;
  if (!strcmp(r->kw, "INSTANCE")) {
    PetscBool has;
    VISource  kw_src = r->src;

    PetscCheck(r->num_instances++ == 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT
               ": a second *INSTANCE: vicms reads a deck of one part instance (or a flat deck), as the ids of several would clash",
               r->src.file, r->src.line);
    PetscCall(InpNextData(r, &has));
    PetscCheck(!has, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": *INSTANCE at line %" PetscInt_FMT " is translated or rotated, which vicms does not support", r->src.file,
               r->src.line, kw_src.line);
  }
  PetscCall(InpSkipData(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One notice for all skipped keywords, so that nothing is left out without a word and the word is said once. */
static PetscErrorCode InpNoticeSkipped(InpReader *r)
{
  const char *deck = r->files[0].name;

  PetscFunctionBeginUser;
  if (!r->num_skipped) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "mesh: %s: skipped keywords that do not change the model (steps, loads, output):", deck));
  for (PetscInt k = 0; k < r->num_skipped; k++) {
    const InpSkipped *sk        = &r->skipped[k];
    char              times[32] = "";

    if (sk->count > 1) PetscCall(PetscSNPrintf(times, sizeof(times), ", %" PetscInt_FMT " times", sk->count));
    if (sk->src.file == deck)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s *%s (line %" PetscInt_FMT "%s)", k ? "," : "", sk->name, sk->src.line, times));
    else
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s *%s (%s:%" PetscInt_FMT "%s)", k ? "," : "", sk->name, sk->src.file, sk->src.line, times));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One notice for the skin elements skipped: how many, of which types, where, and the node sets made of their element sets. */
static PetscErrorCode InpNoticeSkin(InpReader *r)
{
  const char *deck  = r->files[0].name;
  PetscInt    total = 0;

  PetscFunctionBeginUser;
  if (!r->num_skipped_skin) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < r->num_skipped_skin; k++) total += r->skipped_skin[k].count;
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "mesh: %s: skipped %" PetscInt_FMT
                        " skin elements (faces and edges of the %s without a *SOLID SECTION, as Gmsh's Abaqus export writes them):",
                        deck, total, r->has_solid ? "solids" : "plane elements"));
  for (PetscInt k = 0; k < r->num_skipped_skin; k++) {
    const InpSkinBlock *sk = &r->skipped_skin[k];
    if (sk->src.file == deck)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %" PetscInt_FMT " %s (line %" PetscInt_FMT ")", k ? "," : "", sk->count, sk->type, sk->src.line));
    else
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %" PetscInt_FMT " %s (%s:%" PetscInt_FMT ")", k ? "," : "", sk->count, sk->type, sk->src.file,
                            sk->src.line));
  }
  if (r->num_skin_nsets)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "; their element sets made node sets: %s%s", r->skin_nsets, r->num_skin_nsets > 8 ? ", ..." : ""));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ end of the deck */

/* The data line that added member i of set. */
static VISource InpChunkSource(const InpSet *set, PetscInt i)
{
  PetscInt lo = 0, hi = set->num_chunks - 1;

  while (lo < hi) {
    PetscInt mid = (lo + hi + 1) / 2;

    if (set->chunk_start[mid] <= i)
      lo = mid;
    else
      hi = mid - 1;
  }
  return set->chunk_src[lo];
}

static PetscErrorCode InpCheckMembers(InpSet *sets, PetscInt num, PetscInt n, const PetscInt sorted[], const char kind[])
{
  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < num; s++)
    for (PetscInt i = 0; i < sets[s].n; i++) {
      PetscInt pos;

      PetscCall(PetscFindInt(sets[s].ids[i], n, sorted, &pos));
      if (pos < 0) {
        VISource src = InpChunkSource(&sets[s], i);

        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": set '%s' lists %s %" PetscInt_FMT ", which is not defined", src.file,
                src.line, sets[s].name, kind, sets[s].ids[i]);
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Count a skipped skin element of type tname first seen at src, for the notice. */
static PetscErrorCode InpCountSkipped(InpReader *r, const char tname[], PetscInt dim, VISource src)
{
  PetscInt k;

  PetscFunctionBeginUser;
  for (k = 0; k < r->num_skipped_skin; k++)
    if (!strcmp(r->skipped_skin[k].type, tname)) break;
  if (k == r->num_skipped_skin) {
    PetscCall(InpGrow(sizeof(InpSkinBlock), k + 1, &r->max_skipped_skin, &r->skipped_skin));
    PetscCall(PetscMemzero(&r->skipped_skin[k], sizeof(InpSkinBlock)));
    PetscCall(PetscStrncpy(r->skipped_skin[k].type, tname, INP_NAME_LEN));
    r->skipped_skin[k].dim = dim;
    r->skipped_skin[k].src = src;
    r->num_skipped_skin++;
  }
  r->skipped_skin[k].count++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  The skin of the solids. Gmsh's Abaqus export (gmsh -save to .inp) writes, beside the solid elements, the faces and edges of the
  geometry (CPS3/CPS6 triangles, T3D2/T3D3 lines) with no section; they are not finite elements of the model (no material, no
  thickness or area) but name the faces that physical groups mark. So elements of a lower dimension than the highest in the deck
  and outside every *SOLID SECTION are skipped, said in a notice, and an element set of them becomes the node set of their nodes
  when the deck has no node set of that name (as the .msh reader makes node sets of physical groups). Lower-dimensional types
  vicms does not model are accepted only as such skin; anywhere else they are refused at their *ELEMENT line.
*/
static PetscErrorCode InpSkipSkin(InpReader *r)
{
  VIMesh     mesh = r->mesh;
  PetscInt   top = r->has_solid ? 3 : (r->has_plane ? 2 : (r->has_rod ? 1 : 0)), num_covered = 0, nsk = 0, nsk_nodes = 0;
  PetscInt  *covered = NULL, *sk_ids = NULL, *sk_perm = NULL, *sk_off = NULL, *sk_nodes = NULL, *sk_sorted = NULL;
  PetscBool *drop = NULL;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < r->num_skin_blocks; b++)
    if (r->skin_blocks[b].dim >= top) PetscCall(InpUnknownType(r->skin_blocks[b].type, r->skin_blocks[b].src));
  /* the elements a section gives a material */
  for (PetscInt q = 0; q < r->num_sections; q++) {
    PetscInt k;
    PetscCall(InpFindSet(r->num_esets, r->esets, r->sections[q].elset, &k));
    if (k >= 0) num_covered += r->esets[k].n;
  }
  PetscCall(PetscMalloc1(PetscMax(num_covered, 1), &covered));
  num_covered = 0;
  for (PetscInt q = 0; q < r->num_sections; q++) {
    PetscInt k;
    PetscCall(InpFindSet(r->num_esets, r->esets, r->sections[q].elset, &k));
    if (k < 0) continue;
    PetscCall(PetscArraycpy(covered + num_covered, r->esets[k].ids, r->esets[k].n));
    num_covered += r->esets[k].n;
  }
  PetscCall(PetscSortRemoveDupsInt(&num_covered, covered));

  /* the skipped elements, both kinds, with their nodes */
  PetscCall(PetscCalloc1(PetscMax(mesh->num_elems, 1), &drop));
  for (PetscInt e = 0; e < mesh->num_elems; e++) {
    PetscInt pos;
    if (VIElementInfoTable[mesh->elem_type[e]].ref_dim >= top) continue;
    PetscCall(PetscFindInt(mesh->elem_ids[e], num_covered, covered, &pos));
    if (pos >= 0) continue;
    drop[e] = PETSC_TRUE;
    nsk++;
    nsk_nodes += mesh->elem_offset[e + 1] - mesh->elem_offset[e];
  }
  for (PetscInt i = 0; i < r->num_skin; i++) {
    PetscInt pos;
    PetscCall(PetscFindInt(r->skin_ids[i], num_covered, covered, &pos));
    if (pos >= 0) {
      PetscInt b = 0;
      for (PetscInt c = 0; b < r->num_skin_blocks && c + r->skin_blocks[b].count <= i; b++) c += r->skin_blocks[b].count;
      PetscCall(PetscFree(covered));
      PetscCall(PetscFree(drop));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
              "%s:%" PetscInt_FMT ": element %" PetscInt_FMT " is a %s, which vicms does not model, and a *SOLID SECTION gives it a material",
              r->skin_blocks[b].src.file, r->skin_blocks[b].src.line, r->skin_ids[i], r->skin_blocks[b].type);
    }
  }
  PetscCall(PetscFree(covered));
  nsk += r->num_skin;
  nsk_nodes += r->num_skin_nodes;
  if (!nsk) {
    PetscCall(PetscFree(drop));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc5(nsk, &sk_ids, nsk, &sk_perm, nsk + 1, &sk_off, PetscMax(nsk_nodes, 1), &sk_nodes, nsk, &sk_sorted));
  nsk = nsk_nodes = 0;
  sk_off[0]       = 0;
  for (PetscInt e = 0; e < mesh->num_elems; e++) {
    if (!drop[e]) continue;
    for (PetscInt c = mesh->elem_offset[e]; c < mesh->elem_offset[e + 1]; c++) sk_nodes[nsk_nodes++] = mesh->elem_conn[c];
    sk_ids[nsk]   = mesh->elem_ids[e];
    sk_off[++nsk] = nsk_nodes;
    PetscCall(InpCountSkipped(r, VIElementInfoTable[mesh->elem_type[e]].name, VIElementInfoTable[mesh->elem_type[e]].ref_dim, mesh->elem_src[e]));
  }
  for (PetscInt b = 0, i = 0; b < r->num_skin_blocks; b++)
    for (PetscInt j = 0; j < r->skin_blocks[b].count; j++, i++) {
      for (PetscInt c = r->skin_off[i]; c < r->skin_off[i + 1]; c++) sk_nodes[nsk_nodes++] = r->skin_nodes[c];
      sk_ids[nsk]   = r->skin_ids[i];
      sk_off[++nsk] = nsk_nodes;
      PetscCall(InpCountSkipped(r, r->skin_blocks[b].type, r->skin_blocks[b].dim, r->skin_blocks[b].src));
    }
  PetscCall(VIMeshBuildDropElements(mesh, drop));
  PetscCall(PetscFree(drop));
  for (PetscInt i = 0; i < nsk; i++) {
    sk_perm[i]   = i;
    sk_sorted[i] = sk_ids[i];
  }
  PetscCall(PetscSortIntWithArray(nsk, sk_sorted, sk_perm));

  /* element sets lose their skin elements; a set of skin elements names their nodes */
  for (PetscInt set = 0; set < r->num_esets; set++) {
    InpSet  *es   = &r->esets[set];
    PetscInt kept = 0, removed = 0, ns, pos;
    char     name[INP_NAME_LEN];

    for (PetscInt i = 0; i < es->n; i++) {
      PetscCall(PetscFindInt(es->ids[i], nsk, sk_sorted, &pos));
      if (pos >= 0) removed++;
    }
    if (!removed) continue;
    PetscCall(PetscStrncpy(name, es->name, sizeof(name)));
    PetscCall(InpFindSet(r->num_nsets, r->nsets, name, &ns));
    if (ns < 0) {
      PetscCall(InpGetSet(r, PETSC_TRUE, name, &ns));
      r->nsets[ns].src = es->src;
      for (PetscInt i = 0; i < es->n; i++) {
        PetscInt sk;
        PetscCall(PetscFindInt(es->ids[i], nsk, sk_sorted, &pos));
        if (pos < 0) continue;
        sk = sk_perm[pos];
        PetscCall(InpSetAppend(&r->nsets[ns], sk_off[sk + 1] - sk_off[sk], sk_nodes + sk_off[sk], es->src));
      }
      if (r->num_skin_nsets++ < 8) {
        PetscCall(PetscStrlcat(r->skin_nsets, r->num_skin_nsets > 1 ? ", " : "", sizeof(r->skin_nsets)));
        PetscCall(PetscStrlcat(r->skin_nsets, name, sizeof(r->skin_nsets)));
      }
    }
    for (PetscInt i = 0; i < es->n; i++) {
      PetscCall(PetscFindInt(es->ids[i], nsk, sk_sorted, &pos));
      if (pos < 0) es->ids[kept++] = es->ids[i];
    }
    es->n = kept;
  }
  PetscCall(PetscFree5(sk_ids, sk_perm, sk_off, sk_nodes, sk_sorted));
  r->has_solid = r->has_plane = r->has_rod = PETSC_FALSE;
  for (PetscInt e = 0; e < mesh->num_elems; e++) {
    PetscInt d = VIElementInfoTable[mesh->elem_type[e]].ref_dim;
    if (d == 3)
      r->has_solid = PETSC_TRUE;
    else if (d == 2)
      r->has_plane = PETSC_TRUE;
    else
      r->has_rod = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Check what refers to what, hand sets and sections to the builder, set the spatial dimension. */
static PetscErrorCode InpFinish(InpReader *r)
{
  VIMesh mesh = r->mesh;

  PetscFunctionBeginUser;
  PetscCall(PetscSortInt(r->num_nodes, r->node_ids));
  PetscCall(PetscSortInt(r->num_elems, r->elem_ids));
  PetscCall(InpCheckMembers(r->nsets, r->num_nsets, r->num_nodes, r->node_ids, "node"));
  PetscCall(InpCheckMembers(r->esets, r->num_esets, r->num_elems, r->elem_ids, "element"));
  for (PetscInt b = 0; b < r->num_targets; b++) {
    InpTarget *t = &r->targets[b];
    PetscInt   k;

    if (!t->set[0]) {
      PetscCall(PetscFindInt(t->node, r->num_nodes, r->node_ids, &k));
      PetscCheck(k >= 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *BOUNDARY on node %" PetscInt_FMT ", which is not defined",
                 t->src.file, t->src.line, t->node);
      continue;
    }
    PetscCall(InpFindSet(r->num_nsets, r->nsets, t->set, &k));
    PetscCheck(k >= 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *BOUNDARY on node set '%s', which is not defined", t->src.file,
               t->src.line, t->set);
    PetscCheck(r->nsets[k].n > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": *NSET '%s' is empty (used by *BOUNDARY at %s:%" PetscInt_FMT ")", r->nsets[k].src.file, r->nsets[k].src.line,
               r->nsets[k].name, t->src.file, t->src.line);
  }
  PetscCall(InpSkipSkin(r));
  for (PetscInt s = 0; s < r->num_sections; s++) {
    InpSection *sec = &r->sections[s];
    PetscInt    m, k;

    PetscCall(VIMeshBuildFindMaterial(mesh, sec->material, &m));
    PetscCheck(m >= 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *SOLID SECTION: material '%s' is not defined", sec->src.file,
               sec->src.line, sec->material);
    PetscCheck(m < r->num_materials && r->materials[m].elastic, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": material '%s' (used by *SOLID SECTION at %s:%" PetscInt_FMT ") has no *ELASTIC",
               m < r->num_materials ? r->materials[m].src.file : sec->src.file, m < r->num_materials ? r->materials[m].src.line : sec->src.line,
               sec->material, sec->src.file, sec->src.line);
    PetscCheck(r->materials[m].density, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": material '%s' (used by *SOLID SECTION at %s:%" PetscInt_FMT ") has no *DENSITY", r->materials[m].src.file,
               r->materials[m].src.line, sec->material, sec->src.file, sec->src.line);
    PetscCall(InpFindSet(r->num_esets, r->esets, sec->elset, &k));
    PetscCheck(k >= 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": *SOLID SECTION on element set '%s', which is not defined",
               sec->src.file, sec->src.line, sec->elset);
    PetscCheck(r->esets[k].n > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "%s:%" PetscInt_FMT ": *ELSET '%s' is empty (used by *SOLID SECTION at %s:%" PetscInt_FMT ")", r->esets[k].src.file,
               r->esets[k].src.line, r->esets[k].name, sec->src.file, sec->src.line);
    PetscCall(VIMeshBuildAddSection(mesh, r->esets[k].name, m, sec->thickness, sec->src));
  }
  for (PetscInt s = 0; s < r->num_nsets; s++) PetscCall(VIMeshBuildAddToNodeSet(mesh, r->nsets[s].name, r->nsets[s].n, r->nsets[s].ids));
  for (PetscInt s = 0; s < r->num_esets; s++) PetscCall(VIMeshBuildAddToElementSet(mesh, r->esets[s].name, r->esets[s].n, r->esets[s].ids));
  if (r->has_solid || r->has_rod || mesh->nodes_only)
    mesh->dim = 3;
  else if (r->has_plane)
    mesh->dim = 2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode InpReadDeck(InpReader *r, const char path[])
{
  PetscFunctionBeginUser;
  PetscCall(InpPushFile(r, path));
  for (;;) {
    PetscBool end;

    PetscCall(InpNextLine(r, &end));
    if (end) break;
    PetscCheck(r->keyword, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "%s:%" PetscInt_FMT ": unexpected data line '%s'%s%s", r->src.file, r->src.line,
               r->line, r->kw[0] ? " after *" : " before the first keyword", r->kw);
    if (r->mesh->nodes_only) {
      /* a parent given as matrices: its elements (of any type), sections and clamps are the exporter's business */
      if (!strcmp(r->kw, "NODE"))
        PetscCall(InpReadNodes(r));
      else if (!strcmp(r->kw, "NSET"))
        PetscCall(InpReadSet(r, PETSC_TRUE));
      else
        PetscCall(InpSkipData(r));
      continue;
    }
    /* material options follow their *MATERIAL until another model keyword */
    if (!strcmp(r->kw, "NODE") || !strcmp(r->kw, "ELEMENT") || !strcmp(r->kw, "NSET") || !strcmp(r->kw, "ELSET") || !strcmp(r->kw, "BOUNDARY") ||
        !strcmp(r->kw, "SOLID SECTION") || !strcmp(r->kw, "STEP"))
      r->material = -1;
    if (!strcmp(r->kw, "NODE"))
      PetscCall(InpReadNodes(r));
    else if (!strcmp(r->kw, "ELEMENT"))
      PetscCall(InpReadElements(r));
    else if (!strcmp(r->kw, "NSET"))
      PetscCall(InpReadSet(r, PETSC_TRUE));
    else if (!strcmp(r->kw, "ELSET"))
      PetscCall(InpReadSet(r, PETSC_FALSE));
    else if (!strcmp(r->kw, "BOUNDARY"))
      PetscCall(InpReadBoundary(r));
    else if (!strcmp(r->kw, "MATERIAL"))
      PetscCall(InpReadMaterial(r));
    else if (!strcmp(r->kw, "ELASTIC"))
      PetscCall(InpReadElastic(r));
    else if (!strcmp(r->kw, "DENSITY"))
      PetscCall(InpReadDensity(r));
    else if (!strcmp(r->kw, "SOLID SECTION"))
      PetscCall(InpReadSection(r));
    else if (!strcmp(r->kw, "HEADING"))
      PetscCall(InpSkipData(r));
    else
      PetscCall(InpSkip(r));
  }
  PetscCall(InpFinish(r));
  PetscCall(InpNoticeSkipped(r));
  PetscCall(InpNoticeSkin(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode InpReaderDestroy(InpReader *r)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < r->depth; i++)
    if (r->files[i].fp) (void)fclose(r->files[i].fp);
  for (PetscInt s = 0; s < r->num_nsets + r->num_esets; s++) {
    InpSet *set = s < r->num_nsets ? &r->nsets[s] : &r->esets[s - r->num_nsets];

    PetscCall(PetscFree(set->ids));
    PetscCall(PetscFree(set->chunk_start));
    PetscCall(PetscFree(set->chunk_src));
  }
  PetscCall(PetscFree(r->nsets));
  PetscCall(PetscFree(r->esets));
  PetscCall(PetscFree(r->buf));
  PetscCall(PetscFree(r->kw_buf));
  PetscCall(PetscFree(r->field));
  PetscCall(PetscFree(r->node_ids));
  PetscCall(PetscFree(r->elem_ids));
  PetscCall(PetscFree(r->record));
  PetscCall(PetscFree(r->targets));
  PetscCall(PetscFree(r->sections));
  PetscCall(PetscFree(r->materials));
  PetscCall(PetscFree(r->skipped));
  PetscCall(PetscFree(r->skin_blocks));
  PetscCall(PetscFree(r->skin_ids));
  PetscCall(PetscFree(r->skin_off));
  PetscCall(PetscFree(r->skin_nodes));
  PetscCall(PetscFree(r->skipped_skin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  VIMeshReadAbaqus - read an Abaqus/CalculiX input deck into the mesh builder.

  Not collective: runs on the calling rank only. Reads *NODE, *ELEMENT, *NSET, *ELSET (with GENERATE and sets of sets),
  *BOUNDARY (homogeneous clamps), *MATERIAL with *ELASTIC and *DENSITY, *SOLID SECTION and *INCLUDE; other keywords are
  skipped with their data lines. Every error names the file and line. The caller runs VIMeshBuildFinish.

  Input:
+ mesh - the mesh being built
- path - the deck
*/
PetscErrorCode VIMeshReadAbaqus(VIMesh mesh, const char path[])
{
  InpReader      r;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&r, sizeof(r)));
  r.mesh     = mesh;
  r.material = -1;
  /* the reader's buffers and open files are released whether or not the deck was good */
  ierr = InpReadDeck(&r, path);
  PetscCall(InpReaderDestroy(&r));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
