/* unit_ratio.c — the heads claims' lines begin with: a ratio claim's and a baseline check's. */
/* Their verdict lines, records and embed.c's messages share them. */
#include <string.h>

#include "worker/claim/blclaim.h"
#include "worker/claim/ratio.h"
#include "selftest.h"

ST_TEST(ratio_head_names_the_claim_its_factor_and_where)
{
  char head[300];
  ST_STR(perf__ratio_head(head, sizeof head, 0, 1.3, (perf__names){"fast", "slow", NULL},
                          (perf__site){"t.c", 12, 0}),
         "FASTER(fast, slow, 1.3) at t.c:12");
  ST_STR(perf__ratio_head(head, sizeof head, 1, 0.05, (perf__names){"a", "b", NULL},
                          (perf__site){"x/y.py", 7, 0}),
         "SIMILAR(a, b, 0.05) at x/y.py:7");
  ST_STR(perf__ratio_head(head, 10, 0, 2, (perf__names){"a", "b", NULL}, (perf__site){"t.c", 1, 0}),
         "FASTER(a,"); /* truncated */
  ST_STR(perf__blclaim_head(head, sizeof head, "w", (perf__site){"t.c", 3, 0}), "BASELINE(w) at t.c:3");
}
