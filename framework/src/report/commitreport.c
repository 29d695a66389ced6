/* commitreport.c — --commit-report=COMMIT: one commit across GPUs, judged from the history. */
/* Each GPU's outcome, what changed against its earlier commits, and the GPUs
 * that did not run; exit 0, 1 (a GPU regressed) or 125 (git bisect's skip). */
#define _GNU_SOURCE
#include "report/commitreport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "host/clock.h"
#include "io/file.h"
#include "util/progname.h"
#include "util/status.h"
#include "util/units.h"
#include "history/band.h"
#include "history/connect.h"
#include "history/judge.h"
#include "history/schema.h"
#include "history/series.h"
#include "history/store.h"
#include "report/commitdoc.h"
#include "report/report.h"
#include "report/tally.h"
#include "report/xml.h"

typedef perf__commitdoc_change change;
typedef perf__commitdoc_attempt attempt;
typedef perf__commitdoc_gpu gpu_row;
typedef perf__commitdoc report;

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

/* Frees what an attempt holds. Never fails. */
static void attempt_free(attempt *a)
{
  free(a->run_key);
  free(a->unfit);
}

/* Row: gpu, failed, run_key, shard_index, shard_total, unfit (in
 * recording order): a later attempt of the same shard of the same run
 * replaces the earlier. */
static int attempt_cb(void *ctx, int n, const char *const *v)
{
  gpu_row *g = n >= 6 && v[0] ? gpu_named(ctx, v[0]) : NULL;
  if (!g) return n >= 6 && v[0];
  attempt a = {v[2] ? strdup(v[2]) : NULL, v[5] && *v[5] ? strdup(v[5]) : NULL,
               v[3] ? atol(v[3]) : 0, v[4] ? atol(v[4]) : 1, v[1] ? atol(v[1]) : 0};
  if ((v[2] && !a.run_key) || (v[5] && *v[5] && !a.unfit)) return attempt_free(&a), 1;
  for (size_t i = 0; a.run_key && i < g->nat; i++)
    if (g->at[i].run_key && !strcmp(g->at[i].run_key, a.run_key) && g->at[i].shard == a.shard) {
      attempt_free(&g->at[i]);
      g->at[i] = a;
      g->retried++;
      return 0;
    }
  attempt *more = realloc(g->at, (g->nat + 1) * sizeof *more);
  if (!more) return attempt_free(&a), 1;
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
    if (a->unfit) {
      g->unfit++, g->unfit_failed += a->failed;
      if (!g->unfit_why) g->unfit_why = a->unfit;
    } else {
      g->failed += a->failed;
    }
    if (!a->run_key || whole_run(g, a->run_key, a->total, &seen)) whole = 1;
    else if (!g->incomplete[0])
      snprintf(g->incomplete, sizeof g->incomplete, "run %s: %ld of %ld %s recorded",
               a->run_key, seen, a->total, perf__units_noun(a->total, "shard", "shards"));
  }
  if (whole) memcpy(g->partial, g->incomplete, sizeof g->partial), g->incomplete[0] = '\0';
}

/* The attempts query of a schema version: before 4 no unfit column,
 * before 5 no run ids. */
static const char *attempts_sql(int version)
{
  return version >= 5 ? "SELECT gpu, failed, run_key, shard_index, shard_total, unfit FROM "
                        "perfgate_runs WHERE commit_id = $1 ORDER BY id"
         : version >= 4 ? "SELECT gpu, failed, NULL, 0, 1, unfit FROM perfgate_runs WHERE "
                          "commit_id = $1 ORDER BY id"
                        : "SELECT gpu, failed, NULL, 0, 1, NULL FROM perfgate_runs WHERE "
                          "commit_id = $1 ORDER BY id";
}

/* Every GPU of the history, and the shards that count at the commit on
 * each (version: the store's schema). Returns 0 or the store's error
 * (err[len]). */
static int read_gpus(perf__store *s, report *r, int version, char *err, size_t len)
{
  perf__store_value c = perf__store_text(r->commit);
  const perf__store_stmt gpus = {.sql = "SELECT DISTINCT gpu FROM perfgate_runs ORDER BY gpu",
                                 .on_row = gpu_cb, .ctx = r};
  const perf__store_stmt attempts = {.sql = attempts_sql(version), .param = &c, .nparam = 1,
                                     .on_row = attempt_cb, .ctx = r};
  int e = perf__store_exec(s, &gpus, err, len);
  if (!e) e = perf__store_exec(s, &attempts, err, len);
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
  const perf__store_stmt q = {.sql = "SELECT max(id) FROM perfgate_runs WHERE commit_id = $1", .param = &c,
                              .nparam = 1, .on_row = id_cb, .ctx = &id};
  if (perf__store_exec(s, &q, err, sizeof err)) return 0;
  return id;
}

