// oneDNN and OpenBLAS kernels shared by the cpu/ benchmarks, each checked against an
// independent double-precision reference on random inputs before it is timed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"

namespace rigcheck::cpu {

enum class DType { f32, bf16 };
const char* to_string(DType t);

// Uniform in [-1, 1], never exactly zero; bf16 values are exactly representable.
void fill_random(std::vector<float>& v, uint64_t seed, DType t = DType::f32);
uint16_t to_bf16_bits(float f);  // round to nearest even

// C (MxN) = A (MxK) * op(B) + bias, checked element by element against OpenBLAS dgemm in
// double. op(B) = B (KxN) or, with b_transposed, B^T where B is NxK. The tolerance of each
// element is the worst-case summation bound gamma_K * (|A||B|)_ij with gamma_K = K*u/(1-K*u).
CheckResult check_gemm(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c, int64_t m,
                       int64_t n, int64_t k, bool b_transposed, const std::vector<float>* bias, double unit_roundoff);

// The ISA oneDNN dispatches to in this process, e.g. "avx2", "avx512_core_bf16".
std::string onednn_effective_isa();
// The cap asked for through the environment ("native" when none).
std::string onednn_isa_cap();

// Kernels. Each make_* builds the primitive with the OpenMP pool at the case's threads.
std::unique_ptr<Kernel> make_onednn_matmul(int64_t m, int64_t n, int64_t k, DType t);
std::unique_ptr<Kernel> make_onednn_inner_product(int64_t batch, int64_t ic, int64_t oc, DType t);
// 2-D convolution, 3x3, stride 1, padding 1, NCHW, forward inference; checked on a random
// sample of outputs against a direct double-precision convolution.
std::unique_ptr<Kernel> make_onednn_conv(int64_t n, int64_t c, int64_t k, int64_t hw, DType t);
// Fully connected layer f32 (batch x ic -> oc) with no second copy of its weights: for working
// sets up to and past the last-level cache (cpu_cache_fc); checked on a random sample of outputs.
std::unique_ptr<Kernel> make_onednn_fc_sweep(int64_t batch, int64_t ic, int64_t oc);
std::unique_ptr<Kernel> make_onednn_sgemm(int64_t m, int64_t n, int64_t k);
std::unique_ptr<Kernel> make_openblas_sgemm(int64_t m, int64_t n, int64_t k);

}  // namespace rigcheck::cpu
