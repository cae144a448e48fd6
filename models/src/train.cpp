// Building zoo models, batches, optimizers, and the one shared training step.
#include "rigcheck/models/train.hpp"
#include "rigcheck/enum_name.hpp"

#include <iterator>
#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "rigcheck/models/bert.hpp"
#include "rigcheck/models/gpt2.hpp"
#include "rigcheck/models/light_cnn.hpp"
#include "rigcheck/models/resnet.hpp"

namespace rigcheck::zoo {

const char* to_string(Precision p) {
  return enum_name(p,
                   {{Precision::fp32, "fp32"}, {Precision::amp_bf16, "amp_bf16"}, {Precision::amp_fp16, "amp_fp16"}});
}

std::shared_ptr<ZooModel> build_model(const ModelConfig& cfg, torch::Device device, torch::Dtype dtype, uint64_t seed) {
  torch::manual_seed(seed);
  std::shared_ptr<ZooModel> m;
  switch (cfg.arch) {
    case Arch::light_cnn: m = std::make_shared<LightCnn>(cfg); break;
    case Arch::resnet: m = std::make_shared<ResNet>(cfg); break;
    case Arch::bert: m = std::make_shared<Bert>(cfg); break;
    case Arch::gpt2: m = std::make_shared<Gpt2>(cfg); break;
  }
  if (!m) throw std::invalid_argument("build_model: unknown architecture of " + cfg.name);
  m->to(device, dtype);
  m->train();
  return m;
}

int64_t allocated_parameters(const torch::nn::Module& m) {
  int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

int64_t allocated_head_parameters(const torch::nn::Module& m) {
  int64_t n = 0;
  for (const auto& item : m.named_parameters())
    if (item.key().rfind("head.", 0) == 0) n += item.value().numel();
  return n;
}

Batch make_batch(const ModelConfig& cfg, int batch, torch::Device device, uint64_t seed, int seq_len,
                 torch::Dtype dtype) {
  torch::manual_seed(seed);
  Batch b;
  auto ids = torch::TensorOptions().dtype(torch::kLong);
  if (cfg.arch == Arch::light_cnn || cfg.arch == Arch::resnet) {
    b.input =
        torch::randn({batch, cfg.in_channels, cfg.image_size, cfg.image_size}, torch::TensorOptions().dtype(dtype));
    b.target = torch::randint(cfg.num_classes, {batch}, ids);
  } else {
    const int s = seq_len > 0 ? seq_len : cfg.seq_len;
    if (s > cfg.max_positions)
      throw std::invalid_argument("make_batch: seq_len " + std::to_string(s) + " > max_positions of " + cfg.name);
    if (cfg.arch == Arch::bert) {
      b.input = torch::randint(cfg.vocab_size, {batch, s}, ids);
      b.target = torch::randint(cfg.cls_labels, {batch}, ids);
    } else {
      auto seq = torch::randint(cfg.vocab_size, {batch, s + 1}, ids);
      b.input = seq.narrow(1, 0, s).contiguous();
      b.target = seq.narrow(1, 1, s).contiguous();
    }
  }
  b.input = b.input.to(device);
  b.target = b.target.to(device);
  return b;
}

void to_channels_last(torch::nn::Module& m) {
  torch::NoGradGuard ng;
  for (auto& p : m.parameters())
    if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(ZooModel& m, Optimizer kind, double lr) {
  switch (kind) {
    case Optimizer::sgd: return std::make_unique<torch::optim::SGD>(m.parameters(), torch::optim::SGDOptions(lr));
    case Optimizer::sgd_momentum:
      return std::make_unique<torch::optim::SGD>(m.parameters(), torch::optim::SGDOptions(lr).momentum(0.9));
    case Optimizer::adamw:
      return std::make_unique<torch::optim::AdamW>(
          m.parameters(), torch::optim::AdamWOptions(lr).betas({0.9, 0.999}).weight_decay(0.01));
  }
  throw std::invalid_argument("make_optimizer: unknown optimizer");
}

torch::Tensor loss_of(const torch::Tensor& logits, const torch::Tensor& target) {
  return torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}).to(torch::kFloat32),
                                              target.reshape({-1}));
}

