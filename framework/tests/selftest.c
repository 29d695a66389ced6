/* selftest.c — the harness's runner: forks each test and prints "N passed, N failed, N skipped". */
/* It counts each test's checks. */
#define _GNU_SOURCE
#include "selftest.h"
#include "io/jsontree.h"

#include <dirent.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define ST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ST_ASAN 1
#endif
#endif
#ifdef ST_ASAN
#include <sanitizer/lsan_interface.h>
#endif

const char *st_fixture = "build/fixture-perftest";
static st_case *head, **tail = &head;
static int checks, failures;
static char skip_reason[300]; /* set by st_skip in the child */

const char *st_build_dir(void)
{
  static char dir[1024];
  snprintf(dir, sizeof dir, "%s", st_fixture);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = '\0';
  else
    snprintf(dir, sizeof dir, ".");
  return dir;
}

const char *st_wrap(void)
{
  const char *w = getenv("PERF_SELFTEST_WRAP");
  return w ? w : "";
}

int st_slow(void) { return st_wrap()[0] != '\0'; }

void st_register(st_case *c)
{
  *tail = c;
  tail = &c->next;
}

int st_check(int ok, const char *file, int line, const char *fmt, ...)
{
  checks++;
  if (ok) return 1;
  failures++;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "    check failed at %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 0;
}

void st_skip(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(skip_reason, sizeof skip_reason, fmt, ap);
  va_end(ap);
}

int st_eq(long long a, long long b, const char *as, const char *bs,
          const char *file, int line)
{
  return st_check(a == b, file, line, "%s == %s (%lld vs %lld)", as, bs, a, b);
}

int st_str(const char *a, const char *b, const char *as, const char *bs,
           const char *file, int line)
{
  return st_check(a && b && !strcmp(a, b), file, line, "%s == %s (\"%s\" vs \"%s\")", as,
                  bs, a ? a : "(null)", b ? b : "(null)");
}

int st_near(double a, double b, double tol, const char *as, const char *bs,
            const char *file, int line)
{
  return st_check(fabs(a - b) <= tol, file, line, "%s ~ %s (%.9g vs %.9g, tol %g)",
                  as, bs, a, b, tol);
}

int st_count(const char *s, const char *needle)
{
  int n = 0;
  for (const char *p = s; (p = strstr(p, needle)) != NULL; p++) n++;
  return n;
}

int st_temp_files(const char *dir)
{
  int n = 0;
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".tmp.") != NULL;
  if (d) closedir(d);
  return n;
}

int st_shell(const char *cmd)
{
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* What a child sends back. */
typedef struct verdict {
  int checks, failures;
  char skip[300];
} verdict;

/* Runs one case in a child; returns 1 passed, 0 failed, 2 skipped (with
 * the reason in skip). */
static int run_case(const st_case *c, int timeout_s, char *skip, size_t len)
{
  int fd[2];
  if (pipe(fd)) return 0;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    c->fn();
#ifdef ST_ASAN
    __lsan_do_leak_check(); /* _exit below would skip LSan's check at exit */
#endif
    verdict v = {checks, failures, ""};
    memcpy(v.skip, skip_reason, sizeof v.skip);
    if (write(fd[1], &v, sizeof v) != sizeof v) _exit(3);
    _exit(0);
  }
  close(fd[1]);
  verdict v = {0, 0, ""};
  int got = 0;
  struct pollfd p = {.fd = fd[0], .events = POLLIN};
  if (poll(&p, 1, timeout_s * 1000) > 0)
    got = read(fd[0], &v, sizeof v) == sizeof v;
  close(fd[0]);
  if (!got) kill(pid, SIGKILL);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!got) {
    fprintf(stderr, "    %s: no result (%s)\n", c->name,
            WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "timeout or exit");
    return 0;
  }
  if (v.failures == 0 && v.skip[0]) {
    snprintf(skip, len, "%.*s", (int)sizeof v.skip - 1, v.skip);
    return 2;
  }
  if (v.checks == 0) {
    fprintf(stderr, "    %s: checked nothing\n", c->name);
    return 0;
  }
  return v.failures == 0;
}

/* Whether name holds one of the ':'-separated substrings of only (NULL:
 * every name does). */
static int selected(const char *name, const char *only)
{
  if (!only) return 1;
  for (const char *p = only;; p++) {
    size_t n = strcspn(p, ":");
    char part[256];
    snprintf(part, sizeof part, "%.*s", (int)n, p);
    if (n && strstr(name, part)) return 1;
    p += n;
    if (!*p) return 0;
  }
}

