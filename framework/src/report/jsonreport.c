/* jsonreport.c — --json: the whole run as one JSON object (schema perfgate-report/1): run, fingerprints, tests with their claim records, headroom. */
#include "report/jsonreport.h"

#include <stdlib.h>

#include "base/baseline.h"
#include "base/machine.h"
#include "base/preflight.h"
#include "base/claimrec.h"
#include "base/status.h"
#include "base/version.h"
#include "history/secret.h"
#include "report/headroom.h"
#include "report/tally.h"
#include "worker/process/probe.h"

/* A fingerprint as one JSON object of strings. Never fails (j->oom). */
static void json_kvs(perf__json *j, const perf__baseline *b)
{
  perf__json_raw(j, "{");
  for (size_t k = 0; k < b->nfp; k++) {
    perf__json_raw(j, k ? ", " : "");
    perf__json_str(j, b->fp[k].key);
    perf__json_raw(j, ": ");
    perf__json_str(j, b->fp[k].value);
  }
  perf__json_raw(j, "}");
}

/* The "fingerprint" member: the host's, and device 0's (null without a
 * GPU), measured in a child. Never fails (j->oom). */
static void json_fingerprint(perf__json *j)
{
  perf__baseline host = {0}, gpu = {0};
  perf__machine_host(&host);
  perf__probe_gpu_fingerprint(&gpu);
  perf__json_raw(j, "\"fingerprint\": {\"host\": ");
  json_kvs(j, &host);
  perf__json_raw(j, ", \"gpu\": ");
  if (gpu.nfp) json_kvs(j, &gpu);
  else perf__json_raw(j, "null");
  perf__json_raw(j, "},\n");
}

/* The "run" and "totals" members. Never fails (j->oom). */
static void json_run(perf__json *j, const perf__options_cli *cli, time_t started, int code,
                     const perf__result *r, size_t n)
{
  char when[32];
  perf__tally c = perf__tally_count(r, n);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&started));
  perf__json_raw(j, "\"run\": {\"perfgate\": \"%s\", \"started\": \"%s\", \"exit_code\": %d, "
                    "\"argv\": [", perf_version(), when, code);
  for (int k = 0; k < cli->argc; k++) {
    char *arg = perf__secret_masked(cli->argv[k]); /* --history=postgresql://u:***@... */
    perf__json_raw(j, k ? ", " : "");
    perf__json_str(j, arg ? arg : "***");
    free(arg);
  }
  perf__json_raw(j, "], \"seed\": %llu, \"budget_s\": ", (unsigned long long)cli->seed);
  perf__json_num(j, cli->budget_s);
  perf__json_raw(j, ", \"timeout_s\": ");
  perf__json_num(j, cli->timeout_s);
  perf__json_raw(j, ", \"device\": ");
  if (cli->device_label >= 0) perf__json_raw(j, "%d", cli->device_label);
  else perf__json_raw(j, "null");
  perf__json_raw(j, ", \"shard\": {\"index\": %ld, \"total\": %ld}, \"repeat\": %llu, "
                    "\"shuffle\": %s},\n",
                 cli->shard_index, cli->shard_total, (unsigned long long)cli->repeat,
                 cli->shuffle ? "true" : "false");
  perf__json_raw(j, "\"totals\": {\"tests\": %zu, \"passed\": %zu, \"failed\": %zu, "
                    "\"skipped\": %zu, \"seconds\": ",
                 c.tests, c.tests - c.failures - c.errors - c.skipped, c.failures + c.errors,
                 c.skipped);
  perf__json_num(j, c.seconds);
  perf__json_raw(j, "},\n");
}

/* The "preflight" member: each GPU's readings before the run, with the
 * host's and the causes that made the runner unfit. Never fails (j->oom). */
static void json_preflight(perf__json *j, const perf__options_cli *cli)
{
  perf__json_raw(j, "\"preflight\": [");
  for (int k = 0; k < cli->npreflight; k++) {
    perf__json_raw(j, k ? ",\n  " : "\n  ");
    perf__preflight_json(j, &cli->preflight[k]);
  }
  perf__json_raw(j, "],\n");
}

