/* wire.c — framed messages on the pipes between the supervisor and a worker. */
#include "record/wire.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/status.h"
#include "util/grow.h"

static int write_all(int fd, const void *p, size_t n)
{
  const char *c = p;
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return PERF__EIO;
    c += w;
    n -= (size_t)w;
  }
  return 0;
}

/* 0 read all, 1 end of file before the first byte, PERF__EIO otherwise. */
static int read_all(int fd, void *p, size_t n)
{
  char *c = p;
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, c + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return PERF__EIO;
    if (r == 0) return got == 0 ? 1 : PERF__EIO;
    got += (size_t)r;
  }
  return 0;
}

static int valid(uint32_t type, uint32_t len)
{
  return type >= PERF__MSG_RUN && type <= PERF__MSG_KEEP && len <= PERF__MSG_MAX;
}

/* See wire.h. */
int perf__wire_send(int fd, int type, const void *data, size_t len)
{
  uint32_t h[2] = {(uint32_t)type, (uint32_t)len};
  if (len > PERF__MSG_MAX) return PERF__EPROTO;
  /* One write when it fits in PIPE_BUF keeps the frame atomic. */
  char buf[4096];
  if (len + sizeof h <= sizeof buf) {
    memcpy(buf, h, sizeof h);
    if (len) memcpy(buf + sizeof h, data, len);
    return write_all(fd, buf, len + sizeof h);
  }
  int err = write_all(fd, h, sizeof h);
  return err ? err : write_all(fd, data, len);
}

static char *copy_z(const char *p, size_t n)
{
  char *d = malloc(n + 1);
  if (!d) return NULL;
  if (n) memcpy(d, p, n);
  d[n] = '\0';
  return d;
}

/* See wire.h. */
int perf__wire_recv(int fd, int *type, char **data, size_t *len)
{
  uint32_t h[2];
  int r = read_all(fd, h, sizeof h);
  if (r) return r;
  if (!valid(h[0], h[1])) return PERF__EPROTO;
  char *d = malloc((size_t)h[1] + 1);
  if (!d) return PERF__ENOMEM;
  r = read_all(fd, d, h[1]);
  if (r) {
    free(d);
    return PERF__EIO;
  }
  d[h[1]] = '\0';
  *type = (int)h[0];
  *data = d;
  *len = h[1];
  return 0;
}

/* See wire.h. */
long perf__wire_fill(perf__wire_buf *b, int fd)
{
  char *d = perf__grow(b->data, &b->cap, b->len + 4096, 1, 8192);
  if (!d) return PERF__ENOMEM;
  b->data = d;
  ssize_t r;
  do
    r = read(fd, b->data + b->len, b->cap - b->len);
  while (r < 0 && errno == EINTR);
  if (r < 0) return PERF__EIO;
  b->len += (size_t)r;
  return (long)r;
}

/* See wire.h. */
int perf__wire_take(perf__wire_buf *b, int *type, char **data, size_t *len)
{
  uint32_t h[2];
  if (b->len < sizeof h) return 0;
  memcpy(h, b->data, sizeof h);
  if (!valid(h[0], h[1])) return PERF__EPROTO;
  size_t total = sizeof h + h[1];
  if (b->len < total) return 0;
  char *d = copy_z(b->data + sizeof h, h[1]);
  if (!d) return PERF__ENOMEM;
  memmove(b->data, b->data + total, b->len - total);
  b->len -= total;
  *type = (int)h[0];
  *data = d;
  *len = h[1];
  return 1;
}

/* Never fails. */
void perf__wire_buf_free(perf__wire_buf *b)
{
  free(b->data);
  *b = (perf__wire_buf){0};
}
