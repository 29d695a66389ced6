/* cmake.c — the CMake package: examples/cmake/ built, its perf tests found and run by ctest. */
/* It is built against a `make install` into a temporary prefix;
 * perfgate_discover_tests takes the target named with TARGET or first, as
 * gtest_discover_tests takes it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selftest.h"
#define PERF_ABI_ONLY /* PERF_ABI_VERSION: the installed library's soname */
#include "perfgate.h"
#undef PERF_ABI_ONLY

/* Runs cmd (its output into dir/log); 0 or the shell's status, the log's
 * text in *out (malloc'd). */
static int run(const char *dir, const char *cmd, char **out)
{
  char line[3000], log[300];
  snprintf(log, sizeof log, "%s/log", dir);
  snprintf(line, sizeof line, "( %s ) > '%s' 2>&1", cmd, log);
  int rc = st_shell(line);
  *out = st_slurp(log);
  return rc;
}

/* JSON_DIR names a directory that need not exist (relative: to the
 * binary's): discovery makes it, and each test writes its report there,
 * a skip's too; the target is named the GoogleTest way, first, without
 * TARGET. dir holds the prefix the example was built against. */
static void json_dir_is_made(const char *dir, const char *nvcc)
{
  char cmd[2500], here[600], *out = NULL;
  ST_CHECK(getcwd(here, sizeof here) != NULL); /* the tests run in the repository's root */
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/j' && printf '%%s\\n' 'cmake_minimum_required(VERSION 3.24)' "
           "'project(j LANGUAGES CXX CUDA)' 'find_package(perfgate CONFIG REQUIRED)' "
           "'enable_testing()' 'add_executable(t %s/examples/cmake/saxpy_perf.cu)' "
           "'target_link_libraries(t PRIVATE perfgate::perfgate)' "
           "'perfgate_discover_tests(t JSON_DIR reports/new)' > '%s/j/CMakeLists.txt' && "
           "cmake -S '%s/j' -B '%s/jb' -DCMAKE_PREFIX_PATH='%s/prefix' "
           "-DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER='%s' && cmake --build '%s/jb' && "
           "ctest --test-dir '%s/jb' && ls '%s/jb/reports/new'",
           dir, here, dir, dir, dir, dir, nvcc, dir, dir, dir);
  int rc = run(dir, cmd, &out);
  ST_CHECKF(rc == 0 && out && strstr(out, "saxpy.one_pass_beats_two.json") &&
                strstr(out, "saxpy.streams_near_the_dram_peak.json"),
            "%d: %s", rc, out ? out : "");
  free(out);
}

/* perfgate_discover_tests as a CMake line calls it, in a project of one
 * target t configured against the prefix in dir (configured only: nothing
 * is built): want NULL, it configures; else it stops with want in its
 * output. The GoogleTest form, the target first without TARGET, is taken;
 * a mistake names what was given. */
static void discover_call_says(const char *dir, const char *call, const char *want)
{
  char cmd[2500], *out = NULL;
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/e' && : > '%s/e/t.c' && printf '%%s\n' 'cmake_minimum_required(VERSION 3.24)' "
           "'project(e LANGUAGES C)' 'find_package(perfgate CONFIG REQUIRED)' 'enable_testing()' "
           "'add_executable(t t.c)' '%s' > '%s/e/CMakeLists.txt' && "
           "cmake -S '%s/e' -B '%s/eb' -DCMAKE_PREFIX_PATH='%s/prefix'",
           dir, dir, call, dir, dir, dir, dir);
  int rc = run(dir, cmd, &out);
  size_t u = 0; /* CMake wraps a message's lines and indents them: one space each */
  for (size_t k = 0; out && out[k]; k++)
    if (!strchr(" \n", out[k]) || (u && out[u - 1] != ' ')) out[u++] = out[k] == '\n' ? ' ' : out[k];
  if (out) out[u] = '\0';
  if (!want)
    ST_CHECKF(rc == 0, "%s: exit %d: %s", call, rc, out ? out : "");
  else
    ST_CHECKF(rc != 0 && out && strstr(out, want), "%s: exit %d, wanted '%s': %s", call, rc, want, out ? out : "");
  free(out);
}

static void discover_calls(const char *dir)
{
  discover_call_says(dir, "perfgate_discover_tests(t)", NULL);
  discover_call_says(dir, "perfgate_discover_tests(t LABELS perf EXTRA_ARGS --budget=1)", NULL);
  discover_call_says(dir, "perfgate_discover_tests(TARGET t)", NULL);
  discover_call_says(dir, "perfgate_discover_tests(mytarget)",
                     "perfgate_discover_tests: 'mytarget' is not a target in this project: "
                     "add_executable(mytarget ...) comes before perfgate_discover_tests");
  discover_call_says(dir, "perfgate_discover_tests()", "perfgate_discover_tests: no target named (arguments: ''): "
                     "perfgate_discover_tests(mytarget ...) or perfgate_discover_tests(TARGET mytarget ...)");
  discover_call_says(dir, "perfgate_discover_tests(t TARGET u)",
                     "perfgate_discover_tests: two targets, 't' and TARGET 'u'");
  discover_call_says(dir, "perfgate_discover_tests(TARGET)", "perfgate_discover_tests: TARGET given without a value");
  discover_call_says(dir, "perfgate_discover_tests(t JSON-DIR r)",
                     "perfgate_discover_tests(t): unknown arguments 'JSON-DIR;r'");
}

