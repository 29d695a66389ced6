/* blyaml.h — a baseline file as YAML: strict loading with positions, and atomic saving. */
/* Loading checks libyaml's events one by one; this is the only libyaml user. */
#ifndef PERF_BLYAML_H
#define PERF_BLYAML_H

#include <stddef.h>

#include "baseline/baseline.h"

/* Parses a whole file's bytes; name is used in messages. Returns 0, or
 * PERF__EBADFILE with "name:line:column: what" in err (b is then empty),
 * or PERF__ENOMEM. Rejects: YAML errors, aliases, several documents,
 * unknown or duplicate keys, a second entry (test, workload), ratio (test,
 * claim) or work count (test, workload), missing fields, wrong types, an unknown schema
 * version, negative, NaN or huge numbers, a version-2 field in a version-1
 * file (and a version-2 entry without its SM clock). */
int perf__blyaml_parse(const char *name, const unsigned char *buf, size_t len, perf__baseline *b,
                       char *err, size_t errlen);

/* Reads and parses path. A missing file is PERF__EIO with errno ENOENT; a
 * symbolic link to nothing is no missing file: PERF__EBADFILE naming the
 * link and its target. */
int perf__blyaml_load(const char *path, perf__baseline *b, char *err, size_t errlen);

/* Writes b to path atomically: a temporary file "path.tmp.PID" in the same
 * directory, fsync, then rename, and fsync of the directory (its failure is
 * a warning: the file is in place). The caller holds
 * perf__baselinedir_lock(path) when others may write (the lock also removes
 * temporaries that an updater which died left). On any failure the old
 * file is untouched and no temporary file remains. Returns 0, PERF__EIO or
 * PERF__EINVAL (a value that cannot be written, such as NaN), with the
 * reason in err. The `work:` list is written after the ratios only when b
 * has work counts, their numbers exactly (%.17g: they read back equal). */
int perf__blyaml_save(const char *path, const perf__baseline *b, char *err, size_t errlen);

#endif
