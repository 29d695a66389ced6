/* wire.h — framed messages on the pipes between the supervisor and a worker. */
#ifndef PERF_WIRE_H
#define PERF_WIRE_H

#include <stddef.h>

/* Frame: uint32 type, uint32 length (host order: both ends are one binary on
 * one machine), then length bytes. */
enum perf__wire_type {
  PERF__MSG_RUN = 1, /* supervisor -> worker: "suite.name" */
  PERF__MSG_INFO,    /* worker: a start-up line (timer floors, device) */
  PERF__MSG_LINE,    /* worker: a detail line of the running test */
  PERF__MSG_VLINE,   /* worker: a detail line shown only with --verbose */
  PERF__MSG_END,     /* worker: the test's tally and reason (record/endframe.h) */
  PERF__MSG_NOTICE,  /* worker: a line shown once per run */
  PERF__MSG_RECORD,  /* worker: a measurement for --update-baselines (rebaseline.h) */
  PERF__MSG_CLAIM,   /* worker: one claim's record, a JSON object (for --json) */
  PERF__MSG_KEEP     /* supervisor -> worker, before a second attempt's RUN: the ids
                        of the claims it takes from the first (record/confirm.h) */
};
enum { PERF__MSG_MAX = 1 << 20 };

/* The message that carries each perf_line_kind of a worker's test run (one
 * per row of perfgate.h's PERF_LINE_KIND_MAP, by its name): a new kind does
 * not build until it has one. */
#define PERF__WIRE_LINE_DETAIL PERF__MSG_LINE
#define PERF__WIRE_LINE_VERBOSE PERF__MSG_VLINE
#define PERF__WIRE_LINE_INFO PERF__MSG_INFO
#define PERF__WIRE_LINE_NOTICE PERF__MSG_NOTICE
#define PERF__WIRE_LINE_RECORD PERF__MSG_RECORD
#define PERF__WIRE_LINE_CLAIM PERF__MSG_CLAIM

/* Writes one whole frame, retrying on EINTR and short writes. Returns 0 or
 * PERF__EIO (errno set; EPIPE when the reader is gone). */
int perf__wire_send(int fd, int type, const void *data, size_t len);

/* Reads one whole frame, blocking. Returns 0 with *data malloc'd and
 * NUL-terminated, 1 at a clean end of file, PERF__EIO, PERF__EPROTO (bad
 * type or length) or PERF__ENOMEM. */
int perf__wire_recv(int fd, int *type, char **data, size_t *len);

/* Incremental reader for a poll() loop. */
typedef struct perf__wire_buf {
  char *data;
  size_t len, cap;
} perf__wire_buf;

/* Appends what one read() gives. Returns the byte count (0 at end of file),
 * or PERF__EIO / PERF__ENOMEM. */
long perf__wire_fill(perf__wire_buf *b, int fd);
/* Takes the next complete frame: 1 with *data malloc'd and NUL-terminated,
 * 0 when more bytes are needed, PERF__EPROTO or PERF__ENOMEM. */
int perf__wire_take(perf__wire_buf *b, int *type, char **data, size_t *len);
void perf__wire_buf_free(perf__wire_buf *b);

#endif
