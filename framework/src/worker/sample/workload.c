/* workload.c — measuring one workload: clock choice, cold start, batch sizing, warm-up, samples. */
#define _GNU_SOURCE
#include "worker/sample/workload.h"
#include "worker/sample/prepared.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "worker/device/blocker.h"
#include "baseline/blrule.h"
#include "host/clock.h"
#include "worker/device/cotenant.h"
#include "worker/device/neighbour.h"
#include "worker/sync/cupti.h"
#include "util/units.h"
#include "worker/device/gpu.h"
#include "worker/device/gpuwatch.h"
#include "stats/stats.h"
#include "util/status.h"
#include "worker/streams/streamcheck.h"
#include "worker/streams/traceexport.h"
#include "worker/context.h"

enum {
  SETTLE_WINDOW = 3,      /* samples compared per side */
  MAX_WARM_SAMPLES = 64,
  BLOCKED = 1 /* a device-clock batch could not be queued behind the blocker */
};
static const double SETTLE_REL = 0.05; /* medians of two windows within 5 % */
static const double FLOOR_FACTOR = 1000.0;

static perf__wstate *live; /* states of the running test */
static perf__clock_floor host_floor;
static long rest_left_ms = PERF__MAX_REST_MS; /* idle time left to this test */
static long alone_left_ms = PERF__COTENANT_MAX_WAIT_MS; /* waiting for co-tenants */
/* 1 while a workload's batch is sized and warmed up: its samples shared
 * with another process are kept, not waited out (they only size the
 * batch; beside a neighbour that comes and goes the wait was spent in
 * every test's first warm-up: 2 s of each, issue 50). */
static int warming;
static int told_shared;                                  /* this test said so */
static double idled_s;                         /* idled in this process, all tests */

/* The release hook: frees every workload state of the test that ended
 * (events, memory) and a routing pass it left open. Never fails. */
static void release_all(void)
{
  perf__workload_rest_reset();
  perf__cotenant_link_end();
  told_shared = 0;
  perf__streamcheck_release();
  while (live) {
    perf__wstate *st = live;
    live = st->next;
    if (st->ev[0]) cudaEventDestroy(st->ev[0]);
    if (st->ev[1]) cudaEventDestroy(st->ev[1]);
    perf__trace_free(&st->trace);
    free(st);
  }
}

