/* record.c — records one run's report document into the history store, in one transaction. */
/* The run, its fingerprints, claims and workloads, and the document itself. */
#include "history/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/claimrec.h"
#include "io/json.h"
#include "util/status.h"
#include "history/secret.h"

/* What one insert needs besides its values. */
typedef struct rec {
  perf__store *s;
  long long run;
  long claims, workloads;
  char *err;
  size_t len;
} rec;

static const char *text_of(const perf__jsontree_node *o, const char *key)
{
  const perf__jsontree_node *n = perf__jsontree_get(o, key);
  return n && n->type != PERF__J_OBJECT && n->type != PERF__J_ARRAY && n->text ? n->text : NULL;
}

/* node as JSON text (malloc'd; NULL for no node or no memory). */
static char *json_of(const perf__jsontree_node *n)
{
  perf__json j = {0};
  if (!n || (n->type == PERF__J_PLAIN && n->text && !strcmp(n->text, "null"))) return NULL;
  perf__jsontree_write(&j, n);
  if (j.oom) perf__json_free(&j);
  return j.s;
}

/* The command line as a JSON array (malloc'd; NULL for none), each
 * argument's password hidden (--history=postgresql://user:secret@...). */
static char *argv_of(const perf__jsontree_node *argv)
{
  perf__json j = {0};
  if (!argv || argv->type != PERF__J_ARRAY) return NULL;
  perf__json_raw(&j, "[");
  for (size_t k = 0; k < argv->n; k++) {
    char *arg = perf__secret_masked(argv->kids[k]->text ? argv->kids[k]->text : "");
    perf__json_raw(&j, k ? ", " : "");
    perf__json_str(&j, arg ? arg : "***");
    free(arg);
  }
  perf__json_raw(&j, "]");
  if (j.oom) perf__json_free(&j);
  return j.s;
}

/* When the run began: its own "started", or its first shard's or
 * device's (a merged report); now when none says. */
