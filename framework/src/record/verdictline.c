/* verdictline.c — a claim's verdict line, rendered from its record: one wording for all outputs. */
#include "record/verdictline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "baseline/peaks.h"
#include "util/units.h"

/* See verdictline.h. */
const char *perf__verdictline_word(perf_outcome v, const char *why, char *buf, size_t len)
{
  if (v == PERF_OUTCOME_INCONCLUSIVE && why)
    snprintf(buf, len, "%s (%s)", perf__status_word(v), why);
  else
    snprintf(buf, len, "%s", perf__status_word(v));
  return buf;
}

/* See verdictline.h. */
const char *perf__verdictline_need(const char *kind, double threshold, char *buf, size_t len)
{
  double t = threshold;
  if (kind && !strcmp(kind, "CROSSOVER_POINT")) {
    if (t > 0)
      snprintf(buf, len, "slower below %.3fx, tied within [%.3f, %.3f], faster above %.3fx",
               1 / (1 + t), 1 / (1 + t), 1 + t, 1 + t);
    else
      snprintf(buf, len, "decides the side of 1 (no ties)");
  } else if (perf__claimrec_at_least(kind))
    snprintf(buf, len, "needs >= %.3fx", t);
  else
    snprintf(buf, len, "needs within [%.3f, %.3f]", 1 / (1 + t), 1 + t);
  return buf;
}

/* The note for how m's sampling ended ("" when nothing unusual). Never
 * fails. */
static const char *note(const perf__claimrec_ratio *m)
{
  if (m->noise.early_look)
    return m->budget_stretched ? " (budget stretched: rounds too slow for the first look; early "
                                 "look: every round's ratio and the bootstrap)"
                               : " (rounds too slow for the first look; early look: every "
                                 "round's ratio and the bootstrap)";
  return m->budget_stretched ? " (budget stretched: rounds too slow for the first look)" : "";
}

/* See verdictline.h. */
const char *perf__verdictline_measured(const char *head, const char *word, const char *need,
                                       const char *ratio_name, const perf__claimrec_ratio *m,
                                       char *buf, size_t len)
{
  char ma[32], mb[32];
  const char *cause = m->noise.set && m->noise.cause && m->noise.cause[0] ? m->noise.cause : NULL;
  snprintf(buf, len, "%s: %s: %s %s vs %s %s per iteration (%s); %s %.3fx, %.2f%% CI [%.3f, "
           "%.3f], %s; %d ABBA %s, %d %s, %.2f s wall%s%s%s", head, word,
           m->a.name ? m->a.name : "?", perf__units_time(ma, sizeof ma, m->a.median_s),
           m->b.name ? m->b.name : "?", perf__units_time(mb, sizeof mb, m->b.median_s),
           m->timing ? m->timing : "timing not recorded", ratio_name, m->ratio,
           100 * m->confidence, m->interval[0], m->interval[1], need, m->rounds,
           perf__units_noun(m->rounds, "round", "rounds"), m->looks,
           perf__units_noun(m->looks, "look", "looks"), m->seconds, note(m), cause ? "; " : "",
           cause ? cause : "");
  return buf;
}

/* See verdictline.h. */
const char *perf__verdictline_point(const char *at, const char *a_name,
                                    const perf__claimrec_point *p, char *buf, size_t len)
{
  char word[160], need[120];
  int tied = p->side && !strcmp(p->side, perf__claimrec_side_word(2));
  snprintf(word, sizeof word, "%s %s", a_name ? a_name : "?",
           tied ? "tied with b" : p->side ? p->side : "?");
  perf__verdictline_need("CROSSOVER_POINT", p->m.threshold, need, sizeof need);
  return perf__verdictline_measured(at, word, need, "speedup", &p->m, buf, len);
}

/* The head of a CROSSOVER message "head: WORD: why" for outcome v, into
 * head[len] (the first ": WORD: ": why may name workloads; the head's
 * names are the macro's arguments, C identifiers), the why in *rest.
 * Returns 0, or -1 when the message does not read so. Never fails. */
static int split(const char *msg, perf_outcome v, char *head, size_t len, const char **rest)
{
  char mark[32];
  snprintf(mark, sizeof mark, ": %s", perf__status_word(v));
  for (const char *at = msg ? strstr(msg, mark) : NULL; at; at = strstr(at + 1, mark)) {
    const char *after = at + strlen(mark);
    if (*after && strncmp(after, ": ", 2)) continue;
    snprintf(head, len, "%.*s", (int)(at - msg), msg);
    *rest = *after ? after + 2 : "";
    return 0;
  }
  return -1;
}

