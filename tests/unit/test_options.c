/* The option registry: every option name the sources read is in it with the type it is read with, every key of the
   shipped job files is known, suggestions for typos, the job-file checker's messages. */
#include <vicms.h>
#include "app/app.h"
#include <dirent.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond, ...)                                                                                                                            \
  do {                                                                                                                                               \
    if (!(cond)) {                                                                                                                                   \
      failures++;                                                                                                                                    \
      printf("FAIL: " __VA_ARGS__);                                                                                                                  \
      printf("\n");                                                                                                                                  \
    }                                                                                                                                                \
  } while (0)

/* The type a PetscOptions* reader (or cms.c's VIOptionsVector) reads, or -1 for calls that only look up a name. */
static int VIReaderType(const char *fn, size_t n)
{
  static const struct {
    const char *fn;
    int         type;
  } readers[] = {
      {"PetscOptionsReal", VI_OPTION_REAL},     {"PetscOptionsInt", VI_OPTION_INT},
      {"PetscOptionsBool", VI_OPTION_BOOL},     {"PetscOptionsEnum", VI_OPTION_ENUM},
      {"PetscOptionsString", VI_OPTION_STRING}, {"PetscOptionsRealArray", VI_OPTION_REALS},
      {"PetscOptionsIntArray", VI_OPTION_INTS}, {"PetscOptionsStringArray", VI_OPTION_STRINGS},
      {"VIOptionsVector", VI_OPTION_REALS},     {"PetscOptionsGetReal", VI_OPTION_REAL},
      {"PetscOptionsGetInt", VI_OPTION_INT},    {"PetscOptionsGetBool", VI_OPTION_BOOL},
  };
  for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
    if (strlen(readers[i].fn) == n && !strncmp(readers[i].fn, fn, n)) return readers[i].type;
  return -1;
}

/* Every literal "-name" of a source file: known to the registry (a load's time-function option, read under the prefix
   load_NAME_, as -load_*_name); the first argument of a typed reader has the reader's type. Returns how many. */
static int VIScanSource(const char *path)
{
  FILE  *f = fopen(path, "rb");
  char  *text;
  long   len;
  int    count = 0;
  size_t nread;

  if (!f) return 0;
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (PetscMalloc1(len + 1, &text)) return 0;
  nread       = fread(text, 1, (size_t)len, f);
  text[nread] = 0;
  fclose(f);
  for (char *q = strstr(text, "\"-"); q; q = strstr(q + 1, "\"-")) {
    char                 name[256], alias[300];
    size_t               n = 1;
    const VIOptionEntry *e;
    const char          *p, *fn;
    int                  type = -1;
    while ((q[1 + n] >= 'a' && q[1 + n] <= 'z') || (q[1 + n] >= '0' && q[1 + n] <= '9') || q[1 + n] == '_') n++;
    if (q[1 + n] != '"' || n < 2 || q[2] < 'a' || q[2] > 'z' || n >= sizeof(name)) continue;
    if (q[n] == '_') continue; /* a prefix ("-cms_"), not an option */
    memcpy(name, q + 1, n);
    name[n] = 0;
    e       = VIOptionsFind(name);
    if (!e && strstr(path, "excite")) {
      snprintf(alias, sizeof(alias), "-load_x_%s", name + 1);
      e = VIOptionsFind(alias);
    }
    EXPECT(e, "%s: the option %s is not in the registry (src/sys/options.c)", path, name);
    count++;
    /* the call this literal opens: back over blanks, "PetscOptionsObject," and '(' to the function name */
    p = q - 1;
    while (p > text && (*p == ' ' || *p == '\n')) p--;
    if (p > text && *p == ',') {
      const char *c = p - 1;
      while (c > text && (*c == ' ' || *c == '\n')) c--;
      if (c - text >= 17 && !strncmp(c - 17, "PetscOptionsObject", 18)) p = c - 18;
      while (p > text && (*p == ' ' || *p == '\n')) p--;
    }
    if (*p != '(') continue;
    fn = p;
    while (fn > text && ((fn[-1] >= 'a' && fn[-1] <= 'z') || (fn[-1] >= 'A' && fn[-1] <= 'Z'))) fn--;
    type = VIReaderType(fn, (size_t)(p - fn));
    if (e && type >= 0)
      EXPECT((int)e->type == type || (e->type == VI_OPTION_REAL_OR_AUTO && type == VI_OPTION_STRING),
             "%s: %s is read with %.*s, the registry has type %d", path, name, (int)(p - fn), fn, (int)e->type);
  }
  PetscFree(text);
  return count;
}

