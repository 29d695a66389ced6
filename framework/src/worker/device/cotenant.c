/* cotenant.c — other processes on the timed GPU, and whether a sample overlapped their use. */
/* NVML's process list and its per-process and device utilisation are folded
 * into spans of foreign GPU use. */
#define _POSIX_C_SOURCE 200809L
#include "worker/device/cotenant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/clock.h"
#include "util/units.h"
#include "worker/context.h"

/* The process's name from /proc/PID/comm into name[len]; "" when it cannot
 * be read (another PID namespace, gone, hidden by hidepid). */
static void comm_of(unsigned pid, char *name, size_t len)
{
  char path[64];
  name[0] = '\0';
  snprintf(path, sizeof path, "/proc/%u/comm", pid);
  FILE *f = fopen(path, "r");
  if (!f) return;
  if (fgets(name, (int)len, f)) name[strcspn(name, "\n")] = '\0';
  fclose(f);
}

/* 1 when NVML's pids are not ours to match: we hold a context and NVML
 * does not list our pid (a container: it lists host PIDs). Never fails. */
static int pids_unmatched(const perf__cotenant *s) { return !s->self_listed && s->self_context; }

/* Notes that pid used the GPU (sm %: 0 unknown) at now, in NVML's sample
 * stamped ts (0: no sample); a new pid takes the slot of the one seen
 * longest ago when all are taken. Never fails. */
static void note_proc(perf__cotenant *s, unsigned pid, unsigned sm, unsigned long long ts,
                      double now)
{
  int i = 0, oldest = 0;
  while (i < s->nprocs && s->procs[i].pid != pid) {
    if (s->procs[i].last_busy < s->procs[oldest].last_busy) oldest = i;
    i++;
  }
  if (i == s->nprocs) {
    if (s->nprocs < PERF__COTENANT_PROCS)
      s->nprocs++;
    else
      i = oldest;
    s->procs[i] = (perf__cotenant_proc){.pid = pid};
    comm_of(pid, s->procs[i].name, sizeof s->procs[i].name);
  }
  if (sm > s->procs[i].sm) s->procs[i].sm = sm;
  if (ts > s->procs[i].busy_ts) s->procs[i].busy_ts = ts;
  s->procs[i].last_busy = now;
}

/* Appends [from, to] to spans (*n of them): joins the last span when they
 * touch, else a new one (the oldest dropped when all are taken). */
static void put_span(perf__cotenant_span *spans, int *n, double from, double to)
{
  int k = *n;
  if (k && from <= spans[k - 1].to) {
    if (to > spans[k - 1].to) spans[k - 1].to = to;
    return;
  }
  if (k == PERF__COTENANT_SPANS) {
    memmove(spans, spans + 1, (size_t)(k - 1) * sizeof spans[0]);
    k--;
  }
  spans[k] = (perf__cotenant_span){from, to};
  *n = k + 1;
}

/* Marks [from, to] as used by another process. */
static void add_span(perf__cotenant *s, double from, double to)
{
  put_span(s->spans, &s->nspans, from, to);
}

/* The traffic of rates down/up (bytes/s) over the interval ending now
 * that is not ours, or 0. GPM's samples trail the traffic (the H200: an
 * interval's bytes show partly in the next one, up to an interval's
 * worth), so one interval is not judged alone: the excess since the
 * link's base, E = device bytes - PERF__COTENANT_LINK_SLACK x our bytes -
 * PERF__COTENANT_LINK_FLOOR x seconds, falls while only we move bytes,
 * dips and recovers as the samples trail, and rises above its highest
 * (s->link_peak) only with bytes that are not ours; the highest follows E
 * down, staying at most the bytes that may still trail (our last two
 * intervals', the floor's) above it, so that a neighbour is seen within
 * an interval or a few (while we share the link with it, its bytes and
 * our trailing ones look alike) however long we copied alone; the span
 * then reaches back to where E began to rise (s->link_rise). Returns the
 * interval's device rate beyond ours (our copies' requests the other way
 * included) when E rises so; *to_host tells which way carried more. Our
 * bytes are then counted afresh. Never fails. */
