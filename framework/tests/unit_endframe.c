/* unit_endframe.c — the END frame's named tally: round trips, and frames the supervisor refuses. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "record/endframe.h"
#include "util/status.h"
#include "selftest.h"

/* Every field and the reason come back as written, the fields by name. */
ST_TEST(endframe_round_trips_each_field_by_name)
{
  perf__endframe e = {.outcome = PERF_OUTCOME_FAIL, .nodevice = 0, .checks = 7, .failures = 2,
                      .gpu_broken = 1, .baseline_missing = 1},
                 back;
  snprintf(e.reason, sizeof e.reason, "FASTER(a, b, 2): FAIL\nsecond line");
  char buf[800];
  size_t n = perf__endframe_format(&e, buf, sizeof buf);
  ST_EQ(n, strlen(buf));
  ST_CHECKF(strstr(buf, "gpu_broken=1 ") && strstr(buf, "checks=7 "), "%s", buf);
  ST_EQ(perf__endframe_parse(buf, &back), 0);
  ST_CHECK(!memcmp(&e, &back, offsetof(perf__endframe, reason)));
  ST_CHECK(!strcmp(back.reason, e.reason));
}

/* A frame of the old positional form, a missing or renamed field, a
 * number that is not one, and an outcome out of range are refused. */
ST_TEST(endframe_refuses_a_frame_it_cannot_read)
{
  static const char *const bad[] = {
      "2 0 7 2 1 1\nreason",
      "outcome=2 nodevice=0 checks=7 failures=2 gpu_broken=1\nreason",
      "outcome=2 nodevice=0 checks=7 failures=2 cupti=1 baseline_missing=1 \nreason",
      "outcome=2 nodevice=0 checks=x failures=2 gpu_broken=1 baseline_missing=1 \nreason",
      "outcome=99 nodevice=0 checks=7 failures=2 gpu_broken=1 baseline_missing=1 \nreason",
      "outcome=2 nodevice=0 checks=7 failures=2 gpu_broken=1 baseline_missing=1 reason",
  };
  perf__endframe e;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    ST_CHECKF(perf__endframe_parse(bad[i], &e) == PERF__EPROTO, "accepted: %s", bad[i]);
  ST_EQ(perf__endframe_parse("outcome=0 nodevice=0 checks=0 failures=0 gpu_broken=0 "
                             "baseline_missing=0 \n", &e), 0);
  ST_CHECK(e.outcome == PERF_OUTCOME_PASS && e.reason[0] == '\0');
}
