/* options.c — the perftest command line: its one table of options
 * (PERF__OPTIONS_MAP in options.h) drives the defaults, the parsing, the
 * validation messages and the help text. */
#include "cli/options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline.h"
#include "baseline/blrule.h"
#include "util/label.h"
#include "util/status.h"

#define LABEL_WIDTH 21                    /* "  --label" then two spaces, then its help */
#define HELP_INDENT (2 + LABEL_WIDTH + 2) /* the help column */

/* One parse: the command line, the argument being read, and the results. */
typedef struct args {
  int argc;
  char **argv;
  int i;
  perf__options_cli *cli;
  char *err;
  size_t len;
} args;

/* Always fails: formats fmt (its %s: opt, then v) into a->err and returns
 * PERF__EUSAGE. */
static int usage(args *a, const char *fmt, const char *opt, const char *v)
{
  snprintf(a->err, a->len, fmt, opt, v);
  return PERF__EUSAGE;
}

/* ---- the kinds: read_<kind>(a, opt, v, &field) reads v for option opt ---- */

/* Never fails: a flag has no value; sets *dst. */
static int read_flag(args *a, const char *opt, const char *v, int *dst)
{
  (void)a, (void)opt, (void)v;
  *dst = 1;
  return 0;
}

/* Never fails: any text, even empty (the report writers judge file names). */
static int read_text(args *a, const char *opt, const char *v, const char **dst)
{
  (void)a, (void)opt;
  *dst = v;
  return 0;
}

/* Takes v unless it is empty, which fails with "OPT needs WHAT". */
static int nonempty(args *a, const char *opt, const char *v, const char **dst, const char *what)
{
  if (!*v) return usage(a, "%s needs %s", opt, what);
  *dst = v;
  return 0;
}

/* Fail on an empty value: a directory, a GPU list (devices.c checks the
 * list itself), a history location. */
static int read_dir(args *a, const char *opt, const char *v, const char **dst)
{
  return nonempty(a, opt, v, dst, "a directory");
}
static int read_gpus(args *a, const char *opt, const char *v, const char **dst)
{
  return nonempty(a, opt, v, dst, "all or a list like 0,1");
}
static int read_store(args *a, const char *opt, const char *v, const char **dst)
{
  return nonempty(a, opt, v, dst, "a SQLite file or a postgresql:// URI");
}

/* Fails on what util/label.h refuses (the rule for every commit and
 * branch perfgate records, from an option or from the CI). */
static int read_label(args *a, const char *opt, const char *v, const char **dst)
{
  if (perf__label_check(opt, v, a->err, a->len)) return PERF__EUSAGE;
  *dst = v;
  return 0;
}

/* Never fails: bare (or empty), "" (the tests --filter picks); else the
 * filter, as --filter. */
static int read_trend(args *a, const char *opt, const char *v, const char **dst)
{
  (void)a, (void)opt;
  *dst = v ? v : "";
  return 0;
}

/* Fails unless v is a number of seconds in (0, 86400]. */
static int read_seconds(args *a, const char *opt, const char *v, double *dst)
{
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (!*v || *end || errno || !(d > 0) || !isfinite(d) || d > 86400)
    return usage(a, "%s: expected a number of seconds in (0, 86400], got '%s'", opt, v);
  *dst = d;
  return 0;
}

/* Fails unless v is a plain decimal integer (digits only: no sign, no
 * space) in [lo, hi]: one rule and one message, "OPT: expected WHAT, got
 * 'V'", for every bad value (empty, signed, not a number, out of range). */
static int read_whole(args *a, const char *opt, const char *v, uint64_t *dst, uint64_t lo,
                      uint64_t hi, const char *what)
{
  char *end;
  errno = 0;
  unsigned long long u = strtoull(v, &end, 10);
  if (*v < '0' || *v > '9' || *end || errno || u < lo || u > hi) {
    snprintf(a->err, a->len, "%s: expected %s, got '%s'", opt, what, v);
    return PERF__EUSAGE;
  }
  *dst = u;
  return 0;
}

/* Fails unless v is a decimal integer >= 0 that fits 64 bits. */
static int read_count(args *a, const char *opt, const char *v, uint64_t *dst)
{
  return read_whole(a, opt, v, dst, 0, UINT64_MAX, "a non-negative integer");
}

