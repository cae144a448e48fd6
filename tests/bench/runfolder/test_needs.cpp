// bench/runfolder/src/needs.cpp: a benchmark's or a claim's needs against the facts of the machine.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "rigcheck/runfolder/needs.hpp"

using namespace rigcheck;

TEST(Needs, TermsAgainstFacts) {
  std::map<std::string, std::string> f = {{"physical_cores", "2"}, {"isa_avx512f", "no"}, {"gpu_count", "0"}};
  EXPECT_TRUE(evaluate_needs("", f).met);
  EXPECT_TRUE(evaluate_needs("physical_cores>=2", f).met);
  NeedsResult r = evaluate_needs("physical_cores>=8;isa_avx512f=yes", f);
  EXPECT_FALSE(r.met);
  EXPECT_EQ(r.missing, "physical_cores>=8 (this machine: 2); isa_avx512f=yes (this machine: no)");
  EXPECT_FALSE(evaluate_needs("nodes>=2", f).met);  // an unknown fact is unmet
  EXPECT_TRUE(evaluate_needs("isa_avx512f!=yes", f).met);
  EXPECT_THROW(evaluate_needs("cores", f), std::invalid_argument);
  EXPECT_THROW(evaluate_needs("cores>=many", f), std::invalid_argument);
}
