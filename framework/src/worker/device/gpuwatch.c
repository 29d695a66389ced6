/* gpuwatch.c — the GPU as NVML sees it, loaded with dlopen (absent without a driver). */
/* The driver, clocks, throttle reasons, the GPU's processes and link
 * traffic. */
#define _GNU_SOURCE
#include "worker/device/gpuwatch.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
  NVML_CLOCK_GRAPHICS = 0,
  NVML_CLOCK_SM = 1,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NOT_FOUND = 6, /* process utilisation: no samples since the timestamp */
  NVML_ERROR_INSUFFICIENT_SIZE = 7 /* the count the buffer needs is set */
};

typedef int procs_fn(void *, unsigned *, perf__gpuwatch_proc *);

static struct {
  int tried, ok;
  void *lib;
  void *dev;
  int (*clock)(void *, int, unsigned *);
  int (*max_clock)(void *, int, unsigned *);
  int (*reasons)(void *, unsigned long long *);
  int (*driver)(char *, unsigned);
  procs_fn *compute, *graphics; /* optional: NULL on older drivers */
  int (*util)(void *, perf__gpuwatch_util *, unsigned *, unsigned long long); /* optional */
  int (*samples)(void *, int, unsigned long long, int *, unsigned *, void *); /* optional */
  int (*app)(void *, int, unsigned *), (*default_app)(void *, int, unsigned *); /* optional: */
  int (*persistence)(void *, int *), (*ecc)(void *, int *, int *);             /* the settings */
  int (*mig)(void *, unsigned *, unsigned *);
  int (*pcie_gen)(void *, unsigned *), (*pcie_width)(void *, unsigned *); /* optional */
  int (*gpm_support)(void *, void *), (*gpm_alloc)(void **), (*gpm_get)(void *, void *);
  int (*gpm_metrics)(void *), (*gpm_free)(void *); /* optional: GPM (Hopper and later) */
} nvml; /* NVML, loaded with dlopen on first use */

static struct {
  int state;        /* 0 untried, 1 ready, -1 unsupported */
  void *sample[2];  /* base, newer */
  double base_s;    /* monotonic time of the base sample; 0 none */
} gpm; /* the host-link monitor's GPM samples */

static void *sym(void *h, const char *name, const char **missing)
{
  void *p = dlsym(h, name);
  if (!p && !*missing) *missing = name;
  return p;
}

/* Fills nvml from library h; returns 0 or -1 with why. */
static int bind(void *h, const char *bus_id, char *why, size_t len)
{
  const char *missing = NULL;
  int (*init)(void) = (int (*)(void))sym(h, "nvmlInit_v2", &missing);
  int (*by_bus)(const char *, void **) =
      (int (*)(const char *, void **))sym(h, "nvmlDeviceGetHandleByPciBusId_v2", &missing);
  *(void **)&nvml.clock = sym(h, "nvmlDeviceGetClockInfo", &missing);
  *(void **)&nvml.max_clock = sym(h, "nvmlDeviceGetMaxClockInfo", &missing);
  *(void **)&nvml.driver = sym(h, "nvmlSystemGetDriverVersion", &missing);
  /* The newer name first; drivers before 535 only have the older one. */
  *(void **)&nvml.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!nvml.reasons)
    *(void **)&nvml.reasons = sym(h, "nvmlDeviceGetCurrentClocksThrottleReasons", &missing);
  /* Optional: the process view; the _v3 names first, _v2 has the same
   * element layout. */
  *(void **)&nvml.compute = dlsym(h, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!nvml.compute) *(void **)&nvml.compute = dlsym(h, "nvmlDeviceGetComputeRunningProcesses_v2");
  *(void **)&nvml.graphics = dlsym(h, "nvmlDeviceGetGraphicsRunningProcesses_v3");
  if (!nvml.graphics) *(void **)&nvml.graphics = dlsym(h, "nvmlDeviceGetGraphicsRunningProcesses_v2");
  *(void **)&nvml.util = dlsym(h, "nvmlDeviceGetProcessUtilization");
  *(void **)&nvml.samples = dlsym(h, "nvmlDeviceGetSamples");
  *(void **)&nvml.app = dlsym(h, "nvmlDeviceGetApplicationsClock");
  *(void **)&nvml.default_app = dlsym(h, "nvmlDeviceGetDefaultApplicationsClock");
  *(void **)&nvml.persistence = dlsym(h, "nvmlDeviceGetPersistenceMode");
  *(void **)&nvml.ecc = dlsym(h, "nvmlDeviceGetEccMode");
  *(void **)&nvml.mig = dlsym(h, "nvmlDeviceGetMigMode");
  *(void **)&nvml.pcie_gen = dlsym(h, "nvmlDeviceGetMaxPcieLinkGeneration");
  *(void **)&nvml.pcie_width = dlsym(h, "nvmlDeviceGetMaxPcieLinkWidth");
  *(void **)&nvml.gpm_support = dlsym(h, "nvmlGpmQueryDeviceSupport");
  *(void **)&nvml.gpm_alloc = dlsym(h, "nvmlGpmSampleAlloc");
  *(void **)&nvml.gpm_get = dlsym(h, "nvmlGpmSampleGet");
  *(void **)&nvml.gpm_metrics = dlsym(h, "nvmlGpmMetricsGet");
  *(void **)&nvml.gpm_free = dlsym(h, "nvmlGpmSampleFree");
  if (missing) {
    snprintf(why, len, "NVML has no %s", missing);
    return -1;
  }
  int rc = init();
  if (rc) {
    snprintf(why, len, "nvmlInit failed (NVML error %d)", rc);
    return -1;
  }
  rc = by_bus(bus_id, &nvml.dev);
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
  if (!nvml.tried) {
    const char *lib = getenv("PERF_NVML_LIB");
    if (!lib || !*lib) lib = "libnvidia-ml.so.1";
    nvml.tried = 1;
    nvml.lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!nvml.lib)
      snprintf(reason, sizeof reason, "cannot load %s", lib);
    else
      nvml.ok = bind(nvml.lib, bus_id, reason, sizeof reason) == 0;
  }
  if (!nvml.ok && why) snprintf(why, len, "%s", reason);
  return nvml.ok ? 0 : -1;
}

