/* cupti.h — the process's one CUPTI subscriber, attached only for an untimed pass. */
/* A handler on the runtime and driver APIs, detached after the pass. */
#ifndef PERF_CUPTI_H
#define PERF_CUPTI_H

#include <cupti.h>
#include <stddef.h>

/* CUPTI allows one subscriber per process. A pass over code (a sync check, a
 * search for a workload's GPU work) attaches its handler, runs the code and
 * detaches: cuptiUnsubscribe, then cuptiFinalize, so that no timing ever
 * runs with CUPTI in the process. Calls the framework itself makes to the
 * driver while a handler is attached (pointer and stream queries) are made
 * between perf__cupti_quiet_begin and _end and never reach the handler. */
typedef void perf__cupti_fn(CUpti_CallbackDomain dom, CUpti_CallbackId id,
                               const CUpti_CallbackData *cd);

/* Subscribes fn to every runtime and driver API call. Returns 0, or
 * PERF__EIO with the reason in why[len] (another tool, such as a profiler,
 * holding CUPTI; a pass already attached); nothing stays attached then. */
int perf__cupti_attach(perf__cupti_fn *fn, char *why, size_t len);

/* Brings CUPTI into the process for a pass that needs no callback (a work
 * count, workcount.h): subscribes with no domain enabled. CUPTI's range
 * profiler cannot be set up in a process a pass has finalized CUPTI in
 * (the H200, CUPTI 13.0: CUPTI_ERROR_NOT_INITIALIZED) unless a
 * subscription brings it back, and a launch costs 20 % more after a
 * count until CUPTI is finalized. Returns 0, or PERF__EIO as
 * perf__cupti_attach; perf__cupti_detach ends it. */
int perf__cupti_hold(char *why, size_t len);

/* Unsubscribes and detaches CUPTI from the process. Never fails; does
 * nothing when not attached. */
void perf__cupti_detach(void);

/* 1 while a handler is attached. */
int perf__cupti_attached(void);

/* Inside a handler: the innermost runtime call in progress on this thread
 * (the one a driver call is part of), its name, and its callback id in
 * *cbid (unless cbid is NULL); NULL when the driver was called directly.
 * Never fails. */
const char *perf__cupti_runtime_call(CUpti_CallbackId *cbid);

/* Brackets the framework's own driver calls made inside a handler; they
 * nest. Never fail. */
void perf__cupti_quiet_begin(void);
void perf__cupti_quiet_end(void);

#endif
