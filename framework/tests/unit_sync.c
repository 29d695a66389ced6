/* unit_sync.c — host-sync classification on synthetic calls, call-site frame choice and file:line. */
#define _GNU_SOURCE /* dladdr */
#include <cupti_driver_cbid.h>
#include <dlfcn.h>
#include <cupti_runtime_cbid.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/srcline.h"
#include "worker/callsite.h"
#include "selftest.h"
#include "worker/synctable.h"

static perf__sync_rule rule_of(int domain, unsigned cbid)
{
  const perf__sync_entry *e = perf__synctable_lookup(domain, cbid);
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
  const perf__sync_entry *t = perf__synctable_table(&n);
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
    perf__sync_rule rule;
    perf__mem dst, src;
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

ST_TEST(call_site_is_the_first_exe_frame_after_the_libraries)
{
  /* callback (exe), CUPTI, cudart, user (exe), framework (exe), libc */
  int a[] = {1, 0, 0, 1, 1, 0};
  ST_EQ(perf__callsite_pick(a, 6), 3);
  int b[] = {1, 1, 0, 0, 0, 1}; /* inlined callback frames, then a library */
  ST_EQ(perf__callsite_pick(b, 6), 5);
  int c[] = {1, 1, 1}; /* never left the executable */
  ST_EQ(perf__callsite_pick(c, 3), -1);
  int d[] = {0, 0};
  ST_EQ(perf__callsite_pick(d, 2), -1);
  ST_EQ(perf__callsite_pick(d, 0), -1);
}

__attribute__((noinline)) static void *return_address(void)
{
  return __builtin_return_address(0);
}

ST_TEST(call_sites_resolve_to_file_and_line)
{
  void *pc[2];
  pc[0] = (char *)return_address() - 1; int line = __LINE__;
  pc[1] = NULL;
  char where[2][256];
  int lines[2];
  perf__callsite_resolve(pc, 2, where, lines);
  ST_CHECKF(strstr(where[0], "framework/tests/unit_sync.c:") == where[0], "%s", where[0]);
  ST_EQ(lines[0], line);
  ST_CHECKF(strstr(where[0], "call_sites_resolve") != NULL, "%s", where[0]); /* the function */
  ST_CHECK(!strcmp(where[1], "unknown call site"));
  char again[2][256]; /* from the kept answer, the same */
  perf__callsite_resolve(pc, 2, again, lines);
  ST_CHECKF(!strcmp(again[0], where[0]) && lines[0] == line, "%s", again[0]);
  perf__srcline_stop(); /* the harness leaves by _exit: no atexit to reap it */
}

/* The addr2line server: one per process, a forked child starts its own;
 * without addr2line, or with a file it cannot read, asking fails (the
 * caller falls back) and is not retried until the server is stopped. */
ST_TEST(source_lines_from_one_addr2line_server)
{
  char exe[4096], fn[256], loc[1024];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  ST_CHECK(n > 0);
  exe[n > 0 ? n : 0] = '\0';
  Dl_info info;
  ST_CHECK(dladdr((void *)return_address, &info) && info.dli_fbase);
  unsigned long at = (unsigned long)((char *)return_address() - 1) - (unsigned long)info.dli_fbase;
  perf__srcline_stop();
  ST_EQ(perf__srcline_ask(exe, at, fn, sizeof fn, loc, sizeof loc), 0);
  ST_CHECKF(strstr(loc, "unit_sync.c:") && strstr(fn, "source_lines_from"), "%s %s", fn, loc);
  pid_t child = fork();
  if (child == 0) { /* its own server, at a fresh address (none kept) */
    char f2[256], l2[1024];
    int ok = !perf__srcline_ask(exe, at + 1, f2, sizeof f2, l2, sizeof l2) &&
             strstr(l2, "unit_sync.c:");
    perf__srcline_stop();
    _exit(ok ? 0 : 1);
  }
  int status = -1;
  ST_CHECK(child > 0 && waitpid(child, &status, 0) == child);
  ST_CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
  ST_EQ(perf__srcline_ask(exe, at + 2, fn, sizeof fn, loc, sizeof loc), 0); /* still serving */

  perf__srcline_stop();
  ST_EQ(perf__srcline_ask("/nonexistent/perfgate-exe", at, fn, sizeof fn, loc, sizeof loc), -1);
  ST_EQ(perf__srcline_ask(exe, at, fn, sizeof fn, loc, sizeof loc), -1); /* broken: not retried */
  perf__srcline_stop();
  char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
  setenv("PATH", "/nonexistent", 1);
  ST_EQ(perf__srcline_ask(exe, at, fn, sizeof fn, loc, sizeof loc), -1);
  if (path) setenv("PATH", path, 1);
  free(path);
  perf__srcline_stop();
  ST_EQ(perf__srcline_ask(exe, at, fn, sizeof fn, loc, sizeof loc), 0);
  perf__srcline_stop();
}

/* (rule, dst, src) -> when the host waits, for the stream-order model. */
ST_TEST(sync_host_waits_from_pointer_kinds)
{
  static const struct {
    perf__sync_rule rule;
    perf__mem dst, src;
    perf__host_wait wait;
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
    ST_CHECKF(perf__synctable_host_wait(cases[i].rule, cases[i].dst, cases[i].src) == cases[i].wait,
              "case %zu", i);
}
