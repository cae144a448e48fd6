// The GPU rows of data/datasheets.csv, by product, and the lookup of the product a CUDA
// device name belongs to (the product's `name_match` row: patterns separated by '|', each a
// case-insensitive substring of the device name, or with a trailing '$' its case-insensitive end).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "rigcheck/runfolder/registries.hpp"
#include "rigcheck/runfolder/run_query.hpp"

namespace rigcheck {

struct GpuDatasheet {
  std::string product;
  std::map<std::string, DatasheetRow> props;  // property -> row
  bool has(const std::string& prop) const { return props.count(prop) > 0; }
  // The property as a number; NaN when absent or not a number.
  double num(const std::string& prop) const;
  // "989.5 (NVIDIA H200 datasheet, ...)" for evidence.
  std::string cite(const std::string& prop) const;
};

// Products that have a name_match row, in file order.
std::vector<GpuDatasheet> gpu_datasheets(const std::vector<DatasheetRow>& rows);
bool gpu_name_matches(const std::string& patterns, const std::string& device_name);
// The product whose pattern matches the device name (the longest matching pattern wins); nullptr if none.
const GpuDatasheet* find_gpu_datasheet(const std::vector<GpuDatasheet>& sheets, const std::string& device_name);
const GpuDatasheet* find_gpu_product(const std::vector<GpuDatasheet>& sheets, const std::string& product);

}  // namespace rigcheck