/* Fails unless v is a number of commits in 1..1000000. */
static int read_commits(args *a, const char *opt, const char *v, uint64_t *dst)
{
  return read_whole(a, opt, v, dst, 1, 1000000, "a number of commits in 1..1000000");
}

/* Fails on an empty GPU name. */
static int read_gpu_name(args *a, const char *opt, const char *v, const char **dst)
{
  return nonempty(a, opt, v, dst, "a GPU's name as the history records it");
}

/* Fails unless v is a number of update runs in PERF__BLR_RUNS..
 * PERF__BL_MAX_RUNS (what an entry's runs_s holds). */
static int read_runs(args *a, const char *opt, const char *v, uint64_t *dst)
{
  char what[64];
  snprintf(what, sizeof what, "a number of runs in %d..%d", PERF__BLR_RUNS, PERF__BL_MAX_RUNS);
  return read_whole(a, opt, v, dst, PERF__BLR_RUNS, PERF__BL_MAX_RUNS, what);
}

/* Fails unless v is a decimal count in 1..100000. */
static int read_repeats(args *a, const char *opt, const char *v, uint64_t *dst)
{
  return read_whole(a, opt, v, dst, 1, 100000, "1..100000");
}

/* A value of a choice option: the word and what it sets. */
typedef struct choice {
  const char *word;
  int value;
} choice;

static const choice colors[] = {{"auto", PERF__COLOR_AUTO},
                                {"always", PERF__COLOR_ALWAYS},
                                {"never", PERF__COLOR_NEVER},
                                {NULL, 0}};
static const choice checks[] = {{"all", 1}, {"claimed", 0}, {NULL, 0}};
static const choice unfits[] = {{"warn", 0}, {"error", 1}, {NULL, 0}};

/* Never fails: "a, b or c" into buf[n] (truncated if it must). */
static void word_list(const choice *words, char *buf, size_t n)
{
  buf[0] = '\0';
  for (const choice *w = words; w->word; w++) {
    size_t used = strlen(buf);
    const char *sep = w == words ? "" : w[1].word ? ", " : " or ";
    snprintf(buf + used, n - used, "%s%s", sep, w->word);
  }
}

/* Fails unless v is one of words: "OPT: expected a, b or c, got 'V'". */
static int choose(args *a, const char *opt, const char *v, const choice *words, int *out)
{
  for (const choice *w = words; w->word; w++)
    if (!strcmp(v, w->word)) {
      *out = w->value;
      return 0;
    }
  char list[128];
  word_list(words, list, sizeof list);
  snprintf(a->err, a->len, "%s: expected %s, got '%s'", opt, list, v);
  return PERF__EUSAGE;
}

/* Fails as choose does: auto, always or never. */
static int read_color(args *a, const char *opt, const char *v, perf__options_color *dst)
{
  int c;
  if (choose(a, opt, v, colors, &c)) return PERF__EUSAGE;
  *dst = (perf__options_color)c;
  return 0;
}

/* Fails as choose does: all (sets 1) or claimed (0). */
static int read_check(args *a, const char *opt, const char *v, int *dst)
{
  return choose(a, opt, v, checks, dst);
}

/* Fails as choose does: warn (sets 0) or error (1). */
static int read_unfit(args *a, const char *opt, const char *v, int *dst)
{
  return choose(a, opt, v, unfits, dst);
}

/* Fails unless v is IN,OUT: two descriptors >= 0, into *in and cli->worker_out. */
static int read_worker(args *a, const char *opt, const char *v, int *in)
{
  int *out = &a->cli->worker_out;
  if (sscanf(v, "%d,%d", in, out) != 2 || *in < 0 || *out < 0)
    return usage(a, "%s: expected IN,OUT descriptors, got '%s'", opt, v);
  return 0;
}

/* Fails on an empty output name. The rest of the line is its inputs: the
 * parse stops here. */
static int read_merge(args *a, const char *opt, const char *v, const char **dst)
{
  *dst = v;
  a->cli->merge_in = a->argv + a->i + 1;
  a->cli->merge_n = a->argc - a->i - 1;
  a->i = a->argc;
  if (!*v) return usage(a, "%s needs an output file", opt, v);
  return 0;
}

