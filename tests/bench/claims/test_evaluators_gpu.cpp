// bench/claims/src/evaluators_gpu.cpp without a GPU: the datasheet table and its lookup, and the GPU
// claims' verdicts on a synthetic fixture run (tests/fixtures/runs/gpu_h200_synthetic, labelled NOT
// a measurement).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "rigcheck/harness/paths.hpp"
#include "rigcheck/claims/gpu_datasheet.hpp"
#include "rigcheck/report/report.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
std::vector<GpuDatasheet> table() { return gpu_datasheets(read_datasheets(data_path("datasheets.csv"))); }

std::vector<Verdict> report(const std::string& dir) { return make_report(dir, quiet()); }
bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// Appends CSV rows to a file of a copied run.
void append(const std::string& path, const std::string& rows) { std::ofstream(path, std::ios::app) << rows; }
// Replaces text in a file of a copied run.
void replace_in(const std::string& path, const std::string& from, const std::string& to) {
  std::stringstream ss;
  ss << std::ifstream(path).rdbuf();
  std::ofstream(path) << std::regex_replace(ss.str(), std::regex(from), to);
}
}  // namespace

TEST(GpuDatasheet, EveryCardOfTheIssueWithSourcedFigures) {
  auto t = table();
  for (const char* p :
       {"NVIDIA Tesla T4", "NVIDIA Tesla V100 SXM2", "NVIDIA A100 PCIe 40GB", "NVIDIA A100 PCIe 80GB",
        "NVIDIA A100 SXM4 40GB", "NVIDIA A100 SXM4 80GB", "NVIDIA A10", "NVIDIA A40", "NVIDIA L4", "NVIDIA L40S",
        "NVIDIA H100 PCIe", "NVIDIA H100 SXM", "NVIDIA H200 SXM", "NVIDIA GeForce RTX 2080 Ti",
        "NVIDIA GeForce RTX 3080", "NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 4090"}) {
    const GpuDatasheet* s = find_gpu_product(t, p);
    ASSERT_NE(s, nullptr) << p;
    for (const char* prop : {"fp32_tflops", "f16_tflops", "memory_gb", "tdp_w"}) {
      EXPECT_FALSE(std::isnan(s->num(prop))) << p << " " << prop;
      ASSERT_TRUE(s->has(prop));
      EXPECT_GT(s->props.at(prop).source.size(), 10u) << p << " " << prop << " has no source";
    }
    // Dense tensor figures: f16 tensor at least the plain f32 rate, never the sparse figure.
    EXPECT_GE(s->num("f16_tflops"), s->num("fp32_tflops")) << p;
    if (s->has("f16_tflops_sparse")) {
      EXPECT_DOUBLE_EQ(s->num("f16_tflops_sparse"), 2 * s->num("f16_tflops")) << p;
    }
  }
  EXPECT_DOUBLE_EQ(find_gpu_product(t, "NVIDIA GeForce RTX 3080")->num("memory_gb"), 10);
  EXPECT_DOUBLE_EQ(find_gpu_product(t, "NVIDIA H200 SXM")->num("bf16_tflops"), 989.5);
}

