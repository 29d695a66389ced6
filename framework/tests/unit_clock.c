/* unit_clock.c — the clock table: each clock's name and what it is, read from one row. */
#include <string.h>

#include "selftest.h"
#include "host/clock.h"
#include "perfgate.h"

/* Every clock's row says what perfgate.h says of it, and its name maps
 * back to it. */
ST_TEST(clock_table_rows_match_the_clocks)
{
  static const struct {
    perf_clock c;
    const char *name;
    int host, events, held, flush, drain, queues;
    long batch;
  } want[] = {
      {PERF_CLOCK_EVENTS, "events", 0, 1, 0, 0, 0, 1, 1L << 24},
      {PERF_CLOCK_WALL, "wall", 1, 0, 0, 0, 0, 0, 1L << 24},
      {PERF_CLOCK_SUBMIT, "submit", 1, 0, 0, 0, 1, 0, 256},
      {PERF_CLOCK_DEVICE, "device", 0, 1, 1, 0, 0, 0, 1L << 24},
      {PERF_CLOCK_COLD, "cold", 0, 1, 1, 1, 0, 0, 1},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    perf_clock c = want[i].c;
    ST_CHECKF(!strcmp(perf__clock_name(c), want[i].name), "%s", perf__clock_name(c));
    ST_EQ(perf__clock_of_name(want[i].name), (int)c);
    ST_EQ(perf__clock_host_side(c), want[i].host);
    ST_EQ(perf__clock_by_events(c), want[i].events);
    ST_EQ(perf__clock_held(c), want[i].held);
    ST_EQ(perf__clock_flushes_l2(c), want[i].flush);
    ST_EQ(perf__clock_drains_after(c), want[i].drain);
    ST_EQ(perf__clock_queues_host(c), want[i].queues);
    ST_EQ(perf__clock_max_batch(c), want[i].batch);
  }
  ST_EQ(perf__clock_max_batch(PERF_CLOCK_AUTO), 1);
  ST_CHECK(!strcmp(perf__clock_name(PERF_CLOCK_AUTO), "auto"));
  ST_EQ(perf__clock_of_name("auto"), -1); /* not a clock a measurement has */
  ST_EQ(perf__clock_of_name("Wall"), -1);
  ST_EQ(perf__clock_host_side(PERF_CLOCK_AUTO), 0);
}
