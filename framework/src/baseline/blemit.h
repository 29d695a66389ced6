/* blemit.h — a baseline file written as YAML, atomically. */
#ifndef PERF_BLEMIT_H
#define PERF_BLEMIT_H

#include <stddef.h>

#include "baseline/baseline.h"

/* Writes b to path atomically: a temporary file "path.tmp.PID" in the same
 * directory, fsync, then rename, and fsync of the directory (its failure is
 * a warning: the file is in place). The caller holds
 * perf__baselinedir_lock(path) when others may write (the lock also removes
 * temporaries that an updater which died left). On any failure the old
 * file is untouched and no temporary file remains. Returns 0, PERF__EIO or
 * PERF__EINVAL (a value that cannot be written, such as NaN), with the
 * reason in err. The `work:` list is written after the ratios only when b
 * has work counts, their numbers exactly (%.17g: they read back equal). */
int perf__blemit_save(const char *path, const perf__baseline *b, char *err, size_t errlen);

#endif
