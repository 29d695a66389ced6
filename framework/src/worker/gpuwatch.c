/* gpuwatch.c — NVML through dlopen (absent without a driver): driver release, SM clock, clock-event (throttle) reasons. */
#define _GNU_SOURCE
#include "worker/gpuwatch.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NVML_CLOCK_SM = 1 };

static struct {
  int tried, ok;
  void *lib;
  void *dev;
  int (*clock)(void *, int, unsigned *);
  int (*max_clock)(void *, int, unsigned *);
  int (*reasons)(void *, unsigned long long *);
  int (*driver)(char *, unsigned);
} n;

static void *sym(void *h, const char *name, const char **missing)
{
  void *p = dlsym(h, name);
  if (!p && !*missing) *missing = name;
  return p;
}

/* Fills n from library h; returns 0 or -1 with why. */
static int bind(void *h, const char *bus_id, char *why, size_t len)
{
  const char *missing = NULL;
  int (*init)(void) = (int (*)(void))sym(h, "nvmlInit_v2", &missing);
  int (*by_bus)(const char *, void **) =
      (int (*)(const char *, void **))sym(h, "nvmlDeviceGetHandleByPciBusId_v2", &missing);
  *(void **)&n.clock = sym(h, "nvmlDeviceGetClockInfo", &missing);
  *(void **)&n.max_clock = sym(h, "nvmlDeviceGetMaxClockInfo", &missing);
  *(void **)&n.driver = sym(h, "nvmlSystemGetDriverVersion", &missing);
  /* The newer name first; drivers before 535 only have the older one. */
  *(void **)&n.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!n.reasons)
    *(void **)&n.reasons = sym(h, "nvmlDeviceGetCurrentClocksThrottleReasons", &missing);
  if (missing) {
    snprintf(why, len, "NVML has no %s", missing);
    return -1;
  }
  int rc = init();
  if (rc) {
    snprintf(why, len, "nvmlInit failed (NVML error %d)", rc);
    return -1;
  }
  rc = by_bus(bus_id, &n.dev);
  if (rc) {
    snprintf(why, len, "NVML does not know the GPU at %s (NVML error %d)", bus_id, rc);
    return -1;
  }
  return 0;
}

/* See gpuwatch.h. */
int perf__gpuwatch_open(const char *bus_id, char *why, size_t len)
{
  static char reason[200];
  if (!n.tried) {
    const char *lib = getenv("PERF_NVML_LIB");
    if (!lib || !*lib) lib = "libnvidia-ml.so.1";
    n.tried = 1;
    n.lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!n.lib)
      snprintf(reason, sizeof reason, "cannot load %s", lib);
    else
      n.ok = bind(n.lib, bus_id, reason, sizeof reason) == 0;
  }
  if (!n.ok && why) snprintf(why, len, "%s", reason);
  return n.ok ? 0 : -1;
}

/* See gpuwatch.h. The library stays loaded: NVML may have started threads. */
void perf__gpuwatch_close(void)
{
  memset(&n, 0, sizeof n);
}

/* See gpuwatch.h. */
int perf__gpuwatch_sm_clock(unsigned *cur_mhz, unsigned *max_mhz)
{
  if (!n.ok) return -1;
  if (cur_mhz && n.clock(n.dev, NVML_CLOCK_SM, cur_mhz)) return -1;
  if (max_mhz && n.max_clock(n.dev, NVML_CLOCK_SM, max_mhz)) return -1;
  return 0;
}

/* See gpuwatch.h. */
int perf__gpuwatch_reasons(unsigned long long *reasons)
{
  return n.ok && n.reasons(n.dev, reasons) == 0 ? 0 : -1;
}

/* See gpuwatch.h. */
int perf__gpuwatch_driver(char *buf, size_t len)
{
  return n.ok && n.driver(buf, (unsigned)len) == 0 ? 0 : -1;
}

/* See gpuwatch.h. */
const char *perf__gpuwatch_reason_names(unsigned long long r, char *buf, size_t len)
{
  static const struct {
    unsigned long long bit;
    const char *name;
  } names[] = {{0x1, "idle"},          {0x2, "applications_clocks"},
               {0x4, "sw_power_cap"},  {0x8, "hw_slowdown"},
               {0x10, "sync_boost"},   {0x20, "sw_thermal"},
               {0x40, "hw_thermal"},   {0x80, "hw_power_brake"},
               {0x100, "display_clocks"}};
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (!(r & names[i].bit)) continue;
    int k = snprintf(buf + used, len - used, "%s%s", used ? "," : "", names[i].name);
    if (k < 0 || (size_t)k >= len - used) break;
    used += (size_t)k;
  }
  if (!used) snprintf(buf, len, "%s", r ? "other" : "none");
  return buf;
}
