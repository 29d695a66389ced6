/* confirm.c — confirm before failing, through the fixture binary. */
/* Which tests run twice, what the second attempt takes from the first, the
 * reports of both attempts, --no-confirm, --repeat and --merge. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/claimrec.h"
#include "record/confirm.h"
#include "io/jsontree.h"
#include "selftest.h"

#define LINE 2048

/* A scratch directory with a fresh attempt counter: env gets the variable
 * the confirm.* fixtures read ("PERF_FIXTURE_ATTEMPTS=dir/n "). */
typedef struct scratch {
  char dir[64], env[160];
} scratch;

static void scratch_new(scratch *s)
{
  snprintf(s->dir, sizeof s->dir, "/tmp/perfgate-confirm-XXXXXX");
  ST_CHECK(mkdtemp(s->dir) != NULL);
  snprintf(s->env, sizeof s->env, "PERF_FIXTURE_ATTEMPTS=%s/n ", s->dir);
}

/* A fresh scratch s, then the fixture with args and s's counter, into r. */
static void run_counted(scratch *s, st_run *r, const char *args)
{
  scratch_new(s);
  st_exec(r, s->env, args);
}

/* Frees r and removes s. */
static void done(scratch *s, st_run *r)
{
  st_run_free(r);
  st_rmtree(s->dir);
}

/* How many times the fixture's test body ran (the counter file), 0 when
 * it never did. */
static int bodies_run(const scratch *s)
{
  char path[128];
  snprintf(path, sizeof path, "%s/n", s->dir);
  char *t = st_slurp(path);
  int n = t ? atoi(t) : 0;
  free(t);
  return n;
}

/* A string member of the test named name in the JSON report at path, or
 * of its first attempt ("first_attempt.outcome"); "" when absent. Also
 * copies the test's claim ids and attempts, "id@attempt;...", into claims. */
static void json_test(const char *path, const char *name, const char *member, char *out,
                      size_t len, char *claims, size_t clen)
{
  char err[600];
  perf__jsontree_node *doc = perf__jsontree_read(path, err, sizeof err);
  ST_CHECKF(doc != NULL, "%s", err);
  const perf__jsontree_node *tests = perf__jsontree_get(doc, "tests"), *t = NULL;
  for (size_t i = 0; tests && i < tests->n; i++) {
    const perf__jsontree_node *n = perf__jsontree_get(tests->kids[i], "name");
    if (n && !strcmp(n->text, name) && !t) t = tests->kids[i]; /* the first run */
  }
  out[0] = claims[0] = '\0';
  const char *dot = strchr(member, '.');
  const perf__jsontree_node *o = t;
  if (dot) {
    char head[64];
    snprintf(head, sizeof head, "%.*s", (int)(dot - member), member);
    o = perf__jsontree_get(t, head);
    member = dot + 1;
  }
  const perf__jsontree_node *m = perf__jsontree_get(o, member);
  if (m && m->text) snprintf(out, len, "%s", m->text);
  const perf__jsontree_node *c = perf__jsontree_get(t, "claims");
  size_t used = 0;
  for (size_t k = 0; c && k < c->n && used < clen; k++) {
    const perf__jsontree_node *id = perf__jsontree_get(c->kids[k], "id"),
                              *at = perf__jsontree_get(c->kids[k], "attempt");
    used += (size_t)snprintf(claims + used, clen - used, "%s@%s;", id ? id->text : "-",
                             at ? at->text : "-");
  }
  perf__jsontree_free(doc);
}

/* The KEEP message names a second attempt's kept claims; an id holding a
 * newline is never kept (it is judged again); the final outcome is the
 * second attempt's unless the first passed. */
