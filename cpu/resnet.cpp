// cpu_resnet: ResNet-50 on the CPU through the model zoo's shared training step (models/).
//
// resnet50_train_step (CPU-1, CPU-2): one training step (forward, cross-entropy, backward, SGD
//   with momentum) of ResNet-50, batch 16 at 224x224, at 1..usable cores threads; images/s per
//   repetition (one repetition = one step, Google Benchmark times at least one). The thread counts'
//   repetitions alternate (1, 2, 1, 2... threads; Case::interleave), each its own model.
// resnet50_isa (CPU-5, second evidence): ResNet-50 inference (eval mode, batch 16) and one
//   training step at all cores. `rigcheck run` runs it twice, each in its own process: with
//   ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 (cpu_resnet_isa_avx2) and without a cap
//   (cpu_resnet_isa_native). Every row records what actually ran: ATen's CPU capability (from
//   at::show_config()) and the oneDNN implementations torch executed (oneDNN's verbose trace of
//   one forward pass, captured in-process).
//
// The check before timing (docs/methodology.md "cpu_resnet"): the f32 forward pass of the whole
// batch against a float64 copy of the same model (same weights, same batch-norm mode) on the
// same input, every logit within tolerance; then, for the training step, two steps on the fixed
// batch whose losses must be finite and falling.
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "rigcheck/models/resnet.hpp"
#include "rigcheck/harness/allocator.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"

#ifdef RIGCHECK_HAVE_DNNL
#include "onednn_api.hpp"
#endif

namespace rigcheck::cpu {
namespace {

using namespace rigcheck::zoo;

enum class Mode { train, infer };

// ATen's CPU capability in effect in this process ("AVX512", "AVX2", "DEFAULT").
std::string aten_capability() {
  static const std::regex re("CPU capability usage: *([A-Za-z0-9_]+)");
  std::smatch m;
  const std::string cfg = at::show_config();
  return std::regex_search(cfg, m, re) ? m[1].str() : "unknown";
}

// The ISA oneDNN (the libdnnl torch links) dispatches to, and its implementation names per
// primitive kind seen executing `f` (oneDNN verbose lines, captured from stdout).
struct OnednnTrace {
  std::string isa = "unknown (built without oneDNN headers)";
  std::map<std::string, std::map<std::string, int>> impls;  // kind -> impl -> executions
  int executions = 0;
};

template <class F>
OnednnTrace trace_onednn(F&& f) {
  OnednnTrace t;
#ifdef RIGCHECK_HAVE_DNNL
  t.isa = onednn_api::isa_name(dnnl_get_effective_cpu_isa());
  std::fflush(stdout);
  FILE* tmp = std::tmpfile();
  const int saved = tmp ? ::dup(STDOUT_FILENO) : -1;
  if (saved >= 0 && ::dup2(::fileno(tmp), STDOUT_FILENO) >= 0) {
    dnnl_set_verbose(1);
    f();
    std::fflush(stdout);
    dnnl_set_verbose(0);
    ::dup2(saved, STDOUT_FILENO);
    ::close(saved);
    std::rewind(tmp);
    char line[4096];
    while (std::fgets(line, sizeof line, tmp)) {
      std::string kind, impl;
      if (onednn_api::verbose_exec(line, &kind, &impl)) {
        ++t.impls[kind][impl];
        ++t.executions;
      }
    }
  } else {
    f();
  }
  if (tmp) std::fclose(tmp);
#else
  f();
#endif
  return t;
}

std::string describe_impls(const OnednnTrace& t) {
  if (t.executions == 0) return "none (no oneDNN primitive executed: ATen's own kernels ran)";
  std::string s;
  for (auto& [kind, impls] : t.impls)
    for (auto& [impl, n] : impls) s += fmt::format("{}{} {} x{}", s.empty() ? "" : " ", kind, impl, n);
  return s;
}

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// at::set_num_threads when the count differs from what this process last set (it also drops
// LibTorch's oneDNN computation cache, so it is not called when nothing changes).
void set_torch_threads(int n) {
  static int current = -1;
  if (current != n || at::get_num_threads() != n) at::set_num_threads(n);
  current = n;
}

class ResNetKernel final : public Kernel {
 public:
  ResNetKernel(Mode mode, int threads, int batch, int image, double lr, int ref_threads)
      : mode_(mode), batch_(batch), threads_(threads), ref_threads_(ref_threads) {
    // What a step frees is kept for the next (rigcheck/harness/allocator.hpp; docs/performance.md,
    // "ResNet-50 training step"): with glibc's defaults each step touched 1-3 GB of fresh pages.
    keep_freed_memory();
    set_torch_threads(threads);
    cfg_ = resnet50();
    cfg_.image_size = image;
    model_ = build_model(cfg_);
    data_ = make_batch(cfg_, batch);
    if (mode_ == Mode::infer) model_->eval();
    opt_ = make_optimizer(*model_, Optimizer::sgd_momentum, lr);
    // The forward pass the check compares, traced: which oneDNN implementations torch ran.
    trace_ = trace_onednn([&] { logits_ = forward_no_grad(*model_, data_.input); });
    capability_ = aten_capability();
  }

