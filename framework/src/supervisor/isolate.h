/* isolate.h — runs work that touches CUDA in a forked child and reads what it wrote, so the supervisor never initialises CUDA. */
#ifndef PERF_ISOLATE_H
#define PERF_ISOLATE_H

#include <stddef.h>
#include <stdio.h>

#include "base/baseline.h"

/* Forks; the child runs fn(out, arg), writing its answer to out, and exits.
 * The parent reads it into buf[len] (NUL-terminated, truncated to fit) and
 * waits for the child. Returns the number of bytes read, or -1 when the
 * child could not be started (errno set; buf is empty). */
long perf__isolate_read(void (*fn)(FILE *out, void *arg), void *arg, char *buf, size_t len);

/* Device 0's fingerprint (perf__fingerprint_gpu), measured in a child
 * process: fills b->fp and b->nfp. Never fails: without a GPU, or when no
 * child can start, b->nfp is 0. */
void perf__isolate_fingerprint_gpu(perf__baseline *b);

#endif
