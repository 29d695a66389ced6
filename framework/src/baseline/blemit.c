/* blemit.c — a baseline file written as YAML, atomically. */
/* libyaml's emitter: one changed line in a diff per changed value. */
#define _GNU_SOURCE
#include "baseline/blemit.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "baseline/blyaml.h"
#include "baseline/trace.h"
#include "host/clock.h"
#include "io/file.h"
#include "util/status.h"

static int put(yaml_emitter_t *e, yaml_event_t *ev)
{
  return yaml_emitter_emit(e, ev) ? 0 : PERF__EIO;
}

static int str(yaml_emitter_t *e, const char *s)
{
  yaml_event_t ev;
  if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
                                    (int)strlen(s), 1, 1, YAML_ANY_SCALAR_STYLE))
    return PERF__ENOMEM;
  return put(e, &ev);
}

static int kv(yaml_emitter_t *e, const char *k, const char *v)
{
  int r = str(e, k);
  return r ? r : str(e, v);
}

/* k: v with 9 significant digits (a time, a ratio), or all 17 where exact
 * (a count: it reads back equal). PERF__EINVAL for NaN or infinity. */
static int kv_digits(yaml_emitter_t *e, const char *k, double v, int exact)
{
  char buf[40];
  if (!isfinite(v)) return PERF__EINVAL;
  snprintf(buf, sizeof buf, "%.*g", exact ? 17 : 9, v);
  return kv(e, k, buf);
}

static int kv_num(yaml_emitter_t *e, const char *k, double v) { return kv_digits(e, k, v, 0); }

static int open_map(yaml_emitter_t *e)
{
  yaml_event_t ev;
  yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
  return put(e, &ev);
}

static int close_map(yaml_emitter_t *e)
{
  yaml_event_t ev;
  yaml_mapping_end_event_initialize(&ev);
  return put(e, &ev);
}

static int open_seq(yaml_emitter_t *e, const char *key)
{
  yaml_event_t ev;
  int r = str(e, key);
  yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
  return r ? r : put(e, &ev);
}

static int close_seq(yaml_emitter_t *e)
{
  yaml_event_t ev;
  yaml_sequence_end_event_initialize(&ev);
  return put(e, &ev);
}

/* An entry's SM clock: the three numbers, or `sm_clock_mhz: unknown`.
 * Returns PERF__EINVAL for a clock the loader would refuse (the median
 * outside its bounds). */
static int emit_mhz(yaml_emitter_t *e, const perf__baseline_mhz *c)
{
  if (!c->median) return kv(e, "sm_clock_mhz", "unknown");
  if (!c->min || c->min > c->median || c->median > c->max || c->max > 100000)
    return PERF__EINVAL;
  int r = kv_num(e, "sm_clock_mhz", c->median);
  if (!r) r = kv_num(e, "sm_clock_min_mhz", c->min);
  return r ? r : kv_num(e, "sm_clock_max_mhz", c->max);
}

/* key: [a, b, c] on one line (a flow list, so that a git diff shows a
 * re-baseline as one changed line). PERF__EINVAL for a value the loader
 * would refuse. */
static int emit_runs(yaml_emitter_t *e, const char *key, const double *v, int n)
{
  yaml_event_t ev;
  int r = str(e, key);
  if (n > PERF__BL_MAX_RUNS) return PERF__EINVAL;
  yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_FLOW_SEQUENCE_STYLE);
  if (!r) r = put(e, &ev);
  for (int i = 0; !r && i < n; i++) {
    char buf[40];
    if (!isfinite(v[i]) || v[i] < 1e-12 || v[i] > 3600) return PERF__EINVAL;
    snprintf(buf, sizeof buf, "%.9g", v[i]);
    r = str(e, buf);
  }
  return r ? r : close_seq(e);
}

static int emit_entry(yaml_emitter_t *e, const perf__baseline_entry *x)
{
  int r = open_map(e);
  if (!r) r = kv(e, "test", x->test);
  if (!r) r = kv(e, "workload", x->workload);
  if (!r) r = kv(e, "clock", x->clock);
  if (!r) r = kv_num(e, "median_s", x->median_s);
  if (!r) r = kv_num(e, "spread_s", x->spread_s);
  if (!r) r = kv_num(e, "samples", (double)x->samples);
  if (!r) r = kv_num(e, "tolerance", x->tolerance);
  if (!r) r = emit_mhz(e, &x->sm_clock);
  if (!r && x->nruns > 0) r = emit_runs(e, "runs_s", x->runs_s, x->nruns);
  if (!r && x->nslow > 0) r = emit_runs(e, "slow_runs_s", x->slow_s, x->nslow);
  if (!r && x->launch_s > 0) r = kv_num(e, "launch_s", x->launch_s);
  if (!r && x->work.bytes_read > 0) r = kv_num(e, "bytes_read", x->work.bytes_read);
  if (!r && x->work.bytes_written > 0) r = kv_num(e, "bytes_written", x->work.bytes_written);
  if (!r && x->work.flops > 0) r = kv_num(e, "flops", x->work.flops);
  if (!r && x->work.flops > 0) r = kv(e, "flop_type", perf__peaks_type_word(x->work.type));
  if (!r && x->trace && strlen(x->trace) < PERF__BLYAML_MAX_TEXT) r = kv(e, PERF__BLYAML_LONG_KEY, x->trace); /* longer: left
                                                         out, never a file this cannot read */
  if (!r) r = kv(e, "recorded", x->recorded);
  return r ? r : close_map(e);
}

