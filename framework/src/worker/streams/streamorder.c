/* streamorder.c — which of a workload's GPU operations a clock waits for. */
/* A happens-before model of CUDA streams, events and host waits. */
#include "worker/streams/streamorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/clock.h"
#include "util/grow.h"

/* Nothing here fails: the model lives in memory the caller owns, and the
 * one allocation (an event's clock) reports running out as o->overflow. */

/* Never fails. */
void perf__streamorder_init(perf__streamorder_model *o)
{
  memset(o, 0, sizeof *o);
  o->anchor = -1;
}

/* Never fails. */
void perf__streamorder_free(perf__streamorder_model *o)
{
  free(o->ev);
  perf__streamorder_init(o);
}

/* 1 when a and b name the same stream. */
static int same_key(perf__streamorder_key a, perf__streamorder_key b)
{
  return a.ctx == b.ctx && a.handle == b.handle && a.thread == b.thread;
}

/* See streamorder.h. */
int perf__streamorder_find_stream(perf__streamorder_model *o, perf__streamorder_key k, perf__streamorder_stream_kind kind,
                       int device)
{
  for (int i = 0; i < o->n; i++)
    if (same_key(o->s[i].key, k)) return i;
  if (o->n == PERF__ORDER_STREAMS) {
    o->overflow = 1;
    return -1;
  }
  perf__streamorder_stream *st = &o->s[o->n];
  memset(st, 0, sizeof *st);
  st->key = k;
  st->kind = kind;
  st->device = device;
  st->early_site = -1;
  for (int i = 0; i < PERF__ORDER_SITES; i++) st->site[i] = -1;
  return o->n++;
}

/* Never fails. */
void perf__streamorder_anchor(perf__streamorder_model *o, int s)
{
  if (s < 0) return;
  o->anchor = s;
  o->s[s].after_start = 1;
}

/* Never fails. */
int perf__streamorder_wants_site(const perf__streamorder_model *o, int s)
{
  return s >= 0 && o->s[s].work < PERF__ORDER_SITES;
}

/* dst's clock takes in what src's knows. */
static void join(unsigned *dst, const unsigned *src)
{
  for (int i = 0; i < PERF__ORDER_STREAMS; i++)
    if (src[i] > dst[i]) dst[i] = src[i];
}

/* 1 for the kinds the legacy stream orders itself with. */
static int blocking(perf__streamorder_stream_kind k)
{
  return k == PERF__STREAM_BLOCKING || k == PERF__STREAM_PER_THREAD;
}

/* The implicit synchronisation of an operation issued to s: on the legacy
 * stream it waits for the blocking streams of its context; on a blocking
 * stream, for the legacy stream. Takes their clocks into vc and, unless
 * after is NULL, whether they follow the start into *after. */
static void implicit(const perf__streamorder_model *o, int s, unsigned *vc, int *after)
{
  const perf__streamorder_stream *st = &o->s[s];
  for (int i = 0; i < o->n; i++) {
    const perf__streamorder_stream *t = &o->s[i];
    if (i == s || t->key.ctx != st->key.ctx) continue;
    int pulls = st->kind == PERF__STREAM_LEGACY ? blocking(t->kind)
                : blocking(st->kind) && t->kind == PERF__STREAM_LEGACY;
    if (!pulls) continue;
    join(vc, t->vc);
    if (after) *after |= t->after_start;
  }
}

/* Every operation on s first takes in what its implicit sync orders. */
static perf__streamorder_stream *issue(perf__streamorder_model *o, int s)
{
  perf__streamorder_stream *st = &o->s[s];
  implicit(o, s, st->vc, &st->after_start);
  return st;
}

/* Never fails. */
void perf__streamorder_work(perf__streamorder_model *o, int s, perf__streamorder_work_kind kind, int site)
{
  if (s < 0) return;
  perf__streamorder_stream *st = issue(o, s);
  if (st->work < PERF__ORDER_SITES) st->site[st->work] = site;
  if (!st->after_start && st->early++ == 0) st->early_site = site;
  st->vc[s] = ++st->work;
  st->kinds |= 1u << kind;
}

/* The event with handle h, or NULL when it was never recorded here. */
static perf__streamorder_event *find_event(perf__streamorder_model *o, uintptr_t h)
{
  for (int i = 0; i < o->nev; i++)
    if (o->ev[i].handle == h) return &o->ev[i];
  return NULL;
}

/* Never fails (out of memory: o->overflow). */
void perf__streamorder_record(perf__streamorder_model *o, int s, uintptr_t event)
{
  if (s < 0) return;
  perf__streamorder_stream *st = issue(o, s);
  perf__streamorder_event *e = find_event(o, event);
  if (!e) {
    size_t cap = (size_t)o->cap;
    perf__streamorder_event *p = perf__grow(o->ev, &cap, (size_t)o->nev + 1, sizeof *p, 8);
    if (!p) {
      o->overflow = 1;
      return;
    }
    o->ev = p;
    o->cap = (int)cap;
    e = &o->ev[o->nev++];
    e->handle = event;
  }
  memcpy(e->vc, st->vc, sizeof e->vc);
  e->after_start = st->after_start;
}

