// gpu_model_memory (GPU-1): device memory of one full training step (forward, loss, backward,
// optimizer step) of the model zoo's models (models/) at batch 16 on CUDA, fp32 and mixed
// precision (autocast bf16, fp16 before Ampere). Three figures per case: the peak allocated and
// peak reserved bytes of LibTorch's CUDA caching allocator, and the device memory in use as NVML
// reports it (the whole device: CUDA context included), sampled during the steps; the zoo's
// analytic estimate beside them. A model that does not fit is skipped with the reason and what
// was learnt (rows of status skipped, GPU-1 reads them): after a real out-of-memory error at
// batch 16, `oom_lower_bound_bytes`, the allocator's peak allocated when it ran out (measured: the
// step needs more); when the estimate alone is over 1.5x the device (not tried), `estimate_bytes`
// (predicted). `device_memory_bytes` beside both.
// Built against any LibTorch; without CUDA in it (Debian's CPU LibTorch) every case skips.
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#if RIGCHECK_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "rigcheck/models/train.hpp"
#include "rigcheck/models/zoo.hpp"
#include "power.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"

namespace rigcheck::gpu {
namespace {

constexpr int kBatch = 16;

struct Peak {
  double allocated = NAN, reserved = NAN;
};

#if RIGCHECK_TORCH_CUDA
void reset_peaks() {
  c10::cuda::CUDACachingAllocator::emptyCache();
  c10::cuda::CUDACachingAllocator::resetPeakStats(0);
}
Peak read_peaks() {
  auto s = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
  // Index 0 is StatType::AGGREGATE (every pool), in every LibTorch version.
  return {static_cast<double>(s.allocated_bytes[0].peak), static_cast<double>(s.reserved_bytes[0].peak)};
}
#endif

std::string why_no_cuda() {
#if !RIGCHECK_TORCH_CUDA
  return "this LibTorch was built without CUDA (e.g. Debian's CPU LibTorch): build against PyTorch's LibTorch "
         "(scripts/gpu-check.sh does)";
#else
  if (!torch::cuda::is_available()) return "LibTorch finds no CUDA device (torch::cuda::is_available() is false)";
  return "";
#endif
}

class TrainStep final : public Kernel {
 public:
  TrainStep(const zoo::ModelConfig& cfg, zoo::Precision prec) : cfg_(cfg), prec_(prec) {
    const std::string why = why_no_cuda();
    if (!why.empty()) throw Skip(why);
#if RIGCHECK_TORCH_CUDA
    nvml_ = std::make_unique<Nvml>();
    zoo::MemoryOptions mo;
    mo.optimizer = optimizer();
    mo.mixed_precision = prec != zoo::Precision::fp32;
    mo.activation_bytes = mo.mixed_precision ? 2 : 4;
    estimate_ = zoo::estimate_training_memory(cfg, kBatch, mo).total();
    // Mixed precision in bf16 needs Ampere (compute capability 8); fp16 before (NVML asked: no
    // CUDA runtime call from this file, LibTorch owns the runtime it ships).
    if (prec_ == zoo::Precision::amp_bf16 && nvml_->ok() && nvml_->cuda_cc_major() > 0 && nvml_->cuda_cc_major() < 8)
      prec_ = zoo::Precision::amp_fp16;
    // Far beyond the device by the estimate: skip before building the model (a GPT-2 XL
    // takes a while to initialise); near it, try, and let an out-of-memory error decide.
    const RawSample mem = nvml_->ok() ? nvml_->read() : RawSample{};
    if (mem.mem_ok) device_bytes_ = static_cast<double>(mem.mem_total);
    if (mem.mem_ok && estimate_ > 1.5 * device_bytes_)
      throw Skip(
          fmt::format("{} at batch {} ({}) does not fit: the estimate {:.1f} GB is over 1.5x the device's {:.1f} GB "
                      "(not tried)",
                      cfg.name, kBatch, zoo::to_string(prec_), estimate_ / 1e9, device_bytes_ / 1e9),
          memory_rows());
    reset_peaks();
    try {
      model_ = zoo::build_model(cfg, torch::kCUDA, torch::kFloat32, 1);
      batch_ = zoo::make_batch(cfg, kBatch, torch::kCUDA, 2);
      opt_ = zoo::make_optimizer(*model_, optimizer(), 1e-4);
    } catch (const c10::Error& e) {
      throw_if_oom(e);
      throw;
    }
#endif
  }

