/* options.h — the perftest command line: options, their validation and the help text. */
#ifndef PERF_OPTIONS_H
#define PERF_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum perf__options_color { PERF__COLOR_AUTO, PERF__COLOR_ALWAYS, PERF__COLOR_NEVER } perf__options_color;

struct perf__preflight; /* host/preflight.h */

typedef struct perf__options_cli {
  int help, version, list, verbose, require_gpu, isolate, allow_no_sync_check;
  int no_confirm; /* --no-confirm: no second attempt for a failed claim */
  int unfit_error; /* --unfit-runner=error: an unfit runner exits 2, nothing run */
  int print_baseline_file;
  int check_baselines; /* --check-baselines: validate the directory, run nothing */
  const char *compare_baselines; /* --compare-baselines=FILE: the hardware move, run nothing */
  int update_baselines, force, strict_baselines, strict_improvements;
  int accept_wide; /* --accept-wide: write entries over the tolerance ceiling */
  uint64_t update_runs;   /* --update-runs: the most runs an entry takes */
  double update_budget_s; /* --update-budget: the most seconds of runs past the first 5 */
  int baseline_check_all; /* --baseline-check=all */
  const char *baseline_dir; /* default "baselines" */
  perf__options_color color;
  const char *filter; /* NULL: every test */
  double timeout_s;   /* per test, supervisor-side */
  double budget_s;    /* per claim, sampling */
  uint64_t seed;
  const char *junit, *markdown; /* report files, NULL: none */
  int tap;                      /* TAP version 13 on stdout, the console report on stderr */
  uint64_t repeat;              /* run the selection this many times (>= 1) */
  int shuffle;                  /* each repetition in a random order (from seed) */
  FILE *report_out;             /* set by perf_main when a report format goes to stdout
                                   (PERF__OPTIONS_STDOUT): the original stdout */
  const char *json;             /* --json=FILE: everything, every sample */
  const char *plots;            /* --plots=DIR: SVG charts */
  const char *trace_dir;        /* --trace-dir=DIR: each GPU workload's trace, Chrome JSON */
  const char *html;             /* --html=FILE: one self-contained report page */
  const char *merge;            /* --merge=OUT: merge the reports that follow */
  const char *devices;          /* --devices=all|0,1: one run per GPU, in parallel */
  const char *history;          /* --history=PATH|URI: record the run in this store */
  const char *commit, *branch;  /* what to record it under (NULL: detect) */
  const char *commit_report;    /* --commit-report=COMMIT: read the history, run nothing */
  const char *trend;            /* --trend[=FILTER]: read the history, run nothing
                                   ("": the tests --filter picks) */
  const char *trend_gpu;        /* --gpu=NAME: --trend reads this GPU's runs only */
  uint64_t trend_last;          /* --last=N: --trend reads each GPU's newest N commits (0: all) */
  int device_label;             /* set in a --devices child: its GPU (else -1) */
  char **merge_in;              /* those reports */
  int merge_n;
  long shard_index, shard_total; /* set by perf_main: this run's shard */
  const char *shard_said;        /* set by perf_main: the engine it came from ("": none) */
  const char *run_id;            /* --run-id, else the engine's (shard.h); NULL: none */
  const char *run_id_from;       /* set by perf_main: what gave run_id ("--run-id" or a variable) */
  const struct perf__preflight *preflight; /* set by perf_main: each GPU's preflight */
  int npreflight;                          /* (for --json; 0: none taken) */
  int argc;                     /* set by perf_main: the command line, for --json */
  char **argv;
  int worker_in, worker_out; /* >= 0: this process is a worker */
  uint64_t given;            /* bit k: row k of PERF__OPTIONS_MAP was on the command line */
} perf__options_cli;

/* The one table of perftest options, in help order:
 *   X(name, short, kind, field, default, value, help)
 * name: "--name", given as --name=V or --name V (a flag: --name; merge: only
 * --name=V, the rest of the line its inputs); short: "-x" for a flag, or "";
 * kind: how its value is read (options.c: read_<kind>) - flag, text, dir, gpus,
 * seconds, count, commits, repeats, color, check, unfit, worker, merge, store, label, trend,
 * gpu_name; field: the perf__options_cli
 * member it sets; default: that member's value when the option is not given;
 * value: the placeholder after '=' in the help ("" none); help: its help text,
 * lines split by '\n' ("" none; NULL: internal, not listed). */
