/* The registry of every option name vicms knows, from the tables its modules register (each module declares its own
   options): unknown names and bad values refused at entry, job-file checks, -help. */
#include <vicms/sys.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

/* PETSc's generic options: the sys module's own rows (most are read, and so accepted, at start-up; these may be read later) */
static const VIOptionEntry VISysOptions[] = {
    {"-help", VI_OPTION_PETSC, NULL},
    {"-version", VI_OPTION_PETSC, NULL},
    {"-options_file", VI_OPTION_PETSC, NULL},
    {"-options_file_yaml", VI_OPTION_PETSC, NULL},
    {"-options_string_yaml", VI_OPTION_PETSC, NULL},
    {"-options_left", VI_OPTION_PETSC, NULL},
    {"-options_view", VI_OPTION_PETSC, NULL},
    {"-options_monitor", VI_OPTION_PETSC, NULL},
    {"-options_monitor_cancel", VI_OPTION_PETSC, NULL},
    {"-options_suppress_deprecated_warnings", VI_OPTION_PETSC, NULL},
    {"-log", VI_OPTION_PETSC, NULL},
    {"-log_view", VI_OPTION_PETSC, NULL},
    {"-log_view_memory", VI_OPTION_PETSC, NULL},
    {"-log_view_gpu_time", VI_OPTION_PETSC, NULL},
    {"-log_all", VI_OPTION_PETSC, NULL},
    {"-log_trace", VI_OPTION_PETSC, NULL},
    {"-log_exclude", VI_OPTION_PETSC, NULL},
    {"-log_sync", VI_OPTION_PETSC, NULL},
    {"-log_mpe", VI_OPTION_PETSC, NULL},
    {"-log_perfstubs", VI_OPTION_PETSC, NULL},
    {"-log_summary", VI_OPTION_PETSC, NULL},
    {"-info", VI_OPTION_PETSC, NULL},
    {"-info_exclude", VI_OPTION_PETSC, NULL},
    {"-malloc", VI_OPTION_PETSC, NULL},
    {"-malloc_debug", VI_OPTION_PETSC, NULL},
    {"-malloc_dump", VI_OPTION_PETSC, NULL},
    {"-malloc_view", VI_OPTION_PETSC, NULL},
    {"-malloc_view_threshold", VI_OPTION_PETSC, NULL},
    {"-malloc_info", VI_OPTION_PETSC, NULL},
    {"-malloc_test", VI_OPTION_PETSC, NULL},
    {"-malloc_requested_size", VI_OPTION_PETSC, NULL},
    {"-malloc_coalesce", VI_OPTION_PETSC, NULL},
    {"-malloc_hbw", VI_OPTION_PETSC, NULL},
    {"-memory_view", VI_OPTION_PETSC, NULL},
    {"-on_error_abort", VI_OPTION_PETSC, NULL},
    {"-on_error_attach_debugger", VI_OPTION_PETSC, NULL},
    {"-on_error_emacs", VI_OPTION_PETSC, NULL},
    {"-on_error_malloc_dump", VI_OPTION_PETSC, NULL},
    {"-on_error_mpiabort", VI_OPTION_PETSC, NULL},
    {"-no_signal_handler", VI_OPTION_PETSC, NULL},
    {"-fp_trap", VI_OPTION_PETSC, NULL},
    {"-start_in_debugger", VI_OPTION_PETSC, NULL},
    {"-stop_for_debugger", VI_OPTION_PETSC, NULL},
    {"-debugger_ranks", VI_OPTION_PETSC, NULL},
    {"-debugger_pause", VI_OPTION_PETSC, NULL},
    {"-debugger_nodes", VI_OPTION_PETSC, NULL},
    {"-display", VI_OPTION_PETSC, NULL},
    {"-mpi_return_on_error", VI_OPTION_PETSC, NULL},
    {"-get_total_flops", VI_OPTION_PETSC, NULL},
    {"-check_pointer_intensity", VI_OPTION_PETSC, NULL},
    {"-checkstack", VI_OPTION_PETSC, NULL},
    {"-objects_dump", VI_OPTION_PETSC, NULL},
    {"-skip_petscrc", VI_OPTION_PETSC, NULL},
    {"-petsc_ci", VI_OPTION_PETSC, NULL},
    {"-history", VI_OPTION_PETSC, NULL},
    {"-tmp", VI_OPTION_PETSC, NULL},
    {"-shared_tmp", VI_OPTION_PETSC, NULL},
    {"-not_shared_tmp", VI_OPTION_PETSC, NULL},
    {"-petsc_sleep", VI_OPTION_PETSC, NULL},
    {"-use_gpu_aware_mpi", VI_OPTION_PETSC, NULL},
    {"-nox", VI_OPTION_PETSC, NULL},
    {"-x_virtual", VI_OPTION_PETSC, NULL},
    {"-device_*", VI_OPTION_PETSC, NULL},
    {"-root_device_context_*", VI_OPTION_PETSC, NULL},
    {"-viewer_*", VI_OPTION_PETSC, NULL},
    {"-saws_*", VI_OPTION_PETSC, NULL},
};

