/* unit_watch.c — the GPU watch without a GPU: retake decisions, NVML through a stand-in library, the blocking kernel's PTX. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/blocker.h"
#include "worker/gpuwatch.h"
#include "worker/retake.h"
#include "selftest.h"

ST_TEST(retake_discards_throttled_samples_then_keeps_a_sustained_throttle)
{
  perf__retake r = {0};
  int kept = 0;
  /* A clean sample is kept. */
  ST_EQ(perf__retake_decide(&r, 0, 0), PERF__KEEP);
  /* Throttled: discarded PERF__MAX_THROTTLE_STREAK times in a row... */
  for (int i = 0; i < PERF__MAX_THROTTLE_STREAK; i++)
    ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
  ST_EQ(r.throttled_discarded, PERF__MAX_THROTTLE_STREAK);
  /* ...then the throttle is sustained: kept and counted, as long as it lasts. */
  for (int i = 0; i < 5; i++) kept += perf__retake_decide(&r, 0, 1) == PERF__KEEP;
  ST_EQ(kept, 5);
  ST_EQ(r.throttled_kept, 5);
  /* A clean sample ends the streak: the next throttled one is discarded. */
  ST_EQ(perf__retake_decide(&r, 0, 0), PERF__KEEP);
  ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
  ST_EQ(r.throttled_discarded, PERF__MAX_THROTTLE_STREAK + 1);
  ST_EQ(r.retaken, 0);
  ST_EQ(r.kept_disturbed, 0);
}

ST_TEST(retake_rests_before_each_throttled_retake_within_a_budget)
{
  perf__retake r = {0};
  long budget = PERF__MAX_REST_MS, rests[PERF__MAX_THROTTLE_STREAK];
  /* 50, 150, 450 ms before the three retakes of a throttled streak... */
  for (int i = 0; i < PERF__MAX_THROTTLE_STREAK; i++) {
    ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
    rests[i] = perf__retake_rest_ms(&r, &budget);
  }
  ST_EQ(rests[0], 50);
  ST_EQ(rests[1], 150);
  ST_EQ(rests[2], 450);
  ST_EQ(budget, PERF__MAX_REST_MS - 650);
  /* ...none once the throttle is kept as sustained... */
  ST_EQ(perf__retake_decide(&r, 0, 1), PERF__KEEP);
  ST_EQ(perf__retake_rest_ms(&r, &budget), 0);
  /* ...and a new streak rests again only while the test's budget lasts:
   * 350 ms left, so 50 and 150 fit (exactly to 800 ms spent), 450 does not. */
  ST_EQ(perf__retake_decide(&r, 0, 0), PERF__KEEP);
  ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
  ST_EQ(perf__retake_rest_ms(&r, &budget), 50);
  ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
  ST_EQ(perf__retake_rest_ms(&r, &budget), 150);
  ST_EQ(perf__retake_decide(&r, 0, 1), PERF__RETAKE);
  ST_EQ(perf__retake_rest_ms(&r, &budget), 0);
  ST_EQ(r.rested_ms, 850);
  ST_EQ(budget, 150);
  /* a rest that lands exactly on the budget is taken */
  perf__retake q = {0};
  long exact = 50;
  ST_EQ(perf__retake_decide(&q, 0, 1), PERF__RETAKE);
  ST_EQ(perf__retake_rest_ms(&q, &exact), 50);
  ST_EQ(exact, 0);
}

ST_TEST(retake_preempted_samples_up_to_the_limit)
{
  perf__retake r = {0};
  for (int i = 0; i < PERF__MAX_RETAKES; i++)
    ST_EQ(perf__retake_decide(&r, 1, 0), PERF__RETAKE);
  ST_EQ(perf__retake_decide(&r, 1, 0), PERF__KEEP); /* gives up: kept, counted */
  ST_EQ(r.retaken, PERF__MAX_RETAKES);
  ST_EQ(r.kept_disturbed, 1);
  /* The retake allowance is per sample: the next one starts afresh. */
  ST_EQ(perf__retake_decide(&r, 1, 0), PERF__RETAKE);
  ST_EQ(perf__retake_decide(&r, 0, 0), PERF__KEEP);
  ST_EQ(r.kept_disturbed, 1);
  /* A throttled sample is not kept because preemption retakes ran out. */
  perf__retake t = {.tries = PERF__MAX_RETAKES};
  ST_EQ(perf__retake_decide(&t, 1, 1), PERF__RETAKE);
  ST_EQ(t.throttled_discarded, 1);
}

