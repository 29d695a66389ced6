/* xml.h — text escaped for XML, SVG and HTML reports. */
#ifndef PERF_XML_H
#define PERF_XML_H

#include <stddef.h>
#include <stdio.h>

/* Writes n bytes of s as XML character data: markup escaped, characters XML
 * forbids (control bytes, invalid UTF-8) replaced by '?'. Never fails
 * (stream errors show in ferror(f)). */
void perf__xml_text(FILE *f, const char *s, size_t n);
/* The same for a NUL-terminated string. */
void perf__xml_str(FILE *f, const char *s);

#endif
