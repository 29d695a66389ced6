/* unit_wire.c — supervisor-worker message framing: round trips, partial and bad frames. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/wire.h"
#include "selftest.h"
#include "util/status.h"

ST_TEST(frames_round_trip_through_a_pipe)
{
  int fd[2];
  ST_EQ(pipe(fd), 0);
  ST_EQ(perf__wire_send(fd[1], PERF__MSG_LINE, "hello", 5), 0);
  ST_EQ(perf__wire_send(fd[1], PERF__MSG_END, "", 0), 0);
  close(fd[1]);
  int type;
  char *data;
  size_t len;
  ST_EQ(perf__wire_recv(fd[0], &type, &data, &len), 0);
  ST_CHECK(type == PERF__MSG_LINE && len == 5 && !strcmp(data, "hello"));
  free(data);
  ST_EQ(perf__wire_recv(fd[0], &type, &data, &len), 0);
  ST_CHECK(type == PERF__MSG_END && len == 0 && data[0] == '\0');
  free(data);
  ST_EQ(perf__wire_recv(fd[0], &type, &data, &len), 1); /* clean end */
  close(fd[0]);
}

ST_TEST(incremental_reader_waits_for_whole_frames)
{
  perf__wire_buf b = {0};
  char frame[64];
  uint32_t h[2] = {PERF__MSG_INFO, 3};
  memcpy(frame, h, sizeof h);
  memcpy(frame + 8, "abc", 3);
  int fd[2], type;
  char *data;
  size_t len;
  ST_EQ(pipe(fd), 0);
  ST_EQ(write(fd[1], frame, 5), 5); /* half a header */
  ST_EQ(perf__wire_fill(&b, fd[0]), 5);
  ST_EQ(perf__wire_take(&b, &type, &data, &len), 0);
  ST_EQ(write(fd[1], frame + 5, 6), 6); /* rest of header, 3 of payload */
  ST_EQ(perf__wire_fill(&b, fd[0]), 6);
  ST_EQ(perf__wire_take(&b, &type, &data, &len), 1);
  ST_CHECK(type == PERF__MSG_INFO && !strcmp(data, "abc"));
  free(data);
  ST_EQ(perf__wire_take(&b, &type, &data, &len), 0);
  close(fd[1]);
  ST_EQ(perf__wire_fill(&b, fd[0]), 0); /* end of file */
  close(fd[0]);
  perf__wire_buf_free(&b);
}

ST_TEST(malformed_frames_are_rejected)
{
  perf__wire_buf b = {0};
  int fd[2], type;
  char *data;
  size_t len;
  uint32_t bad_type[2] = {77, 0}, huge[2] = {PERF__MSG_LINE, 0x7fffffff};
  ST_EQ(pipe(fd), 0);
  ST_EQ(write(fd[1], bad_type, 8), 8);
  ST_EQ(perf__wire_fill(&b, fd[0]), 8);
  ST_EQ(perf__wire_take(&b, &type, &data, &len), PERF__EPROTO);
  ST_EQ(write(fd[1], huge, 8), 8);
  ST_EQ(perf__wire_recv(fd[0], &type, &data, &len), PERF__EPROTO);
  ST_EQ(write(fd[1], bad_type, 4), 4); /* truncated header then EOF */
  close(fd[1]);
  ST_EQ(perf__wire_recv(fd[0], &type, &data, &len), PERF__EIO);
  close(fd[0]);
  perf__wire_buf_free(&b);
  ST_EQ(perf__wire_send(1, PERF__MSG_LINE, "x", (size_t)PERF__MSG_MAX + 1), PERF__EPROTO);
}
