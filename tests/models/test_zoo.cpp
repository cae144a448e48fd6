// Model zoo: parameter counts against the published ones (analytic, and allocated where the
// model fits comfortably), analytic == allocated on small configs, and the shared training
// step makes the loss fall on a fixed batch.
#include <gtest/gtest.h>

#include "rigcheck/models/zoo.hpp"
#ifdef RIGCHECK_HAVE_ZOO
#include "rigcheck/models/train.hpp"
#endif

using namespace rigcheck::zoo;

namespace {

// Small configs of every architecture, for analytic == allocated and fast training tests.
ModelConfig tiny_resnet() {
  ModelConfig c = resnet50();
  c.name = "resnet_tiny";
  c.blocks = {1, 1, 1, 1};
  c.width = 8;
  c.image_size = 32;
  c.num_classes = 10;
  return c;
}
ModelConfig tiny_light_cnn() {
  ModelConfig c = light_cnn();
  c.channels = {8, 16};
  c.image_size = 32;
  c.num_classes = 10;
  return c;
}
ModelConfig tiny_transformer(ModelConfig c) {
  c.name += "_tiny";
  c.vocab_size = 97;
  c.max_positions = 32;
  c.hidden = 32;
  c.layers = 2;
  c.heads = 4;
  c.intermediate = 128;
  c.seq_len = 16;
  return c;
}

}  // namespace

TEST(ZooCounts, PublishedFiguresFromConfigsWithoutAllocating) {
  EXPECT_EQ(count_parameters(resnet50()).model, 25557032);
  EXPECT_EQ(count_parameters(bert_base()).model, 109482240);
  EXPECT_EQ(count_parameters(bert_large()).model, 335141888);
  EXPECT_EQ(count_parameters(gpt2_small()).model, 124439808);
  EXPECT_EQ(count_parameters(gpt2_xl()).model, 1557611200);
  EXPECT_EQ(count_parameters(light_cnn()).model, 645896);  // the suite's own definition
  // Only BERT carries a training head outside the published count (pooler -> 2 labels).
  EXPECT_EQ(count_parameters(bert_base()).head, 768 * 2 + 2);
  EXPECT_EQ(count_parameters(gpt2_xl()).head, 0);
  EXPECT_EQ(count_parameters(resnet50()).head, 0);
}

TEST(ZooCounts, ConfigByName) {
  for (const ModelConfig& c : published_models()) EXPECT_EQ(config_by_name(c.name).name, c.name);
  EXPECT_THROW(config_by_name("alexnet"), std::invalid_argument);
}

TEST(ZooMemory, EstimateAddsUpAndScalesWithBatch) {
  MemoryOptions o;
  o.optimizer = Optimizer::adamw;
  MemoryEstimate m1 = estimate_training_memory(bert_base(), 1, o), m16 = estimate_training_memory(bert_base(), 16, o);
  const double p = static_cast<double>(count_parameters(bert_base()).total());
  EXPECT_DOUBLE_EQ(m16.weights, 4 * p);
  EXPECT_DOUBLE_EQ(m16.gradients, 4 * p);
  EXPECT_DOUBLE_EQ(m16.optimizer_state, 8 * p);
  EXPECT_DOUBLE_EQ(m16.weights, m1.weights);  // weights do not grow with the batch
  EXPECT_NEAR(m16.activations / m1.activations, 16.0, 1e-9);
  EXPECT_DOUBLE_EQ(m16.total(), m16.weights + m16.gradients + m16.optimizer_state + m16.activations);
  // ResNet-50 forward: 4.1 GMAC per 224x224 image, the commonly quoted figure (within 2%).
  EXPECT_NEAR(forward_flops(resnet50(), 1) / 2e9, 4.1, 0.08);
}

#ifdef RIGCHECK_HAVE_ZOO

