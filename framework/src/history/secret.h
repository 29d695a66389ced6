/* secret.h — the passwords in a store's location or a command-line argument: found, masked, and scrubbed from every message. */
#ifndef PERF_SECRET_H
#define PERF_SECRET_H

#include <stddef.h>

/* A password is, in any text (a --history location, one argument of a
 * command line, a libpq keyword/value string):
 *  - a URI's userinfo password, "scheme://user:PASSWORD@host": from the
 *    first ':' after "://" to the first '@' before a '/' (as libpq reads
 *    it) and, when that differs, to the last '@' before the query (what a
 *    password with an unencoded '@' or '/' meant);
 *  - the value of every password= or sslpassword= parameter, the key in
 *    any case and %-encoded or not: in a URI's query up to the next '&',
 *    elsewhere (keyword/value) up to white space, or a '...' quoted value.
 * Each is a secret as written and as libpq reads it (%-decoded in a URI,
 * unquoted in a keyword/value string). */

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
