/* layout.c — the framework's shape, checked. */
/* Its include graph has no cycle and respects the layers, the supervisor's
 * side never sees CUDA, every function is named for its file, every source
 * file opens with a short purpose line. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "selftest.h"

/* The layers of framework/src, each allowed to include only what the
 * table says ("" is the entry: run.c and main.c, above both processes). */
#define SHARED "util stats io host baseline record cli"
static const struct {
  const char *dir, *may_include;
  int no_cuda; /* its files (headers and sources) never reach a CUDA header */
  int shared;  /* both processes use it: its headers never reach one either */
} layers[] = {
    /* the floors both processes stand on, lowest first */
    {"util", "util", 0, 1},       /* errors, growing buffers, units, names, the registry */
    {"stats", "util stats", 0, 1}, /* medians, intervals, distributions, the seeded rng */
    {"io", "util io", 0, 1},       /* files and JSON */
    {"host", "util stats io host", 0, 1}, /* clocks, the host's CPUs and load, the preflight */
    {"baseline", "util stats io host baseline", 0, 1}, /* baseline files, their rule, traces */
    {"record", "util stats io host baseline record", 0, 1}, /* claim records, the wire */
    {"cli", SHARED, 0, 1},         /* the command line and the CI's shard */
    {"worker", SHARED " worker", 0, 0},
    {"history", SHARED " history", 1, 0},
    {"report", SHARED " history report", 1, 0},
    {"supervisor", SHARED " history report supervisor", 1, 0},
    {"", SHARED " worker history report supervisor", 0, 0},
};
enum { NLAYERS = sizeof layers / sizeof layers[0], MAX_FILES = 512, MAX_INC = 48 };

typedef struct file {
  char path[160];   /* "worker/claim/compare.c" */
  char module[160]; /* "worker/compare" */
  int layer;
  int cuda;         /* includes a CUDA header itself */
  char inc[MAX_INC][160]; /* framework headers it includes ("io/json.h") */
  int ninc;
  char bare[160];   /* a quoted include without its folder ("json.h"), or "" */
} file;

typedef struct tree {
  file f[MAX_FILES];
  int n;
} tree;

/* 1 for a header that brings CUDA in: the toolkit's, CUPTI's, NVML's, or
 * perfgate.h (which includes cuda_runtime_api.h; its plain-C part alone,
 * included with PERF_ABI_ONLY defined, does not). */
static int is_cuda(const char *name, char quote)
{
  if (!strcmp(name, "perfgate.h")) return 1;
  if (quote == '"') return 0;
  static const char *const pre[] = {"cuda", "cupti", "nvml", "cublas", "nvtx", "cooperative_"};
  for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
    if (!strncmp(name, pre[i], strlen(pre[i]))) return 1;
  return 0;
}

/* Reads one source file's includes into f. */
static void scan(const char *root, file *f)
{
  char full[512], line[512];
  snprintf(full, sizeof full, "%s/%s", root, f->path);
  FILE *in = fopen(full, "r");
  if (!in) return;
  int abi_only = 0; /* PERF_ABI_ONLY is defined: perfgate.h's plain-C part alone */
  while (fgets(line, sizeof line, in)) {
    char q, name[150];
    if (strstr(line, "#define PERF_ABI_ONLY")) abi_only = 1;
    if (strstr(line, "#undef PERF_ABI_ONLY")) abi_only = 0;
    if (sscanf(line, " # include %c%149[^\">]", &q, name) != 2) continue;
    if (abi_only && !strcmp(name, "perfgate.h")) continue;
    if (is_cuda(name, q)) f->cuda = 1;
    else if (q == '"' && strchr(name, '/') && f->ninc < MAX_INC)
      snprintf(f->inc[f->ninc++], sizeof f->inc[0], "%s", name);
    else if (q == '"' && !strchr(name, '/'))
      snprintf(f->bare, sizeof f->bare, "%s", name);
  }
  fclose(in);
}

/* Adds the .c and .h files of root/dir/sub (sub "" : the layer's own
 * folder) and of its sub-folders to t. */
