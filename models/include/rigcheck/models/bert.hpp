// BERT encoder with pooler (ModelConfig bert_base(), bert_large()), as in Devlin et al. and
// Hugging Face's BertModel: token + position + segment embeddings, LayerNorm, post-LN encoder
// layers (self-attention, GELU MLP), pooler (dense + tanh on the first token). For training, a
// sequence-classification head (the submodule "head", cfg.cls_labels classes) on the pooler.
// BERT-base 109,482,240 and BERT-large 335,141,888 parameters without the head.
#pragma once
#include "rigcheck/models/train.hpp"

namespace rigcheck::zoo {

// Multi-head self-attention on x [batch, seq, hidden] given q, k, v of the same shape.
torch::Tensor attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, int64_t heads,
                        bool causal, double dropout, bool training);

class BertLayer : public torch::nn::Module {
 public:
  explicit BertLayer(const ModelConfig& cfg);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  int64_t heads_;
  double dropout_;
  torch::nn::Linear q_{nullptr}, k_{nullptr}, v_{nullptr}, o_{nullptr}, fc1_{nullptr}, fc2_{nullptr};
  torch::nn::LayerNorm ln1_{nullptr}, ln2_{nullptr};
};

class Bert : public ZooModel {
 public:
  explicit Bert(const ModelConfig& cfg);
  // token ids [batch, seq] -> logits of the classification head [batch, cls_labels]
  torch::Tensor forward(const torch::Tensor& ids) override;
  // The published model's outputs: last hidden states [batch, seq, hidden] and pooled [batch, hidden].
  std::pair<torch::Tensor, torch::Tensor> encode(const torch::Tensor& ids);

 private:
  torch::nn::Embedding tok_{nullptr}, pos_{nullptr}, seg_{nullptr};
  torch::nn::LayerNorm ln_{nullptr};
  torch::nn::ModuleList layers_{nullptr};
  torch::nn::Linear pooler_{nullptr}, head_{nullptr};
};

}  // namespace rigcheck::zoo
