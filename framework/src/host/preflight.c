/* preflight.c — the runner before a run: its readings, and the thresholds that make it unfit. */
/* Each GPU's and the host's readings (one field table for the pipe, JSON and
 * the history), and the preflight line. */
#define _GNU_SOURCE
#include "host/preflight.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/clock.h"
#include "host/hostcause.h"
#include "host/hostload.h"
#include "host/hostshare.h"
#include "util/units.h"

/* ---- the one field table ------------------------------------------------ */

/* How a field is kept: a double (NAN unknown), a tri-state int
 * (PERF__PREFLIGHT_UNKNOWN), a char array ("" unknown). */
typedef enum kind { NUM, FLAG, TEXT } kind;

/* A reading: its name on the probe's pipe, in the JSON and so in the
 * history's preflight column; where it lives in its struct. */
typedef struct field {
  const char *key;
  kind kind;
  size_t off, size;
} field;

#define GPU(m, k, key) {key, k, offsetof(perf__preflight_gpu, m), sizeof(((perf__preflight_gpu *)0)->m)}
#define HOST(m, k, key) {key, k, offsetof(perf__preflight_host, m), sizeof(((perf__preflight_host *)0)->m)}

static const field gpu_fields[] = {
    GPU(none, TEXT, "no_device"),          /* why there is no CUDA device */
    GPU(name, TEXT, "name"),
    GPU(bus_id, TEXT, "bus_id"),
    GPU(sm_mhz, NUM, "sm_clock_mhz"),      /* now */
    GPU(app_mhz, NUM, "application_clock_mhz"),
    GPU(default_app_mhz, NUM, "default_application_clock_mhz"),
    GPU(max_mhz, NUM, "max_clock_mhz"),
    GPU(locked, FLAG, "clock_locked"),
    GPU(persistence, FLAG, "persistence"),
    GPU(ecc, TEXT, "ecc"),
    GPU(mig, TEXT, "mig"),
    GPU(others, NUM, "other_processes"),
    GPU(idle, NUM, "idle_processes"),
    GPU(who, TEXT, "other_processes_named"),
    GPU(nvml_off, TEXT, "nvml_unavailable"),
};

static const field host_fields[] = {
    HOST(cpus, NUM, "cpus"),               /* online */
    HOST(usable, NUM, "usable_cpus"),      /* affinity and cpu.max */
    HOST(threads, NUM, "host_threads"),    /* perf_host_threads() */
    HOST(runs, NUM, "perfgate_runs"),      /* the lock directory's live runs */
    HOST(load1, NUM, "load1"),
    HOST(others_cpus, NUM, "other_cpu_use"),
    HOST(steal_pct, NUM, "steal_pct"),
    HOST(quota_cpus, NUM, "quota_cpus"),
    HOST(throttled_ms, NUM, "throttled_ms"),
    HOST(window_s, NUM, "window_s"),
    HOST(governor, TEXT, "governor"),
};

#define NFIELDS(t) (sizeof t / sizeof t[0])

/* Sets every field of the table t[n] of the struct at base to unknown. */
static void unknown(void *base, const field *t, size_t n)
{
  for (size_t k = 0; k < n; k++) {
    char *at = (char *)base + t[k].off;
    if (t[k].kind == NUM) *(double *)at = NAN;
    else if (t[k].kind == FLAG) *(int *)at = PERF__PREFLIGHT_UNKNOWN;
    else at[0] = '\0';
  }
}

/* See preflight.h. */
void perf__preflight_gpu_init(perf__preflight_gpu *g)
{
  unknown(g, gpu_fields, NFIELDS(gpu_fields));
}

/* The struct at base as a JSON object of the table t[n]. Never fails
 * (j->oom). */
static void object(perf__json *j, const void *base, const field *t, size_t n)
{
  perf__json_raw(j, "{");
  for (size_t k = 0; k < n; k++) {
    const char *at = (const char *)base + t[k].off;
    perf__json_raw(j, k ? ", \"%s\": " : "\"%s\": ", t[k].key);
    if (t[k].kind == NUM) perf__json_num(j, *(const double *)at);
    else if (t[k].kind == FLAG)
      perf__json_raw(j, "%s", *(const int *)at < 0 ? "null" : *(const int *)at ? "true" : "false");
    else if (*at) perf__json_str(j, at);
    else perf__json_raw(j, "null");
  }
  perf__json_raw(j, "}");
}

