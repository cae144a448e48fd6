// inventory/: the inventory has the keys the report needs and round-trips through its CSV; cache
// sizes from every source, implausible ones flagged, the datasheet naming the part.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/inventory/inventory.hpp"

using namespace rigcheck;

TEST(Inventory, HasTheKeysTheReportNeedsAndRoundTrips) {
  Inventory inv = collect_inventory();
  for (const char* key : {"cpu_model", "cpu_family", "physical_cores", "hardware_threads", "cache_l3_bytes",
                          "cache_l3_total_bytes", "isa_avx2", "isa_avx512f", "isa_amx", "memory_total_bytes",
                          "memory_dimm_type", "thp_enabled", "cpufreq_governor", "kernel", "compiler", "build_type",
                          "onednn_version", "openblas_corename", "gpu_count", "suite_commit", "method_version"}) {
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
