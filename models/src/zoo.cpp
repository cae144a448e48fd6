// Model configs, analytic parameter counts, flops and memory estimates (no LibTorch).
// The walkers below follow the same layer order as the modules in cnn.cpp / transformer.cpp.
#include "rigcheck/models/zoo.hpp"
#include "rigcheck/enum_name.hpp"

#include <iterator>
#include <stdexcept>

namespace rigcheck::zoo {

const char* to_string(Arch a) {
  return enum_name(
      a, {{Arch::light_cnn, "light_cnn"}, {Arch::resnet, "resnet"}, {Arch::bert, "bert"}, {Arch::gpt2, "gpt2"}});
}

const char* to_string(Optimizer o) {
  return enum_name(o,
                   {{Optimizer::sgd, "sgd"}, {Optimizer::sgd_momentum, "sgd_momentum"}, {Optimizer::adamw, "adamw"}});
}

namespace {
ModelConfig named(const char* name, Arch arch) {
  ModelConfig c;
  c.name = name;
  c.arch = arch;
  return c;
}
}  // namespace

ModelConfig light_cnn() {
  ModelConfig c = named("light_cnn", Arch::light_cnn);
  c.channels = {32, 64, 128, 256};
  return c;
}

ModelConfig resnet50() {
  ModelConfig c = named("resnet50", Arch::resnet);
  c.blocks = {3, 4, 6, 3};
  return c;
}

namespace {
// BERT and GPT-2 share the transformer's shape: the feed-forward is 4x the hidden size, and the
// sequence is as long as the positions the model has.
ModelConfig transformer(const char* name, Arch arch, int vocab, int positions, int hidden, int layers, int heads,
                        double layer_norm_eps) {
  ModelConfig c = named(name, arch);
  c.vocab_size = vocab;
  c.max_positions = positions;
  c.hidden = hidden;
  c.layers = layers;
  c.heads = heads;
  c.intermediate = 4 * hidden;
  c.layer_norm_eps = layer_norm_eps;
  c.seq_len = positions;
  return c;
}
ModelConfig bert(const char* name, int hidden, int layers, int heads) {
  ModelConfig c = transformer(name, Arch::bert, 30522, 512, hidden, layers, heads, 1e-12);
  c.type_vocab = 2;
  return c;
}
ModelConfig gpt2(const char* name, int hidden, int layers, int heads) {
  return transformer(name, Arch::gpt2, 50257, 1024, hidden, layers, heads, 1e-5);
}
}  // namespace

ModelConfig bert_base() { return bert("bert_base", 768, 12, 12); }
ModelConfig bert_large() { return bert("bert_large", 1024, 24, 16); }
ModelConfig gpt2_small() { return gpt2("gpt2", 768, 12, 12); }
ModelConfig gpt2_xl() { return gpt2("gpt2_xl", 1600, 48, 25); }

std::vector<ModelConfig> published_models() {
  return {light_cnn(), resnet50(), bert_base(), bert_large(), gpt2_small(), gpt2_xl()};
}

ModelConfig config_by_name(const std::string& name) {
  for (ModelConfig& c : published_models())
    if (c.name == name) return c;
  throw std::invalid_argument("unknown model '" + name +
                              "' (known: light_cnn, resnet50, bert_base, bert_large, gpt2, gpt2_xl)");
}

namespace {

// What a walk over the layers accumulates. Activation counts are elements (per batch) of the
// tensors autograd saves for the backward pass, plus 1-byte and 8-byte extras (masks, indices).
struct Walk {
  int64_t params = 0;
  int64_t head = 0;
  double flops = 0;       // forward
  double act = 0;         // saved activation elements
  double act_bytes1 = 0;  // saved 1-byte elements (dropout masks)
  double act_bytes8 = 0;  // saved 8-byte elements (pooling indices, token ids)
};

int conv_out(int h, int k, int s, int p) { return (h + 2 * p - k) / s + 1; }

// conv (no bias) + batch norm (+ ReLU in place). Returns the output size; `relu` adds the saved
// ReLU output (which the next layer also uses as its saved input).
int conv_bn(Walk& w, int64_t n, int cin, int cout, int h, int k, int s, int p, bool relu) {
  const int ho = conv_out(h, k, s, p);
  const double out = static_cast<double>(n) * cout * ho * ho;
  w.params += static_cast<int64_t>(cin) * cout * k * k + 2 * cout;
  w.flops += 2.0 * out * cin * k * k;
  w.act += out;            // BN's saved input (the conv output)
  if (relu) w.act += out;  // BN output, ReLU'd in place: saved by ReLU and by the next conv
  return ho;
}

void linear(Walk& w, double rows, int64_t in, int64_t out, bool bias = true) {
  w.params += in * out + (bias ? out : 0);
  w.flops += 2.0 * rows * static_cast<double>(in) * static_cast<double>(out);
}

Walk walk_cnn(const ModelConfig& c, int64_t n) {
  Walk w;
  int h = c.image_size;
  int cin = c.in_channels;
  w.act += static_cast<double>(n) * cin * h * h;  // the input image, saved by the first conv
  if (c.arch == Arch::light_cnn) {
    for (int cout : c.channels) {
      h = conv_bn(w, n, cin, cout, h, 3, 1, 1, true);
      h /= 2;  // max pool 2x2, stride 2: saves int64 indices of its output
      w.act_bytes8 += static_cast<double>(n) * cout * h * h;
      w.act += static_cast<double>(n) * cout * h * h;  // pooled output, next conv's input
      cin = cout;
    }
  } else {
    h = conv_bn(w, n, cin, c.width, h, 7, 2, 3, true);
    h = conv_out(h, 3, 2, 1);  // max pool 3x3 s2 p1
    w.act_bytes8 += static_cast<double>(n) * c.width * h * h;
    w.act += static_cast<double>(n) * c.width * h * h;
    int inplanes = c.width;
    for (size_t stage = 0; stage < c.blocks.size(); ++stage) {
      const int planes = c.width << stage;
      for (int b = 0; b < c.blocks[stage]; ++b) {
        const int s = (b == 0 && stage > 0) ? 2 : 1;
        const int h_in = h;
        conv_bn(w, n, inplanes, planes, h_in, 1, 1, 0, true);
        const int h2 = conv_bn(w, n, planes, planes, h_in, 3, s, 1, true);
        conv_bn(w, n, planes, planes * 4, h2, 1, 1, 0, false);
        if (s != 1 || inplanes != planes * 4) conv_bn(w, n, inplanes, planes * 4, h_in, 1, s, 0, false);
        w.act += static_cast<double>(n) * planes * 4 * h2 * h2;  // residual sum, ReLU'd in place
        h = h2;
        inplanes = planes * 4;
      }
    }
    cin = inplanes;
  }
  // Global average pool, then the classifier (saves its input).
  w.act += static_cast<double>(n) * cin;
  linear(w, static_cast<double>(n), cin, c.num_classes);
  w.act += 2.0 * n * c.num_classes;  // logits and log-softmax output of the loss
  return w;
}

Walk walk_transformer(const ModelConfig& c, int64_t b, int seq) {
  Walk w;
  const int64_t d = c.hidden, f = c.intermediate, V = c.vocab_size;
  const double tok = static_cast<double>(b) * seq;                  // tokens in the batch
  const double att = static_cast<double>(b) * c.heads * seq * seq;  // attention scores
  const bool drop = c.dropout > 0;
  // Embeddings: token (+ segment for BERT) + learned positions; BERT adds a LayerNorm.
  w.params += V * d + static_cast<int64_t>(c.max_positions) * d;
  w.act_bytes8 += tok;  // token ids
  if (c.arch == Arch::bert) {
    w.params += static_cast<int64_t>(c.type_vocab) * d + 2 * d;
    w.act += tok * d;
  }
  if (drop) w.act_bytes1 += tok * d;
  for (int l = 0; l < c.layers; ++l) {
    // Attention: q, k, v projections (BERT: three d x d; GPT-2: one fused d x 3d: same count),
    // scores, softmax, dropout, context, output projection; two LayerNorms, the MLP.
    linear(w, tok, d, 3 * d);
    w.flops += 2.0 * 2.0 * att * (static_cast<double>(d) / c.heads);  // QK^T and AV
    linear(w, tok, d, d);
    w.params += 2 * 2 * d;  // two LayerNorms
    linear(w, tok, d, f);
    linear(w, tok, f, d);
    // Saved (Korthikanti et al. 2022, no recomputation): LN inputs 2, qkv input 1, q and k 2,
    // v 1, projection input 1, MLP input 1, GELU input 4 (f = 4d), fc2 input 4 -> 16 x tok x d
    // (scaled for f != 4d); softmax output and the (dropped-out) probabilities: 2 x att.
    w.act += tok * (8.0 * d + 2.0 * f) + 2.0 * att;
    if (drop) w.act_bytes1 += 2.0 * tok * d + att;
  }
  if (c.arch == Arch::bert) {
    // Pooler: dense d x d + tanh on the first token; then the classification head.
    linear(w, static_cast<double>(b), d, d);
    w.act += 2.0 * b * d;
    Walk head;
    linear(head, static_cast<double>(b), d, c.cls_labels);
    w.head += head.params;
    w.flops += head.flops;
    w.act += 2.0 * b * c.cls_labels;
  } else {
    w.params += 2 * d;             // final LayerNorm
    w.act += tok * d;              // its input
    w.flops += 2.0 * tok * d * V;  // LM head, tied to the token embedding (no parameters)
    // Head input, logits and log-softmax output; at the start of the backward pass the loss's two
    // gradients of that size (nll_loss's and log_softmax's) are live beside them: the peak. GPT-2
    // at seq 64 measured 109 MB per sample from b16 to b150 (docs/performance.md, capacity).
    w.act += tok * d + 4.0 * tok * V;
  }
  return w;
}

Walk walk(const ModelConfig& c, int64_t batch, int seq) {
  if (c.arch == Arch::light_cnn || c.arch == Arch::resnet) return walk_cnn(c, batch);
  return walk_transformer(c, batch, seq > 0 ? seq : c.seq_len);
}

}  // namespace

ParamCounts count_parameters(const ModelConfig& cfg) {
  Walk w = walk(cfg, 1, 1);
  return {w.params, w.head};
}

double forward_flops(const ModelConfig& cfg, int batch, int seq_len) { return walk(cfg, batch, seq_len).flops; }

double training_flops_per_step(const ModelConfig& cfg, int batch, int seq_len) {
  return 3.0 * forward_flops(cfg, batch, seq_len);
}

MemoryEstimate estimate_training_memory(const ModelConfig& cfg, int batch, const MemoryOptions& o) {
  Walk w = walk(cfg, batch, o.seq_len);
  const double p = static_cast<double>(w.params + w.head);
  MemoryEstimate m;
  m.weights = p * o.weight_bytes + (o.mixed_precision ? p * 2 : 0);  // autocast caches a 16-bit copy
  m.gradients = p * o.weight_bytes;
  const double state_bytes = 4;  // optimizer state kept in fp32
  switch (o.optimizer) {
    case Optimizer::sgd: m.optimizer_state = 0; break;
    case Optimizer::sgd_momentum: m.optimizer_state = p * state_bytes; break;
    case Optimizer::adamw: m.optimizer_state = 2 * p * state_bytes; break;
  }
  m.activations = w.act * o.activation_bytes + w.act_bytes1 + 8 * w.act_bytes8;
  return m;
}

}  // namespace rigcheck::zoo