/* ---- the table ---------------------------------------------------------- */

/* How an option is spelled: --flag; --opt=V or --opt V; only --opt=V. Then
 * form_<kind>: each kind's. */
typedef enum form {
  NO_VALUE,
  VALUE,
  EQUALS_ONLY,
  OPTIONAL_VALUE, /* --opt or --opt=V, never --opt V */
  form_flag = NO_VALUE,
  form_text = VALUE,
  form_dir = VALUE,
  form_gpus = VALUE,
  form_seconds = VALUE,
  form_count = VALUE,
  form_repeats = VALUE,
  form_runs = VALUE,
  form_color = VALUE,
  form_check = VALUE,
  form_unfit = VALUE,
  form_worker = VALUE,
  form_merge = EQUALS_ONLY,
  form_store = VALUE,
  form_label = VALUE,
  form_trend = OPTIONAL_VALUE,
  form_commits = VALUE,
  form_gpu_name = VALUE
} form;

/* One setter per row, set_<field>: fails as its read_<kind> does. */
#define PERF__X(name, shrt, kind, field, dflt, value, help)      \
  static int set_##field(args *a, const char *opt, const char *v) \
  {                                                               \
    return read_##kind(a, opt, v, &a->cli->field);                \
  }
PERF__OPTIONS_MAP(PERF__X)
#undef PERF__X

/* A row of the table, as the parser and the help use it. */
typedef struct option {
  const char *name, *shrt;
  form form;
  int (*set)(args *a, const char *opt, const char *v);
  const char *value, *help;
} option;

