/* cudauser.c — perf tests as CUDA users write them (issue 30): failed calls are never timed. */
/* A workload whose CUDA calls fail is skipped without a driver, or an ERROR
 * naming the call with one; a missing or old driver is named; the runtime is
 * asked for its last error only once it has started; a <<<...>>> launch is
 * named at its line. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "perfgate.h"
#include "util/status.h"
#include "selftest.h"
#include "worker/sync/callsite.h"
#include "worker/device/gpu.h"
#include "worker/device/rtstart.h"

#define LINE 2048

/* 1 when libcuda.so.1 cannot be loaded here: no NVIDIA driver at all. */
static int no_driver_library(void)
{
  void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib) dlclose(lib);
  return lib == NULL;
}

/* Test name of the fixture run r is an ERROR whose line holds each text. */
static void error_naming(const st_run *r, const char *name, const char *const *texts)
{
  char line[LINE];
  st_expect(r, name, "ERROR", NULL);
  st_outcome(r, name, line, sizeof line);
  for (; *texts; texts++) ST_CHECKF(strstr(line, *texts) != NULL, "%s lacks '%s'", line, *texts);
}

/* With a GPU: the calls that work are timed and pass; a failing one is an
 * ERROR naming it, its line and its error, on the thread that calls the
 * workload or on another (OpenMP's). */
static void with_a_gpu(const st_run *r)
{
  st_expect(r, "cudauser.unchecked_memset", "PASS", NULL);
  st_expect(r, "cudauser.first_cuda_call_in_the_workload", "PASS", NULL);
  st_expect(r, "cudauser.cuda_call_after_the_claim", "PASS", NULL);
  const char *before[] = {"a CUDA call made before workload 'a' was measured",
                          "(cudaErrorMemoryAllocation)", "Fix: check each CUDA call", NULL};
  error_naming(r, "cudauser.unchecked_failure_before_the_claim", before);
  const char *memset[] = {"workload 'a': cudaMemsetAsync failed at framework/tests/fixtures/cudauser.c:",
                          "(memset_freed)", "(cudaErrorInvalidValue)",
                          "a workload whose CUDA calls fail is not timed", NULL};
  error_naming(r, "cudauser.failing_call_in_the_workload", memset);
  const char *openmp[] = {"workload 'a': cudaMemcpyAsync failed at framework/tests/fixtures/cudauser.c:",
                          "on another thread than the one that calls the workload",
                          "(cudaErrorInvalidMemcpyDirection)", NULL};
  error_naming(r, "cudauser.failing_call_on_an_openmp_thread", openmp);
  ST_EQ(r->status, 1);
}

/* The case: with no usable driver each test whose CUDA calls fail
 * (in its body, in the workload's first call, on an OpenMP thread) is
 * skipped saying why, never timed; --require-gpu makes that exit 2. A test
 * that made a CUDA call after its host-only claim passes, and the test
 * after it still has its calls seen (a fresh worker: the runtime that
 * failed to start cannot tell one test's calls from another's). */
ST_TEST(cudauser_failing_cuda_calls_are_never_timed)
{
  st_run r;
  st_exec(&r, "", "--color=never --filter='cudauser.*'");
  if (st_have_gpu()) {
    with_a_gpu(&r);
    st_run_free(&r);
    return;
  }
  static const struct {
    const char *name, *where;
  } skipped[] = {
      {"cudauser.unchecked_memset", "a CUDA call made before workload 'a' was measured: "},
      {"cudauser.first_cuda_call_in_the_workload", "workload 'a': a CUDA call failed in its first call: "},
      {"cudauser.unchecked_failure_before_the_claim", "a CUDA call made before workload 'a' was measured: "},
      {"cudauser.failing_call_in_the_workload", "a CUDA call made before workload 'a' was measured: "},
      {"cudauser.failing_call_on_an_openmp_thread", "workload 'a': a CUDA call failed in its first call: "}};
  for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++) {
    char line[LINE];
    st_expect(&r, skipped[i].name, "SKIP", "skipped: no CUDA device (");
    st_outcome(&r, skipped[i].name, line, sizeof line);
    ST_CHECKF(strstr(line, skipped[i].where) && !strstr(line, "iterations per sample"), "%s", line);
    if (no_driver_library())
      ST_CHECKF(strstr(line, "(no NVIDIA driver found: libcuda.so.1 cannot be loaded; "), "%s", line);
  }
  st_expect(&r, "cudauser.cuda_call_after_the_claim", "PASS", NULL);
  ST_EQ(r.status, 0);
  st_run_free(&r);
  st_exec(&r, "", "--color=never --require-gpu --filter=cudauser.unchecked_memset");
  ST_CHECKF(r.status == 2 && strstr(r.out, "skipped: no CUDA device ("), "%d: %s", r.status, r.out);
  st_run_free(&r);
}

/* The skip says which driver is missing: none at all (libcuda.so.1 cannot
 * be loaded), or one older than the runtime (a stand-in libcuda.so.1 that
 * supports CUDA 12.0), where CUDA's own text is right and stays. */
