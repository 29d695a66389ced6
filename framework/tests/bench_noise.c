/* bench_noise.c — make bench-noise: its table maker, its refusals, and no load left behind. */
/* The table maker runs on crafted reports; the load it injects never
 * outlives it (on an error, on Ctrl-C). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "selftest.h"

/* Runs cmd (make's variables cleared) with its output in dir/name; returns
 * its exit code and the output (malloc'd, "" when unreadable) in *out. */
static int run_in(const char *dir, const char *name, const char *cmd, char **out)
{
  char full[4096], log[600];
  snprintf(log, sizeof log, "%s/%s", dir, name);
  snprintf(full, sizeof full, "env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS sh -c '%s' >'%s' 2>&1", cmd,
           log);
  int rc = st_shell(full);
  *out = st_slurp(log);
  if (!*out) *out = strdup("");
  return rc;
}

/* 1 when python3 runs; else the test is skipped, saying so. */
static int need_python3(void)
{
  if (st_shell("python3 -c pass >/dev/null 2>&1") == 0) return 1;
  st_skip("python3 is not installed (bench/noise_summary.py needs it)");
  return 0;
}

/* The crafted outputs in framework/tests/noise (a red quiet reference, a
 * cpu-all and a gpu run, an A/A file) are each classified as the quiet run
 * and the injection make them: a PASS turned FAIL is wrong, an INCONCLUSIVE
 * naming the co-tenant under gpu is named, one naming the host under gpu
 * another cause, one naming nothing a defect, a retaken or second-attempt
 * claim decided right despite the noise, a timed-out test's claim not
 * reached; the A/A line is split into FAIL, named and unnamed
 * INCONCLUSIVE and false passes. Without a reference it exits 2. */
ST_TEST(bench_noise_summary_classifies_claims_against_the_quiet_run)
{
  if (!need_python3()) return;
  char dir[] = "/tmp/perfgate-noise-XXXXXX", cmd[1200], *out;
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof cmd, "cp -r framework/tests/noise \"%s/out\" && python3 bench/noise_summary.py \"%s/out\"",
           dir, dir);
  int rc = run_in(dir, "summary.txt", cmd, &out);
  static const char *const want[] = {
      "**The quiet reference run was not green** (exit 1; red: s.t1)",
      "7 claims with an id, 1 of them neither PASS nor FAIL",
      "| s.t1 :: f.c:1 | PASS | FAIL | wrong |",
      "| s.t1 :: f.c:3 | PASS | INCONCLUSIVE | named | another process used the GPU |",
      "| s.t1 :: f.c:4 | PASS | INCONCLUSIVE | unnamed | time budget spent |",
      "| s.t1 :: f.c:5 | PASS | INCONCLUSIVE | other | time budget spent; the host: other processes",
      "| s.t1 :: f.c:5 | PASS | INCONCLUSIVE | named | samples the host preempted on every retake",
      "| s.t2 :: g.c:1 | PASS | - | missing |",
      "(despite: host retakes 1)",
      "(despite: second attempt 1)",
      "| cpu-half | events | 10 | 3 | 1 | 1 | 1 | 1/2 |",
      "- wrong verdicts under injections (target 0): 1",
      "- INCONCLUSIVE not naming the injected cause (target 0): 1 naming another cause, 1 naming none",
      "- A/A beside cpu-half, events clock (target at most 1 FAIL per 1000 must-hold claims, "
      ">= 1000 claims): 1 FAIL, 3 not PASS of 10",
      /* runs, right, despite, named, other, unnamed, wrong, not reached, red, timeouts,
       * the longest run's seconds against the quiet reference's (a log without them: -) */
      "| cpu-all | 1 | 4 | 1 | 1 | 0 | 0 | 0 | 1 | 2 | 1 (1 named) | 80.5 (2.00x) | - | - |",
      "| gpu | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 2 | 1 (0 named) | - | - | - |",
      "| cpu-half | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 (0 named) | - | 1/10 | - |"};
  ST_EQ(rc, 0);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    ST_CHECKF(strstr(out, want[i]) != NULL, "missing '%s' in:\n%s", want[i], out);
  ST_CHECKF(!strstr(out, "f.c:6") && !strstr(out, "f.c:9"),
            "a claim without a reference verdict or without an id was counted:\n%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s/out/results.md", dir);
  char *md = st_slurp(cmd);
  ST_CHECKF(md && strstr(md, "## Summary"), "%s: %s", cmd, md ? md : "(unreadable)");
  free(md);
  snprintf(cmd, sizeof cmd, "rm \"%s/out/quiet/suite.1.json\" && python3 bench/noise_summary.py \"%s/out\"",
           dir, dir);
  rc = run_in(dir, "noref.txt", cmd, &out);
  ST_CHECKF(rc == 2 && strstr(out, "noise_summary: no quiet reference: "), "%d: %s", rc, out);
  free(out);
  st_rmtree(dir);
}