/* See gpuwatch.h. The library stays loaded: NVML may have started threads. */
void perf__gpuwatch_close(void)
{
  for (int i = 0; i < 2; i++)
    if (gpm.sample[i] && nvml.gpm_free) nvml.gpm_free(gpm.sample[i]);
  memset(&nvml, 0, sizeof nvml);
  memset(&gpm, 0, sizeof gpm);
}

/* See gpuwatch.h. */
int perf__gpuwatch_sm_clock(unsigned *cur_mhz, unsigned *max_mhz)
{
  if (!nvml.ok) return -1;
  if (cur_mhz && nvml.clock(nvml.dev, NVML_CLOCK_SM, cur_mhz)) return -1;
  if (max_mhz && nvml.max_clock(nvml.dev, NVML_CLOCK_SM, max_mhz)) return -1;
  return 0;
}

/* See gpuwatch.h. */
int perf__gpuwatch_reasons(unsigned long long *reasons)
{
  return nvml.ok && nvml.reasons(nvml.dev, reasons) == 0 ? 0 : -1;
}

/* See gpuwatch.h. */
int perf__gpuwatch_driver(char *buf, size_t len)
{
  return nvml.ok && nvml.driver(buf, (unsigned)len) == 0 ? 0 : -1;
}

/* Appends the processes one list function reports to buf[*n..cap), a pid
 * already there once. Returns 0, or -1 (NVML said no, or more than cap). */
static int add_procs(procs_fn *fn, perf__gpuwatch_proc *buf, unsigned cap, unsigned *have)
{
  perf__gpuwatch_proc got[64];
  unsigned k = sizeof got / sizeof got[0];
  if (fn(nvml.dev, &k, got)) return -1; /* NVML_ERROR_INSUFFICIENT_SIZE past 64 too */
  for (unsigned i = 0; i < k; i++) {
    unsigned j = 0;
    while (j < *have && buf[j].pid != got[i].pid) j++;
    if (j < *have) continue;
    if (*have == cap) return -1;
    buf[(*have)++] = got[i];
  }
  return 0;
}

/* See gpuwatch.h. */
int perf__gpuwatch_processes(perf__gpuwatch_proc *buf, unsigned cap, unsigned *count)
{
  *count = 0;
  if (!nvml.ok || (!nvml.compute && !nvml.graphics)) return -1;
  if (nvml.compute && add_procs(nvml.compute, buf, cap, count)) return -1;
  if (nvml.graphics && add_procs(nvml.graphics, buf, cap, count)) return -1;
  return 0;
}

/* nvmlSample_t: a timestamp and an 8-byte value whose type the call
 * names (nvmlValueType_t). */
typedef struct nvml_sample {
  unsigned long long ts;
  union {
    double d;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    signed long long sll;
    int si;
    unsigned short us;
  } v;
} nvml_sample;

/* A sample's value as a whole percentage by its type. Never fails. */
static unsigned percent(const nvml_sample *s, int type)
{
  switch (type) {
  case 0: return s->v.d > 0 ? (unsigned)(fmin(s->v.d, 1000.0) + 0.5) : 0;
  case 2: return (unsigned)s->v.ul;
  case 3: return (unsigned)s->v.ull;
  case 4: return s->v.sll > 0 ? (unsigned)s->v.sll : 0;
  case 5: return s->v.si > 0 ? (unsigned)s->v.si : 0;
  case 6: return s->v.us;
  default: return s->v.ui;
  }
}

