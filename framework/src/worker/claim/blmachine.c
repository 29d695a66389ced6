/* blmachine.c — this machine's baseline file, loaded once per worker, for host and GPU work. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/blmachine.h"

#include <stdio.h>
#include <string.h>

#include "baseline/blrule.h"
#include "baseline/machine.h"
#include "worker/claim/sweep.h"
#include "worker/context.h"
#include "worker/device/fingerprint.h"
#include "worker/sample/workload.h"

/* This machine as host-only work sees it (0) and as GPU work sees it (1). */
static perf__blmachine machines[2];

/* Fields whose change makes old numbers suspect: warned about. */
static const char *const watched[] = {"driver", "cuda_driver_api", "cuda_runtime",
                                      "max_sm_clock_mhz", NULL};

static void warn_differences(const perf__blmachine *m)
{
  char diff[600] = "";
  size_t used = 0;
  for (const char *const *k = watched; *k; k++) {
    const char *was = perf__baseline_fp(&m->file, *k), *is = perf__baseline_fp(&m->now, *k);
    if (was && is && strcmp(was, is) && used < sizeof diff)
      used += (size_t)snprintf(diff + used, sizeof diff - used, "%s%s %s -> %s",
                               used ? ", " : "", *k, was, is);
  }
  if (used)
    perf__context_line(PERF_LINE_NOTICE, "warning: this machine differs from %s: %s",
               m->path, diff);
}

/* Notes in m->card the GPU the file was recorded on when it is another
 * card of this model (both uuids known and different), and says what that
 * means for its checks (baseline/blrule.h). Never fails. */
static void other_card(perf__blmachine *m)
{
  const char *was = perf__baseline_fp(&m->file, "uuid"), *is = perf__baseline_fp(&m->now, "uuid");
  if (!was || !is || !strcmp(was, is)) return;
  snprintf(m->card, sizeof m->card, "%s", was);
  if (perf__context_opt.update_baselines) return; /* it is about to be this card's */
  perf__context_line(PERF_LINE_NOTICE, "note: %s was recorded on another card of this model "
                     "(%s; this one is %s): a slower host-paced entry is not decided here "
                     "unless launch-normalized, another only beyond its tolerance plus %.0f%% "
                     "(the spread between cards); record this runner's own file to gate them "
                     "fully", m->path, was, is, 100 * PERF__BLR_CARD_MARGIN);
}

/* See blmachine.h. */
perf__blmachine *perf__blmachine_get(int k)
{
  perf__blmachine *m = &machines[k];
  if (m->loaded) return m;
  m->loaded = 1;
  m->gpu = k;
  perf__baseline_init(&m->now);
  if (!k || perf__fingerprint_gpu(&m->now)) perf__machine_host(&m->now);
  char note[sizeof m->err];
  perf__machine_fit fit = perf__machine_load(perf__context_opt.baseline_dir, &m->now, &m->file,
                                             m->path, sizeof m->path, note, sizeof note);
  m->exists = fit == PERF__MACHINE_OWN;
  m->bad = fit == PERF__MACHINE_BAD;
  m->other = fit == PERF__MACHINE_OTHER;
  if (m->bad || m->other) snprintf(m->err, sizeof m->err, "%s", note);
  if (m->exists) {
    warn_differences(m);
    other_card(m);
    if (note[0]) perf__context_line(PERF_LINE_NOTICE, "%s", note);
  } else if (m->other)
    perf__context_line(PERF_LINE_NOTICE, "warning: %s: its baseline checks are skipped on this "
               "machine, never decided on another machine's numbers. Record this machine's "
               "file with --update-baselines once that one is moved away (or with another "
               "--baseline-dir).", note);
  else if (!m->bad && !perf__context_opt.update_baselines)
    perf__context_line(PERF_LINE_NOTICE, "no baseline for this machine (%s): %s does not "
               "exist%s%s%s; baseline checks are skipped. Create it by running this binary "
               "with --update-baselines and the same --baseline-dir (in perfgate's own tree: "
               "make baseline-update).",
               perf__baseline_model(&m->now), m->path, note[0] ? " (" : "", note,
               note[0] ? ")" : "");
  return m;
}


/* See blmachine.h. */
const char *perf__blmachine_key(const perf_workload *w, char *buf, size_t len)
{
  if (perf__sweep_active())
    snprintf(buf, len, "%s[%s=%ld]", w->name, perf__sweep_var(), perf__sweep_value());
  else
    snprintf(buf, len, "%s", w->name);
  return buf;
}

/* See blmachine.h. */
perf__blmachine *perf__blmachine_usable(perf__blmachine *m)
{
  if (m->bad) {
    perf__context_baseline_state(2);
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s", m->err);
  }
  return m;
}

/* See blmachine.h. */
perf__blmachine *perf__blmachine_of(const perf_workload *w)
{
  return perf__blmachine_usable(perf__blmachine_get(w->perf__state->uses_gpu));
}