/* The head of a message that ends ": WORD" for outcome v (a ratio or
 * speed-of-light claim's: the word ends it, whatever the head holds, as a
 * workload named "a: PASS: b"), into head[len]. Returns 0, or -1 when the
 * message does not end so. Never fails. */
static int head_of(const char *msg, perf_outcome v, char *head, size_t len)
{
  char mark[32];
  size_t n = msg ? strlen(msg) : 0;
  size_t k = (size_t)snprintf(mark, sizeof mark, ": %s", perf__status_word(v));
  if (n < k || strcmp(msg + n - k, mark)) return -1;
  snprintf(head, len, "%.*s", (int)(n - k), msg);
  return 0;
}

/* A FASTER or SIMILAR record's line. Returns 0, or -1 when its message
 * does not read "head: WORD". */
static int ratio_line(const perf__claimrec *r, char *buf, size_t len)
{
  const perf__claimrec_ratio *m = &r->ratio;
  const char *kind = perf__claimrec_kind_word(r->kind);
  char head[600], word[400], need[64];
  if (head_of(r->message, r->outcome, head, sizeof head)) return -1;
  perf__verdictline_word(r->outcome, m->why, word, sizeof word);
  perf__verdictline_need(kind, m->threshold, need, sizeof need);
  perf__verdictline_measured(head, word, need, r->kind == PERF__CLAIMREC_SIMILAR ? "ratio"
                                                                                 : "speedup",
                             m, buf, len);
  return 0;
}

/* A CROSSOVER record's line: its decision and why, the estimate, the
 * points. Returns 0, or -1 when its message does not read "head: WORD:
 * why". */
static int crossover_line(const perf__claimrec *r, char *buf, size_t len)
{
  char head[600], est[200] = "no estimate: the medians' ratio does not cross 1 between two points";
  const char *why;
  if (split(r->message, r->outcome, head, sizeof head, &why)) return -1;
  if (!isnan(r->estimate))
    snprintf(est, sizeof est, "estimated crossover %s=%.4g (medians' ratio 1, log-log "
             "interpolation)", r->param ? r->param : "?", r->estimate);
  snprintf(buf, len, "%s: %s: %s; %s; %zu %s (tied within %.3g%%), %s clock, %.2f s wall", head,
           perf__status_word(r->outcome), why, est, r->npoints,
           perf__units_noun((long long)r->npoints, "point", "points"), 100 * r->tie,
           r->clock ? r->clock : "?", r->seconds);
  return 0;
}

/* A speed-of-light record's line: the workload's rate, its share of the
 * peak measured in the same rounds with the interval, what it needs, the
 * calibration, the spec peak's share, the rounds. Never fails. */
static int solight_line(const perf__claimrec *r, char *buf, size_t len)
{
  const perf__claimrec_ratio *m = &r->ratio;
  const perf__claimrec_workload *a = &m->a, *b = &m->b;
  int bytes = r->kind != PERF__CLAIMREC_FLOPS, link = r->kind == PERF__CLAIMREC_LINK_BANDWIDTH;
  perf_flop_type t = bytes ? PERF_FLOP_NONE : a->work.type;
  double wa = bytes ? perf__peaks_bytes(&a->work) : a->work.flops;
  double wb = bytes ? perf__peaks_bytes(&b->work) : b->work.flops;
  double spec = link ? a->spec_link : bytes ? a->spec_dram : a->spec_math;
  const char *basis = link ? a->spec_link_basis : bytes ? NULL : a->spec_math_basis;
  const char *suffix = ", in the same ABBA rounds";
  char head[600], word[400], rate[48], peak[48], specs[48], cal[200];
  size_t used = 0;
  if (head_of(r->message, r->outcome, head, sizeof head)) return -1;
  snprintf(cal, sizeof cal, "%s", a->measured_from ? a->measured_from : "?");
  size_t n = strlen(cal), k = strlen(suffix);
  if (n > k && !strcmp(cal + n - k, suffix)) cal[n - k] = '\0';
  perf__units_append(buf, len, &used, "%s: %s: %s %s is %.3f of the measured peak %s, 95%% CI "
                     "[%.3f, %.3f], needs >= %.3f (%s, timed in the same %d ABBA %s, %s clock)",
                     head, perf__verdictline_word(r->outcome, m->why, word, sizeof word),
                     a->name ? a->name : "?",
                     perf__peaks_rate_text(rate, sizeof rate, wa / a->median_s, bytes, t),
                     m->ratio, perf__peaks_rate_text(peak, sizeof peak, wb / b->median_s, bytes, t),
                     m->interval[0], m->interval[1], m->threshold, cal, m->rounds,
                     perf__units_noun(m->rounds, "round", "rounds"), m->clock ? m->clock : "?");
  if (spec > 0)
    perf__units_append(buf, len, &used, "; %.1f %% of the spec peak %s%s%s%s",
                       100 * wa / a->median_s / spec,
                       perf__peaks_rate_text(specs, sizeof specs, spec, bytes, t),
                       link && basis ? " (" : "", link && basis ? basis : "",
                       link && basis ? ")" : "");
  else if (basis && basis[0])
    perf__units_append(buf, len, &used, "; %s", basis);
  const char *cause = m->noise.set && m->noise.cause && m->noise.cause[0] ? m->noise.cause : NULL;
  perf__units_append(buf, len, &used, "; %d %s, %.2f s wall%s%s%s", m->looks,
                     perf__units_noun(m->looks, "look", "looks"), m->seconds, note(m),
                     cause ? "; " : "", cause ? cause : "");
  return 0;
}

