/* streamcheck.c — where a workload's GPU work goes, and so how its clock must wait. */
/* An untimed pass with CUPTI callbacks feeds the stream-order model, which
 * decides the wait. */
#define _GNU_SOURCE
#include "worker/streams/streamcheck.h"

#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "worker/streams/streamops.h"
#include "worker/streams/tracesite.h"
#include "worker/sync/activity.h"
#include "worker/sync/callsite.h"
#include "host/clock.h"
#include "util/units.h"
#include "worker/sync/cupti.h"
#include "worker/device/gpu.h"
#include "worker/sync/hostmem.h"
#include "worker/sync/synctable.h"

typedef perf__streamops_op op;

/* ---- the pass -----------------------------------------------------------
 * The handler runs on whichever thread makes a CUDA call. It asks the
 * driver what it needs (stream flags and context) before taking pass.mu,
 * then, holding it, checks that the pass still watches and feeds the model.
 * The pass stops watching and takes pass.mu once before it reads the model,
 * so no call is fed after that. */

enum { MAX_SITES = 256, MAX_THREADS = 32 };

typedef CUresult (*stream_flags_fn)(CUstream, unsigned *);
typedef CUresult (*stream_ctx_fn)(CUstream, CUcontext *);
typedef CUresult (*ctx_current_fn)(CUcontext *);

static struct {
  pthread_mutex_t mu;
  atomic_int watching;  /* the workload is running: its calls are fed */
  int open;             /* a pass holds CUPTI or the model's memory */
  perf__streamorder_model o;
  struct {
    perf__callsite_site site;
    const char *api;    /* the runtime call (or driver call) that queued it */
  } sites[MAX_SITES];
  int nsites;
  const char *unfollowed; /* the first call the model could not place */
  struct {                /* per thread: the first runtime call that failed
                             since that thread last took its error */
    pthread_t thread;
    int failed;
    unsigned seq;         /* order among the threads' failures */
    cudaError_t err;
    const char *api;
    perf__callsite_site site;
  } th[MAX_THREADS];
  int nth;
  unsigned seq;
  pthread_t runner;       /* the thread that calls the workload */
  stream_flags_fn flags;
  stream_ctx_fn stream_ctx;
  ctx_current_fn current;
  perf__trace trace;      /* what the GPU did in the watched calls */
} pass = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* Resolves the driver calls the pass asks itself, once. Never fails: a
 * missing one leaves its answer unknown. */
static void resolve(void)
{
  static int done;
  void *fn;
  enum cudaDriverEntryPointQueryResult q;
  cudaError_t e;
  if (done) return;
  done = 1;
#define ENTRY(name, into)                                                             \
  e = cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q);      \
  perf__gpu_tolerate(e);                                                              \
  if (e == cudaSuccess && q == cudaDriverEntryPointSuccess) *(void **)&pass.into = fn;
  ENTRY("cuStreamGetFlags", flags);
  ENTRY("cuStreamGetCtx", stream_ctx);
  ENTRY("cuCtxGetCurrent", current);
#undef ENTRY
}

/* The device a context belongs to; -1 when CUPTI cannot say. */
static int device_of(CUcontext ctx)
{
  static _Thread_local CUcontext last;
  static _Thread_local int last_dev;
  uint32_t dev = 0;
  if (ctx && ctx == last) return last_dev;
  if (!ctx || cuptiGetDeviceId(ctx, &dev) != CUPTI_SUCCESS) return -1;
  last = ctx;
  last_dev = (int)dev;
  return (int)dev;
}

/* A stream as the model knows it. */
typedef struct stream_id {
  perf__streamorder_key key;
  perf__streamorder_stream_kind kind;
  int device;
} stream_id;

/* Who stream h is, as a call in context ctx named it (NULL: the default
 * stream, per-thread when per_thread). A real stream's flags and context
 * are asked of the driver, quietly; unknown flags read as non-blocking (no
 * implicit order), an unknown context as the caller's. */