static double foreign_link(perf__cotenant *s, double down, double up, double now, int *to_host)
{
  double secs = now - s->link_from;
  if (secs <= 0) return 0;
  double moved = (down + up) * secs, own = s->own_down + s->own_up;
  double d = down * secs - s->own_down, u = up * secs - s->own_up;
  double trail = own > s->link_prev_own ? own : s->link_prev_own;
  double rise = moved - own * PERF__COTENANT_LINK_SLACK - PERF__COTENANT_LINK_FLOOR * secs;
  if (rise <= 0) s->link_rise = s->link_from; /* GPM trails: a rise may hold this interval's bytes */
  s->link_excess += rise;
  s->link_prev_own = own;
  s->own_down = s->own_up = 0;
  if (s->link_excess <= s->link_peak) {
    double most = s->link_excess + trail * PERF__COTENANT_LINK_SLACK + PERF__COTENANT_LINK_FLOOR * secs;
    if (s->link_peak > most) s->link_peak = most;
    return 0;
  }
  s->link_peak = s->link_excess;
  *to_host = u > d;
  return (moved - own) / secs;
}

/* 1 when procs[nprocs] holds a context of a process other than ours (where
 * NVML's pids are not ours to match: more than one). Never fails. */
static int another_context(const perf__cotenant *s, const perf__gpuwatch_proc *procs, int nprocs)
{
  int mine = 0;
  for (int i = 0; i < nprocs; i++) mine |= procs[i].pid == s->self;
  return nprocs > (mine || s->self_context ? 1 : 0);
}

/* Notes who may have moved traffic not ours at rate (to_host: mostly to
 * the host) at now: the one other process holding a context, named with
 * it; several, as a group (which one moved it cannot be told); where
 * NVML's pids are not ours to match, the entries beyond ours, unnamed.
 * Returns how many, 0 when none (the traffic is then ours: untraced).
 * Never fails. */
static int link_holders(perf__cotenant *s, const perf__gpuwatch_proc *procs, int nprocs,
                        double rate, int to_host, double now)
{
  int others = 0, one = -1;
  if (pids_unmatched(s)) {
    others = nprocs - 1; /* one unmatched entry is ours */
    if (others > s->hidden) s->hidden = others;
    if (others > 0) s->hidden_last = now;
  } else
    for (int i = 0; i < nprocs; i++)
      if (procs[i].pid != s->self) others++, one = i;
  if (others == 1 && one >= 0) {
    note_proc(s, procs[one].pid, 0, 0, now);
    for (int k = 0; k < s->nprocs; k++)
      if (s->procs[k].pid == procs[one].pid && rate > s->procs[k].link)
        s->procs[k].link = rate, s->procs[k].link_up = to_host;
  }
  if (others > 1 && one >= 0 && others > s->link_group) s->link_group = others;
  return others > 0 ? others : 0;
}

/* See cotenant.h. */
void perf__cotenant_fold_link(perf__cotenant *s, const perf__gpuwatch_proc *procs, int nprocs,
                              double down, double up, double now)
{
  int to_host = 0;
  double from = s->link_seen > 0 && s->link_seen < s->link_from ? s->link_seen : s->link_from;
  if (s->link_rise > 0 && s->link_rise < from) from = s->link_rise;
  double secs = now - s->link_from, own_down = s->own_down, own_up = s->own_up;
  double rate = foreign_link(s, down, up, now, &to_host);
  if (getenv("PERF_DEBUG_LINK") && secs > 0) /* a developer's view of each interval judged */
    fprintf(stderr, "perfgate-link: %.3f s: device %.3f/%.3f GB/s, ours %.3f/%.3f GB/s, foreign %.3f\n",
            secs, down * 1e-9, up * 1e-9, own_down / secs * 1e-9, own_up / secs * 1e-9, rate * 1e-9);
  s->link_from = now;
  s->link_seen = 0;
  if (rate <= 0 || nprocs < 0 || !link_holders(s, procs, nprocs, rate, to_host, now)) return;
  if (rate > s->link) s->link = rate, s->link_up = to_host;
  s->link_last = now;
  add_span(s, from, now);
  put_span(s->link_spans, &s->nlink_spans, from, now);
}

/* Processes the list shows besides ours, where they can be told apart;
 * marks them busy (SM share unknown). Returns 1 when any. */
