/* attempt.h — confirm before failing, the supervisor's side: second attempts and their result. */
/* Which tests get a second attempt, what it takes from the first, and both
 * attempts as one result. */
#ifndef PERF_ATTEMPT_H
#define PERF_ATTEMPT_H

#include <stddef.h>

#include "report/result.h"

/* 1 when the first attempt r, a test that ended (its worker sent END: no
 * crash, no timeout), is to be confirmed (record/confirm.h): it ended FAIL
 * and one of its claims with an id did not pass. Never fails. */
int perf__attempt_needed(const perf__result *r);

/* 1 when every claim with an id of r that did not pass is INCONCLUSIVE
 * beside another process that never left (PERF__CONFIRM_STOPPED_SHARED
 * among its record's causes) or was still there as it ended
 * (PERF__CONFIRM_STILL_SHARED), or is a CROSSOVER whose undecided points
 * all say so, or another kind (a BASELINE: no causes of its own) whose
 * message says so: a second attempt beside it would say the same and cost
 * the test's time again (issue 50: a GPU co-tenant that never left took
 * the suite to 11x its quiet time, half of it in second attempts). Then a
 * line says so in r and the supervisor does not run one. Never fails. */
int perf__attempt_shared_out(perf__result *r);

/* The KEEP message before the second attempt's RUN (record/confirm.h): the
 * id of each claim of first whose every record passed. Returns it malloc'd
 * (*len its length), or NULL without memory. */
char *perf__attempt_keep_text(const perf__result *first, size_t *len);

/* Makes second, the result of the second attempt, the test's result over
 * both: its claims the final ones (a kept claim's place-holder replaced by
 * the first attempt's records, each record marked with the attempt that
 * judged it), its lines the first attempt's verdict lines of the claims
 * that did not pass, marked PERF__RESULT_FIRST, a PERF__RESULT_CONFIRMED
 * line, then its own; its seconds both attempts'. first is emptied into
 * second->first. Never fails (without memory, lines or records are lost,
 * never the outcome). */
void perf__attempt_combine(perf__result *second, perf__result *first);

#endif