static stream_id identify(CUstream h, int per_thread, CUcontext ctx)
{
  stream_id id = {.key = {.ctx = (uintptr_t)ctx}, .kind = PERF__STREAM_LEGACY};
  if (!h) h = per_thread ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
  if (h == CU_STREAM_PER_THREAD) {
    id.key.handle = (uintptr_t)CU_STREAM_PER_THREAD;
    id.key.thread = (uintptr_t)pthread_self();
    id.kind = PERF__STREAM_PER_THREAD;
  } else if (h != CU_STREAM_LEGACY) {
    unsigned flags = 0;
    CUcontext own = NULL;
    perf__cupti_quiet_begin();
    if (!pass.flags || pass.flags(h, &flags) != CUDA_SUCCESS) flags = CU_STREAM_NON_BLOCKING;
    if (pass.stream_ctx && pass.stream_ctx(h, &own) == CUDA_SUCCESS && own) ctx = own;
    perf__cupti_quiet_end();
    id.key = (perf__streamorder_key){.ctx = (uintptr_t)ctx, .handle = (uintptr_t)h};
    id.kind = flags & CU_STREAM_NON_BLOCKING ? PERF__STREAM_NONBLOCKING : PERF__STREAM_BLOCKING;
  }
  id.device = device_of(ctx);
  return id;
}

_Static_assert(offsetof(cuLaunchKernelEx_params, config) == 0 &&
                   offsetof(cuLaunchKernelEx_ptsz_params, config) == 0,
               "stream_param reads a launch's CUlaunchConfig pointer first");

/* The stream a listed call names. */
static CUstream stream_param(const op *r, const void *params)
{
  if (r->stream == PERF__STREAMOPS_DEFAULT_STREAM) return NULL;
  if (r->stream == PERF__STREAMOPS_LAUNCH_CONFIG) {
    const CUlaunchConfig *cfg = *(const CUlaunchConfig *const *)params;
    return cfg ? cfg->hStream : NULL;
  }
  return *(const CUstream *)((const char *)params + r->stream);
}

/* The context a host-side context sync waits for: its parameter
 * (cuCtxSynchronize_v2), else the caller's. */
static uintptr_t synced_context(CUpti_CallbackId id, const CUpti_CallbackData *cd)
{
  if (id == CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2) {
    CUcontext c = ((const cuCtxSynchronize_v2_params *)cd->functionParams)->ctx;
    if (c) return (uintptr_t)c;
  }
  return (uintptr_t)cd->context;
}

/* A site for the next work item on s, when the model keeps one (under
 * pass.mu). Never fails: -1 when none is kept. */
static int take_site(int s, const char *driver_name)
{
  if (!perf__streamorder_wants_site(&pass.o, s) || pass.nsites == MAX_SITES) return -1;
  int k = pass.nsites++;
  const char *outer = perf__cupti_runtime_call(NULL);
  perf__callsite_capture(&pass.sites[k].site);
  pass.sites[k].api = outer ? outer : driver_name;
  return k;
}

/* How a listed copy or memset makes the host wait (synctable.h). */
static perf__synctable_host_wait implicit_wait(CUpti_CallbackId id, const void *params)
{
  const perf__synctable_entry *e = perf__synctable_lookup(PERF__DOMAIN_DRIVER, id);
  perf__synctable_mem dst, src;
  if (!e || e->rule == PERF__RULE_ALWAYS) return PERF__WAIT_NONE;
  perf__hostmem_sides(e, params, &dst, &src);
  return perf__synctable_host_wait_of(e->rule, dst, src);
}