static int context_holders(perf__cotenant *s, const perf__gpuwatch_proc *procs, int nprocs,
                           double now)
{
  if (pids_unmatched(s)) {
    int others = nprocs - 1; /* one unmatched entry is ours */
    if (others > s->hidden) s->hidden = others;
    if (others > 0) s->hidden_last = now;
    return others > 0;
  }
  int any = 0;
  for (int i = 0; i < nprocs; i++)
    if (procs[i].pid != s->self) note_proc(s, procs[i].pid, 0, 0, now), any = 1;
  return any;
}

/* 1 when pid is among procs[nprocs], or there is no list (nprocs < 0). */
static int listed(unsigned pid, const perf__gpuwatch_proc *procs, int nprocs)
{
  for (int i = 0; i < nprocs; i++)
    if (procs[i].pid == pid) return 1;
  return nprocs < 0;
}

/* The busy pids among util[nutil] other than ours, each once with its
 * highest SM share and its newest stamp, into busy[] (pid, sm and ts; at
 * most PERF__COTENANT_PROCS). On the first read (nothing seen yet) NVML returns
 * the driver's whole buffer: samples more than HISTORY_US older than the
 * worker's start (born_us; without it, than the newest sample) are
 * history, and so are those of a process no longer in procs (one that
 * ended before we looked: an earlier worker of this run, say). The newest
 * sample is then ours (the workload's first calls ran before the first
 * read), and a neighbour named once just before them would be cut. Returns
 * their count; never fails. */
static int busy_pids(perf__cotenant *s, const perf__gpuwatch_util *util, int nutil,
                     const perf__gpuwatch_proc *procs, int nprocs, perf__gpuwatch_util *busy)
{
  const unsigned long long HISTORY_US = 1000000;
  unsigned long long newest = 0;
  int first = s->last_seen == 0;
  int k = 0;
  for (int i = 0; i < nutil; i++)
    if (util[i].ts > newest) newest = util[i].ts;
  if (newest > s->last_seen) s->last_seen = newest;
  unsigned long long from = s->born_us ? s->born_us : newest;
  unsigned long long floor = from > HISTORY_US ? from - HISTORY_US : 0;
  for (int i = 0; i < nutil; i++) {
    if (util[i].pid == s->self) s->self_listed = 1; /* NVML sees our pid */
    if (!util[i].sm || util[i].pid == s->self) continue;
    if (first && (util[i].ts < floor || !listed(util[i].pid, procs, nprocs)))
      continue;
    int j = 0;
    while (j < k && busy[j].pid != util[i].pid) j++;
    if (j == k) {
      if (k == PERF__COTENANT_PROCS) continue;
      busy[k++] = (perf__gpuwatch_util){.pid = util[i].pid};
    }
    if (util[i].sm > busy[j].sm) busy[j].sm = util[i].sm;
    if (util[i].ts > busy[j].ts) busy[j].ts = util[i].ts;
  }
  return k;
}

/* Foreign use in per-process utilisation samples (procs: the list, for
 * busy_pids); returns 1 when any. */
static int busy_foreign(perf__cotenant *s, const perf__gpuwatch_util *util, int nutil,
                        const perf__gpuwatch_proc *procs, int nprocs, double now)
{
  perf__gpuwatch_util busy[PERF__COTENANT_PROCS];
  int k = busy_pids(s, util, nutil, procs, nprocs, busy);
  if (pids_unmatched(s)) { /* one busy process may be us */
    int others = k - 1;
    if (others > s->hidden) s->hidden = others;
    if (others > 0) s->hidden_last = now;
    for (int j = 0; others > 0 && j < k; j++)
      if (busy[j].ts > s->hidden_ts) s->hidden_ts = busy[j].ts;
    return others > 0;
  }
  for (int j = 0; j < k; j++) note_proc(s, busy[j].pid, busy[j].sm, busy[j].ts, now);
  return k > 0;
}

/* Half NVML's sampling period: a window's per-process samples are those
 * stamped within it of its device sample. Never fails. */
static unsigned long long half_period(const perf__cotenant *s)
{
  return (s->period_us ? s->period_us : 100000ull) / 2;
}

/* Whether util[nutil] shows two processes busy in one window (stamps
 * within half a period): then NVML names each process of a window, and a
 * neighbour it does not name was not busy (the H100's driver). Never
 * fails. */
