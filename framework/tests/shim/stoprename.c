/* stoprename.c — an LD_PRELOAD shim that stops the process at a rename, so a test can kill it. */
/* Only a rename into a .yaml name stops it (SIGSTOP), just before or just
 * after. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* PERF_STOP_AT_RENAME=before: the process stops with the new file complete
 * under its temporary name and the old one still in place; =after: with
 * the new one in place. Other renames, and every rename without the
 * variable, are the C library's. */
int rename(const char *from, const char *to)
{
  static int (*real)(const char *, const char *);
  if (!real) real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  if (!real) return errno = ENOSYS, -1;
  const char *when = getenv("PERF_STOP_AT_RENAME");
  size_t n = strlen(to);
  int ours = when && n > 5 && !strcmp(to + n - 5, ".yaml");
  if (ours && !strcmp(when, "before")) raise(SIGSTOP);
  int rc = real(from, to);
  int saved = errno;
  if (ours && !strcmp(when, "after")) raise(SIGSTOP);
  errno = saved;
  return rc;
}
