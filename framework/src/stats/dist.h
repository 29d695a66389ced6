/* dist.h — the distributions perfgate's tests read: Student's t, the normal, digamma, trigamma. */
/* Student's t and the normal tail; the digamma and trigamma functions fit a
 * prior to sample variances. */
#ifndef PERF_DIST_H
#define PERF_DIST_H

/* Student's two-sided p-value of t with df degrees of freedom: the
 * chance of |T| >= |t|. df may be INFINITY (the normal's). 0 for an
 * infinite t, 1 for t = 0; NaN for a NaN argument or df <= 0. Never
 * fails. */
double perf__dist_student_p(double t, double df);

/* The chance of T >= t with df degrees of freedom (one-sided, upper),
 * df INFINITY for the normal. NaN as perf__dist_student_p. Never fails. */
double perf__dist_student_upper(double t, double df);

/* The digamma function psi(x) and its first derivative, trigamma, for
 * x > 0 (by the recurrence up to x >= 10, then the asymptotic series: 13
 * digits). NaN for x <= 0 or NaN. Never fail. */
double perf__dist_digamma(double x);
double perf__dist_trigamma(double x);

/* The x > 0 whose trigamma is y (y > 0), by Newton's method on 1 /
 * trigamma as Smyth (2004) does for limma; NaN for y <= 0 or NaN. Never
 * fails. */
double perf__dist_trigamma_inverse(double y);

#endif
