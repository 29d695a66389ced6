/* file.c — the one atomic file writer: a temporary file in the same directory, fsync, rename over the target. */
#define _GNU_SOURCE
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/status.h"

/* See file.h. */
char *perf__file_tmp_name(const char *path, char *buf, size_t len)
{
  snprintf(buf, len, "%s.tmp.%ld", path, (long)getpid());
  return buf;
}

/* Tells that step s failed with errno e (EIO when e is 0). Returns
 * PERF__EIO. */
static int failed(const perf__file_why *why, perf__file_step s, int e)
{
  if (why->step) *why->step = s;
  snprintf(why->err, why->errlen, "%s", strerror(e ? e : EIO));
  return PERF__EIO;
}

/* Removes the temporary file after a failure. Never fails (one that cannot
 * be removed is a warning on stderr). */
static void remove_tmp(const perf__file *w)
{
  if (unlink(w->tmp) && errno != ENOENT)
    fprintf(stderr, "perftest: warning: cannot remove the temporary file %s: %s\n", w->tmp,
            strerror(errno));
}

/* See file.h. */
int perf__file_open(perf__file *w, const char *path, int flags, const perf__file_why *why)
{
  int durable = flags & PERF__FILE_DURABLE;
  *w = (perf__file){.path = path, .flags = flags};
  if (why->step) *why->step = PERF__FILE_DONE;
  perf__file_tmp_name(path, w->tmp, sizeof w->tmp);
  int fd = open(w->tmp, O_WRONLY | O_CREAT | O_CLOEXEC | (durable ? O_EXCL : O_TRUNC),
                durable ? 0644 : 0666);
  if (fd >= 0 && (w->f = fdopen(fd, "w"))) return 0;
  int e = errno;
  if (fd >= 0) { /* created, but no stream: not kept */
    (void)close(fd);
    remove_tmp(w);
  }
  return failed(why, PERF__FILE_CREATE, e);
}

/* fsync of the directory holding path, so that the rename is durable.
 * The file is in place either way: a failure is a warning on stderr. */
static void sync_dir(const char *path)
{
  char copy[4096], dir[4096];
  snprintf(copy, sizeof copy, "%s", path);
  snprintf(dir, sizeof dir, "%s", dirname(copy));
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || fsync(fd))
    fprintf(stderr, "perftest: warning: %s was replaced, but fsync of %s failed (%s): "
                    "a power loss now could undo the rename\n", path, dir, strerror(errno));
  if (fd >= 0) close(fd);
}

/* See file.h. */
int perf__file_commit(perf__file *w, const void *data, size_t len, const perf__file_why *why)
{
  FILE *f = w->f;
  w->f = NULL;
  errno = 0;
  int bad = (len && fwrite(data, 1, len, f) != len) || fflush(f) || fsync(fileno(f));
  int e = errno, r = 0;
  if (fclose(f) && !bad) bad = 1, e = errno;
  if (bad) r = failed(why, PERF__FILE_WRITE, e);
  else if (rename(w->tmp, w->path)) r = failed(why, PERF__FILE_RENAME, errno);
  if (r) remove_tmp(w);
  else if (w->flags & PERF__FILE_DURABLE) sync_dir(w->path);
  return r;
}

/* See file.h. */
void perf__file_abort(perf__file *w)
{
  if (w->f) (void)fclose(w->f); /* its bytes are dropped: a failed close changes nothing */
  w->f = NULL;
  remove_tmp(w);
}

/* See file.h. */
int perf__file_replace(const char *path, const void *data, size_t len, int flags,
                       perf__file_step *step, char *err, size_t errlen)
{
  perf__file w;
  perf__file_why why = {step, err, errlen};
  int r = perf__file_open(&w, path, flags, &why);
  return r ? r : perf__file_commit(&w, data, len, &why);
}
