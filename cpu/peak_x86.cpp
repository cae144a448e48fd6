// cpu_peak's kernels on x86-64 (peak_isa.hpp): AVX2+FMA and AVX-512F chains, each compiled for its
// ISA with a target attribute and run only where cpuid says the CPU has it.
#include <immintrin.h>

#include "peak_isa.hpp"

namespace rigcheck::cpu {
namespace {

constexpr int kChains = 12;  // 16 ymm registers: 12 chains + a, b; >= 4-5 cycles latency x 2 FMA pipes

__attribute__((target("avx2,fma"))) void fma_avx2(float* acc, float a, float b, int64_t iters) {
  __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
  __m256 c[kChains];
  for (int j = 0; j < kChains; ++j) c[j] = _mm256_loadu_ps(acc + 8 * j);
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 32
    for (int j = 0; j < kChains; ++j) c[j] = _mm256_fmadd_ps(c[j], va, vb);
  for (int j = 0; j < kChains; ++j) _mm256_storeu_ps(acc + 8 * j, c[j]);
}

constexpr int kChains512 = 24;  // 32 zmm registers: more chains for wider, deeper pipes

__attribute__((target("avx512f"))) void fma_avx512(float* acc, float a, float b, int64_t iters) {
  __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
  __m512 c[kChains512];
  for (int j = 0; j < kChains512; ++j) c[j] = _mm512_loadu_ps(acc + 16 * j);
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 32
    for (int j = 0; j < kChains512; ++j) c[j] = _mm512_fmadd_ps(c[j], va, vb);
  for (int j = 0; j < kChains512; ++j) _mm512_storeu_ps(acc + 16 * j, c[j]);
}

}  // namespace

const std::vector<FmaIsa>& fma_isas() {
  static const std::vector<FmaIsa> isas = {
      {"avx2", [] { return 8; }, kChains, fma_avx2,
       [] { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }, "cpuid", false},
      {"avx512", [] { return 16; }, kChains512, fma_avx512,
       [] { return static_cast<bool>(__builtin_cpu_supports("avx512f")); }, "cpuid", false},
  };
  return isas;
}

}  // namespace rigcheck::cpu