/* See preflight.h. Tabs and newlines of a text become spaces. */
void perf__preflight_gpu_text(perf__json *j, const perf__preflight_gpu *g)
{
  for (size_t k = 0; k < NFIELDS(gpu_fields); k++) {
    const char *at = (const char *)g + gpu_fields[k].off;
    perf__json_raw(j, "%s\t", gpu_fields[k].key);
    if (gpu_fields[k].kind == NUM) perf__json_raw(j, "%.17g\n", *(const double *)at);
    else if (gpu_fields[k].kind == FLAG) perf__json_raw(j, "%d\n", *(const int *)at);
    else {
      for (const char *c = at; *c; c++) perf__json_raw(j, "%c", *c == '\t' || *c == '\n' ? ' ' : *c);
      perf__json_raw(j, "\n");
    }
  }
}

/* Sets the field of t[n] named key in the struct at base from v. */
static void set_field(void *base, const field *t, size_t n, const char *key, const char *v)
{
  for (size_t k = 0; k < n; k++) {
    if (strcmp(t[k].key, key)) continue;
    char *at = (char *)base + t[k].off, *end;
    if (t[k].kind == NUM) {
      double d = strtod(v, &end);
      *(double *)at = end != v && !*end ? d : NAN;
    } else if (t[k].kind == FLAG) {
      long f = strtol(v, &end, 10);
      *(int *)at = end != v && !*end && f >= 0 && f <= 1 ? (int)f : PERF__PREFLIGHT_UNKNOWN;
    } else
      snprintf(at, t[k].size, "%s", v);
    return;
  }
}

/* See preflight.h. */
void perf__preflight_gpu_parse(char *text, perf__preflight_gpu *g)
{
  perf__preflight_gpu_init(g);
  for (char *line = text, *nl; line && *line; line = nl) {
    nl = strchr(line, '\n');
    if (nl) *nl++ = '\0';
    char *tab = strchr(line, '\t');
    if (!tab) continue;
    *tab = '\0';
    set_field(g, gpu_fields, NFIELDS(gpu_fields), line, tab + 1);
  }
}

/* ---- the host window ---------------------------------------------------- */

/* Sleeps s seconds of the host's monotonic clock (through signals). */
static void pause_for(double s)
{
  struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&t, &t) && errno == EINTR) {
  }
}

/* The CPU use and steal between snapshots a and b into h. */
static void window(perf__preflight_host *h, const perf__hostload *a, const perf__hostload *b)
{
  h->window_s = b->t - a->t;
  if (a->stat_ok && b->stat_ok && b->total > a->total) {
    double ticks = (double)(b->total - a->total);
    h->steal_pct = 100 * (double)(b->steal - a->steal) / ticks;
    h->others_cpus = perf__hostcause_others(a, b);
  }
  if (a->cg_ok && b->cg_ok) h->throttled_ms = (double)(b->throttled_usec - a->throttled_usec) / 1000;
}

/* See preflight.h. */
void perf__preflight_host_read(perf__preflight_host *h, void (*during)(void *ctx), void *ctx)
{
  perf__hostload a, b;
  unknown(h, host_fields, NFIELDS(host_fields));
  perf__hostload_read(&a, 0);
  if (during) during(ctx);
  double left = a.t + PERF__PREFLIGHT_WINDOW_S - perf__clock_now();
  if (left > 0) pause_for(left);
  perf__hostload_read(&b, 0);
  window(h, &a, &b);
  if (b.stat_ok) h->cpus = b.online;
  h->usable = perf__hostshare_cpus();
  h->threads = perf__hostshare_threads();
  int same_cgroup;
  h->runs = perf__hostshare_runs(&same_cgroup);
  if (b.load_ok) h->load1 = b.load1;
  if (b.quota_cpus > 0) h->quota_cpus = b.quota_cpus;
  perf__hostload_governor(h->governor, sizeof h->governor);
}

/* ---- unfit: the thresholds table ---------------------------------------- */

static double gpu_others(const perf__preflight *p) { return p->gpu.others; }
static double cpu_others(const perf__preflight *p) { return p->host.others_cpus; }
static double steal(const perf__preflight *p) { return p->host.steal_pct; }
static double throttled(const perf__preflight *p)
{
  return p->host.throttled_ms / 10 / p->host.window_s; /* % of the window */
}

/* One CPU's worth, or a quarter of the CPUs when more (hostcause.h). */
static double cpu_limit(const perf__preflight *p)
{
  return fmax(1, PERF__HOSTCAUSE_OTHERS * (isnan(p->host.cpus) ? 1 : p->host.cpus));
}

static void say_gpu(const perf__preflight *p, double v, double lim, char *buf, size_t len)
{
  snprintf(buf, len, "%.0f other %s using GPU %d: %s (unfit at %.0f or more)", v,
           v == 1 ? "process is" : "processes are", p->device, p->gpu.who[0] ? p->gpu.who : "not named",
           lim);
}

