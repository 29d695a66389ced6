/* workerproc.h — a worker process: started on its pipes, stopped, reaped, its output drained. */
#ifndef PERF_WORKERPROC_H
#define PERF_WORKERPROC_H

#include <sys/types.h>

#include "host/hostload.h"
#include "record/wire.h"
#include "report/result.h"

/* One worker: this binary run again with --perf-worker, reading commands
 * and writing result frames on pipes, its stdout and stderr on a third. */
typedef struct perf__workerproc {
  pid_t pid;
  int cmd, res, out; /* write end of commands; read ends of results and output */
  int heard;         /* a frame arrived: the worker did start */
  perf__wire_buf rb;
  perf__hostload at_start; /* the host's load when its test started */
} perf__workerproc;

/* Closes *fd when open and marks it closed (-1). Never fails. */
void perf__workerproc_close_fd(int *fd);

/* Starts a worker with this process's argv (and the run's CPUs), in a
 * process group of its own that dies with this process. Returns 0, or
 * PERF__EIO with errno set. */
int perf__workerproc_start(perf__workerproc *w, int argc, char **argv);

/* Waits up to ms for the worker to exit, then kills its process group; a
 * worker stuck in the driver is left behind after 10 s more (said on
 * stderr). Returns the wait status (0 when it could not be reaped). */
int perf__workerproc_reap(perf__workerproc *w, int ms);

/* Stops a worker: end of file on its commands lets it exit on its own
 * (kill_now: killed at once), then reaps it and closes its pipes. Never
 * fails. */
void perf__workerproc_stop(perf__workerproc *w, int kill_now);

/* Moves whatever the worker's test wrote so far into r. Never fails. */
void perf__workerproc_drain(perf__workerproc *w, perf__result *r);

/* r's outcome (FAIL) and reason from a dead worker's wait status. Never
 * fails. */
void perf__workerproc_death(int status, perf__result *r);

#endif
