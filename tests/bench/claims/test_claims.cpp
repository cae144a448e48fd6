// bench/claims/src/claims.cpp: the claims registry (data/claims.csv) covers every claim id of
// docs/claims.md (the catalogue the suite checks), with the guide's errors and its own words.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "rigcheck/harness/paths.hpp"
#include "rigcheck/report/report.hpp"
#include "support/paths.hpp"

using namespace rigcheck;

TEST(Claims, RegistryHasEveryClaimIdOfClaimsMd) {
  std::ifstream md(RIGCHECK_CLAIMS_MD);
  ASSERT_TRUE(md.good()) << "cannot read " << RIGCHECK_CLAIMS_MD;
  std::set<std::string> want, have;
  std::regex row(R"(^\| ([A-Z]+-[0-9]+) \|)");
  for (std::string line; std::getline(md, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) want.insert(m[1]);
  }
  for (const Claim& c : read_claims(data_path("claims.csv"))) have.insert(c.id);
  EXPECT_GE(want.size(), 25u);
  EXPECT_EQ(want, have);
}

TEST(Claims, GuideErrorsNamedByClaimsMdAreRecorded) {
  for (const Claim& c : read_claims(data_path("claims.csv"))) {
    bool expected = c.id == "CPU-6" || c.id == "GPU-2" || c.id == "MEM-1" || c.id == "IO-1" || c.id == "NET-1" ||
                    c.id == "PWR-1";
    EXPECT_EQ(!c.guide_error.empty(), expected) << c.id;
    EXPECT_FALSE(c.text_zh.empty()) << c.id;
  }
}
