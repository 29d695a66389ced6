/* version.c — which perfgate this is, as written once in perfgate.h's PERF_VERSION_* macros. */
#include "util/version.h"

#include <stdio.h>

#define PERF_ABI_ONLY /* the PERF_VERSION_* macros: perfgate.h's plain-C part */
#include "perfgate.h"
#undef PERF_ABI_ONLY

#define PERF__STR(x) #x
#define PERF__XSTR(x) PERF__STR(x)

/* Public (perfgate.h). Never fails. */
const char *perf_version(void)
{
  return PERF__XSTR(PERF_VERSION_MAJOR) "." PERF__XSTR(PERF_VERSION_MINOR) "." PERF__XSTR(
      PERF_VERSION_PATCH);
}

/* See version.h. Never fails. */
const char *perf__version_line(char *buf, size_t len, int cudart)
{
  if (cudart > 0)
    snprintf(buf, len, "perfgate %s (built with CUDA runtime %d.%d)", perf_version(),
             cudart / 1000, cudart % 1000 / 10);
  else
    snprintf(buf, len, "perfgate %s (built without CUDA: baseline files only)", perf_version());
  return buf;
}