  CheckResult check() override {
    CheckResult r;
    // The first step's loss against its value at initialisation: the cross-entropy of random
    // labels over C classes is ln C when the initial logits are small (the published inits).
    const double classes = cfg_.arch == zoo::Arch::gpt2   ? cfg_.vocab_size
                           : cfg_.arch == zoo::Arch::bert ? cfg_.cls_labels
                                                          : cfg_.num_classes;
    const double expect = std::log(classes);
    double loss = NAN;
    try {
      loss = static_cast<double>(step().loss.item<float>());
    } catch (const c10::Error& e) {
      throw_if_oom(e);
      throw;
    }
    r.checked = 1;
    r.worst = std::fabs(loss - expect) / (0.25 * expect);
    r.wrong = std::isfinite(loss) && r.worst <= 1 ? 0 : 1;
    r.method =
        fmt::format("first step's loss {:.4f} vs ln(classes) = {:.4f} for random labels, within 25%", loss, expect);
#if RIGCHECK_TORCH_CUDA
    // Warm-up done (the first step allocates the optimizer state); peaks from here on.
    torch::cuda::synchronize();
    c10::cuda::CUDACachingAllocator::resetPeakStats(0);
    after_first_ = read_peaks();
    if (nvml_->ok()) sampler_ = std::make_unique<Sampler>(*nvml_, 10);
#endif
    return r;
  }