static const option options[] = {
#define PERF__X(name, shrt, kind, field, dflt, value, help) \
  {name, shrt, form_##kind, set_##field, value, help},
    PERF__OPTIONS_MAP(PERF__X)
#undef PERF__X
};

#define NOPTIONS (sizeof options / sizeof options[0])
_Static_assert(NOPTIONS <= 64, "perf__options_cli.given has a bit for each option");

/* ---- parsing ------------------------------------------------------------ */

typedef enum spelling { MISS, BARE, WITH_VALUE } spelling;

/* Never fails: how arg names o: not at all, bare ("--name" or its short
 * form) or "--name=V" (then *v is V). */
static spelling spelled(const option *o, const char *arg, const char **v)
{
  size_t n = strlen(o->name);
  if (!strcmp(arg, o->name) || (*o->shrt && !strcmp(arg, o->shrt))) return BARE;
  if (strncmp(arg, o->name, n) || arg[n] != '=') return MISS;
  *v = arg + n + 1;
  return WITH_VALUE;
}

/* Never fails: whether o may be spelled s (a flag takes no value, --merge
 * only "=V"). */
static int takes(const option *o, spelling s)
{
  if (o->form == NO_VALUE) return s == BARE;
  if (o->form == OPTIONAL_VALUE) return 1;
  return o->form == VALUE || s == WITH_VALUE;
}

/* Reads the argument at a->i (and its value, which may be the next one).
 * Fails on an unknown argument, a missing value, or what o->set says. */
static int parse_one(args *a)
{
  const char *arg = a->argv[a->i], *v = NULL;
  for (size_t k = 0; k < NOPTIONS; k++) {
    const option *o = &options[k];
    spelling s = spelled(o, arg, &v);
    if (s == MISS) continue;
    if (!takes(o, s)) break;
    if (s == BARE && o->form == VALUE) {
      if (a->i + 1 >= a->argc) return usage(a, "%s needs a value", o->name, NULL);
      v = a->argv[++a->i];
    }
    a->cli->given |= 1ull << k;
    return o->set(a, o->name, v);
  }
  return usage(a, "unknown argument '%s' (see --help)", arg, NULL);
}

/* Whose rule refused_format applies: the columns of PERF__OPTIONS_REPORTS. */
enum { BY_DEVICES, BY_TREND, BY_COMMIT };

/* 1 when c asks for a report format (PERF__OPTIONS_REPORTS) that the mode
 * by does not write: one --devices cannot split (gpus ONE), one --trend or
 * --commit-report does not write (its column 0). Never fails. */
static int refused_format(const perf__options_cli *c, int by)
{
#define PERF__X(opt, field, dest, gpus, trend, commit)                                          \
  if (c->field && (by == BY_TREND    ? !(trend)                                                 \
                   : by == BY_COMMIT ? !(commit)                                                \
                                     : PERF__OPTIONS_##gpus == PERF__OPTIONS_ONE))               \
    return 1;
  PERF__OPTIONS_REPORTS(PERF__X)
#undef PERF__X
  return 0;
}

/* The options of the formats --devices cannot split, "--a, --b", into
 * buf[n] (truncated to fit). Never fails. */
static const char *one_stream_formats(char *buf, size_t n)
{
  buf[0] = '\0';
#define PERF__X(opt, field, dest, gpus, trend, commit)                           \
  if (PERF__OPTIONS_##gpus == PERF__OPTIONS_ONE)                                 \
    snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", *buf ? ", " : "", opt);
  PERF__OPTIONS_REPORTS(PERF__X)
#undef PERF__X
  return buf;
}

/* The first of --merge's inputs that is one of the options (misplaced:
 * the rest of the line after --merge=OUT is its inputs), or NULL. Never
 * fails. */
static const char *option_among_inputs(const perf__options_cli *c)
{
  for (int i = 0; i < c->merge_n; i++)
    for (size_t k = 0; k < NOPTIONS; k++) {
      const char *v;
      if (spelled(&options[k], c->merge_in[i], &v) != MISS) return c->merge_in[i];
    }
  return NULL;
}

/* The options a --merge takes; any other is a run's, which a merge (of
 * files or from the history) runs none of. */
static const char *const merge_takes[] = {"--merge", "--history", "--run-id", "--gpu", "--plots", "--html",
                                          "--commit", "--branch", "--verbose", "--color"};

/* See options.h. */
const char *perf__options_other(const perf__options_cli *cli, const char *const *takes, size_t n)
{
  for (size_t k = 0; k < NOPTIONS; k++) {
    int taken = 0;
    for (size_t m = 0; m < n; m++) taken |= !strcmp(options[k].name, takes[m]);
    if (!taken && (cli->given >> k & 1)) return options[k].name;
  }
  return NULL;
}

/* The first option given that a merge does not take, or NULL. Never
 * fails. */
static const char *run_option(const perf__options_cli *c)
{
  return perf__options_other(c, merge_takes, sizeof merge_takes / sizeof *merge_takes);
}

/* Fails on a --merge that has neither input files nor a run to read from
 * the history, or both, or an option among its inputs, or an option of a
 * run. */
static int merge_conflicts(args *a)
{
  const perf__options_cli *c = a->cli;
  const char *opt = option_among_inputs(c), *ran = run_option(c);
  if (ran)
    return usage(a, "--merge runs no test: %s is an option of a run (a merge takes --history, --run-id, "
                    "--gpu, --plots, --html, --commit, --branch, --verbose and --color)", ran, NULL);
  if (opt)
    return usage(a, "--merge=OUT takes the rest of the line as its reports, and '%s' is an option: "
                    "give the options before --merge", opt, NULL);
  if (!c->merge_n && !c->history)
    return usage(a, "--merge=OUT needs the shards' --json reports after it, or --history=PATH|URI and "
                    "--run-id=ID before it (the run's shards from the history)", NULL, NULL);
  if (!c->merge_n && !c->run_id)
    return usage(a, "--merge=OUT with --history and no reports after it merges a run from the "
                    "history: give it --run-id=ID (before --merge)", NULL, NULL);
  if (c->merge_n && c->run_id)
    return usage(a, "--run-id picks the run a merge reads from the history, and the reports after "
                    "--merge=OUT carry their own run id: give --run-id or the reports, not both", NULL, NULL);
  return 0;
}

/* The modes of perftest besides a run: each does one thing and runs no
 * test, so that two of them on one command line are two commands, not
 * an option of the other. X(option, what it does). */
#define PERF__OPTIONS_MODES(X)                                            \
  X("--trend", "prints each GPU's series and their change points")        \
  X("--commit-report", "judges one commit across GPUs")                   \
  X("--merge", "merges a run's shards into one report")                   \
  X("--check-baselines", "validates the baseline files")                  \
  X("--compare-baselines", "prints the hardware move between GPUs' files") \
  X("--print-baseline-file", "prints the baseline file this machine uses") \
  X("--list", "lists the tests")

/* Fails on two modes given together, naming both and what each does. */
static int two_modes(args *a)
{
  static const struct {
    const char *opt, *does;
  } modes[] = {
#define PERF__X(o, d) {o, d},
      PERF__OPTIONS_MODES(PERF__X)
#undef PERF__X
  };
  int first = -1;
  for (int k = 0; k < (int)(sizeof modes / sizeof modes[0]); k++) {
    if (!perf__options_given(a->cli, modes[k].opt)) continue;
    if (first < 0) {
      first = k;
      continue;
    }
    snprintf(a->err, a->len, "%s and %s are two modes, not options of one another: %s %s, %s %s; give "
             "one of them", modes[first].opt, modes[k].opt, modes[first].opt, modes[first].does,
             modes[k].opt, modes[k].does);
    return PERF__EUSAGE;
  }
  return 0;
}

/* The options --compare-baselines takes; any other is a run's. */
static const char *const compare_takes[] = {"--compare-baselines", "--baseline-dir", "--markdown",
                                            "--verbose", "--color"};

/* Fails on a --compare-baselines without a file, or with an option of a
 * run. */
static int compare_conflicts(args *a)
{
  const char *ran = perf__options_other(a->cli, compare_takes, sizeof compare_takes / sizeof *compare_takes);
  if (!*a->cli->compare_baselines)
    return usage(a, "--compare-baselines needs a GPU's baseline file: --compare-baselines=FILE.yaml",
                 NULL, NULL);
  if (ran)
    return usage(a, "--compare-baselines runs no test: %s is an option of a run (it takes "
                    "--baseline-dir, --markdown, --verbose and --color)", ran, NULL);
  return 0;
}

/* Fails on options that do not combine. */
static int conflicts(args *a)
{
  const perf__options_cli *c = a->cli;
  char formats[200];
  if (two_modes(a)) return PERF__EUSAGE;
  if (c->devices && (refused_format(c, BY_DEVICES) || c->update_baselines))
    return usage(a, "--devices runs one report per GPU: it does not combine with "
                    "%s or --update-baselines", one_stream_formats(formats, sizeof formats), NULL);
  if (c->trend && !c->history)
    return usage(a, "--trend reads a history: give it --history=PATH|URI", NULL, NULL);
  if (c->trend && (refused_format(c, BY_TREND) || c->devices || c->update_baselines || c->repeat > 1))
    return usage(a, "--trend runs no test: it takes --history, --branch, --gpu, --last, --filter, "
                    "--plots, --html, --baseline-dir and --verbose, not the options of a run", NULL, NULL);
  if (c->trend_last && !c->trend)
    return usage(a, "--last picks what --trend reads: give it with --trend", NULL, NULL);
  if (c->trend_gpu && !c->trend && !(c->merge && !c->merge_n))
    return usage(a, "--gpu picks what --trend reads, or the GPU whose shards a merge from the history "
                    "reads: give it with --trend, or with --history, --run-id and --merge=OUT", NULL, NULL);
  if (c->merge && merge_conflicts(a)) return PERF__EUSAGE;
  if (c->compare_baselines && compare_conflicts(a)) return PERF__EUSAGE;
  if (c->commit_report && !c->history)
    return usage(a, "--commit-report reads a history: give it --history=PATH|URI", NULL, NULL);
  if (c->commit_report && (refused_format(c, BY_COMMIT) || c->plots || c->devices ||
                           c->update_baselines || c->repeat > 1))
    return usage(a, "--commit-report runs no test: it takes --history, --branch, --filter, "
                    "--markdown, --html and --verbose, not the options of a run", NULL, NULL);
  if (c->update_baselines && (c->repeat > 1 || c->shuffle))
    return usage(a, "--update-baselines runs its own repeats (5 fresh workers and more: "
                    "--update-runs): drop --repeat and --shuffle", NULL, NULL);
  static const char *const update_only[] = {"--accept-wide", "--force", "--update-runs",
                                             "--update-budget"};
  for (size_t k = 0; k < sizeof update_only / sizeof *update_only && !c->update_baselines; k++)
    if (perf__options_given(c, update_only[k]))
      return usage(a, "%s only changes what --update-baselines does: give it with "
                      "--update-baselines", update_only[k], NULL);
  return 0;
}

/* Fails with PERF__EUSAGE and a one-line message in err (see options.h). */
int perf__options_parse(int argc, char **argv, perf__options_cli *cli, char *err, size_t len)
{
#define PERF__X(name, shrt, kind, field, dflt, value, help) .field = dflt,
  *cli = (perf__options_cli){PERF__OPTIONS_MAP(PERF__X) .device_label = -1, .worker_out = -1};
#undef PERF__X
  args a = {argc, argv, 1, cli, err, len};
  for (; a.i < argc; a.i++) {
    int r = parse_one(&a);
    if (r) return r;
  }
  return conflicts(&a);
}

/* See options.h. */
int perf__options_given(const perf__options_cli *cli, const char *name)
{
  for (size_t k = 0; k < NOPTIONS; k++)
    if (!strcmp(options[k].name, name)) return (int)(cli->given >> k & 1);
  return 0;
}

/* ---- the help text ------------------------------------------------------ */

/* A section of the help: its title and intro, from the row named first on. */
typedef struct section {
  const char *first, *title, *intro;
} section;

static const section sections[] = {
#define PERF__X(first, title, intro) {first, title, intro},
    PERF__OPTIONS_SECTIONS(PERF__X)
#undef PERF__X
};

/* Never fails: o's label ("--name=VALUE, -s") into buf[n], truncated if it must. */
static void label(const option *o, char *buf, size_t n)
{
  int opt = o->form == OPTIONAL_VALUE;
  snprintf(buf, n, "%s%s%s%s%s%s%s", o->name, opt ? "[" : "", *o->value ? "=" : "", o->value,
           opt ? "]" : "", *o->shrt ? ", " : "", o->shrt);
}

/* Never fails: text's lines (split at '\n'), each indented by indent. */
static void help_lines(FILE *f, int indent, const char *text)
{
  while (*text) {
    size_t k = strcspn(text, "\n");
    fprintf(f, "%*s%.*s\n", indent, "", (int)k, text);
    text += k + (text[k] == '\n');
  }
}

/* Never fails: o's label and help, the first line beside the label where
 * the label fits its column. */
static void help_row(FILE *f, const option *o)
{
  char name[80];
  const char *text = o->help;
  label(o, name, sizeof name);
  if (strlen(name) > LABEL_WIDTH || !*text) {
    fprintf(f, "  %s\n", name);
  } else {
    size_t k = strcspn(text, "\n");
    fprintf(f, "  %-*s  %.*s\n", LABEL_WIDTH, name, (int)k, text);
    text += k + (text[k] == '\n');
  }
  help_lines(f, HELP_INDENT, text);
}

/* Never fails: the title and intro of the section that begins at o, if one
 * does. */
static void help_section(FILE *f, const option *o)
{
  for (size_t k = 0; k < sizeof sections / sizeof sections[0]; k++)
    if (!strcmp(sections[k].first, o->name)) {
      fprintf(f, "\n%s:\n", sections[k].title);
      help_lines(f, 2, sections[k].intro);
    }
}

/* Never fails (write errors are f's). */
void perf__options_help(FILE *f, const char *prog)
{
  fprintf(f,
          "usage: %s [options]\n"
          "Runs the registered perf tests, one at a time, in a worker process.\n",
          prog);
  for (size_t k = 0; k < NOPTIONS; k++) {
    if (!options[k].help) continue;
    help_section(f, &options[k]);
    help_row(f, &options[k]);
  }
  fprintf(f, "\n"
             "Exit status: 0 all passed (skips allowed), 1 a check failed, 2 a usage\n"
             "error, no test matched, no worker could start, a report or the history\n"
             "could not be written, a malformed baseline file, or (--require-gpu,\n"
             "--strict-baselines) no GPU or no baseline; it is said why on stderr.\n");
}
