/* gpuwatch.h — NVML through dlopen (absent without a driver): driver release, SM clock, clock-event (throttle) reasons. */
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

/* The driver release ("580.159.04"). Returns 0 or -1. */
int perf__gpuwatch_driver(char *buf, size_t len);

/* Names the reasons in r, comma-separated ("sw_power_cap,hw_slowdown"), or
 * "none". Never fails (truncates). */
const char *perf__gpuwatch_reason_names(unsigned long long r, char *buf, size_t len);

#endif