static void note_several(perf__cotenant *s, const perf__gpuwatch_util *util, int nutil)
{
  unsigned long long half = half_period(s);
  for (int i = 0; i < nutil && !s->several; i++)
    for (int j = i + 1; j < nutil && util[i].sm; j++)
      if (util[j].sm && util[j].pid != util[i].pid &&
          (util[i].ts > util[j].ts ? util[i].ts - util[j].ts : util[j].ts - util[i].ts) <= half)
        s->several = 1;
}

/* Forgets the busy stamps of processes procs[nprocs] no longer lists (a
 * later process may get the pid). Never fails. */
static void forget_gone(perf__cotenant *s, const perf__gpuwatch_proc *procs, int nprocs)
{
  for (int i = 0; nprocs >= 0 && i < s->nprocs; i++)
    if (!listed(s->procs[i].pid, procs, nprocs)) s->procs[i].busy_ts = 0;
}

/* 1 when a neighbour is held busy between NVML's samples: NVML names one
 * process per window (s->several never seen), device windows come (so an
 * idle one can end the hold: s->dev_known), and a process seen more than
 * PERF__COTENANT_IDLE_PCT busy, newer than the last idle window, still
 * holds a context (forget_gone clears those gone; nprocs: the list's
 * length, -1 none); it is noted as seen now, so the verdict
 * names it. Where NVML's pids are not ours to match, the same for the
 * count seen. Never fails. */
static int still_busy(perf__cotenant *s, int nprocs, double now)
{
  if (s->several || !s->dev_known) return 0;
  if (pids_unmatched(s)) {
    int held = s->hidden > 0 && s->hidden_ts > s->idle_ts && (nprocs < 0 || nprocs > 1);
    if (held) s->hidden_last = now;
    return held;
  }
  int any = 0;
  for (int i = 0; i < s->nprocs; i++) {
    perf__cotenant_proc *p = &s->procs[i];
    if (p->sm > PERF__COTENANT_IDLE_PCT && p->busy_ts > s->idle_ts) p->last_busy = now, any = 1;
  }
  return any;
}

/* See cotenant.h. */
void perf__cotenant_fold(perf__cotenant *s, const perf__gpuwatch_proc *procs, int nprocs,
                         const perf__gpuwatch_util *util, int nutil, double now)
{
  if (nprocs < 0 && nutil < 0) return;
  s->reads++;
  if (nprocs >= 0) {
    s->listed = nprocs;
    s->self_listed = 0;
    for (int i = 0; i < nprocs; i++) s->self_listed |= procs[i].pid == s->self;
  }
  s->per_process = nutil >= 0;
  forget_gone(s, procs, nprocs);
  note_several(s, util, nutil);
  int busy = nutil >= 0 ? busy_foreign(s, util, nutil, procs, nprocs, now) |
                               still_busy(s, nprocs, now)
                        : context_holders(s, procs, nprocs, now);
  if (busy) add_span(s, (s->last_read > 0 ? s->last_read : now) - PERF__COTENANT_WINDOW_S, now);
  s->last_read = now;
}

/* Keeps util[nutil]'s samples of windows not judged yet. When the buffer
 * is full the oldest go, and windows up to them can no longer be judged
 * (recent_floor). Never fails. */
static void keep_recent(perf__cotenant *s, const perf__gpuwatch_util *util, int nutil)
{
  for (int i = 0; i < nutil; i++) {
    if (util[i].ts + half_period(s) <= s->dev_seen) continue; /* its window is judged */
    if (util[i].ts > s->util_newest) s->util_newest = util[i].ts;
    if (s->nrecent == PERF__COTENANT_RECENT) {
      int old = 0; /* the oldest goes */
      for (int k = 1; k < s->nrecent; k++)
        if (s->recent[k].ts < s->recent[old].ts) old = k;
      if (s->recent[old].ts + half_period(s) > s->recent_floor)
        s->recent_floor = s->recent[old].ts + half_period(s);
      s->recent[old] = s->recent[--s->nrecent];
    }
    s->recent[s->nrecent++] = util[i];
  }
}

/* The per-process samples' sum for the window stamped ts: those stamped
 * within half a period of it (NVML's stamps of one window may differ by
 * microseconds), each pid's busiest once. Never fails. */
