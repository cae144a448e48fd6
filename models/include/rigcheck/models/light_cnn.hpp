// Light CNN (ModelConfig light_cnn()): the guide's "light CNN", defined by this suite (the guide
// names none): per entry of cfg.channels (32, 64, 128, 256) a block conv 3x3 (stride 1, pad 1,
// no bias) -> batch norm -> ReLU -> max pool 2x2; then global average pool and a linear
// classifier to cfg.num_classes. On 224x224 RGB, 1000 classes: 645,896 parameters.
#pragma once
#include "rigcheck/models/train.hpp"

namespace rigcheck::zoo {

class LightCnn : public ZooModel {
 public:
  explicit LightCnn(const ModelConfig& cfg);
  torch::Tensor forward(const torch::Tensor& x) override;

 private:
  torch::nn::Sequential features_{nullptr};
  torch::nn::Linear fc_{nullptr};
};

}  // namespace rigcheck::zoo