/* The runs recorded at commit (0 on an error). */
static long runs_at(perf__store *s, const char *commit)
{
  long n = 0;
  char err[300];
  perf__store_value c = perf__store_text(commit);
  const perf__store_stmt q = {.sql = "SELECT count(*) FROM perfgate_runs WHERE commit_id = $1", .param = &c,
                              .nparam = 1, .on_row = count_cb, .ctx = &n};
  if (perf__store_exec(s, &q, err, sizeof err)) return 0;
  return n;
}

/* ---- what changed ------------------------------------------------------------ */

/* 1 when the two points' intervals do not overlap. */
static int disjoint(const perf__series_point *a, const perf__series_point *b)
{
  return a->lo > b->hi || a->hi < b->lo;
}

/* One series at the commit: its point there, its newest earlier one,
 * and the axis index of its band's first commit. */
typedef struct look {
  const perf__series *s;
  const perf__series_point *now, *was;
  size_t from;         /* the axis index of the band's first commit */
} look;

/* Room for one GPU's series: looks and judge items (one per series of
 * the axis), and a series' earlier values with their point indexes. */
typedef struct room {
  look *lk;
  perf__judge_item *it;
  double *v, *lo, *hi; /* a series' earlier values and their within-run intervals */
  size_t *ix;
} room;

/* Adds a change of kind cls for look l to g. Returns 0, or -1 without
 * memory. */
static int add_change(gpu_row *g, const look *l, const perf__judge_item *x, perf__judge_class cls)
{
  change *c = realloc(g->ch, (g->nch + 1) * sizeof *c);
  if (!c) return -1;
  g->ch = c;
  c = &g->ch[g->nch++];
  *c = (change){l->s, *l->was, *l->now, g->axis->commit[l->was->at], g->axis->commit[l->from],
                x->band, x->p, x->fall.rel, x->fall.sd, x->tail_p, x->tail_nu, cls,
                cls == PERF__JUDGE_WORSE};
  if (cls == PERF__JUDGE_SHORT) {
    c->rel = l->now->value / l->was->value - 1;
    c->worse = 1;
    g->nshort++;
  }
  if (cls == PERF__JUDGE_TAIL) c->worse = perf__judge_is_worse(x->worse, exp(x->band.mean), l->now->value), g->ntail++;
  g->nundecided += cls == PERF__JUDGE_SHORT || cls == PERF__JUDGE_TAIL;
  g->nworse += cls == PERF__JUDGE_WORSE;
  return 0;
}

/* Series s on g's axis at index at: its look and judge item into
 * rm->lk[*k] and rm->it[*k] (*k counts it) when it has a point there and
 * an earlier commit; g's counts. Returns 0, or -1 without memory. */
static int look_at(report *r, gpu_row *g, const perf__series *s, size_t at, room *rm, size_t *k)
{
  const perf__series_point *now = NULL;
  size_t nv = 0;
  for (size_t j = 0; j < s->n; j++) {
    if (s->pts[j].at == at) now = &s->pts[j];
    else if (s->pts[j].at < at && earlier(r, g->axis->commit[s->pts[j].at]))
      rm->v[nv] = s->pts[j].value, rm->lo[nv] = s->pts[j].lo, rm->hi[nv] = s->pts[j].hi, rm->ix[nv++] = j;
  }
  if (!now) return 0;
  g->series++;
  if (!nv || !(now->value > 0) || !isfinite(now->value)) return 0;
  perf__judge_item *x = &rm->it[*k];
  *x = (perf__judge_item){.is_claim = s->is_claim, .clock = s->clock, .worse = perf__judge_worse_of(s->is_claim, s->kind),
                          .host = perf__clock_host_side(perf__clock_of_name(s->clock)), .y = now->value};
  int e = perf__band_of(rm->v, rm->lo, rm->hi, nv, &x->band);
  if (e == PERF__ENOMEM) return -1;
  if (e) return 0; /* a value that is not positive: nothing to compare with */
  g->compared++;
  rm->lk[(*k)++] = (look){s, now, &s->pts[rm->ix[nv - 1]], s->pts[rm->ix[x->band.from]].at};
  return 0;
}

