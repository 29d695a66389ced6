/* blyaml.h — a baseline file read from YAML: strict loading with positions. */
/* Loading checks libyaml's events one by one; this is the only libyaml user. */
#ifndef PERF_BLYAML_H
#define PERF_BLYAML_H

#include <stddef.h>

#include "baseline/baseline.h"

/* The one key whose value may be long text (up to PERF__BLYAML_MAX_TEXT
 * bytes): an entry's trace, JSON (baseline/trace.h). A longer one is left
 * out of the file (baseline/blemit.h). */
#define PERF__BLYAML_LONG_KEY "trace"
#define PERF__BLYAML_MAX_TEXT (1 << 16)

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


#endif
