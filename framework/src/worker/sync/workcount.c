/* workcount.c — what one call of a workload runs on the GPU, counted by CUPTI's range profiler. */
#include "worker/sync/workcount.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/clock.h"
#include "util/status.h"
#include "worker/device/gpu.h"
#include "worker/sync/cupti.h"

/* The metrics counted, one row each: the field of perf__workcount a metric
 * fills, and its name in CUPTI. A new metric is a row here and a field. */
#define WORKCOUNT_METRICS(X)           \
  X(insts, "sm__inst_executed.sum")    \
  X(dram_read, "dram__bytes_read.sum")

#define X(field, name) name,
static const char *metric_names[] = {WORKCOUNT_METRICS(X)};
#undef X
#define X(field, name) offsetof(perf__workcount, field),
static const size_t metric_fields[] = {WORKCOUNT_METRICS(X)};
#undef X
enum { NMETRICS = sizeof metric_names / sizeof metric_names[0], MAX_PASSES = 64 };

/* The driver's functions this file calls, resolved through the runtime (the
 * framework does not link libcuda): field, symbol, parameters. */
#define DRIVER_FUNCS(X)                                         \
  X(get_current, "cuCtxGetCurrent", (CUcontext *))             \
  X(get_device, "cuCtxGetDevice", (CUdevice *))                \
  X(synchronize, "cuCtxSynchronize", (void))                   \
  X(error_name, "cuGetErrorName", (CUresult, const char **))   \
  X(error_string, "cuGetErrorString", (CUresult, const char **))

static struct {
  int ready;
#define X(field, sym, args) CUresult (*field) args;
  DRIVER_FUNCS(X)
#undef X
} drv;

/* The parts of cuptiProfilerDeviceSupported's answer, one row each: the
 * field and what it is about. */
#define SUPPORT_PARTS(X)                                                    \
  X(architecture, "architecture (compute capability 7.0 or later needed)") \
  X(sli, "SLI")                                                             \
  X(vGpu, "vGPU")                                                           \
  X(confidentialCompute, "confidential compute")                            \
  X(cmp, "crypto-mining processor (CMP)")                                   \
  X(wsl, "WSL")

/* CUPTI results that say more than their message, one row each: the code a
 * count returns for them and what a reader should know. */
static const struct {
  CUptiResult result;
  int err;
  const char *hint;
} known_results[] = {
    {CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, PERF__EIO,
     "the GPU's performance counters are kept to admin users on this machine (the nvidia "
     "module's NVreg_RestrictProfilingToAdminUsers=1): run as root, or load the module with "
     "NVreg_RestrictProfilingToAdminUsers=0"},
    {CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES, PERF__EIO,
     "the vGPU's host has not enabled profiling for it"},
    {CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, PERF__EIO,
     "another tool, such as a profiler, holds CUPTI"},
    {CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED, PERF__ENODEV, "a vGPU cannot be profiled"},
    {CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED, PERF__ENODEV,
     "not with confidential compute on"},
    {CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED, PERF__ENODEV, "a CMP device cannot be profiled"},
    {CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, PERF__ENODEV, "a MIG instance cannot be profiled"},
    {CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED, PERF__ENODEV, "not with SLI on"},
    {CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED, PERF__ENODEV, "not under WSL"},
};

/* One count's state: what was set up (torn down in reverse) and the first
 * error, whose words are in why. */
typedef struct session {
  CUcontext ctx;
  CUdevice dev;
  int inited; /* cuptiProfilerInitialize succeeded */
  CUpti_Profiler_Host_Object *host;
  CUpti_RangeProfiler_Object *obj;
  uint8_t *avail, *config, *data; /* counter availability, config and counter data images */
  size_t config_size, data_size;
  int err;
  char *why;
  size_t len;
} session;

/* A CUPTI parameter struct of type T, zeroed, with its size set. */
#define PARAMS(T, var) T var = {.structSize = T##_STRUCT_SIZE}

/* Records err with its message unless an earlier error was recorded.
 * Returns the first error recorded. */
