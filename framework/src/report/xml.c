/* xml.c — text escaped for XML, SVG and HTML reports. */
#include "report/xml.h"

#include <string.h>

#include "io/json.h"

/* See xml.h. */
void perf__xml_text(FILE *f, const char *s, size_t n)
{
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    size_t len = perf__json_utf8_len(p + i, n - i);
    unsigned c = p[i];
    if (len == 1 && c < 0x20 && c != '\t' && c != '\n' && c != '\r') len = 0;
    if (!len) {
      fputc('?', f);
      i++;
      continue;
    }
    if (c == '&') fputs("&amp;", f);
    else if (c == '<') fputs("&lt;", f);
    else if (c == '>') fputs("&gt;", f);
    else if (c == '"') fputs("&quot;", f);
    else fwrite(p + i, 1, len, f);
    i += len;
  }
}

/* See xml.h. */
void perf__xml_str(FILE *f, const char *s) { perf__xml_text(f, s, strlen(s)); }
