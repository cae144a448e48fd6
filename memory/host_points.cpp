// memory_host's points: host_points.hpp.
#include "host_points.hpp"

#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

namespace rigcheck::mem::host {

// RIGCHECK_CAPACITY_CHECK="model:batch[:seq],...": extra points near the limit `rigcheck capacity`
// predicted, chosen by the caller with a safety margin (docs/performance.md). Each is still checked
// against MemAvailable first: skipped unless 1.1 x the analytic estimate + 2 GiB is free.
// RIGCHECK_CAPACITY_PROBE, the same form: depth probes of a transformer at that batch (kProbeLayers
// of its layers, one child each), which rigcheck capacity draws the line through.
std::vector<Point> env_points(const char* var) {
  std::vector<Point> v;
  const char* env = std::getenv(var);
  if (!env) return v;
  const bool probe = std::string(var) == "RIGCHECK_CAPACITY_PROBE";
  std::string s = env;
  for (size_t b = 0, e; b < s.size(); b = e + 1) {
    e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    const std::string item = s.substr(b, e - b);
    const size_t c1 = item.find(':'), c2 = item.find(':', c1 == std::string::npos ? c1 : c1 + 1);
    if (c1 == std::string::npos)
      throw std::invalid_argument(fmt::format("{}: '{}' is not model:batch[:seq]", var, item));
    Point p{item.substr(0, c1), std::atoi(item.substr(c1 + 1, c2 - c1 - 1).c_str()),
            c2 == std::string::npos ? 0 : std::atoi(item.substr(c2 + 1).c_str()), !probe};
    if (p.batch < 1) throw std::invalid_argument(fmt::format("{}: '{}' has no batch >= 1", var, item));
    if (!probe)
      v.push_back(p);
    else if (zoo::config_by_name(p.model).layers < 2)
      throw std::invalid_argument(fmt::format("{}: '{}': only a transformer's layers can be probed", var, item));
    else
      for (int l : kProbeLayers) p.layers = l, v.push_back(p);
  }
  return v;
}

// A plain MLP outside the zoo (memory_train_step --model mlp): its step's achieved GFLOP/s (a
// gflops row) is the rate rigcheck capacity estimates a dense user model's step at, measured in
// the same run, since LibTorch's training step does not reach the best GEMM's rate (the 2048 x 8
// MLP at b4096 ran at about a seventh of it: docs/performance.md "capacity"). 9.4 M parameters,
// 87 GFLOP per step: a child of a few seconds.
const Point kReferenceMlp{"mlp", 1536, 0, false, 1536, 4};

std::vector<Point> points(Profile p) {
  switch (p) {
    case Profile::tiny: return {{"light_cnn", 2, 0}};
    // Quick: ONE batch of every zoo model that fits, one child process each (its check's:
    // HostStep::run_timed). rigcheck capacity draws its line through the largest measured batch at
    // the zoo's analytic activations per sample whether one batch or two were measured. light_cnn at
    // b16, not b32 (its child 8.9 s against 16.4; the largest batch that fits: 662 against 665). The
    // transformers stay at b16: at b8 their children saved only 2-4 s each (most of a child is the
    // first touch of its weights and optimizer state) and capacity's samples/s at the limit, taken
    // from the measured step, fell by a third (docs/performance.md).
    // BERT-large and GPT-2 XL only in full (GPT-2 XL never fits in 24 GiB: skipped by the free-memory
    // check). Then the reference MLP (kReferenceMlp): the GFLOP/s LibTorch's training step reaches here.
    case Profile::quick:
      return {{"light_cnn", 16, 0}, {"resnet50", 8, 0}, {"bert_base", 16, 64}, {"gpt2", 16, 64}, kReferenceMlp};
    case Profile::full: break;
  }
  // Full: two batches per model, a factor 4 apart, at seq 128 for the transformers, then a near-limit
  // check per model (one child, kChildBudgetS). Budgeted for a 60-minute full profile on 2
  // vCPUs: the old 16/32/64, 8/16/32 (BERT-large to b32: 723 s of its 1312 s), 2/4/8 sets took
  // 1312 s; these took about 460 s of children there with two each, 229 s with one each (the check's
  // child is the measurement, as in quick, to fit the 30-minute full profile).
  std::vector<Point> v;
  for (int b : {8, 32}) v.push_back({"light_cnn", b, 0});
  for (int b : {4, 16}) v.push_back({"resnet50", b, 0});
  for (int b : {4, 16}) v.push_back({"bert_base", b, 128});
  for (int b : {2, 8}) v.push_back({"bert_large", b, 128});
  for (int b : {2, 8}) v.push_back({"gpt2", b, 128});
  v.push_back({"gpt2_xl", 1, 128});
  v.push_back(kReferenceMlp);
  // Depth probes of each transformer (kProbeLayers, one child each), then a near-limit check per
  // model, their batches chosen when they run from the points above (batch 0). A transformer's peak
  // near its limit is not the analytic line's: glibc keeps freed tensors of under 32 MiB resident,
  // BERT-large b40 at seq 128 measured +24% over it; the model cut to one and two of its layers at
  // that batch shows the allocator's real cost per layer in a sixth of the time.
  for (const char* m : {"bert_base", "bert_large", "gpt2"})
    for (int l : kProbeLayers) v.push_back({m, 0, 128, false, 0, 0, l});
  for (const char* m : {"light_cnn", "resnet50"}) v.push_back({m, 0, 0, true});
  for (const char* m : {"bert_base", "bert_large", "gpt2"}) v.push_back({m, 0, 128, true});
  return v;
}

zoo::MemoryEstimate estimate_of(const std::string& model, int batch, int seq, int layers) {
  zoo::MemoryOptions mo;
  mo.optimizer = zoo::Optimizer::sgd_momentum;
  mo.seq_len = seq;
  zoo::ModelConfig cfg = zoo::config_by_name(model);
  if (layers > 0) cfg.layers = layers;
  return zoo::estimate_training_memory(cfg, batch, mo);
}

// A point's params: batch "auto" (a near-limit check not yet run) leaves out the guide's formula
// and the estimate, which each child's rows (write_child_rows) carry at the batch chosen (MEM-1 reads them).
Params point_params(const std::string& model, int batch, int seq, int threads) {
  const zoo::ParamCounts pc = zoo::count_parameters(zoo::config_by_name(model));
  Params p = {{"model", model},
              {"batch", batch ? std::to_string(batch) : "auto"},
              {"seq", std::to_string(seq)},
              {"dtype", "f32"},
              {"optimizer", "sgd_momentum"},
              {"steps", "2"},
              {"threads", std::to_string(threads)},
              {"params_model", std::to_string(pc.model)},
              {"params_total", std::to_string(pc.total())}};
  if (batch == 0) return p;
  const zoo::MemoryEstimate est = estimate_of(model, batch, seq);
  const double formula_term = static_cast<double>(pc.model) * 4.0 * batch;
  Params more = {{"guide_formula_bytes", fmt::format("{:.0f}", formula_term + 8e9)},
                 {"guide_formula_process_bytes", fmt::format("{:.0f}", formula_term)},
                 {"estimate_bytes", fmt::format("{:.0f}", est.total())},
                 {"estimate_weights_bytes", fmt::format("{:.0f}", est.weights)},
                 {"estimate_gradients_bytes", fmt::format("{:.0f}", est.gradients)},
                 {"estimate_optimizer_bytes", fmt::format("{:.0f}", est.optimizer_state)},
                 {"estimate_activations_bytes", fmt::format("{:.0f}", est.activations)}};
  p.insert(p.end(), more.begin(), more.end());
  return p;
}

// A depth probe's params: the model cut to `layers` of its `model_layers`; no guide formula or
// estimate (MEM-1 reads neither: it is not the model), one child process.
Params probe_params(const Point& pt, int threads) {
  return {{"model", pt.model},
          {"batch", pt.batch ? std::to_string(pt.batch) : "auto"},
          {"seq", std::to_string(pt.seq)},
          {"layers", std::to_string(pt.layers)},
          {"model_layers", std::to_string(zoo::config_by_name(pt.model).layers)},
          {"dtype", "f32"},
          {"optimizer", "sgd_momentum"},
          {"steps", "2"},
          {"threads", std::to_string(threads)},
          {"child_processes", "1"}};
}

Params mlp_params(const Point& pt, int threads) {
  return {{"model", "mlp"},
          {"width", std::to_string(pt.width)},
          {"depth", std::to_string(pt.depth)},
          {"batch", std::to_string(pt.batch)},
          {"seq", "0"},
          {"dtype", "f32"},
          {"optimizer", "sgd_momentum"},
          {"steps", "2"},
          {"threads", std::to_string(threads)}};
}

}  // namespace rigcheck::mem::host