  CheckResult check() override {
    CheckResult r;
    const torch::Tensor want = reference_logits();
    auto got = logits_.to(torch::kFloat64);
    // Tolerance: 1e-3 of the largest reference logit plus 1e-3 of the element's own size. The
    // f32 path (oneDNN, other summation orders, Winograd-free direct/GEMM convolutions) agrees
    // with float64 to ~1e-5 relative on ResNet-50 at 224x224; a wrong kernel is off by O(1).
    const double scale = want.abs().max().item<double>();
    auto err = (got - want).abs();
    auto tol = 1e-3 * scale + 1e-3 * want.abs();
    r.checked = err.numel();
    r.wrong = (err > tol).sum().item<int64_t>() + (got.isfinite().logical_not()).sum().item<int64_t>();
    r.worst = (err / tol).max().item<double>();
    r.method = fmt::format(
        "{} logits of the f32 {} forward pass vs a float64 copy of the model (tolerance 1e-3 "
        "x (max |logit| + |logit|); reference: {})",
        r.checked, mode_ == Mode::train ? "train-mode" : "eval-mode", ref_note_);
    if (mode_ == Mode::train) {
      // Two steps on the fixed batch: finite, falling loss.
      const float l0 = train_step(*model_, *opt_, data_).loss.item<float>();
      const float l1 = train_step(*model_, *opt_, data_).loss.item<float>();
      r.checked += 2;
      const bool ok = std::isfinite(l0) && std::isfinite(l1) && l1 < l0;
      if (!ok) {
        ++r.wrong;
        r.worst = INFINITY;
      }
      r.method += fmt::format("; two training steps on the fixed batch: loss {:.4f} -> {:.4f} ({})", l0, l1,
                              ok ? "finite, falling" : "NOT finite and falling");
    }
    return r;
  }

  // Interleaved with other thread counts in one process: LibTorch's own thread settings (the
  // count new threads take, oneDNN's primitive cache) follow this case's.
  // The first repetition of this case is preceded by one untimed step (after every case of its
  // interleaved group has been built and checked): the checks' float64 model copies and the other
  // thread count's first step leave the heap in a shape whose first steps still grow it (a whole
  // run's 1-thread steps measured 9,773 minor page faults per step on average, about 0.7 s in one
  // step at this VM's ~15 us per fault, in 2 of 3 quick runs; 0 in steady state).
  void before_repetition() override {
    set_torch_threads(threads_);
    if (!warmed_up_) {
      warmed_up_ = true;
      if (mode_ == Mode::train) {
        train_step(*model_, *opt_, data_);
      } else {
        c10::InferenceMode im;
        model_->forward(data_.input);
      }
    }
  }

