// The CPUs a process may use (affinity, cgroup quota, thread caps from the environment), cache
// sizes from every source with implausible ones flagged, and the L3 working-set analysis.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rigcheck/tool/cache_model.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/inventory/inventory.hpp"
#include "rigcheck/harness/process.hpp"
#include "rigcheck/tool/report.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/topology.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;

namespace {
std::string fresh_dir(const std::string& name) {
  fs::path p = fs::path(::testing::TempDir()) / (name + "-" + std::to_string(getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}
void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}
}  // namespace

TEST(CpuBudget, CpuListsParseAndFormat) {
  EXPECT_EQ(parse_cpu_list_text("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_TRUE(parse_cpu_list_text("3-1").empty());
  EXPECT_TRUE(parse_cpu_list_text("x").empty());
}

TEST(CpuBudget, CgroupQuotaBothVersions) {
  EXPECT_DOUBLE_EQ(parse_cpu_max("150000 100000"), 1.5);
  EXPECT_LE(parse_cpu_max("max 100000"), 0);
  EXPECT_LE(parse_cpu_max("-1 100000"), 0);
  std::string d = fresh_dir("cgroup");
  // v2: the smallest quota on the way to the root counts.
  write(d + "/self_v2", "0::/a/b\n");
  write(d + "/root/a/b/cpu.max", "max 100000\n");
  write(d + "/root/a/cpu.max", "250000 100000\n");
  write(d + "/root/cpu.max", "max 100000\n");
  CgroupQuota q = cgroup_cpu_quota(d + "/self_v2", d + "/root");
  EXPECT_DOUBLE_EQ(q.cpus, 2.5);
  EXPECT_NE(q.text.find("2.50 CPUs"), std::string::npos) << q.text;
  // v1: cpu.cfs_quota_us / cpu.cfs_period_us under the cpu controller's mount.
  write(d + "/self_v1", "4:memory:/x\n3:cpu,cpuacct:/job\n");
  write(d + "/root1/cpu,cpuacct/job/cpu.cfs_quota_us", "100000\n");
  write(d + "/root1/cpu,cpuacct/job/cpu.cfs_period_us", "100000\n");
  EXPECT_DOUBLE_EQ(cgroup_cpu_quota(d + "/self_v1", d + "/root1").cpus, 1.0);
  // None anywhere.
  write(d + "/self_none", "0::/\n");
  EXPECT_LE(cgroup_cpu_quota(d + "/self_none", d + "/empty").cpus, 0);
}

TEST(CpuBudget, UsableCoresNeverExceedThePhysicalOnes) {
  CpuBudget b = cpu_budget();
  EXPECT_GE(b.usable_cores, 1);
  EXPECT_LE(b.usable_cores, physical_core_count());
  EXPECT_FALSE(b.allowed_cpus.empty());
}

// A case asking for more threads than this process may use is skipped with the reason, never run
// oversubscribed (seen: 2 threads on 1 allowed CPU passed as ok at cpu_utilization 0.5000).
TEST(CpuBudget, CasesBeyondTheAffinityMaskAreSkipped) {
  if (access("/usr/bin/taskset", X_OK) != 0) GTEST_SKIP() << "taskset (util-linux) is not installed";
  std::string dir = fresh_dir("fake-taskset");
  ChildResult r = run_child({"taskset", "-c", "0", RIGCHECK_FAKE_BENCH, "--profile", "tiny", "--out", dir, "--reps", "2"},
                            {"RIGCHECK_TEST_THREADS=2"}, 60, dir + "/log", false);
  ASSERT_EQ(r.exit_code, 77) << r.output_tail;  // every case skipped
  bool found = false;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv")) {
    EXPECT_NE(row.status, Status::ok) << row.case_name << " " << row.metric;
    if (row.case_name == "n4096") {
      found = true;
      EXPECT_EQ(row.status, Status::skipped);
      EXPECT_NE(row.note.find("needs 2 usable cores; this process may use 1"), std::string::npos) << row.note;
      EXPECT_NE(row.note.find("affinity 0 "), std::string::npos) << row.note;
    }
  }
  EXPECT_TRUE(found);
}

// Thread caps exported by the user (OMP_NUM_THREADS=1 on HPC login nodes) are cleared before any
// library sizes its pool; what was set is said.
TEST(CpuBudget, ThreadCapsFromTheEnvironmentAreCleared) {
  std::string dir = fresh_dir("fake-env");
  ChildResult r = run_child({RIGCHECK_FAKE_BENCH, "--profile", "tiny", "--out", dir, "--reps", "2"},
                            {"OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1"}, 60, dir + "/log", false);
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  EXPECT_NE(r.output_tail.find("cleared OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1"), std::string::npos) << r.output_tail;
}

TEST(Caches, ImplausibleL3IsFlaggedAndTheDatasheetNamesThePart) {
  auto ds = read_cpu_cache_datasheets(data_path("cpu_caches.csv"));
  // 508 MiB for one L3 instance of an AMD CPU (seen on a 2-vCPU Zen 5 VM: the host socket's total).
  EXPECT_NE(l3_implausible(508ull << 20, "AuthenticAMD", ds).find("implausible"), std::string::npos);
  EXPECT_EQ(l3_implausible(32ull << 20, "AuthenticAMD", ds), "");
  EXPECT_EQ(l3_implausible(96ull << 20, "AuthenticAMD", ds), "");  // 3D V-Cache parts
  const CpuCacheDatasheet* zen5 = cpu_cache_datasheet("AuthenticAMD", 26, 2, ds);
  ASSERT_NE(zen5, nullptr);
  EXPECT_EQ(zen5->l3_instance_bytes, 32ull << 20);
  EXPECT_FALSE(zen5->source.empty());
  const CpuCacheDatasheet* zen3 = cpu_cache_datasheet("AuthenticAMD", 25, 1, ds);
  ASSERT_NE(zen3, nullptr);
  EXPECT_EQ(zen3->l3_instance_bytes, 32ull << 20);
  EXPECT_EQ(cpu_cache_datasheet("AuthenticAMD", 99, 1, ds), nullptr);
}

TEST(Caches, InventoryNamesTheSourceOfEveryCacheLevel) {
  Inventory inv = collect_cache_inventory();
  for (const char* level : {"l1d", "l2", "l3"}) {
    std::string src = inventory_get(inv, std::string("cache_") + level + "_source");
    EXPECT_FALSE(src.empty()) << level;
    std::string bytes = inventory_get(inv, std::string("cache_") + level + "_bytes");
    if (src != "none") {
      EXPECT_GT(std::atof(bytes.c_str()), 0) << level << ": " << bytes;
    }
  }
  EXPECT_FALSE(inventory_get(inv, "cache_l3_candidates").empty());
}

namespace {
// A curve with a cache plateau at `fast` up to `knee` bytes and a memory plateau at `slow` beyond.
std::vector<CurvePoint> step_curve(double knee, double fast, double slow) {
  std::vector<CurvePoint> c;
  for (double mib : {1, 2, 4, 6, 8, 12, 16, 24, 32, 64, 128, 256}) {
    double b = mib * 1048576, r = b <= knee ? fast : slow;
    c.push_back({b, r, 0.95 * r, 1.05 * r});
  }
  return c;
}
}  // namespace

TEST(CacheModel, KneeOfAStepCurve) {
  Knee k = find_knee(step_curve(8 * 1048576.0, 40, 10));
  ASSERT_TRUE(k.found) << k.why;
  EXPECT_DOUBLE_EQ(k.below, 8 * 1048576.0);
  EXPECT_DOUBLE_EQ(k.above, 12 * 1048576.0);
  EXPECT_DOUBLE_EQ(k.memory_rate, 10);
  EXPECT_DOUBLE_EQ(k.cache_rate, 40);
}

TEST(CacheModel, NoKneeWithoutACacheEffectOrPastTheCurve) {
  EXPECT_FALSE(find_knee(step_curve(8 * 1048576.0, 12, 10)).found);  // 1.2x: within noise of memory
  auto c = step_curve(128 * 1048576.0, 40, 10);                        // knee at the curve's end
  EXPECT_FALSE(find_knee(c).found);
  EXPECT_FALSE(find_knee({{1, 1, 1, 1}, {2, 1, 1, 1}}).found);
}

TEST(CacheModel, LogLogInterpolation) {
  std::vector<CurvePoint> c = {{1, 100, 90, 110}, {4, 25, 20, 30}};
  bool in = false;
  EXPECT_NEAR(curve_rate(c, 2, 0, in), 50, 1e-9);  // power law between the points
  EXPECT_TRUE(in);
  EXPECT_NEAR(curve_rate(c, 8, 0, in), 25, 1e-9);
  EXPECT_FALSE(in);
}

TEST(CacheModel, EmulatedGainScalesTheWorkingSet) {
  // Effective cache 8 MiB; a 24 MiB layer misses a 16 MiB cache (24 * 8/16 = 12 MiB on the curve,
  // memory) and fits a 32 MiB one (24 * 8/32 = 6 MiB, cache): 40/10 - 1 = +300%.
  auto c = step_curve(8 * 1048576.0, 40, 10);
  EmulatedGain g = emulate_cache_gain(c, 24 * 1048576.0, 8 * 1048576.0, 16 * 1048576.0, 32 * 1048576.0, 0, 0);
  EXPECT_TRUE(g.in_range);
  EXPECT_NEAR(g.gain, 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(g.w_small, 12 * 1048576.0);
  // A 128 MiB layer misses both: no gain.
  EXPECT_NEAR(emulate_cache_gain(c, 128 * 1048576.0, 8 * 1048576.0, 16 * 1048576.0, 32 * 1048576.0, 0, 0).gain, 0, 1e-9);
}

// OMP_PROC_BIND binds the initial thread to one place before main: its own affinity mask then
// shows one core, and a 2-thread case was once skipped as "this process may use 1" on 2 cores.
// The harness takes the CPUs of all OpenMP places instead.
TEST(CpuBudget, OpenMpBindingDoesNotShrinkTheBudget) {
  if (cpu_budget().usable_cores < 2) GTEST_SKIP() << "needs 2 usable cores";
  std::string dir = fresh_dir("fake-bind");
  ChildResult r = run_child({RIGCHECK_FAKE_BENCH, "--profile", "tiny", "--out", dir, "--reps", "2"},
                            {"RIGCHECK_TEST_THREADS=2", "OMP_PROC_BIND=close", "OMP_PLACES=cores"}, 60, dir + "/log", false);
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv"))
    if (row.case_name == "n4096") {
      EXPECT_NE(row.status, Status::skipped) << row.note;
    }
}
