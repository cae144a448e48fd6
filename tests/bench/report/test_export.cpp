// bench/report/src/export*.cpp: the escapings each format needs, and the three exports of a run
// built in memory (their real consumers read the fixture exports in tests/bench/report/export_*.sh).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/report/export.hpp"
#include "support/paths.hpp"
#include "support/runs.hpp"

using namespace rigcheck;

namespace {
// A run of one case, two repetitions ok and one mistrusted; a claim refuted, one not_measurable.
ExportInput small_run() {
  ExportInput in;
  in.run_id = "run-1";
  in.run.inventory = {{"hostname", "机器 \"a\" \\b"},
                      {"cpu_model", "CPU 中文"},
                      {"hardware_threads", "2"},
                      {"inventory_time_utc", "2026-12-04T01:06:33Z"}};
  auto row = [&](const std::string& metric, double v, const std::string& unit, int rep, Status st = Status::ok) {
    ResultRow r = result_row("fio", "randread/4k", "threads=1", metric, v, unit, rep, st, "笔记 \"n\"");
    r.source = "io_fio";
    in.run.results.push_back(r);
  };
  for (int rep = 0; rep < 2; ++rep) {
    row("iops", 1000.0 * (rep + 1), "IOPS", rep);
    row("clat_p99", 50, "count", rep);
  }
  row("iops", 1, "IOPS", 2, Status::mistrusted);
  Claim refuted, missing;
  refuted.id = "IO-1";
  refuted.section = "4.1";
  refuted.text_en = "Reads <fast> & \"steady\"";
  refuted.text_zh = "读取很快";
  missing.id = "GPU-1";
  missing.text_en = "A GPU";
  in.claims = {refuted, missing};
  Verdict a, b;
  a.claim_id = "IO-1";
  a.verdict = Outcome::refuted;
  a.basis = Basis::measured;
  a.evidence = "measured < guide";
  b.claim_id = "GPU-1";
  b.verdict = Outcome::not_measurable;
  b.reason = "no GPU";
  in.verdicts = {a, b};
  return in;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}
}  // namespace