#define PERF__OPTIONS_MAP(X)                                                                    \
  X("--list", "", flag, list, 0, "",                                                            \
    "list the tests (after --filter) and exit; exit 2 when\n"                                   \
    "the filter matches none")                                                                  \
  X("--filter", "", text, filter, NULL, "POS[:POS][-NEG[:NEG]]",                                \
    "run tests whose suite.name matches a POS glob\n"                                           \
    "and no NEG glob (* and ?; GoogleTest syntax)\n"                                            \
    "(opt-in tests, such as faults.*, only where a\n"                                           \
    "POS names their suite: --filter='faults.*')")                                              \
  X("--timeout", "", seconds, timeout_s, 60, "SECONDS",                                         \
    "fail a test still running after this (default 60)")                                        \
  X("--budget", "", seconds, budget_s, 2, "SECONDS",                                            \
    "sampling time per claim before it is called\n"                                             \
    "INCONCLUSIVE (default 2)")                                                                 \
  X("--seed", "", count, seed, 1, "N", "bootstrap and --shuffle seed (default 1)")              \
  X("--repeat", "", repeats, repeat, 1, "N",                                                    \
    "run the selected tests N times (1..100000, default 1),\n"                                  \
    "then print the headroom table: how much each ratio\n"                                      \
    "claim had to spare (also in --json and --markdown)")                                       \
  X("--shuffle", "", flag, shuffle, 0, "",                                                      \
    "run them in a random order (a new one each repeat)")                                       \
  X("--require-gpu", "", flag, require_gpu, 0, "",                                              \
    "exit 2 when a test is skipped because no CUDA device works")                                          \
  X("--isolate", "", flag, isolate, 0, "", "a fresh worker for every test")                     \
  X("--unfit-runner", "", unfit, unfit_error, 0, "warn|error",                                  \
    "a runner unfit for timing (another process on the\n"                                       \
    "GPU, CPUs busy with other work, steal, CPU quota\n"                                        \
    "throttling; thresholds in docs/noise.md): warn\n"                                          \
    "(default) and run, or error: exit 2 with nothing run")                                     \
  X("--no-confirm", "", flag, no_confirm, 0, "",                                                \
    "report a measured claim's FAIL or INCONCLUSIVE at once,\n"                                \
    "without confirming it in a second attempt (each\n"                                       \
    "attempt then judges at the whole alpha)")                                                  \
  X("--allow-no-sync-check", "", flag, allow_no_sync_check, 0, "",                              \
    "skip host-sync checks when CUPTI cannot attach\n"                                          \
    "(a profiler holds it) instead of failing them")                                            \
  X("--baseline-dir", "", dir, baseline_dir, "baselines", "DIR",                                \
    "where per-GPU baseline files live (default baselines;\n"                                   \
    "not made yet: no baselines, checks skipped with a\n"                                       \
    "notice; --update-baselines makes it)")                                                     \
  X("--print-baseline-file", "", flag, print_baseline_file, 0, "",                              \
    "print the baseline file this machine uses and exit")                                       \
  X("--check-baselines", "", flag, check_baselines, 0, "",                                      \
    "validate every *.yaml file in the baseline directory\n"                                    \
    "and exit (no test runs, no GPU needed; exit 2 at a\n"                                      \
    "malformed one, or naming a *.yml file no run reads;\n"                                     \
    "exit 0 with a note when the default\n"                                                     \
    "directory does not exist yet, 2 when a --baseline-dir\n"                                   \
    "named does not)")                                                                          \
  X("--compare-baselines", "", text, compare_baselines, NULL, "FILE",                           \
    "print the hardware move to FILE's GPU from each\n"                                          \
    "other GPU's file in the baseline directory: each\n"                                         \
    "workload's time on both against what their\n"                                              \
    "calibrations predict, and exit (no test runs, no\n"                                          \
    "GPU needed; --markdown=OUT writes it as Markdown)")                                          \
  X("--baseline-check", "", check, baseline_check_all, 0, "all",                                \
    "compare every measured workload with its baseline\n"                                       \
    "(default: claimed, only PERF_EXPECT_BASELINE)")                                            \
  X("--strict-baselines", "", flag, strict_baselines, 0, "",                                    \
    "exit 2 when this machine has no baseline (entry)")                                         \
  X("--strict-improvements", "", flag, strict_improvements, 0, "",                              \
    "fail a baseline check that got faster beyond tolerance")                                   \
  X("--update-baselines", "", flag, update_baselines, 0, "",                                    \
    "measure every baseline entry in 5 runs, and more where\n"                                 \
    "its runs have not settled, and rewrite this machine's\n"                                  \
    "file with the entries of the tests that passed\n"                                         \
    "(make baseline-update)")                                                                   \
  X("--update-runs", "", runs, update_runs, 12, "N",                                            \
    "with --update-baselines: the most runs an entry takes\n"                                  \
    "(5..16, default 12); 5: no more than the first 5")                                         \
  X("--update-budget", "", seconds, update_budget_s, 600, "SECONDS",                            \
    "with --update-baselines: the most time the runs past\n"                                   \
    "the first 5 take (default 600)")                                                           \
  X("--force", "", flag, force, 0, "",                                                          \
    "write the baseline entries of tests that failed too")                                      \
  X("--accept-wide", "", flag, accept_wide, 0, "",                                              \
    "write the baseline entries the update refuses too: a\n"                                   \
    "tolerance over 50 % (10 % in a host's file), launch-\n"                                   \
    "bound or on the submit clock (without it: exit 1)")                                        \
  X("--trace-dir", "", text, trace_dir, NULL, "DIR",                                           \
    "write what the GPU did in each GPU workload's routing\n"                                     \
    "pass (kernels, copies, memsets, untimed) as a Chrome\n"                                     \
    "trace for Perfetto: DIR/<test>.<workload>.json")                                          \
  X("--junit", "", text, junit, NULL, "FILE",                                                   \
    "JUnit XML: a testcase per test (file, line); a failure\n"                                  \
    "names the failing claim; verdict lines and output go\n"                                    \
    "to system-out")                                                                            \
  X("--markdown", "", text, markdown, NULL, "FILE",                                             \
    "a Markdown summary table, failures first, under 1 MB\n"                                    \
    "(for a CI step summary); with --repeat the headroom\n"                                     \
    "table, with --history the last runs compared")                                             \
  X("--json", "", text, json, NULL, "FILE",                                                     \
    "everything as JSON: the run, fingerprints, tests,\n"                                       \
    "claims and every sample with its clock (with\n"                                            \
    "--repeat the headroom table)")                                                             \
  X("--plots", "", text, plots, NULL, "DIR",                                                    \
    "SVG charts, a file each, into DIR (created if\n"                                           \
    "missing): time against each sweep's parameter, and\n"                                      \
    "each ratio claim against what it needs")                                                   \
  X("--html", "", text, html, NULL, "FILE",                                                     \
    "one self-contained HTML page: the summary, the\n"                                          \
    "headroom forest plot, failures first, every test's\n"                                      \
    "charts inline")                                                                            \
  X("--tap", "", flag, tap, 0, "",                                                              \
    "TAP version 13 on stdout (a YAML block for each test\n"                                    \
    "that did not pass); the console report goes to stderr")                                    \
  X("--history", "", store, history, NULL, "PATH|URI",                                       \
    "record the run (commit, GPU, every claim and workload)\n"                                \
    "in a history: a SQLite file (created if missing) or\n"                                   \
    "a PostgreSQL database, postgresql://...")                                                 \
  X("--commit", "", label, commit, NULL, "SHA",                                                  \
    "the commit to record (default: the CI's variables,\n"                                    \
    "else git rev-parse HEAD)")                                                                 \
  X("--branch", "", label, branch, NULL, "NAME", "the branch to record (default: the CI's, else git's)") \
  X("--trend", "", trend, trend, NULL, "FILTER",                                                \
    "with --history: each GPU's series over commits and\n"                                    \
    "their change points (commit, size, p); runs no test.\n"                                  \
    "FILTER (else --filter) picks tests; --branch one\n"                                      \
    "branch's runs; --html and --plots draw the series")                                                                          \
  X("--gpu", "", gpu_name, trend_gpu, NULL, "NAME",                                              \
    "with --trend: only this GPU's series; with a merge\n"                                      \
    "from the history: this GPU's shards of the run (its\n"                                     \
    "name as recorded, e.g. 'NVIDIA H100 80GB HBM3')")                                          \
  X("--last", "", commits, trend_last, 0, "N",                                                 \
    "with --trend: only each GPU's newest N commits\n"                                         \
    "(default: all)")                                                                          \
  X("--run-id", "", label, run_id, NULL, "ID",                                                \
    "the run this shard belongs to, shared by all its shards\n"                               \
    "(default: PERFGATE_RUN_ID, else Slurm's array job or job\n"                              \
    "id, else the CI's run id); recorded with --history (each\n"                               \
    "GPU's run of --devices as ID/gpuK); with --history and\n"                                  \
    "--merge=OUT without reports, the run to merge from the\n"                                  \
    "history")                                                                                  \
  X("--commit-report", "", label, commit_report, NULL, "COMMIT",                              \
    "with --history: COMMIT across GPUs (each GPU's\n"                                       \
    "verdict, what changed against its earlier commits,\n"                                   \
    "the GPUs that did not run; --markdown, --html); runs\n"                                 \
    "no test. Exit 0, 1 (a GPU regressed) or 125 (not\n"                                     \
    "decided: git bisect run's skip)")                                                        \
  X("--devices", "", gpus, devices, NULL, "all|0,1",                                            \
    "run the tests on each listed GPU in parallel, one\n"                                       \
    "supervisor per GPU: lines prefixed [gpu K], report\n"                                      \
    "files per GPU (r.gpu0.xml), --json also merged; all\n"                                    \
    "where no GPU works: one run, as without --devices")                                        \
  X("--merge", "", merge, merge, NULL, "OUT A.json B.json ...",                                 \
    "merge the --json reports of all shards into one --json\n"                                  \
    "report OUT and exit with the run's code (2 if a shard\n"                                   \
    "is missing); with --history=PATH|URI --run-id=ID before\n"                                 \
    "it and no reports, the run's shards that the history\n"                                    \
    "holds (each one's last attempt; nothing recorded);\n"                                      \
    "--plots and --html before it draw it")                                                     \
  X("--verbose", "-v", flag, verbose, 0, "",                                                    \
    "timer floors, warm-up, every look, the tests' output")                                     \
  X("--color", "", color, color, PERF__COLOR_AUTO, "auto|always|never",                         \
    "colour (auto: on a terminal, unless NO_COLOR or\n"                                         \
    "TERM=dumb)")                                                                               \
  X("--help", "-h", flag, help, 0, "", "this text")                                             \
  X("--version", "", flag, version, 0, "",                                                      \
    "print perfgate's version (and the CUDA runtime it was\n"                                   \
    "built with) and exit")                                                                     \
  X("--perf-worker", "", worker, worker_in, -1, "IN,OUT", NULL)

