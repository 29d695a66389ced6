/* tracesite.c — call sites of a routing pass's copies, memsets and host syncs, for the trace. */
#include "worker/streams/tracesite.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "worker/sync/callsite.h"

enum { MAX_NOTES = 256 };

typedef struct note {
  unsigned corr;
  int sync;
  const char *api, *why; /* static strings (CUPTI's names, the table's words) */
  perf__callsite_site site;
  char where[200];       /* resolved, "" until asked */
  int resolved;
} note;

static struct {
  pthread_mutex_t mu;
  note n[MAX_NOTES];
  int count;
} tsites = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* See tracesite.h. */
void perf__tracesite_begin(void)
{
  pthread_mutex_lock(&tsites.mu);
  tsites.count = 0;
  pthread_mutex_unlock(&tsites.mu);
}

/* See tracesite.h. */
void perf__tracesite_note(unsigned corr, const char *api, int sync, const char *why)
{
  perf__callsite_site site;
  perf__callsite_capture(&site);
  pthread_mutex_lock(&tsites.mu);
  if (tsites.count < MAX_NOTES)
    tsites.n[tsites.count++] = (note){.corr = corr, .sync = sync, .api = api, .why = why, .site = site};
  pthread_mutex_unlock(&tsites.mu);
}

/* n's call site as "file:line (fn)", resolved once. Never fails. */
static const char *where_of(note *n)
{
  if (!n->resolved) {
    int line = 0;
    n->resolved = 1;
    if (n->site.lang[0]) snprintf(n->where, sizeof n->where, "%s", n->site.lang);
    else if (n->site.pc) perf__callsite_name(&n->site, n->where, sizeof n->where, &line);
  }
  return n->where;
}

/* See tracesite.h. */
int perf__tracesite_lookup(unsigned corr, char *api, size_t alen, char *where, size_t wlen,
                           void *ctx)
{
  (void)ctx;
  int found = 0;
  pthread_mutex_lock(&tsites.mu);
  for (int i = 0; i < tsites.count && !found; i++)
    if (!tsites.n[i].sync && tsites.n[i].corr == corr) {
      snprintf(api, alen, "%s", tsites.n[i].api);
      snprintf(where, wlen, "%s", where_of(&tsites.n[i]));
      found = 1;
    }
  pthread_mutex_unlock(&tsites.mu);
  return found;
}

/* See tracesite.h. */
void perf__tracesite_syncs(perf__trace *t)
{
  pthread_mutex_lock(&tsites.mu);
  for (int i = 0; i < tsites.count; i++) {
    note *n = &tsites.n[i];
    if (!n->sync) continue;
    perf__trace_key key = {PERF__TRACE_SYNC, n->api, n->why, where_of(n)};
    if (perf__trace_add(t, &key, 0, 0, 0, 0)) t->dropped++;
  }
  pthread_mutex_unlock(&tsites.mu);
}
