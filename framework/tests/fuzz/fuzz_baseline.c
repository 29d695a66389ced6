/* fuzz_baseline.c — libFuzzer target: the baseline loader parses or fails cleanly on any bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "baseline/baseline.h"
#include "baseline/blyaml.h"
#include "util/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  perf__baseline b;
  char err[400];
  int r = perf__blyaml_parse("fuzz.yaml", data, size, &b, err, sizeof err);
  /* Whatever went in, the result is consistent: parsed, or an error with a
   * position and nothing kept. */
  if (r == 0) {
    for (size_t i = 0; i < b.nentries; i++) {
      const perf__baseline_mhz *c = &b.entries[i].sm_clock; /* known, or all 0 */
      if (!(b.entries[i].median_s > 0) || !(b.entries[i].spread_s >= 0) ||
          b.entries[i].samples < 1 ||
          (c->median ? c->min < 1 || c->min > c->median || c->median > c->max
                     : c->min || c->max))
        __builtin_trap();
    }
  } else if (r == PERF__EBADFILE) {
    if (strncmp(err, "fuzz.yaml:", 10) || b.nentries || b.nratios || b.nfp)
      __builtin_trap();
  }
  perf__baseline_free(&b);
  return 0;
}