/* Where a report format goes (PERF__OPTIONS_REPORTS). */
typedef enum perf__options_dest {
  PERF__OPTIONS_FILE,  /* the path its option names (a const char * field): replaced whole,
                          or written in place where it is a device, a FIFO or our stdout */
  PERF__OPTIONS_STDOUT /* the run's stdout (its option a flag, an int field): the console
                          report goes to stderr */
} perf__options_dest;

/* What --devices (one run per GPU) makes of a report format. */
typedef enum perf__options_gpus {
  PERF__OPTIONS_ONE,     /* one stream for the command: refused with --devices */
  PERF__OPTIONS_PER_GPU, /* GPU K's NAME.gpuK.EXT; NAME itself is not written, so it may not
                            be written in place (a device or FIFO is refused) */
  PERF__OPTIONS_MERGED   /* GPU K's NAME.gpuK.EXT, then merged into NAME (perf__merge_reports:
                            perfgate-report/1 documents), which may be written in place */
} perf__options_gpus;

/* The report formats, one row each, in the order they are checked and
 * written (after --history's record and --plots' charts):
 *   X(option, field, dest, gpus, trend)
 * option: its row in PERF__OPTIONS_MAP above (spelling, help); field: the
 * perf__options_cli member that row sets, which also names its writer,
 * report/report.c's write_<field>(FILE *, const perf__report_run *); dest:
 * PERF__OPTIONS_<dest>, where it goes; gpus: PERF__OPTIONS_<gpus>, its
 * files with --devices; trend: 1 when --trend writes one too (its own,
 * report/trendreport.c), 0 when --trend refuses it; commit: the same for
 * --commit-report (report/commitreport.c).
 * report/report.c makes each row a perf__report_format (a struct of
 * methods, as Redis's rio) that the report check and writer, the outputs
 * check, --devices and the stdout redirect loop over; options.c reads it
 * for the options that do not combine. A new format is a row here, its
 * option row and cli field, its writer's file in report/ and write_<field>
 * in report.c. --plots is no format: a directory of charts, not one
 * document, drawn by --merge and --trend from their own results too. */