ST_TEST(confirm_keep_message_lists_the_kept_claims)
{
  const char *ids[] = {"a.c:9", "a.c:12 [n=4]#2", "bad\nid"};
  size_t len;
  char *list = perf__confirm_keep_text(ids, 3, &len);
  ST_CHECK(list && len == strlen(list) && !strcmp(list, "a.c:9\na.c:12 [n=4]#2\n"));
  ST_CHECK(perf__confirm_listed(list, "a.c:9") && perf__confirm_listed(list, "a.c:12 [n=4]#2"));
  ST_CHECK(!perf__confirm_listed(list, "a.c:1") && !perf__confirm_listed(list, "a.c:12 [n=4]"));
  ST_CHECK(!perf__confirm_listed(list, "bad") && !perf__confirm_listed(NULL, "a.c:9"));
  free(list);
  char *none = perf__confirm_keep_text(ids, 0, &len);
  ST_CHECK(none && len == 0 && !*none && !perf__confirm_listed(none, "a.c:9"));
  free(none);
  ST_EQ(perf__confirm_final(PERF_OUTCOME_PASS, PERF_OUTCOME_FAIL), PERF_OUTCOME_PASS);
  ST_EQ(perf__confirm_final(PERF_OUTCOME_FAIL, PERF_OUTCOME_PASS), PERF_OUTCOME_PASS);
  ST_EQ(perf__confirm_final(PERF_OUTCOME_INCONCLUSIVE, PERF_OUTCOME_FAIL), PERF_OUTCOME_FAIL);
}

/* A claim record carries its id, the attempt that judged it and whether a
 * second attempt kept it, and reads back the same; without them it has
 * none; an attempt other than 1 or 2 is refused. */
ST_TEST(confirm_claim_record_carries_id_attempt_and_kept)
{
  perf__claimrec c = {.message = "FASTER(a, b, 2) at t.c:9: PASS", .outcome = PERF_OUTCOME_PASS,
                      .id = "t.c:9 [n=4]#2", .attempt = 2, .kept = 1}, back;
  char err[400], *text = perf__claimrec_text(&c);
  ST_CHECKF(text && strstr(text, "\"id\": \"t.c:9 [n=4]#2\", \"attempt\": 2, \"kept\": true"),
            "%s", text ? text : "(none)");
  ST_EQ(text ? perf__claimrec_parse(text, &back, err, sizeof err) : -1, 0);
  ST_CHECK(back.id && !strcmp(back.id, c.id) && back.attempt == 2 && back.kept == 1);
  char *again = perf__claimrec_text(&back);
  ST_CHECK(again && text && !strcmp(again, text));
  free(again);
  free(text);
  perf__claimrec_free(&back);
  ST_EQ(perf__claimrec_parse("{\"message\": \"m\", \"outcome\": \"PASS\"}", &back, err,
                             sizeof err), 0);
  ST_CHECK(!back.id && !back.attempt && !back.kept);
  perf__claimrec_free(&back);
  ST_EQ(perf__claimrec_parse("{\"message\": \"m\", \"outcome\": \"PASS\", \"attempt\": 3}",
                             &back, err, sizeof err), PERF__EPROTO);
  ST_CHECKF(strstr(err, "'attempt'") != NULL, "%s", err);
}

/* A claim that fails in the first attempt and passes in the second: the
 * test PASSes (exit 0) with both attempts shown; the claim that passed in
 * the first attempt is taken from it and its workload never runs in the
 * second; every report shows both attempts. */
ST_TEST(confirm_fail_then_pass_is_a_pass_with_both_attempts_shown)
{
  scratch s;
  scratch_new(&s);
  char args[1024], line[LINE], path[256], got[64], claims[1024];
  snprintf(args, sizeof args, "--color=never --verbose --filter=confirm.fails_then_passes "
           "--json=%s/r.json --junit=%s/r.xml --markdown=%s/r.md --html=%s/r.html",
           s.dir, s.dir, s.dir, s.dir);
  st_run r;
  st_exec(&r, s.env, args);
  st_expect(&r, "confirm.fails_then_passes", "PASS", NULL);
  ST_EQ(r.status, 0);
  ST_EQ(bodies_run(&s), 2);
  ST_CHECK(st_line_with(&r, "first attempt: FASTER(a, b, 2) at framework/tests/fixtures/confirm.c:",
                        ": FAIL: ", line, sizeof line));
  ST_CHECK(st_line_with(&r, "confirmed: PASS in a fresh worker (second attempt, final): 1 claim "
                        "judged in it, 1 taken from the first attempt", NULL, line, sizeof line));
  ST_CHECK(st_line_with(&r, "FASTER(a, kept, 2) at", ": PASS (in the first attempt; not judged "
                        "again)", line, sizeof line));
  ST_CHECK(strstr(r.out, "| attempt 2: the kept claim's workload ran 0 times") != NULL);
  /* each attempt judges at alpha/2: 1 - 0.05/2/12 */
  ST_CHECK(st_line_with(&r, "FASTER(a, b, 2) at", "99.79% CI [", line, sizeof line));
  ST_CHECK(!strcmp(st_last_line(&r, line, sizeof line), "1 passed, 0 failed, 0 skipped"));
  snprintf(path, sizeof path, "%s/r.json", s.dir);
  json_test(path, "confirm.fails_then_passes", "attempts", got, sizeof got, claims, sizeof claims);
  ST_STR(got, "2");
  json_test(path, "confirm.fails_then_passes", "first_attempt.outcome", got, sizeof got, claims,
            sizeof claims);
  ST_STR(got, "FAIL");
  /* the kept claim (the first made) from attempt 1, the other from attempt 2 */
  const char *one = strstr(claims, "fixtures/confirm.c:"), *kept = strstr(claims, "@1;"),
             *again = strstr(claims, "@2;");
  ST_CHECKF(one && kept && again && kept < again && !strstr(kept + 1, "@1;") &&
                !strstr(again + 1, "@2;"), "%s", claims);
  const char *exts[] = {"xml", "md", "html"};
  for (int k = 0; k < 3; k++) {
    snprintf(path, sizeof path, "%s/r.%s", s.dir, exts[k]);
    char *t = st_slurp(path);
    ST_CHECKF(t && strstr(t, "first attempt: FASTER(a, b, 2)") && strstr(t, "confirmed: PASS"),
              "%s: %s", path, t ? t : "(none)");
    free(t);
  }
  done(&s, &r);
}