/* Feeds one listed call to the model (under pass.mu); sid is its stream. */
static void feed(const op *r, perf__synctable_host_wait hw, const CUpti_CallbackData *cd,
                 const stream_id *sid, uintptr_t ctx_synced)
{
  perf__streamorder_model *o = &pass.o;
  const void *p = cd->functionParams;
  uintptr_t ev = r->event == PERF__STREAMOPS_NO_EVENT ? 0 : *(const uintptr_t *)((const char *)p + r->event);
  if (r->kind == PERF__STREAMOPS_HOST_EVENT) {
    perf__streamorder_host_event(o, ev);
    return;
  }
  if (r->kind == PERF__STREAMOPS_HOST_CTX) {
    perf__streamorder_host_context(o, ctx_synced);
    return;
  }
  int s = perf__streamorder_find_stream(o, sid->key, sid->kind, sid->device);
  switch (r->kind) {
  case PERF__STREAMOPS_WORK:
    if (hw == PERF__WAIT_BEFORE) perf__streamorder_host_stream(o, s);
    perf__streamorder_work(o, s, r->work, take_site(s, cd->functionName));
    if (hw == PERF__WAIT_AFTER) perf__streamorder_host_stream(o, s);
    break;
  case PERF__STREAMOPS_RECORD:
    perf__streamorder_record(o, s, ev);
    break;
  case PERF__STREAMOPS_WAIT:
    perf__streamorder_wait(o, s, ev);
    break;
  default: /* PERF__STREAMOPS_HOST_STREAM */
    perf__streamorder_host_stream(o, s);
  }
}

/* A runtime call's result, at its exit: keeps the runtime's per-thread
 * last error as the runtime does (a failed call sets it, cudaGetLastError
 * takes it; cudaErrorNotReady is an answer, not an error), with the first
 * failed call's name and site, on every thread. Never fails (a thread
 * past MAX_THREADS is not followed). */
static void note_result(CUpti_CallbackId id, const CUpti_CallbackData *cd)
{
  const cudaError_t *ret = cd->functionReturnValue;
  cudaError_t r = ret ? *ret : cudaSuccess;
  int take = id == CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020;
  perf__callsite_site site = {0};
  if (!take && (r == cudaSuccess || r == cudaErrorNotReady)) return;
  if (!take) perf__callsite_capture(&site);
  pthread_t me = pthread_self();
  pthread_mutex_lock(&pass.mu);
  int k = 0;
  while (k < pass.nth && !pthread_equal(pass.th[k].thread, me)) k++;
  if (k == pass.nth && k < MAX_THREADS) pass.th[pass.nth++].thread = me;
  if (k < pass.nth && atomic_load(&pass.watching)) {
    if (take)
      pass.th[k].failed = 0;
    else if (!pass.th[k].failed) {
      pass.th[k].failed = 1;
      pass.th[k].seq = pass.seq++;
      pass.th[k].err = r;
      pass.th[k].api = cd->functionName;
      pass.th[k].site = site;
    }
  }
  pthread_mutex_unlock(&pass.mu);
}

/* For the trace: the call site of a copy or memset (by the correlation id
 * its activity record will carry), and of a call that makes the host
 * wait. Never fails (tracesite.h: past its room, calls go unnamed). */
static void note_site(const op *r, perf__synctable_host_wait hw, const CUpti_CallbackData *cd)
{
  const char *outer = perf__cupti_runtime_call(NULL), *api = outer ? outer : cd->functionName;
  int mem = r->kind == PERF__STREAMOPS_WORK && (r->work == PERF__WORK_COPY || r->work == PERF__WORK_MEMSET);
  if (mem) perf__tracesite_note(cd->correlationId, api, 0, NULL);
  if (hw != PERF__WAIT_NONE)
    perf__tracesite_note(cd->correlationId, api, 1,
                         r->work == PERF__WORK_COPY ? "synchronous copy" : "synchronous memset");
  else if (r->kind == PERF__STREAMOPS_HOST_STREAM || r->kind == PERF__STREAMOPS_HOST_EVENT || r->kind == PERF__STREAMOPS_HOST_CTX)
    perf__tracesite_note(cd->correlationId, api, 1, "explicit");
}

/* For the trace: a driver call the sync table says releases memory
 * (cudaFree, cudaFreeHost, ...: the device finishes what it has before the
 * memory goes back; not a free of NULL, as the sync check rules), a host
 * sync at its call site. Never fails (tracesite.h: past its room, calls go
 * unnamed). */