/* The part of msg before the last mark in it, into head[len]. Returns 0,
 * or -1 when mark is not there. Never fails. */
static int head_before(const char *msg, const char *mark, char *head, size_t len)
{
  const char *at = NULL;
  for (const char *p = msg ? strstr(msg, mark) : NULL; p; p = strstr(p + 1, mark)) at = p;
  if (!at) return -1;
  snprintf(head, len, "%.*s", (int)(at - msg), msg);
  return 0;
}

/* A sync check's line: the syncs counted against those wanted, the pass's
 * cost; or that it could not look. Returns 0, or -1 when its message does
 * not read so. */
static int syncs_line(const perf__claimrec *r, char *buf, size_t len)
{
  const perf__claimrec_syncs *y = &r->syncs;
  const char *got = y->got ? y->got : "?";
  char head[600], mark[160];
  int one = !strcmp(got, "1"), many = y->iterations > 1;
  if (y->cannot) {
    if (head_before(r->message, ": cannot look for host syncs: ", head, sizeof head)) return -1;
    snprintf(buf, len, "%s: FAIL: cannot look for host syncs: %s", head, y->cannot);
    return 0;
  }
  snprintf(mark, sizeof mark, ": %s host sync", got);
  if (head_before(r->message, mark, head, sizeof head)) return -1;
  snprintf(buf, len, "%s: %s: %s host sync%s%s, %s %d; %d iteration%s checked (CUPTI callbacks, "
           "runtime and driver APIs; pass %.2f ms wall, of which attaching and detaching CUPTI "
           "%.2f ms)", head, perf__status_word(r->outcome), got, one ? "" : "s",
           many ? " per iteration" : "", y->at_least ? "wanted at least" : "wanted exactly",
           y->wanted, y->iterations, y->iterations == 1 ? "" : "s", y->pass_s * 1e3,
           y->cupti_s * 1e3);
  return 0;
}

/* A SAME_WORK count's line: recorded, or against the baseline's count.
 * Returns 0, or -1 when its message does not read so. */
static int count_line(const perf__claimrec *r, char *buf, size_t len)
{
  const perf__claimrec_count *k = &r->count;
  char head[600], how[200];
  snprintf(how, sizeof how, "(CUPTI range profiler: %d %s, %.0f ms; set up and torn down in "
           "%.0f ms, host clock)", k->passes, perf__units_noun(k->passes, "pass", "passes"),
           1e3 * k->count_s, 1e3 * k->setup_s);
  if (k->recorded) {
    snprintf(buf, len, "%s: RECORDED: %.0f warp instructions and %.0f bytes read from DRAM per "
             "call %s", r->message ? r->message : "?", k->insts, k->dram_read, how);
    return 0;
  }
  if (head_before(r->message, ": ", head, sizeof head)) return -1;
  double rel = k->insts / k->was_insts - 1;
  double dram = k->was_dram_read > 0 ? k->dram_read / k->was_dram_read - 1 : 0;
  snprintf(buf, len, "%s: %s: %.0f warp instructions per call, %+.3f%% of the baseline's %.0f "
           "(recorded %s; the same within %.1f%%); %.0f bytes read from DRAM (%+.2f%%, reported, "
           "not decided on) %s", head, perf__status_word(r->outcome), k->insts, 100 * rel,
           k->was_insts, k->was_recorded ? k->was_recorded : "?", 100 * k->tolerance,
           k->dram_read, 100 * dram, how);
  return 0;
}

