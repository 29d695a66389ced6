/* streamcheck.h — where a workload's GPU work goes, and so how its clock must wait. */
/* An untimed pass with CUPTI callbacks feeds the stream-order model, which
 * decides the wait. */
#ifndef PERF_STREAMCHECK_H
#define PERF_STREAMCHECK_H

#include "baseline/trace.h"
#include "perfgate.h"
#include "worker/streams/streamorder.h"

enum {
  PERF__ROUTE_CALLS = 2,  /* calls of the workload the pass watches */
  PERF__ROUTE_DEVICES = 8 /* devices a DEVICE wait can name */
};

/* What the pass found and decided for one workload. */
typedef struct perf__streamcheck_routing {
  perf__streamorder_route route;   /* NOTHING, STREAM, DEVICE, or REFUSE (the clock
                          cannot time it: refusal says why) */
  int checked;         /* 0: CUPTI could not look (why_not says why) */
  int undeclared;      /* work went to streams other than the clock's */
  int devices[PERF__ROUTE_DEVICES]; /* DEVICE: the devices to wait for */
  int ndevices;        /* 0: the current device; -1: every device */
  double pass_s;       /* the pass's wall time (the check's cost) */
  char why_not[300];   /* checked == 0: why */
  char found[700];     /* DEVICE: the work that made it so, or "" */
  char summary[500];   /* every stream that got work, "none", or "" when
                          there was no CUDA context to look in */
  char refusal[1400];  /* REFUSE: the workload, the work, its stream and
                          call site, the declared stream, and the fix */
  char failed[600];    /* the first runtime call in the watched calls that
                          failed, on any thread, with nobody taking its
                          error: "cudaMemsetAsync failed at t.c:12 (fn):
                          invalid argument (cudaErrorInvalidValue)"; "" */
} perf__streamcheck_routing;

/* Decides how w's clock (resolved, never AUTO) must wait for the GPU work
 * w queues, into *out. Without a CUDA context in the process nothing can
 * have been queued: NOTHING, at no cost. Otherwise w runs
 * PERF__ROUTE_CALLS times with CUPTI callbacks on the driver API, untimed,
 * then CUPTI is detached and the stream-order model decides
 * (perf__streamorder_decide); REFUSE comes with its message in out->refusal.
 * The pass also follows each runtime call's result (out->failed).
 * When CUPTI cannot attach (checked = 0): the GPU clocks trust the
 * declared stream, the wall and submit clocks wait for every device. Then
 * it waits for the work the calls queued. Returns 0, or the error code
 * from perf__gpu_explain (a CUDA error the workload caused, no device)
 * with why[len] saying which. w may end the test itself (an ASSERT or
 * PERF_CUDA inside it); perf__streamcheck_release then cleans up. */
int perf__streamcheck(perf_workload *w, perf_clock clock, perf__streamcheck_routing *out, char *why,
                      size_t len);

/* The trace the last pass took of w's calls (baseline/trace.h: kernels,
 * copies, memsets and host syncs per iteration, CUPTI's Activity API on
 * the same untimed calls), moved into *t (the pass keeps none): t->calls 0
 * and t->why_not saying why when there is none (CUPTI held by a profiler,
 * no GPU work looked for). Never fails. */
void perf__streamcheck_take_trace(perf__trace *t);

/* Detaches CUPTI and frees the model if a test ended inside a pass. Never
 * fails. */
void perf__streamcheck_release(void);

#endif