  void run() override {
    try {
      step();
      torch::cuda::synchronize();
    } catch (const c10::Error& e) {
      throw_if_oom(e);
      throw;
    }
  }
  // One step to the device's completion, by the wall clock (the host waits in synchronize).
  double run_timed() override {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  Params facts() const override {
    return {{"optimizer", zoo::to_string(optimizer())},
            {"autocast_used", zoo::to_string(prec_)},
            {"seq_len", std::to_string(cfg_.seq_len)},
            {"image_size",
             cfg_.arch == zoo::Arch::gpt2 || cfg_.arch == zoo::Arch::bert ? "-" : std::to_string(cfg_.image_size)}};
  }

  std::vector<Observed> observed() override {
    std::vector<Observed> out;
#if RIGCHECK_TORCH_CUDA
    torch::cuda::synchronize();
    Peak p = read_peaks();
    out.push_back({names::kPeakAllocatedBytes, "bytes", p.allocated,
                   "LibTorch CUDA caching allocator: peak allocated over the timed steps (after a first step)"});
    out.push_back({names::kPeakReservedBytes, "bytes", p.reserved,
                   "LibTorch CUDA caching allocator: peak reserved (allocated + cached) over the timed steps"});
    if (sampler_) {
      PowerSummary s = summarize(sampler_->stop());
      sampler_.reset();
      if (!std::isnan(s.mem_used_max_bytes))
        out.push_back(
            {names::kDeviceUsedBytes, "bytes", s.mem_used_max_bytes,
             fmt::format("NVML device memory in use, largest of {} samples (CUDA context and other processes included)",
                         s.samples)});
    }
    out.push_back(
        {"estimate_bytes", "bytes", estimate_,
         "the zoo's analytic estimate (weights + gradients + optimizer state + activations), not a measurement"});
#endif
    return out;
  }

 private:
  zoo::Optimizer optimizer() const {
    return cfg_.arch == zoo::Arch::bert || cfg_.arch == zoo::Arch::gpt2 ? zoo::Optimizer::adamw
                                                                        : zoo::Optimizer::sgd_momentum;
  }
  zoo::StepResult step() {
    zoo::StepOptions o;
    o.precision = prec_;
    return zoo::train_step(*model_, *opt_, batch_, o);
  }
  [[noreturn]] void throw_if_oom(const c10::Error& e) const {
    const std::string m = e.what();
    if (m.find("out of memory") != std::string::npos || m.find("OutOfMemory") != std::string::npos) {
      std::vector<Observed> rows;
#if RIGCHECK_TORCH_CUDA
      // The step held this much at once before it asked for more than the device could give.
      const Peak p = read_peaks();
      if (std::isfinite(p.allocated) && p.allocated > 0)
        rows.push_back(
            {"oom_lower_bound_bytes", "bytes", p.allocated,
             fmt::format("measured: CUDA out of memory at batch {} ({}); the caching allocator's peak allocated "
                         "when it failed: the step needs more than this",
                         kBatch, zoo::to_string(prec_))});
#endif
      for (auto& r : memory_rows()) rows.push_back(r);
      throw Skip(fmt::format("{} at batch {} ({}) does not fit in this GPU's memory (estimate {:.1f} GB): {}",
                             cfg_.name, kBatch, zoo::to_string(prec_), estimate_ / 1e9, m.substr(0, m.find('\n'))),
                 rows);
    }
    throw e;
  }
  // The estimate and the device's memory, the rows beside a case that does not fit.
  std::vector<Observed> memory_rows() const {
    std::vector<Observed> rows;
    if (std::isfinite(estimate_))
      rows.push_back({"estimate_bytes", "bytes", estimate_,
                      "predicted: the zoo's analytic estimate (weights + gradients + optimizer state + activations)"});
    if (std::isfinite(device_bytes_))
      rows.push_back({"device_memory_bytes", "bytes", device_bytes_, "NVML: the device's total memory"});
    return rows;
  }

  zoo::ModelConfig cfg_;
  zoo::Precision prec_;
  std::shared_ptr<zoo::ZooModel> model_;
  zoo::Batch batch_;
  std::unique_ptr<torch::optim::Optimizer> opt_;
  std::unique_ptr<Nvml> nvml_;
  std::unique_ptr<Sampler> sampler_;
  double estimate_ = NAN, device_bytes_ = NAN;
  Peak after_first_;
};

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_gpu_model_memory =
    declare_entry({"gpu_model_memory", "gpu", "", "", "", 120, 600, 3600,
                   "training-step device memory of the zoo's models at batch 16, fp32 and mixed precision (GPU-1)"});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row = declare_doc(
    {"",
     R"(the model zoo's training step on CUDA at batch 16, fp32 and mixed precision: allocator peak allocated
and reserved, NVML device memory in use)",
     "GPU-1"});

const bool memory = register_benchmark(
    {names::kModelMemory, "training-step device memory per zoo model at batch 16, fp32 and mixed precision (GPU-1)",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       std::vector<std::string> models = {"light_cnn", "resnet50", "bert_base", "gpt2_xl"};
       if (o.profile == Profile::tiny) models = {"light_cnn"};
       for (const std::string& name : models)
         for (zoo::Precision prec : {zoo::Precision::fp32, zoo::Precision::amp_bf16}) {
           const zoo::ModelConfig cfg = zoo::config_by_name(name);
           Case c;
           c.name = fmt::format("{}/{}/b{}", name, zoo::to_string(prec), kBatch);
           c.params = {{"model", name},
                       {"precision", prec == zoo::Precision::fp32 ? "fp32" : "amp"},
                       {"autocast", zoo::to_string(prec)},
                       {"batch", std::to_string(kBatch)}};
           c.work.flops = zoo::training_flops_per_step(cfg, kBatch);
           c.manual_time = true;        // a step and a device synchronisation, wall clock
           c.threads = o.usable_cores;  // LibTorch's CPU threads (model initialisation)
           c.make = [cfg, prec]() -> std::unique_ptr<Kernel> { return std::make_unique<TrainStep>(cfg, prec); };
           cs.push_back(std::move(c));
         }
       return cs;
     }});

}  // namespace
}  // namespace rigcheck::gpu
