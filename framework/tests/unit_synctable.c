/* unit_synctable.c — host-sync classification of synthetic calls, decided from pointer kinds. */
#define _GNU_SOURCE /* dladdr */
#include <cupti_driver_cbid.h>
#include <dlfcn.h>
#include <cupti_runtime_cbid.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "selftest.h"
#include "worker/sync/synctable.h"

static perf__synctable_rule rule_of(int domain, unsigned cbid)
{
  const perf__synctable_entry *e = perf__synctable_lookup(domain, cbid);
  return e ? e->rule : PERF__RULE_NONE;
}

ST_TEST(sync_table_lists_blocking_calls_only)
{
  enum { R = PERF__DOMAIN_RUNTIME, D = PERF__DOMAIN_DRIVER };
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020), PERF__RULE_ALWAYS);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020), PERF__RULE_ALWAYS);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020), PERF__RULE_ALWAYS);
  ST_EQ(rule_of(D, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2), PERF__RULE_ALWAYS);
  ST_EQ(rule_of(D, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize), PERF__RULE_ALWAYS);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020), PERF__RULE_COPY);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020), PERF__RULE_COPY_ASYNC);
  ST_EQ(rule_of(D, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2), PERF__RULE_COPY_ASYNC);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020), PERF__RULE_MEMSET);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020), PERF__RULE_FREE);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000), PERF__RULE_FREE);
  ST_EQ(rule_of(D, CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost), PERF__RULE_FREE);
  /* never host syncs */
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020), PERF__RULE_NONE);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020), PERF__RULE_NONE);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000), PERF__RULE_NONE);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020), PERF__RULE_NONE);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020), PERF__RULE_NONE);
  ST_EQ(rule_of(R, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000), PERF__RULE_NONE);
  ST_EQ(rule_of(D, CUPTI_DRIVER_TRACE_CBID_cuStreamQuery), PERF__RULE_NONE);
  ST_EQ(rule_of(D, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel), PERF__RULE_NONE);
  /* each (domain, id) once, each with a name */
  size_t n, dup = 0, unnamed = 0;
  const perf__synctable_entry *t = perf__synctable_table(&n);
  for (size_t i = 0; i < n; i++) {
    unnamed += !t[i].name || !t[i].name[0];
    for (size_t j = i + 1; j < n; j++)
      dup += t[i].domain == t[j].domain && t[i].cbid == t[j].cbid;
  }
  ST_EQ(dup, 0);
  ST_EQ(unnamed, 0);
}

