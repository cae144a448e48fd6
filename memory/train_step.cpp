// memory_train_step: ONE process that runs CPU training steps of a model of the zoo and reports
// its peak resident memory (VmHWM). Started by memory_host, one process per point, so that each
// point's peak is its own. Not a benchmark binary of its own (no CSV): it prints key=value lines.
//
//   memory_train_step --model bert_large --batch 32 [--seq 128] [--steps 2] [--threads N]
//   memory_train_step --model mlp --width 4096 --depth 8 --batch 256   (not a zoo model: run_mlp)
//   memory_train_step --model bert_large --batch 40 --seq 128 --layers 2   (a depth probe: 2 of its 24 layers)
//
// Two steps by default: the first creates the optimizer state (SGD momentum), the second runs
// with it, so the peak holds weights + gradients + optimizer state + activations. The step is
// checked: the loss and every parameter are finite and the parameters changed.
#include <sys/prctl.h>
#include <sys/resource.h>
#include <csignal>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "rigcheck/models/train.hpp"

namespace {

long long status_bytes(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::string k = std::string(key) + ":";
  while (std::getline(f, line))
    if (line.rfind(k, 0) == 0) return std::atoll(line.c_str() + k.size()) * 1024;  // "VmHWM:  123 kB"
  return -1;
}

// Sum over every parameter, in double: changes when a step updates the weights.
double param_sum(torch::nn::Module& m, bool& finite) {
  double s = 0;
  finite = true;
  torch::NoGradGuard ng;
  for (const auto& p : m.parameters()) {
    s += p.to(torch::kDouble).sum().item<double>();
    finite = finite && torch::isfinite(p).all().item<bool>();
  }
  return s;
}

// The step's check as a key=value line: the loss and every parameter finite, the parameters
// changed by the steps. Returns the exit code (0 right, 1 wrong).
int print_check(double loss, bool finite, double before, double after) {
  std::string wrong;
  if (!std::isfinite(loss)) wrong += "loss not finite; ";
  if (!finite) wrong += "a parameter is not finite; ";
  if (!(before != after)) wrong += "the steps did not change the parameters; ";
  std::printf("check=%s\n", wrong.empty() ? "ok" : ("wrong: " + wrong).c_str());
  std::fflush(stdout);
  return wrong.empty() ? 0 : 1;
}

// --model mlp: a plain MLP that is NOT in the zoo, built only to check rigcheck capacity's
// user-model path (--model-csv: a model known by its shape alone) against a measured step.
// depth hidden layers Linear(width, width) + ReLU, then Linear(width, 10); input [batch, width].
// Prints its shape as the CSV wants it (shape_params, shape_activation_bytes_per_sample,
// shape_flops_per_sample): autograd keeps each Linear's input (the input, then each ReLU's
// output: (depth + 1) x width floats per sample) and the 10 log-softmax outputs; training flops
// = 3 x forward = 6 x the multiply-adds.
int run_mlp(int width, int depth, int batch, int steps) {
  std::printf("baseline_rss_bytes=%lld\n", status_bytes("VmRSS"));
  const auto t0 = std::chrono::steady_clock::now();
  torch::manual_seed(2);
  torch::nn::Sequential net;
  for (int i = 0; i < depth; ++i) {
    net->push_back(torch::nn::Linear(width, width));
    net->push_back(torch::nn::ReLU());
  }
  net->push_back(torch::nn::Linear(width, 10));
  const auto x = torch::randn({batch, width});
  const auto y = torch::randint(0, 10, {batch}, torch::kLong);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(1e-3).momentum(0.9));
  bool finite0 = false, finite1 = false;
  const double before = param_sum(*net, finite0);
  double loss = NAN, step_s = NAN;
  for (int s = 0; s < steps; ++s) {
    const auto ts = std::chrono::steady_clock::now();
    opt.zero_grad();
    auto l = torch::nn::functional::cross_entropy(net->forward(x), y);
    l.backward();
    opt.step();
    loss = l.item<double>();
    step_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count();
    std::printf("loss_step%d=%.6g\n", s, loss);
  }
  const long long hwm = status_bytes("VmHWM");
  const double after = param_sum(*net, finite1);
  long long params = 0;
  for (const auto& p : net->parameters()) params += p.numel();
  const double macs = static_cast<double>(depth) * width * width + 10.0 * width;
  std::printf("shape_params=%lld\nshape_activation_bytes_per_sample=%lld\nshape_flops_per_sample=%.0f\n", params,
              static_cast<long long>((depth + 1) * static_cast<long long>(width) * 4 + 10 * 4), 6 * macs);
  std::printf("step_seconds=%.6f\nparams=%lld\nseconds=%.3f\nvmhwm_bytes=%lld\n", step_s, params,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), hwm);
  return print_check(loss, finite0 && finite1, before, after);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"memory_train_step: peak resident memory of CPU training steps of one zoo model"};
  std::string model;
  int batch = 0, seq = 0, steps = 2;
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  app.add_option("--model", model, "zoo model name (light_cnn, resnet50, bert_base, bert_large, ...)")->required();
  app.add_option("--batch", batch, "batch size")->required()->check(CLI::PositiveNumber);
  app.add_option("--seq", seq, "sequence length (transformers; 0 = the model's default)");
  app.add_option("--steps", steps, "training steps")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "LibTorch intra-op threads")->check(CLI::PositiveNumber);
  int width = 1024, depth = 4;
  app.add_option("--width", width, "--model mlp: hidden width")->check(CLI::PositiveNumber);
  app.add_option("--depth", depth, "--model mlp: hidden layers")->check(CLI::PositiveNumber);
  int layers = 0;
  app.add_option("--layers", layers, "transformers: build only this many layers (0 = the model's own)")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  // Die with the parent (memory_host killed by the runner's timeout must not leave us running).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 3;

  try {
    torch::set_num_threads(threads);
    if (model == "mlp") return run_mlp(width, depth, batch, steps);
    rigcheck::zoo::ModelConfig cfg = rigcheck::zoo::config_by_name(model);
    if (layers > 0 && cfg.layers == 0)
      throw std::invalid_argument("--layers: " + model + " has no transformer layers to cut");
    if (layers > 0) cfg.layers = layers;  // a depth probe (memory_host): the same layers, fewer of them
    std::printf("baseline_rss_bytes=%lld\n", status_bytes("VmRSS"));
    auto t0 = std::chrono::steady_clock::now();
    auto m = rigcheck::zoo::build_model(cfg);
    auto b = rigcheck::zoo::make_batch(cfg, batch, torch::kCPU, 2, seq);
    auto opt = rigcheck::zoo::make_optimizer(*m, rigcheck::zoo::Optimizer::sgd_momentum, 1e-3);
    bool finite0 = false, finite1 = false;
    const double before = param_sum(*m, finite0);
    double loss = NAN, step_s = NAN;
    for (int s = 0; s < steps; ++s) {
      const auto ts = std::chrono::steady_clock::now();
      auto r = rigcheck::zoo::train_step(*m, *opt, b);
      loss = r.loss.item<double>();  // waits for the step
      step_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count();
      std::printf("loss_step%d=%.6g\n", s, loss);
    }
    const long long hwm = status_bytes("VmHWM");  // before the check allocates anything
    const double after = param_sum(*m, finite1);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // step_seconds: the last step alone (its optimizer state exists already): what rigcheck capacity
    // reads as the step time at this batch.
    std::printf("step_seconds=%.6f\n", step_s);
    std::printf("params=%lld\nthreads=%d\nseconds=%.3f\nvmhwm_bytes=%lld\n",
                static_cast<long long>(rigcheck::zoo::allocated_parameters(*m)), threads, secs, hwm);
    return print_check(loss, finite0 && finite1, before, after);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memory_train_step: %s\n", e.what());
    return 2;
  }
}
