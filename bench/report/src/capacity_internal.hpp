// Helpers the files of the capacity answer share (capacity.cpp, capacity_zoo.cpp): not part of the
// tool's interface.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "rigcheck/harness/stats.hpp"
#include "rigcheck/harness/units.hpp"
#include "rigcheck/models/zoo.hpp"
#include "rigcheck/report/capacity.hpp"

namespace rigcheck::capacity_detail {

// The machine's measured figures, at the step's thread count.
struct Machine {
  std::map<int, double> peak;  // threads -> f32 FMA peak GFLOP/s (best ISA, median)
  double bw = kNaN;            // GB/s
  std::string bw_text;
  double input = kNaN;  // samples/s the DataLoader pipeline delivered
  std::string input_text;
  // all-reduce: size bytes -> median seconds
  std::map<double, double> allreduce;
  int ranks = 0;
  double baseline_rss = kNaN;  // LibTorch loaded, no model
  double gemm = kNaN;          // best f32 GEMM GFLOP/s at the step's threads
  std::string gemm_text;
  double resnet_faults = kNaN;  // cpu_resnet's minor page faults per ResNet-50 step at the step's threads
  std::string resnet_faults_text;
  std::string resnet_faults_batch;  // the batch of the rows counted
  FirstTouchCost first_touch;       // memory_thp's cost of a 4 KiB page first touched
};
double peak_at(const Machine& m, int threads);
Machine machine_of(const RunData& run, int threads);
// The figures of one step of `batch` samples that took step_s; flops and bytes of that step.
void fill_limits(ModelCapacity& mc, const Machine& m, double flops, double bytes, double step_s, int batch);
// Zoo analytic memory (SGD momentum, fp32, as memory_host measures).
double zoo_estimate(const zoo::ModelConfig& cfg, int batch, int seq);
// The answer of a model whose memory line is known (measured fit or estimate): limit and words.
void limit_of(ModelCapacity& mc);
// One zoo model's answer from the run's memory_host points (capacity_zoo.cpp).
ModelCapacity zoo_model(const RunData& run, const zoo::ModelConfig& cfg, const Machine& machine_any, double usable,
                        const CapacityOptions& opt);

}  // namespace rigcheck::capacity_detail