#define CUDA_OR_EXPLAIN(call)                                                 \
  do {                                                           \
    cudaError_t e_ = (call);                                     \
    if (e_ != cudaSuccess)                                       \
      return perf__gpu_explain(e_, ctx_api(#call, w), why, len); \
  } while (0)

/* Names the failing call and the workload it was measuring. */
static const char *ctx_api(const char *call, const perf_workload *w)
{
  static char buf[256];
  snprintf(buf, sizeof buf, "%.120s (measuring workload '%.80s')", call,
           w->name);
  return buf;
}

/* The GPU side of a host-clock batch's end: wait for the workload's GPU work
 * as its routing says (streamcheck.h); a call that failed is found after
 * (failed_calls). Before the routing is known (the first call), wait for
 * every device with a context, if there is one at all. */
static int finish_gpu(perf_workload *w, char *why, size_t len)
{
  const perf__wstate *st = w->perf__state;
  if (!st->routed)
    return perf__gpu_in_use() ? perf__gpu_wait_devices(NULL, -1, why, len) : 0;
  switch (st->route.route) {
  case PERF__ROUTE_NOTHING:
    return 0;
  case PERF__ROUTE_STREAM:
    CUDA_OR_EXPLAIN(cudaStreamSynchronize(w->stream));
    return 0;
  default:
    return perf__gpu_wait_devices(st->route.devices, st->route.ndevices, why, len);
  }
}

/* Events around the batch; for the device and cold clocks the batch waits
 * behind the blocking kernel until all of it is queued (cold: after an L2
 * flush). Returns BLOCKED when the blocker gave up before the release.
 * The first call is never held: it may load its module (lazy loading),
 * which waits for the device to be idle, and so for the blocker. */
static int sample_events(perf_workload *w, long n, double *s, char *why,
                         size_t len)
{
  perf__wstate *st = w->perf__state;
  float ms = 0;
  if (perf__clock_flushes_l2(st->clock))
    CUDA_OR_EXPLAIN(perf__blocker_l2_flush(w->stream, &st->flush_bytes));
  int hold = perf__clock_held(st->clock) && !st->first_call;
  if (hold) CUDA_OR_EXPLAIN(perf__blocker_hold(w->stream));
  double q0 = perf__clock_now(), q1 = q0;
  cudaError_t e = cudaEventRecord(st->ev[0], w->stream);
  if (!e) {
    for (long i = 0; i < n; i++) w->fn(w->arg);
    e = cudaEventRecord(st->ev[1], w->stream);
    q1 = perf__clock_now();
  }
  if (hold) perf__blocker_release();
  if (e) return perf__gpu_explain(e, ctx_api("cudaEventRecord", w), why, len);
  CUDA_OR_EXPLAIN(cudaEventSynchronize(st->ev[1]));
  if (hold && perf__blocker_timed_out()) return BLOCKED;
  CUDA_OR_EXPLAIN(cudaEventElapsedTime(&ms, st->ev[0], st->ev[1]));
  *s = (double)ms * 1e-3;
  st->queue_share = perf__clock_queues_host(st->clock) && *s > 0 ? (q1 - q0) / *s : 0;
  return 0;
}

/* See workload.h. */
const char *perf__workload_launch_note(const perf_workload *w, char *buf, size_t len)
{
  const perf__wstate *st = w->perf__state;
  if (len) buf[0] = '\0';
  if (!st || !perf__clock_queues_host(st->clock) || st->queue_share < PERF__BLR_LAUNCH_BOUND)
    return buf;
  snprintf(buf, len, "; launch-bound: the host took %.0f%% of the events time to queue the work, "
           "so it times the host's pace (it differs between processes); .clock = "
           "PERF_CLOCK_DEVICE times the GPU's work alone", 100 * st->queue_share);
  return buf;
}

static int sample_host(perf_workload *w, long n, double *s, char *why,
                       size_t len)
{
  perf__wstate *st = w->perf__state;
  double t0 = perf__clock_now();
  for (long i = 0; i < n; i++) w->fn(w->arg);
  double t1 = perf__clock_now();
  int err = finish_gpu(w, why, len);
  st->cost_s = perf__clock_now() - t0;
  if (!perf__clock_drains_after(st->clock)) t1 = t0 + st->cost_s; /* the wait is in it */
  *s = t1 - t0;
  return err;
}

static const char FIX[] = "a workload whose CUDA calls fail is not timed. Fix: check "
                          "each CUDA call's result (PERF_CUDA(call) ends the test naming the "
                          "call and its line)";

/* A CUDA call that failed since the last look, by the runtime's last error
 * on this thread (after when: "its first call", "a sample"). Returns 0;
 * PERF__ENODEV, the runtime could not start (why: for "no CUDA device
 * (...)"); or PERF__ECALL, with why the ERROR's reason. */
static int failed_calls(const perf_workload *w, const char *when, char *why, size_t len)
{
  char api[200], e[400];
  snprintf(api, sizeof api, "workload '%.80s': a CUDA call failed in %s", w->name, when);
  int err = perf__gpu_take_error(api, e, sizeof e);
  if (err) snprintf(why, len, err == PERF__ECALL ? "%s; %s" : "%s", e, FIX);
  return err;
}

/* Times one batch of n iterations; *s is the whole batch, in seconds. A
 * CUDA call that failed in it is an error (failed_calls), after the clock
 * stopped. */
static int sample_batch(perf_workload *w, long n, double *s, char *why,
                        size_t len)
{
  perf__wstate *st = w->perf__state;
  int err = perf__clock_by_events(st->clock) ? sample_events(w, n, s, why, len)
                                              : sample_host(w, n, s, why, len);
  if (!err && st->link_down + st->link_up > 0) /* the co-tenant check's own bytes */
    perf__cotenant_link_own(st->link_down * (double)n, st->link_up * (double)n);
  return err ? err
             : failed_calls(w, w->perf__state->first_call ? "its first call" : "a sample",
                            why, len);
}

/* Involuntary context switches of every thread of this process so far
 * (the workload's own threads, OpenMP's say, as well as the measuring
 * one); -1 if unknown. */
static long preemptions(void)
{
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_nivcsw;
}

/* The GPU watch after a sample: records the SM clock; 1 when NVML reports
 * a throttle reason. */
static int throttled_now(perf__wstate *st)
{
  unsigned mhz = 0;
  unsigned long long r = 0;
  if (!st->watched) return 0;
  if (perf__gpuwatch_sm_clock(&mhz, NULL) == 0) st->last_mhz = mhz;
  if (perf__gpuwatch_reasons(&r)) return 0;
  r &= PERF__THROTTLE_MASK;
  st->throttle_seen |= r;
  return r != 0;
}

/* Idles the calling thread for ms milliseconds (0: not at all), through
 * interruptions; counted in idled_s. A sleep that fails otherwise ends the
 * idling early. */
static void rest(long ms)
{
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  if (ms <= 0) return;
  double t0 = perf__clock_now();
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
  idled_s += perf__clock_now() - t0;
}

/* See workload.h. */
double perf__workload_idled_s(void) { return idled_s; }

/* See workload.h. */
int perf__workload_alone_spent(void) { return alone_left_ms <= 0; }

/* See workload.h. */
void perf__workload_rest_reset(void)
{
  rest_left_ms = PERF__MAX_REST_MS;
  alone_left_ms = PERF__COTENANT_MAX_WAIT_MS;
  warming = 0; /* a test that ended inside a warm-up */
}

/* 1 when another process used the GPU during [t0, t1] as far as NVML has
 * told (read at most every PERF__COTENANT_POLL_S); 0 without the watch.
 * Never fails. */
static int shared_during(const perf__wstate *st, double t0, double t1)
{
  return st->watched && perf__cotenant_poll(0) &&
         perf__cotenant_shares(perf__cotenant_state(), t0, t1);
}

/* Idles in steps of the co-tenant check's poll (counted in idled_s and in
 * st->rt) until no other process has used the GPU for
 * PERF__COTENANT_QUIET_S, or the test's waiting time is spent. Never
 * fails. */
static void wait_alone(perf__wstate *st)
{
  const long step = (long)(PERF__COTENANT_POLL_S * 1000);
  if (!told_shared++) {
    char who[240];
    perf__neighbour_describe(perf__cotenant_state(), perf__clock_now() - 1.0, who, sizeof who);
    perf__context_line(PERF_LINE_DETAIL, "another process is using the GPU (%s): the samples it "
                       "shares are retaken after it leaves, waiting up to %.1f s in this test",
                       who, alone_left_ms * 1e-3);
  }
  while (alone_left_ms > 0) {
    long ms = step < alone_left_ms ? step : alone_left_ms;
    rest(ms);
    alone_left_ms -= ms;
    st->rt.shared_waited_ms += ms;
    perf__cotenant_poll(1);
    double now = perf__clock_now();
    if (!perf__cotenant_shares(perf__cotenant_state(), now, now)) return;
  }
}

/* What the claims' side says of a workload the device clock cannot time
 * (perf__workload_on_unqueued); NULL: nothing. */
static void (*unqueued)(const perf_workload *w, double median, unsigned mhz);

/* See workload.h. */
void perf__workload_on_unqueued(void (*fn)(const perf_workload *w, double median, unsigned mhz))
{
  unqueued = fn;
}

/* The host waits the routing pass traced in w's calls, "cudaStreamSynchronize
 * (explicit) at t.c:9 (fn)", at most three, into buf[len]; "" when it saw
 * none. Never fails (truncates). */
static const char *traced_waits(const perf__wstate *st, char *buf, size_t len)
{
  size_t u = 0, k = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < st->trace.n && k < 3 && u < len; i++) {
    const perf__trace_item *x = &st->trace.items[i];
    if (x->kind != PERF__TRACE_SYNC) continue;
    u += (size_t)snprintf(buf + u, len - u, "%s%s (%s)%s%s", k++ ? "; " : "", x->name, x->shape,
                          x->where[0] ? " at " : "", x->where);
  }
  return buf;
}

/* The blocking kernel gave up on a batch of *n: halves the batch for good.
 * Ends the test as ERROR when a single iteration could not be queued,
 * naming the host waits the routing pass traced in it and, through
 * perf__workload_on_unqueued, what changed since its baseline entry. */
static void shrink(perf_workload *w, long *n)
{
  perf__wstate *st = w->perf__state;
  char waits[700], why[900];
  st->blocked++;
  if (*n <= 1) {
    if (*traced_waits(st, waits, sizeof waits))
      snprintf(why, sizeof why, ": it makes the host wait for the GPU (traced outside the timed "
               "samples: %s); remove the wait, or use the events clock", waits);
    else
      snprintf(why, sizeof why, ", so it waits for the GPU (%s); use the events clock",
               st->trace.calls ? "no host wait was traced in its calls: a module loaded on its first launch?"
                               : "a host sync inside, or a module loaded on its first launch?");
    if (unqueued) unqueued(w, 0, 0);
    perf__context_end(PERF_OUTCOME_ERROR, 0, "workload '%s': the %s clock cannot time it: one "
                      "iteration was not queued within %.0f ms behind the blocking kernel%s",
                      w->name, perf__clock_name(st->clock), PERF__BLOCK_TIMEOUT_NS * 1e-6, why);
  }
  *n /= 2;
  st->max_batch = *n;
  if (st->batch > *n) st->batch = *n;
}

/* A batch neither the host's other load, GPU throttling nor another
 * process on the GPU disturbed: retaken while any thread of the worker was
 * preempted during it (voluntary waits, such as sleeping or a blocking
 * sync, do not count), the GPU watch saw a throttle reason or NVML showed
 * another process using the GPU, as retake.h decides; before retaking a
 * throttled one the GPU idles a while, so that a power cap left by earlier
 * load can lift, and a shared one waits for the other process to leave.
 * *n shrinks when a device-clock batch cannot be queued. */
static int clean_batch(perf_workload *w, long *n, double *s, char *why,
                       size_t len)
{
  perf__wstate *st = w->perf__state;
  for (;;) {
    double t0 = perf__clock_now();
    long before = preemptions();
    int err = sample_batch(w, *n, s, why, len);
    if (err == BLOCKED) {
      shrink(w, n);
      continue;
    }
    if (err) return err;
    /* read before the NVML poll, whose own switches are not the sample's */
    int preempted = before >= 0 && preemptions() != before;
    int shared = shared_during(st, t0, perf__clock_now());
    if (perf__retake_shared(&st->rt, shared, alone_left_ms > 0 && !warming) == PERF__RETAKE) {
      wait_alone(st);
      continue;
    }
    int throttled = throttled_now(st);
    if (perf__retake_decide(&st->rt, preempted, throttled) == PERF__KEEP) return 0;
    if (throttled) rest(perf__retake_rest_ms(&st->rt, &rest_left_ms));
  }
}

/* See workload.h. */
int perf__workload_sample(perf_workload *w, double *per_iter_s, char *why,
                    size_t len)
{
  double s = 0;
  long n = w->perf__state->batch;
  int err = clean_batch(w, &n, &s, why, len);
  *per_iter_s = s / (double)n;
  return err;
}

/* The samples of t0[k], t1[k] (k < n) that another process shared the GPU
 * with, as NVML tells now (read now); without the spans (t0 NULL: more
 * samples than SPANS) the whole [from, now] counts. 0 without the watch.
 * Never fails. */
static long shared_samples(const perf__wstate *st, const double *t0, const double *t1, int n,
                           double from)
{
  if (!st->watched || !perf__cotenant_poll(1)) return 0;
  const perf__cotenant *c = perf__cotenant_state();
  if (!t0) return n > 0 && perf__cotenant_overlaps(c, from, perf__clock_now()) ? n : 0;
  long k = 0;
  for (int i = 0; i < n; i++) k += perf__cotenant_overlaps(c, t0[i], t1[i]);
  return k;
}

/* See workload.h. */
int perf__workload_samples(perf_workload *w, perf__workload_want want, double *t,
                           double *scratch, int *n, char *why, size_t len)
{
  perf__workload_out o = {t, NULL, scratch, 0};
  int err = perf__workload_samples_mhz(w, want, &o, why, len);
  *n = o.n;
  return err;
}

/* See workload.h. */
int perf__workload_samples_mhz(perf_workload *w, perf__workload_want want, perf__workload_out *o,
                               char *why, size_t len)
{
  double *t = o->t, *scratch = o->scratch, budget_s = want.budget_s, rel = want.rel;
  unsigned *mhz = o->mhz;
  int min_n = want.min_n, max_n = want.max_n, *n = &o->n;
  *n = 0;
  if (min_n < 1 || max_n < min_n) {
    snprintf(why, len, "samples: need 1 <= min_n <= max_n (got %d, %d)", min_n, max_n);
    return PERF__EINVAL;
  }
  enum { SPANS = 128 };
  static double span[2 * SPANS]; /* each sample's start, then its end */
  perf__wstate *st = w->perf__state;
  double t0 = perf__clock_now(), idle0 = idled_s;
  int spans = max_n <= SPANS;
  int err = 0;
  st->shared_from = t0;
  st->shared_of = "sample";
  for (int k = 0; k < max_n; k++, *n = k) {
    if (k >= min_n && perf__clock_now() - t0 - (idled_s - idle0) >= budget_s) break;
    if (k >= min_n && rel > 0) {
      int within = perf__stats_median_within(t, (size_t)k, rel, scratch);
      if (within < 0) {
        snprintf(why, len, "samples: %s", perf__status_strerror(within));
        err = within;
      }
      if (within) break;
    }
    if (spans) span[k] = perf__clock_now();
    err = perf__workload_sample(w, &t[k], why, len);
    if (err) break;
    if (mhz) mhz[k] = st->last_mhz;
    if (spans) span[SPANS + k] = perf__clock_now();
  }
  st->shared_n = err ? 0 : shared_samples(st, spans ? span : NULL, span + SPANS, *n, t0);
  return err;
}

/* One clean batch of *n (which may shrink); ends the test on an error. */
static double sample_or_end(perf_workload *w, long *n)
{
  char why[600];
  double s = 0;
  int err = clean_batch(w, n, &s, why, sizeof why);
  if (err) perf__gpu_end(err, why);
  return s;
}

/* The GPU side of a workload: the device probed, the GPU watch on. Ends
 * the test when there is no usable device. */
static void watch_gpu(perf__wstate *st)
{
  const perf__gpu_info *g = perf__gpu();
  if (g->err) perf__gpu_end(g->err, g->reason);
  st->watched = g->watch;
}

/* Resolves the clock and creates events; ends the test on failure. */
static perf__wstate *new_state(perf_workload *w)
{
  perf__wstate *st = calloc(1, sizeof *st);
  if (!st) perf__context_end(PERF_OUTCOME_FAIL, 0, "out of memory");
  perf__context_on_release(release_all);
  st->next = live;
  live = st;
  w->perf__state = st;
  w->perf__gen = perf__context_generation();
  st->clock = w->clock != PERF_CLOCK_AUTO
                  ? w->clock
                  : (w->stream ? PERF_CLOCK_EVENTS : PERF_CLOCK_WALL);
  st->uses_gpu = w->stream || perf__clock_by_events(st->clock);
  st->max_batch = perf__clock_max_batch(st->clock);
  if (!host_floor.measured) perf__clock_host_floor(&host_floor);
  st->floor_s = host_floor.floor_s;
  if (st->uses_gpu) watch_gpu(st);
  if (perf__clock_by_events(st->clock)) {
    cudaError_t e = cudaEventCreate(&st->ev[0]);
    if (!e) e = cudaEventCreate(&st->ev[1]);
    if (e) perf__gpu_fail(e, "cudaEventCreate", NULL, 0);
    st->floor_s = perf__gpu()->events.floor_s;
  }
  return st;
}

/* 1 once the clock, less the time idled since idle0, is past until. */
static int past(double until, double idle0)
{
  return perf__clock_now() - (idled_s - idle0) > until;
}

/* 1 when the last submit-clock sample already cost the target in wall
 * time (its wait for the device). Never fails. */
static int submit_cost_paid(const perf__wstate *st)
{
  return perf__clock_drains_after(st->clock) && st->cost_s >= st->target_s;
}

/* 1 when a submit-clock sample of s seconds already costs the target in
 * wall time, with s still far above the clock's floor: a larger batch
 * would spend the budget on the queue draining. */
static int submit_paid(const perf__wstate *st, double s)
{
  return submit_cost_paid(st) && s >= FLOOR_FACTOR * st->floor_s;
}

/* Grows the batch until one sample lasts target_s, or costs it on the
 * submit clock (bounded by cap_s). */
static void size_batch(perf_workload *w, double until, double idle0)
{
  perf__wstate *st = w->perf__state;
  long n = 1;
  for (;;) {
    double s = sample_or_end(w, &n);
    st->submit_capped = s < st->target_s && submit_paid(st, s);
    if (s >= st->target_s || st->submit_capped || n >= st->max_batch || past(until, idle0))
      break;
    double grow = s > 0 ? 1.2 * st->target_s / s : 100;
    if (perf__clock_drains_after(st->clock) && s > 0 && st->cost_s > 0) /* toward submit_paid */
      grow = fmin(grow, fmax(1.2 * st->target_s / st->cost_s, 1.2 * FLOOR_FACTOR * st->floor_s / s));
    grow = grow < 2 ? 2 : grow > 100 ? 100 : grow;
    n = (long)fmin(ceil((double)n * grow), (double)st->max_batch);
  }
  st->batch = n;
}

/* Re-sizes the batch from the settled time per iteration: to target_s,
 * except on the submit clock once a sample already costs the target in wall
 * time with its wait for the device: there only far enough to keep the
 * sample above the clock's floor (warm iterations, faster than those the
 * batch was sized on, could leave it below; growing it to the target
 * instead made each sample wait 45 ms for a queue of 126 matmuls on the
 * H100). Never fails. */
static void resize(perf__wstate *st)
{
  double want = ceil(1.05 * st->target_s / st->warm_s), n = want;
  int paid = submit_cost_paid(st);
  if (paid) n = fmin(n, ceil(1.05 * FLOOR_FACTOR * st->floor_s / st->warm_s));
  if (n > (double)st->batch) st->batch = (long)fmin(n, (double)st->max_batch);
  st->submit_capped = paid && (double)st->batch < want;
}

/* Samples until the median of the last SETTLE_WINDOW per-iteration times is
 * within SETTLE_REL of the window before (bounded), then re-sizes the batch
 * from the settled time. */
static void warm_up(perf_workload *w, double until, double idle0)
{
  perf__wstate *st = w->perf__state;
  double t[MAX_WARM_SAMPLES], scratch[SETTLE_WINDOW];
  int k = 0;
  while (k < MAX_WARM_SAMPLES) {
    long n = st->batch;
    double s = sample_or_end(w, &n);
    t[k++] = s / (double)n;
    if (k >= 2 * SETTLE_WINDOW) {
      double now = perf__stats_median_of(t + k - SETTLE_WINDOW, SETTLE_WINDOW, scratch);
      double before =
          perf__stats_median_of(t + k - 2 * SETTLE_WINDOW, SETTLE_WINDOW, scratch);
      st->warm_s = now;
      if (fabs(now - before) <= SETTLE_REL * now) {
        st->settled = 1;
        break;
      }
    }
    if (past(until, idle0)) break;
  }
  st->warm_samples = k;
  if (k < 2 * SETTLE_WINDOW) st->warm_s = t[k - 1];
  if (st->warm_s > 0) resize(st);
}

/* Finds where w's GPU work goes (after its first call, before any sample)
 * and how its clock must wait; ends the test as ERROR when the clock cannot
 * time it, or when a CUDA call of w failed: in the first call (failed:
 * its description, or NULL) or in the pass, which names the first such call
 * and its site (an error a kernel raised ends it as FAIL). A workload
 * found to use the GPU gets the GPU watch. */
static void route(perf_workload *w, const char *failed)
{
  static int told; /* the worker says once that it cannot look */
  perf__wstate *st = w->perf__state;
  char why[600];
  int err = perf__streamcheck(w, st->clock, &st->route, why, sizeof why);
  perf__trace_free(&st->trace);
  perf__streamcheck_take_trace(&st->trace);
  perf__prepared_export_trace(w);
  st->routed = 1;
  if (st->route.failed[0])
    perf__context_end(PERF_OUTCOME_ERROR, 0, "workload '%s': %s; %s", w->name, st->route.failed, FIX);
  if (failed) perf__gpu_end(PERF__ECALL, failed);
  if (!err) err = failed_calls(w, "its calls after the first", why, sizeof why);
  if (err) perf__gpu_end(err, why);
  if (st->route.route == PERF__ROUTE_REFUSE)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s", st->route.refusal);
  if (!st->route.checked && !told++)
    perf__context_line(PERF_LINE_NOTICE, "where workloads queue their GPU work cannot be checked (%s): "
               "the events, device and cold clocks trust the declared stream, and the "
               "wall and submit clocks wait for every device", st->route.why_not);
  if (st->route.route != PERF__ROUTE_NOTHING && !st->uses_gpu) {
    st->uses_gpu = 1;
    watch_gpu(st);
  }
  if (st->watched) perf__trace_host_copy_bytes(&st->trace, &st->link_down, &st->link_up);
}

/* Reads the host link beside w's samples from now on, where w copies to
 * or from the host (cotenant.h: a neighbour that only copies), or where
 * this run records or checks baselines (its medians cross runs: see
 * perf__workload_crosses_runs); untimed: the calls it made just before
 * (the first call and the routing pass's, on first use). Never fails. */
static void watch_link(const perf__wstate *st, int untimed)
{
  double own = st->link_down + st->link_up;
  if (own > 0 || (st->watched && (perf__context_opt.update_baselines ||
                                  perf__context_opt.baseline_check_all)))
    perf__cotenant_link_watch(own * untimed);
}

/* See workload.h. */
int perf__workload_crosses_runs(const perf_workload *w)
{
  if (!w->perf__state || !w->perf__state->watched) return 0;
  int was = perf__cotenant_state()->link_on;
  perf__cotenant_link_watch(0);
  return was == 0 && perf__cotenant_state()->link_on > 0;
}

/* A CUDA call made before w is measured (in the test's body) that failed
 * with nobody taking its error: ends the test, as SKIP when the runtime
 * could not start, else as ERROR (the runtime does not say which call;
 * timing what follows an unchecked failure would measure a broken
 * state). */
static void failed_before(const perf_workload *w)
{
  char api[200], e[400];
  snprintf(api, sizeof api, "a CUDA call made before workload '%.80s' was measured", w->name);
  int err = perf__gpu_take_error(api, e, sizeof e);
  if (err == PERF__ECALL)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s failed, and its error was never taken (the "
                      "runtime's last error: perfgate does not time after an unchecked "
                      "failure). Fix: check each CUDA call's result (PERF_CUDA(call)), or "
                      "take an error you handled with cudaGetLastError()", e);
  if (err) perf__gpu_end(err, e);
}

/* See workload.h. */
void perf__workload_prepare(perf_workload *w, double min_sample_s, double cap_s)
{
  if (!w->fn)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "workload '%s' has no function (use "
                   "PERF_WORKLOAD(fn, arg))", w->name);
  if (perf__cupti_attached())
    perf__context_end(PERF_OUTCOME_ERROR, 0, "workload '%s' is measured inside a sync check "
                   "(CUPTI is attached there); move the claim out of PERF_NO_SYNC_IN",
                   w->name);
  failed_before(w);
  if (w->perf__state && w->perf__gen == perf__context_generation()) {
    watch_link(w->perf__state, 0);
    long n = w->perf__state->batch;
    warming = 1;
    sample_or_end(w, &n);
    sample_or_end(w, &n);
    warming = 0;
    return;
  }
  perf__wstate *st = new_state(w);
  st->target_s = fmax(FLOOR_FACTOR * st->floor_s, min_sample_s);
  double until = perf__clock_now() + cap_s, idle0 = idled_s;
  char why[600];
  st->first_call = 1;
  int err = sample_batch(w, 1, &st->cold_s, why, sizeof why); /* once only */
  st->first_call = 0;
  if (err && err != PERF__ECALL) perf__gpu_end(err, why);
  route(w, err ? why : NULL);
  watch_link(st, 1 + st->trace.calls);
  warming = 1;
  size_batch(w, until, idle0);
  warm_up(w, until, idle0);
  warming = 0;
  perf__prepared_report(w, FLOOR_FACTOR);
}