static unsigned accounted(const perf__cotenant *s, unsigned long long ts)
{
  unsigned long long half = half_period(s);
  unsigned pid[PERF__COTENANT_RECENT], sm[PERF__COTENANT_RECENT], sum = 0;
  int k = 0;
  for (int i = 0; i < s->nrecent; i++) {
    const perf__gpuwatch_util *u = &s->recent[i];
    if (u->ts + half < ts || u->ts > ts + half) continue;
    int j = 0;
    while (j < k && pid[j] != u->pid) j++;
    if (j == k) pid[k] = u->pid, sm[k++] = 0;
    if (u->sm > sm[j]) sm[j] = u->sm;
  }
  for (int j = 0; j < k; j++) sum += sm[j];
  return sum;
}

/* The sampling period: the most common step between dev's consecutive
 * timestamps seen so far (dev in time order), as the smallest of two
 * equal ones in a row: one odd step (a clock jump) does not set it. Never
 * fails. */
static void note_period(perf__cotenant *s, const perf__gpuwatch_busy *dev, int ndev)
{
  for (int i = 2; i < ndev; i++) {
    unsigned long long a = dev[i - 1].ts - dev[i - 2].ts, b = dev[i].ts - dev[i - 1].ts;
    unsigned long long lo = a < b ? a : b, hi = a < b ? b : a;
    if (lo && hi - lo <= lo / 10) s->period_us = lo; /* two steps alike */
  }
}

/* Our clock at NVML's stamp ts, given that now (our clock) is now_us on
 * NVML's. Never fails. */
static double ours(double now, unsigned long long now_us, unsigned long long ts)
{
  return now - ((double)now_us - (double)ts) * 1e-6;
}

/* Judges the window stamped ts whose device sample is pct: a gap of
 * PERF__COTENANT_UNLISTED_MIN points or more in it and in the window
 * before marks both (our clock: now is now_us) as foreign. Returns the
 * gap it confirmed, 0 when none. */
static unsigned judge(perf__cotenant *s, unsigned long long ts, unsigned pct, double now,
                      unsigned long long now_us)
{
  unsigned sum = accounted(s, ts), gap = pct > sum ? pct - sum : 0;
  unsigned long long period = s->period_us ? s->period_us : 1000000ull;
  if (gap < PERF__COTENANT_UNLISTED_MIN) {
    s->gap_ts = 0;
    return 0;
  }
  int second = s->gap_ts && ts > s->gap_ts && ts - s->gap_ts <= period + period / 2;
  if (!second) s->gap_first = ts; /* alone it may be NVML's own gap */
  unsigned worst = second && s->gap > gap ? s->gap : gap;
  s->gap_ts = ts;
  s->gap = gap;
  if (!second) return 0;
  unsigned long long start = s->gap_first > period ? s->gap_first - period : 0;
  add_span(s, ours(now, now_us, start), ours(now, now_us, ts));
  return worst;
}

/* See cotenant.h. */
void perf__cotenant_fold_device(perf__cotenant *s, const perf__gpuwatch_busy *dev, int ndev,
                                const perf__gpuwatch_util *util, int nutil, double now,
                                unsigned long long now_us)
{
  keep_recent(s, util, nutil);
  note_period(s, dev, ndev);
  if (ndev >= 0) s->dev_known = 1;
  unsigned long long from = s->dev_seen, newest = 0, done = s->dev_seen;
  if (s->born_us) { /* a window that may reach back before the worker began is history */
    unsigned long long first = s->born_us + (s->period_us ? s->period_us : 1000000ull);
    if (first > from) from = first;
  } else if (!from)
    from = ~0ull; /* the first read: history */
  if (s->recent_floor > from) from = s->recent_floor; /* its samples are gone */
  for (int i = 0; i < ndev; i++)
    if (dev[i].ts > newest) newest = dev[i].ts;
  unsigned worst = 0;
  for (int i = 0; i < ndev; i++) { /* in time order */
    unsigned long long ts = dev[i].ts;
    if (ts <= s->dev_seen) continue;
    /* an idle window is idle whatever per-process samples come later */
    if (dev[i].pct <= PERF__COTENANT_IDLE_PCT && ts > s->idle_ts) s->idle_ts = ts;
    /* the newest waits for the next read unless its per-process samples
     * are known to be in: NVML may add them after the device's */
    if (ts == newest && s->util_newest + half_period(s) < ts && from != ~0ull && ts > from)
      break;
    done = ts;
    if (ts <= from || nutil < 0) continue;
    unsigned w = judge(s, ts, dev[i].pct, now, now_us);
    if (w > worst) worst = w;
  }
  s->dev_seen = done;
  int n = 0; /* per-process samples of windows judged are done with */
  for (int i = 0; i < s->nrecent; i++)
    if (s->recent[i].ts + half_period(s) > done) s->recent[n++] = s->recent[i];
  s->nrecent = n;
  if (!worst) return;
  if (worst > s->unlisted) s->unlisted = worst;
  s->unlisted_last = now;
}

