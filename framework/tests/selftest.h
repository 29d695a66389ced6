/* selftest.h — a small harness for perfgate's own tests; each test runs in a forked child. */
#ifndef PERF_SELFTEST_H
#define PERF_SELFTEST_H

#include <stddef.h>

typedef struct st_case {
  const char *name;
  void (*fn)(void);
  struct st_case *next;
} st_case;

void st_register(st_case *c);

#define ST_TEST(name)                                                    \
  static void st_body_##name(void);                                      \
  static st_case st_case_##name = {#name, st_body_##name, 0};            \
  __attribute__((constructor)) static void st_reg_##name(void)           \
  {                                                                      \
    st_register(&st_case_##name);                                        \
  }                                                                      \
  static void st_body_##name(void)

/* Each check counts; a failed one prints where and what. */
int st_check(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define ST_CHECK(cond) st_check(!!(cond), __FILE__, __LINE__, "%s", #cond)
#define ST_CHECKF(cond, ...) st_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define ST_EQ(a, b) st_eq((long long)(a), (long long)(b), #a, #b, __FILE__, __LINE__)
#define ST_NEAR(a, b, tol) \
  st_near((double)(a), (double)(b), (double)(tol), #a, #b, __FILE__, __LINE__)
#define ST_STR(a, b) st_str((a), (b), #a, #b, __FILE__, __LINE__)
/* Each operand is evaluated once. */
int st_eq(long long a, long long b, const char *as, const char *bs,
          const char *file, int line);
int st_str(const char *a, const char *b, const char *as, const char *bs,
           const char *file, int line);
int st_near(double a, double b, double tol, const char *as, const char *bs,
            const char *file, int line);

/* Marks the running test skipped with a printf-style reason: it counts as
 * skipped (not passed) unless one of its checks failed. The caller then
 * returns. */
void st_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Path of the fixture perftest binary (--fixture=). */
extern const char *st_fixture;
/* The directory holding it (build outputs such as libnocupti.so). */
const char *st_build_dir(void);

/* The command that st_exec puts before the fixture: $PERF_SELFTEST_WRAP
 * (make test-valgrind sets it to valgrind and its options), or "". */
const char *st_wrap(void);
/* 1 under such a wrapper: tests give timeouts and budgets room for a
 * 20-50x slower fixture. */
int st_slow(void);

/* A whole file, NUL-terminated (malloc'd), or NULL. */
char *st_slurp(const char *path);
/* Runs fn(arg) in this process with stdout and stderr into one buffer;
 * returns it (malloc'd; NULL when it could not be read back). */
char *st_captured(void (*fn)(void *), void *arg);
/* Occurrences of needle in s. */
int st_count(const char *s, const char *needle);
/* Files in dir whose name holds ".tmp." (an atomic writer's temporaries);
 * 0 when dir cannot be read. */
int st_temp_files(const char *dir);
/* Runs cmd with sh -c; returns its exit code (128 when it did not exit). */
int st_shell(const char *cmd);
/* Removes a temporary directory tree; checks that it went. */
void st_rmtree(const char *dir);

/* A finished run of the fixture binary. */
typedef struct st_run {
  int status;   /* exit code, or 128+signal */
  char *out;    /* stdout and stderr together */
} st_run;

/* Runs "env fixture args" through the shell, capturing output; env may be
 * "" or "VAR=x ". Fails the calling test when it cannot run. */
void st_exec(st_run *r, const char *env, const char *args);
void st_run_free(st_run *r);
/* The result line of test name ("PASS  name (..."), copied into line;
 * returns the outcome word or "" when absent. */
const char *st_outcome(const st_run *r, const char *name, char *line,
                       size_t len);
/* The first line of r containing both a and b (b may be NULL), or NULL. */
const char *st_line_with(const st_run *r, const char *a, const char *b,
                         char *line, size_t len);
/* The baseline file the fixture's host-only tests use under dir (the
 * CPU's, as --print-baseline-file names it with no GPU visible). */
void st_host_baseline_file(const char *dir, char *path, size_t len);
/* st_exec with build/libnocupti.so preloaded: CUPTI refuses to attach, as
 * when a profiler holds it. */
void st_exec_without_cupti(st_run *r, const char *args);
/* Checks that test name's outcome is word and, unless want is NULL, that
 * its result line contains want. */
void st_expect(const st_run *r, const char *name, const char *word, const char *want);
/* The verdict of claim head in r, on a runner others may load: 1 when
 * its line says word (": PASS:"); 0 when it is INCONCLUSIVE and names the
 * host as the cause ("; the host: ..."), as perfgate must on a loaded
 * machine (noted in the test's output); a check failure and -1 otherwise
 * (the other verdict, or undecided with no host cause). */
int st_claim_or_host(const st_run *r, const char *head, const char *word);
/* The same without the check: 1, 0 or -1. */
int st_claim_verdict(const st_run *r, const char *head, const char *word);
/* The speedup printed on the verdict line of claim head, or -1. */
double st_speedup(const st_run *r, const char *head);
/* 1 when this machine has a usable CUDA device (GPU fixtures then run). */
int st_have_gpu(void);
/* The last non-empty line of the output. */
const char *st_last_line(const st_run *r, char *line, size_t len);

/* A copy of the fixture that uid and gid 65534 (nobody) can run, for the
 * tests that, as root, drop to an unprivileged user: wherever the checkout
 * lies (under a home directory of mode 700, say), the binary, those of its
 * shared libraries uid 65534 cannot read and the sanitizers' suppression
 * files are copied into a temporary directory it can read, where it also
 * runs and writes the sanitizers' logs (st_nobody_end hands them to the
 * run's own log directory). Under $PERF_SELFTEST_WRAP (valgrind), the copy
 * runs without the wrapper. */
typedef struct st_nobody {
  char dir[64];        /* the temporary directory (mode 755) */
  char fixture[128];   /* the copy of the fixture in it */
  char as[4096];       /* shell words that run what follows as uid 65534 there */
  char logs[2][1024];  /* sanitizer log directories: uid 65534's, the run's */
} st_nobody;

/* Prepares nb (root only). Returns 0, or -1 with the reason why nothing can
 * run as uid 65534 here (not root, no setpriv, the uid cannot be taken, the
 * copy does not start): the caller skips, saying so. */
int st_nobody_begin(st_nobody *nb, char *why, size_t len);
/* st_exec of the copy, as uid 65534 in its directory. */
void st_nobody_exec(st_run *r, const st_nobody *nb, const char *args);
/* Moves uid 65534's sanitizer logs to the run's log directory and removes
 * the temporary directory. */
void st_nobody_end(st_nobody *nb);

/* A PostgreSQL server of the test's own in a temporary directory (its
 * socket there, no TCP); as root it runs as the postgres user (or nobody).
 * uri is the --history location that reaches it. */
typedef struct st_pg {
  char dir[128], bin[256], as[64], uri[400];
  int up;
} st_pg;
/* Starts one. Returns 0, or -1 with why it cannot (no server installed,
 * initdb or the server failed) in why[len]: the caller skips, saying so.
 * Call st_pg_stop either way. */
int st_pg_start(st_pg *pg, char *why, size_t len);
/* Stops the server (checking that it stopped) and removes its directory. */
void st_pg_stop(st_pg *pg);

/* The keys of the JSON object o (a perf__jsontree_node; anything else:
 * none) joined by spaces, into buf[len]. Returns buf; never fails. */
struct perf__jsontree_node;
const char *st_json_keys(const struct perf__jsontree_node *o, char *buf, size_t len);

#endif
