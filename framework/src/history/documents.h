/* documents.h — a run's shards read back by run id: each shard's last attempt and its report. */
#ifndef PERF_DOCUMENTS_H
#define PERF_DOCUMENTS_H

#include <stddef.h>

#include "history/store.h"

/* One shard of a run as the history holds it: its last attempt. */
typedef struct perf__documents_shard {
  long long run;     /* its id in perfgate_runs */
  char *gpu;         /* the GPU (or "no GPU: CPU") it was recorded under */
  long index, total; /* which shard, of how many */
  char *commit;      /* the commit it was recorded at */
  char *text;        /* its perfgate-report/1 document (perf__documents_load);
                        NULL: recorded before schema 6, without one */
} perf__documents_shard;

/* The shards of one run id, by GPU, then index. */
typedef struct perf__documents_set {
  perf__documents_shard *shards;
  size_t n, cap;
  int schema; /* the store's schema version (0: none of perfgate's tables) */
} perf__documents_set;

/* The last attempt of each shard of the run whose run id is key, on gpu
 * (NULL: every GPU), from s into *set (emptied first; no documents yet).
 * A store before schema 5 has no run ids: no shards. Reads only. Returns
 * 0 (set->n 0: no such run), PERF__EINVAL for a store perfgate does not
 * read (perf__schema_version says why), the store's error or
 * PERF__ENOMEM, with the reason in err[len]; set is then empty. */
int perf__documents_shards(perf__store *s, const char *key, const char *gpu,
                           perf__documents_set *set, char *err, size_t len);

/* Reads each shard's document of set into its text (NULL where the store
 * has none: a shard recorded before schema 6, or a store at schema 5).
 * Returns 0, the store's error or PERF__ENOMEM with the reason in
 * err[len]. */
int perf__documents_load(perf__store *s, perf__documents_set *set, char *err, size_t len);

/* Frees what set holds and empties it. Never fails. */
void perf__documents_free(perf__documents_set *set);

#endif
