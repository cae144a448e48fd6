// memory_bandwidth's kernels on aarch64 (stream_kernels.hpp): NEON (Advanced SIMD, every aarch64
// CPU), 8 doubles (four 128-bit vectors) a step, stored with plain STR/ST1 or with STNP, Arm's
// non-temporal store pair. STNP is a hint that the data will not be reused soon: unlike x86's
// movntpd it is not defined to bypass the caches, and Neoverse cores also stop write-allocating
// plain stores once they see a stream of whole lines (write streaming mode). What it gives on a
// machine is what the suite measures: plain vs nt on Arm is a finding, not an assumption
// (docs/methodology.md). GCC has no non-temporal store builtin for aarch64: STNP is inline asm.
#include <arm_neon.h>

#include "stream_kernels.hpp"

namespace rigcheck::mem {
namespace {

// Stores 4 doubles (two q registers) at p (16-byte aligned).
template <bool NT>
inline __attribute__((always_inline)) void st2(double* p, float64x2_t v0, float64x2_t v1) {
  if constexpr (NT) {
    asm volatile("stnp %q1, %q2, [%0]" : : "r"(p), "w"(v0), "w"(v1) : "memory");
  } else {
    vst1q_f64(p, v0);
    vst1q_f64(p + 2, v1);
  }
}

// dst[i..i+8) = f(i), f(i+2), f(i+4), f(i+6) for i in [i0, vend), 8 at a time.
template <bool NT, class F>
inline __attribute__((always_inline)) void sweep(double* dst, size_t i0, size_t vend, F f) {
  for (size_t i = i0; i < vend; i += 8) {
    const float64x2_t v0 = f(i), v1 = f(i + 2), v2 = f(i + 4), v3 = f(i + 6);
    st2<NT>(dst + i, v0, v1);
    st2<NT>(dst + i + 4, v2, v3);
  }
}

template <bool NT>
void kneon(Op op, double* a, double* b, double* c, double s, size_t i0, size_t i1) {
  const float64x2_t vs = vdupq_n_f64(s);
  const size_t vend = i0 + (i1 - i0) / 8 * 8;
  size_t i = vend;
  switch (op) {
    case Op::copy:
      sweep<NT>(c, i0, vend, [&](size_t k) { return vld1q_f64(a + k); });
      for (; i < i1; ++i) c[i] = a[i];
      break;
    case Op::scale:
      sweep<NT>(b, i0, vend, [&](size_t k) { return vmulq_f64(vs, vld1q_f64(c + k)); });
      for (; i < i1; ++i) b[i] = s * c[i];
      break;
    case Op::add:
      sweep<NT>(c, i0, vend, [&](size_t k) { return vaddq_f64(vld1q_f64(a + k), vld1q_f64(b + k)); });
      for (; i < i1; ++i) c[i] = a[i] + b[i];
      break;
    case Op::triad:
      // b + s*c as a multiply then an add (two roundings), as the scalar reference computes it:
      // the build has -ffp-contract=off, and vfmaq_f64 would fuse them.
      sweep<NT>(a, i0, vend, [&](size_t k) { return vaddq_f64(vld1q_f64(b + k), vmulq_f64(vs, vld1q_f64(c + k))); });
      for (; i < i1; ++i) a[i] = b[i] + s * c[i];
      break;
  }
}

}  // namespace

const std::vector<StreamIsa>& stream_isas() {
  static const std::vector<StreamIsa> isas = {
      {"neon", kneon<false>, kneon<true>, [] { return true; }, "aarch64: Advanced SIMD is architectural"},
  };
  return isas;
}

}  // namespace rigcheck::mem
