/* secret.h — the passwords in a store's location or a command-line argument. */
/* They are found, masked, and scrubbed from every message. */
#ifndef PERF_SECRET_H
#define PERF_SECRET_H

#include <stddef.h>

/* A password is, in any text (a --history location, one argument of a
 * command line, a libpq keyword/value string):
 *  - a URI's userinfo password, "scheme://user:PASSWORD@host": from the
 *    first ':' after "://" to the first '@' before a '/' (as libpq reads
 *    it); where libpq would misread the URI (perf__secret_check), to the
 *    URI's last '@' (the widest it can be), and each fragment of that
 *    between '@', '/', '?', '#', ':', '&' and '=' (what libpq could take
 *    for a host, port, database or parameter and show);
 *  - the value of every password= or sslpassword= parameter, the key in
 *    any case and %-encoded or not, its '=' raw or %-encoded: in a URI's
 *    query up to the next '&' that starts a key=value parameter (and each
 *    piece libpq would split it into), elsewhere (keyword/value) up to
 *    white space, or a '...' quoted value.
 * A URI ends at white space. Each is a secret as written and as libpq
 * reads it (%-decoded in a URI, unquoted in a keyword/value string). */

/* Refuses a URI location that libpq would read other than as written, so
 * that a fragment of its password could reach libpq's messages (or DNS)
 * as a host, port, database or parameter: a raw '?' or '#' before the '@'
 * that ends the user name and password (libpq ends them at the first '@'
 * or '/'), a raw '@' anywhere else, or a query parameter without '=' or
 * whose key holds a %-encoded '='. Returns 0, or PERF__EUSAGE with the
 * location masked, what is wrong and how to %-encode it in err[len]. */
int perf__secret_check(const char *location, char *err, size_t len);

/* text with every password replaced by "***" into out[len] (cut to fit).
 * Never fails: without memory, out is "***". */
void perf__secret_mask(const char *text, char *out, size_t len);

/* The same, malloc'd; NULL without memory. */
char *perf__secret_masked(const char *text);

/* Rewrites msg[len] in place with every occurrence of a secret of
 * location (as written and as decoded) replaced by "***": for a message
 * that came from a library that may echo the location or its password.
 * Never fails: without memory, msg becomes a line saying it was hidden. */
void perf__secret_scrub(const char *location, char *msg, size_t len);

#endif