/* 1 when one of spans (n) overlapped [t0, t1] or ended less than quiet
 * seconds before t0. Never fails. */
static int any_overlap(const perf__cotenant_span *spans, int n, double t0, double t1, double quiet)
{
  for (int i = n - 1; i >= 0; i--)
    if (spans[i].from < t1 && spans[i].to + quiet > t0) return 1;
  return 0;
}

/* See cotenant.h. */
int perf__cotenant_overlaps(const perf__cotenant *s, double t0, double t1)
{
  return any_overlap(s->spans, s->nspans, t0, t1, PERF__COTENANT_QUIET_S);
}

/* See cotenant.h. */
int perf__cotenant_still_on(const perf__cotenant *s)
{
  double now = perf__clock_now();
  return perf__cotenant_overlaps(s, now - PERF__COTENANT_QUIET_S, now);
}

/* See cotenant.h. */
int perf__cotenant_overlaps_link(const perf__cotenant *s, double t0, double t1)
{
  return any_overlap(s->link_spans, s->nlink_spans, t0, t1, PERF__COTENANT_LINK_QUIET_S);
}

/* See cotenant.h. */
int perf__cotenant_shares(const perf__cotenant *s, double t0, double t1)
{
  if (s->canary == 2) return 0; /* the canary's link probe judges the link too */
  return s->canary ? perf__cotenant_overlaps_link(s, t0, t1) : perf__cotenant_overlaps(s, t0, t1);
}

/* NVML's clock now: CPU realtime in microseconds (0 unknown). */
static unsigned long long realtime_us(void)
{
  struct timespec t;
  if (clock_gettime(CLOCK_REALTIME, &t)) return 0;
  return (unsigned long long)t.tv_sec * 1000000ull + (unsigned long long)t.tv_nsec / 1000;
}

static perf__cotenant state;
static long nreads;
static double read_s;

/* Takes the link's base now, our bytes counted so far (pending) allowed
 * for, as they may still show after it; seen: our clock at the read
 * after which a neighbour's context appeared (0: none), where its span
 * would begin. Where GPM cannot be read the link is not read again in
 * this process, saying so once (--verbose). Never fails. */
static void rebase(double pending, double seen)
{
  if (perf__gpuwatch_link_begin()) {
    state.link_on = -1;
    perf__context_line(PERF_LINE_VERBOSE, "the host link cannot be read here (NVML's GPM: "
                       "Hopper or later): a neighbour that only copies is not seen");
    return;
  }
  state.link_from = perf__clock_now();
  state.link_seen = seen;
  state.own_down = state.own_up = 0;
  state.link_excess = -PERF__COTENANT_LINK_SLACK * pending;
  state.link_peak = 0;
  state.link_prev_own = pending;
  state.link_rise = seen > 0 ? seen : state.link_from;
  state.link_stale = 0;
}

/* A read alone on the GPU (or with no process list): every byte is ours,
 * nothing is judged, and the base goes stale; our bytes since the last
 * read are kept as the interval before the next base. Never fails. */
static void alone(void)
{
  state.link_stale = 1;
  state.link_prev_own = state.own_down + state.own_up;
  state.own_down = state.own_up = state.link_before = 0;
}

/* The link beside procs[nprocs] (nprocs < 0: no list) at a read (force:
 * wait out GPM's interval): alone, see alone(); with another context, a
 * stale base is taken anew, from which a forced read (a claim's last)
 * waits and reads at once (a claim shorter than a read's interval is
 * judged too), an unforced one returns 1 (nothing to judge yet); else the
 * rates since the base are read into *down, *up (returns 0). Returns -1
 * when GPM fails (the link is then not read again). Never fails
 * otherwise. */
