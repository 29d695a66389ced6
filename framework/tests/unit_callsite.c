/* unit_callsite.c — a call's site: the first executable frame after the libraries, as file:line. */
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

#include "worker/sync/srcline.h"
#include "worker/sync/callsite.h"
#include "selftest.h"

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
  ST_CHECKF(strstr(where[0], "framework/tests/unit_callsite.c:") == where[0], "%s", where[0]);
  ST_EQ(lines[0], line);
  ST_CHECKF(strstr(where[0], "call_sites_resolve") != NULL, "%s", where[0]); /* the function */
  ST_CHECK(!strcmp(where[1], "unknown call site"));
  char again[2][256]; /* from the kept answer, the same */
  perf__callsite_resolve(pc, 2, again, lines);
  ST_CHECKF(!strcmp(again[0], where[0]) && lines[0] == line, "%s", again[0]);
  perf__srcline_stop(); /* the harness leaves by _exit: no atexit to reap it */
}
