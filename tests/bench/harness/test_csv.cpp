// bench/harness/src/csv.cpp: quoting (RFC 4180) and strict number parsing.
#include <gtest/gtest.h>

#include "rigcheck/harness/csv.hpp"

using namespace rigcheck;

TEST(Csv, QuotingFollowsRfc4180) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  // A NUL byte (in a child's output that a reason quotes) would end the reader's line: dropped.
  EXPECT_EQ(csv_field(std::string("exited 14: \"abort\". |\0", 22)), "\"exited 14: \"\"abort\"\". |\"");
  double v;
  EXPECT_TRUE(parse_double("1e3", v));
  EXPECT_EQ(v, 1000);
  EXPECT_FALSE(parse_double("12abc", v));
  EXPECT_FALSE(parse_double("", v));
  EXPECT_FALSE(parse_double("nan", v));
}

TEST(Csv, FormatCsvWritesTheHeaderAndALinePerRow) {
  const std::vector<std::pair<std::string, int>> rows = {{"a,b", 1}, {"c", 2}};
  auto fields = [](const std::pair<std::string, int>& r) -> std::vector<std::string> {
    return {r.first, std::to_string(r.second)};
  };
  EXPECT_EQ(format_csv("name,n", rows, fields), "name,n\n\"a,b\",1\nc,2\n");
  EXPECT_EQ(format_csv("name,n", std::vector<std::pair<std::string, int>>{}, fields), "name,n\n");
}
