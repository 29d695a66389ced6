/* baselinetool.c — perfgate-baselines: the baseline checks as a program that needs no CUDA. */
/* --check-baselines and --compare-baselines, built from modules that need no
 * CUDA (libyaml alone), for CI machines without a GPU or the CUDA libraries. */
#include "supervisor/baselinetool.h"

#include <stdio.h>

#include "cli/options.h"
#include "util/progname.h"
#include "util/version.h"
#include "report/hwmove.h"
#include "supervisor/baselinedir.h"

static const char *const takes[] = {PERF__BASELINETOOL_TAKES};

/* The help text. Never fails (write errors are f's). */
static void help(FILE *f, const char *prog)
{
  fprintf(f,
          "usage: %s [--baseline-dir=DIR]\n"
          "       %s --compare-baselines=FILE [--baseline-dir=DIR] [--markdown=OUT]\n"
          "Validates every baseline file (*.yaml) in DIR (default baselines) as\n"
          "perftest --check-baselines does, running no test: no GPU, no CUDA library\n"
          "needed. Exit 0 when all are valid (or the default directory does not\n"
          "exist yet), 2 naming the first malformed file (file:line:column), each\n"
          "file no run reads (x.yml), or a --baseline-dir that cannot be read.\n"
          "With --compare-baselines, prints the hardware move to FILE's GPU from\n"
          "each other GPU's file in DIR, as --update-baselines does after writing\n"
          "FILE: each workload's time on both GPUs against what their calibrations\n"
          "predict (baselines/README.md); --markdown=OUT writes it as Markdown too.\n"
          "Exit 0 when printed, 2 for a file that cannot be read or none to compare.\n",
          prog, prog);
}

/* See baselinetool.h. */
int perf__baselinetool_main(int argc, char **argv)
{
  perf__options_cli cli;
  char err[400];
  perf__progname_set(argc > 0 ? argv[0] : NULL);
  const char *prog = perf__progname();
  if (perf__options_parse(argc, argv, &cli, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 2;
  }
  const char *other = perf__options_other(&cli, takes, sizeof takes / sizeof *takes);
  if (other) {
    fprintf(stderr, "%s: %s is an option of perftest: %s only validates and compares baseline "
            "files, and takes --baseline-dir=DIR, --compare-baselines=FILE and --markdown=OUT "
            "(see --help)\n", prog, other, prog);
    return 2;
  }
  if (cli.markdown && !cli.compare_baselines) {
    fprintf(stderr, "%s: --markdown writes the tables of --compare-baselines=FILE: give it with "
            "--compare-baselines\n", prog);
    return 2;
  }
  if (cli.help) {
    help(stdout, prog);
    return 0;
  }
  if (cli.version) {
    char line[128];
    puts(perf__version_line(line, sizeof line, 0));
    return 0;
  }
  if (cli.compare_baselines) return perf__hwmove_run(&cli);
  return perf__baselinedir_check(cli.baseline_dir, perf__options_given(&cli, "--baseline-dir"),
                                 "--check-baselines", stdout, stderr);
}
