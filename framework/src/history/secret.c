/* secret.c — the passwords in a store's location or a command-line argument. */
/* They are found, masked, and scrubbed from every message. */
#define _GNU_SOURCE
#include "history/secret.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"
#include "util/grow.h"

/* One password in a text: text[at, at + n) as written; uri: %-encoded;
 * quoted: a '...' value, its quotes in the span. */
typedef struct span {
  size_t at, n;
  int uri, quoted;
} span;

typedef void (*found_fn)(void *ctx, const char *text, span s);

static int hex(int c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The end of the URI that starts at start: white space or the text's end.
 * Never fails. */
static const char *uri_end(const char *start)
{
  return start + strcspn(start, " \t\r\n");
}

/* The '@' that ends the user name and password as libpq reads the URI
 * whose authority starts at start: the first '@' before any '/'; NULL
 * when libpq reads none. Never fails. */
static const char *libpq_at(const char *start, const char *end)
{
  const char *q = start;
  while (q < end && *q != '@' && *q != '/') q++;
  return q < end && *q == '@' ? q : NULL;
}

/* The end of the query parameter that starts at k: its '&' or end. */
static const char *param_end(const char *k, const char *end)
{
  const char *e = k + strcspn(k, "&");
  return e > end ? end : e;
}

/* Where the query of the URI whose authority starts at start begins (its
 * first parameter), as libpq reads it: after the first '?' that follows
 * the user name and password; end when it has none. Never fails. */
static const char *query_start(const char *start, const char *end)
{
  const char *at = libpq_at(start, end), *rest = at ? at + 1 : start;
  const char *q = rest < end ? memchr(rest, '?', (size_t)(end - rest)) : NULL;
  return q ? q + 1 : end;
}

/* Where the key of the query parameter [k, e) ends: at its first '=' or
 * %-encoded '=' (*sep: 1 or 3 bytes), or NULL without either. Never fails. */
static const char *key_end(const char *k, const char *e, int *sep)
{
  for (const char *c = k; c < e; c++) {
    if (*c == '=') return *sep = 1, c;
    if (*c == '%' && c + 2 < e && c[1] == '3' && (c[2] == 'D' || c[2] == 'd')) return *sep = 3, c;
  }
  return NULL;
}

/* Why libpq would read the URI whose authority starts at start (up to end)
 * other than as written, so that a fragment of a password could reach its
 * messages as a host, port, database or parameter: NULL when it reads it
 * as written. Never fails. */
static const char *misread(const char *start, const char *end)
{
  const char *at = libpq_at(start, end), *rest = at ? at + 1 : start;
  if (at && (memchr(start, '?', (size_t)(at - start)) || memchr(start, '#', (size_t)(at - start))))
    return "a raw '?' or '#' in its user name or password";
  if (rest < end && memchr(rest, '@', (size_t)(end - rest)))
    return at ? "a raw '@' after the one that ends its user name and password (libpq reads them up "
                "to the first '@' or '/', and the rest as the host)"
              : "a raw '@' where libpq reads no user name and password (a '/' comes before it: "
                "libpq would read them as a host, port or database)";
  for (const char *k = query_start(start, end), *e; k < end; k = e + 1) {
    int sep = 0;
    const char *ke = key_end(k, (e = param_end(k, end)), &sep);
    if (e > k && (!ke || sep == 3))
      return ke ? "a query parameter whose name holds a %-encoded '=' (%3D)"
                : "a query parameter without '=' (libpq would show it whole)";
  }
  return NULL;
}

/* The userinfo password of the URI whose "://" is at p: from the first
 * ':' to the '@' libpq ends it at; where libpq would misread the URI,
 * from the first ':' to the last '@' (the widest it can be), and each
 * fragment of it libpq could take for something else. Never fails. */
static void userinfo(const char *text, const char *p, found_fn fn, void *ctx)
{
  const char *start = p + 3, *end = uri_end(start), *last = libpq_at(start, end);
  int wide = misread(start, end) != NULL;
  for (const char *r = start; wide && r < end; r++)
    if (*r == '@') last = r;
  const char *colon = last ? memchr(start, ':', (size_t)(last - start)) : NULL;
  if (!colon || colon + 1 >= last) return;
  fn(ctx, text, (span){(size_t)(colon + 1 - text), (size_t)(last - colon - 1), 1, 0});
  for (const char *f = colon + 1, *e; wide && f < last; f = e + 1) {
    e = f + strcspn(f, "@/?#:&=");
    e = e > last ? last : e;
    if (e > f && e - f < last - colon - 1) fn(ctx, text, (span){(size_t)(f - text), (size_t)(e - f), 1, 0});
  }
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

/* The password= and sslpassword= values of the query parameters from k
 * to end: each parameter whose key, up to its first '=' raw or %-encoded,
 * names a password; its value runs on over the parameters without '='
 * after it (a password with a raw '&'). Where libpq would split the value
 * (at those '&', or at its first raw '=' after a %-encoded one:
 * "password=X" would be its key), each piece is one too. Never fails. */
static void query_from(const char *text, const char *k, const char *end, found_fn fn, void *ctx)
{
  for (const char *e; k < end; k = e + 1) {
    int sep = 0, next = 0;
    const char *ke = key_end(k, (e = param_end(k, end)), &sep), *v = ke ? ke + sep : NULL;
    if (!ke || !secret_key(k, ke)) continue;
    int pieces = sep == 3 && memchr(v, '=', (size_t)(e - v));
    while (e < end && !key_end(e + 1, param_end(e + 1, end), &next)) e = param_end(e + 1, end), pieces = 1;
    if (e > v) fn(ctx, text, (span){(size_t)(v - text), (size_t)(e - v), 1, 0});
    for (const char *f = v, *fe; pieces && f < e; f = fe + 1) {
      fe = f + strcspn(f, "&=");
      fe = fe > e ? e : fe;
      if (fe > f) fn(ctx, text, (span){(size_t)(f - text), (size_t)(fe - f), 1, 0});
    }
  }
}

/* The password= and sslpassword= values of the query of the URI whose
 * "://" is at p: as libpq reads it and, where that differs (a raw '?'
 * before the '@' libpq ends the user name at), from the first '?'. Never
 * fails. */
static void query(const char *text, const char *p, found_fn fn, void *ctx)
{
  const char *end = uri_end(p + 3), *libpq = query_start(p + 3, end);
  const char *first = memchr(p + 3, '?', (size_t)(end - p - 3));
  query_from(text, libpq, end, fn, ctx);
  if (first && first + 1 != libpq) query_from(text, first + 1, end, fn, ctx);
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

/* Where the keyword/value value that starts at v ends: at white space or
 * after a '...' quoted value (*quoted set). Never fails. */
static const char *value_end(const char *v, int *quoted)
{
  *quoted = *v == '\'';
  if (!*quoted) return v + strcspn(v, " \t\r\n");
  const char *e = v + 1;
  for (; *e && *e != '\''; e++)
    if (*e == '\\' && e[1]) e++;
  return *e ? e + 1 : e;
}

/* Every password= and sslpassword= value of text outside a URI's query
 * (a keyword/value string). Never fails. */
static void params(const char *text, found_fn fn, void *ctx)
{
  for (const char *p = strchr(text, '='); p; p = strchr(p, '=')) {
    const char *ke = p, *k;
    while (ke > text && (ke[-1] == ' ' || ke[-1] == '\t')) ke--;
    for (k = ke; k > text && !strchr("?&= \t\r\n", k[-1]); k--) {}
    int quoted = 0;
    const char *v = p + 1;
    while (*v == ' ' || *v == '\t') v++;
    const char *e = value_end(v, &quoted);
    if (e > v && !in_query(text, k) && secret_key(k, ke)) {
      fn(ctx, text, (span){(size_t)(v - text), (size_t)(e - v), 0, quoted});
      p = e;
    } else p++;
  }
}

/* Calls fn for each password of text (see secret.h). Never fails. */
static void each_secret(const char *text, found_fn fn, void *ctx)
{
  for (const char *p = strstr(text, "://"); p; p = strstr(p + 3, "://")) {
    userinfo(text, p, fn, ctx);
    query(text, p, fn, ctx);
  }
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
int perf__secret_check(const char *location, char *err, size_t len)
{
  const char *p = strstr(location, "://"), *why = p ? misread(p + 3, uri_end(p + 3)) : NULL;
  if (!why) return 0;
  char *shown = perf__secret_masked(location);
  snprintf(err, len, "%s: libpq would read this URI other than as written, and could show part of "
                     "its password in a message: %s. %%-encode such characters in a user name, "
                     "password or value ('@' as %%40, '/' as %%2F, '?' as %%3F, '#' as %%23, '&' as "
                     "%%26, '=' as %%3D), and write each query parameter as key=value",
           shown ? shown : "(the location)", why);
  free(shown);
  return PERF__EUSAGE;
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
  char **grown = s ? perf__grow(l->s, &l->cap, l->n + 1, sizeof *l->s, 4) : NULL;
  if (!grown) return free(s), (void)(l->oom = 1);
  l->s = grown;
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
