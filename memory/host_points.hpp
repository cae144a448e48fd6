// memory_host's points (host.cpp): which models and batches each profile measures, the points
// RIGCHECK_CAPACITY_CHECK / RIGCHECK_CAPACITY_PROBE add, and each point's params (the guide's formula
// and the zoo's analytic estimate beside it).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "rigcheck/harness/harness.hpp"
#include "rigcheck/models/zoo.hpp"

namespace rigcheck::mem::host {

// The depths a transformer's probes cut it to (rigcheck capacity extrapolates the peak in depth from
// them to all its layers): the whole model measured 0.8% under that at BERT-base b200 (seq 64),
// 0.0% and 4.4% under at BERT-large b40 (seq 128), 5.1% under at GPT-2 b150 (seq 64), against +7.9%,
// +24.1% and +11.1% over the analytic line (docs/performance.md "Depth probes").
constexpr std::array<int, 2> kProbeLayers = {1, 2};

struct Point {
  std::string model;
  int batch;
  int seq;                   // transformers
  bool check = false;        // a capacity check point (RIGCHECK_CAPACITY_CHECK, or batch 0: chosen when it runs)
  int width = 0, depth = 0;  // model "mlp": memory_train_step's MLP outside the zoo (the reference step rate)
  int layers = 0;            // a depth probe: the transformer cut to this many layers (batch 0: chosen when it runs)
  bool one_child = false;    // the quick profile: the check's child is the measurement (HostStep::run_timed)
};

// The points of a profile (the near-limit checks and depth probes with batch 0: chosen when they run).
std::vector<Point> points(Profile p);
// The points of RIGCHECK_CAPACITY_CHECK or RIGCHECK_CAPACITY_PROBE ("model:batch[:seq],...").
std::vector<Point> env_points(const char* var);
// The zoo's analytic training memory of `model` (SGD momentum, f32), cut to `layers` (0: all).
zoo::MemoryEstimate estimate_of(const std::string& model, int batch, int seq, int layers = 0);
Params point_params(const std::string& model, int batch, int seq, int threads);
Params probe_params(const Point& pt, int threads);
// The params of the reference MLP's point (model "mlp": width, depth, batch).
Params mlp_params(const Point& pt, int threads);

}  // namespace rigcheck::mem::host
