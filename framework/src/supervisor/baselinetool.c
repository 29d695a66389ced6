/* baselinetool.c — perfgate-baselines: --check-baselines as a program of its own, built from modules that need no CUDA (libyaml alone), for CI machines without a GPU or the CUDA libraries. */
#include "supervisor/baselinetool.h"

#include <stdio.h>

#include "base/options.h"
#include "base/progname.h"
#include "base/version.h"
#include "supervisor/baselinedir.h"

static const char *const takes[] = {PERF__BASELINETOOL_TAKES};

/* The help text. Never fails (write errors are f's). */
static void help(FILE *f, const char *prog)
{
  fprintf(f,
          "usage: %s [--baseline-dir=DIR]\n"
          "Validates every baseline file (*.yaml) in DIR (default baselines) as\n"
          "perftest --check-baselines does, running no test: no GPU, no CUDA library\n"
          "needed. Exit 0 when all are valid (or the default directory does not\n"
          "exist yet), 2 naming the first malformed file (file:line:column), each\n"
          "file no run reads (x.yml), or a --baseline-dir that cannot be read.\n",
          prog);
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
    fprintf(stderr, "%s: %s is an option of perftest: %s only validates baseline files and "
            "takes --baseline-dir=DIR (see --help)\n", prog, other, prog);
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
  return perf__baselinedir_check(cli.baseline_dir, perf__options_given(&cli, "--baseline-dir"),
                                 "--check-baselines", stdout, stderr);
}
