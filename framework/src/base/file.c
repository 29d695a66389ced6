/* file.c — the one file writer: a regular file is replaced atomically (temporary, fsync, rename); a device, FIFO or /proc/self/fd path is written in place; a symlink is followed. */
#define _GNU_SOURCE
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Tells that opening failed for a reason errno does not name. Returns
 * PERF__EIO. */
static int refused(const perf__file_why *why, const char *what)
{
  if (why->step) *why->step = PERF__FILE_CREATE;
  snprintf(why->err, why->errlen, "%s", what);
  return PERF__EIO;
}

/* 1 when path reaches its file through /proc/<pid>/fd (a process's own
 * descriptor: /dev/stdout, /dev/fd/1, /proc/self/fd/1): such a path is
 * written in place, whatever it resolves to. */
static int through_proc_fd(const char *path)
{
  char link[4096];
  if (!strncmp(path, "/proc/", 6) || !strncmp(path, "/dev/fd/", 8)) return 1;
  ssize_t n = readlink(path, link, sizeof link - 1);
  if (n <= 0) return 0;
  link[n] = '\0';
  return !strncmp(link, "/proc/", 6) || !strncmp(link, "/dev/fd/", 8);
}

/* The descriptor of this process that path names (/proc/self/fd/N,
 * /proc/<this pid>/fd/N, /dev/fd/N, or a link to one, as /dev/stdout is),
 * or -1. Such a path is written through that descriptor, so that it shares
 * the offset our own output to it uses. */
static int own_fd(const char *path)
{
  char link[4096], self[64];
  const char *names[2] = {path, NULL};
  ssize_t n = readlink(path, link, sizeof link - 1);
  if (n > 0) link[n] = '\0', names[1] = link;
  snprintf(self, sizeof self, "/proc/%ld/fd/", (long)getpid());
  for (int i = 0; i < 2 && names[i]; i++) {
    const char *p = names[i], *rest = NULL;
    if (!strncmp(p, "/proc/self/fd/", 14)) rest = p + 14;
    else if (!strncmp(p, "/dev/fd/", 8)) rest = p + 8;
    else if (!strncmp(p, self, strlen(self))) rest = p + strlen(self);
    char *end;
    long fd = rest ? strtol(rest, &end, 10) : -1;
    if (rest && end != rest && !*end && fd >= 0 && fd < 1 << 20) return (int)fd;
  }
  return -1;
}

/* Writes through a copy of this process's descriptor fd, after flushing
 * every stream (so that what stdout holds comes first). Returns 0 or
 * PERF__EIO. */
static int open_own(perf__file *w, int fd, const perf__file_why *why)
{
  fflush(NULL);
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0) return failed(why, PERF__FILE_CREATE, errno);
  if (!(w->f = fdopen(copy, "w"))) {
    int e = errno;
    (void)close(copy);
    return failed(why, PERF__FILE_CREATE, e);
  }
  w->in_place = 1;
  return 0;
}

/* Opens path itself for writing: a device, FIFO, socket or descriptor
 * path. A FIFO no process reads is refused at once (O_NONBLOCK), not
 * waited for; the descriptor then blocks as usual. Returns 0 or PERF__EIO. */
static int open_in_place(perf__file *w, int regular, const perf__file_why *why)
{
  int fd = open(w->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | (regular ? O_APPEND : 0));
  if (fd < 0 && errno == ENXIO)
    return refused(why, "it is a FIFO that no process is reading");
  if (fd < 0) return failed(why, PERF__FILE_CREATE, errno);
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 || !(w->f = fdopen(fd, "w"))) {
    int e = errno;
    (void)close(fd);
    return failed(why, PERF__FILE_CREATE, e);
  }
  w->in_place = 1;
  return 0;
}

/* Decides how path is written: sets w->target (what a replacement renames
 * over) or opens path in place. Returns 0 with neither done for a new or
 * regular file, 1 when opened in place, or PERF__EIO. */
static int resolve(perf__file *w, const perf__file_why *why)
{
  struct stat st, lst;
  snprintf(w->target, sizeof w->target, "%s", w->path);
  int fd = own_fd(w->path);
  if (fd >= 0) return open_own(w, fd, why) ? PERF__EIO : 1;
  if (through_proc_fd(w->path)) { /* another process's descriptor */
    int regular = stat(w->path, &st) == 0 && S_ISREG(st.st_mode);
    return open_in_place(w, regular, why) ? PERF__EIO : 1;
  }
  if (stat(w->path, &st) != 0) {
    if (errno == ENOENT && lstat(w->path, &lst) == 0 && S_ISLNK(lst.st_mode))
      return refused(why, "it is a symbolic link to a file that does not exist");
    return 0; /* a new file (or one the temporary's creation will explain) */
  }
  if (S_ISDIR(st.st_mode)) return refused(why, strerror(EISDIR));
  if (!S_ISREG(st.st_mode)) return open_in_place(w, 0, why) ? PERF__EIO : 1;
  if (lstat(w->path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
    char *real = realpath(w->path, NULL);
    if (!real) return failed(why, PERF__FILE_CREATE, errno);
    snprintf(w->target, sizeof w->target, "%s", real);
    free(real);
  }
  return 0;
}

/* See file.h. */
int perf__file_open(perf__file *w, const char *path, int flags, const perf__file_why *why)
{
  int durable = flags & PERF__FILE_DURABLE;
  *w = (perf__file){.path = path, .flags = flags};
  if (why->step) *why->step = PERF__FILE_DONE;
  int how = resolve(w, why);
  if (how) return how == 1 ? 0 : how;
  perf__file_tmp_name(w->target, w->tmp, sizeof w->tmp);
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
  /* a device or FIFO may not support fsync: an in-place write ends at close */
  int bad = (len && fwrite(data, 1, len, f) != len) || fflush(f) ||
            (!w->in_place && fsync(fileno(f)));
  int e = errno, r = 0;
  if (fclose(f) && !bad) bad = 1, e = errno;
  if (bad) r = failed(why, PERF__FILE_WRITE, e);
  else if (!w->in_place && rename(w->tmp, w->target)) r = failed(why, PERF__FILE_RENAME, errno);
  if (r && !w->in_place) remove_tmp(w);
  else if (!r && !w->in_place && (w->flags & PERF__FILE_DURABLE)) sync_dir(w->target);
  return r;
}

/* See file.h. */
void perf__file_abort(perf__file *w)
{
  if (w->f) (void)fclose(w->f); /* its bytes are dropped: a failed close changes nothing */
  w->f = NULL;
  if (!w->in_place) remove_tmp(w);
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
