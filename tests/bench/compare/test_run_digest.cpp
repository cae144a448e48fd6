// A run's digest (bench/compare/src/run_digest.cpp): the loaded run less its rows, back exactly as
// load_run gave it, for every run folder of the fixtures; a malformed digest is refused; and the
// digest of one fixture is recorded, so that a change of load_run's cases is caught until
// kRunDigestFormat is bumped (stored digests of the old format are then not used).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <limits>

#include "rigcheck/compare/run_digest.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/sha256.hpp"
#include "support/paths.hpp"

using namespace rigcheck;

namespace {
void expect_same(const LoadedRun& a, const LoadedRun& b) {
  EXPECT_EQ(a.dir, b.dir);
  EXPECT_EQ(a.label, b.label);
  EXPECT_EQ(a.time_utc, b.time_utc);
  EXPECT_EQ(a.area_of, b.area_of);
  EXPECT_EQ(a.not_working, b.not_working);
  EXPECT_EQ(a.not_working_by_name, b.not_working_by_name);
  EXPECT_EQ(a.ok_rows, b.ok_rows);
  EXPECT_EQ(a.mistrusted_rows, b.mistrusted_rows);
  EXPECT_EQ(a.data.inventory, b.data.inventory);
  EXPECT_EQ(a.data.facts, b.data.facts);
  EXPECT_EQ(a.data.recovered, b.data.recovered);
  EXPECT_EQ(a.data.result_files, b.data.result_files);
  EXPECT_EQ(a.data.excluded, b.data.excluded);
  EXPECT_EQ(a.data.integrity.summary(), b.data.integrity.summary());
  ASSERT_EQ(a.data.manifest.size(), b.data.manifest.size());
  for (size_t i = 0; i < a.data.manifest.size(); ++i) {
    EXPECT_EQ(format_manifest({a.data.manifest[i]}), format_manifest({b.data.manifest[i]}));
  }
  ASSERT_EQ(a.cases.size(), b.cases.size());
  for (auto ia = a.cases.begin(), ib = b.cases.begin(); ia != a.cases.end(); ++ia, ++ib) {
    ASSERT_EQ(ia->first, ib->first);
    const CaseRun &x = ia->second, &y = ib->second;
    EXPECT_EQ(x.source + x.benchmark + x.case_name + x.requested + x.area,
              y.source + y.benchmark + y.case_name + y.requested + y.area);
    EXPECT_EQ(x.observed, y.observed);
    EXPECT_EQ(x.disturbed, y.disturbed);
    ASSERT_EQ(x.metrics.size(), y.metrics.size()) << ia->first;
    for (auto ma = x.metrics.begin(), mb = y.metrics.begin(); ma != x.metrics.end(); ++ma, ++mb) {
      EXPECT_EQ(ma->first, mb->first);
      EXPECT_EQ(ma->second.unit, mb->second.unit);
      EXPECT_EQ(ma->second.better, mb->second.better);
      EXPECT_EQ(ma->second.reps, mb->second.reps) << ia->first << " " << ma->first;  // bit for bit
    }
  }
}
}  // namespace

TEST(RunDigest, GivesBackTheLoadedRunLessItsRowsForEveryFixtureRun) {
  const CaseRules rules = read_case_rules();
  int runs = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(RIGCHECK_FIXTURES) + "/runs")) {
    if (!std::filesystem::exists(e.path() / "inventory.csv")) continue;
    LoadedRun r;
    try {
      r = load_run(e.path().string(), rules);
    } catch (const InputError&) {
      continue;  // a fixture made to be refused
    }
    std::vector<ResultRow>().swap(r.data.results);
    const std::string body = encode_run_digest(r);
    const LoadedRun back = decode_run_digest(body, r.dir);
    SCOPED_TRACE(r.dir);
    expect_same(r, back);
    EXPECT_EQ(encode_run_digest(back), body);
    ++runs;
  }
  EXPECT_GE(runs, 10);
}

