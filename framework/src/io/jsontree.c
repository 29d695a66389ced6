/* jsontree.c — reads a JSON file back into a small tree, through libyaml's parser. */
/* JSON is YAML flow syntax. */
#define _GNU_SOURCE
#include "io/jsontree.h"
#include "util/grow.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Appends kid (and its key) to parent; 0 or -1 without memory. */
static int adopt(perf__jsontree_node *parent, char *key, perf__jsontree_node *kid)
{
  if (parent->n == parent->cap) {
    size_t cap = perf__grow_cap(parent->cap, parent->n + 1, 8);
    perf__jsontree_node **k = realloc(parent->kids, cap * sizeof *k);
    if (!k) return -1;
    parent->kids = k;
    char **ks = realloc(parent->keys, cap * sizeof *ks);
    if (!ks) return -1;
    parent->keys = ks;
    parent->cap = cap;
  }
  parent->keys[parent->n] = key;
  parent->kids[parent->n++] = kid;
  return 0;
}

static perf__jsontree_node *node(perf__jsontree_type t, const char *text, size_t len)
{
  perf__jsontree_node *n = calloc(1, sizeof *n);
  if (n && text && !(n->text = strndup(text, len))) {
    free(n);
    return NULL;
  }
  if (n) n->type = t;
  return n;
}

typedef struct reader {
  yaml_parser_t p;
  const char *path;
  char *err;
  size_t len;
} reader;

static perf__jsontree_node *fail(reader *r, const yaml_mark_t *m, const char *what)
{
  snprintf(r->err, r->len, "%s:%zu:%zu: %s", r->path, m->line + 1, m->column + 1, what);
  return NULL;
}

static perf__jsontree_node *parse_node(reader *r, yaml_event_t *e, int depth);

/* The members or items up to the closing event. */
static perf__jsontree_node *parse_children(reader *r, perf__jsontree_node *n, int depth)
{
  for (;;) {
    yaml_event_t e, v;
    if (!yaml_parser_parse(&r->p, &e)) return perf__jsontree_free(n), fail(r, &r->p.problem_mark, r->p.problem);
    if (e.type == YAML_MAPPING_END_EVENT || e.type == YAML_SEQUENCE_END_EVENT) {
      yaml_event_delete(&e);
      return n;
    }
    char *key = NULL;
    if (n->type == PERF__J_OBJECT) {
      if (e.type != YAML_SCALAR_EVENT) {
        yaml_mark_t m = e.start_mark;
        yaml_event_delete(&e);
        return perf__jsontree_free(n), fail(r, &m, "an object key must be a string");
      }
      key = strndup((const char *)e.data.scalar.value, e.data.scalar.length);
      yaml_event_delete(&e);
      if (!yaml_parser_parse(&r->p, &v)) {
        free(key);
        return perf__jsontree_free(n), fail(r, &r->p.problem_mark, r->p.problem);
      }
      e = v;
    }
    perf__jsontree_node *kid = parse_node(r, &e, depth + 1);
    if (!kid || (n->type == PERF__J_OBJECT && !key) || adopt(n, key, kid)) {
      free(key);
      perf__jsontree_free(kid);
      perf__jsontree_free(n);
      return kid ? fail(r, &r->p.mark, "out of memory") : NULL;
    }
  }
}

/* Builds the node that starts with event e (consumed). */
static perf__jsontree_node *parse_node(reader *r, yaml_event_t *e, int depth)
{
  yaml_mark_t m = e->start_mark;
  perf__jsontree_node *n = NULL;
  if (depth > 64) n = NULL;
  else if (e->type == YAML_SCALAR_EVENT)
    n = node(e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? PERF__J_PLAIN : PERF__J_STRING,
             (const char *)e->data.scalar.value, e->data.scalar.length);
  else if (e->type == YAML_MAPPING_START_EVENT || e->type == YAML_SEQUENCE_START_EVENT)
    n = node(e->type == YAML_MAPPING_START_EVENT ? PERF__J_OBJECT : PERF__J_ARRAY, NULL, 0);
  int container = e->type == YAML_MAPPING_START_EVENT || e->type == YAML_SEQUENCE_START_EVENT;
  int alias = e->type == YAML_ALIAS_EVENT;
  yaml_event_delete(e);
  if (!n) return fail(r, &m, alias ? "aliases are not JSON" : depth > 64 ? "nested too deep"
                                                                         : "out of memory");
  return container ? parse_children(r, n, depth) : n;
}

/* The next event must be of type t; returns 0 or -1 with err set. */
static int expect(reader *r, yaml_event_type_t t, const char *what)
{
  yaml_event_t e;
  if (!yaml_parser_parse(&r->p, &e)) return fail(r, &r->p.problem_mark, r->p.problem), -1;
  int ok = e.type == t;
  yaml_mark_t m = e.start_mark;
  yaml_event_delete(&e);
  if (!ok) fail(r, &m, what);
  return ok ? 0 : -1;
}