/* (rule, dst, src) -> blocks?, with a word the description must hold. */
ST_TEST(sync_decisions_from_pointer_kinds)
{
  static const struct {
    perf__synctable_rule rule;
    perf__synctable_mem dst, src;
    int sync;
    const char *says;
  } cases[] = {
      {PERF__RULE_ALWAYS, PERF__MEM_NONE, PERF__MEM_NONE, 1, "explicit"},
      {PERF__RULE_COPY, PERF__MEM_PAGEABLE, PERF__MEM_DEVICE, 1, "device\u2192host"},
      {PERF__RULE_COPY, PERF__MEM_DEVICE, PERF__MEM_PINNED, 1, "host\u2192device"},
      {PERF__RULE_COPY, PERF__MEM_DEVICE, PERF__MEM_DEVICE, 0, NULL},
      {PERF__RULE_COPY, PERF__MEM_MANAGED, PERF__MEM_DEVICE, 1, "synchronous"},
      {PERF__RULE_COPY_ASYNC, PERF__MEM_PAGEABLE, PERF__MEM_DEVICE, 1, "pageable"},
      {PERF__RULE_COPY_ASYNC, PERF__MEM_DEVICE, PERF__MEM_PAGEABLE, 1, "host\u2192device"},
      {PERF__RULE_COPY_ASYNC, PERF__MEM_PINNED, PERF__MEM_DEVICE, 0, NULL},
      {PERF__RULE_COPY_ASYNC, PERF__MEM_DEVICE, PERF__MEM_DEVICE, 0, NULL},
      {PERF__RULE_COPY_ASYNC, PERF__MEM_UNKNOWN, PERF__MEM_DEVICE, 1, "unrecognised"},
      {PERF__RULE_MEMSET, PERF__MEM_PINNED, PERF__MEM_DEVICE, 1, "pinned"},
      {PERF__RULE_MEMSET, PERF__MEM_MANAGED, PERF__MEM_DEVICE, 1, "managed"},
      {PERF__RULE_MEMSET, PERF__MEM_DEVICE, PERF__MEM_DEVICE, 0, NULL},
      {PERF__RULE_FREE, PERF__MEM_DEVICE, PERF__MEM_DEVICE, 1, "synchronises"},
      {PERF__RULE_FREE, PERF__MEM_NONE, PERF__MEM_DEVICE, 0, NULL}, /* free(NULL) */
      {PERF__RULE_NONE, PERF__MEM_PAGEABLE, PERF__MEM_PAGEABLE, 0, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char why[96] = "";
    int got = perf__synctable_decide(cases[i].rule, cases[i].dst, cases[i].src, why, sizeof why);
    ST_CHECKF(got == cases[i].sync && (!cases[i].says || strstr(why, cases[i].says)),
              "case %zu: got %d '%s'", i, got, why);
  }
}

/* (rule, dst, src) -> when the host waits, for the stream-order model. */
ST_TEST(sync_host_waits_from_pointer_kinds)
{
  static const struct {
    perf__synctable_rule rule;
    perf__synctable_mem dst, src;
    perf__synctable_host_wait wait;
  } cases[] = {
      {PERF__RULE_COPY, PERF__MEM_PAGEABLE, PERF__MEM_DEVICE, PERF__WAIT_AFTER}, /* D2H */
      {PERF__RULE_COPY, PERF__MEM_PINNED, PERF__MEM_DEVICE, PERF__WAIT_AFTER},
      {PERF__RULE_COPY, PERF__MEM_DEVICE, PERF__MEM_PINNED, PERF__WAIT_AFTER},  /* H2D pinned */
      {PERF__RULE_COPY, PERF__MEM_DEVICE, PERF__MEM_PAGEABLE, PERF__WAIT_BEFORE}, /* staged */
      {PERF__RULE_COPY, PERF__MEM_DEVICE, PERF__MEM_DEVICE, PERF__WAIT_NONE},   /* D2D */
      {PERF__RULE_COPY, PERF__MEM_UNKNOWN, PERF__MEM_DEVICE, PERF__WAIT_NONE},  /* not sure */
      {PERF__RULE_COPY, PERF__MEM_MANAGED, PERF__MEM_DEVICE, PERF__WAIT_NONE},  /* no promise */
      {PERF__RULE_COPY_ASYNC, PERF__MEM_PAGEABLE, PERF__MEM_DEVICE, PERF__WAIT_NONE}, /* "might" */
      {PERF__RULE_COPY_ASYNC, PERF__MEM_PINNED, PERF__MEM_DEVICE, PERF__WAIT_NONE},
      {PERF__RULE_COPY_ASYNC, PERF__MEM_DEVICE, PERF__MEM_PAGEABLE, PERF__WAIT_NONE},
      {PERF__RULE_MEMSET, PERF__MEM_PINNED, PERF__MEM_DEVICE, PERF__WAIT_AFTER},
      {PERF__RULE_MEMSET, PERF__MEM_DEVICE, PERF__MEM_DEVICE, PERF__WAIT_NONE},
      {PERF__RULE_MEMSET, PERF__MEM_MANAGED, PERF__MEM_DEVICE, PERF__WAIT_NONE},
      {PERF__RULE_FREE, PERF__MEM_DEVICE, PERF__MEM_DEVICE, PERF__WAIT_NONE}, /* pool: none */
      {PERF__RULE_FREE, PERF__MEM_NONE, PERF__MEM_DEVICE, PERF__WAIT_NONE},   /* free(NULL) */
      {PERF__RULE_ALWAYS, PERF__MEM_NONE, PERF__MEM_NONE, PERF__WAIT_NONE},   /* by name */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ST_CHECKF(perf__synctable_host_wait_of(cases[i].rule, cases[i].dst, cases[i].src) == cases[i].wait,
              "case %zu", i);
}
