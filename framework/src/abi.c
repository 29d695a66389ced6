/* abi.c — perf_abi_describe(): libperfgate.so's ABI as JSON, for bindings to check their mirror. */
/* It gives the public structs' sizes and offsets, the enums' values and the
 * clocks' names. */
/* Functions are not described: a binding declares their prototypes
 * (python/perfgate/_lib.py's _declare). A new function (perf_embed_report,
 * the embedder's --json document) leaves PERF_ABI_VERSION as it is; a
 * public struct's layout, an enum's values or a function's parameters
 * changing raise it. The structs only the header's macros pass (perf__site,
 * perf__names, perf__range) are not described: no binding builds them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "host/clock.h"
#include "perfgate.h"

/* One member of a public struct: its name, offset and size. */
#define FIELD(type, member) {#member, offsetof(type, member), sizeof(((type *)0)->member)}

typedef struct field {
  const char *name;
  size_t offset, size;
} field;

static const field workload_fields[] = {
    FIELD(perf_workload, name),  FIELD(perf_workload, fn),          FIELD(perf_workload, arg),
    FIELD(perf_workload, stream), FIELD(perf_workload, clock),      FIELD(perf_workload, bytes_read),
    FIELD(perf_workload, bytes_written), FIELD(perf_workload, flops), FIELD(perf_workload, flop_type),
    FIELD(perf_workload, perf__state), FIELD(perf_workload, perf__gen),
};
static const field options_fields[] = {
    FIELD(perf_embed_options, budget_s),     FIELD(perf_embed_options, seed),
    FIELD(perf_embed_options, baseline_dir), FIELD(perf_embed_options, verbose),
    FIELD(perf_embed_options, update_baselines),
};
static const field measurements_fields[] = {
    FIELD(perf_embed_measurements, lines), FIELD(perf_embed_measurements, runs),
    FIELD(perf_embed_measurements, n),
};
static const field run_fields[] = {
    FIELD(perf_embed_run, argv), FIELD(perf_embed_run, argc), FIELD(perf_embed_run, run_json),
    FIELD(perf_embed_run, started),
};

/* One public struct: its name, size and members. */
typedef struct described {
  const char *name;
  size_t size;
  const field *f;
  size_t n;
} described;
#define DESCRIBED(type, fields) {#type, sizeof(type), fields, sizeof fields / sizeof fields[0]}
static const described structs[] = {
    DESCRIBED(perf_workload, workload_fields),
    DESCRIBED(perf_embed_options, options_fields),
    DESCRIBED(perf_embed_measurements, measurements_fields),
    DESCRIBED(perf_embed_run, run_fields),
};

/* Appends text to buf[len] at *at (truncation is caught by the caller's
 * check of *at). Never fails. */
static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + (*at < len ? *at : len), *at < len ? len - *at : 0, fmt, ap);
  va_end(ap);
  if (n > 0) *at += (size_t)n;
}

/* "name": {"size": S, "fields": {"m": [offset, size], ...}}. Never fails. */
static void add_struct(char *buf, size_t len, size_t *at, const described *d)
{
  add(buf, len, at, "\"%s\": {\"size\": %zu, \"fields\": {", d->name, d->size);
  for (size_t i = 0; i < d->n; i++)
    add(buf, len, at, "%s\"%s\": [%zu, %zu]", i ? ", " : "", d->f[i].name, d->f[i].offset,
        d->f[i].size);
  add(buf, len, at, "}}");
}

/* The enums: perf_clock by its names (auto and the clock table's rows),
 * perf_outcome and perf_line_kind by their tables. Never fails. */
static void add_enums(char *buf, size_t len, size_t *at)
{
  add(buf, len, at, "\"perf_clock\": {\"auto\": %d", PERF_CLOCK_AUTO);
#define PERF__X(sym, name) add(buf, len, at, ", \"%s\": %d", name, PERF_CLOCK_##sym);
  PERF_CLOCK_MAP(PERF__X)
#undef PERF__X
  add(buf, len, at, "}, \"perf_outcome\": {");
#define PERF__X(sym, word) \
  add(buf, len, at, "%s\"%s\": %d", PERF_OUTCOME_##sym ? ", " : "", word, PERF_OUTCOME_##sym);
  PERF_OUTCOME_MAP(PERF__X)
#undef PERF__X
  add(buf, len, at, "}, \"perf_line_kind\": {");
#define PERF__X(sym, meaning) \
  add(buf, len, at, "%s\"%s\": %d", PERF_LINE_##sym ? ", " : "", #sym, PERF_LINE_##sym);
  PERF_LINE_KIND_MAP(PERF__X)
#undef PERF__X
  add(buf, len, at, "}, \"perf_flop_type\": {");
#define PERF__X(sym, word) \
  add(buf, len, at, "%s\"%s\": %d", PERF_FLOP_##sym ? ", " : "", word, PERF_FLOP_##sym);
  PERF_FLOP_TYPE_MAP(PERF__X)
#undef PERF__X
  add(buf, len, at, "}");
}

/* See perfgate.h. */
const char *perf_abi_describe(void)
{
  static char buf[4096];
  if (buf[0]) return buf;
  size_t at = 0, len = sizeof buf;
  add(buf, len, &at, "{\"abi\": %d, \"version\": \"%d.%d.%d\", \"structs\": {", PERF_ABI_VERSION,
      PERF_VERSION_MAJOR, PERF_VERSION_MINOR, PERF_VERSION_PATCH);
  for (size_t k = 0; k < sizeof structs / sizeof structs[0]; k++) {
    add(buf, len, &at, "%s", k ? ", " : "");
    add_struct(buf, len, &at, &structs[k]);
  }
  add(buf, len, &at, "}, \"enums\": {");
  add_enums(buf, len, &at);
  add(buf, len, &at, "}}");
  if (at >= len) buf[0] = '\0'; /* cannot happen with these tables: say nothing rather than half */
  return buf;
}