/* A claim that fails twice: FAIL (exit 1), both attempts shown; JUnit's
 * failure message is the final attempt's verdict, not the first's. */
ST_TEST(confirm_fail_twice_is_a_fail)
{
  scratch s;
  scratch_new(&s);
  char args[512], line[LINE], path[256];
  snprintf(args, sizeof args, "--color=never --filter=host.four_x_work_is_not_8x_faster "
           "--junit=%s/r.xml", s.dir);
  st_run r;
  st_exec(&r, "", args);
  st_expect(&r, "host.four_x_work_is_not_8x_faster", "FAIL", "FASTER(a, b, 8)");
  ST_EQ(r.status, 1);
  ST_CHECK(st_line_with(&r, "first attempt: FASTER(a, b, 8)", ": FAIL: ", line, sizeof line));
  ST_CHECK(st_line_with(&r, "confirmed: FAIL in a fresh worker", NULL, line, sizeof line));
  ST_CHECK(!strcmp(st_last_line(&r, line, sizeof line), "0 passed, 1 failed, 0 skipped"));
  snprintf(path, sizeof path, "%s/r.xml", s.dir);
  char *x = st_slurp(path);
  ST_CHECKF(x && strstr(x, "<failure message=\"FASTER(a, b, 8) at ") &&
                strstr(x, "first attempt: FASTER(a, b, 8)"), "%s", x ? x : "(none)");
  free(x);
  done(&s, &r);
}

/* INCONCLUSIVE in the first attempt, PASS in the second: a PASS. */
ST_TEST(confirm_inconclusive_then_pass_is_a_pass)
{
  scratch s;
  char line[LINE];
  st_run r;
  /* the first attempt's one round spends the budget, the second's 12 fit
   * in it stretched; a wrapper (valgrind) slows both some 20-50x */
  run_counted(&s, &r, st_slow() ? "--color=never --budget=1 --filter=confirm.inconclusive_then_passes"
                                : "--color=never --budget=0.05 --filter=confirm.inconclusive_then_passes");
  st_expect(&r, "confirm.inconclusive_then_passes", "PASS", NULL);
  ST_EQ(r.status, 0);
  ST_CHECK(st_line_with(&r, "first attempt: FASTER(a, b, 2)",
                        ": INCONCLUSIVE (time budget spent before two rounds)", line, sizeof line));
  ST_CHECK(st_line_with(&r, "confirmed: PASS", NULL, line, sizeof line));
  ST_EQ(bodies_run(&s), 2);
  done(&s, &r);
}

/* An ASSERT that failed ended the first attempt; the second runs past it
 * and judges the claim the first never reached. */