/* The document of an initialised parser: the root, or NULL with err set. */
static perf__jsontree_node *parse_document(reader *r)
{
  perf__jsontree_node *root = NULL;
  yaml_event_t e;
  if (!expect(r, YAML_STREAM_START_EVENT, "not a document") &&
      !expect(r, YAML_DOCUMENT_START_EVENT, "empty file")) {
    if (!yaml_parser_parse(&r->p, &e)) fail(r, &r->p.problem_mark, r->p.problem);
    else root = parse_node(r, &e, 0);
    if (root && (expect(r, YAML_DOCUMENT_END_EVENT, "text after the value") ||
                 expect(r, YAML_STREAM_END_EVENT, "a second document"))) {
      perf__jsontree_free(root);
      root = NULL;
    }
  }
  yaml_parser_delete(&r->p);
  return root;
}

/* See jsontree.h. */
perf__jsontree_node *perf__jsontree_read(const char *path, char *err, size_t len)
{
  reader r = {.path = path, .err = err, .len = len};
  FILE *f = fopen(path, "rb");
  if (!f) return snprintf(err, len, "%s: %s", path, strerror(errno)), NULL;
  if (!yaml_parser_initialize(&r.p)) {
    fclose(f);
    return snprintf(err, len, "%s: out of memory", path), NULL;
  }
  yaml_parser_set_input_file(&r.p, f);
  perf__jsontree_node *root = parse_document(&r);
  fclose(f);
  return root;
}

/* See jsontree.h. */
perf__jsontree_node *perf__jsontree_parse(const char *text, const char *name, char *err, size_t len)
{
  reader r = {.path = name, .err = err, .len = len};
  if (!yaml_parser_initialize(&r.p)) return snprintf(err, len, "%s: out of memory", name), NULL;
  yaml_parser_set_input_string(&r.p, (const unsigned char *)text, strlen(text));
  return parse_document(&r);
}

/* See jsontree.h. */
perf__jsontree_node *perf__jsontree_get(const perf__jsontree_node *obj, const char *key)
{
  for (size_t i = 0; obj && obj->type == PERF__J_OBJECT && i < obj->n; i++)
    if (!strcmp(obj->keys[i], key)) return obj->kids[i];
  return NULL;
}

/* See jsontree.h. */
double perf__jsontree_num(const perf__jsontree_node *n, double def)
{
  if (!n || n->type != PERF__J_PLAIN) return def;
  char *end;
  double v = strtod(n->text, &end);
  return *end || end == n->text ? def : v;
}

/* The digits at s: past them, or NULL when there is none. */
static const char *digits(const char *s)
{
  if (!isdigit((unsigned char)*s)) return NULL;
  while (isdigit((unsigned char)*s)) s++;
  return s;
}

/* 1 when s is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
 * Never fails. */
static int json_number(const char *s)
{
  s += *s == '-';
  s = *s == '0' ? s + 1 : digits(s);
  if (s && *s == '.') s = digits(s + 1);
  if (s && (*s == 'e' || *s == 'E')) s = digits(s + 1 + (s[1] == '+' || s[1] == '-'));
  return s && !*s;
}

/* See jsontree.h. */
int perf__jsontree_is_json(const perf__jsontree_node *n)
{
  if (n->type == PERF__J_PLAIN)
    return !strcmp(n->text, "true") || !strcmp(n->text, "false") || !strcmp(n->text, "null") ||
           json_number(n->text);
  for (size_t i = 0; i < n->n; i++)
    if (!perf__jsontree_is_json(n->kids[i])) return 0;
  return 1;
}

/* See jsontree.h. */
void perf__jsontree_write(perf__json *j, const perf__jsontree_node *n)
{
  if (n->type == PERF__J_STRING) return perf__json_str(j, n->text);
  if (n->type == PERF__J_PLAIN) return perf__json_raw(j, "%s", n->text);
  perf__json_raw(j, n->type == PERF__J_OBJECT ? "{" : "[");
  for (size_t i = 0; i < n->n; i++) {
    perf__json_raw(j, i ? ", " : "");
    if (n->type == PERF__J_OBJECT) {
      perf__json_str(j, n->keys[i]);
      perf__json_raw(j, ": ");
    }
    perf__jsontree_write(j, n->kids[i]);
  }
  perf__json_raw(j, n->type == PERF__J_OBJECT ? "}" : "]");
}

/* Never fails; NULL is fine. */
void perf__jsontree_free(perf__jsontree_node *n)
{
  if (!n) return;
  for (size_t i = 0; i < n->n; i++) {
    if (n->keys) free(n->keys[i]);
    perf__jsontree_free(n->kids[i]);
  }
  free(n->keys);
  free(n->kids);
  free(n->text);
  free(n);
}
