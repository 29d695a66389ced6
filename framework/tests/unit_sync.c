/* unit_sync.c — host-sync classification on synthetic calls, call-site frame choice and file:line. */
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

/* A stand-in addr2line in dir, written from body (a shell loop over the
 * addresses it reads); PATH is pointed at it. Returns the old PATH (to
 * free), NULL when it could not be written. */
static char *fake_addr2line(const char *dir, const char *body)
{
  char path[300];
  snprintf(path, sizeof path, "%s/addr2line", dir);
  FILE *f = fopen(path, "w");
  if (!f) return NULL;
  fprintf(f, "#!/bin/sh\nwhile read a; do %s; done\n", body);
  fclose(f);
  chmod(path, 0700);
  char *old = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
  char now[4400];
  snprintf(now, sizeof now, "%s:%s", dir, old);
  setenv("PATH", now, 1);
  return old;
}

static void *ask_slowly(void *exe)
{
  char fn[64], loc[64];
  perf__srcline_ask(exe, 0x40, fn, sizeof fn, loc, sizeof loc);
  return NULL;
}

/* What addr2line says is checked: an answer for another address (a line
 * too many) stops the server rather than being kept under the wrong
 * address; a name longer than the buffer is cut, not fatal; a child forked
 * while another thread waits for an answer starts unlocked. */
ST_TEST(source_lines_survive_an_odd_addr2line)
{
  char dir[] = "/tmp/perfgate-a2l-XXXXXX", fn[256], loc[1024];
  ST_CHECK(mkdtemp(dir) != NULL);
  perf__srcline_stop();
  char *path = fake_addr2line(dir, "echo \"$a\"; echo fn_$a; echo f.c:12; echo EXTRA");
  ST_CHECK(path != NULL);
  ST_EQ(perf__srcline_ask("/x", 0x10, fn, sizeof fn, loc, sizeof loc), 0);
  ST_STR(fn, "fn_0x10");
  ST_STR(loc, "f.c:12");
  ST_EQ(perf__srcline_ask("/x", 0x20, fn, sizeof fn, loc, sizeof loc), -1); /* "EXTRA" is no 0x20 */
  ST_EQ(perf__srcline_ask("/x", 0x10, fn, sizeof fn, loc, sizeof loc), 0); /* kept before */
  perf__srcline_stop();
  setenv("PATH", path, 1);
  free(path);
  path = fake_addr2line(dir, "echo \"$a\"; printf '%09000d\\n' 7; echo f.c:3");
  ST_EQ(perf__srcline_ask("/x", 0x30, fn, sizeof fn, loc, sizeof loc), 0);
  ST_EQ(strlen(fn), sizeof fn - 1);
  ST_STR(loc, "f.c:3");
  ST_EQ(perf__srcline_ask("/x", 0x31, fn, sizeof fn, loc, sizeof loc), 0); /* still serving */
  perf__srcline_stop();
  setenv("PATH", path, 1);
  free(path);
  path = fake_addr2line(dir, "sleep 1; echo \"$a\"; echo fn; echo f.c:1");
  pthread_t t;
  ST_EQ(pthread_create(&t, NULL, ask_slowly, "/x"), 0);
  struct timespec pause = {0, 200000000};
  nanosleep(&pause, NULL); /* the thread now waits for its answer, holding the lock */
  pid_t child = fork();
  if (child == 0) {
    perf__srcline_stop();
    _exit(0);
  }
  int status = -1, waited = 0;
  while (waited < 100 && waitpid(child, &status, WNOHANG) == 0) nanosleep(&pause, NULL), waited++;
  if (waited == 100) kill(child, SIGKILL), waitpid(child, &status, 0);
  ST_CHECKF(waited < 100 && WIFEXITED(status), "the child hung (%d)", status);
  pthread_join(t, NULL);
  perf__srcline_stop();
  setenv("PATH", path, 1);
  free(path);
  st_rmtree(dir);
}

/* (rule, dst, src) -> when the host waits, for the stream-order model. */
ST_TEST(sync_host_waits_from_pointer_kinds)
{
  static const struct {
    perf__sync_rule rule;
    perf__synctable_mem dst, src;
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