namespace {
// LibTorch 2.4 replaced the per-device autocast functions (is_enabled / set_enabled /
// get_autocast_gpu_dtype and their _cpu_ twins, deprecated then, warning at every call) by one set
// taking the device type; LibTorch 1.13 (Debian's) has only the old ones.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define RIGCHECK_AUTOCAST_DEVICE_API 1
#else
#define RIGCHECK_AUTOCAST_DEVICE_API 0
#endif

bool autocast_enabled(torch::DeviceType dev) {
#if RIGCHECK_AUTOCAST_DEVICE_API
  return at::autocast::is_autocast_enabled(dev);
#else
  return dev == torch::kCUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}
at::ScalarType autocast_dtype(torch::DeviceType dev) {
#if RIGCHECK_AUTOCAST_DEVICE_API
  return at::autocast::get_autocast_dtype(dev);
#else
  return dev == torch::kCUDA ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
#endif
}
void set_autocast(torch::DeviceType dev, bool on, at::ScalarType dtype) {
#if RIGCHECK_AUTOCAST_DEVICE_API
  at::autocast::set_autocast_dtype(dev, dtype);
  at::autocast::set_autocast_enabled(dev, on);
#else
  if (dev == torch::kCUDA) {
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(on);
  } else {
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(on);
  }
#endif
}

// Autocast for the duration of the forward pass, on the model's device type (CPU or CUDA).
class AutocastScope {
 public:
  AutocastScope(Precision p, torch::DeviceType dev)
      : on_(p != Precision::fp32), dev_(dev == torch::kCUDA ? torch::kCUDA : torch::kCPU) {
    if (!on_) return;
    prev_ = autocast_enabled(dev_);
    prev_dtype_ = autocast_dtype(dev_);
    set_autocast(dev_, true, p == Precision::amp_bf16 ? at::kBFloat16 : at::kHalf);
    at::autocast::increment_nesting();
  }
  ~AutocastScope() {
    if (!on_) return;
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    set_autocast(dev_, prev_, prev_dtype_);
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool on_;
  torch::DeviceType dev_;
  bool prev_ = false;
  at::ScalarType prev_dtype_ = at::kFloat;
};
}  // namespace

namespace {
// The signals a library defect ends the probe with (a hang ends by SIGALRM: not counted as one).
bool is_defect_signal(int sig) {
  return sig == SIGFPE || sig == SIGSEGV || sig == SIGILL || sig == SIGBUS || sig == SIGABRT;
}

std::string probe_onednn_conv_backward() {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return "";  // no probe: oneDNN stays on
  if (pid == 0) {
    ::alarm(120);
    // One thread: the child of a process whose OpenMP pool exists may not start another.
    torch::set_num_threads(1);
    torch::manual_seed(1);
    torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1024, 2048, 1).stride(2).bias(false));
    auto x = torch::randn({2, 1024, 6, 6}, torch::requires_grad());
    conv(x).sum().backward();
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return "";
  if (WIFSIGNALED(status) && is_defect_signal(WTERMSIG(status))) {
    std::string why = "LibTorch's oneDNN dies of signal " + std::to_string(WTERMSIG(status)) + " (" +
                      strsignal(WTERMSIG(status)) +
                      ") in the backward pass of a 1x1 stride-2 convolution of 1024 channels (ResNet-50's): "
                      "training steps use ATen's own convolutions";
    std::fprintf(stderr, "rigcheck zoo: %s\n", why.c_str());
    return why;
  }
  return "";
}

// oneDNN off in LibTorch for one training step, as it was after.
class OnednnOff {
 public:
  explicit OnednnOff(bool on) : on_(on), was_(at::globalContext().userEnabledMkldnn()) {
    if (on_) at::globalContext().setUserEnabledMkldnn(false);
  }
  ~OnednnOff() {
    if (on_) at::globalContext().setUserEnabledMkldnn(was_);
  }
  OnednnOff(const OnednnOff&) = delete;
  OnednnOff& operator=(const OnednnOff&) = delete;

 private:
  bool on_, was_;
};
}  // namespace

const std::string& onednn_conv_backward_defect() {
  static const std::string why = probe_onednn_conv_backward();
  return why;
}

StepResult train_step(ZooModel& model, torch::optim::Optimizer& opt, const Batch& batch, const StepOptions& o) {
  OnednnOff aten_convs(batch.input.device().is_cpu() && !onednn_conv_backward_defect().empty());
  StepResult r;
  model.zero_grad(o.set_to_none);
  torch::Tensor loss;
  {
    AutocastScope ac(o.precision, batch.input.device().type());
    loss = loss_of(model.forward(batch.input), batch.target);
  }
  const double scale = o.loss_scale > 0 ? o.loss_scale : (o.precision == Precision::amp_fp16 ? 65536.0 : 1.0);
  if (scale != 1.0) {
    (loss * scale).backward();
    torch::NoGradGuard ng;
    std::vector<torch::Tensor> grads;
    for (auto& p : model.parameters())
      if (p.grad().defined()) {
        p.mutable_grad().mul_(1.0 / scale);
        grads.push_back(p.grad().isfinite().all());
      }
    if (!grads.empty() && !torch::stack(grads).all().item<bool>()) {
      r.applied = false;
      r.loss = loss.detach();
      return r;
    }
  } else {
    loss.backward();
  }
  opt.step();
  r.loss = loss.detach();
  return r;
}

}  // namespace rigcheck::zoo
