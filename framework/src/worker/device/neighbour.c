/* neighbour.c — the processes that shared the GPU with a claim, in words: who, what they used. */
#include "worker/device/neighbour.h"

#include "util/units.h"

/* Appends "48.2 GB/s of host-to-device traffic not ours (GPM)": the rate
 * comes from NVML's GPM PCIe counters. Never fails. */
static void link_words(char *buf, size_t len, size_t *used, double rate, int to_host)
{
  perf__units_append(buf, len, used, "%.1f GB/s of %s traffic not ours (GPM)", rate * 1e-9,
                     to_host ? "device-to-host" : "host-to-device");
}

/* See neighbour.h. */
const char *perf__neighbour_describe(const perf__cotenant *s, double since, char *buf,
                                     size_t len)
{
  int order[PERF__COTENANT_PROCS], k = 0;
  size_t used = 0;
  buf[0] = '\0';
  since -= PERF__COTENANT_QUIET_S;
  for (int i = 0; i < s->nprocs; i++) {
    if (s->procs[i].last_busy < since) continue;
    int j = k++;
    while (j > 0 && s->procs[order[j - 1]].sm < s->procs[i].sm) order[j] = order[j - 1], j--;
    order[j] = i;
  }
  for (int j = 0; j < k; j++) {
    const perf__cotenant_proc *p = &s->procs[order[j]];
    perf__units_append(buf, len, &used, "%spid %u%s%s%s, ", j ? "; " : "", p->pid, p->name[0] ? " (" : "",
        p->name, p->name[0] ? ")" : "");
    if (p->sm)
      perf__units_append(buf, len, &used, "%u %% SM%s", p->sm, p->link > 0 ? ", " : "");
    else if (p->link <= 0)
      perf__units_append(buf, len, &used, "SM share unknown (it holds a context; NVML gives no "
          "per-process utilisation)");
    if (p->link > 0) link_words(buf, len, &used, p->link, p->link_up);
  }
  int link = s->link > 0 && s->link_last >= since;
  if (s->hidden && s->hidden_last >= since) {
    perf__units_append(buf, len, &used, "%s%d %s NVML lists by host PID (not nameable from this PID "
        "namespace)", k ? "; " : "", s->hidden, s->hidden == 1 ? "process" : "processes");
    if (link && !k) {
      perf__units_append(buf, len, &used, ", with ");
      link_words(buf, len, &used, s->link, s->link_up);
    }
  }
  if (link && s->link_group > 1) {
    perf__units_append(buf, len, &used, "%s", used ? "; " : "");
    link_words(buf, len, &used, s->link, s->link_up);
    perf__units_append(buf, len, &used, ", from one of %d other processes holding a context",
                       s->link_group);
  }
  if (s->unlisted && s->unlisted_last >= since)
    perf__units_append(buf, len, &used, "%sGPU time no process NVML lists accounts for (up to %u %% "
        "of a window)", used ? "; " : "", s->unlisted);
  return buf;
}

