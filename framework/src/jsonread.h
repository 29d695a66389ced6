/* jsonread.h — reads a JSON file back into a small tree, through libyaml's parser (JSON is YAML flow syntax). */
#ifndef PERF_JSONREAD_H
#define PERF_JSONREAD_H

#include <stddef.h>

#include "json.h"

typedef enum perf__jtype { PERF__J_OBJECT, PERF__J_ARRAY, PERF__J_STRING, PERF__J_PLAIN } perf__jtype;

/* A node: an object (keys[i] names kids[i]), an array, a string, or a plain
 * scalar (number, true, false, null) kept as its text. */
typedef struct perf__jnode {
  perf__jtype type;
  char *text;                /* STRING and PLAIN */
  char **keys;               /* OBJECT */
  struct perf__jnode **kids; /* OBJECT and ARRAY */
  size_t n, cap;
} perf__jnode;

/* Parses path. Returns the root, or NULL with "file:line:col: problem" in
 * err[len] (unreadable file, malformed text, or more than one document). */
perf__jnode *perf__jread(const char *path, char *err, size_t len);
/* Parses text the same way; name stands for the file in err. */
perf__jnode *perf__jparse(const char *text, const char *name, char *err, size_t len);
/* The member named key of an object, or NULL. */
perf__jnode *perf__jget(const perf__jnode *obj, const char *key);
/* A plain scalar as a number; def when absent or not a number. */
double perf__jnum(const perf__jnode *n, double def);
/* Writes the node back as JSON text. */
void perf__jwrite(perf__json *j, const perf__jnode *n);
void perf__jfree(perf__jnode *n);

#endif
