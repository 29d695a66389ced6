/* commitreport.c — --commit-report=COMMIT: one commit across GPUs from the history: each GPU's outcome, what changed against its earlier commits, the GPUs that did not run; exit 0, 1 (a GPU regressed) or 125 (git bisect's skip). */
#define _GNU_SOURCE
#include "report/commitreport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "base/file.h"
#include "base/progname.h"
#include "base/status.h"
#include "base/units.h"
#include "history/connect.h"
#include "history/schema.h"
#include "history/series.h"
#include "history/store.h"
#include "report/tally.h"
#include "report/xml.h"

/* One series that changed at the commit on one GPU. */
typedef struct change {
  const perf__series *s;
  perf__series_point was, now;
  const char *was_commit;
  double rel;  /* now / was - 1 */
  int worse;
} change;

/* One shard's last attempt at the commit on one GPU. */
typedef struct attempt {
  char *run_key;       /* NULL: a run recorded with no run id (one whole run) */
  long shard, total, failed;
} attempt;

/* One GPU: what ran at the commit and what changed. */
typedef struct gpu_row {
  char name[200];
  attempt *at;         /* the last attempt of each shard, in recording order */
  size_t nat;
  long retried;        /* attempts a later one of the same shard replaced */
  long runs, shards, failed; /* runs (a run id's shards one run) and shards that count at
                                the commit; failed tests in them */
  char incomplete[200]; /* "run 8812: 2 of 4 shards" when no run is whole; "" */
  char partial[200];    /* the same for a run not whole beside a whole one */
  const perf__series_axis *axis; /* NULL: the series have no point there */
  size_t series, compared;       /* series at the commit; those with an earlier commit */
  change *ch;
  size_t nch, nworse;
} gpu_row;

typedef struct report {
  const char *commit;    /* as the history has it */
  int git;               /* earlier = ancestors in git */
  gpu_row *g;
  size_t ng;
  struct {
    char *commit;
    int ancestor;
  } seen[256];           /* git's answers, by commit */
  size_t nseen;
} report;

/* ---- git ------------------------------------------------------------------ */

/* Runs git with args (NULL-terminated, after "git"), its output into
 * out[len] (first line; NULL: discarded). Returns its exit status, or -1
 * when it cannot run. */