int main(int argc, char **argv)
{
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "--fixture=", 10))
      st_fixture = argv[i] + 10;
    else if (!strncmp(argv[i], "--only=", 7))
      only = argv[i] + 7;
    else {
      fprintf(stderr, "usage: %s [--fixture=PATH] [--only=SUBSTRING[:SUBSTRING...]]\n", argv[0]);
      return 2;
    }
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  int passed = 0, failed = 0, skipped = 0;
  for (st_case *c = head; c; c = c->next) {
    if (!selected(c->name, only)) continue;
    double t0 = now();
    char skip[300];
    /* A hang's limit, not a time any test should take: the longest take
     * about 100 s on a 2-core machine whose cores other builds keep busy. */
    int ok = run_case(c, 600, skip, sizeof skip);
    if (ok == 2)
      printf("skip %s (%.2f s): skipped: %s\n", c->name, now() - t0, skip);
    else
      printf("%-4s %s (%.2f s)\n", ok ? "ok" : "FAIL", c->name, now() - t0);
    ok == 2 ? skipped++ : ok ? passed++ : failed++;
  }
  printf("\n%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : (passed ? 0 : 2);
}

/* ---- running the fixture binary ---------------------------------------- */

/* Runs cmd through the shell into r (stdout and stderr together). */
static void capture(st_run *r, const char *cmd)
{
  r->out = NULL;
  r->status = -1;
  FILE *p = popen(cmd, "r");
  if (!ST_CHECKF(p != NULL, "popen(%s)", cmd)) return;
  size_t len = 0, cap = 0;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) {
    if (len + n + 1 > cap) {
      cap = 2 * (len + n + 1);
      r->out = realloc(r->out, cap);
      if (!r->out) abort();
    }
    memcpy(r->out + len, buf, n);
    len += n;
  }
  if (!r->out) r->out = calloc(1, 1);
  r->out[len] = '\0';
  int st = pclose(p);
  r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void st_exec(st_run *r, const char *env, const char *args)
{
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "%s%s '%s' %s 2>&1", env, st_wrap(), st_fixture, args);
  capture(r, cmd);
}

void st_host_baseline_file(const char *dir, char *path, size_t len)
{
  st_run r;
  char args[1200];
  snprintf(args, sizeof args, "--print-baseline-file --baseline-dir=%s", dir);
  st_exec(&r, "CUDA_VISIBLE_DEVICES=-1 ", args);
  snprintf(path, len, "%.*s", r.out ? (int)strcspn(r.out, "\n") : 0, r.out ? r.out : "");
  st_run_free(&r);
}

void st_run_free(st_run *r)
{
  free(r->out);
  r->out = NULL;
}

/* Copies the line starting at p into line. */
static const char *copy_line(const char *p, char *line, size_t len)
{
  const char *nl = strchr(p, '\n');
  size_t n = nl ? (size_t)(nl - p) : strlen(p);
  if (n >= len) n = len - 1;
  memcpy(line, p, n);
  line[n] = '\0';
  return line;
}

const char *st_line_with(const st_run *r, const char *a, const char *b,
                         char *line, size_t len)
{
  for (const char *p = r->out; p && *p;) {
    copy_line(p, line, len);
    if (strstr(line, a) && (!b || strstr(line, b))) return line;
    const char *nl = strchr(p, '\n');
    p = nl ? nl + 1 : NULL;
  }
  return NULL;
}

const char *st_outcome(const st_run *r, const char *name, char *line,
                       size_t len)
{
  static const char *words[] = {"PASS", "FAIL", "SKIP", "ERROR"};
  for (const char *p = r->out; p && *p;) {
    copy_line(p, line, len);
    for (size_t i = 0; i < 4; i++) {
      size_t w = strlen(words[i]);
      const char *rest = line + w;
      if (strncmp(line, words[i], w) != 0) continue;
      while (*rest == ' ') rest++;
      size_t nl = strlen(name);
      if (!strncmp(rest, name, nl) && rest[nl] == ' ') return words[i];
    }
    const char *nl = strchr(p, '\n');
    p = nl ? nl + 1 : NULL;
  }
  line[0] = '\0';
  return "";
}

void st_exec_without_cupti(st_run *r, const char *args)
{
  char env[512];
  snprintf(env, sizeof env, "LD_PRELOAD=%.400s/libnocupti.so ", st_build_dir());
  st_exec(r, env, args);
}

void st_expect(const st_run *r, const char *name, const char *word, const char *want)
{
  char line[2048];
  const char *got = st_outcome(r, name, line, sizeof line);
  ST_CHECKF(!strcmp(got, word), "%s: expected %s, got '%s'", name, word, got);
  if (want) ST_CHECKF(strstr(line, want) != NULL, "%s: '%s' lacks '%s'", name, line, want);
}

