// The timelines of the history page (timeline.hpp) on runs made in memory: a series of 1,000 runs
// is drawn per pixel column, and its change point and inventory mark are kept, on their runs.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "rigcheck/compare/timeline.hpp"
#include "rigcheck/harness/paths.hpp"

using namespace rigcheck;

namespace {
// n runs ten minutes apart of one case whose value drops 30% from run `drop` on; oneDNN upgraded
// from run `upgrade` on. Values move +-1% from run to run.
std::vector<LoadedRun> runs_of(size_t n, size_t drop, size_t upgrade) {
  std::vector<LoadedRun> runs(n);
  for (size_t i = 0; i < n; ++i) {
    LoadedRun& r = runs[i];
    r.label = fmt::format("run-{:04}", i);
    r.dir = "/nowhere/" + r.label;
    const long t = 600L * static_cast<long>(i);  // seconds after 2026-09-01 00:00 UTC
    r.time_utc = fmt::format("2026-09-{:02}T{:02}:{:02}:00Z", 1 + t / 86400, t / 3600 % 24, t / 60 % 60);
    r.data.inventory = {{"hostname", "vm"}, {"onednn_version", i >= upgrade ? "3.1.0" : "2.6.3"}};
    CaseRun c;
    c.source = "cpu_gemm", c.benchmark = "gemm_matmul_f32", c.case_name = "m256/t1", c.requested = "m=256";
    const double v = 100 * (i >= drop ? 0.7 : 1.0) * (1 + 0.01 * std::sin(i * 1.7));
    c.metrics["gflops"] = MetricSample{"GFLOP/s", 1, {v * 0.99, v, v * 1.01}};
    r.cases[case_key(c.source, c.benchmark, c.case_name, c.requested)] = c;
  }
  return runs;
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST(Timeline, ThousandRunsAreDrawnPerPixelColumnKeepingTheChangePointAndTheMark) {
  const std::vector<LoadedRun> runs = runs_of(1000, 600, 300);
  TimelineInput in;
  for (const LoadedRun& r : runs) in.runs.push_back(&r);
  StatOptions opt;
  opt.alpha = 0.001;
  const TimelinePage page =
      timelines_html(in, read_case_rules(), read_confounders(data_path("confounders.csv")), nullptr, opt);
  EXPECT_EQ(page.timelines, 1u);
  EXPECT_EQ(page.change_points, 1u);
  EXPECT_EQ(page.marks, 1u);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(page.html, m, std::regex("data-runs=\"1000\" data-columns=\"([0-9]+)\"")));
  const int columns = std::stoi(m[1]);
  EXPECT_LT(columns, 1000) << "1,000 runs drawn one by one on a plot narrower than that";
  EXPECT_GT(columns, 500) << "the columns should fill the plot's width";
  EXPECT_EQ(count(page.html, "<g class=\"cp\" data-run=\"run-0600\" data-before=\"run-0599\""), 1);
  const std::string mark =
      "<g class=\"mark\" data-run=\"run-0300\" data-before=\"run-0299\" data-label=\"oneDNN version\"";
  EXPECT_EQ(count(page.html, mark), 1);
  EXPECT_NE(page.html.find("<tr data-fact=\"onednn_version\" data-run=\"run-0300\">"), std::string::npos);
  EXPECT_LT(page.html.size(), 60u * 1000) << "one case of 1,000 runs";
}

TEST(Timeline, TimesAndPercentiles) {
  EXPECT_EQ(utc_seconds("2026-12-02T12:06:39Z"), 1796213199.0);
  EXPECT_TRUE(std::isnan(utc_seconds("unknown: no clock")));
  EXPECT_DOUBLE_EQ(percentile_of(3, {1, 2, 3, 4}), 62.5);  // two below, itself counted half
  EXPECT_DOUBLE_EQ(percentile_of(0, {1, 2}), 0);
  EXPECT_TRUE(std::isnan(percentile_of(1, {})));
}

TEST(Timeline, ACaseWithNoUsableValueInAnyRunIsLeftOut) {
  std::vector<LoadedRun> runs = runs_of(6, 6, 6);
  for (LoadedRun& r : runs)
    for (auto& [key, c] : r.cases) c.metrics["gflops"].reps = {0.0};  // not a rate: no run value
  TimelineInput in;
  for (const LoadedRun& r : runs) in.runs.push_back(&r);
  const TimelinePage page =
      timelines_html(in, read_case_rules(), read_confounders(data_path("confounders.csv")), nullptr, StatOptions{});
  EXPECT_EQ(page.timelines, 0u);
}

TEST(Timeline, AFactThatChangesAtManyStepsIsNoMark) {
  // Two machines taking turns in one group (--group-by driver): their CPU model changes at every step.
  std::vector<LoadedRun> runs = runs_of(40, 40, 20);
  for (size_t i = 0; i < runs.size(); ++i) runs[i].data.inventory["cpu_model"] = i % 2 ? "AMD EPYC 9R45" : "AMD EPYC";
  TimelineInput in;
  for (const LoadedRun& r : runs) in.runs.push_back(&r);
  const TimelinePage page =
      timelines_html(in, read_case_rules(), read_confounders(data_path("confounders.csv")), nullptr, StatOptions{});
  EXPECT_EQ(page.marks, 1u) << "only the oneDNN upgrade";
  EXPECT_NE(page.html.find("<td>CPU model</td><td colspan=\"3\">changes at 39 steps"), std::string::npos);
}
