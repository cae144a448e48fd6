// cpu/kernels.cpp: the random inputs (fill_random, to_bf16_bits), the GEMM check every GEMM-like
// kernel is judged by (check_gemm, against a naive triple loop here), and each oneDNN and OpenBLAS
// kernel on small odd shapes (its own check clean). Seeded inputs only. A kernel oneDNN has no
// implementation of on this CPU (bf16 without AVX-512 BF16 or AMX, say) throws Skip: GTEST_SKIP.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "kernels.hpp"
#include "onednn_api.hpp"

using namespace rigcheck;
using namespace rigcheck::cpu;

namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// bf16 by its definition: of the two bf16 values around f (f's top 16 bits, and one more), the
// nearer; on a tie, the one with an even last bit.
uint16_t naive_bf16(float f) {
  const uint16_t lo = static_cast<uint16_t>(bits_of(f) >> 16), hi = static_cast<uint16_t>(lo + 1);
  const double dlo = std::fabs(double(f) - from_bits(uint32_t(lo) << 16));
  const double dhi = std::fabs(double(f) - from_bits(uint32_t(hi) << 16));
  if (dlo != dhi) return dlo < dhi ? lo : hi;
  return (lo & 1) ? hi : lo;
}

// C = A (MxK) * op(B) + bias, each element summed in double and rounded once to float.
std::vector<float> naive_gemm(const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t n, int64_t k,
                              bool b_transposed, const std::vector<float>* bias) {
  std::vector<float> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = bias ? (*bias)[static_cast<size_t>(j)] : 0.0;
      for (int64_t p = 0; p < k; ++p)
        s += double(a[static_cast<size_t>(i * k + p)]) * b[static_cast<size_t>(b_transposed ? j * k + p : p * n + j)];
      c[static_cast<size_t>(i * n + j)] = static_cast<float>(s);
    }
  return c;
}

std::vector<float> random_vector(size_t n, uint64_t seed, DType t = DType::f32) {
  std::vector<float> v(n);
  fill_random(v, seed, t);
  return v;
}

// The kernel's own check after one run: every element (or sample) within its bound.
void expect_clean(const std::function<std::unique_ptr<Kernel>()>& make, const char* what) {
  std::unique_ptr<Kernel> k;
  try {
    k = make();
  } catch (const Skip& s) {
    GTEST_SKIP() << what << ": " << s.what();
  }
  const CheckResult r = k->check();
  EXPECT_GT(r.checked, 0) << what;
  EXPECT_EQ(r.wrong, 0) << what << ": worst " << r.worst << " of the bound; " << r.method;
  EXPECT_LE(r.worst, 1) << what;
}

}  // namespace

TEST(CpuInputs, FillRandomIsSeededNonZeroWithinOneAndBf16Exact) {
  const std::vector<float> a = random_vector(4096, 7), b = random_vector(4096, 7), c = random_vector(4096, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const std::vector<float> h = random_vector(4096, 7, DType::bf16);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(a[i] != 0 && a[i] >= -1 && a[i] <= 1) << a[i];
    ASSERT_TRUE(h[i] != 0 && h[i] >= -1 && h[i] <= 1) << h[i];
    ASSERT_EQ(bits_of(h[i]) & 0xffff, 0u) << h[i] << " is not a bf16 value";
  }
}