/* got[k] in time order, whatever order NVML gave, the newest cap of them
 * into buf as percentages; returns how many. Never fails. */
static unsigned newest_in_order(nvml_sample *got, unsigned k, int type, perf__gpuwatch_busy *buf,
                                unsigned cap)
{
  for (unsigned i = 1; i < k; i++) {
    nvml_sample x = got[i];
    unsigned j = i;
    while (j > 0 && got[j - 1].ts > x.ts) got[j] = got[j - 1], j--;
    got[j] = x;
  }
  unsigned from = k > cap ? k - cap : 0;
  for (unsigned i = from; i < k; i++)
    buf[i - from] = (perf__gpuwatch_busy){.ts = got[i].ts, .pct = percent(&got[i], type)};
  return k - from;
}

/* See gpuwatch.h. More samples than fit (the driver's whole buffer, on
 * the first read): read into a buffer of their size. */
int perf__gpuwatch_device_util(perf__gpuwatch_busy *buf, unsigned cap, unsigned *count,
                               unsigned long long last_seen)
{
  enum { NVML_GPU_UTILIZATION_SAMPLES = 1, MAX = 128 };
  nvml_sample local[MAX], *got = local;
  unsigned k = MAX;
  int type = 1;
  *count = 0;
  if (!nvml.ok || !nvml.samples) return -1;
  int rc = nvml.samples(nvml.dev, NVML_GPU_UTILIZATION_SAMPLES, last_seen, &type, &k, got);
  if (rc == NVML_ERROR_INSUFFICIENT_SIZE && k > MAX) {
    unsigned want = k + 8; /* room for a window that closes meanwhile */
    if (!(got = malloc(want * sizeof *got))) return -1;
    k = want;
    rc = nvml.samples(nvml.dev, NVML_GPU_UTILIZATION_SAMPLES, last_seen, &type, &k, got);
    if (k > want) k = want;
  }
  if (!rc) *count = newest_in_order(got, k, type, buf, cap);
  if (got != local) free(got);
  if (rc == NVML_ERROR_NOT_FOUND) return 0;
  return rc ? -1 : 0;
}

/* See gpuwatch.h. More samples than cap (the driver's whole buffer, on
 * the first read): read into a buffer of their size, the newest cap kept. */
