// The zoo's CNNs: light CNN and ResNet (one translation unit: each <torch/torch.h> TU is costly).
#include "rigcheck/models/light_cnn.hpp"
#include "rigcheck/models/resnet.hpp"

namespace rigcheck::zoo {

namespace nn = torch::nn;

namespace {
nn::Conv2d conv(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).bias(false));
}

// torchvision's initialisation: Kaiming normal (fan_out, ReLU) for convolutions, BN weight 1
// and bias 0; the classifier keeps nn.Linear's default.
void init_cnn(nn::Module& m) {
  torch::NoGradGuard ng;
  for (auto& mod : m.modules(/*include_self=*/false)) {
    if (auto* c = mod->as<nn::Conv2d>()) {
      nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
    } else if (auto* b = mod->as<nn::BatchNorm2d>()) {
      nn::init::ones_(b->weight);
      nn::init::zeros_(b->bias);
    }
  }
}
}  // namespace

LightCnn::LightCnn(const ModelConfig& cfg) : ZooModel(cfg) {
  features_ = register_module("features", nn::Sequential());
  int64_t cin = cfg.in_channels;
  for (int cout : cfg.channels) {
    features_->push_back(conv(cin, cout, 3, 1, 1));
    features_->push_back(nn::BatchNorm2d(cout));
    features_->push_back(nn::ReLU(nn::ReLUOptions().inplace(true)));
    features_->push_back(nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)));
    cin = cout;
  }
  fc_ = register_module("fc", nn::Linear(cin, cfg.num_classes));
  init_cnn(*this);
}

torch::Tensor LightCnn::forward(const torch::Tensor& x) {
  auto h = features_->forward(x);
  h = torch::adaptive_avg_pool2d(h, {1, 1}).flatten(1);
  return fc_->forward(h);
}

Bottleneck::Bottleneck(int64_t inplanes, int64_t planes, int64_t stride) {
  conv1_ = register_module("conv1", conv(inplanes, planes, 1, 1, 0));
  bn1_ = register_module("bn1", nn::BatchNorm2d(planes));
  conv2_ = register_module("conv2", conv(planes, planes, 3, stride, 1));
  bn2_ = register_module("bn2", nn::BatchNorm2d(planes));
  conv3_ = register_module("conv3", conv(planes, planes * 4, 1, 1, 0));
  bn3_ = register_module("bn3", nn::BatchNorm2d(planes * 4));
  if (stride != 1 || inplanes != planes * 4) {
    downsample_ = register_module(
        "downsample", nn::Sequential(conv(inplanes, planes * 4, 1, stride, 0), nn::BatchNorm2d(planes * 4)));
  }
}

torch::Tensor Bottleneck::forward(const torch::Tensor& x) {
  auto out = bn1_->forward(conv1_->forward(x)).relu_();
  out = bn2_->forward(conv2_->forward(out)).relu_();
  out = bn3_->forward(conv3_->forward(out));
  out += downsample_ ? downsample_->forward(x) : x;
  return out.relu_();
}

ResNet::ResNet(const ModelConfig& cfg) : ZooModel(cfg) {
  conv1_ = register_module("conv1", conv(cfg.in_channels, cfg.width, 7, 2, 3));
  bn1_ = register_module("bn1", nn::BatchNorm2d(cfg.width));
  int64_t inplanes = cfg.width;
  for (size_t stage = 0; stage < cfg.blocks.size(); ++stage) {
    const int64_t planes = static_cast<int64_t>(cfg.width) << stage;
    for (int b = 0; b < cfg.blocks[stage]; ++b) {
      const int64_t stride = (b == 0 && stage > 0) ? 2 : 1;
      blocks_.push_back(register_module("layer" + std::to_string(stage + 1) + "_" + std::to_string(b),
                                        std::make_shared<Bottleneck>(inplanes, planes, stride)));
      inplanes = planes * 4;
    }
  }
  fc_ = register_module("fc", nn::Linear(inplanes, cfg.num_classes));
  init_cnn(*this);
}

torch::Tensor ResNet::forward(const torch::Tensor& x) {
  auto h = bn1_->forward(conv1_->forward(x)).relu_();
  h = torch::max_pool2d(h, {3, 3}, {2, 2}, {1, 1});
  for (auto& b : blocks_) h = b->forward(h);
  h = torch::adaptive_avg_pool2d(h, {1, 1}).flatten(1);
  return fc_->forward(h);
}

}  // namespace rigcheck::zoo
