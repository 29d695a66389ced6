/* worker.h — the worker process: runs the tests the supervisor names, reports over a pipe. */
#ifndef PERF_WORKER_H
#define PERF_WORKER_H

#include "supervisor/options.h"

/* Serves RUN requests on cli->worker_in until end of file; results go to
 * cli->worker_out. Returns the process exit code: 0 at a clean end, 2 when
 * the pipes fail or a message is malformed. */
int perf__worker_main(const perf__cli *cli);

#endif
