/* syncdetect.c — the untimed pass in which CUPTI counts a workload's or region's host syncs. */
#define _GNU_SOURCE
#include "worker/sync/syncdetect.h"

#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/sync/callsite.h"
#include "worker/sync/cupti.h"
#include "host/clock.h"
#include "worker/device/gpu.h"
#include "worker/sync/hostmem.h"
#include "perfgate.h"
#include "worker/sync/synctable.h"
#include "worker/context.h"

enum { MAX_FINDINGS = 64, ITERS = PERF_SYNC_ITERATIONS };

typedef struct finding {
  const perf__synctable_entry *entry;
  const char *outer; /* unlisted runtime call the driver call ran inside */
  char why[96];
  perf__callsite_site site;
  int count[ITERS];
} finding;

static struct {
  pthread_mutex_t mu;
  int ever;           /* this process has attached CUPTI for a check */
  int open;           /* a check is in progress: checks cannot nest */
  atomic_int counting; /* callbacks count only while the code under check runs */
  atomic_int iter;
  finding f[MAX_FINDINGS];
  size_t n;
  long dropped; /* findings beyond MAX_FINDINGS (still counted in totals) */
  int dropped_count[ITERS];
} det = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int same(const finding *f, const perf__synctable_entry *e, const char *outer,
                const char *why, const perf__callsite_site *s)
{
  /* A site the embedder named (a Python line) is that line, whatever the
   * native frames under it were (an interpreter's differ call to call). */
  return f->entry == e && f->outer == outer && (s->lang[0] || f->site.pc == s->pc) &&
         !strcmp(f->why, why) && !strcmp(f->site.inside, s->inside) &&
         !strcmp(f->site.lang, s->lang);
}

/* Counts one host sync in the current iteration. */
static void record(const perf__synctable_entry *e, const char *outer,
                   const char *why)
{
  perf__callsite_site s;
  perf__callsite_capture(&s);
  int it = atomic_load(&det.iter);
  pthread_mutex_lock(&det.mu);
  size_t i = 0;
  while (i < det.n && !same(&det.f[i], e, outer, why, &s)) i++;
  if (i == det.n && det.n < MAX_FINDINGS) {
    det.f[i] = (finding){.entry = e, .outer = outer, .site = s};
    snprintf(det.f[i].why, sizeof det.f[i].why, "%s", why);
    det.n++;
  }
  if (i < det.n)
    det.f[i].count[it]++;
  else {
    det.dropped++;
    det.dropped_count[it]++;
  }
  pthread_mutex_unlock(&det.mu);
}

static void consider(const perf__synctable_entry *e, const void *params,
                     const char *outer)
{
  if (!atomic_load(&det.counting)) return;
  perf__synctable_mem dst, src;
  char why[96];
  perf__hostmem_sides(e, params, &dst, &src);
  if (perf__synctable_decide(e->rule, dst, src, why, sizeof why))
    record(e, outer, why);
}

/* CUPTI handler: runtime calls are classified at entry (their pointers are
 * still valid: a free has not happened yet); a listed runtime call covers
 * the driver calls it makes; other driver calls are classified themselves
 * and attributed to the unlisted runtime call around them, if any. */
static void on_api(CUpti_CallbackDomain dom, CUpti_CallbackId id,
                   const CUpti_CallbackData *cd)
{
  if (cd->callbackSite != CUPTI_API_ENTER) return;
  if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
    const perf__synctable_entry *e = perf__synctable_lookup(PERF__DOMAIN_RUNTIME, id);
    if (e) consider(e, cd->functionParams, NULL);
    return;
  }
  if (dom != CUPTI_CB_DOMAIN_DRIVER_API) return;
  CUpti_CallbackId rt = 0;
  const char *outer = perf__cupti_runtime_call(&rt);
  if (outer && perf__synctable_lookup(PERF__DOMAIN_RUNTIME, rt)) return;
  const perf__synctable_entry *e = perf__synctable_lookup(PERF__DOMAIN_DRIVER, id);
  if (e) consider(e, cd->functionParams, outer);
}