static void note_free(CUpti_CallbackId id, const CUpti_CallbackData *cd)
{
  const perf__synctable_entry *e = perf__synctable_lookup(PERF__DOMAIN_DRIVER, id);
  perf__synctable_mem dst, src;
  char why[80];
  if (!e || e->rule != PERF__RULE_FREE || !cd->functionParams) return;
  perf__hostmem_sides(e, cd->functionParams, &dst, &src);
  if (!perf__synctable_decide(e->rule, dst, src, why, sizeof why)) return;
  const char *outer = perf__cupti_runtime_call(NULL);
  perf__tracesite_note(cd->correlationId, outer ? outer : cd->functionName, 1,
                       "implicit: releasing memory");
}

/* CUPTI handler: driver calls at entry, in the order the host made them;
 * runtime calls at exit, for their results. */
static void on_call(CUpti_CallbackDomain dom, CUpti_CallbackId id,
                    const CUpti_CallbackData *cd)
{
  if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && cd->callbackSite == CUPTI_API_EXIT &&
      atomic_load(&pass.watching))
    note_result(id, cd);
  if (dom != CUPTI_CB_DOMAIN_DRIVER_API || cd->callbackSite != CUPTI_API_ENTER ||
      !atomic_load(&pass.watching))
    return;
  const op *r = perf__streamops_lookup(id);
  if (!r) note_free(id, cd);
  int lost = !r && perf__streamops_unfollowed(cd->functionName);
  if (!r && !lost) return;
  perf__synctable_host_wait hw = r ? implicit_wait(id, cd->functionParams) : PERF__WAIT_NONE;
  if (r) note_site(r, hw, cd);
  stream_id sid = {0};
  if (r && r->kind != PERF__STREAMOPS_HOST_EVENT && r->kind != PERF__STREAMOPS_HOST_CTX)
    sid = identify(stream_param(r, cd->functionParams), r->per_thread, cd->context);
  pthread_mutex_lock(&pass.mu);
  if (atomic_load(&pass.watching)) {
    if (lost && !pass.o.unfollowed) pass.unfollowed = cd->functionName;
    pass.o.unfollowed |= lost;
    if (r) feed(r, hw, cd, &sid, synced_context(id, cd));
  }
  pthread_mutex_unlock(&pass.mu);
}

/* See streamcheck.h. */
void perf__streamcheck_release(void)
{
  atomic_store(&pass.watching, 0);
  if (!pass.open) return;
  pass.open = 0;
  perf__activity_release();
  perf__cupti_detach();
  perf__streamorder_free(&pass.o);
}

/* The anchor: the stream the clock records on or waits for; the legacy
 * stream for a GPU clock with no .stream; none for wall and submit without
 * one. Never fails (an unknown current context leaves the legacy anchor in
 * no context: nothing is then implicitly ordered with it). */
static void set_anchor(const perf_workload *w, perf_clock clock)
{
  CUcontext cur = NULL;
  if (!w->stream && perf__clock_host_side(clock)) return;
  if (!pass.current || pass.current(&cur) != CUDA_SUCCESS) cur = NULL;
  stream_id a = identify(w->stream, 0, cur);
  perf__streamorder_anchor(&pass.o, perf__streamorder_find_stream(&pass.o, a.key, a.kind, a.device));
}

/* Runs the workload's calls with the handler feeding the model, then stops
 * feeding it (no handler is inside it after this returns). Never inlined:
 * a call site that lands here was lost to a tail call. */
__attribute__((noinline)) static void watch_calls(perf_workload *w)
{
  for (int i = 0; i < PERF__ROUTE_CALLS; i++) {
    atomic_store(&pass.watching, 1);
    w->fn(w->arg);
    atomic_store(&pass.watching, 0);
  }
  pthread_mutex_lock(&pass.mu);
  pthread_mutex_unlock(&pass.mu);
}