int st_claim_verdict(const st_run *r, const char *head, const char *word)
{
  char line[2048], want[32];
  snprintf(want, sizeof want, ": %s:", word);
  if (st_line_with(r, head, want, line, sizeof line)) return 1;
  /* the verdict line, not the test's result line before it ("FAIL  t: HEAD:
   * INCONCLUSIVE"), which names no cause */
  const char *l = st_line_with(r, head, "; the host: ", line, sizeof line);
  return l && strstr(l, ": INCONCLUSIVE") ? 0 : -1;
}

int st_claim_or_host(const st_run *r, const char *head, const char *word)
{
  char line[2048];
  int v = st_claim_verdict(r, head, word);
  const char *l = st_line_with(r, head, v ? NULL : "; the host: ", line, sizeof line);
  if (!v) printf("    %s: INCONCLUSIVE, the host named as the cause (a loaded runner):%s\n", head,
                 strstr(l, "; the host: ") + 11);
  ST_CHECKF(v >= 0, "%s: expected %s (or INCONCLUSIVE naming the host), got: %s", head, word,
            l ? l : "no verdict line");
  return v;
}

double st_speedup(const st_run *r, const char *head)
{
  char line[2048];
  double s = -1;
  const char *l = st_line_with(r, head, "speedup", line, sizeof line);
  if (l) sscanf(strstr(l, "speedup") + 8, "%lf", &s);
  return s;
}

int st_have_gpu(void)
{
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

const char *st_last_line(const st_run *r, char *line, size_t len)
{
  line[0] = '\0';
  for (const char *p = r->out; p && *p;) {
    const char *nl = strchr(p, '\n');
    if ((nl ? nl : p + strlen(p)) > p) copy_line(p, line, len);
    p = nl ? nl + 1 : NULL;
  }
  return line;
}

char *st_slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *s = NULL, buf[8192];
  size_t len = 0, n;
  FILE *m = open_memstream(&s, &len);
  while (m && (n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, m);
  fclose(f);
  if (m) fclose(m);
  return s;
}

char *st_captured(void (*fn)(void *), void *arg)
{
  char tmp[] = "/tmp/perfgate-captured-XXXXXX";
  int fd = mkstemp(tmp), o = dup(1), e = dup(2);
  ST_CHECK(fd >= 0 && o >= 0 && e >= 0);
  fflush(stdout), fflush(stderr);
  dup2(fd, 1), dup2(fd, 2);
  fn(arg);
  fflush(stdout), fflush(stderr);
  dup2(o, 1), dup2(e, 2);
  close(o), close(e), close(fd);
  char *text = st_slurp(tmp);
  unlink(tmp);
  return text;
}

void st_rmtree(const char *dir)
{
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ST_CHECKF(system(cmd) == 0, "%s", cmd);
}

/* ---- running the fixture as uid 65534 ----------------------------------- */

#define ST_AS_NOBODY "setpriv --reuid=65534 --regid=65534 --clear-groups "

/* Appends printf-style text to buf[len]; 0, or -1 when it did not fit. */
__attribute__((format(printf, 3, 4))) static int append(char *buf, size_t len, const char *fmt, ...)
{
  size_t used = strlen(buf);
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + used, len - used, fmt, ap);
  va_end(ap);
  return n < 0 || (size_t)n >= len - used ? -1 : 0;
}

/* Adds the sanitizer options in variable name to nb->as, rewritten for uid
 * 65534: a log_path goes under nb->dir/logs (the run's log directory is
 * kept, to hand the logs back), a suppression file is copied into nb->dir.
 * Returns 0, or -1 with why. */
static int sanitizer_options(st_nobody *nb, const char *name, char *why, size_t len)
{
  const char *v = getenv(name);
  char opts[2048], out[3072] = "", cmd[3072];
  if (!v || !*v) return 0;
  if (strchr(v, '\'') || strlen(v) >= sizeof opts)
    return snprintf(why, len, "$%s is too long or holds a quote", name), -1;
  snprintf(opts, sizeof opts, "%s", v);
  char *save = NULL;
  for (char *o = strtok_r(opts, ":", &save); o; o = strtok_r(NULL, ":", &save)) {
    char *eq = strchr(o, '='), *base = eq ? strrchr(eq + 1, '/') : NULL;
    int rc = 0;
    if (base && eq - o == 8 && !strncmp(o, "log_path", 8)) {
      snprintf(nb->logs[1], sizeof nb->logs[1], "%.*s", (int)(base - eq - 1), eq + 1);
      rc = append(out, sizeof out, "log_path=%s%s:", nb->logs[0], base);
    } else if (base && eq - o == 12 && !strncmp(o, "suppressions", 12)) {
      snprintf(cmd, sizeof cmd, "cp '%s' '%s/'", eq + 1, nb->dir);
      if (st_shell(cmd)) return snprintf(why, len, "cannot copy %s into %s", eq + 1, nb->dir), -1;
      rc = append(out, sizeof out, "suppressions=%s%s:", nb->dir, base);
    } else
      rc = append(out, sizeof out, "%s:", o);
    if (rc) return snprintf(why, len, "$%s is too long", name), -1;
  }
  if (append(nb->as, sizeof nb->as, "%s='%s' ", name, out))
    return snprintf(why, len, "the sanitizer options are too long"), -1;
  return 0;
}

