// bench/harness/src/topology.cpp: the CPUs a process may use (CPU lists, affinity, cgroup quota, OpenMP
// places) and what the harness does with them through the test benchmark (fake_bench): cases
// beyond the budget skipped, thread caps from the environment cleared.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "rigcheck/harness/process.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/topology.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
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
  std::vector<std::string> cmd = {"taskset", "-c", "0"};
  for (const std::string& a : rigcheck::test::fake_bench_cmd({"--profile", "tiny", "--out", dir, "--reps", "2"}))
    cmd.push_back(a);
  ChildResult r = run_child(cmd, {"RIGCHECK_TEST_THREADS=2"}, 60, dir + "/log", false);
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
  ChildResult r = run_child(rigcheck::test::fake_bench_cmd({"--profile", "tiny", "--out", dir, "--reps", "2"}),
                            {"OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1"}, 60, dir + "/log", false);
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  EXPECT_NE(r.output_tail.find("cleared OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1"), std::string::npos) << r.output_tail;
}

// OMP_PROC_BIND binds the initial thread to one place before main: its own affinity mask then
// shows one core, and a 2-thread case was once skipped as "this process may use 1" on 2 cores.
// The harness takes the CPUs of all OpenMP places instead.
TEST(CpuBudget, OpenMpBindingDoesNotShrinkTheBudget) {
  if (cpu_budget().usable_cores < 2) GTEST_SKIP() << "needs 2 usable cores";
  std::string dir = fresh_dir("fake-bind");
  ChildResult r =
      run_child(rigcheck::test::fake_bench_cmd({"--profile", "tiny", "--out", dir, "--reps", "2"}),
                {"RIGCHECK_TEST_THREADS=2", "OMP_PROC_BIND=close", "OMP_PLACES=cores"}, 60, dir + "/log", false);
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv"))
    if (row.case_name == "n4096") {
      EXPECT_NE(row.status, Status::skipped) << row.note;
    }
}

// The memory limit a job lives under, with what its cgroup uses now (memory_host's headroom is the
// limit less that): v2 memory.max and memory.current, v1 memory.limit_in_bytes and usage_in_bytes.
TEST(CpuBudget, CgroupMemoryLimitAndUseBothVersions) {
  std::string d = fresh_dir("cgroup-mem");
  write(d + "/self_v2", "0::/job\n");
  write(d + "/root/job/memory.max", "3221225472\n");
  write(d + "/root/job/memory.current", "1073741824\n");
  CgroupMemoryLimit m = cgroup_memory_limit(d + "/self_v2", d + "/root");
  EXPECT_EQ(m.bytes, 3221225472u);
  EXPECT_EQ(m.used, 1073741824u);
  EXPECT_NE(m.text.find("memory.max"), std::string::npos) << m.text;
  write(d + "/self_v1", "4:memory:/job\n");
  write(d + "/root1/memory/job/memory.limit_in_bytes", "2147483648\n");
  write(d + "/root1/memory/job/memory.usage_in_bytes", "536870912\n");
  m = cgroup_memory_limit(d + "/self_v1", d + "/root1");
  EXPECT_EQ(m.bytes, 2147483648u);
  EXPECT_EQ(m.used, 536870912u);
  write(d + "/self_none", "0::/\n");
  EXPECT_EQ(cgroup_memory_limit(d + "/self_none", d + "/empty").bytes, 0u);
}
