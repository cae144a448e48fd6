// bench/runfolder/src/run_data.cpp: a run's inventory facts as text (with the caller's word for a
// gap) and as numbers.
#include <gtest/gtest.h>

#include <cmath>

#include "rigcheck/runfolder/run_query.hpp"

using namespace rigcheck;

TEST(RunQuery, FactOrGivesTheTextOrTheCallersWordForAGap) {
  const std::map<std::string, std::string> facts = {{"cpu_model", "EPYC 9654"}, {"gpu_count", ""}};
  EXPECT_EQ(fact_or(facts, "cpu_model", kNotInInventory), "EPYC 9654");
  EXPECT_EQ(fact_or(facts, "gpu_count", kNotInInventory), "");  // recorded empty: not a gap
  EXPECT_EQ(fact_or(facts, "hostname", kNotInInventory), "unknown: not in inventory");
  EXPECT_EQ(fact_or(facts, "hostname", kNotRecorded), "(not recorded)");
  EXPECT_EQ(fact_or(facts, "hostname", ""), "");
}

TEST(RunQuery, FactNumberIsNaNWhenAbsentOrNotANumber) {
  const std::map<std::string, std::string> facts = {{"memory_total_bytes", "25769803776"}, {"thp", "always"}};
  EXPECT_EQ(fact_number(facts, "memory_total_bytes"), 25769803776.0);
  EXPECT_TRUE(std::isnan(fact_number(facts, "thp")));
  EXPECT_TRUE(std::isnan(fact_number(facts, "gpu0_memory_bytes")));
}