static int fail(session *s, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(session *s, int err, const char *fmt, ...)
{
  if (s->err) return s->err;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->why, s->len, fmt, ap);
  va_end(ap);
  s->err = err;
  return err;
}

/* Checks CUPTI's result r of call: 0 for success, else records "call:
 * result: message" (and a hint for a result known_results lists) and
 * returns the first error recorded: PERF__EIO, or PERF__ENODEV for a
 * result that says the device cannot be profiled. */
static int check(session *s, CUptiResult r, const char *call)
{
  if (r == CUPTI_SUCCESS) return 0;
  const char *name = NULL, *msg = NULL, *hint = NULL;
  int err = PERF__EIO;
  if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || !name) name = "unknown CUPTI result";
  if (cuptiGetErrorMessage(r, &msg) != CUPTI_SUCCESS || !msg) msg = "";
  for (size_t i = 0; i < sizeof known_results / sizeof known_results[0]; i++)
    if (known_results[i].result == r) {
      err = known_results[i].err;
      hint = known_results[i].hint;
    }
  return fail(s, err, "%s: %s (%d)%s%s%s%s", call, name, (int)r, *msg ? ": " : "", msg,
              hint ? "; " : "", hint ? hint : "");
}

/* Resolves one driver function into *slot. Returns 0, or PERF__ENODEV /
 * PERF__ECUDA with why (no usable driver; a driver without the function). */
static int resolve_one(const char *sym, void **slot, char *why, size_t len)
{
  enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  void *fn = NULL;
  cudaError_t e = cudaGetDriverEntryPointByVersion(sym, &fn, 12000, cudaEnableDefault, &q);
  perf__gpu_tolerate(e);
  if (e != cudaSuccess) return perf__gpu_explain(e, "cudaGetDriverEntryPointByVersion", why, len);
  if (q != cudaDriverEntryPointSuccess || !fn) {
    snprintf(why, len, "the CUDA driver has no %s (query result %d)", sym, (int)q);
    return PERF__ECUDA;
  }
  *slot = fn;
  return 0;
}

/* Resolves the driver's functions once per process. Returns 0, or the
 * first error of resolve_one with why. */
static int resolve(char *why, size_t len)
{
  int err = 0;
  if (drv.ready) return 0;
#define X(field, sym, args) \
  if (!err) err = resolve_one(sym, (void **)&drv.field, why, len);
  DRIVER_FUNCS(X)
#undef X
  drv.ready = !err;
  return err;
}

/* Checks the driver's result r of call: 0 for success, else records
 * PERF__ECUDA with "call: message (name)" and returns the first error. */
static int check_cu(session *s, CUresult r, const char *call)
{
  if (r == CUDA_SUCCESS) return 0;
  const char *name = NULL, *msg = NULL;
  if (drv.error_name(r, &name) != CUDA_SUCCESS || !name) name = "unknown CUDA result";
  if (drv.error_string(r, &msg) != CUDA_SUCCESS || !msg) msg = "no description";
  return fail(s, PERF__ECUDA, "%s: %s (%s)", call, msg, name);
}

/* Takes the current context and its device. Returns 0, or PERF__ECUDA
 * recorded (a driver error; no context current on this thread). */
static int take_context(session *s)
{
  if (check_cu(s, drv.get_current(&s->ctx), "cuCtxGetCurrent")) return s->err;
  if (!s->ctx)
    return fail(s, PERF__ECUDA, "no CUDA context is current on this thread: the work must "
                                "have run on it before it is counted");
  return check_cu(s, drv.get_device(&s->dev), "cuCtxGetDevice");
}

/* Initializes the profiler and asks whether the device supports range
 * profiling. Returns 0, or the error recorded: PERF__ENODEV naming each
 * part CUPTI does not support; PERF__EIO for a CUPTI error. */
