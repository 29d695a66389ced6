/* unit_streamorder.c — the stream-order model and its decision on made-up sequences. */
/* It measures on the stream, waits for the device, or refuses. */
#include <string.h>

#include "selftest.h"
#include "worker/streams/streamorder.h"

/* One model for all tests (it is large); each test starts it afresh. */
static perf__streamorder_model o;

enum { CTX = 0x1000, OTHER_CTX = 0x2000 };

static int add(uintptr_t ctx, uintptr_t handle, perf__streamorder_stream_kind kind)
{
  perf__streamorder_key k = {.ctx = ctx, .handle = handle};
  if (kind == PERF__STREAM_PER_THREAD) k.thread = handle; /* handle names the thread */
  return perf__streamorder_find_stream(&o, k, kind, ctx == CTX ? 0 : 1);
}

static int legacy(void) { return add(CTX, 0, PERF__STREAM_LEGACY); }
static int nonblocking(uintptr_t h) { return add(CTX, h, PERF__STREAM_NONBLOCKING); }
static int blocking(uintptr_t h) { return add(CTX, h, PERF__STREAM_BLOCKING); }

static void fresh(void)
{
  perf__streamorder_free(&o);
}

/* A fresh model with the declared stream s (the anchor) and another, t;
 * both non-blocking. */
static void declared_and_other(int *s, int *t)
{
  fresh();
  *s = nonblocking(0xa);
  *t = nonblocking(0xb);
  perf__streamorder_anchor(&o, *s);
}

static perf__streamorder_verdict decide(perf_clock c, int declared)
{
  perf__streamorder_verdict v;
  perf__streamorder_decide(&o, c, declared, &v);
  return v;
}

ST_TEST(order_no_work_waits_for_nothing_or_refuses_a_gpu_clock)
{
  fresh();
  ST_EQ(decide(PERF_CLOCK_WALL, 0).route, PERF__ROUTE_NOTHING);
  ST_EQ(decide(PERF_CLOCK_SUBMIT, 0).route, PERF__ROUTE_NOTHING);
  perf__streamorder_anchor(&o, nonblocking(0xa));
  ST_EQ(decide(PERF_CLOCK_WALL, 1).route, PERF__ROUTE_STREAM);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_STREAM);
  perf__streamorder_verdict v = decide(PERF_CLOCK_DEVICE, 1);
  ST_EQ(v.route, PERF__ROUTE_REFUSE);
  ST_EQ(v.blame, -1); /* nothing to blame: no work at all */
  ST_EQ(decide(PERF_CLOCK_COLD, 1).route, PERF__ROUTE_REFUSE);
}

/* The first case: cuBLAS on the legacy stream, nothing declared. */
ST_TEST(order_undeclared_work_makes_the_wall_clock_wait_for_the_device)
{
  fresh();
  perf__streamorder_work(&o, legacy(), PERF__WORK_KERNEL, 7);
  perf__streamorder_verdict v = decide(PERF_CLOCK_WALL, 0);
  ST_EQ(v.route, PERF__ROUTE_DEVICE);
  ST_EQ(v.undeclared, 1);
  ST_EQ(decide(PERF_CLOCK_SUBMIT, 0).route, PERF__ROUTE_DEVICE);
  /* a stream of its own, non-blocking, and a short kernel: the same */
  fresh();
  perf__streamorder_work(&o, nonblocking(0xb), PERF__WORK_KERNEL, 0);
  ST_EQ(decide(PERF_CLOCK_WALL, 0).route, PERF__ROUTE_DEVICE);
}

ST_TEST(order_work_on_the_declared_stream_is_timed_there)
{
  fresh();
  int s = nonblocking(0xa);
  perf__streamorder_anchor(&o, s);
  for (int i = 0; i < 3; i++) perf__streamorder_work(&o, s, PERF__WORK_KERNEL, i);
  static const perf_clock clocks[] = {PERF_CLOCK_WALL, PERF_CLOCK_SUBMIT, PERF_CLOCK_EVENTS,
                                      PERF_CLOCK_DEVICE, PERF_CLOCK_COLD};
  for (int i = 0; i < 5; i++) {
    perf__streamorder_verdict v = decide(clocks[i], 1);
    ST_EQ(v.route, PERF__ROUTE_STREAM);
    ST_EQ(v.undeclared, 0);
  }
}