static int emit_ratio(yaml_emitter_t *e, const perf__baseline_ratio *x)
{
  int r = open_map(e);
  if (!r) r = kv(e, "test", x->test);
  if (!r) r = kv(e, "claim", x->claim);
  if (!r) r = kv_num(e, "ratio", x->ratio);
  if (!r) r = kv(e, "recorded", x->recorded);
  return r ? r : close_map(e);
}

/* A work count; PERF__EINVAL for a count the loader would refuse. */
static int emit_work(yaml_emitter_t *e, const perf__baseline_work *x)
{
  if (!(x->insts >= 1 && x->insts <= PERF__BL_WORK_MAX) ||
      !(x->dram_read >= 0 && x->dram_read <= PERF__BL_WORK_MAX) ||
      x->insts != floor(x->insts) || x->dram_read != floor(x->dram_read))
    return PERF__EINVAL;
  int r = open_map(e);
  if (!r) r = kv(e, "test", x->test);
  if (!r) r = kv(e, "workload", x->workload);
  if (!r) r = kv_digits(e, "instructions", x->insts, 1);
  if (!r) r = kv_digits(e, "dram_bytes_read", x->dram_read, 1);
  if (!r) r = kv(e, "recorded", x->recorded);
  return r ? r : close_map(e);
}

static int emit_body(yaml_emitter_t *e, const perf__baseline *b)
{
  char version[16];
  snprintf(version, sizeof version, "%d", PERF__BL_SCHEMA);
  int r = open_map(e);
  if (!r) r = kv(e, "schema", version);
  if (!r) r = str(e, "fingerprint");
  if (!r) r = open_map(e);
  for (size_t i = 0; !r && i < b->nfp; i++) r = kv(e, b->fp[i].key, b->fp[i].value);
  if (!r) r = close_map(e);
  if (!r) r = open_seq(e, "entries");
  for (size_t i = 0; !r && i < b->nentries; i++) r = emit_entry(e, &b->entries[i]);
  if (!r) r = close_seq(e);
  if (!r) r = open_seq(e, "ratios");
  for (size_t i = 0; !r && i < b->nratios; i++) r = emit_ratio(e, &b->ratios[i]);
  if (!r) r = close_seq(e);
  if (!r && b->nworks) r = open_seq(e, "work"); /* none: no key (files before it read the same) */
  for (size_t i = 0; !r && i < b->nworks; i++) r = emit_work(e, &b->works[i]);
  if (!r && b->nworks) r = close_seq(e);
  return r ? r : close_map(e);
}

/* The whole stream to f. Returns 0, PERF__EIO or PERF__EINVAL. */
static int emit_all(FILE *f, const perf__baseline *b)
{
  yaml_emitter_t e;
  yaml_event_t ev;
  if (!yaml_emitter_initialize(&e)) return PERF__ENOMEM;
  yaml_emitter_set_output_file(&e, f);
  yaml_emitter_set_unicode(&e, 1);
  yaml_emitter_set_width(&e, -1); /* a run list stays on one line: one changed line in a diff */
  yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
  int r = put(&e, &ev);
  if (!r) {
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    r = put(&e, &ev);
  }
  if (!r) r = emit_body(&e, b);
  if (!r) {
    yaml_document_end_event_initialize(&ev, 1);
    r = put(&e, &ev);
  }
  if (!r) {
    yaml_stream_end_event_initialize(&ev);
    r = put(&e, &ev);
  }
  if (!r && !yaml_emitter_flush(&e)) r = PERF__EIO;
  yaml_emitter_delete(&e);
  return r;
}

/* The whole file as text, malloc'd into *text (*len bytes). Returns 0,
 * PERF__EINVAL (a value cannot be written), PERF__ENOMEM or PERF__EIO (the
 * emitter failed). */
static int emit_text(const perf__baseline *b, char **text, size_t *len)
{
  *text = NULL;
  *len = 0;
  FILE *f = open_memstream(text, len);
  if (!f) return PERF__ENOMEM;
  int r = emit_all(f, b);
  if (fclose(f) && !r) r = PERF__ENOMEM;
  return r;
}

/* The reason a replacement failed at step, into err[errlen]. Never fails. */
static void save_error(const char *path, perf__file_step step, const char *why, char *err,
                       size_t errlen)
{
  char dir[4096], tmp[4200];
  if (step == PERF__FILE_CREATE) {
    snprintf(err, errlen, "cannot create a file in %s: %s", perf__file_dir_of(path, dir, sizeof dir),
             why);
  } else if (step == PERF__FILE_RENAME)
    snprintf(err, errlen, "%s: cannot replace: %s", path, why);
  else
    snprintf(err, errlen, "cannot write %s: %s", perf__file_tmp_name(path, tmp, sizeof tmp), why);
}

/* See blemit.h. */
int perf__blemit_save(const char *path, const perf__baseline *b, char *err,
                  size_t errlen)
{
  char *text = NULL, why[200];
  size_t len = 0;
  perf__file w;
  perf__file_step step = PERF__FILE_DONE;
  perf__file_why how = {&step, why, sizeof why};
  int r = perf__file_open(&w, path, PERF__FILE_DURABLE, &how);
  if (!r) { /* the text in memory, then the file's one write */
    r = emit_text(b, &text, &len);
    if (r) perf__file_abort(&w);
    else r = perf__file_commit(&w, text, len, &how);
  }
  if (r == PERF__EINVAL)
    snprintf(err, errlen, "%s: a value cannot be written (NaN or infinite, an SM clock "
             "outside its bounds, or a work count that is not a whole number in [1, 1e18])", path);
  else if (r)
    save_error(path, step ? step : PERF__FILE_WRITE, step ? why : strerror(ENOMEM), err, errlen);
  free(text);
  return r;
}