  void run() override {
    const long f0 = minor_faults();
    if (mode_ == Mode::train) {
      train_step(*model_, *opt_, data_);
    } else {
      c10::InferenceMode im;
      model_->forward(data_.input);
    }
    faults_ += minor_faults() - f0;
    ++steps_;
  }

  std::vector<Observed> observed() override {
    if (steps_ == 0) return {};
    return {{"minor_page_faults_per_step", "count", static_cast<double>(faults_) / steps_,
             fmt::format("mean over the {} timed steps of this case (the process's minor faults; {})", steps_,
                         kKeepFreedAllocator)}};
  }

  Params facts() const override {
    return {{"aten_cpu_capability", capability_},
            {"onednn_isa", trace_.isa},
            {"onednn_impls", describe_impls(trace_)},
            {"torch_threads", std::to_string(at::get_num_threads())},
            {"allocator", kKeepFreedAllocator},
            {"mkldnn_enabled", at::globalContext().userEnabledMkldnn() ? "yes" : "no"},
            // Training on ATen's own convolutions where LibTorch's oneDNN cannot train (zoo::train_step).
            {"train_convolutions", mode_ != Mode::train                    ? "n/a"
                                   : onednn_conv_backward_defect().empty() ? "onednn"
                                                                           : "aten (oneDNN's backward crashes here)"}};
  }

 private:
  static torch::Tensor forward_no_grad(ZooModel& m, const torch::Tensor& x) {
    torch::NoGradGuard ng;
    return m.forward(x);
  }

  // What this model's forward pass reads, in a fixed order: its parameters, its input and, in eval
  // mode, its buffers (the batch-norm running statistics). A train-mode forward normalises with the
  // batch's own statistics and only writes the running ones (the first forward, at this case's
  // threads, leaves them different in the last bits from one thread count to another).
  std::vector<torch::Tensor> state() const {
    std::vector<torch::Tensor> v;
    for (const auto& t : model_->parameters()) v.push_back(t);
    if (mode_ == Mode::infer)
      for (const auto& t : model_->buffers()) v.push_back(t);
    v.push_back(data_.input);
    return v;
  }

  // The float64 logits the check compares with: a float64 copy of this model (same weights and
  // batch-norm statistics, same mode) on the same input. The first forward updated the f32
  // model's running statistics (train mode): the copy takes them after; in train mode the batch's
  // own statistics are used, so both see the same. ATen's float64 convolutions are slow (about 5 s
  // for batch 16 at one thread on the 2-vCPU VM), and every case of a process builds the same
  // model from the same seed: the logits are computed once, at every usable core, and a later
  // case takes them only when what its forward pass reads (state()) equals, bit for bit, what they
  // were computed from (kept beside them); otherwise it computes its own.
  torch::Tensor reference_logits() {
    struct Reference {
      Mode mode;
      std::vector<torch::Tensor> state;
      torch::Tensor logits;
    };
    static std::vector<Reference> done;
    const std::vector<torch::Tensor> mine = state();
    for (const Reference& ref : done) {
      if (ref.mode != mode_ || ref.state.size() != mine.size()) continue;
      bool same = true;
      for (size_t i = 0; same && i < mine.size(); ++i)
        same = ref.state[i].sizes() == mine[i].sizes() && ref.state[i].dtype() == mine[i].dtype() &&
               torch::equal(ref.state[i], mine[i]);
      if (same) {
        ref_note_ = fmt::format(
            "the float64 logits of an earlier case of this process, whose {} equal these bit for bit",
            mode_ == Mode::train ? "f32 weights and input" : "f32 weights, batch-norm statistics and input");
        return ref.logits;
      }
    }
    auto ref = build_model(cfg_, torch::kCPU, torch::kFloat64);
    {
      torch::NoGradGuard ng;
      auto src = model_->named_parameters(), dst = ref->named_parameters();
      for (auto& item : src) dst[item.key()].copy_(item.value());
      auto srcb = model_->named_buffers(), dstb = ref->named_buffers();
      for (auto& item : srcb) dstb[item.key()].copy_(item.value());
    }
    if (mode_ == Mode::infer) ref->eval();
    const int ref_threads = std::max(threads_, ref_threads_);
    set_torch_threads(ref_threads);
    torch::Tensor want = forward_no_grad(*ref, data_.input.to(torch::kFloat64));
    set_torch_threads(threads_);
    ref_note_ = fmt::format("the float64 copy's forward pass at {} threads", ref_threads);
    Reference kept{mode_, {}, want};
    torch::NoGradGuard ng;
    for (const auto& t : mine) kept.state.push_back(t.detach().clone());
    done.push_back(std::move(kept));
    return want;
  }