TEST(ZooAllocated, AnalyticEqualsAllocatedOnSmallConfigs) {
  for (const ModelConfig& c :
       {tiny_resnet(), tiny_light_cnn(), light_cnn(), tiny_transformer(bert_base()), tiny_transformer(gpt2_small())}) {
    auto m = build_model(c);
    ParamCounts pc = count_parameters(c);
    EXPECT_EQ(allocated_parameters(*m), pc.total()) << c.name;
    EXPECT_EQ(allocated_head_parameters(*m), pc.head) << c.name;
  }
}

TEST(ZooAllocated, PublishedModelsAllocated) {
  // GPT-2 XL (6.2 GB of fp32 weights) is counted analytically only (test above).
  for (const ModelConfig& c : {resnet50(), bert_base(), gpt2_small(), bert_large()}) {
    auto m = build_model(c);
    EXPECT_EQ(allocated_parameters(*m) - allocated_head_parameters(*m), count_parameters(c).model) << c.name;
  }
}

// The loss falls (to under 3/4 of the first step's) over 20 steps of the shared train_step on a
// fixed batch.
void expect_loss_falls(const ModelConfig& c, int batch, Optimizer opt, double lr) {
  auto m = build_model(c);
  Batch b = make_batch(c, batch);
  auto o = make_optimizer(*m, opt, lr);
  std::vector<float> losses;
  for (int i = 0; i < 20; ++i) {
    StepResult r = train_step(*m, *o, b);
    ASSERT_TRUE(r.applied);
    losses.push_back(r.loss.item<float>());
    ASSERT_TRUE(std::isfinite(losses.back())) << c.name << " step " << i;
  }
  const float first = losses.front(), last = losses.back();
  EXPECT_LT(last, 0.75f * first) << c.name << ": loss " << first << " -> " << last;
}

TEST(ZooTraining, LossFallsOverTwentyStepsResNet) {
  // The same ResNet class and train_step as cpu_resnet's ResNet-50 step, on a small config.
  expect_loss_falls(tiny_resnet(), 8, Optimizer::sgd_momentum, 0.05);
}
TEST(ZooTraining, LossFallsOverTwentyStepsLightCnn) {
  expect_loss_falls(tiny_light_cnn(), 8, Optimizer::sgd_momentum, 0.05);
}
TEST(ZooTraining, LossFallsOverTwentyStepsBert) {
  ModelConfig c = tiny_transformer(bert_base());
  c.dropout = 0;
  expect_loss_falls(c, 8, Optimizer::adamw, 1e-3);
}
TEST(ZooTraining, LossFallsOverTwentyStepsGpt2) {
  ModelConfig c = tiny_transformer(gpt2_small());
  c.dropout = 0;
  expect_loss_falls(c, 4, Optimizer::adamw, 3e-3);
}

TEST(ZooTraining, ResNet50StepRuns) {
  // ResNet-50 itself through the same step (batch 2 at 64x64 to keep the test short).
  ModelConfig c = resnet50();
  c.image_size = 64;
  auto m = build_model(c);
  Batch b = make_batch(c, 2);
  auto o = make_optimizer(*m, Optimizer::sgd_momentum, 0.01);
  auto before = m->parameters().front().clone();
  StepResult r = train_step(*m, *o, b);
  EXPECT_TRUE(std::isfinite(r.loss.item<float>()));
  EXPECT_FALSE(torch::equal(before, m->parameters().front()));
}

TEST(ZooTraining, MixedPrecisionBf16StepOnCpu) {
  ModelConfig c = tiny_transformer(gpt2_small());
  auto m = build_model(c);
  Batch b = make_batch(c, 2);
  auto o = make_optimizer(*m, Optimizer::adamw, 1e-3);
  StepOptions so;
  so.precision = Precision::amp_bf16;
  StepResult r = train_step(*m, *o, b, so);
  EXPECT_TRUE(r.applied);
  EXPECT_TRUE(std::isfinite(r.loss.item<float>()));
}

#endif
