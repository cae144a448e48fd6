// Facts of a run's GPU that several evaluator files read (bench/claims/src only): the datasheet row
// of this GPU, and the largest observed value of a metric.
#pragma once
#include <string>
#include <vector>

#include "rigcheck/claims/claim.hpp"
#include "rigcheck/claims/gpu_datasheet.hpp"

namespace rigcheck::gpu_facts {

// data/datasheets.csv's GPU rows, read once.
const std::vector<GpuDatasheet>& sheets();
// A fact of the run (inventory and derived); empty when absent.
std::string fact(const RunData& run, const std::string& k);
std::string gpu_name(const RunData& run);
// "this GPU: NVIDIA H200 (datasheet row NVIDIA H200 SXM)" or "... (no datasheet row)".
const GpuDatasheet* this_gpu_sheet(const RunData& run, std::string& what);
// The largest value of one observed metric (rows with repetition -1) over a benchmark's cases.
Measured observed_max(const RunData& run, const std::string& bench, const std::string& metric,
                      std::string* note = nullptr);

}  // namespace rigcheck::gpu_facts