/* Bad knobs are refused (exit 2, the knob named) before anything starts,
 * and noise-load refuses a co-tenant kind it does not know; without a GPU
 * the benchmark stops at its probe with exit 2 and says why; with one,
 * the probe names it. */
ST_TEST(bench_noise_refuses_bad_knobs_and_needs_a_gpu)
{
  static const struct {
    const char *env, *want;
  } bad[] = {{"NOISE_RUNS=x", "bench-noise: NOISE_RUNS=x: need a whole number"},
             {"NOISE_AA=-1", "bench-noise: NOISE_AA=-1: need a whole number"},
             {"NOISE_INJECT=cpu,gpu", "bench-noise: NOISE_INJECT: unknown word 'cpu'"},
             {"NOISE_AA_CLOCKS=wall", "bench-noise: NOISE_AA_CLOCKS: unknown word 'wall'"},
             {"NOISE_RUN_FROM=0", "bench-noise: NOISE_RUN_FROM=0: need a whole number of at least 1"},
             {"NOISE_RUNS=0 NOISE_AA=0", "nothing to measure"},
             {"NOISE_INJECT=quiet,copies", "NOISE_INJECT: unknown word 'copies' (known: quiet, "
              "cpu-all, cpu-half, gpu, both, copy, tiny, matmul, bursty, idle)"}};
  char dir[] = "/tmp/perfgate-noise-XXXXXX", cmd[1600], *out;
  const char *b = st_build_dir();
  ST_CHECK(mkdtemp(dir) != NULL);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "BUILD=%s NOISE_OUT=%s/out %s bash bench/noise.sh", b, dir, bad[i].env);
    int rc = run_in(dir, "knob.txt", cmd, &out);
    ST_CHECKF(rc == 2 && strstr(out, bad[i].want), "%s: %d: %s", bad[i].env, rc, out);
    free(out);
  }
  snprintf(cmd, sizeof cmd, "make -s BUILD=%s %s/noise-load", b, b);
  int rc = run_in(dir, "make.txt", cmd, &out);
  ST_CHECKF(rc == 0, "make: %d: %s", rc, out);
  free(out);
  if (rc) {
    st_rmtree(dir);
    return;
  }
  /* an unknown co-tenant kind is refused before any CUDA call, naming it */
  snprintf(cmd, sizeof cmd, "%s/noise-load gpu \"%s/ready\" nosuchkind", b, dir);
  rc = run_in(dir, "kind.txt", cmd, &out);
  ST_CHECKF(rc == 2 && strstr(out, "noise-load: gpu co-tenant: choosing the kind failed: nosuchkind"),
            "%d: %s", rc, out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s/noise-load probe", b);
  rc = run_in(dir, "probe.txt", cmd, &out);
  if (st_have_gpu()) {
    ST_CHECKF(rc == 0 && strstr(out, "noise-load: GPU 0 of "), "%d: %s", rc, out);
  } else {
    ST_CHECKF(rc == 2 && strstr(out, "noise-load: no CUDA device ("), "%d: %s", rc, out);
    free(out);
    /* the real noise-load, and a perftest that must not run */
    snprintf(cmd, sizeof cmd, "mkdir \"%s/b\" && cp \"%s/noise-load\" \"%s/b/noise-load\" && "
             "printf \"#!/bin/sh\\ntouch \\\"%s/ran\\\"\\n\" > \"%s/b/perftest\" && chmod +x \"%s/b/perftest\" && "
             "BUILD=%s/b NOISE_OUT=%s/out NOISE_AA=0 bash bench/noise.sh", dir, b, dir, dir, dir, dir, dir, dir);
    rc = run_in(dir, "nogpu.txt", cmd, &out);
    ST_CHECKF(rc == 2 && strstr(out, "bench-noise: no GPU run possible: noise-load: no CUDA device ("),
              "%d: %s", rc, out);
    snprintf(cmd, sizeof cmd, "%s/ran", dir);
    ST_CHECKF(access(cmd, F_OK) != 0, "the suite ran without a GPU");
  }
  free(out);
  st_rmtree(dir);
}

