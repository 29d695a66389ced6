/* unit_jsontree.c — JSON read back into a tree: which texts read as JSON and which only as YAML. */
#include <stdlib.h>
#include <string.h>

#include "io/jsontree.h"
#include "selftest.h"

/* 1 when text parses and its tree is JSON, 0 when it parses and is not,
 * -1 when it does not parse. */
static int is_json(const char *text)
{
  char err[300];
  perf__jsontree_node *n = perf__jsontree_parse(text, "t", err, sizeof err);
  int r = n ? perf__jsontree_is_json(n) : -1;
  perf__jsontree_free(n);
  return r;
}

ST_TEST(jsontree_is_json_takes_json_numbers_and_literals_only)
{
  ST_EQ(is_json("[0, -1, 12.5, 1e-05, -0.25E+3, 7E2, true, false, null, \"yes\", {\"a\": [{}]}]"), 1);
  static const char *const yaml_only[] = {"[yes]", "[~]", "[.inf]", "[NaN]", "[Infinity]", "[01]",
                                          "[1.]", "[.5]", "[+1]", "[0x1F]", "[1e]", "[-]",
                                          "{\"a\": word}", "[[1, [2, [nope]]]]"};
  for (size_t k = 0; k < sizeof yaml_only / sizeof yaml_only[0]; k++)
    ST_CHECKF(is_json(yaml_only[k]) == 0, "%s read as JSON", yaml_only[k]);
  ST_EQ(is_json("[1, "), -1);
}
