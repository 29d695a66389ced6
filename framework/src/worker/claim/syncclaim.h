/* syncclaim.h — the sync checks (entry points in perfgate.h): host syncs counted, then decided. */
#ifndef PERF_SYNCCLAIM_H
#define PERF_SYNCCLAIM_H

/* PERF_NO_SYNC_IN (a workload, or a region run once) and
 * PERF_EXPECT_SYNCS(_AT_LEAST) are a claim kind (claim.h): its measure
 * takes the count from the untimed pass (worker/sync/syncdetect.h) and
 * decides on it, or is skipped where CUPTI cannot attach and
 * --allow-no-sync-check allows it; its record carries the count, from
 * which the verdict line is rendered (record/verdictline.h); its print
 * names each sync's call site. A check is never taken from a first
 * attempt: it is counted again. Its entry points, perf__expect_syncs,
 * perf__sync_open and perf__sync_step, are declared in perfgate.h. */

#endif
