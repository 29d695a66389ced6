/* unit_merge.c — --merge's document from fixed shard reports, byte for byte as before. */
/* As merge wrote it before it went through the one report writer, for shards
 * and for --devices. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/merge.h"
#include "selftest.h"

/* Merges framework/tests/fixtures/merge/s0.json and s1.json (shards: as
 * --merge, else as --devices) and checks the document against want, a
 * file there that merge.c wrote before it used jsonreport.c's writer. */
static void merged_as_before(int shards, const char *want)
{
  char dir[] = "/tmp/perfgate-umerge-XXXXXX", out[300], path[300];
  char s0[] = "framework/tests/fixtures/merge/s0.json", s1[] = "framework/tests/fixtures/merge/s1.json";
  char *in[] = {s0, s1};
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(out, sizeof out, "%s/m.json", dir);
  snprintf(path, sizeof path, "%s/stdout", dir);
  fflush(stdout);
  int saved = dup(1); /* the summary line goes to a file, read below */
  ST_CHECK(saved >= 0 && freopen(path, "w", stdout) != NULL);
  ST_EQ(perf__merge_reports(out, in, 2, shards, NULL), 1); /* one shard has a failed test */
  fflush(stdout);
  ST_CHECK(dup2(saved, 1) == 1 && close(saved) == 0);
  char *said = st_slurp(path);
  ST_CHECKF(said && strstr(said, "merged 2 reports into") &&
                strstr(said, ": 1 passed, 1 failed, 0 skipped; exit 1\n"), "%s", said ? said : "");
  free(said);
  snprintf(path, sizeof path, "framework/tests/fixtures/merge/%s", want);
  char *got = st_slurp(out), *before = st_slurp(path);
  ST_CHECKF(got && before && !strcmp(got, before), "%s differs from %s", out, path);
  free(got);
  free(before);
  st_rmtree(dir);
}

ST_TEST(merge_writes_the_shards_document_as_before)
{
  merged_as_before(1, "merged.json");
}

ST_TEST(merge_writes_the_devices_document_as_before)
{
  merged_as_before(0, "merged-devices.json");
}
