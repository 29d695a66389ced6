/* status.h — the one table of outcomes (tests, claims) and internal error codes. */
#ifndef PERF_STATUS_H
#define PERF_STATUS_H

/* Outcome of a test or of one claim. The order is the severity order used
 * when a test combines several claims (later wins over earlier). */
#define PERF__OUTCOME_MAP(X)         \
  X(PASS, "PASS")                    \
  X(SKIP, "SKIP")                    \
  X(INCONCLUSIVE, "INCONCLUSIVE")    \
  X(FAIL, "FAIL")                    \
  X(ERROR, "ERROR")

typedef enum perf__outcome {
#define PERF__X(sym, word) PERF__##sym,
  PERF__OUTCOME_MAP(PERF__X)
#undef PERF__X
  PERF__OUTCOME_COUNT
} perf__outcome;

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
const char *perf__status_word(perf__outcome o);
/* The message for an error code; "unknown error" for an unknown one. */
const char *perf__status_strerror(int err);

#endif