static void add_dir(const char *root, int layer, const char *sub, tree *t)
{
  char d[512], rel[200];
  snprintf(rel, sizeof rel, "%s%s%s", layers[layer].dir, *sub ? "/" : "", sub);
  snprintf(d, sizeof d, "%s/%s", root, rel);
  DIR *dir = opendir(d);
  if (!dir) return;
  struct dirent *e;
  while ((e = readdir(dir)) && t->n < MAX_FILES) {
    size_t len = strlen(e->d_name);
    struct stat st;
    char full[800];
    snprintf(full, sizeof full, "%s/%s", d, e->d_name);
    if (e->d_name[0] != '.' && *layers[layer].dir && !stat(full, &st) && S_ISDIR(st.st_mode)) {
      char deeper[200];
      snprintf(deeper, sizeof deeper, "%s%s%.100s", sub, *sub ? "/" : "", e->d_name);
      add_dir(root, layer, deeper, t);
      continue;
    }
    if (len < 3 || e->d_name[len - 2] != '.' || !strchr("ch", e->d_name[len - 1])) continue;
    file *f = &t->f[t->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%.60s%s%.90s", rel, *rel ? "/" : "", e->d_name);
    memcpy(f->module, f->path, strlen(f->path) - 2);
    f->module[strlen(f->path) - 2] = '\0';
    f->layer = layer;
    scan(root, f);
  }
  closedir(dir);
}

/* The layer a framework header belongs to ("io/json.h" -> io). */
static const char *layer_of(const char *inc, char *buf, size_t len)
{
  snprintf(buf, len, "%.*s", (int)(strchr(inc, '/') - inc), inc);
  return buf;
}

/* Problems with the layers: one line each into out. Returns their count. */
static int check_layers(const tree *t, char *out, size_t len)
{
  int bad = 0;
  for (int i = 0; i < t->n; i++) {
    const file *f = &t->f[i];
    if (f->bare[0]) {
      bad++;
      size_t u = strlen(out);
      snprintf(out + u, len - u, "%s includes \"%s\" without its folder\n", f->path, f->bare);
    }
    for (int k = 0; k < f->ninc; k++) {
      char l[64], word[70];
      snprintf(word, sizeof word, " %s ", layer_of(f->inc[k], l, sizeof l));
      char allowed[200];
      snprintf(allowed, sizeof allowed, " %s ", layers[f->layer].may_include);
      if (strstr(allowed, word)) continue;
      /* The supervisor's one door to CUDA: a forked child (probe.h says why). */
      if (!strcmp(f->inc[k], "worker/process/probe.h") && layers[f->layer].no_cuda) continue;
      bad++;
      size_t u = strlen(out);
      snprintf(out + u, len - u, "%s includes %s (layer %s may include only: %s)\n", f->path,
               f->inc[k], *layers[f->layer].dir ? layers[f->layer].dir : "entry",
               layers[f->layer].may_include);
    }
  }
  return bad;
}

/* Depth-first search over modules; on a cycle, writes it to out. */
static int dfs(const tree *t, const char (*mods)[160], int nm, int v, int *state, int *stack,
               int depth, char *out, size_t len)
{
  state[v] = 1;
  stack[depth] = v;
  for (int i = 0; i < t->n; i++) {
    if (strcmp(t->f[i].module, mods[v])) continue;
    for (int k = 0; k < t->f[i].ninc; k++) {
      char m[160];
      snprintf(m, sizeof m, "%.*s", (int)strlen(t->f[i].inc[k]) - 2, t->f[i].inc[k]);
      int w = -1;
      for (int j = 0; j < nm; j++)
        if (!strcmp(mods[j], m)) w = j;
      if (w < 0 || w == v) continue;
      if (state[w] == 1) { /* w is on the stack: the cycle is w ... v -> w */
        int from = depth;
        while (from > 0 && stack[from] != w) from--;
        size_t u = strlen(out);
        for (int s = from; s <= depth; s++)
          u += (size_t)snprintf(out + u, len > u ? len - u : 0, "%s -> ", mods[stack[s]]);
        snprintf(out + u, len > u ? len - u : 0, "%s\n", mods[w]);
        return 1;
      }
      if (state[w] == 0 && dfs(t, mods, nm, w, state, stack, depth + 1, out, len)) return 1;
    }
  }
  state[v] = 2;
  return 0;
}

/* The first include cycle among modules (a .c and its .h are one), or 0. */
static int check_cycles(const tree *t, char *out, size_t len)
{
  static char mods[MAX_FILES][160];
  int nm = 0, state[MAX_FILES] = {0}, stack[MAX_FILES];
  for (int i = 0; i < t->n; i++) {
    int seen = 0;
    for (int j = 0; j < nm; j++) seen |= !strcmp(mods[j], t->f[i].module);
    if (!seen) snprintf(mods[nm++], sizeof mods[0], "%s", t->f[i].module);
  }
  for (int v = 0; v < nm; v++)
    if (state[v] == 0 && dfs(t, mods, nm, v, state, stack, 0, out, len)) return 1;
  return 0;
}

/* 1 when file i reaches a CUDA header through framework headers; the
 * path goes to via. */
static int reaches_cuda(const tree *t, int i, int depth, char *via, size_t len)
{
  if (t->f[i].cuda) {
    snprintf(via, len, "%s", t->f[i].path);
    return 1;
  }
  if (depth > 16) return 0;
  for (int k = 0; k < t->f[i].ninc; k++) {
    for (int j = 0; j < t->n; j++) {
      if (strcmp(t->f[j].path, t->f[i].inc[k])) continue;
      char rest[400];
      if (reaches_cuda(t, j, depth + 1, rest, sizeof rest)) {
        snprintf(via, len, "%.150s -> %.240s", t->f[i].path, rest);
        return 1;
      }
    }
  }
  return 0;
}

/* Files of the supervisor's side (and the shared floors' headers) that
 * reach CUDA. */
static int check_cuda(const tree *t, char *out, size_t len)
{
  int bad = 0;
  for (int i = 0; i < t->n; i++) {
    const file *f = &t->f[i];
    int shared_header = layers[f->layer].shared && f->path[strlen(f->path) - 1] == 'h';
    if (!layers[f->layer].no_cuda && !shared_header) continue;
    char via[600];
    if (!reaches_cuda(t, i, 0, via, sizeof via)) continue;
    bad++;
    size_t u = strlen(out);
    snprintf(out + u, len - u, "%s reaches a CUDA header: %s\n", f->path, via);
  }
  return bad;
}

/* The worker's rooms, in the order a claim is measured and decided: the
 * running test (context, its leaf), the GPU and what watches it, CUPTI and
 * host syncs, where work goes on streams, sampling, the claims, and the
 * process that runs tests. A file may include a worker header of its own
 * room or one before it, never one after. */
static const char *const rooms[] = {"worker",         "worker/device", "worker/sync",
                                    "worker/streams", "worker/sample", "worker/claim",
                                    "worker/process"};
enum { NROOMS = sizeof rooms / sizeof rooms[0] };

/* The room of a worker path ("worker/claim/ratio.h" -> 5), or -1 for a
 * path outside the worker or in a folder the table does not name. */
static int room_of(const char *path)
{
  if (strncmp(path, "worker/", 7)) return -1;
  const char *slash = strrchr(path, '/');
  for (int r = 0; r < NROOMS; r++)
    if ((size_t)(slash - path) == strlen(rooms[r]) && !strncmp(path, rooms[r], strlen(rooms[r])))
      return r;
  return -1;
}

/* Nothing in the worker calls up a room, and every worker file is in a
 * room the table names. Problems go to out; returns their count. */
static int check_upward(const tree *t, char *out, size_t len)
{
  int bad = 0;
  for (int i = 0; i < t->n; i++) {
    const file *f = &t->f[i];
    int own = room_of(f->path);
    if (own < 0 && !strncmp(f->path, "worker/", 7)) {
      bad++;
      size_t u = strlen(out);
      snprintf(out + u, len > u ? len - u : 0, "%s is in no room of layout.c's table\n", f->path);
      continue;
    }
    for (int k = 0; own >= 0 && k < f->ninc; k++) {
      int r = room_of(f->inc[k]);
      if (r <= own) continue;
      bad++;
      size_t u = strlen(out);
      snprintf(out + u, len > u ? len - u : 0, "%s includes %s (%s comes after %s)\n", f->path,
               f->inc[k], rooms[r], rooms[own]);
    }
  }
  return bad;
}

static int check_names(const char *objdir, const char *srcdir, const char *header, char *out,
                       size_t len);

static void load(const char *root, tree *t)
{
  t->n = 0;
  for (int l = 0; l < NLAYERS; l++) add_dir(root, l, "", t);
}

ST_TEST(layout_include_graph_is_a_dag_and_the_supervisor_side_has_no_cuda)
{
  static tree t;
  static char out[16384];
  load("framework/src", &t);
  ST_CHECKF(t.n > 60, "found %d files under framework/src (run from the repository root)", t.n);
  ST_CHECKF(t.n < MAX_FILES, "more than %d files: raise MAX_FILES", MAX_FILES - 1);
  out[0] = '\0';
  ST_CHECKF(check_cycles(&t, out, sizeof out) == 0, "include cycle: %s", out);
  out[0] = '\0';
  ST_CHECKF(check_layers(&t, out, sizeof out) == 0, "layers:\n%s", out);
  out[0] = '\0';
  ST_CHECKF(check_cuda(&t, out, sizeof out) == 0, "CUDA on the supervisor's side:\n%s", out);
  out[0] = '\0';
  ST_CHECKF(check_upward(&t, out, sizeof out) == 0, "calls up:\n%s", out);
}

/* Writes text to dir/path, creating the folder. */
static void put(const char *dir, const char *path, const char *text)
{
  char full[512], cmd[600];
  snprintf(full, sizeof full, "%s/%s", dir, path);
  snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", full);
  st_shell(cmd);
  FILE *f = fopen(full, "w");
  if (f) fputs(text, f), fclose(f);
}

/* The checks find what they are for: a planted cycle, a layer crossed
 * upward, CUDA reached from the supervisor through a shared header. */
ST_TEST(layout_checks_catch_a_cycle_an_upward_include_and_cuda)
{
  char dir[] = "/tmp/perf-layout-XXXXXX";
  if (!mkdtemp(dir)) {
    ST_CHECK(0);
    return;
  }
  put(dir, "worker/device/a.h", "#include \"worker/device/b.h\"\n");
  put(dir, "worker/device/b.c", "#include \"worker/device/a.h\"\n");
  put(dir, "util/up.c", "#include \"worker/device/a.h\"\n");
  put(dir, "util/clean.h", "#include <stddef.h>\n");
  put(dir, "util/gpu.h", "#include <cuda_runtime_api.h>\n");
  put(dir, "supervisor/s.c", "#include \"util/clean.h\"\n#include \"util/gpu.h\"\n");
  put(dir, "worker/context.c", "#include \"worker/context.h\"\n#include \"worker/device/a.h\"\n");
  put(dir, "worker/device/b.h", "#include \"worker/process/test.h\"\n#include \"a.h\"\n");
  put(dir, "worker/claim/ok.c", "#include \"worker/device/a.h\"\n#include \"worker/context.h\"\n");
  put(dir, "worker/misc/x.c", "#include <stddef.h>\n");
  static tree t;
  static char out[4096];
  load(dir, &t);
  out[0] = '\0';
  ST_EQ(check_cycles(&t, out, sizeof out), 1);
  ST_CHECKF(strstr(out, "worker/device/a") && strstr(out, "worker/device/b"), "%s", out);
  out[0] = '\0';
  ST_EQ(check_layers(&t, out, sizeof out), 2);
  ST_CHECKF(strstr(out, "util/up.c includes worker/device/a.h"), "%s", out);
  ST_CHECKF(strstr(out, "worker/device/b.h includes \"a.h\" without its folder"), "%s", out);
  out[0] = '\0';
  ST_EQ(check_upward(&t, out, sizeof out), 3);
  ST_CHECKF(strstr(out, "worker/context.c includes worker/device/a.h (worker/device comes after "
                        "worker)") &&
                strstr(out, "worker/device/b.h includes worker/process/test.h") &&
                strstr(out, "worker/misc/x.c is in no room"), "%s", out);
  out[0] = '\0';
  ST_EQ(check_cuda(&t, out, sizeof out), 2); /* util/gpu.h itself, and s.c through it */
  ST_CHECKF(strstr(out, "supervisor/s.c reaches a CUDA header: supervisor/s.c -> util/gpu.h"),
            "%s", out);
  /* io/json.o defining perf__jsn_put: misnamed; perf__json_put and the
   * public perf__faster are fine. */
  put(dir, "src/io/json.c", "");
  put(dir, "obj/src.c", "int perf__jsn_put(void) { return 0; }\n"
                        "int perf__json_put(void) { return 1; }\n"
                        "int perf__faster(void) { return 2; }\n"
                        "int jsn_depth = 3;\n"
                        "static int n = 4;\n"
                        "int perf__json_get(void) { return n; }\n");
  char cmd[300];
  snprintf(cmd, sizeof cmd, "mkdir -p %s/obj/io && cc -c %s/obj/src.c -o %s/obj/io/json.o",
           dir, dir, dir);
  ST_EQ(st_shell(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s/obj", dir);
  out[0] = '\0';
  char src[300];
  snprintf(src, sizeof src, "%s/src", dir);
  ST_EQ(check_names(cmd, src, "int perf__faster(perf_workload *a);", out, sizeof out), 3);
  ST_CHECKF(strstr(out, "io/json.o defines perf__jsn_put (want perf__json_*)"), "%s", out);
  ST_CHECKF(strstr(out, "io/json.o defines jsn_depth (want perf__json_*)"), "%s", out);
  ST_CHECKF(strstr(out, "io/json.o has a file-scope variable named n (name it)"), "%s", out);
  st_rmtree(dir);
}

/* 1 when sym is part of the public API (declared in perfgate.h, which the
 * macros call) or a process entry point. */
static int is_public(const char *sym, const char *header)
{
  if (!strcmp(sym, "main")) return 1;
  char decl[260];
  snprintf(decl, sizeof decl, " %s(", sym);
  return strstr(header, decl) || (snprintf(decl, sizeof decl, "*%s(", sym), strstr(header, decl));
}

/* Every global function and variable the library defines in dir/x.o is
 * perf__x_* (or perf__x itself), or public; a file-scope variable has a
 * name of three letters or more (a one-letter "n" reads as a module to
 * tools that draw the include graph); the compiler's and sanitizers' own
 * symbols ("__odr_asan.x", "x.0") are not the library's names; objects whose source srcdir/dir/x.c is gone
 * (a build left from an older layout) are passed over. Problems go to out.
 * Returns their count, or -1 when no object could be read. */
static int check_names(const char *objdir, const char *srcdir, const char *header, char *out,
                       size_t len)
{
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cd '%s' && for o in */*/*.o */*.o *.o; do [ -f \"$o\" ] && "
           "nm --defined-only \"$o\" | awk -v o=\"$o\" '$3 !~ /^__|[.]/ && ($2 ~ /^[TDBR]$/ || "
           "($2 ~ /^[dbr]$/ && length($3) < 3)) {print o, $2, $3}'; done "
           "2>/dev/null", objdir);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  char obj[200], type[8], sym[200];
  int bad = 0, seen = 0;
  while (fscanf(p, "%199s %7s %199s", obj, type, sym) == 3) {
    char src[500];
    struct stat sb;
    snprintf(src, sizeof src, "%s/%.*s.c", srcdir, (int)strlen(obj) - 2, obj);
    if (stat(src, &sb) != 0) continue;
    seen++;
    const char *slash = strrchr(obj, '/');
    char stem[100], want[120];
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(slash ? slash + 1 : obj) - 2),
             slash ? slash + 1 : obj);
    snprintf(want, sizeof want, "perf__%s", stem);
    if (type[0] >= 'a') { /* a file-scope variable: a name, not a letter */
      bad++;
      size_t u = strlen(out);
      snprintf(out + u, len > u ? len - u : 0, "%s has a file-scope variable named %s (name it)\n",
               obj, sym);
      continue;
    }
    size_t wl = strlen(want);
    if (!strncmp(sym, want, wl) && (sym[wl] == '\0' || sym[wl] == '_')) continue;
    if (is_public(sym, header)) continue;
    bad++;
    size_t u = strlen(out);
    snprintf(out + u, len > u ? len - u : 0, "%s defines %s (want %s_*)\n", obj, sym, want);
  }
  pclose(p);
  return seen ? bad : -1;
}

ST_TEST(layout_every_library_function_is_named_for_its_file)
{
  static char out[16384];
  char objdir[600];
  snprintf(objdir, sizeof objdir, "%s/obj/framework", st_build_dir());
  char *header = st_slurp("framework/include/perfgate.h");
  ST_CHECK(header != NULL);
  if (!header) return;
  out[0] = '\0';
  int bad = check_names(objdir, "framework/src", header, out, sizeof out);
  ST_CHECKF(bad == 0, "%s", bad < 0 ? "no objects found (nm missing?)" : out);
  free(header);
}

/* The identifier that ends just before end in line, into name[len]; 1 when
 * there is one. */
static int ident_before(const char *line, const char *end, char *name, size_t len)
{
  while (end > line && end[-1] == ' ') end--;
  const char *b = end;
  while (b > line && (isalnum((unsigned char)b[-1]) || b[-1] == '_')) b--;
  if (b == end) return 0;
  snprintf(name, len, "%.*s", (int)(end - b), b);
  return 1;
}

/* The type name a header line declares into name[len], or 0: a typedef's
 * name ("typedef T name;", "typedef T name(args);"), the name closing a
 * typedef'd body ("} name;"), or a tag that opens a body ("struct tag {"). */
static int declared(const char *line, char *name, size_t len)
{
  const char *brace = strchr(line, '{'), *semi = strchr(line, ';'), *paren = strchr(line, '(');
  const char *fp = strstr(line, "(*");
  if (!strncmp(line, "typedef ", 8) && fp && semi && !brace) /* typedef T (*name)(args); */
    return ident_before(line, fp + 2 + strcspn(fp + 2, ")"), name, len);
  if (!strncmp(line, "typedef ", 8) && semi && !brace)
    return ident_before(line, paren && paren < semi ? paren : semi, name, len);
  if (line[0] == '}' && semi) return ident_before(line, semi, name, len);
  if (!brace) return 0;
  if (!strncmp(line, "typedef ", 8)) line += 8;
  static const char *const kw[] = {"struct ", "enum ", "union "};
  for (size_t i = 0; i < 3; i++)
    if (!strncmp(line, kw[i], strlen(kw[i])))
      return ident_before(line, brace, name, len) &&
             strncmp(name, kw[i], strlen(name)); /* "enum {": no name */
  return 0;
}

/* The names a header declares (typedef names, struct, enum and union tags)
 * that are not perf__MODULE[_*], public perf_*, or declared in header
 * (perfgate.h); problems go to out.
 * Returns their count. */
static int check_types(const char *path, const char *module, const char *header, char *out,
                       size_t len)
{
  FILE *in = fopen(path, "r");
  if (!in) return 0;
  char line[512], want[120], name[160];
  snprintf(want, sizeof want, "perf__%s", module);
  size_t wl = strlen(want);
  int bad = 0;
  while (fgets(line, sizeof line, in)) {
    if (!declared(line, name, sizeof name)) continue;
    if (!strncmp(name, want, wl) && (name[wl] == '\0' || name[wl] == '_')) continue;
    if (!strncmp(name, "perf_", 5) && name[5] != '_') continue;
    char pub[200]; /* named by the public header (an opaque type its macros use) */
    snprintf(pub, sizeof pub, "%s;", name);
    if (header && strstr(header, pub)) continue;
    bad++;
    size_t u = strlen(out);
    snprintf(out + u, len > u ? len - u : 0, "%s declares %s (want %s_*)\n", path, name, want);
  }
  fclose(in);
  return bad;
}

/* Every type a module's header declares is named for it, and every unit
 * test file framework/tests/unit_X.c tests a module X of framework/src. */
ST_TEST(layout_types_and_unit_tests_are_named_for_their_module)
{
  static char out[8192];
  char path[600];
  out[0] = '\0';
  char *header = st_slurp("framework/include/perfgate.h");
  ST_CHECK(header != NULL);
  int bad = 0, headers = 0, units = 0;
  FILE *p = popen("find framework/src -name '*.h' | sort", "r");
  ST_CHECK(p != NULL);
  while (p && fscanf(p, "%599s", path) == 1) {
    const char *slash = strrchr(path, '/');
    char module[160];
    snprintf(module, sizeof module, "%.*s", (int)strlen(slash + 1) - 2, slash + 1);
    bad += check_types(path, module, header, out, sizeof out);
    headers++;
  }
  if (p) pclose(p);
  p = popen("ls framework/tests/unit_*.c", "r");
  ST_CHECK(p != NULL);
  while (p && fscanf(p, "%599s", path) == 1) {
    char module[160], cmd[400];
    snprintf(module, sizeof module, "%.*s", (int)strlen(path) - 2 - 21, path + 21);
    snprintf(cmd, sizeof cmd, "find framework/src -name '%s.c' | grep -q .", module);
    units++;
    if (st_shell(cmd) == 0) continue;
    bad++;
    size_t u = strlen(out);
    snprintf(out + u, sizeof out - u, "%s: no module framework/src/.../%s.c\n", path, module);
  }
  if (p) pclose(p);
  ST_CHECK(headers > 50 && units > 10);
  ST_CHECKF(bad == 0, "%s", out);
  free(header);
}

/* The type check catches a struct, an enum and a typedef named for
 * another module, and passes what is named right. */
ST_TEST(layout_type_check_catches_a_misnamed_type)
{
  char dir[] = "/tmp/perfgate-types-XXXXXX", path[300];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/json.h", dir);
  FILE *f = fopen(path, "w");
  ST_CHECK(f != NULL);
  if (!f) return;
  fputs("typedef struct perf__json { int a; } perf__json;\n"
        "typedef struct perf__json_node {\n  int b;\n} perf__json_node;\n"
        "typedef enum perf__json_kind { A } perf__json_kind;\n"
        "typedef void perf__json_sink(int);\n"
        "typedef struct n {\n  int c;\n} n;\n"
        "enum jsn_mode { B };\n"
        "typedef int perf__yaml_size;\n"
        "typedef int (*perf__json_row_fn)(void *ctx);\n"
        "typedef int (*row_fn)(void *ctx);\n"
        "struct perf__wstate {\n", f);
  fclose(f);
  char out[2000] = "";
  ST_EQ(check_types(path, "json", "typedef struct perf__wstate perf__wstate;", out, sizeof out), 5);
  ST_CHECKF(strstr(out, "declares row_fn"), "%s", out);
  ST_CHECKF(strstr(out, "declares n (want perf__json_*)"), "%s", out);
  ST_CHECKF(strstr(out, "declares jsn_mode"), "%s", out);
  ST_CHECKF(strstr(out, "declares perf__yaml_size"), "%s", out);
  st_rmtree(dir);
}

/* The most characters a purpose line may have, comment markers included. */
enum { PURPOSE_MAX = 100 };

/* 1, with a line into out, when the file at path does not open with its
 * purpose line: a comment whose text starts with the file's own name and
 * " — " ("// " opens it in kernels' CUDA files), PURPOSE_MAX characters at
 * most (UTF-8 characters, not bytes). 0 when it does. */
static int check_purpose(const char *path, char *out, size_t len)
{
  char line[4096] = "", c_open[700], cpp_open[700];
  FILE *in = fopen(path, "r");
  if (in && !fgets(line, sizeof line, in)) line[0] = '\0';
  if (in) fclose(in);
  line[strcspn(line, "\n")] = '\0';
  const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
  snprintf(c_open, sizeof c_open, "/* %s — ", name);
  snprintf(cpp_open, sizeof cpp_open, "// %s — ", name);
  int named = !strncmp(line, c_open, strlen(c_open)) || !strncmp(line, cpp_open, strlen(cpp_open));
  size_t chars = 0;
  for (const char *c = line; *c; c++) chars += ((unsigned char)*c & 0xC0) != 0x80;
  if (named && chars <= PURPOSE_MAX) return 0;
  size_t u = strlen(out);
  if (!named)
    snprintf(out + u, len > u ? len - u : 0, "%s: line 1 is not a comment opening \"%s — \"\n",
             path, name);
  else
    snprintf(out + u, len > u ? len - u : 0, "%s: purpose line of %zu characters (at most %d)\n",
             path, chars, PURPOSE_MAX);
  return 1;
}

/* Every C, header and CUDA file of the framework (its sources, public
 * header and tests, fixtures and shims included) and of kernels/ says on
 * its first line, in at most PURPOSE_MAX characters, what it is for
 * (issue 51). */
ST_TEST(layout_every_file_opens_with_a_short_purpose_line)
{
  static char out[16384];
  char path[600];
  int bad = 0, files = 0;
  out[0] = '\0';
  FILE *p = popen("find framework/src framework/include framework/tests kernels -type f "
                  "\\( -name '*.c' -o -name '*.h' -o -name '*.cu' \\) | sort",
                  "r");
  ST_CHECK(p != NULL);
  while (p && fscanf(p, "%599s", path) == 1) {
    bad += check_purpose(path, out, sizeof out);
    files++;
  }
  if (p) pclose(p);
  ST_CHECKF(files > 300, "found %d source files (run from the repository root)", files);
  ST_CHECKF(bad == 0, "%d file(s) without a short purpose line:\n%s", bad, out);
}
