/* fakenvml.c — a stand-in NVML whose throttle reasons and GPU processes the test sets. */
/* It replaces libnvidia-ml.so.1 through PERF_NVML_LIB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

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

/* The settings a preflight reads: $FAKE_NVML_APP_MHZ and
 * $FAKE_NVML_DEFAULT_APP_MHZ (default 1755 each), $FAKE_NVML_PERSISTENCE
 * and $FAKE_NVML_ECC (default 1), $FAKE_NVML_MIG (default 0); each may be
 * "unsupported" (NVML_ERROR_NOT_SUPPORTED) or "error" (NVML_ERROR_UNKNOWN). */
static int setting(const char *var, unsigned def, unsigned *out)
{
  const char *v = getenv(var);
  if (v && !strcmp(v, "unsupported")) return 3;
  if (v && !strcmp(v, "error")) return 999;
  *out = v && *v ? (unsigned)atoi(v) : def;
  return 0;
}

int nvmlDeviceGetApplicationsClock(void *dev, int type, unsigned *clock)
{
  (void)dev, (void)type;
  return setting("FAKE_NVML_APP_MHZ", 1755, clock);
}

int nvmlDeviceGetDefaultApplicationsClock(void *dev, int type, unsigned *clock)
{
  (void)dev, (void)type;
  return setting("FAKE_NVML_DEFAULT_APP_MHZ", 1755, clock);
}

int nvmlDeviceGetPersistenceMode(void *dev, unsigned *mode)
{
  (void)dev;
  return setting("FAKE_NVML_PERSISTENCE", 1, mode);
}

int nvmlDeviceGetEccMode(void *dev, unsigned *current, unsigned *pending)
{
  (void)dev;
  *pending = 0;
  return setting("FAKE_NVML_ECC", 1, current);
}

int nvmlDeviceGetMigMode(void *dev, unsigned *current, unsigned *pending)
{
  (void)dev;
  *pending = 0;
  return setting("FAKE_NVML_MIG", 0, current);
}

#ifndef FAKE_NVML_OLD /* an older driver: no process view at all */

/* $FAKE_NVML_PROCS: the processes with a compute context and the SM share
 * each uses, "pid:sm,..."; "self" is the calling process (its pid, or with
 * $FAKE_NVML_HIDE_SELF=1 a pid it cannot see, as NVML lists host PIDs to a
 * container). $FAKE_NVML_LEAVE_AFTER=N: the other processes leave after N
 * utilisation reads. $FAKE_NVML_PROC_UTIL=unsupported: no per-process
 * utilisation (NVML_ERROR_NOT_SUPPORTED). $FAKE_NVML_UNLISTED=N: the
 * device's utilisation is N points above the listed processes' sum (a
 * process NVML does not list; it leaves with the others);
 * $FAKE_NVML_DEVICE_UTIL=unsupported: no device samples.
 * $FAKE_NVML_ONE_PER_WINDOW=N: per-process samples name one process per
 * window, as an H200's driver does: the others in the first N reads (as if
 * the caller were idle), then only the caller. */
typedef struct {
  unsigned int pid;
  unsigned long long mem;
  unsigned int gi, ci;
} proc_info;

typedef struct {
  unsigned int pid;
  unsigned long long ts;
  unsigned int sm, mem, enc, dec;
} util_sample;

enum { MAXP = 32, NOT_SUPPORTED = 3, NOT_FOUND = 6, INSUFFICIENT_SIZE = 7 };

static unsigned long util_reads;

/* The processes now into pid[]/sm[]; returns their count. */
static unsigned procs(unsigned *pid, unsigned *sm)
{
  const char *spec = getenv("FAKE_NVML_PROCS"), *leave = getenv("FAKE_NVML_LEAVE_AFTER");
  const char *hide = getenv("FAKE_NVML_HIDE_SELF");
  int gone = leave && util_reads >= strtoul(leave, NULL, 10);
  unsigned n = 0;
  while (spec && *spec && n < MAXP) {
    char *end = (char *)spec + 4;
    int self = !strncmp(spec, "self", 4);
    unsigned p = self ? (unsigned)getpid() + (hide && *hide == '1' ? 1000000u : 0u)
                      : (unsigned)strtoul(spec, &end, 10);
    unsigned u = *end == ':' ? (unsigned)strtoul(end + 1, &end, 10) : 0;
    if (self || !gone) pid[n] = p, sm[n++] = u;
    spec = strchr(end, ',') ? strchr(end, ',') + 1 : "";
  }
  return n;
}

