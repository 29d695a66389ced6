/* file.c — the one file writer: regular files replaced atomically (temporary, fsync, rename). */
/* A device, FIFO or /proc/self/fd path is written in place; a symlink is
 * followed. */
#define _GNU_SOURCE
#include "io/file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/status.h"
#include "util/progname.h"

/* See file.h. */
char *perf__file_tmp_name(const char *path, char *buf, size_t len)
{
  snprintf(buf, len, "%s.tmp.%ld", path, (long)getpid());
  return buf;
}

/* See file.h. */
char *perf__file_dir_of(const char *path, char *buf, size_t len)
{
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", path);
  snprintf(buf, len, "%s", dirname(copy));
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
    fprintf(stderr, "%s: warning: cannot remove the temporary file %s: %s\n", perf__progname(),
            w->tmp, strerror(errno));
}

/* Tells that opening failed for a reason errno does not name. Returns
 * PERF__EIO. */
static int refused(const perf__file_why *why, const char *what)
{
  if (why->step) *why->step = PERF__FILE_CREATE;
  snprintf(why->err, why->errlen, "%s", what);
  return PERF__EIO;
}

/* The descriptor 1, 2 or 0 of this process, open for writing, that st is
 * the file of, or -1: a report to /dev/stdout, /proc/self/fd/1, a link to
 * either, or the very file stdout is redirected to, is written through
 * that descriptor, so that it shares its offset and comes after what the
 * stream holds. A descriptor open only for reading (stdin from /dev/null
 * or from the report's own file) is not one to write through: the path is
 * then written as any other. */
static int own_fd(const struct stat *st)
{
  static const int fds[] = {1, 2, 0};
  struct stat fs;
  for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
    int fd = fds[i], fl = fcntl(fd, F_GETFL);
    if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) continue;
    if (fstat(fd, &fs) == 0 && fs.st_dev == st->st_dev && fs.st_ino == st->st_ino) return fd;
  }
  return -1;
}

/* 1 when path, once its links are resolved, lies under /proc (another
 * process's descriptor, or a file there): written in place, never renamed
 * over. */
