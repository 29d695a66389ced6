/* activity.c — CUPTI's Activity API over an untimed pass: the GPU work it ran, into a trace. */
/* Each kernel, copy and memset the pass's calls ran, with its GPU
 * timestamps. */
#define _GNU_SOURCE
#include "worker/sync/activity.h"

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"
#include "worker/device/gpu.h"
#include "worker/sync/cupti.h"

enum { BUFFER = 1 << 20, MAX_RECORDS = 8192 };

/* One record as CUPTI gave it, names copied (CUPTI's storage is its own). */
typedef struct rec {
  perf__trace_kind kind;
  char name[PERF__TRACE_NAME];
  char shape[80];
  unsigned corr, stream;
  double bytes;
  unsigned long long start, end;
} rec;

static struct {
  pthread_mutex_t mu;  /* CUPTI hands buffers back on a thread of its own */
  int on;
  rec *r;
  size_t n, lost;
  char *(*demangle)(const char *, char *, size_t *, int *);
  int demangler_looked;
} act = {.mu = PTHREAD_MUTEX_INITIALIZER};

static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                          CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};
enum { NKINDS = sizeof kinds / sizeof kinds[0] };

/* CUPTI asks for a buffer: 1 MiB, 8-byte aligned (malloc's); without
 * memory, size 0 (CUPTI then drops records, and counts them). */
static void CUPTIAPI requested(uint8_t **buf, size_t *size, size_t *max_records)
{
  *buf = malloc(BUFFER);
  *size = *buf ? BUFFER : 0;
  *max_records = 0;
}

/* A kernel's name: demangled by the C++ runtime's __cxa_demangle (the
 * process's, or libstdc++.so.6 loaded for it), else as CUPTI gave it.
 * Never fails (truncates). */
static void kernel_name(const char *mangled, char *out, size_t len)
{
  char *plain = NULL;
  int status = -1;
  if (!act.demangler_looked) {
    act.demangler_looked = 1;
    *(void **)&act.demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    void *cxx = act.demangle ? NULL : dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (cxx) *(void **)&act.demangle = dlsym(cxx, "__cxa_demangle"); /* kept loaded */
  }
  if (mangled && act.demangle && mangled[0] == '_' && mangled[1] == 'Z')
    plain = act.demangle(mangled, NULL, NULL, &status);
  snprintf(out, len, "%s", status == 0 && plain ? plain : mangled ? mangled : "?");
  free(plain);
}

/* "host→device" and the like, from CUPTI's copy kind ("?" unknown). Never
 * fails. */
static const char *direction(unsigned k)
{
  static const char *const words[] = {"?",          "host→device",  "device→host",
                                      "host→array", "array→host",   "array→array",
                                      "array→device", "device→array", "device→device",
                                      "host→host",  "peer→peer"};
  return k < sizeof words / sizeof words[0] ? words[k] : "?";
}

/* The memory a host side of a copy is: "pageable", "pinned", ...
 * ("unknown"). Never fails. */
static const char *memory(unsigned k)
{
  static const char *const words[] = {"unknown", "pageable", "pinned", "device", "array",
                                      "managed", "device", "managed"};
  return k < sizeof words / sizeof words[0] ? words[k] : "unknown";
}

/* Keeps one record (the first MAX_RECORDS; the rest are counted lost).
 * Never fails. */
static void keep(const CUpti_Activity *a)
{
  if (act.n == MAX_RECORDS) {
    act.lost++;
    return;
  }
  rec *x = &act.r[act.n];
  memset(x, 0, sizeof *x);
  if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || a->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
    const CUpti_ActivityKernel10 *k = (const void *)a;
    x->kind = PERF__TRACE_KERNEL;
    kernel_name(k->name, x->name, sizeof x->name);
    snprintf(x->shape, sizeof x->shape, "grid %dx%dx%d, block %dx%dx%d", k->gridX, k->gridY,
             k->gridZ, k->blockX, k->blockY, k->blockZ);
    x->corr = k->correlationId, x->stream = k->streamId, x->start = k->start, x->end = k->end;
  } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
    const CUpti_ActivityMemcpy6 *m = (const void *)a;
    int host_src = m->srcKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE ||
                   m->srcKind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    x->kind = PERF__TRACE_COPY;
    snprintf(x->shape, sizeof x->shape, "%s, %s", direction(m->copyKind),
             memory(host_src ? m->srcKind : m->dstKind));
    x->bytes = (double)m->bytes;
    x->corr = m->correlationId, x->stream = m->streamId, x->start = m->start, x->end = m->end;
  } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
    const CUpti_ActivityMemset4 *m = (const void *)a;
    x->kind = PERF__TRACE_MEMSET;
    x->bytes = (double)m->bytes;
    x->corr = m->correlationId, x->stream = m->streamId, x->start = m->start, x->end = m->end;
  } else {
    return;
  }
  act.n++;
}

