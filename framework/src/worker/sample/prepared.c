/* prepared.c — a prepared workload in words: what its clock waits for, its warm-up, its trace. */
#include "worker/sample/prepared.h"

#include <stdio.h>
#include <string.h>

#include "host/clock.h"
#include "util/units.h"
#include "worker/context.h"
#include "worker/device/blocker.h"
#include "worker/streams/traceexport.h"

/* What w's clock waits for, as a phrase; "" when it times only what it
 * names (a host-only workload, or a GPU clock on its stream). */
static const char *waits_for(const perf_workload *w, int plural)
{
  const perf__wstate *st = w->perf__state;
  int host = perf__clock_host_side(st->clock);
  if (!st->route.checked)
    return host && st->route.route == PERF__ROUTE_DEVICE
               ? "waits for the device: where GPU work goes was not checked"
               : "where GPU work goes was not checked";
  if (!host) return "";
  switch (st->route.route) {
  case PERF__ROUTE_STREAM:
    return plural ? "waits for each workload's stream" : "waits for its stream";
  case PERF__ROUTE_DEVICE:
    if (w->stream)
      return plural ? "waits for the device: the workloads queue work their streams do "
                      "not wait for"
                    : "waits for the device: the workload queues work its stream does "
                      "not wait for";
    return plural ? "waits for the device: the workloads queue work on streams they did "
                    "not declare"
                  : "waits for the device: the workload queues work on streams it did "
                    "not declare";
  default:
    return "";
  }
}

/* What one workload's clock waited for, for a verdict line that names
 * each workload's own. */
static const char *own_wait(const perf_workload *w)
{
  const char *s = waits_for(w, 0);
  if (s[0]) return s;
  perf_clock c = w->perf__state->clock;
  return perf__clock_host_side(c) ? "waits for nothing" : "times its stream";
}

/* See prepared.h. */
const char *perf__prepared_clock_text(const perf_workload *a, const perf_workload *b,
                                char *buf, size_t len)
{
  const char *clock = perf__clock_name(a->perf__state->clock);
  const char *wa = waits_for(a, 0), *wb = waits_for(b, 0);
  if (a == b || !strcmp(wa, wb)) {
    const char *w = a == b ? wa : waits_for(a, 1);
    snprintf(buf, len, "%s clock, %s%s", clock, w, w[0] ? "; medians" : "medians");
  } else
    snprintf(buf, len, "%s clock; %s %s; %s %s; medians", clock, a->name, own_wait(a),
             b->name, own_wait(b));
  return buf;
}

/* Where w's GPU work went and what its clock waits for: a detail line when
 * the wall clock waits for the device because work escapes the declared
 * stream (with no .stream that is the expected case: a verbose line), a
 * verbose line always. */
static void report_route(const perf_workload *w)
{
  const perf__wstate *st = w->perf__state;
  const perf__streamcheck_routing *r = &st->route;
  const char *clock = perf__clock_name(st->clock);
  if (r->route == PERF__ROUTE_DEVICE && r->found[0])
    perf__context_line(w->stream ? PERF_LINE_DETAIL : PERF_LINE_VERBOSE, "%s: queues %s: the %s clock "
               "waits for the device", w->name, r->found, clock);
  if (!r->checked) {
    perf__context_line(PERF_LINE_VERBOSE, "%s: where its GPU work goes was not checked (%s); the %s "
               "clock %s", w->name, r->why_not, clock,
               r->route == PERF__ROUTE_DEVICE ? "waits for the device" : "trusts its stream");
    return;
  }
  static const char *const does[] = {"waits for nothing", "waits for its stream",
                                     "waits for the device", "cannot time it"};
  if (!r->summary[0]) {
    perf__context_line(PERF_LINE_VERBOSE, "%s: no GPU work (no CUDA context in the process); the %s "
               "clock waits for nothing", w->name, clock);
    return;
  }
  perf__context_line(PERF_LINE_VERBOSE, "%s: GPU work in %d calls: %s; the %s clock %s (checked "
             "in %.1f ms)", w->name, PERF__ROUTE_CALLS, r->summary, clock,
             perf__clock_host_side(st->clock)
                 ? does[r->route]
                 : "times its stream",
             r->pass_s * 1e3);
}

/* See prepared.h. */
void perf__prepared_report(const perf_workload *w, double floor_factor)
{
  const perf__wstate *st = w->perf__state;
  char cold[32], warm[32], target[32], floor[32];
  perf__units_time(cold, sizeof cold, st->cold_s);
  perf__units_time(warm, sizeof warm, st->warm_s);
  perf__units_time(target, sizeof target, st->target_s);
  perf__units_time(floor, sizeof floor, st->floor_s);
  int by_floor = st->target_s <= floor_factor * st->floor_s;
  perf__context_line(PERF_LINE_DETAIL, "%s: cold start %s (%s, first call alone); %ld %s "
                "per sample", w->name, cold,
             perf__clock_held(st->clock) ? "events, not held" : perf__clock_name(st->clock),
             st->batch, perf__units_noun(st->batch, "iteration", "iterations"));
  perf__context_line(PERF_LINE_VERBOSE, "%s: warm-up %s after %d %s at %s/iteration (%s clock); "
                "sample target %s (%s; %s floor %s)", w->name,
             st->settled ? "settled" : "did NOT settle", st->warm_samples,
             perf__units_noun(st->warm_samples, "sample", "samples"), warm,
             perf__clock_name(st->clock), target,
             by_floor ? "1000x the clock's floor" : "set by the budget: 512 rounds fill it",
             perf__clock_name(st->clock), floor);
  if (st->submit_capped) {
    char cost[32];
    perf__units_time(cost, sizeof cost, st->cost_s);
    perf__context_line(PERF_LINE_VERBOSE, "%s: a sample costs %s of wall time with the wait for "
               "the device: the batch stops growing there", w->name, cost);
  }
  if (perf__clock_flushes_l2(st->clock))
    perf__context_line(PERF_LINE_DETAIL, "%s: cold clock: each sample is one iteration after "
               "an L2 flush (memset of %.1f MiB)", w->name,
               (double)st->flush_bytes / (1 << 20));
  if (st->blocked)
    perf__context_line(PERF_LINE_DETAIL, "%s: %ld %s not queued within %.0f ms "
               "behind the blocking kernel; batch capped at %ld %s", w->name, st->blocked,
               perf__units_noun(st->blocked, "batch was", "batches were"),
               PERF__BLOCK_TIMEOUT_NS * 1e-6, st->max_batch,
               perf__units_noun(st->max_batch, "iteration", "iterations"));
  report_route(w);
}

/* See prepared.h. */
void perf__prepared_export_trace(const perf_workload *w)
{
  static int told;
  char path[600], err[600];
  const char *dir = perf__context_opt.trace_dir;
  if (!dir || !w->perf__state->trace.nevents) return;
  perf__traceexport_file to = {dir, perf__context_name(), w->name};
  if (perf__traceexport_write(&to, &w->perf__state->trace, path, sizeof path, err, sizeof err)) {
    if (!told++) perf__context_line(PERF_LINE_NOTICE, "%s", err);
    return;
  }
  if (path[0]) perf__context_line(PERF_LINE_VERBOSE, "%s: trace written to %s", w->name, path);
}