static void clear(void)
{
  pthread_mutex_lock(&det.mu);
  det.n = 0;
  det.dropped = 0;
  memset(det.dropped_count, 0, sizeof det.dropped_count);
  pthread_mutex_unlock(&det.mu);
  atomic_store(&det.iter, 0);
}

/* Subscribes to both API domains. Returns 0, or PERF__EIO with the reason
 * (another tool holding CUPTI, say) in why. */
static int attach(char *why, size_t len)
{
  perf__hostmem_init();
  int err = perf__cupti_attach(on_api, why, len);
  if (!err) det.ever = 1;
  return err;
}

/* Never fails. */
int perf__syncdetect_used(void) { return det.ever; }

/* Never fails. */
int perf__syncdetect_in_check(void) { return det.open; }

static void reset(void);

/* The end-of-test check: a region left by return or goto was never
 * checked, and its subscription must go. Never fails. */
static void abandoned(perf__context_result *res)
{
  int was = det.open;
  det.open = 0;
  reset();
  if (was && res->outcome == PERF_OUTCOME_PASS) {
    res->outcome = PERF_OUTCOME_ERROR;
    snprintf(res->reason, sizeof res->reason,
             "a PERF_NO_SYNC_IN region was left early (return or goto): it was never checked");
  }
}

/* Starts a check; a check inside another would erase its findings and
 * detach its subscription, so it ends the test as ERROR instead. */
static void begin(const char *head)
{
  if (det.open)
    perf__context_end(PERF_OUTCOME_ERROR, 0,
                   "%s: sync checks cannot nest (this one started inside "
                   "another)", head);
  perf__context_on_check(abandoned);
  det.open = 1;
}

/* Never fails: unsubscribes and detaches CUPTI from the process, so that
 * later timing runs without it (a pass ends, or a test ended inside one). */
static void reset(void)
{
  atomic_store(&det.counting, 0);
  perf__cupti_detach();
}

/* ---- the findings: counts and call sites ------------------------------- */

static perf_sync_finding pub[MAX_FINDINGS];
static char pub_where[MAX_FINDINGS][256], pub_api[MAX_FINDINGS][160];
static size_t npub;

/* Public: the last check's findings. */
const perf_sync_finding *perf_sync_findings(size_t *n)
{
  *n = npub;
  return pub;
}

static int per_iter(const int *c, int iters)
{
  for (int i = 1; i < iters; i++)
    if (c[i] != c[0]) return -1;
  return c[0];
}

/* See syncdetect.h. */
void perf__syncdetect_count_text(char *buf, size_t len, const int *c, int iters)
{
  if (per_iter(c, iters) >= 0) {
    snprintf(buf, len, "%d", c[0]);
    return;
  }
  size_t u = (size_t)snprintf(buf, len, "[");
  for (int i = 0; i < iters && u < len; i++)
    u += (size_t)snprintf(buf + u, len - u, "%s%d", i ? ", " : "", c[i]);
  if (u < len) snprintf(buf + u, len - u, "]");
}

/* See syncdetect.h. */
const perf_sync_finding *perf__syncdetect_sites(int iters, const char *who, size_t *n)
{
  void *pcs[MAX_FINDINGS];
  int lines[MAX_FINDINGS];
  for (size_t i = 0; i < det.n; i++) pcs[i] = det.f[i].site.pc;
  perf__callsite_resolve(pcs, det.n, pub_where, lines);
  npub = det.n;
  for (size_t i = 0; i < det.n; i++) {
    const finding *f = &det.f[i];
    perf__callsite_tail_call(pub_where[i], sizeof pub_where[i], "check_workload", who);
    if (f->site.lang[0]) { /* an embedder's line (Python's) names the site */
      const char *colon = strrchr(f->site.lang, ':');
      lines[i] = colon ? atoi(colon + 1) : 0;
      snprintf(pub_where[i], sizeof pub_where[i], "%s", f->site.lang);
    }
    if (f->outer)
      snprintf(pub_api[i], sizeof pub_api[i], "%s (inside %s)", f->entry->name,
               f->outer);
    else
      snprintf(pub_api[i], sizeof pub_api[i], "%s", f->entry->name);
    pub[i] = (perf_sync_finding){.api = pub_api[i], .why = f->why,
                                 .inside = f->site.inside, .where = pub_where[i],
                                 .line = lines[i],
                                 .per_iteration = per_iter(f->count, iters)};
  }
  *n = npub;
  return pub;
}