static void say_cpu(const perf__preflight *p, double v, double lim, char *buf, size_t len)
{
  int n = snprintf(buf, len, "other processes kept %.1f of %.0f CPUs busy over %.2f s (unfit at "
                   "%.1f or more: a quarter of the CPUs, at least one)", v, p->host.cpus,
                   p->host.window_s, lim);
  if (p->host.runs > 1 && n > 0 && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n, "; %.0f other perfgate %s sharing these CPUs (the lock "
             "directory): their work counts here too", p->host.runs - 1,
             p->host.runs > 2 ? "runs" : "run");
}

static void say_steal(const perf__preflight *p, double v, double lim, char *buf, size_t len)
{
  snprintf(buf, len, "the hypervisor stole %.1f %% of the CPUs' time over %.2f s (/proc/stat; "
           "unfit at %.0f %% or more)", v, p->host.window_s, lim);
}

static void say_throttled(const perf__preflight *p, double v, double lim, char *buf, size_t len)
{
  snprintf(buf, len, "the cgroup's CPU quota (cpu.max %.1f CPUs) throttled it %.0f ms of %.2f s, "
           "%.0f %% (cpu.stat; unfit at %.0f %% or more)", p->host.quota_cpus, p->host.throttled_ms,
           p->host.window_s, v, lim);
}

/* What makes a runner unfit for timing, each row a check: unfit when its
 * value (NAN: unknown, not judged) is at or above its limit. Why these:
 *  - gpu_processes, 1: another process's kernels time-slice with the
 *    tests' and enter events-clock samples (a confident wrong SIMILAR at
 *    0.496x, issue 31); the co-tenant check drops shared rounds, but a
 *    claim may then end INCONCLUSIVE. An idle process that merely holds a
 *    context is named, not counted, where NVML gives per-process use.
 *  - cpu_others, a quarter of the CPUs and at least one: the rule of a
 *    claim's host cause (hostcause.h), so that a runner called fit is not
 *    one whose load the claims would blame. Measured over the window, not
 *    from the load average: a build that just ended keeps the 1-minute
 *    load high on an idle host.
 *  - cpu_steal, 5 %: the hostcause rule; a VM's vCPUs taken away at random
 *    stretch host-timed samples and the runner's own threads.
 *  - cfs_throttled, 2 % of the window: a throttled period stalls the
 *    cgroup until the period ends (100 ms by default), so a real throttle
 *    shows far above 2 %; below it is rounding.
 * Not unfit, only reported: clocks not locked (the claims compare
 * workloads within one process and the GPU watch retakes throttled
 * samples), persistence off (it slows a worker's first CUDA call, which
 * is never timed), any governor (intel_pstate's "powersave" still
 * boosts), ECC and MIG (they change what a GPU is, not how noisy). */
static const struct threshold {
  const char *check;
  double limit;                                /* used when limit_of is NULL */
  double (*limit_of)(const perf__preflight *p);
  double (*value)(const perf__preflight *p);
  void (*say)(const perf__preflight *p, double v, double lim, char *buf, size_t len);
} thresholds[PERF__PREFLIGHT_CAUSES] = {
    {"gpu_processes", 1, NULL, gpu_others, say_gpu},
    {"cpu_others", 0, cpu_limit, cpu_others, say_cpu},
    {"cpu_steal", 100 * PERF__HOSTCAUSE_STEAL, NULL, steal, say_steal},
    {"cfs_throttled", 100 * PERF__HOSTCAUSE_THROTTLED, NULL, throttled, say_throttled},
};

/* See preflight.h. */
int perf__preflight_judge(perf__preflight *p)
{
  p->ncauses = 0;
  for (int k = 0; k < PERF__PREFLIGHT_CAUSES; k++) {
    const struct threshold *t = &thresholds[k];
    double v = t->value(p), lim = t->limit_of ? t->limit_of(p) : t->limit;
    if (!isfinite(v) || v < lim) continue;
    perf__preflight_cause *c = &p->cause[p->ncauses++];
    *c = (perf__preflight_cause){.check = t->check, .value = v, .limit = lim};
    t->say(p, v, lim, c->text, sizeof c->text);
  }
  return p->ncauses;
}

/* See preflight.h. */
const char *perf__preflight_check(int k)
{
  return k >= 0 && k < PERF__PREFLIGHT_CAUSES ? thresholds[k].check : NULL;
}

/* See preflight.h. */
const char *perf__preflight_causes(const perf__preflight *p, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < p->ncauses; k++) perf__units_append(buf, len, &used, "%s%s", k ? "; " : "", p->cause[k].text);
  return buf;
}

