// bench/rigcheck/src/runner.cpp: fresh run folders, salvaging a cut-short CSV, and finishing the manifest
// of a runner that died (pieces under tests/bench/rigcheck/faults.sh); the local launcher's rank count.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/topology.hpp"
#include "rigcheck/report/report.hpp"
#include "rigcheck/runfolder/runlock.hpp"
#include "rigcheck/run/runner.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
// A valid result row of benchmark b, case c: 1.5 GFLOP/s at repetition 0.
ResultRow gflops_row() { return result_row("b", "c", "", "gflops", 1.5, "GFLOP/s", 0); }
}  // namespace

TEST(Runner, RunFoldersAreNeverReused) {
  std::string root = fresh_dir("runs");
  std::string a = create_run_dir(root, "host", "20260101T000000Z");
  std::string b = create_run_dir(root, "host", "20260101T000000Z");
  EXPECT_NE(a, b);
  EXPECT_TRUE(fs::is_directory(a));
  EXPECT_TRUE(fs::is_directory(b));
}

TEST(Runner, SalvageKeepsTheCompleteRowsOfACutShortFile) {
  std::string dir = fresh_dir("salvage");
  const ResultRow r = gflops_row();
  std::ofstream(dir + "/x.csv.partial") << result_header() << "\n"
                                        << format_result_row(r) << "\n"
                                        << format_result_row(r) << "\n1,torn,ro";
  EXPECT_EQ(salvage_partial(dir + "/x.csv"), 2);
  EXPECT_EQ(read_results(dir + "/x.csv").size(), 2u);
  EXPECT_FALSE(fs::exists(dir + "/x.csv.partial"));
  EXPECT_EQ(salvage_partial(dir + "/x.csv"), -1);  // nothing left to salvage
}

TEST(Runner, SalvageNeverReplacesAResultAndDropsAHeaderOnlyPartial) {
  std::string dir = fresh_dir("salvage2");
  std::ofstream(dir + "/x.csv") << "kept\n";
  std::ofstream(dir + "/x.csv.partial") << result_header() << "\n";
  EXPECT_EQ(salvage_partial(dir + "/x.csv"), -1);
  EXPECT_EQ(slurp(dir + "/x.csv"), "kept\n");
  EXPECT_TRUE(fs::exists(dir + "/x.csv.partial"));  // not ours to decide while x.csv exists
  std::ofstream(dir + "/y.csv.partial") << result_header() << "\nhalf a r";
  EXPECT_EQ(salvage_partial(dir + "/y.csv"), -1);  // no complete row: nothing measured to keep
  EXPECT_FALSE(fs::exists(dir + "/y.csv"));
  EXPECT_FALSE(fs::exists(dir + "/y.csv.partial"));
}

TEST(Faults, ReportFinishesTheManifestOfADeadRunnerOnly) {
  std::string dir = fresh_dir("recover");
  std::vector<ManifestRow> m(3);
  m[0] = {"a", "cpu", "a", 0, "ok", 1, "a.csv", "", -1, ""};
  m[1] = {"b", "cpu", "b", 0, "running", 0, "b.csv", "started", -1, ""};
  m[2] = {"c", "cpu", "c", 0, "pending", 0, "", "not started yet", -1, ""};
  write_file_atomic(dir + "/manifest.csv", format_manifest(m));
  const ResultRow r = gflops_row();
  std::ofstream(dir + "/b.csv.partial") << result_header() << "\n" << format_result_row(r) << "\nhalf";
  {
    ::setenv("RIGCHECK_LOCK_DIR", (dir + "/machine").c_str(), 1);
    RunLock alive(dir);  // a live runner: nothing is touched
    EXPECT_NE(recover_dead_run(dir).find("still in progress"), std::string::npos);
    EXPECT_EQ(read_manifest(dir + "/manifest.csv")[1].status, "running");
    EXPECT_TRUE(fs::exists(dir + "/b.csv.partial"));
  }
  std::ofstream(dir + "/.runner.lock") << "1\n";  // as a SIGKILLed runner leaves it: nobody holds it
  EXPECT_NE(recover_dead_run(dir).find("died"), std::string::npos);
  auto after = read_manifest(dir + "/manifest.csv");
  EXPECT_EQ(after[0].status, "ok");
  EXPECT_EQ(after[1].status, "interrupted");
  EXPECT_NE(after[1].reason.find("kept the 1 rows"), std::string::npos);
  EXPECT_EQ(after[2].status, "not_run");
  EXPECT_EQ(read_results(dir + "/b.csv").size(), 1u);
  EXPECT_EQ(recover_dead_run(dir), "");  // done once
  ::unsetenv("RIGCHECK_LOCK_DIR");
}

// `rigcheck list` prints every entry of the real registry with its description, and a profile
// that leaves a benchmark out (timeout 0) as "-", not as a timeout of 0 s.
TEST(Runner, ListShowsEveryRegistryEntryAndItsProfiles) {
  std::vector<BenchmarkEntry> all = read_benchmark_registry(RIGCHECK_TEST_DATA_DIR + "/benchmarks.csv");
  ASSERT_GT(all.size(), 10u);
  const std::string out = format_benchmark_list(all);
  for (const BenchmarkEntry& b : all) {
    EXPECT_NE(out.find(b.name), std::string::npos) << b.name;
    EXPECT_FALSE(b.description.empty()) << b.name << " has no description in the registry";
    EXPECT_NE(out.find(b.description), std::string::npos) << b.name;
  }
  BenchmarkEntry only_full{"x_full_only", "cpu", "x", "", "", "", 0, 0, 600, "only in full"};
  const std::string line = format_benchmark_list({only_full});
  EXPECT_NE(line.find("x_full_only  cpu         -     -   600  only in full"), std::string::npos) << line;
  EXPECT_EQ(only_full.timeout_s(Profile::quick), 0);
  EXPECT_EQ(only_full.timeout_s(Profile::full), 600);
}

// The local default launcher's ranks follow the cores this process may use, within 2..8; more ranks
// than cores (one usable core) only with --oversubscribe, which Open MPI needs to start them.
TEST(Launcher, LocalRanksFollowTheUsableCores) {
  EXPECT_EQ(local_launcher(1, false), "mpirun -np 2 --oversubscribe");
  EXPECT_EQ(local_launcher(2, false), "mpirun -np 2");
  EXPECT_EQ(local_launcher(6, true), "mpirun -np 6 --allow-run-as-root");
  EXPECT_EQ(local_launcher(16, false), "mpirun -np 8");
  EXPECT_EQ(local_rank_count(64), kMaxLocalRanks);
  if (!std::getenv("SLURM_JOB_ID")) {
    EXPECT_EQ(default_launcher(), local_launcher(cpu_budget().usable_cores, ::geteuid() == 0));
  }
}
