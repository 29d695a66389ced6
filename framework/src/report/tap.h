/* tap.h — --tap: the run as TAP version 13 (TAP 14 readers take it too) on a stream. */
/* Each test that did not pass gets a YAML block. */
#ifndef PERF_TAP_H
#define PERF_TAP_H

#include <stddef.h>
#include <stdio.h>

#include "util/registry.h"
#include "report/result.h"

/* Writes a plan, then one point per result of s. Never fails (stream
 * errors show in ferror(f)). */
void perf__tap_write(FILE *f, const perf__result_set *s);

#endif