static int git(const char *const *args, char *out, size_t len)
{
  int fd[2];
  if (pipe(fd)) return -1;
  pid_t pid = fork();
  if (pid < 0) return close(fd[0]), close(fd[1]), -1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(out ? fd[1] : null, 1);
    dup2(null, 2);
    close(fd[0]);
    const char *argv[16] = {"git"};
    for (int i = 0; args[i] && i < 14; i++) argv[i + 1] = args[i];
    execvp("git", (char *const *)argv);
    _exit(127);
  }
  close(fd[1]);
  char buf[512] = "";
  ssize_t n = read(fd[0], buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = '\0';
  close(fd[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0) {
  }
  if (out) snprintf(out, len, "%.*s", (int)strcspn(buf, "\n"), buf);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The full id of commit in the repository here, into out[len]; 0 when git
 * knows it. */
static int git_resolve(const char *commit, char *out, size_t len)
{
  char spec[300];
  snprintf(spec, sizeof spec, "%s^{commit}", commit);
  const char *args[] = {"rev-parse", "--verify", "--quiet", spec, NULL};
  return git(args, out, len) == 0 && *out ? 0 : -1;
}

/* 1 when x is an earlier commit of the report's commit: an ancestor in git
 * (asked once per commit), or, without git, any commit recorded before it. */
static int earlier(report *r, const char *x)
{
  if (!r->git) return 1;
  for (size_t i = 0; i < r->nseen; i++)
    if (!strcmp(r->seen[i].commit, x)) return r->seen[i].ancestor;
  const char *args[] = {"merge-base", "--is-ancestor", x, r->commit, NULL};
  int yes = strcmp(x, r->commit) && git(args, NULL, 0) == 0;
  if (r->nseen < sizeof r->seen / sizeof r->seen[0] && (r->seen[r->nseen].commit = strdup(x)))
    r->seen[r->nseen++].ancestor = yes;
  return yes;
}

/* ---- the history ------------------------------------------------------------ */

typedef struct rows {
  report *r;
  int add; /* 1: add GPUs not seen yet (all GPUs); 0: fill runs at the commit */
} rows;

/* A GPU row by name, added when new. NULL without memory. */
static gpu_row *gpu_named(report *r, const char *name)
{
  for (size_t i = 0; i < r->ng; i++)
    if (!strcmp(r->g[i].name, name)) return &r->g[i];
  gpu_row *g = realloc(r->g, (r->ng + 1) * sizeof *g);
  if (!g) return NULL;
  r->g = g;
  g = &r->g[r->ng++];
  memset(g, 0, sizeof *g);
  snprintf(g->name, sizeof g->name, "%s", name);
  return g;
}

/* Row: gpu. */
static int gpu_cb(void *ctx, int n, const char *const *v)
{
  return n < 1 || !v[0] ? 0 : !gpu_named(ctx, v[0]);
}

/* Row: gpu, failed, run_key, shard_index, shard_total (in recording
 * order): a later attempt of the same shard of the same run replaces the
 * earlier. */
static int attempt_cb(void *ctx, int n, const char *const *v)
{
  gpu_row *g = n >= 5 && v[0] ? gpu_named(ctx, v[0]) : NULL;
  if (!g) return n >= 5 && v[0];
  attempt a = {v[2] ? strdup(v[2]) : NULL, v[3] ? atol(v[3]) : 0, v[4] ? atol(v[4]) : 1,
               v[1] ? atol(v[1]) : 0};
  if (v[2] && !a.run_key) return 1;
  for (size_t i = 0; a.run_key && i < g->nat; i++)
    if (g->at[i].run_key && !strcmp(g->at[i].run_key, a.run_key) && g->at[i].shard == a.shard) {
      free(g->at[i].run_key);
      g->at[i] = a;
      g->retried++;
      return 0;
    }
  attempt *more = realloc(g->at, (g->nat + 1) * sizeof *more);
  if (!more) return free(a.run_key), 1;
  g->at = more;
  g->at[g->nat++] = a;
  return 0;
}

/* The shards of one run id on g that count, into *seen; 1 when all of its
 * total are there. */
static int whole_run(const gpu_row *g, const char *key, long total, long *seen)
{
  *seen = 0;
  for (size_t i = 0; i < g->nat; i++)
    *seen += g->at[i].run_key && !strcmp(g->at[i].run_key, key);
  return *seen >= total;
}

/* From g's attempts: the runs and failed tests that count, and whether a
 * whole run is there (else g->incomplete says what is missing). */
static void tally_runs(gpu_row *g)
{
  int whole = 0;
  for (size_t i = 0; i < g->nat; i++) {
    const attempt *a = &g->at[i];
    long seen;
    int first = 1; /* the first shard of its run id here */
    for (size_t k = 0; a->run_key && k < i; k++)
      first &= !g->at[k].run_key || strcmp(g->at[k].run_key, a->run_key);
    g->runs += first;
    g->shards++;
    g->failed += a->failed;
    if (!a->run_key || whole_run(g, a->run_key, a->total, &seen)) whole = 1;
    else if (!g->incomplete[0])
      snprintf(g->incomplete, sizeof g->incomplete, "run %.60s: %ld of %ld %s recorded",
               a->run_key, seen, a->total, perf__units_noun(a->total, "shard", "shards"));
  }
  if (whole) memcpy(g->partial, g->incomplete, sizeof g->partial), g->incomplete[0] = '\0';
}

/* Every GPU of the history, and the shards that count at the commit on
 * each (version: the store's schema; before 5 no run ids). Returns 0 or
 * the store's error (err[len]). */
static int read_gpus(perf__store *s, report *r, int version, char *err, size_t len)
{
  perf__store_value c = perf__store_text(r->commit);
  int e = perf__store_exec(s, "SELECT DISTINCT gpu FROM perfgate_runs ORDER BY gpu", NULL, 0,
                           gpu_cb, r, err, len);
  if (!e)
    e = perf__store_exec(s, version >= 5
                                ? "SELECT gpu, failed, run_key, shard_index, shard_total FROM "
                                  "perfgate_runs WHERE commit_id = $1 ORDER BY id"
                                : "SELECT gpu, failed, NULL, 0, 1 FROM perfgate_runs WHERE "
                                  "commit_id = $1 ORDER BY id",
                         &c, 1, attempt_cb, r, err, len);
  for (size_t i = 0; !e && i < r->ng; i++) tally_runs(&r->g[i]);
  return e;
}

/* Row: count. */
static int count_cb(void *ctx, int n, const char *const *v)
{
  *(long *)ctx = n > 0 && v[0] ? atol(v[0]) : 0;
  return 0;
}

/* Row: a whole number. */
static int id_cb(void *ctx, int n, const char *const *v)
{
  *(long long *)ctx = n > 0 && v[0] ? atoll(v[0]) : 0;
  return 0;
}

/* The newest run id at commit (0 on an error): the end of the window the
 * report reads. */
static long long last_id_at(perf__store *s, const char *commit)
{
  long long id = 0;
  char err[300];
  perf__store_value c = perf__store_text(commit);
  if (perf__store_exec(s, "SELECT max(id) FROM perfgate_runs WHERE commit_id = $1", &c, 1, id_cb,
                       &id, err, sizeof err))
    return 0;
  return id;
}

/* The runs recorded at commit (0 on an error). */
static long runs_at(perf__store *s, const char *commit)
{
  long n = 0;
  char err[300];
  perf__store_value c = perf__store_text(commit);
  if (perf__store_exec(s, "SELECT count(*) FROM perfgate_runs WHERE commit_id = $1", &c, 1,
                       count_cb, &n, err, sizeof err))
    return 0;
  return n;
}

/* ---- what changed ------------------------------------------------------------ */

/* 1 when the two points' intervals do not overlap. */
static int disjoint(const perf__series_point *a, const perf__series_point *b)
{
  return a->lo > b->hi || a->hi < b->lo;
}

/* Whether now is worse than was for series s: a slower median, a FASTER
 * ratio that fell, a SIMILAR ratio further from 1. */
static int is_worse(const perf__series *s, double was, double now)
{
  if (!s->is_claim) return now > was;
  if (s->kind && !strcmp(s->kind, "SIMILAR")) return fabs(log(now)) > fabs(log(was));
  return now < was;
}

/* Compares series s at index at of its axis with its latest earlier
 * commit; adds a change to g when it moved. Returns 0, or -1 without
 * memory. */
static int compare(report *r, gpu_row *g, const perf__series *s, size_t at)
{
  const perf__series_point *now = NULL, *was = NULL;
  for (size_t k = s->n; k-- > 0;) {
    if (s->pts[k].at == at) now = &s->pts[k];
    else if (s->pts[k].at < at && now && earlier(r, g->axis->commit[s->pts[k].at])) {
      was = &s->pts[k];
      break;
    }
  }
  if (!now) return 0;
  g->series++;
  if (!was) return 0;
  g->compared++;
  double rel = now->value / was->value - 1;
  if (!disjoint(now, was) || !(fabs(rel) >= PERF__COMMITREPORT_MIN_CHANGE)) return 0;
  change *c = realloc(g->ch, (g->nch + 1) * sizeof *c);
  if (!c) return -1;
  g->ch = c;
  g->ch[g->nch++] = (change){s, *was, *now, g->axis->commit[was->at], rel,
                             is_worse(s, was->value, now->value)};
  g->nworse += g->ch[g->nch - 1].worse;
  return 0;
}

/* Fills each GPU's series and changes from set. Returns 0 or -1 without
 * memory. */
static int analyse(report *r, const perf__series_set *set)
{
  for (size_t a = 0; a < set->naxes; a++) {
    gpu_row *g = gpu_named(r, set->axes[a].gpu);
    if (!g) return -1;
    size_t at = SIZE_MAX;
    for (size_t k = 0; k < set->axes[a].n; k++)
      if (!strcmp(set->axes[a].commit[k], r->commit)) at = k;
    if (at == SIZE_MAX) continue;
    g->axis = &set->axes[a];
    for (size_t i = 0; i < set->n; i++)
      if (set->s[i].axis == a && compare(r, g, &set->s[i], at)) return -1;
  }
  return 0;
}

/* ---- the report ------------------------------------------------------------ */

/* A value as the report shows it: a time, or a ratio "5.54x". */
static char *value(const perf__series *s, double v, char *buf, size_t len)
{
  if (s->is_claim) snprintf(buf, len, "%.3fx", v);
  else perf__units_time(buf, len, v);
  return buf;
}

/* "+5.1% slower: 1.051 ms [1.041 ms, 1.061 ms] vs 1.000 ms [...] at c09".
 * Never fails. */
static char *describe(const change *c, char *buf, size_t len)
{
  char a[32], al[32], ah[32], b[32], bl[32], bh[32];
  const perf__series *s = c->s;
  snprintf(buf, len, "%+.1f%% %s: %s [%s, %s] vs %s [%s, %s] at %.12s", 100 * c->rel,
           c->worse ? "worse" : "better", value(s, c->now.value, a, sizeof a),
           value(s, c->now.lo, al, sizeof al), value(s, c->now.hi, ah, sizeof ah),
           value(s, c->was.value, b, sizeof b), value(s, c->was.lo, bl, sizeof bl),
           value(s, c->was.hi, bh, sizeof bh), c->was_commit);
  return buf;
}

/* The GPU's verdict word: REGRESSED (a failed test or a change for the
 * worse), "did not run", UNDECIDED (no earlier commit for any series), or
 * held. */
static const char *verdict(const gpu_row *g)
{
  if (!g->runs) return "did not run";
  if (g->failed || g->nworse) return "REGRESSED";
  if (g->incomplete[0]) return "INCOMPLETE";
  if (!g->compared) return "UNDECIDED";
  return "held";
}

static void print_gpu(const gpu_row *g)
{
  char line[700], lab[600];
  printf("  %s: %s", g->name, verdict(g));
  if (!g->runs) return (void)printf(" this commit\n");
  printf(": %ld %s", g->runs, perf__units_noun(g->runs, "run", "runs"));
  if (g->shards != g->runs) printf(" (%ld %s)", g->shards, perf__units_noun(g->shards, "shard", "shards"));
  printf(", %ld failed %s", g->failed, perf__units_noun(g->failed, "test", "tests"));
  if (g->retried) printf(" (%ld retried %s replaced by a later attempt)", g->retried,
                         perf__units_noun(g->retried, "shard", "shards"));
  if (g->incomplete[0]) printf("; %s, never green", g->incomplete);
  if (g->partial[0]) printf("; also %s (not whole)", g->partial);
  printf("; %zu of %zu series compared, %zu changed (%zu worse)\n", g->compared, g->series,
         g->nch, g->nworse);
  for (size_t i = 0; i < g->nch; i++)
    printf("      %s: %s\n", perf__series_label(g->ch[i].s, lab, sizeof lab),
           describe(&g->ch[i], line, sizeof line));
}

static void markdown_body(FILE *f, const report *r, const char *how)
{
  char line[700], lab[600];
  fprintf(f, "### perfgate: commit `%.40s` across GPUs\n\nEarlier commits: %s. A change is a "
             "move of %.0f %% or more with disjoint intervals.\n\n| GPU | verdict | runs | failed "
             "tests | series compared | changed (worse) |\n|---|---|---|---|---|---|\n",
          r->commit, how, 100 * PERF__COMMITREPORT_MIN_CHANGE);
  for (size_t i = 0; i < r->ng; i++) {
    const gpu_row *g = &r->g[i];
    fputs("| ", f);
    perf__tally_md_cell(f, g->name, SIZE_MAX);
    fprintf(f, " | %s%s%s | %ld | %ld | %zu of %zu | %zu (%zu) |\n", g->nworse || g->failed ? "**" : "",
            verdict(g), g->nworse || g->failed ? "**" : "", g->runs, g->failed, g->compared,
            g->series, g->nch, g->nworse);
  }
  for (size_t i = 0, said = 0; i < r->ng; i++) {
    const char *note = r->g[i].incomplete[0] ? r->g[i].incomplete : r->g[i].partial;
    if (!note[0]) continue;
    fputs(said++ ? "- " : "\n- ", f);
    perf__tally_md_cell(f, r->g[i].name, SIZE_MAX);
    fputs(": ", f);
    perf__tally_md_cell(f, note, SIZE_MAX);
    fputs(r->g[i].incomplete[0] ? ", never green\n" : " (not whole)\n", f);
  }
  for (size_t i = 0; i < r->ng; i++)
    for (size_t k = 0; k < r->g[i].nch; k++) {
      fputs(k ? "" : "\n", f);
      fputs("- ", f);
      perf__tally_md_cell(f, r->g[i].name, SIZE_MAX);
      fputs(" · ", f);
      perf__tally_md_code(f, perf__series_label(r->g[i].ch[k].s, lab, sizeof lab), SIZE_MAX);
      fputs(": ", f);
      perf__tally_md_cell(f, describe(&r->g[i].ch[k], line, sizeof line), SIZE_MAX);
      fputs("\n", f);
    }
}

static void html_body(FILE *f, const report *r, const char *how)
{
  char line[700], lab[600];
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>perfgate: "
        "commit ", f);
  perf__xml_str(f, r->commit);
  fputs("</title></head><body>\n<h1>perfgate: commit <code>", f);
  perf__xml_str(f, r->commit);
  fputs("</code> across GPUs</h1>\n<p>Earlier commits: ", f);
  perf__xml_str(f, how);
  fputs(".</p>\n<table><tr><th>GPU</th><th>verdict</th><th>runs</th><th>failed tests</th>"
        "<th>changes</th></tr>\n", f);
  for (size_t i = 0; i < r->ng; i++) {
    const gpu_row *g = &r->g[i];
    fputs("<tr><td>", f);
    perf__xml_str(f, g->name);
    fprintf(f, "</td><td class=\"%s\">%s</td><td>%ld</td><td>%ld</td><td>",
            g->nworse || g->failed ? "bad" : g->incomplete[0] ? "undecided" : "ok", verdict(g), g->runs, g->failed);
    if (g->incomplete[0] || g->partial[0]) {
      perf__xml_str(f, g->incomplete[0] ? g->incomplete : g->partial);
      fputs(g->incomplete[0] ? ", never green<br>" : " (not whole)<br>", f);
    }
    for (size_t k = 0; k < g->nch; k++) {
      perf__xml_str(f, perf__series_label(g->ch[k].s, lab, sizeof lab));
      fputs(": ", f);
      perf__xml_str(f, describe(&g->ch[k], line, sizeof line));
      fputs("<br>", f);
    }
    fputs("</td></tr>\n", f);
  }
  fputs("</table></body></html>\n", f);
}

/* Writes body to path, whole or not at all. Returns 0, or 2 after the
 * reason on stderr. */
static int write_file(const char *opt, const char *path, const report *r, const char *how,
                      void (*body)(FILE *, const report *, const char *))
{
  char *text = NULL, why[300];
  size_t len = 0;
  FILE *p = open_memstream(&text, &len);
  if (p) body(p, r, how);
  int bad = !p || ferror(p);
  if (p && fclose(p)) bad = 1;
  int e = bad ? (snprintf(why, sizeof why, "out of memory"), -1)
              : perf__file_replace(path, text, len, 0, NULL, why, sizeof why);
  free(text);
  if (e) fprintf(stderr, "%s: cannot write %s=%s: %s\n", perf__progname(), opt, path, why);
  return e ? 2 : 0;
}

/* The exit code of the analysed report, its reason into *why: 1 when a
 * GPU regressed; 125 when a run's shards were not all recorded (never
 * green) or no GPU that ran it could be judged; else 0. Never fails. */
static int code_of(const report *r, const char **why)
{
  int judged = 0, incomplete = 0;
  for (size_t i = 0; i < r->ng; i++) {
    const gpu_row *g = &r->g[i];
    if (g->runs && (g->failed || g->nworse)) return *why = "a GPU regressed", 1;
    judged |= g->runs && g->compared;
    incomplete |= g->runs && g->incomplete[0];
  }
  *why = incomplete ? "not decided: a run's shards were not all recorded"
         : judged   ? "every GPU that ran it held"
                    : "not decided: no GPU that ran it has an earlier commit";
  return judged && !incomplete ? 0 : PERF__COMMITREPORT_SKIP;
}

static void report_free(report *r)
{
  for (size_t i = 0; i < r->ng; i++) {
    for (size_t k = 0; k < r->g[i].nat; k++) free(r->g[i].at[k].run_key);
    free(r->g[i].at);
    free(r->g[i].ch);
  }
  free(r->g);
  for (size_t i = 0; i < r->nseen; i++) free(r->seen[i].commit);
}

/* Reads, analyses and prints; returns the exit code. */
static int run(const perf__options_cli *cli, perf__store *s, int version, report *r,
               const char *how)
{
  char err[600];
  perf__series_set set;
  /* The window: the runs of each GPU's newest PERF__COMMITREPORT_WINDOW commits up to the
   * commit's, not the whole history. */
  perf__series_query q = {cli->filter, NULL, cli->branch, PERF__COMMITREPORT_WINDOW,
                          last_id_at(s, r->commit), 0};
  if (read_gpus(s, r, version, err, sizeof err) || perf__series_load(s, &q, &set, err, sizeof err)) {
    fprintf(stderr, "%s: --commit-report: %s: not decided\n", perf__progname(), err);
    return PERF__COMMITREPORT_SKIP;
  }
  if (analyse(r, &set)) {
    perf__series_free(&set);
    fprintf(stderr, "%s: --commit-report: out of memory: not decided\n", perf__progname());
    return PERF__COMMITREPORT_SKIP;
  }
  printf("perfgate commit-report: %s in %s: %zu %s in the history; earlier commits: %s\n",
         r->commit, s->where, r->ng, perf__units_noun((long long)r->ng, "GPU", "GPUs"), how);
  for (size_t i = 0; i < r->ng; i++) print_gpu(&r->g[i]);
  const char *why;
  int code = code_of(r, &why);
  if (cli->markdown && write_file("--markdown", cli->markdown, r, how, markdown_body)) code = 2;
  if (cli->html && write_file("--html", cli->html, r, how, html_body)) code = 2;
  printf("perfgate commit-report: %s (exit %d)\n", code == 2 ? "a file could not be written" : why,
         code == 2 ? PERF__COMMITREPORT_SKIP : code);
  perf__series_free(&set);
  return code == 2 ? PERF__COMMITREPORT_SKIP : code;
}

/* See commitreport.h. */
int perf__commitreport_run(const perf__options_cli *cli)
{
  perf__store *s = NULL;
  char err[600], full[200] = "";
  report r = {.commit = cli->commit_report};
  int v = 0;
  if (perf__connect_open(cli->history, 0, &s, err, sizeof err) ||
      perf__schema_version(s, &v, err, sizeof err)) {
    if (s) perf__store_close(s);
    fprintf(stderr, "%s: --commit-report: %s: not decided\n", perf__progname(), err);
    return PERF__COMMITREPORT_SKIP;
  }
  r.git = git_resolve(cli->commit_report, full, sizeof full) == 0;
  if (r.git && v && runs_at(s, full)) r.commit = full;
  if (!v || !runs_at(s, r.commit)) {
    fprintf(stderr, "%s: --commit-report: commit %s was never recorded in %s: not decided\n",
            perf__progname(), cli->commit_report, s->where);
    perf__store_close(s);
    return PERF__COMMITREPORT_SKIP;
  }
  const char *how = r.git ? "its ancestors in git (the repository here)"
                          : "those recorded before it (no repository here knows the commit)";
  int code = run(cli, s, v, &r, how);
  perf__store_close(s);
  report_free(&r);
  return code;
}