/* The second case: .stream = s1, the handle on s2. */
ST_TEST(order_work_on_another_stream_is_refused_or_waited_for)
{
  int s1, s2;
  declared_and_other(&s1, &s2);
  perf__streamorder_work(&o, s2, PERF__WORK_KERNEL, 11);
  perf__streamorder_work(&o, s2, PERF__WORK_KERNEL, 12);
  perf__streamorder_verdict v = decide(PERF_CLOCK_EVENTS, 1);
  ST_EQ(v.route, PERF__ROUTE_REFUSE);
  ST_EQ(v.blame, s2);
  ST_EQ(v.early, 0);
  ST_EQ(v.missed, 2);
  ST_EQ(v.site, 11);
  ST_EQ(v.undeclared, 1);
  v = decide(PERF_CLOCK_DEVICE, 1);
  ST_EQ(v.route, PERF__ROUTE_REFUSE);
  ST_EQ(v.early, 1); /* it would not even wait for the blocking kernel */
  ST_EQ(decide(PERF_CLOCK_WALL, 1).route, PERF__ROUTE_DEVICE);
  ST_EQ(decide(PERF_CLOCK_SUBMIT, 1).route, PERF__ROUTE_DEVICE);
}

/* The legacy stream waits for blocking streams and they for it; a
 * non-blocking stream has no such order. */
ST_TEST(order_legacy_stream_and_blocking_streams)
{
  /* memset on declared blocking s, then a copy on stream 0 */
  fresh();
  int s = blocking(0xa), l = legacy();
  perf__streamorder_anchor(&o, s);
  perf__streamorder_work(&o, s, PERF__WORK_MEMSET, 1);
  perf__streamorder_work(&o, l, PERF__WORK_COPY, 2);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_STREAM); /* the end event waits */
  ST_EQ(decide(PERF_CLOCK_DEVICE, 1).route, PERF__ROUTE_STREAM); /* and the copy for the start */
  /* a host sync of s is no operation on s: it does not wait for stream 0 */
  ST_EQ(decide(PERF_CLOCK_WALL, 1).route, PERF__ROUTE_DEVICE);
  /* the same with a non-blocking s */
  fresh();
  s = nonblocking(0xa), l = legacy();
  perf__streamorder_anchor(&o, s);
  perf__streamorder_work(&o, s, PERF__WORK_MEMSET, 1);
  perf__streamorder_work(&o, l, PERF__WORK_COPY, 2);
  perf__streamorder_verdict v = decide(PERF_CLOCK_EVENTS, 1);
  ST_EQ(v.route, PERF__ROUTE_REFUSE);
  ST_EQ(v.blame, l);
  /* no .stream: a GPU clock's events go to stream 0, which waits for a
   * blocking stream's work but not for a non-blocking one's */
  fresh();
  l = legacy();
  perf__streamorder_anchor(&o, l);
  perf__streamorder_work(&o, blocking(0xc), PERF__WORK_KERNEL, 3);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 0).route, PERF__ROUTE_STREAM);
  ST_EQ(decide(PERF_CLOCK_DEVICE, 0).route, PERF__ROUTE_STREAM);
  perf__streamorder_work(&o, nonblocking(0xd), PERF__WORK_KERNEL, 4);
  v = decide(PERF_CLOCK_EVENTS, 0);
  ST_EQ(v.route, PERF__ROUTE_REFUSE);
  ST_EQ(v.site, 4);
}

/* Implicit synchronisation stays inside a context; a per-thread default
 * stream syncs with the legacy stream like a blocking stream. */
ST_TEST(order_contexts_and_per_thread_streams)
{
  fresh();
  int l = legacy(), far = add(OTHER_CTX, 0xa, PERF__STREAM_BLOCKING);
  perf__streamorder_anchor(&o, l);
  perf__streamorder_work(&o, far, PERF__WORK_KERNEL, 1);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 0).route, PERF__ROUTE_REFUSE);
  fresh();
  l = legacy();
  int pt1 = add(CTX, 1, PERF__STREAM_PER_THREAD), pt2 = add(CTX, 2, PERF__STREAM_PER_THREAD);
  ST_CHECK(pt1 != pt2); /* each thread has its own */
  perf__streamorder_anchor(&o, l);
  perf__streamorder_work(&o, pt1, PERF__WORK_KERNEL, 1);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 0).route, PERF__ROUTE_STREAM);
}

