/* gpuwatch.h — the GPU as NVML sees it, loaded with dlopen (absent without a driver). */
/* The driver, clocks, throttle reasons, the GPU's processes and link
 * traffic. */
#ifndef PERF_GPUWATCH_H
#define PERF_GPUWATCH_H

#include <stddef.h>

/* Clock-event reasons that mean the GPU is held below the clock it would
 * run at: software power cap, hardware slowdown, software and hardware
 * thermal slowdown, power brake. (Idle, application clocks, sync boost and
 * display settings are not throttling.) */
#define PERF__THROTTLE_MASK 0xECull

/* Opens NVML once per process (the library named by $PERF_NVML_LIB, else
 * libnvidia-ml.so.1) for the GPU at PCI bus_id. Returns 0, or -1 with the
 * reason in why[len] (library missing, a symbol missing, init failed, no
 * such device); a failed open is not retried. */
int perf__gpuwatch_open(const char *bus_id, char *why, size_t len);

/* Forgets the open (for the self-tests: the next open loads again). Never
 * fails. */
void perf__gpuwatch_close(void);

/* The current and the maximum SM clock in MHz. Returns 0 or -1 (not open,
 * or NVML said no). */
int perf__gpuwatch_sm_clock(unsigned *cur_mhz, unsigned *max_mhz);

/* The current clock-event reasons (nvmlClocksEventReasons bits). Returns 0
 * or -1. */
int perf__gpuwatch_reasons(unsigned long long *reasons);

/* The PCIe link the device and the system can reach at most: generation
 * and lanes (nvmlDeviceGetMaxPcieLinkGeneration, ...Width: not the
 * current ones, which drop while the link idles). Returns 0, or -1 (not
 * open, an older NVML, NVML said no) with both 0. */
int perf__gpuwatch_pcie(unsigned *gen, unsigned *width);

/* The driver release ("580.159.04"). Returns 0 or -1. */
int perf__gpuwatch_driver(char *buf, size_t len);

/* Names the reasons in r, comma-separated ("sw_power_cap,hw_slowdown"), or
 * "none". Never fails (truncates). */
const char *perf__gpuwatch_reason_names(unsigned long long r, char *buf, size_t len);

/* A process with a context on the GPU: NVML's nvmlProcessInfo_v2_t. */
typedef struct perf__gpuwatch_proc {
  unsigned int pid;
  unsigned long long used_mem;
  unsigned int gpu_instance, compute_instance;
} perf__gpuwatch_proc;

/* One per-process utilisation sample: NVML's nvmlProcessUtilizationSample_t
 * (ts: NVML's CPU timestamp in microseconds, the end of its window). */
typedef struct perf__gpuwatch_util {
  unsigned int pid;
  unsigned long long ts;
  unsigned int sm, mem, enc, dec; /* % of the window */
} perf__gpuwatch_util;

/* The processes with a compute or a graphics context on the GPU (a pid in
 * both lists once) into buf[cap]; *n gets the count. Returns 0, or -1 when
 * not open, the driver lacks both functions or NVML said no (more than cap
 * processes included). The functions are optional: an older driver without
 * them keeps the rest of the watch. */
int perf__gpuwatch_processes(perf__gpuwatch_proc *buf, unsigned cap, unsigned *n);

/* Per-process utilisation samples newer than last_seen (NVML's timestamp;
 * 0: all the driver keeps) into buf[cap]; *n gets the count (0 when there
 * are none). Returns 0, or -1 when not open, unsupported (optional symbol,
 * or NVML_ERROR_NOT_SUPPORTED) or NVML said no. */
int perf__gpuwatch_process_util(perf__gpuwatch_util *buf, unsigned cap, unsigned *n,
                                unsigned long long last_seen);

/* One sample of the whole device's utilisation: the share of its window
 * (NVML's sampling period) in which any kernel ran, whoever's. */
typedef struct perf__gpuwatch_busy {
  unsigned long long ts; /* NVML's timestamp, microseconds (CPU clock) */
  unsigned pct;
} perf__gpuwatch_busy;

/* The device's utilisation samples newer than last_seen (0: the driver's
 * whole buffer; the newest cap kept) into buf[cap], in time order; *n gets the count (0
 * when none is newer). Returns 0, or -1 when not open, the driver lacks
 * nvmlDeviceGetSamples or NVML said no. */
int perf__gpuwatch_device_util(perf__gpuwatch_busy *buf, unsigned cap, unsigned *n,
                               unsigned long long last_seen);

/* The GPU's settings a preflight reports: the application clock and its
 * default (MHz; -1 unknown), persistence, ECC and MIG mode (1 on, 0 off,
 * -2 the GPU has no such feature, -1 unknown). */
typedef struct perf__gpuwatch_setting {
  long app_mhz, default_app_mhz;
  int persistence, ecc, mig;
} perf__gpuwatch_setting;

/* Reads them into s (each NVML function optional: an older driver leaves
 * its reading unknown). Returns 0, or -1 when the watch is not open (all
 * unknown). */
int perf__gpuwatch_settings(perf__gpuwatch_setting *s);

/* The device's host-link (PCIe) traffic, from the GPU performance monitor
 * (GPM: Hopper and later, driver 520 or later): the average rate between
 * two samples, which GPM wants at least this far apart. */
#define PERF__GPUWATCH_LINK_MIN_S 0.1

/* Takes the base sample now. Returns 0, or -1 when GPM cannot be read
 * (not open, an older GPU or driver, MIG, NVML said no). */
int perf__gpuwatch_link_begin(void);

/* The average traffic between the base sample and now, bytes per second
 * to the device and to the host (all processes' and the driver's); now
 * becomes the base. Where less than PERF__GPUWATCH_LINK_MIN_S has passed,
 * sleeps the rest when wait, else returns 1 (nothing read, the base
 * kept). Returns 0, or -1 when GPM cannot be read or there is no base. */
int perf__gpuwatch_link_rates(double *to_device, double *to_host, int wait);

#endif
