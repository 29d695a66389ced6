/* status.h — the outcomes' words and the one table of internal error codes. */
#ifndef PERF_STATUS_H
#define PERF_STATUS_H

/* The outcomes (perf_outcome, PERF_OUTCOME_MAP) are public: perfgate.h's
 * plain-C part, which brings no CUDA header. */
#define PERF_ABI_ONLY
#include "perfgate.h"
#undef PERF_ABI_ONLY

/* Internal error codes: functions return 0 or one of these (negative). */
#define PERF__ERR_MAP(X)                                      \
  X(ENOMEM, -1, "out of memory")                              \
  X(EIO, -2, "I/O error")                                     \
  X(EPROTO, -3, "malformed message from worker")              \
  X(EUSAGE, -4, "usage error")                                \
  X(ECUDA, -5, "CUDA error")                                  \
  X(ENODEV, -6, "no CUDA device")                             \
  X(EINVAL, -7, "invalid argument")                          \
  X(EBADFILE, -8, "malformed baseline file")                 \
  X(ECALL, -9, "a CUDA call failed")

enum {
#define PERF__X(sym, code, desc) PERF__##sym = (code),
  PERF__ERR_MAP(PERF__X)
#undef PERF__X
};

/* The 4-letter-ish word for an outcome ("PASS"); "?" for a bad value. */
const char *perf__status_word(perf_outcome o);
/* The outcome a word names ("PASS"), or PERF_OUTCOME_COUNT for another
 * word or NULL. Never fails. */
perf_outcome perf__status_outcome(const char *word);
/* The message for an error code; "unknown error" for an unknown one. */
const char *perf__status_strerror(int err);

#endif
