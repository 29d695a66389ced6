/* tracerun.c — the trace a real run records: what CUPTI callbacks add to the Activity records. */
/* The callbacks are the routing pass's. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

/* cudaFree makes the host wait for the device: the workload's trace lists
 * it as a host sync ("implicit: releasing memory") at its call site, so
 * that a free added to a loop is explained as a new sync. Skipped, saying
 * so, without a GPU. */
ST_TEST(tracerun_a_free_is_a_host_sync_at_its_line)
{
  char dir[] = "/tmp/perfgate-tracerun-XXXXXX", args[400], path[300];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(args, sizeof args, "--filter=tracefx.free_waits_for_the_device --json=%s/r.json", dir);
  st_run r;
  st_exec(&r, "", args);
  if (!st_have_gpu()) {
    st_expect(&r, "tracefx.free_waits_for_the_device", "SKIP", "skipped: no CUDA device (");
  } else {
    ST_CHECKF(r.status == 0 || r.status == 1, "%s", r.out);
    snprintf(path, sizeof path, "%s/r.json", dir);
    char *json = st_slurp(path);
    /* the free's own item: its site's function and count before its '}' */
    const char *item = json ? strstr(json, "{\"kind\": \"sync\", \"name\": \"cudaFree\", \"shape\": "
                                           "\"implicit: releasing memory\", \"where\": "
                                           "\"framework/tests/fixtures/cuda.c:") : NULL;
    const char *site = item ? strstr(item, "(alloc_fill_free)\", \"count\": 1,") : NULL;
    ST_CHECKF(item && site && site < strchr(item, '}'), "%s", json ? json : "(no report)");
    free(json);
  }
  st_run_free(&r);
  st_rmtree(dir);
}

/* A speed-of-light claim that fails says what changed in its workload's
 * GPU work since the baseline entry, as a FASTER failure does; with no
 * entry yet, that none holds an earlier trace and how to record one.
 * Skipped, saying so, without a GPU. */
ST_TEST(tracerun_failed_bandwidth_claim_says_what_changed)
{
  char dir[] = "/tmp/perfgate-tracerun-XXXXXX", args[400], line[2000];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(args, sizeof args, "--filter=solfx.understated_memset_fails_its_bandwidth "
           "--baseline-dir=%s", dir);
  st_run r;
  st_exec(&r, "", args);
  if (!st_have_gpu()) {
    st_expect(&r, "solfx.understated_memset_fails_its_bandwidth", "SKIP", "skipped: no CUDA device (");
  } else {
    st_expect(&r, "solfx.understated_memset_fails_its_bandwidth", "FAIL", "BANDWIDTH(m, 0.5)");
    ST_CHECKF(st_line_with(&r, "what changed in m's GPU work: not known: no baseline entry", NULL,
                           line, sizeof line), "%s", r.out);
  }
  st_run_free(&r);
  st_rmtree(dir);
}
