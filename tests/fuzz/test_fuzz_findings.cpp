// Inputs the fuzz targets (tests/fuzz, scripts/fuzz.sh) showed a reader mishandling, kept in
// tests/fixtures/fuzz/TARGET/: each is now refused the documented way, with file, line and reason
// (or, for the kernel's texts, read as "nothing usable"). fuzz_replay_* replays the same files
// through the fuzz targets' own checks; these tests say what each one must give. fio's findings
// are in tests/io/test_io.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "power.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/inventory/inventory.hpp"
#include "rigcheck/report/report.hpp"
#include "rigcheck/run/runner.hpp"
#include "rigcheck/harness/topology.hpp"
#include "support/paths.hpp"

using namespace rigcheck;

namespace {
std::string fixture(const std::string& target, const std::string& name) {
  return std::string(RIGCHECK_FIXTURES) + "/fuzz/" + target + "/" + name;
}

std::string first_line_of(const std::string& path, int n) {
  std::ifstream in(path);
  std::string line;
  for (int i = 0; i < n; ++i) std::getline(in, line);
  return line;
}

// body() must throw InputError for `path` at `line` with a reason containing `reason`.
template <class F>
void expect_refused(F body, const std::string& path, long line, const std::string& reason) {
  try {
    body();
    ADD_FAILURE() << path << ": accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(e.reason().find(reason), std::string::npos) << e.what();
  }
}
}  // namespace

// A needs expression that is no expression ("5", bytes) used to pass the registry readers and
// then throw std::invalid_argument from evaluate_needs in the middle of `rigcheck run` (after the
// run folder and the inventory were written) or of `rigcheck report`.
TEST(FuzzFindings, MalformedNeedsAreRefusedByTheRegistryReaders) {
  const std::string b = fixture("benchmarks", "needs_without_operator.csv");
  expect_refused([&] { read_benchmark_registry(b); }, b, 2, "needs: needs term '5' has no operator");
  const std::string c = fixture("claims", "needs_not_a_term.csv");
  expect_refused([&] { read_claims(c); }, c, 4, "has no operator");
}

// exit_code 0777777777777777777777777777 (7.8e26) was cast to int: undefined behaviour.
TEST(FuzzFindings, ManifestExitCodePastIntIsRefused) {
  const std::string m = fixture("manifest", "exit_code_past_int.csv");
  expect_refused([&] { read_manifest(m); }, m, 2, "is not an integer exit status");
}

// cpu_caches.csv: family 1e10, size -5 and 1e30 were cast to int and uint64_t: undefined.
TEST(FuzzFindings, CpuCacheFiguresOutOfRangeAreRefused) {
  const std::string p = fixture("registries", "cpu_caches_past_int.csv");
  expect_refused([&] { read_cpu_cache_datasheets(p); }, p, 2, "whole numbers from -1 (any) to 65535");
}

// cgroup cpu.max "inf 1" gave an infinite quota, which cpu_budget cast to int; a 400-digit RAPL
// counter made std::stod throw std::out_of_range instead of the documented invalid_argument.
TEST(FuzzFindings, KernelTextsOutOfRangeReadAsUnusable) {
  EXPECT_EQ(parse_cpu_max(first_line_of(fixture("kernel_text", "cpu_max_inf.txt"), 2)), 0);
  EXPECT_EQ(parse_cpu_max("1e400 1"), 0);
  EXPECT_DOUBLE_EQ(parse_cpu_max("150000 100000"), 1.5);
  const std::string digits = first_line_of(fixture("kernel_text", "rapl_400_digits.txt"), 1);
  ASSERT_EQ(digits.size(), 400u);
  EXPECT_THROW(gpu::parse_rapl_uj(digits), std::invalid_argument);
  EXPECT_DOUBLE_EQ(gpu::parse_rapl_uj("18446744073709551615"), 18446744073709.551615);  // u64 max still reads
}
