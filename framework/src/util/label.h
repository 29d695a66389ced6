/* label.h — a commit or branch as perfgate records it: one rule for every source. */
/* The sources: --commit, --branch, the CI's variables and git's answer. */
#ifndef PERF_LABEL_H
#define PERF_LABEL_H

#include <stddef.h>

/* The longest commit or branch, in bytes. */
enum { PERF__LABEL_MAX = 120 };

/* Checks v, a commit or branch that what ("--commit", "GITHUB_SHA",
 * "git's current branch") gives: not empty, at most PERF__LABEL_MAX bytes,
 * valid UTF-8, no control character (C0, DEL, C1), no space at either
 * end. Returns 0, or PERF__EUSAGE with "what: why: 'v'" in err[len], v
 * shown with \n, \t, \r and \xNN for what the terminal must not see. */
int perf__label_check(const char *what, const char *v, char *err, size_t len);

#endif
