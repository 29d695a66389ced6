/* jsonreport.h — --json: the whole run as one JSON object (schema perfgate-report/1): run, fingerprints, tests with their claim records, headroom. */
#ifndef PERF_JSONREPORT_H
#define PERF_JSONREPORT_H

#include <stddef.h>
#include <time.h>

#include "base/json.h"
#include "base/registry.h"
#include "report/result.h"
#include "base/options.h"

/* Appends the report of results r[0..n) (r[i] belongs to tests[i % nt]) of
 * a run that began at started and exits with code to j. The GPU's
 * fingerprint is measured in a child process (this process never touches
 * CUDA). Never fails (out of memory shows in j->oom). */
void perf__jsonreport_write(perf__json *j, const perf__options_cli *cli, const perf__registry_test **tests,
                            size_t nt, const perf__result *r, size_t n, time_t started,
                            int code);

#endif