/* cudaEventRecord + cudaStreamWaitEvent, the way to use a second stream. */
ST_TEST(order_fork_and_join_through_events)
{
  int s, t;
  declared_and_other(&s, &t);
  perf__streamorder_record(&o, s, 0xe1);
  perf__streamorder_wait(&o, t, 0xe1);
  perf__streamorder_work(&o, t, PERF__WORK_KERNEL, 1);
  perf__streamorder_record(&o, t, 0xe2);
  perf__streamorder_wait(&o, s, 0xe2);
  perf__streamorder_verdict v = decide(PERF_CLOCK_EVENTS, 1);
  ST_EQ(v.route, PERF__ROUTE_STREAM);
  ST_EQ(v.undeclared, 1); /* other streams, but ordered inside */
  ST_EQ(decide(PERF_CLOCK_DEVICE, 1).route, PERF__ROUTE_STREAM);
  ST_EQ(decide(PERF_CLOCK_WALL, 1).route, PERF__ROUTE_STREAM);
  /* joined only: the end is covered, the start is not */
  declared_and_other(&s, &t);
  perf__streamorder_work(&o, t, PERF__WORK_KERNEL, 5);
  perf__streamorder_record(&o, t, 0xe2);
  perf__streamorder_wait(&o, s, 0xe2);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_STREAM);
  v = decide(PERF_CLOCK_DEVICE, 1);
  ST_EQ(v.route, PERF__ROUTE_REFUSE);
  ST_EQ(v.early, 1);
  ST_EQ(v.blame, t);
  ST_EQ(v.site, 5);
  /* work queued after the join is missed: the first missed item is named */
  perf__streamorder_work(&o, t, PERF__WORK_KERNEL, 6);
  v = decide(PERF_CLOCK_EVENTS, 1);
  ST_EQ(v.route, PERF__ROUTE_REFUSE);
  ST_EQ(v.missed, 1);
  ST_EQ(v.site, 6);
  /* waiting for an event never recorded in the pass orders nothing */
  declared_and_other(&s, &t);
  perf__streamorder_work(&o, t, PERF__WORK_KERNEL, 1);
  perf__streamorder_wait(&o, s, 0xdead);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_REFUSE);
}

/* The host's own waits cover work in time (the end comes after them), but
 * cannot hold work behind a blocking kernel. */
ST_TEST(order_host_waits)
{
  int s, t;
  declared_and_other(&s, &t);
  perf__streamorder_work(&o, t, PERF__WORK_COPY, 1);
  perf__streamorder_host_stream(&o, t);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_STREAM);
  ST_EQ(decide(PERF_CLOCK_WALL, 1).route, PERF__ROUTE_STREAM);
  ST_EQ(decide(PERF_CLOCK_DEVICE, 1).route, PERF__ROUTE_REFUSE);
  perf__streamorder_work(&o, t, PERF__WORK_COPY, 2); /* after the wait */
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_REFUSE);
  perf__streamorder_host_context(&o, CTX); /* cudaDeviceSynchronize */
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_STREAM);
  /* waiting for an event covers what was ordered before its record */
  declared_and_other(&s, &t);
  perf__streamorder_work(&o, t, PERF__WORK_KERNEL, 1);
  perf__streamorder_record(&o, t, 0xe1);
  perf__streamorder_work(&o, t, PERF__WORK_KERNEL, 2);
  perf__streamorder_host_event(&o, 0xe1);
  perf__streamorder_verdict v = decide(PERF_CLOCK_EVENTS, 1);
  ST_EQ(v.route, PERF__ROUTE_REFUSE);
  ST_EQ(v.missed, 1);
  ST_EQ(v.site, 2);
  /* a sync of another context, or of an unknown one, covers nothing here */
  perf__streamorder_host_context(&o, OTHER_CTX);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_REFUSE);
  perf__streamorder_host_context(&o, 0);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_REFUSE);
  perf__streamorder_host_context(&o, CTX);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_STREAM);
}

/* Two blocking streams do not wait for each other (only for stream 0). */
ST_TEST(order_two_blocking_streams_are_not_ordered)
{
  fresh();
  int s = blocking(0xa), t = blocking(0xb);
  perf__streamorder_anchor(&o, s);
  perf__streamorder_work(&o, s, PERF__WORK_KERNEL, 1);
  perf__streamorder_work(&o, t, PERF__WORK_KERNEL, 2);
  perf__streamorder_work(&o, s, PERF__WORK_KERNEL, 3);
  perf__streamorder_verdict v = decide(PERF_CLOCK_EVENTS, 1);
  ST_EQ(v.route, PERF__ROUTE_REFUSE);
  ST_EQ(v.blame, t);
  ST_EQ(decide(PERF_CLOCK_DEVICE, 1).early, 1);
}