/* See syncdetect.h. */
const int *perf__syncdetect_site_counts(size_t i) { return det.f[i].count; }

/* See syncdetect.h. */
long perf__syncdetect_dropped(void) { return det.dropped; }

/* The pass's host syncs in each iteration, every site's and the dropped
 * ones, into p->total. Never fails. */
static void totals(perf__syncdetect_pass *p)
{
  for (int i = 0; i < p->iterations; i++) {
    p->total[i] = det.dropped_count[i];
    for (size_t k = 0; k < det.n; k++) p->total[i] += det.f[k].count[i];
  }
}

/* ---- the passes --------------------------------------------------------- */

static void need_gpu(void)
{
  const perf__gpu_info *g = perf__gpu();
  if (g->err) perf__gpu_end(g->err, g->reason);
}

/* Waits for the checked code's queued work with counting off; a CUDA error
 * it caused ends the test. */
static void drain(void)
{
  cudaError_t e = cudaDeviceSynchronize();
  if (e) perf__gpu_fail(e, "cudaDeviceSynchronize (after the sync check)", NULL, 0);
}

/* Starts a pass's count: no findings yet, CUPTI attached at *t0. Returns
 * 1 when counting can start; 0 with p->cannot when CUPTI could not attach
 * (the check then over, no findings published). */
static int start(perf__syncdetect_pass *p, double *t0)
{
  clear();
  *t0 = perf__clock_now();
  if (!attach(p->cannot, sizeof p->cannot)) return 1;
  det.open = 0;
  npub = 0;
  return 0;
}

/* The counted calls of a workload's pass (this function's name is the
 * runner a tail-called workload's site lands in: perf__syncdetect_sites). */
static void check_workload(perf_workload *w)
{
  for (int i = 0; i < ITERS; i++) {
    atomic_store(&det.iter, i);
    atomic_store(&det.counting, 1);
    w->fn(w->arg);
    atomic_store(&det.counting, 0);
  }
}

/* See syncdetect.h. */
void perf__syncdetect_workload(perf_workload *w, const char *head, perf__syncdetect_pass *p)
{
  double t0;
  *p = (perf__syncdetect_pass){.iterations = ITERS};
  need_gpu();
  begin(head);
  w->fn(w->arg); /* lazy initialisation is not the steady state */
  drain();
  if (!start(p, &t0)) return;
  double t1 = perf__clock_now();
  check_workload(w);
  drain();
  double t2 = perf__clock_now();
  reset();
  det.open = 0;
  double t3 = perf__clock_now();
  p->pass_s = t3 - t0;
  p->cupti_s = (t1 - t0) + (t3 - t2);
  totals(p);
}

static double region_t0, region_attach;

/* See syncdetect.h. */
int perf__syncdetect_region_open(const char *head, perf__syncdetect_pass *p)
{
  *p = (perf__syncdetect_pass){.iterations = 1};
  need_gpu();
  begin(head);
  if (!start(p, &region_t0)) return 0;
  region_attach = perf__clock_now() - region_t0;
  atomic_store(&det.counting, 1);
  return 1;
}

/* See syncdetect.h. */
void perf__syncdetect_region_close(perf__syncdetect_pass *p)
{
  atomic_store(&det.counting, 0);
  double t = perf__clock_now();
  reset();
  det.open = 0;
  double end = perf__clock_now();
  *p = (perf__syncdetect_pass){.iterations = 1, .pass_s = end - region_t0,
                               .cupti_s = region_attach + (end - t)};
  totals(p);
}