/* Processes whose command line mentions s (not this one); their count. */
static int processes_naming(const char *s)
{
  DIR *d = opendir("/proc");
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) {
    char path[300], cmd[4096];
    if (e->d_name[0] < '1' || e->d_name[0] > '9' || atoi(e->d_name) == getpid()) continue;
    snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    size_t len = fread(cmd, 1, sizeof cmd - 1, f);
    fclose(f);
    for (size_t i = 0; i < len; i++)
      if (!cmd[i]) cmd[i] = ' ';
    cmd[len] = '\0';
    n += strstr(cmd, s) != NULL;
  }
  closedir(d);
  return n;
}

/* Waits up to s seconds for processes_naming(what) to be at least n (n
 * 0: none left); returns the last count. */
static int wait_for_count(const char *what, int n, double s)
{
  int k = processes_naming(what);
  for (int i = 0; i < (int)(s * 20) && (n ? k < n : k > 0); i++) {
    struct timespec t = {0, 50000000};
    nanosleep(&t, NULL);
    k = processes_naming(what);
  }
  return k;
}

/* A stand-in build directory: noise-load (the real one, copied, behind a
 * wrapper whose probe says there is a GPU) and a perftest that writes a
 * small report and, in the cpu-half injection, waits like a long suite.
 * Returns 0 or -1. */
static int stub_build(const char *d, const char *real_build)
{
  char cmd[2400];
  snprintf(cmd, sizeof cmd,
           "cp \"%s/noise-load\" \"%s/noise-load.real\" && "
           "printf '%%s\\n' '#!/bin/bash' 'case $1 in probe) echo \"noise-load: GPU 0 of 1 visible: stub\"; exit 0;; esac' "
           "'exec \"%s/noise-load.real\" \"$@\"' > \"%s/noise-load\" && "
           "printf '%%s\\n' '#!/bin/bash' 'for a; do case $a in --json=*) j=${a#--json=};; esac; done' "
           "'printf %%s \"{\\\"run\\\": {\\\"exit_code\\\": 0}, \\\"tests\\\": [{\\\"name\\\": \\\"s.t\\\", "
           "\\\"outcome\\\": \\\"PASS\\\", \\\"claims\\\": [{\\\"message\\\": \\\"FASTER(a, b, 2) at f.c:1: PASS\\\", "
           "\\\"outcome\\\": \\\"PASS\\\", \\\"id\\\": \\\"f.c:1\\\"}], \\\"lines\\\": []}]}\" > \"$j\"' "
           "'case $j in */cpu-half/*) exec -a \"%s/held-suite\" sleep 300;; esac' > \"%s/perftest\" && "
           "chmod +x \"%s/noise-load\" \"%s/perftest\"",
           real_build, d, d, d, d, d, d, d);
  return st_shell(cmd) ? -1 : 0;
}

