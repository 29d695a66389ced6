/* worker.h — the worker process: runs the tests the supervisor names, reports over a pipe. */
#ifndef PERF_WORKER_H
#define PERF_WORKER_H

#include "worker/context.h"

/* Runs tests with the options opts: serves RUN requests on in_fd until end
 * of file; results go to out_fd. Returns the process exit code: 0 at a
 * clean end, 2 when the pipes fail or a message is malformed. */
int perf__worker_main(const perf__context_opts *opts, int in_fd, int out_fd);

#endif
