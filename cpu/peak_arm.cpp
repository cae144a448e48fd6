// cpu_peak's kernels on aarch64 (peak_isa.hpp): NEON (Advanced SIMD, every aarch64 CPU) and SVE,
// compiled for SVE with a target attribute and run only where the kernel's HWCAP says the CPU has
// it; SVE's vector length is read at run time (svcntw), so one binary fits 128- to 2048-bit SVE.
// Chains: Neoverse V1/V2 dispatch 4 vector FMAs a cycle at 4 cycles latency, so 16 independent
// chains keep every pipe busy (Neoverse N1: 2 x 4 needs 8); 16 + a, b fit the 32 vector registers.
#include <arm_neon.h>
#include <arm_sve.h>
#include <asm/hwcap.h>
#include <sys/auxv.h>

#include "peak_isa.hpp"

namespace rigcheck::cpu {
namespace {

constexpr int kChains = 16;

void fma_neon(float* acc, float a, float b, int64_t iters) {
  const float32x4_t va = vdupq_n_f32(a), vb = vdupq_n_f32(b);
  float32x4_t c[kChains];
  for (int j = 0; j < kChains; ++j) c[j] = vld1q_f32(acc + 4 * j);
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 32
    for (int j = 0; j < kChains; ++j) c[j] = vfmaq_f32(vb, c[j], va);  // vb + c*va, fused
  for (int j = 0; j < kChains; ++j) vst1q_f32(acc + 4 * j, c[j]);
}

// SVE vectors are sizeless (no arrays of them): the 16 chains are spelt out, one macro per step.
#define RIGCHECK_SVE_16(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)

__attribute__((target("+sve"))) void fma_sve(float* acc, float a, float b, int64_t iters) {
  const svbool_t pg = svptrue_b32();
  const int64_t vl = static_cast<int64_t>(svcntw());
  const svfloat32_t va = svdup_n_f32(a), vb = svdup_n_f32(b);
#define RIGCHECK_LOAD(j) svfloat32_t c##j = svld1_f32(pg, acc + vl * (j));
#define RIGCHECK_FMA(j) c##j = svmad_f32_x(pg, c##j, va, vb);  // c*va + vb, fused
#define RIGCHECK_STORE(j) svst1_f32(pg, acc + vl * (j), c##j);
  RIGCHECK_SVE_16(RIGCHECK_LOAD)
  for (int64_t i = 0; i < iters; ++i) {
    RIGCHECK_SVE_16(RIGCHECK_FMA)
  }
  RIGCHECK_SVE_16(RIGCHECK_STORE)
#undef RIGCHECK_LOAD
#undef RIGCHECK_FMA
#undef RIGCHECK_STORE
}

__attribute__((target("+sve"))) int sve_lanes() { return static_cast<int>(svcntw()); }

bool has_sve() { return (getauxval(AT_HWCAP) & HWCAP_SVE) != 0; }

}  // namespace

const std::vector<FmaIsa>& fma_isas() {
  static const std::vector<FmaIsa> isas = {
      {"neon", [] { return 4; }, kChains, fma_neon, [] { return true; }, "aarch64: Advanced SIMD is architectural",
       false},
      {"sve", sve_lanes, kChains, fma_sve, has_sve, "HWCAP", true},
  };
  return isas;
}

}  // namespace rigcheck::cpu