/* An event recorded again stands for its last record: a wait for it orders
 * what came before that record, and nothing after. */
ST_TEST(order_a_rerecorded_event_is_its_last_record)
{
  int s, t;
  declared_and_other(&s, &t);
  perf__streamorder_record(&o, t, 0xe1);             /* first record: nothing yet */
  perf__streamorder_work(&o, t, PERF__WORK_KERNEL, 1);
  perf__streamorder_record(&o, t, 0xe1);             /* last record: after the kernel */
  perf__streamorder_wait(&o, s, 0xe1);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_STREAM);
  declared_and_other(&s, &t);
  perf__streamorder_work(&o, t, PERF__WORK_KERNEL, 1);
  perf__streamorder_record(&o, t, 0xe1);
  perf__streamorder_work(&o, t, PERF__WORK_KERNEL, 2);
  perf__streamorder_record(&o, s, 0xe1);             /* recorded again, on s */
  perf__streamorder_wait(&o, s, 0xe1);
  perf__streamorder_verdict v = decide(PERF_CLOCK_EVENTS, 1);
  ST_EQ(v.route, PERF__ROUTE_REFUSE);
  ST_EQ(v.missed, 2); /* the record on t no longer counts */
}

/* A call the model cannot place: never a guess either. */
ST_TEST(order_an_unfollowed_call_is_never_a_guess)
{
  int s, t;
  declared_and_other(&s, &t);
  perf__streamorder_work(&o, s, PERF__WORK_KERNEL, 1);
  o.unfollowed = 1;
  ST_EQ(decide(PERF_CLOCK_WALL, 1).route, PERF__ROUTE_DEVICE);
  ST_EQ(decide(PERF_CLOCK_WALL, 0).route, PERF__ROUTE_DEVICE);
  ST_EQ(decide(PERF_CLOCK_EVENTS, 1).route, PERF__ROUTE_REFUSE);
  ST_EQ(decide(PERF_CLOCK_COLD, 1).route, PERF__ROUTE_REFUSE);
  (void)t;
}

/* More streams than the model follows: never a guess. */
ST_TEST(order_overflow_is_never_a_guess)
{
  fresh();
  perf__streamorder_anchor(&o, nonblocking(1));
  for (uintptr_t h = 2; h < PERF__ORDER_STREAMS + 10; h++)
    perf__streamorder_work(&o, nonblocking(h), PERF__WORK_KERNEL, -1);
  ST_EQ(o.overflow, 1);
  ST_EQ(decide(PERF_CLOCK_WALL, 1).route, PERF__ROUTE_DEVICE);
  perf__streamorder_verdict v = decide(PERF_CLOCK_EVENTS, 1);
  ST_EQ(v.route, PERF__ROUTE_REFUSE);
  ST_EQ(v.blame, -1);
}

/* Sites: the first items of a stream keep theirs, later ones do not. */
ST_TEST(order_sites_and_names)
{
  fresh();
  int s = nonblocking(0x5500), t = legacy();
  perf__streamorder_anchor(&o, s);
  for (int i = 0; i < PERF__ORDER_SITES; i++) {
    ST_CHECK(perf__streamorder_wants_site(&o, t));
    perf__streamorder_work(&o, t, i % 2 ? PERF__WORK_COPY : PERF__WORK_KERNEL, i);
  }
  ST_CHECK(!perf__streamorder_wants_site(&o, t));
  perf__streamorder_work(&o, t, PERF__WORK_KERNEL, -1);
  perf__streamorder_verdict v = decide(PERF_CLOCK_EVENTS, 1);
  ST_EQ(v.missed, PERF__ORDER_SITES + 1);
  ST_EQ(v.site, 0);
  char buf[96];
  ST_STR(perf__streamorder_kinds(&o.s[t], buf, sizeof buf), "kernels and copies");
  ST_STR(perf__streamorder_stream_name(&o.s[t], buf, sizeof buf),
         "the legacy default stream (stream 0)");
  ST_STR(perf__streamorder_stream_name(&o.s[s], buf, sizeof buf), "stream 0x5500 (non-blocking)");
  perf__streamorder_work(&o, s, PERF__WORK_GRAPH, -1);
  perf__streamorder_work(&o, s, PERF__WORK_MEMSET, -1);
  perf__streamorder_work(&o, s, PERF__WORK_HOST_FN, -1);
  ST_STR(perf__streamorder_kinds(&o.s[s], buf, sizeof buf),
         "memsets, host functions and graph launches");
  perf__streamorder_free(&o);
}
