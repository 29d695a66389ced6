/* cupti.c — the process's one CUPTI subscriber, attached only for an untimed pass. */
/* A handler on the runtime and driver APIs, detached after the pass. */
#include "worker/sync/cupti.h"

#include <stdatomic.h>
#include <stdio.h>

#include "util/status.h"

enum { MAX_DEPTH = 16 };

static CUpti_SubscriberHandle sub;
static perf__cupti_fn *_Atomic handler; /* read by every CUDA thread */
static atomic_int gen; /* attach count: a thread's stack from an earlier
                          attachment is stale (those calls never exit) */

/* Per thread: the runtime calls in progress, and the quiet depth. */
static _Thread_local struct {
  int quiet, gen, depth;
  CUpti_CallbackId id[MAX_DEPTH];
  const char *name[MAX_DEPTH];
} tls;

/* Keeps the thread's stack of runtime calls: pushed before the handler sees
 * a call's entry, popped after it sees its exit. */
static void track(const CUpti_CallbackData *cd, CUpti_CallbackId id, int enter)
{
  int g = atomic_load(&gen);
  if (tls.gen != g) {
    tls.gen = g;
    tls.depth = 0;
  }
  if (!enter) {
    if (tls.depth > 0) tls.depth--;
    return;
  }
  if (tls.depth < MAX_DEPTH) {
    tls.id[tls.depth] = id;
    tls.name[tls.depth] = cd->functionName;
  }
  tls.depth++;
}

/* CUPTI's callback: forwards every call but the framework's own. */
static void CUPTIAPI dispatch(void *user, CUpti_CallbackDomain dom,
                              CUpti_CallbackId id, const void *data)
{
  const CUpti_CallbackData *cd = data;
  perf__cupti_fn *fn = atomic_load(&handler);
  (void)user;
  if (tls.quiet || !fn) return;
  int runtime = dom == CUPTI_CB_DOMAIN_RUNTIME_API;
  int enter = cd->callbackSite == CUPTI_API_ENTER;
  if (runtime && enter) track(cd, id, 1);
  fn(dom, id, cd);
  if (runtime && !enter) track(cd, id, 0);
}

/* Never fails. */
const char *perf__cupti_runtime_call(CUpti_CallbackId *cbid)
{
  if (tls.gen != atomic_load(&gen) || tls.depth == 0) return NULL;
  int top = (tls.depth < MAX_DEPTH ? tls.depth : MAX_DEPTH) - 1;
  if (cbid) *cbid = tls.id[top];
  return tls.name[top];
}

/* Subscribes fn, on the runtime and driver APIs when apis. Returns 0, or
 * PERF__EIO with why (nothing stays attached then). */
static int subscribe(perf__cupti_fn *fn, int apis, char *why, size_t len)
{
  if (atomic_load(&handler)) {
    snprintf(why, len, "CUPTI is already attached by another pass");
    return PERF__EIO;
  }
  const char *what = "cuptiSubscribe";
  atomic_fetch_add(&gen, 1);
  CUptiResult r = cuptiSubscribe(&sub, dispatch, NULL);
  if (r == CUPTI_SUCCESS) {
    atomic_store(&handler, fn);
    what = "cuptiEnableDomain";
    if (apis) r = cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
    if (apis && r == CUPTI_SUCCESS) r = cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
  }
  if (r == CUPTI_SUCCESS) return 0;
  const char *msg = "unknown error";
  cuptiGetResultString(r, &msg);
  snprintf(why, len, "%s: %s%s", what, msg,
           r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
               ? " (another tool, such as a profiler, holds CUPTI)"
               : "");
  perf__cupti_detach();
  return PERF__EIO;
}

/* See cupti.h. */
int perf__cupti_attach(perf__cupti_fn *fn, char *why, size_t len)
{
  return subscribe(fn, 1, why, len);
}

/* The handler of a hold: it is never called (no domain is enabled). */
static void held(CUpti_CallbackDomain dom, CUpti_CallbackId id, const CUpti_CallbackData *cd)
{
  (void)dom, (void)id, (void)cd;
}

/* See cupti.h. */
int perf__cupti_hold(char *why, size_t len) { return subscribe(held, 0, why, len); }

/* See cupti.h. Their results are not checked: a failed unsubscribe or
 * finalize leaves nothing to undo here, and the next attach reports what
 * CUPTI then says. */
void perf__cupti_detach(void)
{
  if (!atomic_exchange(&handler, NULL)) return;
  cuptiUnsubscribe(sub);
  cuptiFinalize();
}

/* Never fails. */
int perf__cupti_attached(void) { return atomic_load(&handler) != NULL; }

/* Never fails. */
void perf__cupti_quiet_begin(void) { tls.quiet++; }

/* Never fails. */
void perf__cupti_quiet_end(void) { tls.quiet--; }
