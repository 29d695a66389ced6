/* secret.c — the passwords in a store's location or a command-line argument: found, masked, and scrubbed from every message. */
#define _GNU_SOURCE
#include "history/secret.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One password in a text: text[at, at + n) as written; uri: %-encoded;
 * quoted: a '...' value, its quotes in the span. */
typedef struct span {
  size_t at, n;
  int uri, quoted;
} span;

typedef void (*found_fn)(void *ctx, const char *text, span s);

/* The userinfo password of the URI whose "://" is at p: libpq's reading
 * and, where it differs, the widest. Never fails. */
static void userinfo(const char *text, const char *p, found_fn fn, void *ctx)
{
  const char *start = p + 3, *q = start, *wide = NULL;
  while (*q && *q != '@' && *q != '/') q++;
  for (const char *r = start; *r && *r != '?'; r++)
    if (*r == '@') wide = r;
  const char *ends[2] = {*q == '@' ? q : NULL, wide != q ? wide : NULL};
  for (int k = 0; k < 2; k++) {
    const char *colon = ends[k] ? memchr(start, ':', (size_t)(ends[k] - start)) : NULL;
    if (colon && colon + 1 < ends[k])
      fn(ctx, text, (span){(size_t)(colon + 1 - text), (size_t)(ends[k] - colon - 1), 1, 0});
  }
}

