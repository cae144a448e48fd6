// Unit tests: schema round trip and strict reading, statistics, ranges, Amdahl, needs, verdict rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "rigcheck/harness/cli.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/tool/needs.hpp"
#include "rigcheck/tool/report.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/stats.hpp"

using namespace rigcheck;

namespace {
std::string temp_file(const std::string& name, const std::string& content) {
  std::string p = ::testing::TempDir() + "/" + name;
  std::ofstream(p) << content;
  return p;
}

std::string expect_input_error(const std::string& path) {
  try {
    read_results(path);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    return e.what();
  }
  ADD_FAILURE() << "no InputError for " << path;
  return "";
}
}  // namespace

TEST(Schema, HeaderIsDerivedFromTheColumnTable) {
  EXPECT_EQ(result_header(), "schema_version,run_id,benchmark,case,params,metric,value,unit,repetition,status,note");
}

TEST(Schema, RoundTripKeepsEveryFieldIncludingQuotesAndCommas) {
  ResultRow a;
  a.run_id = "vm-20261202T000000Z";
  a.benchmark = "gemm_matmul_f32";
  a.case_name = "m2048n2048k2048/t2";
  a.params = "m=2048;impl=brg:avx512_core";
  a.metric = "gflops";
  a.value = 123.456789012345;
  a.unit = "GFLOP/s";
  a.repetition = 3;
  a.status = Status::mistrusted;
  a.note = "a note, with \"quotes\" and commas";
  ResultRow b = a;
  b.status = Status::skipped;
  b.value = std::nan("");
  b.repetition = -1;
  std::string p = temp_file("rt.csv", result_header() + "\n" + format_result_row(a) + "\n" + format_result_row(b) + "\n");
  auto rows = read_results(p);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].run_id, a.run_id);
  EXPECT_EQ(rows[0].case_name, a.case_name);
  EXPECT_EQ(rows[0].params, a.params);
  EXPECT_DOUBLE_EQ(rows[0].value, a.value);
  EXPECT_EQ(rows[0].repetition, 3);
  EXPECT_EQ(rows[0].status, Status::mistrusted);
  EXPECT_EQ(rows[0].note, a.note);
  EXPECT_TRUE(std::isnan(rows[1].value));
  EXPECT_EQ(rows[1].status, Status::skipped);
  EXPECT_EQ(param_value(rows[0].params, "impl"), "brg:avx512_core");
}

TEST(Schema, WrongColumnCountNamesFileAndLine) {
  std::string p = temp_file("cols.csv", result_header() + "\n1,r,b,c,p,m,1.0,s,0,ok,\n1,r,b,c,p,m,1.0,s,0,ok\n");
  std::string msg = expect_input_error(p);
  EXPECT_NE(msg.find(p + ":3:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("too few columns"), std::string::npos) << msg;
}

TEST(Schema, NonNumericValueNamesFileAndLine) {
  std::string p = temp_file("num.csv", result_header() + "\n1,r,b,c,p,m,fast,s,0,ok,\n");
  std::string msg = expect_input_error(p);
  EXPECT_NE(msg.find(p + ":2:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'fast' is not a finite number"), std::string::npos) << msg;
}

TEST(Schema, UnknownSchemaVersionIsRefused) {
  std::string p = temp_file("ver.csv", result_header() + "\n99,r,b,c,p,m,1,s,0,ok,\n");
  std::string msg = expect_input_error(p);
  EXPECT_NE(msg.find(p + ":2:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown schema_version 99"), std::string::npos) << msg;
}

TEST(Schema, OtherDefectsAreRefused) {
  EXPECT_NE(expect_input_error(temp_file("st.csv", result_header() + "\n1,r,b,c,p,m,1,s,0,great,\n")).find("unknown status"),
            std::string::npos);
  EXPECT_NE(expect_input_error(temp_file("ev.csv", result_header() + "\n1,r,b,c,p,m,,s,0,ok,\n")).find("value is empty"),
            std::string::npos);
  EXPECT_NE(expect_input_error(temp_file("hd.csv", "a,b\n1,2\n")).find(":1:"), std::string::npos);
  EXPECT_NE(expect_input_error(temp_file("inf.csv", result_header() + "\n1,r,b,c,p,m,inf,s,0,ok,\n")).find("finite"),
            std::string::npos);
}

TEST(Csv, QuotingFollowsRfc4180) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  double v;
  EXPECT_TRUE(parse_double("1e3", v));
  EXPECT_EQ(v, 1000);
  EXPECT_FALSE(parse_double("12abc", v));
  EXPECT_FALSE(parse_double("", v));
  EXPECT_FALSE(parse_double("nan", v));
}

TEST(Stats, SummaryOfKnownSample) {
  Summary s = summarize({4, 1, 3, 2, 100});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 22);
  EXPECT_NEAR(s.stddev, 43.6176, 1e-3);
  EXPECT_DOUBLE_EQ(s.spread, 33);
  EXPECT_DOUBLE_EQ(median({1, 2, 3, 4}), 2.5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.25), 2);
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1, NAN}), std::invalid_argument);
}

