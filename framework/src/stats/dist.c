/* dist.c — the distributions perfgate's tests read: Student's t, the normal, digamma, trigamma. */
/* Student's t and the normal tail; the digamma and trigamma functions fit a
 * prior to sample variances. */
#include "stats/dist.h"

#include <math.h>

/* The regularized incomplete beta function I_x(a, b), by its continued
 * fraction (modified Lentz), on the side where it converges fast. Never
 * fails: NaN only for a NaN argument. */
static double incomplete_beta(double x, double a, double b)
{
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incomplete_beta(1 - x, b, a);
  double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x)) / a;
  double f = 1, c = 1, d = 0;
  for (int i = 0; i <= 400; i++) {
    int m = i / 2;
    double num = !i ? 1 : i % 2 ? -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))
                                : (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + num * d;
    d = 1 / (fabs(d) < 1e-300 ? 1e-300 : d);
    c = 1 + num / (fabs(c) < 1e-300 ? 1e-300 : c);
    f *= c * d;
    if (fabs(1 - c * d) < 1e-14) break;
  }
  return front * (f - 1);
}

/* See dist.h. Past 1e7 degrees of freedom the normal's tail (the
 * continued fraction converges slowly there and the two agree to 7
 * digits). */
double perf__dist_student_p(double t, double df)
{
  if (isnan(t) || isnan(df) || !(df > 0)) return NAN;
  if (isinf(t)) return 0;
  if (df > 1e7) return erfc(fabs(t) / sqrt(2.0));
  return incomplete_beta(df / (df + t * t), df / 2, 0.5);
}

/* See dist.h. */
double perf__dist_student_upper(double t, double df)
{
  double p = perf__dist_student_p(t, df) / 2;
  return t >= 0 || isnan(p) ? p : 1 - p;
}

/* See dist.h. */
double perf__dist_digamma(double x)
{
  if (!(x > 0)) return NAN;
  double r = 0;
  for (; x < 10; x += 1) r -= 1 / x;
  double i2 = 1 / (x * x);
  return r + log(x) - 0.5 / x - i2 * (1.0 / 12 - i2 * (1.0 / 120 - i2 * (1.0 / 252 - i2 / 240)));
}

/* See dist.h. */
double perf__dist_trigamma(double x)
{
  if (!(x > 0)) return NAN;
  double r = 0;
  for (; x < 10; x += 1) r += 1 / (x * x);
  double i = 1 / x, i2 = i * i;
  return r + i + i2 / 2 + i * i2 * (1.0 / 6 - i2 * (1.0 / 30 - i2 * (1.0 / 42 - i2 / 30)));
}

/* The second derivative of digamma (tetragamma), as the two above. Never
 * fails for x > 0. */
static double tetragamma(double x)
{
  double r = 0;
  for (; x < 10; x += 1) r -= 2 / (x * x * x);
  double i2 = 1 / (x * x);
  return r - i2 * (1 + 1 / x + i2 * (0.5 - i2 * (1.0 / 6 - i2 * (1.0 / 6 - i2 * 0.3))));
}

/* See dist.h. */
double perf__dist_trigamma_inverse(double y)
{
  if (!(y > 0)) return NAN;
  if (y > 1e7) return 1 / sqrt(y);
  if (y < 1e-6) return 1 / y;
  double x = 0.5 + 1 / y;
  for (int i = 0; i < 50; i++) {
    double tri = perf__dist_trigamma(x), step = tri * (1 - tri / y) / tetragamma(x);
    x += step;
    if (-step / x < 1e-8) break;
  }
  return x;
}