/* A test's claim records, lines and output. Never fails (j->oom). */
static void json_details(perf__json *j, const perf__result *r)
{
  perf__json_raw(j, ",\n   \"claims\": [");
  for (size_t k = 0; k < r->nclaims; k++) {
    perf__json_raw(j, "%s\n    ", k ? "," : "");
    perf__claimrec_write(j, &r->claims[k]);
  }
  perf__json_raw(j, "],\n   \"lines\": [");
  for (size_t k = 0; k < r->nlines; k++) {
    perf__json_raw(j, k ? ", " : "");
    perf__json_str(j, r->lines[k]);
  }
  perf__json_raw(j, "], \"lines_verbose\": [");
  for (size_t k = 0; k < r->nlines; k++)
    perf__json_raw(j, "%s%s", k ? ", " : "", r->verbose_only[k] ? "true" : "false");
  perf__json_raw(j, "], \"output\": ");
  perf__json_strn(j, r->output ? r->output : "", r->output_len);
  perf__json_raw(j, ", \"output_truncated\": %s}", r->output_truncated ? "true" : "false");
}

/* The first attempt of a test that ran twice (confirm before failing):
 * ", \"attempts\": 2, \"first_attempt\": {...}" with its outcome, reason,
 * time, worker and the claim records that are not among the final ones.
 * Never fails (j->oom). */
static void json_first(perf__json *j, const perf__result_attempt *a)
{
  perf__json_raw(j, ", \"attempts\": 2, \"first_attempt\": {\"outcome\": \"%s\", \"reason\": ",
                 perf__status_word(a->outcome));
  perf__json_str(j, a->reason);
  perf__json_raw(j, ", \"seconds\": ");
  perf__json_num(j, a->seconds);
  perf__json_raw(j, ", \"worker_pid\": %ld, \"claims\": [", a->worker_pid);
  for (size_t k = 0; k < a->nclaims; k++) {
    perf__json_raw(j, "%s\n    ", k ? "," : "");
    perf__claimrec_write(j, &a->claims[k]);
  }
  perf__json_raw(j, "]}");
}

/* One test. Never fails (j->oom). */
static void json_test(perf__json *j, const perf__registry_test *t, const perf__result *r, int device)
{
  perf__json_raw(j, "{\"name\": ");
  perf__json_str(j, r->name);
  if (device >= 0) perf__json_raw(j, ", \"device\": %d", device);
  perf__json_raw(j, ", \"suite\": ");
  perf__json_str(j, t->suite);
  perf__json_raw(j, ", \"file\": ");
  perf__json_str(j, t->file);
  perf__json_raw(j, ", \"line\": %d, \"outcome\": \"%s\", \"no_device\": %s, \"reason\": ",
                 t->line, perf__status_word(r->outcome), r->nodevice ? "true" : "false");
  perf__json_str(j, r->reason);
  perf__json_raw(j, ", \"seconds\": ");
  perf__json_num(j, r->seconds);
  perf__json_raw(j, ", \"worker_pid\": %ld", r->worker_pid);
  if (r->first) json_first(j, r->first);
  json_details(j, r);
}

/* See jsonreport.h. */
void perf__jsonreport_write(perf__json *j, const perf__options_cli *cli, const perf__registry_test **tests,
                            size_t nt, const perf__result *r, size_t n, time_t started,
                            int code)
{
  perf__json_raw(j, "{\"schema\": \"perfgate-report/1\",\n");
  json_run(j, cli, started, code, r, n);
  json_preflight(j, cli);
  json_fingerprint(j);
  perf__json_raw(j, "\"tests\": [");
  for (size_t i = 0; i < n; i++) {
    perf__json_raw(j, i ? ",\n  " : "\n  ");
    json_test(j, tests[i % nt], &r[i], cli->device_label);
  }
  perf__json_raw(j, "\n]");
  perf__headroom_row *rows;
  size_t nrows = perf__headroom_build(r, n, &rows);
  if (perf__headroom_repeated(rows, nrows)) perf__headroom_json(j, rows, nrows);
  free(rows);
  perf__json_raw(j, "}\n");
}