TEST(Stats, AmdahlFitRecoversTheParallelFraction) {
  for (double p : {0.5, 0.9, 0.99}) {
    std::vector<std::pair<double, double>> pts;
    for (double n : {1.0, 2.0, 4.0}) pts.push_back({n, amdahl_speedup(p, n)});
    EXPECT_NEAR(amdahl_fit(pts), p, 1e-12);
  }
  // Two threads only, as on a 2-core machine: E(2) = 95% -> S(2) = 1.9 -> p = 2(1 - 1/1.9).
  double p = amdahl_fit({{1, 1.0}, {2, 1.9}});
  EXPECT_NEAR(p, 2 * (1 - 1 / 1.9), 1e-12);
  EXPECT_NEAR(amdahl_speedup(p, 8) / 8, 1 / (8 * (1 - p) + p), 1e-12);
  EXPECT_NEAR(amdahl_speedup(p, 8) / 8, 0.7308, 1e-4);
  EXPECT_DOUBLE_EQ(amdahl_fit({{2, 2.5}}), 1.0);  // superlinear clamps to 1
  EXPECT_THROW(amdahl_fit({{1, 1.0}}), std::invalid_argument);
}

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

TEST(Verdict, RulesForEachKindOfClaim) {
  Claim range;
  range.id = "X";
  range.kind = ClaimKind::range;
  range.low = 20;
  range.high = 30;
  range.tolerance = 2;
  EXPECT_EQ(judge(range, 21, 29), Outcome::confirmed);
  EXPECT_EQ(judge(range, 18.5, 31.5), Outcome::confirmed);  // inside the tolerance
  EXPECT_EQ(judge(range, 5, 10), Outcome::refuted);
  EXPECT_EQ(judge(range, 33, 40), Outcome::refuted);
  EXPECT_EQ(judge(range, 25, 35), Outcome::inconclusive);  // noise straddles the upper edge
  Claim least = range;
  least.kind = ClaimKind::at_least;
  least.low = 85;
  least.tolerance = 5;
  EXPECT_EQ(judge(least, 90, 99), Outcome::confirmed);
  EXPECT_EQ(judge(least, 60, 70), Outcome::refuted);
  EXPECT_EQ(judge(least, 75, 85), Outcome::inconclusive);
  Claim most = range;
  most.kind = ClaimKind::at_most;
  most.high = 10;
  most.tolerance = 0;
  EXPECT_EQ(judge(most, 1, 9), Outcome::confirmed);
  EXPECT_EQ(judge(most, 11, 12), Outcome::refuted);
  Claim approx = range;
  approx.kind = ClaimKind::approx;
  approx.low = 18;
  approx.tolerance = 3;
  EXPECT_EQ(judge(approx, 16, 20), Outcome::confirmed);
  EXPECT_EQ(judge(approx, 0, 2), Outcome::refuted);
  Claim fact = range;
  fact.kind = ClaimKind::fact;
  EXPECT_THROW(judge(fact, 1, 2), std::logic_error);
}

#include "rigcheck/inventory/inventory.hpp"

TEST(Inventory, HasTheKeysTheReportNeedsAndRoundTrips) {
  Inventory inv = collect_inventory();
  for (const char* key : {"cpu_model", "cpu_family", "physical_cores", "hardware_threads", "cache_l3_bytes",
                          "cache_l3_total_bytes", "isa_avx2", "isa_avx512f", "isa_amx", "memory_total_bytes",
                          "memory_dimm_type", "thp_enabled", "cpufreq_governor", "kernel", "compiler", "build_type",
                          "onednn_version", "openblas_corename", "gpu_count", "suite_commit", "method_version"}) {
    EXPECT_FALSE(inventory_get(inv, key).empty()) << key;
  }
  double cores = 0;
  ASSERT_TRUE(parse_double(inventory_get(inv, "physical_cores"), cores));
  EXPECT_GE(cores, 1);
  std::string gpus = inventory_get(inv, "gpu_count");
  EXPECT_TRUE(parse_double(gpus, cores)) << "gpu_count must be a number even without a driver: " << gpus;
  std::string p = ::testing::TempDir() + "/inventory-rt.csv";
  write_inventory_csv(inv, p);
  auto back = read_key_value_csv(p, "key", "value");
  ASSERT_EQ(back.size(), inv.size());
  for (size_t i = 0; i < inv.size(); ++i) EXPECT_EQ(back[i], inv[i]);
}
