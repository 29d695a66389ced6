/* file.h — the one file writer: regular files replaced atomically (temporary, fsync, rename). */
/* A device, FIFO or /proc/self/fd path is written in place; a symlink is
 * followed. */
#ifndef PERF_FILE_H
#define PERF_FILE_H

#include <stddef.h>

/* Which step of a replacement failed. */
typedef enum perf__file_step {
  PERF__FILE_DONE = 0,
  PERF__FILE_CREATE, /* the temporary file could not be created */
  PERF__FILE_WRITE,  /* a write, fflush, fsync or close of it failed */
  PERF__FILE_RENAME  /* it could not be renamed over the target */
} perf__file_step;

/* The flags of perf__file_open and perf__file_replace. */
enum {
  /* The temporary is created exclusively (O_EXCL) with mode 0644, and the
   * directory is fsync'd after the rename, so that the rename survives a
   * power loss (a failure there is a warning on stderr: the file is in
   * place). Without it a new file's mode is 0666 less the umask, as
   * fopen's. */
  PERF__FILE_DURABLE = 1
};

/* The temporary file a replacement of path writes, "path.tmp.PID", into
 * buf[len] (truncated to fit). Returns buf; never fails. */
char *perf__file_tmp_name(const char *path, char *buf, size_t len);

/* The directory holding path (dirname's answer: "." for a bare name),
 * into buf[len] (truncated to fit). Returns buf; never fails. */
char *perf__file_dir_of(const char *path, char *buf, size_t len);

/* A write under way. What path is decides how it is written:
 * - a regular file, or no file yet: a temporary file in its directory,
 *   renamed over it on commit (readers see the old file or the whole new
 *   one);
 * - a symbolic link to a regular file: the same, for the file the link
 *   resolves to; the link stays;
 * - the file one of our descriptors 0-2 open for writing is open on
 *   (/dev/stdout, /proc/self/fd/1, a link to one, or the file stdout is
 *   redirected to): written through that descriptor, after what its
 *   stream holds (a descriptor open only for reading, as stdin mostly
 *   is, is never written through: its file is written as any other);
 * - a device, a FIFO, or anything else under /proc: written in place,
 *   never replaced (a FIFO must have a reader: opening it does not wait);
 * - a directory, a socket, a link to nothing or a link loop: refused. */
typedef struct perf__file {
  const char *path; /* the caller's, kept until commit or abort */
  char target[4096]; /* the file replaced: path, or where its link leads */
  char tmp[4200];
  void *f;          /* the stream written (FILE *): the temporary, or path itself */
  int flags;
  int in_place;     /* path is written directly (device, FIFO, /proc/self/fd) */
} perf__file;

/* Where a failure is told: the step that failed (step may be NULL) and
 * errno's message in err[errlen]. */
typedef struct perf__file_why {
  perf__file_step *step;
  char *err;
  size_t errlen;
} perf__file_why;

/* 1 when path is a symbolic link to nothing (its target, as the link
 * holds it, into target[len]); 0 otherwise (a path that does not exist,
 * a link that resolves, anything else). The one test of a dangling link
 * for every file perfgate writes (reports, the SQLite history): such a
 * link is refused, never followed to create its target. Never fails. */
int perf__file_dangling(const char *path, char *target, size_t len);

/* The largest file perf__file_read reads. */
#define PERF__FILE_READ_MAX ((size_t)16 << 20)

/* Reads the whole regular file path, of at most PERF__FILE_READ_MAX bytes,
 * into *data (malloc'd, *len bytes, NUL-terminated; the caller frees it). what names the kind of file
 * the messages say it is not ("a baseline file"). Returns 0; PERF__EIO with
 * errno set (ENOENT: no file) and "path: why" in err; PERF__EBADFILE for a
 * symbolic link to nothing (naming its target), a directory, a FIFO,
 * device or socket, or a file over the limit; or PERF__ENOMEM. A FIFO is
 * refused without waiting for a writer. */
int perf__file_read(const char *path, const char *what, unsigned char **data, size_t *len,
                    char *err, size_t errlen);

/* Whether path can be written, before anything is (the checks a run
 * makes up front): for a new or regular file, that the directory of the
 * file it resolves to is writable; a device is opened for writing as the
 * writer opens it (and closed, nothing written); a directory, socket,
 * link to nothing or link loop is refused. The path is classified exactly
 * as perf__file_open does, so that what passes here is written the same
 * way after the run. *in_place (may be NULL) says whether the path would
 * be written in place (a device, FIFO or one of our descriptors 0-2 open
 * for writing). Returns 0, or PERF__EIO with the reason in err. A FIFO's
 * reader is only checked when it is written. */
int perf__file_check(const char *path, int *in_place, char *err, size_t errlen);

/* Starts writing path (see perf__file for how): creates the temporary
 * file, or opens path itself. flags: 0 or PERF__FILE_DURABLE. Returns 0,
 * or PERF__EIO with the reason (PERF__FILE_CREATE) in why: a directory, a
 * link to nothing, a FIFO no process reads, or errno's message; nothing is
 * left then. */
int perf__file_open(perf__file *w, const char *path, int flags, const perf__file_why *why);

/* Writes data[len] (data may be NULL when len is 0). A replacement fsyncs
 * and closes the temporary file and renames it over the target, so that
 * the target is the old file or the whole new one, never part of one; an
 * in-place write writes and closes path. A failed write (ENOSPC on a full
 * device, EIO, EFBIG), fflush, fsync, close or rename is an error: returns
 * PERF__EIO with the reason in why, the temporary file removed. Returns 0
 * when all of data is written. w is finished either way. */
int perf__file_commit(perf__file *w, const void *data, size_t len, const perf__file_why *why);

/* Gives up a replacement: closes and removes the temporary file; path is
 * untouched. Never fails (a temporary that cannot be removed is a warning
 * on stderr). */
void perf__file_abort(perf__file *w);

/* perf__file_open, then perf__file_commit of data[len]: the whole
 * replacement. Returns 0 or PERF__EIO with errno's message in err[errlen]
 * and the step that failed in *step (step may be NULL). */
int perf__file_replace(const char *path, const void *data, size_t len, int flags,
                       perf__file_step *step, char *err, size_t errlen);

#endif
