// rigcheck model zoo, torch-free part: model configs, parameter counts and an analytic memory
// estimate. Library `rigcheck_zoo_config` (always built, no LibTorch needed).
//
// The models themselves (LibTorch modules, built from these configs) and the one training step
// every benchmark shares are in `models/train.hpp` (library `rigcheck_zoo`, built only when
// RIGCHECK_WITH_TORCH is ON; it defines RIGCHECK_HAVE_ZOO=1 for whoever links it).
//
// API (stable; other areas build on it):
//   ModelConfig light_cnn(), resnet50(), bert_base(), bert_large(), gpt2_small(), gpt2_xl();
//   ModelConfig config_by_name("resnet50")        throws std::invalid_argument for an unknown name
//   std::vector<ModelConfig> published_models()   the six above, in that order
//   ParamCounts count_parameters(cfg)             analytic, allocates nothing (GPT-2 XL included)
//   MemoryEstimate estimate_training_memory(cfg, batch, opts)   analytic, bytes
//   double training_flops_per_step(cfg, batch)    analytic forward + backward flops (3x forward)
//
// Inputs: CNNs take images [batch, 3, image_size, image_size] and a class label per image;
// BERT takes token ids [batch, seq_len] and one label per sequence (a sequence-classification
// head on the pooler, `cls_labels` classes: the usual fine-tuning set-up); GPT-2 takes token ids
// [batch, seq_len] and predicts the next token with the LM head tied to the token embedding.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rigcheck::zoo {

enum class Arch { light_cnn, resnet, bert, gpt2 };
const char* to_string(Arch a);

struct ModelConfig {
  std::string name;  // "light_cnn", "resnet50", "bert_base", "bert_large", "gpt2", "gpt2_xl"
  Arch arch = Arch::resnet;

  // CNNs (light_cnn, resnet)
  int image_size = 224;
  int in_channels = 3;
  int num_classes = 1000;
  std::vector<int> channels;  // light_cnn: output channels of each conv block
  std::vector<int> blocks;    // resnet: bottleneck blocks per stage, e.g. {3, 4, 6, 3}
  int width = 64;             // resnet: stem width (stage widths are width x 1, 2, 4, 8)

  // Transformers (bert, gpt2)
  int vocab_size = 0;
  int max_positions = 0;  // learned position embeddings
  int type_vocab = 0;     // bert: token-type (segment) embeddings
  int hidden = 0;
  int layers = 0;
  int heads = 0;
  int intermediate = 0;  // MLP width (4 x hidden in all published configs)
  double layer_norm_eps = 1e-5;
  double dropout = 0.1;  // hidden and attention dropout, as published
  int seq_len = 0;       // default sequence length of a training batch (<= max_positions)
  int cls_labels = 2;    // bert: classes of the sequence-classification head on the pooler
};

ModelConfig light_cnn();
ModelConfig resnet50();
ModelConfig bert_base();
ModelConfig bert_large();
ModelConfig gpt2_small();
ModelConfig gpt2_xl();
std::vector<ModelConfig> published_models();
ModelConfig config_by_name(const std::string& name);

struct ParamCounts {
  int64_t model = 0;  // the published model: what the literature counts (e.g. BERT-base 109,482,240)
  int64_t head = 0;   // training head not in the published count (bert: pooler -> cls_labels)
  int64_t total() const { return model + head; }  // what the training step updates
};
// Counted from the config alone, allocating nothing; equals the allocated model's numel sum
// (tests/models/test_zoo.cpp checks both on small configs).
ParamCounts count_parameters(const ModelConfig& cfg);

enum class Optimizer { sgd, sgd_momentum, adamw };
const char* to_string(Optimizer o);

struct MemoryOptions {
  Optimizer optimizer = Optimizer::sgd_momentum;
  int weight_bytes = 4;          // bytes per parameter element (4 = fp32)
  int activation_bytes = 4;      // bytes per saved activation element (2 under bf16/fp16 autocast)
  bool mixed_precision = false;  // autocast: fp32 master weights plus a 16-bit copy of each weight
  int seq_len = 0;               // transformers; 0 = cfg.seq_len
};

// Analytic memory of one training step, bytes. Weights, gradients (same dtype as the weights),
// optimizer state (fp32: momentum 1 x params, AdamW 2 x params) and the activations autograd
// keeps for the backward pass (counted layer by layer, docs/methodology.md "model zoo").
// An estimate: allocator caching, workspaces and temporaries of the kernels are not in it.
struct MemoryEstimate {
  double weights = 0;
  double gradients = 0;
  double optimizer_state = 0;
  double activations = 0;
  double total() const { return weights + gradients + optimizer_state + activations; }
};
MemoryEstimate estimate_training_memory(const ModelConfig& cfg, int batch, const MemoryOptions& opts = {});

// Floating-point operations of one forward pass of `batch` samples (multiply-add = 2 flops;
// convolutions, linear layers, attention matmuls; normalisations and activations left out),
// and of one training step = 3 x forward (backward costs twice the forward).
double forward_flops(const ModelConfig& cfg, int batch, int seq_len = 0);
double training_flops_per_step(const ModelConfig& cfg, int batch, int seq_len = 0);

}  // namespace rigcheck::zoo