TEST(Export, OpenMetricsLabelValueEscapesQuotesBackslashesAndLineBreaks) {
  EXPECT_EQ(openmetrics_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(openmetrics_label_value("中文 “引号”"), "中文 “引号”");  // UTF-8 is kept
}

TEST(Export, OpenMetricsNamesAreValid) {
  EXPECT_EQ(openmetrics_name("cpu-model.x"), "cpu_model_x");
  EXPECT_EQ(openmetrics_name("9lives"), "_9lives");
  EXPECT_EQ(openmetrics_name("中"), "___");  // three bytes, none a name character
}

TEST(Export, XmlEscapeEscapesMarkupAndReplacesWhatXmlForbids) {
  EXPECT_EQ(xml_escape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
  EXPECT_EQ(xml_escape("对于中等规模模型\n\tok"), "对于中等规模模型\n\tok");
  EXPECT_EQ(xml_escape(std::string("a\x01"
                                   "b")),
            "a\uFFFDb");  // a control character XML 1.0 forbids
  EXPECT_EQ(xml_escape(std::string("a\xff"
                                   "b\xe4\xb8")),
            "a\uFFFDb\uFFFD\uFFFD");  // not UTF-8
}

TEST(Export, FormatNamesReadBack) {
  for (const Exporter& e : exporters()) EXPECT_EQ(find_exporter(e.name), &e);
  EXPECT_EQ(exporters().size(), 3u);
  EXPECT_EQ(find_exporter("csv"), nullptr);
}

TEST(Export, GbenchJsonHasOneEntryPerOkRepetitionAndKeepsChineseText) {
  const std::string j = find_exporter("gbench-json")->write(small_run());
  EXPECT_EQ(count(j, "\"run_type\": \"iteration\""), 2u) << j;  // the mistrusted repetition left out
  EXPECT_EQ(count(j, "\"repetitions\": 2"), 2u) << j;
  EXPECT_NE(j.find("\"host_name\": \"机器 \\\"a\\\" \\\\b\""), std::string::npos) << j;  // JSON escapes, UTF-8 kept
  // No time metric: real_time is 1 / iops in ns (1e9 / 1000 and 1e9 / 2000).
  EXPECT_NE(j.find("\"real_time\": 1000000.0"), std::string::npos) << j;
  EXPECT_NE(j.find("\"real_time\": 500000.0"), std::string::npos) << j;
  EXPECT_NE(j.find("\"name\": \"fio/randread/4k\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"iops\": 2000.0"), std::string::npos) << j;  // the metrics as counters
}

TEST(Export, GbenchJsonReplacesTextThatIsNotUtf8) {
  ExportInput in = small_run();
  in.run.inventory["cpu_model"] = std::string("bad \xff byte");
  std::string j;
  ASSERT_NO_THROW(j = find_exporter("gbench-json")->write(in));
  EXPECT_NE(j.find("bad \uFFFD byte"), std::string::npos) << j;
}

TEST(Export, OpenMetricsHasOneVerdictSeriesPerOutcomeAndEscapedMachineLabels) {
  const std::string m = find_exporter("openmetrics")->write(small_run());
  EXPECT_NE(m.find("host=\"机器 \\\"a\\\" \\\\b\""), std::string::npos) << m;
  EXPECT_NE(m.find("claim=\"IO-1\",verdict=\"refuted\"} 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("claim=\"IO-1\",verdict=\"confirmed\"} 0\n"), std::string::npos) << m;
  EXPECT_EQ(count(m, "rigcheck_claim_verdict{"), 12u) << m;  // 2 claims x 6 verdicts
  // The median of the two ok repetitions (1000, 2000), not of the mistrusted one.
  EXPECT_NE(m.find("metric=\"iops\",unit=\"IOPS\"} 1500\n"), std::string::npos) << m;
  EXPECT_EQ(m.substr(m.size() - 6), "# EOF\n");
}

TEST(Export, JunitFailsRefutedSkipsNotMeasurableAndEscapesText) {
  const std::string x = find_exporter("junit")->write(small_run());
  EXPECT_EQ(count(x, "<failure "), 1u) << x;
  EXPECT_EQ(count(x, "<skipped "), 1u) << x;
  EXPECT_NE(x.find("name=\"IO-1: Reads &lt;fast&gt; &amp; &quot;steady&quot;\""), std::string::npos) << x;
  EXPECT_NE(x.find("读取很快"), std::string::npos) << x;
  EXPECT_NE(x.find("<skipped message=\"not_measurable: no GPU\"/>"), std::string::npos) << x;
}

TEST(Export, WriteNewFileNeverOverwrites) {
  const std::string p = ::testing::TempDir() + "/export-" + std::to_string(getpid()) + ".txt";
  std::filesystem::remove(p);
  write_new_file(p, "first");
  EXPECT_THROW(write_new_file(p, "second"), InputError);
  std::ifstream f(p);
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(s, "first");
  std::filesystem::remove(p);
}

TEST(Export, BrokenRunFolderIsRefused) {
  const std::string dir = testsupport::copy_fixture("quick_vm");  // its manifest has each file's checksum
  EXPECT_NO_THROW(read_export_input(dir));
  std::filesystem::remove(dir + "/io_fio_disk.csv");
  EXPECT_THROW(read_export_input(dir), InputError);
}

TEST(Export, GbenchJsonKeepsTheSameCaseOfTwoResultFilesApart) {
  ExportInput in = small_run();
  for (ResultRow r : std::vector<ResultRow>(in.run.results)) {
    r.source = "io_fio_tmpfs";
    in.run.results.push_back(r);
  }
  const std::string j = find_exporter("gbench-json")->write(in);
  EXPECT_EQ(count(j, "\"name\": \"fio/randread/4k/file:io_fio\""), 2u) << j;
  EXPECT_EQ(count(j, "\"name\": \"fio/randread/4k/file:io_fio_tmpfs\""), 2u) << j;
}

TEST(Export, HeadlineMetricPrefersARatePerSecondToIops) {
  ResultRow iops = result_row("b", "c", "", "iops", 10, "IOPS", 0);
  ResultRow steps = result_row("b", "c", "", "step_rate", 2, "steps/s", 0);
  ResultRow time = result_row("b", "c", "", "clat", 5, "us", 0);
  EXPECT_EQ(headline_metric({&time, &iops, &steps}), "step_rate");
  EXPECT_EQ(headline_metric({&time, &iops}), "iops");
  EXPECT_EQ(headline_metric({&time}), "clat");
}

// docs/exports.md has one section per format, headed "... (`--format NAME`)", and no other: the doc's
// list is the table's.
TEST(Export, TheDocsListIsTheTable) {
  std::ifstream in(rigcheck::test::source_dir() + "/docs/exports.md");
  ASSERT_TRUE(in) << "docs/exports.md";
  std::set<std::string> documented, table;
  const std::regex heading(R"(^## .*\(`--format ([a-z-]+)`\)\s*$)");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, m, heading)) documented.insert(m[1]);
  for (const Exporter& e : exporters()) table.insert(e.name);
  EXPECT_EQ(documented, table);
}