/* Copies the fixture into nb->dir, and into nb->dir/lib those of its
 * shared libraries (as ldd finds them) that uid 65534 cannot read. Returns
 * 0, or -1 with why. */
static int copy_fixture(st_nobody *nb, char *why, size_t len)
{
  char cmd[4096];
  const char *base = strrchr(st_fixture, '/');
  snprintf(nb->fixture, sizeof nb->fixture, "%s/%s", nb->dir, base ? base + 1 : st_fixture);
  snprintf(cmd, sizeof cmd,
           "cp '%s' '%s' && chmod 755 '%s' && mkdir -m 755 '%s/lib' && cd / && "
           "for f in $(ldd '%s' 2>/dev/null | sed -n 's|.*=> \\(/[^ ]*\\) .*|\\1|p'); do "
           ST_AS_NOBODY "test -r \"$f\" || cp \"$f\" '%s/lib/' || exit 1; done",
           st_fixture, nb->fixture, nb->fixture, nb->dir, nb->fixture, nb->dir);
  if (st_shell(cmd))
    return snprintf(why, len, "cannot copy the fixture and its libraries into %s", nb->dir), -1;
  return 0;
}

int st_nobody_begin(st_nobody *nb, char *why, size_t len)
{
  memset(nb, 0, sizeof *nb);
  if (geteuid() != 0) return snprintf(why, len, "not root: no other user can be taken"), -1;
  if (st_shell(ST_AS_NOBODY "true 2>/dev/null"))
    return snprintf(why, len, "uid 65534 cannot be taken with setpriv (util-linux)"), -1;
  snprintf(nb->dir, sizeof nb->dir, "/tmp/perfgate-nobody-XXXXXX");
  if (!mkdtemp(nb->dir)) return snprintf(why, len, "mkdtemp: %s", strerror(errno)), -1;
  snprintf(nb->logs[0], sizeof nb->logs[0], "%s/logs", nb->dir);
  if (chmod(nb->dir, 0755) || mkdir(nb->logs[0], 0700) || chown(nb->logs[0], 65534, 65534))
    return snprintf(why, len, "cannot prepare %s: %s", nb->dir, strerror(errno)), -1;
  snprintf(nb->as, sizeof nb->as, "cd '%s' && LD_LIBRARY_PATH='%s/lib' ", nb->dir, nb->dir);
  static const char *const sanitizers[] = {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"};
  for (int i = 0; i < 3; i++)
    if (sanitizer_options(nb, sanitizers[i], why, len)) return -1;
  if (copy_fixture(nb, why, len) || append(nb->as, sizeof nb->as, ST_AS_NOBODY))
    return -1;
  if (st_wrap()[0]) printf("    as uid 65534: a copy of the fixture, not under %s\n", st_wrap());
  st_run r;
  st_nobody_exec(&r, nb, "--list");
  int ok = r.status == 0 && strstr(r.out, "host.truth");
  if (!ok)
    snprintf(why, len, "uid 65534 cannot run a copy of the fixture in %s (exit %d: %.*s)", nb->dir,
             r.status, (int)strcspn(r.out, "\n"), r.out);
  st_run_free(&r);
  return ok ? 0 : -1;
}

void st_nobody_exec(st_run *r, const st_nobody *nb, const char *args)
{
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "%s'%s' %s 2>&1", nb->as, nb->fixture, args);
  capture(r, cmd);
}

void st_nobody_end(st_nobody *nb)
{
  char cmd[3000];
  if (!nb->dir[0]) return;
  if (nb->logs[1][0]) {
    snprintf(cmd, sizeof cmd, "for f in '%s'/*; do [ -e \"$f\" ] || continue; cp \"$f\" '%s/' || exit 1; done",
             nb->logs[0], nb->logs[1]);
    ST_CHECKF(st_shell(cmd) == 0, "%s", cmd);
  }
  st_rmtree(nb->dir);
  nb->dir[0] = '\0';
}