TEST(CpuInputs, ToBf16RoundsToNearestEvenAsDefined) {
  // Ties both ways: 1 + 2^-8 lies halfway between 1 (even) and 1 + 2^-7; 1 + 3 * 2^-8 between
  // 1 + 2^-7 (odd) and 1 + 2^-6 (even).
  EXPECT_EQ(to_bf16_bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(to_bf16_bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(to_bf16_bits(-1.0f - std::ldexp(1.0f, -8)), 0xbf80);
  std::mt19937_64 gen(2024);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-40, 40);
  for (int i = 0; i < 100000; ++i) {
    const float f = (i % 2 ? -1 : 1) * std::ldexp(mantissa(gen), exponent(gen));
    ASSERT_EQ(to_bf16_bits(f), naive_bf16(f)) << f;
  }
}

TEST(CpuGemmCheck, NaiveProductPassesEveryElement) {
  const int64_t m = 13, n = 11, k = 37;
  const std::vector<float> a = random_vector(m * k, 1), b = random_vector(k * n, 2), bias = random_vector(n, 3);
  const double u = std::ldexp(1.0, -24);
  CheckResult r = check_gemm(a, b, naive_gemm(a, b, m, n, k, false, nullptr), m, n, k, false, nullptr, u);
  EXPECT_EQ(r.checked, m * n);
  EXPECT_EQ(r.wrong, 0) << r.worst;
  // B given as N x K (inner product weights), with a bias per output column.
  const std::vector<float> bt = random_vector(n * k, 4);
  r = check_gemm(a, bt, naive_gemm(a, bt, m, n, k, true, &bias), m, n, k, true, &bias, u);
  EXPECT_EQ(r.checked, m * n);
  EXPECT_EQ(r.wrong, 0) << r.worst;
  EXPECT_LT(r.worst, 1);
}

TEST(CpuGemmCheck, AWrongElementIsFoundAndCounted) {
  const int64_t m = 9, n = 7, k = 64;
  const std::vector<float> a = random_vector(m * k, 5), b = random_vector(k * n, 6), bias = random_vector(n, 7);
  std::vector<float> c = naive_gemm(a, b, m, n, k, false, &bias);
  c[17] += 1e-3f * std::fabs(c[17]) + 1e-3f;  // far outside gamma_65 * sum|a||b|
  CheckResult r = check_gemm(a, b, c, m, n, k, false, &bias, std::ldexp(1.0, -24));
  EXPECT_EQ(r.wrong, 1);
  EXPECT_GT(r.worst, 1);
  c[17] = NAN;
  EXPECT_EQ(check_gemm(a, b, c, m, n, k, false, &bias, std::ldexp(1.0, -24)).wrong, 1);
  // The product without its bias is wrong wherever the bias is not negligible.
  const std::vector<float> no_bias = naive_gemm(a, b, m, n, k, false, nullptr);
  EXPECT_GT(check_gemm(a, b, no_bias, m, n, k, false, &bias, std::ldexp(1.0, -24)).wrong, m * n / 2);
  // B read transposed where the kernel multiplied it as it is.
  EXPECT_GT(check_gemm(a, b, no_bias, m, n, k, true, nullptr, std::ldexp(1.0, -24)).wrong, 0);
}

// The float64 reference kept for the next check of the same inputs (cpu/gemm_check.cpp): reused, and
// said so, only where A and B equal the earlier ones element by element; one element of A changed
// (same sizes) computes a new reference, against which the earlier product is wrong.
TEST(CpuGemmCheck, TheKeptReferenceServesOnlyTheSameInputs) {
  const int64_t m = 8, n = 6, k = 32;
  const double u = std::ldexp(1.0, -24);
  const std::vector<float> a = random_vector(m * k, 8), b = random_vector(k * n, 9);
  const std::vector<float> c = naive_gemm(a, b, m, n, k, false, nullptr);
  CheckResult first = check_gemm(a, b, c, m, n, k, false, nullptr, u);
  CheckResult again = check_gemm(a, b, c, m, n, k, false, nullptr, u);
  EXPECT_EQ(first.wrong, 0);
  EXPECT_EQ(again.wrong, 0);
  EXPECT_EQ(first.method.find("earlier case"), std::string::npos);
  EXPECT_NE(again.method.find("earlier case"), std::string::npos);
  std::vector<float> a2 = a;
  a2[5] = -a2[5] - 0.5f;  // row 0 of A*B changes
  CheckResult other = check_gemm(a2, b, c, m, n, k, false, nullptr, u);
  EXPECT_GE(other.wrong, n);
  EXPECT_EQ(other.method.find("earlier case"), std::string::npos);
}

TEST(CpuKernels, OnednnMatmulF32) {
  expect_clean([] { return make_onednn_matmul(33, 17, 29, DType::f32); }, "matmul f32");
}
TEST(CpuKernels, OnednnMatmulBf16) {
  expect_clean([] { return make_onednn_matmul(32, 16, 64, DType::bf16); }, "matmul bf16");
}
TEST(CpuKernels, OnednnInnerProductF32) {
  expect_clean([] { return make_onednn_inner_product(5, 31, 19, DType::f32); }, "inner product f32");
}
TEST(CpuKernels, OnednnInnerProductBf16) {
  expect_clean([] { return make_onednn_inner_product(8, 64, 32, DType::bf16); }, "inner product bf16");
}
TEST(CpuKernels, OnednnConvF32) {
  expect_clean([] { return make_onednn_conv(2, 3, 5, 7, DType::f32); }, "conv f32");
}
TEST(CpuKernels, OnednnConvBf16) {
  expect_clean([] { return make_onednn_conv(1, 16, 16, 8, DType::bf16); }, "conv bf16");
}
TEST(CpuKernels, OnednnFcSweep) {
  expect_clean([] { return make_onednn_fc_sweep(3, 257, 129); }, "fc sweep");
}
TEST(CpuKernels, OnednnSgemm) {
  expect_clean([] { return make_onednn_sgemm(21, 19, 45); }, "dnnl_sgemm");
}
TEST(CpuKernels, OpenblasSgemm) {
  expect_clean([] { return make_openblas_sgemm(21, 19, 45); }, "openblas sgemm");
}

// The adapter reads the verbose lines of oneDNN 2.x and 3.x alike (3.x adds a "primitive" marker, a
// format version "v1" from 3.5 and an optional timestamp before "exec").
TEST(OnednnApi, VerboseExecLinesOfBothMajors) {
  using rigcheck::cpu::onednn_api::verbose_exec;
  std::string kind, impl;
  ASSERT_TRUE(verbose_exec("onednn_verbose,exec,cpu,convolution,brgconv:avx512_core,forward_training,src_f32::blocked",
                           &kind, &impl));
  EXPECT_EQ(kind, "convolution");
  EXPECT_EQ(impl, "brgconv:avx512_core");
  ASSERT_TRUE(verbose_exec("onednn_verbose,v1,primitive,exec,cpu,matmul,brg_matmul:avx2,undef,src:f32::blocked:ab",
                           &kind, &impl));
  EXPECT_EQ(kind, "matmul");
  EXPECT_EQ(impl, "brg_matmul:avx2");
  ASSERT_TRUE(verbose_exec("onednn_verbose,1733490000000.25,v1,primitive,exec,cpu,inner_product,brgemm:avx2,forward",
                           &kind, &impl));
  EXPECT_EQ(kind, "inner_product");
  EXPECT_FALSE(
      verbose_exec("onednn_verbose,v1,primitive,create:cache_miss,cpu,matmul,brg_matmul:avx2,undef", &kind, &impl));
  EXPECT_FALSE(verbose_exec("onednn_verbose,v1,info,oneDNN v3.7.2 (commit N/A)", &kind, &impl));
  EXPECT_FALSE(verbose_exec("not oneDNN at all", &kind, &impl));
}

TEST(OnednnApi, IsaNamesAndUnknownValues) {
  using rigcheck::cpu::onednn_api::isa_name;
#if !defined(__aarch64__)
  EXPECT_EQ(isa_name(dnnl_cpu_isa_avx2), "avx2");
  EXPECT_EQ(isa_name(dnnl_cpu_isa_avx512_core_amx), "avx512_core_amx");
  EXPECT_EQ(isa_name(static_cast<dnnl_cpu_isa_t>(0x7fff0)), "isa_0x7fff0");
#endif
  EXPECT_FALSE(isa_name(dnnl::get_effective_cpu_isa()).empty());
}