TEST(RunDigest, AMalformedDigestIsRefused) {
  LoadedRun r = load_run(std::string(RIGCHECK_FIXTURES) + "/runs/compare_a");
  std::vector<ResultRow>().swap(r.data.results);
  const std::string body = encode_run_digest(r);
  EXPECT_NO_THROW(decode_run_digest(body, "x/compare_a"));
  EXPECT_THROW(decode_run_digest(body.substr(0, body.size() / 2), "x"), std::runtime_error);
  EXPECT_THROW(decode_run_digest(body + "1:x", "x"), std::runtime_error);
  EXPECT_THROW(decode_run_digest("5:hello" + body, "x"), std::runtime_error);
  EXPECT_THROW(decode_run_digest("", "x"), std::runtime_error);
  std::string other = body;
  const size_t at = std::string("19:rigcheck run digest").size();
  ASSERT_EQ(other.substr(at, 3), "1:" + std::to_string(kRunDigestFormat));
  other.replace(at, 3, "1:9");  // the format after the magic: 9, not this rigcheck's
  EXPECT_THROW(decode_run_digest(other, "x"), std::runtime_error);
  EXPECT_EQ(decode_run_digest(body, "STORE run 7/compare_a/").label, "compare_a");
}

// Repetitions go as the base64 of their 8 bytes: every double back bit for bit, of every length
// (base64's three tails), and a digit that is not base64 is refused.
TEST(RunDigest, RepetitionsComeBackBitForBit) {
  const std::vector<double> odd = {0.1, -0.0, 1e-310, -1e308, std::numeric_limits<double>::infinity(), 3.0, 42.5};
  for (size_t n = 0; n <= odd.size(); ++n) {
    LoadedRun r;
    CaseRun c;
    c.source = "s";
    c.benchmark = "b";
    c.case_name = "c";
    c.metrics["gflops"] =
        MetricSample{"GFLOP/s", 1, std::vector<double>(odd.begin(), odd.begin() + static_cast<long>(n))};
    r.cases.emplace(case_key(c.source, c.benchmark, c.case_name, c.requested), c);
    const std::string body = encode_run_digest(r);
    const LoadedRun got = decode_run_digest(body, "x");
    const std::vector<double>& back = got.cases.begin()->second.metrics.at("gflops").reps;
    ASSERT_EQ(back.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(std::memcmp(&back[i], &odd[i], 8), 0) << n << " " << i;
    if (n == 0) continue;
    std::string bad = body;
    const size_t at = bad.find(":GFLOP/s") + 8;  // unit, better, count, then the repetitions' token
    const size_t token = bad.find(':', bad.find(':', bad.find(':', at + 1) + 1) + 1) + 1;
    bad[token] = '*';
    EXPECT_THROW(decode_run_digest(bad, "x"), std::runtime_error) << n;
  }
}

// What the digest of quick_vm was when kRunDigestFormat was last set. When this fails:
// - the key changed (data/params.csv, metrics.csv, benchmarks.csv or renames.csv): stored digests
//   of the old key are not used; renew both values below;
// - only the body changed, the key did not: load_run or build_cases now make other cases from the
//   same files. Bump kRunDigestFormat (stored digests would otherwise give the old cases), then renew.
TEST(RunDigest, KeyGuardsTheCode) {
  const CaseRules rules = read_case_rules();
  LoadedRun r = load_run(std::string(RIGCHECK_FIXTURES) + "/runs/quick_vm", rules);
  std::vector<ResultRow>().swap(r.data.results);
  const std::string key = run_digest_key(rules), body_sha = sha256_hex(encode_run_digest(r));
  EXPECT_EQ(key, "digest 4 c59adcac1b37536599c6d1e31afa11de80a69d0578ac13ca7112a1253dac437f") << "body " << body_sha;
  EXPECT_EQ(body_sha, "4224c9269db90ee45420d887a8ac97e2298ab2c407a50ce07f59b41fc113e338") << "key " << key;
}