/* Never fails. */
void perf__streamorder_wait(perf__streamorder_model *o, int s, uintptr_t event)
{
  if (s < 0) return;
  perf__streamorder_stream *st = issue(o, s);
  const perf__streamorder_event *e = find_event(o, event);
  if (!e) return;
  join(st->vc, e->vc);
  st->after_start |= e->after_start;
}

/* Never fails. A host sync is no operation on the stream: it waits for
 * what the stream's clock knows, without the legacy stream's implicit
 * synchronisation. */
void perf__streamorder_host_stream(perf__streamorder_model *o, int s)
{
  if (s >= 0) join(o->host, o->s[s].vc);
}

/* Never fails. */
void perf__streamorder_host_event(perf__streamorder_model *o, uintptr_t event)
{
  const perf__streamorder_event *e = find_event(o, event);
  if (e) join(o->host, e->vc);
}

/* Never fails. */
void perf__streamorder_host_context(perf__streamorder_model *o, uintptr_t ctx)
{
  for (int i = 0; i < o->n; i++)
    if (ctx && o->s[i].key.ctx == ctx) join(o->host, o->s[i].vc);
}

/* What the clock's end covers: a host sync of the anchor (wall, submit) or
 * an event recorded on it (with its implicit synchronisation), plus the
 * host's own waits, which all came before the end. */
static void end_clock(const perf__streamorder_model *o, int by_event, unsigned *end)
{
  memcpy(end, o->host, sizeof o->host);
  if (o->anchor < 0) return;
  unsigned vc[PERF__ORDER_STREAMS];
  memcpy(vc, o->s[o->anchor].vc, sizeof vc);
  if (by_event) implicit(o, o->anchor, vc, NULL);
  join(end, vc);
}

/* 1 for the clocks that queue a batch behind their blocking kernel. */
/* The first stream whose work the end misses (or, held, that starts before
 * the blocking kernel); -1 when none. */
static int first_missed(const perf__streamorder_model *o, const unsigned *end, int held_clock,
                        perf__streamorder_verdict *v)
{
  for (int i = 0; i < o->n; i++) {
    const perf__streamorder_stream *st = &o->s[i];
    if (held_clock && st->early) {
      v->early = 1;
      v->missed = st->early;
      v->site = st->early_site;
      return i;
    }
    if (end[i] < st->work) {
      v->early = 0;
      v->missed = st->work - end[i];
      v->site = end[i] < PERF__ORDER_SITES ? st->site[end[i]] : st->site[0];
      return i;
    }
  }
  return -1;
}

/* See streamorder.h. */
void perf__streamorder_decide(const perf__streamorder_model *o, perf_clock clock, int declared,
                        perf__streamorder_verdict *v)
{
  unsigned total = 0, end[PERF__ORDER_STREAMS];
  int host_synced = perf__clock_host_side(clock);
  *v = (perf__streamorder_verdict){.blame = -1, .site = -1};
  for (int i = 0; i < o->n; i++) {
    total += o->s[i].work;
    v->undeclared |= i != o->anchor && o->s[i].work > 0;
  }
  if (o->overflow || o->unfollowed) {
    v->route = host_synced ? PERF__ROUTE_DEVICE : PERF__ROUTE_REFUSE;
    return;
  }
  if (total == 0) {
    v->route = perf__clock_held(clock) ? PERF__ROUTE_REFUSE
               : declared || !host_synced ? PERF__ROUTE_STREAM : PERF__ROUTE_NOTHING;
    return;
  }
  if (host_synced && !declared) {
    v->route = PERF__ROUTE_DEVICE;
    return;
  }
  end_clock(o, !host_synced, end);
  v->blame = first_missed(o, end, perf__clock_held(clock), v);
  if (v->blame < 0)
    v->route = PERF__ROUTE_STREAM;
  else
    v->route = host_synced ? PERF__ROUTE_DEVICE : PERF__ROUTE_REFUSE;
}

/* Never fails. */
const char *perf__streamorder_stream_name(const perf__streamorder_stream *st, char *buf,
                                    size_t len)
{
  switch (st->kind) {
  case PERF__STREAM_LEGACY:
    snprintf(buf, len, "the legacy default stream (stream 0)");
    break;
  case PERF__STREAM_PER_THREAD:
    snprintf(buf, len, "the per-thread default stream");
    break;
  default:
    snprintf(buf, len, "stream %#lx (%s)", (unsigned long)st->key.handle,
             st->kind == PERF__STREAM_BLOCKING ? "blocking" : "non-blocking");
  }
  return buf;
}

/* Never fails. */
const char *perf__streamorder_kinds(const perf__streamorder_stream *st, char *buf, size_t len)
{
  static const char *const word[PERF__WORK_KINDS] = {
      "kernels", "copies", "memsets", "host functions", "graph launches",
      "stream memory operations"};
  size_t used = 0;
  int shown = 0, count = 0;
  buf[0] = '\0';
  for (int k = 0; k < PERF__WORK_KINDS; k++) count += (st->kinds >> k) & 1;
  for (int k = 0; k < PERF__WORK_KINDS && used < len; k++) {
    if (!((st->kinds >> k) & 1)) continue;
    shown++;
    const char *sep = shown == 1 ? "" : shown == count ? " and " : ", ";
    used += (size_t)snprintf(buf + used, len - used, "%s%s", sep, word[k]);
  }
  if (!count) snprintf(buf, len, "work");
  return buf;
}