int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned *count, proc_info *buf)
{
  unsigned pid[MAXP], sm[MAXP], n = procs(pid, sm);
  (void)dev;
  if (!buf || *count < n) {
    *count = n;
    return n ? INSUFFICIENT_SIZE : 0;
  }
  for (unsigned i = 0; i < n; i++) buf[i] = (proc_info){pid[i], 1u << 20, 0, 0};
  *count = n;
  return 0;
}

int nvmlDeviceGetGraphicsRunningProcesses_v3(void *dev, unsigned *count, proc_info *buf)
{
  (void)dev, (void)buf;
  *count = 0;
  return 0;
}

/* NVML's sampling windows, as the stand-in keeps them: every WINDOW_US,
 * a window's device and per-process samples stamped alike (as the driver
 * does). The windows closed after last_seen, the newest
 * $FAKE_NVML_WINDOWS (4; at most MAXW: the driver's buffer), oldest first,
 * into ts[]; returns their count. */
enum { WINDOW_US = 50000, MAXW = 512 };

static unsigned windows(unsigned long long last_seen, unsigned long long *ts)
{
  const char *keep = getenv("FAKE_NVML_WINDOWS"); /* windows the driver keeps (4) */
  unsigned most = keep ? (unsigned)strtoul(keep, NULL, 10) : 4;
  if (most > MAXW) most = MAXW;
  struct timeval tv;
  gettimeofday(&tv, NULL);
  unsigned long long now = (unsigned long long)tv.tv_sec * 1000000ull + (unsigned)tv.tv_usec;
  unsigned long long w = now / WINDOW_US * WINDOW_US;
  unsigned n = 0;
  while (n < most && w > last_seen && w >= WINDOW_US) w -= WINDOW_US, n++;
  for (unsigned i = 0; i < n; i++) ts[i] = w + (i + 1) * WINDOW_US;
  return n;
}

/* nvmlDeviceGetSamples for NVML_GPU_UTILIZATION_SAMPLES: one sample per
 * window, of the listed processes' sum plus $FAKE_NVML_UNLISTED (at most
 * 100), as an unsigned int (NVML_VALUE_TYPE_UNSIGNED_INT). */
typedef struct {
  unsigned long long ts;
  unsigned long long value; /* nvmlValue_t, 8 bytes */
} device_sample;

int nvmlDeviceGetSamples(void *dev, int type, unsigned long long last_seen, int *value_type,
                         unsigned *count, device_sample *buf)
{
  const char *mode = getenv("FAKE_NVML_DEVICE_UTIL"), *unlisted = getenv("FAKE_NVML_UNLISTED");
  const char *leave = getenv("FAKE_NVML_LEAVE_AFTER");
  unsigned pid[MAXP], sm[MAXP], n = procs(pid, sm), sum = 0;
  unsigned long long ts[MAXW];
  (void)dev;
  if ((mode && !strcmp(mode, "unsupported")) || type != 1) return NOT_SUPPORTED;
  unsigned k = windows(last_seen, ts);
  for (unsigned i = 0; i < n; i++) sum += sm[i];
  if (unlisted && !(leave && util_reads >= strtoul(leave, NULL, 10)))
    sum += (unsigned)atoi(unlisted);
  if (!buf || *count < k) {
    *count = k;
    return INSUFFICIENT_SIZE;
  }
  if (!k) return NOT_FOUND;
  unsigned v = sum > 100 ? 100 : sum;
  *value_type = 1;
  for (unsigned i = 0; i < k; i++) {
    buf[i].ts = ts[i];
    buf[i].value = 0;
    memcpy(&buf[i].value, &v, sizeof v);
  }
  *count = k;
  return 0;
}

