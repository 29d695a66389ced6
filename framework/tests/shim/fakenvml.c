/* fakenvml.c — a stand-in for libnvidia-ml.so.1 (via PERF_NVML_LIB) whose throttle reasons the test chooses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* $FAKE_NVML_REASONS: comma-separated reason masks, returned one per call
 * and cycled ("0,0,4": every third read reports the software power cap).
 * $FAKE_NVML_MHZ: the SM clock reported (default 1980). A bus id of
 * "missing" is an unknown device. */
static unsigned long long next_reasons(void)
{
  static unsigned long calls;
  const char *spec = getenv("FAKE_NVML_REASONS");
  unsigned long long v[64];
  size_t n = 0;
  while (spec && *spec && n < 64) {
    char *end;
    v[n++] = strtoull(spec, &end, 0);
    spec = *end == ',' ? end + 1 : "";
  }
  return n ? v[calls++ % n] : 0;
}

static unsigned mhz(void)
{
  const char *m = getenv("FAKE_NVML_MHZ");
  return m ? (unsigned)atoi(m) : 1980u;
}

int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev)
{
  *dev = (void *)1;
  return strcmp(bus, "missing") ? 0 : 6; /* NVML_ERROR_NOT_FOUND */
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *clock)
{
  (void)dev, (void)type;
  *clock = mhz();
  return 0;
}

int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned *clock)
{
  (void)dev, (void)type;
  *clock = 1980;
  return 0;
}

int nvmlSystemGetDriverVersion(char *buf, unsigned len)
{
  snprintf(buf, len, "0.0-fake");
  return 0;
}

int nvmlDeviceGetCurrentClocksEventReasons(void *dev, unsigned long long *r)
{
  (void)dev;
  *r = next_reasons();
  return 0;
}
