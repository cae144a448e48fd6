// Pairing that survives an upgrade of the suite: every param a benchmark writes is declared in
// data/params.csv (requested, observed or description), and a case whose rows gained observed
// params or a description of the method still pairs, the change named on it.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "rigcheck/compare/compare.hpp"
#include "rigcheck/harness/schema.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

// Every param of every row of every fixture run (real runs of the suite and the synthetic ones made
// from them) is declared: a benchmark that starts writing a new one fails here until data/params.csv
// says whether it is asked (part of the key), found at run time, or a description of the method.
TEST(Cases, EveryParamOfTheFixtureRunsIsDeclared) {
  const CaseRules rules = read_case_rules();
  std::set<std::string> undeclared;
  int runs = 0;
  for (const auto& e : std::filesystem::directory_iterator(kRuns)) {
    if (!e.is_directory() || !std::filesystem::exists(e.path() / "inventory.csv")) continue;
    const RunData d = read_run(e.path().string());
    ++runs;
    for (const ResultRow& row : d.results)
      for (const auto& [k, v] : parse_params(row.params))
        if (rules.role(row.benchmark, k).empty()) undeclared.insert(row.benchmark + "," + k);
  }
  EXPECT_GE(runs, 10);
  std::string list;
  for (const std::string& u : undeclared) list += u + "\n";
  EXPECT_TRUE(undeclared.empty()) << "declare in data/params.csv (benchmark or *,param,role,note):\n" << list;
}

namespace {
// quick_vm as a newer suite writes it: the MPI all-reduce rows with the observed facts
// machines, oversubscribed, tcp_if_include and link; ResNet-50's step with a description of its
// warm-up; the DataLoader's fio peer with fio_openfiles and open_file_limit.
LoadedRun upgraded(const CaseRules& rules) {
  return edited_run("quick_vm", "quick_vm_upgraded", rules, [](RunData& run) {
    for (ResultRow& row : run.results) {
      if (row.benchmark == "mpi_allreduce_f32")
        row.params += ";machines=1;oversubscribed=no;tcp_if_include=lo;link=loopback";
      if (row.benchmark == "resnet50_train_step") row.params += ";warmup=one untimed step before the timed ones";
      if (row.benchmark == "dataloader_vs_fio") row.params += ";fio_openfiles=512;open_file_limit=1048576";
    }
  });
}
}  // namespace

TEST(Cases, RowsThatGainedObservedParamsOrADescriptionStillPair) {
  const CaseRules rules = read_case_rules();
  const LoadedRun a = load_run(kRuns + "quick_vm", rules), b = upgraded(rules);
  const std::vector<CaseFinding> fs =
      compare_sides(Side{a.label, {&a}}, Side{b.label, {&b}}, nullptr, rules, StatOptions{});
  std::map<std::string, int> paired;
  for (const CaseFinding& f : fs) {
    EXPECT_NE(f.flag, "only_in_base") << f.label << ": " << f.note;
    EXPECT_NE(f.flag, "only_in_run") << f.label << ": " << f.note;
    if (f.benchmark == "mpi_allreduce_f32") {
      ++paired[f.benchmark];
      EXPECT_NE(f.attributes.find("machines: (none) -> 1"), std::string::npos) << f.attributes;
      EXPECT_NE(f.attributes.find("link: (none) -> loopback"), std::string::npos) << f.attributes;
      EXPECT_EQ(f.method_change, "");
    }
    if (f.benchmark == "resnet50_train_step") {
      ++paired[f.benchmark];
      EXPECT_EQ(f.method_change, "warmup: (none) -> one untimed step before the timed ones");
    }
    if (f.benchmark == "dataloader_vs_fio") {
      ++paired[f.benchmark];
      EXPECT_NE(f.attributes.find("open_file_limit: (none) -> 1048576"), std::string::npos) << f.attributes;
    }
  }
  EXPECT_GE(paired["mpi_allreduce_f32"], 14);
  EXPECT_GE(paired["resnet50_train_step"], 1);
  EXPECT_GE(paired["dataloader_vs_fio"], 1);
  EXPECT_GE(count_findings(fs, 0.01).method_changes, 1);
}