/* Records what the judge said of g's n looks. Returns 0, or -1 without
 * memory. */
static int collect(gpu_row *g, const room *rm, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    const look *l = &rm->lk[i];
    const perf__judge_item *x = &rm->it[i];
    double moved = l->now->value / l->was->value - 1;
    g->machine += x->cls == PERF__JUDGE_MACHINE;
    if (perf__judge_moved(x->cls) && add_change(g, l, x, x->cls)) return -1;
    /* Too short a band: a move the within-run intervals call one is
     * named, undecided, never a regression. */
    if (x->cls == PERF__JUDGE_SHORT && fabs(moved) >= PERF__JUDGE_MIN_CHANGE &&
        disjoint(l->now, l->was) && perf__judge_is_worse(x->worse, l->was->value, l->now->value) &&
        add_change(g, l, x, PERF__JUDGE_SHORT))
      return -1;
  }
  return 0;
}

/* Judges the series of axis a at its index at for g. Returns 0, or -1
 * without memory. */
static int judge_gpu(report *r, gpu_row *g, const perf__series_set *set, size_t a, size_t at)
{
  size_t ns = 0, most = 0, k = 0;
  for (size_t i = 0; i < set->n; i++)
    if (set->s[i].axis == a) ns++, most = set->s[i].n > most ? set->s[i].n : most;
  room rm = {calloc(ns + 1, sizeof *rm.lk), calloc(ns + 1, sizeof *rm.it),
             malloc((most + 1) * sizeof *rm.v), malloc((most + 1) * sizeof *rm.lo),
             malloc((most + 1) * sizeof *rm.hi), malloc((most + 1) * sizeof *rm.ix)};
  int e = !rm.lk || !rm.it || !rm.v || !rm.lo || !rm.hi || !rm.ix ? -1 : 0;
  for (size_t i = 0; !e && i < set->n; i++)
    if (set->s[i].axis == a) e = look_at(r, g, &set->s[i], at, &rm, &k);
  if (!e) e = perf__judge_commit(rm.it, k, &g->shift, &g->decided) ? -1 : 0;
  if (!e) e = collect(g, &rm, k);
  free(rm.lk), free(rm.it), free(rm.v), free(rm.lo), free(rm.hi), free(rm.ix);
  return e;
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
    if (judge_gpu(r, g, set, a, at)) return -1;
  }
  return 0;
}

/* The exit code of the analysed report, its reason into *why: 125 when a
 * GPU's run of it is INCOMPLETE (never green, whatever else it shows: the
 * commit is judged once its run is whole); else 1 when a GPU regressed;
 * 0 when every GPU that ran it held; else 125 (a GPU UNDECIDED, or none
 * ran it). Never fails. */
static int code_of(const report *r, const char **why)
{
  int held = 0, regressed = 0, undecided = 0;
  for (size_t i = 0; i < r->ng; i++) {
    perf__commitdoc_verdict v = perf__commitdoc_verdict_of(&r->g[i]);
    if (v == PERF__COMMITDOC_INCOMPLETE)
      return *why = "not decided: a run's shards were not all recorded", PERF__COMMITREPORT_SKIP;
    regressed |= v == PERF__COMMITDOC_REGRESSED;
    undecided |= v == PERF__COMMITDOC_UNDECIDED;
    held |= v == PERF__COMMITDOC_HELD;
  }
  if (regressed) return *why = "a GPU regressed", 1;
  if (held && !undecided) return *why = "every GPU that ran it held", 0;
  *why = held ? "not decided: a GPU that ran it is UNDECIDED"
              : "not decided: no GPU that ran it could be judged";
  return PERF__COMMITREPORT_SKIP;
}

static void report_free(report *r)
{
  for (size_t i = 0; i < r->ng; i++) {
    for (size_t k = 0; k < r->g[i].nat; k++) attempt_free(&r->g[i].at[k]);
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
                          last_id_at(s, r->commit), 0, 1};
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
  for (size_t i = 0; i < r->ng; i++) perf__commitdoc_print_gpu(&r->g[i]);
  const char *why;
  int code = code_of(r, &why);
  r->how = how;
  for (const perf__report_format *f = perf__report_formats(); f->opt; f++) { /* the table's rows */
    const char *path = f->commit ? perf__report_path(cli, f) : NULL;
    if (path && perf__report_write_doc(f->opt, path, f->commit, r)) code = 2;
  }
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
