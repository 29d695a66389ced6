/* hostnoise.h — host noise in a claim: kept out of the decision, its cause on the verdict line. */
/* Also perf_host_threads(), and the host's load read before and after
 * sampling. */
#ifndef PERF_HOSTNOISE_H
#define PERF_HOSTNOISE_H

#include <stddef.h>

#include "host/hostload.h"
#include "perfgate.h"
#include "worker/sample/retake.h"
#include "worker/claim/verdict.h"

/* The host's load before a claim's sampling (this process). Never fails. */
void perf__hostnoise_begin(perf__hostload *before);

/* Seconds this process spent reading the host's load for claims (the
 * check's cost, host clock). Never fails. */
double perf__hostnoise_cost(void);

/* 1 when the clock's samples include host time (events, wall, submit):
 * a preempted sample of such a clock measured the preemption too. */
int perf__hostnoise_host_timed(perf_clock clock);

/* After a claim's sampling, given the load before it and d, the claim's
 * own retake counts: a PASS or FAIL whose kept samples include ones the
 * host preempted on every retake (d->kept_disturbed) on a host-timed clock
 * becomes INCONCLUSIVE; an INCONCLUSIVE claim whose samples the host
 * disturbed, or with a host cause seen, gets "; the host: CAUSE" appended
 * to buf[len] (after what is there). Never fails (truncates). */
void perf__hostnoise_judge(const perf__hostload *before, perf_clock clock,
                           const perf__retake *d, perf__verdict_result *r, char *buf,
                           size_t len);

/* The host's interference since before (a snapshot perf__hostnoise_begin
 * took before a measurement): 1 with its cause into buf[len] when
 * perf__hostcause_name names one (an absolute comparison, such as a
 * baseline check, cannot cancel it as ABBA rounds do); 0 otherwise (buf
 * then holds "no host cause seen: ..."). Never fails (truncates). */
int perf__hostnoise_cause_since(const perf__hostload *before, char *buf, size_t len);

#endif
