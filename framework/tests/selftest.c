/* selftest.c — the harness's runner: forks each test, counts checks, prints "N passed, N failed, N skipped". */
#define _GNU_SOURCE
#include "selftest.h"

#include <dirent.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv)
{
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "--fixture=", 10))
      st_fixture = argv[i] + 10;
    else if (!strncmp(argv[i], "--only=", 7))
      only = argv[i] + 7;
    else {
      fprintf(stderr, "usage: %s [--fixture=PATH] [--only=SUBSTRING]\n", argv[0]);
      return 2;
    }
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  int passed = 0, failed = 0, skipped = 0;
  for (st_case *c = head; c; c = c->next) {
    if (only && !strstr(c->name, only)) continue;
    double t0 = now();
    char skip[300];
    int ok = run_case(c, 300, skip, sizeof skip);
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

void st_exec(st_run *r, const char *env, const char *args)
{
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s%s '%s' %s 2>&1", env, st_wrap(), st_fixture, args);
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

void st_rmtree(const char *dir)
{
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ST_CHECKF(system(cmd) == 0, "%s", cmd);
}