/* Whether the read now names pid (busy at sm): every busy one, or with
 * $FAKE_NVML_ONE_PER_WINDOW the others first, then only the caller. */
static int named(unsigned pid, unsigned sm)
{
  const char *one = getenv("FAKE_NVML_ONE_PER_WINDOW");
  if (!sm) return 0;
  if (!one) return 1;
  int self = pid == (unsigned)getpid();
  return util_reads < strtoul(one, NULL, 10) ? !self : self;
}

/* One sample per named busy process and window (microseconds, CPU clock). */
int nvmlDeviceGetProcessUtilization(void *dev, util_sample *buf, unsigned *count,
                                    unsigned long long last_seen)
{
  const char *mode = getenv("FAKE_NVML_PROC_UTIL");
  unsigned pid[MAXP], sm[MAXP], n = procs(pid, sm), busy = 0;
  unsigned long long ts[MAXW];
  (void)dev;
  if (mode && !strcmp(mode, "unsupported")) return NOT_SUPPORTED;
  unsigned w = windows(last_seen, ts);
  for (unsigned i = 0; i < n; i++) busy += named(pid[i], sm[i]);
  if (!buf || *count < busy * w) {
    *count = busy * w;
    return INSUFFICIENT_SIZE;
  }
  unsigned k = 0;
  for (unsigned j = 0; j < w; j++)
    for (unsigned i = 0; i < n; i++)
      if (named(pid[i], sm[i])) buf[k++] = (util_sample){pid[i], ts[j], sm[i], 0, 0, 0};
  util_reads++;
  if (!busy || !w) return NOT_FOUND;
  *count = k;
  return 0;
}

/* GPM (the host-link monitor): supported unless $FAKE_NVML_GPM is
 * "unsupported"; the PCIe rates between any two samples are
 * $FAKE_NVML_GPM_RX and $FAKE_NVML_GPM_TX MiB/s (default 15: a quiet
 * device), 0.015 after $FAKE_NVML_LEAVE_AFTER per-process reads. */
typedef struct {
  unsigned version, supported;
} gpm_support;
typedef struct {
  unsigned id;
  int rc;
  double value;
  const char *names[3];
} gpm_metric;
typedef struct {
  unsigned version, n;
  void *sample1, *sample2;
  gpm_metric m[98]; /* 12.0's NVML_GPM_METRIC_MAX: callers may pass more */
} gpm_request;

static int gpm_off(void)
{
  const char *g = getenv("FAKE_NVML_GPM");
  return g && !strcmp(g, "unsupported");
}

int nvmlGpmQueryDeviceSupport(void *dev, gpm_support *s)
{
  (void)dev;
  if (s->version != 1) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  s->supported = !gpm_off();
  return 0;
}

int nvmlGpmSampleAlloc(void **sample)
{
  static int samples[64];
  static unsigned n;
  if (n == 64) return 999;
  *sample = &samples[n++];
  return 0;
}

int nvmlGpmSampleFree(void *sample)
{
  return sample ? 0 : 2;
}

int nvmlGpmSampleGet(void *dev, void *sample)
{
  (void)dev;
  return gpm_off() || !sample ? NOT_SUPPORTED : 0;
}

/* The rate named by var, MiB/s. */
static double gpm_rate(const char *var)
{
  const char *v = getenv(var), *leave = getenv("FAKE_NVML_LEAVE_AFTER");
  if (leave && util_reads >= strtoul(leave, NULL, 10)) return 0.015;
  return v ? atof(v) : 15.0;
}

int nvmlGpmMetricsGet(gpm_request *q)
{
  if (q->version != 1 || !q->sample1 || !q->sample2 || q->n > 98) return 2;
  for (unsigned i = 0; i < q->n; i++) {
    unsigned id = q->m[i].id;
    q->m[i].rc = id == 20 || id == 21 ? 0 : NOT_SUPPORTED;
    q->m[i].value = id == 21 ? gpm_rate("FAKE_NVML_GPM_RX") : gpm_rate("FAKE_NVML_GPM_TX");
  }
  return 0;
}

#endif
