/* verdictline.h — a claim's verdict line, rendered from its record: one wording for all outputs. */
#ifndef PERF_VERDICTLINE_H
#define PERF_VERDICTLINE_H

/* The worker sends a claim's record (claimrec.h); the verdict line that
 * the console shows, and that the Markdown, HTML and JUnit reports and the
 * JSON's output lines carry, is rendered from that record here, by the
 * supervisor as each record arrives (and by an embedder's door, and a
 * worker's own console when it runs alone): FASTER and SIMILAR, a
 * CROSSOVER claim and each of its points, BANDWIDTH, FLOPS and
 * LINK_BANDWIDTH, the sync checks, SAME_WORK, BASELINE (a check against
 * its entry, an update's RECORDED, a shared GPU's INCONCLUSIVE), and TRUE
 * and NEAR that do not hold. A skipped check has no record: the line that
 * says why is written where the skip is found. */

#include <stddef.h>

#include "record/claimrec.h"
#include "util/status.h"

/* The verdict word of outcome v with cause why into buf[len]:
 * "INCONCLUSIVE (why)" for an INCONCLUSIVE one with a cause, else the
 * outcome's word. Returns buf; never fails (truncates). */
const char *perf__verdictline_word(perf_outcome v, const char *why, char *buf, size_t len);

/* A ratio claim's requirement ("needs >= 1.300x", "needs within [0.952,
 * 1.050]") for its kind's word (FASTER, SIMILAR; CROSSOVER_POINT: the
 * sides a point's speedup falls on, threshold its tie margin) into
 * buf[len]. Returns buf; never fails (truncates). */
const char *perf__verdictline_need(const char *kind, double threshold, char *buf, size_t len);

/* A comparison's line, "head: word: a 1.2 us vs b 3.4 us per iteration
 * (timing); ratio_name 2.833x, 95.00% CI [..], need; rounds, looks,
 * seconds wall[ note][; causes]", from its measurement m, into buf[len].
 * Returns buf; never fails (truncates). */
const char *perf__verdictline_measured(const char *head, const char *word, const char *need,
                                       const char *ratio_name, const perf__claimrec_ratio *m,
                                       char *buf, size_t len);

/* A CROSSOVER point's line (at: the claim's head with the point's tag;
 * a_name: the first workload's name) from p, into buf[len]. Returns buf;
 * never fails (truncates). */
const char *perf__verdictline_point(const char *at, const char *a_name,
                                    const perf__claimrec_point *p, char *buf, size_t len);

/* The verdict line of record r into buf[len]: 1 for a kind rendered here
 * (all; a PLAIN one, a message and an outcome, is its message; TRUE and
 * NEAR only when they did not hold), 0 for another, one whose message
 * does not read as its kind's does (buf untouched) or a record taken from
 * a first attempt. Never fails (truncates). */
int perf__verdictline_render(const perf__claimrec *r, char *buf, size_t len);

/* The same from a record's JSON text (a PERF_LINE_CLAIM line): 1 with the
 * line in buf[len], 0 for a kind not rendered here or a text that does not
 * parse (no memory included). Never fails. */
int perf__verdictline_of_text(const char *json, char *buf, size_t len);

#endif