ST_TEST(cudauser_no_driver_is_named_and_an_old_one_keeps_cudas_text)
{
  st_run r;
  char line[LINE], env[600];
  if (no_driver_library()) {
    st_exec(&r, "", "--color=never --filter=gpu.wall_clock_syncs_the_device");
    st_expect(&r, "gpu.wall_clock_syncs_the_device", "SKIP",
              "skipped: no CUDA device (no NVIDIA driver found: libcuda.so.1 cannot be loaded; "
              "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version "
              "(cudaErrorInsufficientDriver))");
    st_run_free(&r);
  }
  snprintf(env, sizeof env, "LD_LIBRARY_PATH=%.500s/oldcuda ", st_build_dir());
  st_exec(&r, env, "--color=never --filter=gpu.wall_clock_syncs_the_device");
  st_expect(&r, "gpu.wall_clock_syncs_the_device", "SKIP",
            "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version "
            "(cudaErrorInsufficientDriver))");
  st_outcome(&r, "gpu.wall_clock_syncs_the_device", line, sizeof line);
  ST_CHECKF(!strstr(line, "cannot be loaded"), "%s", line);
  if (access("/proc/driver/nvidia/version", F_OK) == 0)
    ST_CHECKF(strstr(line, "no CUDA device (the NVIDIA driver supports CUDA 12.0, older than "
                           "this runtime (CUDA "), "%s", line);
  else
    ST_CHECKF(strstr(line, "no CUDA device (no NVIDIA driver found: libcuda.so.1 is installed, "
                           "but the NVIDIA kernel module is not loaded"), "%s", line);
  st_run_free(&r);
}

/* What the design stands on, in this fresh process: perfgate never asks
 * the runtime before it has started (a host-only process stays free of
 * CUDA); asking it (cudaPeekAtLastError) starts it, which the watch sees,
 * and makes no CUDA context (the GPU answer: a context made after shows);
 * then the last error of a failed call is taken once, and without a
 * driver every call says so. */
ST_TEST(cudauser_asking_the_runtime_starts_it_and_makes_no_context)
{
  char why[400];
  ST_EQ(perf__rtstart_watch(), 0);
  perf__gpu_test_begin();
  ST_EQ(perf__gpu_take_error("nothing", why, sizeof why), 0);
  ST_EQ(perf__rtstart_seen(), 0);
  cudaError_t e = cudaPeekAtLastError();
  ST_EQ(perf__rtstart_seen(), 1);
  ST_EQ(perf__gpu_in_use(), 0);
  cudaGetLastError();
  ST_EQ(perf__gpu_in_use(), 0);
  if (e != cudaSuccess) { /* no usable driver: the error every call returns */
    ST_CHECK(perf__gpu_nodevice(e));
    ST_EQ(perf__gpu_take_error("a call", why, sizeof why), PERF__ENODEV);
    ST_CHECKF(strstr(why, "a call: ") != NULL, "%s", why);
    ST_EQ(perf__gpu_broken(), 1);
    return;
  }
  ST_EQ(cudaFree(0), cudaSuccess);
  ST_EQ(perf__gpu_in_use(), 1);
  static char host[16];
  ST_CHECK(cudaMemcpy(host, host + 8, 8, (enum cudaMemcpyKind)99) != cudaSuccess);
  ST_EQ(perf__gpu_take_error("a copy", why, sizeof why), PERF__ECALL);
  ST_CHECKF(strstr(why, "a copy: ") && strstr(why, "(cudaErrorInvalidMemcpyDirection)"), "%s", why);
  ST_EQ(perf__gpu_take_error("again", why, sizeof why), 0);
  ST_EQ(perf__gpu_broken(), 0);
}

/* A <<<...>>> launch's call site is the line of the launch: past the
 * toolkit's helper (CUDA 13: crt/device_functions.h; 12: cuda_runtime.h),
 * nvcc's stub and the kernel's host function (at its definition), as a
 * backtrace from inside cudaLaunchKernel shows them. */
ST_TEST(cudauser_launch_site_is_the_line_the_user_wrote)
{
  const char launch13[][256] = {
      "/usr/local/cuda/include/crt/device_functions.h:2963 (__cudaLaunchKernel_helper(void const*, dim3, dim3, void**, unsigned long, CUstream_st*))",
      "/tmp/tmpxft_000076d2_00000000-6_cudauser.cudafe1.stub.c:1 (__device_stub__Z4fillPfi(float*, int))",
      "framework/tests/fixtures/cudauser.cu:47 (fill(float*, int))",
      "framework/tests/fixtures/cudauser.cu:91 (too_many_threads(void*))",
      "framework/src/worker/sample/workload.c:135 (sample_host)"};
  ST_EQ(perf__callsite_choose(launch13, 5), 3);
  const char launch12[][256] = {
      "/usr/local/cuda/include/cuda_runtime.h:216 (cudaError cudaLaunchKernel<char>(char const*, dim3, dim3, void**, unsigned long, CUstream_st*))",
      "/tmp/tmpxft_00001234_00000000-6_k.cudafe1.stub.c:14 (__device_stub__Z4fillPfi(float*, int))",
      "k.cu:3 (fill(float*, int))", "k.cu:20 (launch_fill)"};
  ST_EQ(perf__callsite_choose(launch12, 4), 3);
  const char plain[][256] = {"t.c:12 (memset_quarter)", "t.c:40 (body)"};
  ST_EQ(perf__callsite_choose(plain, 2), 0);
  const char cut[][256] = {"/usr/local/cuda/include/crt/device_functions.h:2963 (helper)",
                           "/tmp/tmpxft_1.cudafe1.stub.c:1 (__device_stub__Z1kv())"};
  ST_EQ(perf__callsite_choose(cut, 2), 1); /* the launcher was not captured: the stub */
}