/* ---- the line ----------------------------------------------------------- */

/* v as "%.*f", or "unknown". */
static const char *num(double v, int digits, char *buf, size_t len)
{
  if (isnan(v)) snprintf(buf, len, "unknown");
  else snprintf(buf, len, "%.*f", digits, v);
  return buf;
}

static const char *flag(int f, const char *on, const char *off)
{
  return f < 0 ? "unknown" : f ? on : off;
}

static const char *text(const char *t) { return t[0] ? t : "unknown"; }

/* The other processes: none, who, or unknown. */
static void others(const perf__preflight_gpu *g, char *buf, size_t len, size_t *used)
{
  if (isnan(g->others)) perf__units_append(buf, len, used, "unknown");
  else if (g->others > 0) perf__units_append(buf, len, used, "%s", g->who[0] ? g->who : "not named");
  else perf__units_append(buf, len, used, "none");
  if (g->idle > 0)
    perf__units_append(buf, len, used, "%s%.0f idle with a context", g->others > 0 ? "; and " : " busy, ", g->idle);
}

/* The GPU part of the line. */
static void gpu_part(const perf__preflight *p, char *buf, size_t len, size_t *used)
{
  const perf__preflight_gpu *g = &p->gpu;
  char a[32], b[32], c[32];
  perf__units_append(buf, len, used, "preflight GPU %d", p->device);
  if (g->none[0]) {
    perf__units_append(buf, len, used, ": no CUDA device (%s)", g->none);
    return;
  }
  perf__units_append(buf, len, used, " (%s)", text(g->name));
  if (g->nvml_off[0]) {
    perf__units_append(buf, len, used, ": NVML unavailable (%s): clocks, persistence, ECC, MIG and other "
        "processes unknown", g->nvml_off);
    return;
  }
  perf__units_append(buf, len, used, ": SM clock %s MHz (application %s, max %s; %s), persistence %s, ECC %s, "
      "MIG %s, other processes: ", num(g->sm_mhz, 0, a, sizeof a), num(g->app_mhz, 0, b, sizeof b),
      num(g->max_mhz, 0, c, sizeof c), flag(g->locked, "locked", "not locked"),
      flag(g->persistence, "on", "off"), text(g->ecc), text(g->mig));
  others(g, buf, len, used);
}

/* The host part of the line. */
static void host_part(const perf__preflight_host *h, char *buf, size_t len, size_t *used)
{
  char a[32], b[32], c[32], d[32];
  perf__units_append(buf, len, used, "; host: %s CPUs", num(h->cpus, 0, a, sizeof a));
  if (!isnan(h->usable) && h->usable != h->cpus) perf__units_append(buf, len, used, ", %.0f usable", h->usable);
  perf__units_append(buf, len, used, " (%s for tests), load %s, other CPU use %s, steal %s %%",
      num(h->threads, 0, a, sizeof a), num(h->load1, 1, b, sizeof b),
      num(h->others_cpus, 1, c, sizeof c), num(h->steal_pct, 1, d, sizeof d));
  if (!isnan(h->quota_cpus))
    perf__units_append(buf, len, used, ", cpu.max %.1f CPUs (throttled %s ms)", h->quota_cpus,
        num(h->throttled_ms, 0, a, sizeof a));
  perf__units_append(buf, len, used, ", governor %s", text(h->governor));
}

/* See preflight.h. */
const char *perf__preflight_line(const perf__preflight *p, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  gpu_part(p, buf, len, &used);
  host_part(&p->host, buf, len, &used);
  return buf;
}

/* ---- JSON --------------------------------------------------------------- */

/* See preflight.h. */
void perf__preflight_json(perf__json *j, const perf__preflight *p)
{
  perf__json_raw(j, "{\"device\": %d, \"gpu\": ", p->device);
  object(j, &p->gpu, gpu_fields, NFIELDS(gpu_fields));
  perf__json_raw(j, ", \"host\": ");
  object(j, &p->host, host_fields, NFIELDS(host_fields));
  perf__json_raw(j, ", \"unfit\": [");
  for (int k = 0; k < p->ncauses; k++) {
    perf__json_raw(j, "%s{\"check\": \"%s\", \"value\": ", k ? ", " : "", p->cause[k].check);
    perf__json_num(j, p->cause[k].value);
    perf__json_raw(j, ", \"limit\": ");
    perf__json_num(j, p->cause[k].limit);
    perf__json_raw(j, ", \"text\": ");
    perf__json_str(j, p->cause[k].text);
    perf__json_raw(j, "}");
  }
  perf__json_raw(j, "], \"seconds\": ");
  perf__json_num(j, p->seconds);
  perf__json_raw(j, "}");
}
