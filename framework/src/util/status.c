/* status.c — names and messages for the outcome and error tables in status.h. */
#include "util/status.h"

#include <string.h>

static const char *const words[] = {
#define PERF__X(sym, word) word,
    PERF_OUTCOME_MAP(PERF__X)
#undef PERF__X
};

/* Never fails: out-of-range values give "?". */
const char *perf__status_word(perf_outcome o)
{
  return (unsigned)o < PERF_OUTCOME_COUNT ? words[o] : "?";
}

/* Never fails: another word, or NULL, gives PERF_OUTCOME_COUNT. */
perf_outcome perf__status_outcome(const char *word)
{
  int o = 0;
  while (o < PERF_OUTCOME_COUNT && !(word && !strcmp(word, words[o]))) o++;
  return (perf_outcome)o;
}

/* Never fails: unknown codes give "unknown error". */
const char *perf__status_strerror(int err)
{
  switch (err) {
#define PERF__X(sym, code, desc) \
  case code:                     \
    return desc;
    PERF__ERR_MAP(PERF__X)
#undef PERF__X
  case 0:
    return "success";
  default:
    return "unknown error";
  }
}
