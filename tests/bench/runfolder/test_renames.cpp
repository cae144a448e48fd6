// bench/runfolder/src/renames.cpp and bench/harness/include/rigcheck/harness/names.hpp: one name per
// benchmark, written by one binary (what the built binaries' --describe says); every registry names
// benchmarks that exist; rows of older folders read under today's
// names (data/renames.csv).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/emulation.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/report/html.hpp"
#include "rigcheck/runfolder/renames.hpp"
#include "rigcheck/report/report.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
// Each benchmark name the suite's binaries write, with the binaries that write it: the "# writes:"
// lines of `BINARY --describe` for each benchmark and peer the build declares (suite-binaries.txt)
// and has built (a binary declared not built has BUILD/bin/NAME.not-built: it goes into `not_built`).
std::map<std::string, std::vector<std::string>> written_by(std::vector<std::string>& not_built) {
  std::map<std::string, std::vector<std::string>> out;
  std::ifstream list(test::build_dir() + "/suite-binaries.txt");
  EXPECT_TRUE(list) << "no suite-binaries.txt in " << test::build_dir();
  std::string kind, binary, line;
  while (std::getline(list, line)) {
    std::istringstream(line) >> kind >> binary;
    const std::string path = test::build_dir() + "/bin/" + binary;
    if (kind != "binary" && kind != "peer") continue;
    if (std::ifstream(path + ".not-built")) {
      not_built.push_back(binary);
      continue;
    }
    std::string command;
    for (const std::string& w : through_exec_prefix({path, "--describe"}).argv) command += "'" + w + "' ";
    FILE* p = popen(command.c_str(), "r");
    EXPECT_NE(p, nullptr) << command;
    if (!p) continue;
    char buf[4096];
    const std::string tag = "# writes: ";
    while (std::fgets(buf, sizeof buf, p)) {
      std::string l(buf);
      if (l.rfind(tag, 0) == 0) out[l.substr(tag.size(), l.find('\n') - tag.size())].push_back(binary);
    }
    EXPECT_EQ(pclose(p), 0) << command;
  }
  return out;
}

// The first column of a registry CSV (no quoted first fields in these files).
std::set<std::string> first_column(const std::string& file) {
  std::ifstream in(data_path(file));
  std::set<std::string> out;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line))
    if (!line.empty()) out.insert(line.substr(0, line.find(',')));
  return out;
}
}  // namespace

TEST(Renames, EveryRegistryNamesBenchmarksThatExist) {
  std::set<std::string> names;
  std::vector<std::string> not_built;
  for (auto& [name, binaries] : written_by(not_built)) {
    EXPECT_EQ(binaries.size(), 1u) << "benchmark " << name << " is written by " << binaries.size() << " binaries or "
                                   << "registrations: " << binaries.front() << ", " << binaries.back();
    names.insert(name);
  }
  EXPECT_GT(names.size(), 10u) << "the built binaries describe hardly any benchmark";
  // A build without some binaries (no CUDA: the sanitizer and aarch64 builds) cannot tell the names
  // those would write: a name no built binary writes is then let pass, and the build that has them all
  // (the main one, in CI) holds every name.
  for (const std::string& b : not_built)
    std::printf("%s is not built here: the names it writes are not checked\n", b.c_str());
  auto written = [&](const std::string& b) { return names.count(b) > 0 || !not_built.empty(); };
  for (const PlotSpec& p : read_plot_specs(data_path("plots.csv")))
    for (const std::string& b : p.benchmarks) EXPECT_TRUE(written(b)) << "plots.csv " << p.id << ": " << b;
  for (const char* f : {"params.csv", "metrics.csv"})
    for (const std::string& b : first_column(f))
      if (b != "*") {
        EXPECT_TRUE(written(b)) << f << ": " << b;
      }
  const Renames r = suite_renames();
  EXPECT_FALSE(r.empty());
  for (auto& [from, to] : r.benchmark) {
    EXPECT_TRUE(written(to)) << "renamed to " << to << ", which no benchmark writes";
    EXPECT_FALSE(names.count(from)) << from << " is renamed but still written";
  }
}

TEST(Renames, OldRowsAreReadUnderTodaysNames) {
  std::vector<ResultRow> rows(3);
  rows[0].benchmark = "gemm_tc";
  rows[0].metric = "gflops";
  rows[1].benchmark = "stream_bandwidth";
  rows[2].benchmark = names::kGemmMatmul;
  EXPECT_EQ(apply_renames(suite_renames(), rows), 2u);
  EXPECT_EQ(rows[0].benchmark, names::kGpuGemm);
  EXPECT_EQ(rows[1].benchmark, names::kMemoryBandwidth);
  EXPECT_EQ(rows[2].benchmark, names::kGemmMatmul);
  // A fixture written before the renames (gemm_tc, gemm_sustained) is judged as before.
  RunData run = read_run(copy_fixture("gpu_h200_synthetic"));
  size_t gemm = 0, old = 0;
  for (const ResultRow& r : run.results) {
    gemm += r.benchmark == names::kGpuGemm;
    old += r.benchmark == "gemm_tc" || r.benchmark == "gemm_sustained";
  }
  EXPECT_GT(gemm, 0u);
  EXPECT_EQ(old, 0u);
}

TEST(Renames, BadTablesAreRefusedWithFileAndLine) {
  const struct {
    const char* text;
    long line;
    const char* why;
  } bad[] = {
      {"kind,old,new,why\nbench,a,b,\n", 2, "kind 'bench'"},
      {"kind,old,new,why\nbenchmark,a,b,\nbenchmark,a,c,\n", 3, "renamed twice"},
      {"kind,old,new,why\nmetric,a,a,\n", 2, "not a rename"},
      {"kind,old,new,case_suffix,why\nbenchmark,a,b,/x,\n", 2, "only a source gets one"},
      {"kind,old,new,case_suffix,why\nsource,a,c,/x,\nsource,b,c,/x,\n", 3, "their cases would merge"},
      {"kind,old,new,case_suffix,why\nsource,a,c,/x,\nsource,a,d,/y,\n", 3, "renamed twice"},
      {"kind,old,case_suffix,why\nsource,a,/x,\n", 1, "no column 'new'"},
  };
  for (const auto& b : bad) {
    const std::string p = temp_file("renames_bad.csv", b.text);
    expect_refused_at([&] { read_renames(p); }, b.line, b.why, p);
  }
  // Without the optional case_suffix column, as before; a source renamed with a suffix only is one.
  EXPECT_EQ(read_renames(temp_file("renames_ok.csv", "kind,old,new,why\nmetric,a,b,\n")).metric.at("a"), "b");
  const Renames r = read_renames(temp_file("renames_ok2.csv", "kind,old,new,case_suffix,why\nsource,a,a,/x,\n"));
  ResultRow row;
  row.source = "a", row.case_name = "c";
  EXPECT_EQ(compared_as(r, row), std::make_pair(std::string("a"), std::string("c/x")));
  row.source = "b";
  EXPECT_EQ(compared_as(r, row), std::make_pair(std::string("b"), std::string("c")));
}
