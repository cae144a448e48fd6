// bench/harness/src/cli.cpp: integer lists and ranges, sizes with binary suffixes, profile defaults.
#include <gtest/gtest.h>

#include "rigcheck/harness/cli.hpp"

using namespace rigcheck;

TEST(Cli, IntegerListsAndRanges) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(parse_int_list("1,2,4"), (V{1, 2, 4}));
  EXPECT_EQ(parse_int_list("1-16*2"), (V{1, 2, 4, 8, 16}));
  EXPECT_EQ(parse_int_list("1-4"), (V{1, 2, 3, 4}));
  EXPECT_EQ(parse_int_list("2-10+4"), (V{2, 6, 10}));
  EXPECT_EQ(parse_int_list("1-max*2,max", 6), (V{1, 2, 4, 6}));
  EXPECT_EQ(parse_int_list("4,1,4"), (V{1, 4}));
  EXPECT_THROW(parse_int_list("0"), std::invalid_argument);
  EXPECT_THROW(parse_int_list("8-1"), std::invalid_argument);
  EXPECT_THROW(parse_int_list("1-8*1"), std::invalid_argument);
  EXPECT_THROW(parse_int_list("a"), std::invalid_argument);
  EXPECT_THROW(parse_int_list("1,,2"), std::invalid_argument);
  EXPECT_THROW(parse_int_list("3", 2), std::invalid_argument);
  EXPECT_THROW(parse_int_list("max"), std::invalid_argument);
}

TEST(Cli, SizesWithBinarySuffixes) {
  EXPECT_EQ(parse_size("4096"), 4096);
  EXPECT_EQ(parse_size("64K"), 65536);
  EXPECT_EQ(parse_size("1.5M"), 1572864);
  EXPECT_EQ(parse_size("2g"), 2147483648LL);
  EXPECT_EQ(parse_size_list("1K-4K*2"), (std::vector<int64_t>{1024, 2048, 4096}));
  EXPECT_THROW(parse_size("12Q"), std::invalid_argument);
  EXPECT_THROW(parse_size("-1K"), std::invalid_argument);
  EXPECT_THROW(parse_size("0.3"), std::invalid_argument);
}

TEST(Cli, ProfileDefaults) {
  CommonOptions o;
  o.profile_name = "full";
  finish_common_options(o, 2, 2);
  EXPECT_EQ(o.reps, 10);
  CommonOptions q;
  q.quick = true;
  q.profile_name = "full";
  finish_common_options(q, 2, 2);
  EXPECT_EQ(q.profile, Profile::quick);
  CommonOptions bad;
  bad.profile_name = "huge";
  EXPECT_THROW(finish_common_options(bad, 2, 2), std::invalid_argument);
}