/* The tables of the modules (VIOptionsRegisterTable), searched in the order registered, then sys's own. */
#define VI_MAX_OPTION_TABLES 64
static struct {
  const char          *module;
  const VIOptionEntry *rows;
  size_t               n;
} VIOptionTables[VI_MAX_OPTION_TABLES];
static int VINumOptionTables = 0;

PetscErrorCode VIOptionsRegisterTable(const char module[], const VIOptionEntry table[], size_t n)
{
  PetscFunctionBeginUser;
  for (int t = 0; t < VINumOptionTables; t++)
    if (VIOptionTables[t].rows == table) PetscFunctionReturn(PETSC_SUCCESS); /* once per table, however often a module registers */
  PetscCheck(VINumOptionTables < VI_MAX_OPTION_TABLES - 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "More than %d option tables (module %s)",
             VI_MAX_OPTION_TABLES - 1, module);
  VIOptionTables[VINumOptionTables].module = module;
  VIOptionTables[VINumOptionTables].rows   = table;
  VIOptionTables[VINumOptionTables].n      = n;
  VINumOptionTables++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The i-th row over every table (the modules' in order, then sys's), NULL past the last. */
static const VIOptionEntry *VIOptionRow(size_t i)
{
  for (int t = 0; t < VINumOptionTables; t++) {
    if (i < VIOptionTables[t].n) return &VIOptionTables[t].rows[i];
    i -= VIOptionTables[t].n;
  }
  return i < sizeof(VISysOptions) / sizeof(VISysOptions[0]) ? &VISysOptions[i] : NULL;
}

/* ------------------------------------------------------------------ names */

/* Does name match pattern? '*' matches one or more characters; only one '*' per pattern. */
static int VIMatch(const char *pattern, const char *name)
{
  const char *star = strchr(pattern, '*');
  size_t      lp, ls, ln = strlen(name);

  if (!star) return strcmp(pattern, name) == 0;
  lp = (size_t)(star - pattern);
  ls = strlen(star + 1);
  if (ln < lp + ls + 1) return 0;
  return strncmp(pattern, name, lp) == 0 && strcmp(name + ln - ls, star + 1) == 0;
}

const VIOptionEntry *VIOptionsFind(const char name[])
{
  const VIOptionEntry *best = NULL;

  if (!name) return NULL;
  /* an exact name wins over a pattern (-load_x_sweep_rate is a load's sweep rate, not the rate of a load x_sweep) */
  for (size_t i = 0; VIOptionRow(i); i++)
    if (!strchr(VIOptionRow(i)->name, '*') && !strcmp(VIOptionRow(i)->name, name)) return VIOptionRow(i);
  /* among patterns, the longest fixed part: -load_a_sweep_rate is -load_*_sweep_rate */
  for (size_t i = 0; VIOptionRow(i); i++) {
    const VIOptionEntry *e = VIOptionRow(i);
    if (strchr(e->name, '*') && VIMatch(e->name, name) && (!best || strlen(e->name) > strlen(best->name))) best = e;
  }
  return best;
}

PetscBool VIOptionsIsKnown(const char name[])
{
  return VIOptionsFind(name) ? PETSC_TRUE : PETSC_FALSE;
}

PetscBool VIOptionsIsVicms(const char name[])
{
  const VIOptionEntry *e = VIOptionsFind(name);
  return e && e->type != VI_OPTION_PASS && e->type != VI_OPTION_PETSC ? PETSC_TRUE : PETSC_FALSE;
}

/* Edit distance with transpositions (optimal string alignment); names are short, a 64 x 64 table suffices. */
static int VIDistance(const char *a, const char *b)
{
  int la = (int)strlen(a), lb = (int)strlen(b), d[65][65];

  if (la > 64 || lb > 64) return 1000;
  for (int i = 0; i <= la; i++) d[i][0] = i;
  for (int j = 0; j <= lb; j++) d[0][j] = j;
  for (int i = 1; i <= la; i++)
    for (int j = 1; j <= lb; j++) {
      int c = a[i - 1] == b[j - 1] ? 0 : 1, v = d[i - 1][j - 1] + c;
      if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v) v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[la][lb];
}

const char *VINearestWord(const char word[], const char *const words[], size_t n)
{
  const char *best  = NULL;
  int         dbest = 1000;

  for (size_t i = 0; i < n; i++) {
    int d = VIDistance(word, words[i]);
    if (d < dbest) {
      dbest = d;
      best  = words[i];
    }
  }
  /* as for option names: at most one edit in four characters, and at least one; a prefix of a word also counts (simulat) */
  for (size_t i = 0; i < n && dbest > 1 + (int)strlen(word) / 4; i++)
    if (strlen(word) >= 3 && !strncmp(words[i], word, strlen(word))) return words[i];
  return dbest <= 1 + (int)strlen(word) / 4 ? best : NULL;
}

void VIOptionsSuggest(const char name[], char suggestion[], size_t len)
{
  int  best = 1000;
  char cand[256];

  suggestion[0] = 0;
  for (size_t i = 0; VIOptionRow(i); i++) {
    const char *p = VIOptionRow(i)->name, *star = strchr(p, '*');
    if (!star) {
      int d = VIDistance(name, p);
      if (d < best) {
        best = d;
        snprintf(suggestion, len, "%s", p);
      }
    } else if (star[1] && !strncmp(name, p, (size_t)(star - p))) {
      /* a load option: the load's name is the name's own, cut at each '_' after the prefix */
      size_t lp = (size_t)(star - p);
      for (const char *c = name + lp + 1; *c; c++) {
        if (*c != '_') continue;
        snprintf(cand, sizeof(cand), "%.*s%s", (int)(c - name), name, star + 1);
        int d = VIDistance(name, cand);
        if (d < best) {
          best = d;
          snprintf(suggestion, len, "%s", cand);
        }
      }
    }
  }
  /* far names are no suggestion: at most one edit in four characters, and at least one */
  if (best > 1 + (int)strlen(name) / 4) suggestion[0] = 0;
}

/* ------------------------------------------------------------------ checks of the options database */

/* The value as the user wrote it, for messages. */
static PetscErrorCode VIOptionsRawValue(const char name[], char value[], size_t len)
{
  PetscBool set;

  PetscFunctionBeginUser;
  value[0] = 0;
  PetscCall(PetscOptionsGetString(NULL, NULL, name, value, len, &set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Parse the value of one known option with PETSc's own reader of its type; a failed read becomes a one-line message. */
static PetscErrorCode VIOptionsCheckValue(MPI_Comm comm, const char name[], const VIOptionEntry *e)
{
  char           raw[4096];
  PetscErrorCode ierr = PETSC_SUCCESS;
  PetscBool      set, finite = PETSC_TRUE;
  PetscInt       n = 1024, nbad = -1;

  PetscFunctionBeginUser;
  PetscCall(VIOptionsRawValue(name, raw, sizeof(raw)));
  /* PETSc's readers raise errors with tracebacks on every rank; here they only return */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  switch (e->type) {
  case VI_OPTION_REAL: {
    PetscReal v;
    ierr = PetscOptionsGetReal(NULL, NULL, name, &v, &set);
    if (!ierr && set && PetscIsInfOrNanReal(v)) finite = PETSC_FALSE;
  } break;
  case VI_OPTION_REAL_OR_AUTO: {
    PetscReal v;
    PetscBool is_auto;
    ierr = PetscStrcasecmp(raw, "auto", &is_auto);
    if (!ierr && !is_auto) ierr = PetscOptionsGetReal(NULL, NULL, name, &v, &set);
    if (!ierr && !is_auto && set && PetscIsInfOrNanReal(v)) finite = PETSC_FALSE;
  } break;
  case VI_OPTION_INT: {
    PetscInt v;
    ierr = PetscOptionsGetInt(NULL, NULL, name, &v, &set);
  } break;
  case VI_OPTION_BOOL: {
    PetscBool v;
    ierr = PetscOptionsGetBool(NULL, NULL, name, &v, &set);
  } break;
  case VI_OPTION_ENUM: {
    PetscEnum v;
    ierr = PetscOptionsGetEnum(NULL, NULL, name, e->choices, &v, &set);
  } break;
  case VI_OPTION_REALS: {
    PetscReal *v;
    ierr = PetscMalloc1(n, &v);
    if (!ierr) ierr = PetscOptionsGetRealArray(NULL, NULL, name, v, &n, &set);
    for (PetscInt i = 0; !ierr && i < n; i++)
      if (PetscIsInfOrNanReal(v[i])) {
        finite = PETSC_FALSE;
        nbad   = i + 1;
        break;
      }
    if (PetscFree(v)) ierr = PETSC_ERR_MEM;
  } break;
  case VI_OPTION_INTS: {
    PetscInt *v;
    ierr = PetscMalloc1(n, &v);
    if (!ierr) ierr = PetscOptionsGetIntArray(NULL, NULL, name, v, &n, &set);
    if (PetscFree(v)) ierr = PETSC_ERR_MEM;
  } break;
  default:
    break;
  }
  PetscCall(PetscPopErrorHandler());
  if (e->type == VI_OPTION_ENUM && ierr) {
    char list[1024] = "";
    int  nc         = 0;
    while (e->choices[nc]) nc++;
    for (int i = 0; i < nc - 2; i++) /* the list ends with the type name, the prefix, NULL */ {
      PetscCall(PetscStrlcat(list, i ? ", " : "", sizeof(list)));
      PetscCall(PetscStrlcat(list, e->choices[i], sizeof(list)));
    }
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s: '%s' is not one of %s", name, raw, list);
  }
  PetscCheck(!ierr, comm, PETSC_ERR_USER_INPUT, "%s: '%s' is not %s", name, raw,
             e->type == VI_OPTION_REAL           ? "a number"
             : e->type == VI_OPTION_REAL_OR_AUTO ? "a number or auto"
             : e->type == VI_OPTION_INT          ? "an integer"
             : e->type == VI_OPTION_BOOL         ? "true or false"
             : e->type == VI_OPTION_REALS        ? "a comma-separated list of numbers"
                                                 : "a comma-separated list of integers");
  PetscCheck(finite || nbad < 0, comm, PETSC_ERR_USER_INPUT, "%s: entry %" PetscInt_FMT " of '%s' is not a finite number", name, nbad, raw);
  PetscCheck(finite, comm, PETSC_ERR_USER_INPUT, "%s: '%s' is not a finite number", name, raw);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIOptionsCheck(MPI_Comm comm)
{
  PetscInt n;
  char   **names, **values;

  PetscFunctionBeginUser;
  /* the options nobody has read yet: PETSc's and SLEPc's start-up have read theirs, vicms's commands have not started */
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt i = 0; i < n; i++) {
    char                 name[512], suggestion[256];
    const VIOptionEntry *e;
    PetscErrorCode       ierr;

    PetscCall(PetscSNPrintf(name, sizeof(name), "%s%s", names[i][0] == '-' ? "" : "-", names[i]));
    e = VIOptionsFind(name);
    if (!e) {
      VIOptionsSuggest(name, suggestion, sizeof(suggestion));
      PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
      PetscCheck(!suggestion[0], comm, PETSC_ERR_USER_INPUT, "unknown option %s (did you mean %s?)", name, suggestion);
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "unknown option %s (vicms COMMAND -help lists the options)", name);
    }
    ierr = VIOptionsCheckValue(comm, name, e);
    if (ierr) {
      PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
      PetscCall(ierr);
    }
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  /* the case parameters too, so that `vicms run` stops on a misspelt one before it reduces */
  {
    const char *axes[] = {"-cases_grid", "-cases_values", "-cases_random"};
    for (int a = 0; a < 3; a++) {
      char          *items[64];
      PetscInt       m = 64;
      PetscBool      set;
      PetscErrorCode ierr = PETSC_SUCCESS;
      PetscCall(PetscOptionsGetStringArray(NULL, NULL, axes[a], items, &m, &set));
      for (PetscInt i = 0; i < m; i++) {
        char *colon = strchr(items[i], ':');
        if (colon) *colon = 0;
        if (!ierr) ierr = VIOptionsCheckCaseParameter(comm, axes[a], items[i]);
        PetscCall(PetscFree(items[i]));
      }
      PetscCall(ierr);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VIOptionsCheckCaseParameter(MPI_Comm comm, const char option[], const char param[])
{
  char                 name[512], suggestion[256];
  const VIOptionEntry *e;

  PetscFunctionBeginUser;
  {
    /* a malformed axis rather than a misspelt name: the name is followed by something else than ':' (contact_gap=1/2), or
       the item is a value after a ',' that split the axis (contact_gap:1,2) */
    size_t k = strspn(param, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_*");
    char   head[256];
    PetscCheck(param[0] && !isdigit((unsigned char)param[0]) && param[0] != '-' && param[0] != '.', comm, PETSC_ERR_USER_INPUT,
               "%s: '%s' is not a case parameter's name: an axis is %s, and axes are separated by ','%s", option, param,
               !strcmp(option, "-cases_grid")     ? "NAME:FROM:TO:N[:log]"
               : !strcmp(option, "-cases_values") ? "NAME:V1/V2/..."
                                                  : "NAME:DISTRIBUTION:A:B",
               !strcmp(option, "-cases_values") ? " (the values of one axis by '/')" : "");
    if (param[k]) {
      PetscCall(PetscSNPrintf(head, sizeof(head), "-%.*s", (int)PetscMin(k, sizeof(head) - 2), param));
      PetscCheck(!VIOptionsIsVicms(head), comm, PETSC_ERR_USER_INPUT, "%s: '%s' is not an axis: the name %s is followed by '%c', expected ':'",
                 option, param, head + 1, param[k]);
    }
  }
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", param));
  e = VIOptionsFind(name);
  if (!e || !VIOptionsIsVicms(name)) {
    VIOptionsSuggest(name, suggestion, sizeof(suggestion));
    PetscCheck(!suggestion[0], comm, PETSC_ERR_USER_INPUT, "%s: unknown case parameter '%s' (did you mean %s?)", option, param, suggestion + 1);
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s: unknown case parameter '%s' (a case parameter is a numeric case option without its dash)", option,
            param);
  }
  PetscCheck(e->type == VI_OPTION_REAL || e->type == VI_OPTION_REAL_OR_AUTO || e->type == VI_OPTION_INT || e->type == VI_OPTION_BOOL, comm,
             PETSC_ERR_USER_INPUT, "%s: the case parameter '%s' is not a numeric option", option, param);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ job files */

/* The keys that make PETSc read options from elsewhere: PETSc takes them from the command line only, and in a file they
   are stored as plain options that nothing reads (the job named there would silently not run) */
static const char *VIOptionsNestedKey(const char *key, size_t k)
{
  static const char *const nested[] = {"options_file", "options_file_yaml", "options_string_yaml", "prefix_push", "prefix_pop"};
  for (size_t i = 0; i < sizeof(nested) / sizeof(nested[0]); i++)
    if (strlen(nested[i]) == k && !strncmp(key, nested[i], k)) return nested[i];
  return NULL;
}

/* Lines of a job file read one at a time with their length (getline), so that a NUL byte (a binary file) is seen: NULL at the
   end of the file or on an error, with message set for the error. */
static char *VIOptionsLine(FILE *f, const char path[], int lineno, char **buf, size_t *cap, char message[], size_t len)
{
  ssize_t n = getline(buf, cap, f);

  if (n < 0) return NULL;
  if ((size_t)n != strlen(*buf)) {
    snprintf(message, len, "%s:%d: a NUL byte: not a text file (a job file holds 'key: value' lines)", path, lineno);
    return NULL;
  }
  if (n > 8192) {
    snprintf(message, len, "%s:%d: line longer than %d characters", path, lineno, 8192);
    return NULL;
  }
  if (lineno == 1 && !strncmp(*buf, "\xEF\xBB\xBF", 3)) {
    snprintf(message, len,
             "%s:1: the file starts with a UTF-8 byte-order mark (the bytes EF BB BF), which would become part of its first key: save it as "
             "UTF-8 without a BOM",
             path);
    return NULL;
  }
  return *buf;
}

/* The flat YAML subset of vicms jobs: comments, blank lines, `key: value` at column 0 (value optional, quoted or a
   [flow, list] on one line); anything else is refused with its line, and so is a key given twice. */
int VIOptionsCheckYAML(const char path[], char message[], size_t len)
{
  FILE  *f = fopen(path, "r");
  char  *line, *buf = NULL;
  size_t cap    = 0;
  int    lineno = 0, nkeys = 0;
  struct {
    char key[128];
    int  line;
  } * keys;
  const int maxkeys = 1024;

  message[0] = 0;
  if (!f) {
    snprintf(message, len, "-options_file: cannot open %s: %s", path, strerror(errno));
    return 1;
  }
  keys = malloc(maxkeys * sizeof(*keys));
  if (!keys) {
    fclose(f);
    snprintf(message, len, "-options_file: out of memory reading %s", path);
    return 1;
  }
  while ((line = VIOptionsLine(f, path, lineno + 1, &buf, &cap, message, len))) {
    size_t      l = strlen(line), k = 0;
    const char *v, *nested;

    lineno++;
    while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
    {
      const char *p = line;
      while (*p == ' ') p++;
      if (!*p || *p == '#') continue;
      if (!strcmp(line, "---") || !strcmp(line, "...")) continue;
      if (*p == '\t' || p != line) {
        snprintf(message, len, "%s:%d: indented line '%s'; vicms job files are flat lists of 'key: value' lines starting at the first column", path,
                 lineno, line);
        break;
      }
    }
    if (line[0] == '-') {
      snprintf(message, len, "%s:%d: '%s': write the option name without its dash ('key: value')", path, lineno, line);
      break;
    }
    while (isalnum((unsigned char)line[k]) || line[k] == '_') k++;
    if (k == 0 || line[k] != ':' || (line[k + 1] && line[k + 1] != ' ' && line[k + 1] != '\t')) {
      snprintf(message, len, "%s:%d: '%s' is not 'key: value' (a key is letters, digits and '_', then ': ', then the value)", path, lineno, line);
      break;
    }
    if (k >= sizeof(keys[0].key)) {
      snprintf(message, len, "%s:%d: key longer than %d characters", path, lineno, (int)sizeof(keys[0].key) - 1);
      break;
    }
    v = line + k + 1;
    while (*v == ' ' || *v == '\t') v++;
    if ((nested = VIOptionsNestedKey(line, k))) {
      snprintf(message, len,
               "%s:%d: '%s': a job file cannot name another (PETSc reads %s only from the command line, so it would be ignored): give each "
               "file on the command line, -options_file %s -options_file %s",
               path, lineno, line, nested, path, *v ? v : "OTHER.yaml");
      break;
    }
    if (*v == '"' || *v == '\'' || *v == '[') {
      char        close = *v == '[' ? ']' : *v;
      const char *c     = strchr(v + 1, close);
      if (!c) {
        snprintf(message, len, "%s:%d: the value %s has no closing %c", path, lineno, v, close);
        break;
      }
    } else if (*v == '{' || *v == '&' || *v == '*' || *v == '|' || *v == '>' || *v == '!') {
      snprintf(message, len, "%s:%d: the value '%s' is YAML that vicms job files do not use (write a plain value)", path, lineno, v);
      break;
    }
    for (int i = 0; i < nkeys; i++)
      if (strlen(keys[i].key) == k && !strncmp(keys[i].key, line, k)) {
        snprintf(message, len, "%s:%d: duplicate key '%.*s' (first at %s:%d)", path, lineno, (int)k, line, path, keys[i].line);
        break;
      }
    if (message[0]) break;
    if (nkeys == maxkeys) {
      snprintf(message, len, "%s:%d: more than %d keys", path, lineno, nkeys);
      break;
    }
    memcpy(keys[nkeys].key, line, k);
    keys[nkeys].key[k] = 0;
    keys[nkeys].line   = lineno;
    nkeys++;
  }
  free(buf);
  free(keys);
  fclose(f);
  return message[0] ? 1 : 0;
}

/* PETSc's own format, for a job file whose name does not end in .yaml or .yml: `-option [value]` lines, `#` comments,
   `alias -a -b`. A `key: value` line there is a YAML job under another name (PETSc would stop on it with a traceback). */
static int VIOptionsCheckPlain(const char path[], char message[], size_t len)
{
  FILE  *f = fopen(path, "r");
  char  *line, *buf = NULL;
  size_t cap    = 0;
  int    lineno = 0;

  message[0] = 0;
  if (!f) {
    snprintf(message, len, "-options_file: cannot open %s: %s", path, strerror(errno));
    return 1;
  }
  while ((line = VIOptionsLine(f, path, lineno + 1, &buf, &cap, message, len))) {
    char *hash = strchr(line, '#'), *tok[3] = {NULL, NULL, NULL}, *save = NULL;
    int   nt = 0;

    lineno++;
    if (hash) *hash = 0;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
      if (nt < 3) tok[nt] = t;
      nt++;
    }
    if (!nt) continue;
    if (!strcmp(tok[0], "alias")) continue;
    if (tok[0][0] != '-') {
      size_t k = 0;
      while (isalnum((unsigned char)tok[0][k]) || tok[0][k] == '_') k++;
      if (k && tok[0][k] == ':')
        snprintf(message, len,
                 "%s:%d: '%s' is a YAML 'key: value' line, but a job file whose name does not end in .yaml or .yml is read as PETSc's "
                 "'-option value' lines: rename it (e.g. job.yaml)",
                 path, lineno, tok[0]);
      else
        snprintf(message, len,
                 "%s:%d: '%s' is not an option: a line of this file is '-option [value]' (or name the file .yaml for 'key: value' lines)", path,
                 lineno, tok[0]);
      break;
    }
    if (nt > 2) {
      snprintf(message, len, "%s:%d: more than '-option value' on one line ('%s')", path, lineno, tok[2]);
      break;
    }
    if (VIOptionsNestedKey(tok[0] + 1, strlen(tok[0] + 1))) {
      snprintf(message, len,
               "%s:%d: %s inside a job file: give each file on the command line, -options_file %s -options_file %s (vicms checks them there "
               "before any rank reads them)",
               path, lineno, tok[0], path, tok[1] ? tok[1] : "OTHER");
      break;
    }
  }
  free(buf);
  fclose(f);
  return message[0] ? 1 : 0;
}

int VIOptionsCheckJobFile(const char option[], const char path[], char message[], size_t len)
{
  struct stat st;
  size_t      n    = strlen(path);
  int         yaml = !strcmp(option, "-options_file_yaml") || (n > 5 && !strcmp(path + n - 5, ".yaml")) || (n > 4 && !strcmp(path + n - 4, ".yml"));
  const long long max_bytes = 8LL << 20;

  message[0] = 0;
  /* the type first: opening a FIFO waits for a writer, /dev/zero never ends, a directory opens but does not read */
  if (stat(path, &st)) {
    snprintf(message, len, "%s: cannot open %s: %s%s", option, path, strerror(errno),
             !strncmp(path, "/dev/fd/", 8) ? " (a <(...) of the shell does not reach the ranks mpirun starts: write the job to a file)" : "");
    return 1;
  }
  if (S_ISDIR(st.st_mode)) {
    snprintf(message, len, "%s: %s is a directory; expected a job file (flat 'key: value' lines, e.g. jobs/bar_bounce.yaml)", option, path);
    return 1;
  }
  if (S_ISFIFO(st.st_mode)) {
    snprintf(message, len,
             "%s: %s is a pipe or FIFO (as the shell's <(...) makes); expected a regular file: write the job to a file (a pipe reaches one rank "
             "only, and a FIFO without a writer never ends)",
             option, path);
    return 1;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(message, len, "%s: %s is a %s, not a regular file; expected a job file (flat 'key: value' lines)", option, path,
             S_ISCHR(st.st_mode)    ? "character device"
             : S_ISBLK(st.st_mode)  ? "block device"
             : S_ISSOCK(st.st_mode) ? "socket"
                                    : "special file");
    return 1;
  }
  if ((long long)st.st_size > max_bytes) {
    snprintf(message, len, "%s: %s has %lld bytes, more than the %lld MB of the largest job file (1024 lines of at most 8192 characters)", option,
             path, (long long)st.st_size, max_bytes >> 20);
    return 1;
  }
  return yaml ? VIOptionsCheckYAML(path, message, len) : VIOptionsCheckPlain(path, message, len);
}

/* ------------------------------------------------------------------ -help */

/* PETSc prints its help in pieces; lines are assembled, and only the sections' lines of vicms's options are kept. */
static char      help_line[8192], help_title[1024];
static size_t    help_len;
static PetscBool help_after_rule, help_title_printed, help_keep;

/* An option's line as a user reads it: PETSc writes its value as <now A : formerly B> (strings, integers, enums) or
   <A : B> (reals, booleans: "-name: <A : B>"), B being the default, and of a list only the first entry; here it is <A>,
   or <A, default B> when a job changed it, a list is <v1,v2,...> (its help text says its default), and the empty
   manual-page reference "()" or a function name in parentheses at the end is dropped. */
static void VIHelpTidy(const char *line, const char *name, char *out, size_t len)
{
  const VIOptionEntry *e  = name[0] ? VIOptionsFind(name) : NULL;
  const char          *lt = strchr(line, '<'), *gt = lt ? strchr(lt, '>') : NULL, *rest;
  char                 a[2048], b[2048], *sep;
  size_t               head, n;
  PetscBool            has_b = PETSC_FALSE;

  if (!e || !lt || !gt || (size_t)(gt - lt) >= sizeof(a)) {
    snprintf(out, len, "%s", line);
    return;
  }
  head = (size_t)(lt - line);
  while (head && (line[head - 1] == ' ' || line[head - 1] == ':')) head--; /* booleans: "-name: <A : B>" */
  memcpy(a, lt + 1, (size_t)(gt - lt - 1));
  a[gt - lt - 1] = 0;
  b[0]           = 0;
  if (!strncmp(a, "now ", 4)) memmove(a, a + 4, strlen(a + 4) + 1);
  if ((sep = strstr(a, " : formerly ")) || (sep = strstr(a, " : "))) {
    snprintf(b, sizeof(b), "%s", sep + (sep[3] == 'f' ? 12 : 3));
    *sep  = 0;
    has_b = PETSC_TRUE;
  }
  rest = gt + 1;
  if (*rest == ':') rest++;
  if (e->type == VI_OPTION_REALS || e->type == VI_OPTION_INTS)
    snprintf(a, sizeof(a), "v1,v2,...");
  else if (!a[0])
    snprintf(a, sizeof(a), "none");
  if (e->type == VI_OPTION_REALS || e->type == VI_OPTION_INTS || !has_b || !strcmp(a, b) || (!b[0] && !strcmp(a, "none")))
    snprintf(out, len, "%.*s <%s>:%s", (int)head, line, a, rest);
  else
    snprintf(out, len, "%.*s <%s, default %s>:%s", (int)head, line, a, b[0] ? b : "none", rest);
  /* the manual-page reference at the end: "()" or "(VIName)" */
  n = strlen(out);
  if (n && out[n - 1] == ')') {
    char *open = strrchr(out, '(');
    if (open && open > out && open[-1] == ' ' && (open[1] == ')' || !strncmp(open + 1, "VI", 2) || !strncmp(open + 1, "Petsc", 5))) {
      PetscBool word = PETSC_TRUE;
      for (const char *c = open + 1; *c && *c != ')'; c++)
        if (!isalnum((unsigned char)*c) && *c != '_') word = PETSC_FALSE;
      if (word) open[-1] = 0;
    }
  }
}

static PetscErrorCode VIHelpLine(MPI_Comm comm, const char *line)
{
  const char *p         = line;
  size_t      n         = 0;
  char        name[256] = "";

  PetscFunctionBeginUser;
  if (strlen(line) >= 10 && strspn(line, "-") == strlen(line)) {
    help_after_rule = PETSC_TRUE;
    help_keep       = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (help_after_rule) {
    help_after_rule = PETSC_FALSE;
    PetscCall(PetscStrncpy(help_title, line, sizeof(help_title)));
    help_title_printed = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  while (*p == ' ') p++;
  if (p != line && *p == '-') {
    while (p[n] && p[n] != ' ' && p[n] != ':' && p[n] != '<' && n < sizeof(name) - 1) n++;
    memcpy(name, p, n);
    name[n]   = 0;
    help_keep = VIOptionsIsVicms(name);
    if (help_keep && !help_title_printed) {
      PetscCall(PetscHelpPrintfDefault(comm, "%s\n", help_title));
      help_title_printed = PETSC_TRUE;
    }
  }
  if (help_keep) {
    char tidy[sizeof(help_line) + 64];
    VIHelpTidy(line, name, tidy, sizeof(tidy));
    PetscCall(PetscHelpPrintfDefault(comm, "%s\n", tidy));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode VIHelpPrintf(MPI_Comm comm, const char format[], ...)
{
  char    piece[8192];
  va_list ap;

  PetscFunctionBeginUser;
  va_start(ap, format);
  vsnprintf(piece, sizeof(piece), format, ap);
  va_end(ap);
  for (const char *c = piece; *c; c++) {
    if (*c == '\n' || help_len == sizeof(help_line) - 1) {
      help_line[help_len] = 0;
      help_len            = 0;
      PetscCall(VIHelpLine(comm, help_line));
      if (*c == '\n') continue;
    }
    help_line[help_len++] = *c;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void VIOptionsFilterHelp(void)
{
  PetscHelpPrintf = VIHelpPrintf;
}

PetscErrorCode VIOptionsTypeList(PetscOptionItems *PetscOptionsObject, const char opt[], const char text[], PetscFunctionList list,
                                 const char current[], char value[], size_t len, PetscBool *set)
{
  const char **names;
  int          n;
  char         help[1024];
  size_t       k;

  PetscFunctionBeginUser;
  /* PETSc's PetscOptionsFList prints its help line to stdout directly, past -help's filter (untidied, before its section) */
  PetscCall(PetscFunctionListGet(list, &names, &n));
  k = (size_t)snprintf(help, sizeof(help), "%s (choose one of)", text);
  for (int i = 0; i < n && k < sizeof(help); i++)
    if (names[i]) k += (size_t)snprintf(help + k, sizeof(help) - k, " %s", names[i]);
  PetscCall(PetscFree(names));
  PetscCall(PetscOptionsString(opt, help, "", current, value, len, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}
