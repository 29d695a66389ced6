/* label.c — a commit or branch as perfgate records it: one rule for every source. */
/* The sources: --commit, --branch, the CI's variables and git's answer. */
#include "util/label.h"

#include <stdio.h>
#include <string.h>

#include "util/status.h"

/* The length of the UTF-8 character at s (1 to 4), or 0 when s does not
 * start a valid one (an overlong form, a surrogate, past U+10FFFF, a cut
 * sequence). Never fails. */
static size_t utf8_char(const unsigned char *s)
{
  unsigned c = s[0];
  if (c < 0x80) return 1;
  size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80, hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
  if (n && (s[1] < lo || s[1] > hi)) return 0;
  for (size_t k = 2; k < n; k++)
    if (s[k] < 0x80 || s[k] > 0xBF) return 0;
  return n;
}

/* v's first 40 bytes, printable ASCII as they are and anything else
 * escaped, then "..." when there is more, into out[len]. Returns out;
 * never fails. */
static char *shown(const char *v, char *out, size_t len)
{
  size_t u = 0, k = 0;
  for (; v[k] && k < 40 && u + 5 < len; k++) {
    unsigned char c = (unsigned char)v[k];
    const char *esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : c == '\\' ? "\\\\" : NULL;
    if (esc) u += (size_t)snprintf(out + u, len - u, "%s", esc);
    else if (c < 0x20 || c >= 0x7f || c == '\'') u += (size_t)snprintf(out + u, len - u, "\\x%02x", c);
    else out[u++] = (char)c;
  }
  snprintf(out + u, len - u, "%s", v[k] ? "..." : "");
  return out;
}

/* See label.h. */
int perf__label_check(const char *what, const char *v, char *err, size_t len)
{
  const unsigned char *s = (const unsigned char *)v;
  size_t n = strlen(v), step = 1;
  const char *why = NULL;
  char text[200], too_long[64];
  if (!n) return snprintf(err, len, "%s needs a value", what), PERF__EUSAGE;
  snprintf(too_long, sizeof too_long, "%zu bytes, more than the %d a label may have", n, PERF__LABEL_MAX);
  if (n > PERF__LABEL_MAX) why = too_long;
  else if (s[0] == ' ' || s[n - 1] == ' ') why = "a space at its start or end";
  for (size_t k = 0; !why && k < n; k += step) {
    step = utf8_char(s + k);
    if (!step) why = "not valid UTF-8";
    else if (s[k] < 0x20 || s[k] == 0x7f || (s[k] == 0xC2 && s[k + 1] < 0xA0)) why = "a control character";
  }
  if (!why) return 0;
  snprintf(err, len, "%s: %s: '%s'", what, why, shown(v, text, sizeof text));
  return PERF__EUSAGE;
}