static int begin(session *s)
{
  PARAMS(CUpti_Profiler_Initialize_Params, init);
  if (check(s, cuptiProfilerInitialize(&init), "cuptiProfilerInitialize")) return s->err;
  s->inited = 1;
  PARAMS(CUpti_Profiler_DeviceSupported_Params, sup);
  sup.cuDevice = s->dev;
  sup.api = CUPTI_PROFILER_RANGE_PROFILING;
  if (check(s, cuptiProfilerDeviceSupported(&sup), "cuptiProfilerDeviceSupported")) return s->err;
  if (sup.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return 0;
  static const char *const level[] = {"unknown", "unsupported", "disabled", "supported"};
  char parts[400] = "";
  size_t used = 0;
#define X(field, what)                                                                    \
  if (sup.field != CUPTI_PROFILER_CONFIGURATION_SUPPORTED && used < sizeof parts)         \
    used += (size_t)snprintf(parts + used, sizeof parts - used, "%s%s: %s", used ? "; " : "", \
                             what, (unsigned)sup.field < 4 ? level[sup.field] : "?");
  SUPPORT_PARTS(X)
#undef X
  return fail(s, PERF__ENODEV, "CUPTI's range profiler does not support CUDA device %d (%s)",
              (int)s->dev, used ? parts : "no part named");
}

/* The counter availability image of the context, into s->avail. Returns 0,
 * or the error recorded (PERF__EIO; PERF__ENOMEM). */
static int availability(session *s)
{
  PARAMS(CUpti_Profiler_GetCounterAvailability_Params, ca);
  ca.ctx = s->ctx;
  if (check(s, cuptiProfilerGetCounterAvailability(&ca), "cuptiProfilerGetCounterAvailability"))
    return s->err;
  s->avail = calloc(ca.counterAvailabilityImageSize ? ca.counterAvailabilityImageSize : 1, 1);
  if (!s->avail) return fail(s, PERF__ENOMEM, "no memory for the counter availability image");
  ca.pCounterAvailabilityImage = s->avail;
  return check(s, cuptiProfilerGetCounterAvailability(&ca), "cuptiProfilerGetCounterAvailability");
}

/* Builds the config image of the metrics on the host (s->host, s->config)
 * and checks the passes it needs. Returns 0, or the error recorded
 * (PERF__EIO: a CUPTI error, more than MAX_PASSES passes; PERF__ENOMEM). */
static int configure(session *s)
{
  PARAMS(CUpti_Device_GetChipName_Params, chip);
  chip.deviceIndex = (size_t)s->dev;
  if (check(s, cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName") || availability(s))
    return s->err;
  PARAMS(CUpti_Profiler_Host_Initialize_Params, hi);
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  hi.pChipName = chip.pChipName;
  hi.pCounterAvailabilityImage = s->avail;
  if (check(s, cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize")) return s->err;
  s->host = hi.pHostObject;
  if (!s->host) return fail(s, PERF__EIO, "cuptiProfilerHostInitialize: no host object");
  PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
  add.pHostObject = s->host;
  add.ppMetricNames = metric_names;
  add.numMetrics = NMETRICS;
  PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, size);
  size.pHostObject = s->host;
  if (check(s, cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics") ||
      check(s, cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize"))
    return s->err;
  s->config_size = size.configImageSize;
  s->config = calloc(s->config_size ? s->config_size : 1, 1);
  if (!s->config) return fail(s, PERF__ENOMEM, "no memory for the config image");
  PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, image);
  image.pHostObject = s->host;
  image.configImageSize = s->config_size;
  image.pConfigImage = s->config;
  PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, np);
  np.configImageSize = s->config_size;
  np.pConfigImage = s->config;
  if (check(s, cuptiProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage") ||
      check(s, cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses"))
    return s->err;
  if (np.numOfPasses > MAX_PASSES)
    return fail(s, PERF__EIO, "the metrics need %zu replay passes (at most %d)", np.numOfPasses,
                MAX_PASSES);
  return 0;
}

/* Enables the range profiler on the context (s->obj) and makes its
 * counter data image (s->data). Returns 0, or the error recorded
 * (PERF__EIO; PERF__ENOMEM). */
static int enable(session *s)
{
  PARAMS(CUpti_RangeProfiler_Enable_Params, en);
  en.ctx = s->ctx;
  if (check(s, cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable")) return s->err;
  s->obj = en.pRangeProfilerObject;
  if (!s->obj) return fail(s, PERF__EIO, "cuptiRangeProfilerEnable: no range profiler object");
  PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, size);
  size.pRangeProfilerObject = s->obj;
  size.pMetricNames = metric_names;
  size.numMetrics = NMETRICS;
  size.maxNumOfRanges = 1;
  size.maxNumRangeTreeNodes = 1;
  if (check(s, cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize"))
    return s->err;
  s->data_size = size.counterDataSize;
  s->data = calloc(s->data_size ? s->data_size : 1, 1);
  if (!s->data) return fail(s, PERF__ENOMEM, "no memory for the counter data image");
  PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, ci);
  ci.pRangeProfilerObject = s->obj;
  ci.counterDataSize = s->data_size;
  ci.pCounterData = s->data;
  PARAMS(CUpti_RangeProfiler_SetConfig_Params, sc);
  sc.pRangeProfilerObject = s->obj;
  sc.configSize = s->config_size;
  sc.pConfig = s->config;
  sc.counterDataImageSize = s->data_size;
  sc.pCounterDataImage = s->data;
  sc.range = CUPTI_UserRange;
  sc.replayMode = CUPTI_UserReplay;
  sc.maxRangesPerPass = 1;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.targetNestingLevel = 1;
  if (check(s, cuptiRangeProfilerCounterDataImageInitialize(&ci),
            "cuptiRangeProfilerCounterDataImageInitialize"))
    return s->err;
  return check(s, cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");
}

/* One pass: a range around one call of fn(arg) and the wait for its GPU
 * work; *all is set once CUPTI has every pass. A range started is always
 * popped and a pass started always stopped. Returns 0, or the first error
 * recorded (PERF__EIO; PERF__ECUDA from the wait). */
static int one_pass(session *s, perf__workcount_call *fn, void *arg, int *all)
{
  PARAMS(CUpti_RangeProfiler_Start_Params, start);
  start.pRangeProfilerObject = s->obj;
  if (check(s, cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart")) return s->err;
  PARAMS(CUpti_RangeProfiler_PushRange_Params, push);
  push.pRangeProfilerObject = s->obj;
  push.pRangeName = "perf__workcount";
  if (!check(s, cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange")) {
    fn(arg);
    check_cu(s, drv.synchronize(), "cuCtxSynchronize after the counted call");
    PARAMS(CUpti_RangeProfiler_PopRange_Params, pop);
    pop.pRangeProfilerObject = s->obj;
    check(s, cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange");
  }
  PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
  stop.pRangeProfilerObject = s->obj;
  check(s, cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
  *all = stop.isAllPassSubmitted != 0;
  return s->err;
}

/* Calls fn(arg) once per pass until CUPTI has every pass, then decodes the
 * counter data. Returns 0 with out->passes set, or the first error
 * recorded (PERF__EIO: a CUPTI error, more than MAX_PASSES passes, a
 * range dropped; PERF__ECUDA). */
static int count(session *s, perf__workcount_call *fn, void *arg, perf__workcount *out)
{
  int all = 0;
  while (!all) {
    if (out->passes >= MAX_PASSES)
      return fail(s, PERF__EIO, "CUPTI wanted more than %d replay passes", MAX_PASSES);
    if (one_pass(s, fn, arg, &all)) return s->err;
    out->passes++;
  }
  PARAMS(CUpti_RangeProfiler_DecodeData_Params, dd);
  dd.pRangeProfilerObject = s->obj;
  if (check(s, cuptiRangeProfilerDecodeData(&dd), "cuptiRangeProfilerDecodeData")) return s->err;
  if (dd.numOfRangeDropped)
    return fail(s, PERF__EIO, "cuptiRangeProfilerDecodeData dropped %zu range(s)",
                dd.numOfRangeDropped);
  return 0;
}

/* The metrics' values of the one range into out's fields. Returns 0, or
 * the error recorded (PERF__EIO: a CUPTI error; not exactly one range). */
static int evaluate(session *s, perf__workcount *out)
{
  PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
  info.pCounterDataImage = s->data;
  info.counterDataImageSize = s->data_size;
  if (check(s, cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo"))
    return s->err;
  if (info.numTotalRanges != 1)
    return fail(s, PERF__EIO, "the counter data holds %zu ranges (one expected)",
                info.numTotalRanges);
  double values[NMETRICS] = {0};
  PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
  ev.pHostObject = s->host;
  ev.pCounterDataImage = s->data;
  ev.counterDataImageSize = s->data_size;
  ev.rangeIndex = 0;
  ev.ppMetricNames = metric_names;
  ev.numMetrics = NMETRICS;
  ev.pMetricValues = values;
  if (check(s, cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues"))
    return s->err;
  for (size_t i = 0; i < NMETRICS; i++) *(double *)((char *)out + metric_fields[i]) = values[i];
  return 0;
}

/* Tears down, in reverse, what s set up, and frees its images. Every step
 * runs; the first failure is recorded unless an earlier error was.
 * Returns the first error recorded. */
static int end(session *s)
{
  if (s->obj) {
    PARAMS(CUpti_RangeProfiler_Disable_Params, dis);
    dis.pRangeProfilerObject = s->obj;
    check(s, cuptiRangeProfilerDisable(&dis), "cuptiRangeProfilerDisable");
    s->obj = NULL;
  }
  if (s->host) {
    PARAMS(CUpti_Profiler_Host_Deinitialize_Params, hd);
    hd.pHostObject = s->host;
    check(s, cuptiProfilerHostDeinitialize(&hd), "cuptiProfilerHostDeinitialize");
    s->host = NULL;
  }
  if (s->inited) {
    PARAMS(CUpti_Profiler_DeInitialize_Params, de);
    check(s, cuptiProfilerDeInitialize(&de), "cuptiProfilerDeInitialize");
    s->inited = 0;
  }
  free(s->data);
  free(s->config);
  free(s->avail);
  s->data = s->config = s->avail = NULL;
  return s->err;
}

/* The count in progress (static, not on the stack: a counted call that
 * ends the test leaves perf__workcount_run by longjmp) and whether it is. */
static session current;
static int counting;

/* See workcount.h. Never fails. */
void perf__workcount_release(void)
{
  if (!counting) return;
  current.why = NULL, current.len = 0; /* its why was on the frame the test left */
  end(&current);
  perf__cupti_detach();
  counting = 0;
}

/* See workcount.h. Refuses (PERF__EIO) while a CUPTI subscriber is
 * attached: the range profiler is not set up inside a sync check. */
int perf__workcount_run(perf__workcount_call *fn, void *arg, perf__workcount *out, char *why,
                        size_t len)
{
  memset(out, 0, sizeof *out);
  if (len) why[0] = '\0';
  if (perf__cupti_attached()) {
    snprintf(why, len, "a sync check is attached to CUPTI: the work is not counted inside one");
    return PERF__EIO;
  }
  int err = resolve(why, len);
  if (err) return err;
  double t0 = perf__clock_now();
  if (perf__cupti_hold(why, len)) return PERF__EIO; /* brings CUPTI back if a pass finalized it */
  session *s = &current;
  *s = (session){.why = why, .len = len};
  counting = 1;
  if (!take_context(s) && !begin(s) && !configure(s)) enable(s);
  double t1 = perf__clock_now();
  if (!s->err) count(s, fn, arg, out);
  double t2 = perf__clock_now();
  if (!s->err) evaluate(s, out);
  err = end(s);
  perf__cupti_detach(); /* finalized: launches cost again what they cost before */
  counting = 0;
  out->count_s = t2 - t1;
  out->setup_s = (t1 - t0) + (perf__clock_now() - t2);
  return err;
}
