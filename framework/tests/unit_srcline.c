/* unit_srcline.c — source lines from one addr2line server per process. */
/* A forked child starts its own; an odd or missing addr2line fails without
 * hanging. */
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
#include "selftest.h"

/* The address this function returns to: a line of this file. */
__attribute__((noinline)) static void *return_address(void)
{
  return __builtin_return_address(0);
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
  ST_CHECKF(strstr(loc, "unit_srcline.c:") && strstr(fn, "source_lines_from"), "%s %s", fn, loc);
  pid_t child = fork();
  if (child == 0) { /* its own server, at a fresh address (none kept) */
    char f2[256], l2[1024];
    int ok = !perf__srcline_ask(exe, at + 1, f2, sizeof f2, l2, sizeof l2) &&
             strstr(l2, "unit_srcline.c:");
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