ST_TEST(nvml_reason_names)
{
  char b[200];
  ST_STR(perf__gpuwatch_reason_names(0, b, sizeof b), "none");
  ST_STR(perf__gpuwatch_reason_names(0x4, b, sizeof b), "sw_power_cap");
  ST_STR(perf__gpuwatch_reason_names(0x48, b, sizeof b), "hw_slowdown,hw_thermal");
  ST_STR(perf__gpuwatch_reason_names(1ull << 40, b, sizeof b), "other");
  /* Which reasons count as throttling: not idle, app clocks, sync boost. */
  ST_EQ(0x1 & PERF__THROTTLE_MASK, 0);
  ST_EQ(0x2 & PERF__THROTTLE_MASK, 0);
  ST_EQ(0x10 & PERF__THROTTLE_MASK, 0);
  ST_EQ(0x100 & PERF__THROTTLE_MASK, 0);
  ST_EQ(PERF__THROTTLE_MASK, 0x4 | 0x8 | 0x20 | 0x40 | 0x80);
}

/* Opens NVML from lib (absolute, or under the build directory) for bus. */
static int open_with(const char *lib, const char *bus, char *why, size_t len)
{
  char path[600];
  snprintf(path, sizeof path, lib[0] == '/' ? "%.0s%s" : "%s/%s", st_build_dir(), lib);
  setenv("PERF_NVML_LIB", path, 1);
  perf__gpuwatch_close();
  why[0] = '\0';
  return perf__gpuwatch_open(bus, why, len);
}

ST_TEST(nvml_reads_clock_and_reasons_through_dlopen)
{
  char why[200], drv[64];
  unsigned cur = 0, max = 0;
  unsigned long long r[4] = {9, 9, 9, 9};
  setenv("FAKE_NVML_REASONS", "0,4,0x48", 1);
  setenv("FAKE_NVML_MHZ", "1755", 1);
  ST_EQ(open_with("libfakenvml.so", "0000:00:06.0", why, sizeof why), 0);
  ST_EQ(perf__gpuwatch_sm_clock(&cur, &max), 0);
  ST_EQ(cur, 1755);
  ST_EQ(max, 1980);
  for (int i = 0; i < 4; i++) ST_EQ(perf__gpuwatch_reasons(&r[i]), 0);
  ST_EQ(r[0], 0);
  ST_EQ(r[1], 4);
  ST_EQ(r[2], 0x48);
  ST_EQ(r[3], 0);
  ST_EQ(perf__gpuwatch_driver(drv, sizeof drv), 0);
  ST_STR(drv, "0.0-fake");
  perf__gpuwatch_close();
  ST_EQ(perf__gpuwatch_reasons(&r[0]), -1); /* closed: reads fail, no crash */
}

ST_TEST(nvml_that_cannot_open_says_why)
{
  char why[200];
  unsigned cur;
  ST_EQ(open_with("/nonexistent/libnvidia-ml.so.1", "0000:00:06.0", why, sizeof why), -1);
  ST_STR(why, "cannot load /nonexistent/libnvidia-ml.so.1");
  ST_EQ(perf__gpuwatch_sm_clock(&cur, NULL), -1);
  /* A failed open is not retried until closed. */
  setenv("PERF_NVML_LIB", "", 1);
  ST_EQ(perf__gpuwatch_open("0000:00:06.0", why, sizeof why), -1);
  ST_STR(why, "cannot load /nonexistent/libnvidia-ml.so.1");
  /* A library without NVML's functions names the first one missing. */
  ST_EQ(open_with("libnocupti.so", "0000:00:06.0", why, sizeof why), -1);
  ST_STR(why, "NVML has no nvmlInit_v2");
  /* NVML without the device. */
  ST_EQ(open_with("libfakenvml.so", "missing", why, sizeof why), -1);
  ST_STR(why, "NVML does not know the GPU at missing (NVML error 6)");
  perf__gpuwatch_close();
}

/* The blocking kernel is PTX the driver compiles at run time: without a GPU
 * the next best check is that NVIDIA's assembler accepts it for sm_90. */
ST_TEST(blocking_kernel_ptx_assembles)
{
  char src[] = "/tmp/perfgate-ptx-XXXXXX", cmd[1200];
  int fd = mkstemp(src);
  ST_CHECK(fd >= 0);
  const char *ptx = perf__blocker_ptx();
  ST_EQ(write(fd, ptx, strlen(ptx)), (long long)strlen(ptx));
  close(fd);
  const char *home = getenv("CUDA_HOME");
  snprintf(cmd, sizeof cmd,
           "p=$(command -v ptxas || echo %s/bin/ptxas); \"$p\" -arch=sm_90 %s -o /dev/null 2>&1",
           home && *home ? home : "/usr/local/cuda", src);
  FILE *f = popen(cmd, "r");
  char out[2000] = "";
  size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
  out[n] = '\0';
  int status = f ? pclose(f) : -1;
  unlink(src);
  ST_CHECKF(status == 0, "ptxas rejected the blocking kernel: %s", out);
  ST_CHECK(strstr(ptx, ".entry perf__blocker_hold(") != NULL);
  ST_CHECK(strstr(ptx, "%globaltimer") != NULL); /* the timeout is real time */
}
