// inventory/: the inventory has the keys the report needs and round-trips through its CSV; cache
// sizes from every source, implausible ones flagged, the datasheet naming the part.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/inventory/inventory.hpp"

using namespace rigcheck;

TEST(Inventory, HasTheKeysTheReportNeedsAndRoundTrips) {
  Inventory inv = collect_inventory();
  for (const char* key : {"cpu_model",          "cpu_family",       "physical_cores",
                          "hardware_threads",   "cache_l3_bytes",   "cache_l3_total_bytes",
                          "isa_avx2",           "isa_avx512f",      "isa_amx",
                          "memory_total_bytes", "memory_dimm_type", "thp_enabled",
                          "cpufreq_governor",   "kernel",           "compiler",
                          "build_type",         "onednn_version",   "openblas_corename",
                          "gpu_count",          "suite_commit",     "method_version"}) {
    EXPECT_FALSE(inventory_get(inv, key).empty()) << key;
  }
  double cores = 0;
  ASSERT_TRUE(parse_double(inventory_get(inv, "physical_cores"), cores));
  EXPECT_GE(cores, 1);
  std::string gpus = inventory_get(inv, "gpu_count");
  EXPECT_TRUE(parse_double(gpus, cores)) << "gpu_count must be a number even without a driver: " << gpus;
  std::string p = ::testing::TempDir() + "/inventory-rt.csv";
  write_inventory_csv(inv, p);
  auto back = read_key_value_csv(p, "key", "value");
  ASSERT_EQ(back.size(), inv.size());
  for (size_t i = 0; i < inv.size(); ++i) EXPECT_EQ(back[i], inv[i]);
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

// The architecture the binaries run and whether emulated (native, or the arm64 build under
// qemu-user), and the Arm CPU
// table (data/arm_cpus.csv) that names an aarch64 machine's MIDR implementer and part.
TEST(Inventory, ArchitectureAndArmCpuTable) {
  Inventory inv = collect_inventory();
  if (inventory_get(inv, "cpu_arch") == inventory_get(inv, "kernel_arch")) {
    EXPECT_EQ(inventory_get(inv, "emulated"), "no");
  } else {  // the aarch64 build's tests under qemu-user
    EXPECT_EQ(inventory_get(inv, "emulated").rfind("yes: ", 0), 0u) << inventory_get(inv, "emulated");
  }
  const std::vector<ArmCpu> table = read_arm_cpus(data_path("arm_cpus.csv"));
  const ArmCpu* grace = arm_cpu("0x41", "0xd4f", table);
  ASSERT_NE(grace, nullptr);
  EXPECT_NE(grace->name.find("Neoverse-V2"), std::string::npos) << grace->name;
  EXPECT_NE(grace->source.find("cputype.h"), std::string::npos) << grace->source;
  const ArmCpu* upper = arm_cpu("0x41", "0xD40", table);  // the kernel writes lower case; either matches
  ASSERT_NE(upper, nullptr);
  EXPECT_NE(upper->name.find("Neoverse-V1"), std::string::npos);
  EXPECT_NE(arm_cpu("0xc0", "0xac3", table), nullptr);  // AmpereOne
  EXPECT_EQ(arm_cpu("0x00", "0x051", table), nullptr);  // qemu -cpu max: implementer 0, no CPU of a vendor
  for (const ArmCpu& a : table) EXPECT_FALSE(a.source.empty()) << a.name;
}
