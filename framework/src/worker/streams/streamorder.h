/* streamorder.h — which of a workload's GPU operations a clock waits for. */
/* A happens-before model of CUDA streams, events and host waits. */
#ifndef PERF_STREAMORDER_H
#define PERF_STREAMORDER_H

#include <stddef.h>
#include <stdint.h>

#include "perfgate.h"

/* The model replays, in the order the host issued them, the operations a
 * workload queued: work (kernels, copies, memsets, host functions, graph
 * launches) on streams, events recorded and waited for, and the host's own
 * waits. Each stream carries a vector clock: for every stream, how many of
 * its work items are ordered before this stream's next operation. Stream
 * order, cudaStreamWaitEvent, the legacy default stream's implicit
 * synchronisation with blocking streams (of its context), and host waits
 * move those counts; nothing else orders work. A clock waits for an item
 * when the item is ordered before the clock's end (an event recorded on, or
 * a host sync of, the anchor stream); the device and cold clocks also need
 * it ordered after their start (the blocking kernel on the anchor). The
 * decision (perf__streamorder_decide) says how the clock must wait, or that it
 * cannot time the workload. The model never calls CUDA: streamcheck.c feeds
 * it from CUPTI callbacks, the self-tests from made-up sequences. */

enum {
  PERF__ORDER_STREAMS = 64, /* streams one pass can follow */
  PERF__ORDER_SITES = 64    /* items per stream whose call site is kept */
};

typedef enum perf__streamorder_stream_kind {
  PERF__STREAM_LEGACY,     /* the legacy default stream of a context */
  PERF__STREAM_PER_THREAD, /* a thread's per-thread default stream */
  PERF__STREAM_BLOCKING,   /* created without cudaStreamNonBlocking */
  PERF__STREAM_NONBLOCKING /* no implicit order with the legacy stream */
} perf__streamorder_stream_kind;

typedef enum perf__streamorder_work_kind {
  PERF__WORK_KERNEL,
  PERF__WORK_COPY,
  PERF__WORK_MEMSET,
  PERF__WORK_HOST_FN,
  PERF__WORK_GRAPH,
  PERF__WORK_OTHER, /* stream memory operations, prefetches */
  PERF__WORK_KINDS
} perf__streamorder_work_kind;

/* A stream's identity: its handle in its context; for a per-thread default
 * stream, also the thread. */
typedef struct perf__streamorder_key {
  uintptr_t ctx, handle, thread;
} perf__streamorder_key;

typedef struct perf__streamorder_stream {
  perf__streamorder_key key;
  perf__streamorder_stream_kind kind;
  int device;
  unsigned work;   /* work items queued on it */
  unsigned kinds;  /* 1 << perf__streamorder_work_kind of each item */
  unsigned early;  /* items not ordered after the anchor's start */
  int early_site;  /* site of the first such item (-1: none kept) */
  int site[PERF__ORDER_SITES]; /* sites of its first items (-1: none) */
  int after_start; /* its next operation is ordered after the start */
  unsigned vc[PERF__ORDER_STREAMS];
} perf__streamorder_stream;

typedef struct perf__streamorder_event {
  uintptr_t handle;
  int after_start;
  unsigned vc[PERF__ORDER_STREAMS];
} perf__streamorder_event;

typedef struct perf__streamorder_model {
  perf__streamorder_stream s[PERF__ORDER_STREAMS];
  int n;
  int anchor;      /* the clock's stream (-1: none) */
  int overflow;    /* a stream or event could not be followed */
  int unfollowed;  /* a call may have queued work the model cannot place */
  unsigned host[PERF__ORDER_STREAMS]; /* items the host has waited for */
  perf__streamorder_event *ev;
  int nev, cap;
} perf__streamorder_model;

/* Empties o (no anchor); o must not hold events (a new o, or one after
 * perf__streamorder_free). Never fails. */