/* CUPTI hands a buffer back: its records kept, the buffer freed. Never
 * fails. */
static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
                               size_t valid)
{
  CUpti_Activity *a = NULL;
  (void)ctx, (void)stream, (void)size;
  pthread_mutex_lock(&act.mu);
  while (act.r && cuptiActivityGetNextRecord(buf, valid, &a) == CUPTI_SUCCESS) keep(a);
  pthread_mutex_unlock(&act.mu);
  free(buf);
}

/* Disables what begin enabled. Never fails. */
static void stop(void)
{
  for (int i = 0; i < NKINDS; i++) cuptiActivityDisable(kinds[i]);
  act.on = 0;
}

/* See activity.h. */
int perf__activity_begin(char *why, size_t len)
{
  const char *msg = "unknown error", *what = "cuptiActivityRegisterCallbacks";
  act.n = act.lost = 0;
  if (!act.r && !(act.r = malloc(MAX_RECORDS * sizeof *act.r))) {
    snprintf(why, len, "out of memory");
    return PERF__ENOMEM;
  }
  CUptiResult r = cuptiActivityRegisterCallbacks(requested, completed);
  for (int i = 0; r == CUPTI_SUCCESS && i < NKINDS; i++) {
    what = "cuptiActivityEnable";
    r = cuptiActivityEnable(kinds[i]);
  }
  if (r == CUPTI_SUCCESS) return act.on = 1, 0;
  stop();
  cuptiGetResultString(r, &msg);
  snprintf(why, len, "%s: %s%s", what, msg,
           r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || r == CUPTI_ERROR_NOT_INITIALIZED
               ? " (a profiler such as ncu or nsys holds CUPTI: run under `nsys profile` for a "
                 "trace)"
               : "");
  return PERF__EIO;
}

/* See activity.h. */
void perf__activity_end(perf__trace *t, perf__activity_site_fn *site, void *ctx)
{
  char why[200], api[64], where[200];
  if (!act.on) return;
  perf__cupti_quiet_begin();
  perf__gpu_wait_devices(NULL, -1, why, sizeof why); /* every record complete */
  perf__cupti_quiet_end();
  CUptiResult flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  size_t lost_by_cupti = 0;
  if (cuptiActivityGetNumDroppedRecords(NULL, 0, &lost_by_cupti) != CUPTI_SUCCESS) lost_by_cupti = 0;
  stop();
  pthread_mutex_lock(&act.mu);
  if (flushed != CUPTI_SUCCESS) { /* what came back may be short: no trace rather than a wrong one */
    const char *msg = "unknown error";
    cuptiGetResultString(flushed, &msg);
    snprintf(t->why_not, sizeof t->why_not, "cuptiActivityFlushAll: %s", msg);
    act.n = 0;
  }
  act.lost += lost_by_cupti;
  snprintf(t->names, sizeof t->names, "%s",
           act.demangle || !act.demangler_looked ? "demangled" : "mangled (no libstdc++ found)");
  for (size_t i = 0; i < act.n; i++) {
    const rec *x = &act.r[i];
    const char *name = x->name;
    where[0] = '\0';
    if (x->kind != PERF__TRACE_KERNEL) {
      snprintf(api, sizeof api, "%s", x->kind == PERF__TRACE_COPY ? "memcpy" : "memset");
      if (site) site(x->corr, api, sizeof api, where, sizeof where, ctx);
      name = api;
    }
    perf__trace_key key = {x->kind, name, x->shape, where};
    if (perf__trace_add(t, &key, x->bytes, x->stream, x->start, x->end))
      t->dropped++;
  }
  t->dropped += act.lost;
  pthread_mutex_unlock(&act.mu);
}

/* See activity.h. */
void perf__activity_release(void)
{
  if (act.on) stop();
}
