/* runner.c — the runner checked before a run: a preflight line per GPU, and unfit runners. */
/* An unfit runner is a run-level warning or, with --unfit-runner=error, exit
 * 2 with nothing run. */
#include "supervisor/runner.h"

#include <stdio.h>
#include <string.h>

#include "host/clock.h"
#include "util/progname.h"
#include "supervisor/devices.h"
#include "worker/process/probe.h"

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

/* The GPUs to probe and where their readings go. */
typedef struct probes {
  const int *ids; /* NULL: device 0 as the run sees it */
  int n;
  perf__preflight *pf;
  double seconds; /* the probes took, host clock */
} probes;

/* Asks every GPU at once, then reads each answer (run inside the host's
 * window: the children are reaped there). */
static void probe_gpus(void *ctx)
{
  probes *g = ctx;
  perf__probe_pending p[PERF__DEVICES_MAX];
  double t0 = perf__clock_now();
  for (int k = 0; k < g->n; k++) perf__probe_preflight_start(g->ids ? g->ids[k] : -1, &p[k]);
  for (int k = 0; k < g->n; k++) perf__probe_preflight_finish(&p[k], &g->pf[k].gpu);
  g->seconds = perf__clock_now() - t0;
}

/* See runner.h. */
int perf__runner_check(const perf__options_cli *cli, const int *ids, int nd, perf__preflight *pf)
{
  perf__preflight_host host;
  char line[2400], causes[4000] = "";
  double t0 = perf__clock_now();
  probes g = {nd > 0 ? ids : NULL, nd > 0 ? (nd < PERF__DEVICES_MAX ? nd : PERF__DEVICES_MAX) : 1, pf, 0};
  memset(pf, 0, (size_t)g.n * sizeof *pf);
  perf__preflight_host_read(&host, probe_gpus, &g);
  double took = perf__clock_now() - t0;
  for (int k = 0; k < g.n; k++) {
    pf[k].device = g.ids ? g.ids[k] : 0;
    pf[k].host = host;
    pf[k].seconds = took;
    perf__preflight_judge(&pf[k]);
    add_causes(&pf[k], causes, sizeof causes);
    printf("perfgate: %s\n", perf__preflight_line(&pf[k], line, sizeof line));
  }
  if (cli->verbose)
    printf("perfgate: preflight took %.3f s (host clock): the host window %.3f s, the GPU %s "
           "%.3f s within it\n", took, host.window_s, g.n == 1 ? "probe" : "probes", g.seconds);
  fflush(stdout);
  if (!causes[0]) return 0;
  if (cli->unfit_error) {
    fprintf(stderr, "%s: --unfit-runner=error: this runner is unfit for timing, nothing was run: "
                    "%s\n", perf__progname(), causes);
    return 2;
  }
  printf("perfgate: WARNING: this runner is unfit for timing (thresholds in docs/noise.md): %s; "
         "verdicts may be INCONCLUSIVE; --unfit-runner=error refuses to run here\n", causes);
  fflush(stdout);
  return 0;
}
