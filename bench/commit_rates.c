/* commit_rates.c — the false-alarm and detection rates of --commit-report's
 * rule (history/judge.h) by simulation: one GPU's series at a commit,
 * their earlier commits drawn from a noise model, the commit's values
 * from the same one (unchanged code) or with a planted change; the rule
 * judges them as the report does (perf__band_of, perf__judge_commit).
 *   commit-rates [REPLICATES [CASE-SUBSTRING]]
 * Prints one row per case: how often the GPU was called REGRESSED, and
 * for a planted change (in one workload, and so in the ratio of the claim
 * that measured it) how often that workload was found worse. A
 * benchmark of the rule, not a test (framework/tests/unit_judge.c
 * asserts loose bounds on a few cases). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/rng.h"
#include "history/band.h"
#include "history/judge.h"

/* How a series' log values scatter between runs. */
typedef enum { GAUSS, HETERO, HEAVY, PHASES } noise;

typedef struct scenario {
  const char *name;
  size_t series;   /* on the GPU; the first third are ratios, the rest workloads */
  size_t earlier;  /* earlier commits */
  noise model;
  double sd;       /* the noise (log units) */
  double planted;  /* one workload's change at the commit (0: none) */
  double machine;  /* every workload's change at the commit (0: none) */
  int host;        /* on a host clock (wall) rather than the GPU's (events) */
} scenario;

/* One value's log deviation under the model; sd the series' own. */
static double draw(perf__rng *r, noise model, double sd)
{
  if (model == HEAVY) { /* Student's t, 3 degrees of freedom, scaled to sd */
    double z = perf__rng_normal(r), c = 0;
    for (int k = 0; k < 3; k++) {
      double g = perf__rng_normal(r);
      c += g * g;
    }
    return sd * z / sqrt(c / 3) / sqrt(3.0);
  }
  if (model == PHASES && perf__rng_unit(r) < 0.05) return log(1.15) + sd * perf__rng_normal(r);
  return sd * perf__rng_normal(r);
}

/* One replicate: 1 in *regressed when the GPU had a series WORSE, in
 * *seen when one was TAIL (not decided), 1 in *found when the planted one
 * was WORSE. Returns 0, or -1 without memory. */
static int replicate(const scenario *c, perf__rng *r, int *regressed, int *seen, int *found, int *shifted)
{
  perf__judge_item *it = calloc(c->series, sizeof *it);
  double *v = malloc(c->earlier * sizeof *v);
  if (!it || !v) return free(it), free(v), -1;
  for (size_t i = 0; i < c->series; i++) {
    double sd = c->model == HETERO ? exp(log(0.003) + perf__rng_unit(r) * log(0.05 / 0.003)) : c->sd;
    int claim = i < c->series / 3;
    double base = claim ? 3.0 : 1e-4 * (1 + (double)i);
    for (size_t k = 0; k < c->earlier; k++) v[k] = base * exp(draw(r, c->model, sd));
    /* The planted workload is the first workload; claim 0 measured it (a
     * FASTER ratio of another over it falls by as much: history records
     * only workloads a ratio claim measured). */
    double change = (!claim && i == c->series / 3 ? c->planted : 0) + (!claim ? c->machine : 0);
    if (claim && i == 0 && c->planted > 0) change = 1 / (1 + c->planted) - 1;
    it[i] = (perf__judge_item){.is_claim = claim, .clock = c->host ? "wall" : "events", .host = c->host,
                               .worse = claim ? PERF__JUDGE_LOWER : PERF__JUDGE_HIGHER,
                               .y = base * exp(draw(r, c->model, sd) + log1p(change))};
    if (perf__band_of(v, NULL, NULL, c->earlier, &it[i].band)) return free(it), free(v), -1;
  }
  perf__judge_machine m;
  size_t decided;
  if (perf__judge_commit(it, c->series, &m, &decided)) return free(it), free(v), -1;
  *regressed = *seen = 0;
  for (size_t i = 0; i < c->series; i++)
    *regressed |= it[i].cls == PERF__JUDGE_WORSE, *seen |= it[i].cls == PERF__JUDGE_TAIL;
  *found = it[c->series / 3].cls == PERF__JUDGE_WORSE;
  *shifted = m.moved > 0;
  free(it);
  free(v);
  return 0;
}

