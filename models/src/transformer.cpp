// The zoo's transformers: BERT encoder with pooler and GPT-2 (one translation unit).
#include <cmath>

#include "rigcheck/models/bert.hpp"
#include "rigcheck/models/gpt2.hpp"

namespace rigcheck::zoo {

namespace nn = torch::nn;

namespace {
// BERT and GPT-2 initialisation: weights N(0, 0.02), biases 0, LayerNorm weight 1 and bias 0.
void init_transformer(nn::Module& m) {
  torch::NoGradGuard ng;
  for (auto& mod : m.modules(/*include_self=*/false)) {
    if (auto* l = mod->as<nn::Linear>()) {
      nn::init::normal_(l->weight, 0.0, 0.02);
      if (l->bias.defined()) nn::init::zeros_(l->bias);
    } else if (auto* e = mod->as<nn::Embedding>()) {
      nn::init::normal_(e->weight, 0.0, 0.02);
    } else if (auto* n = mod->as<nn::LayerNorm>()) {
      nn::init::ones_(n->weight);
      nn::init::zeros_(n->bias);
    }
  }
}

nn::LayerNorm layer_norm(const ModelConfig& cfg) {
  return nn::LayerNorm(nn::LayerNormOptions({cfg.hidden}).eps(cfg.layer_norm_eps));
}

torch::Tensor drop(const torch::Tensor& x, double p, bool training) {
  return p > 0 && training ? torch::dropout(x, p, training) : x;
}
}  // namespace

torch::Tensor attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, int64_t heads,
                        bool causal, double dropout, bool training) {
  const int64_t b = q.size(0), s = q.size(1), d = q.size(2), dh = d / heads;
  auto split = [&](const torch::Tensor& t) { return t.view({b, s, heads, dh}).transpose(1, 2); };
  auto qh = split(q), kh = split(k), vh = split(v);
  auto scores = torch::matmul(qh, kh.transpose(-2, -1)) / std::sqrt(static_cast<double>(dh));
  if (causal) {
    auto mask = torch::ones({s, s}, torch::TensorOptions().dtype(torch::kBool).device(q.device())).triu(1);
    scores = scores.masked_fill(mask, -std::numeric_limits<float>::infinity());
  }
  auto probs = drop(torch::softmax(scores, -1), dropout, training);
  return torch::matmul(probs, vh).transpose(1, 2).reshape({b, s, d});
}

BertLayer::BertLayer(const ModelConfig& cfg) : heads_(cfg.heads), dropout_(cfg.dropout) {
  q_ = register_module("query", nn::Linear(cfg.hidden, cfg.hidden));
  k_ = register_module("key", nn::Linear(cfg.hidden, cfg.hidden));
  v_ = register_module("value", nn::Linear(cfg.hidden, cfg.hidden));
  o_ = register_module("attn_out", nn::Linear(cfg.hidden, cfg.hidden));
  ln1_ = register_module("attn_ln", layer_norm(cfg));
  fc1_ = register_module("intermediate", nn::Linear(cfg.hidden, cfg.intermediate));
  fc2_ = register_module("output", nn::Linear(cfg.intermediate, cfg.hidden));
  ln2_ = register_module("output_ln", layer_norm(cfg));
}

torch::Tensor BertLayer::forward(const torch::Tensor& x) {
  auto a = attention(q_->forward(x), k_->forward(x), v_->forward(x), heads_, false, dropout_, is_training());
  auto h = ln1_->forward(x + drop(o_->forward(a), dropout_, is_training()));
  auto m = fc2_->forward(torch::gelu(fc1_->forward(h)));
  return ln2_->forward(h + drop(m, dropout_, is_training()));
}

Bert::Bert(const ModelConfig& cfg) : ZooModel(cfg) {
  tok_ = register_module("word_embeddings", nn::Embedding(cfg.vocab_size, cfg.hidden));
  pos_ = register_module("position_embeddings", nn::Embedding(cfg.max_positions, cfg.hidden));
  seg_ = register_module("token_type_embeddings", nn::Embedding(cfg.type_vocab, cfg.hidden));
  ln_ = register_module("embeddings_ln", layer_norm(cfg));
  layers_ = register_module("layers", nn::ModuleList());
  for (int l = 0; l < cfg.layers; ++l) layers_->push_back(std::make_shared<BertLayer>(cfg));
  pooler_ = register_module("pooler", nn::Linear(cfg.hidden, cfg.hidden));
  head_ = register_module("head", nn::Linear(cfg.hidden, cfg.cls_labels));
  init_transformer(*this);
}

std::pair<torch::Tensor, torch::Tensor> Bert::encode(const torch::Tensor& ids) {
  const int64_t s = ids.size(1);
  auto pos = torch::arange(s, ids.options());
  // One segment (token type 0) throughout; no padding, so no attention mask.
  auto h = tok_->forward(ids) + pos_->forward(pos).unsqueeze(0) + seg_->weight[0];
  h = drop(ln_->forward(h), config().dropout, is_training());
  for (auto& layer : *layers_) h = layer->as<BertLayer>()->forward(h);
  auto pooled = torch::tanh(pooler_->forward(h.select(1, 0)));
  return {h, pooled};
}

torch::Tensor Bert::forward(const torch::Tensor& ids) {
  auto pooled = encode(ids).second;
  return head_->forward(drop(pooled, config().dropout, is_training()));
}

Gpt2Block::Gpt2Block(const ModelConfig& cfg) : heads_(cfg.heads), dropout_(cfg.dropout) {
  ln1_ = register_module("ln_1", layer_norm(cfg));
  qkv_ = register_module("c_attn", nn::Linear(cfg.hidden, 3 * cfg.hidden));
  proj_ = register_module("c_proj", nn::Linear(cfg.hidden, cfg.hidden));
  ln2_ = register_module("ln_2", layer_norm(cfg));
  fc1_ = register_module("c_fc", nn::Linear(cfg.hidden, cfg.intermediate));
  fc2_ = register_module("mlp_c_proj", nn::Linear(cfg.intermediate, cfg.hidden));
}

torch::Tensor Gpt2Block::forward(const torch::Tensor& x) {
  auto qkv = qkv_->forward(ln1_->forward(x)).chunk(3, -1);
  auto a = attention(qkv[0], qkv[1], qkv[2], heads_, true, dropout_, is_training());
  auto h = x + drop(proj_->forward(a), dropout_, is_training());
  auto m = fc2_->forward(torch::gelu(fc1_->forward(ln2_->forward(h)), "tanh"));
  return h + drop(m, dropout_, is_training());
}

Gpt2::Gpt2(const ModelConfig& cfg) : ZooModel(cfg) {
  wte_ = register_module("wte", nn::Embedding(cfg.vocab_size, cfg.hidden));
  wpe_ = register_module("wpe", nn::Embedding(cfg.max_positions, cfg.hidden));
  blocks_ = register_module("h", nn::ModuleList());
  for (int l = 0; l < cfg.layers; ++l) blocks_->push_back(std::make_shared<Gpt2Block>(cfg));
  ln_f_ = register_module("ln_f", layer_norm(cfg));
  init_transformer(*this);
}

torch::Tensor Gpt2::forward(const torch::Tensor& ids) {
  const int64_t s = ids.size(1);
  auto pos = torch::arange(s, ids.options());
  auto h = drop(wte_->forward(ids) + wpe_->forward(pos).unsqueeze(0), config().dropout, is_training());
  for (auto& b : *blocks_) h = b->as<Gpt2Block>()->forward(h);
  return torch::matmul(ln_f_->forward(h), wte_->weight.t());  // tied LM head
}

}  // namespace rigcheck::zoo