/* The devices the work went to, each once; all devices (-1) when one is
 * unknown, there are more than the list holds, or some work could not be
 * placed. */
static void devices_used(perf__streamcheck_routing *out)
{
  const perf__streamorder_model *o = &pass.o;
  out->ndevices = o->overflow || o->unfollowed ? -1 : 0;
  for (int i = 0; i < o->n && out->ndevices >= 0; i++) {
    int d = o->s[i].device, seen = 0;
    if (!o->s[i].work) continue;
    for (int k = 0; k < out->ndevices; k++) seen |= out->devices[k] == d;
    if (d < 0 || (!seen && out->ndevices == PERF__ROUTE_DEVICES))
      out->ndevices = -1;
    else if (!seen)
      out->devices[out->ndevices++] = d;
  }
}

/* "kernels on stream 0x.. (non-blocking) from cublasSgemm_v2
 * (cudaLaunchKernelExC) at t.c:41 (sgemm)": stream st and the call that
 * queued its item at site (-1: none kept). Never fails. */
static void describe(const perf_workload *w, const perf__streamorder_stream *st, int site,
                     char *buf, size_t len)
{
  char kinds[96], name[96], where[256] = "an unknown place";
  int line = 0;
  size_t used = (size_t)snprintf(buf, len, "%s on %s",
                                 perf__streamorder_kinds(st, kinds, sizeof kinds),
                                 perf__streamorder_stream_name(st, name, sizeof name));
  if (site < 0 || used >= len) return;
  const perf__callsite_site *s = &pass.sites[site].site;
  if (s->pc) perf__callsite_name(s, where, sizeof where, &line);
  perf__callsite_tail_call(where, sizeof where, "watch_calls", w->name);
  if (s->inside[0])
    snprintf(buf + used, len - used, " from %s (%s) at %s", s->inside,
             pass.sites[site].api, where);
  else
    snprintf(buf + used, len - used, " from %s at %s", pass.sites[site].api, where);
}

/* "kernels on stream 0x.. (the clock's), copies on the legacy default
 * stream": every stream that got work, without call sites. Never fails. */
static void list_streams(char *buf, size_t len)
{
  const perf__streamorder_model *o = &pass.o;
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < o->n && used < len; i++) {
    char kinds[96], name[96];
    if (!o->s[i].work) continue;
    used += (size_t)snprintf(buf + used, len - used, "%s%s on %s%s", used ? ", " : "",
                             perf__streamorder_kinds(&o->s[i], kinds, sizeof kinds),
                             perf__streamorder_stream_name(&o->s[i], name, sizeof name),
                             i == o->anchor ? " (the clock's)" : "");
  }
  if (pass.unfollowed && used < len)
    used += (size_t)snprintf(buf + used, len - used, "%swork through %s, which perfgate "
                             "cannot place on a stream", used ? ", " : "", pass.unfollowed);
  if (!used) snprintf(buf, len, "none");
}

/* ".stream = stream 0x55.. (non-blocking)", or what a clock without one
 * uses. Never fails. */
static void declared_as(const perf_workload *w, char *buf, size_t len)
{
  const perf__streamorder_model *o = &pass.o;
  char name[96];
  if (!w->stream) {
    snprintf(buf, len, "no .stream (so its clock's events go to the legacy default stream)");
    return;
  }
  snprintf(buf, len, ".stream = %s",
           o->anchor >= 0 ? perf__streamorder_stream_name(&o->s[o->anchor], name, sizeof name)
                          : "?");
}

/* Why the clock cannot time this workload, and the fix, into msg. Never
 * fails. */
