/* streamops.h — the driver calls a routing pass follows: which queue work, record or wait. */
#ifndef PERF_STREAMOPS_H
#define PERF_STREAMOPS_H

#include <cupti.h>

#include "worker/streams/streamorder.h"

/* Every runtime call that touches a stream ends in one of these driver
 * calls (so do libraries such as cuBLAS), so the driver API alone is
 * watched. A call with no stream parameter uses the default stream: the
 * legacy one, or the per-thread one for the _ptds/_ptsz entry points. */

typedef enum perf__streamops_kind {
  PERF__STREAMOPS_WORK,        /* queues work on its stream */
  PERF__STREAMOPS_RECORD,      /* records hEvent on its stream */
  PERF__STREAMOPS_WAIT,        /* its stream waits for hEvent */
  PERF__STREAMOPS_HOST_STREAM, /* the host waits for its stream */
  PERF__STREAMOPS_HOST_EVENT,  /* the host waits for hEvent */
  PERF__STREAMOPS_HOST_CTX     /* the host waits for its context */
} perf__streamops_kind;

enum {
  PERF__STREAMOPS_DEFAULT_STREAM = -1,
  PERF__STREAMOPS_LAUNCH_CONFIG = -2,
  PERF__STREAMOPS_NO_EVENT = -1
};

typedef struct perf__streamops_op {
  CUpti_CallbackId cbid;
  perf__streamops_kind kind;
  perf__streamorder_work_kind work;
  int stream;   /* offset of the CUstream parameter, PERF__STREAMOPS_DEFAULT_STREAM, or
                   PERF__STREAMOPS_LAUNCH_CONFIG (in the CUlaunchConfig the first one points to) */
  int event;    /* offset of the CUevent parameter, or PERF__STREAMOPS_NO_EVENT */
  int per_thread; /* a NULL stream is the per-thread default stream */
} perf__streamops_op;

/* The call id's row; NULL for a call that neither queues, records nor
 * waits. Never fails. */
const perf__streamops_op *perf__streamops_lookup(CUpti_CallbackId id);

/* 1 for a driver call the table does not list that may queue work: one
 * named ...Async or cuLaunch... (external semaphores, batched
 * decompression, multi-device launches): the model cannot place it; 0 for
 * NULL or any other. Never fails. */
int perf__streamops_unfollowed(const char *name);

#endif
