// rigcheck model zoo, LibTorch part: the models built from a ModelConfig (models/zoo.hpp) and
// the ONE training step every benchmark shares (cpu_resnet, memory, gpu). Library
// `rigcheck_zoo` (only when RIGCHECK_WITH_TORCH is ON; linking it defines RIGCHECK_HAVE_ZOO=1).
//
// API (stable; other areas build on it):
//   auto model = build_model(cfg, device, dtype, seed);   // a ZooModel (torch::nn::Module)
//   Batch b = make_batch(cfg, batch, device, seed);       // random inputs and targets
//   auto opt = make_optimizer(*model, Optimizer::sgd_momentum, lr);
//   StepResult r = train_step(*model, *opt, b, StepOptions{...});  // forward, loss, backward, step
//   float loss = r.loss.item<float>();                    // train_step itself never synchronizes
//   int64_t n = allocated_parameters(*model);             // numel over model.parameters()
//
// Per-model headers (one per model): light_cnn.hpp, resnet.hpp, bert.hpp, gpt2.hpp.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <memory>

#include "rigcheck/models/zoo.hpp"

namespace rigcheck::zoo {

// Every zoo model: a torch::nn::Module whose forward maps a batch's input to logits whose last
// dimension is the class (or vocabulary) dimension. The BERT classifier head is the submodule
// "head" (ParamCounts::head); everything else is the published model.
class ZooModel : public torch::nn::Module {
 public:
  explicit ZooModel(ModelConfig cfg) : cfg_(std::move(cfg)) {}
  const ModelConfig& config() const { return cfg_; }
  virtual torch::Tensor forward(const torch::Tensor& input) = 0;

 private:
  ModelConfig cfg_;
};

// Builds the model of `cfg` with its published initialisation (torch::manual_seed(seed) first),
// moved to `device` and `dtype` (floating-point parameters only).
std::shared_ptr<ZooModel> build_model(const ModelConfig& cfg, torch::Device device = torch::kCPU,
                                      torch::Dtype dtype = torch::kFloat32, uint64_t seed = 1);

// Numel over the parameters, and over those of the "head" submodule.
int64_t allocated_parameters(const torch::nn::Module& m);
int64_t allocated_head_parameters(const torch::nn::Module& m);

// A random batch: CNNs images N(0,1) [batch, C, H, W] of `dtype` and labels in [0, classes);
// BERT token ids [batch, seq] and one label per sequence; GPT-2 a random token sequence of
// seq + 1, input = the first seq tokens, target = the next token at each position.
struct Batch {
  torch::Tensor input, target;
};
Batch make_batch(const ModelConfig& cfg, int batch, torch::Device device = torch::kCPU, uint64_t seed = 2,
                 int seq_len = 0, torch::Dtype dtype = torch::kFloat32);

// CNNs: convert the 4-D weights (and use for inputs) the channels-last memory format.
void to_channels_last(torch::nn::Module& m);

// SGD (momentum 0.9 for sgd_momentum) or AdamW (betas 0.9/0.999, weight decay 0.01).
std::unique_ptr<torch::optim::Optimizer> make_optimizer(ZooModel& m, Optimizer kind, double lr);

enum class Precision { fp32, amp_bf16, amp_fp16 };  // amp: autocast on the model's device type
const char* to_string(Precision p);

struct StepOptions {
  Precision precision = Precision::fp32;
  bool set_to_none = true;  // gradients freed (not zeroed) before backward, as PyTorch >= 2.0
  // Static loss scale for amp_fp16 (gradients are unscaled before the step; a step whose
  // gradients are not finite is skipped, StepResult::applied = false). 0: 65536 for amp_fp16,
  // 1 otherwise.
  double loss_scale = 0;
};

struct StepResult {
  torch::Tensor loss;   // detached scalar, on the model's device (item() synchronizes)
  bool applied = true;  // false: amp_fp16 found non-finite gradients and skipped the update
};

// Cross-entropy of logits [..., classes] against integer targets [...].
torch::Tensor loss_of(const torch::Tensor& logits, const torch::Tensor& target);

// Why LibTorch's oneDNN convolutions cannot train here, or "" when they can. Debian 13's LibTorch
// 2.6 with its oneDNN 3.7.2 dies of SIGFPE (integer division by zero) creating the backward-data
// primitive of ResNet-50's 1x1 stride-2 convolutions with 1024 input channels, whatever the ISA cap.
// Probed once per process, in a child (fork) that trains one such convolution on one thread.
const std::string& onednn_conv_backward_defect();

// One training step: zero (free) gradients, forward (under autocast if asked), loss, backward,
// optimizer step. The model must be in train() mode (build_model leaves it so). On the CPU, where
// onednn_conv_backward_defect() is not "", the step runs with oneDNN off in LibTorch (its own ATen
// convolutions), and oneDNN is turned back on after it.
StepResult train_step(ZooModel& model, torch::optim::Optimizer& opt, const Batch& batch, const StepOptions& o = {});

}  // namespace rigcheck::zoo