/* The busy loops and the co-tenant never outlive the benchmark: where the
 * co-tenant cannot start (no GPU) it exits 2 saying so, with the busy loops
 * of the same injection stopped; on Ctrl-C in a run it stops the loops and
 * the suite and exits 130. (With a GPU the first run completes instead.) */
ST_TEST(bench_noise_stops_its_load_on_an_error_and_on_ctrl_c)
{
  if (!need_python3()) return;
  char d[] = "/tmp/perfgate-noise-XXXXXX", cmd[2400], *out;
  const char *b = st_build_dir();
  ST_CHECK(mkdtemp(d) != NULL);
  snprintf(cmd, sizeof cmd, "make -s BUILD=%s %s/noise-load", b, b);
  int rc = run_in(d, "make.txt", cmd, &out);
  ST_CHECKF(rc == 0, "make: %d: %s", rc, out);
  free(out);
  if (rc || stub_build(d, b)) {
    ST_CHECKF(0, "cannot set up the stand-in build in %s", d);
    return;
  }
  /* an error while the busy loops of "both" run */
  snprintf(cmd, sizeof cmd, "BUILD=%s NOISE_OUT=%s/out NOISE_INJECT=quiet,both NOISE_RUNS=1 "
           "NOISE_AA=0 bash bench/noise.sh", d, d);
  rc = run_in(d, "both.txt", cmd, &out);
  if (st_have_gpu())
    ST_CHECKF(rc == 0 && strstr(out, "| both | 1 | 1 |"), "%d: %s", rc, out);
  else
    ST_CHECKF(rc == 2 && strstr(out, "bench-noise: the GPU co-tenant did not start: noise-load: gpu "
                                     "co-tenant: ") && strstr(out, "both: starting"),
              "%d: %s", rc, out);
  free(out);
  char inject[600];
  snprintf(inject, sizeof inject, "%s/out/both/inject.txt", d);
  char *said = st_slurp(inject);
  ST_CHECKF(said && strstr(said, "cpu busy loops: "), "the busy loops did not start: %s",
            said ? said : "(no inject.txt)");
  free(said);
  ST_EQ(wait_for_count(d, 0, 5), 0);

  /* Ctrl-C while the suite runs beside the cpu-half busy loops */
  pid_t pid = fork();
  if (pid == 0) {
    char env_b[600], env_o[600];
    snprintf(env_b, sizeof env_b, "BUILD=%s", d);
    snprintf(env_o, sizeof env_o, "NOISE_OUT=%s/out", d);
    char *const env[] = {env_b, env_o, "NOISE_INJECT=cpu-half", "NOISE_RUNS=1", "NOISE_AA=0",
                         "PATH=/usr/local/bin:/usr/bin:/bin", NULL};
    int null = open("/dev/null", 1);
    if (null >= 0) dup2(null, 1), dup2(null, 2);
    /* as at a terminal: a shell started with SIGINT ignored (make test run
     * in the background, as a CI step may be) cannot trap it */
    signal(SIGINT, SIG_DFL);
    execle("/bin/bash", "bash", "bench/noise.sh", (char *)NULL, env);
    _exit(127);
  }
  char held[600], spin[600];
  snprintf(held, sizeof held, "%s/held-suite", d);
  snprintf(spin, sizeof spin, "%s/noise-load.real spin", d);
  ST_CHECK(pid > 0);
  int suite = wait_for_count(held, 1, 60), loops = processes_naming(spin);
  ST_CHECKF(suite == 1 && loops >= 1, "the suite (%d) and its busy loops (%d) did not start", suite,
            loops);
  kill(pid, SIGINT);
  int st = 0;
  ST_EQ(waitpid(pid, &st, 0), pid);
  ST_CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 130, "status %d", st);
  ST_EQ(processes_naming(d), 0);
  ST_EQ(wait_for_count(d, 0, 5), 0); /* none left, even later */
  st_rmtree(d);
}