  Mode mode_;
  int batch_;
  int threads_;
  int ref_threads_;       // the threads of the float64 reference's forward pass: every usable core
  std::string ref_note_;  // where the check's float64 logits came from
  long faults_ = 0, steps_ = 0;
  bool warmed_up_ = false;
  ModelConfig cfg_;
  std::shared_ptr<ZooModel> model_;
  Batch data_;
  std::unique_ptr<torch::optim::Optimizer> opt_;
  torch::Tensor logits_;
  OnednnTrace trace_;
  std::string capability_;
};

struct Shape {
  int batch, image;
};
// Tiny (ctest smoke): batch 2 at 64x64. Quick and full: the claim's batch 16 at 224x224.
Shape shape(const CommonOptions& o) { return o.profile == Profile::tiny ? Shape{2, 64} : Shape{16, 224}; }

constexpr double kLr = 0.01;

Case make_case(Mode mode, const Shape& s, int threads, const CommonOptions& o, const std::string& cap) {
  Case c;
  const std::string m = mode == Mode::train ? "train_step" : "inference";
  c.name = fmt::format("{}/b{}i{}/t{}", m, s.batch, s.image, threads);
  c.threads = threads;
  ModelConfig cfg = resnet50();
  cfg.image_size = s.image;
  c.work.flops = mode == Mode::train ? training_flops_per_step(cfg, s.batch) : forward_flops(cfg, s.batch);
  c.work.items = s.batch;
  c.work.items_unit = "images";
  c.params = {
      {"model", "resnet50"},
      {"mode", m},
      {"batch", std::to_string(s.batch)},
      {"image", std::to_string(s.image)},
      {"dtype", "f32"},
      {"threads", std::to_string(threads)},
      {"isa_cap", cap},
      {"profile", to_string(o.profile)},
      {"per_repetition", mode == Mode::train ? "one training step" : "one forward pass"},
      {"warmup", mode == Mode::train ? "one untimed step before the first timed one" : "one untimed forward pass"}};
  if (mode == Mode::train)
    c.params.push_back({"step", fmt::format("zoo::train_step: cross-entropy, SGD lr {} momentum 0.9, grads set to "
                                            "none, fixed random batch",
                                            kLr)});
  const int ref_threads = o.usable_cores;
  c.make = [=]() -> std::unique_ptr<Kernel> {
    return std::make_unique<ResNetKernel>(mode, threads, s.batch, s.image, kLr, ref_threads);
  };
  return c;
}

// The cap asked for through the environment, as the registry rows set it: "avx2" when
// ONEDNN_MAX_CPU_ISA and/or ATEN_CPU_CAPABILITY cap at AVX2; "native" when neither caps (ATen
// opted in to AVX-512 with ATEN_CPU_CAPABILITY=avx512 counts as native: LibTorch 1.13 keeps its
// AVX-512 kernels opt-in and picks AVX2 without the variable, even on an AVX-512 CPU).
std::string isa_cap_from_env() {
  auto lower = [](const char* s) {
    std::string r = s ? s : "";
    for (char& ch : r) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return r;
  };
  std::string aten = lower(std::getenv("ATEN_CPU_CAPABILITY")), dnnl = lower(std::getenv("ONEDNN_MAX_CPU_ISA"));
  if (aten == "avx512") aten.clear();
  if (aten.empty() && dnnl.empty()) return "native";
  if (aten.empty() || dnnl.empty() || aten == dnnl)
    return aten.empty() ? "onednn_" + dnnl : (dnnl.empty() ? "aten_" + aten : aten);
  return "aten_" + aten + "+onednn_" + dnnl;
}

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_cpu_resnet =
    declare_entry({"cpu_resnet", "cpu", "--filter ^resnet50_train_step/", "", "", 300, 900, 3600,
                   R"(ResNet-50 training step (LibTorch, batch 16, 224x224, SGD momentum) at 1..cores threads, images/s
(CPU-1, CPU-2))",
                   true});
const bool entry_cpu_resnet_isa_avx2 = declare_entry(
    {"cpu_resnet_isa_avx2", "cpu", "--filter ^resnet50_isa/", "ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2",
     "isa_avx512f=yes", 300, 0, 3600,
     "ResNet-50 inference and training step with ATen and oneDNN capped at AVX2 (CPU-5, second evidence)", true});
const bool entry_cpu_resnet_isa_native =
    declare_entry({"cpu_resnet_isa_native", "cpu", "--filter ^resnet50_isa/", "ATEN_CPU_CAPABILITY=avx512",
                   "isa_avx512f=yes", 300, 0, 3600,
                   R"(ResNet-50 inference and training step with every ISA the CPU has, ATen's AVX-512 kernels opted in
(CPU-5, second evidence))",
                   true});
