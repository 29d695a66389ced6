/* trace.h — what the GPU did for one iteration of a workload, and what changed between two. */
/* Kernels, copies, memsets and host syncs, counted, sized and timed; written
 * as JSON and as a Chrome trace; the changes ordered by the time they
 * explain. */
#ifndef PERF_TRACE_H
#define PERF_TRACE_H

#include <stdio.h>

#include "io/json.h"
#include "io/jsontree.h"

/* A trace is taken outside the timed samples, in the routing pass
 * (worker/streams/streamcheck.c) with CUPTI's Activity API (worker/sync/
 * activity.c): its items are per iteration (the pass's calls averaged),
 * one per kernel name and launch shape, per copy or memset call site and
 * direction, per host-sync call site, ordered by device time. It travels
 * in a claim record ("trace"), a baseline entry and the history, and two
 * of them are compared when a measurement got slower (perf__trace_explain).
 *
 * Matching kernels across two traces: by their demangled name first
 * (launch shapes summed); what is left on each side is a kernel that went
 * and one that came, which is what an algorithm swap (cuBLAS picking
 * another GEMM) looks like: they are paired as a replacement, first those
 * whose names share a word (gemm, xmma, reduce...: whole words of three
 * letters or more, not C++'s own such as void or const), then by device
 * time, largest first, so that the swap is named with the time it
 * explains rather than as two unrelated changes. Copies, memsets and
 * syncs match by call, shape and call site, the site's line left out (an
 * edit above a call moves its line, not the call). */

enum {
  PERF__TRACE_MAX_ITEMS = 48,   /* items kept, by device time */
  PERF__TRACE_NAME = 480,       /* a name's bytes (longer names are cut) */
  PERF__TRACE_MAX_EVENTS = 4096 /* raw events kept for export */
};

#define PERF__TRACE_KIND_MAP(X) \
  X(KERNEL, "kernel")           \
  X(COPY, "copy")               \
  X(MEMSET, "memset")           \
  X(SYNC, "sync")

typedef enum perf__trace_kind {
#define PERF__X(sym, word) PERF__TRACE_##sym,
  PERF__TRACE_KIND_MAP(PERF__X)
#undef PERF__X
  PERF__TRACE_KIND_COUNT
} perf__trace_kind;

typedef struct perf__trace_item {
  perf__trace_kind kind;
  char name[PERF__TRACE_NAME]; /* kernel: demangled name; copy, memset, sync: the API call
                                  ("cudaMemcpyAsync", "cudaStreamSynchronize") */
  char shape[80];              /* kernel: "grid 256x1x1, block 256x1x1"; copy: "host→device,
                                  pageable"; sync: why it blocks; memset: "" */
  char where[200];             /* copy, memset, sync: call site "file:line (fn)"; "" */
  double count, bytes, device_s; /* per iteration; device_s: time on the GPU */
} perf__trace_item;

/* One timed event of the traced calls, for export. */
typedef struct perf__trace_event {
  int item;                    /* index in items */
  unsigned stream;
  unsigned long long start_ns, end_ns;
} perf__trace_event;

typedef struct perf__trace {
  int calls;            /* iterations the items are averaged over; 0: no trace */
  char why_not[240];    /* no trace: why ("" when none was tried) */
  char names[40];       /* "demangled" or why names are mangled ("" unknown) */
  perf__trace_item *items;
  size_t n, cap;
  perf__trace_event *events;
  size_t nevents, cap_events;
  size_t dropped;       /* events or items over the limits */
} perf__trace;

/* The kind's word ("kernel"). Never fails ("?" for a bad value). */
const char *perf__trace_kind_word(perf__trace_kind k);

/* Frees what t holds and empties it. Never fails. */
void perf__trace_free(perf__trace *t);

/* Which item an occurrence is of: perf__trace_item's kind, name, shape and
 * where (NULL reads as ""; longer text is cut to their fields). */
typedef struct perf__trace_key {
  perf__trace_kind kind;
  const char *name, *shape, *where;
} perf__trace_key;

