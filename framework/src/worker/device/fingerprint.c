/* fingerprint.c — what a GPU measurement ran on, as device 0 describes itself. */
/* Its name, capability, memory, clocks, driver and UUID. */
#define _GNU_SOURCE
#include "worker/device/fingerprint.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "worker/device/gpu.h"
#include "worker/device/gpuwatch.h"
#include "util/status.h"

/* Driver release and clocks from NVML, when it is there. */
static void nvml_fields(perf__baseline *b)
{
  char bus[32] = "", driver[96], why[200];
  unsigned cur = 0, max = 0;
  perf__gpu_tolerate(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  if (perf__gpuwatch_open(bus, why, sizeof why)) {
    perf__baseline_set_fp_printf(b, "driver", "unknown (%s)", why);
    perf__baseline_set_fp_printf(b, "sm_clock_mhz", "unknown (%s)", why);
    return;
  }
  if (perf__gpuwatch_driver(driver, sizeof driver) == 0) perf__baseline_set_fp_printf(b, "driver", "%s", driver);
  if (perf__gpuwatch_sm_clock(&cur, &max) == 0) {
    perf__baseline_set_fp_printf(b, "max_sm_clock_mhz", "%u", max);
    perf__baseline_set_fp_printf(b, "sm_clock_mhz", "%u", cur);
  }
}

/* Device 0's attribute a; -1 when the runtime does not give it. */
static int attr(enum cudaDeviceAttr a)
{
  int v = -1;
  cudaError_t e = cudaDeviceGetAttribute(&v, a, 0);
  perf__gpu_tolerate(e);
  return e == cudaSuccess ? v : -1;
}

/* See fingerprint.h. */
int perf__fingerprint_gpu(perf__baseline *b)
{
  const perf__gpu_info *g = perf__gpu();
  struct cudaDeviceProp p;
  int drv = 0, rt = 0;
  if (g->err) return g->err;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return PERF__ECUDA;
  perf__gpu_tolerate(cudaDriverGetVersion(&drv));
  perf__gpu_tolerate(cudaRuntimeGetVersion(&rt));
  perf__baseline_set_fp_printf(b, "name", "%s", p.name);
  perf__baseline_set_fp_printf(b, "compute_capability", "%d.%d", p.major, p.minor);
  perf__baseline_set_fp_printf(b, "sms", "%d", p.multiProcessorCount);
  perf__baseline_set_fp_printf(b, "memory_gib", "%.1f", (double)p.totalGlobalMem / (1 << 30));
  perf__baseline_set_fp_printf(b, "l2_mib", "%.1f", (double)p.l2CacheSize / (1 << 20));
  perf__baseline_set_fp_printf(b, "cuda_driver_api", "%d.%d", drv / 1000, drv % 1000 / 10);
  perf__baseline_set_fp_printf(b, "cuda_runtime", "%d.%d", rt / 1000, rt % 1000 / 10);
  perf__baseline_set_fp_printf(b, "max_sm_clock_mhz", "%d", attr(cudaDevAttrClockRate) / 1000);
  perf__baseline_set_fp_printf(b, "ecc", "%s", attr(cudaDevAttrEccEnabled) == 1 ? "on" : "off");
  const unsigned char *u = (const unsigned char *)p.uuid.bytes;
  perf__baseline_set_fp_printf(b, "uuid", "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
      u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
      u[12], u[13], u[14], u[15]);
  nvml_fields(b);
  return 0;
}

/* See fingerprint.h. */
const perf__peaks_device *perf__fingerprint_peaks(void)
{
  static perf__peaks_device d;
  static int done;
  if (done) return &d;
  done = 1;
  if (perf__gpu()->err) return &d;
  int v[7] = {attr(cudaDevAttrComputeCapabilityMajor), attr(cudaDevAttrComputeCapabilityMinor),
              attr(cudaDevAttrMultiProcessorCount), attr(cudaDevAttrClockRate),
              attr(cudaDevAttrMemoryClockRate), attr(cudaDevAttrGlobalMemoryBusWidth),
              attr(cudaDevAttrL2CacheSize)};
  d = (perf__peaks_device){
      .cc_major = v[0] > 0 ? v[0] : 0,
      .cc_minor = v[1] >= 0 ? v[1] : 0,
      .sms = v[2] > 0 ? v[2] : 0,
      .sm_clock_mhz = v[3] > 0 ? v[3] / 1000.0 : 0,
      .mem_clock_mhz = v[4] > 0 ? v[4] / 1000.0 : 0,
      .bus_bits = v[5] > 0 ? v[5] : 0,
      .l2_bytes = v[6] > 0 ? v[6] : 0,
  };
  char bus[32] = "", why[200];
  perf__gpu_tolerate(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  if (!perf__gpuwatch_open(bus, why, sizeof why)) perf__gpuwatch_pcie(&d.pcie_gen, &d.pcie_lanes);
  return &d;
}