int perf__gpuwatch_process_util(perf__gpuwatch_util *buf, unsigned cap, unsigned *count,
                                unsigned long long last_seen)
{
  unsigned k = cap;
  *count = 0;
  if (!nvml.ok || !nvml.util) return -1;
  int rc = nvml.util(nvml.dev, buf, &k, last_seen);
  if (rc == NVML_ERROR_INSUFFICIENT_SIZE && k > cap) {
    unsigned want = k + 8; /* room for a window that closes meanwhile */
    perf__gpuwatch_util *all = malloc(want * sizeof *all);
    if (!all) return -1;
    k = want;
    rc = nvml.util(nvml.dev, all, &k, last_seen);
    if (!rc) {
      if (k > want) k = want;
      unsigned from = k > cap ? k - cap : 0;
      memcpy(buf, all + from, (k - from) * sizeof *all);
      k -= from;
    }
    free(all);
  }
  if (rc == NVML_ERROR_NOT_FOUND) return 0;
  if (rc) return -1;
  *count = k < cap ? k : cap;
  return 0;
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

/* One application clock (fn: the current or the default) of the SM
 * domain, else of the graphics domain (which nvidia-smi -ac sets and
 * drives the SM clock); -1 when NVML cannot say. */
static long app_clock(int (*fn)(void *, int, unsigned *))
{
  unsigned mhz = 0;
  if (!fn) return -1;
  if (fn(nvml.dev, NVML_CLOCK_SM, &mhz) == 0 || fn(nvml.dev, NVML_CLOCK_GRAPHICS, &mhz) == 0)
    return (long)mhz;
  return -1;
}

/* A mode NVML reports through fn's first argument: 0 or 1, -2 when the GPU
 * has no such feature (NVML_ERROR_NOT_SUPPORTED), -1 when unknown. */
static int mode_of(int rc, long v)
{
  if (rc == NVML_ERROR_NOT_SUPPORTED) return -2;
  return rc == 0 && (v == 0 || v == 1) ? (int)v : -1;
}

/* See gpuwatch.h. */
int perf__gpuwatch_settings(perf__gpuwatch_setting *s)
{
  int p = -1, e = -1, pending = -1, rc;
  unsigned m = 2, m_pending = 2;
  *s = (perf__gpuwatch_setting){-1, -1, -1, -1, -1};
  if (!nvml.ok) return -1;
  s->app_mhz = app_clock(nvml.app);
  s->default_app_mhz = app_clock(nvml.default_app);
  if (nvml.persistence) rc = nvml.persistence(nvml.dev, &p), s->persistence = mode_of(rc, p);
  if (nvml.ecc) rc = nvml.ecc(nvml.dev, &e, &pending), s->ecc = mode_of(rc, e);
  if (nvml.mig) rc = nvml.mig(nvml.dev, &m, &m_pending), s->mig = mode_of(rc, (long)m);
  return 0;
}

/* See gpuwatch.h. */
int perf__gpuwatch_pcie(unsigned *gen, unsigned *width)
{
  *gen = *width = 0;
  if (!nvml.ok || !nvml.pcie_gen || !nvml.pcie_width) return -1;
  if (nvml.pcie_gen(nvml.dev, gen) || nvml.pcie_width(nvml.dev, width)) return *gen = *width = 0, -1;
  return 0;
}

/* GPM's structures (nvml.h, 13.0): a metric is 40 bytes; the request's
 * array is sized by the header's NVML_GPM_METRIC_MAX, which grew from 98
 * (12.0) to 333 (13.3) while the request's version stayed 1, so the
 * library goes by numMetrics and a larger array is safe. */
enum {
  GPM_VERSION = 1,
  GPM_PCIE_TX_PER_SEC = 20, /* MiB/s from the GPU */
  GPM_PCIE_RX_PER_SEC = 21, /* MiB/s to the GPU */
  GPM_ARRAY = 340
};
typedef struct gpm_metric {
  unsigned id;
  int rc;
  double value;
  const char *names[3];
} gpm_metric;
typedef struct gpm_request {
  unsigned version, n;
  void *sample1, *sample2;
  gpm_metric m[GPM_ARRAY];
} gpm_request;

/* Monotonic seconds. */
static double mono_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* 1 when GPM can be read on this device (asked once): the symbols, the
 * device's support, two samples allocated. Never fails. */
static int gpm_ready(void)
{
  struct {
    unsigned version, supported;
  } sup = {GPM_VERSION, 0};
  if (gpm.state) return gpm.state > 0;
  gpm.state = -1;
  if (!nvml.ok || !nvml.gpm_support || !nvml.gpm_alloc || !nvml.gpm_get || !nvml.gpm_metrics)
    return 0;
  if (nvml.gpm_support(nvml.dev, &sup) || !sup.supported) return 0;
  if (nvml.gpm_alloc(&gpm.sample[0])) return gpm.sample[0] = NULL, 0;
  if (nvml.gpm_alloc(&gpm.sample[1])) {
    if (nvml.gpm_free) nvml.gpm_free(gpm.sample[0]);
    gpm.sample[0] = gpm.sample[1] = NULL;
    return 0;
  }
  gpm.state = 1;
  return 1;
}

/* See gpuwatch.h. */
int perf__gpuwatch_link_begin(void)
{
  if (!gpm_ready()) return -1;
  gpm.base_s = 0;
  if (nvml.gpm_get(nvml.dev, gpm.sample[0])) return -1;
  gpm.base_s = mono_s();
  return 0;
}

/* See gpuwatch.h. */
int perf__gpuwatch_link_rates(double *to_device, double *to_host, int wait)
{
  static gpm_request q; /* 13.6 KB: not on the stack */
  if (!gpm_ready() || gpm.base_s <= 0) return -1;
  double left = PERF__GPUWATCH_LINK_MIN_S - (mono_s() - gpm.base_s);
  if (left > 0 && !wait) return 1;
  if (left > 0) {
    struct timespec t = {0, (long)(left * 1e9) + 1000000};
    while (nanosleep(&t, &t) && errno == EINTR) {
    }
  }
  double at = mono_s();
  if (nvml.gpm_get(nvml.dev, gpm.sample[1])) return -1;
  memset(&q, 0, sizeof q);
  q.version = GPM_VERSION;
  q.n = 2;
  q.sample1 = gpm.sample[0];
  q.sample2 = gpm.sample[1];
  q.m[0].id = GPM_PCIE_RX_PER_SEC;
  q.m[1].id = GPM_PCIE_TX_PER_SEC;
  if (nvml.gpm_metrics(&q) || q.m[0].rc || q.m[1].rc || !(q.m[0].value >= 0) ||
      !(q.m[1].value >= 0))
    return -1;
  *to_device = q.m[0].value * 1048576.0;
  *to_host = q.m[1].value * 1048576.0;
  void *t = gpm.sample[0]; /* the newer sample is the next base */
  gpm.sample[0] = gpm.sample[1];
  gpm.sample[1] = t;
  gpm.base_s = at;
  return 0;
}
