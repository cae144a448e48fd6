// GPT-2 (ModelConfig gpt2_small(), gpt2_xl()), as in Radford et al. and Hugging Face's
// GPT2LMHeadModel: token + learned position embeddings, pre-LN blocks (causal self-attention
// with a fused qkv projection, GELU-tanh MLP), final LayerNorm, LM head tied to the token
// embedding (no parameters of its own). GPT-2 124,439,808 and GPT-2 XL 1,557,611,200 parameters.
#pragma once
#include "rigcheck/models/train.hpp"

namespace rigcheck::zoo {

class Gpt2Block : public torch::nn::Module {
 public:
  explicit Gpt2Block(const ModelConfig& cfg);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  int64_t heads_;
  double dropout_;
  torch::nn::LayerNorm ln1_{nullptr}, ln2_{nullptr};
  torch::nn::Linear qkv_{nullptr}, proj_{nullptr}, fc1_{nullptr}, fc2_{nullptr};
};

class Gpt2 : public ZooModel {
 public:
  explicit Gpt2(const ModelConfig& cfg);
  // token ids [batch, seq] -> next-token logits [batch, seq, vocab]
  torch::Tensor forward(const torch::Tensor& ids) override;

 private:
  torch::nn::Embedding wte_{nullptr}, wpe_{nullptr};
  torch::nn::ModuleList blocks_{nullptr};
  torch::nn::LayerNorm ln_f_{nullptr};
};

}  // namespace rigcheck::zoo