// Its rows of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row = declare_doc(
    {"",
     R"(ResNet-50 training step through the LibTorch model zoo (batch 16, 224x224, SGD momentum) at 1..cores
threads, interleaved (t1, t2, t1, t2...) in one process, images/s and page faults per step (freed memory
kept by the allocator: docs/performance.md), each step checked against a float64 copy of the model and a
falling loss; E(n) from the fastest interleaved steps and an Amdahl fit whose predicted interval,
widened by the run-to-run noise of E(n) (the machine's noise profile, else the prior
`data/run_to_run_prior.csv`), is judged)",
     R"(CPU-1 (leads; GEMM second), CPU-2 (predicted on 8-16 cores; `not_measurable` on fewer: 32 is beyond 4x
the largest measured thread count))"});
const bool doc_row_variant = declare_doc(
    {"`_isa_avx2`, `_isa_native`; full profile only, too slow for quick",
     R"(ResNet-50 inference and one training step at all cores with ATen and oneDNN capped at AVX2 and uncapped,
each in its own process; the ATen capability and oneDNN implementations that actually ran recorded)",
     "CPU-5 (second evidence)"});

const bool scaling = register_benchmark(
    {names::kResnetTrainStep, "ResNet-50 training step (batch 16, 224x224, SGD momentum) at 1..cores threads",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       for (int64_t t : default_threads(o)) {
         cs.push_back(make_case(Mode::train, shape(o), static_cast<int>(t), o, isa_cap_from_env()));
         // E(n) is a ratio of two thread counts: their steps alternate t1, t2, t1, t2... in this
         // process (Case::interleave), and the report takes E(n) from each side's fastest step.
         cs.back().interleave = "threads";
       }
       return cs;
     }});

const bool isa = register_benchmark(
    {names::kResnetIsa, "ResNet-50 inference and training step at all cores under the ISA cap of the environment",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       const int threads = static_cast<int>(o.threads.empty() ? o.physical_cores : o.threads.back());
       for (Mode m : {Mode::infer, Mode::train}) cs.push_back(make_case(m, shape(o), threads, o, isa_cap_from_env()));
       return cs;
     }});

}  // namespace
}  // namespace rigcheck::cpu