/* Adds one occurrence (of an unfinished trace: sums, not per iteration) of
 * the item key with its bytes and device time, and its event on stream
 * when end_ns > start_ns. Returns 0 or PERF__ENOMEM (the occurrence is
 * then not counted). */
int perf__trace_add(perf__trace *t, const perf__trace_key *key, double bytes, unsigned stream,
                    unsigned long long start_ns, unsigned long long end_ns);

/* Finishes a trace of calls iterations: counts, bytes and times per
 * iteration, items by device time (then count), at most
 * PERF__TRACE_MAX_ITEMS kept. Never fails. */
void perf__trace_finish(perf__trace *t, int calls);

/* Device time of one iteration: kernels, copies and memsets. Never fails. */
double perf__trace_device_s(const perf__trace *t);

/* The share of t's device time spent in copies between host and device
 * (0 when it has none or no device time). Never fails. */
double perf__trace_host_copy_share(const perf__trace *t);

/* 1 when t has a copy whose host side is pageable memory (its shape says
 * "pageable": the driver stages it through the host). Never fails. */
int perf__trace_pageable(const perf__trace *t);

/* The bytes one iteration of t copies over the host link (baseline/peaks.h's
 * link), to the device and to the host (0 when it copies none). Never
 * fails. */
void perf__trace_host_copy_bytes(const perf__trace *t, double *to_device, double *to_host);

/* Appends t as one JSON object (no events). Never fails (j->oom). */
void perf__trace_write(perf__json *j, const perf__trace *t);
/* t as JSON text (malloc'd), or NULL without memory. */
char *perf__trace_text(const perf__trace *t);
/* Reads a trace object into t (empty on failure). Returns 0, PERF__ENOMEM,
 * or PERF__EPROTO with the problem in err[len]. */
int perf__trace_read(const perf__jsontree_node *n, perf__trace *t, char *err, size_t len);
/* The same from JSON text. */
int perf__trace_parse(const char *text, perf__trace *t, char *err, size_t len);
/* A copy of src into dst. Returns 0 or PERF__ENOMEM (dst empty). */
int perf__trace_copy(perf__trace *dst, const perf__trace *src);

/* What each line of an explanation starts with in a test's output (the
 * Markdown report shows these lines under a failure: report/tally.c). */
#define PERF__TRACE_CHANGED "  changed: "

/* One side of a comparison of traces: the trace, and the median per
 * iteration (seconds) and SM clock (MHz) of the measurement it came with,
 * each 0 when unknown. */
typedef struct perf__trace_side {
  const perf__trace *trace;
  double median_s;
  unsigned mhz;
} perf__trace_side;

/* What changed between was's trace and now's, for a measurement whose
 * median per iteration went from was's to now's, with the SM clock of
 * each: lines "\n"-separated into buf[len], each
 * starting with indent, ordered by how much of the time each explains:
 *   kernel `A` replaced by `B` (+41.0 us of +44.0 us)
 *   kernel `reduce` 2 launches an iteration, was 1 (+3.1 us)
 *   kernel `k` 12.0 us -> 19.0 us a launch (+7.0 us)
 *   new kernel `k` (+5.0 us) / kernel `k` gone (-5.0 us)
 *   1 new cudaMemcpy host→device 4.0 MiB pageable at train.c:88 (+1.2 ms)
 *   1 new host sync cudaStreamSynchronize at t.c:9
 * (a time a call counts when it moved by over 10 % and 1 us: a trace is
 * two calls) or, when the same kernels ran as often and none changed,
 * that the trace cannot explain it, with both SM clocks. Returns the
 * number of changes found (0: unexplained). Never fails (truncates). */
int perf__trace_explain(const perf__trace_side *was, const perf__trace_side *now,
                        const char *indent, char *buf, size_t len);

/* Writes t's events as a Chrome trace (JSON: one "X" event each, times in
 * microseconds, one track per stream: Perfetto and chrome://tracing open
 * it) named title to f. Returns 0, or PERF__EIO when f could not be
 * written. */
int perf__trace_export(const perf__trace *t, const char *title, FILE *f);

#endif
