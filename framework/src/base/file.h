/* file.h — the one atomic file writer: a temporary file in the same directory, fsync, rename over the target. */
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

/* A replacement under way: its temporary file is open. */
typedef struct perf__file {
  const char *path; /* the caller's, kept until commit or abort */
  char tmp[4200];
  void *f;          /* the temporary's stream (FILE *) */
  int flags;
} perf__file;

/* Where a failure is told: the step that failed (step may be NULL) and
 * errno's message in err[errlen]. */
typedef struct perf__file_why {
  perf__file_step *step;
  char *err;
  size_t errlen;
} perf__file_why;

/* Starts replacing path: creates the temporary file in its directory.
 * flags: 0 or PERF__FILE_DURABLE. Returns 0, or PERF__EIO with the reason
 * (PERF__FILE_CREATE) in why; nothing is left then. */
int perf__file_open(perf__file *w, const char *path, int flags, const perf__file_why *why);

/* Writes data[len] (data may be NULL when len is 0) to the temporary file, fsyncs and closes it and renames
 * it over path, so that path is the old file or the whole new one, never
 * part of one. A failed write, fflush, fsync, close or rename is an error:
 * returns PERF__EIO with the reason in why, the temporary file removed.
 * Returns 0 when path is replaced. w is finished either way. */
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
