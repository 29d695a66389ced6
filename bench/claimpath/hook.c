/* hook.c — -finstrument-functions hooks: each function entered and left, per process, to a log. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOI __attribute__((no_instrument_function))

static FILE *log_file;
static pid_t log_pid;

/* The log of this process, opened in $CLAIMPATH_DIR at its first event
 * (a forked worker opens its own); NULL without the variable or on an
 * open error (then nothing is logged). */
static NOI FILE *out(void)
{
  if (log_file && log_pid == getpid()) return log_file;
  const char *dir = getenv("CLAIMPATH_DIR");
  char path[512];
  if (!dir) return NULL;
  log_pid = getpid();
  snprintf(path, sizeof path, "%s/%d.log", dir, (int)log_pid);
  log_file = fopen(path, "w");
  if (log_file) setvbuf(log_file, NULL, _IOLBF, 0); /* a worker leaves by _exit */
  return log_file;
}

void __cyg_profile_func_enter(void *fn, void *site) NOI;
void __cyg_profile_func_exit(void *fn, void *site) NOI;

/* Never fails. */
void __cyg_profile_func_enter(void *fn, void *site)
{
  FILE *f = out();
  (void)site;
  if (f) fprintf(f, "> %p\n", fn);
}

/* Never fails. */
void __cyg_profile_func_exit(void *fn, void *site)
{
  FILE *f = out();
  (void)site;
  if (f) fprintf(f, "< %p\n", fn);
}
