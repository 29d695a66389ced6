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
#include "report/tally.h"
#include "report/xml.h"

/* One series that moved at the commit on one GPU, or could not be
 * decided though it moved. */
typedef struct change {
  const perf__series *s;
  perf__series_point was, now; /* was: the newest earlier commit's point */
  const char *was_commit;      /* that commit */
  const char *band_from;       /* the band's first commit */
  perf__band band;
  double p, rel;               /* rel: now against the band's centre (undecided: against was) */
  double sd;                   /* the deviation between runs the test used (log units) */
  double tail_p, tail_nu;      /* as judge.h's rule 2 reads it, and its tails */
  perf__judge_class cls;       /* WORSE, BETTER or SHORT (undecided) */
  int worse;
} change;

/* One shard's last attempt at the commit on one GPU. */
typedef struct attempt {
  char *run_key;       /* NULL: a run recorded with no run id (one whole run) */
  char *unfit;         /* NULL: recorded fit (or before schema 4); else its causes */
  long shard, total, failed;
} attempt;

/* One GPU: what ran at the commit and what changed. */
typedef struct gpu_row {
  char name[200];
  attempt *at;         /* the last attempt of each shard, in recording order */
  size_t nat;
  long retried;        /* attempts a later one of the same shard replaced */
  long runs, shards, failed; /* runs (a run id's shards one run) and shards that count at
                                the commit; failed tests in the fit ones */
  long unfit, unfit_failed;  /* shards recorded unfit; failed tests in them */
  const char *unfit_why;     /* the first unfit shard's causes */
  char incomplete[300]; /* "run 8812: 2 of 4 shards" when no run is whole; "" */
  char partial[300];    /* the same for a run not whole beside a whole one */
  const perf__series_axis *axis; /* NULL: the series have no point there */
  size_t series, compared;       /* series at the commit; those with an earlier commit */
  size_t decided, machine;       /* those with a band long enough; moved with the machine */
  perf__judge_machine shift;
  change *ch;
  size_t nch, nworse, nundecided; /* undecided: nshort + ntail */
  size_t nshort, ntail;          /* moved, too short a band; within a host clock's tails */
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
  int e = perf__store_exec(s, "SELECT DISTINCT gpu FROM perfgate_runs ORDER BY gpu", NULL, 0,
                           gpu_cb, r, err, len);
  if (!e)
    e = perf__store_exec(s, attempts_sql(version), &c, 1, attempt_cb, r, err, len);
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

/* ---- the report ------------------------------------------------------------ */

/* A value as the report shows it: a time, or a ratio "5.54x". */
static char *value(const perf__series *s, double v, char *buf, size_t len)
{
  if (s->is_claim) snprintf(buf, len, "%.3fx", v);
  else perf__units_time(buf, len, v);
  return buf;
}

/* A change as one line: "+5.1% worse: 1.051 ms [1.041 ms, 1.061 ms]
 * against 1.000 ms, the centre of 12 earlier commits from c01 (+-0.8 %
 * between runs; p = 3.1e-07)"; undecided: "... vs 1.000 ms [...] at c03:
 * undecided: 2 earlier commits (5 tell the noise between runs)". Never
 * fails. */
static char *describe(const change *c, char *buf, size_t len)
{
  char a[32], al[32], ah[32], b[32], bl[32], bh[32];
  const perf__series *s = c->s;
  int u = snprintf(buf, len, "%+.1f%% %s: %s [%s, %s] ", 100 * c->rel, c->worse ? "worse" : "better",
                   value(s, c->now.value, a, sizeof a), value(s, c->now.lo, al, sizeof al),
                   value(s, c->now.hi, ah, sizeof ah));
  if (u < 0 || (size_t)u >= len) return buf;
  if (c->cls == PERF__JUDGE_SHORT)
    snprintf(buf + u, len - (size_t)u, "vs %s [%s, %s] at %.12s: undecided: %zu earlier %s%s%.12s "
             "(%d tell the noise between runs)", value(s, c->was.value, b, sizeof b),
             value(s, c->was.lo, bl, sizeof bl), value(s, c->was.hi, bh, sizeof bh), c->was_commit,
             c->band.n, perf__units_noun((long long)c->band.n, "commit", "commits"),
             c->band.cut ? " since its change at " : "", c->band.cut ? c->band_from : "",
             PERF__BAND_MIN_COMMITS);
  else
    u += snprintf(buf + u, len - (size_t)u, "against %s, the centre of %zu earlier commits %s "
                  "%.12s (+-%.1f %% between runs; p = %.2g)", value(s, exp(c->band.mean), b, sizeof b),
                  c->band.n, c->band.cut ? "since its change at" : "from", c->band_from,
                  100 * expm1(c->sd), c->p);
  if (c->cls == PERF__JUDGE_TAIL && u > 0 && (size_t)u < len)
    snprintf(buf + u, len - (size_t)u, ": undecided: the noise of its kind reaches this far by "
             "itself (p = %.2g in the tails its GPU's history shows, Student's t with %.3g degrees "
             "of freedom%s)", c->tail_p, c->tail_nu,
             perf__clock_host_side(perf__clock_of_name(c->s->clock)) ? ", at most a host clock's" : "");
  return buf;
}

/* A GPU's verdicts, one row each: its word in every report and its HTML
 * class. */
#define VERDICTS(X)                              \
  X(DID_NOT_RUN, "did not run", "undecided")     \
  X(INCOMPLETE, "INCOMPLETE", "undecided")       \
  X(UNDECIDED, "UNDECIDED", "undecided")         \
  X(REGRESSED, "REGRESSED", "bad")               \
  X(HELD, "held", "ok")

typedef enum verdict_kind {
#define X(v, word, css) V_##v,
  VERDICTS(X)
#undef X
} verdict_kind;

static const struct {
  const char *word, *css;
} verdicts[] = {
#define X(v, word, css) {word, css},
    VERDICTS(X)
#undef X
};

/* The GPU's verdict: did not run; INCOMPLETE (no run of it whole);
 * UNDECIDED (every shard recorded unfit); REGRESSED (a failed test in a
 * fit shard or a change for the worse); UNDECIDED (a series moved with too
 * short a band or within its tails, or no series has a band long enough);
 * held. Never fails. */
static verdict_kind verdict_of(const gpu_row *g)
{
  if (!g->runs) return V_DID_NOT_RUN;
  if (g->incomplete[0]) return V_INCOMPLETE;
  if (g->unfit == g->shards) return V_UNDECIDED;
  if (g->failed || g->nworse) return V_REGRESSED;
  if (g->nundecided || !g->decided) return V_UNDECIDED;
  return V_HELD;
}

/* The GPU's verdict word. Never fails. */
static const char *verdict(const gpu_row *g)
{
  return verdicts[verdict_of(g)].word;
}

/* Why g is UNDECIDED, into buf[len] ("" for another verdict). Never
 * fails. */
static const char *undecided_why(const gpu_row *g, char *buf, size_t len)
{
  buf[0] = '\0';
  if (verdict_of(g) != V_UNDECIDED) return buf;
  if (g->unfit == g->shards)
    snprintf(buf, len, "every run of it was recorded on an unfit runner: %.200s",
             g->unfit_why ? g->unfit_why : "");
  else if (g->nshort && g->ntail)
    snprintf(buf, len, "%zu %s moved with fewer than %d earlier commits to tell the noise between "
             "runs, %zu no farther than the noise of its kind reaches by itself", g->nshort,
             perf__units_noun((long long)g->nshort, "series", "series"), PERF__BAND_MIN_COMMITS,
             g->ntail);
  else if (g->nshort)
    snprintf(buf, len, "%zu %s moved with fewer than %d earlier commits to tell the noise between "
             "runs", g->nshort, perf__units_noun((long long)g->nshort, "series", "series"),
             PERF__BAND_MIN_COMMITS);
  else if (g->ntail)
    snprintf(buf, len, "%zu %s moved beyond %s band but no farther than the noise of %s kind "
             "reaches by itself", g->ntail, perf__units_noun((long long)g->ntail, "series", "series"),
             g->ntail == 1 ? "its" : "their", g->ntail == 1 ? "its" : "their");
  else
    snprintf(buf, len, "no series has %d earlier commits to tell the noise between runs yet",
             PERF__BAND_MIN_COMMITS);
  return buf;
}

/* g's notes, each a line: the runs recorded unfit, the machine's move.
 * Returns how many (at most 2), into note[k][len]. Never fails. */
static int notes_of(const gpu_row *g, char note[2][400])
{
  int k = 0;
  if (g->unfit && g->unfit < g->shards)
    snprintf(note[k++], 400, "%ld of %ld %s recorded on an unfit runner (%.200s), %ld failed %s in "
             "them: not counted, they do not decide alone", g->unfit, g->shards,
             g->shards == g->runs ? "runs" : "shards", g->unfit_why ? g->unfit_why : "",
             g->unfit_failed, perf__units_noun(g->unfit_failed, "test", "tests"));
  if (g->shift.moved)
    snprintf(note[k++], 400, "the machine: %zu of %zu %s %+.1f %% at once (%+.1f %% .. %+.1f "
             "%%): a driver, the clocks or the host changed; %zu not counted as changes",
             g->shift.moved, g->shift.of, perf__units_noun((long long)g->shift.of, "workload", "workloads"),
             100 * g->shift.size, 100 * g->shift.smallest, 100 * g->shift.largest, g->machine);
  return k;
}

static void print_gpu(const gpu_row *g)
{
  char line[700], lab[600], why[300], note[2][400];
  printf("  %s: %s", g->name, verdict(g));
  if (!g->runs) return (void)printf(" this commit\n");
  if (*undecided_why(g, why, sizeof why)) printf(" (%s)", why);
  printf(": %ld %s", g->runs, perf__units_noun(g->runs, "run", "runs"));
  if (g->shards != g->runs) printf(" (%ld %s)", g->shards, perf__units_noun(g->shards, "shard", "shards"));
  printf(", %ld failed %s", g->failed, perf__units_noun(g->failed, "test", "tests"));
  if (g->retried) printf(" (%ld retried %s replaced by a later attempt)", g->retried,
                         perf__units_noun(g->retried, "shard", "shards"));
  if (g->incomplete[0]) printf("; %s, never green", g->incomplete);
  if (g->partial[0]) printf("; also %s (not whole)", g->partial);
  printf("; %zu of %zu series compared, %zu decided, %zu changed (%zu worse)", g->compared,
         g->series, g->decided, g->nch - g->nundecided, g->nworse);
  if (g->nundecided) printf(", %zu undecided", g->nundecided);
  putchar('\n');
  for (int k = 0, n = notes_of(g, note); k < n; k++) printf("      %s\n", note[k]);
  for (size_t i = 0; i < g->nch; i++)
    printf("      %s: %s\n", perf__series_label(g->ch[i].s, lab, sizeof lab),
           describe(&g->ch[i], line, sizeof line));
}

/* The rule in one sentence, into buf[len]. Never fails. */
static const char *rule(char *buf, size_t len)
{
  snprintf(buf, len, "A series moved when its value lies beyond the noise between runs its earlier "
           "commits show (since its last change point; at least %d of them: a prediction "
           "interval, p <= %g over the series of the GPU) by %.0f %% or more; a move that most "
           "workloads share is the machine's", PERF__BAND_MIN_COMMITS, PERF__JUDGE_ALPHA,
           100 * PERF__JUDGE_MIN_CHANGE);
  return buf;
}

static void markdown_body(FILE *f, const report *r, const char *how)
{
  char line[700], lab[600], text[400], note[2][400];
  fprintf(f, "### perfgate: commit `%.40s` across GPUs\n\nEarlier commits: %s. %s.\n\n| GPU | "
             "verdict | runs | failed tests | series compared (decided) | changed (worse) | "
             "undecided |\n|---|---|---|---|---|---|---|\n",
          r->commit, how, rule(text, sizeof text));
  for (size_t i = 0; i < r->ng; i++) {
    const gpu_row *g = &r->g[i];
    int bad = verdict_of(g) == V_REGRESSED;
    fputs("| ", f);
    perf__tally_md_cell(f, g->name, SIZE_MAX);
    fprintf(f, " | %s%s%s | %ld | %ld | %zu of %zu (%zu) | %zu (%zu) | %zu |\n", bad ? "**" : "",
            verdict(g), bad ? "**" : "", g->runs, g->failed, g->compared, g->series, g->decided,
            g->nch - g->nundecided, g->nworse, g->nundecided);
  }
  for (size_t i = 0, said = 0; i < r->ng; i++) {
    const gpu_row *g = &r->g[i];
    int n = notes_of(g, note);
    const char *what[4] = {g->incomplete[0] ? g->incomplete : g->partial, undecided_why(g, text, sizeof text),
                           n > 0 ? note[0] : "", n > 1 ? note[1] : ""};
    for (int k = 0; k < 4; k++) {
      if (!what[k][0]) continue;
      fputs(said++ ? "- " : "\n- ", f);
      perf__tally_md_cell(f, g->name, SIZE_MAX);
      fputs(": ", f);
      perf__tally_md_cell(f, what[k], SIZE_MAX);
      fputs(k ? "\n" : g->incomplete[0] ? ", never green\n" : " (not whole)\n", f);
    }
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
  char line[700], lab[600], text[400], note[2][400];
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>perfgate: "
        "commit ", f);
  perf__xml_str(f, r->commit);
  fputs("</title></head><body>\n<h1>perfgate: commit <code>", f);
  perf__xml_str(f, r->commit);
  fputs("</code> across GPUs</h1>\n<p>Earlier commits: ", f);
  perf__xml_str(f, how);
  fputs(". ", f);
  perf__xml_str(f, rule(text, sizeof text));
  fputs(".</p>\n<table><tr><th>GPU</th><th>verdict</th><th>runs</th><th>failed tests</th>"
        "<th>changes</th></tr>\n", f);
  for (size_t i = 0; i < r->ng; i++) {
    const gpu_row *g = &r->g[i];
    verdict_kind v = verdict_of(g);
    fputs("<tr><td>", f);
    perf__xml_str(f, g->name);
    fprintf(f, "</td><td class=\"%s\">%s</td><td>%ld</td><td>%ld</td><td>", verdicts[v].css,
            verdicts[v].word, g->runs, g->failed);
    if (g->incomplete[0] || g->partial[0]) {
      perf__xml_str(f, g->incomplete[0] ? g->incomplete : g->partial);
      fputs(g->incomplete[0] ? ", never green<br>" : " (not whole)<br>", f);
    }
    if (*undecided_why(g, text, sizeof text)) perf__xml_str(f, text), fputs("<br>", f);
    for (int k = 0, n = notes_of(g, note); k < n; k++) perf__xml_str(f, note[k]), fputs("<br>", f);
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

/* The exit code of the analysed report, its reason into *why: 125 when a
 * GPU's run of it is INCOMPLETE (never green, whatever else it shows: the
 * commit is judged once its run is whole); else 1 when a GPU regressed;
 * 0 when every GPU that ran it held; else 125 (a GPU UNDECIDED, or none
 * ran it). Never fails. */
static int code_of(const report *r, const char **why)
{
  int held = 0, regressed = 0, undecided = 0;
  for (size_t i = 0; i < r->ng; i++) {
    verdict_kind v = verdict_of(&r->g[i]);
    if (v == V_INCOMPLETE)
      return *why = "not decided: a run's shards were not all recorded", PERF__COMMITREPORT_SKIP;
    regressed |= v == V_REGRESSED;
    undecided |= v == V_UNDECIDED;
    held |= v == V_HELD;
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