/* examples/cmake/ as a CMake user builds it: `make install` into a
 * temporary prefix, cmake -S/-B with that prefix, ctest. Every PERF_TEST
 * becomes a CTest test labelled with its suite and "gpu"; without a GPU
 * each is skipped (CTest's "Skipped", perfgate's reason in its output),
 * with one each passes. */
ST_TEST(cmake_example_builds_and_ctest_runs_each_perf_test)
{
#if defined(__SANITIZE_ADDRESS__)
  st_skip("built with AddressSanitizer: the example would link a sanitized library");
  return;
#endif
  char dir[] = "/tmp/perfgate-cmake-XXXXXX", cmd[2500], nvcc[600] = "", want[40];
  char *out = NULL;
  if (st_shell("command -v cmake >/dev/null 2>&1 && command -v ctest >/dev/null 2>&1")) {
    st_skip("cmake not found (apt-get install cmake; .ci/run installs it)");
    return;
  }
  if (st_shell("cmake --version | awk 'NR == 1 { split($3, v, \".\"); exit !(v[1] > 3 || "
               "(v[1] == 3 && v[2] >= 24)) }'")) {
    st_skip("cmake is older than 3.24 (the example's minimum)");
    return;
  }
  const char *home = getenv("CUDA_HOME");
  snprintf(nvcc, sizeof nvcc, "%s/bin/nvcc", home && *home ? home : "/usr/local/cuda");
  if (st_shell("command -v nvcc >/dev/null 2>&1") == 0) snprintf(nvcc, sizeof nvcc, "nvcc");
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(cmd, sizeof cmd, "make -s install PREFIX='%s/prefix' BUILD='%s'", dir, st_build_dir());
  int rc = run(dir, cmd, &out);
  ST_CHECKF(rc == 0, "%s: %s", cmd, out ? out : "");
  free(out);
  snprintf(cmd, sizeof cmd, "ls -l '%s/prefix/lib' '%s/prefix/lib/cmake/perfgate'", dir, dir);
  run(dir, cmd, &out);
  snprintf(want, sizeof want, "libperfgate.so.%d", PERF_ABI_VERSION);
  ST_CHECKF(out && strstr(out, want) && !strstr(out, "libperfgate.so ->") &&
                strstr(out, "perfgateConfig.cmake") && strstr(out, "perfgateConfigVersion.cmake"),
            "%s", out ? out : "");
  free(out);
  discover_calls(dir);
  snprintf(cmd, sizeof cmd,
           "cmake -S examples/cmake -B '%s/b' -DCMAKE_PREFIX_PATH='%s/prefix' "
           "-DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER='%s' && cmake --build '%s/b'",
           dir, dir, nvcc, dir);
  rc = run(dir, cmd, &out);
  ST_CHECKF(rc == 0, "%s: %s", cmd, out ? out : "");
  free(out);
  if (rc) return;
  snprintf(cmd, sizeof cmd, "ctest --test-dir '%s/b' -N -L gpu && ctest --test-dir '%s/b' -N -L saxpy",
           dir, dir);
  run(dir, cmd, &out);
  ST_CHECKF(out && st_count(out, "Total Tests: 2") == 2 && strstr(out, "saxpy.one_pass_beats_two") &&
                strstr(out, "saxpy.streams_near_the_dram_peak"),
            "%s", out ? out : "");
  free(out);
  snprintf(cmd, sizeof cmd, "ctest --test-dir '%s/b' -V", dir);
  rc = run(dir, cmd, &out);
  if (st_have_gpu())
    ST_CHECKF(rc == 0 && out && strstr(out, "100% tests passed, 0 tests failed out of 2"), "%s",
              out ? out : "");
  else
    ST_CHECKF(rc == 0 && out && st_count(out, "***Skipped") == 2 &&
                  st_count(out, "skipped: no CUDA device") >= 2,
              "%s", out ? out : "");
  free(out);
  /* the link line: link.txt and the libraries' linkLibs.rsp with Makefiles,
   * build.ninja with Ninja; the runtime is the shared libcudart */
  snprintf(cmd, sizeof cmd, "d='%s/b/CMakeFiles/saxpy_perf.dir'; l=$(cat \"$d/link.txt\" "
           "\"$d\"/*.rsp 2>/dev/null || cat '%s/b/build.ninja') && "
           "echo \"$l\" | grep -q -- '-lcudart\\b\\|libcudart\\.so' && ! echo \"$l\" | grep -q cudart_static",
           dir, dir);
  ST_CHECKF(st_shell(cmd) == 0, "the example links CMake's static CUDA runtime beside perfgate's "
            "(or its link line was not found): %s", cmd);
  json_dir_is_made(dir, nvcc);
  st_rmtree(dir);
}
