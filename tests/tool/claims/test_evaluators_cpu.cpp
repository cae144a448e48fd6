// tool/src/claims/evaluators_cpu.cpp: CPU-1, CPU-2 and CPU-5's ResNet-50 paths over the synthetic
// fixture runs/resnet_synthetic (hand-written rows, see its README.md): CPU-1 leads with ResNet-50
// and predicts E(8), CPU-2 predicts the 16 -> 32 core gain and says why it is not measured, CPU-5
// carries the model-level second evidence, and one usable core makes CPU-1 not_measurable.
#include <gtest/gtest.h>

#include <fstream>

#include "rigcheck/tool/report.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

TEST(CpuResnetReport, Cpu1LeadsWithResNetAndPredictsE8) {
  auto vs = make_report(copy_fixture("resnet_synthetic"), quiet());
  const Verdict& v = verdict_of(vs, "CPU-1");
  EXPECT_EQ(v.verdict, Outcome::predicted);
  EXPECT_EQ(v.evidence.rfind("ResNet-50 training step", 0), 0u) << v.evidence;
  EXPECT_NE(v.evidence.find("second evidence, GEMM"), std::string::npos) << v.evidence;
  EXPECT_NEAR(v.measured.value, 100 * 4.75 / (2 * 2.75), 1e-9);  // E(2) of the medians
  EXPECT_LT(v.predicted, v.measured.value);
  EXPECT_NE(v.reason.find("PREDICTED"), std::string::npos);
  EXPECT_NE(v.reason.find("serial fraction"), std::string::npos);
}

TEST(CpuResnetReport, Cpu2PredictsGainFrom16To32AndSaysWhyNotMeasured) {
  auto vs = make_report(copy_fixture("resnet_synthetic"), quiet());
  const Verdict& v = verdict_of(vs, "CPU-2");
  EXPECT_EQ(v.verdict, Outcome::predicted);
  EXPECT_GE(v.predicted, 0);
  EXPECT_LT(v.predicted, 100);
  EXPECT_NE(v.reason.find("not measured: it needs more than 16 cores"), std::string::npos) << v.reason;
}

TEST(CpuResnetReport, Cpu5CarriesModelLevelSecondEvidence) {
  auto vs = make_report(copy_fixture("resnet_synthetic"), quiet());
  const Verdict& v = verdict_of(vs, "CPU-5");
  EXPECT_NE(v.evidence.find("ResNet-50 inference"), std::string::npos) << v.evidence;
  EXPECT_NE(v.evidence.find("ResNet-50 train_step"), std::string::npos) << v.evidence;
  EXPECT_NE(v.evidence.find("ATen AVX2, oneDNN avx2"), std::string::npos) << v.evidence;
  EXPECT_EQ(v.evidence.find("had no effect"), std::string::npos) << v.evidence;
}

TEST(CpuResnetReport, OneUsableCoreMakesCpu1NotMeasurable) {
  std::string dir = copy_fixture("resnet_synthetic");
  std::ofstream(dir + "/inventory.csv", std::ios::app) << "usable_cores,1\n";
  auto vs = make_report(dir, quiet());
  const Verdict& v = verdict_of(vs, "CPU-1");
  EXPECT_EQ(v.verdict, Outcome::not_measurable);
  EXPECT_NE(v.reason.find("one usable core"), std::string::npos) << v.reason;
}