static void started_of(const perf__jsontree_node *run, char *out, size_t len)
{
  const char *s = text_of(run, "started");
  const perf__jsontree_node *parts = perf__jsontree_get(run, "shards");
  if (!parts) parts = perf__jsontree_get(run, "devices");
  if (!s && parts && parts->type == PERF__J_ARRAY && parts->n) s = text_of(parts->kids[0], "started");
  if (s) {
    snprintf(out, len, "%s", s);
    return;
  }
  time_t now = time(NULL);
  strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

/* The causes of an unfit runner in the report's "preflight" array, each
 * once, "; "-separated (malloc'd; "" when fit; NULL when the report has no
 * preflight or no memory). */
static char *unfit_of(const perf__jsontree_node *pf)
{
  perf__json j = {0};
  if (!pf || pf->type != PERF__J_ARRAY) return NULL;
  perf__json_raw(&j, "%s", "");
  for (size_t k = 0; k < pf->n; k++) {
    const perf__jsontree_node *u = perf__jsontree_get(pf->kids[k], "unfit");
    for (size_t c = 0; u && u->type == PERF__J_ARRAY && c < u->n; c++) {
      const char *t = text_of(u->kids[c], "text");
      if (t && j.s && !strstr(j.s, t)) perf__json_raw(&j, "%s%s", j.len ? "; " : "", t);
    }
  }
  if (j.oom) perf__json_free(&j);
  return j.s;
}

static int id_row(void *ctx, int n, const char *const *v)
{
  *(long long *)ctx = n > 0 && v[0] ? strtoll(v[0], NULL, 10) : 0;
  return 0;
}

/* Inserts the run's row; its id into r->run. */
static int insert_run(rec *r, const perf__record_in *in)
{
  const perf__jsontree_node *doc = in->report, *run = perf__jsontree_get(doc, "run"),
                            *tot = perf__jsontree_get(doc, "totals"),
                            *fp = perf__jsontree_get(doc, "fingerprint"),
                            *shard = perf__jsontree_get(run, "shard");
  const perf__jsontree_node *gpu = perf__jsontree_get(fp, "gpu"), *host = perf__jsontree_get(fp, "host");
  char started[40], recorded[40];
  time_t now = time(NULL);
  started_of(run, started, sizeof started);
  strftime(recorded, sizeof recorded, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  char *gpu_json = json_of(gpu), *host_json = json_of(host), *argv = argv_of(perf__jsontree_get(run, "argv"));
  const perf__jsontree_node *pf = perf__jsontree_get(doc, "preflight");
  char *pf_json = pf && pf->type == PERF__J_ARRAY ? json_of(pf) : NULL, *unfit = unfit_of(pf);
  /* Host-only runs are kept apart per CPU model: "no GPU: <CPU model>". */
  const char *gpu_name = text_of(gpu, "name"), *host_name = text_of(host, "name");
  char machine[300];
  snprintf(machine, sizeof machine, "no GPU: %s", host_name ? host_name : "unknown CPU");
  perf__store_value v[] = {
      perf__store_text(started), perf__store_text(recorded), perf__store_text(in->p->commit),
      perf__store_text(in->p->from), perf__store_text(in->p->branch[0] ? in->p->branch : NULL),
      perf__store_text(gpu_name ? gpu_name : machine), perf__store_text(gpu_json),
      perf__store_text(text_of(gpu, "driver")),
      perf__store_text(text_of(host, "name") ? text_of(host, "name") : "unknown"),
      perf__store_text(host_json ? host_json : "{}"), perf__store_text(in->origin),
      perf__store_int((long long)perf__jsontree_num(perf__jsontree_get(run, "exit_code"), 2)),
      perf__store_int((long long)perf__jsontree_num(perf__jsontree_get(tot, "tests"), 0)),
      perf__store_int((long long)perf__jsontree_num(perf__jsontree_get(tot, "passed"), 0)),
      perf__store_int((long long)perf__jsontree_num(perf__jsontree_get(tot, "failed"), 0)),
      perf__store_int((long long)perf__jsontree_num(perf__jsontree_get(tot, "skipped"), 0)),
      perf__store_text(argv), perf__store_text(text_of(run, "perfgate")), perf__store_text(pf_json),
      perf__store_text(unfit), perf__store_text(text_of(shard, "run_id")),
      perf__store_int((long long)perf__jsontree_num(perf__jsontree_get(shard, "index"), 0)),
      perf__store_int((long long)perf__jsontree_num(perf__jsontree_get(shard, "total"), 1))};
  /* The new id: PostgreSQL returns it; SQLite says it after the insert
   * (RETURNING needs SQLite 3.35). */
  int pg = r->s->kind == PERF__STORE_POSTGRES;
  const perf__store_stmt q = {.sql = pg
      ? "INSERT INTO perfgate_runs (started, recorded, commit_id, commit_from, branch, gpu,"
        " gpu_fingerprint, driver, host, host_fingerprint, origin, exit_code, tests, passed,"
        " failed, skipped, claims, workloads, argv, perfgate, preflight, unfit, run_key, shard_index,"
        " shard_total) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,"
        " $16, 0, 0, $17, $18, $19, $20, $21, $22, $23)"
        " RETURNING id"
      : "INSERT INTO perfgate_runs (started, recorded, commit_id, commit_from, branch, gpu,"
        " gpu_fingerprint, driver, host, host_fingerprint, origin, exit_code, tests, passed,"
        " failed, skipped, claims, workloads, argv, perfgate, preflight, unfit, run_key, shard_index,"
        " shard_total) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,"
        " $16, 0, 0, $17, $18, $19, $20, $21, $22, $23)",
      .param = v, .nparam = (int)(sizeof v / sizeof v[0]), .on_row = pg ? id_row : NULL, .ctx = &r->run};
  int rc = perf__store_exec(r->s, &q, r->err, r->len);
  const perf__store_stmt rowid = {.sql = "SELECT last_insert_rowid()", .on_row = id_row, .ctx = &r->run};
  if (!rc && !pg) rc = perf__store_exec(r->s, &rowid, r->err, r->len);
  free(gpu_json);
  free(host_json);
  free(argv);
  free(pf_json);
  free(unfit);
  return rc;
}

/* A declared amount of work: NULL when not declared (0). Never fails. */
static perf__store_value declared(double v)
{
  return v > 0 ? perf__store_real(v) : perf__store_text(NULL);
}

/* One workload of claim seq (point -1: the claim's own; else a crossover
 * point's). */
static int insert_workload(rec *r, const char *test, long seq, long point, const char *role,
                           const perf__claimrec_ratio *m, const perf__claimrec_workload *w)
{
  perf__store_value v[] = {
      perf__store_int(r->run), perf__store_int(seq), perf__store_int(point), perf__store_text(role),
      perf__store_text(test), perf__store_text(w->name ? w->name : "?"),
      perf__store_text(m->clock ? m->clock : "unknown"),
      perf__store_text(m->sweep.set ? m->sweep.param : NULL),
      m->sweep.set ? perf__store_int(m->sweep.value) : perf__store_text(NULL),
      perf__store_real(w->median_s), perf__store_real(w->median_interval_s[0]),
      perf__store_real(w->median_interval_s[1]), perf__store_int((long long)w->nsamples),
      perf__store_int(w->iterations_per_sample), declared(w->work.bytes_read),
      declared(w->work.bytes_written), declared(w->work.flops),
      perf__store_text(w->work.flops > 0 ? perf__peaks_type_word(w->work.type) : NULL),
      perf__store_text(NULL)};
  char *trace = w->trace.calls ? perf__trace_text(&w->trace) : NULL;
  if (w->trace.calls && !trace) return snprintf(r->err, r->len, "out of memory"), PERF__ENOMEM;
  v[sizeof v / sizeof v[0] - 1] = perf__store_text(trace);
  r->workloads++;
  const perf__store_stmt q = {
      .sql = "INSERT INTO perfgate_workloads (run_id, claim_seq, point, role, test, workload, clock,"
             " sweep_param, sweep_value, median_s, median_lo_s, median_hi_s, samples,"
             " iterations_per_sample, bytes_read, bytes_written, flops, flop_type, trace)"
             " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,"
             " $19)",
      .param = v, .nparam = (int)(sizeof v / sizeof v[0])};
  int rc = perf__store_exec(r->s, &q, r->err, r->len);
  free(trace);
  return rc;
}

/* The workloads of a ratio measurement. */
static int insert_pair(rec *r, const char *test, long seq, long point, const perf__claimrec_ratio *m)
{
  int rc = insert_workload(r, test, seq, point, "a", m, &m->a);
  return rc ? rc : insert_workload(r, test, seq, point, "b", m, &m->b);
}

/* One claim's row and its workloads' rows. */
static int insert_claim(rec *r, const char *test, const perf__claimrec *c)
{
  long seq = r->claims++;
  int ratio = perf__claimrec_is_ratio(c->kind);
  int cross = c->kind == PERF__CLAIMREC_CROSSOVER;
  const perf__claimrec_ratio *m = &c->ratio;
  const char *kind = perf__claimrec_kind_word(c->kind);
  perf__store_value none = perf__store_text(NULL);
  perf__store_value v[] = {
      perf__store_int(r->run), perf__store_int(seq), perf__store_text(test),
      perf__store_text(kind ? kind : "CHECK"), perf__store_text(perf__status_word(c->outcome)),
      perf__store_text(c->message ? c->message : ""),
      perf__store_text(ratio ? m->clock : cross ? c->clock : NULL),
      ratio ? perf__store_real(m->threshold) : cross ? perf__store_real(c->tie) : none,
      ratio ? perf__store_real(m->ratio) : none,
      ratio ? perf__store_real(m->interval[0]) : none, ratio ? perf__store_real(m->interval[1]) : none,
      ratio ? perf__store_real(m->confidence) : none,
      perf__store_text(ratio ? m->a.name : cross ? c->a_name : NULL),
      perf__store_text(ratio ? m->b.name : cross ? c->b_name : NULL),
      perf__store_text(ratio && m->sweep.set ? m->sweep.param : cross ? c->param : NULL),
      ratio && m->sweep.set ? perf__store_int(m->sweep.value) : none,
      cross ? perf__store_real(c->estimate) : none, cross ? perf__store_real(c->bracket[0]) : none,
      cross ? perf__store_real(c->bracket[1]) : none};
  const perf__store_stmt q = {
      .sql = "INSERT INTO perfgate_claims (run_id, seq, test, kind, outcome, message, clock, threshold,"
             " ratio, ratio_lo, ratio_hi, confidence, a, b, sweep_param, sweep_value, crossover,"
             " crossover_lo, crossover_hi) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,"
             " $13, $14, $15, $16, $17, $18, $19)",
      .param = v, .nparam = (int)(sizeof v / sizeof v[0])};
  int rc = perf__store_exec(r->s, &q, r->err, r->len);
  if (!rc && ratio) rc = insert_pair(r, test, seq, -1, m);
  for (size_t k = 0; !rc && cross && k < c->npoints; k++)
    if (c->points[k].measured) rc = insert_pair(r, test, seq, (long)k, &c->points[k].m);
  return rc;
}

/* Every claim of every test of doc. */
static int insert_tests(rec *r, const perf__jsontree_node *doc)
{
  const perf__jsontree_node *tests = perf__jsontree_get(doc, "tests");
  if (!tests || tests->type != PERF__J_ARRAY)
    return snprintf(r->err, r->len, "the report has no \"tests\" array"), PERF__EPROTO;
  for (size_t i = 0; i < tests->n; i++) {
    const char *name = text_of(tests->kids[i], "name");
    const perf__jsontree_node *cl = perf__jsontree_get(tests->kids[i], "claims");
    for (size_t k = 0; name && cl && cl->type == PERF__J_ARRAY && k < cl->n; k++) {
      perf__claimrec c;
      char why[300];
      if (perf__claimrec_read(cl->kids[k], &c, why, sizeof why))
        return snprintf(r->err, r->len, "%s: claim %zu: %s", name, k + 1, why), PERF__EPROTO;
      int rc = insert_claim(r, name, &c);
      perf__claimrec_free(&c);
      if (rc) return rc;
    }
  }
  return 0;
}

/* The run's report document, as its writer wrote it, when the run is one
 * shard of several: the only documents a merge from the history reads (a
 * whole run's report is its --json file; kept for every run, the
 * documents would be most of the history). */
static int insert_document(rec *r, const perf__record_in *in)
{
  const perf__jsontree_node *shard = perf__jsontree_get(perf__jsontree_get(in->report, "run"), "shard");
  if (perf__jsontree_num(perf__jsontree_get(shard, "total"), 1) < 2) return 0;
  perf__store_value v[] = {perf__store_int(r->run), perf__store_text(in->text)};
  const perf__store_stmt q = {.sql = "INSERT INTO perfgate_reports (run_id, document) VALUES ($1, $2)",
                              .param = v, .nparam = 2};
  return perf__store_exec(r->s, &q, r->err, r->len);
}

/* See record.h. */
int perf__record_run(perf__store *s, const perf__record_in *in, long long *id, char *err, size_t len)
{
  rec r = {s, 0, 0, 0, err, len};
  if (!in->text) return snprintf(err, len, "no report document to record"), PERF__EINVAL;
  int rc = perf__store_begin(s, err, len);
  if (rc) return rc;
  rc = insert_run(&r, in);
  if (!rc) rc = insert_document(&r, in);
  if (!rc) rc = insert_tests(&r, in->report);
  if (!rc) {
    perf__store_value v[] = {perf__store_int(r.claims), perf__store_int(r.workloads),
                             perf__store_int(r.run)};
    const perf__store_stmt q = {.sql = "UPDATE perfgate_runs SET claims = $1, workloads = $2 WHERE id = $3",
                                .param = v, .nparam = 3};
    rc = perf__store_exec(s, &q, err, len);
  }
  if (!rc) rc = perf__store_commit(s, err, len);
  if (rc) {
    perf__store_rollback(s);
    return rc;
  }
  if (id) *id = r.run;
  return 0;
}
