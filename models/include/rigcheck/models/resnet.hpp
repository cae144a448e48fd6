// ResNet (ModelConfig resnet50()): torchvision's ResNet v1.5 (stride on the 3x3 convolution of
// the bottleneck), bottleneck blocks cfg.blocks per stage ({3, 4, 6, 3} for ResNet-50), stem
// width cfg.width, torchvision's initialisation. ResNet-50: 25,557,032 parameters.
#pragma once
#include "rigcheck/models/train.hpp"

namespace rigcheck::zoo {

class Bottleneck : public torch::nn::Module {
 public:
  Bottleneck(int64_t inplanes, int64_t planes, int64_t stride);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr}, conv3_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr}, bn3_{nullptr};
  torch::nn::Sequential downsample_{nullptr};
};

class ResNet : public ZooModel {
 public:
  explicit ResNet(const ModelConfig& cfg);
  torch::Tensor forward(const torch::Tensor& x) override;

 private:
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  std::vector<std::shared_ptr<Bottleneck>> blocks_;
  torch::nn::Linear fc_{nullptr};
};

}  // namespace rigcheck::zoo
