/* fingerprint.c — what a measurement ran on: the GPU, or the CPU for host-only work, and its baseline file. */
#define _GNU_SOURCE
#include "worker/fingerprint.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "worker/gpu.h"
#include "worker/gpuwatch.h"
#include "base/status.h"

static void set(perf__baseline *b, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set(perf__baseline *b, const char *key, const char *fmt, ...)
{
  char v[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v, sizeof v, fmt, ap);
  va_end(ap);
  perf__baseline_set_fp(b, key, v);
}

/* Driver release and clocks from NVML, when it is there. */
static void nvml_fields(perf__baseline *b)
{
  char bus[32] = "", driver[96], why[200];
  unsigned cur = 0, max = 0;
  cudaDeviceGetPCIBusId(bus, sizeof bus, 0);
  if (perf__gpuwatch_open(bus, why, sizeof why)) {
    set(b, "driver", "unknown (%s)", why);
    set(b, "sm_clock_mhz", "unknown (%s)", why);
    return;
  }
  if (perf__gpuwatch_driver(driver, sizeof driver) == 0) set(b, "driver", "%s", driver);
  if (perf__gpuwatch_sm_clock(&cur, &max) == 0) {
    set(b, "max_sm_clock_mhz", "%u", max);
    set(b, "sm_clock_mhz", "%u", cur);
  }
}

static int attr(enum cudaDeviceAttr a)
{
  int v = -1;
  return cudaDeviceGetAttribute(&v, a, 0) == cudaSuccess ? v : -1;
}

/* See fingerprint.h. */
int perf__fingerprint_gpu(perf__baseline *b)
{
  const perf__gpu_info *g = perf__gpu();
  struct cudaDeviceProp p;
  int drv = 0, rt = 0;
  if (g->err) return g->err;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return PERF__ECUDA;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  set(b, "name", "%s", p.name);
  set(b, "compute_capability", "%d.%d", p.major, p.minor);
  set(b, "sms", "%d", p.multiProcessorCount);
  set(b, "memory_gib", "%.1f", (double)p.totalGlobalMem / (1 << 30));
  set(b, "l2_mib", "%.1f", (double)p.l2CacheSize / (1 << 20));
  set(b, "cuda_driver_api", "%d.%d", drv / 1000, drv % 1000 / 10);
  set(b, "cuda_runtime", "%d.%d", rt / 1000, rt % 1000 / 10);
  set(b, "max_sm_clock_mhz", "%d", attr(cudaDevAttrClockRate) / 1000);
  set(b, "ecc", "%s", attr(cudaDevAttrEccEnabled) == 1 ? "on" : "off");
  const unsigned char *u = (const unsigned char *)p.uuid.bytes;
  set(b, "uuid", "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
      u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
      u[12], u[13], u[14], u[15]);
  nvml_fields(b);
  return 0;
}

/* The "model name" line of /proc/cpuinfo, or "unknown". */
static void cpu_model(char *out, size_t len)
{
  char line[512];
  FILE *f = fopen("/proc/cpuinfo", "r");
  snprintf(out, len, "unknown");
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!strncmp(line, "model name", 10) && colon) {
      colon += 1 + (colon[1] == ' ');
      colon[strcspn(colon, "\n")] = '\0';
      snprintf(out, len, "%s", colon);
      break;
    }
  }
  if (f) fclose(f);
}

/* Never fails. */
void perf__fingerprint_host(perf__baseline *b)
{
  char model[200];
  cpu_model(model, sizeof model);
  set(b, "name", "%s", model);
  set(b, "cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
  set(b, "memory_gib", "%.1f",
      (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) / (1 << 30));
}

/* Never fails. */
const char *perf__fingerprint_model(const perf__baseline *b)
{
  for (size_t i = 0; i < b->nfp; i++)
    if (!strcmp(b->fp[i].key, "name")) return b->fp[i].value;
  return "unknown";
}

/* Never fails. */
char *perf__fingerprint_path(const char *dir, const perf__baseline *b, char *out,
                    size_t len)
{
  char slug[80];
  perf__baseline_slug(perf__fingerprint_model(b), slug, sizeof slug);
  snprintf(out, len, "%s/%s.yaml", dir && *dir ? dir : ".", slug);
  return out;
}
