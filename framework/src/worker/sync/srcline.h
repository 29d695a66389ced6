/* srcline.h — function and file:line of an address in this executable. */
#ifndef PERF_SRCLINE_H
#define PERF_SRCLINE_H

#include <stddef.h>

/* addr2line's answer for file address addr of the executable at path exe
 * (the same path on every call in a process): fn the function ("??" when
 * unknown), loc "file:line" as addr2line writes it ("??:0" when unknown).
 * The first call starts `addr2line -a -C -f -e exe` reading addresses from a
 * socket, later calls reuse it (binutils answers each address as it reads
 * it); answers are kept by address, so asking again costs no round trip.
 * Returns 0; -1 when no answer can be had (addr2line missing, it died, it
 * answered for another address, or it did not answer within 20 s: it is
 * then killed and not asked again in this process until
 * perf__srcline_stop), and the caller names the address another way. A forked
 * child starts its own server. Thread-safe. */
int perf__srcline_ask(const char *exe, unsigned long addr, char *fn, size_t fnlen, char *loc,
                      size_t loclen);

/* Stops the server (its socket closed, the process reaped) and forgets the
 * answers; the next ask starts a new one. Never fails. */
void perf__srcline_stop(void);

#endif
