/* build.c — the build as a user meets it, from prerequisite messages to an install. */
/* Prerequisite messages, install + pkg-config (the README's first perf test
 * too), PERFTESTS=dir. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/jsontree.h"
#include "selftest.h"

/* Runs a shell command with make's own variables cleared; returns its exit
 * code and its output (malloc'd) in *out. */
static int sh(const char *cmd, char **out)
{
  char full[4096];
  snprintf(full, sizeof full, "env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS sh -c '%s' 2>&1", cmd);
  FILE *p = popen(full, "r");
  size_t len = 0, cap = 1 << 16;
  *out = calloc(1, cap);
  if (!p || !*out) return -1;
  size_t n;
  while ((n = fread(*out + len, 1, cap - len - 1, p)) > 0) {
    len += n;
    if (cap - len < 1024) {
      cap *= 2;
      *out = realloc(*out, cap);
      if (!*out) abort();
    }
  }
  (*out)[len] = '\0';
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

ST_TEST(build_missing_prerequisites_name_what_to_install)
{
  char *out;
  int rc = sh("make -n YAML_LIBS= YAML_CFLAGS= build/libperfgate.a", &out);
  ST_CHECKF(rc == 2 && strstr(out, "install libyaml-dev"), "%d: %s", rc, out);
  free(out);
  rc = sh("make -n SQLITE_LIBS= SQLITE_CFLAGS= build/libperfgate.a", &out);
  ST_CHECKF(rc == 2 && strstr(out, "install libsqlite3-dev"), "%d: %s", rc, out);
  free(out);
  rc = sh("make -n PQ_CFLAGS=-I/nonexistent build/libperfgate.a", &out);
  ST_CHECKF(rc == 2 && strstr(out, "install libpq-dev"), "%d: %s", rc, out);
  free(out);
  rc = sh("make -n NVCC=/nonexistent/nvcc all", &out);
  ST_CHECKF(rc == 2 && strstr(out, "nvcc not found"), "%d: %s", rc, out);
  free(out);
  rc = sh("make -n CUDA_HOME=/nonexistent test", &out);
  ST_CHECKF(rc == 2 && strstr(out, "install the CUDA toolkit"), "%d: %s", rc, out);
  free(out);
  /* make check-baselines asks for libyaml alone: not the toolkit, nvcc,
   * SQLite or libpq */
  rc = sh("make -n CUDA_HOME=/nonexistent NVCC=/nonexistent/nvcc SQLITE_LIBS= PQ_CFLAGS=-I/nonexistent "
          "check-baselines", &out);
  ST_CHECKF(rc == 0 && strstr(out, "perfgate-baselines"), "%d: %s", rc, out);
  free(out);
  rc = sh("make -n YAML_LIBS= YAML_CFLAGS= check-baselines", &out);
  ST_CHECKF(rc == 2 && strstr(out, "install libyaml-dev"), "%d: %s", rc, out);
  free(out);
}

/* make check-baselines on a machine without CUDA (CPU-only CI): with no
 * toolkit, SQLite or libpq to build with, it builds build/perfgate-baselines
 * from the modules that need none, linked with libyaml alone (ldd names no
 * CUDA library: perftest --check-baselines needed libcublas and exited 127
 * without it), and validates the shipped baselines/ as perftest
 * --check-baselines does; an option of perftest's is refused (exit 2). */
ST_TEST(build_check_baselines_needs_no_cuda)
{
  char dir[] = "/tmp/perfgate-cpuonly-XXXXXX", cmd[1200], *out;
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof cmd, "make -s BUILD=%s CUDA_HOME=/nonexistent NVCC=/nonexistent/nvcc "
           "SQLITE_LIBS= SQLITE_CFLAGS= PQ_CFLAGS=-I/nonexistent check-baselines", dir);
  int rc = sh(cmd, &out);
  ST_CHECKF(rc == 0 && strstr(out, "ok    baselines/nvidia-h100-80gb-hbm3.yaml: ") &&
                strstr(out, "baseline files in baselines, all valid"), "%d: %s", rc, out);
  free(out);
  snprintf(cmd, sizeof cmd, "ldd %s/perfgate-baselines", dir);
  rc = sh(cmd, &out);
  ST_CHECKF(rc == 0 && strstr(out, "libyaml") && !strstr(out, "libcuda") && !strstr(out, "libcublas") &&
                !strstr(out, "libcupti") && !strstr(out, "libsqlite") && !strstr(out, "libpq"),
            "%d: %s", rc, out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s/perfgate-baselines --filter=x", dir);
  rc = sh(cmd, &out);
  ST_CHECKF(rc == 2 && strstr(out, "perfgate-baselines: --filter is an option of perftest"), "%d: %s",
            rc, out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  free((sh(cmd, &out), out));
}

static const char *user_test =
    "#include <perfgate.h>\\n"
    "static void one(void *a) { (void)a; for (volatile int i = 0; i < 100; i++) {} }\\n"
    "PERF_TEST(mine, works) { perf_workload w = PERF_WORKLOAD(one, 0); "
    "PERF_EXPECT_SIMILAR(w, w, 0.5); }\\n";

/* The README's recipe: install, then build a user's perf test through
 * pkg-config, with libperfgate.a supplying main(). */
ST_TEST(build_install_and_link_through_pkg_config)
{
  char dir[] = "/tmp/perfgate-install-XXXXXX", cmd[3000], *out;
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof cmd,
           "make -s install BUILD=%s PREFIX=%s/prefix && printf \"%s\" > %s/mine.c && "
           "export PKG_CONFIG_PATH=%s/prefix/lib/pkgconfig && "
           "cc -std=c11 -o %s/mine %s/mine.c $(pkg-config --cflags --libs perfgate) $LDFLAGS && "
           "%s/mine --color=never && %s/prefix/bin/perfgate-baselines --version",
           st_build_dir(), dir, user_test, dir, dir, dir, dir, dir, dir);
  int rc = sh(cmd, &out);
  ST_CHECKF(rc == 0 && strstr(out, "PASS  mine.works") &&
                strstr(out, "1 passed, 0 failed, 0 skipped") &&
                strstr(out, "(built without CUDA: baseline files only)"),
            "%d: %s", rc, out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  free((sh(cmd, &out), out));
}

/* The README's first perf test, built from the README alone as a stranger
 * would: its first C block written to a fresh directory, compiled with
 * the README's pkg-config line against `make install` into a temporary
 * prefix (every warning an error too), run. Without a GPU it skips saying
 * why, exit 0; with one its claim is decided (a verdict line, whatever the
 * verdict: no timing is asserted). */
ST_TEST(build_readme_first_perf_test_compiles_from_the_readme_alone)
{
  char dir[] = "/tmp/perfgate-readme-XXXXXX", cmd[3000], path[300], *out;
  ST_CHECK(mkdtemp(dir) != NULL);
  char *readme = st_slurp("README.md");
  const char *from = readme ? strstr(readme, "\n```c\n") : NULL;
  const char *to = from ? strstr(from + 6, "\n```\n") : NULL;
  ST_CHECKF(to != NULL, "README.md has no ```c block");
  snprintf(path, sizeof path, "%s/sync.c", dir);
  FILE *f = to ? fopen(path, "w") : NULL;
  ST_CHECK(!to || (f && fwrite(from + 6, 1, (size_t)(to - from - 5), f) == (size_t)(to - from - 5) && !fclose(f)));
  free(readme);
  snprintf(cmd, sizeof cmd,
           "make -s install BUILD=%s PREFIX=%s/prefix && cd %s && export PKG_CONFIG_PATH=%s/prefix/lib/pkgconfig && "
           "cc -std=c11 -Wall -Wextra -Werror -o run-sync sync.c $(pkg-config --cflags --libs perfgate) $LDFLAGS && "
           "./run-sync --color=never; echo \"exit $?\"",
           st_build_dir(), dir, dir, dir);
  int rc = sh(cmd, &out);
  if (st_have_gpu())
    ST_CHECKF(rc == 0 && strstr(out, "sync_points.small_gemm_async_beats_sync_each") &&
                  strstr(out, "FASTER(async, sync_each, 1.3)"), "%d: %s", rc, out);
  else
    ST_CHECKF(rc == 0 && strstr(out, "SKIP  sync_points.small_gemm_async_beats_sync_each") &&
                  strstr(out, "skipped: no CUDA device") && strstr(out, "0 passed, 0 failed, 1 skipped") &&
                  strstr(out, "exit 0"), "%d: %s", rc, out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  free((sh(cmd, &out), out));
}

/* $LDFLAGS (a sanitizer build's: the library's objects need its runtime)
 * in the form nvcc hands to the host compiler that links, into out[len]:
 * each word as "-Xcompiler=WORD", its commas escaped. Never fails. */
static void nvcc_link_flags(char *out, size_t len)
{
  const char *p = getenv("LDFLAGS");
  size_t used = 0;
  out[0] = '\0';
  while (p && *p) {
    p += strspn(p, " ");
    size_t n = strcspn(p, " ");
    if (n && used + 16 + 2 * n < len) {
      used += (size_t)snprintf(out + used, len - used, " \"-Xcompiler=");
      for (size_t i = 0; i < n; i++) {
        if (p[i] == ',') out[used++] = '\\';
        out[used++] = p[i];
      }
      out[used++] = '"';
      out[used] = '\0';
    }
    p += n;
  }
}

/* The README's recipe for CUDA C++: a .cu perf test (a <<<...>>> launch, a
 * lambda and a template as workloads, designated options, sweeps, a sync
 * check) built by nvcc through the installed package (pkg-config
 * perfgate-nvcc), at nvcc's default C++17 and at C++20, every warning an
 * error; then run. Without a GPU each test is skipped saying why (the
 * unchecked one too: never timed), exit 0, and 2 with --require-gpu; with
 * one, the checked and the unchecked tests pass and the failing launch is
 * an ERROR naming cudaLaunchKernel at its line. */
ST_TEST(build_cuda_cxx_perf_test_with_nvcc_through_pkg_config)
{
  char dir[] = "/tmp/perfgate-nvcc-XXXXXX", cmd[3000], link[600], *out;
  ST_CHECK(mkdtemp(dir) != NULL);
  nvcc_link_flags(link, sizeof link);
  snprintf(cmd, sizeof cmd, "command -v nvcc || ls %s/bin/nvcc", getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda");
  int rc = sh(cmd, &out);
  char nvcc[600];
  snprintf(nvcc, sizeof nvcc, "%.*s", (int)strcspn(out, "\n"), out);
  free(out);
  if (rc) {
    st_skip("nvcc not found (install the CUDA toolkit's nvcc)");
    st_rmtree(dir);
    return;
  }
  snprintf(cmd, sizeof cmd,
           "make -s install BUILD=%s PREFIX=%s/prefix && export PKG_CONFIG_PATH=%s/prefix/lib/pkgconfig && "
           "strict=\"-Werror all-warnings -Xcompiler=-Wall,-Wextra,-Werror\" && "
           "%s -std=c++20 $strict -c -o %s/t20.o framework/tests/fixtures/cudauser.cu $(pkg-config --cflags perfgate-nvcc) && "
           "%s $strict -o %s/t framework/tests/fixtures/cudauser.cu $(pkg-config --cflags --libs perfgate-nvcc)%s && "
           "%s/t --color=never",
           st_build_dir(), dir, dir, nvcc, dir, nvcc, dir, link, dir);
  rc = sh(cmd, &out);
  if (strstr(out, "no CUDA device")) {
    ST_CHECKF(rc == 0 && strstr(out, "0 passed, 0 failed, 3 skipped") &&
                  st_count(out, "skipped: no CUDA device (") == 3,
              "%d: %s", rc, out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/t --color=never --require-gpu", dir);
    rc = sh(cmd, &out);
    ST_CHECKF(rc == 2, "--require-gpu: %d: %s", rc, out);
  } else
    ST_CHECKF(rc == 1 && strstr(out, "PASS  cxx.kernel_lambda_and_template") &&
                  strstr(out, "PASS  cxx.unchecked_calls_like_the_issue") &&
                  strstr(out, "ERROR cxx.failing_launch_is_an_error") &&
                  strstr(out, "workload 'w': cudaLaunchKernel failed at framework/tests/fixtures/cudauser.cu:") &&
                  /* CUDA 13 on an H100 says cudaErrorInvalidValue, older
                   * runtimes cudaErrorInvalidConfiguration */
                  (strstr(out, "(cudaErrorInvalidConfiguration)") ||
                   strstr(out, "(cudaErrorInvalidValue)")),
              "%d: %s", rc, out);
  free(out);
  st_rmtree(dir);
}

/* A dependency given with a linker flag (SQLITE_LIBS with -Wl,-rpath,DIR,
 * for a copy outside the system's paths) reaches each pkg-config module in
 * its compiler's form: perfgate.pc keeps -Wl,, perfgate-nvcc.pc says
 * -Xlinker= (nvcc stops at an unknown -Wl,). */
ST_TEST(build_pkg_config_modules_carry_a_linker_flag_in_each_compilers_form)
{
  char dir[] = "/tmp/perfgate-pc-XXXXXX", cmd[1200], path[300], *out;
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof cmd, "make -s BUILD=%s %s/perfgate.pc %s/perfgate-nvcc.pc "
           "SQLITE_LIBS=\"-L/opt/sq -lsqlite3 -Wl,-rpath,/opt/sq\"", dir, dir, dir);
  int rc = sh(cmd, &out);
  ST_CHECKF(rc == 0, "%d: %s", rc, out);
  free(out);
  snprintf(path, sizeof path, "%s/perfgate.pc", dir);
  char *cc = st_slurp(path);
  snprintf(path, sizeof path, "%s/perfgate-nvcc.pc", dir);
  char *nv = st_slurp(path);
  if (ST_CHECK(cc && nv)) {
    ST_CHECKF(strstr(cc, " -Wl,-rpath,/opt/sq ") && !strstr(cc, "-Xlinker"), "%s", cc);
    ST_CHECKF(strstr(nv, " -Xlinker=-rpath,/opt/sq ") && !strstr(nv, "-Wl,"), "%s", nv);
  }
  free(cc);
  free(nv);
  st_rmtree(dir);
}

/* make perftest PERFTESTS=dir builds someone else's directory of tests. */
ST_TEST(build_perftests_from_another_directory)
{
  char dir[] = "/tmp/perfgate-user-XXXXXX", cmd[3000], *out;
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s/tests && printf \"%s\" > %s/tests/mine.c && "
           "make -s perftest BUILD=%s/build PERFTESTS=%s/tests ARGS=\"--list\"",
           dir, user_test, dir, dir, dir);
  int rc = sh(cmd, &out);
  ST_CHECKF(rc == 0 && strstr(out, "mine.works\n") &&
                !strstr(out, "sync_points."),
            "%d: %s", rc, out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  free((sh(cmd, &out), out));
}

/* Counts the lines of s that start with prefix. */
static int count_lines(const char *s, const char *prefix)
{
  int n = 0;
  size_t len = strlen(prefix);
  for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
    n += strncmp(p, prefix, len) == 0;
  return n;
}

/* On a GPU: each fault fails with its cause, and each after_* test passes
 * in a worker other than the one its fault test ran in. */
static void gpu_faults_fail_alone(int rc, const char *out, const char *json)
{
  static const char *const cause[][2] = {
      {"faults.illegal_address", "cudaErrorIllegalAddress"},
      {"faults.device_memory_exhausted", "cudaErrorMemoryAllocation"},
      {"faults.kernel_never_ends", "timed out after 20 s"},
      {"faults.test_calls_exit", "exit status 3 before it finished"}};
  ST_CHECKF(rc == 1 && strstr(out, "4 passed, 4 failed, 0 skipped"), "%d: %s", rc, out);
  char err[400] = "";
  perf__jsontree_node *j = perf__jsontree_read(json, err, sizeof err);
  const perf__jsontree_node *tests = j ? perf__jsontree_get(j, "tests") : NULL;
  ST_CHECKF(tests && tests->n == 8, "%s: not 8 tests %s", json, err);
  for (size_t i = 0; tests && tests->n == 8 && i < 8; i += 2) {
    const perf__jsontree_node *f = tests->kids[i], *after = tests->kids[i + 1];
    const char *reason = perf__jsontree_get(f, "reason")->text;
    ST_CHECKF(!strcmp(perf__jsontree_get(f, "name")->text, cause[i / 2][0]) &&
                  !strcmp(perf__jsontree_get(f, "outcome")->text, "FAIL") && strstr(reason, cause[i / 2][1]),
              "%s: %s", cause[i / 2][0], reason);
    ST_CHECKF(!strcmp(perf__jsontree_get(after, "outcome")->text, "PASS") &&
                  perf__jsontree_num(perf__jsontree_get(after, "worker_pid"), 0) !=
                      perf__jsontree_num(perf__jsontree_get(f, "worker_pid"), 0),
              "%s: not a pass in a fresh worker", perf__jsontree_get(after, "name")->text);
  }
  perf__jsontree_free(j);
}

/* The shipped suite compiles (CI has no other check of it), and without a
 * GPU every one of its tests is skipped with the reason: none passes, none
 * crashes. With a GPU present only the build and the listing are checked. */
ST_TEST(build_shipped_suite_and_skip_it_without_a_gpu)
{
  char *out, *list;
  char cmd[2400];
  const char *b = st_build_dir();
  snprintf(cmd, sizeof cmd, "make -s BUILD=%s %s/perftest >/dev/null && %s/perftest --list", b, b, b);
  int rc = sh(cmd, &list);
  int listed = count_lines(list, "");
  ST_CHECKF(rc == 0 && listed >= 28 && strstr(list, "cpu_vs_gpu.") &&
                strstr(list, "training_loop.") && !strstr(list, "faults."),
            "%d: %s", rc, list);
  /* the fault suite is opt-in: listed and run only when named */
  char *faults;
  snprintf(cmd, sizeof cmd, "%s/perftest --list --filter='faults.*'", b);
  rc = sh(cmd, &faults);
  ST_CHECKF(rc == 0 && count_lines(faults, "faults.") == 8 && count_lines(faults, "") == 8,
            "%d: %s", rc, faults);
  free(faults);
  char json[1200];
  snprintf(json, sizeof json, "%s/faults.json", b);
  snprintf(cmd, sizeof cmd, "%s/perftest --color=never --filter=\"faults.*\" --timeout=20 --json=%s",
           b, json);
  rc = sh(cmd, &faults);
  if (strstr(faults, "no CUDA device")) /* no GPU: each skipped, none crashes */
    ST_CHECKF(rc == 0 && strstr(faults, "0 passed, 0 failed, 8 skipped") &&
                  st_count(faults, "skipped: no CUDA device (") == 8,
              "%d: %s", rc, faults);
  else
    gpu_faults_fail_alone(rc, faults, json);
  free(faults);
  snprintf(cmd, sizeof cmd, "%s/perftest --color=never", b);
  rc = sh(cmd, &out);
  if (!strstr(out, "no CUDA device")) { /* a GPU machine: running it is perftest's job */
    free(out);
    free(list);
    return;
  }
  char want[64];
  snprintf(want, sizeof want, "0 passed, 0 failed, %d skipped", listed);
  ST_CHECKF(rc == 0 && strstr(out, want) && count_lines(out, "SKIP ") == listed,
            "%d (want '%s'): %s", rc, want, out);
  const char *p = out;
  int with_reason = 0;
  while ((p = strstr(p, "skipped: no CUDA device (")) != NULL) with_reason++, p++;
  ST_CHECKF(with_reason == listed, "%d of %d skips name the reason: %s", with_reason,
            listed, out);
  free(out);
  free(list);
}

/* 1 when python3 runs (it is optional for make test: the table makers'
 * checks need it). */
static int have_python3(void)
{
  char *out;
  int ok = sh("python3 -c pass", &out) == 0;
  free(out);
  return ok;
}

/* make bench-fidelity's program builds with the suite, says how to use it,
 * and without a GPU exits 2 naming the reason; its table maker reads logs. */
ST_TEST(build_bench_fidelity_and_its_table)
{
  char *out;
  char cmd0[2400];
  const char *b = st_build_dir();
  snprintf(cmd0, sizeof cmd0, "make -s BUILD=%s %s/bench-fidelity >/dev/null && %s/bench-fidelity nonsense", b, b, b);
  int rc = sh(cmd0, &out);
  ST_CHECKF(rc == 2 && strstr(out, "usage: bench-fidelity medians"), "%d: %s", rc, out);
  free(out);
  snprintf(cmd0, sizeof cmd0, "%s/bench-fidelity medians", b);
  rc = sh(cmd0, &out);
  if (strstr(out, "no CUDA device"))
    ST_CHECKF(rc == 2 && strstr(out, "bench-fidelity: SKIP: no CUDA device ("), "%d: %s", rc, out);
  free(out);
  if (!have_python3()) return;
  char dir[] = "/tmp/perfgate-fid-XXXXXX", cmd[1200];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof cmd,
           "cd %s && for i in 0 1; do for k in ew_256k sin4_4m ew_64m sin4_512m; do "
           "for c in device events cold; do echo \"median $k $c 1.0${i}e-06 10\"; done; done "
           "> medians.$i.txt; done && "
           "echo \"aa kernel=ew_256k clock=events similar_n=5 similar_false_fail=1 similar_s=0.1 "
           "not_slower_n=5 not_slower_false_fail=0 not_slower_s=0.1 faster_n=1 "
           "faster_false_pass=0 faster_s=0.1\" > aa.txt && "
           "echo \"power n=4 detected=4 true_ratio=1.1 seconds_per_comparison=0.1\" > power.txt && "
           "echo \"suite_exit 0 seconds 9.5\" > suite.txt && cd - >/dev/null && "
           "python3 bench/summarise.py %s", dir, dir);
  rc = sh(cmd, &out);
  ST_CHECKF(rc == 0 && strstr(out, "| ew_256k | 1.01 µs | n/a |") &&
                strstr(out, "| sin4_512m | 0.70 % |") && /* CV of 1.00 and 1.01 */
                strstr(out, "SIMILAR(a, a', 5 %) false fails 1/5") &&
                strstr(out, "detected 4/4") && strstr(out, "9.5 s wall, exit 0"),
            "%d: %s", rc, out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s/results.md", dir);
  char *md = st_slurp(cmd);
  ST_CHECKF(md && strstr(md, "perfgate processes: 2"), "%s: %s", cmd, md ? md : "(unreadable)");
  free(md);
  st_rmtree(dir);
}

/* Writes text to dir/name; 0 or -1. */
static int put(const char *dir, const char *name, const char *text)
{
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int bad = fputs(text, f) < 0;
  return (fclose(f) != 0 || bad) ? -1 : 0;
}

/* One nvbench --json file with a cold mean and wall time for ew_4k. */
static int put_nvbench(const char *dir, const char *name, const char *mean)
{
  char text[600];
  snprintf(text, sizeof text,
           "{\"benchmarks\": [{\"name\": \"ew_4k\", \"states\": [{\"summaries\": ["
           "{\"tag\": \"nv/cold/time/gpu/mean\", \"data\": [{\"name\": \"value\", \"value\": \"%s\"}]},"
           "{\"tag\": \"nv/cold/walltime\", \"data\": [{\"name\": \"value\", \"value\": \"1.0\"}]}"
           "]}]}]}\n", mean);
  return put(dir, name, text);
}

/* make bench-compare's script refuses bad settings with exit 2 and a reason
 * (and, without a GPU, says perfgate cannot run); its table maker computes
 * the cross-process CVs and the time ratios from the tools' outputs. */
ST_TEST(build_bench_compare_refusals_and_its_table)
{
  char *out, cmd[1600], dir[] = "/tmp/perfgate-cmp-XXXXXX";
  const char *b = st_build_dir();
  ST_CHECK(mkdtemp(dir) != NULL);
  static const struct {
    const char *env, *want;
  } bad[] = {{"COMPARE_RUNS=1", "COMPARE_RUNS=1: need a whole number of at least 2"},
             {"COMPARE_SAMPLES=lots", "COMPARE_SAMPLES: 'lots' is neither"},
             {"NVBENCH=/nonexistent/nvbench", "NVBENCH=/nonexistent/nvbench is not an executable"}};
  snprintf(cmd, sizeof cmd, "make -s BUILD=%s %s/bench-fidelity >/dev/null", b, b);
  ST_EQ(sh(cmd, &out), 0);
  free(out);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "BUILD=%s COMPARE_OUT=%s %s COMPARE_DO_BENCH=0 bash bench/compare.sh",
             b, dir, bad[i].env);
    int rc = sh(cmd, &out);
    ST_CHECKF(rc == 2 && strstr(out, bad[i].want), "%s: %d: %s", bad[i].env, rc, out);
    free(out);
  }
  /* a real run, kept short; without a GPU it stops at the first process */
  snprintf(cmd, sizeof cmd, "BUILD=%s COMPARE_OUT=%s COMPARE_RUNS=2 COMPARE_SAMPLES=3 "
           "COMPARE_DO_BENCH=0 bash bench/compare.sh", b, dir);
  int rc = sh(cmd, &out);
  if (strstr(out, "no CUDA device"))
    ST_CHECKF(rc == 2 && strstr(out, "perfgate 3 1 failed: bench-fidelity: SKIP: no CUDA device (") &&
                  strstr(out, "bench-compare: perfgate cannot run"), "%d: %s", rc, out);
  else
    ST_CHECKF(rc == 0 && strstr(out, "2 processes per tool and setting"), "%d: %s", rc, out);
  free(out);
  if (!have_python3()) {
    st_rmtree(dir);
    return;
  }
  /* a folder of its own for the synthetic outputs */
  char syn[64];
  snprintf(syn, sizeof syn, "%s/syn", dir);
  ST_EQ(mkdir(syn, 0700), 0);
  /* two processes each: perfgate's cold medians 1.00 and 1.02 us (CV
   * 1.40 %), nvbench's cold means 1.00 and 1.01 us (CV 0.70 %) */
  ST_EQ(put(syn, "pg.p1e-3.1.txt", "median ew_4k cold 1.00e-06 1\nmean ew_4k cold 1.00e-06\n"
                                    "wall ew_4k cold 0.010 11\n"), 0);
  ST_EQ(put(syn, "pg.p1e-3.2.txt", "median ew_4k cold 1.02e-06 1\nmean ew_4k cold 1.00e-06\n"
                                    "wall ew_4k cold 0.010 11\n"), 0);
  ST_EQ(put_nvbench(syn, "nv.1.1.json", "1.00e-06"), 0);
  ST_EQ(put_nvbench(syn, "nv.1.2.json", "1.01e-06"), 0);
  ST_EQ(put(syn, "nv.1.set", "default\n"), 0);
  ST_EQ(put(syn, "wall.txt", "perfgate p1e-3 1 1.5\nperfgate p1e-3 2 1.7\nnvbench 1 1 20.0\n"
                             "nvbench 1 2 22.0\n"), 0);
  snprintf(cmd, sizeof cmd, "python3 bench/compare.py %s", syn);
  rc = sh(cmd, &out);
  ST_CHECKF(rc == 0 && strstr(out, "2 processes per tool and setting") &&
                strstr(out, "| ew_4k | 1.010 µs, CV 1.40 % | 1.000 µs, CV 0.00 % | 1.005 µs, CV 0.70 % |") &&
                strstr(out, "ew_4k cold vs cold: CV 1.400 % vs 0.704 % (NOT met; p = nan that "
                            "perfgate varies more); time 0.010 s vs 1.000 s, nvbench/perfgate "
                            "100.0x (met)") &&
                strstr(out, "ew_4k cold-mean vs cold: CV 0.000 % vs 0.704 % (met;") &&
                strstr(out, "nvbench 1: 20.0-22.0; perfgate p1e-3: 1.5-1.7"),
            "%d: %s", rc, out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s/results.md", syn);
  char *md = st_slurp(cmd);
  ST_CHECKF(md && strstr(md, "Issue 21's targets"), "%s: %s", cmd, md ? md : "(unreadable)");
  free(md);
  st_rmtree(dir);
}

#include <yaml.h>

/* 1 when path parses as YAML to its end (libyaml's event parser). */
static int yaml_well_formed(const char *path, char *why, size_t len)
{
  FILE *f = fopen(path, "rb");
  yaml_parser_t p;
  yaml_event_t e;
  int ok = 0, done = 0;
  if (!f) return snprintf(why, len, "cannot open"), 0;
  if (!yaml_parser_initialize(&p)) return fclose(f), snprintf(why, len, "no memory"), 0;
  yaml_parser_set_input_file(&p, f);
  while (!done) {
    if (!yaml_parser_parse(&p, &e)) {
      snprintf(why, len, "line %zu: %s", p.problem_mark.line + 1,
               p.problem ? p.problem : "?");
      break;
    }
    done = e.type == YAML_STREAM_END_EVENT;
    ok = done;
    yaml_event_delete(&e);
  }
  yaml_parser_delete(&p);
  fclose(f);
  return ok;
}

/* The CI templates in ci/ are YAML that parses, run what the README says, and
 * gate on GPU runners. (They cannot be run here: no GitHub or GitLab runner.) */
ST_TEST(build_ci_templates_parse_and_run_the_documented_commands)
{
  static const char *const files[] = {"ci/github/perftest.yml", "ci/github/perftest-matrix.yml",
                                      "ci/github/tests.yml", "ci/gitlab/perftest.gitlab-ci.yml"};
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    char why[300] = "";
    ST_CHECKF(yaml_well_formed(files[k], why, sizeof why), "%s: %s", files[k], why);
    char *text = st_slurp(files[k]);
    ST_CHECKF(text && (strstr(text, "make perftest ARGS=") || strstr(text, "bash .ci/run")),
              "%s runs neither make perftest nor .ci/run", files[k]);
    if (text && strstr(text, "make perftest"))
      ST_CHECKF(strstr(text, "--junit=") && strstr(text, "gpu"), "%s", files[k]);
    free(text);
  }
  /* and the check can fail: an unclosed flow sequence does not parse */
  char bad[] = "/tmp/perfgate-badyaml-XXXXXX", why[300] = "";
  int fd = mkstemp(bad);
  ST_CHECK(fd >= 0 && write(fd, "on: [push\n", 10) == 10);
  if (fd >= 0) close(fd);
  ST_CHECK(!yaml_well_formed(bad, why, sizeof why) && why[0]);
  unlink(bad);
}