ST_TEST(confirm_assert_then_pass_judges_what_the_first_never_reached)
{
  scratch s;
  char line[LINE];
  st_run r;
  run_counted(&s, &r, "--color=never --verbose --filter=confirm.assert_then_passes");
  st_expect(&r, "confirm.assert_then_passes", "PASS", NULL);
  ST_CHECK(st_line_with(&r, "confirmed: PASS", "2 claims judged in it, 0 taken", line, sizeof line));
  ST_CHECK(strstr(r.out, "| attempt 2 reached the claim after the ASSERT") != NULL);
  ST_CHECK(strstr(r.out, "attempt 1 reached") == NULL);
  done(&s, &r);
}

/* Each sweep point is a claim: only the point that failed is judged again. */
ST_TEST(confirm_sweep_judges_again_only_the_point_that_failed)
{
  scratch s;
  scratch_new(&s);
  char args[512], line[LINE], path[256], got[64], claims[1024];
  snprintf(args, sizeof args, "--color=never --filter=confirm.sweep_point_fails_once --json=%s/r.json",
           s.dir);
  st_run r;
  st_exec(&r, s.env, args);
  st_expect(&r, "confirm.sweep_point_fails_once", "PASS", NULL);
  ST_CHECK(st_line_with(&r, "first attempt: FASTER(a, b, 2) at ", "[k=2]: FAIL: ", line, sizeof line));
  ST_CHECK(st_line_with(&r, "confirmed: PASS", "1 claim judged in it, 2 taken", line, sizeof line));
  snprintf(path, sizeof path, "%s/r.json", s.dir);
  json_test(path, "confirm.sweep_point_fails_once", "first_attempt.outcome", got, sizeof got,
            claims, sizeof claims);
  ST_STR(got, "FAIL");
  ST_CHECKF(strstr(claims, "[k=1]@1;") && strstr(claims, "[k=2]@2;") && strstr(claims, "[k=4]@1;"),
            "%s", claims);
  done(&s, &r);
}

/* Deterministic checks are not confirmed: a test failed only by a TRUE
 * runs once; beside a ratio claim that fails, a TRUE is evaluated again
 * and its second result is final. A test that crashed (here: exited) after
 * a claim failed runs once. */
ST_TEST(confirm_deterministic_checks_run_once_or_again)
{
  scratch s;
  char line[LINE];
  st_run r;
  run_counted(&s, &r, "--color=never --filter=host.falsehood:confirm.truth_fails_twice");
  st_expect(&r, "host.falsehood", "FAIL", "TRUE(1 + 1 == 3)");
  ST_CHECK(!st_line_with(&r, "first attempt: TRUE(1 + 1 == 3)", NULL, line, sizeof line));
  st_expect(&r, "confirm.truth_fails_twice", "FAIL", "TRUE(n == 0)");
  ST_CHECK(st_line_with(&r, "first attempt: TRUE(n == 0)", NULL, line, sizeof line));
  ST_CHECK(st_line_with(&r, "confirmed: FAIL", "2 claims judged in it", line, sizeof line));
  ST_EQ(r.status, 1);
  ST_EQ(bodies_run(&s), 2);
  done(&s, &r);
  /* nor a test that ends its process after a claim failed */
  run_counted(&s, &r, "--color=never --filter=confirm.fails_then_exits");
  st_expect(&r, "confirm.fails_then_exits", "FAIL", "exit status 3");
  ST_CHECK(!strstr(r.out, "first attempt: ") && !strstr(r.out, "confirmed: "));
  ST_EQ(bodies_run(&s), 1);
  done(&s, &r);
}

/* --no-confirm: one attempt, judged at the whole alpha (1 - 0.05/12). */
ST_TEST(confirm_off_reports_the_first_attempt)
{
  scratch s;
  char line[LINE];
  st_run r;
  run_counted(&s, &r, "--color=never --no-confirm --filter=confirm.fails_then_passes");
  st_expect(&r, "confirm.fails_then_passes", "FAIL", "FASTER(a, b, 2)");
  ST_EQ(r.status, 1);
  ST_EQ(bodies_run(&s), 1);
  ST_CHECK(!strstr(r.out, "first attempt: ") && !strstr(r.out, "confirmed: "));
  ST_CHECK(st_line_with(&r, "FASTER(a, b, 2) at", "99.58% CI [", line, sizeof line));
  done(&s, &r);
}

/* --repeat: each run confirms on its own; the headroom table counts the
 * first attempt's FAIL as a run of the claim (it flips). --merge keeps the
 * first attempt. */
