/* runner.c — the runner checked before a run: a preflight line per GPU, and an unfit runner as a run-level warning or (--unfit-runner=error) exit 2 with nothing run. */
#include "supervisor/runner.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/progname.h"
#include "worker/probe.h"

/* Appends the causes of p not yet in buf[len] (each "; "-separated): a
 * host cause is said once for all GPUs. Never fails (truncates). */
static void add_causes(const perf__preflight *p, char *buf, size_t len)
{
  for (int k = 0; k < p->ncauses; k++) {
    size_t used = strlen(buf);
    if (strstr(buf, p->cause[k].text)) continue;
    snprintf(buf + used, len - used, "%s%s", used ? "; " : "", p->cause[k].text);
  }
}

/* See runner.h. */
int perf__runner_check(const perf__cli *cli, const int *ids, int nd, perf__preflight *pf)
{
  perf__preflight_host host;
  char line[2400], causes[4000] = "";
  double t0 = perf__clock_now();
  int n = nd > 0 ? nd : 1;
  perf__preflight_host_read(&host);
  double host_s = perf__clock_now() - t0;
  for (int k = 0; k < n; k++) {
    double g0 = perf__clock_now();
    memset(&pf[k], 0, sizeof pf[k]);
    pf[k].device = nd > 0 ? ids[k] : 0;
    pf[k].host = host;
    perf__probe_preflight_gpu(nd > 0 ? ids[k] : -1, &pf[k].gpu);
    pf[k].seconds = host_s + perf__clock_now() - g0;
    perf__preflight_judge(&pf[k]);
    add_causes(&pf[k], causes, sizeof causes);
    printf("perfgate: %s\n", perf__preflight_line(&pf[k], line, sizeof line));
  }
  if (cli->verbose)
    printf("perfgate: preflight took %.3f s (host clock): the host window %.3f s, %d GPU %s "
           "%.3f s\n", perf__clock_now() - t0, host_s, n, n == 1 ? "probe" : "probes",
           perf__clock_now() - t0 - host_s);
  fflush(stdout);
  if (!causes[0]) return 0;
  if (cli->unfit_error) {
    fprintf(stderr, "%s: --unfit-runner=error: this runner is unfit for timing, nothing was run: "
                    "%s\n", perf__progname(), causes);
    return 2;
  }
  printf("perfgate: WARNING: this runner is unfit for timing (thresholds in the README): %s; "
         "verdicts may be INCONCLUSIVE; --unfit-runner=error refuses to run here\n", causes);
  fflush(stdout);
  return 0;
}
