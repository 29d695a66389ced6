/* version.h — which perfgate this is: the version --version, reports and the history show. */
#ifndef PERF_VERSION_H
#define PERF_VERSION_H

#include <stddef.h>

/* perf_version() of perfgate.h, declared here as well for the supervisor's
 * side, which does not include perfgate.h (it brings CUDA's headers):
 * "MAJOR.MINOR.PATCH" from the PERF_VERSION_* macros. Never fails. */
const char *perf_version(void);

/* "perfgate 0.1.0 (built with CUDA runtime 13.0)": the --version line of
 * a program built with CUDA runtime cudart (CUDART_VERSION, 13000), or
 * "perfgate 0.1.0 (built without CUDA: baseline files only)" for cudart 0
 * (perfgate-baselines), into buf[len] (truncated if it must). Returns buf;
 * never fails. */
const char *perf__version_line(char *buf, size_t len, int cudart);

#endif
