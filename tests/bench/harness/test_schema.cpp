// bench/harness/src/schema.cpp: the result CSV's header, its round trip, and the strict reading that
// refuses a defect with file and line.
#include <gtest/gtest.h>

#include <cmath>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/schema.hpp"
#include "support/files.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
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
  ResultRow a = result_row("gemm_matmul_f32", "m2048n2048k2048/t2", "m=2048;impl=brg:avx512_core", "gflops",
                           123.456789012345, "GFLOP/s", 3, Status::mistrusted, "a note, with \"quotes\" and commas");
  a.run_id = "vm-20261202T000000Z";
  ResultRow b = a;
  b.status = Status::skipped;
  b.value = std::nan("");
  b.repetition = -1;
  std::string p =
      temp_file("rt.csv", result_header() + "\n" + format_result_row(a) + "\n" + format_result_row(b) + "\n");
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
  expect_refused_at([&] { read_results(p); }, 3, "too few columns", p);
}

TEST(Schema, NonNumericValueNamesFileAndLine) {
  std::string p = temp_file("num.csv", result_header() + "\n1,r,b,c,p,m,fast,s,0,ok,\n");
  expect_refused_at([&] { read_results(p); }, 2, "'fast' is not a finite number", p);
}

TEST(Schema, UnknownSchemaVersionIsRefused) {
  std::string p = temp_file("ver.csv", result_header() + "\n99,r,b,c,p,m,1,s,0,ok,\n");
  expect_refused_at([&] { read_results(p); }, 2, "unknown schema_version 99", p);
}

TEST(Schema, OtherDefectsAreRefused) {
  EXPECT_NE(
      expect_input_error(temp_file("st.csv", result_header() + "\n1,r,b,c,p,m,1,s,0,great,\n")).find("unknown status"),
      std::string::npos);
  EXPECT_NE(
      expect_input_error(temp_file("ev.csv", result_header() + "\n1,r,b,c,p,m,,s,0,ok,\n")).find("value is empty"),
      std::string::npos);
  EXPECT_NE(expect_input_error(temp_file("hd.csv", "a,b\n1,2\n")).find(":1:"), std::string::npos);
  EXPECT_NE(expect_input_error(temp_file("inf.csv", result_header() + "\n1,r,b,c,p,m,inf,s,0,ok,\n")).find("finite"),
            std::string::npos);
}
