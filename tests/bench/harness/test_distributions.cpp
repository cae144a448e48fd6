// bench/harness/src/distributions.cpp: the normal and Student's t quantiles and tails against
// published values (R's qnorm, qt, pt; the tables of Student's t). compare's intervals and tests and
// claims' scaling predictions both use these.
#include <gtest/gtest.h>

#include <stdexcept>

#include "rigcheck/harness/distributions.hpp"

using namespace rigcheck;

TEST(Distributions, MatchPublishedValues) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(normal_quantile(0.995), 2.575829, 1e-6);
  EXPECT_NEAR(normal_quantile(0.025), -1.959964, 1e-6);
  // R: qt(0.975, 4), qt(0.995, 1), qt(0.995, 8), 2 * pt(-2, 10)
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.995, 1), 63.65674, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.995, 8), 3.355387, 1e-5);
  EXPECT_NEAR(student_t_two_sided_p(2.0, 10), 0.07338803, 1e-7);
  EXPECT_NEAR(student_t_cdf(-2.0, 10), 0.03669402, 1e-7);
  EXPECT_THROW(normal_quantile(1), std::invalid_argument);
  EXPECT_THROW(student_t_quantile(0, 4), std::invalid_argument);
}

// Tables of Student's t (two-sided 95% and 99%: the 0.975 and 0.995 quantiles); a huge df is the normal's.
TEST(Distributions, StudentTQuantileKnownValues) {
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.7062, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.7764, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 17), 2.1098, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 1e7), 1.9600, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 1e9), 1.9600, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.995, 4), 4.6041, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.995, 17), 2.8982, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.025, 4), -2.7764, 1e-4);
}