/* See selftest.h. */
const char *st_json_keys(const struct perf__jsontree_node *o, char *buf, size_t len)
{
  size_t at = 0;
  buf[0] = '\0';
  for (size_t k = 0; o && o->type == PERF__J_OBJECT && k < o->n && at < len; k++)
    at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? " " : "", o->keys[k]);
  return buf;
}

/* ---- a PostgreSQL server of the test's own ------------------------------ */

/* The directory of initdb: pg_config's, Debian's, or PATH's. */
static int pg_bindir(char *out, size_t len)
{
  FILE *p = popen("pg_config --bindir 2>/dev/null", "r");
  char line[256] = "", path[300];
  if (p) {
    if (!fgets(line, sizeof line, p)) line[0] = '\0';
    pclose(p);
  }
  line[strcspn(line, "\n")] = '\0';
  snprintf(path, sizeof path, "%s/initdb", line);
  if (line[0] && access(path, X_OK) == 0) return snprintf(out, len, "%s", line), 0;
  glob_t g;
  if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) == 0 && g.gl_pathc) {
    snprintf(out, len, "%.*s", (int)(strlen(g.gl_pathv[g.gl_pathc - 1]) - 7), g.gl_pathv[g.gl_pathc - 1]);
    globfree(&g);
    return 0;
  }
  p = popen("command -v initdb 2>/dev/null", "r");
  line[0] = '\0';
  if (p) {
    if (!fgets(line, sizeof line, p)) line[0] = '\0';
    pclose(p);
  }
  line[strcspn(line, "\n")] = '\0';
  if (!line[0]) return -1;
  snprintf(out, len, "%.*s", (int)(strlen(line) - 7), line);
  return 0;
}

/* See selftest.h. */
int st_pg_start(st_pg *pg, char *why, size_t len)
{
  char cmd[1400];
  memset(pg, 0, sizeof *pg);
  if (pg_bindir(pg->bin, sizeof pg->bin))
    return snprintf(why, len, "no PostgreSQL server installed (initdb not found: pg_config "
                              "--bindir, /usr/lib/postgresql/*/bin, PATH)"), -1;
  snprintf(pg->dir, sizeof pg->dir, "/tmp/perfgate-pg-XXXXXX");
  if (!mkdtemp(pg->dir)) return snprintf(why, len, "mkdtemp: %s", strerror(errno)), -1;
  if (geteuid() == 0) {
    const char *user = st_shell("id -u postgres >/dev/null 2>&1") == 0 ? "postgres" : "nobody";
    snprintf(pg->as, sizeof pg->as, "runuser -u %s -- ", user);
    snprintf(cmd, sizeof cmd, "chown %s '%s'", user, pg->dir);
    if (st_shell(cmd)) return snprintf(why, len, "cannot give %s to %s", pg->dir, user), -1;
  }
  snprintf(cmd, sizeof cmd, "%s'%s/initdb' -D '%s/data' -U perfgate --auth=trust -E UTF8 --no-sync "
                            ">'%s/initdb.log' 2>&1", pg->as, pg->bin, pg->dir, pg->dir);
  if (st_shell(cmd)) return snprintf(why, len, "initdb failed (see %s/initdb.log)", pg->dir), -1;
  snprintf(cmd, sizeof cmd, "%s'%s/pg_ctl' -D '%s/data' -l '%s/server.log' -w -t 60 -o "
                            "\"-k %s -p 5432 -c listen_addresses=''\" start >/dev/null 2>&1",
           pg->as, pg->bin, pg->dir, pg->dir, pg->dir);
  if (st_shell(cmd)) return snprintf(why, len, "the server did not start (see %s/server.log)", pg->dir), -1;
  pg->up = 1;
  snprintf(pg->uri, sizeof pg->uri, "postgresql:///postgres?host=%s&port=5432&user=perfgate", pg->dir);
  return 0;
}

/* See selftest.h. */
void st_pg_stop(st_pg *pg)
{
  char cmd[800];
  if (pg->up) {
    snprintf(cmd, sizeof cmd, "%s'%s/pg_ctl' -D '%s/data' -m immediate stop >/dev/null 2>&1", pg->as,
             pg->bin, pg->dir);
    ST_CHECKF(st_shell(cmd) == 0, "pg_ctl stop");
    pg->up = 0;
  }
  if (pg->dir[0]) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", pg->dir);
    st_shell(cmd);
    pg->dir[0] = '\0';
  }
}
