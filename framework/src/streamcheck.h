/* streamcheck.h — where a workload's GPU work goes: an untimed pass with CUPTI callbacks feeds the stream-order model, which says how the workload's clock must wait. */
#ifndef PERF_STREAMCHECK_H
#define PERF_STREAMCHECK_H

#include "perfgate.h"
#include "streamorder.h"

enum {
  PERF__ROUTE_CALLS = 2,  /* calls of the workload the pass watches */
  PERF__ROUTE_DEVICES = 8 /* devices a DEVICE wait can name */
};

/* What the pass found and decided for one workload. */
typedef struct perf__routing {
  perf__route route;   /* NOTHING, STREAM or DEVICE (REFUSE ends the test) */
  int checked;         /* 0: CUPTI could not look (why_not says why) */
  int undeclared;      /* work went to streams other than the clock's */
  int devices[PERF__ROUTE_DEVICES]; /* DEVICE: the devices to wait for */
  int ndevices;        /* 0: the current device */
  double pass_s;       /* the pass's wall time (the check's cost) */
  char why_not[300];   /* checked == 0: why */
  char found[700];     /* DEVICE: the work that made it so, or "" */
  char summary[500];   /* every stream that got work, "none", or "" when
                          there was no CUDA context to look in */
} perf__routing;

/* Decides how w's clock (resolved, never AUTO) must wait for the GPU work
 * w queues. Without a CUDA context in the process nothing can have been
 * queued: NOTHING, at no cost. Otherwise w runs PERF__ROUTE_CALLS times
 * with CUPTI callbacks on the runtime and driver APIs, untimed, then CUPTI
 * is detached; the stream-order model decides (perf__order_decide). When
 * CUPTI cannot attach: STREAM for a declared stream, DEVICE otherwise, with
 * checked = 0. A clock that cannot time the work ends the test as ERROR
 * naming the workload, the work, its stream and call site, and the fix; a
 * CUDA error the workload caused ends it as FAIL. */
void perf__streamcheck(perf_workload *w, perf_clock clock, perf__routing *out);

/* Detaches CUPTI and frees the model if a test ended inside a pass. Never
 * fails. */
void perf__streamcheck_release(void);

#endif
