/* unit_gpuwatch.c — the GPU watch without a GPU, through a stand-in NVML. */
/* Throttle reasons named, and an NVML that cannot open saying why. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/device/gpuwatch.h"
#include "selftest.h"

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