int main(int argc, char **argv)
{
  long reps = argc > 1 ? atol(argv[1]) : 1000;
  static const scenario cases[] = {
      {"unchanged, 20 series, 1 % noise, 10 earlier commits", 20, 10, GAUSS, 0.01, 0, 0, 0},
      {"unchanged, 20 series, 1 % noise, 5 earlier commits", 20, 5, GAUSS, 0.01, 0, 0, 0},
      {"unchanged, 20 series, 1 % noise, 20 earlier commits", 20, 20, GAUSS, 0.01, 0, 0, 0},
      {"unchanged, 177 series, 1 % noise, 10 earlier commits", 177, 10, GAUSS, 0.01, 0, 0, 0},
      {"unchanged, 177 series, 0.3-5 % noise, 10 earlier commits", 177, 10, HETERO, 0, 0, 0, 0},
      {"unchanged, 177 series, 0.3-5 % noise, 5 earlier commits", 177, 5, HETERO, 0, 0, 0, 0},
      {"unchanged, 177 series, t(3) tails, 1 % noise, 10 earlier", 177, 10, HEAVY, 0.01, 0, 0, 0},
      {"unchanged, 20 series, 1 % + 5 % of runs +15 %, 10 earlier", 20, 10, PHASES, 0.01, 0, 0, 0},
      {"unchanged, host clock, 20 series, 1 % + 5 % of runs +15 %, 10 earlier", 20, 10, PHASES, 0.01, 0, 0, 1},
      {"unchanged, host clock, 177 series, t(3) tails, 1 % noise, 10 earlier", 177, 10, HEAVY, 0.01, 0, 0, 1},
      {"unchanged, host clock, 20 series, 1 % noise, 10 earlier", 20, 10, GAUSS, 0.01, 0, 0, 1},
      {"machine +8 %, 20 series, 1 % noise, 10 earlier", 20, 10, GAUSS, 0.01, 0, 0.08, 0},
      {"machine +8 %, 177 series, 0.3-5 % noise, 10 earlier", 177, 10, HETERO, 0, 0, 0.08, 0},
      {"+5 % one workload, 20 series, 1 % noise, 10 earlier", 20, 10, GAUSS, 0.01, 0.05, 0, 0},
      {"+5 % one workload, 20 series, 1 % noise, 5 earlier", 20, 5, GAUSS, 0.01, 0.05, 0, 0},
      {"+5 % one workload, 20 series, 1 % noise, 20 earlier", 20, 20, GAUSS, 0.01, 0.05, 0, 0},
      {"+5 % one workload, 177 series, 1 % noise, 10 earlier", 177, 10, GAUSS, 0.01, 0.05, 0, 0},
      {"+5 % one workload, 177 series, 1 % noise, 20 earlier", 177, 20, GAUSS, 0.01, 0.05, 0, 0},
      {"+6 % one workload, 177 series, 1 % noise, 10 earlier", 177, 10, GAUSS, 0.01, 0.06, 0, 0},
      {"+3 % one workload, 20 series, 1 % noise, 10 earlier", 20, 10, GAUSS, 0.01, 0.03, 0, 0},
      {"+10 % one workload, host clock, 20 series, 1 % noise, 10 earlier", 20, 10, GAUSS, 0.01, 0.10, 0, 1},
      {"+20 % one workload, host clock, 20 series, 1 % noise, 10 earlier", 20, 10, GAUSS, 0.01, 0.20, 0, 1},
      {"+20 % on a machine +8 %, 20 series, 1 % noise, 10 earlier", 20, 10, GAUSS, 0.01, 0.12, 0.08, 0},
  };
  printf("| case | GPU REGRESSED | a series TAIL (GPU undecided) | the planted workload WORSE | machine's move |\n|---|---|---|---|---|\n");
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    if (argc > 2 && !strstr(cases[c].name, argv[2])) continue;
    perf__rng r;
    perf__rng_seed(&r, 1000 + c);
    long regressed = 0, seen = 0, found = 0, shifted = 0;
    for (long k = 0; k < reps; k++) {
      int a, e, b, s;
      if (replicate(&cases[c], &r, &a, &e, &b, &s)) return fprintf(stderr, "out of memory\n"), 2;
      regressed += a, seen += e, found += b, shifted += s;
    }
    printf("| %s | %.1f %% | %.1f %% | ", cases[c].name, 100.0 * (double)regressed / (double)reps,
           100.0 * (double)seen / (double)reps);
    if (cases[c].planted > 0) printf("%.1f %%", 100.0 * (double)found / (double)reps);
    else printf("-");
    printf(" | %.1f %% |\n", 100.0 * (double)shifted / (double)reps);
    fflush(stdout);
  }
  return 0;
}
