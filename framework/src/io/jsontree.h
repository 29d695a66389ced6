/* jsontree.h — reads a JSON file back into a small tree, through libyaml's parser. */
/* JSON is YAML flow syntax. */
#ifndef PERF_JSONTREE_H
#define PERF_JSONTREE_H

#include <stddef.h>

#include "io/json.h"

typedef enum perf__jsontree_type { PERF__J_OBJECT, PERF__J_ARRAY, PERF__J_STRING, PERF__J_PLAIN } perf__jsontree_type;

/* A node: an object (keys[i] names kids[i]), an array, a string, or a plain
 * scalar (number, true, false, null) kept as its text. */
typedef struct perf__jsontree_node {
  perf__jsontree_type type;
  char *text;                /* STRING and PLAIN */
  char **keys;               /* OBJECT */
  struct perf__jsontree_node **kids; /* OBJECT and ARRAY */
  size_t n, cap;
} perf__jsontree_node;

/* Parses path. Returns the root, or NULL with "file:line:col: problem" in
 * err[len] (unreadable file, malformed text, or more than one document). */
perf__jsontree_node *perf__jsontree_read(const char *path, char *err, size_t len);
/* Parses text the same way; name stands for the file in err. */
perf__jsontree_node *perf__jsontree_parse(const char *text, const char *name, char *err, size_t len);
/* The member named key of an object, or NULL. */
perf__jsontree_node *perf__jsontree_get(const perf__jsontree_node *obj, const char *key);
/* A plain scalar as a number; def when absent or not a number. */
double perf__jsontree_num(const perf__jsontree_node *n, double def);
/* 1 when the node written back is JSON text: each plain scalar in it is a
 * JSON number, true, false or null (YAML's others, "yes", "~", ".inf" or
 * a bare word, are not), else 0. Never fails. */
int perf__jsontree_is_json(const perf__jsontree_node *n);
/* Writes the node back as JSON text. */
void perf__jsontree_write(perf__json *j, const perf__jsontree_node *n);
void perf__jsontree_free(perf__jsontree_node *n);

#endif