ST_TEST(confirm_with_repeat_and_merge)
{
  scratch s;
  scratch_new(&s);
  char args[1024], line[LINE], path[256], got[64], claims[1024];
  snprintf(args, sizeof args, "--color=never --repeat=2 --filter=confirm.fails_then_passes "
           "--json=%s/r.json", s.dir);
  st_run r;
  st_exec(&r, s.env, args);
  ST_EQ(r.status, 0);
  ST_EQ(bodies_run(&s), 3); /* run 1: two attempts; run 2 passed at once */
  ST_EQ(st_count(r.out, "confirmed: PASS"), 1);
  ST_CHECK(!strcmp(st_last_line(&r, line, sizeof line), "2 passed, 0 failed, 0 skipped"));
  const char *row = st_line_with(&r, "FASTER(a, b, 2) at framework/tests/fixtures/confirm.c:",
                                 "<< FLIPS", line, sizeof line);
  ST_CHECKF(row && strstr(row, "2 PASS, 1 FAIL"), "%s", r.out);
  st_run_free(&r);
  snprintf(args, sizeof args, "--html=%s/m.html --merge=%s/m.json %s/r.json", s.dir, s.dir, s.dir);
  st_exec(&r, "", args);
  ST_CHECKF(r.status == 0, "%d: %s", r.status, r.out);
  snprintf(path, sizeof path, "%s/m.json", s.dir);
  json_test(path, "confirm.fails_then_passes", "first_attempt.outcome", got, sizeof got, claims,
            sizeof claims);
  ST_STR(got, "FAIL");
  snprintf(path, sizeof path, "%s/m.html", s.dir);
  char *h = st_slurp(path);
  ST_CHECKF(h && strstr(h, "first attempt: FASTER(a, b, 2)"), "%s", h ? "no line" : "no page");
  free(h);
  done(&s, &r);
}

/* Runs the fixture test (a CROSSOVER over k = 16..256 that passes in both
 * attempts beside a FASTER that fails in the first only) with --json into
 * s->dir, checks that the second attempt took the crossover from the
 * first, saying so, and leaves the JSON claims' ids in claims. */
static void kept_crossover(scratch *s, st_run *r, const char *test, char *claims, size_t len)
{
  char args[512], line[LINE], path[256], got[64];
  scratch_new(s);
  snprintf(args, sizeof args, "--color=never --verbose --filter=%s --json=%s/r.json", test, s->dir);
  st_exec(r, s->env, args);
  st_expect(r, test, "PASS", NULL);
  ST_CHECK(st_line_with(r, "confirmed: PASS", "1 claim judged in it, 1 taken", line, sizeof line));
  ST_CHECK(st_line_with(r, "CROSSOVER(cheap, dear, k, 16, 256) at ",
                        ": PASS (in the first attempt; not judged again)", line, sizeof line));
  snprintf(path, sizeof path, "%s/r.json", s->dir);
  json_test(path, test, "attempts", got, sizeof got, claims, len);
  ST_STR(got, "2");
}

/* A CROSSOVER is one claim over its sweep's points: kept whole, none of
 * its points measured again, while a FASTER at its last point is judged
 * again. */
ST_TEST(confirm_keeps_a_crossover_whole)
{
  scratch s;
  st_run r;
  char line[LINE], claims[1024];
  kept_crossover(&s, &r, "confirm.crossover_kept", claims, sizeof claims);
  ST_CHECK(!st_line_with(&r, "CROSSOVER(cheap, dear, k, 16, 256) at ", "[k=16]", line, sizeof line));
  const char *cross = strstr(claims, "fixtures/confirm.c:"), *point = strstr(claims, " [k=256]@2;");
  ST_CHECKF(cross && point && strstr(cross, "@1;") < point, "%s", claims);
  done(&s, &r);
}

/* The kept crossover is reported though the sweep's last point skips it
 * (a `continue`): before, the second attempt dropped it from the report. */
ST_TEST(confirm_keeps_a_crossover_the_last_point_skips)
{
  scratch s;
  st_run r;
  char claims[1024];
  kept_crossover(&s, &r, "confirm.crossover_kept_before_the_last_point", claims, sizeof claims);
  ST_CHECKF(strstr(claims, "fixtures/confirm.c:"), "%s", claims);
  done(&s, &r);
}