static void refusal(const perf_workload *w, perf_clock clock, const perf__streamorder_verdict *v,
                    char *msg, size_t len)
{
  const char *c = perf__clock_name(clock), *n = w->name ? w->name : "?";
  char what[600], decl[160];
  if (v->blame < 0 && (pass.o.overflow || pass.o.unfollowed)) {
    if (pass.o.unfollowed)
      snprintf(what, sizeof what, "queues work through %s, which perfgate cannot place "
               "on a stream", pass.unfollowed);
    else
      snprintf(what, sizeof what, "uses more streams or events than perfgate can follow "
               "(%d streams)", PERF__ORDER_STREAMS);
    snprintf(msg, len, "workload '%s' %s: where its GPU work goes cannot be checked, so "
             "the %s clock cannot time it. Fix: use .clock = PERF_CLOCK_WALL, which then "
             "waits for every device", n, what, c);
    return;
  }
  if (v->blame < 0) {
    snprintf(msg, len, "workload '%s' queued no GPU work in %d calls: the %s clock times "
             "only GPU work (kernels, copies, memsets). Fix: use .clock = PERF_CLOCK_WALL",
             n, PERF__ROUTE_CALLS, c);
    return;
  }
  describe(w, &pass.o.s[v->blame], v->site, what, sizeof what);
  declared_as(w, decl, sizeof decl);
  if (v->early)
    snprintf(msg, len, "workload '%s' queues %s, which does not wait for the start of its "
             "declared stream (%s): the %s clock holds only work ordered after its "
             "blocking kernel there, so this would run before the clock starts. Fix: "
             "queue the work on the declared stream, or make its stream wait for the "
             "declared one first (cudaEventRecord on the declared stream, "
             "cudaStreamWaitEvent on the other) and the declared one for it at the end, "
             "or use the events clock", n, what, decl, c);
  else
    snprintf(msg, len, "workload '%s' queues %s, but declares %s, which does not wait for "
             "it: the %s clock would stop before that work ends (%u work %s in %d "
             "calls %s not waited for). Fix: queue the work on the declared stream (a "
             "cuBLAS handle: cublasSetStream), or make the declared stream wait for it "
             "(cudaEventRecord on its stream, then cudaStreamWaitEvent on the declared "
             "one), or use .clock = PERF_CLOCK_WALL, which then waits for the device",
             n, what, decl, c, v->missed, perf__units_noun(v->missed, "item", "items"),
             PERF__ROUTE_CALLS, perf__units_noun(v->missed, "is", "are"));
}

/* The first stream with work the clock's stream does not cover. */
static int first_foreign(const perf__streamorder_verdict *v)
{
  if (v->blame >= 0) return v->blame;
  for (int i = 0; i < pass.o.n; i++)
    if (pass.o.s[i].work && i != pass.o.anchor) return i;
  return -1;
}

/* DEVICE: what made the wall clock wait for the device, for a detail line.
 * Never fails. */
static void explain_device(const perf_workload *w, const perf__streamorder_verdict *v,
                           perf__streamcheck_routing *out)
{
  int b = first_foreign(v), more = 0;
  char what[600];
  if (b < 0) {
    if (pass.unfollowed)
      snprintf(out->found, sizeof out->found, "work through %s, which perfgate cannot "
               "place on a stream", pass.unfollowed);
    return;
  }
  for (int i = 0; i < pass.o.n; i++)
    more += i != b && i != pass.o.anchor && pass.o.s[i].work > 0;
  describe(w, &pass.o.s[b], v->site >= 0 ? v->site : pass.o.s[b].site[0], what,
           sizeof what);
  snprintf(out->found, sizeof out->found, "%s%s%s", what,
           more ? ", and on more streams" : "",
           w->stream ? ", which a sync of its declared stream does not wait for"
                     : ", a stream it did not declare");
}

/* CUPTI could not look: a declared stream is trusted by the GPU clocks;
 * the wall and submit clocks wait for every device. */
static void unchecked(const perf_workload *w, perf_clock clock, const char *why,
                      perf__streamcheck_routing *out)
{
  int host = perf__clock_host_side(clock);
  (void)w;
  out->checked = 0;
  out->route = host ? PERF__ROUTE_DEVICE : PERF__ROUTE_STREAM;
  out->ndevices = -1;
  snprintf(out->why_not, sizeof out->why_not, "%s", why);
}