void perf__streamorder_init(perf__streamorder_model *o);
/* Frees what o holds and empties it. Never fails. */
void perf__streamorder_free(perf__streamorder_model *o);

/* The index of the stream with key k, added with kind and device when new;
 * -1 (and o->overflow set) when PERF__ORDER_STREAMS are in use. */
int perf__streamorder_find_stream(perf__streamorder_model *o, perf__streamorder_key k, perf__streamorder_stream_kind kind,
                       int device);
/* Makes stream s the anchor: its start (an event or the blocking kernel)
 * comes before every operation fed after. Never fails. */
void perf__streamorder_anchor(perf__streamorder_model *o, int s);

/* 1 when the next work item on s keeps its call site: pass one then. */
int perf__streamorder_wants_site(const perf__streamorder_model *o, int s);

/* Operations, in the order the host issued them. s < 0 is ignored (a
 * stream that overflowed); an event never recorded in the pass orders
 * nothing. Out of memory sets o->overflow. Never fail otherwise. */
void perf__streamorder_work(perf__streamorder_model *o, int s, perf__streamorder_work_kind kind, int site);
void perf__streamorder_record(perf__streamorder_model *o, int s, uintptr_t event);
void perf__streamorder_wait(perf__streamorder_model *o, int s, uintptr_t event);
void perf__streamorder_host_stream(perf__streamorder_model *o, int s);
void perf__streamorder_host_event(perf__streamorder_model *o, uintptr_t event);
/* The host waits for every stream of a context (cuCtxSynchronize,
 * cudaDeviceSynchronize); ctx 0 (unknown) waits for nothing. */
void perf__streamorder_host_context(perf__streamorder_model *o, uintptr_t ctx);

/* How a clock must wait for a workload's GPU work. */
typedef enum perf__streamorder_route {
  PERF__ROUTE_NOTHING, /* no GPU work: nothing to wait for */
  PERF__ROUTE_STREAM,  /* the clock's own stream covers all of it */
  PERF__ROUTE_DEVICE,  /* the wall clock must wait for the device */
  PERF__ROUTE_REFUSE   /* the clock cannot time it: an ERROR */
} perf__streamorder_route;

typedef struct perf__streamorder_verdict {
  perf__streamorder_route route;
  int undeclared; /* work was found on streams other than the anchor */
  int blame;      /* REFUSE: the stream whose work the clock would miss, or
                     -1 (no work for a kernel-only clock; overflow) */
  int early;      /* REFUSE: that work would start before the clock does
                     (0: it would end after the clock stops) */
  unsigned missed;/* how many of its items */
  int site;       /* the site of the first missed item (-1: unknown) */
} perf__streamorder_verdict;

/* Decides for a workload measured with clock (resolved, never AUTO),
 * declared = it named a .stream (the anchor). The rules:
 *   no work:            wall, submit, events: nothing (or its stream) to
 *                       wait for; device, cold: REFUSE (they time only GPU
 *                       work);
 *   wall, submit:       STREAM when a host sync of the declared stream
 *                       covers all work, else DEVICE;
 *   events:             STREAM when the end event on the anchor (declared,
 *                       or the legacy stream) covers all work, else REFUSE;
 *   device, cold:       STREAM when all work is also ordered after the
 *                       blocking kernel on the anchor, else REFUSE;
 *   overflow, or a call the model cannot place (unfollowed):
 *                       DEVICE for wall and submit, REFUSE otherwise.
 * Never fails. */
void perf__streamorder_decide(const perf__streamorder_model *o, perf_clock clock, int declared,
                        perf__streamorder_verdict *v);

/* "the legacy default stream", "stream 0x55d0 (non-blocking)", ... into
 * buf. Never fails. */
const char *perf__streamorder_stream_name(const perf__streamorder_stream *st, char *buf,
                                    size_t len);
/* "kernels", "kernels and copies", ... for the kinds of st's items. Never
 * fails. */
const char *perf__streamorder_kinds(const perf__streamorder_stream *st, char *buf, size_t len);

#endif
