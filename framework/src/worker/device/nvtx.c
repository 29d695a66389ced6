/* nvtx.c — NVTX ranges, so that an Nsight Systems trace reads by test, claim and workload. */
#define _GNU_SOURCE
#include "worker/device/nvtx.h"

#include <stdarg.h>
#include <stdio.h>

#include <nvtx3/nvToolsExt.h>

/* See nvtx.h. */
void perf__nvtx_push(const char *fmt, ...)
{
  char name[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  nvtxRangePushA(name);
}

/* See nvtx.h. */
void perf__nvtx_pop(void) { nvtxRangePop(); }