int main(int argc, char **argv)
{
  char      dir[PETSC_MAX_PATH_LEN] = "", path[2 * PETSC_MAX_PATH_LEN], s[256], message[1024];
  PetscBool set;
  int       literals = 0, files = 0, keys = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(VIAppRegisterOptions()); /* the modules' tables and the commands' (src/app/options.c, compiled in) */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-source_dir", dir, sizeof(dir), &set));
  PetscCheck(set, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "give -source_dir, the vicms source tree");

  /* 1. the registry against the sources: every src/<module>/<file>.c */
  {
    const char *modules[] = {"app", "cms", "contact", "ensemble", "excite", "fem", "io", "mesh", "rom", "step", "sys", "system"};
    for (size_t m = 0; m < sizeof(modules) / sizeof(modules[0]); m++) {
      DIR           *d;
      struct dirent *ent;
      snprintf(path, sizeof(path), "%s/src/%s", dir, modules[m]);
      d = opendir(path);
      EXPECT(d, "cannot list %s", path);
      if (!d) continue;
      while ((ent = readdir(d))) {
        size_t l = strlen(ent->d_name);
        if (l < 3 || strcmp(ent->d_name + l - 2, ".c") || !strcmp(ent->d_name, "options.c")) continue;
        snprintf(path, sizeof(path), "%s/src/%s/%s", dir, modules[m], ent->d_name);
        literals += VIScanSource(path);
        files++;
      }
      closedir(d);
    }
  }
  /* about 110 option names in some 20 files today: far fewer means the scan missed them */
  EXPECT(literals >= 100 && files >= 20, "scanned %d option names in %d files, expected >= 100 in >= 20", literals, files);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "registry: %d option names in %d source files checked\n", literals, files));

  /* 2. names: own, patterned, passed on, PETSc's, unknown */
  EXPECT(VIOptionsIsVicms("-step_dt"), "-step_dt");
  EXPECT(VIOptionsIsVicms("-load_xmax_ymax_zmax_sweep_percent"), "-load_xmax_ymax_zmax_sweep_percent");
  EXPECT(!strcmp(VIOptionsFind("-load_a_sweep_rate")->name, "-load_*_sweep_rate"), "-load_a_sweep_rate is a sweep rate");
  EXPECT(VIOptionsIsKnown("-cms_st_mat_mumps_icntl_14") && !VIOptionsIsVicms("-cms_st_mat_mumps_icntl_14"), "MUMPS under -cms_st_");
  EXPECT(VIOptionsIsKnown("-log_view") && VIOptionsIsKnown("-malloc_debug") && VIOptionsIsKnown("-no_signal_handler"), "PETSc's own");
  EXPECT(!VIOptionsIsKnown("-step_dtt") && !VIOptionsIsKnown("-load__type") && !VIOptionsIsKnown("-eps_nev"), "unknown names");

  /* 3. suggestions by edit distance */
  {
    const char *cases[][2] = {
        {"-step_dtt", "-step_dt"},          {"-cms_num_mode", "-cms_num_modes"},
        {"-contact_gapp", "-contact_gap"},  {"-step_tpye", "-step_type"},
        {"-log_veiw", "-log_view"},         {"-load_gravity_amplitud", "-load_gravity_amplitude"},
        {"-results_fiel", "-results_file"}, {"-xyzzy", ""},
        {"-completely_unrelated_name", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      VIOptionsSuggest(cases[i][0], s, sizeof(s));
      EXPECT(!strcmp(s, cases[i][1]), "suggestion for %s: '%s', expected '%s'", cases[i][0], s, cases[i][1]);
    }
  }

  /* 4. the job-file checker: the messages, with file and line */
  {
    const char *bad[][2] = {
        {"step_dt: 1e-3\n# comment\nstep_end_time: 1\nstep_dt: 2e-3\n", "duplicate key 'step_dt' (first at %s:1)"},
        {"step_dt: 1e-3\n  step_end_time: 1\n", "indented line"},
        {"step_dt 1e-3\n", "is not 'key: value'"},
        {"\nstep_dt:1e-3\n", "is not 'key: value'"},
        {"a: 1\nb: 2\nmesh_file: \"x.inp\n", "has no closing \""},
        {"-step_dt: 1\n", "without its dash"},
        {"cms: {type: cb}\n", "YAML that vicms job files do not use"},
    };
    const int line[] = {4, 2, 1, 2, 3, 1, 1};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      char  expect[512], where[PETSC_MAX_PATH_LEN + 16], tmp[] = "/tmp/vicms_test_options_XXXXXX.yaml";
      int   fd = mkstemps(tmp, 5);
      FILE *f  = fdopen(fd, "w");
      fputs(bad[i][0], f);
      fclose(f);
      EXPECT(VIOptionsCheckYAML(tmp, message, sizeof(message)) != 0, "case %d: accepted", (int)i);
      snprintf(where, sizeof(where), "%s:%d: ", tmp, line[i]);
      snprintf(expect, sizeof(expect), bad[i][1], tmp);
      EXPECT(!strncmp(message, where, strlen(where)) && strstr(message, expect), "case %d: message '%s', expected '%s...%s'", (int)i, message, where,
             expect);
      remove(tmp);
    }
  }

  /* 5. every shipped job file passes the checker, and each of its keys is a vicms option */
  {
    DIR           *d;
    struct dirent *ent;
    snprintf(path, sizeof(path), "%s/jobs", dir);
    d = opendir(path);
    EXPECT(d, "cannot list %s", path);
    while (d && (ent = readdir(d))) {
      size_t l = strlen(ent->d_name);
      FILE  *f;
      char   text[8192];
      if (l < 6 || strcmp(ent->d_name + l - 5, ".yaml")) continue;
      snprintf(path, sizeof(path), "%s/jobs/%s", dir, ent->d_name);
      EXPECT(VIOptionsCheckYAML(path, message, sizeof(message)) == 0, "%s refused: %s", path, message);
      f = fopen(path, "r");
      while (f && fgets(text, sizeof(text), f)) {
        char *colon = strchr(text, ':'), name[8200];
        if (text[0] == '#' || text[0] == '\n' || !colon) continue;
        *colon = 0;
        snprintf(name, sizeof(name), "-%s", text);
        EXPECT(VIOptionsIsVicms(name), "%s: key %s is not a vicms option", path, text);
        keys++;
      }
      if (f) fclose(f);
    }
    if (d) closedir(d);
    EXPECT(keys >= 50, "only %d keys in jobs/*.yaml", keys);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "jobs: %d keys of jobs/*.yaml known\n", keys));
  }

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", failures ? "FAILED" : "all option checks passed"));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