static int read_link(const perf__gpuwatch_proc *procs, int nprocs, int force, double *down,
                     double *up)
{
  if (nprocs < 0 || !another_context(&state, procs, nprocs)) {
    alone();
    return 1;
  }
  if (state.link_stale) {
    /* our bytes since the last read and in the interval before it may
     * still show after the base */
    rebase(state.own_down + state.own_up + state.link_prev_own + state.link_before,
           state.last_read);
    state.link_before = 0;
    if (!force || state.link_on < 0) return 1;
  }
  int rc = perf__gpuwatch_link_rates(down, up, force);
  if (rc < 0) state.link_on = -1; /* GPM failed: stop asking */
  return rc;
}

/* See cotenant.h. */
int perf__cotenant_poll(int force)
{
  double now = perf__clock_now();
  if (!force && state.last_read > 0 && now - state.last_read < PERF__COTENANT_POLL_S)
    return state.reads > 0;
  perf__gpuwatch_proc procs[64];
  perf__gpuwatch_util util[256];
  perf__gpuwatch_busy dev[64];
  unsigned np = 0, nu = 0, nd = 0;
  if (!state.self) state.self = (unsigned)getpid();
  state.self_context = 1; /* only GPU workloads poll: they hold a context */
  int have_dev = perf__gpuwatch_device_util(dev, 64, &nd, state.dev_seen) == 0; /* first */
  int have_procs = perf__gpuwatch_processes(procs, 64, &np) == 0;
  int have_util = perf__gpuwatch_process_util(util, 256, &nu, state.last_seen) == 0;
  double down = 0, up = 0;
  int link = state.link_on > 0 ? read_link(procs, have_procs ? (int)np : -1, force, &down, &up) : 1;
  double end = perf__clock_now();
  nreads++;
  read_s += end - now;
  perf__cotenant_fold_device(&state, dev, have_dev ? (int)nd : -1, util, have_util ? (int)nu : -1,
                             end, realtime_us());
  perf__cotenant_fold(&state, procs, have_procs ? (int)np : -1, util, have_util ? (int)nu : -1,
                      end);
  if (link == 0) perf__cotenant_fold_link(&state, procs, (int)np, down, up, end);
  if (!have_procs && !have_util) state.last_read = end; /* no view: do not ask again at once */
  return state.reads > 0;
}

/* See cotenant.h. */
const perf__cotenant *perf__cotenant_state(void) { return &state; }

/* See cotenant.h. */
void perf__cotenant_canary(int on) { state.canary = on; }

/* See cotenant.h. */
void perf__cotenant_cost(long *reads, double *seconds)
{
  *reads = nreads;
  *seconds = read_s;
}

/* See cotenant.h. */
void perf__cotenant_link_watch(double before)
{
  if (state.link_on < 0) return;
  if (state.link_on > 0 && !state.link_stale) {
    /* a base beside another context stands: our untimed bytes allowed for */
    state.link_excess -= PERF__COTENANT_LINK_SLACK * before;
    return;
  }
  state.link_on = 1;
  state.link_stale = 1; /* the next read beside another context takes the base */
  state.link_before += before;
}

/* See cotenant.h. */
void perf__cotenant_link_own(double down, double up)
{
  if (state.link_on <= 0) return; /* not watched: nothing to count against */
  state.own_down += down;
  state.own_up += up;
}

/* See cotenant.h. */
void perf__cotenant_link_pause(void)
{
  if (state.link_on > 0) state.link_on = 0;
  state.own_down = state.own_up = state.link_before = state.link_prev_own = 0;
}

/* See cotenant.h. */
void perf__cotenant_link_end(void)
{
  if (state.link_on > 0) state.link_on = 0;
  state.own_down = state.own_up = state.link_before = state.link_prev_own = 0;
  state.link = 0, state.link_group = 0; /* a later test names its own */
  for (int i = 0; i < state.nprocs; i++) state.procs[i].link = 0;
}

/* See cotenant.h. */
void perf__cotenant_begin(void) { state.born_us = realtime_us(); }

/* See cotenant.h. */
void perf__cotenant_reset(void)
{
  state = (perf__cotenant){0};
  nreads = 0;
  read_s = 0;
}