TEST(GpuDatasheet, DeviceNamesFindTheirProduct) {
  auto t = table();
  auto product = [&](const std::string& name) {
    const GpuDatasheet* s = find_gpu_datasheet(t, name);
    return s ? s->product : std::string("none");
  };
  EXPECT_EQ(product("NVIDIA H200"), "NVIDIA H200 SXM");
  EXPECT_EQ(product("NVIDIA H100 80GB HBM3"), "NVIDIA H100 SXM");
  EXPECT_EQ(product("NVIDIA H100 PCIe"), "NVIDIA H100 PCIe");
  EXPECT_EQ(product("NVIDIA A100-SXM4-80GB"), "NVIDIA A100 SXM4 80GB");
  EXPECT_EQ(product("NVIDIA A100-SXM4-40GB"), "NVIDIA A100 SXM4 40GB");
  EXPECT_EQ(product("NVIDIA A100 80GB PCIe"), "NVIDIA A100 PCIe 80GB");
  EXPECT_EQ(product("NVIDIA A100-PCIE-40GB"), "NVIDIA A100 PCIe 40GB");
  EXPECT_EQ(product("NVIDIA A10"), "NVIDIA A10");
  EXPECT_EQ(product("NVIDIA A40"), "NVIDIA A40");
  EXPECT_EQ(product("NVIDIA L4"), "NVIDIA L4");
  EXPECT_EQ(product("NVIDIA L40S"), "NVIDIA L40S");
  EXPECT_EQ(product("Tesla T4"), "NVIDIA Tesla T4");
  EXPECT_EQ(product("Tesla V100-SXM2-32GB"), "NVIDIA Tesla V100 SXM2");
  EXPECT_EQ(product("NVIDIA GeForce RTX 3080"), "NVIDIA GeForce RTX 3080");
  EXPECT_EQ(product("NVIDIA GeForce RTX 3080 Ti"), "none");  // another card, no row
  EXPECT_EQ(product("NVIDIA GeForce RTX 2080 Ti"), "NVIDIA GeForce RTX 2080 Ti");
  EXPECT_EQ(product("NVIDIA GeForce RTX 4090"), "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(product("NVIDIA H200 NVL"), "none");
  EXPECT_EQ(product("NVIDIA B200"), "none");
  EXPECT_TRUE(gpu_name_matches("foo|RTX 3090$", "nvidia geforce rtx 3090"));
  EXPECT_FALSE(gpu_name_matches("", "anything"));
}

TEST(GpuVerdicts, NoGpuSaysWhatIsMissingExceptTheGuideError) {
  auto vs = report(copy_fixture("good"));
  for (const char* id : {"GPU-1", "GPU-3", "GPU-4", "GPU-5", "PWR-1", "PWR-2", "THM-1"}) {
    const Verdict& v = verdict_of(vs, id);
    EXPECT_EQ(v.verdict, Outcome::not_measurable) << id;
    EXPECT_TRUE(has(v.reason, "gpu_count>=1 (this machine: 0)")) << id << ": " << v.reason;
  }
  const Verdict& gpu2 = verdict_of(vs, "GPU-2");
  EXPECT_EQ(gpu2.verdict, Outcome::refuted);
  EXPECT_TRUE(has(gpu2.reason, "no NVIDIA T100"));
  EXPECT_TRUE(has(gpu2.evidence, "memory_gb = 10"));
  EXPECT_FALSE(gpu2.measured.ok());  // a datasheet figure is never shown as measured
  EXPECT_TRUE(
      has(verdict_of(vs, "GPU-3").evidence, "NVIDIA GeForce RTX 3090 71.00 / NVIDIA GeForce RTX 2080 Ti 53.80"));
  EXPECT_TRUE(has(verdict_of(vs, "THM-1").reason, "room temperature"));
}

TEST(GpuVerdicts, SyntheticH200Run) {
  auto vs = report(copy_fixture("gpu_h200_synthetic"));
  const Verdict& g3 = verdict_of(vs, "GPU-3");
  EXPECT_EQ(g3.verdict, Outcome::refuted) << g3.reason;  // same-tier datasheet ratios 1.1x..1.9x, not 3x
  EXPECT_TRUE(has(g3.reason, "judged from the datasheets"));
  EXPECT_TRUE(has(g3.evidence, "f16 GEMM n=8192 760.0 TFLOP/s measured = 76.8% of its datasheet 989.5"));
  const Verdict& g4 = verdict_of(vs, "GPU-4");
  EXPECT_EQ(g4.verdict, Outcome::not_measurable);
  EXPECT_TRUE(has(g4.evidence, "bf16 n=8192 765.0 TFLOP/s = 77.3% of datasheet 989.5")) << g4.evidence;
  EXPECT_TRUE(
      has(g4.evidence, "fp8_e4m3 n=8192 1300 TFLOP/s = 65.7% of datasheet 1979 (fast accumulation not recorded"))
      << g4.evidence;
  EXPECT_EQ(verdict_of(vs, "GPU-5").verdict, Outcome::confirmed);
  const Verdict& p1 = verdict_of(vs, "PWR-1");
  EXPECT_EQ(p1.verdict, Outcome::not_measurable);  // an H200, not an A100
  EXPECT_DOUBLE_EQ(p1.measured.value, 688);
  EXPECT_TRUE(has(p1.evidence, "tdp_w = 700"));
  const Verdict& p2 = verdict_of(vs, "PWR-2");
  EXPECT_EQ(p2.verdict, Outcome::not_measurable) << p2.reason;  // one card: the four-card total is a model
  EXPECT_FALSE(p2.measured.ok());
  EXPECT_TRUE(has(p2.reason, "this machine has 1 GPU(s)")) << p2.reason;
  EXPECT_TRUE(has(p2.evidence, "one card's sustained power under the suite's GEMM, mean 640.0 W")) << p2.evidence;
  EXPECT_TRUE(has(p2.evidence, "model, not measured: 4 x 640.0 W + CPU package 240.0 W = 2800 W")) << p2.evidence;
  EXPECT_EQ(verdict_label(g3), "refuted (datasheet)");
  EXPECT_EQ(verdict_label(verdict_of(vs, "GPU-5")), "confirmed (datasheet)");
  EXPECT_EQ(verdict_label(verdict_of(vs, "GPU-2")), "refuted (datasheet)");
  const Verdict& t1 = verdict_of(vs, "THM-1");
  EXPECT_EQ(t1.verdict, Outcome::not_measurable);
  EXPECT_DOUBLE_EQ(t1.measured.value, 61);
  EXPECT_TRUE(has(t1.evidence, "thermal slowdown in 0% of samples"));
  const Verdict& g1 = verdict_of(vs, "GPU-1");
  EXPECT_EQ(g1.verdict, Outcome::refuted) << g1.reason;  // light CNN 1.2 GB is not within 25% of 2 GB
  EXPECT_TRUE(has(g1.evidence, "resnet50 (batch 16): guide 8 GB, peak reserved amp 5.1 GB"));
  EXPECT_TRUE(has(g1.reason, "gpt2_xl (not measured"));
  EXPECT_EQ(verdict_of(vs, "GPU-2").verdict, Outcome::refuted);
}

TEST(GpuVerdicts, PowerOfAnA100SystemAgainst500W) {
  std::string dir = copy_fixture("gpu_h200_synthetic");
  std::string inv = dir + "/inventory.csv";
  std::stringstream ss;
  ss << std::ifstream(inv).rdbuf();
  std::ofstream(inv) << std::regex_replace(ss.str(), std::regex("gpu0_name,NVIDIA H200"),
                                           "gpu0_name,NVIDIA A100-SXM4-80GB");
  auto vs = report(dir);
  const Verdict& p1 = verdict_of(vs, "PWR-1");
  EXPECT_EQ(p1.verdict, Outcome::refuted) << p1.reason;  // 688 + 240 W > 500 W
  EXPECT_TRUE(has(p1.reason, "= 928.0 W"));
  EXPECT_TRUE(has(p1.evidence, "NVIDIA A100 SXM4 80GB tdp_w = 400"));
}

TEST(GpuVerdicts, FourCardsJudgePwr2FromTheSustainedMeanAsAModel) {
  std::string dir = copy_fixture("gpu_h200_synthetic");
  replace_in(dir + "/inventory.csv", "\ngpu_count,1\n", "\ngpu_count,4\n");
  const std::vector<Verdict> vs = report(dir);  // kept: verdict_of returns a reference into it
  const Verdict& p2 = verdict_of(vs, "PWR-2");
  EXPECT_EQ(verdict_label(p2), "refuted (predicted)") << p2.reason;  // 4 x 640 + 240 W > 1200 W
  EXPECT_DOUBLE_EQ(p2.measured.value, 4 * 640 + 240);                // the sustained mean, not the 688 W peak
  EXPECT_TRUE(has(p2.reason, "one card's measured sustained mean plus the CPU")) << p2.reason;
}

TEST(GpuVerdicts, Gpu4SaysFp8RanWithoutFastAccumulation) {
  std::string dir = copy_fixture("gpu_h200_synthetic");
  replace_in(dir + "/gpu_gemm.csv", "dtype=fp8_e4m3;m=8192;n=8192;k=8192;",
             "dtype=fp8_e4m3;m=8192;n=8192;k=8192;fast_accum=off: CUBLASLT_MATMUL_DESC_FAST_ACCUM not set;");
  const std::vector<Verdict> vs = report(dir);  // kept: verdict_of returns a reference into it
  const Verdict& g4 = verdict_of(vs, "GPU-4");
  EXPECT_TRUE(has(g4.evidence, "of datasheet 1979 (fast accumulation off: the datasheet figure assumes it on"))
      << g4.evidence;
}

// ------------------------------------------------------------------ GPU-1 with models that do not fit
namespace {
// The synthetic H200 run with every measured model within 25% of the guide, and GPT-2 XL as given.
std::string gpu1_run(const std::string& gpt2_rows) {
  std::string dir = copy_fixture("gpu_h200_synthetic");
  const std::string f = dir + "/gpu_model_memory.csv";
  replace_in(f, "light_cnn;precision=fp32;batch=16,peak_reserved_bytes,1.2e9",
             "light_cnn;precision=fp32;batch=16,peak_reserved_bytes,1.9e9");
  replace_in(f, "\n1,synthetic,model_memory,gpt2_xl/fp32/b16,[^\n]*\n", "\n");
  append(f, gpt2_rows);
  return dir;
}
const char* kGpt2Skip =
    "1,synthetic,model_memory,gpt2_xl/{p}/b16,model=gpt2_xl;precision={p};batch=16,,,,-1,skipped,synthetic: does not "
    "fit\n";
std::string gpt2(const std::string& precision, const std::string& metric, double value) {
  std::string skip = std::regex_replace(kGpt2Skip, std::regex("\\{p\\}"), precision);
  return skip + fmt::format(
                    "1,synthetic,model_memory,gpt2_xl/{0}/"
                    "b16,model=gpt2_xl;precision={0};batch=16,{1},{2},bytes,-1,skipped,synthetic\n",
                    precision, metric, value);
}
}  // namespace

TEST(GpuVerdicts, Gpu1ModelThatDoesNotFitIsAMeasuredLowerBound) {
  // A real out-of-memory failure in mixed precision after 139 GB allocated: the step needs more than
  // the guide's 24 GB + 25%, measured.
  auto vs = report(gpu1_run(gpt2("fp32", "estimate_bytes", 296e9) + gpt2("amp", "oom_lower_bound_bytes", 139e9) +
                            gpt2("amp", "device_memory_bytes", 143.8e9)));
  const Verdict& g1 = verdict_of(vs, "GPU-1");
  EXPECT_EQ(g1.verdict, Outcome::refuted) << g1.reason;
  EXPECT_EQ(g1.basis, Basis::measured);
  EXPECT_TRUE(has(g1.evidence,
                  "gpt2_xl (batch 16): guide 24.00 GB, out of memory at batch 16 (amp) after 139.0 GB allocated of the "
                  "device's 143.8 GB"))
      << g1.evidence;
  EXPECT_TRUE(has(g1.reason, "3 of 4 model(s) within, 1 beyond by measurement, 0 beyond by the estimate alone"))
      << g1.reason;
}

TEST(GpuVerdicts, Gpu1EstimateAloneIsPredicted) {
  // Not tried: the zoo's estimate (296 GB) is over 1.5x the device. The refutation rests on it alone.
  auto vs = report(gpu1_run(gpt2("fp32", "estimate_bytes", 296e9) + gpt2("fp32", "device_memory_bytes", 143.8e9)));
  const Verdict& g1 = verdict_of(vs, "GPU-1");
  EXPECT_EQ(g1.verdict, Outcome::refuted) << g1.reason;
  EXPECT_EQ(g1.basis, Basis::predicted);
  EXPECT_EQ(verdict_label(g1), "refuted (predicted)");
  EXPECT_TRUE(
      has(g1.evidence, "not tried (fp32): the zoo's estimate 296.0 GB is over 1.5x the device's 143.8 GB (predicted)"))
      << g1.evidence;
}

TEST(GpuVerdicts, Gpu1LowerBoundBelowTheGuideDecidesNothing) {
  // A 16 GB GPU runs out after 15 GB: the step needs more than 15 GB, which does not contradict 24 GB.
  auto vs = report(gpu1_run(gpt2("amp", "oom_lower_bound_bytes", 15e9)));
  const Verdict& g1 = verdict_of(vs, "GPU-1");
  EXPECT_EQ(g1.verdict, Outcome::inconclusive) << g1.reason;
  EXPECT_EQ(g1.basis, Basis::measured);
  EXPECT_TRUE(has(g1.reason, "1 undecided"));
}