/* The runtime call that failed first, of those whose error no thread took
 * by the pass's end, into out->failed: "cudaMemsetAsync failed at t.c:12
 * (fn): invalid argument (cudaErrorInvalidValue)"; "" when none. Never
 * fails. */
static void first_failure(const perf_workload *w, perf__streamcheck_routing *out)
{
  int f = -1, line = 0;
  char where[256] = "an unknown place", inside[120] = "";
  for (int k = 0; k < pass.nth; k++)
    if (pass.th[k].failed && (f < 0 || pass.th[k].seq < pass.th[f].seq)) f = k;
  if (f < 0) return;
  const perf__callsite_site *s = &pass.th[f].site;
  if (s->pc) perf__callsite_name(s, where, sizeof where, &line);
  perf__callsite_tail_call(where, sizeof where, "watch_calls", w->name);
  if (s->inside[0]) snprintf(inside, sizeof inside, " inside %s", s->inside);
  snprintf(out->failed, sizeof out->failed, "%s%s failed at %s%s: %s (%s)", pass.th[f].api,
           inside, where,
           pthread_equal(pass.th[f].thread, pass.runner)
               ? ""
               : ", on another thread than the one that calls the workload",
           cudaGetErrorString(pass.th[f].err), cudaGetErrorName(pass.th[f].err));
}

/* Reads the model after the watched calls: the route and what to say. */
static void conclude(const perf_workload *w, perf_clock clock, perf__streamcheck_routing *out)
{
  first_failure(w, out);
  perf__streamorder_verdict v;
  perf__streamorder_decide(&pass.o, clock, w->stream != NULL, &v);
  devices_used(out);
  out->route = v.route;
  out->undeclared = v.undeclared;
  if (v.route == PERF__ROUTE_REFUSE) refusal(w, clock, &v, out->refusal, sizeof out->refusal);
  if (v.route == PERF__ROUTE_DEVICE) explain_device(w, &v, out);
  list_streams(out->summary, sizeof out->summary);
}

/* See streamcheck.h. */
void perf__streamcheck_take_trace(perf__trace *t)
{
  *t = pass.trace;
  memset(&pass.trace, 0, sizeof pass.trace);
}

/* See streamcheck.h. */
int perf__streamcheck(perf_workload *w, perf_clock clock, perf__streamcheck_routing *out, char *why,
                      size_t len)
{
  double t0 = perf__clock_now();
  *out = (perf__streamcheck_routing){.route = PERF__ROUTE_NOTHING, .checked = 1};
  if (!w->stream && !perf__gpu_in_use()) return 0; /* summary "": not looked */
  resolve();
  perf__hostmem_init();
  perf__streamcheck_release();
  perf__streamorder_init(&pass.o);
  pass.open = 1;
  pass.nsites = 0;
  pass.unfollowed = NULL;
  pass.nth = 0;
  pass.seq = 0;
  pass.runner = pthread_self();
  set_anchor(w, clock);
  char no[300];
  perf__trace_free(&pass.trace);
  if (perf__cupti_attach(on_call, no, sizeof no)) {
    perf__streamcheck_release();
    unchecked(w, clock, no, out);
    snprintf(pass.trace.why_not, sizeof pass.trace.why_not, "%.200s", no);
    return perf__gpu_wait_devices(NULL, -1, why, len);
  }
  perf__tracesite_begin();
  int traced = !perf__activity_begin(pass.trace.why_not, sizeof pass.trace.why_not);
  watch_calls(w);
  if (traced) perf__activity_end(&pass.trace, perf__tracesite_lookup, NULL);
  if (traced && !pass.trace.why_not[0]) { /* else no trace: why_not says why */
    perf__tracesite_syncs(&pass.trace);
    perf__trace_finish(&pass.trace, PERF__ROUTE_CALLS);
  }
  perf__cupti_detach();
  conclude(w, clock, out);
  perf__streamcheck_release();
  out->pass_s = perf__clock_now() - t0;
  return perf__gpu_wait_devices(out->devices, out->ndevices, why, len);
}