static int under_proc(const char *path)
{
  char *real = realpath(path, NULL);
  int in = real && !strncmp(real, "/proc/", 6);
  free(real);
  return in || !strncmp(path, "/proc/", 6);
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

/* The descriptor a device or FIFO is written through, as open(2) gives
 * it: never waits (a FIFO no process reads is ENXIO). */
static int open_node(const char *path)
{
  return open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
}

/* Opens path itself for writing: a device or FIFO. A FIFO no process
 * reads is refused at once (O_NONBLOCK), not waited for; the descriptor
 * then blocks as usual. Returns 0 or PERF__EIO. */
static int open_in_place(perf__file *w, int fifo, const perf__file_why *why)
{
  int fd = open_node(w->path);
  if (fd < 0 && errno == ENXIO && fifo)
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

/* See file.h. */
int perf__file_dangling(const char *path, char *target, size_t len)
{
  struct stat st, lst;
  if (len) target[0] = '\0';
  if (!stat(path, &st) || errno != ENOENT || lstat(path, &lst) || !S_ISLNK(lst.st_mode)) return 0;
  ssize_t n = len > 1 ? readlink(path, target, len - 1) : -1;
  if (n >= 0) target[n] = '\0';
  return 1;
}

/* How path is written: WRITE_NEW (a new file: renamed into place),
 * WRITE_REPLACE (a regular file, or a link to one: target set to the file
 * replaced), WRITE_OWN (*fd: one of our descriptors 0-2), WRITE_FIFO,
 * WRITE_DEVICE (in place), or -1 with the reason in why. */
enum { WRITE_NEW, WRITE_REPLACE, WRITE_OWN, WRITE_FIFO, WRITE_DEVICE };
static int classify(const char *path, char *target, size_t len, int *fd, const perf__file_why *why)
{
  struct stat st, lst;
  snprintf(target, len, "%s", path);
  if (stat(path, &st) != 0) {
    if (errno != ENOENT) return failed(why, PERF__FILE_CREATE, errno), -1; /* ELOOP, EACCES */
    char to[4096];
    if (perf__file_dangling(path, to, sizeof to)) {
      char text[4200];
      snprintf(text, sizeof text, "it is a symbolic link to '%s', which does not exist (create the file it "
                                  "names first, or name another path)", to);
      return refused(why, text), -1;
    }
    return under_proc(path) ? (failed(why, PERF__FILE_CREATE, ENOENT), -1) : WRITE_NEW;
  }
  if ((*fd = own_fd(&st)) >= 0) return WRITE_OWN;
  if (S_ISDIR(st.st_mode)) return refused(why, strerror(EISDIR)), -1;
  if (S_ISSOCK(st.st_mode)) return refused(why, "it is a socket, which a report cannot be written to"), -1;
  if (S_ISFIFO(st.st_mode)) return WRITE_FIFO;
  if (!S_ISREG(st.st_mode) || under_proc(path)) return WRITE_DEVICE;
  if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
    char *real = realpath(path, NULL);
    if (!real) return failed(why, PERF__FILE_CREATE, errno), -1;
    snprintf(target, len, "%s", real);
    free(real);
  }
  return WRITE_REPLACE;
}

/* Decides how w->path is written: sets w->target (what a replacement
 * renames over) or opens the path in place. Returns 0 for a new or
 * regular file (nothing open yet), 1 when opened in place, or PERF__EIO. */
static int resolve(perf__file *w, const perf__file_why *why)
{
  int fd = -1;
  switch (classify(w->path, w->target, sizeof w->target, &fd, why)) {
  case WRITE_NEW:
  case WRITE_REPLACE:
    return 0;
  case WRITE_OWN:
    return open_own(w, fd, why) ? PERF__EIO : 1;
  case WRITE_FIFO:
    return open_in_place(w, 1, why) ? PERF__EIO : 1;
  case WRITE_DEVICE:
    return open_in_place(w, 0, why) ? PERF__EIO : 1;
  default:
    return PERF__EIO;
  }
}

/* See file.h. */
int perf__file_check(const char *path, int *in_place, char *err, size_t errlen)
{
  char target[4096], dir[4096];
  int fd = -1;
  perf__file_why why = {NULL, err, errlen};
  int how = classify(path, target, sizeof target, &fd, &why);
  if (in_place) *in_place = how == WRITE_OWN || how == WRITE_FIFO || how == WRITE_DEVICE;
  if (how < 0) return PERF__EIO;
  if (how == WRITE_OWN || how == WRITE_FIFO) return 0; /* a FIFO's reader is checked at write */
  if (how == WRITE_DEVICE) { /* opened as the writer opens it, and closed */
    int dev = open_node(path);
    if (dev < 0) return failed(&why, PERF__FILE_CREATE, errno);
    (void)close(dev);
    return 0;
  }
  const char *d = perf__file_dir_of(target, dir, sizeof dir);
  if (access(d, W_OK) == 0) return 0;
  int e = errno;
  snprintf(err, errlen, "cannot write in '%s': %s", d, strerror(e));
  return PERF__EIO;
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
  char dir[4096];
  perf__file_dir_of(path, dir, sizeof dir);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || fsync(fd))
    fprintf(stderr, "%s: warning: %s was replaced, but fsync of %s failed (%s): "
                    "a power loss now could undo the rename\n",
            perf__progname(), path, dir, strerror(errno));
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

/* An open descriptor's file that is not a regular one of at most max
 * bytes: why, or NULL. Never fails. */
static const char *not_readable(const struct stat *st, size_t max, char *buf, size_t len,
                                const char *what)
{
  if (S_ISDIR(st->st_mode)) return snprintf(buf, len, "is a directory, not %s", what), buf;
  if (!S_ISREG(st->st_mode)) return "is not a regular file (a FIFO, device or socket)";
  if ((size_t)st->st_size > max) return snprintf(buf, len, "is larger than %zu MiB", max >> 20), buf;
  return NULL;
}

/* See file.h. */
int perf__file_read(const char *path, const char *what, unsigned char **data, size_t *len,
                    char *err, size_t errlen)
{
  const size_t max = PERF__FILE_READ_MAX;
  struct stat st;
  char target[4096], why_buf[120];
  *data = NULL, *len = 0;
  /* O_NONBLOCK: a FIFO is refused below instead of waiting for a writer */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && perf__file_dangling(path, target, sizeof target)) {
    snprintf(err, errlen, "%s is a symbolic link to '%s', which does not exist: create the "
             "file it names, or remove the link", path, target);
    return PERF__EBADFILE; /* not "no file": a run does not skip its checks on it */
  }
  if (fd < 0 || fstat(fd, &st)) {
    int e = errno;
    if (fd >= 0) close(fd);
    snprintf(err, errlen, "%s: %s", path, strerror(e));
    errno = e;
    return PERF__EIO;
  }
  const char *why = not_readable(&st, max, why_buf, sizeof why_buf, what);
  if (why) {
    close(fd);
    snprintf(err, errlen, "%s: %s", path, why);
    return PERF__EBADFILE;
  }
  size_t want = (size_t)st.st_size, n = 0;
  unsigned char *buf = malloc(want + 2); /* one byte more (a file that grew), and the NUL */
  ssize_t got = 1;
  while (buf && n <= want && (got = read(fd, buf + n, want + 1 - n)) > 0) n += (size_t)got;
  int e = got < 0 ? errno : 0;
  close(fd);
  if (!buf || e || n > want) {
    snprintf(err, errlen, "%s: %s", path, !buf ? "out of memory" : e ? strerror(e)
             : "changed while it was read (it grew): read it again");
    free(buf);
    errno = e;
    return !buf ? PERF__ENOMEM : e ? PERF__EIO : PERF__EBADFILE;
  }
  buf[n] = '\0';
  *data = buf, *len = n;
  return 0;
}