static int hex(int c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* 1 when [from, to) names a password: password or sslpassword in any case,
 * %-encoded or not, white space around. Never fails. */
static int secret_key(const char *from, const char *to)
{
  char key[16];
  size_t n = 0;
  while (from < to && isspace((unsigned char)*from)) from++;
  while (to > from && isspace((unsigned char)to[-1])) to--;
  for (const char *c = from; c < to; c++) {
    int ch = (unsigned char)*c;
    if (ch == '%' && c + 2 < to && hex(c[1]) >= 0 && hex(c[2]) >= 0) ch = hex(c[1]) * 16 + hex(c[2]), c += 2;
    if (n + 1 >= sizeof key) return 0;
    key[n++] = (char)tolower(ch);
  }
  key[n] = '\0';
  return !strcmp(key, "password") || !strcmp(key, "sslpassword");
}

/* 1 when k (a key's start) is in the query of a URI: a '?' between it and
 * the URI's "://", with no white space in between. Never fails. */
static int in_query(const char *text, const char *k)
{
  int query = 0;
  for (const char *c = k; c > text && !isspace((unsigned char)c[-1]); c--) {
    if (c[-1] == '?') query = 1;
    if (c - text >= 3 && !strncmp(c - 3, "://", 3)) return query;
  }
  return 0;
}

/* Where the value that starts at v ends: at '&' in a URI's query, else at
 * white space or after a '...' quoted value (*quoted set). Never fails. */
static const char *value_end(const char *v, int uri, int *quoted)
{
  *quoted = !uri && *v == '\'';
  if (uri) return v + strcspn(v, "&");
  if (!*quoted) return v + strcspn(v, " \t\r\n");
  const char *e = v + 1;
  for (; *e && *e != '\''; e++)
    if (*e == '\\' && e[1]) e++;
  return *e ? e + 1 : e;
}

/* Every password= and sslpassword= value of text. Never fails. */
static void params(const char *text, found_fn fn, void *ctx)
{
  for (const char *p = strchr(text, '='); p; p = strchr(p, '=')) {
    const char *ke = p, *k;
    while (ke > text && (ke[-1] == ' ' || ke[-1] == '\t')) ke--;
    for (k = ke; k > text && !strchr("?&= \t\r\n", k[-1]); k--) {}
    int uri = in_query(text, k), quoted = 0;
    const char *v = p + 1;
    while (!uri && (*v == ' ' || *v == '\t')) v++;
    const char *e = value_end(v, uri, &quoted);
    if (e > v && secret_key(k, ke)) {
      fn(ctx, text, (span){(size_t)(v - text), (size_t)(e - v), uri, quoted});
      p = e;
    } else p++;
  }
}

/* Calls fn for each password of text (see secret.h). Never fails. */
static void each_secret(const char *text, found_fn fn, void *ctx)
{
  for (const char *p = strstr(text, "://"); p; p = strstr(p + 3, "://")) userinfo(text, p, fn, ctx);
  params(text, fn, ctx);
}

/* s as libpq reads it (%-decoded, or unquoted), malloc'd; NULL without
 * memory. */
static char *decoded(const char *text, span s)
{
  char *out = malloc(s.n + 1);
  const char *c = text + s.at, *end = c + s.n;
  size_t n = 0;
  if (!out) return NULL;
  if (s.quoted) c++, end -= end > c && end[-1] == '\'';
  for (; c < end; c++) {
    if (s.uri && *c == '%' && c + 2 < end && hex(c[1]) >= 0 && hex(c[2]) >= 0) {
      out[n++] = (char)(hex(c[1]) * 16 + hex(c[2]));
      c += 2;
    } else {
      if (s.quoted && *c == '\\' && c + 1 < end) c++;
      out[n++] = *c;
    }
  }
  out[n] = '\0';
  return out;
}

static void mark(void *ctx, const char *text, span s)
{
  (void)text;
  memset((char *)ctx + s.at, 1, s.n);
}

/* See secret.h. */
char *perf__secret_masked(const char *text)
{
  size_t n = strlen(text), u = 0;
  char *marks = calloc(n + 1, 1), *out = marks ? malloc(3 * n + 4) : NULL;
  if (out) each_secret(text, mark, marks);
  for (size_t k = 0; out && k < n; k++) {
    if (!marks[k]) out[u++] = text[k];
    else if (!k || !marks[k - 1]) memcpy(out + u, "***", 3), u += 3;
  }
  if (out) out[u] = '\0';
  free(marks);
  return out;
}

/* See secret.h. */
void perf__secret_mask(const char *text, char *out, size_t len)
{
  char *m = perf__secret_masked(text);
  snprintf(out, len, "%s", m ? m : "***");
  free(m);
}

/* The secrets of a location, as written and as decoded. */
typedef struct list {
  char **s;
  size_t n, cap;
  int oom;
} list;

static void keep(list *l, char *s)
{
  if (!s || (l->n == l->cap && !(l->s = reallocarray(l->s, l->cap = l->cap * 2 + 4, sizeof *l->s))))
    return free(s), (void)(l->oom = 1);
  l->s[l->n++] = s;
}

static void collect(void *ctx, const char *text, span s)
{
  list *l = ctx;
  keep(l, strndup(text + s.at, s.n));
  keep(l, decoded(text, s));
}

/* The longest secret of l that msg starts with: its length, or 0. */
static size_t secret_at(const list *l, const char *msg)
{
  size_t best = 0;
  for (size_t k = 0; k < l->n; k++) {
    size_t n = strlen(l->s[k]);
    if (n > best && !strncmp(msg, l->s[k], n)) best = n;
  }
  return best;
}

/* 1 when msg, from c on, is the start of a secret (a message cut there). */
static int cut_secret(const list *l, const char *c)
{
  size_t n = strlen(c);
  for (size_t k = 0; n && k < l->n; k++)
    if (strlen(l->s[k]) > n && !strncmp(l->s[k], c, n)) return 1;
  return 0;
}

/* See secret.h. */
void perf__secret_scrub(const char *location, char *msg, size_t len)
{
  list l = {0};
  each_secret(location, collect, &l);
  char *in = l.n || l.oom ? strdup(msg) : NULL;
  if (in && !l.oom) {
    /* A message that fills its buffer may have been cut inside a secret. */
    int full = strlen(in) + 1 >= len;
    size_t u = 0;
    for (const char *c = in; *c && u + 1 < len;) {
      size_t n = secret_at(&l, c);
      if (!n && full && cut_secret(&l, c)) n = strlen(c);
      if (n) u += (size_t)snprintf(msg + u, len - u, "***"), c += n;
      else msg[u++] = *c++;
    }
    msg[u < len ? u : len - 1] = '\0';
  } else if (l.n || l.oom)
    snprintf(msg, len, "(a message that may hold a password was hidden: out of memory)");
  for (size_t k = 0; k < l.n; k++) free(l.s[k]);
  free(l.s);
  free(in);
}
