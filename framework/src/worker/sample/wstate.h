/* wstate.h — everything measured about a workload in the running test: its state. */
#ifndef PERF_WSTATE_H
#define PERF_WSTATE_H

#include <cuda_runtime_api.h>

#include "perfgate.h"
#include "worker/sample/retake.h"
#include "worker/streams/streamcheck.h"

/* Everything measured about a workload in the running test. */
struct perf__wstate {
  perf_clock clock;       /* resolved: never AUTO */
  int uses_gpu;           /* declared a stream or a GPU clock, or found to
                             queue GPU work */
  int routed;             /* route is known (after the first call) */
  perf__streamcheck_routing route;    /* where its GPU work goes, how the clock waits */
  perf__trace trace;      /* what the GPU did in the routing pass's calls */
  double link_down, link_up; /* its traced copies' bytes per iteration to
                                the device and to the host */
  cudaEvent_t ev[2];      /* events, device and cold clocks */
  long batch;             /* iterations per sample */
  long max_batch;         /* largest batch allowed (device clock: learned) */
  double target_s;        /* wanted duration of one sample */
  double floor_s;         /* floor of the clock used */
  double cold_s;          /* first call, timed alone (seconds, same clock;
                             device, cold: events, not held) */
  int first_call;         /* the first call is being timed */
  int warm_samples;       /* warm-up samples taken */
  int settled;            /* warm-up met the settling rule */
  double warm_s;          /* per-iteration time at the end of warm-up */
  int submit_capped;      /* the batch stopped growing at submit_paid */
  double cost_s;          /* host clock: the last sample's whole wall time,
                             the wait for the device included (the submit
                             clock measures less than the budget pays) */
  perf__retake rt;        /* samples discarded and kept despite disturbance */
  int watched;            /* the GPU watch (NVML) reads each sample */
  unsigned last_mhz;      /* SM clock after the last kept sample; 0 unknown */
  unsigned long long throttle_seen; /* throttle reasons seen, all samples */
  long shared_n;          /* samples (perf__workload_samples) or rounds (a
                             claim) of its last measurement that another
                             process shared the GPU with (cotenant.h) */
  double shared_from;     /* when that measurement began (perf__clock_now) */
  const char *shared_of;  /* what shared_n counts: "sample" or "round" */
  long blocked;           /* device clock: batches that could not be queued */
  size_t flush_bytes;     /* cold clock: bytes written to flush L2 */
  double queue_share;     /* events clock, last sample: the host's time to queue
                             the batch over the batch's events time (near 1 or
                             above: launch-bound, the events time is the host's
                             pace); 0 unknown */
  struct perf__wstate *next;
};

#endif