/* The noise a BASELINE check's change is judged against. Never fails
 * (truncates). */
static void baseline_noise(const perf__claimrec_baseline *b, char *buf, size_t len)
{
  if (b->between >= 0)
    snprintf(buf, len, "+-%.1f%% with the spread between the baseline's runs (%.2f%%, %d %s)",
             100 * b->noise, 100 * b->between, b->runs, perf__units_noun(b->runs, "run", "runs"));
  else
    snprintf(buf, len, "+-%.1f%% (the baseline has no runs: within-process noise only)",
             100 * b->noise);
}

/* A BASELINE record's line: an update's recording, a shared GPU's
 * INCONCLUSIVE, or the check against the entry. Returns 0, or -1 when its
 * message does not read so. */
static int baseline_line(const perf__claimrec *r, char *buf, size_t len)
{
  const perf__claimrec_baseline *b = &r->baseline;
  char head[600], now[32], was[32], noise[160], sm[48] = "";
  const char *notes = b->notes ? b->notes : "", *timing = b->timing ? b->timing : "?";
  if (b->recorded) {
    if (b->sm_mhz > 0) snprintf(sm, sizeof sm, ", SM clock %d MHz", b->sm_mhz);
    snprintf(buf, len, "%s: RECORDED: %s per iteration (%s, median of %ld %s%s)%s",
             r->message ? r->message : "?", perf__units_time(now, sizeof now, b->now_s), timing,
             b->samples, perf__units_noun(b->samples, "sample", "samples"), sm, notes);
    return 0;
  }
  if (b->shared) {
    if (head_before(r->message, ": INCONCLUSIVE", head, sizeof head)) return -1;
    snprintf(buf, len, "%s: INCONCLUSIVE (another process used the GPU): %s", head, b->shared);
    return 0;
  }
  if (head_of(r->message, r->outcome, head, sizeof head)) return -1;
  baseline_noise(b, noise, sizeof noise);
  snprintf(buf, len, "%s: %s%s%s%s: %s vs baseline %s per iteration (%s), %+.1f%% %s, tolerance "
           "%.1f%%, %ld %s (baseline %ld), %s%s", head, perf__status_word(r->outcome),
           b->why ? " (" : "", b->why ? b->why : "", b->why ? ")" : "",
           perf__units_time(now, sizeof now, b->now_s), perf__units_time(was, sizeof was, b->was_s),
           timing, 100 * b->change, noise, 100 * b->tolerance, b->samples,
           perf__units_noun(b->samples, "sample", "samples"), b->was_samples,
           b->beyond ? "beyond tolerance and noise" : "within tolerance or noise", notes);
  return 0;
}

/* See verdictline.h. */
int perf__verdictline_render(const perf__claimrec *r, char *buf, size_t len)
{
  if (r->kept) return 0;
  if (r->kind == PERF__CLAIMREC_FASTER || r->kind == PERF__CLAIMREC_SIMILAR)
    return !ratio_line(r, buf, len);
  if (r->kind == PERF__CLAIMREC_CROSSOVER) return !crossover_line(r, buf, len);
  if (r->kind == PERF__CLAIMREC_BANDWIDTH || r->kind == PERF__CLAIMREC_FLOPS ||
      r->kind == PERF__CLAIMREC_LINK_BANDWIDTH)
    return !solight_line(r, buf, len);
  if (r->kind == PERF__CLAIMREC_PLAIN && r->message) /* a message and an outcome: its line */
    return snprintf(buf, len, "%s", r->message), 1;
  if (r->kind == PERF__CLAIMREC_TRUE || r->kind == PERF__CLAIMREC_NEAR) { /* said when false */
    if (r->outcome == PERF_OUTCOME_PASS || !r->message) return 0;
    snprintf(buf, len, "%s", r->message);
    return 1;
  }
  if (r->kind == PERF__CLAIMREC_SYNCS) return !syncs_line(r, buf, len);
  if (r->kind == PERF__CLAIMREC_SAME_WORK) return !count_line(r, buf, len);
  if (r->kind == PERF__CLAIMREC_BASELINE) return !baseline_line(r, buf, len);
  return 0;
}

/* See verdictline.h. */
int perf__verdictline_of_text(const char *json, char *buf, size_t len)
{
  perf__claimrec r;
  char err[200];
  if (perf__claimrec_parse(json, &r, err, sizeof err)) return 0;
  int got = perf__verdictline_render(&r, buf, len);
  perf__claimrec_free(&r);
  return got;
}
