// The normal and Student's t distributions the statistics of the tool need (compare's intervals and
// tests, claims' scaling predictions): quantiles by bisection to full double precision, the t's tails
// from the regularized incomplete beta function. docs/methodology.md names the formulas.
#pragma once

namespace rigcheck {

double normal_quantile(double p);                // p in (0, 1); throws std::invalid_argument outside
double student_t_cdf(double t, double df);       // df > 0
double student_t_quantile(double p, double df);  // p in (0, 1); df <= 0 or huge: the normal's
// Two-sided p of Student's t with df degrees of freedom.
double student_t_two_sided_p(double t, double df);

}  // namespace rigcheck