#define PERF__OPTIONS_REPORTS(X)                             \
  /* option       field     dest    gpus     trend commit */  \
  X("--junit",    junit,    FILE,   PER_GPU, 0,    0)         \
  X("--markdown", markdown, FILE,   PER_GPU, 0,    1)         \
  X("--json",     json,     FILE,   MERGED,  0,    0)         \
  X("--html",     html,     FILE,   PER_GPU, 1,    1)         \
  X("--tap",      tap,      STDOUT, ONE,     0,    0)

/* The help's sections, in table order: X(first, title, intro) - the section
 * titled title begins at the row named first and holds the rows up to the
 * next section's first; intro (lines split by '\n', "" none) follows the
 * title. Every report is in the help: the console's and the headroom
 * table's in the Reports intro, each other one in its option's row. */
#define PERF__OPTIONS_SECTIONS(X)                                                               \
  X("--list", "Choosing and running tests", "")                                                 \
  X("--baseline-dir", "Baselines", "")                                                          \
  X("--junit", "Reports",                                                                       \
    "The console report goes to stdout (stderr with --tap): a line per test\n"                  \
    "with its verdict lines, the tests that did not pass again (each once,\n"                   \
    "with how many of its runs did not pass), and 'N passed, N failed,\n"                       \
    "N skipped' last, counting runs; --repeat=N adds the headroom\n"                            \
    "table before that line. The options below write the other reports when\n"                 \
    "the run ends (a file is replaced whole, never left half-written); no\n"                    \
    "two of them, nor --history, may name one file.")                                           \
  X("--history", "History", "")                                                                 \
  X("--devices", "Several GPUs and CI shards",                                                  \
    "A shard of the tests is chosen by the first engine whose variables\n"                    \
    "are set: GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX; a Kubernetes\n"                        \
    "Indexed Job's JOB_COMPLETION_INDEX with PERFGATE_TOTAL_SHARDS; a Slurm\n"                 \
    "array's SLURM_ARRAY_TASK_*; a Slurm step's SLURM_PROCID of SLURM_NTASKS\n"               \
    "(GTEST_SHARD_STATUS_FILE, when set, is created); --merge joins the\n"                      \
    "shards' --json reports into one, or the shards of a run the history\n"                     \
    "holds (--history, --run-id).")                                                             \
  X("--verbose", "Output and help", "")

/* 1 when the option named name (a row of PERF__OPTIONS_MAP, e.g. "--json")
 * was on the command line that filled cli; 0 when it was not or is no
 * option. Never fails. */
int perf__options_given(const perf__options_cli *cli, const char *name);

/* The first option on the command line that filled cli that is not one of
 * takes[n] (names of PERF__OPTIONS_MAP rows), or NULL: for a command that
 * takes a few of them. Never fails. */
const char *perf__options_other(const perf__options_cli *cli, const char *const *takes, size_t n);

/* Parses argv into *cli (defaults first). Returns 0, or PERF__EUSAGE with a
 * one-line message naming the bad argument in err[len]. */
int perf__options_parse(int argc, char **argv, perf__options_cli *cli, char *err,
                    size_t len);
/* Prints the help text: usage, then every listed row of PERF__OPTIONS_MAP
 * under its section of PERF__OPTIONS_SECTIONS, then the exit codes. */
void perf__options_help(FILE *f, const char *prog);

#endif
